"""Result fields of the public functions that no claim or test checked and that can be held exactly: the *input
echo* lines of docs/output_coverage.md (a field that repeats an argument of the call or a field of its config, held
equal to what was passed), the *uncertainty* lines (a standard error, recomputed from the other returned fields or
from the binned sums of the documented simulation runs), the Monte Carlo fields that a deterministic relation ties to
another field or to the documented runs, the fields of data sets and fixtures that follow a documented rule (a
fixed example, noise-free formulas, labels and groups determined by the other fields), and some *gap* lines (each
against an independent route: a hand-computed case, numpy's documented sampling rule written out, a reduction
written as a loop, numpy gradient descent for a torch trainer). A field measured by
``tools/output_perturbation.py`` (a relative 1e-3 change, its first entry changed, an integer off by one, two
members swapped) must make one of these tests fail, so each test names its function in its body and calls it with at
least two distinct entries where an order could be swapped.

The torch trainers run at toy sizes in float64 where they allow it, with the disk cache off; a test of a torch
function is skipped where torch is not installed."""
import math

import numpy as np
import pytest

import dynamics.and_mask as am
import dynamics.double_descent as dd
import dynamics.linear_networks as ln
import dynamics.numerics as nx
import dynamics.spherical as sph
import dynamics.spurious as spur
import dynamics.starvation as gs


@pytest.fixture
def no_disk_cache(monkeypatch):
    """The trainers' results computed afresh (not read from an earlier run's disk cache)."""
    monkeypatch.setenv("DYNAMICS_CACHE", "0")


def _same(echo, passed):
    """Whether a returned echo holds exactly the values passed, in order (dtype-insensitive: a function may convert
    a list to an array or a tuple of ints to an int64 array)."""
    return np.array_equal(np.asarray(echo), np.asarray(passed))


# ================================================================================================ input echoes: numpy
def test_linear_network_flows_return_the_requested_times():
    """scalar_mode_flow, student_flow and simulated_student_errors record the solution at the times asked for: the
    returned ``t`` is that array, not a grid of the solver's own."""
    t = [0.0, 0.25, 1.0, 3.5]
    mode = ln.scalar_mode_flow(t, 1.0, 0.3, 0.2)
    assert _same(mode.t, t)
    instance = ln.draw_student(6, 4, seed=3)
    flow = ln.student_flow(instance, t)
    assert _same(flow.t, t)
    errors = ln.simulated_student_errors(1.5, 8, 2, t, seed=11)
    assert _same(errors.t, t)


def test_student_instance_keeps_the_noise_and_initial_weights_it_was_given():
    """student_instance stores the realised label noise ε and w(0) as passed (the labels are built from them)."""
    rng = np.random.default_rng(0)
    inputs, teacher = rng.standard_normal((4, 6)), rng.standard_normal(4)
    noise, w0 = np.array([0.1, -0.3, 0.2, 0.05, -0.4, 0.7]), np.array([0.5, -1.0, 0.25, 2.0])
    instance = ln.student_instance(inputs, teacher, noise, w0, 0.3)
    assert _same(instance.noise, noise) and _same(instance.initial_weights, w0)


def test_first_crossing_time_by_hand():
    """first_crossing_time by linear interpolation between samples, computed by hand: a series that starts at its
    level crosses at t[0]; one that reaches 1.5 between values 1 and 2 at times 1 and 3 crosses at 2; one that never
    reaches its level gives inf."""
    t = [0.0, 1.0, 3.0]
    values = np.array([[0.0, 2.0, 0.0], [1.0, 2.5, 0.1], [2.0, 3.0, 0.2]])
    out = ln.first_crossing_time(t, values, [1.5, 2.0, 1.0])
    assert out.tolist() == [2.0, 0.0, math.inf]
    out = ln.first_crossing_time(t, values[:, [1, 0]], [2.5, 1.0])
    assert out.tolist() == [1.0, 1.0]


def test_require_bool_returns_the_flag_it_was_given():
    """require_bool passes True and False (numpy's included) through as Python bools."""
    assert nx.require_bool("flag", True) is True and nx.require_bool("flag", False) is False
    assert nx.require_bool("flag", np.True_) is True and nx.require_bool("flag", np.False_) is False


