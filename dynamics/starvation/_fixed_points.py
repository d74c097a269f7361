"""Fixed points of the dual dynamics of gradient starvation (spec/starvation.md §2; paper [P] numbering,
thesis [T] numbering in brackets).

* Eq 9 (6.3.9), exact dual: log((1-α_i)/α_i) = (Kα)_i with K = λ⁻¹US²Uᵀ, α ∈ (0,1)^n.
* Eq 10 (6.3.10), approximate dual: -log α_i = (Aα)_i with A = λ⁻¹U(S² + λI)Uᵀ, α ∈ (0,∞)^n.
* Eq 11 (6.3.11): z* = λ⁻¹S²Uᵀα*.
* Eqs 12-13 (6.3.12-13) and Eqs 47-53 (.5.29-.5.35): α* = W(c)/c, c = 1 + s²/λ (Lambert W, branch 0).
* Eq 14 (6.3.14), Lemma 1: α* ≈ (1 - log α_0)[A + diag(1/α_0)]⁻¹ (with the outer inverse, §7 item 7).
* Eqs 63-65 (.5.45-.5.47): first-order responses and dz_2*/ds_1² in the Eq 15 coupling.
* Eq 18 (6.3.18), Spectral Decoupling: λm(1 + e^m) = 1, α_i* = λm*, z_SD = m*Uᵀ1.

Both duals are solved by damped Newton on their strictly concave objectives (F_9 = ΣH(α) - ½αᵀKα,
F_10 = Σ(α - α log α) - ½αᵀAα), halving the step until the iterate is inside the domain and the
objective rises; so the Eq 9 iterates never leave (0,1)^n.
"""
import math

import numba as nb
import numpy as np

from dynamics.numerics import lambertw, lambertw_kernel, require_array_in_range
from ._validation import (check_bool, check_delta, check_finite_result, check_lambda, check_orthogonal,
                          check_problem, check_ratio, check_strengths)

RESIDUAL_TOLERANCE = 1e-12
_MAX_NEWTON = 200
CONVERGED, NOT_CONVERGED = 0, 1


@nb.njit(cache=True)
def _cholesky_solve(M, b):
    """Solve M x = b for a symmetric positive definite M (small n; no LAPACK inside prange)."""
    n = b.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        acc = M[j, j]
        for k in range(j):
            acc -= L[j, k] * L[j, k]
        L[j, j] = math.sqrt(acc)
        for i in range(j + 1, n):
            acc = M[i, j]
            for k in range(j):
                acc -= L[i, k] * L[j, k]
            L[i, j] = acc / L[j, j]
    y = np.empty(n)
    for i in range(n):
        acc = b[i]
        for k in range(i):
            acc -= L[i, k] * y[k]
        y[i] = acc / L[i, i]
    x = np.empty(n)
    for i in range(n - 1, -1, -1):
        acc = y[i]
        for k in range(i + 1, n):
            acc -= L[k, i] * x[k]
        x[i] = acc / L[i, i]
    return x


@nb.njit(cache=True)
def _inside(alpha, exact):
    for a in alpha:
        if not (a > 0.0) or (exact and not (a < 1.0)):
            return False
    return True


@nb.njit(cache=True)
def _gradient(Q, alpha, exact):
    """Gradient of F_9 (exact, Q = K) or F_10 (Q = A): the fixed-point residual in log form."""
    g = -(Q @ alpha)
    for i in range(alpha.shape[0]):
        a = alpha[i]
        g[i] += (math.log1p(-a) - math.log(a)) if exact else -math.log(a)
    return g


@nb.njit(cache=True)
def _objective(Q, alpha, exact):
    value = -0.5 * (alpha @ (Q @ alpha))
    for a in alpha:
        if exact:
            value += -a * math.log(a) - (1.0 - a) * math.log1p(-a)
        else:
            value += a - a * math.log(a)
    return value


@nb.njit(cache=True)
def _max_abs(v):
    out = 0.0
    for x in v:
        out = max(out, abs(x))
    return out


