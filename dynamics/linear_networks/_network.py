"""Simulators of the two-weight-layer linear network N1 → N2 → N3 (Pezeshki (thesis), Sec. 2.2.1–2.2.2, reviewing
Saxe et al. 2014).

Equations of Pezeshki (thesis), Ch. 2 (see the theory note, docs/theory/linear_networks.md):

* (2.2.2) loss L = 1/2 ||y − W32 W21 X||_F² summed over the P examples;
* (2.2.3–4) simultaneous gradient-descent steps with learning rate η;
* (2.2.5–6) the gradient flow τ W21' = W32ᵀ(Σ31 − W32 W21 Σ11), τ W32' = (Σ31 − W32 W21 Σ11) W21ᵀ,
  with the sums Σ31 = y Xᵀ and Σ11 = X Xᵀ;
* (2.2.7–10) whitening X Xᵀ = I (sum-normalised: orthonormal rows of X), Σ31 = U S Vᵀ, and the mode
  basis W̄21 = W21 V, W̄32 = Uᵀ W32 in which the network map is diag(Uᵀ W32 W21 V) on the diagonal. The mode
  bases may be those of a full SVD (U square N3 × N3, V square N1 × N1) or of a reduced one (the first k columns).

The random tasks, whitened inputs and initialisations (Eqs 2.2.7, 2.2.8, 2.2.14) are set-ups, in ``_setups.py``.

Time convention (the project's choice; the thesis leaves τ open): one GD step of size η on ``loss_scale`` × (2.2.2)
advances the flow by Δt = loss_scale·η·τ; the project uses τ = 1 and t = k·η for the loss as written (loss_scale = 1).
torch's ``MSELoss(reduction="mean")`` over n entries is loss_scale = 2/n.
"""
from typing import Optional, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (OdeOptions, as_finite_array, one_blas_thread_when_small, require_array_in_range,
                               require_finite_product, require_integer, require_output_times, require_positive)
from ._checks import (require_correlations, require_flow_options, require_mode_bases, require_network_data,
                      require_one_network, require_weights, scalar_or_array)
from ._integrate import METHODS, integrate_flow
from ._kernels import two_layer_gd, two_layer_rhs
from ._results import NetworkGDTrajectory, NetworkTrajectory
from ._docs import fill_doc

__all__ = ["NETWORK_ODE_OPTIONS", "conserved_gram", "effective_initial_strength", "first_crossing_time",
           "gd_flow_time", "mode_map", "mode_strengths", "network_flow", "network_gd", "network_loss", "whiten"]

NETWORK_ODE_OPTIONS = OdeOptions(method="auto", rtol=1e-10, atol=1e-13)
"""The integrator settings :func:`~dynamics.linear_networks.network_flow` uses by default: ``solve_ode``'s "auto"
(DOP853, then rosenbrock23 from where DOP853 gave up after 20 000 step attempts) at rtol = 1e-10, atol = 1e-13.
``network_flow`` reads ``method``, ``rtol`` and ``atol``; the step budgets and the stiffness switch are the flows'
own, so the other fields keep :class:`~dynamics.numerics.OdeOptions`' defaults."""


