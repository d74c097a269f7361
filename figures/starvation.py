"""Figures of gradient starvation: the Fig 6 toy trajectories, the Legendre illustration (Fig 8), the
starvation map of z_2* over (s_1, δ), the accuracy of the Eq 10 and perturbative forms, and the two-moons
boundaries of Fig 1 (from the compiled :func:`dynamics.starvation.train_two_moons`)."""
import numpy as np

from dynamics.lazy import lazy_module
from .registry import figure
from .style import COLORS, new_figure

mcolors = lazy_module("matplotlib.colors")
mlines = lazy_module("matplotlib.lines")
gs = lazy_module("dynamics.starvation")

P = "Pezeshki et al. 2021,"  # the sources of the figures: the paper (Ch. 6 of Pezeshki (thesis) reprints it)
# Runs in the two-moons panel (d) are told apart by colours other than the classes' blue and orange.
RUN_COLORS = ("#009E73", "#CC79A7", "#000000")
RUN_MARKERS = ("s", "^", "o")


@figure("starvation.toy_trajectories", f"{P} Fig 6 (Pezeshki (thesis), supp. Fig 1), App. B.1",
        "The simple experiment: (|z_1|, |z_2|) trajectories of primal gradient descent (learning rate 0.05), the "
        "authors' dual gradient ascent (α_0 = 1e-8, learning rate 3e-6) and the SD primal (a = 0.002), 5000 steps "
        "each, for s_1 = 2..6 (δ = 0.5 as in the authors' code, λ = 0.01, s_2 = 2). Stars: fixed points of Eq 9 and Eq 18. As "
        "s_1 grows, z_1 grows and z_2 is starved under CE; under SD every s_1 ends at the same point.")
def toy_trajectories(setup=None, n_steps=5000):
    """``setup`` defaults to the paper's toy, ``gs.TOY`` (``gs.TOY._replace(delta=0.3)`` changes one value)."""
    toy = gs.TOY if setup is None else setup
    fig, axes = new_figure(1, 3, width=10.5, height=3.4)
    runs = gs.toy_trajectories(toy.s1_values, toy.delta, toy.s2, n_steps, weight_decay=toy.weight_decay,
                               output_penalty=toy.output_penalty, learning_rate=toy.learning_rate,
                               dual_learning_rate=toy.dual_learning_rate)
    for k, (color, s1) in enumerate(zip(COLORS, runs.s1)):
        target = runs.fixed_point[k]
        for ax, path, end in ((axes[0], runs.primal[k], target), (axes[1], runs.dual[k], target),
                              (axes[2], runs.spectral_decoupling[k], runs.sd_fixed_point)):
            ax.plot(np.abs(path[:, 0]), np.abs(path[:, 1]), color=color, label=f"$s_1 = {s1:g}$")
            ax.plot(*np.abs(end), "*", color=color, ms=9, mec="k", mew=0.5)
    titles = ("primal (CE + L2)", "dual (Eq 8, gradient ascent)", "spectral decoupling")
    for ax, title in zip(axes, titles):
        ax.set(xlabel="$|z_1|$", ylabel="$|z_2|$", title=title, ylim=(0, 1.9))
    axes[0].legend(loc="upper left")
    return fig


@figure("starvation.legendre", f"{P} Fig 8 (Pezeshki (thesis), supp. Fig 3), Lemma 2, Eqs 19-28",
        "The Legendre transform of cross-entropy. Left: L(ω) = log(1+e^{-ω}) with its tangent lines (dashed) at "
        "ω_0 = -2, 0.5, 2.5 (squares); each tangent's intercept at ω = 0 equals H(α) at α = σ(-ω_0) (dots). Right: "
        "H(α) - αω against α for the same ω; each maximum (circle) sits at α = σ(-ω) and equals L(ω) (dotted line).")
