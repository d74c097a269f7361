"""Figures of the spurious-correlation theory (Barsbey et al. 2025; Idrissi et al. 2022, reprinted as Pezeshki
(thesis) Ch. 8): Proposition 1's ratio and bounds, Proposition 2's growth vs saturation, the parity learning-rate
sweep and its BC-loss-share correlation (torch), the linear toy's worst-group curves and the coverage of reweighted
sampling."""
import importlib.util

import numpy as np

from dynamics.lazy import lazy_module
from .registry import figure
from .style import COLORS, SEQUENTIAL, new_figure, seed_band

matplotlib = lazy_module("matplotlib")
mcolors = lazy_module("matplotlib.colors")
spur = lazy_module("dynamics.spurious")


@figure("spurious.prop1_ratio", "Barsbey et al. 2025, Prop. 1, Eq. 1, supp. D.1",
        "Proposition 1 in exact form: R(k)e^{−αk}/k for n_bc = 10 BC and n_ba = 90 BA samples with shared margins "
        "α = β = 1 (solid), between the two-sided bounds valid for every k > 0 (dashed: lower; dotted: upper), "
        "tending to the limit n_bc β/n_ba = 1/9, which for shared margins is the normalised lower bound itself: "
        "the paper's O(k e^{αk}) is a Θ. Inset: heterogeneous margins "
        "α = {0.5, 1, 2}, β = {0.3, 1.5}, normalised by e^{−α_min k}/k, tending to Σβ/m_min = 1.8.")
def prop1_ratio(n_bc=10, n_ba=90, alpha=1.0, beta=1.0, hetero_alpha=(0.5, 1.0, 2.0), hetero_beta=(0.3, 1.5)):
    fig, ax = new_figure(1, 1, width=5.4, height=3.8)
    k = np.geomspace(0.1, 40.0, 300)
    ba, bc = np.full(n_ba, alpha), np.full(n_bc, beta)
    scale = -alpha * k - np.log(k)
    ratio = np.exp(spur.bc_ba_loss_ratio(k, ba, bc, log=True) + scale)
    lower, upper = (np.exp(b + scale) for b in spur.bc_ba_loss_ratio_bounds(k, ba, bc, log=True))
    limit = spur.bc_ba_loss_ratio_asymptote(ba, bc).constant
    ax.plot(k, ratio, color=COLORS[0], label=r"$R(k)\,e^{-\alpha k}/k$")
    ax.plot(k, upper, ":", color=COLORS[2], lw=2, label="upper bound")
    # with shared margins the normalised lower bound k n_bc β e^{αk}/(n_ba k e^{αk}) is the limit itself
    ax.plot(k, lower, "--", color=COLORS[1], label=rf"lower bound = limit $n_{{bc}}\beta/n_{{ba}} = {limit:.4f}$")
    ax.set(xscale="log", yscale="log", xlabel=r"logit scale $k$", ylabel=r"$R(k)\,e^{-\alpha k}/k$",
           title=rf"$n_{{bc}} = {n_bc}$, $n_{{ba}} = {n_ba}$, $\alpha = \beta = {alpha:g}$")
    ax.legend(loc="center right", bbox_to_anchor=(1.0, 0.3))
    inset = ax.inset_axes([0.55, 0.55, 0.42, 0.4])
    ha, hb = np.asarray(hetero_alpha, float), np.asarray(hetero_beta, float)
    asym = spur.bc_ba_loss_ratio_asymptote(ha, hb)
    k2 = np.linspace(1.0, 40.0, 200)
    inset.plot(k2, np.exp(spur.bc_ba_loss_ratio(k2, ha, hb, log=True) - asym.rate * k2 - np.log(k2)), color=COLORS[0])
    inset.axhline(asym.constant, color="0.5", lw=1)
    inset.set_xlabel(r"$k$", fontsize=8, labelpad=1)
    inset.set_ylabel(r"$R\,e^{-\alpha_{\min} k}/k$", fontsize=8, labelpad=1)
    inset.set_title(rf"heterogeneous: limit $\Sigma\beta/m_{{\min}} = {asym.constant:g}$", fontsize=8)
    inset.tick_params(labelsize=7)
    return fig


@figure("spurious.prop2_ratio", "Barsbey et al. 2025, supp. D.2, Def. 1, Prop. 2, Eq. 8",
        "Proposition 2 needs a converged core: log of the spurious/core gradient-norm ratio Σσ(−km)s/Σσ(−km)c vs the "
        "logit scale k. Bias-decomposable fixture (BA margins {0.5, 1, 2, 1}, BC {−0.3, −1.5}, core gradients 0 on "
        "BC): slope α_min = 0.5 (dashed: the asymptote log 2 + 0.5k). Linear two-block model f = W_c x_c + W_s x_s "
        "(400 Gaussian samples, 10% BC, |margin| >= 0.25, seed 0): the core gradient never vanishes and the ratio "
        "saturates at Σ_BC s/Σ_BC c (dotted); on the main axis the two are one flat line, and the inset magnifies "
        "them for k ≤ 10, where the ratio dips and then settles on its saturation.")
def prop2_ratio(k_max=40.0, seed=0):
    fig, ax = new_figure(1, 1, width=5.0, height=3.6)
    k = np.linspace(0.1, k_max, 300)
    fixture = spur.bias_decomposable_fixture()
    asym = spur.spurious_core_gradient_ratio_asymptote(*fixture)
    ax.plot(k, spur.spurious_core_gradient_ratio(k, *fixture, log=True), color=COLORS[0],
            label="bias-decomposable fixture")
    ax.plot(k, np.log(asym.constant) + asym.rate * k, "--", color=COLORS[0], lw=1,
            label=rf"asymptote: slope $\alpha_{{\min}} = {asym.rate:g}$")
    control = spur.linear_two_block_fixture(seed=seed)
    saturation = spur.spurious_core_gradient_ratio_asymptote(*control)
    control_ratio = spur.spurious_core_gradient_ratio(k, *control, log=True)
    ax.plot(k, control_ratio, color=COLORS[1], label="linear two-block model (inset: magnified)")
    ax.axhline(np.log(saturation.constant), ls=":", color="k", lw=1.2,
               label=r"its saturation $\log(\Sigma_{BC}\,s_i / \Sigma_{BC}\,c_i)$")
    ax.set(xlabel=r"logit scale $k$", ylabel=r"$\log\; \Sigma\|\nabla_s \ell\| \,/\, \Sigma\|\nabla_c \ell\|$")
    ax.legend(loc="upper left")
    # On the main axis the two-block model and its saturation are one flat line near 0: the inset magnifies them.
    inset = ax.inset_axes([0.6, 0.2, 0.37, 0.28])
    inset.plot(k, control_ratio, color=COLORS[1], lw=2.6)
    inset.axhline(np.log(saturation.constant), ls=":", color="k", lw=1.2)
    inset.set_xlim(0, min(10.0, k_max))
    inset.margins(y=0.25)
    inset.set_title("two-block model, magnified", fontsize=8)
    inset.set_xlabel(r"$k$", fontsize=8, labelpad=1)
    inset.tick_params(labelsize=7)
    return fig


