"""Argument checking shared by every public function of ``dynamics``.

Each helper returns the cleaned value or raises ``ValueError`` (or ``TypeError`` for a value of the
wrong kind) whose message names the parameter, the value received and the allowed range, so that an
error reads ``"s must be >= 0, got -1"`` wherever it comes from. Theory packages use these helpers
and write no checks of their own for the ideas covered here (numbers, ranges, integers, booleans,
choices, shapes, times, seeds, orthogonal matrices, finite results).

**Dtypes.** Every theory computes in float64, and these checks return float64. An argument that carries a dtype (a
numpy array or scalar, a torch tensor on the CPU) is converted exactly and then checked by its values, not by its
dtype: a float32 array whose values pass is accepted. Where a check fails, its message names the dtype of such an
argument when it is not float64 (``"q must be in (0, 1), got 1 (entry 2; a float32 array, which carries about 6
significant digits: 1 is within its round-off of the bound 1; compute it in float64)"``), and says how to fix it
where the dtype is the cause. Complex, string, date and object arrays that do not hold real numbers are a
TypeError naming their dtype; a complex array is never silently cut to its real part.

A matrix orthogonal only to float32 round-off is refused by :func:`dynamics.numerics.require_orthogonal` rather
than accepted at a looser tolerance: converting it to float64 does not make it more orthogonal, and the closed forms
that assume QᵀQ = I would then carry its 1e-7-size defect into results stated to float64 accuracy. Its message points
to :func:`dynamics.numerics.nearest_orthogonal`, which re-orthogonalises explicitly (moving the matrix by about its
defect, which the caller then sees).
"""
import math
import numbers
from typing import Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike
from ._docstrings import fill_doc

__all__ = ["as_finite_array", "as_float", "format_value", "require_array_in_range", "require_bool",
           "require_choice", "require_finite_product", "require_finite_result", "require_in_range",
           "require_integer", "require_orthogonal", "require_output_times", "require_positive", "require_same_length",
           "require_shape", "require_times", "rng_from", "scalar_or_array"]


def format_value(value: object) -> str:
    """A short, plain rendering of ``value`` for error messages.

    numpy scalars print as Python numbers (``-1`` rather than ``np.float64(-1.0)``), floats in
    ``%g`` form without a ``+`` in the exponent, and arrays with more than six entries by their shape.

    Parameters
    ----------
    value : object

    Returns
    -------
    str

    Examples
    --------
    >>> format_value(np.float64(-1.0)), format_value(1e100), format_value(np.zeros((3, 4)))
    ('-1', '1e100', 'array of shape (3, 4)')
    >>> format_value(10**300 + 12345), format_value(-123456789 * 10**20)
    ('1.0e300', '-1.23456e28')
    """
    if isinstance(value, (bool, np.bool_)):
        return repr(bool(value))
    if isinstance(value, (numbers.Integral, np.integer)):
        digits = str(abs(int(value)))
        if len(digits) <= 16:
            return str(int(value))
        # a huge integer: its leading digits and exponent (a float conversion could overflow; all digits help no one)
        return f"{'-' if value < 0 else ''}{digits[0]}.{digits[1:6].rstrip('0') or '0'}e{len(digits) - 1}"
    if isinstance(value, (numbers.Real, np.floating)):
        return f"{float(value):.6g}".replace("e+", "e")
    if isinstance(value, (list, tuple, np.ndarray)):
        try:
            arr = np.asarray(value)
        except Exception:  # ragged nested sequences
            return repr(value)
        if arr.size > 6:
            return f"array of shape {arr.shape}"
        if arr.dtype.kind in "biuf":
            return "[" + ", ".join(format_value(x) for x in arr.ravel()) + "]" if arr.ndim else format_value(arr[()])
    return repr(value)


def _interval(low, high, low_open, high_open):
    if low == -np.inf and high == np.inf:
        return "finite"
    if high == np.inf:
        return f"{'>' if low_open else '>='} {format_value(low)}"
    if low == -np.inf:
        return f"{'<' if high_open else '<='} {format_value(high)}"
    return f"in {'(' if low_open else '['}{format_value(low)}, {format_value(high)}{')' if high_open else ']'}"


