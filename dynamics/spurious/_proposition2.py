"""Definition 1 and Proposition 2 of Barsbey et al. 2025 (supp. D.2, Eqs. 8, 10–20): gradient norms of the
spurious vs the core subnetwork under logit scaling.

The exact binary identity behind the proof (derived in this project; see the theory note,
docs/theory/spurious.md): with ℓ = softplus(−k m) and
m = f[y] − f[y'], ∇_θ ℓ = −k σ(−k m) ∇_θ m for every parameter block θ, hence ‖∇_θ ℓ‖ = k σ(−k m) ‖∇_θ m‖.
Summed over a minibatch with per-sample margin-gradient norms c_i = ‖∇_c m_i‖ (core block) and
s_i = ‖∇_s m_i‖ (spurious block), the ratio of the paper's Eq. 8 (a ratio of sums of per-sample norms) is

    Σ_i σ(−k m_i) s_i / Σ_i σ(−k m_i) c_i        (the factor k cancels).

Its growth as e^{α_min k} needs the "converged core" hypothesis c_i = 0 on BC samples; without it the
ratio saturates at Σ_BC s_i / Σ_BC c_i (the caveat this package documents, derived in this project).
"""
from typing import Union

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import expit, logsumexp

from dynamics.numerics import (as_finite_array, require_array_in_range, require_bool, require_finite_product,
                               require_finite_result, require_positive, require_same_length, scalar_or_array)
from ._checks import require_logit_scale, require_nonempty_vector
from ._proposition1 import _finite_exp, _min_and_multiplicity
from ._results import GradientRatioAsymptote
from ._docs import fill_doc


@fill_doc
def scaled_ce_grad_norm(logit_scale: ArrayLike, margin: ArrayLike, margin_grad_norm: ArrayLike) \
        -> Union[float, np.ndarray]:
    r"""Norm of the gradient of the scaled binary cross-entropy,
    :math:`\lVert \nabla \ell \rVert = k \sigma(-k m) \lVert \nabla m \rVert` (the binary case of Barsbey et al.
    2025, supp. D.2, Eqs. 10–11; derived in this project).

    Exact for any parameter block, since :math:`\nabla \ell = -k \sigma(-k m) \nabla m`.

    Parameters
    ----------
    %(logit_scale)s
    margin : float or array_like
        :math:`m = f[y] - f[y']` (> 0 correctly predicted, < 0 mispredicted).
    margin_grad_norm : float or array_like
        :math:`\lVert \nabla_\theta m \rVert \ge 0` for the block :math:`\theta` (broadcast against ``margin``).

    Returns
    -------
    float or ndarray
        :math:`k \sigma(-k m) \lVert \nabla m \rVert`.

    Examples
    --------
    >>> round(scaled_ce_grad_norm(20.0, -1.0, 1.0) / 20.0, 6)  # BC: σ(kβ) -> 1
    1.0
    >>> bool(scaled_ce_grad_norm(20.0, 1.0, 1.0) <= 20.0 * np.exp(-20.0))  # BA: <= k e^{-kα}
    True
    """
    k = require_logit_scale(logit_scale)
    m = as_finite_array("margin", margin)
    g = require_array_in_range("margin_grad_norm", margin_grad_norm, 0.0)
    try:
        with np.errstate(over="ignore"):  # k·m = ±inf is the exact σ = 0 or 1 limit
            out = k * expit(-k * m) * g
    except ValueError as exc:
        raise ValueError(f"logit_scale, margin and margin_grad_norm must broadcast, got shapes {k.shape}, "
                         f"{m.shape} and {g.shape}") from exc
    require_finite_result(out, "scaled_ce_grad_norm", "k·σ(−k·margin)·margin_grad_norm overflows float64; reduce "
                          "logit_scale or margin_grad_norm")
    return float(out) if out.ndim == 0 else out


def _margins_and_norms(margins, core_grad_norms, spurious_grad_norms):
    m = require_nonempty_vector("margins", margins)
    c = require_nonempty_vector("core_grad_norms", core_grad_norms, 0.0)
    s = require_nonempty_vector("spurious_grad_norms", spurious_grad_norms, 0.0)
    require_same_length(margins=m, core_grad_norms=c, spurious_grad_norms=s)
    return m, c, s


