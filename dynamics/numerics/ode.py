"""ODE integration: :func:`dynamics.numerics.solve_ode` and its result, over numba-compiled Runge–Kutta kernels.

Methods (Hairer et al. 1993, *Solving Ordinary Differential Equations I*; Shampine & Reichelt 1997):

=================  ==========================================================  ========================
``method``         scheme                                                        kernel module
=================  ==========================================================  ========================
``"dopri5"``       Dormand–Prince 5(4), FSAL, 4th-order dense output             ``_explicit_rk``
``"dop853"``       DOP853 8(5,3), 7th-order dense output                         ``_explicit_rk``
``"rk4"``          classical fixed-step 4th order, cubic Hermite dense output    ``_explicit_rk``
``"rosenbrock23"`` modified Rosenbrock 2(3) (stiff; L-stable), optional Jacobian  ``_rosenbrock``
``"auto"``         DOP853 first; where it cannot finish within ``stiff_after``    both
                   step attempts the problem has turned stiff, and rosenbrock23
                   continues from the last output time DOP853 reached
=================  ==========================================================  ========================

Contract shared by every method: the right-hand side is an ``@numba.njit`` function
``rhs(t, y, params) -> dydt`` returning a new float64 array of the shape of ``y``; it is passed to the
kernels as a numba first-class function, so each kernel is compiled once for every right-hand side, on
first use, and cached on disk. (:func:`dynamics.numerics.solve_ode_batch` can also run Dopri5 on kernels compiled
for one right-hand side, ``dynamics.numerics._batch_dopri5``, which also take ``rhs(t, y, params, out)`` writing
into ``out``.) Step-size control (adaptive methods): an RMS error norm scaled by
``atol + rtol * max(|y|, |y_new|)``. A solve that cannot reach the end of its interval says so in
its result (``success=False`` and a ``message``); ``result.check()`` raises :class:`dynamics.numerics.IntegrationError`.
"""
import inspect
import math
import time
from functools import lru_cache
from typing import Callable, NamedTuple, Optional, Tuple

import numba as nb
import numpy as np
from numba import types
from numba.core.registry import CPUDispatcher
from numba.core.typing.typeof import typeof_impl
from numba.experimental.function_type import _get_jit_address, _get_wrapper_address
from numpy.typing import ArrayLike

from . import _batch, _batch_dopri5, _explicit_rk, _rosenbrock
from ._explicit_rk import DOP853, DOPRI5, RK4, integrate, solve_explicit
from ._function_address import JAC_SIGNATURE, RHS_SIGNATURE
from ._rosenbrock import integrate_rosenbrock, solve_rosenbrock
from .validation import (_as_float64_array, as_finite_array, as_float, format_value, require_bool, require_choice,
                         require_in_range, require_integer, require_of_type)

__all__ = ["BatchOdeResult", "DOP853", "DOPRI5", "IntegrationError", "JAC_SIGNATURE", "METHODS", "OdeOptions",
           "OdeResult", "RHS_SIGNATURE", "RK4", "compiled_function", "integrate", "integrate_rosenbrock", "solve_ode",
           "solve_ode_batch"]

#: A right-hand side ``rhs(t, y, params) -> dydt`` and a Jacobian ``jac(t, y, params) -> ∂rhs/∂y``: ``@numba.njit``
#: functions of these signatures.
RightHandSide = Callable[[float, np.ndarray, np.ndarray], np.ndarray]
Jacobian = Callable[[float, np.ndarray, np.ndarray], np.ndarray]

#: The methods of :func:`dynamics.numerics.solve_ode`: name -> (kernel, method code, order of the solution).
METHODS = {"dopri5": ("explicit", _explicit_rk.DOPRI5, 5), "dop853": ("explicit", _explicit_rk.DOP853, 8),
           "rk4": ("explicit", _explicit_rk.RK4, 4), "rosenbrock23": ("rosenbrock", 0, 2)}

_MESSAGES = {
    _explicit_rk.SUCCESS: "The solver successfully reached the end of the integration interval.",
    _explicit_rk.MAX_STEPS: "The number of steps exceeded max_steps before the end of the interval.",
    _explicit_rk.STEP_TOO_SMALL: "The step size fell below the spacing of floating-point numbers at t (stiff, "
                                 "singular or non-finite right-hand side; for a stiff problem use "
                                 "method='rosenbrock23').",
    _explicit_rk.NON_FINITE: "The state became non-finite (the solution blows up or rhs returned inf/nan).",
    _explicit_rk.RHS_SHAPE: "rhs returned an array whose length is not that of y0.",
    _explicit_rk.INVALID_ARGUMENT: "An argument failed its checks (non-finite y0 or params, atol <= 0, or t_eval "
                                   "unsorted or outside t_span).",
}


class CompiledFunction:
    """A numba function ready to be passed to the kernels, its compiled entry point looked up once.

    Passing a numba dispatcher as a first-class function makes numba look up two function addresses on
    every call (tens of microseconds, more than a whole small solve); this object carries the address,
    and its numba type is a constant (numba's wrapper-address protocol). Even so, numba's unboxing of a
    first-class function calls back into Python (about 4 µs), so :func:`dynamics.numerics.solve_ode` passes the kernels
    ``jit_address`` instead, a plain integer (``dynamics.numerics._function_address``).
    """

    __slots__ = ("dispatcher", "address", "jit_address", "_signature", "numba_type")

    def __init__(self, dispatcher, signature):
        self.dispatcher = dispatcher
        self._signature = signature
        self.address = _get_wrapper_address(dispatcher, signature)
        self.jit_address = _get_jit_address(dispatcher, signature)
        self.numba_type = types.FunctionType(signature)  # typeof() returns it: no per-call rendering

    def __wrapper_address__(self):
        return self.address

    def signature(self):
        return self._signature


