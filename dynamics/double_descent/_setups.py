"""The reusable set-ups of the double-descent theory (Eqs 4.2.1–4.2.2, Assumption 4.2.1): the data
generators, the sources' named configurations and the experiment drivers that figures, claims, notebooks and
cross-checks share.

* :func:`~dynamics.double_descent.modulation_matrix`: F = U Σ Vᵀ with Σ = diag(1 × p, 1/κ × (d − p)) (Assumption 4.2.1)
  and U, V Haar (the authors' code) or identity (exact in distribution, derived in this project);
* :func:`~dynamics.double_descent.draw_teacher_student`: latent inputs Z with iid N(0, 1/d) entries (Eq 4.2.1 as
  corrected: the source's variance is garbled), teacher w with ‖w‖² = d (the project's convention, where the source
  prints ‖w‖ = 1; ``normalized_teacher=False`` gives the code's w ~ N(0, I)), labels y = Zw + σ_ε ε, student inputs
  X = ZF (Eq 4.2.2), optional noiseless test set;
* :func:`~dynamics.double_descent.q_penalty_schedule`: Fig 4.6's a_k = 0.6·log(1 + e^{−k/1000})/log 2 (the authors'
  code);
* the sources' configurations: :data:`~dynamics.double_descent.PHASE_DIAGRAM_SIZES` and
  :data:`~dynamics.double_descent.PHASE_DIAGRAM_KAPPAS` (Fig 4.4), :data:`~dynamics.double_descent.OUTPUT_PENALTY_SETUP`
  (Fig 4.6);
* the experiment drivers: :func:`~dynamics.double_descent.teacher_student_gd_runs` (GD on drawn designs against the
  exact theory of each design, Fig 4.3) and :func:`~dynamics.double_descent.output_penalty_runs` (exact GD with and
  without the decaying output penalty, Fig 4.6).
"""
from types import MappingProxyType
from typing import Optional, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import haar_orthogonal, require_bool, require_integer, require_positive, rng_from
from ._checks import require_noise_std, require_problem, require_simulation_sizes, require_step_record
from ._results import DesignRuns, Modulation, OutputPenaltyRuns, TeacherStudentData, TeacherStudentProblem
from ._simulation import test_error
from ._spectral import (design_order_parameters, gd_weights, inverse_max_eigenvalue_learning_rate,
                        scheduled_gd_order_parameters)
from ._docs import fill_doc

PHASE_DIAGRAM_SIZES = MappingProxyType(dict(n_samples=110, n_features=100, n_fast=70))
"""The sizes of the phase diagram, Fig 4.4 (n/d = 1.1, p/d = 0.7, σ_ε = 0): the configuration of the
double-descent, critical-κ and per-group learning-rate claims, at every κ."""

PHASE_DIAGRAM_KAPPAS = (1.0, 7.0, 12.0, 30.0, 100.0, 1e3, 1e5)
"""The condition numbers κ of Fig 4.4's trajectories (monotone up to κ ≈ 7, double descent from κ ≈ 12)."""

OUTPUT_PENALTY_SETUP = MappingProxyType(dict(n_samples=120, n_features=100, n_fast=70, kappa=30.0))
"""The teacher–student problem of Fig 4.6 (left), the decaying output (Q) penalty of Lemma 4.3.1 (the authors'
code; σ_ε = 0, λ = 0)."""


