"""The double-descent figures plot what dynamics.double_descent computes: each test builds a figure (small sizes
where it draws) and compares the data on its axes with a fresh call of the dynamics functions."""
import numpy as np
import pytest

import dynamics.double_descent as dd
from figures import double_descent as figs


def _line(ax, label):
    matches = [line for line in ax.get_lines() if line.get_label() == label]
    assert len(matches) == 1, (label, [line.get_label() for line in ax.get_lines()])
    return matches[0]


def _same(line, x, y, rtol=1e-12):
    assert np.allclose(line.get_xdata(), x, rtol=rtol, atol=0), line.get_label()
    assert np.allclose(line.get_ydata(), y, rtol=rtol, atol=1e-14), line.get_label()


def test_fast_slow_features_plots_the_bipartite_theory():
    fig = figs.fast_slow_features(n_samples=140, kappa=50.0)
    left, right = fig.axes
    steps = dd.analytic_steps()
    config = dict(n_samples=140, n_features=100, n_fast=70, kappa=50.0)
    _same(_line(left, "fast feature"), steps + 1,
          dd.bipartite_theory(steps, **config, freeze_slow_at=1e-3).generalization_error)
    _same(_line(left, "slow feature"), steps + 1,
          dd.bipartite_theory(steps, **config, freeze_fast_at=1e8).generalization_error)
    _same(_line(right, "both features"), steps + 1, dd.bipartite_theory(steps, **config).generalization_error)
    points = dd.phase_points(140, 100, 70)
    for ax in (left, right):
        assert np.allclose(_line(ax, "plateau $L_B$").get_ydata(), points.B.generalization_error)
        assert np.allclose(_line(ax, "$k_A + 1$ (point A)").get_xdata(), points.A.steps_at() + 1)
        assert {t.get_text() for t in ax.get_legend().get_texts()} >= {"plateau $L_B$", "$k_A + 1$ (point A)"}


def test_gd_vs_theory_plots_gd_trace_ridge_and_the_sources_convention():
    fig = figs.gd_vs_theory(kappas=(50.0,), n_seeds=3, seed=5)
    left, right = fig.axes
    steps = np.logspace(-3, 6, 100)
    data = dd.draw_teacher_student(150, 100, 60, 50.0, n_seeds=3, seed=5, n_test=1000)
    gd = dd.test_error(dd.gd_weights(data.X, data.y, steps), data).mean(0)
    trace = np.mean([dd.exact_gd_order_parameters(data.modulation.draw(i), data.X[i], steps).generalization_error
                     for i in range(3)], axis=0)
    _same(_line(left, "_gd kappa=50"), steps + 1, gd, rtol=1e-9)
    _same(_line(left, "_trace kappa=50"), steps + 1, trace, rtol=1e-9)
    ridge = dd.test_error(dd.ridge_weights(data.X, data.y, 2.0 / steps), data).mean(0)
    _same(_line(right, "_ridge kappa=50"), steps + 1, ridge, rtol=1e-9)
    # the source's convention: fast group at λ_eff = 2λ, slow group at 4λ
    approx = dd.bipartite_theory(steps, 150, 100, 60, 50.0, learning_rate=(0.5, 0.25)).generalization_error
    _same(_line(right, "_approximate kappa=50"), steps + 1, approx)
    assert len(fig.legends) == 1  # one legend, outside the axes


def test_decoupling_error_plots_gd_against_exact_and_approximate_theory():
    fig = figs.decoupling_error(kappas=(100.0,), n_seeds=3, seed=8)
    left, right = fig.axes
    steps = np.logspace(-3, 5, 90)
    data = dd.draw_teacher_student(150, 100, 70, 100.0, n_seeds=3, seed=8, n_test=1000)
    gd = dd.test_error(dd.gd_weights(data.X, data.y, steps), data).mean(0)
    trace = np.mean([dd.exact_gd_order_parameters(data.modulation.draw(i), data.X[i], steps).generalization_error
                     for i in range(3)], axis=0)
    eta = dd.inverse_max_eigenvalue_learning_rate(data.X)
    approx = dd.bipartite_theory(steps, 150, 100, 70, 100.0, learning_rate=float(eta.mean())).generalization_error
    for ax in (left, right):
        _same(_line(ax, "_gd kappa=100"), steps + 1, gd, rtol=1e-9)
    _same(_line(left, "_trace kappa=100"), steps + 1, trace, rtol=1e-9)
    _same(_line(right, "_approximate kappa=100"), steps + 1, approx, rtol=1e-9)


