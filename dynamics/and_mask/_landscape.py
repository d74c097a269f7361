"""Constructed landscapes of the paper: the Figure 1 two-environment landscape and the 1-D sigmoid patchwork
(spec/and_mask.md §7, §5.6; paper Fig 1, footnote 6, appendix "Section 2.1").

* Figure 1 (the paper gives no formula; the spec's normative construction): a soft minimum of a shared bowl
  q_c = ‖θ − c‖², c = (−0.5, −0.5), and an environment valley q_A = (θ₁ − 0.8)², q_B = (θ₂ − 0.8)²:
  L_e = q_c q_e/(q_c + q_e), ∇L_e = (q_e/(q_c+q_e))²∇q_c + (q_c/(q_c+q_e))²∇q_e, L = ½(L_A + L_B). The pooled
  loss has exactly two zeros, c (consistent: H_A = H_B = 2I) and s* = (0.8, 0.8) (H_A = diag(2, 0),
  H_B = diag(0, 2): C^ε = −∞).
* Gradient descent on it (pooled, one environment, or AND-masked with d = 2, τ = 1) in numba, and the basin
  statistics of the §7 protocol.
* The sigmoid patchwork f_θ(x) = θ₅σ(θ₁x + θ₂) + θ₆σ(θ₃x + θ₄) against the piecewise-linear target, with
  environments A = [0, 0.5) and B = [0.5, 1].
"""
import math

import numba as nb
import numpy as np

from dynamics.numerics import (as_finite_array, require_array_in_range, require_choice, require_finite_result,
                               require_in_range, require_integer, require_positive)
from ._results import BasinFractions, Fig1Descent, Fig1Losses, PatchworkLosses

__all__ = ["FIG1_CONSISTENT_MINIMUM", "FIG1_INCONSISTENT_MINIMUM", "FIG1_METHODS", "PATCHWORK_THETA_STAR",
           "PATCHWORK_THETA_TILDE", "fig1_basins", "fig1_descent", "fig1_gradients", "fig1_losses", "patchwork_losses",
           "patchwork_model", "patchwork_target"]

#: The minimum shared by both environments, c (consistent).
FIG1_CONSISTENT_MINIMUM = np.array([-0.5, -0.5])
#: The pooled minimum s* that neither environment alone can reach (inconsistent).
FIG1_INCONSISTENT_MINIMUM = np.array([0.8, 0.8])
#: Descent methods of :func:`fig1_descent`: pooled GD, GD on one environment, AND-masked GD (d = 2, τ = 1).
FIG1_METHODS = ("pooled", "env_a", "env_b", "and_mask")

_C, _S = -0.5, 0.8


@nb.njit(cache=True)
def _env_terms(x, y):
    """(L_A, L_B, ∇L_A, ∇L_B) at one point."""
    qc = (x - _C) ** 2 + (y - _C) ** 2
    qa = (x - _S) ** 2
    qb = (y - _S) ** 2
    la = qc * (qa / (qc + qa))  # the quotient first: qc·qa alone overflows for |θ| near 1e77
    lb = qc * (qb / (qc + qb))
    wa_c = (qa / (qc + qa)) ** 2
    wa_e = (qc / (qc + qa)) ** 2
    wb_c = (qb / (qc + qb)) ** 2
    wb_e = (qc / (qc + qb)) ** 2
    gax = wa_c * 2.0 * (x - _C) + wa_e * 2.0 * (x - _S)
    gay = wa_c * 2.0 * (y - _C)
    gbx = wb_c * 2.0 * (x - _C)
    gby = wb_c * 2.0 * (y - _C) + wb_e * 2.0 * (y - _S)
    return la, lb, gax, gay, gbx, gby


@nb.njit(cache=True)
def _sign(v):
    return (v > 0.0) - (v < 0.0)