def test_recorded_steps_are_the_steps_asked_for():
    """bipartite_roots and scheduled_gd_order_parameters evaluate at the steps passed, and spherical.simulate,
    primal_gd_theta and primal_gd_z record every step 0..n_steps: the returned ``steps`` says so exactly."""
    steps = [0, 3, 10, 40]
    roots = dd.bipartite_roots(steps, n_samples=110, n_features=100, n_fast=70, kappa=30.0)
    assert _same(roots.steps, steps)
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(45, 30, 20, 10.0), n_seeds=1, seed=3)
    order = dd.scheduled_gd_order_parameters(data.modulation.draw(0), data.X[0], steps, np.full(40, 0.1))
    assert _same(order.steps, steps)
    run = sph.simulate(sph.SGD(0.1), sph.RandomLinearLoss.stream(3, seed=0), np.array([1.0, 0.5, -0.2]), 4)
    assert _same(run.steps, np.arange(5))
    theta = gs.primal_gd_theta(np.eye(2), [1.0, -1.0], 3, learning_rate=0.5, weight_decay=0.1)
    assert _same(theta.steps, np.arange(4))
    z = gs.primal_gd_z(np.eye(2), [1.0, 0.5], 3, learning_rate=0.01, weight_decay=0.1)
    assert _same(z.steps, np.arange(4))


def test_toy_trajectories_return_the_s1_values_asked_for():
    """toy_trajectories runs one trajectory per first singular value s1, in the order passed."""
    s1 = [2.0, 6.0, 3.0]
    runs = gs.toy_trajectories(s1, n_steps=5)
    assert _same(runs.s1, s1)


def test_balancing_toy_and_two_moons_trainers_label_their_rows():
    """train_balancing_toy's ``epochs`` are 1..n_epochs (row e − 1 is after epoch e); the numpy train_two_moons
    returns the settings and the seeds of its models in the order passed."""
    splits = spur.make_balancing_toy_splits(40, 6, seed=0)
    config = spur.BalancingToyConfig(n_samples=40, n_noise=6, n_epochs=3, learning_rate=1e-3, batch_size=10)
    run = spur.train_balancing_toy(*splits, "erm", config, seed=0)
    assert _same(run.epochs, [1, 2, 3])
    runs = (gs.MoonsRun("a", -0.1, 0.0), gs.MoonsRun("b", 0.1, 0.006))
    moons = gs.train_two_moons(gs.TwoMoonsConfig(n_steps=2, hidden=4, record_every=1, runs=runs), seeds=(3, 1))
    assert moons.runs == runs and tuple(moons.seeds) == (3, 1)


def test_logistic_shortcut_data_carry_the_signal_asked_for():
    """make_logistic_shortcut records the invariant feature's signal a it was asked for (the Bayes accuracy of the
    o.o.d. set is Φ(a))."""
    data = am.make_logistic_shortcut(n_envs=2, n_samples_per_env=4, dim_shortcut=2, signal=0.7, n_test=4, seed=0)
    assert data.signal == 0.7


def test_threshold_sweeps_return_the_thresholds_asked_for():
    """shortcut_threshold_sweep trains at each τ passed, in order, and says so in ``agreement_threshold``."""
    taus = [0.0, 1.0, 0.5]
    sweep = am.shortcut_threshold_sweep(taus, n_seeds=1, n_steps=1)
    assert _same(sweep.agreement_threshold, taus)


def test_weighted_epoch_indices_are_inverse_cdf_draws_of_the_seeds_stream():
    """weighted_epoch_indices draws like numpy's Generator.choice with probabilities p = w / Σw, written out here as
    its documented rule: one uniform per draw from the seed's stream, mapped through the cumulative distribution
    (the first i with u < F_i)."""
    w = np.array([1.0, 0.0, 3.0, 2.0, 0.5])
    for seed in (0, 7):
        idx = spur.weighted_epoch_indices(w, n_draws=12, seed=seed)
        cdf = np.cumsum(w / w.sum())
        u = np.random.default_rng(seed).random(12)
        assert idx.dtype == np.int64 and idx.tolist() == np.searchsorted(cdf / cdf[-1], u, side="right").tolist()



