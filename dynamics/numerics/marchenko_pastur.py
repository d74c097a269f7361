"""Marchenko–Pastur law and a quadrature that removes its endpoint singularities.

Convention of Pezeshki (thesis), Eq 2.3.30 (reviewing Advani & Saxe 2017): for α = P/N and eigenvalues scaled by
``scale``,

    ρ(λ) = sqrt((λ+ - λ)(λ - λ-)) / (2π scale λ) on [λ-, λ+],  λ± = scale (1 ± √α)²,
    plus an atom of mass max(0, 1 - α) at λ = 0.

The bulk has mass min(1, α) and mean (first moment) ``scale·α``.
The quadrature substitutes λ = λ- + (λ+ - λ-)(1 - cos θ)/2, θ in [0, π]: the square roots become
sin θ and the integrand is smooth even at α = 1 where ρ ~ λ^{-1/2}. Composite Gauss–Legendre panels,
graded geometrically towards both ends, keep integrands that concentrate at an edge (e^{-λt} at
large t) accurate.
"""
from typing import Callable, NamedTuple, Union

import numpy as np
from numpy.typing import ArrayLike

from .validation import _kind_error, as_finite_array, require_finite_result, require_in_range, require_integer

__all__ = ["ALPHA_RANGE", "MPEdges", "Quadrature", "SCALE_RANGE", "mp_atom", "mp_cdf", "mp_density", "mp_edges",
           "mp_integrate", "mp_quadrature"]


class MPEdges(NamedTuple):
    """The edges of the Marchenko–Pastur bulk."""

    lower: float
    upper: float


class Quadrature(NamedTuple):
    r"""Nodes and weights of a quadrature rule: :math:`\sum \mathrm{weights} \cdot f(\mathrm{nodes}) \approx` the
    integral."""

    nodes: np.ndarray
    weights: np.ndarray

_GRADING = 2.0 ** -np.arange(1, 28)  # panel edges at π·2^-k near each end, down to ~1e-8


ALPHA_RANGE = (1e-8, 1e8)  # beyond it the bulk degenerates to a point (or its edges overflow)
SCALE_RANGE = (1e-100, 1e100)


def _alpha_scale(alpha, scale):
    alpha = require_in_range("alpha", alpha, *ALPHA_RANGE, why="beyond it the bulk degenerates to a point")
    scale = require_in_range("scale", scale, *SCALE_RANGE, why="the edges must stay finite in float64")
    return alpha, scale


def mp_edges(alpha: float, scale: float = 1.0) -> MPEdges:
    r"""The edges :math:`\lambda_\mp = \mathrm{scale} \, (1 \mp \sqrt{\alpha})^2` of the Marchenko–Pastur bulk (Pezeshki
    (thesis), Eq 2.3.30).

    Parameters
    ----------
    alpha : float
        Ratio :math:`\alpha = n_\mathrm{samples} / n_\mathrm{features}`, in [1e-8, 1e8].
    scale : float
        Variance scale of the entries (eigenvalues are multiplied by it), in [1e-100, 1e100].

    Returns
    -------
    MPEdges
        ``(lower, upper)``; lower = 0 at :math:`\alpha = 1`.

    Examples
    --------
    >>> mp_edges(0.25)
    MPEdges(lower=0.25, upper=2.25)
    """
    alpha, scale = _alpha_scale(alpha, scale)
    root = np.sqrt(alpha)
    return MPEdges(float(scale * (1.0 - root) ** 2), float(scale * (1.0 + root) ** 2))


def mp_atom(alpha: float) -> float:
    r"""Mass of the Marchenko–Pastur atom at :math:`\lambda = 0`: :math:`1 - \alpha` for :math:`\alpha < 1`, else 0.

    Parameters
    ----------
    alpha : float
        :math:`\alpha = n_\mathrm{samples} / n_\mathrm{features}`, in [1e-8, 1e8].

    Returns
    -------
    float

    Examples
    --------
    >>> mp_atom(0.25), mp_atom(2.0)
    (0.75, 0.0)
    """
    return max(0.0, 1.0 - _alpha_scale(alpha, 1.0)[0])


def mp_density(lam: ArrayLike, alpha: float, scale: float = 1.0) -> Union[float, np.ndarray]:
    r"""Bulk density :math:`\rho(\lambda)` of the Marchenko–Pastur law (Pezeshki (thesis), Eq 2.3.30), the atom at 0
    excluded.

    Parameters
    ----------
    lam : float or array_like
        Eigenvalues, finite.
    alpha, scale : float
        As in :func:`dynamics.numerics.mp_edges`.

    Returns
    -------
    float or ndarray
        :math:`\rho(\lambda)`, of the shape of ``lam``; 0 outside :math:`[\lambda_-, \lambda_+]` and at
        :math:`\lambda = 0`.

    Examples
    --------
    >>> round(mp_density(1.0, 1.0), 12)  # sqrt(3)/(2π)
    0.275664447711
    """
    lo, hi = mp_edges(alpha, scale)
    lam = as_finite_array("lam", lam)
    inside = (lam > lo) & (lam < hi) & (lam > 0)
    safe = np.where(inside, lam, 1.0)
    out = np.where(inside, np.sqrt(np.clip((hi - safe) * (safe - lo), 0.0, None)) / (2 * np.pi * scale * safe), 0.0)
    return float(out) if out.ndim == 0 else out


def _theta_panels():
    inner = np.pi / 2 * _GRADING[::-1]
    return np.concatenate(([0.0], inner, [np.pi / 2], np.pi - inner[::-1], [np.pi]))


