"""The experiments of Parascandolo et al. 2021 in miniature: batched torch trainers of small LeakyReLU MLPs whose
per-environment gradients are combined by the AND-mask.

* :func:`dynamics.and_mask.torch_experiments.train_spiral_memorisation`: the synthetic memorisation task
  (Parascandolo et al. 2021, Fig 6 and Fig 14): two interleaved spirals (the mechanism) and a per-environment
  shortcut signature, trained with the AND-mask at several thresholds τ against plain averaging (τ = 0) and
  averaging with an L1 or L2 penalty; training and o.o.d. accuracy along training.
* :func:`dynamics.and_mask.torch_experiments.learning_signals_at_init`: dissecting the learning signals at
  initialisation (Parascandolo et al. 2021, Fig 7): the correlation of the AND-masked (or XOR-masked) average
  gradient with a memorisation gradient and with a mechanism gradient, against τ, over weight seeds.
* :func:`dynamics.and_mask.torch_experiments.train_noisy_labels`: random labels and label noise with each example
  its own environment (Parascandolo et al. 2021, Figs 8, 9 and 16 in spirit, on a generated tabular task instead
  of CIFAR-10): accuracy on the training labels, on the mislabelled part and on clean test data against τ.
* :func:`dynamics.and_mask.torch_experiments.train_environment_sweep`: the number of environments needed
  (Parascandolo et al. 2021, Fig 15 in spirit): o.o.d. accuracy of plain averaging and the AND-mask on the
  memorisation task against the number of training environments.

Layout: every trainer trains many models of one shape (settings × seeds) as one batched model on the project's
batched-trainer core, :mod:`dynamics.numerics.torch_batched`. The weights of layer l are one tensor of shape
(n_models, fan_out, fan_in) (:func:`dynamics.numerics.torch_batched.stacked_kaiming_mlp`); the per-environment
gradients of every model come from one forward and one backward pass
(:func:`dynamics.numerics.torch_batched.group_logistic_gradients`, with the environments as groups). The AND-mask then
acts per model (its own τ) through the package's one torch AND-mask,
:func:`dynamics.and_mask.torch_optim.and_mask_batched` (the models are its member axis), with the inverse-sparsity
rescaling over each model's own tensor; the core's :class:`dynamics.numerics.torch_batched.MemberOptimizer` (Adam)
adds each model's L1 and L2 penalty to the masked gradient (as the public code's weight decay, after the mask) and
moves each model exactly as it would move alone.

Calls: every trainer is ``trainer(config, seeds, *, dtype="float32", device="cpu")``. The config is a frozen
``typing.NamedTuple`` of the experiment's settings, defined (without torch) in :mod:`dynamics.and_mask` and
re-exported here: :class:`dynamics.and_mask.SpiralMemorisationConfig`, :class:`dynamics.and_mask.LearningSignalsConfig`,
:class:`dynamics.and_mask.NoisyLabelsConfig`, :class:`dynamics.and_mask.EnvironmentSweepConfig`, each with
``source()`` (the paper's size, for a GPU) and ``ci()`` (the size of the project's claim); its fields are checked when
the trainer runs, and a bad one raises a ValueError naming the field. ``seeds`` is a sequence of non-negative integer
seeds, one model per seed and setting.

Models: Kaiming-normal weights (gain √2), biases 0.01, LeakyReLU (slope 0.01), one logit, the logistic
(binary cross-entropy) loss, as the public code. Float32 by default (``dtype="float64"`` for the tests). Every
trainer takes ``device=`` keyword only, default ``"cpu"`` (a ``torch.device`` or a name such as ``"cuda"``); the
device is resolved by ``dynamics.numerics.torch_tools.on_device``, which also pins torch to one intra-op thread while
a trainer computes on the CPU (the thread count is restored afterwards). The results are kept in the disk cache
(``dynamics.numerics.disk_cache``), keyed on the arguments as passed (the config included). Imports torch at module
level; :mod:`dynamics.and_mask` does not import this module.
"""
import math
from typing import Sequence, Union

import numpy as np
import torch

from dynamics.numerics import (disk_cache, require_bool, require_choice, require_in_range, require_integer,
                               seed_streams)
from dynamics.numerics.torch_batched import (MemberOptimizer, group_logistic_gradients, leaky_relu_mlp,
                                             stacked_kaiming_mlp)
