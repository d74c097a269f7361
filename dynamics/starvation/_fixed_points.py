"""Fixed points of the dual dynamics of gradient starvation (Pezeshki et al. 2021, §3 and App. C; its equation
numbers, with those of Pezeshki (thesis) in brackets). λ is ``weight_decay`` (Eq 5), a is ``output_penalty`` (Eq 17).

* Eq 9 (6.3.9), exact dual: log((1-α_i)/α_i) = (Kα)_i with K = λ⁻¹US²Uᵀ, α ∈ (0,1)^n.
* Eq 10 (6.3.10), approximate dual: -log α_i = (Aα)_i with A = λ⁻¹U(S² + λI)Uᵀ, α ∈ (0,∞)^n.
* Eq 11 (6.3.11): z* = λ⁻¹S²Uᵀα*.
* Eqs 12-13 (6.3.12-13) and Eqs 47-53 (.5.29-.5.35): α* = W(c)/c, c = 1 + s²/λ (Lambert W, branch 0).
* Eq 14 (6.3.14), Lemma 1: α* ≈ (1 - log α_0)[A + diag(1/α_0)]⁻¹ (with the outer inverse that the thesis
  misprints, see the theory note), the
  linearisation around the uncoupled point α_0.
* Eq 15 (6.3.15): the two-feature coupling U(δ); Eqs 63-65 (.5.45-.5.47): first-order responses and
  dz_2*/ds_1² (Theorem 2).
* Eq 18 (6.3.18), Spectral Decoupling: a·m(1 + e^m) = 1, α_i* = a·m*, z_SD = m*Uᵀ1.

Both duals are solved by damped Newton on their strictly concave objectives (F_9 = ΣH(α) - ½αᵀKα,
F_10 = Σ(α - α log α) - ½αᵀAα), halving the step until the iterate is inside the domain and the
objective rises; so the Eq 9 iterates never leave (0,1)^n. The solver is the numerics core's
:func:`~dynamics.numerics.newton_maximise_kernel`; the objectives, gradients, curvatures and domains are the
``fixed_point_*`` kernels of ``dynamics.starvation._kernels``.
"""
import math
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (lambertw, require_array_in_range, require_bool, require_finite_result,
                               require_integer, require_in_range, require_orthogonal, require_positive)
from dynamics.numerics.newton import newton_functions
from . import _kernels
from ._checks import (require_delta, require_finite_ratio, require_invertible_penalty, require_problem,
                      require_strengths, require_strengths_any_shape, require_two_features)
from ._results import FixedPoint, SpectralDecouplingPoint
from ._docs import fill_doc

RESIDUAL_TOLERANCE = 1e-12
MAX_NEWTON = 200


@lru_cache(maxsize=None)
def _fixed_point_functions():
    """The compiled Newton problem of the Eq 9 / Eq 10 fixed point: the addresses of the ``fixed_point_*`` kernels,
    looked up once per process, as a plain tuple (numba types it faster than the NamedTuple, on every call)."""
    return tuple(newton_functions(_kernels.fixed_point_objective, _kernels.fixed_point_curvature,
                                  _kernels.fixed_point_inside, _kernels.fixed_point_floor))


