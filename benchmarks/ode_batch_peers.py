"""Batched ODEs side by side with the best peers, in one run: ``solve_ode_batch`` against diffrax (``jax.vmap`` +
``jit``, Dopri5 with a PID controller, float64) and torchode (batched Dopri5, float64), with a loop of SciPy's
``solve_ivp`` (RK45) as the baseline.

The set-up of the published GPU ODE benchmarks: an ensemble of Lorenz systems, u0 = (1, 0, 0), σ = 10, β = 8/3, ρ
swept evenly over [0, 21], t in [0, 1], rtol = atol = 1e-8, the final state only, B = 256 ... 65,536. Every solver's
error is its largest deviation from a DOP853 solve at rtol = atol = 1e-13 (SciPy) on 64 rows spread over the sweep.
Times are the minimum over repeats after a warm-up that compiles (numba, XLA) or traces; SciPy's loop is timed on
64 rows and scaled to B. Peers missing from the environment are reported as such
(``pip install -e ".[bench]"`` installs them).

Ours runs three ways, back to back: the generic kernels (``specialise=False``: the rhs called through a pointer,
the method-generic stepping code; what ``solve_ode_batch`` ran before it had specialised kernels), the Dopri5
kernels specialised for the rhs (``specialise=True``, the same rhs returning a new array), and the specialised
kernels with the in-place contract ``lorenz_into(t, u, p, out)``. The first call of each specialised route
compiles it (seconds, once per rhs and process): that cold start is reported separately.

Run: python benchmarks/ode_batch_peers.py [--sizes 256 4096 65536] [--repeats 3]
"""
import argparse
import importlib.util
import time

import numba as nb
import numpy as np
from scipy.integrate import solve_ivp

from dynamics import numerics as nx

SIGMA, BETA, T1, TOL = 10.0, 8.0 / 3.0, 1.0, 1e-8
U0 = np.array([1.0, 0.0, 0.0])


@nb.njit(cache=True)
def lorenz(t, u, p):
    return np.array([SIGMA * (u[1] - u[0]), u[0] * (p[0] - u[2]) - u[1], u[0] * u[1] - BETA * u[2]])


@nb.njit(cache=True)
def lorenz_into(t, u, p, out):
    out[0] = SIGMA * (u[1] - u[0])
    out[1] = u[0] * (p[0] - u[2]) - u[1]
    out[2] = u[0] * u[1] - BETA * u[2]


def lorenz_np(t, u, rho):
    return [SIGMA * (u[1] - u[0]), u[0] * (rho - u[2]) - u[1], u[0] * u[1] - BETA * u[2]]


def best(fn, repeats, first=None):
    start = time.perf_counter()
    out = fn()
    if first is not None:
        first.append(time.perf_counter() - start)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


#: our routes: name -> (rhs, specialise)
ROUTES = {"generic": (lorenz, False), "specialised": (lorenz, True), "in-place": (lorenz_into, None)}


def ours(rhos, out=None, route="in-place"):
    rhs, specialise = ROUTES[route]
    options = nx.OdeOptions(rtol=TOL, atol=TOL)

    def run():
        sol = nx.solve_ode_batch(rhs, (0.0, T1), U0, [T1], params=rhos[:, None], options=options,
                                 specialise=specialise)
        sol.check()
        if out is not None:
            out["nfev"] = int(sol.nfev.sum())
        return sol.y[:, -1, :]
    return run


@nb.njit(cache=True)
def _rhs_loop(count, u, p):
    acc = 0.0
    for k in range(count):
        du = lorenz(0.0, u, p)
        acc += du[0]
        u[0] = 1.0 + 1e-9 * acc  # keep the calls from being hoisted
    return acc


@nb.njit(cache=True)
def _rhs_into_loop(count, u, p):
    acc = 0.0
    du = np.empty(3)
    for k in range(count):
        lorenz_into(0.0, u, p, du)
        acc += du[0]
        u[0] = 1.0 + 1e-9 * acc
    return acc


def rhs_nanoseconds(in_place, calls=2_000_000):
    """The cost of one call of the right-hand side alone: the form returning a new array, or the in-place form."""
    loop = _rhs_into_loop if in_place else _rhs_loop
    u, p = U0.copy(), np.array([10.0])
    loop(10, u, p)
    start = time.perf_counter()
    loop(calls, u, p)
    return 1e9 * (time.perf_counter() - start) / calls


def diffrax_solver(rhos):
    import jax

    jax.config.update("jax_enable_x64", True)
    import diffrax
    import jax.numpy as jnp

    def field(t, u, rho):
        return jnp.stack([SIGMA * (u[1] - u[0]), u[0] * (rho - u[2]) - u[1], u[0] * u[1] - BETA * u[2]])

    term, solver = diffrax.ODETerm(field), diffrax.Dopri5()
    controller = diffrax.PIDController(rtol=TOL, atol=TOL)

    @jax.jit
    @jax.vmap
    def solve(rho):
        sol = diffrax.diffeqsolve(term, solver, 0.0, T1, None, jnp.asarray(U0), args=rho,
                                  stepsize_controller=controller, max_steps=100_000)
        return sol.ys[-1]

    r = jnp.asarray(rhos)
    return lambda: np.asarray(solve(r).block_until_ready())


