"""Roburin (thesis), Figs 3.6-3.7 and B.1-B.3 in miniature: SGD-M, Adam, AdamW and the spherical Adam variants
(AdamG, Adam w/o (a) = AdamS, Adam w/o (ab) = AdamST, Adam w/o (abc) = AdamSRT; Roburin et al. 2022, §5) trained on a
small BatchNorm network, with the per-layer effective learning rate of every step and Theorem 2's hypotheses along the
training.

The network is :func:`dynamics.spherical.torch_models.bn_mlp2`, an MLP with two hidden layers without bias, each
followed by the :class:`dynamics.spherical.torch_models.BatchNorm` of the cross-checks (ε = 0), so every row of both
hidden layers is exactly radially invariant; the data are
:func:`dynamics.spherical.torch_training.gaussian_classification` (Gaussian inputs, a random linear teacher, random
labels). The thesis trains ResNets on CIFAR and SVHN; a small MLP keeps a claim's run within seconds on a CPU. With
``model="conv"`` and ``data="digits"`` the network is :func:`dynamics.spherical.torch_models.bn_cnn2`, two 3×3
convolutions without bias each followed by the same BatchNorm (so every filter is exactly radially invariant), trained
on a small real image set, the 8×8 handwritten digits (scikit-learn's load_digits, from the UCI data set), split once
by :func:`dynamics.spherical.torch_training.digits_classification` and shared by every seed (the seed then draws the
initialisation and the batch order, as the thesis's seeds on CIFAR10's fixed split). As in
the thesis's protocol (§3.5.3), each method acts on the radially invariant weights only (the spherical variants with
one group per row or filter); the other parameters (the readout) get the same optimizer without
the group-specific parts (element-wise Adam for the Adam family, SGD with momentum for SGD-M) and no weight decay.

The seeds of one method are trained as one stacked model, member m being seed m's network, and the methods (each its
own optimizer) in a loop. Every parameter of :func:`dynamics.spherical.torch_models.bn_mlp2` gets a leading member
axis: the hidden weights W1 (M, width, n_features) and W2 (M, width, width), the readout W3 (M, n_classes, width) and
its bias (M, n_classes), each member's initialised as ``bn_mlp2`` initialises it for its seed. The forward pass is a
batched product per layer on each member's own mini-batch (inputs (M, batch, n_features)), with the BatchNorm's
statistics taken over each member's batch; the sum over members of their mean cross-entropies gives each member its
own gradient. SGD-M, Adam and AdamW act element by element, so on each member as on that member alone; the spherical
variants group the hidden weights by (member, row) (``channel_dims=[0, 1]``), one group per row of each member. The
convolutional net is stacked the same way: its filters W1 (M, width, 1, 3, 3) and W2 (M, 2·width, width, 3, 3) run
as one grouped convolution (a group per member) on the members' images, each member's BatchNorm statistics taken over
its own batch and the pixels, and a (member, filter) slice is one group.

The effective learning rate of each step is read by :func:`dynamics.spherical.torch_state.effective_learning_rates`
from the optimizer's state, with ``stacked=True``: it reads the filters of a stacked weight as its (member, row)
slices and returns one reading per member. That helper reads SGD, Adam, AdamW and AdamS; AdamST and AdamSRT
transport their first moment (and AdamSRT rescales its second) after the step, and AdamG renormalises the rows, so
their state no longer holds the last step. Their step is, however, exactly an AdamS step from the state they hold
before it (AdamG's with v summed rather than averaged over the row, i.e. learning rate and ε divided by sqrt(d), and no
weight decay; the renormalisation that follows is radial and leaves the direction alone). The trainer therefore takes
that AdamS step on a shadow optimizer (grouped by (member, row) too), reads the helper there, and then lets the variant
take its own step from the same point. A run equals, to float64 round-off, one model per seed and method trained alone
(the tests hold the stack to that loop).

The call is ``train_adam_variants(config, seeds, *, device="cpu", dtype=torch.float64)``: the config, a
:class:`dynamics.spherical.AdamVariantsConfig` (a frozen NamedTuple defined, without torch, in
:mod:`dynamics.spherical` and re-exported here; ``.source()`` carries the thesis's setting to the MLP, ``.ci()`` is the
claim's size), holds the methods, sizes and optimizers' settings; its fields are checked when the trainer runs, and a
bad one raises a ValueError naming the field.

This module imports torch; :mod:`dynamics.spherical` does not import it.
"""
import math
from typing import Sequence, Union

