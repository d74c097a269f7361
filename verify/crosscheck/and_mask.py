"""Torch cross-checks of the AND-mask: the torch implementation (:mod:`dynamics.and_mask.torch_optim`) and the torch
trainers (:mod:`dynamics.and_mask.torch_training`) against the numpy API, the exact sign statistics, and the
predictions for the authors' linear patchwork and the logistic shortcut task (see the theory note,
docs/theory/and_mask.md).

* The mask: ``and_mask_grad`` equals ``and_mask``/``masked_gradient`` on identical float64 inputs (zeros, exact
  boundaries τ = |2k/d − 1|, rescaling, geometric mean), and on Gaussian tensors its mask density and masked moments
  match the closed forms.
* The authors' linear-regression patchwork (their notebook ``linear_regression_ilc``): exact θ₀ = 0 predictions,
  and the random-θ₀ structure (private weights only shrunk by weight decay, θ₅ at its masked fixed point).
* The logistic shortcut task: the AND-mask beats averaging out of distribution and approaches Φ(a); the shortcut
  weights stay exactly 0 when no shortcut coordinate passes at initialisation; the torch run reproduces the numpy
  trainer; the mask density of real model gradients at initialisation matches π0(E, τ) (shortcuts) and π(E, τ, a√n_e)
  (the invariant feature).
* Algorithm 1: ``TemporalAndMaskAdam`` against an independent numpy transcription, and its sign EMA against
  ``sign_ema_moments``.
* The paper's experiments in miniature (claims of kind "experiment", over seeds, with one-sided t bounds on
  per-seed paired differences), trained by :mod:`dynamics.and_mask.torch_experiments`: the memorisation task
  (Fig 6 and Fig 14), the learning signals at initialisation (Fig 7), random labels and label noise (Figs 8 and 9
  in spirit) and the number of environments averaging needs (Fig 15 in spirit).

Tolerances: Bonferroni z (family-wise 1e-4) for sampled quantities, round-off envelopes for identities, and for
the trained values from random starts, envelopes set by the spread of the masked fixed point over starts (see the
theory note).
"""
import math

import numpy as np

from dynamics import and_mask as am
from . import crosscheck, experiment
from ..and_mask import _z_check
from ..records import RecordPlan, not_recorded, record_plan
from ..registry import Check, paired_bound, planted_bug


@crosscheck("and_mask.torch_mask_matches_numpy", "Parascandolo et al. 2021, §2.3; the authors' public code (get_grads)",
            "The torch and_mask_grad equals masked_gradient on identical float64 inputs with exact zeros and every "
            "boundary τ = |2k/d − 1| (masks exactly, values to rel 1e-13, with rescaling and geom_mean); on Gaussian "
            "tensors (n = 1e5 on CPU, 1e6 on CUDA; d in {4, 16, 32}; τ in {0.2, 0.5, 0.6, 1}; pure noise and s = 0.5) "
            "its mask density, E[m ḡ] and E[m ḡ²] match keep_probability and masked_update_moments (Bonferroni z over "
            "all comparisons; theoretical standard errors for the density).")
def torch_mask_matches_numpy(ctx):
    from dynamics.and_mask.torch_optim import and_mask_grad

    torch = ctx.torch
    rng = ctx.seed(2100)
    mismatches, worst = 0, 0.0
    for d in (1, 2, 3, 5, 8, 25):
        g = rng.standard_normal((d, 400))
        g[rng.random((d, 400)) < 0.1] = 0.0
        g[:, :8] = np.round(g[:, :8])
        for k in range(d + 1):
            tau = abs(2 * k / d - 1)
            for rescale in (False, True):
                for geom in (False, True):
                    ours = ctx.numpy(and_mask_grad(ctx.tensor(g), tau, rescale, geom))
                    reference = am.masked_gradient(g, tau, rescale, geom)
                    mismatches += int(np.any((ours != 0) != (reference != 0)))
                    scale = max(float(np.abs(reference).max()), 1e-300)
                    worst = max(worst, float(np.abs(ours - reference).max()) / scale)
    n = ctx.size(cpu=100_000, cuda=1_000_000)
    rows = []
    for d in (4, 16, 32):
        for s in (0.0, 0.5):
            g = torch.randn(d, n, dtype=ctx.dtype, device=ctx.device) + s
            for tau in (0.2, 0.5, 0.6, 1.0):
                update = ctx.numpy(and_mask_grad(g, tau))  # kept where non-zero (ḡ = 0 has probability 0)
                exact_keep = am.keep_probability(d, tau, s)
                moments = am.masked_update_moments(d, tau, s)
                if n * exact_keep < 50 or exact_keep == 1.0:
                    continue
                rows.append((float(np.mean(update != 0)), exact_keep, math.sqrt(exact_keep * (1 - exact_keep) / n),
                             f"keep d={d} s={s} τ={tau}"))
                rows.append((float(update.mean()), moments.first_moment, float(update.std() / math.sqrt(n)),
                             f"E[mḡ] d={d} s={s} τ={tau}"))
                sq = update ** 2
                rows.append((float(sq.mean()), moments.second_moment, float(sq.std() / math.sqrt(n)),
                             f"E[mḡ²] d={d} s={s} τ={tau}"))
    return Check.all_of([Check.at_most(mismatches, 0, "masks differ from numpy"),
                         Check.at_most(worst, 1e-13, f"values vs numpy: rel {worst:.1e}"),
                         _z_check(rows, "torch mask statistics")])


@crosscheck("and_mask.torch_linear_patchwork",
            "Parascandolo et al. 2021; the authors' notebook linear_regression_ilc (predictions derived here)",
            "The notebook's linear patchwork trained with the torch AND-mask wrapper over SGD (lr 0.3·0.9995^i, "
            "wd 0.01, 1001 steps): from θ₀ = 0, arithmetic on all 4 envs gives θ_e = 0.31915, θ₅ = 0.12766; on "
            "{1, 2} θ_{1,2} = 0.32609, θ₅ = 0.06522, held-out loss 0.4806; AND-mask (τ = 1) and geom_mean keep the "
            "private weights at exactly 0 with θ₅ = 2.9994, train loss 5.02e-3 (1e-4; θ₅ to 1e-3). From 5 random "
            "θ₀ = 0.1·N(0, I): AND-mask private weights equal θ_j,0·Π(1 − wd·lr_i) (rel 1e-12), "
            "|θ₅ − 0.3(1 − 3m̄)/(0.09 + wd)| < 0.03, |θ₅ − 3| < 0.3, max|θ_{1..4}| < 0.05, held-out loss < 0.03 "
            "against > 0.4 for averaging; arithmetic on all 4: |θ_e − 0.3191| < 0.005, |θ₅ − 0.1277| < 0.05.")
