"""Case 1 (F = I) of the replica analysis, and the root a of Eq 4.2.13 / .2.35.

* :func:`~dynamics.double_descent.stable_root`: the larger root ``a = ½[1 + α + λ + sqrt((1 + α + λ)² − 4α)]`` of
  ``a² − (1 + α + λ)a + α = 0`` (the form the package uses in place of the printed one), with the discriminant
  factored as
  ``((1 − √α)² + λ)((1 + √α)² + λ)`` so that nothing cancels and nothing overflows; λ must be finite (a ``ValueError``
  naming ``weight_decay`` otherwise: the root a ≈ 1 + α + λ is then no number).
* :func:`~dynamics.double_descent.printed_root`: the source's form ``a = 1 + 2λ/(1 − α − λ + sqrt((1 − α − λ)² + 4λ))``
  (Eq 4.2.13), algebraically equal but cancelling catastrophically for α > 1 and small λ (kept for the erratum claim).
* :func:`~dynamics.double_descent.replica_saddle_point`: the zero-temperature replica-symmetric stationary point (App.
  .2.33–.2.35, with the general teacher power and weight decay derived in this project)
  ``R = αT/a``, ``Q = [α/(a² − α)]·[G − ((2 − a)/a)αT]``, ``x = 1/(a − 1)``, with G = T + σ_eff².
* :func:`~dynamics.double_descent.stieltjes_order_parameters`: the same quantities from random-matrix theory, via the
  Marchenko–Pastur Stieltjes transform ``g(λ) = Tr(ZᵀZ + λ)⁻¹/d`` solving ``λg² + (λ + α − 1)g − 1 = 0``:
  ``R = T(1 − λg)``, ``Q = T(1 − 2λg − λ²g′) + σ_eff²(g + λg′)`` (derived in this project: Case 1 is exactly
  random-matrix theory).

Why a noise *variance* here: the Case-1 problem's effective noise σ_eff² is a sum of powers, not the label
noise alone — in the bipartite theory it is the other group's unlearnt signal power plus σ_ε² (App. .2.37–.2.38,
e.g. 1 − p/d + σ_ε² at point A), as is the teacher power T = E[y*²]. Both are therefore passed as variances,
``teacher_power`` and ``noise_variance``; the label-noise standard deviation of the other functions is
``noise_std`` (σ_ε² = noise_std²).
"""
import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import require_array_in_range, require_finite_result
from ._checks import require_case1_inputs, require_finite_overlaps
from ._order_parameters import generalization_error_of
from ._results import SaddlePoint


def stable_root(alpha: ArrayLike, weight_decay: ArrayLike) -> np.ndarray:
    r"""Larger root of :math:`a^2 - (1 + \alpha + \lambda) a + \alpha = 0` (Eq 4.2.13 / .2.35, in a form stable where
    the printed one cancels). Elementwise.

    Parameters
    ----------
    alpha : float or array_like
        Sample ratio :math:`\alpha > 0` of the Case-1 problem (:math:`\alpha_i = n/p_i` for a group of the bipartite
        theory).
    weight_decay : float or array_like
        Its weight decay :math:`\lambda \ge 0` in the problem's own units (:math:`\tilde\lambda_i` for a group),
        finite.

    Returns
    -------
    ndarray
        :math:`a \ge \max(1, \alpha)`, of the broadcast shape; a ``ValueError`` naming ``weight_decay`` for
        :math:`\lambda` = inf or NaN, or where :math:`a` would overflow float64.

    Examples
    --------
    >>> round(float(stable_root(4.0, 0.0)), 12), round(float(stable_root(0.5, 0.0)), 12)
    (4.0, 1.0)
    >>> a = stable_root(2.0, 0.3)
    >>> round(float(a * a - (1 + 2.0 + 0.3) * a + 2.0), 12)
    0.0
    """
    alpha = require_array_in_range("alpha", alpha, 0.0, np.inf, low_open=True)
    weight_decay = require_array_in_range("weight_decay", weight_decay, 0.0)  # finite: inf would give a = inf
    a = _stable_root(alpha, weight_decay)
    if np.any(np.isinf(a)):
        raise ValueError("alpha and weight_decay: the root a ≈ 1 + alpha + weight_decay overflows float64; reduce them")
    return a