from dynamics.numerics.torch_tools import on_device, to_numpy
from ._checks import require_agreement_threshold
from ._mask import THRESHOLD_SLACK
from ._results import (SPIRAL_SETTINGS, EnvironmentSweep, EnvironmentSweepConfig, LearningSignals,
                       LearningSignalsConfig, NoisyLabelRun, NoisyLabelsConfig, SpiralMemorisation,
                       SpiralMemorisationConfig)
from ._setups import make_spiral_dataset
from .torch_optim import _and_mask, _member_sign_thresholds, _sign_sums, and_mask_batched
from ._docs import fill_doc

__all__ = ["EnvironmentSweep", "EnvironmentSweepConfig", "LearningSignals", "LearningSignalsConfig", "NoisyLabelRun",
           "NoisyLabelsConfig", "SPIRAL_SETTINGS", "SpiralMemorisation", "SpiralMemorisationConfig",
           "learning_signals_at_init", "train_environment_sweep", "train_noisy_labels", "train_spiral_memorisation"]

_MAX_MODELS = 4096
_MAX_WIDTH = 4096
_MAX_STEPS = 100_000
_LEAK = 0.01


# ---------------------------------------------------------------------------------------------------------------
# the batched model


def _seed_list(seeds, name="seeds"):
    """The given integer seeds, checked (1 to _MAX_MODELS non-negative ints)."""
    if isinstance(seeds, (list, tuple, np.ndarray)):
        values = [require_integer(name, s, 0) for s in seeds]
        if not values or len(values) > _MAX_MODELS:
            raise ValueError(f"{name} must hold 1 to {_MAX_MODELS} seeds, got {len(values)}")
        return values
    raise TypeError(f"{name} must be a sequence of non-negative ints, got {seeds!r}")


def _config(config, kind):
    """``config`` if it is a ``kind`` (the trainer's configuration NamedTuple), else a TypeError naming it."""
    if not isinstance(config, kind):
        raise TypeError(f"config must be a {kind.__name__}, got {config!r}")
    return config


def _dtype(dtype):
    return {"float32": torch.float32, "float64": torch.float64}[require_choice("dtype", dtype, ("float32", "float64"))]


def _hidden(hidden):
    sizes = tuple(require_integer("hidden", h, 1, _MAX_WIDTH) for h in hidden)
    if not 1 <= len(sizes) <= 8:
        raise ValueError(f"hidden must hold 1 to 8 layer widths, got {len(sizes)}")
    return sizes


def _forward(params, x):
    """Logits of every model: x (M, ..., fan_in) -> (M, ...)."""
    return leaky_relu_mlp(params, x, leak=_LEAK).squeeze(-1)


def _masked_gradients(grads, taus, rescale, thresholds=None):
    """The AND-masked mean gradient of every model: grads (M, E, *shape) per parameter, taus (M,) float64, one τ per
    model (the models are the member axis of ``and_mask_batched``). ``thresholds``: the integer thresholds per
    parameter, from :func:`_step_thresholds` (checked once instead of every step)."""
    if thresholds is None:
        return [and_mask_batched(g, taus, rescale, env_axis=1)[0] for g in grads]
    return [_and_mask(g, t, rescale, False, 1)[0] for g, t in zip(grads, thresholds)]


def _step_thresholds(params, taus, n_envs):
    """Per parameter, the integer thresholds of the models (one per model, shaped for its tensor), checked once."""
    return [_member_sign_thresholds(taus, n_envs, (p.shape[0],), p.dim() - 1, p.device) for p in params]


def _accuracy(params, x, y):
    """Accuracy of every model: x (M, ..., D), y (M, ...) -> (M,)."""
    with torch.no_grad():
        right = (_forward(params, x) > 0) == (y > 0)
        return right.to(torch.float64).flatten(1).mean(dim=1)


