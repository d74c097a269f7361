"""Exact sign statistics of the AND-mask (Parascandolo et al. 2021, Proposition 2 and Eq 6; the extensions to
signal coordinates, heterogeneous environments and the exact second moment are derived in this project, see the
theory note, docs/theory/and_mask.md).

* Keep probability π(d, τ, s) = Σ_{k∈K_τ(d)} Bin(k; d, Φ(s)) (Eq 6 for s = 0; derived in this project for signal),
  summed in log space from log Φ(±s), so that relative accuracy holds down to 1e-300; the pure-noise value as an
  exact rational; its logarithm (finite where the value underflows).
* Exact moments of the masked update E[m_τ ḡ] (a closed form over Bin(d−1)) and E[m_τ ḡ²] (the sum of conditional
  moments; the pure-noise sum at s = 0), from truncated-normal pieces with Mills ratios taken in log space.
* Heterogeneous environments: the Poisson-binomial count of positive signs by dynamic programming on four arrays
  (probability, first and second conditional sums, conditional variance).
* Proposition 2 corrected: the bounds with the factor d − t + 1, the conditional bound, the Chernoff–Hoeffding bound
  and the type-class lower bound; the decay rate c(τ) = (1+τ)^{(1+τ)/2}(1−τ)^{(1−τ)/2}.
* Large-d threshold SNR s*(τ) = Φ⁻¹((1 + τ)/2) = √2 erfinv(τ).
* The temporal (EMA) sign statistic of Algorithm 1: mean (2p − 1)(1 − β^k), variance
  4p(1 − p)(1 − β)(1 − β^{2k})/(1 + β).
"""
import math
from fractions import Fraction
from typing import Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (require_finite_product, require_finite_result, require_in_range, require_integer,
                               require_positive, scalar_or_array)
from ._checks import (MAX_EXACT_N_ENVS, MAX_SNR, require_agreement_threshold, require_gradient_laws, require_majority_agreement,
                      require_n_envs, require_snr)
from ._kernels import log_keep, log_keep_many, masked_moments_kernel, poisson_binomial_kernel, truncated_normal_pieces
from ._mask import integer_threshold
from ._results import ConditionalMoments, EmaMoments, MaskedMoments, NoiseNormBounds, ProbabilityBounds, SquaredNorms

__all__ = ["conditional_moments", "decay_rate", "expected_squared_norms", "keep_probability",
           "keep_probability_bounds", "keep_probability_hetero", "keep_probability_rational",
           "log_keep_probability", "masked_update_moments", "masked_update_moments_hetero", "noise_masked_norm_bounds",
           "sign_ema_moments", "threshold_snr"]


def _xlogx(x):
    """x log x with 0 log 0 = 0."""
    return 0.0 if x == 0.0 else x * math.log(x)


# ------------------------------------------------------------------------------------------------ keep probability
def log_keep_probability(n_envs: int, agreement_threshold: float, snr: ArrayLike = 0.0) -> Union[float, np.ndarray]:
    """log π(d, τ, s): the logarithm of :func:`dynamics.and_mask.keep_probability`, finite where π underflows.

    Parameters
    ----------
    n_envs : int
        Number of environments d >= 1.
    agreement_threshold : float
        Agreement threshold τ in [0, 1].
    snr : float or array_like, default 0
        Per-environment signal-to-noise ratio s = μ/σ of the coordinate, abs(s) <= 1e6.

    Returns
    -------
    float or ndarray
        log π, of the shape of ``snr``.

    Examples
    --------
    >>> round(log_keep_probability(2000, 1.0) / math.log(2.0), 9)  # π0 = 2^(1 - d)
    -1999.0
    """
    d, agreement_threshold = require_n_envs(n_envs), require_agreement_threshold(agreement_threshold)
    s = require_snr(snr)
    values = log_keep_many(d, integer_threshold(d, agreement_threshold), s.reshape(-1))
    return scalar_or_array(values.reshape(s.shape), snr)


