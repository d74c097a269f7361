"""Reference trainer of the Chapter 8 linear toy (``001_61c8f54ededf01e4.txt`` §8.4, Ch. 8 Fig. 1; spec/spurious.md
§8.4, API.6), float64, numba.

Model f(x) = wᵀ(γ ⊙ x), no bias, BCE-with-logits averaged over the minibatch; torch ``SGD`` semantics
(g ← ∇ + λw; v ← g on the first step, else v ← μv + g; w ← w − ηv); initialisation w = (0.01/γ) ⊙ w₀ with
w₀ ~ U(±1/√(d+2)) ([code] ``ToyNet``). The seven methods of TH8 §8.3 with [code] semantics:

* ERM, SUBY, SUBG and JTT reshuffle their (sub)sampled index set every epoch and cut it into consecutive
  batches (the last may be partial); RWY, RWG and gDRO (``gdro_sampler="group"``) draw N indices with
  replacement per epoch from the balanced sampling weights;
* JTT trains ERM for T epochs, records the misclassified training points in pass T + 1 without a step, then
  re-initialises (model and optimiser) and trains on the duplicated index list;
* gDRO takes the online step of :func:`gdro_update` on every minibatch, q starting at all ones.

Group accuracies on validation and test are recorded after every epoch; the selected epoch maximises the
validation worst-group accuracy, ties going to the later epoch ([code] ``>=``).
"""
import math
from typing import NamedTuple, Optional, Tuple

import numba as nb
import numpy as np

from dynamics.numerics import (as_finite_array, require_bool, require_choice, require_in_range, require_integer,
                               require_positive, rng_from)
from ._balancing import (balanced_sampling_weights, expand_by_counts, jtt_duplication_counts,
                         subsample_to_smallest, weighted_epoch_indices)
from ._data import TOY_GAMMAS, SpuriousData, toy_feature_scales

METHODS = ("erm", "suby", "subg", "rwy", "rwg", "jtt", "gdro")
N_GROUPS = 4  # 2 classes × 2 attribute values: group = 2y + b


class ToyRun(NamedTuple):
    """One run of the linear-toy trainer.

    Attributes
    ----------
    epochs : ndarray of int, shape (n_epochs,)
        Epoch numbers 1..n_epochs; row e − 1 of the accuracy arrays is evaluated after epoch e.
    val_group_acc, test_group_acc : ndarray, shape (n_epochs, 4)
        Accuracy of each group 2y + b after every epoch.
    selected_epoch : int
        The epoch (1-based) of maximal validation worst-group accuracy (ties: the later epoch).
    weights : ndarray, shape (2 + n_noise,)
        Final w (the model is f(x) = wᵀ(γ ⊙ x)).
    selected_weights : ndarray, shape (2 + n_noise,)
        w after the selected epoch.
    init : ndarray, shape (2 + n_noise,)
        The initial w.
    jtt_init : ndarray or None
        JTT's re-initialisation of the second stage (None for other methods).
    orders : tuple of ndarray or None
        With ``return_orders``: the training indices of every epoch in the order used (consecutive batches of
        ``batch_size``; empty for JTT's error-recording pass), for a replay in torch.
    """

    epochs: np.ndarray
    val_group_acc: np.ndarray
    test_group_acc: np.ndarray
    selected_epoch: int
    weights: np.ndarray
    selected_weights: np.ndarray
    init: np.ndarray
    jtt_init: Optional[np.ndarray]
    orders: Optional[Tuple[np.ndarray, ...]]

    @property
    def val_worst_group(self) -> np.ndarray:
        """Validation worst-group accuracy per epoch, shape (n_epochs,)."""
        return self.val_group_acc.min(axis=1)

    @property
    def test_worst_group(self) -> np.ndarray:
        """Test worst-group accuracy per epoch, shape (n_epochs,)."""
        return self.test_group_acc.min(axis=1)

    @property
    def selected_test_worst_group(self) -> float:
        """Test worst-group accuracy at the validation-selected epoch."""
        return float(self.test_worst_group[self.selected_epoch - 1])


@nb.njit(cache=True)
def _sigmoid(f):
    if f >= 0.0:
        return 1.0 / (1.0 + math.exp(-f))
    e = math.exp(f)
    return e / (1.0 + e)