def _carried_dtype(value):
    """The dtype ``value`` carries (a numpy array's or scalar's, or, through numpy, an array-like object's such as a
    CPU torch tensor's), or None for Python numbers, lists and objects without one."""
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return None
    try:
        return np.dtype(dtype)
    except TypeError:  # e.g. torch.float32: ask numpy what the object converts to
        try:
            return np.asarray(value).dtype
        except Exception:  # a CUDA tensor, a tensor that requires grad, ...
            return None


def _described(value, dtype=None):
    """``"a float32 array"``, ``"an int64 value"``, ... for a value that carries a dtype, else None."""
    dtype = _carried_dtype(value) if dtype is None else dtype
    if dtype is None:
        return None
    shown = str(dtype) if dtype.kind in "USV" else dtype.name  # "<U3" rather than "str96"
    article = "an" if shown[0] in "aeio" else "a"
    return f"{article} {shown} {'array' if np.ndim(value) else 'value'}"


def _dtype_note(value, bad=None, near=(), what="the bound"):
    """The text a failed value check appends for an argument that carries a dtype other than float64 (empty
    otherwise): ``"a float32 array"``, and, for a float dtype narrower than float64 where its rounding is the likely
    cause (``bad`` is infinite, overflow; or lies within its round-off of a value in ``near``, such as the bound it
    crosses), what happened and what to do."""
    dtype = _carried_dtype(value)
    if dtype is None or dtype == np.float64:
        return ""
    described = _described(value, dtype)
    if dtype.kind == "f" and dtype.itemsize < 8 and bad is not None:
        info = np.finfo(dtype)
        if math.isinf(bad):
            return (f"{described}: {dtype.name} overflows to inf above {format_value(float(info.max))}; compute it "
                    f"in float64")
        for reference in near:
            reference = float(reference)
            if math.isfinite(reference) and abs(bad - reference) <= 4 * float(info.eps) * max(abs(reference),
                                                                                               float(info.tiny)):
                return (f"{described}, which carries about {info.precision} significant digits: {format_value(bad)} "
                        f"is within its round-off of {what} {format_value(reference)}; compute it in float64")
    return described


def _with_notes(text, *notes):
    """``text`` followed by its non-empty ``notes`` in one parenthesis, separated by semicolons."""
    notes = [note for note in notes if note]
    return f"{text} ({'; '.join(notes)})" if notes else text


def _kind_error(name, value, arr):
    """The TypeError for an array whose dtype does not hold real numbers (complex, strings, dates, records, objects
    that are not numbers), naming the dtype; None when ``arr``'s dtype is a real number type."""
    kind = arr.dtype.kind
    described = _described(value) or f"{'an array' if arr.ndim else 'a value'} of dtype {arr.dtype.name}"
    if kind == "c":
        hint = ""
        if arr.size and name.isidentifier() and not np.any(np.imag(arr)):
            hint = f": its imaginary parts are all 0, pass {name}.real"
        return TypeError(f"{name} must be real, got {described}{hint}")
    if kind in "USaVMm":
        held = {"M": "dates", "m": "time spans", "V": "records"}.get(kind, "strings")
        shown = _described(value) or format_value(value)
        return TypeError(f"{name} must be a real number or an array of real numbers, got {shown} ({held})")
    if kind == "O":
        for index, item in enumerate(arr.flat):
            if item is None or isinstance(item, (str, bytes, complex, bool, np.bool_)):
                where = f" (entry {index})" if arr.ndim else ""
                return TypeError(f"{name} must hold real numbers, got an object array holding "
                                 f"{type(item).__name__}{where}")
    return None


def _as_float64_array(name, value):
    """``value`` as a new float64 array; TypeError (naming the dtype where there is one) for strings, None, booleans,
    complex or non-numeric input."""
    if type(value) is np.ndarray and value.dtype.kind in "fiub":  # the common case, without a second look
        return np.array(value, dtype=np.float64)  # a C-contiguous copy
    if isinstance(value, (str, bytes)) or value is None or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number or an array of real numbers, got {value!r}")
    if isinstance(value, complex):
        raise TypeError(f"{name} must be real, got the complex value {value!r}")
    try:
        source = np.asarray(value)  # no copy for an array: its dtype says what kind of values it holds
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise TypeError(f"{name} must be a real number or an array of real numbers, got "
                        f"{format_value(value)}") from exc
    except Exception as exc:  # e.g. a torch tensor that requires grad
        raise TypeError(f"{name} must be a real number or an array of real numbers, got "
                        f"{type(value).__name__} that numpy cannot convert ({exc})") from exc
    if source.dtype == np.float64 and isinstance(value, (list, tuple, float, int)):
        return source  # numpy built a new array from the Python values: no second copy
    error = _kind_error(name, value, source)
    if error is not None:
        raise error
    try:
        arr = np.array(source, dtype=np.float64)  # a C-contiguous copy
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real number or an array of real numbers, got "
                        f"{format_value(value)}") from exc
    return arr


