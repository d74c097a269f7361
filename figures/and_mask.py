"""Figures of the AND-mask theory (Parascandolo et al. 2021; see the theory note, docs/theory/and_mask.md): the
Figure 1 landscapes with GD and AND-masked GD paths, the
Figure 3 arithmetic vs geometric mean ellipses, Figure 4 (masked vs unmasked gradient magnitude against the number of
environments, theory and Monte Carlo), a keep-probability map over (d, SNR) with the threshold s*(τ), the
logistic shortcut task (AND-mask vs averaging), and four of the paper's experiments in miniature, trained by
:mod:`dynamics.and_mask.torch_experiments` (imported inside the figure functions): the memorisation task (Fig 6 and
Fig 14), the learning signals at initialisation (Fig 7), random labels and label noise (Figs 8, 9 and 16 in
spirit) and the number of environments averaging needs (Fig 15 in spirit). Everything else plotted is computed by
:mod:`dynamics.and_mask`."""
import math

import numpy as np

from dynamics.lazy import lazy_module
from .registry import figure
from .style import COLORS, SEQUENTIAL, new_figure

matplotlib = lazy_module("matplotlib")
mcolors = lazy_module("matplotlib.colors")
am = lazy_module("dynamics.and_mask")

P = "Parascandolo et al. 2021,"
FIG1_STARTS = ((-1.3, 1.2), (1.25, -1.3), (0.05, 0.35), (1.3, 1.35), (-1.35, -0.1), (0.35, 0.6))


@figure("and_mask.fig1_landscapes", f"{P} Fig 1 (the landscape is the project's construction)",
        "The pooled loss L = ½(L_A + L_B) (left) and the two environments' losses L_A (middle) and L_B (right), "
        "shown as log10(L + 1e-3), for the project's construction (the paper gives no formula): the soft minimum "
        "q_c·q_e/(q_c + q_e) of a shared bowl q_c around c = (−0.5, −0.5) and one valley q_e per environment "
        "(θ₁ = 0.8 for A, θ₂ = 0.8 for B). The pooled loss has a second zero at s* = (0.8, 0.8) that neither "
        "environment has. Left: plain GD (solid) and AND-masked GD (d = 2, τ = 1; dashed) from six starts (circles), "
        "lr 0.02, 30000 steps; AND-masked GD stops where the environments disagree on every coordinate (squares: "
        "where it ends; open squares around a start: runs whose mask is zero from the first step, which never move). "
        "Middle and right: plain GD on L_A alone and on L_B alone from the same starts, as in the paper's figure: each "
        "ends on its own environment's valley or at c, never at s*.")
