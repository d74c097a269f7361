"""Explicit Runge–Kutta integrators in numba, with error control and dense output (the kernels behind
``solve_ode``).

Methods (Hairer, Nørsett & Wanner, *Solving ODEs I*, Secs. II.4–II.6, II.10):

* ``"dopri5"``: Dormand–Prince 5(4), FSAL, Shampine's 4th-order dense output;
* ``"dop853"``: the 8(5,3) pair with its combined 5th/3rd-order error estimate and 7th-order
  dense output (three extra stages, evaluated only in steps that contain an output time);
* ``"rk4"``: the classical fixed-step 4th-order method, cubic Hermite dense output.

Step-size control is the standard one: an RMS error norm scaled by ``atol + rtol * max(|y|, |y_new|)``,
a safety factor 0.9, growth clamped to [0.2, 10], and Hairer's starting-step heuristic. Passing
``step`` to the adaptive pairs switches off error control (fixed steps), which is how the empirical
convergence order is measured.

The right-hand side is a numba first-class function ``rhs(t, y, params) -> dydt`` (see
``dynamics.numerics.ode``), so the integrator is compiled once for every right-hand side, on first
use, and cached on disk.
"""
import math
from typing import Callable, Tuple

import numba as nb
import numpy as np

from . import _tableaux as tab
from ._function_address import rhs_from_address

DOPRI5, DOP853, RK4 = 0, 1, 2
_ERROR_ESTIMATOR_ORDER = (4, 7, 4)
_STAGES = (6, tab.DOP853_STAGES, 4)
# error_model="numpy" lets divisions by zero give inf/nan (caught by the finiteness checks) instead of
# raising, which removes a branch per division and lets the per-state loops vectorise.

SUCCESS, MAX_STEPS, STEP_TOO_SMALL, NON_FINITE = 0, 1, 2, 3
# Not failures of a solve but of its arguments, found inside the kernels (``solve_explicit``): the caller
# checks the arguments again in Python for the error message.
RHS_SHAPE, INVALID_ARGUMENT = 4, 5

_RK4_A, _RK4_C = tab.RK4_A, tab.RK4_C
_RK4_B = tab.RK4_B[None, :].copy()
_D5_A, _D5_C = tab.DOPRI5_A, tab.DOPRI5_C
# Weight vectors stored as one-row matrices so that every tableau is read the same way.
_D5_B, _D5_E = tab.DOPRI5_B[None, :].copy(), tab.DOPRI5_E[None, :].copy()
_D5_P_T = np.ascontiguousarray(tab.DOPRI5_P.T)  # rows = powers of x, for contiguous accumulation
_D8_A, _D8_C, _D8_D = tab.DOP853_A, tab.DOP853_C, tab.DOP853_D
_D8_B, _D8_E3, _D8_E5 = (v[None, :].copy() for v in (tab.DOP853_B, tab.DOP853_E3, tab.DOP853_E5))
_D8_S, _D8_SX = tab.DOP853_STAGES, tab.DOP853_STAGES_EXTENDED


def _nonzero_columns(matrix):
    """Per row of ``matrix``: its nonzero columns in increasing order (padded with 0), and how many."""
    columns = np.zeros(matrix.shape, dtype=np.int64)
    counts = np.zeros(matrix.shape[0], dtype=np.int64)
    for r, row in enumerate(matrix):
        nonzero = np.flatnonzero(row)
        columns[r, :nonzero.size] = nonzero
        counts[r] = nonzero.size
    return columns, counts


_RK4_A_COLS, _RK4_A_COUNT = _nonzero_columns(_RK4_A)
_RK4_B_COLS, _RK4_B_COUNT = _nonzero_columns(_RK4_B)
_D5_A_COLS, _D5_A_COUNT = _nonzero_columns(_D5_A)
_D5_B_COLS, _D5_B_COUNT = _nonzero_columns(_D5_B)
_D8_A_COLS, _D8_A_COUNT = _nonzero_columns(_D8_A)
_D8_B_COLS, _D8_B_COUNT = _nonzero_columns(_D8_B)
_D8_D_COLS, _D8_D_COUNT = _nonzero_columns(_D8_D)
# The four rows of DOP853's dense-output matrix use the same stages (0 and 5..15): one list for all of them.
assert (_D8_D_COUNT == _D8_D_COUNT[0]).all() and (_D8_D_COLS == _D8_D_COLS[0]).all()
_D8_D_SHARED = _D8_D_COLS[0, :_D8_D_COUNT[0]].copy()


