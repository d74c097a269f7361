"""High-dimensional generalization dynamics of the linear student (Advani & Saxe 2017; Pezeshki (thesis),
Sec. 2.3.3).

Equations (the high-dimensional integrals over the Marchenko–Pastur law are derived in this project from the per-mode
solution (2.3.13); see the theory note, docs/theory/linear_networks.md), with signal variance A = σ_w̄² + σ_0² and noise
variance σ_ε² (the public parameters are the standard deviations ``teacher_std`` = σ_w̄, ``noise_std`` = σ_ε and
``init_std`` = σ_0):

* per-mode expected error of (2.3.13)–(2.3.14): e(λ, t) = A e^{−2λt/τ} + (σ_ε²/λ)(1 − e^{−λt/τ})²
  (A at λ = 0, the frozen subspace);
* Marchenko–Pastur law (2.3.30) of X Xᵀ with α = P/N (atom 1 − α at 0 for α < 1, bulk mass min(1, α));
* E_g(t) = ∫ ρ_bulk e(λ, t) dλ + 1[α<1](1 − α) A + σ_ε²,
  E_t(t)/P = (1/α) ∫ ρ_bulk (λA + σ_ε²) e^{−2λt/τ} dλ + σ_ε² max(0, 1 − 1/α);
* t → ∞: E_g = σ_ε² α/(α − 1) (α > 1), (1 − α)A + σ_ε² α/(1 − α) + σ_ε² (α < 1), and at α = 1
  E_g ≈ C σ_ε² √(t/τ) with C = (1/π) ∫_0^∞ x^{−3/2}(1 − e^{−x})² dx = 2(2 − √2)/√π (derived in this project by
  continuing ∫ x^{s−1}(1 − 2e^{−x} + e^{−2x}) dx = Γ(s)(2^{−s} − 2) to s = −1/2, Γ(−1/2) = −2√π);
* early stopping: per-mode t*(λ) = (τ/λ) ln(1 + λA/σ_ε²), per-mode minimum Aσ_ε²/(σ_ε² + λA) (the
  Bayes / optimal-ridge error when σ_0 = 0), E_Bayes its MP average, and the single global
  t_opt = argmin E_g in [t*(λ+), t*(λ−)].

Integrals over ρ_bulk use :func:`dynamics.numerics.mp_quadrature` (θ substitution, graded panels,
robust at α = 1); 1 − e^{−x} is evaluated with expm1.
"""
import math
from typing import Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (mp_atom, mp_edges, mp_quadrature, require_array_in_range, require_finite_product,
                               require_finite_result, require_positive, require_times)
from ._checks import require_alpha, require_broadcast, require_std, scalar_or_array
from ._modes import rate_time
from ._results import AsymptoticErrors, GeneralizationCurve
from ._docs import fill_doc

__all__ = ["SQRT_GROWTH_CONSTANT", "asymptotic_errors", "bayes_error", "expected_mode_error", "gd_discretization_error",
           "generalization_curve", "mode_bayes_error", "optimal_stopping_time", "per_mode_stopping_time"]

#: C = 2(2 − √2)/√π: E_g(t) ≈ C σ_ε² √(t/τ) at α = 1 for large t (derived in this project).
SQRT_GROWTH_CONSTANT = 2.0 * (2.0 - math.sqrt(2.0)) / math.sqrt(math.pi)
_QUADRATURE_ORDER = 16


def _variances(teacher_std, noise_std, init_std):
    """(A, σ_ε²) = (σ_w̄² + σ_0², σ_ε²) from the standard deviations, each checked in [0, 1e150]."""
    teacher_std = require_std("teacher_std", teacher_std)
    noise_std = require_std("noise_std", noise_std)
    init_std = require_std("init_std", init_std)
    return teacher_std * teacher_std + init_std * init_std, noise_std * noise_std


def _mode_error(rate, lam, signal, noise):
    """e(λ, t) at rate = λt/τ (arrays broadcast); λ = 0 carries no noise term. Where σ_ε²(1 − e^{−λt/τ})²/λ leaves
    float64 (a tiny λ at a finite rate λt/τ) it is inf, for the caller to report; σ_ε = 0 gives 0 there, not NaN."""
    rise = -np.expm1(-rate)
    positive = lam > 0
    with np.errstate(over="ignore", invalid="ignore"):
        noise_term = noise * np.where(positive, rise * rise / np.where(positive, lam, 1.0), 0.0)
        if not np.all(np.isfinite(noise_term)):  # rise²/λ = inf alone: mantissas and exponents apart
            try:
                noise_term = np.where(positive, require_finite_product([noise, rise, rise],
                                                                       [np.where(positive, lam, 1.0)]), 0.0)
            except ValueError:  # the term itself leaves float64
                noise_term = np.where(np.isnan(noise_term), np.inf, noise_term)
    return signal * np.exp(-2.0 * rate) + noise_term


