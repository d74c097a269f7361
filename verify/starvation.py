"""Claims of gradient starvation (spec/starvation.md §5, P0-P20, and the errata of §7).

Every claim compares two independent routes: Newton fixed points against integrated dual flows,
closed forms (Lambert W) against Newton or ODEs, the dual against the primal optimum or primal
gradient descent, analytic derivatives against finite differences, sympy substitutions.
"""
import math

import mpmath
import numpy as np
import sympy as sp
from scipy import optimize, special

from dynamics import starvation as gs
from .registry import Check, claim

P = "004_798f714b6ee27590.txt"  # the paper; equation numbers as in [P], thesis (6.3.N)/(.5.N) in the spec
TOY_LAM, TOY_LAM_SD, TOY_S2 = 0.01, 0.002, 2.0


def _random_orthogonal(rng, n):
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    return q * np.sign(np.diag(r))


def _fd_response(U, s, lam, i, exact, h=1e-4):
    """Central finite difference of z* in s_i² (relative step h)."""
    sq = np.asarray(s, dtype=float) ** 2
    up, down = sq.copy(), sq.copy()
    step = h * sq[i]
    up[i] += step
    down[i] -= step
    return (gs.feature_response(U, np.sqrt(up), lam, exact) - gs.feature_response(U, np.sqrt(down), lam, exact)) / (2 * step)


def _rel(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b)) / np.abs(np.asarray(b))))


# ---------------------------------------------------------------- P0-P3: Lambert W and the Legendre dual
@claim("starvation.lambertw_theory_range", f"{P} §5 P0a-P0b (Eqs 12-13)",
       "The re-exported Lambert W matches scipy (rel < 1e-14) on c in [1, 1e12] where the theory uses it, "
       "with W(c)e^{W(c)} = c and log(W(c)/c) = -W(c) to relative 1e-14.", "identity")
def lambertw_theory_range():
    c = np.geomspace(1.0, 1e12, 2000)
    w = gs.lambertw(c)
    reference = special.lambertw(c, 0)
    checks = [Check(_rel(w, reference.real), 1e-14, detail="vs scipy"),
              Check(float(np.abs(reference.imag).max()), 0.0, detail="scipy imaginary part"),
              Check(_rel(w * np.exp(w), c), 1e-14, detail="W e^W = c"),
              Check(float(np.max(np.abs(np.log(w / c) + w) / w)), 1e-14, detail="log(W/c) = -W")]
    return Check.all_of(checks)


@claim("starvation.legendre_cross_entropy", f"{P} Lemma 2, Eqs 19-28, Table 4",
       "max over α in (0,1) of H(α) - αω, found by Brent's method, equals log(1+e^{-ω}) to 1e-12 on ω in [-30, 30], "
       "the dual objective at the critical α = σ(-ω) attains it (1e-12), and σ(-ω) = -dL/dω (central difference, to its "
       "truncation plus round-off error).",
       "identity")
def legendre_cross_entropy():
    value_errors, arg_errors = [], []
    for omega in np.linspace(-30.0, 30.0, 61):
        # maximise over the logit u (α = σ(u)) so that tiny α are resolved
        objective = lambda u: -gs.dual_objective("cross_entropy", special.expit(u), omega)
        best = optimize.minimize_scalar(objective, bracket=(-omega - 1.0, -omega + 1.0), method="brent", tol=1e-12)
        loss = gs.primal_loss("cross_entropy", omega)
        value_errors.append(abs(-best.fun - loss))
        # the maximum is flat in α, so Brent's argmax is only good to ~sqrt(eps); the value at σ(-ω) is sharp
        arg_errors.append(abs(gs.dual_objective("cross_entropy", gs.dual_maximiser("cross_entropy", omega), omega) - loss))
    # Lemma 2: the critical α is -dL/dω. A central difference against dual_maximiser checks the argmax itself,
    # not only the flat maximum. Its error: truncation h²·max|d³L/dω³|/6 (|σ''| <= 0.1) plus round-off of the two
    # loss values, 2ε·max L/(2h) (L reaches 30 at ω = -30).
    omegas, h = np.linspace(-30.0, 30.0, 61), 1e-5
    upper, lower = gs.primal_loss("cross_entropy", omegas + h), gs.primal_loss("cross_entropy", omegas - h)
    slope = (upper - lower) / (2 * h)
    argmax_error = np.abs(-slope - gs.dual_maximiser("cross_entropy", omegas)).max()
    fd_tolerance = 0.1 * h * h / 6 + 2 * np.finfo(float).eps * np.abs(upper).max() / (2 * h)
    return Check.all_of([Check(max(value_errors), 1e-12, detail=f"max |Brent max - primal| {max(value_errors):.2g}"),
                         Check(max(arg_errors), 1e-12, detail="dual objective at σ(-ω) vs primal"),
                         Check(argmax_error, fd_tolerance, detail="argmax σ(-ω) vs -dL/dω (finite difference)")])


@claim("starvation.legendre_hinge_squared", f"{P} Table 4 (supp. Table 2)",
       "The hinge dual max_{α∈[0,1]} α(1-ω) and the squared-error dual max_α(-α²/4 + α - αω) reproduce "
       "max(0, 1-ω) and (1-ω)² to 1e-12, the latter at α = 2(1-ω).", "identity")
