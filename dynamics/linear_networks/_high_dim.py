"""High-dimensional generalization dynamics of the linear student (Advani & Saxe 2017; thesis Sec. 2.3.3).

Equations (spec/linear_networks.md B.3, B.5), with signal variance A = σ_w̄² + σ_0² and noise σ_ε²:

* per-mode expected error of (2.3.13)–(2.3.14): e(λ, t) = A e^{−2λt/τ} + (σ_ε²/λ)(1 − e^{−λt/τ})²
  (A at λ = 0, the frozen subspace);
* Marchenko–Pastur law (2.3.30) of X Xᵀ with α = P/N (atom 1 − α at 0 for α < 1, bulk mass min(1, α));
* E_g(t) = ∫ ρ_bulk e(λ, t) dλ + 1[α<1](1 − α) A + σ_ε²,
  E_t(t)/P = (1/α) ∫ ρ_bulk (λA + σ_ε²) e^{−2λt/τ} dλ + σ_ε² max(0, 1 − 1/α);
* t → ∞: E_g = σ_ε² α/(α − 1) (α > 1), (1 − α)A + σ_ε² α/(1 − α) + σ_ε² (α < 1), and at α = 1
  E_g ≈ C σ_ε² √(t/τ) with C = (1/π) ∫_0^∞ x^{−3/2}(1 − e^{−x})² dx = 2(2 − √2)/√π (derived here by
  continuing ∫ x^{s−1}(1 − 2e^{−x} + e^{−2x}) dx = Γ(s)(2^{−s} − 2) to s = −1/2, Γ(−1/2) = −2√π);
* early stopping: per-mode t*(λ) = (τ/λ) ln(1 + λA/σ_ε²), per-mode minimum Aσ_ε²/(σ_ε² + λA) (the
  Bayes / optimal-ridge error when σ_0 = 0), E_Bayes its MP average, and the single global
  t_opt = argmin E_g in [t*(λ+), t*(λ−)].

Integrals over ρ_bulk use :func:`dynamics.numerics.mp_quadrature` (θ substitution, graded panels,
robust at α = 1); 1 − e^{−x} is evaluated with expm1.
"""
import math

import numpy as np
from scipy import optimize

from dynamics.numerics import mp_atom, mp_edges, mp_quadrature, require_array_in_range, require_positive
from . import _checks

SQRT_GROWTH_CONSTANT = 2.0 * (2.0 - math.sqrt(2.0)) / math.sqrt(math.pi)
_QUADRATURE_ORDER = 16


def _variances(sigma_w2, sigma_eps2, sigma0):
    """(A, σ_ε²) = (σ_w̄² + σ_0², σ_ε²) after checking every variance is >= 0."""
    sigma_w2 = require_positive("sigma_w2", sigma_w2, allow_zero=True)
    sigma_eps2 = require_positive("sigma_eps2", sigma_eps2, allow_zero=True)
    sigma0 = require_positive("sigma0", sigma0, allow_zero=True)
    signal = sigma_w2 + sigma0 * sigma0
    if not math.isfinite(signal):
        raise ValueError(f"sigma_w2 + sigma0**2 must be finite, got sigma_w2={sigma_w2:g}, sigma0={sigma0:g}")
    return signal, sigma_eps2


def _mode_error(rate, lam, signal, noise):
    """e(λ, t) at rate = λt/τ (arrays broadcast); λ = 0 carries no noise term."""
    rise = -np.expm1(-rate)
    positive = lam > 0
    noise_term = np.where(positive, rise * rise / np.where(positive, lam, 1.0), 0.0)
    return signal * np.exp(-2.0 * rate) + noise * noise_term


def expected_mode_error(t, eigenvalue, sigma_w2=1.0, sigma_eps2=0.25, sigma0=0.0, tau=1.0):
    """Expected contribution of one mode with eigenvalue λ of X Xᵀ to N·(E_g − σ_ε²) at time t:
    (σ_w̄² + σ_0²) e^{−2λt/τ} + (σ_ε²/λ)(1 − e^{−λt/τ})², from (2.3.13)–(2.3.14). Broadcasts t, λ."""
    signal, noise = _variances(sigma_w2, sigma_eps2, sigma0)
    tau = _checks.tau_of(tau)
    t_arr = _checks.times("t", t)
    lam = require_array_in_range("eigenvalue", eigenvalue, 0.0)
    t_b, lam_b = np.broadcast_arrays(t_arr, lam)
    with np.errstate(invalid="ignore"):
        rate = np.where(lam_b > 0, t_b * lam_b / tau, 0.0)
    return _checks.scalar_result(_mode_error(rate, lam_b, signal, noise), t, eigenvalue)


