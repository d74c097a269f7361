"""The numba kernels of gradient starvation (every ``@njit`` of the package; the checked Python functions that call
them are in the topic modules).

* the dual vector field of Eqs 9, 10, 18 and the approximate SD flow, and its Jacobian (Theorem 1, Eqs 36-38);
* the Eq 9 / Eq 10 fixed point as a damped-Newton problem for ``dynamics.numerics.newton``: the strictly
  concave objectives F_9 = ΣH(α) - ½αᵀKα and F_10 = Σ(α - α log α) - ½αᵀAα, their gradients (the fixed-point
  residuals in log form), curvatures, domains ((0,1)^n, (0,∞)^n) and round-off floor, the uncoupled Lambert start,
  and the (s_1, δ) sweep of the Eq 15 coupling (Theorem 2) in ``prange``;
* the margin root z(1 + e^z) = r (exact uncoupled response, Spectral Decoupling's Eq 18);
* primal gradient descent in feature coordinates (Eq 5 or Eq 17 mapped through z = SVᵀθ) and the authors' dual gradient
  ascent on Eq 8;
* the two-moons nets of Fig 1 (App. B.2): full-batch SGD with momentum and weight decay, the forward and backward
  passes fused per sample, one net per ``prange`` iteration.

A dual problem is a parameter array ``params = [mode, Q.ravel()]`` (cross-entropy, Q = K for Eq 9 or A = K + I for
Eq 10) or ``[mode, 1/a]`` (Spectral Decoupling), with ``mode`` one of the codes below.
"""
import math

import numba as nb
import numpy as np

from dynamics.numerics import lambertw_kernel, sigmoid_kernel
from dynamics.numerics.newton import newton_maximise_kernel

CE_EXACT, CE_APPROX, SD_EXACT, SD_APPROX = 0, 1, 2, 3
MOVE_TOLERANCE = 4e-16  # Newton stops when no α_i moves by more than this relative to itself


# ---------------------------------------------------------------- the dual flows (Eqs 9, 10, 18; Theorem 1)
@nb.njit(cache=True)
def dual_rhs(t: float, alpha: np.ndarray, params: np.ndarray) -> np.ndarray:
    """The dual vector field of Eq 9, Eq 10, Eq 18 or the approximate SD flow, for :func:`~dynamics.numerics.solve_ode`.

    NaN outside the domain ((0, 1)^n for Eqs 9 and 18, (0, ∞)^n for Eq 10), so that an adaptive
    integrator rejects a step that leaves it.

    Parameters
    ----------
    t : float
        Dual-flow time (unused: the field is autonomous).
    alpha : ndarray, shape (n,)
        The dual variable.
    params : ndarray
        :func:`~dynamics.starvation.dual_params`'s array: [mode, Q.ravel()] (cross-entropy, Q = K or A) or [mode, 1/a]
        (SD).

    Returns
    -------
    ndarray, shape (n,)
        dα/dt.

    Examples
    --------
    >>> from dynamics.starvation import dual_params
    >>> params = dual_params(np.eye(2), [2.0, 1.0], weight_decay=0.5, exact=False)
    >>> dual_rhs(0.0, np.array([0.1, 0.2]), params).round(6).tolist()
    [1.402585, 1.009438]
    """
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


@nb.njit(cache=True)
def dual_jacobian(t, alpha, params):
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


# ---------------------------------------------------------------- the Eq 9 / Eq 10 fixed point as a Newton problem
# params = [mode, Q.ravel()], mode CE_EXACT (Eq 9, Q = K) or CE_APPROX (Eq 10, Q = A); the maximiser of the
# strictly concave F is the fixed point, and ∇F is the fixed-point residual in log form. Q is read in place from
# params; F and ∇F share the product Qα (the sweep of starvation_map spends its time here).
@nb.njit(cache=True)
def fixed_point_inside(alpha, params):
    """Whether α is in the domain: (0, 1)^n (Eq 9) or (0, ∞)^n (Eq 10)."""
    exact = params[0] == CE_EXACT
    for a in alpha:
        if not (a > 0.0) or (exact and not (a < 1.0)):
            return False
    return True


