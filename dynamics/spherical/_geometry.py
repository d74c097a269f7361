"""Geometry of the unit sphere S_{d-1} (Roburin (thesis), Eqs 3.34-3.36, 3.70, 3.73, 3.76; the stable angle and the
exact parallel transport are standard formulas, written down in the theory note docs/theory/spherical.md).

* the angle between two directions in the stable atan2 form: arccos loses ~1e-16/θ relative accuracy;
* the tangential part q⊥ = q − ⟨q,u⟩u and the exponential map Exp_u(w) = cos‖w‖ u + sin‖w‖ w/‖w‖;
* exact parallel transport along the geodesic p -> q, Γ_p^q(v) = v − ⟨q,v⟩/(1+⟨p,q⟩)·(p+q) (an isometry);
* the thesis's transport T (3.70), rescaling R (3.73) and their composition RT (3.76), which act on a
  momentum buffer after a step x_prev -> x_new.
"""
import math

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import require_positive
from ._checks import UNIT_TOLERANCE, require_unit_vector, require_vector_like, require_weight_vector

__all__ = ["angle_between", "exp_map", "parallel_transport", "rescale_R", "tangential", "transport_RT",
           "transport_T"]


def _angle(x, y):
    """Angle between the directions of x and y (both nonzero), atan2 form."""
    u = x / np.linalg.norm(x)
    v = y / np.linalg.norm(y)
    cosine = float(u @ v)
    return math.atan2(float(np.linalg.norm(v - cosine * u)), cosine)


def angle_between(u: ArrayLike, v: ArrayLike) -> float:
    r"""The angle between the directions of two nonzero vectors.

    .. math::

        \theta = \operatorname{atan2}(\lVert \hat v - \langle \hat v, \hat u \rangle \hat u \rVert,
        \langle \hat v, \hat u \rangle).

    :math:`\arccos(\langle \hat u, \hat v \rangle)` would lose about :math:`10^{-16} / \theta` of relative accuracy;
    the atan2 form keeps it down to tiny angles.

    Accurate for tiny angles, where :math:`\arccos \langle \hat u, \hat v \rangle` loses
    :math:`\sim 10^{-16} / \theta` relative accuracy; the geodesic distance :math:`d_S(\hat u, \hat v)` of Eq 3.35.

    Parameters
    ----------
    u, v : array_like, shape (d,)
        Nonzero vectors (they are normalised first).

    Returns
    -------
    float
        The angle in radians, in :math:`[0, \pi]`.

    Examples
    --------
    >>> round(angle_between([1.0, 0.0], [1.0, 1.0]), 12)
    0.785398163397
    >>> angle_between([1.0, 0.0], [1.0, 1e-12]) > 0
    True
    """
    u = require_weight_vector("u", u)
    return _angle(u, require_vector_like("v", require_weight_vector("v", v), "u", u))


def tangential(q: ArrayLike, u: ArrayLike) -> np.ndarray:
    r"""The tangential part :math:`q_\perp = q - \langle q, \hat u \rangle \hat u` of :math:`q` at the direction
    :math:`\hat u = u / \lVert u \rVert`.

    Parameters
    ----------
    q : array_like, shape (d,)
        Any vector.
    u : array_like, shape (d,)
        A nonzero vector; only its direction is used.

    Returns
    -------
    ndarray, shape (d,)
        The component of :math:`q` orthogonal to :math:`u`.

    Examples
    --------
    >>> tangential([1.0, 2.0], [0.0, 3.0])
    array([1., 0.])
    """
    u = require_weight_vector("u", u)
    q = require_vector_like("q", q, "u", u)
    u = u / np.linalg.norm(u)
    return q - (q @ u) * u


