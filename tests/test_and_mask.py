"""Unit and property tests of dynamics.and_mask: bad input names the parameter, limits, hypothesis properties of the
mask and its statistics, the Monte Carlo engine (seeding, thread independence, the Gaussian generator), and the
named results. The claims in verify/and_mask.py hold the comparisons against exact and simulated references."""
import math
from fractions import Fraction

import numba
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import special, stats

from dynamics import and_mask as am
from dynamics.numerics import random as _random
from extremes import check_extreme_case  # tests/extremes.py (tests/ is on sys.path under pytest)

G = np.array([[1.0, -2.0, 0.5, 0.0], [3.0, 1.0, 0.2, 1.0]])

# ------------------------------------------------------------------ bad input names the parameter
BAD_CALLS = [
    # τ outside [0, 1]
    ("agreement_threshold", lambda: am.and_mask(G, 1.5)), ("agreement_threshold", lambda: am.and_mask(G, -0.1)),
    ("agreement_threshold", lambda: am.masked_gradient(G, 2.0)), ("agreement_threshold", lambda: am.xor_mask(G, -1.0)),
    ("agreement_threshold", lambda: am.keep_probability(4, 1.01)), ("agreement_threshold", lambda: am.log_keep_probability(4, -0.5)),
    ("agreement_threshold", lambda: am.masked_update_moments(4, 1.2, 0.5)), ("agreement_threshold", lambda: am.decay_rate(1.5)),
    ("agreement_threshold", lambda: am.threshold_snr(-0.2)), ("agreement_threshold", lambda: am.keep_probability_hetero([0.0], [1.0], 3.0)),
    ("agreement_threshold", lambda: am.simulate_temporal_mask(0.0, 0.5, 1.5, 10, 10)), ("agreement_threshold", lambda: am.sign_threshold(3, np.nan)),
    ("agreement_threshold", lambda: am.and_masked_gd(lambda t: np.ones((2, 1)), [0.0], 1.1, 0.1, 1)),
    ("agreement_threshold", lambda: am.keep_set(4, 2.0)), ("agreement_threshold", lambda: am.effective_agreement(4, -1.0)),
    # fewer than one environment
    ("n_envs", lambda: am.keep_probability(0, 0.5)), ("n_envs", lambda: am.masked_update_moments(0, 0.5, 0.0)),
    ("n_envs", lambda: am.simulate_mask(0, 10)), ("n_envs", lambda: am.sign_threshold(-1, 0.5)),
    ("n_envs", lambda: am.keep_probability_rational(0, 0.5)), ("n_envs", lambda: am.conditional_moments(0, 0)),
    ("n_envs", lambda: am.noise_masked_norm_bounds(0, 1)), ("n_envs", lambda: am.expected_squared_norms(0, 0.5)),
    ("grads", lambda: am.and_mask(np.zeros((0, 3)), 0.5)),
    ("gradient_means", lambda: am.keep_probability_hetero([], [], 0.5)),
    # grads not 2-D, non-finite gradients
    ("grads", lambda: am.and_mask([1.0, 2.0], 0.5)), ("grads", lambda: am.and_mask(np.ones((2, 2, 2)), 0.5)),
    ("grads", lambda: am.masked_gradient(np.ones(3), 0.5)), ("grads", lambda: am.and_mask_t(np.ones(3), 1)),
    ("grads", lambda: am.and_mask([[1.0, np.nan]], 0.5)), ("grads", lambda: am.masked_gradient([[np.inf, 1.0]], 0.0)),
    ("grads", lambda: am.xor_mask([[1.0], [-np.inf]], 0.5)),
    # other parameters
    ("n_agree", lambda: am.and_mask_t(G, 3)), ("n_agree", lambda: am.noise_masked_norm_bounds(4, 2)),
    ("n_agree", lambda: am.keep_probability_bounds(4, 5)), ("n_positive", lambda: am.conditional_moments(4, 5)),
    ("snr", lambda: am.keep_probability(4, 0.5, np.nan)), ("snr", lambda: am.masked_update_moments(4, 0.5, 1e7)),
    ("gradient_std", lambda: am.masked_update_moments(4, 0.5, 0.0, gradient_std=0.0)),
    ("gradient_std", lambda: am.simulate_mask(4, 10, gradient_std=-1.0)),
    ("gradient_stds", lambda: am.keep_probability_hetero([0.0, 1.0], [1.0, 0.0], 0.5)),
    ("gradient_means and gradient_stds", lambda: am.masked_update_moments_hetero([0.0, 1.0], [1.0], 0.5)),
    ("n_samples", lambda: am.simulate_mask(4, 0)), ("n_samples", lambda: am.simulate_mask_hetero([0.0], [1.0], -5)),
    ("n_steps", lambda: am.simulate_temporal_mask(0.0, 0.5, 0.5, 0, 10)),
    ("sign_decay", lambda: am.simulate_temporal_mask(0.0, 1.0, 0.5, 5, 10)),
    ("sign_decay", lambda: am.sign_ema_moments(0.0, -0.1, 3)), ("steps", lambda: am.sign_ema_moments(0.0, 0.5, -1)),
    ("eps", lambda: am.consistency_quadratic([np.eye(2)], 0.0)),
    ("hessians", lambda: am.consistency_quadratic(np.eye(2), 1.0)),
    ("hessians", lambda: am.consistency_quadratic([[[1.0, 2.0], [0.0, 1.0]]], 1.0)),
    ("hessians", lambda: am.consistency_quadratic([-np.eye(2), np.eye(2)], 1.0)),
    ("objective", lambda: am.consistency_quadratic([np.eye(2)], 1.0, objective="max")),
    ("hessian_a", lambda: am.consistency_diagonal([-1.0], [1.0], 1.0)),
    ("hessian_a and hessian_b", lambda: am.amgm_ratio([1.0, 2.0], [1.0])),
    ("hessian_b", lambda: am.amgm_ratio([1.0], [0.0])),
    ("a", lambda: am.karcher_mean(np.array([[1.0, 0.0], [0.0, -1.0]]), np.eye(2))),
    ("min_loss", lambda: am.masked_descent_bound(1.0, 2.0, 0.1, 3)),
    ("learning_rate", lambda: am.masked_descent_bound(1.0, 0.0, 0.0, 3)),
    ("learning_rate", lambda: am.two_valley_descent([0.0, 0.0], learning_rate=-1.0)),
    ("method", lambda: am.two_valley_descent([0.0, 0.0], method="sgd")),
    ("starts", lambda: am.two_valley_descent([0.0, 0.0, 0.0])), ("points", lambda: am.two_valley_losses([1.0, 2.0, 3.0])),
    ("theta", lambda: am.patchwork_model([0.5], [1.0, 2.0])), ("n_points", lambda: am.patchwork_losses(am.PATCHWORK_THETA_STAR, 1)),
    ("groups", lambda: am.masked_gradient(G, 1.0, rescale=True, groups=[0, 1])),
    ("groups", lambda: am.masked_gradient(G, 1.0, rescale=True, groups=[np.array([0, 1]), np.array([1, 2, 3])])),
    ("groups", lambda: am.masked_gradient(G, 1.0, rescale=True, groups=[np.array([0, 1]), np.array([2])])),
    ("n_envs", lambda: am.make_logistic_shortcut(n_envs=0)), ("shortcut_std", lambda: am.make_spiral_dataset(shortcut_std=0.0)),
    ("seed", lambda: am.simulate_mask(4, 10, seed=-3)),
    ("agreement_threshold", lambda: am.estimate_from_simulation(am.simulate_mask(2, 10, seed=0), 1.5)),
    ("agreement_fraction", lambda: am.masked_norm_curves([2, 3], 0.5)),
    ("agreement_fraction", lambda: am.masked_norm_curves([2, 3], 0.5 + 1e-12)),  # t = 1 of 2: no majority
    ("n_envs", lambda: am.masked_norm_samples([0, 2], 0.8, 10, 10)),
    ("snr", lambda: am.threshold_sweep(4, 0.0)), ("snr", lambda: am.masked_update_curves(4, 0.5, [0.0, np.nan])),
    ("agreement_threshold", lambda: am.threshold_sweep_samples(4, 1.0, [0.5, 1.2], 10)),
    ("agreement_threshold", lambda: am.shortcut_threshold_sweep([0.0, -0.1], 1, n_steps=1)),
    ("signal", lambda: am.shortcut_bayes_accuracy(-1.0)),
    ("private_weights", lambda: am.patchwork_masked_shared_weight([[[1.0]]])),
    ("weight_decay", lambda: am.patchwork_masked_shared_weight([0.0], -0.1)),
    # the environment axis: 0 or 1 (or −2, −1); the message names the layout it read
    ("env_axis", lambda: am.and_mask(G, 0.5, env_axis=2)),
    ("env_axis", lambda: am.masked_gradient(G, 0.5, env_axis=-3)),
    ("env_axis", lambda: am.xor_mask(G, 0.5, env_axis=0.5)), ("env_axis", lambda: am.and_mask_t(G, 1, env_axis=7)),
    ("env_axis", lambda: am.and_masked_gd(lambda t: np.ones((2, 1)), [0.0], 0.5, 0.1, 1, env_axis=2)),
    ("env_axis=1", lambda: am.and_mask(np.zeros((3, 0)), 0.5, env_axis=1)),
    ("env_axis", lambda: am.and_masked_gd(lambda t: np.ones((3, 2)), [0.0, 0.0, 0.0], 0.5, 0.1, 1)),  # transposed
]