def legendre_hinge_squared():
    omegas = np.linspace(-5.0, 5.0, 101)
    grid = np.linspace(0.0, 1.0, 1001)  # includes both end points, where a linear function peaks
    hinge = np.array([gs.dual_objective("hinge", grid, w).max() for w in omegas])
    squared = []
    for w in omegas:
        best = optimize.minimize_scalar(lambda a: -gs.dual_objective("squared", a, w), method="brent", tol=1e-12)
        squared.append((-best.fun, best.x))
    squared = np.array(squared)
    return Check.all_of([
        Check(np.abs(hinge - gs.primal_loss("hinge", omegas)).max(), 1e-12, detail="hinge"),
        Check(np.abs(squared[:, 0] - gs.primal_loss("squared", omegas)).max(), 1e-12, detail="squared value"),
        Check(np.abs(squared[:, 1] - gs.dual_maximiser("squared", omegas)).max(), 1e-6, detail="squared argmax")])


@claim("starvation.primal_equals_dual", f"{P} Eqs 5-9, 11",
       "For random (U, S, V, y) the Eq 9 fixed point equals σ(-Yŷ*) at the Newton optimum of the ridge-logistic "
       "primal, θ* = Φ_0ᵀYα*/λ, and z* (Eq 11) = SVᵀθ* = UᵀYŷ* (1e-8).", "identity")
def primal_equals_dual():
    rng = np.random.default_rng(3)
    checks = []
    for n, m, lam in ((2, 5, 0.1), (3, 6, 0.05), (4, 4, 0.5)):
        U, V = _random_orthogonal(rng, n), _random_orthogonal(rng, m)
        s = rng.uniform(0.5, 3.0, n)
        y = rng.choice([-1.0, 1.0], n)
        S = np.zeros((n, m))
        S[:n, :n] = np.diag(s)
        Phi0 = y[:, None] * (U @ S @ V.T)
        theta = gs.primal_optimum(Phi0, y, lam)
        logits = Phi0 @ theta
        alpha = gs.dual_fixed_point(U, s, lam)
        z = gs.feature_response(U, s, lam)
        checks += [Check(np.abs(alpha - special.expit(-y * logits)).max(), 1e-8, detail="α* vs σ(-Yŷ*)"),
                   Check(np.abs(theta - Phi0.T @ (y * alpha) / lam).max(), 1e-8, detail="θ*"),
                   Check(np.abs(z - S @ V.T @ theta).max(), 1e-8, detail="z vs SVᵀθ*"),
                   Check(np.abs(z - U.T @ (y * logits)).max(), 1e-8, detail="z vs UᵀYŷ*")]
    return Check.all_of(checks)


# ---------------------------------------------------------------- P4-P8: closed forms and Theorem 1
@claim("starvation.lambert_case2_ode", f"{P} Eq 13 (Eqs 47-53)",
       "With a permutation U, the Eq 10 flow integrated to t = 30 (rtol 1e-12) reaches the Lambert point "
       "α_π(j) = λW(1+s_j²/λ)/(s_j²+λ), z_j = s_j²W(1+s_j²/λ)/(s_j²+λ) (1e-10).", "identity")
def lambert_case2_ode():
    s, lam = np.sqrt([4.0, 1.0, 0.25, 9.0]), 0.1
    perm = np.eye(4)[:, [2, 0, 3, 1]]  # column j of U is the example carrying feature j
    alpha, z = gs.integrate_dual(perm, s, lam, [0.0, 30.0], exact=False, rtol=1e-12, atol=1e-14)
    alpha_closed, z_closed = gs.lambert_fixed_point(s, lam)
    return Check.all_of([Check(np.abs(alpha[-1] - perm @ alpha_closed).max(), 1e-10, detail="α"),
                         Check(np.abs(z[-1] - z_closed).max(), 1e-10, detail="z")])


@claim("starvation.lambert_case1_ode", f"{P} Eq 12 (Eqs 39-46)",
       "With S = sI and a random orthogonal U (n = 5), the Eq 10 flow and Newton reach α_i = λW(1+s²/λ)/(s²+λ) for "
       "all i and z_j = s²W(1+s²/λ)/(s²+λ)·Σ_i u_ij (1e-10).", "identity")
def lambert_case1_ode():
    U = _random_orthogonal(np.random.default_rng(5), 5)
    s, lam = np.full(5, math.sqrt(2.0)), 0.05
    alpha_closed, z_closed = gs.lambert_fixed_point(s[0], lam)
    _, z_ode = gs.integrate_dual(U, s, lam, [0.0, 30.0], exact=False, rtol=1e-12, atol=1e-14)
    alpha_newton = gs.dual_fixed_point(U, s, lam, exact=False)
    return Check.all_of([Check(np.abs(alpha_newton - alpha_closed).max(), 1e-10, detail="Newton α"),
                         Check(np.abs(z_ode[-1] - z_closed * U.sum(axis=0)).max(), 1e-10, detail="ODE z")])


@claim("starvation.no_starvation_uncoupled", f"{P} Eq 13, Definition 2",
       "With a permutation U, finite differences give ∂z_j*/∂s_i² = 0 for i ≠ j (< 1e-9); z_j* rises with s_j², "
       "falls with λ, and equals (1 - 1/c)W(c), c = 1 + s_j²/λ.", "theorem")
def no_starvation_uncoupled():
    U = np.eye(3)[:, [1, 2, 0]]
    s, lam = np.array([1.5, 0.7, 2.5]), 0.1
    cross = max(abs(_fd_response(U, s, lam, i, False)[j]) for i in range(3) for j in range(3) if i != j)
    own = min(_fd_response(U, s, lam, i, False)[i] for i in range(3))
    c = 1.0 + s * s / lam
    closed = (1.0 - 1.0 / c) * gs.lambertw(c)
    lam_grid = np.geomspace(1e-3, 10.0, 30)
    z_lam = np.array([gs.feature_response(U, s, l, exact=False) for l in lam_grid])
    return Check.all_of([Check(cross, 1e-9, detail="cross derivatives"),
                         Check(-own, 0.0, passed=own > 0, detail=f"min own derivative {own:.3g} > 0"),
                         Check(float(np.diff(z_lam, axis=0).max()), 0.0, passed=bool(np.all(np.diff(z_lam, axis=0) < 0)),
                               detail="z decreasing in λ"),
                         Check(np.abs(gs.feature_response(U, s, lam, exact=False) - closed).max(), 1e-12,
                               detail="(1 - 1/c)W(c)")])


@claim("starvation.exact_vs_approx_gap", f"{P} Eq 10 vs Eq 9, §2.4 table",
       "Uncoupled, Eq 10 over-estimates α*: 0 < (α_10 - α_9)/α_9, shrinking with c = 1+s²/λ, below 1.1e-3 for c >= 30 "
       "and 2.5e-6 for c >= 1000, but above 1e-2 for c <= 3 although λ < s² there (so App. C.4's 'λ < s²' must mean "
       "λ ≪ s², spec §7 item 11); the exact α_9 from z(1+e^z) = s²/λ matches Newton on Eq 9 (1e-12).", "bound")
def exact_vs_approx_gap():
    lam = 0.1
    c = np.geomspace(2.0, 1e4, 40)
    s = np.sqrt((c - 1.0) * lam)
    alpha10, _ = gs.lambert_fixed_point(s, lam)
    alpha9, _ = gs.exact_uncoupled_response(s, lam)
    newton9 = gs.dual_fixed_point(np.eye(c.size), s, lam, exact=True)
    gap = (alpha10 - alpha9) / alpha9
    return Check.all_of([
        Check(-gap.min(), 0.0, passed=bool(gap.min() > 0), detail="gap positive"),
        Check(0.0, 0.0, passed=bool(np.all(np.diff(gap) < 0)), detail="gap decreasing in c"),
        Check(gap[c >= 30].max(), 1.1e-3, detail="c >= 30"),
        Check(gap[c >= 1000].max(), 2.5e-6, detail="c >= 1000"),
        Check(-gap[c <= 3].min(), -1e-2, detail=f"c <= 3 (λ <= s²/2): gap {gap[c <= 3].min():.2g} > 1e-2"),
        Check(_rel(newton9, alpha9), 1e-12, detail="margin root vs Newton")])


def _fd_jacobian(params, alpha, h=1e-7):
    cols = []
    for k in range(alpha.size):
        e = np.zeros(alpha.size)
        e[k] = h * alpha[k]
        cols.append((gs.dual_rhs(0.0, alpha + e, params) - gs.dual_rhs(0.0, alpha - e, params)) / (2 * e[k]))
    return np.array(cols).T


def _theorem1_cases():
    rng = np.random.default_rng(11)
    for n in (2, 3, 5):
        yield _random_orthogonal(rng, n), rng.uniform(0.3, 4.0, n), float(rng.choice([0.01, 0.1, 1.0]))
    yield gs.coupling_matrix(0.5), np.array([6.0, 2.0]), TOY_LAM


@claim("starvation.theorem1_attractive", f"{P} Theorem 1, Eqs 36-38",
       "At the fixed points the Jacobians (checked by finite differences of the flows) are symmetric with "
       "λ_max <= -4 (Eq 9) and < -2 (Eq 10, fixed point in (0,1)^n); flows from 3 random α_0 reach the Newton point (1e-8).",
       "theorem")
def theorem1_attractive():
    rng = np.random.default_rng(12)
    checks = []
    for U, s, lam in _theorem1_cases():
        for exact, bound in ((True, -4.0), (False, -2.0)):
            alpha = gs.dual_fixed_point(U, s, lam, exact)
            J = gs.jacobian(U, s, lam, alpha, exact)
            fd = _fd_jacobian(gs.dual_params(U, s, lam, exact), alpha)
            top = np.linalg.eigvalsh(J).max()
            checks += [Check(np.abs(fd - J).max() / np.abs(J).max(), 1e-6, detail="J vs finite differences"),
                       Check(np.abs(J - J.T).max(), 0.0, detail="symmetric"),
                       Check(top - bound, 0.0, passed=bool(top <= bound if exact else top < bound),
                             detail=f"λ_max {top:.3g} vs {bound}")]
            for _ in range(3):
                start = rng.uniform(0.05, 0.95, U.shape[0])
                final, _ = gs.integrate_dual(U, s, lam, [0.0, 40.0], alpha0=start, exact=exact)
                checks.append(Check(np.abs(final[-1] - alpha).max(), 1e-8, detail="flow reaches the fixed point"))
    return Check.all_of(checks)


def _eq10_root_outside_unit_cube():
    """A strongly coupled n = 5 problem (λ = 1, s² spread over e^-8..e^10) whose Eq 10 root has one α_i ≈ 1.03 > 1
    (spec P8: not guaranteed to stay in (0,1)); found by a random search, U re-orthogonalised by QR."""
    M = np.array([[-0.336, -0.582, 0.303, 0.060, 0.673], [0.635, -0.513, -0.551, -0.113, 0.130],
                  [-0.691, -0.122, -0.691, -0.111, -0.130], [-0.047, -0.234, 0.282, -0.888, -0.274],
                  [0.061, 0.572, -0.218, -0.428, 0.662]])
    q, r = np.linalg.qr(M)
    return q * np.sign(np.diag(r)), np.exp(0.5 * np.array([-7.0, -5.5, 9.5, -8.0, 10.0])), 1.0


