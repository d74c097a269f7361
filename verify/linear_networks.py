"""Claims of the linear-network theory: Saxe mode learning (Saxe et al. 2014; Pezeshki (thesis), Sec. 2.2),
Advani–Saxe generalization dynamics (Advani & Saxe 2017; Pezeshki (thesis), Sec. 2.3), and the properties of the
public closed forms (their limits, scalings and the inputs they refuse). The theory note,
docs/theory/linear_networks.md, states the equations they check.

Every claim computes both sides by independent routes: closed forms against numerical integration of
the matrix ODEs, against plain gradient descent, against finite-size simulations of random instances,
against Monte Carlo, against SciPy quadrature, or against sympy substitution.

Claims that draw random numbers (random tasks, inits, instances, spectra, Monte Carlo) are stochastic: they
take the run context and draw every seed through ``run.rng(base)``. Their tolerances are either numerical
(round-off and integrator tolerances, which hold for every draw) or statistical: a Bonferroni bound at a
family-wise level of 1e-4 over the claim's m comparisons (``_critical``: the normal quantile, or Student's t
with n − 1 degrees of freedom where the standard error is estimated from n draws), plus a separately stated
bound on any finite-size bias.
"""
import functools
import math
import warnings

import numpy as np

from dynamics import linear_networks as ln
from dynamics import numerics as nx
from .registry import Check, claim, lazy_module, planted_bug, relative_error

mpmath = lazy_module("mpmath")
sp = lazy_module("sympy")
integrate = lazy_module("scipy.integrate")
optimize = lazy_module("scipy.optimize")
stats = lazy_module("scipy.stats")

S_SMALL_TASK = np.array([3.0, 2.0, 1.0, 0.5, 0.25])
S_RANDOM_TASK = np.array([4.0, 3.0, 2.0, 1.5, 1.0, 0.7, 0.5, 0.3])
FAMILY_LEVEL = 1e-4


def _critical(m, n=None):
    """Two-sided critical value at a family-wise level of 1e-4 over m comparisons (Bonferroni): the normal
    quantile, or Student's t with n − 1 degrees of freedom when each standard error is estimated from n draws."""
    p = 0.5 * FAMILY_LEVEL / m
    return float(stats.norm.isf(p) if n is None else stats.t.isf(p, n - 1))


def _rate(sizes, errors, expected, slack=0.0, detail=""):
    """``Check.rate`` over a ladder, where an error of exactly 0 (a term that vanished, e.g. a dropped correction)
    fails the check (reported as non-finite) instead of leaving the fit short of sizes."""
    errors = np.asarray(errors, dtype=float)
    return Check.rate(sizes, np.where(errors > 0, errors, np.nan), expected, slack=slack, detail=detail)


def _flow_options(rtol, atol):
    """network_flow's integrator ("auto": DOP853, then rosenbrock23) at the claim's tolerances."""
    return ln.NETWORK_ODE_OPTIONS._replace(rtol=rtol, atol=atol)


# ----------------------------------------------------------------------------------------------------
# Part A: mode learning in a two-weight-layer linear network
# ----------------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=4)
def _decoupled_flow_run(seed):
    """Whitened task N1 = 6, N2 = 6, N3 = 5 (random U, V, R), decoupled balanced init a0 = 1e-3, flow to t = 12."""
    rng = np.random.default_rng(seed)
    task = ln.mode_task(S_SMALL_TASK, 6, 5, seed=rng)
    init = ln.decoupled_init(task.U, task.V, n_hidden=6, a0=1e-3, seed=rng)
    run = ln.network_flow(*init, task.correlation, np.linspace(0.0, 12.0, 121), options=_flow_options(1e-12, 1e-16))
    return task, run


@claim("linear_networks.closed_form_vs_matrix_flow", "Pezeshki (thesis), Eqs 2.2.5–2.2.6, 2.2.22",
       "Under whitening and a decoupled balanced init (random U, V, R), the mode strengths diag(Uᵀ W32 W21 V) of the "
       "integrated full-matrix flow follow the sigmoid (2.2.22) to 1e-8 (integrator at rtol 1e-12) for "
       "s = 3, 2, 1, 0.5, 0.25 over t in [0, 12].", "identity", stochastic=True)
def closed_form_vs_matrix_flow(run):
    task, flow = _decoupled_flow_run(run.seed(11))
    simulated = ln.mode_strengths(flow.W21, flow.W32, task.U, task.V)
    theory = ln.mode_strength(flow.t[:, None], S_SMALL_TASK[None, :], 1e-6)
    return Check.at_most(np.abs(simulated - theory).max(), 1e-8, f"max |u_flow − u_closed| over {flow.t.size} times")


@claim("linear_networks.decoupled_manifold_invariant", "Pezeshki (thesis), Eq 2.2.14",
       "The decoupled manifold is invariant: the off-diagonal couplings a^α·b^β (α ≠ β) of the mode-basis map "
       "stay below 1e-10 (round-off and integrator error) along the full-matrix flow of a random task.",
       "identity", stochastic=True)
def decoupled_manifold_invariant(run):
    task, flow = _decoupled_flow_run(run.seed(11))
    M = ln.mode_map(flow.W21, flow.W32, task.U, task.V)
    off = M * (1.0 - np.eye(*M.shape[1:]))
    return Check.at_most(np.abs(off).max(), 1e-10, "max off-diagonal |(Uᵀ W32 W21 V)_{βα}|")


def _mode_energy(Wb21, Wb32, s, prefactor):
    """The energy (2.2.13) written out in connectivity modes, a^α the columns of W̄21 = W21 V and b^β the rows of
    W̄32 = Uᵀ W32: prefactor·[Σ_α (s_α − a^α·b^α)² + Σ_{α≠β} (a^α·b^β)²] (s_α = 0 beyond the rank)."""
    n1, n3 = Wb21.shape[1], Wb32.shape[0]
    cooperative = sum(((s[k] if k < s.size else 0.0) - Wb21[:, k] @ Wb32[k]) ** 2 for k in range(min(n1, n3)))
    competitive = sum((Wb21[:, a] @ Wb32[b]) ** 2 for a in range(n1) for b in range(n3) if a != b)
    return prefactor * (cooperative + competitive)


def _derivative(f, x, h):
    """f'(x) by the five-point central difference (elementwise for arrays), exact up to round-off for polynomials
    of degree <= 4 (its truncation term is h⁴ f⁽⁵⁾/30)."""
    return (f(x - 2 * h) - 8 * f(x - h) + 8 * f(x + h) - f(x + 2 * h)) / (12 * h)


def _gradient(f, x, h):
    """∂f/∂x for a scalar function of the array x, entry by entry (:func:`_derivative`)."""
    grad = np.empty_like(x)
    for i in np.ndindex(x.shape):
        def along(step, i=i):
            y = x.copy()
            y[i] += step
            return f(y)
        grad[i] = _derivative(along, 0.0, h)
    return grad


def _flow_velocity(W21, W32, sigma31, tau, h=1e-3):
    """(W21', W32') at t = 0 of the library's integrated flow (2.2.5–6): the fourth-order forward difference
    (−25 f0 + 48 f1 − 36 f2 + 16 f3 − 3 f4)/(12h) on the integrated trajectory at t = 0, h, …, 4h (rtol 1e-13)."""
    flow = ln.network_flow(W21, W32, sigma31, h * np.arange(5.0), tau=tau, options=_flow_options(1e-13, 1e-18))
    c = np.array([-25.0, 48.0, -36.0, 16.0, -3.0]) / (12 * h)
    return np.tensordot(c, flow.W21, axes=1), np.tensordot(c, flow.W32, axes=1)


_TAUS = (1.0, 1.7)


@claim("linear_networks.erratum_energy_prefactor", "Pezeshki (thesis), Eqs 2.2.13, 2.2.17",
       "Erratum: the flow is gradient flow on the energy only with the prefactor 1/(2τ). The velocity of the "
       "library's integrated full-matrix flow (2.2.5–6) (fourth-order forward difference at t = 0) at a random "
       "non-decoupled point of a random whitened task (N1 = 6, N2 = 6, N3 = 5), rotated into the mode basis, equals "
       "−∂E/∂(a^α, b^β) of (2.2.13) written out as its two sums (five-point differences, exact for a quartic), and "
       "scalar_mode_velocity (2.2.15–16) equals −∂E/∂(a, b) of (2.2.17) on a grid of (a, b), both for τ = 1 and 1.7, "
       "to 1e-7 relative (the difference and integrator error) with the prefactor 1/(2τ); the printed energies without "
       "a prefactor give gradients 2τ times the velocity (relative error |2τ − 1| >= 1, rejected above 0.5).",
       "erratum", stochastic=True,
       printed="E = Σ_α (s_α − a^α·b^α)² + Σ_{α≠β} (a^α·b^β)² (2.2.13) and E(s − ab)² (2.2.17), no legible prefactor",
       corrected="E = 1/(2τ) Σ_α (s_α − a^α·b^α)² + 1/(2τ) Σ_{α≠β} (a^α·b^β)² and E(a, b) = 1/(2τ)(s − ab)², "
                 "whose negative gradients are (2.2.11–12) and (2.2.15–16)",
       printed_math=r"E = \sum_\alpha (s_\alpha - a^\alpha \cdot b^\alpha)^2 "
                    r"+ \sum_{\alpha \ne \beta} (a^\alpha \cdot b^\beta)^2 \quad\text{and}\quad E = (s - ab)^2",
       corrected_math=r"E = \frac{1}{2\tau} \sum_\alpha (s_\alpha - a^\alpha \cdot b^\alpha)^2 "
                      r"+ \frac{1}{2\tau} \sum_{\alpha \ne \beta} (a^\alpha \cdot b^\beta)^2 \quad\text{and}\quad "
                      r"E(a, b) = \frac{1}{2\tau} (s - ab)^2")
def erratum_energy_prefactor(run):
    rng = run.rng(4)
    task = ln.mode_task(S_SMALL_TASK, 6, 5, seed=rng)
    W21, W32 = 0.4 * rng.standard_normal((6, 6)), 0.4 * rng.standard_normal((5, 6))
    Wb21, Wb32 = W21 @ task.V, task.U.T @ W32
    a, b = np.meshgrid(np.linspace(-1.5, 1.5, 7), np.linspace(-1.2, 1.8, 7))
    s = 1.3
    errors = {"printed": [], "corrected": []}
    for tau in _TAUS:
        v21, v32 = _flow_velocity(W21, W32, task.correlation, tau)
        velocity = np.concatenate([(v21 @ task.V).ravel(), (task.U.T @ v32).ravel()])
        scalar = ln.scalar_mode_velocity(a, b, s, tau)
        scalar_velocity = np.concatenate([scalar.a_velocity.ravel(), scalar.b_velocity.ravel()])
        for form, prefactor in (("printed", 1.0), ("corrected", 1.0 / (2 * tau))):
            g21 = _gradient(lambda x: _mode_energy(x, Wb32, S_SMALL_TASK, prefactor), Wb21, 1e-3)
            g32 = _gradient(lambda x: _mode_energy(Wb21, x, S_SMALL_TASK, prefactor), Wb32, 1e-3)
            descent = -np.concatenate([g21.ravel(), g32.ravel()])
            # E(a, b) = prefactor (s − ab)² at every grid point: the same difference in a and in b
            ga = _derivative(lambda x: prefactor * (s - x * b) ** 2, a, 1e-3)
            gb = _derivative(lambda y: prefactor * (s - a * y) ** 2, b, 1e-3)
            errors[form].append(np.linalg.norm(descent - velocity) / np.linalg.norm(velocity))
            errors[form].append(np.linalg.norm(-np.concatenate([ga.ravel(), gb.ravel()]) - scalar_velocity)
                                / np.linalg.norm(scalar_velocity))
    printed, corrected = min(errors["printed"]), max(errors["corrected"])
    return Check.erratum(printed, corrected, 1e-7, reject_above=0.5,
                         detail=f"relative |−∇E − velocity| (matrix, scalar) at τ = {_TAUS}: printed "
                                f"{np.round(errors['printed'], 3)}, corrected {np.array(errors['corrected'])}")


def _mode_basis_weights(U, V, a_vectors, b_vectors):
    """(W21, W32) whose connectivity modes are the given a^α (columns of W̄21 = W21 V; zero for the remaining input
    modes) and b^β (rows of W̄32 = Uᵀ W32)."""
    Wb21 = np.zeros((a_vectors[0].size, V.shape[0]))
    Wb21[:, :len(a_vectors)] = np.column_stack(a_vectors)
    return Wb21 @ V.T, U @ np.vstack(b_vectors)


def _decoupling_errors(task, W21, W32, t, closed_form):
    """Largest off-diagonal coupling |a^α·b^β| (α ≠ β) along the integrated flow, and largest distance of the mode
    strengths a^α·b^α from ``closed_form`` (t × modes), both over s_max."""
    flow = ln.network_flow(W21, W32, task.correlation, t, options=_flow_options(1e-12, 1e-16))
    M = ln.mode_map(flow.W21, flow.W32, task.U, task.V)
    s = np.diagonal(task.S)
    off = np.abs(M * (1.0 - np.eye(*M.shape[1:]))).max() / s.max()
    gap = np.abs(np.diagonal(M, axis1=1, axis2=2)[:, :s.size] - closed_form).max() / s.max()
    return off, gap


@claim("linear_networks.erratum_decoupling_condition", "Pezeshki (thesis), Eq 2.2.14",
       "Erratum: (2.2.14) alone does not decouple the modes. A start on it (a^α·b^β = 0 for α ≠ β, two modes "
       "s = 2, 1 of a random task, N1 = 3, N2 = 3, N3 = 2), with |a^α| = |b^α| = 0.1 but a^α not parallel to b^α "
       "(45° apart), leaves it: the integrated flow's off-diagonal couplings grow to about 1% of s_max, and the mode "
       "strengths run up to 5% of s_max away from the sigmoid (2.2.22) from u0 = a^α·b^α (rejected above 1e-3). The "
       "full condition, a^α = a_α r^α and b^α = b_α r^α with orthonormal r^α (decoupled_init, unbalanced a_α ≠ b_α), "
       "keeps the couplings at round-off and each mode on the scalar system's closed form, to 1e-8 of s_max "
       "(integrator at rtol 1e-12) over t in [0, 12].", "erratum",
       printed="(2.2.14) a^α·b^β = 0 for all α ≠ β: the condition for each mode to follow (2.2.15–16)",
       corrected="a^α = a_α r^α and b^α = b_α r^α with orthonormal r^α (a^α ∥ b^α; with (2.2.14) the directions of "
                 "different modes are then orthogonal): an invariant manifold on which each mode follows "
                 "(2.2.15–16)",
       printed_math=r"a^\alpha \cdot b^\beta = 0 \quad \text{for all } \alpha \ne \beta",
       corrected_math=r"a^\alpha = a_\alpha r^\alpha \quad\text{and}\quad b^\alpha = b_\alpha r^\alpha "
                      r"\quad \text{with orthonormal } r^\alpha")
def erratum_decoupling_condition():
    s = np.array([2.0, 1.0])
    task = ln.mode_task(s, 3, 2, seed=0)
    t = np.linspace(0.0, 12.0, 241)
    e, c = np.eye(3), math.sqrt(0.5)
    eps = 0.1
    a_vectors = [eps * e[0], eps * (-c * e[0] + c * e[1])]
    b_vectors = [eps * (c * e[0] + c * e[1]), eps * (c * e[1] + c * e[2])]
    on_condition = max(abs(a_vectors[i] @ b_vectors[j]) for i in range(2) for j in range(2) if i != j)
    u0 = np.array([a_vectors[i] @ b_vectors[i] for i in range(2)])
    off, gap = _decoupling_errors(task, *_mode_basis_weights(task.U, task.V, a_vectors, b_vectors), t,
                                  ln.mode_strength(t[:, None], s, u0))
    a0, b0 = np.array([0.12, 0.05]), np.array([0.07, 0.11])
    init = ln.decoupled_init(task.U, task.V, n_hidden=3, a0=a0, b0=b0, seed=1)
    closed = np.column_stack([ln.mode_strength_unbalanced(t, s[i], a0[i], b0[i]) for i in range(2)])
    off_full, gap_full = _decoupling_errors(task, *init, t, closed)
    return Check.all_of([Check.at_most(on_condition, 1e-15, "the counterexample satisfies (2.2.14) at t = 0"),
                         Check.erratum(max(off, gap), max(off_full, gap_full), 1e-8, reject_above=1e-3,
                                       detail=f"(2.2.14) only: couplings {off:.3g}, distance from the sigmoid "
                                              f"{gap:.3g}; full condition: couplings {off_full:.1e}, distance from "
                                              f"the closed form {gap_full:.1e} (all over s_max)")])


def _non_white_problem(rng):
    X = rng.standard_normal((5, 9))
    Y = rng.standard_normal((4, 5)) @ X + 0.3 * rng.standard_normal((4, 9))
    init = ln.random_init(5, 7, 4, init_std=0.3, seed=rng)
    return X, Y, init


@claim("linear_networks.conserved_gram_flow", "Pezeshki (thesis), Eqs 2.2.5–2.2.6",
       "W21 W21ᵀ − W32ᵀ W32 is conserved by the flow for a random non-white Σ11 (relative drift <= 1e-8 "
       "at integrator rtol 1e-12).", "identity", stochastic=True)
def conserved_gram_flow(run):
    X, Y, init = _non_white_problem(run.rng(3))
    flow = ln.network_flow(*init, Y @ X.T, np.linspace(0.0, 5.0, 51), sigma11=X @ X.T,
                           options=_flow_options(1e-12, 1e-15))
    gram = ln.conserved_gram(flow.W21, flow.W32)
    drift = np.abs(gram - gram[0]).max() / np.abs(gram[0]).max()
    loss = ln.network_loss(flow.W21, flow.W32, X, Y)
    return Check.at_most(drift, 1e-8, f"loss fell from {loss[0]:.3g} to {loss[-1]:.3g} while the gram stayed")


def _gram_drift_rate_integral(flow, sigma31, sigma11):
    """∫_0^T (A Aᵀ − Bᵀ B) dt along the flow, A = W32ᵀ E, B = E W21ᵀ, E = Σ31 − W32 W21 Σ11 (Simpson's rule): one GD
    step changes W21 W21ᵀ − W32ᵀ W32 by exactly η²(A Aᵀ − Bᵀ B) (the O(η) terms cancel), so over a fixed time the
    drift is η times this integral plus O(η²)."""
    E = sigma31 - flow.W32 @ flow.W21 @ sigma11
    A = np.swapaxes(flow.W32, 1, 2) @ E
    B = E @ np.swapaxes(flow.W21, 1, 2)
    return integrate.simpson(A @ np.swapaxes(A, 1, 2) - np.swapaxes(B, 1, 2) @ B, x=flow.t, axis=0)


@claim("linear_networks.conserved_gram_gd_first_order", "Pezeshki (thesis), Eqs 2.2.3–2.2.4",
       "Under discrete GD on a random non-white problem the drift D(η) of W21 W21ᵀ − W32ᵀ W32 over a fixed time T = "
       "20/λ_max(Σ11) is first order in η, with the predicted coefficient: one step changes it by exactly "
       "η²(A Aᵀ − Bᵀ B) (A = W32ᵀE, B = E W21ᵀ, E = Σ31 − W32 W21 Σ11), so D(η)/η tends to I = ∫_0^T (A Aᵀ − Bᵀ B) dt "
       "along the integrated flow (Simpson on 2001 points). On the ladder ηλ_max = 1e-2 … 6.25e-4 (5 sizes, halving): "
       "||D|| falls at rate 1 in η and the remainder ||D/η − I|| at rate 1 as well (it is the next order), each fitted "
       "log–log slope within Student's t (1e-3) times its standard error, plus a slack of 0.01 for the next order's "
       "bend of the local slope, of 1; and ||D/η − I|| <= 1e-2 ||I|| at the smallest η (the level; the O(η) "
       "remainder is about 3e-4 ||I|| there).", "limit", stochastic=True)
def conserved_gram_gd_first_order(run):
    X, Y, init = _non_white_problem(run.rng(3))
    sigma11, sigma31 = X @ X.T, Y @ X.T
    scale = np.linalg.eigvalsh(sigma11).max()
    t_end = 20.0 / scale
    flow = ln.network_flow(*init, sigma31, np.linspace(0.0, t_end, 2001), sigma11=sigma11,
                           options=_flow_options(1e-12, 1e-15))
    predicted = _gram_drift_rate_integral(flow, sigma31, sigma11)
    etas = 1e-2 * 2.0 ** -np.arange(5) / scale
    drifts, remainders = [], []
    for eta in etas:
        steps = int(round(t_end / eta))
        gd = ln.network_gd(*init, sigma31, steps, eta, sigma11=sigma11, record_every=steps)
        gram = ln.conserved_gram(gd.W21, gd.W32)
        drift = gram[-1] - gram[0]
        drifts.append(np.linalg.norm(drift))
        remainders.append(np.linalg.norm(drift / eta - predicted))
    drifts, remainders = np.array(drifts), np.array(remainders)
    scaled = etas * scale
    level = remainders[-1] / np.linalg.norm(predicted)
    return Check.all_of([Check.at_most(level, 1e-2, "||D/η − I||/||I|| at the smallest η"),
                         _rate(scaled, drifts, 1.0, slack=0.01, detail="drift ||D(η)||"),
                         _rate(scaled, remainders, 1.0, slack=0.01, detail="remainder ||D/η − I||")],
                        f"||D||/η {np.round(drifts / etas, 4)} vs ||I|| {np.linalg.norm(predicted):.4f}; "
                        f"||D/η − I||/||I|| {np.round(remainders / np.linalg.norm(predicted), 6)} for ηλ_max {scaled}")


@claim("linear_networks.scalar_invariant", "Pezeshki (thesis), Eqs 2.2.15–2.2.16",
       "a² − b² is constant along the integrated single-mode flow (drift <= 1e-10; integrator at rtol "
       "1e-12), also for unbalanced and opposite-sign starts.", "identity")
def scalar_invariant():
    t = np.linspace(0.0, 20.0, 201)
    worst = 0.0
    for a0, b0 in ((1e-3, 1e-3), (0.5, -0.2), (-0.3, 0.1), (1.5, 0.2), (0.4, -0.4)):
        flow = ln.scalar_mode_flow(t, 1.0, a0, b0)
        worst = max(worst, np.abs(flow.a ** 2 - flow.b ** 2 - (a0 * a0 - b0 * b0)).max())
    return Check.at_most(worst, 1e-10)


@claim("linear_networks.logistic_identities", "Pezeshki (thesis), Eqs 2.2.19–2.2.22",
       "The sigmoid satisfies u(0) = u0, u(inf) = s, u(t_half) = s/2, u(t_half + Δ) + u(t_half − Δ) = s (all to "
       "1e-12 relative) and u'(t_half) = s²/(2τ) (fourth-order central difference at h = 1e-3 τ/s, 1e-9: its "
       "truncation error (h s/τ)⁴ ~ 1e-12 plus round-off eps/h); on the ladder h s/τ = 0.2 … 0.00625 (6 sizes, "
       "halving) the difference from s²/(2τ) falls at rate 4 in h (fitted log–log slope within Student's t (1e-3) "
       "times its standard error of 4), as it does only if s²/(2τ) is the sigmoid's true slope at t_half (a wrong "
       "slope would stall the error at its gap).", "identity")
