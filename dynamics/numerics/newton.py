"""Damped Newton for maximising a strictly concave objective over an open domain, in numba.

The problem is the caller's: ``@numba.njit`` functions of the point ``x`` (float64, 1-D) and a parameter array
``params`` (float64, 1-D), compiled for these signatures (the objective returns its gradient with its value, as
``scipy.optimize.minimize(fun, x0, jac=True)`` expects, since the two share most of their work):

==================  ================================================  =========================================
function            signature                                         returns
==================  ================================================  =========================================
``objective``       ``objective(x, params) -> (float, ndarray (n,))``  F(x) and ∇F(x); max|∇F| is the residual
``curvature``       ``curvature(x, params) -> ndarray (n, n)``         -∇²F(x), symmetric positive definite
``inside``          ``inside(x, params) -> bool``                      whether x lies in the (open) domain
``residual_floor``  ``residual_floor(x, params) -> float``             the smallest residual float64 resolves at x
==================  ================================================  =========================================

One iteration solves ``curvature(x) d = ∇F(x)`` (Cholesky, :func:`dynamics.numerics.cholesky_solve`) and halves
the step (at most 80 times) until the trial ``x + step·d`` is inside the domain and the objective rises by the Armijo
amount ``1e-4·step·(∇F·d)`` (or, where the rise is below the objective's round-off, the residual falls): the iterates
never leave the domain, so an objective with a barrier (a logarithm at the boundary) is never evaluated outside it.
Newton stops, converged, when ``max|∇F| <= max(tol, residual_floor(x))``; it stops early when every coordinate moves
by at most ``move_tol`` relative to itself (a move relative to the largest coordinate would stop while a coordinate
near 1e-16 still moves), when no halving is accepted, or when the curvature is not positive definite. Near the
maximiser the full step is taken and the convergence is quadratic.

The functions reach the compiled kernel as plain integers, the addresses of their compiled entry points
(:func:`dynamics.numerics.newton_functions`, the mechanism by which :func:`dynamics.numerics.solve_ode` passes its
right-hand sides): the kernel is compiled once for every problem, cached on disk, and callable from numba code, e.g.
inside a ``prange`` sweep of problems (:func:`dynamics.numerics.newton_maximise_kernel`).
"""
from functools import lru_cache
from typing import Callable, NamedTuple, Optional, Tuple

import numba as nb
import numpy as np
from numba import types
from numpy.typing import ArrayLike
from numba.core.registry import CPUDispatcher
from numba.experimental.function_type import _get_jit_address

from ._function_address import _from_address
from .linalg import cholesky_solve
from .validation import as_finite_array, require_in_range, require_integer, require_of_type

__all__ = ["NewtonFunctions", "NewtonOptions", "NewtonResult", "newton_functions", "newton_maximise",
           "newton_maximise_kernel"]

OBJECTIVE_SIGNATURE = types.Tuple((types.float64, types.float64[::1]))(types.float64[::1], types.float64[::1])
CURVATURE_SIGNATURE = types.float64[:, ::1](types.float64[::1], types.float64[::1])
INSIDE_SIGNATURE = types.boolean(types.float64[::1], types.float64[::1])
FLOOR_SIGNATURE = types.float64(types.float64[::1], types.float64[::1])
_SIGNATURES = {"objective": OBJECTIVE_SIGNATURE, "curvature": CURVATURE_SIGNATURE, "inside": INSIDE_SIGNATURE,
               "residual_floor": FLOOR_SIGNATURE}

_objective_from_address = _from_address(OBJECTIVE_SIGNATURE)
_curvature_from_address = _from_address(CURVATURE_SIGNATURE)
_inside_from_address = _from_address(INSIDE_SIGNATURE)
_floor_from_address = _from_address(FLOOR_SIGNATURE)

ARMIJO = 1e-4  # the fraction of the predicted rise a step must achieve
MAX_HALVINGS = 80  # 2^-80 ≈ 1e-24: a direction that needs more is not an ascent direction in float64
MOVE_TOLERANCE = 4e-16  # a few ulps: below it an iterate no longer moves


class NewtonFunctions(NamedTuple):
    """The compiled entry points of a problem of :func:`dynamics.numerics.newton_maximise_kernel` (from
    :func:`dynamics.numerics.newton_functions`).

    Attributes
    ----------
    objective, curvature, inside, residual_floor : int
        The addresses of the compiled functions (valid in this process only).

    Examples
    --------
    >>> NewtonFunctions._fields
    ('objective', 'curvature', 'inside', 'residual_floor')
    """

    objective: int
    curvature: int
    inside: int
    residual_floor: int