def torch_linear_patchwork(ctx):
    from dynamics.and_mask.torch_training import train_linear_patchwork

    rng = ctx.seed(2200)
    starts = np.vstack([np.zeros(5), 0.1 * rng.standard_normal((5, 5))])  # row 0: θ₀ = 0
    device = ctx.device
    all_arith = train_linear_patchwork("arithmetic", (0, 1, 2, 3), starts, device=device)
    pair_arith = train_linear_patchwork("arithmetic", (0, 1), starts, device=device)
    pair_and = train_linear_patchwork("and_mask", (0, 1), starts, device=device)
    all_and = train_linear_patchwork("and_mask", (0, 1, 2, 3), starts[:1], device=device)
    pair_geom = train_linear_patchwork("geom_mean", (0, 1), starts[:1], device=device)
    checks = [
        Check.at_most(max(float(np.abs(all_arith.theta[0, :4] - 0.31915).max()), abs(all_arith.theta[0, 4] - 0.12766)),
                      1e-4, "arithmetic, all 4, θ₀ = 0"),
        Check.at_most(max(float(np.abs(pair_arith.theta[0, :2] - 0.32609).max()), float(np.abs(pair_arith.theta[0, 2:4]).max()),
                          abs(pair_arith.theta[0, 4] - 0.06522), abs(pair_arith.heldout_loss[0] - 0.4806)), 1e-4,
                      "arithmetic on {1, 2}, θ₀ = 0"),
    ]
    for run, label in ((pair_and, "AND on {1, 2}"), (all_and, "AND on all 4"), (pair_geom, "geom_mean on {1, 2}")):
        checks.append(Check.at_most(float(np.abs(run.theta[0, :4]).max()), 0.0, f"{label}: private weights"))
        checks.append(Check.at_most(abs(run.theta[0, 4] - 2.9994), 1e-3, f"{label}: θ₅"))
        checks.append(Check.at_most(abs(run.train_loss[0] - 5.02e-3), 1e-4, f"{label}: train loss"))
    shrink = np.prod(1.0 - 0.01 * pair_and.learning_rates)
    private = pair_and.theta[1:, :2]
    checks.append(Check.at_most(float(np.abs(private / (starts[1:, :2] * shrink) - 1).max()), 1e-12,
                                "private weights = θ_j,0·Π(1 − wd·lr)"))
    fixed_point = am.patchwork_masked_shared_weight(private, weight_decay=0.01)
    checks.append(Check.below(float(np.abs(pair_and.theta[1:, 4] - fixed_point).max()), 0.03,
                              "θ₅ at the masked fixed point"))
    checks.append(Check.below(float(np.abs(pair_and.theta[1:, 4] - 3.0).max()), 0.3, "θ₅ near 3"))
    checks.append(Check.below(float(np.abs(pair_and.theta[1:, 2:4]).max()), 0.05, "held-out private weights"))
    checks.append(Check.below(float(pair_and.heldout_loss[1:].max()), 0.03, "AND held-out loss"))
    checks.append(Check.above(float(pair_arith.heldout_loss[1:].min()), 0.4, "averaging held-out loss (patchwork)"))
    checks.append(Check.below(float(np.abs(all_arith.theta[1:, :4] - 0.3191).max()), 0.005, "arithmetic θ_e"))
    checks.append(Check.below(float(np.abs(all_arith.theta[1:, 4] - 0.1277).max()), 0.05, "arithmetic θ₅"))
    return Check.all_of(checks)


@crosscheck("and_mask.torch_logistic_shortcut",
            "Parascandolo et al. 2021, §3.1 (the memorisation task, linearised in this project)",
            "Logistic regression on the linearised shortcut task (E = 16 environments × 256, 32 shortcut dimensions, "
            "a = 1; full-batch torch SGD lr 0.5, 500 steps; 5 seeds on CPU, 10 on CUDA): the AND-mask (τ = 1) o.o.d. "
            "accuracy beats averaging (τ = 0) by more than 0.15 in every seed and is within 0.03 of the Bayes "
            "accuracy Φ(a) in the mean; averaging memorises (shortcut-probe accuracy > 0.95); the shortcut weights "
            "stay exactly 0 under the AND-mask when no shortcut coordinate passes at w = 0; the torch weights equal "
            "the numpy trainer's (rel 1e-10).")
def torch_logistic_shortcut(ctx):
    from dynamics.and_mask.torch_training import train_logistic_shortcut

    ctx.seed(2300)
    n_seeds = ctx.size(cpu=5, cuda=10)
    data = [am.make_logistic_shortcut(seed=ctx.run.seed(2300) * 100 + j) for j in range(n_seeds)]
    averaging = train_logistic_shortcut(data, 0.0, device=ctx.device)
    masked = train_logistic_shortcut(data, 1.0, device=ctx.device)
    bayes = am.shortcut_bayes_accuracy(data[0].signal)
    gaps = [m.test_accuracy - a.test_accuracy for m, a in zip(masked, averaging)]
    mean_masked = float(np.mean([m.test_accuracy for m in masked]))
    zero_shortcut = [float(np.abs(m.weights[1:]).max()) for m in masked if not m.initial_mask[1:].any()]
    reference = am.train_logistic_shortcut(data[0], 1.0)
    reference_plain = am.train_logistic_shortcut(data[0], 0.0)
    agreement = max(float(np.abs(masked[0].weights - reference.weights).max() / np.abs(reference.weights).max()),
                    float(np.abs(averaging[0].weights - reference_plain.weights).max() / np.abs(reference_plain.weights).max()))
    return Check.all_of([Check.above(min(gaps), 0.15, f"smallest o.o.d. gain of the AND-mask {min(gaps):.3f}"),
                         Check.below(abs(mean_masked - bayes), 0.03, f"AND-mask o.o.d. {mean_masked:.3f} vs Φ(a) = {bayes:.3f}"),
                         Check.above(min(a.shortcut_accuracy for a in averaging), 0.95, "averaging memorises"),
                         Check.at_most(max(zero_shortcut, default=0.0), 0.0,
                                       f"shortcut weights with nothing kept at init ({len(zero_shortcut)} seeds)"),
                         Check.at_most(agreement, 1e-10, f"torch vs numpy trainer: rel {agreement:.1e}")])


@crosscheck("and_mask.torch_init_mask_density", "Parascandolo et al. 2021, §3.1 and Prop. 2, Eq 6",
            "At w = 0 the autograd per-environment gradients of the logistic task give (a) a shortcut mask density "
            "matching π0(E, 0.5) and a shortcut E[m ḡ²] matching the pure-noise moment with σ = σ_S/2 (400 data sets "
            "× 32 shortcut coordinates; E in {4, 8, 16}), and (c) an invariant-coordinate keep frequency matching "
            "π(E, τ, a√n_e) (a = 0.05, n_e = 64, E = 16, τ = 0.2; 3000 data sets on CPU, 12000 on CUDA). Tolerance: "
            "Bonferroni z over the 7 comparisons (theoretical standard errors for frequencies).")
