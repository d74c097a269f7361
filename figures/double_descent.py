"""Figures of the multi-scale double-descent theory (thesis Ch. 4, Figs 4.1, 4.3, 4.4, 4.5c,d, 4.6 left, and the
authors' extra comparison of GD with the exact and the approximate theory).

Analytic curves use the authors' analytic mode (η = 1/4, k = 10^linspace(−3, 8, 300)) and are plotted at k + 1.
Lines whose label starts with an underscore are left out of the legends (matplotlib's convention); the labels name
what each line holds, so that tests can find it.
"""
import numpy as np

from dynamics.lazy import lazy_module
from .registry import figure
from .style import COLORS, SEQUENTIAL, new_figure, progress

matplotlib = lazy_module("matplotlib")
mcolors = lazy_module("matplotlib.colors")
mlines = lazy_module("matplotlib.lines")
dd = lazy_module("dynamics.double_descent")

SOURCE = "Pezeshki (thesis),"  # the figures are cited by the numbers of the thesis reprint of Pezeshki et al. 2022
MSE_LABEL = "MSE generalization error $L_G$"


def _step_axes(ax, xmax, ylabel=MSE_LABEL, ymax=0.5, xlabel="training steps $k$ (plotted at $k + 1$)"):
    ax.set(xscale="log", xlim=(1, xmax), ylim=(0, ymax), xlabel=xlabel, ylabel=ylabel)


def _kappa_label(kappa):
    return rf"$\kappa = {kappa:g}$" if kappa < 1e4 else rf"$\kappa = 10^{{{int(round(np.log10(kappa)))}}}$"


@figure("double_descent.fast_slow_features", f"{SOURCE} Fig 4.1",
        "Approximate theory (Eqs 4.2.11–4.2.16), n = 130, d = 100, p = 70, κ = 100, σ_ε = 0, λ = 0, analytic mode "
        "(ησ₁² = 1/4, plotted at k + 1). Left: the fast features alone (slow root a₂ held at its k = 1e−3 value) give "
        "a "
        "classical U-curve from ½ through the Bayes-optimal minimum A (dotted: k_A + 1) up to the plateau L_B "
        "(dashed); "
        "the slow features alone (fast root a₁ held at its k = 1e8 value) sit at L_B and descend late. Right: both "
        "groups learning give epoch-wise double descent. Parameters as in the text and the code.")
def fast_slow_features(n_samples=130, n_features=100, n_fast=70, kappa=100.0):
    fig, (left, right) = new_figure(1, 2, width=8.0, height=3.0)
    steps = dd.analytic_steps()
    problem = dd.TeacherStudentProblem(n_samples, n_features, n_fast, kappa)
    fast = dd.bipartite_theory(steps, problem, freeze_slow_at=1e-3).generalization_error
    slow = dd.bipartite_theory(steps, problem, freeze_fast_at=1e8).generalization_error
    both = dd.bipartite_theory(steps, problem).generalization_error
    points = dd.phase_points(n_samples, n_features, n_fast)
    left.plot(steps + 1, fast, color=COLORS[0], label="fast feature")
    left.plot(steps + 1, slow, color=COLORS[4], label="slow feature")
    right.plot(steps + 1, both, color="k", label="both features")
    for ax in (left, right):
        _step_axes(ax, 1e5)
        ax.axvline(points.A.steps_at() + 1, color="0.5", ls=":", lw=1, label="$k_A + 1$ (point A)")
        ax.axhline(points.B.generalization_error, color="0.5", ls="--", lw=0.8, label="plateau $L_B$")
        ax.legend(loc="upper right")
    return fig