def _torch_missing(fig, ax, what):
    ax.text(0.5, 0.5, f"{what}\nneeds torch (pip install torch==2.13.0)", ha="center", va="center",
            transform=ax.transAxes)
    ax.set_axis_off()
    return fig


_REPRESENTATION = (("unbiased_accuracy", "unbiased test accuracy"),
                   ("activation_compressibility", "act. compressibility"), ("activation_sparsity", "act. sparsity"),
                   ("class_separation", r"class separation $R^2$"), ("max_bc_loss_share", "max BC loss share"))
_PRUNING = (("node_prunability", "node prunability"), ("magnitude_prunability", "magnitude prunability"),
            ("class_selectivity", "CSI"))
_PRUNING_COLORS = (COLORS[7], COLORS[5], "#882255")  # black, sky blue, wine: none of the left panel's


@figure("spurious.parity_lr_sweep", "Barsbey et al. 2025, Fig. 3 (left), Table 1 (parity row)",
        "Parity task at the paper's sizes (C = 6 core, S = 2 spurious, N = 12 noise bits, ρ = 0.1, 10000 training "
        "samples; FCN 20→200→200→2, no bias, SGD batch 100 to 100% training accuracy or 800 epochs, float32), η in "
        "{0.01, 0.03, 0.1, 0.3, 0.75}, 10 seeds, drawn from the committed record (python -m verify --record "
        "spurious.parity_lr_sweep). Each metric is min-max normalised over all runs (its range in the legend); "
        "dots are seeds, lines seed means. Left: Table 1's accuracy and representation columns and Fig. 12's BC "
        "loss share; right: prunability (ratio definition: incoming-L2 node and magnitude pruning) and the class "
        "selectivity index. Below: the record's verdict, column by column, against the paper's rising trends.")
def parity_lr_sweep():
    from .registry import record, verdict_line

    saved = record("spurious.parity_lr_sweep")
    sweep = saved.result
    fig, axes = new_figure(1, 2, width=9.6, height=3.8, sharey=True)
    lrs = np.array(sweep.learning_rates)
    rng = np.random.default_rng(0)
    jitter = np.exp(rng.uniform(-0.06, 0.06, len(sweep.seeds)))
    # The two panels show different metrics, so they share no colour: the right one takes colours the left lacks.
    for ax, group, colors, title in ((axes[0], _REPRESENTATION, COLORS[:5], "accuracy and representation"),
                                     (axes[1], _PRUNING, _PRUNING_COLORS, "prunability and selectivity")):
        for color, (name, label) in zip(colors, group):
            values = sweep.metric(name)
            low, high = np.nanmin(values), np.nanmax(values)
            normalised = (values - low) / (high - low) if high > low else np.zeros_like(values)
            for i, lr in enumerate(lrs):
                ax.plot(lr * jitter, normalised[i], "o", ms=3, color=color, alpha=0.45, mec="none")
            ax.plot(lrs, np.nanmean(normalised, axis=1), "-", color=color, label=f"{label} [{low:.3g}, {high:.3g}]")
        ax.set(xscale="log", xlabel=r"learning rate $\eta$", title=title)
        ax.set_xticks(lrs, [f"{lr:g}" for lr in lrs])
        ax.minorticks_off()
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=7)
    axes[0].set_ylabel("min-max normalised value")
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


@figure("spurious.bc_share_vs_accuracy", "Barsbey et al. 2025, Fig. 12",
        "Unbiased test accuracy against the maximum per-minibatch BC loss share over training, one point per run of "
        "the parity sweep's record (η in {0.01, 0.03, 0.1, 0.3, 0.75}, seeds 0-9; set-up as in "
        "spurious.parity_lr_sweep), coloured by η; the title gives the Spearman correlation over the runs.")
def bc_share_vs_accuracy():
    from scipy import stats
    from .registry import record

    sweep = record("spurious.parity_lr_sweep").result
    fig, ax = new_figure(1, 1, width=5.0, height=3.8)
    share = sweep.metric("max_bc_loss_share")
    accuracy = sweep.metric("unbiased_accuracy")
    # One discrete colour per learning rate (darker = smaller η), and a colour bar with one tick per rate.
    n_rates = len(sweep.learning_rates)
    which = np.repeat(np.arange(n_rates)[:, None], share.shape[1], axis=1)
    cmap = mcolors.ListedColormap(matplotlib.colormaps[SEQUENTIAL](np.linspace(0.0, 0.9, n_rates)))
    points = ax.scatter(share.ravel(), accuracy.ravel(), c=which.ravel(), cmap=cmap,
                        norm=mcolors.BoundaryNorm(np.arange(n_rates + 1) - 0.5, n_rates), s=24, edgecolors="k",
                        linewidths=0.4)
    colorbar = fig.colorbar(points, ax=ax, ticks=np.arange(n_rates))
    colorbar.ax.set_yticklabels([f"{lr:g}" for lr in sweep.learning_rates])
    colorbar.ax.minorticks_off()
    colorbar.set_label(r"learning rate $\eta$")
    rho = stats.spearmanr(share.ravel(), accuracy.ravel()).statistic
    ax.set(xlabel="max BC loss share over training", ylabel="unbiased test accuracy",
           title=f"Spearman ρ = {rho:.2f} over {share.size} runs")
    return fig


def _rate_colors(n_rates):
    """One colour per learning rate of a sweep, darker = smaller η (as in spurious.bc_share_vs_accuracy)."""
    return matplotlib.colormaps[SEQUENTIAL](np.linspace(0.0, 0.9, n_rates))


_MECHANISM_SIZE = ("parity task at the paper's sizes (C = 6 core, S = 2 spurious, N = 12 noise bits, ρ = 0.1, 10000 "
                   "training samples; FCN 20→200→200→2 without bias, SGD batch 100 to 100% training accuracy or 800 "
                   "epochs, float32), η in {0.01, 0.03, 0.1, 0.3, 0.75}, 10 seeds: the runs of the parity sweep, "
                   "drawn from the committed record (python -m verify --record NAME)")