def dual_matrix(U: ArrayLike, s: ArrayLike, weight_decay: float, exact: bool = True) -> np.ndarray:
    r"""The coupling matrix of the dual flow: :math:`K = \lambda^{-1} U S^2 U^\top` (Eq 9) or
    :math:`A = \lambda^{-1} U (S^2 + \lambda I) U^\top = K + I` (Eq 10).

    Parameters
    ----------
    U : array_like, shape (n, n)
        Orthogonal (:math:`\max \lvert U^\top U - I \rvert \le 10^{-10}`); column :math:`j` holds the weights of
        feature :math:`j` over the examples.
    s : array_like, shape (n,)
        Feature strengths (singular values of :math:`Y\Phi_0`, not squared), > 0.
    weight_decay : float
        :math:`\lambda > 0` of the L2 penalty :math:`(\lambda/2)\lVert\theta\rVert^2` (Eq 5); :math:`s^2/\lambda` must
        be finite in float64.
    exact : bool
        True for :math:`K` (Eq 9), False for :math:`A` (Eq 10).

    Returns
    -------
    ndarray, shape (n, n)
        The symmetric matrix :math:`K` or :math:`A`.

    Examples
    --------
    >>> dual_matrix(np.eye(2), [2.0, 1.0], 0.5, exact=False)
    array([[9., 0.],
           [0., 3.]])
    """
    U, s, weight_decay = require_problem(U, s, weight_decay)
    K = (U * (s * s)) @ U.T / weight_decay
    K = 0.5 * (K + K.T)
    return K if require_bool("exact", exact) else K + np.eye(U.shape[0])


def _solve(Q, exact, what):
    params = np.empty(Q.size + 1)
    params[0] = _kernels.CE_EXACT if exact else _kernels.CE_APPROX
    params[1:] = Q.ravel()
    alpha, residual, converged = _kernels.solve_fixed_point(params, _fixed_point_functions(), RESIDUAL_TOLERANCE,
                                                            MAX_NEWTON)
    if not converged:
        raise RuntimeError(f"{what}: damped Newton stopped at residual {residual:.3g} > {RESIDUAL_TOLERANCE:g} "
                           f"(max diagonal of the dual matrix, ~ s²/λ: {np.max(np.diag(Q)):.3g})")
    return alpha


@fill_doc
def dual_fixed_point(U: ArrayLike, s: ArrayLike, weight_decay: float, exact: bool = True) -> FixedPoint:
    r"""The fixed point :math:`\alpha^*` of the exact (Eq 9 / 6.3.9) or approximate (Eq 10 / 6.3.10) dual flow, and
    :math:`z^*` (Eq 11).

    Damped Newton in float64 until :math:`\max \lvert \text{residual of the log-form equation} \rvert \le 10^{-12}`,
    or, when :math:`s^2/\lambda` is so large (:math:`\sim 10^5`) that one ulp of :math:`\alpha` moves the residual by
    more than that, to the round-off floor :math:`4\varepsilon \cdot \max_i \sum_j \lvert Q_{ij} \rvert \alpha_j`. The
    Eq 10 root is not clipped: for strongly coupled :math:`U` it can leave :math:`(0,1)`.

    Parameters
    ----------
    U : array_like, shape (n, n)
        Orthogonal; column j holds the weights of feature j over the examples.
    %(strengths)s
    weight_decay : float
        :math:`\lambda > 0` of :math:`(\lambda/2)\lVert\theta\rVert^2` (Eq 5).
    exact : bool
        True: Eq 9, :math:`\log((1-\alpha)/\alpha) = K\alpha`, :math:`\alpha^* \in (0,1)^n`. False: Eq 10,
        :math:`-\log \alpha = A\alpha`, :math:`\alpha^* \in (0,\infty)^n`.

    Returns
    -------
    FixedPoint
        ``alpha`` (n,): :math:`\alpha^*`; ``z`` (n,): the feature responses
        :math:`z^* = \lambda^{-1} S^2 U^\top \alpha^*` (Eq 11).

    Raises
    ------
    RuntimeError
        If Newton does not reach the tolerance (not observed on any valid input).

    Examples
    --------
    >>> point = dual_fixed_point(coupling_matrix(0.5), [6.0, 2.0], 0.01)
    >>> point.z.round(5).tolist()
    [9.07102, 1.18534]
    >>> bool(np.all((point.alpha > 0) & (point.alpha < 1)))
    True
    """
    Q = dual_matrix(U, s, weight_decay, exact)
    alpha = _solve(Q, bool(exact), "dual_fixed_point")
    U, s = np.asarray(U, dtype=np.float64), np.asarray(s, dtype=np.float64)
    return FixedPoint(alpha, s * s * (U.T @ alpha) / weight_decay)


