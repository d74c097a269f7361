"""Torch cross-checks of gradient starvation (spec/starvation.md §6).

* T1: the Fig 6 toy (linear model, n = 2) trained with torch SGD — primal CE + L2, primal SD and the
  authors' dual gradient descent — against ``feature_response`` and ``sd_fixed_point``.
* T2: a wide two-layer ReLU net in NTK parameterisation, trained by full-batch GD on the centred output,
  against the exact dual (Eq 9) with its empirical NTK; the error falls with the width.
* T3: two-moons (Fig 1): Δ = ±0.1 and SD; the orderings of |z_1|, |z_6| along the NTK-at-init
  eigen-directions and of the vertical/horizontal input-gradient ratio.

All problems of one check are batched into one torch computation (independent problems, summed
losses), so the CPU sizes run in seconds.
"""
import math

import numpy as np

from dynamics import starvation as gs
from . import crosscheck
from ..registry import Check

P = "004_798f714b6ee27590.txt"
TOY_DELTAS, TOY_S1 = (0.5, 0.6), (2.0, 3.0, 4.0, 5.0, 6.0)
TOY_LAM, TOY_LAM_SD, TOY_S2 = 0.01, 0.002, 2.0


def _toy_problems(rng):
    """Φ = YUSVᵀ (y = 1) for every (δ, s_1); returns U, s, Phi stacked over the batch."""
    V = np.linalg.qr(rng.standard_normal((2, 2)))[0]
    Us, ss = [], []
    for delta in TOY_DELTAS:
        for s1 in TOY_S1:
            Us.append(gs.coupling_matrix(delta))
            ss.append(np.array([s1, TOY_S2]))
    Us, ss = np.array(Us), np.array(ss)
    Phi = np.einsum("bij,bj,kj->bik", Us, ss, V)
    return Us, ss, Phi, V


def train_toy(ctx, Us, ss, Phi, steps, lr_primal=0.05, lr_dual=3e-6, alpha0=1e-8, clamp=1e-50):
    """One torch.optim.SGD loop over three independent optimisations of a batch of toys (y = 1), with the
    authors' settings: primal Σ log(1+e^{-ŷ}) + (λ/2)‖θ‖² and SD Σ log(1+e^{-ŷ}) + (λ_SD/2)‖ŷ‖² (θ_0 = 0,
    lr 0.05), and the dual (1/(2λ))αKαᵀ - H(α) (α_0 = 1e-8, lr 3e-6, clamped to (1e-50, 1 - 1e-50)).
    Returns the responses z of each: SVᵀθ for the primals, λ⁻¹S²Uᵀα for the dual."""
    torch = ctx.torch
    Phi_t = ctx.tensor(Phi)
    K = ctx.tensor(np.einsum("bij,bj,bkj->bik", Us, ss ** 2, Us))
    theta = torch.zeros(Phi.shape[0], Phi.shape[2], dtype=ctx.dtype, device=ctx.device, requires_grad=True)
    theta_sd = torch.zeros_like(theta, requires_grad=True)
    alpha = torch.full((Us.shape[0], Us.shape[1]), alpha0, dtype=ctx.dtype, device=ctx.device, requires_grad=True)
    optimiser = torch.optim.SGD([{"params": [theta, theta_sd], "lr": lr_primal}, {"params": [alpha], "lr": lr_dual}])
    softplus = torch.nn.functional.softplus
    for _ in range(steps):
        optimiser.zero_grad()
        logits = torch.einsum("bij,bj->bi", Phi_t, theta)
        logits_sd = torch.einsum("bij,bj->bi", Phi_t, theta_sd)
        primal = softplus(-logits).sum() + 0.5 * TOY_LAM * (theta ** 2).sum()
        sd = softplus(-logits_sd).sum() + 0.5 * TOY_LAM_SD * (logits_sd ** 2).sum()
        entropy = -(alpha * torch.log(alpha) + (1 - alpha) * torch.log1p(-alpha)).sum()
        dual = 0.5 / TOY_LAM * torch.einsum("bi,bij,bj->", alpha, K, alpha) - entropy
        (primal + sd + dual).backward()
        optimiser.step()
        with torch.no_grad():
            alpha.clamp_(clamp, 1 - clamp)
    to_z = lambda th: np.einsum("bij,bik,bk->bj", Us, Phi, ctx.numpy(th))  # z = SVᵀθ = UᵀYΦθ, y = 1
    z_dual = np.einsum("bij,bi->bj", Us, ctx.numpy(alpha)) * ss ** 2 / TOY_LAM
    return to_z(theta), to_z(theta_sd), z_dual