@pytest.mark.parametrize("name, call", BAD_CALLS, ids=[f"{name}-{i}" for i, (name, _) in enumerate(BAD_CALLS)])
def test_bad_input_names_the_parameter(name, call):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("call", [
    lambda: am.masked_gradient(G, 0.5, rescale=1), lambda: am.masked_gradient(G, 0.5, geom_mean="yes"),
    lambda: am.keep_probability("4", 0.5), lambda: am.and_mask("grads", 0.5), lambda: am.simulate_mask(4, 10, seed="x"),
    lambda: am.and_masked_gd(None, [0.0], 0.5, 0.1, 1), lambda: am.train_logistic_shortcut(None, 0.5),
    lambda: am.estimate_from_simulation(None, 0.5), lambda: am.masked_update_samples(4, 0.5, 1.0, 10, seed="x"),
    lambda: am.masked_gradient(G, 1.0, rescale=True, groups=np.array([0.0, 1.0, 0.0, 1.0])),
    lambda: am.and_mask(G, 0.5, env_axis=True), lambda: am.masked_gradient(G, 0.5, env_axis="rows"),
])
def test_wrong_kind_is_a_type_error(call):
    with pytest.raises(TypeError):
        call()


# ------------------------------------------------------------------ the environment axis
def test_env_axis_reads_columns_as_environments():
    """env_axis=1 (and −1) on the transposed array gives bitwise the results of the default layout, for every mask
    function, the masked update with its options, and masked gradient descent; −2 is the default axis."""
    rng = np.random.default_rng(3)
    g = rng.standard_normal((5, 40))
    g[rng.random(g.shape) < 0.1] = 0.0
    groups = np.repeat(np.arange(4), 10)
    for axis in (1, -1):
        for tau in (0.0, 0.3, 0.6, 1.0):
            assert np.array_equal(am.and_mask(g.T, tau, env_axis=axis), am.and_mask(g, tau))
            assert np.array_equal(am.xor_mask(g.T, tau, env_axis=axis), am.xor_mask(g, tau))
            for flags in ({}, {"rescale": True}, {"geom_mean": True}, {"rescale": True, "groups": groups}):
                assert np.array_equal(am.masked_gradient(g.T, tau, env_axis=axis, **flags),
                                      am.masked_gradient(g, tau, **flags))
        assert np.array_equal(am.and_mask_t(g.T, 4, env_axis=axis), am.and_mask_t(g, 4))
    assert np.array_equal(am.and_mask(g, 0.6, env_axis=-2), am.and_mask(g, 0.6))
    h = np.diag([2.0, 1.0, 0.5])
    targets = rng.standard_normal((4, 3))
    rows = am.and_masked_gd(lambda th: (th - targets) @ h, np.ones(3), 0.5, 0.1, 20)
    columns = am.and_masked_gd(lambda th: ((th - targets) @ h).T, np.ones(3), 0.5, 0.1, 20, env_axis=1)
    assert np.array_equal(rows.thetas, columns.thetas)


