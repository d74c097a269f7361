"""Argument checks of :mod:`dynamics.and_mask` that are specific to the theory (built on the core helpers of
:mod:`dynamics.numerics`).

An agreement threshold τ is a number in [0, 1]; d >= 1 environments; per-environment gradients are a finite
(n_envs, n_params) array, the environments along axis 0 unless ``env_axis=1`` puts them along the columns; an SNR
is at most 1e6 in magnitude (Φ(−s) < 1e-300 from s ≈ 37 on); the t-form threshold of Proposition 2 is a strict
majority d/2 < t <= d; Hessians are symmetric positive (semi-)definite; points of the two-valley landscape have a
last axis of 2 and coordinates of at most 1e100.
"""
import numbers

import numpy as np

from dynamics.numerics import (as_finite_array, require_of_type, require_array_in_range, require_in_range, require_integer,
                               require_positive, require_same_length)
from ._results import ShortcutDataset

__all__ = ["MAX_COORDINATE", "MAX_EXACT_N_ENVS", "MAX_N_ENVS", "MAX_SNR", "NULL_TOLERANCE", "SYMMETRY_TOLERANCE", "require_agreement_fraction",
           "require_agreement_threshold", "require_agreement_thresholds", "require_diagonal_hessians",
           "require_env_axis", "require_eps",
           "require_gradient_laws", "require_grads", "require_groups", "require_majority_agreement", "require_n_envs",
           "require_n_envs_array", "require_nonzero_snr", "require_points", "require_shortcut_dataset",
           "require_shortcut_datasets", "require_snr", "require_spd"]

#: |snr| beyond this is infinity for every quantity here (Φ(−s) < 1e-300 from s ≈ 37 on).
MAX_SNR = 1e6
# The exact statistics sum over the d + 1 sign counts: 1e8 environments take seconds, and counts beyond int64 cannot
# reach the compiled kernels at all. The exact rational form adds d + 1 binomials of up to d bits: 1e4 takes ~2 s.
MAX_N_ENVS = 10 ** 8
MAX_EXACT_N_ENVS = 10 ** 4
#: Largest |θ| accepted by the landscape functions (squares must stay finite).
MAX_COORDINATE = 1e100
#: Relative asymmetry |M − Mᵀ| accepted in a Hessian, and the relative size of an eigenvalue counted as zero.
SYMMETRY_TOLERANCE = 1e-10
NULL_TOLERANCE = 1e-12


def require_agreement_threshold(agreement_threshold) -> float:
    """τ in [0, 1]."""
    return require_in_range("agreement_threshold", agreement_threshold, 0.0, 1.0)


def require_n_envs(n_envs, high=MAX_N_ENVS) -> int:
    """d environments, 1 <= d <= ``high`` (the sums over sign counts are O(d))."""
    return require_integer("n_envs", n_envs, 1, high)


def require_agreement_thresholds(agreement_threshold) -> np.ndarray:
    """A number or a non-empty 1-D array of thresholds τ in [0, 1], as a 1-D float64 array."""
    taus = np.atleast_1d(np.asarray(agreement_threshold, dtype=object))
    if taus.ndim != 1 or taus.size < 1:
        raise ValueError(f"agreement_threshold must be a number or a non-empty 1-D array, got shape {taus.shape}")
    return np.array([require_agreement_threshold(t) for t in taus])


def require_n_envs_array(n_envs) -> np.ndarray:
    """An integer d >= 1 or a non-empty 1-D array of them, as a 1-D int64 array."""
    ds = np.atleast_1d(np.asarray(n_envs, dtype=object))
    if ds.ndim != 1 or ds.size < 1:
        raise ValueError(f"n_envs must be an integer or a non-empty 1-D array of them, got shape {ds.shape}")
    return np.array([require_n_envs(d) for d in ds], dtype=np.int64)


def require_agreement_fraction(agreement_fraction) -> float:
    """The fraction ρ in (½, 1] of environments whose signs must agree (t = ⌈ρd⌉)."""
    return require_in_range("agreement_fraction", agreement_fraction, 0.5, 1.0, low_open=True)