@nb.njit(cache=True)
def _bce(f, y):
    """softplus(f) − y f, stably."""
    return max(f, 0.0) - y * f + math.log1p(math.exp(-abs(f)))


@nb.njit(cache=True)
def _group_accuracy(x_eval, cols, y, groups, counts, w, out):
    """Group accuracies of f = Σ_j x_eval[i, j] w[cols[j]] (x_eval holds only the columns ``cols``)."""
    correct = np.zeros(counts.shape[0])
    for i in range(x_eval.shape[0]):
        f = 0.0
        for j in range(cols.shape[0]):
            f += x_eval[i, j] * w[cols[j]]
        pred = 1 if f > 0.0 else 0
        if pred == y[i]:
            correct[groups[i]] += 1.0
    for g in range(counts.shape[0]):
        out[g] = correct[g] / counts[g]


@nb.njit(cache=True)
def _train_epochs(xs, y, groups, w, v, has_velocity, order, offsets, batch_size, learning_rate, momentum,
                  weight_decay, use_gdro, log_q, step_size, x_val, val_cols, val_y, val_g, val_counts, x_test,
                  test_cols, test_y, test_g, test_counts, val_acc, test_acc, best, best_w, first_row):
    """Train the epochs whose index orders are order[offsets[e]:offsets[e+1]], recording group accuracies in rows
    first_row + e. ``has_velocity[0]`` carries torch's first-step rule; ``best[0]`` the best validation WGA so
    far (its weights in best_w)."""
    n_features = xs.shape[1]
    grad = np.empty(n_features)
    residual = np.empty(batch_size)
    group_loss = np.zeros(log_q.shape[0])
    group_count = np.zeros(log_q.shape[0])
    for e in range(offsets.shape[0] - 1):
        start, stop = offsets[e], offsets[e + 1]
        for b0 in range(start, stop, batch_size):
            b1 = min(b0 + batch_size, stop)
            nb_ = b1 - b0
            for t in range(nb_):
                i = order[b0 + t]
                f = np.dot(xs[i], w)
                residual[t] = _sigmoid(f) - y[i]
                if use_gdro:
                    g = groups[i]
                    group_loss[g] += _bce(f, y[i])
                    group_count[g] += 1.0
            if use_gdro:
                for g in range(log_q.shape[0]):
                    if group_count[g] > 0:
                        log_q[g] += step_size * group_loss[g] / group_count[g]
                top = log_q.max()
                total = 0.0
                for g in range(log_q.shape[0]):
                    total += math.exp(log_q[g] - top)
                norm = top + math.log(total)
                for g in range(log_q.shape[0]):
                    log_q[g] -= norm
                for t in range(nb_):
                    g = groups[order[b0 + t]]
                    residual[t] *= math.exp(log_q[g]) / group_count[g]
                group_loss[:] = 0.0
                group_count[:] = 0.0
            else:
                for t in range(nb_):
                    residual[t] /= nb_
            for j in range(n_features):
                grad[j] = weight_decay * w[j]
            for t in range(nb_):
                row = xs[order[b0 + t]]
                r = residual[t]
                for j in range(n_features):
                    grad[j] += r * row[j]
            if has_velocity[0]:
                for j in range(n_features):
                    v[j] = momentum * v[j] + grad[j]
            else:
                v[:] = grad
                has_velocity[0] = True
            for j in range(n_features):
                w[j] -= learning_rate * v[j]
        row_index = first_row + e
        _group_accuracy(x_val, val_cols, val_y, val_g, val_counts, w, val_acc[row_index])
        _group_accuracy(x_test, test_cols, test_y, test_g, test_counts, w, test_acc[row_index])
        worst = val_acc[row_index].min()
        if worst >= best[0]:
            best[0] = worst
            best_w[:] = w


