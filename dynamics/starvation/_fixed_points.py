"""Fixed points of the dual dynamics of gradient starvation (spec/starvation.md §2; paper [P] numbering,
thesis [T] numbering in brackets). λ is ``weight_decay`` (Eq 5), a is ``output_penalty`` (Eq 17).

* Eq 9 (6.3.9), exact dual: log((1-α_i)/α_i) = (Kα)_i with K = λ⁻¹US²Uᵀ, α ∈ (0,1)^n.
* Eq 10 (6.3.10), approximate dual: -log α_i = (Aα)_i with A = λ⁻¹U(S² + λI)Uᵀ, α ∈ (0,∞)^n.
* Eq 11 (6.3.11): z* = λ⁻¹S²Uᵀα*.
* Eqs 12-13 (6.3.12-13) and Eqs 47-53 (.5.29-.5.35): α* = W(c)/c, c = 1 + s²/λ (Lambert W, branch 0).
* Eq 14 (6.3.14), Lemma 1: α* ≈ (1 - log α_0)[A + diag(1/α_0)]⁻¹ (with the outer inverse, §7 item 7).
* Eq 15 (6.3.15): the two-feature coupling U(δ); Eqs 63-65 (.5.45-.5.47): first-order responses and
  dz_2*/ds_1² (Theorem 2).
* Eq 18 (6.3.18), Spectral Decoupling: a·m(1 + e^m) = 1, α_i* = a·m*, z_SD = m*Uᵀ1.

Both duals are solved by damped Newton on their strictly concave objectives (F_9 = ΣH(α) - ½αᵀKα,
F_10 = Σ(α - α log α) - ½αᵀAα), halving the step until the iterate is inside the domain and the
objective rises; so the Eq 9 iterates never leave (0,1)^n. The Newton systems are solved by the
numerics core's :func:`~dynamics.numerics.cholesky_solve`.
"""
import math

import numba as nb
import numpy as np

from dynamics.numerics import (cholesky_solve, lambertw, lambertw_kernel, require_array_in_range, require_bool,
                               require_finite_result, require_orthogonal, require_positive)
from ._results import FixedPoint, SpectralDecouplingPoint
from ._validation import check_delta, check_inverse, check_problem, check_ratio, check_strengths

RESIDUAL_TOLERANCE = 1e-12
_MAX_NEWTON = 200
CONVERGED, NOT_CONVERGED = 0, 1


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
        direction = cholesky_solve(curvature, g)  # ascent direction of the concave objective
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


def dual_matrix(U, s, weight_decay, exact=True) -> np.ndarray:
    """The coupling matrix of the dual flow: K = λ⁻¹US²Uᵀ (Eq 9) or A = λ⁻¹U(S² + λI)Uᵀ = K + I (Eq 10).

    Parameters
    ----------
    U : array_like, shape (n, n)
        Orthogonal (max|UᵀU - I| <= 1e-10); column j holds the weights of feature j over the examples.
    s : array_like, shape (n,)
        Feature strengths (singular values of YΦ_0, not squared), > 0.
    weight_decay : float
        λ > 0 of the L2 penalty (λ/2)‖θ‖² (Eq 5); s²/λ must be finite in float64.
    exact : bool
        True for K (Eq 9), False for A (Eq 10).

    Returns
    -------
    ndarray, shape (n, n)
        The symmetric matrix K or A.

    Examples
    --------
    >>> dual_matrix(np.eye(2), [2.0, 1.0], 0.5, exact=False)
    array([[9., 0.],
           [0., 3.]])
    """
    U, s, weight_decay = check_problem(U, s, weight_decay)
    K = (U * (s * s)) @ U.T / weight_decay
    K = 0.5 * (K + K.T)
    return K if require_bool("exact", exact) else K + np.eye(U.shape[0])


def _solve(Q, exact, what):
    alpha, residual, status = _newton_dual(np.ascontiguousarray(Q), exact, RESIDUAL_TOLERANCE)
    if status != CONVERGED:
        raise RuntimeError(f"{what}: damped Newton stopped at residual {residual:.3g} > {RESIDUAL_TOLERANCE:g} "
                           f"(max diagonal of the dual matrix, ~ s²/λ: {np.max(np.diag(Q)):.3g})")
    return alpha


def dual_fixed_point(U, s, weight_decay, exact=True) -> FixedPoint:
    """The fixed point α* of the exact (Eq 9 / 6.3.9) or approximate (Eq 10 / 6.3.10) dual flow, and z* (Eq 11).

    Damped Newton in float64 until max|residual of the log-form equation| <= 1e-12, or, when s²/λ is so
    large (~1e5) that one ulp of α moves the residual by more than that, to the round-off floor
    4ε·max_i Σ_j|Q_ij|α_j. The Eq 10 root is not clipped: for strongly coupled U it can leave (0,1)
    (spec P8).

    Parameters
    ----------
    U : array_like, shape (n, n)
        Orthogonal; column j holds the weights of feature j over the examples.
    s : array_like, shape (n,)
        Feature strengths, > 0.
    weight_decay : float
        λ > 0 of (λ/2)‖θ‖² (Eq 5).
    exact : bool
        True: Eq 9, log((1-α)/α) = Kα, α* ∈ (0,1)^n. False: Eq 10, -log α = Aα, α* ∈ (0,∞)^n.

    Returns
    -------
    FixedPoint
        ``alpha`` (n,): α*; ``z`` (n,): the feature responses z* = λ⁻¹S²Uᵀα* (Eq 11).

    Raises
    ------
    RuntimeError
        If Newton does not reach the tolerance (not observed on any valid input).

    Examples
    --------
    >>> point = dual_fixed_point(coupling_matrix(0.5), [6.0, 2.0], 0.01)
    >>> point.z.round(5).tolist()
    [9.07102, 1.18534]
    >>> bool(np.all((point.alpha > 0) & (point.alpha < 1)))
    True
    """
    Q = dual_matrix(U, s, weight_decay, exact)
    alpha = _solve(Q, bool(exact), "dual_fixed_point")
    U, s = np.asarray(U, dtype=np.float64), np.asarray(s, dtype=np.float64)
    return FixedPoint(alpha, s * s * (U.T @ alpha) / weight_decay)


def feature_response(U, s, weight_decay, exact=True) -> np.ndarray:
    """The feature responses z* = λ⁻¹S²Uᵀα* (Eq 11 / 6.3.11) at the Eq 9 (exact) or Eq 10 fixed point.

    With exact=True this is the response of the linearised model at the ridge-logistic optimum,
    z* = SVᵀθ* = UᵀYŷ*; with exact=False it is the quantity the Lambert closed forms describe.

    Parameters
    ----------
    U : array_like, shape (n, n)
        Orthogonal.
    s : array_like, shape (n,)
        Feature strengths, > 0.
    weight_decay : float
        λ > 0.
    exact : bool
        Eq 9 (True) or Eq 10 (False).

    Returns
    -------
    ndarray, shape (n,)
        z*, one entry per feature.

    Examples
    --------
    >>> feature_response(np.eye(2), [2.0, 1.0], 0.1, exact=False).round(6).tolist()
    [2.648624, 1.642275]
    """
    return dual_fixed_point(U, s, weight_decay, exact).z


def _any_shape_strengths(s):
    return require_array_in_range("s", s, 0.0, np.inf, low_open=True)


def lambert_fixed_point(s, weight_decay) -> FixedPoint:
    """The uncoupled closed form of Eq 13 (6.3.13): α = λW(1 + s²/λ)/(s² + λ), z = s²W(1 + s²/λ)/(s² + λ).

    Equivalently α = W(c)/c and z = (1 - 1/c)W(c) with c = 1 + s²/λ (Lambert W, branch 0). It is the
    Eq 10 fixed point for U = I (and, relabelled, for any permutation U).

    Parameters
    ----------
    s : float or array_like
        Feature strengths, > 0, any shape.
    weight_decay : float
        λ > 0; s²/λ must be finite in float64.

    Returns
    -------
    FixedPoint
        ``alpha`` and ``z``, each with the shape of ``s``.

    Examples
    --------
    >>> point = lambert_fixed_point([2.0, 1.0, 0.5, 3.0], 0.1)
    >>> point.alpha.round(8).tolist()
    [0.06621559, 0.16422751, 0.32293981, 0.03640664]
    """
    s = _any_shape_strengths(s)
    weight_decay = require_positive("weight_decay", weight_decay)
    c = 1.0 + check_ratio(s, weight_decay)
    w = lambertw(c)
    return FixedPoint(w / c, (1.0 - 1.0 / c) * w)


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


