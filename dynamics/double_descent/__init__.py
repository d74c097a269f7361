"""Epoch-wise double descent from multi-scale features: the teacher–student R/Q theory of Pezeshki et al. 2022
(M. Pezeshki, A. Mitra, Y. Bengio, G. Lajoie, ICML 2022), reprinted as Chapter 4 of Pezeshki (thesis), whose equation,
figure and appendix numbers (Eq 4.2.x, Fig 4.x, App. .2.x) are cited throughout. The theory note,
``docs/theory/double_descent.md``, states the equations, the project's conventions and the corrections it made.

* Order parameters R, Q and the generalisation error L_G = ½(1 − 2R + Q), Eqs 4.2.5–4.2.7
  (:func:`~dynamics.double_descent.generalization_error`).
* The teacher–student problem (n, d, p, κ, σ_ε) as one object,
  :class:`~dynamics.double_descent.TeacherStudentProblem`, which the closed forms and the simulations take.
* Approximate bipartite closed form, Eqs 4.2.11–4.2.16 (:func:`~dynamics.double_descent.bipartite_theory`), its log-time
  ODE (:func:`~dynamics.double_descent.bipartite_theory_ode`) and the phase-plane points A, B, C of Fig 4.4
  (:func:`~dynamics.double_descent.phase_points`).
* Exact finite-d GD / gradient flow, Eqs 4.2.8–4.2.10 and .2.12–.2.20
  (:func:`~dynamics.double_descent.exact_gd_order_parameters`, :func:`~dynamics.double_descent.design_order_parameters`,
  :func:`~dynamics.double_descent.gd_weights`, :func:`~dynamics.double_descent.scheduled_gd_order_parameters`,
  :func:`~dynamics.double_descent.scheduled_gd_weights`), the learning rate η = 1/λ_max of the authors' code
  (:func:`~dynamics.double_descent.inverse_max_eigenvalue_learning_rate`), and the exact large-d ridge oracle
  (:func:`~dynamics.double_descent.ridge_oracle`).
* Case 1 (F = I): the zero-temperature replica saddle point .2.33–.2.35 and its random-matrix equivalent.
* Simulation: explicit GD vectorised over draws (:func:`~dynamics.double_descent.iterate_gd`) with Lemma 4.3.1's output
  penalty and per-group learning rates, and the measured order parameters
  (:func:`~dynamics.double_descent.measure_order_parameters`).
* Curve shape: the interior extrema of a curve (:func:`~dynamics.double_descent.curve_extrema`), its largest rise and
  drop, and the first minimum, peak and second descent of an epoch-wise double-descent curve
  (:func:`~dynamics.double_descent.second_descent`).
* Set-ups: the teacher, modulation matrix F and data of Eqs 4.2.1–4.2.2
  (:func:`~dynamics.double_descent.draw_teacher_student`), Fig 4.6's penalty schedule, the sources' configurations
  (:data:`~dynamics.double_descent.PHASE_DIAGRAM_SIZES`, :data:`~dynamics.double_descent.OUTPUT_PENALTY_SETUP`) and the
  experiment drivers of Figs 4.3 and 4.6 (:func:`~dynamics.double_descent.teacher_student_gd_runs`,
  :func:`~dynamics.double_descent.output_penalty_runs`).

Time convention: ``steps`` counts GD steps of learning rate η (real values interpolate the gradient flow);
results along a time axis carry it as ``steps``. The analytic theory maps step k to the weight decay
λ_eff = λ + 1/(ηk) (:func:`~dynamics.double_descent.effective_weight_decay`); the authors' analytic mode is η = 1/4
(:data:`~dynamics.double_descent.ANALYTIC_LEARNING_RATE`), with curves plotted at k + 1
(:func:`~dynamics.double_descent.analytic_steps`).

The torch simulations of the same set-ups live in :mod:`dynamics.double_descent.torch_training` (optional;
not imported here).

Examples
--------
>>> import numpy as np
>>> from dynamics import double_descent as dd
>>> # Epoch-wise double descent: fast features (n_fast = 700 of d = 1000) and slow ones, κ = 100
>>> problem = dd.TeacherStudentProblem(n_samples=1100, n_features=1000, n_fast=700, kappa=100.0)
>>> curve = dd.bipartite_theory(np.geomspace(1, 1e8, 400), problem)
>>> extrema = dd.curve_extrema(curve.generalization_error, 1e-9)
>>> len(extrema.minima), len(extrema.maxima)                # one dip, one bump: two descents
(1, 1)
>>> points = dd.phase_points(1100, 1000, 700)
>>> round(points.A.generalization_error, 4), round(points.B.generalization_error, 4)
(0.2633, 0.4125)
"""
from ._bipartite import (ANALYTIC_LEARNING_RATE, analytic_steps, bipartite_from_roots, bipartite_roots,
                         bipartite_theory, bipartite_theory_ode, code_weight_decay_to_api, effective_weight_decay,
                         phase_points)
