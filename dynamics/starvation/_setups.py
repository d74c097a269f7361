"""The reusable set-ups of gradient starvation: the sources' configurations, data generators and the experiment
drivers that figures, claims, notebooks and cross-checks share.

* :data:`TOY`: the two-feature toy of Fig 6 (App. B.1, the authors' toy code); :func:`toy_trajectories` runs its
  three optimisations (primal, dual ascent, Spectral Decoupling); :func:`toy_batch` builds a batch of toys with
  a random direction matrix V for the torch cross-checks.
* :func:`random_linear_model`: a random linear model YΦ_0 = USVᵀ (Haar U and V, random labels).
* The accuracy of the approximations: :func:`approximation_gap` (Eq 10 against Eq 9, uncoupled),
  :func:`linearisation_error` (Lemma 1, Eq 14) and :func:`first_order_error` (Eqs 63-64).
* The two-moons data of Fig 1 (spec §4.1, the authors' ``moon_fig_*.py``), without scikit-learn, and
  :data:`MOONS_RUNS`, the three settings of Fig 1 (a)-(c):

  1. make_moons(n, noise_std): an upper half circle (label 0) and a lower, shifted one (label 1), plus
     Gaussian noise of standard deviation ``noise_std``; y± = 2y - 1.
  2. X -= [0.5, 0.3 y±], then the second coordinate is centred.
  3. X[:,1] = -y±|X[:,1]|, then X[:,1] -= y±Δ, so that -y±·X[:,1] >= Δ.
  4. The columns are swapped: x_h = X[:,0] is the coordinate along which the classes are separable with
     margin Δ (Δ > 0) or overlap by 2|Δ| (Δ < 0); x_v is the curved, "vertical" coordinate.
"""
import numpy as np

from dynamics.numerics import (haar_orthogonal, require_array_in_range, require_bool, require_in_range,
                               require_integer, rng_from)
from ._checks import require_delta, require_strengths
from ._dynamics import dual_gd, primal_gd_z
from ._fixed_points import (coupling_matrix, dual_fixed_point, exact_uncoupled_response, feature_response,
                            first_order_response, lambert_fixed_point, linearised_fixed_point, sd_fixed_point)
from ._results import (Dataset, LinearModel, MoonsRun, ToyBatch, ToyConfiguration, ToyTrajectories)

#: The toy of Fig 6 (App. B.1, the authors' toy code): δ = 0.5, s_1 = 2..6, s_2 = 2, λ = 0.01, a = 0.002, primal
#: learning rate 0.05, dual ascent from α_0 = 1e-8 with learning rate 3e-6 and α clamped to [1e-50, 1 - 1e-50].
TOY = ToyConfiguration(delta=0.5, s1_values=(2.0, 3.0, 4.0, 5.0, 6.0), s2=2.0, weight_decay=0.01,
                       output_penalty=0.002, learning_rate=0.05, dual_learning_rate=3e-6, alpha0=1e-8, clamp=1e-50)

#: The three runs of Fig 1 (a)-(c): not separable, separable, separable with Spectral Decoupling.
MOONS_RUNS = (MoonsRun(r"$\Delta = -0.1$", -0.1, 0.0), MoonsRun(r"$\Delta = +0.1$", 0.1, 0.0),
              MoonsRun(r"$\Delta = +0.1$, SD", 0.1, 0.006))


