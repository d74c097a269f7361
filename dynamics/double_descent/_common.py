"""Result types and the theory-specific argument checks of :mod:`dynamics.double_descent`.

Conventions (spec §1): teacher ``y* = zᵀw`` with ``z ~ N(0, I/d)`` and ``‖w‖² = d`` (E1, E2); student input
``x = Fᵀz`` (Eq 4.2.2); bipartite ``F = U Σ Vᵀ`` with ``σ₁ = 1`` on the ``n_fast`` fast directions and ``σ₂ = 1/κ``
on the others (Assumption 4.2.1); sum-normalised loss ``½Σ(y − ŷ)² + (λ/2)‖ŵ‖²`` (Eq 4.2.3, E3); order
parameters ``R = wᵀFŵ/d``, ``Q = ‖Fŵ‖²/d`` (Eq 4.2.7) and ``L_G = ½(1 − 2R + Q)`` with noiseless test labels
(Eq 4.2.6).
"""
from typing import NamedTuple, Optional

import numpy as np

from dynamics.numerics import require_in_range, require_integer, require_output_times

# κ and σ_ε enter squared (σ₂² = 1/κ², σ_ε²): these bounds keep both squares far inside float64 (1e±200),
# so that the slow group's scale never underflows to 0 and the noise power never overflows.
MAX_KAPPA = 1e100
MAX_NOISE_STD = 1e100
_KAPPA_WHY = "sigma_2^2 = 1/kappa^2 must stay inside float64"
_NOISE_WHY = "noise_std^2 must stay inside float64"


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
    """:class:`OrderParameters` along a time axis: ``steps`` (GD steps, real values interpolate the gradient
    flow; shape (T,) or the shape of the ``steps`` argument) and the fields of :class:`OrderParameters`, each of
    the shape of ``steps`` (or of ``steps`` broadcast against ``weight_decay`` where that is an array).

    Examples
    --------
    >>> from dynamics.double_descent import bipartite_theory
    >>> curve = bipartite_theory([0.0, 10.0], 110, 100, 70, 30.0)
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


def generalization_error_of(teacher_power, R, Q):
    """L_G = ½(T − 2R + Q) (Eq 4.2.6); where T − 2R + Q overflows although L_G does not (T or Q near the float64
    maximum), as (T/2 + Q/2) − R."""
    with np.errstate(over="ignore", invalid="ignore"):
        error = 0.5 * (teacher_power - 2.0 * R + Q)
        if np.all(np.isfinite(error)):
            return error
        return np.where(np.isfinite(error), error, (0.5 * teacher_power + 0.5 * Q) - R)


def order_parameters(R, Q, noise_std, R1=None, R2=None, Q1=None, Q2=None, teacher_power=1.0, steps=None):
    """:class:`OrderParameters` (or :class:`OrderParameterCurve` when ``steps`` is given) with
    L_G = ½(teacher_power − 2R + Q) (Eq 4.2.6, or its single-draw form).

    Raises ``ValueError`` rather than hand back a non-finite overlap: the last guard of the package's
    no-silent-NaN/inf contract (the argument checks refuse such inputs first).
    """
    error = generalization_error_of(teacher_power, R, Q)
    fields = (R, Q, error, error + 0.5 * noise_std * noise_std, R1, R2, Q1, Q2)
    names = ("R", "Q", "generalization_error", "noisy_generalization_error", "R1", "R2", "Q1", "Q2")
    for name, value in zip(names, fields):
        if value is not None and not np.all(np.isfinite(value)):
            raise ValueError(f"the order parameter {name} is not finite in float64: the inputs (noise_std, sizes, "
                             f"kappa, weight_decay or steps) overflow float64 or leave the theory's domain")
    return OrderParameters(*fields) if steps is None else OrderParameterCurve(steps, *fields)


def check_noise_std(noise_std) -> float:
    """Label-noise standard deviation σ_ε in [0, 1e100] (σ_ε² must stay finite)."""
    return require_in_range("noise_std", noise_std, 0.0, MAX_NOISE_STD, why=_NOISE_WHY)


def check_kappa(kappa) -> float:
    """Condition number κ = σ₁/σ₂ in [1, 1e100] (σ₂² = 1/κ² must not underflow)."""
    return require_in_range("kappa", kappa, 1.0, MAX_KAPPA, why=_KAPPA_WHY)


def check_sizes(n_samples, n_features, n_fast, kappa):
    """Integer sizes n_samples >= 1, n_features >= 2, 1 <= n_fast <= n_features − 1, and 1 <= κ <= 1e100
    (any n_samples: the exact ridge oracle also covers n <= d)."""
    n_features = require_integer("n_features", n_features, 2)
    n_samples = require_integer("n_samples", n_samples, 1)
    n_fast = require_integer("n_fast", n_fast, 1, n_features - 1)
    return n_samples, n_features, n_fast, check_kappa(kappa)


def check_bipartite(n_samples, n_features, n_fast, kappa):
    """:func:`check_sizes` and n_samples > n_features, the validity condition of the decoupled theory
    (spec §2.5 Validity (1))."""
    n_samples, n_features, n_fast, kappa = check_sizes(n_samples, n_features, n_fast, kappa)
    if not n_samples > n_features:
        raise ValueError(f"n_samples must be > n_features for the bipartite approximation, got n_samples="
                         f"{n_samples}, n_features={n_features}: for n <= d the decoupled formulas count every "
                         f"sample in both groups and give negative Q")
    return n_samples, n_features, n_fast, kappa


def check_step_record(steps) -> np.ndarray:
    """GD steps at which a run records its state: a non-empty, sorted 1-D array of whole numbers >= 0, as int64."""
    arr = np.atleast_1d(np.asarray(steps))
    if arr.dtype.kind not in "iuf" or arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"steps must be a non-empty 1-D array of whole numbers >= 0, got {steps!r}")
    arr = require_output_times("steps", arr.astype(np.float64))
    if np.any(arr != np.round(arr)):
        raise ValueError(f"steps must be whole numbers of GD steps, got {arr[arr != np.round(arr)][0]:g}")
    return arr.astype(np.int64)
