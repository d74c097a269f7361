"""Torch cross-checks of the spherical view (Roburin et al. 2022; Roburin (thesis), Chapter 3), on the BatchNorm MLP
M1 and the BatchNorm CNN M2 of :mod:`dynamics.spherical.torch_training`, in float64 (BatchNorm with ε = 0, exactly
invariant). CPU runs the sizes below; CUDA runs larger ones (the equilibrium check's full grid, the Theorem 4
check's thousands of steps, larger images and batches).
"""
import math

import numpy as np

import dynamics.spherical as sph
from . import crosscheck
from ..registry import Check


def _training():
    from dynamics.spherical import torch_training

    return torch_training


@crosscheck("spherical.torch_gradient_orthogonality", "Roburin (thesis), Lemma 1, Eq 3.46",
            "torch plain SGD (η = 0.5, 200 steps, mini-batches of 256) on the BatchNorm MLP M1 (float64): every row "
            "w_j of the first layer has |cos(∂L/∂w_j, w_j)| < 1e-12, Δ‖w_j‖² = η²‖∂L/∂w_j‖² to rtol 1e-9, and r⁴ "
            "stays in the λ = 0 SGD sandwich [P_k, P_k + Σ η⁴g⁴/P_i] built by sgd_lambda0_sandwich from the recorded "
            "gradient norms (slack rtol 1e-12): the k^{-1/2} decay of η^e at λ = 0 on a real network.")
def torch_gradient_orthogonality(ctx):
    result = _training().pythagorean_sgd(n_steps=200, seed=ctx.seed(201), device=ctx.device)
    return Check.all_of([
        Check.below(result.max_cosine, 1e-12, "max |cos(∇, w)|"),
        Check.below(result.max_increment_error, 1e-9, "Pythagorean increments"),
        Check.at_most(max(float(np.max(result.sandwich_lower / result.radius_fourth_power - 1)),
                          float(np.max(result.radius_fourth_power / result.sandwich_upper - 1))), 1e-12,
                      "λ = 0 SGD sandwich: worst relative violation")])


@crosscheck("spherical.torch_theorem2_optimizers", "Roburin (thesis), Theorem 2, Eqs 3.19-3.25, 2.21",
            "For torch.optim's SGD-M + L2, Adam + L2 and AdamW on M1 (20 steps, foreach=False), the generic form "
            "(a, b, η, decay) read from each optimizer's state (momentum_buffer; exp_avg, exp_avg_sq, step) gives, "
            "through spherical_step, every row's next direction and radius to 1e-10 (Theorem 2's one-step identity).")
def torch_theorem2_optimizers(ctx):
    errors = _training().spherical_step_vs_torch(n_steps=20, seed=ctx.seed(202), device=ctx.device)
    return Check.all_of([Check.below(value, 1e-10, f"{name}: {kind}") for kind, table in
                         (("direction", errors.direction), ("radius", errors.radius)) for name, value in table.items()])


@crosscheck("spherical.torch_exponential_lr", "Roburin (thesis), Eq 3.44",
            "Two copies of M1 on identical batches (2000 steps): W₁ trained by SGD-M(η = 0.05, γ = 0.9, λ = 1e-3) in "
            "one, and by SGD-M with η_k = ηα^{−2k−1}, no weight decay and the buffer set to −(1−α)W₁⁽⁰⁾/(ηα) "
            "(li_arora_equivalent) in the other, the rest by identical plain SGD: the row directions, the readout, "
            "the loss and ‖W₁(B)‖/(α^{−k}‖W₁(A)‖) − 1 agree to 1e-8 at every step.")
def torch_exponential_lr(ctx):
    result = _training().exponential_lr_pair(n_steps=2000, seed=ctx.seed(203), device=ctx.device)
    return Check.all_of([Check.at_most(result.direction_gap, 1e-8, "row directions"),
                         Check.at_most(result.readout_gap, 1e-8, "readout parameters"),
                         Check.at_most(result.loss_gap, 1e-8, "loss"),
                         Check.at_most(result.radius_ratio_error, 1e-8, "W₁(B) = α^{-k} W₁(A)")])


# CPU: the momentum case of the grid (the γ = 0 runs need 8·(1−γ)/(4ηλ) >= 2e4 steps); CUDA: the full grid.
_EQUILIBRIUM_CPU = ((0.1, 1e-3, 0.9),)
_EQUILIBRIUM_CUDA = tuple((eta, lam, gamma) for gamma in (0.0, 0.9) for eta in (0.05, 0.1) for lam in (5e-4, 1e-3))


