"""Data balancing for worst-group accuracy (Idrissi et al. 2022, reprinted as Pezeshki (thesis) Ch. 8: §8.3 and
§8.5.4), with the semantics of the authors' public code (the BalancingGroups repository):

* groups g = n_attributes·y + a; SUBY/SUBG keep min_s n_s samples of every class/group, walking a random
  permutation, fixed before training; their size is (number of strata)·min count;
* RWY/RWG sample with replacement with P(i) ∝ 1/n_{s_i} (weights N/n_{s_i}), N draws per epoch;
* the coverage of with-replacement draws, N(1 − (1 − 1/N)^k) unique items after k draws;
* JTT duplication counts 1 + (λ_up − 1)·1[wrong];
* the online group-DRO step q_g ← q_g e^{η L̂_g} (present groups), q ← q/Σq, loss Σ_g q_g L̂_g.
"""
from typing import Optional, Union

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import logsumexp

from dynamics.numerics import (as_finite_array, require_array_in_range, require_choice, require_integer,
                               require_positive, require_same_length, rng_from)
from ._checks import MAX_LABEL, require_bool_mask, require_labels, require_nonempty_vector
from ._results import GdroStep, ReweightingCoverage
from ._docs import fill_doc


def group_index(labels: ArrayLike, attributes: ArrayLike, n_attributes: int) -> np.ndarray:
    r"""Group index :math:`g = n_\mathrm{attributes} \cdot y + a` of each sample (Pezeshki (thesis) §8.1; the authors'
    code's ``nb_groups * y + g``).

    Parameters
    ----------
    labels : array_like of int, shape (n_samples,)
        Classes :math:`y` in [0, 1e8).
    attributes : array_like of int, shape (n_samples,)
        Attributes :math:`a` in [0, n_attributes).
    n_attributes : int
        Number of attribute values, in [1, 1e8].

    Returns
    -------
    ndarray of int64, shape (n_samples,)

    Examples
    --------
    >>> group_index([0, 0, 1, 1], [0, 1, 0, 1], 2).tolist()
    [0, 1, 2, 3]
    """
    n_attributes = require_integer("n_attributes", n_attributes, 1, MAX_LABEL)
    y = require_labels("labels", labels)
    a = require_labels("attributes", attributes, n_classes=n_attributes)
    require_same_length(labels=y, attributes=a)
    return n_attributes * y + a


def group_counts(groups: ArrayLike, n_groups: Optional[int] = None) -> np.ndarray:
    """Number of samples in each group (or class): ``bincount`` of the group index (the counts of Pezeshki (thesis)
    Ch. 8, Table 1).

    Parameters
    ----------
    groups : array_like of int, shape (n_samples,)
        Group (or class) index of each sample, in [0, 1e8).
    n_groups : int, optional
        Length of the result, in [1, 1e8] (default: max index + 1); every index must be < n_groups.

    Returns
    -------
    ndarray of int64, shape (n_groups,)

    Examples
    --------
    >>> group_counts([0, 2, 2, 3], 4).tolist()
    [1, 0, 2, 1]
    """
    if n_groups is not None:
        n_groups = require_integer("n_groups", n_groups, 1, MAX_LABEL)
    g = require_labels("groups", groups, n_classes=n_groups)
    return np.bincount(g, minlength=n_groups or 0).astype(np.int64)


