"""Unit and property tests of dynamics.spurious: bad input names the parameter,
Proposition 1 and 2 identities and limits, metric identities, balancing tools, data generators, the numba toy
trainer against a plain numpy re-implementation, and the figures' data."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.special import expit, logsumexp

from dynamics import spurious as spur
from extremes import check_extreme_case  # tests/extremes.py (tests/ is on sys.path under pytest)

FIX_ALPHA, FIX_BETA = np.array([0.5, 1.0, 2.0]), np.array([0.3, 1.5])
LOGITS = np.array([[2.0, 0.0, -1.0], [0.0, 1.5, 0.5], [-1.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
LABELS, BIAS = np.array([0, 1, 2, 1, 0]), np.array([0, 1, 2, 0, 2])
TOY = spur.make_balancing_toy_splits(40, 6, seed=0)

# ------------------------------------------------------------------ bad input names the parameter
BAD_CALLS = [
    # k <= 0
    ("logit_scale", lambda: spur.bc_ba_loss_ratio(0.0, FIX_ALPHA, FIX_BETA)),
    ("logit_scale", lambda: spur.bc_ba_loss_ratio([1.0, -2.0], FIX_ALPHA, FIX_BETA)),
    ("logit_scale", lambda: spur.bc_ba_loss_ratio_bounds(-1.0, FIX_ALPHA, FIX_BETA)),
    ("logit_scale", lambda: spur.scaled_binary_ce(1.0, 0.0)),
    ("logit_scale", lambda: spur.softmax_ce(LOGITS, LABELS, logit_scale=0.0)),
    ("logit_scale", lambda: spur.bc_ba_loss_ratio_from_logits(-1.0, LOGITS, LABELS, BIAS)),
    ("logit_scale", lambda: spur.scaled_ce_grad_norm(0.0, 1.0, 1.0)),
    ("logit_scale", lambda: spur.spurious_core_gradient_ratio(0.0, [1.0, -1.0], [1.0, 0.0], [1.0, 1.0])),
    # margins of the wrong sign
    ("ba_margins", lambda: spur.bc_ba_loss_ratio(1.0, [1.0, -0.5], FIX_BETA)),
    ("bc_margins", lambda: spur.bc_ba_loss_ratio(1.0, FIX_ALPHA, [0.0])),
    ("ba_margins", lambda: spur.bc_ba_loss_ratio_bounds(1.0, [-1.0], FIX_BETA)),
    ("bc_margins", lambda: spur.bc_ba_loss_ratio_asymptote(FIX_ALPHA, [-0.3])),
    ("margins", lambda: spur.spurious_core_gradient_ratio_asymptote([1.0, 0.0, -1.0], [1.0, 1.0, 0.0],
                                                                    [1.0, 1.0, 1.0])),
    ("margins", lambda: spur.spurious_core_gradient_ratio_asymptote([1.0, 2.0], [1.0, 1.0], [1.0, 1.0])),
    ("margin_grad_norm", lambda: spur.scaled_ce_grad_norm(1.0, 1.0, -1.0)),
    ("core_grad_norms", lambda: spur.spurious_core_gradient_ratio(1.0, [1.0, -1.0], [-1.0, 0.0], [1.0, 1.0])),
    # κ outside [0, 1]
    ("keep_fraction", lambda: spur.compressibility(np.ones(10), 2.0, 1.5)),
    ("keep_fraction", lambda: spur.compressibility(np.ones(10), 2.0, -0.1)),
    ("prune_fraction", lambda: spur.neuron_pruning_masks([np.ones((3, 2)), np.ones((1, 3))], 1.1)),
    ("prune_fraction", lambda: spur.magnitude_pruning_masks([np.ones((3, 2))], -0.5)),
    ("q", lambda: spur.compressibility(np.ones(10), 0.0, 0.1)),
    # p >= q
    ("q", lambda: spur.pq_index(np.arange(1.0, 5.0), 2.0, 1.0)),
    ("q", lambda: spur.pq_index(np.arange(1.0, 5.0), 1.0, 1.0)),
    ("p", lambda: spur.pq_index(np.arange(1.0, 5.0), 0.0, 2.0)),
    ("w", lambda: spur.pq_index(np.zeros(5))),
    # empty arrays
    ("ba_margins", lambda: spur.bc_ba_loss_ratio(1.0, [], FIX_BETA)),
    ("bc_margins", lambda: spur.bc_ba_loss_ratio_asymptote(FIX_ALPHA, [])),
    ("margins", lambda: spur.spurious_core_gradient_ratio(1.0, [], [], [])),
    ("z", lambda: spur.sparsity([])),
    ("z", lambda: spur.compressibility(np.zeros((3, 0)))),
    ("representations", lambda: spur.class_separation_r2(np.zeros((0, 3)), [])),
    ("losses", lambda: spur.bc_loss_share([], [])),
    ("predictions", lambda: spur.group_accuracies([], [], [], 2)),
    ("strata", lambda: spur.balanced_sampling_weights([])),
    ("strata", lambda: spur.subsample_to_smallest([], seed=0)),
    ("weights", lambda: spur.weighted_epoch_indices([], seed=0)),
    ("pruned_accuracies", lambda: spur.retention_ratios([], 0.9)),
    ("logits", lambda: spur.softmax_ce(np.zeros((0, 2)), [])),
    ("weights", lambda: spur.magnitude_pruning_masks([], 0.1)),
    # mismatched shapes
    ("core_grad_norms", lambda: spur.spurious_core_gradient_ratio(1.0, [1.0, -1.0, 2.0], [1.0, 0.0], [1.0, 1.0, 1.0])),
    ("labels", lambda: spur.softmax_ce(LOGITS, [0, 1])),
    ("labels", lambda: spur.class_separation_r2(np.ones((4, 2)), [0, 1, 1])),
    ("labels", lambda: spur.class_selectivity(np.ones((4, 2)), [0, 1])),
    ("is_bias_conflicting", lambda: spur.bc_loss_share([1.0, 2.0], [True])),
    ("attributes", lambda: spur.group_index([0, 1], [0, 1, 1], 2)),
    ("counts", lambda: spur.expand_by_counts([0, 1], [1, 2, 3])),
    ("group_losses", lambda: spur.gdro_update(np.zeros(4), [1.0, 2.0], [True] * 4)),
    ("present", lambda: spur.gdro_update(np.zeros(4), np.ones(4), [True, False])),
    ("groups", lambda: spur.group_accuracies([1, 0], [1, 0], [0, 1, 1], 2)),
    ("weights[1]", lambda: spur.neuron_pruning_masks([np.ones((3, 2)), np.ones((1, 4))], 0.5)),
    ("population and draws", lambda: spur.expected_unique_fraction([10, 20], [1.0, 2.0, 3.0])),
    ("val.x", lambda: spur.train_balancing_toy(TOY.train, spur.make_balancing_toy(40, 3, "val", seed=1), TOY.test,
                                             "erm")),
    ("init", lambda: spur.train_balancing_toy(*TOY, "erm", init=np.zeros(3))),
    # unknown method names
    ("method", lambda: spur.train_balancing_toy(*TOY, "reweight")),
    ("criterion", lambda: spur.neuron_pruning_masks([np.ones((3, 2)), np.ones((1, 3))], 0.5, criterion="l1")),
    ("on_zero", lambda: spur.class_separation_r2(np.ones((4, 2)), [0, 0, 1, 1], on_zero="skip")),
    ("split", lambda: spur.make_balancing_toy(40, 3, split="validation")),
    ("sign", lambda: spur.make_balancing_toy(40, 3, sign="paper")),
    ("gdro_sampler", lambda: spur.train_balancing_toy(*TOY, "gdro", spur.BalancingToyConfig(gdro_sampler="uniform"))),
    ("config", lambda: spur.train_balancing_toy(*TOY, "erm", dict(n_epochs=5))),
    ("config", lambda: spur.balancing_toy_runs([0], ("erm",), (40, 6))),
    # other ranges
    ("bias_labels", lambda: spur.bc_ba_loss_ratio_from_logits(1.0, LOGITS, LABELS, [1, 1, 2, 0, 2])),
    ("labels", lambda: spur.bc_ba_loss_ratio_asymptote_from_logits(LOGITS, [0, 1, 3, 1, 0], BIAS)),
    ("labels and bias_labels", lambda: spur.bc_ba_loss_ratio_asymptote_from_logits(LOGITS[:3], LABELS[:3], BIAS[:3])),
    ("core_grad_norms", lambda: spur.spurious_core_gradient_ratio(1.0, [1.0, -1.0], [0.0, 0.0], [1.0, 1.0])),
    ("log=True", lambda: spur.bc_ba_loss_ratio(1e4, FIX_ALPHA, FIX_BETA)),
    ("feature_std", lambda: spur.core_error_probability(0.0)),
    ("feature_std", lambda: spur.make_balancing_toy(40, 3, feature_std=-1.0)),
    ("population", lambda: spur.expected_unique_fraction(0, 1.0)),
    ("draws", lambda: spur.expected_unique_fraction(10, -1.0)),
    ("upweight", lambda: spur.jtt_duplication_counts([True], 0)),
    ("bc_rate", lambda: spur.make_parity_task(10, bc_rate=1.5)),
    ("n_samples", lambda: spur.make_balancing_toy(41, 3)),
    ("n_samples", lambda: spur.make_parity_task(0)),
    ("n_epochs", lambda: spur.train_balancing_toy(*TOY, "jtt", spur.BalancingToyConfig(n_epochs=2, jtt_epochs=1))),
    ("learning_rate", lambda: spur.train_balancing_toy(*TOY, "erm", spur.BalancingToyConfig(learning_rate=0.0))),
    ("momentum", lambda: spur.train_balancing_toy(*TOY, "erm", spur.BalancingToyConfig(momentum=1.0))),
    ("gammas", lambda: spur.train_balancing_toy(*TOY, "erm", spur.BalancingToyConfig(gammas=(4.0, 1.0)))),
    ("n_samples", lambda: spur.balancing_toy_runs([0], ("erm",), spur.BalancingToyConfig(n_samples=41))),
    ("full_accuracy", lambda: spur.retention_ratios([0.5], 0.0)),
    ("full_accuracy", lambda: spur.prunability([0.5], 0.5, chance=0.5)),
    ("pruned_accuracies", lambda: spur.retention_ratios([1.5], 0.9)),
    ("labels", lambda: spur.class_separation_r2(np.ones((3, 2)), [0, 0, 0])),
    ("representations", lambda: spur.class_separation_r2([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]], [0, 0, 1])),
    ("activations", lambda: spur.neuron_pruning_masks([np.ones((3, 2)), np.ones((1, 3))], 0.5, "activation_out")),
    ("groups", lambda: spur.group_accuracies([1, 0], [1, 0], [0, 0], 2)),
    ("step_size", lambda: spur.gdro_update(np.zeros(2), [1.0, 1.0], [True, True], step_size=0.0)),
    ("weights", lambda: spur.weighted_epoch_indices([0.0, 0.0], seed=0)),
    ("n_attributes", lambda: spur.group_index([0], [0], 0)),
    ("gammas", lambda: spur.toy_feature_scales(3, (1.0, 2.0))),
]


@pytest.mark.parametrize("name, call", BAD_CALLS, ids=[f"{i}-{c[0]}" for i, c in enumerate(BAD_CALLS)])
def test_bad_input_names_the_parameter(name, call):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert name in str(info.value), str(info.value)


def test_wrong_kinds_are_type_errors():
    with pytest.raises(TypeError, match="log"):
        spur.bc_ba_loss_ratio(1.0, FIX_ALPHA, FIX_BETA, log=1)
    with pytest.raises(TypeError, match="labels"):
        spur.softmax_ce(LOGITS, ["a"] * 5)
    with pytest.raises(TypeError, match="train"):
        spur.train_balancing_toy(TOY.train.x, TOY.val, TOY.test, "erm")
    with pytest.raises(TypeError, match="weights"):
        spur.neuron_pruning_masks(np.ones((3, 3)), 0.5)


# ------------------------------------------------------------------ A. Proposition 1
def _mp_log_ratio(k, alpha, beta):
    with mpmath.workdps(40):
        num = mpmath.fsum(mpmath.log1p(mpmath.exp(k * mpmath.mpf(b))) for b in beta)
        den = mpmath.fsum(mpmath.log1p(mpmath.exp(-k * mpmath.mpf(a))) for a in alpha)
        return float(mpmath.log(num) - mpmath.log(den))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.01, 5.0), min_size=1, max_size=8), st.lists(st.floats(0.01, 5.0), min_size=1, max_size=8),
       st.floats(1e-3, 1e4))
def test_log_ratio_matches_mpmath_up_to_k_max_margin_1e4(alpha, beta, scaled):
    k = scaled / max(max(alpha), max(beta))
    ours = spur.bc_ba_loss_ratio(k, alpha, beta, log=True)
    ref = _mp_log_ratio(k, alpha, beta)
    assert math.isfinite(ours)
    assert abs(ours - ref) <= 1e-12 * max(1.0, abs(ref))


def test_no_overflow_or_nan_over_the_k_range():
    k = np.geomspace(1e-6, 1e6, 500)
    for fn in (lambda kk: spur.bc_ba_loss_ratio(kk, FIX_ALPHA, FIX_BETA, log=True),
               lambda kk: np.array(spur.bc_ba_loss_ratio_bounds(kk, FIX_ALPHA, FIX_BETA, log=True)),
               lambda kk: spur.bc_ba_loss_ratio_from_logits(kk, LOGITS, LABELS, BIAS, log=True),
               lambda kk: spur.spurious_core_gradient_ratio(kk, *spur.bias_decomposable_fixture(), log=True)):
        assert np.all(np.isfinite(fn(k)))


@settings(max_examples=60, deadline=None)
@given(st.floats(0.1, 3.0), st.floats(0.1, 3.0), st.integers(1, 100), st.integers(1, 100), st.floats(0.0, 1.0))
def test_shared_margin_two_sided_bound(a, b, n_ba, n_bc, u):
    k = math.exp(math.log(0.01) + u * (math.log(300.0 / a) - math.log(0.01)))
    log_r = spur.bc_ba_loss_ratio(k, np.full(n_ba, a), np.full(n_bc, b), log=True)
    normalised = log_r - a * k - math.log(k * n_bc * b / n_ba)
    upper = math.log1p(math.exp(-k * b) / (k * b)) - math.log1p(-0.5 * math.exp(-k * a))
    slack = 1e-12 * max(1.0, abs(log_r))
    assert -slack <= normalised <= upper + slack


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.05, 3.0), min_size=1, max_size=10), st.lists(st.floats(0.05, 3.0), min_size=1, max_size=10),
       st.floats(0.01, 200.0))
def test_heterogeneous_bounds_bracket_the_ratio(alpha, beta, k):
    log_r = spur.bc_ba_loss_ratio(k, alpha, beta, log=True)
    lower, upper = spur.bc_ba_loss_ratio_bounds(k, alpha, beta, log=True)
    slack = 1e-12 * max(1.0, abs(log_r))
    assert lower - slack <= log_r <= upper + slack


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0.05, 3.0), min_size=1, max_size=10), st.lists(st.floats(0.05, 3.0), min_size=1, max_size=10))
def test_ratio_strictly_increasing(alpha, beta):
    assert np.all(np.diff(spur.bc_ba_loss_ratio(np.geomspace(0.01, 50.0, 200), alpha, beta, log=True)) > 0)


def test_shared_margin_values_and_limit():
    ones90, ones10 = np.ones(90), np.ones(10)
    assert spur.bc_ba_loss_ratio(5.0, ones90, ones10) == pytest.approx(82.8403330503, rel=1e-10)
    assert spur.bc_ba_loss_ratio_asymptote(ones90, ones10) == (1.0, pytest.approx(1 / 9, rel=1e-15))
    tied = spur.bc_ba_loss_ratio_asymptote([0.5, 0.5 * (1 + 1e-13), 1.0], [1.0])
    assert tied.constant == pytest.approx(0.5)  # tie within 1e-12
    # k -> 0: every softplus is log 2, so R -> n_bc / n_ba whatever the margins
    assert spur.bc_ba_loss_ratio(1e-12, FIX_ALPHA, FIX_BETA) == pytest.approx(2 / 3, rel=1e-11)


def test_binary_logits_reduce_to_margins():
    rng = np.random.default_rng(0)
    alpha, beta = rng.uniform(0.1, 2, 7), rng.uniform(0.1, 2, 3)
    logits = np.zeros((10, 2))
    logits[:7, 0], logits[7:, 1] = alpha, beta  # BA: y = b = 0 by α; BC: y = 0, b = 1 by β
    labels, bias = np.zeros(10, int), np.r_[np.zeros(7, int), np.ones(3, int)]
    k = np.array([0.3, 3.0, 30.0, 3000.0])
    assert np.allclose(spur.bc_ba_loss_ratio_from_logits(k, logits, labels, bias, log=True),
                       spur.bc_ba_loss_ratio(k, alpha, beta, log=True), rtol=1e-13)
    assert (spur.bc_ba_loss_ratio_asymptote_from_logits(logits, labels, bias)
            == spur.bc_ba_loss_ratio_asymptote(alpha, beta))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(1, 20), st.floats(0.1, 10.0), st.integers(0, 1000))
def test_softmax_ce_matches_logsumexp_and_mpmath(n_classes, n, k, seed):
    rng = np.random.default_rng(seed)
    f = rng.normal(0, 3, (n, n_classes))
    y = rng.integers(0, n_classes, n)
    ours = spur.softmax_ce(f, y, logit_scale=k)
    direct = logsumexp(k * f, axis=1) - k * f[np.arange(n), y]
    assert np.allclose(ours, direct, rtol=1e-10, atol=1e-12)
    i = int(np.argmax(f[np.arange(n), y] - np.max(np.where(np.eye(n_classes)[y] > 0, -np.inf, f), axis=1)))
    with mpmath.workdps(40):
        ref = mpmath.log1p(mpmath.fsum(mpmath.exp(k * (mpmath.mpf(fj) - mpmath.mpf(f[i, y[i]])))
                                       for j, fj in enumerate(f[i]) if j != y[i]))
    assert ours[i] == pytest.approx(float(ref), rel=1e-13)


def test_multiclass_fixture_values():
    for k, value in zip((5.0, 10.0, 20.0, 40.0), (1.43787877570, 1.49493443891, 1.49996594938, 1.49999999845)):
        assert spur.bc_ba_loss_ratio_from_logits(k, LOGITS, LABELS, BIAS) * math.exp(-k) / k == pytest.approx(value,
                                                                                                          rel=1e-10)


def test_scaled_binary_ce_is_softplus():
    m = np.linspace(-5, 5, 11)
    assert np.allclose(spur.scaled_binary_ce(m, 2.0), np.log1p(np.exp(-2.0 * m)), rtol=1e-14)
    assert spur.scaled_binary_ce(800.0, 1.0) == 0.0 and spur.scaled_binary_ce(-800.0, 1.0) == 800.0


# ------------------------------------------------------------------ B. Proposition 2
def test_grad_norm_identity_and_per_sample_scalings():
    k = np.geomspace(0.1, 50, 40)[:, None]
    m = np.linspace(-3, 3, 41)[None, :]
    g = spur.scaled_ce_grad_norm(k, m, 2.0)
    assert np.allclose(g, 2.0 * k * expit(-k * m), rtol=1e-15)
    bc = m < 0
    deficit = 1 - g / (2.0 * k)
    # 1 − σ(kβ) by subtraction carries an absolute rounding error of one ulp of 1
    assert np.all(deficit[:, bc[0]] >= 0) and np.all(deficit[:, bc[0]] <= np.exp(k * m)[:, bc[0]] + 2.3e-16)
    assert np.all(g[:, ~bc[0]] <= 2.0 * k * np.exp(-k * m)[:, ~bc[0]] * (1 + 1e-12))


def test_prop2_ratio_k_cancels_and_fixture_slope():
    fixture = spur.bias_decomposable_fixture()
    k = np.array([20.0, 40.0])
    values = spur.spurious_core_gradient_ratio(k, *fixture) * np.exp(-0.5 * k)
    assert values == pytest.approx([1.99748208917, 1.99999385376], rel=1e-10)
    slope = np.diff(spur.spurious_core_gradient_ratio(np.array([20.0, 40.0]), *fixture, log=True))[0] / 20
    assert slope == pytest.approx(0.5, rel=0.02)


def test_prop2_saturates_without_converged_core():
    fixture = spur.linear_two_block_fixture(seed=3)
    asym = spur.spurious_core_gradient_ratio_asymptote(*fixture)
    assert not asym.converged_core and asym.rate == 0.0
    assert spur.spurious_core_gradient_ratio(1e3, *fixture) == pytest.approx(asym.constant, rel=1e-12)
    # with the core gradient switched off on the BC samples the same data grow like e^{α_min k}
    m, c, s = fixture
    c = np.where(m < 0, 0.0, c)
    converged = spur.spurious_core_gradient_ratio_asymptote(m, c, s)
    assert converged.converged_core and converged.rate == pytest.approx(m[m > 0].min())
    assert spur.spurious_core_gradient_ratio_asymptote(m, np.where(m < 0, 1e-9, c), s, atol=1e-8).converged_core


def test_prop2_zero_numerator_is_zero():
    assert spur.spurious_core_gradient_ratio(1.0, [1.0, -1.0], [1.0, 1.0], [0.0, 0.0]) == 0.0
    with pytest.raises(ValueError, match="spurious_grad_norms"):
        spur.spurious_core_gradient_ratio(1.0, [1.0, -1.0], [1.0, 1.0], [0.0, 0.0], log=True)


# ------------------------------------------------------------------ C. metrics
def test_sparsity_values():
    assert spur.sparsity([0, 0, 1, 2]) == 0.5 and spur.sparsity(np.zeros(4)) == 1.0
    assert spur.sparsity(np.array([[0, 1.0], [0, 0]])).tolist() == [0.5, 1.0]
    assert spur.sparsity(np.array([[0, 1.0], [0, 0]]), axis=0).tolist() == [1.0, 0.5]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.floats(0.0, 1.0), st.floats(0.5, 4.0), st.integers(0, 10_000), st.floats(0.0, 0.9))
def test_compressibility_properties(d, kappa, q, seed, zero_fraction):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(d) * (rng.random(d) >= zero_fraction)
    c = spur.compressibility(z, q, kappa)
    assert -1e-12 <= c <= 1 + 1e-12
    if np.count_nonzero(z) <= math.ceil(kappa * d - 1e-9):
        assert c == 1.0
    assert spur.compressibility(z, q, min(1.0, kappa + 0.1)) >= c - 1e-12
    assert spur.compressibility(-3.5 * z[rng.permutation(d)], q, kappa) == pytest.approx(c, abs=1e-12)


def test_compressibility_constant_vector():
    assert spur.compressibility(np.full(100, -2.0), 2.0, 0.1) == pytest.approx(1 - math.sqrt(0.9), abs=1e-12)
    assert spur.compressibility(np.zeros(7)) == 1.0
    assert spur.compressibility(np.ones(30), 2.0, 0.1) == pytest.approx(1 - math.sqrt(27 / 30), abs=1e-12)  # ⌈3⌉ = 3


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 80), st.integers(0, 10_000), st.floats(1e-3, 1e3))
def test_pq_index_properties(d, seed, scale):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(d)
    value = spur.pq_index(w)
    assert -1e-12 <= value <= 1 - d ** -0.5 + 1e-12
    assert spur.pq_index(scale * w) == pytest.approx(value, abs=1e-12)
    assert spur.pq_index(np.full(d, scale)) == pytest.approx(0.0, abs=1e-12)
    assert spur.pq_index(np.eye(d)[0] * scale) == pytest.approx(1 - d ** -0.5, abs=1e-12)


def test_prunability_mean_and_masks():
    assert spur.PRUNE_FRACTIONS == (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
    rng = np.random.default_rng(1)
    weights = [rng.standard_normal((37, 5)), rng.standard_normal((23, 37)), rng.standard_normal((2, 23))]
    for kappa in spur.PRUNE_FRACTIONS:
        for criterion in ("incoming_l2", "outgoing_l2", "in_out"):
            masks = spur.neuron_pruning_masks(weights, kappa, criterion)
            assert [int(np.sum(~m)) for m in masks] == [math.floor(kappa * w + 0.5) for w in (37, 23)]
        magnitude = spur.magnitude_pruning_masks(weights, kappa)
        assert [int(np.sum(~m)) for m in magnitude] == [math.floor(kappa * W.size + 0.5) for W in weights]
    assert all(m.all() for m in spur.neuron_pruning_masks(weights, 0.0))
    tied = spur.neuron_pruning_masks([np.ones((6, 2)), np.ones((1, 6))], 0.5)[0]
    assert tied.tolist() == [False, False, False, True, True, True]  # ties: lowest index pruned first
    smallest = spur.neuron_pruning_masks(weights, 0.3)[0]
    norms = np.linalg.norm(weights[0], axis=1)
    assert norms[~smallest].max() <= norms[smallest].min()
    act = [np.abs(rng.standard_normal((10, 37))), np.abs(rng.standard_normal((10, 23)))]
    by_activity = spur.neuron_pruning_masks(weights, 0.5, "activation_out", activations=act)
    score = act[0].mean(axis=0) * np.linalg.norm(weights[1], axis=0)
    assert score[~by_activity[0]].max() <= score[by_activity[0]].min()
    accs = [0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.5, 0.5]
    assert spur.retention_ratios(accs, 0.9)[0] == 1.0
    assert spur.prunability(accs, 0.9) == pytest.approx(np.mean(np.array(accs) / 0.9), rel=1e-15)
    assert spur.prunability(accs, 0.9, chance=0.5) == pytest.approx(np.mean((np.array(accs) - 0.5) / 0.4), rel=1e-15)


def test_neuron_pruned_accuracies_prune_the_masked_units():
    """The accuracy at each κ is that of the network with the masked units silenced (their incoming rows zeroed),
    written out here with the masks; activation_out ranks units by the unpruned network's activations."""
    rng = np.random.default_rng(4)
    weights = [rng.standard_normal((16, 5)), rng.standard_normal((12, 16)) / 4, rng.standard_normal((3, 12)) / 3]
    x, y = rng.standard_normal((300, 5)), rng.integers(0, 3, 300)

    def forward(ws):
        h = x
        hidden = []
        for W in ws[:-1]:
            h = np.maximum(h @ W.T, 0.0)
            hidden.append(h)
        return hidden, np.argmax(h @ ws[-1].T, axis=1)

    for criterion in ("incoming_l2", "activation_out"):
        activations = forward(weights)[0] if criterion == "activation_out" else None
        expected = []
        for kappa in spur.PRUNE_FRACTIONS:
            masks = spur.neuron_pruning_masks(weights, kappa, criterion, activations)
            expected.append(np.mean(forward([W * m[:, None] for W, m in zip(weights, masks)] + weights[-1:])[1] == y))
        got = spur.neuron_pruned_accuracies(weights, x, y, criterion=criterion)
        assert got.tolist() == expected and got[0] == np.mean(forward(weights)[1] == y)
    with pytest.raises(ValueError, match="inputs"):
        spur.neuron_pruned_accuracies(weights, x[:, :4], y)
    with pytest.raises(ValueError, match="labels"):
        spur.neuron_pruned_accuracies(weights, x, y + 1)
    with pytest.raises(ValueError, match="prune_fractions"):
        spur.neuron_pruned_accuracies(weights, x, y, [0.0, 1.5])