class NewtonOptions(NamedTuple):
    r"""When :func:`dynamics.numerics.newton_maximise` stops: its tolerances and its budget of Newton steps.

    Damped Newton with Armijo backtracking (Nocedal & Wright 2006, *Numerical Optimization*, Algorithm 3.1 with
    Newton directions); the stopping rules are the module docstring's. The values are checked by
    :func:`dynamics.numerics.newton_maximise`, each ``ValueError`` naming the field.

    Attributes
    ----------
    tol : float, default 1e-12
        Converged when :math:`\max \lvert \nabla F \rvert \le` ``max(tol, residual_floor(x))``, in (0, 1].
    max_iter : int, default 200
        Most Newton steps, >= 0.
    move_tol : float, default 4e-16
        Stop when every coordinate moves by at most this much relative to itself, in [0, 1) (the default,
        ``MOVE_TOLERANCE``, is a few ulps: below it an iterate no longer moves).

    Examples
    --------
    >>> options = NewtonOptions()
    >>> options.tol, options.max_iter, options.move_tol
    (1e-12, 200, 4e-16)
    >>> NewtonOptions(max_iter=5).max_iter
    5
    """

    tol: float = 1e-12
    max_iter: int = 200
    move_tol: float = MOVE_TOLERANCE


_DEFAULT_OPTIONS = NewtonOptions()


class NewtonResult(NamedTuple):
    r"""The result of :func:`dynamics.numerics.newton_maximise` (and of
    :func:`dynamics.numerics.newton_maximise_kernel`).

    Attributes
    ----------
    x : ndarray, shape (n,)
        The last iterate (inside the domain).
    residual : float
        :math:`\max \lvert \nabla F(x) \rvert`.
    converged : bool
        Whether ``residual <= max(tol, residual_floor(x))``.
    iterations : int
        The Newton steps taken.

    Examples
    --------
    >>> import numpy as np
    >>> NewtonResult(np.ones(1), 0.0, True, 3).converged
    True
    """

    x: np.ndarray
    residual: float
    converged: bool
    iterations: int


@nb.njit(cache=True)
def _everywhere(x, params):
    return True


@nb.njit(cache=True)
def _no_floor(x, params):
    return 0.0


@lru_cache(maxsize=None)
def _address(function, role):
    if not isinstance(function, CPUDispatcher):
        raise TypeError(f"{role} must be a numba.njit function {role}(x, params), got {type(function).__name__}")
    signature = _SIGNATURES[role]
    try:
        return _get_jit_address(function, signature)
    except Exception as exc:  # numba's typing errors carry the useful text
        raise TypeError(f"{role} cannot be compiled as {signature}: {str(exc).splitlines()[0]}") from exc


def newton_functions(objective: Callable[[np.ndarray, np.ndarray], Tuple[float, np.ndarray]],
                     curvature: Callable[[np.ndarray, np.ndarray], np.ndarray],
                     inside: Optional[Callable[[np.ndarray, np.ndarray], bool]] = None,
                     residual_floor: Optional[Callable[[np.ndarray, np.ndarray], float]] = None) -> NewtonFunctions:
    r"""The addresses of a problem's compiled functions, for :func:`dynamics.numerics.newton_maximise_kernel` (each
    compiled once).

    Parameters
    ----------
    objective : numba.njit function
        ``objective(x, params) -> (F, ∇F)``: the value (float) and the gradient (a new float64 array of the shape
        of x) of :math:`F`, strictly concave on the domain.
    curvature : numba.njit function
        ``curvature(x, params) -> ndarray (n, n)``: :math:`-\nabla^2 F`, symmetric positive definite on the domain,
        C order.
    inside : numba.njit function, optional
        ``inside(x, params) -> bool``: the domain test (default: every x is inside).
    residual_floor : numba.njit function, optional
        ``residual_floor(x, params) -> float``: the smallest residual float64 can resolve at x (default 0).

    Returns
    -------
    NewtonFunctions
        Four integers, valid in this process: pass them to compiled code rather than storing them.

    Raises
    ------
    TypeError
        If a function is not a numba.njit function or cannot be compiled for its signature.

    Examples
    --------
    >>> import numba, numpy as np
    >>> @numba.njit
    ... def objective(x, params):
    ...     return -0.5 * (x @ x), -x
    >>> @numba.njit
    ... def curvature(x, params):
    ...     return np.eye(x.shape[0])
    >>> functions = newton_functions(objective, curvature)
    >>> all(address > 0 for address in functions)
    True
    """
    return NewtonFunctions(_address(objective, "objective"), _address(curvature, "curvature"),
                           _address(_everywhere if inside is None else inside, "inside"),
                           _address(_no_floor if residual_floor is None else residual_floor, "residual_floor"))


