"""Proposition 1 of Barsbey et al. 2025 (§6, Eq. 1, proof in supp. D.1): under logit scaling by k,
bias-conflicting (BC) samples dominate the cross-entropy loss of a model that predicts by the spurious rule.

With binary cross-entropy and logit margin m = f[y] − f[y'] the per-sample loss is softplus(−k m), so exactly

    R(k) = Σ_{j ∈ BC} softplus(k β_j) / Σ_{i ∈ BA} softplus(−k α_i),

with α_i > 0 the bias-aligned (BA) margins and β_j > 0 the BC mispredictions. This module evaluates R(k) in
log space (finite for k·max(α, β) far beyond the float64 range of e^{kα}), its two-sided bound for every k > 0,
its Θ(k e^{α_min k}) asymptote for heterogeneous margins and the multi-class softmax version: the exact form, the
bound and both asymptotes are derived in this project (see the theory note, docs/theory/spurious.md). The paper
states the result as O(k e^{αk}); the bound shows it is a Θ.
"""
import math
from typing import Union

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import logsumexp

from dynamics.numerics import (as_finite_array, require_bool, require_finite_result, require_positive,
                               require_same_length, scalar_or_array)
from ._checks import require_labels, require_logit_scale, require_matrix, require_positive_margins
from ._results import LossRatioAsymptote, LossRatioBounds
from ._docs import fill_doc

# Below this e^{-v}, log(log1p(e^{-v})) is evaluated as -v + log1p(-x/2 + x²/3) (x = e^{-v}): the series of
# log(log1p(x)/x), whose next term is O(x³) < 1e-24, so the result is exact to float64 and never underflows.
_SERIES_BELOW = 1e-8
_TIE_RTOL = 1e-12
_MAX_LOG = math.log(np.finfo(np.float64).max)


def log_softplus_of_negative(v):
    r""":math:`\log \operatorname{softplus}(-v) = \log \operatorname{log1p}(e^{-v})` for :math:`v \ge 0`, without
    underflow (:math:`-v + \operatorname{log1p}(-x/2 + x^2/3)` once :math:`x = e^{-v} < 10^{-8}`). Private: used by
    both propositions."""
    v = np.asarray(v, dtype=np.float64)
    x = np.exp(-v)
    small = x < _SERIES_BELOW
    with np.errstate(divide="ignore"):
        direct = np.log(np.log1p(np.where(small, 1.0, x)))
    series = -v + np.log1p(-0.5 * x + x * x / 3.0)
    return np.where(small, series, direct)


def _log_ratio_grid(k, alpha, beta):
    """log R(k) for an array k (any shape) and margin vectors alpha, beta."""
    kk = k.reshape(-1, 1)
    with np.errstate(over="ignore"):
        k_beta = kk * beta
    # softplus(kβ) >= log 2: no underflow; where kβ overflows, log softplus(kβ) = log k + log β to float64
    log_bc = np.where(np.isinf(k_beta), np.log(kk) + np.log(beta), np.log(np.logaddexp(0.0, k_beta)))
    with np.errstate(over="ignore"):
        log_ba = log_softplus_of_negative(kk * alpha)  # kα = inf: log softplus(−kα) = −inf (below float64)
    return (logsumexp(log_bc, axis=1) - logsumexp(log_ba, axis=1)).reshape(k.shape)


_LOG_HINT = "log R(k) grows like k·min(ba_margins), which overflows float64 here; reduce logit_scale"


def _finite_exp(log_values, what):
    if np.any(log_values > _MAX_LOG):
        raise ValueError(f"{what} exceeds the float64 range at this logit_scale (log value "
                         f"{float(np.max(log_values)):.6g} > {_MAX_LOG:.6g}): pass log=True")
    return np.exp(log_values)


