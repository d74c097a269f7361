"""Monte Carlo engine for the statistics of the AND-mask (spec/and_mask.md §5.2-§5.4, §4.3, §8).

* :func:`simulate_mask`, :func:`simulate_mask_hetero`: N independent coordinates, each a column of d Gaussian
  gradients N(μ_e, σ_e²); per coordinate the integer sign sum S = #positive − #negative (sign(0) = 0) and the mean
  ḡ. The kernel bins Σ1, Σḡ, Σḡ², Σḡ⁴ by S, which are sufficient for the τ-form mask at every τ (keep iff
  |S| >= T(d, τ)): :meth:`MaskSimulation.estimate` returns the keep probability and E[m ḡ], E[m ḡ²] with standard
  errors, and :meth:`MaskSimulation.conditional_second_moment` E[ḡ² | S].
* :func:`simulate_temporal_mask`: the sign EMA a_k = β a_{k−1} + (1 − β) sign(g_k) of Algorithm 1 over independent
  chains; mean, variance and keep frequency 1[|a_k| >= τ] per step, with standard errors.

numba kernels, parallel over 64 fixed chunks (one xoshiro256++ stream each, see :mod:`dynamics.numerics.random`): a seed gives
the same numbers with any number of threads.
"""
import numba as nb
import numpy as np

from dynamics.numerics import require_array_in_range, require_in_range, require_integer, require_same_length
from ._mask import _check_envs
from dynamics.numerics.random import ZIGGURAT, next_u64, seed_states, ziggurat_fast, ziggurat_slow
from ._results import MaskSimulation, TemporalMaskSimulation
from ._statistics import MAX_SNR

__all__ = ["simulate_mask", "simulate_mask_hetero", "simulate_temporal_mask"]

#: At most this many simulated gradient entries per call (about a minute of one core).
MAX_ENTRIES = 10**11
#: Largest |μ| and σ of the simulated gradients: the sums of ḡ⁴ must stay finite.
MAX_SCALE = 1e50


#: Below this many gradient entries a call runs on one thread: waking the thread pool for a parallel region costs
#: more than the work (and much more on a machine whose cores are busy).
SERIAL_BELOW = 4_000_000


@nb.njit(cache=True)
def _mask_chunk(local, start, stop, state, means, stds, ki, wi, fi):
    """Simulate coordinates start..stop-1 with one generator state; add Σ1, Σḡ, Σḡ², Σḡ⁴ by sign sum to local."""
    d = means.size
    inv_d = 1.0 / d
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for _ in range(start, stop):
        total = 0.0
        sign_sum = 0
        for e in range(d):
            r, s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
            x, ok = ziggurat_fast(r, ki, wi)
            if not ok:
                x, s0, s1, s2, s3 = ziggurat_slow(r, s0, s1, s2, s3, ki, wi, fi)
            g = means[e] + stds[e] * x
            total += g
            sign_sum += np.int64(g > 0.0) - np.int64(g < 0.0)
        mean = total * inv_d
        b = sign_sum + d
        sq = mean * mean
        local[0, b] += 1.0
        local[1, b] += mean
        local[2, b] += sq
        local[3, b] += sq * sq


@nb.njit(cache=True)
def _reduce_chunks(bins):
    out = np.zeros(bins.shape[1:])
    for c in range(bins.shape[0]):  # fixed order: the same sums with any number of threads
        out += bins[c]
    return out


@nb.njit(cache=True, parallel=True)
def _mask_parallel(means, stds, n_samples, states, ki, wi, fi):
    n_chunks = states.shape[0]
    bins = np.zeros((n_chunks, 4, 2 * means.size + 1))
    per = (n_samples + n_chunks - 1) // n_chunks
    for c in nb.prange(n_chunks):
        _mask_chunk(bins[c], c * per, min(n_samples, (c + 1) * per), states[c], means, stds, ki, wi, fi)
    return _reduce_chunks(bins)


@nb.njit(cache=True)
def _mask_serial(means, stds, n_samples, states, ki, wi, fi):
    n_chunks = states.shape[0]
    bins = np.zeros((n_chunks, 4, 2 * means.size + 1))
    per = (n_samples + n_chunks - 1) // n_chunks
    for c in range(n_chunks):
        _mask_chunk(bins[c], c * per, min(n_samples, (c + 1) * per), states[c], means, stds, ki, wi, fi)
    return _reduce_chunks(bins)


