"""Monte Carlo engine for the statistics of the AND-mask (the independent reference for the exact sign statistics
of Proposition 2 of Parascandolo et al. 2021 and their extensions, and for the sign EMA of its Algorithm 1).

* ``simulate_mask``, ``simulate_mask_hetero``: N independent coordinates, each a column of d Gaussian
  gradients N(μ_e, σ_e²); per coordinate the integer sign sum S = #positive − #negative (sign(0) = 0) and the mean
  ḡ. The kernel bins Σ1, Σḡ, Σḡ², Σḡ⁴ by S, which are sufficient for the τ-form mask at every τ (keep iff
  abs(S) >= T(d, τ)): ``estimate_from_simulation`` returns the keep probability and E[m ḡ], E[m ḡ²] with standard
  errors, and ``MaskSimulation.conditional_second_moment`` E[ḡ² | S].
* ``simulate_temporal_mask``: the sign EMA a_k = β a_{k−1} + (1 − β) sign(g_k) of Algorithm 1 over independent
  chains; mean, variance and keep frequency 1[abs(a_k) >= τ] per step, with standard errors.

The numba kernels (in ``_kernels``) run over 64 fixed chunks (one xoshiro256++ stream each, see
``dynamics.numerics.random``): a seed gives the same numbers with any number of threads.
"""
import math
from typing import Optional, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (format_value, require_array_in_range, require_in_range, require_integer,
                               require_same_length)
from dynamics.numerics.random import ZIGGURAT, seed_states
from ._checks import MAX_SNR, require_agreement_threshold, require_n_envs
from ._kernels import mask_parallel, mask_serial, temporal_parallel, temporal_serial
from ._mask import integer_threshold
from ._results import MaskEstimate, MaskSimulation, TemporalMaskSimulation
from ._docs import fill_doc

__all__ = ["estimate_from_simulation", "simulate_mask", "simulate_mask_hetero", "simulate_temporal_mask"]

#: At most this many simulated gradient entries per call (about a minute of one core).
MAX_ENTRIES = 10**11
#: Largest abs(μ) and σ of the simulated gradients: the sums of ḡ⁴ must stay finite.
MAX_SCALE = 1e50


#: Below this many gradient entries a call runs on one thread: waking the thread pool for a parallel region costs
#: more than the work (and much more on a machine whose cores are busy).
SERIAL_BELOW = 4_000_000


def _run_mask(means, stds, n_samples, seed):
    n = require_integer("n_samples", n_samples, 1)
    if n * means.size > MAX_ENTRIES:
        raise ValueError(f"n_samples * n_envs must be at most {MAX_ENTRIES:.0e} gradient entries, got "
                         f"{format_value(n * means.size)}")
    kernel = mask_serial if n * means.size < SERIAL_BELOW else mask_parallel
    bins = kernel(means, stds, n, seed_states(seed), *ZIGGURAT)
    return MaskSimulation(int(means.size), n, bins[0].astype(np.int64), bins[1], bins[2], bins[3])