def keep_probability(n_envs: int, agreement_threshold: float, snr: ArrayLike = 0.0) -> Union[float, np.ndarray]:
    r"""Probability π(d, τ, s) that a coordinate passes the AND-mask (Parascandolo et al. 2021, Eq 6 for pure noise;
    the signal case is derived in this project).

    The d per-environment gradients of the coordinate are i.i.d. N(μ, σ²) with s = μ/σ, so that the number k of
    positive ones is binomial with p = Φ(s), and the coordinate passes when k lies in the keep set K_τ(d) (see the
    AND-mask theory note):

    .. math:: \pi(d, \tau, s) = \sum_{k \in K_\tau(d)} \binom{d}{k}\, \Phi(s)^k\, \Phi(-s)^{d-k}.

    At s = 0 this is the pure-noise value π₀(d, τ) of Proposition 2 (any sign-symmetric law).
    Summed in log space from log Φ(±s): relative accuracy about 1e-11 for d <= 2000 down to values of 1e-300.
    It is also the expected mask density.

    Parameters
    ----------
    n_envs : int
        Number of environments d >= 1.
    agreement_threshold : float
        Agreement threshold τ in [0, 1].
    snr : float or array_like, default 0
        Per-environment signal-to-noise ratio s = μ/σ, abs(s) <= 1e6.

    Returns
    -------
    float or ndarray
        π in [0, 1], of the shape of ``snr``: even in s, non-decreasing in abs(s), 1 at τ = 0, Φ(s)^d + Φ(−s)^d at τ = 1.

    Examples
    --------
    >>> abs(keep_probability(8, 0.5) / (37 / 128) - 1.0) < 1e-14
    True
    >>> round(keep_probability(4, 0.2, snr=1.0), 4)
    0.8931
    """
    log_value = log_keep_probability(n_envs, agreement_threshold, snr)
    return math.exp(log_value) if isinstance(log_value, float) else np.exp(log_value)


def keep_probability_rational(n_envs: int, agreement_threshold: float) -> Fraction:
    """The pure-noise keep probability π₀(d, τ) = 2^{−d} Σ_{k∈K_τ(d)} C(d, k) as an exact fraction
    (Parascandolo et al. 2021, Eq 6).

    Parameters
    ----------
    n_envs : int
        Number of environments d >= 1.
    agreement_threshold : float
        Agreement threshold τ in [0, 1].

    Returns
    -------
    fractions.Fraction

    Examples
    --------
    >>> keep_probability_rational(8, 0.5), keep_probability_rational(4, 0.6)
    (Fraction(37, 128), Fraction(1, 8))
    """
    d = require_n_envs(n_envs, MAX_EXACT_N_ENVS)  # exact binomials of d bits: the float forms go further
    agreement_threshold = require_agreement_threshold(agreement_threshold)
    threshold = integer_threshold(d, agreement_threshold)
    return Fraction(sum(math.comb(d, k) for k in range(d + 1) if abs(2 * k - d) >= threshold), 2 ** d)


# ------------------------------------------------------------------------------------------------ moments
def masked_update_moments(n_envs: int, agreement_threshold: float, snr: float,
                          gradient_std: float = 1.0) -> MaskedMoments:
    """Exact moments (E[m_τ ḡ], E[m_τ ḡ²]) of one masked coordinate with i.i.d. N(μ, σ²) gradients (derived in this
    project; see the theory note, docs/theory/and_mask.md).

    First moment: (μp + σφ)·Pr[1 + B' ∈ K_τ] + (μ(1−p) − σφ)·Pr[B' ∈ K_τ], B' ~ Bin(d − 1, p), p = Φ(s),
    φ = φ(s). Second: Σ_{k∈K_τ} Bin(k; d, p)·E[ḡ² | P = k] from truncated-normal pieces (at s = 0 the pure-noise
    sum of the terms (σ²/d²)[d(1 − 2/π) + (2/π)(2k − d)²]).

    Parameters
    ----------
    n_envs : int
        Number of environments d >= 1.
    agreement_threshold : float
        Agreement threshold τ in [0, 1].
    snr : float
        s = μ/σ, abs(s) <= 1e6.
    gradient_std : float, default 1
        σ > 0, the standard deviation of one environment's gradient coordinate.

    Returns
    -------
    MaskedMoments
        ``first_moment`` E[m ḡ] (odd in s, exactly 0 at s = 0, ∝ σ) and ``second_moment`` E[m ḡ²] (even in s,
        ∝ σ²). τ = 0 gives (μ, μ² + σ²/d).

    Examples
    --------
    >>> first, second = masked_update_moments(4, 0.2, 1.0)
    >>> round(first, 4), round(second, 4)  # E[m ḡ]/μ and E[m ḡ²] at s = 1 (σ = 1)
    (0.9592, 1.2234)
    >>> masked_update_moments(4, 0.6, 0.0).first_moment
    0.0
    """
    d, agreement_threshold = require_n_envs(n_envs), require_agreement_threshold(agreement_threshold)
    s = require_in_range("snr", snr, -MAX_SNR, MAX_SNR)
    sigma = require_positive("gradient_std", gradient_std)
    first, second = masked_moments_kernel(d, integer_threshold(d, agreement_threshold), abs(s))
    first = 0.0 if s == 0.0 else math.copysign(first, s)
    result = MaskedMoments(first * sigma, second * sigma * sigma)
    require_finite_result(np.array(result), "masked_update_moments", "gradient_std is too large for σ² in float64")
    return result


