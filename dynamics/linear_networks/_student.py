"""The Advani–Saxe linear student on one finite instance (Advani & Saxe 2017; Pezeshki (thesis), Sec. 2.3.1–2.3.2).

Equations of Pezeshki (thesis), Ch. 2, as read by this project (see the theory note,
docs/theory/linear_networks.md):

* (2.3.1–2.3.3) teacher y = w̄ X + ε with w̄_j ~ N(0, σ_w̄²), ε_μ ~ N(0, σ_ε²), X_jμ ~ N(0, 1/N);
  student ŷ = w X with w(0)_j ~ N(0, σ_0²) (σ_w̄, σ_ε, σ_0 are the parameters ``teacher_std``,
  ``noise_std``, ``init_std``: standard deviations);
* (2.3.5) τ w' = y Xᵀ − w X Xᵀ (GD on (1/2)||y − wX||² with τ = 1, t = kη);
* (2.3.6–2.3.11) X = V Λ^{1/2} Uᵀ, z = w V, z̄ = w̄ V, ε̃ = ε U;
* (2.3.12) τ z_i' = λ_i (z̄_i − z_i) + √λ_i ε̃_i and its solution (2.3.13)
  z̄_i − z_i(t) = (z̄_i − z_i(0)) e^{−λ_i t/τ} − (ε̃_i/√λ_i)(1 − e^{−λ_i t/τ}); modes with λ_i = 0 are
  frozen; the exact discrete-GD analogue replaces e^{−λ_i t/τ} by (1 − ηλ_i)^k;
* (2.3.14) E_g = ||w̄ − w||²/N + σ_ε² (Advani–Saxe, the default) and the thesis variant (2.3.15)
  (1/N) Σ λ_i (z̄_i − z_i)² + σ_ε², which does not match a Monte Carlo test error (an erratum of the thesis);
* (2.3.29) E_t = Σ_{λ_i>0} (√λ_i (z̄_i − z_i(0)) + ε̃_i)² e^{−2λ_i t/τ} + ||ε U^⊥||²;
* the conditional expectation E[E_g(t) | X] over teacher, noise and init, and the exact finite-size
  t → ∞ expectations (both derived in this project).

The instances themselves (``student_instance``, ``draw_student``) are set-ups, in ``_setups.py``.
"""
from typing import Optional, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (as_finite_array, require_array_in_range, require_finite_product,
                               require_finite_result, require_integer, require_output_times, require_positive,
                               require_times, rng_from)
from ._checks import require_instance, require_std, require_student_weights, scalar_or_array
from ._high_dim import expected_mode_error
from ._integrate import integrate_flow
from ._kernels import student_jacobian, student_rhs
from ._results import MonteCarloEstimate, StudentFlowTrajectory, StudentGDTrajectory, StudentInstance
from ._docs import fill_doc

__all__ = ["expected_generalization_error", "finite_size_asymptotic_generalization_error",
           "finite_size_asymptotic_training_error", "generalization_error", "generalization_error_thesis_variant",
           "monte_carlo_generalization_error", "student_flow", "student_gd", "student_weights", "student_weights_gd",
           "training_error", "training_error_direct"]


def _mode_decay(instance, decay, rise):
    """w at mode decays d_i (shape (T, N)) via (2.3.13): z̄ − z = (z̄ − z0) d − (ε̃/√λ)(1 − d); the caller gives
    d and 1 − d (``rise``), each computed without cancellation."""
    lam = instance.eigenvalues
    m = instance.rotated_noise.size
    moving = lam[:m] > 0
    noise_fixed_point = np.zeros(lam.size)
    noise_fixed_point[:m][moving] = instance.rotated_noise[moving] / np.sqrt(lam[:m][moving])
    gap = (instance.teacher_modes - instance.initial_modes) * decay - noise_fixed_point * rise
    return (instance.teacher_modes - gap) @ instance.input_modes.T


