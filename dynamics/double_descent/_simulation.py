"""Data and simulations of the teacher–student model (spec §1, §4; Eqs 4.2.1–4.2.7), vectorised over seeds.

* :func:`modulation_matrix`: F = U Σ Vᵀ with Σ = diag(1 × p, 1/κ × (d − p)) (Assumption 4.2.1) and U, V Haar
  (the authors' code) or identity (exact in distribution, spec §1.2).
* :func:`draw_teacher_student`: latent inputs Z with iid N(0, 1/d) entries (Eq 4.2.1, E1), teacher w with
  ‖w‖² = d (project convention, E2; ``normalized_teacher=False`` gives the code's w ~ N(0, I)), labels
  y = Zw + σ_ε ε, student inputs X = ZF (Eq 4.2.2), optional noiseless test set.
* :func:`iterate_gd`: explicit full-batch GD (Eq 4.2.4 without Langevin noise), with weight decay, a per-step
  output penalty (the gradient (1 + a_k)XᵀXŵ − Xᵀy of Lemma 4.3.1 / Fig 4.6), a preconditioner P (per-group
  learning rates, P = VΣ⁻²Vᵀ) and the loss normalisation (sum, as corrected in E3, or the printed 1/(2n) mean).
* :func:`measure_order_parameters` (Eq 4.2.7, per group in F's singular bases) and :func:`test_error`
  (½ mean of (y* − ŷ)² over the test set, the left side of Eq 4.2.5).
* :func:`q_penalty_schedule`: Fig 4.6's a_k = 0.6·log(1 + e^{−k/1000})/log 2 (the authors' code).
"""
from typing import NamedTuple

import numpy as np

from dynamics.numerics import (as_finite_array, haar_orthogonal, require_bool, require_choice, require_finite_result,
                               require_integer, require_positive, rng_from)
from ._common import OrderParameters, check_kappa, check_noise_std, check_step_record, order_parameters


class Modulation(NamedTuple):
    """The modulation matrix F = U diag(σ) Vᵀ (Eq 4.2.2): ``U``, ``V`` of shape (S, d, d) for a stack of S draws
    or (d, d) for one, ``singular_values`` σ of shape (d,), the first ``n_fast`` directions fast (σ = 1), the
    others slow (σ = 1/κ).

    Examples
    --------
    >>> F = modulation_matrix(3, 1, 2.0, seed=0).draw(0)
    >>> bool(np.allclose(F.matrix @ F.inverse, np.eye(3)))
    True
    """

    U: np.ndarray
    singular_values: np.ndarray
    V: np.ndarray
    n_fast: int

    @property
    def matrix(self) -> np.ndarray:
        """F = U diag(σ) Vᵀ, shape (..., d, d)."""
        return (self.U * self.singular_values) @ np.swapaxes(self.V, -1, -2)

    @property
    def inverse(self) -> np.ndarray:
        """F⁻¹ = V diag(1/σ) Uᵀ, shape (..., d, d)."""
        return (self.V / self.singular_values) @ np.swapaxes(self.U, -1, -2)

    @property
    def preconditioner_factor(self) -> np.ndarray:
        """M = VΣ⁻¹: the update ŵ ← ŵ − η MMᵀ∇L has per-group learning rates η/σ_i² (P = VΣ⁻²Vᵀ, spec P18)."""
        return self.V / self.singular_values

    @property
    def preconditioner(self) -> np.ndarray:
        """P = MMᵀ = VΣ⁻²Vᵀ, shape (..., d, d)."""
        M = self.preconditioner_factor
        return M @ np.swapaxes(M, -1, -2)

    def draw(self, index) -> "Modulation":
        """The modulation of draw ``index`` of a stack (U, V of shape (d, d)).

        Examples
        --------
        >>> F = modulation_matrix(4, 2, 10.0, n_seeds=3, seed=0)
        >>> F.U.shape, F.draw(1).U.shape
        ((3, 4, 4), (4, 4))
        """
        if self.U.ndim == 2:
            raise ValueError("this modulation holds a single draw (U of shape (d, d)): there is no index to select")
        index = require_integer("index", index, 0, self.U.shape[0] - 1)
        return Modulation(self.U[index], self.singular_values, self.V[index], self.n_fast)


