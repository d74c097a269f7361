"""Many solves of one ODE in one compiled call: rows of initial states and/or parameters integrated in a
``prange`` loop over the kernels of :mod:`dynamics.numerics.ode` (the kernels behind :func:`solve_ode_batch`)."""
import math

import numba as nb
import numpy as np

from ._explicit_rk import integrate
from ._rosenbrock import integrate_rosenbrock


@nb.njit(cache=True, parallel=True)
def batch_explicit(rhs, t0, t1, y0s, t_eval, params, method, rtol, atol, step, max_steps):
    """Row b of (y0s, params) integrated by the explicit kernel; returns (y (B, m, n), status, nfev, nsteps,
    reached) with the rows a failed solve did not reach left NaN."""
    rows, n = y0s.shape
    m = t_eval.shape[0]
    y_out = np.full((rows, m, n), math.nan)
    status = np.empty(rows, dtype=np.int64)
    nfev = np.empty(rows, dtype=np.int64)
    nsteps = np.empty(rows, dtype=np.int64)
    reached = np.empty(rows, dtype=np.int64)
    for b in nb.prange(rows):
        _, y, s, f, k = integrate(rhs, t0, t1, y0s[b], t_eval, True, params[b], method, rtol, atol, step, max_steps)
        y_out[b, :y.shape[0]] = y
        status[b], nfev[b], nsteps[b], reached[b] = s, f, k, y.shape[0]
    return y_out, status, nfev, nsteps, reached


@nb.njit(cache=True, parallel=True)
def batch_rosenbrock(rhs, jac, has_jac, t0, t1, y0s, t_eval, params, rtol, atol, lower, upper, step, max_steps,
                     autonomous):
    """As :func:`batch_explicit`, with the Rosenbrock kernel."""
    rows, n = y0s.shape
    m = t_eval.shape[0]
    y_out = np.full((rows, m, n), math.nan)
    status = np.empty(rows, dtype=np.int64)
    nfev = np.empty(rows, dtype=np.int64)
    nsteps = np.empty(rows, dtype=np.int64)
    reached = np.empty(rows, dtype=np.int64)
    for b in nb.prange(rows):
        _, y, s, f, k = integrate_rosenbrock(rhs, jac, has_jac, t0, t1, y0s[b], t_eval, True, params[b], rtol, atol,
                                             lower, upper, step, max_steps, autonomous)
        y_out[b, :y.shape[0]] = y
        status[b], nfev[b], nsteps[b], reached[b] = s, f, k, y.shape[0]
    return y_out, status, nfev, nsteps, reached