def test_a_transposed_input_without_env_axis_is_read_as_rows():
    """The shape cannot tell (n_params, n_envs) from (n_envs, n_params): without env_axis the default layout is used
    (one mask entry per column), which is why every docstring states the axis and env_axis exists."""
    g = np.array([[1.0, 1.0, 1.0], [1.0, -1.0, 1.0]])  # 2 environments, 3 parameters
    assert am.and_mask(g, 1.0).tolist() == [True, False, True]
    assert am.and_mask(g.T, 1.0).tolist() == [True, False]  # read as 3 environments of 2 parameters
    assert am.and_mask(g.T, 1.0, env_axis=1).tolist() == [True, False, True]
    with pytest.raises(ValueError, match="looks transposed; pass env_axis=1"):
        am.and_masked_gd(lambda th: g.T, np.zeros(3), 1.0, 0.1, 1)


# ------------------------------------------------------------------ limits and exact values
def test_zero_threshold_is_plain_averaging():
    rng = np.random.default_rng(0)
    g = rng.standard_normal((7, 50))
    g[:, :5] = 0.0
    assert np.array_equal(am.masked_gradient(g, 0.0), np.mean(g, axis=0))
    assert am.and_mask(g, 0.0).all()
    assert am.keep_probability(7, 0.0, 1.3) == 1.0
    first, second = am.masked_update_moments(7, 0.0, 0.4, gradient_std=2.0)
    assert first == pytest.approx(0.8, rel=1e-13) and second == pytest.approx(0.64 + 4.0 / 7, rel=1e-13)


