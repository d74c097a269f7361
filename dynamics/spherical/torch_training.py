"""Torch training loops of the spherical cross-checks (``verify/crosscheck/spherical.py``), on the models of
:mod:`dynamics.spherical.torch_models` and the data generated here.

* M1 (:func:`dynamics.spherical.torch_models.bn_mlp`): Linear(16 -> 8, no bias) -> BatchNorm1d(8, affine=False, ε = 0)
  -> ReLU -> Linear(8 -> 3), cross-entropy on a Gaussian data set with 20% random labels
  (:func:`dynamics.spherical.torch_training.gaussian_classification`); its radially invariant groups are the 8 rows
  of the first layer.
* M2 (:func:`dynamics.spherical.torch_models.conv_bn_net`): Conv(3 -> 16, 3×3, no bias) -> BN2d -> ReLU -> Conv(16 ->
  16, 3×3, no bias) -> BN2d -> ReLU -> global average pool -> Linear(16 -> 10) on synthetic images
  (:func:`dynamics.spherical.torch_training.synthetic_images`); its groups are the conv filters (d = 27 and 144).

The two data generators stay in the torch layer: they draw from a seeded ``torch.Generator``, whose stream numpy
cannot reproduce, so a numpy version would change every seeded number. The Adam-variants experiment
(:mod:`dynamics.spherical.torch_experiments`) also trains on a small real image set, the 8×8 handwritten digits
(scikit-learn's load_digits, from the UCI data set), split by
:func:`dynamics.spherical.torch_training.digits_classification` (scikit-learn, imported when it is called, holds the
images: no download).

Every function takes ``device=`` keyword-only (default ``"cpu"``), works in float64 unless told otherwise, seeds
torch from ``seed`` and returns named results; the trainers run under :func:`dynamics.numerics.torch_tools.on_device`
(the project's one-thread policy). The three trainers with many settings take them as one frozen configuration,
``trainer(config, seed, *, device="cpu")``: :func:`dynamics.spherical.torch_training.equilibrium_statistics`
(:class:`dynamics.spherical.EquilibriumStatisticsConfig`), :func:`dynamics.spherical.torch_training.adagradg_vs_sgd_m2`
(:class:`dynamics.spherical.AdaGradGVsSGDM2Config`) and :func:`dynamics.spherical.torch_training.adam_variants_m2`
(:class:`dynamics.spherical.AdamVariantsM2Config`), each config with ``source()`` and ``ci()``; its fields are checked
when the trainer runs. This module imports torch and registers nothing; the claims that use it live in
``verify/crosscheck/spherical.py``.
"""
import math
from typing import Optional, Tuple, Union

import numpy as np
import torch

from dynamics.numerics import require_integer, require_positive
from dynamics.numerics.torch_tools import as_tensor, on_device, seed_int, to_numpy, torch_generator
from ._closed_forms import (adagrad_matched_learning_rate, adagradg_equivalent_params, li_arora_equivalent,
                            sgd_lambda0_sandwich)
from ._results import (AdaGradGVsSGDM2Config, AdamVariantsM2Config, AdamVariantsResult, AnglesToSGD,
                       ClassificationData, ClassificationSplit, EquilibriumStatistics, EquilibriumStatisticsConfig, ExponentialLREquivalence,
                       PythagoreanResult, SphericalStepErrors)
from ._step import spherical_step
from .torch_models import bn_mlp, conv_bn_net
from .torch_optim import AdaGradG
from ._docs import fill_doc

__all__ = ["AdaGradGVsSGDM2Config", "AdamVariantsM2Config", "AdamVariantsResult", "AnglesToSGD",
           "ClassificationData", "ClassificationSplit", "EquilibriumStatistics", "EquilibriumStatisticsConfig", "ExponentialLREquivalence",
           "PythagoreanResult", "SphericalStepErrors", "adagradg_vs_sgd_m2", "adam_variants_m2",
           "digits_classification", "equilibrium_statistics", "exponential_lr_pair", "gaussian_classification", "pythagorean_sgd",
           "spherical_step_vs_torch", "synthetic_images"]

Seed = Optional[Union[int, np.random.Generator]]
Device = Union[str, torch.device]


@fill_doc
def gaussian_classification(n_samples: int = 2048, n_features: int = 16, n_classes: int = 3,
                            label_noise: float = 0.2, *, seed: Seed = None, device: Device = "cpu",
                            dtype: torch.dtype = torch.float64) -> ClassificationData:
    """Gaussian inputs labelled by a random linear teacher, with a fraction of random labels (the data of M1).

    The inputs are i.i.d. N(0, 1); the label is the argmax of ``x @ teacher`` with a N(0, 1) teacher
    (n_features, n_classes); each label is then, with probability ``label_noise``, replaced by a uniformly drawn
    class (which may coincide with the teacher's). Everything is drawn on the CPU, then moved to ``device``.

    Parameters
    ----------
    n_samples : int, optional
        Number of samples, >= 2. Default 2048.
    n_features : int, optional
        Input dimension, >= 1. Default 16.
    n_classes : int, optional
        Number of classes, >= 1. Default 3.
    label_noise : float, optional
        Probability in [0, 1] that a label is redrawn uniformly at random. Default 0.2.
    seed : None, int >= 0 or numpy.random.Generator, optional
        Seeds the torch generator (through ``numpy.random.default_rng``; a Generator's stream advances once).
        Default None: fresh entropy, not reproducible.
    %(device)s
    dtype : torch.dtype, optional
        Floating dtype of the inputs. Default ``torch.float64``.

    Returns
    -------
    ClassificationData
        ``inputs``, a ``dtype`` tensor (n_samples, n_features), and ``labels``, an int64 tensor (n_samples,) with
        values in [0, n_classes).

    Examples
    --------
    >>> data = gaussian_classification(64, seed=0)
    >>> tuple(data.inputs.shape), int(data.labels.max()) <= 2
    ((64, 16), True)
    >>> data.inputs.dtype, data.labels.dtype
    (torch.float64, torch.int64)
    """
    n_samples = require_integer("n_samples", n_samples, 2)
    gen = torch_generator(seed)
    x = torch.randn(n_samples, n_features, generator=gen, dtype=dtype)
    teacher = torch.randn(n_features, n_classes, generator=gen, dtype=dtype)
    labels = (x @ teacher).argmax(dim=1)
    flip = torch.rand(n_samples, generator=gen, dtype=dtype) < label_noise
    labels[flip] = torch.randint(0, n_classes, (int(flip.sum()),), generator=gen)
    return ClassificationData(x.to(device), labels.to(device))