def _stable_root(alpha, lam):
    root_alpha = np.sqrt(alpha)
    with np.errstate(invalid="ignore", over="ignore"):
        # ½·disc = 2·sqrt(((1 − √α)/2)² + λ/4)·sqrt(((1 + √α)/2)² + λ/4) (exact scalings of the plain form), and
        # halves added, not the sum halved: a ≈ α + λ is a double up to 1.8e308 even where 1 + α + λ + disc is not
        half_disc = 2.0 * (np.sqrt((0.5 - 0.5 * root_alpha) ** 2 + 0.25 * lam)
                           * np.sqrt((0.5 + 0.5 * root_alpha) ** 2 + 0.25 * lam))
        return (0.5 + 0.5 * alpha + 0.5 * lam) + half_disc


def _root_offsets(alpha, lam):
    """a − 1 and a − √α of the larger root without cancellation (a → 1 or √α at the threshold α = 1, λ → 0):
    a − √α = ½[(1 − √α)² + λ + disc], and a − 1 = ½[α − 1 + λ + disc] or, when α − 1 + λ < 0, the equal
    2λ/(1 − α − λ + disc) (from (a − 1)(a' − 1) = −λ with the smaller root a')."""
    root_alpha = np.sqrt(alpha)
    disc = np.sqrt((1.0 - root_alpha) ** 2 + lam) * np.sqrt((1.0 + root_alpha) ** 2 + lam)
    shift = alpha - 1.0 + lam
    with np.errstate(divide="ignore", invalid="ignore"):
        minus_one = np.where(shift >= 0, 0.5 * (shift + disc), 2.0 * lam / np.where(shift < 0, disc - shift, 1.0))
    return minus_one, 0.5 * ((1.0 - root_alpha) ** 2 + lam + disc)


def printed_root(alpha: ArrayLike, weight_decay: ArrayLike) -> np.ndarray:
    r"""The source's printed form of the same root, Eq 4.2.13:

    .. math::

        1 + \frac{2\lambda}{1 - \alpha - \lambda + \sqrt{(1 - \alpha - \lambda)^2 + 4\lambda}}.

    Kept for the erratum claim ``double_descent.erratum_printed_root_cancels``: it cancels catastrophically for
    :math:`\alpha > 1` and small :math:`\lambda`; use :func:`~dynamics.double_descent.stable_root`.

    Parameters
    ----------
    alpha : float or array_like
        :math:`\alpha > 0`.
    weight_decay : float or array_like
        :math:`\lambda > 0` (at :math:`\lambda = 0` the printed form is 0/0).

    Returns
    -------
    ndarray
        The printed root, of the broadcast shape.

    Examples
    --------
    >>> round(float(printed_root(2.0, 0.3)), 12) == round(float(stable_root(2.0, 0.3)), 12)
    True
    """
    alpha = require_array_in_range("alpha", alpha, 0.0, np.inf, low_open=True)
    lam = require_array_in_range("weight_decay", weight_decay, 0.0, np.inf, low_open=True)
    with np.errstate(over="ignore", invalid="ignore"):  # the printed form overflows where (1 − α − λ)² does
        denominator = 1.0 - alpha - lam + np.sqrt((1.0 - alpha - lam) ** 2 + 4.0 * lam)
    if not np.all(np.isfinite(denominator)):
        raise ValueError("alpha and weight_decay: the printed root's (1 - alpha - weight_decay)**2 overflows float64 "
                         "(weight_decay or alpha above about 1e154); use stable_root")
    if np.any(denominator <= 0):
        bad = np.broadcast_to(lam, np.shape(denominator))[np.asarray(denominator) <= 0].flat[0]
        raise ValueError(f"the printed root cancels to 0 in its denominator at weight_decay={bad:g}: "
                         f"use stable_root")
    return 1.0 + 2.0 * lam / denominator