def test_full_agreement_closed_forms():
    for d in (1, 2, 5, 30):
        for s in (0.0, 0.3, 2.0):
            target = special.ndtr(s) ** d + special.ndtr(-s) ** d
            assert am.keep_probability(d, 1.0, s) == pytest.approx(target, rel=1e-13)
    assert am.decay_rate(0.0) == 1.0 and am.decay_rate(1.0) == 2.0
    assert am.threshold_snr(0.0) == 0.0 and math.isinf(am.threshold_snr(1.0))


def test_single_environment():
    g = np.array([[0.0, -1.0, 2.0]])
    assert am.and_mask(g, 1.0).tolist() == [False, True, True]
    assert am.and_mask(g, 0.0).all()
    assert am.keep_probability(1, 0.5) == 1.0  # a Gaussian entry is never exactly 0


def test_reference_tables():
    for d, row in ((4, (1, .625, .625, .625, .125, .125, .125)),
                   (8, (1, 93 / 128, 37 / 128, 37 / 128, 9 / 128, 1 / 128, 1 / 128))):
        for tau, value in zip((0, 0.2, 0.4, 0.5, 0.6, 0.8, 1.0), row):
            assert am.keep_probability_rational(d, tau) == Fraction(value).limit_denominator(1024)
    assert am.expected_squared_norms(16, (26 - 16) / 16, 3000).masked == pytest.approx(18.905, rel=5e-5)
    assert am.sign_ema_moments(0.0, 0.79, np.inf).variance == pytest.approx(4 * 0.25 * 0.21 / 1.79, rel=1e-14)


def test_large_snr_is_kept_and_tiny_probabilities_keep_relative_accuracy():
    assert am.keep_probability(50, 1.0, 40.0) == 1.0
    value = am.keep_probability(1000, 1.0)
    assert value == pytest.approx(2.0 ** -999, rel=1e-11) and value > 0
    assert am.log_keep_probability(3000, 1.0) == pytest.approx(-2999 * math.log(2), rel=1e-12)


