"""Theorem 2 of Roburin et al. 2022: the exact image on the sphere of one step of the generic scheme (Roburin
(thesis), Eqs 3.12-3.13 and 3.21-3.35), for one radially invariant group or for many at once.

For x_{k+1} = decay·(x_k − η_k a_k ⊘ b_k), with r = ‖x_k‖, u = x_k/r, s = d^{−1/2}‖b_k‖ (the scheduling part of
b_k) and b_k/s its deformation:

    A = η/(r²s) (3.26),  c = r·a ⊘ (b/s) (3.22),  η^e = A/(1 − A⟨c,u⟩) (3.23),
    u_{k+1} = (u − η^e c⊥)/sqrt(1 + z²),  r_{k+1} = decay·r(1 − A⟨c,u⟩)sqrt(1 + z²),  z = η^e‖c⊥‖ (3.24-3.25),

exact under (H1) 1 − A⟨c,u⟩ > 0 (the thesis prints the hypothesis without its minus sign; see the theory note,
docs/theory/spherical.md). The angle between u_k and u_{k+1} is arctan z, so u_{k+1} = Exp_u(−arctan(z)·c⊥/‖c⊥‖)
exactly (derived in this project). Both functions run the same compiled loop, one group per row, so a batch gives
bit for bit what a loop over its rows gives.
"""
from typing import Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import as_finite_array, as_float, require_positive
from ._checks import require_vector_like, require_weight_vector
from ._kernels import spherical_step_kernel
from ._results import SphericalStep, SphericalStepBatch

__all__ = ["spherical_step", "spherical_step_batch"]

_H1 = "hypothesis (H1) 1 - A<c,u> > 0 fails"


def _decompose_rows(x, a, b, learning_rate, decay):
    """The Theorem 2 quantities of every row, without argument checks: x and a (n, d), b (n, 1) or (n, d), the
    learning rates and decays (n,), all float64. Returns (status, row, A, c, effective, u_next, r_next), status as
    in ``spherical_step_kernel``."""
    n, d = x.shape
    A, effective, r_next = np.empty(n), np.full(n, np.nan), np.full(n, np.nan)
    c, u_next = np.empty((n, d)), np.full((n, d), np.nan)
    with np.errstate(all="ignore"):
        status, row = spherical_step_kernel(np.ascontiguousarray(x), np.ascontiguousarray(a), np.ascontiguousarray(b),
                                            learning_rate, decay, A, c, effective, u_next, r_next)
    return status, row, A, c, effective, u_next, r_next


def _raise_for(status, row, A, c, x, where=""):
    if status == 1:
        u = x[row] / np.linalg.norm(x[row])
        raise ValueError(f"{_H1}{where}: A<c,u> = {A[row] * float(c[row] @ u):.6g} (the step overshoots the origin "
                         f"along u; reduce learning_rate)")
    if status == 2:
        raise ValueError(f"the step leaves float64{where} (effective learning rate or radius not finite); rescale the "
                         f"inputs")