def _check_sizes(n_samples, n_features, n_fast, kappa):
    """Simulation sizes: the arrays are allocated, so they are capped (d <= 1e5, n <= 1e7)."""
    n_features = require_integer("n_features", n_features, 2, 100_000)
    n_samples = require_integer("n_samples", n_samples, 1, 10_000_000)
    n_fast = require_integer("n_fast", n_fast, 1, n_features - 1)
    return n_samples, n_features, n_fast, check_kappa(kappa)


def modulation_matrix(n_features, n_fast, kappa, haar=True, n_seeds=1, *, seed=None) -> Modulation:
    """A stack of ``n_seeds`` bipartite modulations F = UΣVᵀ (Assumption 4.2.1; σ₁ = 1 on ``n_fast`` directions,
    σ₂ = 1/κ on the other d − p).

    Parameters
    ----------
    n_features : int
        d, 2 <= d <= 1e5.
    n_fast : int
        p, 1 <= p <= d − 1.
    kappa : float
        κ in [1, 1e100].
    haar : bool
        Haar-random U and V (the authors' code) or U = V = I (equal in distribution for the teacher–student
        problem, spec §1.2).
    n_seeds : int
        Number of independent draws S >= 1.
    seed : None, int or numpy.random.Generator
        Source of randomness.

    Returns
    -------
    Modulation
        U, V of shape (S, d, d).

    Examples
    --------
    >>> F = modulation_matrix(3, 1, 4.0, seed=0)
    >>> F.singular_values.tolist(), bool(np.allclose(F.U[0].T @ F.U[0], np.eye(3)))
    ([1.0, 0.25, 0.25], True)
    """
    _, d, p, kappa = _check_sizes(1, n_features, n_fast, kappa)
    haar = require_bool("haar", haar)
    n_seeds = require_integer("n_seeds", n_seeds, 1, 100_000)
    rng = rng_from(seed)
    sigma = np.where(np.arange(d) < p, 1.0, 1.0 / kappa)
    if haar:
        U = haar_orthogonal(d, seed=rng, n_matrices=n_seeds)
        V = haar_orthogonal(d, seed=rng, n_matrices=n_seeds)
    else:
        U = V = np.broadcast_to(np.eye(d), (n_seeds, d, d)).copy()
    return Modulation(U, sigma, V, p)


class TeacherStudentData(NamedTuple):
    """Draws of the teacher–student problem, each array with a leading axis of S draws: latent inputs ``Z`` and
    student inputs ``X = ZF`` (S, n, d), teachers ``w`` (S, d), ``label_noise`` and labels ``y`` (S, n), the
    noiseless test set ``Z_test`` (S, m, d) and ``y_test`` (S, m), the ``modulation`` and the label-noise
    standard deviation ``noise_std`` (spec §1, Eqs 4.2.1–4.2.2).

    Examples
    --------
    >>> data = draw_teacher_student(12, 8, 4, 3.0, noise_std=0.1, seed=0)
    >>> data.Z.shape, data.noise_std
    ((1, 12, 8), 0.1)
    """

    modulation: Modulation
    Z: np.ndarray
    X: np.ndarray
    w: np.ndarray
    label_noise: np.ndarray
    y: np.ndarray
    Z_test: np.ndarray
    y_test: np.ndarray
    noise_std: float