@nb.njit(cache=True)
def _roundoff_floor(Q, alpha):
    """The smallest residual float64 can resolve at α: a one-ulp change of α_j moves residual i by
    about |Q_ij|α_j·2^-52, so with max_i Σ_j|Q_ij|α_j ~ 1e5 (s²/λ ~ 1e5) no double α reaches 1e-12."""
    floor = 0.0
    for i in range(alpha.shape[0]):
        acc = 0.0
        for j in range(alpha.shape[0]):
            acc += abs(Q[i, j]) * alpha[j]
        floor = max(floor, acc)
    return 4.0 * 2.220446049250313e-16 * floor


@nb.njit(cache=True)
def _newton_dual(Q, exact, tol):
    """Damped Newton for the Eq 9 (exact) or Eq 10 fixed point; returns (alpha, residual, status).

    Starts from the uncoupled Lambert point W(c_i)/c_i with c_i = 1 + K_ii (in (0, Ω] ⊂ (0,1)).
    Converged means residual <= max(tol, round-off floor of the residual at α, see _roundoff_floor)."""
    n = Q.shape[0]
    alpha = np.empty(n)
    for i in range(n):
        c = (1.0 + Q[i, i]) if exact else Q[i, i]
        alpha[i] = lambertw_kernel(c, 0) / c
    g = _gradient(Q, alpha, exact)
    residual = _max_abs(g)
    value = _objective(Q, alpha, exact)
    for _ in range(_MAX_NEWTON):
        if residual <= max(tol, _roundoff_floor(Q, alpha)):
            return alpha, residual, CONVERGED
        curvature = Q.copy()
        for i in range(n):
            a = alpha[i]
            curvature[i, i] += 1.0 / (a * (1.0 - a)) if exact else 1.0 / a
        direction = _cholesky_solve(curvature, g)  # ascent direction of the concave objective
        slope = g @ direction
        step = 1.0
        accepted = False
        for _halving in range(80):
            trial = alpha + step * direction
            if _inside(trial, exact):
                trial_g = _gradient(Q, trial, exact)
                trial_value = _objective(Q, trial, exact)
                trial_residual = _max_abs(trial_g)
                # Armijo rise of the objective, or (at round-off level) a smaller residual.
                if trial_value >= value + 1e-4 * step * slope or trial_residual < residual:
                    accepted = True
                    break
            step *= 0.5
        if not accepted:
            break
        # Element-wise relative move: a coordinate near 1e-16 (strong coupling) still converges
        # after the large ones have stopped moving, so a move relative to max|α| would stop too early.
        moved = 0.0
        for i in range(n):
            moved = max(moved, abs(trial[i] - alpha[i]) / alpha[i])
        alpha, g, value, residual = trial, trial_g, trial_value, trial_residual
        if moved <= 4e-16:
            break
    return alpha, residual, CONVERGED if residual <= max(tol, _roundoff_floor(Q, alpha)) else NOT_CONVERGED


def dual_matrix(U, s, lam, exact=True):
    """K = λ⁻¹US²Uᵀ (Eq 9) or A = λ⁻¹U(S² + λI)Uᵀ = K + I (Eq 10), symmetrised."""
    U, s, lam = check_problem(U, s, lam)
    K = (U * (s * s)) @ U.T / lam
    K = 0.5 * (K + K.T)
    return K if check_bool("exact", exact) else K + np.eye(U.shape[0])


def _solve(Q, exact, what):
    alpha, residual, status = _newton_dual(np.ascontiguousarray(Q), exact, RESIDUAL_TOLERANCE)
    if status != CONVERGED:
        raise RuntimeError(f"{what}: damped Newton stopped at residual {residual:.3g} > {RESIDUAL_TOLERANCE:g} "
                           f"(max diagonal of the dual matrix, ~ s²/λ: {np.max(np.diag(Q)):.3g})")
    return alpha


def dual_fixed_point(U, s, lam, exact=True):
    """α*: the fixed point of Eq 9 (exact=True, α* ∈ (0,1)^n) or of Eq 10 (exact=False, α* ∈ (0,∞)^n).

    Damped Newton in float64 until max|residual of the log-form equation| <= 1e-12, or, when s²/λ is
    so large (~1e5) that one ulp of α moves the residual by more than that, to the round-off floor
    4ε·max_i Σ_j|Q_ij|α_j. The Eq 10 root is not clipped: for strongly coupled U it can leave (0,1)
    (spec P8)."""
    Q = dual_matrix(U, s, lam, exact)
    return _solve(Q, bool(exact), "dual_fixed_point")


