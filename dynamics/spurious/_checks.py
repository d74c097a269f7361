"""Argument checks specific to the spurious-correlation theory, built on the core helpers of
:mod:`dynamics.numerics.validation` (labels, non-empty margin arrays, logit scales, fractions)."""
import numbers

import numpy as np

from dynamics.numerics import as_finite_array, format_value, require_array_in_range, require_in_range


def logit_scale_array(value, name="logit_scale"):
    """The logit scale k > 0 as a float64 array (0-d for a scalar), every entry finite and > 0."""
    return require_array_in_range(name, value, 0.0, np.inf, low_open=True)


def nonempty_vector(name, value, low=-np.inf, low_open=False):
    """A non-empty 1-D finite float64 array whose entries are >= low (> low with ``low_open``)."""
    arr = require_array_in_range(name, value, low, np.inf, low_open=low_open)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must hold at least one value, got an empty array")
    return arr


def positive_margins(name, value):
    """Margins of one kind (BA α_i or BC β_j): a non-empty 1-D array of entries > 0."""
    return nonempty_vector(name, value, 0.0, low_open=True)


MAX_LABEL = 10**8  # labels, groups, indices and counts index (or size) arrays: one entry per value


def int_labels(name, value, n_classes=None, ndim=1):
    """Integer labels as an int64 array with entries in [0, 1e8) (< n_classes when given); floats with integral
    values are accepted, booleans are not. The upper limit keeps the arrays indexed by labels (bincounts, repeats)
    inside memory, and floats inside the exact int64 range."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be an array of integer labels, got {value!r}")
    arr = np.asarray(value)
    if arr.dtype.kind == "b":
        raise TypeError(f"{name} must hold integer labels, got booleans")
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold integer labels, got dtype {arr.dtype}")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must hold at least one label, got an empty array")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            bad = arr[~(np.isfinite(arr) & (arr == np.round(arr)))].flat[0]
            raise ValueError(f"{name} must hold integers, got {format_value(bad)}")
    if np.any(arr < 0):  # compared before the cast: a float beyond int64 would wrap
        raise ValueError(f"{name} must be >= 0, got {format_value(arr[arr < 0].flat[0])}")
    high = MAX_LABEL if n_classes is None else min(n_classes, MAX_LABEL)
    if np.any(arr >= high):
        reason = "" if high == n_classes else " (one array entry per value: larger ones do not fit in memory)"
        raise ValueError(f"{name} must be < {high}, got {format_value(arr[arr >= high].flat[0])}{reason}")
    return arr.astype(np.int64)


def bool_mask(name, value, shape=None):
    """A boolean array (0/1 integers accepted) of the given shape."""
    arr = np.asarray(value)
    if arr.dtype.kind == "b":
        out = arr.copy()
    elif arr.dtype.kind in "iu" and np.all((arr == 0) | (arr == 1)):
        out = arr.astype(bool)
    else:
        raise TypeError(f"{name} must be a boolean array, got dtype {arr.dtype}")
    if shape is not None and out.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)} (that of the values it marks), got {out.shape}")
    return out


def fraction(name, value):
    """A fraction in [0, 1]."""
    return require_in_range(name, value, 0.0, 1.0)


def same_length(**arrays):
    """The common length of the named 1-D arrays, or a ValueError naming them and their lengths."""
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) != 1:
        described = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(f"{' and '.join(lengths)} must have the same length: {described}")
    return next(iter(lengths.values()))


def matrix(name, value, min_rows=1, min_cols=1):
    """A finite 2-D float64 array with at least the given numbers of rows and columns."""
    arr = as_finite_array(name, value)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-dimensional, got shape {arr.shape}")
    if arr.shape[0] < min_rows or arr.shape[1] < min_cols:
        raise ValueError(f"{name} must have at least {min_rows} rows and {min_cols} columns, got shape {arr.shape}")
    return arr


def is_integer(value):
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))