@fill_doc
def subsample_to_smallest(strata: ArrayLike, *, seed: Optional[Union[int, np.random.Generator]] = None) \
        -> np.ndarray:
    r"""SUBY/SUBG: indices of a random subset with :math:`\min_s n_s` samples of every stratum (Pezeshki (thesis) §8.3;
    the authors' code's ``GroupDataset.subsample_``).

    Walks a random permutation and keeps the first min-count samples of each stratum present in ``strata``;
    drawn once, without replacement, fixed before training. SUBY passes the class labels, SUBG the group
    index.

    Parameters
    ----------
    strata : array_like of int, shape (n_samples,)
        Class or group of each sample.
    %(seed)s

    Returns
    -------
    ndarray of int64
        Sorted indices, (number of strata present)·min count of them.

    Examples
    --------
    >>> idx = subsample_to_smallest([0, 0, 0, 1, 1, 2, 2, 2], seed=0)
    >>> len(idx), np.bincount(np.array([0, 0, 0, 1, 1, 2, 2, 2])[idx]).tolist()
    (6, [2, 2, 2])
    """
    s = require_labels("strata", strata)
    rng = rng_from(seed)
    _, inverse, counts = np.unique(s, return_inverse=True, return_counts=True)
    smallest = counts.min()
    perm = rng.permutation(s.size)
    # rank of each permuted sample among the earlier ones of its stratum
    order = np.argsort(inverse[perm], kind="stable")
    ranks = np.empty(s.size, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    ranks[order] = np.arange(s.size) - np.repeat(starts, counts)
    return np.sort(perm[ranks < smallest])


def subsampled_size(counts: ArrayLike) -> int:
    """Size of the subsampled training set, (number of strata)·min count (SUBG and SUBY of Pezeshki (thesis)
    §8.3).

    Parameters
    ----------
    counts : array_like of int
        Sample counts per stratum (any shape: a [class, attribute] table counts its cells as groups).

    Returns
    -------
    int

    Examples
    --------
    >>> subsampled_size([[71629, 66874], [22880, 1387]])  # CelebA SUBG
    5548
    """
    c = np.asarray(counts)
    flat = require_labels("counts", c.ravel() if c.ndim else c.reshape(1))
    return int(flat.size * flat.min())


def balanced_sampling_weights(strata: ArrayLike) -> np.ndarray:
    r"""RWY/RWG sampling weights :math:`w_i = N / n_{s_i}` (Pezeshki (thesis) §8.3; the authors' code's ``wy``/``wg``).

    With :math:`P(i) \propto w_i` every stratum has expected share 1/(number of strata) per minibatch.

    Parameters
    ----------
    strata : array_like of int, shape (n_samples,)
        Class (RWY) or group (RWG) of each sample.

    Returns
    -------
    ndarray, shape (n_samples,)

    Examples
    --------
    >>> balanced_sampling_weights([0, 0, 0, 1]).tolist()
    [1.3333333333333333, 1.3333333333333333, 1.3333333333333333, 4.0]
    """
    s = require_labels("strata", strata)
    _, inverse, counts = np.unique(s, return_inverse=True, return_counts=True)  # no array as long as max(s)
    return s.size / counts[inverse.reshape(s.shape)].astype(np.float64)


@fill_doc
def weighted_epoch_indices(weights: ArrayLike, *, n_draws: Optional[int] = None,
                           seed: Optional[Union[int, np.random.Generator]] = None) -> np.ndarray:
    r"""One RWY/RWG epoch: ``n_draws`` indices drawn with replacement with :math:`P(i) \propto w_i` (the authors' code's
    ``WeightedRandomSampler(w, N, replacement=True)``).

    Parameters
    ----------
    weights : array_like, shape (n_samples,)
        Non-negative weights, not all 0.
    n_draws : int, optional
        Number of draws (default: n_samples, one epoch).
    %(seed)s

    Returns
    -------
    ndarray of int64, shape (n_draws,)

    Examples
    --------
    >>> idx = weighted_epoch_indices([1.0, 0.0, 3.0], n_draws=5, seed=0)
    >>> idx.shape, bool(np.all(idx != 1))
    ((5,), True)
    """
    w = require_nonempty_vector("weights", weights, 0.0)
    total = w.sum()
    if total <= 0:
        raise ValueError("weights must not all be 0")
    n_draws = w.size if n_draws is None else require_integer("n_draws", n_draws, 0)
    rng = rng_from(seed)
    return rng.choice(w.size, size=n_draws, replace=True, p=w / total).astype(np.int64)


def expected_unique_fraction(population: ArrayLike, draws: ArrayLike) -> Union[float, np.ndarray]:
    r"""Expected fraction of distinct items after :math:`k` with-replacement draws from :math:`N`,
    :math:`1 - (1 - 1/N)^k` (Pezeshki (thesis) §8.5.4).

    Evaluated as :math:`-\operatorname{expm1}(k \cdot \operatorname{log1p}(-1/N))`. Multiplied by :math:`N` it is
    the coverage formula of the thesis.

    Parameters
    ----------
    population : int or array_like
        :math:`N \ge 1` items.
    draws : float or array_like
        :math:`k \ge 0` draws (real :math:`k` allowed; broadcast against ``population``).

    Returns
    -------
    float or ndarray
        In :math:`[0, 1]`.

    Examples
    --------
    >>> round(expected_unique_fraction(71629, 162770 / 4), 4)  # CelebA not-blond/female after 1 RWG epoch
    0.4334
    """
    n = as_finite_array("population", population)
    if np.any(n < 1) or np.any(n != np.round(n)):
        bad = n[(n < 1) | (n != np.round(n))].flat[0]
        raise ValueError(f"population must hold integers >= 1, got {bad:g}")
    k = require_array_in_range("draws", draws, 0.0)
    try:
        n, k = np.broadcast_arrays(n, k)
    except ValueError as exc:
        raise ValueError(f"population and draws must broadcast, got shapes {n.shape} and {k.shape}") from exc
    with np.errstate(divide="ignore", invalid="ignore"):
        out = -np.expm1(k * np.log1p(-1.0 / n))
    out = np.where(n == 1, np.where(k > 0, 1.0, 0.0), out)  # 0^k with k > 0, and 0·(−inf)
    return float(out) if out.ndim == 0 else out


def reweighting_coverage(counts: ArrayLike, epochs: ArrayLike, balance: str = "group") -> ReweightingCoverage:
    r"""Expected fraction of the distinct training samples of each group (or class) drawn after some epochs of
    reweighted sampling, RWG or RWY (Pezeshki (thesis) §8.5.4, the "coverage" of the majority groups).

    An epoch draws :math:`N = \sum \mathrm{counts}` samples with replacement, every stratum equally likely
    (:func:`dynamics.spurious.balanced_sampling_weights`): each of the :math:`S` strata (the groups for RWG, the
    classes for RWY) gets :math:`N/S` draws per epoch, and a stratum of :math:`n` samples has seen the fraction
    :math:`1 - (1 - 1/n)^{\mathrm{epochs} \cdot N/S}` of them (:func:`dynamics.spurious.expected_unique_fraction`).
    Under RWG a class's fraction is the size-weighted mean of its groups'. This is the thesis's computation, with
    each stratum's draws fixed at their mean :math:`N/S`; the exact with-replacement value,
    :math:`1 - (1 - 1/(S \cdot n))^{\mathrm{epochs} \cdot N}` (each draw picks a given sample with probability
    :math:`1/(S \cdot n)`), is slightly smaller (concavity), by :math:`O(1/n)`: 1.8e-6 for the CelebA not-blond
    groups after one RWG epoch.

    Parameters
    ----------
    counts : array_like of int, shape (n_classes, n_attributes)
        Training-set counts per (class, attribute), each >= 1 (e.g. ``BENCHMARK_GROUP_COUNTS[name].counts``).
    epochs : float or array_like
        Epochs of reweighted sampling, >= 0 (real values allowed).
    balance : {"group", "class"}
        RWG (every group equally likely) or RWY (every class).

    Returns
    -------
    ReweightingCoverage
        ``stratum_fractions`` of shape ``(n_classes, n_attributes, *epochs.shape)`` for RWG,
        ``(n_classes, *epochs.shape)`` for RWY, and ``class_fractions`` of shape ``(n_classes, *epochs.shape)``.

    Examples
    --------
    >>> celeba = [[71629, 66874], [22880, 1387]]  # the thesis's Table 1: rows not blond / blond, female / male
    >>> reweighting_coverage(celeba, [1.0, 3.0]).class_fractions[0].round(3).tolist()  # not blond, under RWG
    [0.444, 0.828]
    >>> reweighting_coverage(celeba, 1.0, "class").class_fractions.round(3).tolist()
    [0.444, 0.965]
    """
    c = require_labels("counts", counts, ndim=2)
    if np.any(c < 1):
        raise ValueError(f"counts must be >= 1 (every group needs samples to be drawn), got {int(c.min())}")
    e = require_array_in_range("epochs", epochs, 0.0)
    require_choice("balance", balance, ("group", "class"))
    n_total = c.sum()
    sizes = c if balance == "group" else c.sum(axis=1)
    draws = e * n_total / sizes.size
    if not np.all(np.isfinite(draws)):
        raise ValueError(f"epochs must keep epochs·N finite (N = {int(n_total)}), got {float(e.max()):g}")
    expand = (Ellipsis,) + (None,) * e.ndim
    fractions = expected_unique_fraction(sizes[expand], draws)
    if balance == "class":
        return ReweightingCoverage(fractions, fractions)
    return ReweightingCoverage(fractions, np.sum(fractions * c[expand], axis=1) / c.sum(axis=1)[expand])


def jtt_duplication_counts(wrong: ArrayLike, upweight: int) -> np.ndarray:
    r"""JTT duplication counts :math:`1 + (\lambda_\mathrm{up} - 1) \cdot \mathbf{1}[\mathrm{wrong}]` (Pezeshki (thesis)
    §8.3; the authors' code's ``JTT.weights``).

    Parameters
    ----------
    wrong : array_like of bool, shape (n_samples,)
        Training points misclassified after the first stage (the error set).
    upweight : int
        :math:`\lambda_\mathrm{up} \ge 1`.

    Returns
    -------
    ndarray of int64, shape (n_samples,)

    Examples
    --------
    >>> jtt_duplication_counts([False, True, False], 20).tolist()
    [1, 20, 1]
    """
    upweight = require_integer("upweight", upweight, 1)
    mask = require_bool_mask("wrong", wrong)
    if mask.ndim != 1 or mask.size == 0:
        raise ValueError(f"wrong must be a non-empty 1-D array, got shape {mask.shape}")
    return 1 + (upweight - 1) * mask.astype(np.int64)


def expand_by_counts(indices: ArrayLike, counts: ArrayLike) -> np.ndarray:
    """The duplicated index list: each index repeated ``count`` times (JTT's upweighted set; the authors' code's
    ``duplicate_``).

    Parameters
    ----------
    indices : array_like of int, shape (n,)
    counts : array_like of int, shape (n,)
        Repetitions >= 0, summing to at most 1e8 (the length of the result).

    Returns
    -------
    ndarray of int64, shape (sum(counts),)

    Examples
    --------
    >>> expand_by_counts([0, 1, 2], [1, 3, 1]).tolist()
    [0, 1, 1, 1, 2]
    """
    idx = require_labels("indices", indices)
    c = require_labels("counts", counts)
    require_same_length(indices=idx, counts=c)
    if int(c.sum()) > MAX_LABEL:
        raise ValueError(f"counts must sum to at most {MAX_LABEL} (the length of the result), got {int(c.sum())}")
    return np.repeat(idx, c)


def gdro_update(log_q: ArrayLike, group_losses: ArrayLike, present: ArrayLike, step_size: float = 0.1) -> GdroStep:
    r"""One online group-DRO step (Sagawa et al.; Pezeshki (thesis) §8.3, written out as in the standard gDRO update
    and the authors' code's ``GroupDRO``).

    :math:`\log q_g \mathrel{+}= \eta \hat L_g` for the groups present in the minibatch, then :math:`q` is
    normalised over all groups (log space); the loss weights are :math:`q_g` on the present groups and 0 elsewhere
    (the minibatch loss is :math:`\sum_g q_g \hat L_g`). Start from :math:`\log q = 0` (all :math:`q_g = 1`, as in
    the authors' code).

    Parameters
    ----------
    log_q : array_like, shape (n_groups,)
        Current log weights (finite).
    group_losses : array_like, shape (n_groups,)
        Mean minibatch loss :math:`\hat L_g \ge 0` of each group (entries of absent groups are ignored).
    present : array_like of bool, shape (n_groups,)
        Which groups have samples in the minibatch.
    step_size : float
        :math:`\eta > 0` (the thesis fixes 0.1).

    Returns
    -------
    GdroStep
        ``(log_q, loss_weights)``.

    Examples
    --------
    >>> step = gdro_update(np.zeros(4), [1.0, 0.0, 0.0, 0.0], [True, True, False, True])
    >>> np.exp(step.log_q).round(4).tolist(), step.loss_weights.round(4).tolist()
    ([0.2692, 0.2436, 0.2436, 0.2436], [0.2692, 0.2436, 0.0, 0.2436])
    """
    lq = require_nonempty_vector("log_q", log_q)
    try:
        raw = np.array(group_losses, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"group_losses must be an array of real numbers, got {group_losses!r}") from exc
    if raw.shape != lq.shape:
        raise ValueError(f"group_losses must have shape {lq.shape} (that of log_q), got {raw.shape}")
    mask = require_bool_mask("present", present, lq.shape)
    require_array_in_range("group_losses", raw[mask], 0.0)  # absent groups may hold NaN (an empty mean)
    eta = require_positive("step_size", step_size)
    new = lq + eta * np.where(mask, raw, 0.0)
    new = new - logsumexp(new)
    return GdroStep(new, np.where(mask, np.exp(new), 0.0))
