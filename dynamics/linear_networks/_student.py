"""The Advani–Saxe linear student on one finite instance (thesis Sec. 2.3.1–2.3.2).

Equations of 001_61c8f54ededf01e4.txt (spec/linear_networks.md B.1–B.4):

* (2.3.1–2.3.3) teacher y = w̄ X + ε with w̄_j ~ N(0, σ_w̄²), ε_μ ~ N(0, σ_ε²), X_jμ ~ N(0, 1/N);
  student ŷ = w X with w(0)_j ~ N(0, σ_0²);
* (2.3.5) τ w' = y Xᵀ − w X Xᵀ (GD on (1/2)||y − wX||² with τ = 1, t = kη);
* (2.3.6–2.3.11) X = V Λ^{1/2} Uᵀ, z = w V, z̄ = w̄ V, ε̃ = ε U;
* (2.3.12) τ z_i' = λ_i (z̄_i − z_i) + √λ_i ε̃_i and its solution (2.3.13)
  z̄_i − z_i(t) = (z̄_i − z_i(0)) e^{−λ_i t/τ} − (ε̃_i/√λ_i)(1 − e^{−λ_i t/τ}); modes with λ_i = 0 are
  frozen; the exact discrete-GD analogue replaces e^{−λ_i t/τ} by (1 − ηλ_i)^k;
* (2.3.14) E_g = ||w̄ − w||²/N + σ_ε² (Advani–Saxe, the default) and the thesis variant (2.3.15)
  (1/N) Σ λ_i (z̄_i − z_i)² + σ_ε², which does not match a Monte Carlo test error (erratum F.9);
* (2.3.29) E_t = Σ_{λ_i>0} (√λ_i (z̄_i − z_i(0)) + ε̃_i)² e^{−2λ_i t/τ} + ||ε U^⊥||²;
* the conditional expectation E[E_g(t) | X] over teacher, noise and init, and the exact finite-size
  t → ∞ expectations (B.5).
"""
from dataclasses import dataclass

import numba as nb
import numpy as np

from dynamics.numerics import (as_finite_array, require_array_in_range, require_integer, require_positive,
                               rng_from, solve_ode)
from . import _checks
from ._high_dim import expected_mode_error


@dataclass(frozen=True)
class StudentInstance:
    """One draw of the teacher–student problem and its spectral decomposition.

    ``inputs`` X (N × P), ``teacher`` w̄ (N), ``noise`` ε (P), ``initial_weights`` w(0) (N),
    ``labels`` y = w̄X + ε (P), ``sigma_eps2`` σ_ε² (the test-label noise of E_g). ``eigenvalues`` λ
    (N, decreasing, zeros for the frozen modes), ``input_modes`` V (N × N, columns v_i),
    ``rotated_noise`` ε̃_i for the min(N, P) modes, ``residual_noise2`` = ||ε U^⊥||² (P > N).
    """

    inputs: np.ndarray
    teacher: np.ndarray
    noise: np.ndarray
    initial_weights: np.ndarray
    labels: np.ndarray
    sigma_eps2: float
    eigenvalues: np.ndarray
    input_modes: np.ndarray
    rotated_noise: np.ndarray
    residual_noise2: float

    @property
    def n_features(self):
        return self.inputs.shape[0]

    @property
    def n_examples(self):
        return self.inputs.shape[1]

    @property
    def teacher_modes(self):
        """z̄ = w̄ V."""
        return self.teacher @ self.input_modes

    @property
    def initial_modes(self):
        """z(0) = w(0) V."""
        return self.initial_weights @ self.input_modes


def student_instance(inputs, teacher, noise, initial_weights, sigma_eps2):
    """Build a :class:`StudentInstance` from given X, w̄, ε, w(0) (the SVD X = V Λ^{1/2} Uᵀ is taken here)."""
    X = as_finite_array("inputs", inputs, ndim=2)
    n, p = X.shape
    w_bar = as_finite_array("teacher", teacher, ndim=1)
    eps = as_finite_array("noise", noise, ndim=1)
    w0 = as_finite_array("initial_weights", initial_weights, ndim=1)
    if w_bar.size != n or w0.size != n or eps.size != p:
        raise ValueError(f"teacher and initial_weights need length N = {n} and noise length P = {p}, got "
                         f"{w_bar.size}, {w0.size}, {eps.size}")
    sigma_eps2 = require_positive("sigma_eps2", sigma_eps2, allow_zero=True)
    # X Xᵀ = V Λ Vᵀ (N × N only); ε̃_i = (ε Xᵀ v_i)/√λ_i is the i-th entry of ε U without forming the
    # P × P matrix U, and ||ε U^⊥||² = ||ε||² − Σ ε̃_i² is the noise outside the span of X's rows.
    lam, V = np.linalg.eigh(X @ X.T)
    lam, V = lam[::-1].copy(), V[:, ::-1].copy()
    m = min(n, p)
    lam[m:] = 0.0  # the exact frozen subspace (rank of X is min(N, P) almost surely)
    if np.any(lam[:m] <= 0):
        raise ValueError("inputs must have full rank min(N, P)")
    rotated = (eps @ X.T @ V[:, :m]) / np.sqrt(lam[:m])
    residual = max(float(eps @ eps - rotated @ rotated), 0.0) if p > n else 0.0
    return StudentInstance(X, w_bar, eps, w0, w_bar @ X + eps, sigma_eps2, lam, V, rotated, residual)