@fill_doc
def feature_response(U: ArrayLike, s: ArrayLike, weight_decay: float, exact: bool = True) -> np.ndarray:
    r"""The feature responses :math:`z^* = \lambda^{-1} S^2 U^\top \alpha^*` (Eq 11 / 6.3.11) at the Eq 9 (exact) or
    Eq 10 fixed point.

    With exact=True this is the response of the linearised model at the ridge-logistic optimum,
    :math:`z^* = S V^\top \theta^* = U^\top Y \hat y^*`; with exact=False it is the quantity the Lambert closed forms
    describe.

    Parameters
    ----------
    %(U)s
    %(strengths)s
    %(weight_decay)s
    %(exact)s

    Returns
    -------
    ndarray, shape (n,)
        :math:`z^*`, one entry per feature.

    Examples
    --------
    >>> feature_response(np.eye(2), [2.0, 1.0], 0.1, exact=False).round(6).tolist()
    [2.648624, 1.642275]
    """
    return dual_fixed_point(U, s, weight_decay, exact).z


@fill_doc
def lambert_fixed_point(s: ArrayLike, weight_decay: float) -> FixedPoint:
    r"""The uncoupled closed form of Eq 13 (6.3.13): :math:`\alpha = \lambda W(1 + s^2/\lambda)/(s^2 + \lambda)`,
    :math:`z = s^2 W(1 + s^2/\lambda)/(s^2 + \lambda)`.

    Equivalently

    .. math::

        \alpha = \frac{W(c)}{c}, \qquad z = \left(1 - \frac{1}{c}\right) W(c) \qquad \text{with} \quad
        c = 1 + \frac{s^2}{\lambda}

    (Lambert :math:`W`, branch 0). It is the Eq 10 fixed point for :math:`U = I` (and, relabelled, for any
    permutation :math:`U`).

    Parameters
    ----------
    %(strengths_any)s
    %(weight_decay_finite)s

    Returns
    -------
    FixedPoint
        ``alpha`` and ``z``, each with the shape of ``s``.

    Examples
    --------
    >>> point = lambert_fixed_point([2.0, 1.0, 0.5, 3.0], 0.1)
    >>> point.alpha.round(8).tolist()
    [0.06621559, 0.16422751, 0.32293981, 0.03640664]
    """
    s = require_strengths_any_shape(s)
    weight_decay = require_positive("weight_decay", weight_decay)
    ratio = require_finite_ratio(s, weight_decay)
    c = 1.0 + ratio
    w = lambertw(c)
    # z = (1 − 1/c) W = (s²/λ)W/c: the ratio, not 1 − 1/c, which loses ε λ/s² when s² ≪ λ
    return FixedPoint(w / c, ratio / c * w)


@fill_doc
def exact_uncoupled_response(s: ArrayLike, weight_decay: float) -> FixedPoint:
    r"""The exact (Eq 9) uncoupled fixed point, :math:`U = I`: :math:`z` solves :math:`z(1 + e^z) = s^2/\lambda` and
    :math:`\alpha = \sigma(-z) = \lambda z/s^2`.

    The Eq 9 counterpart of :func:`~dynamics.starvation.lambert_fixed_point` (derived in this project); the gap between
    the two measures the Eq 10 approximation.

    Parameters
    ----------
    %(strengths_any)s
    %(weight_decay_finite)s

    Returns
    -------
    FixedPoint
        ``alpha`` = :math:`\sigma(-z)` and ``z``, each with the shape of ``s``.

    Examples
    --------
    >>> point = exact_uncoupled_response([2.0], 0.1)
    >>> z = point.z[0]
    >>> bool(abs(z * (1 + np.exp(z)) - 40.0) < 1e-12), bool(abs(point.alpha[0] - 0.1 * z / 4.0) < 1e-15)
    (True, True)
    """
    s = require_strengths_any_shape(s)
    weight_decay = require_positive("weight_decay", weight_decay)
    ratio = require_finite_ratio(s, weight_decay)
    z = np.array([_kernels.margin_root(x) for x in ratio.ravel()]).reshape(s.shape)
    # α = σ(-z) = exp(-softplus(z)) rather than λz/s², which is 0/0 when s² underflows (z = 0, α = ½)
    return FixedPoint(np.exp(-np.logaddexp(0.0, z)), z)