@fill_doc
def as_finite_array(name: str, value: ArrayLike, ndim: Optional[int] = None) -> np.ndarray:
    """``value`` as a new C-contiguous float64 array with finite entries (and ``ndim`` dimensions).

    Parameters
    ----------
    %(name)s
    %(value)s
    ndim : int, optional
        The number of dimensions required.

    Returns
    -------
    ndarray
        A float64 copy.

    Examples
    --------
    >>> as_finite_array("x", [1, 2])
    array([1., 2.])
    >>> as_finite_array("x", [1.0, np.inf])
    Traceback (most recent call last):
    ...
    ValueError: x must be finite, got [1, inf]

    An argument that carries a dtype other than float64 is named by it when it fails, with the cause where the
    dtype is it:

    >>> as_finite_array("x", np.array([1.0, np.inf], dtype=np.float16))
    Traceback (most recent call last):
    ...
    ValueError: x must be finite, got [1, inf] (a float16 array: float16 overflows to inf above 65504; compute it in float64)
    >>> as_finite_array("x", np.array([1.0, 2.0j]))
    Traceback (most recent call last):
    ...
    TypeError: x must be real, got a complex128 array
    """
    arr = _as_float64_array(name, value)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    finite = np.isfinite(arr)
    if not finite.all():
        bad = float(arr[~finite].flat[0]) if arr.ndim else float(arr)
        infinite = arr[np.isinf(arr)]
        bad = float(infinite.flat[0]) if infinite.size else bad
        raise ValueError(_with_notes(f"{name} must be finite, got {format_value(value)}", _dtype_note(value, bad)))
    return arr


def scalar_or_array(values: ArrayLike, like: ArrayLike) -> Union[float, np.ndarray]:
    """``values`` as a Python float when the caller's argument ``like`` is a scalar, else as a float64 array: the
    theories' element-wise functions return a number for a number.

    Parameters
    ----------
    values : array_like
        The computed values (one element when ``like`` is a scalar).
    like : array_like
        The argument that decides the kind of the result.

    Returns
    -------
    float or numpy.ndarray
        The array keeps the shape of ``values``.

    Raises
    ------
    ValueError
        If ``like`` is a scalar and ``values`` does not hold exactly one element.

    Examples
    --------
    >>> scalar_or_array(np.array([0.5]), 2.0)
    0.5
    >>> scalar_or_array([1.0, 2.0], [3.0, 4.0])
    array([1., 2.])
    """
    values = np.asarray(values, dtype=np.float64)
    if np.ndim(like) == 0:
        if values.size != 1:
            raise ValueError(f"values must hold one element when like is a scalar, got shape {values.shape}")
        return float(values.reshape(-1)[0])
    return values