@claim("starvation.theorem1_eq10_outside_unit_cube", f"{P} Theorem 1, Eq 10 (spec P8, §2.5)",
       "For a strongly coupled U the Eq 10 root leaves (0,1)^n (max α_i > 1, not clipped); there the Jacobian "
       "-(diag(1/α) + A) still has λ_max < -1 (A ⪰ I), matches finite differences of the flow (1e-6), and the Eq 10 flow "
       "from α_0 = ½ reaches the Newton root (1e-8), while the Eq 9 root stays inside (0,1).", "theorem")
def theorem1_eq10_outside_unit_cube():
    U, s, lam = _eq10_root_outside_unit_cube()
    alpha = gs.dual_fixed_point(U, s, lam, exact=False)
    residual = np.abs(-np.log(alpha) - gs.dual_matrix(U, s, lam, exact=False) @ alpha).max()
    J = gs.jacobian(U, s, lam, alpha, exact=False)
    fd = _fd_jacobian(gs.dual_params(U, s, lam, exact=False), alpha)
    top = np.linalg.eigvalsh(J).max()
    flow, _ = gs.integrate_dual(U, s, lam, [0.0, 40.0], exact=False)
    exact_root = gs.dual_fixed_point(U, s, lam, exact=True)
    return Check.all_of([
        Check(1.0 - alpha.max(), 0.0, passed=bool(alpha.max() > 1.0), detail=f"max α_10 = {alpha.max():.4f} > 1"),
        Check(residual, 1e-12, detail="Eq 10 residual at the unclipped root"),
        Check(top + 1.0, 0.0, passed=bool(top < -1.0), detail=f"λ_max {top:.3g} < -1"),
        Check(np.abs(fd - J).max() / np.abs(J).max(), 1e-6, detail="J vs finite differences"),
        Check(np.abs(flow[-1] - alpha).max(), 1e-8, detail="Eq 10 flow reaches the root"),
        Check(exact_root.max() - 1.0, 0.0, passed=bool(exact_root.max() < 1.0), detail="Eq 9 root inside (0,1)")])


@claim("starvation.erratum_theorem1_eta", f"{P} Theorem 1 proof, Eqs 36-38 / (.5.18)-(.5.20) (spec §7 item 5)",
       "With learning rate η = 0.3 the OCR's Jacobian, η multiplying only the barrier term, misses the finite-difference "
       "Jacobian of the field η(log((1-α)/α) - Kα), while η·(-diag(1/(α(1-α))) - K) matches it (relative 1e-6).",
       "erratum")
def erratum_theorem1_eta():
    eta = 0.3
    U, s, lam = gs.coupling_matrix(0.5), np.array([6.0, TOY_S2]), TOY_LAM
    alpha = gs.dual_fixed_point(U, s, lam, exact=True)
    fd = eta * _fd_jacobian(gs.dual_params(U, s, lam, exact=True), alpha)  # the field with rate η is η·dual_rhs
    K = gs.dual_matrix(U, s, lam, exact=True)
    printed = -eta * np.diag(1.0 / (alpha * (1.0 - alpha))) - K
    corrected = eta * gs.jacobian(U, s, lam, alpha, exact=True)
    scale = np.abs(fd).max()
    return Check.erratum(np.abs(printed - fd).max() / scale, np.abs(corrected - fd).max() / scale, 1e-6)


@claim("starvation.erratum_theorem1_jacobian", f"{P} Theorem 1 proof, Eqs 36-38 (spec §7 item 6)",
       "The proof linearises Eq 9's field although the theorem is about Eq 10: Eq 9's Jacobian misses the Eq 10 flow's "
       "finite-difference Jacobian, while -(diag(1/α) + A) matches it (relative 1e-6).", "erratum")
def erratum_theorem1_jacobian():
    U, s, lam = gs.coupling_matrix(0.3), np.array([3.0, 1.0]), 0.1
    alpha = gs.dual_fixed_point(U, s, lam, exact=False)
    fd = _fd_jacobian(gs.dual_params(U, s, lam, exact=False), alpha)
    scale = np.abs(fd).max()
    printed = np.abs(gs.jacobian(U, s, lam, alpha, exact=True) - fd).max() / scale
    corrected = np.abs(gs.jacobian(U, s, lam, alpha, exact=False) - fd).max() / scale
    return Check.erratum(printed, corrected, 1e-6)


# ---------------------------------------------------------------- P9-P14: coupled case, Theorem 2
def _lemma1_error(delta, sq=(9.0, 4.0), lam=0.1):
    U, s = gs.coupling_matrix(delta), np.sqrt(sq)
    reference = gs.dual_fixed_point(U, s, lam, exact=False)
    return float(np.max(np.abs(gs.lemma1_fixed_point(U, s, lam) - reference) / reference))


@claim("starvation.lemma1_second_order", f"{P} Lemma 1, Eq 14 (Eqs 54-60)",
       "Eq 14 approximates the Eq 10 fixed point to O(δ²): err(δ)/δ² <= 0.1 for δ in [0.005, 0.5] at S² = (9,4), λ = 0.1, "
       "and err(δ)/err(δ/2) lies in [3.5, 4.5] for δ <= 0.05.", "limit")
def lemma1_second_order():
    deltas = np.array([0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5])
    errors = np.array([_lemma1_error(d) for d in deltas])
    ratios = [_lemma1_error(d) / _lemma1_error(d / 2) for d in (0.01, 0.02, 0.05)]
    worst = max(abs(r - 4.0) for r in ratios)
    return Check.all_of([Check((errors / deltas ** 2).max(), 0.1, detail=f"max err/δ² {(errors / deltas ** 2).max():.3f}"),
                         Check(worst, 0.5, detail=f"halving ratios {np.round(ratios, 3)}")])