@fill_doc
def student_weights(instance: StudentInstance, t: ArrayLike, tau: float = 1.0) -> np.ndarray:
    r""":math:`w(t)` of the gradient flow (2.3.5) from the per-mode solution (2.3.13).

    Parameters
    ----------
    %(instance)s
    t : float or array_like, shape (m,)
        Flow times :math:`t \ge 0` (+inf gives the fixed point:
        :math:`\bar z_i + \tilde\varepsilon_i/\sqrt{\lambda_i}`, frozen modes unchanged).
    %(tau)s

    Returns
    -------
    ndarray, shape (m, N)
        One row per time (m = 1 for scalar t).

    Raises
    ------
    ValueError
        For bad times or tau <= 0.
    TypeError
        If instance is not a StudentInstance.

    Examples
    --------
    >>> from dynamics.linear_networks import draw_student
    >>> inst = draw_student(20, 10, init_std=0.3, seed=1)
    >>> bool(np.allclose(student_weights(inst, 0.0)[0], inst.initial_weights))
    True
    """
    instance = require_instance(instance)
    tau = require_positive("tau", tau)
    t = np.atleast_1d(require_times("t", t)).ravel()
    with np.errstate(invalid="ignore"):
        log_decay = -np.outer(t, instance.eigenvalues) / tau
    log_decay[:, instance.eigenvalues == 0] = 0.0  # frozen modes, including t = inf
    return _mode_decay(instance, np.exp(log_decay), -np.expm1(log_decay))


@fill_doc
def student_weights_gd(instance: StudentInstance, steps: ArrayLike, learning_rate: float) -> np.ndarray:
    r""":math:`w` after :math:`k` full-batch GD steps on :math:`\frac{1}{2}\lVert y - wX \rVert^2`, exactly:
    :math:`e^{-\lambda t/\tau} \to (1 - \eta\lambda)^k` in (2.3.13) (the discrete-time analogue, derived in this
    project).

    Parameters
    ----------
    %(instance)s
    steps : int or array_like, shape (m,)
        Whole numbers of steps :math:`k \ge 0`.
    learning_rate : float
        :math:`\eta`, in :math:`(0, 2/\lambda_\mathrm{max})` so that GD converges.

    Returns
    -------
    ndarray, shape (m, N)

    Raises
    ------
    ValueError
        For negative or fractional steps, or learning_rate outside :math:`(0, 2/\lambda_\mathrm{max})`.
    TypeError
        If instance is not a StudentInstance.

    Examples
    --------
    >>> from dynamics.linear_networks import draw_student
    >>> inst = draw_student(20, 30, init_std=0.3, seed=1)
    >>> w = student_weights_gd(inst, [0, 50], 0.1)
    >>> bool(np.allclose(w, student_gd(inst, 50, 0.1, record_every=50).weights))
    True
    """
    instance = require_instance(instance)
    eta = require_positive("learning_rate", learning_rate)
    k = np.atleast_1d(require_array_in_range("steps", steps, 0.0)).ravel()
    if np.any(k != np.round(k)):
        raise ValueError(f"steps must be whole numbers of steps, got {k[k != np.round(k)][0]:g}")
    if eta * instance.eigenvalues[0] >= 2.0:
        raise ValueError(f"learning_rate must be < 2/λ_max = {2.0 / instance.eigenvalues[0]:g} for GD to "
                         f"converge, got {eta:g}")
    # (1 − ηλ)^k as exp(k log1p(−ηλ)) where ηλ <= 1: rounding 1 − ηλ would cost a relative eps/(ηλ) on the small
    # modes. A mode with 1 < ηλ < 2 overshoots: (1 − ηλ)^k = (−1)^k (ηλ − 1)^k, |·| < 1, no cancellation in 1 − d.
    rate = eta * instance.eigenvalues[None, :]
    steps_ = k[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):  # ηλ = 1: log 0 = −inf, decay 0 after one step, 1 at k = 0
        log_decay = np.where(steps_ > 0, steps_ * np.log1p(-np.minimum(rate, 1.0)), 0.0)
        overshoot = np.where(steps_ % 2 == 1, -1.0, 1.0) * np.exp(steps_ * np.log(np.maximum(rate - 1.0, 1e-300)))
    overshooting = rate > 1.0
    decay = np.where(overshooting, overshoot, np.exp(log_decay))
    rise = np.where(overshooting, 1.0 - overshoot, -np.expm1(log_decay))
    return _mode_decay(instance, decay, rise)