@nb.njit(cache=True)
def fixed_point_objective(alpha, params):
    """(F, ∇F): F_9 = ΣH(α_i) - ½αᵀKα or F_10 = Σ(α_i - α_i log α_i) - ½αᵀAα, and its gradient
    log((1-α)/α) - Kα or -log α - Aα, the fixed-point residual in log form."""
    n = alpha.shape[0]
    exact = params[0] == CE_EXACT
    coupling = params[1:].reshape((n, n)) @ alpha
    value = -0.5 * (alpha @ coupling)
    g = -coupling
    for i in range(n):
        a = alpha[i]
        if exact:
            value += -a * math.log(a) - (1.0 - a) * math.log1p(-a)
            g[i] += math.log1p(-a) - math.log(a)
        else:
            value += a - a * math.log(a)
            g[i] += -math.log(a)
    return value, g


@nb.njit(cache=True)
def fixed_point_curvature(alpha, params):
    """-∇²F: Q + diag(1/(α(1-α))) (Eq 9) or Q + diag(1/α) (Eq 10), symmetric positive definite."""
    n = alpha.shape[0]
    exact = params[0] == CE_EXACT
    curvature = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            curvature[i, j] = params[1 + i * n + j]
    for i in range(n):
        a = alpha[i]
        curvature[i, i] += 1.0 / (a * (1.0 - a)) if exact else 1.0 / a
    return curvature


@nb.njit(cache=True)
def fixed_point_floor(alpha, params):
    """The smallest residual float64 can resolve at α: a one-ulp change of α_j moves residual i by
    about |Q_ij|α_j·2^-52, so with max_i Σ_j|Q_ij|α_j ~ 1e5 (s²/λ ~ 1e5) no double α reaches 1e-12."""
    n = alpha.shape[0]
    floor = 0.0
    for i in range(n):
        acc = 0.0
        for j in range(n):
            acc += abs(params[1 + i * n + j]) * alpha[j]
        floor = max(floor, acc)
    return 4.0 * 2.220446049250313e-16 * floor


@nb.njit(cache=True)
def solve_fixed_point(params, functions, tol, max_iter):
    """Damped Newton for the Eq 9 (exact) or Eq 10 fixed point from the uncoupled Lambert point W(c_i)/c_i, with
    c_i = 1 + K_ii (Eq 9, in (0, Ω] ⊂ (0, 1)) or A_ii (Eq 10); ``functions`` are the addresses of the four
    ``fixed_point_*`` functions. Returns (α, residual, converged): a plain tuple, which crosses into Python
    faster than the :class:`~dynamics.numerics.NewtonResult` it unpacks."""
    n = int(round(math.sqrt(params.shape[0] - 1)))
    exact = params[0] == CE_EXACT
    alpha = np.empty(n)
    for i in range(n):
        c = (1.0 + params[1 + i * n + i]) if exact else params[1 + i * n + i]
        alpha[i] = lambertw_kernel(c, 0) / c
    result = newton_maximise_kernel(functions, alpha, params, tol, max_iter, MOVE_TOLERANCE)
    return result.x, result.residual, result.converged


