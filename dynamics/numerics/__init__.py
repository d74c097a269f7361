"""The numerics core shared by every theory: ODE integrators (explicit Runge–Kutta pairs and a stiff
Rosenbrock method, in numba), real Lambert W, normal and binomial tails in stable forms, the
Marchenko–Pastur law and its quadrature, small dense linear algebra for compiled loops, one BLAS thread for dense
routines on small matrices, damped Newton for strictly concave objectives, Haar random
orthogonal matrices, and the argument checks every public function uses.

Theory packages import from here and from nowhere else in ``dynamics``. Kernels compile on first use
and are cached on disk (see ``dynamics.warmup``). The reference ODE problems used by the claims,
figures and benchmarks live in ``dynamics.numerics.reference_problems``, outside this namespace.
"""
from . import _compile  # noqa: F401  (the first-compile notice)
from .cache import cache_dir, disk_cache
from .lambertw import INV_E_HI, OMEGA, lambertw, lambertw_kernel
from .linalg import cholesky_solve, lu_factor, lu_solve, nearest_orthogonal
from .newton import (NewtonFunctions, NewtonOptions, NewtonResult, newton_functions, newton_maximise,
                     newton_maximise_kernel)
from .marchenko_pastur import (MPEdges, Quadrature, mp_atom, mp_cdf, mp_density, mp_edges, mp_integrate,
                               mp_quadrature)
from .ode import (DOP853, DOPRI5, JAC_SIGNATURE, METHODS, RHS_SIGNATURE, RK4, BatchOdeResult, IntegrationError,
                  OdeOptions, OdeResult, compiled_function, integrate, integrate_rosenbrock, solve_ode, solve_ode_batch)
from .random import haar_orthogonal, seed_streams
from .threads import SMALL_DENSE_DIMENSION, blas_threads_for_size, one_blas_thread_when_small, one_thread
from .special import (binom_cdf, binom_sf, log_binom_pmf, log_binom_pmf_kernel, log_binom_sf, log_binom_sf_kernel,
                      normal_cdf, normal_cdf_kernel, normal_logcdf, normal_logcdf_kernel, normal_pdf,
                      normal_pdf_kernel, normal_ppf, normal_ppf_kernel, normal_sf, sigmoid, sigmoid_kernel)
from .validation import (as_finite_array, as_float, format_value, require_array_in_range, require_betas, require_bool,
                         require_choice, require_finite_product, require_finite_result, require_in_range,
                         require_integer, require_of_type, require_orthogonal, require_output_times,
                         require_positive, require_same_length, require_shape, require_times, rng_from, scalar_or_array)

__all__ = [
    # ODEs
    "solve_ode", "solve_ode_batch", "OdeOptions", "OdeResult", "BatchOdeResult", "IntegrationError", "METHODS",
    "integrate", "integrate_rosenbrock",
    "compiled_function", "RHS_SIGNATURE", "JAC_SIGNATURE", "DOPRI5", "DOP853", "RK4",
    # special functions
    "lambertw", "lambertw_kernel", "INV_E_HI", "OMEGA",
    "normal_pdf", "normal_cdf", "normal_sf", "normal_logcdf", "normal_ppf",
    "normal_pdf_kernel", "normal_cdf_kernel", "normal_logcdf_kernel", "normal_ppf_kernel", "sigmoid", "sigmoid_kernel",
    "log_binom_pmf", "log_binom_sf", "binom_sf", "binom_cdf", "log_binom_pmf_kernel", "log_binom_sf_kernel",
    # Marchenko–Pastur
    "mp_edges", "mp_atom", "mp_density", "mp_cdf", "mp_quadrature", "mp_integrate", "MPEdges", "Quadrature",
    # damped Newton for strictly concave objectives
    "newton_maximise", "newton_maximise_kernel", "newton_functions", "NewtonFunctions", "NewtonOptions",
    "NewtonResult",
    # linear algebra, random numbers, the disk cache of expensive results
    "cholesky_solve", "lu_factor", "lu_solve", "nearest_orthogonal", "haar_orthogonal", "disk_cache", "cache_dir",
    "seed_streams",
    # the thread policy of dense routines on small matrices
    "SMALL_DENSE_DIMENSION", "blas_threads_for_size", "one_blas_thread_when_small", "one_thread",
    # argument checks
    "as_finite_array", "as_float", "format_value", "require_array_in_range", "require_betas", "require_bool", "require_choice",
    "require_finite_product", "require_finite_result", "require_in_range", "require_integer", "require_of_type", "require_orthogonal",
    "require_output_times", "require_positive", "require_same_length", "require_shape", "require_times", "rng_from",
    "scalar_or_array",
]
