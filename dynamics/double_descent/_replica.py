"""Case 1 (F = I) of the replica analysis, and the root a of Eq 4.2.13 / .2.35.

* :func:`stable_root`: the larger root ``a = ½[1 + α + λ + sqrt((1 + α + λ)² − 4α)]`` of
  ``a² − (1 + α + λ)a + α = 0`` (E12), with the discriminant factored as
  ``((1 − √α)² + λ)((1 + √α)² + λ)`` so that nothing cancels and nothing overflows (λ = inf gives a = inf).
* :func:`printed_root`: the source's form ``a = 1 + 2λ/(1 − α − λ + sqrt((1 − α − λ)² + 4λ))`` (Eq 4.2.13),
  algebraically equal but cancelling catastrophically for α > 1 and small λ (kept for the erratum claim).
* :func:`replica_saddle_point`: the zero-temperature replica-symmetric stationary point (spec §2.4, App. .2.33–.2.35)
  ``R = αT/a``, ``Q = [α/(a² − α)]·[G − ((2 − a)/a)αT]``, ``x = 1/(a − 1)``, with G = T + σ_eff².
* :func:`stieltjes_order_parameters`: the same quantities from random-matrix theory, via the
  Marchenko–Pastur Stieltjes transform ``g(λ) = Tr(ZᵀZ + λ)⁻¹/d`` solving ``λg² + (λ + α − 1)g − 1 = 0``:
  ``R = T(1 − λg)``, ``Q = T(1 − 2λg − λ²g′) + σ_eff²(g + λg′)`` (spec §2.4, "Case 1 = RMT").
"""
from dataclasses import dataclass

import numpy as np

from dynamics.numerics import require_array_in_range, require_positive


def stable_root(alpha, lam):
    """Larger root of a² − (1 + α + λ)a + α = 0 for α > 0, λ >= 0 (λ may be +inf). Elementwise."""
    alpha = require_array_in_range("alpha", alpha, 0.0, np.inf, low_open=True)
    lam = _nonnegative_or_inf("lam", lam)
    return _stable_root(alpha, lam)


def _stable_root(alpha, lam):
    root_alpha = np.sqrt(alpha)
    with np.errstate(invalid="ignore"):
        disc_root = np.sqrt((1.0 - root_alpha) ** 2 + lam) * np.sqrt((1.0 + root_alpha) ** 2 + lam)
        return 0.5 * (1.0 + alpha + lam + disc_root)


def _root_offsets(alpha, lam):
    """a − 1 and a − √α of the larger root without cancellation (a → 1 or √α at the threshold α = 1, λ → 0):
    a − √α = ½[(1 − √α)² + λ + disc], and a − 1 = ½[α − 1 + λ + disc] or, when α − 1 + λ < 0, the equal
    2λ/(1 − α − λ + disc) (from (a − 1)(a' − 1) = −λ with the smaller root a')."""
    root_alpha = np.sqrt(alpha)
    disc = np.sqrt((1.0 - root_alpha) ** 2 + lam) * np.sqrt((1.0 + root_alpha) ** 2 + lam)
    shift = alpha - 1.0 + lam
    with np.errstate(divide="ignore", invalid="ignore"):
        minus_one = np.where(shift >= 0, 0.5 * (shift + disc), 2.0 * lam / np.where(shift < 0, disc - shift, 1.0))
    return minus_one, 0.5 * ((1.0 - root_alpha) ** 2 + lam + disc)


def printed_root(alpha, lam):
    """The source's printed form of the same root, Eq 4.2.13: 1 + 2λ/(1 − α − λ + sqrt((1 − α − λ)² + 4λ))."""
    alpha = require_array_in_range("alpha", alpha, 0.0, np.inf, low_open=True)
    lam = require_array_in_range("lam", lam, 0.0, np.inf, low_open=True)
    denominator = 1.0 - alpha - lam + np.sqrt((1.0 - alpha - lam) ** 2 + 4.0 * lam)
    if np.any(denominator <= 0):
        bad = np.broadcast_to(lam, np.shape(denominator))[np.asarray(denominator) <= 0].flat[0]
        raise ValueError(f"the printed root cancels to 0 in its denominator at lam={bad:g}: use stable_root")
    return 1.0 + 2.0 * lam / denominator


def _nonnegative_or_inf(name, value):
    arr = np.array(value, dtype=np.float64)
    if np.any(np.isnan(arr)) or np.any(arr < 0) or np.any(arr == -np.inf):
        raise ValueError(f"{name} must be >= 0 (inf allowed), got {value!r}")
    return arr


@dataclass(frozen=True)
class SaddlePoint:
    """Zero-temperature replica saddle point of Case 1: a = 1 + 1/x, susceptibility x, overlaps R and Q."""

    a: np.ndarray
    susceptibility: np.ndarray
    R: np.ndarray
    Q: np.ndarray
    generalization_error: np.ndarray


