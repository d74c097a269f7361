"""Argument checks specific to the spurious-correlation theory, built on the core helpers of
:mod:`dynamics.numerics.validation` (labels, masks, non-empty margin arrays, logit scales, matrices, linear-toy
splits); the general ones (ranges, integers, equal lengths) come from :mod:`dynamics.numerics` itself."""
import numpy as np

from dynamics.numerics import as_finite_array, format_value, require_array_in_range, require_of_type
from ._results import SpuriousData


def require_logit_scale(value, name="logit_scale"):
    """The logit scale k > 0 as a float64 array (0-d for a scalar), every entry finite and > 0."""
    return require_array_in_range(name, value, 0.0, np.inf, low_open=True)


def require_nonempty_vector(name, value, low=-np.inf, low_open=False):
    """A non-empty 1-D finite float64 array whose entries are >= low (> low with ``low_open``)."""
    arr = require_array_in_range(name, value, low, np.inf, low_open=low_open)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must hold at least one value, got an empty array")
    return arr


def require_positive_margins(name, value):
    """Margins of one kind (BA α_i or BC β_j): a non-empty 1-D array of entries > 0."""
    return require_nonempty_vector(name, value, 0.0, low_open=True)


MAX_LABEL = 10**8  # labels, groups, indices and counts index (or size) arrays: one entry per value


def require_labels(name, value, n_classes=None, ndim=1):
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


def require_bool_mask(name, value, shape=None):
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


def require_matrix(name, value, min_rows=1, min_cols=1):
    """A finite 2-D float64 array with at least the given numbers of rows and columns."""
    arr = as_finite_array(name, value)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-dimensional, got shape {arr.shape}")
    if arr.shape[0] < min_rows or arr.shape[1] < min_cols:
        raise ValueError(f"{name} must have at least {min_rows} rows and {min_cols} columns, got shape {arr.shape}")
    return arr


def require_toy_split(name, data, n_features=None, n_groups=4):
    """A split of the linear toy: its x (finite, 2-D, >= 2 columns, ``n_features`` of them when given), y as
    float64 in {0, 1} and group as int64 in [0, n_groups)."""
    require_of_type(name, data, SpuriousData, made_by="make_balancing_toy")
    x = as_finite_array(f"{name}.x", data.x, ndim=2)
    if x.shape[0] == 0:
        raise ValueError(f"{name}.x must hold at least one sample, got shape {x.shape}")
    if n_features is not None and x.shape[1] != n_features:
        raise ValueError(f"{name}.x must have {n_features} columns (those of train.x), got shape {x.shape}")
    if x.shape[1] < 2:
        raise ValueError(f"{name}.x must have at least the 2 toy features, got shape {x.shape}")
    y = np.asarray(data.y)
    g = np.asarray(data.group)
    if y.shape != (x.shape[0],) or g.shape != (x.shape[0],):
        raise ValueError(f"{name}.y and {name}.group must have shape ({x.shape[0]},), got {y.shape} and {g.shape}")
    if not (np.all((y == 0) | (y == 1)) and np.all((g >= 0) & (g < n_groups))):
        raise ValueError(f"{name}.y must be in {{0, 1}} and {name}.group in [0, {n_groups})")
    return x, y.astype(np.float64), g.astype(np.int64)
