"""The modified Rosenbrock 2(3) method of Shampine & Reichelt (MATLAB's ``ode23s``), in numba: the stiff
integrator behind ``solve_ode`` (``method="rosenbrock23"``).

L. F. Shampine, M. W. Reichelt, "The MATLAB ODE suite", SIAM J. Sci. Comput. 18 (1997), Sec. 2. One step
from (t, y) with W = I − h d J, d = 1/(2 + √2), J = ∂f/∂y and T = ∂f/∂t:

    F0 = f(t, y),                  k1 = W⁻¹(F0 + h d T)
    F1 = f(t + h/2, y + h k1/2),   k2 = W⁻¹(F1 − k1) + k1
    y_new = y + h k2,              F2 = f(t + h, y_new)
    k3 = W⁻¹(F2 − e32(k2 − F1) − 2(k1 − F0) + h d T),   e32 = 6 + √2
    error estimate (h/6)(k1 − 2k2 + k3),

second order, L-stable, with the continuous extension y(t + sh) = y + h[s(1 − s) k1 + s(s − 2d) k2]/(1 − 2d).
W is factorised once per step (LU with partial pivoting, ``dynamics.numerics.linalg``). J comes from the
caller's ``jac`` or, without one, from forward differences; T always from a forward difference in t (zero,
exactly, for an autonomous right-hand side).

``lower``/``upper`` hold every stage state and output inside the domain of the right-hand side, as MATLAB's
``NonNegative`` option does: an exact solution can dip far below the smallest double (e.g. a dual variable
α ~ e^{-2400}); holding it at a bound changes the state by at most the distance to that bound. The amount a
step is clipped is added to its error estimate, so a step is accepted only if the clip is within tolerance.
"""
import math
from typing import Callable, Tuple

import numba as nb
import numpy as np

from . import _tableaux as tab
from ._explicit_rk import MAX_STEPS, NON_FINITE, STEP_TOO_SMALL, SUCCESS, _copy_into
from ._function_address import jac_from_address, rhs_from_address
from .linalg import _lu_factor as lu_factor, _lu_solve as lu_solve

_D = tab.ROSENBROCK23_D
_E32 = tab.ROSENBROCK23_E32
_SQRT_EPS = math.sqrt(2.220446049250313e-16)
SMALLEST_STEP = 1e-300  # no "t + h == t" test: a stiff transient may move y within one spacing of t


@nb.njit(cache=True, error_model="numpy")
def _clip(y, lower, upper):
    for i in range(y.shape[0]):
        if y[i] < lower[i]:
            y[i] = lower[i]
        elif y[i] > upper[i]:
            y[i] = upper[i]
    return y


@nb.njit(cache=True, error_model="numpy")
def _finite(v):
    for x in v:
        if not math.isfinite(x):
            return False
    return True


@nb.njit(cache=True, error_model="numpy")
def _difference_jacobian(rhs, t, y, f0, params, lower, upper):
    """Forward (backward at an upper bound) differences, one column per state."""
    n = y.shape[0]
    J = np.empty((n, n))
    shifted = y.copy()
    for j in range(n):
        delta = _SQRT_EPS * max(abs(y[j]), 1e-8)
        if y[j] + delta > upper[j]:
            delta = -delta
        shifted[j] = y[j] + delta
        delta = shifted[j] - y[j]  # the step actually taken (rounding)
        column = rhs(t, shifted, params)
        for i in range(n):
            J[i, j] = (column[i] - f0[i]) / delta
        shifted[j] = y[j]
    return J


@nb.njit(cache=True, error_model="numpy")
def _rms_scaled(v, y, y_new, atol, rtol):
    acc = 0.0
    for i in range(v.shape[0]):
        acc += (v[i] / (atol[i] + rtol * max(abs(y[i]), abs(y_new[i])))) ** 2
    return math.sqrt(acc / v.shape[0])