@nb.njit(cache=True, error_model="numpy")
def _combine(out, base, h, coefficients, row, columns, counts, K):
    """out = base + sum_j (h * coefficients[row, j]) K[j] over the nonzero coefficients, added in increasing j
    (the same roundings as a loop of axpys), up to four terms per pass over the states. Plain index loops,
    no views: each pass vectorises along the contiguous rows of K."""
    n = out.shape[0]
    count = counts[row]
    take = min(count, 4)
    last = max(take - 1, 0)  # indices past the last term repeat it (never read past the table)
    j0, j1, j2, j3 = columns[row, 0], columns[row, min(1, last)], columns[row, min(2, last)], columns[row, min(3, last)]
    c0, c1, c2, c3 = (h * coefficients[row, j0], h * coefficients[row, j1], h * coefficients[row, j2],
                      h * coefficients[row, j3])
    if take == 4:
        for i in range(n):
            out[i] = (((base[i] + c0 * K[j0, i]) + c1 * K[j1, i]) + c2 * K[j2, i]) + c3 * K[j3, i]
    elif take == 3:
        for i in range(n):
            out[i] = ((base[i] + c0 * K[j0, i]) + c1 * K[j1, i]) + c2 * K[j2, i]
    elif take == 2:
        for i in range(n):
            out[i] = (base[i] + c0 * K[j0, i]) + c1 * K[j1, i]
    elif take == 1:
        for i in range(n):
            out[i] = base[i] + c0 * K[j0, i]
    else:
        for i in range(n):
            out[i] = base[i]
    done = take
    while done < count:  # the remaining terms, in place (out is read and written at the same index)
        take = min(count - done, 4)
        last = take - 1
        j0, j1, j2, j3 = (columns[row, done], columns[row, done + min(1, last)], columns[row, done + min(2, last)],
                          columns[row, done + min(3, last)])
        c0, c1, c2, c3 = (h * coefficients[row, j0], h * coefficients[row, j1], h * coefficients[row, j2],
                          h * coefficients[row, j3])
        if take == 4:
            for i in range(n):
                out[i] = (((out[i] + c0 * K[j0, i]) + c1 * K[j1, i]) + c2 * K[j2, i]) + c3 * K[j3, i]
        elif take == 3:
            for i in range(n):
                out[i] = ((out[i] + c0 * K[j0, i]) + c1 * K[j1, i]) + c2 * K[j2, i]
        elif take == 2:
            for i in range(n):
                out[i] = (out[i] + c0 * K[j0, i]) + c1 * K[j1, i]
        else:
            for i in range(n):
                out[i] = out[i] + c0 * K[j0, i]
        done += take


@nb.njit(cache=True, error_model="numpy")
def _copy_into(source, K, row):
    for i in range(source.shape[0]):
        K[row, i] = source[i]


@nb.njit(cache=True, error_model="numpy")
def _all_finite(v):
    for x in v:
        if not math.isfinite(x):
            return False
    return True


@nb.njit(cache=True, error_model="numpy")
def _row_finite(M, row):
    for i in range(M.shape[1]):
        if not math.isfinite(M[row, i]):
            return False
    return True


@nb.njit(cache=True, error_model="numpy")
def _step(rhs, method, t, y, h, params, K, work, y_new):
    """One step of `method` from K[0] = f(t, y); fills K (with K[stages] = f(t+h, y_new)) and y_new.
    Returns the number of function evaluations and whether y_new and f(t+h, y_new) are finite."""
    n = y.shape[0]
    if method == DOPRI5:
        A, A_cols, A_count, B, B_cols, B_count, C, s_count = (_D5_A, _D5_A_COLS, _D5_A_COUNT, _D5_B, _D5_B_COLS,
                                                              _D5_B_COUNT, _D5_C, 6)
    elif method == DOP853:
        A, A_cols, A_count, B, B_cols, B_count, C, s_count = (_D8_A, _D8_A_COLS, _D8_A_COUNT, _D8_B, _D8_B_COLS,
                                                              _D8_B_COUNT, _D8_C, _D8_S)
    else:
        A, A_cols, A_count, B, B_cols, B_count, C, s_count = (_RK4_A, _RK4_A_COLS, _RK4_A_COUNT, _RK4_B, _RK4_B_COLS,
                                                              _RK4_B_COUNT, _RK4_C, 4)
    for s in range(1, s_count):
        _combine(work, y, h, A, s, A_cols, A_count, K)
        f = rhs(t + C[s] * h, work, params)
        for i in range(n):
            K[s, i] = f[i]
    _combine(y_new, y, h, B, 0, B_cols, B_count, K)
    f = rhs(t + h, y_new, params)
    # x - x is 0 for a finite x and NaN otherwise: a branch-free test, so that the loop vectorises
    not_finite = False
    for i in range(n):
        K[s_count, i] = f[i]
        not_finite |= ((f[i] - f[i]) != 0.0) | ((y_new[i] - y_new[i]) != 0.0)
    return s_count, not not_finite