def exact_uncoupled_response(s, weight_decay) -> FixedPoint:
    """The exact (Eq 9) uncoupled fixed point, U = I: z solves z(1 + e^z) = s²/λ and α = σ(-z) = λz/s².

    The Eq 9 counterpart of :func:`lambert_fixed_point` (spec §2.4); the gap between the two measures
    the Eq 10 approximation.

    Parameters
    ----------
    s : float or array_like
        Feature strengths, > 0, any shape.
    weight_decay : float
        λ > 0; s²/λ must be finite in float64.

    Returns
    -------
    FixedPoint
        ``alpha`` = σ(-z) and ``z``, each with the shape of ``s``.

    Examples
    --------
    >>> point = exact_uncoupled_response([2.0], 0.1)
    >>> z = point.z[0]
    >>> bool(abs(z * (1 + np.exp(z)) - 40.0) < 1e-12), bool(abs(point.alpha[0] - 0.1 * z / 4.0) < 1e-15)
    (True, True)
    """
    s = _any_shape_strengths(s)
    weight_decay = require_positive("weight_decay", weight_decay)
    ratio = check_ratio(s, weight_decay)
    z = np.array([_margin_root(x) for x in ratio.ravel()]).reshape(s.shape)
    # α = σ(-z) = exp(-softplus(z)) rather than λz/s², which is 0/0 when s² underflows (z = 0, α = ½)
    return FixedPoint(np.exp(-np.logaddexp(0.0, z)), z)


def sd_margin(output_penalty) -> float:
    """The Spectral Decoupling margin m* > 0 with a·m(1 + e^m) = 1 (Eq 18 / 6.3.18), to relative 1e-15.

    Parameters
    ----------
    output_penalty : float
        a > 0 of the penalty (a/2)‖ŷ‖² (Eq 17); 1/a must be finite.

    Returns
    -------
    float
        m*, the common training margin y_i ŷ_i at the SD optimum.

    Examples
    --------
    >>> round(sd_margin(0.002), 10), round(sd_margin(0.01), 10)
    (4.6651204124, 3.3592750454)
    """
    output_penalty = check_inverse(output_penalty, "output_penalty")
    return float(_margin_root(1.0 / output_penalty))


def sd_fixed_point(U, output_penalty) -> SpectralDecouplingPoint:
    """The exact Spectral Decoupling fixed point (Eq 18 / 6.3.18): z_SD = m*·Uᵀ1, the same for any S.

    Every dual variable is α_i* = a·m* and every training margin is m* (:func:`sd_margin`).

    Parameters
    ----------
    U : array_like, shape (n, n)
        Orthogonal.
    output_penalty : float
        a > 0 of (a/2)‖ŷ‖² (Eq 17).

    Returns
    -------
    SpectralDecouplingPoint
        ``z`` (n,): the responses; ``margin``: m*.

    Examples
    --------
    >>> point = sd_fixed_point(coupling_matrix(0.5), 0.002)
    >>> point.z.round(6).tolist(), round(point.margin, 6)
    ([6.372673, 1.707553], 4.66512)
    """
    U = require_orthogonal("U", U)
    margin = sd_margin(output_penalty)
    return SpectralDecouplingPoint(margin * U.sum(axis=0), margin)


def sd_lambert_approx(output_penalty) -> float:
    """The Eq-10-type approximation of the SD dual (spec §2.10, P17): α_SD ≈ aW(1 + 1/a)/(1 + a).

    It is the fixed point of the approximate SD flow -log α = (1 + 1/a)α and approximates the exact
    α_SD = a·m* (:func:`sd_margin`) with relative error < 1e-5 for a <= 0.002.

    Parameters
    ----------
    output_penalty : float
        a > 0 of (a/2)‖ŷ‖² (Eq 17); 1/a must be finite.

    Returns
    -------
    float
        The approximate dual variable.

    Examples
    --------
    >>> bool(abs(sd_lambert_approx(0.002) / (0.002 * sd_margin(0.002)) - 1) < 1e-5)
    True
    """
    output_penalty = check_inverse(output_penalty, "output_penalty")
    c = 1.0 + 1.0 / output_penalty
    return float(lambertw(c) / c)