def legendre(omegas=(-2.0, 0.5, 2.5)):
    fig, (left, right) = new_figure(1, 2, width=8.6, height=3.4)
    omega = np.linspace(-4.0, 4.0, 400)
    left.plot(omega, gs.primal_loss("cross_entropy", omega), color="k", label=r"$L(\omega) = \log(1+e^{-\omega})$")
    alpha = np.linspace(1e-6, 1.0 - 1e-6, 600)
    for color, w0 in zip(COLORS, omegas):
        tangent = gs.loss_tangent("cross_entropy", w0)  # slope dL/dω = -σ(-ω_0), through (ω_0, L(ω_0))
        a0 = tangent.alpha
        left.plot(omega, tangent.intercept + tangent.slope * omega, "--", color=color, lw=1,
                  label=rf"tangent at $\omega_0 = {w0:g}$")
        left.plot(0.0, gs.binary_entropy(a0), "o", color=color, ms=5)
        left.plot(w0, gs.primal_loss("cross_entropy", w0), "s", color=color, ms=4)
        right.plot(alpha, gs.dual_objective("cross_entropy", alpha, w0), color=color, label=rf"$\omega = {w0:g}$")
        right.plot(a0, gs.dual_objective("cross_entropy", a0, w0), "o", color=color, ms=6, mfc="none")
        right.axhline(gs.primal_loss("cross_entropy", w0), color=color, ls=":", lw=0.8)
    left.set(xlabel=r"$\omega = y\hat{y}$", ylabel="loss", title=r"tangents: intercept $= H(\alpha)$", ylim=(-0.5, 5))
    left.plot([], [], "s", color="gray", ms=4, label=r"$(\omega_0, L(\omega_0))$")
    left.plot([], [], "o", color="gray", ms=5, label=r"intercept $H(\sigma(-\omega_0))$")
    left.legend(loc="upper right")
    right.plot([], [], ls=":", color="gray", lw=0.8, label=r"$L(\omega)$")
    right.plot([], [], "o", color="gray", ms=6, mfc="none", label=r"max at $\alpha = \sigma(-\omega)$")
    right.set(xlabel=r"$\alpha$", ylabel=r"$H(\alpha) - \alpha\omega$", title=r"dual: max over $\alpha$ = $L(\omega)$")
    right.legend(loc="lower left")
    return fig


@figure("starvation.starvation_map", f"{P} Theorem 2, Eqs 15-16; App. B.1",
        "Left: the change |z_2*(s_1)| - |z_2*(s_1 = s_2)| of the exact (Eq 9) response of the weak feature (s_2 = 2, "
        "λ = 0.01) over s_1 and the Eq 15 coupling δ, a 200 × 200 numba sweep, on a symmetric logarithmic colour scale "
        "(linear within ±1e-3) so that the δ > 0 starvation is as visible as the larger δ < 0 changes. For δ > 0 the "
        "change is negative on both sides of the dashed line s_1 = s_2, where |z_2*| peaks: a stronger (or weaker) "
        "feature 1 starves feature 2; for δ < 0 the sign flips (Theorem 2 needs δ > 0). The change vanishes along the two "
        "dotted lines: at δ = -1/√2 feature 2's weights u_2 ∝ (1, 1) align with the labels, the fixed point has α_1 = α_2 "
        "and z_2* does not depend on s_1; at δ = +1/√2, z_2* changes sign (it is ≈ 0 for every s_1), which is why |z| is "
        "plotted. Right: z_2*(s_1) "
        "for several δ, exact Eq 9 (solid), Eq 10 (circles, on the solid curves: the approximation is within 1e-2) and "
        "the SD response (dotted, flat in s_1; a = λ).")
