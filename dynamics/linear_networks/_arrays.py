"""Array plumbing shared by the closed forms of this theory: named broadcasting and scalar-in, float-out.

These are not argument checks of the kinds :mod:`dynamics.numerics.validation` owns (numbers, ranges,
shapes, times); they make numpy's broadcasting failure name the parameters involved, and return a Python
float when every array argument was a scalar (the spec's "a float when all arguments are scalars").
"""
import math

import numpy as np

from dynamics.numerics import require_in_range


def broadcast(**arrays):
    """The named arrays broadcast against each other, in the order given; a ValueError naming them (and
    their shapes) if they do not broadcast, instead of numpy's message without names."""
    try:
        return np.broadcast_arrays(*arrays.values())
    except ValueError:
        names = list(arrays)
        listed = ", ".join(names[:-1]) + f" and {names[-1]}"
        shapes = ", ".join(f"{name} {np.shape(value)}" for name, value in arrays.items())
        raise ValueError(f"{listed} must broadcast to one shape (numpy broadcasting), got shapes {shapes}") from None


def scalar_or_array(values, *inputs):
    """``values`` as a Python float when every input was a scalar, else as a float64 array."""
    values = np.asarray(values, dtype=np.float64)
    if all(np.ndim(x) == 0 for x in inputs):
        return float(values.reshape(()))
    return values


def bounded_std(name, value):
    """A standard deviation in [0, 1e150]: its square (the variance the formulas use) stays finite."""
    return require_in_range(name, value, 0.0, 1e150, why="its square must stay finite in float64")


def rate_time(rate, t, tau):
    """rate·t/τ for rate > 0, t >= 0 (arrays), +inf only where the true value overflows: where the product rate·t
    alone overflows or underflows, the value is taken through logs (relative error ~1e-13)."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        product = rate * t
        x = product / tau
        spurious = (rate > 0) & (t > 0) & (t < np.inf) & (np.isinf(product) | (product == 0.0))
        if np.any(spurious):
            logs = np.log(np.where(spurious, rate, 1.0)) + np.log(np.where(spurious, t, 1.0)) - math.log(tau)
            x = np.where(spurious, np.exp(logs), x)
    return x
