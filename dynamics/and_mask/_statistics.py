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
from ._docs import fill_doc

__all__ = ["conditional_moments", "decay_rate", "expected_squared_norms", "keep_probability",
           "keep_probability_bounds", "keep_probability_hetero", "keep_probability_rational",
           "log_keep_probability", "masked_update_moments", "masked_update_moments_hetero", "noise_masked_norm_bounds",
           "sign_ema_moments", "threshold_snr"]


def _xlogx(x):
    """x log x with 0 log 0 = 0."""
    return 0.0 if x == 0.0 else x * math.log(x)


# ------------------------------------------------------------------------------------------------ keep probability
@fill_doc
def log_keep_probability(n_envs: int, agreement_threshold: float, snr: ArrayLike = 0.0) -> Union[float, np.ndarray]:
    r""":math:`\log \pi(d, \tau, s)`: the logarithm of :func:`dynamics.and_mask.keep_probability`, finite where
    :math:`\pi` underflows.

    Parameters
    ----------
    %(n_envs)s
    %(agreement_threshold)s
    snr : float or array_like, default 0
        Per-environment signal-to-noise ratio :math:`s = \mu/\sigma` of the coordinate,
        :math:`\lvert s \rvert \le 10^6`.

    Returns
    -------
    float or ndarray
        :math:`\log \pi`, of the shape of ``snr``.

    Examples
    --------
    >>> round(log_keep_probability(2000, 1.0) / math.log(2.0), 9)  # π0 = 2^(1 - d)
    -1999.0
    """
    d, agreement_threshold = require_n_envs(n_envs), require_agreement_threshold(agreement_threshold)
    s = require_snr(snr)
    values = log_keep_many(d, integer_threshold(d, agreement_threshold), s.reshape(-1))
    return scalar_or_array(values.reshape(s.shape), snr)


@fill_doc
def keep_probability(n_envs: int, agreement_threshold: float, snr: ArrayLike = 0.0) -> Union[float, np.ndarray]:
    r"""Probability :math:`\pi(d, \tau, s)` that a coordinate passes the AND-mask (Parascandolo et al. 2021, Eq 6 for
    pure noise; the signal case is derived in this project).

    The :math:`d` per-environment gradients of the coordinate are i.i.d. :math:`N(\mu, \sigma^2)` with
    :math:`s = \mu/\sigma`, so that the number :math:`k` of positive ones is binomial with :math:`p = \Phi(s)`, and the
    coordinate passes when :math:`k` lies in the keep set :math:`K_\tau(d)` (see the AND-mask theory note):

    .. math::

        \pi(d, \tau, s) = \sum_{k \in K_\tau(d)} \binom{d}{k}\, \Phi(s)^k\, \Phi(-s)^{d-k}.

    At :math:`s = 0` this is the pure-noise value :math:`\pi_0(d, \tau)` of Proposition 2 (any sign-symmetric law).
    Summed in log space from :math:`\log \Phi(\pm s)`: relative accuracy about 1e-11 for :math:`d \le 2000` down to
    values of 1e-300. It is also the expected mask density.

    Parameters
    ----------
    %(n_envs)s
    %(agreement_threshold)s
    snr : float or array_like, default 0
        Per-environment signal-to-noise ratio :math:`s = \mu/\sigma`, :math:`\lvert s \rvert \le 10^6`.

    Returns
    -------
    float or ndarray
        :math:`\pi \in [0, 1]`, of the shape of ``snr``: even in :math:`s`, non-decreasing in :math:`\lvert s \rvert`, 1
        at :math:`\tau = 0`, :math:`\Phi(s)^d + \Phi(-s)^d` at :math:`\tau = 1`.

    Examples
    --------
    >>> abs(keep_probability(8, 0.5) / (37 / 128) - 1.0) < 1e-14
    True
    >>> round(keep_probability(4, 0.2, snr=1.0), 4)
    0.8931
    """
    log_value = log_keep_probability(n_envs, agreement_threshold, snr)
    return math.exp(log_value) if isinstance(log_value, float) else np.exp(log_value)