def draw_student(n_features, n_examples, sigma_w2=1.0, sigma_eps2=0.25, sigma0=0.0, seed=0):
    """A random instance of (2.3.1–2.3.3): X_jμ ~ N(0, 1/N), w̄ ~ N(0, σ_w̄² I), ε ~ N(0, σ_ε² I),
    w(0) ~ N(0, σ_0² I) (``sigma0`` is the standard deviation)."""
    n = require_integer("n_features", n_features, 1, 100_000)
    p = require_integer("n_examples", n_examples, 1, 1_000_000)
    sigma_w2 = require_positive("sigma_w2", sigma_w2, allow_zero=True)
    sigma_eps2 = require_positive("sigma_eps2", sigma_eps2, allow_zero=True)
    sigma0 = require_positive("sigma0", sigma0, allow_zero=True)
    rng = rng_from(seed)
    X = rng.standard_normal((n, p)) / np.sqrt(n)
    w_bar = np.sqrt(sigma_w2) * rng.standard_normal(n)
    eps = np.sqrt(sigma_eps2) * rng.standard_normal(p)
    w0 = sigma0 * rng.standard_normal(n)
    return student_instance(X, w_bar, eps, w0, sigma_eps2)


def _instance(instance):
    if not isinstance(instance, StudentInstance):
        raise TypeError(f"instance must be a StudentInstance (see draw_student), got {type(instance).__name__}")
    return instance


def _mode_decay(instance, decay):
    """w at mode decays d_i (shape (T, N)) via (2.3.13): z̄ − z = (z̄ − z0) d − (ε̃/√λ)(1 − d)."""
    lam = instance.eigenvalues
    m = instance.rotated_noise.size
    moving = lam[:m] > 0
    noise_fixed_point = np.zeros(lam.size)
    noise_fixed_point[:m][moving] = instance.rotated_noise[moving] / np.sqrt(lam[:m][moving])
    gap = (instance.teacher_modes - instance.initial_modes) * decay - noise_fixed_point * (1.0 - decay)
    return (instance.teacher_modes - gap) @ instance.input_modes.T


def student_weights(t, instance, tau=1.0):
    """w(t) of the gradient flow (2.3.5) from the per-mode solution (2.3.13); shape (len(t), N)."""
    instance = _instance(instance)
    tau = _checks.tau_of(tau)
    t = np.atleast_1d(_checks.times("t", t))
    with np.errstate(invalid="ignore"):
        decay = np.exp(-np.outer(t, instance.eigenvalues) / tau)
    decay[:, instance.eigenvalues == 0] = 1.0  # frozen modes, including t = inf
    return _mode_decay(instance, decay)


def student_weights_gd(n_steps, instance, learning_rate):
    """w after k full-batch GD steps on (1/2)||y − wX||², exact: e^{−λt/τ} → (1 − ηλ)^k (B.2)."""
    instance = _instance(instance)
    eta = require_positive("learning_rate", learning_rate)
    steps = np.atleast_1d(require_array_in_range("n_steps", n_steps, 0.0))
    if np.any(steps != np.round(steps)):
        raise ValueError("n_steps must be whole numbers of steps")
    if eta * instance.eigenvalues[0] >= 2.0:
        raise ValueError(f"learning_rate must be < 2/λ_max = {2.0 / instance.eigenvalues[0]:g} for GD to "
                         f"converge, got {eta:g}")
    decay = (1.0 - eta * instance.eigenvalues)[None, :] ** steps[:, None]
    return _mode_decay(instance, decay)


@nb.njit(cache=True)
def student_rhs(t, y, params):
    """(2.3.5) τ w' = Σyx − w Σxx on y = w; params = [N, tau, Σyx (N), Σxx.ravel() (N²)]."""
    n = int(params[0])
    tau = params[1]
    sigma_yx = params[2:2 + n]
    sigma_xx = params[2 + n:2 + n + n * n].reshape((n, n))
    return (sigma_yx - sigma_xx @ y) / tau  # Σxx is symmetric