def _r2_pairs(x, labels):
    u = x / np.linalg.norm(x, axis=1, keepdims=True)
    sim = u @ u.T
    classes = np.unique(labels)
    within = np.mean([np.mean(1 - sim[np.ix_(labels == c, labels == c)]) for c in classes])
    total = np.mean([[np.mean(1 - sim[np.ix_(labels == a, labels == c)]) for c in classes] for a in classes])
    return 1 - within / total


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.integers(0, 10_000))
def test_class_separation_identity_and_invariances(n_classes, seed):
    rng = np.random.default_rng(seed)
    labels = np.r_[np.arange(n_classes), rng.integers(0, n_classes, 40)]
    x = rng.standard_normal((labels.size, 6)) + np.eye(6)[labels % 6]
    value = spur.class_separation_r2(x, labels)
    assert value == pytest.approx(_r2_pairs(x, labels), abs=1e-12)
    assert (spur.class_separation_r2(x * rng.uniform(0.1, 10, (labels.size, 1)), labels)
            == pytest.approx(value, abs=1e-12))
    perm = rng.permutation(n_classes)
    assert spur.class_separation_r2(x, perm[labels]) == pytest.approx(value, abs=1e-12)


def test_class_separation_limits():
    x = np.array([[1.0, 0.0], [3.0, 0.0], [0.0, 2.0], [0.0, 0.5]])
    assert spur.class_separation_r2(x, [0, 0, 1, 1]) == pytest.approx(1.0, abs=1e-15)
    rng = np.random.default_rng(4)
    points = rng.standard_normal((2000, 20))
    random_labels = rng.integers(0, 2, 2000)
    assert abs(spur.class_separation_r2(points, random_labels)) < 0.02
    assert abs(spur.class_separation_r2(np.maximum(points, 0), random_labels, on_zero="drop")) < 0.02
    with_zero = np.vstack([x, np.zeros(2)])
    assert spur.class_separation_r2(with_zero, [0, 0, 1, 1, 1], on_zero="drop") == pytest.approx(1.0)