def _check_split(name, data, n_features=None):
    if not isinstance(data, SpuriousData):
        raise TypeError(f"{name} must be a SpuriousData (e.g. from make_balancing_toy), got {type(data).__name__}")
    x = as_finite_array(f"{name}.x", data.x, ndim=2)
    if x.shape[0] == 0:
        raise ValueError(f"{name}.x must hold at least one sample, got shape {x.shape}")
    if n_features is not None and x.shape[1] != n_features:
        raise ValueError(f"{name}.x must have {n_features} columns (those of train.x), got shape {x.shape}")
    if x.shape[1] < 2:
        raise ValueError(f"{name}.x must have at least the 2 toy features, got shape {x.shape}")
    y = np.asarray(data.y)
    g = np.asarray(data.group)
    if y.shape != (x.shape[0],) or g.shape != (x.shape[0],):
        raise ValueError(f"{name}.y and {name}.group must have shape ({x.shape[0]},), got {y.shape} and {g.shape}")
    if not (np.all((y == 0) | (y == 1)) and np.all((g >= 0) & (g < N_GROUPS))):
        raise ValueError(f"{name}.y must be in {{0, 1}} and {name}.group in [0, {N_GROUPS})")
    return x, y.astype(np.float64), g.astype(np.int64)


def _eval_set(name, data, n_features, scales):
    x, y, g = _check_split(name, data, n_features)
    counts = np.bincount(g, minlength=N_GROUPS).astype(np.float64)
    if np.any(counts == 0):
        raise ValueError(f"{name} must have samples in every group 2y + b, got none in group "
                         f"{int(np.flatnonzero(counts == 0)[0])}")
    cols = np.flatnonzero(np.any(x != 0, axis=0))  # zero columns (the val/test noise) add exactly 0 to f
    return np.ascontiguousarray((x * scales)[:, cols]), cols.astype(np.int64), y.astype(np.int64), g, counts


