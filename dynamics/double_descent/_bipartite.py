"""The approximate bipartite closed form (Eqs 4.2.11–4.2.16, App. .2.37–.2.41), its fixed points A, B, C,
and the log-time ODE for the roots a_i.

Each group i (fast: p₁ = n_fast, σ₁ = 1; slow: p₂ = d − n_fast, σ₂ = 1/κ) is a Case-1 problem in its own units,
the other group's unlearnt signal acting as noise (App. .2.37–.2.38):

    α_i = n/p_i,   λ_eff,i = λ + 1/(η_i k),   λ̃_i = (d/p_i) λ_eff,i/σ_i²                   (4.2.11–4.2.12)
    a_i = ½[1 + α_i + λ̃_i + sqrt((1 + α_i + λ̃_i)² − 4α_i)]   (stable form of the root)    (4.2.13)
    R_i = n/(a_i d),   b_i = α_i/(a_i² − α_i)                                             (4.2.14)
    c_i = 1 + σ_ε² − 2R_j − ((2 − a_i)/a_i)(n/d),   j ≠ i   (R_j, not the printed R_i)   (4.2.16)
    Q₁ = (b₁b₂c₂ + b₁c₁)/(1 − b₁b₂),   Q₂ = (b₁b₂c₁ + b₂c₂)/(1 − b₁b₂)                  (4.2.15, .2.41)

Time convention: ``steps`` k counts GD steps of learning rate η (real values allowed); the analytic
time-to-weight-decay map is λ_eff = λ + 1/(ηk) (Eq 4.2.22, :func:`~dynamics.double_descent.effective_weight_decay`). The
authors' "analytic mode" is η = 1/4 (:data:`~dynamics.double_descent.ANALYTIC_LEARNING_RATE`) on the grid
:func:`~dynamics.double_descent.analytic_steps`, plotted at k + 1; their code's weight decay λ_c maps to
``weight_decay = λ_c/η`` (:func:`~dynamics.double_descent.code_weight_decay_to_api`). Per-group learning rates
η_i = η/σ_i² (preconditioning P = VΣ⁻²Vᵀ, derived in this project) make both groups learn on the fast time scale.

The printed root of Eq 4.2.13 cancels catastrophically for α_i > 1 and small λ̃_i, and the printed c_i uses the
group's own R_i: both are corrected here (see the theory note, ``docs/theory/double_descent.md``).

Log-time ODE (derived in this project): with τ = ln k, dλ̃_i/dτ = −(λ̃_i − λ̃_i(∞)) and
da_i/dτ = (dλ̃_i/dτ)·a_i/(2a_i − 1 − α_i − λ̃_i), started deep in the λ̃ ≫ 1 regime from the series of the root.
"""
from typing import Optional, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (OdeOptions, require_array_in_range, require_bool, require_choice,
                               require_finite_result, require_in_range, require_integer, require_output_times,
                               require_positive, require_times, solve_ode)
from ._checks import require_bipartite_sizes, require_group_learning_rates, require_noise_std, require_problem
from ._kernels import log_time_rhs
from ._order_parameters import order_parameters
from ._replica import _stable_root
from ._results import (BayesPoint, BipartiteRoots, OrderParameterCurve, OrderParameters, PhasePoint, PhasePoints,
                       TeacherStudentProblem)
from ._docs import fill_doc

#: The learning rate of the authors' analytic mode (ησ₁² = 1/4: their s₁ = 0.5).
ANALYTIC_LEARNING_RATE = 0.25


@fill_doc
def effective_weight_decay(steps: ArrayLike, learning_rate: float, weight_decay: float = 0.0) -> np.ndarray:
    r""":math:`\lambda_\mathrm{eff} = \lambda + 1/(\eta k)` (Eq 4.2.22): the weight decay that the analytic theory
    assigns to GD step :math:`k`.

    Parameters
    ----------
    steps : float or array_like
        GD steps :math:`k \ge 0` (0 gives inf, inf gives :math:`\lambda`).
    %(learning_rate)s
    weight_decay : float
        Explicit weight decay :math:`\lambda \ge 0`.

    Returns
    -------
    ndarray
        :math:`\lambda_\mathrm{eff}`, of the shape of ``steps``.

    Examples
    --------
    >>> effective_weight_decay([0.0, 4.0, np.inf], 0.25, 0.1)
    array([inf, 1.1, 0.1])
    """
    steps = require_times("steps", steps)
    learning_rate = require_positive("learning_rate", learning_rate)
    weight_decay = require_positive("weight_decay", weight_decay, allow_zero=True)
    return weight_decay + _inverse_steps(steps, learning_rate)


