"""Unit and property tests of dynamics.linear_networks: the public closed forms (limits, scalings, refused inputs), the
simulators, the set-ups and the mode bases they share."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynamics import linear_networks as ln
from dynamics import numerics as nx

# ----------------------------------------------------------------------------------------------------
# Bad input raises ValueError naming the parameter
# ----------------------------------------------------------------------------------------------------

BAD_CALLS = [
    (ln.mode_strength, (1.0, 1.0, 0.0), {}, "u0"),
    (ln.mode_strength, (1.0, 1.0, -1e-3), {}, "u0"),
    (ln.mode_strength, (1.0, -1.0, 1e-3), {}, "s"),
    (ln.mode_strength, (-1.0, 1.0, 1e-3), {}, "t"),
    (ln.mode_strength, (np.nan, 1.0, 1e-3), {}, "t"),
    (ln.mode_strength, ([0.0, 1.0], [1.0, -2.0], 1e-3), {}, "s"),
    (ln.mode_strength, (1.0, 1.0, 1e-3), {"tau": 0.0}, "tau"),
    # issue 8: a broadcasting failure names the parameters
    (ln.mode_strength, (np.ones(3), np.ones(2), 0.01), {}, "t, s and u0"),
    (ln.half_learning_time, (np.ones(3), np.full(2, 0.1)), {}, "s and u0"),
    (ln.learning_time, (np.ones(3), np.full(2, 0.1), 0.5), {}, "s, u_start and u_end"),
    (ln.scalar_mode_velocity, (np.ones(3), np.ones(2), 1.0), {}, "a and b"),
    (ln.expected_mode_error, (np.ones(3), np.ones(2)), {}, "t and eigenvalue"),
    (ln.decoupled_init, (np.eye(3), np.eye(3), 4, [0.1, 0.1], [0.1, 0.1, 0.1]), {}, "a0 and b0"),
    (ln.first_crossing_time, ([0.0, 1.0], np.zeros((2, 3)), [0.5, 0.5]), {}, "level"),
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
    (ln.generalization_curve, (1.0, 1.0), {"teacher_std": -1.0}, "teacher_std"),
    (ln.generalization_curve, (1.0, 1.0), {"noise_std": -0.1}, "noise_std"),
    (ln.generalization_curve, (1.0, 1.0), {"init_std": -0.1}, "init_std"),
    (ln.generalization_curve, (1.0, 1.0), {"tau": 0.0}, "tau"),
    (ln.generalization_curve, ([1.0, -1.0], 1.0), {}, "t"),
    (ln.generalization_curve, (np.nan, 1.0), {}, "t"),
    (ln.optimal_stopping_time, (0.0,), {}, "alpha"),
    (ln.optimal_stopping_time, (1.0,), {"teacher_std": -1.0}, "teacher_std"),
    (ln.optimal_stopping_time, (1.0,), {"noise_std": -1.0}, "noise_std"),
    (ln.optimal_stopping_time, (1.0,), {"init_std": -1.0}, "init_std"),
    (ln.optimal_stopping_time, (1.0,), {"tau": -2.0}, "tau"),
    (ln.learning_time, (1.0, 0.1, 1.5), {}, "u_end"),
    (ln.deep_mode_strength, ([0.0, 1.0], 1.0, 1e-3, 0), {}, "n_weight_layers"),
    (ln.per_mode_stopping_time, (-1.0,), {}, "eigenvalue"),
    (ln.bayes_error, (-0.5,), {}, "alpha"),
    (ln.draw_student, (10, 20), {"teacher_std": -1.0}, "teacher_std"),
    (ln.draw_student, (10, 0), {}, "n_samples"),
    (ln.gd_flow_time, (10, 0.0), {}, "learning_rate"),
    (ln.gd_flow_time, (-1, 0.1), {}, "steps"),
    (ln.expected_generalization_error, (1.0, [1.0, -0.5]), {}, "eigenvalues"),
    (ln.finite_size_asymptotic_generalization_error, (10, 11), {}, "n_samples"),
    (ln.whitened_inputs, (5, 3), {}, "n_samples"),
    (ln.mode_task, ([3.0, 2.0, 1.0], 2, 4), {}, "singular_values"),
    (ln.random_init, (3, 4, 2, -0.1), {}, "init_std"),
    (ln.student_instance, (np.ones((3, 4)), np.ones(3), np.ones(5), np.ones(3), 0.5), {}, "noise"),
    # overflow, empty arrays, shapes and NaN in the helpers
    (ln.mode_strength_unbalanced, (1.0, 1.0, 1e200, 1e-200), {}, "a0"),
    (ln.mode_strength_unbalanced, (1.0, 1.0, 0.1, -1e200), {}, "b0"),
    # the integrated flows: limits that keep the velocity finite, and t/tau in float64 (issue: fuzz findings)
    (ln.scalar_mode_flow, ([0.0, 1.0], 1e201, 0.1, 0.1), {}, "s"),
    (ln.scalar_mode_flow, ([0.0, 1.0], 1.0, 1e101, 0.1), {}, "a0"),
    (ln.scalar_mode_flow, ([0.0, 1.0], 1.0, 0.1, 0.1), {"tau": 1e-310}, "tau"),
    (ln.deep_mode_strength, ([0.0, 1.0], 1.0, 1e101, 3), {}, "u0"),
    (ln.deep_chain_strength, ([0.0, 1.0], 1.0, [1e60, 1e60, 1e60, 1e60, 1e60, 1e60]), {}, "weights0"),
    (ln.deep_chain_strength, ([0.0, 1.0], 1.0, [0.1, 0.2]), {"rtol": 0.0}, "rtol"),
    (ln.generalization_curve, (1.0, 0.5), {"teacher_std": 1e200}, "teacher_std"),
    (ln.generalization_curve, (1e10, 1.0), {"noise_std": 1e150}, "teacher_std, noise_std"),
    (ln.optimal_stopping_time, (0.5,), {"teacher_std": 1e150, "noise_std": 1e-160}, "noise_std"),
    (ln.scalar_mode_flow, ([], 1.0, 0.1, 0.1), {}, "t"),
    (ln.scalar_mode_flow, ([1.0, 0.5], 1.0, 0.1, 0.1), {}, "t"),
    (ln.deep_mode_strength, ([], 1.0, 0.1, 3), {}, "t"),
    (ln.expected_generalization_error, (1.0, []), {}, "eigenvalues"),
    (ln.mode_map, (np.full((4, 3), np.nan), np.ones((2, 4)), np.eye(2), np.eye(3)), {}, "W21"),
    (ln.mode_map, (np.ones((4, 3)), np.ones((2, 5)), np.eye(2), np.eye(3)), {}, "W32"),
    (ln.mode_map, (np.ones((4, 3)), np.ones((2, 4)), np.eye(5), np.eye(3)), {}, "U"),
    (ln.mode_strengths, (np.ones((4, 3)), np.ones((2, 4)), np.eye(2), np.full((3, 3), np.inf)), {}, "V"),
    (ln.effective_initial_strength, (np.ones((4, 3)), np.full((2, 4), np.nan), np.eye(2), np.eye(3)), {}, "W32"),
    (ln.conserved_gram, (np.ones((4, 3)), np.ones((2, 3))), {}, "W32"),
    (ln.network_loss, (np.ones((4, 3)), np.ones((2, 4)), np.ones((3, 5)), np.ones((2, 6))), {}, "Y"),
    (ln.network_flow, (np.ones((4, 3)), np.ones((2, 4)), np.ones((2, 5)), [0.0, 1.0]), {}, "sigma31"),
    (ln.network_gd, (0.1 * np.ones((4, 3)), 0.1 * np.ones((2, 4)), 100 * np.ones((2, 3)), 200, 1.0), {},
     "learning_rate"),
]

# Sizes that are not whole numbers are a ValueError naming the parameter (the core's require_integer).
NON_INTEGER_SIZES = [
    (ln.draw_student, (10.5, 20), "n_features"),
    (ln.draw_student, (10, 20.5), "n_samples"),
    (ln.whitened_inputs, (3, 7.5), "n_samples"),
    (ln.random_init, (3, 4.2, 2, 0.1), "n_hidden"),
    (ln.mode_task, ([1.0], 2.5, 2), "n_features"),
    (ln.network_gd, (np.eye(2), np.eye(2), np.eye(2), 10.5, 0.1), "n_steps"),
]


@pytest.mark.parametrize("fn, args, name", NON_INTEGER_SIZES, ids=[f"{c[0].__name__}-{c[2]}" for c in NON_INTEGER_SIZES])
def test_non_integer_sizes_are_rejected(fn, args, name):
    with pytest.raises(ValueError, match=name):
        fn(*args)


@pytest.mark.parametrize("fn, args, kwargs, name", BAD_CALLS,
                         ids=[f"{c[0].__name__}-{c[3]}-{k}" for k, c in enumerate(BAD_CALLS)])
def test_bad_input_raises_value_error_naming_the_parameter(fn, args, kwargs, name):
    with pytest.raises(ValueError, match=name):
        fn(*args, **kwargs)


def test_student_helpers_reject_bad_weights_and_divergence():
    inst = ln.draw_student(10, 6, seed=0)
    for fn in (ln.generalization_error, ln.generalization_error_thesis_variant, ln.training_error_direct):
        with pytest.raises(ValueError, match="weights"):
            fn(inst, np.zeros(3))
        with pytest.raises(ValueError, match="weights"):
            fn(inst, np.full(10, np.nan))
    with pytest.raises(ValueError, match="learning_rate"):
        ln.student_gd(inst, 1000, 100.0)
    with pytest.raises(ValueError, match="learning_rate"):
        ln.student_weights_gd(inst, 10, 100.0)
    with pytest.raises(ValueError, match="steps"):
        ln.student_weights_gd(inst, [1.5], 0.1)
    with pytest.raises(ValueError, match="t"):
        ln.student_flow(inst, [])


def test_optimal_stopping_time_extreme_signal_to_noise():
    # t_opt depends on the standard deviations only through (σ_w̄² + σ_0²)/σ_ε², also where the bracket collapses
    for ratio in (1e-300, 1e-30, 1e30, 1e290):
        noise_std = math.sqrt(1.0 / ratio)
        t_opt = ln.optimal_stopping_time(0.5, teacher_std=1.0, noise_std=noise_std)
        assert 0 < t_opt < math.inf
        assert ln.optimal_stopping_time(0.5, teacher_std=1e-3, noise_std=1e-3 * noise_std) == pytest.approx(t_opt, rel=1e-8)
        lo, hi = ln.per_mode_stopping_time(np.array([2.9142135623730954, 0.08578643762690485]), teacher_std=1.0, noise_std=noise_std)
        assert lo * (1 - 1e-12) <= t_opt <= hi * (1 + 1e-12)


def test_string_input_is_a_type_error():
    with pytest.raises(TypeError, match="t"):
        ln.mode_strength("soon", 1.0, 1e-3)
    with pytest.raises(TypeError, match="instance"):
        ln.generalization_error("not an instance", np.zeros(3))
    with pytest.raises(TypeError, match="seed"):
        ln.draw_student(10, 20, seed="fixed")


# ----------------------------------------------------------------------------------------------------
# Issue 8: one result convention, keyword seeds, the core's Haar sampler
# ----------------------------------------------------------------------------------------------------

def test_every_public_function_has_a_return_annotation_and_a_docstring_example():
    import inspect

    for name in ln.__all__:
        obj = getattr(ln, name)
        if inspect.isfunction(obj):
            annotation = inspect.signature(obj).return_annotation
            assert annotation is not inspect.Signature.empty and annotation is not tuple, name
            assert "Examples" in obj.__doc__ and "Parameters" in obj.__doc__, name
        elif isinstance(obj, type):
            assert issubclass(obj, tuple) and hasattr(obj, "_fields"), f"{name} must be a NamedTuple"


def test_functions_that_draw_take_seed_as_a_keyword_defaulting_to_none():
    import inspect

    for fn in (ln.draw_student, ln.whitened_inputs, ln.mode_task, ln.random_init, ln.decoupled_init,
               ln.monte_carlo_generalization_error, ln.whitened_mode_task, ln.draw_input_spectrum,
               ln.simulated_student_errors):
        parameter = inspect.signature(fn).parameters["seed"]
        assert parameter.default is None, fn.__name__


def test_results_are_named_tuples_with_their_time_axis():
    curve = ln.generalization_curve([0.0, 1.0], 2.0)
    assert isinstance(curve, ln.GeneralizationCurve) and curve.training_error.shape == (2,)
    eg, et = curve  # still unpacks
    assert ln.asymptotic_errors(2.0) == ln.AsymptoticErrors(0.5, 0.125)
    task = ln.mode_task([2.0, 1.0], 3, 2, seed=1)
    init = ln.decoupled_init(task.U, task.V, 3, 0.1, seed=2)
    assert isinstance(task, ln.ModeTask) and isinstance(init, ln.NetworkWeights)
    flow = ln.network_flow(*init, task.correlation, [0.0, 0.5, 1.0])
    np.testing.assert_array_equal(flow.t, [0.0, 0.5, 1.0])
    assert flow.W21.shape == (3, 3, 3) and flow.W32.shape == (3, 2, 3)
    gd = ln.network_gd(*init, task.correlation, 10, 0.01, record_every=5)
    np.testing.assert_array_equal(gd.steps, [0, 5, 10])
    mode = ln.scalar_mode_flow([0.0, 1.0], 1.0, 0.3, 0.2)
    np.testing.assert_allclose(mode.mode_strength, mode.a * mode.b)
    inst = ln.draw_student(10, 15, seed=3)
    assert inst.n_samples == 15 and inst.n_features == 10 and isinstance(inst, tuple)
    est = ln.monte_carlo_generalization_error(inst, np.zeros((2, 10)), n_test_samples=100, seed=4)
    assert isinstance(est, ln.MonteCarloEstimate) and est.standard_error.shape == (2,)
    np.testing.assert_array_equal(ln.student_gd(inst, 6, 0.1, record_every=3).steps, [0, 3, 6])


def test_random_draws_use_the_core_haar_sampler_with_the_same_stream():
    from dynamics.numerics import haar_orthogonal

    # whitened_inputs: the first rows of one Haar matrix (the stream of the former random_orthogonal)
    np.testing.assert_array_equal(ln.whitened_inputs(3, 7, seed=5), haar_orthogonal(7, seed=5)[:3])
    rng = np.random.default_rng(6)
    U, V = haar_orthogonal(4, seed=rng), haar_orthogonal(5, seed=rng)
    task = ln.mode_task([1.0], 5, 4, seed=6)
    np.testing.assert_array_equal(task.U, U)
    np.testing.assert_array_equal(task.V, V)
    # seed=None draws fresh entropy
    assert not np.array_equal(ln.whitened_inputs(3, 7), ln.whitened_inputs(3, 7))


def test_draw_student_standard_deviations_scale_the_draws():
    base = ln.draw_student(20, 30, teacher_std=1.0, noise_std=1.0, init_std=1.0, seed=7)
    scaled = ln.draw_student(20, 30, teacher_std=2.0, noise_std=0.5, init_std=3.0, seed=7)
    np.testing.assert_allclose(scaled.teacher, 2.0 * base.teacher)
    np.testing.assert_allclose(scaled.noise, 0.5 * base.noise)
    np.testing.assert_allclose(scaled.initial_weights, 3.0 * base.initial_weights)
    assert scaled.noise_std == 0.5
    assert ln.generalization_error(scaled, scaled.teacher) == pytest.approx(0.25)


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


def test_mode_strength_matches_the_printed_sigmoid_where_that_is_accurate():
    # (2.2.22) as printed, s e^{2st}/(e^{2st} − 1 + s/u0), is accurate for moderate s t
    t = np.linspace(0.0, 6.0, 31)
    for s, u0, tau in ((2.0, 1e-3, 1.0), (0.7, 0.05, 2.0), (1.5, 2.0, 0.5)):
        e = np.exp(2 * s * t / tau)
        np.testing.assert_allclose(ln.mode_strength(t, s, u0, tau), s * e / (e - 1 + s / u0), rtol=1e-12)


def test_mode_strength_depends_on_t_over_tau():
    t = np.linspace(0, 8, 17)
    np.testing.assert_allclose(ln.mode_strength(3.0 * t, 1.3, 1e-4, tau=3.0), ln.mode_strength(t, 1.3, 1e-4),
                               rtol=1e-13)
    assert ln.half_learning_time(1.3, 1e-4, tau=3.0) == pytest.approx(3.0 * ln.half_learning_time(1.3, 1e-4))


def test_half_learning_time_sign_and_reference_values():
    assert ln.half_learning_time(1.0, 0.5) == 0.0
    assert ln.half_learning_time(1.0, 0.7) < 0
    values = ln.half_learning_time(np.array([3, 2, 1, 0.5, 0.25]), 1e-6)
    np.testing.assert_allclose(values, [2.4857, 3.6272, 6.9078, 13.1224, 24.8584], atol=1e-4)


def test_unbalanced_reduces_to_balanced():
    t = np.linspace(0, 20, 41)
    for a in (1e-3, 0.4, -0.7):
        np.testing.assert_allclose(ln.mode_strength_unbalanced(t, 1.5, a, a), ln.mode_strength(t, 1.5, a * a),
                                   rtol=1e-12)
    opposite = ln.mode_strength_unbalanced(t, 1.5, 0.3, -0.3)
    assert np.all(opposite <= 0) and abs(opposite[-1]) < 1e-12
    assert np.all(ln.mode_strength_unbalanced(t, 1.0, 0.0, 0.0) == 0)
    assert ln.mode_strength_unbalanced(math.inf, 1.0, 0.5, -0.2) == pytest.approx(1.0, rel=1e-12)


def test_generalization_curve_at_zero():
    for alpha in (0.1, 0.5, 1.0, 1.7, 4.0):
        for teacher_std, noise_std, init_std in ((1.0, 0.5, 0.0), (math.sqrt(2.0), math.sqrt(0.1), 0.5)):
            eg, et = ln.generalization_curve(0.0, alpha, teacher_std=teacher_std, noise_std=noise_std, init_std=init_std)
            expected = teacher_std ** 2 + init_std ** 2 + noise_std ** 2
            assert eg == pytest.approx(expected, rel=1e-8)
            assert et == pytest.approx(expected, rel=1e-8)


def test_generalization_curve_scaling():
    t = np.array([0.0, 0.3, 4.0, 50.0, np.inf])
    for alpha in (0.5, 2.0):
        eg, et = ln.generalization_curve(t, alpha, teacher_std=1.0, noise_std=0.5, init_std=0.3)
        r = math.sqrt(3.0)
        eg_k, et_k = ln.generalization_curve(t, alpha, teacher_std=r, noise_std=0.5 * r, init_std=0.3 * r)
        np.testing.assert_allclose(eg_k, 3 * eg, rtol=1e-12)
        np.testing.assert_allclose(et_k, 3 * et, rtol=1e-12)
        eg_tau, _ = ln.generalization_curve(t * 2.5, alpha, tau=2.5)
        np.testing.assert_allclose(eg_tau, ln.generalization_curve(t, alpha).generalization_error, rtol=1e-12)


def test_generalization_curve_infinity_and_shapes():
    assert ln.generalization_curve(math.inf, 1.0) == (math.inf, 0.0)
    assert ln.generalization_curve(math.inf, 1.0, noise_std=0.0).generalization_error == 0.0
    eg, et = ln.generalization_curve(np.array([[0.0, 1.0], [10.0, np.inf]]), 2.0)
    assert eg.shape == (2, 2) and et.shape == (2, 2)
    assert eg[1, 1] == pytest.approx(0.25 * 2.0, rel=1e-15) and et[1, 1] == pytest.approx(0.125)
    assert ln.generalization_curve(1e6, 2.0).generalization_error == pytest.approx(0.5, rel=1e-10)
    assert isinstance(ln.generalization_curve(1.0, 0.5).generalization_error, float)


def test_optimal_stopping_time_bracket_and_invariance():
    for alpha in (0.5, 0.9, 1.0, 1.1, 2.0):
        t_opt = ln.optimal_stopping_time(alpha)
        lo, hi = (1 - math.sqrt(alpha)) ** 2, (1 + math.sqrt(alpha)) ** 2
        assert ln.per_mode_stopping_time(hi) <= t_opt <= ln.per_mode_stopping_time(lo)
        r = math.sqrt(3.0)
        assert ln.optimal_stopping_time(alpha, teacher_std=r, noise_std=0.5 * r, init_std=0.0) == pytest.approx(t_opt, rel=1e-8)
        assert ln.optimal_stopping_time(alpha, tau=4.0) == pytest.approx(4.0 * t_opt, rel=1e-8)
    assert ln.optimal_stopping_time(0.5, noise_std=0.0) == math.inf
    assert ln.optimal_stopping_time(0.5, teacher_std=0.0) == 0.0


def test_student_frozen_modes_and_t_zero():
    inst = ln.draw_student(30, 12, init_std=0.4, seed=3)
    np.testing.assert_allclose(ln.student_weights(inst, 0.0)[0], inst.initial_weights, atol=1e-13)
    w_inf = ln.student_weights(inst, math.inf)[0]
    assert np.all(np.isfinite(w_inf))
    frozen = inst.input_modes[:, 12:]
    np.testing.assert_allclose(w_inf @ frozen, inst.initial_weights @ frozen, atol=1e-12)
    assert ln.training_error(inst, math.inf)[0] == pytest.approx(0.0, abs=1e-10)  # memorisation for P < N


def test_student_instance_matches_the_eigendecomposition_of_x_xt():
    for n, p in ((12, 20), (20, 12), (15, 15)):
        inst = ln.draw_student(n, p, init_std=0.2, seed=n + p)
        lam = np.sort(np.linalg.eigvalsh(inst.inputs @ inst.inputs.T))[::-1]
        np.testing.assert_allclose(inst.eigenvalues[:min(n, p)], lam[:min(n, p)], rtol=1e-10)
        np.testing.assert_array_equal(inst.eigenvalues[min(n, p):], 0.0)
        V = inst.input_modes
        np.testing.assert_allclose(V.T @ V, np.eye(n), atol=1e-12)
        # ε̃_i = ε·u_i with u_i = Xᵀ v_i / √λ_i, and ||ε||² = Σ ε̃_i² + ||ε U^⊥||²
        m = min(n, p)
        u = inst.inputs.T @ V[:, :m] / np.sqrt(inst.eigenvalues[:m])
        np.testing.assert_allclose(inst.rotated_noise, inst.noise @ u, atol=1e-12)
        assert inst.noise @ inst.noise == pytest.approx(inst.rotated_noise @ inst.rotated_noise
                                                        + inst.residual_noise, rel=1e-12)


def test_gd_flow_time_counts_exactly_k_steps():
    steps = np.arange(0, 7)
    np.testing.assert_array_equal(ln.gd_flow_time(steps, 0.25), steps * 0.25)
    np.testing.assert_array_equal(ln.gd_flow_time(steps, 0.25, loss_scale=2.0, tau=4.0), steps * 2.0)
    assert ln.gd_flow_time(100, 0.01) == pytest.approx(1.0)
    assert ln.gd_flow_time(0, 0.01) == 0.0
    # one explicit GD step on a tiny-eigenvalue problem moves w as the flow does at t = gd_flow_time(1, η)
    inst = ln.draw_student(20, 30, init_std=0.3, seed=8)
    small = ln.student_instance(1e-3 * inst.inputs, inst.teacher, inst.noise, inst.initial_weights, inst.noise_std)
    for k in (1, 2, 3):
        moved_gd = ln.student_gd(small, k, 0.1).weights[-1] - small.initial_weights
        moved_flow = ln.student_weights(small, ln.gd_flow_time(k, 0.1))[0] - small.initial_weights
        np.testing.assert_allclose(moved_gd, moved_flow, rtol=1e-5, atol=0)


def test_student_weights_gd_is_exact_for_small_eigenvalues():
    # (1 − ηλ)^k is evaluated as exp(k log1p(−ηλ)): with ηλ ~ 1e-9, rounding 1 − ηλ would put an error of
    # k eps |ε̃|/√λ ~ 1e-10 on w (the noise fixed point ε̃/√λ is large); explicit GD has no such error.
    inst = ln.draw_student(20, 20, init_std=0.3, seed=9)
    small = ln.student_instance(1e-4 * inst.inputs, inst.teacher, inst.noise, inst.initial_weights, inst.noise_std)
    gd = ln.student_gd(small, 300, 0.1, record_every=100)
    closed = ln.student_weights_gd(small, gd.steps, 0.1)
    np.testing.assert_allclose(closed, gd.weights, rtol=0, atol=1e-13)


def test_whiten_gives_sum_normalised_inputs():
    X = np.random.default_rng(0).standard_normal((5, 40))
    W = ln.whiten(X)
    np.testing.assert_allclose(W @ W.T, np.eye(5), atol=1e-12)
    with pytest.raises(ValueError, match="X"):
        ln.whiten(np.ones((3, 2)))


# ----------------------------------------------------------------------------------------------------
# Mode bases: the full or the reduced SVD of Σ31, the same factors for decoupled_init and mode_strengths
# ----------------------------------------------------------------------------------------------------

def _correlation_and_network(n_outputs=4, n_features=6, n_hidden=5, seed=0):
    rng = np.random.default_rng(seed)
    sigma31 = rng.standard_normal((n_outputs, n_features))
    W21, W32 = ln.random_init(n_features, n_hidden, n_outputs, init_std=0.5, seed=rng)
    return sigma31, W21, W32


@pytest.mark.parametrize("shape", [(4, 6), (6, 4), (5, 5)])
def test_reduced_and_full_svd_give_the_same_first_k_mode_strengths(shape):
    sigma31, W21, W32 = _correlation_and_network(*shape)
    U, s, Vh = np.linalg.svd(sigma31, full_matrices=False)
    Uf, sf, Vhf = np.linalg.svd(sigma31)
    k = s.size
    assert U.shape == (shape[0], k) and Vh.T.shape == (shape[1], k)
    reduced = ln.mode_strengths(W21, W32, U, Vh.T)
    full = ln.mode_strengths(W21, W32, Uf, Vhf.T)
    assert reduced.shape == (k,) and full.shape == (min(shape),)
    np.testing.assert_allclose(reduced, full[:k], rtol=1e-12, atol=1e-14)
    # mode_map: the reduced map is the top-left k × k block of the full one, also for a stack of networks
    stack21, stack32 = np.stack([W21, 2 * W21]), np.stack([W32, -W32])
    np.testing.assert_allclose(ln.mode_map(stack21, stack32, U, Vh.T),
                               ln.mode_map(stack21, stack32, Uf, Vhf.T)[:, :k, :k], rtol=1e-12, atol=1e-14)
    # the first two modes only (k = 2 of a reduced SVD)
    np.testing.assert_allclose(ln.mode_strengths(W21, W32, U[:, :2], Vh[:2].T), full[:2], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ln.effective_initial_strength(W21, W32, U, Vh.T),
                               ln.effective_initial_strength(W21, W32, Uf, Vhf.T)[:k], rtol=1e-12)


def test_decoupled_init_from_a_reduced_svd_is_read_back_by_mode_strengths():
    sigma31, _, _ = _correlation_and_network(4, 7, seed=3)
    U, s, Vh = np.linalg.svd(sigma31, full_matrices=False)
    a0 = np.array([0.1, 0.2, 0.3, 0.4])
    W21, W32 = ln.decoupled_init(U, Vh.T, n_hidden=6, a0=a0, seed=1)
    np.testing.assert_allclose(ln.mode_strengths(W21, W32, U, Vh.T), a0 ** 2, rtol=1e-12)
    M = ln.mode_map(W21, W32, U, Vh.T)
    np.testing.assert_allclose(M - np.diag(np.diag(M)), 0.0, atol=1e-14)
    # and the flow from it follows the sigmoid of each singular value
    run = ln.network_flow(W21, W32, sigma31, [0.0, 1.0, 3.0],
                          options=ln.NETWORK_ODE_OPTIONS._replace(rtol=1e-12, atol=1e-15))
    u = ln.mode_strengths(run.W21, run.W32, U, Vh.T)
    np.testing.assert_allclose(u, ln.mode_strength(run.t[:, None], s, a0 ** 2), rtol=1e-8)


BAD_MODE_BASES = [
    # (U, V) for a network with N3 = 4 outputs and N1 = 6 inputs; the parameter at fault and its shape
    (lambda U, Vh: (U, Vh), "V", r"\(4, 6\)"),                       # Vh passed for V (V = Vh.T)
    (lambda U, Vh: (U[:3], Vh.T), "U", r"\(3, 4\)"),                 # too few rows
    (lambda U, Vh: (U, np.hstack([Vh.T, Vh.T[:, :3]])), "V", r"\(6, 7\)"),  # more columns than rows
    (lambda U, Vh: (U, np.zeros((6, 0))), "V", r"\(6, 0\)"),         # no modes
    (lambda U, Vh: (2 * U, Vh.T), "U", r"\(4, 4\)"),                 # columns not normalised
    (lambda U, Vh: (U, Vh.T + 0.01), "V", r"\(6, 4\)"),              # columns not orthogonal
    (lambda U, Vh: (U[:, 0], Vh.T), "U", "2-dimensional"),             # a vector
]


@pytest.mark.parametrize("make, name, shape", BAD_MODE_BASES, ids=[f"{k}-{c[1]}" for k, c in enumerate(BAD_MODE_BASES)])
@pytest.mark.parametrize("fn", [ln.mode_strengths, ln.mode_map, ln.effective_initial_strength])
def test_bad_mode_bases_are_a_value_error_naming_the_parameter_and_shape(fn, make, name, shape):
    sigma31, W21, W32 = _correlation_and_network(4, 6)
    U, _, Vh = np.linalg.svd(sigma31, full_matrices=False)
    U_bad, V_bad = make(U, Vh)
    with pytest.raises(ValueError, match=rf"^{name} must") as info:
        fn(W21, W32, U_bad, V_bad)
    assert info.match(shape)


@pytest.mark.parametrize("make, name, shape", BAD_MODE_BASES, ids=[f"{k}-{c[1]}" for k, c in enumerate(BAD_MODE_BASES)])
def test_decoupled_init_refuses_the_same_mode_bases(make, name, shape):
    """decoupled_init makes the network's sizes from U and V, and refuses what mode_strengths refuses (a Vh passed
    for V, or a U with fewer rows than columns, is a basis with more columns than rows there)."""
    sigma31, _, _ = _correlation_and_network(4, 6)
    U, _, Vh = np.linalg.svd(sigma31, full_matrices=False)
    U_bad, V_bad = make(U, Vh)
    with pytest.raises(ValueError, match=rf"^{name} must") as info:
        ln.decoupled_init(U_bad, V_bad, n_hidden=6, a0=0.1, seed=0)
    assert info.match(shape)


def test_mode_bases_from_float32_singular_vectors_are_accepted():
    sigma31, W21, W32 = _correlation_and_network(4, 6)
    U, _, Vh = np.linalg.svd(sigma31, full_matrices=False)
    U32, _, Vh32 = np.linalg.svd(sigma31.astype(np.float32), full_matrices=False)
    signs = np.sign(np.sum(U * U32, axis=0))  # singular vectors are defined up to a sign per mode
    np.testing.assert_allclose(ln.mode_strengths(W21, W32, U32 * signs, Vh32.T * signs),
                               ln.mode_strengths(W21, W32, U, Vh.T), rtol=1e-4, atol=1e-5)


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
@given(t=times, alpha=st.floats(0.05, 20.0), teacher_std=st.floats(0.0, 3.0), noise_std=st.floats(0.0, 3.0),
       init_std=st.floats(0.0, 3.0), tau=st.floats(1e-2, 1e2))
def test_generalization_curve_is_finite_and_ordered(t, alpha, teacher_std, noise_std, init_std, tau):
    eg, et = ln.generalization_curve(t, alpha, teacher_std=teacher_std, noise_std=noise_std, init_std=init_std, tau=tau)
    assert not math.isnan(eg) and not math.isnan(et)
    assert et >= 0 and eg >= noise_std ** 2 * (1 - 1e-12)
    assert math.isfinite(eg) or (alpha == 1.0 and t == math.inf)


@settings(max_examples=25, deadline=None)
@given(alpha=st.floats(0.05, 20.0), teacher_std=st.floats(0.03, 3.0), noise_std=st.floats(0.03, 3.0),
       init_std=st.floats(0.0, 1.5))
def test_optimal_stopping_time_beats_its_neighbours(alpha, teacher_std, noise_std, init_std):
    t_opt = ln.optimal_stopping_time(alpha, teacher_std=teacher_std, noise_std=noise_std, init_std=init_std)
    assert 0 < t_opt < math.inf
    eg = ln.generalization_curve(np.array([0.8 * t_opt, t_opt, 1.25 * t_opt]), alpha, teacher_std=teacher_std, noise_std=noise_std,
                                 init_std=init_std).generalization_error
    assert eg[1] <= min(eg[0], eg[2]) * (1 + 1e-12)
    assert ln.bayes_error(alpha, teacher_std=teacher_std, noise_std=noise_std, init_std=init_std) <= eg[1] * (1 + 1e-12)


@pytest.mark.parametrize("rate", [0.3, 1.0, 1.5, 1.9])
def test_discrete_closed_form_equals_gd_when_steps_overshoot(rate):
    """Regression: for 1 < eta*lambda_max < 2 GD still converges, overshooting with alternating sign; the closed
    form (1 - eta*lambda)^k was evaluated as exp(k log1p(-eta*lambda)) and returned NaN there."""
    inst = ln.draw_student(4, 6, init_std=0.3, seed=1)
    learning_rate = rate / inst.eigenvalues[0]
    steps = [0, 1, 2, 3, 7, 40]
    closed = ln.student_weights_gd(inst, steps, learning_rate)
    explicit = ln.student_gd(inst, 40, learning_rate).weights[steps]
    assert np.all(np.isfinite(closed)) and np.abs(closed - explicit).max() < 1e-12


# ----------------------------------------------------------------------------------------------------
# Fuzz findings (tests/test_public_api.py): extreme inputs give the exact value where it is a double, or a
# ValueError naming the input, never NaN, inf, ZeroDivisionError or an IntegrationError
# ----------------------------------------------------------------------------------------------------

HUGE = 1.7976931348623153e308


def _exact_unbalanced(t, s, a0, b0, tau=1.0):
    """u(t) of the unbalanced closed form in 800-digit arithmetic (the naive W/4 − c²/(4W) form)."""
    import mpmath
    with mpmath.workdps(800):
        s, a0, b0, tau, t = (mpmath.mpf(v) for v in (s, a0, b0, tau, t))
        u0, c = a0 * b0, abs(a0 * a0 - b0 * b0)
        root = mpmath.sqrt(4 * s * s + c * c)
        big, small, w0 = 2 * s + root, -c * c / (2 * s + root), 2 * u0 + mpmath.sqrt(c * c + 4 * u0 * u0)
        k = (w0 - small) / (big - w0)
        decay = mpmath.exp(-root * t / tau)
        w = (big * k + small * decay) / (decay + k)
        return float(w / 4 - c * c / (4 * w))


EXTREME_VALUES = [
    # (call, expected value, relative and absolute tolerances): was NaN (0·inf), inf, wrong by cancellation, or an
    # escaping exception
    (lambda: ln.gd_flow_time(0.0, 1.0, 179769314.0, 1e300), 0.0, 1e-12, 0.0),
    (lambda: ln.gd_flow_time(1e-300, 1e150, 1e150, 1e100), 1e100, 1e-12, 0.0),
    (lambda: ln.mode_strength(1.0, HUGE, 1.0), HUGE, 1e-12, 0.0),
    (lambda: ln.mode_strength(0.0, 8.98846567431158e307, 1.0), 1.0, 1e-12, 0.0),
    (lambda: ln.mode_strength(1e108, 2e200, 1.0, tau=1e308), math.exp(4.0), 1e-12, 0.0),  # s·t = inf, 2st/τ = 4
    (lambda: ln.mode_strength_unbalanced(0.0, 8.98846567431158e307, 1.0, 1.0), 1.0, 1e-12, 0.0),
    (lambda: ln.mode_strength_unbalanced(1.0, 1e308, 1.0, 0.5), 1e308, 1e-12, 0.0),
    (lambda: ln.mode_strength_unbalanced(1.0, 1.0, 1e150, 0.5), 1.0, 1e-12, 0.0),
    # c ≫ |u|: u = W/4 − c²/(4W) cancelled (relative error 1e-10, or the wrong sign and size)
    (lambda: ln.mode_strength_unbalanced(20.0, 1e-6, 1.0, 0.3), _exact_unbalanced(20.0, 1e-6, 1.0, 0.3), 1e-12, 0.0),
    (lambda: ln.mode_strength_unbalanced(1.68246929, 0.0, -0.0417558394, -5.5536136029, 0.2643749103),
     _exact_unbalanced(1.68246929, 0.0, -0.0417558394, -5.5536136029, 0.2643749103), 1e-12, 0.0),
    (lambda: ln.first_crossing_time([0.0, 1.0], [-1.7e308, 1.7e308], 0.0)[0], 0.5, 1e-12, 0.0),
    (lambda: ln.deep_mode_strength([0.0], 0.0, 1.0, 1, tau=1.5e-68, rtol=6e-5)[0], 1.0, 1e-3, 0.0),
    (lambda: ln.scalar_mode_flow([0.0], 3.2e18, 0.0, 1.0, rtol=3.4e-5).b[0], 1.0, 1e-3, 0.0),
    (lambda: ln.deep_chain_strength([32.0], 1.0, [0.0, 4.0, 5.0], tau=2.0 ** -9, rtol=1e-4)[0], 1.0, 1e-3, 0.0),
    (lambda: ln.scalar_mode_flow([34.0], 0.0, 1.0, 434.0, rtol=3.6e-5).mode_strength[0], 0.0, 1e-3, 1e-30),
    # λt/τ = 1 at λ = τ = 5e-324: (1 − e^{−1})²/λ = inf, times σ_ε² = 0 (NaN) or 1e-300 (inf; the term is 8e22)
    (lambda: ln.expected_generalization_error([1.0], [5e-324], noise_std=0.0, tau=5e-324)[0], math.exp(-2.0),
     1e-12, 0.0),
    # A σ_ε² = 1.8e308 and λA overflowed (inf, NaN): A σ_ε²/(σ_ε² + λA) = 1/(1/A + λ/σ_ε²)
    (lambda: ln.mode_bayes_error(0.0, noise_std=2.375668978229577e51, init_std=5.643803094122362e102),
     5.643803094122362e102 ** 2 + 1.0, 1e-12, 0.0),
    (lambda: ln.mode_bayes_error(5.643803094122362e102, noise_std=2.375668978229577e51, init_std=5.643803094122362e102),
     1.0 / (1.0 / (5.643803094122362e102 ** 2 + 1.0) + 5.643803094122362e102 / 2.375668978229577e51 ** 2), 1e-12, 0.0),
    (lambda: ln.expected_mode_error(1.0, 5e-324, noise_std=1e-150, tau=5e-324),
     math.exp(-2.0) + 1e-300 * (-math.expm1(-1.0)) ** 2 / 5e-324, 1e-12, 0.0),
]


@pytest.mark.parametrize("call, expected, relative, absolute", EXTREME_VALUES,
                         ids=[str(k) for k in range(len(EXTREME_VALUES))])
def test_extreme_inputs_give_the_exact_value(call, expected, relative, absolute):
    value = call()
    assert np.isfinite(value)
    assert value == pytest.approx(expected, rel=relative, abs=absolute)


EXTREME_ERRORS = [
    # (call, the words the ValueError must contain)
    (lambda: ln.gd_flow_time(1.0, 1.0, 179769314.0, 1e300), "flow time"),
    (lambda: ln.scalar_mode_flow([1.0], 1.0, 0.5, 0.5, tau=1e-300), "tau"),
    (lambda: ln.scalar_mode_flow([1.0], 1e200, 0.5, 0.5), "(a0² + b0² + 2s)"),
    (lambda: ln.deep_mode_strength([1.0], 1.0, 1e101, 3), "u0"),
    (lambda: ln.student_flow(ln.draw_student(2, 2, seed=0), [1.0], tau=1e-300), "tau"),
    (lambda: ln.training_error_direct(ln.draw_student(4, 2, seed=0), [0.0, 0.0, 0.0, 1e160]), "weights"),
    (lambda: ln.expected_generalization_error([1.0], [5e-324], noise_std=1.0, tau=5e-324), "noise_std"),
]


@pytest.mark.parametrize("call, words", EXTREME_ERRORS, ids=[str(k) for k in range(len(EXTREME_ERRORS))])
def test_extreme_inputs_beyond_float64_raise_a_value_error(call, words):
    with pytest.raises(ValueError) as info:
        call()
    assert words in str(info.value)


def test_stiff_flows_switch_to_rosenbrock_and_stay_exact():
    """A flow that DOP853 cannot finish (stiff: τ tiny against t, or a large weight) is integrated by rosenbrock23
    and still matches the closed forms."""
    inst = ln.draw_student(6, 9, seed=3)
    t = np.array([0.0, 1e-9, 1e-6])
    flow = ln.student_flow(inst, t, tau=1e-12, rtol=1e-10)
    assert np.abs(flow.weights - ln.student_weights(inst, t, tau=1e-12)).max() < 1e-8
    t = np.array([0.0, 1e-15, 1e-13, 1e-10])
    u = ln.scalar_mode_flow(t, 1.0, 1.0, -1e7, rtol=1e-10, atol=1e-22).mode_strength  # |b| = 1e7: atol on a
    assert np.allclose(u, ln.mode_strength_unbalanced(t, 1.0, 1.0, -1e7), rtol=1e-8, atol=1e-12)


def test_squared_errors_of_huge_weights_are_exact_where_they_are_doubles():
    """||w̄ − w||²/N is a double although ||w̄ − w||² is not (the sum was inf); beyond float64, a ValueError."""
    from fractions import Fraction
    inst = ln.draw_student(4, 2, seed=0)
    w = np.full(4, 1e154)
    gap = [Fraction(float(a)) - Fraction(float(b)) for a, b in zip(inst.teacher, w)]
    exact = float(sum(g * g for g in gap) / 4) + inst.noise_std ** 2
    assert ln.generalization_error(inst, w) == pytest.approx(exact, rel=1e-12)
    assert np.isfinite(ln.generalization_error_thesis_variant(inst, w))
    w = np.array([0.0, 0.0, 0.0, 1.6e154])
    residual = [Fraction(float(y)) - sum(Fraction(float(wi)) * Fraction(float(x)) for wi, x in zip(w, column))
                for y, column in zip(inst.labels, inst.inputs.T)]
    assert ln.training_error_direct(inst, w) == pytest.approx(float(sum(r * r for r in residual)), rel=1e-12)
    with pytest.raises(ValueError, match="reduce weights"):
        ln.training_error_direct(inst, [0.0, 0.0, 0.0, 1.6638729356102322e154])  # the fuzz's input: 1.8e308


# ----------------------------------------------------------------------------------------------------
# The shared set-ups and drivers (figures, claims, notebook and cross-checks call them)
# ----------------------------------------------------------------------------------------------------

def test_whitened_mode_task_draws_the_task_then_the_inputs():
    X, Y, task = ln.whitened_mode_task([3.0, 1.0], 5, 4, 9, seed=7)
    rng = np.random.default_rng(7)
    expected = ln.mode_task([3.0, 1.0], 5, 4, seed=rng)
    np.testing.assert_array_equal(task.U, expected.U)
    np.testing.assert_array_equal(X, ln.whitened_inputs(5, 9, seed=rng))
    np.testing.assert_array_equal(Y, task.correlation @ X)
    np.testing.assert_allclose(X @ X.T, np.eye(5), atol=1e-12)
    with pytest.raises(ValueError, match="n_samples"):
        ln.whitened_mode_task([1.0], 5, 4, 3)


def test_draw_input_spectrum_is_the_spectrum_of_draw_student_inputs():
    for n, p in ((30, 12), (12, 30)):
        lam = ln.draw_input_spectrum(n, p, seed=5)
        inst = ln.draw_student(n, p, seed=5)  # X is drawn first, in the same way
        np.testing.assert_allclose(lam, inst.eigenvalues, rtol=1e-12, atol=1e-14)
        assert lam.shape == (n,) and np.all(lam[min(n, p):] == 0)


def test_simulated_student_errors_average_trained_instances():
    t = np.array([0.0, 0.5, 4.0])
    run = ln.simulated_student_errors(1.5, 20, 3, t, init_std=0.2, seed=11)
    rng = np.random.default_rng(11)
    for i in range(3):
        inst = ln.draw_student(20, 30, init_std=0.2, seed=rng)
        np.testing.assert_array_equal(run.generalization_error[i], ln.generalization_error(inst, ln.student_weights(inst, t)))
        np.testing.assert_array_equal(run.training_error[i], ln.training_error(inst, t) / 30)
    steps = np.array([0, 10, 80])
    gd = ln.simulated_student_errors(1.5, 20, 3, ln.gd_flow_time(steps, 0.05), learning_rate=0.05, seed=11)
    rng = np.random.default_rng(11)
    for i in range(3):
        inst = ln.draw_student(20, 30, seed=rng)
        w = ln.student_weights_gd(inst, steps, 0.05)
        np.testing.assert_array_equal(gd.generalization_error[i], ln.generalization_error(inst, w))
        np.testing.assert_allclose(gd.training_error[i], ln.training_error_direct(inst, w) / 30, rtol=1e-14)
    with pytest.raises(ValueError, match="learning_rate"):
        ln.simulated_student_errors(1.5, 20, 3, [0.0, 0.07], learning_rate=0.05)
    with pytest.raises(ValueError, match="alpha"):
        ln.simulated_student_errors(0.01, 20, 3, [0.0])
    with pytest.raises(ValueError, match="noise_std"):
        ln.simulated_student_errors(1.5, 20, 3, [0.0], stds=ln.SignalNoiseStds(1.0, -0.5))
    with pytest.raises(TypeError, match="stds must be a SignalNoiseStds"):
        ln.simulated_student_errors(1.5, 20, 3, [0.0], stds=(1.0, 0.5))
    # the teacher and noise standard deviations as one object: the SNR-4 default, or stds_at_snr's
    teacher_std, noise_std = ln.stds_at_snr(9.0)
    snr = ln.simulated_student_errors(1.5, 20, 3, t, stds=ln.stds_at_snr(9.0), seed=11)
    rng = np.random.default_rng(11)
    for i in range(3):
        inst = ln.draw_student(20, 30, teacher_std=teacher_std, noise_std=noise_std, seed=rng)
        np.testing.assert_array_equal(snr.generalization_error[i],
                                      ln.generalization_error(inst, ln.student_weights(inst, t)))


def test_gd_discretization_error_matches_a_quadrature_of_the_per_mode_difference():
    from scipy import integrate

    from dynamics import numerics as nx

    alpha, eta, signal, noise = 2.0, 0.05, 1.0 + 0.3 ** 2, 0.25
    low, high = nx.mp_edges(alpha)
    for k in (3, 40, 400):
        def difference(lam):
            gd, flow = (1 - eta * lam) ** k, np.exp(-eta * k * lam)
            return nx.mp_density(lam, alpha) * (signal * (gd ** 2 - flow ** 2) + noise * ((1 - gd) ** 2 - (1 - flow) ** 2)
                                                / lam)
        reference = integrate.quad(difference, low, high, epsabs=1e-14, epsrel=1e-10, limit=200)[0]
        got = ln.gd_discretization_error(k, alpha, eta, init_std=0.3)
        assert got == pytest.approx(reference, rel=1e-7, abs=1e-13)
    assert ln.gd_discretization_error(0, alpha, eta) == 0.0
    # O(η): halving η at a fixed time t = kη about halves the difference
    ratio = ln.gd_discretization_error(20, alpha, 0.05) / ln.gd_discretization_error(40, alpha, 0.025)
    assert ratio == pytest.approx(2.0, rel=0.1)
    with pytest.raises(ValueError, match="learning_rate"):
        ln.gd_discretization_error(10, alpha, 0.5)


def test_stds_at_snr_hold_the_label_variance_at_one():
    teacher_std, noise_std = ln.stds_at_snr(4.0)
    assert teacher_std ** 2 + noise_std ** 2 == pytest.approx(1.0, rel=1e-15)
    assert teacher_std ** 2 / noise_std ** 2 == pytest.approx(4.0, rel=1e-14)
    assert ln.stds_at_snr(0.0) == ln.SignalNoiseStds(0.0, 1.0)
    for bad in (-1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="snr"):
            ln.stds_at_snr(bad)


def test_deep_mode_curve_pieces_agree_with_one_integration():
    t = np.concatenate([[0.0], np.geomspace(1e-2, 1e3, 121)])
    for depth in (1, 3, 4):
        curve = ln.deep_mode_curve(t, 1.5, 1e-3, depth)
        whole = ln.deep_mode_strength(t, 1.5, 1e-3, depth, rtol=1e-11, atol=1e-16)
        np.testing.assert_allclose(curve, whole, rtol=1e-5, atol=2e-6)
    np.testing.assert_array_equal(ln.deep_mode_curve(t, 1.5, 1e-3, 2), ln.mode_strength(t, 1.5, 1e-3))
    # a grid that does not start at 0: u0 is at t = 0 all the same
    np.testing.assert_allclose(ln.deep_mode_curve(t[1:], 1.5, 1e-3, 3), ln.deep_mode_curve(t, 1.5, 1e-3, 3)[1:],
                               rtol=1e-6)
    # τ scales time
    np.testing.assert_allclose(ln.deep_mode_curve(2.5 * t, 1.5, 1e-3, 3, tau=2.5), ln.deep_mode_curve(t, 1.5, 1e-3, 3),
                               rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError, match="n_weight_layers"):
        ln.deep_mode_curve(t, 1.5, 1e-3, 0)


def test_network_flow_methods_are_dop853_then_stiff_or_rosenbrock23():
    task = ln.mode_task([2.0, 1.0], 3, 2, seed=1)
    init = ln.decoupled_init(task.U, task.V, 3, 0.1, seed=2)
    t = [0.0, 1.0, 4.0]
    explicit = ln.network_flow(*init, task.correlation, t)
    stiff = ln.network_flow(*init, task.correlation, t, options=ln.NETWORK_ODE_OPTIONS._replace(method="rosenbrock23"))
    np.testing.assert_allclose(stiff.W32, explicit.W32, atol=1e-6)
    same = ln.network_flow(*init, task.correlation, t, options=nx.OdeOptions(method="auto", rtol=1e-10, atol=1e-13))
    np.testing.assert_array_equal(same.W32, explicit.W32)  # the default is NETWORK_ODE_OPTIONS
    for field, value in (("method", "dopri5"), ("method", "dop853"), ("rtol", 0.0), ("atol", -1.0),
                         ("max_steps", 10), ("options.autonomous", True), ("options.jac", len)):
        with pytest.raises(ValueError, match=field):
            ln.network_flow(*init, task.correlation, t,
                            options=ln.NETWORK_ODE_OPTIONS._replace(**{field.removeprefix("options."): value}))
    for wrong in (None, "auto", (1e-10, 1e-13)):
        with pytest.raises(TypeError, match="options must be a OdeOptions"):
            ln.network_flow(*init, task.correlation, t, options=wrong)
