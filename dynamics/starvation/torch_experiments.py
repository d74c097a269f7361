"""Three experiments of Pezeshki et al. 2021 reproduced in miniature with torch (optional: needs torch; not imported
by :mod:`dynamics.starvation`; registers nothing). Every trainer computes in float64, takes ``device=`` and trains
all its models (seeds, regularisers, methods) as one batched model: stacked weights multiplied with ``torch.bmm``,
per-member hyper-parameters as tensors along the leading axis, and a hand-written element-wise optimizer (SGD with
heavy-ball momentum as ``torch.optim.SGD``, or Adam as ``torch.optim.Adam``), so that each member follows the path
it would follow alone.

* :func:`~dynamics.starvation.torch_experiments.moons_regularisers`: two moons under common regularisers
  (Pezeshki et al. 2021, Fig 7): weight decay, dropout, batch norm, Adam, depth and longer training leave the
  separable moons' boundary nearly straight; Spectral Decoupling curves it. The curvature is measured by
  :func:`~dynamics.starvation.torch_experiments.boundary_line_distance`.
* :func:`~dynamics.starvation.torch_experiments.coloured_shapes` and
  :func:`~dynamics.starvation.torch_experiments.train_coloured_shapes`: a coloured-shape task in the spirit of
  Colored MNIST (Pezeshki et al. 2021, Table 2, Fig 3): a weakly predictive, hard shape feature and a strongly
  predictive, easy colour feature whose correlation with the label flips at test time; ERM, a plain L2 baseline
  and Spectral Decoupling in its γ-shifted form.
* :func:`~dynamics.starvation.torch_experiments.moons_margins`: per-example margins on the separable two moons,
  with and without Spectral Decoupling (Pezeshki et al. 2021, Fig 2 in spirit): the input-space distance to the
  boundary and the distance along the weak (vertical) and strong (horizontal) directions.

The result types are ``typing.NamedTuple`` classes of ``dynamics/starvation/_results.py``.
"""
import math
from typing import Sequence, Union

import numpy as np
import torch

from dynamics.numerics import (disk_cache, require_in_range, require_integer, require_of_type, require_positive,
                               rng_from, seed_streams)
from dynamics.numerics.torch_batched import MemberOptimizer
from dynamics.numerics.torch_tools import DTYPE, as_tensor, on_device, to_numpy, torch_generator
from ._results import (COLOUR_SHAPE_METHODS, MOONS_REGULARISERS, ColouredShapesConfig, ColourShapeMethod, ColourShapes,
                       ColourShapeTraining, MoonsMargins, MoonsMarginsConfig, MoonsRegularisation, MoonsRegularisersConfig,
                       MoonsRun, Regulariser, TwoMoonsConfig)
from ._setups import boundary_line_distance, boundary_points, coloured_shapes, two_moons
from ._docs import fill_doc

# The result, setting and configuration types and the default settings live in the package (dynamics.starvation,
# its _results module); they are re-exported here.
__all__ = ["COLOUR_SHAPE_METHODS", "ColourShapeMethod", "ColourShapeTraining", "ColourShapes", "ColouredShapesConfig",
           "MOONS_REGULARISERS", "MoonsMargins", "MoonsMarginsConfig", "MoonsRegularisation", "MoonsRegularisersConfig",
           "Regulariser", "moons_margins", "moons_regularisers", "train_coloured_shapes"]

Seed = Union[int, np.random.Generator]


# ---------------------------------------------------------------- a batched MLP with per-member settings
_SEED_STREAMS = ("data", "init", "dropout")
"""The streams of one seed (:func:`dynamics.numerics.seed_streams` of ``rng_from(seed)``): the data, the initial
weights (one keyed child per depth) and the dropout masks (the first seed's, one keyed child per depth and number of
steps, shared by the batched model)."""


