"""Barsbey et al. 2025 (large learning rates vs spurious correlations) on a moon-star-like image task (Fig. 15 and
Table 1, Moon-Star row; after the data set of Geirhos et al. 2020): a low against a high constant SGD learning rate,
each over seeds, trained as one stacked model (optional: imports torch).

* :func:`dynamics.spurious.torch_moon_star.moon_star_lr_runs`: FCN image_size² → width → … → 2 (ReLU, no bias,
  PyTorch's default uniform initialisation) on :func:`dynamics.spurious.make_moon_star_like` images (training BC
  rate ρ_train, unbiased test set), plain SGD to 100% training accuracy or the epoch cap; per run the unbiased, BA
  and BC test accuracies, the epochs to fit and the mean class-selectivity index of the penultimate layer.

The paper gives no image size and no rendering for its moon-star data set, so the task here is this project's own
("moon-star-like", see :mod:`dynamics.spurious._moon_star`); the effect it tests is the direction only: a larger
learning rate gives a higher unbiased test accuracy.

Batching: every (learning rate, seed) member has the same shapes, so all train as one stacked model (``bmm`` over
stacked weights, the hand-written backward pass of :mod:`dynamics.numerics.torch_batched`), the learning rate a
per-member tensor of :class:`dynamics.numerics.torch_batched.MemberOptimizer`. A member leaves the stack at the end of
its first epoch with 100% training accuracy, or at the cap. Members with the same seed share the training and test
images, the initial weights and the minibatch order, so that the learning rates are compared on paired runs; a
member's path does not depend on the other members (the tests check the batch against each member alone).
"""
import math
from typing import Sequence, Union

import numpy as np
import torch

from dynamics.numerics import (disk_cache, require_choice, require_in_range, require_integer, require_of_type,
                               require_positive, seed_streams)
from dynamics.numerics.threads import one_thread
from dynamics.numerics.torch_batched import (MemberOptimizer, relu_mlp, relu_mlp_cross_entropy_gradients,
                                              stacked_uniform_weights)
from dynamics.numerics.torch_tools import DTYPE, as_tensor, to_numpy, torch_device
from . import _metrics as metrics
from ._moon_star import MOON_STAR_SEED_STREAMS, make_moon_star_like
from ._results import MoonStarConfig, MoonStarRuns
from ._docs import fill_doc

__all__ = ["MoonStarConfig", "MoonStarRuns", "moon_star_lr_runs"]

_DTYPES = {"float32": torch.float32, "float64": torch.float64}
_MAX = dict(learning_rates=16, seeds=256, n=100_000, width=4096, depth=8, batch_size=10_000, epoch_cap=100_000)


def _settings(config):
    """The experiment's settings from ``config``, checked (a ValueError names the bad field)."""
    require_of_type("config", config, MoonStarConfig)
    image_size = require_integer("image_size", config.image_size, 8, 128)
    if image_size % 2:
        raise ValueError(f"image_size must be even (four equal quadrants), got {image_size}")
    return dict(n_train=require_integer("n_train", config.n_train, 2, _MAX["n"]),
                n_test=require_integer("n_test", config.n_test, 2, _MAX["n"]), image_size=image_size,
                bc_rate=require_in_range("bc_rate", config.bc_rate, 0.0, 1.0),
                width=require_integer("width", config.width, 1, _MAX["width"]),
                depth=require_integer("depth", config.depth, 1, _MAX["depth"]),
                batch_size=require_integer("batch_size", config.batch_size, 1, _MAX["batch_size"]),
                epoch_cap=require_integer("epoch_cap", config.epoch_cap, 1, _MAX["epoch_cap"]),
                dtype=_DTYPES[require_choice("dtype", config.dtype, tuple(_DTYPES))])


def _load(streams, n_train, n_test, image_size, bc_rate, dtype, device):
    """Training and test images of every seed, stacked: x (S, n, image_size²), y and b (S, n)."""
    parts = []
    for st in streams:
        train = make_moon_star_like(n_train, bc_rate, image_size, seed=st.train_data)
        test = make_moon_star_like(n_test, 0.5, image_size, seed=st.test_data)
        parts.append((train, test))
    stack = lambda get, dt: as_tensor(np.stack([get(p) for p in parts]), device, dt)  # noqa: E731
    return dict(x_train=stack(lambda p: p[0].x, dtype), y_train=stack(lambda p: p[0].y, torch.long),
                b_train=stack(lambda p: p[0].b, torch.long), x_test=stack(lambda p: p[1].x, dtype),
                y_test=stack(lambda p: p[1].y, torch.long), b_test=stack(lambda p: p[1].b, torch.long))


