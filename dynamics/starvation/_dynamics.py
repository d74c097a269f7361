"""Dual and primal dynamics of the linearised (NTRF) model (Pezeshki et al. 2021, §3 and App. C.3-C.5, C.11).

λ is ``weight_decay`` (the L2 coefficient of Eq 5), a is ``output_penalty`` (Spectral Decoupling's
(a/2)‖ŷ‖², Eq 17); the functions that describe either loss take exactly one of the two as a keyword.

* Eq 9 (6.3.9):   α̇ = log((1-α)/α) - Kα,               K = λ⁻¹US²Uᵀ   (exact dual flow)
* Eq 10 (6.3.10): α̇ = -log α - Aα,                      A = K + I       (approximate dual flow)
* Eq 18 (6.3.18): α̇ = log((1-α)/α) - α/a                                 (Spectral Decoupling)
  and its Eq-10-type approximation α̇ = -log α - (1 + 1/a)α (fixed point aW(1+1/a)/(1+a)).
* Theorem 1 (Eqs 36-38 / .5.18-.5.20): J_9 = -(diag(1/(α(1-α))) + K), J_10 = -(diag(1/α) + A).
* z along a dual trajectory: z = λ⁻¹S²Uᵀα (Eq 11 map, CE) or z = a⁻¹Uᵀα (SD: the critical θ of Eq 17's
  bound gives Yŷ = α/a).
* Primal gradient descent of Eq 5 (or Eq 17) written in feature coordinates z = SVᵀθ,
  z ← z - η(λz - S²Uᵀσ(-Uz)) (CE) and z ← z + ηS²(Uᵀσ(-Uz) - az) (SD); V drops out.
* The primal itself, Eq 5 (ridge logistic) and Eq 17 (SD), in θ: gradient descent and Newton's optimum.

Time conventions: the dual flows run in dual-flow time ``t`` with η = 1 (the vector field is the
gradient of the dual objective); gradient descent is indexed by its step count ``steps``. The dual flows
are integrated by the numerics core's ``solve_ode``: ``method="auto"`` (DOP853, then rosenbrock23 where the
flow turns stiff) by default. The vector field, its Jacobian and the gradient-descent loops are the numba
kernels of ``dynamics.starvation._kernels``.
"""
import math
from typing import Optional, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (IntegrationError, OdeOptions, as_finite_array,
                               one_blas_thread_when_small, require_choice, require_finite_result, require_in_range,
                               require_integer, require_of_type, require_output_times, require_positive,
                               require_shape, sigmoid, solve_ode)
from ._checks import (require_dual_point, require_flow, require_learning_rate, require_one_penalty,
                      require_primal_data, require_problem, require_strengths)
from ._fixed_points import dual_matrix
from ._kernels import (CE_APPROX, CE_EXACT, SD_APPROX, SD_EXACT, dual_ascent_steps, dual_jacobian, dual_rhs,
                       primal_z_steps)
from ._results import DualGDTrajectory, DualTrajectory, Features, ParameterTrajectory, PrimalTrajectory
from ._docs import fill_doc

INTEGRATORS = ("auto", "dop853", "rosenbrock23")
AUTO_EXPLICIT_STEPS = 5_000  # method="auto": DOP853 step attempts before the switch to rosenbrock23 (measured:
# a stiffness-limited DOP853 run that needs more costs more than the Rosenbrock run it falls back to)
ROSENBROCK_MAX_STEPS = 200_000  # successful stiff runs take ~1e4 steps: fail fast otherwise
DOP853_MAX_STEPS = 2_000_000  # method="dop853": the explicit pair alone, however stiff
ALPHA_FLOOR = 1e-300  # below: the exact α_i ~ e^{-(Kα)_i} can underflow (e.g. e^{-2400}) in a transient
ALPHA_CEILING = 1.0 - 2.0 ** -53  # the largest double below 1