@fill_doc
def student_flow(instance: StudentInstance, t: ArrayLike, tau: float = 1.0, rtol: float = 1e-12,
                 atol: float = 1e-14) -> StudentFlowTrajectory:
    r""":math:`w(t)` by numerical integration (DOP853) of the matrix flow (2.3.5),
    :math:`\tau w' = y X^\top - w X X^\top`.

    A stiff flow (:math:`\tau` tiny against :math:`t`, or a large spread of the eigenvalues of :math:`X X^\top`),
    which DOP853 does not finish within 20 000 step attempts, is integrated by the L-stable rosenbrock23 of
    :func:`dynamics.numerics.solve_ode` with the Jacobian :math:`-X X^\top/\tau`.

    Parameters
    ----------
    %(instance)s
    %(output_times)s
    %(tau)s
    %(rtol_atol)s

    Returns
    -------
    StudentFlowTrajectory
        ``(t, weights)``, weights of shape (m, N).

    Raises
    ------
    ValueError
        For bad times, tau <= 0, or t/tau above 2^52.
    TypeError
        If instance is not a StudentInstance.
    dynamics.numerics.IntegrationError
        If the integration does not reach the last time.

    Examples
    --------
    >>> from dynamics.linear_networks import draw_student
    >>> inst = draw_student(10, 15, seed=2)
    >>> run = student_flow(inst, [0.0, 2.0])
    >>> bool(np.abs(run.weights - student_weights(inst, run.t)).max() < 1e-9)
    True
    """
    instance = require_instance(instance)
    tau = require_positive("tau", tau)
    t_eval = require_output_times("t", t)
    X, y = instance.inputs, instance.labels
    params = np.concatenate([[X.shape[0], 1.0], y @ X.T, (X @ X.T).ravel()])
    weights = integrate_flow(student_rhs, student_jacobian, instance.initial_weights, t_eval, tau, params, rtol,
                             atol, "student_flow", float(np.max(instance.eigenvalues)), "λ_max(X Xᵀ)")
    return StudentFlowTrajectory(t_eval, weights)


@fill_doc
def student_gd(instance: StudentInstance, n_steps: int, learning_rate: float, loss_scale: float = 1.0,
               record_every: int = 1) -> StudentGDTrajectory:
    r"""Plain full-batch gradient descent
    :math:`w \leftarrow w - \eta \nabla \left[c \, \frac{1}{2}\lVert y - wX \rVert^2\right]` (:math:`c` =
    ``loss_scale``), Eq (2.3.5) in discrete time; step :math:`k` is at flow time
    ``gd_flow_time(k, learning_rate, loss_scale)``.

    Parameters
    ----------
    %(instance)s
    n_steps : int
        Number of steps, in [0, 1e8].
    learning_rate : float
        :math:`\eta > 0` (GD converges for :math:`c \eta < 2/\lambda_\mathrm{max}`).
    loss_scale : float
        :math:`c > 0` (2 for the thesis's unhalved loss (2.3.4), :math:`2/P` for a per-sample mean).
    %(record_every)s

    Returns
    -------
    StudentGDTrajectory
        ``(steps, weights)``, weights of shape (m, N).

    Raises
    ------
    ValueError
        For bad step counts, learning_rate or loss_scale <= 0, or a run that diverges.
    TypeError
        If instance is not a StudentInstance.

    Examples
    --------
    >>> from dynamics.linear_networks import draw_student
    >>> inst = draw_student(10, 15, seed=2)
    >>> student_gd(inst, 4, 0.1, record_every=2).steps
    array([0, 2, 4])
    """
    instance = require_instance(instance)
    n_steps = require_integer("n_steps", n_steps, 0, 10**8)
    eta = require_positive("learning_rate", learning_rate)
    scale = require_positive("loss_scale", loss_scale)
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
    return StudentGDTrajectory(np.arange(0, n_steps + 1, every), out)