def _train(params, taus, l1, l2, n_steps, learning_rate, rescale, batch, evaluate, record_every):
    """The shared loop: the AND-mask per model (taus (M,)), then the core's Adam with each model's L1 and L2 penalty
    (l1, l2 (M,) arrays) and the learning rate ×0.1 from ¾ of training on, as the public code.

    ``batch(step)`` returns the (M, E, n, D) inputs and (M, E, n) labels of the step; ``evaluate()`` returns a tuple
    of (M,) accuracies. Returns the recorded steps and, per quantity, an array (M, n_records)."""
    optimizer = MemberOptimizer(params, learning_rate, l1=l1, weight_decay=l2, adam=True)
    milestone = (3 * n_steps) // 4
    steps, records, thresholds = [], [], None
    for step in range(n_steps + 1):
        if step % record_every == 0 or step == n_steps:
            if not all(bool(torch.isfinite(p).all()) for p in params):  # checked here, not at every step
                raise ValueError(f"training diverged before step {step}: a weight is NaN or infinite (lower "
                                 f"learning_rate)")
            steps.append(step)
            records.append([to_numpy(a) for a in evaluate()])
        if step == n_steps:
            break
        x, y = batch(step)
        grads = group_logistic_gradients(params, x, y, leak=_LEAK)
        if thresholds is None:
            thresholds = _step_thresholds(params, taus, x.shape[1])
        optimizer.step(_masked_gradients(grads, taus, rescale, thresholds), scale=0.1 if step >= milestone else 1.0)
    curves = [np.stack([r[q] for r in records], axis=-1) for q in range(len(records[0]))]
    return np.array(steps), curves


def _member_taus(taus, device):
    """One τ per model, a float64 tensor (M,) (the per-member thresholds of ``and_mask_batched``)."""
    return torch.tensor([float(t) for t in taus], dtype=torch.float64, device=device)


# ---------------------------------------------------------------------------------------------------------------
# Fig 6 and Fig 14: the memorisation task


def _spiral_task(config):
    """The checked memorisation-task fields a spiral config shares (environments, examples per environment, shortcut
    dimension, turns) and the MLP's layer sizes."""
    n_envs = require_integer("n_envs", config.n_envs, 1, 1024)
    n = require_integer("n_samples_per_env", config.n_samples_per_env, 2, 4096)
    dim = require_integer("dim_shortcut", config.dim_shortcut, 1, 256)
    turns = require_in_range("n_revolutions", config.n_revolutions, 0.0, 10.0, low_open=True)
    return n_envs, n, dim, turns, (2 + dim,) + _hidden(config.hidden) + (1,)


def _spiral_tensors(seeds, n_envs, n_samples_per_env, dim_shortcut, n_revolutions, n_test, dtype, device):
    sets = [make_spiral_dataset(n_envs, n_samples_per_env, dim_shortcut, n_revolutions, 1.0, n_test, seed=s)
            for s in seeds]
    as_t = lambda a: torch.as_tensor(np.stack(a), dtype=dtype, device=device)  # noqa: E731
    return (as_t([d.train_inputs for d in sets]), as_t([d.train_labels for d in sets]),
            as_t([d.test_inputs for d in sets]), as_t([d.test_labels for d in sets]))


def _settings(settings):
    rows = [tuple(s) for s in settings]
    if not 1 <= len(rows) <= 256 or any(len(r) != 3 for r in rows):
        raise ValueError(f"settings must hold 1 to 256 (τ, l1, l2) triples, got {settings!r}")
    taus = np.array([require_agreement_threshold(r[0]) for r in rows])
    l1 = np.array([require_in_range("l1 penalty in settings", r[1], 0.0, 1.0) for r in rows])
    l2 = np.array([require_in_range("l2 penalty in settings", r[2], 0.0, 1.0) for r in rows])
    return taus, l1, l2