def _fits(weights, x, y, seed_rows, eval_order, chunk=2000):
    """Whether each member (its data: seed ``seed_rows[m]``) classifies every training image correctly, evaluated
    chunk by chunk in its seed's ``eval_order`` and decided for a member at its first error."""
    undecided = torch.ones(seed_rows.shape[0], dtype=torch.bool, device=seed_rows.device)
    fits = torch.ones_like(undecided)
    for start in range(0, eval_order.shape[1], chunk):
        rows = torch.nonzero(undecided)[:, 0]
        if rows.numel() == 0:
            break
        s = seed_rows[rows]
        idx = eval_order[s, start:start + chunk]
        logits, _ = relu_mlp([W[rows] for W in weights], x[s[:, None], idx])
        wrong = (logits.argmax(dim=-1) != y[s[:, None], idx]).any(dim=1)
        fits[rows[wrong]] = False
        undecided[rows[wrong]] = False
    return to_numpy(fits)


def _train_members(lrs, seed_index, seeds, n_train, n_test, image_size, bc_rate, width, depth, batch_size, epoch_cap,
                   dtype, device):
    """Train one member per entry of ``lrs`` (learning rate) and ``seed_index`` (its seed, an index into ``seeds``)
    as one stacked model; return the per-member results as a dict of arrays (M,)."""
    streams = [seed_streams(s, MOON_STAR_SEED_STREAMS) for s in seeds]
    data = _load(streams, n_train, n_test, image_size, bc_rate, dtype, device)
    sizes = [image_size * image_size] + [width] * depth + [2]
    seed_of = torch.as_tensor(seed_index, device=device)
    # one draw per seed, shared by its members (every learning rate starts from the same weights)
    weights = [W[seed_of].clone() for W in stacked_uniform_weights([st.init for st in streams], sizes, dtype=dtype,
                                                                    device=device)]
    optimizer = MemberOptimizer(weights, lrs)  # plain SGD, one learning rate per member
    M = len(lrs)
    members = list(range(M))  # the members still training, in stack order
    snapshots = [None] * M
    epochs = np.full(M, epoch_cap, dtype=np.int64)
    fitted = np.zeros(M, dtype=bool)
    n_batches = math.ceil(n_train / batch_size)
    x_train, y_train = data["x_train"], data["y_train"]
    # bias-conflicting images first: they are the last to be fitted, so most epochs are decided by the first chunk
    eval_order = torch.argsort((data["y_train"] == data["b_train"]).to(torch.int8), dim=1, stable=True)
    for epoch in range(epoch_cap):
        # every seed draws its permutation every epoch, so that a member's order does not depend on the others
        orders = torch.as_tensor(np.stack([st.order.permutation(n_train) for st in streams]), device=device)
        rows = seed_of[members]
        order = orders[rows]
        for j in range(n_batches):
            idx = order[:, j * batch_size:(j + 1) * batch_size]
            _, grads = relu_mlp_cross_entropy_gradients(weights, x_train[rows[:, None], idx],
                                                        y_train[rows[:, None], idx])
            optimizer.step(grads)
        all_correct = _fits(weights, x_train, y_train, rows, eval_order)
        keep = []
        for position, m in enumerate(members):
            if all_correct[position] or epoch == epoch_cap - 1:
                fitted[m] = bool(all_correct[position])
                epochs[m] = epoch + 1
                snapshots[m] = [W[position:position + 1].clone() for W in weights]
            else:
                keep.append(position)
        if not keep:
            break
        if len(keep) < len(members):
            weights = optimizer.keep(torch.as_tensor(keep, device=device))
            members = [members[p] for p in keep]
    out = {name: np.empty(M) for name in ("unbiased_accuracy", "ba_accuracy", "bc_accuracy", "train_accuracy",
                                          "class_selectivity")}
    with torch.no_grad():
        for m in range(M):
            s = int(seed_index[m])
            logits, hiddens = relu_mlp(snapshots[m], data["x_test"][s:s + 1])
            y, b = to_numpy(data["y_test"][s]), to_numpy(data["b_test"][s])
            correct = to_numpy(logits[0].argmax(dim=-1)) == y
            aligned = y == b
            out["unbiased_accuracy"][m] = correct.mean()
            out["ba_accuracy"][m] = correct[aligned].mean() if aligned.any() else np.nan
            out["bc_accuracy"][m] = correct[~aligned].mean() if (~aligned).any() else np.nan
            out["class_selectivity"][m] = metrics.mean_class_selectivity(to_numpy(hiddens[-1][0].to(DTYPE)), y)
            train_logits, _ = relu_mlp(snapshots[m], x_train[s:s + 1])
            out["train_accuracy"][m] = float((train_logits[0].argmax(dim=-1) == y_train[s]).to(DTYPE).mean())
    out["epochs_to_fit"], out["fitted"] = epochs, fitted
    return out


