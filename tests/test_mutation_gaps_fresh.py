"""Behaviours that the claims do not reach, found by the second mutation draw (seed 2026, 300 mutants): input
boundaries (a valid boundary value accepted, an invalid one refused, with the parameter named), the numbers an error
message states, documented defaults (an omitted argument equals an explicit one at the documented value), and
extreme-input branches (overflow and underflow detours, degenerate brackets), each held to an independent reference
(mpmath, a direct formula, a limit, or another function of the library that computes the same thing another way)."""
import inspect
import math
import re

import mpmath
import numpy as np
import pytest

import dynamics.double_descent as dd
import dynamics.linear_networks as ln
import dynamics.spherical as sph


# ------------------------------------------------------------------------------------------------ input boundaries
def test_network_gd_accepts_record_every_one():
    eye = 0.1 * np.eye(2)
    run = ln.network_gd(eye, eye, np.diag([2.0, 1.0]), n_steps=3, learning_rate=0.01, record_every=1)
    assert run.steps.tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="record_every"):
        ln.network_gd(eye, eye, np.diag([2.0, 1.0]), n_steps=3, learning_rate=0.01, record_every=0)


def test_random_linear_loss_accepts_two_dimensions():
    loss = sph.RandomLinearLoss([[0.0, 3.0]])
    # ∇L(x) = (w − <w,u>u)/r at x = (2, 0): u = (1, 0), r = 2, so (0, 3)/2
    assert loss.grad([2.0, 0.0]).tolist() == [0.0, 1.5]
    with pytest.raises(ValueError, match="W"):
        sph.RandomLinearLoss([[1.0]])


def test_bn_linear_probe_accepts_one_dimension_and_refuses_a_batch_of_one():
    probe = sph.BNLinearProbe([[1.0], [2.0]], [1.0, -1.0])
    # d = 1: u = 1, batch (1, 2) normalised to (−1, 1), margins t·z = (−1, −1): softplus(1) for both samples
    assert probe.value([3.0]) == pytest.approx(math.log1p(math.e), rel=1e-14)  # a few roundings
    with pytest.raises(ValueError, match="S"):
        sph.BNLinearProbe([[1.0, 2.0]], [1.0])


def test_parallel_transport_accepts_v_at_the_tangency_tolerance():
    # the documented tolerance: |<v,p>| <= 1e-10·max(||v||, 1); here <v,p> = 1e-10 exactly and ||v|| < 1
    p, q, v = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]), np.array([1e-10, 0.5, 0.0])
    moved = sph.parallel_transport(p, q, v)
    expected = v - (q @ v) / (1.0 + p @ q) * (p + q)  # the docstring's formula
    assert np.allclose(moved, expected, rtol=0.0, atol=1e-15)
    with pytest.raises(ValueError, match="v must be tangent"):
        sph.parallel_transport(p, q, np.array([2e-10, 0.5, 0.0]))


def test_spherical_step_refuses_a_step_onto_the_origin():
    x, a = np.array([1.0, 0.0]), np.array([1.0, 0.0])
    # A = η/(r²s) = η, <c,u> = 1: (H1) 1 − A<c,u> > 0 holds for η < 1 and fails at η = 1 exactly (x_{k+1} = 0)
    assert sph.spherical_step(x, a, 1.0, 0.5).r_next == 0.5
    with pytest.raises(ValueError, match=r"\(H1\).*learning_rate"):
        sph.spherical_step(x, a, 1.0, 1.0)


def test_li_arora_equivalent_refuses_alpha_zero_at_momentum_zero():
    x0 = [1.0, 0.0]
    eq = sph.li_arora_equivalent(0.5, 1.5, 0.0, x0)  # γ = 0: α = 1 − ηλ
    assert eq.alpha == 0.25
    with pytest.raises(ValueError, match="learning_rate \\* weight_decay must be < 1 at momentum 0"):
        sph.li_arora_equivalent(0.5, 2.0, 0.0, x0)  # ηλ = 1: α = 0


def test_deep_chain_strength_refuses_an_initial_velocity_beyond_1e300():
    # D = 1: the velocity s − a is 2s = 1.2e300 at t = 0, beyond the documented 1e300
    s = 0.6e300
    assert s - (-s) > 1e300
    with pytest.raises(ValueError, match="weights0 and s"):
        ln.deep_chain_strength([0.0, 1.0], s, [-s])


