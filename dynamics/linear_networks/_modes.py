"""Closed-form learning of one input–output mode (Saxe et al. 2014; Pezeshki (thesis), Sec. 2.2.3).

Equations of Pezeshki (thesis), Ch. 2, as read by this project (see the theory note,
docs/theory/linear_networks.md):

* (2.2.15–16) τ a' = b (s − a b), τ b' = a (s − a b); a² − b² = c is conserved.
* (2.2.18) τ u' = 2u(s − u) for u = ab under the balanced init a = b (c = 0, u0 > 0), and its
  solution (2.2.22) u(t) = s e^{2st/τ} / (e^{2st/τ} − 1 + s/u0), evaluated here as
  u = 1 / (g + e^{−2st/τ}/u0) with g = −expm1(−2st/τ)/s (g = 2t/τ at s = 0): no overflow at large t,
  no cancellation as s → 0, and the exact s = 0 limit u0/(1 + 2u0 t/τ).
* (2.2.19–21) the learning time t(u0 → uf) = (τ/2s) ln[uf(s − u0) / (u0(s − uf))] and the half time.
* the unbalanced decoupled closed form (derived in this project) through u = (c/2) sinh θ,
  τθ' = 2s − c sinh θ, from τ u' = sqrt(4u² + c²)(s − u).
* Saxe's deep balanced mode ODE τ u' = D u^{2 − 2/D}(s − u) for D weight matrices (N_l = D + 1
  layers of units), and the scalar chain a_1 ... a_D it reduces, both integrated numerically (also over
  many decades of t, a decade at a time: :func:`dynamics.linear_networks.deep_mode_curve`).
"""
import math
from typing import Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (as_float, require_array_in_range, require_finite_result, require_in_range,
                               require_integer, require_output_times, require_positive, require_times)
from ._checks import require_broadcast, scalar_or_array
from ._integrate import integrate_flow
from ._kernels import (deep_chain_jacobian, deep_chain_rhs, deep_mode_jacobian, deep_mode_rhs, scalar_mode_jacobian,
                       scalar_mode_rhs)
from ._results import ModeVelocity, ScalarModeTrajectory
from ._docs import fill_doc

__all__ = ["deep_chain_strength", "deep_mode_curve", "deep_mode_strength", "half_learning_time", "learning_time",
           "mode_strength", "mode_strength_unbalanced", "scalar_mode_flow", "scalar_mode_velocity"]


