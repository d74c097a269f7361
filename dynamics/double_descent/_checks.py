"""The argument checks of :mod:`dynamics.double_descent` (the general ones come from :mod:`dynamics.numerics`).

Conventions (the theory note, ``docs/theory/double_descent.md``): teacher ``y* = zᵀw`` with ``z ~ N(0, I/d)`` and
``‖w‖² = d`` (Eq 4.2.1 as corrected); student input
``x = Fᵀz`` (Eq 4.2.2); bipartite ``F = U Σ Vᵀ`` with ``σ₁ = 1`` on the ``n_fast`` fast directions and ``σ₂ = 1/κ``
on the others (Assumption 4.2.1). Each check returns its argument as the type the formulas use, or raises a
``ValueError`` (``TypeError`` for a wrong kind of object) that names the parameter.
"""
from types import SimpleNamespace

import numpy as np

from dynamics.numerics import (as_finite_array, require_of_type, require_array_in_range, require_choice, require_in_range,
                               require_integer, require_output_times, require_positive, require_times)
from ._results import GDSettings, Modulation, TeacherStudentData, TeacherStudentProblem

# κ and σ_ε enter squared (σ₂² = 1/κ², σ_ε²): these bounds keep both squares far inside float64 (1e±200),
# so that the slow group's scale never underflows to 0 and the noise power never overflows.
MAX_KAPPA = 1e100
MAX_NOISE_STD = 1e100
_KAPPA_WHY = "sigma_2^2 = 1/kappa^2 must stay inside float64"
_NOISE_WHY = "noise_std^2 must stay inside float64"

#: The time evolutions of the exact finite-d theory: discrete GD or gradient flow.
GD_DYNAMICS = ("gd", "flow")


# ---------------------------------------------------------------------------------------------------- sizes, κ, σ_ε
def require_noise_std(noise_std) -> float:
    """Label-noise standard deviation σ_ε in [0, 1e100] (σ_ε² must stay finite)."""
    return require_in_range("noise_std", noise_std, 0.0, MAX_NOISE_STD, why=_NOISE_WHY)


def require_kappa(kappa) -> float:
    """Condition number κ = σ₁/σ₂ in [1, 1e100] (σ₂² = 1/κ² must not underflow)."""
    return require_in_range("kappa", kappa, 1.0, MAX_KAPPA, why=_KAPPA_WHY)


def require_sizes(n_samples, n_features, n_fast, kappa):
    """Integer sizes n_samples >= 1, n_features >= 2, 1 <= n_fast <= n_features − 1, and 1 <= κ <= 1e100
    (any n_samples: the exact ridge oracle also covers n <= d)."""
    n_features = require_integer("n_features", n_features, 2)
    n_samples = require_integer("n_samples", n_samples, 1)
    n_fast = require_integer("n_fast", n_fast, 1, n_features - 1)
    return n_samples, n_features, n_fast, require_kappa(kappa)


def require_bipartite_sizes(n_samples, n_features, n_fast, kappa):
    """:func:`require_sizes` and n_samples > n_features, the validity condition of the decoupled theory
    (derived in this project: for n <= d it counts every sample in both groups)."""
    n_samples, n_features, n_fast, kappa = require_sizes(n_samples, n_features, n_fast, kappa)
    if not n_samples > n_features:
        raise ValueError(f"n_samples must be > n_features for the bipartite approximation, got n_samples="
                         f"{n_samples}, n_features={n_features}: for n <= d the decoupled formulas count every "
                         f"sample in both groups and give negative Q")
    return n_samples, n_features, n_fast, kappa


def require_simulation_sizes(n_samples, n_features, n_fast, kappa):
    """Simulation sizes: the arrays are allocated, so they are capped (d <= 1e5, n <= 1e7)."""
    n_features = require_integer("n_features", n_features, 2, 100_000)
    n_samples = require_integer("n_samples", n_samples, 1, 10_000_000)
    n_fast = require_integer("n_fast", n_fast, 1, n_features - 1)
    return n_samples, n_features, n_fast, require_kappa(kappa)


# ---------------------------------------------------------------------------------------------------- time and rates
def require_step_record(steps) -> np.ndarray:
    """GD steps at which a run records its state: a non-empty, sorted 1-D array of whole numbers >= 0, as int64."""
    arr = np.atleast_1d(np.asarray(steps))
    if arr.dtype.kind not in "iuf" or arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"steps must be a non-empty 1-D array of whole numbers >= 0, got {steps!r}")
    arr = require_output_times("steps", arr.astype(np.float64))
    if np.any(arr != np.round(arr)):
        raise ValueError(f"steps must be whole numbers of GD steps, got {arr[arr != np.round(arr)][0]:g}")
    return arr.astype(np.int64)