@figure("spurious.pruning_curves", "Barsbey et al. 2025, Figs. 20-21, Table 1 (prunability)",
        "Retention of unbiased test accuracy, accuracy(κ)/accuracy(0), against the pruned fraction κ: (a) a "
        "fraction κ of each hidden layer's neurons with the smallest incoming L2 norm (the paper's column pruning, "
        "Fig. 20), (b) a fraction κ of each weight matrix's smallest-magnitude entries (Fig. 21). One line per "
        "learning rate (seed mean, band: seed range); the dotted line is chance (0.5) over the unpruned "
        "accuracy of the largest η. " + _MECHANISM_SIZE.replace("NAME", "spurious.pruning_curves") +
        ". Below: the record's verdict against the paper.")
def pruning_curves():
    from .registry import record, verdict_line

    saved = record("spurious.pruning_curves")
    sweep = saved.result
    kappa = np.array(spur.PRUNE_FRACTIONS)
    fig, axes = new_figure(1, 2, width=9.6, height=3.8, sharey=True)
    colors = _rate_colors(len(sweep.learning_rates))
    for ax, field, title in ((axes[0], "node_pruned_accuracy", "(a) node (column) pruning"),
                             (axes[1], "magnitude_pruned_accuracy", "(b) magnitude pruning")):
        for i, (lr, color) in enumerate(zip(sweep.learning_rates, colors)):
            retention = np.array([spur.retention_ratios(getattr(run, field), run.unbiased_accuracy)
                                  for run in sweep.runs[i]])
            ax.fill_between(kappa, retention.min(axis=0), retention.max(axis=0), color=color, alpha=0.15, lw=0)
            ax.plot(kappa, retention.mean(axis=0), "o-", ms=3, color=color, label=rf"$\eta = {lr:g}$")
        chance = 0.5 / np.mean([run.unbiased_accuracy for run in sweep.runs[-1]])
        ax.axhline(chance, color="0.4", ls=":", lw=1, label=rf"chance / acc(0) at $\eta = {sweep.learning_rates[-1]:g}$")
        ax.set(xlabel=r"pruned fraction $\kappa$", title=title)
    axes[0].set_ylabel("accuracy retained, acc(κ) / acc(0)")
    axes[1].legend(loc="center left", fontsize=8)
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


@figure("spurious.csi_attribution", "Barsbey et al. 2025, Fig. 26",
        "The class-selectivity index (CSI) of the penultimate layer beside the share of integrated-gradient "
        "attribution on the core bits (zero baseline, margin z₁ − z₀, 1000 unbiased test inputs). (a) Both against "
        "the learning rate (seed means, bars: seed range; CSI on the left axis, the share on the right). (b) One "
        "point per run, coloured by η, with the Spearman correlation. " +
        _MECHANISM_SIZE.replace("NAME", "spurious.csi_attribution") + ". Below: the record's verdict against the paper.")
def csi_attribution():
    from scipy import stats
    from .registry import record, verdict_line

    saved = record("spurious.csi_attribution")
    sweep = saved.result
    lrs = np.array(sweep.learning_rates)
    csi, core = sweep.metric("class_selectivity"), sweep.metric("core_attribution_share")
    fig, (left, right) = new_figure(1, 2, width=9.6, height=3.8)
    twin = left.twinx()
    for ax, values, color, style, label, shift in ((left, csi, COLORS[0], "o-", "CSI (left axis)", 0.97),
                                                   (twin, core, COLORS[1], "s--", "core attribution share (right axis)",
                                                    1.03)):
        mean = values.mean(axis=1)
        ax.errorbar(lrs * shift, mean, yerr=[mean - values.min(axis=1), values.max(axis=1) - mean], fmt=style, ms=4,
                    color=color, capsize=2, label=label)
        ax.tick_params(axis="y", colors=color)
    left.set(xscale="log", xlabel=r"learning rate $\eta$", title="(a) against the learning rate")
    left.set_ylabel("CSI", color=COLORS[0])
    twin.set_ylabel("core attribution share", color=COLORS[1])
    twin.grid(False)
    twin.spines["right"].set_visible(True)
    left.set_xticks(lrs, [f"{lr:g}" for lr in lrs])
    left.minorticks_off()
    handles = [h for ax in (left, twin) for h in ax.get_legend_handles_labels()[0]]
    left.legend(handles, [h.get_label() for h in handles], loc="upper left", fontsize=7.5)
    for i, (lr, color) in enumerate(zip(lrs, _rate_colors(lrs.size))):
        right.scatter(csi[i], core[i], color=color, s=22, edgecolors="k", linewidths=0.4, label=rf"$\eta = {lr:g}$")
    rho = stats.spearmanr(csi.ravel(), core.ravel()).statistic
    right.set(xlabel="CSI", ylabel="core attribution share",
              title=f"(b) one point per run: Spearman ρ = {rho:.2f}")
    right.legend(loc="lower right", fontsize=7.5)
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


@figure("spurious.neuron_resets", "Barsbey et al. 2025, Fig. 28 (bottom)",
        "Spurious-feature utilisation of single neurons over training, measured as the bias-selectivity index (BSI) "
        "on 1000 unbiased test inputs every 20 SGD steps. (a) For seed 0 at the smallest and the largest η: the "
        "neuron whose BSI peaks highest (thick) and the mean over the 200 penultimate neurons (thin), against the "
        "SGD step. (b) Per run, the mean over neurons of each one's largest fall below its running peak of BSI "
        "(dots: seeds, line: their mean). " + _MECHANISM_SIZE.replace("NAME", "spurious.neuron_resets") +
        ". Below: the record's verdict against the paper.")
def neuron_resets():
    from .registry import record, verdict_line

    saved = record("spurious.neuron_resets")
    sweep = saved.result
    every = 20  # dynamics.spurious.torch_training.SELECTIVITY_EVERY, read without importing torch
    lrs = np.array(sweep.learning_rates)
    colors = _rate_colors(lrs.size)
    fig, (left, right) = new_figure(1, 2, width=9.6, height=3.8)
    for i in (0, lrs.size - 1):
        run = sweep.runs[i][0]
        steps = every * np.arange(run.top_neuron_bias_selectivity.size)
        left.plot(steps[1:], run.top_neuron_bias_selectivity[1:], color=colors[i], lw=1.6,
                  label=rf"$\eta = {lrs[i]:g}$: the most bias-selective neuron")
        left.plot(steps[1:], run.bias_selectivity_history[1:], color=colors[i], lw=0.8, ls="--",
                  label=rf"$\eta = {lrs[i]:g}$: mean over neurons")
    left.set(xscale="log", xlabel="SGD step (log scale; the first reading, at step 0, left out)",
             ylabel="bias-selectivity index (BSI)", title="(a) seed 0", ylim=(0, 0.95))
    left.legend(loc="upper left", fontsize=7, ncol=2)
    drawdown = sweep.metric("bias_selectivity_drawdown")
    jitter = np.exp(np.random.default_rng(0).uniform(-0.06, 0.06, drawdown.shape[1]))
    for i, color in enumerate(colors):
        right.plot(lrs[i] * jitter, drawdown[i], "o", ms=4, color=color, alpha=0.7, mec="none")
    right.plot(lrs, drawdown.mean(axis=1), "-", color="0.2")
    right.set(xscale="log", xlabel=r"learning rate $\eta$", ylabel="largest fall of BSI below its peak",
              title="(b) mean over the neurons of a run")
    right.set_xticks(lrs, [f"{lr:g}" for lr in lrs])
    right.minorticks_off()
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


@figure("spurious.loss_landscapes", "Barsbey et al. 2025, Fig. 9",
        "Landscapes around the final weights θ of seed 0 at three learning rates (columns), on the plane θ + a·d₁ + "
        "b·d₂ of two Gaussian directions normalised neuron by neuron (Li et al. 2018), a, b in [−1, 1]: training "
        "cross-entropy (top, log colour scale), unbiased test accuracy (middle) and the mean bias-selectivity index "
        "of the penultimate layer, the spurious-feature utilisation (bottom); one colour scale per row. " +
        _MECHANISM_SIZE.replace("NAME", "spurious.loss_landscapes") + ". Below: the record's verdict, which reads the "
        "planes of every run.")
def loss_landscapes():
    from .registry import record, verdict_line

    saved = record("spurious.loss_landscapes")
    sweep = saved.result
    lrs = list(sweep.learning_rates)
    columns = [0, len(lrs) // 2, len(lrs) - 1]
    fig, axes = new_figure(3, 3, width=9.6, height=8.4, sharex=True, sharey=True)
    planes = np.array([sweep.runs[i][0].landscape for i in columns])  # (column, quantity, a, b)
    extent = (-1, 1, -1, 1)
    rows = (("training loss", mcolors.LogNorm(vmin=planes[:, 0].min(), vmax=planes[:, 0].max()), "magma"),
            ("unbiased accuracy", mcolors.Normalize(vmin=planes[:, 1].min(), vmax=planes[:, 1].max()), "viridis"),
            ("mean BSI", mcolors.Normalize(vmin=planes[:, 2].min(), vmax=planes[:, 2].max()), "cividis"))
    for r, (label, norm, cmap) in enumerate(rows):
        for c, i in enumerate(columns):
            ax = axes[r, c]
            image = ax.imshow(planes[c, r].T, origin="lower", extent=extent, norm=norm, cmap=cmap)
            ax.plot(0, 0, "+", color="w", ms=8)
            ax.grid(False)
            if r == 0:
                ax.set_title(rf"$\eta = {lrs[i]:g}$")
            if r == 2:
                ax.set_xlabel("a (along d₁)")
            if c == 0:
                ax.set_ylabel("b (along d₂)")
        fig.colorbar(image, ax=axes[r, :].tolist(), label=label, shrink=0.9)
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


_MOON_STAR_GROUPS = ((3, "star, quadrant of stars (BA)"), (0, "moon, quadrant of moons (BA)"),
                     (2, "star, quadrant of moons (BC)"), (1, "moon, quadrant of stars (BC)"))
_MOON_STAR_ACCURACIES = (("unbiased_accuracy", "unbiased"), ("ba_accuracy", "bias-aligned"),
                         ("bc_accuracy", "bias-conflicting"))


@figure("spurious.moon_star", "Barsbey et al. 2025, Fig. 15, Table 1 (Moon-Star row)",
        "A moon-star-like task (this project's rendering of the data set of Geirhos et al. 2020, which the paper "
        "does not specify): (a) two images of each group, drawn by dynamics.spurious.make_moon_star_like at the "
        "record's image size: a filled five-pointed star (class 1) or a crescent (class 0) of random size and "
        "rotation in one quadrant, the pair top-right/bottom-left holding stars and top-left/bottom-right moons "
        "on the bias-aligned (BA) images, the other way round on the bias-conflicting (BC) ones (10% of the "
        "training set, half of the test set). (b) Unbiased, BA and BC test accuracy at η = 0.01 and 0.75, drawn "
        "from the committed record (python -m verify --record spurious.moon_star): 10000 training images of 32 × "
        "32 pixels, 5000 unbiased test images, FCN 1024→200→200→2 without bias, plain SGD batch 100 to 100% "
        "training accuracy (cap 600 epochs), 10 seeds; dots are seeds, short horizontal lines their means. Only "
        "the direction is compared with the paper (its images, and so its accuracies of 74.3-81.2%, are not "
        "ours). Below: the record's verdict.")
def moon_star():
    from .registry import record, verdict_line

    saved = record("spurious.moon_star")
    runs, config = saved.result, saved.config
    fig, (ax_images, ax) = new_figure(1, 2, width=9.6, height=3.9, gridspec_kw={"width_ratios": (0.75, 1.25)})
    # (a) a montage: one row per group, two images each, a one-pixel gap between the tiles
    size, gap, per_group = config.image_size, 1, 2
    data = spur.make_moon_star_like(400, 0.5, size, seed=0)
    step = size + gap
    montage = np.full((len(_MOON_STAR_GROUPS) * step - gap, per_group * step - gap), np.nan)
    for i, (group, _) in enumerate(_MOON_STAR_GROUPS):
        for k, index in enumerate(np.flatnonzero(data.group == group)[:per_group]):
            montage[i * step:i * step + size, k * step:k * step + size] = data.x[index].reshape(size, size)
            row, col = i * step + size / 2 - 0.5, k * step + size / 2 - 0.5  # the quadrants' borders, faint
            ax_images.plot([k * step - 0.5, k * step + size - 0.5], [row, row], color="0.45", lw=0.5)
            ax_images.plot([col, col], [i * step - 0.5, i * step + size - 0.5], color="0.45", lw=0.5)
    cmap = matplotlib.colormaps["gray"].with_extremes(bad="white")  # white objects on black tiles, white gaps
    ax_images.imshow(montage, cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
    ax_images.set_yticks([i * step + size / 2 - 0.5 for i in range(len(_MOON_STAR_GROUPS))],
                         [label for _, label in _MOON_STAR_GROUPS], fontsize=7)
    ax_images.set_xticks([])
    ax_images.grid(False)
    for spine in ax_images.spines.values():
        spine.set_visible(False)
    ax_images.set_title(f"(a) the four groups, {size} × {size} pixels")
    # (b) the record's accuracies at the stop
    rng = np.random.default_rng(0)
    width = 0.36
    for c, (lr, color) in enumerate(zip(runs.learning_rates, (COLORS[0], COLORS[1]))):
        for j, (field, _) in enumerate(_MOON_STAR_ACCURACIES):
            values = getattr(runs, field)[c]
            x = j + (c - 0.5) * width
            ax.plot(x + rng.uniform(-0.08, 0.08, values.size), values, "o", color=color, ms=3.5, mec="none",
                    alpha=0.6)
            ax.plot([x - 0.4 * width, x + 0.4 * width], [values.mean()] * 2, "-", color=color, lw=2.5,
                    label=rf"$\eta = {lr:g}$: seeds, mean" if j == 0 else None)
    ax.set_xticks(range(len(_MOON_STAR_ACCURACIES)), [label for _, label in _MOON_STAR_ACCURACIES])
    low = min(float(np.min(getattr(runs, field))) for field, _ in _MOON_STAR_ACCURACIES)
    ax.set(ylabel="test accuracy", ylim=(max(0.0, low - 0.15 * (1 - low)), 1.0 + 0.02 * (1 - low)),
           title=f"(b) test accuracy at the stop, {len(runs.seeds)} seeds")
    ax.legend(loc="upper right", fontsize=8)
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


@figure("spurious.toy_worst_group_curves", "Pezeshki (thesis), §8.4, Ch. 8 Fig. 1",
        "The Chapter 8 linear toy (n = 400, d = 600 noise features, γ = (4, 1, 2), σ = 0.15, ρ_spu = 0.8; SGD lr "
        "1e-5, momentum 0.9, batch 100, no weight decay, 500 epochs; numpy trainer, seeds 0-2): test worst-group "
        "accuracy against epochs, seed mean (line) and range (band). ERM memorises the minority through the noise "
        "and fails; SUBG succeeds and stays; RWG succeeds early and degrades with training. Markers: RWG's "
        "validation-selected epochs.")
def toy_worst_group_curves(n_samples=400, n_noise=600, learning_rate=1e-5, batch_size=100, n_epochs=500,
                           n_seeds=3, methods=("erm", "subg", "rwg")):
    fig, ax = new_figure(1, 1, width=5.6, height=3.6)
    labels = {"erm": "ERM", "suby": "SUBY", "subg": "SUBG", "rwy": "RWY", "rwg": "RWG", "jtt": "JTT", "gdro": "gDRO"}
    config = spur.BalancingToyConfig.ci()._replace(n_samples=n_samples, n_noise=n_noise, learning_rate=learning_rate,
                                                   batch_size=batch_size, n_epochs=n_epochs)
    toy = spur.balancing_toy_runs(range(n_seeds), methods, config)
    runs = toy.runs
    for color, m in zip(COLORS, methods):
        curves = toy.test_worst_group_curves(m)
        epochs = runs[m][0].epochs
        # the mean above the axes' spines and not clipped: ERM's lies on 0 for the whole run
        seed_band(ax, epochs, curves, color, label=labels[m], zorder=3, clip_on=False)
        if m == "rwg":
            chosen = [r.selected_epoch for r in runs[m]]
            ax.plot(chosen, [r.selected_test_worst_group for r in runs[m]], "v", color=color, mec="k", mew=0.5,
                    label="RWG, validation-selected")
    ax.set(xlabel="epoch", ylabel="test worst-group accuracy", ylim=(-0.06, 1.06), xlim=(0, n_epochs))
    ax.legend(loc="center left", bbox_to_anchor=(0.03, 0.5))  # every method is at 0 or 1 early on
    return fig


@figure("spurious.reweighting_coverage", "Pezeshki (thesis), §8.5.4",
        "Reweighting sees few majority examples: expected fraction of distinct examples drawn, 1 − (1 − 1/N)^k, for "
        "the CelebA not-blond (majority) groups under RWG (N/4 = 40692.5 group-balanced draws per group and epoch, "
        "N = 162770), and for the not-blond class under RWY (N/2 draws per epoch). The combined coverage is 0.444 "
        "after one epoch and 0.828 after three: the thesis's '44% after 3 epochs' belongs to one epoch.")
def reweighting_coverage(max_epochs=6.0):
    fig, ax = new_figure(1, 1, width=5.2, height=3.6)
    table = spur.BENCHMARK_GROUP_COUNTS["celeba"]
    sizes = table.counts[0]
    epochs = np.linspace(0.0, max_epochs, 400)
    rwg = spur.reweighting_coverage(table.counts, epochs, balance="group")
    for color, size, attribute, fraction in zip(COLORS, sizes, table.attributes, rwg.stratum_fractions[0]):
        ax.plot(epochs, fraction, color=color, label=f"RWG, not blond / {attribute} (N = {size})")
    combined = rwg.class_fractions[0]
    ax.plot(epochs, combined, color="k", lw=2, label="RWG, both majority groups")
    rwy = spur.reweighting_coverage(table.counts, epochs, balance="class").class_fractions[0]
    ax.plot(epochs, rwy, "--", color=COLORS[2], label=f"RWY, not-blond class (N = {int(sizes.sum())})")
    for e in (1, 3):
        value = float(np.interp(e, epochs, combined))
        ax.axvline(e, color="0.6", ls=":", lw=1)
        ax.plot(e, value, "o", color="k", ms=5)
        ax.annotate(f"{value:.3f} after {e} epoch{'s' if e > 1 else ''}", (e, value), xytext=(8, -14),
                    textcoords="offset points", fontsize=8)
    ax.set(xlabel="epochs of reweighted sampling", ylabel="fraction of distinct examples seen", ylim=(0, 1.02),
           xlim=(0, max_epochs))
    ax.legend(loc="lower right")
    return fig


# ---------------------------------------------------------------- large-learning-rate experiments
_GROUP_LABELS = ("core bits", "spurious bits", "noise bits")


@figure("spurious.lr_attributions_over_training", "Barsbey et al. 2025, Fig. 3 (right)",
        "Share of integrated-gradient attribution (|IG| of the logit margin, zero baseline, mean over 500 unbiased "
        "test inputs) on the 6 core, 2 spurious and 12 noise bits of the parity task over SGD steps, at a low "
        "(η = 0.05, left) and a high (η = 0.75, right) learning rate, drawn from the committed record (python -m "
        "verify --record spurious.lr_attributions) at the paper's parity sizes: 10000 training samples, FCN "
        "20→200→200→2 without bias, batch 100, SGD to 100% training accuracy, 10 seeds. Lines are seed means, "
        "bands the seed range; a run that has stopped keeps its last value. Below: the record's verdict against "
        "the paper.")
def lr_attributions_over_training():
    from .registry import record, verdict_line

    saved = record("spurious.lr_attributions")
    runs = saved.result
    fig, axes = new_figure(1, 2, width=9.6, height=3.6, sharey=True)
    steps = runs.record_steps
    for c, ax in enumerate(axes):
        for g, (color, label) in enumerate(zip(COLORS, _GROUP_LABELS)):
            seed_band(ax, steps, runs.attribution_shares[c, :, :, g], color, label=label)
        ax.set(xlabel="SGD step", title=rf"$\eta = {runs.learning_rates[c]:g}$", ylim=(0, 1))
    axes[0].set_ylabel("share of |IG| attribution")
    axes[1].legend(loc="upper right")
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


@figure("spurious.lr_bc_loss_share", "Barsbey et al. 2025, Fig. 13",
        "Share of the minibatch cross-entropy carried by its bias-conflicting samples, Σ_BC ℓ / Σ ℓ before each "
        "update, over SGD steps at a low (η = 0.05) and a high (η = 0.75) learning rate on the parity task, drawn "
        "from the committed record (python -m verify --record spurious.lr_bc_loss_share) at the paper's parity "
        "sizes: 10000 training samples, FCN 20→200→200→2 without bias, batch 100, SGD to 100% training accuracy, "
        "10 seeds. Thin lines: each seed, smoothed over one epoch (100 steps); thick: the seed mean of the "
        "smoothed curves while every seed trains; markers: each seed's maximum share over training, the paper's "
        "statistic (Fig. 12). Dotted: the BC fraction of the training set (0.1), the share of a loss equal on "
        "every sample. Below: the record's verdict against the paper.")
def lr_bc_loss_share():
    from .registry import record, verdict_line

    saved = record("spurious.lr_bc_loss_share")
    runs, config = saved.result, saved.config
    smooth = -(-config.task.n_train // config.batch_size)  # steps per epoch
    fig, ax = new_figure(1, 1, width=6.4, height=4.0)
    kernel = np.ones(smooth) / smooth
    for c, (color, style) in enumerate(zip((COLORS[0], COLORS[1]), ("--", "-"))):
        curves = []
        for s in range(runs.bc_loss_share.shape[1]):
            share = runs.bc_loss_share[c, s]
            share = share[np.isfinite(share)]
            smoothed = np.convolve(share, kernel, mode="valid") if share.size >= smooth else share
            curves.append(smoothed)
            ax.plot(np.arange(smoothed.size) + smooth - 1, smoothed, color=color, lw=0.6, alpha=0.45)
            peak = int(np.argmax(share))
            ax.plot(max(peak, smooth - 1), share[peak], "v", color=color, ms=4, alpha=0.8)
        common = min(curve.size for curve in curves)
        ax.plot(np.arange(common) + smooth - 1, np.mean([curve[:common] for curve in curves], axis=0), style,
                color=color, lw=2, zorder=3, label=rf"$\eta = {runs.learning_rates[c]:g}$ (seed mean)")
    ax.plot([], [], "v", color="0.3", ms=4, label="maximum share of a run")
    ax.axhline(0.1, color="0.4", ls=":", lw=1, label="BC fraction of the training set")
    last = np.flatnonzero(np.isfinite(runs.bc_loss_share).any(axis=(0, 1)))[-1]
    ax.set(xscale="log", xlabel="SGD step (log scale)", ylabel="BC share of the minibatch loss", ylim=(0, 1),
           xlim=(smooth - 1, max(last, smooth)))
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 0.13), fontsize=8)
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


@figure("spurious.lr_width_spread", "Barsbey et al. 2025, §5 and Table 1 (spread of unbiased accuracy over "
        "learning rates against model size)",
        "Left: unbiased test accuracy against the SGD learning rate on the parity task at hidden widths 8, 32, 128 "
        "and 512 (seed mean; bars: seed range). Right: the spread max − min of accuracy over the learning rates "
        "against the width (dots: seeds; line: their mean). Drawn from the committed record (python "
        "-m verify --record spurious.lr_width_spread) at the paper's parity sizes (10000 training samples, C = 6 "
        "core, S = 2 spurious, N = 12 noise bits, FCN with 2 hidden layers and no bias, batch 100, to 100% "
        "training accuracy or 800 epochs), η = 0.05 against 0.75, 5 seeds; the paper compares an FCN, ResNet18 "
        "and ResNet50 on Colored MNIST. Below: the record's verdict against the paper.")
def lr_width_spread():
    from .registry import record, verdict_line

    saved = record("spurious.lr_width_spread")
    sweep = saved.result
    fig, axes = new_figure(1, 2, width=9.6, height=3.6)
    lrs = sweep.learning_rates
    for color, w, acc in zip(COLORS, sweep.widths, sweep.unbiased_accuracy):
        mean = acc.mean(axis=1)
        axes[0].errorbar(lrs, mean, yerr=[mean - acc.min(axis=1), acc.max(axis=1) - mean], fmt="o-", color=color,
                         ms=4, capsize=3, label=f"width {w}")
    axes[0].axhline(0.5, color="0.5", ls=":", lw=1, label="chance")
    axes[0].set(xscale="log", xlabel=r"learning rate $\eta$", ylabel="unbiased test accuracy", ylim=(0.4, 1.0))
    axes[0].set_xticks(lrs, [f"{lr:g}" for lr in lrs])
    axes[0].minorticks_off()
    axes[0].legend(loc="lower center", fontsize=8, ncol=2)
    for s in range(sweep.spread.shape[1]):
        axes[1].plot(sweep.widths, sweep.spread[:, s], "o", color=COLORS[0], alpha=0.5, mec="none",
                     label="one seed" if s == 0 else None)
    axes[1].plot(sweep.widths, sweep.spread.mean(axis=1), "-", color=COLORS[0], lw=2,
                 label="mean over seeds (the verdict's)")
    axes[1].set(xscale="log", xlabel="hidden width (units per layer)",
                ylabel="max − min accuracy over η", ylim=(0, 0.6))
    axes[1].set_xticks(sweep.widths, [str(w) for w in sweep.widths])
    axes[1].minorticks_off()
    axes[1].legend(loc="lower right", fontsize=8)
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


_VARIANT_LABELS = {"constant": "constant SGD", "annealed": "SGD, η × 0.1\nafter iteration {step}", "adam": "Adam",
                   "long": "SGD to CE < 1e-5"}


@figure("spurious.lr_robustness", "Barsbey et al. 2025, Figs. 22-23 (annealing, Adam)",
        "Unbiased test accuracy (left) and share of integrated-gradient attribution on the core bits at the stop "
        "(right) at a low and a high learning rate under three protocols on the parity task, drawn from the "
        "committed record (python -m verify --record spurious.lr_robustness) at the paper's parity sizes (10000 "
        "training samples, width 200, batch 100, C = 6 core bits, to 100% training accuracy or 800 epochs): "
        "constant SGD (η = 0.05 against 0.75), SGD with η × 0.1 after iteration 1000 (as the paper anneals), and "
        "Adam (η = 1e-3 against 1e-2, β = (0.9, 0.999)). Dots: seeds 0-9; bars: seed means; the numbers under the "
        "bars are the learning rates. Training on to CE < 1e-5 (the paper's Fig. 24) is not drawn. Below: the "
        "record's verdict against the paper.")
def lr_robustness():
    from .registry import record, verdict_line

    saved = record("spurious.lr_robustness")
    rob = saved.result
    fig, axes = new_figure(1, 2, width=9.6, height=3.6)
    rng = np.random.default_rng(0)
    for ax, (name, label) in zip(axes, (("unbiased_accuracy", "unbiased test accuracy"),
                                        ("core_share", "core share of |IG| at the stop"))):
        for v, runs in enumerate(rob.runs):
            values = (runs.final_attribution_shares[..., 0] if name == "core_share"
                      else getattr(runs, name))
            for c, (color, offset) in enumerate(((COLORS[0], -0.18), (COLORS[1], 0.18))):
                ax.bar(v + offset, values[c].mean(), width=0.34, color=color, alpha=0.35,
                       label=("low η" if c == 0 else "high η") if v == 0 else None)
                ax.plot(v + offset + rng.uniform(-0.08, 0.08, values.shape[1]), values[c], "o", color=color, ms=4)
                ax.annotate(f"{rob.learning_rates[v][c]:g}", (v + offset, 0.02), ha="center", fontsize=7)
        ax.set_xticks(range(len(rob.variants)), [_VARIANT_LABELS[v].format(step=1000) for v in rob.variants])
        ax.set(ylabel=label, ylim=(0, 1))
    axes[0].axhline(0.5, color="0.4", ls=":", lw=1)
    axes[0].legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, fontsize=8, frameon=False)
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


@figure("spurious.lr_interventions", "Barsbey et al. 2025, Figs. 6 and 19, Table 2",
        "Unbiased test accuracy (left) and the core share of integrated-gradient attribution at the stop (right) "
        "on the parity task for interventions at the low learning rate η = 0.05 (plain SGD; momentum 0.9; L1 "
        "1e-4; L2 5e-3; focal loss γ = 2; batch 25 instead of 100) and at the high learning rate η = 0.75 "
        "(plain; with L2 1e-3). One value per intervention where the paper sweeps a range. Drawn from the "
        "committed record (python -m verify --record spurious.lr_interventions) at the paper's parity sizes "
        "(10000 training samples, width 200, C = 6 core bits) with at most 200 epochs: a row that has not fitted "
        "its training set by then stops there. Dots: seeds 0-9; bars: seed means. Below: the record's verdict "
        "against the paper.")
def lr_interventions():
    from .registry import record, verdict_line

    saved = record("spurious.lr_interventions")
    runs = saved.result
    fig, axes = new_figure(1, 2, width=9.6, height=3.8, sharey=True)
    labels = [f"{n} (η {lr:g}, B {b})" for n, lr, b in zip(runs.names, runs.learning_rates, runs.batch_sizes)]
    y = np.arange(len(labels))[::-1]
    for ax, values, xlabel in ((axes[0], runs.unbiased_accuracy, "unbiased test accuracy"),
                               (axes[1], runs.core_share, "core share of |IG| at the stop")):
        colors = [COLORS[1] if lr == max(runs.learning_rates) else COLORS[0] for lr in runs.learning_rates]
        ax.barh(y, values.mean(axis=1), color=colors, alpha=0.35, height=0.6)
        for yi, row, color in zip(y, values, colors):
            ax.plot(row, np.full(row.shape, yi), "o", color=color, ms=4)
        ax.set(xlabel=xlabel, xlim=(0, 1))
    axes[0].axvline(0.5, color="0.4", ls=":", lw=1)
    axes[0].set_yticks(y, labels, fontsize=8)
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig

# ---------------------------------------------------------------- data-balancing experiments
# The experiments in miniature of Idrissi et al. 2022 (reprinted as Pezeshki (thesis) Ch. 8) on the linear toy,
# drawn from dynamics.spurious.torch_balancing (imported lazily: listing the figures never loads torch).
BALANCING_LABELS = {"erm": "ERM", "suby": "SUBY", "subg": "SUBG", "rwy": "RWY", "rwg": "RWG", "jtt": "JTT",
                    "gdro": "gDRO"}
BALANCING_ORDER = ("erm", "jtt", "suby", "rwy", "subg", "rwg", "gdro")  # the thesis's Table 2 order: no groups first
GROUP_METHODS = ("subg", "rwg", "gdro")  # the methods that use group labels in training


def _mean_interval(values):
    """Seed mean and the half-width of its two-sided 95% t interval (0 for one seed)."""
    from scipy import stats

    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return float(values.mean()), 0.0
    return float(values.mean()), float(stats.t.isf(0.025, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size))


@figure("spurious.balancing_methods", "Pezeshki (thesis), Ch. 8 Tables 2-3 / Idrissi et al. 2022",
        "The seven balancing methods on the linear toy of the thesis's Ch. 8 Fig. 1 at the authors' code's size, "
        "drawn from the committed record (python -m verify --record spurious.balancing_methods): n = 1000, d = 1200 "
        "noise features, γ = (4, 1, 2); SGD lr 1e-5, momentum 0.9, batch 250, 500 epochs; JTT T = 1, λ_up = 20; "
        "gDRO η = 0.1; 8 seeds (the thesis: ResNet/BERT on four benchmarks, 50 hyper-parameter draws, 5 repeats). "
        "Test worst-group accuracy at the epoch selected by the worst-group validation accuracy (filled) and by "
        "the average validation accuracy, which needs no group labels (open); seed mean with its 95% t interval, "
        "dots per seed. Shaded: the methods that use group labels in training. Below: the record's verdict "
        "against the thesis's Tables 2 and 3.")
def balancing_methods():
    from .registry import record, verdict_line

    saved = record("spurious.balancing_methods")
    result = saved.result
    fig, ax = new_figure(1, 1, width=6.4, height=3.8)
    order = [m for m in BALANCING_ORDER if m in result.methods]
    grouped = [i for i, m in enumerate(order) if m in GROUP_METHODS]
    ax.axvspan(min(grouped) - 0.5, max(grouped) + 0.5, color="0.92", lw=0, zorder=0)
    ax.text(min(grouped) - 0.4, 0.5, "uses group labels\nin training", fontsize=8, color="0.35", va="center")
    rng = np.random.default_rng(0)
    for offset, values, color, face, label in (
            (-0.15, result.selected_test_worst_group, COLORS[0], COLORS[0], "selected by worst-group val. accuracy"),
            (0.15, result.average_selected_test_worst_group, COLORS[1], "white", "selected by average val. accuracy")):
        for i, m in enumerate(order):
            per_seed = values[result.methods.index(m)]
            mean, half = _mean_interval(per_seed)
            ax.plot(i + offset + rng.uniform(-0.05, 0.05, per_seed.size), per_seed, ".", color=color, alpha=0.35,
                    ms=4, zorder=2)
            ax.errorbar(i + offset, mean, yerr=half, fmt="o", color=color, mfc=face, ms=6, capsize=3, zorder=3,
                        label=label if i == 0 else None)
    ax.set_xticks(range(len(order)), [BALANCING_LABELS[m] for m in order])
    ax.set(ylabel="test worst-group accuracy", ylim=(-0.05, 1.12), xlim=(-0.6, len(order) - 0.4),
           title=f"linear toy, {len(result.seeds)} seeds, {result.epochs[-1]} epochs (mean, 95% interval)")
    ax.legend(loc="upper left", fontsize=8)
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


@figure("spurious.balancing_train_test_gap", "Pezeshki (thesis), Ch. 8 Fig. 2, §8.5.3 / Idrissi et al. 2022",
        "Train-test worst-group gap on the linear toy at the authors' code's size, drawn from the committed record "
        "(python -m verify --record spurious.balancing_train_test_gap): n = 1000, d = 1200 noise features, γ = "
        "(4, 1, 2), SGD lr 1e-5, momentum 0.9, batch 250, 500 epochs, 8 seeds (the thesis shows ResNet/BERT on "
        "four benchmarks). Worst-group accuracy on the method's own training set (dashed; SUBG's is its "
        "subsample) and on the test set (solid), seed mean and range. ERM and RWG memorise the minority through "
        "the noise features: their training worst-group accuracy keeps rising while the test one stays at 0 (ERM) "
        "or collapses after its early peak (RWG); SUBG fits its balanced subsample and generalises. Below: the "
        "record's verdict against the thesis.")
def balancing_train_test_gap():
    from .registry import record, verdict_line

    saved = record("spurious.balancing_train_test_gap")
    result = saved.result
    fig, axes = new_figure(1, 3, width=9.6, height=3.4, sharey=True)
    for ax, m in zip(axes, result.methods):
        i = result.methods.index(m)
        for acc, style, label in ((result.train_group_acc[i], "--", "train"), (result.test_group_acc[i], "-", "test")):
            color = COLORS[0] if label == "train" else COLORS[1]
            seed_band(ax, result.epochs, acc.min(axis=-1), color, style, label=f"{label} worst-group accuracy")
        ax.set(title=BALANCING_LABELS[m], xlabel="epoch", xlim=(0, result.epochs[-1]), ylim=(-0.03, 1.03))
    axes[0].set_ylabel("worst-group accuracy")
    axes[0].legend(loc="upper right", fontsize=8)
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig


@figure("spurious.balancing_decision_maps", "Pezeshki (thesis), §8.4, Ch. 8 Fig. 1 / Idrissi et al. 2022",
        "The thesis's Ch. 8 Fig. 1 in full, drawn from the committed record (python -m verify --record "
        "spurious.decision_maps) at the authors' code's size: n = 1000, d = 1200 noise features, γ = (4, 1, 2), SGD "
        "lr 1e-5, momentum 0.9, batch 250, 500 epochs, 8 seeds. Left: test worst-group accuracy against epochs for "
        "ERM, SUBG and RWG (seed mean and range; markers: the epochs selected by worst-group validation accuracy). "
        "Right: each method's decision heat map at its selected epoch (seed 0): sigmoid(wᵀx̃) over the "
        "(γ_spu x_spu, γ_core x_core) plane, x̃ carrying the noise of the nearest training sample, with the "
        "training points (circles: majority, crosses: minority; colour: class) and the 1/2 contour; dashed: the "
        "boundary without noise, which classifies the noise-free test set (the box gives the fraction of the "
        "plane where it agrees with the core rule x_core > 0). Below: the record's verdict against the thesis.")
def balancing_decision_maps():
    from .registry import record, verdict_line

    fig, axes = new_figure(1, 4, width=13.0, height=3.3)
    if importlib.util.find_spec("torch") is None:  # the maps are drawn by the torch layer's decision_maps
        return _torch_missing(fig, axes[0], "the decision heat maps of the linear toy")
    from dynamics.spurious import torch_balancing as tb

    saved = record("spurious.decision_maps")
    result = saved.result._replace(splits=tb.balancing_toy_splits(saved.config, saved.result.seeds))
    ax = axes[0]
    for color, m in zip(COLORS, result.methods):
        i = result.methods.index(m)
        seed_band(ax, result.epochs, result.test_group_acc[i].min(axis=-1), color, label=BALANCING_LABELS[m])
        ax.plot(result.selected_epoch[i], result.selected_test_worst_group[i], "v", color=color, mec="k", mew=0.4,
                ms=5)
    ax.set(xlabel="epoch", ylabel="test worst-group accuracy", ylim=(-0.03, 1.03), xlim=(0, result.epochs[-1]))
    ax.legend(loc="center right", fontsize=8)
    train = result.splits[0].train
    scaled = train.x[:, :2] * result.feature_scales[:2]
    for ax, m in zip(axes[1:], result.methods):
        maps = tb.decision_maps(result, m)
        image = ax.imshow(maps.probabilities[0], origin="lower", aspect="auto", cmap="RdBu_r", vmin=0, vmax=1,
                          extent=(maps.spurious_grid[0], maps.spurious_grid[-1], maps.core_grid[0], maps.core_grid[-1]))
        ax.contour(maps.spurious_grid, maps.core_grid, maps.probabilities[0], levels=[0.5], colors="k",
                   linewidths=0.8)
        rule = tb.decision_maps(result, m, noise="none")  # the test-time rule: the toy's test noise is zero
        ax.contour(rule.spurious_grid, rule.core_grid, rule.probabilities[0], levels=[0.5], colors="k",
                   linewidths=1.4, linestyles="--")
        for b, marker, size in ((1, "o", 6), (0, "x", 14)):
            chosen = train.b == b
            ax.scatter(scaled[chosen, 0], scaled[chosen, 1], c=np.where(train.y[chosen] == 1, "#b2182b", "#2166ac"),
                       marker=marker, s=size, linewidths=0.6, edgecolors="w" if marker == "o" else None)
        i = result.methods.index(m)
        ax.set(title=f"{BALANCING_LABELS[m]}, selected epoch {result.selected_epoch[i, 0]}",
               xlabel=r"$\gamma_{spu}\, x_{spu}$")
        ax.text(0.03, 0.04, f"dashed rule = core rule\non {rule.core_rule_agreement[0]:.0%} of the plane", fontsize=7,
                transform=ax.transAxes, bbox=dict(facecolor="white", alpha=0.8, lw=0, pad=1.5))
    axes[1].set_ylabel(r"$\gamma_{core}\, x_{core}$")
    colorbar = fig.colorbar(image, ax=axes[1:], fraction=0.03, pad=0.01)
    colorbar.set_label("P(class 1)")
    verdict_line(fig, saved.verdict, saved.reduced)
    return fig