def test_balancing_toy_groups_follow_the_documented_rule():
    """make_balancing_toy's group is 2y + b, the bias-conflicting samples are the minority b = 0, the classes come in
    two halves, and (no core flips at ρ_core = 1, blob std 0.15) the core feature has the sign of the label and the
    spurious one that sign times 2b − 1; the blob noise is centred, so each feature times its sign sums to n."""
    for seed, split in ((0, "train"), (3, "val")):
        toy = spur.make_balancing_toy(40, 3, split, seed=seed)
        sign = 2 * toy.y - 1
        assert toy.y.tolist() == [0] * 20 + [1] * 20
        assert np.array_equal(toy.group, 2 * toy.y + toy.b) and np.array_equal(toy.is_bias_conflicting, toy.b == 0)
        assert np.all(toy.x[:, 1] * sign > 0) and np.all(toy.x[:, 0] * sign * (2 * toy.b - 1) > 0)
        assert math.isclose(np.sum(toy.x[:, 1] * sign), 40, rel_tol=1e-13)
        assert math.isclose(np.sum(toy.x[:, 0] * sign * (2 * toy.b - 1)), 40, rel_tol=1e-13)



def test_validators_return_what_they_were_given():
    """require_betas returns the pair (β₁, β₂) in order, require_finite_result the finite array itself, and
    scalar_or_array the float of a one-element array where the reference is a scalar, else the array."""
    assert nx.require_betas((0.9, 0.999)) == (0.9, 0.999) and nx.require_betas([0.5, 0.0]) == (0.5, 0.0)
    values = np.array([1.5, -2.0, 0.0, 3.25])
    assert np.array_equal(nx.require_finite_result(values, "values", "reduce t"), values)
    assert nx.scalar_or_array(np.array([0.5]), 2.0) == 0.5
    assert np.array_equal(nx.scalar_or_array([1.0, 2.0, -4.0], [3.0, 4.0, 5.0]), [1.0, 2.0, -4.0])


def test_deterministic_data_sets_by_their_formulas():
    """make_notebook_patchwork is the notebook's fixed data: x_e = 3·[e_e, 0.1], targets 1. make_moons without
    noise is the two half circles at evenly spaced angles, (cos t, sin t) labelled 0 and (1 − cos t, 1/2 − sin t)
    labelled 1."""
    patchwork = am.make_notebook_patchwork()
    assert np.allclose(patchwork.inputs, 3.0 * np.hstack([np.eye(4), np.full((4, 1), 0.1)]), rtol=1e-15, atol=0)
    assert np.array_equal(patchwork.targets, np.ones(4))
    X, y = gs.make_moons(7, noise_std=0.0, seed=0)
    outer, inner = np.linspace(0.0, np.pi, 3), np.linspace(0.0, np.pi, 4)
    expected = np.vstack([np.column_stack([np.cos(outer), np.sin(outer)]),
                          np.column_stack([1.0 - np.cos(inner), 0.5 - np.sin(inner)])])
    assert np.allclose(X, expected, rtol=0, atol=1e-15)
    assert y.tolist() == [0.0] * 3 + [1.0] * 4


def test_logistic_shortcut_labels_and_their_shortcut_rows():
    """make_logistic_shortcut's labels are ±1, and every shortcut block is its label times its environment's shortcut
    vector: in training x[e, i, 1:]·y[e, i] is one row per environment, and each row of the probe set times its test
    label is one of those rows (the test label carried on another environment's shortcut)."""
    data = am.make_logistic_shortcut(n_envs=3, n_samples_per_env=5, dim_shortcut=2, n_test=12, seed=2)
    assert set(np.unique(data.train_labels)) <= {-1.0, 1.0} and set(np.unique(data.test_labels)) <= {-1.0, 1.0}
    shortcuts = data.train_inputs[:, :, 1:] * data.train_labels[:, :, None]
    assert np.all(shortcuts == shortcuts[:, :1])
    rows = data.shortcut_test_inputs[:, 1:] * data.test_labels[:, None]
    assert all(any(np.array_equal(row, s) for s in shortcuts[:, 0]) for row in rows)
    assert len({tuple(r) for r in rows}) > 1 and len(set(data.test_labels)) == 2


