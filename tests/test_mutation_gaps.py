"""Behaviours that the claims do not reach: input boundaries (a valid boundary value accepted, an invalid one
refused, with the parameter named), documented defaults (an omitted argument equals an explicit one at the documented
value), and extreme-input branches (overflow and underflow detours, zero gradients), each held to an independent
reference (mpmath, a direct formula, a limit)."""
import inspect
import math
import warnings

import mpmath
import numpy as np
import pytest

import dynamics.and_mask as am
import dynamics.double_descent as dd
import dynamics.linear_networks as ln
import dynamics.spherical as sph
import dynamics.spurious as spur
import dynamics.starvation as gs
from dynamics.numerics import OdeOptions


# ------------------------------------------------------------------------------------------------ input boundaries
def test_measure_order_parameters_accepts_two_dimensional_w_hat():
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(30, 20, 14, 10.0), n_seeds=1, seed=1)
    exact = np.linalg.solve(data.modulation.matrix[0], data.w[0])[None]  # shape (S, d): one student per seed
    flat = dd.measure_order_parameters(exact, data.w, data.modulation)
    nested = dd.measure_order_parameters(exact[:, None], data.w, data.modulation)
    assert np.allclose(np.ravel(flat.R), np.ravel(nested.R), rtol=0.0, atol=1e-12)
    assert np.allclose(np.ravel(flat.R), 1.0, atol=1e-10)


def test_primal_gd_theta_starts_from_a_given_theta0():
    theta0 = [0.3, -0.2]
    run = gs.primal_gd_theta(np.eye(2), [1.0, -1.0], 1, learning_rate=0.5, weight_decay=0.1, theta0=theta0)
    assert run.theta[0].tolist() == theta0


def test_masked_descent_bound_is_zero_when_min_loss_equals_initial_loss():
    assert am.masked_descent_bound(1.5, 1.5, 0.5, 8) == 0.0


def test_network_gd_refuses_more_than_1e9_steps():
    eye = 0.1 * np.eye(2)
    with pytest.raises(ValueError, match="^n_steps"):
        ln.network_gd(eye, eye, np.diag([2.0, 1.0]), n_steps=10**9 + 1, learning_rate=0.01, record_every=0)


def test_network_gd_detects_divergence_at_the_last_record():
    eye = np.eye(2)
    with pytest.raises(ValueError, match="learning_rate"):
        ln.network_gd(eye, eye, np.diag([2.0, 1.0]), n_steps=200, learning_rate=10.0, record_every=200)


def test_adagradg_refuses_beta_above_one():
    with pytest.raises(ValueError, match="beta"):
        sph.AdaGradG(0.1, beta=1.5, v0=1.0)


def test_starvation_map_refuses_delta_beyond_one():
    with pytest.raises(ValueError, match="delta"):
        gs.starvation_map([2.0], [1.5])


def test_monte_carlo_generalization_error_refuses_chunk_above_1e8():
    inst = ln.draw_student(4, 6, seed=2)
    with pytest.raises(ValueError, match="chunk"):
        ln.monte_carlo_generalization_error(inst, inst.initial_weights, n_test_samples=10, chunk=10**8 + 1, seed=0)


def test_integrate_dual_accepts_atol_1e_300():
    U, s = gs.coupling_matrix(0.5), np.array([3.0, 2.0])
    options = gs.DUAL_ODE_OPTIONS._replace(atol=1e-300)
    flow = gs.integrate_dual(U, s, [0.0, 0.5], weight_decay=0.1, options=options)
    reference = gs.integrate_dual(U, s, [0.0, 0.5], weight_decay=0.1)
    assert np.allclose(flow.alpha[-1], reference.alpha[-1], rtol=1e-8, atol=0.0)


def test_student_weights_gd_refuses_learning_rate_at_the_stability_boundary():
    inst = ln.draw_student(6, 9, init_std=0.3, seed=1)
    lam = float(inst.eigenvalues[0])
    eta = 2.0 / lam
    while eta * lam < 2.0:
        eta = np.nextafter(eta, np.inf)
    while eta * lam > 2.0:
        eta = np.nextafter(eta, 0.0)
    assert eta * lam == 2.0
    with pytest.raises(ValueError, match="learning_rate"):
        ln.student_weights_gd(inst, [0, 1], eta)


def test_wn_logistic_works_in_one_dimension():
    loss = sph.WNLogistic([[1.0], [-2.0]], [1.0, 1.0], 2.0)
    expected = 0.5 * (math.log1p(math.exp(-2.0)) + math.log1p(math.exp(4.0)))
    assert loss.value([3.0]) == pytest.approx(expected, rel=1e-14)