def require_snr(snr) -> np.ndarray:
    """Signal-to-noise ratios s = μ/σ with |s| <= MAX_SNR, as a float64 array."""
    return require_array_in_range("snr", snr, -MAX_SNR, MAX_SNR)


def require_nonzero_snr(snr) -> float:
    """One non-zero SNR s with |s| <= MAX_SNR (quantities in units of μ = sσ divide by it)."""
    s = require_in_range("snr", snr, -MAX_SNR, MAX_SNR)
    if s == 0.0:
        raise ValueError("snr must be non-zero (the kept fraction of the mean E[m ḡ]/μ divides by μ = sσ)")
    return s


def require_env_axis(env_axis) -> int:
    """The axis of a 2-D gradient array that holds the environments: 0 (rows, the default) or 1 (columns); −2 and
    −1 name the same axes. Returned as 0 or 1."""
    axis = require_integer("env_axis", env_axis, -2, 1)
    return axis % 2


def require_grads(grads, env_axis=0) -> np.ndarray:
    """Per-environment gradients: a finite 2-D float64 array with both sizes >= 1, returned as (n_envs, n_params).

    ``env_axis`` names the axis that indexes the environments: 0 (rows, the default) or 1 (columns: an input of
    shape (n_params, n_envs), returned as a contiguous transpose). The shape alone cannot tell the two layouts apart,
    so nothing is guessed: a transposed input without ``env_axis=1`` is read as one environment per parameter."""
    axis = require_env_axis(env_axis)
    g = as_finite_array("grads", grads)
    layout = "(n_envs, n_params)" if axis == 0 else "(n_params, n_envs), as env_axis=1 says"
    if g.ndim != 2:
        raise ValueError(f"grads must be 2-dimensional {layout}, got shape {g.shape}")
    if g.shape[axis] < 1:
        raise ValueError(f"grads must hold at least 1 environment (along env_axis={axis}) in its {layout} layout, "
                         f"got shape {g.shape}")
    if g.shape[1 - axis] < 1:
        raise ValueError(f"grads must hold at least 1 parameter (along axis {1 - axis}) in its {layout} layout, got "
                         f"shape {g.shape}")
    return np.ascontiguousarray(g.T) if axis == 1 else g


def require_groups(groups, n_params) -> np.ndarray:
    """Segment ids 0..G-1 (shape (n_params,)) from an id array or a list of index arrays covering 0..n_params-1."""
    if isinstance(groups, (list, tuple)) and groups and not isinstance(groups[0], numbers.Number):
        index = np.full(n_params, -1, dtype=np.int64)
        for i, members in enumerate(groups):
            members = np.asarray(members)
            if members.dtype.kind not in "iu":
                raise TypeError(f"groups[{i}] must hold integer indices, got dtype {members.dtype}")
            if members.size and (members.min() < -n_params or members.max() >= n_params):
                raise ValueError(f"groups[{i}] must index 0..{n_params - 1}, got values outside that range")
            if np.any(index[members] >= 0):
                raise ValueError(f"groups must not overlap: groups[{i}] repeats an index")
            index[members] = i
        if np.any(index < 0):
            raise ValueError(f"groups must cover every parameter: {int(np.sum(index < 0))} of {n_params} are in none")
        return index
    ids = np.asarray(groups)
    if ids.shape != (n_params,):
        raise ValueError(f"groups must have shape ({n_params},) (one segment id per parameter) or be a list of "
                         f"index arrays, got shape {ids.shape}")
    if ids.dtype.kind not in "iu":
        raise TypeError(f"groups must hold integer segment ids, got dtype {ids.dtype}")
    return np.unique(ids, return_inverse=True)[1].reshape(n_params)


def require_majority_agreement(n_envs, n_agree) -> tuple:
    """(d, t) for the paper's t-form threshold of Proposition 2: d >= 1 and d/2 < t <= d."""
    d = require_n_envs(n_envs)
    t = require_integer("n_agree", n_agree, 0, d)
    if 2 * t <= d:
        raise ValueError(f"n_agree must be > n_envs/2 = {d / 2:g} (the paper's t in {{d/2+1, ..., d}}), got {t}")
    return d, t


