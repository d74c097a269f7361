"""Dopri5 batch kernels specialised per right-hand side (the fast route of ``solve_ode_batch``).

The generic batch kernels (``_batch.explicit_rows``) run the method-generic integrator of ``_explicit_rk`` and call
the right-hand side through a function pointer. Here a factory builds, for one ``@numba.njit`` right-hand side, a
row integrator that closes over the user's dispatcher (a compile-time constant, so the call is direct and LLVM
may inline it) with the Dopri5 stages written out: no tableau look-ups, no method branches, no per-step calls.

The arithmetic is that of ``_explicit_rk.integrate_into`` for ``method=DOPRI5``, adaptive steps and dense output,
operation for operation (stage sums added in increasing stage order, the same error norm, step-size controller
and interpolants), so every row takes the same accepted steps and returns the same values, bit for bit, as
``solve_ode`` (``tests/test_ode.py`` checks it).

For a small system (at most ``UNROLLED_STATES`` components) the number of components is a compile-time constant
too, so that LLVM unrolls the loops over the components and keeps their operands in registers: the same operations
in the same order, about 1.25x faster per evaluation on a Lorenz ensemble (``benchmarks/ode_batch_peers.py``).

The specialisations are compiled on the first batch of each right-hand side and size (a few seconds: numba cannot
cache a function that closes over another dispatcher on disk) and kept for the process (``dopri5_rows``).
"""
import math
import threading
from typing import Callable

import numba as nb
import numpy as np

from . import _tableaux as tab
from ._explicit_rk import (DIRECT_DENSE_ROWS, DOPRI5, MAX_STEPS, NON_FINITE, RHS_SHAPE, STEP_TOO_SMALL, SUCCESS,
                           _dense_block, _dense_dopri5_direct, _initial_step_from, _initial_trial_step, _next_time,
                           _row_finite, _step_factor)

# The tableau as scalar constants (frozen into the compiled code). The stage sums below skip the zero
# coefficients, as ``_explicit_rk._combine`` does; check that the zero pattern is the one written out.
assert np.count_nonzero(tab.DOPRI5_A) == 15 and tab.DOPRI5_B[1] == 0.0 and np.count_nonzero(tab.DOPRI5_B) == 5
_A = tab.DOPRI5_A
A10 = float(_A[1, 0])
A20, A21 = float(_A[2, 0]), float(_A[2, 1])
A30, A31, A32 = float(_A[3, 0]), float(_A[3, 1]), float(_A[3, 2])
A40, A41, A42, A43 = (float(v) for v in _A[4, :4])
A50, A51, A52, A53, A54 = (float(v) for v in _A[5, :5])
B_0, B_2, B_3, B_4, B_5 = (float(tab.DOPRI5_B[j]) for j in (0, 2, 3, 4, 5))
C1, C2, C3, C4 = (float(tab.DOPRI5_C[s]) for s in (1, 2, 3, 4))
E_0, E_1, E_2, E_3, E_4, E_5, E_6 = (float(v) for v in tab.DOPRI5_E)
_P_T = np.ascontiguousarray(tab.DOPRI5_P.T)
EXPONENT = -1.0 / 5.0  # -1 / (order of the error estimator + 1)


UNROLLED_STATES = 16  # systems up to this size get kernels with the number of components fixed at compile time


