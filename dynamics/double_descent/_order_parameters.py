"""The order parameters and the generalisation error of the teacher–student model (Eqs 4.2.5–4.2.7).

Conventions (the theory note, ``docs/theory/double_descent.md``): teacher ``y* = zᵀw`` with ``z ~ N(0, I/d)`` and
``‖w‖² = d`` (Eq 4.2.1 and the teacher norm as corrected); student input ``x = Fᵀz`` (Eq 4.2.2); sum-normalised
loss ``½Σ(y − ŷ)² + (λ/2)‖ŵ‖²`` (Eq 4.2.3 as corrected: the source prints a 1/(2n) mean); order parameters
``R = wᵀFŵ/d``, ``Q = ‖Fŵ‖²/d`` (Eq 4.2.7) and ``L_G = ½(1 − 2R + Q)`` with noiseless test labels (Eq 4.2.6).
"""
import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import as_finite_array, require_finite_result, require_positive
from ._results import OrderParameterCurve, OrderParameters


def generalization_error_of(teacher_power, R, Q):
    """L_G = ½(T − 2R + Q) (Eq 4.2.6); where T − 2R + Q overflows although L_G does not (T or Q near the float64
    maximum), as (T/2 + Q/2) − R."""
    with np.errstate(over="ignore", invalid="ignore"):
        error = 0.5 * (teacher_power - 2.0 * R + Q)
        if np.all(np.isfinite(error)):
            return error
        return np.where(np.isfinite(error), error, (0.5 * teacher_power + 0.5 * Q) - R)


def generalization_error(R: ArrayLike, Q: ArrayLike, teacher_power: float = 1.0) -> np.ndarray:
    r"""The generalisation error :math:`L_G = \frac{1}{2}(T - 2R + Q)` of a student with overlaps :math:`R`, :math:`Q`
    (Eq 4.2.6; :math:`T = 1` for the normalised teacher :math:`\lVert w \rVert^2 = d`): half the test MSE on
    noiseless test labels, for any :math:`(R, Q)` of the phase plane (Fig 4.4's level lines).

    Parameters
    ----------
    R : float or array_like
        Teacher–student overlap :math:`R = w^\top F \hat w / d`, finite.
    Q : float or array_like
        Student norm :math:`Q = \lVert F \hat w \rVert^2 / d \ge 0`; broadcasts against ``R``.
    teacher_power : float
        Teacher power :math:`T = \lVert w \rVert^2 / d > 0`.

    Returns
    -------
    ndarray
        :math:`L_G`, of the broadcast shape of ``R`` and ``Q``.

    Examples
    --------
    >>> generalization_error([0.0, 1.0, 0.5], [0.0, 1.0, 0.5]).tolist()   # the start, point C, a point with R = Q
    [0.5, 0.0, 0.25]
    """
    R = as_finite_array("R", R)
    Q = as_finite_array("Q", Q)
    if np.any(Q < 0):
        raise ValueError(f"Q must be >= 0 (Q = ‖Fŵ‖²/d), got {float(np.min(Q)):g}")
    teacher_power = require_positive("teacher_power", teacher_power)
    try:
        R, Q = np.broadcast_arrays(R, Q)
    except ValueError:
        raise ValueError(f"R (shape {R.shape}) and Q (shape {Q.shape}) must broadcast") from None
    return require_finite_result(generalization_error_of(teacher_power, R, Q), "the generalization error",
                                 "R or Q is too large for float64")


def order_parameters(R, Q, noise_std, R1=None, R2=None, Q1=None, Q2=None, teacher_power=1.0, steps=None):
    """:class:`~dynamics.double_descent.OrderParameters` (or :class:`~dynamics.double_descent.OrderParameterCurve` when
    ``steps`` is given) with L_G = ½(teacher_power − 2R + Q) (Eq 4.2.6, or its single-draw form).

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
