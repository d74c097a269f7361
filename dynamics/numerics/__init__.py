"""Shared numerical kernels: the numba ODE integrators, real Lambert W, normal and binomial helpers,
the Marchenko–Pastur law and its quadrature, and argument checking.

Theory packages import from here and from nowhere else in :mod:`dynamics`.
"""
from .lambertw import INV_E_HI, OMEGA, lambertw, lambertw_kernel
from .marchenko_pastur import mp_atom, mp_cdf, mp_density, mp_edges, mp_integrate, mp_quadrature
from .problems import (convergence_order, fixed_step_errors, givens_logistic_problem, givens_logistic_rhs, logistic_exact, logistic_rhs, rotated_logistic_problem,
                       rotated_logistic_rhs)
from .ode import (DOP853, DOPRI5, METHODS, RHS_SIGNATURE, RK4, CompiledRhs, IntegrationError, OdeResult,
                  compiled_rhs, integrate, solve_ode)
from .special import (binom_cdf, binom_sf, log_binom_pmf, log_binom_pmf_kernel, log_binom_sf,
                      log_binom_sf_kernel, normal_cdf, normal_cdf_kernel, normal_logcdf,
                      normal_logcdf_kernel, normal_pdf, normal_pdf_kernel, normal_ppf,
                      normal_ppf_kernel, normal_sf)
from .validation import (as_finite_array, as_float, require_array_in_range, require_choice,
                         require_in_range, require_integer, require_positive, require_times,
                         rng_from)

__all__ = [name for name in dir() if not name.startswith("_")]