def logistic_identities():
    s = np.array([3.0, 2.0, 1.0, 0.5, 0.25, 1e-3])
    tau, u0 = 1.7, 1e-6 * s
    t_half = ln.half_learning_time(s, u0, tau)
    delta = 0.37 * t_half
    h = 1e-3 * tau / s
    checks = [
        Check.at_most(relative_error(ln.mode_strength(0.0, s, u0, tau), u0), 1e-12, "u(0) = u0"),
        Check.at_most(relative_error(ln.mode_strength(np.inf, s, u0, tau), s), 1e-12, "u(inf) = s"),
        Check.at_most(relative_error(ln.mode_strength(t_half, s, u0, tau), s / 2), 1e-12, "u(t_half) = s/2"),
        Check.at_most(relative_error(ln.mode_strength(t_half + delta, s, u0, tau)
                           + ln.mode_strength(t_half - delta, s, u0, tau), s), 1e-12, "logistic symmetry"),
    ]
    f = lambda x: ln.mode_strength(x, s, u0, tau)  # noqa: E731
    slope = (8 * (f(t_half + h) - f(t_half - h)) - (f(t_half + 2 * h) - f(t_half - 2 * h))) / (12 * h)
    checks.append(Check.at_most(relative_error(slope, s ** 2 / (2 * tau)), 1e-9, "u'(t_half) = s²/2τ (finite difference)"))
    steps = 0.2 * 2.0 ** -np.arange(6)
    ladder = []
    for c in steps:
        h = c * tau / s
        fd = (8 * (f(t_half + h) - f(t_half - h)) - (f(t_half + 2 * h) - f(t_half - 2 * h))) / (12 * h)
        ladder.append(relative_error(fd, s ** 2 / (2 * tau)))
    checks.append(_rate(steps, ladder, 4.0, detail="fourth-order difference vs s²/2τ in h"))
    return Check.all_of(checks)


@claim("linear_networks.half_time_ordering", "Pezeshki (thesis), Sec 2.2.3",
       "Larger singular values are learned first: half-times measured on the integrated single-mode flow "
       "(u0 = 1e-6) decrease strictly with s (smallest gap > 0) and match (τ/2s) ln(s/u0 − 1) to 1e-10 relative "
       "(the flow is integrated at rtol 1e-12, and the linear interpolation of the crossing on the fine grid errs by "
       "O(h²u''/u'), which vanishes at the half-time, the sigmoid's inflection point; measured ≈ 1e-13).", "theorem")
def half_time_ordering():
    a0 = 1e-3
    measured = []
    for s in S_SMALL_TASK:
        predicted = ln.half_learning_time(s, a0 * a0)
        t = np.linspace(0.0, 1.5 * predicted, 3001)
        coarse = ln.first_crossing_time(t, ln.scalar_mode_flow(t, s, a0, a0).mode_strength, s / 2)[0]
        # Refine the crossing with the closed-form-free flow on a fine local grid.
        fine = np.linspace(coarse - 2 * t[1], coarse + 2 * t[1], 2001)
        u = ln.scalar_mode_flow(np.concatenate([[0.0], fine]), s, a0, a0).mode_strength
        measured.append(ln.first_crossing_time(fine, u[1:], s / 2)[0])
    measured = np.array(measured)
    predicted = ln.half_learning_time(S_SMALL_TASK, a0 * a0)
    return Check.all_of([Check.at_most(relative_error(measured, predicted), 1e-10, "measured vs (τ/2s) ln(s/u0 − 1)"),
                         Check.predicate(float(np.min(np.diff(measured))),
                                         "smallest increase of t_half as s decreases")],
                        f"measured t_half {np.round(measured, 4)} for s = {S_SMALL_TASK}")


@claim("linear_networks.learning_time_inverts_sigmoid", "Pezeshki (thesis), Eqs 2.2.19–2.2.22",
       "The learning time (2.2.21) inverts the sigmoid: u(t(u0 → uf)) = uf to 1e-12, and "
       "t(ε → s − ε) = (τ/s) ln((s − ε)/ε) to 1e-12 (round-off).", "identity")
def learning_time_inverts_sigmoid():
    s, tau = np.array([[3.0], [1.0], [0.2]]), 0.8
    u0 = 1e-4 * s
    uf = s * np.array([[0.01, 0.3, 0.5, 0.9, 0.999]])
    t = ln.learning_time(s, u0, uf, tau)
    eps = 1e-3 * s
    saxe = ln.learning_time(s, eps, s - eps, tau)
    return Check.all_of([Check.at_most(relative_error(ln.mode_strength(t, s, u0, tau), uf), 1e-12, "u(t(u0 → uf)) = uf"),
                         Check.at_most(relative_error(saxe, tau / s * np.log((s - eps) / eps)), 1e-12, "Saxe's learning time")])


@claim("linear_networks.zero_singular_value_limit", "Pezeshki (thesis), Eq 2.2.22 (s → 0)",
       "At s = 1e-14, u0 = 1e-3, t <= 100 and τ in {1, 2.5} the sigmoid equals the s = 0 limit u0/(1 + 2u0 t/τ) "
       "to 1e-10 (the true difference is O(s t) = 1e-12), and s = 0 returns that limit, 0 at t = inf, without NaN.",
       "limit")
def zero_singular_value_limit():
    t = np.concatenate([np.linspace(0.0, 100.0, 101), [np.inf]])
    checks = []
    for tau in (1.0, 2.5):
        limit = 1e-3 / (1.0 + 2e-3 * t / tau)
        tiny = ln.mode_strength(t[:-1], 1e-14, 1e-3, tau)
        zero = ln.mode_strength(t, 0.0, 1e-3, tau)
        err = max(relative_error(tiny, limit[:-1]), relative_error(zero[:-1], limit[:-1]), abs(zero[-1]))
        checks += [Check.at_most(err, 1e-10, f"distance to the s = 0 limit, τ = {tau:g}"),
                   Check.at_most(int(np.sum(~np.isfinite(zero))), 0, f"non-finite values at s = 0, τ = {tau:g}")]
    return Check.all_of(checks)


@claim("linear_networks.unbalanced_closed_form", "Pezeshki (thesis), Eqs 2.2.15–2.2.16",
       "The unbalanced closed form u = (c/4)(w − 1/w) matches dop853 integration of (2.2.15–16) to 1e-8 for "
       "starts with u0 < 0, u0 > s, s = 0 and near-balanced c, and tends to (2.2.22) as c → 0 (1e-8 relative).",
       "identity")
def unbalanced_closed_form():
    t = np.linspace(0.0, 15.0, 151)
    checks = []
    for s, a0, b0 in ((1.0, 0.5, -0.2), (1.0, -0.3, 0.1), (2.0, 2.0, 1.5), (0.0, 0.7, 0.2), (1.0, 1e-3, 1.1e-3),
                      (0.5, 0.0, 0.3), (1.0, 0.4, -0.4), (3.0, 1e-2, 1e-2)):
        flow = ln.scalar_mode_flow(t, s, a0, b0)
        checks.append(Check.at_most(np.abs(ln.mode_strength_unbalanced(t, s, a0, b0) - flow.mode_strength).max(),
                                    1e-8, f"s={s}, a0={a0}, b0={b0}"))
    a0 = 1e-3
    for c in (1e-12, 1e-16):
        b0 = math.sqrt(a0 * a0 - c)
        checks.append(Check.at_most(relative_error(ln.mode_strength_unbalanced(t, 1.0, a0, b0), ln.mode_strength(t, 1.0, a0 * b0)),
                                    1e-8, f"c = {c:g} vs balanced sigmoid"))
    return Check.all_of(checks)


@claim("linear_networks.opposite_sign_never_learns", "Pezeshki (thesis), Eq 2.2.18",
       "A balanced start with a0 = −b0 stays at u <= 0 and creeps to the saddle (|u(40)| <= 1e-12; integrated flow "
       "and closed form agree to 1e-8), mode_strength rejects u0 < 0, while an unbalanced start with u0 < 0 "
       "converges to s (to 1e-8 at t = 40), also when a0 = 1e-150, b0 = −a0(1 + 1e-15) leave c = |a0² − b0²| "
       "subnormal (mode_strength_unbalanced at t = inf equals s exactly).", "theorem")
def opposite_sign_never_learns():
    t = np.linspace(0.0, 40.0, 401)
    u = ln.scalar_mode_flow(t, 1.0, 0.5, -0.5).mode_strength
    closed = ln.mode_strength_unbalanced(t, 1.0, 0.5, -0.5)
    try:
        ln.mode_strength(1.0, 1.0, -0.25)
        accepted = 1
    except ValueError:
        accepted = 0
    learns = abs(ln.scalar_mode_flow(t, 1.0, 0.5, -0.3).mode_strength[-1] - 1.0)
    # c > 0 makes u = s the only attracting fixed point, however small c is; here c ~ 2e-315 and the closed
    # form's w0 − w− underflows to 0
    tiny_c = abs(float(ln.mode_strength_unbalanced(np.inf, 1.0, 1e-150, -1e-150 * (1 + 1e-15))) - 1.0)
    return Check.all_of([Check.at_most(tiny_c, 0.0, "a0 = 1e-150, b0 = −a0(1 + 1e-15): |u(inf) − s|"),
                         Check.at_most(float(u.max()), 0.0, "a = −b: largest u along the flow"),
                         Check.at_most(abs(u[-1]), 1e-12, "a = −b: |u(40)|"),
                         Check.at_most(np.abs(u - closed).max(), 1e-8, "a = −b: flow vs closed form"),
                         Check.at_most(accepted, 0, "mode_strength accepted u0 < 0"),
                         Check.at_most(learns, 1e-8, "unbalanced u0 < 0: |u(40) − s|")],
                        f"a=-b: max u {u.max():.2e}, final {u[-1]:.2e}; unbalanced u0<0 final |u - s| {learns:.1e}")


def _gd_vs_flow_errors(rng):
    X = ln.whitened_inputs(6, 12, seed=rng)
    task = ln.mode_task(S_SMALL_TASK, 6, 5, seed=rng)
    Y = task.correlation @ X
    init = ln.decoupled_init(task.U, task.V, n_hidden=6, a0=1e-3, seed=rng)
    errors = []
    etas = 1e-2 * 2.0 ** -np.arange(5)
    for eta in etas:  # the same output times t = 0, 0.1, ..., 12 for every η
        gd = ln.network_gd(*init, Y @ X.T, int(round(12.0 / eta)), eta, sigma11=X @ X.T,
                           record_every=int(round(0.1 / eta)))
        u = ln.mode_strengths(gd.W21, gd.W32, task.U, task.V)
        theory = ln.mode_strength(ln.gd_flow_time(gd.steps, eta)[:, None], S_SMALL_TASK, 1e-6)
        errors.append(np.abs(u - theory).max() / S_SMALL_TASK.max())
    return np.array(etas), np.array(errors)


@claim("linear_networks.gd_first_order", "Pezeshki (thesis), Eqs 2.2.3–2.2.4 vs 2.2.22",
       "GD on P = 12 random whitened examples approaches the flow at first order: the error "
       "max_t |u_GD − u(t)|/s_max over t = kη = 0, 0.1, …, 12 falls at rate 1 in η on the ladder η = 1e-2 … 6.25e-4 "
       "(5 sizes, halving; GD is the explicit Euler step of the flow, so its global error is O(η); fitted log–log "
       "slope within Student's t (1e-3) times its standard error, plus a slack of 0.01 for the O(η²) term that bends "
       "the local slope to 1 + O(η), of 1), and stays <= 6η s_max at every η (the level; observed 1.6η s_max).",
       "limit", stochastic=True)
def gd_first_order(run):
    etas, errors = _gd_vs_flow_errors(run.rng(21))
    return Check.all_of([Check.at_most(float(np.max(errors / (6 * etas * S_SMALL_TASK.max()))), 1.0,
                                       "largest error / (6η s_max)"),
                         _rate(etas, errors, 1.0, slack=0.01, detail="GD vs flow in η")],
                        f"errors/η {np.round(errors / etas, 4)} for η {etas}")


def _random_init_run(rng, init_std=1e-3):
    task = ln.mode_task(S_RANDOM_TASK, 16, 12, seed=rng)
    init = ln.random_init(16, 32, 12, init_std=init_std, seed=rng)
    u_eff = ln.effective_initial_strength(*init, task.U, task.V)[:S_RANDOM_TASK.size]
    predicted = ln.half_learning_time(S_RANDOM_TASK, u_eff)
    flow = ln.network_flow(*init, task.correlation, np.linspace(0.0, 2.6 * predicted.max(), 4001),
                           options=_flow_options(1e-9, 1e-15))
    u = ln.mode_strengths(flow.W21, flow.W32, task.U, task.V)[:, :S_RANDOM_TASK.size]
    simulated = ln.first_crossing_time(flow.t, u, S_RANDOM_TASK / 2)
    final = np.linalg.norm(flow.W32[-1] @ flow.W21[-1] - task.correlation) / np.linalg.norm(task.S)
    return predicted, simulated, final, ln.half_learning_time(S_RANDOM_TASK, 32 * init_std ** 2 / 2)


# Upper envelope of the relative half-time delay of the top 6 modes from a random init (σ = 1e-3, 16→32→12): over
# 1500 random tasks and inits the largest delay was 0.087, 1.7% of draws exceeded 0.05, and the
# exceedance fell about 3x per 0.01 above 0.05, which puts the 1e-4 quantile near 0.10. The smallest delay was
# >= 0 in every draw (competition between modes only delays), held to −0.005 (a margin for the interpolated
# crossing).
DELAY_ENVELOPE = (-0.005, 0.10)


def _crude_band(s, n_hidden, init_std, n_modes):
    """Half-times bracketing the crude prediction: u_eff = |a + b|²/4 is (σ²/2) χ²_{N2} for i.i.d. N(0, σ²) weights
    (independent across modes), so u_eff/(N2 σ²/2) lies within the χ²_{N2}/N2 quantiles of a two-sided
    Bonferroni bound at family-wise level 1e-4 over the modes; widened by the delay envelope."""
    crude = n_hidden * init_std ** 2 / 2
    p = 0.5 * FAMILY_LEVEL / n_modes
    q_low, q_high = stats.chi2.ppf(p, n_hidden) / n_hidden, stats.chi2.isf(p, n_hidden) / n_hidden
    low = ln.half_learning_time(s, crude * q_high) * (1 + DELAY_ENVELOPE[0])
    high = ln.half_learning_time(s, crude * q_low) * (1 + DELAY_ENVELOPE[1])
    return ln.half_learning_time(s, crude), low, high


@claim("linear_networks.small_random_init_delay", "Pezeshki (thesis), Sec 2.2.3",
       "From a small random init (σ = 1e-3, 16→32→12, random task), the simulated half-times of the top 6 modes lag "
       "the prediction from u_eff = |a+b|²/4 by −0.5% to 10% (the lower end a small margin below 0, as "
       "competition between modes only delays; the upper end the 1e-4 tail of 1500 random draws, whose largest delay "
       "was 8.7% where a 5% envelope is exceeded by 1.7% of draws); the crude u_eff = N2σ²/2 predicts them within the "
       "band that u_eff's χ²_{N2} spread (Bonferroni over the 6 modes, family-wise 1e-4) and that delay allow; at "
       "T = 2.6 max t_half the map is U S Vᵀ to 1e-3.", "bound", stochastic=True)
def small_random_init_delay(run):
    predicted, simulated, final, crude = _random_init_run(run.rng(31))
    delay = (simulated - predicted) / predicted
    top = delay[:6]
    t_crude, low, high = _crude_band(S_RANDOM_TASK[:6], 32, 1e-3, 6)
    sim = simulated[:6]
    position = np.where(sim >= t_crude, (sim - t_crude) / (high - t_crude), (t_crude - sim) / (t_crude - low))
    return Check.all_of([Check.at_most(top.max(), DELAY_ENVELOPE[1], "largest delay of the top 6 modes"),
                         Check.at_least(top.min(), DELAY_ENVELOPE[0], "smallest delay of the top 6 modes"),
                         Check.at_most(float(position.max()), 1.0, "crude prediction: position in its band"),
                         Check.at_most(final, 1e-3, "final map")],
                        f"delays {np.round(delay, 4)}; crude t_half off by up to "
                        f"{np.abs(sim / t_crude - 1).max():.3f} (band use {position.max():.2f}); final map rel. "
                        f"error {final:.1e}")


@claim("linear_networks.loss_mode_decomposition", "Pezeshki (thesis), Sec 2.2.3",
       "With random whitened inputs and a decoupled init the loss of the integrated network equals "
       "1/2 Σ(s_α − u_α)² + 1/2(||y||² − ||yXᵀ||²) to 1e-10 of its initial value (integrator at rtol "
       "1e-12), and its drops come in order of decreasing s (smallest gap between steepest-drop times > 0).",
       "identity", stochastic=True)
def loss_mode_decomposition(run):
    rng = run.rng(41)
    X = ln.whitened_inputs(6, 12, seed=rng)
    task = ln.mode_task(S_SMALL_TASK, 6, 5, seed=rng)
    Y = task.correlation @ X + 0.2 * rng.standard_normal((5, 12))  # y not in the row space of X
    U, s_all, Vt = np.linalg.svd(Y @ X.T)
    s = s_all[:5]
    init = ln.decoupled_init(U, Vt.T, n_hidden=6, a0=1e-3, seed=rng)
    flow = ln.network_flow(*init, Y @ X.T, np.linspace(0.0, 15.0, 301), options=_flow_options(1e-12, 1e-16))
    loss = ln.network_loss(flow.W21, flow.W32, X, Y)
    u = ln.mode_strength(flow.t[:, None], s, 1e-6)
    formula = 0.5 * np.sum((s - u) ** 2, axis=1) + 0.5 * (np.sum(Y ** 2) - np.sum((Y @ X.T) ** 2))
    drops = flow.t[np.argmax(-np.gradient(0.5 * (s - u) ** 2, flow.t, axis=0), axis=0)]
    return Check.all_of([Check.at_most(np.abs(loss - formula).max() / loss[0], 1e-10, "loss vs mode formula"),
                         Check.predicate(float(np.min(np.diff(drops))), "smallest gap between drop times")],
                        f"steepest-drop times {np.round(drops, 2)} for s = {np.round(s, 3)}")


@claim("linear_networks.deep_mode_ode", "Saxe et al. 2014, deep linear networks (the balanced decoupled mode ODE)",
       "The deep balanced mode ODE τu' = D u^{2−2/D}(s − u) reproduces (2.2.22) at D = 2 (1e-9) and the product of "
       "an integrated scalar chain a_1...a_D from a balanced start for D = 3, 4, 6 (1e-9 relative; integrators at "
       "rtol 1e-13), through the whole transition (every mode reaches 0.99 s); deep_mode_curve, integrated decade "
       "by decade, gives the chain's values at t = 0.05 and on log-spaced times from t = 0.5 (1e-8 relative: its "
       "pieces restart "
       "the integration); and a stiff mode (s = 100, D = 2, t to 1e3: DOP853 gives up and rosenbrock23 with the "
       "analytic Jacobian finishes) reproduces (2.2.22) to 1e-8 relative (100 times the integrator's rtol 1e-10, "
       "observed 2e-9).", "identity")
def deep_mode_ode():
    # rtol 1e-13 and an atol far below u0: the relative error of a mode that grows by 1e4 is then
    # ~1e-12 (observed <= 6e-12); at the defaults (atol 1e-14 against u0 ~ 1e-6) it is ~1e-9.
    tol = dict(rtol=1e-13, atol=1e-20)
    t = np.linspace(0.0, 40.0, 201)
    deep2 = ln.deep_mode_strength(t, 2.0, 1e-4, 2, **tol)
    checks = [Check.at_most(relative_error(deep2, ln.mode_strength(t, 2.0, 1e-4)), 1e-9, "D = 2 vs sigmoid")]
    learned = [deep2[-1] / 2.0]
    # Larger per-layer starts for deeper chains: the plateau lasts ~ u0^{2/D − 1}, so a0 = 0.05 at D = 6
    # would never leave it within t = 40 and the comparison would only see the plateau.
    for depth, a0 in ((3, 0.05), (4, 0.3), (6, 0.6)):
        chain = ln.deep_chain_strength(t, 1.5, np.full(depth, a0), **tol)
        deep = ln.deep_mode_strength(t, 1.5, a0 ** depth, depth, **tol)
        checks.append(Check.at_most(relative_error(deep, chain), 1e-9, f"D = {depth}"))
        learned.append(chain[-1] / 1.5)
        # the long-grid curve, on log-spaced times that start after 0 (u0 is still at t = 0)
        late = np.concatenate([[0.05], np.geomspace(0.5, 40.0, 30)])  # one time inside the first decade
        curve = ln.deep_mode_curve(late, 1.5, a0 ** depth, depth, **tol)
        reference = ln.deep_chain_strength(np.concatenate([[0.0], late]), 1.5, np.full(depth, a0), **tol)[1:]
        checks.append(Check.at_most(relative_error(curve, reference), 1e-8, f"deep_mode_curve, D = {depth}, t from 0.05"))
    checks.append(Check.at_least(min(learned), 0.99, "smallest u(40)/s"))
    # |∂u'/∂u| = 2s = 200 at u = s: DOP853 would need ~7e4 steps to reach t = 1e3 and hands over to rosenbrock23,
    # the only integrator that evaluates the Jacobian
    stiff_t = np.concatenate([[0.0], np.geomspace(1e-3, 1e3, 50)])
    stiff = ln.deep_mode_strength(stiff_t, 100.0, 1e-4, 2, rtol=1e-10)
    checks.append(Check.at_most(relative_error(stiff, ln.mode_strength(stiff_t, 100.0, 1e-4)), 1e-8,
                                "stiff D = 2 (s = 100, t to 1e3) vs sigmoid"))
    return Check.all_of(checks, f"u(40)/s = {np.round(learned, 4)}")


@claim("linear_networks.sympy_sigmoid_solves_ode",
       "Pezeshki (thesis), Eqs 2.2.18, 2.2.22; the unbalanced closed form derived in this project",
       "sympy: (2.2.22) solves τu' = 2u(s − u) with u(0) = u0 and the unbalanced closed form solves "
       "τu' = sqrt(4u² + c²)(s − u) (residuals simplify to 0); mode_strength and mode_strength_unbalanced equal "
       "those sympy solutions, evaluated at 30 digits, to 1e-12 relative (round-off) at 200 points each.", "identity")
