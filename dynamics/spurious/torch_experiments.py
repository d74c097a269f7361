"""Barsbey et al. 2025 (large learning rates vs spurious correlations) in miniature on the parity task: torch trainers
for the paper's experiments beyond the learning-rate sweep of :mod:`dynamics.spurious.torch_training`.

* :func:`dynamics.spurious.torch_experiments.parity_training_runs`: the batched trainer behind all of them, a grid of
  configurations (learning rate, optimiser, momentum, L1, L2, focal γ, annealing) × seeds trained as one stacked
  bias-free ReLU network, recording over training the share of input attribution on the core, spurious and noise
  bits (Fig. 3, right) and the per-minibatch BC loss share (Fig. 13), and at the stop the group accuracies.
* :func:`dynamics.spurious.torch_experiments.lr_attribution_runs`: a low against a high learning rate, both
  histories (Fig. 3 right, Fig. 13).
* :func:`dynamics.spurious.torch_experiments.lr_robustness_runs`: the learning-rate effect under annealing (×0.1
  after a fixed step, Fig. 22), under Adam (Fig. 23) and trained on to a mean training cross-entropy below 1e-5
  (Fig. 24).
* :func:`dynamics.spurious.torch_experiments.intervention_runs`: other interventions at the low learning rate
  (momentum, L1, L2, focal loss, a smaller batch) against the high learning rate with and without L2 (Figs. 6 and
  19, Table 2).
* :func:`dynamics.spurious.torch_experiments.width_lr_sweep`: the spread of unbiased accuracy over learning rates
  at several hidden widths (the paper's over-parameterisation remark, §5, Table 1).

The set-up is reduced from the paper's parity experiment (10000/10000 samples, width 200, batch 100; this project
caps it at 800 epochs) so that one configuration trains in seconds on one CPU core; each function states its
defaults.

Batching: every member (configuration, seed) of one call has the same shapes, so the members train as one stacked
model (``bmm`` over stacked weights; the sum of the members' losses gives each member its own exact gradient) with a
hand-written update whose per-member hyper-parameters are tensors broadcast over the leading axis. A member stops
(its update is masked to zero) at the end of its first epoch that meets the stopping rule. Members with the same
seed share the training and test data, the initialisation and the shuffling, so that differences between
configurations are paired.

Integrated gradients: for a bias-free ReLU network f(αx) = αf(x) (positive homogeneity), so with the all-zero
baseline IG_i(x) = x_i ∂f/∂x_i(x) exactly (gradient × input); this module uses that closed form for the margin
f = z₁ − z₀ (the tests check it against a Riemann sum of the integral).
"""
import math
from typing import Sequence, Union

import numpy as np
import torch

from dynamics.numerics import (disk_cache, require_choice, require_in_range, require_integer, require_of_type,
                               require_positive, seed_streams)
from dynamics.numerics.threads import one_thread
from dynamics.numerics.torch_batched import MemberOptimizer, relu_mlp, stacked_uniform_weights
from dynamics.numerics.torch_tools import DTYPE, as_tensor, to_numpy, torch_device
from ._results import (InterventionConfig, InterventionRuns, LearningRateRobustness, ParityTaskConfig,
                       ParityTrainingConfig, ParityTrainingRuns, WidthSweep)
from ._setups import PARITY_SEED_STREAMS, make_parity_task
from ._docs import fill_doc

__all__ = ["FEATURE_GROUPS", "INTERVENTIONS", "InterventionConfig", "InterventionRuns", "LearningRateRobustness",
           "ParityTaskConfig", "ParityTrainingConfig", "ParityTrainingRuns", "WidthSweep", "integrated_gradients",
           "intervention_runs", "lr_attribution_runs", "lr_robustness_runs", "parity_training_runs", "width_lr_sweep"]

_DTYPES = {"float32": torch.float32, "float64": torch.float64}

#: The configurations of :func:`dynamics.spurious.torch_experiments.intervention_runs`, in its order.
INTERVENTIONS = ("low lr", "momentum", "l1", "l2", "focal", "small batch", "high lr", "high lr + l2")

#: The input groups of the attribution shares, in the order of the last axis.
FEATURE_GROUPS = ("core", "spurious", "noise")

_MAX = dict(configs=64, seeds=256, width=4096, depth=8, n_train=100_000, n_test=100_000, epoch_cap=100_000,
            batch_size=10_000, bits=64)


