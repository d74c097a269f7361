"""Reference ODE problems with closed-form solutions, for the integrators' claims, figure and benchmark.

Not part of the public surface of ``dynamics.numerics`` (import this module explicitly).

* Uncoupled logistic modes ``y_i' = r_i y_i (1 - y_i)``, ``y_i(t) = 1 / (1 + (1/y_i(0) - 1) e^{-r_i t})``:
  the shape of the mode learning of Saxe et al. 2014 (Pezeshki (thesis), Eq 2.2.11, with u = y).
* The same modes in a rotated basis, ``y = Q z``: ``y' = Q diag(r) (z ∘ (1 - z))`` with ``z = Qᵀ y``.
  Every state is coupled to every other through the nonlinearity, and ``Q z(t)`` is exact. With a
  Haar ``Q`` the right-hand side costs O(n²); with ``Q`` a chain of adjacent Givens rotations
  (``givens_logistic_problem``) it costs O(n) and still couples every state to every other.

``fixed_step_errors`` measures a method's global error on the logistic equation
y' = y(1 - y), y(0) = 0.01 over [0, 10] (maximum over the step points, since a single end point can
sit near a zero of the error constant); ``convergence_order`` fits the empirical order of a fixed-step
method (diffrax-style).
"""
from typing import Callable, NamedTuple

import numba as nb
import numpy as np
from numpy.typing import ArrayLike

from .ode import METHODS, OdeOptions, solve_ode
from .random import haar_orthogonal
from .validation import as_finite_array, require_array_in_range, require_choice, require_integer, rng_from
from ._docstrings import fill_doc


class ReferenceProblem(NamedTuple):
    """An initial state, the parameter array of the right-hand side, and the exact solution ``exact(t)``
    (shape (len(t), n))."""

    y0: np.ndarray
    params: np.ndarray
    exact: Callable[[np.ndarray], np.ndarray]


class StepErrors(NamedTuple):
    """Step sizes h and the maximum global error of a fixed-step method at each."""

    step_sizes: np.ndarray
    errors: np.ndarray


@fill_doc
@nb.njit(cache=True)
def logistic_rhs(t: float, y: np.ndarray, rates: np.ndarray) -> np.ndarray:
    """y_i' = r_i y_i (1 - y_i) with ``rates`` r.

    A numba right-hand side for :func:`dynamics.numerics.solve_ode` (``params=rates``); unchecked.

    Parameters
    ----------
    %(t_autonomous)s
    y : ndarray, shape (n,), float64
        State.
    rates : ndarray, shape (n,), float64
        The rates r_i.

    Returns
    -------
    ndarray, shape (n,)
        dy/dt, a new array.

    Examples
    --------
    >>> logistic_rhs(0.0, np.array([0.5, 0.25]), np.array([1.0, 2.0])).tolist()
    [0.25, 0.375]
    """
    out = np.empty_like(y)  # one allocation: the array expression would make three
    for i in range(y.shape[0]):
        out[i] = rates[i] * y[i] * (1.0 - y[i])
    return out


def logistic_exact(t: ArrayLike, y0: ArrayLike, rates: ArrayLike) -> np.ndarray:
    """Exact logistic modes at times ``t`` (shape (len(t), n)); y0 in (0, 1), rates finite.

    Parameters
    ----------
    t : array_like, shape (m,)
        Times, finite (any order, negative ones included).
    y0 : array_like, shape (n,)
        Initial states, each in the open interval (0, 1).
    rates : array_like, shape (n,)
        The rates r_i, finite (y0 and rates may also be of length 1, broadcast against the other).

    Returns
    -------
    ndarray, shape (m, n)
        y_i(t) = 1 / (1 + (1/y_i(0) − 1) e^{−r_i t}), one row per time.

    Examples
    --------
    >>> logistic_exact([0.0], [0.25], [1.0])
    array([[0.25]])
    >>> logistic_exact([0.0, np.log(3.0)], [0.25, 0.5], [1.0, 0.0]).round(12).tolist()  # at t = log 3: 1/2, 1/2
    [[0.25, 0.5], [0.5, 0.5]]
    """
    t = as_finite_array("t", t, ndim=1)
    y0 = require_array_in_range("y0", y0, 0.0, 1.0, low_open=True, high_open=True, ndim=1)
    rates = as_finite_array("rates", rates, ndim=1)
    return 1.0 / (1.0 + (1.0 / y0 - 1.0) * np.exp(-np.outer(t, rates)))