def _make_row(rhs, in_place, n_states):
    """The numba row integrator for ``rhs``: ``row(t0, t1, y0, t_eval, params, rtol, atol, max_steps, out, ts)``
    returns ``(k, status, nfev, nsteps)``, as ``integrate_into`` for DOPRI5 with dense output. ``in_place``:
    ``rhs(t, y, params, out)`` writes the derivative into ``out`` instead of returning a new array. ``n_states``:
    the number of components as a compile-time constant (the caller guarantees it), or 0 to read it from ``y0``."""
    if in_place:
        @nb.njit(error_model="numpy")
        def derivative(t, y, params):  # the first evaluation, whose array the initial step also uses
            f = np.empty(y.shape[0])
            rhs(t, y, params, f)
            return f

        @nb.njit(error_model="numpy", inline="always")
        def evaluate(t, y, params, K, s):
            rhs(t, y, params, K[s])
    else:
        derivative = rhs

        @nb.njit(error_model="numpy", inline="always")
        def evaluate(t, y, params, K, s):
            f = rhs(t, y, params)
            for i in range(y.shape[0]):
                K[s, i] = f[i]

    @nb.njit(error_model="numpy")
    def initial_step(t0, t1, y0, f0, params, order, rtol, atol, work):
        # _explicit_rk._initial_step with the rhs a constant, from its two rhs-free halves (a call of the cached
        # _initial_step with a dispatcher argument would add an entry to its disk cache in every process)
        h0, d1 = _initial_trial_step(t0, t1, y0, f0, rtol, atol, work)
        f1 = derivative(t0 + h0, work, params)
        return _initial_step_from(t0, t1, y0, f0, f1, h0, d1, order, rtol, atol)

    @nb.njit(error_model="numpy")
    def row(t0, t1, y0, t_eval, params, rtol, atol, max_steps, out, ts):
        n = n_states if n_states > 0 else y0.shape[0]
        m = t_eval.shape[0]
        K = np.empty((7, n))
        work = np.empty(n)
        y = y0.copy()
        y_new = np.empty(n)
        Q = np.empty((7, n))
        terms = np.empty(n)
        k = 0
        while k < m and t_eval[k] <= t0:
            ts[k] = t_eval[k]
            for i in range(n):
                out[k, i] = y0[i]
            k += 1
        f = derivative(t0, y, params)
        nfev = 1
        if f.shape[0] != n:
            return k, RHS_SHAPE, nfev, 0
        finite = True
        for i in range(n):
            K[0, i] = f[i]
            finite &= math.isfinite(f[i])
        if not finite:
            return k, NON_FINITE, nfev, 0
        h_abs = initial_step(t0, t1, y0, f, params, 4, rtol, atol, work)
        nfev += 1
        t = t0
        status = SUCCESS
        nsteps = 0
        attempts = 0
        h = 0.0
        t_new = t0
        while t < t1:
            rejected = False
            while True:
                attempts += 1
                status, t_new = _next_time(t, t1, h_abs, attempts, max_steps)
                if status != SUCCESS:
                    break
                h = t_new - t
                # the stages: out = base + sum_j (h a_sj) K_j, added in increasing j (as _combine)
                c0 = h * A10
                for i in range(n):
                    work[i] = y[i] + c0 * K[0, i]
                evaluate(t + C1 * h, work, params, K, 1)
                c0, c1 = h * A20, h * A21
                for i in range(n):
                    work[i] = (y[i] + c0 * K[0, i]) + c1 * K[1, i]
                evaluate(t + C2 * h, work, params, K, 2)
                c0, c1, c2 = h * A30, h * A31, h * A32
                for i in range(n):
                    work[i] = ((y[i] + c0 * K[0, i]) + c1 * K[1, i]) + c2 * K[2, i]
                evaluate(t + C3 * h, work, params, K, 3)
                c0, c1, c2, c3 = h * A40, h * A41, h * A42, h * A43
                for i in range(n):
                    work[i] = (((y[i] + c0 * K[0, i]) + c1 * K[1, i]) + c2 * K[2, i]) + c3 * K[3, i]
                evaluate(t + C4 * h, work, params, K, 4)
                c0, c1, c2, c3, c4 = h * A50, h * A51, h * A52, h * A53, h * A54
                for i in range(n):
                    work[i] = ((((y[i] + c0 * K[0, i]) + c1 * K[1, i]) + c2 * K[2, i]) + c3 * K[3, i]) + c4 * K[4, i]
                evaluate(t + h, work, params, K, 5)  # C5 = 1
                c0, c2, c3, c4, c5 = h * B_0, h * B_2, h * B_3, h * B_4, h * B_5
                for i in range(n):
                    y_new[i] = ((((y[i] + c0 * K[0, i]) + c2 * K[2, i]) + c3 * K[3, i]) + c4 * K[4, i]) + c5 * K[5, i]
                evaluate(t + h, y_new, params, K, 6)
                not_finite = False
                for i in range(n):
                    not_finite |= ((K[6, i] - K[6, i]) != 0.0) | ((y_new[i] - y_new[i]) != 0.0)
                nfev += 6
                if not_finite:
                    err = math.inf
                else:  # _error_norm for DOPRI5
                    for i in range(n):
                        e = 0.0
                        e += E_0 * K[0, i]
                        e += E_1 * K[1, i]
                        e += E_2 * K[2, i]
                        e += E_3 * K[3, i]
                        e += E_4 * K[4, i]
                        e += E_5 * K[5, i]
                        e += E_6 * K[6, i]
                        terms[i] = (h * e / (atol[i] + rtol * max(abs(y[i]), abs(y_new[i])))) ** 2
                    acc = 0.0
                    for i in range(n):
                        acc += terms[i]
                    err = math.sqrt(acc / n)
                h_abs = h * _step_factor(err, rejected, EXPONENT)
                if err < 1.0:
                    break
                rejected = True
            if status != SUCCESS:
                break
            nsteps += 1
            last = k
            while last < m and t_eval[last] <= t_new:
                ts[last] = t_eval[last]
                last += 1
            if last > k:
                if last - k <= DIRECT_DENSE_ROWS:
                    finite = _dense_dopri5_direct(t, h, y, y_new, K, t_eval, k, last, out)
                else:
                    for i in range(n):  # _prepare_dense for DOPRI5
                        k0, k2, k3, k4, k5, k6 = K[0, i], K[2, i], K[3, i], K[4, i], K[5, i], K[6, i]
                        for r in range(4):
                            Q[r, i] = (_P_T[r, 0] * k0 + _P_T[r, 2] * k2 + _P_T[r, 3] * k3 + _P_T[r, 4] * k4
                                       + _P_T[r, 5] * k5 + _P_T[r, 6] * k6)
                    finite = _dense_block(DOPRI5, t, h, y, y_new, K, Q, t_eval, k, last, out)
                if not finite:
                    status = NON_FINITE
                    while k < last and _row_finite(out, k):
                        k += 1
                    break
                k = last
            t = t_new
            for i in range(n):
                y[i] = y_new[i]
                K[0, i] = K[6, i]
        return k, status, nfev, nsteps

    return row