def require_group_learning_rates(learning_rate) -> np.ndarray:
    """η as a pair (fast, slow): a scalar applies to both groups."""
    if np.ndim(learning_rate) == 0:
        eta = require_positive("learning_rate", learning_rate)
        return np.array([eta, eta])
    rates = require_array_in_range("learning_rate", learning_rate, 0.0, np.inf, low_open=True)
    if rates.shape != (2,):
        raise ValueError(f"learning_rate must be a scalar or a pair (fast, slow), got shape {rates.shape}")
    return rates


def require_gd_options(steps, weight_decay, dynamics, output_penalty):
    """Steps (a scalar or 1-D, in [0, inf]), weight decay λ >= 0, ``dynamics`` in {"gd", "flow"} and a constant
    output penalty a >= 0, as the exact finite-d theory takes them."""
    steps = require_times("steps", np.atleast_1d(steps))
    if steps.ndim != 1:
        raise ValueError(f"steps must be a scalar or 1-D, got shape {steps.shape}")
    weight_decay = require_positive("weight_decay", weight_decay, allow_zero=True)
    require_choice("dynamics", dynamics, GD_DYNAMICS)
    output_penalty = require_positive("output_penalty", output_penalty, allow_zero=True)
    return steps, weight_decay, output_penalty


def require_stable_gd(eta, s_max, weight_decay, output_penalty, dynamics, steps) -> None:
    """Discrete GD needs η((1 + a)λ_max + λ) < 2, and whole steps where ηr > 1 for some mode (there the factor
    (1 − ηr)^k is negative); gradient flow takes any η > 0."""
    x_max = eta * ((1.0 + output_penalty) * s_max + weight_decay)
    if dynamics == "gd":
        if x_max >= 2.0:
            raise ValueError(f"learning_rate must be < 2/((1+output_penalty)*lambda_max + weight_decay) = "
                             f"{2.0 / ((1.0 + output_penalty) * s_max + weight_decay):.4g} for discrete GD to "
                             f"converge, got {eta:g}")
        finite = steps[np.isfinite(steps)]
        if x_max > 1.0 and np.any(finite != np.round(finite)):
            raise ValueError("steps must be whole GD steps when learning_rate*((1+output_penalty)*s + weight_decay) "
                             "> 1 for some mode (the factor (1 - eta*r)^k is negative there), or use "
                             "learning_rate <= 1/((1+output_penalty)*lambda_max + weight_decay)")


def require_penalty_schedule(steps, output_penalty_schedule):
    """Whole recorded steps (:func:`require_step_record`) and a schedule of one output penalty a_k >= 0 per step."""
    steps = require_step_record(steps)
    schedule = as_finite_array("output_penalty_schedule", output_penalty_schedule, ndim=1)
    if schedule.size < steps[-1] or np.any(schedule < 0):
        raise ValueError(f"output_penalty_schedule must hold one penalty >= 0 per step (at least {steps[-1]}), "
                         f"got {schedule.size} values")
    return steps, schedule


# ---------------------------------------------------------------------------------------------------- designs
def require_eigenvalues(eigenvalues) -> np.ndarray:
    """Eigenvalues s_j >= 0 of XᵀX, a non-empty 1-D array."""
    s = require_array_in_range("eigenvalues", eigenvalues, 0.0, np.inf, ndim=1)
    if s.size == 0:
        raise ValueError("eigenvalues must hold at least one eigenvalue of XᵀX, got an empty array")
    return s


def require_design(X, y):
    """Designs X of shape (..., n, d) with n, d >= 1, and labels y of shape (..., n) whose leading axes broadcast
    against X's."""
    X = require_designs(X)
    y = as_finite_array("y", y)
    try:
        ok = y.ndim >= 1 and y.shape[-1] == X.shape[-2] and np.broadcast_shapes(y.shape[:-1], X.shape[:-2]) is not None
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"y must have shape (..., {X.shape[-2]}): one label per row of X, with leading axes that "
                         f"broadcast against X's {X.shape[:-2]}; got shape {y.shape}")
    return X, y


def require_designs(X) -> np.ndarray:
    """Designs X of shape (..., n, d) with n, d >= 1."""
    X = as_finite_array("X", X)
    if X.ndim < 2 or X.shape[-1] == 0 or X.shape[-2] == 0:
        raise ValueError(f"X must have shape (..., n_samples, n_features) with n_samples, n_features >= 1, "
                         f"got {X.shape}")
    return X


def require_preconditioner(M, d):
    """None, or an invertible (d, d) preconditioner factor M (condition number <= 1e12)."""
    if M is None:
        return None
    M = as_finite_array("preconditioner", M, ndim=2)
    if M.shape != (d, d) or np.linalg.cond(M) > 1e12:
        raise ValueError(f"preconditioner must be an invertible ({d}, {d}) matrix (condition number <= 1e12), "
                         f"got shape {M.shape}")
    return M