@crosscheck("starvation.torch_toy_linear", f"{P} App. B.1 (Fig 6), Eqs 5, 8, 11, 17-18 (spec T1)",
            "torch SGD on the toy (δ in {0.5, 0.6}, s_1 in 2..6, λ = 0.01) reaches feature_response(exact) by the primal "
            "(lr 0.05) and the dual (lr 3e-6) routes, the SD primal (λ_SD = 0.002) reaches m*·Uᵀ1 for every s_1, and the "
            "CE z_2 falls with s_1; tolerance 1e-2 after 5k steps (CPU), 1e-6 after 50k (CUDA), as in the spec.")
def torch_toy_linear(ctx):
    rng = ctx.seed(1235)
    Us, ss, Phi, _ = _toy_problems(rng)
    steps, tolerance = ctx.size(cpu=(5_000, 1e-2), cuda=(50_000, 1e-6))
    expected = np.array([gs.feature_response(U, s, TOY_LAM) for U, s in zip(Us, ss)])
    sd_expected = np.array([gs.sd_fixed_point(U, TOY_LAM_SD)[0] for U in Us])
    z_primal, z_sd, z_dual = train_toy(ctx, Us, ss, Phi, steps)
    shape = (len(TOY_DELTAS), len(TOY_S1), 2)
    return Check.all_of([
        Check(np.abs(z_primal - expected).max(), tolerance, detail=f"primal CE vs Eq 9 after {steps} steps"),
        Check(np.abs(z_dual - expected).max(), tolerance, detail="dual GD vs Eq 9"),
        Check(np.abs(z_sd - sd_expected).max(), tolerance, detail="SD primal vs m*·Uᵀ1"),
        Check(np.ptp(z_sd.reshape(shape), axis=1).max(), tolerance, detail="SD spread over s_1"),
        Check(0.0, 0.0, passed=bool(np.all(np.diff(z_primal.reshape(shape)[..., 1], axis=1) < 0)),
              detail="trained CE z_2 decreasing in s_1")])


# ---------------------------------------------------------------- T2: wide net in the NTK regime
def _ntk_data(rng, n=16):
    x = rng.standard_normal((n, 2))
    y = np.sign(x[:, 0] + 0.3 * rng.standard_normal(n))
    y[y == 0] = 1.0
    return np.column_stack([x, np.ones(n)]), y  # a constant bias input


def ntk_net_error(ctx, width, seed=0, lam=0.1, steps=800):
    """Train f = aᵀReLU(Wx)/√m (NTK parameterisation) on the centred output with CE + (λ/2)‖θ-θ_0‖² by full-batch
    GD, and return the relative max-norm error of ŷ against the Eq 9 dual with the empirical NTK."""
    torch = ctx.torch
    rng = ctx.seed(seed)
    X_np, y_np = _ntk_data(rng)
    X, y = ctx.tensor(X_np), ctx.tensor(y_np)
    W0 = torch.randn(width, X.shape[1], dtype=ctx.dtype, device=ctx.device)
    a0 = torch.randn(width, dtype=ctx.dtype, device=ctx.device)

    def net(W, a):
        return torch.relu(X @ W.T) @ a / math.sqrt(width)

    J = torch.func.jacrev(net, argnums=(0, 1))(W0, a0)
    Phi0 = torch.cat([J[0].reshape(X.shape[0], -1), J[1]], dim=1)
    K = ctx.numpy(Phi0 @ Phi0.T)
    eigenvalues, U = np.linalg.eigh(y_np[:, None] * K * y_np[None, :])
    alpha = gs.dual_fixed_point(U, np.sqrt(np.clip(eigenvalues, 1e-300, None)), lam)
    predicted = K @ (y_np * alpha) / lam
    lr = min(0.5, 1.0 / (eigenvalues.max() / 4.0 + lam))  # below 2/curvature
    W, a = W0.clone().requires_grad_(True), a0.clone().requires_grad_(True)
    f0 = net(W0, a0)
    optimiser = torch.optim.SGD([W, a], lr=lr)
    for _ in range(steps):
        optimiser.zero_grad()
        g = net(W, a) - f0
        penalty = ((W - W0) ** 2).sum() + ((a - a0) ** 2).sum()
        (torch.nn.functional.softplus(-y * g).sum() + 0.5 * lam * penalty).backward()
        optimiser.step()
    trained = ctx.numpy(net(W, a) - f0)
    return float(np.abs(trained - predicted).max() / np.abs(predicted).max())


