"""Representation, pruning and group metrics of Barsbey et al. 2025 (§3.2–3.3, §6, Figs 12 and 25) and the
worst-group accuracy of Idrissi et al. 2022 (Pezeshki (thesis) §8.1).

* sparsity 1 − ‖z‖₀/d and (q, κ)-compressibility 1 − ‖tail‖_q/‖z‖_q (Barsbey et al. 2025, §3.2, after
  Gribonval et al.);
* PQ-index 1 − d^{1/q−1/p}‖w‖_p/‖w‖_q with 0 < p < q (Diao et al.; Barsbey et al. 2025, Fig. 25, print
  (p, q) = (2, 1), an erratum: the literal form is <= 0);
* cosine class separation R² (Barsbey et al. 2025, §3.3, after Kornblith et al.) in O(N·d) through class means of
  unit-normalised rows;
* class- and bias-selectivity indices (CSI/BSI, Barsbey et al. 2025, §3.3), ε = 1e-7;
* BC loss share Σ_BC ℓ / Σ ℓ (the paper's "BC loss ratio", §6 and Fig. 12) and the BA/BC mean-loss ratio (§6);
* κ-prunability (§3.2) as the *mean* of retention ratios over κ ∈ {0, 0.1, …, 0.9} (the paper says "sum", an
  erratum), with per-layer neuron pruning masks and per-matrix magnitude pruning masks;
* the largest fall of a series below its running peak, this project's measure of the "resets" of a neuron's
  spurious-feature utilisation (Fig. 28, bottom);
* group and worst-group accuracy.
"""
import math
from typing import List, Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (as_finite_array, require_array_in_range, require_choice, require_finite_result,
                               require_in_range, require_integer, require_positive, require_same_length)
from ._checks import MAX_LABEL, require_bool_mask, require_labels, require_matrix, require_nonempty_vector

PRUNE_FRACTIONS = tuple(round(0.1 * i, 1) for i in range(10))
"""The pruning grid κ ∈ (0.0, 0.1, …, 0.9) of Barsbey et al. 2025, §3.2."""

CRITERIA = ("incoming_l2", "outgoing_l2", "in_out", "activation_out")
_CEIL_SLACK = 1e-9  # ⌈κd − 1e-9⌉: 0.1·30 = 3.0000000000000004 keeps 3 entries, not 4


def _along_last(name, z, axis):
    arr = as_finite_array(name, z)
    if arr.ndim == 0:
        raise ValueError(f"{name} must be a vector or an array of vectors, got a scalar")
    axis = require_integer("axis", axis, -arr.ndim, arr.ndim - 1)
    arr = np.moveaxis(arr, axis, -1)
    if arr.shape[-1] == 0:
        raise ValueError(f"{name} must have at least one entry along axis {axis}, got shape {arr.shape}")
    return arr


def _scalar_if_0d(values):
    return float(values) if np.ndim(values) == 0 else values


def sparsity(z: ArrayLike, axis: int = -1) -> Union[float, np.ndarray]:
    r"""Sparsity :math:`1 - \lVert z \rVert_0 / d` of activation vectors, counting exact zeros (Barsbey et al. 2025,
    §3.2).

    Parameters
    ----------
    z : array_like, shape (..., d) (d along ``axis``)
        Activations, e.g. (n_samples, n_units) post-ReLU values.
    axis : int
        The axis holding the :math:`d` entries of each vector.

    Returns
    -------
    float or ndarray
        One value per vector in :math:`[0, 1]` (a float for a single vector).

    Examples
    --------
    >>> sparsity([0, 0, 1, 2]), sparsity(np.zeros(3))
    (0.5, 1.0)
    """
    arr = _along_last("z", z, axis)
    return _scalar_if_0d(1.0 - np.count_nonzero(arr, axis=-1) / arr.shape[-1])


def _sorted_powers(arr, q):
    """|z|^q / max|z|^q per vector, sorted descending (scaled by the max so that no power overflows)."""
    a = np.abs(arr)
    top = a.max(axis=-1, keepdims=True)
    scaled = np.divide(a, top, out=np.zeros_like(a), where=top > 0)
    return -np.sort(-(scaled ** q), axis=-1), top[..., 0]