import numpy as np
import torch

from dynamics.numerics import disk_cache, require_choice, require_in_range, require_integer, require_positive
from dynamics.numerics.torch_tools import on_device, seed_int, to_numpy, torch_generator
from ._results import (ADAM_VARIANTS_OPTIMIZERS, AdamVariantsConfig, AdamVariantsTraining, ClassificationData,
                       TheoremTwoHypotheses)
from .torch_models import bn_cnn2, bn_mlp2
from .torch_optim import AdamG, AdamS, AdamSRT, AdamST
from .torch_state import effective_learning_rates
from .torch_training import DIGITS_SIZE, digits_classification, gaussian_classification
from ._docs import fill_doc

__all__ = ["AdamVariantsConfig", "AdamVariantsTraining", "TheoremTwoHypotheses", "train_adam_variants",
           "theorem2_hypotheses"]

Seed = Union[int, np.random.Generator]
Device = Union[str, torch.device]

#: The methods compared, in the default order of the results' first axis.
OPTIMIZERS = ADAM_VARIANTS_OPTIMIZERS

#: The learning rate of each method on the hidden layers (and on the readout), chosen once on this set-up so that
#: every method trains within a few hundred steps (the thesis tunes each method on a grid).
DEFAULT_LEARNING_RATES = {"SGD-M": 0.05, "Adam": 3e-3, "AdamW": 3e-3, "AdamG": 3e-2, "AdamS": 3e-3, "AdamST": 3e-3,
                          "AdamSRT": 3e-3}

_LAYERS = ("layer1", "layer2")
_CONV_LAYERS = ("conv1", "conv2")
MODELS = ("mlp", "conv")
DATA = ("gaussian", "digits")
_ROW_DIMS = [0, 1]  # the dims of a stacked hidden weight (member, row, column) indexing its groups: one per row
_SPHERICAL = {"AdamG": AdamG, "AdamS": AdamS, "AdamST": AdamST, "AdamSRT": AdamSRT}


def _stacked_bn_mlp2(seeds, n_features, width, n_classes, device, dtype):
    """The parameters [W1, W2, W3, b3] of :func:`dynamics.spherical.torch_models.bn_mlp2` built for each seed (so
    with its initial weights), stacked along a leading member axis: W1 (M, width, n_features), W2 (M, width, width),
    W3 (M, n_classes, width), b3 (M, n_classes)."""
    models = [bn_mlp2(n_features, width, n_classes, seed=seed, device=device, dtype=dtype) for seed in seeds]
    return [torch.stack([p.detach() for p in same]).requires_grad_()
            for same in zip(*(model.parameters() for model in models))]


def _stacked_bn_cnn2(seeds, image_shape, width, n_classes, device, dtype):
    """The parameters [W1, W2, W3, b3] of :func:`dynamics.spherical.torch_models.bn_cnn2` built for each seed,
    stacked along a leading member axis: W1 (M, width, C, 3, 3), W2 (M, 2·width, width, 3, 3), W3 (M, n_classes,
    8·width) for 8×8 images, b3 (M, n_classes)."""
    channels, size, _ = image_shape
    models = [bn_cnn2(width, n_classes, size, channels, seed=seed, device=device, dtype=dtype) for seed in seeds]
    return [torch.stack([p.detach() for p in same]).requires_grad_()
            for same in zip(*(model.parameters() for model in models))]


def _stacked_network(model, seeds, input_shape, width, n_classes, device, dtype):
    """The stacked parameters of the model ("mlp" or "conv") for inputs of ``input_shape`` (one sample's)."""
    if model == "mlp":
        return _stacked_bn_mlp2(seeds, input_shape[0], width, n_classes, device, dtype)
    return _stacked_bn_cnn2(seeds, input_shape, width, n_classes, device, dtype)


