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
  the manner of SciPy's mpmath harness;
* :func:`printed_misses` shows a printed (erratum) form failing: its residual is a nonzero expression, and at the
  simplest counterexample it misses by more than a stated share.

:func:`simplified` is sympy's ``simplify`` with its results cached on disk by expression hash (``LD_SYMPY_CACHE``,
default ``~/.cache/learning-dynamics/sympy``), so that a warm run of the symbolic claims skips the simplifications.
The key is the expression's full ``srepr`` and sympy's version: a changed statement is a new key, never a stale hit.

Each claims module lists its theory's closed forms in ``DERIVATIONS`` (:func:`derivation`): the relation each
solves, what was checked (exact, series, interval, or none and why) and the symbolic claim that checks it. The
derivations page of the documentation is generated from these lists (:func:`derivations`).

sympy and mpmath are imported on first use (the claims modules stay light to import).
"""
import hashlib
import importlib
import math
import os
from pathlib import Path
from typing import NamedTuple, Optional, Tuple

import numpy as np

from .registry import Check, lazy_module

sp = lazy_module("sympy")
mpmath = lazy_module("mpmath")

__all__ = ["EPS", "POINTS", "residual_zero", "spread", "library_against_symbols", "symbolic_result", "simplified",
           "printed_misses", "Derivation", "derivation", "derivations", "CHECKS", "detail_parts"]

EPS = float(np.finfo(np.float64).eps)
"""The float64 unit round-off, the unit of the symbolic claims' bounds."""
POINTS = 1000
"""How many points a symbolic claim compares the library with the symbols at."""


def symbolic_result(checks):
    """All ``checks`` must pass. When they do, the detail joins the details of every check (each residual, each
    printed form's miss, each comparison of the library with the symbols), which the claims, errata and derivations
    pages quote; otherwise it is the failing check's own."""
    if all(c.passed for c in checks):
        return Check.all_of(checks, "; ".join(c.detail for c in checks))
    return Check.all_of(checks)


def detail_parts(detail, printed_only=False):
    """A claim's detail as Markdown list items, one per check (the parts :func:`symbolic_result` joined with
    "; "): each residual that sympy left (``residual EXPR``, ``printed residual EXPR``) as inline code, so that its
    ``*`` and ``_`` are not read as emphasis; the rest with ``*`` escaped. With ``printed_only``, only the printed
    forms' residuals (:func:`printed_misses`)."""
    items = []
    for part in detail.split("; "):
        for marker in (": printed residual ", ": residual "):
            if marker in part:
                what, rest = part.split(marker, 1)
                expression, _, tail = rest.partition(" (relative miss")
                items.append(f"{what.replace('*', chr(92) + '*')}{marker}`{expression}`"
                             + (f" (relative miss{tail}" if tail else ""))
                break
        else:
            if printed_only:
                continue
            items.append(part.replace("*", "\\*"))
        if printed_only and ": printed residual " not in part:
            items.pop()
    return items


def _cache_directory():
    return Path(os.environ.get("LD_SYMPY_CACHE") or Path.home() / ".cache" / "learning-dynamics" / "sympy")


def simplified(expression):
    """``sympy.simplify(expression)``, cached on disk by the hash of the expression's ``srepr`` and sympy's version.

    A cache that cannot be read or written (a read-only home, a corrupt entry) is skipped: the expression is then
    simplified afresh.

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> simplified(sympy.sin(x) ** 2 + sympy.cos(x) ** 2 - 1)
    0
    """
    key = hashlib.sha256(f"{sp.__version__}\n{sp.srepr(expression)}".encode()).hexdigest()
    path = _cache_directory() / key[:2] / f"{key}.txt"
    try:
        return sp.sympify(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, SyntaxError, TypeError, sp.SympifyError):
        pass
    result = sp.simplify(expression)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.part")
        partial.write_text(sp.srepr(result), encoding="utf-8")
        os.replace(partial, path)  # atomic: parallel workers never read half an entry
    except OSError:
        pass
    return result


def residual_zero(residual, what):
    """A :class:`Check` that ``residual`` (a sympy expression) simplifies to exactly 0.

    ``simplify`` is tried first, then ``together``/``expand`` of the result (rational functions of exponentials
    often need both); both go through the on-disk cache (:func:`simplified`). The measured value is 0 when the
    residual vanishes, else inf, and the detail names what is left.
    """
    left = simplified(residual)
    if left != 0:
        left = simplified(sp.expand(sp.together(left)))
    return Check.at_most(0.0 if left == 0 else math.inf, 0.0, f"{what}: residual {'0' if left == 0 else left}")


def printed_misses(printed_residual, reference, counterexample, what, reject=0.1):
    """A :class:`Check` that a printed (erratum) form fails: its residual (a sympy expression, the printed form
    minus what it should equal) does not simplify to 0, and at the simplest counterexample (a dict of symbol values)
    it misses ``reference`` by more than ``reject`` relative. The detail prints the residual and the miss."""
    left = simplified(printed_residual)
    miss = 0.0 if left == 0 else float(abs(left.subs(counterexample) / reference.subs(counterexample)))
    at = ", ".join(f"{k} = {v}" for k, v in counterexample.items())
    return Check.at_least(miss, reject, f"{what}: printed residual {left} (relative miss {miss:.3g} at {at})")


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