@fill_doc
def expected_mode_error(t: ArrayLike, eigenvalue: ArrayLike, *, teacher_std: float = 1.0, noise_std: float = 0.5,
                        init_std: float = 0.0, tau: float = 1.0) -> Union[float, np.ndarray]:
    r"""Expected contribution of one mode to :math:`N \cdot (E_g - \sigma_\varepsilon^2)` at time :math:`t`, from
    Eqs (2.3.13)–(2.3.14):

    .. math::

        (\sigma_{\bar w}^2 + \sigma_0^2) \, e^{-2\lambda t/\tau}
        + \frac{\sigma_\varepsilon^2}{\lambda} \left(1 - e^{-\lambda t/\tau}\right)^2.

    Parameters
    ----------
    t : float or array_like
        Flow time :math:`t \ge 0` (+inf allowed), in units of tau.
    eigenvalue : float or array_like
        Eigenvalue :math:`\lambda \ge 0` of :math:`X X^\top` (:math:`\lambda = 0`: a frozen mode, error
        :math:`\sigma_{\bar w}^2 + \sigma_0^2` forever).
    teacher_std, noise_std, init_std : float
        Standard deviations :math:`\sigma_{\bar w}`, :math:`\sigma_\varepsilon`, :math:`\sigma_0` of the teacher's
        weights, the label noise and the initial weights, each in [0, 1e150].
    %(tau)s

    Returns
    -------
    float or ndarray
        Of the broadcast shape of t and eigenvalue.

    Raises
    ------
    ValueError
        For bad times, negative eigenvalues or standard deviations, tau <= 0, or t and eigenvalue that do
        not broadcast.

    Examples
    --------
    >>> expected_mode_error(0.0, 0.7)
    1.0
    >>> round(expected_mode_error(float("inf"), 0.5, noise_std=0.5), 12)
    0.5
    """
    signal, noise = _variances(teacher_std, noise_std, init_std)
    tau = require_positive("tau", tau)
    t_arr = require_times("t", t)
    lam = require_array_in_range("eigenvalue", eigenvalue, 0.0)
    t_b, lam_b = require_broadcast(t=t_arr, eigenvalue=lam)
    rate = np.where(lam_b > 0, rate_time(np.where(lam_b > 0, lam_b, 1.0), t_b, tau), 0.0)  # no 0·inf at λ = 0
    error = require_finite_result(_mode_error(rate, lam_b, signal, noise), "expected_mode_error",
                                  "the noise term σ_ε²(1 − e^(−λt/τ))²/λ leaves float64 for an eigenvalue this small at "
                                  "a finite λt/tau; increase tau or reduce noise_std")
    return scalar_or_array(error, t, eigenvalue)


@fill_doc
def per_mode_stopping_time(eigenvalue: ArrayLike, *, teacher_std: float = 1.0, noise_std: float = 0.5,
                           init_std: float = 0.0, tau: float = 1.0) -> Union[float, np.ndarray]:
    r"""Per-mode optimal stopping time :math:`t^*(\lambda) = (\tau/\lambda) \ln(1 + \lambda A/\sigma_\varepsilon^2)`,
    :math:`A = \sigma_{\bar w}^2 + \sigma_0^2` (derived in this project from Eq 2.3.13; Advani & Saxe 2017 discuss
    early stopping): the minimiser of :func:`dynamics.linear_networks.expected_mode_error` over :math:`t`.

    Parameters
    ----------
    eigenvalue : float or array_like
        :math:`\lambda \ge 0`; at :math:`\lambda = 0` the limit :math:`\tau A/\sigma_\varepsilon^2`.
    %(teacher_noise_init_std)s
    %(tau)s

    Returns
    -------
    float or ndarray
        :math:`t^*`, of the shape of eigenvalue; inf everywhere when noise_std = 0 (the error only decreases).

    Raises
    ------
    ValueError
        For negative eigenvalues or standard deviations, or tau <= 0.

    Examples
    --------
    >>> round(per_mode_stopping_time(0.0), 12)
    4.0
    >>> per_mode_stopping_time(1.0, noise_std=0.0)
    inf
    """
    signal, noise = _variances(teacher_std, noise_std, init_std)
    tau = require_positive("tau", tau)
    lam = require_array_in_range("eigenvalue", eigenvalue, 0.0)
    if noise == 0.0:
        return scalar_or_array(np.full(lam.shape, np.inf), eigenvalue)
    ratio = signal / noise
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(lam > 0, np.log1p(lam * ratio) / np.where(lam > 0, lam, 1.0), ratio) * tau
    return scalar_or_array(out, eigenvalue)