def analytic_steps(num: int = 300, log10_min: float = -3.0, log10_max: float = 8.0) -> np.ndarray:
    r"""The authors' analytic grid of GD steps :math:`k = 10^{\operatorname{linspace}(-3, 8, 300)}` (their code for
    Figs 4.1 and 4.4); curves are plotted at :math:`k + 1`.

    Parameters
    ----------
    num : int
        Number of points, 2 <= num <= 1e7.
    log10_min : float
        Decade of the first step, −300 <= log10_min <= 300.
    log10_max : float
        Decade of the last step, log10_min < log10_max <= 300.

    Returns
    -------
    ndarray
        Shape (num,).

    Examples
    --------
    >>> analytic_steps(3, -1, 1)
    array([ 0.1,  1. , 10. ])
    """
    num = require_integer("num", num, 2, 10_000_000)
    log10_min = require_in_range("log10_min", log10_min, -300, 300)
    log10_max = require_in_range("log10_max", log10_max, log10_min, 300, low_open=True)
    return np.logspace(log10_min, log10_max, num)


def code_weight_decay_to_api(code_weight_decay: ArrayLike,
                             learning_rate: float = ANALYTIC_LEARNING_RATE) -> np.ndarray:
    r"""The analytic code's weight decay :math:`\lambda_c` (:math:`\lambda_\mathrm{eff} = \lambda_c + 1/k` at
    :math:`\eta\sigma_1^2 = 1/4`) as this API's ``weight_decay`` :math:`\lambda_c/\eta` (the authors' code for
    Fig 4.5).

    Parameters
    ----------
    code_weight_decay : float or array_like
        :math:`\lambda_c \ge 0`.
    learning_rate : float
        :math:`\eta > 0` (default 1/4, the analytic mode).

    Returns
    -------
    ndarray
        :math:`\lambda_c/\eta`; a ``ValueError`` if it leaves float64.

    Examples
    --------
    >>> code_weight_decay_to_api([0.0, 0.1])
    array([0. , 0.4])
    """
    code = require_array_in_range("code_weight_decay", code_weight_decay, 0.0, np.inf)
    learning_rate = require_positive("learning_rate", learning_rate)
    with np.errstate(over="ignore"):
        api = code / learning_rate
    return require_finite_result(api, "code_weight_decay/learning_rate",
                                 "code_weight_decay is too large for this learning_rate")


def _inverse_steps(steps, learning_rate):
    with np.errstate(divide="ignore", over="ignore"):  # k -> 0 is the λ_eff = inf limit
        return np.where(steps > 0, 1.0 / (learning_rate * np.where(steps > 0, steps, 1.0)), np.inf)


def _group_setup(n, d, p, kappa, learning_rate, per_group_learning_rate):
    sizes = np.array([p, d - p], dtype=float)
    sigma2 = np.array([1.0, 1.0 / kappa ** 2])
    etas = require_group_learning_rates(learning_rate)
    if require_bool("per_group_learning_rate", per_group_learning_rate):
        etas = etas / sigma2
    return n / sizes, sizes, sigma2, etas


def _group_weight_decays(steps, d, sizes, sigma2, etas, weight_decay):
    """λ̃_i(k) for i = 1, 2, shape (2,) + broadcast shape."""
    with np.errstate(over="ignore", divide="ignore"):  # overflow to inf is the not-yet-learning limit a_i = inf
        return np.stack(np.broadcast_arrays(*[(d / sizes[i]) * (weight_decay + _inverse_steps(steps, etas[i]))
                                              / sigma2[i] for i in range(2)]))


