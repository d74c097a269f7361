"""The reusable set-ups of the AND-mask experiments (Parascandolo et al. 2021, §3.1 and Fig 4; the authors' public
code and notebook): data generators, the sources' named configurations and the experiment drivers that figures,
claims, notebooks and cross-checks share.

* The synthetic memorisation data of paper §3.1: two interleaved spirals (the mechanism, the same in every
  environment) and a per-environment shortcut ±x_s (public code ``get_spirals_dataset``: n_revolutions = 3, radii
  U(0.08, 1) with U[−0.02, 0.02] noise, mechanism standardised, signature entries N(0, 1) by default); the o.o.d.
  test set draws the shortcut i.i.d. per example.
* The authors' linear-regression patchwork (notebook ``linear_regression_ilc``): x_e = 3·[e_e | 0.1], y_e = 1.
  Its named methods (``PATCHWORK_METHODS``) and the shared weight at the masked fixed point.
* The linearised shortcut task (the project's logistic-regression version of the memorisation task):
  x_M = a·y + N(0, 1), x_S = y·s_e, and full-batch (AND-masked) gradient descent on it in numpy
  (``and_masked_gd``), the reference the torch
  cross-check reproduces; the sweep over thresholds and data sets of the shortcut figure, and the Bayes accuracy
  Φ(a) of the invariant feature.
* The experiments of paper Fig 4 (masked against plain squared norms for pure noise, t = ⌈ρd⌉ agreeing signs,
  exact and Monte Carlo) and of the teaching notebook (the masked update against the SNR, and a signal against a
  noise coordinate against τ, exact and Monte Carlo).
"""
import math
import numbers
from typing import Optional, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (as_finite_array, require_bool, require_in_range, require_integer, require_positive,
                               rng_from)
from ._checks import (require_agreement_fraction, require_agreement_threshold, require_agreement_thresholds,
                      require_n_envs, require_n_envs_array, require_nonzero_snr, require_shortcut_dataset, require_snr)
from ._mask import and_mask, and_masked_gd
from ._monte_carlo import estimate_from_simulation, simulate_mask
from ._results import (LinearPatchwork, MaskedNormCurves, MaskedNormSamples, MaskedUpdateCurves, MaskedUpdateSamples,
                       ShortcutDataset, ShortcutRun, ShortcutSweep, SpiralDataset, ThresholdSweep,
                       ThresholdSweepSamples)
from ._statistics import expected_squared_norms, keep_probability, masked_update_moments, noise_masked_norm_bounds
from ._docs import fill_doc

__all__ = ["PATCHWORK_METHODS", "logistic_env_gradients", "make_logistic_shortcut", "make_notebook_patchwork",
           "make_spiral_dataset", "masked_norm_curves", "masked_norm_samples", "masked_update_curves",
           "masked_update_samples", "patchwork_masked_shared_weight", "shortcut_bayes_accuracy",
           "shortcut_threshold_sweep", "threshold_sweep", "threshold_sweep_samples", "train_logistic_shortcut"]

#: Methods of the authors' linear-patchwork notebook: name -> (τ, geom_mean).
PATCHWORK_METHODS = {"arithmetic": (0.0, False), "and_mask": (1.0, False), "geom_mean": (1.0, True)}


def _seeds(seed, count):
    """``count`` seeds for consecutive runs: seed, seed + 1, ... for an int; the one stream of a Generator (or of
    fresh entropy for None), continued from run to run."""
    if seed is None or isinstance(seed, np.random.Generator):
        rng = rng_from(seed)
        return [rng] * count
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be None, an int or a numpy Generator, got {seed!r}")
    base = require_integer("seed", seed, 0)
    return [base + j for j in range(count)]


def _spirals(rng, n, n_revolutions):
    """n spiral points (standardised) and labels in {−1, +1} (public code: angle += π·label)."""
    radii = rng.uniform(0.08, 1.0, n)
    labels = rng.integers(0, 2, n)
    angles = 2.0 * np.pi * n_revolutions * radii + np.pi * labels
    radii = radii + rng.uniform(-0.02, 0.02, n)
    points = np.stack([np.cos(angles) * radii, np.sin(angles) * radii], axis=1)
    spread = points.std(axis=0)
    if not np.all(spread > 1e-150):  # squared deviations underflow (a tiny n_revolutions): the same std, rescaled
        scale = np.abs(points).max(axis=0)
        spread = (points / scale).std(axis=0) * scale
    return points / spread, 2.0 * labels - 1.0