@crosscheck("starvation.torch_ntk_wide_net", f"{P} Eqs 3, 8, 9, 11 (spec T2)",
            "A two-layer ReLU net in NTK parameterisation trained on the centred output (CE + L2 to θ_0, λ = 0.1) matches "
            "the Eq 9 dual with its empirical NTK: the relative error of ŷ is < 2% at width 4096 and falls with width "
            "(widths 256..4096 on CPU with one seed, to 16384 on CUDA with 3 seeds; 800 GD steps).")
def torch_ntk_wide_net(ctx):
    widths, seeds = ctx.size(cpu=((256, 1024, 4096), (0,)), cuda=((256, 1024, 4096, 16384), (0, 1, 2)))
    errors = np.array([np.mean([ntk_net_error(ctx, m, seed) for seed in seeds]) for m in widths])
    slope = np.polyfit(np.log(widths), np.log(errors), 1)[0]
    at_4096 = errors[list(widths).index(4096)]
    return Check.all_of([Check(at_4096, 0.02, detail=f"errors {np.array2string(errors, precision=4)}, slope {slope:.2f}"),
                         Check(float(np.diff(errors).max()), 0.0, passed=bool(np.all(np.diff(errors) < 0)),
                               detail=f"errors {np.array2string(errors, precision=4)} fall with width, slope {slope:.2f}")])


# ---------------------------------------------------------------- T3: two moons
MOONS_RUNS = (("Δ = -0.1", -0.1, 0.0), ("Δ = +0.1", 0.1, 0.0), ("Δ = +0.1, SD", 0.1, 0.003))