def per_mode_stopping_time(eigenvalue, sigma_w2=1.0, sigma_eps2=0.25, sigma0=0.0, tau=1.0):
    """t*(λ) = (τ/λ) ln(1 + λA/σ_ε²), the minimiser of ``expected_mode_error`` over t (τA/σ_ε² at
    λ = 0; inf when σ_ε² = 0, where the error only decreases)."""
    signal, noise = _variances(sigma_w2, sigma_eps2, sigma0)
    tau = _checks.tau_of(tau)
    lam = require_array_in_range("eigenvalue", eigenvalue, 0.0)
    if noise == 0.0:
        return _checks.scalar_result(np.full(lam.shape, np.inf), eigenvalue)
    ratio = signal / noise
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(lam > 0, np.log1p(lam * ratio) / np.where(lam > 0, lam, 1.0), ratio) * tau
    return _checks.scalar_result(out, eigenvalue)


def mode_bayes_error(eigenvalue, sigma_w2=1.0, sigma_eps2=0.25, sigma0=0.0):
    """A σ_ε² / (σ_ε² + λA): the per-mode Bayes (optimal ridge) error, A = σ_w̄² + σ_0²."""
    signal, noise = _variances(sigma_w2, sigma_eps2, sigma0)
    lam = require_array_in_range("eigenvalue", eigenvalue, 0.0)
    denominator = noise + lam * signal
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(denominator > 0, signal * noise / np.where(denominator > 0, denominator, 1.0), 0.0)
    return _checks.scalar_result(out, eigenvalue)


def _alpha(alpha):
    return require_positive("alpha", alpha)


def asymptotic_errors(alpha, sigma_w2=1.0, sigma_eps2=0.25, sigma0=0.0):
    """(E_g(∞), E_t(∞)/P) of the infinite-size theory (B.5); E_g(∞) = inf at α = 1 with σ_ε² > 0."""
    alpha = _alpha(alpha)
    signal, noise = _variances(sigma_w2, sigma_eps2, sigma0)
    training = noise * max(0.0, 1.0 - 1.0 / alpha)
    if alpha > 1.0:
        return noise * alpha / (alpha - 1.0), training
    if alpha < 1.0:
        return (1.0 - alpha) * signal + noise * alpha / (1.0 - alpha) + noise, training
    return (math.inf if noise > 0 else 0.0), training


def generalization_curve(t, alpha, sigma_w2=1.0, sigma_eps2=0.25, sigma0=0.0, tau=1.0):
    """(E_g(t), E_t(t)/P) of the Advani–Saxe student in the high-dimensional limit (B.5).

    E_g (2.3.14) is the expected squared error on a fresh noisy label for x ~ N(0, I/N), noise floor
    σ_ε² included, no factor 1/2; E_t/P is ||y − wX||²/P (2.3.4). Averaged over teacher
    (variance ``sigma_w2``), label noise (``sigma_eps2``), init (standard deviation ``sigma0``) and
    inputs, for gradient flow (2.3.5) with time constant ``tau`` from w(0). ``t`` >= 0, inf allowed
    (the exact asymptotes); both outputs have the shape of t.
    """
    alpha = _alpha(alpha)
    signal, noise = _variances(sigma_w2, sigma_eps2, sigma0)
    tau = _checks.tau_of(tau)
    t_arr = _checks.times("t", t)
    flat = t_arr.ravel()
    finite = np.isfinite(flat)
    lam, weights = mp_quadrature(alpha, order=_QUADRATURE_ORDER)
    rate = np.outer(flat[finite] / tau, lam)
    atom = mp_atom(alpha)
    eg = np.empty(flat.shape)
    et = np.empty(flat.shape)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported by finite_result below
        eg[finite] = _mode_error(rate, lam, signal, noise) @ weights + atom * signal + noise
        et[finite] = ((np.exp(-2.0 * rate) * (lam * signal + noise)) @ weights / alpha
                      + noise * max(0.0, 1.0 - 1.0 / alpha))
    eg[~finite], et[~finite] = asymptotic_errors(alpha, sigma_w2, sigma_eps2, sigma0)
    # E_g(∞) = inf at α = 1 with noise is the documented limit; anything else non-finite is an overflow.
    _checks.finite_result(np.where(np.isposinf(eg) & ~finite & (alpha == 1.0), 0.0, eg), "generalization_curve",
                          "sigma_w2, sigma_eps2 or sigma0 (the errors scale linearly with the variances)")
    _checks.finite_result(et, "generalization_curve", "sigma_w2, sigma_eps2 or sigma0")
    if np.ndim(t) == 0:
        return float(eg[0]), float(et[0])
    return eg.reshape(t_arr.shape), et.reshape(t_arr.shape)


