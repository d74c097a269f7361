"""Dual and primal dynamics of the linearised (NTRF) model (spec/starvation.md §2.3-2.5, §2.10, P18-P19).

* Eq 9 (6.3.9):   α̇ = log((1-α)/α) - Kα,               K = λ⁻¹US²Uᵀ   (exact dual flow)
* Eq 10 (6.3.10): α̇ = -log α - Aα,                      A = K + I       (approximate dual flow)
* Eq 18 (6.3.18): α̇ = log((1-α)/α) - α/λ                                 (Spectral Decoupling)
  and its Eq-10-type approximation α̇ = -log α - (1 + 1/λ)α (fixed point λW(1+1/λ)/(1+λ)).
* Theorem 1 (Eqs 36-38 / .5.18-.5.20): J_9 = -(diag(1/(α(1-α))) + K), J_10 = -(diag(1/α) + A).
* z along a dual trajectory: z = λ⁻¹S²Uᵀα (Eq 11 map, CE) or z = λ⁻¹Uᵀα (SD, §2.10).
* P18: primal gradient descent of Eq 5 (or Eq 17) written in feature coordinates z = SVᵀθ,
  z ← z - η(λz - S²Uᵀσ(-Uz)) (CE) and z ← z + ηS²(Uᵀσ(-Uz) - λz) (SD); V drops out.
* The primal itself, Eq 5 (ridge logistic) and Eq 17 (SD), in θ: gradient descent and Newton's optimum.
Time is in units of 1/η (η = 1).
"""
import math

import numba as nb
import numpy as np

from dynamics.numerics import (IntegrationError, as_finite_array, require_choice, require_in_range, require_integer,
                               require_positive, solve_ode)
from ._fixed_points import _cholesky_solve, dual_matrix
from ._validation import (check_alpha, check_bool, check_finite_result, check_lambda, check_orthogonal,
                          check_problem, check_times)

CE_EXACT, CE_APPROX, SD_EXACT, SD_APPROX = 0, 1, 2, 3
INTEGRATORS = ("auto", "dop853", "rosenbrock")


@nb.njit(cache=True)
def dual_rhs(t, alpha, params):
    """params = [mode, Q.ravel()] (CE modes, Q = K or A) or [mode, 1/λ] (SD modes); NaN outside the
    domain so that the adaptive integrator rejects a step that leaves it."""
    n = alpha.shape[0]
    mode = int(params[0])
    out = np.empty(n)
    if mode == CE_EXACT or mode == CE_APPROX:
        coupling = params[1:].reshape((n, n)) @ alpha
    else:
        coupling = (params[1] + (1.0 if mode == SD_APPROX else 0.0)) * alpha
    exact = mode == CE_EXACT or mode == SD_EXACT
    for i in range(n):
        a = alpha[i]
        if not (a > 0.0) or (exact and not (a < 1.0)):
            out[i] = math.nan
        else:
            barrier = (math.log1p(-a) - math.log(a)) if exact else -math.log(a)
            out[i] = barrier - coupling[i]
    return out


def dual_params(U, s, lam, exact=True, sd=False):
    """The parameter array of :func:`dual_rhs` for the chosen flow."""
    U, s, lam = check_problem(U, s, lam)
    exact, sd = check_bool("exact", exact), check_bool("sd", sd)
    if sd:
        return np.array([SD_EXACT if exact else SD_APPROX, 1.0 / lam])
    Q = dual_matrix(U, s, lam, exact)
    return np.concatenate([[CE_EXACT if exact else CE_APPROX], Q.ravel()])