# ------------------------------------------------------------------------------------------------ error messages
def test_bn_linear_probe_names_the_target_shape_of_a_stack_of_batches():
    S = np.ones((2, 3, 2))
    S[:, 0, 0] = 0.0
    with pytest.raises(ValueError, match=re.escape("targets must have shape (2, 3) to match S, got (3,)")):
        sph.BNLinearProbe(S, [1.0, -1.0, 1.0])


def test_bn_linear_probe_names_the_target_shape_of_one_batch():
    S = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    with pytest.raises(ValueError, match=re.escape("targets must have shape (3,) to match S, got (2,)")):
        sph.BNLinearProbe(S, [1.0, -1.0])


def test_li_arora_equivalent_states_the_real_root_limit():
    gamma = 0.25
    # the discriminant of α² − (1 + γ − ηλ)α + γ vanishes at ηλ = (1 − √γ)²
    limit = (1.0 - math.sqrt(gamma)) ** 2
    text = f"learning_rate * weight_decay must be <= (1 - sqrt(momentum))² = {limit:.6g} for a real equivalent"
    with pytest.raises(ValueError, match=re.escape(text)):
        sph.li_arora_equivalent(0.3, 1.0, gamma, [1.0, 0.0])


def test_sgd_l2_invariant_interval_states_the_given_ratio():
    eta, lam, g_min, g_max = 0.1, 1.0, 0.5, 2.0
    rho, ratio = (1.0 - eta * lam) ** 2, g_min / g_max  # ρ = 0.81: (1 − ρ)/ρ = 0.2346 > ratio² = 0.0625, refused
    text = f"(1-ρ)/ρ = {(1.0 - rho) / rho:.6g} (ρ = (1 - learning_rate·weight_decay)²), got {ratio ** 2:.6g}"
    with pytest.raises(ValueError, match=re.escape(text)):
        sph.sgd_l2_invariant_interval(eta, lam, g_min, g_max)


# ------------------------------------------------------------------------------------------------ defaults
def test_monte_carlo_generalization_error_default_sample_count():
    assert inspect.signature(ln.monte_carlo_generalization_error).parameters["n_test_samples"].default == 100_000
    inst = ln.draw_student(4, 6, seed=2)
    implicit = ln.monte_carlo_generalization_error(inst, inst.initial_weights, seed=3)
    explicit = ln.monte_carlo_generalization_error(inst, inst.initial_weights, n_test_samples=100_000, seed=3)
    assert implicit == explicit


def test_asymptotic_errors_default_init_is_that_of_generalization_curve():
    # α < 1 keeps the frozen modes at their initial error, so the t → ∞ limit depends on init_std
    limit = ln.asymptotic_errors(0.5)
    curve = ln.generalization_curve(np.inf, 0.5)
    assert limit.generalization_error == pytest.approx(float(curve.generalization_error), rel=1e-12)
    assert limit.generalization_error == pytest.approx(1.0, rel=1e-12)  # teacher_std² + init_std² with σ_0 = 0


