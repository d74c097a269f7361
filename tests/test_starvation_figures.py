"""The starvation figures plot what dynamics.starvation computes: each test rebuilds a figure (at small sizes where
its keyword parameters allow) and compares the data held by its axes with a fresh call of the library."""

import numpy as np
import pytest

import dynamics.starvation as gs
from figures import starvation as figs


def _xy(line):
    return np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)


def test_toy_trajectories_hold_the_gradient_descent_paths():
    fig = figs.toy_trajectories(gs.TOY._replace(s1_values=(2.0, 6.0)), n_steps=300)
    U = gs.coupling_matrix(0.5)
    primal_ax, dual_ax, sd_ax = fig.axes
    for k, s1 in enumerate((2.0, 6.0)):
        s = np.array([s1, 2.0])
        primal = gs.primal_gd_z(U, s, 300, learning_rate=0.05, weight_decay=0.01).z
        dual = gs.dual_gd(U, s, 300, learning_rate=3e-6, weight_decay=0.01).z
        sd = gs.primal_gd_z(U, s, 300, learning_rate=0.05, output_penalty=0.002).z
        for ax, path in ((primal_ax, primal), (dual_ax, dual), (sd_ax, sd)):
            x, y = _xy(ax.lines[2 * k])
            np.testing.assert_allclose(x, np.abs(path[:, 0]), rtol=1e-14)
            np.testing.assert_allclose(y, np.abs(path[:, 1]), rtol=1e-14)
        star_x, star_y = _xy(primal_ax.lines[2 * k + 1])
        np.testing.assert_allclose([star_x[0], star_y[0]], np.abs(gs.feature_response(U, s, 0.01)), rtol=1e-14)
        star_x, star_y = _xy(sd_ax.lines[2 * k + 1])
        np.testing.assert_allclose([star_x[0], star_y[0]], np.abs(gs.sd_fixed_point(U, 0.002).z), rtol=1e-14)


def test_legendre_holds_the_loss_and_its_duals():
    omegas = (-2.0, 0.5, 2.5)
    fig = figs.legendre(omegas=omegas)
    left, right = fig.axes
    omega, loss = _xy(left.lines[0])
    np.testing.assert_allclose(loss, gs.primal_loss("cross_entropy", omega), rtol=1e-14)
    for k, w0 in enumerate(omegas):
        alpha0 = gs.dual_maximiser("cross_entropy", w0)
        _, intercept = _xy(left.lines[1 + 3 * k + 1])
        np.testing.assert_allclose(intercept, gs.binary_entropy(alpha0), rtol=1e-14)
        alpha, dual = _xy(right.lines[3 * k])
        np.testing.assert_allclose(dual, gs.dual_objective("cross_entropy", alpha, w0), rtol=1e-14)
        x, y = _xy(right.lines[3 * k + 1])
        np.testing.assert_allclose([x[0], y[0]], [alpha0, gs.primal_loss("cross_entropy", w0)], rtol=1e-12)
    intercepts = {gs.binary_entropy(gs.dual_maximiser("cross_entropy", w)) for w in omegas}
    assert len(set(omegas)) == 3 and len(intercepts) == 3  # no two marks on top of each other


def test_starvation_map_holds_the_sweep():
    deltas = (-0.5, 0.1, 0.5)
    fig = figs.starvation_map(deltas=deltas, n_grid=30)
    left, right = fig.axes[:2]
    s1, delta_grid = np.linspace(0.5, 6.0, 30), np.linspace(-0.95, 0.95, 30)
    z = gs.starvation_map(s1, delta_grid)
    at_equal = gs.starvation_map([2.0], delta_grid)[:, 0, 1]
    change = np.abs(z[..., 1]) - np.abs(at_equal)[:, None]
    np.testing.assert_allclose(np.asarray(left.collections[0].get_array()).reshape(change.shape), change, rtol=1e-14)
    for k, delta in enumerate(deltas):
        x, exact = _xy(right.lines[3 * k])
        np.testing.assert_allclose(x, s1)
        np.testing.assert_allclose(exact, gs.starvation_map(s1, [delta])[0, :, 1], rtol=1e-14)
        _, approx = _xy(right.lines[3 * k + 1])
        np.testing.assert_allclose(approx, gs.starvation_map(s1, [delta], exact=False)[0, :, 1], rtol=1e-14)
        _, sd = _xy(right.lines[3 * k + 2])
        np.testing.assert_allclose(sd, gs.sd_fixed_point(gs.coupling_matrix(delta), 0.01).z[1], rtol=1e-14)
    assert right.get_legend() is not None and "Eq 10" in [t.get_text() for t in right.get_legend().get_texts()]


def test_approximation_error_holds_the_gaps():
    fig = figs.approximation_error()
    left, right = fig.axes
    c, gap = _xy(left.lines[0])
    s = np.sqrt((c - 1.0) * 0.1)
    exact, approx = gs.exact_uncoupled_response(s, 0.1).alpha, gs.lambert_fixed_point(s, 0.1).alpha
    np.testing.assert_allclose(gap, (approx - exact) / exact, rtol=1e-12)
    deltas, first = _xy(right.lines[1])
    strengths = np.sqrt([9.0, 4.0])
    expected = [np.abs(gs.first_order_response(strengths, 0.1, d)
                       - gs.feature_response(gs.coupling_matrix(d), strengths, 0.1, exact=False)).max() for d in deltas]
    np.testing.assert_allclose(first, expected, rtol=1e-12)
    _, reference = _xy(right.lines[2])
    assert np.all(reference > first)  # the δ² reference line lies above the data, not on it


def test_two_moons_holds_the_compiled_training():
    fig = figs.two_moons(n_steps=20, seeds=(0, 1), hidden=16)
    result = gs.train_two_moons(gs.TwoMoonsConfig(n_steps=20, hidden=16, record_every=50), (0, 1))
    panels = fig.axes
    for k in range(3):
        X = result.data[2 * k].X
        shown = np.concatenate([c.get_offsets() for c in panels[k].collections if hasattr(c, "get_offsets")
                                and len(c.get_offsets()) > 1])
        np.testing.assert_allclose(np.sort(shown, axis=0), np.sort(X, axis=0), rtol=1e-14)
        low, high = panels[k].get_ylim()
        assert low <= X[:, 1].min() and X[:, 1].max() <= high  # the moons' tips are inside the panel
    z = result.z.mean(axis=2)
    for k in range(3):
        steps, z1 = _xy(panels[3].lines[2 * k])
        np.testing.assert_array_equal(steps, result.steps)
        np.testing.assert_allclose(z1, z[:, k, 1], rtol=1e-12)
        _, z6 = _xy(panels[3].lines[2 * k + 1])
        np.testing.assert_allclose(z6, z[:, k, 6], rtol=1e-12)
