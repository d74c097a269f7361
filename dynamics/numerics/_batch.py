"""Many solves of one ODE in one compiled call: rows of initial states and/or parameters integrated in a
loop over the kernels of ``dynamics.numerics.ode`` (the kernels behind ``solve_ode_batch``).

Each kernel fills the rows ``first:last`` of preallocated outputs, serially or in a ``prange`` loop: starting
the worker threads and waiting for the slowest costs from microseconds on an idle machine to milliseconds on a
loaded one, more than a small batch takes on one thread, so ``solve_ode_batch`` times the first row and
goes parallel only when the rest is long enough to pay for it.

These kernels serve every right-hand side (an integer address; compiled once, cached on disk). Dopri5 batches can
also run on kernels compiled for one right-hand side, ``dynamics.numerics._batch_dopri5`` (faster per row, seconds
to compile per right-hand side and process).
"""
import math

import numba as nb
import numpy as np

from ._explicit_rk import integrate_into
from ._function_address import jac_from_address, rhs_from_address
from ._rosenbrock import integrate_rosenbrock


@nb.njit(cache=True)
def _explicit_row(b, rhs_address, t0, t1, y0s, t_eval, params, method, rtol, atol, step, max_steps, y_out, status,
                  nfev, nsteps, reached):
    # the solution is written straight into the batch's row (no copy)
    _, _, k, s, f, steps = integrate_into(rhs_from_address(rhs_address), t0, t1, y0s[b], t_eval, True, params[b],
                                          method, rtol, atol, step, max_steps, np.empty(t_eval.shape[0]), y_out[b])
    y_out[b, k:] = math.nan  # the outputs a failed solve did not reach
    status[b], nfev[b], nsteps[b], reached[b] = s, f, steps, k


@nb.njit(cache=True)
def explicit_rows(first, last, rhs_address, t0, t1, y0s, t_eval, params, method, rtol, atol, step, max_steps, y_out,
                  status, nfev, nsteps, reached):
    """Rows first:last of (y0s, params) integrated by the explicit kernel into y_out (B, m, n; the outputs a
    failed solve did not reach are set to NaN), status, nfev, nsteps and reached, one after another."""
    for b in range(first, last):
        _explicit_row(b, rhs_address, t0, t1, y0s, t_eval, params, method, rtol, atol, step, max_steps, y_out,
                      status, nfev, nsteps, reached)


@nb.njit(cache=True, parallel=True)
def explicit_rows_parallel(first, last, rhs_address, t0, t1, y0s, t_eval, params, method, rtol, atol, step,
                           max_steps, y_out, status, nfev, nsteps, reached):
    """``explicit_rows`` in a prange loop."""
    for b in nb.prange(first, last):
        _explicit_row(b, rhs_address, t0, t1, y0s, t_eval, params, method, rtol, atol, step, max_steps, y_out,
                      status, nfev, nsteps, reached)


@nb.njit(cache=True)
def _rosenbrock_row(b, rhs_address, jac_address, has_jac, t0, t1, y0s, t_eval, params, rtol, atol, lower, upper,
                    step, max_steps, autonomous, y_out, status, nfev, nsteps, reached):
    _, y, s, f, k = integrate_rosenbrock(rhs_from_address(rhs_address), jac_from_address(jac_address), has_jac, t0,
                                         t1, y0s[b], t_eval, True, params[b], rtol, atol, lower, upper, step,
                                         max_steps, autonomous)
    y_out[b, :y.shape[0]] = y
    y_out[b, y.shape[0]:] = math.nan  # the outputs a failed solve did not reach
    status[b], nfev[b], nsteps[b], reached[b] = s, f, k, y.shape[0]


@nb.njit(cache=True)
def rosenbrock_rows(first, last, rhs_address, jac_address, has_jac, t0, t1, y0s, t_eval, params, rtol, atol, lower,
                    upper, step, max_steps, autonomous, y_out, status, nfev, nsteps, reached):
    """As ``explicit_rows``, with the Rosenbrock kernel."""
    for b in range(first, last):
        _rosenbrock_row(b, rhs_address, jac_address, has_jac, t0, t1, y0s, t_eval, params, rtol, atol, lower, upper,
                        step, max_steps, autonomous, y_out, status, nfev, nsteps, reached)


@nb.njit(cache=True, parallel=True)
def rosenbrock_rows_parallel(first, last, rhs_address, jac_address, has_jac, t0, t1, y0s, t_eval, params, rtol, atol,
                             lower, upper, step, max_steps, autonomous, y_out, status, nfev, nsteps, reached):
    """``rosenbrock_rows`` in a prange loop."""
    for b in nb.prange(first, last):
        _rosenbrock_row(b, rhs_address, jac_address, has_jac, t0, t1, y0s, t_eval, params, rtol, atol, lower, upper,
                        step, max_steps, autonomous, y_out, status, nfev, nsteps, reached)