def test_class_selectivity_properties():
    rng = np.random.default_rng(5)
    labels = np.repeat([0, 1, 2], 20)
    one_class = np.where(labels == 1, rng.uniform(0.5, 2.0, 60), 0.0)
    equal = np.ones(60)
    dead = np.zeros(60)
    noisy = np.abs(rng.standard_normal(60))
    a = np.column_stack([one_class, equal, dead, noisy])
    csi = spur.class_selectivity(a, labels)
    assert csi[0] == pytest.approx(1.0, abs=1e-6) and abs(csi[1]) < 1e-12 and csi[2] == 0.0
    assert np.all((csi >= 0) & (csi <= 1))
    perm = np.array([2, 0, 1])
    assert np.allclose(spur.class_selectivity(a, perm[labels]), csi, atol=1e-12)
    assert spur.mean_class_selectivity(a, labels) == pytest.approx(csi.mean())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.05, 3.0), min_size=1, max_size=12), st.lists(st.floats(0.05, 3.0), min_size=1, max_size=12),
       st.floats(0.05, 30.0))
def test_bc_loss_share_is_r_over_one_plus_r(alpha, beta, k):
    losses = np.r_[spur.scaled_binary_ce(np.array(alpha), k), spur.scaled_binary_ce(-np.array(beta), k)]
    bc = np.r_[np.zeros(len(alpha), bool), np.ones(len(beta), bool)]
    r = spur.bc_ba_loss_ratio(k, alpha, beta)
    share = spur.bc_loss_share(losses, bc)
    assert 0.0 <= share <= 1.0
    assert share == pytest.approx(r / (1 + r), rel=1e-12)