def torch_init_mask_density(ctx):
    from dynamics.and_mask.torch_training import logistic_init_gradients

    ctx.seed(2400)
    base = ctx.run.seed(2400) * 100_000
    rows = []
    for n_envs in (4, 8, 16):
        data = [am.make_logistic_shortcut(n_envs=n_envs, n_samples_per_env=32, n_test=1, seed=base + 1000 * n_envs + j)
                for j in range(400)]
        grads = logistic_init_gradients(data, device=ctx.device)[:, :, 1:]  # (400, E, 32) shortcut block
        columns = np.moveaxis(grads, 1, 0).reshape(n_envs, -1)
        n = columns.shape[1]
        exact = am.keep_probability(n_envs, 0.5)
        rows.append((float(am.and_mask(columns, 0.5).mean()), exact, math.sqrt(exact * (1 - exact) / n), f"(a) density E={n_envs}"))
        masked = am.masked_gradient(columns, 0.5) ** 2
        moment = am.masked_update_moments(n_envs, 0.5, 0.0, gradient_std=0.5).second_moment
        rows.append((float(masked.mean()), moment, float(masked.std() / math.sqrt(n)), f"(a) E[mḡ²] E={n_envs}"))
    n_sets = ctx.size(cpu=3000, cuda=12000)
    data = [am.make_logistic_shortcut(n_envs=16, n_samples_per_env=64, dim_shortcut=1, signal=0.05, n_test=1,
                                      seed=base + 7 + j) for j in range(n_sets)]
    invariant = logistic_init_gradients(data, device=ctx.device)[:, :, 0].T  # (E, n_sets)
    exact = am.keep_probability(16, 0.2, 0.05 * math.sqrt(64))
    rows.append((float(am.and_mask(invariant, 0.2).mean()), exact, math.sqrt(exact * (1 - exact) / n_sets),
                 "(c) invariant keep frequency"))
    return _z_check(rows, "mask at initialisation")


@crosscheck("and_mask.torch_temporal_adam", "Parascandolo et al. 2021, Algorithm 1, §3.3",
            "TemporalAndMaskAdam driven by i.i.d. gradients g_k ~ N(μ, 1) on n parameters (loss ⟨g_k, θ⟩; n = 2e4 on "
            "CPU, 2e5 on CUDA; s = μ in {0, 0.4}; β3 = 0.79, τ = 0.36, 25 steps) follows an independent numpy "
            "transcription of Algorithm 1 (rel 1e-12), and its sign EMA after 5 and 25 steps has the mean and "
            "variance of sign_ema_moments across parameters (Bonferroni z, sample standard errors).")
def torch_temporal_adam(ctx):
    from dynamics.and_mask.torch_optim import TemporalAndMaskAdam

    torch = ctx.torch
    rng = ctx.seed(2500)
    n = ctx.size(cpu=20_000, cuda=200_000)
    lr, betas, beta3, tau, eps, wd = 0.01, (0.3, 0.99), 0.79, 0.36, 1e-8, 0.05
    rows, worst = [], 0.0
    for s in (0.0, 0.4):
        theta = torch.zeros(n, dtype=ctx.dtype, device=ctx.device, requires_grad=True)
        opt = TemporalAndMaskAdam([theta], learning_rate=lr, betas=betas, sign_decay=beta3, agreement_threshold=tau, eps=eps,
                                  weight_decay=wd)
        ref_theta, m, v, a = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
        for k in range(1, 26):
            g = rng.standard_normal(n) + s
            opt.zero_grad()
            (theta * ctx.tensor(g)).sum().backward()
            opt.step()
            m = betas[0] * m + (1 - betas[0]) * g
            v = betas[1] * v + (1 - betas[1]) * g * g
            a = beta3 * a + (1 - beta3) * np.sign(g)
            ref_theta = ref_theta - lr * m * (np.abs(a) >= tau) / np.sqrt(v + eps)
            ref_theta = ref_theta * (1 - lr * wd)
            if k in (5, 25):
                ema = ctx.numpy(opt.state[theta]["sign_ema"])
                theory = am.sign_ema_moments(s, beta3, k)
                centred = (ema - ema.mean()) ** 2
                rows.append((float(ema.mean()), theory.mean, float(ema.std() / math.sqrt(n)), f"mean s={s} k={k}"))
                rows.append((float(centred.mean()), theory.variance, float(centred.std() / math.sqrt(n)),
                             f"variance s={s} k={k}"))
        ours = ctx.numpy(theta)
        worst = max(worst, float(np.abs(ours - ref_theta).max() / np.abs(ref_theta).max()))
    return Check.all_of([Check.at_most(worst, 1e-12, f"vs numpy Algorithm 1: rel {worst:.1e}"),
                         _z_check(rows, "sign EMA")])



# ---------------------------------------------------------------------------------------------------------------
# The experiments of Parascandolo et al. 2021 in miniature (dynamics.and_mask.torch_experiments)


def _experiments():
    from dynamics.and_mask import torch_experiments

    return torch_experiments


def _bound_text(name, mean, se, lower):
    return f"{name}: mean {mean:.3f} ± {se:.3f} (se), lower bound {lower:.3f}"


# Calibration (16 seeds, CPU size): o.o.d. accuracy of the AND-mask (τ = 1) minus averaging, per seed -0.02 to
# 0.16, mean 0.10, sd 0.06; averaging's training accuracy 1.00 and o.o.d. 0.55-0.66. With 10 seeds the one-sided t
# bound (family-wise 1e-2 over the 2 one-sided statements: t(9) = 3.25) lies near 0.10 − 3.25·0.019 = 0.04 > 0.
SPIRAL_SEEDS = 10


@experiment("and_mask.experiment_spiral_memorisation", "Parascandolo et al. 2021, Fig 6 and Fig 14",
            "On the memorisation task in miniature (16 environments × 64 examples, 8 shortcut dimensions, spirals of "
            "0.75 turns, MLP 2 × 32 LeakyReLU, full batch per environment, Adam lr 1e-2, 400 steps on CPU; on CUDA "
            "32 environments × 1280, 32 shortcut dimensions, 3 turns, MLP 3 × 256, 3000 steps), over 10 paired seeds: "
            "averaging memorises (mean training accuracy > 0.95) and stays near chance out of distribution (mean "
            "o.o.d. accuracy < 0.7), and the AND-mask at τ = 1 beats averaging out of distribution: the one-sided t "
            "lower bound (family-wise 1e-2) of the mean paired o.o.d. gain is positive. Calibration on 16 seeds: "
            "gain 0.10 (sd 0.06 over seeds, bound ≈ 0.04); AND-mask o.o.d. ≈ 0.75, not the paper's ≈ 1: at this size the "
            "AND-mask neither "
            "fits the spirals fully nor memorises, so the paper's 'high o.o.d. accuracy' reproduces only as a clear "
            "gain over averaging.")
def experiment_spiral_memorisation(ctx):
    ctx.seed(3000)
    seeds = tuple(ctx.run.seed(3000 + j) for j in range(SPIRAL_SEEDS))
    config = ctx.size(cpu=am.SpiralMemorisationConfig.ci(), cuda=am.SpiralMemorisationConfig.source())
    run = _experiments().train_spiral_memorisation(config, seeds, device=ctx.device)
    train, test = run.train_accuracy[..., -1], run.test_accuracy[..., -1]
    gain = paired_bound(test[1] - test[0], 1e-2 / 2)
    return Check.all_of([Check.above(float(train[0].mean()), 0.95,
                                     f"averaging training accuracy {train[0].mean():.3f}"),
                         Check.below(float(test[0].mean()), 0.7, f"averaging o.o.d. accuracy {test[0].mean():.3f}"),
                         Check.above(gain[2], 0.0, _bound_text("o.o.d. gain of the AND-mask", *gain)
                                     + f"; AND-mask o.o.d. {test[1].mean():.3f}, training {train[1].mean():.3f}")])