@crosscheck("spherical.torch_equilibrium",
            "derived in this project from Roburin (thesis), Eqs 3.15, 3.25 (cf. Wan et al. 2021)",
            "M1 under mini-batch noise (batches of 32) with SGD-M + L2 on W₁: after a warm start and 8 relaxation "
            "times (1−γ)/(4ηλ), the time-averaged r⁴ of every row over 5000 steps (CPU: η = 0.1, λ = 1e-3, γ = 0.9, "
            "2 replicas; CUDA: the grid η in {0.05, 0.1}, λ in {5e-4, 1e-3}, γ in {0, 0.9}, 10000 steps) is "
            "within 20% of the equilibrium law at the measured E[G²] (sgd_l2_equilibrium for γ = 0, "
            "sgdm_l2_equilibrium otherwise), and the rms angle per step within 5% of sqrt(2ηλ/(1+γ)): the "
            "envelopes this project sets for noise that is neither isotropic nor white.")
def torch_equilibrium(ctx):
    configs, replicas, n_average = ctx.size(cpu=(_EQUILIBRIUM_CPU, 2, 5000), cuda=(_EQUILIBRIUM_CUDA, 2, 10000))
    stats = _training().equilibrium_statistics(configs, n_replicas=replicas, n_average=n_average,
                                               seed=ctx.seed(204), device=ctx.device)
    worst_r4 = worst_angle = 0.0
    for (eta, lam, gamma), r4, g2, a2 in zip(stats.configs, stats.radius_fourth_power, stats.grad_norm_squared,
                                             stats.angle_squared):
        law = (lambda g: sph.sgd_l2_equilibrium(eta, lam, g)) if gamma == 0 else (
            lambda g: sph.sgdm_l2_equilibrium(eta, lam, gamma, g))
        predicted = np.vectorize(lambda g: law(math.sqrt(g)).radius_fourth_power)(g2)
        worst_r4 = max(worst_r4, float(np.max(np.abs(r4 / predicted - 1))))
        angle = sph.sgdm_l2_equilibrium(eta, lam, gamma, 1.0).angle
        worst_angle = max(worst_angle, float(np.max(np.abs(np.sqrt(a2) / angle - 1))))
    return Check.all_of([Check.at_most(worst_r4, 0.2, f"r⁴: worst relative error {worst_r4:.3f}"),
                         Check.at_most(worst_angle, 0.05, f"angle: worst relative error {worst_angle:.3f}")])


@crosscheck("spherical.torch_theorem4_cnn", "Roburin (thesis), Theorem 4, Fig 3.4, App. C.1",
            "Fig 3.4 in small: M2 pre-trained by SGD-M, then three copies fine-tuned on identical batches with "
            "App. C.1's η = 1e-2, λ = 1e-3: SGD + L2 and AdaGradG (torch_optim.AdaGradG with Theorem 4's β, "
            "η_AGG and per-filter v₀, filters normalised) keep every filter within 1.41e-3 rad (cosine similarity "
            ">= 1 − 1e-6) over the run (CPU: 300 steps, 8×8 images; CUDA: 3000 steps, 16×16), while element-wise "
            "AdaGrad (learning rate matched at the first step) drifts more than 10 times further.")
def torch_theorem4_cnn(ctx):
    n_steps, size, batch = ctx.size(cpu=(300, 8, 8), cuda=(3000, 16, 64))
    run = _training().adagradg_vs_sgd_m2(n_steps=n_steps, image_size=size, batch_size=batch, seed=ctx.seed(205),
                                         device=ctx.device)
    bound = math.acos(1 - 1e-6)
    return Check.all_of([Check.at_most(float(run.angle_adagradg.max()), bound, "SGD vs AdaGradG"),
                         Check.at_least(float(run.angle_adagrad.max()), 10 * bound, "SGD vs AdaGrad drifts")])


@crosscheck("spherical.torch_adam_variants", "Roburin (thesis), Eqs 3.67-3.81, Algorithm 1",
            "The torch AdamS, AdamST, AdamSRT and AdamG (per-filter inner products, channel_wise=True) on M2's conv "
            "filters (float64, λ = 0.05 coupled, ε = 1e-8; CPU: 20 steps, 8×8 images; CUDA: 50 steps, 16×16) equal "
            "the numpy optimizers stepped filter by filter on the same gradients (rtol 1e-12); along them "
            "⟨m_k, x_k⟩ = (1−β₁)λr_k² (AdamST, AdamSRT) and the transported buffer is tangent at x_{k+1} (AdamST, "
            "AdamSRT, AdamG), to 1e-12 relative.")
def torch_adam_variants(ctx):
    n_steps, size, batch = ctx.size(cpu=(20, 8, 16), cuda=(50, 16, 64))
    result = _training().adam_variants_m2(n_steps=n_steps, image_size=size, batch_size=batch, seed=ctx.seed(206),
                                          device=ctx.device)
    checks = [Check.at_most(v, 1e-12, f"{name}: torch vs numpy") for name, v in result.numpy_gap.items()]
    checks += [Check.at_most(v, 1e-12, f"{name}: <m, x> = (1−β₁)λr²") for name, v in result.radial_identity.items()]
    checks += [Check.at_most(v, 1e-12, f"{name}: transported buffer tangent") for name, v in result.tangency.items()]
    return Check.all_of(checks)