@fill_doc
def keep_probability_rational(n_envs: int, agreement_threshold: float) -> Fraction:
    r"""The pure-noise keep probability :math:`\pi_0(d, \tau) = 2^{-d} \sum_{k \in K_\tau(d)} \binom{d}{k}` as an exact
    fraction (Parascandolo et al. 2021, Eq 6).

    Parameters
    ----------
    %(n_envs)s
    %(agreement_threshold)s

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
@fill_doc
def masked_update_moments(n_envs: int, agreement_threshold: float, snr: float,
                          gradient_std: float = 1.0) -> MaskedMoments:
    r"""Exact moments :math:`(\mathbb{E}[m_\tau \bar g], \mathbb{E}[m_\tau \bar g^2])` of one masked coordinate with
    i.i.d. :math:`N(\mu, \sigma^2)` gradients (derived in this project; see the theory note, docs/theory/and_mask.md).

    First moment:

    .. math::

        (\mu p + \sigma\varphi) \cdot \Pr[1 + B' \in K_\tau] + (\mu(1 - p) - \sigma\varphi) \cdot \Pr[B' \in K_\tau],

    :math:`B' \sim \mathrm{Bin}(d - 1, p)`, :math:`p = \Phi(s)`, :math:`\varphi = \varphi(s)`. Second:
    :math:`\sum_{k \in K_\tau} \mathrm{Bin}(k; d, p) \cdot \mathbb{E}[\bar g^2 \mid P = k]` from truncated-normal
    pieces (at :math:`s = 0` the pure-noise sum of the terms :math:`(\sigma^2/d^2)[d(1 - 2/\pi) + (2/\pi)(2k - d)^2]`).

    Parameters
    ----------
    %(n_envs)s
    %(agreement_threshold)s
    snr : float
        :math:`s = \mu/\sigma`, :math:`\lvert s \rvert \le 10^6`.
    gradient_std : float, default 1
        :math:`\sigma > 0`, the standard deviation of one environment's gradient coordinate.

    Returns
    -------
    MaskedMoments
        ``first_moment`` :math:`\mathbb{E}[m \bar g]` (odd in :math:`s`, exactly 0 at :math:`s = 0`,
        :math:`\propto \sigma`) and ``second_moment`` :math:`\mathbb{E}[m \bar g^2]` (even in :math:`s`,
        :math:`\propto \sigma^2`). :math:`\tau = 0` gives :math:`(\mu, \mu^2 + \sigma^2/d)`.

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


