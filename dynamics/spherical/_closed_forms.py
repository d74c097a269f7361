"""Closed forms of the spherical view (Roburin (thesis), Eqs 3.42, 3.44, 3.46-3.48, Theorem 4, App. B.2; the bounds
and equilibria derived in this project, see the theory note docs/theory/spherical.md).

Notation: η = learning_rate, λ = weight_decay (the coefficient in the gradient, ∇L + λx), γ = momentum,
G or g = ‖∇L(u)‖ the norm of the gradient on the sphere (tangent at u), r = ‖x‖, s = r², w = r⁴,
ρ = (1 − ηλ)².

* Table 3.1: the effective learning rate of SGD (+ L2) at radius r, η^e = η/((1−ηλ)r²).
* The λ = 0 SGD bounds: P_k = r₀⁴ + 2Σ_{i<k} η_i²g_i² <= r_k⁴ <= P_k + Σ_{i<k} η_i⁴g_i⁴/P_i, and the constant-η bounds
  on η_k^e = η/r_k² (Arora et al.'s auto rate-tuning, η^e = Θ(k^{-1/2})).
* The SGD + L2 equilibrium: the exact map s_{k+1} = ρ s_k + η²g_k²/s_k, its fixed point r*⁴ = ηG²/(λ(2−ηλ)) with
  cos θ* = 1 − ηλ, the invariant interval under bounded gradients, and the ODE relaxation
  r_k⁴ ≈ r*⁴ + (r₀⁴ − r*⁴)e^{−4ηλk}; without gradient on the sphere, the collapse r_k = r₀(1−ηλ)^k.
* The random-walk equilibrium of SGD-M + L2: r*⁴ ≈ ηG²/(2λ(1−γ)), angle ≈ sqrt(2ηλ/(1+γ)), relaxation
  r_k⁴ ≈ r*⁴ + (r₀⁴ − r*⁴)e^{−k/τ} with τ = (1−γ)/(4ηλ).
* The radius law of Adam w/o (abc) (β₁ = 0, λ = 0, ε = 0, constant G): r_k² = r₀² + η²dk and η_k^e = η√d/(G r_k).
* Theorem 4: (β, η_AGG, v₀) = ((1−ηλ)⁴, (2β)^{−1/2}, r₀⁴/(2η²β^{1/2})) and the order-2 radius
  w̃_{k+1} = ρ²w̃_k + 2ρη²g_k²; the learning rate of element-wise AdaGrad matched to SGD's first step.
* Eq 3.44 and its momentum version (Li & Arora 2020): L2 ≡ an exponentially growing learning rate.
* Eq 3.42 (Adam's second moment on the sphere ν_k) and the corrected ν_k^R of Adam w/o (abc) (Roburin (thesis),
  §3.5.2, "scheduling with R").
"""
import math
from typing import Tuple, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (require_array_in_range, require_finite_product, require_finite_result,
                               require_integer, require_positive)
from ._checks import (require_decay_product, require_grad_norms, require_momentum, require_radius_recursion_args,
                      require_rates, require_second_moment_args, require_steps, require_weight_decay,
                      require_weight_vector)
from ._kernels import sgd_order2_kernel, sgd_radius_kernel
from ._optimizers import _one_minus_power
from ._results import (AdaGradGParameters, ArrayOrFloat, EffectiveLRBounds, Equilibrium, GeometricSchedule,
                       InvariantInterval, LiAroraEquivalent, RadiusLaw, RadiusSandwich)

__all__ = ["adagrad_matched_learning_rate", "adagradg_equivalent_params", "adam_nu", "adam_nu_R", "adam_srt_radius",
           "adam_srt_radius_law", "effective_lr_bounds_sgd", "exponential_lr_schedule", "li_arora_equivalent",
           "sgd_effective_lr", "sgd_l2_collapse_radius", "sgd_l2_equilibrium", "sgd_l2_invariant_interval",
           "sgd_l2_radius_map", "sgd_l2_relaxation", "sgd_l2_relaxation_law", "sgd_lambda0_sandwich",
           "sgd_order2_radius4", "sgd_radius_sequence", "sgdm_l2_equilibrium", "sgdm_l2_relaxation",
           "sgdm_l2_relaxation_steps"]


def sgd_l2_equilibrium(learning_rate: float, weight_decay: float, grad_norm: float) -> Equilibrium:
    """The exact fixed point of SGD + L2 (no momentum) with a constant gradient norm on the sphere (derived in
    this project).

    r*⁴ = ηG²/(λ(2−ηλ)), η^e* = sqrt(ηλ(2−ηλ))/((1−ηλ)G) = η/((1−ηλ)r*²) and
    θ* = atan2(sqrt(ηλ(2−ηλ)), 1−ηλ) = arccos(1−ηλ), the angular step per iteration (independent of G).

    Parameters
    ----------
    learning_rate : float
        η > 0.
    weight_decay : float
        λ > 0, with ηλ < 1 (hypothesis H1). At λ = 0 there is no equilibrium (see
        :func:`dynamics.spherical.effective_lr_bounds_sgd`).
    grad_norm : float
        G = ‖∇L(u)‖ > 0, the norm of the (tangent) gradient on the unit sphere.

    Returns
    -------
    Equilibrium
        ``(radius_fourth_power, effective_learning_rate, angle)``, exact closed forms.

    Examples
    --------
    >>> eq = sgd_l2_equilibrium(0.1, 1e-3, 2.0)
    >>> round(eq.radius_fourth_power, 6), round(eq.effective_learning_rate, 8), round(eq.angle, 8)
    (200.010001, 0.0070716, 0.01414225)
    """
    eta = require_positive("learning_rate", learning_rate)
    lam = require_positive("weight_decay", weight_decay)
    g = require_positive("grad_norm", grad_norm)
    product = require_decay_product(eta, lam, "the SGD + L2 equilibrium")
    q = product * (2.0 - product)
    r4 = eta * g * g / (lam * (2.0 - product))
    effective = math.sqrt(q) / ((1.0 - product) * g)
    require_finite_result(np.array([r4, effective]), "the equilibrium", "learning_rate·grad_norm²/weight_decay "
                          "or 1/grad_norm overflows float64")
    return Equilibrium(r4, effective, math.atan2(math.sqrt(q), 1.0 - product))