@nb.njit(cache=True)
def _max_abs(v):
    out = 0.0
    for value in v:
        out = max(out, abs(value))
    return out


@nb.njit(cache=True)
def _finite(v):
    for value in v:
        if not np.isfinite(value):
            return False
    return True


@nb.njit(cache=True)
def newton_maximise_kernel(functions: NewtonFunctions, x0: np.ndarray, params: np.ndarray, tol: float, max_iter: int,
                           move_tol: float) -> NewtonResult:
    """Damped Newton from ``x0`` (inside the domain), unchecked, for numba code: see
    :func:`dynamics.numerics.newton_maximise`, which checks its input and calls this kernel.

    Parameters
    ----------
    functions : NewtonFunctions
        The problem's compiled functions, from :func:`dynamics.numerics.newton_functions`.
    x0 : numpy.ndarray
        Float64 1-d starting point, inside the objective's domain.
    params : numpy.ndarray
        Float64 1-d parameters passed to every function.
    tol : float
        Stop when the largest gradient entry falls below this.
    max_iter : int
        Most Newton steps.
    move_tol : float
        Stop when a step moves no entry by more than this.

    Returns
    -------
    NewtonResult
        The last iterate and its diagnostics (see :class:`dynamics.numerics.NewtonResult`).

    Examples
    --------
    The checked entry point runs this kernel (a runnable example is in its docstring):

    >>> from dynamics.numerics import newton_maximise
    >>> callable(newton_maximise)
    True
    """
    objective = _objective_from_address(functions[0])
    curvature = _curvature_from_address(functions[1])
    inside = _inside_from_address(functions[2])
    residual_floor = _floor_from_address(functions[3])
    params = np.ascontiguousarray(params)
    x = np.ascontiguousarray(x0).copy()
    n = x.shape[0]
    value, g = objective(x, params)
    residual = _max_abs(g)
    iterations = 0
    for _ in range(max_iter):
        if residual <= max(tol, residual_floor(x, params)):
            return NewtonResult(x, residual, True, iterations)
        direction = cholesky_solve(curvature(x, params), g)  # an ascent direction of the concave objective
        if not _finite(direction):
            break  # the curvature is not positive definite here
        slope = 0.0
        for i in range(n):
            slope += g[i] * direction[i]
        step = 1.0
        accepted = False
        trial, trial_value, trial_g, trial_residual = x, value, g, residual
        for _halving in range(MAX_HALVINGS):
            trial = x + step * direction
            if inside(trial, params):
                trial_value, trial_g = objective(trial, params)
                trial_residual = _max_abs(trial_g)
                # Armijo rise of the objective, or (at round-off level) a smaller residual.
                if trial_value >= value + ARMIJO * step * slope or trial_residual < residual:
                    accepted = True
                    break
            step *= 0.5
        if not accepted:
            break
        # Element-wise relative move: a coordinate near 1e-16 still converges after the large ones have stopped
        # moving, so a move relative to max|x| would stop too early.
        moved = 0.0
        for i in range(n):
            change = abs(trial[i] - x[i])
            if x[i] != 0.0:
                moved = max(moved, change / abs(x[i]))
            elif change > 0.0:
                moved = np.inf
        x, g, value, residual = trial, trial_g, trial_value, trial_residual
        iterations += 1
        if moved <= move_tol:
            break
    return NewtonResult(x, residual, residual <= max(tol, residual_floor(x, params)), iterations)