@claim("starvation.erratum_eq14_inverse", f"{P} Eq 14 (6.3.14), spec §7 item 7",
       "[T] prints Eq 14 without the outer inverse; that form misses the Eq 10 fixed point by orders of magnitude, "
       "while (1 - log α_0)[A + diag(1/α_0)]⁻¹ is within 1e-3 (relative, δ = 0.1).", "erratum")
def erratum_eq14_inverse():
    U, s, lam = gs.coupling_matrix(0.1), np.sqrt([9.0, 4.0]), 0.1
    reference = gs.dual_fixed_point(U, s, lam, exact=False)
    printed = np.max(np.abs(gs.lemma1_fixed_point(U, s, lam, printed=True) - reference) / reference)
    corrected = np.max(np.abs(gs.lemma1_fixed_point(U, s, lam) - reference) / reference)
    return Check.erratum(printed, corrected, 1e-3)


@claim("starvation.first_order_response", f"{P} Eqs 63-64 (.5.45-.5.46)",
       "The first-order responses match the Eq 10 fixed point (Eq 11) within 3δ² for δ in {1e-3, 1e-2, 1e-1} at "
       "S² = (9,4), λ = 0.1 (measured: max error / 3δ²).", "limit")
def first_order_response():
    s, lam = np.sqrt([9.0, 4.0]), 0.1
    ratios = [np.abs(gs.first_order_response(s, lam, d) - gs.feature_response(gs.coupling_matrix(d), s, lam, False)).max()
              / (3 * d * d) for d in (1e-3, 1e-2, 1e-1)]
    return Check(max(ratios), 1.0, detail=f"error/(3δ²) = {np.round(ratios, 4)}")


@claim("starvation.eq65_derivative", f"{P} Eq 65 (.5.47)",
       "dz_2*/ds_1² of Eq 65 matches a central finite difference of the Eq 10 fixed point with relative error <= 3δ "
       "(δ = 1e-3, 1e-2; S² = (9,4), λ = 0.1); measured: relative error / 3δ.", "limit")
def eq65_derivative():
    s, lam = np.sqrt([9.0, 4.0]), 0.1
    ratios = []
    for d in (1e-3, 1e-2):
        fd = _fd_response(gs.coupling_matrix(d), s, lam, 0, False, h=1e-3)[1]
        ratios.append(abs(fd / gs.dz2_ds1sq(s, lam, d) - 1.0) / (3 * d))
    return Check(max(ratios), 1.0, detail=f"relative error / 3δ = {np.round(ratios, 3)}")


@claim("starvation.theorem2_exact_grid", f"{P} Theorem 2, Eq 16; App. B.1 (Fig 6)",
       "Exact model (Eq 9), Eq 15 coupling, λ = 0.01, s_2 = 2: over s_1 in [2, 6] z_2* strictly decreases and z_1* "
       "strictly increases for δ in {0.1, 0.5, 0.6}; the numba map equals pointwise Newton and the primal optimum (1e-8).",
       "theorem")
def theorem2_exact_grid():
    s1 = np.linspace(2.0, 6.0, 41)
    deltas = np.array([0.1, 0.5, 0.6])
    z = gs.starvation_map(s1, deltas, TOY_S2, TOY_LAM)
    checks = [Check(np.diff(z[..., 1], axis=1).max(), 0.0, passed=bool(np.all(np.diff(z[..., 1], axis=1) < 0)),
                    detail="z_2 decreasing"),
              Check(-np.diff(z[..., 0], axis=1).min(), 0.0, passed=bool(np.all(np.diff(z[..., 0], axis=1) > 0)),
                    detail="z_1 increasing")]
    V = _random_orthogonal(np.random.default_rng(1235), 2)
    for i, d in enumerate(deltas):
        U = gs.coupling_matrix(d)
        for j in (0, 20, 40):
            s = np.array([s1[j], TOY_S2])
            theta = gs.primal_optimum(U @ np.diag(s) @ V.T, np.ones(2), TOY_LAM)
            checks += [Check(np.abs(z[i, j] - gs.feature_response(U, s, TOY_LAM)).max(), 1e-12, detail="map vs Newton"),
                       Check(np.abs(z[i, j] - np.diag(s) @ V.T @ theta).max(), 1e-8, detail="map vs primal")]
    return Check.all_of(checks)


@claim("starvation.maximum_at_equal_strength", f"{P} Theorem 2 (spec §2.9 caveat 3)",
       "dz_2*/ds_1² = 0 at s_1 = s_2 (FD < 1e-8) for Eqs 9 and 10 and several δ; for δ > 0 z_2* rises for s_1 < s_2 and "
       "falls after; at S ∝ I, ∂z_j*/∂s_i² = 0 (i ≠ j) for a random orthogonal U (n = 4).", "theorem")
def maximum_at_equal_strength():
    checks = []
    s_equal = np.array([TOY_S2, TOY_S2])
    for d in (-0.5, 0.1, 0.5, 0.8):
        for exact in (True, False):
            fd = _fd_response(gs.coupling_matrix(d), s_equal, TOY_LAM, 0, exact)[1]
            checks.append(Check(abs(fd), 1e-8, detail=f"δ={d}, exact={exact}: {fd:.2g}"))
    s1 = np.linspace(0.5, 6.0, 56)
    for exact in (True, False):
        z2 = gs.starvation_map(s1, [0.1, 0.5], TOY_S2, TOY_LAM, exact)[..., 1]
        rising, falling = np.diff(z2[:, s1 <= TOY_S2], axis=1), np.diff(z2[:, s1 >= TOY_S2], axis=1)
        checks.append(Check(0.0, 0.0, passed=bool(rising.min() > 0 and falling.max() < 0), detail="unimodal"))
    U = _random_orthogonal(np.random.default_rng(4), 4)
    s = np.full(4, 1.3)
    for exact in (True, False):
        derivs = np.array([_fd_response(U, s, 0.1, i, exact) for i in range(4)])  # derivs[i, j] = ∂z_j/∂s_i²
        checks.append(Check(np.abs(derivs - np.diag(np.diag(derivs))).max(), 1e-8, detail="n-dim, S ∝ I"))
    return Check.all_of(checks)