@nb.njit(cache=True, error_model="numpy")
def _spacing(t):
    """The gap between t and the next larger double (numpy's spacing, without a ufunc call)."""
    if t == 0.0:
        return 5e-324
    exponent = math.frexp(t)[1]
    return math.ldexp(1.0, exponent - 53)


@nb.njit(cache=True, error_model="numpy")
def _error_norm(method, h, y, y_new, K, atol, rtol, terms):
    """Scaled RMS norm of the embedded error estimate (DOP853: the combined 5th/3rd-order estimate).
    The squared scaled errors are computed per state in a loop that vectorises (into ``terms``, shape
    (2, n)), then summed in order in a second loop, so the sum rounds exactly as one sequential loop."""
    n = y.shape[0]
    if method == DOPRI5:
        for i in range(n):
            e = 0.0
            for j in range(7):
                e += _D5_E[0, j] * K[j, i]
            terms[0, i] = (h * e / (atol[i] + rtol * max(abs(y[i]), abs(y_new[i])))) ** 2
        acc = 0.0
        for i in range(n):
            acc += terms[0, i]
        return math.sqrt(acc / n)
    for i in range(n):
        scale = atol[i] + rtol * max(abs(y[i]), abs(y_new[i]))
        a5 = 0.0
        a3 = 0.0
        for j in range(_D8_S + 1):
            a5 += _D8_E5[0, j] * K[j, i]
            a3 += _D8_E3[0, j] * K[j, i]
        terms[0, i] = (a5 / scale) ** 2
        terms[1, i] = (a3 / scale) ** 2
    e5 = 0.0
    e3 = 0.0
    for i in range(n):
        e5 += terms[0, i]
        e3 += terms[1, i]
    if e5 == 0.0 and e3 == 0.0:
        return 0.0
    return abs(h) * e5 / math.sqrt((e5 + 0.01 * e3) * n)


@nb.njit(cache=True, error_model="numpy")
def _prepare_dense(rhs, method, t, y, y_new, h, params, K, work, Q):
    """Per-step interpolation coefficients Q; returns the extra function evaluations."""
    n = y.shape[0]
    if method == DOPRI5:
        # Q[k] = sum_j P[k, j] K[j] over the six nonzero columns (K[1] has none), all four rows in one pass
        for i in range(n):
            k0, k2, k3, k4, k5, k6 = K[0, i], K[2, i], K[3, i], K[4, i], K[5, i], K[6, i]
            for k in range(4):
                Q[k, i] = (_D5_P_T[k, 0] * k0 + _D5_P_T[k, 2] * k2 + _D5_P_T[k, 3] * k3 + _D5_P_T[k, 4] * k4
                           + _D5_P_T[k, 5] * k5 + _D5_P_T[k, 6] * k6)
        return 0
    if method == DOP853:
        for s in range(_D8_S + 1, _D8_SX):
            _combine(work, y, h, _D8_A, s, _D8_A_COLS, _D8_A_COUNT, K)
            _copy_into(rhs(t + _D8_C[s] * h, work, params), K, s)
        for i in range(n):
            dy = y_new[i] - y[i]
            Q[0, i] = dy
            Q[1, i] = h * K[0, i] - dy
            Q[2, i] = 2.0 * dy - h * (K[_D8_S, i] + K[0, i])
        # Q[3 + r] = h sum_j D[r, j] K[j] over the stages j all four rows use, the four rows in one pass
        for i in range(n):
            a0 = 0.0
            a1 = 0.0
            a2 = 0.0
            a3 = 0.0
            for c in range(_D8_D_SHARED.shape[0]):
                j = _D8_D_SHARED[c]
                k = K[j, i]
                a0 += _D8_D[0, j] * k
                a1 += _D8_D[1, j] * k
                a2 += _D8_D[2, j] * k
                a3 += _D8_D[3, j] * k
            Q[3, i] = h * a0
            Q[4, i] = h * a1
            Q[5, i] = h * a2
            Q[6, i] = h * a3
        return _D8_SX - _D8_S - 1
    return 0