def test_monte_carlo_generalization_error_is_zero_at_the_teacher_and_quadratic_along_a_line():
    """monte_carlo_generalization_error without label noise: the teacher's own weights make no error on any sample
    (mean and standard error exactly 0), and weights teacher + c·v err by c²(x·v)² on the same samples, so the mean
    and its standard error at c = 2 are four times those at c = 1."""
    instance = ln.draw_student(6, 8, seed=1)
    quiet = ln.student_instance(instance.inputs, instance.teacher, np.zeros(instance.n_samples),
                                instance.initial_weights, 0.0)
    v = np.linspace(-1.0, 1.0, instance.n_features)
    est = ln.monte_carlo_generalization_error(quiet, [quiet.teacher, quiet.teacher + v, quiet.teacher + 2 * v],
                                              n_test_samples=50, seed=3)
    assert est.mean[0] == 0.0 and est.standard_error[0] == 0.0 and est.mean[1] > 0
    assert est.mean[2] == pytest.approx(4 * est.mean[1], rel=1e-13)
    assert est.standard_error[2] == pytest.approx(4 * est.standard_error[1], rel=1e-12)



def test_bias_decomposable_fixture_holds_its_documented_margins_in_order():
    """bias_decomposable_fixture is a fixed example, not a draw: the BA margins 0.5, 1, 2, 1 then the BC margins
    −0.3, −1.5, core gradient norms 1 on BA and 0 on BC, spurious ones 1 everywhere."""
    fixture = spur.bias_decomposable_fixture()
    assert fixture.margins.tolist() == [0.5, 1.0, 2.0, 1.0, -0.3, -1.5]
    assert fixture.core_grad_norms.tolist() == [1.0] * 4 + [0.0] * 2
    assert fixture.spurious_grad_norms.tolist() == [1.0] * 6


# ================================================================================================ AND-mask Monte Carlo
def _keep(d, tau):
    """The τ-form keep set over the sign sums S = −d..d (index S + d): abs(S) >= ⌈τd − 1e-9⌉."""
    return np.abs(np.arange(-d, d + 1)) >= math.ceil(tau * d - 1e-9)


def _estimates(sim, d, tau):
    """(kept, p, se(p), mean of m ḡ, its se, mean of m ḡ², its se) written out from one run's binned sums: sample
    means over the N coordinates, standard errors √(sample variance / N)."""
    keep, n = _keep(d, tau), sim.n_samples
    kept = sim.counts[keep].sum()
    p, first, second, fourth = kept / n, sim.sums[keep].sum() / n, sim.sums_sq[keep].sum() / n, \
        sim.sums_fourth[keep].sum() / n
    return (kept, p, math.sqrt(p * (1 - p) / n), first, math.sqrt((second - first ** 2) / n), second,
            math.sqrt((fourth - second ** 2) / n))


def test_simulate_mask_bins_of_single_coordinates_are_consistent():
    """A run of one coordinate puts its ḡ in the bin of its sign sum S: that bin's Σḡ², Σḡ⁴ are (Σḡ)², (Σḡ)⁴, every
    other bin is empty and zero, S = ±d only with ḡ of that sign; with d = 1, ḡ = g and S = sign(g). Checked for
    simulate_mask and simulate_mask_hetero over several seeds."""
    def check(sim, d):
        assert sim.n_samples == 1 and sim.n_envs == d and sim.counts.sum() == 1
        k = int(np.flatnonzero(sim.counts)[0])
        others = np.arange(2 * d + 1) != k
        for sums in (sim.sums, sim.sums_sq, sim.sums_fourth):
            assert np.all(sums[others] == 0.0)
        g = sim.sums[k]
        assert sim.sums_sq[k] == pytest.approx(g * g, rel=1e-15, abs=0)
        assert sim.sums_fourth[k] == pytest.approx(sim.sums_sq[k] ** 2, rel=1e-15, abs=0)
        if k in (0, 2 * d):  # all d signs agree, so does their mean
            assert np.sign(g) == (1 if k == 2 * d else -1)

    for seed in range(8):
        check(am.simulate_mask(1, 1, 0.3, seed=seed), 1)
        check(am.simulate_mask(3, 1, 1.5, seed=seed), 3)
        check(am.simulate_mask(2, 1, -2.0, seed=seed), 2)
        check(am.simulate_mask_hetero([0.5, -0.2, 1.0], [1.0, 2.0, 0.5], 1, seed=seed), 3)
        check(am.simulate_mask_hetero([3.0], [0.5], 1, seed=seed), 1)
    # a larger run: the counts add up to N and Σḡ² >= (Σḡ)²/count per bin (Cauchy-Schwarz)
    sim = am.simulate_mask_hetero([0.5, -0.2, 1.0], [1.0, 2.0, 0.5], 300, seed=4)
    assert sim.n_samples == 300 and sim.counts.sum() == 300
    full = sim.counts > 0
    assert np.all(sim.sums_sq[full] * sim.counts[full] >= sim.sums[full] ** 2)