@fill_doc
def make_spiral_dataset(n_envs: int = 16, n_samples_per_env: int = 1024, dim_shortcut: int = 8,
                        n_revolutions: float = 3, shortcut_std: float = 1.0, n_test: int = 2000, *,
                        seed: Optional[Union[int, np.random.Generator]] = None) -> SpiralDataset:
    r"""The synthetic memorisation data set: spirals mechanism + per-environment shortcut (Parascandolo et al. 2021,
    §3.1 and its appendix; the authors' public code).

    Defaults follow the public code (16 environments × 1024 examples, 8 shortcut dimensions, 3 revolutions,
    signature entries with standard deviation 1, 2000 test examples); the paper uses 32 shortcut dimensions,
    1280 examples per environment and entries "N(0, 0.1)" (it does not say whether 0.1 is a variance or a standard
    deviation).

    Parameters
    ----------
    n_envs : int, default 16
        Number of training environments >= 1.
    n_samples_per_env : int, default 1024
        Examples per environment >= 2.
    dim_shortcut : int, default 8
        Dimension :math:`d_S \ge 1` of the shortcut block.
    n_revolutions : float, default 3
        Turns of each spiral, in (0, 1e9] (beyond, float64 angles no longer resolve the radii).
    shortcut_std : float, default 1
        Standard deviation of the signature entries :math:`x_s`, in (0, 1e300].
    n_test : int, default 2000
        Size of the o.o.d. test set >= 2.
    %(seed)s

    Returns
    -------
    SpiralDataset
        Labels in :math:`\{-1, +1\}`; class +1 of environment :math:`e` carries :math:`+x_s(e)`, class -1 carries
        :math:`-x_s(e)`.

    Examples
    --------
    >>> data = make_spiral_dataset(n_envs=2, n_samples_per_env=64, dim_shortcut=3, n_test=32, seed=0)
    >>> data.train_inputs.shape, data.test_inputs.shape
    ((2, 64, 5), (32, 5))
    >>> bool(np.allclose(data.train_inputs[0, :, 2:] * data.train_labels[0][:, None], data.train_inputs[0, 0, 2:] * data.train_labels[0, 0]))
    True
    """
    n_envs = require_integer("n_envs", n_envs, 1)
    n = require_integer("n_samples_per_env", n_samples_per_env, 2)
    dim = require_integer("dim_shortcut", dim_shortcut, 1)
    turns = require_in_range("n_revolutions", n_revolutions, 0.0, 1e9, low_open=True,
                             why="the angle 2π·n_revolutions·r must resolve the radii r in float64 (its rounding "
                                 "stays below 1e-6 rad)")
    scale = require_in_range("shortcut_std", shortcut_std, 0.0, 1e300, low_open=True,
                             why="the shortcut entries shortcut_std·N(0, 1) must stay finite in float64")
    n_test = require_integer("n_test", n_test, 2)
    rng = rng_from(seed)
    signatures = scale * rng.standard_normal((n_envs, dim))
    inputs = np.empty((n_envs, n, 2 + dim))
    labels = np.empty((n_envs, n))
    for e in range(n_envs):
        mechanism, y = _spirals(rng, n, turns)
        inputs[e, :, :2] = mechanism
        inputs[e, :, 2:] = y[:, None] * signatures[e]
        labels[e] = y
    mechanism, test_labels = _spirals(rng, n_test, turns)
    test_inputs = np.concatenate([mechanism, scale * rng.standard_normal((n_test, dim))], axis=1)
    return SpiralDataset(inputs, labels, test_inputs, test_labels)


def make_notebook_patchwork() -> LinearPatchwork:
    r"""The authors' linear-regression patchwork (their notebook ``linear_regression_ilc``):
    :math:`x_e = 3 \cdot [e_e, 0.1]`, :math:`y_e = 1`, four environments.

    Environment :math:`e` has a strong private feature :math:`e` (3.0) and a weak shared feature 5 (0.3); the loss of
    environment :math:`e` is :math:`\tfrac{1}{2}(x_e \cdot \theta - 1)^2`.

    Parameters
    ----------
    None

    Returns
    -------
    LinearPatchwork
        ``inputs`` (4, 5), row :math:`e` being :math:`x_e`, and ``targets`` (4,), all 1.

    Examples
    --------
    >>> make_notebook_patchwork().inputs[1].round(12).tolist()
    [0.0, 3.0, 0.0, 0.0, 0.3]
    """
    inputs = 3.0 * np.concatenate([np.eye(4), 0.1 * np.ones((4, 1))], axis=1)
    return LinearPatchwork(inputs, np.ones(4))