def draw_teacher_student(n_samples, n_features, n_fast, kappa, noise_std=0.0, n_seeds=1, *, seed=None, haar=True,
                         normalized_teacher=True, n_test=0) -> TeacherStudentData:
    """Draw ``n_seeds`` independent teacher–student problems (spec §1, §4; Eqs 4.2.1–4.2.2).

    Parameters
    ----------
    n_samples : int
        n, 1 <= n <= 1e7.
    n_features, n_fast, kappa, haar
        As in :func:`modulation_matrix`.
    noise_std : float
        Label-noise standard deviation σ_ε in [0, 1e100].
    n_seeds : int
        Number of independent draws S >= 1.
    seed : None, int or numpy.random.Generator
        Source of randomness; the same seed gives the same data.
    normalized_teacher : bool
        ‖w‖² = d (the project convention, E2) or w ~ N(0, I) (the authors' code).
    n_test : int
        Number of noiseless test inputs per draw (0: none).

    Returns
    -------
    TeacherStudentData

    Examples
    --------
    >>> data = draw_teacher_student(30, 20, 14, 10.0, noise_std=0.2, n_seeds=2, seed=1, n_test=5)
    >>> data.X.shape, data.y.shape, data.Z_test.shape, bool(np.allclose((data.w ** 2).sum(-1), 20.0))
    ((2, 30, 20), (2, 30), (2, 5, 20), True)
    """
    n, d, p, kappa = _check_sizes(n_samples, n_features, n_fast, kappa)
    noise_std = check_noise_std(noise_std)
    haar = require_bool("haar", haar)
    normalized_teacher = require_bool("normalized_teacher", normalized_teacher)
    n_seeds = require_integer("n_seeds", n_seeds, 1, 100_000)
    n_test = require_integer("n_test", n_test, 0, 10_000_000)
    rng = rng_from(seed)
    F = modulation_matrix(d, p, kappa, haar, n_seeds, seed=rng)
    Z = rng.standard_normal((n_seeds, n, d)) / np.sqrt(d)
    g = rng.standard_normal((n_seeds, d))
    w = np.sqrt(d) * g / np.linalg.norm(g, axis=-1, keepdims=True) if normalized_teacher else g
    eps = noise_std * rng.standard_normal((n_seeds, n))
    y = np.einsum("snd,sd->sn", Z, w) + eps
    Z_test = rng.standard_normal((n_seeds, n_test, d)) / np.sqrt(d)
    y_test = np.einsum("snd,sd->sn", Z_test, w)
    return TeacherStudentData(F, Z, Z @ F.matrix, w, eps, y, Z_test, y_test, noise_std)


def _expand(arr, like):
    """Insert axes after the seed axis so that ``arr`` (S, d) broadcasts against ``like`` (S, ..., d)."""
    return arr.reshape(arr.shape[:1] + (1,) * (like.ndim - arr.ndim) + arr.shape[1:])


def measure_order_parameters(w_hat, w, modulation, noise_std=0.0) -> OrderParameters:
    """R = wᵀFŵ/d and Q = ‖Fŵ‖²/d (Eq 4.2.7) of given students, and their fast/slow parts in F's singular
    bases (R_i = w_i·v_i/d, Q_i = ‖v_i‖²/d with v = ΣVᵀŵ).

    Parameters
    ----------
    w_hat : array_like
        Students, shape (S, ..., d).
    w : array_like
        Teachers, shape (S, d).
    modulation : Modulation
        With a draw axis of length S, or a single draw.
    noise_std : float
        σ_ε, for ``noisy_generalization_error``.

    Returns
    -------
    OrderParameters
        Of shape w_hat.shape[:-1]; L_G = ½(‖w‖²/d − 2R + Q) per draw (Eq 4.2.5).

    Examples
    --------
    >>> data = draw_teacher_student(30, 20, 14, 10.0, n_seeds=1, seed=1)
    >>> F = data.modulation.matrix[0]
    >>> exact = np.linalg.solve(F, data.w[0])[None, None]     # Fŵ = w: the teacher itself
    >>> r = measure_order_parameters(exact, data.w, data.modulation)
    >>> round(float(r.R[0, 0]), 12), abs(round(float(r.generalization_error[0, 0]), 12))
    (1.0, 0.0)
    """
    w_hat = as_finite_array("w_hat", w_hat)
    w = as_finite_array("w", w, ndim=2)
    if not isinstance(modulation, Modulation):
        raise TypeError(f"modulation must be a Modulation, got {type(modulation).__name__}")
    noise_std = check_noise_std(noise_std)
    S, d = w.shape
    if w_hat.ndim < 2 or w_hat.shape[0] != S or w_hat.shape[-1] != d:
        raise ValueError(f"w_hat must have shape ({S}, ..., {d}) to match w {w.shape}, got {w_hat.shape}")
    U, V = modulation.U, modulation.V
    if U.shape[-1] != d or (U.ndim == 3 and U.shape[0] != S):
        raise ValueError(f"modulation must be {d}x{d} with {S} draws or one, got U of shape {U.shape}")
    U, V = np.broadcast_to(U, (S, d, d)), np.broadcast_to(V, (S, d, d))
    flat = w_hat.reshape(S, -1, d)
    v = np.einsum("sji,smj->smi", V, flat) * modulation.singular_values
    w_left = np.einsum("sji,sj->si", U, w)[:, None, :]
    p = modulation.n_fast
    shape = w_hat.shape[:-1]
    R1 = (w_left[..., :p] * v[..., :p]).sum(-1).reshape(shape) / d
    R2 = (w_left[..., p:] * v[..., p:]).sum(-1).reshape(shape) / d
    Q1 = (v[..., :p] ** 2).sum(-1).reshape(shape) / d
    Q2 = (v[..., p:] ** 2).sum(-1).reshape(shape) / d
    power = _expand((w ** 2).sum(-1) / d, R1)
    return order_parameters(R1 + R2, Q1 + Q2, noise_std, R1, R2, Q1, Q2, teacher_power=power)