def _child(stream, *key):
    """A child of ``stream``'s SeedSequence named by ``key`` (the same key gives the same child, however often it is
    asked for)."""
    sequence = stream.bit_generator.seed_seq
    return np.random.SeedSequence(sequence.entropy, spawn_key=tuple(sequence.spawn_key) + tuple(key))


def _init_layers(widths, rng, xavier):
    """One net's (W (in, out), b (out,)) per layer: torch's default uniform init, or Xavier-uniform with zero biases."""
    layers = []
    for fan_in, fan_out in zip(widths[:-1], widths[1:]):
        if xavier:
            bound = math.sqrt(6.0 / (fan_in + fan_out))
            layers.append((rng.uniform(-bound, bound, (fan_in, fan_out)), np.zeros(fan_out)))
        else:
            bound = 1.0 / math.sqrt(fan_in)
            layers.append((rng.uniform(-bound, bound, (fan_in, fan_out)), rng.uniform(-bound, bound, fan_out)))
    return layers


class _Members:
    """Stacked MLPs (one member per row) with per-member weight decay, dropout, batch norm, optimizer and output
    penalty; trained full batch on per-member data by :meth:`train`."""

    def __init__(self, inits, settings, device, momentum, learning_rate):
        B = len(inits)
        n_layers = len(inits[0])
        self.params = []
        for k in range(n_layers):
            self.params.append(as_tensor(np.array([init[k][0] for init in inits]), device).requires_grad_(True))
            self.params.append(as_tensor(np.array([init[k][1] for init in inits]), device).requires_grad_(True))
        for k in range(n_layers - 1):  # batch-norm scale and shift of each hidden layer
            width = inits[0][k][1].size
            self.params.append(torch.ones(B, width, dtype=DTYPE, device=device, requires_grad=True))
            self.params.append(torch.zeros(B, width, dtype=DTYPE, device=device, requires_grad=True))
        self.n_layers = n_layers
        column = lambda values: as_tensor(np.asarray(values, dtype=float), device)  # noqa: E731
        self.weight_decay = column([s["weight_decay"] for s in settings])
        self.dropout = column([s["dropout"] for s in settings])
        self.batch_norm = column([float(s["batch_norm"]) for s in settings])
        self.adam = column([float(s["adam_learning_rate"] > 0) for s in settings])
        self.lr = column([s["adam_learning_rate"] if s["adam_learning_rate"] > 0 else learning_rate
                          for s in settings])
        self.penalty = column([s["output_penalty"] for s in settings])
        self.loss_scale = torch.ones_like(self.penalty)  # a factor on each member's whole loss (annealing)
        self.target = column([s.get("target_margin", 0.0) for s in settings])
        self.momentum = momentum
        subset = lambda chosen: torch.nonzero(chosen).flatten() if bool(chosen.any()) else None  # noqa: E731
        self.bn_members = subset(self.batch_norm > 0)
        self.dropout_members = subset(self.dropout > 0)
        self.optimizer = MemberOptimizer(self.params, to_numpy(self.lr), momentum=momentum,
                                         adam=to_numpy(self.adam) > 0)  # weight decay is in the loss

    def forward(self, X, generator=None, stats=None):
        """ŷ (B, n); training mode (dropout, batch statistics) when ``generator`` is given. ``stats``: the batch-norm
        (mean, var) per hidden layer to use instead of X's own; returns (ŷ, the statistics used)."""
        h, used = X, []
        for k in range(self.n_layers):
            W, b = self.params[2 * k], self.params[2 * k + 1]
            h = torch.bmm(h, W) + b[:, None, :]
            if k == self.n_layers - 1:
                break
            if self.bn_members is not None:  # only the batch-norm members pay for it
                part = h[self.bn_members]
                mean, var = (part.mean(dim=1, keepdim=True), part.var(dim=1, unbiased=False, keepdim=True)) \
                    if stats is None else stats[k]
                used.append((mean.detach(), var.detach()))
                scale = self.params[2 * self.n_layers + 2 * k][self.bn_members]
                shift = self.params[2 * self.n_layers + 2 * k + 1][self.bn_members]
                h = h.index_put((self.bn_members,), (part - mean) / torch.sqrt(var + 1e-5) * scale[:, None, :]
                                + shift[:, None, :])
            h = torch.relu(h)
            if generator is not None and self.dropout_members is not None:
                keep = 1.0 - self.dropout[self.dropout_members][:, None, None]
                part = h[self.dropout_members]
                mask = (torch.rand(part.shape, dtype=DTYPE, device=h.device, generator=generator) < keep).to(DTYPE)
                h = h.index_put((self.dropout_members,), part * mask / keep)
        return h[..., 0], used

    def loss(self, X, y, generator):
        out, _ = self.forward(X, generator)
        margins = y * out
        per_member = torch.nn.functional.softplus(-margins).mean(dim=1)
        per_member = per_member + 0.5 * self.penalty * ((margins - self.target[:, None]) ** 2).mean(dim=1)
        norms = sum((p ** 2).reshape(p.shape[0], -1).sum(dim=1) for p in self.params[:2 * self.n_layers])
        return ((per_member + 0.5 * self.weight_decay * norms) * self.loss_scale).sum()

    @torch.no_grad()
    def step(self):
        """One step of SGD with momentum (torch's convention: v <- μv + g, θ <- θ - ηv) or Adam (torch's defaults),
        per member (:class:`dynamics.numerics.torch_batched.MemberOptimizer`); a parameter without a gradient (the
        batch-norm parameters when no member uses batch norm) stays where it is."""
        self.optimizer.step([torch.zeros_like(p) if p.grad is None else p.grad for p in self.params])
        for p in self.params:
            p.grad = None

    def train_step(self, X, y, generator):
        self.loss(X, y, generator).backward()
        self.step()

    @torch.no_grad()
    def predict(self, X_train, X):
        """ŷ on X (B, N, d), with the batch-norm statistics of the training batch X_train."""
        _, stats = self.forward(X_train)
        return self.forward(X, stats=stats)[0]