@fill_doc
@disk_cache(salt=torch.__version__)  # rendering a figure again reuses its training
@on_device
def train_spiral_memorisation(config: SpiralMemorisationConfig = SpiralMemorisationConfig(),
                              seeds: Sequence[int] = (0, 1, 2), *, dtype: str = "float32",
                              device: Union[str, torch.device] = "cpu") -> SpiralMemorisation:
    """Train LeakyReLU MLPs on the synthetic memorisation task with AND-masked, averaged or penalised gradients
    (Parascandolo et al. 2021, Fig 6 and Fig 14).

    Every setting (τ, L1, L2) of the config is trained on every seed's data set
    (:func:`dynamics.and_mask.make_spiral_dataset`, shortcut entries N(0, 1)) from that seed's initial weights, full
    batch in each environment: per step, one gradient per environment, the AND-mask at τ (τ = 0: the plain average),
    inverse-sparsity rescaling per tensor (the public code), then the L1 gradient λ₁·sign(w) and the L2 gradient
    λ₂·w, then Adam (lr ×0.1 at ¾ of the steps). All settings × seeds are one batched model.

    Parameters
    ----------
    config : SpiralMemorisationConfig, default SpiralMemorisationConfig()
        The settings, sizes and optimiser (:class:`dynamics.and_mask.SpiralMemorisationConfig`; ``.source()`` is the
        paper's size, ``.ci()`` the claim's). A bad field raises a ValueError naming it when the trainer runs.
    seeds : sequence of int, default (0, 1, 2)
        The integer seeds, 1 to 4096 non-negative ints (each gives one data set and one initialisation, shared by
        all settings: runs are paired).
    %(dtype_name)s
    %(device)s

    Returns
    -------
    SpiralMemorisation

    Examples
    --------
    >>> config = SpiralMemorisationConfig(settings=((0.0, 0.0, 0.0), (1.0, 0.0, 0.0)), n_envs=4, n_samples_per_env=16,
    ...                                   hidden=(8,), n_steps=20, n_test=50, record_every=10)
    >>> run = train_spiral_memorisation(config, seeds=(0, 1), device="cpu")
    >>> run.train_accuracy.shape, run.steps.tolist()
    ((2, 2, 3), [0, 10, 20])
    """
    config = _config(config, SpiralMemorisationConfig)
    taus, l1, l2 = _settings(config.settings)
    seed_list = _seed_list(seeds)
    n_envs, n, dim, turns, sizes = _spiral_task(config)
    n_steps = require_integer("n_steps", config.n_steps, 0, _MAX_STEPS)
    lr = require_in_range("learning_rate", config.learning_rate, 0.0, 1.0, low_open=True)
    rescale = require_bool("rescale", config.rescale)
    n_test = require_integer("n_test", config.n_test, 2, 100_000)
    record_every = require_integer("record_every", config.record_every, 1)
    if len(taus) * len(seed_list) > _MAX_MODELS:
        raise ValueError(f"settings × seeds must be at most {_MAX_MODELS} models, got {len(taus) * len(seed_list)}")
    dt = _dtype(dtype)
    x, y, x_test, y_test = _spiral_tensors(seed_list, n_envs, n, dim, turns, n_test, dt, device)
    k, s = len(taus), len(seed_list)
    expand = lambda t: t.unsqueeze(0).expand(k, *t.shape).reshape(k * s, *t.shape[1:])  # noqa: E731
    x, y, x_test, y_test = expand(x), expand(y), expand(x_test), expand(y_test)
    params = stacked_kaiming_mlp(seed_list * k, sizes, dtype=dt, device=device)
    member_taus = _member_taus(np.repeat(taus, s), device)

    if config.batch_size is None:
        step_data = lambda step: (x, y)  # noqa: E731  (full batch)
    else:
        size = require_integer("batch_size", config.batch_size, 1, n)
        streams = [seed_streams(sd, ("batches",)).batches for sd in seed_list]
        rows = torch.arange(k * s, device=device)[:, None, None]
        envs = torch.arange(n_envs, device=device)[None, :, None]

        def step_data(step):  # called once per step, in order: each seed's stream draws that step's minibatches
            # per seed and environment, `size` of its n examples without replacement (the first of a random order)
            idx = np.stack([np.argsort(r.random((n_envs, n)), axis=-1)[:, :size] for r in streams])  # (S, E, B)
            idx = torch.as_tensor(np.tile(idx, (k, 1, 1)), device=device)  # (K·S, E, B), τ-major as the models
            return x[rows, envs, idx], y[rows, envs, idx]  # (M, E, B, D), (M, E, B)

    def evaluate():
        return _accuracy(params, x, y), _accuracy(params, x_test, y_test)

    steps, (train, test) = _train(params, member_taus, np.repeat(l1, s), np.repeat(l2, s), n_steps, lr, rescale,
                                  step_data, evaluate, record_every)
    return SpiralMemorisation(taus, l1, l2, np.array(seed_list), steps, train.reshape(k, s, -1),
                              test.reshape(k, s, -1))


# ---------------------------------------------------------------------------------------------------------------
# Fig 7: dissecting the learning signals at initialisation


def _masked_correlation(update, other, keep):
    """Pearson correlation over the kept components, per model: (M, P) each -> (M,); NaN below 3 kept."""
    w = keep.to(update.dtype)
    count = w.sum(dim=1)
    safe = count.clamp(min=1.0)
    mu_a, mu_b = (update * w).sum(dim=1) / safe, (other * w).sum(dim=1) / safe
    a, b = (update - mu_a[:, None]) * w, (other - mu_b[:, None]) * w
    r = (a * b).sum(dim=1) / torch.sqrt((a * a).sum(dim=1) * (b * b).sum(dim=1))
    return torch.where(count >= 3, r, torch.full_like(r, float("nan")))