@figure("double_descent.gd_vs_theory", f"{SOURCE} Fig 4.3",
        "n = 150, d = 100, p = 60 (the authors' code; the text says p = 50, which would not give the published "
        "plateau), σ_ε = 0, κ ∈ {1, 50, 1e5}, 100 drawn designs, normalised teachers, "
        "Haar F. Left: exact GD (closed form, η = 1/λ_max per design) with the test MSE "
        "on 1000 noiseless test points (dashed: mean, band ± ½ sd) against the teacher-averaged trace formulas "
        "Eqs 4.2.9–4.2.10 (solid, design mean). Right: the source's ridge convention (fig3.py): ridge regression "
        "(XᵀX + 2λI)⁻¹Xᵀy (dashed) against the approximate theory Eqs 4.2.14–4.2.16 with the fast group at λ_eff = 2λ "
        "and the slow group at 4λ (solid; the code's extra factor 2 on group 2), plotted at 1/λ + 1. That factor "
        "offsets "
        "the approximation's too-early slow-group learning, so the curves match as the caption says; at one common λ "
        "they do not (figure double_descent.decoupling_error). The κ = 1e5 plateau: the trace formula's 0.3346 is the "
        "finite-n OLS value ½(1 − p/d)(1 + p/(n − p − 1)), 0.0015 above L_B = 1/3 (d → ∞); the GD mean's 0.340 is a "
        "further 0.005 = 0.7 standard errors of the 100-teacher mean (sd 0.072 per teacher) above it. Finite κ adds "
        "nothing visible, and p = 50 would put the plateau at 0.375.")
def gd_vs_theory(n_samples=150, n_features=100, n_fast=60, kappas=(1.0, 50.0, 1e5), n_seeds=100, seed=2022):
    fig, (left, right) = new_figure(1, 2, width=8.6, height=3.6)
    steps = np.logspace(-3, 6, 100)
    inverse_ridge = steps  # the right panel's x = 1/λ on the same grid
    for color, kappa in progress(list(zip(COLORS, kappas)), "Fig 4.3"):
        problem = dd.TeacherStudentProblem(n_samples, n_features, n_fast, kappa)
        runs = dd.teacher_student_gd_runs(steps, problem, n_seeds=n_seeds, seed=seed)
        data, gd, trace = runs.data, runs.test_errors, runs.trace_errors
        ridge = dd.test_error(dd.ridge_weights(data.X, data.y, 2.0 / inverse_ridge), data)
        approx = dd.bipartite_theory(inverse_ridge, problem, learning_rate=(0.5, 0.25)).generalization_error
        panels = ((left, gd, trace.mean(0), "gd", "trace"), (right, ridge, approx, "ridge", "approximate"))
        for ax, empirical, theory, empirical_name, theory_name in panels:
            mean, sd = empirical.mean(0), empirical.std(0)
            ax.plot(steps + 1, theory, color=color, label=f"_{theory_name} kappa={kappa:g}")
            ax.plot(steps + 1, mean, "--", color=color, label=f"_{empirical_name} kappa={kappa:g}")
            ax.fill_between(steps + 1, mean - 0.5 * sd, mean + 0.5 * sd, color=color, alpha=0.15, lw=0)
    _step_axes(left, 1e6)
    left.set_title("GD vs exact trace formulas (Eqs 4.2.9–4.2.10)")
    _step_axes(right, 1e6, xlabel=r"inverse ridge coefficient $1/\lambda$ (plotted at $1/\lambda + 1$)")
    right.set_title("ridge vs approximate theory (Eqs 4.2.14–4.2.16)")
    handles = [mlines.Line2D([], [], color=c, label=_kappa_label(k)) for c, k in zip(COLORS, kappas)]
    handles += [mlines.Line2D([], [], color="k", ls="--", label=r"GD / ridge at $2\lambda$: mean $\pm$ ½ sd"),
                mlines.Line2D([], [], color="k", label="trace formulas / approximate theory")]
    fig.legend(handles=handles, loc="outside lower center", ncol=5)
    return fig


@figure("double_descent.decoupling_error", f"{SOURCE} Fig 4.3; authors' extra_experiments/emp_vs_analytic.png",
        "The error of the decoupled (approximate) theory in time, as in the authors' emp_vs_analytic.png "
        "(n = 150, d = 100, p = 70 read off its plateau L_B ≈ 0.28 and minimum L_A ≈ 0.235; κ ∈ {1, 100, 1e4}, σ_ε = "
        "0, "
        "100 drawn designs, η = 1/λ_max per design). Dots with bars: GD test MSE on 1000 noiseless test points (mean "
        "± ½ sd), dashed: its mean at every step. Left: the exact trace formulas (Eqs 4.2.9–4.2.10, design mean) "
        "follow GD. Right: the approximate theory (Eqs 4.2.14–4.2.16) at the text's map λ_eff = 1/(ηk) (η the mean GD "
        "learning rate) descends too early for κ = 100: each group counts all n samples, which over-estimates the slow "
        "group's R₂. Its first minimum is the Bayes-optimal point A, later and lower than GD's.")
