"""Argument checks specific to this theory (times that may be +inf, non-negative arrays, outputs)."""
import numpy as np

from dynamics.numerics import as_float, require_positive, require_times


def times(name, value):
    """``value`` as a float64 array of times t >= 0; +inf allowed (the t -> inf limit), NaN refused."""
    return require_times(name, value)


def tau_of(tau):
    """The time constant τ > 0."""
    return require_positive("tau", tau)


def scalar_result(arr, *inputs):
    """A Python float when every input was a scalar, else the float64 array."""
    arr = np.asarray(arr, dtype=np.float64)
    if all(np.ndim(x) == 0 for x in inputs):
        return float(arr)
    return arr


def real(name, value):
    """A finite real scalar (any sign)."""
    return as_float(name, value)


def finite_result(arr, what, parameters):
    """``arr`` unchanged if every entry is finite; otherwise a ValueError naming the ``parameters`` whose
    size made ``what`` overflow float64 (no public function returns inf or NaN silently)."""
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} overflows float64 for these inputs; reduce {parameters}")
    return arr
