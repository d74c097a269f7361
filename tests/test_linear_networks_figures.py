"""The linear-network figures plot what dynamics computes: each data line is compared with a fresh call.

Lines are found by their ``gid`` (set by figures/linear_networks.py); the figures are built with their default
parameters where that is fast, and with smaller simulations otherwise.
"""
import numpy as np
import pytest

from dynamics import linear_networks as ln
from dynamics import numerics as nx
from figures import linear_networks as figs
from figures.style import style_context


def _lines(ax):
    return {line.get_gid(): line for line in ax.lines if line.get_gid()}


def _legend_texts(ax):
    return [text.get_text() for text in ax.get_legend().get_texts()]


def _build(fn, **kwargs):
    with style_context():
        return fn(**kwargs)


def test_mode_sigmoids_plot_mode_strength_and_half_times():
    fig = _build(figs.mode_sigmoids)
    ax = fig.axes[0]
    lines = _lines(ax)
    for s in (3.0, 2.0, 1.0, 0.5):
        curve = lines[f"sigmoid:{s:g}"]
        np.testing.assert_allclose(curve.get_ydata(), ln.mode_strength(curve.get_xdata(), s, 1e-3), rtol=1e-14)
        dot = lines[f"half_time:{s:g}"]
        assert dot.get_xdata()[0] == pytest.approx(ln.half_learning_time(s, 1e-3), rel=1e-14)
        assert dot.get_ydata()[0] == s / 2
    dotted = [line for line in ax.lines if line.get_linestyle() == ":" and line.get_label().startswith("_")]
    assert sorted(line.get_ydata()[0] for line in dotted) == [0.5, 1.0, 2.0, 3.0]
    assert any("u = s" in text for text in _legend_texts(ax))  # the dotted limits are in the legend


def test_mode_sigmoids_redraw_with_other_parameters():
    fig = _build(figs.mode_sigmoids, singular_values=(1.5,), u0=0.01, tau=2.0, t_max=5.0)
    curve = _lines(fig.axes[0])["sigmoid:1.5"]
    assert curve.get_xdata()[-1] == 5.0
    np.testing.assert_allclose(curve.get_ydata(), ln.mode_strength(curve.get_xdata(), 1.5, 0.01, 2.0), rtol=1e-14)


def test_phase_plane_plots_unit_direction_field_and_integrated_trajectories():
    fig = _build(figs.phase_plane)
    ax = fig.axes[0]
    quiver = next(c for c in ax.collections if c.get_gid() == "direction_field")
    a, b = quiver.X, quiver.Y
    velocity = ln.scalar_mode_velocity(a, b, 1.0)
    speed = np.hypot(*velocity)
    moving = speed > 0  # fixed points (the saddle, grid points on ab = s) carry no arrow
    assert moving.sum() >= moving.size - 3
    np.testing.assert_allclose(quiver.U[moving], velocity.a_velocity[moving] / speed[moving], atol=1e-12)
    np.testing.assert_allclose(quiver.V[moving], velocity.b_velocity[moving] / speed[moving], atol=1e-12)
    # the caption says unit arrows
    np.testing.assert_allclose(np.hypot(quiver.U, quiver.V)[moving], 1.0, atol=1e-12)
    lines = _lines(ax)
    t = np.linspace(0.0, 12.0, 400)
    for a0, b0 in ((0.1, -0.6), (0.6, 0.1)):
        line = lines[f"trajectory:{a0:g},{b0:g}"]
        flow = ln.scalar_mode_flow(t, 1.0, a0, b0)
        np.testing.assert_allclose(line.get_xdata(), flow.a, atol=1e-12)
        np.testing.assert_allclose(line.get_ydata(), flow.b, atol=1e-12)
    for sign in ("+1", "-1"):
        branch = lines[f"minimum_manifold:{sign}"]
        np.testing.assert_allclose(branch.get_xdata() * branch.get_ydata(), 1.0, rtol=1e-14)


def test_phase_plane_caption_says_arrows_are_normalised():
    from figures import registry

    caption = registry.REGISTRY["linear_networks.phase_plane"].caption
    assert "normalised to unit length" in caption


