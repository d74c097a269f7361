"""Argument checks specific to this theory (times that may be +inf, non-negative arrays, outputs)."""
import numpy as np

from dynamics.numerics import as_float, require_positive


def times(name, value):
    """``value`` as a float64 array of times t >= 0; +inf allowed (the t -> inf limit), NaN refused."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be a real number or array of real numbers, got {value!r}")
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real number or array of real numbers, got {value!r}") from exc
    if np.iscomplexobj(value):
        raise TypeError(f"{name} must be real, got a complex value")
    bad = np.isnan(arr) | (arr < 0)
    if np.any(bad):
        raise ValueError(f"{name} must lie in [0, inf], got {arr[bad].flat[0]:g}")
    return arr


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