def feature_response(U, s, lam, exact=True):
    """z* = λ⁻¹S²Uᵀα* (Eq 11) at the Eq 9 (exact) or Eq 10 fixed point."""
    U, s, lam = check_problem(U, s, lam)
    alpha = dual_fixed_point(U, s, lam, exact)
    return s * s * (U.T @ alpha) / lam


def _any_shape_strengths(s):
    return require_array_in_range("s", s, 0.0, np.inf, low_open=True)


def lambert_fixed_point(s, lam):
    """Eq 13 (6.3.13): α_i = λW(1 + s_i²/λ)/(s_i² + λ), z_i = s_i²W(1 + s_i²/λ)/(s_i² + λ) (U = I)."""
    s, lam = _any_shape_strengths(s), check_lambda(lam)
    c = 1.0 + check_ratio(s, lam)
    w = lambertw(c)
    return w / c, (1.0 - 1.0 / c) * w


@nb.njit(cache=True)
def _margin_root(r):
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


def exact_uncoupled_response(s, lam):
    """Exact (Eq 9) uncoupled response, U = I: z solves z(1 + e^z) = s²/λ; α = σ(-z) = λz/s².
    Returns (alpha, z) with the shape of s."""
    s, lam = _any_shape_strengths(s), check_lambda(lam)
    ratio = check_ratio(s, lam)
    z = np.array([_margin_root(x) for x in ratio.ravel()]).reshape(s.shape)
    # α = σ(-z) = exp(-softplus(z)) rather than λz/s², which is 0/0 when s² underflows (z = 0, α = ½)
    return np.exp(-np.logaddexp(0.0, z)), z


def _inverse_lambda(lam):
    lam = check_lambda(lam)
    if not math.isfinite(1.0 / lam):
        raise ValueError(f"lam must be >= 1/1.8e308 so that 1/λ is finite in float64, got {lam:.3g}")
    return 1.0 / lam


def sd_margin(lam):
    """m* > 0 with λm(1 + e^m) = 1: the common training margin under Spectral Decoupling (Eq 18)."""
    return float(_margin_root(_inverse_lambda(lam)))


def sd_fixed_point(U, lam):
    """Exact SD fixed point (Eq 18): (z_SD = m*Uᵀ1, m*); α_i* = λm* for every i, independent of S."""
    U = check_orthogonal(U)
    m_star = sd_margin(lam)
    return m_star * U.sum(axis=0), m_star


def sd_lambert_approx(lam):
    """The Eq-10-type approximation of the SD dual: α_SD ≈ λW(1 + 1/λ)/(1 + λ) (spec §2.10)."""
    c = 1.0 + _inverse_lambda(lam)
    return float(lambertw(c) / c)


def lemma1_fixed_point(U, s, lam, printed=False):
    """Lemma 1 (Eq 14 / 6.3.14): α* ≈ (1 - log α_0)[A + diag(α_0⁻¹)]⁻¹ with α_0i = W(A_ii)/A_ii at the
    actual diagonal of A. ``printed=True`` evaluates the form printed in [T] without the outer inverse
    (§7 item 7), only to show that it is wrong."""
    A = dual_matrix(U, s, lam, exact=False)
    diagonal = np.diag(A)
    alpha0 = lambertw(diagonal) / diagonal
    rhs = 1.0 - np.log(alpha0)
    M = A + np.diag(1.0 / alpha0)
    if check_bool("printed", printed):
        return rhs @ M
    return np.linalg.solve(M, rhs)  # A symmetric: the row vector times M⁻¹ is M⁻¹ times the column


def coupling_matrix(delta):
    """Eq 15 (6.3.15): U = [[√(1-δ²), -δ], [δ, √(1-δ²)]], δ in (-1, 1) (negative δ allowed, P14)."""
    delta = check_delta(delta)
    c = math.sqrt((1.0 - delta) * (1.0 + delta))
    return np.array([[c, -delta], [delta, c]])


def _two_features(s, lam, delta):
    s, lam = check_strengths(s, 2), check_lambda(lam)
    check_ratio(s, lam)
    return s * s, lam, check_delta(delta)


