"""Normal and binomial distribution helpers in numba, in forms that stay accurate far into the tails.

* Normal: pdf, cdf ``Φ(x) = erfc(-x/√2)/2`` (never ``1 - Φ``: use ``normal_sf(x) = Φ(-x)``),
  ``log Φ`` with its asymptotic series below -30, and the quantile ``Φ⁻¹`` (Acklam's rational
  start plus Halley steps on ``erfc``, full double precision). Used by the AND-mask's keep probabilities
  (Parascandolo et al. 2021, Prop. 2) and the signal coordinates derived from it in this project.
* Binomial: the log pmf from ``lgamma`` with ``log1p`` for ``log(1 - p)``, and upper/lower tails
  ``P(X >= k)``, ``P(X <= k)`` summed in log space (log-sum-exp), exact for every n the theories use
  (the AND-mask's agreement counts, Parascandolo et al. 2021, Prop. 2; the group counts of ``dynamics.spurious``).

* The logistic function σ(x) = 1/(1 + e^{−x}) from e^{−|x|} (1/(1 + e^{−|x|}) for x ≥ 0, e^{−|x|}/(1 + e^{−|x|})
  otherwise), which neither overflows nor loses the small values of either tail (the logistic losses of gradient
  starvation and of the spherical view's probes).

Every public function checks its arguments in Python; the ``*_kernel`` functions are the unchecked
numba versions for use inside other compiled code.
"""
import math
from typing import Union

import numba as nb
import numpy as np
from numpy.typing import ArrayLike

from .validation import as_finite_array, require_array_in_range, require_in_range, require_integer
from ._docstrings import fill_doc

_SQRT2 = math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


@nb.njit(cache=True)
def normal_pdf_kernel(x: float) -> float:
    r""":math:`\varphi(x)` for one float (unchecked, for compiled code).

    Parameters
    ----------
    x : float
        Any float; no check is made (NaN gives NaN).

    Returns
    -------
    float
        :math:`\varphi(x) = \exp(-x^2/2) / \sqrt{2\pi}`; exactly 0 for ``|x| > 40``, where it underflows.

    Examples
    --------
    >>> round(normal_pdf_kernel(0.0), 12)
    0.398942280401
    >>> normal_pdf_kernel(50.0)
    0.0
    """
    if abs(x) > 40.0:  # underflows anyway; avoids x*x overflowing for huge x
        return 0.0
    return math.exp(-0.5 * x * x - _LOG_SQRT_2PI)


@nb.njit(cache=True)
def normal_cdf_kernel(x: float) -> float:
    r""":math:`\Phi(x)` for one float (unchecked, for compiled code).

    Parameters
    ----------
    x : float
        Any float, :math:`\pm\infty` included; no check is made. For an upper tail pass :math:`-x`
        (:math:`\Phi(-x)`), never ``1 − Φ(x)``.

    Returns
    -------
    float
        :math:`\Phi(x) = \operatorname{erfc}(-x/\sqrt{2}) / 2`, in :math:`[0, 1]`.

    Examples
    --------
    >>> normal_cdf_kernel(0.0)
    0.5
    >>> f"{normal_cdf_kernel(-37.0):.10e}"  # no cancellation in the lower tail
    '5.7255712225e-300'
    """
    return 0.5 * math.erfc(-x / _SQRT2)


