"""Claims of the numerics core: integrator orders and accuracy (explicit and stiff), dense output, small
linear algebra, Lambert W, special functions, Marchenko–Pastur quadrature. References are independent
routes: closed forms, SciPy, mpmath, LAPACK."""
import math

import numba as nb
import numpy as np

from dynamics import numerics as nx
from dynamics.numerics import reference_problems as rp
from .registry import Check, claim, lazy_module, planted_bug

mpmath = lazy_module("mpmath")
integrate = lazy_module("scipy.integrate")
special = lazy_module("scipy.special")
stats = lazy_module("scipy.stats")

HNW = "Hairer et al. 1993"
SR97 = "Shampine & Reichelt 1997"
LAMBERT = "Pezeshki et al. 2021, Eqs 12–13 (the Lambert W of the fixed points)"

# Step counts over [0, 10] for which the fixed-step error on the logistic reference problem is in the
# asymptotic regime and far above round-off.
_LADDERS = {"dopri5": [40, 48, 56, 68, 80, 96], "dop853": [10, 12, 14, 17, 20, 24], "rk4": [40, 48, 56, 68, 80, 96],
            "rosenbrock23": [80, 120, 160, 240, 320, 480]}
# The order is a rate check (Check.rate): the log-log slope of the error against the step h = 10/N over the ladder,
# held to Student's t at 1e-3 times its standard error plus a slack of 0.1 for the next term of the error expansion,
# C'h^(p+1), which tilts the slope of these ladders by up to about 0.1 (measured: dopri5 4.92, rk4 3.88, every other
# within 0.05 of its order). A rate check's band widens with the scatter of the ladder about its line, so the fit's
# standard error is held too: in the asymptotic regime the log errors of a deterministic method lie on a line (measured
# standard errors <= 0.03), while a broken method's errors scatter (a wrong stage weight gives 0.1 to 0.9) and would
# otherwise be passed by the band they widen.
_PRE_ASYMPTOTIC_SLACK = 0.1
_ASYMPTOTIC_SCATTER = 0.05


def _order_check(steps, errors, order, label):
    rate = Check.rate(steps, errors, order, slack=_PRE_ASYMPTOTIC_SLACK, detail=label)
    scatter = rate.rates[0].standard_error
    return Check.all_of([rate, Check.at_most(scatter, _ASYMPTOTIC_SCATTER,
                                             f"{label}: standard error of the slope (the ladder lies on a line)")],
                        rate.detail)


def _order_claim(method, order):
    steps, errors = rp.fixed_step_errors(method, _LADDERS[method])
    return _order_check(steps, errors, order, f"{method}: global error {errors[0]:.1e}..{errors[-1]:.1e} against h")


def _ladder_text(method):
    counts = _LADDERS[method]
    return f"N = {counts[0]}..{counts[-1]} steps over [0, 10] ({len(counts)} step sizes)"


@claim("numerics.dopri5_order", f"{HNW}, §II.5 (Dormand–Prince 5(4))",
       "With fixed steps, the dopri5 error on the logistic equation falls as h^5: over " + _ladder_text("dopri5") +
       ", the log-log slope of the maximum global error against h is 5 within Student's t (level 1e-3) times its "
       "standard error plus 0.1 for the next term of the error expansion (rate check), and that standard error is "
       "at most 0.05 (the ladder lies on a line, as in the asymptotic regime).", "limit")
def dopri5_order():
    return _order_claim("dopri5", 5)


@claim("numerics.dop853_order", f"{HNW}, §II.10 (DOP853)",
       "With fixed steps, the dop853 error on the logistic equation falls as h^8: over " + _ladder_text("dop853") +
       ", the log-log slope of the maximum global error against h is 8 within t·se plus 0.1 (rate check; se <= "
       "0.05).", "limit")
def dop853_order():
    return _order_claim("dop853", 8)


@claim("numerics.rk4_order", f"{HNW}, §II.1 (classical Runge–Kutta)",
       "The fixed-step rk4 error on the logistic equation falls as h^4: over " + _ladder_text("rk4") + ", the "
       "log-log slope of the maximum global error against h is 4 within t·se plus 0.1 (rate check; se <= 0.05).",
       "limit")
def rk4_order():
    return _order_claim("rk4", 4)


@claim("numerics.rosenbrock23_order", f"{SR97}, Sec. 2 (the modified Rosenbrock pair of ode23s)",
       "With fixed steps, the rosenbrock23 error on the logistic equation falls as h^2: over " +
       _ladder_text("rosenbrock23") + ", the log-log slope of the maximum global error against h is 2 within t·se "
       "plus 0.1 (rate check; se <= 0.05); the finite-difference Jacobian and time derivative do not lower it.", "limit")
def rosenbrock23_order():
    return _order_claim("rosenbrock23", 2)


@nb.njit(cache=True)
def _stiff_rhs(t, y, params):
    """y' = -k (y - cos t), k = params[0]: stiff for large k."""
    return -params[0] * (y - np.cos(t))


@nb.njit(cache=True)
def _stiff_jacobian(t, y, params):
    return np.full((1, 1), -params[0])


def _stiff_exact(t, k):
    """The exact solution from y(0) = 0: (k² cos t + k sin t − k² e^{−kt})/(k² + 1)."""
    return (k * k * np.cos(t) + k * np.sin(t) - k * k * np.exp(-k * t)) / (k * k + 1.0)


@claim("numerics.rosenbrock23_stiff", f"{SR97}, Sec. 2 (stiff problems; the modified Rosenbrock pair of ode23s)",
       "On the stiff y' = -1e4 (y - cos t), y(0) = 0, t in [0, 10], rosenbrock23 meets rtol 1e-3 (max error against "
       "the closed form within 3·rtol, the factor a 2nd-order method's global error accumulates over the run) "
       "in at most 1/20 of the steps dopri5 needs (whose steps are capped by its stability region, h <= 3.3/k), "
       "with the analytic Jacobian and with finite differences alike.", "bound")
def rosenbrock23_stiff():
    k, rtol = 1e4, 1e-3
    params = np.array([k])
    explicit = nx.solve_ode(_stiff_rhs, (0.0, 10.0), [0.0], params=params,
                            options=nx.OdeOptions(rtol=rtol, atol=1e-6, max_steps=10**6)).check()
    checks = []
    for jac, label in ((_stiff_jacobian, "analytic J"), (None, "finite-difference J")):
        sol = nx.solve_ode(_stiff_rhs, (0.0, 10.0), [0.0], params=params,
                           options=nx.OdeOptions(method="rosenbrock23", rtol=rtol, atol=1e-6, jac=jac)).check()
        error = float(np.abs(sol.y[:, 0] - _stiff_exact(sol.t, k)).max())
        checks.append(Check.at_most(error, 3 * rtol, f"{label}: error {error:.1e} in {sol.nsteps} steps"))
        checks.append(Check.at_most(sol.nsteps / explicit.nsteps, 1 / 20,
                                    f"{label}: {sol.nsteps} steps against dopri5's {explicit.nsteps}"))
    return Check.all_of(checks)


@claim("numerics.ode_matches_solve_ivp", f"{HNW}, §§II.4–II.10 (reference: scipy.integrate.solve_ivp)",
       "At rtol 1e-11, dopri5 and dop853 agree with solve_ivp (RK45, DOP853) on 20 coupled nonlinear "
       "(rotated logistic) states, and both with the exact solution, to 1e-9 (100x rtol: the global error of "
       "a tolerance-controlled run).", "identity", stochastic=True)
def ode_matches_solve_ivp(run):
    problem = rp.rotated_logistic_problem(20, seed=run.seed(1))
    t_eval = np.linspace(0.0, 8.0, 41)
    reference = problem.exact(t_eval)
    checks = []
    for ours, theirs in (("dopri5", "RK45"), ("dop853", "DOP853")):
        sol = nx.solve_ode(rp.rotated_logistic_rhs, (0.0, 8.0), problem.y0, t_eval=t_eval, params=problem.params,
                           options=nx.OdeOptions(method=ours, rtol=1e-11, atol=1e-13)).check()
        ivp = integrate.solve_ivp(lambda t, y: rp.rotated_logistic_rhs(t, y, problem.params), (0.0, 8.0),
                                  problem.y0, method=theirs, t_eval=t_eval, rtol=1e-11, atol=1e-13)
        gap = np.abs(sol.y - ivp.y.T).max()
        checks.append(Check.at_most(gap, 1e-9, f"{ours}: vs solve_ivp {gap:.1e}, "
                                               f"vs exact {np.abs(sol.y - reference).max():.1e}"))
        checks.append(Check.at_most(np.abs(sol.y - reference).max(), 1e-9, f"{ours} vs exact"))
    return Check.all_of(checks)


ODE_STATE_COUNTS = (1, 20, 200, 1000)