def exp_map(u: ArrayLike, w: ArrayLike) -> np.ndarray:
    r"""The exponential map of the sphere,
    :math:`\mathrm{Exp}_u(w) = \cos\lVert w \rVert \, u + \sin\lVert w \rVert \, w / \lVert w \rVert` (Roburin
    (thesis), Eq 3.36).

    Parameters
    ----------
    u : array_like, shape (d,)
        A unit vector (norm 1 within 1e-10).
    w : array_like, shape (d,)
        A tangent vector at :math:`u`:
        :math:`\lvert \langle w, u \rangle \rvert \le 10^{-10} \cdot \max(\lVert w \rVert, 1)`.

    Returns
    -------
    ndarray, shape (d,)
        The point reached along the great circle through :math:`u` with initial velocity :math:`w` after unit time.

    Examples
    --------
    >>> np.round(exp_map([1.0, 0.0], [0.0, np.pi / 2]), 12) + 0.0
    array([0., 1.])
    """
    u = require_unit_vector("u", u)
    w = require_vector_like("w", w, "u", u)
    norm = float(np.linalg.norm(w))
    if abs(float(w @ u)) > UNIT_TOLERANCE * max(norm, 1.0):
        raise ValueError(f"w must be tangent at u (|<w,u>| <= {UNIT_TOLERANCE:g}·max(||w||, 1)), got <w,u> = "
                         f"{float(w @ u):.3g}")
    if norm == 0.0:
        return u.copy()
    return math.cos(norm) * u + (math.sin(norm) / norm) * w


def parallel_transport(p: ArrayLike, q: ArrayLike, v: ArrayLike) -> np.ndarray:
    r"""Exact parallel transport
    :math:`\Gamma_p^q(v) = v - \frac{\langle q, v \rangle}{1 + \langle p, q \rangle} (p + q)` along the geodesic
    :math:`p \to q` (a standard formula of sphere geometry).

    Parameters
    ----------
    p, q : array_like, shape (d,)
        Unit vectors (norm 1 within 1e-10), not antipodal (:math:`1 + \langle p, q \rangle > 10^{-12}`).
    v : array_like, shape (d,)
        A tangent vector at :math:`p`
        (:math:`\lvert \langle v, p \rangle \rvert \le 10^{-10} \cdot \max(\lVert v \rVert, 1)`).

    Returns
    -------
    ndarray, shape (d,)
        A tangent vector at :math:`q` with the norm of :math:`v` (parallel transport is an isometry).

    Examples
    --------
    >>> np.round(parallel_transport([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]), 12) + 0.0
    array([-1.,  0.,  0.])
    """
    p = require_unit_vector("p", p)
    q = require_vector_like("q", require_unit_vector("q", q), "p", p)
    v = require_vector_like("v", v, "p", p)
    if abs(float(v @ p)) > UNIT_TOLERANCE * max(float(np.linalg.norm(v)), 1.0):
        raise ValueError(f"v must be tangent at p (|<v,p>| <= {UNIT_TOLERANCE:g}·max(||v||, 1)), got <v,p> = "
                         f"{float(v @ p):.3g}")
    # 1 + <p,q> = ||p + q||²/2 for unit p, q, without the cancellation of 1 + <p,q> near q = −p (relative error
    # eps/||p + q|| instead of eps/||p + q||²); the transport stays an isometry in terms of the computed p + q.
    both = p + q
    denominator = 0.5 * float(both @ both)
    if denominator <= 1e-12:
        raise ValueError(f"p and q must not be antipodal (1 + <p,q> > 1e-12), got 1 + <p,q> = {denominator:.3g}")
    return v - (float(q @ v) / denominator) * both


def _transport_T(a, x_prev, x_new):
    u_prev = x_prev / np.linalg.norm(x_prev)
    u_new = x_new / np.linalg.norm(x_new)
    return float(u_prev @ u_new) * a - float(a @ u_new) * u_prev


def _transport_RT(a, x_prev, x_new, eps=0.0):
    return (float(x_new @ x_prev) * a - float(x_new @ a) * x_prev) / (float(x_new @ x_new) + eps)


def _three(a, x_prev, x_new):
    x_prev = require_weight_vector("x_prev", x_prev)
    x_new = require_vector_like("x_new", require_weight_vector("x_new", x_new), "x_prev", x_prev)
    return require_vector_like("a", a, "x_prev", x_prev), x_prev, x_new