@fill_doc
def as_float(name: str, value: object) -> float:
    """``value`` as a finite Python float (rejecting booleans, strings and arrays of size other than 1).

    Parameters
    ----------
    %(name)s
    %(value)s

    Returns
    -------
    float

    Examples
    --------
    >>> as_float("eta", np.float64(0.5))
    0.5
    """
    if type(value) is float or type(value) is int:  # the common case, without numpy's overhead
        x = float(value)
    else:
        if type(value) is np.float64:  # numpy's own scalar: no conversion machinery
            x = float(value)
            if not math.isfinite(x):
                raise ValueError(f"{name} must be finite, got {format_value(x)}")
            return x
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.ndarray, np.generic)):
            raise TypeError(f"{name} must be a real number, got {value!r}")
        dtype = value.dtype if isinstance(value, (np.ndarray, np.generic)) else _carried_dtype(value)
        if dtype is not None and dtype.kind == "c":
            raise TypeError(f"{name} must be real, got {_described(value)}")
        if dtype is not None and dtype.kind not in "iufO":  # strings, dates, booleans: not a real number
            raise TypeError(f"{name} must be a real number, got {format_value(value)} ({_described(value)})")
        if dtype is not None and dtype.kind == "O":
            error = _kind_error(name, value, np.asarray(value))
            if error is not None:
                raise error
        try:
            arr = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be a real number, got {format_value(value)}") from exc
        if arr.size != 1:
            raise ValueError(f"{name} must be a scalar, got an array of shape {arr.shape}")
        x = float(arr.reshape(()))
    if not math.isfinite(x):
        raise ValueError(_with_notes(f"{name} must be finite, got {format_value(x)}", _dtype_note(value, x)))
    return x


@fill_doc
def require_in_range(name: str, value: object, low: float = -np.inf, high: float = np.inf, low_open: bool = False,
                     high_open: bool = False, why: str = "") -> float:
    """A finite scalar float inside [low, high].

    Parameters
    ----------
    %(name)s
    %(value)s
    low, high : float
        The interval (±inf for none).
    low_open, high_open : bool
        Exclude the end point.
    why : str
        Appended to the message (e.g. the reason for an upper limit that guards float64).

    Returns
    -------
    float

    Examples
    --------
    >>> require_in_range("delta", 0.3, -1.0, 1.0, low_open=True, high_open=True)
    0.3
    >>> require_in_range("kappa", 1e200, 1.0, 1e100, why="kappa**2 must stay finite")
    Traceback (most recent call last):
    ...
    ValueError: kappa must be in [1, 1e100], got 1e200 (kappa**2 must stay finite)
    """
    x = as_float(name, value)
    below = x <= low if low_open else x < low
    above = x >= high if high_open else x > high
    if below or above:
        note = _dtype_note(value, x, (low if below else high,))
        raise ValueError(_with_notes(f"{name} must be {_interval(low, high, low_open, high_open)}, got "
                                     f"{format_value(x)}", why, note))
    return x


@fill_doc
def require_positive(name: str, value: object, allow_zero: bool = False) -> float:
    """A finite scalar > 0 (or >= 0 with ``allow_zero``).

    Parameters
    ----------
    %(name)s
    %(value)s
    allow_zero : bool

    Returns
    -------
    float

    Examples
    --------
    >>> require_positive("learning_rate", 0.1)
    0.1
    >>> require_positive("learning_rate", 0)
    Traceback (most recent call last):
    ...
    ValueError: learning_rate must be > 0, got 0
    """
    return require_in_range(name, value, 0.0, np.inf, low_open=not allow_zero)


@fill_doc
def require_array_in_range(name: str, value: ArrayLike, low: float = -np.inf, high: float = np.inf,
                           low_open: bool = False, high_open: bool = False, ndim: Optional[int] = None) -> np.ndarray:
    """A finite float64 array whose every entry lies in the interval; the message names the first bad entry.

    Parameters
    ----------
    %(name)s
    %(value)s
    low, high, low_open, high_open :
        As in :func:`dynamics.numerics.require_in_range`.
    ndim : int, optional
        The number of dimensions required.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> require_array_in_range("s", [1.0, -2.0], 0.0)
    Traceback (most recent call last):
    ...
    ValueError: s must be >= 0, got -2 (entry 1)

    A probability that float32 rounded onto the bound is named as such:

    >>> require_array_in_range("q", np.array([0.5, 0.99999999], dtype=np.float32), 0.0, 1.0, high_open=True)
    Traceback (most recent call last):
    ...
    ValueError: q must be in [0, 1), got 1 (entry 1; a float32 array, which carries about 6 significant digits: 1 is within its round-off of the bound 1; compute it in float64)
    """
    arr = as_finite_array(name, value, ndim=ndim)
    below = arr <= low if low_open else arr < low
    bad = below | (arr >= high if high_open else arr > high)
    if np.any(bad):
        first = int(np.flatnonzero(bad)[0])
        index = np.unravel_index(first, arr.shape) if arr.ndim else ()
        where = f"entry {index[0] if len(index) == 1 else index}" if arr.ndim else ""
        x = float(arr.flat[first])
        note = _dtype_note(value, x, (low if below.flat[first] else high,))
        raise ValueError(_with_notes(f"{name} must be {_interval(low, high, low_open, high_open)}, got "
                                     f"{format_value(x)}", where, note))
    return arr