def integrate_dual(U, s, lam, t_eval, alpha0=None, exact=True, sd=False, rtol=1e-10, atol=1e-12, method="auto"):
    """The dual gradient flow (Eq 9, Eq 10, Eq 18 or its approximation) sampled at ``t_eval``.

    Returns (alpha, z), each (len(t_eval), n); z = λ⁻¹S²Uᵀα (CE) or λ⁻¹Uᵀα (SD). ``alpha0=None`` is
    α_0 = ½·1 (θ = 0). ``method``: "dop853" (the numerics core's explicit pair, rtol 1e-10, atol 1e-12),
    "rosenbrock" (an L-stable Rosenbrock 2(3) for the stiff cases) or "auto" (dop853, then Rosenbrock
    if dop853's step collapses, which happens when a coordinate α_i dips to ~e^{-(Kα)_i})."""
    U, s, lam = check_problem(U, s, lam)
    exact, sd = check_bool("exact", exact), check_bool("sd", sd)
    t = check_times(t_eval)
    n = U.shape[0]
    alpha0 = np.full(n, 0.5) if alpha0 is None else check_alpha(alpha0, n, exact)
    method = require_choice("method", method, INTEGRATORS)
    rtol, atol = require_in_range("rtol", rtol, 1e-14, 1e-3), require_in_range("atol", atol, 1e-300, 1e-3)
    params = dual_params(U, s, lam, exact, sd)
    alpha = np.tile(alpha0, (t.size, 1))
    if t[-1] > 0.0 and method in ("auto", "dop853"):
        sol = solve_ode(dual_rhs, (0.0, t[-1]), alpha0, t_eval=t, params=params, method="dop853", rtol=rtol,
                        atol=atol, max_steps=20_000 if method == "auto" else 2_000_000)
        if sol.success:
            alpha = sol.y
        elif method == "dop853":
            raise IntegrationError(f"integrate_dual: {sol.message} (reached t = {sol.t[-1] if sol.t.size else 0:g})")
        else:
            method = "rosenbrock"  # stiff (a tiny α_i): the explicit pair gave up
    if t[-1] > 0.0 and method == "rosenbrock":
        alpha, status, _ = _rosenbrock23(params, alpha0, t, rtol, atol, 10_000_000)
        if status:
            raise IntegrationError(f"integrate_dual: the Rosenbrock integrator stopped at row {len(alpha)} of {t.size} "
                                   f"({'max_steps' if status == 1 else 'step size underflow'})")
    z = (alpha @ U) / lam if sd else (alpha @ U) * (s * s) / lam
    return alpha, z


def jacobian(U, s, lam, alpha, exact=True):
    """Theorem 1: J_9 = -(diag(1/(α(1-α))) + K) (exact) or J_10 = -(diag(1/α) + A), with η = 1."""
    Q = dual_matrix(U, s, lam, exact)
    alpha = check_alpha(alpha, Q.shape[0], bool(exact), name="alpha")
    with np.errstate(divide="ignore", over="ignore"):
        barrier = 1.0 / (alpha * (1.0 - alpha)) if exact else 1.0 / alpha
    return check_finite_result(-(np.diag(barrier) + Q), "alpha", "1/α overflows: α_i below ~5.6e-309")


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # = 1/(1+e^{-x}), without overflow


@nb.njit(cache=True)
def _primal_z_steps(U, sq, lam, lr, steps, z0, sd):
    n = z0.shape[0]
    z = np.empty((steps + 1, n))
    z[0] = z0
    for k in range(steps):
        margins = U @ z[k]
        weights = np.empty(n)
        for i in range(n):
            weights[i] = 0.5 * (1.0 - math.tanh(0.5 * margins[i]))  # σ(-margin)
        pull = sq * (U.T @ weights)
        if sd:
            z[k + 1] = z[k] + lr * (pull - lam * sq * z[k])
        else:
            z[k + 1] = (1.0 - lr * lam) * z[k] + lr * pull
    return z


