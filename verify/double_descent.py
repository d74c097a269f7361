"""Claims of the multi-scale double-descent theory (Pezeshki et al. 2022, cited by the equation numbers of its
reprint, Pezeshki (thesis) Ch. 4), the results derived in this project for it, and the errata the project found (see
the theory note, docs/theory/double_descent.md).

Every claim compares two routes computed here: the approximate bipartite closed form against the exact large-d ridge
oracle, the log-time ODE or phase-point formulas; the trace formulas against Monte Carlo over teachers and against
explicit GD; the replica saddle point against the Marchenko–Pastur Stieltjes transform, its quadrature and sympy;
printed forms of the source against corrected ones.

Tolerances. A claim that draws (designs, teachers, test inputs) is ``stochastic`` and draws every seed through its
run context. Its statistical limits are two-sided Bonferroni bounds at a family-wise level of 1e−4 over the m
comparisons the claim makes: a normal quantile where the standard error comes from thousands of draws, a Student-t
quantile with the draws' degrees of freedom where it comes from a handful (:func:`_z_limit`, :func:`_t_limit`).
Finite-size biases (finite d, finite n) are not noise: they are bounded separately, by an envelope that the
statement states with its origin. Deterministic thresholds above round-off are regression envelopes of measured
values, and say so.
"""
import math
from functools import lru_cache

import numpy as np

import dynamics.double_descent as dd
from dynamics import numerics as nx
from .registry import Check, claim, family_wise_t, family_wise_z, lazy_module, planted_bug, relative_error

mpmath = lazy_module("mpmath")
sp = lazy_module("sympy")
optimize = lazy_module("scipy.optimize")
stats = lazy_module("scipy.stats")

PHASE = dd.PHASE_DIAGRAM_SIZES  # Fig 4.4 configuration (n/d = 1.1, p/d = 0.7)
FAMILY_WISE = 1e-4


def _z_limit(m):
    """Two-sided Bonferroni normal quantile: m comparisons at family-wise level 1e−4."""
    return family_wise_z(m, FAMILY_WISE)


def _t_limit(m, dof):
    """Two-sided Bonferroni Student-t quantile with ``dof`` degrees of freedom: m comparisons at family-wise 1e−4."""
    return family_wise_t(m, dof, FAMILY_WISE)


def _abs(a, b):
    return float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float))))


# ------------------------------------------------------- the generalisation error, the GD closed form, the traces

_IDENTITY_BLOCKS, _IDENTITY_LADDER = 12, 250 * 2 ** np.arange(6)  # test-set sizes 250..8000, 12 disjoint blocks each


@claim("double_descent.generalization_error_identity", "Pezeshki (thesis), Eqs 4.2.5–4.2.6",
       f"For any student ŵ, half the test MSE equals ½(‖w‖²/d − 2R + Q) (= ½(1 − 2R + Q) for ‖w‖² = d): the Monte "
       f"Carlo mean over 2e5 test inputs agrees for 4 students within z = {_z_limit(4):.2f} standard errors (two-sided "
       "Bonferroni over the 4 students at family-wise level 1e−4; normal quantile, the SE coming from 2e5 draws). Its "
       "error is Monte Carlo error alone, so it falls as m^(−1/2) in the number m of test inputs: over disjoint blocks "
       f"of m = 250, 500, …, 8000 inputs ({_IDENTITY_BLOCKS} blocks of each size, taken from the same 2e5), the root "
       "mean square of (block mean − ½(‖w‖²/d − 2R + Q))/sd has log–log slope −1/2 (Check.rate, Student t at 1e−3 "
       "on the fit's standard error).", "identity", stochastic=True)
def generalization_error_identity(run):
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(45, 30, 20, 10.0, noise_std=0.3), n_seeds=1,
                                   seed=run.seed(11), n_test=200_000)
    weights = dd.gd_weights(data.X, data.y, [2.0, 30.0, 3000.0])
    random_student = run.rng(12).standard_normal((1, 1, 30))
    w_hat = np.concatenate([weights, random_student], axis=1)
    measured = dd.test_error(w_hat, data)[0]
    theory = dd.measure_order_parameters(w_hat, data.w, data.modulation, data.noise_std).generalization_error[0]
    predictions = np.einsum("md,kd->km", data.Z_test[0] @ data.modulation.matrix[0], w_hat[0])
    losses = 0.5 * (predictions - data.y_test[0]) ** 2  # (students, test inputs)
    standard_error = losses.std(-1) / np.sqrt(data.Z_test.shape[1])
    z = np.abs(measured - theory) / standard_error
    sd, start, ladder = losses.std(-1)[:, None], 0, []
    for m in _IDENTITY_LADDER:  # disjoint blocks, so that the errors on the ladder are independent
        blocks = losses[:, start:start + _IDENTITY_BLOCKS * m].reshape(len(theory), _IDENTITY_BLOCKS, m).mean(-1)
        ladder.append(float(np.sqrt(np.mean(((blocks - theory[:, None]) / sd) ** 2))))
        start += _IDENTITY_BLOCKS * m
    rate = Check.rate(_IDENTITY_LADDER, ladder, -0.5, detail="Monte Carlo in the test inputs")
    return Check.all_of([Check.at_most(float(z.max()), _z_limit(4)), rate],
                        f"max |MC − ½(‖w‖²/d − 2R + Q)| = {_abs(measured, theory):.2e} ({z.max():.2f} SE); "
                        f"relative {relative_error(measured, theory):.1e}; RMS block error × √m / sd = "
                        f"{np.round(np.asarray(ladder) * np.sqrt(_IDENTITY_LADDER), 2).tolist()} (1 for pure Monte "
                        f"Carlo); {rate.detail}")


@claim("double_descent.closed_form_equals_iterated_gd", "Pezeshki (thesis), Eq 4.2.19, App. Eqs .2.15–.2.17",
       "The closed form ŵ_k = W(I − ((1 − ηλ)I − ηΛ)^k)Wᵀŵ_λ equals explicitly iterated full-batch GD (Haar F, "
       "weight decay, label noise, 3 draws, up to 600 steps) to 1e−10 (a round-off envelope: observed ~1e−14).",
       "identity", stochastic=True)
def closed_form_equals_iterated_gd(run):
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(60, 40, 28, 10.0, noise_std=0.4), n_seeds=3,
                                   seed=run.seed(21))
    steps = np.array([0, 1, 2, 7, 40, 150, 600])
    weight_decay = 0.1
    eta = dd.inverse_max_eigenvalue_learning_rate(data.X, weight_decay, factor=0.9).min()  # stable for all 3
    closed = dd.gd_weights(data.X, data.y, steps, learning_rate=eta, weight_decay=weight_decay)
    iterated = dd.iterate_gd(data.X, data.y, steps, eta, weight_decay=weight_decay).weights
    return Check.at_most(_abs(closed, iterated), 1e-10, f"max |ŵ| = {np.abs(iterated).max():.2f}")


_FLOW_LADDER = 2.0 ** -np.arange(6)  # η/η₀


@claim("double_descent.gd_approaches_gradient_flow", "Pezeshki (thesis), App. Eqs .2.16, .2.42–.2.44",
       "The first step of the GD → ridge map, (I − ηΛ)^k = exp(k log(I − ηΛ)) ≈ exp(−ηkΛ) (log(1 − x) ≈ −x, needing "
       "ηs ≪ 1): explicitly iterated GD (weight decay 0.05, label noise, 2 drawn designs) at steps k₀·2^j with "
       "η = η₀/2^j (η₀ = 0.5/(λ_max + λ), j = 0…5, k₀ ∈ {1, 4, 16}, so that ηk is fixed) approaches the gradient-flow "
       "closed form at rate 1 in η (Check.rate, expected slope 1: the neglected term of log(1 − x) is x²/2), and "
       "(ŵ_GD − ŵ_flow)/η equals the predicted leading term W diag(e^{−rτ}·τr/2)Wᵀ Xᵀy (τ = ηk, r = s + λ, from "
       "(1 − ηr)^k = e^{−rτ}(1 − ητr²/2 + O(η²))) to 2e−2 relative at the smallest η (itself O(η): measured ≤ 6e−3).",
       "limit", stochastic=True)
def gd_approaches_gradient_flow(run):
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(60, 40, 28, 10.0, noise_std=0.4), n_seeds=2,
                                   seed=run.seed(22))
    weight_decay, k0 = 0.05, np.array([1, 4, 16])
    eta0 = float(dd.inverse_max_eigenvalue_learning_rate(data.X, weight_decay, factor=0.5).min())
    flow = dd.gd_weights(data.X, data.y, k0, learning_rate=eta0, weight_decay=weight_decay, dynamics="flow")
    leading = []
    for X, y in zip(data.X, data.y):
        s, W = np.linalg.eigh(X.T @ X)
        r, b = s + weight_decay, W.T @ (X.T @ y)
        leading.append(np.stack([W @ (np.exp(-r * tau) * tau * r / 2.0 * b) for tau in eta0 * k0]))
    leading = np.stack(leading)
    errors, residual = [], np.nan
    for fraction in _FLOW_LADDER:
        scale = int(round(1.0 / fraction))
        gd = dd.iterate_gd(data.X, data.y, k0 * scale, eta0 * fraction, weight_decay=weight_decay).weights
        errors.append(_abs(gd, flow))
        residual = _abs((gd - flow) / (eta0 * fraction), leading) / np.abs(leading).max()
    rate = Check.rate(eta0 * _FLOW_LADDER, errors, 1.0, detail="GD against gradient flow in η")
    return Check.all_of([rate, Check.at_most(residual, 2e-2, "leading term at the smallest η")],
                        f"max |ŵ_GD − ŵ_flow| {errors[0]:.2e} → {errors[-1]:.2e}; relative miss of the leading term "
                        f"{residual:.1e}; {rate.detail}")


@lru_cache(maxsize=4)
def _teacher_monte_carlo(design_seed, teacher_seed):
    """Fixed design, 4000 teachers and noise draws: MC means and standard errors of R, Q, Q1, Q2, and the inputs."""
    n, d, p, kappa, noise_std, weight_decay = 45, 30, 20, 10.0, 0.5, 0.05
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(n, d, p, kappa, noise_std=noise_std), n_seeds=1,
                                   seed=design_seed)
    F, Z, X = data.modulation.draw(0), data.Z[0], data.X[0]
    rng = np.random.default_rng(teacher_seed)
    draws = 4000
    w = rng.standard_normal((draws, d))
    y = w @ Z.T + noise_std * rng.standard_normal((draws, n))
    steps = np.array([1.0, 10.0, 100.0, 5000.0])
    eta = dd.inverse_max_eigenvalue_learning_rate(X, weight_decay)
    w_hat = dd.gd_weights(X, y, steps, learning_rate=eta, weight_decay=weight_decay)
    sample = dd.measure_order_parameters(w_hat, w, F)
    moments = {name: (getattr(sample, name).mean(0), getattr(sample, name).std(0, ddof=1) / np.sqrt(draws))
               for name in ("R", "Q", "R1", "Q1", "Q2")}
    return dict(F=F, X=X, steps=steps, eta=eta, weight_decay=weight_decay, noise_std=noise_std, moments=moments)


@claim("double_descent.trace_formula_equals_teacher_average",
       "Pezeshki (thesis), Eqs 4.2.9–4.2.10, App. Eqs .2.18–.2.20",
       f"At fixed X, the trace formulas for R, Q (and the parts R1, Q1, Q2) at 4 steps equal the Monte-Carlo average "
       f"over 4000 teachers and label-noise draws within z = {_z_limit(20):.2f} standard errors (two-sided Bonferroni "
       "over the 20 "
       "comparisons at family-wise level 1e−4; normal quantile, the SE coming from 4000 draws); the O(d²) G∘H "
       "evaluation equals the direct A/B traces to 1e−12 (round-off).", "identity", stochastic=True)
def trace_formula_equals_teacher_average(run):
    mc = _teacher_monte_carlo(run.seed(31), run.seed(32))
    settings = dd.GDSettings(learning_rate=mc["eta"], weight_decay=mc["weight_decay"])
    fast = dd.exact_gd_order_parameters(mc["F"], mc["X"], mc["steps"], settings, noise_std=mc["noise_std"])
    direct = dd.exact_gd_order_parameters(mc["F"], mc["X"], mc["steps"], settings, noise_std=mc["noise_std"],
                                          method="matrix")
    z = max(float(np.max(np.abs(getattr(fast, name) - mean) / se)) for name, (mean, se) in mc["moments"].items())
    gap = max(_abs(getattr(fast, name), getattr(direct, name)) for name in ("R", "Q", "R1", "R2", "Q1", "Q2"))
    return Check.all_of([Check.at_most(z, _z_limit(20)), Check.at_most(gap, 1e-12)],
                        f"max |trace − MC| = {z:.2f} SE over steps {mc['steps'].tolist()}; |G∘H − direct| = {gap:.1e}")


@claim("double_descent.erratum_teacher_enters_through_inverse_F", "Pezeshki (thesis), Eq 4.2.10",
       f"The source prints A = FVDVᵀF; the correct A = FV·DΛ(Λ+λ)⁻¹·VᵀF⁻¹ (the teacher enters through F⁻¹, since "
       f"XᵀZw = XᵀXF⁻¹w): the corrected Q is within z = {_z_limit(4):.2f} Monte-Carlo standard errors of the "
       "4000-teacher average "
       "at all 4 steps (Bonferroni over 4 at family-wise 1e−4), the printed one misses by more than 15 SE "
       "(measured ≥ 30 over 20 seed offsets).",
       "erratum", stochastic=True, printed="A = F V D Vᵀ F", corrected="A = F V · DΛ(Λ + λI)⁻¹ · Vᵀ F⁻¹",
       printed_math=r"A = F V D V^\top F",
       corrected_math=r"A = F V \cdot D \Lambda (\Lambda + \lambda I)^{-1} \cdot V^\top F^{-1}")
def erratum_teacher_enters_through_inverse_F(run):
    mc = _teacher_monte_carlo(run.seed(31), run.seed(32))
    F, X, steps, noise_std = mc["F"].matrix, mc["X"], mc["steps"], mc["noise_std"]
    d = X.shape[1]
    s, W = np.linalg.eigh(X.T @ X)
    f = dd.spectral_filter(s, steps, mc["eta"], mc["weight_decay"])
    F_tilde = F @ W
    printed = np.array([(np.sum(((F_tilde * (f_k * s)) @ F_tilde.T) ** 2)
                         + noise_std ** 2 * np.sum((F_tilde * (f_k * np.sqrt(s))) ** 2)) / d for f_k in f])
    corrected = dd.exact_gd_order_parameters(mc["F"], X, steps,
                                             dd.GDSettings(learning_rate=mc["eta"], weight_decay=mc["weight_decay"]),
                                             noise_std=noise_std).Q
    mean, se = mc["moments"]["Q"]
    return Check.erratum(np.max(np.abs(printed - mean) / se), np.max(np.abs(corrected - mean) / se), _z_limit(4),
                         reject_above=15.0, detail="errors in units of the Monte-Carlo standard error of Q")


# ---------------------------------------------------------------------- Case 1 (F = I) and the root of Eq 4.2.13

@claim("double_descent.case1_replica_equals_random_matrix_theory",
       "Pezeshki (thesis), App. Eqs .2.30–.2.35, .2.64–.2.66 (the random-matrix form derived in this project)",
       "Case 1 (F = I): the zero-temperature replica saddle point (a, R, Q) equals the Marchenko–Pastur Stieltjes "
       "formulas to rel 1e−9 over α ∈ {0.5, 1, 1.5, 3}, λ ∈ [1e−4, 10], T ∈ {1, 0.7, 0.3}, σ² ∈ {0, 0.3, 1.2}, and "
       "in the ridgeless limit λ = 0 (α ∈ {1.5, 3}) also the least-squares values R = T, Q = T + σ²/(α − 1), "
       "a = α written out here (rel 1e−12, round-off); it is a "
       "stationary point of the free energy (sympy gradient ≤ 1e−9), and g equals MP quadrature (rel 1e−7, the "
       "quadrature's accuracy).", "identity")
def case1_replica_equals_random_matrix_theory():
    alpha, lam = np.meshgrid([0.5, 1.0, 1.5, 3.0], np.logspace(-4, 1, 15), indexing="ij")
    checks, details = [], []
    worst = 0.0
    for t_power in (1.0, 0.7, 0.3):
        for noise_var in (0.0, 0.3, 1.2):
            a = dd.replica_saddle_point(alpha, lam, t_power, noise_var)
            b = dd.stieltjes_order_parameters(alpha, lam, t_power, noise_var)
            worst = max(worst, relative_error(a.R, b.R), relative_error(a.Q, b.Q), relative_error(a.a, b.a))
    checks.append(Check.at_most(worst, 1e-9))
    details.append(f"replica vs Stieltjes rel {worst:.1e}")
    ridgeless = 0.0  # λ = 0 (α > 1): ordinary least squares, E[(XᵀX)⁻¹] → I/(n − d) per unit d
    for t_power in (1.0, 0.7, 0.3):
        for noise_var in (0.0, 0.3, 1.2):
            al = np.array([1.5, 3.0])
            a = dd.replica_saddle_point(al, 0.0, t_power, noise_var)
            b = dd.stieltjes_order_parameters(al, 0.0, t_power, noise_var)
            ols_q = t_power + noise_var / (al - 1.0)
            ridgeless = max(ridgeless, relative_error(b.R, t_power), relative_error(b.Q, ols_q), relative_error(b.a, al), relative_error(a.R, t_power),
                            relative_error(a.Q, ols_q), relative_error(a.a, al))
    checks.append(Check.at_most(ridgeless, 1e-12))
    details.append(f"λ = 0 vs least squares rel {ridgeless:.1e}")
    # stationarity of Φ(R, Q, x) = (Q − R²/T)/(2x) − λQ/2 − α(G − 2R + Q)/(2(1 + x)), G = T + σ²
    R_, Q_, x_, al_, la_, T_, G_ = sp.symbols("R Q x alpha lambda T G", real=True)
    phi = (Q_ - R_ ** 2 / T_) / (2 * x_) - la_ * Q_ / 2 - al_ * (G_ - 2 * R_ + Q_) / (2 * (1 + x_))
    gradient = sp.lambdify((R_, Q_, x_, al_, la_, T_, G_), [sp.diff(phi, v) for v in (R_, Q_, x_)], "numpy")
    stationarity = 0.0
    for t_power, noise_var in ((1.0, 0.0), (0.7, 0.3), (0.3, 1.2)):
        sol = dd.replica_saddle_point(alpha, lam, t_power, noise_var)
        grads = gradient(sol.R, sol.Q, sol.susceptibility, alpha, lam, t_power, t_power + noise_var)
        scale = 1.0 + np.abs(sol.Q) / sol.susceptibility ** 2
        stationarity = max(stationarity, max(float(np.max(np.abs(g) / scale)) for g in grads))
    checks.append(Check.at_most(stationarity, 1e-9))
    details.append(f"|∇Φ| {stationarity:.1e}")
    quad_err = 0.0
    for a_val in (0.5, 1.0, 1.5, 3.0):
        nodes, weights = nx.mp_quadrature(a_val)
        for l_val in np.logspace(-2, 1, 7):
            g_quad = np.sum(weights / (nodes + l_val)) + nx.mp_atom(a_val) / l_val
            quad_err = max(quad_err, relative_error(g_quad, dd.mp_stieltjes(a_val, l_val)))
    checks.append(Check.at_most(quad_err, 1e-7))
    details.append(f"g vs MP quadrature rel {quad_err:.1e}")
    return Check.all_of(checks, "; ".join(details))


# A finite-d design's teacher-averaged ridge R, Q differ from the d → ∞ replica values by O(1/d): at d = 400 the
# exact inverse-Wishart bias of the ridgeless Q, σ²d/((n − d)(n − d − 1)) = 0.003 at α = 1.5, is the largest of the
# grid. 0.01 bounds that bias (a regression envelope: the measured excess over noise is ≤ 0.004 at every seed offset).
_CASE1_BIAS = 0.01


@claim("double_descent.case1_ridge_simulation", "Pezeshki (thesis), App. Eqs .2.33–.2.35, §4.2.3",
       f"Case 1 (F = I, d = 400, σ² = 0.3, α ∈ {{0.5, 1.5, 3}}, λ ∈ {{1e−3, 0.1, 1}}): over 20 drawn designs, (i) "
       "single-"
       "teacher ridge simulations agree with the teacher-averaged trace formula at the same design (a zero-mean "
       f"difference) within t = {_t_limit(18, 19):.2f} standard errors (two-sided Bonferroni over the 18 R/Q "
       "comparisons at family-wise "
       "1e−4, Student t with 19 degrees of freedom); (ii) the design mean of that trace formula equals the replica R "
       "and Q within the finite-d bias envelope 0.01 (the O(1/d) bias: the exact inverse-Wishart bias of the ridgeless "
       "Q "
       f"is 0.003 at α = 1.5) plus t = {_t_limit(18, 19):.2f} standard errors of the design mean.", "theorem",
       cost="slow", stochastic=True)