@fill_doc
def bipartite_from_roots(a1: ArrayLike, a2: ArrayLike, n_samples: int, n_features: int, n_fast: int,
                         noise_std: float = 0.0, c_overlap: str = "other") -> OrderParameters:
    r"""Eqs 4.2.14–4.2.16 from the roots :math:`a_i` of Eq 4.2.13 (:math:`a_i = \infty`: group :math:`i` not yet
    learning).

    Parameters
    ----------
    a1 : float or array_like
        The fast group's larger root, :math:`a_1 \ge \max(1, n/p)` or inf.
    a2 : float or array_like
        The slow group's larger root, :math:`a_2 \ge \max(1, n/(d - p))` or inf; it must broadcast against
        ``a1``.
    %(n_samples)s
    %(n_features)s
    %(n_fast)s
    noise_std : float
        Label-noise standard deviation :math:`\sigma_\varepsilon` in [0, 1e100].
    c_overlap : {"other", "own"}
        "other" uses :math:`R_j` (:math:`j \ne i`) in :math:`c_i`, the corrected form; "own" uses :math:`R_i` as
        printed in the source.

    Returns
    -------
    OrderParameters
        R, Q, both generalisation errors and R1, R2, Q1, Q2, of the broadcast shape of the roots.

    Raises
    ------
    ValueError
        If :math:`1 - b_1 b_2 \le 0` (the approximation's validity condition, derived in this project: it holds
        iff :math:`n > d`).

    Examples
    --------
    >>> r = bipartite_from_roots(np.inf, np.inf, 110, 100, 70)   # no group learning yet
    >>> float(r.R), float(r.Q), float(r.generalization_error)
    (0.0, 0.0, 0.5)
    """
    require_choice("c_overlap", c_overlap, ("other", "own"))
    n, d, p, _ = require_bipartite_sizes(n_samples, n_features, n_fast, 1.0)
    noise_std = require_noise_std(noise_std)
    roots = []
    for name, value, size in (("a1", a1, p), ("a2", a2, d - p)):
        arr = require_times(name, value)  # real, no NaN, +inf allowed (group not yet learning)
        floor = max(1.0, n / size)
        # the larger root of Eq 4.2.13 is >= max(1, α_i); allow round-off of the closed form or an ODE
        if np.any(arr < floor * (1.0 - 1e-9)):
            raise ValueError(f"{name} must be >= max(1, n_samples/p_{name[1]}) = {floor:g} (the larger root of "
                             f"Eq 4.2.13), got {np.min(arr):g}")
        roots.append(arr)
    try:
        a = np.stack(np.broadcast_arrays(*roots))
    except ValueError:
        raise ValueError(f"a1 (shape {roots[0].shape}) and a2 (shape {roots[1].shape}) must broadcast") from None
    return _from_roots(a, n, d, p, noise_std, c_overlap)


def _from_roots(a, n, d, p, noise_std, c_overlap, steps=None):
    alpha = (n / np.array([p, d - p], dtype=float)).reshape((2,) + (1,) * (a.ndim - 1))
    R = n / (a * d)
    root_alpha = np.sqrt(alpha)
    with np.errstate(over="ignore"):  # a_i² overflows only where b_i = 0 (group not learning)
        b = alpha / ((a - root_alpha) * (a + root_alpha))
    overlap = R[::-1] if c_overlap == "other" else R
    c = 1.0 + noise_std * noise_std - 2.0 * overlap - (2.0 / a - 1.0) * (n / d)
    coupling = 1.0 - b[0] * b[1]
    if np.any(~(coupling > 0)):
        raise ValueError(f"1 - b1*b2 must be > 0 for the bipartite approximation, got {np.min(coupling):.3g} "
                         f"(n_samples={n}, n_features={d}, n_fast={p})")
    Q1 = (b[0] * b[1] * c[1] + b[0] * c[0]) / coupling
    Q2 = (b[0] * b[1] * c[0] + b[1] * c[1]) / coupling
    return order_parameters(R[0] + R[1], Q1 + Q2, noise_std, R[0], R[1], Q1, Q2, steps=steps)


@fill_doc
def bipartite_roots(steps: ArrayLike, n_samples: int, n_features: int, n_fast: int, kappa: float,
                    weight_decay: ArrayLike = 0.0,
                    learning_rate: Union[float, Tuple[float, float]] = ANALYTIC_LEARNING_RATE,
                    per_group_learning_rate: bool = False) -> BipartiteRoots:
    r"""The roots :math:`(a_1(k), a_2(k))` of Eq 4.2.13 (in the stable form) on the analytic map
    :math:`\lambda_\mathrm{eff} = \lambda + 1/(\eta_i k)`.

    Parameters
    ----------
    steps : float or array_like
        GD steps :math:`k \ge 0`, as in :func:`~dynamics.double_descent.bipartite_theory`.
    %(n_samples)s
    %(n_features)s
    %(n_fast)s
    %(kappa)s
    weight_decay : float or array_like
        :math:`\lambda \ge 0`, broadcasting against ``steps``.
    learning_rate : float or (float, float)
        :math:`\eta > 0`, or a pair (fast, slow), as in :func:`~dynamics.double_descent.bipartite_theory`.
    per_group_learning_rate : bool
        Train group :math:`i` at :math:`\eta/\sigma_i^2`, as in :func:`~dynamics.double_descent.bipartite_theory`.

    Returns
    -------
    BipartiteRoots
        steps, a1, a2.

    Examples
    --------
    >>> roots = bipartite_roots([0.0, np.inf], 110, 100, 70, 30.0)
    >>> [round(float(a), 12) for a in roots.a1], [round(float(a), 12) for a in roots.a2]
    ([inf, 1.571428571429], [inf, 3.666666666667])
    """
    steps = require_times("steps", steps)
    n, d, p, kappa = require_bipartite_sizes(n_samples, n_features, n_fast, kappa)
    return _roots(steps, n, d, p, kappa, weight_decay, learning_rate, per_group_learning_rate)