def _flatten(orders):
    lengths = np.array([len(o) for o in orders], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    flat = np.concatenate(orders).astype(np.int64) if len(orders) else np.zeros(0, np.int64)
    return flat, offsets


def train_balancing_toy(train, val, test, method, *, learning_rate=1e-5, momentum=0.9, weight_decay=0.0,
                        batch_size=100, n_epochs=500, gammas=TOY_GAMMAS, jtt_epochs=1, jtt_upweight=20,
                        gdro_step_size=0.1, gdro_sampler="group", init=None, seed=None,
                        return_orders=False) -> ToyRun:
    """Train the TH8 §8.4 linear toy with one of the seven balancing methods of TH8 §8.3 (spec API.6).

    Parameters
    ----------
    train, val, test : SpuriousData
        From :func:`make_balancing_toy` (val/test with split "val"/"test", every group non-empty).
    method : {"erm", "suby", "subg", "rwy", "rwg", "jtt", "gdro"}
    learning_rate : float
        SGD step size η > 0 (1e-5).
    momentum : float
        μ ∈ [0, 1) (0.9; torch convention, dampening 0).
    weight_decay : float
        λ >= 0 (the gradient gains λw).
    batch_size : int
        Minibatch size >= 1 (100 at the CPU setting n = 400; the code uses 250 with n = 1000).
    n_epochs : int
        Epochs >= 1 (500); JTT needs n_epochs > jtt_epochs + 1.
    gammas : sequence of 3 floats
        (γ_spu, γ_core, γ_noise).
    jtt_epochs : int
        JTT's first-stage length T >= 1.
    jtt_upweight : int
        JTT's λ_up >= 1.
    gdro_step_size : float
        gDRO's η > 0 (0.1).
    gdro_sampler : {"group", "shuffle"}
        gDRO batches from the group-balanced sampler ([code]) or from reshuffles of the data.
    init : array_like, shape (2 + n_noise,), optional
        Initial w (JTT re-initialises to it too); default: the [code] ``ToyNet`` draw.
    seed : None, int or numpy.random.Generator
        Drives the initialisation, the subsampling and every epoch's order.
    return_orders : bool
        Keep every epoch's index order in the result.

    Returns
    -------
    ToyRun

    Examples
    --------
    >>> from dynamics.spurious import make_balancing_toy_splits
    >>> train, val, test = make_balancing_toy_splits(400, 600, seed=0)
    >>> run = train_balancing_toy(train, val, test, "subg", n_epochs=50, seed=0)
    >>> run.test_group_acc.shape, round(float(run.test_worst_group[-1]), 2)
    ((50, 4), 1.0)
    """
    x, y, groups = _check_split("train", train)
    n, n_features = x.shape
    method = require_choice("method", method, METHODS)
    learning_rate = require_positive("learning_rate", learning_rate)
    momentum = require_in_range("momentum", momentum, 0.0, 1.0, high_open=True)
    weight_decay = require_positive("weight_decay", weight_decay, allow_zero=True)
    batch_size = require_integer("batch_size", batch_size, 1)
    n_epochs = require_integer("n_epochs", n_epochs, 1)
    scales = toy_feature_scales(n_features - 2, gammas)
    jtt_epochs = require_integer("jtt_epochs", jtt_epochs, 1)
    jtt_upweight = require_integer("jtt_upweight", jtt_upweight, 1)
    if method == "jtt" and n_epochs <= jtt_epochs + 1:
        raise ValueError(f"n_epochs must exceed jtt_epochs + 1 = {jtt_epochs + 1} for JTT, got {n_epochs}")
    gdro_step_size = require_positive("gdro_step_size", gdro_step_size)
    require_choice("gdro_sampler", gdro_sampler, ("group", "shuffle"))
    return_orders = require_bool("return_orders", return_orders)
    evals = [_eval_set(name, data, n_features, scales) for name, data in (("val", val), ("test", test))]
    rng = rng_from(seed)
    bound = 1.0 / math.sqrt(n_features)

    def draw_init():
        if init is not None:
            w0 = as_finite_array("init", init)
            if w0.shape != (n_features,):
                raise ValueError(f"init must have shape ({n_features},), got {w0.shape}")
            return w0.copy()
        return 0.01 / scales * rng.uniform(-bound, bound, n_features)

    w = draw_init()
    first_init = w.copy()
    xs = np.ascontiguousarray(x * scales)
    val_acc = np.zeros((n_epochs, N_GROUPS))
    test_acc = np.zeros((n_epochs, N_GROUPS))
    v = np.zeros(n_features)
    has_velocity = np.zeros(1, dtype=np.bool_)
    best = np.array([-1.0])
    best_w = w.copy()
    log_q = np.zeros(N_GROUPS)
    all_orders = []

    def shuffled(index_set, count):
        return [rng.permutation(index_set) for _ in range(count)]

    def run(orders, first_row, use_gdro=False):
        flat, offsets = _flatten(orders)
        _train_epochs(xs, y, groups, w, v, has_velocity, flat, offsets, batch_size, learning_rate, momentum,
                      weight_decay, use_gdro, log_q, gdro_step_size, *evals[0], *evals[1], val_acc, test_acc,
                      best, best_w, first_row)
        if return_orders:
            all_orders.extend(orders)

    everyone = np.arange(n)
    jtt_init = None
    if method == "erm":
        run(shuffled(everyone, n_epochs), 0)
    elif method in ("suby", "subg"):
        kept = subsample_to_smallest(y.astype(np.int64) if method == "suby" else groups, seed=rng)
        run(shuffled(kept, n_epochs), 0)
    elif method in ("rwy", "rwg") or (method == "gdro" and gdro_sampler == "group"):
        weights = balanced_sampling_weights(y.astype(np.int64) if method == "rwy" else groups)
        run([weighted_epoch_indices(weights, seed=rng) for _ in range(n_epochs)], 0, use_gdro=method == "gdro")
    elif method == "gdro":
        run(shuffled(everyone, n_epochs), 0, use_gdro=True)
    else:  # jtt
        run(shuffled(everyone, jtt_epochs), 0)
        # pass T + 1: record the error set with the first-stage model, no step; the model is evaluated unchanged
        wrong = ((xs @ w > 0).astype(np.float64) != y)
        run([np.zeros(0, np.int64)], jtt_epochs)
        duplicated = expand_by_counts(everyone, jtt_duplication_counts(wrong, jtt_upweight))
        w[:] = draw_init()
        jtt_init = w.copy()
        v[:] = 0.0
        has_velocity[0] = False
        run(shuffled(duplicated, n_epochs - jtt_epochs - 1), jtt_epochs + 1)
    worst = val_acc.min(axis=1)
    selected = int(n_epochs - np.argmax(worst[::-1]))  # 1-based, the later epoch on ties
    return ToyRun(np.arange(1, n_epochs + 1), val_acc, test_acc, selected, w, best_w, first_init, jtt_init,
                  tuple(all_orders) if return_orders else None)