def test_mp_and_generalization_plot_the_library_curves():
    fig = _build(figs.mp_and_generalization)
    left, right = fig.axes
    lines = _lines(left)
    for alpha in (0.5, 1.0, 2.0):
        line = lines[f"mp_density:{alpha:g}"]
        np.testing.assert_allclose(line.get_ydata(), nx.mp_density(line.get_xdata(), alpha), rtol=1e-14)
    lines = _lines(right)
    for t in (1.0, 10.0, 100.0, 1000.0):
        line = lines[f"E_g:t={t:g}"]
        expected = [ln.generalization_curve(t, a).generalization_error for a in line.get_xdata()]
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-14)
    below, above = lines["E_g:t=inf:below"], lines["E_g:t=inf:above"]
    assert below.get_xdata().max() < 1.0 < above.get_xdata().min()  # the t = ∞ curve is broken at α = 1
    for line in (below, above):
        expected = [ln.asymptotic_errors(a).generalization_error for a in line.get_xdata()]
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-14)
    # the grid is refined towards α = 1, where the curves peak
    grid = lines["E_g:t=1000"].get_xdata()
    assert np.sum(np.abs(grid - 1.0) < 0.05) >= 30 and 1.0 in grid
    # the divergence at α = 1 is marked by a labelled vertical line
    vertical = [line for line in right.lines if np.all(np.asarray(line.get_xdata()) == 1.0)]
    assert vertical and any("infty" in text and "alpha = 1" in text for text in _legend_texts(right))
    best = lines["E_g:t_opt"]
    expected = [ln.generalization_curve(ln.optimal_stopping_time(a), a).generalization_error
                for a in best.get_xdata()[::20]]
    np.testing.assert_allclose(best.get_ydata()[::20], expected, rtol=1e-14)
    # every dashed or dotted line is in the legend
    texts = _legend_texts(right)
    assert any("t = \\infty" in text for text in texts) and any("early stopping" in text for text in texts)
    # the axes hold the t = 1000 peak
    assert right.get_ylim()[1] >= ln.generalization_curve(1000.0, 1.0).generalization_error


def test_mp_and_generalization_redraws_at_other_noise():
    fig = _build(figs.mp_and_generalization, times=(10.0,), noise_std=0.3)
    line = _lines(fig.axes[1])["E_g:t=10"]
    expected = [ln.generalization_curve(10.0, a, noise_std=0.3).generalization_error for a in line.get_xdata()]
    np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-14)


def test_theory_vs_simulation_plots_flow_gd_and_students():
    kwargs = dict(n_steps=1000, learning_rate=1e-2, n_students=3, n_features=40, seed=3)
    fig = _build(figs.theory_vs_simulation, **kwargs)
    left, right = fig.axes
    lines = _lines(left)
    s = np.array([4.0, 3.0, 2.0, 1.5, 1.0, 0.7, 0.5, 0.3])
    rng = np.random.default_rng(3)
    task = ln.mode_task(s, 16, 12, seed=rng)
    X = ln.whitened_inputs(16, 64, seed=rng)
    init = ln.decoupled_init(task.U, task.V, n_hidden=32, a0=1e-3, seed=rng)
    flow = ln.network_flow(*init, task.correlation, lines["matrix_flow:0"].get_xdata())
    u_flow = ln.mode_strengths(flow.W21, flow.W32, task.U, task.V)
    gd = ln.network_gd(*init, task.correlation, 1000, 1e-2, sigma11=X @ X.T, record_every=20)
    u_gd = ln.mode_strengths(gd.W21, gd.W32, task.U, task.V)
    for k in range(8):
        closed = lines[f"closed_form:{k}"]
        np.testing.assert_allclose(closed.get_ydata(), ln.mode_strength(closed.get_xdata(), s[k], 1e-6), rtol=1e-14)
        np.testing.assert_allclose(lines[f"matrix_flow:{k}"].get_ydata(), u_flow[:, k], atol=1e-12)
        np.testing.assert_allclose(lines[f"gd:{k}"].get_xdata(), ln.gd_flow_time(gd.steps, 1e-2))
        # torch and numba GD agree to round-off; either may have drawn the crosses
        np.testing.assert_allclose(lines[f"gd:{k}"].get_ydata(), u_gd[:, k], atol=1e-10)
    assert any(text in ("torch full-batch GD", "full-batch GD (numba; torch not installed)")
               for text in _legend_texts(left))
    assert left.get_xlabel() == r"$t/\tau = k\eta$"
    lines = _lines(right)
    for alpha in (0.5, 1.0, 2.0):
        theory = lines[f"theory:{alpha:g}"]
        np.testing.assert_allclose(theory.get_ydata(),
                                   ln.generalization_curve(theory.get_xdata(), alpha).generalization_error, rtol=1e-14)
    steps = np.unique(np.geomspace(1, 200.0 / 0.05, 25).astype(int))
    for alpha in (0.5, 1.0, 2.0):
        sims = [ln.generalization_error(inst, ln.student_weights_gd(inst, steps, 0.05))
                for inst in (ln.draw_student(40, int(round(alpha * 40)), seed=rng) for _ in range(3))]
        simulated = lines[f"simulated:{alpha:g}"]
        np.testing.assert_allclose(simulated.get_xdata(), ln.gd_flow_time(steps, 0.05))
        np.testing.assert_allclose(simulated.get_ydata(), np.mean(sims, axis=0), rtol=1e-12)