@nb.njit(cache=True, error_model="numpy")
def _dense_block(method, t, h, y, y_new, K, Q, t_eval, first, last, out):
    """The interpolant at t_eval[first:last] (all inside (t, t + h]) into out[first:last]; one call per
    step, not per point. Returns False if a value is not finite (tested without branches, as in _step)."""
    n = y.shape[0]
    not_finite = False
    for row in range(first, last):
        x = (t_eval[row] - t) / h
        if x == 1.0:
            for i in range(n):
                out[row, i] = y_new[i]
                not_finite |= (y_new[i] - y_new[i]) != 0.0
        elif method == DOPRI5:
            for i in range(n):
                v = y[i] + h * x * (Q[0, i] + x * (Q[1, i] + x * (Q[2, i] + x * Q[3, i])))
                out[row, i] = v
                not_finite |= (v - v) != 0.0
        elif method == DOP853:
            xm = 1.0 - x
            for i in range(n):
                acc = Q[6, i] * x
                acc = (acc + Q[5, i]) * xm
                acc = (acc + Q[4, i]) * x
                acc = (acc + Q[3, i]) * xm
                acc = (acc + Q[2, i]) * x
                acc = (acc + Q[1, i]) * xm
                acc = (acc + Q[0, i]) * x
                v = y[i] + acc
                out[row, i] = v
                not_finite |= (v - v) != 0.0
        else:
            h00 = (1.0 + 2.0 * x) * (1.0 - x) ** 2
            h10 = x * (1.0 - x) ** 2
            h01 = x * x * (3.0 - 2.0 * x)
            h11 = x * x * (x - 1.0)
            for i in range(n):
                v = h00 * y[i] + h10 * h * K[0, i] + h01 * y_new[i] + h11 * h * K[4, i]
                out[row, i] = v
                not_finite |= (v - v) != 0.0
    return not not_finite


#: DOPRI5 steps with at most this many output times evaluate the interpolant directly from the stages (six
#: multiply-adds per value, no per-step coefficients); steps with more go through the coefficients Q (four per
#: value after 24 per state per step). Measured at n = 64: 74 ns against 255 ns for a step with three outputs.
DIRECT_DENSE_ROWS = 6


@nb.njit(cache=True, error_model="numpy", inline="always")
def _dopri5_weight(h, x, j):
    """h·b_j(x) = h·x·Σ_k P[k, j] x^k, the weight of stage j in the DOPRI5 interpolant."""
    return h * x * (_D5_P_T[0, j] + x * (_D5_P_T[1, j] + x * (_D5_P_T[2, j] + x * _D5_P_T[3, j])))


@nb.njit(cache=True, error_model="numpy")
def _dense_dopri5_direct(t, h, y, y_new, K, t_eval, first, last, out):
    """The DOPRI5 interpolant y + h Σ_j b_j(x) K_j at t_eval[first:last] into out, with the weights
    b_j(x) = x Σ_k P[k, j] x^k formed per output time. Returns False if a value is not finite."""
    n = y.shape[0]
    not_finite = False
    for row in range(first, last):
        x = (t_eval[row] - t) / h
        if x == 1.0:
            for i in range(n):
                out[row, i] = y_new[i]
                not_finite |= (y_new[i] - y_new[i]) != 0.0
            continue
        b0 = _dopri5_weight(h, x, 0)
        b2, b3, b4, b5, b6 = (_dopri5_weight(h, x, 2), _dopri5_weight(h, x, 3), _dopri5_weight(h, x, 4),
                              _dopri5_weight(h, x, 5), _dopri5_weight(h, x, 6))
        for i in range(n):
            v = y[i] + (b0 * K[0, i] + b2 * K[2, i] + b3 * K[3, i] + b4 * K[4, i] + b5 * K[5, i] + b6 * K[6, i])
            out[row, i] = v
            not_finite |= (v - v) != 0.0
    return not not_finite


@nb.njit(cache=True, error_model="numpy")
def _next_time(t, t1, h_abs, attempts, max_steps):
    """The end of the next step attempt: ``(SUCCESS, t + h_abs)``, or t1 when that lands within 10 ulps of it; or
    ``(MAX_STEPS, t)`` past ``max_steps`` attempts, ``(STEP_TOO_SMALL, t)`` when h_abs is below 10 ulps of t."""
    if attempts > max_steps:
        return MAX_STEPS, t
    min_step = 10.0 * _spacing(t)
    if h_abs < min_step:
        return STEP_TOO_SMALL, t
    t_new = t + h_abs
    if t_new >= t1 or t1 - t_new < min_step:
        t_new = t1
    return SUCCESS, t_new