@typeof_impl.register(CompiledFunction)
def _typeof_compiled_function(value, context):
    return value.numba_type


@lru_cache(maxsize=None)
def compiled_function(function: Callable[..., np.ndarray], kind: str = "rhs") -> "CompiledFunction":
    """The ``CompiledFunction`` of an ``@numba.njit`` right-hand side or Jacobian (compiled once).

    Parameters
    ----------
    function : numba dispatcher
        ``rhs(t, y, params) -> dydt`` (1-D float64) or ``jac(t, y, params) -> J`` (2-D float64, C order).
    kind : {"rhs", "jac"}

    Returns
    -------
    CompiledFunction
        For :func:`dynamics.numerics.integrate` and :func:`dynamics.numerics.integrate_rosenbrock` (numba code that
        integrates in a loop).

    Examples
    --------
    >>> import numba, numpy as np
    >>> @numba.njit
    ... def decay(t, y, params):
    ...     return -params[0] * y
    >>> compiled_function(decay).signature() == RHS_SIGNATURE
    True
    """
    require_choice("kind", kind, ("rhs", "jac"))
    name = "rhs" if kind == "rhs" else "jac"
    if not isinstance(function, CPUDispatcher):
        raise TypeError(f"{name} must be a numba.njit function {name}(t, y, params), got {type(function).__name__}")
    signature = RHS_SIGNATURE if kind == "rhs" else JAC_SIGNATURE
    try:
        return CompiledFunction(function, signature)
    except Exception as exc:  # numba's typing errors carry the useful text
        shape = "float64[:]" if kind == "rhs" else "float64[:, :]"
        raise TypeError(f"{name} cannot be compiled as {name}(float64, float64[:], float64[:]) -> {shape}: "
                        f"{str(exc).splitlines()[0]}") from exc


@nb.njit(cache=True)
def _no_jacobian(t, y, params):
    return np.empty((0, 0))


class IntegrationError(RuntimeError):
    """Raised by ``OdeResult.check()`` when an integration did not reach its end time."""


class OdeResult(NamedTuple):
    """Solution of :func:`dynamics.numerics.solve_ode`: the rows reached, and whether the whole interval was.

    Attributes
    ----------
    t : ndarray, shape (m,)
        Output times reached (the requested ``t_eval``, or every accepted step).
    y : ndarray, shape (m, n)
        The state at those times.
    success : bool
        True if the end of the interval was reached.
    message : str
        Why the solver stopped.
    nfev : int
        Right-hand-side evaluations (finite-difference Jacobians included).
    nsteps : int
        Accepted steps.
    method : str
    """

    t: np.ndarray
    y: np.ndarray
    success: bool
    message: str
    nfev: int
    nsteps: int
    method: str

    def check(self) -> "OdeResult":
        """Return self, or raise :class:`dynamics.numerics.IntegrationError` carrying the solver's message."""
        if not self.success:
            reached = self.t[-1] if self.t.size else float("nan")
            raise IntegrationError(f"{self.method} failed at t = {reached:.6g}: {self.message}")
        return self


