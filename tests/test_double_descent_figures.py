"""The double-descent figures plot what dynamics.double_descent computes: each test builds a figure (small sizes
where it draws) and compares the data on its axes with a fresh call of the dynamics functions; the Fig 4.4 regression
at the end holds the figure's extrema, plateaus and largest Q against an independent route (the equations retyped,
scalar minimisation, the log-time ODE and the closed-form points)."""
import numpy as np
import pytest
from scipy import optimize

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
    problem = dd.TeacherStudentProblem(n_samples=140, n_features=100, n_fast=70, kappa=50.0)
    _same(_line(left, "fast feature"), steps + 1,
          dd.bipartite_theory(steps, problem, freeze_slow_at=1e-3).generalization_error)
    _same(_line(left, "slow feature"), steps + 1,
          dd.bipartite_theory(steps, problem, freeze_fast_at=1e8).generalization_error)
    _same(_line(right, "both features"), steps + 1, dd.bipartite_theory(steps, problem).generalization_error)
    points = dd.phase_points(140, 100, 70)
    for ax in (left, right):
        assert np.allclose(_line(ax, "plateau $L_B$").get_ydata(), points.B.generalization_error)
        assert np.allclose(_line(ax, "$k_A + 1$ (point A)").get_xdata(), points.A.steps_at() + 1)
        assert {t.get_text() for t in ax.get_legend().get_texts()} >= {"plateau $L_B$", "$k_A + 1$ (point A)"}


def test_gd_vs_theory_plots_gd_trace_ridge_and_the_sources_convention():
    fig = figs.gd_vs_theory(kappas=(50.0,), n_seeds=3, seed=5)
    left, right = fig.axes
    steps = np.logspace(-3, 6, 100)
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(150, 100, 60, 50.0), n_seeds=3, seed=5, n_test=1000)
    gd = dd.test_error(dd.gd_weights(data.X, data.y, steps), data).mean(0)
    trace = np.mean([dd.exact_gd_order_parameters(data.modulation.draw(i), data.X[i], steps).generalization_error
                     for i in range(3)], axis=0)
    _same(_line(left, "_gd kappa=50"), steps + 1, gd, rtol=1e-9)
    _same(_line(left, "_trace kappa=50"), steps + 1, trace, rtol=1e-9)
    ridge = dd.test_error(dd.ridge_weights(data.X, data.y, 2.0 / steps), data).mean(0)
    _same(_line(right, "_ridge kappa=50"), steps + 1, ridge, rtol=1e-9)
    # the source's convention: fast group at λ_eff = 2λ, slow group at 4λ
    approx = dd.bipartite_theory(steps, dd.TeacherStudentProblem(150, 100, 60, 50.0),
                                 learning_rate=(0.5, 0.25)).generalization_error
    _same(_line(right, "_approximate kappa=50"), steps + 1, approx)
    assert len(fig.legends) == 1  # one legend, outside the axes


def test_decoupling_error_plots_gd_against_exact_and_approximate_theory():
    fig = figs.decoupling_error(kappas=(100.0,), n_seeds=3, seed=8)
    left, right = fig.axes
    steps = np.logspace(-3, 5, 90)
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(150, 100, 70, 100.0), n_seeds=3, seed=8, n_test=1000)
    gd = dd.test_error(dd.gd_weights(data.X, data.y, steps), data).mean(0)
    trace = np.mean([dd.exact_gd_order_parameters(data.modulation.draw(i), data.X[i], steps).generalization_error
                     for i in range(3)], axis=0)
    eta = dd.inverse_max_eigenvalue_learning_rate(data.X)
    approx = dd.bipartite_theory(steps, dd.TeacherStudentProblem(150, 100, 70, 100.0),
                                 learning_rate=float(eta.mean())).generalization_error
    for ax in (left, right):
        _same(_line(ax, "_gd kappa=100"), steps + 1, gd, rtol=1e-9)
    _same(_line(left, "_trace kappa=100"), steps + 1, trace, rtol=1e-9)
    _same(_line(right, "_approximate kappa=100"), steps + 1, approx, rtol=1e-9)


