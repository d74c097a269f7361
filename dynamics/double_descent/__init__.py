"""Epoch-wise double descent from multi-scale features: the teacher–student R/Q theory of
Pezeshki, Mitra, Bengio & Lajoie (ICML 2022), thesis Chapter 4 (seed 001_61c8f54ededf01e4.txt; spec/double_descent.md).

* Approximate bipartite closed form, Eqs 4.2.11–4.2.16 (:func:`bipartite_theory`), its log-time ODE
  (:func:`bipartite_theory_ode`) and the phase-plane points A, B, C (:func:`phase_points`).
* Exact finite-d GD / gradient flow, Eqs 4.2.8–4.2.10 and .2.12–.2.20 (:func:`exact_gd_order_parameters`,
  :func:`gd_weights`, :func:`scheduled_gd_order_parameters`), and the exact large-d ridge oracle (:func:`ridge_oracle`).
* Case 1 (F = I): the zero-temperature replica saddle point .2.33–.2.35 and its RMT equivalent.
* Simulation: teacher, modulation matrix F, data, explicit GD vectorised over seeds; Lemma 4.3.1's Q penalty and
  per-group learning rates.

Time conventions: ``t`` is a number of GD steps with learning rate η. The analytic theory maps it to the ridge
λ_eff = λ + 1/(ηt) (:func:`effective_ridge`); the authors' analytic mode is η = 1/4 (:data:`ANALYTIC_ETA`), with
curves plotted at x = t + 1 (:func:`analytic_times`).
"""
from ._bipartite import (ANALYTIC_ETA, BayesPoint, PhasePoint, PhasePoints, analytic_times, bipartite_from_roots,
                         bipartite_roots, bipartite_theory, bipartite_theory_ode, code_ridge_to_api, effective_ridge,
                         log_time_rhs, phase_points)
from ._common import OrderParameters
from ._curves import Extrema, curve_extrema, largest_drop, largest_rise
from ._replica import (SaddlePoint, mp_stieltjes, printed_root, replica_saddle_point, stable_root,
                       stieltjes_order_parameters)
from ._ridge_oracle import ridge_oracle
from ._simulation import (Modulation, TeacherStudentData, draw_teacher_student, iterate_gd, measure_order_parameters,
                          modulation_matrix, q_penalty_schedule, test_error)
from ._spectral import (exact_gd_order_parameters, gd_weights, gradient_flow_rhs, gradient_flow_weights_ode,
                        ridge_weights, scheduled_filter, scheduled_gd_order_parameters, spectral_filter)

__all__ = [name for name in dir() if not name.startswith("_")]