def sd_margin(output_penalty: float) -> float:
    r"""The Spectral Decoupling margin :math:`m^* > 0` with :math:`a \cdot m(1 + e^m) = 1` (Eq 18 / 6.3.18), to
    relative 1e-15.

    Parameters
    ----------
    output_penalty : float
        :math:`a > 0` of the penalty :math:`(a/2)\lVert\hat y\rVert^2` (Eq 17); :math:`1/a` must be finite.

    Returns
    -------
    float
        :math:`m^*`, the common training margin :math:`y_i \hat y_i` at the SD optimum.

    Examples
    --------
    >>> round(sd_margin(0.002), 10), round(sd_margin(0.01), 10)
    (4.6651204124, 3.3592750454)
    """
    output_penalty = require_invertible_penalty(output_penalty, "output_penalty")
    return float(_kernels.margin_root(1.0 / output_penalty))


@fill_doc
def sd_fixed_point(U: ArrayLike, output_penalty: float) -> SpectralDecouplingPoint:
    r"""The exact Spectral Decoupling fixed point (Eq 18 / 6.3.18): :math:`z_{\mathrm{SD}} = m^* \cdot U^\top 1`, the
    same for any :math:`S`.

    Every dual variable is :math:`\alpha_i^* = a \cdot m^*` and every training margin is :math:`m^*`
    (:func:`~dynamics.starvation.sd_margin`).

    Parameters
    ----------
    %(U)s
    output_penalty : float
        :math:`a > 0` of :math:`(a/2)\lVert\hat y\rVert^2` (Eq 17).

    Returns
    -------
    SpectralDecouplingPoint
        ``z`` (n,): the responses; ``margin``: :math:`m^*`.

    Examples
    --------
    >>> point = sd_fixed_point(coupling_matrix(0.5), 0.002)
    >>> point.z.round(6).tolist(), round(point.margin, 6)
    ([6.372673, 1.707553], 4.66512)
    """
    U = require_orthogonal("U", U)
    margin = sd_margin(output_penalty)
    return SpectralDecouplingPoint(margin * U.sum(axis=0), margin)


def sd_lambert_approx(output_penalty: float) -> float:
    r"""The Eq-10-type approximation of the SD dual (derived in this project):
    :math:`\alpha_{\mathrm{SD}} \approx a W(1 + 1/a)/(1 + a)`.

    It is the fixed point of the approximate SD flow :math:`-\log \alpha = (1 + 1/a)\alpha` and approximates the exact
    :math:`\alpha_{\mathrm{SD}} = a \cdot m^*` (:func:`~dynamics.starvation.sd_margin`) with relative error
    :math:`< 10^{-5}` for :math:`a \le 0.002`.

    Parameters
    ----------
    output_penalty : float
        :math:`a > 0` of :math:`(a/2)\lVert\hat y\rVert^2` (Eq 17); :math:`1/a` must be finite.

    Returns
    -------
    float
        The approximate dual variable.

    Examples
    --------
    >>> bool(abs(sd_lambert_approx(0.002) / (0.002 * sd_margin(0.002)) - 1) < 1e-5)
    True
    """
    output_penalty = require_invertible_penalty(output_penalty, "output_penalty")
    c = 1.0 + 1.0 / output_penalty
    return float(lambertw(c) / c)