def transport_T(a: ArrayLike, x_prev: ArrayLike, x_new: ArrayLike) -> np.ndarray:
    r"""The transport
    :math:`T(a) = \langle u_\mathrm{prev}, u_\mathrm{new} \rangle a - \langle a, u_\mathrm{new} \rangle u_\mathrm{prev}`
    of Eq 3.70 (Adam w/o (b)).

    It kills the radial direction :math:`u_\mathrm{prev}` and maps into the tangent space at :math:`u_\mathrm{new}`;
    on tangent vectors in :math:`\operatorname{span}(u_\mathrm{prev}, u_\mathrm{new})` it is exact parallel
    transport, and it shrinks the component orthogonal to that plane by :math:`\cos\theta` (derived in this
    project), so it is not an isometry in general.

    Parameters
    ----------
    a : array_like, shape (d,)
        The vector to transport (a momentum buffer).
    x_prev, x_new : array_like, shape (d,)
        The weights before and after the step (nonzero; only their directions are used).

    Returns
    -------
    ndarray, shape (d,)
        :math:`T(a)`, with :math:`\langle T(a), u_\mathrm{new} \rangle = 0`.

    Examples
    --------
    >>> transport_T([0.0, 1.0], [1.0, 0.0], [1.0, 1.0]).round(6)
    array([-0.707107,  0.707107])
    """
    a, x_prev, x_new = _three(a, x_prev, x_new)
    return _transport_T(a, x_prev, x_new)


def rescale_R(a: ArrayLike, x_prev: ArrayLike, x_new: ArrayLike) -> np.ndarray:
    r"""The rescaling :math:`R(a) = (r_\mathrm{prev} / r_\mathrm{new}) \cdot a` of Eq 3.73 (Adam w/o (c)).

    Parameters
    ----------
    a : array_like, shape (d,)
        The vector to rescale.
    x_prev, x_new : array_like, shape (d,)
        The weights before and after the step (nonzero).

    Returns
    -------
    ndarray, shape (d,)
        :math:`(\lVert x_\mathrm{prev} \rVert / \lVert x_\mathrm{new} \rVert) \cdot a`.

    Examples
    --------
    >>> rescale_R([1.0, 2.0], [3.0, 0.0], [0.0, 6.0])
    array([0.5, 1. ])
    """
    a, x_prev, x_new = _three(a, x_prev, x_new)
    return (np.linalg.norm(x_prev) / np.linalg.norm(x_new)) * a


def transport_RT(a: ArrayLike, x_prev: ArrayLike, x_new: ArrayLike, eps: float = 0.0) -> np.ndarray:
    r"""The transport and rescaling :math:`RT(a)` of Eq 3.76 (Algorithm 1, line 10):

    .. math::

        RT(a) = \frac{\langle x_\mathrm{new}, x_\mathrm{prev} \rangle a
        - \langle x_\mathrm{new}, a \rangle x_\mathrm{prev}}
        {\langle x_\mathrm{new}, x_\mathrm{new} \rangle + \varepsilon}.

    :math:`R` and :math:`T` commute and :math:`RT = R \circ T` (Eqs 3.76-3.78); :math:`\varepsilon = 0` is the
    thesis's form, :math:`\varepsilon > 0` the reference code's.

    Parameters
    ----------
    a : array_like, shape (d,)
        The vector to transport.
    x_prev, x_new : array_like, shape (d,)
        The weights before and after the step (nonzero).
    eps : float
        Added to the denominator, :math:`\ge 0` (the reference code's :math:`\varepsilon`; 0 in theory mode).

    Returns
    -------
    ndarray, shape (d,)
        :math:`RT(a)`.

    Examples
    --------
    >>> transport_RT([0.0, 1.0], [1.0, 0.0], [1.0, 1.0])
    array([-0.5,  0.5])
    """
    a, x_prev, x_new = _three(a, x_prev, x_new)
    return _transport_RT(a, x_prev, x_new, require_positive("eps", eps, allow_zero=True))