def student_flow(t, instance, tau=1.0, rtol=1e-12, atol=1e-14):
    """w(t) by numerical integration (dop853) of the matrix flow (2.3.5), at the sorted times t."""
    instance = _instance(instance)
    tau = _checks.tau_of(tau)
    t_eval = require_array_in_range("t", t, 0.0, ndim=1)
    if t_eval.size == 0 or np.any(np.diff(t_eval) < 0):
        raise ValueError("t must be a non-empty increasing array of times")
    X, y = instance.inputs, instance.labels
    params = np.concatenate([[X.shape[0], tau], y @ X.T, (X @ X.T).ravel()])
    sol = solve_ode(student_rhs, (0.0, max(float(t_eval[-1]), 1e-12)), instance.initial_weights,
                    t_eval=t_eval, params=params, method="dop853", rtol=rtol, atol=atol,
                    max_steps=1_000_000).check()
    return sol.y


def student_gd(instance, learning_rate, n_steps, loss_scale=1.0, record_every=1):
    """Plain full-batch GD w ← w − η ∇[c (1/2)||y − wX||²] (c = ``loss_scale``), recorded every
    ``record_every`` steps (k = 0, r, 2r, ...). Under the project's convention step k is at flow time
    t = c·η·k (τ = 1)."""
    instance = _instance(instance)
    eta = require_positive("learning_rate", learning_rate)
    scale = require_positive("loss_scale", loss_scale)
    n_steps = require_integer("n_steps", n_steps, 0, 10**8)
    every = require_integer("record_every", record_every, 1, max(n_steps, 1))
    X, y = instance.inputs, instance.labels
    w = instance.initial_weights.copy()
    out = [w.copy()]
    with np.errstate(over="ignore", invalid="ignore"):  # divergence is reported below
        for k in range(1, n_steps + 1):
            w = w + eta * scale * ((y - w @ X) @ X.T)
            if k % every == 0:
                out.append(w.copy())
    out = np.array(out)
    if not np.all(np.isfinite(out[-1])):
        raise ValueError(f"gradient descent diverged: learning_rate * loss_scale = {eta * scale:g} must be below "
                         f"2/λ_max = {2.0 / instance.eigenvalues[0]:g}")
    return out


def _student_weights_arg(weights, instance):
    """Finite weights of shape (..., N) for this instance."""
    w = as_finite_array("weights", weights)
    if w.ndim == 0 or w.shape[-1] != instance.n_features:
        raise ValueError(f"weights must have shape (..., N) with N = {instance.n_features}, got {w.shape}")
    return w


def generalization_error(weights, instance):
    """(2.3.14) E_g = ||w̄ − w||²/N + σ_ε² (Advani–Saxe), for one w or a stack of them."""
    instance = _instance(instance)
    w = _student_weights_arg(weights, instance)
    return np.sum((instance.teacher - w) ** 2, axis=-1) / instance.n_features + instance.sigma_eps2


def generalization_error_thesis_variant(weights, instance):
    """(2.3.15) as printed in the thesis, (1/N) Σ λ_i (z̄_i − z_i)² + σ_ε². Kept only as the
    counter-example of erratum F.9: it weights modes by the training covariance X Xᵀ instead of the
    test covariance I/N, and does not match a Monte Carlo test error."""
    instance = _instance(instance)
    w = _student_weights_arg(weights, instance)
    gap = (instance.teacher - w) @ instance.input_modes
    return np.sum(instance.eigenvalues * gap ** 2, axis=-1) / instance.n_features + instance.sigma_eps2


def monte_carlo_generalization_error(weights, instance, n_samples=100_000, seed=0, chunk=20_000):
    """(mean, standard error) of (w̄x + ε − wx)² over fresh x ~ N(0, I/N) and ε ~ N(0, σ_ε²), for one w
    (N,) or a stack of them (k, N) evaluated on the same test draws."""
    instance = _instance(instance)
    w = as_finite_array("weights", weights)
    if w.shape[-1] != instance.n_features or w.ndim > 2:
        raise ValueError(f"weights must have shape (N,) or (k, N) with N = {instance.n_features}, got {w.shape}")
    n_samples = require_integer("n_samples", n_samples, 2, 10**9)
    rng = rng_from(seed)
    diff = (instance.teacher - np.atleast_2d(w)).T
    total = np.zeros(diff.shape[1])
    total2 = np.zeros(diff.shape[1])
    done = 0
    while done < n_samples:
        m = min(chunk, n_samples - done)
        x = rng.standard_normal((m, instance.n_features)) / np.sqrt(instance.n_features)
        err = (x @ diff + np.sqrt(instance.sigma_eps2) * rng.standard_normal(m)[:, None]) ** 2
        total += err.sum(axis=0)
        total2 += (err ** 2).sum(axis=0)
        done += m
    mean = total / n_samples
    var = np.maximum(total2 / n_samples - mean ** 2, 0.0) * n_samples / (n_samples - 1)
    se = np.sqrt(var / n_samples)
    if w.ndim == 1:
        return float(mean[0]), float(se[0])
    return mean, se