def patchwork_masked_shared_weight(private_weights: ArrayLike, weight_decay: float = 0.01) -> np.ndarray:
    r"""The shared weight :math:`\theta_5` at the fixed point of AND-masked GD with decoupled weight decay on the
    authors' linear patchwork (derived in this project):

    .. math::

        \theta_5 = \frac{a(1 - b \cdot \bar m)}{a^2 + \mathrm{wd}}, \qquad a = 0.3, \quad b = 3,

    :math:`\bar m` the mean private weight of the trained environments.

    At :math:`\tau = 1` every private weight :math:`\theta_e` is masked (only environment :math:`e` moves it), while the
    shared coordinate is kept where the environments' gradients :math:`a(b \cdot \theta_e + a \cdot \theta_5 - 1)`
    agree in sign; its update :math:`a(b \cdot \bar m + a \cdot \theta_5 - 1) + \mathrm{wd} \cdot \theta_5` vanishes
    at this :math:`\theta_5`.

    Parameters
    ----------
    private_weights : array_like, shape (n_trained,) or (n_runs, n_trained)
        The private weights :math:`\theta_e` of the trained environments (the last axis is averaged).
    weight_decay : float, default 0.01
        :math:`\mathrm{wd} \ge 0` of the decoupled decay
        :math:`\theta \leftarrow \theta - \mathrm{wd} \cdot \mathrm{lr} \cdot \theta`.

    Returns
    -------
    ndarray
        :math:`\theta_5`, of the shape of ``private_weights`` without its last axis.

    Examples
    --------
    >>> float(patchwork_masked_shared_weight([0.0, 0.0]))  # θ₀ = 0: 0.3/0.1
    3.0
    """
    weights = as_finite_array("private_weights", private_weights)
    if weights.ndim not in (1, 2) or weights.shape[-1] < 1:
        raise ValueError(f"private_weights must have shape (n_trained,) or (n_runs, n_trained) with n_trained >= 1, "
                         f"got {weights.shape}")
    wd = require_in_range("weight_decay", weight_decay, 0.0, 1e300)
    data = make_notebook_patchwork()
    shared, private = data.inputs[0, 4], data.inputs[0, 0]  # a = 0.3, b = 3 (the same in every environment)
    with np.errstate(over="ignore"):
        value = shared * (1.0 - private * weights.mean(axis=-1)) / (shared * shared + wd)
    if not np.all(np.isfinite(value)):
        raise ValueError("private_weights are too large for the fixed point in float64")
    return value