@claim("starvation.erratum_theorem2_needs_positive_delta", f"{P} Theorem 2, Eq 16 (spec §7 item 18)",
       "Theorem 2 states dz_2*/ds_1² < 0 whenever s_1² > s_2², but δ > 0 is also needed: in the exact model the FD sign is "
       "-sign(δ)·sign(s_1² - s_2²) at every grid point, so the printed statement fails for every δ < 0 (measured: share "
       "of sign mismatches).", "erratum")
def erratum_theorem2_needs_positive_delta():
    printed, corrected, total = 0, 0, 0
    for d in (-0.5, -0.2, -0.05, 0.05, 0.2, 0.5):
        for s1 in (1.0, 1.5, 3.0, 4.0, 6.0):
            fd = _fd_response(gs.coupling_matrix(d), np.array([s1, TOY_S2]), TOY_LAM, 0, True)[1]
            total += 1
            printed += s1 > TOY_S2 and not fd < 0  # the printed theorem only speaks for s_1 > s_2
            corrected += np.sign(fd) != -np.sign(d) * np.sign(s1 ** 2 - TOY_S2 ** 2)
    return Check.erratum(printed / total, corrected / total, 0.0, reject_above=0.0,
                         detail=f"{printed} of {total} grid points contradict the printed form")


# ---------------------------------------------------------------- P15-P17: Spectral Decoupling
@claim("starvation.sd_fixed_point", f"{P} Eqs 17-18",
       "The Eq 18 flow from random α_0 reaches α_i = λm* with λm*(1+e^{m*}) = 1, and the SD primal optimum (Newton in θ) "
       "has every margin y_iŷ_i = m* (1e-10), for λ in {0.002, 0.01} and a random coupled problem.", "identity")
def sd_fixed_point():
    rng = np.random.default_rng(8)
    checks = []
    for lam in (TOY_LAM_SD, TOY_LAM):
        m_star = gs.sd_margin(lam)
        with mpmath.workdps(30):  # bracketing solver from [0, log(1/λ)], not started at m*
            lam_mp = mpmath.mpf(lam)
            reference = mpmath.findroot(lambda m: lam_mp * m * (1 + mpmath.exp(m)) - 1,
                                        (mpmath.mpf(0), mpmath.log(1 / lam_mp)), solver="anderson")
        checks.append(Check(abs(m_star / float(reference) - 1.0), 1e-15, detail="m* vs mpmath root (30 digits)"))
        U, s = _random_orthogonal(rng, 3), rng.uniform(0.5, 4.0, 3)
        alpha, _ = gs.integrate_dual(U, s, lam, [0.0, 12.0], alpha0=rng.uniform(0.05, 0.95, 3), sd=True)
        checks.append(Check(np.abs(alpha[-1] - lam * m_star).max(), 1e-10, detail="Eq 18 flow"))
        y = rng.choice([-1.0, 1.0], 3)
        Phi0 = y[:, None] * (U @ np.diag(s) @ _random_orthogonal(rng, 3).T)
        margins = y * (Phi0 @ gs.primal_optimum(Phi0, y, lam, sd=True))
        checks.append(Check(np.abs(margins - m_star).max(), 1e-10, detail="primal SD margins"))
    return Check.all_of(checks)


@claim("starvation.sd_decouples", f"{P} Eq 18 (SD claim, App. C.11)",
       "Under SD the primal optimum's response z = SVᵀθ* equals m*·Uᵀ1 and does not move as s_1 runs over [2, 6] "
       "or s_2 over [0.5, 4] (spread < 1e-10), while under CE z_2* falls (δ = 0.5, λ_SD = 0.002).", "theorem")
def sd_decouples():
    U = gs.coupling_matrix(0.5)
    V = _random_orthogonal(np.random.default_rng(2), 2)
    responses = []
    strengths = [(s1, TOY_S2) for s1 in np.linspace(2.0, 6.0, 9)] + [(6.0, s2) for s2 in (0.5, 1.0, 4.0)]
    for pair in strengths:
        S = np.diag(pair)
        responses.append(S @ V.T @ gs.primal_optimum(U @ S @ V.T, np.ones(2), TOY_LAM_SD, sd=True))
    responses = np.array(responses)
    z_sd, _ = gs.sd_fixed_point(U, TOY_LAM_SD)
    ce = gs.starvation_map(np.array([2.0, 6.0]), [0.5], TOY_S2, TOY_LAM_SD)[0, :, 1]
    return Check.all_of([Check(np.ptp(responses, axis=0).max(), 1e-10, detail="spread over s_1 and s_2"),
                         Check(np.abs(responses - z_sd).max(), 1e-10, detail="m*·Uᵀ1"),
                         Check(ce[1] - ce[0], 0.0, passed=bool(ce[1] < ce[0]), detail="CE starves z_2")])


@claim("starvation.sd_lambert_approx", f"{P} Eq 18 (spec §2.10, P17)",
       "λW(1+1/λ)/(1+λ), the fixed point of the approximate SD flow (integrated), approximates the exact SD α = λm* with "
       "relative error < 1e-5 for λ <= 0.002 and < 2e-4 for λ <= 0.01.", "bound")
def sd_lambert_approx():
    checks = []
    for lam, bound in ((0.0005, 1e-5), (0.002, 1e-5), (0.005, 2e-4), (0.01, 2e-4)):
        approx = gs.sd_lambert_approx(lam)
        flow, _ = gs.integrate_dual(np.eye(1), [1.0], lam, [0.0, 20.0], exact=False, sd=True, rtol=1e-13, atol=1e-15)
        checks += [Check(abs(flow[-1, 0] - approx), 1e-12, detail="approximate flow"),
                   Check(abs(approx / (lam * gs.sd_margin(lam)) - 1.0), bound, detail=f"λ={lam}")]
    return Check.all_of(checks)


# ---------------------------------------------------------------- P18-P20: dynamics and invariances
@claim("starvation.primal_gd_feature_coordinates", f"{P} Eqs 4-5, 17 (spec P18)",
       "Primal gradient descent written in z = SVᵀθ (V dropped) equals θ-space gradient descent mapped through SVᵀ, "
       "for CE and SD, to 1e-12 per step over 500 steps.", "identity")
def primal_gd_feature_coordinates():
    rng = np.random.default_rng(9)
    checks = []
    for sd in (False, True):
        n, m = 3, 5
        U, V = _random_orthogonal(rng, n), _random_orthogonal(rng, m)
        s, y = rng.uniform(0.5, 2.0, n), rng.choice([-1.0, 1.0], n)
        S = np.zeros((n, m))
        S[:, :n] = np.diag(s)
        Phi0 = y[:, None] * (U @ S @ V.T)
        thetas = gs.primal_gd_theta(Phi0, y, 0.05, 0.05, 500, sd=sd)
        zs = gs.primal_gd_z(U, s, 0.05, 0.05, 500, sd=sd)
        checks.append(Check(np.abs(thetas @ (S @ V.T).T - zs).max(), 1e-12, detail=f"sd={sd}"))
    return Check.all_of(checks)


@claim("starvation.primal_dual_trajectories", f"{P} App. A remark, App. B.1 (Fig 6; spec P19)",
       "Toy (s_1 = 6, δ = 0.5, λ = 0.01): primal GD (lr 0.05) and the code's dual GD (α_0 = 1e-8, lr 3e-6) differ on the "
       "way (|Δz| > 1 after 50 steps) yet both end at the Eq 9 fixed point: primal within 3e-8 after 20k steps and 1e-8 "
       "after 50k, dual within 1e-8.", "theorem")
def primal_dual_trajectories():
    U, s = gs.coupling_matrix(0.5), np.array([6.0, TOY_S2])
    target = gs.feature_response(U, s, TOY_LAM)
    primal = gs.primal_gd_z(U, s, TOY_LAM, 0.05, 50_000)
    _, dual = gs.dual_gd(U, s, TOY_LAM, 3e-6, 50_000)
    apart = np.abs(primal[50] - dual[50]).max()
    return Check.all_of([Check(-apart, -1.0, detail=f"trajectories apart at step 50 by {apart:.2f}"),
                         Check(np.abs(primal[20_000] - target).max(), 3e-8, detail="primal after 20k steps"),
                         Check(np.abs(primal[-1] - target).max(), 1e-8, detail="primal end"),
                         Check(np.abs(dual[-1] - target).max(), 1e-8, detail="dual end")])


@claim("starvation.invariances", f"{P} Definition 1, Eq 11 (spec P20)",
       "z* of the primal optimum is unchanged under V → VQ (Q orthogonal on the null block), and the sign flip "
       "(u_j, v_j) → (-u_j, -v_j) maps z_j → -z_j (1e-9).", "identity")
def invariances():
    rng = np.random.default_rng(10)
    n, m, lam = 3, 5, 0.1
    U, V = _random_orthogonal(rng, n), _random_orthogonal(rng, m)
    s, y = rng.uniform(0.5, 2.0, n), rng.choice([-1.0, 1.0], n)
    S = np.zeros((n, m))
    S[:, :n] = np.diag(s)

    def response(U_, V_):
        Phi0 = y[:, None] * (U_ @ S @ V_.T)
        return S @ V_.T @ gs.primal_optimum(Phi0, y, lam)

    base = response(U, V)
    Q = np.eye(m)
    Q[n:, n:] = _random_orthogonal(rng, m - n)  # rotates only directions with s = 0
    flip = np.ones(n)
    flip[1] = -1.0
    Vflip = V.copy()
    Vflip[:, :n] *= flip
    return Check.all_of([Check(np.abs(response(U, V @ Q) - base).max(), 1e-9, detail="V → VQ"),
                         Check(np.abs(response(U * flip, Vflip) - flip * base).max(), 1e-9, detail="sign flip"),
                         Check(np.abs(gs.feature_response(U * flip, s, lam) - flip * base).max(), 1e-9,
                               detail="dual sign flip")])


# ---------------------------------------------------------------- errata of printed forms
@claim("starvation.erratum_us2ut", f"{P} §3.4 (6.3.4), spec §7 item 4",
       "The source names UᵀS²U as the coupling term of Eq 9; with it the fixed point misses σ(-Yŷ*) of the primal "
       "optimum, while US²Uᵀ = YΦ_0Φ_0ᵀY matches it (1e-9).", "erratum")
def erratum_us2ut():
    U, s = gs.coupling_matrix(0.5), np.array([6.0, TOY_S2])
    V = _random_orthogonal(np.random.default_rng(7), 2)
    Phi0 = U @ np.diag(s) @ V.T
    truth = special.expit(-(Phi0 @ gs.primal_optimum(Phi0, np.ones(2), TOY_LAM)))
    printed = np.abs(gs.dual_fixed_point(U.T, s, TOY_LAM) - truth).max()  # U.T S² U = (Uᵀ) S² (Uᵀ)ᵀ
    corrected = np.abs(gs.dual_fixed_point(U, s, TOY_LAM) - truth).max()
    return Check.erratum(printed, corrected, 1e-9)