@fill_doc
@disk_cache(salt=torch.__version__)  # rendering a figure again reuses its training
@on_device
def learning_signals_at_init(config: LearningSignalsConfig = LearningSignalsConfig(),
                             seeds: Sequence[int] = tuple(range(40)), *, dtype: str = "float32",
                             device: Union[str, torch.device] = "cpu") -> LearningSignals:
    """Correlation of the masked average gradient of a freshly initialised MLP with a memorisation gradient and
    with a mechanism gradient, against τ (Parascandolo et al. 2021, Fig 7; no training).

    The paper leaves the two reference gradients open; here, on the memorisation task of each seed
    (:func:`dynamics.and_mask.make_spiral_dataset` with the config's sizes, environment e's examples, the same
    weights):

    * the original gradients g_e: environment e's gradient on its own data (spirals and shortcut);
    * the mechanism gradient: the mean over environments of the gradient on the same examples with the shortcut
      block redrawn per example (N(0, 1) entries, as in the o.o.d. test set), so only the spirals carry the label;
    * the memorisation gradient: the mean over environments of the gradient on the same examples with the spiral
      block replaced by an independent draw of spirals (labels kept), so only the shortcut carries the label;
    * both minus the null gradient: the same with both blocks label-free (spirals redrawn, shortcut redrawn). The
      null part depends on the labels only (their imbalance within a batch times the mean activations) and is
      common to the three gradients; left in, it makes every correlation ≈ 1 at this size.

    For each τ the AND-mask m (abs(Σ_e sign g_e) >= ⌈τd⌉) and the XOR-mask (abs(Σ_e sign g_e) <= ⌊(1 − τ)d⌋,
    :func:`dynamics.and_mask.xor_mask`) select components of the average gradient ḡ = mean_e g_e; the result is
    the Pearson correlation of ḡ with each reference gradient over the selected components (all parameter tensors
    together), as the paper's regression slope between standardised gradient vectors over the unmasked components.

    Parameters
    ----------
    config : LearningSignalsConfig, default LearningSignalsConfig()
        The thresholds τ, the task's sizes and the network (:class:`dynamics.and_mask.LearningSignalsConfig`;
        ``.source()`` is the paper's size, ``.ci()`` the claim's). A bad field raises a ValueError naming it when
        the function runs.
    seeds : sequence of int, default (0, 1, ..., 39)
        The integer weight seeds, 1 to 4096 non-negative ints (each with its own data set); the paper uses 40.
    %(dtype_name)s
    %(device)s

    Returns
    -------
    LearningSignals

    Examples
    --------
    >>> config = LearningSignalsConfig(agreement_thresholds=(0.0, 1.0), n_envs=4, n_samples_per_env=32, hidden=(16,))
    >>> signals = learning_signals_at_init(config, seeds=(0, 1), device="cpu")
    >>> signals.and_mechanism.shape, bool(np.all(signals.and_kept_fraction[:, 0] == 1.0))
    ((2, 2), True)
    """
    config = _config(config, LearningSignalsConfig)
    taus = np.array([require_agreement_threshold(t) for t in config.agreement_thresholds])
    if not 1 <= taus.size <= 1000:
        raise ValueError(f"agreement_thresholds must hold 1 to 1000 values, got {taus.size}")
    seed_list = _seed_list(seeds)
    n_envs, n, dim, turns, sizes = _spiral_task(config)
    dt = _dtype(dtype)
    original, mechanism, memorisation, null, labels = [], [], [], [], []
    for s in seed_list:
        rng = np.random.default_rng(s)
        data = make_spiral_dataset(n_envs, n, dim, turns, 1.0, 2, seed=rng)
        decoy = make_spiral_dataset(n_envs, n, dim, turns, 1.0, 2, seed=rng)  # independent spirals
        mech = data.train_inputs.copy()
        mech[..., 2:] = rng.standard_normal(mech[..., 2:].shape)
        mem = data.train_inputs.copy()
        mem[..., :2] = decoy.train_inputs[..., :2]
        blank = mech.copy()
        blank[..., :2] = decoy.train_inputs[..., :2]
        original.append(data.train_inputs), mechanism.append(mech), memorisation.append(mem), null.append(blank)
        labels.append(data.train_labels)
    as_t = lambda a: torch.as_tensor(np.stack(a), dtype=dt, device=device)  # noqa: E731
    y = as_t(labels)
    params = stacked_kaiming_mlp(seed_list, sizes, dtype=dt, device=device)
    flat = lambda grads: torch.cat([g.flatten(2) for g in grads], dim=2)  # noqa: E731  (M, E, P)
    per_env = flat(group_logistic_gradients(params, as_t(original), y, leak=_LEAK))
    g_null = flat(group_logistic_gradients(params, as_t(null), y, leak=_LEAK)).mean(dim=1)
    g_mech = flat(group_logistic_gradients(params, as_t(mechanism), y, leak=_LEAK)).mean(dim=1) - g_null
    g_mem = flat(group_logistic_gradients(params, as_t(memorisation), y, leak=_LEAK)).mean(dim=1) - g_null
    mean = per_env.mean(dim=1)
    sums = _sign_sums(per_env, 1).abs()  # (M, P), sign(0) = 0
    out = {key: np.empty((len(seed_list), taus.size)) for key in ("am", "an", "xm", "xn", "ak", "xk")}
    for j, tau in enumerate(taus):
        keep_and = and_mask_batched(per_env, float(tau), env_axis=1)[1]
        keep_xor = sums <= math.floor((1.0 - tau) * n_envs + THRESHOLD_SLACK)  # the XOR-mask of xor_mask
        for keep, mem_key, mech_key, kept_key in ((keep_and, "am", "an", "ak"), (keep_xor, "xm", "xn", "xk")):
            out[mem_key][:, j] = to_numpy(_masked_correlation(mean, g_mem, keep))
            out[mech_key][:, j] = to_numpy(_masked_correlation(mean, g_mech, keep))
            out[kept_key][:, j] = to_numpy(keep.to(torch.float64).mean(dim=1))
    return LearningSignals(taus, out["am"], out["an"], out["xm"], out["xn"], out["ak"], out["xk"])