DUAL_ODE_OPTIONS = OdeOptions(method="auto", rtol=1e-10, atol=1e-12)
"""The integrator settings :func:`~dynamics.starvation.integrate_dual` uses by default: ``solve_ode``'s "auto"
(DOP853, then rosenbrock23 where the flow turns stiff) at rtol = 1e-10, atol = 1e-12. ``integrate_dual`` reads
``method``, ``rtol`` and ``atol``; the step budgets, the Jacobian, the bounds on α and the stiffness switch are its
own (``AUTO_EXPLICIT_STEPS``, ``ROSENBROCK_MAX_STEPS``, ``DOP853_MAX_STEPS``, ``ALPHA_FLOOR``, ``ALPHA_CEILING``), so
the other fields keep :class:`~dynamics.numerics.OdeOptions`' defaults."""



def _dual_integrator(options):
    """The method, rtol and atol of ``options`` (an OdeOptions whose other fields keep their defaults), checked."""
    options = require_of_type("options", options, OdeOptions, made_by="dynamics.numerics.OdeOptions")
    method, rtol, atol = options.tolerances("integrate_dual")
    method = require_choice("method", method, INTEGRATORS)
    rtol = require_in_range("rtol", rtol, 1e-14, 1e-3)
    atol = require_in_range("atol", atol, 1e-300, 1e-3)
    return method, rtol, atol


def _params(U, s, penalty, sd, exact):
    if sd:
        return np.array([SD_EXACT if exact else SD_APPROX, 1.0 / penalty])
    Q = dual_matrix(U, s, penalty, exact)
    return np.concatenate([[CE_EXACT if exact else CE_APPROX], Q.ravel()])


@fill_doc
def dual_params(U: ArrayLike, s: ArrayLike, *, weight_decay: Optional[float] = None,
                output_penalty: Optional[float] = None, exact: bool = True) -> np.ndarray:
    r"""Parameters of :func:`~dynamics.starvation.dual_rhs`: Eq 9/10 (``weight_decay``) or Eq 18 (``output_penalty``).

    Parameters
    ----------
    %(U)s
    s : array_like, shape (n,)
        Feature strengths, > 0 (validated but unused by the SD flows).
    weight_decay, output_penalty : float
        Exactly one, > 0: :math:`\lambda` of :math:`(\lambda/2)\lVert\theta\rVert^2` (Eqs 9, 10) or :math:`a` of
        :math:`(a/2)\lVert\hat y\rVert^2` (Eq 18 and its approximation).
    exact : bool
        The exact flow (Eq 9 or 18) or its Eq-10-type approximation.

    Returns
    -------
    ndarray
        [mode, K.ravel()] or [mode, A.ravel()] (cross-entropy), [mode, 1/a] (SD).

    Examples
    --------
    >>> dual_params(np.eye(1), [1.0], output_penalty=0.5)
    array([2., 2.])
    """
    U, s, penalty, sd, exact = require_flow(U, s, weight_decay, output_penalty, exact)
    return _params(U, s, penalty, sd, exact)


@fill_doc
def integrate_dual(U: ArrayLike, s: ArrayLike, t: ArrayLike, *, weight_decay: Optional[float] = None,
                   output_penalty: Optional[float] = None, alpha0: Optional[ArrayLike] = None, exact: bool = True,
                   options: OdeOptions = DUAL_ODE_OPTIONS) -> DualTrajectory:
    r"""The dual gradient flow of Eq 9, Eq 10, Eq 18 or the approximate SD flow, sampled at dual-flow times ``t``.

    Time is dual-flow time with :math:`\eta = 1`: the vector field is the gradient of the dual objective, e.g.

    .. math::

        \dot\alpha = \log((1-\alpha)/\alpha) - \lambda^{-1} U S^2 U^\top \alpha

    for Eq 9 (see the module docstring for the others). The flows are gradient flows of strongly concave functions:
    Eqs 9 and 18 contract at rate :math:`\ge 4`, Eq 10 at rate :math:`\ge 1`.

    Parameters
    ----------
    %(U)s
    s : array_like, shape (n,)
        Feature strengths, > 0 (validated but unused by the SD flows).
    t : array_like, shape (m,)
        Output times, finite, >= 0, non-decreasing; rows at :math:`t = 0` are ``alpha0``.
    weight_decay, output_penalty : float
        Exactly one, > 0: :math:`\lambda` of :math:`(\lambda/2)\lVert\theta\rVert^2` (cross-entropy, Eqs 9 and 10) or
        :math:`a` of :math:`(a/2)\lVert\hat y\rVert^2` (Spectral Decoupling, Eq 18 and its approximation). ValueError
        if both or neither are given.
    alpha0 : array_like, shape (n,), optional
        Start, in :math:`(0, 1)` (exact flows) or :math:`(0, \infty)` (Eq 10); default :math:`\tfrac{1}{2} \cdot 1`,
        i.e. :math:`\theta = 0`.
    exact : bool
        The exact flow (Eq 9 or 18) or its Eq-10-type approximation.
    options : OdeOptions
        The integrator (:class:`dynamics.numerics.OdeOptions`; default :data:`~dynamics.starvation.DUAL_ODE_OPTIONS`,
        "auto" at rtol = 1e-10, atol = 1e-12), of which ``integrate_dual`` reads three fields (the others keep their
        defaults: a ``ValueError`` names one that does not).

        * ``method`` in {"auto", "dop853", "rosenbrock23"}: the numerics core's explicit DOP853 pair, its L-stable
          Rosenbrock 2(3) (with the analytic Jacobian and :math:`\alpha` held inside :math:`[10^{-300}, 1 - 2^{-53}]`
          (exact) or :math:`[10^{-300}, \infty)` (Eq 10)), or "auto" (the core's ``solve_ode`` "auto"): DOP853, and
          where it has not finished within 5 000 step attempts, Rosenbrock from the last output time DOP853 reached.
          The flow is stiff where some :math:`\alpha_i` is tiny (the barrier's curvature :math:`1/\alpha_i`), e.g.
          when :math:`\alpha_i` dips to :math:`\sim e^{-(K\alpha)_i}` after :math:`\alpha_0 = \tfrac{1}{2}` with
          :math:`s^2/\lambda` large. If a cycle of steps at the 1e-300 bound stops Rosenbrock, it runs again from the
          start with the domain as bounds (a step that overshoots the barrier is rejected), then with 10x tighter
          tolerances.
        * ``rtol`` in [1e-14, 1e-3] and ``atol`` in [1e-300, 1e-3]: the tolerances.

    Returns
    -------
    DualTrajectory
        ``t`` (m,); ``alpha`` (m, n); ``z`` (m, n) = :math:`\lambda^{-1} S^2 U^\top \alpha` (cross-entropy) or
        :math:`a^{-1} U^\top \alpha` (SD).

    Raises
    ------
    IntegrationError
        If the integrator does not reach the last time.

    Examples
    --------
    >>> from dynamics.starvation import coupling_matrix, dual_fixed_point, sd_margin
    >>> U, s = coupling_matrix(0.5), np.array([3.0, 2.0])
    >>> flow = integrate_dual(U, s, [0.0, 40.0], weight_decay=0.1)
    >>> bool(np.allclose(flow.alpha[-1], dual_fixed_point(U, s, 0.1).alpha, atol=1e-9))
    True
    >>> sd = integrate_dual(U, s, [0.0, 12.0], output_penalty=0.1)
    >>> bool(abs(sd.alpha[-1, 0] - 0.1 * sd_margin(0.1)) < 1e-9)
    True

    The same flow by Rosenbrock alone, at looser tolerances:

    >>> stiff = integrate_dual(U, s, [0.0, 40.0], weight_decay=0.1,
    ...                        options=DUAL_ODE_OPTIONS._replace(method="rosenbrock23", rtol=1e-8, atol=1e-10))
    >>> bool(np.allclose(stiff.alpha[-1], flow.alpha[-1], atol=1e-6))
    True
    """
    U, s, penalty, sd, exact = require_flow(U, s, weight_decay, output_penalty, exact)
    t = require_output_times("t", t)
    n = U.shape[0]
    alpha0 = np.full(n, 0.5) if alpha0 is None else require_dual_point(alpha0, n, exact)
    method, rtol, atol = _dual_integrator(options)
    params = _params(U, s, penalty, sd, exact)
    alpha = np.tile(alpha0, (t.size, 1))
    if t[-1] > 0.0:
        alpha = _integrate(params, alpha0, t, exact, rtol, atol, method)
    z = (alpha @ U) / penalty if sd else (alpha @ U) * (s * s) / penalty
    return DualTrajectory(t, alpha, z)