def test_bc_loss_share_limits_and_ratio():
    assert spur.bc_loss_share(np.ones(10), np.arange(10) < 3) == pytest.approx(0.3)
    assert spur.bc_loss_share(np.zeros(3), [True, False, False]) == 0.0
    alpha, beta = np.full(9, 1.0), np.full(1, 0.5)
    shares = [spur.bc_loss_share(np.r_[spur.scaled_binary_ce(alpha, k), spur.scaled_binary_ce(-beta, k)],
                               np.r_[np.zeros(9, bool), True]) for k in np.geomspace(0.1, 40, 30)]
    assert np.all(np.diff(shares) > 0) and shares[-1] > 1 - 1e-12
    assert spur.ba_bc_mean_loss_ratio([0.01, 0.03, 2.0], [False, False, True]) == pytest.approx(0.01)


def test_group_accuracies():
    acc = spur.group_accuracies([1, 1, 0, 0, 1], [1, 0, 0, 1, 1], [0, 0, 1, 1, 2], 3)
    assert acc.tolist() == [0.5, 0.5, 1.0]
    assert spur.worst_group_accuracy([1, 1, 0, 0, 1], [1, 0, 0, 1, 1], [0, 0, 1, 1, 2], 3) == 0.5


# ------------------------------------------------------------------ data and balancing
def test_parity_task_generator():
    data = spur.make_parity_task(5000, seed=2)
    again = spur.make_parity_task(5000, seed=2)
    assert np.array_equal(data.x, again.x) and np.array_equal(data.group, again.group)
    assert np.all(np.prod(data.x[:, 6:8], axis=1) == 2 * data.b - 1)
    assert np.all(np.prod(data.x[:, :6], axis=1) == 2 * data.y - 1)
    assert np.array_equal(data.group, 2 * data.y + data.b)
    assert np.array_equal(data.is_bias_conflicting, data.y != data.b)
    assert abs(data.is_bias_conflicting.mean() - 0.1) < 4 * math.sqrt(0.09 / 5000)