def decoupling_error(n_samples=150, n_features=100, n_fast=70, kappas=(1.0, 100.0, 1e4), n_seeds=100, seed=2022):
    fig, (left, right) = new_figure(1, 2, width=8.6, height=3.6)
    steps = np.logspace(-3, 5, 90)
    marked = np.arange(4, steps.size, 5)
    for color, kappa in progress(list(zip(COLORS, kappas)), "emp_vs_analytic"):
        problem = dd.TeacherStudentProblem(n_samples, n_features, n_fast, kappa)
        runs = dd.teacher_student_gd_runs(steps, problem, n_seeds=n_seeds, seed=seed)
        gd, trace = runs.test_errors, runs.trace_errors
        approx = dd.bipartite_theory(steps, problem,
                                     learning_rate=float(runs.learning_rates.mean())).generalization_error
        mean, sd = gd.mean(0), gd.std(0)
        for ax, theory, theory_name in ((left, trace.mean(0), "trace"), (right, approx, "approximate")):
            ax.plot(steps + 1, theory, color=color, label=f"_{theory_name} kappa={kappa:g}")
            ax.plot(steps + 1, mean, "--", color=color, lw=1.0, label=f"_gd kappa={kappa:g}")
            ax.errorbar(steps[marked] + 1, mean[marked], yerr=0.5 * sd[marked], fmt="o", ms=3.5, color=color,
                        elinewidth=0.8, label=f"_gd markers kappa={kappa:g}")
    _step_axes(left, 1e5)
    left.set_title("GD vs exact theory (trace formulas)")
    _step_axes(right, 1e5)
    right.set_title(r"GD vs approximate theory at $\lambda_{\rm eff} = 1/(\eta k)$")
    handles = [mlines.Line2D([], [], color=c, label=_kappa_label(k)) for c, k in zip(COLORS, kappas)]
    handles += [mlines.Line2D([], [], color="k", ls="--", marker="o", ms=3.5, lw=1.0, label=r"GD, mean $\pm$ ½ sd"),
                mlines.Line2D([], [], color="k", label="exact (left) / approximate (right) theory")]
    fig.legend(handles=handles, loc="outside lower center", ncol=5)
    return fig


@figure("double_descent.phase_diagram", f"{SOURCE} Fig 4.4",
        "n = 110, d = 100, p = 70, σ_ε = 0, λ = 0, analytic mode (η = 1/4, k = 10^linspace(−3, 8, 300)), "
        "κ ∈ {1, 7, 12, 30, 100, 1e3, 1e5}. Left: heat map of 1 − 2R + Q (= 2L_G) over the code's grid R ∈ [0, 1.05], "
        "Q ∈ [0, 1.3] (the text says [0, 1] × [0, 1.2]) with the trajectories (R(k), Q(k)) of the approximate theory "
        "and "
        "the closed-form points A (Bayes-optimal, R = Q), B (κ → ∞ plateau) and C (k → ∞). Right: L_G at k + 1; "
        "large κ first heads for B, then bends towards C (the second descent); κ = 1e5 stays at L_B ≈ 0.41 (dashed).")