def _integrate(params, alpha0, t, exact, rtol, atol, method):
    """α at the times ``t`` (t[-1] > 0) along the flow of ``params`` from ``alpha0``, by ``method``."""
    if method == "dop853":
        sol = solve_ode(dual_rhs, (0.0, t[-1]), alpha0, t_eval=t, params=params,
                        options=OdeOptions(method="dop853", rtol=rtol, atol=atol, max_steps=DOP853_MAX_STEPS))
        if not sol.success:
            raise IntegrationError(f"integrate_dual: {sol.message} (reached t = {sol.t[-1] if sol.t.size else 0:g})")
        return sol.y
    # α is held inside [1e-300, 1 - 2^-53] (Eqs 9, 18) or [1e-300, inf) (Eq 10): the exact dip α_i ~ e^{-(Kα)_i} can
    # leave float64, and holding α there changes it by at most 1e-300 (or 1.1e-16), z by round-off. In a deep dip the
    # linearly implicit step can overshoot to that bound, where the barrier kicks it back, and lock into a cycle of
    # accepted steps (about 1 flow in 150 on random problems); the run is then repeated with the domain itself as
    # bounds, on which the field is NaN, so that a step overshooting the barrier is rejected (as MATLAB's NonNegative
    # option does; it fails when the dip leaves float64), and last with 10x tighter tolerances.
    domain = (0.0, 1.0 if exact else np.inf)
    held = (ALPHA_FLOOR, ALPHA_CEILING if exact else np.inf)
    runs = ((held, rtol, atol), (domain, rtol, atol), (held, rtol / 10, atol / 10))
    if method == "auto":
        # DOP853 for at most AUTO_EXPLICIT_STEPS attempts; where the flow turns stiff (a tiny α_i: the barrier's
        # curvature 1/α_i), rosenbrock23 continues from the last output DOP853 reached, with α held as above.
        auto = OdeOptions(method="auto", rtol=rtol, atol=atol, max_steps=ROSENBROCK_MAX_STEPS, jac=dual_jacobian,
                          bounds=held, autonomous=True, stiff_after=AUTO_EXPLICIT_STEPS)
        sol = solve_ode(dual_rhs, (0.0, t[-1]), alpha0, t_eval=t, params=params, options=auto)
        if sol.success:
            alpha = sol.y
            alpha[t == 0.0] = alpha0
            return alpha
        runs = runs[1:]  # the first Rosenbrock run has failed: the retries, from the start
    for (lower, upper), rtol_run, atol_run in runs:
        stiff = OdeOptions(method="rosenbrock23", rtol=rtol_run, atol=atol_run, max_steps=ROSENBROCK_MAX_STEPS,
                           jac=dual_jacobian, bounds=(lower, upper), autonomous=True)
        sol = solve_ode(dual_rhs, (0.0, t[-1]), np.clip(alpha0, lower, upper), t_eval=t, params=params, options=stiff)
        if sol.success:
            alpha = sol.y
            alpha[t == 0.0] = alpha0
            return alpha
    reached = sol.t[-1] if sol.t.size else 0.0
    raise IntegrationError(f"integrate_dual: rosenbrock23 stopped at t = {reached:g} ({sol.message}), with α held in "
                           f"[1e-300, 1 - 2^-53], with the domain as bounds, and with 10x tighter tolerances")