class OdeOptions(NamedTuple):
    """The integrator settings of :func:`dynamics.numerics.solve_ode` and :func:`dynamics.numerics.solve_ode_batch`
    (and of the theory functions that integrate a flow with them), one frozen object.

    The explicit pairs and their step-size control follow Hairer, Nørsett & Wanner (1993), *Solving Ordinary
    Differential Equations I*, §§II.4–II.10 (Dopri5, DOP853, the classical RK4), the stiff method Shampine & Reichelt
    (1997), *The MATLAB ODE Suite* (the modified Rosenbrock 2(3) pair); the bounds hold the state as MATLAB's
    ``NonNegative`` option does. The defaults (Dopri5 at rtol = 1e-6, atol = 1e-9) are the project's. The values are
    checked where they are used, each ``ValueError`` naming the field.

    Attributes
    ----------
    method : {"dopri5", "dop853", "rk4", "rosenbrock23", "auto"}, default "dopri5"
        The scheme (the module docstring's table): the adaptive explicit pairs Dopri5 and DOP853, the fixed-step
        classical RK4 (needs ``step``), the L-stable Rosenbrock 2(3) for stiff problems, or "auto" (DOP853, and
        rosenbrock23 from where DOP853 gave up, for a problem that may turn stiff; not for a batch).
    rtol : float, default 1e-6
        Relative tolerance of the adaptive methods, in [1e-15, 1].
    atol : float or array_like of shape (n,), default 1e-9
        Absolute tolerance, > 0: a scalar or one value per state.
    step : float, optional
        A fixed step size > 0 (no error control): required by "rk4"; with an adaptive pair, how its convergence
        order is measured. None (default): adaptive steps.
    max_steps : int, default 100 000
        Step attempts (>= 1) before the solve gives up (``success=False``); with "auto", those of rosenbrock23.
    jac : numba.njit function, optional
        ``jac(t, y, params) -> ∂rhs/∂y`` (n × n, C order) for "rosenbrock23" and "auto" (forward differences
        without it).
    bounds : (lower, upper), optional
        "rosenbrock23" and "auto" only: each state is held inside [lower, upper] (scalars or one value per state),
        the domain of ``rhs``, at every stage and output; the amount a step is clipped counts in its error estimate.
    autonomous : bool, default False
        "rosenbrock23" and "auto" only: ``rhs`` does not depend on t, so ∂f/∂t is not estimated (one evaluation
        fewer per step).
    stiff_after : int, default 5 000
        "auto" only: DOP853's step attempts (>= 1) before the problem is taken to be stiff.

    Examples
    --------
    >>> options = OdeOptions()
    >>> options.method, options.rtol, options.atol, options.max_steps
    ('dopri5', 1e-06, 1e-09, 100000)
    >>> tight = OdeOptions(method="dop853", rtol=1e-10, atol=1e-12)
    >>> tight._replace(rtol=1e-8).rtol, tight.method
    (1e-08, 'dop853')
    """

    method: str = "dopri5"
    rtol: float = 1e-6
    atol: ArrayLike = 1e-9
    step: Optional[float] = None
    max_steps: int = 100_000
    jac: Optional[Jacobian] = None
    bounds: Optional[Tuple[ArrayLike, ArrayLike]] = None
    autonomous: bool = False
    stiff_after: int = 5_000

    def tolerances(self, what: str) -> Tuple[str, float, ArrayLike]:
        """``(method, rtol, atol)``, for a routine ``what`` that reads only these three and sets the step budget, the
        Jacobian, the bounds and the stiffness switch itself (such as :func:`dynamics.starvation.integrate_dual`).

        Parameters
        ----------
        what : str
            The routine, named in the error message.

        Returns
        -------
        (str, float, float or array_like)
            The fields ``method``, ``rtol`` and ``atol``, unchecked (the routine checks them against its own range).

        Raises
        ------
        ValueError
            Naming the field, when any other field differs from its default: the routine would silently ignore it.

        Examples
        --------
        >>> OdeOptions(method="auto", rtol=1e-10).tolerances("a flow")
        ('auto', 1e-10, 1e-09)
        """
        for field in _ROUTINE_FIELDS:
            value, default = getattr(self, field), getattr(_DEFAULT_OPTIONS, field)
            if not (value is default or (type(value) is type(default) and value == default)):
                raise ValueError(f"options.{field} must keep its default {default!r}: {what} sets the step budgets, "
                                 f"the Jacobian, the bounds and the stiffness switch itself (it reads method, rtol and "
                                 f"atol), got {format_value(value)}")
        return self.method, self.rtol, self.atol


_DEFAULT_OPTIONS = OdeOptions()
_ROUTINE_FIELDS = ("step", "max_steps", "jac", "bounds", "autonomous", "stiff_after")  # what OdeOptions.tolerances refuses


def _options(options):
    """``options`` if it is an :class:`OdeOptions`, else a TypeError naming the parameter."""
    if type(options) is not OdeOptions:
        require_of_type("options", options, OdeOptions, made_by="dynamics.numerics.OdeOptions")
    return options


def _time_span(t_span):
    try:
        t0, t1 = (as_float("t_span", t) for t in t_span)
    except (TypeError, ValueError):
        raise ValueError(f"t_span must be (t0, t1) with finite t1 > t0, got {format_value(t_span)}") from None
    if not t1 > t0:
        raise ValueError(f"t_span must be (t0, t1) with finite t1 > t0, got {format_value(t_span)}")
    return t0, t1


def _per_state(name, value, n, default):
    if value is None or type(value) is float:  # the common cases, without broadcasting machinery
        return np.full(n, default if value is None else value)
    arr = _as_float64_array(name, value)  # a TypeError naming the dtype for complex or non-numeric values
    if arr.ndim > 1 or (arr.ndim == 1 and arr.shape != (n,)) or np.isnan(arr).any():
        raise ValueError(f"{name} must be a scalar or one value per state ({n}), got {format_value(value)}")
    return np.array(np.broadcast_to(arr, (n,)), dtype=np.float64)  # a writable copy: one numba type


_NO_TIMES = np.zeros(0)
_NO_PARAMS = np.zeros(0)


class _Problem(NamedTuple):
    """The checked arguments of a solve (one helper checks them for ``solve_ode`` and the batch)."""

    kernel: str
    code: int
    rhs: CompiledFunction
    jac: CompiledFunction
    has_jac: bool
    t0: float
    t1: float
    t_eval: np.ndarray
    dense: bool
    rtol: float
    atol: np.ndarray
    step: float
    max_steps: int
    lower: Optional[np.ndarray]
    upper: Optional[np.ndarray]
    autonomous: bool


def _clean_vector(name, value):
    """A finite float64 C-contiguous writable 1-D array: ``value`` itself when it already is one (no copy; the
    kernels never write to their inputs), else a checked copy."""
    if (type(value) is np.ndarray and value.dtype == np.float64 and value.ndim == 1 and value.flags.c_contiguous
            and value.flags.writeable and math.isfinite(np.add.reduce(value * 0.0))):
        return value  # value * 0 is NaN exactly where value is not finite (no overflow, unlike a plain sum)
    return as_finite_array(name, value, ndim=1)