def _roots(steps, n, d, p, kappa, weight_decay, learning_rate, per_group_learning_rate):
    weight_decay = require_array_in_range("weight_decay", weight_decay, 0.0, np.inf)
    try:
        np.broadcast_shapes(steps.shape, weight_decay.shape)
    except ValueError:
        raise ValueError(f"weight_decay (shape {weight_decay.shape}) must broadcast against steps "
                         f"(shape {steps.shape})") from None
    alpha, sizes, sigma2, etas = _group_setup(n, d, p, kappa, learning_rate, per_group_learning_rate)
    lam = _group_weight_decays(steps, d, sizes, sigma2, etas, weight_decay)
    return BipartiteRoots(steps, _stable_root(alpha[0], lam[0]), _stable_root(alpha[1], lam[1]))


def bipartite_theory(steps: ArrayLike, problem: TeacherStudentProblem, weight_decay: ArrayLike = 0.0,
                     learning_rate: Union[float, Tuple[float, float]] = ANALYTIC_LEARNING_RATE,
                     per_group_learning_rate: bool = False, freeze_fast_at: Optional[float] = None,
                     freeze_slow_at: Optional[float] = None, c_overlap: str = "other") -> OrderParameterCurve:
    r"""Approximate closed form of Eqs 4.2.11–4.2.16 along GD steps.

    Parameters
    ----------
    steps : float or array_like
        GD steps :math:`k \ge 0` (real values allowed; 0 is :math:`R = Q = 0`, inf is
        :math:`\lambda_\mathrm{eff}` = weight_decay).
    problem : TeacherStudentProblem
        :math:`n, d, p, \kappa` and :math:`\sigma_\varepsilon`
        (:class:`~dynamics.double_descent.TeacherStudentProblem`), with :math:`n > d` (the decoupled formulas count
        every sample in both groups and fail for :math:`n \le d`; derived in this project), :math:`1 \le p \le d - 1`
        (:math:`\sigma_1 = 1`; the slow group has :math:`\sigma_2 = 1/\kappa`), :math:`\kappa` in [1, 1e100] and
        :math:`\sigma_\varepsilon` in [0, 1e100].
    weight_decay : float or array_like
        :math:`\lambda \ge 0` of the sum-normalised loss; an array broadcasts against ``steps`` (e.g. a
        :math:`\lambda \times k` grid, Fig 4.5c).
    learning_rate : float or (float, float)
        :math:`\eta > 0` (default 1/4, the analytic mode); a pair (fast, slow) gives each group its own
        :math:`\eta_i`, as the authors' Fig 4.3 code does (fast :math:`\lambda_\mathrm{eff} = 2/k`, slow :math:`4/k`:
        ``learning_rate=(0.5, 0.25)``).
    per_group_learning_rate : bool
        Train group :math:`i` at :math:`\eta_i/\sigma_i^2` (preconditioning, derived in this project): both groups
        then learn on the fast scale.
    freeze_fast_at : float, optional
        Hold :math:`a_1` at its value at this step (Fig 4.1's single-feature curves).
    freeze_slow_at : float, optional
        Hold :math:`a_2` at its value at this step (Fig 4.1's single-feature curves).
    c_overlap : {"other", "own"}
        The corrected :math:`c_i` with :math:`R_j` (default) or the printed one with :math:`R_i`.

    Returns
    -------
    OrderParameterCurve
        steps, R, Q, generalization_error (noiseless test, :math:`\frac{1}{2}(1 - 2R + Q)`),
        noisy_generalization_error (:math:`+\frac{1}{2}\sigma_\varepsilon^2`), R1, R2, Q1, Q2, arrays of the shape of
        ``steps`` (broadcast against ``weight_decay``).

    Examples
    --------
    >>> from dynamics.double_descent import TeacherStudentProblem
    >>> r = bipartite_theory([0.0, np.inf], TeacherStudentProblem(120, 100, 80, 40.0, noise_std=0.2))
    >>> [round(float(x), 12) for x in r.generalization_error], round(float(r.noisy_generalization_error[1]), 12)
    ([0.5, 0.1], 0.12)
    >>> bipartite_theory(1.0, TeacherStudentProblem(300.5, 100, 70, 30.0))
    Traceback (most recent call last):
    ...
    ValueError: n_samples must be an integer >= 1, got 300.5
    """
    steps = require_times("steps", steps)
    problem = require_problem(problem)
    n, d, p, kappa = require_bipartite_sizes(problem.n_samples, problem.n_features, problem.n_fast, problem.kappa)
    noise_std = require_noise_std(problem.noise_std)
    require_choice("c_overlap", c_overlap, ("other", "own"))
    roots = _roots(steps, n, d, p, kappa, weight_decay, learning_rate, per_group_learning_rate)
    a = [roots.a1, roots.a2]
    for group, (name, when) in enumerate((("freeze_fast_at", freeze_fast_at), ("freeze_slow_at", freeze_slow_at))):
        if when is not None:
            when = require_times(name, when)
            if when.ndim:
                raise ValueError(f"{name} must be a scalar step, got shape {when.shape}")
            held = _roots(when, n, d, p, kappa, weight_decay, learning_rate, per_group_learning_rate)[1 + group]
            a[group] = np.broadcast_to(held, a[group].shape)
    return _from_roots(np.stack(np.broadcast_arrays(*a)), n, d, p, noise_std, c_overlap, steps=steps)