def starvation_map(s2=2.0, weight_decay=0.01, deltas=(-0.5, 0.1, 0.3, 0.5, 0.6), n_grid=200):
    fig, (left, right) = new_figure(1, 2, width=10.5, height=3.9, gridspec_kw={"width_ratios": [1.0, 1.15]})
    s1 = np.linspace(0.5, 6.0, n_grid)
    delta_grid = np.linspace(-0.95, 0.95, n_grid)
    z = gs.starvation_map(s1, delta_grid, s2, weight_decay)
    at_equal = gs.starvation_map(np.array([s2]), delta_grid, s2, weight_decay)[:, 0, 1]
    change = np.abs(z[..., 1]) - np.abs(at_equal)[:, None]
    limit = np.abs(change).max()
    norm = mcolors.SymLogNorm(linthresh=1e-3, vmin=-limit, vmax=limit, base=10)
    image = left.pcolormesh(s1, delta_grid, change, cmap="RdBu_r", norm=norm, shading="auto")
    left.axvline(s2, color="k", ls="--", lw=1)
    left.axhline(0.0, color="k", ls="-", lw=0.6)
    for line, note in ((1.0, r"$z_2^* = 0$ (sign change)"), (-1.0, r"$u_2 \propto (1, 1)$: $z_2^*$ flat in $s_1$")):
        left.axhline(line / np.sqrt(2.0), color="k", ls=":", lw=1)
        left.annotate(note, (s1[-1], line / np.sqrt(2.0)), xytext=(-2, 2), textcoords="offset points", ha="right",
                      va="bottom", fontsize=8.5, bbox={"facecolor": "white", "alpha": 0.8, "lw": 0, "pad": 1.5})
    bar = fig.colorbar(image, ax=left, pad=0.02)
    bar.ax.set_title(r"$|z_2^*(s_1)| - |z_2^*(s_2)|$" + "\n(symlog)", fontsize=8, loc="left", pad=6)
    left.set(xlabel=r"$s_1$ (strength of feature 1)", ylabel=r"coupling $\delta$",
             title=r"change of $|z_2^*|$ (exact, Eq 9)")
    for color, delta in zip(COLORS, deltas):
        exact = gs.starvation_map(s1, [delta], s2, weight_decay)[0, :, 1]
        approx = gs.starvation_map(s1, [delta], s2, weight_decay, exact=False)[0, :, 1]
        right.plot(s1, exact, color=color, label=rf"$\delta = {delta:g}$")
        right.plot(s1, approx, "o", color=color, ms=3.5, mfc="none", mew=0.8, markevery=max(1, n_grid // 12))
        right.axhline(gs.sd_fixed_point(gs.coupling_matrix(delta), weight_decay).z[1], color=color, ls=":", lw=1)
    right.axvline(s2, color="gray", ls="--", lw=0.8)
    right.set(xlabel=r"$s_1$", ylabel=r"$z_2^*$", title=r"$z_2^*(s_1)$: exact, Eq 10, SD ($a = \lambda$)")
    # one legend (layout-managed, outside the data): colour = coupling, then the line-style key
    handles, _ = right.get_legend_handles_labels()
    handles += [mlines.Line2D([], [], color="none", label=" "),
                mlines.Line2D([], [], color="gray", label="exact (Eq 9)"),
                mlines.Line2D([], [], color="gray", ls="", marker="o", mfc="none", label="Eq 10"),
                mlines.Line2D([], [], color="gray", ls=":", label="SD (Eq 18)"),
                mlines.Line2D([], [], color="gray", ls="--", lw=0.8, label=r"$s_1 = s_2$")]
    right.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="colour: coupling")
    return fig


@figure("starvation.two_moons", f"{P} Fig 1 a-d, App. B.2",
        "Two moons, two-layer ReLU net (500 hidden), trained by the compiled trainer, which agrees with the torch "
        "simulation to round-off (SGD learning rate 1e-2, momentum 0.9, weight decay 2e-4, 2000 full-batch steps, 3 seeds; panels a-c show seed 0, blue and orange "
        "are the two classes). (a) Δ = -0.1, not separable: curved boundary; (b) Δ = +0.1, separable by a small "
        "margin: the boundary runs along the horizontal feature only; (c) Δ = +0.1 with SD (0.003·mean ŷ²): curved, "
        "larger margin. (d) |z_1| (solid) and |z_6| (dashed) along the NTK-at-init eigen-directions during training, "
        "seed means, one colour and marker per run: separability inflates z_1 and starves z_6; SD reverses both.")
def two_moons(n_steps=2000, seeds=(0, 1, 2), hidden=500):
    result = gs.train_two_moons(gs.TwoMoonsConfig(n_steps=n_steps, hidden=hidden, record_every=50), seeds)
    fig, axes = new_figure(1, 4, width=14.0, height=3.6)
    every_x = np.concatenate([d.X for d in result.data])
    low, high = every_x.min(axis=0) - 0.15, every_x.max(axis=0) + 0.15
    grid_h, grid_v = np.meshgrid(np.linspace(low[0], high[0], 200), np.linspace(low[1], high[1], 200))
    grid = np.column_stack([grid_h.ravel(), grid_v.ravel()])
    n_seeds = len(result.seeds)
    for k, (ax, run) in enumerate(zip(axes[:3], result.runs)):
        X, y = result.data[k * n_seeds]
        logits = result.logits(k * n_seeds, grid).reshape(grid_h.shape)
        ax.contourf(grid_h, grid_v, logits > 0, levels=[-0.5, 0.5, 1.5], colors=["#f3d9c9", "#cfe0ef"], alpha=0.8)
        ax.contour(grid_h, grid_v, logits, levels=[0.0], colors="k", linewidths=1.2)
        for label_value, color in ((1.0, COLORS[0]), (-1.0, COLORS[1])):
            chosen = y == label_value
            ax.scatter(X[chosen, 0], X[chosen, 1], color=color, s=6, label=f"$y = {label_value:+.0f}$")
        ax.set(title=f"({'abc'[k]}) {run.label}", xlabel="$x_h$", ylabel="$x_v$", xlim=(low[0], high[0]),
               ylim=(low[1], high[1]))
    axes[0].legend(loc="upper right", markerscale=2)
    z = result.z.mean(axis=2)  # (records, runs, n)
    marks = max(1, len(result.steps) // 8)
    for color, marker, (k, run) in zip(RUN_COLORS, RUN_MARKERS, enumerate(result.runs)):
        axes[3].plot(result.steps, z[:, k, 1], color=color, marker=marker, ms=4, markevery=marks, label=run.label)
        axes[3].plot(result.steps, z[:, k, 6], "--", color=color, marker=marker, ms=4, markevery=marks, mfc="none")
    axes[3].set(title="(d) feature responses", xlabel="step", ylabel="$|z|$", yscale="log")
    handles, _ = axes[3].get_legend_handles_labels()
    handles += [mlines.Line2D([], [], color="none", label=" "), mlines.Line2D([], [], color="gray", label="$|z_1|$ (solid)"),
                mlines.Line2D([], [], color="gray", ls="--", label="$|z_6|$ (dashed)")]
    axes[3].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="run", fontsize=8)
    return fig


@figure("starvation.approximation_error", f"{P} Eq 10 (App. C.4), Lemma 1 (Eq 14), Eqs 63-64",
        "Left: relative error of the Eq 10 (Lambert W) fixed point against the exact Eq 9 one, uncoupled, "
        "(α_10 - α_9)/α_9 against c = 1 + s²/λ; Eq 10 always over-estimates α*, by 6% at c = 2 and by 1e-3 at c = 30, so "
        "App. C.4's condition 'λ < s²' must be read as λ ≪ s². Right: with the Eq 15 coupling (S² = (9, 4), λ = 0.1), "
        "the max relative error of Lemma 1 (Eq 14) and the max absolute error of the first-order responses "
        "(Eqs 63-64) against the Eq 10 fixed point, both O(δ²) (thin dashed line: slope 2, drawn above the data).")
def approximation_error(weight_decay=0.1, coupled_s_squared=(9.0, 4.0)):
    fig, (left, right) = new_figure(1, 2, width=8.6, height=3.4)
    c = np.geomspace(1.5, 1e5, 200)
    left.loglog(c, gs.approximation_gap(np.sqrt((c - 1.0) * weight_decay), weight_decay), color=COLORS[0])
    left.set(xlabel=r"$c = 1 + s^2/\lambda$", ylabel=r"$(\alpha_{10} - \alpha_9)/\alpha_9$",
             title="Eq 10 vs exact Eq 9 (uncoupled)")
    strengths = np.sqrt(coupled_s_squared)
    deltas = np.geomspace(1e-3, 0.5, 30)
    lemma = [gs.linearisation_error(gs.coupling_matrix(delta), strengths, weight_decay) for delta in deltas]
    first = [gs.first_order_error(strengths, weight_decay, delta) for delta in deltas]
    right.loglog(deltas, lemma, color=COLORS[1], label=r"Lemma 1 (Eq 14), rel. error in $\alpha$")
    right.loglog(deltas, first, color=COLORS[2], label="Eqs 63-64, abs. error in $z$")
    reference_line = 4.0 * max(first[0], lemma[0]) * (deltas / deltas[0]) ** 2
    right.loglog(deltas, reference_line, "--", color="gray", lw=0.8, label=r"$\propto \delta^2$ (reference)")
    right.set(xlabel=r"coupling $\delta$", ylabel="error", title="perturbative forms, coupled case")
    right.legend(loc="upper left")
    return fig


# ---------------------------------------------------------------- experiments in miniature
@figure("starvation.moons_regularisers", f"{P} Fig 7 (Pezeshki (thesis), supp. Fig 2), App. B.2",
        "Two moons separable by a small margin (Δ = +0.1) under common regularisers, drawn from the committed record "
        "(python -m verify --record starvation.moons_regularisers) of dynamics.starvation.torch_experiments."
        "moons_regularisers at the authors' setting for this figure: a ReLU net of 500 hidden units, full-batch SGD "
        "(learning rate 1e-2, momentum 0.9) for 1000 steps (10000 for 'train longer'), 5 seeds (the paper: 10). One "
        "panel per setting: seed 0's data (blue and orange: the two classes) and every seed's decision boundary (seed "
        "0 thick), on a 61 × 61 evaluation grid. Weight decay 1e-2, dropout 0.7, batch norm, 4 hidden layers, Adam "
        "(3e-3) and 10x longer training against Spectral Decoupling (0.003·mean ŷ²). Last panel: the boundary's RMS "
        "distance from its best straight line (total least squares, inside the data's box, in units of the data's "
        "RMS radius), seed mean and standard error (dots: seeds). The 45° rotation of the paper's grid is left out. "
        "Below the panels: the record's verdict against the paper.")
def moons_regularisers():
    from .registry import record, verdict_line

    saved = record("starvation.moons_regularisers")
    result = saved.result
    n = len(result.regularisers)
    columns = (n + 2) // 2
    distance = result.boundary_distance  # NaN where a boundary has fewer than 3 points in the data's box
    finite = np.isfinite(distance)
    counts = finite.sum(axis=1)
    means = np.where(counts > 0, np.where(finite, distance, 0.0).sum(axis=1) / np.maximum(counts, 1), np.nan)
    spread = np.where(finite, (distance - means[:, None]) ** 2, 0.0).sum(axis=1)
    errors = np.where(counts > 1, np.sqrt(spread / np.maximum(counts - 1, 1) / np.maximum(counts, 1)), 0.0)
    fig, axes = new_figure(2, columns, width=2.75 * columns, height=5.6)
    axes = np.ravel(axes)
    X, y = result.data[0]
    for k, (ax, reg) in enumerate(zip(axes, result.regularisers)):
        for label_value, color in ((1.0, COLORS[0]), (-1.0, COLORS[1])):
            chosen = y == label_value
            ax.scatter(X[chosen, 0], X[chosen, 1], color=color, s=3, label=f"$y = {label_value:+.0f}$")
        for s in range(len(result.seeds)):
            ax.contour(result.grid_h, result.grid_v, result.logits[k, s], levels=[0.0], colors="k",
                       linewidths=1.6 if s == 0 else 0.6, alpha=1.0 if s == 0 else 0.5)
        ax.set_title(f"{reg.label}\ndistance {means[k]:.3f}", fontsize=9)
        ax.set(xlabel="$x_h$", ylabel="$x_v$" if k % columns == 0 else None, xticks=[-1, 0, 1], yticks=[-1, 0, 1])
    axes[0].legend(loc="lower left", markerscale=2, fontsize=7)
    bar = axes[n]
    positions = np.arange(n)
    bar.barh(positions, means, xerr=errors, capsize=2,
             color=[RUN_COLORS[0] if r.output_penalty > 0 else "#bbbbbb" for r in result.regularisers])
    for s in range(distance.shape[1]):
        bar.plot(distance[:, s], positions, "k.", ms=3)
    bar.set_yticks(positions, [r.label for r in result.regularisers], fontsize=7)
    bar.invert_yaxis()
    bar.set(xlabel="distance from best line\n(units of data radius)", title="boundary curvature")
    for ax in axes[n + 1:]:
        ax.set_visible(False)
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


@figure("starvation.moons_margins", f"{P} Fig 2 (in spirit), §4.2; Fig 1, App. B.2",
        "Cumulative distribution of per-example margins of the two moons separable by Δ = +0.1, trained without (ERM) "
        "and with Spectral Decoupling (0.003·mean ŷ²) by dynamics.starvation.torch_experiments.moons_margins, drawn "
        "from the committed record (python -m verify --record starvation.moons_margins) at the authors' setting for "
        "Fig 1: 500 hidden ReLUs, 10000 full-batch SGD steps (learning rate 1e-2, momentum 0.9, weight decay 2e-4), "
        "5 seeds (thin: each seed, thick: all seeds pooled). Left: the input-space distance of each training point to "
        "the decision boundary (the paper's Fig 2 measures the PGD perturbation on CIFAR-2). Middle: the distance "
        "along the weak direction x_v to the first change of the prediction, searched up to 3 (points that never "
        "flip sit at 3): a starved boundary ignores x_v, so few points flip. Right: the same along the strong "
        "direction x_h. Below the panels: the record's verdict against the paper.")
def moons_margins():
    from .registry import record, verdict_line

    saved = record("starvation.moons_margins")
    result = saved.result
    fig, axes = new_figure(1, 3, width=12.0, height=3.6)
    panels = (("distance", "distance to the boundary"), ("vertical", "along the weak direction $x_v$"),
              ("horizontal", "along the strong direction $x_h$"))
    for ax, (field, title) in zip(axes, panels):
        values = getattr(result, field)
        for color, (k, run) in zip(RUN_COLORS, enumerate(result.runs)):
            for s in range(values.shape[1]):
                ordered = np.sort(values[k, s])
                ax.step(ordered, np.arange(1, ordered.size + 1) / ordered.size, color=color, lw=0.5, alpha=0.5)
            pooled = np.sort(values[k].ravel())
            ax.step(pooled, np.arange(1, pooled.size + 1) / pooled.size, color=color, lw=1.8, label=run.label)
        upper = result.cap if field == "vertical" else min(result.cap, 1.05 * np.abs(values).max())
        ax.set(title=title, xlabel="margin (input units; < 0: misclassified)", xlim=(min(-0.05, values.min()),
                                                                                      upper + 0.05), ylim=(0, 1.02))
    axes[1].annotate(f"no change of\nprediction within {result.cap:g}", (result.cap, 0.6), xytext=(-6, 0),
                     textcoords="offset points", ha="right", va="center", fontsize=8)
    axes[0].set_ylabel("fraction of training points")
    axes[0].legend(loc="lower right")
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


@figure("starvation.coloured_shapes", f"{P} Table 2, Fig 3 (Colored MNIST, in spirit), App. B.4",
        "A coloured-shape task in the spirit of Colored MNIST, generated by "
        "dynamics.starvation.coloured_shapes: a 3-pixel bar in a 7 × 7 image, horizontal or "
        "vertical (the hard shape feature, agreeing with the label for 75% of the examples), drawn in one of two "
        "colour channels (the easy colour feature, agreeing with the label for 90% and 80% of the two training "
        "environments and for 10% of the test set). (a) Training examples, colour channel 0 red, channel 1 green, "
        "with their labels. (b) Accuracy on the colour-flipped test set during full-batch Adam training of a "
        "2-hidden-layer ReLU MLP, drawn from the committed record (python -m verify --record "
        "starvation.coloured_shapes): 100 units, 2000 training images with pixel noise 0.2, the authors' 2000 steps "
        "at learning rate 1e-3, 10 seeds (the paper: 300 units, 50 000 14 × 14 MNIST digits, learning rate 1e-4). "
        "Methods: ERM, a plain L2 penalty (λ = 0.01), γ-shifted Spectral Decoupling ((a/2)·mean((yŷ - γ)²), a = γ "
        "= 1) from the first step, and SD annealed as in the authors' code (CE + 2e-5·mean ŷ² until step 450, "
        "dotted line, then 2e-5·(CE + mean ŷ²)); thin lines: each seed, thick: their mean. (c) Final accuracies, "
        "seed mean and standard error: training set, flipped test set, and the test images with the colour removed "
        "(the image in both channels); crosses: the paper's Table 2 (ERM, SD). Below the panels: the record's "
        "verdict against the paper.")
def coloured_shapes():
    from dynamics.starvation import coloured_shapes as make
    from .registry import record, verdict_line

    saved = record("starvation.coloured_shapes")
    result = saved.result
    anneal = max(m.anneal_steps for m in result.methods)
    fig = new_figure(1, 3, width=13.0, height=3.8, gridspec_kw={"width_ratios": [0.9, 1.2, 1.2]})[0]
    left, middle, right = fig.axes
    examples = make(8, colour_flip=0.1, seed=1)
    size = int(round(np.sqrt(examples.X.shape[1] / 2)))
    tiles = []
    for x in examples.X:
        channels = x.reshape(2, size, size)
        rgb = np.stack([channels[0], channels[1], np.zeros((size, size))], axis=-1)
        tiles.append(np.pad(np.clip(rgb, 0, 1), ((1, 1), (1, 1), (0, 0)), constant_values=1.0))
    mosaic = np.concatenate([np.concatenate(tiles[:4], axis=1), np.concatenate(tiles[4:], axis=1)], axis=0)
    left.imshow(mosaic, interpolation="nearest")
    for k, label in enumerate(examples.y):
        left.text((k % 4) * (size + 2) + (size + 2) / 2 - 0.5, (k // 4) * (size + 2) + size + 1.2,
                  f"y = {label:+.0f}", ha="center", va="top", fontsize=7)
    left.set_ylim(2 * (size + 2) + 1.5, -0.5)  # room for the second row's labels
    left.set_title("(a) training examples")
    left.axis("off")
    for color, (k, method) in zip(COLORS, enumerate(result.methods)):
        accuracy = result.test_accuracy[:, k]
        middle.plot(result.steps, accuracy, color=color, lw=0.5, alpha=0.5)
        middle.plot(result.steps, accuracy.mean(axis=1), color=color, lw=2, label=method.label)
    middle.axhline(0.75, color="gray", ls=":", lw=1, label="shape alone (75%)")
    middle.axhline(0.1, color="gray", ls="--", lw=1, label="colour alone (10%)")
    middle.axvline(anneal, color="k", ls=":", lw=0.8)
    middle.annotate("SD annealed:\npenalty on", (anneal, 0.97), xytext=(3, 0), textcoords="offset points",
                    fontsize=7, va="top")
    middle.set(title="(b) flipped test set", xlabel="Adam step", ylabel="accuracy", ylim=(0, 1))
    middle.legend(loc="upper right", fontsize=7, ncol=2)
    width = 0.8 / len(result.methods)
    groups = (("train", result.train_accuracy[-1]), ("flipped test", result.test_accuracy[-1]),
              ("no colour", result.shape_accuracy[-1]))
    for color, (k, method) in zip(COLORS, enumerate(result.methods)):
        means = [values[k].mean() for _, values in groups]
        errors = [values[k].std(ddof=1) / np.sqrt(values.shape[1]) if values.shape[1] > 1 else 0.0
                  for _, values in groups]
        right.bar(np.arange(3) + (k - (len(result.methods) - 1) / 2) * width, means, width, yerr=errors,
                  color=color, capsize=2, label=method.label)
    labels = [m.label for m in result.methods]
    for label, paper in gs.COLORED_MNIST_TABLE_2.items():  # the paper's Table 2 (train, flipped test)
        k = labels.index(label)
        offset = (k - (len(result.methods) - 1) / 2) * width
        right.plot(np.arange(2) + offset, paper, "kx", ms=6, mew=1.5, label="paper, Table 2" if k == 0 else None)
    right.set_xticks(np.arange(3), [name for name, _ in groups])
    right.set(title="(c) final accuracy", ylabel="accuracy", ylim=(0, 1.05))
    right.legend(loc="upper right", fontsize=7)
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig
