"""Closed-form learning of one input–output mode (Saxe et al. 2013; thesis Sec. 2.2.3).

Equations of 001_61c8f54ededf01e4.txt, as rebuilt in spec/linear_networks.md Part A:

* (2.2.15–16) τ a' = b (s − a b), τ b' = a (s − a b); a² − b² = c is conserved.
* (2.2.18) τ u' = 2u(s − u) for u = ab under the balanced init a = b (c = 0, u0 > 0), and its
  solution (2.2.22) u(t) = s e^{2st/τ} / (e^{2st/τ} − 1 + s/u0), evaluated here as
  u = 1 / (g + e^{−2st/τ}/u0) with g = −expm1(−2st/τ)/s (g = 2t/τ at s = 0): no overflow at large t,
  no cancellation as s → 0, and the exact s = 0 limit u0/(1 + 2u0 t/τ).
* (2.2.19–21) the learning time t(u0 → uf) = (τ/2s) ln[uf(s − u0) / (u0(s − uf))] and the half time.
* (A.gen)/(A.3) the unbalanced decoupled closed form through u = (c/2) sinh θ, τθ' = 2s − c sinh θ.
* Saxe's deep balanced mode ODE τ u' = D u^{2 − 2/D}(s − u) for D weight matrices (N_l = D + 1
  layers of units), and the scalar chain a_1 ... a_D it reduces, both integrated numerically.
"""
import math

import numba as nb
import numpy as np

from dynamics.numerics import require_array_in_range, require_integer, require_positive, solve_ode
from . import _checks


def _growth_factor(s, t, tau):
    """(g, e^{−2st/τ}) with g = (1 − e^{−2st/τ}) / s, its s = 0 limit 2t/τ and its t = inf limit 1/s."""
    positive = s > 0
    with np.errstate(over="ignore"):  # x = inf (huge s·t) is the exact t -> inf limit below
        x = np.where(positive, 2.0 * s * np.where(positive, t, 0.0) / tau, 0.0)  # no 0 * inf at s = 0
    g = np.where(positive, -np.expm1(-x) / np.where(positive, s, 1.0), 2.0 * t / tau)
    return g, np.exp(-x)


def mode_strength(t, s, u0, tau=1.0):
    """Mode strength u(t) = a(t) b(t) under the balanced decoupled init, Eq. (2.2.22).

    ``u0`` is the initial mode strength (u0 = a0² for per-layer weight a0), ``s`` >= 0 the singular
    value of the mode, ``t`` >= 0 (inf gives s). Broadcasts t, s, u0. u0 > s is allowed (u falls to s).
    """
    tau = _checks.tau_of(tau)
    t_arr = _checks.times("t", t)
    s_arr = require_array_in_range("s", s, 0.0)
    u0_arr = require_array_in_range("u0", u0, 0.0, low_open=True)
    t_b, s_b, u0_b = np.broadcast_arrays(t_arr, s_arr, u0_arr)
    g, decay = _growth_factor(s_b, t_b, tau)
    with np.errstate(divide="ignore"):
        u = 1.0 / (g + decay / u0_b)  # g = inf (s = 0, t = inf) gives the exact limit 0
    return _checks.scalar_result(u, t, s, u0)


def half_learning_time(s, u0, tau=1.0):
    """t_half = (τ/2s) ln(s/u0 − 1), the time at which ``mode_strength`` reaches s/2 (0 < u0 < s)."""
    tau = _checks.tau_of(tau)
    s_arr = require_array_in_range("s", s, 0.0, low_open=True)
    u0_arr = require_array_in_range("u0", u0, 0.0, low_open=True)
    s_b, u0_b = np.broadcast_arrays(s_arr, u0_arr)
    if np.any(u0_b >= s_b):
        bad = np.flatnonzero((u0_b >= s_b).ravel())[0]
        raise ValueError(f"u0 must lie in (0, s) for a half-learning time, got u0={u0_b.flat[bad]:g} "
                         f"with s={s_b.flat[bad]:g}")
    t_half = tau / (2.0 * s_b) * (np.log(s_b - u0_b) - np.log(u0_b))
    return _checks.scalar_result(t_half, s, u0)