@fill_doc
def modulation_matrix(n_features: int, n_fast: int, kappa: float, haar: bool = True, n_seeds: int = 1, *,
                      seed: Optional[Union[int, np.random.Generator]] = None) -> Modulation:
    r"""A stack of ``n_seeds`` bipartite modulations :math:`F = U \Sigma V^\top` (Assumption 4.2.1;
    :math:`\sigma_1 = 1` on ``n_fast`` directions, :math:`\sigma_2 = 1/\kappa` on the other :math:`d - p`).

    Parameters
    ----------
    n_features : int
        :math:`d`, :math:`2 \le d \le 10^5`.
    n_fast : int
        :math:`p`, :math:`1 \le p \le d - 1`.
    %(kappa)s
    haar : bool
        Haar-random :math:`U` and :math:`V` (the authors' code) or :math:`U = V = I` (equal in distribution for the
        teacher–student problem: derived in this project).
    n_seeds : int
        Number of independent draws :math:`S \ge 1`.
    %(seed)s

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
    _, d, p, kappa = require_simulation_sizes(1, n_features, n_fast, kappa)
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


def draw_teacher_student(problem: TeacherStudentProblem, n_seeds: int = 1, *,
                         seed: Optional[Union[int, np.random.Generator]] = None, haar: bool = True,
                         normalized_teacher: bool = True, n_test: int = 0) -> TeacherStudentData:
    r"""Draw ``n_seeds`` independent teacher–student problems (Eqs 4.2.1–4.2.2, the authors' simulation protocol).

    Parameters
    ----------
    problem : TeacherStudentProblem
        :math:`n, d, p, \kappa` and :math:`\sigma_\varepsilon`
        (:class:`~dynamics.double_descent.TeacherStudentProblem`), with :math:`1 \le n \le 10^7`,
        :math:`2 \le d \le 10^5`, :math:`1 \le p \le d - 1`, :math:`\kappa` in [1, 1e100] and :math:`\sigma_\varepsilon`
        in [0, 1e100].
    n_seeds : int
        Number of independent draws :math:`S \ge 1`.
    seed : None, int or numpy.random.Generator
        Source of randomness; the same seed gives the same data.
    haar : bool
        Haar-random :math:`U` and :math:`V` of :math:`F`, or :math:`U = V = I` (as in
        :func:`~dynamics.double_descent.modulation_matrix`).
    normalized_teacher : bool
        :math:`\lVert w \rVert^2 = d` (the project's convention) or :math:`w \sim \mathcal{N}(0, I)` (the authors'
        code).
    n_test : int
        Number of noiseless test inputs per draw (0: none).

    Returns
    -------
    TeacherStudentData

    Examples
    --------
    >>> problem = TeacherStudentProblem(30, 20, 14, 10.0, noise_std=0.2)
    >>> data = draw_teacher_student(problem, n_seeds=2, seed=1, n_test=5)
    >>> data.X.shape, data.y.shape, data.Z_test.shape, bool(np.allclose((data.w ** 2).sum(-1), 20.0))
    ((2, 30, 20), (2, 30), (2, 5, 20), True)
    """
    problem = require_problem(problem)
    n, d, p, kappa = require_simulation_sizes(problem.n_samples, problem.n_features, problem.n_fast, problem.kappa)
    noise_std = require_noise_std(problem.noise_std)
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


def q_penalty_schedule(n_steps: int, strength: float = 0.6, decay: float = 1e-3) -> np.ndarray:
    r"""The decaying output-penalty schedule of Fig 4.6 (the authors' code):

    .. math::

        a_k = \mathrm{strength} \cdot \log(1 + e^{-\mathrm{decay} \cdot k}) / \log 2

    for :math:`k = 0, \ldots, \mathtt{n\_steps} - 1` (0.6 → 0.27 at :math:`k = 10^3` → 4e−5 at :math:`k = 10^4`).

    Parameters
    ----------
    n_steps : int
        Number of GD steps, 1 <= n_steps <= 1e8.
    strength : float
        :math:`a_0 \ge 0`.
    decay : float
        Decay rate > 0 per step.

    Returns
    -------
    ndarray
        Shape (n_steps,): :math:`a_k` is the output penalty of step :math:`k + 1`.

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


def teacher_student_gd_runs(steps: ArrayLike, problem: TeacherStudentProblem, n_seeds: int = 1, *,
                            seed: Optional[Union[int, np.random.Generator]] = None,
                            n_test: int = 1000) -> DesignRuns:
    r"""GD on ``n_seeds`` drawn teacher–student designs against the exact theory of each design (Fig 4.3 left; the
    authors' extra_experiments/emp_vs_analytic.png): closed-form GD from :math:`\hat w_0 = 0` at
    :math:`\eta = 1/\lambda_\mathrm{max}` per design
    (:func:`~dynamics.double_descent.inverse_max_eigenvalue_learning_rate`, the authors' code), its test error on a
    noiseless test set, and the teacher-averaged trace formulas (Eqs 4.2.9–4.2.10) at the same designs and :math:`\eta`.

    Parameters
    ----------
    steps : float or array_like
        GD steps k >= 0, shape (T,) (real values interpolate; inf is the fixed point).
    problem : TeacherStudentProblem
        As in :func:`~dynamics.double_descent.draw_teacher_student`.
    n_seeds, seed
        As in :func:`~dynamics.double_descent.draw_teacher_student` (Haar F, normalised teachers).
    n_test : int
        Noiseless test inputs per design, >= 1 (0 is a ``ValueError``: the test error needs a test set).

    Returns
    -------
    DesignRuns
        data, steps, learning_rates (S,), test_errors (S, T), trace_errors (S, T).

    Examples
    --------
    >>> problem = TeacherStudentProblem(45, 30, 20, 10.0)
    >>> runs = teacher_student_gd_runs([0.0, 10.0, np.inf], problem, n_seeds=2, seed=3, n_test=2000)
    >>> runs.trace_errors[:, 0].tolist(), bool(np.all(runs.trace_errors[:, -1] < 1e-12))
    ([0.5, 0.5], True)
    """
    data = draw_teacher_student(problem, n_seeds, seed=seed, n_test=n_test)
    test_errors = test_error(gd_weights(data.X, data.y, steps), data)
    trace = design_order_parameters(data, steps)
    learning_rates = np.atleast_1d(inverse_max_eigenvalue_learning_rate(data.X))
    return DesignRuns(data, trace.steps, learning_rates, test_errors, trace.generalization_error)


def output_penalty_runs(steps: ArrayLike, n_samples: int, n_features: int, n_fast: int, kappa: float,
                        n_seeds: int = 1, *,
                        seed: Optional[Union[int, np.random.Generator]] = None) -> OutputPenaltyRuns:
    r"""Exact GD (the teacher-averaged trace formulas, Eqs 4.2.9–4.2.10, at :math:`\eta = 1/\lambda_\mathrm{max}`) on
    ``n_seeds`` drawn designs, without and with the decaying output penalty
    :math:`\frac{a_k}{2}\lVert X \hat w \rVert^2` of Lemma 4.3.1 on the authors' schedule
    :func:`~dynamics.double_descent.q_penalty_schedule` (Fig 4.6 left: the penalty diminishes the peak and leaves the
    final error alone).

    Parameters
    ----------
    steps : array_like of int
        Sorted whole GD steps >= 0 at which the errors are recorded, shape (T,).
    n_samples, n_features, n_fast, kappa, n_seeds, seed
        As in :func:`~dynamics.double_descent.draw_teacher_student` (:math:`\sigma_\varepsilon = 0`, Haar :math:`F`,
        normalised teachers).

    Returns
    -------
    OutputPenaltyRuns
        data, steps, schedule (max(steps[-1], 1) values), without (S, T), with_penalty (S, T).

    Examples
    --------
    >>> runs = output_penalty_runs([0, 100, 10_000], 45, 30, 20, 10.0, n_seeds=2, seed=3)
    >>> runs.without[:, 0].tolist(), bool(np.allclose(runs.with_penalty[:, -1], runs.without[:, -1], atol=1e-3))
    ([0.5, 0.5], True)
    """
    steps = require_step_record(steps)
    schedule = q_penalty_schedule(max(int(steps[-1]), 1))
    data = draw_teacher_student(TeacherStudentProblem(n_samples, n_features, n_fast, kappa), n_seeds, seed=seed)
    without = design_order_parameters(data, steps).generalization_error
    with_penalty = np.stack([scheduled_gd_order_parameters(data.modulation.draw(i), data.X[i], steps, schedule)
                             .generalization_error for i in range(data.X.shape[0])])
    return OutputPenaltyRuns(data, steps, schedule, without, with_penalty)