def first_order_response(s, lam, delta):
    """Eqs 63-64 (.5.45-.5.46), first order in δ for the Eq 15 coupling:
    z_1 ≈ s_1²W_1/(λ+s_1²) + δ s_1²(1+W_2)(λ+λe^{W_1}+s_2²)/(D_1D_2),
    z_2 ≈ s_2²W_2/(λ+s_2²) - δ s_2²(1+W_1)(λ+λe^{W_2}+s_1²)/(D_1D_2), D_i = λ + λe^{W_i} + s_i²."""
    sq, lam, delta = _two_features(s, lam, delta)
    w = lambertw(1.0 + sq / lam)
    d = lam + lam * np.exp(w) + sq
    cross = d[0] * d[1]
    z1 = sq[0] * w[0] / (lam + sq[0]) + delta * sq[0] * (1.0 + w[1]) * (lam + lam * math.exp(w[0]) + sq[1]) / cross
    z2 = sq[1] * w[1] / (lam + sq[1]) - delta * sq[1] * (1.0 + w[0]) * (lam + lam * math.exp(w[1]) + sq[0]) / cross
    return check_finite_result(np.array([z1, z2]), "s", "s² so large that the products D_1·D_2 overflow")


def dz2_ds1sq(s, lam, delta):
    """Eq 65 (.5.47): dz_2*/ds_1² = -δλs_2²(1+W_1)(e^{W_1} - e^{W_2}) / [(λ+λe^{W_1}+s_1²)²(λ+λe^{W_2}+s_2²)]
    + O(δ²); negative iff δ(s_1² - s_2²) > 0 (Theorem 2, with the δ > 0 assumption made explicit)."""
    sq, lam, delta = _two_features(s, lam, delta)
    w = lambertw(1.0 + sq / lam)
    e = np.exp(w)
    d = lam + lam * e + sq
    with np.errstate(over="ignore", invalid="ignore"):
        value = -delta * lam * sq[1] * (1.0 + w[0]) * (e[0] - e[1]) / (d[0] ** 2 * d[1])
    return float(check_finite_result(value, "s", "s² so large that (λ + λe^{W_1} + s_1²)²(λ + λe^{W_2} + s_2²) overflows"))


@nb.njit(cache=True, parallel=True)
def _map_kernel(s1_values, delta_values, s2, lam, exact, tol):
    rows, cols = delta_values.shape[0], s1_values.shape[0]
    z = np.empty((rows, cols, 2))
    status = np.zeros((rows, cols), dtype=np.int64)
    for flat in nb.prange(rows * cols):
        i, j = flat // cols, flat % cols
        delta = delta_values[i]
        c = math.sqrt((1.0 - delta) * (1.0 + delta))
        U = np.array([[c, -delta], [delta, c]])
        sq = np.array([s1_values[j] ** 2, s2 * s2])
        K = (U * sq) @ U.T / lam
        Q = 0.5 * (K + K.T)
        if not exact:
            Q[0, 0] += 1.0
            Q[1, 1] += 1.0
        alpha, _, status[i, j] = _newton_dual(Q, exact, tol)
        proj = U.T @ alpha
        z[i, j, 0] = sq[0] * proj[0] / lam
        z[i, j, 1] = sq[1] * proj[1] / lam
    return z, status


def starvation_map(s1, delta, s2=2.0, lam=0.01, exact=True):
    """Responses z* (shape (len(delta), len(s1), 2)) of the two-feature model with the Eq 15 coupling,
    over a grid of strengths s_1 and couplings δ, in a numba prange sweep of the Eq 9 (exact) or Eq 10
    fixed point. z[..., 1] is the starvation picture of the weak feature (s_2 fixed)."""
    s1 = check_strengths(s1, name="s1")
    delta = require_array_in_range("delta", delta, -1.0, 1.0, low_open=True, high_open=True, ndim=1)
    s2 = check_strengths([s2], name="s2")[0]
    lam = check_lambda(lam)
    check_ratio(s1, lam, "s1")
    check_ratio(s2, lam, "s2")
    z, status = _map_kernel(s1, delta, s2, lam, check_bool("exact", exact), RESIDUAL_TOLERANCE)
    if status.any():
        i, j = np.argwhere(status)[0]
        raise RuntimeError(f"starvation_map: Newton did not converge at s1={s1[j]:g}, delta={delta[i]:g}")
    return z