def test_consistency_edge_cases():
    assert am.consistency_quadratic([np.eye(2)], 0.3) == 0.0
    assert am.consistency_quadratic([np.eye(2)], 0.3, objective="proof") == 0.3
    assert math.isinf(am.consistency_quadratic([np.diag([1.0, 0.0]), np.eye(2)], 0.3))
    with pytest.raises(ValueError, match="footnote 8"):
        am.consistency_quadratic([np.diag([1.0, 0.0]), np.diag([2.0, 0.0])], 0.3)
    assert math.isinf(am.consistency_diagonal([0.0, 1.0], [1.0, 1.0], 0.3))


def test_results_are_named_and_unpack():
    moments = am.masked_update_moments(4, 0.5, 1.0)
    first, second = moments
    assert (first, second) == (moments.first_moment, moments.second_moment)
    est = am.estimate_from_simulation(am.simulate_mask(3, 1000, seed=1), 0.5)
    assert est._fields[:2] == ("keep_probability", "keep_probability_se")


# ------------------------------------------------------------------ hypothesis properties
GRADS = st.integers(1, 12).flatmap(lambda d: st.lists(
    st.lists(st.floats(-5, 5).filter(lambda x: x != 0.0), min_size=d, max_size=d), min_size=1, max_size=8))


@settings(max_examples=60, deadline=None)
@given(GRADS, st.floats(0.0, 1.0))
def test_tau_form_matches_t_form_without_zeros(columns, tau):
    g = np.array(columns).T  # (d, n)
    assert np.array_equal(am.and_mask(g, tau), am.and_mask_t(g, am.effective_agreement(g.shape[0], tau)))
    kept = am.and_mask(g, tau)
    assert np.array_equal(am.masked_gradient(g, tau) != 0, kept & (g.mean(axis=0) != 0))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.floats(0.0, 1.0), st.floats(0.0, 4.0), st.floats(0.0, 4.0))
def test_keep_probability_even_and_monotone_in_snr(d, tau, s1, s2):
    low, high = sorted((s1, s2))
    assert am.keep_probability(d, tau, -high) == pytest.approx(am.keep_probability(d, tau, high), rel=1e-12)
    assert am.keep_probability(d, tau, low) <= am.keep_probability(d, tau, high) * (1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.floats(0.0, 1.0), st.floats(-3.0, 3.0), st.floats(0.1, 10.0))
def test_moment_symmetries_and_scaling(d, tau, s, sigma):
    base = am.masked_update_moments(d, tau, s)
    scaled = am.masked_update_moments(d, tau, s, gradient_std=sigma)
    mirrored = am.masked_update_moments(d, tau, -s)
    assert scaled.first_moment == pytest.approx(sigma * base.first_moment, rel=1e-12, abs=1e-300)
    assert scaled.second_moment == pytest.approx(sigma ** 2 * base.second_moment, rel=1e-12)
    assert mirrored.first_moment == -base.first_moment and mirrored.second_moment == base.second_moment


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 25), st.floats(0.0, 1.0), st.floats(-2.0, 2.0))
def test_heterogeneous_programme_reduces_to_the_binomial(d, tau, s):
    moments = am.masked_update_moments(d, tau, s)
    hetero = am.masked_update_moments_hetero([s] * d, [1.0] * d, tau)
    assert am.keep_probability_hetero([s] * d, [1.0] * d, tau) == pytest.approx(am.keep_probability(d, tau, s), rel=1e-11)
    assert hetero.second_moment == pytest.approx(moments.second_moment, rel=1e-11)
    assert hetero.first_moment == pytest.approx(moments.first_moment, rel=1e-10, abs=1e-14)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 80), st.floats(0.0, 1.0))
def test_rational_and_float_keep_probability_agree(d, tau):
    assert am.keep_probability(d, tau) == pytest.approx(float(am.keep_probability_rational(d, tau)), rel=1e-12)