@fill_doc
def make_logistic_shortcut(n_envs: int = 16, n_samples_per_env: int = 256, dim_shortcut: int = 32,
                           signal: float = 1.0, shortcut_std: float = 1.0, n_test: int = 4000, *,
                           seed: Optional[Union[int, np.random.Generator]] = None) -> ShortcutDataset:
    r"""The linearised memorisation task: an invariant feature and per-environment shortcuts (the project's
    logistic-regression version of the memorisation task of Parascandolo et al. 2021, §3.1).

    :math:`y = \pm 1` equiprobable; :math:`x_M = a \cdot y + N(0, 1)` (invariant, Bayes accuracy :math:`\Phi(a)`);
    :math:`x_S = y \cdot s_e` with :math:`s_e \sim N(0, \sigma_S^2 I)` drawn once per environment (separates each
    environment perfectly). The o.o.d. test set has the same :math:`x_M` law and :math:`x_S \sim N(0, \sigma_S^2 I)`
    per example; the shortcut probe keeps :math:`x_S = y \cdot s_e` of a random training environment and replaces
    :math:`x_M` by an independent draw of its law (no label information).

    Parameters
    ----------
    n_envs : int, default 16
        Number of training environments >= 1.
    n_samples_per_env : int, default 256
        Examples per environment >= 1.
    dim_shortcut : int, default 32
        Number of shortcut features >= 1.
    signal : float, default 1
        :math:`a \ge 0`.
    shortcut_std : float, default 1
        :math:`\sigma_S > 0`.
    n_test : int, default 4000
        Size of the o.o.d. test set (and of the shortcut probe) >= 1.
    %(seed)s

    Returns
    -------
    ShortcutDataset

    Examples
    --------
    >>> data = make_logistic_shortcut(n_envs=4, n_samples_per_env=8, dim_shortcut=3, n_test=10, seed=0)
    >>> data.train_inputs.shape, data.test_inputs.shape, data.shortcut_test_inputs.shape
    ((4, 8, 4), (10, 4), (10, 4))
    """
    n_envs = require_integer("n_envs", n_envs, 1)
    n = require_integer("n_samples_per_env", n_samples_per_env, 1)
    dim = require_integer("dim_shortcut", dim_shortcut, 1)
    a = require_in_range("signal", signal, 0.0, 40.0)
    scale = require_positive("shortcut_std", shortcut_std)
    n_test = require_integer("n_test", n_test, 1)
    rng = rng_from(seed)
    shortcuts = scale * rng.standard_normal((n_envs, dim))
    labels = rng.choice([-1.0, 1.0], size=(n_envs, n))
    inputs = np.empty((n_envs, n, 1 + dim))
    inputs[:, :, 0] = a * labels + rng.standard_normal((n_envs, n))
    inputs[:, :, 1:] = labels[:, :, None] * shortcuts[:, None, :]
    test_labels = rng.choice([-1.0, 1.0], size=n_test)
    test = np.concatenate([(a * test_labels + rng.standard_normal(n_test))[:, None],
                           scale * rng.standard_normal((n_test, dim))], axis=1)
    decoy = rng.choice([-1.0, 1.0], size=n_test)
    envs = rng.integers(0, n_envs, n_test)
    probe = np.concatenate([(a * decoy + rng.standard_normal(n_test))[:, None],
                            test_labels[:, None] * shortcuts[envs]], axis=1)
    return ShortcutDataset(inputs, labels, test, test_labels, probe, a)


def _accuracy(weights, inputs, labels):
    return float(np.mean((inputs @ weights > 0.0) == (labels > 0.0)))


def logistic_env_gradients(weights: ArrayLike, inputs: ArrayLike, labels: ArrayLike) -> np.ndarray:
    r"""Per-environment gradients of the mean logistic loss :math:`\log(1 + e^{-y\, w \cdot x})` of the logistic
    shortcut task.

    .. math::

        g_e = -\frac{1}{n_e} \sum_i \sigma(-y_i\, w \cdot x_i)\, y_i x_i;

    at :math:`w = 0` the shortcut block of :math:`g_e` is :math:`-s_e/2`.

    Parameters
    ----------
    weights : ndarray, shape (n_features,)
    inputs : ndarray, shape (n_envs, n_samples_per_env, n_features)
    labels : ndarray, shape (n_envs, n_samples_per_env)
        In :math:`\{-1, +1\}`.

    Returns
    -------
    ndarray, shape (n_envs, n_features)

    Examples
    --------
    >>> logistic_env_gradients(np.zeros(2), np.array([[[1.0, 2.0]]]), np.array([[1.0]])).tolist()
    [[-0.5, -1.0]]
    """
    weights = np.asarray(weights, dtype=np.float64)
    inputs = np.asarray(inputs, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.float64)
    if inputs.ndim != 3 or labels.shape != inputs.shape[:2] or weights.shape != inputs.shape[2:]:
        raise ValueError(f"inputs (n_envs, n, f), labels (n_envs, n) and weights (f,) must match, got "
                         f"{inputs.shape}, {labels.shape} and {weights.shape}")
    margins = labels * np.einsum("enf,f->en", inputs, weights)
    sigmoid = 0.5 * (1.0 - np.tanh(0.5 * margins))  # σ(−margin), without overflow
    return -np.einsum("en,en,enf->ef", sigmoid, labels, inputs) / inputs.shape[1]