def _per_weights(values, w):
    return float(values) if w.ndim == 1 else values


def _mean_square(residual, divisor, weights=1.0, what="", hint=""):
    """Σ weights·residual² / divisor over the last axis; where the squares overflow although the result does not
    (a residual beyond 1.3e154), through max|residual|² · Σ weights·(residual/max)², mantissas and exponents apart.
    ValueError if the result itself leaves float64."""
    with np.errstate(over="ignore", invalid="ignore"):
        direct = np.sum(weights * residual ** 2, axis=-1) / divisor
    if np.all(np.isfinite(direct)):
        return direct
    scale = np.max(np.abs(residual), axis=-1)
    safe = np.where(scale > 0, scale, 1.0)
    reduced = np.sum(weights * (residual / safe[..., None]) ** 2, axis=-1)
    return require_finite_product([safe, safe, reduced], [divisor], what=what, hint=hint)


@fill_doc
def generalization_error(instance: StudentInstance, weights: ArrayLike) -> Union[float, np.ndarray]:
    r""":math:`E_g = \lVert \bar w - w \rVert^2/N + \sigma_\varepsilon^2`, Eq (2.3.14) (Advani–Saxe): the expected
    squared error on a fresh noisy label for a test input :math:`x \sim \mathcal{N}(0, I/N)`.

    Parameters
    ----------
    %(instance)s
    weights : array_like, shape (..., N)
        One weight vector or a stack of them.

    Returns
    -------
    float or ndarray, shape (...)

    Raises
    ------
    ValueError
        For non-finite weights or a last axis other than N.
    TypeError
        If instance is not a StudentInstance.

    Examples
    --------
    >>> from dynamics.linear_networks import draw_student
    >>> inst = draw_student(10, 15, seed=2)
    >>> round(generalization_error(inst, inst.teacher), 12)
    0.25
    """
    instance = require_instance(instance)
    w = require_student_weights(weights, instance)
    values = _mean_square(instance.teacher - w, instance.n_features, what="generalization_error",
                          hint="||teacher − weights||²/N overflows float64; reduce weights") + instance.noise_std ** 2
    return _per_weights(require_finite_result(values, "generalization_error", "reduce weights"), w)


@fill_doc
def generalization_error_thesis_variant(instance: StudentInstance, weights: ArrayLike) -> Union[float, np.ndarray]:
    r"""The thesis's printed Eq (2.3.15),
    :math:`\frac{1}{N} \sum_i \lambda_i (\bar z_i - z_i)^2 + \sigma_\varepsilon^2`, kept only as the counter-example
    of the erratum ``linear_networks.erratum_test_error`` (see the theory note, docs/theory/linear_networks.md).

    It weights the modes by the training covariance :math:`X X^\top` instead of the test covariance :math:`I/N` and
    does not match
    a Monte Carlo test error; use :func:`dynamics.linear_networks.generalization_error`.

    Parameters
    ----------
    %(instance)s
    weights : array_like, shape (..., N)

    Returns
    -------
    float or ndarray, shape (...)

    Raises
    ------
    ValueError
        For non-finite weights or a last axis other than N.
    TypeError
        If instance is not a StudentInstance.

    Examples
    --------
    >>> from dynamics.linear_networks import draw_student
    >>> inst = draw_student(10, 15, seed=2)
    >>> round(generalization_error_thesis_variant(inst, inst.teacher), 12)
    0.25
    """
    instance = require_instance(instance)
    w = require_student_weights(weights, instance)
    with np.errstate(over="ignore", invalid="ignore"):
        gap = (instance.teacher - w) @ instance.input_modes
    require_finite_result(gap, "generalization_error_thesis_variant", "the rotated weights overflow; reduce weights")
    values = _mean_square(gap, instance.n_features, instance.eigenvalues, what="generalization_error_thesis_variant",
                          hint="Σλ_i gap_i²/N overflows float64; reduce weights") + instance.noise_std ** 2
    return _per_weights(require_finite_result(values, "generalization_error_thesis_variant", "reduce weights"), w)