def _check_problem(rhs, t_span, y0s, t_eval, params, method, rtol, atol, step, max_steps, jac, bounds,
                   autonomous=False, in_place=False):
    """Check everything but the shapes of y0 and params against each other; ``y0s``/``params`` are 2-D rows.
    ``in_place``: ``rhs(t, y, params, out)`` writes into ``out`` (the batch's Dopri5 route only; no
    ``CompiledFunction``)."""
    require_choice("method", method, tuple(METHODS))
    kernel, code, _ = METHODS[method]
    compiled = None if in_place else compiled_function(rhs, "rhs")
    t0, t1 = _time_span(t_span)
    n = y0s.shape[1]
    rtol = require_in_range("rtol", rtol, 1e-15, 1.0)
    atol = _per_state("atol", atol, n, 0.0)
    if not (np.isfinite(atol).all() and (atol > 0).all()):
        raise ValueError(f"atol must be finite and > 0 (a scalar or one value per state), got {format_value(atol)}")
    max_steps = require_integer("max_steps", max_steps, 1)
    if step is None:
        if method == "rk4":
            raise ValueError("step must be given (a float > 0) for the fixed-step method 'rk4'")
        step = 0.0
    else:
        step = require_in_range("step", step, 0.0, np.inf, low_open=True)
        if math.ceil((t1 - t0) / step - 1e-9) > max_steps:
            raise ValueError(f"step = {step:g} needs more than max_steps = {max_steps} steps over [{t0:g}, {t1:g}]")
    if t_eval is None:
        t_out, dense = _NO_TIMES, False
    else:
        t_out, dense = _clean_vector("t_eval", t_eval), True
        if (t_out[1:] < t_out[:-1]).any():
            raise ValueError("t_eval must be sorted in increasing order")
        if t_out.size and (t_out[0] < t0 or t_out[-1] > t1):
            raise ValueError(f"t_eval must lie inside t_span = [{t0:g}, {t1:g}], got [{t_out[0]:g}, {t_out[-1]:g}]")
    if kernel == "explicit" and (jac is not None or bounds is not None or autonomous):
        raise ValueError(f"jac, bounds and autonomous are used by method='rosenbrock23' only, not by {method!r}")
    autonomous = require_bool("autonomous", autonomous)
    y0, p0 = y0s[0], params[0]
    try:
        if in_place:
            f0 = np.zeros(n)
            rhs(t0, y0, p0, f0)
        else:
            f0 = rhs(t0, y0, p0)
    except Exception as exc:  # numba typing errors carry the useful text
        call = "rhs(t0, y0, params, out)" if in_place else "rhs(t0, y0, params)"
        raise TypeError(f"{call} could not be evaluated: {exc}") from exc
    if not isinstance(f0, np.ndarray) or f0.shape != y0.shape:
        raise ValueError(f"rhs must return an array of shape {y0.shape}, got {getattr(f0, 'shape', type(f0))}")
    if jac is None:
        compiled_jac, has_jac = compiled_function(_no_jacobian, "jac"), False
    else:
        compiled_jac, has_jac = compiled_function(jac, "jac"), True
        J0 = jac(t0, y0, p0)
        if not isinstance(J0, np.ndarray) or J0.shape != (n, n):
            raise ValueError(f"jac must return an array of shape {(n, n)}, got {getattr(J0, 'shape', type(J0))}")
    if kernel == "explicit":
        lower = upper = None
    elif bounds is None:
        lower, upper = np.full(n, -np.inf), np.full(n, np.inf)
    else:
        try:
            lower, upper = bounds
        except (TypeError, ValueError):
            raise ValueError(f"bounds must be a pair (lower, upper), got {format_value(bounds)}") from None
        lower = _per_state("bounds[0]", lower, n, -np.inf)
        upper = _per_state("bounds[1]", upper, n, np.inf)
        if not (lower < upper).all():
            raise ValueError("bounds must satisfy lower < upper for every state")
        if ((y0s < lower) | (y0s > upper)).any():
            raise ValueError("y0 must lie inside bounds")
    return _Problem(kernel, code, compiled, compiled_jac, has_jac, t0, t1, t_out, dense, rtol, atol, step, max_steps,
                    lower, upper, autonomous)