def _references(expression, symbols, points, digits):
    """``expression`` evaluated by mpmath at ``digits`` digits at every point, cached on disk like
    :func:`simplified`: the key is the expression's and the symbols' ``srepr``, the points' bytes, the precision and
    sympy's and mpmath's versions, so a changed statement or point set is evaluated afresh. Only real values are
    cached (a complex or non-numeric value is recomputed every run)."""
    points = np.asarray(points, dtype=np.float64)
    text = f"{sp.__version__} {mpmath.__version__} {digits}\n{sp.srepr(expression)}\n{sp.srepr(tuple(symbols))}\n"
    key = hashlib.sha256(text.encode() + points.tobytes() + str(points.shape).encode()).hexdigest()
    path = _cache_directory() / key[:2] / f"{key}.ref"
    with mpmath.workdps(digits):
        try:
            values = [mpmath.mpf(line) for line in path.read_text(encoding="ascii").split()]
            if len(values) == len(points):
                return values
        except (OSError, ValueError, TypeError):
            pass
        function = sp.lambdify(list(symbols), expression, "mpmath")
        values = [function(*(mpmath.mpf(float(x)) for x in point)) for point in points]
        if all(isinstance(v, mpmath.mpf) for v in values):
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                partial = path.with_suffix(f".{os.getpid()}.part")
                partial.write_text("\n".join(mpmath.nstr(v, digits + 5, strip_zeros=False) for v in values),
                                   encoding="ascii")
                os.replace(partial, path)
            except OSError:
                pass
    return values


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
    worst, where = 0.0, None
    with mpmath.workdps(digits):
        for point, reference in zip(points, _references(expression, symbols, points, digits)):
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


CHECKS = {
    "exact": "the residual of the defining relation simplifies to 0 (sympy), and the library equals the symbolic "
             "form at 30 digits",
    "series": "the relation holds as a series to a stated order (sympy), and the library equals the symbolic form "
              "at 30 digits",
    "interval": "the relation holds under mpmath interval arithmetic over the stated domain",
    "none": "a closed form with no symbolic check: the reason is given, and the numerical claims that hold it",
    "algorithm": "not a closed form (a simulator, a root, a quadrature, a draw, a trainer, a count) that a symbolic "
                 "claim calls: listed with the numerical claims that hold it",
}
"""What each kind of check establishes (the derivations page's legend). The first four are closed forms; an
``"algorithm"`` entry is listed so that every function a symbolic claim calls is on the page."""


class Derivation(NamedTuple):
    """One closed form of a theory and how it is checked symbolically (an entry of a claims module's
    ``DERIVATIONS``; see :func:`derivation`)."""

    functions: Tuple[str, ...]
    relation: str
    check: str
    claim: Optional[str]
    source: str
    note: str


def derivation(functions, relation, check, claim=None, source="", note=""):
    """A :class:`Derivation`, validated.

    Parameters
    ----------
    functions : str or tuple of str
        The public functions that compute the closed form, named from the theory package down
        (``"spherical.sgd_l2_radius_map"`` for :func:`dynamics.spherical.sgd_l2_radius_map`).
    relation : str
        The defining relation in LaTeX (no dollar signs): the ODE, recursion, fixed-point equation, expectation or
        limit that the closed form solves.
    check : {"exact", "series", "interval", "none", "algorithm"}
        What the symbolic claim establishes (:data:`CHECKS`).
    claim : str, optional
        The symbolic claim's id; required unless ``check`` is ``"none"`` or ``"algorithm"``.
    source : str
        Where the form is printed (author, year, equation), or ``"derived in this project"``.
    note : str
        The derivation written out (required for a form derived in this project), or, for ``"series"``,
        ``"interval"``, ``"none"`` and ``"algorithm"``, why no exact check is possible. Markdown with ``$...$``
        maths.
    """
    functions = (functions,) if isinstance(functions, str) else tuple(functions)
    if not functions or not all(isinstance(f, str) and f.count(".") == 1 for f in functions):
        raise ValueError(f"functions must name 'theory.function' entries, got {functions!r}")
    if check not in CHECKS:
        raise ValueError(f"check must be one of {sorted(CHECKS)}, got {check!r}")
    if (claim is None) != (check in ("none", "algorithm")):
        raise ValueError(f"{functions[0]}: a claim is required exactly when check is not 'none' or 'algorithm' "
                         f"(check={check!r}, claim={claim!r})")
    if "$" in relation or relation.count("{") != relation.count("}"):
        raise ValueError(f"{functions[0]}: relation must be LaTeX without dollar signs and with balanced braces")
    if not source:
        raise ValueError(f"{functions[0]}: source must cite where the form is printed, or say 'derived in this "
                         f"project'")
    if check != "exact" and not note:
        raise ValueError(f"{functions[0]}: a {check!r} check needs a note saying why no exact check is possible")
    if source.startswith("derived in this project") and not note:
        raise ValueError(f"{functions[0]}: a form derived in this project needs its derivation in note")
    return Derivation(functions, relation, check, claim, source, note)


def derivations():
    """{theory id: the ``DERIVATIONS`` its claims module declares}, in the registry's order (the numerics core
    first)."""
    from .registry import claim_modules

    found = {}
    for name in claim_modules():
        entries = getattr(importlib.import_module(name), "DERIVATIONS", ())
        if entries:
            found.setdefault(name.rsplit(".", 1)[1], []).extend(entries)
    return found