def test_neuron_pruning_masks_activation_out_takes_one_array_per_hidden_layer():
    W1 = np.array([[1.0, 0.0], [0.1, 0.0], [3.0, 0.0], [0.1, 0.0]])
    W2 = np.array([[1.0, 2.0, 0.5, 4.0]])
    act = np.array([[1.0, 1.0, 1.0, 1.0], [3.0, 1.0, 1.0, 0.0]])  # mean (2, 1, 1, 0.5): scores (2, 2, 0.5, 2)
    masks = spur.neuron_pruning_masks([W1, W2], 0.25, "activation_out", [act])
    assert masks[0].tolist() == [True, True, False, True]


def test_neuron_pruned_accuracies_read_out_through_the_last_matrix():
    rng = np.random.default_rng(0)
    W1, W2, W3 = rng.standard_normal((4, 3)), rng.standard_normal((5, 4)), rng.standard_normal((2, 5))
    x = rng.standard_normal((40, 3))
    outputs = np.maximum(np.maximum(x @ W1.T, 0.0) @ W2.T, 0.0) @ W3.T
    y = np.argmax(outputs, axis=1)
    y[:10] = 1 - y[:10]  # a quarter mislabelled: the unpruned accuracy is 0.75
    assert spur.neuron_pruned_accuracies([W1, W2, W3], x, y, [0.0]).tolist() == [0.75]


def test_curve_extrema_reads_a_small_first_rise_as_flat():
    ext = dd.curve_extrema([0.0, 0.5, 3.0, 1.0], tolerance=1.0)
    assert ext.maxima.tolist() == [2]
    assert ext.minima.tolist() == []


def test_log_keep_probability_of_an_array_matches_the_scalars():
    snr = np.array([0.0, 0.5, 2.0])
    values = am.log_keep_probability(7, 0.4, snr)
    assert np.asarray(values).shape == (3,)
    assert np.array_equal(values, [am.log_keep_probability(7, 0.4, float(v)) for v in snr])


def test_per_mode_stopping_time_at_zero_eigenvalue_is_its_limit():
    at_zero = ln.per_mode_stopping_time(0.0)
    assert at_zero == pytest.approx(4.0, rel=1e-12)
    assert at_zero == pytest.approx(ln.per_mode_stopping_time(1e-12), rel=1e-9)


# ------------------------------------------------------------------------------------------------ defaults
def test_two_valley_descent_learning_rate_default():
    default = inspect.signature(am.two_valley_descent).parameters["learning_rate"].default
    assert default == 0.02
    assert "learning_rate : float, default 0.02" in am.two_valley_descent.__doc__
    starts = [[0.5, 0.5], [-0.3, 0.8]]
    implicit = am.two_valley_descent(starts, n_steps=20)
    explicit = am.two_valley_descent(starts, learning_rate=0.02, n_steps=20)
    assert np.array_equal(implicit.final, explicit.final)


def test_train_balancing_toy_default_config_runs_500_epochs():
    assert "500 epochs" in spur.train_balancing_toy.__doc__
    default = inspect.signature(spur.train_balancing_toy).parameters["config"].default
    assert default.n_epochs == 500
    assert spur.BalancingToyConfig() == spur.BalancingToyConfig(n_epochs=500)


# ------------------------------------------------------------------------------------------------ extreme branches
@pytest.mark.parametrize("teacher_power, R, Q", [(1.5e308, 1.4e308, 1.5e308), (1.0e308, 1.7e308, 1.6e308)])
def test_generalization_error_where_t_minus_2r_plus_q_overflows(teacher_power, R, Q):
    exact = mpmath.mpf(0.5) * (mpmath.mpf(teacher_power) - 2 * mpmath.mpf(R) + mpmath.mpf(Q))
    value = float(dd.generalization_error(R, Q, teacher_power=teacher_power))
    assert value == pytest.approx(float(exact), rel=1e-14)


def test_spurious_core_gradient_ratio_for_huge_logit_scale():
    k, m, c, s = 1000.0, [1.0, 2.0], [1.0, 1.0], [1.0, 0.0]
    with mpmath.workdps(50):
        sig = [1 / (1 + mpmath.exp(k * mi)) for mi in m]
        exact = sum(a * b for a, b in zip(sig, s)) / sum(a * b for a, b in zip(sig, c))
    assert float(spur.spurious_core_gradient_ratio(k, m, c, s)) == pytest.approx(float(exact), rel=1e-12)


def test_simulate_names_grad_norm_when_a_draw_is_parallel_to_x():
    loss = sph.RandomLinearLoss([[1.0, 0.0]], grad_norm=1.0)
    with pytest.raises(ValueError, match="grad_norm"):
        sph.simulate(sph.SGD(0.1), loss, np.array([2.0, 0.0]), 1)