def scaled_binary_ce(margin: ArrayLike, logit_scale: ArrayLike) -> Union[float, np.ndarray]:
    r"""Binary cross-entropy of logits scaled by :math:`k`, :math:`\ell = \operatorname{softplus}(-k m)` (the per-sample
    loss behind Proposition 1 of Barsbey et al. 2025, Eq. 1).

    Parameters
    ----------
    margin : float or array_like
        Logit margin :math:`m = f[y] - f[y']` (any sign; > 0 means correctly predicted).
    logit_scale : float or array_like
        The logit-scaling factor :math:`k > 0` of Barsbey et al. 2025 (broadcast against ``margin``).

    Returns
    -------
    float or ndarray
        :math:`\operatorname{softplus}(-k m) = \log(1 + e^{-k m})`, evaluated by ``np.logaddexp(0, −k m)``.

    Examples
    --------
    >>> round(scaled_binary_ce(0.0, 3.0), 12)  # log 2
    0.69314718056
    >>> scaled_binary_ce([1.0, -1.0], 10.0).round(7).tolist()
    [4.54e-05, 10.0000454]
    """
    m = as_finite_array("margin", margin)
    k = require_logit_scale(logit_scale)
    try:
        km = k * m
    except ValueError as exc:
        raise ValueError(f"margin and logit_scale must broadcast, got shapes {m.shape} and {k.shape}") from exc
    out = require_finite_result(np.logaddexp(0.0, -km), "scaled_binary_ce", "reduce logit_scale or |margin|")
    return float(out) if out.ndim == 0 else out


def bc_ba_loss_ratio(logit_scale: ArrayLike, ba_margins: ArrayLike, bc_margins: ArrayLike, log: bool = False) \
        -> Union[float, np.ndarray]:
    r"""The BC/BA loss ratio: total cross-entropy of the bias-conflicting over that of the bias-aligned samples, for
    logits scaled by :math:`k`.

    Exactly,

    .. math::

        R(k) = \frac{\sum_\mathrm{BC} \operatorname{softplus}(k\beta_j)}
        {\sum_\mathrm{BA} \operatorname{softplus}(-k\alpha_i)}.

    Proposition 1 of Barsbey et al. 2025 (Eq. 1); the exact finite-:math:`k` form is derived in this project.

    Parameters
    ----------
    logit_scale : float or array_like
        :math:`k > 0` (a scalar or an array of values; the result has its shape).
    ba_margins : array_like, shape (n_ba,)
        Margins :math:`\alpha_i > 0` of the bias-aligned samples (correctly predicted). Shared margins: a constant
        array.
    bc_margins : array_like, shape (n_bc,)
        Margins :math:`\beta_j > 0` by which the bias-conflicting samples are mispredicted.
    log : bool
        Return :math:`\log R(k)`, finite and accurate to rel 1e-12 for :math:`k \cdot \max(\alpha, \beta)` up to
        :math:`10^4` and beyond.

    Returns
    -------
    float or ndarray
        :math:`R(k)` or :math:`\log R(k)`. Without ``log``, a ratio beyond the float64 range raises ValueError.

    Examples
    --------
    >>> round(bc_ba_loss_ratio(5.0, np.ones(90), np.ones(10)), 7)
    82.8403331
    >>> round(bc_ba_loss_ratio(1e4, np.ones(90), np.ones(10), log=True), 6)  # R = 1e4·e^{1e4}/9
    10007.013116
    """
    k = require_logit_scale(logit_scale)
    alpha = require_positive_margins("ba_margins", ba_margins)
    beta = require_positive_margins("bc_margins", bc_margins)
    log = require_bool("log", log)
    log_ratio = _log_ratio_grid(k, alpha, beta)
    out = require_finite_result(log_ratio, "log R(k)", _LOG_HINT) if log else _finite_exp(log_ratio, "R(k)")
    return scalar_or_array(out, k)