@claim("numerics.ode_at_many_states", f"{HNW}, §§II.4–II.5 (reference: scipy.integrate.solve_ivp)",
       "The step control at 1, 20, 200 and 1000 states: on the rotated logistic problem (a Haar rotation of "
       "independent logistic modes, its right-hand side a dense n × n product) at rtol 1e-8, atol 1e-10, dopri5 and "
       "dop853 take as many accepted steps as solve_ivp's RK45 and DOP853 (the same tableaux, error norm, controller "
       "and starting step: equal in calibration; a ratio within 5% allows an accept decision that round-off in a "
       "1000-term norm settles the other way), end within rtol/100 of solve_ivp's solution (round-off only) and "
       "within 100 × rtol of the exact one (the global error of a tolerance-controlled run; calibration 1.8 rtol "
       "at one state, 0.4 rtol at 1000).", "identity", stochastic=True)
def ode_at_many_states(run):
    t_eval = np.linspace(0.0, 8.0, 41)
    checks = []
    for n in ODE_STATE_COUNTS:
        problem = rp.rotated_logistic_problem(n, seed=run.seed(n))
        reference = problem.exact(t_eval)
        for ours, theirs in (("dopri5", "RK45"), ("dop853", "DOP853")):
            options = nx.OdeOptions(method=ours, rtol=1e-8, atol=1e-10)
            sol = nx.solve_ode(rp.rotated_logistic_rhs, (0.0, 8.0), problem.y0, t_eval=t_eval, params=problem.params,
                               options=options).check()
            rhs = lambda t, y: rp.rotated_logistic_rhs(t, y, problem.params)  # noqa: E731
            steps = len(integrate.solve_ivp(rhs, (0.0, 8.0), problem.y0, method=theirs, rtol=1e-8, atol=1e-10).t) - 1
            ivp = integrate.solve_ivp(rhs, (0.0, 8.0), problem.y0, method=theirs, t_eval=t_eval, rtol=1e-8, atol=1e-10)
            label = f"{ours}, {n} states"
            checks += [Check.at_most(abs(sol.nsteps / steps - 1), 0.05, f"{label}: {sol.nsteps} steps, solve_ivp "
                                                                         f"{steps}"),
                       Check.at_most(np.abs(sol.y - ivp.y.T).max(), 1e-10, f"{label}: against solve_ivp"),
                       Check.at_most(np.abs(sol.y - reference).max(), 1e-6, f"{label}: against the exact solution")]
    return Check.all_of(checks)


planted_bug("the DOPRI5 error norm sums where it should average (a slip that one state cannot show)",
            "dynamics/numerics/_explicit_rk.py", "        return math.sqrt(acc / n)", "        return math.sqrt(acc)",
            ("numerics.ode_at_many_states",))


def _dense_local_errors(method, steps):
    """Error of one step's interpolant at x = 0.3, 0.5, 0.7 of the step, from the exact start, for each h."""
    y0, rates = np.array([0.01]), np.array([1.0])
    t_start = 2.0  # on the rising flank; near the inflection (t ≈ 4.6) leading error constants nearly vanish
    start = rp.logistic_exact([t_start], y0, rates)[0]
    errors = []
    for h in steps:
        inside = t_start + h * np.array([0.3, 0.5, 0.7])
        sol = nx.solve_ode(rp.logistic_rhs, (t_start, t_start + h), start, t_eval=inside, params=rates,
                           options=nx.OdeOptions(method=method, step=h)).check()
        errors.append(np.abs(sol.y[:, 0] - rp.logistic_exact(inside - t_start, start, rates)[:, 0]).max())
    return np.array(errors)


@claim("numerics.dense_output_order", f"{HNW}, §II.6 (continuous extensions)",
       "Each interpolant has its own order: inside one step from the exact solution, the dense-output error falls "
       "as h^(q+1) with q = 4 for dopri5 (Shampine's extension), q = 7 for dop853 and q = 2 for rosenbrock23. Rate "
       "check over 6 step sizes each (h = 0.2..0.05, 0.8..0.3 and 0.1..0.0125): the log-log slope of the local "
       "interpolation error against h is q + 1 within t·se plus 0.1 for the next term of the error expansion, with "
       "se <= 0.05. "
       "(DOP853's interpolant is one order below its steps, so the error between steps is not proportional to the "
       "error at them.)", "limit")
def dense_output_order():
    checks = []
    for method, q, steps in (("dopri5", 4, np.geomspace(0.2, 0.05, 6)), ("dop853", 7, np.geomspace(0.8, 0.3, 6)),
                             ("rosenbrock23", 2, np.geomspace(0.1, 0.0125, 6))):
        errors = _dense_local_errors(method, steps)
        checks.append(_order_check(steps, errors, q + 1, f"{method}: local interpolation error against h"))
    return Check.all_of(checks, "; ".join(c.detail for c in checks))


@claim("numerics.small_linear_algebra", "Golub & Van Loan 2013, Algs. 3.4.1 and 4.2.1",
       "The numba LU (partial pivoting) and Cholesky solves agree with LAPACK (numpy.linalg.solve) on random "
       "well-conditioned systems of size 1 to 60 to 1e-12 relative (a few ulps times the condition number), and "
       "LU pivots where a zero pivot would break plain elimination.", "identity", stochastic=True)
def small_linear_algebra(run):
    rng = run.rng(11)
    worst_lu = worst_chol = 0.0
    for n in (1, 2, 3, 7, 20, 60):
        A = rng.standard_normal((n, n)) + n * np.eye(n)
        b = rng.standard_normal(n)
        LU, pivots = nx.lu_factor(A)
        reference = np.linalg.solve(A, b)
        worst_lu = max(worst_lu, float(np.abs(nx.lu_solve(LU, pivots, b) - reference).max() / np.abs(reference).max()))
        S = A @ A.T
        reference = np.linalg.solve(S, b)
        worst_chol = max(worst_chol, float(np.abs(nx.cholesky_solve(S, b) - reference).max() / np.abs(reference).max()))
    P = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [4.0, 5.0, 0.0]])
    LU, pivots = nx.lu_factor(P)
    pivoted = float(np.abs(P @ nx.lu_solve(LU, pivots, np.ones(3)) - 1.0).max())
    return Check.all_of([Check.at_most(worst_lu, 1e-12, "LU vs LAPACK"),
                         Check.at_most(worst_chol, 1e-12, "Cholesky vs LAPACK"),
                         Check.at_most(pivoted, 1e-14, "zero leading pivot")],
                        f"LU {worst_lu:.1e}, Cholesky {worst_chol:.1e}, zero pivot residual {pivoted:.1e}")


def _lambert_grid():
    branch0 = np.concatenate([-nx.INV_E_HI + np.geomspace(1e-16, 0.1, 300), np.linspace(-0.26, 1.0, 300),
                              np.geomspace(1.0, 1e300, 600), [0.0, 1.7976931348623157e308]])
    branch1 = np.concatenate([-nx.INV_E_HI + np.geomspace(1e-16, 0.1, 300), np.linspace(-0.26, -1e-3, 300),
                              -np.geomspace(1e-300, 1e-3, 300)])
    return {0: branch0, -1: branch1}


@claim("numerics.lambertw_identity", LAMBERT,
       "W(x) e^{W(x)} = x to a few ulps on branch 0 over [-1/e, 1e308] and branch -1 over (-1/e, 0) "
       "(residual in log form, |W + log|W| - log|x||, where e^W leaves the float range).", "identity")
def lambertw_identity():
    worst = 0.0
    for branch, x in _lambert_grid().items():
        w = nx.lambertw(x, branch)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            direct = np.abs(w * np.exp(w) - x) / np.maximum(np.abs(x), 1e-300)
            log_form = np.abs(w + np.log(np.abs(w)) - np.log(np.abs(x)))
        # A one-ulp error in W moves w e^w by a relative (1 + W) ulp, so the residual is measured in
        # units of eps * max(1, |1 + W|): the ulps of W it corresponds to.
        in_range = (np.abs(x) > 1e-280) & (np.abs(x) < 1e300) & (x != 0)
        res = np.where(in_range, direct / np.maximum(1.0, np.abs(1.0 + w)),
                       np.where(x == 0, np.abs(w), log_form / np.maximum(np.abs(w), 1.0)))
        worst = max(worst, float(np.max(res)))
    return Check.at_most(worst / np.finfo(float).eps, 4.0, "worst residual in ulps of W")


@claim("numerics.lambertw_vs_scipy", LAMBERT,
       "Relative error <= 1e-12 against scipy.special.lambertw over both real branches; within 1e-8 of -1/e, "
       "where SciPy's branch -1 is wrong, against mpmath at 50 digits; exactly -1 at the double nearest -1/e.",
       "identity")
