"""Shape descriptors of a generalisation curve L_G(t): interior extrema, the largest rise and the largest drop.

Used to state double descent precisely (spec P10, P15, P18): a curve has double descent when it has an interior
local maximum followed by a descent; it is monotone when its largest rise is zero to round-off.
"""
from dataclasses import dataclass

import numpy as np

from dynamics.numerics import as_finite_array, require_positive


@dataclass(frozen=True)
class Extrema:
    minima: np.ndarray
    maxima: np.ndarray


def curve_extrema(values, tolerance=1e-10):
    """Indices of the interior strict local minima and maxima of a sampled curve, ignoring wiggles whose
    height is below ``tolerance`` (plateaus and round-off)."""
    y = as_finite_array("values", values, ndim=1)
    tolerance = require_positive("tolerance", tolerance, allow_zero=True)
    # Track turning points with hysteresis: a turn counts once the curve has moved `tolerance` away from it.
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


def largest_rise(values):
    """max over i <= j of y_j − y_i (0 for a non-increasing curve)."""
    y = _curve(values)
    return float(np.max(y - np.minimum.accumulate(y)))


def largest_drop(values):
    """max over i <= j of y_i − y_j (0 for a non-decreasing curve)."""
    y = _curve(values)
    return float(np.max(np.maximum.accumulate(y) - y))


def _curve(values):
    y = as_finite_array("values", values, ndim=1)
    if y.size == 0:
        raise ValueError("values must hold at least one point, got an empty array")
    return y