@fill_doc
def simulate_mask(n_envs: int, n_samples: int, snr: float = 0.0, gradient_std: float = 1.0, *,
                  seed: Optional[Union[int, np.random.Generator]] = None) -> MaskSimulation:
    r"""Monte Carlo of the AND-mask on n_samples coordinates with i.i.d. :math:`N(\mu, \sigma^2)` gradients in
    :math:`d` environments.

    The reference for :func:`dynamics.and_mask.keep_probability` and
    :func:`dynamics.and_mask.masked_update_moments` in the package's claims: one run answers every :math:`\tau` through
    :func:`dynamics.and_mask.estimate_from_simulation`.

    Parameters
    ----------
    %(n_envs)s
    n_samples : int
        Number :math:`N \ge 1` of independent coordinates (:math:`N \cdot d` gradient entries are drawn).
    snr : float, default 0
        :math:`s = \mu/\sigma` (0: Proposition 2's pure noise).
    %(gradient_std)s
    seed : None, int or numpy.random.Generator
        Source of randomness; the same seed gives the same result with any number of numba threads.

    Returns
    -------
    MaskSimulation
        Sums binned by the sign sum :math:`S`; ``estimate_from_simulation(simulation, agreement_threshold)`` gives a
        :class:`dynamics.and_mask.MaskEstimate` with standard errors.

    Examples
    --------
    >>> sim = simulate_mask(8, 200_000, seed=1)
    >>> est = estimate_from_simulation(sim, 0.5)  # exact π0 = 37/128 = 0.2891
    >>> abs(est.keep_probability - 37 / 128) < 4 * est.keep_probability_se
    True
    """
    d = require_n_envs(n_envs)
    s = require_in_range("snr", snr, -MAX_SNR, MAX_SNR)
    sigma = require_in_range("gradient_std", gradient_std, 0.0, MAX_SCALE / (1.0 + abs(s)), low_open=True,
                             why="the sums of mean gradient**4 must stay finite")
    return _run_mask(np.full(d, s * sigma), np.full(d, sigma), n_samples, seed)