def _mean_sd(values):
    values = np.asarray(values, dtype=float)
    return f"{values.mean():.3f} ± {values.std(ddof=1) if values.size > 1 else 0.0:.3f}"


def _spiral_summary(run):
    train, test = run.train_accuracy[..., -1], run.test_accuracy[..., -1]
    return (f"averaging: training {_mean_sd(train[0])}, o.o.d. {_mean_sd(test[0])}; AND-mask τ = 1: training "
            f"{_mean_sd(train[1])}, o.o.d. {_mean_sd(test[1])} (mean ± sd over seeds)")


def _spiral_verdict(run):
    """Reproduced: averaging memorises (training >= 0.95) and sits near chance o.o.d. (<= 0.6), while the AND-mask's
    o.o.d. accuracy is near perfect (median over seeds >= 0.9); partly: the AND-mask's o.o.d. gain over averaging has
    a positive one-sided 95% t lower bound over the paired seeds without reaching 0.9; else not reproduced."""
    from ..records import Verdict

    train, test = run.train_accuracy[..., -1], run.test_accuracy[..., -1]
    mean, se, lower = paired_bound(test[1] - test[0], 0.05)
    text = (f"averaging o.o.d. {test[0].mean():.2f} (training {train[0].mean():.2f}), AND-mask o.o.d. median "
            f"{np.median(test[1]):.2f}; paired gain {mean:.2f} ± {se:.2f} (se)")
    if train[0].mean() >= 0.95 and test[0].mean() <= 0.6 and np.median(test[1]) >= 0.9:
        return Verdict("reproduced", text)
    if lower > 0:
        return Verdict("partly reproduced", text + ", but the AND-mask is not near perfect o.o.d.")
    return Verdict("not reproduced", text)


record_plan(RecordPlan(
    name="and_mask.spiral_memorisation", source="Parascandolo et al. 2021, Fig 6 and Fig 14",
    source_result="averaging and the other baselines memorise the shortcuts and stay at chance o.o.d.; \"the AND-mask "
                  "was the only method to achieve perfect test accuracy\"",
    trainer="dynamics.and_mask.torch_experiments:train_spiral_memorisation",
    config=am.SpiralMemorisationConfig.record(), seeds=tuple(range(10)),
    code=("dynamics.and_mask.torch_experiments", "dynamics.and_mask.torch_optim", "dynamics.and_mask._setups",
          "dynamics.numerics.torch_batched"),
    judge=_spiral_verdict, summary=_spiral_summary,
    replay=lambda config: config._replace(n_steps=8, record_every=4), replay_tolerance=0.01,
    tolerance_reason="the same code on one machine replays bitwise; the replay computed in float32 and in float64 "
                     "differs by at most 0.001 (2 of the 2000 test examples), and another CPU's float32 rounding by "
                     "less; 0.01 is 20 test examples",
    reduced="the authors' code setting (16 environments × 1024, 16 shortcut dimensions, MLP 3 × 256, 600 Adam "
            "steps); the paper: 32 × 1280, 32 dimensions, 50 seeds of the best searched run",
    cuda_config=am.SpiralMemorisationConfig.source(), ci_claim="and_mask.experiment_spiral_memorisation"))


def _signal_means(values):
    """Per τ: the mean over the seeds with a value (NaN where fewer than 3 components were kept) and their count."""
    valid = ~np.isnan(values)
    counts = valid.sum(axis=0)
    return np.where(counts > 0, np.nansum(values, axis=0) / np.maximum(counts, 1), np.nan), counts


def _signals_summary(run):
    mech, _ = _signal_means(run.and_mechanism)
    mem, counts = _signal_means(run.and_memorisation)
    xor, _ = _signal_means(run.xor_mechanism)
    top = int(np.flatnonzero(counts >= 20)[-1])
    return (f"τ = 0: mechanism {mech[0]:.2f}, memorisation {mem[0]:.2f}; AND τ = {run.agreement_thresholds[top]:.3g}: "
            f"mechanism {mech[top]:.2f}, memorisation {mem[top]:.2f}; XOR τ = {run.agreement_thresholds[top]:.3g}: "
            f"mechanism {xor[top]:.2f} (seed means; {counts[top]} of {len(run.and_mechanism)} seeds keep >= 3 "
            f"components there)")


def _signals_verdict(run):
    """At the largest τ at which at least 20 seeds keep 3 or more components: (a) the AND-masked average gradient
    correlates more with the mechanism gradient than with the memorisation gradient, and (b) more than the XOR-masked
    one does, each as a one-sided 95% t lower bound of the paired difference above 0; (c) the mechanism correlation
    at τ = 0 is about the paper's 0.4 (between 0.25 and 0.55). Reproduced: all three; partly: (a) or (b); else not."""
    from ..records import Verdict

    mech, counts = _signal_means(run.and_mechanism)
    top = int(np.flatnonzero(counts >= 20)[-1])
    tau = run.agreement_thresholds[top]

    def lower(d):
        d = d[~np.isnan(d)]
        return paired_bound(d, 0.05)

    crossover = lower(run.and_mechanism[:, top] - run.and_memorisation[:, top])
    versus_xor = lower(run.and_mechanism[:, top] - run.xor_mechanism[:, top])
    start = float(mech[0])
    held = [crossover[2] > 0, versus_xor[2] > 0, 0.25 <= start <= 0.55]
    text = (f"mechanism correlation at τ = 0: {start:.2f} (the paper: ≈ 0.4); at τ = {tau:.3g}, AND mechanism minus "
            f"memorisation {crossover[0]:+.2f} ± {crossover[1]:.2f} (se), AND minus XOR mechanism "
            f"{versus_xor[0]:+.2f} ± {versus_xor[1]:.2f}")
    if all(held):
        return Verdict("reproduced", text)
    if held[0] or held[1]:
        return Verdict("partly reproduced", text)
    return Verdict("not reproduced", text)


record_plan(RecordPlan(
    name="and_mask.learning_signals", source="Parascandolo et al. 2021, Fig 7",
    source_result="at τ = 0 the average gradient correlates ≈ 0.4 with the mechanism gradient; raising τ suppresses "
                  "the memorisation correlation, and at τ ≈ 1 most remaining components carry the mechanism's signal; "
                  "the XOR-mask lowers the mechanism correlation more sharply",
    trainer="dynamics.and_mask.torch_experiments:learning_signals_at_init",
    config=am.LearningSignalsConfig.record(), seeds=tuple(range(40)),
    code=("dynamics.and_mask.torch_experiments", "dynamics.and_mask.torch_optim", "dynamics.and_mask._setups",
          "dynamics.numerics.torch_batched"),
    judge=_signals_verdict, summary=_signals_summary,
    replay=lambda config: config._replace(n_samples_per_env=64, hidden=(32, 32, 32)), replay_tolerance=1e-4,
    tolerance_reason="the replay computed in float32 and in float64 differs by at most 3e-6, with the same masks; "
                     "another CPU's float32 rounding differs by less than that",
    reduced="the paper's size (MLP 3 × 256 at initialisation, 16 environments × 1024 examples, 40 weight seeds) with "
            "the authors' 3-turn spirals and 8 shortcut dimensions",
    ci_claim="and_mask.experiment_learning_signals"))