def sympy_sigmoid_solves_ode():
    t, s, u0, tau, c = sp.symbols("t s u0 tau c", positive=True)
    e = sp.exp(2 * s * t / tau)
    u = s * e / (e - 1 + s / u0)
    residual = simplified(tau * sp.diff(u, t) - 2 * u * (s - u))
    initial = simplified(u.subs(t, 0) - u0)
    # Unbalanced: u = (c/4)(w − 1/w), w = (w+ E + w−)/(1 + E), E = K e^{Dt/τ}, and sqrt(4u² + c²) = (c/2)(w + 1/w).
    K = sp.symbols("K", real=True)
    D = sp.sqrt(4 * s ** 2 + c ** 2)
    wp, wm = (2 * s + D) / c, (2 * s - D) / c
    E = K * sp.exp(D * t / tau)
    w = (wp * E + wm) / (1 + E)
    uu = c / 4 * (w - 1 / w)
    res2 = simplified(sp.together(tau * sp.diff(uu, t) - c / 2 * (w + 1 / w) * (s - uu)))
    symbolic = [Check.at_most(abs(float(x)) if x.is_number else math.inf, 0.0, f"sympy residual {x}")
                for x in (residual, initial, res2)]
    # The library against the sympy solutions at many points (mpmath, 30 digits).
    # Evaluation points: a deterministic Kronecker (golden-ratio) sequence filling the parameter box.
    points = np.modf(np.arange(1, 201)[:, None] * (np.sqrt([2.0, 3.0, 5.0, 7.0, 11.0, 13.0]) % 1))[0]
    balanced = sp.lambdify((t, s, u0, tau), u, "mpmath")
    unbalanced = sp.lambdify((t, s, c, K, tau), uu, "mpmath")
    worst_balanced = worst_unbalanced = 0.0
    with mpmath.workdps(30):
        for x in points:
            ts, ss, u0s, taus = 20 * x[0], 0.05 + 3.95 * x[1], 10 ** (-6 + 6.5 * x[2]), 0.5 + 1.5 * x[3]
            ref = float(balanced(mpmath.mpf(ts), mpmath.mpf(ss), mpmath.mpf(u0s), mpmath.mpf(taus)))
            worst_balanced = max(worst_balanced, abs(ln.mode_strength(ts, ss, u0s, taus) / ref - 1))
            a0, b0 = 4 * x[4] - 2, 4 * x[5] - 2
            cc, uu0 = abs(a0 * a0 - b0 * b0), a0 * b0
            if cc < 1e-3:
                continue
            # K from w0 = exp(asinh(2 u0 / c)): K = (w0 − w−)/(w+ − w0) with E(0) = K.
            mc, ms, mu = mpmath.mpf(cc), mpmath.mpf(ss), mpmath.mpf(uu0)
            w0 = mpmath.exp(mpmath.asinh(2 * mu / mc))
            dd = mpmath.sqrt(4 * ms ** 2 + mc ** 2)
            kk = (w0 - (2 * ms - dd) / mc) / ((2 * ms + dd) / mc - w0)
            ref = float(unbalanced(mpmath.mpf(ts), ms, mc, kk, mpmath.mpf(taus)))
            got = ln.mode_strength_unbalanced(ts, ss, a0, b0, taus)
            worst_unbalanced = max(worst_unbalanced, abs(got - ref) / max(abs(ref), 1e-3 * ss))
    return Check.all_of(symbolic + [Check.at_most(worst_balanced, 1e-12, "mode_strength vs sympy solution"),
                                    Check.at_most(worst_unbalanced, 1e-12, "mode_strength_unbalanced vs sympy")],
                        f"residuals {residual}, {initial}, {res2}; library vs sympy: balanced {worst_balanced:.1e}, "
                        f"unbalanced {worst_unbalanced:.1e}")


# ----------------------------------------------------------------------------------------------------
# Part B: generalization dynamics of the Advani–Saxe student
# ----------------------------------------------------------------------------------------------------

@claim("linear_networks.per_mode_solution_vs_ode", "Pezeshki (thesis), Eqs 2.3.5, 2.3.13",
       "The per-mode solution (2.3.13) matches dop853 integration of the matrix flow (2.3.5) for a random instance "
       "N = 200, P = 150 to 1e-8 over t in [0, 50] (integrator at rtol 1e-12).", "identity",
       stochastic=True)
def per_mode_solution_vs_ode(run):
    inst = ln.draw_student(200, 150, init_std=0.1, seed=run.rng(51))
    t = np.array([0.0, 0.5, 2.0, 10.0, 50.0])
    return Check.at_most(np.abs(ln.student_weights(inst, t) - ln.student_flow(inst, t).weights).max(), 1e-8)


@claim("linear_networks.discrete_gd_exact", "Pezeshki (thesis), Eq 2.3.13 (discrete analogue)",
       "Replacing e^{−λt/τ} by (1 − ηλ)^k gives plain full-batch GD on a random instance exactly: to 1e-12 (the "
       "round-off of 600 steps) after k steps.", "identity", stochastic=True)
def discrete_gd_exact(run):
    inst = ln.draw_student(100, 160, init_std=0.3, seed=run.rng(52))
    gd = ln.student_gd(inst, 600, 0.1, record_every=50)
    return Check.at_most(np.abs(gd.weights - ln.student_weights_gd(inst, gd.steps, 0.1)).max(), 1e-12)


@claim("linear_networks.training_error_formula", "Pezeshki (thesis), Eqs 2.3.4, 2.3.29",
       "(2.3.29) equals ||y − wX||² of the per-mode trajectory to 1e-10 relative (round-off) on random "
       "instances with P > N and P < N, and is non-increasing in t (no rise above the round-off 1e-12 E_t(0)).",
       "identity", stochastic=True)
def training_error_formula(run):
    t = np.concatenate([[0.0], np.geomspace(1e-2, 1e3, 60)])
    rng = run.rng(53)
    worst, rise = 0.0, -math.inf
    for n, p in ((120, 200), (150, 90)):
        inst = ln.draw_student(n, p, init_std=0.2, seed=rng)
        formula = ln.training_error(inst, t)
        direct = ln.training_error_direct(inst, ln.student_weights(inst, t))
        worst = max(worst, np.abs(formula - direct).max() / direct[0])
        rise = max(rise, float(np.max(np.diff(formula)) / formula[0]))
    return Check.all_of([Check.at_most(worst, 1e-10, "formula vs direct"),
                         Check.at_most(rise, 1e-12, "largest rise of E_t between grid times / E_t(0)")])


@claim("linear_networks.frozen_subspace", "Pezeshki (thesis), Sec 2.3.2 (frozen subspace)",
       "With P < N (a random instance), the components w·v_i along the N − P null directions of X Xᵀ never move: "
       "<= 1e-12 (round-off) under plain GD and under the integrated matrix flow.", "identity",
       stochastic=True)
def frozen_subspace(run):
    inst = ln.draw_student(120, 70, init_std=0.5, seed=run.rng(54))
    null = inst.input_modes[:, 70:]
    w_gd = ln.student_gd(inst, 2000, 0.1, record_every=100).weights
    w_flow = ln.student_flow(inst, np.array([0.0, 1.0, 10.0, 100.0])).weights
    frozen0 = inst.initial_weights @ null
    moved = np.abs(inst.initial_weights - w_gd[-1]).max()
    err = max(np.abs(w_gd @ null - frozen0).max(), np.abs(w_flow @ null - frozen0).max())
    return Check.at_most(err, 1e-12, f"the other components moved by up to {moved:.2f}")


_ERRATUM_TIMES = np.array([0.5, 2.0, 50.0])


@claim("linear_networks.erratum_test_error", "Pezeshki (thesis), Eqs 2.3.14, 2.3.15, footnote 1",
       "Erratum: for a student trained to t = 0.5, 2, 50 on a random instance, a Monte Carlo test error over 1e5 "
       "fresh x ~ N(0, I/N) agrees with the Advani–Saxe form (2.3.14) within z = 4.15 standard errors (Bonferroni "
       "over the 3 times at family-wise level 1e-4) and rejects the thesis's λ-weighted (2.3.15) (more than 10z "
       "standard errors away); and on a small instance (N = 20, P = 15, t = 2) the root-mean-square distance of the "
       "Monte Carlo mean from (2.3.14), over 64 independent estimates per size, falls at the Monte Carlo rate −1/2 in "
       "the number of test samples on the ladder 2^5 … 2^12 (8 sizes; fitted log–log slope within Student's t (1e-3) "
       "times its standard error of −1/2), so no bias of (2.3.14) shows down to 1/64 of the smallest estimate's "
       "spread.", "erratum", stochastic=True,
       printed="E_g(t) = (1/N) Σ_i λ_i (z̄_i − z_i(t))² + σ_ε²  (Eq 2.3.15)",
       corrected="E_g(t) = (1/N) Σ_i (z̄_i − z_i(t))² + σ_ε² = ||w̄ − w(t)||²/N + σ_ε²  (Eq 2.3.14, Advani & Saxe)",
       printed_math=r"E_g(t) = \frac{1}{N} \sum_i \lambda_i (\bar z_i - z_i(t))^2 + \sigma_\varepsilon^2",
       corrected_math=r"E_g(t) = \frac{1}{N} \sum_i (\bar z_i - z_i(t))^2 + \sigma_\varepsilon^2 = \lVert \bar w "
                      r"- w(t) \rVert^2 / N + \sigma_\varepsilon^2")
def erratum_test_error(run):
    inst = ln.draw_student(200, 150, teacher_std=1.0, noise_std=0.5, init_std=0.1, seed=run.rng(55))
    w = ln.student_weights(inst, _ERRATUM_TIMES)
    mc = ln.monte_carlo_generalization_error(inst, w, n_test_samples=100_000, seed=run.rng(56))
    corrected = np.max(np.abs(mc.mean - ln.generalization_error(inst, w)) / mc.standard_error)
    printed = np.min(np.abs(mc.mean - ln.generalization_error_thesis_variant(inst, w)) / mc.standard_error)
    z = _critical(_ERRATUM_TIMES.size)
    rng = run.rng(57)
    small = ln.draw_student(20, 15, teacher_std=1.0, noise_std=0.5, init_std=0.1, seed=rng)
    w_small = ln.student_weights(small, np.array([2.0]))[0]
    exact = ln.generalization_error(small, w_small)
    counts = 2 ** np.arange(5, 13)
    rms = [math.sqrt(np.mean([(ln.monte_carlo_generalization_error(small, w_small, n_test_samples=int(n),
                                                                   seed=rng).mean - exact) ** 2 for _ in range(64)]))
           for n in counts]
    return Check.all_of([Check.erratum(printed, corrected, z, reject_above=10 * z,
                                       detail="distances in standard errors of the Monte Carlo mean"),
                         _rate(counts, rms, -0.5, detail="Monte Carlo mean vs (2.3.14) in the number of test samples")])


@claim("linear_networks.mp_density_moments", "Pezeshki (thesis), Eq 2.3.30",
       "The Marchenko–Pastur law (scipy quad of the density): bulk mass min(1, α) to 1e-8, mean α with the atom "
       "(1e-8, quadrature accuracy), density zero outside [(1 − √α)², (1 + √α)²] and positive inside, for α in "
       "{0.25, 0.5, 2, 4}.", "identity")
def mp_density_moments():
    worst, support_violations = 0.0, 0
    for alpha in (0.25, 0.5, 2.0, 4.0):
        lo, hi = (1 - math.sqrt(alpha)) ** 2, (1 + math.sqrt(alpha)) ** 2
        mass = integrate.quad(lambda x: nx.mp_density(x, alpha), lo, hi, limit=200, epsabs=1e-13)[0]
        mean = integrate.quad(lambda x: x * nx.mp_density(x, alpha), lo, hi, limit=200, epsabs=1e-13)[0]
        worst = max(worst, abs(mass - min(1.0, alpha)), abs(mean - alpha) / alpha)
        outside = nx.mp_density(np.array([lo * 0.999, hi * 1.001]), alpha)
        inside = nx.mp_density(np.linspace(lo, hi, 102)[1:-1], alpha)
        support_violations += int(np.sum(outside != 0) + np.sum(inside <= 0))
    return Check.all_of([Check.at_most(worst, 1e-8, "mass and mean"),
                         Check.at_most(support_violations, 0, "grid points violating the support")])


@claim("linear_networks.mp_spectrum_ks", "Pezeshki (thesis), Eq 2.3.30",
       "The non-zero eigenvalues of X Xᵀ with X_jμ ~ N(0, 1/N), N = 2000, match the Marchenko–Pastur bulk CDF: "
       "Kolmogorov–Smirnov distance < 0.01 for α = 0.5 and 2 (a regression envelope, not an i.i.d. KS "
       "test: eigenvalue rigidity keeps the fluctuation at O(log N / N) and the finite-N edge bias is O(1/N); "
       "observed 0.003–0.004 over 10 draws).", "theorem", cost="slow", stochastic=True)
def mp_spectrum_ks(run):
    rng = run.rng(61)
    checks = []
    n = 2000
    for alpha in (0.5, 2.0):
        p = int(alpha * n)
        eig = ln.draw_input_spectrum(n, p, seed=rng)[:min(n, p)]  # the min(N, P) non-zero eigenvalues of X Xᵀ
        atom = nx.mp_atom(alpha)
        bulk_cdf = lambda x: (nx.mp_cdf(x, alpha) - atom) / min(1.0, alpha)  # noqa: E731
        ks = stats.kstest(eig, bulk_cdf).statistic
        checks.append(Check.below(ks, 0.01, f"α = {alpha}: KS {ks:.4f}"))
    return Check.all_of(checks, "; ".join(c.detail for c in checks))


# Finite-N bias of the averages, bounded separately from the sampling noise: at N = 400 and α = 0.5, 2 (400 random
# spectra, conditional expectations over teacher and noise) the bias of E_g is <= 0.62/N of E_g and that of E_t/P
# <= 0.07/N of E_t(0)/P at every t <= 100 (the exact t = ∞ expectations differ from the infinite-size ones by
# 0.5/N); held to 1.5/N.
_FINITE_N_BIAS = 1.5


@claim("linear_networks.high_dim_vs_finite_size", "Pezeshki (thesis), Eqs 2.3.13–2.3.14, 2.3.29–2.3.30",
       "The high-dimensional E_g(t) and E_t(t)/P agree with averages of 40 simulated students (N = 400; realised "
       "teacher, noise and inputs) at α = 0.5 and 2, t from 0 to 100: each of the 36 differences is within "
       "q·SE + b, q the Student-t (39 dof) Bonferroni quantile at family-wise level 1e-4 over the 36 comparisons "
       "and SE the standard error over the students, b = 1.5/N of E_g (resp. of E_t(0)/P) the separately measured "
       "finite-N bias bound (observed <= 0.62/N). And that bias is the O(1/N) correction the theory predicts: the "
       "relative gap between E_g(t) and the average of the exact conditional expectation E[E_g(t) | X] over 1000 "
       "random spectra per size (teacher and noise integrated out, so only the spectrum varies), averaged over "
       "t = 0.5 … 100, falls at rate −1 in N on the ladder N = 16, 24, 32, 48, 64, 96, 128 at α = 2 and 0.5 (fitted "
       "log–log slope within Student's t (1e-3) times its standard error of −1; N times the gap is about 0.3 at α = 2 "
       "and 0.2 at α = 0.5).", "theorem", cost="slow", stochastic=True)
def high_dim_vs_finite_size(run):
    t = np.array([0.0, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0])
    n, count = 400, 40
    m = 2 * 2 * t.size
    q = _critical(m, count)
    checks, notes = [], []
    rng = run.rng(1000)
    for alpha in (0.5, 2.0):
        _, eg_sim, et_sim = ln.simulated_student_errors(alpha, n, count, t, seed=rng)
        curve = ln.generalization_curve(t, alpha)
        for label, sim, theory, scale in (("E_g", eg_sim, curve.generalization_error, curve.generalization_error),
                                          ("E_t/P", et_sim, curve.training_error, curve.training_error[0])):
            se = sim.std(axis=0, ddof=1) / math.sqrt(count)
            allowed = q * se + _FINITE_N_BIAS / n * scale
            ratio = np.abs(sim.mean(axis=0) - theory) / allowed
            k = int(np.argmax(ratio))
            checks.append(Check.at_most(float(ratio[k]), 1.0, f"α = {alpha} {label} at t = {t[k]:g}: |mean − theory| "
                                                               f"{abs(sim.mean(axis=0) - theory)[k]:.2e} against "
                                                               f"{allowed[k]:.2e}"))
            notes.append(f"α={alpha} {label}: worst {ratio[k]:.2f} of q·SE + b at t = {t[k]:g}")
    checks += _finite_size_bias_ladders(run.rng(1001), t[1:])
    notes += [c.detail for c in checks[-2:]]
    return Check.all_of(checks, f"q = {q:.2f}; " + "; ".join(notes))


def _spectra(n, p, count, rng, batch=250):
    """``count`` spectra of X Xᵀ, X_jμ ~ N(0, 1/N) (N × P), drawn in batches: the min(N, P) eigenvalues of the smaller
    Gram matrix, then N − P zeros when P < N (an independent route to draw_input_spectrum's)."""
    out = []
    for done in range(0, count, batch):
        X = rng.standard_normal((min(batch, count - done), n, p)) / math.sqrt(n)
        gram = X @ np.swapaxes(X, 1, 2) if n <= p else np.swapaxes(X, 1, 2) @ X
        lam = np.maximum(np.linalg.eigvalsh(gram), 0.0)
        out.append(np.concatenate([lam, np.zeros((lam.shape[0], n - lam.shape[1]))], axis=1))
    return np.concatenate(out)


def _finite_size_bias_ladders(rng, t, count=1000):
    """Rate −1 in N of the relative gap between the high-dimensional E_g(t) and the average over ``count`` spectra
    of E[E_g(t) | X] (the mean over all their eigenvalues at once equals the mean of the per-spectrum values)."""
    sizes = np.array([16, 24, 32, 48, 64, 96, 128])
    checks = []
    for alpha in (2.0, 0.5):
        theory = ln.generalization_curve(t, alpha).generalization_error
        gaps = []
        for n in sizes:
            lam = _spectra(int(n), int(alpha * n), count, rng)
            gaps.append(abs(np.mean(ln.expected_generalization_error(t, lam.ravel()) / theory - 1)))
        checks.append(_rate(sizes, gaps, -1.0, detail=f"α={alpha}: finite-N bias of E[E_g | X] in N "
                                                          f"(N·bias {np.round(np.array(gaps) * sizes, 3)})"))
    return checks


@claim("linear_networks.long_time_limits", "Pezeshki (thesis), Sec 2.3.3",
       "The quadrature E_g(t), E_t(t)/P at t = 1e4 reach the closed-form asymptotes (1e-8 relative, quadrature "
       "accuracy) for α in {0.25, 0.5, 2, 4}; and the finite-size E[E_g(∞) | X] averaged over 120 random spectra "
       "(N = 60, P = 120 and 30) matches the exact inverse-Wishart expectation within q = 4.2 standard errors (the "
       "Student-t (119 dof) Bonferroni quantile over the 2 comparisons at family-wise level 1e-4); and that exact "
       "finite-size E_g(∞) tends to the high-dimensional asymptote at rate −1 in N (E[tr (X Xᵀ)⁻¹]/N = "
       "1/(α − 1) + O(1/N) for α > 1, and likewise for α < 1) on the ladder N = 100·2^k, k = 0 … 5, at α = 2 and 0.5 "
       "(fitted log–log slope within Student's t (1e-3) times its standard error, plus a slack of 0.01 for the "
       "O(1/N²) bend, of −1); at the edges of its domain, N = P + 2 and P = N + 2 (P = 50), that exact E_g(∞) equals "
       "the inverse-Wishart formula written out here, (N − P)/N·(σ_w̄² + σ_0²) + σ_ε² P/(N − P − 1) + σ_ε² and "
       "σ_ε²(1 + N/(P − N − 1)) (1e-14 relative, round-off).", "limit", stochastic=True)
def long_time_limits(run):
    checks = []
    for alpha in (0.25, 0.5, 2.0, 4.0):
        curve = ln.generalization_curve(1e4, alpha, init_std=0.3)
        limit = ln.asymptotic_errors(alpha, init_std=0.3)
        checks.append(Check.at_most(abs(curve.generalization_error / limit.generalization_error - 1), 1e-8,
                                    f"α={alpha} E_g"))
        et_gap = abs(curve.training_error - limit.training_error)
        checks.append(Check.at_most(et_gap / limit.training_error if limit.training_error else et_gap, 1e-8,
                                    f"α={alpha} E_t/P"))
    rng = run.rng(62)
    count = 120
    q = _critical(2, count)
    for n, p in ((60, 120), (60, 30)):
        values = []
        for _ in range(count):
            lam = ln.draw_input_spectrum(n, p, seed=rng)
            values.append(ln.expected_generalization_error(np.inf, lam, init_std=0.3))
        mean, se = np.mean(values), np.std(values, ddof=1) / math.sqrt(count)
        exact = ln.finite_size_asymptotic_generalization_error(n, p, init_std=0.3)
        checks.append(Check.at_most(abs(mean - exact) / se, q, f"N={n}, P={p}: {mean:.4f} vs {exact:.4f}"))
    sizes = 100 * 2 ** np.arange(6)
    for alpha in (2.0, 0.5):
        limit = ln.asymptotic_errors(alpha, init_std=0.3).generalization_error
        gaps = [abs(ln.finite_size_asymptotic_generalization_error(int(n), int(alpha * n), init_std=0.3) - limit)
                for n in sizes]
        checks.append(_rate(sizes, gaps, -1.0, slack=0.01, detail=f"α={alpha}: exact finite-size E_g(∞) vs its limit"))
    signal, noise, p = 1.0 + 0.3 ** 2, 0.25, 50  # teacher_std 1, init_std 0.3, noise_std 0.5
    for n, formula in ((p + 2, 2 / (p + 2) * signal + noise * p / 1 + noise), (p - 2, noise * (1 + (p - 2) / 1))):
        edge = ln.finite_size_asymptotic_generalization_error(n, p, init_std=0.3)
        checks.append(Check.at_most(abs(edge / formula - 1), 1e-14, f"N={n}, P={p}: exact E_g(∞) vs formula"))
    return Check.all_of(checks)


@claim("linear_networks.sqrt_growth_alpha_one",
       "derived in this project: the α = 1 growth of E_g (Pezeshki (thesis), Sec 2.3.3)",
       "At α = 1, E_g(t)/(σ_ε² √(t/τ)) at t = 1e5 τ is within 1% of C = 2(2 − √2)/√π (the O((t/τ)^{-1/2}) "
       "correction is 0.2% there), and C equals scipy quad of (1/π)∫ x^{−3/2}(1 − e^{−x})² dx to 1e-8; on the ladder "
       "t/τ = 1e3·4^k, k = 0 … 5, the gap |E_g/(σ_ε²√(t/τ)) − C| falls at rate −1/2 in t (E_g = Cσ_ε²√(t/τ) + O(1): "
       "the next term is a constant), fitted log–log slope within Student's t (1e-3) times its standard error, plus "
       "a slack of 0.02 for the O(1/t) term that steepens the local slope (−0.51 over this ladder), of −1/2.",
       "limit")
def sqrt_growth_alpha_one():
    f = lambda x: x ** -1.5 * math.expm1(-x) ** 2 / math.pi  # noqa: E731
    direct = integrate.quad(f, 0, 1, epsabs=1e-14, epsrel=1e-13)[0] + integrate.quad(f, 1, np.inf, epsabs=1e-14,
                                                                                     epsrel=1e-13)[0]
    tau, noise_std = 2.0, math.sqrt(0.3)
    eg = ln.generalization_curve(1e5 * tau, 1.0, noise_std=noise_std, tau=tau).generalization_error
    ratio = eg / (noise_std ** 2 * math.sqrt(1e5))
    times = 1e3 * 4.0 ** np.arange(6)
    curve = ln.generalization_curve(times * tau, 1.0, noise_std=noise_std, tau=tau).generalization_error
    gaps = np.abs(curve / (noise_std ** 2 * np.sqrt(times)) - ln.SQRT_GROWTH_CONSTANT)
    return Check.all_of([Check.at_most(abs(ln.SQRT_GROWTH_CONSTANT - direct), 1e-8, "closed form vs quad"),
                         Check.at_most(abs(ratio / ln.SQRT_GROWTH_CONSTANT - 1), 0.01,
                                       f"E_g/(σ_ε²√t) = {ratio:.5f}, C = {ln.SQRT_GROWTH_CONSTANT:.6f}"),
                         _rate(times, gaps, -0.5, slack=0.02, detail="|E_g/(σ_ε²√t) − C| in t")],
                        f"C = {ln.SQRT_GROWTH_CONSTANT:.10f}, quad {direct:.10f}, ratio at 1e5: {ratio:.5f}")