@nb.njit(cache=True)
def map_cell(flat, s1_values, delta_values, s2, weight_decay, exact, functions, tol, max_iter, z, status):
    cols = s1_values.shape[0]
    i, j = flat // cols, flat % cols
    delta = delta_values[i]
    c = math.sqrt((1.0 - delta) * (1.0 + delta))
    U = np.array([[c, -delta], [delta, c]])
    sq = np.array([s1_values[j] ** 2, s2 * s2])
    K = (U * sq) @ U.T / weight_decay
    Q = 0.5 * (K + K.T)
    if not exact:
        Q[0, 0] += 1.0
        Q[1, 1] += 1.0
    params = np.empty(5)
    params[0] = CE_EXACT if exact else CE_APPROX
    params[1], params[2], params[3], params[4] = Q[0, 0], Q[0, 1], Q[1, 0], Q[1, 1]  # no slice assignment: it
    # would compile numba's shape-error formatting on a cold cache
    alpha, _, converged = solve_fixed_point(params, functions, tol, max_iter)
    status[i, j] = 0 if converged else 1
    proj = U.T @ alpha
    z[i, j, 0] = sq[0] * proj[0] / weight_decay
    z[i, j, 1] = sq[1] * proj[1] / weight_decay


@nb.njit(cache=True)
def map_serial(s1_values, delta_values, s2, weight_decay, exact, functions, tol, max_iter, z, status):
    for flat in range(delta_values.shape[0] * s1_values.shape[0]):
        map_cell(flat, s1_values, delta_values, s2, weight_decay, exact, functions, tol, max_iter, z, status)


@nb.njit(cache=True, parallel=True)
def map_parallel(s1_values, delta_values, s2, weight_decay, exact, functions, tol, max_iter, z, status):
    for flat in nb.prange(delta_values.shape[0] * s1_values.shape[0]):
        map_cell(flat, s1_values, delta_values, s2, weight_decay, exact, functions, tol, max_iter, z, status)


# ---------------------------------------------------------------- the margin root (Eq 9 uncoupled, Eq 18)
@nb.njit(cache=True)
def margin_root(r):
    """The z >= 0 with z(1 + e^z) = r, in the log form log z + log(1 + e^z) = log r (monotone).

    Bracketed by W(r/2) <= z <= W(r) (since z e^z <= z(1 + e^z) <= 2 z e^z); safeguarded Newton."""
    if r == 0.0:
        return 0.0
    low = lambertw_kernel(0.5 * r, 0)
    high = lambertw_kernel(r, 0)
    log_r = math.log(r)
    z = 0.5 * (low + high)
    for _ in range(100):
        softplus = z + math.log1p(math.exp(-z))
        f = math.log(z) + softplus - log_r
        if f > 0.0:
            high = z
        else:
            low = z
        slope = 1.0 / z + 1.0 / (1.0 + math.exp(-z))
        step = f / slope
        candidate = z - step
        if not (low < candidate < high):
            candidate = 0.5 * (low + high)
        if abs(candidate - z) <= 1e-16 * z or high - low <= 2e-16 * z:
            return candidate
        z = candidate
    return z


# ---------------------------------------------------------------- gradient descent, primal (in z) and dual (Eq 8)
@nb.njit(cache=True)
def primal_z_steps(U, sq, penalty, learning_rate, n_steps, z0, sd):
    n = z0.shape[0]
    z = np.empty((n_steps + 1, n))
    z[0] = z0
    for k in range(n_steps):
        margins = U @ z[k]
        weights = np.empty(n)
        for i in range(n):
            weights[i] = sigmoid_kernel(-margins[i])
        pull = sq * (U.T @ weights)
        if sd:
            z[k + 1] = z[k] + learning_rate * (pull - penalty * sq * z[k])
        else:
            z[k + 1] = (1.0 - learning_rate * penalty) * z[k] + learning_rate * pull
    return z


@nb.njit(cache=True)
def dual_ascent_steps(K, alpha0, learning_rate, n_steps, clamp):
    n = alpha0.shape[0]
    alpha = np.empty((n_steps + 1, n))
    alpha[0] = alpha0
    for k in range(n_steps):
        a = alpha[k]
        grad = -(K @ a)
        for i in range(n):
            grad[i] += math.log1p(-a[i]) - math.log(a[i])
            alpha[k + 1, i] = min(max(a[i] + learning_rate * grad[i], clamp), 1.0 - clamp)
    return alpha