@claim("starvation.erratum_eq12_not_eq13", f"{P} App. B.1 (supp. §.4.1), spec §7 item 8",
       "At S = [2, 2] the text cites Eq 13, but the permutation-U form misses the Eq 10 fixed point of the δ = 0.5 toy, "
       "while Eq 12 (S² ∝ I) matches it (1e-12).", "erratum")
def erratum_eq12_not_eq13():
    U, s = gs.coupling_matrix(0.5), np.array([TOY_S2, TOY_S2])
    reference = gs.feature_response(U, s, TOY_LAM, exact=False)
    _, z13 = gs.lambert_fixed_point(s, TOY_LAM)
    z12 = z13 * U.sum(axis=0)
    return Check.erratum(np.abs(z13 - reference).max(), np.abs(z12 - reference).max(), 1e-12)


@claim("starvation.erratum_appendix_a_norm", f"{P} App. A, spec §7 item 9",
       "[T] prints ŷ = Φθ = UVᵀθ; ‖Φ_0θ‖ differs from ‖UVᵀθ‖ but equals ‖SVᵀθ‖ (relative 1e-13), which is why SD's "
       "‖ŷ‖² penalises directions by strength.", "erratum")
def erratum_appendix_a_norm():
    rng = np.random.default_rng(6)
    U, V = _random_orthogonal(rng, 3), _random_orthogonal(rng, 3)
    s, y = np.array([4.0, 1.0, 0.3]), np.array([1.0, -1.0, 1.0])
    Phi0 = y[:, None] * (U @ np.diag(s) @ V.T)
    printed, corrected = 0.0, 0.0
    for theta in rng.standard_normal((20, 3)):
        norm = np.linalg.norm(Phi0 @ theta)
        printed = max(printed, abs(np.linalg.norm(U @ V.T @ theta) / norm - 1.0))
        corrected = max(corrected, abs(np.linalg.norm(np.diag(s) @ V.T @ theta) / norm - 1.0))
    return Check.erratum(printed, corrected, 1e-13)


# ---------------------------------------------------------------- sympy: the Lambert forms solve their equations
def _lambert_residual(expression_of_alpha, c_value):
    """Substitute c = w e^w and W(c) = w (the definition of W) and simplify; also evaluate at c_value."""
    w = sp.symbols("w", positive=True)
    c = sp.symbols("c", positive=True)
    alpha = sp.LambertW(c) / c
    residual = expression_of_alpha(alpha, c)
    symbolic = sp.simplify(sp.expand_log(residual.subs(sp.LambertW(c), w).subs(c, w * sp.exp(w)), force=True))
    numeric = abs(sp.N(residual.subs(c, c_value), 40))
    return symbolic, float(numeric)


@claim("starvation.sympy_lambert_forms", f"{P} Eqs 12-13, 47-53; Eq 18 (spec §2.7, §2.10)",
       "sympy: with c = w e^w and W(c) = w, α = W(c)/c makes -log α - cα vanish identically; so Eq 13 solves "
       "-log α = (1 + s²/λ)α, Eq 12 solves it for S² = s²I, the SD form solves -log α = (1 + 1/λ)α, and "
       "z = s²α/λ = (1 - 1/c)W(c) (numeric residual at 40 digits).", "identity")
def sympy_lambert_forms():
    s2, lam = sp.symbols("s2 lam", positive=True)
    checks = []
    symbolic, numeric = _lambert_residual(lambda a, c: -sp.log(a) - c * a, sp.Rational(401))
    checks.append(Check(numeric, 1e-30, passed=symbolic == 0 and numeric < 1e-30, detail=f"residual {symbolic}"))
    # Eq 13 in the paper's variables: α = λW(1 + s²/λ)/(s² + λ) is W(c)/c with c = 1 + s²/λ.
    c_of = 1 + s2 / lam
    eq13 = lam * sp.LambertW(c_of) / (s2 + lam)
    checks.append(Check(0.0, 0.0, passed=sp.simplify(eq13 - sp.LambertW(c_of) / c_of) == 0, detail="Eq 13 = W(c)/c"))
    z13 = s2 * sp.LambertW(c_of) / (s2 + lam)
    checks.append(Check(0.0, 0.0, passed=sp.simplify(z13 - s2 / lam * eq13) == 0
                        and sp.simplify(z13 - (1 - 1 / c_of) * sp.LambertW(c_of)) == 0, detail="z forms"))
    # Eq 12: with U a rotation and S² = s²I, A = λ⁻¹U(s² + λ)Uᵀ is (1 + s²/λ)I, so each coordinate is the scalar case.
    d = sp.symbols("delta", real=True)
    U = sp.Matrix([[sp.sqrt(1 - d ** 2), -d], [d, sp.sqrt(1 - d ** 2)]])
    A = (U * (s2 + lam) * U.T) / lam
    checks.append(Check(0.0, 0.0, passed=sp.simplify(A - c_of * sp.eye(2)) == sp.zeros(2), detail="Eq 12 A ∝ I"))
    sd = lam * sp.LambertW(1 + 1 / lam) / (1 + lam)
    checks.append(Check(0.0, 0.0, passed=sp.simplify(sd - sp.LambertW(1 + 1 / lam) / (1 + 1 / lam)) == 0,
                        detail="SD = W(c)/c, c = 1 + 1/λ"))
    return Check.all_of(checks)
