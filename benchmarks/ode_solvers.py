"""Per-solve time of the numba integrators against scipy.integrate.solve_ivp (and CyRK if installed), one solve
and batches.

Same method (dopri5 = RK45, dop853 = DOP853), same rtol/atol, same problem, same output times;
accuracy is the max error against the exact solution. Problems:

(a) 64 uncoupled logistic modes y_i' = r_i y_i (1 - y_i), closed form;
(b) rotated logistic modes y = Q z (every state coupled to every other through the nonlinearity),
    exact solution Q z(t): n = 20 with a Haar Q (O(n²) right-hand side) and n = 100 with Q a chain
    of Givens rotations (O(n) right-hand side, so the solver and not a dense matrix product is timed).

SciPy is timed twice: given the numpy right-hand side a user would write (``rates * y * (1 - y)``: the
target of issue 14 is 50x on problem (a)), and given the same numba-compiled right-hand side (the fastest
way to use it from Python; the bound table compares against this one). Times are the minimum over
repeats after a warm-up (compilation excluded for every solver): the minimum is the least disturbed by
other load on the machine. The batch table times B solves of problem (a) with different rates:
one ``solve_ode_batch`` call (prange over rows) against a Python loop of ``solve_ivp`` with the numpy
right-hand side and a loop of ``solve_ode``.
Run: python benchmarks/ode_solvers.py [--quick]
"""
import argparse
import importlib.util
import time

import numba as nb
import numpy as np
from scipy.integrate import solve_ivp

from dynamics import numerics as nx
from dynamics.numerics import reference_problems as rp

T_END = 10.0
T_EVAL = np.linspace(0.0, T_END, 101)
TOLERANCES = ((1e-6, 1e-9), (1e-10, 1e-12))
PAIRS = (("dopri5", "RK45"), ("dop853", "DOP853"))


def problem_a(n=64, seed=0):
    rng = np.random.default_rng(seed)
    rates, y0 = rng.uniform(0.5, 2.0, n), rng.uniform(0.01, 0.2, n)
    numpy_rhs = lambda t, y: rates * y * (1.0 - y)  # noqa: E731 (what a user writes for solve_ivp)
    return ("(a) 64 logistic modes", rp.logistic_rhs, y0, rates, lambda t: rp.logistic_exact(t, y0, rates),
            numpy_rhs)


def problem_b(n, givens=False):
    if givens:
        problem = rp.givens_logistic_problem(n, seed=0)
        return f"(b) {n} coupled (Givens)", rp.givens_logistic_rhs, *problem, None
    problem = rp.rotated_logistic_problem(n, seed=0)
    Q = problem.params[n:].reshape(n, n)
    rates = problem.params[:n]
    numpy_rhs = lambda t, y: Q @ (rates * (Q.T @ y) * (1.0 - Q.T @ y))  # noqa: E731
    return f"(b) {n} coupled (Haar)", rp.rotated_logistic_rhs, *problem, numpy_rhs


def timed(fn, repeats):
    fn()  # warm-up: compilation and caches
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return float(np.min(times)), out


def cyrk_solver(rhs, params, n):
    """A CyRK C-callback wrapping the same right-hand side, or None without CyRK."""
    if importlib.util.find_spec("CyRK") is None:
        return None
    from CyRK import nb_diffeq_addr, nbsolve2_ivp

    n_params = params.size

    @nb.njit
    def diffeq(dy, t, y, args):
        out = rhs(t, nb.carray(y, (n,)).copy(), nb.carray(args, (n_params,)).copy())
        for i in range(n):
            dy[i] = out[i]

    address = nb_diffeq_addr(diffeq)

    def solve(y0, method, rtol, atol):
        res = nbsolve2_ivp(address, (0.0, T_END), y0, method=method, t_eval=T_EVAL, args=params, rtol=rtol, atol=atol)
        return res.y.T

    return solve


def rhs_cost(rhs, y0, params, calls=20_000):
    """Seconds per right-hand-side evaluation called from numba: what both solvers must pay."""
    @nb.njit
    def loop(count, y, p):
        total = 0.0
        for _ in range(count):
            total += rhs(0.0, y, p)[0]
        return total

    loop(1, y0, params)
    return timed(lambda: loop(calls, y0, params), 5)[0] / calls


