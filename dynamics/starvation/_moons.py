"""The two-moons data of the paper's Fig 1 (spec §4.1, the authors' ``moon_fig_*.py``), without scikit-learn.

1. make_moons(n, noise_std): an upper half circle (label 0) and a lower, shifted one (label 1), plus
   Gaussian noise of standard deviation ``noise_std``; y± = 2y - 1.
2. X -= [0.5, 0.3 y±], then the second coordinate is centred.
3. X[:,1] = -y±|X[:,1]|, then X[:,1] -= y±Δ, so that -y±·X[:,1] >= Δ.
4. The columns are swapped: x_h = X[:,0] is the coordinate along which the classes are separable with
   margin Δ (Δ > 0) or overlap by 2|Δ| (Δ < 0); x_v is the curved, "vertical" coordinate.
"""
import numpy as np

from dynamics.numerics import require_in_range, require_integer, rng_from
from ._results import Dataset


def make_moons(n_samples=300, *, noise_std=0.1, seed=None) -> Dataset:
    """scikit-learn's ``make_moons`` recipe (unshuffled), the raw data of Fig 1 (spec §4.1).

    Parameters
    ----------
    n_samples : int
        Number of points, in [2, 10^7]; the first ⌊n/2⌋ form the upper moon.
    noise_std : float
        Standard deviation of the Gaussian noise added to every coordinate, in [0, 1e300].
    seed : None, int or numpy.random.Generator
        Source of the noise.

    Returns
    -------
    Dataset
        ``X`` (n_samples, 2) and ``y`` (n_samples,) in {0, 1}.

    Examples
    --------
    >>> X, y = make_moons(4, noise_std=0.0)
    >>> X.round(3).tolist(), y.tolist()
    ([[1.0, 0.0], [-1.0, 0.0], [0.0, 0.5], [2.0, 0.5]], [0.0, 0.0, 1.0, 1.0])
    """
    n_samples = require_integer("n_samples", n_samples, 2, 10**7)
    noise_std = require_in_range("noise_std", noise_std, 0.0, 1e300,
                                 why="the noisy coordinates noise_std·N(0, 1) must stay finite in float64")
    rng = rng_from(seed)
    n_out = n_samples // 2
    n_in = n_samples - n_out
    outer = np.linspace(0.0, np.pi, n_out)
    inner = np.linspace(0.0, np.pi, n_in)
    X = np.vstack([np.column_stack([np.cos(outer), np.sin(outer)]),
                   np.column_stack([1.0 - np.cos(inner), 1.0 - np.sin(inner) - 0.5])])
    y = np.concatenate([np.zeros(n_out), np.ones(n_in)])
    return Dataset(X + noise_std * rng.standard_normal(X.shape), y)


def two_moons(n_samples=300, *, noise_std=0.1, margin=0.1, seed=None) -> Dataset:
    """The two-moons data of Fig 1 (App. B.2) with separation ``margin`` = Δ along the horizontal axis.

    Parameters
    ----------
    n_samples : int
        Number of points, in [2, 10^7].
    noise_std : float
        Standard deviation of the Gaussian noise of :func:`make_moons`, in [0, 1e300].
    margin : float
        Δ in [-1, 1]: the classes are separable with margin Δ along x_h (Δ > 0) or overlap by 2|Δ| (Δ < 0).
    seed : None, int or numpy.random.Generator
        Source of the noise.

    Returns
    -------
    Dataset
        ``X`` (n_samples, 2) = (x_h, x_v) and ``y`` (n_samples,) in {-1, +1}, with -y·x_h >= Δ for every point.

    Examples
    --------
    >>> X, y = two_moons(300, margin=0.1, seed=0)
    >>> X.shape, bool(np.all(-y * X[:, 0] >= 0.1 - 1e-12))
    ((300, 2), True)
    """
    margin = require_in_range("margin", margin, -1.0, 1.0)
    X, y01 = make_moons(n_samples, noise_std=noise_std, seed=seed)
    y = 2.0 * y01 - 1.0
    X = X - np.column_stack([np.full_like(y, 0.5), 0.3 * y])
    X[:, 1] -= X[:, 1].mean()
    X[:, 1] = -y * np.abs(X[:, 1])
    X[:, 1] -= y * margin
    return Dataset(np.ascontiguousarray(X[:, ::-1]), y)
