"""Shape descriptors of a generalisation curve L_G(k): interior extrema, the largest rise and the largest drop.

Used to state double descent precisely (spec P10, P15, P18; Figs 4.3–4.4): a curve has double descent when it
has an interior local maximum followed by a descent; it is monotone when its largest rise is zero to round-off.
"""
import numpy as np

from dynamics.numerics import as_finite_array, require_positive
from ._checks import require_curve
from ._results import Extrema


def curve_extrema(values, tolerance=1e-10) -> Extrema:
    """Interior strict local minima and maxima of a sampled curve (spec P10), ignoring wiggles whose height is
    below ``tolerance`` (plateaus and round-off).

    Parameters
    ----------
    values : array_like
        Shape (m,), finite.
    tolerance : float
        Hysteresis >= 0: a turn counts once the curve has moved this far away from it.

    Returns
    -------
    Extrema
        minima, maxima (indices into ``values``).

    Examples
    --------
    >>> ext = curve_extrema([1.0, 0.5, 0.7, 0.2, 0.2, 0.3])
    >>> ext.minima.tolist(), ext.maxima.tolist()
    ([1, 3], [2])
    """
    y = as_finite_array("values", values, ndim=1)
    tolerance = require_positive("tolerance", tolerance, allow_zero=True)
    minima, maxima = [], []
    direction, extreme = 0, 0
    for i in range(1, y.size):
        if direction == 0:
            if y[i] > y[0] + tolerance:
                direction, extreme = 1, int(np.argmax(y[:i + 1]))
            elif y[i] < y[0] - tolerance:
                direction, extreme = -1, int(np.argmin(y[:i + 1]))
        elif direction == 1:
            if y[i] > y[extreme]:
                extreme = i
            elif y[i] < y[extreme] - tolerance:
                maxima.append(extreme)
                direction, extreme = -1, i
        else:
            if y[i] < y[extreme]:
                extreme = i
            elif y[i] > y[extreme] + tolerance:
                minima.append(extreme)
                direction, extreme = 1, i
    return Extrema(np.array(minima, dtype=int), np.array(maxima, dtype=int))


def largest_rise(values) -> float:
    """max over i <= j of y_j − y_i: 0 for a non-increasing curve (spec P10, P18).

    Parameters
    ----------
    values : array_like
        Shape (m,), m >= 1, finite.

    Returns
    -------
    float

    Examples
    --------
    >>> round(largest_rise([1.0, 0.5, 0.7, 0.2, 0.3]), 12)
    0.2
    """
    y = require_curve(values)
    return float(np.max(y - np.minimum.accumulate(y)))


def largest_drop(values) -> float:
    """max over i <= j of y_i − y_j: 0 for a non-decreasing curve (spec P10: no second descent).

    Parameters
    ----------
    values : array_like
        Shape (m,), m >= 1, finite.

    Returns
    -------
    float

    Examples
    --------
    >>> round(largest_drop([1.0, 0.5, 0.7, 0.2, 0.3]), 12)
    0.8
    """
    y = require_curve(values)
    return float(np.max(np.maximum.accumulate(y) - y))