def test_sgdmrt_default_weight_decay_is_zero():
    x1 = sph.SGDMRT(0.1).step(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    # first step of SGD-M from a zero buffer, λ = 0: x − η g
    assert x1.tolist() == [1.0, -0.1]


def test_adamg_default_eps_keeps_the_step_on_the_sphere():
    x = sph.AdamG(0.1).step(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    # x_next = x̂/(||x̂|| + ε): a unit vector at ε = 0, to rounding
    assert float(np.linalg.norm(x)) == pytest.approx(1.0, rel=0.0, abs=4e-16)
    same = sph.AdamG(0.1, eps=0.0).step(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    assert np.array_equal(x, same)


def test_analytic_steps_default_grid():
    # the authors' grid k = 10^linspace(−3, 8, 300)
    assert np.allclose(dd.analytic_steps(), 10.0 ** np.linspace(-3.0, 8.0, 300), rtol=1e-14, atol=0.0)


def test_stieltjes_order_parameters_default_noise_is_that_of_the_replica_saddle_point():
    a, b = dd.stieltjes_order_parameters(1.5, 0.2), dd.replica_saddle_point(1.5, 0.2)
    assert float(a.Q) == pytest.approx(float(b.Q), rel=1e-12)  # two routes to the same saddle point
    assert float(a.R) == pytest.approx(float(b.R), rel=1e-12)
    # the ridgeless limit at α > 1: Q = T + σ²/(α − 1) = 1 without noise
    assert float(dd.stieltjes_order_parameters(2.0, 0.0).Q) == pytest.approx(1.0, rel=1e-12)


# ------------------------------------------------------------------------------------------------ formulas and records
def test_effective_initial_strength_of_a_width_one_hidden_layer():
    rng = np.random.default_rng(4)
    W21, W32 = rng.standard_normal((1, 3)), rng.standard_normal((3, 1))  # N1 = 3, N2 = 1, N3 = 3
    U = V = np.eye(3)
    # ((W21 V)ᵀ + UᵀW32)² summed over the hidden units, / 4, for each of the min(k_U, k_V) = 3 modes
    expected = [float(np.sum((W21 @ V[:, i] + U[:, i] @ W32) ** 2)) / 4.0 for i in range(3)]
    assert np.allclose(ln.effective_initial_strength(W21, W32, U, V), expected, rtol=1e-14, atol=0.0)


def test_finite_size_asymptotic_training_error_both_sides_of_p_equals_n():
    # the least-squares residual keeps the noise outside the N-dimensional span: σ²(P − N)/P, and 0 for P <= N
    assert ln.finite_size_asymptotic_training_error(100, 300, noise_std=2.0) == pytest.approx(4.0 * 200 / 300,
                                                                                              rel=1e-15)
    assert ln.finite_size_asymptotic_training_error(300, 100, noise_std=2.0) == 0.0


def test_exp_map_at_unit_speed():
    assert np.allclose(sph.exp_map([1.0, 0.0], [0.0, 1.0]), [math.cos(1.0), math.sin(1.0)], rtol=0.0, atol=1e-15)


def test_curve_extrema_is_symmetric_under_negation_at_a_turn_of_exactly_the_tolerance():
    y = np.array([2.0, 0.0, 1.0])  # falls by 2, then rises by exactly the tolerance 1
    up, down = dd.curve_extrema(y, tolerance=1.0), dd.curve_extrema(-y, tolerance=1.0)
    assert up.minima.tolist() == down.maxima.tolist()
    assert up.maxima.tolist() == down.minima.tolist()
    assert down.maxima.tolist() == []  # a fall of exactly the tolerance is no turn


def test_second_descent_crossing_at_the_last_sample():
    k = np.arange(1.0, 7.0)
    y = np.array([1.0, 0.5, 2.0, 1.9, 1.8, 0.0])  # first minimum 0.5, peak 2.0, lowest value 0.0 at the end
    dd2 = dd.second_descent(k, y)
    assert (dd2.first_minimum_step, dd2.peak_step, dd2.second_minimum_step) == (2.0, 3.0, 6.0)
    # both levels (1.0 half-way, 0.5 the first minimum) are crossed between k = 5 and 6, linear in ln k
    halfway = math.exp(math.log(5.0) + (1.8 - 1.0) / 1.8 * math.log(6.0 / 5.0))
    recovery = math.exp(math.log(5.0) + (1.8 - 0.5) / 1.8 * math.log(6.0 / 5.0))
    assert dd2.second_descent_step == pytest.approx(halfway, rel=1e-14)
    assert dd2.recovery_step == pytest.approx(recovery, rel=1e-14)


def test_rayleigh_loss_without_noise_draws_nothing_from_the_seed():
    rng = np.random.default_rng(5)
    sph.RayleighLoss(np.diag([1.0, 2.0]), 0.0, seed=rng)  # the seed is used only when noise_std > 0
    assert rng.random() == np.random.default_rng(5).random()


def test_simulate_records_directions_every_record_every_steps_and_at_the_last():
    run = sph.simulate(sph.SGD(0.1), sph.RayleighLoss(np.diag([1.0, 3.0])), np.array([1.0, 1.0]), 5, record_every=2)
    assert run.direction_steps.tolist() == [0, 2, 4, 5]
    assert run.directions.shape == (4, 2)


def test_simulate_records_the_weight_normalised_logistic_loss():
    S, labels, gamma = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 2.0]]), np.array([1.0, -1.0, 1.0]), 2.0
    x0 = np.array([3.0, 1.0])
    run = sph.simulate(sph.SGD(0.1), sph.WNLogistic(S, labels, gamma), x0, 1)
    u = x0 / np.linalg.norm(x0)
    expected = np.mean([math.log1p(math.exp(-y * gamma * float(s @ u))) for s, y in zip(S, labels)])
    assert float(run.loss[0]) == pytest.approx(expected, rel=1e-14)  # a sum of three softplus terms