# ------------------------------------------------------------------ the Monte Carlo engine
def test_engine_is_seeded_and_independent_of_the_thread_count():
    previous = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = am.simulate_mask(5, 20_000, snr=0.3, seed=7)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = am.simulate_mask(5, 20_000, snr=0.3, seed=7)
    finally:
        numba.set_num_threads(previous)
    assert np.array_equal(one.counts, two.counts) and np.array_equal(one.sums_sq, two.sums_sq)
    other = am.simulate_mask(5, 20_000, snr=0.3, seed=8)
    assert not np.array_equal(one.sums, other.sums)
    rng = np.random.default_rng(3)
    first, second = am.simulate_mask(3, 100, seed=rng), am.simulate_mask(3, 100, seed=rng)
    assert not np.array_equal(first.sums, second.sums)  # a Generator's stream continues
    assert int(one.counts.sum()) == 20_000


def test_gaussian_generator_matches_the_normal_law():
    x = _random.normal_fill(2_000_000, seed=11)
    assert stats.kstest(x, "norm").pvalue > 1e-4
    n = x.size
    for a in (1.0, 2.0, 3.0, 3.65, 4.0):  # 3.65: the ziggurat's base strip edge r = 3.654
        p = 2 * stats.norm.sf(a)
        assert abs(np.mean(np.abs(x) > a) - p) < 5 * math.sqrt(p * (1 - p) / n)
    assert abs(np.mean(x ** 4) - 3.0) < 5 * math.sqrt(96.0 / n)


def test_temporal_engine_shapes_and_pure_noise_symmetry():
    sim = am.simulate_temporal_mask(0.0, 0.5, 0.3, 8, 5000, seed=2)
    assert sim.steps.tolist() == list(range(1, 9)) and sim.n_chains == 5000
    assert np.all(np.abs(sim.ema_mean) < 5 * sim.ema_mean_se + 1e-12)
    assert np.all((sim.keep_probability >= 0) & (sim.keep_probability <= 1))


# ------------------------------------------------------------------ datasets and constructions
def test_spiral_dataset_structure():
    data = am.make_spiral_dataset(n_envs=3, n_samples_per_env=200, dim_shortcut=4, n_test=100, seed=5)
    assert data.train_inputs.shape == (3, 200, 6) and data.test_inputs.shape == (100, 6)
    for e in range(3):
        signature = data.train_inputs[e, :, 2:] * data.train_labels[e][:, None]
        assert np.allclose(signature, signature[0])  # one shortcut vector per environment, sign = label
        assert np.allclose(data.train_inputs[e, :, :2].std(axis=0), 1.0)
    assert set(np.unique(data.train_labels)) == {-1.0, 1.0}


def test_notebook_patchwork_and_logistic_trainer():
    data = am.make_notebook_patchwork()
    assert data.inputs.shape == (4, 5) and np.allclose(data.inputs[:, 4], 0.3)
    task = am.make_logistic_shortcut(n_envs=8, n_samples_per_env=64, dim_shortcut=8, seed=3)
    plain = am.train_logistic_shortcut(task, 0.0, n_steps=200)
    masked = am.train_logistic_shortcut(task, 1.0, n_steps=200)
    assert plain.shortcut_accuracy > 0.9 and masked.test_accuracy > plain.test_accuracy
    if not masked.initial_mask[1:].any():
        assert np.all(masked.weights[1:] == 0.0)


def test_logistic_trainer_is_and_masked_gd():
    """train_logistic_shortcut is and_masked_gd on the logistic environment gradients: the same weights as the
    explicit loop w ← w − η·masked_gradient(g_e(w)), bitwise."""
    task = am.make_logistic_shortcut(n_envs=6, n_samples_per_env=32, dim_shortcut=5, seed=4)
    for tau, rescale in ((0.0, False), (0.5, True), (1.0, False)):
        weights = np.zeros(6)
        for _ in range(40):
            grads = am.logistic_env_gradients(weights, task.train_inputs, task.train_labels)
            weights = weights - 0.5 * am.masked_gradient(grads, tau, rescale)
        run = am.train_logistic_shortcut(task, tau, 0.5, 40, rescale)
        assert np.array_equal(run.weights, weights)


