"""Torch simulations of the spurious-correlation theory, used by the cross-checks in
``verify/crosscheck/spurious.py`` and by the figures. Optional: ``dynamics.spurious`` does not import it.

* :func:`dynamics.spurious.torch_training.gradient_identity`: per-sample autograd gradient norms of CE(k·f) and
  of the margin m for a float64 MLP 10→32→32→2, whole parameter vector and per block (the exact identity
  ‖∇ℓ‖ = kσ(−km)‖∇m‖ behind Barsbey et al. 2025, Prop. 2, Eqs. 10–11; derived in this project).
* :func:`dynamics.spurious.torch_training.spurious_rule_logits`: the logits of a float64 parity network early in
  training, on a subset of training samples that it predicts by the spurious rule, with torch's cross-entropy
  sums at several k (Proposition 1 of Barsbey et al. 2025 on real logits).
* :func:`dynamics.spurious.torch_training.train_parity_mlp` and
  :func:`dynamics.spurious.torch_training.parity_lr_sweep` (Barsbey et al. 2025, Fig. 3, Table 1 parity row,
  Fig. 12): the parity task, FCN 20→200→200→2 (ReLU, no bias, PyTorch-default uniform init), plain SGD, batch
  100, trained to 100% training accuracy (cap 800 epochs), float32; every run records the metrics of
  ``ParityRun``, among them those of the paper's mechanism figures: accuracy against the pruned fraction (Figs.
  20-21), the attribution share on the core bits beside the CSI (Fig. 26), each penultimate neuron's bias
  selectivity every ``SELECTIVITY_EVERY`` steps (Fig. 28, bottom) and loss, accuracy and BSI on a plane of
  filter-normalised directions around the final weights (Fig. 9; Li et al. 2018).
  All seeds of one learning rate train as one batched model (stacked weights, ``bmm``, manual backpropagation),
  each member leaving the stack at its own stopping epoch: on CUDA this fills the GPU, on CPU it saves the
  per-step overhead.
* :func:`dynamics.spurious.torch_training.replay_balancing_toy` (the linear toy of Pezeshki (thesis) §8.4):
  torch ``SGD(momentum, weight_decay)`` in float64 on the linear toy, replaying the index orders and
  initialisation of :func:`dynamics.spurious.train_balancing_toy`.

Every function takes ``device`` as a keyword (default ``"cpu"``) and returns named results. Each runs under
:func:`dynamics.numerics.one_thread` (one torch, BLAS and numba thread, restored afterwards): the tensors are small and
thread hand-offs cost more than the arithmetic.
"""
import math
from typing import Optional, Sequence, Union

import numpy as np
import torch
import torch.nn.functional as F

from dynamics.numerics import (require_choice, require_in_range, require_integer, require_of_type, require_positive,
                               rng_from, seed_streams)
from dynamics.numerics.cache import disk_cache
from dynamics.numerics.threads import one_thread
from dynamics.numerics.torch_batched import (MemberOptimizer, relu_mlp, relu_mlp_cross_entropy_gradients,
                                              stacked_uniform_weights)
from dynamics.numerics.torch_tools import DTYPE, as_tensor, to_numpy, torch_device
from . import _metrics as metrics
from ._results import (PARITY_METRICS, BalancingToyConfig, GradientIdentity, NetworkLogits, ParityData, ParityRun,
                       ParitySweep, ParitySweepConfig, ParityTaskConfig, SpuriousData, SpuriousRuleLogitsConfig, ToyRun,
                       TorchToyRun)
from ._setups import PARITY_SEED_STREAMS, make_parity_task
from .torch_experiments import _group_shares, integrated_gradients
from ._toy_training import METHODS, N_GROUPS, toy_feature_scales
from ._docs import fill_doc

__all__ = ["GradientIdentity", "NetworkLogits", "PARITY_METRICS", "ParityRun", "ParitySweep", "ParitySweepConfig",
           "SpuriousRuleLogitsConfig", "TorchToyRun", "gradient_identity", "parity_lr_sweep", "replay_balancing_toy",
           "spurious_rule_logits", "train_parity_mlp"]

_DTYPES = {"float32": torch.float32, "float64": torch.float64}