@fill_doc
def gd_flow_time(steps: ArrayLike, learning_rate: float, loss_scale: float = 1.0,
                 tau: float = 1.0) -> Union[float, np.ndarray]:
    r"""Flow time :math:`t = k c \eta \tau` reached by :math:`k` GD steps of size :math:`\eta` on
    :math:`c \times \frac{1}{2}\lVert \cdot \rVert^2` (Eqs 2.2.3–2.2.6 and 2.3.5 of Pezeshki (thesis), with the
    project's time convention).

    Parameters
    ----------
    steps : int, float or array_like
        Step counts :math:`k \ge 0` (real values interpolate).
    %(learning_rate)s
    loss_scale : float
        :math:`c > 0`: the loss minimised is :math:`c` times the loss as written (1/2 sum of squares); torch's
        ``MSELoss(reduction="mean")`` over :math:`n` entries is :math:`c = 2/n`.
    tau : float
        Time constant :math:`\tau > 0` of the flow.

    Returns
    -------
    float or ndarray
        :math:`t`, of the shape of ``steps``.

    Raises
    ------
    ValueError
        For negative or non-finite steps, or learning_rate, loss_scale or tau <= 0.

    Examples
    --------
    >>> gd_flow_time(100, 0.01)
    1.0
    >>> gd_flow_time([0, 1, 2], 0.5, loss_scale=2.0)
    array([0., 1., 2.])
    """
    k = require_array_in_range("steps", steps, 0.0)
    eta = require_positive("learning_rate", learning_rate)
    scale = require_positive("loss_scale", loss_scale)
    tau = require_positive("tau", tau)
    # Mantissas and exponents apart: c·η·τ may overflow where k·c·η·τ does not (k = 0 gives 0, not 0·inf = NaN).
    t = require_finite_product([k, scale, eta, tau], what="the flow time k·loss_scale·learning_rate·tau",
                               hint="reduce steps, learning_rate, loss_scale or tau")
    return scalar_or_array(t, steps)


@one_blas_thread_when_small("X")
def whiten(X: ArrayLike) -> np.ndarray:
    r""":math:`(X X^\top)^{-1/2} X`: inputs with :math:`X X^\top = I`, the sum-normalised whitening of Eq (2.2.7).

    Saxe's mean convention :math:`\frac{1}{P} X X^\top = I` is :math:`X/\sqrt{P}` here (or :math:`\tau` rescaled by
    :math:`P`).

    Parameters
    ----------
    X : array_like, shape (N1, P)
        Inputs, one example per column, of full row rank (P >= N1).

    Returns
    -------
    ndarray, shape (N1, P)
        Whitened inputs with orthonormal rows.

    Raises
    ------
    ValueError
        For non-finite X, or X without full row rank.

    Examples
    --------
    >>> X = whiten(np.random.default_rng(0).standard_normal((3, 10)))
    >>> bool(np.allclose(X @ X.T, np.eye(3)))
    True
    """
    X = as_finite_array("X", X, ndim=2)
    lam, vec = np.linalg.eigh(X @ X.T)
    if lam[0] <= 1e-12 * max(lam[-1], 1e-300):
        raise ValueError(f"X must have full row rank to be whitened (needs P >= N1), got shape {X.shape}")
    return (vec / np.sqrt(lam)) @ vec.T @ X


@fill_doc
def mode_map(W21: ArrayLike, W32: ArrayLike, U: ArrayLike, V: ArrayLike) -> np.ndarray:
    r"""The network map in the mode basis, :math:`U^\top W_{32} W_{21} V = \bar W_{32} \bar W_{21}` (Eqs 2.2.9–10); its
    :math:`(\beta, \alpha)` entry is :math:`b^\beta \cdot a^\alpha`.

    U and V may come from a full SVD of :math:`\Sigma_{31}` (square) or from a reduced one (their first k columns, e.g.
    ``numpy.linalg.svd(sigma31, full_matrices=False)``), the same factors
    :func:`dynamics.linear_networks.decoupled_init` takes.

    Parameters
    ----------
    W21 : array_like, shape (..., N2, N1)
        First-layer weights (one network, or a stack such as a trajectory).
    %(W32)s
    U : array_like, shape (N3, k_U)
        Output modes in its columns, orthonormal, 1 <= k_U <= N3 (k_U = N3 for a full SVD).
    V : array_like, shape (N1, k_V)
        Input modes in its columns, orthonormal, 1 <= k_V <= N1 (k_V = N1 for a full SVD).

    Returns
    -------
    ndarray, shape (..., k_U, k_V)

    Raises
    ------
    ValueError
        For non-finite input, shapes that do not match, or mode bases without orthonormal columns (the message
        names the parameter and its shape).

    Examples
    --------
    >>> mode_map(np.eye(2), np.diag([2.0, 3.0]), np.eye(2), np.eye(2))
    array([[2., 0.],
           [0., 3.]])
    >>> mode_map(np.eye(2), np.diag([2.0, 3.0]), np.eye(2)[:, :1], np.eye(2)[:, :1])   # the first mode only
    array([[2.]])
    """
    W21, W32 = require_weights(W21, W32)
    U, V = require_mode_bases(U, V, W21, W32)
    return U.T @ (W32 @ W21) @ V


@fill_doc
def mode_strengths(W21: ArrayLike, W32: ArrayLike, U: ArrayLike, V: ArrayLike) -> np.ndarray:
    r"""Mode strengths :math:`u_\alpha = (U^\top W_{32} W_{21} V)_{\alpha\alpha} = a^\alpha \cdot b^\alpha`, the
    diagonal of :func:`dynamics.linear_networks.mode_map` (the :math:`u` of Eq 2.2.22).

    U and V may be the factors of a full SVD of :math:`\Sigma_{31}` or of a reduced one (U (N3, k), V (N1, k)); the
    first k mode strengths do not depend on which.

    Parameters
    ----------
    W21 : array_like, shape (..., N2, N1)
        First-layer weights (one network, or a stack such as a trajectory).
    %(W32)s
    U : array_like, shape (N3, k_U)
        Output modes in its columns, orthonormal, 1 <= k_U <= N3.
    V : array_like, shape (N1, k_V)
        Input modes in its columns, orthonormal, 1 <= k_V <= N1.

    Returns
    -------
    ndarray, shape (..., min(k_U, k_V))
        One strength per mode (min(N1, N3) of them for a full SVD).

    Raises
    ------
    ValueError
        As :func:`dynamics.linear_networks.mode_map`: the message names the parameter at fault and its shape.

    Examples
    --------
    >>> mode_strengths(np.eye(2), np.diag([2.0, 3.0]), np.eye(2), np.eye(2))
    array([2., 3.])
    >>> from dynamics.linear_networks import decoupled_init
    >>> sigma31 = np.array([[3.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    >>> U, s, Vh = np.linalg.svd(sigma31, full_matrices=False)          # reduced: U (2, 2), Vh (2, 3)
    >>> W21, W32 = decoupled_init(U, Vh.T, n_hidden=2, a0=0.1, seed=0)
    >>> [round(float(u), 12) for u in mode_strengths(W21, W32, U, Vh.T)]
    [0.01, 0.01]
    """
    return np.diagonal(mode_map(W21, W32, U, V), axis1=-2, axis2=-1).copy()


def effective_initial_strength(W21: ArrayLike, W32: ArrayLike, U: ArrayLike, V: ArrayLike) -> np.ndarray:
    r""":math:`u_{\mathrm{eff},\alpha} = |a^\alpha + b^\alpha|^2/4` from :math:`a^\alpha` = column :math:`\alpha` of
    :math:`W_{21} V` and :math:`b^\alpha` = row :math:`\alpha` of :math:`U^\top W_{32}` (derived in this project; see
    the theory note, docs/theory/linear_networks.md).

    The balanced part of a random init, which is what grows along the sigmoid (2.2.22); the predicted half
    time of mode :math:`\alpha` is ``half_learning_time(s_α, u_eff,α)``.

    Parameters
    ----------
    W21 : array_like, shape (N2, N1)
        First-layer weights of one network.
    W32 : array_like, shape (N3, N2)
        Second-layer weights.
    U : array_like, shape (N3, k_U)
        Output modes, orthonormal columns (a full or reduced SVD, as in :func:`dynamics.linear_networks.mode_map`).
    V : array_like, shape (N1, k_V)
        Input modes, orthonormal columns.

    Returns
    -------
    ndarray, shape (min(k_U, k_V),)

    Raises
    ------
    ValueError
        For stacks of networks, non-finite input, shapes that do not match or mode bases without orthonormal
        columns.

    Examples
    --------
    >>> effective_initial_strength(np.eye(2), 3 * np.eye(2), np.eye(2), np.eye(2))
    array([4., 4.])
    """
    W21, W32 = require_one_network(W21, W32)
    U, V = require_mode_bases(U, V, W21, W32)
    a = (W21 @ V).T
    b = U.T @ W32
    m = min(a.shape[0], b.shape[0])
    return np.sum((a[:m] + b[:m]) ** 2, axis=1) / 4.0