def require_gradient_laws(gradient_means, gradient_stds) -> tuple:
    """(μ_e, σ_e) of d >= 1 environments: finite means, positive standard deviations, |μ_e|/σ_e <= MAX_SNR."""
    means = as_finite_array("gradient_means", gradient_means, ndim=1)
    stds = require_array_in_range("gradient_stds", gradient_stds, 0.0, np.inf, low_open=True, ndim=1)
    d = require_same_length(gradient_means=means, gradient_stds=stds)
    if d < 1:
        raise ValueError("gradient_means must hold at least 1 environment, got an empty array")
    ratio = np.abs(means) / stds
    if np.any(ratio > MAX_SNR):
        raise ValueError(f"gradient_means/gradient_stds must be at most {MAX_SNR:g} in magnitude, got "
                         f"{float(ratio.max()):.3g}")
    return means, stds


def require_eps(eps) -> float:
    """The loss level ε > 0 of the consistency neighbourhoods."""
    return require_positive("eps", eps)


def require_spd(name, matrix) -> np.ndarray:
    """A symmetric positive definite (n, n) matrix (symmetrised), or a ValueError naming the parameter."""
    m = as_finite_array(name, matrix, ndim=2)
    n = m.shape[0]
    if m.shape != (n, n) or n == 0:
        raise ValueError(f"{name} must be a square (n, n) matrix with n >= 1, got shape {m.shape}")
    scale = max(float(np.abs(m).max()), 1e-300)
    if float(np.abs(m - m.T).max()) > SYMMETRY_TOLERANCE * scale:
        raise ValueError(f"{name} must be symmetric, got max|M - Mᵀ| = {float(np.abs(m - m.T).max()):.3g}")
    try:
        np.linalg.cholesky(m)
    except np.linalg.LinAlgError:
        raise ValueError(f"{name} must be positive definite (its Cholesky factorisation failed)") from None
    return 0.5 * (m + m.T)


def require_diagonal_hessians(hessian_a, hessian_b) -> tuple:
    """Two non-empty diagonals of one shape with entries >= 0."""
    a = require_array_in_range("hessian_a", hessian_a, 0.0, np.inf, ndim=1)
    b = require_array_in_range("hessian_b", hessian_b, 0.0, np.inf, ndim=1)
    if a.shape != b.shape or a.size == 0:
        raise ValueError(f"hessian_a and hessian_b must be non-empty and of one shape, got {a.shape} and {b.shape}")
    return a, b


def require_points(name, points) -> np.ndarray:
    """Points θ = (θ₁, θ₂) of the two-valley landscape: shape (..., 2), |θ_i| <= MAX_COORDINATE."""
    p = require_array_in_range(name, points, -MAX_COORDINATE, MAX_COORDINATE)
    if p.ndim < 1 or p.shape[-1] != 2:
        raise ValueError(f"{name} must have shape (..., 2), got {p.shape}")
    return p


def require_shortcut_dataset(dataset) -> ShortcutDataset:
    """A :class:`ShortcutDataset` (from ``make_logistic_shortcut``)."""
    return require_of_type("dataset", dataset, ShortcutDataset, made_by="make_logistic_shortcut")


def require_shortcut_datasets(datasets) -> list:
    """A ShortcutDataset or a non-empty sequence of them, all of one shape, as a list."""
    if isinstance(datasets, ShortcutDataset):
        datasets = [datasets]
    datasets = list(datasets)
    if not datasets or not all(isinstance(d, ShortcutDataset) for d in datasets):
        raise TypeError("datasets must be a ShortcutDataset or a non-empty sequence of them (make_logistic_shortcut)")
    shapes = {d.train_inputs.shape for d in datasets}
    if len(shapes) != 1:
        raise ValueError(f"datasets must share one shape, got {sorted(shapes)}")
    return datasets
