"""Fast Gaussian variates inside numba kernels: xoshiro256++ and a 256-layer ziggurat.

* xoshiro256++ (Blackman & Vigna, "Scrambled linear pseudorandom number generators", ACM TOMS 47, 2021): a
  64-bit generator whose state is four uint64 words, kept in local variables (registers) by the kernels; all
  output bits are of full quality, so the low 8 bits can pick the ziggurat layer.
* The ziggurat of Marsaglia & Tsang (J. Stat. Softw. 5(8), 2000) in numpy's 256-layer, 52-bit form (r =
  3.6541528853610088, layer area v = 4.92867323399e-3): one 64-bit draw gives the layer (8 bits), the sign (1 bit)
  and a 52-bit magnitude; 98.8% of draws are accepted by one integer comparison, the wedges by an exponential
  test and the tail by Marsaglia's exponential method.

Each parallel chunk of a kernel owns one generator state, seeded from a ``numpy.random.Generator``; results
therefore depend on the seed and the number of chunks, never on the number of threads. Used by the AND-mask
Monte Carlo engine; re-exported by ``dynamics.numerics.random``.
"""
import math
from typing import Tuple

import numba as nb
import numpy as np

from .validation import rng_from

__all__ = ["N_CHUNKS", "ZIGGURAT", "next_u64", "normal_fill", "seed_states", "ziggurat_fast", "ziggurat_slow"]

#: The number of independent generator states (parallel chunks) every Monte Carlo kernel uses.
N_CHUNKS = 64

_U8 = np.uint64(8)
_U1 = np.uint64(1)
_U11 = np.uint64(11)
_U17 = np.uint64(17)
_U23 = np.uint64(23)
_U41 = np.uint64(41)
_U45 = np.uint64(45)
_U19 = np.uint64(19)
_MASK8 = np.uint64(0xFF)
_MASK52 = np.uint64(0x000FFFFFFFFFFFFF)
_R = 3.6541528853610088
_INV_R = 1.0 / _R
_TO_UNIT = 1.0 / 9007199254740992.0  # 2^-53


def _ziggurat_tables():
    """ki (acceptance limits, uint64), wi (layer widths / 2^52) and fi (densities at the layer edges)."""
    r, v, scale = _R, 4.92867323399e-3, 2.0 ** 52
    ki = np.zeros(256, dtype=np.uint64)
    wi = np.zeros(256)
    fi = np.zeros(256)
    dn = tn = r
    q = v / math.exp(-0.5 * dn * dn)
    ki[0] = np.uint64((dn / q) * scale)
    wi[0] = q / scale
    wi[255] = dn / scale
    fi[0] = 1.0
    fi[255] = math.exp(-0.5 * dn * dn)
    for i in range(254, 0, -1):
        dn = math.sqrt(-2.0 * math.log(v / dn + math.exp(-0.5 * dn * dn)))
        ki[i + 1] = np.uint64((dn / tn) * scale)
        tn = dn
        fi[i] = math.exp(-0.5 * dn * dn)
        wi[i] = dn / scale
    return ki, wi, fi


#: The ziggurat tables (ki, wi, fi), passed to the kernels as arguments.
ZIGGURAT = _ziggurat_tables()


@nb.njit(cache=True)
def next_u64(s0, s1, s2, s3) -> Tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]:
    """One xoshiro256++ step: (output, new state).

    Parameters
    ----------
    s0, s1, s2, s3 : numpy.uint64
        The four words of the generator state, not all zero (a row of ``seed_states``). Numba code keeps
        them in local variables; called from Python, pass them as ``np.uint64`` (numba returns Python ints,
        which numba types as int64 when passed back).

    Returns
    -------
    Tuple[numpy.uint64, numpy.uint64, numpy.uint64, numpy.uint64, numpy.uint64]
        ``(output, s0, s1, s2, s3)``: a 64-bit output, every bit of full quality, and the new state. A plain
        tuple, for numba callers.

    Examples
    --------
    >>> out, *state = next_u64(np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4))
    >>> out  # rotl(s0 + s3, 23) + s0, as in the reference implementation
    41943041
    >>> state
    [7, 0, 262146, 211106232532992]
    """
    x = s0 + s3
    out = ((x << _U23) | (x >> _U41)) + s0
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << _U45) | (s3 >> _U19)
    return out, s0, s1, s2, s3