def _seed_tuple(seeds):
    seeds = tuple(seeds)
    if not seeds or len(seeds) > 1000:
        raise ValueError(f"seeds must hold 1 to 1000 seeds, got {len(seeds)}")
    return seeds


# ---------------------------------------------------------------- Fig 7: two moons under common regularisers
@fill_doc
@disk_cache(salt=torch.__version__)  # rendering a figure again reuses its training
@on_device
def moons_regularisers(config: MoonsRegularisersConfig = MoonsRegularisersConfig(), seeds: Sequence[Seed] = (0, 1, 2),
                       *, device: Union[str, torch.device] = "cpu") -> MoonsRegularisation:
    """Train the separable two moons (Δ = ``margin``) under each regulariser of Pezeshki et al. 2021, Fig 7, and
    measure how far each boundary is from straight.

    Net: ``depth`` hidden layers of ``hidden`` ReLUs and a linear output, torch's default uniform initialisation
    (the same for every regulariser of one seed and depth); full-batch SGD with momentum (or Adam) on the mean
    cross-entropy plus the regulariser. The settings that share a depth and a number of steps form one batched model
    (dropout draws independent masks per member; batch norm uses the full batch's statistics, in training and at
    evaluation).

    Parameters
    ----------
    config : MoonsRegularisersConfig
        The regularisers, net, optimizer, margin and evaluation grid (default: the authors' code for Fig 7,
        :meth:`~dynamics.starvation.MoonsRegularisersConfig.source`;
        :meth:`~dynamics.starvation.MoonsRegularisersConfig.ci` is the claim's CPU size). A field out of its range
        raises ValueError naming the field.
    seeds : sequence of (int or numpy.random.Generator)
        1 to 1000 seeds; a seed draws its data (300 points, noise 0.1), its initialisation and its dropout masks.
    %(device)s

    Returns
    -------
    MoonsRegularisation

    Examples
    --------
    >>> out = moons_regularisers(MoonsRegularisersConfig(n_steps=3, hidden=8, grid_size=20), seeds=(0,), device="cpu")
    >>> out.logits.shape, out.boundary_distance.shape
    ((8, 1, 20, 20), (8, 1))
    """
    config = require_of_type("config", config, MoonsRegularisersConfig,
                             made_by="dynamics.starvation.MoonsRegularisersConfig")
    seeds = _seed_tuple(seeds)
    regularisers = tuple(Regulariser(*r) for r in config.regularisers)
    if not regularisers:
        raise ValueError("regularisers must hold at least one Regulariser, got an empty sequence")
    for r in regularisers:
        require_positive("weight_decay", r.weight_decay, allow_zero=True)
        require_in_range("dropout", r.dropout, 0.0, 1.0, high_open=True)
        require_positive("adam_learning_rate", r.adam_learning_rate, allow_zero=True)
        require_positive("output_penalty", r.output_penalty, allow_zero=True)
        require_integer("depth", r.depth, 1, 16)
        require_integer("steps_factor", r.steps_factor, 1, 100)
    n_steps = require_integer("n_steps", config.n_steps, 0, 10**6)
    hidden = require_integer("hidden", config.hidden, 1, 10**4)
    learning_rate = require_positive("learning_rate", config.learning_rate)
    momentum = require_in_range("momentum", config.momentum, 0.0, 1.0, high_open=True)
    margin = require_in_range("margin", config.margin, -1.0, 1.0)
    rotation = require_in_range("rotation", config.rotation, -360.0, 360.0)
    grid_size = require_integer("grid_size", config.grid_size, 10, 2000)
    streams = [seed_streams(rng_from(seed), _SEED_STREAMS) for seed in seeds]
    data = tuple(two_moons(300, noise_std=0.1, margin=margin, rotation=rotation, seed=s.data) for s in streams)
    every_x = np.concatenate([d.X for d in data])
    low, high = every_x.min(axis=0) - 0.15, every_x.max(axis=0) + 0.15
    grid_h, grid_v = np.linspace(low[0], high[0], grid_size), np.linspace(low[1], high[1], grid_size)
    gh, gv = np.meshgrid(grid_h, grid_v)
    grid = as_tensor(np.column_stack([gh.ravel(), gv.ravel()]), device)
    logits = np.empty((len(regularisers), len(seeds), grid_size, grid_size))
    accuracy = np.empty((len(regularisers), len(seeds)))
    S = len(seeds)
    groups = {}
    for i, r in enumerate(regularisers):
        groups.setdefault((r.depth, r.steps_factor), []).append(i)
    for (depth, factor), indices in groups.items():
        widths = [2] + [hidden] * depth + [1]
        inits = [_init_layers(widths, np.random.default_rng(_child(s.init, depth)), False) for s in streams]
        generator = torch_generator(np.random.default_rng(_child(streams[0].dropout, depth, factor)), device)
        members = _Members([inits[k] for _ in indices for k in range(S)],
                           [regularisers[i]._asdict() for i in indices for _ in range(S)], device, momentum,
                           learning_rate)
        X = as_tensor(np.array([data[k].X for _ in indices for k in range(S)]), device)
        y = as_tensor(np.array([data[k].y for _ in indices for k in range(S)]), device)
        for _ in range(n_steps * factor):
            members.train_step(X, y, generator)
        out = to_numpy(members.predict(X, grid.expand(X.shape[0], -1, -1)))
        fit = to_numpy(members.predict(X, X))
        for j, i in enumerate(indices):
            logits[i] = out[j * S:(j + 1) * S].reshape(S, grid_size, grid_size)
            accuracy[i] = np.mean(fit[j * S:(j + 1) * S] * np.array([d.y for d in data]) > 0, axis=1)
    distance = np.array([[boundary_line_distance(grid_h, grid_v, logits[i, k], data[k].X) for k in range(S)]
                         for i in range(len(regularisers))])
    return MoonsRegularisation(regularisers, seeds, data, grid_h, grid_v, logits, distance, accuracy)