@fill_doc
def require_integer(name: str, value: object, low: Optional[int] = None, high: Optional[int] = None) -> int:
    """A Python int in [low, high]: a non-integral number is a ValueError, a boolean or non-number a TypeError.

    Parameters
    ----------
    %(name)s
    %(value)s
    low, high : int or None
        The allowed range (None: unbounded on that side).

    Returns
    -------
    int

    Examples
    --------
    >>> require_integer("n_steps", 10.0, 0)
    10
    >>> require_integer("n_samples", 300.5, 1)
    Traceback (most recent call last):
    ...
    ValueError: n_samples must be an integer >= 1, got 300.5
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        if isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer():
            value = int(value)
        elif isinstance(value, (float, np.floating)):  # a number, but not a whole one: a bad value
            raise ValueError(f"{name} must be an integer{_integer_range(low, high)}, got {format_value(value)}")
        else:
            raise TypeError(f"{name} must be an integer, got {format_value(value)}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be an integer{_integer_range(low, high)}, got {format_value(value)}")
    return value


def _integer_range(low, high):
    if low is None and high is None:
        return ""
    if high is None:
        return f" >= {low}"
    if low is None:
        return f" <= {high}"
    return f" in [{low}, {high}]"


@fill_doc
def require_bool(name: str, value: object) -> bool:
    """``True`` or ``False`` (numpy booleans accepted); anything else, 0 and 1 included, is a TypeError.

    Parameters
    ----------
    %(name)s
    %(value)s

    Returns
    -------
    bool

    Examples
    --------
    >>> require_bool("exact", np.True_)
    True
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


@fill_doc
def require_choice(name: str, value: object, choices: Sequence[object]) -> object:
    """``value`` if it is one of ``choices``.

    Parameters
    ----------
    %(name)s
    %(value)s
    choices : sequence
        The allowed values.

    Returns
    -------
    object
        ``value``.

    Examples
    --------
    >>> require_choice("method", "dop853", ("dopri5", "dop853"))
    'dop853'
    >>> require_choice("method", "euler", ("dopri5", "dop853"))
    Traceback (most recent call last):
    ...
    ValueError: method must be one of 'dopri5', 'dop853', got 'euler'
    """
    try:
        ok = bool(value in choices)  # an array raises (ambiguous truth value): not a choice
    except (TypeError, ValueError):
        ok = False
    if ok and isinstance(value, (bool, np.bool_)) and not any(isinstance(c, bool) for c in choices):
        ok = False  # True == 1 would otherwise select the choice 1
    if not ok:
        listed = ", ".join(repr(c) for c in choices)
        shown = repr(value) if isinstance(value, str) else format_value(value)
        raise ValueError(f"{name} must be one of {listed}, got {shown}")
    return value


@fill_doc
def require_shape(name: str, arr: ArrayLike, shape: Sequence[Optional[int]]) -> np.ndarray:
    """``arr`` unchanged if its shape matches ``shape`` (None in ``shape`` matches any length).

    Parameters
    ----------
    %(name)s
    arr : array_like
    shape : tuple of int or None

    Returns
    -------
    ndarray

    Examples
    --------
    >>> require_shape("U", np.eye(2), (2, 2)).shape
    (2, 2)
    >>> require_shape("s", np.ones(3), (2,))
    Traceback (most recent call last):
    ...
    ValueError: s must have shape (2,), got (3,)
    """
    arr = np.asarray(arr)
    if arr.ndim != len(shape) or any(want is not None and got != want for got, want in zip(arr.shape, shape)):
        shown = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        raise ValueError(f"{name} must have shape {shown}, got {arr.shape}")
    return arr