def training_error(t, instance, tau=1.0):
    """(2.3.29) E_t(t) = Σ_{λ_i>0} (√λ_i (z̄_i − z_i(0)) + ε̃_i)² e^{−2λ_i t/τ} + ||ε U^⊥||²."""
    instance = _instance(instance)
    tau = _checks.tau_of(tau)
    t = np.atleast_1d(_checks.times("t", t))
    m = instance.rotated_noise.size
    lam = instance.eigenvalues[:m]
    amplitude = (np.sqrt(lam) * (instance.teacher_modes - instance.initial_modes)[:m] + instance.rotated_noise) ** 2
    with np.errstate(invalid="ignore"):
        decay = np.exp(-2.0 * np.outer(t, lam) / tau)
    decay[:, lam == 0] = 1.0
    return decay @ amplitude + instance.residual_noise2


def training_error_direct(weights, instance):
    """(2.3.4) E_t = ||y − wX||² for one w or a stack."""
    instance = _instance(instance)
    w = _student_weights_arg(weights, instance)
    return np.sum((instance.labels - w @ instance.inputs) ** 2, axis=-1)


def expected_generalization_error(t, eigenvalues, sigma_w2=1.0, sigma_eps2=0.25, sigma0=0.0, tau=1.0):
    """E[E_g(t) | X] over teacher, noise and init for the spectrum λ_1..λ_N of X Xᵀ (B.3):
    (1/N) Σ_i [(σ_w̄² + σ_0²) e^{−2λ_i t/τ} + (σ_ε²/λ_i)(1 − e^{−λ_i t/τ})²] + σ_ε²
    (the bracket is σ_w̄² + σ_0² for λ_i = 0). Shape of t."""
    lam = require_array_in_range("eigenvalues", eigenvalues, 0.0, ndim=1)
    if lam.size == 0:
        raise ValueError("eigenvalues must hold at least one eigenvalue, got an empty array")
    t_arr = _checks.times("t", t)
    per_mode = expected_mode_error(np.multiply.outer(t_arr, np.ones_like(lam)), lam, sigma_w2, sigma_eps2,
                                   sigma0, tau)
    out = np.mean(per_mode, axis=-1) + sigma_eps2
    return _checks.scalar_result(out, t)


def finite_size_asymptotic_generalization_error(n_features, n_examples, sigma_w2=1.0, sigma_eps2=0.25, sigma0=0.0):
    """Exact E[E_g(∞)] at finite N, P (B.5), from E[tr (X Xᵀ)^{-1}] of an inverse Wishart matrix:
    P > N + 1: σ_ε²(1 + N/(P − N − 1)); N > P + 1: (N − P)/N (σ_w̄² + σ_0²) + σ_ε² P/(N − P − 1) + σ_ε²."""
    n = require_integer("n_features", n_features, 1)
    p = require_integer("n_examples", n_examples, 1)
    signal = require_positive("sigma_w2", sigma_w2, allow_zero=True) + require_positive("sigma0", sigma0,
                                                                                       allow_zero=True) ** 2
    noise = require_positive("sigma_eps2", sigma_eps2, allow_zero=True)
    if p > n + 1:
        return noise * (1.0 + n / (p - n - 1))
    if n > p + 1:
        return (n - p) / n * signal + noise * p / (n - p - 1) + noise
    raise ValueError(f"n_examples must differ from n_features by at least 2 (the inverse Wishart mean is "
                     f"infinite otherwise), got N={n}, P={p}")


def finite_size_asymptotic_training_error(n_features, n_examples, sigma_eps2=0.25):
    """Exact E[E_t(∞)]/P at finite N, P: σ_ε² (P − N)/P for P > N (the noise outside the span of X),
    0 for P <= N (memorisation)."""
    n = require_integer("n_features", n_features, 1)
    p = require_integer("n_examples", n_examples, 1)
    noise = require_positive("sigma_eps2", sigma_eps2, allow_zero=True)
    return noise * max(0, p - n) / p
