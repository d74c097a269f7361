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
        options = nx.OdeOptions(method=method, rtol=rtol, atol=atol, step=step, max_steps=2000)
        sol = nx.solve_ode(_rhs, (0.0, t1), y0, t_eval=t_eval, params=np.array(p), options=options)
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


# ------------------------------------------------------------------------------ argument checks name the dtype
# The theories compute in float64. An argument that carries another dtype is checked by its values (converted
# exactly), and a failed check names that dtype, with the cause where the dtype is it.
import pytest  # noqa: E402


def _float32_rotation(angle=0.3):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]], dtype=np.float32)


def test_a_float32_orthogonal_matrix_is_refused_naming_its_dtype_and_the_fix():
    U32 = nx.haar_orthogonal(6, seed=2).astype(np.float32)
    with pytest.raises(ValueError) as info:
        nx.require_orthogonal("U", U32)
    message = str(info.value)
    assert "U must be orthogonal to float64 round-off" in message and "got a float32 array" in message
    assert "orthogonal only to float32 round-off" in message and "nearest_orthogonal(U)" in message
    # converting alone does not help (the defect is the matrix's, not the dtype's), which is why it is refused
    with pytest.raises(ValueError, match="must be orthogonal"):
        nx.require_orthogonal("U", U32.astype(np.float64))
    U = nx.require_orthogonal("U", nx.nearest_orthogonal(U32))  # the explicit fix
    assert U.dtype == np.float64 and np.abs(U - U32).max() < 1e-6
    with pytest.raises(ValueError, match=r"float16 round-off"):
        nx.require_orthogonal("U", U32.astype(np.float16))


def test_orthogonality_is_checked_on_the_values_whatever_the_dtype():
    permutation = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    for dtype in (np.int8, np.int64, np.uint8, np.float16, np.float32, np.longdouble):
        Q = nx.require_orthogonal("U", permutation.astype(dtype))
        assert Q.dtype == np.float64 and np.array_equal(Q, permutation)
    with pytest.raises(ValueError, match=r"got max\|UᵀU - I\| = 1 \(an int64 array\)$"):
        nx.require_orthogonal("U", np.array([[1, 1], [0, 1]], dtype=np.int64))
    with pytest.raises(ValueError, match=r"= 1 \(a float32 array\)$"):  # far beyond float32 round-off: no hint
        nx.require_orthogonal("U", np.array([[1, 1], [0, 1]], dtype=np.float32))
    with pytest.raises(ValueError, match=r"got max\|UᵀU - I\| = [0-9.e-]+$"):  # float64 and lists: no dtype named
        nx.require_orthogonal("U", _float32_rotation().astype(np.float64).tolist())


def test_non_real_dtypes_are_type_errors_naming_the_dtype():
    with pytest.raises(TypeError, match=r"^U must be real, got a complex128 array$"):
        nx.require_orthogonal("U", np.eye(2) * 1j)
    with pytest.raises(TypeError, match=r"complex128 array: its imaginary parts are all 0, pass U\.real"):
        nx.require_orthogonal("U", np.eye(2).astype(complex))
    with pytest.raises(TypeError, match=r"got a <U1 array \(strings\)"):  # was parsed into numbers
        nx.as_finite_array("x", np.array(["1", "2"]))
    with pytest.raises(TypeError, match=r"\(dates\)"):
        nx.as_finite_array("t", np.array(["2020-01-01"], dtype="datetime64[D]"))
    with pytest.raises(TypeError, match=r"object array holding NoneType \(entry 1\)"):  # was NaN, "must be finite"
        nx.as_finite_array("x", np.array([1.0, None]))
    np.testing.assert_array_equal(nx.as_finite_array("x", np.array([1, 2.5], dtype=object)), [1.0, 2.5])
    # numpy scalars and 0-d arrays through as_float: complex was cut to its real part, strings and dates parsed
    with pytest.raises(TypeError, match=r"^eta must be real, got a complex128 value$"):
        nx.as_float("eta", np.complex128(1 + 2j))
    for value in (np.str_("1.5"), np.array("1.5"), np.datetime64("2020-01-01"), np.array(True)):
        with pytest.raises(TypeError, match=r"^eta must be a real number, got .* \(an? \S+ value\)$"):
            nx.as_float("eta", value)
    assert nx.as_float("eta", np.float32(0.5)) == 0.5 and nx.as_float("eta", np.array(2.5, dtype=object)) == 2.5


