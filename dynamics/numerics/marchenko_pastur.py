"""Marchenko–Pastur law and a quadrature that removes its endpoint singularities.

Convention of spec/linear_networks.md Eq (2.3.30): for α = P/N and eigenvalues scaled by ``scale``,

    ρ(λ) = sqrt((λ+ - λ)(λ - λ-)) / (2π scale λ) on [λ-, λ+],  λ± = scale (1 ± √α)²,
    plus an atom of mass max(0, 1 - α) at λ = 0.

The bulk has mass min(1, α) and mean (first moment) ``scale·α``.
The quadrature substitutes λ = λ- + (λ+ - λ-)(1 - cos θ)/2, θ in [0, π]: the square roots become
sin θ and the integrand is smooth even at α = 1 where ρ ~ λ^{-1/2}. Composite Gauss–Legendre panels,
graded geometrically towards both ends, keep integrands that concentrate at an edge (e^{-λt} at
large t) accurate.
"""
import numpy as np

from .validation import as_finite_array, require_in_range, require_integer

_GRADING = 2.0 ** -np.arange(1, 28)  # panel edges at π·2^-k near each end, down to ~1e-8


ALPHA_RANGE = (1e-8, 1e8)  # beyond it the bulk degenerates to a point (or its edges overflow)
SCALE_RANGE = (1e-100, 1e100)


def mp_edges(alpha, scale=1.0):
    """(λ-, λ+) = scale (1 ∓ √α)² of the bulk; λ- = 0 at α = 1. α in [1e-8, 1e8], scale in [1e-100, 1e100]."""
    alpha = require_in_range("alpha", alpha, *ALPHA_RANGE)
    scale = require_in_range("scale", scale, *SCALE_RANGE)
    root = np.sqrt(alpha)
    return scale * (1.0 - root) ** 2, scale * (1.0 + root) ** 2


def mp_atom(alpha):
    """Mass of the atom at λ = 0: 1 - α for α < 1, else 0."""
    return max(0.0, 1.0 - require_in_range("alpha", alpha, *ALPHA_RANGE))


def mp_density(lam, alpha, scale=1.0):
    """Bulk density ρ(λ) (the atom at 0 excluded); 0 outside [λ-, λ+], and λ = 0 gives 0."""
    lo, hi = mp_edges(alpha, scale)
    lam = as_finite_array("lam", lam)
    inside = (lam > lo) & (lam < hi) & (lam > 0)
    safe = np.where(inside, lam, 1.0)
    out = np.where(inside, np.sqrt(np.clip((hi - safe) * (safe - lo), 0.0, None)) / (2 * np.pi * scale * safe), 0.0)
    return float(out) if out.ndim == 0 else out


def _theta_panels():
    inner = np.pi / 2 * _GRADING[::-1]
    return np.concatenate(([0.0], inner, [np.pi / 2], np.pi - inner[::-1], [np.pi]))


def mp_quadrature(alpha, scale=1.0, order=16):
    """Nodes λ_k and weights w_k with Σ w_k f(λ_k) ≈ ∫ ρ_bulk(λ) f(λ) dλ (weights include ρ).

    Exact mass and mean to rounding; about 1e-13 relative on smooth f, and robust when f is
    concentrated within 1e-8 of an edge.
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
    return lam, weights


def mp_integrate(f, alpha, scale=1.0, order=16):
    """∫ ρ_bulk(λ) f(λ) dλ, with ``f`` vectorised over λ (a last axis of nodes is summed out)."""
    lam, weights = mp_quadrature(alpha, scale, order)
    values = np.asarray(f(lam), dtype=np.float64)
    if values.shape[-1:] != lam.shape:
        raise ValueError(f"f must return values with a last axis of length {lam.size} (one per node), "
                         f"got shape {values.shape}")
    result = values @ weights
    if not np.all(np.isfinite(result)):
        raise ValueError("f returned non-finite values on the Marchenko–Pastur support")
    return float(result) if np.ndim(result) == 0 else result


def mp_cdf(lam, alpha, scale=1.0, order=16):
    """P(eigenvalue <= λ), atom included: the bulk integrated over [λ-, λ] in the θ variable with the
    graded panels of :func:`mp_quadrature` rescaled to [0, θ(λ)] (so λ >= λ+ gives the full mass)."""
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