def lemma1_fixed_point(U, s, weight_decay, printed=False) -> FixedPoint:
    """Lemma 1 (Eq 14 / 6.3.14): α* ≈ (1 - log α_0)[A + diag(α_0⁻¹)]⁻¹, α_0i = W(A_ii)/A_ii.

    α_0 is evaluated at the actual diagonal of A (spec §7 item 19). ``printed=True`` evaluates the form
    printed in [T], without the outer inverse (§7 item 7), only to show that it is wrong.

    Parameters
    ----------
    U : array_like, shape (n, n)
        Orthogonal.
    s : array_like, shape (n,)
        Feature strengths, > 0.
    weight_decay : float
        λ > 0.
    printed : bool
        Evaluate the printed (wrong) form instead.

    Returns
    -------
    FixedPoint
        ``alpha``: the approximate Eq 10 fixed point; ``z`` = λ⁻¹S²Uᵀα.

    Examples
    --------
    >>> U, s = coupling_matrix(0.01), np.array([3.0, 2.0])
    >>> approx, exact = lemma1_fixed_point(U, s, 0.1), dual_fixed_point(U, s, 0.1, exact=False)
    >>> bool(np.max(np.abs(approx.alpha / exact.alpha - 1)) < 1e-4)
    True
    """
    A = dual_matrix(U, s, weight_decay, exact=False)
    diagonal = np.diag(A)
    alpha0 = lambertw(diagonal) / diagonal
    rhs = 1.0 - np.log(alpha0)
    M = A + np.diag(1.0 / alpha0)
    # A symmetric: the row vector times M⁻¹ is M⁻¹ times the column
    alpha = rhs @ M if require_bool("printed", printed) else np.linalg.solve(M, rhs)
    U, s = np.asarray(U, dtype=np.float64), np.asarray(s, dtype=np.float64)
    return FixedPoint(alpha, s * s * (U.T @ alpha) / weight_decay)


def coupling_matrix(delta) -> np.ndarray:
    """The two-feature coupling of Eq 15 (6.3.15): U = [[√(1-δ²), -δ], [δ, √(1-δ²)]].

    Parameters
    ----------
    delta : float
        δ in (-1, 1); negative δ is allowed (it reverses Theorem 2's sign, spec P14).

    Returns
    -------
    ndarray, shape (2, 2)
        An orthogonal matrix.

    Examples
    --------
    >>> coupling_matrix(0.6)
    array([[ 0.8, -0.6],
           [ 0.6,  0.8]])
    """
    delta = check_delta(delta)
    c = math.sqrt((1.0 - delta) * (1.0 + delta))
    return np.array([[c, -delta], [delta, c]])


def _two_features(s, weight_decay, delta):
    s = check_strengths(s, 2)
    weight_decay = require_positive("weight_decay", weight_decay)
    check_ratio(s, weight_decay)
    return s * s, weight_decay, check_delta(delta)


def _decoupled_terms(sq, lam):
    """(W_i, e^{W_i}, D_i = λ + λe^{W_i} + s_i²) with W_i = W(1 + s_i²/λ), the decoupled (δ = 0) solution's terms."""
    w = lambertw(1.0 + sq / lam)
    e = np.exp(w)
    return w, e, lam + lam * e + sq


def first_order_response(s, weight_decay, delta) -> np.ndarray:
    """The responses to first order in δ for the Eq 15 coupling (Eqs 63-64 / .5.45-.5.46).

    z_1 ≈ s_1²W_1/(λ+s_1²) + δ s_1²(1+W_2)(λ+λe^{W_1}+s_2²)/(D_1D_2),
    z_2 ≈ s_2²W_2/(λ+s_2²) - δ s_2²(1+W_1)(λ+λe^{W_2}+s_1²)/(D_1D_2), with W_i = W(1 + s_i²/λ) and
    D_i = λ + λe^{W_i} + s_i². The error against the Eq 10 fixed point is O(δ²) (spec P10).

    Parameters
    ----------
    s : array_like, shape (2,)
        (s_1, s_2), > 0.
    weight_decay : float
        λ > 0.
    delta : float
        δ in (-1, 1).

    Returns
    -------
    ndarray, shape (2,)
        (z_1, z_2).

    Examples
    --------
    >>> first_order_response([3.0, 2.0], 0.1, 1e-3).round(8).tolist()
    [3.28004169, 2.64586958]
    """
    sq, lam, delta = _two_features(s, weight_decay, delta)
    w, e, d = _decoupled_terms(sq, lam)
    cross = d[0] * d[1]
    z1 = sq[0] * w[0] / (lam + sq[0]) + delta * sq[0] * (1.0 + w[1]) * (lam + lam * e[0] + sq[1]) / cross
    z2 = sq[1] * w[1] / (lam + sq[1]) - delta * sq[1] * (1.0 + w[0]) * (lam + lam * e[1] + sq[0]) / cross
    return require_finite_result(np.array([z1, z2]), "first_order_response",
                                 "s and weight_decay: s² so large that the products D_1·D_2 overflow")