def newton_maximise(objective: Callable[[np.ndarray, np.ndarray], Tuple[float, np.ndarray]],
                    curvature: Callable[[np.ndarray, np.ndarray], np.ndarray], x0: ArrayLike,
                    params: Optional[ArrayLike] = None, *,
                    inside: Optional[Callable[[np.ndarray, np.ndarray], bool]] = None,
                    residual_floor: Optional[Callable[[np.ndarray, np.ndarray], float]] = None,
                    options: NewtonOptions = _DEFAULT_OPTIONS) -> NewtonResult:
    r"""Maximise a strictly concave objective over an open domain by damped Newton, from ``x0`` inside it.

    Each step solves ``curvature(x) d = ∇F(x)`` and halves the step until ``x + step·d`` is inside the domain and the
    objective rises (Armijo, or a smaller residual at round-off level); see the module docstring. From numba code,
    call :func:`dynamics.numerics.newton_maximise_kernel` with :func:`dynamics.numerics.newton_functions`.

    Parameters
    ----------
    objective : numba.njit function
        ``objective(x, params) -> (F, ∇F)``: the value (float) and gradient (a new array of the shape of x) of
        :math:`F`, strictly concave on the domain; :math:`\max \lvert \nabla F \rvert` is the residual.
    curvature : numba.njit function
        ``curvature(x, params) -> ndarray (n, n)``: minus the Hessian, symmetric positive definite on the domain.
    x0 : array_like, shape (n,)
        The start, finite and inside the domain, n >= 1.
    params : array_like, shape (p,), optional
        Passed to every function, finite (default: empty).
    inside : numba.njit function, optional
        ``inside(x, params) -> bool``, the domain test (default: the whole space).
    residual_floor : numba.njit function, optional
        ``residual_floor(x, params) -> float``: the smallest residual float64 can resolve at x, where the objective's
        scale makes ``tol`` unreachable (default 0).
    options : NewtonOptions
        When to stop (:class:`dynamics.numerics.NewtonOptions`): the tolerance ``tol`` on the residual, the most
        Newton steps ``max_iter`` and the smallest relative move ``move_tol``.

    Returns
    -------
    NewtonResult
        ``x``, ``residual``, ``converged``, ``iterations``.

    Raises
    ------
    ValueError
        If ``x0`` or ``params`` is not finite, ``x0`` is empty or outside the domain, the functions return values of
        the wrong shape, or a field of ``options`` is out of range.
    TypeError
        If a function is not a numba.njit function of the signature above, or ``options`` is not a
        :class:`dynamics.numerics.NewtonOptions`.

    Examples
    --------
    Maximise :math:`F(x) = \sum_i (b_i \log x_i - x_i^2/2)` over :math:`x > 0` (a log barrier at 0): the maximiser
    is :math:`x_i = \sqrt{b_i}`.

    >>> import numba, numpy as np
    >>> @numba.njit
    ... def objective(x, b):
    ...     return np.sum(b * np.log(x) - 0.5 * x * x), b / x - x
    >>> @numba.njit
    ... def curvature(x, b):
    ...     return np.diag(b / (x * x) + 1.0)
    >>> @numba.njit
    ... def positive(x, b):
    ...     return np.all(x > 0.0)
    >>> result = newton_maximise(objective, curvature, [1.0, 1.0], [4.0, 0.01], inside=positive)
    >>> result.x.round(12).tolist(), result.converged
    ([2.0, 0.1], True)

    At most two Newton steps, from further away: not converged yet.

    >>> early = newton_maximise(objective, curvature, [9.0, 9.0], [4.0, 0.01], inside=positive,
    ...                         options=NewtonOptions(max_iter=2))
    >>> early.iterations, early.converged
    (2, False)
    """
    functions = newton_functions(objective, curvature, inside, residual_floor)
    x0 = as_finite_array("x0", x0, ndim=1)
    if x0.size == 0:
        raise ValueError("x0 must have at least one coordinate, got an empty array")
    params = np.zeros(0) if params is None else as_finite_array("params", params, ndim=1)
    tol, max_iter, move_tol = require_of_type("options", options, NewtonOptions,
                                              made_by="dynamics.numerics.NewtonOptions")
    tol = require_in_range("tol", tol, 0.0, 1.0, low_open=True)
    max_iter = require_integer("max_iter", max_iter, 0)
    move_tol = require_in_range("move_tol", move_tol, 0.0, 1.0, high_open=True)
    x0, params = np.ascontiguousarray(x0), np.ascontiguousarray(params)
    if not (inside is None or inside(x0, params)):
        raise ValueError("x0 must lie inside the domain (inside(x0, params) is False)")
    value, gradient = objective(x0, params)
    if np.shape(gradient) != x0.shape or not np.isfinite(value):
        raise ValueError(f"objective must return a finite value and a gradient of shape {x0.shape} at x0, got "
                         f"{value} and shape {np.shape(gradient)}")
    shape = np.shape(curvature(x0, params))
    if shape != (x0.size, x0.size):
        raise ValueError(f"curvature must return an array of shape {(x0.size, x0.size)}, got {shape}")
    return newton_maximise_kernel(functions, x0, params, tol, max_iter, move_tol)