def test_a_diverging_shortcut_run_raises_as_and_masked_gd_does():
    """Shortcut entries of 1e300 make the first averaged step η·u overflow: the run stops with and_masked_gd's
    ValueError (the old inline loop went on with infinite weights)."""
    task = am.make_logistic_shortcut(n_envs=4, n_samples_per_env=16, dim_shortcut=3, shortcut_std=1e300, seed=0)
    with pytest.raises(ValueError, match="diverged at step 1: reduce learning_rate") as shortcut:
        am.train_logistic_shortcut(task, 0.0, learning_rate=1e10, n_steps=3)
    with pytest.raises(ValueError, match="diverged at step") as direct:
        am.and_masked_gd(lambda w: am.logistic_env_gradients(w, task.train_inputs, task.train_labels), np.zeros(4),
                         0.0, 1e10, 3)
    assert str(shortcut.value) == str(direct.value)


def test_estimate_from_simulation_answers_every_threshold():
    sim = am.simulate_mask(6, 30_000, snr=0.4, seed=5)
    for tau in (0.0, 0.3, 1.0):
        est = am.estimate_from_simulation(sim, tau)
        kept = np.abs(sim.sign_sums) >= am.sign_threshold(6, tau)
        assert est.keep_probability == sim.counts[kept].sum() / 30_000 and est.n_samples == 30_000
        assert est.first_moment == pytest.approx(sim.sums[kept].sum() / 30_000, rel=1e-15)
    assert am.estimate_from_simulation(sim, 0.0).keep_probability == 1.0


def test_experiment_drivers():
    curves = am.masked_norm_curves(np.arange(2, 9), 0.8, 100)
    assert curves.n_agree.tolist() == [math.ceil(0.8 * d - 1e-9) for d in range(2, 9)]
    norms = am.expected_squared_norms(5, curves.agreement_threshold[3], 100)
    assert (curves.masked[3], curves.unmasked[3]) == (norms.masked, norms.unmasked)
    samples = am.masked_norm_samples([3, 6], 0.8, 100, 50_000, seed=1)
    exact = am.masked_norm_curves([3, 6], 0.8, 100)
    assert np.all(np.abs(samples.masked - exact.masked) < 5 * samples.masked_se)
    assert np.all(np.abs(samples.unmasked - exact.unmasked) < 5 * samples.unmasked_se)
    sweep = am.threshold_sweep(5, 0.7)
    assert sweep.agreement_threshold.size == 6 and sweep.noise_power_kept[0] == pytest.approx(1.0, rel=1e-14)
    assert sweep.mean_kept[0] == pytest.approx(1.0, rel=1e-13)  # τ = 0: E[m ḡ] = μ
    mc = am.threshold_sweep_samples(5, 0.7, sweep.agreement_threshold, 40_000, seed=2)
    assert np.all(np.abs(mc.noise_keep_probability - sweep.noise_keep_probability)
                  <= 5 * mc.noise_keep_probability_se + 1e-12)
    update = am.masked_update_curves(5, 0.4, [0.0, 0.5, 2.0])
    assert update.mean[0] == 0.0 and np.all(np.diff(update.keep_probability) > 0)
    assert am.patchwork_masked_shared_weight([[0.1, -0.1], [0.0, 0.0]], 0.01).tolist() == pytest.approx(
        [0.3 / 0.1, 0.3 / 0.1])
    assert am.shortcut_bayes_accuracy(0.0) == 0.5


def test_a_non_integral_number_of_environments_is_a_value_error():
    with pytest.raises(ValueError, match="n_envs must be an integer"):
        am.keep_probability(2.5, 0.5)


# ----------------------------------------------------------------------------------------------------
# Fuzz findings (tests/test_public_api.py): σ², R², L0 − inf L, a + b and qc·qa beyond float64 where the results
# are doubles; the exact value there, else a ValueError naming the input
# ----------------------------------------------------------------------------------------------------

def _exact_chain(d, t, n, sigma):
    """n σ² (d − t + 1) C(d, t) 2^{1−d}, exactly."""
    return float(n * Fraction(sigma) ** 2 * (d - t + 1) * math.comb(d, t) * Fraction(2) ** (1 - d))


