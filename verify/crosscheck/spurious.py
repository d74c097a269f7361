"""Torch cross-checks of the spurious-correlation theory.

* ``spurious.ce_gradient_identity``: autograd ‖∇_θ CE(k f)‖ = kσ(−km)‖∇_θ m‖ on a float64 MLP, whole θ and per
  block, and the per-sample scalings of Proposition 2 of Barsbey et al. 2025.
* ``spurious.prop1_on_network``: torch cross-entropy sums on the logits of a parity network that predicts by the
  spurious rule equal ``bc_ba_loss_ratio_from_logits``; the ratio grows with k towards the asymptote.
* the parity learning-rate sweep (Barsbey et al. 2025, Fig. 3, Fig. 12, Table 1 parity row), one sweep shared by
  five claims (memoised in ``dynamics.spurious.torch_training``); prunability and CSI are recorded, not asserted:
  the paper's trends in them were not reproduced on the parity task (see the theory note, docs/theory/spurious.md).
* ``spurious.toy_torch_agreement``: torch SGD replaying the numpy linear-toy trainer's index orders.

The parity thresholds are effect-size floors set by this project (below the effects of a pilot reproduction and
rechecked on 8 seeds of this implementation), not statistical tolerances: a sweep of 5 seeds has no standard
error worth the name.
"""
import math

import numpy as np

from dynamics import spurious as spur
from . import crosscheck, experiment
from ..records import RecordPlan, record_plan
from ..registry import Check, lazy_module, paired_bound, planted_bug, rank_correlation_bound

stats = lazy_module("scipy.stats")

PARITY_CPU = dict(learning_rates=(0.03, 0.75), n_seeds=5, config=spur.ParitySweepConfig.ci())
PARITY_CUDA = dict(learning_rates=(0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75), n_seeds=32,
                   config=spur.ParitySweepConfig.source()._replace(epoch_cap=1000))
LOW_LR, HIGH_LR = 0.03, 0.75


def _parity_sweep(ctx):
    from dynamics.spurious import torch_training as tt

    setting = ctx.size(cpu=PARITY_CPU, cuda=PARITY_CUDA)
    seeds = [ctx.run.seed(s) for s in range(setting["n_seeds"])]
    return tt.parity_lr_sweep(setting["learning_rates"], seeds, setting["config"], device=ctx.device)


def _pair(sweep, name):
    """The metric at the low and the high learning rate, one value per seed."""
    values = sweep.metric(name)
    return values[sweep.learning_rates.index(LOW_LR)], values[sweep.learning_rates.index(HIGH_LR)]


def _recorded(sweep):
    """Per-η seed means of every recorded metric (the report shows prunability and CSI too, which are not
    asserted)."""
    from dynamics.spurious.torch_training import PARITY_METRICS

    parts = []
    for name in PARITY_METRICS:
        means = np.nanmean(sweep.metric(name), axis=1)
        parts.append(f"{name} " + "/".join(f"{m:.3g}" for m in means))
    return f"η = {'/'.join(f'{lr:g}' for lr in sweep.learning_rates)}: " + "; ".join(parts)


@crosscheck("spurious.ce_gradient_identity", "Barsbey et al. 2025, supp. D.2, Prop. 2, Eqs. 10-11; the exact "
            "identity is derived in this project",
            "For a random float64 MLP 10→32→32→2 (16 samples on CPU, 256 on CUDA, random labels) and k in "
            "{0.5, 1, 5, 20}, the autograd norm of ∇_θ CE(k f(x), y) equals scaled_ce_grad_norm = kσ(−km)‖∇_θ m‖ "
            "with m = f[y] − f[1−y] and ‖∇_θ m‖ also by autograd, to 1e-6 relative (float64 gives ~1e-13), for "
            "the whole θ, the first layer and the rest; BC samples have 0 <= 1 − ‖∇ℓ‖/(k‖∇m‖) <= e^{−k|m|} and "
            "BA samples ‖∇ℓ‖ <= k e^{−km}‖∇m‖ (1e-10 relative slack).", cost="fast")
def ce_gradient_identity(ctx):
    from dynamics.spurious import torch_training as tt

    result = tt.gradient_identity(n_samples=ctx.size(cpu=16, cuda=256), seed=ctx.run.seed(101), device=ctx.device)
    k = result.logit_scales[:, None, None]
    m = result.margins[None, :, None]
    predicted = spur.scaled_ce_grad_norm(k, m, result.margin_grad_norms[None])
    rel = float(np.max(np.abs(result.loss_grad_norms - predicted) / predicted))
    ratio = result.loss_grad_norms[..., 0] / (k[..., 0] * result.margin_grad_norms[None, :, 0])
    kk, mm = k[..., 0], m[..., 0]
    bc, ba = np.broadcast_to(mm < 0, ratio.shape), np.broadcast_to(mm > 0, ratio.shape)
    slack = 1e-10
    deficit = 1.0 - ratio
    bc_violation = max(float(np.max(-deficit[bc], initial=-1.0)),
                       float(np.max((deficit - np.exp(-kk * np.abs(mm)) * (1 + slack))[bc], initial=-1.0)))
    ba_violation = float(np.max((ratio - np.exp(-kk * mm) * (1 + slack))[ba], initial=-1.0))
    return Check.all_of([Check.at_most(rel, 1e-6, "identity"),
                         Check.at_most(max(bc_violation, ba_violation), slack, "per-sample scalings")],
                        f"identity max relative error {rel:.1e}; scaling violations BC {bc_violation:.1e}, "
                        f"BA {ba_violation:.1e} ({int(bc[0].sum())} mispredicted of {ratio.shape[1]})")


@crosscheck("spurious.prop1_on_network", "Barsbey et al. 2025, Prop. 1, Eq. 1",
            "On the logits of the parity network (the set-up of the parity sweep, float64, lr 0.1) at the first "
            "evaluation where it predicts b on >= 90% of BA training samples, on 100 BA and 10 BC training samples it predicts as b: "
            "torch cross-entropy sums of k·logits, k in {1, 2, 5, 10, 20}, give the ratio "
            "bc_ba_loss_ratio_from_logits to 1e-10 relative; the ratio increases in k; and "
            "|log R(k) − rate·k − log k − log constant| (bc_ba_loss_ratio_asymptote_from_logits) shrinks from "
            "k = 20 to below 1e-9 at k·min(α_min, α₂ − α_min, β_min) = 50 (the corrections are e^{−kα_min}/2, "
            "e^{−k(α₂−α_min)}, e^{−kβ_min}).")
def prop1_on_network(ctx):
    from dynamics.spurious import torch_training as tt

    net = tt.spurious_rule_logits(config=spur.SpuriousRuleLogitsConfig.ci(), seed=ctx.run.seed(202), device=ctx.device)
    ours = spur.bc_ba_loss_ratio_from_logits(net.logit_scales, net.logits, net.labels, net.bias_labels)
    torch_ratio = net.bc_loss_sums / net.ba_loss_sums
    rel = float(np.max(np.abs(ours - torch_ratio) / ours))
    rate, constant = spur.bc_ba_loss_ratio_asymptote_from_logits(net.logits, net.labels, net.bias_labels)
    ba = net.labels == net.bias_labels
    alpha = np.sort(np.abs(net.logits[ba, 1] - net.logits[ba, 0]))
    distinct = alpha[alpha > rate * (1 + 1e-12)]
    beta = np.abs(net.logits[~ba, 1] - net.logits[~ba, 0])
    # corrections to the asymptote: e^{-k α_min}/2 (log1p), e^{-k(α₂ − α_min)} and e^{-k β_min}
    spacing = min(rate, distinct[0] - rate if distinct.size else np.inf, beta.min())
    k_far = 50.0 / spacing

    def gap(k):
        return abs(spur.bc_ba_loss_ratio_from_logits(k, net.logits, net.labels, net.bias_labels, log=True)
                   - rate * k - math.log(k) - math.log(constant))

    gaps = (gap(20.0), gap(k_far))
    return Check.all_of([Check.at_most(rel, 1e-10, "torch CE sums vs library"),
                         Check.predicate(float(np.diff(ours).min()), "R increases in k"),
                         Check.at_most(gaps[1], 1e-9, "asymptote"), Check.predicate(gaps[0] - gaps[1], "gap shrinks")],
                        f"step {net.step}; torch vs library {rel:.1e}; R(k) = {np.round(ours, 4).tolist()}; rate "
                        f"{rate:.4g}, constant {constant:.4g}; log-gap {gaps[0]:.2e} at k = 20, {gaps[1]:.1e} at "
                        f"k = {k_far:.3g}")


@crosscheck("spurious.parity_lr_accuracy", "Barsbey et al. 2025, Fig. 3, Table 1 (parity row)",
            "Parity task (C = 6, S = 2, N = 12, ρ = 0.1; FCN 20→200→200→2, no bias, SGD batch 100 to 100% train "
            "accuracy, float32; CPU: η in {0.03, 0.75}, seeds 0-4, cap 800; CUDA: 9 η, 32 seeds, cap 1000): the mean "
            "over seeds of the unbiased test accuracy gain acc(η = 0.75) − acc(η = 0.03) is >= 0.05 (this project's "
            "floor; per-seed gains vary widely). The detail records every metric per η, prunability and CSI "
            "included (not reproduced on this task, not asserted).")
def parity_lr_accuracy(ctx):
    sweep = _parity_sweep(ctx)
    low, high = _pair(sweep, "unbiased_accuracy")
    gain = float(np.mean(high - low))
    return Check.at_least(gain, 0.05, f"per-seed gains {np.round(high - low, 3).tolist()}; {_recorded(sweep)}")


@crosscheck("spurious.parity_lr_act_compressibility", "Barsbey et al. 2025, Fig. 3, Table 1 (parity row)",
            "On the parity sweep, every seed's penultimate-activation (2, 0.1)-compressibility (mean over 1000 random "
            "test inputs) is at least 0.2 higher at η = 0.75 than at η = 0.03 (this project's floor).")
def parity_lr_act_compressibility(ctx):
    low, high = _pair(_parity_sweep(ctx), "activation_compressibility")
    return Check.at_least(float(np.min(high - low)), 0.2,
                          f"per-seed increases {np.round(high - low, 3).tolist()} (η = 0.03: "
                          f"{np.round(low, 3).tolist()})")


@crosscheck("spurious.parity_lr_class_separation", "Barsbey et al. 2025, Fig. 5, Table 1",
            "On the parity sweep, the seed mean of the cosine class separation R² of the penultimate layer (full "
            "unbiased test set) increases by at least 0.015 from η = 0.03 to η = 0.75 (this project's floor).")
def parity_lr_class_separation(ctx):
    low, high = _pair(_parity_sweep(ctx), "class_separation")
    return Check.at_least(float(np.mean(high) - np.mean(low)), 0.015,
                          f"R² at η = 0.03: {np.round(low, 4).tolist()}; at 0.75: {np.round(high, 4).tolist()}")


@crosscheck("spurious.parity_bc_share", "Barsbey et al. 2025, Fig. 12, §6",
            "On the parity sweep, the seed mean of the maximum per-minibatch BC loss share rises by at least 0.02 "
            "from η = 0.03 to η = 0.75, and over all runs of the setting (10 on CPU) the Spearman correlation of "
            "unbiased accuracy with the maximum BC loss share is >= 0.3 (this project's floors).")
def parity_bc_share(ctx):
    sweep = _parity_sweep(ctx)
    low, high = _pair(sweep, "max_bc_loss_share")
    rho = float(stats.spearmanr(sweep.metric("unbiased_accuracy").ravel(),
                                sweep.metric("max_bc_loss_share").ravel()).statistic)
    return Check.all_of([Check.at_least(float(np.mean(high) - np.mean(low)), 0.02, "mean increase"),
                         Check.at_least(rho, 0.3, "Spearman(accuracy, max BC share)")],
                        f"max BC share at η = 0.03: {np.round(low, 4).tolist()}; "
                        f"at 0.75: {np.round(high, 4).tolist()}; "
                        f"Spearman {rho:.3f} over {sweep.metric('unbiased_accuracy').size} runs")


@crosscheck("spurious.parity_epochs_to_fit", "Barsbey et al. 2025, §5 (norm growth, fast fitting)",
            "On the parity sweep every run reaches 100% training accuracy before the cap, and the seed mean of the "
            "number of epochs to 100% strictly decreases along the η grid.")