def sgdm_l2_equilibrium(learning_rate: float, weight_decay: float, momentum: float, grad_norm: float) -> Equilibrium:
    """The leading-order equilibrium of SGD-M + L2 in the random-walk noise model (derived in this project;
    Wan et al. 2021).

    r*⁴ = ηG²/(2λ(1−γ)), η^e = η/r*² = sqrt(2ηλ(1−γ))/G, and the rms angular update sqrt(2ηλ/(1+γ)).
    Leading order in ηλ: at γ = 0 it differs from :func:`dynamics.spherical.sgd_l2_equilibrium` by O(ηλ) relative.

    Parameters
    ----------
    learning_rate : float
        η > 0.
    weight_decay : float
        λ > 0 with ηλ < 1.
    momentum : float
        γ in [0, 1) (heavy ball, dampening 0: m_k = γm_{k−1} + ∇L + λx).
    grad_norm : float
        G = sqrt(E‖∇L(u)‖²) > 0, the rms gradient norm on the sphere.

    Returns
    -------
    Equilibrium
        ``(radius_fourth_power, effective_learning_rate, angle)``.

    Examples
    --------
    >>> eq = sgdm_l2_equilibrium(0.1, 1e-3, 0.9, 2.0)
    >>> round(eq.radius_fourth_power, 6), round(eq.angle, 8)
    (2000.0, 0.01025978)
    """
    eta = require_positive("learning_rate", learning_rate)
    lam = require_positive("weight_decay", weight_decay)
    gamma = require_momentum(momentum)
    g = require_positive("grad_norm", grad_norm)
    require_decay_product(eta, lam, "the SGD-M + L2 equilibrium")
    r4 = eta * g * g / (2.0 * lam * (1.0 - gamma))
    effective = math.sqrt(2.0 * eta * lam * (1.0 - gamma)) / g
    require_finite_result(np.array([r4, effective]), "the equilibrium", "learning_rate·grad_norm²/weight_decay "
                          "or 1/grad_norm overflows float64")
    return Equilibrium(r4, effective, math.sqrt(2.0 * eta * lam / (1.0 + gamma)))


def sgdm_l2_relaxation_steps(learning_rate: float, weight_decay: float, momentum: float) -> float:
    """The number of steps (1−γ)/(4ηλ) over which SGD-M + L2 relaxes to its equilibrium (random-walk model).

    Parameters
    ----------
    learning_rate, weight_decay : float
        η > 0 and λ > 0.
    momentum : float
        γ in [0, 1).

    Returns
    -------
    float
        The relaxation time in steps (r⁴ − r*⁴ ∝ exp(−k/time)).

    Examples
    --------
    >>> round(sgdm_l2_relaxation_steps(0.1, 1e-3, 0.9), 9)
    250.0
    """
    eta = require_positive("learning_rate", learning_rate)
    lam = require_positive("weight_decay", weight_decay)
    gamma = require_momentum(momentum)
    product = require_decay_product(eta, lam, "the SGD-M relaxation time")
    return require_finite_result((1.0 - gamma) / (4.0 * product), "the relaxation time",
                                 "learning_rate·weight_decay is too small")


def sgdm_l2_relaxation(r0: float, learning_rate: float, weight_decay: float, momentum: float, grad_norm: float,
                       steps: Union[int, ArrayLike]) -> ArrayOrFloat:
    """The relaxation of SGD-M + L2 to its random-walk equilibrium, r_k⁴ ≈ r*⁴ + (r₀⁴ − r*⁴)e^{−k/τ}
    (random-walk model, derived in this project).

    r*⁴ = ηG²/(2λ(1−γ)) is :func:`dynamics.spherical.sgdm_l2_equilibrium`'s leading-order equilibrium and τ =
    (1−γ)/(4ηλ) :func:`dynamics.spherical.sgdm_l2_relaxation_steps` (Wan et al. 2021); a law for the mean r_k⁴ under
    random-walk noise.

    Parameters
    ----------
    r0 : float
        ‖x₀‖ > 0.
    learning_rate, weight_decay : float
        η > 0, λ > 0 with ηλ < 1.
    momentum : float
        γ in [0, 1).
    grad_norm : float
        G > 0, the rms gradient norm on the sphere.
    steps : int or array_like of int
        Step counts k >= 0.

    Returns
    -------
    float or ndarray
        r_k⁴, shaped like ``steps``.

    Examples
    --------
    >>> round(sgdm_l2_relaxation(1.0, 0.1, 1e-3, 0.9, 2.0, 250), 4)   # one relaxation time
    1264.609
    """
    r0 = require_positive("r0", r0)
    equilibrium = sgdm_l2_equilibrium(learning_rate, weight_decay, momentum, grad_norm)
    tau = sgdm_l2_relaxation_steps(learning_rate, weight_decay, momentum)
    k, scalar = require_steps(steps)
    w_star = equilibrium.radius_fourth_power
    with np.errstate(over="ignore", invalid="ignore"):
        value = w_star + (np.float64(r0) ** 4 - w_star) * np.exp(-np.asarray(k, float) / tau)
    require_finite_result(value, "r_k⁴", "r0⁴ overflows float64")
    return float(value) if scalar else value


def effective_lr_bounds_sgd(learning_rate: float, r0: float, g_min: float, g_max: float,
                            steps: Union[int, ArrayLike]) -> EffectiveLRBounds:
    """Bounds on η_k^e = η/r_k² for plain SGD (λ = 0, constant η) with g_min <= ‖∇L(u_i)‖ <= g_max: the
    constant-η λ = 0 SGD bounds (derived in this project).

    For k >= 1, with G = g_max,
    η/sqrt(r₀⁴ + 2η²G²k + η⁴G⁴/r₀⁴ + (η²G⁴/(2g_min²))·ln(1 + 2η²g_min²(k−1)/r₀⁴)) <= η_k^e
    <= η/sqrt(r₀⁴ + 2η²g_min²k); at k = 0 both equal η/r₀². So η_k^e = Θ(k^{−1/2}), asymptotically
    independent of η.

    Parameters
    ----------
    learning_rate : float
        η > 0.
    r0 : float
        The initial radius ‖x₀‖ > 0.
    g_min, g_max : float
        0 < g_min <= g_max, bounds on the gradient norm on the sphere for all steps i < k.
    steps : int or array_like of int
        Step counts k >= 0 at which to bound η_k^e.

    Returns
    -------
    EffectiveLRBounds
        ``(lower, upper)``, floats for an int ``steps``, arrays shaped like ``steps`` otherwise.

    Examples
    --------
    >>> bounds = effective_lr_bounds_sgd(0.1, 1.0, 0.5, 2.0, 100)
    >>> round(bounds.lower, 6), round(bounds.upper, 6)
    (0.033095, 0.08165)
    >>> effective_lr_bounds_sgd(0.1, 1.0, 0.5, 2.0, 0)
    EffectiveLRBounds(lower=0.1, upper=0.1)
    """
    eta = require_positive("learning_rate", learning_rate)
    r0 = require_positive("r0", r0)
    g_min = require_positive("g_min", g_min)
    g_max = require_positive("g_max", g_max)
    if g_min > g_max:
        raise ValueError(f"g_min must be <= g_max, got g_min = {g_min:g} > g_max = {g_max:g}")
    k, scalar = require_steps(steps)
    k = np.asarray(k, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        eta_, g_min_, g_max_ = np.float64(eta), np.float64(g_min), np.float64(g_max)  # inf, not OverflowError
        w0 = np.float64(r0) ** 4
        upper_w = w0 + 2.0 * eta_ * eta_ * g_min_ * g_min_ * k
        tail = (eta_ * eta_ * g_max_ ** 4 / (2.0 * g_min_ * g_min_)) * np.log1p(
            2.0 * eta_ * eta_ * g_min_ * g_min_ * np.maximum(k - 1.0, 0.0) / w0)
        lower_w = w0 + 2.0 * eta_ * eta_ * g_max_ * g_max_ * k + eta_ ** 4 * g_max_ ** 4 / w0 + tail
        lower_w = np.where(k == 0, w0, lower_w)
        lower, upper = eta_ / np.sqrt(lower_w), eta_ / np.sqrt(upper_w)
        # Where a power (r0⁴, η⁴G⁴, ...) leaves float64, or is subnormal and so inexact, although the bounds do not,
        # the same sums in log space (relative error ~1e-13).
        tiny = np.finfo(np.float64).tiny
        powers = (w0, eta_ * eta_ * g_min_ * g_min_, eta_ ** 4 * g_max_ ** 4,
                  eta_ * eta_ * g_max_ ** 4 / (g_min_ * g_min_))
        exact = all(np.isfinite(x) and x >= tiny for x in powers)
        direct = np.isfinite(lower) & np.isfinite(upper) & (lower > 0) & (upper > 0) & exact
        if not np.all(direct):
            log_lower, log_upper = _log_effective_lr_bounds(eta, r0, g_min, g_max, k)
            lower, upper = np.where(direct, lower, np.exp(log_lower)), np.where(direct, upper, np.exp(log_upper))
    require_finite_result(np.concatenate([np.ravel(lower), np.ravel(upper)]), "the effective learning rate bounds",
                          "learning_rate/r0² overflows float64 (the bound at k = 0); rescale the problem")
    if np.any(np.ravel(lower) <= 0):
        raise ValueError("the effective learning rate bounds underflow to 0 in float64: rescale the problem")
    if scalar:
        return EffectiveLRBounds(float(lower), float(upper))
    return EffectiveLRBounds(lower, upper)


def _log_effective_lr_bounds(eta, r0, g_min, g_max, k):
    """log of the λ = 0 SGD bounds of :func:`dynamics.spherical.effective_lr_bounds_sgd`, each sum of squares through
    logsumexp."""
    log_eta, log_r0, log_min, log_max = (math.log(v) for v in (eta, r0, g_min, g_max))
    log2 = math.log(2.0)
    with np.errstate(divide="ignore"):
        log_k, log_k1 = np.log(k), np.log(np.maximum(k - 1.0, 0.0))
    # log1p(y) with log y = log(2η²g_min²(k−1)/r0⁴), and its log (≈ log y for tiny y: log1p(y) = y(1 − y/2 + ...))
    log_y = log2 + 2.0 * log_eta + 2.0 * log_min + log_k1 - 4.0 * log_r0
    with np.errstate(divide="ignore"):
        log_log1p = np.where(log_y < -30.0, log_y, np.log(np.logaddexp(0.0, log_y)))
    upper_terms = [np.full(k.shape, 4.0 * log_r0), log2 + 2.0 * log_eta + 2.0 * log_min + log_k]
    lower_terms = [np.full(k.shape, 4.0 * log_r0), log2 + 2.0 * log_eta + 2.0 * log_max + log_k,
                   np.full(k.shape, 4.0 * (log_eta + log_max) - 4.0 * log_r0),
                   2.0 * log_eta + 4.0 * log_max - log2 - 2.0 * log_min + log_log1p]
    log_lower = log_eta - 0.5 * np.logaddexp.reduce(np.stack(lower_terms), axis=0)
    log_upper = log_eta - 0.5 * np.logaddexp.reduce(np.stack(upper_terms), axis=0)
    at_start = log_eta - 2.0 * log_r0  # k = 0: both are η/r0²
    return np.where(k == 0, at_start, log_lower), np.where(k == 0, at_start, log_upper)


def sgd_lambda0_sandwich(r0: float, learning_rates: Union[float, ArrayLike], grad_norms: ArrayLike) -> RadiusSandwich:
    """The λ = 0 SGD sandwich P_k <= r_k⁴ <= P_k + Σ_{i<k} η_i⁴g_i⁴/P_i for SGD without weight decay, any schedule.

    P_k = r₀⁴ + 2Σ_{i<k} η_i²g_i² (the thesis's order-2 solution r_k² ≈ sqrt(P_k)); the exact recursion is
    r_{k+1}⁴ = r_k⁴ + 2η_k²g_k² + η_k⁴g_k⁴/r_k⁴.

    Parameters
    ----------
    r0 : float
        ‖x₀‖ > 0.
    learning_rates : float or array_like, shape (n_steps,)
        η_i > 0 (one value for a constant learning rate).
    grad_norms : array_like, shape (n_steps,)
        g_i = ‖∇L(u_i)‖ >= 0, the gradient norms on the sphere along the run.

    Returns
    -------
    RadiusSandwich
        ``(lower, upper)``, bounds on r_k⁴ for k = 0..n_steps.

    Examples
    --------
    >>> bounds = sgd_lambda0_sandwich(1.0, 0.1, [1.0, 1.0])
    >>> bounds.lower.round(6).tolist(), bounds.upper.round(6).tolist()
    ([1.0, 1.02, 1.04], [1.0, 1.0201, 1.040198])
    """
    r0 = require_positive("r0", r0)
    g = require_grad_norms(grad_norms)
    eta = require_rates("learning_rates", learning_rates, g.size)
    with np.errstate(over="ignore", under="ignore"):
        increments = (eta * g) ** 2
        P = np.float64(r0) ** 4 + 2.0 * np.concatenate([[0.0], np.cumsum(increments)])  # inf, not OverflowError
        # (η²g²)²/P as η²g²·(η²g²/P): the square alone may overflow where the quotient does not
        upper = P + np.concatenate([[0.0], np.cumsum(increments * (increments / P[:-1]))])
    require_finite_result(upper, "the radius bounds", "r0**4 or the increments overflow float64")
    if P[0] == 0.0:
        raise ValueError(f"r0 must be > 1.5e-81, got {r0:g} (r0**4 underflows to 0 in float64, and the bounds divide "
                         f"by P_k >= r0**4)")
    return RadiusSandwich(P, upper)


def sgd_radius_sequence(r0: float, learning_rate: Union[float, ArrayLike], grad_norms: ArrayLike,
                        weight_decay: float = 0.0) -> np.ndarray:
    """The exact radius of SGD (+ L2, no momentum) from the gradient norms on the sphere (Eqs 3.25, 3.46).

    r_{k+1}² = (1−η_kλ)²r_k² + η_k²g_k²/r_k²: with λ = 0 this is Pythagorean growth
    ‖x_{k+1}‖² = ‖x_k‖² + η_k²‖∇L(x_k)‖² (Lemma 1: ∇L(x) ⊥ x and ‖∇L(x)‖ = g/r). Compiled (numba).

    Parameters
    ----------
    r0 : float
        ‖x₀‖ > 0.
    learning_rate : float or array_like, shape (n_steps,)
        η_k > 0.
    grad_norms : array_like, shape (n_steps,)
        g_k = ‖∇L(u_k)‖ >= 0.
    weight_decay : float
        λ >= 0 with η_kλ < 1.

    Returns
    -------
    ndarray, shape (n_steps + 1,)
        r_0..r_{n_steps}.

    Examples
    --------
    >>> sgd_radius_sequence(1.0, 0.5, [2.0, 0.0]).round(6).tolist()
    [1.0, 1.414214, 1.414214]
    """
    r0, g, eta, lam = require_radius_recursion_args(r0, learning_rate, grad_norms, weight_decay, "sgd_radius_sequence")
    r = sgd_radius_kernel(r0, eta, g, lam)
    require_finite_result(r, "the radius", "it overflows float64 (reduce learning_rate·grad_norms/r0)")
    if np.any(r == 0.0):
        raise ValueError("the radius collapses to 0 (underflows) in float64: (1 − learning_rate·weight_decay)^k·r0 "
                         "leaves float64; run fewer steps or rescale r0")
    return r


def sgd_effective_lr(learning_rate: float, radius_fourth_power: Union[float, ArrayLike],
                     weight_decay: float = 0.0) -> ArrayOrFloat:
    """The effective learning rate of SGD (+ L2, no momentum) at radius r, η^e = η/((1−ηλ)r²) (Table 3.1).

    Given r⁴: with λ = 0 it is η/r² (Eq 3.46); with the order-2 radius w̃_k of
    :func:`dynamics.spherical.sgd_order2_radius4` in place of r_k⁴ it is the effective learning rate η_AGG/sqrt(v_k) of
    the matching AdaGradG run (Theorem 4).

    Parameters
    ----------
    learning_rate : float
        η > 0.
    radius_fourth_power : float or array_like
        r⁴ > 0.
    weight_decay : float
        λ >= 0 with ηλ < 1.

    Returns
    -------
    float or ndarray
        η^e, shaped like ``radius_fourth_power``.

    Examples
    --------
    >>> sgd_effective_lr(0.1, 16.0)
    0.025
    >>> sgd_effective_lr(0.1, [1.0, 16.0], weight_decay=0.5).round(6).tolist()
    [0.105263, 0.026316]
    """
    eta = require_positive("learning_rate", learning_rate)
    lam = require_weight_decay(weight_decay)
    product = require_decay_product(eta, lam, "the effective learning rate of SGD + L2")
    w = require_array_in_range("radius_fourth_power", radius_fourth_power, 0.0, low_open=True)
    with np.errstate(over="ignore"):
        value = eta / ((1 - product) * np.sqrt(w))
    require_finite_result(value, "the effective learning rate", "learning_rate/r² overflows float64")
    return float(value) if value.ndim == 0 else value


def sgd_l2_collapse_radius(r0: float, learning_rate: float, weight_decay: float,
                           steps: Union[int, ArrayLike]) -> ArrayOrFloat:
    """The radius of SGD + L2 while the gradient on the sphere vanishes, r_k = r₀(1−ηλ)^k (Eq 3.25, g = 0).

    Near a minimum on the sphere, deterministic GD + L2 shrinks the weights by 1 − ηλ per step, so its effective
    learning rate η/((1−ηλ)r_k²) grows like (1−ηλ)^{−2k} until the minimum turns unstable: the collapse phase of
    the periodic behaviour of GD with weight decay (Lobacheva et al. 2021).

    Parameters
    ----------
    r0 : float
        ‖x₀‖ > 0 at the start of the collapse.
    learning_rate : float
        η > 0.
    weight_decay : float
        λ >= 0 with ηλ < 1.
    steps : int or array_like of int
        Step counts k >= 0 from the start of the collapse.

    Returns
    -------
    float or ndarray
        r_k, shaped like ``steps``.

    Examples
    --------
    >>> sgd_l2_collapse_radius(2.0, 0.1, 0.5, [0, 1, 2]).round(6).tolist()
    [2.0, 1.9, 1.805]
    """
    r0 = require_positive("r0", r0)
    eta = require_positive("learning_rate", learning_rate)
    lam = require_weight_decay(weight_decay)
    product = require_decay_product(eta, lam, "the collapse under weight decay")
    k, scalar = require_steps(steps)
    with np.errstate(under="ignore"):
        value = r0 * (1 - product) ** np.asarray(k, float)
    return float(value) if scalar else value


def sgd_l2_radius_map(radius_squared: Union[float, ArrayLike], learning_rate: float, weight_decay: float,
                      grad_norm: Union[float, ArrayLike]) -> ArrayOrFloat:
    """One step of the exact squared-radius map of SGD + L2, s ↦ ρs + η²g²/s with ρ = (1−ηλ)² (Eq 3.25).

    Parameters
    ----------
    radius_squared : float or array_like
        Squared radii s = r_k² > 0.
    learning_rate : float
        η > 0.
    weight_decay : float
        λ >= 0 with ηλ < 1.
    grad_norm : float or array_like
        g_k = ‖∇L(u_k)‖ >= 0 (broadcast against radius_squared).

    Returns
    -------
    float or ndarray
        r_{k+1}².

    Examples
    --------
    >>> round(sgd_l2_radius_map(2.0, 0.1, 0.1, 1.0), 6)
    1.9652
    """
    eta = require_positive("learning_rate", learning_rate)
    lam = require_weight_decay(weight_decay)
    require_decay_product(eta, lam, "sgd_l2_radius_map")
    s_arr = require_array_in_range("radius_squared", radius_squared, 0.0, low_open=True)
    g = require_array_in_range("grad_norm", grad_norm, 0.0)
    with np.errstate(over="ignore"):
        value = (1.0 - eta * lam) ** 2 * s_arr + (eta * g) ** 2 / s_arr
    require_finite_result(value, "the squared radius", "it overflows float64")
    return float(value) if value.ndim == 0 else value


def sgd_l2_invariant_interval(learning_rate: float, weight_decay: float, g_min: float,
                              g_max: float) -> InvariantInterval:
    """The invariant interval of SGD + L2 with bounded gradient norms, and the η^e bounds it implies (derived
    in this project).

    With ρ = (1−ηλ)², L = ηg_min/sqrt(1−ρ) and U = ηg_max/sqrt(1−ρ): if (g_min/g_max)² >= (1−ρ)/ρ and
    s₀ = r₀² ∈ [L, U], then s_k ∈ [L, U] for every k, so
    sqrt(ηλ(2−ηλ))/((1−ηλ)g_max) <= η_k^e <= sqrt(ηλ(2−ηλ))/((1−ηλ)g_min).

    Parameters
    ----------
    learning_rate : float
        η > 0.
    weight_decay : float
        λ > 0 with ηλ < 1.
    g_min, g_max : float
        0 < g_min <= g_max, bounds on ‖∇L(u_k)‖, with (g_min/g_max)² >= (1−ρ)/ρ (≈ 2ηλ).

    Returns
    -------
    InvariantInterval
        ``(lower_squared_radius, upper_squared_radius, min_effective_learning_rate,
        max_effective_learning_rate)``.

    Examples
    --------
    >>> interval = sgd_l2_invariant_interval(0.1, 1e-3, 1.0, 2.0)
    >>> round(interval.lower_squared_radius, 6), round(interval.max_effective_learning_rate, 6)
    (7.071245, 0.014143)
    """
    eta = require_positive("learning_rate", learning_rate)
    lam = require_positive("weight_decay", weight_decay)
    g_min = require_positive("g_min", g_min)
    g_max = require_positive("g_max", g_max)
    if g_min > g_max:
        raise ValueError(f"g_min must be <= g_max, got g_min = {g_min:g} > g_max = {g_max:g}")
    product = require_decay_product(eta, lam, "the invariant interval")
    one_minus_rho = product * (2.0 - product)
    rho = (1.0 - product) ** 2
    if (g_min / g_max) ** 2 < one_minus_rho / rho:
        raise ValueError(f"g_min and g_max: the invariant interval needs (g_min/g_max)² >= (1-ρ)/ρ = "
                         f"{one_minus_rho / rho:.6g} (ρ = (1 - learning_rate·weight_decay)²), got "
                         f"{(g_min / g_max) ** 2:.6g}")
    root = math.sqrt(one_minus_rho)
    values = np.array([eta * g_min / root, eta * g_max / root, root / ((1.0 - product) * g_max),
                       root / ((1.0 - product) * g_min)])
    require_finite_result(values, "the invariant interval", "the inputs overflow float64")
    return InvariantInterval(*(float(v) for v in values))


def sgd_l2_relaxation(r0: float, learning_rate: float, weight_decay: float, grad_norm: float,
                      steps: Union[int, ArrayLike]) -> ArrayOrFloat:
    """The ODE (order-2) relaxation of SGD + L2 to equilibrium, r_k⁴ ≈ r*⁴ + (r₀⁴ − r*⁴)e^{−4ηλk} (derived
    in this project).

    Valid while tan²θ_k = η²g²/r_k⁴ ≪ 1 (it fails when the first step is huge); r*⁴ = ηG²/(λ(2−ηλ)).

    Parameters
    ----------
    r0 : float
        ‖x₀‖ > 0.
    learning_rate, weight_decay : float
        η > 0, λ > 0 with ηλ < 1.
    grad_norm : float
        The constant gradient norm on the sphere G > 0.
    steps : int or array_like of int
        Step counts k >= 0.

    Returns
    -------
    float or ndarray
        r_k⁴, shaped like ``steps``.

    Examples
    --------
    >>> round(sgd_l2_relaxation(1.0, 0.1, 1e-3, 2.0, 1000), 4)
    66.6096
    """
    r0 = require_positive("r0", r0)
    equilibrium = sgd_l2_equilibrium(learning_rate, weight_decay, grad_norm)
    k, scalar = require_steps(steps)
    w_star = equilibrium.radius_fourth_power
    rate = -4.0 * float(learning_rate) * float(weight_decay) * np.asarray(k, float)  # log e^{−4ηλk}
    with np.errstate(over="ignore", invalid="ignore"):
        value = w_star + (np.float64(r0) ** 4 - w_star) * np.exp(rate)  # r0⁴ = inf, not OverflowError
        # r0⁴ beyond float64 while r0⁴e^{−4ηλk} is not: w*(1 − e^{−4ηλk}) + e^{4 log r0 − 4ηλk}
        fallback = w_star * -np.expm1(rate) + np.exp(4.0 * math.log(r0) + rate)
        value = np.where(np.isfinite(value) | (rate == 0), value, fallback)  # k = 0: r0⁴ itself
    require_finite_result(value, "r_k⁴", "r0⁴·e^(−4·learning_rate·weight_decay·k) overflows float64")
    return float(value) if scalar else value


def sgd_l2_relaxation_law(r0: float, learning_rate: float, weight_decay: float, grad_norm: float,
                          steps: Union[int, ArrayLike]) -> RadiusLaw:
    """The radius and the effective learning rate of SGD + L2 along its ODE relaxation to equilibrium (derived
    in this project).

    r_k = (r_k⁴)^{1/4} with r_k⁴ of :func:`dynamics.spherical.sgd_l2_relaxation`, and η_k^e = η/((1−ηλ)r_k²)
    (:func:`dynamics.spherical.sgd_effective_lr`, Table 3.1).

    Parameters
    ----------
    r0 : float
        ‖x₀‖ > 0.
    learning_rate, weight_decay : float
        η > 0, λ > 0 with ηλ < 1.
    grad_norm : float
        The constant gradient norm on the sphere G > 0.
    steps : int or array_like of int
        Step counts k >= 0.

    Returns
    -------
    RadiusLaw
        ``(radius, effective_learning_rate)``, shaped like ``steps``.

    Examples
    --------
    >>> law = sgd_l2_relaxation_law(1.0, 0.1, 1e-3, 2.0, [0, 1000])
    >>> law.radius.round(4).tolist(), law.effective_learning_rate.round(6).tolist()
    ([1.0, 2.8568], [0.10001, 0.012254])
    """
    relaxed = sgd_l2_relaxation(r0, learning_rate, weight_decay, grad_norm, steps)
    return RadiusLaw(relaxed ** 0.25, sgd_effective_lr(learning_rate, relaxed, weight_decay))


def sgd_order2_radius4(r0: float, learning_rate: Union[float, ArrayLike], grad_norms: ArrayLike,
                       weight_decay: float = 0.0) -> np.ndarray:
    """The order-2 radius of SGD + L2 behind Theorem 4: w̃_{k+1} = ρ²w̃_k + 2ρη_k²g_k², w̃₀ = r₀⁴ (Roburin
    (thesis), Theorem 4; derived in this project).

    It drops the term η⁴g⁴/w of the exact recursion w_{k+1} = ρ²w_k + 2ρη²g_k² + η⁴g_k⁴/w_k, so w̃_k <= r_k⁴;
    with λ = 0 it is P_k of the λ = 0 SGD sandwich (the thesis's r_k² ≈ sqrt(r₀⁴ + 2Σ η_i²g_i²)). Compiled (numba).

    Parameters
    ----------
    r0 : float
        ‖x₀‖ > 0.
    learning_rate : float or array_like, shape (n_steps,)
        η_k > 0.
    grad_norms : array_like, shape (n_steps,)
        g_k = ‖∇L(u_k)‖ >= 0.
    weight_decay : float
        λ >= 0 with η_kλ < 1 (ρ_k = (1−η_kλ)²).

    Returns
    -------
    ndarray, shape (n_steps + 1,)
        w̃_0..w̃_{n_steps}.

    Examples
    --------
    >>> sgd_order2_radius4(1.0, 0.1, [1.0, 1.0]).round(6).tolist()
    [1.0, 1.02, 1.04]
    """
    r0, g, eta, lam = require_radius_recursion_args(r0, learning_rate, grad_norms, weight_decay, "sgd_order2_radius4")
    with np.errstate(over="ignore"):
        w0 = np.float64(r0) ** 4  # inf, not OverflowError
    require_finite_result(w0, "r0**4", "r0 must be <= 1.1e77 for the order-2 radius r0⁴ to be a double")
    w = sgd_order2_kernel(float(w0), eta, g, lam)
    return require_finite_result(w, "the order-2 radius", "the increments 2ρη²g² overflow float64")


def adam_srt_radius(r0: float, learning_rate: float, dimension: int, steps: Union[int, ArrayLike]) -> ArrayOrFloat:
    """The radius of Adam w/o (abc) with β₁ = 0, λ = 0, ε = 0 and a constant gradient norm: r_k² = r₀² + η²dk
    (derived in this project).

    Every step has ‖Δx_k‖ = η√d exactly and is orthogonal to x_k; the effective learning rate
    η√d/(G·r_k) decays like k^{−1/2}, asymptotically independent of η and G.

    Parameters
    ----------
    r0 : float
        ‖x₀‖ > 0.
    learning_rate : float
        η > 0.
    dimension : int
        d >= 1, the size of the radially invariant group.
    steps : int or array_like of int
        Step counts k >= 0.

    Returns
    -------
    float or ndarray
        r_k, shaped like ``steps``.

    Examples
    --------
    >>> round(adam_srt_radius(1.0, 0.01, 64, 10000), 6)
    8.062258
    """
    r0 = require_positive("r0", r0)
    eta = require_positive("learning_rate", learning_rate)
    d = require_integer("dimension", dimension, 1)
    k, scalar = require_steps(steps)
    with np.errstate(over="ignore"):
        value = np.sqrt(r0 * r0 + eta * eta * d * np.asarray(k, float))
    require_finite_result(value, "the radius", "r0² or learning_rate²·dimension·steps overflows float64")
    return float(value) if scalar else value


def adam_srt_radius_law(r0: float, learning_rate: float, dimension: int, grad_norm: float,
                        steps: Union[int, ArrayLike]) -> RadiusLaw:
    """The radius r_k = sqrt(r₀² + η²dk) of Adam w/o (abc) (β₁ = 0, λ = 0, ε = 0, constant gradient norm G on the
    sphere) and its effective learning rate η_k^e = η√d/(G r_k) (derived in this project from Roburin (thesis),
    Algorithm 1).

    Parameters
    ----------
    r0 : float
        ‖x₀‖ > 0.
    learning_rate : float
        η > 0.
    dimension : int
        d >= 1, the size of the radially invariant group.
    grad_norm : float
        G > 0, the constant gradient norm on the sphere.
    steps : int or array_like of int
        Step counts k >= 0.

    Returns
    -------
    RadiusLaw
        ``(radius, effective_learning_rate)``, shaped like ``steps``.

    Examples
    --------
    >>> law = adam_srt_radius_law(1.0, 0.01, 64, 2.0, 10000)
    >>> round(law.radius, 6), round(law.effective_learning_rate, 6)
    (8.062258, 0.004961)
    """
    radius = adam_srt_radius(r0, learning_rate, dimension, steps)
    eta = require_positive("learning_rate", learning_rate)
    d = require_integer("dimension", dimension, 1)
    g = require_positive("grad_norm", grad_norm)
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        effective = eta * math.sqrt(d) / (g * np.asarray(radius))
    require_finite_result(effective, "the effective learning rate", "learning_rate·sqrt(dimension)/(grad_norm·r0) "
                          "leaves float64")
    return RadiusLaw(radius, float(effective) if effective.ndim == 0 else effective)


def adagradg_equivalent_params(learning_rate: float, weight_decay: float, r0: float) -> AdaGradGParameters:
    """The AdaGradG parameters that match SGD + L2 (Theorem 4 of Roburin et al. 2022): β = (1−ηλ)⁴,
    η_AGG = (2β)^{−1/2}, v₀ = r₀⁴/(2η²β^{1/2}).

    SGD + L2 (η, λ, no momentum) from x₀ = r₀u₀ and AdaGradG (β, η_AGG, v₀) from u₀ have the same effective learning
    rate at order 2 in the step (exactly: AdaGradG's is η/((1−ηλ)sqrt(w̃_k)) with w̃ of
    :func:`dynamics.spherical.sgd_order2_radius4`, against SGD's η/((1−ηλ)r_k²)). Each group has its own r₀, hence its
    own v₀.

    Parameters
    ----------
    learning_rate : float
        The SGD learning rate η > 0.
    weight_decay : float
        λ >= 0 with ηλ < 1.
    r0 : float
        The group's initial radius ‖x₀‖ > 0.

    Returns
    -------
    AdaGradGParameters
        ``(beta, learning_rate, v0)``.

    Examples
    --------
    >>> params = adagradg_equivalent_params(1e-2, 1e-3, 1.0)   # App. C.1's numbers
    >>> round(params.beta, 5), round(params.learning_rate, 4)
    (0.99996, 0.7071)
    """
    eta = require_positive("learning_rate", learning_rate)
    lam = require_weight_decay(weight_decay)
    r0 = require_positive("r0", r0)
    product = require_decay_product(eta, lam, "Theorem 4")
    beta = (1.0 - product) ** 4
    # mantissas and exponents apart: r0⁴ or η² may leave float64 where their quotient does not
    v0 = require_finite_product([r0, r0, r0, r0], [2.0, eta, eta, math.sqrt(beta)], what="v0",
                                hint="r0**4/learning_rate² overflows float64")
    if v0 == 0.0:
        raise ValueError(f"v0 = r0**4/(2·learning_rate²·β^(1/2)) underflows to 0 in float64, got r0 = {r0:g} and "
                         f"learning_rate = {eta:g}")
    return AdaGradGParameters(beta, 1.0 / math.sqrt(2.0 * beta), v0)


def adagrad_matched_learning_rate(learning_rate: float, grad_norm: float, dimension: int) -> float:
    """The learning rate of element-wise AdaGrad whose first step has the length of SGD's, η‖g̃₀‖/√d.

    From v₀ = 0 and ε = 0, AdaGrad's first step is −η_AG sign(g̃₀), of norm η_AG√d, and SGD's is −ηg̃₀, of norm
    η‖g̃₀‖ (g̃₀ = ∇L(x₀) + λx₀): the baseline that Theorem 4's AdaGradG is compared with (thesis Fig 3.4).

    Parameters
    ----------
    learning_rate : float
        SGD's η > 0.
    grad_norm : float
        ‖g̃₀‖ > 0, the norm of the first (Euclidean) gradient, L2 term included.
    dimension : int
        d >= 1, the number of weights AdaGrad divides element-wise.

    Returns
    -------
    float
        η_AG = η‖g̃₀‖/√d.

    Examples
    --------
    >>> adagrad_matched_learning_rate(0.01, 2.0, 16)
    0.005
    """
    eta = require_positive("learning_rate", learning_rate)
    g = require_positive("grad_norm", grad_norm)
    d = require_integer("dimension", dimension, 1)
    value = eta * g / math.sqrt(d)
    if not (math.isfinite(value) and value > 0.0):
        raise ValueError(f"learning_rate·grad_norm/sqrt(dimension) must be a positive double, got "
                         f"{eta:g}·{g:g}/sqrt({d}) = {value:g}")
    return value


def exponential_lr_schedule(learning_rate: float, weight_decay: float) -> GeometricSchedule:
    """The schedule η_k = η(1−ηλ)^{−2k−1} that makes SGD without L2 equivalent to SGD + L2 (Eq 3.44).

    SGD(x₀, λ, η) and SGD(x₀, λ = 0, η_k) give the same directions u_k, with r_k(schedule) =
    (1−ηλ)^{−k} r_k(L2) (x_k := (1−ηλ)^{−k}x̃_k and Lemma 1; derived in this project).

    Parameters
    ----------
    learning_rate : float
        η > 0.
    weight_decay : float
        λ >= 0 with ηλ < 1.

    Returns
    -------
    GeometricSchedule
        A callable k ↦ η_k (ints or arrays of step counts).

    Examples
    --------
    >>> schedule = exponential_lr_schedule(0.1, 0.5)
    >>> [round(schedule(k), 6) for k in range(3)]
    [0.105263, 0.116635, 0.129236]
    """
    eta = require_positive("learning_rate", learning_rate)
    lam = require_weight_decay(weight_decay)
    product = require_decay_product(eta, lam, "the exponential learning-rate schedule")
    return GeometricSchedule(eta / (1.0 - product), (1.0 - product) ** -2)


def li_arora_equivalent(learning_rate: float, weight_decay: float, momentum: float,
                        x0: ArrayLike) -> LiAroraEquivalent:
    """The exact equivalent without weight decay of SGD-M + L2 (derived in this project; Li & Arora 2020,
    Thm 1.1).

    With α the larger root of α² − (1+γ−ηλ)α + γ = 0, SGD-M(η, λ, γ; x₀, m₋₁ = 0) and SGD-M(η̃_k = ηα^{−2k−1},
    λ = 0, γ; x₀) started with the radial buffer m̃₋₁ = −(1−α)x₀/(ηα) satisfy x̃_k = α^{−k}x_k exactly.
    At γ = 0, α = 1 − ηλ and this is Eq 3.44.

    Parameters
    ----------
    learning_rate : float
        η > 0.
    weight_decay : float
        λ >= 0 with ηλ <= (1 − √γ)² (real roots).
    momentum : float
        γ in [0, 1).
    x0 : array_like, shape (d,)
        The initial weights (nonzero).

    Returns
    -------
    LiAroraEquivalent
        ``(alpha, schedule, initial_buffer)``.

    Examples
    --------
    >>> eq = li_arora_equivalent(0.05, 1e-3, 0.9, [1.0, 0.0])
    >>> round(eq.alpha, 8), round(eq.schedule(0), 8), eq.initial_buffer.round(8).tolist()
    (0.99949773, 0.05002513, [-0.01005048, -0.0])
    """
    eta = require_positive("learning_rate", learning_rate)
    lam = require_weight_decay(weight_decay)
    gamma = require_momentum(momentum)
    x0 = require_weight_vector("x0", x0)
    product = eta * lam
    if product > (1.0 - math.sqrt(gamma)) ** 2:
        raise ValueError(f"learning_rate * weight_decay must be <= (1 - sqrt(momentum))² = "
                         f"{(1.0 - math.sqrt(gamma)) ** 2:.6g} for a real equivalent (α² − (1+γ−ηλ)α + γ = 0 has "
                         f"complex roots), got {product:.6g}")
    b = 1.0 + gamma - product
    discriminant = max((1.0 - gamma) ** 2 - product * (2.0 * (1.0 + gamma) - product), 0.0)
    alpha = 0.5 * (b + math.sqrt(discriminant))
    if not alpha > 0.0:  # γ = 0 and ηλ = 1: α = 1 − ηλ = 0 (H1 fails)
        raise ValueError(f"learning_rate * weight_decay must be < 1 at momentum 0 (α = 1 - ηλ must be > 0), got "
                         f"{product:.6g}")
    # mantissas and exponents apart: η·α or α² may underflow where the quotients are doubles
    hint = (f"α = {alpha:.6g} is too small against learning_rate = {eta:g} (learning_rate·weight_decay close to "
            f"(1 - sqrt(momentum))²)")
    schedule = GeometricSchedule(require_finite_product([eta], [alpha], "the initial learning rate η/α", hint),
                                 require_finite_product([1.0], [alpha, alpha], "the ratio α^(-2)", hint))
    buffer = require_finite_product([-(1.0 - alpha), x0], [eta, alpha], "the initial buffer -(1 - α)x0/(ηα)", hint)
    return LiAroraEquivalent(alpha, schedule, np.asarray(buffer, dtype=np.float64))


def _nu(terms, d, beta1, beta2):
    n = terms.size
    t = np.arange(1, n + 1, dtype=np.float64)
    running = np.empty(n)
    acc = 0.0
    for k in range(n):  # Σ_{i<=k} β₂^{k−i}·term_i, accumulated forwards
        acc = beta2 * acc + terms[k]
        running[k] = acc
    scale = (_one_minus_power(beta1, t) / (1.0 - beta1)) * np.sqrt((1.0 - beta2) / _one_minus_power(beta2, t))
    return scale * np.sqrt(running / d)


def adam_nu(sphere_grad_norms: ArrayLike, radii: ArrayLike, dimension: int, betas: Tuple[float, float] = (0.9, 0.999),
            weight_decay: float = 0.0) -> np.ndarray:
    """Adam's second-order moment on the sphere ν_k = r_k d^{−1/2}‖b_k‖ (Eq 3.42; ε = 0, v₋₁ = 0).

    ν_k = d^{−1/2}((1−β₁^{k+1})/(1−β₁))((1−β₂)/(1−β₂^{k+1}))^{1/2}(Σ_{i<=k} β₂^{k−i}(r_k²/r_i²)‖g_i + λr_i²u_i‖²)^{1/2}
    with ‖g_i + λr_i²u_i‖² = g_i² + λ²r_i⁴ (g_i ⊥ u_i). Adam's effective learning rate is
    (η/(rν))(1 − η⟨c,u⟩/(rν))^{−1} (Eq 3.41).

    Parameters
    ----------
    sphere_grad_norms : array_like, shape (n,)
        g_i = ‖∇L(u_i)‖ along the run.
    radii : array_like, shape (n,)
        r_i = ‖x_i‖ > 0 at the same steps.
    dimension : int
        d, the size of the group.
    betas : (float, float)
        (β₁, β₂) in [0, 1).
    weight_decay : float
        λ >= 0 (coupled L2).

    Returns
    -------
    ndarray, shape (n,)
        ν_0..ν_{n−1}.

    Examples
    --------
    >>> adam_nu([2.0], [3.0], 4).round(6).tolist()   # first step: ν₀ = d^{-1/2} g₀
    [1.0]
    """
    g, r, d, beta1, beta2, lam = require_second_moment_args(sphere_grad_norms, radii, dimension, betas, weight_decay)
    terms = (g * g + (lam * r * r) ** 2) / (r * r)
    return require_finite_result(r * _nu(terms, d, beta1, beta2), "ν", "the inputs overflow float64")


def adam_nu_R(sphere_grad_norms: ArrayLike, radii: ArrayLike, dimension: int,
              betas: Tuple[float, float] = (0.9, 0.999), weight_decay: float = 0.0) -> np.ndarray:
    """The second-order moment on the sphere of Adam w/o (abc), ν_k^R (Roburin (thesis),
    §3.5.2, corrected; Eqs 3.79-3.81).

    ν_k^R = r_k(1−β₁^{k+1})/(1−β₁)·sqrt(v_k/(1−β₂^{k+1}))
    = d^{−1/2}((1−β₁^{k+1})/(1−β₁))((1−β₂)/(1−β₂^{k+1}))^{1/2}(Σ_{i<=k} β₂^{k−i}‖∇L(u_i) + λr_i²u_i‖²)^{1/2}:
    the R rescaling of v removes the radius ratios of Eq 3.42. The source prints ν^R = r_k v_k and λr_ir_k in the
    sum (both wrong; see the theory note, docs/theory/spherical.md). The effective learning rate of (ab) and (abc)
    is η/(r_kν_k − ηλr_k²).

    Parameters
    ----------
    sphere_grad_norms : array_like, shape (n,)
        g_i = ‖∇L(u_i)‖.
    radii : array_like, shape (n,)
        r_i > 0.
    dimension : int
        d >= 1.
    betas : (float, float)
        (β₁, β₂) in [0, 1).
    weight_decay : float
        λ >= 0.

    Returns
    -------
    ndarray, shape (n,)
        ν_0^R..ν_{n−1}^R.

    Examples
    --------
    >>> adam_nu_R([2.0, 2.0], [3.0, 5.0], 4, betas=(0.0, 0.5)).round(6).tolist()
    [1.0, 1.0]
    """
    g, r, d, beta1, beta2, lam = require_second_moment_args(sphere_grad_norms, radii, dimension, betas, weight_decay)
    terms = g * g + (lam * r * r) ** 2
    return require_finite_result(_nu(terms, d, beta1, beta2), "ν^R", "the inputs overflow float64")