def test_estimate_from_simulation_written_out_from_the_binned_sums():
    """estimate_from_simulation's keep probability, means of m ḡ and m ḡ² and their standard errors, each from the
    run's binned sums with the sample formulas written out here (√(p(1 − p)/N) and √(sample variance / N))."""
    sim = am.simulate_mask(4, 3000, 0.5, seed=1)
    for tau in (0.0, 0.5, 1.0):
        est = am.estimate_from_simulation(sim, tau)
        _, *expected = _estimates(sim, 4, tau)
        got = (est.keep_probability, est.keep_probability_se, est.first_moment, est.first_moment_se,
               est.second_moment, est.second_moment_se)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)
        assert est.n_samples == 3000


def test_threshold_sweep_samples_from_its_two_documented_runs():
    """threshold_sweep_samples is one signal run (seed) and one pure-noise run (seed + 1) of simulate_mask answering
    every threshold: each field written out from those runs' binned sums (the kept fraction of the mean over s, the
    noise power over the unmasked σ²/d), and the thresholds as passed."""
    d, s, n, taus = 4, 1.5, 800, [0.25, 0.75, 0.0]
    out = am.threshold_sweep_samples(d, s, taus, n, seed=5)
    signal, noise = am.simulate_mask(d, n, s, seed=5), am.simulate_mask(d, n, 0.0, seed=6)
    assert _same(out.agreement_threshold, taus)
    for i, tau in enumerate(taus):
        kept, p, p_se, first, first_se, _, _ = _estimates(signal, d, tau)
        noise_kept, q, q_se, _, _, second, second_se = _estimates(noise, d, tau)
        # the counts come back as p̂·N in floating point: equal to the whole counts to rounding
        assert out.kept[i] == pytest.approx(kept, rel=1e-12)
        assert out.noise_kept[i] == pytest.approx(noise_kept, rel=1e-12)
        got = (out.keep_probability[i], out.keep_probability_se[i], out.noise_keep_probability[i],
               out.noise_keep_probability_se[i], out.mean_kept[i], out.mean_kept_se[i], out.noise_power_kept[i],
               out.noise_power_kept_se[i])
        np.testing.assert_allclose(got, (p, p_se, q, q_se, first / s, first_se / s, second * d, second_se * d),
                                   rtol=1e-12, atol=0)


def test_masked_update_samples_from_its_documented_runs():
    """masked_update_samples is one simulate_mask run per SNR (seed + i): the kept count, keep probability, mean of
    m ḡ, their standard errors and the standard deviation √(E[m ḡ²] − E[m ḡ]²), written out from each run's sums,
    and the SNRs as passed."""
    snr = [0.0, 1.0, -0.5]
    out = am.masked_update_samples(4, 0.2, snr, 600, seed=2)
    assert _same(out.snr, snr)
    for i, x in enumerate(snr):
        kept, p, p_se, first, first_se, second, _ = _estimates(am.simulate_mask(4, 600, x, seed=2 + i), 4, 0.2)
        assert out.kept[i] == pytest.approx(kept, rel=1e-12)
        np.testing.assert_allclose((out.keep_probability[i], out.keep_probability_se[i], out.mean[i],
                                    out.mean_se[i], out.std[i]),
                                   (p, p_se, first, first_se, math.sqrt(second - first ** 2)), rtol=1e-12, atol=0)