def train_two_moons(ctx, seeds=(0, 1, 2), steps=10_000, hidden=500, record_every=100, runs=MOONS_RUNS):
    """Train Linear(2, hidden) → ReLU → Linear(hidden, 1) (PyTorch default init) on the Fig 1 data for every
    (run, seed), batched: mean CE (+ SD coefficient · mean ŷ²), SGD lr 1e-2, momentum 0.9, weight decay 2e-4,
    full batch. Returns a dict with the data, the trained parameters, |z| along the NTK-at-init eigenvectors
    over training, and the input-gradient ratio mean|∂ŷ/∂x_v| / mean|∂ŷ/∂x_h|."""
    torch = ctx.torch
    data = [gs.two_moons(300, 0.1, margin, seed) for _, margin, _ in runs for seed in seeds]
    sd_coef = ctx.tensor([coef for _, _, coef in runs for _ in seeds])
    X = ctx.tensor(np.array([d[0] for d in data]))
    y = ctx.tensor(np.array([d[1] for d in data]))
    B = X.shape[0]
    ctx.seed(seeds[0])
    bound1, bound2 = 1.0 / math.sqrt(2.0), 1.0 / math.sqrt(hidden)
    # one independent PyTorch-default init per (run, seed): the same init across runs of one seed
    init = [np.random.default_rng(seed) for seed in seeds]
    per_seed = [(r.uniform(-bound1, bound1, (hidden, 2)), r.uniform(-bound1, bound1, hidden),
                 r.uniform(-bound2, bound2, hidden), r.uniform(-bound2, bound2)) for r in init]
    stack = lambda k: ctx.tensor(np.array([per_seed[i % len(seeds)][k] for i in range(B)]))
    params = [stack(k).requires_grad_(True) for k in range(4)]

    def forward(Xb, W1, b1, w2, b2):
        hidden_ = torch.relu(torch.bmm(Xb, W1.transpose(1, 2)) + b1[:, None, :])
        return torch.bmm(hidden_, w2[:, :, None])[..., 0] + b2[:, None]

    with torch.no_grad():  # the NTK Gram matrix at init: K = Σ_θ ∂ŷ/∂θ ∂ŷ/∂θᵀ, analytically for this net
        W1, b1, w2, _ = params
        pre = torch.einsum("bnk,bhk->bnh", X, W1) + b1[:, None, :]
        act, gate = torch.relu(pre), (pre > 0).to(ctx.dtype) * w2[:, None, :]
        K = act @ act.transpose(1, 2) + 1.0 + (gate @ gate.transpose(1, 2)) * (X @ X.transpose(1, 2) + 1.0)
        eigenvalues, eigenvectors = torch.linalg.eigh(K)
        U = eigenvectors.flip(-1)  # descending
    optimiser = torch.optim.SGD(params, lr=1e-2, momentum=0.9, weight_decay=2e-4)
    history = []
    for step in range(steps + 1):
        if step % record_every == 0 or step == steps:
            with torch.no_grad():
                history.append((step, ctx.numpy(torch.einsum("bnj,bn->bj", U, forward(X, *params)).abs())))
        if step == steps:
            break
        optimiser.zero_grad()
        logits = forward(X, *params)
        loss = torch.nn.functional.softplus(-y * logits).mean(dim=1) + sd_coef * (logits ** 2).mean(dim=1)
        loss.sum().backward()
        optimiser.step()
    Xg = X.clone().requires_grad_(True)
    grads = torch.autograd.grad(forward(Xg, *params).sum(), Xg)[0].abs().mean(dim=1)
    ratio = ctx.numpy(grads[:, 1] / grads[:, 0])
    shape = (len(runs), len(seeds))
    return {"runs": runs, "seeds": seeds, "data": data, "params": [ctx.numpy(p.detach()) for p in params],
            "steps": np.array([h[0] for h in history]),
            "z": np.array([h[1] for h in history]).reshape(len(history), *shape, -1),
            "gradient_ratio": ratio.reshape(shape)}


def moons_logits(params, index, grid):
    """ŷ of the trained model ``index`` (run-major, seed-minor) on an (N, 2) grid, in numpy."""
    W1, b1, w2, b2 = (p[index] for p in params)
    return np.maximum(grid @ W1.T + b1, 0.0) @ w2 + b2


@crosscheck("starvation.torch_two_moons", f"{P} §2 Fig 1, App. B.2 (spec T3)",
            "Two moons, 500 hidden ReLUs, 3 seeds: seed means satisfy |z_1|(Δ=+0.1) > |z_1|(Δ=-0.1) > |z_1|(SD), "
            "|z_6|(Δ=+0.1) < |z_6|(SD) and < |z_6|(Δ=-0.1), and the vertical/horizontal input-gradient ratio is larger "
            "under SD (CPU: 300 steps; CUDA: 10k as in the paper).")
def torch_two_moons(ctx):
    result = train_two_moons(ctx, steps=ctx.size(cpu=300, cuda=10_000), record_every=10**9)
    z = result["z"][-1].mean(axis=1)  # (runs, n) seed means of |z|
    z1, z6 = z[:, 1], z[:, 6]
    ratio = result["gradient_ratio"].mean(axis=1)
    neg, pos, sd = 0, 1, 2
    orderings = {"z1(+0.1) > z1(-0.1)": z1[pos] > z1[neg], "z1(-0.1) > z1(SD)": z1[neg] > z1[sd],
                 "z6(+0.1) < z6(SD)": z6[pos] < z6[sd], "z6(+0.1) < z6(-0.1)": z6[pos] < z6[neg],
                 "ratio(SD) > ratio(+0.1)": ratio[sd] > ratio[pos]}
    failed = [k for k, ok in orderings.items() if not ok]
    detail = (f"|z_1| {np.round(z1, 3)}, |z_6| {np.round(z6, 3)}, ratio {np.round(ratio, 3)} (runs -0.1, +0.1, SD)"
              + (f"; violated: {failed}" if failed else ""))
    return Check(len(failed), 0, detail=detail)