def test_phase_diagram_plots_trajectories_and_points():
    fig = figs.phase_diagram(kappas=(1.0, 30.0))
    left, right, _colorbar = fig.axes
    steps = dd.analytic_steps()
    for kappa in (1.0, 30.0):
        r = dd.bipartite_theory(steps, dd.TeacherStudentProblem(110, 100, 70, kappa))
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
    grid = dd.bipartite_theory(steps[:, None], dd.TeacherStudentProblem(120, 100, 80, 60.0, noise_std=0.2),
                               weight_decay=4.0 * code_lam[None, :]).noisy_generalization_error
    assert np.allclose(np.asarray(left.collections[0].get_array()).reshape(grid.shape), grid, rtol=1e-12)
    for line, index in zip(right.get_lines(), (10, 30, -3)):
        _same(line, steps + 1, grid[:, index])
    assert left.get_title() == "(c)" and right.get_title() == "(d)"


def test_q_penalty_schedule_plots_both_runs_and_the_schedule():
    fig = figs.q_penalty_schedule(n_seeds=2, seed=3, n_steps=3000)
    ax, twin = fig.axes
    steps = np.unique(np.round(np.logspace(0, np.log10(3000), 300)).astype(int))
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(120, 100, 70, 30.0), n_seeds=2, seed=3)
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


# ----------------------------------------------------------------------------------------------------
# Figure regression of Fig 4.4 (phase_diagram): the extrema, plateaus and the largest Q that the figure shows, held
# against an independent route: Eqs 4.2.11–4.2.16 retyped here in plain numpy, with each extremum refined by a scalar
# minimisation in log k (scipy), the log-time ODE of the library (bipartite_theory_ode) confirming the retyped values
# there, and the closed-form points A and B written out. Tolerances as for the source's figures: 1e−3 on values,
# ±10% on locations in x = k + 1 (the grid has 300 points over 11 decades).
# ----------------------------------------------------------------------------------------------------

def _approximate_theory(steps, kappa, n=110, d=100, p=70, eta=0.25):
    """R and Q of the approximate bipartite theory, Eqs 4.2.11–4.2.16 (σ_ε = 0, λ = 0), written out again."""
    steps = np.asarray(steps, dtype=float)
    lam_eff = 1.0 / (eta * steps)
    R, b, a = [], [], []
    for size, sigma2 in ((p, 1.0), (d - p, 1.0 / kappa ** 2)):
        alpha, lam = n / size, (d / size) * lam_eff / sigma2
        root = 0.5 * (1.0 + alpha + lam + np.sqrt((1.0 + alpha + lam) ** 2 - 4.0 * alpha))
        a.append(root)
        R.append(n / (root * d))
        b.append(alpha / (root ** 2 - alpha))
    c1 = 1.0 - 2.0 * R[1] - (2.0 - a[0]) / a[0] * n / d
    c2 = 1.0 - 2.0 * R[0] - (2.0 - a[1]) / a[1] * n / d
    Q1 = (b[0] * b[1] * c2 + b[0] * c1) / (1.0 - b[0] * b[1])
    Q2 = (b[0] * b[1] * c1 + b[1] * c2) / (1.0 - b[0] * b[1])
    return R[0] + R[1], Q1 + Q2


def _error(steps, kappa):
    R, Q = _approximate_theory(steps, kappa)
    return 0.5 * (1.0 - 2.0 * R + Q)


def _grid_extrema(y):
    """Indices of the interior strict local minima and maxima of a sampled curve (steps within 1e−12 are ties)."""
    minima = [i for i in range(1, y.size - 1) if y[i] < y[i - 1] - 1e-12 and y[i] < y[i + 1] - 1e-12]
    maxima = [i for i in range(1, y.size - 1) if y[i] > y[i - 1] + 1e-12 and y[i] > y[i + 1] + 1e-12]
    return minima, maxima


def _refine(steps, i, kappa, sign):
    """The continuous extremum (sign = +1 minimum, −1 maximum) of the retyped L_G between the grid's neighbours."""
    found = optimize.minimize_scalar(lambda t: sign * float(_error(np.exp(t), kappa)),
                                     bounds=(np.log(steps[i - 1]), np.log(steps[i + 1])), method="bounded",
                                     options={"xatol": 1e-10})
    return float(np.exp(found.x)), sign * float(found.fun)


# What Fig 4.4 shows (source's narrative, measured on the figure): κ = 1 and 7 monotone; from κ = 12 one minimum and
# one bump; the bump grows with κ; κ = 1e5 rises to the plateau L_B.
_FIG44_BUMPS = {1.0: 0, 7.0: 0, 12.0: 1, 30.0: 1, 100.0: 1, 1e3: 1, 1e5: 1}