def conditional_moments(n_envs: int, n_positive: int, snr: float = 0.0,
                        gradient_std: float = 1.0) -> ConditionalMoments:
    """E[ḡ | P = k] and E[ḡ² | P = k] given k positive signs among d i.i.d. N(μ, σ²) gradients (derived in this
    project; the pure-noise bound E[ḡ² | P = k] <= E[ḡ² | P = d] is used in the proof of Proposition 2 of
    Parascandolo et al. 2021).

    Given the sign vector the entries are independent truncated normals, so E[ḡ | P = k] = (k m₊ + (d − k) m₋)/d
    and E[ḡ² | P = k] = [k v₊ + (d − k) v₋ + (k m₊ + (d − k) m₋)²]/d². At s = 0:
    (σ²/d²)[d(1 − 2/π) + (2/π)(2k − d)²], increasing in abs(2k − d) and at most σ²(2/π + (1 − 2/π)/d).

    Parameters
    ----------
    n_envs : int
        Number of environments d >= 1.
    n_positive : int
        Number k of positive gradients, 0 <= k <= d.
    snr : float, default 0
        s = μ/σ, abs(s) <= 1e6.
    gradient_std : float, default 1
        σ > 0.

    Returns
    -------
    ConditionalMoments
        ``mean`` and ``second_moment``.

    Examples
    --------
    >>> round(conditional_moments(4, 4).second_moment, 6)  # 2/π + (1 − 2/π)/4
    0.727465
    """
    d = require_n_envs(n_envs)
    k = require_integer("n_positive", n_positive, 0, d)
    s = require_in_range("snr", snr, -MAX_SNR, MAX_SNR)
    sigma = require_positive("gradient_std", gradient_std)
    # the pieces of -s are those of s with the two sides swapped and negated means
    _, _, m_plus, m_minus, v_plus, v_minus = truncated_normal_pieces(abs(s))
    if s < 0:
        m_plus, m_minus, v_plus, v_minus = -m_minus, -m_plus, v_minus, v_plus
    mean_sum = k * m_plus + (d - k) * m_minus
    result = ConditionalMoments(sigma * mean_sum / d,
                                sigma * sigma * (k * v_plus + (d - k) * v_minus + mean_sum * mean_sum) / (d * d))
    require_finite_result(np.array(result), "conditional_moments", "gradient_std is too large for σ² in float64")
    return result


def expected_squared_norms(n_envs: int, agreement_threshold: float, n_params: int = 1, snr: float = 0.0,
                           gradient_std: float = 1.0) -> SquaredNorms:
    """E‖m_τ ⊙ ḡ‖² and E‖ḡ‖² over n i.i.d. coordinates (Parascandolo et al. 2021, Proposition 2 and Fig 4).

    Parameters
    ----------
    n_envs : int
        Number of environments d >= 1.
    agreement_threshold : float
        Agreement threshold τ in [0, 1].
    n_params : int, default 1
        Number of coordinates n >= 1.
    snr : float, default 0
        s = μ/σ of every coordinate (0: Proposition 2's pure noise).
    gradient_std : float, default 1
        σ > 0.

    Returns
    -------
    SquaredNorms
        ``masked`` = n·E[m ḡ²] and ``unmasked`` = n(μ² + σ²/d).

    Examples
    --------
    >>> norms = expected_squared_norms(8, 0.6, n_params=3000)  # the Fig 4 setting: t = 7 of 8 signs agree
    >>> round(norms.masked, 2), norms.unmasked
    (91.65, 375.0)
    """
    n = require_integer("n_params", n_params, 1)
    moments = masked_update_moments(n_envs, agreement_threshold, snr, gradient_std)
    mu = float(snr) * float(gradient_std)
    result = SquaredNorms(n * moments.second_moment, n * (mu * mu + float(gradient_std) ** 2 / int(n_envs)))
    require_finite_result(np.array(result), "expected_squared_norms", "n_params·σ²·(1 + s²) overflows float64")
    return result


