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