@nb.njit(cache=True, error_model="numpy")
def _step_factor(err, rejected, exponent):
    """The step-size controller: the factor for the next step after a step of error norm ``err`` (accepted when
    ``err < 1``; no growth right after a rejection), bounded to [0.2, 10] (Hairer et al., Sec. II.4)."""
    if err < 1.0:
        factor = 10.0 if err == 0.0 else min(10.0, 0.9 * err ** exponent)
        return min(1.0, factor) if rejected else factor
    return 0.2 if not math.isfinite(err) else max(0.2, 0.9 * err ** exponent)


@nb.njit(cache=True, error_model="numpy")
def _initial_trial_step(t0, t1, y0, f0, rtol, atol, work):
    """The first half of :func:`_initial_step`: the trial step ``h0`` from the norms of y0 and f0, with
    ``y0 + h0 * f0`` written into ``work``; returns ``(h0, d1)``, d1 the scaled norm of f0."""
    n = y0.shape[0]
    d0 = 0.0
    d1 = 0.0
    for i in range(n):
        scale = atol[i] + abs(y0[i]) * rtol
        x = y0[i] / scale
        d0 += x * x
        x = f0[i] / scale
        d1 += x * x
    d0 = math.sqrt(d0 / n)
    d1 = math.sqrt(d1 / n)
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
    h0 = min(h0, t1 - t0)
    for i in range(n):
        work[i] = y0[i] + h0 * f0[i]
    return h0, d1


@nb.njit(cache=True, error_model="numpy")
def _initial_step_from(t0, t1, y0, f0, f1, h0, d1, order, rtol, atol):
    """The second half of :func:`_initial_step`: the starting step from f1 = f(t0 + h0, y0 + h0 * f0)."""
    n = y0.shape[0]
    d2 = 0.0
    for i in range(n):
        x = (f1[i] - f0[i]) / (atol[i] + abs(y0[i]) * rtol)
        d2 += x * x
    d2 = math.sqrt(d2 / n) / h0
    if not math.isfinite(d2):
        return h0 * 1e-3
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / (order + 1))
    return min(100.0 * h0, h1, t1 - t0)


@nb.njit(cache=True, error_model="numpy")
def _initial_step(rhs, t0, t1, y0, f0, params, order, rtol, atol, work):
    """Hairer, Nørsett & Wanner, Sec. II.4: a starting step from two derivative evaluations (RMS norms
    summed in order, in loops rather than array expressions: no temporaries). Its two halves take no ``rhs``, so
    that kernels compiled for one right-hand side (``_batch_dopri5``) share them without a cache entry per rhs."""
    h0, d1 = _initial_trial_step(t0, t1, y0, f0, rtol, atol, work)
    f1 = rhs(t0 + h0, work, params)
    return _initial_step_from(t0, t1, y0, f0, f1, h0, d1, order, rtol, atol)