@nb.njit(cache=True, error_model="numpy")
def integrate_rosenbrock(rhs: Callable[[float, np.ndarray, np.ndarray], np.ndarray],
                         jac: Callable[[float, np.ndarray, np.ndarray], np.ndarray], has_jac: bool, t0: float,
                         t1: float, y0: np.ndarray, t_eval: np.ndarray, dense: bool, params: np.ndarray,
                         rtol: float, atol: np.ndarray, lower: np.ndarray, upper: np.ndarray, step: float,
                         max_steps: int, autonomous: bool) -> Tuple[np.ndarray, np.ndarray, int, int, int]:
    """The Rosenbrock 2(3) integrator, callable from numba code (no argument checking: see
    ``solve_ode``). ``jac`` is called only when ``has_jac``; ``lower``/``upper`` are
    per-state bounds (±inf for none); ``autonomous`` skips ∂f/∂t (zero). Returns ``(t, y, status, nfev,
    nsteps)`` as the explicit integrator.

    Parameters
    ----------
    rhs : numba first-class function
        ``rhs(t, y, params) -> dydt`` of type ``RHS_SIGNATURE``, as for
        ``_explicit_rk.integrate`` (from Python: ``compiled_function(f)``).
    jac : numba first-class function
        ``jac(t, y, params) -> ∂rhs/∂y``, shape (n, n), C order, of type ``JAC_SIGNATURE`` (from Python:
        ``compiled_function(f, "jac")``); any such function when ``has_jac`` is False, as it is not called.
    has_jac : bool
        Use ``jac``; False: forward differences of ``rhs`` (backward at an upper bound), n evaluations a step.
    t0, t1 : float
        Start and end times, finite, t1 > t0.
    y0 : ndarray, shape (n,), float64
        Initial state, n >= 1, inside [lower, upper] (it is clipped into them); not modified.
    t_eval : ndarray, shape (m,), float64
        Output times, sorted, inside [t0, t1], read only when ``dense`` (pass an empty array otherwise).
    dense : bool
        True: the solution at ``t_eval`` (the continuous extension); False: t0 and every accepted step.
    params : ndarray, shape (p,), float64
        Passed to ``rhs`` and ``jac`` unchanged (may be empty).
    rtol : float
        Relative tolerance, in [1e-15, 1]; unused with fixed steps.
    atol : ndarray, shape (n,), float64
        Absolute tolerance per state, finite and > 0.
    lower, upper : ndarray, shape (n,), float64
        Bounds per state, lower < upper (−inf and +inf for none): every stage state and output is held
        inside them, and the amount a step is clipped counts in its error estimate.
    step : float
        0 for adaptive steps; > 0 for ceil((t1 − t0)/step) equal steps ending exactly at t1, without error
        control.
    max_steps : int
        Largest number of step attempts (rejected ones included), >= 1.
    autonomous : bool
        ``rhs`` does not depend on t: ∂f/∂t is taken as 0 instead of estimated (one evaluation fewer a step).

    Returns
    -------
    Tuple[ndarray, ndarray, int, int, int]
        ``(t, y, status, nfev, nsteps)``, a plain tuple for numba callers: the times reached, shape (k,), the
        states there, shape (k, n), the status code (SUCCESS 0, MAX_STEPS 1, STEP_TOO_SMALL 2, NON_FINITE 3),
        the number of ``rhs`` evaluations (finite-difference Jacobians included) and of accepted steps.

    Examples
    --------
    The stiff y' = −1000 (y − cos t), y(0) = 0, whose solution follows cos t within 1e-3 after a short
    transient:

    >>> import numba
    >>> from dynamics.numerics.ode import compiled_function
    >>> @numba.njit
    ... def stiff(t, y, params):
    ...     return -1000.0 * (y - np.cos(t))
    >>> @numba.njit
    ... def stiff_jacobian(t, y, params):
    ...     return np.full((1, 1), -1000.0)
    >>> rhs, jac = compiled_function(stiff), compiled_function(stiff_jacobian, "jac")
    >>> no_bound = np.full(1, np.inf)
    >>> t, y, status, nfev, nsteps = integrate_rosenbrock(
    ...     rhs, jac, True, 0.0, 10.0, np.zeros(1), np.array([10.0]), True, np.zeros(0), 1e-3, np.full(1, 1e-6),
    ...     -no_bound, no_bound, 0.0, 100_000, False)
    >>> status == SUCCESS, nsteps < 300, bool(abs(y[0, 0] - np.cos(10.0)) < 1e-3)
    (True, True, True)
    """
    n = y0.shape[0]
    y = _clip(y0.copy(), lower, upper)
    m = t_eval.shape[0] if dense else 64
    ts = np.empty(m)
    ys = np.empty((m, n))
    k = 0
    if dense:
        while k < m and t_eval[k] <= t0:
            ts[k] = t_eval[k]
            _copy_into(y, ys, k)
            k += 1
    else:
        ts[0] = t0
        _copy_into(y, ys, 0)
        k = 1
    f0 = rhs(t0, y, params)
    nfev = 1
    if not _finite(f0):
        return ts[:k], ys[:k], NON_FINITE, nfev, 0
    fixed = step > 0.0
    if fixed:
        n_fixed = max(1, int(math.ceil((t1 - t0) / step - 1e-9)))
        h = (t1 - t0) / n_fixed
    else:
        n_fixed = 0
        # Shampine & Reichelt's starting step: h ||f0 / w|| = 0.8 rtol^(1/3) with w = max(|y|, atol/rtol)
        acc = 0.0
        for i in range(n):
            acc = max(acc, abs(f0[i]) / max(abs(y[i]), atol[i] / rtol))
        h = t1 - t0
        if acc * h > 0.8 * rtol ** (1.0 / 3.0):
            h = 0.8 * rtol ** (1.0 / 3.0) / acc
    eye = np.eye(n)
    t = t0
    status = SUCCESS
    nsteps = 0
    attempts = 0
    err = 0.0
    k1 = np.empty(n)
    k2 = np.empty(n)
    y_new = np.empty(n)
    f2 = f0
    while t < t1:
        if fixed:
            t_target = t1 if nsteps + 1 == n_fixed else t0 + (nsteps + 1) * (t1 - t0) / n_fixed
            h = t_target - t
        elif t + 1.1 * h >= t1:
            h = t1 - t
        J = jac(t, y, params) if has_jac else _difference_jacobian(rhs, t, y, f0, params, lower, upper)
        if not has_jac:
            nfev += n
        if autonomous:
            T = np.zeros(n)
        else:
            delta_t = _SQRT_EPS * max(abs(t), abs(h))
            T = (rhs(t + delta_t, y, params) - f0) / delta_t
            nfev += 1
        accepted = False
        while True:
            attempts += 1
            if attempts > max_steps:
                status = MAX_STEPS
                break
            if not fixed and h < SMALLEST_STEP:
                status = STEP_TOO_SMALL
                break
            LU, pivots = lu_factor(eye - (h * _D) * J)
            k1 = lu_solve(LU, pivots, f0 + (h * _D) * T)
            f1 = rhs(t + 0.5 * h, _clip(y + (0.5 * h) * k1, lower, upper), params)
            k2 = lu_solve(LU, pivots, f1 - k1) + k1
            y_raw = y + h * k2
            y_new = _clip(y_raw.copy(), lower, upper)
            f2 = rhs(t + h, y_new, params)
            k3 = lu_solve(LU, pivots, f2 - _E32 * (k2 - f1) - 2.0 * (k1 - f0) + (h * _D) * T)
            nfev += 2
            finite = _finite(y_new) and _finite(f2) and _finite(f1)
            # The amount the step was clipped at a bound counts as error (as MATLAB's NonNegative does): a step
            # that leans on the clip is rejected and shortened, instead of being accepted in a cycle of clips.
            local = (h / 6.0) * (k1 - 2.0 * k2 + k3) + (y_raw - y_new)
            err = _rms_scaled(local, y, y_new, atol, rtol) if finite else math.inf
            if not math.isfinite(err):
                err = math.inf
            if fixed:
                if not finite:
                    status = NON_FINITE
                    break
                accepted = True
                break
            if err <= 1.0:
                accepted = True
                break
            h *= max(0.2, 0.9 * err ** (-1.0 / 3.0)) if math.isfinite(err) else 0.2
        if not accepted:
            break
        t_new = t1 if (fixed and nsteps + 1 == n_fixed) or (t + h >= t1) else t + h
        nsteps += 1
        if dense:
            while k < m and t_eval[k] <= t_new:
                s = (t_eval[k] - t) / h if h > 0.0 else 1.0
                if s >= 1.0:
                    _copy_into(y_new, ys, k)
                else:
                    a = s * (1.0 - s) / (1.0 - 2.0 * _D)
                    b = s * (s - 2.0 * _D) / (1.0 - 2.0 * _D)
                    _copy_into(_clip(y + h * (a * k1 + b * k2), lower, upper), ys, k)
                ts[k] = t_eval[k]
                k += 1
        else:
            if k == ts.shape[0]:
                ts2 = np.empty(2 * k)
                ys2 = np.empty((2 * k, n))
                for j in range(k):  # element by element: slice assignments compile numba's error formatting
                    ts2[j] = ts[j]
                    _copy_into(ys[j], ys2, j)
                ts, ys = ts2, ys2
            ts[k] = t_new
            _copy_into(y_new, ys, k)
            k += 1
        t = t_new
        y = y_new.copy()
        f0 = f2
        if not fixed:
            h *= min(5.0, 0.9 * max(err, 1e-10) ** (-1.0 / 3.0))
    return ts[:k].copy(), ys[:k].copy(), status, nfev, nsteps


