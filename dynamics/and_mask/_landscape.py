"""Constructed landscapes of the paper: the two-valley landscape of Fig 1 and the 1-D sigmoid patchwork
(Parascandolo et al. 2021, Fig 1, footnote 6, appendix "Section 2.1").

* The two-valley landscape (Fig 1 of Parascandolo et al. 2021; the paper gives no formula, this is the project's
  construction, see the theory note, docs/theory/and_mask.md): a soft minimum of a shared bowl
  q_c = ‖θ − c‖², c = (−0.5, −0.5), and an environment valley q_A = (θ₁ − 0.8)², q_B = (θ₂ − 0.8)²:
  L_e = q_c q_e/(q_c + q_e), ∇L_e = (q_e/(q_c+q_e))²∇q_c + (q_c/(q_c+q_e))²∇q_e, L = ½(L_A + L_B). The pooled
  loss has exactly two zeros, c (consistent: H_A = H_B = 2I) and s* = (0.8, 0.8) (H_A = diag(2, 0),
  H_B = diag(0, 2): C^ε = −∞).
* Gradient descent on it (pooled, one environment, or AND-masked with d = 2, τ = 1; the numba kernels are in
  ``_kernels``), and the basin statistics from a grid of starts.
* The sigmoid patchwork f_θ(x) = θ₅σ(θ₁x + θ₂) + θ₆σ(θ₃x + θ₄) against the piecewise-linear target, with
  environments A = [0, 0.5) and B = [0.5, 1].
"""
from typing import Optional

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (as_finite_array, require_array_in_range, require_choice, require_finite_result,
                               require_in_range, require_integer, require_positive)
from ._checks import MAX_COORDINATE, require_points
from ._kernels import CONSISTENT_CENTRE, VALLEY, two_valley_descent_kernel, two_valley_terms_many
from ._results import BasinFractions, PatchworkLosses, TwoValleyDescent, TwoValleyLosses

__all__ = ["PATCHWORK_THETA_STAR", "PATCHWORK_THETA_TILDE", "TWO_VALLEY_CONSISTENT_MINIMUM",
           "TWO_VALLEY_INCONSISTENT_MINIMUM", "TWO_VALLEY_METHODS", "patchwork_losses", "patchwork_model",
           "patchwork_target", "two_valley_basins", "two_valley_descent", "two_valley_gradients", "two_valley_losses"]

#: The minimum c shared by both environments of the two-valley landscape (consistent; Fig 1 of Parascandolo et al.
#: 2021).
TWO_VALLEY_CONSISTENT_MINIMUM = np.array([CONSISTENT_CENTRE, CONSISTENT_CENTRE])
#: The pooled minimum s* of the two-valley landscape that neither environment alone can reach (inconsistent).
TWO_VALLEY_INCONSISTENT_MINIMUM = np.array([VALLEY, VALLEY])
#: Descent methods of :func:`two_valley_descent`: pooled GD, GD on one environment, AND-masked GD (d = 2, τ = 1).
TWO_VALLEY_METHODS = ("pooled", "env_a", "env_b", "and_mask")


def two_valley_losses(points: ArrayLike) -> TwoValleyLosses:
    r""":math:`L_A`, :math:`L_B` and the pooled :math:`L = \tfrac{1}{2}(L_A + L_B)` of the two-valley landscape: the
    project's construction of the consistent and inconsistent minima of Fig 1 of Parascandolo et al. 2021.

    Parameters
    ----------
    points : array_like, shape (..., 2)
        Parameter points :math:`\theta = (\theta_1, \theta_2)`.

    Returns
    -------
    TwoValleyLosses
        Each of the shape of ``points`` without its last axis.

    Examples
    --------
    >>> losses = two_valley_losses([[-0.5, -0.5], [0.8, 0.8], [0.0, 0.0]])
    >>> losses.pooled[:2].tolist(), round(float(losses.pooled[2]), 6)
    ([0.0, 0.0], 0.280702)
    """
    p = require_points("points", points)
    terms = two_valley_terms_many(p.reshape(-1, 2))
    shape = p.shape[:-1]
    la, lb = terms[:, 0].reshape(shape), terms[:, 1].reshape(shape)
    return TwoValleyLosses(la, lb, 0.5 * (la + lb))


