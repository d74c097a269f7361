"""Torch cross-checks of gradient starvation (Pezeshki et al. 2021), over the simulations of
:mod:`dynamics.starvation.torch_training`.

* The Fig 6 toy (linear model, n = 2) trained with torch SGD (primal CE + L2, primal SD, the authors'
  dual gradient descent) against ``feature_response`` and ``sd_fixed_point``.
* A wide two-layer ReLU net in NTK parameterisation against the exact dual (Eq 9) with its empirical
  NTK; the error falls with the width.
* Two moons (Fig 1): Δ = ±0.1 and SD; orderings of |z_1|, |z_6| along the NTK-at-init eigen-directions
  and of the vertical/horizontal input-gradient ratio; and the compiled trainer the figure uses
  (``dynamics.starvation.train_two_moons``) against the torch simulation of the same training.
"""
import numpy as np

import dynamics.starvation as gs
from . import crosscheck, experiment
from ..records import RecordPlan, record_plan
from ..registry import Check, lazy_module, paired_bound, planted_bug, rate_fit

stats = lazy_module("scipy.stats")

TOY = gs.TOY
TOY_DELTAS, TOY_S1 = (gs.TOY.delta, 0.6), gs.TOY.s1_values
TOY_WEIGHT_DECAY, TOY_OUTPUT_PENALTY, TOY_S2 = gs.TOY.weight_decay, gs.TOY.output_penalty, gs.TOY.s2


def _trainers():
    """dynamics.starvation.torch_training, imported when a cross-check runs (torch is optional)."""
    from dynamics.starvation import torch_training

    return torch_training


# The solvers' accuracy and the round-off of a descent at its fixed point: Newton stops at a log-form residual of 1e-12
# (z relative ~1e-12), and each step's rounding, eps·|z| ~ 1e-15, is carried over 1/(1 - ρ) <= 1.3e3 steps (~1e-12).
# Where the distance left is below it (50k steps on CUDA), this floor is the tolerance.
TOY_FLOOR = 1e-10


def _descent_left(Us, ss, n_steps):
    """The distance gradient descent has left after ``n_steps`` on each toy of the batch, by route (primal CE, SD,
    dual), bounded a posteriori by its contraction, from an independent numpy descent in feature coordinates.

    The descents (written here, not taken from the library; V drops out): primal CE z <- z + η(S²Uᵀσ(-Uz) - λz), SD
    z <- z + ηS²(Uᵀσ(-Uz) - az), dual α <- clip(α + η_d(log((1-α)/α) - Kα)), K = λ⁻¹US²Uᵀ, from θ = 0 and α_0 = 1e-8.
    In w = S⁻¹z (the primal's Vᵀθ) and in α the step is x <- x - η∇F with a symmetric Hessian H, so near the optimum
    it contracts by ρ = max|1 - η·eig(H)| and the distance left is at most ‖Δ‖/(1 - ρ), Δ the next step (the tail of
    a geometric series); ‖z - z*‖ <= s_max‖w - w*‖ and <= (s_max²/λ)‖α - α*‖. H is taken where the descent is
    after n_steps: its distance from the optimum moves ρ by a relative O(distance), far inside these bounds' margin.
    """
    from scipy.special import expit

    eta, eta_dual, lam, a, clamp = (TOY.learning_rate, TOY.dual_learning_rate, TOY.weight_decay, TOY.output_penalty,
                                    TOY.clamp)
    sq = ss ** 2
    K = np.einsum("bij,bj,bkj->bik", Us, sq, Us) / lam
    margins = lambda z: np.einsum("bij,bj->bi", Us, z)  # noqa: E731  Uz = Yŷ
    pull = lambda z: np.einsum("bij,bi->bj", Us, expit(-margins(z)))  # noqa: E731  Uᵀσ(-Uz)
    ce_step = lambda z: eta * (sq * pull(z) - lam * z)  # noqa: E731
    sd_step = lambda z: eta * sq * (pull(z) - a * z)  # noqa: E731
    dual_step = lambda al: eta_dual * (np.log1p(-al) - np.log(al) - np.einsum("bij,bj->bi", K, al))  # noqa: E731
    z_ce, z_sd = np.zeros_like(ss), np.zeros_like(ss)
    alpha = np.full_like(ss, TOY.alpha0)
    for _ in range(n_steps):
        z_ce = z_ce + ce_step(z_ce)
        z_sd = z_sd + sd_step(z_sd)
        alpha = np.clip(alpha + dual_step(alpha), clamp, 1 - clamp)

    def contraction(H, step):
        eig = np.linalg.eigvalsh(H)
        return np.maximum(np.abs(1 - step * eig[:, 0]), np.abs(1 - step * eig[:, -1]))

    def curvature(z, penalty, sd):
        p = expit(margins(z))
        D = p * (1 - p)  # σ'(y_iŷ_i)
        inner = np.einsum("bji,bj,bjk->bik", Us, D + (penalty if sd else 0.0), Us)
        H = ss[:, :, None] * inner * ss[:, None, :]
        return H if sd else H + penalty * np.eye(ss.shape[1])

    s_max = ss.max(axis=1)
    left = {}
    for name, z, step, sd, penalty in (("primal", z_ce, ce_step, False, lam), ("sd", z_sd, sd_step, True, a)):
        rho = contraction(curvature(z, penalty, sd), eta)
        left[name] = s_max * np.linalg.norm(step(z) / ss, axis=1) / (1 - rho)
    H = np.einsum("bi,ij->bij", 1 / (alpha * (1 - alpha)), np.eye(ss.shape[1])) + K
    rho = contraction(H, eta_dual)
    left["dual"] = s_max ** 2 / lam * np.linalg.norm(dual_step(alpha), axis=1) / (1 - rho)
    return left