SIGNAL_SEEDS = 40


@experiment("and_mask.experiment_learning_signals", "Parascandolo et al. 2021, Fig 7",
            "At initialisation (no training), a LeakyReLU MLP 3 × 64 on the memorisation task (16 environments × 512 "
            "examples, 3-turn spirals, 8 shortcut dimensions; on CUDA 3 × 256 and 1024 examples, as the paper), 40 "
            "weight seeds: over the components the AND-mask keeps at τ = 7/8, (a) the correlation of the average "
            "gradient with the mechanism gradient survives and is larger than at τ = 0 (over all components) and (b) "
            "the mechanism correlation is "
            "larger under the AND-mask than under the XOR-mask at the same τ. Both as one-sided t lower bounds of the "
            "mean paired difference over seeds (family-wise 0.05: the per-seed spread is large, sd ≈ 0.4, as a "
            "few dozen components are kept) above 0. Calibration (40 seeds, 512 examples): "
            "(a) 0.23 ± 0.06, (b) 0.33 ± 0.07 (mean ± se). The paper's falling memorisation correlation did not "
            "reproduce robustly at this size: at τ = 7/8 it is 0.03 ± 0.06 below its τ = 0 value (0.56), and it "
            "drops clearly (to ≈ 0.2-0.35) only at τ = 1, where a few dozen components remain and seeds are noisy; "
            "the difference (mechanism − memorisation correlation) grows by 0.15 ± 0.07 from τ = 0 to 7/8.")
def experiment_learning_signals(ctx):
    ctx.seed(3100)
    seeds = tuple(ctx.run.seed(3100 + j) for j in range(SIGNAL_SEEDS))
    config = ctx.size(cpu=am.LearningSignalsConfig.ci(), cuda=am.LearningSignalsConfig.source())
    run = _experiments().learning_signals_at_init(config, seeds, device=ctx.device)
    rise = run.and_mechanism[:, 1] - run.and_mechanism[:, 0]
    versus_xor = run.and_mechanism[:, 1] - run.xor_mechanism[:, 1]
    rows = []
    for name, d in (("mechanism correlation, τ = 7/8 vs 0", rise), ("AND vs XOR mechanism correlation", versus_xor)):
        d = d[~np.isnan(d)]
        rows.append((name, d.size) + paired_bound(d, 0.05 / 2))
    detail = "; ".join(f"{_bound_text(name, m, se, low)} ({n} seeds)" for name, n, m, se, low in rows)
    return Check.above(min(r[4] for r in rows), 0.0, detail)


# Calibration (8 seeds, CPU size, 500 steps): random labels, training accuracy 1.00 (averaging) against 0.53-0.57
# (τ = 0.6), gap 0.45 (sd 0.015); 25% shuffled, accuracy on the mislabelled examples against their wrong labels
# 1.00 (averaging) against 0.10-0.38 (τ = 0.6; mean 0.26, sd 0.08); over the seed offsets 0-3 with 6 seeds the
# spread was larger (sd up to 0.14, means 0.26-0.30). With 10 seeds the one-sided t bounds (family-wise 1e-2 over 2
# bounds: t(9) = 3.69) lie near 0.45 − 0.02 and 0.5 − 0.28 − 3.69·0.044 = 0.06.
LABEL_SEEDS = 10


@experiment("and_mask.experiment_noisy_labels", "Parascandolo et al. 2021, Figs 8 and 9 (in spirit)",
            "Each example its own environment (256 Gaussian inputs in 16 dimensions labelled by a random linear "
            "teacher, MLP 2 × 64 LeakyReLU, minibatches of 32 = 32 environments, Adam lr 5e-3, 500 steps on CPU; on "
            "CUDA 2048 examples in 64 dimensions, MLP 2 × 512, batches of 80 as the paper, 4000 steps), 10 paired "
            "seeds, averaging (τ = 0) against the AND-mask at τ = 0.6: with all labels shuffled, the training "
            "accuracy of averaging exceeds the AND-mask's by more than 0.2 (one-sided t lower bound of the mean "
            "paired gap, family-wise 1e-2); with 25% of the labels shuffled, averaging memorises the mislabelled "
            "examples (mean accuracy against their wrong labels > 0.95) while the AND-mask stays below chance on "
            "them (the t upper bound of its mean accuracy against the wrong labels is below 0.5). Calibration (8 "
            "seeds, then 4 × 6): gap 0.45 (sd 0.015); the AND-mask's accuracy on the mislabelled examples 0.26-0.30 "
            "(sd 0.08-0.14).")
def experiment_noisy_labels(ctx):
    ctx.seed(3200)
    seeds = tuple(ctx.run.seed(3200 + j) for j in range(LABEL_SEEDS))
    config = ctx.size(cpu=am.NoisyLabelsConfig.ci(), cuda=am.NoisyLabelsConfig.source())  # all labels shuffled
    trainer = _experiments().train_noisy_labels
    random_labels = trainer(config, seeds, device=ctx.device)
    label_noise = trainer(config._replace(shuffled_fraction=0.25), seeds, device=ctx.device)
    train = random_labels.train_accuracy[..., -1]
    gap = paired_bound(train[0] - train[1], 1e-2 / 2)
    wrong = label_noise.mislabelled_accuracy[..., -1]
    below = paired_bound(0.5 - wrong[1], 1e-2 / 2)
    return Check.all_of([
        Check.above(gap[2], 0.2, _bound_text("random labels: training-accuracy gap, averaging − AND", *gap)),
        Check.above(float(wrong[0].mean()), 0.95, f"averaging on the mislabelled examples {wrong[0].mean():.3f}"),
        Check.above(below[2], 0.0, _bound_text("25% shuffled: 0.5 − AND accuracy on the mislabelled examples", *below)),
    ])


# Calibration (3 seeds per d, CPU size): o.o.d. accuracy of averaging 0.56-0.63 at d = 16 and 0.89-0.94 at d = 128
# (1024 examples in all); the paired gain ≈ 0.33 with a spread of a few hundredths, so 6 seeds put the one-sided t
# bound (family-wise 1e-2 over the 1 bound; t(5) = 3.36) far above the 0.15 required.
# Calibration of the AND-mask (τ = 1, EnvironmentSweepConfig.ci(), seeds 100, 101 and 102, one run): at d = 16 its
# o.o.d. accuracy is 0.740, 0.725, 0.762 against averaging's 0.576, 0.611, 0.607 (paired gain 0.164, 0.114, 0.155:
# mean 0.144, se 0.015, sd 0.027; the one-sided t bound at level 1e-2 with these 3 seeds, t(2) = 6.96, is 0.037);
# its training accuracy 0.78-0.83 against averaging's 1.00. At d = 128 (8 examples per environment) the AND-mask at
# τ = 1 does not train (training 0.45-0.50, o.o.d. 0.46-0.47) while averaging reaches 0.80-0.97 o.o.d. (gain from
# d = 16: 0.23-0.36). With 6 seeds (t(5) = 3.36) the bound of the AND-mask's gain at d = 16 lies near
# 0.144 − 3.36·0.027/√6 ≈ 0.11 > 0.
ENV_SEEDS = 6