def learning_time(s, u_start, u_end, tau=1.0):
    """Time for a balanced mode to go from u_start to u_end, Eq. (2.2.19–21); both in (0, s)."""
    tau = _checks.tau_of(tau)
    s_arr = require_array_in_range("s", s, 0.0, low_open=True)
    start = require_array_in_range("u_start", u_start, 0.0, low_open=True)
    end = require_array_in_range("u_end", u_end, 0.0, low_open=True)
    s_b, start_b, end_b = np.broadcast_arrays(s_arr, start, end)
    for name, value in (("u_start", start_b), ("u_end", end_b)):
        if np.any(value >= s_b):
            raise ValueError(f"{name} must lie in (0, s), got {value[value >= s_b].flat[0]:g}")
    ratio = np.log(end_b) + np.log(s_b - start_b) - np.log(start_b) - np.log(s_b - end_b)
    return _checks.scalar_result(tau / (2.0 * s_b) * ratio, s, u_start, u_end)


def _opposite_sign_strength(t, s, v0, tau):
    """u(t) for a0 = −b0 (c = 0, u0 = −v0 < 0): τ v' = −2v(s + v) for v = −u, so u → 0⁻."""
    g, decay = _growth_factor(np.float64(s), t, tau)
    # −s e^{−x} / ((s/v0 + 1) − e^{−x}) rewritten without cancellation: −e^{−x} / (1/v0 + g).
    with np.errstate(divide="ignore"):
        return -decay / (1.0 / v0 + g)


def mode_strength_unbalanced(t, s, a0, b0, tau=1.0):
    """u(t) = a(t) b(t) of the single-mode system (2.2.15–16) from arbitrary real a(0), b(0).

    Closed form (A.3) of spec/linear_networks.md: with c = |a0² − b0²| (a ↔ b is a symmetry),
    D = sqrt(4s² + c²), w± = (2s ± D)/c, w0 = exp(asinh(2 a0 b0 / c)), K = (w0 − w−)/(w+ − w0),
    w(t) = w+ − (w+ − w−) e^{−Dt/τ} / (e^{−Dt/τ} + K), u = (c/4)(w − 1/w). For c = 0 it is
    ``mode_strength`` (a0 b0 > 0), the saddle u ≡ 0 (a0 = b0 = 0) or the non-learning a0 = −b0 branch.
    """
    tau = _checks.tau_of(tau)
    t_arr = _checks.times("t", t)
    s = require_positive("s", s, allow_zero=True)
    a0, b0 = _checks.real("a0", a0), _checks.real("b0", b0)
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
        return _checks.scalar_result(u, t)
    # Work with W = c w, so that nothing overflows or cancels when c is tiny against s or u0:
    # W+ = 2s + D, W- = -c²/(2s + D), W0 = c e^{asinh(2u0/c)} = 2u0 + sqrt(c² + 4u0²) (u0 >= 0),
    # W(t) = (W+ K + W- e^{-Dt/τ}) / (e^{-Dt/τ} + K), u = W/4 - c²/(4W).
    root = math.hypot(2.0 * s, c)
    big = 2.0 * s + root
    small = -c * (c / big) if big > 0 else -c
    spread = math.hypot(c, 2.0 * u0)
    w0 = 2.0 * u0 + spread if u0 >= 0 else c * (c / (spread - 2.0 * u0))
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        k = (w0 - small) / (big - w0) if big != w0 else math.inf
        decay = np.exp(-root * t_arr / tau)
        w = np.where(np.isinf(k), big, (big * k + small * decay) / (decay + k))
        u = 0.25 * w - 0.25 * c * (c / w)
    _checks.finite_result(u, "mode_strength_unbalanced", "s, a0 or b0")
    return _checks.scalar_result(u, t)


def scalar_mode_velocity(a, b, s, tau=1.0):
    """(a', b') = (b(s − ab), a(s − ab))/τ of (2.2.15–16) at arrays of points (the Fig 2.3 right field)."""
    tau = _checks.tau_of(tau)
    s = require_positive("s", s, allow_zero=True)
    a, b = np.broadcast_arrays(require_array_in_range("a", a), require_array_in_range("b", b))
    err = s - a * b
    return b * err / tau, a * err / tau


@nb.njit(cache=True)
def scalar_mode_rhs(t, y, params):
    """(2.2.15–16): y = (a, b), params = (s, tau)."""
    s, tau = params[0], params[1]
    a, b = y[0], y[1]
    err = s - a * b
    out = np.empty(2)
    out[0] = b * err / tau
    out[1] = a * err / tau
    return out