@nb.njit(cache=True)
def _unit(r):
    """A uniform double in [0, 1) from the top 53 bits."""
    return (r >> _U11) * _TO_UNIT


@nb.njit(cache=True)
def _normal_slow(r, idx, rabs, x, s0, s1, s2, s3, ki, wi, fi):
    """The rare branches of the ziggurat (1.2% of draws): the tail (layer 0) and the wedges; redraw on rejection."""
    while True:
        if rabs < ki[idx]:
            return x, s0, s1, s2, s3
        if idx == 0:
            while True:
                u, s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
                xx = -_INV_R * math.log1p(-_unit(u))
                u, s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
                yy = -math.log1p(-_unit(u))
                if yy + yy > xx * xx:
                    return (-(_R + xx) if (rabs >> _U8) & _U1 else _R + xx), s0, s1, s2, s3
        u, s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
        if (fi[idx - 1] - fi[idx]) * _unit(u) + fi[idx] < math.exp(-0.5 * x * x):
            return x, s0, s1, s2, s3
        r, s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
        idx = np.intp(r & _MASK8)
        r >>= _U8
        rabs = (r >> _U1) & _MASK52
        x = rabs * wi[idx]
        if r & _U1:
            x = -x


@nb.njit(cache=True)
def ziggurat_fast(r, ki, wi) -> Tuple[float, bool]:
    """The common branch of the ziggurat from one 64-bit draw r: (x, accepted). When not accepted, call
    ``ziggurat_slow`` with the same r (kernels write ``if not ok: x, s0, s1, s2, s3 = ziggurat_slow(...)``;
    one function holding both branches is not inlined by LLVM and costs 5x more per variate).

    Parameters
    ----------
    r : numpy.uint64
        One output of ``next_u64``: its low 8 bits pick the layer, the next bit the sign and the 52 bits
        above a magnitude.
    ki : ndarray, shape (256,), uint64
        Acceptance limits, ``ZIGGURAT[0]``.
    wi : ndarray, shape (256,), float64
        Layer widths / 2^52, ``ZIGGURAT[1]``.

    Returns
    -------
    Tuple[float, bool]
        ``(x, accepted)``: x is a standard normal variate if accepted (98.8% of draws); otherwise it must not
        be used, and ``ziggurat_slow`` gives the variate. A plain tuple, for numba callers.

    Examples
    --------
    The loop every Monte Carlo kernel runs, one generator state per chunk:

    >>> import numba
    >>> @numba.njit
    ... def normals(n, state, ki, wi, fi):
    ...     s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    ...     out = np.empty(n)
    ...     for i in range(n):
    ...         r, s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
    ...         x, ok = ziggurat_fast(r, ki, wi)
    ...         if not ok:
    ...             x, s0, s1, s2, s3 = ziggurat_slow(r, s0, s1, s2, s3, ki, wi, fi)
    ...         out[i] = x
    ...     return out
    >>> x = normals(100_000, seed_states(1, 1)[0], *ZIGGURAT)
    >>> abs(float(x.mean())) < 0.02, abs(float(x.std()) - 1.0) < 0.02
    (True, True)
    >>> ziggurat_fast(np.uint64(0), ZIGGURAT[0], ZIGGURAT[1])  # layer 0, magnitude 0: accepted
    (0.0, True)
    """
    idx = np.intp(r & _MASK8)
    r = r >> _U8
    rabs = (r >> _U1) & _MASK52
    return rabs * wi[idx] * (1.0 - 2.0 * np.float64(r & _U1)), rabs < ki[idx]