# ---------------------------------------------------------------- the two-moons nets (Fig 1, App. B.2)
@nb.njit(cache=True)
def moons_logits(X, wh, wv, b1, w2, b2, out):
    """out[i] = w₂ᵀ relu(W₁ x_i + b₁) + b₂ for one net, W₁ given by its columns (wh, wv) (X (n, 2))."""
    for i in range(X.shape[0]):
        x0, x1 = X[i, 0], X[i, 1]
        s = b2
        for h in range(w2.shape[0]):
            s += w2[h] * max(wh[h] * x0 + wv[h] * x1 + b1[h], 0.0)
        out[i] = s


@nb.njit(cache=True, parallel=True)
def moons_sgd(X, y, penalty, W1, b1, w2, b2, n_steps, record_steps, learning_rate, momentum, weight_decay, logits):
    """Full-batch SGD on mean softplus(-yŷ) + (a/2)·mean ŷ² for each net b (torch.optim.SGD's update: d = ∇ + λθ,
    buffer = d on the first step and μ·buffer + d after, θ -= η·buffer). Updates the parameters in place and writes
    ŷ at the steps ``record_steps`` (ascending, the last = n_steps) into ``logits`` (r, B, n)."""
    B, n = y.shape
    H = w2.shape[1]
    for b in nb.prange(B):
        # this net's parameters, gradients and momentum buffers (zero, so the first step's buffer is its d) as contiguous vectors over the hidden units
        wh, wv, c, v, c2 = W1[b, :, 0].copy(), W1[b, :, 1].copy(), b1[b].copy(), w2[b].copy(), b2[b]
        gh, gv, gc, gw = np.empty(H), np.empty(H), np.empty(H), np.empty(H)
        mh, mv, mc, mw = np.zeros(H), np.zeros(H), np.zeros(H), np.zeros(H)
        m2 = 0.0
        out = np.empty(n)
        record = 0
        for step in range(n_steps + 1):
            moons_logits(X[b], wh, wv, c, v, c2, out)
            if step == record_steps[record]:
                logits[record, b] = out
                record += 1
            if step == n_steps:
                break
            gh[:] = 0.0
            gv[:] = 0.0
            gc[:] = 0.0
            gw[:] = 0.0
            g2 = 0.0
            for i in range(n):
                # n ∂loss/∂ŷ_i = -y σ(-yŷ) + a ŷ
                g = (penalty[b] * out[i] - y[b, i] / (1.0 + math.exp(y[b, i] * out[i]))) / n
                g2 += g
                x0, x1 = X[b, i, 0], X[b, i, 1]
                for h in range(H):  # branch-free, so that it vectorises
                    pre = wh[h] * x0 + wv[h] * x1 + c[h]
                    gate = g if pre > 0.0 else 0.0
                    gw[h] += g * max(pre, 0.0)
                    gh[h] += gate * x0
                    gv[h] += gate * x1
                    gc[h] += gate
            for h in range(H):
                # layer 1's gradient carries w₂ from before this step's update
                mh[h] = momentum * mh[h] + (v[h] * gh[h] + weight_decay * wh[h])
                mv[h] = momentum * mv[h] + (v[h] * gv[h] + weight_decay * wv[h])
                mc[h] = momentum * mc[h] + (v[h] * gc[h] + weight_decay * c[h])
                mw[h] = momentum * mw[h] + (gw[h] + weight_decay * v[h])
                wh[h] -= learning_rate * mh[h]
                wv[h] -= learning_rate * mv[h]
                c[h] -= learning_rate * mc[h]
                v[h] -= learning_rate * mw[h]
            m2 = momentum * m2 + (g2 + weight_decay * c2)
            c2 -= learning_rate * m2
        W1[b, :, 0] = wh
        W1[b, :, 1] = wv
        b1[b] = c
        w2[b] = v
        b2[b] = c2