def two_valley_gradients(points: ArrayLike) -> np.ndarray:
    r"""Per-environment gradients :math:`\nabla L_A`, :math:`\nabla L_B` of the two-valley landscape (the project's
    construction of Fig 1 of Parascandolo et al. 2021).

    Parameters
    ----------
    points : array_like, shape (..., 2)

    Returns
    -------
    ndarray, shape (2, ..., 2)
        Row 0 is :math:`\nabla L_A`, row 1 :math:`\nabla L_B` (for one point: the ``grads`` layout of
        :func:`dynamics.and_mask.and_mask`).

    Examples
    --------
    >>> two_valley_gradients([0.5, 0.5]).round(4).tolist()  # footnote 6: nearly orthogonal
    [[-0.5457, 0.0037], [0.0037, -0.5457]]
    """
    p = require_points("points", points)
    terms = two_valley_terms_many(p.reshape(-1, 2))
    return np.stack([terms[:, 2:4].reshape(p.shape), terms[:, 4:6].reshape(p.shape)])


def two_valley_descent(starts: ArrayLike, method: str = "pooled", learning_rate: float = 0.02, n_steps: int = 30_000,
                       record_every: Optional[int] = None) -> TwoValleyDescent:
    r"""Gradient descent on the two-valley landscape from many starts (Fig 1 of Parascandolo et al. 2021).

    Parameters
    ----------
    starts : array_like, shape (m, 2) or (2,)
        Initial points.
    method : {"pooled", "env_a", "env_b", "and_mask"}, default "pooled"
        GD on :math:`L = \tfrac{1}{2}(L_A + L_B)`, on one environment, or AND-masked GD on :math:`L` with
        :math:`d = 2`, :math:`\tau = 1` (no rescaling).
    learning_rate : float, default 0.02
        :math:`\eta > 0` (the protocol's value).
    n_steps : int, default 30000
        Number of steps >= 0.
    record_every : int, optional
        Record the iterate every this many steps (default: only the start and the end).

    Returns
    -------
    TwoValleyDescent
        ``final`` (m, 2), ``paths`` (m, n_record, 2) and ``recorded_steps``.

    Examples
    --------
    >>> starts = [[-1.0, 0.0], [0.6, 0.7]]
    >>> two_valley_descent(starts, "pooled", n_steps=5000).final.round(3).tolist()
    [[-0.5, -0.5], [0.8, 0.8]]
    >>> two_valley_descent(starts, "and_mask", n_steps=5000).final.round(3).tolist()  # the second start is stuck
    [[-0.5, -0.5], [0.6, 0.7]]
    """
    s = require_array_in_range("starts", starts, -MAX_COORDINATE, MAX_COORDINATE)
    if s.ndim == 1:
        s = s.reshape(1, -1)
    if s.ndim != 2 or s.shape[1] != 2 or s.shape[0] < 1:
        raise ValueError(f"starts must have shape (m, 2) with m >= 1, got {np.shape(starts)}")
    code = TWO_VALLEY_METHODS.index(require_choice("method", method, TWO_VALLEY_METHODS))
    eta = require_positive("learning_rate", learning_rate)
    n_steps = require_integer("n_steps", n_steps, 0, 10**9)
    every = max(n_steps, 1) if record_every is None else require_integer("record_every", record_every, 1)
    final, paths = two_valley_descent_kernel(s, code, eta, n_steps, every)
    if not np.all(np.isfinite(final)):
        raise ValueError("gradient descent on the two-valley landscape diverged: reduce learning_rate")
    return TwoValleyDescent(final, paths, np.arange(paths.shape[1]) * every)


def two_valley_basins(method: str = "pooled", learning_rate: float = 0.02, n_steps: int = 30_000, n_grid: int = 41,
                      tolerance: float = 1e-2, between_minima: bool = False) -> BasinFractions:
    """Basin statistics on the two-valley landscape (Fig 1 of Parascandolo et al. 2021): where GD from a grid of
    starts over :math:`[-1.5, 1.5]^2` ends.

    Parameters
    ----------
    method : {"pooled", "env_a", "env_b", "and_mask"}, default "pooled"
    learning_rate : float, default 0.02
    n_steps : int, default 30000
    n_grid : int, default 41
        Starts np.linspace(−1.5, 1.5, n_grid) in each coordinate (1681 points).
    tolerance : float, default 1e-2
        A run reaches a minimum when its last iterate is within this Euclidean distance.
    between_minima : bool, default False
        Use only the starts strictly inside :math:`(-0.5, 0.8)^2`.

    Returns
    -------
    BasinFractions

    Examples
    --------
    >>> f = two_valley_basins("and_mask", n_steps=2000, n_grid=11)
    >>> round(f.consistent + f.inconsistent + f.other, 12), f.n_runs
    (1.0, 121)
    """
    n_grid = require_integer("n_grid", n_grid, 2, 2001)
    tolerance = require_in_range("tolerance", tolerance, 0.0, 1.0, low_open=True)
    axis = np.linspace(-1.5, 1.5, n_grid)
    starts = np.stack(np.meshgrid(axis, axis, indexing="ij"), axis=-1).reshape(-1, 2)
    if between_minima:
        inside = np.all((starts > CONSISTENT_CENTRE) & (starts < VALLEY), axis=1)
        starts = starts[inside]
        if starts.shape[0] == 0:
            raise ValueError(f"n_grid = {n_grid} puts no start strictly inside (-0.5, 0.8)^2")
    final = two_valley_descent(starts, method, learning_rate, n_steps).final
    to_c = np.linalg.norm(final - TWO_VALLEY_CONSISTENT_MINIMUM, axis=1) <= tolerance
    to_s = np.linalg.norm(final - TWO_VALLEY_INCONSISTENT_MINIMUM, axis=1) <= tolerance
    m = starts.shape[0]
    return BasinFractions(float(to_c.sum()) / m, float(to_s.sum()) / m, float((~to_c & ~to_s).sum()) / m, m)