# ---------------------------------------------------------------- CMNIST in spirit: coloured shapes
# (the data: dynamics.starvation.coloured_shapes)
@fill_doc
@disk_cache(salt=torch.__version__)  # rendering a figure again reuses its training
@on_device
def train_coloured_shapes(config: ColouredShapesConfig = ColouredShapesConfig(), seeds: Sequence[Seed] = (0, 1, 2), *,
                          device: Union[str, torch.device] = "cpu") -> ColourShapeTraining:
    """Train ERM, the L2 baseline and γ-shifted Spectral Decoupling on :func:`coloured_shapes` (Pezeshki et al.
    2021, Table 2, Fig 3 in spirit), all methods and seeds as one batched model.

    Training set: two environments of ``n_train // 2`` examples with colour flips 0.1 and 0.2 (the union is used,
    without environment labels); test set: colour flip 0.9. Net: 2·size² → hidden → hidden → 1 ReLU MLP,
    Xavier-uniform weights and zero biases (the same initialisation for every method of one seed), full-batch Adam
    (learning rate ``learning_rate``) on the mean cross-entropy plus the method's penalty, annealed where the method
    says so (:class:`~dynamics.starvation.ColourShapeMethod`: ``anneal_steps``, ``loss_scale``).

    Parameters
    ----------
    config : ColouredShapesConfig
        The methods, data sizes, net, optimizer and image settings (default: the project's CPU size,
        :meth:`~dynamics.starvation.ColouredShapesConfig.ci`; :meth:`~dynamics.starvation.ColouredShapesConfig.source`
        has the authors' Colored MNIST sizes). With pixel noise (``noise_std`` > 0) every image is unique and the net
        can memorise the training set, as the Colored MNIST nets do (their ERM reaches 91% training accuracy, above the
        85% the colour alone gives); without it, identical images carry conflicting labels. A field out of its range
        raises ValueError naming the field.
    seeds : sequence of (int or numpy.random.Generator)
        1 to 1000 seeds; a seed draws the data sets and the initialisation.
    %(device)s

    Returns
    -------
    ColourShapeTraining

    Examples
    --------
    >>> config = ColouredShapesConfig(n_train=40, n_test=40, n_steps=4, hidden=8, record_every=2)
    >>> out = train_coloured_shapes(config, seeds=(0,), device="cpu")
    >>> out.steps.tolist(), out.test_accuracy.shape
    ([0, 2, 4], (3, 4, 1))
    """
    config = require_of_type("config", config, ColouredShapesConfig, made_by="dynamics.starvation.ColouredShapesConfig")
    seeds = _seed_tuple(seeds)
    methods = tuple(ColourShapeMethod(*m) for m in config.methods)
    if not methods:
        raise ValueError("methods must hold at least one ColourShapeMethod, got an empty sequence")
    for m in methods:
        require_positive("weight_decay", m.weight_decay, allow_zero=True)
        require_positive("output_penalty", m.output_penalty, allow_zero=True)
        require_positive("target_margin", m.target_margin, allow_zero=True)
        require_integer("anneal_steps", m.anneal_steps, 0, 10**6)
        require_positive("loss_scale", m.loss_scale)
    n_train = require_integer("n_train", config.n_train, 2, 10**6)
    n_test = require_integer("n_test", config.n_test, 2, 10**6)
    n_steps = require_integer("n_steps", config.n_steps, 0, 10**6)
    hidden = require_integer("hidden", config.hidden, 1, 10**4)
    learning_rate = require_positive("learning_rate", config.learning_rate)
    record_every = require_integer("record_every", config.record_every, 1)
    size = require_integer("size", config.size, 3, 64)
    noise_std = require_in_range("noise_std", config.noise_std, 0.0, 10.0)
    streams = [seed_streams(rng_from(seed), _SEED_STREAMS) for seed in seeds]
    S, M = len(seeds), len(methods)
    train, test, gray = [], [], []
    for s in streams:
        r = s.data
        first = coloured_shapes(n_train // 2, colour_flip=0.1, size=size, noise_std=noise_std, seed=r)
        second = coloured_shapes(n_train - n_train // 2, colour_flip=0.2, size=size, noise_std=noise_std,
                                 seed=r)
        train.append(ColourShapes(*(np.concatenate([a, b]) for a, b in zip(first, second))))
        flipped = coloured_shapes(n_test, colour_flip=0.9, size=size, noise_std=noise_std, seed=r)
        test.append(flipped)
        image = flipped.X[:, :size * size] + flipped.X[:, size * size:]
        gray.append(np.concatenate([image, image], axis=1))
    widths = [2 * size * size, hidden, hidden, 1]
    inits = [_init_layers(widths, s.init, True) for s in streams]
    settings = [dict(weight_decay=m.weight_decay, dropout=0.0, batch_norm=False, adam_learning_rate=learning_rate,
                     output_penalty=m.output_penalty, target_margin=m.target_margin) for m in methods for _ in seeds]
    members = _Members([inits[k] for _ in methods for k in range(S)], settings, device, 0.0, learning_rate)
    stack = lambda arrays: as_tensor(np.array([arrays[k] for _ in methods for k in range(S)]), device)  # noqa: E731
    X, y = stack([d.X for d in train]), stack([d.y for d in train])
    X_test, y_test = stack([d.X for d in test]), stack([d.y for d in test])
    X_gray = stack(gray)
    column = lambda values: as_tensor(np.repeat(np.asarray(values, dtype=float), S), device)  # noqa: E731
    penalty, scale = column([m.output_penalty for m in methods]), column([m.loss_scale for m in methods])
    anneal = column([m.anneal_steps for m in methods])
    steps, records = [], []
    for step in range(n_steps + 1):
        annealed = anneal <= step  # before its anneal step a member's penalty enters scaled, after it its whole loss
        members.penalty = torch.where(annealed, penalty, penalty * scale)
        members.loss_scale = torch.where(annealed, scale, torch.ones_like(scale))
        if step % record_every == 0 or step == n_steps:
            steps.append(step)
            records.append([to_numpy(((members.predict(X, A) * b) > 0).to(DTYPE).mean(dim=1)).reshape(M, S)
                            for A, b in ((X, y), (X_test, y_test), (X_gray, y_test))]
                           + [to_numpy((members.predict(X, X) ** 2).mean(dim=1)).reshape(M, S)])
        if step < n_steps:
            members.train_step(X, y, None)
    records = np.array(records)  # (R, 4, M, S)
    return ColourShapeTraining(methods, seeds, np.array(steps), records[:, 0], records[:, 1], records[:, 2],
                               records[:, 3])


# ---------------------------------------------------------------- Fig 2 in spirit: margins on two moons
@fill_doc
@disk_cache(salt=torch.__version__)  # rendering a figure again reuses its training
@on_device
def moons_margins(config: MoonsMarginsConfig = MoonsMarginsConfig(), seeds: Sequence[Seed] = (0, 1, 2), *,
                  device: Union[str, torch.device] = "cpu") -> MoonsMargins:
    """Per-example margins of the separable two moons (Δ = +0.1), trained with and without Spectral Decoupling by
    :func:`dynamics.starvation.torch_training.train_two_moons` (Fig 1's net and optimizer), in the spirit of
    Pezeshki et al. 2021, Fig 2 (there: the CDF of the PGD perturbation needed to flip a CIFAR-2 prediction).

    For every training point: the signed input-space distance to the decision boundary (nearest point of the
    zero level set, found on a grid of spacing ``2 * config.resolution`` with its crossings placed by linear
    interpolation between grid points), and the signed distances along x_v (the weak
    feature) and along x_h (the strong feature) to the first sign change of ŷ (searched in steps of
    ``config.resolution`` up to ``config.cap``; ``cap`` when none). Negative for a misclassified point.

    Parameters
    ----------
    config : MoonsMarginsConfig, default MoonsMarginsConfig()
        Steps, width, SD strength, weight decay and the search (:class:`dynamics.starvation.MoonsMarginsConfig`;
        ``.source()`` is the authors' Fig 1 code, ``.ci()`` the claim's size). A bad field raises a ValueError
        naming it.
    seeds : sequence of (int or numpy.random.Generator), default (0, 1, 2)
        1 to 1000 seeds (data and initialisation, shared by both runs of a seed).
    %(device)s

    Returns
    -------
    MoonsMargins

    Examples
    --------
    >>> out = moons_margins(MoonsMarginsConfig(n_steps=3, hidden=8, cap=1.0, resolution=0.05), (0,))
    >>> out.distance.shape, bool(np.all(np.abs(out.vertical) <= out.cap))
    ((2, 1, 300), True)
    """
    from .torch_training import train_two_moons

    config = require_of_type("config", config, MoonsMarginsConfig, made_by="dynamics.starvation.MoonsMarginsConfig")
    seeds = _seed_tuple(seeds)
    n_steps = require_integer("n_steps", config.n_steps, 0, 10**6)
    hidden = require_integer("hidden", config.hidden, 1, 10**4)
    output_penalty = require_positive("output_penalty", config.output_penalty)
    weight_decay = require_positive("weight_decay", config.weight_decay, allow_zero=True)
    cap = require_in_range("cap", config.cap, 0.0, 10.0, low_open=True)
    resolution = require_in_range("resolution", config.resolution, 1e-4, cap / 10)
    runs = (MoonsRun("ERM", 0.1, 0.0), MoonsRun("SD", 0.1, output_penalty))
    trained = train_two_moons(TwoMoonsConfig(n_steps=n_steps, hidden=hidden, record_every=10**9, runs=runs,
                                             weight_decay=weight_decay), seeds, device=device)
    S = len(seeds)
    offsets = np.arange(resolution, cap + resolution / 2, resolution)
    distance, vertical, horizontal = (np.empty((2, S, 300)) for _ in range(3))
    for index in range(2 * S):
        X, y = trained.data[index]
        run, k = divmod(index, S)
        sign = np.sign(trained.logits(index, X))
        correct = np.where(sign == y, 1.0, -1.0)
        for out, axis in ((vertical, 1), (horizontal, 0)):
            best = np.full(len(X), cap)
            for direction in (1.0, -1.0):
                shifted = np.repeat(X[:, None, :], len(offsets), axis=1)
                shifted[..., axis] += direction * offsets
                flips = np.sign(trained.logits(index, shifted.reshape(-1, 2)).reshape(len(X), -1)) != sign[:, None]
                first = np.where(flips.any(axis=1), offsets[np.argmax(flips, axis=1)], cap)
                best = np.minimum(best, first)
            out[run, k] = correct * best
        low, high = X.min(axis=0) - cap, X.max(axis=0) + cap
        grid_h = np.arange(low[0], high[0] + resolution, 2 * resolution)
        grid_v = np.arange(low[1], high[1] + resolution, 2 * resolution)
        gh, gv = np.meshgrid(grid_h, grid_v)
        points = boundary_points(grid_h, grid_v, trained.logits(index, np.column_stack([gh.ravel(), gv.ravel()]))
                                 .reshape(gh.shape))
        nearest = np.full(len(X), cap)
        for chunk in np.array_split(np.arange(len(points)), max(1, len(points) // 2000)):
            if len(chunk):
                gaps = np.sqrt(((X[:, None, :] - points[None, chunk, :]) ** 2).sum(axis=2)).min(axis=1)
                nearest = np.minimum(nearest, gaps)
        distance[run, k] = correct * nearest
    return MoonsMargins(runs, seeds, distance, vertical, horizontal, float(cap))