def _root_series(alpha, lam):
    """The larger root for λ ≫ 1 from its expansion a = s − Σ_k C_{k−1} α^k / s^{2k−1} (C: Catalan numbers),
    s = 1 + α + λ: an independent route to the root, summed to round-off (elementwise in λ)."""
    s = 1.0 + alpha + np.asarray(lam, dtype=float)
    a, catalan, term = s.copy(), 1.0, alpha / s
    for k in range(1, 200):
        a -= catalan * term
        term = term * (alpha / (s * s))
        catalan *= 2.0 * (2 * k - 1) / (k + 1)
        if np.all(catalan * term < 1e-18 * s):
            break
    return a


# The ODE conserves a² − (1 + α + λ̃)a + α, so an error δ made where λ̃ = L reaches the end as about δ·2L/(α − 1):
# start where λ̃ = _ODE_START, from the series, to keep that amplification below 1e3.
_ODE_START = 20.0


def bipartite_theory_ode(steps: ArrayLike, problem: TeacherStudentProblem, weight_decay: float = 0.0,
                         learning_rate: Union[float, Tuple[float, float]] = ANALYTIC_LEARNING_RATE,
                         per_group_learning_rate: bool = False, rtol: float = 1e-13) -> OrderParameterCurve:
    r"""The bipartite theory with :math:`a_i(k)` from the log-time ODE of Eq 4.2.13 (derived in this project),
    integrated by the numba DOP853 solver: an independent route to :func:`~dynamics.double_descent.bipartite_theory`.

    Parameters
    ----------
    steps : array_like
        1-D, finite, > 0 and strictly increasing GD steps.
    problem : TeacherStudentProblem
        As in :func:`~dynamics.double_descent.bipartite_theory` (:math:`n > d`).
    weight_decay : float
        :math:`\lambda \ge 0` (a scalar).
    learning_rate : float or (float, float)
        As in :func:`~dynamics.double_descent.bipartite_theory`.
    per_group_learning_rate : bool
        As in :func:`~dynamics.double_descent.bipartite_theory`.
    rtol : float
        Relative tolerance of the solver, in [1e-14, 1e-3].

    Returns
    -------
    OrderParameterCurve
        As :func:`~dynamics.double_descent.bipartite_theory`. Each group's ODE starts where its
        :math:`\tilde\lambda_i = 20`, from the series of the root (which also gives :math:`a_i` at earlier steps).

    Examples
    --------
    >>> from dynamics.double_descent import TeacherStudentProblem
    >>> k, problem = np.logspace(0, 4, 5), TeacherStudentProblem(110, 100, 70, 30.0)
    >>> ode = bipartite_theory_ode(k, problem, rtol=1e-10)
    >>> bool(np.allclose(ode.generalization_error, bipartite_theory(k, problem).generalization_error, atol=1e-7))
    True
    """
    steps = require_output_times("steps", steps, positive=True, strictly_increasing=True)
    problem = require_problem(problem)
    n, d, p, kappa = require_bipartite_sizes(problem.n_samples, problem.n_features, problem.n_fast, problem.kappa)
    noise_std = require_noise_std(problem.noise_std)
    weight_decay = require_positive("weight_decay", weight_decay, allow_zero=True)
    rtol = require_in_range("rtol", rtol, 1e-14, 1e-3)
    alpha, sizes, sigma2, etas = _group_setup(n, d, p, kappa, learning_rate, per_group_learning_rate)
    lam_inf = (d / sizes) * weight_decay / sigma2
    rate = (d / sizes) / (etas * sigma2)          # λ̃_i(k) = λ̃_i(∞) + rate_i / k
    roots = []
    for i in range(2):
        lam_k = lam_inf[i] + rate[i] / steps
        late = lam_k < _ODE_START
        a = np.empty_like(steps)
        a[~late] = _root_series(alpha[i], lam_k[~late])
        if np.any(late):
            k0 = rate[i] / (_ODE_START - lam_inf[i])
            params = np.array([alpha[i], lam_inf[i], rate[i]])
            a0 = np.array([_root_series(alpha[i], _ODE_START)])
            sol = solve_ode(log_time_rhs, (np.log(k0), np.log(steps[-1]) + 1e-12), a0, t_eval=np.log(steps[late]),
                            params=params, options=OdeOptions(method="dop853", rtol=rtol, atol=rtol * 1e-3)).check()
            a[late] = sol.y[:, 0]
        roots.append(a)
    return _from_roots(np.stack(roots), n, d, p, noise_std, "other", steps=steps)