def fig1_landscapes(learning_rate=0.02, n_steps=30_000, starts=FIG1_STARTS, n_grid=241):
    fig, axes = new_figure(1, 3, width=11.0, height=4.1)
    axis = np.linspace(-1.5, 1.5, n_grid)
    grid = np.stack(np.meshgrid(axis, axis, indexing="xy"), axis=-1)
    losses = am.two_valley_losses(grid)
    norm = mcolors.Normalize(-3.0, 0.5)
    starts = np.asarray(starts, dtype=float)
    every = max(n_steps // 300, 1)
    pooled = am.two_valley_descent(starts, "pooled", learning_rate, n_steps, record_every=every)
    masked = am.two_valley_descent(starts, "and_mask", learning_rate, n_steps, record_every=every)
    alone_a = am.two_valley_descent(starts, "env_a", learning_rate, n_steps, record_every=every)
    alone_b = am.two_valley_descent(starts, "env_b", learning_rate, n_steps, record_every=every)
    panels = ((axes[0], losses.pooled, "pooled $L = (L_A + L_B)/2$"), (axes[1], losses.loss_a, "environment A: $L_A$"),
              (axes[2], losses.loss_b, "environment B: $L_B$"))
    for ax, values, title in panels:
        image = ax.contourf(axis, axis, np.log10(values + 1e-3), levels=24, cmap=SEQUENTIAL, norm=norm)
        ax.set(title=title, xlabel=r"$\theta_1$", ylabel=r"$\theta_2$", aspect="equal", xlim=(-1.5, 1.5),
               ylim=(-1.5, 1.5))
        ax.grid(False)
    for i in range(len(starts)):
        axes[0].plot(*pooled.paths[i].T, color="w", lw=1.3, label="plain GD on the panel's loss" if i == 0 else None)
        axes[0].plot(*masked.paths[i].T, color=COLORS[1], lw=1.8, ls="--",
                     label="AND-masked GD on $L$" if i == 0 else None)
        axes[1].plot(*alone_a.paths[i].T, color="w", lw=1.3)
        axes[2].plot(*alone_b.paths[i].T, color="w", lw=1.3)
    # A masked run whose mask is zero at its start never moves: its end is its start, marked by an open square
    # around the start's circle; the other masked runs end at a filled square.
    stuck = np.all(masked.paths == starts[:, None, :], axis=(1, 2))
    axes[0].plot(*masked.final[~stuck].T, "s", color=COLORS[1], mec="k", ms=5, label="AND-masked GD: end")
    if stuck.any():
        axes[0].plot(*starts[stuck].T, "s", mfc="none", mec=COLORS[1], mew=1.8, ms=10,
                     label="AND-masked GD: stuck at its start")
    for ax in axes:
        ax.plot(*starts.T, "o", color="w", mec="k", ms=5, label="starts" if ax is axes[0] else None)
        ax.plot(*am.TWO_VALLEY_CONSISTENT_MINIMUM, "*", color=COLORS[2], mec="k", ms=12,
                label="c: minimum of both" if ax is axes[0] else None)
        ax.plot(*am.TWO_VALLEY_INCONSISTENT_MINIMUM, "X", color=COLORS[3], mec="k", ms=10,
                label="s*: pooled minimum only" if ax is axes[0] else None)
    fig.legend(loc="outside lower center", ncol=5, fontsize=8, frameon=True, facecolor="0.75", edgecolor="0.75")
    colorbar = fig.colorbar(image, ax=axes, shrink=0.85)
    colorbar.set_label(r"$\log_{10}(\mathrm{loss} + 10^{-3})$")
    return fig


@figure("and_mask.fig11_patchwork", f"{P} Fig 11 and Eq 5 (the appendix's patchwork example)",
        "The patchwork of two logistic units f_θ(x) = θ5 σ(θ1 x + θ2) + θ6 σ(θ3 x + θ4) fitted to the piecewise-linear "
        "target f* (black) of two noiseless environments, A on [0, 0.5) and B on [0.5, 1] (shaded). θ* = (100, −50, "
        "100, −75, 1, 1) fits both; θ̃* differs only in the second unit's output weight (θ6 = −0.5), which A does not "
        "see: the losses on A agree to 1e-12 while B's grows by 1.06, so the consistency of θ* is at most "
        "−|L_B(θ*) − L_B(θ̃*)|. The legend gives each environment's mean squared error, computed on 2·10⁵-point grids "
        "(the claim and_mask.patchwork_sigmoid holds them to adaptive quadrature). Dotted grey: the same network "
        "with θ6 = 0 and 2, which also leave A unchanged.")
def fig11_patchwork(n_points=801):
    fig, ax = new_figure(1, 1, width=6.4, height=3.9)
    x = np.linspace(0.0, 1.0, n_points)
    ax.axvspan(0.0, 0.5, color=COLORS[0], alpha=0.07, lw=0)
    ax.axvspan(0.5, 1.0, color=COLORS[1], alpha=0.07, lw=0)
    ax.text(0.25, 3.02, "environment A", ha="center", fontsize=8, color=COLORS[0])
    ax.text(0.75, 3.02, "environment B", ha="center", fontsize=8, color=COLORS[1])
    for theta6 in (0.0, 2.0):
        other = am.PATCHWORK_THETA_STAR.copy()
        other[5] = theta6
        ax.plot(x, am.patchwork_model(x, other), color="0.6", ls=":", lw=1.0,
                label=r"$\theta^*$ with $\theta_6$ = 0 or 2" if theta6 == 0 else None)
    ax.plot(x, am.patchwork_target(x), color="k", lw=2.2, label="target $f^*$")
    for theta, color, style, name in ((am.PATCHWORK_THETA_STAR, COLORS[2], "-", r"$\theta^*$"),
                                      (am.PATCHWORK_THETA_TILDE, COLORS[3], "--", r"$\tilde\theta^*$")):
        losses = am.patchwork_losses(theta)
        ax.plot(x, am.patchwork_model(x, theta), color=color, ls=style, lw=1.6,
                label=f"{name}: $L_A$ = {losses.loss_a:.4f}, $L_B$ = {losses.loss_b:.4f}")
    ax.set(xlabel="input x", ylabel="output", xlim=(0.0, 1.0), ylim=(-0.6, 3.2),
           title="a change that environment A cannot see")
    ax.legend(loc="upper left", fontsize=8, bbox_to_anchor=(0.0, 0.95))
    return fig


@figure("and_mask.fig5_dataset", f"{P} Figs 5 and 13 (the synthetic memorisation data set)",
        "The data of the memorisation task, made by dynamics.and_mask.make_spiral_dataset with two environments, "
        "two shortcut dimensions (as the paper's Fig 5 draws them) and the authors' 3-turn spirals. Left: the "
        "mechanism, two interleaved spirals, the same in every environment and in the o.o.d. test set (Fig 13); 256 "
        "training examples of environment A by label. Right: the shortcut block. In each training environment class "
        "+1 carries the environment's signature x_s(e) and class −1 carries −x_s(e) (filled markers; every example of "
        "a class sits on one point, the generator adds no noise), so a boundary through the origin perpendicular to "
        "x_s(A) (blue dashes) separates A, and one perpendicular to x_s(B) (green dashes) separates B. Pooled, "
        "a boundary separates both only if it lies in the wedge between them; the diagonal one, perpendicular to "
        "x̂_s(A) + x̂_s(B) (black), is the natural pooled choice. In the o.o.d. test set the shortcut is drawn per "
        "example (grey dots), so any shortcut boundary is at chance there.")
def fig5_dataset(seed=5, n_per_env=256):
    data = am.make_spiral_dataset(n_envs=2, n_samples_per_env=n_per_env, dim_shortcut=2, n_test=400, seed=seed)
    fig, (left, right) = new_figure(1, 2, width=9.6, height=4.3)
    inputs, labels = data.train_inputs[0], data.train_labels[0]
    for label, color, marker in ((1, COLORS[0], "o"), (-1, COLORS[1], "s")):
        chosen = labels == label
        left.plot(inputs[chosen, 0], inputs[chosen, 1], marker, ms=3, color=color, alpha=0.8, ls="none",
                  label=f"y = {label:+d}".replace("-", "−"))
    left.set(xlabel="mechanism coordinate 1 (standardised)", ylabel="mechanism coordinate 2 (standardised)",
             title="mechanism: two interleaved spirals", aspect="equal")
    left.legend(loc="upper right", fontsize=8)
    right.plot(data.test_inputs[:, 2], data.test_inputs[:, 3], ".", ms=2.5, color="0.7",
               label="o.o.d. test (drawn per example)")
    signatures = []
    for env, name, color in ((0, "A", COLORS[0]), (1, "B", COLORS[2])):
        shortcut, y = data.train_inputs[env, :, 2:], data.train_labels[env]
        signature = shortcut[y == 1][0]
        signatures.append(signature / np.linalg.norm(signature))
        right.plot(*signature, "o", ms=9, color=color, label=f"environment {name}, y = +1")
        right.plot(*(-signature), "s", ms=9, color=color, mfc="white", mew=2, label=f"environment {name}, y = −1")
        normal = np.array([-signature[1], signature[0]]) / np.linalg.norm(signature)
        right.plot(*np.outer([-4, 4], normal).T, ls="--", color=color, lw=1.2,
                   label=f"boundary ⊥ $x_s$({name}): separates {name}")
    pooled = signatures[0] + signatures[1]
    normal = np.array([-pooled[1], pooled[0]]) / np.linalg.norm(pooled)
    right.plot(*np.outer([-4, 4], normal).T, color="k", lw=1.4, label="pooled: separates A and B")
    reach = 1.15 * max(np.abs(data.train_inputs[:, :, 2:]).max(), 2.5)
    right.set(xlabel="shortcut coordinate 1", ylabel="shortcut coordinate 2", xlim=(-reach, reach),
              ylim=(-reach, reach), aspect="equal", title="shortcut: one signature per environment")
    right.legend(loc="upper left", fontsize=7, bbox_to_anchor=(1.02, 1.0))
    return fig


@figure("and_mask.fig3_ellipses", f"{P} Fig 3 (and Fig 12), §2.2",
        "Level sets ½θᵀHθ = ε (ε = 0.005) of H_A = diag(0.01, 1) and H_B = diag(1, 0.01) (thin), with the arithmetic "
        "mean H_{A+B} = ½(H_A + H_B) = 0.505·I (left, the pooled loss) and the geometric (Karcher) mean "
        "H_{A∧B} = 0.1·I (right). The geometric mean keeps the determinant of H_A and H_B (0.01); the arithmetic mean "
        "has a 25.5 times larger determinant (102 times for the sum H_A + H_B, the caption's '100 times').")
def fig3_ellipses(hessian_a=(0.01, 1.0), hessian_b=(1.0, 0.01), eps=0.005):
    fig, axes = new_figure(1, 2, width=7.4, height=3.6)
    h_a, h_b = np.diag(hessian_a), np.diag(hessian_b)
    means = {"arithmetic": 0.5 * (h_a + h_b), "geometric": am.karcher_mean(h_a, h_b)}
    extent = 1.2 * math.sqrt(2 * eps / min(min(hessian_a), min(hessian_b)))
    axis = np.linspace(-extent, extent, 401)
    grid = np.stack(np.meshgrid(axis, axis, indexing="xy"), axis=-1)

    def quadratic(h):
        return 0.5 * np.einsum("...i,ij,...j->...", grid, h, grid)

    ratio = am.amgm_ratio(np.diag(h_a), np.diag(h_b))
    for ax, (name, h_mean) in zip(axes, means.items()):
        ax.contour(axis, axis, quadratic(h_a), levels=[eps], colors=[COLORS[0]], linewidths=1.0)
        ax.contour(axis, axis, quadratic(h_b), levels=[eps], colors=[COLORS[2]], linewidths=1.0)
        ax.contour(axis, axis, quadratic(h_mean), levels=[eps], colors=[COLORS[1]], linewidths=2.2)
        label = r"$H_{A+B} = (H_A + H_B)/2$" if name == "arithmetic" else r"$H_{A\wedge B} = H_A \# H_B$"
        ax.plot([], [], color=COLORS[0], lw=1.0, label=r"$H_A$")
        ax.plot([], [], color=COLORS[2], lw=1.0, label=r"$H_B$")
        ax.plot([], [], color=COLORS[1], lw=2.2, label=label)
        ax.set(aspect="equal", xlabel=r"$\theta_1$", ylabel=r"$\theta_2$",
               title=f"{name} mean: det = {np.linalg.det(h_mean):.4g}")
        ax.legend(loc="upper right", fontsize=7, frameon=True, framealpha=0.9)
    axes[0].text(0.02, 0.02, f"det ratio R = {ratio:.4g}", transform=axes[0].transAxes, fontsize=8)
    return fig


@figure("and_mask.fig4_masked_norm", f"{P} Fig 4, Prop. 2",
        "Squared norm of the mean gradient E‖ḡ‖² = nσ²/d (blue) and of the AND-masked gradient E‖m_t ⊙ ḡ‖² (orange; "
        "t = ⌈0.8d⌉ agreeing signs) for pure-noise gradients, n = 3000 coordinates, σ = 1, against the number of "
        "environments d. Lines: exact closed forms; points: Monte Carlo means over 200 independent 3000-coordinate "
        "gradients (error bars: one standard error, smaller than the markers). Dashed: the corrected Proposition 2 "
        "bound nσ²(d − t + 1)C(d, t)2^{1−d}; dotted: the exponential bound 2nσ²e^{−d·KL(t/d‖½)} = O(n/c^d). "
        "The masked magnitude decays exponentially, the unmasked one like 1/d.")
def fig4_masked_norm(n_params=3000, agreement=0.8, d_max=100, n_repeats=200, seed=4):
    fig, ax = new_figure(1, 1, width=5.6, height=4.0)
    curves = am.masked_norm_curves(np.arange(2, d_max + 1), agreement, n_params)
    ds = curves.n_envs
    ax.semilogy(ds, curves.unmasked, color=COLORS[0], label=r"$E\|\bar g\|^2$ (exact)")
    ax.semilogy(ds, curves.masked, color=COLORS[1], label=r"$E\|m_t \odot \bar g\|^2$ (exact)")
    ax.semilogy(ds, curves.paper_chain, "--", color=COLORS[1], lw=1.0,
                label=r"corrected bound $n\sigma^2(d-t+1)\binom{d}{t}2^{1-d}$")
    ax.semilogy(ds, curves.exponential, ":", color=COLORS[1], lw=1.2,
                label=r"$2n\sigma^2 e^{-d\,\mathrm{KL}(t/d\,\|\,1/2)}$")
    mc_ds = np.unique(np.round(np.geomspace(2, d_max, 12)).astype(int))
    samples = am.masked_norm_samples(mc_ds, agreement, n_params, n_params * n_repeats, seed=seed)
    for i, d in enumerate(samples.n_envs):
        for value, error, color in ((samples.unmasked[i], samples.unmasked_se[i], COLORS[0]),
                                    (samples.masked[i], samples.masked_se[i], COLORS[1])):
            if value > 0:
                ax.errorbar(d, value, yerr=error, fmt="o", ms=4, color=color, mec="k", mew=0.5, capsize=2)
    ax.plot([], [], "o", color="0.6", mec="k", mew=0.5, ms=4, label="Monte Carlo")
    ax.set(xlabel="number of environments $d$", ylabel="expected squared norm (σ = 1)", ylim=(1e-6, 5e3),
           title=f"pure noise, n = {n_params}, t = ⌈{agreement:g}d⌉")
    ax.legend(loc="lower left", fontsize=7)
    return fig


@figure("and_mask.keep_probability_map",
        "derived in this project (Eq 6 of Parascandolo et al. 2021 extended to signal)",
        "Probability π(d, τ, s) that a coordinate passes the AND-mask when its d environment gradients are i.i.d. "
        "N(μ, σ²) with SNR s = μ/σ, for τ = 0.2 (left) and τ = 0.6 (right). White dots: the SNR at which π = ½, solved at each whole d (none where even pure noise passes with π ≥ ½); dashed: the "
        "large-d threshold s*(τ) = Φ⁻¹((1 + τ)/2) (0.253 and 0.842), towards which the dots converge: above it "
        "coordinates are kept with probability → 1, below it they are masked. At small d the map is striped: the "
        "integer threshold ⌈τd⌉ and the parity of d change the kept set from one d to the next.")
def keep_probability_map(taus=(0.2, 0.6), d_max=1024, snr_max=2.0):
    from scipy import optimize  # here, not at import: figures --list needs none of scipy.optimize

    fig, axes = new_figure(1, len(taus), width=4.0 * len(taus) + 0.9, height=4.0)
    axes = np.atleast_1d(axes)
    ds = np.unique(np.round(np.geomspace(1, d_max, 90)).astype(int))
    snrs = np.linspace(0.0, snr_max, 121)
    for ax, tau in zip(axes, taus):
        values = np.array([am.keep_probability(int(d), tau, snrs) for d in ds]).T
        mesh = ax.pcolormesh(ds, snrs, values, shading="nearest", cmap=SEQUENTIAL, vmin=0.0, vmax=1.0, rasterized=True)
        # π = ½ exists at whole d only: solve for it at each d (π rises with s) instead of contouring between d's
        half = [(d, optimize.brentq(lambda s: am.keep_probability(int(d), tau, s) - 0.5, 0.0, 50.0, xtol=1e-10))
                for d in ds if am.keep_probability(int(d), tau, 0.0) < 0.5 < am.keep_probability(int(d), tau, 50.0)]
        ax.plot(*np.array(half).T, "o", ms=2.5, color="w", mec="k", mew=0.3)
        ax.axhline(am.threshold_snr(tau), color="k", ls="--", lw=1.2)
        ax.set(xscale="log", xlabel="number of environments $d$", ylabel="SNR $s = \\mu/\\sigma$", xlim=(1, d_max),
               title=f"τ = {tau:g},  $s^*(\\tau)$ = {am.threshold_snr(tau):.3f}")
        ax.grid(False)
    axes[0].plot([], [], "o", ms=3, color="w", mec="k", mew=0.5, label=r"$\pi = 1/2$ at each $d$ (none where $\pi \geq 1/2$ at $s = 0$)")
    axes[0].plot([], [], color="k", ls="--", lw=1.2, label=r"threshold $s^*(\tau) = \Phi^{-1}((1+\tau)/2)$")
    fig.legend(loc="outside lower center", ncol=2, fontsize=8)
    colorbar = fig.colorbar(mesh, ax=axes, shrink=0.9)
    colorbar.set_label("keep probability π(d, τ, s)")
    return fig


@figure("and_mask.shortcut_task", f"{P} §3.1 (synthetic memorisation, linearised in this project)",
        "The linearised memorisation task: logistic regression on an invariant feature x_M = a·y + N(0, 1) (a = 1) and "
        "32 shortcut features x_S = y·s_e that separate each of 16 environments (256 examples each) perfectly. "
        "Full-batch GD from w = 0 (lr 0.5, 500 steps) with the AND-mask at threshold τ (τ = 0: plain averaging). "
        "Left: accuracy on the o.o.d. test set (shortcuts resampled per example: the mechanism); right: accuracy on a "
        "shortcut probe (training-environment shortcuts, uninformative x_M). Mean ± one standard deviation over 5 "
        "data sets. Dashed: the Bayes accuracy Φ(a) of the invariant feature; dotted: chance.")
def shortcut_task(taus=(0.0, 0.5, 0.8, 1.0), n_seeds=5, learning_rate=0.5, n_steps=500, seed=0):
    fig, axes = new_figure(1, 2, width=7.6, height=3.7)
    sweep = am.shortcut_threshold_sweep(taus, n_seeds, learning_rate, n_steps, seed=seed)
    positions = np.arange(len(taus))
    labels = ["averaging\n(τ = 0)" if t == 0 else f"AND\nτ = {t:g}" for t in taus]
    for ax, values, title in ((axes[0], sweep.test_accuracy, "o.o.d. accuracy (mechanism)"),
                              (axes[1], sweep.shortcut_accuracy, "shortcut probe accuracy")):
        ax.bar(positions, values.mean(axis=1), yerr=values.std(axis=1), color=[COLORS[0]] + [COLORS[1]] * (len(taus) - 1),
               capsize=3, width=0.6)
        ax.axhline(0.5, color="0.3", ls=":", lw=1.0, label="chance")
        ax.set(xticks=positions, xticklabels=labels, ylim=(0.0, 1.05), title=title, ylabel="accuracy")
    axes[1].lines[-1].set_label(None)
    axes[0].axhline(sweep.bayes_accuracy, color="k", ls="--", lw=1.0, label=r"Bayes accuracy $\Phi(a)$")
    fig.legend(loc="outside lower center", ncol=2, fontsize=8)
    return fig


def _setting_label(tau, l1, l2):
    if tau == 0:
        return "average" + (f"\n+ L1 {l1:g}" if l1 else "") + (f"\n+ L2 {l2:g}" if l2 else "")
    return f"AND\nτ = {tau:g}" + (f"\n+ L1 {l1:g}" if l1 else "") + (f"\n+ L2 {l2:g}" if l2 else "")


@figure("and_mask.spiral_memorisation", f"{P} Fig 6 and Fig 14 (the authors' code setting)",
        "The synthetic memorisation task, drawn from the committed record (python -m verify --record "
        "and_mask.spiral_memorisation): two interleaved 3-turn spirals carry the label in every environment, and a "
        "16-dimensional shortcut signature ±x_s(e) separates each of 16 training environments (1024 examples each) "
        "perfectly; the o.o.d. test set (2000 examples) draws the shortcut per example. MLP 3 × 256 LeakyReLU, "
        "minibatches of 256 examples per environment, Adam lr 1e-2 with weight decay 1e-3 (×0.1 at ¾), 600 steps: "
        "the authors' public code (the paper: 32 environments × 1280, 32 shortcut dimensions, the best run of a "
        "search re-run with 50 seeds). Left: final accuracy on the training environments and o.o.d. of plain "
        "averaging and of the AND-mask at τ = 1 with inverse-sparsity rescaling (mean ± sd over the record's seeds, "
        "dots: seeds). Right: learning curves (seed mean; solid: training, dashed: o.o.d.). Dotted: chance. Below "
        "the panels: the record's verdict against the paper.")
def spiral_memorisation():
    from .registry import record, verdict_line

    saved = record("and_mask.spiral_memorisation")
    run = saved.result
    fig, axes = new_figure(1, 2, width=10.5, height=3.9, gridspec_kw=dict(width_ratios=(1.6, 1.0)))
    k = len(run.agreement_thresholds)
    positions = np.arange(k)
    for offset, values, color, name in ((-0.18, run.train_accuracy[..., -1], COLORS[0], "training environments"),
                                        (0.18, run.test_accuracy[..., -1], COLORS[1], "o.o.d. test")):
        axes[0].bar(positions + offset, values.mean(axis=1), yerr=values.std(axis=1), width=0.36, color=color,
                    capsize=2, label=name)
        for j in range(values.shape[1]):
            axes[0].plot(positions + offset, values[:, j], "o", ms=2.5, color="k", alpha=0.6)
    axes[0].axhline(0.5, color="0.3", ls=":", lw=1.0)
    labels = [_setting_label(*row) for row in zip(run.agreement_thresholds, run.l1_penalties, run.l2_penalties)]
    axes[0].set(xticks=positions, ylim=(0.0, 1.05), ylabel="accuracy (fraction correct)",
                title=f"final accuracy ({len(run.seeds)} seeds)")
    axes[0].set_xticklabels(labels, fontsize=7)
    axes[0].legend(loc="lower left", fontsize=7, frameon=True, framealpha=0.9)
    plain = int(np.flatnonzero(run.agreement_thresholds == 0)[0])  # averaging (with the record's weight decay)
    masked = int(np.argmax(run.agreement_thresholds))
    for index, color, name in ((plain, COLORS[0], "average"), (masked, COLORS[1],
                                                               f"AND τ = {run.agreement_thresholds[masked]:g}")):
        axes[1].plot(run.steps, run.train_accuracy[index].mean(axis=0), color=color, label=f"{name}: training")
        axes[1].plot(run.steps, run.test_accuracy[index].mean(axis=0), color=color, ls="--", label=f"{name}: o.o.d.")
    axes[1].axhline(0.5, color="0.3", ls=":", lw=1.0)
    axes[1].set(xlabel="Adam step", ylabel="accuracy (fraction correct)", ylim=(0.3, 1.02), title="learning curves")
    axes[1].legend(loc="lower right", fontsize=7, frameon=True, framealpha=0.9)
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


@figure("and_mask.learning_signals", f"{P} Fig 7",
        "Dissecting the learning signals at initialisation (no training), drawn from the committed record (python -m "
        "verify --record and_mask.learning_signals) at the paper's size: a LeakyReLU MLP 3 × 256 on the memorisation "
        "task (16 environments × 1024 examples, 3-turn spirals, 8 shortcut dimensions), 40 weight seeds, each with "
        "its own data. Per seed and threshold τ: the Pearson correlation, over the components the mask keeps, of the "
        "average gradient with the mechanism gradient (solid; shortcut redrawn per example) and with the memorisation "
        "gradient (dashed; spirals replaced by an independent draw), both minus the gradient on label-free inputs "
        "(definitions in the theory note). One τ axis as in the paper: the XOR-mask (keeps the components on which "
        "the environments disagree) to the left of τ = 0, the AND-mask to the right; lines: mean over the seeds that "
        "keep at least 3 components, bands: ± one standard error. Right: the fraction of the parameters each mask "
        "keeps. Below the panels: the record's verdict against the paper.")
def learning_signals():
    from .registry import record, verdict_line

    saved = record("and_mask.learning_signals")
    run = saved.result
    fig, axes = new_figure(1, 2, width=10.5, height=3.9, gridspec_kw=dict(width_ratios=(1.5, 1.0)))
    taus = run.agreement_thresholds

    def band(ax, x, values, color, style, label):
        valid = ~np.isnan(values)
        count = valid.sum(axis=0)
        filled = np.where(valid, values, 0.0)
        mean = np.where(count > 0, filled.sum(axis=0) / np.maximum(count, 1), np.nan)
        spread = np.where(valid, values - mean, 0.0)
        se = np.where(count > 1, np.sqrt((spread ** 2).sum(axis=0) / np.maximum(count - 1, 1) / np.maximum(count, 1)),
                      np.nan)
        ax.plot(x, mean, style, color=color, label=label, marker="o", ms=3)
        ax.fill_between(x, mean - se, mean + se, color=color, alpha=0.2, lw=0)

    for side, mech, mem in ((-1, run.xor_mechanism, run.xor_memorisation), (1, run.and_mechanism, run.and_memorisation)):
        band(axes[0], side * taus, mech, COLORS[2], "-", "with the mechanism gradient" if side > 0 else None)
        band(axes[0], side * taus, mem, COLORS[3], "--", "with the memorisation gradient" if side > 0 else None)
    for ax in axes:
        ax.axvline(0.0, color="0.5", lw=0.8)
        ax.set_xticks([-1, -0.5, 0, 0.5, 1], ["1", "0.5", "0", "0.5", "1"])
        ax.set_xlabel("agreement threshold τ\n← XOR-mask        AND-mask →")
    axes[0].axhline(0.0, color="0.3", lw=0.8, ls=":")
    axes[0].set(ylabel="correlation over kept components", ylim=(-0.3, 1.0),
                title=f"correlation of the masked average gradient ({len(run.and_mechanism)} seeds)")
    axes[0].legend(loc="upper left", fontsize=7)
    axes[1].semilogy(-taus, run.xor_kept_fraction.mean(axis=0), "o-", ms=3, color=COLORS[4], label="XOR-mask")
    axes[1].semilogy(taus, run.and_kept_fraction.mean(axis=0), "o-", ms=3, color=COLORS[0], label="AND-mask")
    axes[1].set(ylabel="fraction of parameters kept", title="mask density")
    axes[1].legend(loc="lower center", fontsize=7)
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


@figure("and_mask.noisy_labels", f"{P} Figs 8, 9 and 16 in spirit (a generated tabular task instead of CIFAR-10)",
        "Random labels, label noise and clean labels with each example its own environment, drawn from three "
        "committed records (python -m verify --record and_mask.noisy_labels, and_mask.label_noise, "
        "and_mask.clean_labels), all at one size: 1024 Gaussian inputs in 32 dimensions labelled by a random linear "
        "teacher, an MLP 2 × 256 LeakyReLU, the paper's batches of 80 examples = 80 environments, Adam lr 5e-3 "
        "(×0.1 at ¾) for 2000 steps, the AND-mask at τ with inverse-sparsity rescaling (τ = 0: plain averaging), "
        "5 seeds (the paper: FastResNet on CIFAR-10, 2 seeds). (a) All labels random: training accuracy "
        "(Fig 8). (b) 25% of the labels shuffled: accuracy on the mislabelled training examples against their "
        "wrong labels; below chance means the network predicts their true class (Fig 9, left). (c) The same runs "
        "on clean test data (Fig 9, right). (d) Clean labels: final training and test accuracy against τ, mean "
        "and seeds (Fig 16). Lines in (a)-(c): mean over seeds; dotted: chance. Below the panels: each record's "
        "verdict against the paper.")
def noisy_labels():
    from .registry import record, verdict_lines

    saved = {name: record(f"and_mask.{name}") for name in ("noisy_labels", "label_noise", "clean_labels")}
    random_labels, label_noise, clean = (saved[name].result for name in saved)
    fig, axes = new_figure(2, 2, width=10.0, height=7.2)
    (a, b), (c, d) = axes
    every = sorted(set(random_labels.agreement_thresholds) | set(label_noise.agreement_thresholds))
    colors = dict(zip(every, matplotlib.colormaps[SEQUENTIAL](np.linspace(0.0, 0.85, len(every)))))
    panels = ((a, random_labels, random_labels.train_accuracy, "(a) random labels: training accuracy",
               "accuracy on the random labels"),
              (b, label_noise, label_noise.mislabelled_accuracy, "(b) 25% shuffled: the mislabelled examples",
               "accuracy against their wrong labels"),
              (c, label_noise, label_noise.test_accuracy, "(c) 25% shuffled: clean test data",
               "test accuracy (fraction correct)"))
    for ax, run, values, title, ylabel in panels:
        for i, tau in enumerate(run.agreement_thresholds):
            ax.plot(run.steps, values[i].mean(axis=0), color=colors[tau],
                    label="averaging (τ = 0)" if tau == 0 else f"AND τ = {tau:g}")
        ax.axhline(0.5, color="0.3", ls=":", lw=1.0)
        ax.set(xlabel="Adam step", ylabel=ylabel, ylim=(0.0, 1.03), title=title)
    taus = clean.agreement_thresholds
    for values, style, marker, name in ((clean.train_accuracy[..., -1], "--", "s", "training"),
                                        (clean.test_accuracy[..., -1], "-", "o", "test")):
        d.plot(taus, values.mean(axis=1), ls=style, marker=marker, ms=5, color=COLORS[0], label=f"{name} (mean)")
        for j in range(values.shape[1]):
            d.plot(taus, values[:, j], marker, color=COLORS[0], alpha=0.35, ms=3)
    d.axhline(0.5, color="0.3", ls=":", lw=1.0)
    d.set(xlabel="agreement threshold τ", ylabel="final accuracy (fraction correct)", ylim=(0.0, 1.03),
          title="(d) clean labels: training and test against τ")
    d.legend(loc="lower left", fontsize=8)
    handles, labels = a.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", fontsize=8)
    verdict_lines(fig, [("random labels (Fig 8)", saved["noisy_labels"].verdict),
                        ("label noise (Fig 9)", saved["label_noise"].verdict),
                        ("clean labels (Figs 8, 16)", saved["clean_labels"].verdict)])
    return fig


@figure("and_mask.environments_needed", f"{P} Fig 15 (and Fig 6)",
        "How many environments plain averaging needs before it learns the mechanism, against the AND-mask, drawn "
        "from the committed record (python -m verify --record and_mask.environments_needed): the memorisation task "
        "(0.75-turn spirals, 16 shortcut dimensions, MLP 3 × 64 LeakyReLU, Adam lr 1e-2, 1000 full-batch steps) "
        "with 4096 training examples in all, split evenly over d environments, each with its own shortcut "
        "signature, trained by plain averaging (τ = 0, blue) and by the AND-mask at τ = 1 with the inverse-sparsity "
        "rescaling (orange) from the same data and initial weights. Accuracy on the o.o.d. test set (1000 "
        "examples, shortcut drawn per example; solid, circles) and on the training environments (dashed, squares) "
        "against d; lines: mean over the record's seeds, dots: seeds. With few environments averaging memorises "
        "the signatures (o.o.d. near chance) and with many it switches to the spirals; the AND-mask, which keeps "
        "only the gradient components every environment agrees on, no longer fits the training signatures from "
        "d = 16 and beats averaging out of distribution there, but with many environments of few examples each "
        "τ = 1 masks almost everything and it stops learning. Dotted: chance. Below the panel: the record's verdict "
        "against the paper, which sees averaging switch at 1024 environments.")
def environments_needed():
    from .registry import record, verdict_line

    saved = record("and_mask.environments_needed")
    sweep = saved.result
    fig, ax = new_figure(1, 1, width=5.6, height=4.6)
    for i, tau in enumerate(sweep.thresholds):
        method = "averaging (τ = 0)" if tau == 0 else f"AND-mask (τ = {tau:g})"
        for values, style, marker, name in ((sweep.test_accuracy[i], "-", "o", "o.o.d. test"),
                                            (sweep.train_accuracy[i], "--", "s", "training")):
            ax.plot(sweep.n_envs, values.mean(axis=1), ls=style, marker=marker, ms=5, color=COLORS[i],
                    label=f"{method}: {name}")
            for j in range(values.shape[1]):
                ax.plot(sweep.n_envs, values[:, j], ".", color=COLORS[i], alpha=0.5, ms=5)
    ax.axhline(0.5, color="0.3", ls=":", lw=1.0)
    lowest = min(float(sweep.test_accuracy.min()), float(sweep.train_accuracy.min()))
    ax.set(xscale="log", xlabel=f"number of training environments d ({saved.config.n_total} examples in all)",
           ylabel="accuracy (fraction correct)", ylim=(min(0.4, lowest - 0.03), 1.03),
           title=f"plain averaging against the AND-mask ({len(saved.seeds)} seeds)")
    ax.set_xticks(sweep.n_envs)
    ax.set_xticklabels([str(d) for d in sweep.n_envs])
    ax.minorticks_off()
    ax.legend(loc="lower left", fontsize=7, frameon=True, framealpha=0.9)  # below the curves at few environments
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig
