"""Gradient starvation (Pezeshki et al. 2021; the same article is Ch. 6 of Pezeshki (thesis)): the Legendre dual of
cross-entropy (Lemma 2, Eqs 19-28, Table 4) and its tangents (Fig 8), the exact (Eq 9) and approximate (Eq 10) dual
dynamics and their fixed points, the feature responses (Eq 11), the Lambert-W closed forms (Eqs 12-13), the
linearised fixed point of Lemma 1 (Eq 14), the Eq 15 coupling, Theorem 1's Jacobians (Eqs 36-38), the first-order
coupled responses and Theorem 2's derivative (Eqs 63-65), Spectral Decoupling (Eqs 17-18), primal gradient descent
in feature coordinates, the toy of Fig 6 (App. B.1) and the two-moons data of Fig 1 (App. B.2).

Equation numbers are those of Pezeshki et al. 2021; the thesis numbers the main-text equations 6.3.N (Eq 9 is
6.3.9) and the appendix equations .5.(N-18) (Eq 65 is .5.47). The theory note, docs/theory/starvation.md, states
every equation the package computes, the conventions, and the corrections the project made to the printed forms.

Names: ``weight_decay`` is λ of the L2 penalty (λ/2)‖θ‖² (Eq 5); ``output_penalty`` is a of Spectral
Decoupling's (a/2)‖ŷ‖² (Eq 17); functions that describe either take exactly one of the two. ``t`` is
dual-flow time (η = 1), ``steps``/``n_steps`` count gradient-descent steps. The torch simulations of
the same set-ups are in the optional module :mod:`dynamics.starvation.torch_training` (not imported here). An
experiment's trainer takes its settings as one configuration object (``TwoMoonsConfig``, ``ToyTrainingConfig``,
``MoonsRegularisersConfig``, ``MoonsMarginsConfig``, ``ColouredShapesConfig``), each with ``source()``, the authors' settings, and ``ci()``,
the size the claims run on CPU.

Examples
--------
>>> import numpy as np
>>> from dynamics import starvation as gs
>>> # Gradient starvation: a stronger feature 1 lowers the weak feature 2's response (coupling δ = 0.5)
>>> U = gs.coupling_matrix(0.5)
>>> [round(float(gs.feature_response(U, [s1, 2.0], 0.01)[1]), 4) for s1 in (3.0, 6.0)]
[1.5831, 1.1853]
>>> gs.sd_fixed_point(U, 0.01).z.round(4)                  # spectral decoupling: independent of s
array([4.5889, 1.2296])
"""
from dynamics.numerics import lambertw

from ._duals import LOSSES, binary_entropy, dual_maximiser, dual_objective, loss_tangent, primal_loss
from ._dynamics import (DUAL_ODE_OPTIONS, dual_gd, dual_params, features, integrate_dual, jacobian,
                        learning_rate_bound, primal_gd_theta, primal_gd_z, primal_optimum)
from ._fixed_points import (coupling_matrix, dual_fixed_point, dual_matrix, exact_uncoupled_response,
                            feature_response, first_order_response, lambert_fixed_point, linearised_fixed_point,
                            response_derivative, sd_fixed_point, sd_lambert_approx, sd_margin, starvation_map,
                            weak_response_derivative)
from ._kernels import dual_rhs
from ._results import (COLORED_MNIST_TABLE_2, COLOUR_SHAPE_METHODS, MOONS_RUNS, ColourShapeMethod, ColouredShapesConfig, Dataset, DualGDTrajectory, DualTrajectory, Features,
                       FixedPoint, LinearModel, LossTangent, MoonsMarginsConfig, MoonsRegularisersConfig, MoonsRun,
                       ParameterTrajectory, PrimalTrajectory, SpectralDecouplingPoint, ToyBatch, ToyConfiguration, ToyTrainingConfig,
                       ToyTrajectories, ToyTraining, TwoMoonsConfig, TwoMoonsTraining, WideNetComparison)
from ._setups import (TOY, approximation_gap, boundary_line_distance, boundary_points, coloured_shapes,
                      first_order_error, linearisation_error, make_moons, random_linear_model, toy_batch,
                      toy_trajectories, train_two_moons, two_moons)

__all__ = [
    # results (the torch layer's included)
    "Dataset", "DualGDTrajectory", "DualTrajectory", "Features", "FixedPoint", "LinearModel", "LossTangent",
    "MoonsRun", "ParameterTrajectory", "PrimalTrajectory", "SpectralDecouplingPoint", "ToyBatch", "ToyConfiguration",
    "ToyTrajectories", "ToyTraining", "TwoMoonsTraining", "WideNetComparison",
    # the experiments' configurations (the torch layer's included)
    "ColouredShapesConfig", "MoonsMarginsConfig", "MoonsRegularisersConfig", "ToyTrainingConfig", "TwoMoonsConfig",
    "COLORED_MNIST_TABLE_2", "COLOUR_SHAPE_METHODS", "ColourShapeMethod",
    # Legendre duals (Lemma 2, Table 4)
    "LOSSES", "binary_entropy", "dual_maximiser", "dual_objective", "loss_tangent", "primal_loss",
    # fixed points and closed forms
    "coupling_matrix", "dual_fixed_point", "dual_matrix", "exact_uncoupled_response", "feature_response",
    "first_order_response", "lambert_fixed_point", "lambertw", "linearised_fixed_point", "response_derivative",
    "sd_fixed_point", "sd_lambert_approx", "sd_margin", "starvation_map", "weak_response_derivative",
    # dynamics
    "DUAL_ODE_OPTIONS", "dual_gd", "dual_params", "dual_rhs", "features", "integrate_dual", "jacobian",
    "learning_rate_bound", "primal_gd_theta", "primal_gd_z", "primal_optimum",
    # set-ups: the sources' configurations, data and experiment drivers
    "MOONS_RUNS", "TOY", "approximation_gap", "first_order_error", "linearisation_error", "make_moons",
    "random_linear_model", "toy_batch", "toy_trajectories", "train_two_moons", "two_moons",
    # the torch experiments' data and measurements (numpy)
    "boundary_line_distance", "boundary_points", "coloured_shapes",
]