def spherical_step(x: ArrayLike, a: ArrayLike, b: Union[float, ArrayLike], learning_rate: float,
                   decay: float = 1.0) -> SphericalStep:
    r"""The exact Theorem 2 decomposition of one step
    :math:`x_{k+1} = \mathrm{decay} \cdot (x_k - \eta_k a_k \oslash b_k)` (Roburin (thesis), Eqs 3.12, 3.21-3.25).

    Parameters
    ----------
    x : array_like, shape (d,)
        :math:`x_k`, a nonzero vector.
    a : array_like, shape (d,)
        :math:`a_k`, the momentum of the generic scheme (Eq 3.13).
    b : float or array_like, shape (d,)
        :math:`b_k`, the division vector: a strictly positive vector, or a positive float :math:`s_0` meaning
        :math:`b_k = s_0 \cdot \mathbf{1}`.
    learning_rate : float
        :math:`\eta_k > 0` (for decoupled weight decay pass :math:`\eta / (1 - \eta\lambda)` and
        ``decay =`` :math:`1 - \eta\lambda`).
    decay : float
        A factor > 0 multiplying the new weights (default 1).

    Returns
    -------
    SphericalStep
        ``(A, c, effective_learning_rate, u_next, r_next)``; ``r_next·u_next`` reproduces the step.

    Raises
    ------
    ValueError
        If (H1) :math:`1 - A \langle c, u \rangle > 0` fails (the step crosses the hyperplane orthogonal to
        :math:`x_k` and the decomposition does not apply), or for bad input.

    See Also
    --------
    spherical_step_batch : the same for many groups at once (one per row).

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
        b = np.array([[require_positive("b", as_float("b", b))]])
    else:
        b = require_vector_like("b", b, "x", x)
        if not np.all(b > 0):
            raise ValueError(f"b must be strictly positive, got {float(b.min()):g} at entry {int(np.argmin(b))}")
        b = b[None, :]
    learning_rate = require_positive("learning_rate", learning_rate)
    decay = require_positive("decay", decay)
    x2 = x[None, :]
    status, row, A, c, effective, u_next, r_next = _decompose_rows(x2, a[None, :], b, np.array([learning_rate]),
                                                                   np.array([decay]))
    _raise_for(status, row, A, c, x2)
    return SphericalStep(float(A[0]), c[0], float(effective[0]), u_next[0], float(r_next[0]))


def _per_row(name, value, n):
    """A positive float, or n of them (shape (n,)), as an array of shape (n,)."""
    if np.ndim(value) == 0:
        return np.full(n, require_positive(name, as_float(name, value)))
    values = as_finite_array(name, value, ndim=1)
    if values.shape != (n,):
        raise ValueError(f"{name} must be a float or have shape ({n},) (one value per row of x), got {values.shape}")
    if not np.all(values > 0):
        i = int(np.argmin(values))
        raise ValueError(f"{name} must be > 0, got {values[i]:g} at row {i}")
    return values


def spherical_step_batch(x: ArrayLike, a: ArrayLike, b: Union[float, ArrayLike], learning_rate: Union[float, ArrayLike],
                         decay: Union[float, ArrayLike] = 1.0) -> SphericalStepBatch:
    r"""Theorem 2 for many radially invariant groups at once: row i of ``x`` is one group (one filter), and the result
    equals :func:`dynamics.spherical.spherical_step` applied row by row (bit for bit: both run the same compiled loop).

    Parameters
    ----------
    x : array_like, shape (n, d)
        :math:`x_k` of each group, every row a nonzero vector.
    a : array_like, shape (n, d)
        :math:`a_k` of each group (Eq 3.13).
    b : float or array_like, shape (n,) or (n, d)
        :math:`b_k`: one positive float for all groups (:math:`b_k = b \cdot \mathbf{1}`), one per group (shape
        (n,)), or a strictly positive vector per group (shape (n, d)).
    learning_rate : float or array_like, shape (n,)
        :math:`\eta_k > 0`, shared or per group.
    decay : float or array_like, shape (n,)
        The factor > 0 multiplying the new weights, shared or per group (default 1).

    Returns
    -------
    SphericalStepBatch
        ``(A, c, effective_learning_rate, u_next, r_next)`` with a leading axis of length n.

    Raises
    ------
    ValueError
        For bad input, or if (H1) fails for some row (the message names the first such row).

    See Also
    --------
    spherical_step : one group.

    Examples
    --------
    >>> x = np.array([[3.0, 0.0], [0.0, 2.0]])
    >>> grads = np.array([[0.0, 0.5], [1.0, 0.0]])                 # SGD on two filters: a = ∇L(x), b = 1
    >>> steps = spherical_step_batch(x, grads, 1.0, 0.2)
    >>> steps.effective_learning_rate.round(6).tolist()            # η/r² per filter
    [0.022222, 0.05]
    >>> bool(np.allclose(steps.r_next[:, None] * steps.u_next, x - 0.2 * grads))
    True
    """
    x = as_finite_array("x", x, ndim=2)
    n, d = x.shape
    if n == 0 or d == 0:
        raise ValueError(f"x must hold at least one row of at least one entry, got shape {x.shape}")
    with np.errstate(over="ignore"):
        norms = np.linalg.norm(x, axis=1)
    if not np.all(norms > 0):
        raise ValueError(f"x: row {int(np.argmin(norms))} is the zero vector (a radially invariant weight has no "
                         f"direction at 0)")
    if not np.all(np.isfinite(norms)):
        raise ValueError(f"x: row {int(np.flatnonzero(~np.isfinite(norms))[0])} has no finite norm in float64")
    a = as_finite_array("a", a, ndim=2)
    if a.shape != x.shape:
        raise ValueError(f"a must have the shape of x, {x.shape}, got {a.shape}")
    if np.ndim(b) <= 1:
        b = _per_row("b", b, n)[:, None]
    else:
        b = as_finite_array("b", b, ndim=2)
        if b.shape != x.shape:
            raise ValueError(f"b must be a float, have shape ({n},) or the shape of x, {x.shape}, got {b.shape}")
        if not np.all(b > 0):
            i, j = np.unravel_index(int(np.argmin(b)), b.shape)
            raise ValueError(f"b must be strictly positive, got {float(b[i, j]):g} at row {i}, entry {j}")
    learning_rate = _per_row("learning_rate", learning_rate, n)
    decay = _per_row("decay", decay, n)
    status, row, A, c, effective, u_next, r_next = _decompose_rows(x, a, b, learning_rate, decay)
    _raise_for(status, row, A, c, x, f" at row {row}")
    return SphericalStepBatch(A, c, effective, u_next, r_next)