@claim("linear_networks.error_curve_shape", "Pezeshki (thesis), Sec 2.3.3",
       "With label noise E_g is non-monotone (E_g(∞) − min_t E_g > 0 and E_g rises after its minimum on a grid, "
       "α = 0.5, 2); without noise E_g is non-increasing (no rise above the round-off 1e-14) and "
       "optimal_stopping_time is inf (α = 0.5, 1, 2).", "theorem")
def error_curve_shape():
    t = np.concatenate([[0.0], np.geomspace(1e-3, 1e4, 400)])
    checks = []
    for alpha in (0.5, 2.0):
        eg = ln.generalization_curve(t, alpha).generalization_error
        eg_inf = ln.asymptotic_errors(alpha).generalization_error
        checks.append(Check.predicate(eg_inf - eg.min(), f"α={alpha}: E_g(∞) − min E_g"))
        checks.append(Check.predicate(eg[-1] - eg.min(), f"α={alpha}: rise after the minimum"))
    worst_rise, finite_stops = -math.inf, 0
    for alpha in (0.5, 1.0, 2.0):
        eg = ln.generalization_curve(t, alpha, noise_std=0.0).generalization_error
        worst_rise = max(worst_rise, float(np.max(np.diff(eg))))
        finite_stops += ln.optimal_stopping_time(alpha, noise_std=0.0) != math.inf
    checks.append(Check.at_most(worst_rise, 1e-14, "largest rise of E_g without noise"))
    checks.append(Check.at_most(finite_stops, 0, "finite optimal_stopping_time without noise"))
    return Check.all_of(checks)


@claim("linear_networks.early_stopping_near_bayes", "Pezeshki (thesis), Sec 2.3.3",
       "Per-mode stopping at t*(λ) gives exactly the per-mode Bayes error Aσ_ε²/(σ_ε² + λA) (1e-12, round-off); "
       "the global t_opt is the grid minimum of E_g (to 1e-12) and E_Bayes <= E_g(t_opt) <= 1.03 E_Bayes at SNR 4 "
       "(teacher_std 1, noise_std 0.5) for α in {0.5, 0.9, 1, 1.1, 2} (1.03: an envelope of the sub-optimality of "
       "one stopping time for all modes).", "bound")
def early_stopping_near_bayes():
    lam = np.concatenate([[0.0], np.geomspace(1e-6, 10.0, 50)])
    stopped = ln.expected_mode_error(ln.per_mode_stopping_time(lam), lam)
    checks = [Check.at_most(relative_error(stopped, ln.mode_bayes_error(lam)), 1e-12, "per-mode stopping = Bayes")]
    ratios, above_grid = [], -math.inf
    for alpha in (0.5, 0.9, 1.0, 1.1, 2.0):
        t_opt = ln.optimal_stopping_time(alpha)
        best = ln.generalization_curve(t_opt, alpha).generalization_error
        grid = ln.generalization_curve(t_opt * np.linspace(0.5, 1.5, 201), alpha).generalization_error
        ratios.append(best / ln.bayes_error(alpha))
        above_grid = max(above_grid, best / grid.min() - 1)
    ratios = np.array(ratios)
    checks += [Check.at_most(ratios.max(), 1.03, "largest E_g(t_opt)/E_Bayes"),
               Check.at_least(ratios.min(), 1.0, "smallest E_g(t_opt)/E_Bayes"),
               Check.at_most(above_grid, 1e-12, "E_g(t_opt)/min over the grid − 1")]
    return Check.all_of(checks, f"E_g(t_opt)/E_Bayes = {np.round(ratios, 4)}")


@claim("linear_networks.init_effect", "Pezeshki (thesis), Sec 2.3.3",
       "The late-time error of the quadrature rises with the init variance at rate ∂E_g/∂σ_0² = 1 − α for α < 1 "
       "(the frozen subspace) and 0 for α > 1, to 1e-8 (the init term's residual e^{−2λ− t} at t = 1e4).", "limit")
def init_effect():
    worst = 0.0
    for alpha in (0.25, 0.5, 0.8, 1.5, 2.0, 4.0):
        low = ln.generalization_curve(1e4, alpha, init_std=0.0).generalization_error
        high = ln.generalization_curve(1e4, alpha, init_std=1.0).generalization_error
        worst = max(worst, abs((high - low) - max(0.0, 1.0 - alpha)))
    return Check.at_most(worst, 1e-8)


# Finite-N bias of E[E_g(1000) | X] averaged over spectra, against the high-dimensional curve, on the α grid of
# Fig 2.4(b): measured over 200 random spectra at N = 100 and 200 (60 at N = 400), at most 9.2/N of E_g (± 1.6/N,
# at α = 0.9 and 1.1, where the smallest eigenvalues weigh most) and at most 3.2/N elsewhere; held to 12/N.
_PEAK_BIAS = 12.0


@claim("linear_networks.overtraining_peak", "Pezeshki (thesis), Fig 2.4(b)",
       "At t = 1000, E_g against α (grid of Fig 2.4b: α = 0.25 … 4) peaks at α = 1 in the high-dimensional theory and "
       "in finite-size simulations (N = 200, 24 random spectra per α, the expected error given the inputs): the gap "
       "between E_g(α = 1) and the largest E_g at α ≠ 1 is > 0 in both; and the theory's level matches the "
       "simulation's at every α: |mean − theory| <= q·SE + b, q the Student-t (23 dof) Bonferroni quantile over the 9 "
       "α at family-wise level 1e-4, SE the standard error over the spectra, and b = 12/N of E_g the separately "
       "measured finite-N bias bound (observed at most 9.2/N, near α = 1).", "theorem", cost="slow",
       stochastic=True)
def overtraining_peak(run):
    alphas = np.array([0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.5, 2.0, 4.0])
    theory = np.array([ln.generalization_curve(1000.0, a).generalization_error for a in alphas])
    rng = run.rng(63)
    n, count = 200, 24
    q = _critical(alphas.size, count)
    means, errors = [], []
    for alpha in alphas:
        p = int(round(alpha * n))
        values = [ln.expected_generalization_error(1000.0, ln.draw_input_spectrum(n, p, seed=rng))
                  for _ in range(count)]
        means.append(np.mean(values))
        errors.append(np.std(values, ddof=1) / math.sqrt(count))
    simulated, se = np.array(means), np.array(errors)
    allowed = q * se + _PEAK_BIAS / n * simulated
    ratio = np.abs(simulated - theory) / allowed
    k = int(np.argmax(ratio))
    one = alphas == 1.0
    return Check.all_of([Check.predicate(theory[one][0] - theory[~one].max(), "theory: E_g(1) − max E_g(α ≠ 1)"),
                         Check.predicate(simulated[one][0] - simulated[~one].max(),
                                         "simulation: E_g(1) − max E_g(α ≠ 1)"),
                         Check.at_most(float(ratio[k]), 1.0,
                                       f"α = {alphas[k]:g}: |mean − theory| {abs(simulated[k] - theory[k]):.3g} "
                                       f"against q·SE + b = {allowed[k]:.3g}")],
                        f"theory {np.round(theory, 3)}; simulation {np.round(simulated, 3)} ± {np.round(se, 3)}; "
                        f"worst level use {ratio[k]:.2f} at α = {alphas[k]:g} (q = {q:.2f})")


@claim("linear_networks.time_scale_convention", "Pezeshki (thesis), Eq 2.3.5",
       "GD with loss c·(1/2)||y − wX||² and learning rate η matches the flow at t = gd_flow_time(k, η, c) = c·η·k "
       "(first-order error <= 2η c λ_max relative at cη = 0.01, t = 4) for c = 1, 2 (the thesis's unhalved loss) and "
       "2/P (a mean), while t = ηk is off by more than 100 times that error for c ≠ 1; on the ladder cη = 0.01 … 6.25e-4 "
       "(5 sizes, halving, t = 4) the GD-vs-flow error falls at rate 1 in cη for each c (explicit Euler; fitted "
       "log–log slope within Student's t (1e-3) times its standard error, plus a slack of 0.01 for the O(η²) bend, "
       "of 1); and exactly in the step count: on inputs scaled "
       "by 1e-2 (cηλ <= 1e-4) the displacement after k = 1..5 explicit GD steps equals the flow's at "
       "gd_flow_time(k, η, c) to cηλ_max relative (the GD-vs-flow term cηλ/2), where k ± 1 steps would be off by "
       ">= 1/5.", "theorem", stochastic=True)
def time_scale_convention(run):
    inst = ln.draw_student(80, 120, init_std=0.2, seed=run.rng(64))
    lam_max = inst.eigenvalues[0]
    checks, ladders = [], []
    halvings = 2.0 ** -np.arange(5)
    for c in (1.0, 2.0, 2.0 / 120):
        errors = []
        for h in halvings:  # η = h·0.01/c over k = 400/h steps: the same flow time cηk = 4
            eta, steps = h * 0.01 / c, int(round(400 / h))
            w = ln.student_gd(inst, steps, eta, loss_scale=c, record_every=steps).weights[-1]
            right = ln.student_weights(inst, ln.gd_flow_time(steps, eta, c))[0]
            scale = np.linalg.norm(right - inst.initial_weights)
            errors.append(np.linalg.norm(w - right) / scale)
            if h == 1.0:
                wrong = ln.student_weights(inst, steps * eta)[0]
                err_wrong = np.linalg.norm(w - wrong) / scale
                checks.append(Check.at_most(errors[0], 2 * eta * c * lam_max, f"c={c:.3g}: GD vs flow at t = cηk"))
                if c != 1.0:
                    checks.append(Check.above(err_wrong / errors[0], 100.0,
                                              f"c={c:.3g}: error at t = ηk / error at cηk"))
        ladders.append(_rate(0.01 * halvings, errors, 1.0, slack=0.01, detail=f"c={c:.3g}: GD vs flow at cηk in cη"))
    small = ln.student_instance(1e-2 * inst.inputs, inst.teacher, inst.noise, inst.initial_weights, inst.noise_std)
    for c in (1.0, 2.0, 2.0 / 120):
        eta = 0.1 / c
        gd = ln.student_gd(small, 5, eta, loss_scale=c)
        flow = ln.student_weights(small, ln.gd_flow_time(gd.steps[1:], eta, c))
        moved_gd = gd.weights[1:] - small.initial_weights
        moved_flow = flow - small.initial_weights
        worst = float(np.max(np.linalg.norm(moved_gd - moved_flow, axis=1) / np.linalg.norm(moved_gd, axis=1)))
        checks.append(Check.at_most(worst, c * eta * small.eigenvalues[0],
                                    f"c={c:.3g}: displacement after k = 1..5 steps vs flow at gd_flow_time"))
    return Check.all_of(checks + ladders, "; ".join(f"{c.detail}: {c.measured:.2e}" for c in checks)
                        + "; " + "; ".join(r.detail for r in ladders))


@claim("linear_networks.sympy_per_mode_solution", "Pezeshki (thesis), Eqs 2.3.12–2.3.13",
       "sympy: (2.3.13) solves τ z' = λ(z̄ − z) + √λ ε̃ with z(0) = z0 (residuals simplify to 0), and its "
       "expected squared gap gives the library's expected_mode_error A e^{−2λt} + (σ_ε²/λ)(1 − e^{−λt})² to 1e-14 "
       "(round-off; the sympy form evaluated at 30 digits) at 4 parameter sets.", "identity")
def sympy_per_mode_solution():
    t, zbar, z0, eps = sp.symbols("t zbar z0 epsilon", real=True)
    lam, tau = sp.symbols("lambda tau", positive=True)
    z = zbar - ((zbar - z0) * sp.exp(-lam * t / tau) - eps / sp.sqrt(lam) * (1 - sp.exp(-lam * t / tau)))
    residual = simplified(tau * sp.diff(z, t) - (lam * (zbar - z) + sp.sqrt(lam) * eps))
    initial = simplified(z.subs(t, 0) - z0)
    # Expectation over independent zero-mean zbar − z0 (variance A) and ε (variance σ²): square and drop cross terms.
    A, sigma2, g, e = sp.symbols("A sigma2 g e")
    gap = sp.expand((g * sp.exp(-lam * t / tau) - e / sp.sqrt(lam) * (1 - sp.exp(-lam * t / tau))) ** 2)
    expected = sp.lambdify((A, sigma2, lam, t, tau), gap.coeff(g, 2) * A + gap.coeff(e, 2) * sigma2, "mpmath")
    worst = 0.0
    for teacher_std, noise_std, init_std, lam_v, t_v, tau_v in ((1.0, 0.5, 0.0, 0.7, 2.1, 1.0),
                                                                 (1.3, 0.2, 0.4, 3.0, 0.05, 2.0),
                                                                 (0.5, 1.5, 0.1, 1e-3, 30.0, 0.5),
                                                                 (2.0, 0.1, 1.0, 0.02, 500.0, 1.0)):
        with mpmath.workdps(30):  # the sympy form has no expm1: evaluate it where its cancellation is harmless
            value = float(expected(*(mpmath.mpf(x) for x in (teacher_std ** 2 + init_std ** 2, noise_std ** 2,
                                                             lam_v, t_v, tau_v))))
        numeric = ln.expected_mode_error(t_v, lam_v, teacher_std=teacher_std, noise_std=noise_std, init_std=init_std, tau=tau_v)
        worst = max(worst, abs(value - numeric) / numeric)
    symbolic = [Check.at_most(abs(float(x)) if x.is_number else math.inf, 0.0, f"sympy residual {x}")
                for x in (residual, initial)]
    return Check.all_of(symbolic + [Check.at_most(worst, 1e-14, "expected_mode_error vs sympy expectation")],
                        f"residual {residual}, initial {initial}, expectation gap {worst:.1e}")


@claim("linear_networks.curve_quadrature_accuracy", "Pezeshki (thesis), Eq 2.3.30",
       "generalization_curve (graded Gauss–Legendre in θ) equals an adaptive scipy quad of the same E_g and E_t/P "
       "integrals to 1e-6 relative for α in {0.5, 1, 2} and t/τ up to 1e5; optimal_stopping_time equals the root of "
       "the quad-evaluated slope dE_g/dt to 1e-4, and E_g there to 1e-7 (the accuracy the package promises); "
       "gd_discretization_error equals the quad of the per-mode difference A(d_GD² − d²) + (σ_ε²/λ)((1 − d_GD)² − "
       "(1 − d)²), d_GD = (1 − ηλ)^k, d = e^{−ηkλ}, at η = 0.05, k in {3, 40, 400} (1e-6 relative).",
       "identity")
def curve_quadrature_accuracy():
    def bulk(alpha, f):
        lo, hi = (1 - math.sqrt(alpha)) ** 2, (1 + math.sqrt(alpha)) ** 2
        half = (hi - lo) / 2

        def integrand(theta):
            lam = lo + 2 * half * math.sin(theta / 2) ** 2
            return 0.0 if lam <= 0 else half ** 2 * math.sin(theta) ** 2 / (2 * math.pi * lam) * f(lam)
        # Break points graded towards both ends: at large t the integrand lives within ~1/t of λ−.
        points = sorted({math.pi * 2.0 ** -k for k in range(1, 30)} | {math.pi * (1 - 2.0 ** -k) for k in range(1, 30)})
        with warnings.catch_warnings():  # pieces whose integrand underflows warn of round-off at 1e-11
            warnings.simplefilter("ignore", integrate.IntegrationWarning)
            return sum(integrate.quad(integrand, a, b, epsabs=0, epsrel=1e-11, limit=200)[0]
                       for a, b in zip([0.0] + points, points + [math.pi]))

    signal, noise = 1.3, 0.25  # teacher_std 1, init_std √0.3, noise_std 0.5
    stds = dict(teacher_std=1.0, noise_std=0.5, init_std=math.sqrt(0.3))
    checks = []
    for alpha in (0.5, 1.0, 2.0):
        atom = max(0.0, 1 - alpha)
        for t in (0.0, 0.7, 30.0, 1e3, 1e5):
            eg = bulk(alpha, lambda lam: signal * math.exp(-2 * lam * t) + noise / lam * math.expm1(-lam * t) ** 2) \
                + atom * signal + noise
            et = bulk(alpha, lambda lam: (lam * signal + noise) * math.exp(-2 * lam * t)) / alpha \
                + noise * max(0.0, 1 - 1 / alpha)
            got = ln.generalization_curve(t, alpha, **stds)
            checks.append(Check.at_most(abs(got.generalization_error / eg - 1), 1e-6, f"E_g α={alpha} t={t:g}"))
            checks.append(Check.at_most(abs(got.training_error - et) / max(et, 1e-300), 1e-6,
                                        f"E_t/P α={alpha} t={t:g}"))
        slope = lambda t: bulk(alpha, lambda lam: 2 * math.exp(-lam * t) * (noise * -math.expm1(-lam * t)  # noqa: E731
                                                                            - lam * signal * math.exp(-lam * t)))
        reference = optimize.brentq(slope, 1e-3, 1e3, xtol=1e-12, rtol=1e-13)
        t_opt = ln.optimal_stopping_time(alpha, **stds)
        eg_ref = bulk(alpha, lambda lam: signal * math.exp(-2 * lam * reference)
                      + noise / lam * math.expm1(-lam * reference) ** 2) + atom * signal + noise
        checks.append(Check.at_most(abs(t_opt / reference - 1), 1e-4, f"t_opt α={alpha}"))
        checks.append(Check.at_most(abs(ln.generalization_curve(t_opt, alpha, **stds).generalization_error / eg_ref - 1),
                                    1e-7, f"E_g(t_opt) α={alpha}"))
        eta = 0.05  # η λ+ <= 1 for these α
        for k in (3, 40, 400):
            gd_minus_flow = bulk(alpha, lambda lam: signal * ((1 - eta * lam) ** (2 * k) - math.exp(-2 * eta * k * lam))
                                 + noise / lam * ((1 - (1 - eta * lam) ** k) ** 2 - math.expm1(-eta * k * lam) ** 2))
            got = ln.gd_discretization_error(k, alpha, eta, **stds)
            checks.append(Check.at_most(abs(got / gd_minus_flow - 1), 1e-6, f"GD − flow α={alpha} k={k}"))
    return Check.all_of(checks)


# ----------------------------------------------------------------------------------------------------
# Properties of the public closed forms: limits, scalings, refused inputs
# ----------------------------------------------------------------------------------------------------

@claim("linear_networks.api_unbalanced_reduces_to_balanced", "Pezeshki (thesis), Eq 2.2.22",
       "mode_strength_unbalanced(t, s, a, a) equals mode_strength(t, s, a²) to 1e-12 relative (a ≠ 0, either sign), "
       "and (t, s, a, −a) stays <= 0, is 0 at t = inf and below 1e-12 at t = 20, as the integrated flow from (a, −a) "
       "does (1e-10).", "identity")
def api_unbalanced_reduces_to_balanced():
    t = np.concatenate([np.linspace(0.0, 20.0, 41), [np.inf]])
    checks = []
    for s, a in ((1.5, 1e-3), (1.5, 0.4), (0.7, -0.9), (0.0, 0.3), (2.0, 3.0)):
        checks.append(Check.at_most(relative_error(ln.mode_strength_unbalanced(t, s, a, a), ln.mode_strength(t, s, a * a)),
                                    1e-12, f"s={s}, a={a}"))
    opposite = ln.mode_strength_unbalanced(t, 1.5, 0.3, -0.3)
    flow = ln.scalar_mode_flow(t[:-1], 1.5, 0.3, -0.3)
    checks += [Check.at_most(np.abs(opposite[:-1] - flow.mode_strength).max(), 1e-10, "(a, −a) vs integrated flow"),
               Check.at_most(float(opposite.max()), 0.0, "(a, −a): largest u"),
               Check.at_most(abs(opposite[-1]), 0.0, "(a, −a): |u(inf)|"),
               Check.at_most(abs(opposite[-2]), 1e-12, "(a, −a): |u(20)|")]
    return Check.all_of(checks)


@claim("linear_networks.api_curve_at_zero", "Pezeshki (thesis), Eqs 2.3.14, 2.3.29–2.3.30",
       "generalization_curve(0, α) returns E_g = E_t/P = σ_w̄² + σ_0² + σ_ε² to 1e-8 for every α (the bulk mass "
       "min(1, α) and mean α of the quadrature with the atom 1 − α), checked on α from 0.05 to 20 including 1.",
       "identity")
def api_curve_at_zero():
    worst = 0.0
    for alpha in np.concatenate([np.geomspace(0.05, 20.0, 15), [1.0]]):
        for teacher_std, noise_std, init_std in ((1.0, 0.5, 0.0), (math.sqrt(2.0), math.sqrt(0.1), 0.5),
                                                 (math.sqrt(0.3), math.sqrt(1.7), 1.2)):
            curve = ln.generalization_curve(0.0, float(alpha), teacher_std=teacher_std, noise_std=noise_std, init_std=init_std)
            expected = teacher_std ** 2 + init_std ** 2 + noise_std ** 2
            worst = max(worst, abs(curve.generalization_error / expected - 1), abs(curve.training_error / expected - 1))
    return Check.at_most(worst, 1e-8)


@claim("linear_networks.api_curve_scaling", "Pezeshki (thesis), Sec 2.3.3",
       "generalization_curve is homogeneous: (√k σ_w̄, √k σ_ε, √k σ_0) multiplies E_g and E_t/P by k, and the result "
       "at (t τ', tau = τ') does not depend on τ' (1e-12 relative, round-off; t up to 1e4 and inf).", "identity")
def api_curve_scaling():
    t = np.array([0.0, 0.3, 4.0, 50.0, 1e4, np.inf])
    checks = []
    for alpha in (0.3, 2.0, 1.0):
        finite = t if alpha != 1.0 else t[:-1]  # E_g(∞) = inf at α = 1
        eg, et = ln.generalization_curve(finite, alpha, teacher_std=1.0, noise_std=0.5, init_std=0.3)
        for k in (3.0, 1e-4):
            r = math.sqrt(k)
            eg_k, et_k = ln.generalization_curve(finite, alpha, teacher_std=r, noise_std=0.5 * r, init_std=0.3 * r)
            checks.append(Check.at_most(max(relative_error(eg_k, k * eg), relative_error(et_k, k * et)), 1e-12, f"α={alpha} k={k:g}"))
        for tau in (2.5, 0.01):
            eg_tau, et_tau = ln.generalization_curve(finite * tau, alpha, teacher_std=1.0, noise_std=0.5, init_std=0.3, tau=tau)
            checks.append(Check.at_most(max(relative_error(eg_tau, eg), relative_error(et_tau, et)), 1e-12, f"α={alpha} τ'={tau:g}"))
    return Check.all_of(checks)


@claim("linear_networks.api_stopping_time_bracket", "Pezeshki (thesis), Sec 2.3.3",
       "optimal_stopping_time lies in [t*(λ+), t*(λ−)] with t*(λ) = (τ/λ) ln(1 + λA/σ_ε²) computed here (no α "
       "outside), is unchanged by the joint scaling of the standard deviations (1e-8) and proportional to tau "
       "(1e-8; the root finder's tolerance), for α in {0.25, 0.5, 0.9, 1, 1.1, 2, 4}.", "identity")