def _check_case1(alpha, ridge, teacher_power, noise_variance):
    alpha = require_array_in_range("alpha", alpha, 0.0, np.inf, low_open=True)
    ridge = require_array_in_range("ridge", ridge, 0.0, np.inf)
    teacher_power = require_positive("teacher_power", teacher_power)
    noise_variance = require_positive("noise_variance", noise_variance, allow_zero=True)
    alpha, ridge = np.broadcast_arrays(alpha, ridge)
    if np.any((ridge == 0) & (alpha == 1)):
        raise ValueError("alpha = 1 with ridge = 0 is the interpolation threshold, where Q diverges; "
                         "give ridge > 0 or alpha != 1")
    return alpha, ridge, teacher_power, noise_variance


def replica_saddle_point(alpha, ridge, teacher_power=1.0, noise_variance=0.0):
    """Stationary point of the zero-temperature free energy (spec §2.4, App. .2.33–.2.35) for sample ratio
    α = n/d > 0, ridge λ >= 0 (sum-normalised loss), teacher power T = E[y*²] and effective label-noise
    variance σ_eff² (G = T + σ_eff²). Returns :class:`SaddlePoint`; L_G = ½(T − 2R + Q)."""
    alpha, ridge, t_power, noise_var = _check_case1(alpha, ridge, teacher_power, noise_variance)
    a = _stable_root(alpha, ridge)
    a_minus_one, a_minus_root = _root_offsets(alpha, ridge)
    R = alpha * t_power / a
    b = alpha / (a_minus_root * (a + np.sqrt(alpha)))
    # G − ((2 − a)/a)αT = σ² + T[(1 + α)(a − 1) + (1 − α)]/a: exact at the threshold α = 1, where a → 1
    Q = b * (noise_var + t_power * ((1.0 + alpha) * a_minus_one + (1.0 - alpha)) / a)
    with np.errstate(divide="ignore"):
        susceptibility = 1.0 / a_minus_one  # a = 1 only at alpha <= 1, ridge = 0: x = inf, as in the MP limit
    _require_finite_overlaps(R, Q)
    return SaddlePoint(a, susceptibility, R, Q, 0.5 * (t_power - 2.0 * R + Q))


def _require_finite_overlaps(R, Q):
    if not (np.all(np.isfinite(R)) and np.all(np.isfinite(Q))):
        raise ValueError("R or Q is not finite: alpha, ridge, teacher_power or noise_variance overflow float64")


def mp_stieltjes(alpha, ridge):
    """g(λ) = lim Tr(ZᵀZ + λ)⁻¹/d for Z with iid N(0, 1/d) entries and n = αd rows (λ > 0):
    the positive root of λg² + (λ + α − 1)g − 1 = 0, in the cancellation-free form."""
    alpha = require_array_in_range("alpha", alpha, 0.0, np.inf, low_open=True)
    ridge = require_array_in_range("ridge", ridge, 0.0, np.inf, low_open=True)
    return _stieltjes(*np.broadcast_arrays(alpha, ridge))


def _stieltjes(alpha, lam):
    b = lam + alpha - 1.0
    disc = np.hypot(b, 2.0 * np.sqrt(lam))  # sqrt(b² + 4λ) without overflow
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b >= 0, 2.0 / (b + disc), (disc - b) / (2.0 * lam))


def stieltjes_order_parameters(alpha, ridge, teacher_power=1.0, noise_variance=0.0):
    """R, Q and the susceptibility x = g of Case 1 from the Marchenko–Pastur Stieltjes transform (spec §2.4);
    ridge = 0 is the ridgeless limit (α > 1: R = T, Q = T + σ²/(α − 1); α < 1: R = αT, Q = αT + σ²α/(1 − α))."""
    alpha, ridge, t_power, noise_var = _check_case1(alpha, ridge, teacher_power, noise_variance)
    positive = ridge > 0
    lam = np.where(positive, ridge, 1.0)
    g = _stieltjes(alpha, lam)
    # λg' and λ²g' with g' = −(g² + g)/(2λg + λ + α − 1), written through λg so that g ~ λ^{-1/2} at α = 1
    # does not overflow g²
    lam_g = lam * g
    denominator = 2.0 * lam_g + lam + (alpha - 1.0)
    lam_g_prime = -lam_g * (g + 1.0) / denominator
    lam2_g_prime = -lam_g * (lam_g + lam) / denominator
    R = np.where(positive, t_power * (1.0 - lam_g), 0.0)
    Q = np.where(positive, t_power * (1.0 - 2.0 * lam_g - lam2_g_prime) + noise_var * (g + lam_g_prime), 0.0)
    above = alpha > 1
    with np.errstate(divide="ignore", invalid="ignore"):
        R0 = np.where(above, t_power, alpha * t_power)
        Q0 = np.where(above, t_power + noise_var / np.abs(alpha - 1.0), alpha * t_power + noise_var * alpha / np.abs(1.0 - alpha))
        g0 = np.where(above, 1.0 / np.abs(alpha - 1.0), np.inf)
    R, Q, g = np.where(positive, R, R0), np.where(positive, Q, Q0), np.where(positive, g, g0)
    _require_finite_overlaps(R, Q)
    return SaddlePoint(1.0 + 1.0 / g, g, R, Q, 0.5 * (t_power - 2.0 * R + Q))