def require_betas(value: Sequence[float], name: str = "betas") -> Tuple[float, float]:
    """Two averaging coefficients (β₁, β₂), each in [0, 1), as Adam-like optimizers take them.

    Parameters
    ----------
    value : pair of float
    name : str
        The parameter's name in error messages.

    Returns
    -------
    tuple of float
        (β₁, β₂).

    Raises
    ------
    TypeError
        If ``value`` is not a pair.
    ValueError
        If a coefficient lies outside [0, 1).

    Examples
    --------
    >>> require_betas((0.9, 0.999))
    (0.9, 0.999)
    """
    try:
        first, second = value
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a pair (beta1, beta2), got {value!r}") from exc
    return (require_in_range(f"{name}[0]", first, 0.0, 1.0, high_open=True),
            require_in_range(f"{name}[1]", second, 0.0, 1.0, high_open=True))


def require_of_type(name: str, value: object, kind: Union[type, Tuple[type, ...]],
                    made_by: Optional[str] = None) -> object:
    """``value`` if it is an instance of ``kind``, or a TypeError naming the parameter, the type wanted (and the
    function that makes one) and the type given.

    Parameters
    ----------
    name : str
        The parameter's name.
    value : object
    kind : type or tuple of types
    made_by : str, optional
        The public function that makes such a value, for the message.

    Returns
    -------
    object
        ``value`` itself.

    Examples
    --------
    >>> require_of_type("count", 3, int)
    3
    >>> require_of_type("count", "3", int, made_by="len")
    Traceback (most recent call last):
    ...
    TypeError: count must be a int (from len), got str
    """
    if not isinstance(value, kind):
        wanted = " or ".join(k.__name__ for k in kind) if isinstance(kind, tuple) else kind.__name__
        source = f" (from {made_by})" if made_by else ""
        raise TypeError(f"{name} must be a {wanted}{source}, got {type(value).__name__}")
    return value


def require_same_length(**arrays: ArrayLike) -> int:
    """The common length of the first axis of the named arrays, or a ValueError naming them.

    Parameters
    ----------
    **arrays : array_like
        Parameter name -> array.

    Returns
    -------
    int

    Examples
    --------
    >>> require_same_length(t=np.zeros(3), values=np.zeros((3, 2)))
    3
    """
    lengths = {name: np.shape(a)[0] if np.ndim(a) else None for name, a in arrays.items()}
    if len(set(lengths.values())) != 1 or None in lengths.values():
        described = ", ".join(f"{name} has {n if n is not None else 'no'} rows" for name, n in lengths.items())
        raise ValueError(f"{' and '.join(lengths)} must have the same length along their first axis: {described}")
    return next(iter(lengths.values()))


@fill_doc
def require_times(name: str, value: ArrayLike, allow_zero: bool = True) -> np.ndarray:
    """Times for closed forms: a float64 array with entries in [0, inf] ((0, inf] without ``allow_zero``).

    +inf is the t -> inf limit that closed forms evaluate exactly; NaN and negative times are refused.

    Parameters
    ----------
    %(name)s
    %(value)s
    allow_zero : bool

    Returns
    -------
    ndarray

    Examples
    --------
    >>> require_times("t", [0.0, 1.0, np.inf])
    array([ 0.,  1., inf])
    """
    arr = _as_float64_array(name, value)
    bad = np.isnan(arr) | ((arr < 0) if allow_zero else (arr <= 0))
    if bad.any():
        x = float(arr[bad].flat[0])
        raise ValueError(_with_notes(f"{name} must lie in {'[' if allow_zero else '('}0, inf], got {format_value(x)}",
                                     _dtype_note(value, x, (0.0,))))
    return arr


@fill_doc
def require_output_times(name: str, value: ArrayLike, positive: bool = False,
                         strictly_increasing: bool = False) -> np.ndarray:
    """Output times of an integration or a recorded run: a non-empty, finite, 1-D, non-decreasing array.

    Parameters
    ----------
    %(name)s
    %(value)s
    positive : bool
        Require times > 0 (else >= 0).
    strictly_increasing : bool
        Refuse repeated times.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> require_output_times("t", [0.0, 0.5, 2.0])
    array([0. , 0.5, 2. ])
    >>> require_output_times("t", [1.0, 0.5])
    Traceback (most recent call last):
    ...
    ValueError: t must be increasing, got 0.5 after 1 (entry 1)
    """
    t = require_array_in_range(name, value, 0.0, np.inf, low_open=positive, ndim=1)
    if t.size == 0:
        raise ValueError(f"{name} must hold at least one time, got an empty array")
    steps = np.diff(t)
    bad = steps <= 0 if strictly_increasing else steps < 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0]) + 1
        note = _dtype_note(value, float(t[i]), (t[i - 1],), what="the time before it,")
        raise ValueError(_with_notes(f"{name} must be {'strictly ' if strictly_increasing else ''}increasing, got "
                                     f"{format_value(t[i])} after {format_value(t[i - 1])}", f"entry {i}", note))
    return t


