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
from ._docs import fill_doc

__all__ = ["adagrad_matched_learning_rate", "adagradg_equivalent_params", "adam_nu", "adam_nu_R", "adam_srt_radius",
           "adam_srt_radius_law", "effective_lr_bounds_sgd", "exponential_lr_schedule", "li_arora_equivalent",
           "sgd_effective_lr", "sgd_l2_collapse_radius", "sgd_l2_equilibrium", "sgd_l2_invariant_interval",
           "sgd_l2_radius_map", "sgd_l2_relaxation", "sgd_l2_relaxation_law", "sgd_lambda0_sandwich",
           "sgd_order2_radius4", "sgd_radius_sequence", "sgdm_l2_equilibrium", "sgdm_l2_relaxation",
           "sgdm_l2_relaxation_steps"]


@fill_doc
def sgd_l2_equilibrium(learning_rate: float, weight_decay: float, grad_norm: float) -> Equilibrium:
    r"""The exact fixed point of SGD + L2 (no momentum) with a constant gradient norm on the sphere (derived in
    this project).

    .. math::

        r_*^4 = \frac{\eta G^2}{\lambda (2 - \eta\lambda)}, \qquad
        \eta^e_* = \frac{\sqrt{\eta\lambda (2 - \eta\lambda)}}{(1 - \eta\lambda) G}
        = \frac{\eta}{(1 - \eta\lambda) r_*^2}

    and

    .. math::

        \theta_* = \operatorname{atan2}\left(\sqrt{\eta\lambda (2 - \eta\lambda)}, 1 - \eta\lambda\right)
        = \arccos(1 - \eta\lambda),

    the angular step per iteration (independent of :math:`G`).

    Parameters
    ----------
    %(learning_rate)s
    weight_decay : float
        :math:`\lambda > 0`, with :math:`\eta\lambda < 1` (hypothesis H1). At :math:`\lambda = 0` there is no
        equilibrium (see :func:`dynamics.spherical.effective_lr_bounds_sgd`).
    grad_norm : float
        :math:`G = \lVert \nabla L(u) \rVert > 0`, the norm of the (tangent) gradient on the unit sphere.

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


@fill_doc
def sgdm_l2_equilibrium(learning_rate: float, weight_decay: float, momentum: float, grad_norm: float) -> Equilibrium:
    r"""The leading-order equilibrium of SGD-M + L2 in the random-walk noise model (derived in this project;
    Wan et al. 2021).

    .. math::

        r_*^4 = \frac{\eta G^2}{2\lambda (1 - \gamma)}, \qquad
        \eta^e = \frac{\eta}{r_*^2} = \frac{\sqrt{2\eta\lambda (1 - \gamma)}}{G},

    and the rms angular update :math:`\sqrt{2\eta\lambda / (1 + \gamma)}`.
    Leading order in :math:`\eta\lambda`: at :math:`\gamma = 0` it differs from
    :func:`dynamics.spherical.sgd_l2_equilibrium` by :math:`O(\eta\lambda)` relative.

    Parameters
    ----------
    %(learning_rate)s
    %(weight_decay_positive)s
    momentum : float
        :math:`\gamma \in [0, 1)` (heavy ball, dampening 0: :math:`m_k = \gamma m_{k-1} + \nabla L + \lambda x`).
    grad_norm : float
        :math:`G = \sqrt{\mathbb{E} \lVert \nabla L(u) \rVert^2} > 0`, the rms gradient norm on the sphere.

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