def test_simulate_adagrad_with_eps_outside_the_root():
    # Rayleigh loss, H = diag(1, 3), x0 = (1, 1): ∇L(x0) = (Hu − (uᵀHu)u)/r = (−0.5, 0.5)
    eta, eps = 0.1, 0.5
    run = sph.simulate(sph.AdaGrad(eta, eps=eps), sph.RayleighLoss(np.diag([1.0, 3.0])), np.array([1.0, 1.0]), 1,
                       record_every=1)
    g = np.array([-0.5, 0.5])
    x1 = np.array([1.0, 1.0]) - eta * g / (np.sqrt(g * g) + eps)  # v = g², x − η g/(√v + ε)
    assert float(run.radius[1]) == pytest.approx(float(np.linalg.norm(x1)), rel=1e-14)
    assert np.allclose(run.directions[1], x1 / np.linalg.norm(x1), rtol=0.0, atol=1e-15)


def test_student_flow_through_the_stiff_switch():
    inst = ln.draw_student(10, 15, seed=2)
    t = [0.0, 1e5, 1e6]  # λ_max·t/τ ~ 4e6: DOP853 gives up, rosenbrock23 finishes with the Jacobian −XXᵀ/τ
    run = ln.student_flow(inst, t)
    assert np.allclose(run.weights, ln.student_weights(inst, np.array(t)), rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------------------------------------ extreme branches
def test_effective_lr_bounds_where_eta4_over_r04_overflows():
    eta, r0, g = 1e75, 1e-75, 1.0  # η⁴G⁴/r0⁴ = 1e600 leaves float64, every power alone does not
    bounds = sph.effective_lr_bounds_sgd(eta, r0, g, g, 1)
    with mpmath.workdps(60):
        e, r = mpmath.mpf(eta), mpmath.mpf(r0)
        lower = e / mpmath.sqrt(r ** 4 + 2 * e ** 2 + e ** 4 / r ** 4)  # k = 1: the log1p tail is 0
        upper = e / mpmath.sqrt(r ** 4 + 2 * e ** 2)
    assert bounds.lower == pytest.approx(float(lower), rel=1e-12, abs=0.0)  # the log-space route: ~1e-13
    assert bounds.upper == pytest.approx(float(upper), rel=1e-12, abs=0.0)


def test_effective_lr_bounds_at_step_zero_are_eta_over_r0_squared():
    eta, r0 = 1e-50, 1e75  # every power in float64's normal range: the direct sums
    bounds = sph.effective_lr_bounds_sgd(eta, r0, 1.0, 1.0, 0)
    with mpmath.workdps(40):
        exact = float(mpmath.mpf(eta) / mpmath.mpf(r0) ** 2)
    # η/sqrt(r0⁴): four roundings of 2^-53 each (three products, the root, the quotient), well below 1e-15
    assert bounds.lower == pytest.approx(exact, rel=1e-15, abs=0.0)
    assert bounds.upper == pytest.approx(exact, rel=1e-15, abs=0.0)


@pytest.mark.parametrize("alpha, teacher_std", [(0.5, 1e-8), (2.0, 3e-9)])
def test_optimal_stopping_time_for_a_vanishing_signal_to_noise_ratio(alpha, teacher_std):
    noise_std = 0.5
    ratio = teacher_std ** 2 / noise_std ** 2
    # each mode stops at t*(λ) = log1p(λA/σ²)/λ = (A/σ²)(1 − O(λA/σ²)): all of them at A/σ² to ~1e-15 here
    assert ln.optimal_stopping_time(alpha, teacher_std=teacher_std, noise_std=noise_std) == pytest.approx(
        ratio, rel=1e-12, abs=0.0)


@pytest.mark.parametrize("t_end, tau", [(1.0, 1e-310), (1e300, 1e-10)])
def test_deep_mode_curve_refuses_a_span_beyond_float64_naming_t_and_tau(t_end, tau):
    """t/tau overflowing float64 raised OverflowError from the decade split; it is refused as a ValueError naming
    both parameters, as deep_mode_strength refuses a span it cannot resolve."""
    with pytest.raises(ValueError, match="t and tau"):
        ln.deep_mode_curve([0.0, t_end], 2.0, 1e-3, 3, tau=tau)