# ---------------------------------------------------------------------------------------------------------------
# Figs 8, 9 and 16 in spirit: random labels and label noise, each example its own environment


def _teacher_data(seed, n_train, n_test, dim, shuffled_fraction):
    """Gaussian inputs, labels sign(x·w*) of a random unit teacher; a fraction of the training labels permuted
    among themselves. Returns x, given labels, true labels, x_test, y_test, and the minibatch stream's rng."""
    rng = np.random.default_rng(seed)
    teacher = rng.standard_normal(dim)
    teacher /= np.linalg.norm(teacher)
    x = rng.standard_normal((n_train, dim))
    truth = np.where(x @ teacher > 0, 1.0, -1.0)
    given = truth.copy()
    chosen = rng.choice(n_train, size=int(round(shuffled_fraction * n_train)), replace=False)
    given[chosen] = truth[rng.permutation(chosen)]
    x_test = rng.standard_normal((n_test, dim))
    return x, given, truth, x_test, np.where(x_test @ teacher > 0, 1.0, -1.0), rng


@fill_doc
@disk_cache(salt=torch.__version__)  # rendering a figure again reuses its training
@on_device
def train_noisy_labels(config: NoisyLabelsConfig = NoisyLabelsConfig(), seeds: Sequence[int] = (0, 1, 2), *,
                       dtype: str = "float32", device: Union[str, torch.device] = "cpu") -> NoisyLabelRun:
    """Train LeakyReLU MLPs on shuffled labels with each example its own environment (Parascandolo et al. 2021,
    Figs 8, 9 and 16 in spirit; a generated tabular task instead of CIFAR-10).

    Data of each seed: ``config.n_train`` inputs x ~ N(0, I_dim) labelled sign(x·w*) by a random unit teacher w*; the
    labels of a random ``config.shuffled_fraction`` of the examples are permuted among themselves (1.0: random labels,
    Fig 8; 0.25: label noise, Fig 9). Each step draws ``config.batch_size`` examples (the same draws for every τ of a
    seed), takes one gradient per example (each example is an environment, as the paper's CIFAR-10 runs with d = 80),
    AND-masks them at τ (τ = 0: the plain mean), rescales by the inverse kept fraction (the public code), and steps
    Adam (lr ×0.1 at ¾). All τ × seeds are one batched model.

    Parameters
    ----------
    config : NoisyLabelsConfig, default NoisyLabelsConfig()
        The thresholds τ, the shuffled fraction, the task's sizes, the network and the optimiser
        (:class:`dynamics.and_mask.NoisyLabelsConfig`; ``.source()`` is the paper's setting, ``.ci()`` the claim's).
        A bad field raises a ValueError naming it when the trainer runs.
    seeds : sequence of int, default (0, 1, 2)
        The integer seeds, 1 to 4096 non-negative ints (each: data, shuffle, minibatches and initial weights, shared
        by all thresholds: runs are paired).
    %(dtype_name)s
    %(device)s

    Returns
    -------
    NoisyLabelRun

    Examples
    --------
    >>> config = NoisyLabelsConfig(agreement_thresholds=(0.0, 0.8), shuffled_fraction=0.25, n_train=32, dim=4,
    ...                            hidden=(8,), batch_size=8, n_steps=10, n_test=20, record_every=5)
    >>> run = train_noisy_labels(config, seeds=(3,), device="cpu")
    >>> run.train_accuracy.shape, 0.0 < float(run.mislabelled_fraction[0]) <= 0.25
    ((2, 1, 3), True)
    """
    config = _config(config, NoisyLabelsConfig)
    taus = np.array([require_agreement_threshold(t) for t in config.agreement_thresholds])
    if not 1 <= taus.size <= 256:
        raise ValueError(f"agreement_thresholds must hold 1 to 256 values, got {taus.size}")
    fraction = require_in_range("shuffled_fraction", config.shuffled_fraction, 0.0, 1.0)
    seed_list = _seed_list(seeds)
    n_train = require_integer("n_train", config.n_train, 2, 100_000)
    dim = require_integer("dim", config.dim, 1, 4096)
    sizes = (dim,) + _hidden(config.hidden) + (1,)
    batch = require_integer("batch_size", config.batch_size, 1, min(n_train, 1024))
    n_steps = require_integer("n_steps", config.n_steps, 0, _MAX_STEPS)
    lr = require_in_range("learning_rate", config.learning_rate, 0.0, 1.0, low_open=True)
    rescale = require_bool("rescale", config.rescale)
    n_test = require_integer("n_test", config.n_test, 2, 100_000)
    record_every = require_integer("record_every", config.record_every, 1)
    k, s = taus.size, len(seed_list)
    if k * s > _MAX_MODELS:
        raise ValueError(f"thresholds × seeds must be at most {_MAX_MODELS} models, got {k * s}")
    dt = _dtype(dtype)
    parts = [_teacher_data(sd, n_train, n_test, dim, fraction) for sd in seed_list]
    draws = np.stack([p[5].integers(0, n_train, size=(n_steps, batch)) for p in parts], axis=1)  # (steps, S, B)
    as_t = lambda a: torch.as_tensor(np.stack(a), dtype=dt, device=device)  # noqa: E731
    expand = lambda t: t.unsqueeze(0).expand(k, *t.shape).reshape(k * s, *t.shape[1:])  # noqa: E731
    x, given, truth = (expand(as_t([p[i] for p in parts])) for i in range(3))
    x_test, y_test = (expand(as_t([p[i] for p in parts])) for i in (3, 4))
    wrong = (given != truth).to(dt)
    draws = torch.as_tensor(np.tile(draws, (1, k, 1)), device=device)  # (steps, K·S, B), model order τ-major
    rows = torch.arange(k * s, device=device)[:, None]
    params = stacked_kaiming_mlp(seed_list * k, sizes, dtype=dt, device=device)
    member_taus = _member_taus(np.repeat(taus, s), device)

    def step_data(step):
        idx = draws[step]
        return x[rows, idx].unsqueeze(2), given[rows, idx].unsqueeze(2)  # (M, B, 1, D), (M, B, 1)

    def evaluate():
        with torch.no_grad():
            right = ((_forward(params, x) > 0) == (given > 0)).to(dt)
            on_wrong = (right * wrong).sum(dim=1) / wrong.sum(dim=1)
            on_clean = (right * (1 - wrong)).sum(dim=1) / (1 - wrong).sum(dim=1)
            return right.mean(dim=1), on_wrong, on_clean, _accuracy(params, x_test, y_test)

    steps, curves = _train(params, member_taus, 0.0, 0.0, n_steps, lr, rescale, step_data, evaluate, record_every)
    curves = [c.reshape(k, s, -1) for c in curves]
    return NoisyLabelRun(taus, np.array(seed_list), steps, *curves,
                         to_numpy(wrong[:s].mean(dim=1)).astype(np.float64))


