"""Lambert W, normal and binomial helpers, Marchenko–Pastur: values, limits, errors, numba use."""
import math

import numba as nb
import numpy as np
import pytest
from scipy import stats

from dynamics import numerics as nx


def test_lambertw_known_values_and_branch_point():
    assert nx.lambertw(1.0) == pytest.approx(nx.OMEGA, rel=1e-16)
    assert nx.lambertw(math.e) == 1.0
    assert nx.lambertw(0.0) == 0.0
    assert nx.lambertw(-nx.INV_E_HI) == -1.0 and nx.lambertw(-nx.INV_E_HI, -1) == -1.0
    assert nx.lambertw(-math.exp(-2.0) * 2.0, -1) == pytest.approx(-2.0, rel=1e-15)  # W(-2e^-2) = -2
    assert nx.lambertw(10.0 * math.exp(10.0)) == pytest.approx(10.0, rel=1e-15)


def test_lambertw_shapes():
    assert isinstance(nx.lambertw(2.0), float)
    assert nx.lambertw(np.ones((2, 3))).shape == (2, 3)
    assert nx.lambertw(np.array([])).shape == (0,)


@pytest.mark.parametrize("x, branch", [(-0.5, 0), (-0.5, -1), (0.0, -1), (1.0, -1), (np.nan, 0), ("1", 0),
                                       (1.0, 1), (1.0, 0.5), (-np.inf, 0), ([0.1, np.inf], -1)])
def test_lambertw_outside_domain_raises(x, branch):
    with pytest.raises((ValueError, TypeError), match="x|branch"):
        nx.lambertw(x, branch)


@nb.njit
def _lambertw_in_numba(x):
    return nx.lambertw(x) + nx.lambertw(-0.1, -1)


@nb.njit
def _lambertw_in_numba_bad(x):
    return nx.lambertw(x, -1)


def test_lambertw_callable_from_numba():
    assert _lambertw_in_numba(1.0) == pytest.approx(nx.OMEGA + nx.lambertw(-0.1, -1), rel=1e-15)
    with pytest.raises(ValueError, match="domain"):
        _lambertw_in_numba_bad(0.5)


def test_normal_quantile_round_trip_and_symmetry():
    q = np.geomspace(1e-300, 0.5, 200)
    x = nx.normal_ppf(q)
    assert np.allclose(nx.normal_cdf(x), q, rtol=1e-12, atol=0)
    upper = 1 - q[q > 1e-15]  # rounded; 1 - upper is then exact (Sterbenz)
    assert np.allclose(nx.normal_ppf(upper), -nx.normal_ppf(1 - upper), rtol=1e-12)
    assert nx.normal_ppf(0.5) == 0.0
    assert nx.normal_sf(37.0) > 0.0 and nx.normal_logcdf(-1e4) == pytest.approx(stats.norm.logcdf(-1e4), rel=1e-12)


@pytest.mark.parametrize("q", [0.0, 1.0, -0.1, 1.5, np.nan])
def test_normal_ppf_domain(q):
    with pytest.raises(ValueError, match="q"):
        nx.normal_ppf(q)


def test_binomial_edges_and_errors():
    assert nx.binom_sf(0, 10, 0.3) == 1.0 and nx.binom_sf(11, 10, 0.3) == 0.0
    assert nx.log_binom_pmf(0, 5, 0.0) == 0.0 and nx.log_binom_pmf(5, 5, 1.0) == 0.0
    assert nx.log_binom_pmf(3, 5, 0.0) == -math.inf
    assert nx.binom_cdf(3, 10, 0.5) == pytest.approx(stats.binom.cdf(3, 10, 0.5), rel=1e-13)
    for kwargs, name in ((dict(k=1, n=-1, p=0.5), "n"), (dict(k=1, n=3, p=1.5), "p"), (dict(k=0.5, n=3, p=0.5), "k"),
                         (dict(k=1, n=3, p=np.nan), "p")):
        with pytest.raises((ValueError, TypeError), match=name):
            nx.binom_sf(**kwargs)


def test_marchenko_pastur_density_matches_sampled_spectrum():
    rng = np.random.default_rng(0)
    n, p = 400, 800  # α = P/N = 2: eigenvalues of X Xᵀ / N with X of shape (N, P)
    x = rng.standard_normal((n, p))
    eig = np.linalg.eigvalsh(x @ x.T / n)
    ks = stats.kstest(eig, lambda v: nx.mp_cdf(v, 2.0)).statistic
    assert ks < 0.03
    lo, hi = nx.mp_edges(2.0)
    assert eig.min() > lo - 0.1 and eig.max() < hi + 0.1


def test_marchenko_pastur_alpha_below_one_has_atom():
    assert nx.mp_atom(0.25) == 0.75 and nx.mp_atom(2.0) == 0.0
    assert nx.mp_cdf(-1.0, 0.25) == 0.0 and nx.mp_cdf(0.0, 0.25) == pytest.approx(0.75)
    assert nx.mp_cdf(100.0, 0.25) == pytest.approx(1.0, abs=1e-12)
    assert nx.mp_density(0.0, 1.0) == 0.0 and nx.mp_density(10.0, 1.0) == 0.0


@pytest.mark.parametrize("alpha", [0.0, -1.0, np.nan, np.inf])
def test_marchenko_pastur_rejects_bad_alpha(alpha):
    with pytest.raises(ValueError, match="alpha"):
        nx.mp_edges(alpha)
    with pytest.raises(ValueError, match="alpha"):
        nx.mp_integrate(np.ones_like, alpha)


def test_mp_integrate_checks_f():
    with pytest.raises(ValueError, match="last axis"):
        nx.mp_integrate(lambda lam: np.ones(3), 1.0)
    with pytest.raises(ValueError, match="not finite"), np.errstate(divide="ignore"):
        nx.mp_integrate(lambda lam: 1.0 / (lam - lam), 1.0)
    many = nx.mp_integrate(lambda lam: np.exp(-np.outer([0.0, 1.0], lam)), 0.5)
    assert many.shape == (2,) and many[0] == pytest.approx(0.5, rel=1e-13)


def test_ufunc_and_kernel_caches_do_not_collide(tmp_path):
    """Regression: the lazily compiled ufuncs were built from the kernels' own Python functions, so both wrote
    the same disk-cache entry and a later process loaded the ufunc's code as the kernel's (a segfault)."""
    import subprocess
    import sys

    env = dict(__import__("os").environ, NUMBA_CACHE_DIR=str(tmp_path))
    first = "import numpy as np; from dynamics import numerics as nx; print(float(nx.normal_logcdf(np.array([-1.0]))[0]))"
    second = "from dynamics import numerics as nx; print(nx.normal_logcdf_kernel(-1.0), nx.normal_cdf_kernel(0.0))"
    outputs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
               for code in (first, second, first)]
    assert all(out.returncode == 0 for out in outputs), [out.stderr[-300:] for out in outputs]
    assert outputs[1].stdout.split() == [outputs[0].stdout.strip(), "0.5"]


@pytest.mark.parametrize("A", [[[0.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [2.0, 4.0]], [[0.0, 1.0], [0.0, 1.0]]])
def test_lu_factor_of_a_singular_matrix_is_a_value_error(A):
    """A zero pivot is reported as a ValueError saying A must be invertible (the fuzz found a ZeroDivisionError)."""
    with pytest.raises(ValueError, match="invertible"):
        nx.lu_factor(np.array(A))