def test_error(w_hat, data) -> np.ndarray:
    """½ mean over the noiseless test set of (y* − ŷ)², ŷ = z_testᵀFŵ (the left side of Eq 4.2.5).

    Parameters
    ----------
    w_hat : array_like
        Students, shape (S, ..., d).
    data : TeacherStudentData
        With n_test > 0.

    Returns
    -------
    ndarray
        Shape w_hat.shape[:-1].

    Examples
    --------
    >>> data = draw_teacher_student(30, 20, 14, 10.0, n_seeds=1, seed=1, n_test=10)
    >>> float(test_error(np.zeros((1, 20)), data)[0]) == 0.5 * float(np.mean(data.y_test ** 2))
    True
    """
    if not isinstance(data, TeacherStudentData):
        raise TypeError(f"data must be a TeacherStudentData (from draw_teacher_student), got {type(data).__name__}")
    w_hat = as_finite_array("w_hat", w_hat)
    S, m, d = data.Z_test.shape
    if m == 0:
        raise ValueError("data has no test set: draw it with n_test > 0")
    if w_hat.ndim < 2 or w_hat.shape[0] != S or w_hat.shape[-1] != d:
        raise ValueError(f"w_hat must have shape ({S}, ..., {d}), got {w_hat.shape}")
    flat = w_hat.reshape(S, -1, d)
    predictions = np.einsum("smd,skd->skm", data.Z_test @ data.modulation.matrix, flat)
    return 0.5 * ((predictions - data.y_test[:, None, :]) ** 2).mean(-1).reshape(w_hat.shape[:-1])


test_error.__test__ = False  # a function named test_*, not a pytest test


def q_penalty_schedule(n_steps, strength=0.6, decay=1e-3) -> np.ndarray:
    """The decaying output-penalty schedule of Fig 4.6 (the authors' code): a_k = strength·log(1 + e^{−decay·k})/log 2
    for k = 0, ..., n_steps − 1 (0.6 → 0.27 at k = 1e3 → 4e−5 at k = 1e4).

    Parameters
    ----------
    n_steps : int
        Number of GD steps, 1 <= n_steps <= 1e8.
    strength : float
        a_0 >= 0.
    decay : float
        Decay rate > 0 per step.

    Returns
    -------
    ndarray
        Shape (n_steps,): a_k is the output penalty of step k + 1.

    Examples
    --------
    >>> [round(float(a), 6) for a in q_penalty_schedule(2001)[[0, 1000, 2000]]]
    [0.6, 0.271165, 0.109871]
    """
    n_steps = require_integer("n_steps", n_steps, 1, 100_000_000)
    strength = require_positive("strength", strength, allow_zero=True)
    decay = require_positive("decay", decay)
    k = np.arange(n_steps, dtype=float)
    return strength * np.log1p(np.exp(-decay * k)) / np.log(2.0)


class WeightTrajectory(NamedTuple):
    """Weights recorded during a GD run (Eq 4.2.4): ``steps`` (int, shape (T,)) and ``weights`` of shape (..., T, d).

    Examples
    --------
    >>> run = iterate_gd(np.eye(2), np.ones(2), [0, 5], 0.5)
    >>> run.steps.tolist(), run.weights.shape
    ([0, 5], (2, 2))
    """

    steps: np.ndarray
    weights: np.ndarray