def test_masked_norm_samples_from_its_runs_on_one_stream():
    """masked_norm_samples runs simulate_mask once per d on one continued stream; n times the mean of m ḡ² (t = ⌈ρd⌉
    agreeing signs, so T = 2t − d) and of ḡ², with their standard errors, written out from each run's sums, and the
    numbers of environments as passed."""
    ds, rho, n_params, n = [3, 6], 0.8, 100, 700
    out = am.masked_norm_samples(ds, rho, n_params, n, seed=1)
    assert _same(out.n_envs, ds)
    rng = np.random.default_rng(1)
    for i, d in enumerate(ds):
        sim = am.simulate_mask(d, n, seed=rng)
        t = math.ceil(rho * d - 1e-9)
        *_, masked, masked_se = _estimates(sim, d, (2 * t - d) / d)
        *_, plain, plain_se = _estimates(sim, d, 0.0)
        np.testing.assert_allclose((out.masked[i], out.masked_se[i], out.unmasked[i], out.unmasked_se[i]),
                                   n_params * np.array([masked, masked_se, plain, plain_se]), rtol=1e-12, atol=0)


def test_simulate_temporal_mask_standard_errors_and_its_first_step():
    """simulate_temporal_mask's standard errors from its own fields: √(variance / n) for the mean, √(p(1 − p)/n) for
    the keep frequency. At the first step a_1 = (1 − β)·sign(g_1) takes two values ±c, so the mean is c(2k/n − 1)
    for a whole count k, the variance is c² − mean², the fourth central moment makes the variance's standard error
    2·abs(mean)·√(variance / n), and with (1 − β)² < τ <= 1 − β every chain is kept at step 1 and the chains whose
    first two signs differ are dropped at step 2."""
    beta, tau, n = 0.5, 0.4, 999
    sim = am.simulate_temporal_mask(0.3, beta, tau, 5, n, seed=3)
    assert sim.n_chains == n
    np.testing.assert_allclose(sim.ema_mean_se, np.sqrt(sim.ema_variance / n), rtol=1e-12, atol=0)
    p = sim.keep_probability
    np.testing.assert_allclose(sim.keep_probability_se, np.sqrt(p * (1 - p) / n), rtol=1e-12, atol=0)
    counts = p * n
    assert np.all(np.abs(counts - np.round(counts)) < 1e-9)
    c, mean = 1 - beta, sim.ema_mean[0]
    k = n * (mean / c + 1) / 2
    assert abs(k - round(k)) < 1e-9 and 0 < round(k) < n
    assert sim.ema_variance[0] == pytest.approx(c * c - mean * mean, rel=1e-12)
    # the fourth central moment is a difference of O(c⁴) terms: a few roundings of c⁴ on a result of that order
    assert sim.ema_variance_se[0] == pytest.approx(2 * abs(mean) * math.sqrt(sim.ema_variance[0] / n), rel=1e-10)
    assert p[0] == 1.0 and 0.0 < p[1] < 1.0


# ================================================================================================ theorem 2 reduction
def test_theorem2_hypotheses_is_the_maximum_over_seeds_and_readings_from_first_step():
    """theorem2_hypotheses, on a hand-made run record: per method and layer, the maximum over the seeds and the
    readings at steps >= first_step of each quantity, written as a loop; the method and layer names passed through
    in order."""
    pytest.importorskip("torch")
    from dynamics.spherical import torch_experiments as ste

    rng = np.random.default_rng(0)
    shape = (2, 3, 4, 2)  # (method, seed, reading, layer)
    training = ste.AdamVariantsTraining(
        ("SGD-M", "Adam"), np.array([0, 3]), rng.random((2, 3, 2)), rng.random((2, 3, 2)), ("layer1", "layer2"),
        np.array([1, 2, 3, 4]), rng.random(shape), rng.random(shape), rng.random(shape), rng.random(shape))
    worst = ste.theorem2_hypotheses(training, first_step=2)
    assert worst.optimizers == ("SGD-M", "Adam") and worst.layer_names == ("layer1", "layer2")
    assert worst.first_step == 2
    for field in ("max_radial_term", "max_tangent_step", "max_tan2_gradient"):
        values = getattr(training, field)
        loop = np.array([[max(values[m, s, r, layer] for s in range(3) for r in range(1, 4)) for layer in range(2)]
                         for m in range(2)])
        assert np.array_equal(getattr(worst, field), loop)


