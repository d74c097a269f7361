"""A batched torch trainer of the Chapter 8 linear toy (Idrissi et al. 2022, reprinted as Pezeshki (thesis) §8.4,
Ch. 8 Figs 1-2 and Tables 2-3) for the experiments in miniature of the data-balancing study.

* :func:`dynamics.spurious.torch_balancing.train_balancing_methods` trains every balancing method of Pezeshki
  (thesis) §8.3 (ERM, SUBY, SUBG, RWY, RWG, JTT, gDRO) on the linear toy, all seeds of one method as ONE batched
  model: the seeds' weight vectors stacked as an (S, D) matrix, minibatch gradients of the linear model by ``bmm``,
  torch ``SGD`` semantics (momentum, dampening 0, weight decay) written out per member. Each seed draws its data
  and its index orders exactly as :func:`dynamics.spurious.balancing_toy_runs` does, so that a member follows the
  numpy reference trainer :func:`dynamics.spurious.train_balancing_toy` to float round-off. It records, after every
  epoch, the group accuracies on the training set (with its noise: the memorisation of Ch. 8 Fig. 2), on validation
  and on test, and the average validation accuracy; and it keeps the weights selected by the worst-group
  validation accuracy (the thesis's model selection) and by the average validation accuracy (selection without
  group labels, the thesis's Table 3, second row).
* :func:`dynamics.spurious.torch_balancing.decision_maps`: the decision heat maps of the thesis's Ch. 8 Fig. 1,
  sigmoid(wᵀx̃) on a grid of the (γ_spu x_spu, γ_core x_core) plane, x̃ carrying the noise of the training sample
  nearest to the grid point, with the fraction of the grid where the model predicts as the core feature does;
  :func:`dynamics.spurious.torch_balancing.balancing_toy_splits` draws the seeds' data sets again for an
  experiment stored without them.

Float64 by default (float32 on request); CPU by default, ``device="cuda"`` for a GPU; runs on CPU use one torch
thread. Optional: ``dynamics.spurious`` does not import this module.
"""
import math
from typing import Sequence, Tuple, Union

import numpy as np
import torch

from dynamics.numerics import (disk_cache, require_choice, require_in_range, require_integer, require_of_type, rng_from,
                               seed_streams)
from dynamics.numerics.torch_batched import MemberOptimizer
from dynamics.numerics.torch_tools import as_tensor, on_device, to_numpy
from ._balancing import (balanced_sampling_weights, expand_by_counts, jtt_duplication_counts,
                         subsample_to_smallest, weighted_epoch_indices)
from ._results import BalancingExperiment, BalancingToyConfig, DecisionMaps, ToySplits
from ._setups import BALANCING_TOY_SEED_STREAMS, make_balancing_toy_splits
from ._toy_training import METHODS, N_GROUPS, toy_feature_scales
from ._docs import fill_doc

__all__ = ["BalancingExperiment", "BalancingToyConfig", "DecisionMaps", "balancing_toy_splits", "decision_maps",
           "train_balancing_methods"]

MAX_MEMBERS_ELEMENTS = 4 * 10**8  # seeds × samples × features held in memory at once (3.2 GB in float64)