@crosscheck("starvation.torch_toy_linear", "Pezeshki et al. 2021, App. B.1 (Fig 6), Eqs 5, 8, 11, 17-18",
            "torch SGD on the toy (δ in {0.5, 0.6}, s_1 in 2..6, λ = 0.01, a Haar-random V) reaches "
            "feature_response(exact) by the primal (learning rate 0.05) and the dual (learning rate 3e-6) routes, the SD "
            "primal (a = 0.002) reaches m*·Uᵀ1 for every s_1, and the trained CE z_2 falls with s_1. Each toy and route "
            "is held to the distance gradient descent has left after its N steps (5k on CPU, 50k on CUDA; not noise: "
            "V drops out of z), bounded by the contraction: an independent numpy descent in feature coordinates gives "
            "the next step Δ after N steps and the contraction factor ρ of its Hessian there, and the distance left is "
            "at most ‖Δ‖/(1 - ρ) (times s_max to reach z from w = S⁻¹z, or s_max²/λ from α), plus a floor of 1e-10 for "
            "the solvers' accuracy and round-off; the SD spread over s_1 is held to the sum of its two largest bounds. "
            "CPU bounds: SD 7e-6..4e-5 (errors 5e-6..2.1e-5), primal CE 2e-6..1.6e-2, dual 4e-6..3.5e-3; a shift of "
            "the SD fixed point by 1e-3 relative (5e-3 in z) is 100 times the largest SD bound.")
def torch_toy_linear(ctx):
    Us, ss, Phi = gs.toy_batch(TOY_S1, TOY_DELTAS, TOY_S2, seed=ctx.seed(1235))
    config = ctx.size(cpu=gs.ToyTrainingConfig.ci(), cuda=gs.ToyTrainingConfig.ci()._replace(n_steps=50_000))
    n_steps = config.n_steps
    expected = np.array([gs.feature_response(U, s, TOY_WEIGHT_DECAY) for U, s in zip(Us, ss)])
    sd_expected = np.array([gs.sd_fixed_point(U, TOY_OUTPUT_PENALTY).z for U in Us])
    trained = _trainers().train_toy(Us, ss, Phi, config, device=ctx.device)  # the settings of TOY
    left = {route: bound + TOY_FLOOR for route, bound in _descent_left(Us, ss, n_steps).items()}
    shape = (len(TOY_DELTAS), len(TOY_S1), 2)

    def per_toy(route, result, reference):
        errors = np.abs(result - reference).max(axis=1)
        worst = int(np.argmax(errors / left[route]))
        return Check.at_most(errors[worst], left[route][worst],
                             f"{route} after {n_steps} steps, nearest its bound at (δ, s_1) = "
                             f"({TOY_DELTAS[worst // len(TOY_S1)]}, {TOY_S1[worst % len(TOY_S1)]:g}): error "
                             f"{errors[worst]:.2g}, distance left <= {left[route][worst]:.2g}")

    spread = np.ptp(trained.spectral_decoupling.reshape(shape), axis=1).max(axis=1)  # per δ
    spread_bound = np.sort(left["sd"].reshape(shape[:2]), axis=1)[:, -2:].sum(axis=1)
    worst = int(np.argmax(spread / spread_bound))
    checks = [
        per_toy("primal", trained.primal, expected),
        per_toy("dual", trained.dual, expected),
        per_toy("sd", trained.spectral_decoupling, sd_expected),
        Check.at_most(spread[worst], spread_bound[worst],
                      f"SD spread over s_1 at δ = {TOY_DELTAS[worst]}: {spread[worst]:.2g}"),
        Check.predicate(float(-np.diff(trained.primal.reshape(shape)[..., 1], axis=1).max()),
                        "trained CE z_2 decreasing in s_1: smallest decrease")]
    return Check.all_of(checks, "; ".join(c.detail for c in checks[:4]))


# ---------------------------------------------------------------- wide net in the NTK regime
# Calibration of the finite-width error (40 seeds on CPU, widths 256, 1024, 4096, 800 GD steps): the relative
# error of ŷ has mean 5.4%, 2.2%, 0.99% and standard deviation 3.1%, 0.92%, 0.49% across seeds (√m·error ≈
# 0.86, 0.69, 0.63: the m^{-1/2} of the NTK's fluctuation at init and drift in training); 1 of 40 seeds exceeds
# 2% at width 4096. One seed is therefore not a test of "< 2%"; the mean of N_SEEDS is.
NTK_SEEDS = 8
NTK_MEAN_4096, NTK_SD_4096 = 0.0099, 0.0049
NTK_SLOPE_LIMIT = -0.25