@fill_doc
@disk_cache(salt=torch.__version__)  # a figure or a claim drawn again reuses the training
def moon_star_lr_runs(config: MoonStarConfig, seeds: Sequence[int], *,
                      learning_rates: Sequence[float] = (0.01, 0.75), device: Union[str, torch.device] = "cpu",
                      batched: bool = True) -> MoonStarRuns:
    """A low against a high constant SGD learning rate on a moon-star-like image task (Barsbey et al. 2025, Fig. 15
    and Table 1, Moon-Star row; the data set of Geirhos et al. 2020, rebuilt here): every (learning rate, seed) run,
    trained as one stacked model.

    Data: :func:`dynamics.spurious.make_moon_star_like`, training set at BC rate ``config.bc_rate`` (0.1), test set
    unbiased (0.5). Model: FCN image_size² → width → … → 2, ReLU, no bias, PyTorch's default U(±1/√fan_in)
    initialisation (:func:`dynamics.numerics.torch_batched.stacked_uniform_weights`). Loss: the minibatch's mean
    cross-entropy; update: plain SGD θ ← θ − η∇, batches of ``config.batch_size`` in a fresh permutation every epoch
    (the last batch may be smaller). A run stops at the end of its first epoch with 100% training accuracy, or at
    ``config.epoch_cap``. At the stop: the unbiased, BA and BC test accuracies, the training accuracy and the mean
    CSI of the penultimate layer on the test set.

    Parameters
    ----------
    config : MoonStarConfig
        The data, the network, the batch, the cap and the precision (:meth:`dynamics.spurious.MoonStarConfig.ci`: the
        CPU size of the claim; :meth:`dynamics.spurious.MoonStarConfig.record`: the record's size). A field out of its
        range raises a ValueError that names it.
    seeds : sequence of int
        Seeds (>= 0, at most 256). A seed fixes the training and test images, the initialisation and the minibatch
        order (:data:`dynamics.spurious.MOON_STAR_SEED_STREAMS`), shared by all learning rates.
    learning_rates : sequence of float
        η > 0, at most 16 values; default (0.01, 0.75), the ends of the paper's range.
    %(device)s
    batched : bool
        True: every (learning rate, seed) member trains in one stacked model; False: each alone, one after the other
        (the same results up to float round-off; the tests compare the two).

    Returns
    -------
    MoonStarRuns

    Examples
    --------
    >>> config = MoonStarConfig(n_train=200, n_test=100, image_size=8, width=16, epoch_cap=3)
    >>> runs = moon_star_lr_runs(config, [0, 1])
    >>> runs.learning_rates.tolist(), runs.unbiased_accuracy.shape, runs.epochs_to_fit.dtype
    ([0.01, 0.75], (2, 2), dtype('int64'))
    >>> bool(np.all((runs.epochs_to_fit <= 3) & (runs.epochs_to_fit >= 1)))
    True
    """
    settings = _settings(config)
    lrs = np.array([require_positive("learning_rates", lr) for lr in learning_rates], dtype=np.float64)
    seeds = tuple(require_integer("seeds", s, 0) for s in seeds)
    if not 1 <= lrs.size <= _MAX["learning_rates"]:
        raise ValueError(f"learning_rates must hold 1 to {_MAX['learning_rates']} values, got {lrs.size}")
    if not 1 <= len(seeds) <= _MAX["seeds"]:
        raise ValueError(f"seeds must hold 1 to {_MAX['seeds']} values, got {len(seeds)}")
    L, S = lrs.size, len(seeds)
    dev = torch_device(device)
    with one_thread(numba=False):
        if batched:
            parts = [((slice(None), slice(None)),
                      _train_members(np.repeat(lrs, S), np.tile(np.arange(S), L), seeds, device=dev, **settings))]
        else:
            parts = [((c, s), _train_members(lrs[c:c + 1], np.zeros(1, dtype=np.int64), seeds[s:s + 1], device=dev,
                                             **settings)) for c in range(L) for s in range(S)]
    fields = {}
    for name in ("unbiased_accuracy", "ba_accuracy", "bc_accuracy", "train_accuracy", "epochs_to_fit", "fitted",
                 "class_selectivity"):
        first = parts[0][1][name]
        array = np.empty((L, S), dtype=first.dtype)
        for where, part in parts:
            array[where] = part[name].reshape(L, S) if batched else part[name][0]
        fields[name] = array
    return MoonStarRuns(lrs, seeds, **fields)