@fill_doc
def jacobian(U: ArrayLike, s: ArrayLike, alpha: ArrayLike, *, weight_decay: Optional[float] = None,
             output_penalty: Optional[float] = None, exact: bool = True) -> np.ndarray:
    r"""The Jacobian of the dual flow at :math:`\alpha` (Theorem 1, Eqs 36-38 / .5.18-.5.20), with :math:`\eta = 1`.

    .. math::

        J_9 = -\left(\operatorname{diag}\left(\frac{1}{\alpha(1-\alpha)}\right) + K\right), \qquad
        J_{10} = -\left(\operatorname{diag}\left(\frac{1}{\alpha}\right) + A\right);

    under SD (``output_penalty`` :math:`a`) :math:`-(\operatorname{diag}(1/(\alpha(1-\alpha))) + I/a)` and
    :math:`-(\operatorname{diag}(1/\alpha) + (1 + 1/a)I)`. Symmetric and negative definite:
    :math:`\lambda_{\max} \le -4` for the exact flows, :math:`< -1` for Eq 10 (:math:`< -2` while
    :math:`\alpha \in (0,1)^n`).

    Parameters
    ----------
    %(U)s
    %(strengths)s
    alpha : array_like, shape (n,)
        The point, in :math:`(0, 1)` (exact flows) or :math:`(0, \infty)` (Eq 10).
    weight_decay, output_penalty : float
        Exactly one, > 0 (see :func:`~dynamics.starvation.integrate_dual`).
    exact : bool
        The exact flow or its Eq-10-type approximation.

    Returns
    -------
    ndarray, shape (n, n)

    Examples
    --------
    >>> jacobian(np.eye(2), [2.0, 1.0], [0.5, 0.5], weight_decay=1.0) + 0.0  # + 0.0: no negative zeros
    array([[-8.,  0.],
           [ 0., -5.]])
    """
    U, s, penalty, sd, exact = require_flow(U, s, weight_decay, output_penalty, exact)
    alpha = require_dual_point(alpha, U.shape[0], exact, name="alpha")
    with np.errstate(divide="ignore", over="ignore"):
        barrier = 1.0 / (alpha * (1.0 - alpha)) if exact else 1.0 / alpha
    require_finite_result(barrier, "jacobian", "alpha: 1/α overflows for α_i below ~5.6e-309")
    return dual_jacobian(0.0, alpha, _params(U, s, penalty, sd, exact))


@fill_doc
def learning_rate_bound(s: ArrayLike, *, weight_decay: Optional[float] = None,
                        output_penalty: Optional[float] = None) -> float:
    r"""The largest stable learning rate :math:`2/L` of primal gradient descent on Eq 5 or Eq 17.

    The loss's Hessian in :math:`\theta` is :math:`\lambda I + \Phi_0^\top D \Phi_0` (Eq 5) or
    :math:`\Phi_0^\top (D + aI) \Phi_0` (Eq 17), with :math:`D = \operatorname{diag}(\sigma'(y_i \hat y_i))` and
    :math:`\sigma' \le 1/4` (equality at :math:`\hat y = 0`, the start :math:`\theta = 0`). Its largest eigenvalue is
    therefore at most :math:`L = \lambda + s_{\max}^2/4` (Eq 5) or :math:`L = s_{\max}^2 (1/4 + a)` (Eq 17), attained
    at :math:`\theta = 0`; gradient descent with :math:`\eta < 2/L` decreases the loss at every step and converges, and
    with :math:`\eta > 2/L` the :math:`z`-space map :math:`z \leftarrow z - \eta\nabla` has an eigenvalue below -1 at
    the start (it oscillates, and diverges once :math:`\eta\lambda > 2`).

    Parameters
    ----------
    s : array_like, shape (n,)
        Feature strengths (singular values of :math:`Y\Phi_0`), > 0.
    %(weight_decay_output_penalty)s

    Returns
    -------
    float
        :math:`2/L`.

    Examples
    --------
    >>> round(learning_rate_bound([6.0, 2.0], weight_decay=0.01), 6)
    0.221976
    """
    penalty, name, sd = require_one_penalty(weight_decay, output_penalty)
    s = require_strengths(s)
    top = float(np.max(s)) ** 2
    curvature = top * (0.25 + penalty) if sd else penalty + 0.25 * top
    if not math.isfinite(curvature):
        raise ValueError(f"s and {name}: the curvature bound overflows float64 (max s = {np.max(s):.3g})")
    return 2.0 / curvature