def test_phase_diagram_extrema_and_plateaus_against_an_independent_route():
    fig = figs.phase_diagram()
    left, right, _colorbar = fig.axes
    steps = dd.analytic_steps()
    points = dd.phase_points(110, 100, 70)
    P = 0.7
    L_B = 0.5 * (1 - P) * 110 / (110 - 70)  # point B, written out
    Q_B = P + (1 - P) * 70 / (110 - 70)
    alpha1, lam1 = 110 / 70, (1 - P) / P  # point A: the Bayes-optimal ridge of the fast group alone
    a_A = 0.5 * (1 + alpha1 + lam1 + np.sqrt((1 + alpha1 + lam1) ** 2 - 4 * alpha1))
    L_A, k_A = 0.5 * (1 - 110 / (a_A * 100)), 1.0 / (0.25 * (1 - P))
    bumps, max_Q = [], []
    for kappa in dd.PHASE_DIAGRAM_KAPPAS:
        line = _line(right, figs._kappa_label(kappa))
        x, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
        assert np.allclose(x, steps + 1, rtol=1e-14)
        # the plotted curve is the approximate theory (the retyped route, on the grid)
        assert np.max(np.abs(y - _error(steps, kappa))) < 1e-10, kappa
        minima, maxima = _grid_extrema(y)
        assert len(maxima) == _FIG44_BUMPS[kappa] and len(minima) == _FIG44_BUMPS[kappa], (kappa, minima, maxima)
        if not maxima:
            assert np.all(np.diff(y) <= 1e-12), kappa  # monotone non-increasing
        else:
            (i_min,), (i_max,) = minima, maxima
            assert i_min < i_max
            k_min, L_min = _refine(steps, i_min, kappa, +1)
            k_max, L_max = _refine(steps, i_max, kappa, -1)
            for i, k, value in ((i_min, k_min, L_min), (i_max, k_max, L_max)):
                assert abs(y[i] - value) <= 1e-3, (kappa, y[i], value)
                assert abs(x[i] / (k + 1) - 1) <= 0.1, (kappa, x[i], k + 1)
            # the library's log-time ODE reproduces the retyped theory at the refined extrema
            problem = dd.TeacherStudentProblem(110, 100, 70, kappa)
            ode = dd.bipartite_theory_ode([k_min, k_max], problem).generalization_error
            assert np.allclose(ode, [L_min, L_max], rtol=0, atol=1e-7), (kappa, ode, L_min, L_max)
            bumps.append(L_max - L_min)
            if kappa >= 100:  # the first minimum is point A once the slow group is slow enough
                assert abs(L_min - L_A) <= 1e-3 and abs((k_min + 1) / (k_A + 1) - 1) <= 0.1, (kappa, k_min, L_min)
            if kappa == 1e5:  # the bump is the plateau L_B
                assert abs(L_max - L_B) <= 1e-3 and abs(points.B.generalization_error - L_B) < 1e-12
        # the largest Q along the trajectory (left panel), against the retyped theory's continuous maximum
        R_line, Q_line = (np.asarray(v) for v in _line(left, f"_trajectory kappa={kappa:g}").get_data())
        R_retyped, Q_retyped = _approximate_theory(steps, kappa)
        assert max(np.abs(R_line - R_retyped).max(), np.abs(Q_line - Q_retyped).max()) < 1e-10, kappa
        j = int(np.argmax(Q_line))
        if 0 < j < Q_line.size - 1:
            found = optimize.minimize_scalar(lambda t: -_approximate_theory(np.exp(t), kappa)[1],
                                             bounds=(np.log(steps[j - 1]), np.log(steps[j + 1])), method="bounded",
                                             options={"xatol": 1e-10})
            assert abs(Q_line[j] + found.fun) <= 1e-3, (kappa, Q_line[j], -found.fun)
            max_Q.append(float(Q_line[j]))  # an interior maximum: κ >= 30
        else:  # Q rises to point C, Q = 1 (σ = 0), at the end of the grid
            assert j == Q_line.size - 1 and abs(Q_line[j] - 1.0) <= 1e-3, (kappa, j, Q_line[j])
    assert np.all(np.diff(bumps) > 0), bumps  # the bump grows with κ
    # the largest Q grows with κ towards Q_B (approached from below at κ = 1e5)
    assert len(max_Q) == 4 and np.all(np.diff(max_Q) > 0), max_Q
    assert 0 <= Q_B - max_Q[-1] <= 1e-3 and abs(points.B.Q - Q_B) < 1e-12, (max_Q, Q_B)