def bayes_error(alpha, sigma_w2=1.0, sigma_eps2=0.25, sigma0=0.0):
    """E_Bayes = ∫ ρ_bulk Aσ_ε²/(σ_ε² + λA) dλ + 1[α<1](1 − α)A + σ_ε²: the error of stopping every
    mode at its own t*(λ); with σ_0 = 0 the Bayes / optimal-ridge error (B.5)."""
    alpha = _alpha(alpha)
    signal, noise = _variances(sigma_w2, sigma_eps2, sigma0)
    lam, weights = mp_quadrature(alpha, order=_QUADRATURE_ORDER)
    bulk = mode_bayes_error(lam, sigma_w2, sigma_eps2, sigma0) @ weights
    return float(bulk + mp_atom(alpha) * signal + noise)


def _error_slope(t, lam, weights, signal, noise):
    """dE_g/dt in units of τ: ∫ ρ 2 e^{−λt} [σ_ε² (1 − e^{−λt}) − λA e^{−λt}] dλ."""
    decay = np.exp(-lam * t)
    return float((2.0 * decay * (noise * -np.expm1(-lam * t) - lam * signal * decay)) @ weights)


def optimal_stopping_time(alpha, sigma_w2=1.0, sigma_eps2=0.25, sigma0=0.0, tau=1.0):
    """t_opt = argmin over t in [0, inf] of E_g from ``generalization_curve`` (same parameters).

    inf when E_g never increases (σ_ε² = 0), 0 when it never decreases (A = σ_w̄² + σ_0² = 0).
    Otherwise the root of dE_g/dt inside [t*(λ+), t*(λ−)]: every mode's expected error falls
    before its own t*(λ) and rises after, and t*(λ) decreases in λ, so the slope is < 0 at the left
    end and > 0 at the right end. Proportional to tau.
    """
    alpha = _alpha(alpha)
    signal, noise = _variances(sigma_w2, sigma_eps2, sigma0)
    tau = _checks.tau_of(tau)
    if noise == 0.0:
        return math.inf
    if signal == 0.0:
        return 0.0
    low_edge, high_edge = mp_edges(alpha)
    left = per_mode_stopping_time(high_edge, signal, noise, 0.0, 1.0)
    right = per_mode_stopping_time(low_edge, signal, noise, 0.0, 1.0)
    lam, weights = mp_quadrature(alpha, order=_QUADRATURE_ORDER)
    # The slope depends on the variances only through A/σ_ε² (up to the factor σ_ε²), so it is
    # evaluated at (A/σ_ε², 1): no overflow or underflow for extreme variances.
    args = (lam, weights, signal / noise, 1.0)
    f_left, f_right = _error_slope(left, *args), _error_slope(right, *args)
    if f_left >= 0.0 or f_right <= 0.0 or right - left <= 4 * np.finfo(float).eps * right:
        # The bracket is narrower than rounding can resolve (extreme A/σ_ε²): its ends agree with t_opt
        # to that width, and the slope's sign there is rounding noise.
        t_opt = left if f_left >= 0.0 else right if f_right <= 0.0 else 0.5 * (left + right)
    else:
        t_opt = optimize.brentq(_error_slope, left, right, args=args, xtol=1e-14 * right,
                                rtol=4 * np.finfo(float).eps, maxiter=200)
    return float(t_opt * tau)