def _run_mask(means, stds, n_samples, seed):
    n = require_integer("n_samples", n_samples, 1)
    if n * means.size > MAX_ENTRIES:
        raise ValueError(f"n_samples * n_envs must be at most {MAX_ENTRIES:.0e} gradient entries, got "
                         f"{n * means.size:.3g}")
    kernel = _mask_serial if n * means.size < SERIAL_BELOW else _mask_parallel
    bins = kernel(means, stds, n, seed_states(seed), *ZIGGURAT)
    return MaskSimulation(int(means.size), n, bins[0].astype(np.int64), bins[1], bins[2], bins[3])


def simulate_mask(n_envs, n_samples, snr=0.0, gradient_std=1.0, *, seed=None) -> MaskSimulation:
    """Monte Carlo of the AND-mask on n_samples coordinates with i.i.d. N(μ, σ²) gradients in d environments.

    The reference for :func:`keep_probability` and :func:`masked_update_moments` (spec §8 tests 3, 5-7, 11-12):
    one run answers every τ through :meth:`MaskSimulation.estimate`.

    Parameters
    ----------
    n_envs : int
        Number of environments d >= 1.
    n_samples : int
        Number N >= 1 of independent coordinates (N·d gradient entries are drawn).
    snr : float, default 0
        s = μ/σ (0: Proposition 2's pure noise).
    gradient_std : float, default 1
        σ > 0.
    seed : None, int or numpy.random.Generator
        Source of randomness; the same seed gives the same result with any number of numba threads.

    Returns
    -------
    MaskSimulation
        Sums binned by the sign sum S; ``.estimate(agreement_threshold)`` gives a :class:`MaskEstimate` with standard errors.

    Examples
    --------
    >>> sim = simulate_mask(8, 200_000, seed=1)
    >>> est = sim.estimate(0.5)  # exact π0 = 37/128 = 0.2891
    >>> abs(est.keep_probability - 37 / 128) < 4 * est.keep_probability_se
    True
    """
    d = _check_envs(n_envs)
    s = require_in_range("snr", snr, -MAX_SNR, MAX_SNR)
    sigma = require_in_range("gradient_std", gradient_std, 0.0, MAX_SCALE / (1.0 + abs(s)), low_open=True,
                             why="the sums of mean gradient**4 must stay finite")
    return _run_mask(np.full(d, s * sigma), np.full(d, sigma), n_samples, seed)


def simulate_mask_hetero(gradient_means, gradient_stds, n_samples, *, seed=None) -> MaskSimulation:
    """Monte Carlo of the AND-mask with environment-dependent N(μ_e, σ_e²) gradients (spec §5.4, §8 test 23).

    Parameters
    ----------
    gradient_means : array_like, shape (n_envs,)
        μ_e, finite.
    gradient_stds : array_like, shape (n_envs,)
        σ_e > 0.
    n_samples : int
        Number N >= 1 of independent coordinates.
    seed : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    MaskSimulation

    Examples
    --------
    >>> sim = simulate_mask_hetero([0.5, -0.2, 1.0], [1.0, 2.0, 0.5], 100_000, seed=2)
    >>> sim.n_envs, int(sim.counts.sum())
    (3, 100000)
    """
    means = require_array_in_range("gradient_means", gradient_means, -MAX_SCALE, MAX_SCALE, ndim=1)
    stds = require_array_in_range("gradient_stds", gradient_stds, 0.0, MAX_SCALE, low_open=True, ndim=1)
    if require_same_length(gradient_means=means, gradient_stds=stds) < 1:
        raise ValueError("gradient_means must hold at least 1 environment, got an empty array")
    return _run_mask(means, stds, n_samples, seed)