def primal_gd_z(U, s, lam, lr, steps, z0=None, sd=False):
    """P18: gradient descent of Eq 5 (sd=False) or Eq 17 (sd=True) written in z = SVᵀθ coordinates,
    from z0 (default 0, i.e. θ = 0). Returns the (steps+1, n) trajectory."""
    U, s, lam = check_problem(U, s, lam)
    lr = require_positive("lr", lr)
    steps = require_integer("steps", steps, 0, 10**8)
    z0 = np.zeros(U.shape[0]) if z0 is None else as_finite_array("z0", z0, ndim=1)
    if z0.shape != (U.shape[0],):
        raise ValueError(f"z0 must have shape ({U.shape[0]},), got {z0.shape}")
    z = _primal_z_steps(U, s * s, lam, lr, steps, z0, check_bool("sd", sd))
    return check_finite_result(z, "lr", f"gradient descent diverged: lr = {lr:g} exceeds 2/curvature")


def dual_gd(U, s, lam, lr, steps, alpha0=1e-8, clamp=1e-50):
    """Discrete dual gradient ascent on Eq 8 as in the authors' toy code: α ← clip(α + lr(log((1-α)/α) - Kα)),
    clipped to (clamp, 1 - clamp). Returns (alpha, z) trajectories of shape (steps+1, n), z = λ⁻¹S²Uᵀα."""
    U, s, lam = check_problem(U, s, lam)
    lr = require_positive("lr", lr)
    steps = require_integer("steps", steps, 0, 10**8)
    clamp = require_positive("clamp", clamp)
    if clamp >= 0.5:
        raise ValueError(f"clamp must be in (0, 0.5), got {clamp:g}")
    n = U.shape[0]
    start = np.broadcast_to(np.asarray(alpha0, dtype=np.float64), (n,))
    start = check_alpha(start, n, True)
    alpha = _dual_steps(dual_matrix(U, s, lam, True), start, lr, steps, clamp)
    return alpha, (alpha @ U) * (s * s) / lam


@nb.njit(cache=True)
def _dual_steps(K, alpha0, lr, steps, clamp):
    n = alpha0.shape[0]
    alpha = np.empty((steps + 1, n))
    alpha[0] = alpha0
    for k in range(steps):
        a = alpha[k]
        grad = -(K @ a)
        for i in range(n):
            grad[i] += math.log1p(-a[i]) - math.log(a[i])
            alpha[k + 1, i] = min(max(a[i] + lr * grad[i], clamp), 1.0 - clamp)
    return alpha


def features(Phi0, y):
    """Definition 1 (6.3.1): the SVD YΦ_0 = USVᵀ; returns (U, s, Vt) with s the n singular values
    (descending) and Vt the (n, m) top rows of Vᵀ. Requires m >= n and full row rank (s > 0)."""
    Phi0, y = _check_primal_data(Phi0, y)
    U, s, Vt = np.linalg.svd(y[:, None] * Phi0, full_matrices=False)
    if s[-1] <= 1e-12 * s[0]:
        raise ValueError(f"Phi0 must have full row rank (theory assumes every s_j > 0), got s_min/s_max = {s[-1] / s[0]:.3g}")
    return U, s, Vt


def _check_primal_data(Phi0, y):
    Phi0 = as_finite_array("Phi0", Phi0, ndim=2)
    y = as_finite_array("y", y, ndim=1)
    if y.shape != (Phi0.shape[0],):
        raise ValueError(f"y must have shape ({Phi0.shape[0]},) to match Phi0, got {y.shape}")
    if not np.all(np.abs(y) == 1.0):
        raise ValueError("y must hold labels in {-1, +1}")
    if Phi0.shape[1] < Phi0.shape[0]:
        raise ValueError(f"Phi0 must have at least as many columns (parameters) as rows (examples), got {Phi0.shape}")
    return Phi0, y


def _primal_gradient(Phi0, y, lam, theta, sd):
    logits = Phi0 @ theta
    weights = _sigmoid(-y * logits)
    penalty = lam * (Phi0.T @ logits) if sd else lam * theta
    return -Phi0.T @ (y * weights) + penalty


