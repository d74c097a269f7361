"""Every named result of :mod:`dynamics.double_descent`, the torch layer's included (this module imports no torch and
nothing else of the package).

* order parameters (Eqs 4.2.6–4.2.7): :class:`~dynamics.double_descent.OrderParameters`,
  :class:`~dynamics.double_descent.OrderParameterCurve`;
* the approximate bipartite theory (Eqs 4.2.11–4.2.16, Fig 4.4): :class:`~dynamics.double_descent.BipartiteRoots`,
  :class:`~dynamics.double_descent.PhasePoint`, :class:`~dynamics.double_descent.BayesPoint`,
  :class:`~dynamics.double_descent.PhasePoints`;
* Case 1 (F = I, App. .2.33–.2.35): :class:`~dynamics.double_descent.SaddlePoint`;
* the teacher–student problem and the settings of exact GD on it (Eqs 4.2.1–4.2.4, 4.2.8–4.2.10):
  :class:`~dynamics.double_descent.TeacherStudentProblem`, :class:`~dynamics.double_descent.GDSettings`;
* the teacher–student data and GD runs (Eqs 4.2.1–4.2.4): :class:`~dynamics.double_descent.Modulation`,
  :class:`~dynamics.double_descent.TeacherStudentData`, :class:`~dynamics.double_descent.WeightTrajectory` (also what
  the torch trainer returns), and the experiment drivers' results :class:`~dynamics.double_descent.DesignRuns`,
  :class:`~dynamics.double_descent.OutputPenaltyRuns`;
* curve shape: :class:`~dynamics.double_descent.Extrema`, :class:`~dynamics.double_descent.SecondDescent`.
"""
from typing import NamedTuple, Optional, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import require_integer, require_positive


# ---------------------------------------------------------------------------------------------------- problem, settings
class TeacherStudentProblem(NamedTuple):
    """The teacher–student problem of Pezeshki et al. 2022 (ICML; Pezeshki (thesis), Ch. 4, Eqs 4.2.1–4.2.2 and
    Assumption 4.2.1): n noisy labels y = zᵀw + σ_ε ε of a linear teacher on latent inputs z ~ N(0, I/d), learnt by a
    linear student from the modulated inputs x = Fᵀz, F = UΣVᵀ with σ₁ = 1 on ``n_fast`` fast directions and
    σ₂ = 1/κ on the other d − p slow ones.

    One object for the closed forms (:func:`~dynamics.double_descent.bipartite_theory`,
    :func:`~dynamics.double_descent.bipartite_theory_ode`) and the simulations
    (:func:`~dynamics.double_descent.draw_teacher_student`, :func:`~dynamics.double_descent.teacher_student_gd_runs`).
    The fields are checked where they are used, each ``ValueError`` naming the field: the bipartite theory needs
    n > d (its decoupled formulas fail for n <= d), and the simulations allocate the arrays, so they cap d at 1e5 and
    n at 1e7. The sources' sizes are :data:`~dynamics.double_descent.PHASE_DIAGRAM_SIZES` (Fig 4.4) and
    :data:`~dynamics.double_descent.OUTPUT_PENALTY_SETUP` (Fig 4.6).

    Attributes
    ----------
    n_samples : int
        n, the number of training examples, >= 1 (> n_features for the bipartite theory).
    n_features : int
        d, the input dimension, >= 2.
    n_fast : int
        p, the size of the fast group (σ₁ = 1), 1 <= p <= d − 1.
    kappa : float
        κ = σ₁/σ₂, the ratio of the fast to the slow features' scale, in [1, 1e100].
    noise_std : float, default 0.0
        σ_ε, the standard deviation of the label noise, in [0, 1e100].

    Examples
    --------
    >>> from dynamics.double_descent import PHASE_DIAGRAM_SIZES, TeacherStudentProblem
    >>> problem = TeacherStudentProblem(**PHASE_DIAGRAM_SIZES, kappa=30.0)
    >>> problem
    TeacherStudentProblem(n_samples=110, n_features=100, n_fast=70, kappa=30.0, noise_std=0.0)
    >>> problem._replace(noise_std=0.2).noise_std
    0.2
    """

    n_samples: int
    n_features: int
    n_fast: int
    kappa: float
    noise_std: float = 0.0