def solve_ode(rhs: RightHandSide, t_span: Tuple[float, float], y0: ArrayLike, t_eval: Optional[ArrayLike] = None,
              params: Optional[ArrayLike] = None, options: OdeOptions = _DEFAULT_OPTIONS) -> OdeResult:
    """Integrate ``dy/dt = rhs(t, y, params)`` over ``t_span = (t0, t1)``.

    Parameters
    ----------
    rhs : numba.njit function
        ``rhs(t, y, params) -> dydt``, returning a new float64 array of the shape of ``y``.
    t_span : (float, float)
        Start and end times, finite, t1 > t0.
    y0 : array_like, shape (n,)
        Initial state, finite, n >= 1.
    t_eval : array_like, shape (m,), optional
        Sorted output times inside ``t_span`` (dense output); without it every accepted step is returned.
    params : array_like, shape (p,), optional
        Parameters passed to ``rhs`` (and ``jac``), finite.
    options : OdeOptions
        The method and its settings (:class:`dynamics.numerics.OdeOptions`: method, rtol, atol, step, max_steps,
        jac, bounds, autonomous, stiff_after); the default is Dopri5 at rtol = 1e-6, atol = 1e-9. Use
        ``method="rosenbrock23"`` for stiff problems, and "auto" for a problem that may turn stiff (DOP853 first,
        rosenbrock23 from where DOP853 gave up).

    Returns
    -------
    OdeResult
        ``(t, y, success, message, nfev, nsteps, method)``; ``.check()`` raises on failure. With "auto",
        ``method`` says which integrators ran ("dop853" or "dop853+rosenbrock23") and ``nfev``/``nsteps`` add up
        both.

    Examples
    --------
    >>> import numba, numpy as np
    >>> @numba.njit
    ... def decay(t, y, params):
    ...     return -params[0] * y
    >>> tight = OdeOptions(rtol=1e-10, atol=1e-12)
    >>> sol = solve_ode(decay, (0.0, 1.0), [1.0], t_eval=[0.5, 1.0], params=[2.0], options=tight)
    >>> bool(np.allclose(sol.y[:, 0], np.exp(-2.0 * np.array([0.5, 1.0])), rtol=1e-9)), sol.success
    (True, True)

    A stiff problem, y' = -1000 (y - cos t): the L-stable Rosenbrock method takes about 200 steps where
    dopri5, held back by stability rather than accuracy, takes about 3000:

    >>> @numba.njit
    ... def stiff(t, y, params):
    ...     return -1000.0 * (y - np.cos(t))
    >>> @numba.njit
    ... def stiff_jacobian(t, y, params):
    ...     return np.full((1, 1), -1000.0)
    >>> loose = OdeOptions(rtol=1e-3, atol=1e-6)
    >>> sol = solve_ode(stiff, (0.0, 10.0), [0.0], options=loose._replace(method="rosenbrock23", jac=stiff_jacobian))
    >>> sol.nsteps < 300, solve_ode(stiff, (0.0, 10.0), [0.0], options=loose).nsteps > 2000
    (True, True)

    "auto" lets DOP853 resolve the fast transient and hands the stiff remainder to rosenbrock23:

    >>> auto = OdeOptions(method="auto", jac=stiff_jacobian, stiff_after=100)
    >>> sol = solve_ode(stiff, (0.0, 10.0), [0.0], t_eval=[1.0, 10.0], options=auto)
    >>> sol.method, bool(np.allclose(sol.y[:, 0], np.cos(sol.t), atol=1e-3))
    ('dop853+rosenbrock23', True)
    """
    method, rtol, atol, step, max_steps, jac, bounds, autonomous, stiff_after = _options(options)
    if method == "auto":
        return _solve_auto(rhs, t_span, y0, t_eval, params, rtol, atol, max_steps, jac, bounds, autonomous,
                           stiff_after)
    if step is None and jac is None and bounds is None and autonomous is False and type(method) is str:
        code = _FAST_METHODS.get(method)
        if code is not None:
            result = _solve_plain(rhs, t_span, y0, t_eval, params, method, code, rtol, atol, max_steps)
            if result is not None:
                return result
    return _solve_checked(rhs, t_span, y0, t_eval, params, method, rtol, atol, step, max_steps, jac, bounds,
                          autonomous)


def _solve_auto(rhs, t_span, y0, t_eval, params, rtol, atol, max_steps, jac, bounds, autonomous, stiff_after):
    """``method="auto"``: DOP853 for at most ``stiff_after`` step attempts; where it gives up, rosenbrock23 (with
    ``jac``, ``bounds``, ``autonomous``) continues from the last output DOP853 reached (its rows are finite), so the
    work already done is kept."""
    stiff_after = require_integer("stiff_after", stiff_after, 1)
    first = _solve_checked(rhs, t_span, y0, t_eval, params, "dop853", rtol, atol, None, stiff_after, None, None,
                           False)
    if first.success:
        return first
    t0, t1 = _time_span(t_span)
    y0 = _clean_vector("y0", y0)
    start, state, kept = t0, y0, 0
    if first.t.size:  # the last row reached is recomputed as the stiff solve's first output
        start, state, kept = float(first.t[-1]), first.y[-1], first.t.size - 1
    if bounds is not None:  # DOP853 does not hold the bounds: its last state may sit a rounding outside them
        lower, upper = bounds
        state = np.clip(state, lower, upper)
    remaining = None if t_eval is None else _clean_vector("t_eval", t_eval)[kept:]
    stiff = _solve_checked(rhs, (start, t1), state, remaining, params, "rosenbrock23", rtol, atol, None, max_steps,
                           jac, bounds, autonomous)
    message = stiff.message if stiff.success else f"{stiff.message} (dop853 had given up first: {first.message})"
    return OdeResult(np.concatenate([first.t[:kept], stiff.t]), np.vstack([first.y[:kept], stiff.y]),
                     stiff.success, message, first.nfev + stiff.nfev, first.nsteps + stiff.nsteps,
                     "dop853+rosenbrock23")


_F64 = np.dtype(np.float64)
_NO_ATOL = np.zeros(0)
_FAST_METHODS = {"dopri5": DOPRI5, "dop853": DOP853}
_REAL_TYPES = frozenset((float, int, np.float64, np.int64))