def spurious_core_gradient_ratio(logit_scale: ArrayLike, margins: ArrayLike, core_grad_norms: ArrayLike,
                                 spurious_grad_norms: ArrayLike, log: bool = False) -> Union[float, np.ndarray]:
    r"""The spurious/core gradient-norm ratio of the cross-entropy of logits scaled by :math:`k`: how much more the
    spurious than the core subnetwork is pushed.

    .. math::

        \frac{\sum \lVert \nabla_s \ell_i \rVert}{\sum \lVert \nabla_c \ell_i \rVert}
        = \frac{\sum \sigma(-k m_i) s_i}{\sum \sigma(-k m_i) c_i}.

    Proposition 2 of Barsbey et al. 2025 (Eq. 8, supp. D.2), through the exact binary identity derived in this
    project.

    Parameters
    ----------
    logit_scale : float or array_like
        :math:`k > 0` (the result has its shape).
    margins : array_like, shape (n_samples,)
        Signed margins :math:`m_i`: > 0 for BA (correctly predicted), < 0 for BC (mispredicted).
    core_grad_norms, spurious_grad_norms : array_like, shape (n_samples,)
        :math:`c_i = \lVert \nabla_c m_i \rVert \ge 0` and :math:`s_i = \lVert \nabla_s m_i \rVert \ge 0`.
    log : bool
        Return the log of the ratio (computed in log space).

    Returns
    -------
    float or ndarray
        The ratio (the factor :math:`k` of both sums cancels). ValueError if the denominator is identically 0
        (every :math:`c_i = 0`), or with ``log`` if the numerator is (every :math:`s_i = 0`).

    Examples
    --------
    >>> m, c, s = [0.5, 1.0, 2.0, 1.0, -0.3, -1.5], [1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]
    >>> round(float(spurious_core_gradient_ratio(20.0, m, c, s) * np.exp(-0.5 * 20)), 9)
    1.997482089
    """
    k = require_logit_scale(logit_scale)
    m, c, s = _margins_and_norms(margins, core_grad_norms, spurious_grad_norms)
    log = require_bool("log", log)
    if not np.any(c > 0):
        raise ValueError("core_grad_norms must not all be 0: the denominator of the ratio is identically 0")
    if log and not np.any(s > 0):
        raise ValueError("spurious_grad_norms must not all be 0 with log=True: the ratio is 0 and its log is -inf")
    kk = k.reshape(-1, 1)
    log_sigma = _relative_log_sigmoid(kk, m, (c > 0) | (s > 0))
    with np.errstate(divide="ignore"):
        log_c, log_s = np.log(c), np.log(s)
    numerator = logsumexp(log_sigma + log_s, axis=1) if np.any(s > 0) else np.full(kk.shape[0], -np.inf)
    log_ratio = (numerator - logsumexp(log_sigma + log_c, axis=1)).reshape(k.shape)
    if log:
        out = require_finite_result(log_ratio, "the log of the gradient-norm ratio", "k·(margin spread) overflows "
                                    "float64: the ratio is beyond e^(±1.8e308); reduce logit_scale")
    else:
        out = _finite_exp(log_ratio, "the gradient-norm ratio")
    return scalar_or_array(out, k)


def _relative_log_sigmoid(k, m, used):
    """log σ(−k m_i) − log σ(−k m_r) for each row of k (shape (K, 1)), with r the smallest margin among the ``used``
    samples (the largest σ): the ratio of sums is unchanged by the common shift, which keeps every term a double where
    σ(−k m_i) itself underflows (k·m_i up to and beyond the float64 range, e.g. every margin large). With
    softplus(x) = max(x, 0) + log1p(e^{−|x|}), the shift is −k·(max(m_i, 0) − max(m_r, 0)) − log1p(e^{−|k m_i|})
    + log1p(e^{−|k m_r|}): no k·m_i is formed where it would overflow, and a difference beyond float64 is −inf (σ_i
    negligible against σ_r)."""
    positive = np.maximum(m, 0.0)
    reference = float(positive[used].min())
    with np.errstate(over="ignore", invalid="ignore"):
        spread = k * (positive - reference)  # >= 0; inf only where the true shift is below −1.8e308
        corrections = np.log1p(np.exp(-np.abs(k * m)))  # k·m = ±inf gives log1p(0) = 0
        corrections_at_reference = np.log1p(np.exp(-np.abs(k * m[used][np.argmin(positive[used])])))
    return np.where(used, -spread - corrections + corrections_at_reference, -np.inf)  # unused: c_i = s_i = 0