@fill_doc
def primal_gd_z(U: ArrayLike, s: ArrayLike, n_steps: int, *, learning_rate: float, weight_decay: Optional[float] = None,
                output_penalty: Optional[float] = None, z0: Optional[ArrayLike] = None) -> PrimalTrajectory:
    r"""Primal gradient descent of Eq 5 or Eq 17 written in feature coordinates :math:`z = S V^\top \theta`.

    .. math::

        z \leftarrow (1 - \eta\lambda) z + \eta S^2 U^\top \sigma(-Uz)

    (Eq 5, ``weight_decay`` :math:`\lambda`) or

    .. math::

        z \leftarrow z + \eta S^2 (U^\top \sigma(-Uz) - a z)

    (Eq 17, ``output_penalty`` :math:`a`): :math:`\theta`-space gradient descent mapped through :math:`S V^\top`, in
    which :math:`V` drops out.

    Parameters
    ----------
    %(U)s
    %(strengths)s
    n_steps : int
        Number of gradient-descent steps, >= 0.
    learning_rate : float
        :math:`\eta \in (0, 2/L)` (:func:`~dynamics.starvation.learning_rate_bound`); a larger :math:`\eta` raises
        ValueError.
    %(weight_decay_output_penalty)s
    z0 : array_like, shape (n,), optional
        Start (default 0, i.e. :math:`\theta = 0`).

    Returns
    -------
    PrimalTrajectory
        ``steps`` (n_steps + 1,) = 0..n_steps; ``z`` (n_steps + 1, n).

    Examples
    --------
    >>> from dynamics.starvation import coupling_matrix
    >>> run = primal_gd_z(coupling_matrix(0.5), [6.0, 2.0], 1000, learning_rate=0.05, weight_decay=0.01)
    >>> run.z[1000].round(2).tolist()
    [9.16, 1.04]
    """
    penalty, name, sd = require_one_penalty(weight_decay, output_penalty)
    U, s, penalty = require_problem(U, s, penalty, penalty_name=name)
    n_steps = require_integer("n_steps", n_steps, 0, 10**8)
    bound = learning_rate_bound(s, weight_decay=weight_decay, output_penalty=output_penalty)
    learning_rate = require_learning_rate(learning_rate, bound, sd)
    z0 = np.zeros(U.shape[0]) if z0 is None else require_shape("z0", as_finite_array("z0", z0, ndim=1), (U.shape[0],))
    z = primal_z_steps(U, s * s, penalty, learning_rate, n_steps, z0, sd)
    require_finite_result(z, "primal_gd_z", "z0: the trajectory left float64")
    return PrimalTrajectory(np.arange(n_steps + 1), z)


@fill_doc
def dual_gd(U: ArrayLike, s: ArrayLike, n_steps: int, *, learning_rate: float, weight_decay: float,
            alpha0: Union[float, ArrayLike] = 1e-8, clamp: float = 1e-50) -> DualGDTrajectory:
    r"""Discrete dual gradient ascent on Eq 8 (the Eq 9 field), as in the authors' toy code (App. B.1).

    .. math::

        \alpha \leftarrow \operatorname{clip}\bigl(\alpha + \eta(\log((1-\alpha)/\alpha) - K\alpha),\
        \texttt{clamp},\ 1 - \texttt{clamp}\bigr), \qquad K = \lambda^{-1} U S^2 U^\top.

    The clamp keeps :math:`\alpha` in the domain, so no step size diverges; the code's :math:`\eta = 3 \cdot 10^{-6}`
    follows the flow closely.

    Parameters
    ----------
    %(U)s
    %(strengths)s
    n_steps : int
        Number of steps, >= 0.
    %(learning_rate)s
    %(weight_decay)s
    alpha0 : float or array_like, shape (n,)
        Start in :math:`(0, 1)` (the code's 1e-8).
    clamp : float
        In :math:`(0, 0.5)`: :math:`\alpha` is held in :math:`[\texttt{clamp}, 1 - \texttt{clamp}]`.

    Returns
    -------
    DualGDTrajectory
        ``steps`` (n_steps + 1,); ``alpha`` and ``z`` = :math:`\lambda^{-1} S^2 U^\top \alpha`, each
        (n_steps + 1, n).

    Examples
    --------
    >>> from dynamics.starvation import coupling_matrix
    >>> run = dual_gd(coupling_matrix(0.5), [6.0, 2.0], 1000, learning_rate=3e-6, weight_decay=0.01)
    >>> run.z[1000].round(2).tolist()
    [8.98, 1.1]
    """
    U, s, weight_decay = require_problem(U, s, weight_decay)
    learning_rate = require_positive("learning_rate", learning_rate)
    n_steps = require_integer("n_steps", n_steps, 0, 10**8)
    clamp = require_in_range("clamp", clamp, 0.0, 0.5, low_open=True, high_open=True)
    n = U.shape[0]
    start = np.broadcast_to(np.asarray(alpha0, dtype=np.float64), (n,)) if np.ndim(alpha0) == 0 else alpha0
    start = require_dual_point(start, n, True)
    alpha = dual_ascent_steps(dual_matrix(U, s, weight_decay, True), start, learning_rate, n_steps, clamp)
    return DualGDTrajectory(np.arange(n_steps + 1), alpha, (alpha @ U) * (s * s) / weight_decay)