@fill_doc
def linearised_fixed_point(U: ArrayLike, s: ArrayLike, weight_decay: float, printed: bool = False) -> FixedPoint:
    r"""The Eq 10 fixed point linearised around the uncoupled point, Lemma 1 (Eq 14 / 6.3.14).

    .. math::

        \alpha^* \approx (1 - \log \alpha_0) [A + \operatorname{diag}(\alpha_0^{-1})]^{-1}

    with :math:`\alpha_{0i} = W(A_{ii})/A_{ii}`; its error is :math:`O(\delta^2)` in the coupling. :math:`\alpha_0` is
    evaluated at the actual diagonal of :math:`A`, as in the proof of Theorem 2. ``printed=True`` evaluates the form
    printed in Pezeshki (thesis), Eq 6.3.14, without the outer inverse, only to show that it is wrong.

    Parameters
    ----------
    %(U)s
    %(strengths)s
    %(weight_decay)s
    printed : bool
        Evaluate the printed (wrong) form instead.

    Returns
    -------
    FixedPoint
        ``alpha``: the approximate Eq 10 fixed point; ``z`` = :math:`\lambda^{-1} S^2 U^\top \alpha`.

    Examples
    --------
    >>> U, s = coupling_matrix(0.01), np.array([3.0, 2.0])
    >>> approx, exact = linearised_fixed_point(U, s, 0.1), dual_fixed_point(U, s, 0.1, exact=False)
    >>> bool(np.max(np.abs(approx.alpha / exact.alpha - 1)) < 1e-4)
    True
    """
    A = dual_matrix(U, s, weight_decay, exact=False)
    diagonal = np.diag(A)
    alpha0 = lambertw(diagonal) / diagonal
    rhs = 1.0 - np.log(alpha0)
    M = A + np.diag(1.0 / alpha0)
    # A symmetric: the row vector times M⁻¹ is M⁻¹ times the column
    alpha = rhs @ M if require_bool("printed", printed) else np.linalg.solve(M, rhs)
    U, s = np.asarray(U, dtype=np.float64), np.asarray(s, dtype=np.float64)
    return FixedPoint(alpha, s * s * (U.T @ alpha) / weight_decay)


def coupling_matrix(delta: float) -> np.ndarray:
    r"""The two-feature coupling of Eq 15 (6.3.15):
    :math:`U = \begin{pmatrix} \sqrt{1-\delta^2} & -\delta \\ \delta & \sqrt{1-\delta^2} \end{pmatrix}`.

    Parameters
    ----------
    delta : float
        :math:`\delta \in (-1, 1)`; negative :math:`\delta` is allowed (it reverses Theorem 2's sign).

    Returns
    -------
    ndarray, shape (2, 2)
        An orthogonal matrix.

    Examples
    --------
    >>> coupling_matrix(0.6)
    array([[ 0.8, -0.6],
           [ 0.6,  0.8]])
    """
    delta = require_delta(delta)
    c = math.sqrt((1.0 - delta) * (1.0 + delta))
    return np.array([[c, -delta], [delta, c]])


def _decoupled_terms(sq, lam):
    """(W_i, e^{W_i}, D_i = λ + λe^{W_i} + s_i²) with W_i = W(1 + s_i²/λ), the decoupled (δ = 0) solution's terms."""
    w = lambertw(1.0 + sq / lam)
    e = np.exp(w)
    return w, e, lam + lam * e + sq