@fill_doc
def sgdm_l2_relaxation_steps(learning_rate: float, weight_decay: float, momentum: float) -> float:
    r"""The number of steps :math:`(1 - \gamma) / (4\eta\lambda)` over which SGD-M + L2 relaxes to its equilibrium
    (random-walk model).

    Parameters
    ----------
    learning_rate, weight_decay : float
        :math:`\eta > 0` and :math:`\lambda > 0`.
    %(momentum)s

    Returns
    -------
    float
        The relaxation time in steps (:math:`r^4 - r_*^4 \propto \exp(-k / \mathrm{time})`).

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


@fill_doc
def sgdm_l2_relaxation(r0: float, learning_rate: float, weight_decay: float, momentum: float, grad_norm: float,
                       steps: Union[int, ArrayLike]) -> ArrayOrFloat:
    r"""The relaxation of SGD-M + L2 to its random-walk equilibrium,
    :math:`r_k^4 \approx r_*^4 + (r_0^4 - r_*^4) e^{-k/\tau}` (random-walk model, derived in this project).

    :math:`r_*^4 = \eta G^2 / (2\lambda (1 - \gamma))` is :func:`dynamics.spherical.sgdm_l2_equilibrium`'s
    leading-order equilibrium and :math:`\tau = (1 - \gamma) / (4\eta\lambda)`
    :func:`dynamics.spherical.sgdm_l2_relaxation_steps` (Wan et al. 2021); a law for the mean :math:`r_k^4` under
    random-walk noise.

    Parameters
    ----------
    %(r0)s
    %(learning_rate_weight_decay)s
    %(momentum)s
    grad_norm : float
        :math:`G > 0`, the rms gradient norm on the sphere.
    %(steps)s

    Returns
    -------
    float or ndarray
        :math:`r_k^4`, shaped like ``steps``.

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


@fill_doc
def effective_lr_bounds_sgd(learning_rate: float, r0: float, g_min: float, g_max: float,
                            steps: Union[int, ArrayLike]) -> EffectiveLRBounds:
    r"""Bounds on :math:`\eta_k^e = \eta / r_k^2` for plain SGD (:math:`\lambda = 0`, constant :math:`\eta`) with
    :math:`g_{\min} \le \lVert \nabla L(u_i) \rVert \le g_{\max}`: the constant-:math:`\eta` :math:`\lambda = 0`
    SGD bounds (derived in this project).

    For :math:`k \ge 1`, with :math:`G = g_{\max}`,

    .. math::

        \frac{\eta}{\sqrt{r_0^4 + 2\eta^2 G^2 k + \eta^4 G^4 / r_0^4
        + \frac{\eta^2 G^4}{2 g_{\min}^2} \ln\left(1 + \frac{2\eta^2 g_{\min}^2 (k - 1)}{r_0^4}\right)}}
        \le \eta_k^e \le \frac{\eta}{\sqrt{r_0^4 + 2\eta^2 g_{\min}^2 k}};

    at :math:`k = 0` both equal :math:`\eta / r_0^2`. So :math:`\eta_k^e = \Theta(k^{-1/2})`, asymptotically
    independent of :math:`\eta`.

    Parameters
    ----------
    %(learning_rate)s
    r0 : float
        The initial radius :math:`\lVert x_0 \rVert > 0`.
    g_min, g_max : float
        :math:`0 < g_{\min} \le g_{\max}`, bounds on the gradient norm on the sphere for all steps :math:`i < k`.
    steps : int or array_like of int
        Step counts :math:`k \ge 0` at which to bound :math:`\eta_k^e`.

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


@fill_doc
def sgd_lambda0_sandwich(r0: float, learning_rates: Union[float, ArrayLike], grad_norms: ArrayLike) -> RadiusSandwich:
    r"""The :math:`\lambda = 0` SGD sandwich :math:`P_k \le r_k^4 \le P_k + \sum_{i<k} \eta_i^4 g_i^4 / P_i` for SGD
    without weight decay, any schedule.

    :math:`P_k = r_0^4 + 2\sum_{i<k} \eta_i^2 g_i^2` (the thesis's order-2 solution :math:`r_k^2 \approx \sqrt{P_k}`);
    the exact recursion is

    .. math::

        r_{k+1}^4 = r_k^4 + 2\eta_k^2 g_k^2 + \eta_k^4 g_k^4 / r_k^4.

    Parameters
    ----------
    %(r0)s
    learning_rates : float or array_like, shape (n_steps,)
        :math:`\eta_i > 0` (one value for a constant learning rate).
    grad_norms : array_like, shape (n_steps,)
        :math:`g_i = \lVert \nabla L(u_i) \rVert \ge 0`, the gradient norms on the sphere along the run.

    Returns
    -------
    RadiusSandwich
        ``(lower, upper)``, bounds on :math:`r_k^4` for k = 0..n_steps.

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


@fill_doc
def sgd_radius_sequence(r0: float, learning_rate: Union[float, ArrayLike], grad_norms: ArrayLike,
                        weight_decay: float = 0.0) -> np.ndarray:
    r"""The exact radius of SGD (+ L2, no momentum) from the gradient norms on the sphere (Eqs 3.25, 3.46).

    .. math::

        r_{k+1}^2 = (1 - \eta_k\lambda)^2 r_k^2 + \eta_k^2 g_k^2 / r_k^2:

    with :math:`\lambda = 0` this is Pythagorean growth
    :math:`\lVert x_{k+1} \rVert^2 = \lVert x_k \rVert^2 + \eta_k^2 \lVert \nabla L(x_k) \rVert^2` (Lemma 1:
    :math:`\nabla L(x) \perp x` and :math:`\lVert \nabla L(x) \rVert = g / r`). Compiled (numba).

    Parameters
    ----------
    %(r0)s
    learning_rate : float or array_like, shape (n_steps,)
        :math:`\eta_k > 0`.
    grad_norms : array_like, shape (n_steps,)
        :math:`g_k = \lVert \nabla L(u_k) \rVert \ge 0`.
    weight_decay : float
        :math:`\lambda \ge 0` with :math:`\eta_k\lambda < 1`.

    Returns
    -------
    ndarray, shape (n_steps + 1,)
        :math:`r_0, \dots, r_{n_\mathrm{steps}}`.

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


@fill_doc
def sgd_effective_lr(learning_rate: float, radius_fourth_power: Union[float, ArrayLike],
                     weight_decay: float = 0.0) -> ArrayOrFloat:
    r"""The effective learning rate of SGD (+ L2, no momentum) at radius :math:`r`,
    :math:`\eta^e = \eta / ((1 - \eta\lambda) r^2)` (Table 3.1).

    Given :math:`r^4`: with :math:`\lambda = 0` it is :math:`\eta / r^2` (Eq 3.46); with the order-2 radius
    :math:`\tilde w_k` of :func:`dynamics.spherical.sgd_order2_radius4` in place of :math:`r_k^4` it is the
    effective learning rate :math:`\eta_\mathrm{AGG} / \sqrt{v_k}` of the matching AdaGradG run (Theorem 4).

    Parameters
    ----------
    %(learning_rate)s
    radius_fourth_power : float or array_like
        :math:`r^4 > 0`.
    %(weight_decay)s

    Returns
    -------
    float or ndarray
        :math:`\eta^e`, shaped like ``radius_fourth_power``.

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


@fill_doc
def sgd_l2_collapse_radius(r0: float, learning_rate: float, weight_decay: float,
                           steps: Union[int, ArrayLike]) -> ArrayOrFloat:
    r"""The radius of SGD + L2 while the gradient on the sphere vanishes, :math:`r_k = r_0 (1 - \eta\lambda)^k`
    (Eq 3.25, :math:`g = 0`).

    Near a minimum on the sphere, deterministic GD + L2 shrinks the weights by :math:`1 - \eta\lambda` per step, so
    its effective learning rate :math:`\eta / ((1 - \eta\lambda) r_k^2)` grows like :math:`(1 - \eta\lambda)^{-2k}`
    until the minimum turns unstable: the collapse phase of the periodic behaviour of GD with weight decay
    (Lobacheva et al. 2021).

    Parameters
    ----------
    r0 : float
        :math:`\lVert x_0 \rVert > 0` at the start of the collapse.
    %(learning_rate)s
    %(weight_decay)s
    steps : int or array_like of int
        Step counts :math:`k \ge 0` from the start of the collapse.

    Returns
    -------
    float or ndarray
        :math:`r_k`, shaped like ``steps``.

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


@fill_doc
def sgd_l2_radius_map(radius_squared: Union[float, ArrayLike], learning_rate: float, weight_decay: float,
                      grad_norm: Union[float, ArrayLike]) -> ArrayOrFloat:
    r"""One step of the exact squared-radius map of SGD + L2, :math:`s \mapsto \rho s + \eta^2 g^2 / s` with
    :math:`\rho = (1 - \eta\lambda)^2` (Eq 3.25).

    Parameters
    ----------
    radius_squared : float or array_like
        Squared radii :math:`s = r_k^2 > 0`.
    %(learning_rate)s
    %(weight_decay)s
    grad_norm : float or array_like
        :math:`g_k = \lVert \nabla L(u_k) \rVert \ge 0` (broadcast against radius_squared).

    Returns
    -------
    float or ndarray
        :math:`r_{k+1}^2`.

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


@fill_doc
def sgd_l2_invariant_interval(learning_rate: float, weight_decay: float, g_min: float,
                              g_max: float) -> InvariantInterval:
    r"""The invariant interval of SGD + L2 with bounded gradient norms, and the :math:`\eta^e` bounds it implies
    (derived in this project).

    With :math:`\rho = (1 - \eta\lambda)^2`, :math:`L = \eta g_{\min} / \sqrt{1 - \rho}` and
    :math:`U = \eta g_{\max} / \sqrt{1 - \rho}`: if :math:`(g_{\min} / g_{\max})^2 \ge (1 - \rho) / \rho` and
    :math:`s_0 = r_0^2 \in [L, U]`, then :math:`s_k \in [L, U]` for every :math:`k`, so

    .. math::

        \frac{\sqrt{\eta\lambda (2 - \eta\lambda)}}{(1 - \eta\lambda) g_{\max}} \le \eta_k^e
        \le \frac{\sqrt{\eta\lambda (2 - \eta\lambda)}}{(1 - \eta\lambda) g_{\min}}.

    Parameters
    ----------
    %(learning_rate)s
    %(weight_decay_positive)s
    g_min, g_max : float
        :math:`0 < g_{\min} \le g_{\max}`, bounds on :math:`\lVert \nabla L(u_k) \rVert`, with
        :math:`(g_{\min} / g_{\max})^2 \ge (1 - \rho) / \rho` (:math:`\approx 2\eta\lambda`).

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


@fill_doc
def sgd_l2_relaxation(r0: float, learning_rate: float, weight_decay: float, grad_norm: float,
                      steps: Union[int, ArrayLike]) -> ArrayOrFloat:
    r"""The ODE (order-2) relaxation of SGD + L2 to equilibrium,
    :math:`r_k^4 \approx r_*^4 + (r_0^4 - r_*^4) e^{-4\eta\lambda k}` (derived in this project).

    Valid while :math:`\tan^2\theta_k = \eta^2 g^2 / r_k^4 \ll 1` (it fails when the first step is huge);
    :math:`r_*^4 = \eta G^2 / (\lambda (2 - \eta\lambda))`.

    Parameters
    ----------
    %(r0)s
    %(learning_rate_weight_decay)s
    grad_norm : float
        The constant gradient norm on the sphere :math:`G > 0`.
    %(steps)s

    Returns
    -------
    float or ndarray
        :math:`r_k^4`, shaped like ``steps``.

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


@fill_doc
def sgd_l2_relaxation_law(r0: float, learning_rate: float, weight_decay: float, grad_norm: float,
                          steps: Union[int, ArrayLike]) -> RadiusLaw:
    r"""The radius and the effective learning rate of SGD + L2 along its ODE relaxation to equilibrium (derived
    in this project).

    :math:`r_k = (r_k^4)^{1/4}` with :math:`r_k^4` of :func:`dynamics.spherical.sgd_l2_relaxation`, and
    :math:`\eta_k^e = \eta / ((1 - \eta\lambda) r_k^2)` (:func:`dynamics.spherical.sgd_effective_lr`, Table 3.1).

    Parameters
    ----------
    %(r0)s
    %(learning_rate_weight_decay)s
    grad_norm : float
        The constant gradient norm on the sphere :math:`G > 0`.
    %(steps)s

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


@fill_doc
def sgd_order2_radius4(r0: float, learning_rate: Union[float, ArrayLike], grad_norms: ArrayLike,
                       weight_decay: float = 0.0) -> np.ndarray:
    r"""The order-2 radius of SGD + L2 behind Theorem 4:
    :math:`\tilde w_{k+1} = \rho^2 \tilde w_k + 2\rho\eta_k^2 g_k^2`, :math:`\tilde w_0 = r_0^4` (Roburin
    (thesis), Theorem 4; derived in this project).

    It drops the term :math:`\eta^4 g^4 / w` of the exact recursion

    .. math::

        w_{k+1} = \rho^2 w_k + 2\rho\eta^2 g_k^2 + \eta^4 g_k^4 / w_k,

    so :math:`\tilde w_k \le r_k^4`; with :math:`\lambda = 0` it is :math:`P_k` of the :math:`\lambda = 0` SGD
    sandwich (the thesis's :math:`r_k^2 \approx \sqrt{r_0^4 + 2\sum \eta_i^2 g_i^2}`). Compiled (numba).

    Parameters
    ----------
    %(r0)s
    learning_rate : float or array_like, shape (n_steps,)
        :math:`\eta_k > 0`.
    grad_norms : array_like, shape (n_steps,)
        :math:`g_k = \lVert \nabla L(u_k) \rVert \ge 0`.
    weight_decay : float
        :math:`\lambda \ge 0` with :math:`\eta_k\lambda < 1` (:math:`\rho_k = (1 - \eta_k\lambda)^2`).

    Returns
    -------
    ndarray, shape (n_steps + 1,)
        :math:`\tilde w_0, \dots, \tilde w_{n_\mathrm{steps}}`.

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


@fill_doc
def adam_srt_radius(r0: float, learning_rate: float, dimension: int, steps: Union[int, ArrayLike]) -> ArrayOrFloat:
    r"""The radius of Adam w/o (abc) with :math:`\beta_1 = 0`, :math:`\lambda = 0`, :math:`\varepsilon = 0` and a
    constant gradient norm: :math:`r_k^2 = r_0^2 + \eta^2 d k` (derived in this project).

    Every step has :math:`\lVert \Delta x_k \rVert = \eta\sqrt{d}` exactly and is orthogonal to :math:`x_k`; the
    effective learning rate :math:`\eta\sqrt{d} / (G r_k)` decays like :math:`k^{-1/2}`, asymptotically independent
    of :math:`\eta` and :math:`G`.

    Parameters
    ----------
    %(r0)s
    %(learning_rate)s
    dimension : int
        :math:`d \ge 1`, the size of the radially invariant group.
    %(steps)s

    Returns
    -------
    float or ndarray
        :math:`r_k`, shaped like ``steps``.

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


@fill_doc
def adam_srt_radius_law(r0: float, learning_rate: float, dimension: int, grad_norm: float,
                        steps: Union[int, ArrayLike]) -> RadiusLaw:
    r"""The radius :math:`r_k = \sqrt{r_0^2 + \eta^2 d k}` of Adam w/o (abc) (:math:`\beta_1 = 0`, :math:`\lambda = 0`,
    :math:`\varepsilon = 0`, constant gradient norm :math:`G` on the sphere) and its effective learning rate
    :math:`\eta_k^e = \eta\sqrt{d} / (G r_k)` (derived in this project from Roburin (thesis), Algorithm 1).

    Parameters
    ----------
    %(r0)s
    %(learning_rate)s
    dimension : int
        :math:`d \ge 1`, the size of the radially invariant group.
    grad_norm : float
        :math:`G > 0`, the constant gradient norm on the sphere.
    %(steps)s

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


@fill_doc
def adagradg_equivalent_params(learning_rate: float, weight_decay: float, r0: float) -> AdaGradGParameters:
    r"""The AdaGradG parameters that match SGD + L2 (Theorem 4 of Roburin et al. 2022):
    :math:`\beta = (1 - \eta\lambda)^4`, :math:`\eta_\mathrm{AGG} = (2\beta)^{-1/2}`,
    :math:`v_0 = r_0^4 / (2\eta^2\beta^{1/2})`.

    SGD + L2 (:math:`\eta`, :math:`\lambda`, no momentum) from :math:`x_0 = r_0 u_0` and AdaGradG
    (:math:`\beta`, :math:`\eta_\mathrm{AGG}`, :math:`v_0`) from :math:`u_0` have the same effective learning rate at
    order 2 in the step (exactly: AdaGradG's is :math:`\eta / ((1 - \eta\lambda) \sqrt{\tilde w_k})` with
    :math:`\tilde w` of :func:`dynamics.spherical.sgd_order2_radius4`, against SGD's
    :math:`\eta / ((1 - \eta\lambda) r_k^2)`). Each group has its own :math:`r_0`, hence its own :math:`v_0`.

    Parameters
    ----------
    learning_rate : float
        The SGD learning rate :math:`\eta > 0`.
    %(weight_decay)s
    r0 : float
        The group's initial radius :math:`\lVert x_0 \rVert > 0`.

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
    r"""The learning rate of element-wise AdaGrad whose first step has the length of SGD's,
    :math:`\eta \lVert \tilde g_0 \rVert / \sqrt{d}`.

    From :math:`v_0 = 0` and :math:`\varepsilon = 0`, AdaGrad's first step is
    :math:`-\eta_\mathrm{AG} \operatorname{sign}(\tilde g_0)`, of norm :math:`\eta_\mathrm{AG} \sqrt{d}`, and SGD's is
    :math:`-\eta \tilde g_0`, of norm :math:`\eta \lVert \tilde g_0 \rVert`
    (:math:`\tilde g_0 = \nabla L(x_0) + \lambda x_0`): the baseline that Theorem 4's AdaGradG is compared with
    (thesis Fig 3.4).

    Parameters
    ----------
    learning_rate : float
        SGD's :math:`\eta > 0`.
    grad_norm : float
        :math:`\lVert \tilde g_0 \rVert > 0`, the norm of the first (Euclidean) gradient, L2 term included.
    dimension : int
        :math:`d \ge 1`, the number of weights AdaGrad divides element-wise.

    Returns
    -------
    float
        :math:`\eta_\mathrm{AG} = \eta \lVert \tilde g_0 \rVert / \sqrt{d}`.

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


@fill_doc
def exponential_lr_schedule(learning_rate: float, weight_decay: float) -> GeometricSchedule:
    r"""The schedule :math:`\eta_k = \eta (1 - \eta\lambda)^{-2k-1}` that makes SGD without L2 equivalent to SGD + L2
    (Eq 3.44).

    SGD(:math:`x_0, \lambda, \eta`) and SGD(:math:`x_0, \lambda = 0, \eta_k`) give the same directions :math:`u_k`,
    with :math:`r_k(\text{schedule}) = (1 - \eta\lambda)^{-k} r_k(\text{L2})`
    (:math:`x_k := (1 - \eta\lambda)^{-k} \tilde x_k` and Lemma 1; derived in this project).

    Parameters
    ----------
    %(learning_rate)s
    %(weight_decay)s

    Returns
    -------
    GeometricSchedule
        A callable :math:`k \mapsto \eta_k` (ints or arrays of step counts).

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


@fill_doc
def li_arora_equivalent(learning_rate: float, weight_decay: float, momentum: float,
                        x0: ArrayLike) -> LiAroraEquivalent:
    r"""The exact equivalent without weight decay of SGD-M + L2 (derived in this project; Li & Arora 2020,
    Thm 1.1).

    With :math:`\alpha` the larger root of :math:`\alpha^2 - (1 + \gamma - \eta\lambda)\alpha + \gamma = 0`,
    SGD-M(:math:`\eta, \lambda, \gamma; x_0, m_{-1} = 0`) and
    SGD-M(:math:`\tilde\eta_k = \eta\alpha^{-2k-1}, \lambda = 0, \gamma; x_0`) started with the radial buffer
    :math:`\tilde m_{-1} = -(1 - \alpha) x_0 / (\eta\alpha)` satisfy :math:`\tilde x_k = \alpha^{-k} x_k` exactly.
    At :math:`\gamma = 0`, :math:`\alpha = 1 - \eta\lambda` and this is Eq 3.44.

    Parameters
    ----------
    %(learning_rate)s
    weight_decay : float
        :math:`\lambda \ge 0` with :math:`\eta\lambda \le (1 - \sqrt{\gamma})^2` (real roots).
    %(momentum)s
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


@fill_doc
def adam_nu(sphere_grad_norms: ArrayLike, radii: ArrayLike, dimension: int, betas: Tuple[float, float] = (0.9, 0.999),
            weight_decay: float = 0.0) -> np.ndarray:
    r"""Adam's second-order moment on the sphere :math:`\nu_k = r_k d^{-1/2} \lVert b_k \rVert` (Eq 3.42;
    :math:`\varepsilon = 0`, :math:`v_{-1} = 0`).

    .. math::

        \nu_k = d^{-1/2} \frac{1 - \beta_1^{k+1}}{1 - \beta_1} \left(\frac{1 - \beta_2}{1 - \beta_2^{k+1}}\right)^{1/2}
        \left(\sum_{i \le k} \beta_2^{k-i} \frac{r_k^2}{r_i^2} \lVert g_i + \lambda r_i^2 u_i \rVert^2\right)^{1/2}

    with :math:`\lVert g_i + \lambda r_i^2 u_i \rVert^2 = g_i^2 + \lambda^2 r_i^4` (:math:`g_i \perp u_i`). Adam's
    effective learning rate is
    :math:`\frac{\eta}{r\nu} \left(1 - \frac{\eta \langle c, u \rangle}{r\nu}\right)^{-1}` (Eq 3.41).

    Parameters
    ----------
    sphere_grad_norms : array_like, shape (n,)
        :math:`g_i = \lVert \nabla L(u_i) \rVert` along the run.
    radii : array_like, shape (n,)
        :math:`r_i = \lVert x_i \rVert > 0` at the same steps.
    dimension : int
        :math:`d`, the size of the group.
    %(betas)s
    %(weight_decay_l2)s

    Returns
    -------
    ndarray, shape (n,)
        :math:`\nu_0, \dots, \nu_{n-1}`.

    Examples
    --------
    >>> adam_nu([2.0], [3.0], 4).round(6).tolist()   # first step: ν₀ = d^{-1/2} g₀
    [1.0]
    """
    g, r, d, beta1, beta2, lam = require_second_moment_args(sphere_grad_norms, radii, dimension, betas, weight_decay)
    terms = (g * g + (lam * r * r) ** 2) / (r * r)
    return require_finite_result(r * _nu(terms, d, beta1, beta2), "ν", "the inputs overflow float64")


@fill_doc
def adam_nu_R(sphere_grad_norms: ArrayLike, radii: ArrayLike, dimension: int,
              betas: Tuple[float, float] = (0.9, 0.999), weight_decay: float = 0.0) -> np.ndarray:
    r"""The second-order moment on the sphere of Adam w/o (abc), :math:`\nu_k^R` (Roburin (thesis),
    §3.5.2, corrected; Eqs 3.79-3.81).

    .. math::

        \nu_k^R = r_k \frac{1 - \beta_1^{k+1}}{1 - \beta_1} \sqrt{\frac{v_k}{1 - \beta_2^{k+1}}}
        = d^{-1/2} \frac{1 - \beta_1^{k+1}}{1 - \beta_1} \left(\frac{1 - \beta_2}{1 - \beta_2^{k+1}}\right)^{1/2}
        \left(\sum_{i \le k} \beta_2^{k-i} \lVert \nabla L(u_i) + \lambda r_i^2 u_i \rVert^2\right)^{1/2}:

    the R rescaling of :math:`v` removes the radius ratios of Eq 3.42. The source prints :math:`\nu^R = r_k v_k` and
    :math:`\lambda r_i r_k` in the sum (both wrong; see the theory note, docs/theory/spherical.md). The effective
    learning rate of (ab) and (abc) is :math:`\eta / (r_k \nu_k - \eta\lambda r_k^2)`.

    Parameters
    ----------
    sphere_grad_norms : array_like, shape (n,)
        :math:`g_i = \lVert \nabla L(u_i) \rVert`.
    radii : array_like, shape (n,)
        :math:`r_i > 0`.
    dimension : int
        :math:`d \ge 1`.
    %(betas)s
    weight_decay : float
        :math:`\lambda \ge 0`.

    Returns
    -------
    ndarray, shape (n,)
        :math:`\nu_0^R, \dots, \nu_{n-1}^R`.

    Examples
    --------
    >>> adam_nu_R([2.0, 2.0], [3.0, 5.0], 4, betas=(0.0, 0.5)).round(6).tolist()
    [1.0, 1.0]
    """
    g, r, d, beta1, beta2, lam = require_second_moment_args(sphere_grad_norms, radii, dimension, betas, weight_decay)
    terms = g * g + (lam * r * r) ** 2
    return require_finite_result(_nu(terms, d, beta1, beta2), "ν^R", "the inputs overflow float64")
