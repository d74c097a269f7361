"""Random inputs through the public numerics API: either a clean ValueError/TypeError, or a finite
result (an integration that cannot finish says so in its result, with finite rows)."""
import math

import numba as nb
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dynamics import numerics as nx

ANY_FLOAT = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                      st.floats(-1e3, 1e3), st.sampled_from([0.0, -0.0, 1e-300, -1e-300, 1e300, -1 / math.e]))
SETTINGS = settings(max_examples=50, deadline=None)


@nb.njit(cache=True)
def _rhs(t, y, p):  # decays, grows, or blows up in finite time depending on p
    return p[0] * y + p[1] * y * y + p[2] * np.sin(t)


def _finite(x):
    return np.all(np.isfinite(np.asarray(x, dtype=float)))


@SETTINGS
@given(t1=ANY_FLOAT, y0=st.lists(ANY_FLOAT, min_size=0, max_size=3), p=st.lists(st.floats(-5, 5), min_size=3, max_size=3),
       method=st.sampled_from(["dopri5", "dop853", "rk4", "euler"]), rtol=ANY_FLOAT, atol=ANY_FLOAT,
       step=st.one_of(st.none(), ANY_FLOAT), n_eval=st.integers(0, 5), shuffle=st.booleans())
def test_solve_ode_never_fails_silently(t1, y0, p, method, rtol, atol, step, n_eval, shuffle):
    t_eval = None
    if n_eval:
        t_eval = np.linspace(0.0, t1 if math.isfinite(t1) else 1.0, n_eval)
        if shuffle:
            t_eval = t_eval[::-1]
    try:
        sol = nx.solve_ode(_rhs, (0.0, t1), y0, t_eval=t_eval, params=np.array(p), method=method, rtol=rtol,
                           atol=atol, step=step, max_steps=2000)
    except (ValueError, TypeError):
        return
    assert _finite(sol.t) and _finite(sol.y) and sol.y.shape == (len(sol.t), len(y0))
    if sol.success:
        assert sol.t[-1] == (t1 if t_eval is None else t_eval[-1])
    else:
        assert sol.message


@SETTINGS
@given(x=st.one_of(ANY_FLOAT, st.lists(ANY_FLOAT, max_size=4)), branch=st.sampled_from([0, -1, 1, 0.0, "0"]))
def test_lambertw_never_fails_silently(x, branch):
    try:
        w = nx.lambertw(x, branch)
    except (ValueError, TypeError):
        return
    assert not np.any(np.isnan(w))
    finite = np.isfinite(np.asarray(x, dtype=float)) & (np.abs(np.asarray(x, dtype=float)) < 1e300)
    w_arr, x_arr = np.atleast_1d(w), np.atleast_1d(np.asarray(x, dtype=float))
    with np.errstate(over="ignore"):
        assert np.allclose(w_arr * np.exp(w_arr), x_arr, rtol=1e-12, atol=1e-300) or not np.all(finite)


@SETTINGS
@given(value=ANY_FLOAT, k=st.one_of(st.integers(-3, 60), ANY_FLOAT), n=st.one_of(st.integers(-2, 60), ANY_FLOAT),
       which=st.sampled_from(["cdf", "sf", "pdf", "logcdf", "ppf", "binom_sf", "binom_cdf", "log_binom_pmf"]))
def test_special_functions_never_fail_silently(value, k, n, which):
    try:
        if which.startswith("binom") or which == "log_binom_pmf":
            out = getattr(nx, which)(k, n, value)
        else:
            out = getattr(nx, f"normal_{which}")(value)
    except (ValueError, TypeError):
        return
    assert not np.isnan(out)
    if which in ("cdf", "sf", "pdf", "ppf", "binom_sf", "binom_cdf"):
        assert np.isfinite(out) or which == "ppf"


@SETTINGS
@given(alpha=ANY_FLOAT, scale=ANY_FLOAT, lam=ANY_FLOAT)
def test_marchenko_pastur_never_fails_silently(alpha, scale, lam):
    try:
        lo, hi = nx.mp_edges(alpha, scale)
        values = (nx.mp_density(lam, alpha, scale), nx.mp_cdf(lam, alpha, scale),
                  nx.mp_integrate(np.ones_like, alpha, scale))
    except (ValueError, TypeError):
        return
    assert _finite([lo, hi, *values]) and 0.0 <= values[1] <= 1.0 + 1e-12


FINITE = st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                   st.sampled_from([0.0, 5e-324, 1e-300, 1e300, 1.7976931348623157e308, -1e-320]))


@SETTINGS
@given(factors=st.lists(FINITE, min_size=1, max_size=4), divisors=st.lists(FINITE.filter(lambda x: x != 0.0),
                                                                         max_size=3))
def test_require_finite_product_is_the_rounded_exact_product(factors, divisors):
    """∏ factors / ∏ divisors through mantissas and exponents: the exact rational value rounded (to a few ulps, and
    to the nearest subnormal below 2.2e-308), or a ValueError exactly when that value leaves float64."""
    from fractions import Fraction
    exact = Fraction(1)
    for f in factors:
        exact *= Fraction(f)
    for d in divisors:
        exact /= Fraction(d)
    limit = Fraction(np.finfo(np.float64).max) * (1 + Fraction(1, 2 ** 50))
    try:
        value = nx.require_finite_product(factors, divisors)
    except ValueError:
        assert abs(exact) > Fraction(np.finfo(np.float64).max) * (1 - Fraction(1, 2 ** 50))
        return
    assert abs(exact) <= limit
    assert math.isfinite(value)
    assert abs(Fraction(value) - exact) <= abs(exact) * Fraction(1, 2 ** 49) + Fraction(2.0 ** -1074) * 2