def iterate_gd(X, y, steps, learning_rate, weight_decay=0.0, output_penalty_schedule=None, preconditioner=None,
               loss_normalization="sum") -> WeightTrajectory:
    """Explicit full-batch GD from ŵ₀ = 0 (Eq 4.2.4 without Langevin noise):
    ŵ ← ŵ − ηP[(1 + a_k)XᵀXŵ − Xᵀy]/m − ηPλŵ, with m = 1 ("sum", Eq 4.2.3 as corrected in E3) or n ("mean", the
    printed 1/(2n) loss). For long runs use the closed forms (:func:`gd_weights`).

    Parameters
    ----------
    X : array_like
        Designs, shape (..., n, d).
    y : array_like
        Labels, shape (..., n).
    steps : array_like of int
        Sorted steps >= 0 at which ŵ is recorded; the run lasts steps[-1] steps.
    learning_rate : float
        η > 0, below 2/(largest eigenvalue of P((1 + a)XᵀX/m + λ)) for every a used.
    weight_decay : float
        λ >= 0.
    output_penalty_schedule : array_like, optional
        a_k >= 0 for steps 1..steps[-1] (at least steps[-1] values): the output penalty (a_k/2)‖Xŵ‖² of
        Lemma 4.3.1 at step k (Fig 4.6).
    preconditioner : array_like, optional
        P, shape (d, d) or (..., d, d).
    loss_normalization : {"sum", "mean"}

    Returns
    -------
    WeightTrajectory
        steps and weights of shape (..., len(steps), d).

    Examples
    --------
    >>> X, y = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([1.0, 2.0])
    >>> run = iterate_gd(X, y, [0, 1, 200], 0.2)
    >>> run.steps.tolist(), [round(float(v), 6) for v in run.weights[-1]]
    ([0, 1, 200], [1.0, 1.0])
    """
    X = as_finite_array("X", X)
    y = as_finite_array("y", y)
    if X.ndim < 2 or y.shape != X.shape[:-1]:
        raise ValueError(f"X must have shape (..., n, d) and y (..., n) with the same leading shape; got X {X.shape} "
                         f"and y {y.shape}")
    record = check_step_record(steps)
    eta = require_positive("learning_rate", learning_rate)
    weight_decay = require_positive("weight_decay", weight_decay, allow_zero=True)
    require_choice("loss_normalization", loss_normalization, ("sum", "mean"))
    n_steps = int(record[-1])
    if output_penalty_schedule is None:
        schedule = np.zeros(n_steps)
    else:
        schedule = as_finite_array("output_penalty_schedule", output_penalty_schedule, ndim=1)
        if schedule.size < n_steps or np.any(schedule < 0):
            raise ValueError(f"output_penalty_schedule must hold {n_steps} values >= 0 (one per step), got "
                             f"{schedule.size} values, smallest {schedule.min() if schedule.size else 'none'}")
    d = X.shape[-1]
    P = np.eye(d) if preconditioner is None else as_finite_array("preconditioner", preconditioner)
    if P.shape[-2:] != (d, d):
        raise ValueError(f"preconditioner must have shape ({d}, {d}), got {P.shape}")
    scale = 1.0 if loss_normalization == "sum" else 1.0 / X.shape[-2]
    Xt = np.swapaxes(X, -1, -2)
    gram = scale * Xt @ X
    # GD is stable iff η times the largest eigenvalue of P((1 + a)XᵀX + λ) stays below 2 (for every a used)
    worst = P @ ((1.0 + (schedule[:n_steps].max() if n_steps else 0.0)) * gram + weight_decay * np.eye(d))
    radius = float(np.max(np.abs(np.linalg.eigvals(worst))))
    if eta * radius >= 2.0:
        raise ValueError(f"learning_rate must be < 2/{radius:.4g} = {2.0 / radius:.4g} for GD to converge, got {eta:g}")
    rhs = scale * np.einsum("...dn,...n->...d", Xt, y)
    w = np.zeros(X.shape[:-2] + (d,))
    out = np.empty(X.shape[:-2] + (record.size, d))
    r = 0
    while r < record.size and record[r] == 0:
        out[..., r, :] = w
        r += 1
    for k in range(1, n_steps + 1):
        grad = (1.0 + schedule[k - 1]) * np.einsum("...ij,...j->...i", gram, w) - rhs + weight_decay * w
        w = w - eta * np.einsum("...ij,...j->...i", P, grad)
        while r < record.size and record[r] == k:
            out[..., r, :] = w
            r += 1
    return WeightTrajectory(record, require_finite_result(out, "the GD weights", "the run left float64"))