def phase_diagram(sizes=None, kappas=None):
    """``sizes`` (n_samples, n_features, n_fast) and ``kappas`` default to Fig 4.4's (``dd.PHASE_DIAGRAM_SIZES``,
    ``dd.PHASE_DIAGRAM_KAPPAS``)."""
    sizes = dict(dd.PHASE_DIAGRAM_SIZES if sizes is None else sizes)
    n_samples, n_features, n_fast = sizes["n_samples"], sizes["n_features"], sizes["n_fast"]
    kappas = dd.PHASE_DIAGRAM_KAPPAS if kappas is None else kappas
    fig, (left, right) = new_figure(1, 2, width=10.0, height=3.4)
    R, Q = np.meshgrid(np.linspace(0, 1.05, 300), np.linspace(0, 1.3, 300))
    # a light grey map with labelled level lines, so that every trajectory's colour reads against it
    levels = 2.0 * dd.generalization_error(R, Q)
    light_greys = mcolors.LinearSegmentedColormap.from_list("light_greys", matplotlib.colormaps["Greys"](np.linspace(0.02, 0.6, 256)))
    mesh = left.pcolormesh(R, Q, levels, cmap=light_greys, vmin=0.0, vmax=2.5, shading="auto", rasterized=True)
    contours = left.contour(R, Q, levels, levels=[0.25, 0.5, 1.0, 1.5, 2.0], colors="0.45", linewidths=0.6)
    left.clabel(contours, fontsize=7, fmt="%g")
    bar = fig.colorbar(mesh, ax=left, ticks=[0, 0.5, 1.0, 1.5, 2.0, 2.5])
    bar.ax.set_title("$1 - 2R + Q$", fontsize=8, loc="left", pad=6)
    steps = dd.analytic_steps()
    palette = [mcolors.to_hex(c) for c in matplotlib.colormaps["plasma"](np.linspace(0.05, 0.85, len(kappas)))]
    for color, kappa in zip(palette, kappas):
        r = dd.bipartite_theory(steps, dd.TeacherStudentProblem(n_samples, n_features, n_fast, kappa))
        left.plot(r.R, r.Q, color=color, lw=1.4, label=f"_trajectory kappa={kappa:g}")
        right.plot(steps + 1, r.generalization_error, color=color, label=_kappa_label(kappa))
    points = dd.phase_points(n_samples, n_features, n_fast)
    for name, point in (("A", points.A), ("B", points.B), ("C", points.C)):
        left.plot(point.R, point.Q, "o", color="w", mec="k", ms=6, zorder=5, label=f"_point {name}")
        left.annotate(name, (point.R, point.Q), xytext=(-12, 4), textcoords="offset points", color="k", weight="bold")
    left.set(xlim=(0, 1.05), ylim=(0, 1.3), xlabel="$R$", ylabel="$Q$",
             title=r"phase plane (colours: $\kappa$ as on the right)")
    left.grid(False)
    _step_axes(right, 1e7)
    right.axhline(points.B.generalization_error, color="0.5", ls="--", lw=0.8, label="plateau $L_B$")
    right.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return fig


@figure("double_descent.ridge_time_heatmap", f"{SOURCE} Fig 4.5 (c, d)",
        "Approximate theory with λ_eff = λ + 1/k (analytic code; API weight_decay = 4λ, η = 1/4), n = 120, d = 100, "
        "p = 80, κ = 40, σ_ε = 0.2: the code's values (the text says κ = 100; these values reproduce the published "
        "panels), noisy-test error (+½σ²), colour range 0.2–0.45, "
        "λ = 10^−linspace(0.1, 8, 100). (c) L_G over λ (decreasing to the right) and k + 1 ∈ [1, 1e4]; "
        "dashed: the slices of (d). (d) slices at λ ≈ 0.126 (large: single descent), 3.2e−3 (intermediate: U-curve, "
        "the slow features never learnt) and 1.4e−8 (small: double descent towards L(∞) = 0.12).")