@crosscheck("starvation.torch_ntk_wide_net", "Pezeshki et al. 2021, Eqs 3, 8, 9, 11",
            "A two-layer ReLU net in NTK parameterisation trained on the centred output (CE + L2 to θ_0, λ = 0.1, 800 "
            "GD steps) matches the Eq 9 dual with its empirical NTK, up to a finite-width error that vanishes with the "
            "width m. Over 8 seeds (widths 256, 1024, 4096 on CPU; up to 16384 on CUDA): the seed-mean relative error "
            "of ŷ at m = 4096 is < 2% (the project's threshold; calibrated on 40 seeds at mean 0.99%, sd 0.49%, it lies "
            "5.8 standard errors of an 8-seed mean above the expectation), and the seed-mean error falls with m with "
            "a log-log slope <= -0.25 (measured ≈ -0.6, theory -1/2; the 8-seed slope's bootstrap sd ≈ 0.075 puts "
            "-0.25 at 4.8 sd). Both margins exceed the z = 4.06 of a family-wise 1e-4 level over 2 comparisons. On "
            "CUDA (4 widths) a rate check also holds the slope to -1/2 within Student's t at 1e-3 times its standard "
            "error; CPU's 3 widths are too few for one (a 4th would lengthen an already slow claim).")
def torch_ntk_wide_net(ctx):
    widths = ctx.ladder((256, 1024, 4096), cuda_extra=(16384,))
    seeds = [int(ctx.seed(100 + k).integers(2**31)) for k in range(NTK_SEEDS)]
    errors = np.array([[_trainers().ntk_net_error(m, device=ctx.device, seed=seed).relative_error for m in widths]
                       for seed in seeds])
    means = errors.mean(axis=0)
    slope, _ = rate_fit(widths, means)
    at_4096 = means[list(widths).index(4096)]
    z_needed = stats.norm.isf(0.5e-4 / 2)
    margin_z = (0.02 - NTK_MEAN_4096) / (NTK_SD_4096 / np.sqrt(NTK_SEEDS))
    detail = (f"seed means {np.array2string(means, precision=4)} at widths {widths}, slope {slope:.2f}; 2% is "
              f"{margin_z:.1f} standard errors above the calibrated mean (family-wise z {z_needed:.2f})")
    checks = [Check.below(at_4096, 0.02, f"seed-mean error at width 4096; {detail}"),
              Check.at_most(slope, NTK_SLOPE_LIMIT, f"log-log slope of the seed-mean error; {detail}")]
    if len(widths) >= 4:  # CUDA: a ladder long enough for a rate check of the m^{-1/2} itself
        checks.append(Check.rate(widths, means, -0.5, detail="seed-mean error against the width"))
    return Check.all_of(checks)


# ---------------------------------------------------------------- two moons
# Calibration (30 seeds, CPU, 300 steps): the per-seed paired differences of the five orderings have mean/sd
# 11.1, 11.4, 6.3, 1.67 and 4.8 (z_1(+) - z_1(-), z_1(-) - z_1(SD), z_6(SD) - z_6(+), z_6(-) - z_6(+),
# ratio(SD) - ratio(+)); 2 of 30 single seeds reverse the weakest (z_6(-) > z_6(+)). With MOONS_SEEDS seeds the
# weakest seed-mean ordering lies 1.67·√8 = 4.7 standard errors out, beyond the z = 4.26 of a family-wise 1e-4
# level over the 5 orderings (scipy.stats.norm.isf(0.5e-4 / 5)).
MOONS_SEEDS = 8
MOONS_ORDERINGS = 5


@crosscheck("starvation.torch_two_moons", "Pezeshki et al. 2021, §2 (Fig 1), App. B.2",
            "Two moons, 500 hidden ReLUs, 8 seeds: seed means satisfy |z_1|(Δ=+0.1) > |z_1|(Δ=-0.1) > |z_1|(SD), "
            "|z_6|(Δ=+0.1) < |z_6|(SD) and < |z_6|(Δ=-0.1), and the vertical/horizontal input-gradient ratio is larger "
            "under SD (CPU: 300 steps; CUDA: 10k as in the paper). Measured: the smallest paired t-statistic of the five "
            "orderings over the seeds (> 0 exactly when every seed-mean ordering holds). 8 seeds because, calibrated on "
            "30 seeds at 300 steps, the weakest ordering (|z_6|(Δ=-0.1) > |z_6|(Δ=+0.1), per-seed mean/sd 1.67) then "
            "lies 4.7 standard errors out, beyond the z = 4.26 of a family-wise 1e-4 level over 5 orderings.")
def torch_two_moons(ctx):
    seeds = tuple(ctx.seed(base) for base in range(MOONS_SEEDS))
    config = ctx.size(cpu=gs.TwoMoonsConfig.ci(), cuda=gs.TwoMoonsConfig.source())._replace(record_every=10**9)
    result = _trainers().train_two_moons(config, seeds, device=ctx.device)
    z = result.z[-1]  # (runs, seeds, n)
    z1, z6, ratio = z[..., 1], z[..., 6], result.gradient_ratio
    neg, pos, sd = 0, 1, 2
    differences = {"z1(+0.1) > z1(-0.1)": z1[pos] - z1[neg], "z1(-0.1) > z1(SD)": z1[neg] - z1[sd],
                   "z6(+0.1) < z6(SD)": z6[sd] - z6[pos], "z6(+0.1) < z6(-0.1)": z6[neg] - z6[pos],
                   "ratio(SD) > ratio(+0.1)": ratio[sd] - ratio[pos]}
    t_statistics = {name: float(d.mean() / (d.std(ddof=1) / np.sqrt(d.size))) for name, d in differences.items()}
    weakest = min(t_statistics, key=t_statistics.get)
    detail = (f"seed means |z_1| {np.round(z1.mean(axis=1), 3)}, |z_6| {np.round(z6.mean(axis=1), 3)}, ratio "
              f"{np.round(ratio.mean(axis=1), 3)} (runs -0.1, +0.1, SD); paired t: "
              + ", ".join(f"{name} {t:.1f}" for name, t in t_statistics.items())
              + f"; family-wise z {stats.norm.isf(0.5e-4 / MOONS_ORDERINGS):.2f}")
    return Check.predicate(t_statistics[weakest], f"weakest ordering {weakest}; {detail}")


# The two trainers sum each gradient over the n = 300 points in other orders, so each step's result may differ by
# n·u relative (u = 2^-53, the worst case of a recursive sum); over T steps, without amplification, by T·n·u
# (1e-11 at 300 steps). Measured: 1.3e-15 to 2e-15 after 300 steps (seed offsets 0-3; the largest on b₂).
MOONS_AGREEMENT_SEEDS = 2


@crosscheck("starvation.two_moons_trainers_agree", "Pezeshki et al. 2021, §2 (Fig 1), App. B.2",
            "The compiled two-moons trainer (fused per-sample forward and backward passes, the figure's) and the torch "
            "simulation (stacked model, torch.optim.SGD) trained from the same data and initialisation (500 hidden "
            "ReLUs, Fig 1's three runs, 2 seeds; CPU: 300 steps, CUDA: 2000) end at the same weights and the same "
            "|z| and input-gradient ratios: max relative difference at most T·n·u (T steps, n = 300 points, "
            "u = 2^-53), the round-off of summing each gradient in another order.")
def two_moons_trainers_agree(ctx):
    seeds = tuple(ctx.run.seed(base) for base in range(MOONS_AGREEMENT_SEEDS))  # ints: both trainers draw them
    n_steps = ctx.size(cpu=300, cuda=2000)
    config = gs.TwoMoonsConfig.ci()._replace(n_steps=n_steps, record_every=n_steps // 3)
    # Uncached, so that both take their NTK directions from this process's eigh: the Gram matrix has near-degenerate
    # trailing eigenvalues, whose eigenvectors move with the BLAS thread count of the process that computed them.
    compiled = gs.train_two_moons.uncached(config, seeds)
    simulated = _trainers().train_two_moons.uncached(config, seeds, device=ctx.device)
    pairs = dict(zip(("W1", "b1", "w2", "b2"), zip(compiled.params, simulated.params)))
    pairs.update({"|z|": (compiled.z, simulated.z),
                  "gradient ratio": (compiled.gradient_ratio, simulated.gradient_ratio)})
    bound = n_steps * 300 * 2.0 ** -53
    return Check.all_of([Check.at_most(float(np.abs(a - b).max() / np.abs(b).max()), bound, f"max relative gap, {name}")
                         for name, (a, b) in pairs.items()])


# ---------------------------------------------------------------- experiments in miniature
def _experiments():
    """dynamics.starvation.torch_experiments, imported when a claim runs (torch is optional)."""
    from dynamics.starvation import torch_experiments

    return torch_experiments


def _paired_t(differences):
    """Per comparison: the mean of the per-seed differences, its standard error and the paired t-statistic."""
    out = {}
    for name, d in differences.items():
        d = np.asarray(d, dtype=float)
        se = d.std(ddof=1) / np.sqrt(d.size)
        t = d.mean() / se if se > 0 else (np.sign(d.mean()) * np.inf if d.mean() != 0 else 0.0)
        out[name] = (float(d.mean()), float(se), float(t))
    return out


def _report(statistics):
    return ", ".join(f"{name}: {mean:.3g} ± {se:.2g} (t {t:.1f})" for name, (mean, se, t) in statistics.items())


# Calibration (CPU, 1000 SGD steps): the boundary's distance from its best straight line (units of the data's RMS
# radius) is 0.03-0.06 under SD (a = 0.006) and 0.006-0.035 under every other SGD-trained setting at 100 hidden units.
# The weakest paired difference, SD - (4 hidden layers), had t = 4.2 on seeds 0-3 (mean 0.019, sd 0.009) and 5.1 on 5
# other seeds; at 64 hidden units it fell to t = 1.6 over 8 seeds (deep narrow nets curve the boundary too), hence the
# 100 units. Adam (learning rate 3e-3) curves the boundary more than SD at both widths (SD - Adam: mean -0.008, sd
# 0.009, t = -2.6 over 8 seeds at 64 units; -0.01 over 4 seeds at 100): that part of the paper's statement did not
# reproduce, and Adam is left out of the compared set.
MOONS_REG_SEEDS = 4


@experiment("starvation.experiment_moons_regularisers", "Pezeshki et al. 2021, Fig 7, App. B.2",
            "Two moons separable by Δ = +0.1, a ReLU net trained by full-batch SGD (learning rate 1e-2, momentum 0.9; "
            "CPU: 100 hidden units, 1000 steps; CUDA: 500 hidden units as in the paper, 1000 steps as in the "
            "authors' code), 4 seeds: the decision boundary's RMS distance from its best straight line (total least "
            "squares on the boundary inside the data's box, in units of the data's RMS radius) is larger with Spectral "
            "Decoupling (0.003·mean ŷ²) than with no regulariser, weight decay 1e-2, dropout 0.7, batch norm and 4 "
            "hidden layers (CUDA adds 10x longer training). Measured: the smallest paired t-statistic of SD minus each "
            "setting over the seeds (> 0 exactly when every seed-mean ordering holds). Calibrated at 100 units: SD "
            "0.03-0.06, the others 0.006-0.035; the weakest difference (SD - 4 hidden layers) had t = 4.2 on 4 seeds "
            "(mean 0.019, sd 0.009) and 5.1 on 5 others; at 64 units it fell to 1.6 (8 seeds). Adam (3e-3) curved the "
            "boundary more than SD (t = -2.6 over 8 seeds at 64 units), so the paper's 'Adam leaves it straight' did "
            "not reproduce at this size and Adam is not compared.")
def experiment_moons_regularisers(ctx):
    te = _experiments()
    settings = {r.label: r for r in te.MOONS_REGULARISERS}
    compared = ["none", "weight decay 1e-2", "dropout 0.7", "batch norm", "5 layers"]
    compared += ctx.size(cpu=[], cuda=["10x longer"])
    sd = settings["SD 0.003"]
    seeds = tuple(ctx.seed(300 + k) for k in range(MOONS_REG_SEEDS))
    config = gs.MoonsRegularisersConfig.ci()._replace(regularisers=tuple(settings[c] for c in compared) + (sd,),
                                                      hidden=ctx.size(cpu=100, cuda=500))
    result = te.moons_regularisers(config, seeds, device=ctx.device)
    distance = result.boundary_distance
    statistics = _paired_t({f"SD - {name}": distance[-1] - distance[k] for k, name in enumerate(compared)})
    weakest = min(statistics, key=lambda name: statistics[name][2])
    detail = (f"seed-mean distances {dict(zip(compared + ['SD'], np.round(distance.mean(axis=1), 4)))}; paired "
              f"differences (mean ± se): {_report(statistics)}")
    return Check.predicate(statistics[weakest][2], f"weakest {weakest}; {detail}")


def _moons_statistics(result):
    """Per setting other than SD: the seed-mean boundary distance and the one-sided lower t bound of SD's paired
    excess over it (family-wise 0.05 over the comparisons)."""
    labels = [r.label for r in result.regularisers]
    sd = labels.index("SD 0.003")
    distance = result.boundary_distance
    others = [k for k in range(len(labels)) if k != sd]
    bounds = {labels[k]: paired_bound(distance[sd] - distance[k], 0.05 / len(others))[2] for k in others}
    return labels, sd, bounds


def _moons_summary(result):
    distance = result.boundary_distance
    return "boundary distance from its best line (data radii), mean ± sd: " + ", ".join(
        f"{r.label} {distance[k].mean():.3f} ± {distance[k].std(ddof=1):.3f}" for k, r in enumerate(result.regularisers))


def _moons_verdict(result):
    """Reproduced: SD's boundary is further from a straight line than every other setting's, each paired excess with
    a positive one-sided t lower bound (family-wise 0.05); partly: so against every setting but one; else not."""
    from ..records import Verdict

    labels, sd, bounds = _moons_statistics(result)
    failing = [name for name, low in bounds.items() if not low > 0]
    mean = result.boundary_distance.mean(axis=1)
    text = (f"SD {mean[sd]:.3f}; the others {min(np.delete(mean, sd)):.3f}-{max(np.delete(mean, sd)):.3f} (seed "
            f"means); SD's paired excess has a positive lower bound against "
            f"{len(bounds) - len(failing)} of {len(bounds)} settings")
    if not failing:
        return Verdict("reproduced", text)
    if len(failing) == 1:
        return Verdict("partly reproduced", text + f", not against {failing[0]}")
    return Verdict("not reproduced", text + f", not against {', '.join(failing)}")


record_plan(RecordPlan(
    name="starvation.moons_regularisers", source="Pezeshki et al. 2021, Fig 7, App. B.2",
    source_result="none of weight decay, dropout, batch norm, Adam, depth or longer training lets the network learn "
                  "a curved boundary between the moons; Spectral Decoupling does",
    trainer="dynamics.starvation.torch_experiments:moons_regularisers",
    config=gs.MoonsRegularisersConfig.record(), seeds=(0, 1, 2, 3, 4),
    code=("dynamics.starvation.torch_experiments", "dynamics.starvation._setups", "dynamics.numerics.torch_batched",
          "dynamics.numerics.torch_tools"),
    judge=_moons_verdict, summary=_moons_summary,
    replay=lambda config: config._replace(n_steps=10, grid_size=20), replay_tolerance=1e-8,
    tolerance_reason="float64 training: another CPU's BLAS rounds differently, by about 1e-12 after 10 steps",
    reduced="the authors' code for Fig 7 (500 hidden units, 1000 full-batch SGD steps, 10000 for 'train longer'), "
            "5 seeds (the paper: 10), a 61 × 61 evaluation grid, the 45° panel left out",
    cuda_config=None, ci_claim="starvation.experiment_moons_regularisers"))


# Calibration (CPU, 100 hidden ReLUs, 1000 SGD steps, weight decay 2e-4, 8 seeds): the 10th percentile of the
# training points' distance to the boundary is 0.32-0.39 under ERM and 0.37-0.44 under SD (paired t 11.5); the share
# of training points whose prediction flips when moved along x_v by at most 3 is 7-12% under ERM and 16-32% under SD
# (paired difference mean 0.13, sd 0.037, t 9.8). With MARGIN_SEEDS = 4 both lie > 5 standard errors out.
def _margin_statistics(result):
    """Per seed, SD against ERM: the relative gain of the median distance to the boundary, and the difference of
    the shares of points whose prediction flips along x_v within the cap; each with its one-sided 95% lower t bound
    (family-wise over the two)."""
    median = np.median(result.distance, axis=2)  # (runs, seeds)
    flips = (np.abs(result.vertical) < result.cap).mean(axis=2)
    out = {name: paired_bound(d, 0.05 / 2)[::2]
           for name, d in (("median distance gain", median[1] / median[0] - 1), ("x_v flip share", flips[1] - flips[0]))}
    return median, flips, out


def _margins_summary(result):
    median, flips, _ = _margin_statistics(result)
    return (f"median distance to the boundary ERM {median[0].mean():.3f} ± {median[0].std(ddof=1):.3f}, SD "
            f"{median[1].mean():.3f} ± {median[1].std(ddof=1):.3f}; share flipping along x_v within {result.cap:g}: "
            f"ERM {flips[0].mean():.2f}, SD {flips[1].mean():.2f} (mean ± sd over seeds)")


def _margins_verdict(result):
    """Reproduced ("SD improves the margin considerably"): SD's median distance to the boundary exceeds ERM's by at
    least 20%, with the one-sided lower bound of the per-seed relative gain at or above 0.2 (family-wise 95% over
    this and the x_v flip share); partly: that lower bound is positive but below 0.2; else not."""
    from ..records import Verdict

    median, _, statistics = _margin_statistics(result)
    gain, low = statistics["median distance gain"]
    flip, flip_low = statistics["x_v flip share"]
    tail = np.quantile(result.distance, 0.1, axis=2).mean(axis=1)  # the lower tail, which the CI claim holds
    text = (f"median distance ERM {median[0].mean():.3f}, SD {median[1].mean():.3f}: gain {gain:+.0%} (lower bound "
            f"{low:+.0%}); the lower tail: 10th percentile ERM {tail[0]:.3f}, SD {tail[1]:.3f}; "
            f"share flipping along x_v {flip:+.2f} (lower bound {flip_low:+.2f})")
    if low >= 0.2:
        return Verdict("reproduced", text)
    if low > 0:
        return Verdict("partly reproduced", text + ", a smaller gain than 'considerably'")
    return Verdict("not reproduced", text)


record_plan(RecordPlan(
    name="starvation.moons_margins", source="Pezeshki et al. 2021, Fig 2 (in spirit), §4.2; Fig 1",
    source_result="Spectral Decoupling \"improves the margin considerably\" (Fig 2: the perturbation needed to flip a "
                  "CIFAR-2 prediction; here the per-example distance to the boundary on Fig 1's moons)",
    trainer="dynamics.starvation.torch_experiments:moons_margins",
    config=gs.MoonsMarginsConfig.record(), seeds=(0, 1, 2, 3, 4),
    code=("dynamics.starvation.torch_experiments", "dynamics.starvation.torch_training", "dynamics.starvation._setups",
          "dynamics.numerics.torch_tools"),
    judge=_margins_verdict, summary=_margins_summary,
    replay=lambda config: config._replace(n_steps=20, resolution=0.05), replay_tolerance=1e-8,
    tolerance_reason="float64 training: another CPU's BLAS rounds differently by about 1e-12, far from moving a "
                     "margin found on a grid of step 0.05",
    reduced="the authors' code for Fig 1 (500 hidden units, 10000 full-batch SGD steps, weight decay 2e-4), 5 seeds; "
            "margins on the moons instead of PGD on CIFAR-2",
    ci_claim="starvation.experiment_moons_margins"))


MARGIN_SEEDS = 4


@experiment("starvation.experiment_moons_margins", "Pezeshki et al. 2021, Fig 2 (in spirit), §4.2; Fig 1",
            "Two moons separable by Δ = +0.1 (Fig 1's net and optimizer; CPU: 100 hidden units, 1000 steps; CUDA: "
            "500 hidden units, 10k steps as in the paper), 4 seeds, with and without Spectral Decoupling "
            "(0.003·mean ŷ²): (1) the 10th percentile of the training points' distance to the decision boundary is "
            "larger under SD (the lower margin CDF of the paper's Fig 2); (2) along the weak direction x_v, the share "
            "of training points whose prediction changes within a shift of 3 is larger under SD (ERM's starved "
            "boundary ignores x_v). Measured: the smaller paired t-statistic of the two SD - ERM differences (> 0 "
            "exactly when both seed-mean orderings hold). Calibrated on 8 seeds: (1) 0.32-0.39 against 0.37-0.44, "
            "t 11.5; (2) 7-12% against 16-32%, t 9.8; with 4 seeds both lie > 5 standard errors out.")
def experiment_moons_margins(ctx):
    seeds = tuple(ctx.seed(400 + k) for k in range(MARGIN_SEEDS))
    config = ctx.size(cpu=gs.MoonsMarginsConfig.ci(), cuda=gs.MoonsMarginsConfig.source()._replace(resolution=0.02))
    result = _experiments().moons_margins(config, seeds, device=ctx.device)
    low = np.quantile(result.distance, 0.1, axis=2)  # (runs, seeds)
    flips = (np.abs(result.vertical) < result.cap).mean(axis=2)
    statistics = _paired_t({"10th-percentile distance SD - ERM": low[1] - low[0],
                            "share flipping along x_v SD - ERM": flips[1] - flips[0]})
    weakest = min(statistics, key=lambda name: statistics[name][2])
    detail = (f"10th-percentile distance ERM {np.round(low[0], 3)}, SD {np.round(low[1], 3)}; share flipping along x_v "
              f"ERM {np.round(flips[0], 2)}, SD {np.round(flips[1], 2)}; {_report(statistics)}")
    return Check.predicate(statistics[weakest][2], f"weakest {weakest}; {detail}")


def _shapes_statistics(result):
    """Per method the final training and flipped-test accuracies (methods, seeds), and for the annealed SD against
    ERM: the flipped-test gain and the training-accuracy drop, each (mean, se, one-sided lower t bound, family-wise
    0.05 over the two)."""
    labels = [m.label for m in result.methods]
    train, test = result.train_accuracy[-1], result.test_accuracy[-1]
    erm, sd = labels.index("ERM"), labels.index("SD annealed")
    return labels, train, test, {"test gain": paired_bound(test[sd] - test[erm], 0.05 / 2),
                                 "train drop": paired_bound(train[erm] - train[sd], 0.05 / 2)}


SHAPES_SOURCE = gs.COLORED_MNIST_TABLE_2  # (training, flipped-test accuracy)


def _shapes_verdict(result):
    """Reproduced (Table 2): the annealed SD (the authors' code) beats ERM on the colour-flipped test set and trades
    training accuracy for it (both one-sided lower bounds > 0, family-wise 95%), and its mean flipped-test accuracy
    is within 0.05 of the source's 68.4%; partly: both orderings hold but SD stays further below; else not."""
    from ..records import Verdict

    labels, train, test, statistics = _shapes_statistics(result)
    erm, sd = labels.index("ERM"), labels.index("SD annealed")
    gain, drop = statistics["test gain"], statistics["train drop"]
    (erm_train, erm_test), (sd_train, sd_test) = SHAPES_SOURCE["ERM"], SHAPES_SOURCE["SD annealed"]
    text = (f"flipped test: ERM {test[erm].mean():.3f}, SD annealed {test[sd].mean():.3f} (gain {gain[0]:+.3f}, "
            f"lower bound {gain[2]:+.3f}; the source: {erm_test:.3f} and {sd_test:.3f}); training: ERM "
            f"{train[erm].mean():.3f}, SD annealed {train[sd].mean():.3f} (the source: {erm_train:.3f} and "
            f"{sd_train:.3f})")
    if not (gain[2] > 0 and drop[2] > 0):
        return Verdict("not reproduced", text)
    if test[sd].mean() >= sd_test - 0.05:
        return Verdict("reproduced", text)
    short = sd_test - test[sd].mean()
    return Verdict("partly reproduced", text + f"; SD's flipped-test accuracy stays {short:.2f} below the source's")


def _shapes_summary(result):
    labels, train, test, _ = _shapes_statistics(result)
    return "; ".join(f"{label} training {train[k].mean():.3f} ± {train[k].std(ddof=1):.3f}, flipped test "
                     f"{test[k].mean():.3f} ± {test[k].std(ddof=1):.3f}" for k, label in enumerate(labels)) + \
        " (mean ± sd over seeds)"


record_plan(RecordPlan(
    name="starvation.coloured_shapes", source="Pezeshki et al. 2021, Table 2, Fig 3, App. B.4 (in spirit)",
    source_result="on Colored MNIST's colour-flipped test set ERM reaches 23.7% (91.1% on its training set) and SD "
                  "68.4% (70.0% in training), 10 restarts; the digit's shape alone gives 75%",
    trainer="dynamics.starvation.torch_experiments:train_coloured_shapes",
    config=gs.ColouredShapesConfig.record(), seeds=tuple(range(10)),
    code=("dynamics.starvation.torch_experiments", "dynamics.starvation._setups", "dynamics.numerics.torch_batched",
          "dynamics.numerics.torch_tools"),
    judge=_shapes_verdict, summary=_shapes_summary,
    replay=lambda config: config._replace(n_steps=20, record_every=10), replay_tolerance=1e-8,
    tolerance_reason="float64 training: another CPU's BLAS rounds differently, by about 1e-12 after 20 steps, far "
                     "from moving an accuracy (a multiple of 1/2000)",
    reduced="a 3-pixel bar in 7 × 7 images instead of MNIST digits in 14 × 14; 2000 training and 2000 test images "
            "instead of 50 000 and 10 000; 100 hidden units instead of 300; learning rate 1e-3 instead of 1e-4 (at "
            "1e-4 the smaller net has not memorised by step 450, and the annealed SD freezes it on the colour); the "
            "authors' 2000 full-batch Adam steps, SD annealing at step 450, 25% label noise and colour flips 0.1, "
            "0.2 and 0.9; 10 seeds as the paper's 10 restarts",
    cuda_config=gs.ColouredShapesConfig.source(), ci_claim="starvation.experiment_coloured_shapes"))


# Calibration (CPU, 1000 training images with pixel noise 0.2, 2 hidden layers of 32, 800 full-batch Adam steps at
# 1e-3, seeds 0-3): flipped-test accuracy ERM 0.24-0.29, SD annealed as in the authors' code 0.37-0.41 (paired
# difference 0.103-0.133), γ-shifted SD from the first step 0.29-0.33, L2 (λ = 0.01) 0.18-0.24. With 400 steps and
# the annealing at step 150 instead, the annealed SD stays at 0.18-0.23: it needs the net to have memorised first.
# Without pixel noise (identical images with conflicting labels, no memorisation) SD and ERM both settle on the colour
# (0.19-0.20 on the flipped test set) and do not differ. The accuracy alone would also pass a broken net (a penalty
# with the wrong sign drives the outputs to ~1e7 and the accuracies to chance, 0.5 > ERM's 0.25), so the claim also
# holds SD's mean ŷ² on the training set below ERM's (log-ratio: 6 seeds, ERM 56-61, SD 1.49).
SHAPES_SEEDS = 4


@experiment("starvation.experiment_coloured_shapes", "Pezeshki et al. 2021, Table 2, Fig 3, App. B.4 (in spirit)",
            "A coloured-shape task in the spirit of Colored MNIST (a 3-pixel bar, horizontal or vertical, in a 7 × 7 "
            "image: the hard shape feature, right for 75% of the labels; the image's colour channel: the easy feature, "
            "right for 90% and 80% of the two training environments and 10% of the test set), a 2-hidden-layer ReLU "
            "MLP trained by full-batch Adam (CPU: 1000 images with pixel noise 0.2, 32 units, 800 steps; CUDA: 50 000 "
            "images, 300 units, 2000 steps as in the paper's table), 4 seeds: (1) SD annealed as in the authors' code "
            "(CE + 2e-5·mean ŷ² for 450 steps, then 2e-5·(CE + mean ŷ²)) and (2) γ-shifted Spectral Decoupling from "
            "the first step ((a/2)·mean((yŷ - γ)²), a = γ = 1) each reach a higher accuracy on the colour-flipped "
            "test set than ERM, (3) the γ-shifted SD keeping its outputs small (training mean ŷ² below ERM's, which "
            "rules out a degenerate net at chance level). Measured: the smallest paired t-statistic of the three "
            "differences over the seeds (> 0 exactly when every seed-mean ordering holds). Calibrated on seeds 0-3: "
            "flipped-test accuracy ERM 0.24-0.29, SD annealed 0.37-0.41, γ-shifted SD 0.29-0.33, L2 (λ = 0.01) "
            "below all (0.18-0.24); mean ŷ² ERM 56-61, SD 1.49. The record at a larger size "
            "(starvation.record_coloured_shapes) holds the comparison with the paper's 68% against 24%.")
def experiment_coloured_shapes(ctx):
    seeds = tuple(ctx.seed(500 + k) for k in range(SHAPES_SEEDS))
    # CUDA: the authors' Colored MNIST sizes, with the CPU claim's learning rate and 7 x 7 images
    config = ctx.size(cpu=gs.ColouredShapesConfig.ci(),
                      cuda=gs.ColouredShapesConfig.source()._replace(learning_rate=1e-3, size=7))
    result = _experiments().train_coloured_shapes(config._replace(record_every=10**6), seeds, device=ctx.device)
    labels = [m.label for m in result.methods]
    test = result.test_accuracy[-1]  # (methods, seeds)
    erm, sd, annealed = (test[labels.index(label)] for label in ("ERM", "SD", "SD annealed"))
    square = np.log(result.train_output_square[-1])
    statistics = _paired_t({"flipped-test accuracy SD annealed - ERM": annealed - erm,
                            "flipped-test accuracy SD - ERM": sd - erm,
                            "log mean ŷ² ERM - SD": square[labels.index("ERM")] - square[labels.index("SD")]})
    weakest = min(statistics, key=lambda name: statistics[name][2])
    means = lambda values, digits: ", ".join(f"{label} {float(v):.{digits}f}"  # noqa: E731
                                            for label, v in zip(labels, values.mean(axis=1)))
    detail = (f"seed means: flipped-test accuracy {means(test, 3)}; training accuracy "
              f"{means(result.train_accuracy[-1], 3)}; training mean ŷ² {means(np.exp(square), 2)}; "
              f"{_report(statistics)}")
    return Check.predicate(statistics[weakest][2], f"weakest {weakest}; {detail}")


# The bug that removes Spectral Decoupling's effect: its penalty dropped from the batched trainer's loss. The records'
# claims see the code change and their replays moving; the CI claims see SD's boundary stay as straight as the
# others' and SD's flipped-test accuracy fall to ERM's.
planted_bug("starvation: the batched trainer drops Spectral Decoupling's penalty",
            "dynamics/starvation/torch_experiments.py",
            "        per_member = per_member + 0.5 * self.penalty * ((margins - self.target[:, None]) ** 2).mean(dim=1)",
            "        per_member = per_member + 0.0 * self.penalty * ((margins - self.target[:, None]) ** 2).mean(dim=1)",
            ("starvation.record_moons_regularisers", "starvation.experiment_moons_regularisers",
             "starvation.record_coloured_shapes", "starvation.experiment_coloured_shapes"))