def spurious_core_gradient_ratio_asymptote(margins: ArrayLike, core_grad_norms: ArrayLike,
                                           spurious_grad_norms: ArrayLike, atol: float = 0.0) \
        -> GradientRatioAsymptote:
    r"""Rate and constant of the spurious/core gradient-norm ratio as :math:`k \to \infty`, including the saturating
    case (Proposition 2 of Barsbey et al. 2025, supp. D.2; the rate, the constant and the saturating case are derived
    in this project).

    If :math:`c_i \le \mathrm{atol}` on every BC sample (the "converged core" hypothesis):
    :math:`\mathrm{rate} = \alpha_\min`, the smallest BA margin among samples with :math:`c_i > 0`, and
    :math:`\mathrm{constant} = \sum_\mathrm{BC} s_i / \sum_{i: m_i = \alpha_\min} c_i`. Otherwise the ratio
    saturates: :math:`\mathrm{rate} = 0` and :math:`\mathrm{constant} = \sum_\mathrm{BC} s_i / \sum_\mathrm{BC} c_i`.

    Parameters
    ----------
    margins : array_like, shape (n_samples,)
        Signed margins, none equal to 0, at least one > 0 (BA) and one < 0 (BC).
    core_grad_norms, spurious_grad_norms : array_like, shape (n_samples,)
        :math:`c_i \ge 0` and :math:`s_i \ge 0`.
    atol : float
        Core gradient norms <= atol on BC samples count as converged (>= 0).

    Returns
    -------
    GradientRatioAsymptote
        ``(rate, constant, converged_core)``:
        :math:`\mathrm{ratio} \sim \mathrm{constant} \cdot e^{\mathrm{rate} \cdot k}`.

    Examples
    --------
    >>> m, c, s = [0.5, 1.0, 2.0, 1.0, -0.3, -1.5], [1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]
    >>> spurious_core_gradient_ratio_asymptote(m, c, s)
    GradientRatioAsymptote(rate=0.5, constant=2.0, converged_core=True)
    >>> spurious_core_gradient_ratio_asymptote([1.0, -1.0], [1.0, 2.0], [1.0, 3.0])
    GradientRatioAsymptote(rate=0.0, constant=1.5, converged_core=False)
    """
    m, c, s = _margins_and_norms(margins, core_grad_norms, spurious_grad_norms)
    atol = require_positive("atol", atol, allow_zero=True)
    if np.any(m == 0):
        raise ValueError(f"margins must be nonzero (> 0 for BA, < 0 for BC samples), got 0 at entry "
                         f"{int(np.flatnonzero(m == 0)[0])}")
    ba, bc = m > 0, m < 0
    if not ba.any() or not bc.any():
        raise ValueError(f"margins must hold at least one BA (> 0) and one BC (< 0) sample, got {int(ba.sum())} "
                         f"positive and {int(bc.sum())} negative")
    if np.all(c[bc] <= atol):
        useful = ba & (c > 0)
        if not useful.any():
            raise ValueError("core_grad_norms must be > 0 on some BA sample when they vanish on the BC samples: "
                             "otherwise the denominator is identically 0")
        rate, _ = _min_and_multiplicity(m[useful])
        at_rate = useful & (np.abs(m - rate) <= 1e-12 * rate)
        return GradientRatioAsymptote(rate, _ratio_of_sums(s[bc], c[at_rate]), True)
    return GradientRatioAsymptote(0.0, _ratio_of_sums(s[bc], c[bc]), False)


def _ratio_of_sums(numerator, denominator):
    """Σ numerator / Σ denominator (entries >= 0, Σ denominator > 0) without overflow of either sum: each sum as
    max·Σ(x/max), the quotient with mantissas and exponents apart. ValueError if the ratio leaves float64."""
    with np.errstate(over="ignore"):
        sums = float(numerator.sum()), float(denominator.sum())
    if np.isfinite(sums).all() and np.isfinite(sums[0] / sums[1]):
        return sums[0] / sums[1]
    top, bottom = float(numerator.max()), float(denominator.max())
    return require_finite_product([top, float(np.sum(numerator / top))], [bottom, float(np.sum(denominator / bottom))],
                                  what="the asymptotic constant", hint="Σ spurious_grad_norms / Σ core_grad_norms "
                                  "overflows float64")
