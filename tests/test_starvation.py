"""Unit and property tests of dynamics.starvation: bad input, limits, invariances, spec regression values."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dynamics import starvation as gs

U_TOY = gs.coupling_matrix(0.5)
S_TOY = np.array([6.0, 2.0])


# ------------------------------------------------------------------ bad input names the parameter
BAD_CALLS = [
    ("lam", lambda: gs.dual_fixed_point(U_TOY, S_TOY, 0.0)),
    ("lam", lambda: gs.feature_response(U_TOY, S_TOY, -1.0)),
    ("lam", lambda: gs.lambert_fixed_point([1.0], 0.0)),
    ("lam", lambda: gs.sd_fixed_point(U_TOY, -0.1)),
    ("lam", lambda: gs.sd_margin(float("nan"))),
    ("lam", lambda: gs.integrate_dual(U_TOY, S_TOY, 0.0, [0.0, 1.0])),
    ("lam", lambda: gs.exact_uncoupled_response([1.0], 0.0)),
    ("U", lambda: gs.dual_fixed_point(np.array([[1.0, 0.1], [0.0, 1.0]]), S_TOY, 0.1)),
    ("U", lambda: gs.feature_response(np.ones((2, 3)), S_TOY, 0.1)),
    ("U", lambda: gs.sd_fixed_point(2 * np.eye(2), 0.1)),
    ("U", lambda: gs.integrate_dual(np.eye(2) * 1.1, S_TOY, 0.1, [1.0])),
    ("s", lambda: gs.dual_fixed_point(U_TOY, [0.0, 1.0], 0.1)),
    ("s", lambda: gs.feature_response(U_TOY, [-1.0, 1.0], 0.1)),
    ("s", lambda: gs.feature_response(U_TOY, [1.0, 1.0, 1.0], 0.1)),
    ("s", lambda: gs.lambert_fixed_point([1.0, 0.0], 0.1)),
    ("s", lambda: gs.first_order_response([1.0, -2.0], 0.1, 0.1)),
    ("alpha0", lambda: gs.integrate_dual(U_TOY, S_TOY, 0.1, [1.0], alpha0=[0.5, 1.0])),
    ("alpha0", lambda: gs.integrate_dual(U_TOY, S_TOY, 0.1, [1.0], alpha0=[0.0, 0.5], exact=False)),
    ("alpha0", lambda: gs.dual_gd(U_TOY, S_TOY, 0.1, 1e-6, 10, alpha0=1.5)),
    ("delta", lambda: gs.coupling_matrix(1.0)),
    ("delta", lambda: gs.coupling_matrix(-1.5)),
    ("delta", lambda: gs.dz2_ds1sq(S_TOY, 0.1, 2.0)),
    ("delta", lambda: gs.starvation_map([1.0, 2.0], [0.5, 1.0])),
    ("t_eval", lambda: gs.integrate_dual(U_TOY, S_TOY, 0.1, [1.0, 0.5])),
    ("t_eval", lambda: gs.integrate_dual(U_TOY, S_TOY, 0.1, [-1.0, 0.5])),
    ("x", lambda: gs.lambertw(-1.0)),
    ("branch", lambda: gs.lambertw(1.0, 2)),
    ("lr", lambda: gs.primal_gd_z(U_TOY, S_TOY, 0.1, 0.0, 10)),
    ("y", lambda: gs.primal_optimum(np.eye(2), [1.0, 0.5], 0.1)),
    ("Phi0", lambda: gs.features(np.ones((3, 2)), [1.0, 1.0, -1.0])),
    ("margin", lambda: gs.two_moons(margin=2.0)),
    ("loss", lambda: gs.primal_loss("logistic", 0.0)),
    # float64 overflow is an error naming the input, not a silent NaN/inf
    ("s and lam", lambda: gs.lambert_fixed_point([1e200], 0.1)),
    ("s and lam", lambda: gs.lambert_fixed_point([1.0], 1e-320)),
    ("s and lam", lambda: gs.exact_uncoupled_response([1e200], 0.1)),
    ("s and lam", lambda: gs.dual_fixed_point(U_TOY, [1e200, 1.0], 0.1)),
    ("s and lam", lambda: gs.lemma1_fixed_point(U_TOY, [1e200, 1.0], 0.1)),
    ("s and lam", lambda: gs.first_order_response([1e200, 1.0], 0.1, 0.1)),
    ("s and lam", lambda: gs.dz2_ds1sq([1e200, 1.0], 0.1, 0.1)),
    ("s1 and lam", lambda: gs.starvation_map([1e200], [0.5])),
    ("lam", lambda: gs.sd_margin(1e-320)),
    ("lam", lambda: gs.sd_lambert_approx(1e-320)),
    ("alpha", lambda: gs.jacobian(U_TOY, S_TOY, 0.01, [1e-320, 0.5])),
    ("lr", lambda: gs.primal_gd_z(U_TOY, S_TOY, 0.01, 1e3, 1000)),
    ("lr", lambda: gs.primal_gd_theta(np.eye(2), [1.0, 1.0], 0.01, 1e3, 1000)),
    ("omega", lambda: gs.primal_loss("squared", 1e200)),
    ("alpha", lambda: gs.dual_objective("squared", 1e200, 0.0)),
    ("exact", lambda: gs.dual_fixed_point(U_TOY, S_TOY, 0.1, exact="yes")),
    ("sd", lambda: gs.integrate_dual(U_TOY, S_TOY, 0.1, [1.0], sd=None)),
]


@pytest.mark.parametrize("name, call", BAD_CALLS, ids=[f"{name}-{i}" for i, (name, _) in enumerate(BAD_CALLS)])
def test_bad_input_names_the_parameter(name, call):
    with pytest.raises((ValueError, TypeError), match=name):
        call()


def test_lambertw_callable_from_numba_and_raises():
    import numba

    @numba.njit
    def twice(x):
        return 2.0 * gs.lambertw(x, 0)

    assert twice(math.e) == pytest.approx(2.0, rel=1e-15)
    with pytest.raises(ValueError):
        twice(-1.0)


# ------------------------------------------------------------------ spec regression values (§2.7, §4.2, P15-P16)
def test_case2_regression_values():
    alpha, z = gs.lambert_fixed_point(np.sqrt([4.0, 1.0, 0.25, 9.0]), 0.1)
    np.testing.assert_allclose(alpha, [0.06621559, 0.16422751, 0.32293981, 0.03640664], atol=1e-8)
    np.testing.assert_allclose(z, [2.64862371, 1.64227507, 0.80734952, 3.27659750], atol=1e-8)


def test_toy_table_delta_half():
    table = {2: (6.12044, 1.63997), 3: (7.06815, 1.58311), 4: (7.81205, 1.46681), 5: (8.46519, 1.32902),
             6: (9.07102, 1.18534)}
    for s1, expected in table.items():
        np.testing.assert_allclose(gs.feature_response(U_TOY, [s1, 2.0], 0.01), expected, atol=1e-5)


def test_sd_regression_values():
    assert gs.sd_margin(0.002) == pytest.approx(4.6651204124, abs=1e-10)
    assert gs.sd_margin(0.01) == pytest.approx(3.3592750454, abs=1e-10)
    np.testing.assert_allclose(gs.sd_fixed_point(U_TOY, 0.002)[0], [6.372673, 1.707553], atol=1e-6)


def test_first_order_regression():
    np.testing.assert_allclose(gs.first_order_response(np.sqrt([9.0, 4.0]), 0.1, 1e-3), [3.28004169, 2.64586958],
                               atol=1e-8)
    assert gs.dz2_ds1sq(np.sqrt([9.0, 4.0]), 0.1, 1e-3) == pytest.approx(-2.7094e-5, rel=1e-4)


def test_primal_and_dual_gd_after_50_and_1000_updates():
    primal = gs.primal_gd_z(U_TOY, S_TOY, 0.01, 0.05, 1000)
    _, dual = gs.dual_gd(U_TOY, S_TOY, 0.01, 3e-6, 1000)
    np.testing.assert_allclose(primal[50], [6.38, 0.50], atol=0.01)
    np.testing.assert_allclose(dual[50], [4.45, 0.17], atol=0.01)
    np.testing.assert_allclose(primal[51], [6.41, 0.51], atol=0.01)  # spec P19: "after 51 updates"
    np.testing.assert_allclose(dual[51], [4.50, 0.17], atol=0.01)
    np.testing.assert_allclose(primal[1000], [9.16, 1.04], atol=0.01)
    np.testing.assert_allclose(dual[1000], [8.98, 1.10], atol=0.01)


# ------------------------------------------------------------------ limits t = 0 and t = inf
@pytest.mark.parametrize("exact, sd", [(True, False), (False, False), (True, True), (False, True)])
def test_integrate_dual_limits(exact, sd):
    alpha0 = np.array([0.3, 0.6])
    alpha, z = gs.integrate_dual(U_TOY, [3.0, 2.0], 0.1, [0.0, 0.0, 40.0], alpha0=alpha0, exact=exact, sd=sd)
    np.testing.assert_array_equal(alpha[0], alpha0)
    np.testing.assert_array_equal(alpha[1], alpha0)
    if sd:
        expected = gs.sd_lambert_approx(0.1) if not exact else 0.1 * gs.sd_margin(0.1)
        np.testing.assert_allclose(alpha[-1], expected, atol=1e-9)
    else:
        np.testing.assert_allclose(alpha[-1], gs.dual_fixed_point(U_TOY, [3.0, 2.0], 0.1, exact), atol=1e-9)
        np.testing.assert_allclose(z[-1], gs.feature_response(U_TOY, [3.0, 2.0], 0.1, exact), atol=1e-8)


def test_integrate_dual_only_zero_times():
    alpha, z = gs.integrate_dual(U_TOY, S_TOY, 0.01, [0.0])
    np.testing.assert_array_equal(alpha, [[0.5, 0.5]])
    assert z.shape == (1, 2)


def test_stiff_default_start_stays_in_domain():
    """From α_0 = ½ with s²/λ = 3600 the exact α_1 dips below 1e-100; the stiff path handles it."""
    alpha, z = gs.integrate_dual(U_TOY, S_TOY, 0.01, np.linspace(0.0, 10.0, 11))
    assert np.all((alpha > 0) & (alpha < 1))
    np.testing.assert_allclose(z[-1], gs.feature_response(U_TOY, S_TOY, 0.01), atol=1e-8)


def test_exact_fixed_point_inside_unit_cube_under_strong_coupling():
    rng = np.random.default_rng(0)
    q, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    alpha = gs.dual_fixed_point(q, rng.uniform(0.1, 30.0, 6), 1e-3)
    assert np.all((alpha > 0) & (alpha < 1))


def test_starvation_map_matches_pointwise_and_is_fast():
    import time

    s1, deltas = np.linspace(0.5, 6.0, 200), np.linspace(-0.95, 0.95, 200)
    gs.starvation_map(s1[:2], deltas[:2])  # compile
    start = time.perf_counter()
    z = gs.starvation_map(s1, deltas)
    assert time.perf_counter() - start < 10.0
    for i, j in ((0, 0), (150, 37), (199, 199)):
        np.testing.assert_allclose(z[i, j], gs.feature_response(gs.coupling_matrix(deltas[i]), [s1[j], 2.0], 0.01),
                                   atol=1e-12)


def test_newton_converges_when_a_coordinate_is_near_1e_16():
    """Strong coupling drives α_2 to ~4e-16; a stopping test relative to max|α| used to stop Newton while α_2 was
    still moving (residual 6e-8 for Eq 9, 2e-7 for Eq 10)."""
    U = gs.coupling_matrix(-0.10171888) @ np.diag([1.0, -1.0])
    s, lam = np.array([0.2313752, 7.73788186]), 0.00325976
    for exact in (True, False):
        alpha = gs.dual_fixed_point(U, s, lam, exact)
        Q = gs.dual_matrix(U, s, lam, exact)
        barrier = np.log1p(-alpha) - np.log(alpha) if exact else -np.log(alpha)
        assert alpha[1] < 1e-15
        assert np.abs(barrier - Q @ alpha).max() <= 1e-12


def test_newton_on_random_problems_with_large_strength_ratios():
    """1000 random problems (n = 2..4, s in [e^-3, e^3], λ in [1e-3, 10]); five of them used to raise: one by the
    early stop above, four at the float64 floor of the residual (one ulp of α moves it by ~3e-12 when s²/λ ~ 1e5)."""
    rng = np.random.default_rng(0)
    for _ in range(1000):
        n = int(rng.integers(2, 5))
        q, r = np.linalg.qr(rng.standard_normal((n, n)))
        U = q * np.sign(np.diag(r))
        s, lam = np.exp(rng.uniform(-3.0, 3.0, n)), 10.0 ** rng.uniform(-3.0, 1.0)
        for exact in (True, False):
            alpha = gs.dual_fixed_point(U, s, lam, exact)
            Q = gs.dual_matrix(U, s, lam, exact)
            barrier = np.log1p(-alpha) - np.log(alpha) if exact else -np.log(alpha)
            floor = 4 * np.finfo(float).eps * (np.abs(Q) @ alpha).max()
            assert np.abs(barrier - Q @ alpha).max() <= max(1e-12, floor)
            assert np.all(alpha > 0) and (not exact or np.all(alpha < 1))


def test_exact_uncoupled_response_for_vanishing_strength():
    alpha, z = gs.exact_uncoupled_response([1e-200, 2.0], 0.1)  # s² underflows to 0: z = 0, α = σ(0) = ½
    assert alpha[0] == 0.5 and z[0] == 0.0
    np.testing.assert_allclose(alpha[1], 0.1 * z[1] / 4.0, rtol=1e-14)  # α = λz/s² at the root


def test_lambertw_is_the_numerics_core():
    from dynamics import numerics

    assert gs.lambertw is numerics.lambertw


# ------------------------------------------------------------------ invariances
def test_permutation_relabels_alpha_and_keeps_z():
    s, lam = np.array([0.5, 2.0, 1.0]), 0.2
    perm = np.eye(3)[:, [2, 0, 1]]
    alpha_closed, z_closed = gs.lambert_fixed_point(s, lam)
    np.testing.assert_allclose(gs.dual_fixed_point(perm, s, lam, exact=False), perm @ alpha_closed, atol=1e-13)
    np.testing.assert_allclose(gs.feature_response(perm, s, lam, exact=False), z_closed, atol=1e-13)


def test_sign_flip_of_a_feature_flips_its_response():
    flipped = U_TOY * np.array([1.0, -1.0])
    np.testing.assert_allclose(gs.feature_response(flipped, S_TOY, 0.01),
                               gs.feature_response(U_TOY, S_TOY, 0.01) * np.array([1.0, -1.0]), atol=1e-12)


def test_two_moons_margin_and_determinism():
    X, y = gs.two_moons(300, 0.1, 0.1, seed=3)
    assert X.shape == (300, 2) and set(np.unique(y)) == {-1.0, 1.0}
    assert np.all(-y * X[:, 0] >= 0.1 - 1e-12)
    np.testing.assert_array_equal(X, gs.two_moons(300, 0.1, 0.1, seed=3)[0])


def test_features_recover_the_svd():
    rng = np.random.default_rng(1)
    Phi0, y = rng.standard_normal((3, 5)), np.array([1.0, -1.0, 1.0])
    U, s, Vt = gs.features(Phi0, y)
    np.testing.assert_allclose((U * s) @ Vt, y[:, None] * Phi0, atol=1e-12)


# ------------------------------------------------------------------ property test
@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 4), seed=st.integers(0, 2**31 - 1), log_lam=st.floats(-3.0, 1.0),
       exact=st.booleans(), sd=st.booleans())
def test_random_valid_inputs_give_finite_results(n, seed, log_lam, exact, sd):
    rng = np.random.default_rng(seed)
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    U = q * np.sign(np.diag(r))
    s, lam = rng.uniform(0.05, 5.0, n), 10.0 ** log_lam
    alpha = gs.dual_fixed_point(U, s, lam, exact)
    z = gs.feature_response(U, s, lam, exact)
    assert np.all(np.isfinite(alpha)) and np.all(np.isfinite(z)) and np.all(alpha > 0)
    if exact:
        assert np.all(alpha < 1)
    z_sd, m_star = gs.sd_fixed_point(U, lam)
    assert np.all(np.isfinite(z_sd)) and m_star > 0
    a_t, z_t = gs.integrate_dual(U, s, lam, [0.0, 0.5, 2.0], exact=exact, sd=sd)
    assert np.all(np.isfinite(a_t)) and np.all(np.isfinite(z_t)) and np.all(a_t > 0)
    if exact:
        assert np.all(a_t < 1)