def mp_quadrature(alpha: float, scale: float = 1.0, order: int = 16) -> Quadrature:
    r"""Nodes :math:`\lambda_k` and weights :math:`w_k` with
    :math:`\sum w_k f(\lambda_k) \approx \int \rho_\mathrm{bulk}(\lambda) f(\lambda) \, d\lambda` (the weights
    include :math:`\rho`).

    Exact mass and mean to rounding; about 1e-13 relative on smooth :math:`f`, and robust when :math:`f` is
    concentrated within 1e-8 of an edge (graded panels in the :math:`\theta` variable of the module docstring).

    Parameters
    ----------
    alpha, scale : float
        As in :func:`dynamics.numerics.mp_edges`.
    order : int
        Gauss–Legendre points per panel, in [2, 200].

    Returns
    -------
    Quadrature
        ``(nodes, weights)``, 1-D arrays of equal length.

    Examples
    --------
    >>> nodes, weights = mp_quadrature(0.5)
    >>> round(float(weights.sum()), 12), round(float(weights @ nodes), 12)
    (0.5, 0.5)
    """
    order = require_integer("order", order, 2, 200)
    lo, hi = mp_edges(alpha, scale)
    x, w = np.polynomial.legendre.leggauss(order)
    edges = _theta_panels()
    a, b = edges[:-1, None], edges[1:, None]
    theta = ((b - a) * x / 2 + (a + b) / 2).ravel()
    dtheta = ((b - a) * w / 2).ravel()
    half = (hi - lo) / 2
    lam = lo + 2.0 * half * np.sin(theta / 2) ** 2  # 1 - cos θ without cancellation
    # ρ(λ) dλ = half² sin²θ / (2π scale λ) dθ; at α = 1 sin²θ/λ stays finite (λ ~ θ²).
    weights = dtheta * half ** 2 * np.sin(theta) ** 2 / (2 * np.pi * scale * lam)
    return Quadrature(lam, weights)


def mp_integrate(f: Callable[[np.ndarray], ArrayLike], alpha: float, scale: float = 1.0,
                 order: int = 16) -> Union[float, np.ndarray]:
    r""":math:`\int \rho_\mathrm{bulk}(\lambda) f(\lambda) \, d\lambda` over the Marchenko–Pastur bulk, by
    :func:`dynamics.numerics.mp_quadrature`.

    Parameters
    ----------
    f : callable
        Vectorised over :math:`\lambda`: called with the 1-D array of nodes, it returns values whose last axis runs
        over the nodes (leading axes are kept).
    alpha, scale, order :
        As in :func:`dynamics.numerics.mp_quadrature`.

    Returns
    -------
    float or ndarray
        The integral (the leading axes of ``f``'s values).

    Examples
    --------
    >>> round(mp_integrate(lambda lam: lam ** 2, 2.0), 10)  # second moment α(1 + α)
    6.0
    """
    lam, weights = mp_quadrature(alpha, scale, order)
    values = np.asarray(f(lam))
    error = _kind_error("f's values", values, values)  # complex values are never cut to their real part
    if error is not None:
        raise error
    values = values.astype(np.float64)
    if values.shape[-1:] != lam.shape:
        raise ValueError(f"f must return values with a last axis of length {lam.size} (one per node), "
                         f"got shape {values.shape}")
    result = require_finite_result(values @ weights, "the integral of f",
                                   "f returned values that are not finite on the Marchenko–Pastur support")
    return float(result) if np.ndim(result) == 0 else result


def mp_cdf(lam: ArrayLike, alpha: float, scale: float = 1.0, order: int = 16) -> Union[float, np.ndarray]:
    r""":math:`P(\mathrm{eigenvalue} \le \lambda)` under the Marchenko–Pastur law, atom included.

    The bulk is integrated over :math:`[\lambda_-, \lambda]` in the :math:`\theta` variable with the graded panels
    of :func:`dynamics.numerics.mp_quadrature` rescaled to :math:`[0, \theta(\lambda)]`, so
    :math:`\lambda \ge \lambda_+` gives the full mass.

    Parameters
    ----------
    lam : float or array_like
        Finite.
    alpha, scale, order :
        As in :func:`dynamics.numerics.mp_quadrature`.

    Returns
    -------
    float or ndarray
        Of the shape of ``lam``, in :math:`[0, 1]`.

    Examples
    --------
    >>> mp_cdf(-1.0, 0.5), round(mp_cdf(0.0, 0.5), 12), round(mp_cdf(10.0, 0.5), 12)
    (0.0, 0.5, 1.0)
    """
    lo, hi = mp_edges(alpha, scale)
    lam = as_finite_array("lam", lam)
    flat = lam.ravel()
    half = (hi - lo) / 2
    theta_end = np.arccos(np.clip(1.0 - (np.clip(flat, lo, hi) - lo) / half, -1.0, 1.0))
    x, w = np.polynomial.legendre.leggauss(require_integer("order", order, 2, 200))
    edges = _theta_panels() / np.pi  # panel edges on [0, 1], graded at both ends
    a, b = edges[:-1, None], edges[1:, None]
    unit = ((b - a) * x / 2 + (a + b) / 2).ravel()
    unit_weights = ((b - a) * w / 2).ravel()
    theta = theta_end[:, None] * unit
    inner = lo + 2.0 * half * np.sin(theta / 2) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        integrand = np.where(inner > 0, half ** 2 * np.sin(theta) ** 2 / (2 * np.pi * scale * inner),
                             half / (np.pi * scale))  # the θ -> 0 limit at α = 1
    bulk = (integrand * unit_weights).sum(axis=1) * theta_end
    out = (bulk + np.where(flat >= 0, mp_atom(alpha), 0.0)).reshape(lam.shape)
    return float(out) if out.ndim == 0 else out