def replica_saddle_point(alpha: ArrayLike, weight_decay: ArrayLike, teacher_power: float = 1.0,
                         noise_variance: float = 0.0) -> SaddlePoint:
    r"""Stationary point of the zero-temperature replica free energy of Case 1 (App. .2.30–.2.35; the general teacher
    power :math:`T` and the weight-decay term are derived in this project).

    Parameters
    ----------
    alpha : float or array_like
        Sample ratio :math:`\alpha = n/d > 0`.
    weight_decay : float or array_like
        Weight decay :math:`\lambda \ge 0` of the sum-normalised loss (> 0 where :math:`\alpha \le 1`: there the
        susceptibility diverges).
    teacher_power : float
        Teacher power :math:`T = \mathbb{E}[{y^*}^2] > 0`.
    noise_variance : float
        Effective label-noise variance :math:`\sigma_\mathrm{eff}^2 \ge 0` (:math:`G = T + \sigma_\mathrm{eff}^2`); a
        variance because it is a sum of powers (see the module docstring).

    Returns
    -------
    SaddlePoint
        :math:`a`, susceptibility :math:`x = 1/(a - 1)`, :math:`R`, :math:`Q` and
        :math:`L_G = \frac{1}{2}(T - 2R + Q)`, of the broadcast shape.

    Examples
    --------
    >>> sp = replica_saddle_point(2.0, 0.0, 1.0, 0.5)   # ridgeless, alpha > 1: R = T, Q = T + σ²/(α − 1)
    >>> round(float(sp.R), 12), round(float(sp.Q), 12)
    (1.0, 1.5)
    """
    alpha, ridge, t_power, noise_var = require_case1_inputs(alpha, weight_decay, teacher_power, noise_variance)
    a = _stable_root(alpha, ridge)
    a_minus_one, a_minus_root = _root_offsets(alpha, ridge)
    R = alpha * t_power / a
    b = alpha / (a_minus_root * (a + np.sqrt(alpha)))
    # G − ((2 − a)/a)αT = σ² + T[(1 + α)(a − 1) + (1 − α)]/a: exact at the threshold α = 1, where a → 1
    Q = b * (noise_var + t_power * ((1.0 + alpha) * a_minus_one + (1.0 - alpha)) / a)
    susceptibility = 1.0 / a_minus_one
    require_finite_overlaps(R, Q, susceptibility)
    return SaddlePoint(a, susceptibility, R, Q, generalization_error_of(t_power, R, Q))


def mp_stieltjes(alpha: ArrayLike, weight_decay: ArrayLike) -> np.ndarray:
    r"""The Marchenko–Pastur Stieltjes transform :math:`g(\lambda) = \lim \operatorname{Tr}(Z^\top Z + \lambda)^{-1}/d`,
    :math:`Z` with iid :math:`\mathcal{N}(0, 1/d)` entries and :math:`n = \alpha d` rows: the positive root of
    :math:`\lambda g^2 + (\lambda + \alpha - 1) g - 1 = 0`, in the cancellation-free form.

    Parameters
    ----------
    alpha : float or array_like
        :math:`\alpha > 0`.
    weight_decay : float or array_like
        :math:`\lambda > 0`.

    Returns
    -------
    ndarray
        :math:`g(\lambda)`, of the broadcast shape.

    Examples
    --------
    >>> g = float(mp_stieltjes(2.0, 0.5))
    >>> round(0.5 * g * g + (0.5 + 2.0 - 1.0) * g - 1.0, 12)
    0.0
    """
    alpha = require_array_in_range("alpha", alpha, 0.0, np.inf, low_open=True)
    lam = require_array_in_range("weight_decay", weight_decay, 0.0, np.inf, low_open=True)
    g = _stieltjes(*np.broadcast_arrays(alpha, lam))
    return require_finite_result(g, "mp_stieltjes", "g(λ) -> (1 − α)/λ as λ -> 0 for α < 1 (the atom of ZᵀZ at 0), "
                                 "which overflows float64 here; increase weight_decay")