def test_simulate_names_eps_when_adamg_second_moment_is_zero():
    loss = sph.RayleighLoss(np.diag([1.0, 2.0]))  # x0 an eigenvector: the gradient is exactly 0
    with pytest.raises(ValueError, match="eps"):
        sph.simulate(sph.AdamG(0.1, eps=0.0), loss, np.array([1.0, 0.0]), 1)


def test_mode_strength_where_s_times_t_underflows():
    s, t, tau = 1e-162, 2e-162, 5e-324
    u0 = 0.5 * s
    x = 2 * mpmath.mpf(s) * mpmath.mpf(t) / mpmath.mpf(tau)
    exact = mpmath.mpf(s) / (1 - mpmath.exp(-x) + mpmath.mpf(s) * mpmath.exp(-x) / mpmath.mpf(u0))
    assert float(ln.mode_strength(t, s, u0, tau)) == pytest.approx(float(exact), rel=1e-10, abs=0.0)


def test_generalization_error_where_the_squares_overflow():
    inst = ln.draw_student(10, 15, seed=2)
    w = inst.teacher.copy()
    w[0] += 2e154
    w[1] -= 1e154
    residual = inst.teacher - w
    exact = sum(mpmath.mpf(r) ** 2 for r in residual) / inst.n_features + mpmath.mpf(inst.noise_std) ** 2
    assert ln.generalization_error(inst, w) == pytest.approx(float(exact), rel=1e-12)


def test_monte_carlo_generalization_error_standard_error_of_two_samples():
    inst = ln.draw_student(4, 6, seed=2)
    est = ln.monte_carlo_generalization_error(inst, inst.initial_weights, n_test_samples=2, seed=3)
    # two squared errors e1, e2 >= 0: the standard error |e1 - e2|/2 is finite and at most their mean
    assert np.isfinite(est.standard_error)
    assert 0.0 < est.standard_error <= est.mean


def test_simulate_temporal_mask_variance_standard_error_from_the_fourth_moment():
    sim = am.simulate_temporal_mask(0.3, 0.0, 0.5, 1, 1000, seed=1)
    # one step with sign_decay 0: a_1 = sign(g_1) = ±1, so the fraction p of +1 fixes every sample moment
    m1 = float(sim.ema_mean[0])
    p = 0.5 * (1.0 + m1)
    variance = 1.0 - m1 * m1
    central4 = p * (1.0 - m1) ** 4 + (1.0 - p) * (1.0 + m1) ** 4
    expected = math.sqrt((central4 - variance * variance) / 1000)
    assert abs(m1) < 0.9
    assert float(sim.ema_variance_se[0]) == pytest.approx(expected, rel=1e-9)


def test_scalar_mode_flow_through_the_stiff_switch():
    t = [0.0, 1e-4, 0.5]
    run = ln.scalar_mode_flow(t, 1.0, 300.0, 0.0)  # a² + b² ~ 9e4: DOP853 gives up, Rosenbrock finishes
    expected = ln.mode_strength_unbalanced(np.array(t), 1.0, 300.0, 0.0)
    assert np.allclose(run.mode_strength, expected, rtol=1e-7, atol=1e-12)


@pytest.mark.parametrize("exact", [True, False])
def test_jacobian_under_spectral_decoupling(exact):
    alpha, a = np.array([0.3, 0.6]), 0.25
    barrier = 1.0 / (alpha * (1.0 - alpha)) if exact else 1.0 / alpha
    expected = -(np.diag(barrier) + (1.0 / a + (0.0 if exact else 1.0)) * np.eye(2))
    J = gs.jacobian(gs.coupling_matrix(0.5), [3.0, 2.0], alpha, output_penalty=a, exact=exact)
    assert np.allclose(J, expected, rtol=1e-14, atol=0.0)


def test_mode_bayes_error_where_the_variances_overflow():
    value = ln.mode_bayes_error(1.0, teacher_std=1e150, noise_std=1e150)
    signal = noise = mpmath.mpf(1e150) ** 2
    exact = signal * noise / (noise + signal)
    assert value == pytest.approx(float(exact), rel=1e-12)


def test_patchwork_target_at_zero_is_quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert am.patchwork_target([0.0, 1.0]).tolist() == [0.0, 2.0]


def test_deep_chain_strength_accepts_weights_near_the_float64_limit():
    t = np.array([0.0, 1e-250])
    chain = ln.deep_chain_strength(t, 1.0, [1e90, 1e90])
    assert np.allclose(chain, ln.mode_strength(t, 1.0, 1e180), rtol=1e-8)
