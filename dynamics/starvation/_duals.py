"""Legendre (Fenchel) duals of the scalar losses (spec §2.1; Lemma 2 / Lemma .5.1, Eqs 19-28 / .5.1-.5.10,
Table 4 / supp. Table 2). With ω = yŷ:

* cross-entropy: log(1 + e^{-ω}) = max_{0<α<1} [H(α) - αω], maximiser σ(-ω) (Eq 6 / 6.3.6);
* hinge:         max(0, 1 - ω)   = max_{0≤α≤1} [α - αω];
* squared error: (1 - ω)²        = max_α [-α²/4 + α - αω], maximiser 2(1 - ω).
"""
import numpy as np

from dynamics.numerics import as_finite_array, require_array_in_range, require_choice
from ._validation import check_finite_result

LOSSES = ("cross_entropy", "hinge", "squared")
_ALPHA_DOMAIN = {"cross_entropy": (0.0, 1.0), "hinge": (0.0, 1.0), "squared": (-np.inf, np.inf)}


def binary_entropy(alpha):
    """H(α) = -α log α - (1-α) log(1-α) on [0, 1] (0 log 0 = 0)."""
    a = require_array_in_range("alpha", alpha, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.where(a > 0, a * np.log(np.where(a > 0, a, 1.0)), 0.0) \
            - np.where(a < 1, (1.0 - a) * np.log1p(-np.where(a < 1, a, 0.0)), 0.0)
    return h if h.ndim else float(h)


def primal_loss(loss, omega):
    """The scalar loss of the margin ω = yŷ: log(1+e^{-ω}), max(0, 1-ω) or (1-ω)²."""
    require_choice("loss", loss, LOSSES)
    w = as_finite_array("omega", omega)
    if loss == "cross_entropy":
        out = np.logaddexp(0.0, -w)
    elif loss == "hinge":
        out = np.maximum(0.0, 1.0 - w)
    else:
        with np.errstate(over="ignore"):
            out = (1.0 - w) ** 2
    check_finite_result(out, "omega", "(1 - ω)² overflows for |ω| > 1.3e154")
    return out if out.ndim else float(out)


def dual_objective(loss, alpha, omega):
    """The function of α maximised in Table 4: H(α) - αω, α - αω, or -α²/4 + α - αω."""
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
    check_finite_result(out, "alpha and omega", "α² or αω overflows")
    return out if np.ndim(out) else float(out)


def dual_maximiser(loss, omega):
    """The critical α of Table 4: σ(-ω) = -∂L/∂ω (CE), 1[ω < 1] (hinge), 2(1 - ω) (squared)."""
    require_choice("loss", loss, LOSSES)
    w = as_finite_array("omega", omega)
    if loss == "cross_entropy":
        out = 0.5 * (1.0 - np.tanh(0.5 * w))
    elif loss == "hinge":
        out = (w < 1.0).astype(np.float64)
    else:
        out = 2.0 * (1.0 - w)
    return out if out.ndim else float(out)