@fill_doc
def train_logistic_shortcut(dataset: ShortcutDataset, agreement_threshold: float, learning_rate: float = 0.5,
                            n_steps: int = 500, rescale: bool = False) -> ShortcutRun:
    r"""Full-batch AND-masked gradient descent on the logistic shortcut task, :math:`w_0 = 0`.

    :func:`dynamics.and_mask.and_masked_gd` on the per-environment gradients of
    :func:`dynamics.and_mask.logistic_env_gradients` (means over each environment's examples):
    :math:`w \leftarrow w - \eta \cdot u` with :math:`u` = :func:`dynamics.and_mask.masked_gradient` (:math:`\tau = 0`
    is plain averaging, i.e. GD on the pooled loss). No weight decay. A run that leaves float64 raises the ValueError
    of :func:`dynamics.and_mask.and_masked_gd`.

    Parameters
    ----------
    dataset : ShortcutDataset
        From :func:`dynamics.and_mask.make_logistic_shortcut`.
    %(agreement_threshold)s
    learning_rate : float, default 0.5
        Step size :math:`\eta > 0`.
    %(n_steps)s
    rescale : bool, default False
        Inverse-sparsity rescaling of the update.

    Returns
    -------
    ShortcutRun

    Examples
    --------
    >>> data = make_logistic_shortcut(n_envs=8, n_samples_per_env=64, dim_shortcut=8, seed=1)
    >>> run = train_logistic_shortcut(data, 1.0, n_steps=100)
    >>> float(np.abs(run.weights[1:]).max()) == 0.0 or bool(run.initial_mask[1:].any())
    True
    """
    dataset = require_shortcut_dataset(dataset)
    eta = require_positive("learning_rate", learning_rate)
    n_steps = require_integer("n_steps", n_steps, 0)
    rescale = require_bool("rescale", rescale)
    inputs, labels = dataset.train_inputs, dataset.train_labels
    start = np.zeros(inputs.shape[2])
    initial_mask = and_mask(logistic_env_gradients(start, inputs, labels), agreement_threshold)
    run = and_masked_gd(lambda weights: logistic_env_gradients(weights, inputs, labels), start, agreement_threshold,
                        eta, n_steps, rescale=rescale)
    weights = run.thetas[-1]
    flat_inputs = inputs.reshape(-1, inputs.shape[2])
    return ShortcutRun(weights, _accuracy(weights, flat_inputs, labels.reshape(-1)),
                       _accuracy(weights, dataset.test_inputs, dataset.test_labels),
                       _accuracy(weights, dataset.shortcut_test_inputs, dataset.test_labels), initial_mask)


def shortcut_bayes_accuracy(signal: float) -> float:
    r""":math:`\Phi(a)`: the Bayes accuracy of the invariant feature :math:`x_M = a \cdot y + N(0, 1)` of the logistic
    shortcut task, the best o.o.d. accuracy a classifier can reach when the shortcuts carry no information.

    Parameters
    ----------
    signal : float
        :math:`a \ge 0`.

    Returns
    -------
    float
        In :math:`[\tfrac{1}{2}, 1]`.

    Examples
    --------
    >>> round(shortcut_bayes_accuracy(1.0), 4)
    0.8413
    """
    a = require_in_range("signal", signal, 0.0, np.inf)
    return float(0.5 * (1 + math.erf(a / math.sqrt(2))))


@fill_doc
def shortcut_threshold_sweep(agreement_threshold: ArrayLike, n_seeds: int = 5, learning_rate: float = 0.5,
                             n_steps: int = 500, *,
                             seed: Optional[Union[int, np.random.Generator]] = 0) -> ShortcutSweep:
    r"""The logistic shortcut task (default :func:`dynamics.and_mask.make_logistic_shortcut` data sets) trained by
    :func:`dynamics.and_mask.train_logistic_shortcut` at each threshold :math:`\tau` on each of ``n_seeds`` data sets.

    Parameters
    ----------
    agreement_threshold : float or array_like, shape (n_thresholds,)
        Thresholds :math:`\tau \in [0, 1]` (0: plain averaging).
    n_seeds : int, default 5
        Number of data sets >= 1.
    learning_rate : float, default 0.5
        Step size :math:`\eta > 0`.
    %(n_steps)s
    seed : None, int or numpy.random.Generator, default 0
        Data set j is drawn with seed + j (an int), or from one continued stream.

    Returns
    -------
    ShortcutSweep
        Accuracies of shape (n_thresholds, n_seeds) and the Bayes accuracy :math:`\Phi(a)`.

    Examples
    --------
    >>> sweep = shortcut_threshold_sweep([0.0, 1.0], n_seeds=2, n_steps=30)
    >>> sweep.test_accuracy.shape, round(sweep.bayes_accuracy, 3)
    ((2, 2), 0.841)
    """
    taus = require_agreement_thresholds(agreement_threshold)
    n_seeds = require_integer("n_seeds", n_seeds, 1, 10**5)
    test = np.empty((taus.size, n_seeds))
    probe = np.empty((taus.size, n_seeds))
    train = np.empty((taus.size, n_seeds))
    signal = None
    for j, data_seed in enumerate(_seeds(seed, n_seeds)):
        data = make_logistic_shortcut(seed=data_seed)
        signal = data.signal
        for i, tau in enumerate(taus):
            run = train_logistic_shortcut(data, tau, learning_rate, n_steps)
            test[i, j], probe[i, j], train[i, j] = run.test_accuracy, run.shortcut_accuracy, run.train_accuracy
    return ShortcutSweep(taus, test, probe, train, shortcut_bayes_accuracy(signal))