def case1_ridge_simulation(run):
    draws = 20
    d, noise_std, lams = 400, math.sqrt(0.3), np.array([1e-3, 0.1, 1.0])
    t_limit = _t_limit(18, draws - 1)
    single_z, bias_excess, notes = 0.0, -np.inf, []
    for offset, alpha in enumerate((0.5, 1.5, 3.0)):
        n = int(alpha * d)
        data = dd.draw_teacher_student(dd.TeacherStudentProblem(n, d, d // 2, 1.0, noise_std=noise_std), n_seeds=draws,
                                       seed=run.seed(41 + offset), haar=False)
        theory = dd.replica_saddle_point(alpha, lams, 1.0, noise_std ** 2)
        w_hat = dd.ridge_weights(data.Z, data.y, lams)  # F = I: the student input is z
        simulated = dd.measure_order_parameters(w_hat, data.w, data.modulation, noise_std)
        averaged = {"R": np.empty((draws, lams.size)), "Q": np.empty((draws, lams.size))}
        for i, Z in enumerate(data.Z):
            s, W = np.linalg.eigh(Z.T @ Z)
            for j, lam in enumerate(lams):
                r = dd.exact_gd_order_parameters(data.modulation.draw(i), None, np.inf, dd.GDSettings(weight_decay=lam),
                                                 eigenvalues=np.clip(s, 0, None), eigenvectors=W, noise_std=noise_std)
                averaged["R"][i, j], averaged["Q"][i, j] = r.R[0], r.Q[0]
        for name in ("R", "Q"):
            diff = getattr(simulated, name) - averaged[name]
            single_z = max(single_z, float(np.max(np.abs(diff.mean(0)) / (diff.std(0, ddof=1) / np.sqrt(draws)))))
            mean, se = averaged[name].mean(0), averaged[name].std(0, ddof=1) / np.sqrt(draws)
            excess = np.abs(mean - getattr(theory, name)) - t_limit * se
            bias_excess = max(bias_excess, float(excess.max()))
            worst = np.abs(mean - getattr(theory, name)).max()
            notes.append(f"α={alpha} {name}: |design mean − replica| ≤ {worst:.4f}")
    return Check.all_of([Check.at_most(single_z, t_limit), Check.at_most(bias_excess, _CASE1_BIAS)],
                        f"single draw vs trace formula {single_z:.2f} SE; design mean − replica beyond noise "
                        f"{bias_excess:.4f}; " + "; ".join(notes))


@claim("double_descent.stable_root", "Pezeshki (thesis), Eq 4.2.13",
       "The stable root ½[1 + α + λ̃ + sqrt((1 + α + λ̃)² − 4α)] equals the printed form to rel 1e−5 over "
       "λ̃ ∈ [1e−10, 1e4] (the printed form's cancellation), and the exact larger root (mpmath, 50 digits) to "
       "rel 1e−14 over λ̃ ∈ [1e−16, 1e8] (a few ulps).", "identity")
def stable_root():
    alphas = np.array([0.5, 1.0, 1.5, 4.0])
    lam = np.logspace(-10, 4, 57)
    A, L = np.meshgrid(alphas, lam)
    vs_printed = relative_error(dd.printed_root(A, L), dd.stable_root(A, L))
    exact_err = 0.0
    with mpmath.workdps(50):  # local precision: claims must not change global state
        for alpha in alphas:
            for lam_val in np.logspace(-16, 8, 25):
                a_, l_ = mpmath.mpf(float(alpha)), mpmath.mpf(float(lam_val))
                s = 1 + a_ + l_
                exact = (s + mpmath.sqrt(s * s - 4 * a_)) / 2
                exact_err = max(exact_err, abs(float((dd.stable_root(alpha, lam_val) - exact) / exact)))
    return Check.all_of([Check.at_most(vs_printed, 1e-5), Check.at_most(exact_err, 1e-14)],
                        f"printed vs stable rel {vs_printed:.1e}; stable vs mpmath rel {exact_err:.1e}")


@claim("double_descent.erratum_printed_root_cancels", "Pezeshki (thesis), Eq 4.2.13, App. Eq .2.35",
       "The printed root 1 + 2λ̃/(1 − α − λ̃ + sqrt((1 − α − λ̃)² + 4λ̃)) cancels catastrophically for α > 1 and small "
       "λ̃ (rel error > 1e−6 against mpmath for λ̃ ∈ [1e−15, 1e−8], α = 4); the stable form stays within 1e−14.",
       "erratum", printed="a = 1 + 2λ/(1 − α − λ + sqrt((1 − α − λ)² + 4λ))",
       corrected="a = ½[1 + α + λ + sqrt((1 + α + λ)² − 4α)]",
       printed_math=r"a = 1 + \frac{2\lambda}{1 - \alpha - \lambda + \sqrt{(1 - \alpha - \lambda)^2 + 4\lambda}}",
       corrected_math=r"a = \tfrac{1}{2} \left[1 + \alpha + \lambda + \sqrt{(1 + \alpha + \lambda)^2 - 4\alpha}\right]")
def erratum_printed_root_cancels():
    printed_err = stable_err = 0.0
    with mpmath.workdps(50):
        for lam_val in np.logspace(-15, -8, 15):
            a_, l_ = mpmath.mpf(4.0), mpmath.mpf(float(lam_val))
            s = 1 + a_ + l_
            exact = (s + mpmath.sqrt(s * s - 4 * a_)) / 2
            printed_err = max(printed_err, abs(float((dd.printed_root(4.0, lam_val) - exact) / exact)))
            stable_err = max(stable_err, abs(float((dd.stable_root(4.0, lam_val) - exact) / exact)))
    return Check.erratum(printed_err, stable_err, 1e-14, reject_above=1e-6)


# ---------------------------------------------------------------------------- limits and the phase points A, B, C

_CONFIGS = [(110, 100, 70, 30.0, 0.0), (150, 100, 50, 50.0, 0.0), (120, 100, 80, 40.0, 0.2), (130, 100, 70, 100.0, 0.5)]


_BIAS_LADDER, _BIAS_DESIGNS = np.array([12, 16, 24, 32, 48, 64, 96]), 160


def _late_q_bias(run):
    """|mean over designs of GD's Q(∞) − point C's Q| at n = 2d, σ = 1, for each d of :data:`_BIAS_LADDER`."""
    gaps = []
    for d in _BIAS_LADDER:
        n = 2 * int(d)
        data = dd.draw_teacher_student(dd.TeacherStudentProblem(n, int(d), int(d) // 2, 10.0, noise_std=1.0),
                                       n_seeds=_BIAS_DESIGNS, seed=run.seed(52 + int(d)), n_test=1)
        Q_inf = dd.design_order_parameters(data, [np.inf]).Q[:, 0]
        gaps.append(abs(float(Q_inf.mean()) - dd.phase_points(n, int(d), int(d) // 2, 1.0).C.Q))
    return np.array(gaps)


@claim("double_descent.limits_small_and_large_time", "Pezeshki (thesis), Eqs 4.2.14–4.2.16, §4.3.2",
       f"k → 0: R = Q = 0 and L_G = ½ (+½σ² with noisy test labels); k → ∞ (n > d): R → 1, Q → 1 + σ²d/(n − d), for "
       "the approximate theory and the exact ridge asymptotics (to 1e−9, round-off). Exact GD at d = 200 (8 drawn "
       "designs): k = 0 and R(∞) = 1 exactly (1e−9), Q(∞) − 1 = σ²Tr((ZᵀZ)⁻¹)/d per design (rel 1e−9), and the design "
       "mean of Q(∞) equals the inverse-Wishart mean 1 + σ²d/(n − d − 1) (point C plus its finite-n bias "
       f"σ²d/((n − d)(n − d − 1)) = 0.005) within t = {_t_limit(1, 7):.2f} standard errors (two-sided, family-wise "
       "1e−4, Student t with "
       "7 degrees of freedom). That finite-n bias is O(1/d): with n = 2d and σ = 1, the gap between the mean of Q(∞) "
       f"over {_BIAS_DESIGNS} drawn designs and point C falls at rate −1 in d over d = 12, 16, …, 96 (Check.rate, "
       "expected slope −1, slack 0.05: the exact bias σ²/(d − 1) bends the slope over this ladder to −1.04).",
       "limit", stochastic=True)
def limits_small_and_large_time(run):
    checks, worst_theory = [], 0.0
    for n, d, p, kappa, noise_std in _CONFIGS:
        C = dd.phase_points(n, d, p, noise_std).C
        approx = dd.bipartite_theory([0.0, np.inf], dd.TeacherStudentProblem(n, d, p, kappa, noise_std=noise_std))
        oracle = dd.ridge_oracle([1e15, 0.0], n, d, p, kappa, noise_std)
        for r in (approx, oracle):
            worst_theory = max(worst_theory, abs(r.R[0]), abs(r.Q[0]), abs(r.generalization_error[0] - 0.5),
                               abs(r.noisy_generalization_error[0] - 0.5 - 0.5 * noise_std ** 2),
                               abs(r.R[1] - C.R), abs(r.Q[1] - C.Q))
    checks.append(Check.at_most(worst_theory, 1e-9, "theories at k = 0 and k = inf"))
    # At k = ∞ the teacher-averaged Q is 1 + σ²Tr((XᵀX)⁻¹FᵀF)/d = 1 + σ²Tr((ZᵀZ)⁻¹)/d whatever F is; its design
    # mean is the inverse-Wishart 1 + σ²d/(n − d − 1), above point C by the finite-n bias σ²d/((n − d)(n − d − 1)).
    n, d, p, kappa, noise_std, designs = 240, 200, 160, 40.0, 0.2, 8
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(n, d, p, kappa, noise_std=noise_std), n_seeds=designs,
                                   seed=run.seed(51))
    C = dd.phase_points(n, d, p, noise_std).C
    gd = [dd.exact_gd_order_parameters(data.modulation.draw(i), data.X[i], [0.0, np.inf], noise_std=noise_std)
          for i in range(designs)]
    exact_ends = max(max(abs(r.R[0]), abs(r.Q[0]), abs(r.generalization_error[0] - 0.5), abs(r.R[1] - C.R))
                     for r in gd)
    Q_inf = np.array([r.Q[1] for r in gd])
    direct = 1.0 + noise_std ** 2 * np.array([np.trace(np.linalg.inv(Z.T @ Z)) for Z in data.Z]) / d
    finite_n = 1.0 + noise_std ** 2 * d / (n - d - 1)
    z = abs(Q_inf.mean() - finite_n) / (Q_inf.std(ddof=1) / np.sqrt(designs))
    rate = Check.rate(_BIAS_LADDER, _late_q_bias(run), -1.0, slack=0.05, detail="finite-n bias of Q(∞) in d")
    checks += [Check.at_most(exact_ends, 1e-9, "GD at k = 0 and R(∞)"), Check.at_most(relative_error(Q_inf, direct), 1e-9),
               Check.at_most(z, _t_limit(1, designs - 1)), rate]
    return Check.all_of(checks, f"theories {worst_theory:.1e}; GD at d = 200: mean Q(∞) − Q_C = "
                                f"{Q_inf.mean() - C.Q:.4f} (finite-n bias {finite_n - C.Q:.4f}, {z:.2f} SE from it), "
                                f"k = 0 and R(∞) {exact_ends:.1e}; {rate.detail}")


@claim("double_descent.order_parameter_bounds", "Pezeshki (thesis), Eqs 4.2.6–4.2.7, App. Eq .2.41",
       "Along every trajectory of the approximate theory (and of the ridge oracle): R_i ≤ p_i/d, Q_i ≥ 0, Q ≥ R² and "
       "1 − b₁b₂ > 0 for n > d, over a grid of n/d, p/d, κ, σ, λ (violation ≤ 1e−12, round-off).", "bound")
def order_parameter_bounds():
    worst = -np.inf
    steps = np.concatenate([[0.0], np.logspace(-3, 14, 120), [np.inf]])
    lam = np.logspace(-8, 4, 60)
    for n in (102, 130, 500):
        for p in (10, 50, 90):
            fraction = p / 100
            for kappa in (1.0, 30.0, 1e4):
                for noise_std in (0.0, 0.5):
                    for weight_decay in (0.0, 0.1):
                        # bipartite_theory raises if 1 − b₁b₂ <= 0
                        r = dd.bipartite_theory(steps, dd.TeacherStudentProblem(n, 100, p, kappa, noise_std=noise_std),
                                                weight_decay)
                        worst = max(worst, np.max(r.R1 - fraction), np.max(r.R2 - (1 - fraction)),
                                    np.max(-r.Q1), np.max(-r.Q2), np.max(r.R ** 2 - r.Q))
                    o = dd.ridge_oracle(lam, n, 100, p, kappa, noise_std)
                    worst = max(worst, np.max(o.R1 - fraction), np.max(o.R2 - (1 - fraction)), np.max(-o.Q1),
                                np.max(-o.Q2), np.max(o.R ** 2 - o.Q))
    return Check.at_most(worst, 1e-12, "largest violation (negative: the smallest margin)")


@claim("double_descent.point_b_plateau", "Pezeshki (thesis), Fig 4.4 (point B), Eqs 4.2.14–4.2.16",
       "κ → ∞ plateau: R_B = p/d, Q_B = p/d + (1 − p/d + σ²)p/(n − p), L_B = ½(1 − p/d + σ²)n/(n − p) − ½σ² (closed "
       "form, retyped here) equals phase_points, the approximate theory and the exact ridge asymptotics at κ = 1e8, "
       "λ = 1e−6 to 1e−4 (the residual effect of λ = 1e−6 and κ = 1e8: measured 1e−5). That residual is the fast "
       "group's ridge bias, first order in λ (for n > p its ridge is analytic at λ = 0; the slow group's λκ² ≥ 1e10 "
       "keeps it frozen to O(1/(λκ²))): over λ = 1e−6 … 1e−3 (7 points) the largest of |ΔR|, |ΔQ|, |ΔL_G| of both "
       "theories falls at rate 1 in λ (Check.rate, expected slope 1) in each configuration.", "limit")
def point_b_plateau():
    worst, rates = 0.0, []
    lams = np.logspace(-6, -3, 7)
    for n, p, noise_std in ((110, 70, 0.0), (130, 70, 0.0), (150, 60, 0.0), (150, 50, 0.0), (120, 80, 0.2)):
        B = dd.phase_points(n, 100, p, noise_std).B
        P, s2 = p / 100, noise_std ** 2
        R_B, Q_B = P, P + (1 - P + s2) * p / (n - p)
        L_B = 0.5 * (1 - P + s2) * n / (n - p) - 0.5 * s2
        worst = max(worst, abs(B.R - R_B), abs(B.Q - Q_B), abs(B.generalization_error - L_B))
        for r in (dd.bipartite_theory(np.inf, dd.TeacherStudentProblem(n, 100, p, 1e8, noise_std=noise_std),
                                      weight_decay=1e-6),
                  dd.ridge_oracle(1e-6, n, 100, p, 1e8, noise_std)):
            worst = max(worst, float(abs(r.R - R_B)), float(abs(r.Q - Q_B)), float(abs(r.generalization_error - L_B)))
        ladder = np.zeros_like(lams)
        for r in (dd.bipartite_theory(np.inf, dd.TeacherStudentProblem(n, 100, p, 1e8, noise_std=noise_std),
                                      weight_decay=lams),
                  dd.ridge_oracle(lams, n, 100, p, 1e8, noise_std)):
            ladder = np.maximum.reduce([ladder, np.abs(r.R - R_B), np.abs(r.Q - Q_B),
                                        np.abs(r.generalization_error - L_B)])
        rates.append(Check.rate(lams, ladder, 1.0, detail=f"(n, p, σ) = ({n}, {p}, {noise_std}): residual in λ"))
    level = Check.at_most(worst, 1e-4, "max over 5 configurations of |ΔR|, |ΔQ|, |ΔL|")
    return Check.all_of([level] + rates, f"{level.detail}: {worst:.1e}; " + "; ".join(
        f"slope {c.rates[0].slope:.3f} ± {c.rates[0].standard_error:.1g}" for c in rates))


@claim("double_descent.point_c_limit", "Pezeshki (thesis), Fig 4.4 (point C), Fig 4.5d",
       "Point C (finite κ, n > d, λ = 0, k → ∞): (R, Q) = (1, 1 + σ²d/(n − d)); in the Fig 4.5 configuration the "
       "noisy-test L(∞) = ½(σ² + σ²d/(n − d)). Approximate theory, ridge oracle and the closed form (retyped here) "
       "agree to 1e−12 (round-off).", "limit")
def point_c_limit():
    worst = 0.0
    for n, d, p, kappa, noise_std in _CONFIGS:
        C = dd.phase_points(n, d, p, noise_std).C
        s2 = noise_std ** 2
        worst = max(worst, abs(C.R - 1.0), abs(C.Q - (1.0 + s2 * d / (n - d))))
        for r in (dd.bipartite_theory(np.inf, dd.TeacherStudentProblem(n, d, p, kappa, noise_std=noise_std)),
                  dd.ridge_oracle(0.0, n, d, p, kappa, noise_std)):
            worst = max(worst, float(abs(r.R - C.R)), float(abs(r.Q - C.Q)),
                        float(abs(r.generalization_error - C.generalization_error)),
                        float(abs(r.noisy_generalization_error - 0.5 * (s2 + s2 * d / (n - d)))))
    return Check.at_most(worst, 1e-12)


@claim("double_descent.point_a_bayes_optimal", "Pezeshki (thesis), Fig 4.4 (point A), App. Eqs .2.33–.2.35",
       "Point A: the minimum over λ of L_G with the slow group frozen sits at λ_eff* = 1 − p/d + σ² where R = Q; the "
       "closed form matches a numerical argmin (λ* to rel 1e−4 and R = Q there to 1e−6, both first order in the "
       "optimiser's tolerance; L to 1e−10, second order), the Case-1 replica minimum, and the first minimum in steps "
       "of the κ = 1e5 curve at k_A = 1/(η λ_eff*) (rel 1e−5, the slow group moving L by ~1e−10 there). At finite κ "
       "the slow group has learnt ∝ σ₂² = 1/κ² by k_A, so the first minimum's step misses k_A by O(1/κ²): over "
       "κ = 100, 200, …, 1600 its relative miss falls at rate −2 in κ (Check.rate, expected slope −2).", "theorem")
def point_a_bayes_optimal():
    checks, notes = [], []
    for n, p, noise_std in ((110, 70, 0.0), (130, 70, 0.0), (150, 50, 0.3)):
        A = dd.phase_points(n, 100, p, noise_std).A

        def frozen_error(log_lam):
            return float(dd.bipartite_theory(np.inf, dd.TeacherStudentProblem(n, 100, p, 1.0, noise_std=noise_std),
                                             weight_decay=np.exp(log_lam), freeze_slow_at=0.0).generalization_error)

        best = optimize.minimize_scalar(frozen_error, bounds=(-8, 4), method="bounded", options={"xatol": 1e-10})
        at_best = dd.bipartite_theory(np.inf, dd.TeacherStudentProblem(n, 100, p, 1.0, noise_std=noise_std),
                                      weight_decay=np.exp(best.x), freeze_slow_at=0.0)
        P = p / 100
        replica = dd.replica_saddle_point(n / p, np.exp(best.x) / P, P, 1 - P + noise_std ** 2)
        checks += [Check.at_most(abs(A.R - A.Q), 1e-12), Check.at_most(float(abs(at_best.R - at_best.Q)), 1e-6),
                   Check.at_most(relative_error(np.exp(best.x), A.effective_weight_decay), 1e-4),
                   Check.at_most(abs(best.fun - A.generalization_error), 1e-10),
                   Check.at_most(abs(0.5 * (1 - 2 * replica.R + replica.Q) - A.generalization_error), 1e-10)]
        steps = np.logspace(-1, 3, 401)
        large_kappa = dd.TeacherStudentProblem(n, 100, p, 1e5, noise_std=noise_std)
        curve = dd.bipartite_theory(steps, large_kappa).generalization_error
        i = dd.curve_extrema(curve).minima[0]

        def in_steps(log_k):
            return float(dd.bipartite_theory(np.exp(log_k), large_kappa).generalization_error)

        refined = optimize.minimize_scalar(in_steps, bounds=(np.log(steps[i - 1]), np.log(steps[i + 1])),
                                           method="bounded", options={"xatol": 1e-12})
        k_min = float(np.exp(refined.x))
        checks.append(Check.at_most(relative_error(k_min, A.steps_at(dd.ANALYTIC_LEARNING_RATE)), 1e-5))
        kappas, misses = 100.0 * 2.0 ** np.arange(5), []
        for kappa in kappas:

            def at_kappa(log_k, kappa=kappa):
                return float(dd.bipartite_theory(np.exp(log_k), large_kappa._replace(kappa=kappa)).generalization_error)

            log_kA = math.log(A.steps_at(dd.ANALYTIC_LEARNING_RATE))
            found = optimize.minimize_scalar(at_kappa, bounds=(log_kA - 1.0, log_kA + 1.0), method="bounded",
                                             options={"xatol": 1e-12})
            misses.append(abs(math.exp(found.x) / A.steps_at(dd.ANALYTIC_LEARNING_RATE) - 1.0))
        rate = Check.rate(kappas, misses, -2.0, detail=f"n={n},p={p}: first minimum's step against k_A in κ")
        checks.append(rate)
        notes.append(f"n={n},p={p}: slope {rate.rates[0].slope:.3f} ± {rate.rates[0].standard_error:.1g} in κ")
        notes.append(f"n={n},p={p}: λ* {np.exp(best.x):.6f} vs {A.effective_weight_decay:.6f}, k_min {k_min:.3f} vs "
                     f"{A.steps_at():.3f}")
    return Check.all_of(checks, "; ".join(notes))


# ------------------------------------------------------------------------- double descent, time scales, GD vs ridge

@lru_cache(maxsize=None)
def _fig4_gd(kappa, seed, noise_std=0.0, d=200):
    """Exact teacher-averaged GD curve of one drawn design at d in the Fig 4.4 ratios, and its η."""
    n, p = int(1.1 * d), int(0.7 * d)
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(n, d, p, kappa, noise_std=noise_std), n_seeds=1, seed=seed)
    steps = np.logspace(-1, 10, 331)
    return steps, dd.exact_gd_order_parameters(data.modulation.draw(0), data.X[0], steps, noise_std=noise_std), \
        dd.inverse_max_eigenvalue_learning_rate(data.X[0])


@claim("double_descent.no_double_descent_at_kappa_one", "Pezeshki (thesis), Fig 4.3 (κ = 1), §4.3.2",
       "With σ_ε = 0 and κ = 1, L_G is monotone non-increasing in k (largest rise ≤ 1e−12, round-off) for the "
       "approximate theory, the exact ridge map λ = 1/(ηk) and exact GD at d = 200 (a drawn design).", "theorem",
       stochastic=True)
def no_double_descent_at_kappa_one(run):
    steps, gd, eta = _fig4_gd(1.0, run.seed(61))
    curves = {"approximate": dd.bipartite_theory(steps, dd.TeacherStudentProblem(**PHASE, kappa=1.0),
                                                 learning_rate=eta).generalization_error,
              "ridge": dd.ridge_oracle(dd.effective_weight_decay(steps, eta), **PHASE, kappa=1.0).generalization_error,
              "GD": gd.generalization_error}
    rises = {k: dd.largest_rise(v) for k, v in curves.items()}
    return Check.at_most(max(rises.values()), 1e-12, ", ".join(f"{k} {v:.1e}" for k, v in rises.items()))


@claim("double_descent.double_descent_at_large_kappa", "Pezeshki (thesis), Fig 4.4, §4.3.2",
       "For κ ∈ {30, 100, 1000} (n/d = 1.1, p/d = 0.7, σ = 0) L_G(k) has exactly one interior local maximum, followed "
       "by a descent of at least 0.05 (a regression envelope: measured ≥ 0.26), in the approximate theory and in "
       "exact GD at d = 200 (a drawn design); the bump (peak minus the preceding minimum) grows with κ; and "
       "second_descent reads off that minimum and peak and the half-way step of the descent (where L first falls "
       "to the mean of the peak and the lowest later value, interpolated linearly in ln k, recomputed here) to "
       "1e-12 relative (round-off).", "theorem",
       stochastic=True)
def double_descent_at_large_kappa(run):
    violations, descents, notes = [], [], []
    for method in ("approximate", "GD"):
        bumps = []
        for kappa in (30.0, 100.0, 1000.0):
            steps, gd, eta = _fig4_gd(kappa, run.seed(61))
            curve = gd.generalization_error if method == "GD" else \
                dd.bipartite_theory(steps, dd.TeacherStudentProblem(**PHASE, kappa=kappa),
                                    learning_rate=eta).generalization_error
            ext = dd.curve_extrema(curve, 1e-9)
            if ext.maxima.size == 1 and ext.minima.size == 1:
                peak = ext.maxima[0]
                descents.append(float(curve[peak] - curve[peak:].min()))
                bumps.append(curve[peak] - curve[ext.minima[0]])
                read = dd.second_descent(steps, curve, 1e-9)
                level = 0.5 * (curve[peak] + curve[peak:].min())
                i = peak + 1
                while curve[i] > level:
                    i += 1
                x0, x1 = math.log(steps[i - 1]), math.log(steps[i])
                halfway = math.exp(x0 + (curve[i - 1] - level) / (curve[i - 1] - curve[i]) * (x1 - x0))
                off = max(relative_error(read.peak_step, steps[peak]), relative_error(read.first_minimum_step, steps[ext.minima[0]]),
                          relative_error(read.peak, curve[peak]), relative_error(read.second_descent_step, halfway))
                if off > 1e-12:
                    violations.append(f"{method} κ={kappa:g}: second_descent off by {off:.1e} relative")
            else:
                violations.append(f"{method} κ={kappa:g}: {ext.minima.size} minima, {ext.maxima.size} maxima")
        if len(bumps) == 3 and not np.all(np.diff(bumps) > 0):
            violations.append(f"{method}: bumps {np.round(bumps, 4).tolist()} do not grow with κ")
        notes.append(f"{method} bumps {np.round(bumps, 4).tolist()}")
    checks = [Check.at_most(len(violations), 0, "; ".join(violations) or "one peak per curve, bumps grow with κ")]
    if descents:
        checks.append(Check.at_least(min(descents), 0.05, "smallest descent after the peak"))
    return Check.all_of(checks, "; ".join(violations + notes))


@claim("double_descent.critical_kappa_bracket", "Pezeshki (thesis), Fig 4.4, §4.3.2",
       "The threshold κ_c for double descent lies between 5 and 16 (n/d = 1.1, p/d = 0.7, σ = 0): the approximate "
       "theory is monotone at κ = 7 (rise ≤ 1e−12) and has one interior maximum with a rise ≥ 1e−4 (far above "
       "round-off) at κ = 12 (as in Fig 4.4); exact GD at d = 200 (a drawn design) is monotone at κ = 5 and has an "
       "interior maximum at κ = 16. No common κ_c across methods is asserted.", "theorem", stochastic=True)
def critical_kappa_bracket(run):
    checks, notes = [], []
    for method, below, above in (("approximate", 7.0, 12.0), ("GD", 5.0, 16.0)):
        for kappa, want_peak in ((below, False), (above, True)):
            steps, gd, eta = _fig4_gd(kappa, run.seed(61))
            curve = gd.generalization_error if method == "GD" else \
                dd.bipartite_theory(steps, dd.TeacherStudentProblem(**PHASE, kappa=kappa),
                                    learning_rate=eta).generalization_error
            rise = dd.largest_rise(curve)
            peaks = dd.curve_extrema(curve, 1e-9).maxima.size
            label = f"{method} κ={kappa:g}: {peaks} maxima, rise {rise:.1e}"
            if want_peak:
                checks += [Check.at_most(abs(peaks - 1), 0, label), Check.at_least(rise, 1e-4, label)]
            else:
                checks.append(Check.at_most(rise, 1e-12, label))
            notes.append(label)
    return Check.all_of(checks, "; ".join(notes))


@claim("double_descent.single_u_with_noise", "Pezeshki (thesis), §4.3.2, Fig 4.5d",
       "With σ_ε = 0.5 and κ = 1 the curve is a single U: one minimum, then a rise to the OLS value with no second "
       "descent (largest drop after the minimum ≤ 1e−9, round-off) in the approximate theory, the ridge map and exact "
       "GD at d = 200 (a drawn design).", "theorem", stochastic=True)
def single_u_with_noise(run):
    steps, gd, eta = _fig4_gd(1.0, run.seed(61), noise_std=0.5)
    curves = {"approximate": dd.bipartite_theory(steps, dd.TeacherStudentProblem(**PHASE, kappa=1.0, noise_std=0.5),
                                                 learning_rate=eta).generalization_error,
              "ridge": dd.ridge_oracle(dd.effective_weight_decay(steps, eta), **PHASE, kappa=1.0,
                                       noise_std=0.5).generalization_error,
              "GD": gd.generalization_error}
    checks, notes = [], []
    for name, curve in curves.items():
        ext = dd.curve_extrema(curve, 1e-9)
        checks.append(Check.at_most(abs(ext.minima.size - 1), 0, f"{name}: {ext.minima.size} minima"))
        drop = dd.largest_drop(curve[np.argmin(curve):])
        checks.append(Check.at_most(drop, 1e-9, f"{name}: drop after the minimum"))
        notes.append(f"{name}: {ext.minima.size} minimum, drop after it {drop:.1e}, rise {curve[-1] - curve.min():.3f}")
    return Check.all_of(checks, "; ".join(notes))


@claim("double_descent.time_scale_separation", "Pezeshki (thesis), Eq 4.2.12 (remark after Eq 4.2.16)",
       "Approximate theory: for p = d/2, R₂(κ²k) = R₁(k) exactly (rel 1e−12, round-off); in general R_i depends on k "
       "only through σ_i²ηk·p_i/d (rescaling η and k together leaves R_i unchanged).", "identity")
def time_scale_separation():
    steps = np.logspace(-3, 6, 200)
    worst = 0.0
    for kappa in (3.0, 30.0, 1e3):
        slow = dd.bipartite_theory(kappa ** 2 * steps, dd.TeacherStudentProblem(130, 100, 50, kappa)).R2
        fast = dd.bipartite_theory(steps, dd.TeacherStudentProblem(130, 100, 50, kappa)).R1
        worst = max(worst, relative_error(slow, fast))
    a = dd.bipartite_theory(steps, dd.TeacherStudentProblem(120, 100, 70, 20.0), learning_rate=0.25)
    b = dd.bipartite_theory(steps / 3.0, dd.TeacherStudentProblem(120, 100, 70, 20.0), learning_rate=0.75)
    worst = max(worst, relative_error(a.R1, b.R1), relative_error(a.R2, b.R2))
    return Check.at_most(worst, 1e-12)


_PLATEAU_DESIGNS = 8


@claim("double_descent.gd_versus_ridge_map", "Pezeshki (thesis), Eqs 4.2.21–4.2.22, Fig 4.3",
       f"Exact GD (d = 200, a drawn design) and the exact ridge map λ = 1/(ηk): the same k → 0 and k → ∞ limits "
       f"(1e−9 and 1e−6, round-off), the same number of interior extrema for κ ∈ {{1, 30, 100}}, |ΔL_G| ≤ 0.12 (also "
       f"against the approximate theory; a regression envelope of the measured ≤ 0.11). For κ = 1e5 both show a "
       f"minimum then a rise with no second descent (drop ≤ 1e−3) up to k = 1e6: the ridge map to L_B (1e−3, the "
       f"residual of finite κ and k), and the mean of GD's plateau over {_PLATEAU_DESIGNS} drawn designs to its "
       "finite-n "
       f"value ½(1 − p/d)(1 + p/(n − p − 1)) (OLS on the fast group, the slow signal as noise; L_B as d → ∞) within "
       f"1e−3 plus t = {_t_limit(1, _PLATEAU_DESIGNS - 1):.2f} standard errors (two-sided, family-wise 1e−4, Student t "
       f"with {_PLATEAU_DESIGNS - 1} degrees of freedom).", "theorem", stochastic=True)
def gd_versus_ridge_map(run):
    checks, notes = [], []
    for kappa in (1.0, 30.0, 100.0, 1e5):
        steps, gd, eta = _fig4_gd(kappa, run.seed(61))
        start = dd.ridge_oracle(1e12, **PHASE, kappa=kappa).generalization_error
        checks.append(Check.at_most(abs(float(start) - 0.5), 1e-9, "k → 0"))
        ridge = dd.ridge_oracle(dd.effective_weight_decay(steps, eta), **PHASE, kappa=kappa).generalization_error
        approx = dd.bipartite_theory(steps, dd.TeacherStudentProblem(**PHASE, kappa=kappa),
                                     learning_rate=eta).generalization_error
        curve = gd.generalization_error
        gap = max(_abs(curve, ridge), _abs(curve, approx))
        checks.append(Check.at_most(gap, 0.12, f"κ={kappa:g}: max |ΔL_G|"))
        if kappa < 1e4:
            e_gd, e_ridge = dd.curve_extrema(curve, 1e-9), dd.curve_extrema(ridge, 1e-9)
            mismatch = abs(e_gd.minima.size - e_ridge.minima.size) + abs(e_gd.maxima.size - e_ridge.maxima.size)
            label = (f"κ={kappa:g}: extrema GD {e_gd.minima.size}/{e_gd.maxima.size}, ridge "
                     f"{e_ridge.minima.size}/{e_ridge.maxima.size}, max|ΔL| {gap:.3f}")
            checks.append(Check.at_most(mismatch, 0, label))
            checks.append(Check.at_most(abs(curve[-1] - ridge[-1]), 1e-6, f"κ={kappa:g}: k → ∞ (point C)"))
            notes.append(label)
        else:
            window = steps <= 1e6
            for name, c in (("GD", curve[window]), ("ridge", ridge[window])):
                minimum = int(np.argmin(c))
                checks.append(Check.at_most(dd.largest_drop(c[minimum:]), 1e-3, f"{name}: no second descent"))
            L_B = dd.phase_points(**PHASE).B.generalization_error
            checks.append(Check.at_most(abs(ridge[window][-1] - L_B), 1e-3, "ridge map: risen to L_B"))
            n, d, p = 220, 200, 140
            data = dd.draw_teacher_student(dd.TeacherStudentProblem(n, d, p, kappa), n_seeds=_PLATEAU_DESIGNS,
                                           seed=run.seed(62))
            plateau = dd.design_order_parameters(data, 1e6).generalization_error[:, 0]
            finite_n = 0.5 * (1 - p / d) * (1 + p / (n - p - 1))
            se = plateau.std(ddof=1) / np.sqrt(_PLATEAU_DESIGNS)
            excess = abs(plateau.mean() - finite_n) - _t_limit(1, _PLATEAU_DESIGNS - 1) * se
            checks.append(Check.at_most(excess, 1e-3, "GD plateau vs its finite-n value, beyond noise"))
            notes.append(f"κ=1e5: ridge at 1e6 {ridge[window][-1]:.4f} (L_B {L_B:.4f}); GD plateau mean "
                         f"{plateau.mean():.4f} ± {se:.4f} (finite-n {finite_n:.4f}, sd {plateau.std(ddof=1):.4f})")
    return Check.all_of(checks, "; ".join(notes))


# ----------------------------------------------------------------- the decoupling error and finite-d convergence

@claim("double_descent.decoupling_error_bound",
       "derived in this project: Pezeshki (thesis) Eqs 4.2.14–4.2.16 against the exact large-d ridge",
       "Approximate theory vs exact large-d ridge at k = ∞ in the figure configurations: |ΔL_G| ≤ 5e−4 for λ ≥ 1, "
       "≤ 5e−3 at λ = 0.1, ≤ 2e−3 for λ ≤ 1e−6, ≤ 0.12 over λ ∈ [1e−7, 10] (regression envelopes of the "
       "measured 0.112 / 0.043 / 0.083 at the worst λ), and R₂ is over-estimated (R₂ − R₂(exact) ≥ −1e−12).",
       "bound")
def decoupling_error_bound():
    checks, notes = [], []
    lam = np.logspace(-7, 1, 401)
    for n, p, kappa, noise_std in ((110, 70, 30.0, 0.0), (150, 50, 50.0, 0.0), (120, 80, 40.0, 0.2)):
        approx = dd.bipartite_theory(np.inf, dd.TeacherStudentProblem(n, 100, p, kappa, noise_std=noise_std),
                                     weight_decay=lam)
        exact = dd.ridge_oracle(lam, n, 100, p, kappa, noise_std)
        gap = np.abs(approx.generalization_error - exact.generalization_error)
        at_tenth = float(np.abs(dd.bipartite_theory(np.inf,
                                                    dd.TeacherStudentProblem(n, 100, p, kappa, noise_std=noise_std),
                                                    weight_decay=0.1)
                                .generalization_error - dd.ridge_oracle(0.1, n, 100, p, kappa, noise_std)
                                .generalization_error))
        label = f"({n},{p},{kappa:g},{noise_std})"
        checks += [Check.at_most(gap[lam >= 1].max(), 5e-4, f"{label} λ ≥ 1"),
                   Check.at_most(at_tenth, 5e-3, f"{label} λ = 0.1"),
                   Check.at_most(gap[lam <= 1e-6].max(), 2e-3, f"{label} λ ≤ 1e−6"),
                   Check.at_most(gap.max(), 0.12, f"{label} all λ"),
                   Check.at_least(float(np.min(approx.R2 - exact.R2)), -1e-12, f"{label} R₂ over-estimated")]
        notes.append(f"{label}: max {gap.max():.3f} at λ={lam[np.argmax(gap)]:.1e}")
    return Check.all_of(checks, "; ".join(notes))


# When the oracle was derived, ridge simulations at d = 800 measured |ΔL_G| ≤ 0.014, |ΔR| ≤ 0.011, |ΔQ| ≤ 0.021
# (the O(1/d) finite-size bias); with label noise and λ → 0 the smallest eigenvalues of XᵀX make Q fluctuate more,
# hence 0.03 for Q. These envelopes bound the bias; the design-to-design noise is bounded separately.
_ORACLE_BIAS = dict(generalization_error=0.014, R=0.011, Q=0.03)


_ORACLE_DESIGNS, _ORACLE_LAMBDAS = 8, np.logspace(-7, 1, 5)
_ORACLE_COMPARISONS = 3 * 3 * 5  # configurations × quantities × λ


@claim("double_descent.ridge_oracle_matches_ridge_simulation",
       "derived in this project: the large-d ridge oracle, for the estimator of Pezeshki (thesis), App. Eq .2.14",
       f"The exact large-d ridge oracle equals teacher-averaged ridge regression (XᵀX + λI)⁻¹Xᵀy at d = 400 (8 drawn "
       f"designs, λ ∈ {{1e−7, 1e−5, 1e−3, 0.1, 10}}) for n > d (n/d = 1.1, κ = 30; n/d = 1.2, κ = 40, σ = 0.2) and "
       f"n < d (n/d = 0.8, κ = 10, σ = 0.3): the design mean's gap beyond t = {_t_limit(_ORACLE_COMPARISONS, 7):.1f} "
       "of "
       f"its standard errors (two-sided Bonferroni over the {_ORACLE_COMPARISONS} comparisons at family-wise 1e−4, "
       f"Student t with 7 degrees of freedom) is within the finite-d bias envelopes |ΔL_G| ≤ 0.014, |ΔR| ≤ 0.011, "
       f"|ΔQ| ≤ 0.03 (measured against ridge simulations at d = 800).", "identity", cost="slow", stochastic=True)
def ridge_oracle_matches_ridge_simulation(run):
    lams, designs, d = _ORACLE_LAMBDAS, _ORACLE_DESIGNS, 400
    t_limit = _t_limit(_ORACLE_COMPARISONS, designs - 1)
    excess = {name: -np.inf for name in _ORACLE_BIAS}
    gaps = {name: 0.0 for name in _ORACLE_BIAS}
    for offset, (ratio, fraction, kappa, noise_std) in enumerate(((1.1, 0.7, 30.0, 0.0), (1.2, 0.8, 40.0, 0.2),
                                                                  (0.8, 0.5, 10.0, 0.3))):
        n, p = int(ratio * d), int(fraction * d)
        oracle = dd.ridge_oracle(lams, n, d, p, kappa, noise_std)
        data = dd.draw_teacher_student(dd.TeacherStudentProblem(n, d, p, kappa, noise_std=noise_std), n_seeds=designs,
                                       seed=run.seed(141 + offset), haar=False)
        values = {name: np.empty((designs, lams.size)) for name in _ORACLE_BIAS}
        for i in range(designs):
            s, W = np.linalg.eigh(data.X[i].T @ data.X[i])
            for j, lam in enumerate(lams):
                r = dd.exact_gd_order_parameters(data.modulation.draw(i), None, np.inf, dd.GDSettings(weight_decay=lam),
                                                 eigenvalues=np.clip(s, 0, None), eigenvectors=W, noise_std=noise_std)
                for name in values:
                    values[name][i, j] = getattr(r, name)[0]
        for name, v in values.items():
            gap = np.abs(v.mean(0) - getattr(oracle, name))
            se = v.std(0, ddof=1) / np.sqrt(designs)
            excess[name] = max(excess[name], float(np.max(gap - t_limit * se)))
            gaps[name] = max(gaps[name], float(gap.max()))
    return Check.all_of([Check.at_most(excess[name], bias) for name, bias in _ORACLE_BIAS.items()],
                        ", ".join(f"max |Δ{k}| {v:.4f} (beyond noise {excess[k]:.4f})" for k, v in gaps.items()))


_CONVERGENCE_DESIGNS, _CONVERGENCE_STEPS = 12, np.logspace(-1, 6, 15)


@claim("double_descent.finite_d_convergence", "Pezeshki (thesis), Eqs 4.2.9–4.2.10",
       f"Teacher-averaged exact GD L_G at d = 200 and d = 400 (n, p scaled, κ = 30, 12 drawn designs each, 15 steps) "
       f"differ, beyond t = {_t_limit(15, 11):.2f} standard errors of the difference of the design means (two-sided "
       f"Bonferroni over the 15 steps at family-wise 1e−4, Student t with 11 degrees of freedom), by at most the "
       f"finite-d envelope 0.01 (a regression envelope of the measured O(1/d) gap); single-teacher simulations "
       f"(20 draws, d = 100) agree with the trace "
       f"formula at their design (a zero-mean difference) within t = {_t_limit(4, 19):.2f} standard errors "
       f"(Bonferroni over 4 steps, 19 degrees of freedom).", "limit", cost="slow", stochastic=True)
def finite_d_convergence(run):
    steps, designs = _CONVERGENCE_STEPS, _CONVERGENCE_DESIGNS
    curves = []
    for d in (200, 400):
        data = dd.draw_teacher_student(dd.TeacherStudentProblem(int(1.1 * d), d, int(0.7 * d), 30.0), n_seeds=designs,
                                       seed=run.seed(71 + d))
        curves.append(dd.design_order_parameters(data, steps).generalization_error)
    gap = np.abs(curves[0].mean(0) - curves[1].mean(0))
    se = np.sqrt(sum(c.var(0, ddof=1) for c in curves) / designs)
    excess = float(np.max(gap - _t_limit(steps.size, designs - 1) * se))
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(110, 100, 70, 30.0), n_seeds=20, seed=run.seed(72))
    k_sim = np.array([3.0, 30.0, 300.0, 3000.0])
    sim = dd.measure_order_parameters(dd.gd_weights(data.X, data.y, k_sim), data.w, data.modulation)
    trace = dd.design_order_parameters(data, k_sim).generalization_error
    diff = sim.generalization_error - trace
    z = np.abs(diff.mean(0)) / (diff.std(0, ddof=1) / np.sqrt(20))
    return Check.all_of([Check.at_most(excess, 0.01), Check.at_most(float(z.max()), _t_limit(4, 19))],
                        f"max |L(200) − L(400)| = {gap.max():.4f} (beyond noise {excess:.4f}); single draw vs trace "
                        f"{z.max():.2f} SE (sd {diff.std(0, ddof=1).max():.3f})")


# ------------------------------------------------------- the output penalty, per-group learning rates, ODE routes

@claim("double_descent.q_penalty_exact_mapping", "Pezeshki (thesis), Lemma 4.3.1, App. .2.5",
       "A constant output penalty (a/2)‖Xŵ‖² is a uniform time rescaling plus shrinkage: R_a(k) = R₀((1+a)k)/(1+a) and "
       "Q_a(k) = Q₀((1+a)k)/(1+a)² in gradient flow (1e−12), explicit penalised GD equals its closed form (1e−10), "
       "and the final error is ½(a/(1+a))² (1e−12); round-off tolerances on a drawn design. It does not equalise "
       "feature speeds. Discrete GD with the penalty follows (1 − η(1 + a)s)^k, so it meets the flow mapping only as "
       "η → 0: at steps k·2^j with η = η₀/2^j (η₀(1 + a)λ_max = 1/4, j = 0…5) its R and Q approach "
       "R₀((1+a)k)/(1+a), Q₀((1+a)k)/(1+a)² at rate 1 in η (Check.rate, expected slope 1).", "identity",
       stochastic=True)
def q_penalty_exact_mapping(run):
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(60, 40, 28, 20.0), n_seeds=1, seed=run.seed(81))
    F, X = data.modulation.draw(0), data.X[0]
    steps = np.logspace(-1, 5, 61)
    eta = dd.inverse_max_eigenvalue_learning_rate(X, factor=0.5)
    checks = []
    for a in (0.3, 2.0):
        pen = dd.exact_gd_order_parameters(F, X, steps,
                                           dd.GDSettings(learning_rate=eta, dynamics="flow", output_penalty=a))
        base = dd.exact_gd_order_parameters(F, X, (1 + a) * steps, dd.GDSettings(learning_rate=eta, dynamics="flow"))
        checks += [Check.at_most(_abs(pen.R, base.R / (1 + a)), 1e-12, f"a={a}: R"),
                   Check.at_most(_abs(pen.Q, base.Q / (1 + a) ** 2), 1e-12, f"a={a}: Q"),
                   Check.at_most(_abs(pen.R1, base.R1 / (1 + a)), 1e-12, f"a={a}: R1")]
        final = dd.exact_gd_order_parameters(F, X, np.inf,
                                             dd.GDSettings(learning_rate=eta, output_penalty=a)).generalization_error
        checks.append(Check.at_most(abs(final[0] - 0.5 * (a / (1 + a)) ** 2), 1e-12, f"a={a}: final error"))
        record = np.array([0, 1, 5, 30, 200])
        explicit = dd.iterate_gd(data.X, data.y, record, eta, output_penalty_schedule=np.full(200, a)).weights
        closed = dd.gd_weights(data.X, data.y, record, learning_rate=eta, output_penalty=a)
        checks.append(Check.at_most(_abs(explicit, closed), 1e-10, f"a={a}: explicit vs closed form"))
        eta0, k0 = eta / (2.0 * (1 + a)), np.array([1.0, 5.0, 30.0, 200.0])
        target = dd.exact_gd_order_parameters(F, X, (1 + a) * k0, dd.GDSettings(learning_rate=eta0, dynamics="flow"))
        ladder = []
        for j in range(6):
            discrete = dd.exact_gd_order_parameters(F, X, k0 * 2 ** j,
                                                    dd.GDSettings(learning_rate=eta0 / 2 ** j, output_penalty=a))
            ladder.append(max(_abs(discrete.R, target.R / (1 + a)), _abs(discrete.Q, target.Q / (1 + a) ** 2)))
        checks.append(Check.rate(eta0 / 2.0 ** np.arange(6), ladder, 1.0,
                                 detail=f"a={a}: discrete GD against the flow mapping in η"))
    exact = max(c.measured for c in checks if not c.rates)
    return Check.all_of(checks, f"mapping, final error and explicit GD within {exact:.1e}; "
                                + "; ".join(c.detail for c in checks if c.rates))


def _fig6_schedule(n_steps):
    """Fig 4.6's schedule from its caption and the authors' code, a_k = 0.6·log(1 + e^{−k/1000})/log 2, computed
    here in plain Python (independently of the library's :func:`q_penalty_schedule`)."""
    return np.array([0.6 * math.log1p(math.exp(-k / 1000.0)) / math.log(2.0) for k in range(n_steps)])


@claim("double_descent.q_penalty_schedule", "Pezeshki (thesis), Fig 4.6 (left), Lemma 4.3.1",
       "The library's Fig 4.6 schedule equals a_k = 0.6·log(1 + e^{−k/1000})/log 2 computed independently (rel 1e−12: "
       "round-off, e^{−k/1000} amplifying the rounding of k/1000 by up to k/1000 = 100) over 1e5 steps. With it (n = "
       "120, d = 100, p = 70, κ = 30, mean of 4 drawn designs) the "
       "bump after the first minimum falls to under half (a regression envelope of the source's 'diminished': "
       "measured ≈ 0.1), the errors at step 1e5 agree within 1e−3, and the scheduled spectral recursion "
       "equals explicit penalised GD, without and with weight decay λ = 0.05, and on the mean loss at step nη "
       "(1e−10, round-off).", "theorem", stochastic=True)
def q_penalty_schedule(run):
    steps = np.unique(np.concatenate([[0], np.round(np.logspace(0, 5, 200)).astype(int)]))
    runs = dd.output_penalty_runs(steps, **dd.OUTPUT_PENALTY_SETUP, n_seeds=4, seed=run.seed(91))
    schedule, data = runs.schedule, runs.data
    formula = _fig6_schedule(int(steps[-1]))
    schedule_err = float(np.max(np.abs(schedule - formula) / formula))
    with_pen, without = runs.with_penalty.mean(0), runs.without.mean(0)

    def bump(curve):
        first_min = dd.curve_extrema(curve, 1e-9).minima[0]
        return float(curve[first_min:].max() - curve[first_min])

    bump_with, bump_without = bump(with_pen), bump(without)
    small = np.array([0, 1, 3, 10, 60, 300])
    eta = dd.inverse_max_eigenvalue_learning_rate(data.X[0])
    explicit = dd.iterate_gd(data.X[0], data.y[0], small, eta, output_penalty_schedule=schedule[:300]).weights
    closed = dd.scheduled_gd_weights(data.X[0], data.y[0], small, schedule, learning_rate=eta)
    # the mean loss at step nη is the summed loss at step η
    n_rows = data.X.shape[-2]
    mean_loss = dd.iterate_gd(data.X[0], data.y[0], small, eta * n_rows, output_penalty_schedule=schedule[:300],
                              loss_normalization="mean").weights
    # and with weight decay λ = 0.05 (η((1 + max a)λ_max + λ) = 1.6 + 0.05η < 2)
    explicit_decay = dd.iterate_gd(data.X[0], data.y[0], small, eta, weight_decay=0.05,
                                   output_penalty_schedule=schedule[:300]).weights
    closed_decay = dd.scheduled_gd_weights(data.X[0], data.y[0], small, schedule, learning_rate=eta, weight_decay=0.05)
    return Check.all_of([Check.at_most(schedule_err, 1e-12, "schedule vs its formula"),
                         Check.below(bump_with / bump_without, 0.5, "bump ratio"),
                         Check.at_most(abs(with_pen[-1] - without[-1]), 1e-3, "final errors"),
                         Check.at_most(_abs(explicit, closed), 1e-10, "explicit vs recursion"),
                         Check.at_most(_abs(explicit_decay, closed_decay), 1e-10, "explicit vs recursion, λ = 0.05"),
                         Check.at_most(_abs(mean_loss, closed), 1e-10, "explicit GD on the mean loss at step nη")],
                        f"schedule vs formula {schedule_err:.1e}; bump {bump_without:.4f} → {bump_with:.4f} (ratio "
                        f"{bump_with / bump_without:.3f}); final {without[-1]:.2e} vs {with_pen[-1]:.2e}; explicit vs "
                        f"recursion {_abs(explicit, closed):.1e}")


@claim("double_descent.per_group_learning_rates_remove_double_descent",
       "derived in this project: per-group learning rates (Pezeshki (thesis), §4.3.3)",
       "Preconditioned GD ŵ ← ŵ − ηVΣ⁻²Vᵀ∇L (learning rate ∝ 1/σ_i² per group) equals its closed form (1e−10, "
       "round-off) and, with σ_ε = 0, has a monotone L_G (largest rise ≤ 1e−12) at κ = 30 on a drawn design at "
       "d = 200, against a bump ≥ 0.02 without it (a regression envelope: measured ≈ 0.11); in the approximate theory "
       "it is exactly the κ = 1 curve (1e−14).", "theorem", stochastic=True)
def per_group_learning_rates_remove_double_descent(run):
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(220, 200, 140, 30.0), n_seeds=1, seed=run.seed(101))
    F, X = data.modulation.draw(0), data.X[0]
    M = F.preconditioner_factor
    steps = np.logspace(-1, 8, 250)
    pre = dd.exact_gd_order_parameters(F, X, steps, dd.GDSettings(preconditioner=M)).generalization_error
    plain = dd.exact_gd_order_parameters(F, X, steps).generalization_error
    small = dd.draw_teacher_student(dd.TeacherStudentProblem(60, 40, 28, 30.0), n_seeds=2, seed=run.seed(102))
    record = np.array([0, 1, 4, 20, 100])
    Ms = small.modulation.preconditioner_factor
    eta = dd.inverse_max_eigenvalue_learning_rate(small.X @ Ms).min()  # of the preconditioned designs XM
    explicit = dd.iterate_gd(small.X, small.y, record, eta, preconditioner=small.modulation.preconditioner).weights
    closed = np.stack([dd.gd_weights(small.X[i], small.y[i], record, learning_rate=eta, preconditioner=Ms[i])
                       for i in range(2)])
    grid = dd.analytic_steps()
    theory_gap = _abs(dd.bipartite_theory(grid, dd.TeacherStudentProblem(**PHASE, kappa=30.0),
                                          per_group_learning_rate=True).generalization_error,
                      dd.bipartite_theory(grid, dd.TeacherStudentProblem(**PHASE, kappa=1.0)).generalization_error)
    rise, bump = dd.largest_rise(pre), dd.largest_rise(plain)
    return Check.all_of([Check.at_most(rise, 1e-12, "rise with per-group rates"),
                         Check.at_least(bump, 0.02, "bump without"),
                         Check.at_most(_abs(explicit, closed), 1e-10, "explicit vs closed"),
                         Check.at_most(theory_gap, 1e-14, "theory vs κ = 1")],
                        f"largest rise {rise:.1e} with, {bump:.3f} without; explicit vs closed "
                        f"{_abs(explicit, closed):.1e}; theory vs κ=1 {theory_gap:.1e}")


@claim("double_descent.log_time_ode_equals_closed_form",
       "derived in this project: the log-time ODE of Pezeshki (thesis) Eq 4.2.13 and the per-mode ODE of App. Eq .2.16",
       "Integrating the log-time ODE for a_i (DOP853, rtol 1e−13) reproduces the closed-form R, Q, L_G to 1e−8 "
       "(weight decay, noise, per-group rates), and integrating the gradient flow dŵ/dk = −η∇L (rtol 1e−13) on a drawn "
       "design reproduces the flow closed form to 1e−8 (the solvers' global error).", "identity", stochastic=True)
def log_time_ode_equals_closed_form(run):
    steps = dd.analytic_steps(300, -3, 9)
    worst = 0.0
    for n, d, p, kappa, noise_std in _CONFIGS:
        for weight_decay, per_group in ((0.0, False), (1e-3, False), (0.0, True)):
            ode = dd.bipartite_theory_ode(steps, dd.TeacherStudentProblem(n, d, p, kappa, noise_std=noise_std),
                                          weight_decay, per_group_learning_rate=per_group)
            closed = dd.bipartite_theory(steps, dd.TeacherStudentProblem(n, d, p, kappa, noise_std=noise_std),
                                         weight_decay, per_group_learning_rate=per_group)
            worst = max(worst, *(_abs(getattr(ode, k), getattr(closed, k)) for k in ("R1", "R2", "Q1", "Q2")))
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(50, 30, 20, 10.0, noise_std=0.3), n_seeds=1,
                                   seed=run.seed(111))
    X, y = data.X[0], data.y[0]
    eta = dd.inverse_max_eigenvalue_learning_rate(X)
    k_flow = np.array([0.5, 3.0, 20.0, 150.0, 1000.0])
    flow = dd.gradient_flow_weights_ode(X, y, k_flow, eta, weight_decay=0.05, rtol=1e-13)
    closed = dd.gd_weights(X, y, k_flow, learning_rate=eta, weight_decay=0.05, dynamics="flow")
    flow_gap = _abs(flow, closed)
    return Check.all_of([Check.at_most(worst, 1e-8, "log-time ODE"), Check.at_most(flow_gap, 1e-8, "gradient flow")],
                        f"log-time ODE vs closed form {worst:.1e}; gradient-flow ODE vs closed form {flow_gap:.1e}")


# ---------------------------------------------------------------------------------------------------- errata

@claim("double_descent.erratum_c_uses_other_group", "Pezeshki (thesis), Eq 4.2.16, App. Eq .2.40",
       "The source prints c_i = 1 − 2R_i − …; the corrected c_i = 1 + σ² − 2R_j − ((2 − a_i)/a_i)(n/d), j ≠ i, matches "
       "the exact ridge asymptotics where the decoupling is exact (k → ∞, and the κ → ∞ plateau) to 1e−4 (the residual "
       "of λ = 1e−6 at κ = 1e8); the printed form misses by more than 1e−2. Along 60 steps of the analytic grid, in "
       "both forms, Q₁ and Q₂ equal np.linalg.solve of Eq 4.2.15's linear system Q₁ = b₁(c₁ + Q₂), "
       "Q₂ = b₂(c₂ + Q₁), with b_i, c_i written out here from the roots a_i (Eqs 4.2.14, 4.2.16), to rel 1e−12 "
       "(round-off, amplified by at most 1/(1 − b₁b₂) ≤ 3 here). The corrected c_i = 1 + σ² + n/d − 2(R₁ + R₂) is "
       "the same for both groups, so only the printed form, whose c₁ ≠ c₂, tells Q₁'s two c-terms apart.", "erratum",
       printed="c_i = 1 − 2R_i − ((2 − a_i)/a_i)(n/d)", corrected="c_i = 1 + σ_ε² − 2R_j − ((2 − a_i)/a_i)(n/d), j ≠ i",
       printed_math=r"c_i = 1 - 2R_i - \frac{2 - a_i}{a_i} \frac{n}{d}",
       corrected_math=r"c_i = 1 + \sigma_\varepsilon^2 - 2R_j - \frac{2 - a_i}{a_i} \frac{n}{d}, \quad j \ne i")
def erratum_c_uses_other_group():
    printed = corrected = 0.0
    for n, d, p, kappa, noise_std in _CONFIGS:
        for k, weight_decay in ((kappa, 0.0), (1e8, 1e-6)):
            exact = dd.ridge_oracle(weight_decay, n, d, p, k, noise_std).generalization_error
            for form in ("own", "other"):
                approx = dd.bipartite_theory(np.inf, dd.TeacherStudentProblem(n, d, p, k, noise_std=noise_std),
                                             weight_decay, c_overlap=form).generalization_error
                if form == "own":
                    printed = max(printed, float(np.max(np.abs(approx - exact))))
                else:
                    corrected = max(corrected, float(np.max(np.abs(approx - exact))))
    # Eq 4.2.15 as the 2×2 linear system it solves, built from the roots (Eqs 4.2.14, 4.2.16) and solved by LAPACK
    steps, solved, amplification, c_split = dd.analytic_steps(60), 0.0, 1.0, 0.0
    for n, d, p, kappa, noise_std in _CONFIGS:
        roots = dd.bipartite_roots(steps, n, d, p, kappa)
        a = np.stack([roots.a1, roots.a2])
        alpha = n / np.array([[p], [d - p]], dtype=float)
        R, b = n / (a * d), alpha / (a ** 2 - alpha)
        amplification = max(amplification, float(np.max(1.0 / (1.0 - b[0] * b[1]))))
        for form in ("own", "other"):
            overlap = R[::-1] if form == "other" else R
            c = 1.0 + noise_std ** 2 - 2.0 * overlap - ((2.0 - a) / a) * (n / d)
            if form == "own":
                c_split = max(c_split, float(np.max(np.abs(c[0] - c[1]))))
            system = np.empty((steps.size, 2, 2))
            system[:, 0, 0], system[:, 0, 1], system[:, 1, 0], system[:, 1, 1] = 1.0, -b[0], -b[1], 1.0
            Q = np.linalg.solve(system, (b * c).T[:, :, None])[:, :, 0]
            r = dd.bipartite_theory(steps, dd.TeacherStudentProblem(n, d, p, kappa, noise_std=noise_std),
                                    c_overlap=form)
            solved = max(solved, relative_error(r.Q1, Q[:, 0]), relative_error(r.Q2, Q[:, 1]))
    return Check.all_of(
        [Check.erratum(printed, corrected, 1e-4, reject_above=1e-2, detail="max |ΔL_G| against the ridge oracle"),
         Check.at_most(solved, 1e-12, "Q₁, Q₂ against the solved linear system of Eq 4.2.15"),
         Check.at_most(amplification, 3.0, "1/(1 − b₁b₂), the round-off amplification")],
        f"max |ΔL_G| against the ridge oracle: printed {printed:.3g}, corrected {corrected:.1e}; Q₁, Q₂ against "
        f"the solved Eq 4.2.15: rel {solved:.1e} (1/(1 − b₁b₂) ≤ {amplification:.2f}, printed |c₁ − c₂| up to "
        f"{c_split:.2f})")


@claim("double_descent.erratum_loss_is_a_sum",
       "Pezeshki (thesis), Eqs 4.2.3, 4.2.22, App. Eqs .2.12–.2.14, .2.45–.2.52",
       "The source prints a 1/(2n) loss prefactor; the ridge fixed point (XᵀX + λI)⁻¹Xᵀy of Eq .2.14 (and the GD "
       "closed "
       "form built on it) holds for the summed loss ½Σ: converged GD on the summed loss matches it to 1e−10 "
       "(round-off), on the printed mean loss it misses by more than 0.1 relative (it converges to (XᵀX + nλI)⁻¹Xᵀy).",
       "erratum", stochastic=True, printed="L_T = (1/2n) Σ_μ (y^μ − ŷ^μ)² + (λ/2)‖ŵ‖²",
       corrected="L_T = ½ Σ_μ (y^μ − ŷ^μ)² + (λ/2)‖ŵ‖²",
       printed_math=r"L_T = \frac{1}{2n} \sum_\mu (y^\mu - \hat y^\mu)^2 + \frac{\lambda}{2} \lVert \hat w \rVert^2",
       corrected_math=r"L_T = \frac{1}{2} \sum_\mu (y^\mu - \hat y^\mu)^2 + \frac{\lambda}{2} \lVert \hat w \rVert^2")
def erratum_loss_is_a_sum(run):
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(40, 20, 14, 3.0, noise_std=0.3), n_seeds=1,
                                   seed=run.seed(121))
    X, y, weight_decay = data.X, data.y, 0.5
    summed = dd.iterate_gd(X, y, [2000], dd.inverse_max_eigenvalue_learning_rate(X[0], weight_decay),
                           weight_decay=weight_decay).weights[0, -1]
    mean = dd.iterate_gd(X, y, [2000], dd.inverse_max_eigenvalue_learning_rate(X[0], weight_decay,
                                                                               loss_normalization="mean"),
                         weight_decay=weight_decay, loss_normalization="mean").weights[0, -1]
    fixed_point = dd.ridge_weights(X, y, weight_decay)[0, 0]
    scale = np.abs(fixed_point).max()
    return Check.erratum(_abs(mean, fixed_point) / scale, _abs(summed, fixed_point) / scale, 1e-10, reject_above=0.1,
                         detail="relative max |ŵ_GD(∞) − (XᵀX + λI)⁻¹Xᵀy|")


@claim("double_descent.erratum_lemma_431_normalization", "Pezeshki (thesis), Lemma 4.3.1, App. .2.5",
       f"The source prints ‖ŷ‖² = ŵᵀXᵀXŵ = dQ; for ŵ independent of X the correct relation is E_Z‖Xŵ‖² = nQ "
       f"(n = 150, d = 100, 400 input draws): nQ within t = {_t_limit(1, 399):.2f} standard errors (two-sided, "
       "family-wise 1e−4, "
       "t with 399 degrees of freedom), dQ off by more than 40.", "erratum", stochastic=True,
       printed="‖ŷ‖² = ŵᵀXᵀXŵ = dQ", corrected="E_Z[ŵᵀXᵀXŵ] = nQ (ŵ independent of X)",
       printed_math=r"\lVert \hat y \rVert^2 = \hat w^\top X^\top X \hat w = dQ",
       corrected_math=r"\mathbb{E}_Z\left[\hat w^\top X^\top X \hat w\right] = nQ "
                      r"\quad (\hat w \text{ independent of } X)")
def erratum_lemma_431_normalization(run):
    n, d = 150, 100
    mod = dd.modulation_matrix(d, 70, 10.0, n_seeds=1, seed=run.seed(131))
    rng = run.rng(132)
    w_hat = rng.standard_normal(d)
    Q = float(dd.measure_order_parameters(w_hat[None, None], np.zeros((1, d)), mod).Q[0, 0])
    F = mod.matrix[0]
    norms = np.array([np.sum(((rng.standard_normal((n, d)) / np.sqrt(d)) @ F @ w_hat) ** 2) for _ in range(400)])
    se = norms.std(ddof=1) / np.sqrt(norms.size)
    return Check.erratum(abs(norms.mean() - d * Q) / se, abs(norms.mean() - n * Q) / se, _t_limit(1, 399),
                         reject_above=40.0,
                         detail=f"E‖Xŵ‖²/Q = {norms.mean() / Q:.2f} (n = {n}, d = {d}); errors in standard errors")


# The gradient-flow/ridge comparison of Ali, Kolter and Tibshirani (2019), Theorem 1: per eigenmode the flow's bias
# factor e^{−2x} never exceeds the ridge's 1/(1 + x)², and its variance factor (1 − e^{−x})² exceeds the ridge's
# (x/(1 + x))² by at most sup_x ((1 − e^{−x})(1 + x)/x)² (x = ηks, λ = 1/(ηk)), which the theorem states as 1.6862.
_AKT_CONSTANT = 1.6862


@claim("double_descent.erratum_gradient_flow_ridge_constant", "Pezeshki (thesis), §4.2.3 (citing Ali, Kolter and "
       "Tibshirani 2019, Theorem 1)",
       "The source says that the gradient-flow risk is bounded by the ridge risk at λ = 1/t; the theorem it cites "
       "has a constant: risk(GF, t) ≤ 1.6862·risk(ridge, λ = 1/t) (here λ = 1/(ηk) for the summed loss). On a drawn "
       "isotropic design (κ = 1, n = 120, d = 100, σ_ε = 1, where ½(1 − 2R + Q) is the estimation risk the theorem "
       "bounds), the teacher-averaged gradient-flow L_G over 121 steps k ∈ [0.1, 1e5] exceeds the ridge L_G at "
       "λ = 1/(ηk) by a factor up to ≈ 1.38 (the printed bound fails by more than 0.1), and never by more than "
       "1.6862 (the corrected bound holds: max ratio − 1.6862 ≤ 0). The per-mode supremum of the variance ratio, "
       "sup_x ((1 − e^{−x})(1 + x)/x)², is 1.6859 (scipy), within the theorem's 1.6862.", "erratum",
       stochastic=True, printed="risk(GF, t) ≤ risk(ridge, λ = 1/t)",
       corrected="risk(GF, t) ≤ 1.6862 · risk(ridge, λ = 1/t)",
       printed_math=r"\operatorname{risk}(\mathrm{GF}, t) \le \operatorname{risk}(\mathrm{ridge}, \lambda = 1/t)",
       corrected_math=r"\operatorname{risk}(\mathrm{GF}, t) \le 1.6862 \cdot "
                      r"\operatorname{risk}(\mathrm{ridge}, \lambda = 1/t)")
def erratum_gradient_flow_ridge_constant(run):
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(120, 100, 50, 1.0, noise_std=1.0), n_seeds=1,
                                   seed=run.seed(161), n_test=1)
    F, X = data.modulation.draw(0), data.X[0]
    s, W = np.linalg.eigh(X.T @ X)
    s = np.clip(s, 0.0, None)
    eta = 1.0 / s.max()
    steps = np.logspace(-1, 5, 121)
    flow = dd.exact_gd_order_parameters(F, None, steps, dd.GDSettings(learning_rate=eta, dynamics="flow"),
                                        eigenvalues=s, eigenvectors=W, noise_std=1.0).generalization_error
    ridge = np.array([dd.exact_gd_order_parameters(F, None, np.inf, dd.GDSettings(weight_decay=1.0 / (eta * k)),
                                                   eigenvalues=s, eigenvectors=W, noise_std=1.0).generalization_error[0]
                      for k in steps])
    ratio = flow / ridge
    sharp = optimize.minimize_scalar(lambda x: -((-math.expm1(-x)) * (1 + x) / x) ** 2, bounds=(0.1, 10.0),
                                     method="bounded", options={"xatol": 1e-12})
    return Check.all_of([Check.erratum(float(ratio.max()) - 1.0, float(ratio.max()) - _AKT_CONSTANT, 0.0,
                                       reject_above=0.1),
                         Check.at_most(-sharp.fun, _AKT_CONSTANT, "per-mode variance ratio")],
                        f"max risk(GF, k)/risk(ridge, 1/(ηk)) = {ratio.max():.4f} at k = {steps[ratio.argmax()]:.3g} "
                        f"(min {ratio.min():.4f}); per-mode supremum {-sharp.fun:.5f} at x = {sharp.x:.4f}; errors: "
                        "max ratio − constant")


_STEP_LADDER = 2.0 ** np.arange(6)


@claim("double_descent.erratum_gd_to_ridge_step", "Pezeshki (thesis), App. Eqs .2.42–.2.52",
       "The source replaces exp(−ηkΛ) by (I + ηkΛ)⁻¹ 'by log(1 + x) ≈ x', an expansion whose error, x − log(1 + x), "
       "grows like x at late times; the step is the crude e^{−x} ≈ 1/(1 + x), exact only as x → 0 and as x → ∞ "
       "and off by up to max_x (1/(1 + x) − e^{−x}) = 0.2036 per mode (at x = 2.513), beyond the 0.12 envelope that "
       "L_G obeys (the claim double_descent.gd_versus_ridge_map). On a drawn design (n = 110, d = 100, p = 70, "
       "κ = 30) the teacher-averaged flow R(k) and ridge R at λ = 1/(ηk) differ (i) at late times "
       "(ηk·s_min = 100…3200) by a gap falling at rate −1 in k (Check.rate, expected −1: 1/(1 + x) − e^{−x} ≈ 1/x), where the printed "
       "reasoning's error would grow at rate +1 (printed error |slope − 1| > 1, corrected |slope + 1| ≤ 0.01, the "
       "pre-asymptotic 1/x_min); (ii) at early times (ηk·s_max = 0.01/2^j) by a gap rising at rate 2 (x²/2 per mode); "
       "(iii) on a one-feature design the library's flow R and ridge R at λ = 1/(ηk) differ by at most 0.2036 at "
       "ηks = 2.513 (1e−9, the optimiser's tolerance).", "erratum", stochastic=True,
       printed="exp(−ηkΛ) ≈ (I + ηkΛ)⁻¹ by log(1 + x) ≈ x (valid for ηks ≪ 1)",
       corrected="e^{−x} ≈ 1/(1 + x): exact only as x → 0 and x → ∞, off by up to 0.2036 per mode at x = 2.513",
       printed_math=r"\exp(-\eta k \Lambda) \approx (I + \eta k \Lambda)^{-1} \quad \text{by } \log(1 + x) \approx x "
                    r"\quad (\text{valid for } \eta k s \ll 1)",
       corrected_math=r"e^{-x} \approx \frac{1}{1 + x} \quad \text{exact only as } x \to 0 \text{ and } x \to "
                      r"\infty\text{; off by up to } 0.2036 \text{ per mode at } x = 2.513")
def erratum_gd_to_ridge_step(run):
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(110, 100, 70, 30.0), n_seeds=1, seed=run.seed(171),
                                   n_test=1)
    F, X = data.modulation.draw(0), data.X[0]
    s, W = np.linalg.eigh(X.T @ X)
    s = np.clip(s, 0.0, None)
    eta = 1.0 / s.max()

    def gap(steps):
        flow = dd.exact_gd_order_parameters(F, None, steps, dd.GDSettings(learning_rate=eta, dynamics="flow"),
                                            eigenvalues=s, eigenvectors=W).R
        ridge = np.array([dd.exact_gd_order_parameters(F, None, np.inf, dd.GDSettings(weight_decay=1.0 / (eta * k)),
                                                       eigenvalues=s, eigenvectors=W).R[0] for k in steps])
        return np.abs(flow - ridge)

    late_steps = 100.0 * _STEP_LADDER / (eta * s.min())
    early_steps = 0.01 / _STEP_LADDER / (eta * s.max())
    late = Check.rate(late_steps, gap(late_steps), -1.0, detail="late times, in k")
    early = Check.rate(early_steps, gap(early_steps), 2.0, detail="early times, in k")
    slope = late.rates[0].slope
    x_star = optimize.brentq(lambda x: math.exp(-x) * (1 + x) ** 2 - 1.0, 1.0, 5.0)
    worst = 1.0 / (1.0 + x_star) - math.exp(-x_star)
    one = np.array([[1.0], [0.5], [2.0]])  # a one-feature design: R is the filter of its single mode
    s_one, eta_one = float(one[:, 0] @ one[:, 0]), 0.1

    def one_mode_gap(log_k):
        k = math.exp(log_k)
        flow = dd.exact_gd_order_parameters(np.eye(1), one, [k],
                                            dd.GDSettings(learning_rate=eta_one, dynamics="flow")).R[0]
        ridge = dd.exact_gd_order_parameters(np.eye(1), one, [np.inf],
                                             dd.GDSettings(weight_decay=1.0 / (eta_one * k))).R[0]
        return flow - ridge

    found = optimize.minimize_scalar(lambda t: -one_mode_gap(t), bounds=(-3.0, 8.0), method="bounded",
                                     options={"xatol": 1e-10})
    return Check.all_of([Check.erratum(abs(slope - 1.0), abs(slope + 1.0), 0.01, reject_above=1.0), late, early,
                         Check.at_most(abs(-found.fun - worst), 1e-9, "one-feature design: largest gap"),
                         Check.above(worst, 0.12, "per-mode gap beyond the 0.12 envelope")],
                        f"late slope {slope:.4f}, early slope {early.rates[0].slope:.4f}; one-feature design: "
                        f"max gap {-found.fun:.5f} at ηks = {math.exp(found.x) * eta_one * s_one:.4f} (closed form "
                        f"{worst:.5f} at x = {x_star:.4f}); errors: |late slope − (±1)|")


@claim("double_descent.erratum_q_penalty_equalises_speeds", "Pezeshki (thesis), Lemma 4.3.1, §4.3.3, App. .2.5",
       "The source says that penalising the outputs (a/2)‖ŷ‖² equalises the learning speeds of the features; it "
       "multiplies every eigenmode's rate by the same 1 + a: R_a(k) = R₀((1+a)k)/(1+a), Q_a(k) = Q₀((1+a)k)/(1+a)² "
       "(gradient flow, Fig 4.6 set-up n = 120, d = 100, p = 70, κ = 30, a ∈ {0.6, 2}; to 1e−12, round-off), so the "
       "fast and slow groups keep their speed ratio: with the penalty their progress R_i(k)/R_i(∞) still differs by "
       "more than 0.5 somewhere on k ∈ [0.1, 1e7] (measured 0.98), where equal speeds would make it 0.", "erratum",
       stochastic=True, printed="the output penalty a‖ŷ‖² equalises the learning speeds of the features",
       corrected="R_a(k) = R₀((1 + a)k)/(1 + a), Q_a(k) = Q₀((1 + a)k)/(1 + a)²: a uniform time rescaling and "
                 "shrinkage",
       printed_math=r"\text{the output penalty } a \lVert \hat y \rVert^2 "
                    r"\text{ equalises the learning speeds of the features}",
       corrected_math=r"R_a(k) = \frac{R_0((1 + a)k)}{1 + a}, \quad Q_a(k) = \frac{Q_0((1 + a)k)}{(1 + a)^2} "
                      r"\quad \text{(a uniform time rescaling and shrinkage)}")
def erratum_q_penalty_equalises_speeds(run):
    setup = dd.OUTPUT_PENALTY_SETUP
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(**setup), n_seeds=1, seed=run.seed(181), n_test=1)
    F, X = data.modulation.draw(0), data.X[0]
    eta = dd.inverse_max_eigenvalue_learning_rate(X, factor=0.5)
    steps = np.logspace(-1, 7, 161)
    printed = corrected = 0.0
    for a in (0.6, 2.0):
        pen = dd.exact_gd_order_parameters(F, X, steps,
                                           dd.GDSettings(learning_rate=eta, dynamics="flow", output_penalty=a))
        base = dd.exact_gd_order_parameters(F, X, (1 + a) * steps, dd.GDSettings(learning_rate=eta, dynamics="flow"))
        final = dd.exact_gd_order_parameters(F, X, [np.inf],
                                             dd.GDSettings(learning_rate=eta, dynamics="flow", output_penalty=a))
        progress_gap = np.abs(pen.R1 / final.R1[0] - pen.R2 / final.R2[0]).max()
        printed = max(printed, float(progress_gap))
        corrected = max(corrected, _abs(pen.R1, base.R1 / (1 + a)), _abs(pen.R2, base.R2 / (1 + a)),
                        _abs(pen.Q, base.Q / (1 + a) ** 2))
    return Check.erratum(printed, corrected, 1e-12, reject_above=0.5,
                         detail="printed: the largest gap between the groups' progress R_i/R_i(∞) with the penalty; "
                                "corrected: max |R_a(k) − R₀((1+a)k)/(1+a)|, |Q_a − Q₀((1+a)k)/(1+a)²|")


# Plausible bugs these claims catch (planted in a copy of the library by tests/test_mutations.py).
planted_bug("double_descent: Q-penalty schedule strength 0.6 -> 0.3", "dynamics/double_descent/_setups.py",
            "def q_penalty_schedule(n_steps: int, strength: float = 0.6,",
            "def q_penalty_schedule(n_steps: int, strength: float = 0.3,",
            ("double_descent.q_penalty_schedule", "double_descent.torch_q_penalty_schedule"))
planted_bug("double_descent: GD time calibration λ_eff = 1/(2ηk) instead of 1/(ηk)",
            "dynamics/double_descent/_bipartite.py",
            "return np.where(steps > 0, 1.0 / (learning_rate * np.where(steps > 0, steps, 1.0)), np.inf)",
            "return np.where(steps > 0, 1.0 / (2.0 * learning_rate * np.where(steps > 0, steps, 1.0)), np.inf)",
            ("double_descent.torch_gd_matches_trace_formulas", "double_descent.point_a_bayes_optimal",
             "double_descent.gd_versus_ridge_map"))


# ------------------------------------------------------------------------------------------------ symbolic claims
# Each claim states a closed form's defining relation once in sympy (the recursion or ODE it solves and its start, the
# stationarity equations it satisfies, the Gaussian expectation it equals, the limit it has) and checks that the
# residual simplifies to 0; then the library against the sympy expression evaluated by mpmath at 30 digits at 1000
# points spread over orders of magnitude of every argument (verify.symbolic).
#
# Bounds. A float64 evaluation that rounds c times along its chain of operations, each rounding carried to the result
# by at most the formula's relative condition number, is within c·ε·(1 + κ) of the exact value, where
# κ = Σ_i |x_i ∂f/∂x_i / f| is the condition number over the formula's real arguments (sympy's derivatives, evaluated
# at each point; sizes n, d, p are counted as real, since the library forms their ratios in floating point). Each
# claim states its c (the roundings it counts); the detail reports the worst ratio measured. Where the library's
# algorithm cancels although the formula does not (a difference of nearly equal computed numbers), the claim says so
# and adds that cancellation factor to κ, so that the bound describes the algorithm the library runs.
#
# The theory's closed forms, what each solves and which claim checks it (or why none does), are listed in
# DERIVATIONS below; the errata that the symbolic claims show in sympy, in SYMBOLIC_COUNTERPARTS.
from .symbolic import EPS, derivation, library_against_symbols, printed_misses, residual_zero, spread  # noqa: E402
from .symbolic import POINTS as SYMBOLIC_POINTS  # noqa: E402
from .symbolic import symbolic_result as _symbolic_result  # noqa: E402

#: The theory's closed forms: the relation each solves, what the symbolic claims check and where it is printed
#: (the derivations page is generated from this list).
DERIVATIONS = (
    derivation("double_descent.generalization_error",
               r"L_G = \tfrac12 \mathbb{E}(y^* - \hat y)^2 = \tfrac12(T - 2R + Q),\quad "
               r"\mathbb{E}[y^* \hat y] = R,\quad \mathbb{E}[\hat y^2] = Q",
               "exact", "double_descent.symbolic_generalization_error",
               "Pezeshki (thesis), Eqs 4.2.5–4.2.7, App. Eqs .2.4–.2.9"),
    derivation("double_descent.spectral_filter",
               r"f_{k+1} = (1 - \eta r) f_k + \eta,\quad f_0 = 0,\quad \dot f = \eta(1 - r f),\quad "
               r"r = (1 + a)s + \lambda",
               "exact", "double_descent.symbolic_spectral_filter",
               "Pezeshki (thesis), Eqs 4.2.17–4.2.19, App. Eqs .2.12–.2.17; Lemma 4.3.1 (output penalty)"),
    derivation("double_descent.scheduled_filter",
               r"f_{k+1} = \bigl(1 - \eta((1 + a_k)s + \lambda)\bigr) f_k + \eta,\quad f_0 = 0",
               "exact", "double_descent.symbolic_spectral_filter", "Pezeshki (thesis), Lemma 4.3.1, Fig 4.6"),
    derivation("double_descent.effective_weight_decay",
               r"\lambda_\mathrm{eff} = \lambda + \frac{1}{\eta k}:\quad \frac{1 - e^{-\eta r k}}{r} "
               r"\simeq \frac{1}{r + 1/(\eta k)}\ \text{as } k \to 0 \text{ and } k \to \infty",
               "series", "double_descent.symbolic_time_limits",
               "Pezeshki (thesis), Eqs 4.2.21–4.2.22, App. Eqs .2.42–.2.52 (with the corrected reading of the GD → "
               "ridge step)",
               "The GD → ridge map is an approximation, not an identity: the flow filter $(1 - e^{-\\eta r k})/r$ and "
               "the ridge filter $1/(r + 1/(\\eta k))$ agree as $k \\to 0$ (both $\\eta k$, gap $\\eta^2 r k^2/2$) and "
               "as $k \\to \\infty$ (both $1/r$, gap $1/(\\eta r^2 k)$), and GD meets the flow as $\\eta \\to 0$ at "
               "fixed $\\eta k$ (series to $O(\\eta^3)$). sympy checks these limits and series, the largest per-mode "
               "gap $\\max_x (1/(1 + x) - e^{-x}) = 0.2036$ and the per-mode risk ratio of Ali, Kolter and Tibshirani "
               "(2019); the library's $\\lambda + 1/(\\eta k)$ itself equals the symbolic form at 30 digits."),
    derivation(("double_descent.stable_root", "double_descent.printed_root"),
               r"a^2 - (1 + \alpha + \lambda) a + \alpha = 0,\quad a \ge \max(1, \alpha)",
               "exact", "double_descent.symbolic_replica_saddle_point",
               "Pezeshki (thesis), Eq 4.2.13, App. Eq .2.35"),
    derivation("double_descent.replica_saddle_point",
               r"\partial_{R, Q, x} \Phi = 0,\quad \Phi = \frac{Q - R^2/T}{2x} - \frac{\lambda Q}{2} "
               r"- \frac{\alpha(G - 2R + Q)}{2(1 + x)}",
               "exact", "double_descent.symbolic_replica_saddle_point",
               "Pezeshki (thesis), App. Eqs .2.30–.2.36, .2.64–.2.66 (general teacher power and weight decay derived "
               "in this project)",
               "$\\Phi$ is the limit $\\beta \\to \\infty$ of the replica-symmetric free energy divided by $\\beta$, "
               "at fixed $x = \\beta(Q_0 - Q)$ (the reading $a = 1 + 1/x$ of App. Eq .2.36), with teacher power $T$, "
               "$G = T + \\sigma^2$ and the weight-decay term $-\\lambda Q/2$; sympy takes the limit and solves the "
               "stationarity equations in the root $a$."),
    derivation("double_descent.mp_stieltjes",
               r"\lambda g^2 + (\lambda + \alpha - 1) g - 1 = 0,\quad g > 0",
               "exact", "double_descent.symbolic_stieltjes",
               "Marchenko and Pastur 1967; Pezeshki (thesis), App. Eqs .2.33–.2.35 (Case 1)"),
    derivation("double_descent.stieltjes_order_parameters",
               r"R = T(1 - \lambda g),\quad Q = T(1 - 2\lambda g - \lambda^2 g') + \sigma^2 (g + \lambda g')",
               "exact", "double_descent.symbolic_stieltjes",
               "derived in this project (Case 1 of Pezeshki (thesis), App. Eqs .2.33–.2.35, as random-matrix theory)",
               "Ridge $\\hat w = (S + \\lambda)^{-1} Z^\\top y$ with $S = Z^\\top Z$, $y = Zw + \\epsilon$ and "
               "$\\mathbb{E}\\lVert w \\rVert^2/d = T$: averaging over the teacher, "
               "$R = T \\operatorname{tr}[(S + \\lambda)^{-1} S]/d = T(1 - \\lambda g)$, and $Q$ has the signal part "
               "$T \\operatorname{tr}[(S + \\lambda)^{-2} S^2]/d = T(1 - 2\\lambda g - \\lambda^2 g')$ and the noise "
               "part $\\sigma^2 \\operatorname{tr}[(S + \\lambda)^{-2} S]/d = \\sigma^2(g + \\lambda g')$, with "
               "$\\operatorname{tr}(S + \\lambda)^{-1}/d \\to g$ the Marchenko–Pastur Stieltjes transform and "
               "$\\operatorname{tr}(S + \\lambda)^{-2}/d \\to -g'$. sympy checks that these equal the replica saddle "
               "point on the Marchenko–Pastur curve, and their ridgeless limits."),
    derivation(("double_descent.bipartite_from_roots", "double_descent.bipartite_theory",
                "double_descent.bipartite_roots"),
               r"\begin{gathered} Q_i = b_i (c_i + Q_j),\quad b_i = \frac{\alpha_i}{a_i^2 - \alpha_i},\quad "
               r"R_i = \frac{n}{a_i d} \\ c_i = 1 + \sigma^2 - 2R_j - \frac{2 - a_i}{a_i} \frac{n}{d},\quad "
               r"a_i^2 - (1 + \alpha_i + \tilde\lambda_i) a_i + \alpha_i = 0 \end{gathered}",
               "exact", "double_descent.symbolic_bipartite_closed_form",
               "Pezeshki (thesis), Eqs 4.2.11–4.2.16, App. Eqs .2.37–.2.41 (c_i with the other group's R_j, as "
               "corrected)",
               "Each group is Case 1 with teacher power $p_i/d$, $\\alpha_i = n/p_i$ and the other group's unlearnt "
               "signal as noise, $G_i = 1 + \\sigma^2 + Q_j - 2R_j$; bipartite_roots gives the roots $a_i$ at "
               "$\\tilde\\lambda_i = (d/p_i)(\\lambda + 1/(\\eta k))/\\sigma_i^2$ (the stable root), through which "
               "bipartite_theory is compared. Its options freeze_fast_at, freeze_slow_at and per_group_learning_rate "
               "only change which $\\tilde\\lambda_i$ enters the same formulas."),
    derivation("double_descent.phase_points",
               r"C:\ a_i = \alpha_i,\quad B:\ a_1 = \alpha_1,\ a_2 \to \infty,\quad "
               r"A:\ \partial L_G / \partial \tilde\lambda_1 = 0 \text{ with group 2 frozen}",
               "exact", "double_descent.symbolic_phase_points",
               "derived in this project (Pezeshki (thesis), Fig 4.4, points A, B, C; Eqs 4.2.11–4.2.16)",
               "$C$ is the bipartite closed form at $a_i = \\alpha_i$ ($k \\to \\infty$, $\\lambda = 0$): $R = 1$, "
               "$Q = 1 + \\sigma^2 d/(n - d)$. $B$ is its limit $a_2 \\to \\infty$ (the slow group not yet learning) "
               "with $a_1 = \\alpha_1$: $R = p/d$, $Q = p/d + (1 - p/d + \\sigma^2) p/(n - p)$. With the slow group "
               "frozen the fast group is Case 1 with $T = p/d$ and noise $1 - p/d + \\sigma^2$; $L_G$ is stationary in "
               "$\\tilde\\lambda_1$ where $R = Q$, at $\\tilde\\lambda_1^* = (1 - p/d + \\sigma^2)/(p/d)$, so "
               "$L_A = \\tfrac12 (1 - R_A)$ with $R_A = n/(a d)$, $a$ the stable root at "
               "$(\\alpha_1, \\tilde\\lambda_1^*)$, and $\\lambda_\\mathrm{eff}^* = 1 - p/d + \\sigma^2$."),
    derivation("double_descent.ridge_oracle",
               r"\begin{gathered} k - \frac{\lambda}{n} = \frac{k}{n} \sum_i p_i u_i,\quad "
               r"u_i = \frac{s_i}{s_i + k},\quad R_i = \frac{p_i}{d} u_i \\ E_i = \frac{p_i}{d}(1 - u_i)^2 "
               r"+ \frac{B + \sigma^2}{n - \sum_j p_j u_j^2} p_i u_i^2,\quad Q_i = E_i - \frac{p_i}{d} + 2R_i "
               r"\end{gathered}",
               "exact", "double_descent.symbolic_ridge_oracle",
               "derived in this project from the deterministic equivalents of Dobriban and Wager 2018 and Hastie et "
               "al. 2022",
               "Ridge on the bipartite design has population covariance $\\operatorname{diag}(s_i)$, $s_1 = 1/d$, "
               "$s_2 = 1/(\\kappa^2 d)$, on $p_1 = p$ and $p_2 = d - p$ features. Its deterministic equivalent "
               "replaces the resolvent by $(\\Sigma + k)^{-1}$ with the effective regularisation $k$ of the balance "
               "$k - \\lambda/n = (k/n)\\sum_i p_i u_i$, $u_i = s_i/(s_i + k)$. Then $R_i = (p_i/d) u_i$; the error "
               "of group $i$ is its bias $(p_i/d)(1 - u_i)^2$ plus its share $p_i u_i^2/(n - \\sum_j p_j u_j^2)$ of "
               "the total bias $B = \\sum_j (p_j/d)(1 - u_j)^2$ and the noise $\\sigma^2$; "
               "$Q_i = E_i - p_i/d + 2R_i$ and $L_G = \\tfrac12 \\sum_i E_i$. The balance is a cubic in $k$ for "
               "$\\kappa \\ne 1$, solved by bisection: the claim parametrises by $k$ and checks that at $\\kappa = 1$ "
               "these are the Marchenko–Pastur forms and that the limits are points B and C."),
    derivation(("double_descent.ridge_weights", "double_descent.gd_weights", "double_descent.scheduled_gd_weights"),
               r"\hat w_k = W \operatorname{diag}(f_k(s_j)) W^\top X^\top y,\quad X^\top X = W \Lambda W^\top",
               "algorithm", source="Pezeshki (thesis), Eq 4.2.19, App. Eqs .2.12–.2.17",
               note="Matrix computations on a drawn design (an eigendecomposition and products), not closed forms in "
                    "scalars: their scalar ingredient, the filter $f_k$, is checked exactly "
                    "(symbolic_spectral_filter), and the claims double_descent.closed_form_equals_iterated_gd and "
                    "double_descent.q_penalty_schedule hold them to explicitly iterated GD."),
    derivation(("double_descent.exact_gd_order_parameters", "double_descent.design_order_parameters",
                "double_descent.scheduled_gd_order_parameters"),
               r"\begin{gathered} A = F W \operatorname{diag}(f_j s_j) W^\top F^{-1},\quad R = \tfrac1d "
               r"\operatorname{Tr} A \\ Q = \tfrac1d \lVert A \rVert_F^2 + \tfrac{\sigma^2}{d} \lVert F W "
               r"\operatorname{diag}(f_j \sqrt{s_j}) \rVert_F^2 \end{gathered}",
               "algorithm", source="Pezeshki (thesis), Eqs 4.2.9–4.2.10, App. Eqs .2.18–.2.20 (A with F⁻¹, as corrected)",
               note="Traces of matrix products on a drawn design (in $O(d^2)$ per step through $G \\circ H$), not "
                    "closed forms in scalars. The teacher map $F\\hat w = A w$ is shown in sympy on a two-dimensional "
                    "design with a general $F$ and general eigenvectors (symbolic_spectral_filter); the claims "
                    "double_descent.trace_formula_equals_teacher_average and "
                    "double_descent.erratum_teacher_enters_through_inverse_F hold the traces to Monte Carlo over "
                    "teachers."),
    derivation(("double_descent.gradient_flow_weights_ode", "double_descent.bipartite_theory_ode"),
               r"\frac{d\hat w}{dk} = -\eta \nabla L(\hat w),\quad \frac{da_i}{d\ln k} = "
               r"\frac{a_i\, d\tilde\lambda_i / d\ln k}{2a_i - 1 - \alpha_i - \tilde\lambda_i}",
               "algorithm", source="derived in this project: the per-mode ODE of Pezeshki (thesis) App. Eq .2.16 and the "
                              "log-time ODE of Eq 4.2.13",
               note="Numerical integrations (DOP853), not closed forms: differentiating "
                    "$a_i^2 - (1 + \\alpha_i + \\tilde\\lambda_i) a_i + \\alpha_i = 0$ along $\\ln k$ gives "
                    "$(2a_i - 1 - \\alpha_i - \\tilde\\lambda_i)\\,da_i = a_i\\,d\\tilde\\lambda_i$, and the gradient "
                    "flow is the loss's $-\\eta\\nabla L$. The closed forms they reproduce are checked symbolically "
                    "(symbolic_bipartite_closed_form, symbolic_spectral_filter), and the claim "
                    "double_descent.log_time_ode_equals_closed_form holds the integrations to them."),
    derivation("double_descent.q_penalty_schedule",
               r"a_k = 0.6 \log(1 + e^{-k/1000}) / \log 2",
               "none", source="Pezeshki (thesis), Fig 4.6 (its caption and the authors' code)",
               note="A setting of the experiment (Fig 4.6's decaying output penalty), not a derived closed form: the "
                    "claim double_descent.q_penalty_schedule compares it with the formula computed independently."),
)

#: The errata that the symbolic claims below show in sympy (the errata page links them).
SYMBOLIC_COUNTERPARTS = {
    "double_descent.erratum_teacher_enters_through_inverse_F": "double_descent.symbolic_spectral_filter",
    "double_descent.erratum_loss_is_a_sum": "double_descent.symbolic_spectral_filter",
    "double_descent.erratum_q_penalty_equalises_speeds": "double_descent.symbolic_spectral_filter",
    "double_descent.erratum_printed_root_cancels": "double_descent.symbolic_replica_saddle_point",
    "double_descent.erratum_c_uses_other_group": "double_descent.symbolic_bipartite_closed_form",
    "double_descent.erratum_lemma_431_normalization": "double_descent.symbolic_generalization_error",
    "double_descent.erratum_gradient_flow_ridge_constant": "double_descent.symbolic_time_limits",
    "double_descent.erratum_gd_to_ridge_step": "double_descent.symbolic_time_limits",
}

_POSITIVE = dict(positive=True)


def _condition(expression, symbols, points, magnitude=None):
    """κ = Σ_i |x_i ∂f/∂x_i| / |f| at each row of ``points`` (columns in the order of ``symbols``): numpy where it is
    finite, else mpmath at 20 digits. ``magnitude``, if given, is |f| at the
    points from an accurate route (where f is a small difference, its float64 value is no denominator)."""
    terms = [sp.diff(expression, v) * v for v in symbols] + [expression]
    fast = sp.lambdify(list(symbols), terms, "numpy", cse=True)
    with np.errstate(all="ignore"):
        values = [np.abs(np.broadcast_to(np.asarray(v, dtype=float), (len(points),))) for v in fast(*points.T)]
    sensitivity, size = sum(values[:-1]), values[-1] if magnitude is None else np.abs(magnitude)
    with np.errstate(all="ignore"):
        kappa = np.where(size == 0, 0.0, sensitivity / size)  # f = 0 exactly: the error is held absolutely
    bad = ~np.isfinite(kappa)
    if np.any(bad):
        slow = sp.lambdify(list(symbols), terms, "mpmath")
        with mpmath.workdps(20):
            for i in np.flatnonzero(bad):
                parts = [abs(t) for t in slow(*(mpmath.mpf(float(x)) for x in points[i]))]
                kappa[i] = float(sum(parts[:-1]) / (parts[-1] if magnitude is None else abs(magnitude[i])))
    return kappa


def _mp_values(expression, symbols, points, digits=30):
    """``expression`` at each row of ``points`` by mpmath at ``digits`` digits, as floats."""
    function = sp.lambdify(list(symbols), expression, "mpmath")
    with mpmath.workdps(digits):
        return np.array([float(function(*(mpmath.mpf(float(x)) for x in row))) for row in points])


def _keyed(points, values):
    """A callable of one point's coordinates returning its entry of ``values`` (precomputed, e.g. vectorised)."""
    table = {tuple(p): v for p, v in zip(points.tolist(), np.asarray(values, dtype=float).tolist())}
    return lambda *x: table[tuple(float(v) for v in x)]


def _against(expression, symbols, library, points, rounding, what, kappa=None, digits=30):
    """The library (a callable of a point's coordinates, or an array of its values at the points) against
    ``expression`` at ``digits`` digits, each point held to rounding·ε·(1 + κ) (κ: :func:`_condition`, or
    given)."""
    kappa = _condition(expression, symbols, points) if kappa is None else kappa
    if not np.all(np.isfinite(kappa)):
        return Check.at_most(math.inf, 1.0, f"{what}: condition number not finite")
    bound = _keyed(points, rounding * EPS * (1.0 + kappa))
    values = library if callable(library) else _keyed(points, library)
    check = library_against_symbols(expression, symbols, values, points, bound, what, digits=digits)
    return Check.at_most(check.measured, check.tolerance, f"{check.detail}, bound {rounding}ε(1 + κ), κ ≤ "
                                                          f"{float(np.max(kappa)):.3g}")