def compressibility(z: ArrayLike, q: float = 2.0, keep_fraction: float = 0.1, axis: int = -1) \
        -> Union[float, np.ndarray]:
    r""":math:`(q, \kappa)`-compressibility
    :math:`1 - \inf_{\lVert y \rVert_0 \le \lceil \kappa d \rceil} \lVert z - y \rVert_q / \lVert z \rVert_q`
    (Barsbey et al. 2025, §3.2, after Gribonval et al.).

    The infimum keeps the :math:`s = \lceil \kappa d - 10^{-9} \rceil` entries of largest magnitude: the value is
    :math:`1 - \lVert \mathrm{tail} \rVert_q / \lVert z \rVert_q`. An all-zero vector gives 1.0 (it is exactly
    representable).

    Parameters
    ----------
    z : array_like, shape (..., d)
        Activation vectors (``axis`` holds the :math:`d` entries).
    q : float
        The norm exponent, :math:`q > 0` (the paper's example and the default: 2).
    keep_fraction : float
        :math:`\kappa \in [0, 1]`, the fraction of entries kept (the paper's :math:`\kappa`; default 0.1).
    axis : int
        The axis holding the entries.

    Returns
    -------
    float or ndarray
        One value per vector, in :math:`[0, 1]`.

    Examples
    --------
    >>> round(compressibility(np.ones(100), 2.0, 0.1), 10)  # 1 − sqrt(0.9)
    0.0513167019
    >>> compressibility([0.0, 3.0, 0.0, 0.0], 2.0, 0.25)
    1.0
    """
    arr = _along_last("z", z, axis)
    q = require_positive("q", q)
    keep = require_in_range("keep_fraction", keep_fraction, 0.0, 1.0)
    d = arr.shape[-1]
    s = min(d, math.ceil(keep * d - _CEIL_SLACK))
    powers, top = _sorted_powers(arr, q)
    total = powers.sum(axis=-1)
    tail = powers[..., s:].sum(axis=-1)
    ratio = np.divide(tail, total, out=np.zeros_like(total), where=top > 0)
    return _scalar_if_0d(1.0 - ratio ** (1.0 / q))


def pq_index(w: ArrayLike, p: float = 1.0, q: float = 2.0, axis: int = -1) -> Union[float, np.ndarray]:
    r"""PQ-index :math:`I_{p,q}(w) = 1 - d^{1/q - 1/p} \lVert w \rVert_p / \lVert w \rVert_q`, :math:`0 < p < q`
    (Diao et al.; Barsbey et al. 2025, Fig. 25).

    Larger means sparser; the range is :math:`[0, 1 - d^{1/q - 1/p}]`. Barsbey et al. 2025 print
    ":math:`p = 2, q = 1`", which as written is :math:`\le 0` (an erratum, see the claim
    ``spurious.pq_index_convention``): the intended instance is :math:`(1, 2)`.

    Parameters
    ----------
    w : array_like, shape (..., d)
        Vectors (``axis`` holds the :math:`d` entries); an all-zero vector raises ValueError.
    p, q : float
        :math:`0 < p < q`.
    axis : int

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> pq_index(np.ones(16)), round(pq_index([0, 0, 0, 5.0]), 12)  # 1-sparse: 1 − d^{-1/2}
    (0.0, 0.5)
    """
    arr = _along_last("w", w, axis)
    p = require_positive("p", p)
    q = require_in_range("q", q, p, np.inf, low_open=True, why="the PQ-index needs 0 < p < q")
    d = arr.shape[-1]
    a = np.abs(arr)
    top = a.max(axis=-1)
    if np.any(top == 0):
        raise ValueError("w must not be an all-zero vector: the PQ-index is 0/0 there")
    scaled = a / top[..., None]
    # d^{1/q − 1/p}‖w‖_p/‖w‖_q = M_p/M_q with the power means M_r = (mean w_i^r)^{1/r}, in logs:
    # log M_r = log1p(mean(expm1(r log w_i)))/r, exact also where d^{1/p} or the p-norm leave float64 (tiny p:
    # 2^{1/p} = inf) and where mean w^r is within rounding of 1 (M_r → the geometric mean as r → 0)
    with np.errstate(divide="ignore", under="ignore"):
        log_scaled = np.log(scaled)
        log_mean_p = np.log1p(np.mean(np.expm1(p * log_scaled), axis=-1)) / p
        log_mean_q = np.log1p(np.mean(np.expm1(q * log_scaled), axis=-1)) / q
    value = -np.expm1(log_mean_p - log_mean_q) + 0.0  # + 0.0: no −0.0 on constant vectors
    value = np.where((value < 0) & (value > -1e-12), 0.0, value)  # round-off leaves -1e-16 on constant vectors
    return _scalar_if_0d(value)