#: The number of images of scikit-learn's load_digits (8×8 handwritten digits, 10 classes).
DIGITS_SIZE = 1797


@fill_doc
def digits_classification(n_train: int = 1297, n_test: int = 500, *, seed: Seed = 0, device: Device = "cpu",
                          dtype: torch.dtype = torch.float64) -> ClassificationSplit:
    """The 8×8 handwritten digits (scikit-learn's load_digits, from the UCI data set: 1797 images of 10 classes,
    pixels 0-16) split into a training and a held-out part, stratified by class, pixels scaled to [0, 1].

    The split is scikit-learn's ``train_test_split`` (stratified, ``random_state`` from ``seed``), taking ``n_test``
    held-out images and ``n_train`` training images from the rest, so that the same arguments give the same split.
    scikit-learn is imported when the function is called (it ships the images: nothing is downloaded).

    Parameters
    ----------
    n_train : int, optional
        Training images, in [10, 1797 - n_test]. Default 1297.
    n_test : int, optional
        Held-out images, in [10, 1787]. Default 500.
    seed : int >= 0 or numpy.random.Generator, optional
        Seeds the split (through ``numpy.random.default_rng``). Default 0.
    %(device)s
    %(dtype_images)s

    Returns
    -------
    ClassificationSplit
        ``train`` and ``test``, each a :class:`dynamics.spherical.torch_training.ClassificationData` of images, a
        ``dtype`` tensor (n, 1, 8, 8) with values in [0, 1], and labels, an int64 tensor (n,) with values in 0-9.

    Raises
    ------
    ImportError
        If scikit-learn is not installed (``pip install scikit-learn``, or the project's [torch] extra).
    ValueError
        If ``n_train`` or ``n_test`` is out of range.

    Examples
    --------
    >>> split = digits_classification()
    >>> tuple(split.train.inputs.shape), tuple(split.test.inputs.shape)
    ((1297, 1, 8, 8), (500, 1, 8, 8))
    >>> counts = split.test.labels.bincount()            # stratified: about 50 of each digit
    >>> len(counts), int(counts.min()) >= 48, int(counts.max()) <= 52
    (10, True, True)
    >>> float(split.train.inputs.min()), float(split.train.inputs.max())
    (0.0, 1.0)
    """
    n_test = require_integer("n_test", n_test, 10, DIGITS_SIZE - 10)
    n_train = require_integer("n_train", n_train, 10, DIGITS_SIZE - n_test)
    if seed is None:
        raise ValueError("seed must be an int >= 0 or a numpy.random.Generator (the split must be reproducible), "
                         "got None")
    try:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError as exc:
        raise ImportError("digits_classification needs scikit-learn, which ships the 8×8 digits: pip install "
                          "scikit-learn (or the project's [torch] extra)") from exc
    images, labels = load_digits(return_X_y=True)
    state = seed_int(seed) % 2 ** 32  # scikit-learn takes a 32-bit random_state
    rest_x, test_x, rest_y, test_y = train_test_split(images, labels, test_size=n_test, stratify=labels,
                                                      random_state=state)
    if n_train < rest_x.shape[0]:
        rest_x, _, rest_y, _ = train_test_split(rest_x, rest_y, train_size=n_train, stratify=rest_y,
                                                random_state=state)

    def part(x, y):
        pixels = torch.as_tensor(np.asarray(x, dtype=np.float64) / 16.0, dtype=dtype).reshape(-1, 1, 8, 8)
        return ClassificationData(pixels.to(device), torch.as_tensor(np.asarray(y), dtype=torch.int64).to(device))

    return ClassificationSplit(part(rest_x, rest_y), part(test_x, test_y))