@fill_doc
def monte_carlo_generalization_error(instance: StudentInstance, weights: ArrayLike, n_test_samples: int = 100_000,
                                     seed: Optional[Union[int, np.random.Generator]] = None,
                                     chunk: int = 20_000) -> MonteCarloEstimate:
    r"""Monte Carlo estimate of :math:`\mathbb{E}_{x,\varepsilon}[(\bar w x + \varepsilon - w x)^2]` over fresh
    :math:`x \sim \mathcal{N}(0, I/N)` and :math:`\varepsilon \sim \mathcal{N}(0, \sigma_\varepsilon^2)`: the
    definition that Eq (2.3.14) evaluates.

    Parameters
    ----------
    %(instance)s
    weights : array_like, shape (N,) or (k, N)
        One weight vector or k of them, evaluated on the same test draws.
    n_test_samples : int
        Number of fresh test examples, in [2, 1e9].
    %(seed)s
    chunk : int
        Test examples drawn at a time (memory), >= 1.

    Returns
    -------
    MonteCarloEstimate
        ``(mean, standard_error)``: floats for one weight vector, arrays (k,) for k.

    Raises
    ------
    ValueError
        For weights of the wrong shape or bad counts.
    TypeError
        If instance is not a StudentInstance.

    Examples
    --------
    >>> from dynamics.linear_networks import draw_student
    >>> inst = draw_student(10, 15, seed=2)
    >>> est = monte_carlo_generalization_error(inst, inst.initial_weights, n_test_samples=20_000, seed=3)
    >>> bool(abs(est.mean - generalization_error(inst, inst.initial_weights)) < 5 * est.standard_error)
    True
    """
    instance = require_instance(instance)
    w = as_finite_array("weights", weights)
    if w.ndim not in (1, 2) or w.shape[-1] != instance.n_features:
        raise ValueError(f"weights must have shape (N,) or (k, N) with N = {instance.n_features}, got {w.shape}")
    n_test = require_integer("n_test_samples", n_test_samples, 2, 10**9)
    chunk = require_integer("chunk", chunk, 1, 10**8)
    rng = rng_from(seed)
    diff = (instance.teacher - np.atleast_2d(w)).T
    total = np.zeros(diff.shape[1])
    total2 = np.zeros(diff.shape[1])
    done = 0
    while done < n_test:
        m = min(chunk, n_test - done)
        x = rng.standard_normal((m, instance.n_features)) / np.sqrt(instance.n_features)
        err = (x @ diff + instance.noise_std * rng.standard_normal(m)[:, None]) ** 2
        total += err.sum(axis=0)
        total2 += (err ** 2).sum(axis=0)
        done += m
    mean = total / n_test
    var = np.maximum(total2 / n_test - mean ** 2, 0.0) * n_test / (n_test - 1)
    se = np.sqrt(var / n_test)
    if w.ndim == 1:
        return MonteCarloEstimate(float(mean[0]), float(se[0]))
    return MonteCarloEstimate(mean, se)