class GDSettings(NamedTuple):
    """The settings of (exact) gradient descent on the teacher–student loss ½‖y − Xŵ‖² + (λ/2)‖ŵ‖² (Pezeshki et al.
    2022, Eqs 4.2.3–4.2.4 and App. .2.12–.2.20; the output penalty (a/2)‖Xŵ‖² of Lemma 4.3.1), from ŵ₀ = 0, as
    :func:`~dynamics.double_descent.exact_gd_order_parameters` takes them. The defaults are the authors' code's: η =
    1/λ_max, no weight decay, discrete GD, no penalty, no preconditioner. The fields are checked where they are used,
    each ``ValueError`` naming the field.

    Attributes
    ----------
    learning_rate : float, optional
        η > 0; discrete GD needs η((1 + a)λ_max + λ) < 2. None (default): 1/(λ_max + λ), the authors' code
        (:func:`~dynamics.double_descent.inverse_max_eigenvalue_learning_rate`).
    weight_decay : float, default 0.0
        λ >= 0.
    dynamics : {"gd", "flow"}, default "gd"
        Discrete GD, whose filter is D = 1 − (1 − ηr)^k, or gradient flow, D = 1 − exp(−ηrk), in GD steps k.
    output_penalty : float, default 0.0
        The constant a >= 0 of the output penalty (a/2)‖Xŵ‖² (Lemma 4.3.1).
    preconditioner : array_like of shape (d, d), optional
        M: the update ŵ ← ŵ − η MMᵀ∇L, invertible (condition number <= 1e12); per-group learning rates are
        ``F.preconditioner_factor`` of a :class:`~dynamics.double_descent.Modulation`. None (default): plain GD.

    Examples
    --------
    >>> from dynamics.double_descent import GDSettings
    >>> GDSettings()
    GDSettings(learning_rate=None, weight_decay=0.0, dynamics='gd', output_penalty=0.0, preconditioner=None)
    >>> GDSettings(learning_rate=0.01, dynamics="flow").dynamics
    'flow'
    """

    learning_rate: Optional[float] = None
    weight_decay: float = 0.0
    dynamics: str = "gd"
    output_penalty: float = 0.0
    preconditioner: Optional[Union[ArrayLike, np.ndarray]] = None


# ---------------------------------------------------------------------------------------------------- order parameters
class OrderParameters(NamedTuple):
    """Teacher–student overlaps and the generalisation error (Eqs 4.2.6–4.2.7), without a time axis.

    Every field is a float array of one common shape (that of the argument the result is evaluated over, e.g.
    ``weight_decay``). ``R1, R2, Q1, Q2`` are the fast and slow groups' parts (``None`` where the group split
    is not defined, e.g. for a general modulation matrix). ``generalization_error`` is ½(1 − 2R + Q)
    (noiseless test labels; for a single teacher draw ½(‖w‖²/d − 2R + Q)); ``noisy_generalization_error`` adds
    ½σ_ε² (noisy test labels, App. .2.9).

    Examples
    --------
    >>> from dynamics.double_descent import ridge_oracle
    >>> r = ridge_oracle(0.0, 110, 100, 70, 30.0)   # ridgeless, n > d: point C
    >>> r._fields[:3], round(float(r.R), 12), round(float(r.generalization_error), 12)
    (('R', 'Q', 'generalization_error'), 1.0, 0.0)
    """

    R: np.ndarray
    Q: np.ndarray
    generalization_error: np.ndarray
    noisy_generalization_error: np.ndarray
    R1: Optional[np.ndarray] = None
    R2: Optional[np.ndarray] = None
    Q1: Optional[np.ndarray] = None
    Q2: Optional[np.ndarray] = None