def ridge_time_heatmap(n_samples=120, n_features=100, n_fast=80, kappa=40.0, noise_std=0.2):
    fig, (left, right) = new_figure(1, 2, width=9.6, height=3.5)
    code_lam = 10 ** -np.linspace(0.1, 8, 100)
    steps = np.logspace(-3, 4, 300)
    problem = dd.TeacherStudentProblem(n_samples, n_features, n_fast, kappa, noise_std=noise_std)
    grid = dd.bipartite_theory(steps[:, None], problem,
                               weight_decay=dd.code_weight_decay_to_api(code_lam)[None, :]).noisy_generalization_error
    column = np.arange(code_lam.size)
    mesh = left.pcolormesh(column, steps + 1, grid, cmap=SEQUENTIAL, vmin=0.2, vmax=0.45, shading="auto",
                           rasterized=True)
    bar = fig.colorbar(mesh, ax=left)
    bar.ax.set_title("$L_G$", fontsize=8, loc="left", pad=6)
    decades = np.arange(0, 8)
    ticks = [int(np.argmin(np.abs(np.log10(code_lam) + k))) for k in decades]
    left.set_xticks(ticks + [column[-1]], [f"$10^{{{-k}}}$" for k in decades] + [r"$\approx 0$"], fontsize=8)
    left.grid(False)
    left.set(yscale="log", ylim=(1, 1e4), xlabel=r"regularization strength $\lambda$", ylabel="training steps $k + 1$",
             title="(c)")
    for color, (index, label) in zip(COLORS, ((10, "large"), (30, "intermediate"), (-3, "small"))):
        right.plot(steps + 1, grid[:, index], color=color, label=rf"{label} $\lambda$ ({code_lam[index]:.1e})")
        left.axvline(column[index], color=color, lw=1.2, ls="--", label=f"_slice {label}")
        left.annotate(label, (column[index], 1.0), xycoords=("data", "axes fraction"), xytext=(0, 3),
                      textcoords="offset points", ha="center", va="bottom", color=color, fontsize=8)
    _step_axes(right, 1e4, ylabel="test error $L_G$ (noisy test points)")
    right.set_ylim(0.15, 0.5)
    right.set_title("(d)")
    right.legend(loc="upper right")
    return fig


@figure("double_descent.q_penalty_schedule", f"{SOURCE} Fig 4.6 (left)",
        "Exact GD (teacher-averaged trace formulas, mean of 20 drawn designs), n = 120, d = 100, p = 70, κ = 30, "
        "σ_ε = 0, λ = 0, η = 1/λ_max, 1e5 full-batch steps (the code's set-up; the text does not give the schedule). "
        "Without regularization: first minimum, a pronounced peak, late second descent. With the output (Q) penalty "
        "of Lemma 4.3.1 on the schedule a_k = 0.6·log(1 + e^{−k/1000})/log 2 (dotted, right axis): the peak is "
        "diminished (not removed) and the final error is the same.")
def q_penalty_schedule(setup=None, n_seeds=20, seed=6, n_steps=100_000):
    """``setup`` (n_samples, n_features, n_fast, kappa) defaults to Fig 4.6's (``dd.OUTPUT_PENALTY_SETUP``)."""
    setup = dict(dd.OUTPUT_PENALTY_SETUP if setup is None else setup)
    n_samples, n_features, n_fast, kappa = (setup[k] for k in ("n_samples", "n_features", "n_fast", "kappa"))
    fig, ax = new_figure(1, 1, width=4.8, height=3.3)
    steps = np.unique(np.round(np.logspace(0, np.log10(n_steps), 300)).astype(int))
    runs = dd.output_penalty_runs(steps, n_samples, n_features, n_fast, kappa, n_seeds=n_seeds, seed=seed)
    schedule, without, with_penalty = runs.schedule, runs.without, runs.with_penalty
    ax.plot(steps, np.mean(without, 0), color=COLORS[0], label="without regularization")
    ax.plot(steps, np.mean(with_penalty, 0), color=COLORS[1], label="with Q regularization")
    ax.set(xscale="log", xlim=(1, steps[-1]), ylim=(0, 0.5), xlabel="training step $k$", ylabel=MSE_LABEL,
           title="linear teacher–student model")
    twin = ax.twinx()
    twin.plot(np.arange(1, steps[-1] + 1), schedule, color="0.5", lw=0.9, ls=":", label="penalty $a_k$ (right axis)")
    twin.set(ylim=(0, 1.5), ylabel="output penalty $a_k$")
    twin.grid(False)
    handles = ax.get_lines() + twin.get_lines()
    ax.legend(handles=handles, labels=[h.get_label() for h in handles], loc="upper right")
    return fig