def lambertw_vs_scipy():
    worst = 0.0
    for branch, x in _lambert_grid().items():
        x = x[np.isfinite(x) & (x < 1.7e308)]
        near = x < -nx.INV_E_HI + 1e-8
        ours = nx.lambertw(x, branch)
        ref = special.lambertw(x, branch).real
        with mpmath.workdps(50):
            ref[near] = [float(mpmath.lambertw(mpmath.mpf(v), branch).real) for v in x[near]]
        rel = np.abs(ours - ref) / np.maximum(np.abs(ref), 1e-300)
        rel[ref == 0] = np.abs(ours[ref == 0])
        worst = max(worst, float(np.max(rel)))
    exact_point = max(abs(nx.lambertw(-nx.INV_E_HI, b) + 1.0) for b in (0, -1))
    return Check.all_of([Check.at_most(worst, 1e-12, f"max relative error {worst:.2e}"),
                         Check.at_most(exact_point, 0.0, f"|W(-1/e) + 1| = {exact_point}")])


@claim("numerics.normal_tails", "Parascandolo et al. 2021, Prop. 2 (keep probabilities: Φ(-s), never 1 - Φ(s))",
       "Φ, the upper tail, log Φ and φ match mpmath at 40 digits to 5e-13 relative for |x| <= 37 (the limit set "
       "by rounding x/√2, about x² eps), log Φ down to x = -1e3, and Φ⁻¹ matches scipy.stats.norm.ppf to 1e-13.",
       "identity")
def normal_tails():
    def rel(a, b):
        with np.errstate(all="ignore"):
            return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))  # NaN propagates to the verdict
    x = np.concatenate([np.linspace(-37.0, 37.0, 297), [-50.0, -200.0, -1e3]])
    with mpmath.workdps(40):
        cdf = np.array([float(mpmath.ncdf(v)) for v in x[:-3]])
        sf = np.array([float(mpmath.ncdf(-v)) for v in x[:-3]])
        pdf = np.array([float(mpmath.npdf(v)) for v in x[:-3]])
        # each side in the form that does not round Φ to 1 at 40 digits: log Φ(x) below 0 (mpmath's exponent
        # range is unbounded), log1p(-Φ(-x)) above
        logcdf = np.array([float(mpmath.log(mpmath.ncdf(v)) if v <= 0 else mpmath.log1p(-mpmath.ncdf(-v)))
                           for v in x])
    errs = {"cdf": rel(nx.normal_cdf(x[:-3]), cdf), "sf": rel(nx.normal_sf(x[:-3]), sf),
            "pdf": rel(nx.normal_pdf(x[:-3]), pdf), "logcdf": rel(nx.normal_logcdf(x), logcdf)}
    q = np.concatenate([np.geomspace(1e-300, 0.5, 400), 1 - np.geomspace(1e-16, 0.5, 200)])
    ppf = rel(nx.normal_ppf(q), stats.norm.ppf(q))
    detail = ", ".join(f"{k} {v:.1e}" for k, v in errs.items()) + f", ppf {ppf:.1e}"
    return Check.all_of([Check.at_most(max(errs.values()), 5e-13), Check.at_most(ppf, 1e-13)], detail)


@claim("numerics.binomial_log_space", "Parascandolo et al. 2021, Prop. 2 (binomial keep probability)",
       "Log-space binomial pmf and tails match scipy.stats.binom to 1e-10 relative up to n = 5000 trials, sum "
       "to 1, and stay finite (log) where the probability underflows.", "identity")