def scalar_mode_flow(t, s, a0, b0, tau=1.0, rtol=1e-12, atol=1e-14):
    """Numerical integration (dop853) of (2.2.15–16); returns (a(t), b(t)) at the sorted times t."""
    tau = _checks.tau_of(tau)
    t_eval = _sorted_times(t)
    s = require_positive("s", s, allow_zero=True)
    y0 = np.array([_checks.real("a0", a0), _checks.real("b0", b0)])
    end = max(float(t_eval[-1]), 1e-12)
    sol = solve_ode(scalar_mode_rhs, (0.0, end), y0, t_eval=t_eval, params=np.array([s, tau]),
                    method="dop853", rtol=rtol, atol=atol, max_steps=1_000_000).check()
    return sol.y[:, 0], sol.y[:, 1]


@nb.njit(cache=True)
def deep_mode_rhs(t, y, params):
    """Saxe's deep balanced mode ODE τ u' = D u^{2−2/D}(s − u); params = (s, D, tau)."""
    s, depth, tau = params[0], params[1], params[2]
    u = y[0]
    out = np.empty(1)
    out[0] = depth * abs(u) ** (2.0 - 2.0 / depth) * (s - u) / tau
    return out


@nb.njit(cache=True)
def deep_chain_rhs(t, y, params):
    """Gradient flow of (1/2τ)(s − a_1 ... a_D)² over the scalar chain y = (a_1..a_D); params = (s, tau)."""
    s, tau = params[0], params[1]
    n = y.shape[0]
    prod = 1.0
    for i in range(n):
        prod *= y[i]
    out = np.empty(n)
    for i in range(n):
        others = 1.0
        for j in range(n):
            if j != i:
                others *= y[j]
        out[i] = (s - prod) * others / tau
    return out


def _sorted_times(t):
    """A non-empty, finite, non-decreasing 1-D array of times >= 0 (the output times of an integration)."""
    t_eval = require_array_in_range("t", t, 0.0, ndim=1)
    if t_eval.size == 0:
        raise ValueError("t must hold at least one time, got an empty array")
    if np.any(np.diff(t_eval) < 0):
        raise ValueError("t must be sorted in increasing order")
    return t_eval


def deep_mode_strength(t, s, u0, n_weight_layers, tau=1.0, rtol=1e-11, atol=1e-14):
    """Mode strength of a balanced decoupled deep linear net with D = ``n_weight_layers`` weight
    matrices (Saxe 2013, τ u' = D u^{2−2/D}(s − u)); integrated with dop853 at the sorted times t.
    D = 2 is the two-weight-layer case (2.2.18)."""
    tau = _checks.tau_of(tau)
    t_eval = _sorted_times(t)
    s = require_positive("s", s, allow_zero=True)
    u0 = require_positive("u0", u0)
    depth = require_integer("n_weight_layers", n_weight_layers, 1, 64)
    end = max(float(t_eval[-1]), 1e-12)
    sol = solve_ode(deep_mode_rhs, (0.0, end), np.array([u0]), t_eval=t_eval,
                    params=np.array([s, float(depth), tau]), method="dop853", rtol=rtol, atol=atol,
                    max_steps=1_000_000).check()
    return sol.y[:, 0]


def deep_chain_strength(t, s, weights0, tau=1.0, rtol=1e-11, atol=1e-14):
    """Product a_1(t) ... a_D(t) of the scalar chain's gradient flow from ``weights0`` (one weight per
    layer), integrated with dop853 at the sorted times t: the deep mode without the balanced reduction."""
    tau = _checks.tau_of(tau)
    t_eval = _sorted_times(t)
    s = require_positive("s", s, allow_zero=True)
    y0 = require_array_in_range("weights0", weights0, ndim=1)
    if y0.size < 1:
        raise ValueError("weights0 must hold at least one weight")
    end = max(float(t_eval[-1]), 1e-12)
    sol = solve_ode(deep_chain_rhs, (0.0, end), y0, t_eval=t_eval, params=np.array([s, tau]),
                    method="dop853", rtol=rtol, atol=atol, max_steps=1_000_000).check()
    return np.prod(sol.y, axis=1)