@fill_doc
def synthetic_images(n_samples: int = 256, size: int = 16, n_classes: int = 10, *, seed: Seed = None,
                     device: Device = "cpu", dtype: torch.dtype = torch.float64) -> ClassificationData:
    """Random 3×size×size images labelled by a random linear teacher on their pooled features (the data of
    M2).

    The pixels are i.i.d. N(0, 1); each image is average-pooled to 3×2×2 (``adaptive_avg_pool2d``) and labelled
    by the argmax of these 12 features times a N(0, 1) teacher (12, n_classes). No label noise. Everything is
    drawn on the CPU, then moved to ``device``.

    Parameters
    ----------
    n_samples : int, optional
        Number of images, >= 1. Default 256.
    size : int, optional
        Side of the square images in pixels, >= 1. Default 16.
    n_classes : int, optional
        Number of classes, >= 1. Default 10.
    seed : None, int >= 0 or numpy.random.Generator, optional
        Seeds the torch generator (through ``numpy.random.default_rng``; a Generator's stream advances once).
        Default None: fresh entropy, not reproducible.
    %(device)s
    %(dtype_images)s

    Returns
    -------
    ClassificationData
        ``inputs``, a ``dtype`` tensor (n_samples, 3, size, size), and ``labels``, an int64 tensor (n_samples,)
        with values in [0, n_classes).

    Examples
    --------
    >>> tuple(synthetic_images(8, size=8, seed=0).inputs.shape)
    (8, 3, 8, 8)
    >>> int(synthetic_images(8, size=8, seed=0).labels.max()) <= 9
    True
    """
    gen = torch_generator(seed)
    x = torch.randn(n_samples, 3, size, size, generator=gen, dtype=dtype)
    teacher = torch.randn(3 * 4, n_classes, generator=gen, dtype=dtype)
    pooled = torch.nn.functional.adaptive_avg_pool2d(x, 2).reshape(n_samples, -1)
    return ClassificationData(x.to(device), (pooled @ teacher).argmax(dim=1).to(device))


def _conv_weights(model):
    return [m.weight for m in model if isinstance(m, torch.nn.Conv2d)]


def _batches(n_samples, batch_size, n_steps, gen):
    for _ in range(n_steps):
        yield torch.randint(0, n_samples, (batch_size,), generator=gen)


@fill_doc
@on_device
def pythagorean_sgd(learning_rate: float = 0.5, n_steps: int = 200, batch_size: int = 256, *, seed: Seed = None,
                    device: Device = "cpu") -> PythagoreanResult:
    """Plain SGD on M1 (float64, BN ε = 0); gradient orthogonality and Pythagorean growth per row of W₁.

    M1 is :func:`dynamics.spherical.torch_models.bn_mlp` with its defaults, trained on
    :func:`dynamics.spherical.torch_training.gaussian_classification` with its defaults (2048 samples) by
    ``torch.optim.SGD`` on all parameters (no momentum, no weight decay) with the mean cross-entropy of mini-batches
    drawn uniformly with replacement.

    Parameters
    ----------
    learning_rate : float, optional
        η > 0. Default 0.5.
    n_steps : int, optional
        Number of SGD steps, >= 1. Default 200.
    batch_size : int, optional
        Samples per mini-batch, >= 2 (batch normalisation with ε = 0 needs two distinct samples). Default 256.
    %(seed_run)s
    %(device)s

    Returns
    -------
    PythagoreanResult
        ``max_cosine`` (float): the worst |cos(∂L/∂w_j, w_j)| over steps and rows; ``max_increment_error``
        (float): the worst |Δ‖w_j‖² − η²‖∂L/∂w_j‖²| / (η²‖∂L/∂w_j‖²); ``radius_fourth_power``, ``sandwich_lower``,
        ``sandwich_upper``: ndarrays (n_steps + 1, 8), r_k⁴ per step and row and its bounds from
        :func:`dynamics.spherical.sgd_lambda0_sandwich` with the recorded g_k = r_k‖∂L/∂w_j‖.

    Examples
    --------
    >>> result = pythagorean_sgd(n_steps=5, seed=0)
    >>> result.max_cosine < 1e-12, result.max_increment_error < 1e-9
    (True, True)
    >>> r4 = result.radius_fourth_power
    >>> r4.shape, bool((result.sandwich_lower <= r4 * (1 + 1e-12)).all())
    ((6, 8), True)
    """
    seed = seed_int(seed)
    learning_rate = require_positive("learning_rate", learning_rate)
    n_steps = require_integer("n_steps", n_steps, 1)
    data = gaussian_classification(seed=seed, device=device)
    model = bn_mlp(seed=seed, device=device)
    weight = model[0].weight
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate, foreach=False)
    gen = torch_generator(seed)
    max_cos = max_err = 0.0
    radii, grads = [weight.detach().norm(dim=1)], []
    for idx in _batches(data.inputs.shape[0], batch_size, n_steps, gen):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(data.inputs[idx]), data.labels[idx]).backward()
        w, g = weight.detach().clone(), weight.grad.detach().clone()
        cos = (w * g).sum(dim=1) / (w.norm(dim=1) * g.norm(dim=1))
        optimizer.step()
        increment = (weight.detach() ** 2).sum(dim=1) - (w ** 2).sum(dim=1)
        expected = learning_rate ** 2 * (g ** 2).sum(dim=1)
        max_cos = max(max_cos, float(cos.abs().max()))
        max_err = max(max_err, float(((increment - expected).abs() / expected).max()))
        radii.append(weight.detach().norm(dim=1))
        grads.append((g.norm(dim=1) * w.norm(dim=1)))  # ‖∇L(u)‖ = r‖∇L(x)‖
    r = to_numpy(torch.stack(radii))
    g = to_numpy(torch.stack(grads))
    lower, upper = zip(*(sgd_lambda0_sandwich(r[0, j], learning_rate, g[:, j]) for j in range(r.shape[1])))
    return PythagoreanResult(max_cos, max_err, r ** 4, np.array(lower).T, np.array(upper).T)