def toy_trajectories(s1=TOY.s1_values, delta=TOY.delta, s2=TOY.s2, n_steps=5000, *, weight_decay=TOY.weight_decay,
                     output_penalty=TOY.output_penalty, learning_rate=TOY.learning_rate,
                     dual_learning_rate=TOY.dual_learning_rate) -> ToyTrajectories:
    """The trajectories of Fig 6 (App. B.1): the toy trained three ways, for each strength s_1 of feature 1.

    Primal gradient descent on Eq 5 (:func:`primal_gd_z`), the authors' dual gradient ascent on Eq 8 from
    α_0 = 1e-8 (:func:`dual_gd`) and gradient descent on Spectral Decoupling's Eq 17, all in feature coordinates
    z = SVᵀθ, with the Eq 15 coupling U(δ); and where they end: the Eq 9 fixed point (Eq 11) and Eq 18.

    Parameters
    ----------
    s1 : array_like, shape (k,)
        Strengths of feature 1, > 0 (default 2, 3, 4, 5, 6).
    delta : float
        The Eq 15 coupling δ in (-1, 1).
    s2 : float
        Strength of feature 2, > 0.
    n_steps : int
        Steps of each optimisation, in [0, 10^6].
    weight_decay : float
        λ > 0 of Eq 5 (primal and dual).
    output_penalty : float
        a > 0 of Eq 17.
    learning_rate : float
        The primal step η, below 2/L of both primal losses (:func:`learning_rate_bound`).
    dual_learning_rate : float
        The dual ascent's step, > 0.

    Returns
    -------
    ToyTrajectories
        ``primal``, ``dual``, ``spectral_decoupling`` (k, n_steps + 1, 2), ``fixed_point`` (k, 2) and
        ``sd_fixed_point`` (2,).

    Examples
    --------
    >>> runs = toy_trajectories([6.0], n_steps=1000)
    >>> runs.primal[0, -1].round(2).tolist(), runs.dual[0, -1].round(2).tolist()
    ([9.16, 1.04], [8.98, 1.1])
    """
    s1 = require_strengths(s1, name="s1")
    s2 = require_strengths([s2], name="s2")[0]
    n_steps = require_integer("n_steps", n_steps, 0, 10**6)
    U = coupling_matrix(delta)
    primal, dual, sd, fixed = [], [], [], []
    for value in s1:
        s = np.array([value, s2])
        primal.append(primal_gd_z(U, s, n_steps, learning_rate=learning_rate, weight_decay=weight_decay).z)
        dual.append(dual_gd(U, s, n_steps, learning_rate=dual_learning_rate, weight_decay=weight_decay).z)
        sd.append(primal_gd_z(U, s, n_steps, learning_rate=learning_rate, output_penalty=output_penalty).z)
        fixed.append(feature_response(U, s, weight_decay))
    return ToyTrajectories(s1, np.array(primal), np.array(dual), np.array(sd), np.array(fixed),
                           sd_fixed_point(U, output_penalty).z)


def toy_batch(s1=TOY.s1_values, delta=(0.5, 0.6), s2=TOY.s2, seed=None) -> ToyBatch:
    """A batch of Fig 6 toys (App. B.1, labels y = 1), one per (δ, s_1), δ-major, with one Haar-random V.

    Φ_0 = YUSVᵀ = U(δ)·diag(s_1, s_2)·Vᵀ: the responses z = SVᵀθ do not depend on V, so the batch tests that a
    trainer's result does not either (spec T1).

    Parameters
    ----------
    s1 : array_like, shape (k,)
        Strengths of feature 1, > 0.
    delta : array_like, shape (r,)
        Couplings δ in (-1, 1).
    s2 : float
        Strength of feature 2, > 0.
    seed : None, int or numpy.random.Generator
        Draws V.

    Returns
    -------
    ToyBatch
        ``U`` (r·k, 2, 2), ``s`` (r·k, 2), ``Phi`` (r·k, 2, 2).

    Examples
    --------
    >>> batch = toy_batch([2.0, 6.0], [0.5, 0.6], seed=0)
    >>> batch.U.shape, batch.s[:2].tolist()
    ((4, 2, 2), [[2.0, 2.0], [6.0, 2.0]])
    """
    s1 = require_strengths(s1, name="s1")
    delta = require_array_in_range("delta", delta, -1.0, 1.0, low_open=True, high_open=True, ndim=1)
    s2 = require_strengths([s2], name="s2")[0]
    V = haar_orthogonal(2, seed=seed)
    Us = np.array([coupling_matrix(d) for d in delta for _ in s1])
    ss = np.array([[value, s2] for _ in delta for value in s1])
    return ToyBatch(Us, ss, np.einsum("bij,bj,kj->bik", Us, ss, V))


