"""Random numbers shared by the theories.

* :func:`dynamics.numerics.haar_orthogonal` draws from the Haar measure on O(n) by the QR decomposition of a Gaussian
  matrix with the signs of R's diagonal moved into Q (Mezzadri, *Notices of the AMS* 54, 2007, Sec. 5): without that
  sign fix the distribution is not Haar.
* Gaussian streams for compiled loops, where numpy's Generator cannot be called: xoshiro256++ with a 256-layer
  ziggurat for bulk draws in parallel chunks (``normal_fill``; kernels ``next_u64``, ``ziggurat_fast``,
  ``ziggurat_slow``, ``seed_states``, ``ZIGGURAT``), and a counter-based stream whose k-th draw is a pure function
  of (key, k) for random access (``counter_normals``; kernel ``fill_normals``, ``stream_key``).
* :func:`dynamics.numerics.seed_streams` splits one seed into named, independent numpy streams (the data, the
  initialisation, the batch order, ...) by ``numpy.random.SeedSequence.spawn``, so that a trainer's draws for one
  purpose never shift another's: the one rule every trainer follows.
"""
import collections
import functools
import keyword
import numbers
from typing import Optional, Sequence, Tuple, Union

import numpy as np

from ._counter_rng import fill_normals, normals as _counter_normals, stream_key
from ._ziggurat import N_CHUNKS, ZIGGURAT, next_u64, normal_fill, seed_states, ziggurat_fast, ziggurat_slow
from .validation import require_integer, rng_from
from ._docstrings import fill_doc

__all__ = ["haar_orthogonal", "seed_streams", "normal_fill", "counter_normals", "fill_normals", "stream_key", "N_CHUNKS", "ZIGGURAT",
           "next_u64", "seed_states", "ziggurat_fast", "ziggurat_slow"]


def counter_normals(key: int, k: int, d: int) -> np.ndarray:
    """Draw ``k`` of the counter-based Gaussian stream ``key``: ``d`` standard normals, the same every time.

    Parameters
    ----------
    key : int
        The stream, 0 <= key < 2**64 (e.g. from ``stream_key(rng)``).
    k : int
        The draw index, >= 0.
    d : int
        Number of normals, >= 1.

    Returns
    -------
    ndarray, shape (d,)

    Examples
    --------
    >>> a, b = counter_normals(7, 3, 4), counter_normals(7, 3, 4)
    >>> bool(np.array_equal(a, b)), bool(np.array_equal(a, counter_normals(7, 4, 4)))
    (True, False)
    """
    key = require_integer("key", key, 0, 2**64 - 1)
    k = require_integer("k", k, 0)
    d = require_integer("d", d, 1)
    return _counter_normals(key, k, d)


@fill_doc
def haar_orthogonal(n: int, seed: Union[None, int, np.random.Generator] = None,
                    n_matrices: Optional[int] = None) -> np.ndarray:
    """Haar-distributed random orthogonal matrices.

    Parameters
    ----------
    n : int
        Size of each matrix, 1 <= n <= 100000.
    %(seed)s
    n_matrices : int, optional
        Draw a stack of this many independent matrices (shape (n_matrices, n, n)); None draws one (n, n).

    Returns
    -------
    ndarray
        Q with QᵀQ = I, shape (n, n) or (n_matrices, n, n).

    Examples
    --------
    >>> Q = haar_orthogonal(3, seed=0)
    >>> bool(np.allclose(Q.T @ Q, np.eye(3)))
    True
    >>> haar_orthogonal(4, seed=1, n_matrices=2).shape
    (2, 4, 4)
    """
    n = require_integer("n", n, 1, 100_000)
    rng = rng_from(seed)
    shape = (n, n) if n_matrices is None else (require_integer("n_matrices", n_matrices, 1, 1_000_000), n, n)
    q, r = np.linalg.qr(rng.standard_normal(shape))
    return q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[..., None, :]


@functools.lru_cache(maxsize=None)
def _streams_type(names):
    return collections.namedtuple("SeedStreams", names)


def seed_streams(seed: Union[None, int, np.random.SeedSequence, np.random.Generator],
                 names: Sequence[str]) -> Tuple[np.random.Generator, ...]:
    """Independent numpy streams of one seed, one per name, in the order of ``names``.

    The root is ``numpy.random.SeedSequence(seed)`` for an integer seed (the sequence itself for a
    ``SeedSequence``), ``SeedSequence(g.integers(2**63 - 1))`` for a Generator ``g`` (one draw from the caller's
    stream) and fresh entropy for None. Stream ``i`` is ``numpy.random.default_rng(root.spawn(len(names))[i])``,
    so the first streams of a longer list are the streams of a shorter one, and adding a purpose at the end never
    changes the others' numbers. A stream's own ``SeedSequence`` is ``stream.bit_generator.seed_seq``, for keyed
    children.

    Parameters
    ----------
    seed : None, int >= 0, numpy.random.SeedSequence or numpy.random.Generator
        The seed of one run. A SeedSequence spawns further children on each call (its ``n_children_spawned``
        grows), as ``SeedSequence.spawn`` does.
    names : sequence of str
        One Python identifier per purpose, e.g. ``("data", "init", "order")``; no name twice.

    Returns
    -------
    SeedStreams
        A named tuple of ``numpy.random.Generator``: ``streams.data``, ``streams.init``, ... (or unpack it).

    Raises
    ------
    ValueError
        If ``names`` is empty, holds a name twice or a string that is not an identifier, or ``seed`` is negative.
    TypeError
        If ``seed`` is not one of the accepted types.

    Examples
    --------
    >>> from dynamics.numerics import seed_streams
    >>> streams = seed_streams(7, ("data", "init", "order"))
    >>> again = seed_streams(7, ("data", "init"))
    >>> bool(streams.init.integers(2**32) == again.init.integers(2**32))
    True
    >>> bool(streams.data.integers(2**32) == streams.order.integers(2**32))
    False
    """
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise ValueError(f"names must be a sequence of identifiers such as ('data', 'init'), got {names!r}")
    names = tuple(names)
    bad = [n for n in names if not isinstance(n, str) or not n.isidentifier() or keyword.iskeyword(n)
           or n.startswith("_")]
    if not names or bad or len(set(names)) != len(names):
        raise ValueError(f"names must be 1 or more distinct identifiers not starting with '_', got {names!r}")
    if isinstance(seed, np.random.SeedSequence):
        root = seed
    elif isinstance(seed, np.random.Generator):
        root = np.random.SeedSequence(int(seed.integers(2**63 - 1)))
    elif seed is None:
        root = np.random.SeedSequence()
    elif isinstance(seed, numbers.Integral) and not isinstance(seed, (bool, np.bool_)):
        root = np.random.SeedSequence(require_integer("seed", seed, 0))
    else:
        raise TypeError(f"seed must be None, an int >= 0, a SeedSequence or a numpy Generator, got {seed!r}")
    return _streams_type(names)(*(np.random.default_rng(child) for child in root.spawn(len(names))))
