"""A counter-based Gaussian stream: the k-th draw of a stream is a pure function of (key, k).

Two optimizers run on a stochastic loss then see identical losses at step k without a pre-generated table
(the spherical theory's synthetic losses: "two schemes see identical losses"), and numba and numpy code share
the draws. Re-exported by ``dynamics.numerics.random``. The hash is
SplitMix64's finaliser (Steele, Lea & Flood, OOPSLA 2014) applied to (key, k, pair index); normals come from
the Box–Muller transform of two 53-bit uniforms.
"""
import math

import numba as nb
import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_TWO_POW_53 = 2.0 ** -53


@nb.njit(cache=True)
def _mix(z):
    z = z + _GOLDEN
    z = (z ^ (z >> _S30)) * _MUL1
    z = (z ^ (z >> _S27)) * _MUL2
    return z ^ (z >> _S31)


@nb.njit(cache=True)
def fill_normals(key, k, out) -> None:
    """Fill ``out`` with the standard normals of draw k of stream ``key`` (uint64).

    Parameters
    ----------
    key : numpy.uint64
        The stream, e.g. ``np.uint64(stream_key(rng))``. Convert the key to uint64 before it enters numba
        code: an int64 key compiles another specialisation whose draws differ from ``normals``'.
    k : int
        The draw index, >= 0.
    out : ndarray, shape (d,), float64
        Filled in place, d >= 0: the first d normals of draw k, so a shorter ``out`` gets a prefix of a
        longer one's values.

    Returns
    -------
    None
        The normals are written into ``out``.

    Examples
    --------
    >>> out = np.empty(3)
    >>> fill_normals(np.uint64(7), 3, out)
    >>> bool(np.array_equal(out, normals(7, 3, 3))), bool(np.array_equal(out[:2], normals(7, 3, 2)))
    (True, True)
    """
    base = _mix(key ^ _mix(np.uint64(k)))
    d = out.shape[0]
    pair = 0
    j = 0
    while j < d:
        a = _mix(base + np.uint64(2 * pair))
        b = _mix(base + np.uint64(2 * pair + 1))
        u1 = (np.float64(a >> _S11) + 1.0) * _TWO_POW_53  # in (0, 1]
        u2 = np.float64(b >> _S11) * _TWO_POW_53
        radius = math.sqrt(-2.0 * math.log(u1))
        out[j] = radius * math.cos(2.0 * math.pi * u2)
        if j + 1 < d:
            out[j + 1] = radius * math.sin(2.0 * math.pi * u2)
        j += 2
        pair += 1


def normals(key, k, d) -> np.ndarray:
    """Draw k (an int >= 0) of stream ``key``: d standard normals."""
    out = np.empty(d)
    fill_normals(np.uint64(key), int(k), out)
    return out


def stream_key(rng) -> int:
    """A stream key drawn from a numpy Generator.

    Parameters
    ----------
    rng : numpy.random.Generator
        Advanced by one draw.

    Returns
    -------
    int
        A key in [0, 2**63), for ``fill_normals`` and ``dynamics.numerics.random.counter_normals``.

    Examples
    --------
    >>> key = stream_key(np.random.default_rng(0))
    >>> 0 <= key < 2 ** 63, key == stream_key(np.random.default_rng(0))
    (True, True)
    """
    return int(rng.integers(0, 2 ** 63, dtype=np.int64))