@nb.njit(cache=True, error_model="numpy")
def integrate(rhs: Callable[[float, np.ndarray, np.ndarray], np.ndarray], t0: float, t1: float, y0: np.ndarray,
              t_eval: np.ndarray, dense: bool, params: np.ndarray, method: int, rtol: float, atol: np.ndarray,
              step: float, max_steps: int) -> Tuple[np.ndarray, np.ndarray, int, int, int]:
    """The explicit integrator itself, callable from numba code (no argument checking: see
    ``solve_ode``, which documents the arguments).

    ``rhs`` is a first-class function (a ``CompiledFunction`` from Python);
    ``method`` is DOPRI5, DOP853 or RK4; ``dense=True`` returns the solution at ``t_eval`` (sorted,
    inside [t0, t1]), otherwise at every accepted step; ``step > 0`` means fixed steps of about that
    size, ending exactly at ``t1``. Returns ``(t, y, status, nfev, nsteps)`` with only the rows
    reached; ``status`` is SUCCESS, MAX_STEPS, STEP_TOO_SMALL or NON_FINITE.

    Parameters
    ----------
    rhs : numba first-class function
        ``rhs(t, y, params) -> dydt`` of type ``RHS_SIGNATURE`` (float64, float64[::1], float64[::1]) ->
        float64[::1]: from Python ``compiled_function(f)`` of an ``@numba.njit`` function ``f``; in numba code
        such an object, the dispatcher itself or ``rhs_from_address(address)``.
    t0, t1 : float
        Start and end times, finite, t1 > t0.
    y0 : ndarray, shape (n,), float64
        Initial state, C-contiguous, n >= 1; not modified.
    t_eval : ndarray, shape (m,), float64
        Output times, sorted, inside [t0, t1], read only when ``dense`` (pass an empty array otherwise).
    dense : bool
        True: the solution at ``t_eval`` (times <= t0 get y0); False: t0 and every accepted step.
    params : ndarray, shape (p,), float64
        Passed to ``rhs`` unchanged (may be empty).
    method : int
        ``DOPRI5`` (0), ``DOP853`` (1) or ``RK4`` (2); RK4 has no error estimate and needs ``step > 0``.
    rtol : float
        Relative tolerance, in [1e-15, 1]; unused with fixed steps.
    atol : ndarray, shape (n,), float64
        Absolute tolerance per state, finite and > 0; unused with fixed steps.
    step : float
        0 for adaptive steps; > 0 for ceil((t1 − t0)/step) equal steps ending exactly at t1, without error
        control.
    max_steps : int
        Largest number of step attempts (rejected ones included), >= 1.

    Returns
    -------
    Tuple[ndarray, ndarray, int, int, int]
        ``(t, y, status, nfev, nsteps)``, a plain tuple for numba callers: the times reached, shape (k,), the
        states there, shape (k, n) (rows up to the first non-finite one when a step fails), the status code
        (SUCCESS 0, MAX_STEPS 1, STEP_TOO_SMALL 2, NON_FINITE 3; RHS_SHAPE 4 if ``rhs`` returns an array of
        another length), the number of ``rhs`` evaluations and of accepted steps.

    Examples
    --------
    >>> import numba
    >>> from dynamics.numerics.ode import compiled_function
    >>> @numba.njit
    ... def decay(t, y, params):
    ...     return -params[0] * y
    >>> rhs = compiled_function(decay)
    >>> t, y, status, nfev, nsteps = integrate(rhs, 0.0, 1.0, np.ones(1), np.array([0.5, 1.0]), True,
    ...                                        np.array([2.0]), DOPRI5, 1e-10, np.full(1, 1e-12), 0.0, 10_000)
    >>> status == SUCCESS, t.tolist(), bool(np.allclose(y[:, 0], np.exp(-2.0 * t), rtol=1e-9, atol=0.0))
    (True, [0.5, 1.0], True)

    Four fixed RK4 steps, the solution at every step (t0 included), 4 evaluations per step and one at t0:

    >>> t, y, status, nfev, nsteps = integrate(rhs, 0.0, 1.0, np.ones(1), np.zeros(0), False, np.array([2.0]),
    ...                                        RK4, 1e-6, np.full(1, 1e-9), 0.25, 10_000)
    >>> t.tolist(), y.shape, status, nfev, nsteps
    ([0.0, 0.25, 0.5, 0.75, 1.0], (5, 1), 0, 17, 4)
    """
    m = t_eval.shape[0] if dense else 64
    ts, ys, k, status, nfev, nsteps = integrate_into(rhs, t0, t1, y0, t_eval, dense, params, method, rtol, atol,
                                                     step, max_steps, np.empty(m), np.empty((m, y0.shape[0])))
    if k == ts.shape[0]:  # every output time reached: nothing to trim
        return ts, ys, status, nfev, nsteps
    return ts[:k].copy(), ys[:k].copy(), status, nfev, nsteps