# ------------------------------------------------------------------------------------------------ Fig 4
def _agreement_counts(n_envs, agreement_fraction):
    """(d, t = ⌈ρd − 1e-9⌉, τ = (2t − d)/d) per d, with a strict majority t > d/2."""
    rho = require_agreement_fraction(agreement_fraction)
    ds = require_n_envs_array(n_envs)
    ts = np.array([math.ceil(rho * d - 1e-9) for d in ds], dtype=np.int64)
    if np.any(2 * ts <= ds):
        d = int(ds[np.argmax(2 * ts <= ds)])
        raise ValueError(f"agreement_fraction = {rho:g} gives no strict majority t > d/2 at n_envs = {d}")
    return ds, ts, (2 * ts - ds) / ds


def masked_norm_curves(n_envs: ArrayLike, agreement_fraction: float = 0.8, n_params: int = 3000) -> MaskedNormCurves:
    r""":math:`\mathbb{E}\lVert m_t \odot \bar g \rVert^2`, :math:`\mathbb{E}\lVert \bar g \rVert^2` and the corrected
    Proposition 2 bounds for pure noise (:math:`\sigma = 1`) against the number of environments, with
    :math:`t = \lceil \rho d \rceil` agreeing signs required (Parascandolo et al. 2021, Fig 4).

    Parameters
    ----------
    n_envs : int or array_like of int
        Numbers of environments :math:`d \ge 1`.
    agreement_fraction : float, default 0.8
        :math:`\rho \in (\tfrac{1}{2}, 1]`: :math:`t = \lceil \rho d - 10^{-9} \rceil` must be a strict majority for
        every :math:`d`.
    n_params : int, default 3000
        Number of coordinates :math:`n \ge 1`.

    Returns
    -------
    MaskedNormCurves

    Examples
    --------
    >>> curves = masked_norm_curves([2, 8, 16], 0.8)
    >>> curves.n_agree.tolist(), [round(float(x), 2) for x in curves.masked]
    ([2, 7, 13], [1227.46, 91.65, 18.91])
    """
    ds, ts, taus = _agreement_counts(n_envs, agreement_fraction)
    n = require_integer("n_params", n_params, 1)
    norms = [expected_squared_norms(int(d), tau, n) for d, tau in zip(ds, taus)]
    bounds = [noise_masked_norm_bounds(int(d), int(t), n) for d, t in zip(ds, ts)]
    return MaskedNormCurves(ds, ts, taus, np.array([x.masked for x in norms]), np.array([x.unmasked for x in norms]),
                            np.array([b.paper_chain for b in bounds]), np.array([b.exponential for b in bounds]))


def masked_norm_samples(n_envs: ArrayLike, agreement_fraction: float = 0.8, n_params: int = 3000,
                        n_samples: int = 600_000, *,
                        seed: Optional[Union[int, np.random.Generator]] = None) -> MaskedNormSamples:
    r"""Monte Carlo of :func:`dynamics.and_mask.masked_norm_curves`: :math:`n` times the sample means of
    :math:`m \bar g^2` and :math:`\bar g^2` over ``n_samples`` pure-noise coordinates per :math:`d` (:math:`\sigma = 1`;
    Parascandolo et al. 2021, Fig 4), from one :func:`dynamics.and_mask.simulate_mask` run per :math:`d`.

    Parameters
    ----------
    n_envs : int or array_like of int
        Numbers of environments :math:`d \ge 1` (one run each, in order).
    agreement_fraction : float, default 0.8
        :math:`\rho \in (\tfrac{1}{2}, 1]`, as in :func:`dynamics.and_mask.masked_norm_curves`.
    n_params : int, default 3000
        :math:`n \ge 1`: the estimates are :math:`n \cdot \mathbb{E}[m \bar g^2]` and
        :math:`n \cdot \mathbb{E}[\bar g^2]`.
    n_samples : int, default 600000
        Simulated coordinates per :math:`d` (e.g. 200 independent :math:`n`-coordinate gradients).
    seed : None, int or numpy.random.Generator
        One stream for all runs.

    Returns
    -------
    MaskedNormSamples

    Examples
    --------
    >>> samples = masked_norm_samples([4, 8], n_params=100, n_samples=20_000, seed=0)
    >>> bool(np.all(samples.masked < samples.unmasked))
    True
    """
    ds, _, taus = _agreement_counts(n_envs, agreement_fraction)
    n = require_integer("n_params", n_params, 1)
    rng = rng_from(seed)
    rows = []
    for d, tau in zip(ds, taus):
        simulation = simulate_mask(int(d), n_samples, seed=rng)  # one run answers every threshold
        plain, masked = estimate_from_simulation(simulation, 0.0), estimate_from_simulation(simulation, tau)
        rows.append((n * masked.second_moment, n * masked.second_moment_se, n * plain.second_moment,
                     n * plain.second_moment_se))
    masked, masked_se, plain, plain_se = (np.array(column) for column in zip(*rows))
    return MaskedNormSamples(ds, masked, masked_se, plain, plain_se)


