"""Argument checking shared by every public function of :mod:`dynamics`.

Each helper returns the cleaned value or raises ``ValueError``/``TypeError`` whose message names
the parameter, the value received and the allowed range, so that a caller's error reads
``"s must be >= 0, got -1.0"`` wherever it comes from.
"""
import math
import numbers

import numpy as np


def _describe(value):
    arr = np.asarray(value)
    return repr(value) if arr.size <= 6 else f"array of shape {arr.shape}"


def _as_float64_array(name, value):
    """``value`` as a new float64 array; TypeError for strings, None, complex or non-numeric input."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be a real number or array of real numbers, got {value!r}")
    if getattr(value, "dtype", None) is not None and value.dtype.kind == "c" or isinstance(value, complex):
        raise TypeError(f"{name} must be real, got a complex value")
    try:
        return np.array(value, dtype=np.float64)  # a C-contiguous copy
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real number or array of real numbers, got {_describe(value)}") from exc


def as_finite_array(name, value, ndim=None):
    """``value`` as a new C-contiguous float64 array with finite entries (and ``ndim`` dimensions)."""
    arr = _as_float64_array(name, value)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite, got {_describe(value)}")
    return arr


def require_times(name, value, allow_zero=True):
    """Times as a float64 array with entries in [0, inf] ((0, inf] without ``allow_zero``): +inf is
    the t -> inf limit that closed forms evaluate exactly; NaN is refused."""
    arr = _as_float64_array(name, value)
    bad = np.isnan(arr) | ((arr < 0) if allow_zero else (arr <= 0))
    if bad.any():
        raise ValueError(f"{name} must lie in {'[' if allow_zero else '('}0, inf], got {arr[bad].flat[0]:g}")
    return arr


def as_float(name, value):
    """``value`` as a finite Python float (rejecting bools, strings, arrays of size != 1)."""
    if type(value) is float or type(value) is int:  # the common case, without numpy's overhead
        x = float(value)
        if not math.isfinite(x):
            raise ValueError(f"{name} must be finite, got {x}")
        return x
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.ndarray, np.generic)):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    arr = np.asarray(value, dtype=np.float64)
    if arr.size != 1:
        raise ValueError(f"{name} must be a scalar, got shape {arr.shape}")
    x = float(arr.reshape(()))
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x}")
    return x


def require_in_range(name, value, low=-np.inf, high=np.inf, low_open=False, high_open=False):
    """A scalar float inside [low, high]; ``low_open``/``high_open`` exclude the end points."""
    x = as_float(name, value)
    below = x <= low if low_open else x < low
    above = x >= high if high_open else x > high
    if below or above:
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise ValueError(f"{name} must be in {lo}{low:g}, {high:g}{hi}, got {x:g}")
    return x


def require_positive(name, value, allow_zero=False):
    """A finite scalar > 0 (or >= 0)."""
    return require_in_range(name, value, 0.0, np.inf, low_open=not allow_zero)


def require_array_in_range(name, value, low=-np.inf, high=np.inf, low_open=False, high_open=False,
                           ndim=None):
    """A finite float64 array whose every entry lies in the interval; names the worst entry."""
    arr = as_finite_array(name, value, ndim=ndim)
    bad = (arr <= low if low_open else arr < low) | (arr >= high if high_open else arr > high)
    if np.any(bad):
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise ValueError(f"{name} must lie in {lo}{low:g}, {high:g}{hi}, got {arr[bad].flat[0]:g}")
    return arr


def require_integer(name, value, low=None, high=None):
    """A Python int in [low, high] (bools and non-integral floats rejected)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value}")
    return value


def require_choice(name, value, choices):
    """``value`` must be one of ``choices`` (any container of allowed values)."""
    try:
        ok = value in choices
    except TypeError:
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {sorted(map(repr, choices))}, got {value!r}")
    return value


def rng_from(seed):
    """A ``numpy.random.Generator`` from an int seed, a SeedSequence or a Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, np.random.SeedSequence)):
        raise TypeError(f"seed must be an int, a SeedSequence or a numpy Generator, got {seed!r}")
    return np.random.default_rng(seed)