@nb.njit(cache=True, error_model="numpy")
def solve_rosenbrock(rhs_address, jac_address, has_jac, t0, t1, y0, t_eval, dense, params, rtol, atol, lower, upper,
                     step, max_steps, autonomous) -> Tuple[np.ndarray, np.ndarray, int, int, int]:
    """``integrate_rosenbrock`` for Python callers, ``rhs`` and ``jac`` given by their jit addresses
    (``dynamics.numerics._function_address``; integers, unboxed in nanoseconds).

    Parameters
    ----------
    rhs_address, jac_address : int
        ``compiled_function(f).jit_address`` of the right-hand side and ``compiled_function(g, "jac")
        .jit_address`` of a Jacobian (any Jacobian's when ``has_jac`` is False).
    has_jac, t0, t1, y0, t_eval, dense, params, rtol, atol, lower, upper, step, max_steps, autonomous
        As in ``integrate_rosenbrock`` (nothing is checked here).

    Returns
    -------
    Tuple[ndarray, ndarray, int, int, int]
        ``(t, y, status, nfev, nsteps)`` as ``integrate_rosenbrock`` returns it, a plain tuple for numba
        callers.

    Examples
    --------
    >>> import numba
    >>> from dynamics.numerics.ode import compiled_function
    >>> @numba.njit
    ... def stiff(t, y, params):
    ...     return -1000.0 * (y - np.cos(t))
    >>> @numba.njit
    ... def stiff_jacobian(t, y, params):
    ...     return np.full((1, 1), -1000.0)
    >>> rhs, jac = compiled_function(stiff), compiled_function(stiff_jacobian, "jac")
    >>> no_bound = np.full(1, np.inf)
    >>> t, y, status, nfev, nsteps = solve_rosenbrock(
    ...     rhs.jit_address, jac.jit_address, True, 0.0, 10.0, np.zeros(1), np.array([10.0]), True, np.zeros(0),
    ...     1e-3, np.full(1, 1e-6), -no_bound, no_bound, 0.0, 100_000, False)
    >>> status == SUCCESS, t.tolist(), bool(abs(y[0, 0] - np.cos(10.0)) < 1e-3)
    (True, [10.0], True)
    """
    return integrate_rosenbrock(rhs_from_address(rhs_address), jac_from_address(jac_address), has_jac, t0, t1, y0,
                                t_eval, dense, params, rtol, atol, lower, upper, step, max_steps, autonomous)