@nb.njit(cache=True, error_model="numpy")
def integrate_into(rhs, t0, t1, y0, t_eval, dense, params, method, rtol, atol, step, max_steps, ts,
                   ys) -> Tuple[np.ndarray, np.ndarray, int, int, int, int]:
    """``integrate`` writing into given outputs ``ts`` (m,) and ``ys`` (m, n), m = len(t_eval) for dense
    output (a row of a batch's output array, say: no copy), any m >= 1 otherwise (grown as needed). Returns
    ``(ts, ys, k, status, nfev, nsteps)``: rows ``:k`` hold the solution (ts and ys are new arrays if they grew).

    Parameters
    ----------
    rhs, t0, t1, y0, t_eval, dense, params, method, rtol, atol, step, max_steps
        As in ``integrate``.
    ts : ndarray, shape (m,), float64
        Output times, written in place: m = len(t_eval) exactly for dense output (no bounds check), m >= 1
        otherwise.
    ys : ndarray, shape (m, n), float64
        Output states, written in place, rows as ``ts``.

    Returns
    -------
    Tuple[ndarray, ndarray, int, int, int, int]
        ``(ts, ys, k, status, nfev, nsteps)``, a plain tuple for numba callers: the output arrays (``ts`` and
        ``ys`` themselves unless they grew), the number k of rows that hold the solution, and status, nfev and
        nsteps as in ``integrate``.

    Examples
    --------
    >>> import numba
    >>> from dynamics.numerics.ode import compiled_function
    >>> @numba.njit
    ... def decay(t, y, params):
    ...     return -params[0] * y
    >>> ts, ys = np.empty(2), np.empty((2, 1))
    >>> out_t, out_y, k, status, nfev, nsteps = integrate_into(
    ...     compiled_function(decay), 0.0, 1.0, np.ones(1), np.array([0.5, 1.0]), True, np.array([2.0]), DOPRI5,
    ...     1e-10, np.full(1, 1e-12), 0.0, 10_000, ts, ys)
    >>> out_y is ys, k, status, bool(np.allclose(ys[:, 0], np.exp([-1.0, -2.0]), rtol=1e-9, atol=0.0))
    (True, 2, 0, True)
    """
    n = y0.shape[0]
    m = ts.shape[0]
    order = _ERROR_ESTIMATOR_ORDER[method]
    K = np.empty((_D8_SX, n))
    work = np.empty(n)
    y = y0.copy()
    y_new = np.empty(n)
    Q = np.empty((7, n))
    terms = np.empty((2, n))
    k = 0
    if dense:
        while k < m and t_eval[k] <= t0:
            ts[k] = t_eval[k]
            _copy_into(y0, ys, k)
            k += 1
    else:
        ts[0] = t0
        _copy_into(y0, ys, 0)
        k = 1

    f = rhs(t0, y, params)
    nfev = 1
    if f.shape[0] != n:
        return ts, ys, k, RHS_SHAPE, nfev, 0
    _copy_into(f, K, 0)  # K[0] holds f(t, y) at the start of every step (FSAL)
    if not _all_finite(f):
        return ts, ys, k, NON_FINITE, nfev, 0
    fixed = step > 0.0
    if fixed:
        n_fixed = max(1, int(math.ceil((t1 - t0) / step - 1e-9)))
        h_fixed = (t1 - t0) / n_fixed
        h_abs = h_fixed
    else:
        n_fixed = 0
        h_fixed = 0.0
        h_abs = _initial_step(rhs, t0, t1, y0, f, params, order, rtol, atol, work)
        nfev += 1

    t = t0
    status = SUCCESS
    nsteps = 0
    attempts = 0
    exponent = -1.0 / (order + 1)
    while t < t1:
        if fixed:
            h = h_fixed
            t_new = t1 if nsteps + 1 == n_fixed else t0 + (nsteps + 1) * h_fixed
            h = t_new - t
            attempts += 1
            if attempts > max_steps:
                status = MAX_STEPS
                break
            evaluations, finite = _step(rhs, method, t, y, h, params, K, work, y_new)
            nfev += evaluations
            if not finite:
                status = NON_FINITE
                break
        else:
            rejected = False
            while True:
                attempts += 1
                status, t_new = _next_time(t, t1, h_abs, attempts, max_steps)
                if status != SUCCESS:
                    break
                h = t_new - t
                evaluations, finite = _step(rhs, method, t, y, h, params, K, work, y_new)
                nfev += evaluations
                err = _error_norm(method, h, y, y_new, K, atol, rtol, terms) if finite else math.inf
                h_abs = h * _step_factor(err, rejected, exponent)
                if err < 1.0:
                    break
                rejected = True
            if status != SUCCESS:
                break

        nsteps += 1
        if dense:
            last = k
            while last < m and t_eval[last] <= t_new:
                ts[last] = t_eval[last]
                last += 1
            if last > k:
                if method == DOPRI5 and last - k <= DIRECT_DENSE_ROWS:
                    finite = _dense_dopri5_direct(t, h, y, y_new, K, t_eval, k, last, ys)
                else:
                    nfev += _prepare_dense(rhs, method, t, y, y_new, h, params, K, work, Q)
                    finite = _dense_block(method, t, h, y, y_new, K, Q, t_eval, k, last, ys)
                if not finite:
                    status = NON_FINITE
                    # rows up to the first non-finite one are kept
                    while k < last and _row_finite(ys, k):
                        k += 1
                    break
                k = last
        else:
            if k == ts.shape[0]:
                ts2 = np.empty(2 * k)
                ys2 = np.empty((2 * k, n))
                for j in range(k):  # element by element: slice assignments compile numba's shape-error formatting
                    ts2[j] = ts[j]
                    _copy_into(ys[j], ys2, j)
                ts, ys = ts2, ys2
            ts[k] = t_new
            _copy_into(y_new, ys, k)
            k += 1
        if status != SUCCESS:
            break
        t = t_new
        for i in range(n):
            y[i] = y_new[i]
        last = _STAGES[method]
        for i in range(n):
            K[0, i] = K[last, i]
    return ts, ys, k, status, nfev, nsteps