@fill_doc
def bc_ba_loss_ratio_bounds(logit_scale: ArrayLike, ba_margins: ArrayLike, bc_margins: ArrayLike,
                            log: bool = False) -> LossRatioBounds:
    r"""Two-sided bound on the BC/BA loss ratio :math:`R(k)` for every :math:`k > 0` (Proposition 1 of Barsbey et al.
    2025, Eq. 1, supp. D.1; the bound is derived in this project).

    .. math::

        \mathrm{lower} = \frac{k \sum \beta_j}{\sum e^{-k\alpha_i}}, \qquad
        \mathrm{upper} = \frac{\sum (k\beta_j + e^{-k\beta_j})}{\sum (e^{-k\alpha_i} - e^{-2k\alpha_i}/2)},

    from :math:`\operatorname{softplus}(k\beta) \in [k\beta, k\beta + e^{-k\beta}]` and
    :math:`\operatorname{softplus}(-k\alpha) \in [e^{-k\alpha} - e^{-2k\alpha}/2, e^{-k\alpha}]`.

    Parameters
    ----------
    %(logit_scale)s
    ba_margins, bc_margins : array_like
        :math:`\alpha_i > 0` and :math:`\beta_j > 0`, as in :func:`dynamics.spurious.bc_ba_loss_ratio`.
    log : bool
        Return the logs of the bounds.

    Returns
    -------
    LossRatioBounds
        ``(lower, upper)``, floats or arrays shaped like ``logit_scale``.

    Examples
    --------
    >>> b = bc_ba_loss_ratio_bounds(1.0, np.ones(90), np.ones(10))
    >>> r = bc_ba_loss_ratio(1.0, np.ones(90), np.ones(10))
    >>> bool(b.lower <= r <= b.upper), round(r * math.exp(-1) * 9, 5), round(b.upper * math.exp(-1) * 9, 5)
    (True, 1.54223, 1.6762)
    """
    k = require_logit_scale(logit_scale)
    alpha = require_positive_margins("ba_margins", ba_margins)
    beta = require_positive_margins("bc_margins", bc_margins)
    log = require_bool("log", log)
    kk = k.reshape(-1, 1)
    with np.errstate(over="ignore"):  # kα or kβ = inf: e^{−kα} = 0 and log(kβ) = log k + log β below
        ka, kb = kk * alpha, kk * beta
    log_sum_exp_neg = logsumexp(-ka, axis=1)
    # log(kΣβ) and log Σ(kβ_j + e^{−kβ_j}) as sums of logs: no overflow of kβ
    log_lower = np.log(kk[:, 0]) + logsumexp(np.log(beta)) - log_sum_exp_neg
    numerator = logsumexp(np.logaddexp(np.log(kk) + np.log(beta), -kb), axis=1)
    # e^{-kα} − e^{-2kα}/2 = e^{-kα}(1 − e^{-kα}/2), summed in log space
    log_denominator = logsumexp(-ka + np.log1p(-0.5 * np.exp(-ka)), axis=1)
    log_upper = numerator - log_denominator
    log_lower, log_upper = log_lower.reshape(k.shape), log_upper.reshape(k.shape)
    require_finite_result(np.array([log_lower, log_upper]), "the log bounds", _LOG_HINT)
    if log:
        return LossRatioBounds(scalar_or_array(log_lower, k), scalar_or_array(log_upper, k))
    return LossRatioBounds(scalar_or_array(_finite_exp(log_lower, "the lower bound"), k),
                       scalar_or_array(_finite_exp(log_upper, "the upper bound"), k))


def _min_and_multiplicity(values):
    low = float(values.min())
    ties = np.abs(values - low) <= _TIE_RTOL * abs(low)
    return low, int(np.count_nonzero(ties))


def bc_ba_loss_ratio_asymptote(ba_margins: ArrayLike, bc_margins: ArrayLike) -> LossRatioAsymptote:
    r"""The :math:`k \to \infty` limit of the BC/BA loss ratio for heterogeneous margins (Proposition 1 of Barsbey
    et al. 2025; the constant is derived in this project).

    :math:`R(k) \sim \mathrm{constant} \cdot k \cdot e^{\mathrm{rate} \cdot k}` with
    :math:`\mathrm{rate} = \alpha_\min = \min \alpha_i` and :math:`\mathrm{constant} = \sum_j \beta_j / m_\min`,
    where :math:`m_\min` counts the BA margins equal to :math:`\alpha_\min` (ties within rtol 1e-12). For shared
    margins this is :math:`n_\mathrm{bc} \beta / n_\mathrm{ba}`.

    Parameters
    ----------
    ba_margins, bc_margins : array_like
        :math:`\alpha_i > 0` and :math:`\beta_j > 0`.

    Returns
    -------
    LossRatioAsymptote
        ``(rate, constant)``.

    Examples
    --------
    >>> bc_ba_loss_ratio_asymptote([0.5, 1.0, 2.0], [0.3, 1.5])
    LossRatioAsymptote(rate=0.5, constant=1.8)
    """
    alpha = require_positive_margins("ba_margins", ba_margins)
    beta = require_positive_margins("bc_margins", bc_margins)
    rate, multiplicity = _min_and_multiplicity(alpha)
    return LossRatioAsymptote(rate, _sum_over(beta, multiplicity, "bc_margins"))


def _sum_over(values, count, name):
    """Σ values / count, finite: summed after the division where the plain sum overflows (values >= 0)."""
    with np.errstate(over="ignore"):
        total = float(values.sum()) / count
        if not math.isfinite(total):
            total = float(np.sum(values / count))
    return require_finite_result(total, "the asymptotic constant", f"the sum of {name} overflows float64")