@fill_doc
def training_error(instance: StudentInstance, t: ArrayLike, tau: float = 1.0) -> np.ndarray:
    r""":math:`E_t(t)`, Eq (2.3.29): the training error :math:`\lVert y - wX \rVert^2` (2.3.4), summed over the
    :math:`P` examples, of the flow,

    .. math::

        E_t(t) = \sum_{\lambda_i > 0} \left(\sqrt{\lambda_i} \, (\bar z_i - z_i(0)) + \tilde\varepsilon_i\right)^2
        e^{-2\lambda_i t/\tau} + \lVert \varepsilon U^\perp \rVert^2.

    Parameters
    ----------
    %(instance)s
    t : float or array_like, shape (m,)
        Flow times :math:`t \ge 0` (+inf allowed).
    %(tau)s

    Returns
    -------
    ndarray, shape (m,)

    Raises
    ------
    ValueError
        For bad times or tau <= 0.
    TypeError
        If instance is not a StudentInstance.

    Examples
    --------
    >>> from dynamics.linear_networks import draw_student
    >>> inst = draw_student(30, 12, seed=3)
    >>> round(float(training_error(inst, float("inf"))[0]), 10)
    0.0
    """
    instance = require_instance(instance)
    tau = require_positive("tau", tau)
    t = np.atleast_1d(require_times("t", t)).ravel()
    m = instance.rotated_noise.size
    lam = instance.eigenvalues[:m]
    amplitude = (np.sqrt(lam) * (instance.teacher_modes - instance.initial_modes)[:m] + instance.rotated_noise) ** 2
    with np.errstate(invalid="ignore"):
        decay = np.exp(-2.0 * np.outer(t, lam) / tau)
    decay[:, lam == 0] = 1.0
    return decay @ amplitude + instance.residual_noise


@fill_doc
def training_error_direct(instance: StudentInstance, weights: ArrayLike) -> Union[float, np.ndarray]:
    r""":math:`E_t = \lVert y - wX \rVert^2`, Eq (2.3.4) (summed over the :math:`P` examples, no factor 1/2),
    evaluated directly.

    Parameters
    ----------
    %(instance)s
    weights : array_like, shape (..., N)

    Returns
    -------
    float or ndarray, shape (...)

    Raises
    ------
    ValueError
        For non-finite weights or a last axis other than N.
    TypeError
        If instance is not a StudentInstance.

    Examples
    --------
    >>> from dynamics.linear_networks import draw_student
    >>> inst = draw_student(10, 15, noise_std=0.0, seed=2)
    >>> training_error_direct(inst, inst.teacher)
    0.0
    """
    instance = require_instance(instance)
    w = require_student_weights(weights, instance)
    with np.errstate(over="ignore", invalid="ignore"):
        residual = instance.labels - w @ instance.inputs
    require_finite_result(residual, "training_error_direct", "w·X overflows float64; reduce weights")
    return _per_weights(_mean_square(residual, 1.0, what="training_error_direct",
                                     hint="||y − wX||² overflows float64; reduce weights"), w)


@fill_doc
def expected_generalization_error(t: ArrayLike, eigenvalues: ArrayLike, *, teacher_std: float = 1.0,
                                  noise_std: float = 0.5, init_std: float = 0.0,
                                  tau: float = 1.0) -> Union[float, np.ndarray]:
    r""":math:`\mathbb{E}[E_g(t) \mid X]` over teacher, label noise and initialisation for the spectrum
    :math:`\lambda_1, \ldots, \lambda_N` of :math:`X X^\top` (derived in this project from Eqs 2.3.13–2.3.14):

    .. math::

        \frac{1}{N} \sum_i \left[(\sigma_{\bar w}^2 + \sigma_0^2) \, e^{-2\lambda_i t/\tau}
        + \frac{\sigma_\varepsilon^2}{\lambda_i} \left(1 - e^{-\lambda_i t/\tau}\right)^2\right]
        + \sigma_\varepsilon^2

    (the bracket is :math:`\sigma_{\bar w}^2 + \sigma_0^2` for :math:`\lambda_i = 0`).

    Parameters
    ----------
    t : float or array_like
        Flow times :math:`t \ge 0` (+inf allowed).
    eigenvalues : array_like, shape (N,)
        The :math:`N` eigenvalues of :math:`X X^\top` (>= 0; zeros for the frozen modes).
    %(teacher_noise_init_std)s
    %(tau)s

    Returns
    -------
    float or ndarray
        Of the shape of t.

    Raises
    ------
    ValueError
        For bad times, an empty or negative spectrum, negative standard deviations or tau <= 0.

    Examples
    --------
    >>> expected_generalization_error(0.0, [0.5, 1.5])
    1.25
    """
    lam = require_array_in_range("eigenvalues", eigenvalues, 0.0, ndim=1)
    if lam.size == 0:
        raise ValueError("eigenvalues must hold at least one eigenvalue, got an empty array")
    t_arr = require_times("t", t)
    per_mode = expected_mode_error(np.multiply.outer(t_arr, np.ones_like(lam)), lam, teacher_std=teacher_std, noise_std=noise_std,
                                   init_std=init_std, tau=tau)
    out = np.mean(per_mode, axis=-1) + require_std("noise_std", noise_std) ** 2
    return scalar_or_array(out, t)


