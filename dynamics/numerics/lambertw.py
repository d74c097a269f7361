"""Real Lambert W, branches 0 and -1, in numba (``W(x) e^{W(x)} = x``).

The function W appears in the fixed points of gradient starvation (Pezeshki et al. 2021, Eqs 12–13). Halley iteration
``w <- w - f / (e^w (w+1) - (w+2) f / (2w+2))`` with ``f = w e^w - x`` from

* near the branch point (x < -1/4) the series in ``p = sqrt(2e (x + 1/e))``,
  ``W = -1 + σp - p²/3 + σ(11/72)p³ - (43/540)p⁴ + σ(769/17280)p⁵`` (σ = +1 on branch 0, -1 on branch -1),
  returned directly when p < 1e-3, with x + 1/e formed from a two-word 1/e so that the double
  nearest to -1/e maps to exactly -1 on both branches;
* branch 0: ``log1p(x)`` on [-1/4, 1), linear between W(1) = Ω and W(e) = 1, ``log x - log log x`` above e;
* branch -1: ``L - log(-L)`` with ``L = log(-x)``.

For |x| beyond about 1e±300, ``w e^w`` leaves the float range, so Newton runs on the logarithmic
residual ``w + log|w| - log|x|`` instead.

:func:`dynamics.numerics.lambertw` is the checked, vectorised public function; it is also callable from ``@njit`` code
on scalars (an ``overload``), where a domain error raises ``ValueError`` too.
"""
import math
from typing import Union

import numba as nb
import numpy as np
from numba.extending import overload
from numpy.typing import ArrayLike

from .validation import as_finite_array, format_value, require_choice

__all__ = ["INV_E_HI", "OMEGA", "lambertw", "lambertw_kernel"]

INV_E_HI = 0.36787944117144233
INV_E_LO = -1.2428753672788363e-17
OMEGA = 0.5671432904097838  # W(1)
_EPS = 2.220446049250313e-16


@nb.njit(cache=True)
def _halley(x, w):
    for _ in range(24):
        ew = math.exp(w)
        f = w * ew - x
        denom = ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0)
        if denom == 0.0 or not math.isfinite(denom):
            break
        dw = f / denom
        w -= dw
        if abs(dw) <= 4.0 * _EPS * (1.0 + abs(w)):
            break
    return w


@nb.njit(cache=True)
def _newton_log(log_abs_x, w):
    """Solve w + log|w| = log|x| (the same equation as w e^w = x, for x far from 1)."""
    for _ in range(50):
        g = w + math.log(abs(w)) - log_abs_x
        dw = g / (1.0 + 1.0 / w)
        w -= dw
        if abs(dw) <= 4.0 * _EPS * (1.0 + abs(w)):
            break
    return w