@nb.njit(cache=True, error_model="numpy")
def _valid_arguments(t0, t1, y0, t_eval, params, atol):
    """The value checks of ``solve_ode`` that need a pass over an array (finite y0,
    params and atol > 0; t_eval sorted inside [t0, t1]), done here at no cost instead of in numpy calls."""
    if not (_all_finite(y0) and _all_finite(params)):
        return False
    for i in range(atol.shape[0]):
        if not (atol[i] > 0.0 and math.isfinite(atol[i])):
            return False
    for i in range(t_eval.shape[0]):
        if not (t0 <= t_eval[i] <= t1) or (i > 0 and t_eval[i] < t_eval[i - 1]):
            return False
    return True


@nb.njit(cache=True, error_model="numpy")
def solve_explicit(rhs_address, t0, t1, y0, t_eval, dense, params, method, rtol, atol_value, atol, step,
                   max_steps) -> Tuple[np.ndarray, np.ndarray, int, int, int]:
    """``integrate`` for Python callers: ``rhs`` given by its jit address (an integer, unboxed in
    nanoseconds; ``dynamics.numerics._function_address``), ``atol`` either one value per state or, when
    ``atol`` is empty, ``atol_value`` for every state. The array checks of the arguments are done here: status
    INVALID_ARGUMENT (nothing integrated) if one fails, RHS_SHAPE if rhs returns the wrong shape.

    Parameters
    ----------
    rhs_address : int
        ``compiled_function(f).jit_address`` of an ``@numba.njit`` right-hand side ``f(t, y, params)``.
    t0, t1, y0, t_eval, dense, params, method, rtol, step, max_steps
        As in ``integrate``; y0, params and t_eval are checked here (finite; t_eval sorted inside
        [t0, t1]), the scalars are not.
    atol_value : float
        The absolute tolerance of every state when ``atol`` is empty; ignored otherwise.
    atol : ndarray, shape (n,) or (0,), float64
        Absolute tolerance per state (finite, > 0: checked here), or empty to use ``atol_value``.

    Returns
    -------
    Tuple[ndarray, ndarray, int, int, int]
        ``(t, y, status, nfev, nsteps)`` as ``integrate`` returns it, a plain tuple for numba callers; or
        empty arrays of shapes (0,) and (0, n) with status INVALID_ARGUMENT (5) when a check fails.

    Examples
    --------
    >>> import numba
    >>> from dynamics.numerics.ode import compiled_function
    >>> @numba.njit
    ... def decay(t, y, params):
    ...     return -params[0] * y
    >>> address = compiled_function(decay).jit_address
    >>> t, y, status, nfev, nsteps = solve_explicit(address, 0.0, 1.0, np.ones(1), np.array([0.5, 1.0]), True,
    ...                                             np.array([2.0]), DOPRI5, 1e-10, 1e-12, np.zeros(0), 0.0, 10_000)
    >>> status == SUCCESS, bool(np.allclose(y[:, 0], np.exp([-1.0, -2.0]), rtol=1e-9, atol=0.0))
    (True, True)
    >>> t, y, status, nfev, nsteps = solve_explicit(address, 0.0, 1.0, np.ones(1), np.array([0.5, 2.0]), True,
    ...                                             np.array([2.0]), DOPRI5, 1e-10, 1e-12, np.zeros(0), 0.0, 10_000)
    >>> status == INVALID_ARGUMENT, y.shape  # t_eval leaves [t0, t1]
    (True, (0, 1))
    """
    n = y0.shape[0]
    if not _valid_arguments(t0, t1, y0, t_eval, params, atol):
        return np.empty(0), np.empty((0, n)), INVALID_ARGUMENT, 0, 0
    if atol.shape[0] == 0:
        atol = np.full(n, atol_value)
    return integrate(rhs_from_address(rhs_address), t0, t1, y0, t_eval, dense, params, method, rtol, atol, step,
                     max_steps)
