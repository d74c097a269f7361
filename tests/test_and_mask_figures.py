"""Each AND-mask figure plots what dynamics.and_mask computes: its axes hold the data a fresh call returns (small
parameters keep these fast; the registry renders the defaults)."""
import math

import numpy as np
import pytest

from dynamics import and_mask as am
from figures import and_mask as figs


def test_fig1_paths_are_the_descent_runs():
    starts = ((-1.3, 1.2), (0.6, 0.7))
    fig = figs.fig1_landscapes(n_steps=3000, starts=starts, n_grid=41)
    left, middle = fig.axes[0], fig.axes[1]
    pooled = am.two_valley_descent(np.array(starts), "pooled", 0.02, 3000, record_every=10)
    masked = am.two_valley_descent(np.array(starts), "and_mask", 0.02, 3000, record_every=10)
    alone = am.two_valley_descent(np.array(starts), "env_a", 0.02, 3000, record_every=10)
    assert np.allclose(left.lines[0].get_xydata(), pooled.paths[0])
    assert np.allclose(left.lines[1].get_xydata(), masked.paths[0])
    assert np.allclose(left.lines[3].get_xydata(), masked.paths[1])
    assert np.allclose(middle.lines[1].get_xydata(), alone.paths[1])
    # the right panel holds GD on L_B alone from the same starts, as the paper's figure does
    alone_b = am.two_valley_descent(np.array(starts), "env_b", 0.02, 3000, record_every=10)
    assert np.allclose(fig.axes[2].lines[1].get_xydata(), alone_b.paths[1])
    # the masked run from (0.6, 0.7) never moves: its start is marked, and the legend says what the mark means
    stuck = next(line for line in left.lines if line.get_label() == "AND-masked GD: stuck at its start")
    assert np.allclose(stuck.get_xydata(), [starts[1]])


def test_fig3_mean_ellipses_are_level_sets_of_the_means():
    eps = 0.005
    fig = figs.fig3_ellipses(eps=eps)
    for ax, h in zip(fig.axes[:2], (0.505 * np.eye(2), am.karcher_mean(np.diag([0.01, 1.0]), np.diag([1.0, 0.01])))):
        contour = ax.collections[2]  # H_A, H_B, then the mean
        points = np.concatenate([p.vertices for p in contour.get_paths()])
        values = 0.5 * np.einsum("si,ij,sj->s", points, h, points)
        assert np.allclose(values, eps, rtol=2e-2)


def test_fig4_curves_are_the_closed_forms():
    fig = figs.fig4_masked_norm(d_max=20, n_repeats=3)
    ax = fig.axes[0]
    ds = np.arange(2, 21)
    norms = [am.expected_squared_norms(int(d), (2 * math.ceil(0.8 * d - 1e-9) - d) / d, 3000) for d in ds]
    assert np.allclose(ax.lines[0].get_xdata(), ds)
    assert np.allclose(ax.lines[0].get_ydata(), [n.unmasked for n in norms], rtol=1e-14)
    assert np.allclose(ax.lines[1].get_ydata(), [n.masked for n in norms], rtol=1e-14)
    bounds = [am.noise_masked_norm_bounds(int(d), math.ceil(0.8 * d - 1e-9), 3000).paper_chain for d in ds]
    assert np.allclose(ax.lines[2].get_ydata(), bounds, rtol=1e-14)


def test_keep_probability_map_holds_keep_probabilities():
    fig = figs.keep_probability_map(taus=(0.3,), d_max=50, snr_max=1.0)
    mesh = fig.axes[0].collections[0]
    ds = np.unique(np.round(np.geomspace(1, 50, 90)).astype(int))
    snrs = np.linspace(0.0, 1.0, 121)
    expected = np.array([am.keep_probability(int(d), 0.3, snrs) for d in ds]).T
    assert np.allclose(np.asarray(mesh.get_array()).reshape(expected.shape), expected, rtol=1e-14)
    dots, threshold = fig.axes[0].lines[:2]
    assert threshold.get_ydata()[0] == pytest.approx(am.threshold_snr(0.3))
    # each dot is where π(d, τ, s) = 1/2 at its whole d, and every d with a crossing has its dot
    d_dots, s_dots = dots.get_xdata(), dots.get_ydata()
    assert np.allclose([am.keep_probability(int(d), 0.3, s) for d, s in zip(d_dots, s_dots)], 0.5, atol=1e-9)
    crossing = [d for d in ds if am.keep_probability(int(d), 0.3, 0.0) < 0.5]
    assert list(d_dots) == crossing


def test_shortcut_task_bars_are_the_trained_accuracies():
    taus = (0.0, 1.0)
    fig = figs.shortcut_task(taus=taus, n_seeds=2, n_steps=30)
    tests = [[am.train_logistic_shortcut(am.make_logistic_shortcut(seed=j), tau, 0.5, 30).test_accuracy
              for j in range(2)] for tau in taus]
    heights = [bar.get_height() for bar in fig.axes[0].patches]
    assert np.allclose(heights, np.mean(tests, axis=1), rtol=1e-14)


def test_fig11_curves_are_the_patchwork_and_its_target():
    fig = figs.fig11_patchwork(n_points=101)
    ax = fig.axes[0]
    x = np.linspace(0.0, 1.0, 101)
    lines = {line.get_label(): line for line in ax.lines}
    assert np.array_equal(lines["target $f^*$"].get_ydata(), am.patchwork_target(x))
    star = next(line for label, line in lines.items() if label.startswith(r"$\theta^*$:"))
    tilde = next(line for label, line in lines.items() if label.startswith(r"$\tilde\theta^*$:"))
    assert np.array_equal(star.get_ydata(), am.patchwork_model(x, am.PATCHWORK_THETA_STAR))
    assert np.array_equal(tilde.get_ydata(), am.patchwork_model(x, am.PATCHWORK_THETA_TILDE))
    # the legend's losses are the environments' losses of each θ
    losses = am.patchwork_losses(am.PATCHWORK_THETA_TILDE)
    assert f"$L_A$ = {losses.loss_a:.4f}, $L_B$ = {losses.loss_b:.4f}" in tilde.get_label()
    # on environment A the two networks coincide; on B they part
    a, b = x < 0.5, x > 0.8
    assert np.allclose(star.get_ydata()[a], tilde.get_ydata()[a], atol=1e-9)
    assert np.all(np.abs(star.get_ydata()[b] - tilde.get_ydata()[b]) > 1.0)


def test_fig5_draws_the_data_set_and_boundaries_that_separate_it():
    fig = figs.fig5_dataset(seed=3, n_per_env=64)
    left, right = fig.axes
    data = am.make_spiral_dataset(n_envs=2, n_samples_per_env=64, dim_shortcut=2, n_test=400, seed=3)
    positive = data.train_labels[0] == 1
    assert np.array_equal(left.lines[0].get_xydata(), data.train_inputs[0][positive][:, :2])
    assert np.array_equal(right.lines[0].get_xydata(), data.test_inputs[:, 2:])
    boundaries = {line.get_label(): line for line in right.lines if "separates" in line.get_label()}
    assert len(boundaries) == 3

    def sides(line, env):  # the side of the line through 0 on which each example of env lies, times its label
        (x0, y0), (x1, y1) = line.get_xydata()
        normal = np.array([-(y1 - y0), x1 - x0])
        return set(np.sign(data.train_inputs[env, :, 2:] @ normal) * data.train_labels[env])

    a, b = (boundaries[f"boundary ⊥ $x_s$({name}): separates {name}"] for name in "AB")
    pooled = boundaries["pooled: separates A and B"]
    assert len(sides(a, 0)) == 1 and len(sides(b, 1)) == 1
    assert sides(pooled, 0) == sides(pooled, 1) and len(sides(pooled, 0)) == 1  # one side per class, in both