def rate_time(rate, t, tau):
    """rate·t/τ for rate > 0, t >= 0 (arrays), +inf only where the true value overflows: where the product rate·t
    alone overflows or underflows, the value is taken through logs (relative error ~1e-13)."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        product = rate * t
        x = product / tau
        spurious = (rate > 0) & (t > 0) & (t < np.inf) & (np.isinf(product) | (product == 0.0))
        if np.any(spurious):
            logs = np.log(np.where(spurious, rate, 1.0)) + np.log(np.where(spurious, t, 1.0)) - math.log(tau)
            x = np.where(spurious, np.exp(logs), x)
    return x


def _growth_factor(s, t, tau):
    """(g, e^{−2st/τ}, 1 − e^{−2st/τ}) with g = (1 − e^{−2st/τ}) / s, its s = 0 limit 2t/τ and its t = inf limit
    1/s."""
    positive = s > 0
    s_safe = np.where(positive, s, 1.0)
    with np.errstate(over="ignore"):  # x = inf (huge s·t/τ) is the exact t -> inf limit below
        x = np.where(positive, 2.0 * rate_time(s_safe, np.where(positive, t, 0.0), tau), 0.0)  # no 0·inf at s = 0
        rise = -np.expm1(-x)
        g = np.where(positive, rise / s_safe, 2.0 * t / tau)
    return g, np.exp(-x), rise


@fill_doc
def mode_strength(t: ArrayLike, s: ArrayLike, u0: ArrayLike, tau: float = 1.0) -> Union[float, np.ndarray]:
    r"""Mode strength :math:`u(t) = a(t) b(t)` under the balanced decoupled init, Eq (2.2.22) of Pezeshki (thesis)
    (Saxe et al. 2014's sigmoid).

    .. math::

        u(t) = \frac{s \, e^{2st/\tau}}{e^{2st/\tau} - 1 + s/u_0},

    evaluated in a form that neither overflows at large :math:`t` nor cancels as :math:`s \to 0`, with the exact
    :math:`s = 0` limit :math:`u_0 / (1 + 2 u_0 t/\tau)`.

    Parameters
    ----------
    t : float or array_like
        Flow time, :math:`t \ge 0` (+inf gives the limit :math:`s`); in units of ``tau`` (:math:`t = k\eta` for
        GD).
    s : float or array_like
        Singular value of the mode, :math:`s \ge 0`.
    u0 : float or array_like
        Initial mode strength :math:`u(0) = a_0 b_0 > 0` (:math:`u_0 = a_0^2` for a balanced per-layer weight
        :math:`a_0`), not a per-layer weight. :math:`u_0 > s` is allowed (:math:`u` then falls to :math:`s`).
    %(tau)s

    Returns
    -------
    float or ndarray
        :math:`u(t)`, of the broadcast shape of t, s and u0 (a float when all three are scalars).

    Raises
    ------
    ValueError
        For t < 0 or NaN, s < 0, u0 <= 0 (a balanced start with u0 < 0 never learns: see
        :func:`dynamics.linear_networks.mode_strength_unbalanced`), tau <= 0, or t, s, u0 that do not broadcast.

    Examples
    --------
    >>> round(mode_strength(0.0, 2.0, 1e-3), 12), mode_strength(float("inf"), 2.0, 1e-3)
    (0.001, 2.0)
    >>> t_half = half_learning_time(2.0, 1e-3)
    >>> round(mode_strength(t_half, 2.0, 1e-3), 12)
    1.0
    >>> mode_strength([0.0, 1.0], [1.0, 2.0], 1e-3).shape
    (2,)
    """
    tau = require_positive("tau", tau)
    t_arr = require_times("t", t)
    s_arr = require_array_in_range("s", s, 0.0)
    u0_arr = require_array_in_range("u0", u0, 0.0, low_open=True)
    t_b, s_b, u0_b = require_broadcast(t=t_arr, s=s_arr, u0=u0_arr)
    g, decay, rise = _growth_factor(s_b, t_b, tau)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        u = 1.0 / (g + decay / u0_b)  # g = inf (s = 0, t = inf) gives the exact limit 0
        # For s > 1, u = s / (1 − e^{−x} + s e^{−x}/u0): the same value without g = (1 − e^{−x})/s, which is
        # subnormal (and so inexact, 1/g = inf) for s near the float64 maximum.
        scaled = s_b * decay / u0_b
        large = (s_b > 1.0) & np.isfinite(scaled)
        u = np.where(large, s_b / (rise + scaled), u)
    return scalar_or_array(u, t, s, u0)


@fill_doc
def half_learning_time(s: ArrayLike, u0: ArrayLike, tau: float = 1.0) -> Union[float, np.ndarray]:
    r"""Half-learning time :math:`t_\mathrm{half} = \frac{\tau}{2s} \ln(s/u_0 - 1)`, where
    :func:`dynamics.linear_networks.mode_strength` reaches :math:`s/2` (Eqs 2.2.19–22).

    Parameters
    ----------
    s : float or array_like
        Singular value, :math:`s > 0`.
    u0 : float or array_like
        Initial mode strength, :math:`0 < u_0 < s`. For :math:`s/2 < u_0 < s` the result is negative (the sigmoid
        passed :math:`s/2` before :math:`t = 0`); for :math:`u_0 = s/2` it is 0.
    %(tau)s

    Returns
    -------
    float or ndarray
        :math:`t_\mathrm{half}`, of the broadcast shape of s and u0, proportional to tau.

    Raises
    ------
    ValueError
        For s <= 0, u0 <= 0, u0 >= s, tau <= 0, or s and u0 that do not broadcast.

    Examples
    --------
    >>> round(half_learning_time(1.0, 1e-6), 4)
    6.9078
    >>> half_learning_time(1.0, 0.5)
    0.0
    """
    tau = require_positive("tau", tau)
    s_arr = require_array_in_range("s", s, 0.0, low_open=True)
    u0_arr = require_array_in_range("u0", u0, 0.0, low_open=True)
    s_b, u0_b = require_broadcast(s=s_arr, u0=u0_arr)
    bad = u0_b >= s_b
    if np.any(bad):
        raise ValueError(f"u0 must lie in (0, s) for a half-learning time, got u0={u0_b[bad].flat[0]:g} "
                         f"with s={s_b[bad].flat[0]:g}")
    t_half = tau / (2.0 * s_b) * (np.log(s_b - u0_b) - np.log(u0_b))
    return scalar_or_array(t_half, s, u0)


@fill_doc
def learning_time(s: ArrayLike, u_start: ArrayLike, u_end: ArrayLike, tau: float = 1.0) -> Union[float, np.ndarray]:
    r"""Time for a balanced mode to grow from u_start to u_end, Eqs (2.2.19–21):

    .. math::

        t = \frac{\tau}{2s} \ln \frac{u_\mathrm{end} (s - u_\mathrm{start})}{u_\mathrm{start} (s - u_\mathrm{end})}.

    Parameters
    ----------
    s : float or array_like
        Singular value, :math:`s > 0`.
    u_start, u_end : float or array_like
        Mode strengths in :math:`(0, s)`; u_end < u_start gives a negative time.
    %(tau)s

    Returns
    -------
    float or ndarray
        The learning time, of the broadcast shape of s, u_start and u_end.

    Raises
    ------
    ValueError
        For s <= 0, u_start or u_end outside (0, s), tau <= 0, or arguments that do not broadcast.

    Examples
    --------
    >>> s, eps = 2.0, 1e-3
    >>> bool(abs(learning_time(s, eps, s - eps) - math.log((s - eps) / eps) / s) < 1e-12)
    True
    """
    tau = require_positive("tau", tau)
    s_arr = require_array_in_range("s", s, 0.0, low_open=True)
    start = require_array_in_range("u_start", u_start, 0.0, low_open=True)
    end = require_array_in_range("u_end", u_end, 0.0, low_open=True)
    s_b, start_b, end_b = require_broadcast(s=s_arr, u_start=start, u_end=end)
    for name, value in (("u_start", start_b), ("u_end", end_b)):
        if np.any(value >= s_b):
            raise ValueError(f"{name} must lie in (0, s), got {value[value >= s_b].flat[0]:g} "
                             f"with s={s_b[value >= s_b].flat[0]:g}")
    ratio = np.log(end_b) + np.log(s_b - start_b) - np.log(start_b) - np.log(s_b - end_b)
    return scalar_or_array(tau / (2.0 * s_b) * ratio, s, u_start, u_end)


def _opposite_sign_strength(t, s, v0, tau):
    """u(t) for a0 = −b0 (c = 0, u0 = −v0 < 0): τ v' = −2v(s + v) for v = −u, so u → 0⁻."""
    g, decay, _ = _growth_factor(np.float64(s), t, tau)
    # −s e^{−x} / ((s/v0 + 1) − e^{−x}) rewritten without cancellation: −e^{−x} / (1/v0 + g).
    with np.errstate(divide="ignore"):
        return -decay / (1.0 / v0 + g)


@fill_doc
def mode_strength_unbalanced(t: ArrayLike, s: float, a0: float, b0: float,
                             tau: float = 1.0) -> Union[float, np.ndarray]:
    r""":math:`u(t) = a(t) b(t)` of the single-mode flow (2.2.15–16) from arbitrary real :math:`a(0)`, :math:`b(0)`
    (a closed form derived in this project; see the theory note, docs/theory/linear_networks.md).

    With :math:`c = |a_0^2 - b_0^2|` (:math:`a \leftrightarrow b` is a symmetry), :math:`D = \sqrt{4s^2 + c^2}`,
    :math:`w_\pm = (2s \pm D)/c`, :math:`w_0 = \exp(\operatorname{asinh}(2 a_0 b_0 / c))`,
    :math:`K = (w_0 - w_-)/(w_+ - w_0)`:

    .. math::

        w(t) = w_+ - (w_+ - w_-) \frac{e^{-Dt/\tau}}{e^{-Dt/\tau} + K}, \qquad
        u = \frac{c}{4} \left(w - \frac{1}{w}\right),

    evaluated without overflow or cancellation. For :math:`c = 0` it is
    :func:`dynamics.linear_networks.mode_strength` (:math:`a_0 b_0 > 0`), the saddle :math:`u \equiv 0`
    (:math:`a_0 = b_0 = 0`), or the :math:`a_0 = -b_0` branch :math:`u = -s/((s/v_0 + 1) e^{2st/\tau} - 1)`,
    :math:`v_0 = a_0^2`, which decays to 0 and never learns.

    Parameters
    ----------
    t : float or array_like
        Flow times :math:`t \ge 0` (+inf allowed), any shape.
    %(singular_value)s
    a0, b0 : float
        Initial per-layer weights (any sign), :math:`|a_0|, |b_0| \le 10^{150}`.
    %(tau)s

    Returns
    -------
    float or ndarray
        :math:`u(t)`, of the shape of t (a float for scalar t).

    Raises
    ------
    ValueError
        For t < 0 or NaN, s < 0, non-finite or too large a0, b0, tau <= 0, or a result that leaves float64.

    Examples
    --------
    >>> round(mode_strength_unbalanced(float("inf"), 1.0, 0.5, -0.2), 12)
    1.0
    >>> bool(mode_strength_unbalanced(3.0, 1.0, 0.3, 0.3) == mode_strength(3.0, 1.0, 0.09))
    True
    >>> mode_strength_unbalanced(50.0, 1.0, 0.4, -0.4) <= 0
    True
    """
    tau = require_positive("tau", tau)
    t_arr = require_times("t", t)
    s = require_positive("s", s, allow_zero=True)
    a0, b0 = as_float("a0", a0), as_float("b0", b0)
    for name, value in (("a0", a0), ("b0", b0)):
        if abs(value) > 1e150:  # a0², b0² and a0·b0 must stay finite in float64
            raise ValueError(f"{name} must satisfy |{name}| <= 1e150 (its square overflows float64 otherwise), "
                             f"got {value:g}")
    u0 = a0 * b0
    c = abs(a0 * a0 - b0 * b0)
    # When 2|u0|/c overflows exp(asinh(.)) the hyperbola is numerically the c = 0 one.
    if c == 0.0 or abs(u0) > 1e300 * c:
        if u0 > 0:
            u = mode_strength(t_arr, s, u0, tau)
        elif u0 == 0:
            u = np.zeros_like(t_arr)
        else:
            u = _opposite_sign_strength(t_arr, s, -u0, tau)
        return scalar_or_array(u, t)
    # Work with W = c w, so that nothing overflows or cancels when c is tiny against s or u0:
    # W+ = 2s + D, W- = -c²/(2s + D), W0 = c e^{asinh(2u0/c)} = 2u0 + sqrt(c² + 4u0²) (u0 >= 0),
    # W(t) = (W+ K + W- e^{-Dt/τ}) / (e^{-Dt/τ} + K), K = (W0 - W-)/(W+ - W0), and u = (W - c)(W + c)/(4W) with
    # W - c carried on its own: W ≈ c when c ≫ s, |u0|, where W/4 - c²/(4W) would cancel (u(inf) = s from
    # W+ - c = 2s + 4s²/(D + c), all terms positive). For s near the float64 maximum (2s + D overflows) s, c and
    # u0 are scaled by 1/8 (exact), and u with them.
    scale = 0.125 if s > 2.0 ** 1000 else 1.0
    s_, c_, u0_ = s * scale, c * scale, u0 * scale
    two_s = 2.0 * s_
    root = math.hypot(two_s, c_)
    big = two_s + root
    small = -c_ * (c_ / big)
    big_minus_c = two_s + two_s * (two_s / (root + c_))
    small_minus_c = small - c_
    spread = math.hypot(c_, 2.0 * u0_)
    excess = (2.0 * u0_) * (2.0 * u0_ / (spread + c_))  # sqrt(c² + 4u0²) - c
    if u0_ >= 0:
        w0, w0_minus_c = 2.0 * u0_ + spread, 2.0 * u0_ + excess
    else:
        w0 = c_ * (c_ / (spread - 2.0 * u0_))
        w0_minus_c = -c_ * ((excess - 2.0 * u0_) / (spread - 2.0 * u0_))
    gap = big_minus_c - w0_minus_c  # W+ - W0, < 0 when u0 > s (u falls to s)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore", under="ignore"):
        decay = np.exp(-rate_time(np.full(t_arr.shape, root), t_arr, tau) / scale)
        if gap == 0.0:  # W0 = W+: the fixed point
            w, w_minus_c = np.full(t_arr.shape, big), np.full(t_arr.shape, big_minus_c)
        elif w0 - small >= abs(gap):  # |K| >= 1: through 1/K, so that nothing overflows
            weight = decay * (gap / (w0 - small))
            w = (big + small * weight) / (1.0 + weight)
            w_minus_c = (big_minus_c + small_minus_c * weight) / (1.0 + weight)
        else:
            k = (w0 - small) / gap
            denominator = decay + k
            w = np.where(denominator > 0, (big * k + small * decay) / denominator, big)
            w_minus_c = np.where(denominator > 0, (big_minus_c * k + small_minus_c * decay) / denominator, big_minus_c)
        u = w_minus_c * (0.25 * ((w + c_) / w)) / scale
    # τu' = (a² + b²)(s − u): u moves monotonically from u0 to s, and stays between them also after rounding
    # (u(inf) = s at the largest double would otherwise round past it).
    u = np.clip(u, min(u0, s), max(u0, s))
    require_finite_result(u, "mode_strength_unbalanced", "reduce s, a0 or b0")
    return scalar_or_array(u, t)


@fill_doc
def scalar_mode_velocity(a: ArrayLike, b: ArrayLike, s: float, tau: float = 1.0) -> ModeVelocity:
    r"""Velocity of the single-mode gradient flow, :math:`(a', b') = (b(s - ab), a(s - ab))/\tau`, Eqs (2.2.15–16).

    Parameters
    ----------
    a, b : float or array_like
        Points of the :math:`(a, b)` plane (finite; broadcast together), e.g. a meshgrid for a direction field.
    %(singular_value)s
    %(tau)s

    Returns
    -------
    ModeVelocity
        ``(a_velocity, b_velocity)``, of the broadcast shape of a and b (floats for scalar a and b).

    Raises
    ------
    ValueError
        For non-finite a or b, s < 0, tau <= 0, or a and b that do not broadcast.

    Examples
    --------
    >>> scalar_mode_velocity(0.5, 1.0, 1.0)
    ModeVelocity(a_velocity=0.5, b_velocity=0.25)
    """
    tau = require_positive("tau", tau)
    s = require_positive("s", s, allow_zero=True)
    a_b, b_b = require_broadcast(a=require_array_in_range("a", a), b=require_array_in_range("b", b))
    with np.errstate(over="ignore", invalid="ignore"):
        err = s - a_b * b_b
        velocity = (b_b * err / tau, a_b * err / tau)
    require_finite_result(velocity, "scalar_mode_velocity", "a·b·(s − ab) overflows float64: reduce a, b or s")
    return ModeVelocity(scalar_or_array(velocity[0], a, b), scalar_or_array(velocity[1], a, b))


# Limits that keep the velocities of the integrated flows finite in float64 (the flows move u monotonically
# between u0 and s, and conserve a² − b², so that the start bounds the whole trajectory).
MAX_FLOW_WEIGHT = 1e100
MAX_FLOW_STRENGTH = 1e200
MAX_DEEP_STRENGTH = 1e100


@fill_doc
def scalar_mode_flow(t: ArrayLike, s: float, a0: float, b0: float, tau: float = 1.0, rtol: float = 1e-12,
                     atol: float = 1e-14) -> ScalarModeTrajectory:
    r"""Numerical integration (DOP853) of the single-mode flow (2.2.15–16) from :math:`(a_0, b_0)`.

    A stiff flow (a tiny :math:`\tau` against :math:`t`, or a large :math:`s`, :math:`a_0` or :math:`b_0`), which
    DOP853 does not finish within 20 000 step attempts, is integrated by the L-stable rosenbrock23 of
    :func:`dynamics.numerics.solve_ode` with the Jacobian of the flow.

    Parameters
    ----------
    t : array_like, shape (m,)
        Output times: finite, >= 0, non-decreasing (t[0] may be 0), with :math:`t/\tau \le 2^{52}`.
    s : float
        Singular value, :math:`0 \le s \le 10^{200}`.
    a0, b0 : float
        Initial per-layer weights (any sign), :math:`|a_0|, |b_0| \le 10^{100}` (so that :math:`b(s - ab)` stays
        finite).
    %(tau)s
    %(rtol_atol)s

    Returns
    -------
    ScalarModeTrajectory
        ``(t, a, b)`` at the output times; ``.mode_strength`` is :math:`a b`.

    Raises
    ------
    ValueError
        For bad times, s outside [0, 1e200], a0 or b0 outside [-1e100, 1e100], tau <= 0, or t/tau above 2^52.
    dynamics.numerics.IntegrationError
        If the integration does not reach the last time.

    Examples
    --------
    >>> run = scalar_mode_flow([0.0, 5.0], 1.0, 0.5, -0.2)
    >>> bool(abs(run.mode_strength[1] - mode_strength_unbalanced(5.0, 1.0, 0.5, -0.2)) < 1e-9)
    True
    """
    tau = require_positive("tau", tau)
    t_eval = require_output_times("t", t)
    why = "the velocity b(s − ab) of the flow must stay finite in float64"
    s = require_in_range("s", s, 0.0, MAX_FLOW_STRENGTH, why=why)
    y0 = np.array([require_in_range(name, value, -MAX_FLOW_WEIGHT, MAX_FLOW_WEIGHT, why=why)
                   for name, value in (("a0", a0), ("b0", b0))])
    # a² + b² <= c + 2 max(|u|) <= a0² + b0² + 2s along the flow bounds its Jacobian (u = ab moves from u0 to s)
    rate = y0[0] * y0[0] + y0[1] * y0[1] + 2.0 * s
    y = integrate_flow(scalar_mode_rhs, scalar_mode_jacobian, y0, t_eval, tau, np.array([s, 1.0]), rtol, atol,
                       "scalar_mode_flow", rate, "(a0² + b0² + 2s)")
    return ScalarModeTrajectory(t_eval, y[:, 0].copy(), y[:, 1].copy())


@fill_doc
def deep_mode_strength(t: ArrayLike, s: float, u0: float, n_weight_layers: int, tau: float = 1.0,
                       rtol: float = 1e-11, atol: float = 1e-14) -> np.ndarray:
    r"""Mode strength of a balanced decoupled deep linear net, :math:`\tau u' = D u^{2 - 2/D} (s - u)` (Saxe et al.
    2014, their analysis of deeper networks), integrated with DOP853 (rosenbrock23 where the flow is stiff, as in
    :func:`dynamics.linear_networks.scalar_mode_flow`).

    :math:`D` = ``n_weight_layers`` weight matrices (:math:`N_l = D + 1` layers of units); :math:`D = 2` is
    Eq (2.2.18), whose solution is :func:`dynamics.linear_networks.mode_strength`.

    Parameters
    ----------
    %(output_times)s
    s : float
        Singular value, :math:`0 \le s \le 10^{100}`.
    u0 : float
        Initial mode strength :math:`0 < u_0 \le 10^{100}` (:math:`a_0^D` for a balanced per-layer weight
        :math:`a_0`).
    n_weight_layers : int
        :math:`D`, in [1, 64].
    %(tau)s
    %(rtol_atol)s

    Returns
    -------
    ndarray, shape (m,)
        :math:`u` at the output times.

    Raises
    ------
    ValueError
        For bad times, s outside [0, 1e100], u0 outside (0, 1e100], n_weight_layers outside [1, 64], tau <= 0,
        or t/tau above 2^52.
    dynamics.numerics.IntegrationError
        If the integration does not reach the last time.

    Examples
    --------
    >>> u = deep_mode_strength([0.0, 4.0], 2.0, 1e-4, 2)
    >>> bool(abs(u[1] - mode_strength(4.0, 2.0, 1e-4)) < 1e-8)
    True
    """
    tau = require_positive("tau", tau)
    t_eval = require_output_times("t", t)
    why = "the velocity D·u^(2 − 2/D)·(s − u) must stay finite in float64"
    s = require_in_range("s", s, 0.0, MAX_DEEP_STRENGTH, why=why)
    u0 = require_in_range("u0", u0, 0.0, MAX_DEEP_STRENGTH, low_open=True, why=why)
    depth = require_integer("n_weight_layers", n_weight_layers, 1, 64)
    # u stays between u0 and s: |∂u'/∂u| <= 3D·max(u0, s)^(2 − 2/D)
    rate = 3.0 * depth * max(u0, s) ** (2.0 - 2.0 / depth)
    y = integrate_flow(deep_mode_rhs, deep_mode_jacobian, np.array([u0]), t_eval, tau,
                       np.array([s, float(depth), 1.0]), rtol, atol, "deep_mode_strength", rate,
                       "3D·max(u0, s)^(2 − 2/D)")
    return y[:, 0].copy()


#: Held at its last value once within this fraction of s (:func:`dynamics.linear_networks.deep_mode_curve`).
CONVERGED = 1e-6


@fill_doc
def deep_mode_curve(t: ArrayLike, s: float, u0: float, n_weight_layers: int, tau: float = 1.0, rtol: float = 1e-8,
                    atol: float = 1e-12) -> np.ndarray:
    r"""Mode strength :math:`u(t)` of a balanced decoupled linear network of :math:`D` weight layers on a long time
    grid (Saxe et al. 2014): the closed form (2.2.22) for :math:`D = 2`, otherwise
    :func:`dynamics.linear_networks.deep_mode_strength` integrated one decade of :math:`t/\tau` at a time, each piece
    starting from the last value of the one before (the flow :math:`\tau u' = D u^{2 - 2/D} (s - u)` does not depend
    on :math:`t`), and held at its last value once it is within :math:`10^{-6} s` of :math:`s`.

    Made for curves over many decades (log-spaced :math:`t` up to :math:`10^5 \tau`, at plotting tolerances): the
    pieces keep each integration short, and the hold skips the long converged tail.

    Parameters
    ----------
    t : array_like, shape (m,)
        Output times: finite, >= 0, non-decreasing (the start :math:`u_0` is at :math:`t = 0`, which need not be
        among them).
    s : float
        Singular value, :math:`0 \le s \le 10^{100}`.
    u0 : float
        Initial mode strength :math:`0 < u_0 \le 10^{100}` (:math:`a_0^D` for a balanced per-layer weight
        :math:`a_0`).
    n_weight_layers : int
        :math:`D`, in [1, 64]; :math:`D = 1` is linear regression, :math:`D = 2` Eq (2.2.22).
    %(tau)s
    rtol, atol : float
        Tolerances of each piece's integration (:func:`dynamics.linear_networks.deep_mode_strength`); unused for D = 2.

    Returns
    -------
    ndarray, shape (m,)
        :math:`u` at the output times.

    Raises
    ------
    ValueError
        For bad times, s outside [0, 1e100], u0 outside (0, 1e100], n_weight_layers outside [1, 64], tau <= 0,
        or a piece that :func:`dynamics.linear_networks.deep_mode_strength` refuses.
    dynamics.numerics.IntegrationError
        If an integration does not reach the end of its piece.

    Examples
    --------
    >>> t = np.concatenate([[0.0], np.geomspace(1e-2, 1e3, 61)])
    >>> u = deep_mode_curve(t, 2.0, 1e-3, 3)
    >>> float(u[0]), bool(abs(u[-1] - 2.0) < 1e-5)
    (0.001, True)
    >>> bool(np.array_equal(deep_mode_curve(t, 2.0, 1e-3, 2), mode_strength(t, 2.0, 1e-3)))
    True
    """
    tau = require_positive("tau", tau)
    t_eval = require_output_times("t", t)
    why = "the velocity D·u^(2 − 2/D)·(s − u) must stay finite in float64"
    s = require_in_range("s", s, 0.0, MAX_DEEP_STRENGTH, why=why)
    u0 = require_in_range("u0", u0, 0.0, MAX_DEEP_STRENGTH, low_open=True, why=why)
    depth = require_integer("n_weight_layers", n_weight_layers, 1, 64)
    if depth == 2:
        return np.asarray(mode_strength(t_eval, s, u0, tau), dtype=np.float64)
    prepend = t_eval[0] > 0.0
    grid = np.concatenate([[0.0], t_eval]) if prepend else t_eval
    with np.errstate(over="ignore", divide="ignore"):
        span = grid[-1] / tau
        if not math.isfinite(span):  # t/tau beyond float64: no decade can be cut out of it
            raise ValueError(f"t and tau: t/tau must be finite in float64, got {grid[-1]:g}/{tau:g}; reduce t or "
                             f"increase tau")
        last = int(min(math.ceil(math.log10(span)), 400)) if span > 0 else -1
        bounds = tau * 10.0 ** np.arange(-1, max(last, -1) + 1)
    ends = np.append(np.searchsorted(grid, bounds, side="right"), grid.size)
    u, start = np.full(grid.size, u0), 0
    for end in ends:
        piece = grid[start:end] - grid[start]
        if piece.size > 1:
            u[start:end] = deep_mode_strength(piece, s, u[start], depth, tau, rtol=rtol, atol=atol)
        start = max(end - 1, 0)
        if abs(u[start] - s) < CONVERGED * s or u[start] == 0.0:  # converged (or decayed to 0 at s = 0)
            u[start:] = u[start]
            break
    return u[1:] if prepend else u


def _log_chain_bound(s, weights):
    """(log of a bound on every velocity |(s − P)Π_{j≠i}a_j|, Jacobian entry and partial product along the chain's
    flow, log of a bound on the Jacobian entries alone). P = Πa_j moves monotonically from its start p0 to s and every
    a_i² − a_j² is conserved, so that |P| <= P_max = max(|p0|, s) and a_i² <= A² = max_j a_j(0)² + P_max^{2/D}."""
    depth = weights.size
    with np.errstate(divide="ignore"):
        log_abs = np.log(np.abs(weights))
        log_s = math.log(s) if s > 0 else -math.inf
    log_p = max(float(np.sum(log_abs)), log_s)
    if log_p == -math.inf and float(np.max(log_abs)) == -math.inf:
        return -math.inf, (0.0 if depth == 1 else -math.inf)  # every weight 0 and s = 0: nothing moves
    log_a = 0.5 * float(np.logaddexp(2.0 * float(np.max(log_abs)), 2.0 * log_p / depth))
    log_error = float(np.logaddexp(log_s, log_p))  # log(s + P_max) >= log |s − P|
    jacobian = [2 * (depth - 1) * log_a] + ([log_error + (depth - 2) * log_a] if depth >= 2 else [])
    return max([depth * log_a, log_error + (depth - 1) * log_a] + jacobian), max(jacobian)


@fill_doc
def deep_chain_strength(t: ArrayLike, s: float, weights0: ArrayLike, tau: float = 1.0, rtol: float = 1e-11,
                        atol: float = 1e-14) -> np.ndarray:
    r"""Product :math:`a_1(t) \cdots a_D(t)` of the scalar chain's gradient flow on
    :math:`\frac{1}{2\tau} (s - a_1 \cdots a_D)^2` (Saxe et al. 2014):
    the deep mode without the balanced reduction, integrated with DOP853 (rosenbrock23 where the flow is stiff,
    as in :func:`dynamics.linear_networks.scalar_mode_flow`).

    Parameters
    ----------
    %(output_times)s
    %(singular_value)s
    weights0 : array_like, shape (D,)
        Initial weight of each layer (finite, :math:`D \ge 1`).
    %(tau)s
    %(rtol_atol)s

    Returns
    -------
    ndarray, shape (m,)
        The product :math:`a_1 \cdots a_D` at the output times.

    Raises
    ------
    ValueError
        For bad times, s < 0, empty or non-finite weights0, tau <= 0, t/tau above 2^52, or s and
        weights0 so large that the velocity :math:`(s - \prod a) \prod_{j \ne i} a_j` can leave float64 (above
        :math:`10^{300}`).
    dynamics.numerics.IntegrationError
        If the integration does not reach the last time.

    Examples
    --------
    >>> chain = deep_chain_strength([0.0, 10.0], 1.5, [0.3, 0.3, 0.3])
    >>> deep = deep_mode_strength([0.0, 10.0], 1.5, 0.3 ** 3, 3)
    >>> bool(abs(chain[1] - deep[1]) < 1e-8)
    True
    """
    tau = require_positive("tau", tau)
    t_eval = require_output_times("t", t)
    s = require_positive("s", s, allow_zero=True)
    y0 = require_array_in_range("weights0", weights0, ndim=1)
    if y0.size < 1:
        raise ValueError("weights0 must hold at least one weight, got an empty array")
    log_bound, log_rate = _log_chain_bound(s, y0)
    if log_bound > math.log(1e300):
        raise ValueError(f"weights0 and s must keep the velocity (s − Πa)·Π_(j≠i)a_j of the chain finite in float64: "
                         f"along this flow it (or its Jacobian) can reach e^{log_bound:.6g} > 1e300; got s = {s:g} "
                         f"and max|weights0| = {np.abs(y0).max():g} with D = {y0.size}")
    y = integrate_flow(deep_chain_rhs, deep_chain_jacobian, y0, t_eval, tau, np.array([s, 1.0]), rtol, atol,
                       "deep_chain_strength", y0.size * math.exp(log_rate), "D·max|∂a_i'/∂a_k|")
    return np.prod(y, axis=1)