@fill_doc
@nb.njit(cache=True)
def rotated_logistic_rhs(t: float, y: np.ndarray, params: np.ndarray) -> np.ndarray:
    """params = [r_1..r_n, Q.ravel()] for n = len(y). Plain loops: for these sizes a BLAS call costs
    more than the product itself.

    A numba right-hand side for :func:`dynamics.numerics.solve_ode`; unchecked.

    Parameters
    ----------
    %(t_autonomous)s
    y : ndarray, shape (n,), float64
        State.
    params : ndarray, shape (n + n²,), float64
        The rates r, then the orthogonal Q (n × n, C order) flattened, as ``rotated_logistic_problem``
        builds them.

    Returns
    -------
    ndarray, shape (n,)
        dy/dt = Q diag(r) (z ∘ (1 − z)) with z = Qᵀ y, a new array.

    Examples
    --------
    With Q = I the modes are the plain logistic ones:

    >>> params = np.concatenate([[1.0, 2.0], np.eye(2).ravel()])
    >>> rotated_logistic_rhs(0.0, np.array([0.5, 0.25]), params).tolist()
    [0.25, 0.375]
    """
    n = y.shape[0]
    z = np.zeros(n)
    for i in range(n):
        for j in range(n):
            z[j] += params[n + i * n + j] * y[i]  # z = Qᵀ y
    for j in range(n):
        z[j] = params[j] * z[j] * (1.0 - z[j])
    out = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for j in range(n):
            acc += params[n + i * n + j] * z[j]  # out = Q g
        out[i] = acc
    return out


def rotated_logistic_problem(n: int, seed: int = 0) -> ReferenceProblem:
    """n logistic modes with rates in [0.5, 2], rotated by a Haar Q (right-hand side ``rotated_logistic_rhs``).

    Parameters
    ----------
    n : int
        Number of states, 1 <= n <= 10 000.
    seed : None, int >= 0, numpy.random.SeedSequence or numpy.random.Generator
        Draws the rates, the initial modes z(0) in [0.01, 0.2] and Q.

    Returns
    -------
    ReferenceProblem
        ``y0 = Q z(0)``, shape (n,); ``params = [r, Q.ravel()]``, shape (n + n²,); ``exact(t)``, shape
        (len(t), n).

    Examples
    --------
    >>> problem = rotated_logistic_problem(3, seed=1)
    >>> problem.y0.shape, problem.exact([0.0, 1.0]).shape
    ((3,), (2, 3))
    """
    n = require_integer("n", n, 1, 10_000)
    rng = rng_from(seed)
    rates = rng.uniform(0.5, 2.0, n)
    z0 = rng.uniform(0.01, 0.2, n)
    q = haar_orthogonal(n, seed=rng)
    params = np.concatenate([rates, q.ravel()])

    def exact(t):
        return logistic_exact(t, z0, rates) @ q.T

    return ReferenceProblem(q @ z0, params, exact)


@nb.njit(cache=True)
def _apply_givens(v, cos, sin, transpose):
    """v <- Q v (or Qᵀ v) in place, for Q = G_0 G_1 ... G_{n-2}, G_k rotating coordinates (k, k+1)."""
    n = v.shape[0]
    for step in range(n - 1):
        k = step if transpose else n - 2 - step
        c, s = cos[k], (-sin[k] if transpose else sin[k])
        a, b = v[k], v[k + 1]
        v[k] = c * a - s * b
        v[k + 1] = s * a + c * b


@fill_doc
@nb.njit(cache=True)
def givens_logistic_rhs(t: float, y: np.ndarray, params: np.ndarray) -> np.ndarray:
    """params = [r_1..r_n, cos θ_1..θ_{n-1}, sin θ_1..θ_{n-1}] for n = len(y).

    A numba right-hand side for :func:`dynamics.numerics.solve_ode`, O(n) per call; unchecked.

    Parameters
    ----------
    %(t_autonomous)s
    y : ndarray, shape (n,), float64
        State, n >= 2.
    params : ndarray, shape (3n − 2,), float64
        The rates, then the cosines and sines of the n − 1 rotation angles, as ``givens_logistic_problem``
        builds them.

    Returns
    -------
    ndarray, shape (n,)
        dy/dt = Q diag(r) (z ∘ (1 − z)) with z = Qᵀ y and Q = G_0 G_1 ... G_{n−2}, a new array.

    Examples
    --------
    With every angle 0 (Q = I) the modes are the plain logistic ones:

    >>> params = np.array([1.0, 2.0, 1.0, 0.0])  # r = (1, 2), cos θ = 1, sin θ = 0
    >>> givens_logistic_rhs(0.0, np.array([0.5, 0.25]), params).tolist()
    [0.25, 0.375]
    """
    n = y.shape[0]
    cos, sin = params[n:2 * n - 1], params[2 * n - 1:]
    out = y.copy()
    _apply_givens(out, cos, sin, True)
    for i in range(n):
        out[i] = params[i] * out[i] * (1.0 - out[i])
    _apply_givens(out, cos, sin, False)
    return out