def _classes(labels):
    classes, inverse = np.unique(labels, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"labels must hold at least 2 classes, got only class {int(classes[0])}")
    return classes, inverse


def class_separation_r2(representations: ArrayLike, labels: ArrayLike, on_zero: str = "raise") -> float:
    r"""Cosine class separation :math:`R^2 = 1 - \bar d_\mathrm{within} / \bar d_\mathrm{total}` (Barsbey et al. 2025,
    §3.3, after Kornblith et al.).

    With unit-normalised rows :math:`u` and class means :math:`\bar u_k` (:math:`K` classes present in ``labels``),
    exactly :math:`\bar d_\mathrm{within} = \frac{1}{K} \sum_k (1 - \lVert \bar u_k \rVert^2)` and
    :math:`\bar d_\mathrm{total} = 1 - \lVert \sum_k \bar u_k \rVert^2 / K^2`: the :math:`O(N^2)` pair sums of the
    definition (diagonal terms included, no centring) in :math:`O(N \cdot d)`.

    Parameters
    ----------
    representations : array_like, shape (n_samples, n_features)
        Penultimate-layer representations.
    labels : array_like of int, shape (n_samples,)
        Class labels (at least 2 classes).
    on_zero : {"raise", "drop"}
        What to do with zero-norm rows (cosine undefined): raise ValueError, or drop them (ValueError if a class
        is left empty).

    Returns
    -------
    float
        :math:`R^2` (1 for collinear within-class representations of distinct classes; about 0 for random labels).

    Examples
    --------
    >>> x = [[1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [0.0, 3.0]]
    >>> class_separation_r2(x, [0, 0, 1, 1])
    1.0
    """
    x = require_matrix("representations", representations)
    y = require_labels("labels", labels)
    require_same_length(representations=x, labels=y)
    require_choice("on_zero", on_zero, ("raise", "drop"))
    norms = np.linalg.norm(x, axis=1)
    zero = norms == 0
    if zero.any():
        if on_zero == "raise":
            raise ValueError(f"representations must have nonzero rows for cosine similarity, got a zero row at "
                             f"entry {int(np.flatnonzero(zero)[0])} (pass on_zero='drop' to drop them)")
        kept_classes = np.unique(y[~zero])
        if kept_classes.size != np.unique(y).size:
            raise ValueError("representations: dropping the zero rows leaves a class empty")
        x, y, norms = x[~zero], y[~zero], norms[~zero]
    classes, inverse = _classes(y)
    u = x / norms[:, None]
    counts = np.bincount(inverse, minlength=classes.size)
    means = np.zeros((classes.size, u.shape[1]))
    np.add.at(means, inverse, u)
    means /= counts[:, None]
    K = classes.size
    within = np.mean(1.0 - np.sum(means * means, axis=1))
    total = 1.0 - np.sum(means.sum(axis=0) ** 2) / K ** 2
    if total <= 1e-15:
        raise ValueError("representations: the total cosine dissimilarity is 0 (all rows point the same way), so "
                         "R² is undefined")
    return float(1.0 - within / total)