@fill_doc
def conserved_gram(W21: ArrayLike, W32: ArrayLike) -> np.ndarray:
    r""":math:`W_{21} W_{21}^\top - W_{32}^\top W_{32}`, constant along the flow (2.2.5–6) for any :math:`\Sigma_{31}`
    and :math:`\Sigma_{11}` (derived in this project: the two terms have the same time derivative,
    :math:`W_{32}^\top E W_{21}^\top + W_{21} E^\top W_{32}` with :math:`E = \Sigma_{31} - W_{32} W_{21} \Sigma_{11}`,
    over :math:`\tau`).

    Parameters
    ----------
    W21 : array_like, shape (..., N2, N1)
        First-layer weights (one network or a stack).
    %(W32)s

    Returns
    -------
    ndarray, shape (..., N2, N2)

    Raises
    ------
    ValueError
        For non-finite input or shapes that do not match.

    Examples
    --------
    >>> conserved_gram(np.ones((2, 1)), np.ones((1, 2)))
    array([[0., 0.],
           [0., 0.]])
    """
    W21, W32 = require_weights(W21, W32)
    return W21 @ np.swapaxes(W21, -1, -2) - np.swapaxes(W32, -1, -2) @ W32


@fill_doc
def network_loss(W21: ArrayLike, W32: ArrayLike, X: ArrayLike, Y: ArrayLike) -> Union[float, np.ndarray]:
    r"""The loss (2.2.2), :math:`\frac{1}{2}\lVert Y - W_{32} W_{21} X \rVert_F^2` summed over the :math:`P`
    examples.

    Parameters
    ----------
    W21 : array_like, shape (..., N2, N1)
        First-layer weights (one network or a stack).
    %(W32)s
    X : array_like, shape (N1, P)
        Inputs (one example per column).
    Y : array_like, shape (N3, P)
        Targets.

    Returns
    -------
    float or ndarray, shape (...)
        The loss of each network.

    Raises
    ------
    ValueError
        For non-finite input or shapes that do not match (the message names X or Y).

    Examples
    --------
    >>> network_loss(np.eye(2), np.eye(2), np.eye(2), 2 * np.eye(2))
    1.0
    """
    W21, W32 = require_weights(W21, W32)
    X, Y = require_network_data(X, Y, W21, W32)
    residual = Y - W32 @ W21 @ X
    loss = 0.5 * np.sum(residual ** 2, axis=(-2, -1))
    return float(loss) if np.ndim(loss) == 0 else loss