@fill_doc
def simulate_mask_hetero(gradient_means: ArrayLike, gradient_stds: ArrayLike, n_samples: int, *,
                         seed: Optional[Union[int, np.random.Generator]] = None) -> MaskSimulation:
    r"""Monte Carlo of the AND-mask with environment-dependent :math:`N(\mu_e, \sigma_e^2)` gradients (the reference for
    :func:`dynamics.and_mask.keep_probability_hetero` and :func:`dynamics.and_mask.masked_update_moments_hetero`).

    Parameters
    ----------
    %(gradient_means)s
    gradient_stds : array_like, shape (n_envs,)
        :math:`\sigma_e > 0`.
    n_samples : int
        Number :math:`N \ge 1` of independent coordinates.
    %(seed)s

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


@fill_doc
def estimate_from_simulation(simulation: MaskSimulation, agreement_threshold: float) -> MaskEstimate:
    r"""The statistics of the :math:`\tau`-form mask (keep :math:`\lvert S \rvert \ge \lceil \tau d - 10^{-9} \rceil`)
    from one Monte Carlo run, with standard errors: the keep probability, :math:`\mathbb{E}[m \bar g]` and
    :math:`\mathbb{E}[m \bar g^2]` per coordinate.

    Every :math:`\tau`-form statistic depends on :math:`\tau` only through the keep set
    :math:`\{k : \lvert 2k - d \rvert \ge T(d, \tau)\}`, so one run of
    :func:`dynamics.and_mask.simulate_mask` or :func:`dynamics.and_mask.simulate_mask_hetero` answers every
    threshold.

    Parameters
    ----------
    simulation : MaskSimulation
        From :func:`dynamics.and_mask.simulate_mask` or :func:`dynamics.and_mask.simulate_mask_hetero`.
    %(agreement_threshold)s

    Returns
    -------
    MaskEstimate
        Keep probability (standard error :math:`\sqrt{\hat p(1 - \hat p)/N}`), mean of :math:`m \cdot \bar g` and of
        :math:`m \cdot \bar g^2` with their sample standard errors, and :math:`N`.

    Examples
    --------
    >>> sim = simulate_mask(4, 50_000, seed=0)
    >>> [round(estimate_from_simulation(sim, tau).keep_probability, 2) for tau in (0.0, 0.5, 1.0)]  # 1, 5/8, 1/8
    [1.0, 0.62, 0.13]
    """
    if not isinstance(simulation, MaskSimulation):
        raise TypeError(f"simulation must be a MaskSimulation (simulate_mask), got {type(simulation).__name__}")
    threshold = integer_threshold(simulation.n_envs, require_agreement_threshold(agreement_threshold))
    keep = np.abs(simulation.sign_sums) >= threshold
    n = float(simulation.n_samples)
    p = float(simulation.counts[keep].sum()) / n
    first = float(simulation.sums[keep].sum()) / n
    second = float(simulation.sums_sq[keep].sum()) / n
    fourth = float(simulation.sums_fourth[keep].sum()) / n
    return MaskEstimate(p, math.sqrt(max(p * (1.0 - p), 0.0) / n), first,
                        math.sqrt(max(second - first * first, 0.0) / n), second,
                        math.sqrt(max(fourth - second * second, 0.0) / n), int(simulation.n_samples))


@fill_doc
def simulate_temporal_mask(snr: float, sign_decay: float, agreement_threshold: float, n_steps: int, n_chains: int, *,
                           seed: Optional[Union[int, np.random.Generator]] = None) -> TemporalMaskSimulation:
    r"""Monte Carlo of the temporal AND-mask's sign EMA (Parascandolo et al. 2021, Algorithm 1, CoinRun).

    Each chain is one parameter coordinate receiving i.i.d. gradients :math:`g_k \sim N(\mu, \sigma^2)`,
    :math:`s = \mu/\sigma`; :math:`a_0 = 0`, :math:`a_k = \beta a_{k-1} + (1 - \beta) \operatorname{sign}(g_k)`, and the
    coordinate is updated at step :math:`k` iff :math:`\lvert a_k \rvert \ge \tau`.

    Parameters
    ----------
    snr : float
        :math:`s = \mu/\sigma` of the gradients.
    sign_decay : float
        :math:`\beta` (:math:`\beta_3` of Algorithm 1) in :math:`[0, 1)`.
    agreement_threshold : float
        Threshold :math:`\tau \in [0, 1]` on :math:`\lvert a_k \rvert`.
    n_steps : int
        Number of steps :math:`k \ge 1` per chain.
    n_chains : int
        Number of independent chains >= 1 (n_steps·n_chains gradient entries are drawn).
    %(seed)s

    Returns
    -------
    TemporalMaskSimulation
        Per-step mean, variance and keep frequency of :math:`a_k` with standard errors.

    Examples
    --------
    >>> sim = simulate_temporal_mask(0.0, 0.79, 0.36, 50, 20_000, seed=3)
    >>> round(float(np.sqrt(sim.ema_variance[-1])), 3)  # stationary std(a) = 0.342 (Table 3 row 1), ± MC error
    0.345
    """
    s = require_in_range("snr", snr, -MAX_SNR, MAX_SNR)
    beta = require_in_range("sign_decay", sign_decay, 0.0, 1.0, high_open=True)
    agreement_threshold = require_agreement_threshold(agreement_threshold)
    n_steps = require_integer("n_steps", n_steps, 1)
    n_chains = require_integer("n_chains", n_chains, 1)
    if n_steps * n_chains > MAX_ENTRIES:
        raise ValueError(f"n_steps * n_chains must be at most {MAX_ENTRIES:.0e} gradient entries, got "
                         f"{format_value(n_steps * n_chains)}")
    kernel = temporal_serial if n_steps * n_chains < SERIAL_BELOW else temporal_parallel
    sums = kernel(s, 1.0, beta, agreement_threshold, n_steps, n_chains, seed_states(seed), *ZIGGURAT) / n_chains
    m1, m2, m3, m4, keep = sums
    variance = np.maximum(m2 - m1 * m1, 0.0)
    central4 = m4 - 4.0 * m3 * m1 + 6.0 * m2 * m1 * m1 - 3.0 * m1 ** 4
    return TemporalMaskSimulation(np.arange(1, n_steps + 1), m1, np.sqrt(variance / n_chains), variance,
                                  np.sqrt(np.maximum(central4 - variance * variance, 0.0) / n_chains), keep,
                                  np.sqrt(np.maximum(keep * (1.0 - keep), 0.0) / n_chains), n_chains)
