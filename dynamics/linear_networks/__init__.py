"""Linear networks: mode learning (Saxe et al. 2014) and generalization dynamics (Advani & Saxe 2017).

Sources: Saxe et al. 2014 and Advani & Saxe 2017, as reviewed in Pezeshki (thesis), Ch. 2: Sec. 2.2, Eqs
(2.2.2)–(2.2.22), and Sec. 2.3, Eqs (2.3.1)–(2.3.30). The theory note, docs/theory/linear_networks.md, states every
equation the package implements, the conventions it chose and the correction it makes to the thesis.

Conventions, made explicit:

* **Time.** τ = 1 and t = k·η for gradient descent with learning rate η on the loss as written:
  (1/2)||y − W32 W21 X||_F² (2.2.2) and (1/2)||y − wX||² for the student, whose flow (2.3.5) absorbs
  the 2 of (2.3.4) into τ. A loss scaled by c gives t = c·η·k (``gd_flow_time``); e.g. torch's
  ``MSELoss(reduction="mean")`` over n entries is c = 2/n. Every result depends on t only through t/τ.
  Results of simulators carry their time axis: ``t`` (flow time) or ``steps`` (GD step counts).
* **Whitening.** X Xᵀ = I with the *sum* over examples (2.2.7): orthonormal rows of X (``whiten``,
  ``whitened_inputs``). Saxe's mean convention (1/P) X Xᵀ = I corresponds to X/√P.
* **Mode strength.** u = a·b, u0 is the initial *mode strength* (u0 = a0² for a balanced per-layer
  weight a0), not a per-layer weight.
* **Standard deviations.** ``teacher_std`` σ_w̄, ``noise_std`` σ_ε and ``init_std`` σ_0 are standard
  deviations (the thesis's SNR 4 set-up σ_w̄² = 1, σ_ε² = 0.25 is teacher_std=1, noise_std=0.5).
* **Generalization error.** E_g = ||w̄ − w||²/N + σ_ε² (2.3.14, Advani–Saxe), test inputs x ~ N(0, I/N),
  noise floor included, no 1/2; E_t = ||y − wX||² (2.3.4), and ``generalization_curve`` returns E_t/P as
  its ``training_error``. The thesis variant (2.3.15) is kept only as ``generalization_error_thesis_variant``
  (the thesis's erratum: it does not match a Monte Carlo test error).
* **Mode bases.** ``decoupled_init``, ``mode_map``, ``mode_strengths`` and ``effective_initial_strength`` take the
  factors of a full SVD Σ31 = U S Vᵀ (U N3 × N3, V N1 × N1) or of a reduced one (the first k columns of each, as
  ``numpy.linalg.svd(sigma31, full_matrices=False)`` returns them, with V = Vhᵀ).

The torch simulations of the same set-ups are in :mod:`dynamics.linear_networks.torch_training` (optional;
not imported here).

Modules (private): ``_modes`` (one mode: closed forms and flows), ``_network`` (the two-weight-layer
network), ``_student`` (the Advani–Saxe student on one instance), ``_high_dim`` (its high-dimensional theory),
``_setups`` (tasks, inputs, initialisations, instances and the shared experiment drivers), ``_results`` (every
named result), ``_checks`` (argument checks), ``_kernels`` (numba kernels) and ``_integrate`` (the flows'
DOP853-then-rosenbrock23 integration).

Examples
--------
>>> import numpy as np
>>> from dynamics import linear_networks as ln
>>> # Saxe et al. 2014: a mode of strength s = 3 learned from u0 = 1e-3 by a two-layer linear network
>>> round(float(ln.mode_strength(2.0, 3.0, 1e-3)), 4)       # u(t) at t = 2τ, close to s
2.9457
>>> # Advani & Saxe: the early-stopping time of a student with α = n/d = 0.8, SNR 4
>>> round(ln.optimal_stopping_time(0.8, teacher_std=1.0, noise_std=0.5), 3)
2.435
"""
from ._high_dim import (SQRT_GROWTH_CONSTANT, asymptotic_errors, bayes_error, expected_mode_error,
                        gd_discretization_error, generalization_curve, mode_bayes_error, optimal_stopping_time,
                        per_mode_stopping_time)
from ._modes import (deep_chain_strength, deep_mode_curve, deep_mode_strength, half_learning_time, learning_time,
                     mode_strength, mode_strength_unbalanced, scalar_mode_flow, scalar_mode_velocity)
from ._network import (NETWORK_ODE_OPTIONS, conserved_gram, effective_initial_strength, first_crossing_time,
                       gd_flow_time, mode_map, mode_strengths, network_flow, network_gd, network_loss, whiten)
from ._results import (AsymptoticErrors, GeneralizationCurve, ModeTask, ModeVelocity, MonteCarloEstimate,
                       NetworkGDTrajectory, NetworkTrajectory, NetworkWeights, ScalarModeTrajectory, SignalNoiseStds,
                       StudentErrors, StudentFlowTrajectory, StudentGDTrajectory, StudentInstance, WhitenedTask)
from ._setups import (decoupled_init, draw_input_spectrum, draw_student, mode_task, random_init,
                      simulated_student_errors, stds_at_snr, student_instance, whitened_inputs, whitened_mode_task)
from ._student import (expected_generalization_error, finite_size_asymptotic_generalization_error,
                       finite_size_asymptotic_training_error, generalization_error,
                       generalization_error_thesis_variant, monte_carlo_generalization_error, student_flow,
                       student_gd, student_weights, student_weights_gd, training_error, training_error_direct)

__all__ = [
    # Part A: mode learning (Saxe)
    "mode_strength", "mode_strength_unbalanced", "half_learning_time", "learning_time", "scalar_mode_velocity",
    "scalar_mode_flow", "deep_mode_strength", "deep_mode_curve", "deep_chain_strength", "ModeVelocity",
    "ScalarModeTrajectory",
    # two-weight-layer network simulators
    "gd_flow_time", "whiten", "mode_map", "mode_strengths", "effective_initial_strength", "conserved_gram",
    "network_loss", "network_flow", "network_gd", "first_crossing_time", "NetworkTrajectory", "NetworkGDTrajectory",
    "NETWORK_ODE_OPTIONS",
    # their set-ups
    "whitened_inputs", "mode_task", "whitened_mode_task", "decoupled_init", "random_init", "ModeTask",
    "WhitenedTask", "NetworkWeights",
    # Part B: the Advani–Saxe student, per instance
    "student_weights", "student_weights_gd", "student_flow", "student_gd", "generalization_error",
    "generalization_error_thesis_variant", "monte_carlo_generalization_error", "training_error",
    "training_error_direct", "expected_generalization_error", "finite_size_asymptotic_generalization_error",
    "finite_size_asymptotic_training_error", "StudentFlowTrajectory", "StudentGDTrajectory", "MonteCarloEstimate",
    # its set-ups and simulations
    "StudentInstance", "student_instance", "draw_student", "draw_input_spectrum", "stds_at_snr",
    "simulated_student_errors", "SignalNoiseStds", "StudentErrors",
    # Part B: high-dimensional theory
    "generalization_curve", "asymptotic_errors", "optimal_stopping_time", "bayes_error", "expected_mode_error",
    "per_mode_stopping_time", "mode_bayes_error", "gd_discretization_error", "SQRT_GROWTH_CONSTANT",
    "GeneralizationCurve", "AsymptoticErrors",
]