@fill_doc
def mode_bayes_error(eigenvalue: ArrayLike, *, teacher_std: float = 1.0, noise_std: float = 0.5,
                     init_std: float = 0.0) -> Union[float, np.ndarray]:
    r"""Per-mode minimum error :math:`A \sigma_\varepsilon^2 / (\sigma_\varepsilon^2 + \lambda A)`,
    :math:`A = \sigma_{\bar w}^2 + \sigma_0^2` (derived in this project): the error of stopping the mode at
    :math:`t^*(\lambda)`; with :math:`\sigma_0 = 0` the Bayes (optimal ridge) error of the mode.

    Parameters
    ----------
    eigenvalue : float or array_like
        :math:`\lambda \ge 0`.
    %(teacher_noise_init_std)s

    Returns
    -------
    float or ndarray
        Of the shape of eigenvalue (0 where :math:`A \sigma_\varepsilon^2 = 0`).

    Raises
    ------
    ValueError
        For negative eigenvalues or standard deviations.

    Examples
    --------
    >>> round(mode_bayes_error(0.0), 12), round(mode_bayes_error(0.75), 12)
    (1.0, 0.25)
    """
    signal, noise = _variances(teacher_std, noise_std, init_std)
    lam = require_array_in_range("eigenvalue", eigenvalue, 0.0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        denominator = noise + lam * signal
        out = np.where(denominator > 0, signal * noise / np.where(denominator > 0, denominator, 1.0), 0.0)
        # A σ_ε² or λA can overflow where A σ_ε²/(σ_ε² + λA) does not: there, the same as 1/(1/A + λ/σ_ε²)
        if not np.all(np.isfinite(out)):
            out = np.where(np.isfinite(out), out, 1.0 / (1.0 / signal + lam / noise))
    return scalar_or_array(out, eigenvalue)


@fill_doc
def asymptotic_errors(alpha: float, *, teacher_std: float = 1.0, noise_std: float = 0.5,
                      init_std: float = 0.0) -> AsymptoticErrors:
    r"""The :math:`t \to \infty` limits of :func:`dynamics.linear_networks.generalization_curve` (derived in this
    project):

    .. math::

        E_g(\infty) = \begin{cases}
            \sigma_\varepsilon^2 \, \alpha/(\alpha - 1) & \text{for } \alpha > 1, \\
            (1 - \alpha) A + \sigma_\varepsilon^2 \, \alpha/(1 - \alpha) + \sigma_\varepsilon^2 & \text{for } \alpha < 1
        \end{cases}

    (:math:`A = \sigma_{\bar w}^2 + \sigma_0^2`), inf at :math:`\alpha = 1` with noise;
    :math:`E_t(\infty)/P = \sigma_\varepsilon^2 \max(0, 1 - 1/\alpha)`.

    Parameters
    ----------
    %(alpha)s
    %(teacher_noise_init_std)s

    Returns
    -------
    AsymptoticErrors
        ``(generalization_error, training_error)``, training_error being :math:`E_t(\infty)/P`.

    Raises
    ------
    ValueError
        For alpha <= 0 or negative standard deviations.

    Examples
    --------
    >>> asymptotic_errors(2.0)
    AsymptoticErrors(generalization_error=0.5, training_error=0.125)
    >>> asymptotic_errors(1.0).generalization_error
    inf
    """
    alpha = require_alpha(alpha)
    signal, noise = _variances(teacher_std, noise_std, init_std)
    training = noise * max(0.0, 1.0 - 1.0 / alpha)
    if alpha > 1.0:
        generalization = noise * alpha / (alpha - 1.0)
    elif alpha < 1.0:
        generalization = (1.0 - alpha) * signal + noise * alpha / (1.0 - alpha) + noise
    else:
        generalization = math.inf if noise > 0 else 0.0
    if math.isinf(generalization) and alpha != 1.0:
        raise ValueError(f"asymptotic_errors is not finite in float64 for alpha = {alpha:g}: reduce teacher_std, "
                         f"noise_std or init_std, or move alpha away from 1")
    return AsymptoticErrors(float(generalization), float(training))


@fill_doc
def generalization_curve(t: ArrayLike, alpha: float, *, teacher_std: float = 1.0, noise_std: float = 0.5,
                         init_std: float = 0.0, tau: float = 1.0) -> GeneralizationCurve:
    r"""High-dimensional :math:`E_g(t)` and :math:`E_t(t)/P` of the Advani–Saxe student under gradient flow (2.3.5),
    from the Marchenko–Pastur law (2.3.30) (Advani & Saxe 2017; the integrals as derived in this project; the limit
    :math:`N, P \to \infty` at fixed :math:`\alpha = P/N`).

    :math:`E_g` (2.3.14) is the expected squared error on a fresh noisy label for
    :math:`x \sim \mathcal{N}(0, I/N)`, noise floor :math:`\sigma_\varepsilon^2` included, no factor 1/2;
    :math:`E_t = \lVert y - wX \rVert^2` (2.3.4) is returned per sample, :math:`E_t/P`. Both are averaged over
    teacher, label noise, initialisation and inputs.
    :math:`E_g(0) = E_t(0)/P = \sigma_{\bar w}^2 + \sigma_0^2 + \sigma_\varepsilon^2` for every :math:`\alpha`.

    Parameters
    ----------
    t : float or array_like
        Flow times :math:`t \ge 0` (+inf gives the exact asymptotes, :math:`E_g = \infty` at :math:`\alpha = 1`
        with noise), in units of tau (:math:`t = k\eta` for GD with learning rate :math:`\eta` on
        :math:`\frac{1}{2}\lVert y - wX \rVert^2`).
    alpha : float
        :math:`\alpha = P/N > 0`, in [1e-8, 1e8].
    teacher_std : float
        :math:`\sigma_{\bar w}`, standard deviation of the teacher's weights, in [0, 1e150].
    noise_std : float
        :math:`\sigma_\varepsilon`, standard deviation of the label noise, in [0, 1e150] (0.5 is the thesis's
        SNR 4 set-up).
    init_std : float
        :math:`\sigma_0`, standard deviation of the initial weights, in [0, 1e150].
    %(tau)s

    Returns
    -------
    GeneralizationCurve
        ``(generalization_error, training_error)`` of the shape of t (floats for scalar t);
        training_error is :math:`E_t/P`.

    Raises
    ------
    ValueError
        For alpha <= 0, negative standard deviations, tau <= 0, t < 0 or NaN, or errors that overflow float64.

    Examples
    --------
    >>> curve = generalization_curve(0.0, 0.5)
    >>> round(curve.generalization_error, 10), round(curve.training_error, 10)
    (1.25, 1.25)
    >>> generalization_curve(float("inf"), 2.0)
    GeneralizationCurve(generalization_error=0.5, training_error=0.125)
    >>> generalization_curve([1.0, 10.0], 2.0).generalization_error.shape
    (2,)
    """
    alpha = require_alpha(alpha)
    signal, noise = _variances(teacher_std, noise_std, init_std)
    tau = require_positive("tau", tau)
    t_arr = require_times("t", t)
    flat = t_arr.ravel()
    finite = np.isfinite(flat)
    lam, weights = mp_quadrature(alpha, order=_QUADRATURE_ORDER)
    rate = np.outer(flat[finite] / tau, lam)
    atom = mp_atom(alpha)
    eg = np.empty(flat.shape)
    et = np.empty(flat.shape)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported below
        eg[finite] = _mode_error(rate, lam, signal, noise) @ weights + atom * signal + noise
        et[finite] = ((np.exp(-2.0 * rate) * (lam * signal + noise)) @ weights / alpha
                      + noise * max(0.0, 1.0 - 1.0 / alpha))
    if not finite.all():
        eg[~finite], et[~finite] = asymptotic_errors(alpha, teacher_std=teacher_std, noise_std=noise_std, init_std=init_std)
    hint = "reduce teacher_std, noise_std or init_std (the errors scale with their squares)"
    # E_g(∞) = inf at α = 1 with noise is the documented limit; anything else non-finite is an overflow.
    require_finite_result(np.where(np.isposinf(eg) & ~finite & (alpha == 1.0), 0.0, eg), "generalization_curve",
                          hint)
    require_finite_result(et, "generalization_curve", hint)
    if np.ndim(t) == 0:
        return GeneralizationCurve(float(eg[0]), float(et[0]))
    return GeneralizationCurve(eg.reshape(t_arr.shape), et.reshape(t_arr.shape))


@fill_doc
def bayes_error(alpha: float, *, teacher_std: float = 1.0, noise_std: float = 0.5, init_std: float = 0.0) -> float:
    r""":math:`E_\mathrm{Bayes}` (derived in this project): the error of stopping every mode at its own
    :math:`t^*(\lambda)`; with :math:`\sigma_0 = 0` the Bayes (optimal ridge) error.

    .. math::

        E_\mathrm{Bayes} = \int \rho_\mathrm{bulk} \,
        \frac{A \sigma_\varepsilon^2}{\sigma_\varepsilon^2 + \lambda A} \, d\lambda
        + \mathbf{1}[\alpha < 1] \, (1 - \alpha) A + \sigma_\varepsilon^2

    Parameters
    ----------
    %(alpha)s
    %(teacher_noise_init_std)s

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For alpha <= 0 or negative standard deviations.

    Examples
    --------
    >>> bayes_error(2.0) < generalization_curve(optimal_stopping_time(2.0), 2.0).generalization_error
    True
    """
    alpha = require_alpha(alpha)
    signal, noise = _variances(teacher_std, noise_std, init_std)
    lam, weights = mp_quadrature(alpha, order=_QUADRATURE_ORDER)
    bulk = mode_bayes_error(lam, teacher_std=teacher_std, noise_std=noise_std, init_std=init_std) @ weights
    return float(require_finite_result(bulk + mp_atom(alpha) * signal + noise, "bayes_error",
                                       "reduce teacher_std, noise_std or init_std"))


def _error_slope(t, lam, weights, signal, noise):
    """dE_g/dt in units of τ: ∫ ρ 2 e^{−λt} [σ_ε² (1 − e^{−λt}) − λA e^{−λt}] dλ."""
    decay = np.exp(-lam * t)
    return float((2.0 * decay * (noise * -np.expm1(-lam * t) - lam * signal * decay)) @ weights)


@fill_doc
def optimal_stopping_time(alpha: float, *, teacher_std: float = 1.0, noise_std: float = 0.5, init_std: float = 0.0,
                          tau: float = 1.0) -> float:
    r""":math:`t_\mathrm{opt} = \operatorname{argmin}_{t \in [0, \infty]} E_g` from
    :func:`dynamics.linear_networks.generalization_curve` with the same parameters (Advani & Saxe 2017's early
    stopping; the bracket below is derived in this project).

    The root of :math:`dE_g/dt` inside :math:`[t^*(\lambda_+), t^*(\lambda_-)]`: every mode's expected error falls
    before its own :math:`t^*(\lambda)` and rises after, and :math:`t^*(\lambda)` decreases in :math:`\lambda`, so the
    slope is < 0 at the left end and > 0 at the right end. Depends on the standard deviations only through
    :math:`(\sigma_{\bar w}^2 + \sigma_0^2)/\sigma_\varepsilon^2` and is proportional to tau.

    Parameters
    ----------
    %(alpha)s
    %(teacher_noise_init_std)s
    %(tau)s

    Returns
    -------
    float
        :math:`t_\mathrm{opt}`; inf when :math:`E_g` never increases (noise_std = 0), 0 when it never decreases
        (teacher_std = init_std = 0 with noise).

    Raises
    ------
    ValueError
        Under the conditions of :func:`dynamics.linear_networks.generalization_curve`.

    Examples
    --------
    >>> t_opt = optimal_stopping_time(2.0)
    >>> bool(per_mode_stopping_time((1 + 2 ** 0.5) ** 2) <= t_opt <= per_mode_stopping_time((1 - 2 ** 0.5) ** 2))
    True
    >>> optimal_stopping_time(0.5, noise_std=0.0)
    inf
    """
    alpha = require_alpha(alpha)
    signal, noise = _variances(teacher_std, noise_std, init_std)
    tau = require_positive("tau", tau)
    if noise == 0.0:
        return math.inf
    if signal == 0.0:
        return 0.0
    low_edge, high_edge = mp_edges(alpha)
    # The slope depends on the variances only through A/σ_ε² (up to the factor σ_ε²), so it is evaluated at
    # (A/σ_ε², 1): no overflow or underflow for extreme variances.
    ratio = signal / noise
    if not math.isfinite(ratio):
        raise ValueError("optimal_stopping_time is not finite in float64: (teacher_std² + init_std²)/noise_std² "
                         "overflows; increase noise_std")
    star = lambda lam: math.log1p(lam * ratio) / lam if lam > 0 else ratio  # noqa: E731 (t*(λ) at τ = 1)
    left, right = star(high_edge), star(low_edge)
    lam, weights = mp_quadrature(alpha, order=_QUADRATURE_ORDER)
    args = (lam, weights, ratio, 1.0)
    f_left, f_right = _error_slope(left, *args), _error_slope(right, *args)
    if f_left >= 0.0 or f_right <= 0.0 or right - left <= 4 * np.finfo(float).eps * right:
        # The bracket is narrower than rounding can resolve (extreme A/σ_ε²): its ends agree with t_opt
        # to that width, and the slope's sign there is rounding noise.
        t_opt = left if f_left >= 0.0 else right if f_right <= 0.0 else 0.5 * (left + right)
    else:
        from scipy import optimize  # here, not at import: scipy.optimize takes 0.2-0.4 s to import

        t_opt = optimize.brentq(_error_slope, left, right, args=args, xtol=1e-14 * right,
                                rtol=4 * np.finfo(float).eps, maxiter=200)
    return float(t_opt * tau)


@fill_doc
def gd_discretization_error(steps: ArrayLike, alpha: float, learning_rate: float, *, teacher_std: float = 1.0,
                            noise_std: float = 0.5, init_std: float = 0.0) -> Union[float, np.ndarray]:
    r""":math:`E_g` of full-batch gradient descent after :math:`k` steps minus :math:`E_g` of the gradient flow at
    :math:`t = k\eta`, both in the high-dimensional limit (derived in this project): the bias of comparing GD
    students with :func:`dynamics.linear_networks.generalization_curve`.

    Per mode, GD replaces :math:`e^{-\lambda t/\tau}` by :math:`(1 - \eta\lambda)^k` in the expected error
    :math:`A d^2 + (\sigma_\varepsilon^2/\lambda)(1 - d)^2` of Eqs (2.3.13)–(2.3.14)
    (:math:`A = \sigma_{\bar w}^2 + \sigma_0^2`); the difference is averaged over the Marchenko–Pastur bulk (2.3.30).
    The frozen modes (atom at :math:`\lambda = 0`, :math:`\alpha < 1`) are the same under both and cancel.

    Parameters
    ----------
    steps : float or array_like
        Step counts :math:`k \ge 0` (finite; real values interpolate in :math:`k`).
    %(alpha)s
    learning_rate : float
        :math:`\eta > 0` on :math:`\frac{1}{2}\lVert y - wX \rVert^2`, with :math:`\eta \lambda_+ \le 1`
        (:math:`\lambda_+ = (1 + \sqrt{\alpha})^2`, the largest eigenvalue): every mode then decays without
        overshoot.
    %(teacher_noise_init_std)s

    Returns
    -------
    float or ndarray
        :math:`E_g(\mathrm{GD}, k) - E_g(\mathrm{flow}, k\eta)`, of the shape of ``steps`` (a float for scalar
        steps); 0 at :math:`k = 0`.

    Raises
    ------
    ValueError
        For negative or non-finite steps, alpha <= 0, learning_rate <= 0 or above :math:`1/\lambda_+`, or negative
        standard deviations.

    Examples
    --------
    >>> gd_discretization_error(0, 2.0, 0.05)
    0.0
    >>> gap = gd_discretization_error([10, 100, 1000], 2.0, 0.05)
    >>> bool(np.all(np.abs(gap) < 0.01))
    True
    """
    alpha = require_alpha(alpha)
    signal, noise = _variances(teacher_std, noise_std, init_std)
    eta = require_positive("learning_rate", learning_rate)
    k_arr = require_array_in_range("steps", steps, 0.0)
    high_edge = mp_edges(alpha)[1]
    if eta * high_edge > 1.0:
        raise ValueError(f"learning_rate must be <= 1/λ+ = {1.0 / high_edge:.6g} (λ+ = (1 + √alpha)², no mode "
                         f"overshoots), got {eta:g}")
    lam, weights = mp_quadrature(alpha, order=_QUADRATURE_ORDER)
    k = k_arr.reshape(-1, 1)

    def per_mode(log_decay):
        return signal * np.exp(2 * log_decay) + noise * np.expm1(log_decay) ** 2 / lam

    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported below
        gap = (per_mode(k * np.log1p(-eta * lam)) - per_mode(-eta * k * lam)) @ weights
    require_finite_result(gap, "gd_discretization_error", "reduce teacher_std, noise_std or init_std")
    return scalar_or_array(gap.reshape(k_arr.shape), steps)