def class_selectivity(activations: ArrayLike, labels: ArrayLike, eps: float = 1e-7) -> np.ndarray:
    r"""Per-unit class-selectivity index
    :math:`\mathrm{CSI} = \rho_\max (\pi_\max - \pi_{-\max}) / (\pi_\max + \pi_{-\max} + \varepsilon)` (Barsbey
    et al. 2025, §3.3).

    :math:`\pi_\max` is the largest class-conditional mean activation (ties: the smallest class),
    :math:`\pi_{-\max}` the mean of the other classes' means, :math:`\rho_\max` the fraction of inputs of the argmax
    class on which the unit is > 0. The bias-selectivity index BSI is the same call with the bias labels
    :math:`b`. Meant for non-negative (post-ReLU) activations, where :math:`\mathrm{CSI} \in [0, 1]`.

    Parameters
    ----------
    activations : array_like, shape (n_samples, n_units)
    labels : array_like of int, shape (n_samples,)
        Class (CSI) or bias (BSI) labels, at least 2 distinct values.
    eps : float
        :math:`\varepsilon > 0` (the paper does not give it; 1e-7).

    Returns
    -------
    ndarray, shape (n_units,)

    Examples
    --------
    >>> a = [[1.0, 1.0, 0.0], [2.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    >>> class_selectivity(a, [0, 0, 1, 1]).round(6)  # selective, equal means, dead
    array([1., 0., 0.])
    """
    a = require_matrix("activations", activations)
    y = require_labels("labels", labels)
    require_same_length(activations=a, labels=y)
    eps = require_positive("eps", eps)
    classes, inverse = _classes(y)
    K = classes.size
    counts = np.bincount(inverse, minlength=K)
    means = np.zeros((K, a.shape[1]))
    np.add.at(means, inverse, a)
    means /= counts[:, None]
    top = np.argmax(means, axis=0)  # first maximum: ties go to the smallest class index
    units = np.arange(a.shape[1])
    pi_max = means[top, units]
    pi_rest = (means.sum(axis=0) - pi_max) / (K - 1)
    active = np.zeros((K, a.shape[1]))
    np.add.at(active, inverse, (a > 0).astype(np.float64))
    rho = active[top, units] / counts[top]
    with np.errstate(divide="ignore", invalid="ignore"):
        csi = rho * (pi_max - pi_rest) / (pi_max + pi_rest + eps)
    return require_finite_result(csi, "class_selectivity", "activations must be non-negative (post-ReLU)")


def mean_class_selectivity(activations: ArrayLike, labels: ArrayLike, eps: float = 1e-7) -> float:
    """Mean CSI over units, the network-level "core feature utilisation" of Barsbey et al. 2025, §3.3; BSI with
    bias labels.

    Parameters
    ----------
    activations, labels, eps
        As in :func:`dynamics.spurious.class_selectivity`.

    Returns
    -------
    float

    Examples
    --------
    >>> round(mean_class_selectivity([[1.0, 1.0], [0.0, 1.0]], [0, 1]), 6)
    0.5
    """
    return float(np.mean(class_selectivity(activations, labels, eps)))


def _losses_and_mask(losses, is_bias_conflicting):
    values = require_array_in_range("losses", losses, 0.0)
    if values.ndim == 0 or values.shape[-1] == 0:
        raise ValueError(f"losses must hold at least one value per row, got shape {values.shape}")
    mask = require_bool_mask("is_bias_conflicting", is_bias_conflicting, values.shape)
    return values, mask


def bc_loss_share(losses: ArrayLike, is_bias_conflicting: ArrayLike) -> Union[float, np.ndarray]:
    r"""BC loss share :math:`\sum_\mathrm{BC} \ell / \sum \ell` of a minibatch (the "BC loss ratio" of Barsbey et al.
    2025, §6 and Fig. 12).

    Returns 0.0 when :math:`\sum_\mathrm{BC} \ell = 0`, including when the total is 0 too (convention). For a model
    predicting by the spurious rule the share is :math:`R / (1 + R)` with :math:`R` the Proposition 1 ratio.

    Parameters
    ----------
    losses : array_like, shape (..., batch)
        Per-sample losses >= 0; the last axis is one minibatch (rows of a 2-D array are minibatches).
    is_bias_conflicting : array_like of bool, same shape
        True for BC samples (:math:`y \ne b`).

    Returns
    -------
    float or ndarray
        The share of each minibatch, in :math:`[0, 1]`.

    Examples
    --------
    >>> bc_loss_share([1.0, 1.0, 1.0, 1.0], [True, False, False, False])
    0.25
    >>> bc_loss_share([[0.0, 0.0], [1.0, 3.0]], [[True, False], [False, True]]).tolist()
    [0.0, 0.75]
    """
    values, mask = _losses_and_mask(losses, is_bias_conflicting)
    bc = np.where(mask, values, 0.0).sum(axis=-1)
    total = values.sum(axis=-1)
    share = np.divide(bc, total, out=np.zeros_like(bc), where=bc > 0)
    return _scalar_if_0d(share)