def binomial_log_space():
    errs = []
    for n, p in ((1, 0.3), (16, 0.5), (100, 0.2), (2000, 0.01), (5000, 0.7)):
        k = np.arange(0, n + 1)
        pmf = np.exp([nx.log_binom_pmf(int(j), n, p) for j in k])
        errs.append(abs(pmf.sum() - 1.0))
        for j in k[:: max(1, n // 20)]:
            sf = stats.binom.sf(j - 1, n, p)
            if sf > 1e-300:
                errs.append(abs(nx.binom_sf(int(j), n, p) - sf) / sf)
            cdf = stats.binom.cdf(j, n, p)
            if cdf > 1e-300:
                errs.append(abs(nx.binom_cdf(int(j), n, p) - cdf) / cdf)
    deep = nx.log_binom_sf(5000, 5000, 0.01)
    errs.append(abs(deep - 5000 * math.log(0.01)) / abs(deep))
    return Check.at_most(np.max(errs), 1e-10, f"lgamma-limited at n = 5000; log P(X >= n) at n=5000, p=0.01: {deep:.1f}")


@claim("numerics.mp_quadrature", "Pezeshki (thesis), Eq 2.3.30 (the Marchenko–Pastur law)",
       "The Marchenko–Pastur quadrature gives bulk mass min(1, α) and mean α, and matches adaptive "
       "quadrature (scipy quad) of ∫ρ(λ)(1 - e^{-λt})²/λ dλ for α in {0.5, 1, 2} and t up to 1e4.", "identity")
def mp_quadrature():
    errs = []
    for alpha in (0.25, 0.5, 1.0, 2.0, 4.0):
        errs.append(abs(nx.mp_integrate(np.ones_like, alpha) - min(1.0, alpha)))
        errs.append(abs(nx.mp_integrate(lambda lam: lam, alpha) - alpha))
    for alpha in (0.5, 1.0, 2.0):
        lo, hi = nx.mp_edges(alpha)
        for t in (0.1, 1.0, 100.0, 1e4):
            f = lambda lam: np.expm1(-lam * t) ** 2 / np.where(lam > 0, lam, 1.0)  # f(0) = 0
            ours = nx.mp_integrate(f, alpha)
            # Independent route: adaptive quadrature in λ itself, with the singular edge weights.
            g = lambda lam: f(np.array([lam]))[0] / (2 * np.pi * lam)
            if lo > 0:
                ref = integrate.quad(g, lo, hi, weight="alg", wvar=(0.5, 0.5), limit=400,
                                     epsabs=0, epsrel=1e-12)[0]
            else:  # α = 1: ρ(λ) = λ^{-1/2} (hi - λ)^{1/2} / 2π
                ref = integrate.quad(lambda lam: f(np.array([lam]))[0] / (2 * np.pi), lo, hi, weight="alg",
                                     wvar=(-0.5, 0.5), limit=400, epsabs=0, epsrel=1e-12)[0]
            errs.append(abs(ours - ref) / abs(ref))
    return Check.at_most(np.max(errs), 1e-9)


@claim("numerics.mp_over_its_domain", "Pezeshki (thesis), Eq 2.3.30 (the Marchenko–Pastur law)",
       "The Marchenko–Pastur density over its whole domain: at 1287 points (α on 33 values from 1e-8 to 1e8, scale "
       "1e-3, 1 and 1e3, 13 positions in the bulk from 1e-11 of its width off an edge to the middle), mp_density "
       "matches the law evaluated by mpmath at 30 digits within 4 eps (1 + λ₊/(λ₊ − λ) + λ₋/(λ − λ₋)), the "
       "conditioning of the square root on the float edges (calibration: at most 0.85 of that times eps); and "
       "mp_cdf, atom included, matches mpmath's quadrature of the density at 54 points (α from 1e-4 to 1e4, "
       "from 1e-6 of the bulk to its end) to 1e-8 relative (calibration 7e-10).", "identity")
def mp_over_its_domain():
    eps = np.finfo(float).eps
    worst, points = 0.0, 0
    with mpmath.workdps(30):
        for alpha in np.geomspace(1e-8, 1e8, 33):
            for scale in (1e-3, 1.0, 1e3):
                lo, hi = nx.mp_edges(alpha, scale)
                lam = lo + (hi - lo) / (1.0 + np.exp(-np.linspace(-25.0, 25.0, 13)))
                lam = lam[(lam > lo) & (lam < hi)]
                a, c = mpmath.mpf(alpha), mpmath.mpf(scale)
                lower, upper = c * (1 - mpmath.sqrt(a)) ** 2, c * (1 + mpmath.sqrt(a)) ** 2
                x = [mpmath.mpf(v) for v in lam]
                ref = np.array([float(mpmath.sqrt((upper - v) * (v - lower)) / (2 * mpmath.pi * c * v)) for v in x])
                cond = np.array([float(upper / (upper - v) + lower / (v - lower)) for v in x])
                rel = np.abs(nx.mp_density(lam, alpha, scale) - ref) / ref
                worst, points = max(worst, float(np.max(rel / (eps * (1.0 + cond))))), points + lam.size
        cdf_errors = []
        for alpha in np.geomspace(1e-4, 1e4, 9):
            lo, hi = nx.mp_edges(alpha)
            a = mpmath.mpf(alpha)
            lower, upper = (1 - mpmath.sqrt(a)) ** 2, (1 + mpmath.sqrt(a)) ** 2
            for u in (1e-6, 0.01, 0.3, 0.5, 0.9, 1 - 1e-6):
                lam = lo + (hi - lo) * u
                ref = mpmath.quad(lambda v: mpmath.sqrt((upper - v) * (v - lower)) / (2 * mpmath.pi * v),
                                  [lower, mpmath.mpf(lam)]) + max(0, 1 - a)
                cdf_errors.append(abs(nx.mp_cdf(lam, alpha) - float(ref)) / float(ref))
    return Check.all_of([Check.at_most(worst, 4.0, f"density at {points} points: worst error / (eps (1 + cond)) "
                                                    f"{worst:.2f}"),
                         Check.at_most(max(cdf_errors), 1e-8, f"cdf at {len(cdf_errors)} points: worst relative "
                                                               f"{max(cdf_errors):.1e}")])


planted_bug("the Marchenko–Pastur density drops its scale (right only at scale 1)",
            "dynamics/numerics/marchenko_pastur.py", "/ (2 * np.pi * scale * safe)", "/ (2 * np.pi * safe)",
            ("numerics.mp_over_its_domain",))


# A plausible bug the order claims catch (planted in a copy of the library by tests/test_mutations.py): the third term
# of a three-term stage combination takes the second term's coefficient, so every Runge-Kutta row with three nonzero
# entries (DOPRI5's stage 4, DOP853's stage 5) uses a wrong tableau coefficient. RK4's rows have one or four terms.
# (A wrong digit in dynamics/numerics/_tableaux.py itself is not seen by the mutation test: numba freezes the
# tableaux into the cached kernels of _explicit_rk.py, whose cache only its own source invalidates.)
planted_bug("a three-term Runge-Kutta stage reuses the second coefficient", "dynamics/numerics/_explicit_rk.py",
            "            out[i] = ((base[i] + c0 * K[j0, i]) + c1 * K[j1, i]) + c2 * K[j2, i]",
            "            out[i] = ((base[i] + c0 * K[j0, i]) + c1 * K[j1, i]) + c1 * K[j2, i]",
            ("numerics.dopri5_order", "numerics.dop853_order", "numerics.dense_output_order"))


# ------------------------------------------------------------------------------------------ the verifier's own statistics
# Hundreds of verdicts rest on three statistics of verify.registry: the rate check's log-log slope and its standard
# error (Check.rate, rate_fit), the paired one-sided Student-t bound of the experiment claims (paired_bound), and the
# family-wise normal and t quantiles (family_wise_z, family_wise_t). A slip in any of them would make claims lenient
# or strict while each still passed; these claims run them on synthetic data whose answer is known exactly (Gaussian
# noise, where the t statistics are exact) and hold the observed frequencies to binomial intervals at tail 1e-6.
_LADDER = np.array([8.0, 16.0, 32.0, 64.0, 128.0, 256.0])  # six sizes, as the rate claims use


def _noisy_ladders(rng, slope, draws, noise_sd=0.1):
    """Errors 3·sizes^slope with independent Gaussian noise of ``noise_sd`` on log(error)."""
    return np.exp(np.log(3.0) + slope * np.log(_LADDER) + noise_sd * rng.standard_normal((draws, _LADDER.size)))


def _count_within(count, draws, probability, what, tail=1e-6):
    """The count of a Binomial(draws, probability) event held to its central interval at ``tail`` each side."""
    low, high = stats.binom.ppf(tail, draws, probability), stats.binom.isf(tail, draws, probability)
    centre = draws * probability
    return Check.at_most(abs(count - centre) / max(high - centre, centre - low), 1.0,
                         f"{what}: {count} of {draws} (expected {centre:.1f}, binomial interval {low:.0f}..{high:.0f} "
                         f"at tail {tail:g})")


@claim("numerics.verifier_rate_check", "derived in this project: the verifier's rate check (Check.rate) against "
       "Student's t law",
       "Check.rate rejects a true rate at its level and a wrong one at the rate the non-central t law predicts: over "
       "2000 synthetic six-size ladders with slope −1 and Gaussian log-noise of sd 0.1, the rejections at level 0.01 "
       "are Binomial(2000, 0.01); over 1000 ladders with slope −0.8 (5.8 standard errors off), the acceptances at "
       "level 0.01 are Binomial(1000, P(|T| <= t_crit)) with T non-central t (4 degrees of freedom, non-centrality "
       "0.2/se); and (slope + 1)/se falls inside Student's t interval (4 degrees of freedom) at 50%, 90% and 99% with "
       "binomial frequencies. Every count is held to its binomial interval at tail 1e-6.",
       "theorem", stochastic=True)
def verifier_rate_check(run):
    from verify.registry import rate_fit

    rng, level, dof = run.rng(901), 0.01, _LADDER.size - 2
    null = _noisy_ladders(rng, -1.0, 2000)
    rejections = sum(not Check.rate(_LADDER, errors, -1.0, level=level).passed for errors in null)
    se_true = 0.1 / math.sqrt(float(np.sum((np.log(_LADDER) - np.log(_LADDER).mean()) ** 2)))
    critical = stats.t.isf(level / 2, dof)
    accept_wrong = float(stats.nct.cdf(critical, dof, 0.2 / se_true) - stats.nct.cdf(-critical, dof, 0.2 / se_true))
    wrong = _noisy_ladders(rng, -0.8, 1000)
    acceptances = sum(Check.rate(_LADDER, errors, -1.0, level=level).passed for errors in wrong)
    fits = np.array([rate_fit(_LADDER, errors) for errors in null])
    t_values = np.abs(fits[:, 0] + 1.0) / fits[:, 1]
    coverage = [_count_within(int(np.sum(t_values <= stats.t.isf((1 - c) / 2, dof))), 2000, c,
                              f"(slope + 1)/se inside the {c:.0%} t interval") for c in (0.5, 0.9, 0.99)]
    return Check.all_of([_count_within(rejections, 2000, level, "true rate rejected at level 0.01"),
                         _count_within(acceptances, 1000, accept_wrong, f"slope −0.8 accepted (power "
                                                                        f"{1 - accept_wrong:.3f})")] + coverage)


@claim("numerics.verifier_paired_bound", "derived in this project: the verifier's paired bound (paired_bound) "
       "against Student's t law",
       "paired_bound's one-sided lower bound at level 0.05 lies above the true mean in 5% of samples: over 20000 "
       "synthetic samples of 8 Gaussian paired differences (mean 0.3, sd 1), the count above is Binomial(20000, "
       "0.05), held to its interval at tail 1e-6 (±0.75 points of a percent); the returned mean and standard error "
       "match numpy's mean and std(ddof=1)/√8 to 1e-12.", "theorem", stochastic=True)
def verifier_paired_bound(run):
    from verify.registry import paired_bound

    rng = run.rng(902)
    samples = 0.3 + rng.standard_normal((20000, 8))
    results = np.array([paired_bound(sample, 0.05) for sample in samples])
    above = int(np.sum(results[:, 2] > 0.3))
    moments = max(np.abs(results[:, 0] - samples.mean(1)).max(),
                  np.abs(results[:, 1] - samples.std(1, ddof=1) / math.sqrt(8)).max())
    return Check.all_of([_count_within(above, 20000, 0.05, "lower bound above the true mean"),
                         Check.at_most(moments, 1e-12, f"mean and standard error against numpy: {moments:.1e}")])


@claim("numerics.verifier_family_wise_quantiles", "derived in this project: the verifier's Bonferroni quantiles "
       "(family_wise_z, family_wise_t)",
       "family_wise_z(m, level) and family_wise_t(m, dof, level) are the two-sided Bonferroni quantiles: the upper "
       "tail of the standard normal (mpmath erfc) and of Student's t (mpmath's regularised incomplete beta, "
       "P(T > t) = I_{ν/(ν+t²)}(ν/2, 1/2)/2) at the returned value equals level/(2m) to 1e-9 relative, for m in "
       "{1, 4, 18, 300}, level in {1e-4, 1e-2} and ν in {3, 19, 399}, all at 30 digits.", "identity")
def verifier_family_wise_quantiles():
    from verify.registry import family_wise_t, family_wise_z

    errors = []
    with mpmath.workdps(30):
        for m in (1, 4, 18, 300):
            for level in (1e-4, 1e-2):
                target = mpmath.mpf(level) / (2 * m)
                z = mpmath.mpf(family_wise_z(m, level))
                errors.append(abs(mpmath.erfc(z / mpmath.sqrt(2)) / 2 / target - 1))
                for dof in (3, 19, 399):
                    t = mpmath.mpf(family_wise_t(m, dof, level))
                    nu = mpmath.mpf(dof)
                    tail = mpmath.betainc(nu / 2, mpmath.mpf(1) / 2, 0, nu / (nu + t * t), regularized=True) / 2
                    errors.append(abs(tail / target - 1))
    worst = float(max(errors))
    return Check.at_most(worst, 1e-9, f"worst relative error of the tail at the quantile over {len(errors)} cases: "
                                      f"{worst:.1e}")


planted_bug("the rate check's slope standard error doubled (every rate claim twice as lenient)", "verify/registry.py",
            "    return float(coef[1]), float(math.sqrt(max(cov[1, 1], 0.0)))",
            "    return float(coef[1]), 2 * float(math.sqrt(max(cov[1, 1], 0.0)))", ("numerics.verifier_rate_check",))
planted_bug("the paired bound's standard error divides by n, not n - 1", "verify/registry.py",
            "    se = float(d.std(ddof=1) / math.sqrt(d.size))", "    se = float(d.std(ddof=0) / math.sqrt(d.size))",
            ("numerics.verifier_paired_bound",))
planted_bug("the family-wise normal quantile one-sided", "verify/registry.py",
            "    return -NormalDist().inv_cdf(0.5 * level / m)", "    return -NormalDist().inv_cdf(level / m)",
            ("numerics.verifier_family_wise_quantiles",))


# ------------------------------------------------------------------------------------------------------ symbolic claims
# Closed forms of the numerics core against the relations they solve, simplified by sympy (verify/symbolic.py), and
# the library against the sympy (or exact rational) values at 30 digits at 1000 points or more, each within a bound
# derived from its formula's conditioning in units of ε = 2^-52. DERIVATIONS lists every closed form of the core: the
# relation it solves, its check, and, for a form no symbolic claim checks, why not and which claim holds it instead.
# The ODE integrators, Newton's method, the linear algebra and the random streams are algorithms, not closed forms:
# their orders, tolerances and agreement with LAPACK are the claims above.
from .symbolic import EPS, derivation, library_against_symbols, residual_zero, spread  # noqa: E402
from .symbolic import symbolic_result as _symbolic_result  # noqa: E402

DERIVATIONS = (
    derivation("numerics.lambertw",
               r"w e^{w} = x,\quad W' = \frac{W}{x(1+W)},\quad w \leftarrow w - \frac{2ff'}{2f'^2 - ff''},\ "
               r"f = we^{w} - x",
               "exact", "numerics.symbolic_lambertw",
               LAMBERT + "; Corless et al. 1996 (Halley's method)",
               "The library's update $w - f/(e^w(w+1) - (w+2)f/(2w+2))$ is Halley's step on $f = we^w - x$ "
               "(residual 0). Where $we^w$ leaves the float range ($|x|$ beyond about $10^{\\pm 300}$) it takes "
               "Newton steps on $g = w + \\ln|w| - \\ln|x|$, the same root: $g' = 1 + 1/w$ and $e^g = we^w/x$ "
               "(residuals 0). Its values equal sympy's `LambertW` at 30 digits on both branches."),
    derivation(("numerics.lambertw_kernel", "numerics.lambertw"),
               r"We^{W} - x = O(p^6),\ W = -1 + p - \tfrac{p^2}{3} + \tfrac{11}{72}p^3 - \tfrac{43}{540}p^4 "
               r"+ \tfrac{769}{17280}p^5,\quad p = \pm\sqrt{2(ex+1)}",
               "series", "numerics.symbolic_lambertw",
               "Corless et al. 1996 (the series of W at its branch point -1/e)",
               "A truncated series, so the check is to a stated order: with $x = (p^2/2 - 1)/e$ the Taylor "
               "coefficients of $p^0, \\dots, p^5$ in $We^W - x$ simplify to 0 (the first omitted term is of order "
               "$p^6$). The library returns the series itself only within $p < 10^{-3}$ of the branch point, where "
               "$p^6 < 10^{-18}$ is below rounding; farther out it only starts Halley's iteration."),
    derivation("numerics.normal_logcdf",
               r"\begin{gathered} \sqrt{\pi}\,y e^{y^2}\operatorname{erfc}(y) = 1 - \tfrac{1}{2y^2} + \tfrac{3}{4y^4} "
               r"- \tfrac{15}{8y^6} + \tfrac{105}{16y^8} + O(y^{-10}),\quad y \to \infty \\ "
               r"\log\Phi(x) = -\tfrac{x^2}{2} - \log(\sqrt{2\pi}|x|) + \log(1 - z + 3z^2 - 15z^3 + 105z^4) + O(z^5),"
               r"\ z = x^{-2} \end{gathered}",
               "series", "numerics.symbolic_special_functions",
               "Abramowitz & Stegun 1964, 7.1.23 (the asymptotic series of erfc)",
               "An asymptotic (divergent) series holds to a stated order as $x \\to -\\infty$, never identically: "
               "sympy's series of $\\sqrt\\pi\\,y e^{y^2}\\operatorname{erfc}(y)$ at $y = \\infty$ to $O(y^{-10})$, "
               "at $y = -x/\\sqrt2$, equals the library's polynomial in $z = 1/x^2$ (residual 0), and "
               "$\\log\\Phi(x) = \\log(\\operatorname{erfc}(y)/2)$ splits into the three logarithms (residual 0). The "
               "library uses the series below $x = -30$, where the next term $945z^5$ is below $10^{-12}$ relative "
               "(and below rounding over $|\\log\\Phi| \\ge x^2/2$); above it forms "
               "$\\log(\\operatorname{erfc}(-x/\\sqrt2)/2)$."),
    derivation(("numerics.normal_pdf", "numerics.normal_cdf", "numerics.normal_sf"),
               r"\varphi(x) = \frac{e^{-x^2/2}}{\sqrt{2\pi}},\quad \Phi(x) = \tfrac12\operatorname{erfc}(-x/\sqrt2),"
               r"\quad 1 - \Phi(x) = \Phi(-x)",
               "none", None, "Parascandolo et al. 2021, Prop. 2 (keep probabilities: Φ(-s), never 1 - Φ(s))",
               "Definitions evaluated as written (one `exp`, one `erfc`, the upper tail as $\\Phi(-x)$): no relation "
               "is left for sympy beyond the definition itself. The claim normal_tails holds all three to mpmath at "
               "40 digits across both tails, $|x| \\le 37$."),
    derivation("numerics.normal_ppf",
               r"\Phi(x) = q,\quad x \leftarrow x - \frac{u}{1 + xu/2},\ u = \frac{\Phi(x) - q}{\varphi(x)}",
               "algorithm", None, "Parascandolo et al. 2021, Prop. 2 (the normal keep probabilities and their quantiles)",
               "A root, not a closed form: Acklam's rational approximation (about $10^{-9}$ relative) as the start, "
               "then two Halley steps on $\\Phi(x) - q$ through `erfc`, each residual formed in the tail that does "
               "not cancel. The claim normal_tails holds it to SciPy's `norm.ppf` at $10^{-13}$ relative."),
    derivation(("numerics.log_binom_pmf", "numerics.log_binom_sf", "numerics.binom_sf", "numerics.binom_cdf"),
               r"P(X{=}j) = \binom{n}{j}p^j(1-p)^{n-j},\quad \sum_{j=0}^{n} P(X{=}j) = 1,\quad "
               r"P(X \le k; p) = P(X \ge n-k; 1-p)",
               "exact", "numerics.symbolic_special_functions",
               "Parascandolo et al. 2021, Prop. 2 (binomial keep probabilities, in log space)",
               "sympy checks the mass and the reflection that `binom_cdf` takes (the lower tail as the upper tail of "
               "$n - X$ at $1 - p$) as polynomials in a symbolic $p$ for every $n \\le 12$; for $n$ up to 60 the "
               "library is held to exact rational sums (a double $p$ is a dyadic rational) at 30 digits."),
    derivation("numerics.sigmoid",
               r"\sigma(x) = \frac{1}{1+e^{-x}}\ (x \ge 0),\quad \sigma(x) = \frac{e^{x}}{1+e^{x}}\ (x < 0)",
               "exact", "numerics.symbolic_special_functions",
               "derived in this project (the logistic function formed from e^{-|x|} alone)",
               "Below 0 the library multiplies the numerator and the denominator of $1/(1 + e^{-x})$ by $e^{x}$: "
               "$e^{x}/(1 + e^{x}) = 1/(e^{-x} + 1)$ (residual 0). Either branch forms only $e^{-|x|} \\le 1$, so "
               "nothing overflows, and each is one quotient of positive terms: a few $\\epsilon$ relative in both "
               "tails, where $\\tfrac12(1 + \\tanh(x/2))$ would lose $\\epsilon e^{|x|}$ in the small one."),
    derivation(("numerics.mp_quadrature", "numerics.mp_edges"),
               r"\lambda = 1 + \alpha - 2\sqrt\alpha\cos\theta,\quad \lambda(0) = \lambda_-,\ \lambda(\pi) = \lambda_+,"
               r"\quad \rho\,d\lambda = \frac{2\alpha\sin^2\theta}{\pi\lambda}\,d\theta",
               "exact", "numerics.symbolic_mp_moments",
               "derived in this project (a substitution in the Marchenko–Pastur law of Pezeshki (thesis), Eq 2.3.30)",
               "With $a = \\sqrt\\alpha$ the edges are $\\lambda_\\pm = (1 \\pm a)^2$ and "
               "$\\lambda = 1 + a^2 - 2a\\cos\\theta$ runs from $\\lambda_-$ at $\\theta = 0$ to $\\lambda_+$ at "
               "$\\theta = \\pi$. Then $\\lambda_+ - \\lambda = 2a(1 + \\cos\\theta)$ and "
               "$\\lambda - \\lambda_- = 2a(1 - \\cos\\theta)$, so $(\\lambda_+ - \\lambda)(\\lambda - \\lambda_-) = "
               "4a^2\\sin^2\\theta$, and with $d\\lambda = 2a\\sin\\theta\\,d\\theta$ the measure "
               "$\\rho\\,d\\lambda = \\frac{2a\\sin\\theta}{2\\pi\\lambda}\\,2a\\sin\\theta\\,d\\theta = "
               "\\frac{2a^2\\sin^2\\theta}{\\pi\\lambda}\\,d\\theta$ (residuals 0). The square roots are gone, so the "
               "integrand is smooth even at $\\alpha = 1$, where $\\rho \\sim \\lambda^{-1/2}$; the library forms "
               "$1 - \\cos\\theta$ as $2\\sin^2(\\theta/2)$, without cancellation."),
    derivation(("numerics.mp_integrate", "numerics.mp_quadrature"),
               r"\begin{gathered} \textstyle\int \rho\,\lambda^{k}\,d\lambda = \frac{\alpha}{1-\alpha},\ \alpha,\ "
               r"\alpha,\ \alpha(1+\alpha),\ \alpha(1+3\alpha+\alpha^2)\ (k = -1, \dots, 3;\ \alpha < 1) \\ "
               r"\textstyle\int \rho\,\lambda^{k}\,d\lambda = \frac{1}{\alpha-1},\ 1,\ \alpha,\ \alpha(1+\alpha),\ "
               r"\alpha(1+3\alpha+\alpha^2)\ (\alpha > 1) \end{gathered}",
               "exact", "numerics.symbolic_mp_moments",
               "derived in this project (the moments of the Marchenko–Pastur law, Marchenko & Pastur 1967)",
               "In the $\\theta$ variable the bulk moment is $\\int_0^\\pi 2a^2\\sin^2\\theta\\,\\lambda^{k-1}/\\pi"
               "\\,d\\theta$ with $a = \\sqrt\\alpha$. For $k \\ge 1$ it is a polynomial in $\\cos\\theta$, integrated "
               "directly. For $k \\le 0$, $z = e^{i\\theta}$ turns $\\lambda$ into $1 + a^2 - a(z + 1/z)$ and the "
               "integral over $[0, \\pi]$ into half the integral over $|z| = 1$ of a rational function, that is "
               "$\\pi i$ times its residues inside the circle: at $z = 0$ and at $z = a$ ($a < 1$) or $z = 1/a$ "
               "($a > 1$), a pole of order $1 - k$. With the atom $(1 - \\alpha)^+$ the mass is 1 and the mean "
               "$\\alpha$ on both sides."),
    derivation(("numerics.mp_density", "numerics.mp_atom"),
               r"\rho(\lambda) = \frac{\sqrt{(\lambda_+-\lambda)(\lambda-\lambda_-)}}{2\pi s\lambda},\quad "
               r"\lambda_\pm = s(1\pm\sqrt\alpha)^2,\quad P(\lambda = 0) = (1-\alpha)^+",
               "none", None, "Pezeshki (thesis), Eq 2.3.30 (the Marchenko–Pastur law)",
               "The printed law, evaluated as written: no relation is left for sympy beyond the definition itself. "
               "Its normalisation with the atom is the $k = 0$ moment of symbolic_mp_moments, and the claim "
               "mp_over_its_domain holds the density to mpmath over the whole bulk within a few $\\epsilon$ times "
               "its condition."),
    derivation("numerics.mp_cdf",
               r"F(\lambda) = (1-\alpha)^+ + \int_{\lambda_-}^{\min(\lambda, \lambda_+)} \rho(v)\,dv\quad "
               r"(\lambda \ge 0)",
               "algorithm", None, "Pezeshki (thesis), Eq 2.3.30 (the Marchenko–Pastur law)",
               "A quadrature, not a closed form: the library integrates the bulk over $[0, \\theta(\\lambda)]$ in the "
               "$\\theta$ variable with the graded Gauss–Legendre panels of `mp_quadrature`. The claim "
               "mp_over_its_domain holds it to mpmath's quadrature at $10^{-8}$ relative, from $10^{-6}$ of the bulk "
               "to its end."),
)

sp = lazy_module("sympy")


@claim("numerics.symbolic_lambertw", LAMBERT + "; Corless et al. 1996 (the branch-point series and Halley's method)",
       "sympy: with x = (p²/2 − 1)/e (p = ±sqrt(2(ex + 1)), + on branch 0, − on branch −1), the library's starting "
       "series W = −1 + p − p²/3 + (11/72)p³ − (43/540)p⁴ + (769/17280)p⁵ has W e^W − x = O(p⁶) (series residual 0 "
       "to order 6), its update w − f/(e^w(w+1) − (w+2)f/(2w+2)), f = w e^w − x, is Halley's w − 2ff'/(2f'² − ff''), "
       "its log-space step for |x| beyond 1e±300 is Newton's on g = w + ln|w| − ln|x| (g' = 1 + 1/w, and e^g = "
       "w e^w/x), and W' = W/(x(1 + W)) (residuals 0). lambertw equals sympy's LambertW evaluated by mpmath at 30 "
       "digits at 1000 points on branch 0 (x + 1/e in [1e-16, 1e300]) and 1000 on branch −1 (x + 1/e in [1e-16, "
       "0.1] and −x in [1e-300, 0.27]), within 4ε(1 + 1/|1 + W|): the relative condition of W in x is "
       "1/|1 + W|, and the residual w e^w − x rounds at ε|x| (the double nearest −1/e, mapped to −1 by design and "
       "checked in lambertw_vs_scipy, lies 1.2e-17 outside the real domain and is left out).", "identity")
def symbolic_lambertw():
    p, w, x = sp.Symbol("p", real=True), sp.Symbol("w", positive=True), sp.Symbol("x", positive=True)
    series = (-1 + p - p ** 2 / 3 + sp.Rational(11, 72) * p ** 3 - sp.Rational(43, 540) * p ** 4
              + sp.Rational(769, 17280) * p ** 5)
    f = w * sp.exp(w) - x
    f1, f2 = sp.diff(f, w), sp.diff(f, w, 2)
    library_step = w - f / (sp.exp(w) * (w + 1) - (w + 2) * f / (2 * w + 2))
    halley = w - 2 * f * f1 / (2 * f1 ** 2 - f * f2)
    g = w + sp.log(w) - sp.log(x)
    # W e^W − x = e^{−1}(W e^q − (p²/2 − 1)) with q = W + 1 = O(p): e^q to order 5 in q, the product to order 5 in p
    q = series + 1
    product = sp.expand(series * sum(q ** j / sp.factorial(j) for j in range(6)) - (p ** 2 / 2 - 1))
    checks = [residual_zero(sum(product.coeff(p, i) * p ** i for i in range(6)),
                            "W e^W − x = O(p⁶) for the branch-point series (Taylor coefficients of p⁰..p⁵)"),
              residual_zero(library_step - halley, "the library's step is Halley's"),
              residual_zero(sp.diff(g, w) - (1 + 1 / w), "g' = 1 + 1/w"),
              residual_zero(sp.exp(g) - w * sp.exp(w) / x, "e^g = w e^w/x"),
              residual_zero(sp.diff(sp.LambertW(x), x) - sp.LambertW(x) / (x * (1 + sp.LambertW(x))),
                            "W' = W/(x(1 + W))")]
    y = sp.Symbol("y", real=True)
    near = spread([(1e-16, 1e300, "log")], 1000)[:, 0] - nx.INV_E_HI
    lower = np.concatenate([spread([(1e-16, 0.1, "log")], 500)[:, 0] - nx.INV_E_HI,
                            -spread([(1e-300, 0.27, "log")], 500)[:, 0]])
    for branch, points in ((0, near), (-1, lower)):
        points = points[points > -nx.INV_E_HI][:, None]
        checks.append(library_against_symbols(
            sp.LambertW(y, branch), (y,), lambda v, branch=branch: nx.lambertw(v, branch), points,
            lambda v, branch=branch: 4 * EPS * (1 + 1 / abs(1 + float(mpmath.lambertw(v, branch).real))),
            f"lambertw, branch {branch}"))
    return _symbolic_result(checks)


def _bulk_moment(k, below_one):
    """∫ρ_bulk(λ) λ^k dλ (k <= 0) of the Marchenko–Pastur law (scale 1) at α = a², by residues: with z = e^{iθ} and
    λ = 1 + a² − a(z + 1/z), ρ dλ = 2a² sin²θ/(πλ) dθ, and the integral over θ in [0, π] is half the contour integral
    over |z| = 1 of a rational function, πi times its residues inside: at z = 0 and at z = a (a < 1) or z = 1/a
    (a > 1), a pole of order 1 − k."""
    z, a = sp.Symbol("z"), sp.Symbol("a", positive=True)
    lam = 1 + a ** 2 - a * (z + 1 / z)
    integrand = sp.cancel(2 * a ** 2 * (-(z - 1 / z) ** 2 / 4) * lam ** (k - 1) / sp.pi / (sp.I * z))
    denominator = sp.fraction(integrand)[1]

    def residue(pole, order):
        return sp.cancel(sp.diff(sp.cancel((z - pole) ** order * integrand), z, order - 1).subs(z, pole)
                         / sp.factorial(order - 1))

    at_zero = next(m for m in range(12) if sp.cancel(denominator / z ** m).subs(z, 0) != 0)
    total = (residue(0, at_zero) if at_zero else 0) + residue(a if below_one else 1 / a, 1 - k)
    return sp.factor(sp.cancel(sp.pi * sp.I * total)), a


_MOMENTS = {-1: ("α/(1 − α)", "1/(α − 1)"), 0: ("α", "1"), 1: ("α", "α"), 2: ("α(1 + α)", "α(1 + α)"),
            3: ("α(1 + 3α + α²)", "α(1 + 3α + α²)")}


@claim("numerics.symbolic_mp_moments",
       "Pezeshki (thesis), Eq 2.3.30 (the Marchenko–Pastur law); Marchenko & Pastur 1967",
       "sympy: λ = 1 + α − 2√α cos θ maps θ in [0, π] onto the bulk [(1 − √α)², (1 + √α)²] with "
       "(λ₊ − λ)(λ − λ₋) = 4α sin²θ, so ρ dλ = 2α sin²θ/(πλ) dθ (the substitution mp_quadrature uses; residuals 0), "
       "and "
       "by residues of that rational function of z = e^{iθ} the bulk moments ∫ρλ^k dλ are, for α < 1 and α > 1: "
       + "; ".join(f"k = {k}: {lo} and {hi}" for k, (lo, hi) in _MOMENTS.items()) +
       " (residuals 0; k >= 1 integrated directly in θ), so the mass with the atom (1 − α)⁺ is 1 and the mean α. The "
       "sums Σ w λ^k of mp_quadrature's nodes and weights (what mp_integrate returns for f = λ^k), k = −1..3, equal "
       "them at 30 digits at 1000 α from 1e-8 to 1e8 within 4ε(1 + log₂n + (1 + |k − 1|)κ), n the number of nodes, "
       "κ = (1 + α)/√α + 2√α/|1 − √α| the condition of the edges' rounding (λ₊ − λ₋ = 4√α formed as a difference "
       "of the edges, λ₋ = (1 − √α)² from the rounded √α), which the weights carry once and λ^{k−1} |k − 1| times; "
       "a sum of n "
       "positive terms rounds within log₂n ε pairwise.", "identity")
def symbolic_mp_moments():
    theta, a = sp.Symbol("theta", positive=True), sp.Symbol("a", positive=True)
    lam = 1 + a ** 2 - 2 * a * sp.cos(theta)
    lower, upper = (1 - a) ** 2, (1 + a) ** 2
    alpha = sp.Symbol("alpha", positive=True)
    closed = {-1: (alpha / (1 - alpha), 1 / (alpha - 1)), 0: (alpha, sp.Integer(1)), 1: (alpha, alpha),
              2: (alpha * (1 + alpha), alpha * (1 + alpha)), 3: (alpha * (1 + 3 * alpha + alpha ** 2),) * 2}
    checks = [residual_zero(lam.subs(theta, 0) - lower, "λ(0) = λ₋"),
              residual_zero(lam.subs(theta, sp.pi) - upper, "λ(π) = λ₊"),
              residual_zero((upper - lam) * (lam - lower) - 4 * a ** 2 * sp.sin(theta) ** 2,
                            "(λ₊ − λ)(λ − λ₋) = 4α sin²θ"),
              residual_zero(2 * a * sp.sin(theta) / (2 * sp.pi * lam) * sp.diff(lam, theta)
                            - 2 * a ** 2 * sp.sin(theta) ** 2 / (sp.pi * lam), "ρ dλ = 2α sin²θ/(πλ) dθ")]
    for k, forms in closed.items():
        if k >= 1:  # a polynomial in cos θ: sympy integrates it over [0, π] directly, for every α
            density = sp.expand(2 * a ** 2 * sp.sin(theta) ** 2 * lam ** (k - 1) / sp.pi)
            moment = sp.Integral(density, (theta, 0, sp.pi)).doit()
            checks.append(residual_zero(moment - forms[0].subs(alpha, a ** 2), f"∫ρλ^{k}"))
            continue
        for below_one, form in zip((True, False), forms):
            moment, a_ = _bulk_moment(k, below_one)
            side = "α < 1" if below_one else "α > 1"
            checks.append(residual_zero(moment - form.subs(alpha, a_ ** 2), f"∫ρλ^{k}, {side} (residues)"))
    alphas = spread([(1e-8, 1e8, "log")], 1000)[:, 0]
    evaluate = {k: [sp.lambdify(alpha, form, "mpmath") for form in forms] for k, forms in closed.items()}
    worst, where = 0.0, None
    with mpmath.workdps(30):
        for value in alphas:
            nodes, weights = nx.mp_quadrature(value)
            root = math.sqrt(value)
            kappa = (1 + value) / root + 2 * root / abs(1 - root)
            for k, (below, above) in evaluate.items():
                reference = (below if value < 1 else above)(mpmath.mpf(value))
                got = float(nodes ** k @ weights)  # as mp_integrate sums its values
                error = float(abs((mpmath.mpf(got) - reference) / reference))
                ratio = error / (4 * EPS * (1 + math.log2(nodes.size) + (1 + abs(k - 1)) * kappa))
                if not ratio <= worst:
                    worst, where = ratio, (value, k)
    checks.append(Check.at_most(worst, 1.0, f"mp_quadrature's Σ w λ^k: worst relative error / bound {worst:.2f} over "
                                            f"{alphas.size} α × 5 moments (worst at α, k = {where})"))
    return _symbolic_result(checks)


def _binomial_reference(k, n, p):
    """(P(X = k), P(X >= k), P(X <= k)) for X ~ Binomial(n, p), exactly: the double p is m/d with d a power of 2, so
    each pmf is the integer C(n, j) m^j (d − m)^{n−j} over d^n; the exact sums are taken to mpmath at the working
    precision."""
    m, d = p.as_integer_ratio()
    pmf = [math.comb(n, j) * m ** j * (d - m) ** (n - j) for j in range(n + 1)]
    scale = mpmath.mpf(d) ** n
    return tuple(mpmath.mpf(v) / scale for v in (pmf[k], sum(pmf[k:]), sum(pmf[:k + 1])))


@claim("numerics.symbolic_special_functions",
       "Parascandolo et al. 2021, Prop. 2 (binomial keep probabilities, in log space); Abramowitz & Stegun 1964, "
       "7.1.23 (the asymptotic series of erfc)",
       "sympy: for every n <= 12 the pmf C(n,j)p^j(1 − p)^{n−j} sums to 1 and P(X <= k; p) = P(X >= n − k; 1 − p) "
       "(binom_cdf's route) as polynomials in a symbolic p; the asymptotic series of √π y e^{y²} erfc(y) as y → ∞ is "
       "1 − 1/(2y²) + 3/(4y⁴) − 15/(8y⁶) + 105/(16y⁸) + O(y^{−10}), so that log Φ(x) = −x²/2 − log(√(2π)|x|) + "
       "log(1 − z + 3z² − 15z³ + 105z⁴) + O(z⁵), z = 1/x² (normal_logcdf below x = −30); and e^x/(1 + e^x) = "
       "1/(1 + e^{−x}) (sigmoid's form below 0: like its form above, it forms only e^{−|x|}) (residuals 0). "
       "log_binom_pmf, binom_sf, binom_cdf and log_binom_sf equal exact rational sums at 30 digits at 1000 points "
       "(n in [1, 60], k in [0, n], p in (1e-6, 1 − 1e-6) on a logit scale; the probabilities themselves where "
       "they are normal doubles, above 1e-300) within 4εΛ (absolute in "
       "the log, relative in the probability), Λ = 1 + Σ|terms| of the largest summed log pmf (lgamma and the "
       "logarithms round once each; the log-sum-exp adds log₂(n + 1) + 2), plus "
       "nε/min(p, 1 − p) for binom_cdf (it forms 1 − p); normal_logcdf equals log(erfc(−x/√2)/2) at 30 digits at 1000 "
       "points, −x in [30, 1e40], within 4ε + 945z⁵/(x²/2) (round-off, and the series' next term over "
       "|log Φ| >= x²/2); sigmoid equals "
       "1/(1 + e^{−x}) at 1000 points, x in [−700, 700], within 4ε relative (it forms e^{−|x|} and one quotient, "
       "so both tails keep their relative accuracy down to 1e-304).", "identity")
def symbolic_special_functions():
    p = sp.Symbol("p", positive=True)
    mass, reflection = [], []
    for n in range(13):
        pmf = [sp.binomial(n, j) * p ** j * (1 - p) ** (n - j) for j in range(n + 1)]
        mass.append(sp.expand(sum(pmf) - 1))
        reflected = [sp.binomial(n, j) * (1 - p) ** j * p ** (n - j) for j in range(n + 1)]
        reflection += [sp.expand(sum(pmf[:k + 1]) - sum(reflected[n - k:])) for k in range(n + 1)]
    y = sp.Symbol("y", positive=True)
    series = sp.series(sp.sqrt(sp.pi) * y * sp.exp(y ** 2) * sp.erfc(y), y, sp.oo, 10).removeO()
    x, z = sp.Symbol("x", negative=True), sp.Symbol("z", positive=True)
    library_series = 1 - z + 3 * z ** 2 - 15 * z ** 3 + 105 * z ** 4
    t = sp.Symbol("t", real=True)
    checks = [residual_zero(sum(m ** 2 for m in mass), "Σ_j pmf = 1, n = 0..12"),
              residual_zero(sum(r ** 2 for r in reflection), "P(X <= k; p) = P(X >= n − k; 1 − p), n = 0..12"),
              residual_zero(series.subs(y, -x / sp.sqrt(2)) - library_series.subs(z, 1 / x ** 2),
                            "√π y e^{y²} erfc(y) to O(y^{−10}), y = −x/√2"),
              # log Φ(x) = log(erfc(y)/2) = −y² − log(2√π y) + log(√π y e^{y²} erfc(y))
              residual_zero(sp.expand_log((-y ** 2 - sp.log(2 * sp.sqrt(sp.pi) * y)).subs(y, -x / sp.sqrt(2))
                                          + x ** 2 / 2 + sp.log(sp.sqrt(2 * sp.pi) * -x), force=True),
                            "log Φ(x) = −x²/2 − log(√(2π)|x|) + log(series)"),
              residual_zero(sp.exp(t) / (1 + sp.exp(t)) - 1 / (1 + sp.exp(-t)), "sigmoid below 0: e^x/(1 + e^x)")]
    # binomial: exact sums against the log-space library
    grid = spread([(1.0, 60.0, "log"), (0.0, 1.0, "linear"), (0.0, 1.0, "linear")], 1000)
    worst = {name: (0.0, None) for name in ("log_binom_pmf", "binom_sf", "binom_cdf", "log_binom_sf")}
    with mpmath.workdps(30):
        for n_, u_, v_ in grid:
            n = int(round(n_))
            k = min(int(u_ * (n + 1)), n)
            p_ = float(1.0 / (1.0 + math.exp(-(math.log(1e-6 / (1 - 1e-6)) * (1 - 2 * v_)))))
            pmf, sf, cdf = _binomial_reference(k, n, p_)

            def terms(j):
                return (abs(math.lgamma(n + 1.0)) + abs(math.lgamma(j + 1.0)) + abs(math.lgamma(n - j + 1.0))
                        + abs(j * math.log(p_)) + abs((n - j) * math.log1p(-p_)))

            spread_ = math.log2(n + 1) + 2
            bounds = {"log_binom_pmf": 4 * EPS * (1 + terms(k)),
                      "binom_sf": 4 * EPS * (1 + max(terms(j) for j in range(k, n + 1)) + spread_),
                      "log_binom_sf": 4 * EPS * (1 + max(terms(j) for j in range(k, n + 1)) + spread_),
                      "binom_cdf": 4 * EPS * (1 + max(terms(j) for j in range(k + 1)) + spread_)
                      + n * EPS / min(p_, 1 - p_)}
            errors = {"log_binom_pmf": abs(nx.log_binom_pmf(k, n, p_) - mpmath.log(pmf)),
                      "binom_sf": abs(nx.binom_sf(k, n, p_) / sf - 1) if sf > 1e-300 else 0,
                      "log_binom_sf": abs(nx.log_binom_sf(k, n, p_) - mpmath.log(sf)),
                      "binom_cdf": abs(nx.binom_cdf(k, n, p_) / cdf - 1) if cdf > 1e-300 else 0}
            for name, error in errors.items():
                ratio = float(error) / bounds[name]
                if not ratio <= worst[name][0]:
                    worst[name] = (ratio, (k, n, p_))
    checks += [Check.at_most(ratio, 1.0, f"{name}: worst error / bound {ratio:.2f} over {grid.shape[0]} points "
                                         f"(worst at k, n, p = {where})") for name, (ratio, where) in worst.items()]
    # normal_logcdf in its series range, against log(erfc(−x/√2)/2)
    s_ = sp.Symbol("s", positive=True)  # s = −x
    minus_x = spread([(30.0, 1e40, "log")], 1000)  # mpmath's erfc slows beyond 1e50
    checks.append(library_against_symbols(
        sp.log(sp.erfc(s_ / sp.sqrt(2)) / 2), (s_,), lambda v: nx.normal_logcdf(-v), minus_x,
        lambda v: 4 * EPS + 945 * v ** -10 / (0.5 * v * v), "normal_logcdf, x <= −30"))
    xs = spread([(0.0, 1.0, "linear")], 1000) * 1400.0 - 700.0
    checks.append(library_against_symbols(1 / (1 + sp.exp(-t)), (t,), nx.sigmoid, xs, 4 * EPS, "sigmoid"))
    return _symbolic_result(checks)


# Plausible slips the symbolic claims catch (planted in a copy of the library by tests/test_mutations.py): a wrong
# coefficient of a series the library returns directly (Lambert W within p < 1e-3 of its branch point; log Φ below −30).
planted_bug("numerics: Lambert W's branch-point series with 11/36 for 11/72", "dynamics/numerics/lambertw.py",
            "p * (sigma * 11.0 / 72.0", "p * (sigma * 11.0 / 36.0", ("numerics.symbolic_lambertw",))
planted_bug("numerics: normal_logcdf's asymptotic series with 3 for 5 (−9z³ for −15z³)", "dynamics/numerics/special.py",
            "series = 1.0 - z * (1.0 - 3.0 * z * (1.0 - 5.0 * z * (1.0 - 7.0 * z)))",
            "series = 1.0 - z * (1.0 - 3.0 * z * (1.0 - 3.0 * z * (1.0 - 7.0 * z)))",
            ("numerics.symbolic_special_functions",))
planted_bug("numerics: mp_quadrature's nodes with sin²(θ/2) for 2 sin²(θ/2) (1 − cos θ halved)",
            "dynamics/numerics/marchenko_pastur.py", "    lam = lo + 2.0 * half * np.sin(theta / 2) ** 2",
            "    lam = lo + half * np.sin(theta / 2) ** 2", ("numerics.symbolic_mp_moments",))
# The same kinds of slip in the symbolic statements (the string literals are split so that each snippet occurs once in
# this file, in the claim's body): each claim fails on its own statement, independently of the library.
planted_bug("numerics: symbolic statement: the branch-point series with 11/36 for 11/72", "verify/numerics.py",
            "sp.Rational(11, " "72) * p ** 3", "sp.Rational(11, 36) * p ** 3", ("numerics.symbolic_lambertw",))
planted_bug("numerics: symbolic statement: the third Marchenko–Pastur moment with 2α for 3α", "verify/numerics.py",
            "3: (alpha * (1 + 3 * alpha " "+ alpha ** 2),) * 2", "3: (alpha * (1 + 2 * alpha + alpha ** 2),) * 2",
            ("numerics.symbolic_mp_moments",))
planted_bug("numerics: symbolic statement: the erfc series with −9z³ for −15z³", "verify/numerics.py",
            "3 * z ** 2 - 15 " "* z ** 3", "3 * z ** 2 - 9 * z ** 3", ("numerics.symbolic_special_functions",))