# ------------------------------------------------------------------------------------------------ heterogeneous
def _hetero_args(gradient_means, gradient_stds, agreement_threshold):
    means, stds = require_gradient_laws(gradient_means, gradient_stds)
    return means, stds, integer_threshold(means.size, require_agreement_threshold(agreement_threshold))


def keep_probability_hetero(gradient_means: ArrayLike, gradient_stds: ArrayLike, agreement_threshold: float) -> float:
    """Keep probability with environment-dependent N(μ_e, σ_e²) gradients: a Poisson-binomial sum (derived in this
    project).

    The number of positive signs is Poisson-binomial with p_e = Φ(μ_e/σ_e); its pmf comes from the O(d²)
    dynamic programme w'[k+1] += p_e w[k], w'[k] += (1 − p_e) w[k] (linear space: accuracy is absolute,
    about 1e-16 per environment).

    Parameters
    ----------
    gradient_means : array_like, shape (n_envs,)
        μ_e, finite.
    gradient_stds : array_like, shape (n_envs,)
        σ_e > 0 (abs(μ_e)/σ_e <= 1e6).
    agreement_threshold : float
        Agreement threshold τ in [0, 1].

    Returns
    -------
    float

    Examples
    --------
    >>> keep_probability_hetero([0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 3.0, 4.0], 0.6)  # pure noise: 1/8 for any σ_e
    0.125
    """
    probability = float(poisson_binomial_kernel(*_hetero_args(gradient_means, gradient_stds, agreement_threshold))[0])
    return min(max(probability, 0.0), 1.0)  # a sum of probabilities can round to 1 + 2e-16


def masked_update_moments_hetero(gradient_means: ArrayLike, gradient_stds: ArrayLike,
                                 agreement_threshold: float) -> MaskedMoments:
    """Exact (E[m_τ ḡ], E[m_τ ḡ²]) with environment-dependent N(μ_e, σ_e²) gradients (derived in this project).

    The dynamic programme of :func:`dynamics.and_mask.keep_probability_hetero` carried on four arrays indexed by the number of
    positive signs k: probability W, first and second conditional sums M1 = E[1{P=k} Σm], M2 = E[1{P=k} (Σm)²] and
    V = E[1{P=k} Σv] (truncated-normal means m and variances v of each environment's sign); then
    E[m ḡ] = Σ_{K_τ} M1/d and E[m ḡ²] = Σ_{K_τ} (V + M2)/d².

    Parameters
    ----------
    gradient_means : array_like, shape (n_envs,)
        μ_e, finite.
    gradient_stds : array_like, shape (n_envs,)
        σ_e > 0.
    agreement_threshold : float
        Agreement threshold τ in [0, 1].

    Returns
    -------
    MaskedMoments

    Examples
    --------
    >>> m = masked_update_moments_hetero([1.0] * 4, [1.0] * 4, 0.2)  # identical: the i.i.d. closed form
    >>> round(m.first_moment, 4), round(m.second_moment, 4)
    (0.9592, 1.2234)
    """
    _, first, second = poisson_binomial_kernel(*_hetero_args(gradient_means, gradient_stds, agreement_threshold))
    require_finite_result(np.array([first, second]), "masked_update_moments_hetero",
                          "gradient_means or gradient_stds are too large for their squares in float64")
    return MaskedMoments(float(first), float(second))