def _logits_and_labels(logits, labels, name="labels"):
    f = require_matrix("logits", logits)
    if f.shape[1] < 2:
        raise ValueError(f"logits must have at least 2 classes (columns), got shape {f.shape}")
    y = require_labels(name, labels, n_classes=f.shape[1])
    require_same_length(logits=f, **{name: y})
    return f, y


def _log_softmax_ce(k, f, y):
    """log of the per-sample cross-entropy of k·f, stable for losses from e^{-1e4} to 1e4: with
    d_j = k(f_j − f_y), j ≠ y, and M = max_j d_j, a mispredicted sample (M > 0) has ℓ = M + log(e^{−M} + Σe^{d_j−M})
    and a correct one ℓ = log1p(S), S = Σ e^{d_j}, taken through log S (series below S = 1e-8)."""
    n = f.shape[0]
    d = k * (f - f[np.arange(n), y][:, None])
    d[np.arange(n), y] = -np.inf
    require_finite_result(np.where(np.isinf(d), 0.0, d), "k·(logit differences)", "reduce logit_scale")
    top = d.max(axis=1)
    log_sum = np.log(np.sum(np.exp(d - top[:, None]), axis=1))
    wrong = top > 0
    with np.errstate(over="ignore"):
        loss_wrong = top + np.log(np.exp(-top) + np.exp(log_sum))
    log_s = top + log_sum
    with np.errstate(over="ignore"):
        s = np.exp(log_s)  # inf only on mispredicted rows, which take the other branch
    small = s < _SERIES_BELOW
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        log_loss_right = np.where(small, log_s + np.log1p(-0.5 * s + s * s / 3.0),
                                  np.log(np.log1p(np.where(small, 1.0, s))))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(wrong, np.log(np.where(wrong, loss_wrong, 1.0)), log_loss_right)


def softmax_ce(logits: ArrayLike, labels: ArrayLike, logit_scale: float = 1.0) -> np.ndarray:
    r"""Per-sample softmax cross-entropy of :math:`k \cdot \mathrm{logits}` (the multi-class loss of Proposition 1 of
    Barsbey et al. 2025), computed stably from the logit differences.

    Parameters
    ----------
    logits : array_like, shape (n_samples, n_classes)
        Logits :math:`f`, n_classes >= 2.
    labels : array_like of int, shape (n_samples,)
        Classes in [0, n_classes).
    logit_scale : float
        :math:`k > 0`.

    Returns
    -------
    ndarray, shape (n_samples,)
        :math:`-\log \operatorname{softmax}(k f)[y]`, accurate to rel 1e-15 also for losses far below
        :math:`10^{-16}` (no :math:`1 - p` cancellation).

    Examples
    --------
    >>> softmax_ce([[2.0, 0.0], [0.0, 2.0]], [0, 0]).round(6)
    array([0.126928, 2.126928])
    >>> float(softmax_ce([[40.0, 0.0]], [0], logit_scale=1.0)[0])  # e^{-40}, not 0
    4.248354255291589e-18
    """
    f, y = _logits_and_labels(logits, labels)
    k = require_positive("logit_scale", logit_scale)
    return np.exp(_log_softmax_ce(k, f, y))


def _spurious_rule_split(f, y, b):
    """BA / BC masks, after checking that the model predicts by the spurious rule (argmax f = b, strictly)."""
    n = f.shape[0]
    top = f[np.arange(n), b]
    others = f.copy()
    others[np.arange(n), b] = -np.inf
    violating = np.flatnonzero(others.max(axis=1) >= top)
    if violating.size:
        i = int(violating[0])
        raise ValueError(f"bias_labels must be the strict argmax of the logits on every sample (Proposition 1 "
                         f"assumes the spurious decision rule), got argmax {int(np.argmax(f[i]))} != bias label "
                         f"{int(b[i])} at sample {i}")
    ba = y == b
    if not ba.any() or ba.all():
        raise ValueError(f"labels and bias_labels must give at least one bias-aligned (y = b) and one "
                         f"bias-conflicting (y != b) sample, got {int(ba.sum())} aligned of {n}")
    return ba, ~ba