@fill_doc
def finite_size_asymptotic_generalization_error(n_features: int, n_samples: int, *, teacher_std: float = 1.0,
                                                noise_std: float = 0.5, init_std: float = 0.0) -> float:
    r"""Exact :math:`\mathbb{E}[E_g(\infty)]` at finite :math:`N, P` (derived in this project), from the
    inverse-Wishart mean :math:`\mathbb{E}[\operatorname{tr} (X X^\top)^{-1}]`:

    .. math::

        \mathbb{E}[E_g(\infty)] = \begin{cases}
            \sigma_\varepsilon^2 \left(1 + \frac{N}{P - N - 1}\right) & \text{for } P > N + 1, \\
            \frac{N - P}{N} (\sigma_{\bar w}^2 + \sigma_0^2) + \sigma_\varepsilon^2 \frac{P}{N - P - 1}
            + \sigma_\varepsilon^2 & \text{for } N > P + 1.
        \end{cases}

    Parameters
    ----------
    n_features : int
        :math:`N \ge 1`.
    n_samples : int
        :math:`P \ge 1`, with :math:`|P - N| \ge 2` (the inverse-Wishart mean is infinite otherwise).
    %(teacher_noise_init_std)s

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For :math:`|P - N| < 2` (the message names n_samples), bad sizes or negative standard deviations.

    Examples
    --------
    >>> round(finite_size_asymptotic_generalization_error(100, 201), 12)
    0.5
    """
    n = require_integer("n_features", n_features, 1)
    p = require_integer("n_samples", n_samples, 1)
    teacher_std = require_std("teacher_std", teacher_std)
    init_std = require_std("init_std", init_std)
    noise = require_std("noise_std", noise_std) ** 2
    signal = teacher_std ** 2 + init_std ** 2
    if p > n + 1:
        return noise * (1.0 + n / (p - n - 1))
    if n > p + 1:
        return (n - p) / n * signal + noise * p / (n - p - 1) + noise
    raise ValueError(f"n_samples must differ from n_features by at least 2 (the inverse Wishart mean is "
                     f"infinite otherwise), got n_features={n}, n_samples={p}")


def finite_size_asymptotic_training_error(n_features: int, n_samples: int, *, noise_std: float = 0.5) -> float:
    r"""Exact :math:`\mathbb{E}[E_t(\infty)]/P` at finite :math:`N, P` (derived in this project from Eq 2.3.29):
    :math:`\sigma_\varepsilon^2 (P - N)/P` for :math:`P > N` (the noise outside the span of :math:`X`'s rows), 0 for
    :math:`P \le N` (memorisation).

    Parameters
    ----------
    n_features : int
        :math:`N \ge 1`.
    n_samples : int
        :math:`P \ge 1`.
    noise_std : float
        :math:`\sigma_\varepsilon`, in [0, 1e150].

    Returns
    -------
    float
        The training error per sample.

    Raises
    ------
    ValueError
        For bad sizes or a negative noise_std.

    Examples
    --------
    >>> finite_size_asymptotic_training_error(100, 200)
    0.125
    """
    n = require_integer("n_features", n_features, 1, 2**53)  # exact counts in float64
    p = require_integer("n_samples", n_samples, 1, 2**53)
    noise = require_std("noise_std", noise_std) ** 2
    return noise * max(0, p - n) / p
