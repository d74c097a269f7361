"""The symbolic layer of the claims: what a closed form solves, checked by sympy, and the library against the
symbols at 30 digits.

A symbolic claim states a closed form's defining relation once (the ODE or recursion it solves, the fixed-point
equation it satisfies, the expectation it equals, the limit it has) and checks it with these helpers:

* :func:`residual_zero` simplifies a residual (``lhs - rhs``, in the manner of sympy's ``checkodesol``) and passes
  when it is identically 0; the detail prints what is left otherwise;
* :func:`spread` draws evaluation points over the orders of magnitude of each parameter (a deterministic
  Kronecker sequence, so that a claim's points never change between runs);
* :func:`library_against_symbols` lambdifies an expression for mpmath, evaluates it at 30 digits at each point and
  holds the library's value to a relative error bound that the claim derives from the formula's conditioning, in
  the manner of SciPy's mpmath harness.

sympy and mpmath are imported on first use (the claims modules stay light to import).
"""
import math

import numpy as np

from .registry import Check, lazy_module

sp = lazy_module("sympy")
mpmath = lazy_module("mpmath")

__all__ = ["EPS", "POINTS", "residual_zero", "spread", "library_against_symbols", "symbolic_result"]

EPS = float(np.finfo(np.float64).eps)
"""The float64 unit round-off, the unit of the symbolic claims' bounds."""
POINTS = 1000
"""How many points a symbolic claim compares the library with the symbols at."""


def symbolic_result(checks, shown=None):
    """All ``checks`` must pass. When they do, the detail joins the details of the last ``shown`` of them (all by
    default: the library against the symbols is usually last); otherwise it is the failing check's own."""
    if all(c.passed for c in checks):
        return Check.all_of(checks, "; ".join(c.detail for c in checks[-(shown or len(checks)):]))
    return Check.all_of(checks)


def residual_zero(residual, what):
    """A :class:`Check` that ``residual`` (a sympy expression) simplifies to exactly 0.

    ``simplify`` is tried first, then ``together``/``expand`` of the result (rational functions of exponentials
    often need both). The measured value is 0 when the residual vanishes, else inf, and the detail names what is
    left.
    """
    left = sp.simplify(residual)
    if left != 0:
        left = sp.simplify(sp.expand(sp.together(left)))
    return Check.at_most(0.0 if left == 0 else math.inf, 0.0, f"{what}: residual {'0' if left == 0 else left}")


def spread(ranges, count):
    """``count`` points in a box, each coordinate spread over its range: ``ranges`` holds (low, high, "log") for a
    parameter spread over orders of magnitude (low > 0) or (low, high, "linear"). A Kronecker sequence (the
    fractional parts of k·√p for the first primes p) fills the box evenly and is the same in every run.

    Returns an array of shape (count, len(ranges)).
    """
    primes = np.array([2.0, 3.0, 5.0, 7.0, 11.0, 13.0, 17.0, 19.0, 23.0, 29.0][: len(ranges)])
    if len(primes) < len(ranges):
        raise ValueError(f"ranges must hold at most 10 parameters, got {len(ranges)}")
    unit = np.modf(np.arange(1, count + 1)[:, None] * (np.sqrt(primes) % 1))[0]
    columns = []
    for (low, high, scale), u in zip(ranges, unit.T):
        if scale == "log":
            if not 0 < low < high:
                raise ValueError(f"a log range needs 0 < low < high, got ({low}, {high})")
            columns.append(np.exp(np.log(low) + u * (np.log(high) - np.log(low))))
        elif scale == "linear":
            columns.append(low + u * (high - low))
        else:
            raise ValueError(f"scale must be 'log' or 'linear', got {scale!r}")
    return np.column_stack(columns)


def library_against_symbols(expression, symbols, library, points, bound, what, digits=30):
    """The library's value against ``expression`` evaluated by mpmath at ``digits`` digits, at every point.

    Parameters
    ----------
    expression : sympy expression
        The closed form, in ``symbols``.
    symbols : sequence of sympy symbols
        Its arguments, in the order of the columns of ``points``.
    library : callable
        Takes one point's coordinates as floats and returns the library's float value.
    points : ndarray, shape (n, len(symbols))
    bound : callable or float
        The largest relative error allowed at a point: a float, or a function of the point's coordinates (for a
        bound from the formula's conditioning, in units of eps).
    what : str
        The detail's label.

    Returns
    -------
    Check
        The worst ratio of relative error to its bound, held to 1.
    """
    function = sp.lambdify(list(symbols), expression, "mpmath")
    worst, where = 0.0, None
    with mpmath.workdps(digits):
        for point in points:
            reference = function(*(mpmath.mpf(float(x)) for x in point))
            got = library(*(float(x) for x in point))
            if reference == 0:
                error = abs(got)
            else:
                error = float(abs((mpmath.mpf(got) - reference) / reference))
            allowed = bound(*point) if callable(bound) else bound
            ratio = error / allowed if allowed > 0 else (0.0 if error == 0 else math.inf)
            if not ratio <= worst:  # NaN propagates as the worst
                worst, where = ratio, point
                if math.isnan(ratio):
                    break
    at = "" if where is None else f" (worst at {np.array2string(np.asarray(where), precision=3)})"
    return Check.at_most(worst, 1.0, f"{what}: worst relative error / bound {worst:.2f} over {len(points)} "
                                     f"points{at}")