def _plain_vector(value):
    """Whether ``value`` is already what the kernels take (a float64 C-contiguous writable 1-D ndarray)."""
    return (type(value) is np.ndarray and value.dtype is _F64 and value.ndim == 1 and value.flags.c_contiguous
            and value.flags.writeable)


def _solve_plain(rhs, t_span, y0, t_eval, params, method, code, rtol, atol, max_steps):
    """``solve_ode`` for the common call (an adaptive explicit method, plain float64 arrays, float tolerances),
    with the argument checks split so that a clean call costs a few microseconds: the type and shape checks
    here, the passes over the arrays (finite values, sorted t_eval inside t_span, atol > 0) in the kernel. None
    when an argument is not of the plain kind or fails a check: ``_solve_checked`` then checks everything
    again and says what is wrong."""
    compiled = compiled_function(rhs, "rhs")
    if type(t_span) is not tuple or len(t_span) != 2:
        return None
    t0, t1 = t_span
    if type(t0) not in _REAL_TYPES or type(t1) not in _REAL_TYPES:
        return None
    t0, t1 = float(t0), float(t1)
    if not (t0 < t1 and t1 - t0 < math.inf) or type(rtol) is not float or not 1e-15 <= rtol <= 1.0:
        return None
    if type(max_steps) is not int or not 1 <= max_steps < 2 ** 62 or not _plain_vector(y0) or y0.shape[0] == 0:
        return None
    if params is None:
        params = _NO_PARAMS
    elif not _plain_vector(params):
        return None
    if t_eval is None:
        t_eval, dense = _NO_TIMES, False
    elif _plain_vector(t_eval):
        dense = True
    else:
        return None
    if type(atol) is float:
        if not 0.0 < atol < math.inf:
            return None
        atol_value, atol = atol, _NO_ATOL
    elif _plain_vector(atol) and atol.shape[0] == y0.shape[0]:
        atol_value = 0.0
    else:
        return None
    t, y, status, nfev, nsteps = solve_explicit(compiled.jit_address, t0, t1, y0, t_eval, dense, params, code, rtol,
                                                atol_value, atol, 0.0, max_steps)
    if status >= _explicit_rk.RHS_SHAPE:
        return None
    return OdeResult(t, y, status == _explicit_rk.SUCCESS, _MESSAGES[status], nfev, nsteps, method)


def _solve_checked(rhs, t_span, y0, t_eval, params, method, rtol, atol, step, max_steps, jac, bounds, autonomous):
    """``solve_ode`` with every argument checked in Python (any method, any array-like argument)."""
    y0 = _clean_vector("y0", y0)
    if y0.size == 0:
        raise ValueError("y0 must have at least one component, got an empty array")
    params = _NO_PARAMS if params is None else _clean_vector("params", params)
    p = _check_problem(rhs, t_span, y0[None, :], t_eval, params[None, :], method, rtol, atol, step, max_steps, jac,
                       bounds, autonomous)
    if p.kernel == "explicit":
        t, y, status, nfev, nsteps = solve_explicit(p.rhs.jit_address, p.t0, p.t1, y0, p.t_eval, p.dense, params,
                                                    p.code, p.rtol, 0.0, p.atol, p.step, p.max_steps)
    else:
        t, y, status, nfev, nsteps = solve_rosenbrock(p.rhs.jit_address, p.jac.jit_address, p.has_jac, p.t0, p.t1,
                                                      y0, p.t_eval, p.dense, params, p.rtol, p.atol, p.lower, p.upper,
                                                      p.step, p.max_steps, p.autonomous)
    return OdeResult(t, y, status == _explicit_rk.SUCCESS, _MESSAGES[status], int(nfev), int(nsteps), method)


class BatchOdeResult(NamedTuple):
    """Solutions of :func:`dynamics.numerics.solve_ode_batch`: one row per initial state / parameter row.

    Attributes
    ----------
    t : ndarray, shape (m,)
        The output times (``t_eval``).
    y : ndarray, shape (B, m, n)
        ``y[b]`` is row b's solution at ``t``; where row b failed, its outputs after ``reached[b]`` are NaN.
    success : ndarray of bool, shape (B,)
    message : tuple of str, length B
        Why each row's solver stopped.
    nfev, nsteps, reached : ndarray of int, shape (B,)
        Right-hand-side evaluations, accepted steps, and output times reached, per row.
    method : str
    """

    t: np.ndarray
    y: np.ndarray
    success: np.ndarray
    message: tuple
    nfev: np.ndarray
    nsteps: np.ndarray
    reached: np.ndarray
    method: str

    def check(self) -> "BatchOdeResult":
        """Return self, or raise :class:`dynamics.numerics.IntegrationError` naming the failed rows and the first one's
        message."""
        failed = np.flatnonzero(~self.success)
        if failed.size:
            first = int(failed[0])
            raise IntegrationError(f"{self.method} failed for {failed.size} of {self.success.size} rows (first: row "
                                   f"{first}, after {int(self.reached[first])} output times): {self.message[first]}")
        return self


#: A batch runs its rows in parallel threads when the rows after the first would take longer than this on one
#: thread (estimated from the first row): starting the threads and waiting for the slowest costs microseconds
#: on an idle machine and milliseconds on a loaded one.
PARALLEL_BATCH_SECONDS = 2e-3

#: With ``specialise=None``, an explicit Dopri5 batch (adaptive steps) of a right-hand side ``rhs(t, y, params)``
#: switches to the kernels specialised for that ``rhs`` (``dynamics.numerics._batch_dopri5``) when they are compiled
#: already in this process, or when the rows after the first would take longer than this on one thread with the
#: generic kernels (estimated from the first row). Compiling them takes about 10 s, once per ``rhs``, system size
#: and process, and they run a row in about a third of the time: on two threads the switch pays for itself beyond
#: about 30 s.
SPECIALISE_BATCH_SECONDS = 30.0


def _in_place_rhs(rhs):
    """Whether ``rhs`` is an ``@numba.njit`` function of four parameters, ``rhs(t, y, params, out)``."""
    return isinstance(rhs, CPUDispatcher) and _parameter_count(rhs) == 4


@lru_cache(maxsize=None)
def _parameter_count(dispatcher):
    try:
        return len(inspect.signature(dispatcher.py_func).parameters)
    except (TypeError, ValueError):
        return -1


def _rows(name, value, width=None):
    arr = as_finite_array(name, value)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or (width is not None and arr.shape[1] != width):
        raise ValueError(f"{name} must have shape (rows, {width if width is not None else 'k'}) or "
                         f"({width if width is not None else 'k'},), got {np.shape(value)}")
    return arr