# ------------------------------------------------------------------------------------------------ rates and bounds
def decay_rate(agreement_threshold: float) -> float:
    """c(τ) = (1+τ)^{(1+τ)/2}(1−τ)^{(1−τ)/2} = exp KL(Bern((1+τ)/2) ‖ Bern(½)): the rate of Proposition 2 of
    Parascandolo et al. 2021, corrected in this project.

    The pure-noise keep probability and masked norm decay like c(τ)^{−d} (the paper's printed rate
    O(n/(2 − q)^d) is an erratum).

    Parameters
    ----------
    agreement_threshold : float
        Agreement threshold τ in [0, 1].

    Returns
    -------
    float
        c in [1, 2]: c(0) = 1, c(1) = 2 (0⁰ = 1).

    Examples
    --------
    >>> round(decay_rate(0.6), 5), decay_rate(1.0)
    (1.21257, 2.0)
    """
    agreement_threshold = require_agreement_threshold(agreement_threshold)
    return float(math.exp(0.5 * (_xlogx(1.0 + agreement_threshold) + _xlogx(1.0 - agreement_threshold))))


def threshold_snr(agreement_threshold: float) -> float:
    """The large-d threshold SNR s*(τ) = Φ⁻¹((1 + τ)/2) = √2·erfinv(τ) (derived in this project).

    As d → ∞ a signal coordinate with SNR s is kept with probability → 1 if s > s*(τ) (2Φ(s) − 1 > τ) and → 0 if
    s < s*(τ).

    Parameters
    ----------
    agreement_threshold : float
        Agreement threshold τ in [0, 1].

    Returns
    -------
    float
        s* >= 0; τ = 1 returns ``math.inf`` (every finite-SNR coordinate is eventually masked).

    Examples
    --------
    >>> round(threshold_snr(0.2), 4), threshold_snr(0.0), threshold_snr(1.0)
    (0.2533, 0.0, inf)
    """
    agreement_threshold = require_agreement_threshold(agreement_threshold)
    if agreement_threshold == 1.0:
        return math.inf
    from scipy import special  # deferred: keeps importing the package fast

    return float(math.sqrt(2.0) * special.erfinv(agreement_threshold))


def _t_form_args(n_envs, n_agree):
    d, t = require_majority_agreement(n_envs, n_agree)
    r = t / d
    return d, t, math.log(2.0) + _xlogx(r) + _xlogx(1.0 - r)


def keep_probability_bounds(n_envs: int, n_agree: int) -> ProbabilityBounds:
    """Type-class and Chernoff–Hoeffding bounds on π₀(d, t) (Parascandolo et al. 2021, Proposition 2, corrected in
    this project).

    2e^{−d·KL(t/d‖½)}/(d + 1) <= π₀(d, t) <= 2e^{−d·KL(t/d‖½)}, with π₀(d, t) = Pr[max(P, N) >= t] for pure noise.

    Parameters
    ----------
    n_envs : int
        Number of environments d >= 1.
    n_agree : int
        The t-form threshold, d/2 < t <= d.

    Returns
    -------
    ProbabilityBounds
        ``lower`` and ``upper``.

    Examples
    --------
    >>> b = keep_probability_bounds(8, 7)  # π0(8, 7) = 9/128 = 0.0703
    >>> round(b.lower, 4), round(b.upper, 4)
    (0.0177, 0.1592)
    """
    d, _, kl = _t_form_args(n_envs, n_agree)
    upper = 2.0 * math.exp(-d * kl)
    return ProbabilityBounds(upper / (d + 1), upper)