@fill_doc
@on_device
def spherical_step_vs_torch(n_steps: int = 20, batch_size: int = 256,
                            learning_rates: Tuple[float, float, float] = (0.05, 0.01, 0.01),
                            weight_decay: float = 1e-3, *, seed: Seed = None,
                            device: Device = "cpu") -> SphericalStepErrors:
    """Checks :func:`dynamics.spherical.spherical_step` (Theorem 2 of Roburin et al. 2022) against torch's SGD-M + L2,
    Adam + L2 and AdamW, with (a, b, η, decay) read from their state.

    SGD: a = momentum_buffer, b = 1. Adam: a = exp_avg/(1−β₁), b = ((1−β₁^t)/(1−β₁))(sqrt(exp_avg_sq/(1−β₂^t)) + ε)
    with ε = 1e-30 (avoids 0/0). AdamW: the same a, b with η/(1−ηλ) and decay 1 − ηλ.

    Each optimizer trains only W₁ of a fresh copy of M1 (:func:`dynamics.spherical.torch_models.bn_mlp`, same seed;
    the readout stays at its initialisation) on :func:`dynamics.spherical.torch_training.gaussian_classification`'s
    default data, the same mini-batches for all three. SGD has momentum 0.9; Adam and AdamW have betas (0.9, 0.999).
    After every step each row of W₁ is compared with :func:`dynamics.spherical.spherical_step` from the row before the
    step.

    Parameters
    ----------
    n_steps : int, optional
        Number of steps per optimizer, >= 1. Default 20.
    batch_size : int, optional
        Samples per mini-batch (drawn uniformly with replacement), >= 2. Default 256.
    learning_rates : tuple of three floats, optional
        η > 0 of SGD-M + L2, Adam + L2 and AdamW, in that order. Default (0.05, 0.01, 0.01).
    weight_decay : float, optional
        λ >= 0: the L2 coefficient of SGD-M and Adam, the decoupled decay of AdamW (with ηλ < 1). Default 1e-3.
    %(seed_run)s
    %(device)s

    Returns
    -------
    SphericalStepErrors
        ``direction`` and ``radius``: dicts keyed ``"SGD-M+L2"``, ``"Adam+L2"``, ``"AdamW"`` of floats, the worst
        max|u_pred − u_torch| of the unit rows and the worst |r_pred/r_torch − 1| over steps and rows.

    Examples
    --------
    >>> errors = spherical_step_vs_torch(n_steps=2, seed=0)
    >>> max(errors.direction.values()) < 1e-12
    True
    >>> list(errors.radius), bool(max(errors.radius.values()) < 1e-12)
    (['SGD-M+L2', 'Adam+L2', 'AdamW'], True)
    """
    seed = seed_int(seed)
    data = gaussian_classification(seed=seed, device=device)
    direction, radius = {}, {}
    betas, eps = (0.9, 0.999), 1e-30
    for name, lr in zip(("SGD-M+L2", "Adam+L2", "AdamW"), learning_rates):
        model = bn_mlp(seed=seed, device=device)
        weight = model[0].weight
        if name == "SGD-M+L2":
            opt = torch.optim.SGD([weight], lr=lr, momentum=0.9, weight_decay=weight_decay, foreach=False)
        elif name == "Adam+L2":
            opt = torch.optim.Adam([weight], lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=False)
        else:
            opt = torch.optim.AdamW([weight], lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=False)
        gen = torch_generator(seed)
        du = dr = 0.0
        for idx in _batches(data.inputs.shape[0], batch_size, n_steps, gen):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(data.inputs[idx]), data.labels[idx]).backward()
            before = to_numpy(weight)
            opt.step()
            after = to_numpy(weight)
            state = opt.state[weight]
            decay, step_lr = 1.0, lr
            if name == "SGD-M+L2":
                a = to_numpy(state["momentum_buffer"])
                b = np.ones_like(a)
            else:
                t = float(state["step"])
                m, v = to_numpy(state["exp_avg"]), to_numpy(state["exp_avg_sq"])
                c1, c2 = 1 - betas[0] ** t, 1 - betas[1] ** t
                a = m / (1 - betas[0])
                b = (c1 / (1 - betas[0])) * (np.sqrt(v) / math.sqrt(c2) + eps)
                if name == "AdamW":
                    decay = 1 - lr * weight_decay
                    step_lr = lr / decay
            for j in range(before.shape[0]):
                step = spherical_step(before[j], a[j], b[j], step_lr, decay=decay)
                r_next = np.linalg.norm(after[j])
                du = max(du, float(np.abs(step.u_next - after[j] / r_next).max()))
                dr = max(dr, abs(step.r_next / r_next - 1))
        direction[name], radius[name] = du, dr
    return SphericalStepErrors(direction, radius)