def solve_ode_batch(rhs: RightHandSide, t_span: Tuple[float, float], y0s: ArrayLike, t_eval: ArrayLike,
                    params: Optional[ArrayLike] = None, options: OdeOptions = _DEFAULT_OPTIONS,
                    specialise: Optional[bool] = None) -> BatchOdeResult:
    """Integrate one ODE from many initial states and/or parameter rows in one compiled call (rows in parallel).

    Row b solves ``dy/dt = rhs(t, y, params[b])`` from ``y0s[b]``; a single initial state or parameter row is
    shared by every row. Each row is exactly the solve :func:`dynamics.numerics.solve_ode` would do with the same
    arguments (the same steps, the same values), whichever kernels run it.

    **For batches, write the right-hand side in place**, ``rhs(t, y, params, out)``, writing dy/dt into ``out``
    (second example): the recommended contract for ``method="dopri5"`` with adaptive steps. It runs on kernels
    compiled for that ``rhs`` (the call inlined, the stages written out, no allocation per evaluation): about 5x
    faster per row than the generic kernels on a Lorenz ensemble, and ahead of diffrax and torchode on the CPU
    (``benchmarks/ode_batch_peers.py``; the performance page). Compiling them takes seconds, once per ``rhs``, system
    size and process (numba cannot cache them on disk). A right-hand side that returns its array can run on the same
    compiled kernels (about 2.5x faster per row than the generic ones; see ``specialise``), or on the generic
    kernels, compiled once for every ``rhs`` and cached on disk, which suit a few rows or a one-off solve.

    Parameters
    ----------
    rhs : numba.njit function
        ``rhs(t, y, params) -> dydt`` as in :func:`dynamics.numerics.solve_ode`; or, for ``method="dopri5"``
        without ``step``, ``rhs(t, y, params, out)`` (four parameters), writing every component of dy/dt
        into ``out`` (float64, the shape of ``y``, its contents on entry unspecified) and returning nothing.
        Such a right-hand side always runs on the specialised kernels.
    t_span : (float, float)
        As in :func:`dynamics.numerics.solve_ode`.
    y0s : array_like, shape (B, n) or (n,)
        Initial states, finite.
    t_eval : array_like, shape (m,)
        Output times, sorted, inside ``t_span`` (required: every row reports at the same times).
    params : array_like, shape (B, p) or (p,), optional
        Parameter rows, finite.
    options : OdeOptions
        As in :func:`dynamics.numerics.solve_ode` (:class:`dynamics.numerics.OdeOptions`), but for
        ``method="auto"``, which a batch does not take (so ``stiff_after`` is not used).
    specialise : bool, optional
        Whether a Dopri5 batch (adaptive steps) of ``rhs(t, y, params)`` runs on kernels compiled for ``rhs``:
        True always (the first call compiles them), False never (the generic kernels, compiled once for every
        ``rhs`` and cached on disk); None (default) when they are compiled already in this process or the batch
        would take longer than ``SPECIALISE_BATCH_SECONDS`` on one thread with the generic kernels. True needs
        ``method="dopri5"`` and no ``step``. The results are the same either way.

    Returns
    -------
    BatchOdeResult
        ``(t, y, success, message, nfev, nsteps, reached, method)`` with ``y`` of shape (B, m, n);
        ``.check()`` raises if any row failed.

    Examples
    --------
    >>> import numba, numpy as np
    >>> @numba.njit
    ... def decay(t, y, params):
    ...     return -params[0] * y
    >>> rates = np.array([[0.5], [1.0], [2.0]])
    >>> tight = OdeOptions(rtol=1e-10, atol=1e-12)
    >>> sol = solve_ode_batch(decay, (0.0, 1.0), [1.0], t_eval=[1.0], params=rates, options=tight)
    >>> sol.y.shape, bool(np.allclose(sol.y[:, -1, 0], np.exp(-rates[:, 0]), rtol=1e-9)), bool(sol.success.all())
    ((3, 1, 1), True, True)

    The same decay in place, the contract to use for many rows (here 1,000 rates; the first call compiles):

    >>> @numba.njit
    ... def decay_into(t, y, params, out):
    ...     for i in range(y.shape[0]):
    ...         out[i] = -params[0] * y[i]
    >>> rates = np.linspace(0.1, 2.0, 1000)[:, None]
    >>> sol = solve_ode_batch(decay_into, (0.0, 1.0), [1.0], t_eval=[1.0], params=rates, options=tight)
    >>> bool(np.allclose(sol.y[:, -1, 0], np.exp(-rates[:, 0]), rtol=1e-9)), bool(sol.success.all())
    (True, True)
    """
    method, rtol, atol, step, max_steps, jac, bounds, autonomous, _ = _options(options)
    in_place = _in_place_rhs(rhs)
    if specialise is not None:
        specialise = require_bool("specialise", specialise)
    if (in_place or specialise) and not (method == "dopri5" and step is None):
        what = "rhs(t, y, params, out) (four parameters)" if in_place else "specialise=True"
        raise ValueError(f"{what} is taken by method='dopri5' with adaptive steps (step=None) only, got "
                         f"method={method!r}, step={step!r}")
    if in_place and specialise is False:
        raise ValueError("specialise=False cannot run rhs(t, y, params, out) (four parameters): the generic kernels "
                         "take rhs(t, y, params) -> dydt")
    y0s = _rows("y0s", y0s)
    if y0s.shape[1] == 0:
        raise ValueError("y0s must have at least one component per row, got rows of length 0")
    params = np.zeros((1, 0)) if params is None else _rows("params", params)
    rows = max(y0s.shape[0], params.shape[0])
    for name, arr in (("y0s", y0s), ("params", params)):
        if arr.shape[0] not in (1, rows):
            raise ValueError(f"y0s and params must have the same number of rows (or one), got {y0s.shape[0]} and "
                             f"{params.shape[0]}")
    if t_eval is None:
        raise ValueError("t_eval must be given for a batch: every row reports at the same output times")
    p = _check_problem(rhs, t_span, y0s, t_eval, params, method, rtol, atol, step, max_steps, jac, bounds,
                       autonomous, in_place)
    if p.t_eval.size == 0:
        raise ValueError("t_eval must hold at least one time")
    y0s = np.array(np.broadcast_to(y0s, (rows, y0s.shape[1])), order="C")  # writable C copies: one numba type
    params = np.array(np.broadcast_to(params, (rows, params.shape[1])), order="C")
    y = np.empty((rows, p.t_eval.size, y0s.shape[1]))  # every row written by the kernels (NaN past a failure)
    status, nfev, nsteps, reached = (np.empty(rows, dtype=np.int64) for _ in range(4))
    fast = p.kernel == "explicit" and p.code == DOPRI5 and p.step == 0.0 and specialise is not False
    n_states = y0s.shape[1]
    specialised = fast and (in_place or specialise or _batch_dopri5.compiled(rhs, False, n_states))
    if fast:
        fast_arguments = (p.t0, p.t1, y0s, p.t_eval, params, p.rtol, p.atol, p.max_steps, y, status, nfev, nsteps,
                          reached)
    if specialised:
        arguments = fast_arguments
        serial, parallel = _batch_dopri5.dopri5_rows(rhs, in_place, n_states)
    elif p.kernel == "explicit":
        arguments = (p.rhs.jit_address, p.t0, p.t1, y0s, p.t_eval, params, p.code, p.rtol, p.atol, p.step,
                     p.max_steps, y, status, nfev, nsteps, reached)
        serial, parallel = _batch.explicit_rows, _batch.explicit_rows_parallel
    else:
        arguments = (p.rhs.jit_address, p.jac.jit_address, p.has_jac, p.t0, p.t1, y0s, p.t_eval, params, p.rtol,
                     p.atol, p.lower, p.upper, p.step, p.max_steps, p.autonomous, y, status, nfev, nsteps, reached)
        serial, parallel = _batch.rosenbrock_rows, _batch.rosenbrock_rows_parallel
    # The first row, timed, says whether the rest is worth the threads' start-up (see dynamics.numerics._batch).
    if specialised and not serial.signatures:
        serial(0, 1, *arguments)  # compiles the kernel: the row is solved again below, for its time
    start = time.perf_counter()
    serial(0, 1, *arguments)
    rest = (rows - 1) * (time.perf_counter() - start)
    if fast and not specialised and rest > SPECIALISE_BATCH_SECONDS:  # worth compiling the specialised kernels
        arguments = fast_arguments
        serial, parallel = _batch_dopri5.dopri5_rows(rhs, False, n_states)
        rest = 0.3 * rest  # about their speed-up over the generic kernels (an estimate, for the choice below)
    if rows > 2 and rest > PARALLEL_BATCH_SECONDS and nb.get_num_threads() > 1:
        parallel(1, rows, *arguments)
    else:
        serial(1, rows, *arguments)
    messages = tuple(_MESSAGES[int(s)] for s in status)
    return BatchOdeResult(p.t_eval, y, status == _explicit_rk.SUCCESS, messages, nfev, nsteps, reached, method)