def _stieltjes(alpha, lam):
    # in halves (exact scalings): b/2 = (λ + α − 1)/2 and sqrt(b² + 4λ)/2 = hypot(b/2, √λ) cannot overflow
    half_b = 0.5 * lam + 0.5 * alpha - 0.5
    half_disc = np.hypot(half_b, np.sqrt(lam))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(half_b >= 0, 1.0 / (half_b + half_disc), (half_disc - half_b) / lam)


def stieltjes_order_parameters(alpha: ArrayLike, weight_decay: ArrayLike, teacher_power: float = 1.0,
                               noise_variance: float = 0.0) -> SaddlePoint:
    r""":math:`R`, :math:`Q` and the susceptibility :math:`x = g` of Case 1 from the Marchenko–Pastur Stieltjes
    transform (derived in this project): an independent route to :func:`~dynamics.double_descent.replica_saddle_point`.

    Parameters
    ----------
    alpha : float or array_like
        Sample ratio :math:`\alpha = n/d > 0`.
    weight_decay : float or array_like
        Weight decay :math:`\lambda \ge 0`; 0 (with :math:`\alpha > 1`) is the ridgeless limit :math:`R = T`,
        :math:`Q = T + \sigma^2/(\alpha - 1)`.
    teacher_power : float
        Teacher power :math:`T > 0`.
    noise_variance : float
        Effective label-noise variance :math:`\sigma_\mathrm{eff}^2 \ge 0`, as in
        :func:`~dynamics.double_descent.replica_saddle_point`.

    Returns
    -------
    SaddlePoint
        :math:`a = 1 + 1/g`, susceptibility :math:`g`, :math:`R`, :math:`Q` and
        :math:`L_G = \frac{1}{2}(T - 2R + Q)`.

    Examples
    --------
    >>> a, b = stieltjes_order_parameters(1.5, 0.2, 0.7, 0.3), replica_saddle_point(1.5, 0.2, 0.7, 0.3)
    >>> bool(np.isclose(a.Q, b.Q, rtol=1e-12)), bool(np.isclose(a.R, b.R, rtol=1e-12))
    (True, True)
    """
    alpha, ridge, t_power, noise_var = require_case1_inputs(alpha, weight_decay, teacher_power, noise_variance)
    positive = ridge > 0
    lam = np.where(positive, ridge, 1.0)
    g = _stieltjes(alpha, lam)
    # g' = −(g² + g)/(2λg + λ + α − 1), and by the quadratic 2λg + λ + α − 1 = λg + 1/g > 0: written through λg
    # and that positive denominator, nothing overflows (g ~ λ^{-1/2} at α = 1) and nothing cancels, also not
    # g + λg' = (1 − λg)/(λg + 1/g), a difference of two numbers of size g ~ (1 − α)/λ for α < 1
    lam_g = lam * g
    denominator = lam_g + 1.0 / g
    lam2_g_prime = -lam_g * (lam_g + lam) / denominator
    R = np.where(positive, t_power * (1.0 - lam_g), 0.0)
    Q = np.where(positive, t_power * (1.0 - 2.0 * lam_g - lam2_g_prime) + noise_var * (1.0 - lam_g) / denominator,
                 0.0)
    # λ = 0 occurs only with α > 1 (checked): the OLS limit
    with np.errstate(divide="ignore"):
        excess = np.where(positive, 1.0, alpha - 1.0)
        R0, Q0, g0 = t_power, t_power + noise_var / excess, 1.0 / excess
    R, Q, g = np.where(positive, R, R0), np.where(positive, Q, Q0), np.where(positive, g, g0)
    require_finite_overlaps(R, Q, g)
    return SaddlePoint(1.0 + 1.0 / g, g, R, Q, generalization_error_of(t_power, R, Q))