# ================================================================================================ input echoes: torch
def test_and_mask_torch_experiments_echo_their_thresholds_and_seeds(no_disk_cache):
    """learning_signals_at_init, train_noisy_labels, train_spiral_memorisation and train_environment_sweep return
    the thresholds of their config and the seeds passed, in order (train_spiral_memorisation's τ is the first entry
    of each (τ, l1, l2) setting)."""
    pytest.importorskip("torch")
    from dynamics.and_mask import torch_experiments as te

    signals = am.LearningSignalsConfig(agreement_thresholds=(0.5, 0.0, 0.25), n_envs=4, n_samples_per_env=8,
                                       hidden=(4,))
    run = te.learning_signals_at_init(signals, (0, 1), dtype="float64", device="cpu")
    assert _same(run.agreement_thresholds, signals.agreement_thresholds)
    noisy = am.NoisyLabelsConfig(agreement_thresholds=(0.8, 0.3), shuffled_fraction=0.5, n_train=16, dim=4,
                                 hidden=(4,), batch_size=8, n_steps=2, n_test=8, record_every=2)
    run = te.train_noisy_labels(noisy, (4, 2), device="cpu")
    assert _same(run.agreement_thresholds, noisy.agreement_thresholds) and _same(run.seeds, (4, 2))
    spiral = am.SpiralMemorisationConfig(settings=((0.7, 0.0, 0.0), (0.3, 0.0, 0.0)), n_envs=2,
                                         n_samples_per_env=8, hidden=(4,), n_steps=2, n_test=8, record_every=2)
    run = te.train_spiral_memorisation(spiral, (5, 1), device="cpu")
    assert _same(run.agreement_thresholds, [0.7, 0.3]) and _same(run.seeds, (5, 1))
    sweep = am.EnvironmentSweepConfig(n_envs=(2, 4), n_total=16, hidden=(4,), n_steps=2, n_test=8)
    run = te.train_environment_sweep(sweep, (3, 1), device="cpu")
    assert _same(run.seeds, (3, 1)) and _same(run.n_envs, (2, 4))


def test_linear_patchwork_learning_rates_are_the_decayed_schedule():
    """train_linear_patchwork multiplies the learning rate by lr_decay before every step (the authors' notebook):
    the recorded rates are lr₀·decay^(i + 1), i = 0..n_iters, from the closed form."""
    pytest.importorskip("torch")
    from dynamics.and_mask.torch_training import train_linear_patchwork

    run = train_linear_patchwork("and_mask", (0, 1), learning_rate=0.3, lr_decay=0.9, n_iters=5, device="cpu")
    expected = 0.3 * 0.9 ** np.arange(1, 7)
    assert run.learning_rates.shape == (6,)
    np.testing.assert_allclose(run.learning_rates, expected, rtol=1e-14, atol=0)


_PARITY = spur.ParityTrainingConfig(task=spur.ParityTaskConfig(n_train=60, n_test=40, n_core=3, n_noise=4),
                                    width=4, depth=2, batch_size=30, epoch_cap=1, record_every=1,
                                    n_attribution_inputs=10, dtype="float64")


def test_parity_trainers_echo_their_seeds_and_learning_rates(no_disk_cache):
    """parity_training_runs, width_lr_sweep, intervention_runs and parity_lr_sweep return the seeds passed (and
    width_lr_sweep the learning rates passed), in order."""
    pytest.importorskip("torch")
    from dynamics.spurious import torch_experiments as ste
    from dynamics.spurious import torch_training as stt

    runs = ste.parity_training_runs([0.1, 0.2], [2, 0], _PARITY)
    assert _same(runs.seeds, (2, 0)) and _same(runs.learning_rates, (0.1, 0.2))
    sweep = ste.width_lr_sweep([1, 0], _PARITY, widths=(3,), learning_rates=(0.1, 0.6))
    assert _same(sweep.seeds, (1, 0)) and _same(sweep.learning_rates, (0.1, 0.6))
    interventions = ste.intervention_runs([1, 0], spur.InterventionConfig(training=_PARITY), names=("low lr",))
    assert _same(interventions.seeds, (1, 0))
    config = spur.ParitySweepConfig(task=spur.ParityTaskConfig(n_train=60, n_test=40), width=4, epoch_cap=1,
                                    n_activation_inputs=10)
    lr_sweep = stt.parity_lr_sweep([0.3], [1, 0], config)
    assert _same(lr_sweep.seeds, (1, 0))