@fill_doc
@on_device
def exponential_lr_pair(n_steps: int = 2000, learning_rate: float = 0.05, momentum: float = 0.9,
                        weight_decay: float = 1e-3, batch_size: int = 128, *, seed: Seed = None,
                        device: Device = "cpu") -> ExponentialLREquivalence:
    """Two copies of M1 on identical batches; copy A trains W₁ by SGD-M + L2, copy B by SGD-M with η_k = ηα^{−2k−1}, no
    L2 and the buffer initialised to −(1−α)W₁⁽⁰⁾/(ηα) (:func:`dynamics.spherical.li_arora_equivalent`); the other
    parameters use identical plain SGD in both. Then W₁(B) = α^{−k}W₁(A) and the functions agree.

    M1 is :func:`dynamics.spherical.torch_models.bn_mlp` with its defaults on
    :func:`dynamics.spherical.torch_training.gaussian_classification`'s default data; α and the schedule come from
    :func:`dynamics.spherical.li_arora_equivalent`. The gaps are measured after every step.

    Parameters
    ----------
    n_steps : int, optional
        Number of steps, >= 1. Default 2000.
    learning_rate : float, optional
        η > 0, for W₁ in copy A and for the other parameters of both copies. Default 0.05.
    momentum : float, optional
        γ in [0, 1), the heavy-ball momentum of W₁ in both copies. Default 0.9.
    weight_decay : float, optional
        λ >= 0 of copy A's W₁, with ηλ <= (1 − √γ)² (and ηλ < 1 at γ = 0). Default 1e-3.
    batch_size : int, optional
        Samples per mini-batch (drawn uniformly with replacement), >= 2. Default 128.
    %(seed_run)s
    %(device)s

    Returns
    -------
    ExponentialLREquivalence
        Floats over the run: ``direction_gap``, the worst max-abs difference of the unit rows of W₁;
        ``readout_gap``, the worst max-abs difference of the other parameters; ``loss_gap``, the worst
        |L_A − L_B| of the batch losses; ``radius_ratio_error``, the worst |‖w_j(B)‖/(α^{−k}‖w_j(A)‖) − 1|; and
        ``alpha``, α.

    Examples
    --------
    >>> result = exponential_lr_pair(n_steps=20, seed=0)
    >>> result.direction_gap < 1e-12
    True
    >>> round(result.alpha, 8), result.radius_ratio_error < 1e-10
    (0.99949773, True)
    """
    seed = seed_int(seed)
    n_steps = require_integer("n_steps", n_steps, 1)
    data = gaussian_classification(seed=seed, device=device)
    models = [bn_mlp(seed=seed, device=device) for _ in range(2)]
    x0 = to_numpy(models[0][0].weight)
    equivalent = li_arora_equivalent(learning_rate, weight_decay, momentum, x0.ravel())
    rest = lambda model: [p for p in model.parameters() if p is not model[0].weight]  # noqa: E731
    opt_a = torch.optim.SGD([{"params": [models[0][0].weight], "momentum": momentum, "weight_decay": weight_decay},
                             {"params": rest(models[0])}], lr=learning_rate, foreach=False)
    opt_b = torch.optim.SGD([{"params": [models[1][0].weight], "momentum": momentum},
                             {"params": rest(models[1])}], lr=learning_rate, foreach=False)
    weight_b = models[1][0].weight
    opt_b.state[weight_b]["momentum_buffer"] = as_tensor(equivalent.initial_buffer.reshape(x0.shape), device=device,
                                                         dtype=weight_b.dtype, name="initial_buffer").clone()
    gen = torch_generator(seed)
    gaps = np.zeros(4)
    for k, idx in enumerate(_batches(data.inputs.shape[0], batch_size, n_steps, gen)):
        opt_b.param_groups[0]["lr"] = equivalent.schedule(k)
        losses = []
        for model, opt in zip(models, (opt_a, opt_b)):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(data.inputs[idx]), data.labels[idx])
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
        wa, wb = models[0][0].weight.detach(), models[1][0].weight.detach()
        ua, ub = wa / wa.norm(dim=1, keepdim=True), wb / wb.norm(dim=1, keepdim=True)
        readout = max(float((pa - pb).detach().abs().max()) for pa, pb in zip(rest(models[0]), rest(models[1])))
        ratio = wb.norm(dim=1) / (wa.norm(dim=1) * equivalent.alpha ** -(k + 1))
        gaps = np.maximum(gaps, [float((ua - ub).abs().max()), readout, abs(losses[0] - losses[1]),
                                 float((ratio - 1).abs().max())])
    return ExponentialLREquivalence(*(float(g) for g in gaps), equivalent.alpha)


@fill_doc
@on_device
def equilibrium_statistics(config: EquilibriumStatisticsConfig = EquilibriumStatisticsConfig(), seed: Seed = None, *,
                           device: Device = "cpu") -> EquilibriumStatistics:
    """M1 under mini-batch noise with SGD(-M) + L2 on W₁ (PyTorch's heavy ball, dampening 0), one batched
    model per (configuration, replica); configs are (learning_rate, weight_decay, momentum) triples.

    After ``n_warmup`` steps every row is rescaled (the function is unchanged: radial invariance) to the radius
    the equilibrium law predicts from the warm-up's mean G², the momentum is reset, and the run relaxes for
    ``relaxation_times``·(1−γ)/(4ηλ) steps (the slowest configuration's) before averaging over ``n_average``
    steps. The readout is trained by plain SGD without weight decay.

    The data are :func:`dynamics.spherical.torch_training.gaussian_classification`'s defaults; each model is M1 with 8
    hidden rows, W₁ ~ N(0, 1), readout 0.3·N(0, 1) and zero bias (float64, its own draw per model), trained on the mean
    cross-entropy of the same mini-batches (drawn uniformly with replacement) for every model. The equilibrium radius
    is r⁴ = ηG²/(2λ(1−γ)) with momentum and ηG²/(λ(2−ηλ)) without.

    Parameters
    ----------
    config : EquilibriumStatisticsConfig, optional
        The (learning_rate, weight_decay, momentum) triples ``configs`` and the lengths of the phases
        (:class:`dynamics.spherical.EquilibriumStatisticsConfig`, whose attributes document each field and its range;
        ``.ci()`` and ``.source()`` are the cross-check's CPU and GPU sizes). A bad field raises a ValueError naming
        it. Default ``EquilibriumStatisticsConfig()``: η = 0.1, λ = 1e-3, γ = 0.9, one replica.
    %(seed_run)s
    %(device)s

    Returns
    -------
    EquilibriumStatistics
        ``configs``, the configurations as tuples of floats; ``radius_fourth_power``, ``grad_norm_squared`` and
        ``angle_squared``, ndarrays (n_configs, n_replicas, 8) of the averages over the last ``n_average`` steps
        of r⁴ and G² = r²‖∂L/∂w‖² (both before the step) and of the squared angle between u before and after
        the step; ``n_steps``, the total number of steps (int).

    Examples
    --------
    >>> config = EquilibriumStatisticsConfig(((0.1, 1e-3, 0.9),), n_warmup=5, relaxation_times=0.0, n_average=5)
    >>> stats = equilibrium_statistics(config, seed=0)
    >>> stats.radius_fourth_power.shape
    (1, 1, 8)
    >>> stats.configs, stats.n_steps
    (((0.1, 0.001, 0.9),), 10)
    """
    if not isinstance(config, EquilibriumStatisticsConfig):
        raise TypeError(f"config must be an EquilibriumStatisticsConfig, got {config!r}")
    configs, n_replicas, n_warmup, relaxation_times, n_average, batch_size, readout_learning_rate = config
    seed = seed_int(seed)
    dtype = torch.float64
    configs = tuple(tuple(float(v) for v in c) for c in configs)
    n_replicas = require_integer("n_replicas", n_replicas, 1)
    data = gaussian_classification(seed=seed, device=device)
    n_classes = int(data.labels.max()) + 1
    gen = torch_generator(seed)
    P = len(configs) * n_replicas
    per_model = [c for c in configs for _ in range(n_replicas)]
    as_column = lambda values: torch.tensor(values, dtype=dtype, device=device)[:, None, None]  # noqa: E731
    eta = as_column([c[0] for c in per_model])
    lam = as_column([c[1] for c in per_model])
    gamma = as_column([c[2] for c in per_model])
    n_features, n_hidden = data.inputs.shape[1], 8
    W1 = torch.randn(P, n_hidden, n_features, generator=gen, dtype=dtype).to(device).requires_grad_()
    W2 = (0.3 * torch.randn(P, n_classes, n_hidden, generator=gen, dtype=dtype)).to(device).requires_grad_()
    b2 = torch.zeros(P, n_classes, dtype=dtype, device=device).requires_grad_()
    buffer = torch.zeros_like(W1)
    relax = int(relaxation_times * max((1 - c[2]) / (4 * c[0] * c[1]) for c in configs))
    total = n_warmup + relax + n_average
    sums = torch.zeros(3, P, n_hidden, dtype=dtype, device=device)
    warm_g2 = torch.zeros(P, n_hidden, dtype=dtype, device=device)
    labels_all = data.labels
    for k, idx in enumerate(_batches(data.inputs.shape[0], batch_size, total, gen)):
        idx = idx.to(device)
        x, y = data.inputs[idx], labels_all[idx]
        h = torch.einsum("pij,bj->pbi", W1, x)
        centred = h - h.mean(dim=1, keepdim=True)
        normalised = centred / (centred ** 2).mean(dim=1, keepdim=True).sqrt()  # BatchNorm, ε = 0
        logits = torch.einsum("pki,pbi->pbk", W2, torch.relu(normalised)) + b2[:, None, :]
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, n_classes), y.repeat(P), reduction="sum")
        gW1, gW2, gb2 = torch.autograd.grad(loss / batch_size, (W1, W2, b2))
        with torch.no_grad():
            r2 = (W1 ** 2).sum(dim=2)
            g2 = r2 * (gW1 ** 2).sum(dim=2)
            old = W1.detach().clone()
            buffer.mul_(gamma).add_(gW1 + lam * W1)
            W1 -= eta * buffer
            W2 -= readout_learning_rate * gW2
            b2 -= readout_learning_rate * gb2
            if k < n_warmup:
                warm_g2 += g2
                if k == n_warmup - 1:
                    mean_g2 = warm_g2 / n_warmup
                    e, l_, m = eta[:, :, 0], lam[:, :, 0], gamma[:, :, 0]
                    target = torch.where(m > 0, e * mean_g2 / (2 * l_ * (1 - m)), e * mean_g2 / (l_ * (2 - e * l_)))
                    W1 *= (target ** 0.25 / W1.norm(dim=2))[:, :, None]
                    buffer.zero_()
            elif k >= n_warmup + relax:
                u_old = old / old.norm(dim=2, keepdim=True)
                u_new = W1 / W1.norm(dim=2, keepdim=True)
                cosine = (u_old * u_new).sum(dim=2)
                sine = (u_new - cosine[:, :, None] * u_old).norm(dim=2)
                sums += torch.stack([r2 ** 2, g2, torch.atan2(sine, cosine) ** 2])
    means = to_numpy(sums / n_average).reshape(3, len(configs), n_replicas, n_hidden)
    return EquilibriumStatistics(configs, means[0], means[1], means[2], total)


@fill_doc
@on_device
def adagradg_vs_sgd_m2(config: AdaGradGVsSGDM2Config = AdaGradGVsSGDM2Config(), seed: Seed = None, *,
                       device: Device = "cpu", dtype: torch.dtype = torch.float64) -> AnglesToSGD:
    """Fig 3.4 in small ( Theorem 4 of Roburin et al. 2022): pre-train M2 with SGD-M, then fine-tune three copies
    on identical batches: (i) SGD + L2 on the conv filters (no momentum), (ii) AdaGradG on the normalised filters
    with Theorem 4's β = (1−ηλ)⁴,
    η_AGG = (2β)^{−1/2} and per-filter v₀ = r₀⁴/(2η²√β), (iii) element-wise AdaGrad with its learning rate matched
    to SGD's first step. The other parameters use the same plain SGD in all three. The defaults are App. C.1's
    η = 1e-2, λ = 1e-3 (β ≈ 0.99996, η_AGG ≈ 0.7071).

    M2 is :func:`dynamics.spherical.torch_models.conv_bn_net` on 512
    :func:`dynamics.spherical.torch_training.synthetic_images` (10 classes); the pre-training is SGD with learning rate
    0.05 and momentum 0.9 on all parameters; the fine-tuning batches (drawn uniformly with replacement) restart the
    pre-training's batch sequence. AdaGradG starts from the unit filters; AdaGrad has ε = 1e-30.

    Parameters
    ----------
    config : AdaGradGVsSGDM2Config, optional
        The steps, η, λ, image size, batch size and width (:class:`dynamics.spherical.AdaGradGVsSGDM2Config`, whose
        attributes document each field and its range; ``.ci()`` and ``.source()`` are the cross-check's CPU and GPU
        sizes). Default ``AdaGradGVsSGDM2Config()``: 300 fine-tuning steps after 100, 8×8 images, width 16.
    %(seed_run)s
    %(device)s
    dtype : torch.dtype, optional
        Floating dtype of the data and models. Default ``torch.float64``.

    Returns
    -------
    AnglesToSGD
        ``steps``, int ndarray 0..n_steps; ``angle_adagradg`` and ``angle_adagrad``, float ndarrays
        (n_steps + 1,): the largest angle in radians over the filters of both convolutions between SGD + L2 and
        AdaGradG, and between SGD + L2 and AdaGrad, before fine-tuning and after each step.

    Examples
    --------
    >>> run = adagradg_vs_sgd_m2(AdaGradGVsSGDM2Config(n_steps=3, n_pretrain=2), seed=0)
    >>> bool(run.angle_adagradg.max() < 1e-6)
    True
    >>> run.steps.tolist(), run.angle_adagrad.shape, bool(run.angle_adagrad[0] < 1e-12)
    ([0, 1, 2, 3], (4,), True)
    """
    if not isinstance(config, AdaGradGVsSGDM2Config):
        raise TypeError(f"config must be an AdaGradGVsSGDM2Config, got {config!r}")
    n_steps, learning_rate, weight_decay, n_pretrain, image_size, batch_size, width = config
    seed = seed_int(seed)
    data = synthetic_images(512, image_size, seed=seed, device=device, dtype=dtype)
    base = conv_bn_net(width, seed=seed, device=device, dtype=dtype)
    gen = torch_generator(seed)
    pretrain = torch.optim.SGD(base.parameters(), lr=0.05, momentum=0.9, foreach=False)
    loss_of = lambda model, idx: torch.nn.functional.cross_entropy(  # noqa: E731
        model(data.inputs[idx]), data.labels[idx])
    for idx in _batches(data.inputs.shape[0], batch_size, n_pretrain, gen):
        pretrain.zero_grad()
        loss_of(base, idx).backward()
        pretrain.step()
    copies = []
    for _ in range(3):
        model = conv_bn_net(width, seed=seed, device=device, dtype=dtype)
        model.load_state_dict(base.state_dict())
        copies.append(model)
    filters = [_conv_weights(m) for m in copies]
    others = [[p for p in m.parameters() if all(p is not w for w in fs)] for m, fs in zip(copies, filters)]
    params = adagradg_equivalent_params(learning_rate, weight_decay, 1.0)
    v0 = []
    with torch.no_grad():
        for w in filters[1]:
            r0 = w.reshape(w.shape[0], -1).norm(dim=1)
            v0.append(r0 ** 4 / (2 * learning_rate ** 2 * math.sqrt(params.beta)))
            w /= r0[:, None, None, None]
    first_idx = next(_batches(data.inputs.shape[0], batch_size, 1, torch_generator(seed)))
    copies[2].zero_grad()
    loss_of(copies[2], first_idx).backward()
    grad_norm = torch.cat([w.grad.reshape(-1) for w in filters[2]]).norm()
    matched = adagrad_matched_learning_rate(learning_rate, float(grad_norm), sum(w.numel() for w in filters[2]))
    optimizers = [
        [torch.optim.SGD(filters[0], lr=learning_rate, weight_decay=weight_decay, foreach=False)],
        [AdaGradG([{"params": [w], "v0": v} for w, v in zip(filters[1], v0)], params.learning_rate, params.beta, 1.0)],
        [torch.optim.Adagrad(filters[2], lr=matched, weight_decay=weight_decay, eps=1e-30, foreach=False)]]
    for group, rest in zip(optimizers, others):
        group.append(torch.optim.SGD(rest, lr=learning_rate, foreach=False))

    def worst_angle(a, b):
        worst = 0.0
        for wa, wb in zip(a, b):
            x, y = wa.detach().reshape(wa.shape[0], -1), wb.detach().reshape(wb.shape[0], -1)
            x, y = x / x.norm(dim=1, keepdim=True), y / y.norm(dim=1, keepdim=True)
            cosine = (x * y).sum(dim=1)
            sine = (y - cosine[:, None] * x).norm(dim=1)
            worst = max(worst, float(torch.atan2(sine, cosine).max()))
        return worst

    angle_agg, angle_ag = [worst_angle(filters[0], filters[1])], [worst_angle(filters[0], filters[2])]
    for idx in _batches(data.inputs.shape[0], batch_size, n_steps, torch_generator(seed)):
        for model, opts in zip(copies, optimizers):
            for opt in opts:
                opt.zero_grad()
            loss_of(model, idx).backward()
            for opt in opts:
                opt.step()
        angle_agg.append(worst_angle(filters[0], filters[1]))
        angle_ag.append(worst_angle(filters[0], filters[2]))
    return AnglesToSGD(np.arange(n_steps + 1), np.array(angle_agg), np.array(angle_ag))