@nb.njit(cache=True)
def normal_logcdf_kernel(x: float) -> float:
    r""":math:`\log \Phi(x)` for one float (unchecked, for compiled code).

    Parameters
    ----------
    x : float
        Finite for :math:`x \ge -1.8 \times 10^{154}` (an asymptotic series below :math:`x = -30`); no check is
        made, and below :math:`-1.8 \times 10^{154}` :math:`\log \Phi(x) \approx -x^2/2` is not a double (the
        checked :func:`dynamics.numerics.normal_logcdf` refuses such :math:`x`).

    Returns
    -------
    float
        :math:`\log \Phi(x) \le 0`.

    Examples
    --------
    >>> round(normal_logcdf_kernel(0.0), 12)  # log(1/2)
    -0.69314718056
    >>> round(normal_logcdf_kernel(-1000.0), 3)  # -x²/2 - log(√(2π)|x|), where Φ(x) underflows
    -500007.827
    """
    if x > 0.0:
        return math.log1p(-normal_cdf_kernel(-x))
    if x > -30.0:
        return math.log(normal_cdf_kernel(x))
    # Φ(x) = φ(x)/|x| (1 - 1/x² + 3/x⁴ - 15/x⁶ + 105/x⁸ ...), truncation < 1e-12 for x <= -30.
    z = 1.0 / (x * x)
    series = 1.0 - z * (1.0 - 3.0 * z * (1.0 - 5.0 * z * (1.0 - 7.0 * z)))
    return -0.5 * x * x - _LOG_SQRT_2PI - math.log(-x) + math.log(series)


_ACKLAM_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02,
             1.383577518672690e02, -3.066479806614716e01, 2.506628277459239e00)
_ACKLAM_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02,
             6.680131188771972e01, -1.328068155288572e01)
_ACKLAM_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00,
             -2.549732539343734e00, 4.374664141464968e00, 2.938163982698783e00)
_ACKLAM_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)


@nb.njit(cache=True)
def normal_ppf_kernel(q: float) -> float:
    r""":math:`\Phi^{-1}(q)` for :math:`q \in (0, 1)`: Acklam's approximation (rel. 1e-9) refined by two Halley steps.

    Parameters
    ----------
    q : float
        A probability in :math:`(0, 1)`; no check is made: :math:`q \le 0` gives :math:`-\infty` and
        :math:`q \ge 1` gives :math:`+\infty`.

    Returns
    -------
    float
        :math:`x` with :math:`\Phi(x) = q`, to full double precision.

    Examples
    --------
    >>> round(normal_ppf_kernel(0.975), 10)
    1.9599639845
    >>> normal_ppf_kernel(0.5), normal_ppf_kernel(0.0)
    (0.0, -inf)
    """
    if q <= 0.0:
        return -math.inf
    if q >= 1.0:
        return math.inf
    a, b, c, d = _ACKLAM_A, _ACKLAM_B, _ACKLAM_C, _ACKLAM_D
    if q < 0.02425:
        r = math.sqrt(-2.0 * math.log(q))
        x = (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) / \
            ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1.0)
    elif q <= 1.0 - 0.02425:
        r = q - 0.5
        s = r * r
        x = (((((a[0] * s + a[1]) * s + a[2]) * s + a[3]) * s + a[4]) * s + a[5]) * r / \
            (((((b[0] * s + b[1]) * s + b[2]) * s + b[3]) * s + b[4]) * s + 1.0)
    else:
        r = math.sqrt(-2.0 * math.log1p(-q))
        x = -(((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5]) / \
            ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1.0)
    # Halley on Φ(x) - q; the residual uses the tail that does not cancel.
    for _ in range(2):
        if x < 0.0:
            e = normal_cdf_kernel(x) - q
        else:
            e = (1.0 - q) - normal_cdf_kernel(-x)
        u = e / normal_pdf_kernel(x)
        x = x - u / (1.0 + 0.5 * x * u)
    return x


@nb.njit(cache=True)
def log_binom_pmf_kernel(k: int, n: int, p: float) -> float:
    r""":math:`\log P(X = k)`, :math:`X \sim \mathrm{Binomial}(n, p)`; -inf outside the support.

    Parameters
    ----------
    k : int
        Number of successes, any integer (outside :math:`0, \dots, n` gives :math:`-\infty`).
    n : int
        Number of trials, >= 0 (not checked; :func:`dynamics.numerics.log_binom_pmf` allows n <= 1e7).
    p : float
        Success probability in :math:`[0, 1]` (not checked).

    Returns
    -------
    float
        :math:`\log P(X = k)`, from ``lgamma`` and ``log1p``; 0 or :math:`-\infty` at :math:`p = 0` and
        :math:`p = 1`.

    Examples
    --------
    >>> round(log_binom_pmf_kernel(1, 2, 0.5), 12)  # log(1/2)
    -0.69314718056
    >>> log_binom_pmf_kernel(3, 2, 0.5), log_binom_pmf_kernel(0, 2, 0.0)
    (-inf, 0.0)
    """
    if k < 0 or k > n:
        return -math.inf
    if p == 0.0:
        return 0.0 if k == 0 else -math.inf
    if p == 1.0:
        return 0.0 if k == n else -math.inf
    log_choose = math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)
    return log_choose + k * math.log(p) + (n - k) * math.log1p(-p)


