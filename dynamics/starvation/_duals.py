"""Legendre (Fenchel) duals of the scalar losses (Pezeshki et al. 2021, Lemma 2, Eqs 19-28 and Table 4; in
Pezeshki (thesis): Lemma .5.1, Eqs .5.1-.5.10 and supp. Table 2). With the margin ω = yŷ:

* cross-entropy: log(1 + e^{-ω}) = max_{0<α<1} [H(α) - αω], maximiser σ(-ω) (Eq 6 / 6.3.6);
* hinge:         max(0, 1 - ω)   = max_{0≤α≤1} [α - αω];
* squared error: (1 - ω)²        = max_α [-α²/4 + α - αω], maximiser 2(1 - ω).

The maximiser is α* = -dL/dω, so the tangent of L at ω_0 has slope -α* and meets ω = 0 at the dual objective's
value there (H(α*) for cross-entropy): :func:`~dynamics.starvation.loss_tangent`, the picture of Fig 8.
"""
from typing import Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (as_finite_array, require_array_in_range, require_choice, require_finite_result,
                               scalar_or_array, sigmoid)
from ._results import LossTangent
from ._docs import fill_doc

LOSSES = ("cross_entropy", "hinge", "squared")
_ALPHA_DOMAIN = {"cross_entropy": (0.0, 1.0), "hinge": (0.0, 1.0), "squared": (-np.inf, np.inf)}