@fill_doc
def conditional_moments(n_envs: int, n_positive: int, snr: float = 0.0,
                        gradient_std: float = 1.0) -> ConditionalMoments:
    r""":math:`\mathbb{E}[\bar g \mid P = k]` and :math:`\mathbb{E}[\bar g^2 \mid P = k]` given :math:`k` positive signs
    among :math:`d` i.i.d. :math:`N(\mu, \sigma^2)` gradients (derived in this project; the pure-noise bound
    :math:`\mathbb{E}[\bar g^2 \mid P = k] \le \mathbb{E}[\bar g^2 \mid P = d]` is used in the proof of Proposition 2
    of Parascandolo et al. 2021).

    Given the sign vector the entries are independent truncated normals, so

    .. math::

        \mathbb{E}[\bar g \mid P = k] &= \frac{k m_+ + (d - k) m_-}{d}, \\
        \mathbb{E}[\bar g^2 \mid P = k] &= \frac{k v_+ + (d - k) v_- + (k m_+ + (d - k) m_-)^2}{d^2}.

    At :math:`s = 0`: :math:`(\sigma^2/d^2)[d(1 - 2/\pi) + (2/\pi)(2k - d)^2]`, increasing in
    :math:`\lvert 2k - d \rvert` and at most :math:`\sigma^2(2/\pi + (1 - 2/\pi)/d)`.

    Parameters
    ----------
    %(n_envs)s
    n_positive : int
        Number :math:`k` of positive gradients, :math:`0 \le k \le d`.
    snr : float, default 0
        :math:`s = \mu/\sigma`, :math:`\lvert s \rvert \le 10^6`.
    %(gradient_std)s

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


@fill_doc
def expected_squared_norms(n_envs: int, agreement_threshold: float, n_params: int = 1, snr: float = 0.0,
                           gradient_std: float = 1.0) -> SquaredNorms:
    r""":math:`\mathbb{E}\lVert m_\tau \odot \bar g \rVert^2` and :math:`\mathbb{E}\lVert \bar g \rVert^2` over
    :math:`n` i.i.d. coordinates (Parascandolo et al. 2021, Proposition 2 and Fig 4).

    Parameters
    ----------
    %(n_envs)s
    %(agreement_threshold)s
    n_params : int, default 1
        Number of coordinates :math:`n \ge 1`.
    snr : float, default 0
        :math:`s = \mu/\sigma` of every coordinate (0: Proposition 2's pure noise).
    %(gradient_std)s

    Returns
    -------
    SquaredNorms
        ``masked`` = :math:`n \cdot \mathbb{E}[m \bar g^2]` and ``unmasked`` = :math:`n(\mu^2 + \sigma^2/d)`.

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


@fill_doc
def keep_probability_hetero(gradient_means: ArrayLike, gradient_stds: ArrayLike, agreement_threshold: float) -> float:
    r"""Keep probability with environment-dependent :math:`N(\mu_e, \sigma_e^2)` gradients: a Poisson-binomial sum
    (derived in this project).

    The number of positive signs is Poisson-binomial with :math:`p_e = \Phi(\mu_e/\sigma_e)`; its pmf comes from the
    :math:`O(d^2)` dynamic programme :math:`w'[k+1] \mathrel{+}= p_e w[k]`, :math:`w'[k] \mathrel{+}= (1 - p_e) w[k]`
    (linear space: accuracy is absolute, about 1e-16 per environment).

    Parameters
    ----------
    %(gradient_means)s
    gradient_stds : array_like, shape (n_envs,)
        :math:`\sigma_e > 0` (:math:`\lvert \mu_e \rvert/\sigma_e \le 10^6`).
    %(agreement_threshold)s

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


@fill_doc
def masked_update_moments_hetero(gradient_means: ArrayLike, gradient_stds: ArrayLike,
                                 agreement_threshold: float) -> MaskedMoments:
    r"""Exact :math:`(\mathbb{E}[m_\tau \bar g], \mathbb{E}[m_\tau \bar g^2])` with environment-dependent
    :math:`N(\mu_e, \sigma_e^2)` gradients (derived in this project).

    The dynamic programme of :func:`dynamics.and_mask.keep_probability_hetero` carried on four arrays indexed by the
    number of positive signs :math:`k`: probability :math:`W`, first and second conditional sums
    :math:`M_1 = \mathbb{E}[\mathbf{1}\{P=k\} \sum m]`, :math:`M_2 = \mathbb{E}[\mathbf{1}\{P=k\} (\sum m)^2]` and
    :math:`V = \mathbb{E}[\mathbf{1}\{P=k\} \sum v]` (truncated-normal means :math:`m` and variances :math:`v` of each
    environment's sign); then

    .. math::

        \mathbb{E}[m \bar g] = \sum_{K_\tau} M_1/d, \qquad \mathbb{E}[m \bar g^2] = \sum_{K_\tau} (V + M_2)/d^2.

    Parameters
    ----------
    %(gradient_means)s
    gradient_stds : array_like, shape (n_envs,)
        :math:`\sigma_e > 0`.
    %(agreement_threshold)s

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
@fill_doc
def decay_rate(agreement_threshold: float) -> float:
    r""":math:`c(\tau) = (1+\tau)^{(1+\tau)/2} (1-\tau)^{(1-\tau)/2}`
    :math:`= \exp \mathrm{KL}(\mathrm{Bern}((1+\tau)/2) \,\Vert\, \mathrm{Bern}(\tfrac{1}{2}))`: the rate of
    Proposition 2 of Parascandolo et al. 2021, corrected in this project.

    The pure-noise keep probability and masked norm decay like :math:`c(\tau)^{-d}` (the paper's printed rate
    :math:`O(n/(2 - q)^d)` is an erratum).

    Parameters
    ----------
    %(agreement_threshold)s

    Returns
    -------
    float
        :math:`c \in [1, 2]`: :math:`c(0) = 1`, :math:`c(1) = 2` (:math:`0^0 = 1`).

    Examples
    --------
    >>> round(decay_rate(0.6), 5), decay_rate(1.0)
    (1.21257, 2.0)
    """
    agreement_threshold = require_agreement_threshold(agreement_threshold)
    return float(math.exp(0.5 * (_xlogx(1.0 + agreement_threshold) + _xlogx(1.0 - agreement_threshold))))


@fill_doc
def threshold_snr(agreement_threshold: float) -> float:
    r"""The large-:math:`d` threshold SNR
    :math:`s^*(\tau) = \Phi^{-1}((1 + \tau)/2) = \sqrt{2} \cdot \operatorname{erfinv}(\tau)` (derived in this project).

    As :math:`d \to \infty` a signal coordinate with SNR :math:`s` is kept with probability :math:`\to 1` if
    :math:`s > s^*(\tau)` (:math:`2\Phi(s) - 1 > \tau`) and :math:`\to 0` if :math:`s < s^*(\tau)`.

    Parameters
    ----------
    %(agreement_threshold)s

    Returns
    -------
    float
        :math:`s^* \ge 0`; :math:`\tau = 1` returns ``math.inf`` (every finite-SNR coordinate is eventually masked).

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


@fill_doc
def keep_probability_bounds(n_envs: int, n_agree: int) -> ProbabilityBounds:
    r"""Type-class and Chernoff–Hoeffding bounds on :math:`\pi_0(d, t)` (Parascandolo et al. 2021, Proposition 2,
    corrected in this project).

    .. math::

        \frac{2 e^{-d \cdot \mathrm{KL}(t/d \,\Vert\, \frac{1}{2})}}{d + 1} \le \pi_0(d, t)
        \le 2 e^{-d \cdot \mathrm{KL}(t/d \,\Vert\, \frac{1}{2})},

    with :math:`\pi_0(d, t) = \Pr[\max(P, N) \ge t]` for pure noise.

    Parameters
    ----------
    %(n_envs)s
    n_agree : int
        The :math:`t`-form threshold, :math:`d/2 < t \le d`.

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


@fill_doc
def noise_masked_norm_bounds(n_envs: int, n_agree: int, n_params: int = 1,
                             gradient_std: float = 1.0) -> NoiseNormBounds:
    r"""The bounds of Proposition 2 of Parascandolo et al. 2021 on :math:`\mathbb{E}\lVert m_t \odot \bar g \rVert^2`
    for pure-noise gradients, as corrected in this project.

    * ``paper_chain``: :math:`n\sigma^2 (d - t + 1) \cdot \binom{d}{t} \cdot 2^{1-d}` (the paper's chain with the
      factor :math:`d - t + 1`; printed :math:`d - t`),
    * ``conditional``: :math:`n\sigma^2 (2/\pi + (1 - 2/\pi)/d) \cdot \pi_0(d, t)` (equality at :math:`t = d`),
    * ``chernoff``: :math:`2n\sigma^2 (2/\pi + (1 - 2/\pi)/d) \cdot e^{-d \cdot \mathrm{KL}(t/d \,\Vert\, 1/2)}`,
    * ``exponential``:
      :math:`2n\sigma^2 \cdot e^{-d \cdot \mathrm{KL}(t/d \,\Vert\, 1/2)} \le 2n\sigma^2 \cdot c(\tau)^{-d} = O(n/c^d)`.

    Parameters
    ----------
    %(n_envs)s
    n_agree : int
        The :math:`t`-form threshold, :math:`d/2 < t \le d`.
    n_params : int, default 1
        Number of coordinates :math:`n \ge 1`.
    gradient_std : float, default 1
        :math:`\sigma > 0` of each environment's gradient entries.

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
    r"""Mean and variance of the sign EMA :math:`a_k` of the temporal AND-mask (Parascandolo et al. 2021, Algorithm 1;
    the moments are derived in this project).

    .. math::

        a_k = \beta a_{k-1} + (1 - \beta) \operatorname{sign}(g_k), \qquad a_0 = 0,

    with i.i.d. :math:`g_k \sim N(\mu, \sigma^2)`, :math:`P(+) = p = \Phi(s)`:

    .. math::

        \mathbb{E}[a_k] = (2p - 1)(1 - \beta^k), \qquad
        \operatorname{Var}(a_k) = \frac{4p(1 - p)(1 - \beta)(1 - \beta^{2k})}{1 + \beta}.

    Parameters
    ----------
    snr : float
        :math:`s = \mu/\sigma`, :math:`\lvert s \rvert \le 10^6`.
    sign_decay : float
        :math:`\beta` (:math:`\beta_3` of Algorithm 1) in :math:`[0, 1)`.
    steps : int or array_like of int
        Step counts :math:`k \ge 0`; ``np.inf`` gives the stationary values.

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