def random_linear_model(s, n_params, seed=None) -> LinearModel:
    """A random linear model in the coordinates of Definition 1 (6.3.1): Haar U (n, n) and V (m, m), random labels
    y in {-1, +1}, and Φ_0 = YUSVᵀ with S = [diag(s), 0].

    Parameters
    ----------
    s : array_like, shape (n,)
        The strengths, > 0.
    n_params : int
        m, the number of parameters, in [n, 10^4].
    seed : None, int or numpy.random.Generator
        Draws U, then V, then y (a Generator's stream continues).

    Returns
    -------
    LinearModel
        ``U``, ``V``, ``y``, ``S`` (n, m) and ``Phi0`` (n, m).

    Examples
    --------
    >>> model = random_linear_model([2.0, 1.0], 3, seed=1)
    >>> bool(np.allclose(model.y[:, None] * model.Phi0, model.U @ model.S @ model.V.T))
    True
    """
    s = require_strengths(s)
    n = s.size
    m = require_integer("n_params", n_params, n, 10**4)
    rng = rng_from(seed)
    U, V = haar_orthogonal(n, seed=rng), haar_orthogonal(m, seed=rng)
    y = rng.choice([-1.0, 1.0], n)
    S = np.zeros((n, m))
    S[:n, :n] = np.diag(s)
    return LinearModel(U, V, y, S, y[:, None] * (U @ S @ V.T))


def approximation_gap(s, weight_decay) -> np.ndarray:
    """How much the Eq 10 (Lambert W) fixed point over-estimates the exact Eq 9 one, uncoupled (U = I; App. C.4).

    (α_10 - α_9)/α_9 with α_10 = W(c)/c (Eq 13) and α_9 = σ(-z), z(1 + e^z) = s²/λ; it depends on c = 1 + s²/λ
    only, is positive, and falls with c (6% at c = 2, 1e-3 at c = 30).

    Parameters
    ----------
    s : float or array_like
        Feature strengths, > 0, any shape.
    weight_decay : float
        λ > 0; s²/λ must be finite in float64.

    Returns
    -------
    ndarray
        The relative gap, with the shape of ``s``.

    Examples
    --------
    >>> approximation_gap(np.sqrt([0.1, 2.9]), 0.1).round(4).tolist()
    [0.0629, 0.001]
    """
    alpha10 = lambert_fixed_point(s, weight_decay).alpha
    alpha9 = exact_uncoupled_response(s, weight_decay).alpha
    return (alpha10 - alpha9) / alpha9


def linearisation_error(U, s, weight_decay, printed=False) -> float:
    """The largest relative error of Lemma 1's linearised fixed point (Eq 14) against the Eq 10 fixed point.

    max_i |α_i^{Eq 14} - α_i*|/α_i*, O(δ²) for a coupling δ (spec P9); with ``printed=True`` that of the form
    printed in [T], without the outer inverse (§7 item 7).

    Parameters
    ----------
    U : array_like, shape (n, n)
        Orthogonal.
    s : array_like, shape (n,)
        Feature strengths, > 0.
    weight_decay : float
        λ > 0.
    printed : bool
        Measure the printed (wrong) form.

    Returns
    -------
    float

    Examples
    --------
    >>> round(linearisation_error(coupling_matrix(0.1), np.sqrt([9.0, 4.0]), 0.1), 6)
    0.000655
    """
    reference = dual_fixed_point(U, s, weight_decay, exact=False).alpha
    approximation = linearised_fixed_point(U, s, weight_decay, printed=require_bool("printed", printed)).alpha
    return float(np.max(np.abs(approximation - reference) / reference))


def first_order_error(s, weight_decay, delta) -> float:
    """The largest absolute error of the first-order responses (Eqs 63-64) against the Eq 10 fixed point's
    responses (Eq 11) for the Eq 15 coupling: O(δ²) (spec P10).

    Parameters
    ----------
    s : array_like, shape (2,)
        (s_1, s_2), > 0.
    weight_decay : float
        λ > 0.
    delta : float
        δ in (-1, 1).

    Returns
    -------
    float

    Examples
    --------
    >>> first_order_error(np.sqrt([9.0, 4.0]), 0.1, 1e-2) < 3e-4
    True
    """
    delta = require_delta(delta)
    reference = feature_response(coupling_matrix(delta), s, weight_decay, exact=False)
    return float(np.abs(first_order_response(s, weight_decay, delta) - reference).max())


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