def givens_logistic_problem(n: int, seed: int = 0) -> ReferenceProblem:
    """n logistic modes rotated by a chain of n - 1 Givens rotations (right-hand side ``givens_logistic_rhs``).

    Parameters
    ----------
    n : int
        Number of states, 2 <= n <= 10⁶.
    seed : None, int >= 0, numpy.random.SeedSequence or numpy.random.Generator
        Draws the rates in [0.5, 2], the initial modes z(0) in [0.01, 0.2] and the angles in [0.3, 1.2].

    Returns
    -------
    ReferenceProblem
        ``y0 = Q z(0)``, shape (n,); ``params = [r, cos θ, sin θ]``, shape (3n − 2,); ``exact(t)``, shape
        (len(t), n).

    Examples
    --------
    >>> givens_logistic_problem(4).params.shape
    (10,)
    """
    n = require_integer("n", n, 2, 10**6)
    rng = rng_from(seed)
    rates = rng.uniform(0.5, 2.0, n)
    z0 = rng.uniform(0.01, 0.2, n)
    theta = rng.uniform(0.3, 1.2, n - 1)
    params = np.concatenate([rates, np.cos(theta), np.sin(theta)])
    q = np.eye(n)
    for column in q.T:  # rows of the transpose are views of the columns
        _apply_givens(column, params[n:2 * n - 1], params[2 * n - 1:], False)

    def exact(t):
        return logistic_exact(t, z0, rates) @ q.T

    return ReferenceProblem(q @ z0, params, exact)


def convergence_order(step_sizes: ArrayLike, errors: ArrayLike) -> float:
    """Least-squares slope of log(error) against log(step): the empirical order of convergence.

    Parameters
    ----------
    step_sizes : array_like, shape (m,)
        Step sizes h, > 0 and finite, m >= 2.
    errors : array_like, shape (m,)
        The global error at each step size, > 0 and finite.

    Returns
    -------
    float
        The fitted order p of error ≈ C h^p.

    Examples
    --------
    >>> round(convergence_order([0.1, 0.05], [1e-4, 6.25e-6]), 6)
    4.0
    """
    h = require_array_in_range("step_sizes", step_sizes, 0.0, np.inf, low_open=True, ndim=1)
    e = require_array_in_range("errors", errors, 0.0, np.inf, low_open=True, ndim=1)
    if h.shape != e.shape or h.size < 2:
        raise ValueError(f"step_sizes and errors must have the same length >= 2, got {h.size} and {e.size}")
    return float(np.polyfit(np.log(h), np.log(e), 1)[0])


def fixed_step_errors(method: str, step_counts: ArrayLike) -> StepErrors:
    """Step sizes and max global error over the step points of fixed-step ``method`` on the logistic
    equation y' = y(1 - y), y(0) = 0.01, t in [0, 10], for each number of steps in ``step_counts``.

    Parameters
    ----------
    method : {"dopri5", "dop853", "rk4", "rosenbrock23"}
        Any method of :func:`dynamics.numerics.solve_ode`, run with fixed steps (``step=``, no error control).
    step_counts : int or sequence of int
        Numbers of steps over [0, 10], each in [1, 10⁶].

    Returns
    -------
    StepErrors
        ``step_sizes`` = 10 / step_counts and the maximum global error over the step points for each, arrays
        of the length of ``step_counts``. A solve that fails raises
        :class:`dynamics.numerics.IntegrationError`.

    Examples
    --------
    >>> result = fixed_step_errors("rk4", [20, 40])
    >>> bool(result.errors[1] < result.errors[0])
    True
    """
    require_choice("method", method, METHODS)
    counts = [require_integer("step_counts", n, 1, 10**6) for n in np.atleast_1d(step_counts)]
    y0, rates, t_end = np.array([0.01]), np.array([1.0]), 10.0
    steps = t_end / np.array(counts, dtype=float)
    errors = []
    for h in steps:
        sol = solve_ode(logistic_rhs, (0.0, t_end), y0, params=rates, options=OdeOptions(method=method, step=h)).check()
        errors.append(np.abs(sol.y - logistic_exact(sol.t, y0, rates)).max())
    return StepErrors(steps, np.array(errors))