@experiment("and_mask.experiment_environments_needed", "Parascandolo et al. 2021, Fig 15 (in spirit)",
            "Plain averaging (τ = 0) against the AND-mask (τ = 1, inverse-sparsity rescaling) on the memorisation task "
            "in miniature (1024 training examples in all, spirals of 0.75 turns, 8 shortcut dimensions, MLP 2 × 32 "
            "LeakyReLU, Adam lr 1e-2, 400 full-batch steps; on CUDA 16384 examples, 32 shortcut dimensions, 3 turns, "
            "MLP 3 × 256, 3000 steps, d = 64 against d = 1024 as the paper's switch), 6 paired seeds: with d = 16 "
            "environments averaging memorises the shortcut (mean o.o.d. accuracy < 0.7), with d = 128 it has "
            "switched to the mechanism: the one-sided t lower bound (level 1e-2) of the mean paired o.o.d. gain from "
            "d = 16 to d = 128 exceeds 0.15; and at d = 16 the AND-mask beats averaging out of distribution: the "
            "one-sided t lower bound (level 1e-2) of the mean paired o.o.d. difference, AND-mask − averaging, is "
            "positive. Calibration (3 seeds): averaging o.o.d. 0.56-0.63 at d = 16, 0.89-0.94 at d = 128; the "
            "AND-mask at d = 16 0.73-0.76 o.o.d. (seeds 100-102: paired gain 0.11-0.16, mean 0.144, bound 0.037 with "
            "3 seeds), training 0.78-0.83. The paper sees averaging switch at 1024 environments (larger shortcut "
            "dimension and networks); here it lies between 16 and 128. Not asserted: at d = 128 (8 examples per "
            "environment) the AND-mask at τ = 1 does not train (training 0.45-0.50, o.o.d. 0.46-0.47 in the "
            "calibration), so this size shows the AND-mask's advantage at few environments only; the AND-mask's "
            "comparison is calibrated at the CPU size only.")
def experiment_environments_needed(ctx):
    ctx.seed(3300)
    seeds = tuple(ctx.run.seed(3300 + j) for j in range(ENV_SEEDS))
    config = ctx.size(cpu=am.EnvironmentSweepConfig.ci(), cuda=am.EnvironmentSweepConfig.source())
    sweep = _experiments().train_environment_sweep(config, seeds, device=ctx.device)
    averaging, masked = (int(np.flatnonzero(sweep.thresholds == tau)[0]) for tau in (0.0, 1.0))
    few, many = sweep.test_accuracy[averaging]
    gain = paired_bound(many - few, 1e-2)
    beat = paired_bound(sweep.test_accuracy[masked, 0] - few, 1e-2)
    return Check.all_of([Check.below(float(few.mean()), 0.7, f"o.o.d. accuracy with d = {sweep.n_envs[0]}: "
                                                             f"{few.mean():.3f}"),
                         Check.above(gain[2], 0.15, _bound_text(f"o.o.d. gain d = {sweep.n_envs[0]} → "
                                                                f"{sweep.n_envs[1]}", *gain)),
                         Check.above(beat[2], 0.0, _bound_text(f"o.o.d. gain of the AND-mask (τ = 1) over averaging "
                                                               f"at d = {sweep.n_envs[0]}", *beat)
                                     + f"; AND-mask o.o.d. {sweep.test_accuracy[masked, 0].mean():.3f}, training "
                                       f"{sweep.train_accuracy[masked, 0].mean():.3f}")])


# The bug that removes the memorisation task's effect: the trainer averages the environments' gradients whatever τ
# says (the AND-mask switched off). The record's claim sees the code change and its replay moving; the CI claim sees
# the gain over averaging vanish.
planted_bug("and_mask: the experiment trainers average the gradients whatever τ", "dynamics/and_mask/torch_experiments.py",
            "    return [_and_mask(g, t, rescale, False, 1)[0] for g, t in zip(grads, thresholds)]",
            "    return [g.mean(dim=1) for g, t in zip(grads, thresholds)]",
            ("and_mask.record_spiral_memorisation", "and_mask.experiment_spiral_memorisation",
             "and_mask.experiment_environments_needed"))


def _switch(sweep, level=0.8):
    """The smallest number of environments at which averaging's seed-mean o.o.d. accuracy reaches ``level``."""
    mean = sweep.test_accuracy[int(np.flatnonzero(sweep.thresholds == 0.0)[0])].mean(axis=1)
    reached = np.flatnonzero(mean >= level)
    return int(sweep.n_envs[reached[0]]) if reached.size else None


def _environments_summary(sweep):
    rows = []
    for i, tau in enumerate(sweep.thresholds):
        name = "averaging" if tau == 0 else f"AND-mask τ = {tau:g}"
        rows.append(f"{name} o.o.d. " + ", ".join(f"d = {d}: {_mean_sd(sweep.test_accuracy[i, j])}"
                                                 for j, d in enumerate(sweep.n_envs)))
    return "; ".join(rows) + " (mean ± sd over seeds)"


def _environments_verdict(sweep):
    """(a) With the fewest environments averaging memorises: training accuracy >= 0.95 and o.o.d. below 0.7 (seed
    means); (b) with the most it has switched to the mechanism: the one-sided 95% t lower bound of the paired o.o.d.
    gain from the fewest to the most environments exceeds 0.15; (c) the AND-mask (τ = 1) beats averaging o.o.d. with
    few environments: at the second-smallest d the 95% lower bound of the paired difference is above 0; (d) the
    switch (averaging's seed-mean o.o.d. accuracy first >= 0.8) comes at the paper's 1024 environments or later.
    Reproduced: all four; partly: some; not: none."""
    from ..records import Verdict

    averaging = int(np.flatnonzero(sweep.thresholds == 0.0)[0])
    masked = int(np.flatnonzero(sweep.thresholds == 1.0)[0])
    few, many = sweep.test_accuracy[averaging, 0], sweep.test_accuracy[averaging, -1]
    gain = paired_bound(many - few, 0.05)
    beat = paired_bound(sweep.test_accuracy[masked, 1] - sweep.test_accuracy[averaging, 1], 0.05)
    switch = _switch(sweep)
    held = [sweep.train_accuracy[averaging, 0].mean() >= 0.95 and few.mean() < 0.7, gain[2] > 0.15, beat[2] > 0.0,
            switch is not None and switch >= 1024]
    d = sweep.n_envs
    text = (f"averaging o.o.d. {few.mean():.2f} at d = {d[0]} (training {sweep.train_accuracy[averaging, 0].mean():.2f})"
            f", {many.mean():.2f} at d = {d[-1]} (gain {gain[0]:+.2f}, lower bound {gain[2]:+.2f}); it reaches 0.8 at "
            f"d = {switch} (the paper: 1024); the AND-mask at d = {d[1]}: o.o.d. "
            f"{sweep.test_accuracy[masked, 1].mean():.2f} against {sweep.test_accuracy[averaging, 1].mean():.2f} "
            f"(lower bound of the gain {beat[2]:+.2f}), and it stops learning with many environments of few examples "
            f"(o.o.d. {sweep.test_accuracy[masked, -1].mean():.2f} at d = {d[-1]})")
    return Verdict.graded(held, text)