def binary_entropy(alpha: ArrayLike) -> Union[float, np.ndarray]:
    r"""The binary entropy :math:`H(\alpha) = -\alpha \log \alpha - (1-\alpha) \log(1-\alpha)` of the cross-entropy dual
    (Eq 6 / 6.3.6).

    Parameters
    ----------
    alpha : float or array_like
        Dual variables in :math:`[0, 1]` (:math:`0 \log 0 = 0`).

    Returns
    -------
    float or ndarray
        :math:`H(\alpha)` in nats, with the shape of ``alpha``.

    Examples
    --------
    >>> round(binary_entropy(0.5), 12), binary_entropy(0.0)
    (0.69314718056, 0.0)
    """
    a = require_array_in_range("alpha", alpha, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.where(a > 0, a * np.log(np.where(a > 0, a, 1.0)), 0.0) \
            - np.where(a < 1, (1.0 - a) * np.log1p(-np.where(a < 1, a, 0.0)), 0.0)
    return scalar_or_array(h, alpha)


@fill_doc
def primal_loss(loss: str, omega: ArrayLike) -> Union[float, np.ndarray]:
    r"""The scalar loss of the margin :math:`\omega = y\hat y` (Table 4): :math:`\log(1+e^{-\omega})`,
    :math:`\max(0, 1-\omega)` or :math:`(1-\omega)^2`.

    Parameters
    ----------
    %(loss)s
    omega : float or array_like
        Margins :math:`y \cdot \hat y`, finite.

    Returns
    -------
    float or ndarray
        The loss, with the shape of ``omega``.

    Examples
    --------
    >>> round(primal_loss("cross_entropy", 0.0), 12), primal_loss("hinge", 0.25), primal_loss("squared", 3.0)
    (0.69314718056, 0.75, 4.0)
    """
    require_choice("loss", loss, LOSSES)
    w = as_finite_array("omega", omega)
    if loss == "cross_entropy":
        out = np.logaddexp(0.0, -w)
    elif loss == "hinge":
        out = np.maximum(0.0, 1.0 - w)
    else:
        with np.errstate(over="ignore"):
            out = (1.0 - w) ** 2
    require_finite_result(out, "primal_loss", "omega: (1 - ω)² overflows for |ω| > 1.3e154")
    return scalar_or_array(out, omega)


@fill_doc
def dual_objective(loss: str, alpha: ArrayLike, omega: ArrayLike) -> Union[float, np.ndarray]:
    r"""The function of :math:`\alpha` maximised in Table 4 (Eqs 19-28): :math:`H(\alpha) - \alpha\omega`,
    :math:`\alpha - \alpha\omega`, or :math:`-\alpha^2/4 + \alpha - \alpha\omega`.

    Parameters
    ----------
    %(loss)s
    alpha : float or array_like
        Dual variables: in :math:`[0, 1]` for cross-entropy and hinge, any real for squared error.
    omega : float or array_like
        Margins :math:`\omega = y\hat y`, broadcast against ``alpha``.

    Returns
    -------
    float or ndarray
        The dual objective; its maximum over :math:`\alpha` is :func:`~dynamics.starvation.primal_loss` (Lemma 2).

    Examples
    --------
    >>> alpha = dual_maximiser("cross_entropy", 1.0)
    >>> bool(abs(dual_objective("cross_entropy", alpha, 1.0) - primal_loss("cross_entropy", 1.0)) < 1e-15)
    True
    """
    require_choice("loss", loss, LOSSES)
    low, high = _ALPHA_DOMAIN[loss]
    a = require_array_in_range("alpha", alpha, low, high)
    w = as_finite_array("omega", omega)
    if loss == "cross_entropy":
        out = binary_entropy(a) - a * w
    elif loss == "hinge":
        out = a - a * w
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            out = -0.25 * a * a + a - a * w
    require_finite_result(out, "dual_objective", "alpha and omega: α² or αω overflows")
    return scalar_or_array(out, out)


@fill_doc
def dual_maximiser(loss: str, omega: ArrayLike) -> Union[float, np.ndarray]:
    r"""The critical :math:`\alpha` of Table 4 (Lemma 2, Eq 6): :math:`\sigma(-\omega) = -\partial L/\partial\omega`
    (CE), :math:`\mathbf{1}[\omega < 1]` (hinge), :math:`2(1 - \omega)` (squared).

    Parameters
    ----------
    %(loss)s
    omega : float or array_like
        Margins :math:`\omega = y\hat y`, finite.

    Returns
    -------
    float or ndarray
        The maximiser of :func:`~dynamics.starvation.dual_objective` over :math:`\alpha`, with the shape of ``omega``.

    Examples
    --------
    >>> dual_maximiser("cross_entropy", 0.0), dual_maximiser("hinge", 2.0), dual_maximiser("squared", 0.5)
    (0.5, 0.0, 1.0)
    """
    require_choice("loss", loss, LOSSES)
    w = as_finite_array("omega", omega)
    if loss == "cross_entropy":
        out = sigmoid(-w)  # σ(−ω) from e^{−|ω|}: a few eps relative in the tail, where ½(1 − tanh(ω/2)) lost ε e^ω
    elif loss == "hinge":
        out = (w < 1.0).astype(np.float64)
    else:
        out = 2.0 * (1.0 - w)
    return scalar_or_array(out, omega)


@fill_doc
def loss_tangent(loss: str, omega: ArrayLike) -> LossTangent:
    r"""The tangent of the loss at the margin :math:`\omega` (Lemma 2, Eqs 19-28; Fig 8): slope
    :math:`dL/d\omega = -\alpha^*` and intercept at 0.

    The Legendre pair of Table 4 in one picture: the tangent of :math:`L` at :math:`\omega_0` is

    .. math::

        L(\omega_0) + (\omega - \omega_0) \cdot \frac{dL}{d\omega}(\omega_0),

    its slope is :math:`-\alpha^*` with :math:`\alpha^*` = :func:`~dynamics.starvation.dual_maximiser` (Lemma 2), and
    its value at :math:`\omega = 0`, :math:`L(\omega_0) + \alpha^*\omega_0`, is the dual objective at :math:`\alpha^*`
    and :math:`\omega = 0` (the binary entropy :math:`H(\alpha^*)` for cross-entropy).

    Parameters
    ----------
    %(loss)s
    omega : float or array_like
        Margins :math:`\omega_0 = y\hat y` where the tangents touch, finite.

    Returns
    -------
    LossTangent
        ``alpha`` = :math:`\alpha^*`, ``slope`` = :math:`-\alpha^*` and ``intercept`` =
        :math:`L(\omega_0) + \alpha^*\omega_0`, each with the shape of ``omega``.

    Examples
    --------
    >>> tangent = loss_tangent("cross_entropy", 0.5)
    >>> bool(abs(tangent.intercept - binary_entropy(tangent.alpha)) < 1e-15), tangent.slope == -tangent.alpha
    (True, True)
    """
    alpha = dual_maximiser(loss, omega)
    w = as_finite_array("omega", omega)
    with np.errstate(over="ignore", invalid="ignore"):
        intercept = primal_loss(loss, w) + alpha * w
    require_finite_result(intercept, "loss_tangent", "omega: α*ω overflows for |ω| > 1.3e154")
    return LossTangent(alpha, scalar_or_array(-np.asarray(alpha), omega), scalar_or_array(intercept, omega))