class OrderParameterCurve(NamedTuple):
    """:class:`~dynamics.double_descent.OrderParameters` along a time axis: ``steps`` (GD steps, real values interpolate
    the gradient flow; shape (T,) or the shape of the ``steps`` argument) and the fields of
    :class:`~dynamics.double_descent.OrderParameters`, each of the shape of ``steps`` (or of ``steps`` broadcast against
    ``weight_decay`` where that is an array; (S, T) for the S drawn designs of
    :func:`~dynamics.double_descent.design_order_parameters`).

    Examples
    --------
    >>> from dynamics.double_descent import TeacherStudentProblem, bipartite_theory
    >>> curve = bipartite_theory([0.0, 10.0], TeacherStudentProblem(110, 100, 70, 30.0))
    >>> curve.steps.tolist(), float(curve.generalization_error[0])
    ([0.0, 10.0], 0.5)
    """

    steps: np.ndarray
    R: np.ndarray
    Q: np.ndarray
    generalization_error: np.ndarray
    noisy_generalization_error: np.ndarray
    R1: Optional[np.ndarray] = None
    R2: Optional[np.ndarray] = None
    Q1: Optional[np.ndarray] = None
    Q2: Optional[np.ndarray] = None


# ---------------------------------------------------------------------------------------------------- bipartite theory
class BipartiteRoots(NamedTuple):
    """The roots a₁(k), a₂(k) of Eq 4.2.13 for the fast and slow groups along ``steps`` (arrays of the shape of
    ``steps``, broadcast against ``weight_decay``); a_i = inf where group i has not started learning.

    Examples
    --------
    >>> from dynamics.double_descent import bipartite_roots
    >>> bipartite_roots([0.0], 110, 100, 70, 30.0).a1.tolist()
    [inf]
    """

    steps: np.ndarray
    a1: np.ndarray
    a2: np.ndarray


class PhasePoint(NamedTuple):
    """A point of the (R, Q) plane and its generalisation error ½(1 − 2R + Q) (noiseless test; Fig 4.4's B and C).

    Examples
    --------
    >>> from dynamics.double_descent import phase_points
    >>> phase_points(110, 100, 70).C
    PhasePoint(R=1.0, Q=1.0, generalization_error=0.0)
    """

    R: float
    Q: float
    generalization_error: float


class BayesPoint(NamedTuple):
    """Point A, the Bayes-optimal first minimum: R = Q, L_G = ½(1 − R), the optimal effective weight decay
    λ_eff* = 1 − p/d + σ_ε² (σ₁ = 1) and the fast group's rescaled weight decay λ̃₁* = λ_eff*·d/p there
    (Fig 4.4's point A; the closed form, from App. .2.33–.2.35, is derived in this project).

    Examples
    --------
    >>> from dynamics.double_descent import phase_points
    >>> A = phase_points(110, 100, 70).A
    >>> round(A.effective_weight_decay, 12), abs(round(A.R - A.Q, 12))
    (0.3, 0.0)
    """

    R: float
    Q: float
    generalization_error: float
    effective_weight_decay: float
    rescaled_weight_decay: float

    # The default is ANALYTIC_LEARNING_RATE of dynamics.double_descent (this module imports no formula module;
    # tests/test_double_descent.py checks that the two agree).
    def steps_at(self, learning_rate: float = 0.25) -> float:
        """The GD step of A, k_A = 1/(η λ_eff*) (plotted at k_A + 1); η defaults to the analytic mode's
        1/4 (:data:`~dynamics.double_descent.ANALYTIC_LEARNING_RATE`).

        Examples
        --------
        >>> from dynamics.double_descent import phase_points
        >>> round(phase_points(110, 100, 70).A.steps_at(0.25), 6)
        13.333333
        """
        return 1.0 / (require_positive("learning_rate", learning_rate) * self.effective_weight_decay)


class PhasePoints(NamedTuple):
    """The closed-form points A (:class:`~dynamics.double_descent.BayesPoint`), B and C
    (:class:`~dynamics.double_descent.PhasePoint`) of the (R, Q) plane (Fig 4.4).

    Examples
    --------
    >>> from dynamics.double_descent import phase_points
    >>> phase_points(110, 100, 70)._fields
    ('A', 'B', 'C')
    """

    A: BayesPoint
    B: PhasePoint
    C: PhasePoint


