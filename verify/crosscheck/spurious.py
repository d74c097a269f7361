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
from scipy import stats

from dynamics import spurious as spur
from . import crosscheck
from ..registry import Check

PARITY_CPU = dict(learning_rates=(0.03, 0.75), n_seeds=5, epoch_cap=800)
PARITY_CUDA = dict(learning_rates=(0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75), n_seeds=32, epoch_cap=1000)
LOW_LR, HIGH_LR = 0.03, 0.75


def _parity_sweep(ctx):
    from dynamics.spurious import torch_training as tt

    setting = ctx.size(cpu=PARITY_CPU, cuda=PARITY_CUDA)
    seeds = [ctx.run.seed(s) for s in range(setting["n_seeds"])]
    return tt.parity_lr_sweep(setting["learning_rates"], seeds, epoch_cap=setting["epoch_cap"], device=ctx.device)


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

    net = tt.spurious_rule_logits(seed=ctx.run.seed(202), device=ctx.device)
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


@crosscheck("spurious.toy_torch_agreement", "Pezeshki (thesis), §8.4",
            "torch SGD(momentum 0.9, weight decay 0) in float64, from the numpy trainer's initialisation and replaying "
            "its index orders on the linear toy (n = 400, d = 600, 500 epochs; 1 seed on CPU, 3 on CUDA), ends at "
            "max|w_np − w_torch|/max|w_np| <= 1e-10 for ERM, SUBG and RWG, with identical group accuracies after "
            "every epoch.")
def toy_torch_agreement(ctx):
    from dynamics.spurious import torch_training as tt

    seeds = [ctx.run.seed(s) for s in range(ctx.size(cpu=1, cuda=3))]
    toy = spur.balancing_toy_runs(seeds, ("erm", "subg", "rwg"), return_orders=True)
    weight_gap, accuracy_gap = 0.0, 0.0
    for method, runs in toy.runs.items():
        for splits, run in zip(toy.splits, runs):
            replay = tt.replay_balancing_toy(*splits, run, method, device=ctx.device)
            weight_gap = max(weight_gap, float(np.abs(run.weights - replay.weights).max() / np.abs(run.weights).max()))
            accuracy_gap = max(accuracy_gap, float(np.abs(run.val_group_acc - replay.val_group_acc).max()),
                               float(np.abs(run.test_group_acc - replay.test_group_acc).max()))
    return Check.all_of([Check.at_most(weight_gap, 1e-10, "weights"), Check.at_most(accuracy_gap, 0.0, "accuracies")],
                        f"relative weight gap {weight_gap:.1e}; largest group-accuracy difference {accuracy_gap}")
