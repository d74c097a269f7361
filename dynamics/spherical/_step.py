"""Theorem 2: the exact image on the sphere of one step of the generic scheme (thesis Eqs 3.12-3.13,
3.21-3.35; spec §1.4-1.5, §2.1).

For x_{k+1} = decay·(x_k − η_k a_k ⊘ b_k), with r = ‖x_k‖, u = x_k/r, s = d^{−1/2}‖b_k‖ (the scheduling part of
b_k) and b_k/s its deformation:

    A = η/(r²s) (3.26),  c = r·a ⊘ (b/s) (3.22),  η^e = A/(1 − A⟨c,u⟩) (3.23),
    u_{k+1} = (u − η^e c⊥)/sqrt(1 + z²),  r_{k+1} = decay·r(1 − A⟨c,u⟩)sqrt(1 + z²),  z = η^e‖c⊥‖ (3.24-3.25),

exact under (H1) 1 − A⟨c,u⟩ > 0 (the source drops the minus sign; spec §8). The angle between u_k and u_{k+1}
is arctan z, so u_{k+1} = Exp_u(−arctan(z)·c⊥/‖c⊥‖) exactly (spec §2.1).
"""
import math
import numpy as np

from dynamics.numerics import as_float, require_positive
from ._checks import require_vector_like, require_weight_vector
from ._results import SphericalStep

__all__ = ["spherical_step"]


def _decompose(x, a, b, learning_rate, decay):
    """The Theorem 2 quantities without argument checks; b a positive float or a positive vector."""
    r = math.sqrt(float(x @ x))
    u = x / r
    if isinstance(b, float):
        scale = b
        c = r * a
    else:
        scale = math.sqrt(float(b @ b) / b.size)
        c = (r * scale) * a / b
    A = learning_rate / (r * r * scale)
    radial = float(c @ u)
    h = 1.0 - A * radial
    if not h > 0.0:
        return A, c, u, radial, h, math.nan, None, math.nan
    effective = A / h
    c_perp = c - radial * u
    z = effective * math.sqrt(float(c_perp @ c_perp))
    root = math.hypot(1.0, z)
    u_next = (u - effective * c_perp) / root
    return A, c, u, radial, h, effective, u_next, decay * r * h * root


def spherical_step(x, a, b, learning_rate, decay=1.0) -> SphericalStep:
    """The exact Theorem 2 decomposition of one step x_{k+1} = decay·(x_k − η_k a_k ⊘ b_k) (Eqs 3.12, 3.21-3.25).

    Parameters
    ----------
    x : array_like, shape (d,)
        x_k, a nonzero vector.
    a : array_like, shape (d,)
        a_k, the momentum of the generic scheme (3.13).
    b : float or array_like, shape (d,)
        b_k, the division vector: a strictly positive vector, or a positive float s₀ meaning b_k = s₀·1.
    learning_rate : float
        η_k > 0 (for decoupled weight decay pass η/(1−ηλ) and ``decay = 1 − ηλ``; spec §2.2).
    decay : float
        A factor > 0 multiplying the new weights (default 1).

    Returns
    -------
    SphericalStep
        ``(A, c, effective_learning_rate, u_next, r_next)``; ``r_next·u_next`` reproduces the step.

    Raises
    ------
    ValueError
        If (H1) 1 − A⟨c,u⟩ > 0 fails (the step crosses the hyperplane orthogonal to x_k and the decomposition
        does not apply), or for bad input.

    Examples
    --------
    >>> x, grad = np.array([3.0, 0.0]), np.array([0.0, 0.5])    # SGD: a = ∇L(x), b = 1
    >>> step = spherical_step(x, grad, 1.0, 0.2)
    >>> round(step.effective_learning_rate, 6), step.c.tolist(), round(step.r_next, 6)
    (0.022222, [0.0, 1.5], 3.001666)
    >>> bool(np.allclose(step.r_next * step.u_next, x - 0.2 * grad))
    True
    """
    x = require_weight_vector("x", x)
    a = require_vector_like("a", a, "x", x)
    if np.ndim(b) == 0:
        b = require_positive("b", as_float("b", b))
    else:
        b = require_vector_like("b", b, "x", x)
        if not np.all(b > 0):
            raise ValueError(f"b must be strictly positive, got {float(b.min()):g} at entry {int(np.argmin(b))}")
    learning_rate = require_positive("learning_rate", learning_rate)
    decay = require_positive("decay", decay)
    A, c, _, radial, h, effective, u_next, r_next = _decompose(x, a, b, learning_rate, decay)
    if u_next is None:
        raise ValueError(f"hypothesis (H1) 1 - A<c,u> > 0 fails: A<c,u> = {A * radial:.6g} (the step overshoots "
                         f"the origin along u; reduce learning_rate)")
    if not (math.isfinite(effective) and math.isfinite(r_next) and r_next > 0):
        raise ValueError("the step leaves float64 (effective learning rate or radius not finite); rescale the inputs")
    return SphericalStep(A, c, effective, u_next, r_next)