from ._curves import curve_extrema, largest_drop, largest_rise, second_descent
from ._order_parameters import generalization_error
from ._replica import mp_stieltjes, printed_root, replica_saddle_point, stable_root, stieltjes_order_parameters
from ._results import (BayesPoint, BipartiteRoots, DesignRuns, Extrema, GDSettings, Modulation, OrderParameterCurve,
                       OrderParameters, OutputPenaltyRuns, PhasePoint, PhasePoints, SaddlePoint, SecondDescent,
                       TeacherStudentData, TeacherStudentProblem, WeightTrajectory)
from ._ridge_oracle import ridge_oracle
from ._setups import (OUTPUT_PENALTY_SETUP, PHASE_DIAGRAM_KAPPAS, PHASE_DIAGRAM_SIZES, draw_teacher_student,
                      modulation_matrix, output_penalty_runs, q_penalty_schedule, teacher_student_gd_runs)
from ._simulation import iterate_gd, measure_order_parameters, test_error
from ._spectral import (design_order_parameters, exact_gd_order_parameters, gd_weights, gradient_flow_weights_ode,
                        inverse_max_eigenvalue_learning_rate, ridge_weights, scheduled_filter,
                        scheduled_gd_order_parameters, scheduled_gd_weights, spectral_filter)

__all__ = [
    # the teacher–student problem and the settings of exact GD on it
    "TeacherStudentProblem", "GDSettings",
    # order parameters
    "generalization_error",
    # approximate bipartite theory and its fixed points
    "bipartite_theory", "bipartite_theory_ode", "bipartite_roots", "bipartite_from_roots", "phase_points",
    "effective_weight_decay", "analytic_steps", "code_weight_decay_to_api", "ANALYTIC_LEARNING_RATE",
    # exact finite-d GD and the large-d ridge oracle
    "exact_gd_order_parameters", "design_order_parameters", "scheduled_gd_order_parameters", "gd_weights",
    "scheduled_gd_weights", "ridge_weights", "spectral_filter", "scheduled_filter", "gradient_flow_weights_ode",
    "inverse_max_eigenvalue_learning_rate", "ridge_oracle",
    # Case 1: replica saddle point and random-matrix theory
    "replica_saddle_point", "stieltjes_order_parameters", "mp_stieltjes", "stable_root", "printed_root",
    # simulation
    "iterate_gd", "measure_order_parameters", "test_error",
    # set-ups: data, the sources' configurations, experiment drivers
    "modulation_matrix", "draw_teacher_student", "q_penalty_schedule", "PHASE_DIAGRAM_SIZES",
    "PHASE_DIAGRAM_KAPPAS", "OUTPUT_PENALTY_SETUP", "teacher_student_gd_runs", "output_penalty_runs",
    # curve shape
    "curve_extrema", "largest_rise", "largest_drop", "second_descent",
    # results
    "OrderParameters", "OrderParameterCurve", "BipartiteRoots", "PhasePoint", "BayesPoint", "PhasePoints",
    "SaddlePoint", "Modulation", "TeacherStudentData", "WeightTrajectory", "DesignRuns", "OutputPenaltyRuns",
    "Extrema", "SecondDescent",
]