def test_value_checks_name_a_dtype_that_is_not_float64():
    with pytest.raises(ValueError, match=r"got 255 \(entry 1; a uint8 array\)$"):  # e.g. 0 - 1 wrapped around
        nx.require_array_in_range("counts", np.array([3, 255], dtype=np.uint8), 0.0, 100.0)
    with pytest.raises(ValueError, match=r"^s must be >= 0, got -2 \(entry 1\)$"):  # lists and float64: unchanged
        nx.require_array_in_range("s", [1.0, -2.0], 0.0)
    with pytest.raises(ValueError, match=r"^s must be >= 0, got -2 \(entry 1\)$"):
        nx.require_array_in_range("s", np.array([1.0, -2.0]), 0.0)
    with pytest.raises(ValueError, match=r"^x must be finite, got \[1, nan\] \(a float32 array\)$"):
        nx.as_finite_array("x", np.array([1.0, np.nan], dtype=np.float32))
    with pytest.raises(ValueError, match=r"^t must lie in \[0, inf\], got -1 \(an int64 array\)$"):
        nx.require_times("t", np.array([1, -1]))


def test_a_narrow_float_rounded_onto_a_bound_or_to_inf_is_named_as_the_cause():
    with np.errstate(over="ignore"):
        overflowed = np.array([1.0, 1e5], dtype=np.float16)
    with pytest.raises(ValueError, match=r"a float16 array: float16 overflows to inf above 65504; compute it in "
                                         r"float64"):
        nx.as_finite_array("x", overflowed)
    q = np.array([0.5, 1 - 1e-9], dtype=np.float32)  # 1 - 1e-9 rounds to 1 in float32
    with pytest.raises(ValueError, match=r"got 1 \(entry 1; a float32 array, which carries about 6 significant "
                                         r"digits: 1 is within its round-off of the bound 1; compute it in float64\)"):
        nx.normal_ppf(q)
    assert np.isfinite(nx.normal_ppf(q.astype(np.float64) - np.array([0.0, 1e-9]))).all()
    with pytest.raises(ValueError, match=r"got 0 \(a float32 value, which carries .* the bound 0"):
        nx.require_positive("learning_rate", np.float32(1e-50))
    with pytest.raises(ValueError, match=r"strictly increasing, got 1 after 1 \(entry 1; a float32 array, which .*"
                                         r"the time before it, 1"):
        nx.require_output_times("t", np.array([1.0, 1.0 + 1e-9], dtype=np.float32), strictly_increasing=True)
    with pytest.raises(ValueError, match=r"got 2 \(a float32 value\)$"):  # far from the bound: the dtype, no cause
        nx.require_in_range("p", np.float32(2.0), 0.0, 1.0)


@SETTINGS
@given(values=st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=5),
       dtype=st.sampled_from([np.float16, np.float32, np.float64, np.int16, np.int64, np.uint8]),
       low=st.floats(-10.0, 10.0))
def test_a_failed_range_check_names_every_dtype_but_float64(values, dtype, low):
    with np.errstate(all="ignore"):
        arr = np.array(values).astype(dtype)
    try:
        out = nx.require_array_in_range("x", arr, low)
    except ValueError as exc:
        named = f"{np.dtype(dtype).name} array" in str(exc)
        assert named == (dtype is not np.float64), str(exc)
        return
    assert out.dtype == np.float64 and np.array_equal(out, arr.astype(np.float64))


def test_a_torch_tensor_is_named_by_its_dtype():
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError, match=r"got tensor\(\[1\., inf\]\) \(a float32 array: float32 overflows"):
        nx.as_finite_array("x", torch.tensor([1.0, float("inf")]))
    U32 = torch.from_numpy(nx.haar_orthogonal(3, seed=0).astype(np.float32))
    with pytest.raises(ValueError, match="got a float32 array, orthogonal only to float32 round-off"):
        nx.require_orthogonal("U", U32)
    with pytest.raises(TypeError, match="numpy cannot convert"):
        nx.as_finite_array("x", torch.ones(2, requires_grad=True))


def test_solvers_refuse_complex_instead_of_dropping_the_imaginary_part():
    with pytest.raises(TypeError, match=r"^atol must be real, got a complex128 array$"):
        nx.solve_ode(_rhs, (0.0, 1.0), [1.0], params=np.zeros(3), options=nx.OdeOptions(atol=np.array([1e-9 + 1e-9j])))
    with pytest.raises(TypeError, match=r"^f's values must be real, got a complex128 array$"):
        nx.mp_integrate(lambda lam: lam * (1 + 1j), 0.5)
    LU, pivots = nx.lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]]))
    with pytest.raises(TypeError, match=r"pivots must be lu_factor's int array, got a float64 array"):
        nx.lu_solve(LU, pivots.astype(float), np.ones(2))