@nb.njit(cache=True)
def _temporal_chunk(local, start, stop, state, mean, std, beta, agreement_threshold, ki, wi, fi):
    """Chains start..stop-1: add Σa, Σa², Σa³, Σa⁴ and Σ1[|a| >= τ] per step to local (shape (5, n_steps))."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    ema = np.zeros(max(stop - start, 0))
    for k in range(local.shape[1]):  # steps outside, chains inside: the step's sums stay in registers
        m1 = m2 = m3 = m4 = kept = 0.0
        for j in range(ema.size):
            r, s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
            x, ok = ziggurat_fast(r, ki, wi)
            if not ok:
                x, s0, s1, s2, s3 = ziggurat_slow(r, s0, s1, s2, s3, ki, wi, fi)
            g = mean + std * x
            a = beta * ema[j] + (1.0 - beta) * (np.float64(g > 0.0) - np.float64(g < 0.0))
            ema[j] = a
            a2 = a * a
            m1 += a
            m2 += a2
            m3 += a2 * a
            m4 += a2 * a2
            kept += np.float64(abs(a) >= agreement_threshold)
        local[0, k] += m1
        local[1, k] += m2
        local[2, k] += m3
        local[3, k] += m4
        local[4, k] += kept


@nb.njit(cache=True, parallel=True)
def _temporal_parallel(mean, std, beta, agreement_threshold, n_steps, n_chains, states, ki, wi, fi):
    n_chunks = states.shape[0]
    sums = np.zeros((n_chunks, 5, n_steps))
    per = (n_chains + n_chunks - 1) // n_chunks
    for c in nb.prange(n_chunks):
        _temporal_chunk(sums[c], c * per, min(n_chains, (c + 1) * per), states[c], mean, std, beta, agreement_threshold, ki, wi, fi)
    return _reduce_chunks(sums)


@nb.njit(cache=True)
def _temporal_serial(mean, std, beta, agreement_threshold, n_steps, n_chains, states, ki, wi, fi):
    n_chunks = states.shape[0]
    sums = np.zeros((n_chunks, 5, n_steps))
    per = (n_chains + n_chunks - 1) // n_chunks
    for c in range(n_chunks):
        _temporal_chunk(sums[c], c * per, min(n_chains, (c + 1) * per), states[c], mean, std, beta, agreement_threshold, ki, wi, fi)
    return _reduce_chunks(sums)


def simulate_temporal_mask(snr, sign_decay, agreement_threshold, n_steps, n_chains, *, seed=None) -> TemporalMaskSimulation:
    """Monte Carlo of the temporal AND-mask's sign EMA (Algorithm 1 of the paper, CoinRun; spec §4.3, §8 test 21).

    Each chain is one parameter coordinate receiving i.i.d. gradients g_k ~ N(μ, σ²), s = μ/σ; a_0 = 0,
    a_k = β a_{k−1} + (1 − β) sign(g_k), and the coordinate is updated at step k iff |a_k| >= τ.

    Parameters
    ----------
    snr : float
        s = μ/σ of the gradients.
    sign_decay : float
        β (β3 of Algorithm 1) in [0, 1).
    agreement_threshold : float
        Threshold τ in [0, 1] on |a_k|.
    n_steps : int
        Number of steps k >= 1 per chain.
    n_chains : int
        Number of independent chains >= 1 (n_steps·n_chains gradient entries are drawn).
    seed : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    TemporalMaskSimulation
        Per-step mean, variance and keep frequency of a_k with standard errors.

    Examples
    --------
    >>> sim = simulate_temporal_mask(0.0, 0.79, 0.36, 50, 20_000, seed=3)
    >>> round(float(np.sqrt(sim.ema_variance[-1])), 3)  # stationary std(a) = 0.342 (Table 3 row 1), ± MC error
    0.345
    """
    s = require_in_range("snr", snr, -MAX_SNR, MAX_SNR)
    beta = require_in_range("sign_decay", sign_decay, 0.0, 1.0, high_open=True)
    agreement_threshold = require_in_range("agreement_threshold", agreement_threshold, 0.0, 1.0)
    n_steps = require_integer("n_steps", n_steps, 1)
    n_chains = require_integer("n_chains", n_chains, 1)
    if n_steps * n_chains > MAX_ENTRIES:
        raise ValueError(f"n_steps * n_chains must be at most {MAX_ENTRIES:.0e} gradient entries, got "
                         f"{n_steps * n_chains:.3g}")
    kernel = _temporal_serial if n_steps * n_chains < SERIAL_BELOW else _temporal_parallel
    sums = kernel(s, 1.0, beta, agreement_threshold, n_steps, n_chains, seed_states(seed), *ZIGGURAT) / n_chains
    m1, m2, m3, m4, keep = sums
    variance = np.maximum(m2 - m1 * m1, 0.0)
    central4 = m4 - 4.0 * m3 * m1 + 6.0 * m2 * m1 * m1 - 3.0 * m1 ** 4
    return TemporalMaskSimulation(np.arange(1, n_steps + 1), m1, np.sqrt(variance / n_chains), variance,
                                  np.sqrt(np.maximum(central4 - variance * variance, 0.0) / n_chains), keep,
                                  np.sqrt(np.maximum(keep * (1.0 - keep), 0.0) / n_chains), n_chains)