def _make_rows(rhs, in_place, n_states):
    row = _make_row(rhs, in_place, n_states)

    @nb.njit(error_model="numpy")
    def one(b, t0, t1, y0s, t_eval, params, rtol, atol, max_steps, y_out, status, nfev, nsteps, reached):
        k, s, f, steps = row(t0, t1, y0s[b], t_eval, params[b], rtol, atol, max_steps, y_out[b],
                             np.empty(t_eval.shape[0]))
        for j in range(k, y_out.shape[1]):  # the outputs a failed solve did not reach
            for i in range(y_out.shape[2]):
                y_out[b, j, i] = math.nan
        status[b], nfev[b], nsteps[b], reached[b] = s, f, steps, k

    @nb.njit(error_model="numpy")
    def serial(first, last, t0, t1, y0s, t_eval, params, rtol, atol, max_steps, y_out, status, nfev, nsteps,
               reached):
        for b in range(first, last):
            one(b, t0, t1, y0s, t_eval, params, rtol, atol, max_steps, y_out, status, nfev, nsteps, reached)

    @nb.njit(error_model="numpy", parallel=True)
    def parallel(first, last, t0, t1, y0s, t_eval, params, rtol, atol, max_steps, y_out, status, nfev, nsteps,
                 reached):
        for b in nb.prange(first, last):
            one(b, t0, t1, y0s, t_eval, params, rtol, atol, max_steps, y_out, status, nfev, nsteps, reached)

    return serial, parallel


_KERNELS = {}
_LOCK = threading.Lock()


def _size_key(n_states):
    return n_states if 0 < n_states <= UNROLLED_STATES else 0


def dopri5_rows(rhs, in_place=False, n_states=0):
    """``(serial, parallel)``: the Dopri5 batch kernels specialised for the ``@numba.njit`` function ``rhs`` and
    systems of ``n_states`` components (for ``n_states`` up to ``UNROLLED_STATES``; any size otherwise), built on
    first use and kept for the process (compiled on their first call).

    Both take ``(first, last, t0, t1, y0s, t_eval, params, rtol, atol, max_steps, y_out, status, nfev, nsteps,
    reached)``, with ``y0s`` of ``n_states`` columns, and fill rows ``first:last`` as ``_batch.explicit_rows`` does
    for ``method=DOPRI5`` and ``step=0``, with the same results.
    """
    key = (rhs, in_place, _size_key(n_states))
    kernels = _KERNELS.get(key)
    if kernels is None:
        with _LOCK:
            kernels = _KERNELS.get(key)
            if kernels is None:
                kernels = _KERNELS[key] = _make_rows(rhs, in_place, key[2])
    return kernels


def compiled(rhs: Callable, in_place: bool = False, n_states: int = 0) -> bool:
    """Whether the kernels of ``dopri5_rows(rhs, in_place, n_states)`` have been compiled in this process (serial or
    parallel), so that using them costs no compilation.

    Parameters
    ----------
    rhs : numba.njit function
        The right-hand side the kernels are specialised for.
    in_place : bool
        Whether ``rhs`` is the four-parameter form ``rhs(t, y, params, out)``.
    n_states : int
        The number of components of the systems (0: the kernels for any size).

    Returns
    -------
    bool
        True once either kernel for ``(rhs, in_place, n_states)`` holds a compiled signature.

    Examples
    --------
    >>> import numba
    >>> from dynamics.numerics._batch_dopri5 import compiled
    >>> compiled(numba.njit(lambda t, y, params: -y), n_states=3)
    False
    """
    kernels = _KERNELS.get((rhs, in_place, _size_key(n_states)))
    return kernels is not None and bool(kernels[0].signatures or kernels[1].signatures)