@fill_doc
def first_order_response(s: ArrayLike, weight_decay: float, delta: float) -> np.ndarray:
    r"""The responses to first order in :math:`\delta` for the Eq 15 coupling (Eqs 63-64 / .5.45-.5.46).

    .. math::

        z_1 &\approx \frac{s_1^2 W_1}{\lambda + s_1^2}
            + \delta \frac{s_1^2 (1 + W_2)(\lambda + \lambda e^{W_1} + s_2^2)}{D_1 D_2}, \\
        z_2 &\approx \frac{s_2^2 W_2}{\lambda + s_2^2}
            - \delta \frac{s_2^2 (1 + W_1)(\lambda + \lambda e^{W_2} + s_1^2)}{D_1 D_2},

    with :math:`W_i = W(1 + s_i^2/\lambda)` and :math:`D_i = \lambda + \lambda e^{W_i} + s_i^2`. The error against the
    Eq 10 fixed point is :math:`O(\delta^2)`.

    Parameters
    ----------
    %(strength_pair)s
    %(weight_decay)s
    %(delta)s

    Returns
    -------
    ndarray, shape (2,)
        :math:`(z_1, z_2)`.

    Examples
    --------
    >>> first_order_response([3.0, 2.0], 0.1, 1e-3).round(8).tolist()
    [3.28004169, 2.64586958]
    """
    sq, lam, delta = require_two_features(s, weight_decay, delta)
    w, e, d = _decoupled_terms(sq, lam)
    cross = d[0] * d[1]
    z1 = sq[0] * w[0] / (lam + sq[0]) + delta * sq[0] * (1.0 + w[1]) * (lam + lam * e[0] + sq[1]) / cross
    z2 = sq[1] * w[1] / (lam + sq[1]) - delta * sq[1] * (1.0 + w[0]) * (lam + lam * e[1] + sq[0]) / cross
    return require_finite_result(np.array([z1, z2]), "first_order_response",
                                 "s and weight_decay: s² so large that the products D_1·D_2 overflow")


@fill_doc
def weak_response_derivative(s: ArrayLike, weight_decay: float, delta: float) -> float:
    r""":math:`dz_2^*/ds_1^2`, the derivative of the weak feature's response in the strong one's strength: Theorem 2's
    derivative (Eq 65 / .5.47), first order in :math:`\delta` for the Eq 15 coupling.

    .. math::

        \frac{dz_2^*}{ds_1^2} = -\frac{\delta \lambda s_2^2 (1 + W_1)(e^{W_1} - e^{W_2})}
            {(\lambda + \lambda e^{W_1} + s_1^2)^2 (\lambda + \lambda e^{W_2} + s_2^2)} + O(\delta^2):

    negative iff :math:`\delta(s_1^2 - s_2^2) > 0` (Theorem 2, with its :math:`\delta > 0` assumption made explicit;
    see the theory note).

    Parameters
    ----------
    %(strength_pair)s
    %(weight_decay)s
    %(delta)s

    Returns
    -------
    float
        The derivative of the weak feature's response with respect to :math:`s_1^2`.

    Examples
    --------
    >>> f"{weak_response_derivative([3.0, 2.0], 0.1, 1e-3):.4e}"
    '-2.7094e-05'
    """
    sq, lam, delta = require_two_features(s, weight_decay, delta)
    w, e, d = _decoupled_terms(sq, lam)
    with np.errstate(over="ignore", invalid="ignore"):
        value = -delta * lam * sq[1] * (1.0 + w[0]) * (e[0] - e[1]) / (d[0] ** 2 * d[1])
    return float(require_finite_result(value, "weak_response_derivative",
                                       "s and weight_decay: s² so large that (λ + λe^{W_1} + s_1²)²(λ + λe^{W_2} + "
                                       "s_2²) overflows"))


