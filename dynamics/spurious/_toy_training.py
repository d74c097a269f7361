"""Reference trainer of the Chapter 8 linear toy (Idrissi et al. 2022, reprinted as Pezeshki (thesis) §8.4 and
Ch. 8 Fig. 1), float64, numba.

Model f(x) = wᵀ(γ ⊙ x), no bias, BCE-with-logits averaged over the minibatch; torch ``SGD`` semantics
(g ← ∇ + λw; v ← g on the first step, else v ← μv + g; w ← w − ηv); initialisation w = (0.01/γ) ⊙ w₀ with
w₀ ~ U(±1/√(d+2)) (the authors' code's ``ToyNet``). The seven methods of Pezeshki (thesis) §8.3, with the
semantics of the authors' code:

* ERM, SUBY, SUBG and JTT reshuffle their (sub)sampled index set every epoch and cut it into consecutive
  batches (the last may be partial); RWY, RWG and gDRO (``gdro_sampler="group"``) draw N indices with
  replacement per epoch from the balanced sampling weights;
* JTT trains ERM for T epochs, records the misclassified training points in pass T + 1 without a step, then
  re-initialises (model and optimiser) and trains on the duplicated index list;
* gDRO takes the online step of :func:`dynamics.spurious.gdro_update` on every minibatch, q starting at all ones.

Group accuracies on validation and test are recorded after every epoch; the selected epoch maximises the
validation worst-group accuracy, ties going to the later epoch (the authors' code compares with ``>=``).
"""
import math
from typing import Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (as_finite_array, require_bool, require_choice, require_in_range, require_integer,
                               require_of_type, require_positive, rng_from)
from ._balancing import (balanced_sampling_weights, expand_by_counts, jtt_duplication_counts,
                         subsample_to_smallest, weighted_epoch_indices)
from ._checks import require_toy_split
from ._kernels import train_epochs
from ._results import BalancingToyConfig, SpuriousData, ToyRun

TOY_GAMMAS = BalancingToyConfig().gammas
"""(γ_spu, γ_core, γ_noise) of Pezeshki (thesis) Ch. 8 Fig. 1: 4, 1 and 2.0, the values of the authors' code (the
thesis's text, as the project read it, garbles them)."""

METHODS = ("erm", "suby", "subg", "rwy", "rwg", "jtt", "gdro")
N_GROUPS = 4  # 2 classes × 2 attribute values: group = 2y + b


def toy_feature_scales(n_noise: int, gammas: Sequence[float] = TOY_GAMMAS) -> np.ndarray:
    r"""The per-feature scales
    :math:`\gamma = [\gamma_\mathrm{spu}, \gamma_\mathrm{core}, \gamma_\mathrm{noise} \cdot \mathbf{1}_d]` of the toy
    model :math:`f(x) = w^\top (\gamma \odot x)` (Pezeshki (thesis) §8.4, Eq. 8.4.1).

    Parameters
    ----------
    n_noise : int
        :math:`d \ge 0`.
    gammas : sequence of 3 floats
        :math:`(\gamma_\mathrm{spu}, \gamma_\mathrm{core}, \gamma_\mathrm{noise})`, each > 0.

    Returns
    -------
    ndarray, shape (2 + n_noise,)

    Examples
    --------
    >>> toy_feature_scales(3).tolist()
    [4.0, 1.0, 2.0, 2.0, 2.0]
    """
    n_noise = require_integer("n_noise", n_noise, 0)
    g = as_finite_array("gammas", gammas)
    if g.shape != (3,):
        raise ValueError(f"gammas must hold 3 values (γ_spu, γ_core, γ_noise), got shape {g.shape}")
    if np.any(g <= 0):
        raise ValueError(f"gammas must be > 0, got {g.tolist()}")
    return np.concatenate([g[:2], np.full(n_noise, g[2])])


def _eval_set(name, data, n_features, scales):
    x, y, g = require_toy_split(name, data, n_features, N_GROUPS)
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


def train_balancing_toy(train: SpuriousData, val: SpuriousData, test: SpuriousData, method: str,
                        config: BalancingToyConfig = BalancingToyConfig(), *, init: Optional[ArrayLike] = None,
                        seed: Optional[Union[int, np.random.Generator]] = None, return_orders: bool = False) -> ToyRun:
    r"""Train the linear toy of Pezeshki (thesis) §8.4 with one of the seven balancing methods of its §8.3.

    Parameters
    ----------
    train, val, test : SpuriousData
        From :func:`dynamics.spurious.make_balancing_toy` (val/test with split "val"/"test", every group non-empty).
    method : {"erm", "suby", "subg", "rwy", "rwg", "jtt", "gdro"}
    config : BalancingToyConfig
        The training settings: learning rate, momentum, weight decay, batch size, epochs, :math:`\gamma`, JTT's
        :math:`T` and :math:`\lambda_\mathrm{up}`, gDRO's step size and sampler (default: this project's CPU
        setting, lr 1e-5, momentum 0.9, batch 100, 500 epochs). Its ``n_samples`` and ``n_noise`` are not used: the
        data's sizes are.
    init : array_like, shape (2 + n_noise,), optional
        Initial :math:`w` (JTT re-initialises to it too); default: the draw of the authors' ``ToyNet``.
    seed : None, int or numpy.random.Generator
        Drives the initialisation, the subsampling and every epoch's order.
    return_orders : bool
        Keep every epoch's index order in the result.

    Returns
    -------
    ToyRun

    Examples
    --------
    >>> from dynamics.spurious import BalancingToyConfig, make_balancing_toy_splits
    >>> train, val, test = make_balancing_toy_splits(400, 600, seed=0)
    >>> run = train_balancing_toy(train, val, test, "subg", BalancingToyConfig(n_epochs=50), seed=0)
    >>> run.test_group_acc.shape, round(float(run.test_worst_group[-1]), 2)
    ((50, 4), 1.0)
    """
    x, y, groups = require_toy_split("train", train, n_groups=N_GROUPS)
    n, n_features = x.shape
    method = require_choice("method", method, METHODS)
    require_of_type("config", config, BalancingToyConfig)
    learning_rate, momentum, weight_decay = config.learning_rate, config.momentum, config.weight_decay
    batch_size, n_epochs, gammas = config.batch_size, config.n_epochs, config.gammas
    jtt_epochs, jtt_upweight = config.jtt_epochs, config.jtt_upweight
    gdro_step_size, gdro_sampler = config.gdro_step_size, config.gdro_sampler
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
        train_epochs(xs, y, groups, w, v, has_velocity, flat, offsets, batch_size, learning_rate, momentum,
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