@fill_doc
def bc_ba_loss_ratio_from_logits(logit_scale: ArrayLike, logits: ArrayLike, labels: ArrayLike,
                                 bias_labels: ArrayLike, log: bool = False) -> Union[float, np.ndarray]:
    r"""The multi-class BC/BA loss ratio :math:`\sum_\mathrm{BC} \mathrm{CE}(k f) / \sum_\mathrm{BA} \mathrm{CE}(k f)`
    from logits (Proposition 1 of Barsbey et al. 2025, stated there for two classes; the multi-class form is derived
    in this project).

    BA samples have :math:`y = b`, BC samples :math:`y \ne b`. The model must predict by the spurious rule:
    :math:`\operatorname{argmax} f = b` on every sample (the proposition's hypothesis); otherwise ValueError.

    Parameters
    ----------
    %(logit_scale)s
    logits : array_like, shape (n_samples, n_classes)
    labels, bias_labels : array_like of int, shape (n_samples,)
        True classes :math:`y` and bias labels :math:`b` in [0, n_classes).
    log : bool
        Return :math:`\log R(k)`.

    Returns
    -------
    float or ndarray
        :math:`R(k)` or :math:`\log R(k)`, shaped like ``logit_scale``.

    Examples
    --------
    >>> logits = [[2, 0, -1], [0, 1.5, 0.5], [-1, 0, 1], [1, 0, 0], [0, 0, 2]]
    >>> y, b = [0, 1, 2, 1, 0], [0, 1, 2, 0, 2]
    >>> round(bc_ba_loss_ratio_from_logits(5.0, logits, y, b), 5)
    1067.00066
    """
    k = require_logit_scale(logit_scale)
    f, y = _logits_and_labels(logits, labels)
    _, b = _logits_and_labels(f, bias_labels, "bias_labels")
    log = require_bool("log", log)
    ba, bc = _spurious_rule_split(f, y, b)
    flat = k.reshape(-1)
    out = np.empty(flat.shape)
    for i, kk in enumerate(flat):
        log_loss = _log_softmax_ce(float(kk), f, y)
        out[i] = logsumexp(log_loss[bc]) - logsumexp(log_loss[ba])
    out = out.reshape(k.shape)
    if not log:
        out = _finite_exp(out, "R(k)")
    return scalar_or_array(out, k)


def bc_ba_loss_ratio_asymptote_from_logits(logits: ArrayLike, labels: ArrayLike,
                                           bias_labels: ArrayLike) -> LossRatioAsymptote:
    r"""The :math:`k \to \infty` limit of the multi-class BC/BA loss ratio from logits (Proposition 1 of Barsbey et al.
    2025; the limit is derived in this project).

    :math:`\mathrm{rate} = \alpha_\min`, the smallest gap :math:`f_y - f_j` over BA samples and wrong classes
    :math:`j`; :math:`\mathrm{constant} = \sum_\mathrm{BC} (\max_l f_l - f_y) / m_\min`, with :math:`m_\min` the
    number of (sample, class) pairs attaining :math:`\alpha_\min` (rtol 1e-12).

    Parameters
    ----------
    logits : array_like, shape (n_samples, n_classes)
    labels, bias_labels : array_like of int, shape (n_samples,)

    Returns
    -------
    LossRatioAsymptote
        ``(rate, constant)``: :math:`R(k) \sim \mathrm{constant} \cdot k \cdot e^{\mathrm{rate} \cdot k}`.

    Examples
    --------
    >>> logits = [[2, 0, -1], [0, 1.5, 0.5], [-1, 0, 1], [1, 0, 0], [0, 0, 2]]
    >>> bc_ba_loss_ratio_asymptote_from_logits(logits, [0, 1, 2, 1, 0], [0, 1, 2, 0, 2])
    LossRatioAsymptote(rate=1.0, constant=1.5)
    """
    f, y = _logits_and_labels(logits, labels)
    _, b = _logits_and_labels(f, bias_labels, "bias_labels")
    ba, bc = _spurious_rule_split(f, y, b)
    fb = f[ba]
    gaps = fb[np.arange(fb.shape[0]), y[ba]][:, None] - fb
    gaps[np.arange(fb.shape[0]), y[ba]] = np.inf
    rate, multiplicity = _min_and_multiplicity(gaps[np.isfinite(gaps)])
    fc = f[bc]
    with np.errstate(over="ignore"):
        beta = fc.max(axis=1) - fc[np.arange(fc.shape[0]), y[bc]]
    require_finite_result(beta, "the margins max_l f_l − f_y", "the logits span more than float64; rescale them")
    return LossRatioAsymptote(rate, _sum_over(beta, multiplicity, "the margins max_l f_l − f_y"))