def batch_table(repeats):
    """B solves of problem (a) with B rate vectors: one batch call vs loops of solve_ivp (numpy rhs) and solve_ode."""
    rng = np.random.default_rng(1)
    n = 64
    y0 = rng.uniform(0.01, 0.2, n)
    header = f"{'rows':>5s} {'method':7s} {'batch ms':>9s} {'per solve us':>13s} {'vs solve_ivp loop':>18s} " \
             f"{'vs solve_ode loop':>18s} {'max err':>8s}"
    print("\nBatches: B solves of problem (a) (rtol 1e-6), each row its own rates")
    print(header)
    print("-" * len(header))
    for rows in (16, 256):
        rates = rng.uniform(0.5, 2.0, (rows, n))
        exact = np.stack([rp.logistic_exact(T_EVAL, y0, r) for r in rates])
        for ours, theirs in PAIRS:
            options = nx.OdeOptions(method=ours, rtol=1e-6, atol=1e-9)
            t_batch, batch = timed(lambda: nx.solve_ode_batch(rp.logistic_rhs, (0.0, T_END), y0, T_EVAL, params=rates,
                                                              options=options).check(), repeats)
            t_loop, _ = timed(lambda: [nx.solve_ode(rp.logistic_rhs, (0.0, T_END), y0, t_eval=T_EVAL, params=r,
                                                    options=options) for r in rates],
                              max(2, repeats // 3))
            scipy_rows = rates[:16]  # a loop of solve_ivp is timed on 16 rows and scaled per solve

            def scipy_loop():
                return [solve_ivp(lambda t, y, r=r: r * y * (1.0 - y), (0.0, T_END), y0, method=theirs, t_eval=T_EVAL,
                                  rtol=1e-6, atol=1e-9) for r in scipy_rows]

            t_scipy, _ = timed(scipy_loop, 2)
            per_solve = t_batch / rows
            print(f"{rows:5d} {ours:7s} {1e3 * t_batch:9.2f} {1e6 * per_solve:13.1f} "
                  f"{(t_scipy / len(scipy_rows)) / per_solve:17.0f}x {(t_loop / rows) / per_solve:17.1f}x "
                  f"{np.abs(batch.y - exact).max():8.1e}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeats = 3 if args.quick else 15
    header = f"{'problem':24s} {'method':7s} {'rtol':>6s} {'ours ms':>8s} {'scipy np ms':>11s} {'speed-up':>9s} " \
             f"{'scipy nb ms':>11s} {'speed-up':>9s} {'err ours':>9s} {'err scipy':>9s}  cyrk (ms, speed-up of ours, err)"
    print("One solve: ours against solve_ivp given the numpy rhs a user writes (np) and the same numba rhs (nb)")
    print(header)
    print("-" * len(header))
    caps = []
    for name, rhs, y0, params, exact, numpy_rhs in (problem_a(), problem_b(20), problem_b(100, givens=True)):
        reference = exact(T_EVAL)
        cyrk = cyrk_solver(rhs, params, y0.size)
        per_evaluation = rhs_cost(rhs, y0, params)
        for ours, theirs in PAIRS:
            for rtol, atol in TOLERANCES:
                options = nx.OdeOptions(method=ours, rtol=rtol, atol=atol)
                t_ours, sol = timed(lambda: nx.solve_ode(rhs, (0.0, T_END), y0, t_eval=T_EVAL, params=params,
                                                         options=options).check(), repeats)
                t_scipy, ivp = timed(lambda: solve_ivp(lambda t, y: rhs(t, y, params), (0.0, T_END), y0,
                                                       method=theirs, t_eval=T_EVAL, rtol=rtol, atol=atol),
                                     max(2, repeats // 3))
                if numpy_rhs is not None:
                    t_numpy, _ = timed(lambda: solve_ivp(numpy_rhs, (0.0, T_END), y0, method=theirs, t_eval=T_EVAL,
                                                         rtol=rtol, atol=atol), max(2, repeats // 3))
                    numpy_cells = f"{1e3 * t_numpy:11.2f} {t_numpy / t_ours:8.0f}x"
                else:
                    numpy_cells = f"{'-':>11s} {'-':>9s}"
                err_ours = np.abs(sol.y - reference).max()
                err_scipy = np.abs(ivp.y.T - reference).max()
                line = (f"{name:24s} {ours:7s} {rtol:6.0e} {1e3 * t_ours:8.3f} {numpy_cells} {1e3 * t_scipy:11.2f} "
                        f"{t_scipy / t_ours:8.0f}x {err_ours:9.1e} {err_scipy:9.1e}")
                if cyrk is not None:
                    t_cyrk, y_cyrk = timed(lambda: cyrk(y0, theirs, rtol, atol), repeats)
                    line += f"  {1e3 * t_cyrk:7.3f} {t_cyrk / t_ours:5.1f}x {np.abs(y_cyrk - reference).max():8.1e}"
                print(line, flush=True)
                bound = t_scipy / (ivp.nfev * per_evaluation)
                caps.append((name, ours, rtol, t_scipy / ivp.nfev, bound, (t_scipy / t_ours) / bound))
    print("\nThe right-hand side alone bounds any solver's speed-up over SciPy with the same numba rhs: SciPy's time per")
    print("evaluation against the rhs cost, and the share of that bound we reach")
    for name, ours, rtol, scipy_per_eval, cap, share in caps:
        print(f"{name:24s} {ours:7s} {rtol:6.0e}  SciPy {1e6 * scipy_per_eval:6.2f} us/evaluation  "
              f"zero-overhead bound {cap:6.0f}x  reached {100 * share:4.0f}%")
    batch_table(repeats)


if __name__ == "__main__":
    main()