# ------------------------------------------------------------------------------------------------ helpers
def integrated_gradients(weights: Sequence[torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """Integrated gradients of the margin z₁ − z₀ of a stacked bias-free ReLU MLP, zero baseline.

    The network is positively homogeneous (f(αx) = αf(x) for α > 0), so ∂f/∂x(αx) = ∂f/∂x(x) and
    IG_i(x) = x_i ∫₀¹ ∂f/∂x_i(αx) dα = x_i ∂f/∂x_i(x) exactly (Σ_i IG_i = f(x), completeness).

    Parameters
    ----------
    weights : sequence of torch.Tensor
        Layer weights of shape (M, out, in), the last with out = 2; no biases.
    x : torch.Tensor
        Inputs of shape (M, B, in).

    Returns
    -------
    torch.Tensor
        IG of shape (M, B, in), detached.

    Examples
    --------
    >>> g = torch.Generator().manual_seed(0)
    >>> Ws = [torch.randn(1, 8, 3, generator=g, dtype=torch.float64), torch.randn(1, 2, 8, generator=g,
    ...       dtype=torch.float64)]
    >>> x = torch.randn(1, 5, 3, generator=g, dtype=torch.float64)
    >>> ig = integrated_gradients(Ws, x)
    >>> z, _ = relu_mlp(Ws, x)
    >>> bool(torch.allclose(ig.sum(-1), z[..., 1] - z[..., 0]))
    True
    """
    weights = list(weights)
    if not weights or any(not isinstance(W, torch.Tensor) or W.dim() != 3 for W in weights):
        raise ValueError("weights must be a non-empty sequence of torch tensors of shape (M, out, in), got "
                         f"{[tuple(W.shape) if isinstance(W, torch.Tensor) else type(W).__name__ for W in weights]}")
    if weights[-1].shape[1] != 2:
        raise ValueError(f"weights[-1] must have 2 outputs (shape (M, 2, in)), got shape {tuple(weights[-1].shape)}")
    if not isinstance(x, torch.Tensor) or x.dim() != 3 or x.shape[0] != weights[0].shape[0] \
            or x.shape[2] != weights[0].shape[2]:
        raise ValueError(f"x must be a torch tensor of shape (M, B, in) = ({weights[0].shape[0]}, B, "
                         f"{weights[0].shape[2]}) to match weights[0], got "
                         f"{tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__}")
    with torch.enable_grad():
        xs = x.detach().clone().requires_grad_(True)
        z, _ = relu_mlp([W.detach() for W in weights], xs)
        (grad,) = torch.autograd.grad((z[..., 1] - z[..., 0]).sum(), xs)
    return (xs * grad).detach()


def _group_shares(ig, n_core, n_spurious):
    """Mean over inputs of the per-input share |IG| on core, spurious and noise bits: (M, 3); an input whose
    attribution is all zero is left out of the mean."""
    a = ig.abs()
    total = a.sum(-1)
    parts = [a[..., :n_core].sum(-1), a[..., n_core:n_core + n_spurious].sum(-1), a[..., n_core + n_spurious:].sum(-1)]
    live = (total > 0).to(a.dtype)
    safe = torch.where(total > 0, total, torch.ones_like(total))
    count = live.sum(-1).clamp_min(1)
    return torch.stack([(p / safe * live).sum(-1) / count for p in parts], dim=-1)


def _per_config(name, value, n_configs, low=0.0, high=math.inf):
    """A scalar or one value per configuration, as a float64 array of length n_configs."""
    arr = np.atleast_1d(np.asarray(value, dtype=np.float64))
    if arr.ndim != 1 or arr.size not in (1, n_configs):
        raise ValueError(f"{name} must be a scalar or hold one value per learning rate ({n_configs}), got {value!r}")
    for v in arr:
        require_in_range(name, float(v), low, high)
    return np.broadcast_to(arr, (n_configs,)).copy()


# ------------------------------------------------------------------------------------------------ trainer
@fill_doc
@disk_cache(salt=torch.__version__)  # rendering a figure again reuses its training
def parity_training_runs(learning_rates: Sequence[float], seeds: Sequence[int],
                         config: ParityTrainingConfig = ParityTrainingConfig(), *,
                         device: Union[str, torch.device] = "cpu", batched: bool = True) -> ParityTrainingRuns:
    """Train the parity network for every (configuration, seed) as one stacked model and record attributions and the
    BC loss share over training (Barsbey et al. 2025, Figs. 3, 13, 22-24; the parity set-up of supp. C, reduced).

    Data: :func:`dynamics.spurious.make_parity_task` (training BC rate ``config.task.bc_rate``, test set unbiased,
    ρ = 0.5). Model: FCN d→width→…→2, ReLU, no bias, PyTorch's default U(±1/√fan_in) initialisation. Loss: mean
    focal loss −(1 − p_y)^γ log p_y over the minibatch (γ = 0: cross-entropy) plus l1‖θ‖₁ + (l2/2)‖θ‖². Update: SGD
    with heavy-ball momentum as ``torch.optim.SGD`` (buffer b ← μb + g, θ ← θ − ηb) or Adam (β = (0.9, 0.999),
    ε = 1e-8, bias-corrected, as ``torch.optim.Adam``), the L1/L2 terms entering the gradient. Learning rate η,
    multiplied by ``config.anneal_factor`` from step ``config.anneal_step`` on. Batches of ``config.batch_size`` in a
    fresh permutation every epoch (the last batch may be smaller). After each epoch a member stops if it classifies
    every training sample correctly (``stop="fit"``) or if its mean training cross-entropy is below
    ``config.loss_target`` (``stop="loss"``), or at ``config.epoch_cap``.

    Parameters
    ----------
    learning_rates : sequence of float
        One configuration per value (η > 0, at most 64 configurations).
    seeds : sequence of int
        Seeds (>= 0, at most 256). A seed fixes the data, the initialisation, the shuffling and the attribution
        inputs, shared by all configurations.
    config : ParityTrainingConfig
        The data (``config.task``), the optimiser, the penalties and the focal γ (one value, or one per learning
        rate), the annealing, the stopping rule, the network, the batch size, the epoch cap, the attribution records
        and the precision (default: this project's CPU miniature, 2000 samples each, C = 4, width 50, cap 150
        epochs, float32; :meth:`dynamics.spurious.ParityTrainingConfig.source` is the paper's size). A field out of
        its range raises a ValueError that names it.
    %(device)s
    batched : bool
        Train all members as one stacked model (True) or each member alone (False; the same numbers up to float
        round-off, for tests).

    Returns
    -------
    ParityTrainingRuns
        Attribution shares in the order of ``FEATURE_GROUPS``.

    Examples
    --------
    >>> config = ParityTrainingConfig(task=ParityTaskConfig(n_train=400, n_test=200, n_core=4), width=16,
    ...                               epoch_cap=3, record_every=2, n_attribution_inputs=50)
    >>> runs = parity_training_runs([0.05, 0.5], [0], config)
    >>> runs.attribution_shares.shape[:2], runs.unbiased_accuracy.shape, runs.bc_loss_share.shape[:2]
    ((2, 1), (2, 1), (2, 1))
    >>> bool(np.allclose(runs.final_attribution_shares.sum(-1), 1.0))
    True
    """
    lrs = np.array([require_positive("learning_rates", lr) for lr in learning_rates], dtype=np.float64)
    seeds = tuple(require_integer("seeds", s, 0) for s in seeds)
    if not 1 <= lrs.size <= _MAX["configs"]:
        raise ValueError(f"learning_rates must hold 1 to {_MAX['configs']} values, got {lrs.size}")
    if not 1 <= len(seeds) <= _MAX["seeds"]:
        raise ValueError(f"seeds must hold 1 to {_MAX['seeds']} values, got {len(seeds)}")
    L = lrs.size
    require_of_type("config", config, ParityTrainingConfig)
    require_of_type("config.task", config.task, ParityTaskConfig)
    optimizer = require_choice("optimizer", config.optimizer, ("sgd", "adam"))
    hyper = dict(momentum=_per_config("momentum", config.momentum, L, 0.0, 0.999),
                 l1=_per_config("l1", config.l1, L, 0.0, 10.0), l2=_per_config("l2", config.l2, L, 0.0, 10.0),
                 focal_gamma=_per_config("focal_gamma", config.focal_gamma, L, 0.0, 100.0))
    anneal_step = config.anneal_step
    if anneal_step is not None:
        anneal_step = require_integer("anneal_step", anneal_step, 0, 10**9)
    anneal_factor = require_in_range("anneal_factor", config.anneal_factor, 0.0, 1.0, low_open=True)
    stop = require_choice("stop", config.stop, ("fit", "loss"))
    loss_target = require_in_range("loss_target", config.loss_target, 0.0, 1.0, low_open=True)
    task = config.task
    sizes = dict(n_train=require_integer("n_train", task.n_train, 2, _MAX["n_train"]),
                 n_test=require_integer("n_test", task.n_test, 2, _MAX["n_test"]),
                 n_core=require_integer("n_core", task.n_core, 1, _MAX["bits"]),
                 n_spurious=require_integer("n_spurious", task.n_spurious, 1, _MAX["bits"]),
                 n_noise=require_integer("n_noise", task.n_noise, 0, _MAX["bits"]),
                 bc_rate=require_in_range("bc_rate", task.bc_rate, 0.0, 1.0))
    width = require_integer("width", config.width, 1, _MAX["width"])
    depth = require_integer("depth", config.depth, 1, _MAX["depth"])
    batch_size = require_integer("batch_size", config.batch_size, 1, _MAX["batch_size"])
    epoch_cap = require_integer("epoch_cap", config.epoch_cap, 1, _MAX["epoch_cap"])
    record_every = require_integer("record_every", config.record_every, 1, 10**9)
    n_attr = require_integer("n_attribution_inputs", config.n_attribution_inputs, 1, sizes["n_test"])
    dtype = _DTYPES[require_choice("dtype", config.dtype, tuple(_DTYPES))]
    settings = dict(optimizer=optimizer, anneal_step=anneal_step, anneal_factor=anneal_factor, stop=stop,
                    loss_target=loss_target, width=width, depth=depth, batch_size=batch_size, epoch_cap=epoch_cap,
                    record_every=record_every, n_attr=n_attr, dtype=dtype, device=device, **sizes)
    dev = torch_device(device)
    with one_thread(numba=False):
        settings["device"] = dev
        if batched:
            parts = [_train_stack(lrs, hyper, seeds, **settings)]
            return _merge(parts, lrs, seeds, [(slice(None), slice(None))])
        parts, where = [], []
        for c in range(L):
            for s, seed in enumerate(seeds):
                parts.append(_train_stack(lrs[c:c + 1], {k: v[c:c + 1] for k, v in hyper.items()}, (seed,),
                                          **settings))
                where.append((slice(c, c + 1), slice(s, s + 1)))
        return _merge(parts, lrs, seeds, where)


def _merge(parts, lrs, seeds, where):
    """Assemble runs trained in parts (each a dict of arrays with axes (config, seed, ...)) into one result."""
    L, S = lrs.size, len(seeds)
    first = parts[0]
    out = {}
    for key, value in first.items():
        if key == "record_steps":
            continue
        if key == "bc_loss_share" or key == "attribution_shares":
            length = max(p[key].shape[2] for p in parts)
            shape = (L, S, length) + value.shape[3:]
            arr = np.full(shape, np.nan)
            for p, (c, s) in zip(parts, where):
                v = p[key]
                arr[c, s, :v.shape[2]] = v
                if key == "attribution_shares":  # a stopped member keeps its last values
                    arr[c, s, v.shape[2]:] = v[:, :, -1:]
        else:
            arr = np.empty((L, S) + value.shape[2:], dtype=value.dtype)
            for p, (c, s) in zip(parts, where):
                arr[c, s] = p[key]
        out[key] = arr
    steps = max((p["record_steps"] for p in parts), key=len)
    return ParityTrainingRuns(learning_rates=lrs.copy(), seeds=seeds, record_steps=steps, **out)


def _train_stack(lrs, hyper, seeds, *, optimizer, anneal_step, anneal_factor, stop, loss_target, width, depth,
                 batch_size, epoch_cap, record_every, n_attr, dtype, device, n_train, n_test, n_core, n_spurious,
                 n_noise, bc_rate):
    """Train the members (config c, seed s) in config-major order as one stacked model; arrays (L, S, ...)."""
    L, S = lrs.size, len(seeds)
    M = L * S
    streams = [seed_streams(seed, PARITY_SEED_STREAMS) for seed in seeds]
    xs, ys, bs, xt, yt, bt, xa = [], [], [], [], [], [], []
    for st in streams:
        train = make_parity_task(n_train, n_core, n_spurious, n_noise, bc_rate, seed=st.train_data)
        test = make_parity_task(n_test, n_core, n_spurious, n_noise, 0.5, seed=st.test_data)
        xs.append(train.x), ys.append(train.y), bs.append(train.b)
        xt.append(test.x), yt.append(test.y), bt.append(test.b)
        xa.append(test.x[st.subset.choice(n_test, size=n_attr, replace=False)])
    t = lambda a, dt=dtype: as_tensor(np.array(a), device, dt)
    x_train, y_train, b_train = t(xs), t(ys, torch.long), t(bs, torch.long)
    x_test, y_test, b_test, x_attr = t(xt), t(yt, torch.long), t(bt, torch.long), t(xa)
    bc_train = y_train != b_train
    dim = x_train.shape[-1]
    layer_sizes = [dim] + [width] * depth + [2]
    seed_of = torch.as_tensor([s for c in range(L) for s in range(S)], device=device)
    weights = [W[seed_of] for W in stacked_uniform_weights([st.init for st in streams], layer_sizes, dtype=dtype,
                                                           device=device)]
    member = lambda a: np.repeat(a, S)  # noqa: E731  (config-major: member c·S + s)
    optim = MemberOptimizer(weights, member(lrs), momentum=member(hyper["momentum"]), weight_decay=member(hyper["l2"]),
                            l1=member(hyper["l1"]), adam=optimizer == "adam")
    gamma = as_tensor(np.repeat(hyper["focal_gamma"], S), device, dtype)[:, None]
    active = torch.ones(M, dtype=dtype, device=device)
    epochs_to_stop = np.full(M, epoch_cap)
    stopped = np.zeros(M, dtype=bool)
    n_batches = math.ceil(n_train / batch_size)
    attr_x = x_attr[seed_of]
    records, record_steps, shares = [], [], []
    step = 0

    def record():
        records.append(to_numpy(_group_shares(integrated_gradients(weights, attr_x), n_core, n_spurious).to(DTYPE)))
        record_steps.append(step)

    for epoch in range(epoch_cap):
        order = torch.as_tensor(np.stack([st.order.permutation(n_train) for st in streams]), device=device)[seed_of]
        for j in range(n_batches):
            if step % record_every == 0:
                record()
            idx = order[:, j * batch_size:(j + 1) * batch_size]
            rows = seed_of[:, None]
            xb, yb = x_train[rows, idx], y_train[rows, idx]
            params = [W.detach().requires_grad_(True) for W in weights]
            log_p = torch.log_softmax(relu_mlp(params, xb)[0], dim=-1).gather(-1, yb[..., None])[..., 0]
            ce = -log_p
            focal = ce * (1 - log_p.exp()).clamp_min(0) ** gamma
            grads = torch.autograd.grad(focal.mean(dim=1).sum(), params)
            with torch.no_grad():
                ce_d = ce.detach().to(DTYPE)
                bc = bc_train[rows, idx].to(DTYPE)
                share = (ce_d * bc).sum(1) / ce_d.sum(1)
                share = torch.where(active > 0, share, torch.full_like(share, float("nan")))
                shares.append(to_numpy(share))
            optim.step(grads, active=active > 0,
                       scale=anneal_factor if anneal_step is not None and step >= anneal_step else 1.0)
            step += 1
        with torch.no_grad():
            z = relu_mlp(weights, x_train[seed_of])[0]
            fits = (z.argmax(-1) == y_train[seed_of]).all(dim=1)
            loss = -torch.log_softmax(z.to(DTYPE), -1).gather(-1, y_train[seed_of][..., None])[..., 0].mean(1)
            done = fits if stop == "fit" else loss < loss_target
            newly = to_numpy(done & (active > 0))
            epochs_to_stop[newly] = epoch + 1
            stopped |= newly
            active = torch.where(done, torch.zeros_like(active), active)
        if not bool((active > 0).any()):
            break
    record()
    with torch.no_grad():
        z = relu_mlp(weights, x_test[seed_of])[0]
        correct = (z.argmax(-1) == y_test[seed_of]).to(DTYPE)
        aligned = (y_test == b_test)[seed_of].to(DTYPE)
        ztr = relu_mlp(weights, x_train[seed_of])[0].to(DTYPE)
        train_loss = -torch.log_softmax(ztr, -1).gather(-1, y_train[seed_of][..., None])[..., 0].mean(1)
    shape = lambda a: np.asarray(a).reshape((L, S) + np.asarray(a).shape[1:])
    return dict(record_steps=np.array(record_steps),
                attribution_shares=shape(np.stack(records, axis=1)),
                bc_loss_share=shape(np.stack(shares, axis=1)),
                final_attribution_shares=shape(records[-1]),
                unbiased_accuracy=shape(to_numpy(correct.mean(1))),
                ba_accuracy=shape(to_numpy((correct * aligned).sum(1) / aligned.sum(1))),
                bc_accuracy=shape(to_numpy((correct * (1 - aligned)).sum(1) / (1 - aligned).sum(1))),
                final_train_loss=shape(to_numpy(train_loss)), epochs_to_stop=shape(epochs_to_stop),
                stopped=shape(stopped))


# ------------------------------------------------------------------------------------------------ experiments
@fill_doc
def lr_attribution_runs(seeds: Sequence[int], config: ParityTrainingConfig = ParityTrainingConfig(), *,
                        learning_rates: Sequence[float] = (0.05, 0.75),
                        device: Union[str, torch.device] = "cpu") -> ParityTrainingRuns:
    """A low against a high constant SGD learning rate on the parity task, recording the share of integrated-gradient
    attribution on the core, spurious and noise bits over training (Barsbey et al. 2025, Fig. 3 right) and the
    per-minibatch BC loss share (Fig. 13).

    Reduced from the paper by default: C = 4 core, S = 2 spurious, N = 12 noise bits, 2000 training samples, width
    50, cap 150 epochs, attributions every 20 steps (:class:`dynamics.spurious.ParityTrainingConfig`, trained by
    :func:`dynamics.spurious.torch_experiments.parity_training_runs`). At η = 0.05 the runs stop at the cap, short of
    100% training accuracy; at η = 0.75 they fit.

    Parameters
    ----------
    %(seeds)s
    config : ParityTrainingConfig
        The data and the training protocol (default: this project's CPU miniature).
    learning_rates : sequence of float
        Default (0.05, 0.75), low and high.
    %(device)s

    Returns
    -------
    ParityTrainingRuns

    Examples
    --------
    >>> config = ParityTrainingConfig(task=ParityTaskConfig(n_train=400, n_test=200, n_core=4), width=16,
    ...                               epoch_cap=2, n_attribution_inputs=50)
    >>> runs = lr_attribution_runs([0], config)
    >>> runs.learning_rates.tolist(), runs.final_attribution_shares.shape
    ([0.05, 0.75], (2, 1, 3))
    """
    return parity_training_runs(learning_rates, seeds, config, device=device)


@fill_doc
def lr_robustness_runs(seeds: Sequence[int], config: ParityTrainingConfig = ParityTrainingConfig(), *,
                       variants: Sequence[str] = ("constant", "annealed", "adam", "long"),
                       sgd_learning_rates: Sequence[float] = (0.05, 0.75),
                       adam_learning_rates: Sequence[float] = (1e-3, 1e-2), anneal_step: int = 200,
                       long_epoch_cap: int = 300, device: Union[str, torch.device] = "cpu") -> LearningRateRobustness:
    """The learning-rate effect under other training protocols (Barsbey et al. 2025, Figs. 22-24): each variant trains
    a low and a high learning rate on the same seeds.

    * ``"constant"``: ``config`` as given (by default constant-η SGD to 100% training accuracy or the cap), the
      reference;
    * ``"annealed"``: η × 0.1 from step ``anneal_step`` on (default 200 = 10 epochs of this miniature; the paper:
      after iteration 1000; Fig. 22);
    * ``"adam"``: Adam, β = (0.9, 0.999), at ``adam_learning_rates`` (default 1e-3 and 1e-2, both of which reach
      100% training accuracy; Fig. 23);
    * ``"long"``: SGD trained on until the mean training cross-entropy is below ``config.loss_target`` (default
      1e-5, Fig. 24) or ``long_epoch_cap`` epochs.

    Parameters
    ----------
    %(seeds)s
    config : ParityTrainingConfig
        The data and the training protocol that every variant starts from (default: this project's CPU miniature).
    variants : sequence of str
        A selection of the four above.
    sgd_learning_rates, adam_learning_rates : sequence of float
        (low, high) for SGD and for Adam.
    anneal_step : int
        In [0, 1e9].
    long_epoch_cap : int
        The epoch cap of ``"long"``, in [1, 100000].
    %(device)s

    Returns
    -------
    LearningRateRobustness

    Examples
    --------
    >>> config = ParityTrainingConfig(task=ParityTaskConfig(n_train=400, n_test=200, n_core=4), width=16,
    ...                               epoch_cap=2, n_attribution_inputs=50)
    >>> rob = lr_robustness_runs([0], config, variants=("annealed", "adam"), anneal_step=5)
    >>> rob.variants, rob.runs[1].learning_rates.tolist()
    (('annealed', 'adam'), [0.001, 0.01])
    """
    choices = ("constant", "annealed", "adam", "long")
    variants = tuple(require_choice("variants", v, choices) for v in variants)
    if not variants:
        raise ValueError("variants must name at least one of " + ", ".join(choices))
    anneal_step = require_integer("anneal_step", anneal_step, 0, 10**9)
    long_epoch_cap = require_integer("long_epoch_cap", long_epoch_cap, 1, _MAX["epoch_cap"])
    require_of_type("config", config, ParityTrainingConfig)
    runs, rates = [], []
    for v in variants:
        variant = config
        lrs = sgd_learning_rates
        if v == "annealed":
            variant = config._replace(anneal_step=anneal_step, anneal_factor=0.1)
        elif v == "adam":
            variant = config._replace(optimizer="adam")
            lrs = adam_learning_rates
        elif v == "long":
            variant = config._replace(stop="loss", epoch_cap=long_epoch_cap)
        result = parity_training_runs(lrs, seeds, variant, device=device)
        runs.append(result)
        rates.append(tuple(result.learning_rates.tolist()))
    return LearningRateRobustness(variants, tuple(rates), tuple(runs))


@fill_doc
def width_lr_sweep(seeds: Sequence[int], config: ParityTrainingConfig = ParityTrainingConfig(), *,
                   widths: Sequence[int] = (8, 32, 128), learning_rates: Sequence[float] = (0.05, 0.2, 0.75),
                   device: Union[str, torch.device] = "cpu") -> WidthSweep:
    """The spread of unbiased test accuracy over the learning rates at several hidden widths (Barsbey et al. 2025, §5
    and Table 1: the spread is larger for the larger models). One stacked model per width (all learning rates and
    seeds).

    Parameters
    ----------
    %(seeds)s
    config : ParityTrainingConfig
        The data and the training protocol (default: this project's CPU miniature); its ``width`` is set by
        ``widths``, and no attributions are recorded during training (``record_every`` is not used).
    widths : sequence of int
        Hidden widths, each trained as one stacked model.
    learning_rates : sequence of float
    %(device)s

    Returns
    -------
    WidthSweep

    Examples
    --------
    >>> config = ParityTrainingConfig(task=ParityTaskConfig(n_train=400, n_test=200, n_core=4), epoch_cap=2,
    ...                               n_attribution_inputs=50)
    >>> sweep = width_lr_sweep([0, 1], config, widths=(4, 8), learning_rates=(0.1, 0.5))
    >>> sweep.unbiased_accuracy.shape, sweep.spread.shape, sweep.mean_spread.shape
    ((2, 2, 2), (2, 2), (2,))
    """
    widths = np.array([require_integer("widths", w, 1, _MAX["width"]) for w in widths])
    if not 1 <= widths.size <= 16:
        raise ValueError(f"widths must hold 1 to 16 values, got {widths.size}")
    require_of_type("config", config, ParityTrainingConfig)
    accs, epochs = [], []
    runs = None
    for w in widths:
        # attributions are not needed here: no record before the final one
        runs = parity_training_runs(learning_rates, seeds, config._replace(width=int(w), record_every=10**9),
                                    device=device)
        accs.append(runs.unbiased_accuracy)
        epochs.append(runs.epochs_to_stop)
    acc = np.array(accs)
    return WidthSweep(widths, runs.learning_rates, runs.seeds, acc, np.array(epochs),
                      acc.max(axis=1) - acc.min(axis=1), acc.mean(axis=2).max(axis=1) - acc.mean(axis=2).min(axis=1))


@fill_doc
def intervention_runs(seeds: Sequence[int], config: InterventionConfig = InterventionConfig(), *,
                      names: Sequence[str] = INTERVENTIONS,
                      device: Union[str, torch.device] = "cpu") -> InterventionRuns:
    """Interventions other than the learning rate against the high learning rate (Barsbey et al. 2025, Figs. 6 and
    19, Table 2), one value each, on the parity task: at ``config.low_lr`` plain SGD (``"low lr"``), heavy-ball
    momentum, an L1 penalty, an L2 penalty, focal loss and a smaller batch; at ``config.high_lr`` plain SGD and SGD
    with an L2 penalty. The selected rows with the common batch size (``config.training.batch_size``) train as one
    stacked model, the small batch as a second.

    Parameters
    ----------
    %(seeds)s
    config : InterventionConfig
        The learning rates and the value of each intervention, and the data and training protocol of every row
        (``config.training``; default: this project's CPU miniature).
    names : sequence of str
        The rows to train, a selection of ``INTERVENTIONS`` (kept in that order).
    %(device)s

    Returns
    -------
    InterventionRuns

    Examples
    --------
    >>> training = ParityTrainingConfig(task=ParityTaskConfig(n_train=200, n_test=100, n_core=4), width=8,
    ...                                 epoch_cap=1, n_attribution_inputs=20)
    >>> runs = intervention_runs([0], InterventionConfig(training=training))
    >>> runs.names == INTERVENTIONS, runs.unbiased_accuracy.shape
    (True, (8, 1))
    """
    chosen = {require_choice("names", n, INTERVENTIONS) for n in names}
    if not chosen:
        raise ValueError("names must hold at least one of " + ", ".join(INTERVENTIONS))
    names = tuple(n for n in INTERVENTIONS if n in chosen)
    require_of_type("config", config, InterventionConfig)
    require_of_type("config.training", config.training, ParityTrainingConfig)
    low_lr, high_lr = require_positive("low_lr", config.low_lr), require_positive("high_lr", config.high_lr)
    small_batch = require_integer("small_batch", config.small_batch, 1, _MAX["batch_size"])
    momentum, l1, l2, high_lr_l2, focal_gamma = config.momentum, config.l1, config.l2, config.high_lr_l2, \
        config.focal_gamma
    # the rows set the penalties; only the attributions at the stop are kept (no records during training)
    training = config.training._replace(momentum=0.0, l1=0.0, l2=0.0, focal_gamma=0.0, record_every=10**9)
    batch = training.batch_size
    table = {"low lr": (low_lr, 0.0, 0.0, 0.0, 0.0), "momentum": (low_lr, momentum, 0.0, 0.0, 0.0),
             "l1": (low_lr, 0.0, l1, 0.0, 0.0), "l2": (low_lr, 0.0, 0.0, l2, 0.0),
             "focal": (low_lr, 0.0, 0.0, 0.0, focal_gamma), "high lr": (high_lr, 0.0, 0.0, 0.0, 0.0),
             "high lr + l2": (high_lr, 0.0, 0.0, high_lr_l2, 0.0)}
    stacked = [n for n in names if n != "small batch"]
    results = {}
    if stacked:
        cols = np.array([table[n] for n in stacked]).T
        rows = training._replace(momentum=tuple(cols[1].tolist()), l1=tuple(cols[2].tolist()),
                                 l2=tuple(cols[3].tolist()), focal_gamma=tuple(cols[4].tolist()))
        main = parity_training_runs(cols[0], seeds, rows, device=device)
        for i, n in enumerate(stacked):
            results[n] = (main, i)
    if "small batch" in chosen:
        results["small batch"] = (parity_training_runs([low_lr], seeds, training._replace(batch_size=small_batch),
                                                       device=device), 0)
    pick = lambda get: np.stack([get(results[n][0])[results[n][1]] for n in names])
    return InterventionRuns(
        names, tuple(int(x) for x in seeds), np.array([low_lr if n == "small batch" else table[n][0] for n in names]),
        np.array([small_batch if n == "small batch" else batch for n in names]),
        pick(lambda r: r.unbiased_accuracy), pick(lambda r: r.final_attribution_shares[..., 0]),
        pick(lambda r: r.epochs_to_stop), pick(lambda r: r.stopped))