@fill_doc
@on_device
def adam_variants_m2(config: AdamVariantsM2Config = AdamVariantsM2Config(), seed: Seed = None, *,
                     device: Device = "cpu", dtype: torch.dtype = torch.float64) -> AdamVariantsResult:
    """The torch AdamS, AdamST, AdamSRT and AdamG of :mod:`dynamics.spherical.torch_optim` on M2's conv
    filters (``channel_wise=True``; element-wise Adam on the rest), against the numpy optimizers of
    :mod:`dynamics.spherical` stepping each filter with the same gradients.

    M2 is :func:`dynamics.spherical.torch_models.conv_bn_net` on 256
    :func:`dynamics.spherical.torch_training.synthetic_images` (10 classes), a fresh copy (same seed) and the same
    mini-batches (drawn uniformly with replacement) per variant; betas (0.9, 0.99), ε = 1e-8. Each numpy optimizer
    keeps its own state but restarts every step from the torch filter, so the gap is per step.

    Parameters
    ----------
    config : AdamVariantsM2Config, optional
        The steps, η, λ, image size, batch size and width (:class:`dynamics.spherical.AdamVariantsM2Config`, whose
        attributes document each field and its range; ``.ci()`` is the cross-check's CPU size). Default
        ``AdamVariantsM2Config()``: 20 steps, η = 0.01, λ = 0.05, 8×8 images, width 16.
    %(seed_run)s
    %(device)s
    dtype : torch.dtype, optional
        Floating dtype of the data and model. Default ``torch.float64``.

    Returns
    -------
    AdamVariantsResult
        Dicts of floats, worst over steps and filters: ``numpy_gap`` (keys ``"AdamS"``, ``"AdamST"``,
        ``"AdamSRT"``, ``"AdamG"``), max|x_torch − x_numpy| / max|x_numpy|; ``radial_identity`` (keys
        ``"AdamST"``, ``"AdamSRT"``), |⟨m_k, x_k⟩ − (1−β₁)λr_k²|/(‖m_k‖‖x_k‖) with m_k the numpy optimizer's
        first moment; ``tangency`` (all four keys, 0.0 for AdamS, which does not transport),
        |⟨m, x_{k+1}⟩|/(‖m‖‖x_{k+1}‖) of torch's ``exp_avg``.

    Examples
    --------
    >>> result = adam_variants_m2(AdamVariantsM2Config(n_steps=2), seed=0)
    >>> max(result.numpy_gap.values()) < 1e-12
    True
    >>> sorted(result.radial_identity), result.tangency["AdamS"]
    (['AdamSRT', 'AdamST'], 0.0)
    """
    if not isinstance(config, AdamVariantsM2Config):
        raise TypeError(f"config must be an AdamVariantsM2Config, got {config!r}")
    n_steps, learning_rate, weight_decay, image_size, batch_size, width = config
    seed = seed_int(seed)
    from . import _optimizers as numpy_optim
    from . import torch_optim

    data = synthetic_images(256, image_size, seed=seed, device=device, dtype=dtype)
    betas, eps = (0.9, 0.99), 1e-8
    gap, radial, tangency = {}, {}, {}
    for name in ("AdamS", "AdamST", "AdamSRT", "AdamG"):
        model = conv_bn_net(width, seed=seed, device=device, dtype=dtype)
        filters = _conv_weights(model)
        rest = [p for p in model.parameters() if all(p is not w for w in filters)]
        cls = getattr(torch_optim, name)
        lam = 0.0 if name == "AdamG" else weight_decay
        opt = cls([{"params": filters, "channel_wise": True}, {"params": rest}], learning_rate=learning_rate,
                  betas=betas, eps=eps, weight_decay=lam)
        numpy_cls = getattr(numpy_optim, name)
        kwargs = {} if name == "AdamG" else {"weight_decay": lam}
        mirrors = [[numpy_cls(learning_rate, betas=betas, eps=eps, **kwargs) for _ in range(w.shape[0])]
                   for w in filters]
        xs = [to_numpy(w.reshape(w.shape[0], -1)) for w in filters]
        worst_gap = worst_radial = worst_tangent = 0.0
        for idx in _batches(data.inputs.shape[0], batch_size, n_steps, torch_generator(seed)):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(data.inputs[idx]), data.labels[idx]).backward()
            grads = [to_numpy(w.grad.reshape(w.shape[0], -1)) for w in filters]
            opt.step()
            for layer, (w, mirror, x, g) in enumerate(zip(filters, mirrors, xs, grads)):
                new = to_numpy(w.reshape(w.shape[0], -1))
                m_torch = to_numpy(opt.state[w]["exp_avg"].reshape(w.shape[0], -1))
                for j in range(w.shape[0]):
                    x_next = mirror[j].step(x[j], g[j])
                    worst_gap = max(worst_gap, float(np.abs(new[j] - x_next).max() / np.abs(x_next).max()))
                    m_used = mirror[j].last_generic_form.a * (1 - betas[0])
                    radial_error = abs(m_used @ x[j] - (1 - betas[0]) * lam * (x[j] @ x[j]))
                    worst_radial = max(worst_radial, radial_error / (np.linalg.norm(m_used) * np.linalg.norm(x[j])))
                    if name != "AdamS":
                        worst_tangent = max(worst_tangent, abs(m_torch[j] @ new[j]) /
                                            (np.linalg.norm(m_torch[j]) * np.linalg.norm(new[j])))
                xs[layer] = new.copy()
        gap[name], tangency[name] = worst_gap, worst_tangent
        if name in ("AdamST", "AdamSRT"):
            radial[name] = worst_radial
    return AdamVariantsResult(gap, radial, tangency)