# ---------------------------------------------------------------------------------------------------- Case 1
class SaddlePoint(NamedTuple):
    """Zero-temperature replica saddle point of Case 1 (arrays of the broadcast shape of alpha and weight_decay):
    the root ``a = 1 + 1/x``, the susceptibility ``x = β(Q₀ − Q)``, the overlaps ``R`` and ``Q`` and the
    generalisation error ½(T − 2R + Q) (App. .2.33–.2.36).

    Examples
    --------
    >>> from dynamics.double_descent import replica_saddle_point
    >>> sp = replica_saddle_point(2.0, 0.5)
    >>> round(float(sp.a - 1.0 - 1.0 / sp.susceptibility), 12)
    0.0
    """

    a: np.ndarray
    susceptibility: np.ndarray
    R: np.ndarray
    Q: np.ndarray
    generalization_error: np.ndarray


# ---------------------------------------------------------------------------------------------------- data and runs
class Modulation(NamedTuple):
    """The modulation matrix F = U diag(σ) Vᵀ (Eq 4.2.2): ``U``, ``V`` of shape (S, d, d) for a stack of S draws
    or (d, d) for one, ``singular_values`` σ of shape (d,), the first ``n_fast`` directions fast (σ = 1), the
    others slow (σ = 1/κ).

    Examples
    --------
    >>> from dynamics.double_descent import modulation_matrix
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
        """M = VΣ⁻¹: the update ŵ ← ŵ − η MMᵀ∇L has per-group learning rates η/σ_i² (P = VΣ⁻²Vᵀ; derived in this
        project)."""
        return self.V / self.singular_values

    @property
    def preconditioner(self) -> np.ndarray:
        """P = MMᵀ = VΣ⁻²Vᵀ, shape (..., d, d)."""
        M = self.preconditioner_factor
        return M @ np.swapaxes(M, -1, -2)

    def draw(self, index: int) -> "Modulation":
        """The modulation of draw ``index`` of a stack (U, V of shape (d, d)).

        Examples
        --------
        >>> from dynamics.double_descent import modulation_matrix
        >>> F = modulation_matrix(4, 2, 10.0, n_seeds=3, seed=0)
        >>> F.U.shape, F.draw(1).U.shape
        ((3, 4, 4), (4, 4))
        """
        if self.U.ndim == 2:
            raise ValueError("this modulation holds a single draw (U of shape (d, d)): there is no index to select")
        index = require_integer("index", index, 0, self.U.shape[0] - 1)
        return Modulation(self.U[index], self.singular_values, self.V[index], self.n_fast)


class TeacherStudentData(NamedTuple):
    """Draws of the teacher–student problem, each array with a leading axis of S draws: latent inputs ``Z`` and
    student inputs ``X = ZF`` (S, n, d), teachers ``w`` (S, d), ``label_noise`` and labels ``y`` (S, n), the
    noiseless test set ``Z_test`` (S, m, d) and ``y_test`` (S, m), the ``modulation`` and the label-noise
    standard deviation ``noise_std`` (Eqs 4.2.1–4.2.2).

    Examples
    --------
    >>> from dynamics.double_descent import TeacherStudentProblem, draw_teacher_student
    >>> data = draw_teacher_student(TeacherStudentProblem(12, 8, 4, 3.0, noise_std=0.1), seed=0)
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


class WeightTrajectory(NamedTuple):
    """Weights recorded during a GD run (Eq 4.2.4): ``steps`` (int, shape (T,)) and ``weights`` of shape (..., T, d).
    Also what the torch trainer (:mod:`dynamics.double_descent.torch_training`) returns, as numpy arrays.

    Examples
    --------
    >>> from dynamics.double_descent import iterate_gd
    >>> run = iterate_gd(np.eye(2), np.ones(2), [0, 5], 0.5)
    >>> run.steps.tolist(), run.weights.shape
    ([0, 5], (2, 2))
    """

    steps: np.ndarray
    weights: np.ndarray