def ba_bc_mean_loss_ratio(losses: ArrayLike, is_bias_conflicting: ArrayLike) -> float:
    r"""Ratio of the mean BA loss to the mean BC loss, the uniform-margin diagnostic of Barsbey et al. 2025, §6.

    Parameters
    ----------
    losses : array_like, shape (n_samples,)
        Per-sample losses >= 0.
    is_bias_conflicting : array_like of bool, shape (n_samples,)
        Both groups must be non-empty, and the mean BC loss > 0.

    Returns
    -------
    float
        :math:`\operatorname{mean}_\mathrm{BA} \ell / \operatorname{mean}_\mathrm{BC} \ell`.

    Examples
    --------
    >>> ba_bc_mean_loss_ratio([0.01, 0.03, 2.0], [False, False, True])
    0.01
    """
    values, mask = _losses_and_mask(losses, is_bias_conflicting)
    if values.ndim != 1:
        raise ValueError(f"losses must be 1-dimensional, got shape {values.shape}")
    if mask.all() or not mask.any():
        raise ValueError(f"is_bias_conflicting must mark at least one BC and one BA sample, got {int(mask.sum())} "
                         f"of {mask.size}")
    mean_bc = values[mask].mean()
    if mean_bc == 0:
        raise ValueError("losses: the mean BC loss is 0, so the BA/BC ratio is undefined")
    return float(values[~mask].mean() / mean_bc)


def retention_ratios(pruned_accuracies: ArrayLike, full_accuracy: float, chance: Optional[float] = None) \
        -> np.ndarray:
    r""":math:`\kappa`-retention ratios :math:`\mathrm{Acc}(f^{(\kappa)}) / \mathrm{Acc}(f)` (Barsbey et al. 2025,
    §3.2), or chance-corrected (an extension of this project, not in the paper).

    Parameters
    ----------
    pruned_accuracies : array_like, shape (n_fractions,)
        Accuracies in [0, 1] of the pruned models, usually at ``PRUNE_FRACTIONS``.
    full_accuracy : float
        Accuracy of the unpruned model, in (0, 1].
    chance : float, optional
        With chance = :math:`c` the ratios are :math:`(\mathrm{acc}_\kappa - c) / (\mathrm{acc}_\mathrm{full} - c)`;
        needs :math:`\mathrm{acc}_\mathrm{full} > c` (this project's extension).

    Returns
    -------
    ndarray, shape (n_fractions,)

    Examples
    --------
    >>> retention_ratios([0.8, 0.6, 0.5], 0.8).round(12).tolist()
    [1.0, 0.75, 0.625]
    >>> retention_ratios([0.8, 0.6, 0.5], 0.8, chance=0.5).round(4).tolist()
    [1.0, 0.3333, 0.0]
    """
    acc = require_nonempty_vector("pruned_accuracies", pruned_accuracies)
    require_array_in_range("pruned_accuracies", acc, 0.0, 1.0)
    full = require_in_range("full_accuracy", full_accuracy, 0.0, 1.0, low_open=True)
    if chance is None:
        return acc / full
    c = require_in_range("chance", chance, 0.0, 1.0, high_open=True)
    if full <= c:
        raise ValueError(f"full_accuracy must exceed chance for the chance-corrected ratio, got {full:g} <= {c:g}")
    return (acc - c) / (full - c)


def prunability(pruned_accuracies: ArrayLike, full_accuracy: float, chance: Optional[float] = None) -> float:
    r""":math:`\kappa`-prunability: the mean of the retention ratios over the :math:`\kappa` grid (Barsbey et al. 2025,
    §3.2 and Table 1).

    The paper calls it "the sum of these retention ratios over a range of κ (from 0 to 0.9)", but its Table 1 values
    (0.195 to 1.029) are impossible for a sum over 10 values whose :math:`\kappa = 0` term is 1: it is the mean
    (erratum ``spurious.prunability_is_mean``). It can exceed 1.

    Parameters
    ----------
    pruned_accuracies, full_accuracy, chance
        As in :func:`dynamics.spurious.retention_ratios`.

    Returns
    -------
    float

    Examples
    --------
    >>> round(prunability([0.9] * 5 + [0.45] * 5, 0.9), 6)
    0.75
    """
    return float(np.mean(retention_ratios(pruned_accuracies, full_accuracy, chance)))