def dz2_ds1sq(s, weight_decay, delta) -> float:
    """Theorem 2's derivative (Eq 65 / .5.47), first order in δ for the Eq 15 coupling.

    dz_2*/ds_1² = -δλs_2²(1+W_1)(e^{W_1} - e^{W_2}) / [(λ+λe^{W_1}+s_1²)²(λ+λe^{W_2}+s_2²)] + O(δ²):
    negative iff δ(s_1² - s_2²) > 0 (Theorem 2, with its δ > 0 assumption made explicit, spec §7 item 18).

    Parameters
    ----------
    s : array_like, shape (2,)
        (s_1, s_2), > 0.
    weight_decay : float
        λ > 0.
    delta : float
        δ in (-1, 1).

    Returns
    -------
    float
        The derivative of the weak feature's response with respect to s_1².

    Examples
    --------
    >>> f"{dz2_ds1sq([3.0, 2.0], 0.1, 1e-3):.4e}"
    '-2.7094e-05'
    """
    sq, lam, delta = _two_features(s, weight_decay, delta)
    w, e, d = _decoupled_terms(sq, lam)
    with np.errstate(over="ignore", invalid="ignore"):
        value = -delta * lam * sq[1] * (1.0 + w[0]) * (e[0] - e[1]) / (d[0] ** 2 * d[1])
    return float(require_finite_result(value, "dz2_ds1sq", "s and weight_decay: s² so large that "
                                                           "(λ + λe^{W_1} + s_1²)²(λ + λe^{W_2} + s_2²) overflows"))


@nb.njit(cache=True)
def _map_cell(flat, s1_values, delta_values, s2, weight_decay, exact, tol, z, status):
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
    alpha, _, status[i, j] = _newton_dual(Q, exact, tol)
    proj = U.T @ alpha
    z[i, j, 0] = sq[0] * proj[0] / weight_decay
    z[i, j, 1] = sq[1] * proj[1] / weight_decay


@nb.njit(cache=True)
def _map_serial(s1_values, delta_values, s2, weight_decay, exact, tol, z, status):
    for flat in range(delta_values.shape[0] * s1_values.shape[0]):
        _map_cell(flat, s1_values, delta_values, s2, weight_decay, exact, tol, z, status)


@nb.njit(cache=True, parallel=True)
def _map_parallel(s1_values, delta_values, s2, weight_decay, exact, tol, z, status):
    for flat in nb.prange(delta_values.shape[0] * s1_values.shape[0]):
        _map_cell(flat, s1_values, delta_values, s2, weight_decay, exact, tol, z, status)


#: Grids with fewer cells run on one thread: a cell takes about 10 µs, and starting the worker threads and
#: waiting for the slowest costs from microseconds on an idle machine to tens of milliseconds on a busy one.
PARALLEL_MAP_CELLS = 1024


def starvation_map(s1, delta, s2=2.0, weight_decay=0.01, exact=True) -> np.ndarray:
    """The responses z* of the two-feature model with the Eq 15 coupling over an (s_1, δ) grid (Theorem 2).

    A numba sweep (``prange`` from 1024 cells on) of the Eq 9 (exact) or Eq 10 fixed point (the same damped Newton as
    :func:`dual_fixed_point`) followed by Eq 11; z[..., 1] is the starvation picture of the weak feature.

    Parameters
    ----------
    s1 : array_like, shape (k,)
        Strengths of feature 1, > 0.
    delta : array_like, shape (r,)
        Couplings δ in (-1, 1).
    s2 : float
        Strength of feature 2, > 0.
    weight_decay : float
        λ > 0.
    exact : bool
        Eq 9 (True) or Eq 10 (False).

    Returns
    -------
    ndarray, shape (r, k, 2)
        z*[i, j] = (z_1*, z_2*) at δ = delta[i], s_1 = s1[j].

    Examples
    --------
    >>> z = starvation_map([2.0, 6.0], [0.5])
    >>> z[0, :, 1].round(5).tolist()
    [1.63997, 1.18534]
    """
    s1 = check_strengths(s1, name="s1")
    delta = require_array_in_range("delta", delta, -1.0, 1.0, low_open=True, high_open=True, ndim=1)
    s2 = check_strengths([s2], name="s2")[0]
    weight_decay = require_positive("weight_decay", weight_decay)
    check_ratio(s1, weight_decay, "s1")
    check_ratio(s2, weight_decay, "s2")
    z, status = np.empty((delta.size, s1.size, 2)), np.zeros((delta.size, s1.size), dtype=np.int64)
    kernel = _map_parallel if delta.size * s1.size >= PARALLEL_MAP_CELLS else _map_serial
    kernel(s1, delta, s2, weight_decay, require_bool("exact", exact), RESIDUAL_TOLERANCE, z, status)
    if status.any():
        i, j = np.argwhere(status)[0]
        raise RuntimeError(f"starvation_map: Newton did not converge at s1={s1[j]:g}, delta={delta[i]:g}")
    return z