def _conv_block(h, W):
    """Conv (3×3, padding 1, no bias) -> BatchNorm (ε = 0, per member over its batch and the pixels) -> ReLU ->
    2×2 max-pool, each member with its own filters: h (M, batch, C, S, S), W (M, C_out, C, 3, 3); one grouped
    convolution, a group per member."""
    members, batch, channels, size, _ = h.shape
    out = torch.nn.functional.conv2d(h.transpose(0, 1).reshape(batch, members * channels, size, size),
                                     W.reshape(-1, channels, *W.shape[3:]), padding=1, groups=members)
    out = out.reshape(batch, members, -1, size, size).transpose(0, 1)
    centred = out - out.mean(dim=(1, 3, 4), keepdim=True)
    out = torch.relu(centred / (centred ** 2).mean(dim=(1, 3, 4), keepdim=True).sqrt())
    pooled = torch.nn.functional.max_pool2d(out.reshape(members * batch, -1, size, size), 2)
    return pooled.reshape(members, batch, *pooled.shape[1:])


def _batch_norm(h):
    """:class:`dynamics.spherical.torch_models.BatchNorm` (ε = 0, no affine map) of each member's batch: h is
    (members, batch, width), normalised over dim 1."""
    centred = h - h.mean(dim=1, keepdim=True)
    return centred / (centred ** 2).mean(dim=1, keepdim=True).sqrt()


def _forward(params, x):
    """The logits (M, batch, n_classes) of the stacked bn_mlp2 on each member's inputs x (M, batch, n_features), or
    of the stacked bn_cnn2 (5-D filters) on each member's images x (M, batch, C, S, S)."""
    W1, W2, W3, b3 = params
    if W1.dim() == 5:
        h = _conv_block(_conv_block(x, W1), W2).flatten(2)
        return torch.bmm(h, W3.transpose(1, 2)) + b3[:, None, :]
    h = torch.relu(_batch_norm(torch.bmm(x, W1.transpose(1, 2))))
    h = torch.relu(_batch_norm(torch.bmm(h, W2.transpose(1, 2))))
    return torch.bmm(h, W3.transpose(1, 2)) + b3[:, None, :]


def _losses(params, x, labels):
    """Each member's mean cross-entropy (M,) on its own inputs x (M, batch, ...) and labels (M, batch)."""
    logits = _forward(params, x)
    return torch.nn.functional.cross_entropy(logits.transpose(1, 2), labels, reduction="none").mean(dim=1)


def _optimizer(name, filters, rest, learning_rate, weight_decay, betas, eps):
    """The method's optimizer on the stacked parameters: weight decay on the hidden layers' weights ``filters``
    only; the spherical variants group those by (member, row)."""
    if name == "SGD-M":
        return torch.optim.SGD([{"params": filters, "weight_decay": weight_decay}, {"params": rest}],
                               lr=learning_rate, momentum=0.9, foreach=False)
    if name in ("Adam", "AdamW"):
        cls = torch.optim.Adam if name == "Adam" else torch.optim.AdamW
        return cls([{"params": filters, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}],
                   lr=learning_rate, betas=betas, eps=eps, foreach=False)
    return _SPHERICAL[name]([{"params": filters, "channel_dims": _ROW_DIMS, "weight_decay": weight_decay},
                             {"params": rest, "weight_decay": 0.0}],
                            learning_rate=learning_rate, betas=betas, eps=eps)


def _shadow(name, filters, optimizer, learning_rate, weight_decay, betas, eps):
    """The AdamS whose next step equals the variant's next step on the stacked filters (up to AdamG's radial
    renormalisation), grouped by (member, row) as the variant, with its state copied from the variant's."""
    d = [w[0, 0].numel() for w in filters]  # the dimension of one row
    groups = []
    for w, dim in zip(filters, d):
        scale = math.sqrt(dim) if name == "AdamG" else 1.0  # AdamG: v sums g² over the row, AdamS averages
        groups.append({"params": [w], "lr": learning_rate / scale, "eps": eps / scale,
                       "weight_decay": 0.0 if name == "AdamG" else weight_decay})
    shadow = AdamS(groups, learning_rate=learning_rate, betas=betas, eps=eps, channel_dims=_ROW_DIMS)
    for w, dim in zip(filters, d):
        state = optimizer.state.get(w)
        if state:
            scale = dim if name == "AdamG" else 1.0
            shadow.state[w] = {"step": state["step"], "exp_avg": state["exp_avg"].clone(),
                               "exp_avg_sq": state["exp_avg_sq"] / scale}
    return shadow