def torchode_solver(rhos):
    import torch
    import torchode as to

    r = torch.as_tensor(rhos, dtype=torch.float64)[:, None]

    def field(t, u):
        return torch.stack([SIGMA * (u[:, 1] - u[:, 0]), u[:, 0] * (r[:, 0] - u[:, 2]) - u[:, 1],
                            u[:, 0] * u[:, 1] - BETA * u[:, 2]], dim=1)

    term = to.ODETerm(field)
    step = to.Dopri5(term=term)
    controller = to.PIDController(atol=TOL, rtol=TOL, pcoeff=0.0, icoeff=1.0, dcoeff=0.0, term=term)
    solver = to.AutoDiffAdjoint(step, controller)
    y0 = torch.as_tensor(U0, dtype=torch.float64).repeat(len(rhos), 1)
    t_eval = torch.tensor([[0.0, T1]], dtype=torch.float64).repeat(len(rhos), 1)

    def run():
        with torch.no_grad():
            return solver.solve(to.InitialValueProblem(y0=y0, t_eval=t_eval)).ys[:, -1].numpy()
    return run


def scipy_loop(rhos):
    return lambda: np.array([solve_ivp(lorenz_np, (0.0, T1), U0, args=(rho,), rtol=TOL, atol=TOL).y[:, -1]
                             for rho in rhos])


def reference(rhos):
    return np.array([solve_ivp(lorenz_np, (0.0, T1), U0, method="DOP853", args=(rho,), rtol=1e-13, atol=1e-13).y[:, -1]
                     for rho in rhos])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 4096, 65536])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    peers = {"diffrax": diffrax_solver if importlib.util.find_spec("diffrax") else None,
             "torchode": torchode_solver if importlib.util.find_spec("torchode") else None}
    print(f"Lorenz ensembles, rtol = atol = {TOL:g}, final state; time per batch (minimum of {args.repeats}); "
          f"ratios: each of our routes' time over the peer's (below 1: we are faster); max error on 64 rows")
    evaluations = []
    cold = {}
    for B in args.sizes:
        rhos = np.linspace(0.0, 21.0, B)
        check = np.linspace(0, B - 1, 64).astype(int)
        exact = reference(rhos[check])
        times, errors = {}, {}
        for route in ROUTES:
            counts, first = {}, []
            times[route], y = best(ours(rhos, counts, route), args.repeats, first)
            errors[route] = np.abs(y[check] - exact).max()
            cold.setdefault(route, first[0])
            evaluations.append((B, route, times[route], counts["nfev"]))
        ours_line = "  ".join(f"{route} {1e3 * times[route]:8.1f} ms (err {errors[route]:.0e})" for route in ROUTES)
        print(f"B = {B:6d}  ours: {ours_line}", flush=True)
        for name, make in peers.items():
            if make is None:
                print(f"            {name}: not installed")
                continue
            t_peer, y_peer = best(make(rhos), args.repeats)
            err = np.abs(y_peer[check] - exact).max()
            ratios = "  ".join(f"{route} {times[route] / t_peer:5.2f}x" for route in ROUTES)
            print(f"            {name:9s} {1e3 * t_peer:8.1f} ms (err {err:.0e});  ours / {name}: {ratios}",
                  flush=True)
        t_scipy, y_scipy = best(scipy_loop(rhos[check]), 1)
        t_scipy *= B / len(check)
        print(f"            SciPy loop {t_scipy:8.2f} s (err {np.abs(y_scipy - exact).max():.0e})", flush=True)
    print("\nFirst call of each route in this process (the specialised ones compile their kernels, once per rhs and system size): "
          + ", ".join(f"{route} {t:.2f} s" for route, t in cold.items()))
    bound = {False: rhs_nanoseconds(False), True: rhs_nanoseconds(True)}
    threads = nb.get_num_threads()
    print(f"\nWhere our time goes ({threads} numba threads): the right-hand side alone costs {bound[False]:.0f} ns "
          f"per call returning an array, {bound[True]:.0f} ns in place. A route's share of that bound is the rhs's "
          f"own cost over the route's cost per evaluation (1 would be a solver that costs nothing beyond its "
          f"right-hand side)")
    for B, route, t, nfev in evaluations:
        per_eval = 1e9 * t * threads / nfev
        rhs = bound[ROUTES[route][1] is None]
        print(f"  B = {B:6d}, {route:11s}: {nfev / B:.0f} evaluations per row, {per_eval:.0f} thread-ns per "
              f"evaluation, {rhs / per_eval:.0%} of the bound")


if __name__ == "__main__":
    main()