def test_toy_generator():
    for n, minority in ((1000, 200), (400, 80)):
        toy = spur.make_balancing_toy(n, 10, seed=n)
        assert int(np.sum(toy.b == 0)) == minority and np.array_equal(toy.is_bias_conflicting, toy.b == 0)
        assert np.array_equal(toy.y, np.repeat([0, 1], n // 2))
        sign = 2 * toy.y - 1
        assert np.all(toy.x[:, 1] * sign > 0)
        assert np.all((toy.x[:, 0] * sign > 0) == (toy.b == 1))
        code = spur.make_balancing_toy(n, 10, seed=n, sign="code")
        assert np.array_equal(code.x[:, :2], -toy.x[:, :2]) and np.array_equal(code.x[:, 2:], toy.x[:, 2:])
    test = spur.make_balancing_toy(100, 5, split="test", seed=0)
    assert not np.any(test.x[:, 2:])
    flipped_core = spur.make_balancing_toy(100, 0, rho_core=0.9, seed=1)
    assert int(np.sum(flipped_core.x[:, 1] * (2 * flipped_core.y - 1) < 0)) == 10
    assert spur.core_error_probability(0.15) == pytest.approx(1.3084e-11, rel=1e-4)
    assert spur.toy_feature_scales(2).tolist() == [4.0, 1.0, 2.0, 2.0]


def test_subsampling_and_weights():
    strata = np.repeat([0, 1, 2, 3], [50, 7, 20, 9])
    kept = spur.subsample_to_smallest(strata, seed=0)
    assert np.all(np.diff(kept) > 0) and np.bincount(strata[kept]).tolist() == [7, 7, 7, 7]
    assert not np.array_equal(kept, spur.subsample_to_smallest(strata, seed=1))
    assert np.array_equal(kept, spur.subsample_to_smallest(strata, seed=0))
    assert spur.subsampled_size(np.bincount(strata)) == 28
    w = spur.balanced_sampling_weights(strata)
    assert np.allclose(np.bincount(strata, weights=w) / w.sum(), 0.25, atol=1e-15)
    draws = spur.weighted_epoch_indices(w, seed=3)
    assert draws.shape == (strata.size,) and np.array_equal(draws, spur.weighted_epoch_indices(w, seed=3))
    assert spur.group_counts(spur.group_index([0, 0, 1, 1, 1], [0, 1, 0, 1, 1], 2), 4).tolist() == [1, 1, 1, 2]


def test_coverage_formula_edges():
    assert spur.expected_unique_fraction(1, 0.0) == 0.0 and spur.expected_unique_fraction(1, 0.5) == 1.0
    assert spur.expected_unique_fraction(10, 0.0) == 0.0
    assert spur.expected_unique_fraction(10**12, 1.0) == pytest.approx(1e-12, rel=1e-9)  # no 1 − (1 − 1/N) cancellation
    assert spur.expected_unique_fraction(100, 1e4) == pytest.approx(1 - 0.99 ** 1e4, rel=1e-12)


def test_reweighting_coverage_is_the_coverage_formula_per_stratum():
    counts = spur.BENCHMARK_GROUP_COUNTS["celeba"].counts
    epochs = np.array([0.0, 0.5, 1.0, 3.0])
    n = counts.sum()
    rwg = spur.reweighting_coverage(counts, epochs)
    assert rwg.stratum_fractions.shape == (2, 2, 4) and rwg.class_fractions.shape == (2, 4)
    for c in range(2):
        for a in range(2):
            assert np.array_equal(rwg.stratum_fractions[c, a],
                                  spur.expected_unique_fraction(counts[c, a], epochs * n / 4))
        weighted = (rwg.stratum_fractions[c] * counts[c][:, None]).sum(axis=0) / counts[c].sum()
        assert np.allclose(rwg.class_fractions[c], weighted, rtol=1e-15)
    rwy = spur.reweighting_coverage(counts, epochs, balance="class")
    assert rwy.stratum_fractions.shape == (2, 4)
    assert np.array_equal(rwy.class_fractions[0], spur.expected_unique_fraction(counts[0].sum(), epochs * n / 2))
    assert spur.reweighting_coverage(counts, 2.0).class_fractions.shape == (2,)
    for bad, name in (([[3, 0], [1, 2]], "counts"), ([3, 1], "counts"), (-1.0, "epochs")):
        with pytest.raises(ValueError, match=name):
            spur.reweighting_coverage(bad if name == "counts" else counts, 1.0 if name == "counts" else bad)
    with pytest.raises(ValueError, match="balance"):
        spur.reweighting_coverage(counts, 1.0, balance="groups")


def test_reweighting_coverage_against_sampled_epochs():
    """Monte Carlo over 2 RWG and RWY epochs drawn with weighted_epoch_indices: the mean fraction of each class's
    distinct samples seen is within 5 standard errors of the exact with-replacement value, where every draw picks a
    given sample of a stratum of n with probability 1/(S n); reweighting_coverage, the thesis's formula with each
    stratum's draws fixed at their mean N/S, lies above it (concavity) by O(1/n)."""
    counts = np.array([[30, 5], [10, 20]])
    labels, attributes = (np.repeat(i.ravel(), counts.ravel()) for i in np.indices(counts.shape))
    n_total, rng = counts.sum(), np.random.default_rng(12)
    for balance, strata in (("group", spur.group_index(labels, attributes, 2)), ("class", labels)):
        weights = spur.balanced_sampling_weights(strata)
        seen = np.array([[np.unique(drawn[labels[drawn] == c]).size / counts[c].sum() for c in range(2)]
                         for drawn in (spur.weighted_epoch_indices(weights, n_draws=2 * n_total, seed=rng)
                                       for _ in range(4000))])
        sizes = counts if balance == "group" else counts.sum(axis=1, keepdims=True)
        exact = 1.0 - (1.0 - 1.0 / (sizes.size * sizes)) ** (2 * n_total)
        exact = (exact * sizes).sum(axis=1) / sizes.sum(axis=1)
        standard_error = seen.std(axis=0, ddof=1) / np.sqrt(len(seen))
        assert np.all(np.abs(seen.mean(axis=0) - exact) <= 5 * standard_error), (balance, seen.mean(0), exact)
        thesis = spur.reweighting_coverage(counts, 2.0, balance=balance).class_fractions
        assert np.all(thesis >= exact) and np.all(thesis - exact <= 1.0 / sizes.min()), (thesis, exact)


def test_jtt_and_gdro():
    counts = spur.jtt_duplication_counts([True, False, True], 5)
    assert counts.tolist() == [5, 1, 5]
    assert spur.expand_by_counts([7, 8, 9], counts).tolist() == [7] * 5 + [8] + [9] * 5
    log_q = np.zeros(4)
    losses = np.array([0.3, 1.2, np.nan, 0.7])
    present = np.array([True, True, False, True])
    step = spur.gdro_update(log_q, losses, present, step_size=0.1)
    q = np.ones(4) * np.exp(0.1 * np.where(present, np.nan_to_num(losses), 0.0))
    q /= q.sum()
    assert np.allclose(np.exp(step.log_q), q, rtol=1e-15) and step.loss_weights[2] == 0.0
    assert np.allclose(step.loss_weights[present], q[present])


def test_benchmark_counts_table():
    celeba = spur.BENCHMARK_GROUP_COUNTS["celeba"]
    assert int(celeba.counts.sum()) == 162770 and celeba.classes[1] == "blond"
    with pytest.raises((TypeError, ValueError)):
        celeba.counts[0, 0] = 1
    with pytest.raises(TypeError):
        spur.BENCHMARK_GROUP_COUNTS["new"] = celeba


# ------------------------------------------------------------------ E. the linear-toy trainer
def _reference_trainer(splits, run, method, learning_rate=1e-5, momentum=0.9, weight_decay=0.0, batch_size=100,
                       step_size=0.1, jtt_epochs=1):
    """A plain numpy re-implementation (vectorised per batch, public gdro_update) replaying the run's orders."""
    train, val, test = splits
    gam = spur.toy_feature_scales(train.x.shape[1] - 2)
    xs = train.x * gam
    w, v, log_q = run.init.copy(), None, np.zeros(4)
    val_acc = []
    for epoch, order in enumerate(run.orders):
        if method == "jtt" and epoch == jtt_epochs + 1:
            w, v = run.jtt_init.copy(), None
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            f = xs[idx] @ w
            residual = expit(f) - train.y[idx]
            if method == "gdro":
                groups = train.group[idx]
                loss = np.logaddexp(0.0, f) - train.y[idx] * f
                counts = np.bincount(groups, minlength=4)
                means = np.bincount(groups, weights=loss, minlength=4) / np.maximum(counts, 1)
                log_q, weights = spur.gdro_update(log_q, means, counts > 0, step_size)
                residual = residual * weights[groups] / counts[groups]
            else:
                residual = residual / len(idx)
            g = residual @ xs[idx] + weight_decay * w
            v = g if v is None else momentum * v + g
            w = w - learning_rate * v
        pred = (val.x * gam) @ w > 0
        val_acc.append(spur.group_accuracies(pred.astype(int), val.y, val.group, 4))
    return w, np.array(val_acc)


@pytest.mark.parametrize("method", spur.METHODS)
def test_numba_trainer_matches_numpy_reference(method):
    splits = spur.make_balancing_toy_splits(80, 30, seed=11)
    config = spur.BalancingToyConfig(n_epochs=30, batch_size=16, learning_rate=1e-3, weight_decay=0.01, jtt_epochs=2,
                                     jtt_upweight=5)
    run = spur.train_balancing_toy(*splits, method, config, seed=5, return_orders=True)
    w, val_acc = _reference_trainer(splits, run, method, learning_rate=1e-3, weight_decay=0.01, batch_size=16,
                                    jtt_epochs=2)
    assert np.abs(run.weights - w).max() <= 1e-12 * np.abs(w).max()
    assert np.array_equal(run.val_group_acc, val_acc)
    assert run.selected_epoch == 30 - int(np.argmax(val_acc.min(axis=1)[::-1]))
    lengths = [len(o) for o in run.orders]
    if method in ("erm", "rwy", "rwg", "gdro"):
        assert lengths == [80] * 30
    elif method == "suby":  # the toy's classes are balanced by construction
        assert lengths == [80] * 30
    elif method == "subg":
        assert lengths == [4 * int(np.bincount(splits.train.group).min())] * 30
    else:
        assert lengths[:2] == [80, 80] and lengths[2] == 0 and lengths[3] >= 80


def test_trainer_init_and_selected_weights():
    five = spur.BalancingToyConfig(n_epochs=5)
    run = spur.train_balancing_toy(*TOY, "erm", five, seed=0)
    again = spur.train_balancing_toy(*TOY, "erm", five, seed=0)
    assert np.array_equal(run.weights, again.weights) and run.orders is None and run.jtt_init is None
    bound = 1 / math.sqrt(TOY.train.x.shape[1])
    assert np.all(np.abs(run.init * spur.toy_feature_scales(6)) <= 0.01 * bound)
    given = spur.train_balancing_toy(*TOY, "erm", five, seed=1, init=run.init)
    assert np.array_equal(given.init, run.init)
    best = spur.train_balancing_toy(*TOY, "rwg", spur.BalancingToyConfig(n_epochs=40, learning_rate=1e-3), seed=2)
    gam = spur.toy_feature_scales(6)
    pred = ((TOY.test.x * gam) @ best.selected_weights > 0).astype(int)
    assert spur.worst_group_accuracy(pred, TOY.test.y, TOY.test.group, 4) == best.selected_test_worst_group


def test_balancing_toy_runs_share_data_and_training_seed_across_methods():
    config = spur.BalancingToyConfig(n_samples=40, n_noise=6, n_epochs=5, batch_size=10, learning_rate=1e-3)
    toy = spur.balancing_toy_runs([3, 4], ("erm", "rwg"), config)
    assert toy.seeds == (3, 4) and set(toy.runs) == {"erm", "rwg"}
    for seed, splits, erm, rwg in zip(toy.seeds, toy.splits, toy.runs["erm"], toy.runs["rwg"]):
        data_stream, train_stream = map(np.random.default_rng, np.random.SeedSequence(seed).spawn(2))
        expected = spur.make_balancing_toy_splits(40, 6, seed=data_stream)
        assert all(np.array_equal(a.x, b.x) for a, b in zip(splits, expected))
        again = spur.train_balancing_toy(*expected, "rwg", config, seed=int(train_stream.integers(2**63)))
        assert np.array_equal(again.weights, rwg.weights)
        assert np.array_equal(erm.init, rwg.init)  # one training seed per data set, shared by the methods
    assert toy.test_worst_group_curves("erm").shape == (2, 5)
    assert np.array_equal(toy.test_worst_group_curves("rwg")[1], toy.runs["rwg"][1].test_worst_group)
    for call, error, name in ((lambda: spur.balancing_toy_runs([0], ("erm", "bogus")), ValueError, "methods"),
                              (lambda: spur.balancing_toy_runs([-1]), ValueError, "seeds"),
                              (lambda: spur.balancing_toy_runs([], ("erm",)), ValueError, "seeds"),
                              (lambda: spur.balancing_toy_runs(3), TypeError, "seeds"),
                              (lambda: toy.test_worst_group_curves("subg"), ValueError, "method")):
        with pytest.raises(error, match=name):
            call()


def test_balancing_toy_configuration():
    """One frozen configuration for every trainer of the toy: hashable and picklable (the disk cache keys on its
    repr), its defaults the CPU size of the claims (ci()), source() the authors' code's size."""
    import pickle

    config = spur.BalancingToyConfig()
    assert config == spur.BalancingToyConfig.ci() and hash(config) == hash(spur.BalancingToyConfig.ci())
    assert pickle.loads(pickle.dumps(config)) == config and eval(repr(config), vars(spur)) == config
    assert (config.n_samples, config.n_noise) == spur.BALANCING_TOY_SIZE and config.gammas == spur.TOY_GAMMAS
    source = spur.BalancingToyConfig.source()
    assert (source.n_samples, source.n_noise, source.batch_size, source.n_epochs) == (1000, 1200, 250, 500)
    assert source._replace(n_samples=400, n_noise=600, batch_size=100) == config


# ------------------------------------------------------------------ figures hold what dynamics computes
def _render(name, **kwargs):
    import figures.spurious as fs

    return getattr(fs, name)(**kwargs)


def test_figure_prop1_ratio_data():
    fig = _render("prop1_ratio")
    ax = fig.axes[0]
    k = ax.lines[0].get_xdata()
    expected = np.exp(spur.bc_ba_loss_ratio(k, np.ones(90), np.ones(10), log=True) - k - np.log(k))
    assert np.allclose(ax.lines[0].get_ydata(), expected, rtol=1e-12)
    assert ax.lines[2].get_ydata()[0] == pytest.approx(1 / 9)
    inset = ax.child_axes[0]
    k2 = inset.lines[0].get_xdata()
    assert np.allclose(inset.lines[0].get_ydata(),
                       spur.bc_ba_loss_ratio(k2, FIX_ALPHA, FIX_BETA) * np.exp(-0.5 * k2) / k2, rtol=1e-10)


def test_figure_prop2_ratio_data():
    ax = _render("prop2_ratio").axes[0]
    k = ax.lines[0].get_xdata()
    assert np.allclose(ax.lines[0].get_ydata(),
                       spur.spurious_core_gradient_ratio(k, *spur.bias_decomposable_fixture(), log=True))
    control = spur.linear_two_block_fixture(seed=0)
    assert np.allclose(ax.lines[2].get_ydata(), spur.spurious_core_gradient_ratio(k, *control, log=True))


def test_figure_toy_curves_data():
    ax = _render("toy_worst_group_curves", n_samples=40, n_noise=6, n_epochs=20, n_seeds=2,
                 learning_rate=1e-3, batch_size=10).axes[0]
    curves = []
    for seed in range(2):
        data_stream, train_stream = map(np.random.default_rng, np.random.SeedSequence(seed).spawn(2))
        splits = spur.make_balancing_toy_splits(40, 6, seed=data_stream)
        config = spur.BalancingToyConfig(learning_rate=1e-3, batch_size=10, n_epochs=20)
        curves.append(spur.train_balancing_toy(*splits, "subg", config,
                                               seed=int(train_stream.integers(2**63))).test_worst_group)
    assert np.allclose(ax.lines[1].get_ydata(), np.mean(curves, axis=0))


def test_figure_coverage_data():
    ax = _render("reweighting_coverage").axes[0]
    epochs = ax.lines[0].get_xdata()
    counts = spur.BENCHMARK_GROUP_COUNTS["celeba"].counts
    assert np.allclose(ax.lines[0].get_ydata(), spur.expected_unique_fraction(counts[0, 0], epochs * counts.sum() / 4))
    assert float(np.interp(1.0, epochs, ax.lines[2].get_ydata())) == pytest.approx(0.444, abs=1e-3)


# ----------------------------------------------------------------------------------------------------
# Fuzz findings (tests/test_public_api.py): k·m, 2^{1/p}, sums and label-sized arrays beyond float64 or memory;
# the exact value where it is a double, else a ValueError naming the input
# ----------------------------------------------------------------------------------------------------

def _exact_log_ratio(k, alpha, beta):
    with mpmath.workdps(50):
        k = mpmath.mpf(k)
        bc = sum(mpmath.log1p(mpmath.exp(k * mpmath.mpf(b))) for b in beta)
        ba = sum(mpmath.log1p(mpmath.exp(-k * mpmath.mpf(a))) for a in alpha)
        return float(mpmath.log(bc) - mpmath.log(ba))


SPURIOUS_EXTREMES = [
    # (call, expected value or the words of the ValueError)
    (lambda: spur.pq_index([1.0, 1.0], 1.2277122953678935e-149, 1.0), 0.0),           # was NaN (0 · inf)
    (lambda: spur.pq_index([1.0, 2.0], 1e-300, 1.0), 1.0 - math.sqrt(0.5) / 0.75),   # p -> 0: the geometric mean
    (lambda: spur.pq_index([0.0, 1.0, 2.0], 1e-300, 1e300), 1.0),
    (lambda: spur.bc_ba_loss_ratio(179769314.0, 1.0, 1e300, log=True),
     179769314.0 + math.log(179769314.0) + math.log(1e300)),                         # was inf (kβ overflowed)
    (lambda: spur.bc_ba_loss_ratio(1e300, 1e10, 1.0, log=True), "logit_scale"),      # log R ~ 1e310
    (lambda: spur.bc_ba_loss_ratio_bounds(1.3407807929942597e154, 1.0, 1.3407807929942597e154, log=True).upper,
     1.3407807929942597e154),                                                        # was inf
    (lambda: spur.bc_ba_loss_ratio_bounds([1e-300, 5e-324], [1.0, 2.0], [3.0, 4.0], log=True).upper.tolist(),
     [math.log(2.0)] * 2),
    (lambda: spur.scaled_ce_grad_norm(359538627.0, 0.0, 1e300), "margin_grad_norm"),  # was inf
    (lambda: spur.spurious_core_gradient_ratio(179769314.0, 1e300, 1.0, 0.0), 0.0),           # was NaN (−inf − −inf)
    (lambda: spur.spurious_core_gradient_ratio(1e8, [1e300, 2e300], [1.0, 1.0], [1.0, 0.0], log=True), 0.0),
    (lambda: spur.spurious_core_gradient_ratio(1e8, [1e300, 2e300], [0.0, 1.0], [1.0, 0.0], log=True), 1e308),
    (lambda: spur.spurious_core_gradient_ratio(1e9, [1e300, 2e300], [0.0, 1.0], [1.0, 0.0], log=True), "logit_scale"),
    (lambda: spur.bc_ba_loss_ratio_asymptote([1.0, 1.0], [1e308, 1e308]).constant, 1e308),  # Σβ overflowed, Σβ/2 not
    (lambda: spur.bc_ba_loss_ratio_asymptote([1.0], [9.999999900163214e299, 1.797693124862316e308]), "bc_margins"),
    (lambda: spur.spurious_core_gradient_ratio_asymptote([1.0, -1.0, -2.0], [1.0, 1e308, 1e308],
                                                         [1.0, 1e308, 1e308]).constant, 1.0),
    (lambda: spur.group_counts([3159562749.0]), "groups must be < 100000000"),         # was a 23.5 GiB bincount
    (lambda: spur.group_counts([1e300]), "got 1e300"),                                 # was -9223372036854775808
    (lambda: spur.balanced_sampling_weights([3159562749.0]), "strata"),
    (lambda: spur.balanced_sampling_weights([0, 0, 0, 99_999_999]).tolist(), [4 / 3] * 3 + [4.0]),
    (lambda: spur.expand_by_counts([0, 1], [6e7, 6e7]), "counts must sum to at most"),
]


@pytest.mark.parametrize("call, expected", SPURIOUS_EXTREMES, ids=[str(k) for k in range(len(SPURIOUS_EXTREMES))])
def test_extreme_inputs(call, expected):
    check_extreme_case(call, expected, absolute=1e-300)


@pytest.mark.parametrize("k", [1e-300, 0.5, 30.0, 1e3, 1e6])
def test_prop1_log_ratio_matches_multiprecision(k):
    alpha, beta = [0.5, 1.0, 2.0], [0.3, 1.5]
    assert spur.bc_ba_loss_ratio(k, alpha, beta, log=True) == pytest.approx(_exact_log_ratio(k, alpha, beta), rel=1e-12)


def test_pq_index_matches_the_power_means_for_tiny_p():
    w = np.array([0.3, 1.0, 2.0, 0.0, 4.5])
    for p, q in [(1e-12, 1.0), (1e-6, 2.0), (0.5, 1.0), (1.0, 2.0), (2.0, 1e3)]:
        with mpmath.workdps(60):
            nonzero = [mpmath.mpf(x) for x in w]
            mean = lambda r: (sum(x ** r for x in nonzero) / len(nonzero)) ** (1 / mpmath.mpf(r))  # noqa: E731
            exact = float(1 - mean(p) / mean(q))
        assert spur.pq_index(w, p, q) == pytest.approx(exact, rel=1e-10, abs=1e-15)


@given(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=40))
def test_max_drawdown_is_the_largest_fall_below_an_earlier_value(values):
    """Against the O(n²) definition max over s <= t of x_s − x_t."""
    brute = max(values[s] - values[t] for t in range(len(values)) for s in range(t + 1))
    assert spur.max_drawdown(values) == pytest.approx(brute, abs=1e-9)
    columns = np.stack([values, values[::-1]], axis=1)
    assert spur.max_drawdown(columns, axis=0)[0] == pytest.approx(brute, abs=1e-9)


def test_max_drawdown_refuses_empty_and_non_finite_series():
    with pytest.raises(ValueError, match="at least one value"):
        spur.max_drawdown([])
    with pytest.raises(ValueError, match="finite"):
        spur.max_drawdown([0.0, np.nan])