@nb.njit(cache=True)
def log_binom_sf_kernel(k: int, n: int, p: float) -> float:
    r""":math:`\log P(X \ge k)` by log-sum-exp over the pmf (exact summation, no cancellation).

    Parameters
    ----------
    k : int
        Threshold, any integer: :math:`k \le 0` gives 0 (a sure event), :math:`k > n` gives :math:`-\infty`.
    n : int
        Number of trials, >= 0 (not checked); the sum takes two passes over the :math:`n - k + 1` terms.
    p : float
        Success probability in :math:`[0, 1]` (not checked).

    Returns
    -------
    float
        :math:`\log P(X \ge k)`, finite where :math:`P` itself underflows to 0. For the lower tail
        :math:`P(X \le k)`, pass (:math:`n - k`, :math:`n`, :math:`1 - p`).

    Examples
    --------
    >>> round(log_binom_sf_kernel(2000, 2000, 0.5), 6)  # 2000 log(1/2): P = 2^-2000 underflows, its log does not
    -1386.294361
    >>> log_binom_sf_kernel(0, 5, 0.3), log_binom_sf_kernel(6, 5, 0.3)
    (0.0, -inf)
    """
    if k <= 0:
        return 0.0
    if k > n:
        return -math.inf
    top = -math.inf
    for j in range(k, n + 1):
        top = max(top, log_binom_pmf_kernel(j, n, p))
    if top == -math.inf:
        return -math.inf
    acc = 0.0
    for j in range(k, n + 1):
        acc += math.exp(log_binom_pmf_kernel(j, n, p) - top)
    return top + math.log(acc)


# The ufuncs compile on first call (not at import) and are cached on disk. Each is its own Python function:
# a ufunc compiled from a kernel's own py_func would share the kernel's cache entry (same qualified name and
# line), and a later process could load the ufunc's machine code as the kernel's (a segfault, seen).
@nb.vectorize(cache=True)
def _NORMAL_PDF(x):
    return normal_pdf_kernel(x)


@nb.vectorize(cache=True)
def _NORMAL_CDF(x):
    return normal_cdf_kernel(x)


@nb.vectorize(cache=True)
def _NORMAL_LOGCDF(x):
    return normal_logcdf_kernel(x)


@nb.vectorize(cache=True)
def _NORMAL_PPF(q):
    return normal_ppf_kernel(q)


def _apply(ufunc, arr):
    out = ufunc(arr)
    return float(out) if np.ndim(out) == 0 else out


@nb.njit(cache=True)
def sigmoid_kernel(x: float) -> float:
    r""":math:`\sigma(x) = 1 / (1 + e^{-x})` for one float, as :math:`1/(1 + e^{-x})` for :math:`x \ge 0` and
    :math:`e^{x}/(1 + e^{x})` below (unchecked, for compiled code): only :math:`e^{-|x|}` is formed, so nothing
    overflows and the small tail keeps its relative accuracy (the form :math:`\tfrac{1}{2}(1 + \tanh(x/2))` loses
    :math:`\epsilon e^{|x|}` relative there: 6e-4 at x = −30).

    Parameters
    ----------
    x : float
        Any float; no check is made (NaN gives NaN, :math:`\pm\infty` gives 1 or 0).

    Returns
    -------
    float
        In :math:`[0, 1]`.

    Examples
    --------
    >>> sigmoid_kernel(0.0), sigmoid_kernel(-800.0)
    (0.5, 0.0)
    """
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    if x < 0.0:
        e = math.exp(x)
        return e / (1.0 + e)
    return x  # NaN