def primal_gd_theta(Phi0, y, lam, lr, steps, theta0=None, sd=False):
    """Gradient descent on Eq 5 (CE + (λ/2)‖θ‖²) or Eq 17 (CE + (λ/2)‖ŷ‖²) in parameter space, ŷ = Φ_0θ.
    Returns the (steps+1, m) trajectory of θ."""
    Phi0, y = _check_primal_data(Phi0, y)
    lam, lr = check_lambda(lam), require_positive("lr", lr)
    steps = require_integer("steps", steps, 0, 10**7)
    theta = np.zeros(Phi0.shape[1]) if theta0 is None else as_finite_array("theta0", theta0, ndim=1)
    if theta.shape != (Phi0.shape[1],):
        raise ValueError(f"theta0 must have shape ({Phi0.shape[1]},), got {theta.shape}")
    sd = check_bool("sd", sd)
    out = np.empty((steps + 1, theta.size))
    out[0] = theta
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(steps):
            out[k + 1] = out[k] - lr * _primal_gradient(Phi0, y, lam, out[k], sd)
            if not np.all(np.isfinite(out[k + 1])):
                break
    return check_finite_result(out, "lr", f"gradient descent diverged: lr = {lr:g} exceeds 2/curvature")


def primal_optimum(Phi0, y, lam, sd=False, tol=1e-13):
    """The minimiser θ* of Eq 5 (ridge logistic) or, with sd=True, the minimum-norm minimiser of Eq 17,
    by Newton's method in θ with backtracking (used only to cross-check the dual theory)."""
    Phi0, y = _check_primal_data(Phi0, y)
    lam, sd = check_lambda(lam), check_bool("sd", sd)
    m = Phi0.shape[1]
    theta = np.zeros(m)

    def loss(th):
        logits = Phi0 @ th
        ce = np.logaddexp(0.0, -y * logits).sum()
        return ce + 0.5 * lam * (logits @ logits if sd else th @ th)

    for _ in range(200):
        grad = _primal_gradient(Phi0, y, lam, theta, sd)
        if np.abs(grad).max() <= tol:
            return theta
        p = _sigmoid(y * (Phi0 @ theta))
        curvature = (p * (1.0 - p) + (lam if sd else 0.0))
        hessian = (Phi0.T * curvature) @ Phi0 + (0.0 if sd else lam * np.eye(m))
        direction = -np.linalg.lstsq(hessian, grad, rcond=1e-14)[0]  # minimum norm when sd (rank n)
        step, current = 1.0, loss(theta)
        while loss(theta + step * direction) > current + 1e-4 * step * (grad @ direction) and step > 1e-12:
            step *= 0.5
        theta = theta + step * direction
    raise RuntimeError(f"primal_optimum: Newton did not reach gradient {tol:g}; last {np.abs(grad).max():.3g}")


@nb.njit(cache=True)
def _dual_jacobian(alpha, params):
    """∂(dual_rhs)/∂α (Theorem 1): -(diag(1/(α(1-α))) + K), -(diag(1/α) + A), or the SD analogues."""
    n = alpha.shape[0]
    mode = int(params[0])
    if mode == CE_EXACT or mode == CE_APPROX:
        J = -params[1:].reshape((n, n)).copy()
    else:
        J = np.zeros((n, n))
        for i in range(n):
            J[i, i] = -(params[1] + (1.0 if mode == SD_APPROX else 0.0))
    exact = mode == CE_EXACT or mode == SD_EXACT
    for i in range(n):
        a = alpha[i]
        J[i, i] -= 1.0 / (a * (1.0 - a)) if exact else 1.0 / a
    return J


ALPHA_FLOOR = 1e-300  # below: the exact α_i ~ e^{-(Kα)_i} can underflow (e.g. e^{-2400}) in a transient
ALPHA_CEILING = 1.0 - 2.0 ** -53  # the largest double below 1


