"""Unit and property tests of dynamics.linear_networks (spec/linear_networks.md Public API, P1–P5)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynamics import linear_networks as ln

# ----------------------------------------------------------------------------------------------------
# P5: bad input raises ValueError naming the parameter
# ----------------------------------------------------------------------------------------------------

BAD_CALLS = [
    (ln.mode_strength, (1.0, 1.0, 0.0), {}, "u0"),
    (ln.mode_strength, (1.0, 1.0, -1e-3), {}, "u0"),
    (ln.mode_strength, (1.0, -1.0, 1e-3), {}, "s"),
    (ln.mode_strength, (-1.0, 1.0, 1e-3), {}, "t"),
    (ln.mode_strength, (np.nan, 1.0, 1e-3), {}, "t"),
    (ln.mode_strength, ([0.0, 1.0], [1.0, -2.0], 1e-3), {}, "s"),
    (ln.mode_strength, (1.0, 1.0, 1e-3), {"tau": 0.0}, "tau"),
    (ln.mode_strength_unbalanced, (1.0, -1.0, 0.1, 0.2), {}, "s"),
    (ln.mode_strength_unbalanced, (1.0, 1.0, 0.1, 0.2), {"tau": -1.0}, "tau"),
    (ln.mode_strength_unbalanced, (1.0, 1.0, np.nan, 0.2), {}, "a0"),
    (ln.mode_strength_unbalanced, (-1.0, 1.0, 0.1, 0.2), {}, "t"),
    (ln.half_learning_time, (0.0, 1e-3), {}, "s"),
    (ln.half_learning_time, (1.0, 0.0), {}, "u0"),
    (ln.half_learning_time, (1.0, 2.0), {}, "u0"),
    (ln.half_learning_time, (1.0, 1e-3), {"tau": 0.0}, "tau"),
    (ln.generalization_curve, (1.0, 0.0), {}, "alpha"),
    (ln.generalization_curve, (1.0, -1.0), {}, "alpha"),
    (ln.generalization_curve, (1.0, 1.0), {"sigma_w2": -1.0}, "sigma_w2"),
    (ln.generalization_curve, (1.0, 1.0), {"sigma_eps2": -0.1}, "sigma_eps2"),
    (ln.generalization_curve, (1.0, 1.0), {"sigma0": -0.1}, "sigma0"),
    (ln.generalization_curve, (1.0, 1.0), {"tau": 0.0}, "tau"),
    (ln.generalization_curve, ([1.0, -1.0], 1.0), {}, "t"),
    (ln.generalization_curve, (np.nan, 1.0), {}, "t"),
    (ln.optimal_stopping_time, (0.0,), {}, "alpha"),
    (ln.optimal_stopping_time, (1.0,), {"sigma_w2": -1.0}, "sigma_w2"),
    (ln.optimal_stopping_time, (1.0,), {"sigma_eps2": -1.0}, "sigma_eps2"),
    (ln.optimal_stopping_time, (1.0,), {"sigma0": -1.0}, "sigma0"),
    (ln.optimal_stopping_time, (1.0,), {"tau": -2.0}, "tau"),
    (ln.learning_time, (1.0, 0.1, 1.5), {}, "u_end"),
    (ln.deep_mode_strength, ([0.0, 1.0], 1.0, 1e-3, 0), {}, "n_weight_layers"),
    (ln.per_mode_stopping_time, (-1.0,), {}, "eigenvalue"),
    (ln.bayes_error, (-0.5,), {}, "alpha"),
    (ln.draw_student, (10, 20), {"sigma_w2": -1.0}, "sigma_w2"),
    (ln.gd_flow_time, (10, 0.0), {}, "learning_rate"),
    (ln.expected_generalization_error, (1.0, [1.0, -0.5]), {}, "eigenvalues"),
    (ln.finite_size_asymptotic_generalization_error, (10, 11), {}, "n_examples"),
    # audit additions: overflow, empty arrays, shapes and NaN in the helpers
    (ln.mode_strength_unbalanced, (1.0, 1.0, 1e200, 1e-200), {}, "a0"),
    (ln.mode_strength_unbalanced, (1.0, 1.0, 0.1, -1e200), {}, "b0"),
    (ln.mode_strength_unbalanced, (1.0, 1e308, 1.0, 0.5), {}, "s, a0 or b0"),
    (ln.generalization_curve, (1.0, 0.5), {"sigma_w2": 1e308, "sigma0": 1e200}, "sigma_w2"),
    (ln.generalization_curve, (1.0, 0.5), {"sigma_w2": 1e308, "sigma_eps2": 1e308}, "sigma_w2, sigma_eps2"),
    (ln.optimal_stopping_time, (0.5,), {"sigma_w2": 1e308, "sigma0": 1e200}, "sigma_w2"),
    (ln.scalar_mode_flow, ([], 1.0, 0.1, 0.1), {}, "t"),
    (ln.deep_mode_strength, ([], 1.0, 0.1, 3), {}, "t"),
    (ln.expected_generalization_error, (1.0, []), {}, "eigenvalues"),
    (ln.mode_map, (np.full((4, 3), np.nan), np.ones((2, 4)), np.eye(2), np.eye(3)), {}, "W21"),
    (ln.mode_map, (np.ones((4, 3)), np.ones((2, 5)), np.eye(2), np.eye(3)), {}, "W32"),
    (ln.mode_map, (np.ones((4, 3)), np.ones((2, 4)), np.eye(5), np.eye(3)), {}, "U"),
    (ln.mode_strengths, (np.ones((4, 3)), np.ones((2, 4)), np.eye(2), np.full((3, 3), np.inf)), {}, "V"),
    (ln.effective_initial_strength, (np.ones((4, 3)), np.full((2, 4), np.nan), np.eye(2), np.eye(3)), {}, "W32"),
    (ln.conserved_gram, (np.ones((4, 3)), np.ones((2, 3))), {}, "W32"),
    (ln.network_loss, (np.ones((4, 3)), np.ones((2, 4)), np.ones((3, 5)), np.ones((2, 6))), {}, "Y"),
    (ln.network_gd, (0.1 * np.ones((4, 3)), 0.1 * np.ones((2, 4)), 100 * np.ones((2, 3))),
     {"learning_rate": 1.0, "n_steps": 200}, "learning_rate"),
]


@pytest.mark.parametrize("fn, args, kwargs, name", BAD_CALLS,
                         ids=[f"{c[0].__name__}-{c[3]}-{k}" for k, c in enumerate(BAD_CALLS)])
def test_bad_input_raises_value_error_naming_the_parameter(fn, args, kwargs, name):
    with pytest.raises(ValueError, match=name):
        fn(*args, **kwargs)


def test_student_helpers_reject_bad_weights_and_divergence():
    inst = ln.draw_student(10, 6, seed=0)
    for fn in (ln.generalization_error, ln.generalization_error_thesis_variant, ln.training_error_direct):
        with pytest.raises(ValueError, match="weights"):
            fn(np.zeros(3), inst)
        with pytest.raises(ValueError, match="weights"):
            fn(np.full(10, np.nan), inst)
    with pytest.raises(ValueError, match="learning_rate"):
        ln.student_gd(inst, 100.0, 1000)
    with pytest.raises(ValueError, match="t"):
        ln.student_flow([], inst)


def test_optimal_stopping_time_extreme_signal_to_noise():
    # t_opt depends on the variances only through A/σ_ε² (P4), also where the bracket collapses
    for ratio in (1e-300, 1e-30, 1e30, 1e290):
        t_opt = ln.optimal_stopping_time(0.5, 1.0, 1.0 / ratio)
        assert 0 < t_opt < math.inf
        assert ln.optimal_stopping_time(0.5, 1e-5, 1e-5 / ratio) == pytest.approx(t_opt, rel=1e-8)
        lo, hi = ln.per_mode_stopping_time(np.array([2.9142135623730954, 0.08578643762690485]), 1.0, 1.0 / ratio)
        assert lo * (1 - 1e-12) <= t_opt <= hi * (1 + 1e-12)


def test_string_input_is_a_type_error():
    with pytest.raises(TypeError, match="t"):
        ln.mode_strength("soon", 1.0, 1e-3)
    with pytest.raises(TypeError, match="instance"):
        ln.generalization_error(np.zeros(3), "not an instance")


# ----------------------------------------------------------------------------------------------------
# Limits, shapes and invariances
# ----------------------------------------------------------------------------------------------------

def test_mode_strength_limits_and_types():
    assert ln.mode_strength(0.0, 2.0, 0.1) == pytest.approx(0.1, rel=1e-15)
    assert ln.mode_strength(math.inf, 2.0, 0.1) == 2.0
    assert ln.mode_strength(math.inf, 0.0, 0.1) == 0.0
    assert ln.mode_strength(5.0, 0.0, 0.1) == pytest.approx(0.1 / (1 + 2 * 0.1 * 5.0), rel=1e-15)
    assert isinstance(ln.mode_strength(1.0, 1.0, 0.1), float)
    out = ln.mode_strength(np.array([[0.0], [1.0]]), np.array([1.0, 2.0, 3.0]), 1e-3)
    assert out.shape == (2, 3) and out.dtype == np.float64
    # u0 > s decreases monotonically to s
    t = np.linspace(0, 10, 50)
    u = ln.mode_strength(t, 1.0, 3.0)
    assert np.all(np.diff(u) < 0) and u[-1] > 1.0


def test_mode_strength_depends_on_t_over_tau():
    t = np.linspace(0, 8, 17)
    np.testing.assert_allclose(ln.mode_strength(3.0 * t, 1.3, 1e-4, tau=3.0), ln.mode_strength(t, 1.3, 1e-4),
                               rtol=1e-13)
    assert ln.half_learning_time(1.3, 1e-4, tau=3.0) == pytest.approx(3.0 * ln.half_learning_time(1.3, 1e-4))


def test_half_learning_time_sign_and_spec_values():
    assert ln.half_learning_time(1.0, 0.5) == 0.0
    assert ln.half_learning_time(1.0, 0.7) < 0
    values = ln.half_learning_time(np.array([3, 2, 1, 0.5, 0.25]), 1e-6)
    np.testing.assert_allclose(values, [2.4857, 3.6272, 6.9078, 13.1224, 24.8584], atol=1e-4)


def test_p1_unbalanced_reduces_to_balanced():
    t = np.linspace(0, 20, 41)
    for a in (1e-3, 0.4, -0.7):
        np.testing.assert_allclose(ln.mode_strength_unbalanced(t, 1.5, a, a), ln.mode_strength(t, 1.5, a * a),
                                   rtol=1e-12)
    opposite = ln.mode_strength_unbalanced(t, 1.5, 0.3, -0.3)
    assert np.all(opposite <= 0) and abs(opposite[-1]) < 1e-12
    assert np.all(ln.mode_strength_unbalanced(t, 1.0, 0.0, 0.0) == 0)
    assert ln.mode_strength_unbalanced(math.inf, 1.0, 0.5, -0.2) == pytest.approx(1.0, rel=1e-12)


def test_p2_generalization_curve_at_zero():
    for alpha in (0.1, 0.5, 1.0, 1.7, 4.0):
        for sw, se, s0 in ((1.0, 0.25, 0.0), (2.0, 0.1, 0.5)):
            eg, et = ln.generalization_curve(0.0, alpha, sw, se, s0)
            assert eg == pytest.approx(sw + s0 ** 2 + se, rel=1e-8)
            assert et == pytest.approx(sw + s0 ** 2 + se, rel=1e-8)


def test_p3_generalization_curve_scaling():
    t = np.array([0.0, 0.3, 4.0, 50.0, np.inf])
    for alpha in (0.5, 2.0):
        eg, et = ln.generalization_curve(t, alpha, 1.0, 0.25, 0.3)
        eg_k, et_k = ln.generalization_curve(t, alpha, 3.0, 0.75, 0.3 * math.sqrt(3))
        np.testing.assert_allclose(eg_k, 3 * eg, rtol=1e-12)
        np.testing.assert_allclose(et_k, 3 * et, rtol=1e-12)
        eg_tau, _ = ln.generalization_curve(t * 2.5, alpha, tau=2.5)
        np.testing.assert_allclose(eg_tau, ln.generalization_curve(t, alpha)[0], rtol=1e-12)


def test_generalization_curve_infinity_and_shapes():
    assert ln.generalization_curve(math.inf, 1.0) == (math.inf, 0.0)
    assert ln.generalization_curve(math.inf, 1.0, sigma_eps2=0.0)[0] == 0.0
    eg, et = ln.generalization_curve(np.array([[0.0, 1.0], [10.0, np.inf]]), 2.0)
    assert eg.shape == (2, 2) and et.shape == (2, 2)
    assert eg[1, 1] == pytest.approx(0.25 * 2.0, rel=1e-15) and et[1, 1] == pytest.approx(0.125)
    assert ln.generalization_curve(1e6, 2.0)[0] == pytest.approx(0.5, rel=1e-10)
    assert isinstance(ln.generalization_curve(1.0, 0.5)[0], float)


def test_p4_optimal_stopping_time_bracket_and_invariance():
    for alpha in (0.5, 0.9, 1.0, 1.1, 2.0):
        t_opt = ln.optimal_stopping_time(alpha)
        lo, hi = (1 - math.sqrt(alpha)) ** 2, (1 + math.sqrt(alpha)) ** 2
        assert ln.per_mode_stopping_time(hi) <= t_opt <= ln.per_mode_stopping_time(lo)
        assert ln.optimal_stopping_time(alpha, 3.0, 0.75, 0.0) == pytest.approx(t_opt, rel=1e-8)
        assert ln.optimal_stopping_time(alpha, tau=4.0) == pytest.approx(4.0 * t_opt, rel=1e-8)
    assert ln.optimal_stopping_time(0.5, sigma_eps2=0.0) == math.inf
    assert ln.optimal_stopping_time(0.5, sigma_w2=0.0) == 0.0


def test_student_frozen_modes_and_t_zero():
    inst = ln.draw_student(30, 12, sigma0=0.4, seed=3)
    np.testing.assert_allclose(ln.student_weights(0.0, inst)[0], inst.initial_weights, atol=1e-13)
    w_inf = ln.student_weights(math.inf, inst)[0]
    assert np.all(np.isfinite(w_inf))
    frozen = inst.input_modes[:, 12:]
    np.testing.assert_allclose(w_inf @ frozen, inst.initial_weights @ frozen, atol=1e-12)
    assert ln.training_error(math.inf, inst)[0] == pytest.approx(0.0, abs=1e-10)  # memorisation for P < N


def test_gd_flow_time_convention():
    assert ln.gd_flow_time(100, 0.01) == pytest.approx(1.0)
    assert ln.gd_flow_time(100, 0.01, loss_scale=2.0) == pytest.approx(2.0)


def test_whiten_gives_sum_normalised_inputs():
    X = np.random.default_rng(0).standard_normal((5, 40))
    W = ln.whiten(X)
    np.testing.assert_allclose(W @ W.T, np.eye(5), atol=1e-12)
    with pytest.raises(ValueError, match="X"):
        ln.whiten(np.ones((3, 2)))


# ----------------------------------------------------------------------------------------------------
# Hypothesis: random valid inputs never produce an exception or a NaN
# ----------------------------------------------------------------------------------------------------

positive = st.floats(1e-6, 1e3)
times = st.one_of(st.floats(0.0, 1e6), st.just(math.inf))


@settings(max_examples=50, deadline=None)
@given(t=times, s=st.floats(0.0, 1e3), u0=positive, tau=st.floats(1e-3, 1e3))
def test_mode_strength_is_finite_and_bounded(t, s, u0, tau):
    u = ln.mode_strength(t, s, u0, tau)
    assert math.isfinite(u) and u >= 0
    # relative bounds, with an absolute slack for subnormal s (u(inf) = s underflows to 0 there)
    assert min(s, u0) * (1 - 1e-12) - 1e-300 <= u <= max(s, u0) * (1 + 1e-12) or s == 0


@settings(max_examples=50, deadline=None)
@given(t=st.floats(0.0, 1e4), s=st.floats(0.0, 10.0), a0=st.floats(-3.0, 3.0), b0=st.floats(-3.0, 3.0))
def test_mode_strength_unbalanced_is_finite(t, s, a0, b0):
    u = ln.mode_strength_unbalanced(t, s, a0, b0)
    assert math.isfinite(u)


@settings(max_examples=30, deadline=None)
@given(t=times, alpha=st.floats(0.05, 20.0), sigma_w2=st.floats(0.0, 10.0), sigma_eps2=st.floats(0.0, 10.0),
       sigma0=st.floats(0.0, 3.0), tau=st.floats(1e-2, 1e2))
def test_generalization_curve_is_finite_and_ordered(t, alpha, sigma_w2, sigma_eps2, sigma0, tau):
    eg, et = ln.generalization_curve(t, alpha, sigma_w2, sigma_eps2, sigma0, tau)
    assert not math.isnan(eg) and not math.isnan(et)
    assert et >= 0 and eg >= sigma_eps2 * (1 - 1e-12)
    assert math.isfinite(eg) or (alpha == 1.0 and t == math.inf)


@settings(max_examples=25, deadline=None)
@given(alpha=st.floats(0.05, 20.0), sigma_w2=st.floats(1e-3, 10.0), sigma_eps2=st.floats(1e-3, 10.0),
       sigma0=st.floats(0.0, 2.0))
def test_optimal_stopping_time_beats_its_neighbours(alpha, sigma_w2, sigma_eps2, sigma0):
    t_opt = ln.optimal_stopping_time(alpha, sigma_w2, sigma_eps2, sigma0)
    assert 0 < t_opt < math.inf
    eg = ln.generalization_curve(np.array([0.8 * t_opt, t_opt, 1.25 * t_opt]), alpha, sigma_w2, sigma_eps2,
                                 sigma0)[0]
    assert eg[1] <= min(eg[0], eg[2]) * (1 + 1e-12)
    assert ln.bayes_error(alpha, sigma_w2, sigma_eps2, sigma0) <= eg[1] * (1 + 1e-12)