def test_balancing_trainers_echo_their_seeds_and_the_replay_its_validation_accuracies(no_disk_cache):
    """train_balancing_methods returns the seeds passed in order; replay_balancing_toy, which retrains the numpy
    trainer's run in torch, reproduces the run's per-epoch validation group accuracies exactly (its weights agree
    to rounding, far inside any accuracy step)."""
    pytest.importorskip("torch")
    from dynamics.spurious import torch_balancing as tb
    from dynamics.spurious import torch_training as stt

    config = spur.BalancingToyConfig(n_samples=40, n_noise=6, n_epochs=2, learning_rate=1e-3, batch_size=10)
    methods = tb.train_balancing_methods(("erm",), (2, 0), config, device="cpu")
    assert _same(methods.seeds, (2, 0))
    splits = spur.make_balancing_toy_splits(60, 12, seed=4)
    # a step large enough that the accuracies change from epoch to epoch (rows in a wrong order would show)
    config = spur.BalancingToyConfig(learning_rate=0.3, momentum=0.9, weight_decay=0.05, batch_size=16, n_epochs=4)
    run = spur.train_balancing_toy(*splits, "erm", config, seed=3, return_orders=True)
    assert not np.array_equal(run.val_group_acc[0], run.val_group_acc[1])
    replay = stt.replay_balancing_toy(*splits, run, "erm", config, device="cpu")
    assert np.array_equal(replay.val_group_acc, run.val_group_acc)


def test_two_moons_torch_experiments_echo_their_settings_and_seeds(no_disk_cache):
    """The torch train_two_moons returns its settings and seeds in order, moons_regularisers its seeds, and
    moons_margins the cap of its config."""
    pytest.importorskip("torch")
    from dynamics.starvation import torch_experiments as ste
    from dynamics.starvation import torch_training as stt

    runs = (gs.MoonsRun("a", -0.1, 0.0), gs.MoonsRun("b", 0.1, 0.006))
    out = stt.train_two_moons(gs.TwoMoonsConfig(n_steps=2, hidden=4, record_every=1, runs=runs), seeds=(3, 1),
                              device="cpu")
    assert out.runs == runs and tuple(out.seeds) == (3, 1)
    regularisers = (ste.Regulariser("one layer", 0.0, 0.0, False, 0.0, 0.0, 1, 1),)
    config = gs.MoonsRegularisersConfig(regularisers=regularisers, n_steps=0, hidden=4, grid_size=10)
    out = ste.moons_regularisers(config, seeds=(1, 0), device="cpu")
    assert _same(out.seeds, (1, 0))
    config = gs.MoonsMarginsConfig(n_steps=2, hidden=4, cap=0.6, resolution=0.05, output_penalty=0.5)
    assert ste.moons_margins(config, seeds=(0,), device="cpu").cap == 0.6


def test_train_two_layer_against_numpy_gradient_descent():
    """The torch train_two_layer is full-batch gradient descent on ½‖Y − W32 W21 X‖²: its recorded weights against
    the numpy network_gd with Σ11 = XXᵀ and Σ31 = YXᵀ, at the steps 0, record_every, ..., n_steps."""
    pytest.importorskip("torch")
    from dynamics.linear_networks import torch_training as lt

    rng = np.random.default_rng(5)
    X, Y = rng.standard_normal((3, 6)), rng.standard_normal((2, 6))
    W21, W32 = 0.3 * rng.standard_normal((4, 3)), 0.3 * rng.standard_normal((2, 4))
    run = lt.train_two_layer(W21, W32, X, Y, 6, 0.02, record_every=2, device="cpu")
    ref = ln.network_gd(W21, W32, Y @ X.T, 6, 0.02, sigma11=X @ X.T, record_every=2)
    assert _same(run.steps, [0, 2, 4, 6]) and _same(ref.steps, run.steps)
    # six steps of O(1) products in two summation orders
    np.testing.assert_allclose(run.W21, ref.W21, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(run.W32, ref.W32, rtol=1e-12, atol=1e-14)