record_plan(RecordPlan(
    name="and_mask.environments_needed", source="Parascandolo et al. 2021, Fig 15 (and Fig 6)",
    source_result="plain averaging keeps memorising the environments' shortcuts until it sees many environments, "
                  "and \"first switches from shortcuts to the mechanism\" at 1024 environments (best of 5 runs), while "
                  "the AND-mask learns the mechanism from 16 environments (Fig 6)",
    trainer="dynamics.and_mask.torch_experiments:train_environment_sweep",
    config=am.EnvironmentSweepConfig.record(), seeds=tuple(range(10)),
    code=("dynamics.and_mask.torch_experiments", "dynamics.and_mask.torch_optim", "dynamics.and_mask._setups",
          "dynamics.numerics.torch_batched"),
    judge=_environments_verdict, summary=_environments_summary,
    replay=lambda config: config._replace(n_envs=(4, 16), n_steps=6), replay_tolerance=0.01,
    tolerance_reason="the replay gives the same accuracies in float32 and in float64, and with one or two torch "
                     "threads (difference 0); 0.01, 10 of the 1000 test examples, lets another CPU's rounding flip "
                     "a few borderline examples",
    reduced="4 to 1024 environments sharing 4096 examples (4 per environment at d = 1024), 16 shortcut dimensions, "
            "MLP 3 × 64, 1000 full-batch Adam steps, the 0.75-turn spirals, 10 seeds; the paper: 32 shortcut "
            "dimensions, the authors' 3-turn spirals, MLP 3 × 256 or larger, best of 5 runs (about 30 minutes per "
            "model on one CPU core: the CUDA size)",
    cuda_config=am.EnvironmentSweepConfig.source(), ci_claim="and_mask.experiment_environments_needed"))
def _hindering(run, level=0.75):
    """The smallest τ > 0 whose seed-mean final training accuracy is at most ``level`` (memorisation hindered)."""
    train = run.train_accuracy[..., -1].mean(axis=1)
    hindered = [i for i, tau in enumerate(run.agreement_thresholds) if tau > 0 and train[i] <= level]
    return hindered[0] if hindered else None


def _random_labels_summary(run):
    train, test = run.train_accuracy[..., -1], run.test_accuracy[..., -1]
    return "; ".join(f"τ = {tau:g}: training {_mean_sd(train[i])}, test {_mean_sd(test[i])}"
                     for i, tau in enumerate(run.agreement_thresholds)) + " (random labels; mean ± sd over seeds)"


def _random_labels_verdict(run):
    """(a) Averaging (τ = 0) memorises the random labels: seed-mean final training accuracy >= 0.95; (b) a slightly
    higher τ hinders it: the smallest τ > 0 with a seed-mean training accuracy <= 0.75 is at most 0.2 (the paper: "a
    slightly higher τ quickly prevents memorisation"), with the one-sided 95% t lower bound of the paired drop from
    averaging above 0.2. Reproduced: both; partly: (a) and memorisation hindered only at a larger τ; else not."""
    from ..records import Verdict

    train = run.train_accuracy[..., -1]
    index = _hindering(run)
    memorised = train[0].mean() >= 0.95
    text = f"averaging's training accuracy on random labels {train[0].mean():.2f}"
    if index is None:
        return Verdict("not reproduced" if not memorised else "partly reproduced",
                       text + "; no τ of the grid keeps it at or below 0.75")
    tau = float(run.agreement_thresholds[index])
    drop = paired_bound(train[0] - train[index], 0.05)
    text += (f"; the smallest τ that hinders memorisation is {tau:g} (training {train[index].mean():.2f}, drop "
             f"{drop[0]:+.2f}, lower bound {drop[2]:+.2f}); the paper: a slightly higher τ than 0")
    if memorised and tau <= 0.2 and drop[2] > 0.2:
        return Verdict("reproduced", text)
    if memorised and drop[2] > 0.2:
        return Verdict("partly reproduced", text + f", here only from τ = {tau:g}")
    return Verdict("not reproduced", text)


def _labels_plan(**fields):
    """A record of the labels experiments (random labels, label noise, clean labels): one trainer, 5 seeds, the
    same code and the same short replay, checked in CI by one experiment claim."""
    return RecordPlan(
        trainer="dynamics.and_mask.torch_experiments:train_noisy_labels", seeds=tuple(range(5)),
        code=("dynamics.and_mask.torch_experiments", "dynamics.and_mask.torch_optim", "dynamics.and_mask._setups",
              "dynamics.numerics.torch_batched"),
        replay=lambda config: config._replace(n_steps=6, record_every=3), replay_tolerance=0.01,
        ci_claim="and_mask.experiment_noisy_labels", **fields)


record_plan(_labels_plan(
    name="and_mask.noisy_labels", source="Parascandolo et al. 2021, Fig 8",
    source_result="on CIFAR-10 with random labels the baseline (τ = 0) memorises the training set (about 100% "
                  "training accuracy), and \"as the threshold of the AND-mask increases, memorisation ... is quickly "
                  "hindered\": a slightly higher τ prevents it",
    config=am.NoisyLabelsConfig.record(), judge=_random_labels_verdict, summary=_random_labels_summary,
    tolerance_reason="the replay with one and two torch threads agrees exactly, in float32 and float64 to 3e-8; "
                     "accuracies are counts over 1024 training and 1000 test examples, and 0.01 lets another CPU's "
                     "float32 rounding flip a few borderline examples",
    reduced="a generated tabular task instead of CIFAR-10 and FastResNet: 1024 examples in 32 dimensions, all labels "
            "random, an MLP 2 × 256, the paper's batches of 80 examples (each its own environment), Adam lr 5e-3 "
            "(the paper: 5e-4 for Fig 8) for 2000 steps (156 epochs; the paper: 80), τ in 0, 0.1, 0.2, 0.4, 0.6, "
            "0.8 (the paper's grid without 0.05), 5 seeds (the paper: 2)",
    cuda_config=am.NoisyLabelsConfig.source()))


def _label_noise_summary(run):
    wrong, test = run.mislabelled_accuracy[..., -1], run.test_accuracy
    return "; ".join(f"τ = {tau:g}: on the mislabelled examples {_mean_sd(wrong[i])}, test peak "
                     f"{test[i].mean(axis=0).max():.2f} and final {_mean_sd(test[i, :, -1])}"
                     for i, tau in enumerate(run.agreement_thresholds)) + (
        " (25% of the labels shuffled; accuracy on the mislabelled examples is against their wrong labels; mean ± "
        "sd over seeds)")