@fill_doc
def network_flow(W21: ArrayLike, W32: ArrayLike, sigma31: ArrayLike, t: ArrayLike, sigma11: Optional[ArrayLike] = None,
                 tau: float = 1.0, options: OdeOptions = NETWORK_ODE_OPTIONS) -> NetworkTrajectory:
    r"""Integrate the full-matrix gradient flow (2.2.5–6) from (W21, W32).

    Parameters
    ----------
    W21 : array_like, shape (N2, N1)
        Initial first-layer weights.
    W32 : array_like, shape (N3, N2)
        Initial second-layer weights.
    sigma31 : array_like, shape (N3, N1)
        Input–output correlation :math:`\Sigma_{31} = y X^\top` (a sum over examples).
    t : array_like, shape (m,)
        Output times: finite, >= 0, non-decreasing (t[0] may be 0), with :math:`t/\tau \le 2^{52}`.
    sigma11 : array_like, shape (N1, N1), optional
        Input correlation :math:`\Sigma_{11} = X X^\top`; None means whitened inputs (:math:`I`).
    %(tau)s
    options : OdeOptions
        The integrator (:class:`dynamics.numerics.OdeOptions`; default
        :data:`~dynamics.linear_networks.NETWORK_ODE_OPTIONS`, "auto" at rtol = 1e-10, atol = 1e-13), of which
        ``network_flow`` reads ``method``, ``rtol`` (in [1e-15, 1]) and ``atol`` (> 0); the other fields keep their
        defaults (a ``ValueError`` names one that does not). ``method`` "auto": DOP853, and where it does not finish
        within 20 000 step attempts (a stiff flow, :math:`\tau` tiny against :math:`t`) the L-stable rosenbrock23 from
        the last output time it reached (:func:`dynamics.numerics.solve_ode`'s "auto"); "rosenbrock23": rosenbrock23
        from the start.

    Returns
    -------
    NetworkTrajectory
        ``(t, W21, W32)`` with W21 (m, N2, N1) and W32 (m, N3, N2).

    Raises
    ------
    ValueError
        For non-finite input, shapes that do not match (named), bad times, tau <= 0, t/tau above 2^52, a method
        other than "auto" and "rosenbrock23", or a tolerance out of range.
    dynamics.numerics.IntegrationError
        If the integration does not reach the last time.

    Examples
    --------
    >>> from dynamics.linear_networks import decoupled_init, mode_strength, mode_task
    >>> task = mode_task([2.0], 1, 1, seed=0)
    >>> init = decoupled_init(task.U, task.V, n_hidden=1, a0=0.1, seed=1)
    >>> run = network_flow(*init, task.correlation, [0.0, 3.0])
    >>> u = mode_strengths(run.W21, run.W32, task.U, task.V)[:, 0]
    >>> bool(abs(u[1] - mode_strength(3.0, 2.0, 0.01)) < 1e-8)
    True
    >>> stiff = network_flow(*init, task.correlation, [0.0, 3.0],
    ...                      options=NETWORK_ODE_OPTIONS._replace(method="rosenbrock23", rtol=1e-8))
    >>> u_stiff = mode_strengths(stiff.W21, stiff.W32, task.U, task.V)[:, 0]
    >>> bool(abs(u_stiff[1] - mode_strength(3.0, 2.0, 0.01)) < 1e-6)
    True
    """
    method, rtol, atol = require_flow_options(options, METHODS, "network_flow")
    W21, W32, sigma31, sigma11 = require_correlations(W21, W32, sigma31, sigma11)
    tau = require_positive("tau", tau)
    t_eval = require_output_times("t", t)
    n2, n1 = W21.shape
    n3 = W32.shape[0]
    params = np.concatenate([[n1, n2, n3, 1.0], sigma31.ravel(), sigma11.ravel()])
    y0 = np.concatenate([W21.ravel(), W32.ravel()])
    # the Jacobian's scale at the start and at the fixed points (W32 W21 Σ11 = Σ31): squared weights and Σ31, times Σ11
    scale = max(1.0, float(np.linalg.norm(sigma11, 2)))
    with np.errstate(over="ignore"):
        rate = (float(np.sum(W21 ** 2) + np.sum(W32 ** 2)) + 2.0 * float(np.linalg.norm(sigma31))) * scale
    y = integrate_flow(two_layer_rhs, None, y0, t_eval, tau, params, rtol, atol, "network_flow", rate,
                       "(‖W21‖² + ‖W32‖² + 2‖Σ31‖)·max(1, ‖Σ11‖)", method=method)
    return NetworkTrajectory(t_eval, y[:, :n2 * n1].reshape(-1, n2, n1), y[:, n2 * n1:].reshape(-1, n3, n2))


