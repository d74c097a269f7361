"""Gradient starvation (Pezeshki et al. 2021; spec/starvation.md): the Legendre dual of cross-entropy,
the exact (Eq 9 / 6.3.9) and approximate (Eq 10 / 6.3.10) dual dynamics and their fixed points, the
feature responses (Eq 11 / 6.3.11), the Lambert-W closed forms (Eqs 12-13 / 6.3.12-13), Lemma 1
(Eq 14 / 6.3.14), the first-order coupled responses and Theorem 2's derivative (Eqs 63-65 /
.5.45-.5.47), Spectral Decoupling (Eqs 17-18 / 6.3.17-18), primal gradient descent in feature
coordinates, and the two-moons data of Fig 1.
"""
from dynamics.numerics import lambertw

from ._duals import LOSSES, binary_entropy, dual_maximiser, dual_objective, primal_loss
from ._dynamics import (dual_gd, dual_params, dual_rhs, features, integrate_dual, jacobian, primal_gd_theta,
                        primal_gd_z, primal_optimum)
from ._fixed_points import (coupling_matrix, dual_fixed_point, dual_matrix, dz2_ds1sq, exact_uncoupled_response,
                            feature_response, first_order_response, lambert_fixed_point, lemma1_fixed_point,
                            sd_fixed_point, sd_lambert_approx, sd_margin, starvation_map)
from ._moons import make_moons, two_moons

__all__ = ["LOSSES", "binary_entropy", "coupling_matrix", "dual_fixed_point", "dual_gd", "dual_matrix",
           "dual_maximiser", "dual_objective", "dual_params", "dual_rhs", "dz2_ds1sq", "exact_uncoupled_response",
           "feature_response", "features", "first_order_response", "integrate_dual", "jacobian", "lambert_fixed_point",
           "lambertw", "lemma1_fixed_point", "make_moons", "primal_gd_theta", "primal_gd_z", "primal_loss",
           "primal_optimum", "sd_fixed_point", "sd_lambert_approx", "sd_margin", "starvation_map", "two_moons"]