AND_MASK_EXTREMES = [
    # (call, expected value or the words of the ValueError)
    (lambda: am.noise_masked_norm_bounds(1, 1, 1, 1.3407807929942597e154), "gradient_std"),  # was OverflowError
    (lambda: am.noise_masked_norm_bounds(60, 60, 1, 1e160).paper_chain, _exact_chain(60, 60, 1, 1e160)),
    (lambda: am.masked_descent_bound(1.0, 0.0, 2.2250738585e-313, 1), "learning_rate"),        # was inf
    (lambda: am.masked_descent_bound(1.7e308, -1.7e308, 10.0, 1), 6.8e307),                     # L0 − inf L overflowed
    (lambda: am.consistency_lower_bound([1.0, 2.8828188542312335e246], [9.977418496336546e62, 1.0], 1.0),
     "consistency_lower_bound"),                                                                     # was OverflowError
    (lambda: am.consistency_lower_bound([1.0, 2.8828188542312335e246], [9.977418496336546e62, 1.0], 1e-300),
     -float(4 * Fraction(1e-300) * Fraction(am.amgm_ratio([1.0, 2.8828188542312335e246],
                                                            [9.977418496336546e62, 1.0])) ** 2)),   # R² overflowed
    (lambda: am.amgm_ratio([1.7e308], [1.7e308]), 1.0),                                         # a + b overflowed
    (lambda: float(am.two_valley_losses([0.0, 1.157920892373162e77]).loss_b),
     float((lambda qc, qb: qc * qb / (qc + qb))(Fraction(0.5) ** 2 + (Fraction(1.157920892373162e77) + Fraction(0.5)) ** 2,
                                               (Fraction(1.157920892373162e77) - Fraction(0.8)) ** 2))),
    (lambda: am.make_spiral_dataset(n_revolutions=2.8611174857570283e307), "n_revolutions"),  # was NaN
    (lambda: am.make_spiral_dataset(shortcut_std=7.731911140580778e307), "shortcut_std"),     # was inf
]


@pytest.mark.parametrize("call, expected", AND_MASK_EXTREMES, ids=[str(k) for k in range(len(AND_MASK_EXTREMES))])
def test_extreme_inputs(call, expected):
    check_extreme_case(call, expected)


@pytest.mark.parametrize("seed", range(40))
def test_spiral_dataset_with_tiny_scales_is_finite(seed):
    """n_revolutions = shortcut_std = 1e-300: the standardisation divided by a std whose squares underflowed (inf)."""
    data = am.make_spiral_dataset(n_envs=8, n_samples_per_env=8, dim_shortcut=1, n_revolutions=1e-300,
                                  shortcut_std=1e-300, n_test=8, seed=seed)
    assert all(np.all(np.isfinite(part)) for part in data)
    assert np.allclose(data.train_inputs[..., :2].std(axis=1), 1.0, rtol=1e-9)  # standardised per environment


@pytest.mark.parametrize("call", [
    lambda: am.keep_probability(1e308, 0.5),
    lambda: am.masked_update_moments(1e308, 0.5, 1.0),
    lambda: am.keep_probability_rational(1e308, 0.5),
    lambda: am.keep_probability_rational(10 ** 5, 0.5),
    lambda: am.keep_probability(2 ** 70, 0.5),
])
def test_huge_environment_counts_are_refused_by_name(call):
    """Regression (fuzz): a count beyond int64 reached the compiled kernels (OverflowError, numba TypingError) and the
    exact rational form ran for minutes; both now raise a ValueError naming n_envs and its range."""
    with pytest.raises(ValueError, match=r"n_envs must be an integer in \[1, "):
        call()


def test_the_largest_allowed_counts_still_compute():
    assert 0.0 < am.keep_probability(10 ** 6, 0.001) < 1.0  # |2k - d| >= 1000: about one standard deviation
    assert 0 < am.keep_probability_rational(am._checks.MAX_EXACT_N_ENVS, 0.9) < 1