def noise_masked_norm_bounds(n_envs: int, n_agree: int, n_params: int = 1,
                             gradient_std: float = 1.0) -> NoiseNormBounds:
    """The bounds of Proposition 2 of Parascandolo et al. 2021 on E‖m_t ⊙ ḡ‖² for pure-noise gradients, as
    corrected in this project.

    * ``paper_chain``: nσ²(d − t + 1)·C(d, t)·2^{1−d} (the paper's chain with the factor d − t + 1; printed d − t),
    * ``conditional``: nσ²(2/π + (1 − 2/π)/d)·π₀(d, t) (equality at t = d),
    * ``chernoff``: 2nσ²(2/π + (1 − 2/π)/d)·e^{−d·KL(t/d‖½)},
    * ``exponential``: 2nσ²·e^{−d·KL(t/d‖½)} <= 2nσ²·c(τ)^{−d} = O(n/c^d).

    Parameters
    ----------
    n_envs : int
        Number of environments d >= 1.
    n_agree : int
        The t-form threshold, d/2 < t <= d.
    n_params : int, default 1
        Number of coordinates n >= 1.
    gradient_std : float, default 1
        σ > 0 of each environment's gradient entries.

    Returns
    -------
    NoiseNormBounds

    Examples
    --------
    >>> b = noise_masked_norm_bounds(2, 2, n_params=3000)  # the exact value is 1227.5 (Fig 4 setting)
    >>> round(b.paper_chain, 1), round(b.conditional, 1)
    (1500.0, 1227.5)
    """
    d, t, kl = _t_form_args(n_envs, n_agree)
    n = require_integer("n_params", n_params, 1)
    sigma = require_positive("gradient_std", gradient_std)
    log_choose = math.lgamma(d + 1.0) - math.lgamma(t + 1.0) - math.lgamma(d - t + 1.0)
    factor = 2.0 / math.pi + (1.0 - 2.0 / math.pi) / d
    pi0 = math.exp(log_keep(d, 2 * t - d, 0.0))
    tail = 2.0 * math.exp(-d * kl)
    # n·σ² times each factor (all <= 2(d + 1)), mantissas and exponents apart: σ² alone may leave float64
    factors = ((d - t + 1) * math.exp(log_choose + (1 - d) * math.log(2.0)), factor * pi0, factor * tail, tail)
    return NoiseNormBounds(*(require_finite_product([float(n), sigma, sigma, f], what="noise_masked_norm_bounds",
                                                    hint="n_params·gradient_std² overflows float64") for f in factors))


# ------------------------------------------------------------------------------------------------ temporal mask
def sign_ema_moments(snr: float, sign_decay: float, steps: ArrayLike) -> EmaMoments:
    """Mean and variance of the sign EMA a_k of the temporal AND-mask (Parascandolo et al. 2021, Algorithm 1; the
    moments are derived in this project).

    a_k = β a_{k−1} + (1 − β) sign(g_k), a_0 = 0, with i.i.d. g_k ~ N(μ, σ²), P(+) = p = Φ(s):
    E[a_k] = (2p − 1)(1 − β^k) and Var(a_k) = 4p(1 − p)(1 − β)(1 − β^{2k})/(1 + β).

    Parameters
    ----------
    snr : float
        s = μ/σ, abs(s) <= 1e6.
    sign_decay : float
        β (β3 of Algorithm 1) in [0, 1).
    steps : int or array_like of int
        Step counts k >= 0; ``np.inf`` gives the stationary values.

    Returns
    -------
    EmaMoments
        ``mean`` and ``variance``, of the shape of ``steps``.

    Examples
    --------
    >>> m = sign_ema_moments(0.0, 0.79, np.inf)
    >>> round(math.sqrt(m.variance), 4)  # Table 3 row 1 (β3 = 0.79): std(a) = 0.342 for pure noise
    0.3425
    """
    s = require_in_range("snr", snr, -MAX_SNR, MAX_SNR)
    beta = require_in_range("sign_decay", sign_decay, 0.0, 1.0, high_open=True)
    k = np.asarray(steps, dtype=np.float64)
    if np.any(np.isnan(k)) or np.any(k < 0) or np.any((k != np.floor(k)) & np.isfinite(k)):
        raise ValueError("steps must be integers >= 0 (or inf for the stationary values)")
    drift = math.erf(s / math.sqrt(2.0))  # 2p − 1
    four_pq = math.erfc(-s / math.sqrt(2.0)) * math.erfc(s / math.sqrt(2.0))  # 4Φ(s)Φ(−s), no 1 − Φ
    with np.errstate(under="ignore"):
        decay_k = np.where(np.isinf(k), 0.0, beta ** np.where(np.isinf(k), 0.0, k))
    mean = drift * (1.0 - decay_k)
    variance = four_pq * (1.0 - beta) * (1.0 - decay_k * decay_k) / (1.0 + beta)
    if np.ndim(steps) == 0:
        return EmaMoments(float(mean), float(variance))
    return EmaMoments(mean, variance)