@nb.njit(cache=True)
def lambertw_kernel(x: float, branch: int) -> float:
    r""":math:`W_\mathrm{branch}(x)` for one float, branch 0 or :math:`-1`; NaN outside the real domain or for
    non-finite :math:`x`.

    The unchecked kernel for compiled code; Python callers use :func:`dynamics.numerics.lambertw`.

    Parameters
    ----------
    x : float
        Any float; the real domain is :math:`x \ge -1/e` on branch 0 and :math:`-1/e \le x < 0` on branch
        :math:`-1`.
    branch : int
        0 (the principal branch, :math:`W \ge -1`) or :math:`-1` (the lower one, :math:`W \le -1`); any other value
        gives NaN.

    Returns
    -------
    float
        :math:`W(x)`, the :math:`w` with :math:`w e^w = x`; exactly :math:`-1` at the double nearest :math:`-1/e`;
        NaN for an :math:`x` outside the domain of the branch, a non-finite :math:`x` or an invalid branch (no
        exception).

    Examples
    --------
    >>> lambertw_kernel(1.0, 0)  # the omega constant
    0.5671432904097838
    >>> lambertw_kernel(-0.1, -1)
    -3.577152063957297
    >>> lambertw_kernel(-INV_E_HI, 0), lambertw_kernel(-INV_E_HI, -1)
    (-1.0, -1.0)
    >>> lambertw_kernel(-1.0, 0), lambertw_kernel(0.5, -1)
    (nan, nan)
    """
    if not math.isfinite(x) or x < -INV_E_HI or (branch == -1 and x >= 0.0) or (branch != 0 and branch != -1):
        return math.nan
    if x < -0.25:
        q = (x + INV_E_HI) + INV_E_LO
        if q <= 0.0:
            return -1.0
        p = math.sqrt(2.0 * math.e * q)
        sigma = 1.0 if branch == 0 else -1.0
        w = -1.0 + p * (sigma + p * (-1.0 / 3.0 + p * (sigma * 11.0 / 72.0
                                                     + p * (-43.0 / 540.0 + p * sigma * 769.0 / 17280.0))))
        if p < 1e-3:
            return w
        return _halley(x, w)
    if branch == 0:
        if x > 1e300:
            log_x = math.log(x)
            return _newton_log(log_x, log_x - math.log(log_x))
        if x < 1.0:
            w = math.log1p(x)
        elif x <= math.e:
            w = OMEGA + (x - 1.0) * (1.0 - OMEGA) / (math.e - 1.0)
        else:
            w = math.log(x) - math.log(math.log(x))
        return _halley(x, w)
    log_minus_x = math.log(-x)
    w = log_minus_x - math.log(-log_minus_x)
    if x > -1e-280:
        return _newton_log(log_minus_x, w)
    return _halley(x, w)


@nb.njit(cache=True)
def _lambertw_array(x, branch):
    out = np.empty_like(x)
    for i in range(x.size):
        out.flat[i] = lambertw_kernel(x.flat[i], branch)
    return out


def lambertw(x: ArrayLike, branch: int = 0) -> Union[float, np.ndarray]:
    r"""Real Lambert W: the :math:`w` with :math:`w e^w = x` (the :math:`W` of Pezeshki et al. 2021, Eqs 12–13).

    Callable on scalars from numba code as well (an ``overload``).

    Parameters
    ----------
    x : float or array_like
        Finite; :math:`x \ge -1/e` on branch 0, :math:`-1/e \le x < 0` on branch :math:`-1`.
    branch : {0, -1}
        The principal branch (:math:`W \ge -1`) or the lower one (:math:`W \le -1`).

    Returns
    -------
    float or ndarray
        :math:`W(x)`, of the shape of ``x``; exactly :math:`-1` at the double nearest :math:`-1/e`.

    Examples
    --------
    >>> lambertw(1.0)  # the omega constant
    0.5671432904097838
    >>> lambertw(-0.1, branch=-1)
    -3.577152063957297
    >>> lambertw(-1.0)
    Traceback (most recent call last):
    ...
    ValueError: x must be >= -1/e = -0.36787944117144233 for real Lambert W, got -1
    """
    require_choice("branch", branch, (0, -1))
    arr = as_finite_array("x", x)
    if arr.size and np.min(arr) < -INV_E_HI:
        raise ValueError(f"x must be >= -1/e = -{INV_E_HI!r} for real Lambert W, got {format_value(np.min(arr))}")
    if branch == -1 and arr.size and np.max(arr) >= 0.0:
        raise ValueError(f"x must be in [-1/e, 0) on branch -1, got {format_value(np.max(arr))}")
    out = _lambertw_array(np.ascontiguousarray(arr.ravel()), branch).reshape(arr.shape)
    return float(out) if out.ndim == 0 else out


@overload(lambertw, jit_options={"cache": True})
def _lambertw_numba(x, branch=0):
    def impl(x, branch=0):
        w = lambertw_kernel(x, branch)
        if math.isnan(w):
            raise ValueError("lambertw: x outside the real domain of the branch (x >= -1/e; x < 0 on branch -1)")
        return w
    return impl
