"""Shape descriptors of a generalisation curve L_G(k): interior extrema, the largest rise and the largest drop, and
the first minimum, peak and second descent of an epoch-wise double-descent curve.

Used to state double descent precisely (Pezeshki (thesis), Figs 4.3–4.4): a curve has double descent when it has an
interior local maximum followed by a descent; it is monotone when its largest rise is zero to round-off.
"""
from typing import Optional

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import as_finite_array, require_output_times, require_positive
from ._checks import require_curve
from ._results import Extrema, SecondDescent


def curve_extrema(values: ArrayLike, tolerance: float = 1e-10) -> Extrema:
    """Interior strict local minima and maxima of a sampled curve, ignoring wiggles whose height is below
    ``tolerance`` (plateaus and round-off).

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


def largest_rise(values: ArrayLike) -> float:
    r""":math:`\max_{i \le j} (y_j - y_i)`: 0 for a non-increasing curve (no double descent, no overfitting).

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


def largest_drop(values: ArrayLike) -> float:
    r""":math:`\max_{i \le j} (y_i - y_j)`: 0 for a non-decreasing curve (after its minimum: no second descent).

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



def _log_crossing(log_k, y, start, stop, level) -> Optional[float]:
    """The first step in (start, stop] where y falls to ``level`` or below, interpolated linearly in ln k between
    the two samples around the crossing; None if y stays above ``level`` there."""
    below = np.flatnonzero(y[start + 1:stop + 1] <= level)
    if below.size == 0:
        return None
    i = start + 1 + int(below[0])
    fraction = (y[i - 1] - level) / (y[i - 1] - y[i])  # y[i - 1] > level >= y[i]
    return float(np.exp(log_k[i - 1] + fraction * (log_k[i] - log_k[i - 1])))


def second_descent(steps: ArrayLike, values: ArrayLike, tolerance: float = 1e-9) -> SecondDescent:
    r"""Where an epoch-wise double-descent curve :math:`L(k)` has its first minimum, its peak and its second descent,
    and how high the peak is: read off a curve sampled on a grid of steps (e.g.
    :func:`~dynamics.double_descent.bipartite_theory` on :func:`~dynamics.double_descent.analytic_steps`, or a measured
    test-error curve).

    The first minimum is the first interior local minimum (:func:`~dynamics.double_descent.curve_extrema`, with the same
    ``tolerance``); the peak is the first interior local maximum after it; the second descent runs from the peak down to
    the lowest value before the curve turns up again (the next interior minimum, or the lowest value up to the end of
    the grid). Its step is the half-way point: where :math:`L` has fallen from the peak half-way to that lowest value.
    Steps of extrema are grid points; the half-way and recovery steps are interpolated linearly in :math:`\ln k` between
    grid points.

    Parameters
    ----------
    steps : array_like
        Training steps :math:`k > 0` at which the curve is sampled, 1-D and strictly increasing (a log-spaced grid;
        a curve plotted at :math:`k + 1` may be passed at :math:`k + 1`, and its steps read off in the same units).
    values : array_like
        The curve :math:`L(k)`, finite, of the shape of ``steps``.
    tolerance : float
        Hysteresis >= 0 of :func:`~dynamics.double_descent.curve_extrema`: wiggles smaller than this (round-off,
        Monte-Carlo noise) are not extrema. Set it above the noise of a measured curve.

    Returns
    -------
    SecondDescent
        first_minimum_step, first_minimum, peak_step, peak, peak_height (peak − first minimum), second_descent_step
        (half-way down), second_minimum_step and second_minimum (the end of the second descent on the grid), and
        recovery_step (where :math:`L` is back at the first minimum's level; None if it does not get there on the grid).

    Raises
    ------
    ValueError
        If the curve has no interior minimum, or no interior maximum after its first minimum: no double descent on this
        grid (:math:`\kappa` too small, or the grid ends before the peak).
        :func:`~dynamics.double_descent.curve_extrema` tells the two cases apart.

    Examples
    --------
    >>> from dynamics.double_descent import TeacherStudentProblem, analytic_steps, bipartite_theory
    >>> k = analytic_steps()                                  # 10^-3 ... 10^8, 300 points
    >>> problem = TeacherStudentProblem(110, 100, 70, kappa=100.0)
    >>> curve = bipartite_theory(k, problem).generalization_error
    >>> dd2 = second_descent(k, curve)
    >>> round(dd2.first_minimum, 3), round(dd2.peak, 3), round(dd2.peak_height, 3)
    (0.263, 0.379, 0.116)
    >>> [round(step) for step in (dd2.first_minimum_step, dd2.peak_step, dd2.second_descent_step)]
    [13, 770, 22053]
    >>> second_descent(k, bipartite_theory(k, problem._replace(kappa=1.0)).generalization_error)
    Traceback (most recent call last):
    ...
    ValueError: values has no interior minimum: the curve is monotone ... (no double descent)
    """
    k = require_output_times("steps", steps, positive=True, strictly_increasing=True)
    y = require_curve(values)
    if y.shape != k.shape:
        raise ValueError(f"values must have the shape of steps {k.shape}, got {y.shape}")
    extrema = curve_extrema(y, tolerance)
    if extrema.minima.size == 0:
        raise ValueError(f"values has no interior minimum: the curve is monotone up to tolerance {tolerance:g} on "
                         f"this grid (no double descent)")
    first = int(extrema.minima[0])
    later_maxima = extrema.maxima[extrema.maxima > first]
    if later_maxima.size == 0:
        raise ValueError(f"values has no interior maximum after its first minimum (at step {k[first]:g}): a single "
                         f"descent or a U-curve on this grid, no second descent (tolerance {tolerance:g})")
    peak = int(later_maxima[0])
    later_minima = extrema.minima[extrema.minima > peak]
    low = int(later_minima[0]) if later_minima.size else peak + int(np.argmin(y[peak:]))
    log_k = np.log(k)
    halfway = _log_crossing(log_k, y, peak, low, 0.5 * (y[peak] + y[low]))
    recovery = _log_crossing(log_k, y, peak, low, y[first])
    return SecondDescent(float(k[first]), float(y[first]), float(k[peak]), float(y[peak]), float(y[peak] - y[first]),
                         halfway, float(k[low]), float(y[low]), recovery)