def require_finite_result(value: ArrayLike, what: str, hint: str) -> ArrayLike:
    """``value`` unchanged if every entry is finite; otherwise a ValueError saying which result left float64.

    No public function returns inf or NaN silently: this is the last guard.

    Parameters
    ----------
    value : array_like
        A computed result.
    what : str
        What the result is (e.g. the function's name).
    hint : str
        Which input to change, or which assumption failed.

    Returns
    -------
    object
        ``value``.

    Examples
    --------
    >>> require_finite_result(np.array([1.0, np.inf]), "mode_strength", "reduce t or s")
    Traceback (most recent call last):
    ...
    ValueError: mode_strength is not finite in float64: reduce t or s
    """
    if not np.all(np.isfinite(value)):
        raise ValueError(f"{what} is not finite in float64: {hint}")
    return value


def require_finite_product(factors: Sequence[ArrayLike], divisors: Sequence[ArrayLike] = (), what: str = "the product",
                           hint: str = "") -> Union[float, np.ndarray]:
    """∏ factors / ∏ divisors (broadcast), with no intermediate overflow or underflow; ValueError if the true value
    leaves float64.

    Each operand is split into its mantissa and exponent (``frexp``): the mantissas are multiplied and divided
    (the same roundings as the plain expression, which it equals wherever that stays inside float64) and the
    exponents added, so that ``1e300 * 1e10 / 1e20`` is 1e290 rather than inf, and ``0 * 1e300 * 1e10`` is 0
    rather than NaN. A true value below the smallest double underflows to 0 (or a subnormal), as it would
    in exact arithmetic rounded to float64.

    Parameters
    ----------
    factors : sequence of float or array_like
        The numerator's factors, finite (broadcast together).
    divisors : sequence of float or array_like
        The denominator's factors, finite and nonzero.
    what : str
        What the result is (e.g. the function's name), for the error message.
    hint : str
        Which input to change, or which assumption failed.

    Returns
    -------
    float or ndarray
        A float when every operand is a scalar.

    Examples
    --------
    >>> require_finite_product([1e300, 1e10], [1e20])
    1e+290
    >>> require_finite_product([0.0, 1e300, 1e10])
    0.0
    >>> require_finite_product([1e300, 1e10], what="t", hint="reduce steps")
    Traceback (most recent call last):
    ...
    ValueError: t is not finite in float64: reduce steps
    """
    operands = [np.asarray(f, dtype=np.float64) for f in factors] + [np.asarray(d, dtype=np.float64) for d in divisors]
    if not all(np.all(np.isfinite(x)) for x in operands) or any(np.any(np.asarray(d) == 0) for d in divisors):
        raise ValueError(f"{what}: every factor must be finite and every divisor finite and nonzero")
    mantissa, exponent = np.ones(()), np.zeros((), dtype=np.int64)
    for index, operand in enumerate(operands):
        m, e = np.frexp(operand)
        mantissa = mantissa * m if index < len(factors) else mantissa / m
        exponent = exponent + e if index < len(factors) else exponent - e
        mantissa, e = np.frexp(mantissa)  # back to [0.5, 1): the next product neither overflows nor underflows
        exponent = exponent + e
    with np.errstate(over="ignore", under="ignore"):
        value = np.ldexp(mantissa, np.clip(exponent, -4000, 4000).astype(np.int32))
    require_finite_result(value, what, hint)
    return float(value) if value.ndim == 0 else value


#: How far QᵀQ may be from the identity, entrywise, for a matrix said to be orthogonal: a few hundred ulps of float64
#: (a Haar matrix from QR is orthogonal to about 1e-15), far below float32 round-off (about 1e-7).
ORTHOGONALITY_TOLERANCE = 1e-10