def require_single_modulation(F):
    """One :class:`~dynamics.double_descent.Modulation` (no draw axis) or a square invertible matrix (condition number
    <= 1e14); returns it and its size d."""
    if isinstance(F, Modulation):
        if F.U.ndim != 2:
            raise ValueError(f"F must be a single modulation (U of shape (d, d)), got a stack of {F.U.shape[0]}: "
                             f"select one draw with F.draw(i)")
        return F, F.U.shape[0]
    F = as_finite_array("F", F, ndim=2)
    if F.shape[0] != F.shape[1]:
        raise ValueError(f"F must be a square invertible matrix (condition number <= 1e14), got shape {F.shape}")
    # The 1-norm condition number from the inverse the caller needs anyway (one LU), not the 2-norm one from an SVD,
    # which cost the matrix route a quarter of its time at d = 250; the two differ by at most a factor d.
    with np.errstate(all="ignore"):
        try:
            inverse = np.linalg.inv(F)
        except np.linalg.LinAlgError:
            inverse = np.full_like(F, np.inf)
        condition = np.abs(F).sum(axis=0).max() * np.abs(inverse).sum(axis=0).max()
    if not condition <= 1e14:
        raise ValueError(f"F must be a square invertible matrix (condition number <= 1e14), got shape {F.shape} "
                         f"and a 1-norm condition number of {condition:.3g}")
    # F as a plain matrix, with the inverse computed here: the two attributes a Modulation has
    return SimpleNamespace(matrix=F, inverse=inverse), F.shape[0]


def require_modulation(modulation) -> Modulation:
    """A :class:`~dynamics.double_descent.Modulation` (a ``TypeError`` otherwise)."""
    return require_of_type("modulation", modulation, Modulation, made_by="modulation_matrix")


def require_problem(problem) -> TeacherStudentProblem:
    """A :class:`~dynamics.double_descent.TeacherStudentProblem` (a ``TypeError`` otherwise); its fields are checked
    by the size checks above, each naming the field."""
    return require_of_type("problem", problem, TeacherStudentProblem,
                           made_by="dynamics.double_descent.TeacherStudentProblem")


def require_gd_settings(settings) -> GDSettings:
    """A :class:`~dynamics.double_descent.GDSettings` (a ``TypeError`` otherwise); its fields are checked by
    :func:`require_gd_options`, :func:`require_preconditioner` and the learning-rate checks, each naming the field."""
    return require_of_type("settings", settings, GDSettings, made_by="dynamics.double_descent.GDSettings")


def require_data(data) -> TeacherStudentData:
    """A :class:`~dynamics.double_descent.TeacherStudentData` (a ``TypeError`` otherwise)."""
    return require_of_type("data", data, TeacherStudentData, made_by="draw_teacher_student")


# ---------------------------------------------------------------------------------------------------- Case 1, curves
def require_case1_inputs(alpha, weight_decay, teacher_power, noise_variance):
    """α > 0, λ >= 0 (broadcast together), T > 0 and σ_eff² >= 0 of the Case-1 problem; λ = 0 needs α > 1 (else
    the susceptibility diverges)."""
    alpha = require_array_in_range("alpha", alpha, 0.0, np.inf, low_open=True)
    weight_decay = require_array_in_range("weight_decay", weight_decay, 0.0, np.inf)
    teacher_power = require_positive("teacher_power", teacher_power)
    noise_variance = require_positive("noise_variance", noise_variance, allow_zero=True)
    alpha, weight_decay = np.broadcast_arrays(alpha, weight_decay)
    bad = (weight_decay == 0) & (alpha <= 1)
    if np.any(bad):
        raise ValueError(f"weight_decay must be > 0 where alpha <= 1, got weight_decay = 0 at alpha = "
                         f"{float(alpha[bad].flat[0]):g}: with no more samples than dimensions and no weight decay, "
                         f"ZᵀZ is singular, the energy is flat along its null space and the susceptibility "
                         f"x = β(Q₀ − Q) = Tr(ZᵀZ)⁻¹/d is infinite (at alpha = 1, Q diverges too); R and Q have "
                         f"finite limits as weight_decay -> 0+ for alpha < 1: evaluate at a small weight_decay > 0")
    return alpha, weight_decay, teacher_power, noise_variance


def require_finite_overlaps(R, Q, susceptibility) -> None:
    """The Case-1 overlaps and susceptibility are finite (the inputs did not overflow float64)."""
    if not (np.all(np.isfinite(R)) and np.all(np.isfinite(Q)) and np.all(np.isfinite(susceptibility))):
        raise ValueError("R, Q or the susceptibility is not finite in float64: alpha, weight_decay, teacher_power "
                         "or noise_variance overflow float64")


def require_curve(values) -> np.ndarray:
    """A sampled curve: a finite 1-D array of at least one value."""
    y = as_finite_array("values", values, ndim=1)
    if y.size == 0:
        raise ValueError("values must hold at least one point, got an empty array")
    return y