def test_phase_diagram_plots_trajectories_and_points():
    fig = figs.phase_diagram(kappas=(1.0, 30.0))
    left, right, _colorbar = fig.axes
    steps = dd.analytic_steps()
    for kappa in (1.0, 30.0):
        r = dd.bipartite_theory(steps, 110, 100, 70, kappa)
        _same(_line(left, f"_trajectory kappa={kappa:g}"), r.R, r.Q)
        _same(_line(right, figs._kappa_label(kappa)), steps + 1, r.generalization_error)
    R, Q = np.meshgrid(np.linspace(0, 1.05, 300), np.linspace(0, 1.3, 300))
    heat = np.asarray(left.collections[0].get_array()).reshape(R.shape)
    assert np.array_equal(heat, 1 - 2 * R + Q)  # the heat map is 2 L_G = 1 - 2R + Q
    points = dd.phase_points(110, 100, 70)
    for name in "ABC":
        point = getattr(points, name)
        _same(_line(left, f"_point {name}"), [point.R], [point.Q])
    legend = right.get_legend()
    assert legend is not None and legend.get_bbox_to_anchor().x0 > right.get_window_extent().x1 - 1  # outside


def test_ridge_time_heatmap_plots_the_grid_and_its_slices():
    fig = figs.ridge_time_heatmap(kappa=60.0)
    left, right, _colorbar = fig.axes
    steps = np.logspace(-3, 4, 300)
    code_lam = 10 ** -np.linspace(0.1, 8, 100)
    grid = dd.bipartite_theory(steps[:, None], 120, 100, 80, 60.0, noise_std=0.2,
                               weight_decay=4.0 * code_lam[None, :]).noisy_generalization_error
    assert np.allclose(np.asarray(left.collections[0].get_array()).reshape(grid.shape), grid, rtol=1e-12)
    for line, index in zip(right.get_lines(), (10, 30, -3)):
        _same(line, steps + 1, grid[:, index])
    assert left.get_title() == "(c)" and right.get_title() == "(d)"


def test_q_penalty_schedule_plots_both_runs_and_the_schedule():
    fig = figs.q_penalty_schedule(n_seeds=2, seed=3, n_steps=3000)
    ax, twin = fig.axes
    steps = np.unique(np.round(np.logspace(0, np.log10(3000), 300)).astype(int))
    data = dd.draw_teacher_student(120, 100, 70, 30.0, n_seeds=2, seed=3)
    schedule = dd.q_penalty_schedule(int(steps[-1]))
    without = np.mean([dd.exact_gd_order_parameters(data.modulation.draw(i), data.X[i], steps).generalization_error
                       for i in range(2)], axis=0)
    with_penalty = np.mean([dd.scheduled_gd_order_parameters(data.modulation.draw(i), data.X[i], steps, schedule)
                            .generalization_error for i in range(2)], axis=0)
    _same(_line(ax, "without regularization"), steps, without, rtol=1e-9)
    _same(_line(ax, "with Q regularization"), steps, with_penalty, rtol=1e-9)
    _same(_line(twin, "penalty $a_k$ (right axis)"), np.arange(1, steps[-1] + 1), schedule)
    assert "penalty $a_k$ (right axis)" in {t.get_text() for t in ax.get_legend().get_texts()}


@pytest.mark.parametrize("build", [figs.fast_slow_features, figs.phase_diagram, figs.ridge_time_heatmap])
def test_analytic_figures_render_with_their_defaults(build, tmp_path):
    fig = build()
    path = tmp_path / "figure.png"
    fig.savefig(path, dpi=40)
    assert path.stat().st_size > 1000