# ------------------------------------------------------------------------------------------------ sigmoid patchwork
#: θ* of the appendix example (a fit to both environments) and θ̃* (θ₆ changed: same on A, bad on B).
PATCHWORK_THETA_STAR = np.array([100.0, -50.0, 100.0, -75.0, 1.0, 1.0])
PATCHWORK_THETA_TILDE = np.array([100.0, -50.0, 100.0, -75.0, 1.0, -0.5])


def patchwork_target(x: ArrayLike) -> np.ndarray:
    """The target :math:`f^*` of the patchwork example: 0, ramp to 1 on :math:`[0.4, 0.5)`, 1, ramp to 2 on
    :math:`[0.7, 0.8)`, 2 (Parascandolo et al. 2021, appendix "Section 2.1").

    Parameters
    ----------
    x : array_like
        Inputs in :math:`[0, 1]`.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> patchwork_target([0.2, 0.45, 0.6, 0.75, 0.9]).round(6).tolist()
    [0.0, 0.5, 1.0, 1.5, 2.0]
    """
    x = as_finite_array("x", x)
    return np.select([x < 0.4, x < 0.5, x < 0.7, x < 0.8], [0.0 * x, 10.0 * (x - 0.4), 1.0 + 0.0 * x,
                                                             10.0 * (x - 0.7) + 1.0], 2.0 + 0.0 * x)


def patchwork_model(x: ArrayLike, theta: ArrayLike) -> np.ndarray:
    r""":math:`f_\theta(x) = \theta_5 \sigma(\theta_1 x + \theta_2) + \theta_6 \sigma(\theta_3 x + \theta_4)`,
    :math:`\sigma` the logistic function (Parascandolo et al. 2021, appendix "Section 2.1").

    Parameters
    ----------
    x : array_like
        Inputs.
    theta : array_like, shape (6,)

    Returns
    -------
    ndarray

    Examples
    --------
    >>> patchwork_model([0.5, 1.0], PATCHWORK_THETA_STAR).round(4).tolist()
    [0.5, 2.0]
    """
    x = as_finite_array("x", x)
    t = as_finite_array("theta", theta, ndim=1)
    if t.shape != (6,):
        raise ValueError(f"theta must have shape (6,), got {t.shape}")
    sigmoid = lambda z: 0.5 * (1.0 + np.tanh(0.5 * z))  # noqa: E731  (the logistic function, overflow-free)
    with np.errstate(over="ignore", invalid="ignore"):
        value = t[4] * sigmoid(t[0] * x + t[1]) + t[5] * sigmoid(t[2] * x + t[3])
    return require_finite_result(value, "patchwork_model", "theta or x is too large for float64")


def patchwork_losses(theta: ArrayLike, n_points: int = 200_000) -> PatchworkLosses:
    r"""Mean squared errors of :math:`f_\theta` on environment A (:math:`x \in [0, 0.5)`) and B
    (:math:`x \in [0.5, 1]`) (Parascandolo et al. 2021, appendix "Section 2.1").

    Parameters
    ----------
    theta : array_like, shape (6,)
    n_points : int, default 200000
        Uniform grid points per environment (A excludes its right end).

    Returns
    -------
    PatchworkLosses

    Examples
    --------
    >>> losses = patchwork_losses(PATCHWORK_THETA_STAR)
    >>> round(losses.loss_a, 5), round(losses.loss_b, 6)
    (0.04609, 0.007056)
    """
    n = require_integer("n_points", n_points, 2, 10**8)
    xa = np.linspace(0.0, 0.5, n, endpoint=False)
    xb = np.linspace(0.5, 1.0, n)
    errors_a = patchwork_model(xa, theta) - patchwork_target(xa)
    errors_b = patchwork_model(xb, theta) - patchwork_target(xb)
    with np.errstate(over="ignore"):
        result = PatchworkLosses(float(np.mean(errors_a ** 2)), float(np.mean(errors_b ** 2)))
    require_finite_result(np.array(result), "patchwork_losses", "theta is too large for squared errors in float64")
    return result