# ---------------------------------------------------------------------------------------------------------------
# Fig 15 in spirit: how many environments plain averaging needs, against the AND-mask


def _sweep_thresholds(thresholds):
    """The checked thresholds τ of an environment sweep: 1 to 8 numbers in [0, 1], as a float64 array."""
    if not isinstance(thresholds, (list, tuple, np.ndarray)):
        raise ValueError(f"thresholds must be a sequence of 1 to 8 numbers in [0, 1], got {thresholds!r}")
    taus = np.array([require_in_range("thresholds", t, 0.0, 1.0) for t in thresholds], dtype=np.float64)
    if not 1 <= taus.size <= 8:
        raise ValueError(f"thresholds must hold 1 to 8 values, got {taus.size}")
    return taus


@fill_doc
@disk_cache(salt=torch.__version__)  # rendering a figure again reuses its training
@on_device
def train_environment_sweep(config: EnvironmentSweepConfig = EnvironmentSweepConfig(),
                            seeds: Sequence[int] = (0, 1, 2), *, dtype: str = "float32",
                            device: Union[str, torch.device] = "cpu") -> EnvironmentSweep:
    """Plain averaging (τ = 0) and the AND-mask on the memorisation task against the number of training
    environments, the total number of examples fixed (Parascandolo et al. 2021, Fig 15 in spirit).

    For each number of environments d of the config,
    :func:`dynamics.and_mask.torch_experiments.train_spiral_memorisation` with one setting (τ, no penalty) per
    threshold τ of ``config.thresholds``, all trained as one batched model on the same data and initial weights per
    seed, on ``config.n_total // d`` examples per environment and the config's other fields (the AND-mask with the
    inverse-sparsity rescaling), recording only the final accuracies. With few environments the per-environment
    shortcut signatures separate the training data and averaging memorises them (o.o.d. accuracy near chance); with
    many, memorising every signature costs more than learning the spirals, and averaging switches to the mechanism.
    The AND-mask at τ = 1 keeps only the gradient components on which every environment agrees, which the
    per-environment signatures do not share.

    Parameters
    ----------
    config : EnvironmentSweepConfig, default EnvironmentSweepConfig()
        The numbers of environments, the total number of examples, the task, the network, the optimiser and the
        thresholds (:class:`dynamics.and_mask.EnvironmentSweepConfig`; ``.source()`` is the paper's size, ``.ci()``
        the claim's). A bad field raises a ValueError naming it when the trainer runs.
    seeds : sequence of int, default (0, 1, 2)
        The integer seeds, 1 to 4096 non-negative ints (the same for every d and every τ: runs are paired).
    %(dtype_name)s
    %(device)s

    Returns
    -------
    EnvironmentSweep

    Examples
    --------
    >>> config = EnvironmentSweepConfig(n_envs=(2, 8), n_total=64, hidden=(8,), n_steps=10, n_test=20)
    >>> sweep = train_environment_sweep(config, seeds=(0,), device="cpu")
    >>> sweep.thresholds.tolist(), sweep.test_accuracy.shape
    ([0.0, 1.0], (2, 2, 1))
    """
    config = _config(config, EnvironmentSweepConfig)
    n_total = require_integer("n_total", config.n_total, 2, 100_000)
    sizes = [require_integer("n_envs", d, 1, min(1024, n_total // 2)) for d in config.n_envs]
    if not 1 <= len(sizes) <= 64:
        raise ValueError(f"n_envs must hold 1 to 64 values, got {len(sizes)}")
    taus = _sweep_thresholds(config.thresholds)
    seed_list = _seed_list(seeds)
    settings = tuple((float(t), 0.0, 0.0) for t in taus)
    train, test = [], []
    for d in sizes:
        spiral = SpiralMemorisationConfig(settings=settings, n_envs=d, n_samples_per_env=n_total // d,
                                          dim_shortcut=config.dim_shortcut, n_revolutions=config.n_revolutions,
                                          hidden=config.hidden, n_steps=config.n_steps,
                                          learning_rate=config.learning_rate, n_test=config.n_test,
                                          record_every=_MAX_STEPS + 1)
        run = train_spiral_memorisation(spiral, seed_list, dtype=dtype, device=device)
        train.append(run.train_accuracy[:, :, -1])  # (n_thresholds, n_seeds)
        test.append(run.test_accuracy[:, :, -1])
    return EnvironmentSweep(np.array(sizes), np.array(seed_list), np.stack(train, axis=1), np.stack(test, axis=1),
                            taus)