@fill_doc
@one_blas_thread_when_small("Phi0")
def features(Phi0: ArrayLike, y: ArrayLike) -> Features:
    r"""The features of Definition 1 (6.3.1, Eq 4): the SVD :math:`Y\Phi_0 = U S V^\top`.

    Parameters
    ----------
    Phi0 : array_like, shape (n, m)
        The neural tangent random features :math:`\Phi_0` (Eq 2), :math:`m \ge n`, full row rank.
    %(y)s

    Returns
    -------
    Features
        ``U`` (n, n), ``s`` (n,) descending and > 0, ``Vt`` (n, m): the first :math:`n` rows of :math:`V^\top`.

    Examples
    --------
    >>> U, s, Vt = features(np.diag([3.0, 1.0]), [1.0, -1.0])
    >>> s
    array([3., 1.])
    """
    Phi0, y = require_primal_data(Phi0, y)
    U, s, Vt = np.linalg.svd(y[:, None] * Phi0, full_matrices=False)
    if s[-1] <= 1e-12 * s[0]:
        raise ValueError(f"Phi0 must have full row rank (theory assumes every s_j > 0), got s_min/s_max = "
                         f"{s[-1] / s[0]:.3g}")
    return Features(U, s, Vt)


def _primal_gradient(Phi0, y, penalty, theta, sd):
    logits = Phi0 @ theta
    weights = sigmoid(-y * logits)
    regulariser = penalty * (Phi0.T @ logits) if sd else penalty * theta
    return -Phi0.T @ (y * weights) + regulariser


@fill_doc
def primal_gd_theta(Phi0: ArrayLike, y: ArrayLike, n_steps: int, *, learning_rate: float,
                    weight_decay: Optional[float] = None, output_penalty: Optional[float] = None,
                    theta0: Optional[ArrayLike] = None) -> ParameterTrajectory:
    r"""Gradient descent on Eq 5 (:math:`\mathrm{CE} + (\lambda/2)\lVert\theta\rVert^2`) or Eq 17
    (:math:`\mathrm{CE} + (a/2)\lVert\hat y\rVert^2`) in parameter space, :math:`\hat y = \Phi_0\theta`.

    Parameters
    ----------
    Phi0 : array_like, shape (n, m)
        :math:`\Phi_0`, :math:`m \ge n`.
    %(y)s
    n_steps : int
        Number of steps, >= 0.
    learning_rate : float
        :math:`\eta \in (0, 2/L)`, :math:`L` from the singular values of :math:`\Phi_0`
        (:func:`~dynamics.starvation.learning_rate_bound`).
    %(weight_decay_output_penalty)s
    theta0 : array_like, shape (m,), optional
        Start (default 0).

    Returns
    -------
    ParameterTrajectory
        ``steps`` (n_steps + 1,); ``theta`` (n_steps + 1, m).

    Examples
    --------
    >>> run = primal_gd_theta(np.eye(2), [1.0, -1.0], 3, learning_rate=0.5, weight_decay=0.1)
    >>> run.theta.shape, run.theta[1].round(6).tolist()
    ((4, 2), [0.25, -0.25])
    """
    Phi0, y = require_primal_data(Phi0, y)
    penalty, _, sd = require_one_penalty(weight_decay, output_penalty)
    n_steps = require_integer("n_steps", n_steps, 0, 10**7)
    bound = learning_rate_bound(np.linalg.svd(Phi0, compute_uv=False), weight_decay=weight_decay,
                                output_penalty=output_penalty)
    learning_rate = require_learning_rate(learning_rate, bound, sd)
    theta = np.zeros(Phi0.shape[1]) if theta0 is None else require_shape(
        "theta0", as_finite_array("theta0", theta0, ndim=1), (Phi0.shape[1],))
    out = np.empty((n_steps + 1, theta.size))
    out[0] = theta
    for k in range(n_steps):
        out[k + 1] = out[k] - learning_rate * _primal_gradient(Phi0, y, penalty, out[k], sd)
    return ParameterTrajectory(np.arange(n_steps + 1), out)