@fill_doc
def require_orthogonal(name: str, value: ArrayLike) -> np.ndarray:
    """A float64 square matrix Q with max|QᵀQ − I| <= 1e-10 (orthogonal to float64 round-off).

    The check is on the values, converted exactly to float64: a matrix of any real dtype that is orthogonal to
    float64 round-off (a permutation matrix of ints, a float32 identity) is accepted. A matrix orthogonal only to
    the round-off of a narrower dtype (float32 from torch: a defect near 1e-8) is refused, with a message naming its
    dtype, rather than accepted at a looser tolerance: converting it to float64 keeps its defect, and the closed forms
    that assume QᵀQ = I would carry it into results stated to float64 accuracy. Re-orthogonalise it explicitly with
    :func:`dynamics.numerics.nearest_orthogonal` (which moves it by about its defect), or build it in float64.

    Parameters
    ----------
    %(name)s
    value : array_like, shape (n, n)
        The argument as the caller gave it: real, finite, n >= 1.

    Returns
    -------
    ndarray
        A float64 copy.

    Raises
    ------
    ValueError
        If the matrix is not square, not finite or not orthogonal to 1e-10 (the message names a dtype other than
        float64, and says when the defect is that dtype's round-off).
    TypeError
        If the entries are not real numbers (complex, strings, ...): the message names the dtype.

    Examples
    --------
    >>> require_orthogonal("U", [[0.0, 1.0], [1.0, 0.0]])
    array([[0., 1.],
           [1., 0.]])
    >>> c, s = np.cos(0.3), np.sin(0.3)
    >>> require_orthogonal("U", np.array([[c, -s], [s, c]], dtype=np.float32))
    Traceback (most recent call last):
    ...
    ValueError: U must be orthogonal to float64 round-off (max|UᵀU - I| <= 1e-10); got a float32 array, orthogonal only to float32 round-off (max|UᵀU - I| = 4.8e-08), a defect that converting it to float64 keeps: pass dynamics.numerics.nearest_orthogonal(U), or build U in float64
    """
    Q = as_finite_array(name, value, ndim=2)
    n = Q.shape[0]
    if Q.shape != (n, n) or n == 0:
        raise ValueError(f"{name} must be a square (n, n) matrix with n >= 1, got shape {Q.shape}")
    defect = float(np.abs(Q.T @ Q - np.eye(n)).max())
    if defect > ORTHOGONALITY_TOLERANCE:
        gram = f"max|{name}ᵀ{name} - I|" if len(name) <= 3 else "max|QᵀQ - I|"
        dtype = _carried_dtype(value)
        if dtype is not None and dtype.kind == "f" and dtype.itemsize < 8 \
                and defect <= 10 * n * float(np.finfo(dtype).eps):
            raise ValueError(f"{name} must be orthogonal to float64 round-off ({gram} <= "
                             f"{ORTHOGONALITY_TOLERANCE:g}); got {_described(value, dtype)}, orthogonal only to "
                             f"{dtype.name} round-off ({gram} = {defect:.2g}), a defect that converting it to float64 "
                             f"keeps: pass dynamics.numerics.nearest_orthogonal({name}), or build {name} in float64")
        raise ValueError(_with_notes(f"{name} must be orthogonal ({gram} <= {ORTHOGONALITY_TOLERANCE:g}), got "
                                     f"{gram} = {defect:.3g}", _dtype_note(value)))
    return Q


def rng_from(seed: Union[None, int, np.random.SeedSequence, np.random.Generator]) -> np.random.Generator:
    """A ``numpy.random.Generator`` from ``seed``.

    Parameters
    ----------
    seed : None, int >= 0, numpy.random.SeedSequence or numpy.random.Generator
        None draws fresh entropy; a Generator is returned as is, so that the caller's stream continues.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> int(rng_from(3).integers(10)) == int(rng_from(3).integers(10))
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, (bool, np.bool_))
                             or not isinstance(seed, (numbers.Integral, np.random.SeedSequence))):
        raise TypeError(f"seed must be None, an int, a SeedSequence or a numpy Generator, got {seed!r}")
    if isinstance(seed, numbers.Integral) and seed < 0:
        raise ValueError(f"seed must be >= 0, got {int(seed)}")
    return np.random.default_rng(seed)