def _label_noise_verdict(run):
    """(a) Averaging (τ = 0) memorises the mislabelled examples: seed-mean final accuracy against their wrong labels
    >= 0.95; (b) the AND-mask predicts their true class: at some τ > 0 of the grid the one-sided 95% t upper bound of
    that accuracy is below chance, 0.5 (the smallest such τ is the one read below); (c) averaging's test accuracy
    peaks and then declines: the paired drop from the recording where its seed-mean test accuracy is highest to the
    last has a 95% lower bound above 0; (d) the AND-mask's test accuracy at that τ rises steadily: the paired rise
    from the first recording after the start to the last has a 95% lower bound above 0. Reproduced: all four;
    partly: some; not: none. The peak in (c) is picked on the same seeds, which makes its bound optimistic by the
    spread of the recordings near the peak. The paper gives no numbers; the final accuracies of the AND-mask and
    averaging are compared in the text, not judged."""
    from ..records import Verdict

    wrong, test = run.mislabelled_accuracy[..., -1], run.test_accuracy
    below = [i for i, tau in enumerate(run.agreement_thresholds)
             if tau > 0 and paired_bound(0.5 - wrong[i], 0.05)[2] > 0]
    peak = int(np.argmax(test[0].mean(axis=0)))
    decline = paired_bound(test[0, :, peak] - test[0, :, -1], 0.05)
    text = (f"averaging on the mislabelled examples {wrong[0].mean():.2f}; its test accuracy peaks at "
            f"{test[0, :, peak].mean():.2f} (step {int(run.steps[peak])}) and ends at {test[0, :, -1].mean():.2f} "
            f"(drop {decline[0]:+.3f}, lower bound {decline[2]:+.3f})")
    held = [wrong[0].mean() >= 0.95, bool(below), peak < run.steps.size - 1 and decline[2] > 0]
    if below:
        i = below[0]
        rise = paired_bound(test[i, :, -1] - test[i, :, 1], 0.05)
        held.append(rise[2] > 0)
        text += (f"; the smallest τ below chance on them is {run.agreement_thresholds[i]:g} "
                 f"({wrong[i].mean():.2f}), whose test accuracy rises from {test[i, :, 1].mean():.2f} to "
                 f"{test[i, :, -1].mean():.2f} (lower bound of the rise {rise[2]:+.3f}) and ends "
                 f"{test[i, :, -1].mean() - test[0, :, -1].mean():+.2f} from averaging's")
    else:
        held.append(False)
        text += "; no τ of the grid stays below chance on them"
    return Verdict.graded(held, text)


record_plan(_labels_plan(
    name="and_mask.label_noise", source="Parascandolo et al. 2021, Fig 9",
    source_result="on CIFAR-10 with 25% of the training labels shuffled, the baseline memorises the mislabelled "
                  "examples while the AND-mask's accuracy against their wrong labels is well below chance (it "
                  "predicts their true class); on the test set the baseline peaks early and then declines, while the "
                  "AND-mask improves slowly but steadily (no numbers given)",
    config=am.NoisyLabelsConfig.record_label_noise(), judge=_label_noise_verdict, summary=_label_noise_summary,
    tolerance_reason="the random-labels record's replay, on the same trainer, agrees exactly with one and two torch "
                     "threads; accuracies are counts over 1024 training and 1000 test examples, and 0.01 lets another "
                     "CPU's float32 rounding flip a few borderline examples",
    reduced="a generated tabular task instead of CIFAR-10 and FastResNet: 1024 examples in 32 dimensions labelled by a "
            "random linear teacher, 25% of the labels shuffled among themselves, an MLP 2 × 256, the paper's batches "
            "of 80 examples (each its own environment), one Adam learning rate 5e-3 for all τ (the paper: the "
            "AND-mask's 5e-3, the baseline's best 1e-3) for 2000 steps (156 epochs; the paper: 80), τ in 0, 0.1, "
            "0.2, 0.4, 0.6, 0.8, 5 seeds",
    cuda_config=am.NoisyLabelsConfig.source()._replace(shuffled_fraction=0.25)))


def _clean_labels_summary(run):
    train, test = run.train_accuracy[..., -1], run.test_accuracy[..., -1]
    return "; ".join(f"τ = {tau:g}: training {_mean_sd(train[i])}, test {_mean_sd(test[i])}"
                     for i, tau in enumerate(run.agreement_thresholds)) + " (clean labels; mean ± sd over seeds)"


def _learning(run, level=0.6):
    """The indices of the thresholds at which the network still learns: seed-mean final training accuracy >= level
    (at a larger τ the mask keeps almost nothing and both accuracies stay at their starting values)."""
    train = run.train_accuracy[..., -1].mean(axis=1)
    return [i for i in range(train.size) if train[i] >= level]


def _clean_labels_verdict(run):
    """(a) Averaging (τ = 0) fits clean labels and generalises: seed-mean final training accuracy >= 0.95 and test
    accuracy >= 0.8; (b) as τ grows the test accuracy falls more slowly than the training accuracy: at the largest τ
    at which the network still learns (seed-mean training accuracy >= 0.6), the paired shrinking of the gap (training
    − test) from averaging's has a one-sided 95% t lower bound above 0; (c) they reach the same value: at that τ the
    seed-mean gap is below 0.02. Reproduced: all three; partly: some; not: none. The paper (Fig 16) gives no
    numbers."""
    from ..records import Verdict

    train, test = run.train_accuracy[..., -1], run.test_accuracy[..., -1]
    gap = train - test
    learning = _learning(run)
    last = learning[-1] if learning else 0
    shrink = paired_bound(gap[0] - gap[last], 0.05)
    tau = float(run.agreement_thresholds[last])
    held = [train[0].mean() >= 0.95 and test[0].mean() >= 0.8, last > 0 and shrink[2] > 0,
            last > 0 and gap[last].mean() < 0.02]
    stalled = [f"{t:g}" for i, t in enumerate(run.agreement_thresholds) if i not in learning]
    text = (f"averaging: training {train[0].mean():.2f}, test {test[0].mean():.2f} (gap {gap[0].mean():.3f}); at "
            f"τ = {tau:g}, the largest that still learns: training {train[last].mean():.2f}, test "
            f"{test[last].mean():.2f} (gap {gap[last].mean():.3f}; shrinking {shrink[0]:+.3f}, lower bound "
            f"{shrink[2]:+.3f})" + (f"; nothing learns at τ = {', '.join(stalled)}" if stalled else ""))
    return Verdict.graded(held, text)


record_plan(_labels_plan(
    name="and_mask.clean_labels", source="Parascandolo et al. 2021, Figs 8 and 16 (clean labels)",
    source_result="on CIFAR-10 with clean labels both the baseline and the AND-mask converge and generalise; as τ "
                  "grows the test accuracy falls more slowly than the training accuracy, and eventually the two "
                  "reach the same value (Fig 16; no numbers given)",
    config=am.NoisyLabelsConfig.record_clean_labels(), judge=_clean_labels_verdict, summary=_clean_labels_summary,
    tolerance_reason="the random-labels record's replay, on the same trainer, agrees exactly with one and two torch "
                     "threads; accuracies are counts over 1024 training and 1000 test examples, and 0.01 lets another "
                     "CPU's float32 rounding flip a few borderline examples",
    reduced="a generated tabular task instead of CIFAR-10 and FastResNet: 1024 examples in 32 dimensions labelled by a "
            "random linear teacher, no label shuffled, an MLP 2 × 256, the paper's batches of 80 examples (each its "
            "own environment), Adam lr 5e-3 for 2000 steps (156 epochs; the paper: 80), τ in 0, 0.1, 0.2, 0.4, 0.6, "
            "0.8, 5 seeds",
    cuda_config=am.NoisyLabelsConfig.source()._replace(shuffled_fraction=0.0)))