def parity_epochs_to_fit(ctx):
    sweep = _parity_sweep(ctx)
    epochs = sweep.metric("epochs_to_fit")
    unfitted = int(np.sum(~np.array([[r.fitted for r in row] for row in sweep.runs])))
    means = epochs.mean(axis=1)
    return Check.all_of([Check.at_most(unfitted, 0, "runs that hit the cap"),
                         Check.predicate(float(np.min(-np.diff(means))), "smallest decrease of the mean")],
                        f"mean epochs to 100% per η: {np.round(means, 1).tolist()}")


# The mechanism figures' quantities on the same sweep (the floors below are this project's, set at about a third of
# the effect in the record's 10 seeds at η = 0.03 against 0.75; the CI sweep has 5 other seeds).
@crosscheck("spurious.parity_neuron_resets", "Barsbey et al. 2025, Fig. 28 (bottom)",
            "On the parity sweep, each penultimate neuron's bias-selectivity index (BSI, 1000 unbiased test inputs, "
            "every 20 SGD steps) falls further below its running peak at η = 0.75 than at η = 0.03: the seed mean of "
            "the per-run mean over neurons of the largest fall rises by at least 0.03 (this project's floor; the "
            "record's 10 seeds: per-seed gains mean 0.090, sd 0.020, all positive).")
def parity_neuron_resets(ctx):
    low, high = _pair(_parity_sweep(ctx), "bias_selectivity_drawdown")
    return Check.at_least(float(np.mean(high - low)), 0.03,
                          f"mean largest BSI fall per neuron at η = 0.03: {np.round(low, 3).tolist()}; at 0.75: "
                          f"{np.round(high, 3).tolist()}")


@crosscheck("spurious.parity_landscape_width", "Barsbey et al. 2025, Fig. 9",
            "On the parity sweep, the minimum reached at η = 0.75 is wider than at η = 0.03: the seed mean of the mean "
            "rise of the training cross-entropy over a 9 × 9 grid on [−1, 1]² of two Gaussian directions normalised "
            "neuron by neuron (Li et al. 2018) is at least 0.5 lower (this project's floor; the record's 10 seeds: "
            "per-seed narrowing mean 2.46, sd 0.99, all positive).")
def parity_landscape_width(ctx):
    low, high = _pair(_parity_sweep(ctx), "landscape_loss_rise")
    return Check.at_least(float(np.mean(low - high)), 0.5,
                          f"loss rise over the plane at η = 0.03: {np.round(low, 2).tolist()}; at 0.75: "
                          f"{np.round(high, 2).tolist()}")


@crosscheck("spurious.parity_attribution_share", "Barsbey et al. 2025, Fig. 26, Fig. 3 (right)",
            "On the parity sweep, the share of integrated-gradient attribution (zero baseline, margin z₁ − z₀, 1000 "
            "unbiased test inputs) on the core bits at the stop is higher at η = 0.75 than at η = 0.03: the seed mean "
            "rises by at least 0.05 (this project's floor; the record's 10 seeds: per-seed gains mean 0.173, sd "
            "0.103, 9 of 10 positive). The CSI beside it (Fig. 26) is reported, not asserted: its gain, 0.010 (sd "
            "0.030) in the record, is within its seed spread.")
def parity_attribution_share(ctx):
    sweep = _parity_sweep(ctx)
    low, high = _pair(sweep, "core_attribution_share")
    csi_low, csi_high = _pair(sweep, "class_selectivity")
    return Check.at_least(float(np.mean(high - low)), 0.05,
                          f"core share at η = 0.03: {np.round(low, 3).tolist()}; at 0.75: {np.round(high, 3).tolist()};"
                          f" CSI {np.mean(csi_low):.3f} and {np.mean(csi_high):.3f} (not asserted)")


PARITY_RECORD_RATES = (0.01, 0.03, 0.1, 0.3, 0.75)  # the paper's parity range, 0.01-0.75 (Table 1)
# Table 1's columns for the parity row, (field, label, the paper's min-max), and Fig. 12's BC share
PARITY_TABLE_1 = (("unbiased_accuracy", "unbiased accuracy", (0.5531, 0.85663)),
                  ("node_prunability", "prunability", (0.56, 0.782)),
                  ("activation_compressibility", "act. compressibility", (0.333, 0.679)),
                  ("class_selectivity", "CSI", (0.032, 0.152)),
                  ("class_separation", "class separation", (0.008, 0.136)),
                  ("max_bc_loss_share", "max BC loss share", None))


def parity_sweep_runs(config, seeds, *, device):
    """The parity-sweep record's call of :func:`dynamics.spurious.torch_training.parity_lr_sweep` (which takes the
    learning rates and seeds first) over the paper's parity range η = 0.01-0.75, without each run's per-step BC
    share history (8.6 MB in the record; its maximum, ``max_bc_loss_share``, stays)."""
    from dynamics.spurious import torch_training as tt

    sweep = tt.parity_lr_sweep(PARITY_RECORD_RATES, seeds, config, device=device)
    return sweep._replace(runs=tuple(tuple(run._replace(bc_share_history=run.bc_share_history[:0]) for run in row)
                                     for row in sweep.runs))


def _parity_statistics(sweep):
    """Per Table 1 column, the per-seed gain from the smallest to the largest η with its one-sided lower t bound
    (family-wise 0.05 over the columns)."""
    level = 0.05 / len(PARITY_TABLE_1)
    return {name: paired_bound(values[-1] - values[0], level)
            for name, values in ((name, sweep.metric(name)) for name, _, _ in PARITY_TABLE_1)}


def _parity_verdict(sweep):
    """Reproduced (Table 1, parity row; Fig. 3; Fig. 12): unbiased accuracy, prunability, activation
    compressibility, CSI, class separation and the maximum BC loss share are all higher at the largest learning
    rate than at the smallest (per-seed gains, one-sided lower bounds > 0, family-wise 0.05); partly: the accuracy
    and some of the others; else not."""
    from ..records import Verdict

    statistics = _parity_statistics(sweep)
    labels = {name: label for name, label, _ in PARITY_TABLE_1}
    text = (f"gain from η = {sweep.learning_rates[0]:g} to {sweep.learning_rates[-1]:g}: " + ", ".join(
        f"{labels[name]} {mean:+.3f} (lower bound {lower:+.3f})" for name, (mean, _, lower) in statistics.items()))
    failed = [labels[name] for name, (_, _, lower) in statistics.items() if not lower > 0]
    if not failed:
        return Verdict("reproduced", text)
    if statistics["unbiased_accuracy"][2] > 0 and len(failed) < len(statistics) - 1:
        return Verdict("partly reproduced", text + f"; not higher: {', '.join(failed)}")
    return Verdict("not reproduced", text)


def _parity_summary(sweep):
    parts = []
    for name, label, paper in PARITY_TABLE_1 + (("magnitude_prunability", "magnitude prunability", None),
                                                ("epochs_to_fit", "epochs to fit", None)):
        means = np.nanmean(sweep.metric(name), axis=1)
        parts.append(f"{label} {' / '.join(f'{m:.3g}' for m in means)}"
                     + (f" (the paper's range {paper[0]:g}-{paper[1]:g})" if paper else ""))
    return (f"seed means at η = {' / '.join(f'{lr:g}' for lr in sweep.learning_rates)}: " + "; ".join(parts)
            + f"; {int(sum(not r.fitted for row in sweep.runs for r in row))} runs stopped at the cap")


PARITY_CODE = ("dynamics.spurious.torch_training", "dynamics.spurious._setups", "dynamics.spurious._metrics",
               "dynamics.numerics.torch_batched", "dynamics.numerics.torch_tools")
PARITY_REDUCED = ("the paper's parity sizes (10000 training and 10000 test samples, BC rate 0.1, FCN 20→200→200→2 "
                  "without bias, batch 100, plain SGD to 100% training accuracy or 800 epochs); C = 6 core, S = 2 "
                  "spurious and 12 noise bits, depth 2 and float32, which the paper leaves open; η = 0.01, 0.03, 0.1, "
                  "0.3, 0.75 and 10 seeds, where the paper's grid is finer")
PARITY_REPLAY = dict(
    replay=lambda config: config._replace(epoch_cap=1), replay_tolerance=1e-3,
    tolerance_reason="float32 training: another CPU's BLAS rounds at 1e-7 relative, which over 1 epoch moves a "
                     "metric by far less than 1e-3 and can flip a few of the 10000 test predictions (1e-4 each)")

record_plan(RecordPlan(
    name="spurious.parity_lr_sweep", source="Barsbey et al. 2025, Fig. 3 (left), Table 1 (parity row), Fig. 12",
    source_result="over η = 0.01-0.75 on the parity task: unbiased accuracy 55.3-85.7%, prunability 0.56-0.78, "
                  "activation compressibility 0.33-0.68, CSI 0.03-0.15, class separation 0.01-0.14, each rising "
                  "with the learning rate; the maximum BC loss share tracks the accuracy (Fig. 12)",
    trainer="verify.crosscheck.spurious:parity_sweep_runs", config=spur.ParitySweepConfig.source(),
    seeds=tuple(range(10)), code=PARITY_CODE, judge=_parity_verdict, summary=_parity_summary, reduced=PARITY_REDUCED,
    ci_claim="spurious.parity_lr_accuracy", **PARITY_REPLAY))


# The paper's mechanism figures, read from the same runs: the sweep's trainer is cached on disk by its arguments and
# code, so each of these records re-reads the runs of the parity_lr_sweep record (same trainer, config and seeds).
def _extremes(sweep):
    return f"η = {sweep.learning_rates[0]:g}", f"η = {sweep.learning_rates[-1]:g}"


def _retention(sweep, field):
    """Retention ratios accuracy(κ)/accuracy(0), (lr, seed, κ), of the pruned accuracies in ``field``."""
    return np.array([[spur.retention_ratios(getattr(run, field), run.unbiased_accuracy) for run in row]
                     for row in sweep.runs])


PRUNING_KINDS = (("node_pruned_accuracy", "node (column) pruning"), ("magnitude_pruned_accuracy", "magnitude pruning"))


def _pruning_verdict(sweep):
    """Reproduced (Figs. 20-21): under node ("column") and under magnitude pruning alike, the networks trained at
    the largest learning rate keep more of their unbiased accuracy: the per-seed gain in mean retention over the κ
    grid from the smallest to the largest η has a one-sided lower bound > 0 (family-wise 0.05 over the two kinds);
    partly: for one kind; else not."""
    from ..records import Verdict

    low, high = _extremes(sweep)
    held, parts = [], []
    for field, label in PRUNING_KINDS:
        mean = _retention(sweep, field).mean(axis=2)
        gain, _, lower = paired_bound(mean[-1] - mean[0], 0.025)
        held.append(lower > 0)
        parts.append(f"{label}: mean retention {low} {mean[0].mean():.3f}, {high} {mean[-1].mean():.3f} (gain "
                     f"{gain:+.3f}, lower bound {lower:+.3f})")
    return Verdict.graded(held, "; ".join(parts))


def _pruning_summary(sweep):
    parts = []
    for field, label in PRUNING_KINDS:
        kappa = np.array(spur.PRUNE_FRACTIONS)
        r = _retention(sweep, field)
        at = [int(np.argmin(np.abs(kappa - k))) for k in (0.5, 0.9)]
        parts.append(f"{label}, retention at κ = 0.5 / 0.9: " + ", ".join(
            f"η = {lr:g} {r[i, :, at[0]].mean():.3f} / {r[i, :, at[1]].mean():.3f}"
            for i, lr in enumerate(sweep.learning_rates)))
    return "; ".join(parts) + " (seed means)"


def _csi_attribution_statistics(sweep):
    csi, core = sweep.metric("class_selectivity"), sweep.metric("core_attribution_share")
    return csi, core, rank_correlation_bound(csi, core, 0.05)


def _csi_attribution_verdict(sweep):
    """Reproduced (Fig. 26): the CSI and the share of integrated-gradient attribution on the core bits show the same
    pattern: over all runs their Spearman correlation has a one-sided lower bound > 0 (level 0.05; the runs of one
    seed share their data, which this bound ignores), and from the smallest to the largest η their seed means move
    the same way; partly: one of the two; else not."""
    from ..records import Verdict

    csi, core, (rho, lower) = _csi_attribution_statistics(sweep)
    low, high = _extremes(sweep)
    same = np.sign(csi[-1].mean() - csi[0].mean()) == np.sign(core[-1].mean() - core[0].mean())
    return Verdict.graded([lower > 0, bool(same)], (
        f"Spearman ρ(CSI, core attribution share) = {rho:+.2f} over {csi.size} runs (lower bound {lower:+.2f}); "
        f"CSI {low} {csi[0].mean():.3f}, {high} {csi[-1].mean():.3f}; core share {low} {core[0].mean():.3f}, "
        f"{high} {core[-1].mean():.3f}" + ("" if same else "; the two move in opposite directions with η")))