# ------------------------------------------------------------------------------------------------ the notebook
@fill_doc
def masked_update_curves(n_envs: int, agreement_threshold: float, snr: ArrayLike) -> MaskedUpdateCurves:
    r"""The keep probability, mean and standard deviation of one masked coordinate against the SNR, exactly
    (i.i.d. :math:`N(\mu, \sigma^2)` gradients, in units of :math:`\sigma`; derived in this project).

    Parameters
    ----------
    %(n_envs)s
    %(agreement_threshold)s
    snr : float or array_like
        SNRs :math:`s = \mu/\sigma`, :math:`\lvert s \rvert \le 10^6`.

    Returns
    -------
    MaskedUpdateCurves
        Arrays of the length of ``snr`` (flattened).

    Examples
    --------
    >>> curves = masked_update_curves(4, 0.2, [0.0, 1.0])
    >>> [round(float(x), 4) for x in curves.keep_probability], round(float(curves.mean[1]), 4)
    ([0.625, 0.8931], 0.9592)
    """
    s = require_snr(snr).reshape(-1)
    moments = [masked_update_moments(n_envs, agreement_threshold, float(x)) for x in s]
    first = np.array([m.first_moment for m in moments])
    second = np.array([m.second_moment for m in moments])
    return MaskedUpdateCurves(s, np.atleast_1d(keep_probability(n_envs, agreement_threshold, s)), first,
                              np.sqrt(np.maximum(second - first ** 2, 0.0)))


@fill_doc
def masked_update_samples(n_envs: int, agreement_threshold: float, snr: ArrayLike, n_samples: int = 2000, *,
                          seed: Optional[Union[int, np.random.Generator]] = 0) -> MaskedUpdateSamples:
    r"""Monte Carlo of :func:`dynamics.and_mask.masked_update_curves` (:math:`\sigma = 1`): one
    :func:`dynamics.and_mask.simulate_mask` run of ``n_samples`` coordinates per SNR.

    Parameters
    ----------
    %(n_envs)s
    %(agreement_threshold)s
    snr : float or array_like
        SNRs :math:`s = \mu/\sigma`, one run each.
    n_samples : int, default 2000
        Simulated coordinates per run.
    seed : None, int or numpy.random.Generator, default 0
        Run i uses seed + i (an int), or one continued stream.

    Returns
    -------
    MaskedUpdateSamples

    Examples
    --------
    >>> samples = masked_update_samples(4, 0.2, [0.0, 1.0], 20_000)
    >>> [round(float(x), 2) for x in samples.keep_probability]  # exact 0.625 and 0.893, ± MC error
    [0.62, 0.9]
    """
    s = require_snr(snr).reshape(-1)
    agreement_threshold = require_agreement_threshold(agreement_threshold)
    runs = [estimate_from_simulation(simulate_mask(n_envs, n_samples, float(x), seed=run_seed), agreement_threshold)
            for x, run_seed in zip(s, _seeds(seed, s.size))]
    return MaskedUpdateSamples(s, np.array([r.keep_probability * r.n_samples for r in runs]),
                               np.array([r.keep_probability for r in runs]),
                               np.array([r.keep_probability_se for r in runs]),
                               np.array([r.first_moment for r in runs]), np.array([r.first_moment_se for r in runs]),
                               np.sqrt(np.maximum([r.second_moment - r.first_moment ** 2 for r in runs], 0.0)))