def sigmoid(x: ArrayLike) -> Union[float, np.ndarray]:
    r"""The logistic function :math:`\sigma(x) = 1 / (1 + e^{-x})`, from :math:`e^{-|x|}` alone: no overflow for large
    :math:`|x|` (the naive form's :math:`e^{-x}` overflows below :math:`x = -709`), and a few eps relative in both
    tails (:math:`\tfrac{1}{2}(1 + \tanh(x/2))` loses :math:`\epsilon e^{|x|}` in the small one).

    Parameters
    ----------
    x : float or array_like
        Real numbers; :math:`\pm\infty` allowed (:math:`\sigma` = 1 or 0), NaN refused.

    Returns
    -------
    float or numpy.ndarray
        :math:`\sigma(x)` in :math:`[0, 1]`, of the shape of ``x``.

    Raises
    ------
    ValueError
        If ``x`` holds a NaN.

    Examples
    --------
    >>> from dynamics.numerics import sigmoid
    >>> float(sigmoid(0.0)), sigmoid([-1000.0, 1000.0]).tolist()
    (0.5, [0.0, 1.0])
    """
    values = np.asarray(x, dtype=np.float64)
    if np.isnan(values).any():
        raise ValueError(f"x must not hold NaN, got {x!r}")
    e = np.exp(-np.abs(values))
    out = np.where(values >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return float(out) if out.ndim == 0 else out


@fill_doc
def normal_pdf(x: ArrayLike) -> Union[float, np.ndarray]:
    r"""Standard normal density :math:`\varphi(x) = \exp(-x^2/2) / \sqrt{2\pi}`.

    Parameters
    ----------
    %(x_finite)s

    Returns
    -------
    float or ndarray
        :math:`\varphi(x)`, of the shape of ``x`` (0 for ``|x| > 40``, where it underflows).

    Examples
    --------
    >>> round(normal_pdf(0.0), 12)
    0.398942280401
    """
    return _apply(_NORMAL_PDF, as_finite_array("x", x))


@fill_doc
def normal_cdf(x: ArrayLike) -> Union[float, np.ndarray]:
    r"""Standard normal distribution function :math:`\Phi(x) = \operatorname{erfc}(-x/\sqrt{2}) / 2`.

    For an upper tail use :func:`dynamics.numerics.normal_sf` (:math:`\Phi(-x)`), never ``1 − Φ(x)``, which
    cancels.

    Parameters
    ----------
    %(x_finite)s

    Returns
    -------
    float or ndarray
        :math:`\Phi(x)`, of the shape of ``x``.

    Examples
    --------
    >>> normal_cdf(0.0)
    0.5
    >>> f"{normal_cdf(-37.0):.10e}"  # no cancellation in the lower tail
    '5.7255712225e-300'
    """
    return _apply(_NORMAL_CDF, as_finite_array("x", x))


@fill_doc
def normal_sf(x: ArrayLike) -> Union[float, np.ndarray]:
    r"""Upper tail :math:`1 - \Phi(x)`, computed as :math:`\Phi(-x)`: accurate far into the tail.

    Parameters
    ----------
    %(x_finite)s

    Returns
    -------
    float or ndarray
        :math:`1 - \Phi(x)`, of the shape of ``x``.

    Examples
    --------
    >>> f"{normal_sf(10.0):.6e}"
    '7.619853e-24'
    """
    return _apply(_NORMAL_CDF, -as_finite_array("x", x))


def normal_logcdf(x: ArrayLike) -> Union[float, np.ndarray]:
    r""":math:`\log \Phi(x)`, finite for every finite :math:`x \ge -1.8 \times 10^{154}` (an asymptotic series below
    :math:`x = -30`).

    Parameters
    ----------
    x : float or array_like
        Finite, :math:`\ge -1.8 \times 10^{154}` (below, :math:`\log \Phi(x) \approx -x^2/2` is not a double).

    Returns
    -------
    float or ndarray
        :math:`\log \Phi(x)`, of the shape of ``x``.

    Examples
    --------
    >>> round(normal_logcdf(-1000.0), 3)  # -x²/2 - log(√(2π)|x|)
    -500007.827
    """
    arr = as_finite_array("x", x)
    if arr.size and arr.min() < -LOGCDF_LOWEST:
        raise ValueError(f"x must be >= -{LOGCDF_LOWEST:g}, got {arr.min():g} (log Φ(x) ≈ -x²/2 leaves float64 below)")
    return _apply(_NORMAL_LOGCDF, arr)


LOGCDF_LOWEST = 1.8e154  # -x²/2 > -1.7977e308 (the most negative double) for |x| < 1.8958e154


def normal_ppf(q: ArrayLike) -> Union[float, np.ndarray]:
    r"""Standard normal quantile :math:`\Phi^{-1}(q)`.

    Parameters
    ----------
    q : float or array_like
        Probabilities in :math:`(0, 1)`.

    Returns
    -------
    float or ndarray
        :math:`x` with :math:`\Phi(x) = q` (Acklam's approximation refined by Halley steps: full double precision).

    Examples
    --------
    >>> round(normal_ppf(0.975), 10)
    1.9599639845
    """
    return _apply(_NORMAL_PPF, require_array_in_range("q", q, 0.0, 1.0, low_open=True, high_open=True))


MAX_TRIALS = 10**7  # the tails sum the pmf term by term


def _binom_args(k, n, p):
    n = require_integer("n", n, 0, MAX_TRIALS)
    k = require_integer("k", k, -(2**62), 2**62)
    p = require_in_range("p", p, 0.0, 1.0)
    return k, n, p


def log_binom_pmf(k: int, n: int, p: float) -> float:
    r""":math:`\log P(X = k)` for :math:`X \sim \mathrm{Binomial}(n, p)`, from ``lgamma`` and ``log1p``.

    Parameters
    ----------
    k : int
        Number of successes (any integer; outside :math:`0, \dots, n` gives :math:`-\infty`).
    n : int
        Number of trials, :math:`0 \le n \le 10^7`.
    p : float
        Success probability in :math:`[0, 1]`.

    Returns
    -------
    float

    Examples
    --------
    >>> round(log_binom_pmf(1, 2, 0.5), 12)  # log(1/2)
    -0.69314718056
    """
    return float(log_binom_pmf_kernel(*_binom_args(k, n, p)))


@fill_doc
def binom_sf(k: int, n: int, p: float) -> float:
    r""":math:`P(X \ge k)` for :math:`X \sim \mathrm{Binomial}(n, p)`, summed in log space (no cancellation).

    Parameters
    ----------
    %(k_n_p)s

    Returns
    -------
    float

    Examples
    --------
    >>> binom_sf(2, 2, 0.5)
    0.25
    """
    return math.exp(log_binom_sf_kernel(*_binom_args(k, n, p)))


@fill_doc
def log_binom_sf(k: int, n: int, p: float) -> float:
    r""":math:`\log P(X \ge k)` for :math:`X \sim \mathrm{Binomial}(n, p)`; finite where the probability underflows
    to 0.

    Parameters
    ----------
    %(k_n_p)s

    Returns
    -------
    float

    Examples
    --------
    >>> round(log_binom_sf(2000, 2000, 0.5), 6)  # 2000 log(1/2): P = 2^-2000 underflows, its log does not
    -1386.294361
    """
    return float(log_binom_sf_kernel(*_binom_args(k, n, p)))


@fill_doc
def binom_cdf(k: int, n: int, p: float) -> float:
    r""":math:`P(X \le k)` for :math:`X \sim \mathrm{Binomial}(n, p)`, as the upper tail :math:`P(n - X \ge n - k)`
    summed in log space.

    Parameters
    ----------
    %(k_n_p)s

    Returns
    -------
    float

    Examples
    --------
    >>> binom_cdf(0, 2, 0.5)
    0.25
    """
    k, n, p = _binom_args(k, n, p)
    return math.exp(log_binom_sf_kernel(n - k, n, 1.0 - p))