def api_stopping_time_bracket():
    checks, outside = [], []
    A, noise = 1.0 + 0.09, 0.25
    star = lambda lam: 4.0 * A if lam == 0 else math.log1p(lam * A / noise) / lam  # noqa: E731
    for alpha in (0.25, 0.5, 0.9, 1.0, 1.1, 2.0, 4.0):
        t_opt = ln.optimal_stopping_time(alpha, teacher_std=1.0, noise_std=0.5, init_std=0.3)
        lo, hi = (1 - math.sqrt(alpha)) ** 2, (1 + math.sqrt(alpha)) ** 2
        if not star(hi) <= t_opt <= star(lo):
            outside.append(f"α={alpha}: {t_opt:.4g} outside [{star(hi):.4g}, {star(lo):.4g}]")
        r = math.sqrt(7.0)
        scaled = ln.optimal_stopping_time(alpha, teacher_std=r, noise_std=0.5 * r, init_std=0.3 * r)
        slow = ln.optimal_stopping_time(alpha, teacher_std=1.0, noise_std=0.5, init_std=0.3, tau=3.7)
        checks.append(Check.at_most(max(abs(scaled / t_opt - 1), abs(slow / (3.7 * t_opt) - 1)), 1e-8, f"α={alpha}"))
    checks.append(Check.at_most(len(outside), 0, "; ".join(outside) or "α values outside the bracket"))
    return Check.all_of(checks)


_BAD_CALLS = [
    ("mode_strength", lambda: ln.mode_strength(1.0, 1.0, 0.0), "u0"),
    ("mode_strength", lambda: ln.mode_strength(1.0, 1.0, [1e-3, -1e-3]), "u0"),
    ("mode_strength", lambda: ln.mode_strength(1.0, [1.0, -0.5], 1e-3), "s"),
    ("mode_strength", lambda: ln.mode_strength([0.0, -1.0], 1.0, 1e-3), "t"),
    ("mode_strength", lambda: ln.mode_strength(np.nan, 1.0, 1e-3), "t"),
    ("mode_strength", lambda: ln.mode_strength(1.0, 1.0, 1e-3, tau=0.0), "tau"),
    ("mode_strength", lambda: ln.mode_strength(np.ones(3), np.ones(2), 0.01), "t, s and u0"),
    ("mode_strength_unbalanced", lambda: ln.mode_strength_unbalanced(1.0, -1.0, 0.1, 0.2), "s"),
    ("mode_strength_unbalanced", lambda: ln.mode_strength_unbalanced(1.0, 1.0, 0.1, 0.2, tau=-1.0), "tau"),
    ("half_learning_time", lambda: ln.half_learning_time(0.0, 1e-3), "s"),
    ("half_learning_time", lambda: ln.half_learning_time(1.0, 0.0), "u0"),
    ("half_learning_time", lambda: ln.half_learning_time([1.0, 1.0], [0.5, 1.0]), "u0"),
    ("half_learning_time", lambda: ln.half_learning_time(1.0, 1e-3, tau=-1.0), "tau"),
    ("half_learning_time", lambda: ln.half_learning_time(np.ones(3), np.full(2, 0.1)), "s and u0"),
    ("generalization_curve", lambda: ln.generalization_curve(1.0, 0.0), "alpha"),
    ("generalization_curve", lambda: ln.generalization_curve(1.0, 1.0, teacher_std=-1.0), "teacher_std"),
    ("generalization_curve", lambda: ln.generalization_curve(1.0, 1.0, noise_std=-0.1), "noise_std"),
    ("generalization_curve", lambda: ln.generalization_curve(1.0, 1.0, init_std=-0.1), "init_std"),
    ("generalization_curve", lambda: ln.generalization_curve(1.0, 1.0, tau=0.0), "tau"),
    ("generalization_curve", lambda: ln.generalization_curve([1.0, -1.0], 1.0), "t"),
    ("generalization_curve", lambda: ln.generalization_curve([1.0, np.nan], 1.0), "t"),
    ("optimal_stopping_time", lambda: ln.optimal_stopping_time(-1.0), "alpha"),
    ("optimal_stopping_time", lambda: ln.optimal_stopping_time(1.0, teacher_std=-1.0), "teacher_std"),
    ("optimal_stopping_time", lambda: ln.optimal_stopping_time(1.0, noise_std=-1.0), "noise_std"),
    ("optimal_stopping_time", lambda: ln.optimal_stopping_time(1.0, init_std=-1.0), "init_std"),
    ("optimal_stopping_time", lambda: ln.optimal_stopping_time(1.0, tau=0.0), "tau"),
]


@claim("linear_networks.api_bad_input_rejected", "Pezeshki (thesis), Sec 2.2-2.3 (the domains of the closed forms)",
       "Every ValueError condition of the Public API section (u0 <= 0, s < 0, t < 0 or NaN, alpha <= 0, negative "
       "standard deviations, tau <= 0, u0 outside (0, s) for half_learning_time, arguments that do not broadcast), "
       "anywhere in an array, raises ValueError whose message names the parameter (no call missed).", "theorem")
def api_bad_input_rejected():
    missed = []
    for name, call, parameter in _BAD_CALLS:
        try:
            call()
            missed.append(f"{name}: no error for bad {parameter}")
        except ValueError as exc:
            if parameter not in str(exc):
                missed.append(f"{name}: message {str(exc)!r} does not name {parameter}")
    return Check.at_most(len(missed), 0, "; ".join(missed) or f"all {len(_BAD_CALLS)} bad calls rejected")


# Plausible bugs these claims catch (planted in a copy of the library by tests/test_mutations.py).
planted_bug("linear_networks: gd_flow_time counts k + 1 steps", "dynamics/linear_networks/_network.py",
            "t = require_finite_product([k, scale, eta, tau],",
            "t = require_finite_product([k + 1.0, scale, eta, tau],",
            ("linear_networks.time_scale_convention",))
# The theory curve at twice the simulation at α = 1 (10.7 against 5.34 at t = 1000): the argmax at α = 1 alone
# lets it through, the level comparison does not.
planted_bug("linear_networks: label-noise variance doubled in generalization_curve",
            "dynamics/linear_networks/_high_dim.py",
            "    atom = mp_atom(alpha)\n    eg = np.empty(flat.shape)\n",
            "    atom = mp_atom(alpha)\n    noise = 2.0 * noise\n    eg = np.empty(flat.shape)\n",
            ("linear_networks.overtraining_peak", "linear_networks.high_dim_vs_finite_size"))
# The printed (2.2.16) without τ: the flow is then no gradient flow on any energy with a 1/(2τ) prefactor.
planted_bug("linear_networks: scalar_mode_velocity drops the τ of b' (as printed in Eq 2.2.16)",
            "dynamics/linear_networks/_modes.py",
            "velocity = (b_b * err / tau, a_b * err / tau)", "velocity = (b_b * err / tau, a_b * err)",
            ("linear_networks.erratum_energy_prefactor",))
# Hidden directions not orthonormalised: the init then satisfies a^α ∥ b^α but not (2.2.14).
planted_bug("linear_networks: decoupled_init with unnormalised random hidden directions",
            "dynamics/linear_networks/_setups.py",
            "R = haar_orthogonal(n_hidden, seed=rng_from(seed))[:, :n_modes]",
            "R = rng_from(seed).standard_normal((n_hidden, n_modes))",
            ("linear_networks.erratum_decoupling_condition", "linear_networks.closed_form_vs_matrix_flow"))
# A dropped 1/N term: E[tr (X Xᵀ)⁻¹] = N/(P − N − 1) read as N/(P − N) makes the finite-size E_g(∞) equal its
# limit. The rate −1 ladder fails on it for every seed; the Monte Carlo level check alone sits at 3 to 7 standard
# errors against its limit of 4.2 and misses it at some seeds.
planted_bug("linear_networks: finite-size E_g(inf) drops the -1 of the inverse-Wishart mean",
            "dynamics/linear_networks/_student.py",
            "return noise * (1.0 + n / (p - n - 1))", "return noise * (1.0 + n / (p - n))",
            ("linear_networks.long_time_limits",))
# Found by the mutation campaign (tools/mutation_campaign.py): it survived the claims before they were made strict.
planted_bug("linear_networks: level-crossing interpolation divides by v1 + v0", "dynamics/linear_networks/_network.py",
            "(0.5 * v1 - 0.5 * v0)", "(0.5 * v1 + 0.5 * v0)", ("linear_networks.half_time_ordering",))


# ---------------------------------------------------------------- symbolic claims
# Each closed form of the package against the relation it solves, simplified by sympy (verify/symbolic.py), and the
# library against the sympy expression evaluated by mpmath at 30 digits at 1000 points spread over the orders of
# magnitude of every parameter. The relative error bounds are first-order round-off analyses in units of
# ε = 2^-52: an operation on exact inputs rounds once (ε/2), a difference a − b of rounded terms carries
# ε(|a| + |b|)/|a − b|, exp(−x) carries ε·x from its argument's rounding, and a sum of positive terms is as accurate as
# its least accurate term. Each bound's constant is the count of roundings on the longest path in units of ε (not
# ε/2: numpy's exp, log and expm1 are within 1 ulp, not half of one), rounded up to 2, 4 or 8. Integrated flows are
# held to their tolerance instead (see symbolic_deep_mode).
# The closed forms, the relation each solves and the claim that checks it (or why none does) are listed in
# DERIVATIONS below.
from .symbolic import (EPS, derivation, library_against_symbols, printed_misses, residual_zero, simplified,  # noqa: E402
                       spread)
from .symbolic import symbolic_result as _symbolic_result  # noqa: E402

_LN = "linear_networks."


def _ln(*names):
    return tuple(_LN + name for name in names)


#: The theory's closed forms, the relation each solves and the symbolic claim that checks it (the derivations page).
DERIVATIONS = (
    derivation(_ln("scalar_mode_velocity"),
               r"\tau(\dot a, \dot b) = -\tau\,\nabla_{a,b} E,\quad E(a, b) = \frac{1}{2\tau}(s - ab)^2",
               "exact", _LN + "symbolic_mode_reduction", "Pezeshki (thesis), Eqs 2.2.13, 2.2.15–2.2.17"),
    derivation(_ln("mode_strength"), r"\tau \dot u = 2u(s-u),\quad u(0)=u_0",
               "exact", _LN + "symbolic_mode_reduction",
               "Saxe et al. 2014, Eq 6; Pezeshki (thesis), Eqs 2.2.18, 2.2.22",
               "The ODE holds on the decoupled manifold $a^\\alpha = a_\\alpha r^\\alpha$, $b^\\alpha = b_\\alpha "
               "r^\\alpha$ with balanced weights ($a^2 - b^2 = 0$, $u_0 > 0$). The library's stable form "
               "$s/(-\\mathrm{expm1}(-x) + (s/u_0)e^{-x})$, $x = 2st/\\tau$, is compared with the sigmoid at 30 digits "
               "(here, and at 200 more points in `sympy_sigmoid_solves_ode`)."),
    derivation(_ln("mode_strength_unbalanced"),
               r"\tau \dot u = \sqrt{4u^2 + c^2}\,(s-u),\quad c = a_0^2 - b_0^2,\quad u(0) = a_0 b_0",
               "exact", _LN + "symbolic_mode_reduction", "derived in this project",
               "Along $\\tau a' = b(s - ab)$, $\\tau b' = a(s - ab)$ the difference $c = a^2 - b^2$ is conserved and "
               "$u = ab$ moves by $\\tau u' = (a^2 + b^2)(s - u)$ with $(a^2 + b^2)^2 = c^2 + 4u^2$. Writing "
               "$u = (c/2)\\sinh\\theta$ gives $\\tau\\theta' = 2s - c\\sinh\\theta$, a Riccati equation in "
               "$w = e^\\theta$: $\\tau w' = -(c/2)(w - w_+)(w - w_-)$ with $w_\\pm = (2s \\pm D)/c$, "
               "$D = \\sqrt{4s^2 + c^2}$, solved by $w = (w_+ E + w_-)/(1 + E)$, $E = K e^{Dt/\\tau}$, "
               "$K = (w_0 - w_-)/(w_+ - w_0)$, $w_0 = e^{\\operatorname{asinh}(2u_0/c)}$; then $u = (c/4)(w - 1/w)$. "
               "The symbolic claim checks the reduction to the $u$-ODE; the residual of the closed form in that ODE "
               "and the library against it at 30 digits (relative to $\\max(|u|, 10^{-3}s)$, as $u$ may cross 0) "
               "are in `sympy_sigmoid_solves_ode`."),
    derivation(_ln("learning_time"),
               r"T(u_0 \to u_f) = \int_{u_0}^{u_f} \frac{\tau\,du}{2u(s-u)},\quad u(T) = u_f",
               "exact", _LN + "symbolic_learning_times", "Saxe et al. 2014; Pezeshki (thesis), Eqs 2.2.19–2.2.21"),
    derivation(_ln("half_learning_time"), r"u(t_{1/2}) = s/2,\quad t_{1/2} = T(u_0 \to s/2)",
               "exact", _LN + "symbolic_learning_times", "Pezeshki (thesis), Eqs 2.2.21–2.2.22 (the logistic form)"),
    derivation(_ln("first_crossing_time"),
               r"v_0 + (v_1 - v_0)\frac{t - t_0}{t_1 - t_0} = L",
               "exact", _LN + "symbolic_learning_times", "derived in this project",
               "A sampled curve's first crossing of the level $L$ between the grid times $t_0 < t_1$ (values "
               "$v_0 < L \\le v_1$) is read off the linear interpolant through the two samples: solving it for $t$ "
               "gives the unique root $t = t_0 + (t_1 - t_0)(L - v_0)/(v_1 - v_0)$."),
    derivation(_ln("deep_mode_strength"),
               r"\begin{gathered} \tau \dot u = D\,u^{2-2/D}(s-u),\quad u(0) = u_0 \\ "
               r"T_D(u(t)) - T_D(u_0) = t,\quad T_D'(u) = \frac{\tau}{D u^{2-2/D}(s-u)} \end{gathered}",
               "exact", _LN + "symbolic_deep_mode", "Saxe et al. 2014, deep linear networks (the balanced decoupled "
               "mode ODE)",
               "Explicit at $D = 1$ (dsolve), implicit and elementary at $D = 3, 4$; the library integrates the ODE, "
               "so it is held to ten times its integrator tolerance, not to round-off."),
    derivation(_ln("deep_chain_strength", "deep_mode_curve"),
               r"\tau \dot a_i = \Big(\prod_{j \ne i} a_j\Big)\Big(s - \prod_j a_j\Big)",
               "algorithm", source="Saxe et al. 2014, deep linear networks",
               note="Integrations: for $D \\ge 5$ the implicit $t(u)$ is a hypergeometric function with no "
                    "elementary form. The chain's balanced reduction to the deep mode ODE is shown in "
                    "`symbolic_deep_mode`; the integrated chain and curve are compared with it in `deep_mode_ode`."),
    derivation(_ln("effective_initial_strength"),
               r"\tau \dot a = s\,b,\quad \tau \dot b = s\,a,\quad a \cdot b = u_\mathrm{eff}\,e^{2st/\tau} "
               r"+ O(e^{-2st/\tau})",
               "exact", _LN + "symbolic_network_weights", "derived in this project",
               "Near $W = 0$ the mode-basis flow of a mode with connectivity vectors $a, b$ is linear, "
               "$\\tau a' = s b$, $\\tau b' = s a$, solved by $a, b = ((a_0 + b_0)e^{st/\\tau} \\pm (a_0 - b_0)"
               "e^{-st/\\tau})/2$. Its strength is $(|a_0 + b_0|^2 e^{2st/\\tau} - |a_0 - b_0|^2 e^{-2st/\\tau})/4$, "
               "whose growing part $u_\\mathrm{eff} e^{2st/\\tau}$, $u_\\mathrm{eff} = |a_0 + b_0|^2/4$, is the "
               "sigmoid's first-order growth $u_0 e^{2st/\\tau}$ at $u_0 = u_\\mathrm{eff}$."),
    derivation(_ln("conserved_gram"),
               r"\frac{d}{dt}\left(W_{21} W_{21}^\top - W_{32}^\top W_{32}\right) = 0",
               "exact", _LN + "symbolic_network_weights", "Pezeshki (thesis), Eqs 2.2.5–2.2.6"),
    derivation(_ln("student_weights", "student_instance"),
               r"\tau \dot w = (y - wX)X^\top,\quad w(0) = w_0",
               "exact", _LN + "symbolic_student_solutions", "Pezeshki (thesis), Eqs 2.3.5, 2.3.12–2.3.13"),
    derivation(_ln("student_weights_gd"), r"w_{k+1} = w_k + \eta\,(y - w_k X)X^\top,\quad w_0 = w(0)",
               "exact", _LN + "symbolic_student_solutions", "Pezeshki (thesis), Eq 2.3.13 (discrete analogue)"),
    derivation(_ln("training_error"), r"E_t(t) = \lVert y - w(t) X \rVert^2",
               "exact", _LN + "symbolic_student_solutions", "Pezeshki (thesis), Eqs 2.3.4, 2.3.29"),
    derivation(_ln("generalization_error"),
               r"E_g = \mathbb{E}_{x \sim \mathcal{N}(0, I/N),\,\varepsilon}\big[(\bar w x + \varepsilon - w x)^2\big]",
               "exact", _LN + "symbolic_expected_errors", "Advani & Saxe 2017; Pezeshki (thesis), Eq 2.3.14"),
    derivation(_ln("expected_generalization_error", "expected_mode_error"),
               r"\mathbb{E}[E_g(t) \mid X] = \frac{1}{N}\sum_i \mathbb{E}\big[(\bar z_i - z_i(t))^2\big] "
               r"+ \sigma_\varepsilon^2",
               "exact", _LN + "symbolic_expected_errors", "Advani & Saxe 2017; Pezeshki (thesis), Eqs 2.3.13–2.3.14"),
    derivation(_ln("per_mode_stopping_time"), r"\partial_t e(\lambda, t^*) = 0",
               "exact", _LN + "symbolic_early_stopping", "derived in this project",
               "The per-mode expected error $e(\\lambda, t) = A e^{-2\\lambda t/\\tau} + (\\sigma_\\varepsilon^2/\\lambda)"
               "(1 - e^{-\\lambda t/\\tau})^2$, $A = \\sigma_{\\bar w}^2 + \\sigma_0^2$, has the slope $(2/\\tau)"
               "e^{-\\lambda t/\\tau}[\\sigma_\\varepsilon^2(1 - e^{-\\lambda t/\\tau}) - \\lambda A e^{-\\lambda t/\\tau}]$, "
               "which vanishes where $e^{\\lambda t/\\tau} = 1 + \\lambda A/\\sigma_\\varepsilon^2$: "
               "$t^* = (\\tau/\\lambda)\\ln(1 + \\lambda A/\\sigma_\\varepsilon^2)$, a minimum (positive curvature), "
               "with the limit $\\tau A/\\sigma_\\varepsilon^2$ as $\\lambda \\to 0$."),
    derivation(_ln("mode_bayes_error"), r"e(\lambda, t^*) = \frac{A\sigma_\varepsilon^2}{\sigma_\varepsilon^2 + \lambda A}",
               "exact", _LN + "symbolic_early_stopping", "derived in this project",
               "Substituting $e^{-\\lambda t^*/\\tau} = \\sigma_\\varepsilon^2/(\\sigma_\\varepsilon^2 + \\lambda A)$ into "
               "$e(\\lambda, t)$ gives $A\\sigma_\\varepsilon^4/(\\sigma_\\varepsilon^2 + \\lambda A)^2 + "
               "\\lambda A^2\\sigma_\\varepsilon^2/(\\sigma_\\varepsilon^2 + \\lambda A)^2 = A\\sigma_\\varepsilon^2/"
               "(\\sigma_\\varepsilon^2 + \\lambda A)$, the Bayes (optimal ridge) error of the mode when $\\sigma_0 = 0$."),
    derivation(_ln("optimal_stopping_time"), r"\int \rho_\mathrm{bulk}(\lambda)\,\partial_t e(\lambda, t_\mathrm{opt})"
               r"\,d\lambda = 0",
               "exact", _LN + "symbolic_early_stopping", "Advani & Saxe 2017 (early stopping); derived in this project",
               "The slope's integrand is the symbolic $\\partial_t e$; the library's root is held to a slope of at most "
               "$10^{-13}$ of its terms' magnitudes, integrated at 30 digits over the Marchenko–Pastur bulk "
               "(Gauss–Legendre in $\\theta$)."),
    derivation(_ln("asymptotic_errors"),
               r"E_g(\infty) = \sigma_\varepsilon^2 \int \frac{\rho_\mathrm{bulk}}{\lambda}\,d\lambda + (1-\alpha)^+ A "
               r"+ \sigma_\varepsilon^2,\quad \frac{E_t(\infty)}{P} = \sigma_\varepsilon^2\Big(1 - \frac{1}{\alpha}\Big)^+",
               "exact", _LN + "symbolic_asymptotes", "derived in this project",
               "As $t \\to \\infty$ the per-mode error tends to $\\sigma_\\varepsilon^2/\\lambda$ and the training-error "
               "integrand to 0. The Marchenko–Pastur inverse moment $\\int \\rho_\\mathrm{bulk}/\\lambda\\,d\\lambda$ "
               "is a contour integral over $|z| = 1$ ($\\lambda = 1 + \\alpha - \\sqrt\\alpha(z + 1/z)$), $\\alpha/(1 - "
               "\\alpha)$ for $\\alpha < 1$ and $1/(\\alpha - 1)$ for $\\alpha > 1$ by residues; the frozen fraction "
               "$1 - \\alpha$ keeps $A$ and the $P - N$ directions without input variance keep the noise in $E_t$."),
    derivation(_ln("SQRT_GROWTH_CONSTANT"),
               r"C = \frac{1}{\pi}\int_0^\infty x^{-3/2}(1 - e^{-x})^2\,dx = \frac{2(2 - \sqrt 2)}{\sqrt\pi}",
               "exact", _LN + "symbolic_asymptotes", "derived in this project",
               "At $\\alpha = 1$ the bulk density behaves as $1/(\\pi\\sqrt\\lambda)$ near $\\lambda = 0$, and "
               "$x = \\lambda t/\\tau$ in the noise term gives $E_g(t) \\approx C\\sigma_\\varepsilon^2\\sqrt{t/\\tau}$. "
               "Integrating by parts (boundary terms 0) leaves $2\\int_0^\\infty x^{-1/2} \\cdot 2(1 - e^{-x})e^{-x}\\,dx"
               " = 4\\sqrt\\pi(1 - 1/\\sqrt 2)$, so $C = 2(2 - \\sqrt 2)/\\sqrt\\pi$."),
    derivation(_ln("generalization_curve", "bayes_error", "gd_discretization_error"),
               r"E_g(t) = \int \rho_\mathrm{bulk}(\lambda)\,e(\lambda, t)\,d\lambda + (1-\alpha)^+ A + \sigma_\varepsilon^2",
               "algorithm", source="Advani & Saxe 2017; Pezeshki (thesis), Eqs 2.3.14, 2.3.30",
               note="Quadratures of integrands that are checked symbolically (`symbolic_expected_errors`, "
                    "`symbolic_early_stopping`) against the Marchenko–Pastur law, whose moments are checked in "
                    "`numerics.symbolic_mp_moments`; the quadratures themselves are compared with scipy's adaptive "
                    "quad in `curve_quadrature_accuracy`."),
    derivation(_ln("finite_size_asymptotic_generalization_error", "finite_size_asymptotic_training_error"),
               r"\mathbb{E}[E_g(\infty)] = \sigma_\varepsilon^2\Big(1 + \mathbb{E}\operatorname{tr}(X X^\top)^{-1}\Big),"
               r"\quad \mathbb{E}\operatorname{tr}(X X^\top)^{-1} = \frac{N}{P - N - 1}",
               "none", source="derived in this project",
               note="Inverse-Wishart means: an expectation over a random matrix, not a relation sympy can state in "
                    "closed form; the expressions are compared with finite-size Monte Carlo in `long_time_limits`. "
                    "With $X_{j\\mu} \\sim \\mathcal{N}(0, 1/N)$, $X X^\\top$ is Wishart with $P$ degrees of freedom "
                    "and scale $I/N$, so $\\mathbb{E}(X X^\\top)^{-1} = N I/(P - N - 1)$ for $P > N + 1$; the noise part "
                    "of $\\lVert \\bar w - w(\\infty) \\rVert^2/N$ is $\\sigma_\\varepsilon^2 \\operatorname{tr}"
                    "(X X^\\top)^{-1}/N$, and for $N > P + 1$ the same argument on $X^\\top X$ and the $N - P$ frozen "
                    "directions give the other case."),
    derivation(_ln("network_flow", "network_gd", "student_flow", "student_gd", "scalar_mode_flow"),
               r"\tau \dot W_{21} = W_{32}^\top(\Sigma_{31} - W_{32} W_{21} \Sigma_{11}),\quad "
               r"\tau \dot W_{32} = (\Sigma_{31} - W_{32} W_{21} \Sigma_{11}) W_{21}^\top",
               "algorithm", source="Pezeshki (thesis), Eqs 2.2.3–2.2.6, 2.3.5",
               note="Simulators: they integrate the flows (or iterate gradient descent) numerically; the closed forms "
                    "above are compared with them in the numerical claims."),
)