@nb.njit(cache=True, parallel=True)
def _descent_kernel(starts, method, learning_rate, n_steps, record_every):
    m = starts.shape[0]
    n_record = n_steps // record_every + 1
    paths = np.empty((m, n_record, 2))
    final = np.empty((m, 2))
    for i in nb.prange(m):
        x, y = starts[i, 0], starts[i, 1]
        paths[i, 0, 0], paths[i, 0, 1] = x, y
        for k in range(1, n_steps + 1):
            _, _, gax, gay, gbx, gby = _env_terms(x, y)
            if method == 0:
                ux, uy = 0.5 * (gax + gbx), 0.5 * (gay + gby)
            elif method == 1:
                ux, uy = gax, gay
            elif method == 2:
                ux, uy = gbx, gby
            else:  # AND-mask, d = 2, τ = 1: keep a coordinate iff both signs agree and are non-zero
                ux = 0.5 * (gax + gbx) if abs(_sign(gax) + _sign(gbx)) == 2 else 0.0
                uy = 0.5 * (gay + gby) if abs(_sign(gay) + _sign(gby)) == 2 else 0.0
            x -= learning_rate * ux
            y -= learning_rate * uy
            if k % record_every == 0:
                paths[i, k // record_every, 0], paths[i, k // record_every, 1] = x, y
        final[i, 0], final[i, 1] = x, y
    return final, paths


@nb.njit(cache=True)
def _terms_many(points):
    out = np.empty((points.shape[0], 6))
    for i in range(points.shape[0]):
        out[i] = _env_terms(points[i, 0], points[i, 1])
    return out


#: Largest |θ| accepted by the landscape functions (squares must stay finite).
MAX_COORDINATE = 1e100


def _points(points):
    p = require_array_in_range("points", points, -MAX_COORDINATE, MAX_COORDINATE)
    if p.ndim < 1 or p.shape[-1] != 2:
        raise ValueError(f"points must have shape (..., 2), got {p.shape}")
    return p, p.reshape(-1, 2)


def fig1_losses(points) -> Fig1Losses:
    """L_A, L_B and the pooled L = ½(L_A + L_B) of the Figure 1 construction (spec §7; paper Fig 1).

    Parameters
    ----------
    points : array_like, shape (..., 2)
        Parameter points θ = (θ₁, θ₂).

    Returns
    -------
    Fig1Losses
        Each of the shape of ``points`` without its last axis.

    Examples
    --------
    >>> losses = fig1_losses([[-0.5, -0.5], [0.8, 0.8], [0.0, 0.0]])
    >>> losses.pooled[:2].tolist(), round(float(losses.pooled[2]), 6)
    ([0.0, 0.0], 0.280702)
    """
    p, flat = _points(points)
    terms = _terms_many(flat)
    shape = p.shape[:-1]
    la, lb = terms[:, 0].reshape(shape), terms[:, 1].reshape(shape)
    return Fig1Losses(la, lb, 0.5 * (la + lb))


def fig1_gradients(points) -> np.ndarray:
    """Per-environment gradients ∇L_A, ∇L_B of the Figure 1 construction (spec §7).

    Parameters
    ----------
    points : array_like, shape (..., 2)

    Returns
    -------
    ndarray, shape (2, ..., 2)
        Row 0 is ∇L_A, row 1 ∇L_B (for one point: the ``grads`` layout of :func:`and_mask`).

    Examples
    --------
    >>> fig1_gradients([0.5, 0.5]).round(4).tolist()  # footnote 6: nearly orthogonal
    [[-0.5457, 0.0037], [0.0037, -0.5457]]
    """
    p, flat = _points(points)
    terms = _terms_many(flat)
    return np.stack([terms[:, 2:4].reshape(p.shape), terms[:, 4:6].reshape(p.shape)])


def fig1_descent(starts, method="pooled", learning_rate=0.02, n_steps=30_000, record_every=None) -> Fig1Descent:
    """Gradient descent on the Figure 1 landscape from many starts (spec §7; paper Fig 1).

    Parameters
    ----------
    starts : array_like, shape (m, 2) or (2,)
        Initial points.
    method : {"pooled", "env_a", "env_b", "and_mask"}, default "pooled"
        GD on L = ½(L_A + L_B), on one environment, or AND-masked GD on L with d = 2, τ = 1 (no rescaling).
    learning_rate : float, default 0.02
        η > 0 (the protocol's value).
    n_steps : int, default 30000
        Number of steps >= 0.
    record_every : int, optional
        Record the iterate every this many steps (default: only the start and the end).

    Returns
    -------
    Fig1Descent
        ``final`` (m, 2), ``paths`` (m, n_record, 2) and ``recorded_steps``.

    Examples
    --------
    >>> starts = [[-1.0, 0.0], [0.6, 0.7]]
    >>> fig1_descent(starts, "pooled", n_steps=5000).final.round(3).tolist()
    [[-0.5, -0.5], [0.8, 0.8]]
    >>> fig1_descent(starts, "and_mask", n_steps=5000).final.round(3).tolist()  # the second start is stuck
    [[-0.5, -0.5], [0.6, 0.7]]
    """
    s = require_array_in_range("starts", starts, -MAX_COORDINATE, MAX_COORDINATE)
    if s.ndim == 1:
        s = s.reshape(1, -1)
    if s.ndim != 2 or s.shape[1] != 2 or s.shape[0] < 1:
        raise ValueError(f"starts must have shape (m, 2) with m >= 1, got {np.shape(starts)}")
    code = FIG1_METHODS.index(require_choice("method", method, FIG1_METHODS))
    eta = require_positive("learning_rate", learning_rate)
    n_steps = require_integer("n_steps", n_steps, 0, 10**9)
    every = max(n_steps, 1) if record_every is None else require_integer("record_every", record_every, 1)
    final, paths = _descent_kernel(s, code, eta, n_steps, every)
    if not np.all(np.isfinite(final)):
        raise ValueError("gradient descent on the Figure 1 landscape diverged: reduce learning_rate")
    return Fig1Descent(final, paths, np.arange(paths.shape[1]) * every)


def fig1_basins(method="pooled", learning_rate=0.02, n_steps=30_000, n_grid=41, tolerance=1e-2,
                between_minima=False) -> BasinFractions:
    """The basin protocol of spec §7: where GD from a grid of starts over [−1.5, 1.5]² ends.

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
        Use only the starts strictly inside (−0.5, 0.8)².

    Returns
    -------
    BasinFractions

    Examples
    --------
    >>> f = fig1_basins("and_mask", n_steps=2000, n_grid=11)
    >>> round(f.consistent + f.inconsistent + f.other, 12), f.n_runs
    (1.0, 121)
    """
    n_grid = require_integer("n_grid", n_grid, 2, 2001)
    tolerance = require_in_range("tolerance", tolerance, 0.0, 1.0, low_open=True)
    axis = np.linspace(-1.5, 1.5, n_grid)
    starts = np.stack(np.meshgrid(axis, axis, indexing="ij"), axis=-1).reshape(-1, 2)
    if between_minima:
        inside = np.all((starts > _C) & (starts < _S), axis=1)
        starts = starts[inside]
        if starts.shape[0] == 0:
            raise ValueError(f"n_grid = {n_grid} puts no start strictly inside (-0.5, 0.8)^2")
    final = fig1_descent(starts, method, learning_rate, n_steps).final
    to_c = np.linalg.norm(final - FIG1_CONSISTENT_MINIMUM, axis=1) <= tolerance
    to_s = np.linalg.norm(final - FIG1_INCONSISTENT_MINIMUM, axis=1) <= tolerance
    m = starts.shape[0]
    return BasinFractions(float(to_c.sum()) / m, float(to_s.sum()) / m, float((~to_c & ~to_s).sum()) / m, m)


# ------------------------------------------------------------------------------------------------ sigmoid patchwork
#: θ* of the appendix example (a fit to both environments) and θ̃* (θ₆ changed: same on A, bad on B).
PATCHWORK_THETA_STAR = np.array([100.0, -50.0, 100.0, -75.0, 1.0, 1.0])
PATCHWORK_THETA_TILDE = np.array([100.0, -50.0, 100.0, -75.0, 1.0, -0.5])


def patchwork_target(x) -> np.ndarray:
    """The target f* of the patchwork example: 0, ramp to 1 on [0.4, 0.5), 1, ramp to 2 on [0.7, 0.8), 2 (spec §5.6).

    Parameters
    ----------
    x : array_like
        Inputs in [0, 1].

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


def patchwork_model(x, theta) -> np.ndarray:
    """f_θ(x) = θ₅σ(θ₁x + θ₂) + θ₆σ(θ₃x + θ₄), σ the logistic function (paper appendix, spec §5.6).

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


def patchwork_losses(theta, n_points=200_000) -> PatchworkLosses:
    """Mean squared errors of f_θ on environment A (x in [0, 0.5)) and B (x in [0.5, 1]) (spec §5.6).

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