# -------------------------------------------------------------------------------------- gradient identity
@fill_doc
def gradient_identity(logit_scales: Sequence[float] = (0.5, 1.0, 5.0, 20.0), *, n_samples: int = 16,
                      seed: Optional[Union[int, np.random.Generator]] = None,
                      device: Union[str, torch.device] = "cpu") -> GradientIdentity:
    """Autograd gradient norms of CE(k·f) and of the margin for a random float64 MLP 10→32→32→2 (the identity
    ‖∇ℓ‖ = kσ(−km)‖∇m‖ behind Barsbey et al. 2025, Prop. 2; derived in this project).

    Parameters
    ----------
    logit_scales : sequence of float
        Values of k > 0.
    n_samples : int
        Random inputs N(0, I₁₀) with random labels.
    %(seed)s
    %(device)s

    Returns
    -------
    GradientIdentity

    Examples
    --------
    >>> from dynamics.spurious import scaled_ce_grad_norm
    >>> g = gradient_identity((1.0, 20.0), n_samples=4, seed=0, device="cpu")
    >>> predicted = scaled_ce_grad_norm(g.logit_scales[:, None, None], g.margins[None, :, None], g.margin_grad_norms)
    >>> bool(np.allclose(g.loss_grad_norms, predicted, rtol=1e-10))
    True
    """
    scales = np.array([require_positive("logit_scales", k) for k in logit_scales])
    n_samples = require_integer("n_samples", n_samples, 1)
    rng = rng_from(seed)
    dev = torch_device(device)
    with one_thread(numba=False):
        torch.manual_seed(int(rng.integers(2**31)))
        net = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32),
                                  torch.nn.ReLU(), torch.nn.Linear(32, 2)).to(dtype=DTYPE, device=dev)
        params = list(net.parameters())
        first = params[:2]
        x = as_tensor(rng.standard_normal((n_samples, 10)), dev)
        y = as_tensor(rng.integers(0, 2, n_samples), dev, torch.long)

        def norms(scalar):
            grads = torch.autograd.grad(scalar, params)
            squares = [float((g ** 2).sum()) for g in grads]
            head = sum(squares[:len(first)])
            return math.sqrt(sum(squares)), math.sqrt(head), math.sqrt(sum(squares[len(first):]))

        margins = np.empty(n_samples)
        margin_norms = np.empty((n_samples, 3))
        loss_norms = np.empty((scales.size, n_samples, 3))
        for i in range(n_samples):
            f = net(x[i:i + 1])[0]
            m = f[y[i]] - f[1 - y[i]]
            margins[i] = m.detach().item()
            margin_norms[i] = norms(m)
            for j, k in enumerate(scales):
                loss = F.cross_entropy(k * net(x[i:i + 1]), y[i:i + 1])
                loss_norms[j, i] = norms(loss)
    return GradientIdentity(scales, margins, loss_norms, margin_norms)


# --------------------------------------------------------------------------------------------- parity MLP
def _load_parity(streams, n_train, n_test, n_core, n_spurious, n_noise, bc_rate, n_activation_inputs, dtype, dev):
    xs, ys, bs, xt, yt, bt, subsets = [], [], [], [], [], [], []
    for st in streams:
        train = make_parity_task(n_train, n_core, n_spurious, n_noise, bc_rate, seed=st.train_data)
        test = make_parity_task(n_test, n_core, n_spurious, n_noise, 0.5, seed=st.test_data)
        xs.append(train.x), ys.append(train.y), bs.append(train.b)
        xt.append(test.x), yt.append(test.y), bt.append(test.b)
        subsets.append(st.subset.choice(n_test, size=min(n_activation_inputs, n_test), replace=False))
    as_t = lambda a, dt: as_tensor(np.array(a), dev, dt)
    return ParityData(as_t(xs, dtype), as_t(ys, torch.long), as_t(bs, torch.long), as_t(xt, dtype),
                       as_t(yt, torch.long), as_t(bt, torch.long), np.array(subsets))


def _accuracy(logits, labels):
    return (logits.argmax(dim=-1) == labels).to(DTYPE).mean(dim=-1)


#: SGD steps between two records of each penultimate neuron's bias selectivity over training (Fig. 28, bottom).
SELECTIVITY_EVERY = 20
#: The grid of the loss landscapes (Fig. 9): coordinates along each of the two filter-normalised directions.
LANDSCAPE_COORDINATES = tuple(np.round(np.linspace(-1.0, 1.0, 9), 12))
#: The random stream of the landscape directions, after the parity streams (which it leaves unchanged).
_LANDSCAPE_STREAMS = PARITY_SEED_STREAMS + ("landscape",)


def _selectivities(weights, x, bias_labels):
    """Per member (rows of the stacked ``weights``), the BSI of every penultimate neuron on inputs ``x`` (M, n, d)
    with bias labels ``bias_labels`` (one array per member): a list of (width,) arrays."""
    with torch.no_grad():
        hidden = to_numpy(relu_mlp(weights, x)[1][-1].to(DTYPE))
    return [metrics.class_selectivity(h, b) for h, b in zip(hidden, bias_labels)]


def _filter_normalised(W, rng):
    """A Gaussian direction shaped like W (out, in) whose rows (each neuron's incoming weights, a "filter") have the
    norms of W's rows (Li et al. 2018, filter normalisation): a dead row gets a zero direction."""
    d = torch.as_tensor(rng.standard_normal(tuple(W.shape)), dtype=W.dtype, device=W.device)
    return d * (W.norm(dim=1, keepdim=True) / d.norm(dim=1, keepdim=True))