class _Members:
    """The stacked state of S linear models trained by torch-SGD semantics, and their records."""

    def __init__(self, xs, y, groups, evals, n_epochs, settings, dtype, device):
        self.xs, self.y, self.groups, self.evals = xs, y, groups, evals
        S, _, D = xs.shape
        self.settings, self.dtype, self.device = settings, dtype, device
        zeros = lambda *shape: torch.zeros(*shape, dtype=dtype, device=device)
        self.restart(zeros(S, D))
        self.log_q = zeros(S, N_GROUPS)
        self.best = [torch.full((S,), -1.0, dtype=dtype, device=device) for _ in range(2)]
        self.best_w = [zeros(S, D), zeros(S, D)]
        self.acc = {name: np.zeros((S, n_epochs, N_GROUPS)) for name in ("train", "val", "test")}
        self.val_accuracy = np.zeros((S, n_epochs))
        self.offsets = torch.arange(S, device=device)[:, None] * xs.shape[1]
        self.xs_flat, self.y_flat, self.groups_flat = xs.reshape(-1, D), y.reshape(-1), groups.reshape(-1)

    def restart(self, w):
        """Start the model at ``w`` (S, D) with a fresh optimizer (SGD with momentum and weight decay per torch)."""
        s = self.settings
        self.optimizer = MemberOptimizer([w.clone()], s["learning_rate"], momentum=s["momentum"],
                                         weight_decay=s["weight_decay"])

    @property
    def w(self):
        """The members' weights (S, D)."""
        return self.optimizer.params[0]

    def step(self, idx, mask, use_gdro):
        s = self.settings
        flat = (idx + self.offsets).reshape(-1)  # index_select on the flattened stack: the cheapest gather
        xb = torch.index_select(self.xs_flat, 0, flat).reshape(idx.shape + (self.xs.shape[-1],))
        yb = torch.index_select(self.y_flat, 0, flat).reshape(idx.shape)
        f = torch.bmm(xb, self.w[:, :, None])[..., 0]
        residual = (torch.sigmoid(f) - yb) * mask
        n_batch = mask.sum(dim=1)
        active = n_batch > 0
        if use_gdro:
            gb = torch.index_select(self.groups_flat, 0, flat).reshape(idx.shape)
            losses = torch.nn.functional.binary_cross_entropy_with_logits(f, yb, reduction="none") * mask
            group_loss = torch.zeros_like(self.log_q).scatter_add_(1, gb, losses)
            group_count = torch.zeros_like(self.log_q).scatter_add_(1, gb, mask)
            stepped = self.log_q + s["gdro_step_size"] * torch.where(group_count > 0,
                                                                       group_loss / group_count.clamp(min=1), 0.0)
            stepped = stepped - torch.logsumexp(stepped, dim=1, keepdim=True)
            self.log_q = torch.where(active[:, None], stepped, self.log_q)
            residual = residual * self.log_q.exp().gather(1, gb) / group_count.gather(1, gb).clamp(min=1)
        else:
            residual = residual / n_batch.clamp(min=1)[:, None]
        self.optimizer.step([torch.bmm(residual[:, None, :], xb)[:, 0, :]], active=active)

    def _group_acc(self, x, y, groups, counts, w, within=None):
        correct = ((torch.bmm(x, w[:, :, None])[..., 0] > 0).to(self.dtype) == y).to(self.dtype)
        if within is not None:
            correct = correct * within
        per_group = torch.zeros(x.shape[0], N_GROUPS, dtype=self.dtype, device=self.device)
        per_group.scatter_add_(1, groups, correct)
        return torch.where(counts > 0, per_group / counts.clamp(min=1), math.nan), correct.mean(dim=1)

    def train_on(self, kept):
        """The training set of each member (its subsample for SUBY/SUBG): the training accuracies count only these
        samples, as in the authors' code, which subsamples the training set in place."""
        self.within = torch.zeros(self.y.shape, dtype=self.dtype, device=self.device)
        for s, k in enumerate(kept):
            self.within[s, torch.as_tensor(k, device=self.device)] = 1.0
        self.train_counts = torch.zeros(self.y.shape[0], N_GROUPS, dtype=self.dtype, device=self.device)
        self.train_counts.scatter_add_(1, self.groups, self.within)

    def record(self, row):
        train, _ = self._group_acc(self.xs, self.y, self.groups, self.train_counts, self.w, self.within)
        self.acc["train"][:, row] = to_numpy(train)
        for name in ("val", "test"):
            x, y, g, counts, cols = self.evals[name]
            acc, average = self._group_acc(x, y, g, counts, self.w[:, cols])
            self.acc[name][:, row] = to_numpy(acc)
            if name == "val":
                self.val_accuracy[:, row] = to_numpy(average)
                for k, value in enumerate((acc.min(dim=1).values, average)):
                    better = value >= self.best[k]  # ties go to the later epoch, as the authors' code
                    self.best[k] = torch.where(better, value, self.best[k])
                    self.best_w[k] = torch.where(better[:, None], self.w, self.best_w[k])

    def epochs(self, orders, first_row, use_gdro):
        """Train the epochs ``orders[e][s]`` (member s's index order of epoch e), recording row first_row + e."""
        B = self.settings["batch_size"]
        S = self.w.shape[0]
        for e, per_member in enumerate(orders):
            n_batches = max((len(o) + B - 1) // B for o in per_member)
            idx = np.zeros((S, max(n_batches, 1) * B), dtype=np.int64)
            mask = np.zeros(idx.shape)
            for s, order in enumerate(per_member):
                idx[s, :len(order)] = order
                mask[s, :len(order)] = 1.0
            idx_t = torch.as_tensor(idx, device=self.device)
            mask_t = torch.as_tensor(mask, dtype=self.dtype, device=self.device)
            for k in range(n_batches):
                self.step(idx_t[:, k * B:(k + 1) * B], mask_t[:, k * B:(k + 1) * B], use_gdro)
            self.record(first_row + e)


def _train_method(method, splits, train_seeds, scales, n_epochs, settings, dtype, device):
    S = len(splits)
    xs = as_tensor(np.stack([sp.train.x * scales for sp in splits]), device, dtype)
    y = as_tensor(np.stack([sp.train.y for sp in splits]), device, dtype)
    groups = as_tensor(np.stack([sp.train.group for sp in splits]), device, torch.long)
    evals = {}
    for name in ("val", "test"):  # every training set's groups are non-empty by construction (checked below)
        data = [getattr(sp, name) for sp in splits]
        group = np.stack([d.group for d in data])
        counts = np.stack([np.bincount(g, minlength=N_GROUPS) for g in group]).astype(np.float64)
        if np.any(counts == 0):
            raise ValueError(f"every seed's {name} set must have samples in every group 2y + b; seed "
                             f"{int(np.flatnonzero(np.any(counts == 0, axis=1))[0])} has an empty group")
        x = np.stack([d.x for d in data])
        cols = np.flatnonzero(np.any(x != 0, axis=(0, 1)))  # the zero noise of val/test adds exactly 0
        evals[name] = (as_tensor(x[..., cols] * scales[cols], device, dtype),
                       as_tensor(np.stack([d.y for d in data]), device, dtype),
                       as_tensor(group, device, torch.long), as_tensor(counts, device, dtype),
                       torch.as_tensor(cols, device=device))
    members = _Members(xs, y, groups, evals, n_epochs, settings, dtype, device)
    n, D = xs.shape[1], xs.shape[2]
    bound = 1.0 / math.sqrt(D)
    rngs = [rng_from(seed) for seed in train_seeds]
    draw_init = lambda rng: 0.01 / scales * rng.uniform(-bound, bound, D)  # the authors' ToyNet, as the numpy trainer
    members.restart(as_tensor(np.stack([draw_init(r) for r in rngs]), device, dtype))
    everyone = np.arange(n)
    labels = [sp.train.y.astype(np.int64) for sp in splits]
    strata = [sp.train.group.astype(np.int64) for sp in splits]
    if any(np.bincount(st, minlength=N_GROUPS).min() == 0 for st in strata):
        raise ValueError("every seed's training set must have samples in every group 2y + b")
    members.train_on([everyone] * S)
    # every member draws its orders with the numpy trainer's calls, in its order
    if method == "erm":
        members.epochs(list(zip(*[[r.permutation(everyone) for _ in range(n_epochs)] for r in rngs])), 0, False)
    elif method in ("suby", "subg"):
        kept = [subsample_to_smallest(lab if method == "suby" else st, seed=r) for lab, st, r in zip(labels, strata, rngs)]
        members.train_on(kept)
        members.epochs(list(zip(*[[r.permutation(k) for _ in range(n_epochs)] for k, r in zip(kept, rngs)])), 0, False)
    elif method in ("rwy", "rwg", "gdro"):  # gDRO draws from the group-balanced sampler, as the authors' code
        weights = [balanced_sampling_weights(lab if method == "rwy" else st) for lab, st in zip(labels, strata)]
        members.epochs(list(zip(*[[weighted_epoch_indices(w, seed=r) for _ in range(n_epochs)]
                                  for w, r in zip(weights, rngs)])), 0, method == "gdro")
    else:  # jtt
        T = settings["jtt_epochs"]
        members.epochs(list(zip(*[[r.permutation(everyone) for _ in range(T)] for r in rngs])), 0, False)
        f = torch.bmm(xs, members.w[:, :, None])[..., 0]
        wrong = to_numpy((f > 0).to(dtype) != y)
        members.record(T)  # pass T + 1 records the error set, no step: the model is evaluated unchanged
        duplicated = [expand_by_counts(everyone, jtt_duplication_counts(wr, settings["jtt_upweight"]))
                      for wr in wrong]
        members.restart(as_tensor(np.stack([draw_init(r) for r in rngs]), device, dtype))  # model and optimiser afresh
        members.epochs(list(zip(*[[r.permutation(d) for _ in range(n_epochs - T - 1)]
                                  for d, r in zip(duplicated, rngs)])), T + 1, False)
    return members


@fill_doc
@disk_cache(salt=torch.__version__)  # rendering a figure again reuses its training
@on_device
def train_balancing_methods(methods: Sequence[str] = METHODS, seeds: Sequence[int] = (0, 1, 2),
                            config: BalancingToyConfig = BalancingToyConfig(), *,
                            dtype: torch.dtype = torch.float64,
                            device: Union[str, torch.device] = "cpu") -> BalancingExperiment:
    """Every balancing method of Pezeshki (thesis) §8.3 on the linear toy of its §8.4 (Ch. 8 Fig. 1), all seeds of
    one method trained as one batched model.

    Seed s draws its training, validation and test sets and its training seed exactly as
    :func:`dynamics.spurious.balancing_toy_runs` does (one ``numpy.random.SeedSequence(s)`` spawning a data stream
    and a training stream); every method of a seed sees the same data. A member's initialisation, subsample and
    epoch orders are drawn with the calls of :func:`dynamics.spurious.train_balancing_toy`, so each member follows
    that numpy reference trainer to float round-off. The model is f(x) = wᵀ(γ ⊙ x), no bias, BCE-with-logits,
    torch ``SGD`` (g ← ∇ + λw; v ← g on the first step, else v ← μv + g; w ← w − ηv). ERM, SUBY, SUBG and JTT
    reshuffle their index set each epoch; RWY, RWG and gDRO draw N indices with replacement from the balanced
    sampling weights (gDRO from the group-balanced ones, as the authors' code); JTT trains ERM for ``jtt_epochs``,
    records the error set in the next pass, re-initialises and trains on the duplicated set; gDRO takes the online
    step of :func:`dynamics.spurious.gdro_update` on each minibatch.

    Parameters
    ----------
    methods : sequence of str
        Distinct names from ``("erm", "suby", "subg", "rwy", "rwg", "jtt", "gdro")`` (default: all seven).
    seeds : sequence of int
        1 to 1024 distinct seeds >= 0, one data set and one run per seed.
    config : BalancingToyConfig
        The toy's size and the training settings (default: this project's CPU size, n = 400, d = 600, lr 1e-5,
        momentum 0.9, batch 100, 500 epochs; :meth:`dynamics.spurious.BalancingToyConfig.source` is the authors'
        code's, n = 1000, d = 1200, batch 250). Here n must lie in [8, 100000], d in [0, 100000], the learning rate in
        (0, 10], the weight decay in [0, 100], the batch size in [1, n], the epochs in [1, 100000], T and λ_up in
        [1, 10000], gDRO's step size in (0, 100], and the gDRO sampler must be "group".
    dtype : torch.float64 or torch.float32
        Precision of the training (float64 by default).
    %(device)s

    Returns
    -------
    BalancingExperiment

    Examples
    --------
    >>> config = BalancingToyConfig(n_samples=40, n_noise=6, n_epochs=20, learning_rate=1e-3, batch_size=10)
    >>> result = train_balancing_methods(("erm", "subg"), (0, 1), config, device="cpu")
    >>> result.test_group_acc.shape
    (2, 2, 20, 4)
    >>> result.test_group_acc[:, :, -1].min(axis=-1).tolist()     # final test worst-group accuracy
    [[0.0, 0.0], [1.0, 1.0]]
    """
    if isinstance(methods, (str, bytes)) or not hasattr(methods, "__iter__"):
        raise TypeError(f"methods must be a sequence of method names, got {methods!r}")
    methods = tuple(require_choice("methods", m, METHODS) for m in methods)
    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__iter__"):
        raise TypeError(f"seeds must be a sequence of integers, got {seeds!r}")
    seeds = tuple(require_integer("seeds", s, 0) for s in seeds)
    for name, values, high in (("methods", methods, len(METHODS)), ("seeds", seeds, 1024)):
        if not 1 <= len(values) <= high or len(set(values)) != len(values):
            raise ValueError(f"{name} must hold 1 to {high} distinct values, got {list(values)}")
    require_of_type("config", config, BalancingToyConfig)
    n = require_integer("n_samples", config.n_samples, 8, 100_000)
    if n % 2:
        raise ValueError(f"n_samples must be even (n/2 samples per class), got {n}")
    d = require_integer("n_noise", config.n_noise, 0, 100_000)
    if len(seeds) * n * (d + 2) > MAX_MEMBERS_ELEMENTS:
        raise ValueError(f"len(seeds) * n_samples * (n_noise + 2) must be at most {MAX_MEMBERS_ELEMENTS}, got "
                         f"{len(seeds) * n * (d + 2)}: train fewer seeds per call")
    settings = dict(
        learning_rate=require_in_range("learning_rate", config.learning_rate, 0.0, 10.0, low_open=True),
        momentum=require_in_range("momentum", config.momentum, 0.0, 1.0, high_open=True),
        weight_decay=require_in_range("weight_decay", config.weight_decay, 0.0, 100.0),
        batch_size=require_integer("batch_size", config.batch_size, 1, n),
        jtt_epochs=require_integer("jtt_epochs", config.jtt_epochs, 1, 10_000),
        jtt_upweight=require_integer("jtt_upweight", config.jtt_upweight, 1, 10_000),
        gdro_step_size=require_in_range("gdro_step_size", config.gdro_step_size, 0.0, 100.0, low_open=True))
    require_choice("gdro_sampler", config.gdro_sampler, ("group",))  # the batched trainer has no reshuffled gDRO
    n_epochs = require_integer("n_epochs", config.n_epochs, 1, 100_000)
    if "jtt" in methods and n_epochs <= settings["jtt_epochs"] + 1:
        raise ValueError(f"n_epochs must exceed jtt_epochs + 1 = {settings['jtt_epochs'] + 1} for JTT, got {n_epochs}")
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be torch.float32 or torch.float64, got {dtype!r}")
    scales = toy_feature_scales(d, config.gammas)
    splits, train_seeds = _seed_data(n, d, seeds)
    results = [_train_method(m, splits, train_seeds, scales, n_epochs, settings, dtype, device) for m in methods]
    stack = lambda get: np.stack([get(r) for r in results])
    train_acc, val_acc, test_acc = (stack(lambda r, k=k: r.acc[k]) for k in ("train", "val", "test"))
    val_accuracy = stack(lambda r: r.val_accuracy)
    later_argmax = lambda a: a.shape[-1] - np.argmax(a[..., ::-1], axis=-1)  # 1-based, the later epoch on ties
    selected = later_argmax(val_acc.min(axis=-1))
    average_selected = later_argmax(val_accuracy)
    at = lambda acc, epoch: np.take_along_axis(acc.min(axis=-1), epoch[..., None] - 1, axis=-1)[..., 0]
    return BalancingExperiment(
        methods, seeds, np.arange(1, n_epochs + 1), train_acc, val_acc, test_acc, val_accuracy, selected,
        average_selected, at(test_acc, selected), at(test_acc, average_selected), at(train_acc, selected),
        stack(lambda r: to_numpy(r.best_w[0]).astype(np.float64)), stack(lambda r: to_numpy(r.w).astype(np.float64)),
        scales, tuple(splits))


def _seed_data(n, d, seeds):
    """Each seed's data sets and training seed: one ``SeedSequence(seed)`` spawning a data and a training stream."""
    splits, train_seeds = [], []
    for seed in seeds:
        streams = seed_streams(seed, BALANCING_TOY_SEED_STREAMS)
        splits.append(make_balancing_toy_splits(n, d, seed=streams.data))
        train_seeds.append(int(streams.train.integers(2**63)))
    return tuple(splits), train_seeds


@fill_doc
def balancing_toy_splits(config: BalancingToyConfig, seeds: Sequence[int]) -> Tuple[ToySplits, ...]:
    """The training, validation and test sets that :func:`train_balancing_methods` draws for ``seeds`` under
    ``config``: what an experiment stored without its data (a reproduction record) needs back for the heat maps of
    :func:`decision_maps`.

    Parameters
    ----------
    config : BalancingToyConfig
        Only ``n_samples`` and ``n_noise`` matter.
    %(seeds)s

    Returns
    -------
    tuple of ToySplits
        One per seed, equal to ``train_balancing_methods(methods, seeds, config).splits``.

    Examples
    --------
    >>> config = BalancingToyConfig(n_samples=40, n_noise=6, n_epochs=3, batch_size=10)
    >>> trained = train_balancing_methods(("erm",), (0, 1), config, device="cpu")
    >>> again = balancing_toy_splits(config, (0, 1))
    >>> all(np.array_equal(a.train.x, b.train.x) for a, b in zip(trained.splits, again))
    True
    """
    require_of_type("config", config, BalancingToyConfig)
    n = require_integer("n_samples", config.n_samples, 8, 100_000)
    d = require_integer("n_noise", config.n_noise, 0, 100_000)
    return _seed_data(n, d, [require_integer("seeds[i]", seed, 0, 2**63 - 1) for seed in seeds])[0]


def decision_maps(experiment: BalancingExperiment, method: str, *, weights: str = "selected",
                  noise: str = "nearest", spurious_range: Tuple[float, float] = (-8.0, 8.0), core_range: Tuple[float, float] = (-2.0, 2.0),
                  n_points: Tuple[int, int] = (80, 40)) -> DecisionMaps:
    """The decision heat maps of Pezeshki (thesis) Ch. 8 Fig. 1, one per seed of ``experiment``.

    On a grid of the (γ_spu x_spu, γ_core x_core) plane (the thesis's axes [−8, 8] × [−2, 2]), the colour is
    sigmoid(wᵀx̃), where x̃ is the grid point together with the noise vector of the training sample nearest to it in
    that plane: the map shows the rule on the two features, shifted near each training sample by the noise
    weights' vote for it (for a memorised minority sample, an island of its label). With ``noise="none"`` the map
    is the rule on the two features alone, the rule that classifies the toy's noise-free test set.

    Parameters
    ----------
    experiment : BalancingExperiment
        From :func:`dynamics.spurious.torch_balancing.train_balancing_methods`.
    method : str
        One of ``experiment.methods``.
    weights : {"selected", "final"}
        The model at the worst-group-selected epoch (the thesis's figure) or after the last epoch.
    noise : {"nearest", "none"}
        x̃ carries the noise of the nearest training sample (the thesis's figure) or none (the test-time rule).
    spurious_range, core_range : pair of float
        The grid's extent along γ_spu x_spu and γ_core x_core (low < high, within ±1000).
    n_points : pair of int
        Grid points (nx, ny), each in [2, 1000].

    Returns
    -------
    DecisionMaps

    Examples
    --------
    >>> config = BalancingToyConfig(n_samples=40, n_noise=6, n_epochs=20, learning_rate=1e-3, batch_size=10)
    >>> result = train_balancing_methods(("erm", "subg"), (0,), config, device="cpu")
    >>> maps = decision_maps(result, "subg", n_points=(20, 10))
    >>> maps.probabilities.shape
    (1, 10, 20)
    >>> [float(decision_maps(result, m, noise="none", n_points=(20, 10)).core_rule_agreement[0]) for m in
    ...  ("erm", "subg")]    # the noise-free rule: SUBG's follows the core feature, ERM's the spurious one
    [0.56, 0.92]
    """
    if not hasattr(experiment, "selected_weights") or not hasattr(experiment, "splits"):
        raise TypeError(f"experiment must be a BalancingExperiment, got {type(experiment).__name__}")
    method = require_choice("method", method, tuple(experiment.methods))
    require_choice("weights", weights, ("selected", "final"))
    require_choice("noise", noise, ("nearest", "none"))
    grids = []
    for name, (low, high), count in (("spurious_range", spurious_range, n_points[0]),
                                     ("core_range", core_range, n_points[1])):
        low = require_in_range(f"{name}[0]", low, -1000.0, 1000.0)
        high = require_in_range(f"{name}[1]", high, low, 1000.0, low_open=True)
        grids.append(np.linspace(low, high, require_integer("n_points", count, 2, 1000)))
    spurious, core = grids
    m = experiment.methods.index(method)
    W = (experiment.selected_weights if weights == "selected" else experiment.final_weights)[m]
    scales = np.asarray(experiment.feature_scales)
    X, Y = np.meshgrid(spurious, core)
    points = np.column_stack([X.ravel(), Y.ravel()])
    if noise == "nearest" and len(experiment.splits) != len(experiment.seeds):
        raise ValueError(f"noise='nearest' needs the training set of each of the {len(experiment.seeds)} seeds; "
                         f"experiment.splits holds {len(experiment.splits)} (restore them with "
                         f"experiment._replace(splits=balancing_toy_splits(config, experiment.seeds)))")
    probabilities = np.empty((len(experiment.seeds),) + X.shape)
    agreement = np.empty(len(experiment.seeds))
    for s in range(len(experiment.seeds)):
        logits = points @ W[s, :2]
        if noise == "nearest":
            scaled = experiment.splits[s].train.x * scales
            nearest = np.concatenate([  # in chunks of points, to bound the memory of the distance table
                np.argmin(((chunk[:, None, :] - scaled[None, :, :2]) ** 2).sum(axis=-1), axis=1)
                for chunk in np.array_split(points, max(1, len(points) * len(scaled) // 2**22 + 1))])
            logits = logits + scaled[nearest, 2:] @ W[s, 2:]
        probabilities[s] = (0.5 * (1.0 + np.tanh(0.5 * logits))).reshape(X.shape)  # sigmoid without overflow
        agreement[s] = float(np.mean((logits > 0) == (points[:, 1] > 0)))
    return DecisionMaps(spurious, core, probabilities, agreement)