def _csi_attribution_summary(sweep):
    csi, core, _ = _csi_attribution_statistics(sweep)
    spurious = sweep.metric("spurious_attribution_share")
    return "; ".join(f"η = {lr:g}: CSI {csi[i].mean():.3f} ± {csi[i].std(ddof=1):.3f}, attribution share core "
                     f"{core[i].mean():.3f} ± {core[i].std(ddof=1):.3f}, spurious {spurious[i].mean():.3f}"
                     for i, lr in enumerate(sweep.learning_rates)) + " (mean ± sd over seeds)"


def _top_neuron_fall(sweep, row):
    """Per seed, the fraction of its peak BSI that the most bias-selective neuron loses at its largest fall."""
    return np.array([spur.max_drawdown(run.top_neuron_bias_selectivity) / max(run.top_neuron_bias_selectivity.max(),
                                                                                1e-12) for run in sweep.runs[row]])


def _resets_verdict(sweep):
    """Reproduced (Fig. 28, bottom): at the large learning rate a neuron's spurious-feature utilisation (its BSI)
    is knocked down after it rises: the mean over neurons of each one's largest fall below its running peak is
    larger at the largest η than at the smallest (per-seed gain, one-sided lower bound > 0, level 0.05), and the
    most bias-selective neuron loses at least half of its peak at the largest η (seed mean); partly: one of the
    two; else not."""
    from ..records import Verdict

    drawdown = sweep.metric("bias_selectivity_drawdown")
    gain, _, lower = paired_bound(drawdown[-1] - drawdown[0], 0.05)
    fall = _top_neuron_fall(sweep, -1)
    low, high = _extremes(sweep)
    return Verdict.graded([lower > 0, fall.mean() >= 0.5], (
        f"mean BSI drawdown per neuron {low} {drawdown[0].mean():.3f}, {high} {drawdown[-1].mean():.3f} (gain "
        f"{gain:+.3f}, lower bound {lower:+.3f}); the most bias-selective neuron's largest fall at {high}: "
        f"{fall.mean():.2f} of its peak (at {low}: {_top_neuron_fall(sweep, 0).mean():.2f})"))


def _resets_summary(sweep):
    drawdown = sweep.metric("bias_selectivity_drawdown")
    return "; ".join(f"η = {lr:g}: drawdown {drawdown[i].mean():.3f} ± {drawdown[i].std(ddof=1):.3f}, top neuron's "
                     f"peak BSI {np.mean([r.top_neuron_bias_selectivity.max() for r in sweep.runs[i]]):.3f}, its fall "
                     f"{_top_neuron_fall(sweep, i).mean():.2f} of the peak"
                     for i, lr in enumerate(sweep.learning_rates)) + " (mean ± sd over seeds)"


def _landscape_statistics(sweep):
    rise, core = sweep.metric("landscape_loss_rise"), sweep.metric("core_attribution_share")
    return rise, core, paired_bound(rise[0] - rise[-1], 0.05), rank_correlation_bound(-rise, core, 0.05)


def _landscape_verdict(sweep):
    """Reproduced (Fig. 9, and §6's evidence that wide minima go with more core-feature utilisation): the minimum
    reached at the largest learning rate is wider, a smaller mean rise of the training loss over the
    filter-normalised plane (per-seed difference smallest-η rise − largest-η rise, one-sided lower bound > 0, level
    0.05), and over all runs the width ranks with the attribution share on the core bits (Spearman correlation of
    −rise with the core share, lower bound > 0); partly: one of the two; else not."""
    from ..records import Verdict

    rise, core, (gain, _, lower), (rho, rho_lower) = _landscape_statistics(sweep)
    low, high = _extremes(sweep)
    return Verdict.graded([lower > 0, rho_lower > 0], (
        f"mean training-loss rise over the plane {low} {rise[0].mean():.3g}, {high} {rise[-1].mean():.3g} "
        f"(narrowing {gain:+.3g}, lower bound {lower:+.3g}); Spearman ρ(width, core share) = {rho:+.2f} (lower "
        f"bound {rho_lower:+.2f})"))


def _landscape_summary(sweep):
    rise = sweep.metric("landscape_loss_rise")
    accuracy_fall = np.array([[run.landscape[1].max() - run.landscape[1].mean() for run in row] for row in sweep.runs])
    return "; ".join(f"η = {lr:g}: loss rise {rise[i].mean():.3g} ± {rise[i].std(ddof=1):.2g}, unbiased accuracy "
                     f"over the plane {np.mean([r.landscape[1].mean() for r in sweep.runs[i]]):.3f} (best "
                     f"{np.mean([r.landscape[1].max() for r in sweep.runs[i]]):.3f}), mean BSI over the plane "
                     f"{np.mean([r.landscape[2].mean() for r in sweep.runs[i]]):.3f}"
                     for i, lr in enumerate(sweep.learning_rates)) + (
        f" (mean ± sd over seeds; accuracy's fall from its best point over the plane {accuracy_fall.mean():.3f})")


_MECHANISM = dict(trainer="verify.crosscheck.spurious:parity_sweep_runs", config=spur.ParitySweepConfig.source(),
                  seeds=tuple(range(10)), code=PARITY_CODE, **PARITY_REPLAY)
_SAME_RUNS = "; the runs of the spurious.parity_lr_sweep record (the same trainer, config and seeds)"

record_plan(RecordPlan(
    name="spurious.pruning_curves", source="Barsbey et al. 2025, Figs. 20-21, Table 1 (prunability)",
    source_result="networks trained with larger learning rates keep more of their unbiased accuracy as a growing "
                  "fraction is pruned, by columns (Fig. 20) and by magnitude (Fig. 21); on the parity task Table 1's "
                  "prunability, the mean retention over κ = 0-0.9, spans 0.56-0.78 and rises with η",
    judge=_pruning_verdict, summary=_pruning_summary, ci_claim="spurious.parity_lr_accuracy", **_MECHANISM,
    reduced=PARITY_REDUCED + "; a fraction κ of each hidden layer's neurons (smallest incoming L2 norm) or of each "
                             "weight matrix's entries (smallest magnitude) set to zero" + _SAME_RUNS))

record_plan(RecordPlan(
    name="spurious.csi_attribution", source="Barsbey et al. 2025, Fig. 26",
    source_result="the class-selectivity index (CSI) and the share of integrated-gradient attribution on the core "
                  "pixels show qualitatively identical patterns across learning rates (ResNet-18 on Double MNIST)",
    judge=_csi_attribution_verdict, summary=_csi_attribution_summary, **_MECHANISM,
    reduced=PARITY_REDUCED + "; the parity task's core bits in place of Double MNIST's core pixels; integrated "
                             "gradients with the all-zero baseline (exact for this bias-free ReLU network) on 1000 "
                             "unbiased test inputs; CSI on the full unbiased test set" + _SAME_RUNS,
    ci_claim="spurious.parity_attribution_share"))

record_plan(RecordPlan(
    name="spurious.neuron_resets", source="Barsbey et al. 2025, Fig. 28 (bottom)",
    source_result="a single neuron's spurious-feature utilisation is \"reset\" by large updates whenever it rises "
                  "(no numbers are given)",
    judge=_resets_verdict, summary=_resets_summary, **_MECHANISM,
    reduced=PARITY_REDUCED + "; spurious-feature utilisation measured as each penultimate neuron's bias-selectivity "
                             "index on 1000 unbiased test inputs, every 20 SGD steps" + _SAME_RUNS,
    ci_claim="spurious.parity_neuron_resets"))

record_plan(RecordPlan(
    name="spurious.loss_landscapes", source="Barsbey et al. 2025, Fig. 9",
    source_result="loss, unbiased-accuracy and spurious-utilisation landscapes for different learning rates (no "
                  "numbers); the text's initial evidence that wide minima go with more core-feature utilisation",
    judge=_landscape_verdict, summary=_landscape_summary, **_MECHANISM,
    reduced=PARITY_REDUCED + "; a 9 × 9 grid over [−1, 1]² of two Gaussian directions normalised neuron by neuron "
                             "(Li et al. 2018), one plane per run; training cross-entropy, unbiased test accuracy "
                             "and the mean bias-selectivity index on 1000 unbiased test inputs; no focal-loss "
                             "runs" + _SAME_RUNS,
    ci_claim="spurious.parity_landscape_width"))


@crosscheck("spurious.toy_torch_agreement", "Pezeshki (thesis), §8.4",
            "torch SGD(momentum 0.9, weight decay 0) in float64, from the numpy trainer's initialisation and replaying "
            "its index orders on the linear toy (n = 400, d = 600, 500 epochs; 1 seed on CPU, 3 on CUDA), ends at "
            "max|w_np − w_torch|/max|w_np| <= 1e-10 for ERM, SUBG, RWG and group DRO, with identical group accuracies "
            "after every epoch.")
def toy_torch_agreement(ctx):
    from dynamics.spurious import torch_training as tt

    seeds = [ctx.run.seed(s) for s in range(ctx.size(cpu=1, cuda=3))]
    config = spur.BalancingToyConfig.ci()
    toy = spur.balancing_toy_runs(seeds, ("erm", "subg", "rwg", "gdro"), config, return_orders=True)
    weight_gap, accuracy_gap = 0.0, 0.0
    for method, runs in toy.runs.items():
        for splits, run in zip(toy.splits, runs):
            replay = tt.replay_balancing_toy(*splits, run, method, config, device=ctx.device)
            weight_gap = max(weight_gap, float(np.abs(run.weights - replay.weights).max() / np.abs(run.weights).max()))
            accuracy_gap = max(accuracy_gap, float(np.abs(run.val_group_acc - replay.val_group_acc).max()),
                               float(np.abs(run.test_group_acc - replay.test_group_acc).max()))
    return Check.all_of([Check.at_most(weight_gap, 1e-10, "weights"), Check.at_most(accuracy_gap, 0.0, "accuracies")],
                        f"relative weight gap {weight_gap:.1e}; largest group-accuracy difference {accuracy_gap}")


# ---------------------------------------------------------------- large-learning-rate experiments
# Barsbey et al. 2025 in miniature (dynamics.spurious.torch_experiments): parity task with C = 4 core, S = 2
# spurious, N = 12 noise bits, 2000 training samples, FCN 18→50→50→2 (no bias), SGD batch 100, cap 150 epochs,
# η = 0.05 (stops at the cap, short of 100% training accuracy) against η = 0.75 (fits in ~22 epochs), float32.
# Calibration (12 seeds, 100-111, CPU): per-seed paired differences high − low of
#   core attribution share at the stop: mean 0.171, sd 0.067, all 12 positive;
#   spurious attribution share at the stop (low − high): mean 0.081, sd 0.047;
#   mean BC loss share over the first 200 steps: mean 0.44, sd 0.03 (over the first 500);
#   maximum BC loss share over training: mean 0.034, sd 0.022 (one seed tied).
# With LLR_SEEDS seeds the core-share difference lies 0.171/0.067·√6 = 6.2 standard errors out and the early BC
# share ~36, beyond the one-sided t quantile 3.36 (level 0.01, 5 degrees of freedom).
LLR_SEEDS = 6
LLR_LEVEL = 0.01


def _llr_runs(ctx):
    from dynamics.spurious import torch_experiments as te

    seeds = tuple(ctx.run.seed(s) for s in range(ctx.size(cpu=LLR_SEEDS, cuda=16)))
    config = ctx.size(cpu=spur.ParityTrainingConfig.ci(), cuda=spur.ParityTrainingConfig.source())
    key = (seeds, str(ctx.device), config)
    if key not in _LLR_MEMO:  # the two claims share one training
        _LLR_MEMO[key] = te.lr_attribution_runs(seeds, config, device=ctx.device)
    return _LLR_MEMO[key]


_LLR_MEMO = {}


@experiment("spurious.experiment_lr_attributions", "Barsbey et al. 2025, Fig. 3 (right)",
            "Parity task in miniature (C = 4, S = 2, N = 12 bits, 2000 training samples, FCN 18→50→50→2 without "
            "bias, SGD batch 100, cap 150 epochs; CPU 6 seeds; CUDA 16 seeds, 10000 samples, width 200, cap 800): "
            "at the stop, the share of integrated-gradient attribution (zero baseline, margin z₁ − z₀, 500 unbiased "
            "test inputs) on the core bits is larger at η = 0.75 than at η = 0.05: the one-sided 99% Student-t "
            "lower bound of the mean per-seed paired difference is > 0 (calibrated on 12 seeds: mean 0.17, sd 0.07, "
            "all positive; 6.2 standard errors at 6 seeds). η = 0.05 stops at the epoch cap, short of 100% "
            "training accuracy.")
def experiment_lr_attributions(ctx):
    runs = _llr_runs(ctx)
    final = runs.final_attribution_shares  # (lr, seed, group)
    core = final[1, :, 0] - final[0, :, 0]
    mean, se, lower = paired_bound(core, LLR_LEVEL)
    spurious = final[0, :, 1] - final[1, :, 1]
    return Check.predicate(lower, f"core share gain {mean:.3f} ± {se:.3f} (se) over {core.size} seeds, 99% lower "
                                  f"bound {lower:.3f}; per seed {np.round(core, 3).tolist()}; mean shares "
                                  f"core/spurious/noise at η = 0.05: {np.round(final[0].mean(0), 3).tolist()}, at "
                                  f"η = 0.75: {np.round(final[1].mean(0), 3).tolist()}; spurious share drop "
                                  f"{spurious.mean():.3f} (not asserted); unbiased accuracy "
                                  f"{np.round(runs.unbiased_accuracy.mean(1), 3).tolist()}")


@experiment("spurious.experiment_lr_bc_loss_share", "Barsbey et al. 2025, Fig. 13",
            "Same runs as spurious.experiment_lr_attributions: the mean over the first 200 SGD steps of the "
            "per-minibatch BC loss share Σ_BC ℓ / Σ ℓ is larger at η = 0.75 than at η = 0.05 (one-sided 99% "
            "Student-t lower bound of the mean per-seed paired difference > 0; calibrated on 12 seeds: mean 0.44, "
            "sd 0.03). The maximum share over training is reported, not asserted (calibration: mean gain 0.034, sd "
            "0.022, one seed tied).")
def experiment_lr_bc_loss_share(ctx):
    runs = _llr_runs(ctx)
    early = np.nanmean(runs.bc_loss_share[:, :, :200], axis=2)
    gain = early[1] - early[0]
    mean, se, lower = paired_bound(gain, LLR_LEVEL)
    peak = np.nanmax(runs.bc_loss_share, axis=2)
    return Check.predicate(lower, f"early BC share {np.round(early.mean(1), 3).tolist()} (η = 0.05, 0.75); gain "
                                  f"{mean:.3f} ± {se:.3f} (se) over {gain.size} seeds, 99% lower bound {lower:.3f}; "
                                  f"max share {np.round(peak.mean(1), 3).tolist()}, per-seed gains "
                                  f"{np.round(peak[1] - peak[0], 3).tolist()} (not asserted)")




def lr_runs(config, seeds, *, device):
    """The records' call of :func:`dynamics.spurious.torch_experiments.lr_attribution_runs` (which takes the seeds
    first): η = 0.05 against 0.75 on ``config``."""
    from dynamics.spurious import torch_experiments as te

    return te.lr_attribution_runs(seeds, config, device=device)


# The records take the task of the project's parity sweep (C = 6 core bits, 20 bits in all), whose low learning rate
# falls short as the paper's parity row does (Table 1: unbiased accuracy 55-86% over η = 0.01-0.75); with the
# miniature's C = 4 both learning rates reach 99% at these sizes (a first record of Fig. 13 at C = 4: 0.994 and 0.999)
LLR_RECORD = spur.ParityTrainingConfig.source()._replace(task=spur.ParityTaskConfig.source())
LLR_RECORD_CODE = ("dynamics.spurious.torch_experiments", "dynamics.spurious._setups", "dynamics.numerics.torch_batched",
                   "dynamics.numerics.torch_tools")
LLR_REDUCED = ("the paper's parity sizes (10000 training and 10000 test samples, BC rate 0.1, width 200, batch 100, "
               "plain SGD to 100% training accuracy); C = 6 core, S = 2 spurious and 12 noise bits, depth 2, float32 "
               "and η = 0.05 against 0.75, which the paper leaves open; 10 seeds")
LLR_REPLAY = dict(replay=lambda config: config._replace(epoch_cap=2), replay_tolerance=1e-3,
                  tolerance_reason="float32 training: another CPU's BLAS rounds at 1e-7 relative, which over 2 epochs "
                                   "moves a share by far less than 1e-3 and can flip a few of the 10000 test "
                                   "predictions (1e-4 each)")


def _attribution_verdict(result):
    """Reproduced (Fig. 3 right): at the stop, the share of integrated-gradient attribution on the core bits is
    larger at the large learning rate (one-sided lower bound of the per-seed gain > 0, level 0.05); partly: larger
    in the seed mean only; else not."""
    from ..records import Verdict

    final = result.final_attribution_shares  # (lr, seed, group: core, spurious, noise)
    gain, _, lower = paired_bound(final[1, :, 0] - final[0, :, 0], 0.05)
    text = (f"core share of the attribution at the stop: η = {result.learning_rates[0]:g} {final[0, :, 0].mean():.3f}, "
            f"η = {result.learning_rates[1]:g} {final[1, :, 0].mean():.3f} (gain {gain:+.3f}, lower bound "
            f"{lower:+.3f}); unbiased accuracy {result.unbiased_accuracy[0].mean():.3f} and "
            f"{result.unbiased_accuracy[1].mean():.3f}")
    if lower > 0:
        return Verdict("reproduced", text)
    return Verdict("partly reproduced" if gain > 0 else "not reproduced", text)


def _attribution_summary(result):
    final = result.final_attribution_shares
    return "; ".join(f"η = {lr:g}: attribution shares at the stop core {final[c, :, 0].mean():.3f} ± "
                     f"{final[c, :, 0].std(ddof=1):.3f}, spurious {final[c, :, 1].mean():.3f}, noise "
                     f"{final[c, :, 2].mean():.3f}; unbiased accuracy {result.unbiased_accuracy[c].mean():.3f}"
                     for c, lr in enumerate(result.learning_rates)) + " (mean ± sd over seeds)"


record_plan(RecordPlan(
    name="spurious.lr_attributions", source="Barsbey et al. 2025, Fig. 3 (right)",
    source_result="on the parity task a large learning rate moves the network's attribution onto the core bits over "
                  "training, a small one leaves it on the spurious bits",
    trainer="verify.crosscheck.spurious:lr_runs", config=LLR_RECORD, seeds=tuple(range(10)), code=LLR_RECORD_CODE,
    judge=_attribution_verdict, summary=_attribution_summary,
    reduced=LLR_REDUCED + "; integrated gradients (zero baseline) on 500 unbiased test inputs every 20 steps",
    ci_claim="spurious.experiment_lr_attributions", **LLR_REPLAY))

def _bc_share_statistics(result):
    """Per run the maximum per-minibatch BC loss share over training (the paper's 'maximum BC loss ratio'), (lr,
    seed), and the high-minus-low gain with its one-sided lower t bound (level 0.05)."""
    peak = np.nanmax(result.bc_loss_share, axis=2)
    return peak, paired_bound(peak[1] - peak[0], 0.05)


def _bc_share_verdict(result):
    """Reproduced (Fig. 13): the maximum BC loss share is higher at the large learning rate (one-sided lower bound
    of the per-seed gain > 0) and the BC samples, 10% of the data, come to carry most of the loss (maximum share
    above 0.5) only at the large one; partly: the maximum is higher at the large learning rate, but the small one
    reaches a majority share too; else not."""
    from ..records import Verdict

    peak, (gain, _, lower) = _bc_share_statistics(result)
    text = (f"maximum BC share η = {result.learning_rates[0]:g}: {peak[0].mean():.3f}, η = "
            f"{result.learning_rates[1]:g}: {peak[1].mean():.3f} (gain {gain:+.3f}, lower bound {lower:+.3f})")
    if not lower > 0:
        return Verdict("not reproduced", text)
    if peak[0].mean() <= 0.5 < peak[1].mean():
        return Verdict("reproduced", text)
    return Verdict("partly reproduced", text + "; the small learning rate's BC samples also come to carry most of "
                                               "the loss")


def _bc_share_summary(result):
    peak, _ = _bc_share_statistics(result)
    return "; ".join(f"η = {lr:g}: maximum BC share {peak[c].mean():.3f} ± {peak[c].std(ddof=1):.3f}, epochs to "
                     f"100% training accuracy {result.epochs_to_stop[c].mean():.0f}, unbiased accuracy "
                     f"{result.unbiased_accuracy[c].mean():.3f}" for c, lr in enumerate(result.learning_rates)) + \
        " (mean ± sd over seeds)"


record_plan(RecordPlan(
    name="spurious.lr_bc_loss_share", source="Barsbey et al. 2025, Fig. 13",
    source_result="large learning rates make the bias-conflicting samples' losses dominate the minibatch loss "
                  "(Fig. 12: the maximum BC loss ratio over training tracks unbiased accuracy), \"whereas small LRs "
                  "lack this pressure\" (ResNet-18 on Colored MNIST and CIFAR-10)",
    trainer="verify.crosscheck.spurious:lr_runs", config=LLR_RECORD, seeds=tuple(range(10)), code=LLR_RECORD_CODE,
    judge=_bc_share_verdict, summary=_bc_share_summary, reduced=LLR_REDUCED + "; the parity task instead of images",
    ci_claim="spurious.experiment_lr_bc_loss_share", **LLR_REPLAY))

# Width sweep: widths 8, 16, 32, 64, η = 0.05 against 0.75, cap 100 epochs (otherwise the set-up above).
# Calibration (6 seeds, 200-205, CPU): the paired accuracy gain acc(0.75) − acc(0.05) has seed means 0.26, 0.42, 0.30,
# 0.31 at widths 8, 16, 32, 64 (η = 0.05 stays at chance, ~0.51, at every width within the cap; at width 8 two
# seeds stay at chance at η = 0.75 too). So the spread over the learning rates does not grow with the width. The
# per-seed average of the gain over the widths has mean 0.32, sd 0.07: with WIDTH_SEEDS = 4 seeds it lies ~9
# standard errors out, beyond the one-sided t quantile 4.54 (level 0.01, 3 degrees of freedom).
WIDTH_SEEDS = 4
WIDTH_CPU = dict(widths=(8, 16, 32, 64), learning_rates=(0.05, 0.75),
                 config=spur.ParityTrainingConfig.ci()._replace(epoch_cap=100))


@experiment("spurious.experiment_lr_width_spread", "Barsbey et al. 2025, §5 and Table 1 (spread of unbiased accuracy "
            "over learning rates against model size)",
            "The paper's statement that the spread of unbiased accuracy over learning rates grows with the model "
            "size did NOT reproduce in this miniature (parity task as in spurious.experiment_lr_attributions, FCN "
            "widths 8, 16, 32, 64, cap 100 epochs; calibration on 6 seeds: seed-mean spreads 0.26, 0.42, 0.30, "
            "0.31), and is reported, not asserted. What holds, and is asserted (CPU 4 seeds; CUDA 8 seeds, widths up "
            "to 512, 10000 samples, cap 800): the high learning rate beats the low one, the one-sided 99% "
            "Student-t lower bound of the per-seed average over widths of acc(η = 0.75) − acc(η = 0.05) being > 0 "
            "(calibration: mean 0.32, sd 0.07).")
def experiment_lr_width_spread(ctx):
    from dynamics.spurious import torch_experiments as te

    seeds = [ctx.run.seed(s) for s in range(ctx.size(cpu=WIDTH_SEEDS, cuda=8))]
    setting = ctx.size(cpu=WIDTH_CPU, cuda=dict(widths=(8, 32, 128, 512), learning_rates=(0.05, 0.75),
                                                config=spur.ParityTrainingConfig.source()))
    sweep = te.width_lr_sweep(seeds, device=ctx.device, **setting)
    gains = sweep.unbiased_accuracy[:, 1] - sweep.unbiased_accuracy[:, 0]  # (width, seed)
    mean, se, lower = paired_bound(gains.mean(axis=0), LLR_LEVEL)
    spreads = dict(zip(sweep.widths.tolist(), np.round(sweep.mean_spread, 3).tolist()))
    return Check.predicate(lower, f"gain averaged over widths {mean:.3f} ± {se:.3f} (se), 99% lower bound "
                                  f"{lower:.3f}; seed-mean spread per width {spreads} "
                                  f"(growth with width not asserted); seed-mean accuracy (η = 0.05, 0.75) per width "
                                  f"{np.round(sweep.unbiased_accuracy.mean(axis=2), 3).tolist()}")



WIDTH_RECORD = dict(widths=(8, 32, 128, 512), learning_rates=(0.05, 0.75))


def width_runs(config, seeds, *, device):
    """The width record's call of :func:`dynamics.spurious.torch_experiments.width_lr_sweep` (which takes the seeds
    first): widths 8, 32, 128 and 512, η = 0.05 against 0.75."""
    from dynamics.spurious import torch_experiments as te

    return te.width_lr_sweep(seeds, config, device=device, **WIDTH_RECORD)


def _width_verdict(result):
    """Reproduced (§5, Table 1: the spread of unbiased accuracy over the learning rates is larger for larger
    models): the per-seed spread at the widest model exceeds the narrowest's (one-sided lower bound > 0, level
    0.05) and the seed-mean spreads rise along the widths; partly: the first only; else not."""
    from ..records import Verdict

    gain, _, lower = paired_bound(result.spread[-1] - result.spread[0], 0.05)
    means = result.spread.mean(axis=1)
    text = (f"seed-mean spread over η = {', '.join(f'{lr:g}' for lr in result.learning_rates)} at widths "
            f"{', '.join(map(str, result.widths))}: {', '.join(f'{m:.3f}' for m in means)}; widest minus narrowest "
            f"{gain:+.3f} (lower bound {lower:+.3f})")
    if lower > 0:
        return Verdict("reproduced" if np.all(np.diff(means) > 0) else "partly reproduced", text)
    return Verdict("not reproduced", text)


def _width_summary(result):
    acc = result.unbiased_accuracy.mean(axis=2)  # (width, lr)
    return "; ".join(f"width {w}: unbiased accuracy " + ", ".join(f"η = {lr:g} {acc[k, j]:.3f}"
                                                                  for j, lr in enumerate(result.learning_rates))
                     + f", spread {result.spread[k].mean():.3f} ± {result.spread[k].std(ddof=1):.3f}"
                     for k, w in enumerate(result.widths)) + " (seed means; spread: mean ± sd over seeds)"


record_plan(RecordPlan(
    name="spurious.lr_width_spread", source="Barsbey et al. 2025, §5 and Table 1 (spread over learning rates "
                                            "against model size)",
    source_result="the spread of unbiased accuracy over the learning rates is larger for the larger models",
    trainer="verify.crosscheck.spurious:width_runs", config=LLR_RECORD._replace(record_every=10**9),
    seeds=tuple(range(5)), code=LLR_RECORD_CODE, judge=_width_verdict, summary=_width_summary,
    replay=lambda config: config._replace(epoch_cap=1), replay_tolerance=1e-3,
    tolerance_reason=LLR_REPLAY["tolerance_reason"].replace("2 epochs", "1 epoch"),
    reduced=LLR_REDUCED.replace("width 200, ", "").replace("10 seeds", "widths 8, 32, 128 and 512 (the paper's "
                                                                       "parity net: 200), 5 seeds"),
    ci_claim="spurious.experiment_lr_width_spread"))

# Robustness (annealing, Adam): the set-up above with a cap of 100 epochs. Calibration, per-seed paired gains
# high − low: annealed SGD (η = 0.05 against 0.75, × 0.1 from step 200; 8 seeds, 400-407): accuracy 0.16 (sd 0.11,
# one seed −0.006), core share 0.16 (sd 0.10). Adam (1e-3 against 1e-2, both fit): seeds 400-407 gave accuracy
# 0.154 (sd 0.038), but seeds 0-11 gave 0.046 (sd 0.117; core share 0.039, sd 0.094) — not robust at this size, so
# Adam is reported, not asserted. With ROBUSTNESS_SEEDS = 10 seeds the annealed accuracy gain lies 0.16/0.11·√10 =
# 4.6 and the core-share gain 5.2 standard errors out, beyond the one-sided t quantile 2.82 (level 0.01 each, 9
# degrees of freedom).
ROBUSTNESS_SEEDS = 10


@experiment("spurious.experiment_lr_robustness", "Barsbey et al. 2025, Figs. 22-23 (annealing, Adam)",
            "Parity task as in spurious.experiment_lr_attributions with a cap of 100 epochs (CPU 10 seeds; CUDA 16 "
            "seeds, 10000 samples, width 200, cap 800). Under SGD with η × 0.1 from step 200 (η = 0.05 against "
            "0.75; the paper anneals after 1000 iterations) the paired gains high − low of unbiased test accuracy and "
            "of the core share of integrated-gradient attribution are > 0 (one-sided 99% Student-t lower bounds each; "
            "calibrated on 8 seeds: accuracy 0.16, sd 0.11; core share 0.16, sd 0.10). Under Adam (η = 1e-3 against "
            "1e-2, both reaching 100% training accuracy) the paper's statement did NOT reproduce robustly at this "
            "size (accuracy gain 0.154, sd 0.038 on seeds 400-407 but 0.046, sd 0.117 on seeds 0-11): recorded, not "
            "asserted. Training on to CE < 1e-5 (Fig. 24) is not checked: the low learning rate cannot reach it here.")
def experiment_lr_robustness(ctx):
    from dynamics.spurious import torch_experiments as te

    seeds = [ctx.run.seed(s) for s in range(ctx.size(cpu=ROBUSTNESS_SEEDS, cuda=16))]
    config = ctx.size(cpu=spur.ParityTrainingConfig.ci()._replace(epoch_cap=100),
                      cuda=spur.ParityTrainingConfig.source())
    variants = ctx.size(cpu=("annealed",), cuda=("annealed", "adam"))
    rob = te.lr_robustness_runs(seeds, config._replace(record_every=10**9), variants=variants, device=ctx.device)
    annealed = rob.runs[0]
    parts = []
    for name, values in (("accuracy", annealed.unbiased_accuracy), ("core share",
                                                                    annealed.final_attribution_shares[..., 0])):
        mean, se, lower = paired_bound(values[1] - values[0], LLR_LEVEL)
        parts.append(Check.predicate(lower, f"annealed {name} gain {mean:.3f} ± {se:.3f} (se), 99% lower bound "
                                            f"{lower:.3f}"))
    per_variant = "; ".join(
        f"{v} (η {r.learning_rates[0]:g}, {r.learning_rates[1]:g}): accuracy "
        f"{np.round(r.unbiased_accuracy.mean(1), 3).tolist()}, core share "
        f"{np.round(r.final_attribution_shares[..., 0].mean(1), 3).tolist()}, fitted "
        f"{np.round(r.stopped.mean(1), 2).tolist()}" for v, r in zip(rob.variants, rob.runs))
    return Check.all_of(parts, per_variant)


ROBUSTNESS_RECORD = dict(variants=("constant", "annealed", "adam"), anneal_step=1000)


def robustness_runs(config, seeds, *, device):
    """The robustness record's call of :func:`dynamics.spurious.torch_experiments.lr_robustness_runs` (which takes
    the seeds first): constant SGD (η = 0.05 against 0.75), SGD with η × 0.1 after iteration 1000 as the paper
    anneals (Fig. 22), and Adam at 1e-3 against 1e-2 (Fig. 23)."""
    from dynamics.spurious import torch_experiments as te

    return te.lr_robustness_runs(seeds, config, device=device, **ROBUSTNESS_RECORD)


def _robustness_gains(result):
    """Per variant other than the constant reference, the per-seed gains high − low of unbiased accuracy and of
    the core share of the attribution at the stop, each with its one-sided lower t bound (family-wise 0.05 over
    the variants and the two metrics)."""
    runs = dict(zip(result.variants, result.runs))
    tested = [v for v in result.variants if v != "constant"]
    level = 0.05 / (2 * len(tested))
    return {(v, name): paired_bound(values[1] - values[0], level)
            for v in tested for name, values in (("accuracy", runs[v].unbiased_accuracy),
                                                 ("core share", runs[v].final_attribution_shares[..., 0]))}


def _robustness_verdict(result):
    """Reproduced (Figs. 22-23, "qualitatively identical"): under annealed SGD and under Adam the high learning
    rate beats the low one in unbiased accuracy and in the core share of the attribution (all four one-sided lower
    bounds > 0, family-wise level 0.05); partly: some of the four; else not."""
    from ..records import Verdict

    gains = _robustness_gains(result)
    text = "; ".join(f"{v} {name} gain {mean:+.3f} (lower bound {lower:+.3f})"
                     for (v, name), (mean, _, lower) in gains.items())
    return Verdict.graded([lower > 0 for _, _, lower in gains.values()], text)


def _robustness_summary(result):
    return "; ".join(f"{v} (η {r.learning_rates[0]:g} against {r.learning_rates[1]:g}): unbiased accuracy "
                     f"{r.unbiased_accuracy[0].mean():.3f} and {r.unbiased_accuracy[1].mean():.3f}, core share "
                     f"{r.final_attribution_shares[0, :, 0].mean():.3f} and {r.final_attribution_shares[1, :, 0].mean():.3f}"
                     f", fitted {r.stopped[0].mean():.0%} and {r.stopped[1].mean():.0%}"
                     for v, r in zip(result.variants, result.runs)) + " (seed means)"


record_plan(RecordPlan(
    name="spurious.lr_robustness", source="Barsbey et al. 2025, Figs. 22-23 (annealing, Adam)",
    source_result="with the learning rate × 0.1 after iteration 1000, and with Adam, the large learning rate's "
                  "gains in unbiased accuracy and core reliance are \"qualitatively identical\" to constant SGD's",
    trainer="verify.crosscheck.spurious:robustness_runs", config=LLR_RECORD._replace(record_every=10**9),
    seeds=tuple(range(10)), code=LLR_RECORD_CODE, judge=_robustness_verdict, summary=_robustness_summary,
    replay=lambda config: config._replace(epoch_cap=1), replay_tolerance=1e-3,
    tolerance_reason=LLR_REPLAY["tolerance_reason"].replace("2 epochs", "1 epoch"),
    reduced=LLR_REDUCED + "; annealing after iteration 1000 as the paper; Adam at η = 1e-3 against 1e-2, "
                          "β = (0.9, 0.999), which the paper leaves open",
    ci_claim="spurious.experiment_lr_robustness"))


# Interventions (one value each). A first calibration (6 seeds, 500-505, cap 100 epochs) gave the seed-mean unbiased
# accuracies: low lr 0.511, momentum 0.9 at the low lr 0.815, L1 1e-4 0.509, L2 5e-3 0.501, focal γ = 2 0.495,
# batch 25 0.782, high lr 0.856, high lr + L2 1e-3 0.912. The low-learning-rate rows stay near chance within the cap,
# so the claim uses a cap of 60 epochs. Calibration at cap 60 (16 seeds, 0-7 and 1000-1007), paired gains: high lr
# over L2 0.343 (sd 0.064); over batch 25 0.065 (sd 0.038, one seed −0.019); high lr + L2 over high lr 0.067 (sd
# 0.048, one seed −0.005); high lr over momentum 0.033 (sd 0.037, three seeds ≤ 0: not asserted). With
# INTERVENTION_SEEDS = 12 the weakest asserted ordering lies 0.067/0.048·√12 = 4.9 standard errors out, beyond the
# one-sided t quantile 3.33 (level 0.01/3 each, 11 degrees of freedom); 8 seeds were too few (seeds 0-7 gave 3.6).
INTERVENTION_SEEDS = 12
INTERVENTION_RECORD_CAP = 200
INTERVENTION_ROWS = ("momentum", "l2", "small batch", "high lr", "high lr + l2")


@experiment("spurious.experiment_lr_interventions", "Barsbey et al. 2025, Figs. 6 and 19, Table 2",
            "Parity task as in spurious.experiment_lr_attributions, cap 60 epochs (CPU 12 seeds; CUDA 16 seeds, "
            "10000 samples, width 200, cap 800), one value per intervention: the high learning rate (η = 0.75) "
            "gives higher unbiased test accuracy than L2 5e-3 at η = 0.05 and than batch 25 instead of 100 at "
            "η = 0.05, and high learning rate + L2 1e-3 beats the high learning rate alone (paired per-seed "
            "gains, one-sided Student-t lower bounds > 0 at level 0.01/3 each; calibrated on 16 seeds: 0.343 (sd "
            "0.064), 0.065 (0.038), 0.067 (0.048)). Momentum 0.9 at η = 0.05 comes close to the high learning rate "
            "(gain 0.033, sd 0.037, three of 16 seeds ≤ 0): not robust at this size, reported, not asserted. L1 and focal "
            "loss at η = 0.05 stay at chance like plain SGD (figure spurious.lr_interventions).")
def experiment_lr_interventions(ctx):
    from dynamics.spurious import torch_experiments as te

    seeds = [ctx.run.seed(s) for s in range(ctx.size(cpu=INTERVENTION_SEEDS, cuda=16))]
    config = ctx.size(cpu=spur.InterventionConfig.ci(), cuda=spur.InterventionConfig.source())
    runs = te.intervention_runs(seeds, config, names=INTERVENTION_ROWS, device=ctx.device)
    acc = dict(zip(runs.names, runs.unbiased_accuracy))
    orderings = {"high lr > l2": acc["high lr"] - acc["l2"], "high lr > small batch": acc["high lr"] - acc["small batch"],
                 "high lr + l2 > high lr": acc["high lr + l2"] - acc["high lr"]}
    parts = []
    for name, gains in orderings.items():
        mean, se, lower = paired_bound(gains, LLR_LEVEL / len(orderings))
        parts.append(Check.predicate(lower, f"{name}: gain {mean:.3f} ± {se:.3f} (se), lower bound {lower:.3f}"))
    momentum = acc["high lr"] - acc["momentum"]
    detail = (f"seed-mean accuracy {dict((n, round(float(a.mean()), 3)) for n, a in acc.items())}; high lr over "
              f"momentum {momentum.mean():.3f} ± {momentum.std(ddof=1) / np.sqrt(momentum.size):.3f} (not asserted)")
    return Check.all_of(parts, detail)


def intervention_record_runs(config, seeds, *, device):
    """The interventions record's call of :func:`dynamics.spurious.torch_experiments.intervention_runs` (which
    takes the seeds first): every intervention row."""
    from dynamics.spurious import torch_experiments as te

    return te.intervention_runs(seeds, config, device=device)


def _intervention_statistics(result):
    """The per-seed gains of unbiased accuracy of the high learning rate over each low-learning-rate row, and of
    high lr + L2 over the high learning rate, with one-sided lower t bounds (family-wise 0.05 over them all)."""
    acc = dict(zip(result.names, result.unbiased_accuracy))
    pairs = [("high lr", n) for n in result.names if not n.startswith("high lr")] + [("high lr + l2", "high lr")]
    return {pair: paired_bound(acc[pair[0]] - acc[pair[1]], 0.05 / len(pairs)) for pair in pairs}


def _intervention_verdict(result):
    """Reproduced (Figs. 6 and 19, Table 2): the high learning rate reaches a higher unbiased accuracy than every
    intervention at the low learning rate (momentum, L1, L2, focal loss, a smaller batch, none), and adding L2 to
    the high learning rate raises it further (all one-sided lower bounds > 0, family-wise 0.05); partly: the high
    learning rate beats some of the interventions; else not."""
    from ..records import Verdict

    statistics = _intervention_statistics(result)
    text = "; ".join(f"{a} − {b} {mean:+.3f} (lower bound {lower:+.3f})"
                     for (a, b), (mean, _, lower) in statistics.items())
    held = [pair for pair, (_, _, lower) in statistics.items() if lower > 0]
    if len(held) == len(statistics):
        return Verdict("reproduced", text)
    beaten = [b for a, b in held if a == "high lr"]
    if beaten:
        return Verdict("partly reproduced", text + f"; the high learning rate beats {', '.join(beaten)} only"
                       if len(beaten) < len(statistics) - 1 else text + "; L2 adds nothing at the high learning rate")
    return Verdict("not reproduced", text)


def _intervention_summary(result):
    return "; ".join(f"{n} (η {lr:g}, batch {b}): unbiased accuracy {acc.mean():.3f} ± {acc.std(ddof=1):.3f}, core "
                     f"share {core.mean():.3f}, fitted {stopped.mean():.0%}"
                     for n, lr, b, acc, core, stopped in zip(result.names, result.learning_rates, result.batch_sizes,
                                                             result.unbiased_accuracy, result.core_share,
                                                             result.stopped)) + " (mean ± sd over seeds)"


record_plan(RecordPlan(
    name="spurious.lr_interventions", source="Barsbey et al. 2025, Figs. 6 and 19, Table 2",
    source_result="no intervention at a small learning rate (batch size, momentum, L1, L2, focal loss, ASAM) "
                  "matches the large learning rate's unbiased accuracy, and a large learning rate with L2 does best "
                  "(Colored MNIST: learning rate 72.3-92.2%, high LR + L2 92.2-94.3%)",
    trainer="verify.crosscheck.spurious:intervention_record_runs",
    config=spur.InterventionConfig.source()._replace(
        training=LLR_RECORD._replace(epoch_cap=INTERVENTION_RECORD_CAP, record_every=10**9)),
    seeds=tuple(range(10)), code=LLR_RECORD_CODE, judge=_intervention_verdict, summary=_intervention_summary,
    replay=lambda config: config._replace(training=config.training._replace(epoch_cap=1)), replay_tolerance=1e-3,
    tolerance_reason=LLR_REPLAY["tolerance_reason"].replace("2 epochs", "1 epoch"),
    reduced=LLR_REDUCED + f", but at most {INTERVENTION_RECORD_CAP} epochs (rows that do not fit by then stop "
                          "there; the 800 epochs of the other records took over 28 minutes on one core for the "
                          "rows at η = 0.05 that never fit); one value per intervention (momentum 0.9, L1 1e-4, "
                          "L2 5e-3, focal γ = 2, batch 25; L2 1e-3 at the high learning rate) where the paper sweeps "
                          "a range; no ASAM",
    ci_claim="spurious.experiment_lr_interventions"))


# ---------------------------------------------------------------- data-balancing experiments
# Idrissi et al. 2022 (reprinted as Pezeshki (thesis) Ch. 8) in miniature on the linear toy of its §8.4
# (dynamics.spurious.torch_balancing: all seeds of a method as one batched model). CPU: n = 400, d = 600, batch 100,
# lr 1e-5, momentum 0.9, 8 seeds; 500 epochs, 200 for the seven-method comparison (its selected epochs all lie
# below 200: RWG's at 79-264 of 500 in calibration, gDRO's at 18-42; the methods without group labels never
# succeed). CUDA: n = 1000, d = 1200, batch 250, 500 epochs, 16 seeds (the authors' code's scale).
# Calibration (16-20 seeds at 500 epochs, seeds 0-3, 100-115, 200-215):
#   validation-selected test worst-group accuracy: SUBG 1.00 (all), RWG 0.96 (sd 0.04), gDRO 0.97 (sd 0.03); ERM,
#   SUBY, RWY and JTT 0 except 3 of 20 seeds where the epoch-1 model wins (up to 0.98);
#   selection by average validation accuracy picked epochs of the same test worst-group accuracy in 139 of 140
#   runs (one RWY run 0.007 better): the thesis's loss does not reproduce on the toy;
#   train − test worst-group gap after 500 epochs: ERM 0.50 (sd 0.075), RWG 0.82 (sd 0.11), SUBG −0.013
#   (sd 0.017); paired ERM − SUBG 0.51 (sd 0.08), RWG − SUBG 0.83 (sd 0.11);
#   noise-free decision rule at the selected epoch, fraction of the [−8, 8] × [−2, 2] map that agrees with the
#   core rule: ERM 0.57, SUBG 0.96, RWG 0.85; paired SUBG − ERM 0.39 (sd 0.09), RWG − ERM 0.28 (sd 0.09).
BALANCING_LEVEL = 0.01  # family-wise, split evenly over the intervals of one claim (Bonferroni)
BALANCING_CPU = dict(n_seeds=8, config=spur.BalancingToyConfig.ci())  # n = 400, d = 600, batch 100, 500 epochs
BALANCING_CUDA = dict(n_seeds=16, config=spur.BalancingToyConfig.source())  # n = 1000, d = 1200, batch 250
_BALANCING_MEMO = {}


def _balancing_runs(ctx, methods, n_epochs=None):
    from dynamics.spurious import torch_balancing as tb

    setting = ctx.size(cpu=BALANCING_CPU, cuda=BALANCING_CUDA)
    seeds = tuple(ctx.run.seed(s) for s in range(setting["n_seeds"]))
    config = setting["config"]
    if n_epochs is not None and not ctx.large:
        config = config._replace(n_epochs=n_epochs)
    key = (methods, seeds, str(ctx.device), config)
    if key not in _BALANCING_MEMO:  # the train-test gap and the decision maps share one training
        while len(_BALANCING_MEMO) >= 4:  # a seed sweep runs 4 offsets
            _BALANCING_MEMO.pop(next(iter(_BALANCING_MEMO)))
        _BALANCING_MEMO[key] = tb.train_balancing_methods(methods, seeds, config, device=ctx.device)
    return _BALANCING_MEMO[key]


@experiment("spurious.experiment_balancing_methods", "Pezeshki (thesis), Ch. 8 Tables 2-3 / Idrissi et al. 2022",
            "Linear toy of the thesis's §8.4 (n = 400, d = 600, γ = (4, 1, 2), lr 1e-5, momentum 0.9, batch 100; "
            "JTT T = 1, λ_up = 20; gDRO η = 0.1; CPU 8 seeds, 200 epochs; CUDA n = 1000, d = 1200, batch 250, "
            "500 epochs, 16 seeds), each method's epoch selected by worst-group validation accuracy. (a) Every "
            "method that uses group labels in training (SUBG, RWG, gDRO) beats every one that does not (ERM, JTT, "
            "SUBY, RWY) on test worst-group accuracy: the smallest of the 12 one-sided lower bounds of the mean "
            "per-seed paired difference is > 0 (calibrated on 20 seeds: 1.00, 0.96, 0.97 against 0 but for 3 "
            "seeds). (b) Class balancing is not competitive here, unlike on the thesis's class-imbalanced "
            "benchmarks: the toy's classes are balanced, so SUBY keeps every sample and RWY samples uniformly, and "
            "both end training where ERM does: the two-sided interval of the paired difference in final test "
            "worst-group accuracy lies within ±0.1 (all 0 in calibration; their validation-selected values, like "
            "ERM's, are 0 but for seeds where an early model wins, up to 0.98). (c) The thesis's loss "
            "from selecting without group labels (by average validation accuracy) does not reproduce on the toy: "
            "both rules pick epochs of equal test worst-group accuracy in 139 of 140 calibration runs; the claim "
            "holds the mean loss over the seven methods within ±0.1. Family-wise level 0.01 over the 15 "
            "intervals (Student t).")
def experiment_balancing_methods(ctx):
    from dynamics.spurious import METHODS

    result = _balancing_runs(ctx, METHODS, n_epochs=200)
    selected = dict(zip(result.methods, result.selected_test_worst_group))
    level = BALANCING_LEVEL / 15
    lowers = {}
    for g in ("subg", "rwg", "gdro"):
        for n in ("erm", "jtt", "suby", "rwy"):
            mean, se, lower = paired_bound(selected[g] - selected[n], level)
            lowers[f"{g}−{n}"] = lower
    weakest = min(lowers, key=lowers.get)
    final = dict(zip(result.methods, result.test_group_acc[:, :, -1].min(axis=-1)))
    widest = {}
    for n in ("suby", "rwy"):
        mean, se, lower = paired_bound(final[n] - final["erm"], level)
        widest[f"{n}−erm"] = abs(mean) + mean - lower
    loss = (result.selected_test_worst_group - result.average_selected_test_worst_group).mean(axis=0)
    mean, se, lower = paired_bound(loss, level)
    means = {m: round(float(v.mean()), 3) for m, v in selected.items()}
    return Check.all_of(
        [Check.predicate(lowers[weakest], f"group labels help, weakest pair {weakest}"),
         Check.at_most(max(widest.values()), 0.1, "class balancing ends where ERM does on the balanced toy"),
         Check.at_most(abs(mean) + mean - lower, 0.1, "selection without group labels loses nothing here")],
        f"selected test WGA (seed means) {means}; weakest lower bound {weakest} {lowers[weakest]:.3f}; class "
        f"balancing vs ERM, final test WGA, |mean| + half-width {({k: round(v, 3) for k, v in widest.items()})}; selection loss "
        f"(worst-group minus average selection, mean over methods) {mean:.4f} ± {mean - lower:.4f}, "
        f"{int(np.sum(result.selected_test_worst_group != result.average_selected_test_worst_group))} of "
        f"{result.selected_test_worst_group.size} runs differ; {len(result.seeds)} seeds, "
        f"{result.epochs[-1]} epochs")



BALANCING_REDUCED = ("the linear toy of the thesis's Ch. 8 Fig. 1 at the authors' code's size (n = 1000, d = 1200 "
                     "noise features, γ = (4, 1, 2), SGD lr 1e-5, momentum 0.9, batch 250, 500 epochs), 8 seeds, "
                     "instead of ResNet/BERT on four benchmarks")
BALANCING_CODE = ("dynamics.spurious.torch_balancing", "dynamics.spurious._balancing", "dynamics.spurious._setups",
                  "dynamics.spurious._toy_training", "dynamics.numerics.torch_batched", "dynamics.numerics.torch_tools")
BALANCING_REPLAY = dict(
    replay=lambda config: config._replace(n_epochs=3), replay_tolerance=1e-8,
    tolerance_reason="float64 training: another CPU's BLAS rounds differently by about 1e-13 after 3 epochs, far "
                     "from flipping a prediction (accuracies are multiples of 1/n_group)")

GAP_METHODS = ("erm", "subg", "rwg")


def balancing_gap_runs(config, seeds, *, device):
    """The train-test gap record's call of :func:`dynamics.spurious.torch_balancing.train_balancing_methods`: ERM,
    SUBG and RWG, without the data sets (``splits``, regenerated from the seeds), which would make the record 200
    MB."""
    from dynamics.spurious import torch_balancing as tb

    return tb.train_balancing_methods(GAP_METHODS, seeds, config, device=device)._replace(splits=())


def _gap_statistics(result):
    """Per method, the final training minus test worst-group accuracy per seed (the method's own training set:
    SUBG's is its subsample), with its one-sided lower t bound (family-wise 0.05 over the methods)."""
    train = result.train_group_acc[:, :, -1].min(axis=-1)
    test = result.test_group_acc[:, :, -1].min(axis=-1)
    return {m: paired_bound(train[k] - test[k], 0.05 / len(result.methods)) for k, m in enumerate(result.methods)}


def _gap_verdict(result):
    """Reproduced ("a consistent generalisation gap for all methods"): every method's training worst-group accuracy
    exceeds its test one (one-sided lower bounds > 0, family-wise 95%); partly: some methods' do; else not."""
    from ..records import Verdict

    statistics = _gap_statistics(result)
    text = "train − test worst-group accuracy: " + ", ".join(
        f"{m.upper()} {mean:+.3f} (lower bound {lower:+.3f})" for m, (mean, _, lower) in statistics.items())
    without = [m.upper() for m, (_, _, lower) in statistics.items() if not lower > 0]
    if 0 < len(without) < len(statistics):
        text += f"; no gap for {', '.join(without)}"
    return Verdict.graded([lower > 0 for _, _, lower in statistics.values()], text)


def _gap_summary(result):
    train = result.train_group_acc[:, :, -1].min(axis=-1)
    test = result.test_group_acc[:, :, -1].min(axis=-1)
    return "; ".join(f"{m.upper()} worst-group accuracy training {train[k].mean():.3f} ± {train[k].std(ddof=1):.3f}, "
                     f"test {test[k].mean():.3f} ± {test[k].std(ddof=1):.3f}"
                     for k, m in enumerate(result.methods)) + f" (mean ± sd over seeds, after {result.epochs[-1]} epochs)"


record_plan(RecordPlan(
    name="spurious.balancing_train_test_gap", source="Pezeshki (thesis), Ch. 8 Fig. 2, §8.5.3 / Idrissi et al. 2022",
    source_result="a consistent generalisation gap between training and test worst-group accuracy for all methods "
                  "(ResNet and BERT on Waterbirds, CelebA, MultiNLI and CivilComments)",
    trainer="verify.crosscheck.spurious:balancing_gap_runs", config=spur.BalancingToyConfig.source(),
    seeds=tuple(range(8)),
    code=BALANCING_CODE, judge=_gap_verdict, summary=_gap_summary,
    reduced=BALANCING_REDUCED + "; ERM, SUBG and RWG", ci_claim="spurious.experiment_train_test_gap",
    **BALANCING_REPLAY))

# The thesis's Table 2 order: the methods without group labels first
TABLE_2_METHODS = ("erm", "jtt", "suby", "rwy", "subg", "rwg", "gdro")
GROUP_METHODS = ("subg", "rwg", "gdro")


def balancing_methods_runs(config, seeds, *, device):
    """The balancing-methods record's call of :func:`dynamics.spurious.torch_balancing.train_balancing_methods`:
    the seven methods in the thesis's Table 2 order, without the data sets (regenerated from the seeds)."""
    from dynamics.spurious import torch_balancing as tb

    return tb.train_balancing_methods(TABLE_2_METHODS, seeds, config, device=device)._replace(splits=())


def _methods_statistics(result):
    """The per-seed paired differences of the selected test worst-group accuracy, each method with group labels
    minus each without (12 pairs, one-sided lower t bounds at family-wise 0.05), and the selection loss: selected
    by worst-group minus by average validation accuracy, the mean over the methods per seed (lower bound at 0.05)."""
    selected = dict(zip(result.methods, result.selected_test_worst_group))
    without = [m for m in result.methods if m not in GROUP_METHODS]
    with_groups = [m for m in result.methods if m in GROUP_METHODS]
    level = 0.05 / (len(without) * len(with_groups))
    pairs = {(g, n): paired_bound(selected[g] - selected[n], level) for g in with_groups for n in without}
    loss = (result.selected_test_worst_group - result.average_selected_test_worst_group).mean(axis=0)
    return pairs, paired_bound(loss, 0.05)


def _methods_verdict(result):
    """Reproduced (Table 2; Table 3, second row): every method that uses group labels in training (SUBG, RWG,
    gDRO) reaches a higher test worst-group accuracy at its selected epoch than every method that does not (ERM,
    JTT, SUBY, RWY; all 12 one-sided lower bounds > 0, family-wise 0.05), and selecting the epoch by the average
    validation accuracy, without group labels, loses worst-group accuracy (lower bound of the mean loss > 0);
    partly: one of the two; else not."""
    from ..records import Verdict

    pairs, (loss, _, loss_lower) = _methods_statistics(result)
    weakest = min(pairs, key=lambda pair: pairs[pair][2])
    mean, _, lower = pairs[weakest]
    held = [lower > 0, loss_lower > 0]
    text = (f"selected test worst-group accuracy, with group labels minus without: weakest pair "
            f"{weakest[0].upper()} − {weakest[1].upper()} {mean:+.3f} (lower bound {lower:+.3f}), "
            f"{sum(p[2] > 0 for p in pairs.values())} of {len(pairs)} pairs hold; selection by average validation "
            f"accuracy loses {loss:+.3f} (lower bound {loss_lower:+.3f})")
    if held[0] and not held[1]:
        text += "; selection without group labels loses nothing here"
    return Verdict.graded(held, text)


def _methods_summary(result):
    return "; ".join(f"{m.upper()} {result.selected_test_worst_group[k].mean():.3f} ± "
                     f"{result.selected_test_worst_group[k].std(ddof=1):.3f} (by average validation accuracy "
                     f"{result.average_selected_test_worst_group[k].mean():.3f})" for k, m in enumerate(result.methods)) \
        + " (test worst-group accuracy at the epoch selected by worst-group validation accuracy, mean ± sd over seeds)"


record_plan(RecordPlan(
    name="spurious.balancing_methods", source="Pezeshki (thesis), Ch. 8 Tables 2-3 / Idrissi et al. 2022",
    source_result="the methods that use group labels in training (RWG, SUBG, gDRO: 78.4-80.5 average test "
                  "worst-group accuracy) above those that do not (ERM, JTT, RWY, SUBY: 69.6-76.2); selecting without "
                  "group labels costs 10-24 points",
    trainer="verify.crosscheck.spurious:balancing_methods_runs", config=spur.BalancingToyConfig.source(),
    seeds=tuple(range(8)), code=BALANCING_CODE, judge=_methods_verdict, summary=_methods_summary,
    reduced=BALANCING_REDUCED.replace("500 epochs)", "500 epochs; JTT T = 1, λ_up = 20; gDRO η = 0.1)")
    + "; no hyper-parameter search", ci_claim="spurious.experiment_balancing_methods", **BALANCING_REPLAY))


def _maps_statistics(result):
    """The noise-free rule's agreement with the core rule per method and seed, SUBG minus ERM (one-sided lower
    bound), and RWG's degradation after its selected epoch, selected minus final test worst-group accuracy (lower
    bound), each at level 0.025."""
    from dynamics.spurious import torch_balancing as tb

    rule = {m: tb.decision_maps(result, m, noise="none").core_rule_agreement for m in result.methods}
    rwg = result.methods.index("rwg")
    degrade = result.selected_test_worst_group[rwg] - result.test_group_acc[rwg, :, -1].min(axis=-1)
    return rule, paired_bound(rule["subg"] - rule["erm"], 0.025), paired_bound(degrade, 0.025)


def _maps_verdict(result):
    """Reproduced (Ch. 8 Fig. 1, §8.4): SUBG's noise-free decision rule at its selected epoch follows the core
    feature on more of the heat map's plane than ERM's (one-sided lower bound of the per-seed difference in
    agreement with the core rule x_core > 0 above 0), and RWG is good only with early stopping: its test
    worst-group accuracy after the last epoch is below the one at its selected epoch (lower bound > 0; family-wise
    0.05 over the two); partly: one of the two; else not."""
    from ..records import Verdict

    rule, (gain, _, lower), (degrade, _, degrade_lower) = _maps_statistics(result)
    text = (f"agreement of the noise-free rule with the core rule: "
            f"{', '.join(f'{m.upper()} {v.mean():.3f}' for m, v in rule.items())}; SUBG − ERM {gain:+.3f} (lower "
            f"bound {lower:+.3f}); RWG's test worst-group accuracy selected − final {degrade:+.3f} (lower bound "
            f"{degrade_lower:+.3f})")
    return Verdict.graded([lower > 0, degrade_lower > 0], text)


def _maps_summary(result):
    rule, _, _ = _maps_statistics(result)
    return "; ".join(f"{m.upper()}: selected epoch {np.median(result.selected_epoch[k]):.0f} (median), test "
                     f"worst-group accuracy {result.selected_test_worst_group[k].mean():.3f} there and "
                     f"{result.test_group_acc[k, :, -1].min(axis=-1).mean():.3f} at the end, core-rule agreement "
                     f"{rule[m].mean():.3f} ± {rule[m].std(ddof=1):.3f}" for k, m in enumerate(result.methods)) \
        + " (mean ± sd over seeds)"


record_plan(RecordPlan(
    name="spurious.decision_maps", source="Pezeshki (thesis), §8.4, Ch. 8 Fig. 1 / Idrissi et al. 2022",
    source_result="ERM separates by the spurious feature and memorises the minority through the noise; SUBG "
                  "relies on the core feature; RWG is good only with careful early stopping",
    trainer="verify.crosscheck.spurious:balancing_gap_runs", config=spur.BalancingToyConfig.source(),
    seeds=tuple(range(8)), code=BALANCING_CODE, judge=_maps_verdict, summary=_maps_summary,
    reduced=BALANCING_REDUCED + "; ERM, SUBG and RWG", ci_claim="spurious.experiment_decision_maps",
    **BALANCING_REPLAY))


@experiment("spurious.experiment_train_test_gap", "Pezeshki (thesis), Ch. 8 Fig. 2, §8.5.3 / Idrissi et al. 2022",
            "Linear toy (n = 400, d = 600, γ = (4, 1, 2), lr 1e-5, momentum 0.9, batch 100, 500 epochs; CPU 8 "
            "seeds; CUDA n = 1000, d = 1200, batch 250, 16 seeds): after training, the gap between the worst-group "
            "accuracy on the method's own training set (SUBG: its subsample) and on the test set is larger for ERM "
            "and for RWG than for SUBG, by more than 0.25: both one-sided lower bounds of the mean per-seed paired "
            "difference exceed 0.25 (family-wise level 0.01; calibrated on 16 seeds: ERM 0.50, RWG 0.82, SUBG "
            "−0.01; paired differences 0.51 (sd 0.08) and 0.83 (sd 0.11)). ERM and RWG memorise the minority "
            "through the noise features; SUBG fits its subsample and generalises. Not reproduced at this size: no "
            "ERM or RWG run reaches 100% training worst-group accuracy within 500 epochs (calibration maxima 0.63 "
            "and 0.91); SUBG reaches it on its subsample in half the seeds.")
def experiment_train_test_gap(ctx):
    result = _balancing_runs(ctx, ("erm", "subg", "rwg"))
    train = result.train_group_acc[:, :, -1].min(axis=-1)
    test = result.test_group_acc[:, :, -1].min(axis=-1)
    gap = dict(zip(result.methods, train - test))
    parts, margins = [], []
    for m in ("erm", "rwg"):
        mean, se, lower = paired_bound(gap[m] - gap["subg"], BALANCING_LEVEL / 2)
        margins.append(lower - 0.25)
        parts.append(f"{m} − subg {mean:.3f} ± {se:.3f} (se), lower bound {lower:.3f}")
    best_train = result.train_group_acc.min(axis=-1).max(axis=-1)
    return Check.predicate(min(margins), "; ".join(parts) + f"; gaps (seed means) "
                           f"{({m: round(float(v.mean()), 3) for m, v in gap.items()})}; largest training "
                           f"worst-group accuracy per method {np.round(best_train.max(axis=1), 3).tolist()}; "
                           f"{len(result.seeds)} seeds")


@experiment("spurious.experiment_decision_maps", "Pezeshki (thesis), §8.4, Ch. 8 Fig. 1 / Idrissi et al. 2022",
            "Same runs as spurious.experiment_train_test_gap, each model at its epoch selected by worst-group "
            "validation accuracy: on the heat-map plane of the thesis's figure (γ_spu x_spu in [−8, 8], γ_core "
            "x_core in [−2, 2], 80 × 40 points), the noise-free decision rule (the one that classifies the toy's "
            "noise-free test set) agrees with the core rule x_core > 0 on a larger fraction of the plane for SUBG "
            "and for RWG than for ERM: both one-sided lower bounds of the mean per-seed paired difference are > 0 "
            "(family-wise level 0.01; calibrated on 32 seeds: ERM 0.57, SUBG 0.96, RWG 0.85; paired differences "
            "0.39 (sd 0.09) and 0.28 (sd 0.09)). The maps as drawn (noise of the nearest training sample added) "
            "are reported, not asserted: SUBG's memorised noise blurs them.")
def experiment_decision_maps(ctx):
    from dynamics.spurious import torch_balancing as tb

    result = _balancing_runs(ctx, ("erm", "subg", "rwg"))
    rule = {m: tb.decision_maps(result, m, noise="none").core_rule_agreement for m in result.methods}
    drawn = {m: round(float(tb.decision_maps(result, m).core_rule_agreement.mean()), 3) for m in result.methods}
    parts, lowers = [], []
    for m in ("subg", "rwg"):
        mean, se, lower = paired_bound(rule[m] - rule["erm"], BALANCING_LEVEL / 2)
        lowers.append(lower)
        parts.append(f"{m} − erm {mean:.3f} ± {se:.3f} (se), lower bound {lower:.3f}")
    return Check.predicate(min(lowers), "; ".join(parts) + f"; noise-free agreement (seed means) "
                           f"{({m: round(float(v.mean()), 3) for m, v in rule.items()})}; maps as drawn {drawn}; "
                           f"{len(result.seeds)} seeds")


# Moon-star-like (Barsbey et al. 2025, Fig. 15, Table 1 Moon-Star row; the data set of Geirhos et al. 2020, which the
# paper does not render for its readers: dynamics.spurious.make_moon_star_like draws this project's own). Calibration
# at the CI size (MoonStarConfig.ci(): 16 × 16 images, 2000 training and 2000 test images, FCN 256→100→100→2 without
# bias, SGD batch 100, cap 100 epochs; CPU, seeds 100-107): per-seed paired gain acc(η = 0.75) − acc(η = 0.01) of
# unbiased test accuracy mean 0.119, sd 0.026, all 8 positive (0.082 to 0.165). η = 0.01 stops at the cap at 96-98%
# training accuracy, η = 0.75 fits in 13-21 epochs: at this size the claim compares a fitted network with one that is
# not (the record trains both to 100%). With MOON_STAR_SEEDS = 6 the gain lies 0.119/0.026·√6 = 11 standard errors
# out, beyond the one-sided t quantile 3.36 (level 0.01, 5 degrees of freedom); 6 seeds train in about 6-9 s on one
# core. On CUDA the claim runs the record's size (32 × 32 images, 10000 training images, both learning rates trained
# to 100% training accuracy), where the record's 10 seeds gave a gain of mean 0.0009, sd 0.00086 (8 positive, one
# zero, one −0.0006): with 32 seeds 5.9 standard errors against the t quantile 2.45 (level 0.01, 31 degrees of
# freedom); 16 seeds (4.2 against 2.60) would fail about one run in ten.
MOON_STAR_SEEDS = 6
MOON_STAR_LEVEL = 0.01
MOON_STAR_RATES = (0.01, 0.75)  # the ends of the paper's range


@experiment("spurious.experiment_moon_star", "Barsbey et al. 2025, Fig. 15, Table 1 (Moon-Star row)",
            "Moon-star-like images (this project's rendering: a star or a crescent in one quadrant of a 16 × 16 "
            "image, the quadrant pair agreeing with the class on 90% of the 2000 training images, an unbiased test "
            "set of 2000), FCN 256→100→100→2 without bias, SGD batch 100, cap 100 epochs (CPU 6 seeds; CUDA 32 "
            "seeds at the record's size, 32 × 32 images, 10000 training images, both learning rates trained to "
            "100% training accuracy): unbiased test accuracy is higher at η = 0.75 than at η = 0.01, the one-sided "
            "99% Student-t lower bound of the mean per-seed paired difference being > 0 (calibrated on 8 seeds: "
            "mean 0.119, sd 0.026, all positive; 11 standard errors at 6 seeds; at the record's size: mean 0.0009, "
            "sd 0.0009). On the CPU η = 0.01 stops at the cap short of 100% training accuracy (96-98%), so the "
            "claim's gain is mostly the low learning rate's slower fitting; trained to 100% the gain is about a "
            "tenth of a percentage point.")
def experiment_moon_star(ctx):
    from dynamics.spurious import torch_moon_star as tm

    seeds = [ctx.run.seed(s) for s in range(ctx.size(cpu=MOON_STAR_SEEDS, cuda=32))]
    config = ctx.size(cpu=spur.MoonStarConfig.ci(), cuda=spur.MoonStarConfig.record())
    runs = tm.moon_star_lr_runs(config, seeds, learning_rates=MOON_STAR_RATES, device=ctx.device)
    gain = runs.unbiased_accuracy[1] - runs.unbiased_accuracy[0]
    mean, se, lower = paired_bound(gain, MOON_STAR_LEVEL)
    return Check.predicate(lower, f"unbiased accuracy gain {mean:.3f} ± {se:.3f} (se) over {gain.size} seeds, 99% "
                                  f"lower bound {lower:.3f}; per seed {np.round(gain, 3).tolist()}; seed means "
                                  f"(η = 0.01, 0.75): unbiased {np.round(runs.unbiased_accuracy.mean(1), 3).tolist()}, "
                                  f"BA {np.round(runs.ba_accuracy.mean(1), 3).tolist()}, BC "
                                  f"{np.round(runs.bc_accuracy.mean(1), 3).tolist()}, CSI "
                                  f"{np.round(runs.class_selectivity.mean(1), 3).tolist()} (not asserted), fitted "
                                  f"{runs.fitted.mean(1).tolist()}")


def moon_star_runs(config, seeds, *, device):
    """The moon-star record's call of :func:`dynamics.spurious.torch_moon_star.moon_star_lr_runs`: η = 0.01 against
    0.75, the ends of the paper's range."""
    from dynamics.spurious import torch_moon_star as tm

    return tm.moon_star_lr_runs(config, seeds, learning_rates=MOON_STAR_RATES, device=device)


def _moon_star_verdict(result):
    """Reproduced (Fig. 15, Table 1 Moon-Star row, the images being this project's): unbiased test accuracy is
    higher at η = 0.75 than at η = 0.01, the one-sided lower bound of the mean per-seed gain being > 0 (level
    0.05), by at least one percentage point (a seventh of the paper's 6.9-point spread over its learning rates);
    partly: the direction only (lower bound > 0, or the mean gain > 0); else not. The one-point floor was added
    after the record run had shown a gain of 0.09 points at 99.5% accuracy: it makes the rule stricter, not
    looser."""
    from ..records import Verdict

    acc = result.unbiased_accuracy
    gain, _, lower = paired_bound(acc[1] - acc[0], 0.05)
    text = (f"unbiased test accuracy η = {result.learning_rates[0]:g} {acc[0].mean():.3f}, η = "
            f"{result.learning_rates[1]:g} {acc[1].mean():.3f} (gain {gain:+.4f}, lower bound {lower:+.4f})")
    if lower > 0 and gain >= 0.01:
        return Verdict("reproduced", text)
    if lower > 0 or gain > 0:
        return Verdict("partly reproduced", text + "; the direction holds, but at the ceiling of accuracy the gain is "
                                                  "below one percentage point")
    return Verdict("not reproduced", text)


def _moon_star_summary(result):
    parts = []
    for c, lr in enumerate(result.learning_rates):
        parts.append(f"η = {lr:g}: unbiased accuracy {result.unbiased_accuracy[c].mean():.3f} ± "
                     f"{result.unbiased_accuracy[c].std(ddof=1):.3f} (BA {result.ba_accuracy[c].mean():.3f}, BC "
                     f"{result.bc_accuracy[c].mean():.3f}), CSI {result.class_selectivity[c].mean():.3f}, "
                     f"{int(result.fitted[c].sum())} of {result.fitted.shape[1]} runs fitted (mean epochs "
                     f"{result.epochs_to_fit[c].mean():.0f}, training accuracy at the stop "
                     f"{result.train_accuracy[c].mean():.4f})")
    return "; ".join(parts) + (" (mean ± sd over seeds; the paper's range over η = 0.01-0.75: 74.3-81.2%, CSI "
                               "0.257-0.34)")


MOON_STAR_CODE = ("dynamics.spurious.torch_moon_star", "dynamics.spurious._moon_star",
                  "dynamics.numerics.torch_batched", "dynamics.numerics.torch_tools")

record_plan(RecordPlan(
    name="spurious.moon_star", source="Barsbey et al. 2025, Fig. 15, Table 1 (Moon-Star row)",
    source_result="on the moon-star data set (Geirhos et al. 2020; ρ_train = 0.1, ρ_test = 0.5) an FCN trained "
                  "with SGD at learning rates 0.01-0.75 reaches unbiased test accuracy 74.3-81.2%, rising with the "
                  "learning rate (with prunability 0.954-0.971, activation compressibility 0.375-0.457, CSI "
                  "0.257-0.34, class separation 0.2-0.326)",
    trainer="verify.crosscheck.spurious:moon_star_runs", config=spur.MoonStarConfig.record(), seeds=tuple(range(10)),
    code=MOON_STAR_CODE, judge=_moon_star_verdict, summary=_moon_star_summary,
    replay=lambda config: config._replace(epoch_cap=1), replay_tolerance=1e-3,
    tolerance_reason="float32 training: another CPU's BLAS rounds at 1e-7 relative, which over 1 epoch moves the "
                     "mean CSI by far less than 1e-3 and can flip a few of the 5000 test predictions (2e-4 each)",
    reduced="moon-star-like images of this project's rendering (the paper gives neither the image size nor the "
            "rendering, so the accuracies are not comparable with Table 1's, only their direction): a filled "
            "five-pointed star or a crescent, random size and rotation, in one quadrant of a 32 × 32 image; 10000 "
            "training images at ρ = 0.1 and 5000 unbiased test images; FCN 1024→200→200→2 without bias, plain SGD "
            "batch 100 to 100% training accuracy (cap 600 epochs; the set sizes, width and batch of the paper's "
            "parity experiment), float32; η = 0.01 against 0.75, 10 seeds",
    ci_claim="spurious.experiment_moon_star"))


planted_bug("spurious: the parity sweep trains each learning rate at the other's (0.03 and 0.75 swapped)",
            "dynamics/spurious/torch_training.py", "optimizer = MemberOptimizer(weights, learning_rate)  # plain SGD",
            "optimizer = MemberOptimizer(weights, 0.78 - learning_rate)  # plain SGD",
            ("spurious.parity_lr_accuracy", "spurious.parity_neuron_resets", "spurious.parity_landscape_width",
             "spurious.parity_attribution_share"))
planted_bug("spurious: the experiment trainer swaps the learning rates between configurations",
            "dynamics/spurious/torch_experiments.py", "optim = MemberOptimizer(weights, member(lrs),",
            "optim = MemberOptimizer(weights, member(lrs[::-1]),",
            ("spurious.experiment_lr_attributions", "spurious.experiment_lr_bc_loss_share"))
planted_bug("spurious: SUBG subsamples by class, not by group (group balancing off)",
            "dynamics/spurious/torch_balancing.py",
            "kept = [subsample_to_smallest(lab if method == \"suby\" else st, seed=r)",
            "kept = [subsample_to_smallest(lab if method == \"suby\" else lab, seed=r)",
            ("spurious.experiment_balancing_methods",))

planted_bug("spurious: the moon-star trainer gives each member the other learning rate (member order reversed)",
            "dynamics/spurious/torch_moon_star.py", "optimizer = MemberOptimizer(weights, lrs)  # plain SGD",
            "optimizer = MemberOptimizer(weights, lrs[::-1])  # plain SGD", ("spurious.experiment_moon_star",))