#: The errata that the symbolic claims below show in sympy (the errata page links them).
SYMBOLIC_COUNTERPARTS = {
    "linear_networks.erratum_energy_prefactor": "linear_networks.symbolic_mode_reduction",
    "linear_networks.erratum_decoupling_condition": "linear_networks.symbolic_mode_reduction",
    "linear_networks.erratum_test_error": "linear_networks.symbolic_expected_errors",
}

_POSITIVE = dict(positive=True)


def _logit_points(column, low, high):
    """A spread column on [0, 1] mapped to a fraction in (0, 1) uniform in logit between ``low`` and ``high``."""
    z = np.log(low / (1 - low)) + column * (np.log(high / (1 - high)) - np.log(low / (1 - low)))
    return 1.0 / (1.0 + np.exp(-z))


def _signed(magnitudes, signs):
    """Magnitudes with the signs of a spread column on [0, 1] (negative below 1/2)."""
    return np.where(signs < 0.5, -magnitudes, magnitudes)


def _mode_basis_energy(Wb21, Wb32, s, prefactor):
    """The energy (2.2.13) as its two sums over connectivity modes (a^α the columns of W̄21, b^β the rows of W̄32)."""
    n = len(s)
    cooperative = sum((s[k] - Wb21[:, k].dot(Wb32[k, :])) ** 2 for k in range(n))
    competitive = sum(Wb21[:, i].dot(Wb32[j, :]) ** 2 for i in range(n) for j in range(n) if i != j)
    return prefactor * (cooperative + competitive)


@claim("linear_networks.symbolic_mode_reduction",
       "Saxe et al. 2014; Pezeshki (thesis), Eqs 2.2.9–2.2.18, 2.2.22",
       "sympy, two modes in two hidden units: −∂E/∂(W̄21, W̄32) of the energy (2.2.13) written as its two sums with the "
       "prefactor 1/(2τ) is the mode-basis flow (2.2.9–10), W̄32ᵀ(S − W̄32W̄21)/τ and (S − W̄32W̄21)W̄21ᵀ/τ, and "
       "−∂E/∂(a, b) of (2.2.17), E = (s − ab)²/(2τ), is (2.2.15–16), (b(s − ab), a(s − ab))/τ (residuals 0); the "
       "printed energies without a prefactor give the residuals (2τ − 1)/τ times the velocity (at τ = 1, s₁ = 2, "
       "s₂ = 1, W̄21 = W̄32 = I and at s = 2, a = b = 1, τ = 1 they miss by 1). On a^α = a_α r^α, b^α = b_α r^α "
       "with orthonormal r^α (a rotation by a rational parameter m) the flow moves each mode along its r^α by "
       "(2.2.15–16) (residual 0: the manifold is invariant); the printed condition (2.2.14) alone, a¹ = a₁e₁, "
       "b¹ = b₁(cos φ, sin φ), a² = a₂(−sin φ, cos φ), b² = b₂e₂, holds at t = 0 but τ d(a¹·b²)/dt is a nonzero "
       "residual (4/5 at a = b = 1, s = (2, 1), tan(φ/2) = 1/2, τ = 1, against τ d(a¹·b¹)/dt = 14/5). Along "
       "(2.2.15–16) c = a² − b² is conserved and u = ab obeys τu' = (a² + b²)(s − u) with (a² + b²)² = c² + 4u², "
       "which is 2u(s − u) (2.2.18) for c = 0, u > 0, solved by the sigmoid (2.2.22) from u₀ (residuals 0). "
       "scalar_mode_velocity equals the sympy velocity at 30 digits at 1000 points (a, b of either sign with "
       "magnitudes in [1e-3, 1e3], s in [1e-3, 1e3], τ in [1e-2, 1e2]) within 4ε(1 + |ab|/|s − ab|) (the rounded "
       "product ab in the difference s − ab, then a product and a quotient), and mode_strength equals the sigmoid at "
       "1000 points (t in [1e-3, 1e3], s in [1e-3, 1e3], u₀/s in [1e-10, 1e2], τ in [1e-2, 1e2]) within "
       "8ε(1 + x e^{−x}(1 + s/u₀)/(1 − e^{−x} + (s/u₀)e^{−x})), x = 2st/τ (the rounding of x carried by e^{−x} and "
       "expm1(−x) over the positive denominator).", "identity")
def symbolic_mode_reduction():
    s, tau, u0 = sp.symbols("s tau u_0", **_POSITIVE)
    t = sp.Symbol("t", nonnegative=True)
    a, b, m = sp.symbols("a b m", real=True)
    velocity = sp.Matrix([b * (s - a * b), a * (s - a * b)]) / tau  # (2.2.15–16)

    def descent(energy):
        return sp.Matrix([-sp.diff(energy, a), -sp.diff(energy, b)])

    scalar_energy = (s - a * b) ** 2 / (2 * tau)  # (2.2.17)
    one = {s: 2, a: 1, b: 1, tau: 1}
    # (2.2.13) and (2.2.9–10), two modes in two hidden units
    s1, s2 = sp.symbols("s_1 s_2", **_POSITIVE)
    S = sp.diag(s1, s2)
    Wb21 = sp.Matrix(2, 2, sp.symbols("p_11 p_12 p_21 p_22", real=True))
    Wb32 = sp.Matrix(2, 2, sp.symbols("q_11 q_12 q_21 q_22", real=True))

    def mode_flow(W21, W32):
        gap = S - W32 * W21
        return W32.T * gap / tau, gap * W21.T / tau

    flow21, flow32 = mode_flow(Wb21, Wb32)

    def matrix_descent(prefactor):
        energy = _mode_basis_energy(Wb21, Wb32, (s1, s2), prefactor)
        return (sp.Matrix(2, 2, lambda i, j: -sp.diff(energy, Wb21[i, j])),
                sp.Matrix(2, 2, lambda i, j: -sp.diff(energy, Wb32[i, j])))

    g21, g32 = matrix_descent(1 / (2 * tau))
    p21, _ = matrix_descent(1)
    identity = {**dict(zip(Wb21, sp.eye(2))), **dict(zip(Wb32, sp.eye(2))), s1: 2, s2: 1, tau: 1}
    checks = [residual_zero(sp.expand((g21 - flow21).norm() ** 2 + (g32 - flow32).norm() ** 2),
                            "−∇E of (2.2.13) with 1/(2τ) is (2.2.9–10)"),
              printed_misses(p21[0, 0] - flow21[0, 0], flow21[0, 0], identity, "(2.2.13) without a prefactor, ∂/∂W̄21₁₁"),
              residual_zero((descent(scalar_energy) - velocity).norm() ** 2, "−∇E of (2.2.17) with 1/(2τ) is (2.2.15–16)"),
              printed_misses(descent((s - a * b) ** 2)[0] - velocity[0], velocity[0], one, "(2.2.17) as E(s − ab)²")]
    # The decoupled manifold: a^α = a_α r^α, b^α = b_α r^α, r^α the columns of a rotation.
    a1, a2, b1, b2 = sp.symbols("a_1 a_2 b_1 b_2", real=True)
    R = sp.Matrix([[1 - m ** 2, -2 * m], [2 * m, 1 - m ** 2]]) / (1 + m ** 2)
    d21, d32 = mode_flow(R * sp.diag(a1, a2), sp.diag(b1, b2) * R.T)
    on = (d21 - R * sp.diag(b1 * (s1 - a1 * b1), b2 * (s2 - a2 * b2)) / tau,
          d32 - sp.diag(a1 * (s1 - a1 * b1), a2 * (s2 - a2 * b2)) * R.T / tau)
    checks.append(residual_zero(sp.together(sp.expand(on[0].norm() ** 2 + on[1].norm() ** 2)),
                                "on a^α = a_α r^α, b^α = b_α r^α each mode follows (2.2.15–16)"))
    # (2.2.14) alone: orthogonal couplings at t = 0, but not a^α ∥ b^α (cos φ, sin φ from m = tan(φ/2))
    cos, sin = (1 - m ** 2) / (1 + m ** 2), 2 * m / (1 + m ** 2)
    A = sp.Matrix([[a1, -a2 * sin], [0, a2 * cos]])
    B = sp.Matrix([[b1 * cos, b1 * sin], [0, b2]])
    dA, dB = mode_flow(A, B)
    coupling_rate = tau * (dA[:, 0].dot(B[1, :]) + A[:, 0].dot(dB[1, :]))
    own_rate = tau * (dA[:, 0].dot(B[0, :]) + A[:, 0].dot(dB[0, :]))
    start = {a1: 1, a2: 1, b1: 1, b2: 1, s1: 2, s2: 1, m: sp.Rational(1, 2), tau: 1}
    checks += [residual_zero(A[:, 0].dot(B[1, :]) ** 2 + A[:, 1].dot(B[0, :]) ** 2, "(2.2.14) holds at t = 0"),
               printed_misses(coupling_rate, own_rate, start, "(2.2.14) alone: τ d(a¹·b²)/dt")]
    # The scalar system: c = a² − b² conserved, u = ab, and the balanced sigmoid.
    flow = {a: velocity[0], b: velocity[1]}  # the time derivatives of a and b
    u, c = sp.symbols("u c", real=True)
    e = sp.exp(2 * s * t / tau)
    sigmoid = s * e / (e - 1 + s / u0)
    checks += [residual_zero(2 * a * flow[a] - 2 * b * flow[b], "d(a² − b²)/dt = 0"),
               residual_zero(tau * (flow[a] * b + a * flow[b]) - (a ** 2 + b ** 2) * (s - a * b), "τu' = (a² + b²)(s − u)"),
               residual_zero((a ** 2 + b ** 2) ** 2 - ((a ** 2 - b ** 2) ** 2 + 4 * (a * b) ** 2), "(a² + b²)² = c² + 4u²"),
               residual_zero(sp.sqrt(4 * u ** 2 + c ** 2).subs(c, 0).subs(u, u0) - 2 * u0, "√(4u² + c²) = 2u at c = 0, u > 0"),
               residual_zero(tau * sp.diff(sigmoid, t) - 2 * sigmoid * (s - sigmoid), "τu' = 2u(s − u) for (2.2.22)"),
               residual_zero(sigmoid.subs(t, 0) - u0, "u(0) = u₀")]
    grid = spread([(1e-3, 1e3, "log"), (1e-3, 1e3, "log"), (1e-3, 1e3, "log"), (1e-2, 1e2, "log"),
                   (0.0, 1.0, "linear"), (0.0, 1.0, "linear")], 1000)
    points = np.column_stack([_signed(grid[:, 0], grid[:, 4]), _signed(grid[:, 1], grid[:, 5]), grid[:, 2:4]])

    def velocity_bound(a_, b_, s_, tau_):
        return 4 * EPS * (1 + abs(a_ * b_) / abs(s_ - a_ * b_))

    for i, field in enumerate(("a_velocity", "b_velocity")):
        checks.append(library_against_symbols(velocity[i], (a, b, s, tau),
                                              lambda a_, b_, s_, tau_, i=i: ln.scalar_mode_velocity(a_, b_, s_, tau_)[i],
                                              points, velocity_bound, f"scalar_mode_velocity, {field}"))
    grid = spread([(1e-3, 1e3, "log"), (1e-3, 1e3, "log"), (1e-10, 1e2, "log"), (1e-2, 1e2, "log")], 1000)
    points = np.column_stack([grid[:, 0], grid[:, 1], grid[:, 2] * grid[:, 1], grid[:, 3]])  # t, s, u₀, τ

    def sigmoid_bound(t_, s_, u0_, tau_):
        x, r = 2 * s_ * t_ / tau_, s_ / u0_
        decay = math.exp(-x)
        return 8 * EPS * (1 + x * decay * (1 + r) / (-math.expm1(-x) + r * decay))

    checks.append(library_against_symbols(sigmoid, (t, s, u0, tau), ln.mode_strength, points, sigmoid_bound,
                                          "mode_strength"))
    return _symbolic_result(checks)


@claim("linear_networks.symbolic_learning_times",
       "Saxe et al. 2014; Pezeshki (thesis), Eqs 2.2.19–2.2.22",
       "sympy: the learning time T(u₀ → u_f) = (τ/2s) ln[u_f(s − u₀)/(u₀(s − u_f))] is the integral of "
       "τ du/(2u(s − u)) (∂T/∂u_f equals the integrand and T(u₀ → u₀) = 0), the sigmoid (2.2.22) at T equals u_f, "
       "t_half = (τ/2s) ln(s/u₀ − 1) = T(u₀ → s/2) and the sigmoid there is s/2, Saxe's T(ε → s − ε) = (τ/s) "
       "ln((s − ε)/ε), and the linear interpolant through (t₀, v₀), (t₁, v₁) reaches the level L at t₀ + (t₁ − t₀)(L − "
       "v₀)/(v₁ − v₀) (all residuals 0). learning_time, half_learning_time and first_crossing_time equal the sympy "
       "forms at 30 digits at 1000 points each (s in [1e-3, 1e3], u/s in (1e-12, 1 − 1e-12) on a logit scale, τ in "
       "[1e-2, 1e2]; times in [1e-3, 1e3], gaps in [1e-8, 1e3]), within 2ε(1 + (2 + Σ|ln|)/|ln ratio|) (the four "
       "logarithms' round-off over the logarithm of the ratio, the condition of the difference of logarithms), "
       "2ε(1 + (1 + Σ|ln|)/|ln(s/u₀ − 1)|) and 4ε (exact inputs: each difference, the quotient and the sum of "
       "positive terms round once).", "identity")
def symbolic_learning_times():
    s, u0, uf, tau, eps_, t = sp.symbols("s u_0 u_f tau epsilon t", **_POSITIVE)
    learning = tau / (2 * s) * sp.log(uf * (s - u0) / (u0 * (s - uf)))
    e = sp.exp(2 * s * t / tau)
    sigmoid = s * e / (e - 1 + s / u0)
    half = tau / (2 * s) * sp.log(s / u0 - 1)
    t0, t1, v0, v1, level = sp.symbols("t_0 t_1 v_0 v_1 L", real=True)
    interpolant = v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    crossing = sp.solve(sp.Eq(interpolant, level), t)
    checks = [residual_zero(sp.diff(learning, uf) - tau / (2 * uf * (s - uf)), "∂T/∂u_f = τ/(2u_f(s − u_f))"),
              residual_zero(learning.subs(uf, u0), "T(u₀ → u₀) = 0"),
              residual_zero(sp.expand_log(sigmoid.subs(t, learning) - uf, force=True), "u(T(u₀ → u_f)) = u_f"),
              residual_zero(sigmoid.subs(t, half) - s / 2, "u(t_half) = s/2"),
              residual_zero(sp.expand_log(learning.subs(uf, s / 2) - half, force=True), "T(u₀ → s/2) = t_half"),
              residual_zero(sp.expand_log(learning.subs({u0: eps_, uf: s - eps_}) - tau / s * sp.log((s - eps_) / eps_),
                                          force=True), "Saxe's T(ε → s − ε)"),
              Check.at_most(0.0 if len(crossing) == 1 else math.inf, 0.0, f"one crossing of the interpolant "
                                                                          f"({crossing})")]
    crossing_time = t0 + (t1 - t0) * (level - v0) / (v1 - v0)
    checks.append(residual_zero(crossing[0] - crossing_time, "the interpolant's crossing"))
    # learning_time and half_learning_time: s, and u₀/s, u_f/s on a logit scale (both ends of (0, s))
    grid = spread([(1e-3, 1e3, "log"), (0.0, 1.0, "linear"), (0.0, 1.0, "linear"), (1e-2, 1e2, "log")], 1000)
    s_ = grid[:, 0]
    points = np.column_stack([s_, _logit_points(grid[:, 1], 1e-12, 1 - 1e-12) * s_,
                              _logit_points(grid[:, 2], 1e-12, 1 - 1e-12) * s_, grid[:, 3]])

    def learning_bound(s_, a, b, tau_):
        logs = [math.log(b), math.log(s_ - a), math.log(a), math.log(s_ - b)]
        return 2 * EPS * (1 + (2 + sum(map(abs, logs))) / abs(logs[0] + logs[1] - logs[2] - logs[3]))

    def half_bound(s_, a, tau_):
        logs = [math.log(s_ - a), math.log(a)]
        return 2 * EPS * (1 + (1 + sum(map(abs, logs))) / abs(logs[0] - logs[1]))

    checks.append(library_against_symbols(learning, (s, u0, uf, tau),
                                          lambda a, b, c, d: ln.learning_time(a, b, c, tau=d), points,
                                          learning_bound, "learning_time"))
    checks.append(library_against_symbols(half, (s, u0, tau), lambda a, b, d: ln.half_learning_time(a, b, tau=d),
                                          points[:, [0, 1, 3]], half_bound, "half_learning_time"))
    # first_crossing_time: t₀ >= 0, t₁ = t₀ + gap, and v₀ < L <= v₁ around a level of either sign
    grid = spread([(1e-3, 1e3, "log"), (1e-8, 1e3, "log"), (1e-3, 1e3, "log"), (0.0, 1.0, "linear"),
                   (1e-6, 1.0, "log"), (1e-8, 1e2, "log")], 1000)
    level_ = _signed(grid[:, 2], grid[:, 3])
    width = grid[:, 5] * np.abs(level_)
    low = level_ - grid[:, 4] * width
    crossing_points = np.column_stack([grid[:, 0], grid[:, 0] + grid[:, 1] * grid[:, 0], low, low + width, level_])
    keep = (crossing_points[:, 2] < level_) & (level_ <= crossing_points[:, 3])
    checks.append(library_against_symbols(
        crossing_time, (t0, t1, v0, v1, level),
        lambda a, b, c, d, lv: float(ln.first_crossing_time([a, b], [[c], [d]], lv)[0]), crossing_points[keep],
        4 * EPS, f"first_crossing_time ({int(keep.sum())} points)"))
    return _symbolic_result(checks)


def _deep_times(depth):
    """(T_D, c, v, τ): T_D(u) = ∫ τ du/(D u^{2−2/D}(s − u)) for D = 3 and 4 in c = s^{1/D} and v = u^{1/D}, an
    antiderivative written out here (partial fractions: a logarithm and an arctangent for D = 3, an artanh for D = 4)
    and checked by differentiation in symbolic_deep_mode (sympy's own integral of the D = 3 case drops its
    arctangent)."""
    c, v, tau = sp.symbols("c v tau", **_POSITIVE)
    if depth == 3:
        partial = (sp.log(v ** 2 + c * v + c ** 2) / (6 * c) - sp.log(c - v) / (3 * c)
                   - sp.atan((2 * v + c) / (c * sp.sqrt(3))) / (c * sp.sqrt(3)))
        return tau * (-1 / (c ** 3 * v) + partial / c ** 3), c, v, tau
    return tau / 2 * (-1 / (c ** 4 * v ** 2) + sp.log((c ** 2 + v ** 2) / (c ** 2 - v ** 2)) / (2 * c ** 6)), c, v, tau


_DEEP_RTOL = 1e-11


def _deep_against_implicit(depth, points):
    """deep_mode_strength against the implicit solution T_D(u(t)) − T_D(u₀) = t at each point (s, u₀/s, q, τ): the
    time t to reach a target u* (a logit fraction q of the way from u₀/s to 1 − 1e-6) is T_D(u*) − T_D(u₀) at 30
    digits, rounded to a double; the reference at that double is u* + u'(u*)·(t_double − t) (the rounding of t is
    10^-16 relative, so the first order is exact to 30 digits). The error is held to 10·rtol·max(1, (u/u₀)^{1−2/D}):
    a run at relative tolerance rtol keeps each step's relative error within rtol, and a relative perturbation at u'
    reaches u multiplied by (f(u)/u)/(f(u')/u') <= (u/u')^{1−2/D} for f(u) = D u^{2−2/D}(s − u) (a shift in time
    along the flow); the 10 allows for the accumulation over the steps. atol = rtol·min(u₀, s) (u stays between u₀
    and s along the flow) so that the relative tolerance governs."""
    times, c, v, tau = _deep_times(depth)
    time_at = sp.lambdify((c, v, tau), times, "mpmath")
    root = mpmath.cbrt if depth == 3 else (lambda x: mpmath.sqrt(mpmath.sqrt(x)))

    def time_of(s_, u_, tau_):
        return time_at(root(s_), root(u_), tau_)
    worst, where = 0.0, None
    with mpmath.workdps(30):
        for s_, fraction, q, tau_ in points:
            u0 = fraction * s_
            ms, mt = mpmath.mpf(s_), mpmath.mpf(tau_)
            low, high = math.log(fraction / (1 - fraction)), math.log((1 - 1e-6) / 1e-6)
            target = ms / (1 + mpmath.exp(-(low + q * (high - low))))
            exact = time_of(ms, target, mt) - time_of(ms, mpmath.mpf(u0), mt)
            t_double = float(exact)
            reference = target + depth * target ** (2 - mpmath.mpf(2) / depth) * (ms - target) / mt * (t_double - exact)
            got = ln.deep_mode_strength([0.0, t_double], s_, u0, depth, tau=tau_, rtol=_DEEP_RTOL,
                                        atol=_DEEP_RTOL * min(u0, s_))[1]
            allowed = 10 * _DEEP_RTOL * max(1.0, float(reference / u0) ** (1 - 2 / depth))
            ratio = float(abs(got - reference) / reference) / allowed
            if not ratio <= worst:
                worst, where = ratio, (s_, u0, t_double, tau_)
    return Check.at_most(worst, 1.0, f"deep_mode_strength, D = {depth}, against the implicit solution: worst "
                                     f"relative error / bound {worst:.2f} over {len(points)} points (worst at s, u₀, "
                                     f"t, τ = {np.array2string(np.asarray(where), precision=3)})")


@claim("linear_networks.symbolic_deep_mode",
       "Saxe et al. 2014, deep linear networks (the balanced decoupled mode ODE)",
       "sympy: the balanced scalar chain τa' = a^{D−1}(s − a^D) (the gradient of (s − a₁⋯a_D)²/(2τ) at equal "
       "weights; residual 0 at D = 3) moves its product P = a^D by τP' = D P^{2−2/D}(s − P), Saxe's deep mode ODE "
       "(residual 0 for symbolic D); dsolve gives u = s + (u₀ − s)e^{−t/τ} at D = 1, and for D = 3 and 4 the "
       "elementary T_D(u) has ∂T_D/∂u = τ/(D u^{2−2/D}(s − u)) (residuals 0), so that T_D(u(t)) − T_D(u₀) = t. "
       "deep_mode_strength (rtol 1e-11, atol 1e-11·min(u₀, s)) equals the D = 1 solution at 30 digits at 1000 points "
       "(s in [1e-2, 1e2], u₀ in [1e-8, 1e2], t in [1e-3, 1e3], τ in [1e-2, 1e2]) within 10·rtol (a contracting flow "
       "keeps a run's global error within a few step tolerances), and the D = 3 and D = 4 implicit solutions at 1000 "
       "points each (s in [1e-2, 1e2], u₀/s in [1e-8, 1/2], u(t)/s up to 1 − 1e-6, τ in [1e-2, 1e2]) within "
       "10·rtol·max(1, (u/u₀)^{1−2/D}) (each step's relative error rtol, carried along the growth phase by the flow's "
       "(f(u)/u)/(f(u₀)/u₀) <= (u/u₀)^{1−2/D}).", "identity")
def symbolic_deep_mode():
    s, u0, tau, A = sp.symbols("s u_0 tau A", **_POSITIVE)
    t = sp.Symbol("t", nonnegative=True)
    D = sp.Symbol("D", positive=True, integer=True)
    a = sp.Function("a")(t)
    chain = sp.diff(a ** D, t).subs(sp.Derivative(a, t), a ** (D - 1) * (s - a ** D) / tau)
    a1, a2, a3 = sp.symbols("a_1 a_2 a_3", real=True)
    energy = (s - a1 * a2 * a3) ** 2 / (2 * tau)
    mode = sp.Function("u")
    explicit = sp.dsolve(sp.Eq(tau * mode(t).diff(t), s - mode(t)), mode(t), ics={mode(0): u0}).rhs
    checks = [residual_zero(-sp.diff(energy, a1) - (s - a1 * a2 * a3) * a2 * a3 / tau, "chain gradient, D = 3"),
              residual_zero((-sp.diff(energy, a1)).subs({a1: A, a2: A, a3: A}) - A ** 2 * (s - A ** 3) / tau,
                            "at equal weights, a^{D−1}(s − a^D)/τ, D = 3"),
              residual_zero((chain - D * (a ** D) ** (2 - 2 / D) * (s - a ** D) / tau).subs(a, A),
                            "τP' = D P^{2−2/D}(s − P) for P = a^D"),
              residual_zero(explicit - (s + (u0 - s) * sp.exp(-t / tau)), "D = 1: dsolve")]
    for depth in (3, 4):
        # dT/dv = (dT/du)(du/dv) = τ D v^{D−1}/(D v^{2D−2}(s − v^D)) with u = v^D, s = c^D
        times, c, v, tau_ = _deep_times(depth)
        checks.append(residual_zero(sp.diff(times, v) - tau_ * v ** (depth - 1) / (v ** (2 * depth - 2)
                                                                                  * (c ** depth - v ** depth)),
                                    f"∂T_D/∂u, D = {depth}"))
    points = spread([(1e-2, 1e2, "log"), (1e-8, 1e2, "log"), (1e-3, 1e3, "log"), (1e-2, 1e2, "log")], 1000)
    checks.append(library_against_symbols(
        explicit, (s, u0, t, tau),
        lambda a_, b_, c_, d_: float(ln.deep_mode_strength([0.0, c_], a_, b_, 1, tau=d_, rtol=_DEEP_RTOL,
                                                           atol=_DEEP_RTOL * min(a_, b_))[1]),
        points, 10 * _DEEP_RTOL, "deep_mode_strength, D = 1"))
    implicit_points = spread([(1e-2, 1e2, "log"), (1e-8, 0.5, "log"), (0.0, 1.0, "linear"), (1e-2, 1e2, "log")], 1000)
    checks += [_deep_against_implicit(depth, implicit_points) for depth in (3, 4)]
    return _symbolic_result(checks)


@claim("linear_networks.symbolic_network_weights",
       "Saxe et al. 2014 (learning from small random weights); Pezeshki (thesis), Eqs 2.2.5–2.2.10",
       "sympy: near W = 0 the mode-basis flow (2.2.9–10) of a mode with connectivity vectors a, b in R² is "
       "τa' = s b, τb' = s a, solved by a, b = ((a₀ + b₀)e^{st/τ} ± (a₀ − b₀)e^{−st/τ})/2, whose strength u = a·b = "
       "(|a₀ + b₀|²e^{2st/τ} − |a₀ − b₀|²e^{−2st/τ})/4 grows as u_eff e^{2st/τ} with u_eff = |a₀ + b₀|²/4, the "
       "initial growth u₀e^{2st/τ} of the sigmoid (2.2.22) at u₀ = u_eff (first order in u₀); and along the full flow "
       "(2.2.5–6) the time derivative of W21W21ᵀ − W32ᵀW32 vanishes for any Σ31 and Σ11 (as matrix symbols, and "
       "entry by entry for N1 = 3, N2 = 2, N3 = 2; residuals 0). effective_initial_strength (U = V = 1, N2 = 2) equals "
       "|a₀ + b₀|²/4 at 30 digits at 1000 points (entries of either sign with magnitudes in [1e-6, 1e6]) within 4ε "
       "(exact inputs: each sum, square and the sum of squares round once), and two entries of conserved_gram "
       "(N1 = N3 = 1, N2 = 2) equal a_i a_j − b_i b_j within ε(1 + (|a_i a_j| + |b_i b_j|)/|a_i a_j − b_i b_j|) "
       "(two rounded products and their difference).", "identity")
def symbolic_network_weights():
    s, tau, u0 = sp.symbols("s tau u_0", **_POSITIVE)
    t = sp.Symbol("t", nonnegative=True)
    a0 = sp.Matrix(sp.symbols("a_1 a_2", real=True))
    b0 = sp.Matrix(sp.symbols("b_1 b_2", real=True))
    grow, decay = sp.exp(s * t / tau), sp.exp(-s * t / tau)
    a = ((a0 + b0) * grow + (a0 - b0) * decay) / 2
    b = ((a0 + b0) * grow - (a0 - b0) * decay) / 2
    strength = sp.expand(a.dot(b))
    effective = (a0 + b0).dot(a0 + b0) / 4
    E = sp.Symbol("E", positive=True)  # e^{st/τ}
    e = sp.exp(2 * s * t / tau)
    sigmoid = s * e / (e - 1 + s / u0)
    checks = [residual_zero((tau * a.diff(t) - s * b).norm() ** 2, "τa' = s b"),
              residual_zero((tau * b.diff(t) - s * a).norm() ** 2, "τb' = s a"),
              residual_zero((a.subs(t, 0) - a0).norm() ** 2 + (b.subs(t, 0) - b0).norm() ** 2, "a(0), b(0)"),
              residual_zero(strength - (effective * e - (a0 - b0).dot(a0 - b0) * sp.exp(-2 * s * t / tau) / 4),
                            "u = (|a₀+b₀|²e^{2st/τ} − |a₀−b₀|²e^{−2st/τ})/4"),
              residual_zero(sp.expand(strength.subs(t, tau * sp.log(E) / s)).coeff(E, 2) - effective,
                            "coefficient of e^{2st/τ} = |a₀ + b₀|²/4"),
              residual_zero(sp.series(sigmoid, u0, 0, 2).removeO() - u0 * e, "sigmoid = u₀e^{2st/τ} + O(u₀²) (series)")]
    # The conserved Gram matrix along (2.2.5–6): as matrix symbols (any sizes), and entry by entry.
    n1, n2, n3 = 3, 2, 2
    W21, W32 = sp.MatrixSymbol("W21", n2, n1), sp.MatrixSymbol("W32", n3, n2)
    S31, S11 = sp.MatrixSymbol("Sigma31", n3, n1), sp.MatrixSymbol("Sigma11", n1, n1)
    error = S31 - W32 * W21 * S11
    d21, d32 = W32.T * error / tau, error * W21.T / tau
    checks.append(residual_zero(sp.expand(d21 * W21.T + W21 * d21.T - d32.T * W32 - W32.T * d32).as_explicit()
                                .norm() ** 2, "d/dt(W21W21ᵀ − W32ᵀW32), matrix symbols"))
    A = sp.Matrix(n2, n1, lambda i, j: sp.Function(f"w21_{i}{j}")(t))
    B = sp.Matrix(n3, n2, lambda i, j: sp.Function(f"w32_{i}{j}")(t))
    C = sp.Matrix(n3, n1, lambda i, j: sp.Symbol(f"c_{i}{j}"))
    Q = sp.Matrix(n1, n1, lambda i, j: sp.Symbol(f"q_{i}{j}"))
    gap31 = C - B * A * Q
    flow = {**{sp.Derivative(A[i, j], t): (B.T * gap31)[i, j] / tau for i in range(n2) for j in range(n1)},
            **{sp.Derivative(B[i, j], t): (gap31 * A.T)[i, j] / tau for i in range(n3) for j in range(n2)}}
    gram_rate = (A * A.T - B.T * B).diff(t).subs(flow)
    checks.append(residual_zero(sp.expand(gram_rate).norm() ** 2, "d/dt(W21W21ᵀ − W32ᵀW32), N1 = 3, N2 = 2, N3 = 2"))
    # the library: one mode (U = V = 1), two hidden units
    grid = spread([(1e-6, 1e6, "log")] * 4 + [(0.0, 1.0, "linear")] * 4, 1000)
    entries = _signed(grid[:, :4], grid[:, 4:])
    one = np.ones((1, 1))

    def weights(a1, a2, b1, b2):
        return np.array([[a1], [a2]]), np.array([[b1, b2]])

    symbols = list(a0) + list(b0)
    checks.append(library_against_symbols(
        effective, symbols, lambda *w: float(ln.effective_initial_strength(*weights(*w), one, one)[0]), entries,
        4 * EPS, "effective_initial_strength"))

    def gram_bound(i, j):
        def bound(*w):
            p, q = w[i] * w[j], w[2 + i] * w[2 + j]
            return EPS * (1 + (abs(p) + abs(q)) / abs(p - q))
        return bound

    for i, j in ((0, 0), (0, 1)):
        checks.append(library_against_symbols(
            a0[i] * a0[j] - b0[i] * b0[j], symbols,
            lambda *w, i=i, j=j: float(ln.conserved_gram(*weights(*w))[i, j]), entries, gram_bound(i, j),
            f"conserved_gram[{i}, {j}]"))
    return _symbolic_result(checks)


def _one_by_one(x, teacher, initial, noise):
    """The student instance N = P = 1: X = [[x]], w̄, w(0) and ε given (λ = x², V and U the signs of its SVD)."""
    return ln.student_instance([[x]], [teacher], [noise], [initial], noise_std=1.0)


@claim("linear_networks.symbolic_student_solutions",
       "Advani & Saxe 2017; Pezeshki (thesis), Eqs 2.3.5, 2.3.13 (and its discrete analogue), 2.3.29",
       "sympy, for one feature and one example (X = x, y = w̄x + ε, λ = x²): dsolve of the flow (2.3.5) τw' = "
       "(y − wx)x from w₀ is (2.3.13), w̄ − (w̄ − w₀)e^{−λt/τ} + (ε/x)(1 − e^{−λt/τ}); w_k = w* + (w₀ − w*)(1 − ηλ)^k "
       "with w* = w̄ + ε/x solves the GD step w_{k+1} = w_k + η(y − w_k x)x with w_0 = w₀; and ||y − w(t)x||² is "
       "(2.3.29), (√λ(z̄ − z₀) + ε̃)²e^{−2λt/τ} = (x(w̄ − w₀) + ε)²e^{−2λt/τ} (residuals 0). student_weights, "
       "student_weights_gd and training_error on that instance equal the sympy forms at 30 digits at 1000 points each "
       "(x, w̄, w₀, ε of either sign, |x| in [1e-2, 1e2], the others in [1e-3, 1e3], t in [1e-3, 1e3], τ in "
       "[1e-2, 1e2], for E_t where 2λt/τ < 600 so that it is a normal double; k in [1, 1e4] and ηλ in [1e-6, 1.9], "
       "overshooting modes included) within 8ε(|w̄| + |w̄ − w₀||d|κ + |ε/x|(|1 − d| + |d|κ))/|w| (the round-off of "
       "each term of (2.3.13) over the value: d = e^{−λt/τ} with κ = 1 + λt/τ from its argument, or d = (1 − ηλ)^k "
       "with κ = 1 + k(ηλ/|1 − ηλ| + |ln|1 − ηλ||)), and 8ε(1 + 2λt/τ + 2(|x(w̄ − w₀)| + |ε|)/|x(w̄ − w₀) + ε|) "
       "(the exponential and the cancelling amplitude).", "identity")
def symbolic_student_solutions():
    x, teacher, initial, noise, eta = sp.symbols("x wbar w_0 epsilon eta", real=True)
    tau = sp.Symbol("tau", positive=True)
    t = sp.Symbol("t", nonnegative=True)
    k = sp.Symbol("k", integer=True, nonnegative=True)
    lam = x ** 2
    y = teacher * x + noise
    decay = sp.exp(-lam * t / tau)
    flow_solution = teacher - (teacher - initial) * decay + noise / x * (1 - decay)
    w = sp.Function("w")
    solved = sp.dsolve(sp.Eq(tau * w(t).diff(t), (y - w(t) * x) * x), w(t), ics={w(0): initial}).rhs
    fixed = teacher + noise / x
    gd = fixed + (initial - fixed) * (1 - eta * lam) ** k
    training = (x * (teacher - initial) + noise) ** 2 * sp.exp(-2 * lam * t / tau)
    checks = [residual_zero(solved - flow_solution, "dsolve of τw' = (y − wx)x is (2.3.13)"),
              residual_zero(gd.subs(k, k + 1) - (gd + eta * (y - gd * x) * x), "GD step"),
              residual_zero(gd.subs(k, 0) - initial, "w_0 = w₀"),
              residual_zero((y - flow_solution * x) ** 2 - training, "||y − w(t)x||² = (2.3.29)")]
    grid = spread([(1e-2, 1e2, "log"), (1e-3, 1e3, "log"), (1e-3, 1e3, "log"), (1e-3, 1e3, "log"),
                   (1e-3, 1e3, "log"), (1e-2, 1e2, "log")] + [(0.0, 1.0, "linear")] * 4, 2000)
    signed = _signed(grid[:, :4], grid[:, 6:])
    points = np.column_stack([signed, grid[:, 4:6]])  # x, w̄, w₀, ε, t, τ
    # E_t as a normal double: e^{−2λt/τ} above 1e-260
    normal = points[2 * points[:, 0] ** 2 * points[:, 4] / points[:, 5] < 600]
    points = points[:1000]

    def flow_bound(x_, wb, w0, e_, t_, tau_):
        rate = x_ * x_ * t_ / tau_
        d = math.exp(-rate)
        w_ = wb - (wb - w0) * d + e_ / x_ * (1 - d)
        return 8 * EPS * (abs(wb) + abs(wb - w0) * d * (1 + rate) + abs(e_ / x_) * ((1 - d) + d * (1 + rate))) / abs(w_)

    def training_bound(x_, wb, w0, e_, t_, tau_):
        amplitude = x_ * (wb - w0)
        return 8 * EPS * (1 + 2 * x_ * x_ * t_ / tau_ + 2 * (abs(amplitude) + abs(e_)) / abs(amplitude + e_))

    symbols = (x, teacher, initial, noise, t, tau)
    checks += [library_against_symbols(flow_solution, symbols,
                                       lambda x_, wb, w0, e_, t_, tau_: float(ln.student_weights(
                                           _one_by_one(x_, wb, w0, e_), t_, tau=tau_)[0, 0]),
                                       points, flow_bound, "student_weights"),
               library_against_symbols(training, symbols,
                                       lambda x_, wb, w0, e_, t_, tau_: float(ln.training_error(
                                           _one_by_one(x_, wb, w0, e_), t_, tau=tau_)[0]),
                                       normal[:1000], training_bound, "training_error")]
    # GD: k in [1, 1e4] and ηλ in [1e-6, 1.9] (η = ηλ/x²)
    grid = spread([(1e-2, 1e2, "log"), (1e-3, 1e3, "log"), (1e-3, 1e3, "log"), (1e-3, 1e3, "log"),
                   (1.0, 1e4, "log"), (1e-6, 1.9, "log")] + [(0.0, 1.0, "linear")] * 4, 1000)
    signed = _signed(grid[:, :4], grid[:, 6:])
    gd_points = np.column_stack([signed, np.rint(grid[:, 4]), grid[:, 5] / signed[:, 0] ** 2])  # x, w̄, w₀, ε, k, η

    def gd_bound(x_, wb, w0, e_, k_, eta_):
        r = eta_ * x_ * x_
        d = (1 - r) ** k_
        kappa = 1 + k_ * (r / abs(1 - r) + abs(math.log(abs(1 - r))))
        w_ = wb - (wb - w0) * d + e_ / x_ * (1 - d)
        terms = abs(wb) + abs(wb - w0) * abs(d) * kappa + abs(e_ / x_) * (abs(1 - d) + abs(d) * kappa)
        return 8 * EPS * terms / abs(w_)

    checks.append(library_against_symbols(gd, (x, teacher, initial, noise, k, eta),
                                          lambda x_, wb, w0, e_, k_, eta_: float(ln.student_weights_gd(
                                              _one_by_one(x_, wb, w0, e_), int(k_), eta_)[0, 0]),
                                          gd_points, gd_bound, "student_weights_gd"))
    return _symbolic_result(checks)


def _mode_error_symbols():
    """(e(λ, t), λ, t, τ, A, σ_ε², teacher, noise and init standard deviations): the per-mode expected error
    A e^{−2λt/τ} + (σ_ε²/λ)(1 − e^{−λt/τ})² with A = σ_w̄² + σ_0²."""
    lam, tau, sw, se, s0 = sp.symbols("lambda tau sigma_w sigma_epsilon sigma_0", **_POSITIVE)
    t = sp.Symbol("t", nonnegative=True)
    A, noise = sw ** 2 + s0 ** 2, se ** 2
    error = A * sp.exp(-2 * lam * t / tau) + noise / lam * (1 - sp.exp(-lam * t / tau)) ** 2
    return error, lam, t, tau, A, noise, sw, se, s0


@claim("linear_networks.symbolic_expected_errors",
       "Advani & Saxe 2017; Pezeshki (thesis), Eqs 2.3.13–2.3.15, 2.3.29",
       "sympy.stats: with z̄ ~ N(0, σ_w̄²), z₀ ~ N(0, σ_0²) and ε̃ ~ N(0, σ_ε²) independent, the expectation of the "
       "squared gap (z̄ − z(t))² of (2.3.13) is e(λ, t) = A e^{−2λt/τ} + (σ_ε²/λ)(1 − e^{−λt/τ})², A = σ_w̄² + σ_0², "
       "whose λ → 0 limit is A (the frozen subspace), and the expectation of a mode's term "
       "(√λ(z̄ − z₀) + ε̃)²e^{−2λt/τ} of (2.3.29) is (λA + σ_ε²)e^{−2λt/τ}, the integrand of E_t/P (residuals 0). "
       "expected_generalization_error(t, [λ₁, λ₂, 0]) equals (e(λ₁, t) + e(λ₂, t) + A)/3 + σ_ε² (Eq 2.3.14 in "
       "expectation) at 30 digits at 1000 points (t in [1e-4, 1e4], λ in [1e-4, 1e2], the standard deviations in "
       "[1e-3, 1e3], τ in [1e-2, 1e2]) within 8ε(1 + Σᵢ wᵢ·2λᵢt/τ), wᵢ the share of A e^{−2λᵢt/τ} in the total "
       "(a sum of positive terms, each a few roundings, the exponential carrying its argument's rounding times "
       "2λt/τ). The test error of weights w for a fresh x ~ N(0, I/N) and label noise, N = 2 with the eigenbasis V "
       "of X Xᵀ a rotation by a rational parameter m and w̄ − w = (g₁, g₂)Vᵀ, is E[((w̄ − w)x + ε)²] = (g₁² + g₂²)/2 "
       "+ σ_ε² = ||w̄ − w||²/N + σ_ε², Eq 2.3.14 (residual 0, for every V); the printed λ-weighted Eq 2.3.15, "
       "(λ₁g₁² + λ₂g₂²)/2 + σ_ε², leaves the residual ((λ₁ − 1)g₁² + (λ₂ − 1)g₂²)/2 (at λ₁ = 2, λ₂ = 1, g₁ = 1, "
       "g₂ = 0, σ_ε = 1 it misses by 1/3). generalization_error on an instance N = P = 2 equals "
       "||w̄ − w||²/2 + σ_ε² at 1000 points (entries of w̄ and w of either sign with magnitudes in [1e-3, 1e3], "
       "σ_ε in [1e-3, 1e3]) within 4ε (exact inputs: each difference, square, the sum of positive terms and the "
       "quotient round once).", "identity")
def symbolic_expected_errors():
    from sympy import stats

    error, lam, t, tau, A, noise, sw, se, s0 = _mode_error_symbols()
    teacher, initial, rotated = stats.Normal("zbar", 0, sw), stats.Normal("z0", 0, s0), stats.Normal("epsilon", 0, se)
    decay = sp.exp(-lam * t / tau)
    gap = (teacher - initial) * decay - rotated / sp.sqrt(lam) * (1 - decay)  # (2.3.13): z̄ − z(t)
    training_term = (sp.sqrt(lam) * (teacher - initial) + rotated) ** 2 * sp.exp(-2 * lam * t / tau)
    checks = [residual_zero(stats.E(sp.expand(gap ** 2)) - error, "E[(z̄ − z(t))²] = e(λ, t)"),
              residual_zero(sp.limit(error, lam, 0) - A, "e(0⁺, t) = A"),
              residual_zero(stats.E(sp.expand(training_term)) - (lam * A + noise) * sp.exp(-2 * lam * t / tau),
                            "E[(√λ(z̄ − z₀) + ε̃)²]e^{−2λt/τ}")]
    l1, l2 = sp.symbols("lambda_1 lambda_2", **_POSITIVE)
    expected = (error.subs(lam, l1) + error.subs(lam, l2) + A) / 3 + noise
    points = spread([(1e-4, 1e4, "log"), (1e-4, 1e2, "log"), (1e-4, 1e2, "log"), (1e-3, 1e3, "log"),
                     (1e-3, 1e3, "log"), (1e-3, 1e3, "log"), (1e-2, 1e2, "log")], 1000)

    def bound(t_, a, b, sw_, se_, s0_, tau_):
        signal, noise_ = sw_ ** 2 + s0_ ** 2, se_ ** 2
        terms = [signal * math.exp(-2 * r) for r in (a * t_ / tau_, b * t_ / tau_)]
        total = (sum(terms) + noise_ / a * math.expm1(-a * t_ / tau_) ** 2
                 + noise_ / b * math.expm1(-b * t_ / tau_) ** 2 + signal) / 3 + noise_
        return 8 * EPS * (1 + sum(term / 3 / total * 2 * r * t_ / tau_ for term, r in zip(terms, (a, b))))

    checks.append(library_against_symbols(
        expected, (t, l1, l2, sw, se, s0, tau),
        lambda t_, a, b, sw_, se_, s0_, tau_: ln.expected_generalization_error(
            t_, [a, b, 0.0], teacher_std=sw_, noise_std=se_, init_std=s0_, tau=tau_),
        points, bound, "expected_generalization_error"))
    # Eq 2.3.14 against the printed Eq 2.3.15: a fresh test input x ~ N(0, I/N), N = 2, and fresh label noise
    g1, g2, m = sp.symbols("g_1 g_2 m", real=True)  # z̄ − z in the eigenbasis of X Xᵀ
    V = sp.Matrix([[1 - m ** 2, -2 * m], [2 * m, 1 - m ** 2]]) / (1 + m ** 2)
    x = sp.Matrix([stats.Normal("x_1", 0, 1 / sp.sqrt(2)), stats.Normal("x_2", 0, 1 / sp.sqrt(2))])
    label_noise = stats.Normal("varepsilon", 0, se)
    miss = (sp.Matrix([[g1, g2]]) * V.T * x)[0] + label_noise  # (w̄ − w)x + ε, w̄ − w = (z̄ − z)Vᵀ
    test_error = stats.E(sp.expand(miss ** 2))
    corrected = (g1 ** 2 + g2 ** 2) / 2 + noise
    printed = (l1 * g1 ** 2 + l2 * g2 ** 2) / 2 + noise
    checks += [residual_zero(test_error - corrected, "E[((w̄ − w)x + ε)²] = ||w̄ − w||²/N + σ_ε² (Eq 2.3.14)"),
               printed_misses(printed - corrected, corrected, {l1: 2, l2: 1, g1: 1, g2: 0, se: 1},
                              "the λ-weighted Eq 2.3.15")]
    grid = spread([(1e-3, 1e3, "log")] * 5 + [(0.0, 1.0, "linear")] * 4, 1000)
    entries = _signed(grid[:, :4], grid[:, 5:])
    teacher, weights = sp.symbols("wbar_1 wbar_2", real=True), sp.symbols("w_1 w_2", real=True)
    squared = ((teacher[0] - weights[0]) ** 2 + (teacher[1] - weights[1]) ** 2) / 2 + se ** 2

    def test_error_of(wb1, wb2, w1, w2, se_):
        instance = ln.student_instance(np.eye(2), [wb1, wb2], [0.0, 0.0], [0.0, 0.0], noise_std=se_)
        return float(ln.generalization_error(instance, np.array([w1, w2])))

    checks.append(library_against_symbols(squared, teacher + weights + (se,), test_error_of,
                                          np.column_stack([entries, grid[:, 4]]), 4 * EPS, "generalization_error"))
    return _symbolic_result(checks)