def max_drawdown(series: ArrayLike, axis: int = 0) -> Union[float, np.ndarray]:
    r"""The largest fall of a series below its running maximum, :math:`\max_t (\max_{s \le t} x_s - x_t) \ge 0`.

    This project's measure of the "resets" of Barsbey et al. 2025, Fig. 28 (bottom): a neuron whose
    spurious-feature utilisation rises and is then knocked down by large updates has a large drawdown; one whose
    utilisation only rises, or stays, has none.

    Parameters
    ----------
    series : array_like
        Finite values, at least one along ``axis``.
    axis : int
        The time axis. Default 0.

    Returns
    -------
    float or ndarray
        The drawdown of each series along ``axis`` (a float for a 1-D input).

    Examples
    --------
    >>> float(max_drawdown([0.1, 0.5, 0.2, 0.6, 0.55]))
    0.3
    >>> max_drawdown([[0.0, 1.0], [1.0, 0.5], [2.0, 0.0]]).tolist()
    [0.0, 1.0]
    """
    x = np.asarray(series, dtype=np.float64)
    if x.ndim == 0 or x.size == 0 or not -x.ndim <= axis < x.ndim or x.shape[axis] == 0:
        raise ValueError(f"series must have at least one value along axis {axis}, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"series must be finite, got {int(np.sum(~np.isfinite(x)))} non-finite values")
    return _scalar_if_0d((np.maximum.accumulate(x, axis=axis) - x).max(axis=axis))


def _weight_list(weights):
    if isinstance(weights, np.ndarray) or not isinstance(weights, (list, tuple)):
        raise TypeError("weights must be a list of 2-D weight matrices in torch layout (out, in)")
    if len(weights) < 1:
        raise ValueError("weights must hold at least one matrix")
    mats = [require_matrix(f"weights[{i}]", w) for i, w in enumerate(weights)]
    for i in range(len(mats) - 1):
        if mats[i + 1].shape[1] != mats[i].shape[0]:
            raise ValueError(f"weights[{i + 1}] must have {mats[i].shape[0]} columns (the width of layer {i}), "
                             f"got shape {mats[i + 1].shape}")
    return mats


def _n_pruned(prune_fraction, size):
    return int(math.floor(prune_fraction * size + 0.5))


def _keep_mask_smallest(scores, n_prune):
    order = np.argsort(scores, kind="stable")  # ties: lowest index pruned first
    keep = np.ones(scores.shape[0], dtype=bool)
    keep[order[:n_prune]] = False
    return keep


def neuron_pruning_masks(weights: Sequence[ArrayLike], prune_fraction: float, criterion: str = "incoming_l2",
                         activations: Optional[Sequence[ArrayLike]] = None) -> List[np.ndarray]:
    r"""Structured pruning: keep-masks of the hidden units of each layer (Barsbey et al. 2025, §3.2; the ranking
    criterion, which the paper leaves open, is a parameter).

    Hidden layer :math:`l` is the output of matrix :math:`l` (every matrix but the last). Exactly
    :math:`\lfloor \kappa \cdot \mathrm{width} + 0.5 \rfloor` units of each hidden layer are pruned, those with the
    smallest criterion; ties are pruned lowest index first.

    Parameters
    ----------
    weights : list of array_like
        Weight matrices in torch layout (out, in), chained (weights[l+1] has weights[l].shape[0] columns).
    prune_fraction : float
        :math:`\kappa \in [0, 1]`, the fraction of units pruned in every hidden layer.
    criterion : {"incoming_l2", "outgoing_l2", "in_out", "activation_out"}
        Row norm of :math:`W_l`; column norm of :math:`W_{l+1}`; their product; mean activation × outgoing norm.
    activations : list of array_like, optional
        For "activation_out": one (n_samples, width_l) array per hidden layer.

    Returns
    -------
    list of ndarray of bool
        One keep-mask of shape (width_l,) per hidden layer.

    Examples
    --------
    >>> W1 = np.array([[1.0, 0.0], [0.1, 0.0], [3.0, 0.0], [0.1, 0.0]])
    >>> W2 = np.ones((1, 4))
    >>> neuron_pruning_masks([W1, W2], 0.5)[0].tolist()
    [True, False, True, False]
    """
    mats = _weight_list(weights)
    if len(mats) < 2:
        raise ValueError("weights must hold at least 2 matrices (a hidden layer) for neuron pruning")
    kappa = require_in_range("prune_fraction", prune_fraction, 0.0, 1.0)
    require_choice("criterion", criterion, CRITERIA)
    if criterion == "activation_out":
        if activations is None or not isinstance(activations, (list, tuple)) or len(activations) != len(mats) - 1:
            raise ValueError(f"activations must be a list of {len(mats) - 1} arrays (one per hidden layer) for "
                             f"criterion 'activation_out'")
    masks = []
    for layer in range(len(mats) - 1):
        incoming = np.linalg.norm(mats[layer], axis=1)
        outgoing = np.linalg.norm(mats[layer + 1], axis=0)
        if criterion == "incoming_l2":
            score = incoming
        elif criterion == "outgoing_l2":
            score = outgoing
        elif criterion == "in_out":
            score = incoming * outgoing
        else:
            act = require_matrix(f"activations[{layer}]", activations[layer])
            if act.shape[1] != incoming.shape[0]:
                raise ValueError(f"activations[{layer}] must have {incoming.shape[0]} columns, got shape {act.shape}")
            score = act.mean(axis=0) * outgoing
        masks.append(_keep_mask_smallest(score, _n_pruned(kappa, score.shape[0])))
    return masks


def _relu_network(mats, x):
    """The hidden activations and the outputs of the bias-free ReLU network ``mats`` on the rows of ``x``."""
    hidden, h = [], x
    for W in mats[:-1]:
        h = np.maximum(h @ W.T, 0.0)
        hidden.append(h)
    return hidden, h @ mats[-1].T


def neuron_pruned_accuracies(weights: Sequence[ArrayLike], inputs: ArrayLike, labels: ArrayLike,
                             prune_fractions: Sequence[float] = PRUNE_FRACTIONS, criterion: str = "incoming_l2") \
        -> np.ndarray:
    r"""Accuracies :math:`\mathrm{Acc}(f^{(\kappa)})` of a bias-free ReLU network after structured pruning of a fraction
    :math:`\kappa` of the units of every hidden layer (Barsbey et al. 2025, §3.2): the numerators of
    :func:`dynamics.spurious.retention_ratios` and :func:`dynamics.spurious.prunability`.

    The network is :math:`f(x) = W_L \operatorname{relu}(W_{L-1} \dots \operatorname{relu}(W_1 x))` (weights in
    torch layout (out, in), as the parity FCN); at each :math:`\kappa` the units dropped by
    :func:`dynamics.spurious.neuron_pruning_masks` output 0, and the prediction is :math:`\operatorname{argmax} f(x)`.
    With ``criterion="activation_out"`` the activations ranking the units are those of the unpruned network on
    ``inputs``.

    Parameters
    ----------
    weights : list of array_like
        At least 2 chained weight matrices (out, in), the last one with one row per class.
    inputs : array_like, shape (n_samples, weights[0].shape[1])
    labels : array_like of int, shape (n_samples,)
        Classes in [0, n_classes).
    prune_fractions : sequence of float
        The :math:`\kappa` grid, each in :math:`[0, 1]` (default ``PRUNE_FRACTIONS``, 0 to 0.9).
    criterion : {"incoming_l2", "outgoing_l2", "in_out", "activation_out"}
        As in :func:`dynamics.spurious.neuron_pruning_masks`.

    Returns
    -------
    ndarray, shape (n_fractions,)
        The accuracy in :math:`[0, 1]` at each :math:`\kappa` (at :math:`\kappa = 0` that of the unpruned network).

    Examples
    --------
    >>> W1 = np.array([[1.0, 0.0], [0.0, 1.0], [0.1, 0.1]])  # unit 2 is weak
    >>> W2 = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    >>> x, y = [[2.0, 1.0], [1.0, 3.0], [0.5, 0.0]], [0, 1, 0]
    >>> neuron_pruned_accuracies([W1, W2], x, y, [0.0, 0.3, 0.6]).tolist()
    [1.0, 1.0, 0.6666666666666666]
    """
    mats = _weight_list(weights)
    if len(mats) < 2:
        raise ValueError("weights must hold at least 2 matrices (a hidden layer) for neuron pruning")
    x = require_matrix("inputs", inputs)
    if x.shape[1] != mats[0].shape[1]:
        raise ValueError(f"inputs must have {mats[0].shape[1]} columns (those of weights[0]), got shape {x.shape}")
    y = require_labels("labels", labels, n_classes=mats[-1].shape[0])
    require_same_length(inputs=x, labels=y)
    fractions = require_nonempty_vector("prune_fractions", prune_fractions)
    require_array_in_range("prune_fractions", fractions, 0.0, 1.0)
    require_choice("criterion", criterion, CRITERIA)
    activations = _relu_network(mats, x)[0] if criterion == "activation_out" else None
    accuracies = []
    for kappa in fractions:
        masks = neuron_pruning_masks(mats, float(kappa), criterion, activations)
        pruned = [W * m[:, None] for W, m in zip(mats[:-1], masks)] + [mats[-1]]
        accuracies.append(float(np.mean(np.argmax(_relu_network(pruned, x)[1], axis=1) == y)))
    return np.array(accuracies)


def magnitude_pruning_masks(weights: Sequence[ArrayLike], prune_fraction: float) -> List[np.ndarray]:
    r"""Unstructured magnitude pruning: per matrix, prune the :math:`\lfloor \kappa \cdot \mathrm{size} + 0.5 \rfloor`
    entries of smallest magnitude (Barsbey et al. 2025, Fig. 21).

    Parameters
    ----------
    weights : list of array_like
        Weight matrices (out, in).
    prune_fraction : float
        :math:`\kappa \in [0, 1]`.

    Returns
    -------
    list of ndarray of bool
        Keep-masks shaped like the matrices (ties pruned lowest flat index first).

    Examples
    --------
    >>> magnitude_pruning_masks([np.array([[0.5, -2.0], [0.1, 1.0]])], 0.5)[0].tolist()
    [[False, True], [False, True]]
    """
    mats = _weight_list(weights)
    kappa = require_in_range("prune_fraction", prune_fraction, 0.0, 1.0)
    return [_keep_mask_smallest(np.abs(w).ravel(), _n_pruned(kappa, w.size)).reshape(w.shape) for w in mats]


def group_accuracies(predictions: ArrayLike, labels: ArrayLike, groups: ArrayLike, n_groups: int) -> np.ndarray:
    """Accuracy within each group :math:`g = (y, a)` (Pezeshki (thesis) §8.1).

    Parameters
    ----------
    predictions, labels : array_like of int, shape (n_samples,)
        Predicted and true classes.
    groups : array_like of int, shape (n_samples,)
        Group index in [0, n_groups) (e.g. :func:`dynamics.spurious.group_index`).
    n_groups : int
        Number of groups, in [1, 1e8]; every group must have samples.

    Returns
    -------
    ndarray, shape (n_groups,)

    Examples
    --------
    >>> group_accuracies([1, 0, 1, 1], [1, 1, 1, 0], [0, 0, 1, 1], 2).tolist()
    [0.5, 0.5]
    """
    n_groups = require_integer("n_groups", n_groups, 1, MAX_LABEL)
    pred = require_labels("predictions", predictions)
    y = require_labels("labels", labels)
    g = require_labels("groups", groups, n_classes=n_groups)
    require_same_length(predictions=pred, labels=y, groups=g)
    counts = np.bincount(g, minlength=n_groups)
    if np.any(counts == 0):
        raise ValueError(f"groups must give every group at least one sample, got no sample in group "
                         f"{int(np.flatnonzero(counts == 0)[0])}")
    return np.bincount(g, weights=(pred == y).astype(np.float64), minlength=n_groups) / counts


def worst_group_accuracy(predictions: ArrayLike, labels: ArrayLike, groups: ArrayLike, n_groups: int) -> float:
    r"""Worst-group accuracy :math:`\min_g \mathrm{Acc}_g` (Pezeshki (thesis) §8.1).

    Parameters
    ----------
    predictions, labels, groups, n_groups
        As in :func:`dynamics.spurious.group_accuracies`.

    Returns
    -------
    float

    Examples
    --------
    >>> worst_group_accuracy([1, 0, 1, 1], [1, 0, 1, 0], [0, 0, 1, 1], 2)
    0.5
    """
    return float(group_accuracies(predictions, labels, groups, n_groups).min())