@fill_doc
def threshold_sweep(n_envs: int, snr: float) -> ThresholdSweep:
    r"""A signal coordinate (SNR :math:`s`) and a pure-noise coordinate against :math:`\tau = k/d`,
    :math:`k = 0, \ldots, d`, exactly: keep probabilities, the kept fraction :math:`\mathbb{E}[m \bar g]/\mu` of the
    signal's mean and the kept fraction
    :math:`\mathbb{E}\lVert m \odot \bar g \rVert^2 / \mathbb{E}\lVert \bar g \rVert^2` of the noise power (Proposition
    2 of Parascandolo et al. 2021 and its extension to signal). The mask changes only just after each :math:`k/d`.

    Parameters
    ----------
    %(n_envs)s
    snr : float
        :math:`s = \mu/\sigma` of the signal coordinate, non-zero, :math:`\lvert s \rvert \le 10^6`.

    Returns
    -------
    ThresholdSweep
        Arrays of length :math:`d + 1`.

    Examples
    --------
    >>> sweep = threshold_sweep(4, 1.0)
    >>> sweep.agreement_threshold.tolist(), [round(float(x), 4) for x in sweep.noise_keep_probability]
    ([0.0, 0.25, 0.5, 0.75, 1.0], [1.0, 0.625, 0.625, 0.125, 0.125])
    """
    d = require_n_envs(n_envs)
    s = require_nonzero_snr(snr)
    taus = np.arange(d + 1) / d
    noise = [expected_squared_norms(d, t, snr=0.0) for t in taus]
    return ThresholdSweep(taus, np.array([keep_probability(d, t, s) for t in taus]),
                          np.array([keep_probability(d, t, 0.0) for t in taus]),
                          np.array([masked_update_moments(d, t, s).first_moment for t in taus]) / s,
                          np.array([x.masked / x.unmasked for x in noise]))


@fill_doc
def threshold_sweep_samples(n_envs: int, snr: float, agreement_threshold: ArrayLike, n_samples: int = 10_000, *,
                            seed: Optional[Union[int, np.random.Generator]] = 0) -> ThresholdSweepSamples:
    r"""Monte Carlo of :func:`dynamics.and_mask.threshold_sweep` (:math:`\sigma = 1`): one signal run and one
    pure-noise run of
    :func:`dynamics.and_mask.simulate_mask`, each answering every threshold.

    Parameters
    ----------
    %(n_envs)s
    snr : float
        :math:`s = \mu/\sigma` of the signal coordinate, non-zero.
    agreement_threshold : float or array_like
        Thresholds :math:`\tau \in [0, 1]` at which to estimate.
    n_samples : int, default 10000
        Simulated coordinates per run.
    seed : None, int or numpy.random.Generator, default 0
        The signal run uses seed and the noise run seed + 1 (an int), or one continued stream.

    Returns
    -------
    ThresholdSweepSamples

    Examples
    --------
    >>> samples = threshold_sweep_samples(4, 1.0, [0.25, 0.75], 20_000)
    >>> [round(float(x), 2) for x in samples.noise_keep_probability]  # exact 0.625 and 0.125, ± MC error
    [0.63, 0.13]
    """
    d = require_n_envs(n_envs)
    s = require_nonzero_snr(snr)
    taus = require_agreement_thresholds(agreement_threshold)
    signal_seed, noise_seed = _seeds(seed, 2)
    signal_run = simulate_mask(d, n_samples, s, seed=signal_seed)
    noise_run = simulate_mask(d, n_samples, 0.0, seed=noise_seed)
    signal = [estimate_from_simulation(signal_run, t) for t in taus]
    noise = [estimate_from_simulation(noise_run, t) for t in taus]
    return ThresholdSweepSamples(
        taus, np.array([e.keep_probability * e.n_samples for e in signal]),
        np.array([e.keep_probability * e.n_samples for e in noise]),
        np.array([e.keep_probability for e in signal]), np.array([e.keep_probability_se for e in signal]),
        np.array([e.keep_probability for e in noise]), np.array([e.keep_probability_se for e in noise]),
        np.array([e.first_moment for e in signal]) / s, np.array([e.first_moment_se for e in signal]) / s,
        np.array([e.second_moment for e in noise]) * d,  # in units of the unmasked E[ḡ²] = σ²/d
        np.array([e.second_moment_se for e in noise]) * d)