@nb.njit(cache=True)
def ziggurat_slow(r, s0, s1, s2, s3, ki, wi, fi) -> Tuple[float, np.uint64, np.uint64, np.uint64, np.uint64]:
    """The rare branches for a draw r that ``ziggurat_fast`` did not accept: (x, new state).

    Parameters
    ----------
    r : numpy.uint64
        The draw that ``ziggurat_fast`` rejected.
    s0, s1, s2, s3 : numpy.uint64
        The generator state after that draw (as ``next_u64`` returned it); the tail and wedge tests and any
        redraw advance it.
    ki, wi, fi : ndarray, shape (256,)
        The ziggurat tables ``ZIGGURAT`` (uint64 acceptance limits, float64 layer widths / 2^52, float64
        densities at the layer edges).

    Returns
    -------
    Tuple[float, numpy.uint64, numpy.uint64, numpy.uint64, numpy.uint64]
        ``(x, s0, s1, s2, s3)``: a standard normal variate and the new state. A plain tuple, for numba callers.

    Examples
    --------
    Layer 1 has no fast acceptance region: its draws always take this path (here a wedge test, one more draw).

    >>> ki, wi, fi = ZIGGURAT
    >>> r = np.uint64(41943041)  # layer r & 0xFF = 1
    >>> x_fast, ok = ziggurat_fast(r, ki, wi)
    >>> ok
    False
    >>> state = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
    >>> x, *new_state = ziggurat_slow(r, *state, ki, wi, fi)
    >>> x == x_fast, new_state == list(next_u64(*state)[1:])
    (True, True)
    """
    idx = np.intp(r & _MASK8)
    r = r >> _U8
    rabs = (r >> _U1) & _MASK52
    x = rabs * wi[idx] * (1.0 - 2.0 * np.float64(r & _U1))
    return _normal_slow(r, idx, rabs, x, s0, s1, s2, s3, ki, wi, fi)


def seed_states(seed, n_chunks=N_CHUNKS) -> np.ndarray:
    """``n_chunks`` independent xoshiro256++ states (shape (n_chunks, 4), uint64) drawn from ``seed``.

    Parameters
    ----------
    seed : None, int >= 0, numpy.random.SeedSequence or numpy.random.Generator
        As in ``rng_from``; a Generator is advanced, so the caller's stream continues.
    n_chunks : int
        Number of states, >= 0 (not checked); the Monte Carlo kernels use ``N_CHUNKS`` = 64, one per parallel
        chunk.

    Returns
    -------
    ndarray, shape (n_chunks, 4), uint64
        One generator state per row, for ``next_u64`` (kernels take the array as an argument and unpack a
        row into four local words); no row is all zero (the generator's only fixed point).

    Examples
    --------
    >>> seed_states(3, 2).shape
    (2, 4)
    >>> states = seed_states(3)
    >>> states.shape, states.dtype, bool(np.array_equal(states, seed_states(3)))
    ((64, 4), dtype('uint64'), True)
    """
    rng = rng_from(seed)
    states = rng.integers(0, np.iinfo(np.uint64).max, size=(n_chunks, 4), dtype=np.uint64, endpoint=True)
    states[~states.any(axis=1), 0] = 1  # the all-zero state is the generator's only fixed point
    return states


@nb.njit(cache=True, parallel=True)
def _fill_kernel(out, states, ki, wi, fi):
    n = out.size
    n_chunks = states.shape[0]
    per = (n + n_chunks - 1) // n_chunks
    for c in nb.prange(n_chunks):
        s0, s1, s2, s3 = states[c, 0], states[c, 1], states[c, 2], states[c, 3]
        for i in range(c * per, min(n, (c + 1) * per)):
            r, s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
            x, ok = ziggurat_fast(r, ki, wi)
            if not ok:
                x, s0, s1, s2, s3 = ziggurat_slow(r, s0, s1, s2, s3, ki, wi, fi)
            out[i] = x


def normal_fill(n, seed=None) -> np.ndarray:
    """``n`` standard normal variates from the compiled loops' generator (xoshiro256++ and the ziggurat).

    Parameters
    ----------
    n : int
        Number of variates, >= 0.
    seed : None, int or numpy.random.Generator
        Seeds the 64 chunk states; the result does not depend on the number of threads.

    Returns
    -------
    ndarray, shape (n,)

    Examples
    --------
    >>> x = normal_fill(100_000, seed=1)
    >>> abs(float(x.mean())) < 0.02, abs(float(x.std()) - 1.0) < 0.02
    (True, True)
    """
    from .validation import require_integer

    out = np.empty(require_integer("n", n, 0, 10**10))
    _fill_kernel(out, seed_states(seed), *ZIGGURAT)
    return out