@fill_doc
def response_derivative(U: ArrayLike, s: ArrayLike, weight_decay: float, feature: int, exact: bool = True,
                        relative_step: float = 1e-4) -> np.ndarray:
    r""":math:`\partial z^*/\partial s_i^2`, the derivative of every feature's response (Eq 11) in one feature's squared
    strength, by a central difference of the fixed point (Eq 9 or Eq 10): Theorem 2's quantity for any :math:`U`.

    :math:`s_i^2` moves by :math:`\pm` ``relative_step`` :math:`\cdot\, s_i^2`; the error is the difference's
    truncation (relative :math:`\sim \mathrm{step}^2`) plus the round-off of the two fixed points
    (:math:`\sim 10^{-12}/\mathrm{step}`, both solved to residual 1e-12).

    Parameters
    ----------
    %(U)s
    %(strengths)s
    %(weight_decay)s
    feature : int
        :math:`i`, the feature whose strength moves, in :math:`[0, n)`.
    %(exact)s
    relative_step : float
        The relative step in :math:`s_i^2`, in :math:`(0, 0.5]`.

    Returns
    -------
    ndarray, shape (n,)
        :math:`\partial z_j^*/\partial s_i^2` for every feature :math:`j`.

    Examples
    --------
    >>> U, s = coupling_matrix(1e-3), np.array([3.0, 2.0])
    >>> numeric = response_derivative(U, s, 0.1, 0, exact=False, relative_step=1e-3)[1]
    >>> bool(abs(numeric / weak_response_derivative(s, 0.1, 1e-3) - 1) < 3e-3)
    True
    """
    U, s, weight_decay = require_problem(U, s, weight_decay)
    feature = require_integer("feature", feature, 0, s.size - 1)
    relative_step = require_in_range("relative_step", relative_step, 0.0, 0.5, low_open=True)
    sq = s ** 2
    up, down = sq.copy(), sq.copy()
    step = relative_step * sq[feature]
    up[feature] += step
    down[feature] -= step
    difference = (feature_response(U, np.sqrt(up), weight_decay, exact)
                  - feature_response(U, np.sqrt(down), weight_decay, exact)) / (2 * step)
    return require_finite_result(difference, "response_derivative",
                                 "s: s_i² so small that its step underflows (relative_step·s_i² = 0)")


#: Grids with fewer cells run on one thread: a cell takes about 10 µs, and starting the worker threads and
#: waiting for the slowest costs from microseconds on an idle machine to tens of milliseconds on a busy one.
PARALLEL_MAP_CELLS = 1024


@fill_doc
def starvation_map(s1: ArrayLike, delta: ArrayLike, s2: float = 2.0, weight_decay: float = 0.01,
                   exact: bool = True) -> np.ndarray:
    r"""The responses :math:`z^*` of the two-feature model with the Eq 15 coupling over an :math:`(s_1, \delta)` grid
    (Theorem 2).

    A numba sweep (``prange`` from 1024 cells on) of the Eq 9 (exact) or Eq 10 fixed point (the same damped Newton as
    :func:`~dynamics.starvation.dual_fixed_point`) followed by Eq 11; z[..., 1] is the starvation picture of the weak
    feature.

    Parameters
    ----------
    s1 : array_like, shape (k,)
        Strengths of feature 1, > 0.
    delta : array_like, shape (r,)
        Couplings :math:`\delta \in (-1, 1)`.
    %(s2)s
    %(weight_decay)s
    %(exact)s

    Returns
    -------
    ndarray, shape (r, k, 2)
        :math:`z^*[i, j] = (z_1^*, z_2^*)` at :math:`\delta` = ``delta[i]``, :math:`s_1` = ``s1[j]``.

    Examples
    --------
    >>> z = starvation_map([2.0, 6.0], [0.5])
    >>> z[0, :, 1].round(5).tolist()
    [1.63997, 1.18534]
    """
    s1 = require_strengths(s1, name="s1")
    delta = require_array_in_range("delta", delta, -1.0, 1.0, low_open=True, high_open=True, ndim=1)
    s2 = require_strengths([s2], name="s2")[0]
    weight_decay = require_positive("weight_decay", weight_decay)
    require_finite_ratio(s1, weight_decay, "s1")
    require_finite_ratio(s2, weight_decay, "s2")
    z, status = np.empty((delta.size, s1.size, 2)), np.zeros((delta.size, s1.size), dtype=np.int64)
    kernel = _kernels.map_parallel if delta.size * s1.size >= PARALLEL_MAP_CELLS else _kernels.map_serial
    kernel(s1, delta, s2, weight_decay, require_bool("exact", exact), _fixed_point_functions(), RESIDUAL_TOLERANCE,
           MAX_NEWTON, z, status)
    if status.any():
        i, j = np.argwhere(status)[0]
        raise RuntimeError(f"starvation_map: Newton did not converge at s1={s1[j]:g}, delta={delta[i]:g}")
    return z