def _landscape(Ws, data, member, rng, subset_x, subset_b, chunk=9):
    """Training cross-entropy, unbiased test accuracy and mean BSI of the penultimate layer (on the activation
    subset) at θ + a·d₁ + b·d₂ over the grid of ``LANDSCAPE_COORDINATES`` (Barsbey et al. 2025, Fig. 9; the
    filter-normalised plane of Li et al. 2018): an array (3, P, P) indexed [quantity, a, b]."""
    d1, d2 = ([_filter_normalised(W[0], rng) for W in Ws] for _ in range(2))
    grid = np.array(LANDSCAPE_COORDINATES)
    coords = np.stack(np.meshgrid(grid, grid, indexing="ij"), axis=-1).reshape(-1, 2)
    out = np.empty((3, coords.shape[0]))
    x_train, y_train = data.x_train[member], data.y_train[member]
    x_test, y_test = data.x_test[member], data.y_test[member]
    for rows in np.array_split(np.arange(coords.shape[0]), max(1, coords.shape[0] // chunk)):
        a = torch.as_tensor(coords[rows, 0], dtype=Ws[0].dtype, device=Ws[0].device)[:, None, None]
        b = torch.as_tensor(coords[rows, 1], dtype=Ws[0].dtype, device=Ws[0].device)[:, None, None]
        moved = [W[0][None] + a * u[None] + b * v[None] for W, u, v in zip(Ws, d1, d2)]
        n = len(rows)
        with torch.no_grad():
            z = relu_mlp(moved, x_train[None].expand(n, -1, -1))[0].to(DTYPE)
            loss = -torch.log_softmax(z, -1).gather(-1, y_train[None, :, None].expand(n, -1, 1))[..., 0].mean(1)
            accuracy = _accuracy(relu_mlp(moved, x_test[None].expand(n, -1, -1))[0], y_test[None])
        out[0, rows], out[1, rows] = to_numpy(loss), to_numpy(accuracy)
        out[2, rows] = [float(np.mean(h)) for h in _selectivities(moved, subset_x[None].expand(n, -1, -1),
                                                                    [subset_b] * n)]
    return out.reshape(3, grid.size, grid.size)


def _parity_metrics(weights, data, member, lr, seed, fitted, epochs, shares, selectivity, rng, n_core, n_spurious):
    """Every recorded quantity of one member (index ``member`` of the stacked weights); ``selectivity`` is its list
    of per-neuron BSI arrays over training, ``rng`` its landscape stream."""
    Ws = [W[member:member + 1] for W in weights]
    with torch.no_grad():
        logits, hiddens = relu_mlp(Ws, data.x_test[member:member + 1])
        train_logits, _ = relu_mlp(Ws, data.x_train[member:member + 1])
    logits, train_logits = logits[0], train_logits[0]
    y = to_numpy(data.y_test[member])
    b = to_numpy(data.b_test[member])
    pred = to_numpy(logits.argmax(dim=-1))
    correct = pred == y
    aligned = y == b
    full = float(correct.mean())
    penultimate = to_numpy(hiddens[-1][0].to(DTYPE))
    subset = penultimate[data.test_subset[member]]
    nonzero = subset[np.any(subset != 0, axis=1)]
    z = train_logits.to(DTYPE)
    node, magnitude = [], []
    mats = [to_numpy(W[0].to(DTYPE)) for W in Ws]
    for kappa in metrics.PRUNE_FRACTIONS:
        keep = metrics.neuron_pruning_masks(mats, kappa, "incoming_l2")
        pruned = [W.clone() for W in Ws]
        for layer, mask in enumerate(keep):
            m = torch.as_tensor(mask, dtype=Ws[0].dtype, device=Ws[0].device)
            pruned[layer] = pruned[layer] * m[None, :, None]  # a pruned unit outputs 0 (ReLU(0) = 0)
        node.append(float(_accuracy(relu_mlp(pruned, data.x_test[member:member + 1])[0][0], data.y_test[member])))
        masks = metrics.magnitude_pruning_masks(mats, kappa)
        pruned = [W * torch.as_tensor(mk, dtype=W.dtype, device=W.device)[None] for W, mk in zip(Ws, masks)]
        magnitude.append(float(_accuracy(relu_mlp(pruned, data.x_test[member:member + 1])[0][0],
                                         data.y_test[member])))
    chance = 0.5
    corrected = lambda accs: (metrics.prunability(accs, full, chance=chance) if full > chance else float("nan"))
    index = torch.as_tensor(data.test_subset[member], device=data.x_test.device)
    subset_x, subset_b = data.x_test[member, index], b[data.test_subset[member]]
    shares_ig = to_numpy(_group_shares(integrated_gradients(Ws, subset_x[None]), n_core, n_spurious)[0].to(DTYPE))
    trace = np.array(selectivity + _selectivities(Ws, subset_x[None], [subset_b]))  # (records, width)
    top = int(np.argmax(trace.max(axis=0)))
    history = np.array(shares, dtype=np.float64).reshape(len(shares), -1) if shares else np.zeros((0, 0))
    return ParityRun(
        learning_rate=float(lr), seed=int(seed), fitted=bool(fitted), epochs_to_fit=int(epochs),
        unbiased_accuracy=full, ba_accuracy=float(correct[aligned].mean()), bc_accuracy=float(correct[~aligned].mean()),
        activation_sparsity=float(np.mean(metrics.sparsity(subset))),
        activation_compressibility=float(np.mean(metrics.compressibility(subset, 2.0, 0.1))),
        activation_pq_index=float(np.mean(metrics.pq_index(nonzero, 1.0, 2.0))) if len(nonzero) else float("nan"),
        class_separation=metrics.class_separation_r2(penultimate, y, on_zero="drop"),
        class_selectivity=metrics.mean_class_selectivity(penultimate, y),
        bias_selectivity=metrics.mean_class_selectivity(penultimate, b),
        max_bc_loss_share=float(history.max()) if history.size else float("nan"),
        mean_logit_gap=float((z[:, 1] - z[:, 0]).abs().mean()),
        node_prunability=metrics.prunability(node, full), magnitude_prunability=metrics.prunability(magnitude, full),
        node_prunability_chance=corrected(node), magnitude_prunability_chance=corrected(magnitude),
        bc_share_history=history, node_pruned_accuracy=np.array(node), magnitude_pruned_accuracy=np.array(magnitude),
        core_attribution_share=float(shares_ig[0]), spurious_attribution_share=float(shares_ig[1]),
        bias_selectivity_history=trace.mean(axis=1), top_neuron_bias_selectivity=trace[:, top],
        bias_selectivity_drawdown=float(np.mean(metrics.max_drawdown(trace, axis=0))),
        landscape=_landscape(Ws, data, member, rng, subset_x, subset_b))


def _fits_training_set(weights, data, members, eval_order, chunk=1000):
    """Whether each member classifies every training sample correctly (exactly: 100% training accuracy), evaluated
    chunk by chunk in ``eval_order`` and stopped for a member at its first error."""
    undecided = torch.ones(members.shape[0], dtype=torch.bool, device=members.device)
    fits = torch.ones_like(undecided)
    n = eval_order.shape[1]
    for start in range(0, n, chunk):
        rows = torch.nonzero(undecided)[:, 0]
        if rows.numel() == 0:
            break
        m = members[rows]
        idx = eval_order[m, start:start + chunk]
        logits, _ = relu_mlp([W[rows] for W in weights], data.x_train[m[:, None], idx])
        wrong = (logits.argmax(dim=-1) != data.y_train[m[:, None], idx]).any(dim=1)
        fits[rows[wrong]] = False
        undecided[rows[wrong]] = False
    return to_numpy(fits)


@disk_cache(salt=torch.__version__)
def _train_parity_members(learning_rate, seeds, *, n_train, n_test, n_core, n_spurious, n_noise, bc_rate, width,
                          depth, batch_size, epoch_cap, n_activation_inputs, dtype, device):
    """Train len(seeds) independent networks as one stacked model; each stops (and leaves the stack) at the end of
    its first epoch with 100% training accuracy, or at the cap. Cached on disk by its arguments (and the package's
    source), so that claims, figures and test workers in other processes reuse the runs."""
    S = len(seeds)
    streams = [seed_streams(s, _LANDSCAPE_STREAMS) for s in seeds]
    data = _load_parity(streams, n_train, n_test, n_core, n_spurious, n_noise, bc_rate, n_activation_inputs, dtype,
                        device)
    dim = data.x_train.shape[-1]
    sizes = [dim] + [width] * depth + [2]
    weights = stacked_uniform_weights([st.init for st in streams], sizes, dtype=dtype, device=device)
    optimizer = MemberOptimizer(weights, learning_rate)  # plain SGD
    snapshots = [None] * S
    epochs_to_fit = [epoch_cap] * S
    fitted = [False] * S
    histories = [[] for _ in range(S)]
    selectivity = [[] for _ in range(S)]
    subset = torch.as_tensor(data.test_subset, device=device)
    subset_x = data.x_test[torch.arange(S, device=device)[:, None], subset]  # (S, n_activation_inputs, dim)
    subset_b = [to_numpy(data.b_test[s])[data.test_subset[s]] for s in range(S)]
    step = 0
    n_batches = math.ceil(n_train / batch_size)
    bc_train = data.y_train != data.b_train
    active = list(range(S))  # members still training, in stack order
    # BC samples first: they are the last to be fitted, so most epochs are decided by the first chunk
    eval_order = torch.argsort((~bc_train).to(torch.int8), dim=1, stable=True)
    for epoch in range(epoch_cap):
        members = torch.as_tensor(active, device=device)[:, None]
        order = torch.as_tensor(np.stack([streams[s].order.permutation(n_train) for s in active]), device=device)
        losses_epoch = torch.zeros(len(active), n_batches, batch_size, dtype=dtype, device=device)
        bc_epoch = torch.zeros(len(active), n_batches, batch_size, dtype=torch.bool, device=device)
        for j in range(n_batches):
            if step % SELECTIVITY_EVERY == 0:
                for s, value in zip(active, _selectivities(weights, subset_x[members[:, 0]],
                                                           [subset_b[s] for s in active])):
                    selectivity[s].append(value)
            step += 1
            idx = order[:, j * batch_size:(j + 1) * batch_size]
            losses, grads = relu_mlp_cross_entropy_gradients(weights, data.x_train[members, idx],
                                                             data.y_train[members, idx])
            optimizer.step(grads)
            losses_epoch[:, j, :idx.shape[1]] = losses
            bc_epoch[:, j, :idx.shape[1]] = bc_train[members, idx]
        shares = metrics.bc_loss_share(to_numpy(losses_epoch.to(DTYPE)), to_numpy(bc_epoch))
        all_correct = _fits_training_set(weights, data, members[:, 0], eval_order)
        keep = []
        for position, s in enumerate(active):
            histories[s].append(shares[position])
            if all_correct[position] or epoch == epoch_cap - 1:
                fitted[s] = bool(all_correct[position])
                epochs_to_fit[s] = epoch + 1
                snapshots[s] = [W[position:position + 1].clone() for W in weights]
            else:
                keep.append(position)
        if not keep:
            break
        if len(keep) < len(active):
            rows = torch.as_tensor(keep, device=device)
            weights = optimizer.keep(rows)
            active = [active[p] for p in keep]
    stacked = [torch.cat([snap[layer] for snap in snapshots]) for layer in range(len(weights))]
    return [_parity_metrics(stacked, data, s, learning_rate, seeds[s], fitted[s], epochs_to_fit[s], histories[s],
                            selectivity[s], streams[s].landscape, n_core, n_spurious) for s in range(S)]


_PARITY_MEMO = {}


def _parity_settings(config):
    """The sweep's settings from ``config``, checked (a ValueError names the bad field)."""
    require_of_type("config", config, ParitySweepConfig)
    require_of_type("config.task", config.task, ParityTaskConfig)
    n_train, n_test, n_core, n_spurious, n_noise, bc_rate = config.task
    width, depth, batch_size, epoch_cap = config.width, config.depth, config.batch_size, config.epoch_cap
    n_activation_inputs = config.n_activation_inputs
    dtype = _DTYPES[require_choice("dtype", config.dtype, tuple(_DTYPES))]
    return dict(n_train=require_integer("n_train", n_train, 1), n_test=require_integer("n_test", n_test, 1),
                n_core=require_integer("n_core", n_core, 1), n_spurious=require_integer("n_spurious", n_spurious, 1),
                n_noise=require_integer("n_noise", n_noise, 0), bc_rate=require_in_range("bc_rate", bc_rate, 0.0, 1.0),
                width=require_integer("width", width, 1), depth=require_integer("depth", depth, 1),
                batch_size=require_integer("batch_size", batch_size, 1),
                epoch_cap=require_integer("epoch_cap", epoch_cap, 1),
                n_activation_inputs=require_integer("n_activation_inputs", n_activation_inputs, 1), dtype=dtype)


@fill_doc
def train_parity_mlp(learning_rate: float, seed: int, config: ParitySweepConfig = ParitySweepConfig(), *,
                     device: Union[str, torch.device] = "cpu") -> ParityRun:
    """One run of the parity learning-rate experiment (Barsbey et al. 2025, Fig. 3 and Table 1, parity row): train
    to 100% training accuracy with constant-LR SGD and record the metrics.

    Parameters
    ----------
    learning_rate : float
        Constant SGD step size η > 0.
    seed : int
        Drives the training and test data, the initialisation, the shuffling and the 1000-input metric subset
        (independent streams); runs with the same seed and different η share all of them.
    config : ParitySweepConfig
        The data (``config.task``: training set at ρ = ``bc_rate``, unbiased test set at ρ = 0.5), the network
        (width, depth), the batch size, the epoch cap, the activation inputs and the precision (default: the
        paper's sizes, 10000 samples each, width 200, batch 100, with this project's cap of 800 epochs and
        float32).
    %(device)s

    Returns
    -------
    ParityRun

    Examples
    --------
    >>> from dynamics.spurious import ParitySweepConfig, ParityTaskConfig
    >>> config = ParitySweepConfig(task=ParityTaskConfig(n_train=200, n_test=200), width=16, epoch_cap=3,
    ...                            n_activation_inputs=50)
    >>> run = train_parity_mlp(0.5, 0, config)
    >>> run.epochs_to_fit <= 3, run.bc_share_history.shape[1], bool(0.0 <= run.unbiased_accuracy <= 1.0)
    (True, 2, True)
    """
    return parity_lr_sweep([learning_rate], [seed], config, device=device).runs[0][0]


@fill_doc
def parity_lr_sweep(learning_rates: Sequence[float], seeds: Sequence[int],
                    config: ParitySweepConfig = ParitySweepConfig(), *, device: Union[str, torch.device] = "cpu",
                    batched: Optional[bool] = None) -> ParitySweep:
    """The parity learning-rate sweep (Barsbey et al. 2025, Fig. 3 and Table 1, parity row): every (η, seed) run.

    Runs are memoised in this process by their settings and device, so that the claims and the figures share
    them. With ``batched`` (the default) all seeds of one η train as one stacked model (``bmm`` over stacked
    weights, manual backpropagation); a member leaves the stack at its own stopping epoch.

    Parameters
    ----------
    learning_rates : sequence of float
        The η grid (each > 0).
    seeds : sequence of int
        Run seeds (see :func:`dynamics.spurious.torch_training.train_parity_mlp`).
    config : ParitySweepConfig
        The data, network, batch size, epoch cap, activation inputs and precision of every run (default: the
        paper's sizes; see :func:`dynamics.spurious.torch_training.train_parity_mlp`).
    %(device)s
    batched : bool, optional
        Train the seeds of one η together as one stacked model (default True; False trains each run alone).

    Returns
    -------
    ParitySweep

    Examples
    --------
    >>> from dynamics.spurious import ParitySweepConfig, ParityTaskConfig
    >>> config = ParitySweepConfig(task=ParityTaskConfig(n_train=200, n_test=200), width=16, epoch_cap=3,
    ...                            n_activation_inputs=50)
    >>> sweep = parity_lr_sweep([0.1, 0.5], [0, 1], config)
    >>> sweep.metric("epochs_to_fit").shape
    (2, 2)
    """
    lrs = tuple(require_positive("learning_rates", lr) for lr in learning_rates)
    seeds = tuple(require_integer("seeds", s, 0) for s in seeds)
    if not lrs or not seeds:
        raise ValueError("learning_rates and seeds must each hold at least one value")
    settings = _parity_settings(config)
    dev = torch_device(device)
    batched = True if batched is None else bool(batched)
    key_settings = tuple(sorted((k, str(v)) for k, v in settings.items())) + (str(dev), batched)
    rows = []
    with one_thread(numba=False):
        for lr in lrs:
            missing = [s for s in seeds if (lr, s, key_settings) not in _PARITY_MEMO]
            groups = [missing] if batched else [[s] for s in missing]
            for group in groups:
                if group:
                    for run in _train_parity_members(lr, group, device=dev, **settings):
                        _PARITY_MEMO[(lr, run.seed, key_settings)] = run
            rows.append(tuple(_PARITY_MEMO[(lr, s, key_settings)] for s in seeds))
    return ParitySweep(lrs, seeds, tuple(rows))


# ----------------------------------------------------------------------------------------- network logits
@fill_doc
def spurious_rule_logits(logit_scales: Sequence[float] = (1.0, 2.0, 5.0, 10.0, 20.0),
                         config: SpuriousRuleLogitsConfig = SpuriousRuleLogitsConfig(), *,
                         seed: Optional[Union[int, np.random.Generator]] = None,
                         device: Union[str, torch.device] = "cpu") -> NetworkLogits:
    """Train the parity network of :func:`dynamics.spurious.torch_training.train_parity_mlp` in float64 until it
    predicts by the spurious rule, then read its logits (Proposition 1 of Barsbey et al. 2025 on real logits).

    Plain SGD on minibatches of 100 drawn independently at each step. At the first evaluation (every
    ``config.eval_every`` steps) where the training accuracy on BA samples is at least
    ``config.min_aligned_accuracy`` and at least ``config.n_aligned`` BA and ``config.n_conflicting`` BC training
    samples are predicted as their bias label b, the first such samples (in index order) form the subset.

    Parameters
    ----------
    logit_scales : sequence of float
        k values for the torch cross-entropy sums.
    config : SpuriousRuleLogitsConfig
        The learning rate, the subset sizes, the evaluation rule, the step cap and the training-set size (default:
        the cross-check's, lr 0.1, 100 BA and 10 BC samples, 10000 training samples).
    seed : None, int or numpy.random.Generator
        Drives the data, the initialisation and the minibatches.
    %(device)s

    Returns
    -------
    NetworkLogits

    Examples
    --------
    >>> from dynamics.spurious import SpuriousRuleLogitsConfig, bc_ba_loss_ratio_from_logits
    >>> config = SpuriousRuleLogitsConfig(n_aligned=50, n_conflicting=5, n_train=2000)
    >>> net = spurious_rule_logits((1.0, 5.0), config, seed=0, device="cpu")
    >>> ours = bc_ba_loss_ratio_from_logits(net.logit_scales, net.logits, net.labels, net.bias_labels)
    >>> bool(np.allclose(ours, net.bc_loss_sums / net.ba_loss_sums, rtol=1e-10))
    True
    """
    scales = np.array([require_positive("logit_scales", k) for k in logit_scales])
    require_of_type("config", config, SpuriousRuleLogitsConfig)
    learning_rate = require_positive("learning_rate", config.learning_rate)
    n_aligned = require_integer("n_aligned", config.n_aligned, 1)
    n_conflicting = require_integer("n_conflicting", config.n_conflicting, 1)
    min_aligned_accuracy = require_in_range("min_aligned_accuracy", config.min_aligned_accuracy, 0.0, 1.0)
    eval_every = require_integer("eval_every", config.eval_every, 1)
    max_steps = require_integer("max_steps", config.max_steps, 1)
    n_train = require_integer("n_train", config.n_train, 100)
    rng = rng_from(seed)
    data = make_parity_task(n_train, seed=rng)
    dtype = DTYPE
    dev = torch_device(device)
    with one_thread(numba=False):
        x = as_tensor(data.x, dev, dtype)[None]
        y = as_tensor(data.y, dev, torch.long)
        b = as_tensor(data.b, dev, torch.long)
        sizes = [x.shape[-1], 200, 200, 2]
        weights = [W.requires_grad_(True) for W in stacked_uniform_weights([rng], sizes, dtype=dtype, device=dev)]
        aligned = to_numpy(y == b)
        for step in range(1, max_steps + 1):
            idx = torch.as_tensor(rng.choice(n_train, 100, replace=False), device=dev)
            logits, _ = relu_mlp(weights, x[:, idx])
            loss = F.cross_entropy(logits[0], y[idx])
            grads = torch.autograd.grad(loss, weights)
            with torch.no_grad():
                for W, g in zip(weights, grads):
                    W -= learning_rate * g
            if step % eval_every:
                continue
            with torch.no_grad():
                f = relu_mlp(weights, x)[0][0]
            f_np = to_numpy(f)
            predicts_b = (f_np.argmax(axis=1) == data.b) & (f_np[:, 0] != f_np[:, 1])
            ba_ok, bc_ok = np.flatnonzero(predicts_b & aligned), np.flatnonzero(predicts_b & ~aligned)
            if (predicts_b[aligned].mean() >= min_aligned_accuracy and ba_ok.size >= n_aligned
                    and bc_ok.size >= n_conflicting):
                chosen = np.concatenate([ba_ok[:n_aligned], bc_ok[:n_conflicting]])
                sub = f[torch.as_tensor(chosen, device=dev)]
                ys = y[torch.as_tensor(chosen, device=dev)]
                bc_mask = torch.as_tensor(~aligned[chosen], device=dev)
                bc_sums, ba_sums = [], []
                for k in scales:
                    ce = F.cross_entropy(k * sub, ys, reduction="none")
                    bc_sums.append(float(ce[bc_mask].sum()))
                    ba_sums.append(float(ce[~bc_mask].sum()))
                return NetworkLogits(to_numpy(sub), data.y[chosen], data.b[chosen], step, scales,
                                     np.array(bc_sums), np.array(ba_sums))
    raise RuntimeError(f"the parity network did not reach the spurious rule within {max_steps} steps")


# --------------------------------------------------------------------------------------------- toy replay
def _group_acc_torch(x, y, g, w):
    pred = (x @ w > 0).long()
    correct = (pred == y).to(DTYPE)
    totals = torch.bincount(g, minlength=N_GROUPS).to(DTYPE)
    return to_numpy(torch.bincount(g, weights=correct, minlength=N_GROUPS) / totals)


@fill_doc
def replay_balancing_toy(train: SpuriousData, val: SpuriousData, test: SpuriousData, run: ToyRun, method: str,
                         config: BalancingToyConfig = BalancingToyConfig(), *,
                         device: Union[str, torch.device] = "cpu") -> TorchToyRun:
    """Replay a :func:`dynamics.spurious.train_balancing_toy` run with torch ``SGD`` in float64 (the linear toy of
    Pezeshki (thesis) §8.4).

    The model is the authors' ``ToyNet`` (``Linear(x * γ)``, no bias) started from ``run.init``; every epoch takes the
    index order ``run.orders[e]`` in consecutive batches; JTT re-initialises to ``run.jtt_init`` with a fresh
    optimiser after its error-recording pass; gDRO takes the online step on every batch (q from all ones).

    Parameters
    ----------
    train, val, test : SpuriousData
    run : ToyRun
        A numpy run made with ``return_orders=True`` and ``config``.
    method : str
        The run's method.
    config : BalancingToyConfig
        The run's settings (the replay reads the learning rate, momentum, weight decay, batch size, γ, JTT's T and
        gDRO's step size; the epochs and JTT's duplicates come with ``run.orders``, the sizes with the data).
    %(device)s

    Returns
    -------
    TorchToyRun

    Examples
    --------
    >>> from dynamics.spurious import BalancingToyConfig, make_balancing_toy_splits, train_balancing_toy
    >>> splits = make_balancing_toy_splits(40, 6, seed=0)
    >>> config = BalancingToyConfig(n_epochs=5, batch_size=10)
    >>> run = train_balancing_toy(*splits, "rwg", config, seed=0, return_orders=True)
    >>> replay = replay_balancing_toy(*splits, run, "rwg", config, device="cpu")
    >>> bool(np.abs(replay.weights - run.weights).max() <= 1e-12 * np.abs(run.weights).max())
    True
    """
    require_choice("method", method, METHODS)
    require_of_type("config", config, BalancingToyConfig)
    learning_rate, momentum, weight_decay = config.learning_rate, config.momentum, config.weight_decay
    batch_size, jtt_epochs, gdro_step_size = config.batch_size, config.jtt_epochs, config.gdro_step_size
    if not isinstance(run, ToyRun) or run.orders is None:
        raise ValueError("run must be a ToyRun made with return_orders=True")
    for name, data in (("train", train), ("val", val), ("test", test)):
        if not isinstance(data, SpuriousData):
            raise TypeError(f"{name} must be a SpuriousData")
    n_features = train.x.shape[1]
    scales = toy_feature_scales(n_features - 2, config.gammas)
    dtype = DTYPE
    dev = torch_device(device)
    with one_thread(numba=False):
        t = lambda a, dt=dtype: as_tensor(a, dev, dt)
        gam = t(scales)
        x_train = t(train.x) * gam  # ToyNet's x * γ, taken once: the same products in the same order
        y_train = t(train.y)
        g_train = t(train.group, torch.long)
        evals = []
        for d in (val, test):
            cols = np.flatnonzero(np.any(np.asarray(d.x) != 0, axis=0))  # zero columns add exactly 0
            evals.append((t(np.asarray(d.x)[:, cols]) * gam[cols], torch.as_tensor(cols, device=dev),
                          t(d.y, torch.long), t(d.group, torch.long)))
        layer = torch.nn.Linear(n_features, 1, bias=False).to(dtype=dtype, device=dev)

        def fresh(init):
            with torch.no_grad():
                layer.weight.copy_(t(init)[None])
            return torch.optim.SGD(layer.parameters(), lr=learning_rate, momentum=momentum, weight_decay=weight_decay)

        optimiser = fresh(run.init)
        log_q = torch.zeros(N_GROUPS, dtype=dtype, device=dev)
        n_epochs = len(run.orders)
        accs = np.zeros((2, n_epochs, N_GROUPS))
        for epoch, order in enumerate(run.orders):
            if method == "jtt" and epoch == jtt_epochs + 1:
                optimiser = fresh(run.jtt_init)
            idx_all = torch.as_tensor(order, device=dev)
            for start in range(0, len(order), batch_size):
                idx = idx_all[start:start + batch_size]
                logits = layer(x_train[idx]).squeeze(-1)
                losses = F.binary_cross_entropy_with_logits(logits, y_train[idx], reduction="none")
                if method == "gdro":
                    g = g_train[idx]
                    counts = torch.bincount(g, minlength=N_GROUPS).to(dtype)
                    group_loss = torch.bincount(g, weights=losses.detach(), minlength=N_GROUPS) / counts.clamp(min=1)
                    with torch.no_grad():
                        log_q += gdro_step_size * torch.where(counts > 0, group_loss, torch.zeros_like(group_loss))
                        log_q -= torch.logsumexp(log_q, 0)
                    per_sample = torch.exp(log_q)[g] / counts[g]
                    loss = (per_sample * losses).sum()
                else:
                    loss = losses.mean()
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
            with torch.no_grad():
                w = layer.weight[0]
                for j, (xe, cols, ye, ge) in enumerate(evals):
                    accs[j, epoch] = _group_acc_torch(xe, ye, ge, w[cols])
        return TorchToyRun(to_numpy(layer.weight[0]), accs[0], accs[1])
