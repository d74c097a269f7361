"""Epoch-wise double descent from multi-scale features: the teacher–student R/Q theory of
Pezeshki, Mitra, Bengio & Lajoie (ICML 2022), thesis Chapter 4 (seed 001_61c8f54ededf01e4.txt; spec/double_descent.md).

* Approximate bipartite closed form, Eqs 4.2.11–4.2.16 (:func:`bipartite_theory`), its log-time ODE
  (:func:`bipartite_theory_ode`) and the phase-plane points A, B, C (:func:`phase_points`).
* Exact finite-d GD / gradient flow, Eqs 4.2.8–4.2.10 and .2.12–.2.20 (:func:`exact_gd_order_parameters`,
  :func:`gd_weights`, :func:`scheduled_gd_order_parameters`), and the exact large-d ridge oracle (:func:`ridge_oracle`).
* Case 1 (F = I): the zero-temperature replica saddle point .2.33–.2.35 and its random-matrix equivalent.
* Simulation: teacher, modulation matrix F, data, explicit GD vectorised over draws; Lemma 4.3.1's output
  penalty and per-group learning rates.

Time convention: ``steps`` counts GD steps of learning rate η (real values interpolate the gradient flow);
results along a time axis carry it as ``steps``. The analytic theory maps step k to the weight decay
λ_eff = λ + 1/(ηk) (:func:`effective_weight_decay`); the authors' analytic mode is η = 1/4
(:data:`ANALYTIC_LEARNING_RATE`), with curves plotted at k + 1 (:func:`analytic_steps`).

The torch simulations of the same set-ups live in :mod:`dynamics.double_descent.torch_training` (optional;
not imported here).
"""
from ._bipartite import (ANALYTIC_LEARNING_RATE, BayesPoint, BipartiteRoots, PhasePoint, PhasePoints, analytic_steps,
                         bipartite_from_roots, bipartite_roots, bipartite_theory, bipartite_theory_ode,
                         code_weight_decay_to_api, effective_weight_decay, phase_points)
from ._common import OrderParameterCurve, OrderParameters
from ._curves import Extrema, curve_extrema, largest_drop, largest_rise
from ._replica import (SaddlePoint, mp_stieltjes, printed_root, replica_saddle_point, stable_root,
                       stieltjes_order_parameters)
from ._ridge_oracle import ridge_oracle
from ._simulation import (Modulation, TeacherStudentData, WeightTrajectory, draw_teacher_student, iterate_gd,
                          measure_order_parameters, modulation_matrix, q_penalty_schedule, test_error)
from ._spectral import (exact_gd_order_parameters, gd_weights, gradient_flow_weights_ode, ridge_weights,
                        scheduled_filter, scheduled_gd_order_parameters, spectral_filter)

__all__ = [
    # approximate bipartite theory and its fixed points
    "bipartite_theory", "bipartite_theory_ode", "bipartite_roots", "bipartite_from_roots", "phase_points",
    "effective_weight_decay", "analytic_steps", "code_weight_decay_to_api", "ANALYTIC_LEARNING_RATE",
    # exact finite-d GD and the large-d ridge oracle
    "exact_gd_order_parameters", "scheduled_gd_order_parameters", "gd_weights", "ridge_weights", "spectral_filter",
    "scheduled_filter", "gradient_flow_weights_ode", "ridge_oracle",
    # Case 1: replica saddle point and random-matrix theory
    "replica_saddle_point", "stieltjes_order_parameters", "mp_stieltjes", "stable_root", "printed_root",
    # simulation
    "modulation_matrix", "draw_teacher_student", "iterate_gd", "measure_order_parameters", "test_error",
    "q_penalty_schedule",
    # curve shape
    "curve_extrema", "largest_rise", "largest_drop",
    # results
    "OrderParameters", "OrderParameterCurve", "BipartiteRoots", "PhasePoint", "BayesPoint", "PhasePoints",
    "SaddlePoint", "Modulation", "TeacherStudentData", "WeightTrajectory", "Extrema",
]