def _gaussian_expectation(polynomial, variances):
    """E of a polynomial in independent centred Gaussians ({symbol: variance}): E[z^(2m)] = (2m − 1)!! v^m."""
    symbols = list(variances)
    total = 0
    for powers, coefficient in sp.Poly(sp.expand(polynomial), *symbols).terms():
        term = coefficient
        for power, z in zip(powers, symbols):
            term *= 0 if power % 2 else sp.factorial2(power - 1) * variances[z] ** (power // 2)
        total += term
    return total


@claim("double_descent.symbolic_generalization_error", "Pezeshki (thesis), Eqs 4.2.5–4.2.7, App. Eqs .2.4–.2.9; "
       "Lemma 4.3.1, App. .2.5 (the normalisation of ‖ŷ‖², as corrected)",
       "sympy: with (y*, ŷ) the centred Gaussian pair of covariance [[T, R], [R, Q]] (ŷ = (R/T)y* + sqrt(Q − R²/T)ξ, "
       "ξ ~ N(0, 1) independent), E[y*ŷ] = R, E[ŷ²] = Q, ½E(y* − ŷ)² = ½(T − 2R + Q) (Eq 4.2.6) and with test-label "
       "noise ε of variance σ², ½E(y* + ε − ŷ)² = ½(T + σ² − 2R + Q) (App. .2.9) (residuals 0); for a student ŵ "
       "independent of the inputs, ŷ = zᵀv (v = Fŵ, z with iid N(0, 1/d) coordinates, three of them here) has "
       "E[ŷ²] = ‖v‖²/d = Q, so over n iid training inputs E_Z‖Xŵ‖² = nQ (Lemma 4.3.1 as corrected; residual 0), "
       "where the printed ‖ŷ‖² = dQ leaves the residual (d − n)Q (relative miss 0.5 at n = 2, d = 1, v = e₁). "
       "generalization_error "
       "equals ½(T − 2R + Q) at 30 digits at 1000 points (T in [1e-3, 1e3], Q in [1e-6, 1e6], R = ρ·sqrt(QT), ρ in "
       "[−1, 1]) within 3ε(1 + κ), κ = (T + 2|R| + Q)/|T − 2R + Q| the cancellation of the difference (the two "
       "roundings of T − 2R and + Q, carried by κ, and one spare).", "identity")
def symbolic_generalization_error():
    T, Q, s2 = sp.symbols("T Q sigma2", positive=True)
    R = sp.Symbol("R", real=True)
    y, xi, eps = sp.symbols("y xi epsilon", real=True)
    y_hat = R / T * y + sp.sqrt(Q - R ** 2 / T) * xi
    moments = {y: T, xi: sp.Integer(1), eps: s2}
    error = (T - 2 * R + Q) / 2
    checks = [residual_zero(_gaussian_expectation(y * y_hat, moments) - R, "E[y*ŷ] = R"),
              residual_zero(_gaussian_expectation(y_hat ** 2, moments) - Q, "E[ŷ²] = Q"),
              residual_zero(_gaussian_expectation((y - y_hat) ** 2, moments) / 2 - error, "Eq 4.2.6"),
              residual_zero(_gaussian_expectation((y + eps - y_hat) ** 2, moments) / 2 - error - s2 / 2,
                            "App. .2.9, noisy test labels")]
    # Lemma 4.3.1: ŵ independent of X, rows x = zᵀF with z ~ N(0, I/d); ŷ = zᵀv, v = Fŵ, Q = ‖v‖²/d
    d, n = sp.symbols("d n", positive=True)
    z, v = sp.symbols("z1:4", real=True), sp.symbols("v1:4", real=True)
    Q_v = sum(c ** 2 for c in v) / d
    norm = n * _gaussian_expectation(sum(a * b for a, b in zip(z, v)) ** 2, {c: 1 / d for c in z})  # n iid rows
    checks += [residual_zero(norm - n * Q_v, "Lemma 4.3.1: E_Z‖Xŵ‖² = nQ"),
               printed_misses(d * Q_v - norm, norm, {n: 2, d: 1, v[0]: 1, v[1]: 0, v[2]: 0},
                              "Lemma 4.3.1's printed ‖ŷ‖² = dQ")]
    points = spread([(1e-3, 1e3, "log"), (1e-6, 1e6, "log"), (-1.0, 1.0, "linear")], SYMBOLIC_POINTS)
    points[:, 2] *= np.sqrt(points[:, 0] * points[:, 1])  # R = ρ sqrt(QT): a realisable pair
    library = np.array([float(dd.generalization_error(r, q, t)) for t, q, r in points])
    checks.append(_against(error, (T, Q, R), library, points, 3, "generalization_error"))
    return _symbolic_result(checks)


def _blocks(shared, varying, blocks=50):
    """Points in ``blocks`` blocks: the ``shared`` ranges spread over the blocks (one value per block, repeated), the
    ``varying`` ones spread over all SYMBOLIC_POINTS rows; so that one library call serves a block (the library's
    numba kernels run in parallel, and a call per point would cost more in thread start-up than in arithmetic).
    Returns (shared columns, varying columns), each of SYMBOLIC_POINTS rows."""
    per_block = SYMBOLIC_POINTS // blocks
    return np.repeat(spread(shared, blocks), per_block, axis=0), spread(varying, SYMBOLIC_POINTS)


_SCHEDULE_STEPS = 4


def _filter_errata(s, lam, a, eta, k, b, c, r, flow):
    """The three errata of the eigenmode picture (see symbolic_spectral_filter): the summed loss, the teacher map
    with F⁻¹, and the output penalty's uniform time rescaling."""
    n = sp.Symbol("n", positive=True)
    mean_loss = ((s * c ** 2 - 2 * b * c) / 2 + a * s * c ** 2 / 2) / n + lam * c ** 2 / 2  # the printed 1/(2n)
    printed_fixed = sp.solve(sp.diff(mean_loss, c), c)[0]
    checks = [printed_misses(printed_fixed - b / r, b / r, {n: 2, s: 1, lam: 1, a: 0, b: 1},
                             "Eq 4.2.3's printed 1/(2n) loss: its stationary point against the ridge solution b/r")]
    # Eq 4.2.10 on a two-dimensional design: X = Λ^{1/2}Wᵀ (XᵀX = WΛWᵀ), Z = XF⁻¹, ŵ = W diag(f) Wᵀ Xᵀ y
    t = sp.Symbol("t", real=True)
    s1, s2, phi1, phi2 = sp.symbols("s1 s2 phi1 phi2", positive=True)
    f1, f2 = sp.symbols("f1 f2", real=True)
    F = sp.Matrix(2, 2, sp.symbols("F11 F12 F21 F22", real=True))
    w = sp.Matrix(sp.symbols("w1 w2", real=True))
    W = sp.Matrix([[1 - t ** 2, -2 * t], [2 * t, 1 - t ** 2]]) / (1 + t ** 2)

    def student(F, W):
        X = sp.diag(sp.sqrt(s1), sp.sqrt(s2)) * W.T
        return F * W * sp.diag(f1, f2) * W.T * X.T * (X * F.inv() * w)

    A = F * W * sp.diag(f1 * s1, f2 * s2) * W.T * F.inv()
    corrected = student(F, W) - A * w
    checks += [residual_zero(corrected[i], f"Eq 4.2.10: (Fŵ − Aw)_{i + 1}, A = FW·diag(f s)·WᵀF⁻¹") for i in range(2)]
    diagonal, identity = sp.diag(phi1, phi2), sp.eye(2)
    printed_A = diagonal * sp.diag(f1 * (s1 + lam), f2 * (s2 + lam)) * diagonal  # FW·diag(D)·WᵀF at W = I
    on_diagonal = student(diagonal, identity)
    checks.append(printed_misses((on_diagonal - printed_A * w)[0], on_diagonal[0],
                                 {phi1: 2, s1: 1, lam: 0, f1: 1, w[0]: 1}, "Eq 4.2.10's printed A = FW·diag(D)·WᵀF"))
    # Lemma 4.3.1: at λ = 0 the penalty rescales time by 1 + a and shrinks the filter by 1 + a, for every mode
    plain = flow.subs({lam: 0, a: 0, k: (1 + a) * k}, simultaneous=True) / (1 + a)
    progress = [1 - sp.exp(-eta * (1 + a) * s_i * k) for s_i in (s1, s2)]
    checks += [residual_zero(flow.subs(lam, 0) - plain, "Lemma 4.3.1: f_a(k) = f₀((1 + a)k)/(1 + a)"),
               printed_misses(progress[0] - progress[1], progress[0],
                              {s1: 2, s2: 1, a: 1, eta: sp.Rational(1, 2), k: 1},
                              "equal speeds: two modes' progress with the penalty")]
    return checks


@claim("double_descent.symbolic_spectral_filter", "Pezeshki (thesis), Eqs 4.2.3, 4.2.10, 4.2.17–4.2.19, App. Eqs "
       ".2.12–.2.17; Lemma 4.3.1 and Fig 4.6 (output penalty)",
       "sympy: on an eigen-coordinate c = f·b of ŵ (XᵀX = WΛWᵀ, b = WᵀXᵀy) the loss ½‖y − Xŵ‖² + (a/2)‖Xŵ‖² + "
       "(λ/2)‖ŵ‖² is ½(r c² − 2bc) + const with r = (1 + a)s + λ, and one GD step maps f to (1 − ηr)f + η (.2.15); "
       "f(k) = (1 − (1 − ηr)^k)/r solves that recursion with f(0) = 0 (.2.16–.2.17) and is the sum of its geometric "
       "series; (1 − e^{−ηrk})/r solves the gradient flow df/dk = η(1 − rf), f(0) = 0; the fixed point 1/r is "
       "stationary, the ridge solution (.2.14); the scheduled recursion f ← (1 − ηr(a_k))f + η over 4 steps with "
       "equal a_k is f(4) (residuals 0). Three errata of the source: (i) the loss is the sum ½Σ_μ: the printed "
       "1/(2n) loss, (1/n)(½(sc² − 2bc) + (a/2)sc²) + (λ/2)c², is stationary at b/((1 + a)s + nλ), not at the "
       "ridge solution b/r (relative miss 1/3 at n = 2, s = λ = b = 1, a = 0); (ii) on a two-dimensional design "
       "X = Λ^{1/2}Wᵀ with a general F (4 symbols), general eigenvectors W (a rotation, rationally parametrised) and "
       "any filter values f_j, labels y = Zw = XF⁻¹w give Fŵ = Aw with A = FW·diag(f_j s_j)·WᵀF⁻¹ (Eq 4.2.10 as "
       "corrected, D_j = f_j(s_j + λ); residuals 0), while the printed A = FW·diag(D_j)·WᵀF leaves the residual "
       "f₁w₁(s₁ − φ₁²(s₁ + λ)) at F = diag(φ₁, φ₂), W = I (relative miss 3 at φ₁ = 2, s₁ = 1, λ = 0); (iii) the "
       "output penalty does not equalise the speeds: at λ = 0 the penalised flow filter is the plain one at "
       "(1 + a)k divided by 1 + a (so R_a(k) = R₀((1 + a)k)/(1 + a) and, Q being quadratic in the filter, "
       "Q_a(k) = Q₀((1 + a)k)/(1 + a)²; residual 0), and two modes' progress 1 − e^{−η(1+a)s_i k} keeps differing "
       "(relative miss 0.27 at s = (2, 1), a = 1, η = ½, k = 1). spectral_filter (GD and flow) and "
       "scheduled_filter (4 steps, 4 different "
       "a_k) equal these at 30 digits at 1000 points each (50 blocks of 20 modes: s in [1e-4, 1e4], λ in "
       "[1e-6, 1e2] or 0, a in [1e-3, 10] or 0, η = x/max r with x in [1e-8, 0.999], so that ηr spans 1e-16 to "
       "0.999, k in [1e-2, 1e7]) within 8ε(1 + κ) (the closed form's seven roundings: r, ηr, "
       "log1p, k·log, expm1, the quotient) and 24ε(1 + κ) for the schedule (six roundings a step, four steps).",
       "identity")
def symbolic_spectral_filter():
    s, lam, a, eta, k, b = sp.symbols("s lambda a eta k b", **_POSITIVE)
    c, f = sp.symbols("c f", real=True)
    r = (1 + a) * s + lam
    loss = (s * c ** 2 - 2 * b * c) / 2 + a * s * c ** 2 / 2 + lam * c ** 2 / 2  # per mode, up to ½‖y‖²
    gradient = sp.diff(loss, c)
    gd = (1 - (1 - eta * r) ** k) / r
    flow = (1 - sp.exp(-eta * r * k)) / r
    j, K = sp.symbols("j K", integer=True, nonnegative=True)
    series = sp.summation(eta * (1 - eta * r) ** j, (j, 0, K - 1))
    series = series.replace(lambda e: isinstance(e, sp.Piecewise), lambda e: e.args[-1][0])  # ηr ≠ 0
    rates = sp.symbols("a1:%d" % (_SCHEDULE_STEPS + 1), nonnegative=True)
    scheduled = sp.Integer(0)
    for a_k in rates:
        scheduled = (1 - eta * ((1 + a_k) * s + lam)) * scheduled + eta
    checks = [residual_zero((f * b - eta * gradient.subs(c, f * b)) / b - ((1 - eta * r) * f + eta),
                            "GD step on the mode (.2.15)"),
              residual_zero(gd.subs(k, k + 1) - ((1 - eta * r) * gd + eta), "GD filter solves the recursion"),
              residual_zero(gd.subs(k, 0), "f(0) = 0"),
              residual_zero(series - gd.subs(k, K), "geometric series"),
              residual_zero(sp.diff(flow, k) - eta * (1 - r * flow), "flow filter solves df/dk = η(1 − rf)"),
              residual_zero(flow.subs(k, 0), "flow f(0) = 0"),
              residual_zero(gradient.subs(c, b / r), "1/r is stationary (.2.14)"),
              residual_zero(scheduled.subs({a_k: a for a_k in rates}) - gd.subs(k, _SCHEDULE_STEPS),
                            "constant schedule")]
    checks += _filter_errata(s, lam, a, eta, k, b, c, r, flow)
    # 50 blocks share (λ, a, x = ηr_max) and spread (s, k) over 20 points each: λ every 4th block 0, a every 3rd 0
    shared, varying = _blocks([(1e-6, 1e2, "log"), (1e-3, 10.0, "log"), (1e-8, 0.999, "log")],
                              [(1e-4, 1e4, "log"), (1e-2, 1e7, "log")])
    shared[:, 0][np.repeat(np.arange(50) % 4 == 0, 20)] = 0.0
    shared[:, 1][np.repeat(np.arange(50) % 3 == 0, 20)] = 0.0
    r_max = ((1.0 + shared[:, 1]) * varying[:, 0] + shared[:, 0]).reshape(50, 20).max(1)
    eta_ = np.repeat(shared[::20, 2] / r_max, 20)  # ηr in (0, 0.999] for every mode of the block
    points = np.column_stack([varying[:, 0], shared[:, 0], shared[:, 1], eta_, varying[:, 1]])
    symbols = (s, lam, a, eta, k)
    for dynamics, expression in (("gd", gd), ("flow", flow)):
        values = np.concatenate([np.diag(dd.spectral_filter(
            block[:, 0], block[:, 4], block[0, 3], weight_decay=block[0, 1], dynamics=dynamics,
            output_penalty=block[0, 2])) for block in points.reshape(50, 20, 5)])
        checks.append(_against(expression, symbols, values, points, 8, f"spectral_filter ({dynamics})"))
    shared, varying = _blocks([(1e-6, 1e2, "log"), (1e-8, 0.999, "log")] + [(1e-3, 10.0, "log")] * _SCHEDULE_STEPS,
                              [(1e-4, 1e4, "log")])
    shared[:, 0][np.repeat(np.arange(50) % 4 == 0, 20)] = 0.0
    shared[:, 2][np.repeat(np.arange(50) % 3 == 0, 20)] = 0.0
    r_max = ((1.0 + shared[:, 2:].max(1)) * varying[:, 0] + shared[:, 0]).reshape(50, 20).max(1)
    eta_ = np.repeat(shared[::20, 1] / r_max, 20)
    schedule_points = np.column_stack([varying[:, 0], shared[:, 0], eta_, shared[:, 2:]])
    values = np.concatenate([dd.scheduled_filter(block[:, 0], [_SCHEDULE_STEPS], block[0, 2], block[0, 3:],
                                                 weight_decay=block[0, 1])[0]
                             for block in schedule_points.reshape(50, 20, 3 + _SCHEDULE_STEPS)])
    checks.append(_against(scheduled, (s, lam, eta) + rates, values, schedule_points, 24, "scheduled_filter"))
    return _symbolic_result(checks)


@claim("double_descent.symbolic_time_limits", "Pezeshki (thesis), Eqs 4.2.21–4.2.22, App. Eqs .2.42–.2.52 (with "
       "the corrected reading of the GD → ridge step); §4.2.3 (citing Ali, Kolter and Tibshirani 2019, Theorem 1)",
       "sympy: at fixed τ = ηk, (1 − ηr)^{τ/η} → e^{−rτ} as η → 0 (GD → gradient flow, .2.42–.2.44), with series "
       "e^{−rτ}(1 − ητr²/2 + η²(τ²r⁴/8 − τr³/3)) + O(η³) (residual 0); the flow filter (1 − e^{−ηrk})/r and the "
       "ridge filter 1/(r + 1/(ηk)) at λ_eff = λ + 1/(ηk) (r = s + λ) have the same limits ηk (k → 0) and 1/r "
       "(k → ∞), differ at second order by η²rk²/2 and at late times by 1/(ηr²k) (k·gap → 1/(ηr²)); the per-mode gap "
       "1/(1 + x) − e^{−x} is stationary at x* = −1 − 2W₋₁(−1/(2√e)) (the stationarity residual e^{−x}(1 + x)² − 1 "
       "is 0 at 30 digits) and a maximum, 0.2036 at x* = 2.5129, where Brent's root of e^{−x}(1 + x)² = 1 agrees "
       "to 1e-12. The source's justification of that step, log(1 + x) ≈ x, has the error x − log(1 + x) (~ x as "
       "x → ∞, residual 0), which is not the step's error: the residual (x − log(1 + x)) − (1/(1 + x) − e^{−x}) "
       "misses by 1.32 relative at x = 1, while the step's gap is 0 at x = 0 and ~ 1/x as x → ∞ (x·gap → 1, "
       "residual 0). Ali, Kolter and Tibshirani's per-mode variance ratio ((1 − e^{−x})(1 + x)/x)² (x = ηks, "
       "λ = 1/(ηk)) tends to 1 as x → 0 and x → ∞, is stationary where e^x = 1 + x + x² (one positive root: "
       "e^x − 1 − x − x² has e^x − 2 for second derivative) and equals "
       "((1 + x)²/(1 + x + x²))² there (residuals 0); that root (mpmath, 30 digits) is x = 1.7933, where the ratio is "
       "1.68591, within the theorem's constant 1.6862, whereas the printed bound without a constant, ratio ≤ 1, "
       "misses by 0.598 relative at x = 1. "
       "effective_weight_decay equals λ + 1/(ηk) at 30 digits at 1000 points (k in [1e-3, 1e9], η in [1e-4, 10], "
       "λ in [1e-8, 1e2] or 0) within 4ε(1 + κ) (three roundings: ηk, the reciprocal, the sum).", "limit")
def symbolic_time_limits():
    eta, r, tau, k, lam = sp.symbols("eta r tau k lambda", **_POSITIVE)
    x = sp.Symbol("x", positive=True)
    power = (1 - eta * r) ** (tau / eta)
    flow = (1 - sp.exp(-eta * r * k)) / r
    ridge = 1 / (r + 1 / (eta * k))
    second = sp.exp(-r * tau) * (1 - eta * tau * r ** 2 / 2 + eta ** 2 * (tau ** 2 * r ** 4 / 8 - tau * r ** 3 / 3))
    checks = [residual_zero(sp.limit(power, eta, 0) - sp.exp(-r * tau), "η → 0 at fixed ηk"),
              residual_zero(sp.series(power, eta, 0, 3).removeO() - second, "series in η to O(η³)"),
              residual_zero(sp.limit(flow / (eta * k), k, 0) - 1, "flow ~ ηk as k → 0"),
              residual_zero(sp.limit(ridge / (eta * k), k, 0) - 1, "ridge map ~ ηk as k → 0"),
              residual_zero(sp.limit(flow, k, sp.oo) - 1 / r, "flow → 1/r"),
              residual_zero(sp.limit(ridge, k, sp.oo) - 1 / r, "ridge map → 1/r"),
              residual_zero(sp.series(flow - ridge, k, 0, 3).removeO() - eta ** 2 * r * k ** 2 / 2,
                            "second-order gap"),
              residual_zero(sp.limit(k * (flow - ridge), k, sp.oo) - 1 / (eta * r ** 2), "late gap ~ 1/(ηr²k)")]
    x_star = -1 - 2 * sp.LambertW(-1 / (2 * sp.sqrt(sp.E)), -1)
    gap = 1 / (1 + x) - sp.exp(-x)
    with mpmath.workdps(30):
        stationarity = abs(float((sp.exp(-x) * (1 + x) ** 2 - 1).subs(x, x_star).evalf(30)))
        worst_x, worst_gap = float(x_star.evalf(30)), float(gap.subs(x, x_star).evalf(30))
    found = optimize.brentq(lambda v: math.exp(-v) * (1 + v) ** 2 - 1.0, 1.0, 5.0, xtol=1e-15)  # another route
    checks += [Check.at_most(stationarity, 1e-25, f"gap stationary at x* (30 digits): residual {stationarity:.1e}"),
               Check.at_most(abs(worst_x - found), 1e-12, f"x* = {worst_x:.6f} (Brent: {found:.6f}), gap "
                                                          f"{worst_gap:.6f}"),
               Check.predicate(-float(sp.diff(gap, x, 2).subs(x, x_star)), "x* is a maximum of the gap")]
    checks += _ridge_step_errata(x, gap)
    points = spread([(1e-3, 1e9, "log"), (1e-4, 10.0, "log"), (1e-8, 1e2, "log")], SYMBOLIC_POINTS)
    points[::4, 2] = 0.0
    values = [float(dd.effective_weight_decay(k_, eta_, lam_)) for k_, eta_, lam_ in points]
    checks.append(_against(lam + 1 / (eta * k), (k, eta, lam), values, points, 4, "effective_weight_decay"))
    return _symbolic_result(checks)


def _ridge_step_errata(x, gap):
    """The source's justification of e^{−x} ≈ 1/(1 + x) and its bound without Ali, Kolter and Tibshirani's constant
    (see symbolic_time_limits); x = ηks, the ridge at λ = 1/(ηk)."""
    log_error = x - sp.log(1 + x)
    checks = [printed_misses(log_error - gap, gap, {x: 1}, "the printed log(1 + x) ≈ x: its error against the step's"),
              residual_zero(sp.limit(log_error / x, x, sp.oo) - 1, "x − log(1 + x) ~ x as x → ∞"),
              residual_zero(gap.subs(x, 0), "the step's gap is 0 at x = 0"),
              residual_zero(sp.limit(x * gap, x, sp.oo) - 1, "the step's gap ~ 1/x as x → ∞")]
    ratio = ((1 - sp.exp(-x)) * (1 + x) / x) ** 2  # flow variance factor over the ridge's (x/(1 + x))²
    on_root = {sp.exp(-x): 1 / (1 + x + x ** 2)}
    checks += [residual_zero(sp.limit(ratio, x, 0) - 1, "variance ratio → 1 as x → 0"),
               residual_zero(sp.limit(ratio, x, sp.oo) - 1, "variance ratio → 1 as x → ∞"),
               residual_zero(sp.diff(ratio, x).subs(on_root), "variance ratio stationary where e^x = 1 + x + x²"),
               residual_zero(ratio.subs(on_root) - ((1 + x) ** 2 / (1 + x + x ** 2)) ** 2,
                             "variance ratio there = ((1 + x)²/(1 + x + x²))²")]
    with mpmath.workdps(30):
        root = mpmath.findroot(lambda u: mpmath.exp(u) - 1 - u - u * u, 1.8)
        supremum = float(((1 + root) ** 2 / (1 + root + root ** 2)) ** 2)
    checks += [Check.at_most(supremum, _AKT_CONSTANT, f"largest variance ratio {supremum:.6f} at x = {float(root):.4f} "
                                                      f"(30 digits), within Ali, Kolter and Tibshirani's 1.6862"),
               printed_misses(ratio - 1, sp.Integer(1), {x: 1}, "the printed bound risk(GF) ≤ risk(ridge), per mode")]
    return checks


def _case1_symbols():
    """α, λ, T, σ² and the larger root a of a² − (1 + α + λ)a + α = 0 (Eq 4.2.13) with its discriminant factored as
    ((1 − √α)² + λ)((1 + √α)² + λ), which mpmath evaluates without cancellation."""
    alpha, lam, T, s2 = sp.symbols("alpha lambda T sigma2", **_POSITIVE)
    root_alpha = sp.sqrt(alpha)
    a = (1 + alpha + lam + sp.sqrt(((1 - root_alpha) ** 2 + lam) * ((1 + root_alpha) ** 2 + lam))) / 2
    return alpha, lam, T, s2, a


def _case1_points():
    """(α, λ, T, σ²): α in [1e-2, 1e2], λ in [1e-10, 1e4], T in [1e-2, 1e2], σ² in [1e-4, 1e2] or 0 (every 4th)."""
    points = spread([(1e-2, 1e2, "log"), (1e-10, 1e4, "log"), (1e-2, 1e2, "log"), (1e-4, 1e2, "log")],
                    SYMBOLIC_POINTS)
    points[::4, 3] = 0.0
    return points


@claim("double_descent.symbolic_replica_saddle_point", "Pezeshki (thesis), App. Eqs .2.30–.2.36, .2.64–.2.66 "
       "(general teacher power and weight decay derived in this project), Eq 4.2.13",
       "sympy: the replica-symmetric free energy of Case 1 divided by β, with Q₀ = Q + x/β, tends as β → ∞ to "
       "Φ(R, Q, x) = (Q − R²/T)/(2x) − λQ/2 − α(G − 2R + Q)/(2(1 + x)), G = T + σ² (the reading a = 1 + 1/x of "
       ".2.36); its three stationarity equations vanish at R = αT/a, Q = α(G − ((2 − a)/a)αT)/(a² − α), x = 1/(a − 1) "
       "for every a, with λ = (a − 1)(a − α)/a the quadratic a² − (1 + α + λ)a + α = 0 solved for λ (residuals 0); "
       "the stable root ½[1 + α + λ + sqrt((1 + α + λ)² − 4α)] solves that quadratic, equals the printed "
       "1 + 2λ/(1 − α − λ + sqrt((1 − α − λ)² + 4λ)) identically (the printed form's fault is numerical only), and "
       "tends to max(1, α) as λ → 0 (.2.66) (residuals 0). That fault, shown on one relative rounding ε of the square "
       "root: the stable root moves by ε√D′/2 (D′ = (1 + α + λ)² − 4α; residual 0), relative at most ε/2, the "
       "printed one by a nonzero residual that at α = 4, λ = 1e−10, ε = 2⁻⁵³ is 3.7e−6 of a (above the 1e−6 the "
       "erratum double_descent.erratum_printed_root_cancels rejects: its denominator ≈ 2λ/3 cancels). stable_root, "
       "replica_saddle_point (a, R, Q and the "
       "susceptibility x) equal these at 30 digits at 1000 points (α in [1e-2, 1e2], λ in [1e-10, 1e4], T in "
       "[1e-2, 1e2], σ² in [1e-4, 1e2] or 0) within 8ε(1 + κ) (the root's square roots, products and sums: at most "
       "eight roundings on any path); printed_root is faithful to the printed form: within 8ε(1 + κ + "
       "((a − 1)/a)·(2(1 + α + λ) + √D)/|1 − α − λ + √D|), D = (1 − α − λ)² + 4λ, the cancellation of its "
       "denominator carried into a.", "identity")
def symbolic_replica_saddle_point():
    alpha, lam, T, s2, a = _case1_symbols()
    R, Q, x, beta, G, A = sp.symbols("R Q x beta G A", **_POSITIVE)
    q0 = Q + x / beta
    free_energy = ((Q - R ** 2 / T) / (2 * (q0 - Q)) + sp.log(q0 - Q) / 2 - beta * lam * q0 / 2
                   - alpha * sp.log(1 + beta * (q0 - Q)) / 2
                   - alpha * beta * (G - 2 * R + Q) / (2 * (1 + beta * (q0 - Q))))
    phi = (Q - R ** 2 / T) / (2 * x) - lam * Q / 2 - alpha * (G - 2 * R + Q) / (2 * (1 + x))
    saddle = {R: alpha * T / A, Q: alpha / (A ** 2 - alpha) * (G - (2 - A) / A * alpha * T), x: 1 / (A - 1),
              lam: (A - 1) * (A - alpha) / A}
    printed = 1 + 2 * lam / (1 - alpha - lam + sp.sqrt((1 - alpha - lam) ** 2 + 4 * lam))
    plain = (1 + alpha + lam + sp.sqrt((1 + alpha + lam) ** 2 - 4 * alpha)) / 2
    delta = sp.Symbol("delta", positive=True)
    zero_ridge = [plain.subs(lam, 0).subs(alpha, value) for value in (1 + delta, 1 / (1 + delta))]
    checks = [residual_zero(sp.limit(free_energy / beta, beta, sp.oo) - phi, "β → ∞ at fixed x = β(Q₀ − Q)")]
    checks += [residual_zero(sp.diff(phi, v).subs(saddle), f"∂Φ/∂{v}") for v in (R, Q, x)]
    checks += [residual_zero(sp.expand(plain ** 2 - (1 + alpha + lam) * plain + alpha), "root of the quadratic"),
               residual_zero(a - plain, "factored discriminant"),
               residual_zero(sp.radsimp(printed - plain), "printed root = stable root"),
               residual_zero(sp.sqrtdenest(sp.factor(zero_ridge[0], deep=True)) - (1 + delta), "λ → 0, α > 1: a = α"),
               residual_zero(sp.sqrtdenest(sp.factor(zero_ridge[1], deep=True)) - 1, "λ → 0, α < 1: a = 1")]
    # one relative rounding ε of each form's square root (Eq 4.2.13's printed form against the stable one)
    rounding = sp.Symbol("epsilon", positive=True)
    B, S = 1 - alpha - lam, 1 + alpha + lam
    rounded_printed = 1 + 2 * lam / (B + sp.sqrt(B ** 2 + 4 * lam) * (1 + rounding))
    rounded_stable = (S + sp.sqrt(S ** 2 - 4 * alpha) * (1 + rounding)) / 2
    checks += [residual_zero((rounded_stable - plain) / rounding - sp.sqrt(S ** 2 - 4 * alpha) / 2,
                             "stable root, one rounding of its square root: ε√D′/2"),
               printed_misses(rounded_printed - plain, plain,
                              {alpha: 4, lam: sp.Rational(1, 10 ** 10), rounding: sp.Rational(1, 2 ** 53)},
                              "printed root, one rounding of its square root", reject=1e-6)]
    points = _case1_points()
    symbols = (alpha, lam, T, s2)
    result = [dd.replica_saddle_point(al, la, t, v) for al, la, t, v in points]
    fields = {"a": a, "R": alpha * T / a,
              "Q": alpha / (a ** 2 - alpha) * (T + s2 - (2 - a) / a * alpha * T),
              "susceptibility": 1 / (a - 1)}
    for name, expression in fields.items():
        checks.append(_against(expression, symbols, [float(getattr(o, name)) for o in result], points, 8,
                               f"replica_saddle_point.{name}"))
    pair = points[:, :2]
    checks.append(_against(a, (alpha, lam), dd.stable_root(pair[:, 0], pair[:, 1]), pair, 8, "stable_root"))
    kappa = _condition(a, (alpha, lam), pair)
    al_, la_ = pair[:, 0], pair[:, 1]
    a_ = dd.stable_root(al_, la_)
    B = 1.0 - al_ - la_
    root_D = np.sqrt(B * B + 4.0 * la_)
    cancellation = (a_ - 1.0) / a_ * (2.0 * (1.0 + al_ + la_) + root_D) / np.abs(B + root_D)
    checks.append(_against(a, (alpha, lam), dd.printed_root(al_, la_), pair, 8, "printed_root",
                           kappa=kappa + cancellation))
    return _symbolic_result(checks)


@claim("double_descent.symbolic_stieltjes", "Pezeshki (thesis), §4.2.3 and App. Eqs .2.33–.2.35 (Case 1 as "
       "random-matrix theory, derived in this project; Marchenko and Pastur 1967)",
       "sympy: g = 2/(λ + α − 1 + sqrt((λ + α − 1)² + 4λ)) solves the Marchenko–Pastur equation "
       "λg² + (λ + α − 1)g − 1 = 0; on that equation (λ = (1 − (α − 1)g)/(g(1 + g))), a = 1 + 1/g solves Eq 4.2.13's "
       "quadratic (the susceptibility is g), g′ = −(g² + g)/(2λg + λ + α − 1) is the implicit derivative, and "
       "R = T(1 − λg), Q = T(1 − 2λg − λ²g′) + σ²(g + λg′) equal the replica R = αT/a and "
       "Q = α(T + σ² − ((2 − a)/a)αT)/(a² − α) (residuals 0); at λ → 0, g → 1/(α − 1), R → T, Q → T + σ²/(α − 1) "
       "for α > 1 and R → αT, Q → αT + σ²α/(1 − α) for α < 1 (residuals 0). mp_stieltjes and "
       "stieltjes_order_parameters (R, Q) equal these at 30 digits at 1000 points (α in [1e-2, 1e2], λ in "
       "[1e-10, 1e4], T in [1e-2, 1e2], σ² in [1e-4, 1e2] or 0) within 8ε(1 + κ) (g's hypot, square root, sum and "
       "quotient, and the products and sums of R and Q: at most eight roundings on any path), κ taken from the "
       "replica forms (equal to these, and free of cancellation in float64) plus the cancellation of the library's "
       "algorithm: it forms 1 − λg and 1 − 2λg − λ²g′, which cancel for λ ≫ α (R ≈ αT/λ, Q ~ (α/λ)²), so κ gains "
       "λg/|1 − λg| for R and (T(1 + 2λg + |λ²g′|) + σ²λg/(λg + 1/g))/Q for Q; the Stieltjes forms are evaluated at "
       "60 digits (for α < 1 and small λ, g ~ (1 − α)/λ and g + λg′ loses 20 of them).", "identity")
def symbolic_stieltjes():
    alpha, lam, T, s2 = sp.symbols("alpha lambda T sigma2", **_POSITIVE)
    g, delta = sp.symbols("g delta", **_POSITIVE)
    b = lam + alpha - 1
    stieltjes = 2 / (b + sp.sqrt(b ** 2 + 4 * lam))
    quadratic = lam * g ** 2 + b * g - 1
    on_curve = {lam: (1 - (alpha - 1) * g) / (g * (1 + g))}
    g_prime = -(g ** 2 + g) / (2 * lam * g + lam + alpha - 1)
    a = 1 + 1 / g
    R_rmt = T * (1 - lam * g)
    Q_rmt = T * (1 - 2 * lam * g - lam ** 2 * g_prime) + s2 * (g + lam * g_prime)
    R_replica = alpha * T / a
    Q_replica = alpha / (a ** 2 - alpha) * (T + s2 - (2 - a) / a * alpha * T)
    checks = [residual_zero(sp.expand(sp.radsimp(quadratic.subs(g, stieltjes))), "g solves the MP equation"),
              residual_zero(quadratic.subs(on_curve), "λ on the MP curve"),
              residual_zero((a ** 2 - (1 + alpha + lam) * a + alpha).subs(on_curve), "a = 1 + 1/g"),
              residual_zero(g_prime + sp.diff(quadratic, lam) / sp.diff(quadratic, g), "g′ implicit"),
              residual_zero((R_rmt - R_replica).subs(on_curve), "R: Stieltjes = replica"),
              residual_zero((Q_rmt - Q_replica).subs(on_curve), "Q: Stieltjes = replica")]
    # λ → 0 along the MP curve: g → 1/(α − 1) for α = 1 + δ > 1, g → ∞ for α = 1/(1 + δ) < 1
    below = 1 / (1 + delta)
    for label, value, end, R0, Q0 in (("α > 1", 1 + delta, 1 / delta, T, T + s2 / delta),
                                      ("α < 1", below, sp.oo, below * T, below * T + s2 * below / (1 - below))):
        for what, expression, limit in (("λ", lam, 0), ("R", R_rmt, R0), ("Q", Q_rmt, Q0)):
            on = sp.cancel(expression.subs(on_curve).subs(alpha, value))  # a rational function of g
            checks.append(residual_zero((on.subs(g, end) if end is not sp.oo else sp.limit(on, g, sp.oo)) - limit,
                                        f"ridgeless, {label}: {what}"))
    checks.append(residual_zero(stieltjes.subs({alpha: 1 + delta, lam: 0}) - 1 / delta, "ridgeless, α > 1: g"))
    points = _case1_points()
    pair = points[:, :2]
    checks.append(_against(stieltjes, (alpha, lam), dd.mp_stieltjes(pair[:, 0], pair[:, 1]), pair, 8, "mp_stieltjes"))
    # The library writes R = T(1 − λg) and Q = T(1 − 2λg − λ²g′) + σ²(1 − λg)/(λg + 1/g): for λ ≫ α, λg → 1 and
    # these differences cancel (R ≈ αT/λ); the bound adds the cancellation factors of the algorithm to κ. κ itself
    # comes from the replica forms (equal, residuals 0 above, and free of cancellation in float64), and the Stieltjes
    # forms are evaluated at 60 digits (for α < 1 and small λ, g ~ (1 − α)/λ and g + λg′ loses 20 of them).
    al_, la_, t_, v_ = points.T
    g_ = dd.mp_stieltjes(al_, la_)
    lg, l2gp = la_ * g_, -la_ * g_ * (la_ * g_ + la_) / (la_ * g_ + 1.0 / g_)
    q_ = t_ * (1.0 - 2.0 * lg - l2gp) + v_ * (1.0 - lg) / (lg + 1.0 / g_)
    cancellation = {"R": lg / np.abs(1.0 - lg),
                    "Q": (t_ * (1.0 + 2.0 * lg + np.abs(l2gp)) + v_ * lg / (lg + 1.0 / g_)) / np.abs(q_)}
    _, _, _, _, root = _case1_symbols()
    replica = {"R": alpha * T / root, "Q": alpha / (root ** 2 - alpha) * (T + s2 - (2 - root) / root * alpha * T)}
    result = [dd.stieltjes_order_parameters(al, la, t, v) for al, la, t, v in points]
    symbols = (alpha, lam, T, s2)
    for name, expression in (("R", R_rmt), ("Q", Q_rmt)):
        kappa = _condition(replica[name], symbols, points) + cancellation[name]
        checks.append(_against(expression.subs(g, stieltjes), symbols, [float(getattr(o, name)) for o in result],
                               points, 8, f"stieltjes_order_parameters.{name}", kappa=kappa, digits=60))
    return _symbolic_result(checks)


def _bipartite_symbols():
    """n, d, p, σ_ε and the closed form of Eqs 4.2.14–4.2.16 (c_i with R_j) as a function of the roots a₁, a₂:
    the dict R1, R2, Q1, Q2, R, Q, L (noiseless test), L_noisy; and the same forms in the reciprocals w_i = 1/a_i
    (where a_i → ∞, a group not yet learning, is the substitution w_i = 0)."""
    n, d, p, sigma, a1, a2, w1, w2 = sp.symbols("n d p sigma a1 a2 w1 w2", **_POSITIVE)
    alpha = [n / p, n / (d - p)]
    w = [w1, w2]
    R = [n * w[i] / d for i in range(2)]
    b = [alpha[i] * w[i] ** 2 / (1 - alpha[i] * w[i] ** 2) for i in range(2)]  # α/(a² − α)
    c = [1 + sigma ** 2 - 2 * R[1 - i] - (2 * w[i] - 1) * n / d for i in range(2)]
    Q1 = (b[0] * b[1] * c[1] + b[0] * c[0]) / (1 - b[0] * b[1])
    Q2 = (b[0] * b[1] * c[0] + b[1] * c[1]) / (1 - b[0] * b[1])
    L = (1 - 2 * (R[0] + R[1]) + Q1 + Q2) / 2
    reciprocal = {"R1": R[0], "R2": R[1], "Q1": Q1, "Q2": Q2, "R": R[0] + R[1], "Q": Q1 + Q2,
                  "generalization_error": L, "noisy_generalization_error": L + sigma ** 2 / 2}
    roots = {w1: 1 / a1, w2: 1 / a2}
    forms = {name: form.subs(roots) for name, form in reciprocal.items()}
    b, c = ([e.subs(roots) for e in terms] for terms in (b, c))
    return (n, d, p, sigma, a1, a2), alpha, b, c, forms, (reciprocal, w1, w2)


_MP_ROOTS = {}


def _mp_stable_root(alpha, lam):
    """The larger root of Eq 4.2.13 at mpmath's working precision (factored discriminant: no cancellation); memoised,
    since a composed form evaluates the same root wherever a_i occurs."""
    key = (alpha, lam, mpmath.mp.prec)
    if key not in _MP_ROOTS:
        if len(_MP_ROOTS) > 100_000:
            _MP_ROOTS.clear()
        root_alpha = mpmath.sqrt(alpha)
        discriminant = ((1 - root_alpha) ** 2 + lam) * ((1 + root_alpha) ** 2 + lam)
        _MP_ROOTS[key] = (1 + alpha + lam + mpmath.sqrt(discriminant)) / 2
    return _MP_ROOTS[key]


def _float_root(alpha, lam):
    """The same root in float64 (for bounds only)."""
    root_alpha = np.sqrt(alpha)
    return 0.5 * (1.0 + alpha + lam + np.sqrt(((1.0 - root_alpha) ** 2 + lam) * ((1.0 + root_alpha) ** 2 + lam)))


@lru_cache(maxsize=1)
def _root_function():
    """The stable root as one sympy function that lambdify evaluates by :func:`_mp_stable_root`: composed forms stay
    small (each root a single node, not a tree repeated wherever a_i occurs)."""
    from sympy.utilities.lambdify import implemented_function

    return implemented_function("stable_root", _mp_stable_root)


def _compiled(name, expression, symbols):
    """``expression`` as one sympy function node of ``symbols`` that lambdify evaluates by the same expression
    compiled with common-subexpression elimination (a composed form then costs one evaluation of each part)."""
    from sympy.utilities.lambdify import implemented_function

    return implemented_function(name, sp.lambdify(list(symbols), expression, "mpmath", cse=True))(*symbols)


def _error_checks(forms, symbols, points, values, what, expressions=None, expression_symbols=None,
                  expression_points=None, names=("generalization_error", "noisy_generalization_error")):
    """The library's L_G = ½(1 − 2R + Q) (+ ½σ²) from its rounded R and Q: a first-order bound
    16ε(1 + κ_L) with κ_L = [(1 + 2R + Q)/2 + R(1 + κ_R) + Q(1 + κ_Q)/2 + σ²/2]/|L| (the rounding of the difference
    and the errors of R and Q carried into it; |L| at 30 digits, since L can be a small difference)."""
    expressions = forms if expressions is None else expressions
    expression_symbols = symbols if expression_symbols is None else expression_symbols
    expression_points = points if expression_points is None else expression_points
    reference = sp.lambdify(list(symbols), [forms["R"], forms["Q"]], "mpmath")
    with mpmath.workdps(30):
        pairs = [reference(*(mpmath.mpf(float(x)) for x in row)) for row in points]
        # L at 30 digits from R and Q at 30 digits (L can be a difference far below R and Q)
        exact_L = np.array([abs(float((1 - 2 * r + q) / 2)) for r, q in pairs])
    R_, Q_ = (np.array([abs(float(pair[i])) for pair in pairs]) for i in (0, 1))
    kappa_R, kappa_Q = (_condition(forms[name], symbols, points) for name in ("R", "Q"))
    sigma2 = points[:, symbols.index(sp.Symbol("sigma", positive=True))] ** 2
    checks = []
    for name in names:
        size = exact_L + (sigma2 / 2 if name == "noisy_generalization_error" else 0.0)
        kappa = ((1 + 2 * R_ + Q_) / 2 + R_ * (1 + kappa_R) + Q_ * (1 + kappa_Q) / 2 + sigma2 / 2) / size
        checks.append(_against(expressions[name], expression_symbols, values[name], expression_points, 16,
                               f"{what}.{name}", kappa=kappa))
    return checks


def _size_columns(shared):
    """Integer n > d >= 2 and 1 <= p <= d − 1 from spread columns (d, n/d, p/d)."""
    d = np.maximum(np.rint(shared[:, 0]), 2.0)
    n = np.maximum(np.rint(d * shared[:, 1]), d + 1.0)
    p = np.clip(np.rint(d * shared[:, 2]), 1.0, d - 1.0)
    return n, d, p


@claim("double_descent.symbolic_bipartite_closed_form", "Pezeshki (thesis), Eqs 4.2.11–4.2.16, App. Eqs "
       ".2.37–.2.41 (c_i with the other group's R_j, as corrected)",
       "sympy: treating group i as Case 1 with teacher power T_i = p_i/d, α_i = n/p_i and G_i = 1 + σ² + Q_j − 2R_j "
       "(the other group's unlearnt signal as noise, .2.37–.2.38), the replica forms R = α_iT_i/a_i and "
       "Q = α_i(G_i − ((2 − a_i)/a_i)α_iT_i)/(a_i² − α_i) are R_i = n/(a_i d) and Q_i = b_i(c_i + Q_j) with "
       "b_i = α_i/(a_i² − α_i), c_i = 1 + σ² − 2R_j − ((2 − a_i)/a_i)(n/d) (Eqs 4.2.14–4.2.16), and the printed "
       "Q₁ = (b₁b₂c₂ + b₁c₁)/(1 − b₁b₂), Q₂ = (b₁b₂c₁ + b₂c₂)/(1 − b₁b₂) solve that coupled system (residuals 0); "
       "the printed c_i = 1 − 2R_i − ((2 − a_i)/a_i)(n/d), with the group's own R_i, leaves a nonzero residual "
       "against Case 1 (relative miss 1/3 at n = 4, d = 2, p = 1, σ = 0, a₁ = 4, a₂ = 8, Q₂ = 0). "
       "bipartite_from_roots (Q1, Q2, both generalisation errors) and bipartite_theory (Q and L_G on the map "
       "λ̃_i = (d/p_i)(λ + 1/(ηk))/σ_i², σ₁ = 1, σ₂ = 1/κ, a_i the stable root) equal these at 30 digits at 1000 "
       "points each (d in [2, 1e4], n/d in [1.01, 10], p/d in [0.01, 0.99], σ_ε in [1e-3, 3] or 0, a_i/max(1, α_i) "
       "− 1 in [1e-10, 1e6]; k in [1e-2, 1e8], λ in [1e-8, 10] or 0, η in [1e-2, 1], κ in [1, 1e3]) within "
       "16ε(1 + κ_f) (κ_f the condition number over a_i, σ and n, d, p as reals, for bipartite_theory at its roots, "
       "whose own condition number is <= 1; the ratios, b_i, c_i, the coupling and the quotients: at most sixteen "
       "roundings on any path); L_G = ½(1 − 2R + Q) is formed from the rounded R and Q and can be a small "
       "difference (k → ∞), so its κ_f is [(1 + 2R + Q)/2 + R(1 + κ_R) + Q(1 + κ_Q)/2 + σ²/2]/|L_G|, |L_G| at 30 "
       "digits.", "identity")
def symbolic_bipartite_closed_form():
    symbols, alpha, b, c, forms, _ = _bipartite_symbols()
    n, d, p, sigma, a1, a2 = symbols
    A, T, G, al, Q1, Q2 = sp.symbols("A T G alpha Q1 Q2", **_POSITIVE)
    R_case1, Q_case1 = al * T / A, al / (A ** 2 - al) * (G - (2 - A) / A * al * T)
    R = [forms["R1"], forms["R2"]]
    Qs, Qj = [forms["Q1"], forms["Q2"]], [Q2, Q1]
    checks = []
    for i, (a_i, T_i) in enumerate(((a1, p / d), (a2, (d - p) / d))):
        group = {A: a_i, T: T_i, al: alpha[i], G: 1 + sigma ** 2 + Qj[i] - 2 * R[1 - i]}
        checks += [residual_zero(R_case1.subs(group) - R[i], f"R_{i + 1} from Case 1"),
                   residual_zero(Q_case1.subs(group) - b[i] * (c[i] + Qj[i]), f"Q_{i + 1} from Case 1"),
                   residual_zero(Qs[i] - b[i] * (c[i] + Qs[1 - i]), f"Q_{i + 1} solves the system")]
    group = {A: a1, T: p / d, al: alpha[0], G: 1 + sigma ** 2 + Q2 - 2 * R[1]}
    printed_c = 1 - 2 * R[0] - (2 - a1) / a1 * n / d  # Eq 4.2.16 as printed: the group's own R_1, no σ²
    checks.append(printed_misses(Q_case1.subs(group) - b[0] * (printed_c + Q2), Q_case1.subs(group),
                                 {n: 4, d: 2, p: 1, sigma: 0, a1: 4, a2: 8, Q2: 0}, "Eq 4.2.16's printed c_1"))
    # bipartite_from_roots: 50 blocks of sizes and noise, 20 pairs of roots each
    shared, varying = _blocks([(2.0, 1e4, "log"), (1.01, 10.0, "log"), (0.01, 0.99, "linear"), (1e-3, 3.0, "log")],
                              [(1e-10, 1e6, "log"), (1e-10, 1e6, "log")])
    n_, d_, p_ = _size_columns(shared)
    sigma_ = np.where(np.repeat(np.arange(50) % 4 == 0, 20), 0.0, shared[:, 3])
    a1_ = np.maximum(1.0, n_ / p_) * (1.0 + varying[:, 0])
    a2_ = np.maximum(1.0, n_ / (d_ - p_)) * (1.0 + varying[:, 1])
    points = np.column_stack([n_, d_, p_, sigma_, a1_, a2_])
    results = [dd.bipartite_from_roots(block[:, 4], block[:, 5], int(block[0, 0]), int(block[0, 1]),
                                       int(block[0, 2]), block[0, 3]) for block in points.reshape(50, 20, 6)]
    values = {name: np.concatenate([getattr(r, name) for r in results]) for name in forms}
    for name in ("Q1", "Q2"):  # R = Σ n/(a_i d) enters both generalisation errors below
        checks.append(_against(forms[name], symbols, values[name], points, 16, f"bipartite_from_roots.{name}"))
    checks += _error_checks(forms, symbols, points, values, "bipartite_from_roots")
    # bipartite_theory: 50 blocks of (sizes, κ, σ, η), 20 (k, λ) each; the roots enter the mpmath evaluation as one
    # function (the stable root at the working precision), and the bound is the from-roots one at the roots (the
    # root itself has condition number <= 1 in α and λ̃: symbolic_replica_saddle_point)
    k, lam, eta, kappa = sp.symbols("k lambda eta kappa", **_POSITIVE)
    shared, varying = _blocks([(2.0, 1e4, "log"), (1.01, 10.0, "log"), (0.01, 0.99, "linear"), (1e-3, 3.0, "log"),
                               (1.0, 1e3, "log"), (1e-2, 1.0, "log")], [(1e-2, 1e8, "log"), (1e-8, 10.0, "log")])
    n_, d_, p_ = _size_columns(shared)
    sigma_ = np.where(np.repeat(np.arange(50) % 4 == 0, 20), 0.0, shared[:, 3])
    lam_ = np.where(np.arange(SYMBOLIC_POINTS) % 4 == 0, 0.0, varying[:, 1])
    points = np.column_stack([varying[:, 0], lam_, shared[:, 5], shared[:, 4], n_, d_, p_, sigma_])
    decay = lam + 1 / (eta * k)
    root = _root_function()
    roots = [root(alpha[0], d / p * decay), root(alpha[1], d / (d - p) * decay * kappa ** 2)]
    theory_symbols = (k, lam, eta, kappa, n, d, p, sigma)
    results = [dd.bipartite_theory(block[:, 0], dd.TeacherStudentProblem(int(block[0, 4]), int(block[0, 5]),
                                                                         int(block[0, 6]), block[0, 3],
                                                                         noise_std=block[0, 7]),
                                   weight_decay=block[:, 1], learning_rate=block[0, 2])
               for block in points.reshape(50, 20, 8)]
    values = {name: np.concatenate([getattr(r, name) for r in results]) for name in ("Q", "generalization_error")}
    decay_ = points[:, 1] + 1.0 / (points[:, 2] * points[:, 0])
    at_roots = np.column_stack([n_, d_, p_, sigma_, _float_root(n_ / p_, d_ / p_ * decay_),
                                _float_root(n_ / (d_ - p_), d_ / (d_ - p_) * decay_ * points[:, 3] ** 2)])
    composed = {name: _compiled(f"bipartite_{name}", forms[name], symbols).subs({a1: roots[0], a2: roots[1]})
                for name in ("Q", "generalization_error")}
    checks.append(_against(composed["Q"], theory_symbols, values["Q"], points, 16, "bipartite_theory.Q",
                           kappa=_condition(forms["Q"], symbols, at_roots)))
    checks += _error_checks(forms, symbols, at_roots, values, "bipartite_theory", composed, theory_symbols, points,
                            ("generalization_error",))
    return _symbolic_result(checks)


@claim("double_descent.symbolic_phase_points", "Pezeshki (thesis), Fig 4.4 (points A, B, C), Eqs 4.2.11–4.2.16, "
       "App. Eqs .2.33–.2.35 (the closed forms derived in this project)",
       "sympy: from the bipartite closed form, C is its limit a_i → α_i (k → ∞, λ = 0): R = 1, "
       "Q = 1 + σ²d/(n − d); B its limit a₂ → ∞ (slow group frozen) with a₁ = α₁: R = p/d, "
       "Q = p/d + (1 − p/d + σ²)p/(n − p); with the slow group frozen, the fast group is Case 1 with T = p/d and noise "
       "1 − p/d + σ², and at the weight decay λ̃₁* = (1 − p/d + σ²)/(p/d) its R and Q are equal and "
       "L_G = ½(1 − 2R + Q) is stationary in λ̃₁ (dL/da = 0, a the root, λ̃ = (a − 1)(a − α₁)/a), so "
       "L_A = ½(1 − R_A); the library's Q_A = α₁(1 + σ² − (2/a − 1)n/d)/(a² − α₁) is the bipartite Q at (a, ∞) "
       "(residuals 0). phase_points (A: R, Q, L_G, λ_eff* = 1 − p/d + σ², λ̃₁*; B: Q, L_G; C: Q, L_G) equals these "
       "at 30 digits at 1000 points (d in [2, 1e4], n/d in [1.01, 10], p/d in [0.01, 0.99], σ_ε in [1e-4, 3] or 0) "
       "within 16ε(1 + κ) (the ratios, the root, b·c: at most sixteen roundings on any path); L_C is computed as "
       "½(Q_C − 1), whose cancellation (Q_C + 1)/(Q_C − 1) the bound adds to κ.", "identity")
def symbolic_phase_points():
    symbols, alpha, b, c, forms, (reciprocal, w1, w2) = _bipartite_symbols()
    n, d, p, sigma, a1, a2 = symbols
    P, s2 = p / d, sigma ** 2
    R_C, Q_C = sp.Integer(1), 1 + s2 * d / (n - d)
    R_B, Q_B = P, P + (1 - P + s2) * p / (n - p)
    frozen = {w1: 1 / alpha[0], w2: 0}  # a₁ = α₁, a₂ → ∞
    checks = [residual_zero(forms["R"].subs({a1: alpha[0], a2: alpha[1]}) - R_C, "C: R"),
              residual_zero(forms["Q"].subs({a1: alpha[0], a2: alpha[1]}) - Q_C, "C: Q"),
              residual_zero(reciprocal["R"].subs(frozen) - R_B, "B: R"),
              residual_zero(reciprocal["Q"].subs(frozen) - Q_B, "B: Q")]
    # A: group 1 as Case 1 with the slow group frozen (G = 1 + σ², T = P), parametrised by its root a
    A = sp.Symbol("A", positive=True)
    lam_of_root = (A - 1) * (A - alpha[0]) / A
    R_A = alpha[0] * P / A
    Q_A = alpha[0] / (A ** 2 - alpha[0]) * (1 + s2 - (2 - A) / A * alpha[0] * P)
    L_A = (1 - 2 * R_A + Q_A) / 2
    optimum = {s2: P * lam_of_root - (1 - P)}  # λ̃₁ = (1 − P + σ²)/P solved for σ²
    checks += [residual_zero((R_A - Q_A).subs(optimum), "A: R = Q at λ̃₁*"),
               residual_zero(sp.diff(L_A, A).subs(optimum), "A: dL/da = 0 at λ̃₁*"),
               residual_zero(reciprocal["Q"].subs({w1: 1 / A, w2: 0}) - Q_A, "A: Q is the bipartite Q at (a, ∞)")]
    shared = spread([(2.0, 1e4, "log"), (1.01, 10.0, "log"), (0.01, 0.99, "linear"), (1e-4, 3.0, "log")],
                    SYMBOLIC_POINTS)
    n_, d_, p_ = _size_columns(shared)
    sigma_ = np.where(np.arange(SYMBOLIC_POINTS) % 4 == 0, 0.0, shared[:, 3])
    points = np.column_stack([n_, d_, p_, sigma_])
    size_symbols = (n, d, p, sigma)
    lam_star = (1 - P + s2) / P
    a_star = _case1_symbols()[4].subs({sp.Symbol("alpha", positive=True): alpha[0],
                                       sp.Symbol("lambda", positive=True): lam_star})
    fields = {"A.R": R_A.subs(A, a_star), "A.Q": Q_A.subs(A, a_star),
              "A.generalization_error": (1 - R_A.subs(A, a_star)) / 2,
              "A.effective_weight_decay": 1 - P + s2, "A.rescaled_weight_decay": lam_star,
              "B.Q": Q_B, "B.generalization_error": (1 - 2 * R_B + Q_B) / 2,
              "C.Q": Q_C, "C.generalization_error": (1 - 2 * R_C + Q_C) / 2}
    results = [dd.phase_points(int(n0), int(d0), int(p0), s0) for n0, d0, p0, s0 in points]
    for name, expression in fields.items():
        point, field = name.split(".")
        values = np.array([float(getattr(getattr(r, point), field)) for r in results])
        kappa = _condition(expression, size_symbols, points)
        if name == "C.generalization_error":  # the library's ½(Q_C − 1)
            q_c = 1.0 + sigma_ ** 2 * d_ / (n_ - d_)
            kappa = kappa + np.where(sigma_ > 0, (q_c + 1.0) / np.where(sigma_ > 0, q_c - 1.0, 1.0), 0.0)
        checks.append(_against(expression, size_symbols, values, points, 16, f"phase_points.{name}", kappa=kappa))
    return _symbolic_result(checks)


def _oracle_symbols():
    """The deterministic-equivalent ridge forms of the oracle as functions of the effective regularisation k:
    (k, n, d, p, κ, σ), the weight decay λ(k) that the balance k − λ/n = (k/n)Σ p_i u_i solves for, and the dict
    R, Q, R1, Q1, L (u_i = s_i/(s_i + k), s₁ = 1/d, s₂ = 1/(κ²d))."""
    k, n, d, p, kappa, sigma = sp.symbols("k n d p kappa sigma", **_POSITIVE)
    sizes, s = (p, d - p), (1 / d, 1 / (kappa ** 2 * d))
    u = [s[i] / (s[i] + k) for i in range(2)]
    v = [1 - x for x in u]
    weight_decay = n * k - k * (sizes[0] * u[0] + sizes[1] * u[1])
    R = [sizes[i] / d * u[i] for i in range(2)]
    df2 = sizes[0] * u[0] ** 2 + sizes[1] * u[1] ** 2
    bias = sizes[0] / d * v[0] ** 2 + sizes[1] / d * v[1] ** 2
    E = [sizes[i] / d * v[i] ** 2 + (bias + sigma ** 2) / (n - df2) * sizes[i] * u[i] ** 2 for i in range(2)]
    Q = [E[i] - sizes[i] / d + 2 * R[i] for i in range(2)]
    forms = {"R": R[0] + R[1], "Q": Q[0] + Q[1], "R1": R[0], "Q1": Q[0],
             "generalization_error": (E[0] + E[1]) / 2}
    parts = {"E_fast": E[0], "E_slow": E[1], "u1": u[0], "u2": u[1], "v1": v[0], "v2": v[1], "R2": R[1]}
    return (k, n, d, p, kappa, sigma), weight_decay, forms, parts


@claim("double_descent.symbolic_ridge_oracle", "Pezeshki (thesis), §4.2.3 and App. Eqs .2.33–.2.35; the oracle is "
       "derived in this project from the deterministic equivalents of Dobriban and Wager 2018 and Hastie et al. 2022",
       "sympy: with the balance equation k − λ/n = (k/n)Σ_i p_i s_i/(s_i + k) solved for λ(k), at κ = 1 "
       "g = (1 − R)/λ solves the Marchenko–Pastur equation λg² + (λ + n/d − 1)g − 1 = 0 and the oracle's R, Q are "
       "the Stieltjes forms T(1 − λg), T(1 − 2λg − λ²g′) + σ²(g + λg′) with T = 1 (Case 1 exactly); as k → 0 "
       "(λ → 0, n > d) R → 1, Q → 1 + σ²d/(n − d) (point C) and as κ → ∞ then k → 0, R → p/d, "
       "Q → p/d + (1 − p/d + σ²)p/(n − p) (point B); L_G = ½Σ E_i = ½(1 − 2R + Q) (residuals 0). ridge_oracle "
       "(R, Q, R1, Q1, L_G) equals the forms at 30 digits at 1000 points parametrised by k (d·k in [1e-6, 1e6] for "
       "n > d, k/k₀ − 1 in [1e-6, 1e6] above the ridgeless root k₀ for n < d; d in [2, 1e4], n/d in [0.2, 10], "
       "p/d in [0.01, 0.99], κ in [1, 1e3], σ_ε in [1e-3, 3] or 0; the library gets λ(k) rounded to float64) within "
       "32ε(1 + κ_f) (at most 32 roundings on any path, the bisection and Newton polish of k included), κ_f the "
       "condition number at fixed λ over λ, κ, σ and n, d, p as reals (implicit differentiation through the "
       "balance) plus the cancellations of the library's algorithm: v_i = 1 − u_i (ε·u/v, for k ≪ s_i), "
       "Q_i = E_i − p_i/d + 2R_i ((E_i + p_i/d + 2R_i)/Q_i, for k ≫ s_i) and L_G = ½(1 − 2R + Q) from the rounded "
       "R and Q (as in symbolic_bipartite_closed_form).", "identity")
def symbolic_ridge_oracle():
    symbols, weight_decay, forms, parts = _oracle_symbols()
    k, n, d, p, kappa, sigma = symbols
    lam, g = sp.symbols("lambda g", **_POSITIVE)
    at_one = {kappa: 1}
    R1, Q1, lam1 = (e.subs(at_one) for e in (forms["R"], forms["Q"], weight_decay))
    g1 = (1 - R1) / lam1
    g_prime = -(g ** 2 + g) / (2 * lam * g + lam + n / d - 1)
    Q_rmt = 1 - 2 * lam * g - lam ** 2 * g_prime + sigma ** 2 * (g + lam * g_prime)
    checks = [residual_zero((lam * g ** 2 + (lam + n / d - 1) * g - 1).subs(g, g1).subs(lam, lam1),
                            "κ = 1: MP equation"),
              residual_zero(Q_rmt.subs(g, g1).subs(lam, lam1) - Q1, "κ = 1: Q = Stieltjes Q"),
              residual_zero(forms["R"].subs(k, 0) - 1, "k → 0: R = 1"),
              residual_zero(forms["Q"].subs(k, 0) - (1 + sigma ** 2 * d / (n - d)), "k → 0: Q (point C)"),
              residual_zero(sp.limit(weight_decay / k, k, 0) - (n - d), "λ ~ (n − d)k as k → 0"),
              residual_zero(2 * forms["generalization_error"] - (1 - 2 * forms["R"] + forms["Q"]), "L_G")]
    slow = sp.Symbol("c", nonnegative=True)  # 1/κ², → 0
    frozen = {name: forms[name].subs(kappa, 1 / sp.sqrt(slow)).subs(slow, 0).subs(k, 0) for name in ("R", "Q")}
    P = p / d
    checks += [residual_zero(frozen["R"] - P, "κ → ∞, k → 0: R (point B)"),
               residual_zero(frozen["Q"] - (P + (1 - P + sigma ** 2) * p / (n - p)), "κ → ∞, k → 0: Q (point B)")]
    # points: 50 blocks of (sizes, κ, σ), 20 values of dk each (one library call per block, vectorised in λ)
    shared, varying = _blocks([(2.0, 1e4, "log"), (0.2, 10.0, "log"), (0.01, 0.99, "linear"), (1.0, 1e3, "log"),
                               (1e-3, 3.0, "log")], [(1e-6, 1e6, "log")])
    d_ = np.maximum(np.rint(shared[:, 0]), 2.0)
    n_ = np.maximum(np.rint(d_ * shared[:, 1]), 1.0)
    n_ = np.where(n_ == d_, d_ + 1.0, n_)
    p_ = np.clip(np.rint(d_ * shared[:, 2]), 1.0, d_ - 1.0)
    sigma_ = np.where(np.repeat(np.arange(50) % 4 == 0, 20), 0.0, shared[:, 4])
    # k ranges from the ridgeless root k₀ up (λ(k) > 0 needs Σ p_i u_i < n): k₀ = 0 for n > d, else the root of
    # Σ p_i s_i/(s_i + k) = n (Brent, in log k); k = k₀ + t/d with t in [1e-6, 1e6] (k₀(1 + t) when k₀ > 0)
    k0 = np.zeros(SYMBOLIC_POINTS)
    for i in range(0, SYMBOLIC_POINTS, 20):
        if n_[i] < d_[i]:
            s_ = np.array([1.0, shared[i, 3] ** -2]) / d_[i]
            fill = np.array([p_[i], d_[i] - p_[i]])
            k0[i:i + 20] = math.exp(optimize.brentq(lambda t: np.sum(fill * s_ / (s_ + math.exp(t))) - n_[i],
                                                    -800.0, 50.0, xtol=1e-14))
    k_ = np.where(k0 > 0, k0 * (1.0 + varying[:, 0]), varying[:, 0] / d_)
    points = np.column_stack([k_, n_, d_, p_, shared[:, 3], sigma_])
    lam_ = _mp_values(weight_decay, symbols, points)
    results = [dd.ridge_oracle(lam_[i:i + 20], int(n_[i]), int(d_[i]), int(p_[i]), shared[i, 3], noise_std=sigma_[i])
               for i in range(0, SYMBOLIC_POINTS, 20)]
    values = {name: np.concatenate([getattr(r, name) for r in results])
              for name in ("R", "Q", "R1", "Q1", "generalization_error")}
    # Exact sizes at 30 digits (the library's Q_i = E_i − p_i/d + 2R_i and v_i = 1 − u_i cancel: Q_i ~ u_i² for
    # large k, v_i ~ k/s_i for small k), for the bound's denominators and its cancellation terms.
    names = ("R", "Q", "R1", "Q1", "generalization_error")
    exact = sp.lambdify(list(symbols), [forms[m] for m in names] + [parts[m] for m in ("E_fast", "E_slow", "u1",
                                                                                      "u2", "v1", "v2", "R2")],
                        "mpmath", cse=True)
    with mpmath.workdps(30):
        table = np.array([[abs(float(x)) for x in exact(*(mpmath.mpf(float(c)) for c in row))] for row in points])
    size = dict(zip(names, table[:, :5].T))
    e_fast, e_slow, u1, u2, v1, v2, R2 = table[:, 5:].T
    # v = 1 − u carries ε·u/v; E_i's bias part ~ v², so E_i and L_G carry 2ε·max(u/v)
    lost = 2.0 * np.maximum(u1 / v1, u2 / v2)
    p_fast = points[:, 3] / points[:, 2]
    algorithm = {"R": 0.0, "R1": 0.0, "Q1": ((e_fast + p_fast + 2 * size["R1"]) + e_fast * lost) / size["Q1"],
                 "Q": ((e_fast + e_slow + 1.0 + 2 * size["R"]) + (e_fast + e_slow) * lost) / size["Q"]}
    kappas = {}
    # condition at fixed λ: ∂/∂x|_λ = ∂/∂x − (∂f/∂k)(∂λ/∂x)/(∂λ/∂k), and λ's own share (∂f/∂k)/(∂λ/∂k)·λ
    dlam_dk = sp.diff(weight_decay, k)
    for name in names:
        f = forms[name]
        df_dk = sp.diff(f, k)
        terms = [sp.diff(f, x) - df_dk * sp.diff(weight_decay, x) / dlam_dk for x in symbols[1:]]
        terms = [t * x for t, x in zip(terms, symbols[1:])] + [df_dk / dlam_dk * weight_decay]
        fast = sp.lambdify(list(symbols), terms, "numpy", cse=True)
        with np.errstate(all="ignore"):
            sensitivity = sum(np.abs(np.broadcast_to(np.asarray(t, dtype=float), (SYMBOLIC_POINTS,)))
                              for t in fast(*points.T))
            kappa_f = np.where(size[name] == 0, 0.0, sensitivity / size[name])
        if name == "generalization_error":  # the library's ½(1 − 2R + Q) from its rounded R and Q
            kappa_f = kappa_f + (size["R"] * (1 + kappas["R"]) + size["Q"] * (1 + kappas["Q"]) / 2
                                 + (1 + 2 * size["R"] + size["Q"]) / 2) / size[name]
        else:
            kappa_f = kappa_f + algorithm[name]
        kappas[name] = kappa_f
        checks.append(_against(f, symbols, values[name], points, 32, f"ridge_oracle.{name}", kappa=kappa_f))
    return _symbolic_result(checks)


# Plausible slips in the closed forms that the symbolic claims catch.
planted_bug("double_descent: point B's Q_B over n − d instead of n − p", "dynamics/double_descent/_bipartite.py",
            "Q_B = P + (1.0 - P + s2) * p / (n - p)", "Q_B = P + (1.0 - P + s2) * p / (n - d)",
            ("double_descent.symbolic_phase_points",))
planted_bug("double_descent: c_i's ((2 − a)/a)(n/d) term with the wrong sign", "dynamics/double_descent/_bipartite.py",
            "c = 1.0 + noise_std * noise_std - 2.0 * overlap - (2.0 / a - 1.0) * (n / d)",
            "c = 1.0 + noise_std * noise_std - 2.0 * overlap + (2.0 / a - 1.0) * (n / d)",
            ("double_descent.symbolic_bipartite_closed_form",))
planted_bug("double_descent: Stieltjes Q's noise term g + λg′ with 1 + λg", "dynamics/double_descent/_replica.py",
            "noise_var * (1.0 - lam_g) / denominator", "noise_var * (1.0 + lam_g) / denominator",
            ("double_descent.symbolic_stieltjes",))
planted_bug("double_descent: ridge oracle Q_i = E_i + p_i/d − 2R_i (signs swapped)",
            "dynamics/double_descent/_ridge_oracle.py", "Q = E - share + 2.0 * R", "Q = E + share - 2.0 * R",
            ("double_descent.symbolic_ridge_oracle",))
planted_bug("double_descent: spectral filter's output penalty (1 + 2a)s instead of (1 + a)s",
            "dynamics/double_descent/_kernels.py", "rate = (1.0 + penalty) * s[b, j] + ridge",
            "rate = (1.0 + 2.0 * penalty) * s[b, j] + ridge", ("double_descent.symbolic_spectral_filter",))
planted_bug("double_descent: generalization error ½(T − R + Q) instead of ½(T − 2R + Q)",
            "dynamics/double_descent/_order_parameters.py", "error = 0.5 * (teacher_power - 2.0 * R + Q)",
            "error = 0.5 * (teacher_power - R + Q)", ("double_descent.symbolic_generalization_error",))
planted_bug("double_descent: effective weight decay 1/(ηk) without the explicit λ",
            "dynamics/double_descent/_bipartite.py",
            "return weight_decay + _inverse_steps(steps, learning_rate)", "return _inverse_steps(steps, learning_rate)",
            ("double_descent.symbolic_time_limits",))
planted_bug("double_descent: replica susceptibility 1/a instead of 1/(a − 1)", "dynamics/double_descent/_replica.py",
            "susceptibility = 1.0 / a_minus_one", "susceptibility = 1.0 / a",
            ("double_descent.symbolic_replica_saddle_point",))

# The same kind of slips in the symbolic statements: each claim fails with its slip, so that the statement and the
# library are independent routes (the snippets are split in two literals here, so that each occurs once in this file).
planted_bug("double_descent: symbolic statement: L_G = ½(T − R + Q)", "verify/double_descent.py",
            "error = (T - 2 * R " "+ Q) / 2", "error = (T - R " "+ Q) / 2",
            ("double_descent.symbolic_generalization_error",))
planted_bug("double_descent: symbolic statement: GD filter exponent k + 1", "verify/double_descent.py",
            "gd = (1 - (1 - eta * r) ** k) " "/ r", "gd = (1 - (1 - eta * r) ** (k + 1)) " "/ r",
            ("double_descent.symbolic_spectral_filter",))
planted_bug("double_descent: symbolic statement: ridge map at 1/(2ηk)", "verify/double_descent.py",
            "ridge = 1 / (r + 1 / (eta " "* k))", "ridge = 1 / (r + 1 / (2 * eta " "* k))",
            ("double_descent.symbolic_time_limits",))
planted_bug("double_descent: symbolic statement: saddle point R = T/a", "verify/double_descent.py",
            "saddle = {R: alpha " "* T / A,", "saddle = {R: T " "/ A,",
            ("double_descent.symbolic_replica_saddle_point",))
planted_bug("double_descent: symbolic statement: Stieltjes R = T(1 − 2λg)", "verify/double_descent.py",
            "R_rmt = T * (1 - lam " "* g)", "R_rmt = T * (1 - 2 * lam " "* g)", ("double_descent.symbolic_stieltjes",))
planted_bug("double_descent: symbolic statement: b_i = α_i w_i/(1 − α_i w_i²)", "verify/double_descent.py",
            "b = [alpha[i] * w[i] ** 2 " "/ (1 - alpha[i] * w[i] ** 2)",
            "b = [alpha[i] * w[i] " "/ (1 - alpha[i] * w[i] ** 2)",
            ("double_descent.symbolic_bipartite_closed_form",))
planted_bug("double_descent: symbolic statement: point C's Q over n − p", "verify/double_descent.py",
            "R_C, Q_C = sp.Integer(1), 1 + s2 * d / (n " "- d)", "R_C, Q_C = sp.Integer(1), 1 + s2 * d / (n " "- p)",
            ("double_descent.symbolic_phase_points",))
planted_bug("double_descent: symbolic statement: ridge oracle Q_i = E_i − p_i/d − 2R_i", "verify/double_descent.py",
            "Q = [E[i] - sizes[i] / d + 2 " "* R[i] for i in range(2)]",
            "Q = [E[i] - sizes[i] / d - 2 " "* R[i] for i in range(2)]",
            ("double_descent.symbolic_ridge_oracle",))