def _spherical_record(rates, n_layers, grads):
    """Per layer: the median η^e, max |A⟨c,u⟩|, max η^e‖c⊥‖ and max (η^e‖∇L(u)‖)² of one step of one member."""
    out = np.empty((4, n_layers))
    a_cu = np.abs(1.0 - rates.A / rates.effective_learning_rate)  # η^e = A/(1 − A⟨c,u⟩)
    tangent = np.tan(rates.angle)
    for layer in range(n_layers):
        mask = rates.layer == layer
        eta_e = rates.effective_learning_rate[mask]
        sphere_grad = rates.radius[mask] * grads[layer]  # ∇L(u) = r∇L(x) (Lemma 1)
        out[:, layer] = (np.median(eta_e), a_cu[mask].max(), tangent[mask].max(), ((eta_e * sphere_grad) ** 2).max())
    return out


def _train_method(name, seeds, train, test, n_steps, batch_size, eval_every, spherical_every, width, n_classes,
                  learning_rate, weight_decay, betas, eps, model):
    """Train all seeds of one method as one stacked model on their data (``train`` and ``test``: inputs (M, n,
    n_features) or images (M, n, C, S, S), and labels (M, n), member m holding seed m's). Returns the training
    losses and test accuracies (M, n_evals) and the spherical records (M, n_readings, 4, n_layers)."""
    n_members, n_train = train.inputs.shape[:2]
    dtype = train.inputs.dtype
    params = _stacked_network(model, seeds, tuple(train.inputs.shape[2:]), width, n_classes, train.inputs.device,
                              dtype)
    filters, rest = params[:2], params[2:]
    optimizer = _optimizer(name, filters, rest, learning_rate, weight_decay, betas, eps)
    layers = dict(zip(_CONV_LAYERS if model == "conv" else _LAYERS, filters))
    generators = [torch_generator(seed) for seed in seeds]
    members = torch.arange(n_members, device=train.inputs.device)[:, None]
    records = np.empty((n_members, len(range(0, n_steps, spherical_every)), 4, len(_LAYERS)))
    losses, accuracies = [], []

    def evaluate(step):
        with torch.no_grad():
            loss = _losses(params, train.inputs, train.labels)
            right = _forward(params, test.inputs).argmax(dim=2) == test.labels
        if not bool(torch.isfinite(loss).all()):
            member = int(torch.nonzero(~torch.isfinite(loss))[0, 0])
            raise ValueError(f"{name} diverged: the training loss of seeds[{member}] is not finite after step {step} "
                             f"(lower learning_rates[{name!r}])")
        losses.append(to_numpy(loss).astype(np.float64))
        accuracies.append(to_numpy(right.to(dtype).mean(dim=1)).astype(np.float64))

    evaluate(0)
    for k in range(n_steps):
        idx = torch.stack([torch.randint(0, n_train, (batch_size,), generator=gen) for gen in generators])
        idx = idx.to(train.inputs.device)
        optimizer.zero_grad()
        _losses(params, train.inputs[members, idx], train.labels[members, idx]).sum().backward()  # one per member
        if k % spherical_every:
            optimizer.step()
        elif name in _SPHERICAL and name != "AdamS":
            before = [w.detach().clone() for w in filters]
            shadow = _shadow(name, filters, optimizer, learning_rate, weight_decay, betas, eps)
            shadow.step()
            rates = effective_learning_rates(shadow, layers, stacked=True)
            with torch.no_grad():
                for w, x in zip(filters, before):
                    w.copy_(x)
            optimizer.step()
        else:
            optimizer.step()
            rates = effective_learning_rates(optimizer, layers, stacked=True)
        if k % spherical_every == 0:
            grads = [to_numpy(w.grad.detach().flatten(2).norm(dim=2)) for w in filters]  # (M, filters) per layer
            for m, member_rates in enumerate(rates):
                records[m, k // spherical_every] = _spherical_record(member_rates, len(_LAYERS), [g[m] for g in grads])
        if (k + 1) % eval_every == 0 or k + 1 == n_steps:
            evaluate(k + 1)
    return np.stack(losses, axis=1), np.stack(accuracies, axis=1), records


def _shared_digits(n_train, n_test, n_members, flat, device, dtype):
    """The digits' training and held-out parts, the same for every member: (M, n, 1, 8, 8) images, or (M, n, 64)
    pixel vectors for the MLP."""
    split = digits_classification(n_train, n_test, device=device, dtype=dtype)

    def stacked(part):
        x = part.inputs.flatten(1) if flat else part.inputs
        return ClassificationData(x.unsqueeze(0).repeat(n_members, *[1] * x.dim()),
                                  part.labels.unsqueeze(0).repeat(n_members, 1))

    return stacked(split.train), stacked(split.test)


@on_device
def _train(*, device, optimizers, seeds, n_steps, batch_size, eval_every, spherical_every, n_train, n_test,
           n_features, n_classes, label_noise, widths, learning_rates, weight_decay, betas, eps, dtype, model, data):
    if data == "digits":
        train, test = _shared_digits(n_train, n_test, len(seeds), model == "mlp", device, dtype)
    else:
        draws = [gaussian_classification(n_train + n_test, n_features, n_classes, label_noise, seed=seed,
                                         device=device, dtype=dtype) for seed in seeds]
        inputs, labels = torch.stack([d.inputs for d in draws]), torch.stack([d.labels for d in draws])
        train = ClassificationData(inputs[:, :n_train], labels[:, :n_train])
        test = ClassificationData(inputs[:, n_train:], labels[:, n_train:])
    runs = [_train_method(name, seeds, train, test, n_steps, batch_size, eval_every, spherical_every, widths[name],
                          n_classes, learning_rates[name], weight_decay, betas, eps, model) for name in optimizers]
    losses, accuracies, records = (np.stack([run[i] for run in runs]) for i in range(3))
    eval_steps = np.unique(np.r_[0, np.arange(eval_every, n_steps + 1, eval_every), n_steps])
    spherical_steps = np.arange(1, n_steps + 1, spherical_every)
    return AdamVariantsTraining(tuple(optimizers), eval_steps, losses, accuracies,
                                _CONV_LAYERS if model == "conv" else _LAYERS, spherical_steps,
                                *(records[:, :, :, i] for i in range(4)))


def _pairs(name, value):
    """``value`` (a mapping, or a sequence of (method, value) pairs, or None) as a dict, each method once."""
    if value is None:
        return {}
    if hasattr(value, "items"):
        return dict(value.items())
    if isinstance(value, (str, bytes)):
        raise ValueError(f"{name} must be (method, value) pairs, got {value!r}")
    out = {}
    for pair in value:
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise ValueError(f"{name} must be (method, value) pairs, got the entry {pair!r}")
        if pair[0] in out:
            raise ValueError(f"{name} names the method {pair[0]!r} twice")
        out[pair[0]] = pair[1]
    return out


@fill_doc
@disk_cache(salt=torch.__version__)  # rendering a figure again reuses its training
def train_adam_variants(config: AdamVariantsConfig = AdamVariantsConfig(), seeds: Sequence[Seed] = (0, 1, 2), *,
                        device: Device = "cpu", dtype: torch.dtype = torch.float64) -> AdamVariantsTraining:
    """Train the BatchNorm MLP (or the BatchNorm convolutional net) with each method and seed; record the training
    loss, the test accuracy, the per-layer effective learning rate and Theorem 2's hypotheses (Roburin (thesis), Figs
    3.6-3.7, B.1-B.3, in miniature).

    Each seed draws its own data (``n_train + n_test`` points of
    :func:`dynamics.spherical.torch_training.gaussian_classification`, split in two; with ``data="digits"`` every
    seed shares the split of the 8×8 digits of :func:`dynamics.spherical.torch_training.digits_classification`),
    initial network (:func:`dynamics.spherical.torch_models.bn_mlp2` with ``width`` hidden units, or with
    ``model="conv"`` :func:`dynamics.spherical.torch_models.bn_cnn2` with ``width`` and 2·``width`` filters; a
    method's own width from ``widths``) and mini-batch sequence (drawn uniformly with replacement), shared by all
    methods. The methods act on the two hidden (or convolution) layers' weights with ``weight_decay`` λ (coupled L2 for SGD-M, Adam, AdamS, AdamST and AdamSRT;
    decoupled for AdamW; none for AdamG, which keeps the rows on the unit sphere); the readout gets the method's
    optimizer without weight decay (SGD with momentum 0.9 for SGD-M; Adam for the whole Adam family). Floats run in
    ``dtype``; the results are float64. The loss and accuracy are those of the network in training mode (BatchNorm
    with the batch statistics of the evaluated set: this BatchNorm keeps no running statistics).

    Parameters
    ----------
    config : AdamVariantsConfig, optional
        The methods, sizes and optimizers' settings (:class:`dynamics.spherical.AdamVariantsConfig`, whose
        attributes document each field and its range; ``.source()`` carries the thesis's ResNet20/CIFAR10 setting to
        the MLP, ``.ci()`` is the claim's size, ``.digits_record()`` the record of Figs 3.6-3.7 on the digits). A bad
        field raises a ValueError naming it. Default
        ``AdamVariantsConfig()``: all seven methods, 300 steps of 32 points, width 32, read every step.
    seeds : sequence of (int >= 0 or numpy.random.Generator), optional
        One run per seed (1 to 64 seeds). Default (0, 1, 2).
    %(device)s
    dtype : torch.dtype, optional
        ``torch.float64`` (default) or ``torch.float32``.

    Returns
    -------
    AdamVariantsTraining
        The curves (method, seed, evaluation) and the per-step spherical quantities (method, seed, step, layer).

    Raises
    ------
    ValueError
        If a field of ``config`` is out of range (the message names it), or if a method diverges (a seed's training
        loss not finite at an evaluation; the message names the method, the seed's index and the step).

    Examples
    --------
    >>> config = AdamVariantsConfig(("SGD-M", "AdamSRT"), n_steps=4, eval_every=2, n_train=64, n_test=64, width=4)
    >>> run = train_adam_variants(config, seeds=(0,))
    >>> run.eval_steps.tolist(), run.train_loss.shape, run.effective_learning_rate.shape
    ([0, 2, 4], (2, 1, 3), (2, 1, 4, 2))
    >>> bool((run.max_radial_term < 1).all())
    True
    >>> narrow = train_adam_variants(config._replace(widths=(("AdamSRT", 2),)), seeds=(0,))  # AdamSRT: width 2
    >>> bool((narrow.train_loss[0] == run.train_loss[0]).all())   # SGD-M keeps width 4
    True

    The convolutional net on the digits (needs scikit-learn):

    >>> digits = AdamVariantsConfig.digits_record()._replace(optimizers=("AdamST",), n_steps=2, eval_every=2, width=2)
    >>> conv = train_adam_variants(digits, seeds=(0,))
    >>> conv.layer_names, conv.test_accuracy.shape
    (('conv1', 'conv2'), (1, 1, 2))
    """
    if not isinstance(config, AdamVariantsConfig):
        raise TypeError(f"config must be an AdamVariantsConfig, got {config!r}")
    optimizers = tuple(config.optimizers)
    if not optimizers:
        raise ValueError("optimizers must name at least one method, got an empty sequence")
    for name in optimizers:
        require_choice("optimizers entry", name, OPTIMIZERS)
    if len(set(optimizers)) != len(optimizers):
        raise ValueError(f"optimizers must not repeat a method, got {optimizers}")
    seeds = tuple(seeds)
    require_integer("number of seeds", len(seeds), 1, 64)
    seeds = tuple(seed_int(seed) for seed in seeds)
    n_steps = require_integer("n_steps", config.n_steps, 1, 100_000)
    batch_size = require_integer("batch_size", config.batch_size, 2, 4096)
    eval_every = require_integer("eval_every", config.eval_every, 1, 100_000)
    spherical_every = require_integer("spherical_every", config.spherical_every, 1, 100_000)
    n_train = require_integer("n_train", config.n_train, 2, 100_000)
    n_test = require_integer("n_test", config.n_test, 2, 100_000)
    n_features = require_integer("n_features", config.n_features, 1, 4096)
    n_classes = require_integer("n_classes", config.n_classes, 2, 1000)
    label_noise = require_in_range("label_noise", config.label_noise, 0.0, 1.0)
    width = require_integer("width", config.width, 1, 4096)
    widths = dict.fromkeys(OPTIMIZERS, width)
    for name, value in _pairs("widths", config.widths).items():
        require_choice("widths key", name, OPTIMIZERS)
        widths[name] = require_integer(f"widths[{name!r}]", value, 1, 4096)
    rates = dict(DEFAULT_LEARNING_RATES)
    for name, value in _pairs("learning_rates", config.learning_rates).items():
        require_choice("learning_rates key", name, OPTIMIZERS)
        rates[name] = require_positive(f"learning_rates[{name!r}]", value)
    weight_decay = require_in_range("weight_decay", config.weight_decay, 0.0, 1.0, high_open=True)
    betas = tuple(config.betas)
    if len(betas) != 2:
        raise ValueError(f"betas must be two numbers (β₁, β₂), got {betas!r}")
    betas = tuple(require_in_range(f"betas[{i}]", b, 0.0, 1.0, high_open=True) for i, b in enumerate(betas))
    eps = require_in_range("eps", config.eps, 0.0, 1.0, high_open=True)
    model = require_choice("model", config.model, MODELS)
    data = require_choice("data", config.data, DATA)
    if model == "conv" and data != "digits":
        raise ValueError(f"model='conv' trains on images: data must be 'digits', got {data!r}")
    if data == "digits":
        for field, value, wanted in (("n_features", n_features, 64), ("n_classes", n_classes, 10),
                                     ("label_noise", label_noise, 0.0)):
            if value != wanted:
                raise ValueError(f"{field} must be {wanted:g} with data='digits' (the 8×8 digits of 10 classes, with "
                                 f"their own labels), got {value:g}")
        if n_test < 10 or n_train < 10 or n_train + n_test > DIGITS_SIZE:
            raise ValueError(f"n_train and n_test must be at least 10 each and n_train + n_test at most "
                             f"{DIGITS_SIZE} (the digits' images) with data='digits', got n_train = {n_train}, "
                             f"n_test = {n_test}")
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be torch.float32 or torch.float64, got {dtype}")
    return _train(device=device, optimizers=optimizers, seeds=seeds, n_steps=n_steps, batch_size=batch_size,
                  eval_every=eval_every, spherical_every=spherical_every, n_train=n_train, n_test=n_test,
                  n_features=n_features, n_classes=n_classes, label_noise=label_noise, widths=widths,
                  learning_rates=rates, weight_decay=weight_decay, betas=betas, eps=eps, dtype=dtype, model=model,
                  data=data)


def theorem2_hypotheses(training: AdamVariantsTraining, first_step: int = 1) -> TheoremTwoHypotheses:
    """The worst values of Theorem 2's quantities per method and layer over a run of
    :func:`dynamics.spherical.torch_experiments.train_adam_variants` (Roburin (thesis), Figs B.1-B.3).

    Parameters
    ----------
    training : AdamVariantsTraining
        A run's result.
    first_step : int, optional
        The first step included (1 = the first step), in [1, the last step read] (the first steps of Adam-type
        methods, whose second moment holds few gradients, can be left out). Default 1.

    Returns
    -------
    TheoremTwoHypotheses
        max over steps >= ``first_step``, rows and seeds of |A⟨c,u⟩|, η^e‖c⊥‖ and tan²θ, per method and layer.

    Examples
    --------
    >>> config = AdamVariantsConfig(("SGD-M",), n_steps=3, eval_every=3, n_train=64, n_test=64, width=4)
    >>> run = train_adam_variants(config, seeds=(0,))
    >>> worst = theorem2_hypotheses(run)
    >>> worst.max_radial_term.shape, bool(worst.max_tangent_step.max() < 1)
    ((1, 2), True)
    """
    if not isinstance(training, AdamVariantsTraining):
        raise TypeError(f"training must be an AdamVariantsTraining, got {type(training).__name__}")
    first_step = require_integer("first_step", first_step, 1, int(training.spherical_steps[-1]))
    keep = training.spherical_steps >= first_step
    worst = [getattr(training, field)[:, :, keep].max(axis=(1, 2))
             for field in ("max_radial_term", "max_tangent_step", "max_tan2_gradient")]
    return TheoremTwoHypotheses(training.optimizers, training.layer_names, first_step, *worst)