@fill_doc
def network_gd(W21: ArrayLike, W32: ArrayLike, sigma31: ArrayLike, n_steps: int, learning_rate: float,
               sigma11: Optional[ArrayLike] = None, record_every: int = 1) -> NetworkGDTrajectory:
    r"""Full-batch gradient descent (2.2.3–4) on the loss (2.2.2) from (W21, W32), simultaneous updates.

    The data enter only through :math:`\Sigma_{31} = y X^\top` and :math:`\Sigma_{11} = X X^\top`. Step :math:`k` is at
    flow time
    ``gd_flow_time(k, learning_rate)``.

    Parameters
    ----------
    W21 : array_like, shape (N2, N1)
        Initial first-layer weights.
    W32 : array_like, shape (N3, N2)
        Initial second-layer weights.
    sigma31 : array_like, shape (N3, N1)
        Input–output correlation :math:`\Sigma_{31} = y X^\top`.
    n_steps : int
        Number of steps, in [0, 1e9].
    %(learning_rate)s
    sigma11 : array_like, shape (N1, N1), optional
        Input correlation :math:`\Sigma_{11} = X X^\top`; None means whitened inputs (:math:`I`).
    %(record_every)s

    Returns
    -------
    NetworkGDTrajectory
        ``(steps, W21, W32)`` with steps (m,), W21 (m, N2, N1), W32 (m, N3, N2).

    Raises
    ------
    ValueError
        For non-finite input, shapes that do not match, bad step counts, learning_rate <= 0, or a run that
        diverges (the message names learning_rate).

    Examples
    --------
    >>> run = network_gd(0.1 * np.eye(2), 0.1 * np.eye(2), np.diag([2.0, 1.0]), n_steps=10, learning_rate=0.01,
    ...                  record_every=5)
    >>> run.steps
    array([ 0,  5, 10])
    """
    W21, W32, sigma31, sigma11 = require_correlations(W21, W32, sigma31, sigma11)
    eta = require_positive("learning_rate", learning_rate)
    n_steps = require_integer("n_steps", n_steps, 0, 10**9)
    every = require_integer("record_every", record_every, 1, max(n_steps, 1))
    out21, out32 = two_layer_gd(W21, W32, sigma31, sigma11, eta, n_steps, every)
    if not (np.all(np.isfinite(out21[-1])) and np.all(np.isfinite(out32[-1]))):
        raise ValueError(f"gradient descent diverged (weights overflowed): learning_rate = {eta:g} is too large "
                         f"for these correlations")
    return NetworkGDTrajectory(np.arange(0, n_steps + 1, every), out21, out32)


def first_crossing_time(t: ArrayLike, values: ArrayLike, level: ArrayLike) -> np.ndarray:
    """First time at which each sampled series reaches its level, by linear interpolation between samples
    (used to measure half-learning times).

    Parameters
    ----------
    t : array_like, shape (m,)
        Sample times, finite and non-decreasing.
    values : array_like, shape (m,) or (m, k)
        One series per column.
    level : float or array_like, shape (k,)
        One level per series (broadcast against the series).

    Returns
    -------
    ndarray, shape (k,)
        The crossing times; t[0] if a series starts at or above its level, inf if it never reaches it.

    Raises
    ------
    ValueError
        For non-finite input, values whose first axis is not len(t), or a level that does not broadcast.

    Examples
    --------
    >>> first_crossing_time([0.0, 1.0, 2.0], [[0.0], [1.0], [2.0]], 1.5)
    array([1.5])
    """
    t = require_output_times("t", t)
    values = as_finite_array("values", values)
    if values.ndim == 0 or values.shape[0] != t.size:
        raise ValueError(f"values must have shape (len(t), ...) = ({t.size}, ...), got {values.shape}")
    values = values.reshape(t.size, -1)
    level_arr = as_finite_array("level", level)
    try:
        level_b = np.broadcast_to(level_arr, values.shape[1:])
    except ValueError:
        raise ValueError(f"level must broadcast to one value per series, shape {values.shape[1:]}, got shape "
                         f"{level_arr.shape}") from None
    out = np.full(values.shape[1], np.inf)
    for j in range(values.shape[1]):
        above = np.flatnonzero(values[:, j] >= level_b[j])
        if above.size == 0:
            continue
        k = above[0]
        if k == 0:
            out[j] = t[0]
            continue
        v0, v1 = values[k - 1, j], values[k, j]
        # v0 < level <= v1; in halves, the differences cannot overflow (v1 − v0 up to 2·1.8e308)
        fraction = (0.5 * level_b[j] - 0.5 * v0) / (0.5 * v1 - 0.5 * v0)
        out[j] = t[k - 1] + (t[k] - t[k - 1]) * fraction
    return out
