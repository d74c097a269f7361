"""Data sets of the AND-mask experiments (spec/and_mask.md §6.1, §9.2, §9.3).

* The synthetic memorisation data of paper §3.1: two interleaved spirals (the mechanism, the same in every
  environment) and a per-environment shortcut ±x_s (public code ``get_spirals_dataset``: n_revolutions = 3, radii
  U(0.08, 1) with U[−0.02, 0.02] noise, mechanism standardised, signature entries N(0, 1) by default); the o.o.d.
  test set draws the shortcut i.i.d. per example.
* The authors' linear-regression patchwork (notebook ``linear_regression_ilc``): x_e = 3·[e_e | 0.1], y_e = 1.
* The linearised shortcut task of spec §9.3 (logistic regression): x_M = a·y + N(0, 1), x_S = y·s_e, and
  full-batch (AND-masked) gradient descent on it in numpy, the reference the torch cross-check reproduces.
"""
import numpy as np

from dynamics.numerics import require_bool, require_in_range, require_integer, require_positive, rng_from
from ._mask import masked_gradient, and_mask
from ._results import LinearPatchwork, ShortcutDataset, ShortcutRun, SpiralDataset

__all__ = ["logistic_env_gradients", "make_logistic_shortcut", "make_notebook_patchwork", "make_spiral_dataset",
           "train_logistic_shortcut"]


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


def make_spiral_dataset(n_envs=16, n_samples_per_env=1024, dim_shortcut=8, n_revolutions=3, shortcut_std=1.0,
                        n_test=2000, *, seed=None) -> SpiralDataset:
    """The synthetic memorisation data set: spirals mechanism + per-environment shortcut (paper §3.1; spec §6.1).

    Defaults follow the public code (16 environments × 1024 examples, 8 shortcut dimensions, 3 revolutions,
    signature entries with standard deviation 1, 2000 test examples); the paper uses 32 shortcut dimensions,
    1280 examples per environment and entries "N(0, 0.1)" (variance or standard deviation: [AMBIGUOUS]).

    Parameters
    ----------
    n_envs : int, default 16
        Number of training environments >= 1.
    n_samples_per_env : int, default 1024
        Examples per environment >= 2.
    dim_shortcut : int, default 8
        Dimension d_S >= 1 of the shortcut block.
    n_revolutions : float, default 3
        Turns of each spiral, in (0, 1e9] (beyond, float64 angles no longer resolve the radii).
    shortcut_std : float, default 1
        Standard deviation of the signature entries x_s, in (0, 1e300].
    n_test : int, default 2000
        Size of the o.o.d. test set >= 2.
    seed : None, int or numpy.random.Generator

    Returns
    -------
    SpiralDataset
        Labels in {−1, +1}; class +1 of environment e carries +x_s(e), class −1 carries −x_s(e).

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
    """The authors' linear-regression patchwork: x_e = 3·[e_e | 0.1], y_e = 1, four environments (spec §9.2).

    Environment e has a strong private feature e (3.0) and a weak shared feature 5 (0.3); the loss of environment
    e is ½(x_e·θ − 1)².

    Returns
    -------
    LinearPatchwork
        ``inputs`` (4, 5), row e being x_e, and ``targets`` (4,), all 1.

    Examples
    --------
    >>> make_notebook_patchwork().inputs[1].round(12).tolist()
    [0.0, 3.0, 0.0, 0.0, 0.3]
    """
    inputs = 3.0 * np.concatenate([np.eye(4), 0.1 * np.ones((4, 1))], axis=1)
    return LinearPatchwork(inputs, np.ones(4))


def make_logistic_shortcut(n_envs=16, n_samples_per_env=256, dim_shortcut=32, signal=1.0, shortcut_std=1.0,
                           n_test=4000, *, seed=None) -> ShortcutDataset:
    """The linearised memorisation task of spec §9.3: an invariant feature and per-environment shortcuts.

    y = ±1 equiprobable; x_M = a·y + N(0, 1) (invariant, Bayes accuracy Φ(a)); x_S = y·s_e with s_e ~ N(0, σ_S²I)
    drawn once per environment (separates each environment perfectly). The o.o.d. test set has the same x_M law and
    x_S ~ N(0, σ_S²I) per example; the shortcut probe keeps x_S = y·s_e of a random training environment and
    replaces x_M by an independent draw of its law (no label information).

    Parameters
    ----------
    n_envs : int, default 16
    n_samples_per_env : int, default 256
    dim_shortcut : int, default 32
    signal : float, default 1
        a >= 0.
    shortcut_std : float, default 1
        σ_S > 0.
    n_test : int, default 4000
    seed : None, int or numpy.random.Generator

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


def logistic_env_gradients(weights, inputs, labels) -> np.ndarray:
    """Per-environment gradients of the mean logistic loss log(1 + e^{−y w·x}) (spec §9.3).

    g_e = −(1/n_e) Σ_i σ(−y_i w·x_i) y_i x_i; at w = 0 the shortcut block of g_e is −s_e/2.

    Parameters
    ----------
    weights : ndarray, shape (n_features,)
    inputs : ndarray, shape (n_envs, n_samples_per_env, n_features)
    labels : ndarray, shape (n_envs, n_samples_per_env)
        In {−1, +1}.

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


def train_logistic_shortcut(dataset, agreement_threshold, learning_rate=0.5, n_steps=500, rescale=False) -> ShortcutRun:
    """Full-batch AND-masked gradient descent on the logistic shortcut task, w₀ = 0 (spec §9.3).

    Each step: per-environment gradients (means over the environment's examples), then w ← w − η·u with
    u = :func:`masked_gradient` (τ = 0 is plain averaging, i.e. GD on the pooled loss). No weight decay.

    Parameters
    ----------
    dataset : ShortcutDataset
        From :func:`make_logistic_shortcut`.
    agreement_threshold : float
        Agreement threshold τ in [0, 1].
    learning_rate : float, default 0.5
    n_steps : int, default 500
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
    if not isinstance(dataset, ShortcutDataset):
        raise TypeError(f"dataset must be a ShortcutDataset (make_logistic_shortcut), got {type(dataset).__name__}")
    eta = require_positive("learning_rate", learning_rate)
    n_steps = require_integer("n_steps", n_steps, 0)
    rescale = require_bool("rescale", rescale)
    inputs, labels = dataset.train_inputs, dataset.train_labels
    weights = np.zeros(inputs.shape[2])
    initial_mask = and_mask(logistic_env_gradients(weights, inputs, labels), agreement_threshold)
    for _ in range(n_steps):
        weights = weights - eta * masked_gradient(logistic_env_gradients(weights, inputs, labels), agreement_threshold, rescale)
    flat_inputs = inputs.reshape(-1, inputs.shape[2])
    return ShortcutRun(weights, _accuracy(weights, flat_inputs, labels.reshape(-1)),
                       _accuracy(weights, dataset.test_inputs, dataset.test_labels),
                       _accuracy(weights, dataset.shortcut_test_inputs, dataset.test_labels), initial_mask)