@nb.njit(cache=True)
def _into_float_range(alpha, exact):
    """Hold each α_i in [1e-300, 1 - 2^-53] (Eqs 9, 18) or [1e-300, inf) (Eq 10). In a stiff transient the
    exact α_i can be far below 1e-300 (or 1 - α_i below 2^-53); holding it there changes α by at most
    1e-300 (or 1.1e-16) in absolute terms, i.e. z by round-off, and keeps the barrier log finite."""
    out = alpha.copy()
    for i in range(out.shape[0]):
        if not (out[i] >= ALPHA_FLOOR):  # also catches NaN, which then fails the finiteness test below
            out[i] = ALPHA_FLOOR if out[i] < ALPHA_FLOOR else out[i]
        if exact and out[i] > ALPHA_CEILING:
            out[i] = ALPHA_CEILING
    return out


@nb.njit(cache=True)
def _rosenbrock23(params, alpha0, t_eval, rtol, atol, max_steps):
    """Shampine–Reichelt modified Rosenbrock 2(3) (MATLAB's ode23s; L-stable) for the stiff dual flows.

    The exact flows are stiff where some α_i is tiny (the barrier's curvature 1/α_i), e.g. right after
    α_0 = ½ when s²/λ is large: α_i dips to about e^{-(Kα)_i}, far below what an explicit method can
    step over, and can even underflow (see :func:`_into_float_range`). Steps are clipped to land on
    every output time. Returns (alpha rows, status, steps)."""
    n = alpha0.shape[0]
    mode = int(params[0])
    exact = mode == CE_EXACT or mode == SD_EXACT
    d = 1.0 / (2.0 + math.sqrt(2.0))
    e32 = 6.0 + math.sqrt(2.0)
    out = np.empty((t_eval.shape[0], n))
    y = alpha0.copy()
    t = 0.0
    k = 0
    while k < t_eval.shape[0] and t_eval[k] <= 0.0:
        out[k] = y
        k += 1
    f0 = dual_rhs(t, y, params)
    h = 1e-6
    steps = 0
    eye = np.eye(n)
    while k < t_eval.shape[0]:
        if steps >= max_steps:
            return out[:k], 1, steps
        target = t_eval[k]
        h = min(h, target - t)
        J = _dual_jacobian(y, params)
        W = eye - h * d * J
        k1 = _cholesky_solve(W, f0)
        f1 = dual_rhs(t + 0.5 * h, _into_float_range(y + 0.5 * h * k1, exact), params)
        k2 = _cholesky_solve(W, f1 - k1) + k1
        y_new = _into_float_range(y + h * k2, exact)
        f2 = dual_rhs(t + h, y_new, params)
        k3 = _cholesky_solve(W, f2 - e32 * (k2 - f1) - 2.0 * (k1 - f0))
        err = 0.0
        finite = True
        for i in range(n):
            if not (math.isfinite(f1[i]) and math.isfinite(f2[i]) and math.isfinite(y_new[i])):
                finite = False
            scale = atol + rtol * max(abs(y[i]), abs(y_new[i]))
            err += (h / 6.0 * (k1[i] - 2.0 * k2[i] + k3[i]) / scale) ** 2
        err = math.sqrt(err / n) if finite else math.inf
        steps += 1
        if err <= 1.0:
            t = target if h == target - t else t + h
            y = y_new
            f0 = f2
            while k < t_eval.shape[0] and t_eval[k] <= t:
                out[k] = y
                k += 1
            h = h * min(5.0, 0.9 * (max(err, 1e-10)) ** (-1.0 / 3.0))
        else:
            h = h * max(0.2, 0.9 * err ** (-1.0 / 3.0)) if math.isfinite(err) else 0.2 * h
            # No "t + h == t" test: in the dip α_i falls through many decades in a time far below the
            # spacing of doubles at t, so the state must be allowed to move while t does not.
            if h <= 1e-300:
                return out[:k], 2, steps
    return out, 0, steps
