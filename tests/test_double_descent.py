"""Unit and property tests of dynamics.double_descent: argument checking, limits, invariances, random valid inputs."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynamics import double_descent as dd

CONFIG = dict(n=110, d=100, p=70, kappa=30.0)


@pytest.fixture(scope="module")
def small():
    return dd.draw_teacher_student(30, 20, 14, 10.0, noise=0.2, n_seeds=2, seed=1, n_test=50)


# ------------------------------------------------------------------------------------------- bad input

BAD_BIPARTITE = [
    (dict(n=100), "n"), (dict(n=80), "n"), (dict(p=0), "p"), (dict(p=100), "p"), (dict(kappa=0.5), "kappa"),
    (dict(noise=-0.1), "noise"), (dict(ridge=-1.0), "ridge"), (dict(eta=0.0), "eta"), (dict(t=[-1.0]), "t"),
    (dict(t=[np.nan]), "t"), (dict(c_overlap="mine"), "c_overlap"), (dict(freeze_slow_at=-1.0), "freeze_slow_at"),
]


@pytest.mark.parametrize("change, name", BAD_BIPARTITE)
def test_bipartite_theory_rejects_bad_input(change, name):
    kwargs = dict(t=[0.0, 1.0, np.inf], **CONFIG)
    kwargs.update(change)
    with pytest.raises(ValueError, match=name):
        dd.bipartite_theory(**kwargs)


def test_bipartite_theory_type_errors():
    with pytest.raises(TypeError, match="t"):
        dd.bipartite_theory("soon", **CONFIG)
    with pytest.raises(TypeError, match="kappa"):
        dd.bipartite_theory(1.0, 110, 100, 70, "big")


@pytest.mark.parametrize("call, name", [
    (lambda: dd.bipartite_theory_ode([0.0, 1.0], **CONFIG), "t"),
    (lambda: dd.bipartite_theory_ode([2.0, 1.0], **CONFIG), "t"),
    (lambda: dd.bipartite_theory_ode([1.0, 2.0], **CONFIG, rtol=1.0), "rtol"),
    (lambda: dd.bipartite_roots(1.0, 110, 100, 70, 30.0, ridge=-1), "ridge"),
    (lambda: dd.bipartite_from_roots(2.0, 3.0, 110, 100, 70, c_overlap="x"), "c_overlap"),
    (lambda: dd.phase_points(100, 100, 50), "n"),
    (lambda: dd.phase_points(150, 100, 50, noise=-1), "noise"),
    (lambda: dd.ridge_oracle(-1.0, **CONFIG), "ridge"),
    (lambda: dd.ridge_oracle(1.0, 0, 100, 70, 30.0), "n"),  # n <= d is allowed (spec B.3), n <= 0 is not
    (lambda: dd.stable_root(0.0, 1.0), "alpha"),
    (lambda: dd.stable_root(1.0, -1.0), "lam"),
    (lambda: dd.printed_root(1.0, 0.0), "lam"),
    (lambda: dd.printed_root(4.0, 1e-17), "lam"),
    (lambda: dd.replica_saddle_point(1.0, 0.0), "alpha"),
    (lambda: dd.replica_saddle_point(2.0, 0.1, teacher_power=0.0), "teacher_power"),
    (lambda: dd.stieltjes_order_parameters(2.0, 0.1, noise_variance=-1.0), "noise_variance"),
    (lambda: dd.mp_stieltjes(2.0, 0.0), "ridge"),
    (lambda: dd.effective_ridge(1.0, eta=-1.0), "eta"),
    (lambda: dd.analytic_times(num=1), "num"),
    (lambda: dd.code_ridge_to_api(-1.0), "code_ridge"),
    (lambda: dd.modulation_matrix(10, 0, 2.0), "p"),
    (lambda: dd.modulation_matrix(10, 5, 0.5), "kappa"),
    (lambda: dd.draw_teacher_student(10, 10, 5, 2.0, n_seeds=0), "n_seeds"),
    (lambda: dd.draw_teacher_student(10, 10, 5, 2.0, noise=-1.0), "noise"),
    (lambda: dd.q_penalty_schedule(0), "steps"),
    (lambda: dd.q_penalty_schedule(10, decay=0.0), "decay"),
    (lambda: dd.spectral_filter([1.0], [-1.0, 1.0], 0.1), "eigenvalues"),
    (lambda: dd.spectral_filter([1.0], [1.0, 2.0], 0.1, dynamics="sgd"), "dynamics"),
    (lambda: dd.spectral_filter([1.5], [1.0, 2.0], 0.9), "t"),  # ηs > 1 at a non-integer step
    (lambda: dd.spectral_filter([1.0], [1.0, 2.0], 1.0), "eta"),  # ηs_max = 2: GD diverges
    (lambda: dd.curve_extrema(np.ones((2, 2))), "values"),
    (lambda: dd.curve_extrema([1.0, 2.0], tolerance=-1.0), "tolerance"),
    (lambda: dd.largest_rise([1.0, np.inf]), "values"),
])
def test_public_functions_reject_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_simulation_functions_reject_bad_input(small):
    F, X, y = small.modulation.seed(0), small.X[0], small.y[0]
    cases = [
        (lambda: dd.exact_gd_order_parameters([1.0], np.ones((20, 19)), X), "F"),
        (lambda: dd.exact_gd_order_parameters([1.0], F, X[:, :5]), "X"),
        (lambda: dd.exact_gd_order_parameters([1.0], F, X, method="qr"), "method"),
        (lambda: dd.exact_gd_order_parameters([1.0], F, X, eta=10.0), "eta"),
        (lambda: dd.exact_gd_order_parameters([-1.0], F, X), "t"),
        (lambda: dd.exact_gd_order_parameters([1.0], F), "X"),
        (lambda: dd.exact_gd_order_parameters([1.0], F, eigenvalues=np.ones(20), eigenvectors=np.ones((20, 20))),
         "eigenvectors"),
        (lambda: dd.exact_gd_order_parameters([1.0], small.modulation, X), "F"),
        (lambda: dd.gd_weights([1.0], X, y[:5]), "y"),
        (lambda: dd.gd_weights([1.0], X, y, penalty=-1.0), "penalty"),
        (lambda: dd.gd_weights([1.0], X, y, preconditioner=np.zeros((20, 20))), "preconditioner"),
        (lambda: dd.ridge_weights([-1.0], X, y), "ridge"),
        (lambda: dd.iterate_gd(X, y, [3, 1], 0.1), "steps"),
        (lambda: dd.iterate_gd(X, y, [1], 0.1, loss_normalization="median"), "loss_normalization"),
        (lambda: dd.iterate_gd(X, y, [5], 0.1, penalty_schedule=np.ones(2)), "penalty_schedule"),
        (lambda: dd.iterate_gd(X, y, [5], 10.0), "eta"),
        (lambda: dd.scheduled_gd_order_parameters([5], F, X, np.ones(3)), "schedule"),
        (lambda: dd.scheduled_filter([1, 2], [1.0, -1.0], 0.1, np.zeros(2)), "eigenvalues"),
        (lambda: dd.measure_order_parameters(np.ones((2, 5)), small.w, small.modulation), "w_hat"),
        (lambda: dd.test_error(np.ones((2, 5)), small), "w_hat"),
        (lambda: dd.gradient_flow_weights_ode([2.0, 1.0], X, y, 0.1), "t"),
        (lambda: small.modulation.seed(5), "index"),
    ]
    for call, name in cases:
        with pytest.raises(ValueError, match=name):
            call()
    with pytest.raises(TypeError, match="modulation"):
        dd.measure_order_parameters(np.ones((2, 20)), small.w, np.eye(20))
    with pytest.raises(TypeError, match="seed"):
        dd.draw_teacher_student(10, 10, 5, 2.0, seed="one")
    no_test = dd.draw_teacher_student(30, 20, 14, 10.0, n_seeds=2, seed=1)
    with pytest.raises(ValueError, match="n_test"):
        dd.test_error(np.ones((2, 20)), no_test)


# ------------------------------------------------------------------------------------------- limits

def test_bipartite_limits_at_zero_and_infinite_time():
    r = dd.bipartite_theory([0.0, np.inf], 120, 100, 80, 40.0, noise=0.2)
    C = dd.phase_points(120, 100, 80, 0.2).C
    assert r.R[0] == 0 and r.Q[0] == 0 and r.generalization_error[0] == 0.5
    assert r.noisy_generalization_error[0] == pytest.approx(0.5 + 0.02)
    assert r.R[1] == pytest.approx(1.0, abs=1e-12) and r.Q[1] == pytest.approx(C.Q, abs=1e-12)
    assert r.noisy_generalization_error[1] == pytest.approx(0.12, abs=1e-12)


def test_exact_gd_limits(small):
    F, X = small.modulation.seed(0), small.X[0]
    r = dd.exact_gd_order_parameters([0.0, np.inf], F, X, noise=0.2)
    assert r.R[0] == 0 and r.Q[0] == 0 and r.generalization_error[0] == 0.5
    assert r.R[1] == pytest.approx(1.0, abs=1e-12)  # n > d: OLS recovers the teacher in the teacher average
    flow = dd.exact_gd_order_parameters([0.0, np.inf], F, X, noise=0.2, dynamics="flow")
    assert np.allclose(flow.Q, r.Q, atol=1e-12)
    w = dd.gd_weights([0.0, np.inf], X, small.y[0])
    assert np.all(w[0] == 0)
    assert np.allclose(w[1], dd.ridge_weights(0.0, X, small.y[0])[0], atol=1e-10)


def test_ridge_oracle_limits():
    o = dd.ridge_oracle([1e14, 0.0], **CONFIG, noise=0.3)
    assert o.R[0] == pytest.approx(0.0, abs=1e-9) and o.Q[0] == pytest.approx(0.0, abs=1e-9)
    assert o.R[1] == pytest.approx(1.0) and o.Q[1] == pytest.approx(1 + 0.09 * 100 / 10)


def test_underparametrised_zero_modes_do_not_give_nan():
    data = dd.draw_teacher_student(15, 20, 14, 10.0, noise=0.3, n_seeds=1, seed=3)  # n < d: 5 zero eigenvalues
    r = dd.exact_gd_order_parameters([0.0, 1.0, 1e3, np.inf], data.modulation.seed(0), data.X[0], noise=0.3)
    assert np.all(np.isfinite(r.Q)) and np.all(np.isfinite(r.R))
    w = dd.gd_weights([np.inf], data.X[0], data.y[0])
    assert np.all(np.isfinite(w))


def test_case1_ridgeless_limits():
    above = dd.stieltjes_order_parameters(2.0, 0.0, 1.0, 0.5)
    below = dd.stieltjes_order_parameters(0.5, 0.0, 1.0, 0.5)
    assert above.R == pytest.approx(1.0) and above.Q == pytest.approx(1.5)
    assert below.R == pytest.approx(0.5) and below.Q == pytest.approx(0.5 + 0.5)
    assert dd.replica_saddle_point(2.0, 1e-12, 1.0, 0.5).Q == pytest.approx(1.5, rel=1e-9)


# ------------------------------------------------------------------------------------------- invariances

def test_group_swap_symmetry_at_kappa_one():
    t = np.logspace(-2, 4, 30)
    a = dd.bipartite_theory(t, 130, 100, 30, 1.0)
    b = dd.bipartite_theory(t, 130, 100, 70, 1.0)
    assert np.allclose(a.R1, b.R2, rtol=1e-13) and np.allclose(a.Q1, b.Q2, rtol=1e-13)


def test_learning_rate_and_time_enter_as_a_product():
    t = np.logspace(-2, 4, 30)
    a = dd.bipartite_theory(t, **CONFIG, eta=0.25)
    b = dd.bipartite_theory(2 * t, **CONFIG, eta=0.125)
    assert np.allclose(a.generalization_error, b.generalization_error, rtol=1e-13)


def test_trace_formulas_are_invariant_to_left_rotations_of_F(small):
    F, X = small.modulation.seed(0).matrix, small.X[0]
    O = dd.modulation_matrix(20, 10, 1.0, seed=5).U[0]
    a = dd.exact_gd_order_parameters([1.0, 10.0], F, X, noise=0.2)
    b = dd.exact_gd_order_parameters([1.0, 10.0], O @ F, X, noise=0.2)
    assert np.allclose(a.Q, b.Q, atol=1e-12) and np.allclose(a.R, b.R, atol=1e-12)


def test_same_seed_same_data_and_vectorised_weights(small):
    again = dd.draw_teacher_student(30, 20, 14, 10.0, noise=0.2, n_seeds=2, seed=1, n_test=50)
    assert np.array_equal(again.X, small.X) and np.array_equal(again.y, small.y)
    assert np.allclose(np.sum(small.w ** 2, -1), 20.0)
    batched = dd.gd_weights([3.0], small.X, small.y)
    single = dd.gd_weights([3.0], small.X[1], small.y[1])
    assert np.allclose(batched[1], single, atol=1e-13)


def test_curve_descriptors():
    y = np.array([1.0, 0.5, 0.7, 0.2, 0.2, 0.3])
    ext = dd.curve_extrema(y)
    assert list(ext.minima) == [1, 3] and list(ext.maxima) == [2]
    assert dd.largest_rise(y) == pytest.approx(0.2) and dd.largest_drop(y) == pytest.approx(0.8)
    assert dd.curve_extrema(np.linspace(1, 0, 10)).maxima.size == 0


def test_phase_point_a_time_and_effective_ridge():
    A = dd.phase_points(110, 100, 70).A
    assert A.time(0.25) == pytest.approx(1 / (0.25 * 0.3))
    assert dd.effective_ridge(A.time(0.25), 0.25) == pytest.approx(A.lambda_eff)
    assert dd.code_ridge_to_api(0.1) == pytest.approx(0.4)


# ------------------------------------------------------------------------------------------- properties

@settings(max_examples=40, deadline=None)
@given(ratio=st.floats(1.01, 10.0), fraction=st.floats(0.01, 0.99), kappa=st.floats(1.0, 1e6),
       noise=st.floats(0.0, 2.0), ridge=st.floats(0.0, 10.0), eta=st.floats(0.01, 1.0),
       times=st.lists(st.one_of(st.floats(0.0, 1e12), st.just(np.inf)), min_size=1, max_size=8))
def test_bipartite_theory_random_valid_inputs(ratio, fraction, kappa, noise, ridge, eta, times):
    d = 100.0
    r = dd.bipartite_theory(times, ratio * d, d, fraction * d, kappa, noise, ridge, eta)
    for value in (r.R1, r.R2, r.Q1, r.Q2, r.generalization_error):
        assert np.all(np.isfinite(value))
    assert np.all(r.R1 <= fraction + 1e-12) and np.all(r.Q >= r.R ** 2 - 1e-10) and np.all(r.Q1 >= 0)
    o = dd.ridge_oracle(ridge + 1e-9, ratio * d, d, fraction * d, kappa, noise)
    assert np.isfinite(o.generalization_error) and o.generalization_error >= -1e-12


@settings(max_examples=20, deadline=None)
@given(n=st.integers(5, 40), d=st.integers(3, 25), kappa=st.floats(1.0, 1e3), noise=st.floats(0.0, 1.0),
       ridge=st.floats(0.0, 1.0), seed=st.integers(0, 1000), flow=st.booleans())
def test_exact_gd_random_valid_inputs(n, d, kappa, noise, ridge, seed, flow):
    data = dd.draw_teacher_student(n, d, max(1, d // 2), kappa, noise=noise, n_seeds=1, seed=seed)
    t = np.array([0.0, 0.5, 3.0, 1e4, np.inf])
    r = dd.exact_gd_order_parameters(t, data.modulation.seed(0), data.X[0], ridge=ridge, noise=noise,
                                     dynamics="flow" if flow else "gd")
    assert np.all(np.isfinite(r.R)) and np.all(np.isfinite(r.Q)) and np.all(r.Q >= -1e-12)
    w = dd.gd_weights(t, data.X[0], data.y[0], ridge=ridge, dynamics="flow" if flow else "gd")
    assert np.all(np.isfinite(w))


# ------------------------------------------------------------------------------------------- audit additions

@pytest.mark.parametrize("call, name", [
    (lambda: dd.bipartite_theory(1.0, 110, 100, 70, 1e200), "kappa"),       # κ² would overflow
    (lambda: dd.bipartite_theory(1.0, **CONFIG, noise=1e200), "noise"),     # σ² would overflow
    (lambda: dd.ridge_oracle(0.1, 110, 100, 70, 1e200), "kappa"),
    (lambda: dd.ridge_oracle(0.0, 100, 100, 70, 30.0), "ridge"),            # n = d, λ = 0: interpolation threshold
    (lambda: dd.ridge_oracle(0.1, 110, 100, 100, 30.0), "p"),
    (lambda: dd.phase_points(150, 100, 50, noise=1e200), "noise"),
    (lambda: dd.bipartite_from_roots(0.5, 3.0, 110, 100, 70), "a1"),       # below the larger root's floor
    (lambda: dd.bipartite_from_roots(2.0, np.nan, 110, 100, 70), "a2"),
    (lambda: dd.bipartite_from_roots(2.0, 3.0, 80, 100, 70), "n"),
    (lambda: dd.bipartite_from_roots(2.0, 3.0, 110, 100, 170), "p"),
    (lambda: dd.bipartite_from_roots(2.0, 3.0, 110, 100, 70, noise=-1.0), "noise"),
    (lambda: dd.bipartite_from_roots([2.0, 2.0], [4.0, 4.0, 4.0], 110, 100, 70), "a1"),
    (lambda: dd.largest_rise([]), "values"),
    (lambda: dd.largest_drop([]), "values"),
    (lambda: dd.spectral_filter([1.0], [], 0.1), "eigenvalues"),
    (lambda: dd.scheduled_filter([1], [], 0.1, np.zeros(1)), "eigenvalues"),
    (lambda: dd.draw_teacher_student(10, 10, 5, 1e200), "kappa"),
    (lambda: dd.draw_teacher_student(10, 10, 5, 2.0, noise=1e200), "noise"),
])
def test_audit_rejects_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_audit_type_errors(small):
    with pytest.raises(TypeError, match="haar"):
        dd.modulation_matrix(10, 5, 2.0, haar="no")
    with pytest.raises(TypeError, match="normalized_teacher"):
        dd.draw_teacher_student(10, 10, 5, 2.0, normalized_teacher="no")
    with pytest.raises(TypeError, match="data"):
        dd.test_error(np.ones((2, 20)), {"Z_test": small.Z_test})
    with pytest.raises(TypeError, match="noise"):
        dd.bipartite_from_roots(2.0, 3.0, 110, 100, 70, noise="x")
    with pytest.raises(TypeError, match="num"):
        dd.analytic_times(num=2.5)  # was silently truncated to 2


def test_bipartite_from_roots_reproduces_the_closed_form():
    t = np.logspace(-2, 6, 40)
    a1, a2 = dd.bipartite_roots(t, **CONFIG)
    direct = dd.bipartite_theory(t, **CONFIG)
    again = dd.bipartite_from_roots(a1, a2, 110, 100, 70)
    assert np.array_equal(direct.generalization_error, again.generalization_error)


def test_extreme_but_valid_inputs_stay_finite():
    # κ at its cap, huge ridge and times: every overlap finite, limits where expected
    r = dd.bipartite_theory([0.0, 1.0, 1e300, np.inf], 110, 100, 70, 1e100, ridge=0.0)
    assert np.all(np.isfinite(r.Q)) and r.R[-1] == pytest.approx(1.0)
    o = dd.ridge_oracle([0.0, 1e-3, 1.0, 1e300], 110, 100, 70, 1e100)
    assert np.all(np.isfinite(o.Q)) and o.generalization_error[-1] == pytest.approx(0.5)
    assert o.generalization_error[0] == pytest.approx(0.0, abs=1e-12)


def test_ridge_oracle_below_the_interpolation_threshold():
    # n < d: the ridgeless limit has k > 0 (spec B.3); it must be continuous in λ → 0 and bounded by the teacher
    lam = np.array([0.0, 1e-12, 1e-8])
    o = dd.ridge_oracle(lam, 80, 100, 50, 10.0, noise=0.3)
    assert np.all(np.isfinite(o.Q)) and np.allclose(o.generalization_error, o.generalization_error[0], atol=1e-6)
    assert np.all(o.R1 <= 0.5) and np.all(o.R2 <= 0.5) and np.all(o.R < 0.8 + 1e-12)
    # F = I: the oracle is the Case-1 replica / Stieltjes result
    single = dd.ridge_oracle([0.0, 0.3], 80, 100, 50, 1.0, noise=0.3)
    case1 = dd.stieltjes_order_parameters(0.8, np.array([0.0, 0.3]), 1.0, 0.09)  # same λ: F = I, X = Z
    assert np.allclose(single.R, case1.R, rtol=1e-9) and np.allclose(single.Q, case1.Q, rtol=1e-9)


def test_case1_is_finite_and_consistent_at_the_interpolation_threshold():
    # α = 1, λ → 0: a → 1 and Q ~ σ²/(2 sqrt λ); the stable forms keep the replica and RMT routes finite and equal
    for lam in (1e-12, 1e-100, 1e-300):
        a = dd.replica_saddle_point(1.0, lam, 1.0, 0.5)
        b = dd.stieltjes_order_parameters(1.0, lam, 1.0, 0.5)
        assert np.isfinite(a.Q) and np.isfinite(b.Q)
        assert a.Q == pytest.approx(float(b.Q), rel=1e-6) and a.Q == pytest.approx(0.25 / np.sqrt(lam), rel=1e-5)


def test_no_silent_non_finite_order_parameters():
    from dynamics.double_descent._common import order_parameters
    with pytest.raises(ValueError, match="not finite"):
        order_parameters(np.array([0.1]), np.array([np.inf]), 0.0)