class DesignRuns(NamedTuple):
    """GD on S drawn teacher–student designs against the exact theory of each design
    (:func:`~dynamics.double_descent.teacher_student_gd_runs`; Fig 4.3 and the authors' emp_vs_analytic.png):
    the ``data``, the GD ``steps`` (T,), the ``learning_rates`` η = 1/λ_max(XᵀX) of each design (S,), the GD
    students' ``test_errors`` (half the MSE on the noiseless test set, (S, T)) and the teacher-averaged
    ``trace_errors`` L_G of the trace formulas Eqs 4.2.9–4.2.10 at the same designs (S, T).

    Examples
    --------
    >>> from dynamics.double_descent import TeacherStudentProblem, teacher_student_gd_runs
    >>> runs = teacher_student_gd_runs([1.0, 100.0], TeacherStudentProblem(30, 20, 14, 10.0), n_seeds=2, seed=0,
    ...                                n_test=50)
    >>> runs.test_errors.shape, runs.trace_errors.shape, runs.learning_rates.shape
    ((2, 2), (2, 2), (2,))
    """

    data: TeacherStudentData
    steps: np.ndarray
    learning_rates: np.ndarray
    test_errors: np.ndarray
    trace_errors: np.ndarray


class OutputPenaltyRuns(NamedTuple):
    """Exact GD on S drawn designs with and without a decaying output penalty
    (:func:`~dynamics.double_descent.output_penalty_runs`; Fig 4.6 left, Lemma 4.3.1): the ``data``, the whole
    GD ``steps`` (T,), the penalty ``schedule`` a_k (one value per step), and the teacher-averaged L_G of each
    design ``without`` the penalty and ``with_penalty`` (S, T).

    Examples
    --------
    >>> from dynamics.double_descent import output_penalty_runs
    >>> runs = output_penalty_runs([0, 10, 100], 30, 20, 14, 10.0, n_seeds=2, seed=0)
    >>> runs.without.shape, runs.with_penalty.shape, runs.schedule.size
    ((2, 3), (2, 3), 100)
    """

    data: TeacherStudentData
    steps: np.ndarray
    schedule: np.ndarray
    without: np.ndarray
    with_penalty: np.ndarray


# ---------------------------------------------------------------------------------------------------- curve shape
class Extrema(NamedTuple):
    """Indices (int arrays, increasing) of the interior strict local minima and maxima of a sampled curve.

    Examples
    --------
    >>> from dynamics.double_descent import curve_extrema
    >>> curve_extrema([0.5, 0.2, 0.4, 0.1]).maxima.tolist()
    [2]
    """

    minima: np.ndarray
    maxima: np.ndarray


class SecondDescent(NamedTuple):
    """The first minimum, the peak and the second descent of an epoch-wise double-descent curve L(k), read off a
    sampled curve by :func:`~dynamics.double_descent.second_descent` (steps in the units of the grid it was given).

    * ``first_minimum_step``, ``first_minimum``: the first interior minimum (the early-stopping point; point A of
      Pezeshki (thesis), Fig 4.4, in the approximate theory at large κ);
    * ``peak_step``, ``peak``: the first interior maximum after it, and ``peak_height`` = peak − first minimum (how
      much the fast features overfit before the slow ones are learnt);
    * ``second_descent_step``: where L has come half-way down from the peak to ``second_minimum``, the lowest value
      reached at ``second_minimum_step`` before the curve turns up again or the grid ends;
    * ``recovery_step``: where L is back down at the first minimum's level, or None if it does not get there on the
      grid (with label noise the final error can stay above the first minimum).

    Examples
    --------
    >>> from dynamics.double_descent import second_descent
    >>> k = np.geomspace(1.0, 1e4, 9)
    >>> r = second_descent(k, [0.5, 0.3, 0.2, 0.3, 0.4, 0.3, 0.1, 0.05, 0.05])
    >>> r.first_minimum_step, r.peak_step, r.peak_height, r.second_minimum
    (10.0, 100.0, 0.2, 0.05)
    """

    first_minimum_step: float
    first_minimum: float
    peak_step: float
    peak: float
    peak_height: float
    second_descent_step: float
    second_minimum_step: float
    second_minimum: float
    recovery_step: Optional[float]