@fill_doc
def primal_optimum(Phi0: ArrayLike, y: ArrayLike, *, weight_decay: Optional[float] = None,
                   output_penalty: Optional[float] = None, tolerance: float = 1e-13) -> np.ndarray:
    r"""The minimiser :math:`\theta^*` of Eq 5 (ridge logistic) or the minimum-norm minimiser of Eq 17 (Spectral
    Decoupling).

    Newton's method in :math:`\theta` with backtracking (used to cross-check the dual theory:
    :math:`\alpha^* = \sigma(-Y\hat y^*)` and :math:`\theta^* = \Phi_0^\top Y \alpha^*/\lambda` at the Eq 9 fixed
    point).

    Parameters
    ----------
    Phi0 : array_like, shape (n, m)
        :math:`\Phi_0`, :math:`m \ge n`.
    %(y)s
    weight_decay, output_penalty : float
        Exactly one, > 0: :math:`\lambda` of :math:`(\lambda/2)\lVert\theta\rVert^2` (Eq 5) or :math:`a` of
        :math:`(a/2)\lVert\hat y\rVert^2` (Eq 17).
    tolerance : float
        Stop when :math:`\max\lvert\nabla\rvert \le` ``tolerance``, in [1e-15, 1e-3].

    Returns
    -------
    ndarray, shape (m,)
        :math:`\theta^*`.

    Raises
    ------
    RuntimeError
        If 200 Newton steps do not reach ``tolerance``.

    Examples
    --------
    >>> from dynamics.starvation import sd_margin
    >>> theta = primal_optimum(np.eye(2), [1.0, 1.0], output_penalty=0.01)
    >>> bool(np.allclose(theta, sd_margin(0.01), atol=1e-10))
    True
    """
    Phi0, y = require_primal_data(Phi0, y)
    penalty, _, sd = require_one_penalty(weight_decay, output_penalty)
    tolerance = require_in_range("tolerance", tolerance, 1e-15, 1e-3)
    m = Phi0.shape[1]
    theta = np.zeros(m)

    def loss(th):
        logits = Phi0 @ th
        ce = np.logaddexp(0.0, -y * logits).sum()
        return ce + 0.5 * penalty * (logits @ logits if sd else th @ th)

    grad = _primal_gradient(Phi0, y, penalty, theta, sd)
    for _ in range(200):
        size = np.abs(grad).max()
        if size <= tolerance:
            return theta
        p = sigmoid(y * (Phi0 @ theta))
        curvature = (p * (1.0 - p) + (penalty if sd else 0.0))
        hessian = (Phi0.T * curvature) @ Phi0 + (0.0 if sd else penalty * np.eye(m))
        direction = -np.linalg.lstsq(hessian, grad, rcond=1e-14)[0]  # minimum norm when sd (rank n)
        step, current = 1.0, loss(theta)
        while step > 1e-12:
            trial = theta + step * direction
            trial_grad = _primal_gradient(Phi0, y, penalty, trial, sd)
            # Armijo decrease of the loss, or, where the loss's change is below its round-off, a smaller gradient
            if loss(trial) <= current + 1e-4 * step * (grad @ direction) or np.abs(trial_grad).max() < size:
                break
            step *= 0.5
        else:
            break
        theta, grad = trial, trial_grad
    raise RuntimeError(f"primal_optimum: Newton did not reach gradient {tolerance:g}; last {np.abs(grad).max():.3g}")