@functools.lru_cache(maxsize=2)
def _legendre_nodes(prec):
    """96 Gauss–Legendre nodes and weights on [−1, 1] at ``prec`` bits (computed once: 0.3 s at 30 digits)."""
    from mpmath.calculus.quadrature import GaussLegendre

    return GaussLegendre(mpmath.mp).get_nodes(-1, 1, 6, prec)


def _bulk_integrals(alpha, integrands):
    """∫ρ_bulk(λ) f(λ) dλ for each f at the working precision (30 digits): in θ with λ = 1 + α − 2√α cos θ, where
    ρ dλ = 2α sin²θ/(πλ) dθ has no endpoint singularity (see numerics.symbolic_mp_moments), by Gauss–Legendre with
    96 nodes on each of the panels [0, π/64, π/8, π/2, π] (graded towards λ−, where e^{−λt} concentrates at large t;
    it agrees with mpmath's adaptive tanh-sinh quadrature to 1e-30 on these integrands)."""
    nodes = _legendre_nodes(mpmath.mp.prec)
    root, edges = mpmath.sqrt(alpha), [mpmath.mpf(0), mpmath.pi / 64, mpmath.pi / 8, mpmath.pi / 2, mpmath.pi]
    totals = [mpmath.mpf(0)] * len(integrands)
    for a, b in zip(edges[:-1], edges[1:]):
        half, middle = (b - a) / 2, (a + b) / 2
        for x, w in nodes:
            theta = middle + half * x
            lam = 1 + alpha - 2 * root * mpmath.cos(theta)
            weight = w * half * 2 * alpha * mpmath.sin(theta) ** 2 / (mpmath.pi * lam)
            totals = [total + weight * f(lam) for total, f in zip(totals, integrands)]
    return totals


_STATIONARY_POINTS = 16


@claim("linear_networks.symbolic_early_stopping",
       "Advani & Saxe 2017 (early stopping); Pezeshki (thesis), Eqs 2.3.13–2.3.14, 2.3.30 (Sec. 2.3.3)",
       "sympy: ∂e/∂t = 0 for the per-mode error e(λ, t) = A e^{−2λt/τ} + (σ_ε²/λ)(1 − e^{−λt/τ})² has the one root "
       "t* = (τ/λ) ln(1 + λA/σ_ε²), where ∂²e/∂t² = 2λσ_ε⁴/(τ²(σ_ε² + λA)) > 0 and e(λ, t*) = Aσ_ε²/(σ_ε² + λA) "
       "(residuals 0), t* → τA/σ_ε² as λ → 0 (limit), and ∂e/∂t = (2/τ)e^{−λt/τ}[σ_ε²(1 − e^{−λt/τ}) − λA "
       "e^{−λt/τ}], the slope whose Marchenko–Pastur average optimal_stopping_time finds the root of. "
       "per_mode_stopping_time and mode_bayes_error equal the sympy forms at 30 digits at 1000 points (λ in "
       "[1e-6, 1e4], the standard deviations in [1e-3, 1e3], τ in [1e-2, 1e2]) within 8ε (a few roundings of positive "
       "terms; log1p's condition λr/((1 + λr)ln(1 + λr)) is at most 1); and at "
       f"{_STATIONARY_POINTS} points (α in [1e-3, 1e3], A/σ_ε² in [1e-2, 1e2], τ in [1e-2, 1e2]) the slope "
       "|∫ρ_bulk ∂e/∂t dλ| at optimal_stopping_time's t_opt, integrated at 30 digits (Gauss–Legendre in θ), is at "
       "most 1e-13 times the integral of its two terms' magnitudes, −2λA e^{−2λt/τ}/τ and 2σ_ε²(1 − e^{−λt/τ})"
       "e^{−λt/τ}/τ (the documented relative accuracy of the Marchenko–Pastur quadrature the library's slope is "
       "computed with; the implied relative error of t_opt, |slope|/(|slope'| t_opt), is reported). Each point is "
       "three 30-digit quadratures of 384 nodes, so not 1000 of them.", "identity")
def symbolic_early_stopping():
    error, lam, t, tau, A, noise, sw, se, s0 = _mode_error_symbols()
    slope = sp.diff(error, t)
    roots = sp.solve(slope, t)
    star = tau / lam * sp.log(1 + lam * A / noise)
    bayes = A * noise / (noise + lam * A)
    curvature = sp.diff(error, t, 2).subs(t, star)
    checks = [Check.at_most(0.0 if len(roots) == 1 else math.inf, 0.0, f"one stationary time ({roots})"),
              residual_zero(sp.expand_log(roots[0] - star, force=True), "t* = (τ/λ) ln(1 + λA/σ_ε²)"),
              residual_zero(curvature - 2 * lam * noise ** 2 / (tau ** 2 * (noise + lam * A)),
                            "∂²e/∂t² at t*"),
              residual_zero(error.subs(t, star) - bayes, "e(λ, t*) = Aσ_ε²/(σ_ε² + λA)"),
              residual_zero(sp.limit(star, lam, 0) - tau * A / noise, "t* → τA/σ_ε² as λ → 0"),
              residual_zero(slope - 2 / tau * sp.exp(-lam * t / tau) * (noise * (1 - sp.exp(-lam * t / tau))
                                                                       - lam * A * sp.exp(-lam * t / tau)),
                            "∂e/∂t, the integrand of the slope")]
    points = spread([(1e-6, 1e4, "log"), (1e-3, 1e3, "log"), (1e-3, 1e3, "log"), (1e-3, 1e3, "log"),
                     (1e-2, 1e2, "log")], 1000)
    checks += [library_against_symbols(star, (lam, sw, se, s0, tau),
                                       lambda l_, sw_, se_, s0_, tau_: ln.per_mode_stopping_time(
                                           l_, teacher_std=sw_, noise_std=se_, init_std=s0_, tau=tau_),
                                       points, 8 * EPS, "per_mode_stopping_time"),
               library_against_symbols(bayes, (lam, sw, se, s0),
                                       lambda l_, sw_, se_, s0_: ln.mode_bayes_error(
                                           l_, teacher_std=sw_, noise_std=se_, init_std=s0_),
                                       points[:, :4], 8 * EPS, "mode_bayes_error")]
    # The global stopping time: the MP-averaged slope vanishes there (σ_ε = 1, A = ratio, in units of τ).
    lam_, ratio_ = sp.symbols("lambda r", **_POSITIVE)
    x_ = sp.Symbol("t", nonnegative=True)
    unit_error = error.subs({tau: 1, sw: sp.sqrt(ratio_), s0: 0, se: 1, lam: lam_, t: x_})
    terms = sp.diff(unit_error, x_).as_ordered_terms()
    slope_f = sp.lambdify((lam_, ratio_, x_), sp.diff(unit_error, x_), "mpmath")
    curve_f = sp.lambdify((lam_, ratio_, x_), sp.diff(unit_error, x_, 2), "mpmath")
    magnitude_f = sp.lambdify((lam_, ratio_, x_), sum(abs(term) for term in terms), "mpmath")
    worst, implied = 0.0, 0.0
    with mpmath.workdps(30):
        for alpha, ratio, tau_ in spread([(1e-3, 1e3, "log"), (1e-2, 1e2, "log"), (1e-2, 1e2, "log")],
                                         _STATIONARY_POINTS):
            t_opt = ln.optimal_stopping_time(alpha, teacher_std=math.sqrt(ratio), noise_std=1.0, tau=tau_) / tau_
            a, r, x = (mpmath.mpf(v) for v in (alpha, ratio, t_opt))
            s_, c_, m_ = _bulk_integrals(a, [lambda l_, f=f: f(l_, r, x) for f in (slope_f, curve_f, magnitude_f)])
            worst = max(worst, float(abs(s_) / m_))
            implied = max(implied, float(abs(s_ / c_) / x))
    checks.append(Check.at_most(worst, 1e-13, f"optimal_stopping_time: |∫ρ ∂e/∂t| / ∫ρ |terms| at t_opt, worst "
                                              f"{worst:.1e} over {_STATIONARY_POINTS} points (implied relative error "
                                              f"of t_opt {implied:.1e})"))
    return _symbolic_result(checks)


def _mp_inverse_moment(inside_pole):
    """∫ρ_bulk(λ)/λ dλ of the Marchenko–Pastur law at α = a², by residues: with z = e^{iθ}, λ = 1 + a² − a(z + 1/z)
    and ρ dλ = 2a² sin²θ/(πλ) dθ, the integral over θ in [0, π] is half the contour integral of a rational function
    over |z| = 1, πi times the residues inside: at z = 0 and at z = a (a < 1) or z = 1/a (a > 1)."""
    z, a = sp.Symbol("z"), sp.Symbol("a", positive=True)
    lam = 1 + a ** 2 - a * (z + 1 / z)
    integrand = sp.cancel(2 * a ** 2 * (-(z - 1 / z) ** 2 / 4) / (sp.pi * lam ** 2) / (sp.I * z))
    denominator = sp.fraction(integrand)[1]

    def residue(pole, order):
        return sp.cancel(sp.diff(sp.cancel((z - pole) ** order * integrand), z, order - 1).subs(z, pole)
                         / sp.factorial(order - 1))

    at_zero = next(m for m in range(1, 8) if sp.cancel(denominator / z ** m).subs(z, 0) != 0)
    pole = a if inside_pole == "a" else 1 / a
    return sp.factor(sp.cancel(sp.pi * sp.I * (residue(0, at_zero) + residue(pole, 2)))), a


@claim("linear_networks.symbolic_asymptotes",
       "Advani & Saxe 2017 (the long-time errors and the overtraining peak at α = 1); Pezeshki (thesis), "
       "Eqs 2.3.13–2.3.14, 2.3.29–2.3.30 (Sec. 2.3.3)",
       "sympy: the per-mode error tends to σ_ε²/λ as t → ∞ and the E_t integrand to 0 (limits); the Marchenko–Pastur "
       "bulk has ∫ρ/λ dλ = α/(1 − α) for α < 1 and 1/(α − 1) for α > 1 (residues at z = 0 and at the pole inside "
       "|z| = 1), so that E_g(∞) = σ_ε² ∫ρ/λ + (1 − α)⁺A + σ_ε² is (1 − α)A + σ_ε²α/(1 − α) + σ_ε² (α < 1) and "
       "σ_ε²α/(α − 1) (α > 1), and E_t(∞)/P = σ_ε²(P − N)/P = σ_ε²(1 − 1/α) for P = αN > N (residuals 0); at α = 1, "
       "√λ ρ(λ) → 1/π as λ → 0 and, integrating by parts (boundary terms 0 in the limits), C = (1/π)∫₀^∞ "
       "x^{−3/2}(1 − e^{−x})² dx = 2(2 − √2)/√π (residual 0). asymptotic_errors equals the sympy forms at 30 digits at "
       "1000 points each side of α = 1 (α in [1e-4, 0.999] and [1.001, 1e4], the standard deviations in [1e-3, 1e3]) "
       "within 8ε (a few roundings of positive terms; the inputs are exact, so α − 1 and 1 − α round at most once) "
       "for E_g and "
       "4ε(1 + 1/|α − 1|) for E_t (1 − 1/α cancels as α → 1), and SQRT_GROWTH_CONSTANT equals C within 4ε.", "limit")
def symbolic_asymptotes():
    error, lam, t, tau, A, noise, sw, se, s0 = _mode_error_symbols()
    training = (lam * A + noise) * sp.exp(-2 * lam * t / tau)
    below, a = _mp_inverse_moment("a")
    above, _ = _mp_inverse_moment("1/a")
    alpha = sp.Symbol("alpha", positive=True)
    n = sp.Symbol("N", positive=True)
    eg_below = (1 - alpha) * A + noise * alpha / (1 - alpha) + noise
    eg_above = noise * alpha / (alpha - 1)
    lam_ = sp.Symbol("lambda", positive=True)
    density_one = sp.sqrt((4 - lam_) * lam_) / (2 * sp.pi * lam_)  # α = 1
    x = sp.Symbol("x", positive=True)
    rise = (1 - sp.exp(-x)) ** 2
    boundary = -2 * x ** sp.Rational(-1, 2) * rise  # ∫x^{-3/2}f = [−2x^{-1/2}f] + 2∫x^{-1/2}f'
    by_parts = 2 * sp.integrate(sp.expand(x ** sp.Rational(-1, 2) * sp.diff(rise, x)), (x, 0, sp.oo))
    constant = 2 * (2 - sp.sqrt(2)) / sp.sqrt(sp.pi)
    checks = [residual_zero(sp.limit(error, t, sp.oo) - noise / lam, "e(λ, ∞) = σ_ε²/λ"),
              residual_zero(sp.limit(training, t, sp.oo), "E_t integrand → 0"),
              residual_zero(below.subs(a, sp.sqrt(alpha)) - alpha / (1 - alpha), "∫ρ/λ, α < 1"),
              residual_zero(above.subs(a, sp.sqrt(alpha)) - 1 / (alpha - 1), "∫ρ/λ, α > 1"),
              residual_zero(noise * below.subs(a, sp.sqrt(alpha)) + (1 - alpha) * A + noise - eg_below,
                            "E_g(∞) = σ_ε²∫ρ/λ + (1 − α)A + σ_ε², α < 1"),
              residual_zero(noise * above.subs(a, sp.sqrt(alpha)) + noise - eg_above,
                            "E_g(∞) = σ_ε²∫ρ/λ + σ_ε², α > 1"),
              residual_zero(noise * (alpha * n - n) / (alpha * n) - noise * (1 - 1 / alpha), "E_t(∞)/P, α > 1"),
              residual_zero(sp.limit(sp.sqrt(lam_) * density_one, lam_, 0) - 1 / sp.pi, "√λ ρ → 1/π at α = 1"),
              residual_zero(sp.limit(boundary, x, 0) + sp.limit(boundary, x, sp.oo), "boundary terms"),
              residual_zero(by_parts / sp.pi - constant, "C = 2(2 − √2)/√π")]
    grid = spread([(0.0, 1.0, "linear"), (1e-3, 1e3, "log"), (1e-3, 1e3, "log"), (1e-3, 1e3, "log")], 1000)
    low = np.exp(np.log(1e-4) + grid[:, 0] * (np.log(0.999) - np.log(1e-4)))
    high = np.exp(np.log(1.001) + grid[:, 0] * (np.log(1e4) - np.log(1.001)))
    symbols = (alpha, sw, se, s0)

    def field(i):
        return lambda a_, sw_, se_, s0_: ln.asymptotic_errors(a_, teacher_std=sw_, noise_std=se_, init_std=s0_)[i]

    for side, alphas, eg in (("α < 1", low, eg_below), ("α > 1", high, eg_above)):
        points = np.column_stack([alphas, grid[:, 1:]])
        checks.append(library_against_symbols(eg, symbols, field(0), points, 8 * EPS, f"E_g(∞), {side}"))
    points = np.column_stack([high, grid[:, 1:]])
    checks.append(library_against_symbols(noise * (1 - 1 / alpha), symbols, field(1), points,
                                          lambda a_, *rest: 4 * EPS * (1 + 1 / abs(a_ - 1)), "E_t(∞)/P, α > 1"))
    with mpmath.workdps(30):
        reference = sp.lambdify((), constant, "mpmath")()
        gap = float(abs((mpmath.mpf(ln.SQRT_GROWTH_CONSTANT) - reference) / reference))
    checks.append(Check.at_most(gap / (4 * EPS), 1.0, f"SQRT_GROWTH_CONSTANT: relative error {gap:.1e}"))
    return _symbolic_result(checks)


# Plausible slips the symbolic claims catch (planted in a copy of the library by tests/test_mutations.py).
# The often-quoted (1/s) ln(s/u₀) form of the half time, without the 2 of the balanced flow τu' = 2u(s − u):
planted_bug("linear_networks: half_learning_time without the 2 of 2s (the often-quoted (τ/s) ln form)",
            "dynamics/linear_networks/_modes.py",
            "t_half = tau / (2.0 * s_b) * (np.log(s_b - u0_b) - np.log(u0_b))",
            "t_half = tau / s_b * (np.log(s_b - u0_b) - np.log(u0_b))", ("linear_networks.symbolic_learning_times",))
planted_bug("linear_networks: effective_initial_strength divides |a + b|² by 2, not 4",
            "dynamics/linear_networks/_network.py", "return np.sum((a[:m] + b[:m]) ** 2, axis=1) / 4.0",
            "return np.sum((a[:m] + b[:m]) ** 2, axis=1) / 2.0", ("linear_networks.symbolic_network_weights",))
# Only modes with 1 < ηλ < 2 overshoot; the discrete-GD claims elsewhere use small steps and never meet them.
planted_bug("linear_networks: student_weights_gd gives an overshooting mode the wrong sign of (1 − ηλ)^k",
            "dynamics/linear_networks/_student.py", "overshoot = np.where(steps_ % 2 == 1, -1.0, 1.0)",
            "overshoot = np.where(steps_ % 2 == 0, -1.0, 1.0)", ("linear_networks.symbolic_student_solutions",))
planted_bug("linear_networks: the deep mode ODE drops its factor D", "dynamics/linear_networks/_kernels.py",
            "out[0] = depth * abs(u) ** (2.0 - 2.0 / depth) * (s - u) / tau",
            "out[0] = abs(u) ** (2.0 - 2.0 / depth) * (s - u) / tau", ("linear_networks.symbolic_deep_mode",))
# Library slips for the claims without one above.
planted_bug("linear_networks: expected_mode_error decays the signal term as e^(-λt), not e^(-2λt)",
            "dynamics/linear_networks/_high_dim.py", "return signal * np.exp(-2.0 * rate) + noise_term",
            "return signal * np.exp(-rate) + noise_term", ("linear_networks.symbolic_expected_errors",))
planted_bug("linear_networks: per_mode_stopping_time divides the log by 2λ",
            "dynamics/linear_networks/_high_dim.py", "np.log1p(lam * ratio) / np.where(lam > 0, lam, 1.0)",
            "np.log1p(lam * ratio) / np.where(lam > 0, 2.0 * lam, 1.0)", ("linear_networks.symbolic_early_stopping",))
planted_bug("linear_networks: asymptotic_errors drops the α of σ_ε²α/(α − 1)",
            "dynamics/linear_networks/_high_dim.py", "generalization = noise * alpha / (alpha - 1.0)",
            "generalization = noise / (alpha - 1.0)", ("linear_networks.symbolic_asymptotes",))
planted_bug("linear_networks: scalar_mode_velocity with the sign of the error flipped (gradient ascent)",
            "dynamics/linear_networks/_modes.py", "err = s - a_b * b_b", "err = a_b * b_b - s",
            ("linear_networks.symbolic_mode_reduction",))
# Slips in the symbolic statements: each claim fails on them, so that the statement and the library are independent
# routes. The snippets are split into two literals here so that each occurs once in this file, in the claim's body.
planted_bug("linear_networks: symbolic statement: the scalar energy with 1/τ, not 1/(2τ)", "verify/linear_networks.py",
            "scalar_energy = (s - a * b) ** 2 " "/ (2 * tau)", "scalar_energy = (s - a * b) ** 2 / tau",
            ("linear_networks.symbolic_mode_reduction",))
planted_bug("linear_networks: symbolic statement: the learning time without the 2 of 2s", "verify/linear_networks.py",
            "learning = tau / (2 * s) " "* sp.log(", "learning = tau / s * sp.log(",
            ("linear_networks.symbolic_learning_times",))
planted_bug("linear_networks: symbolic statement: the deep mode ODE without its factor D", "verify/linear_networks.py",
            "residual_zero((chain - D * (a ** D) " "** (2 - 2 / D)", "residual_zero((chain - (a ** D) ** (2 - 2 / D)",
            ("linear_networks.symbolic_deep_mode",))
planted_bug("linear_networks: symbolic statement: the effective strength |a + b|²/2", "verify/linear_networks.py",
            "effective = (a0 + b0).dot(a0 + b0) " "/ 4", "effective = (a0 + b0).dot(a0 + b0) / 2",
            ("linear_networks.symbolic_network_weights",))
planted_bug("linear_networks: symbolic statement: the noise term of (2.3.13) with the wrong sign",
            "verify/linear_networks.py",
            "flow_solution = teacher - (teacher - initial) * decay " "+ noise / x",
            "flow_solution = teacher - (teacher - initial) * decay - noise / x",
            ("linear_networks.symbolic_student_solutions",))
planted_bug("linear_networks: symbolic statement: the noise of (2.3.13) amplified by 1/λ, not 1/√λ",
            "verify/linear_networks.py", "gap = (teacher - initial) * decay - rotated " "/ sp.sqrt(lam)",
            "gap = (teacher - initial) * decay - rotated / lam", ("linear_networks.symbolic_expected_errors",))
planted_bug("linear_networks: symbolic statement: the stopping time with σ_ε²/A for A/σ_ε²", "verify/linear_networks.py",
            "star = tau / lam * sp.log(1 + lam * A " "/ noise)", "star = tau / lam * sp.log(1 + lam * noise / A)",
            ("linear_networks.symbolic_early_stopping",))
planted_bug("linear_networks: symbolic statement: E_g(∞) above α = 1 without the α", "verify/linear_networks.py",
            "eg_above = noise * alpha " "/ (alpha - 1)", "eg_above = noise / (alpha - 1)",
            ("linear_networks.symbolic_asymptotes",))