@fill_doc
def phase_points(n_samples: int, n_features: int, n_fast: int, noise_std: float = 0.0) -> PhasePoints:
    r"""Closed-form points A, B, C of the :math:`(R, Q)` plane (Fig 4.4; the closed forms are derived in this
    project), with :math:`P = p/d` and :math:`\sigma_1 = 1`.

    A is the Bayes-optimal first minimum (:math:`\kappa \to \infty`,
    :math:`\tilde\lambda_1^* = (1 - P + \sigma^2)/P`), B the :math:`\kappa \to \infty` plateau (:math:`R_B = P`,
    :math:`Q_B = P + (1 - P + \sigma^2) p/(n - p)`), C the :math:`k \to \infty` limit for finite :math:`\kappa`
    (:math:`R_C = 1`, :math:`Q_C = 1 + \sigma^2 d/(n - d)`).

    Parameters
    ----------
    %(n_samples)s
    %(n_features)s
    %(n_fast)s
    noise_std : float
        :math:`\sigma_\varepsilon` in [0, 1e100].

    Returns
    -------
    PhasePoints
        A, B, C.

    Examples
    --------
    >>> pts = phase_points(150, 100, 60)
    >>> round(pts.B.generalization_error, 6), pts.C.R, round(pts.A.R - pts.A.Q, 12)
    (0.333333, 1.0, 0.0)
    """
    n, d, p, _ = require_bipartite_sizes(n_samples, n_features, n_fast, 1.0)
    noise_std = require_noise_std(noise_std)
    P, s2 = p / d, noise_std * noise_std
    lambda_eff = 1.0 - P + s2
    lam1 = lambda_eff / P
    alpha1 = n / p
    a = float(_stable_root(np.float64(alpha1), np.float64(lam1)))
    R_A = n / (a * d)
    # Q_A from the Case-1 overlap formula b·c with the slow group as noise: equal to R_A at the optimum.
    Q_A = alpha1 / (a * a - alpha1) * (1.0 + s2 - (2.0 / a - 1.0) * n / d)
    A = BayesPoint(R_A, Q_A, 0.5 * (1.0 - 2.0 * R_A + Q_A), lambda_eff, lam1)
    Q_B = P + (1.0 - P + s2) * p / (n - p)
    B = PhasePoint(P, Q_B, 0.5 * (1.0 - 2.0 * P + Q_B))
    Q_C = 1.0 + s2 * d / (n - d)
    C = PhasePoint(1.0, Q_C, 0.5 * (Q_C - 1.0))
    return PhasePoints(A, B, C)
