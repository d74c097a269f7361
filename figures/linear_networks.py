"""Figures of the linear-network theory: thesis Fig 2.3 (mode sigmoids, (a, b) phase plane), Fig 2.4
(Marchenko–Pastur densities, E_g against α), and theory against simulated networks."""
import importlib.util

import numpy as np

from dynamics import linear_networks as ln
from dynamics import numerics as nx
from .registry import figure
from .style import COLORS, new_figure

SEED = "001_61c8f54ededf01e4.txt"


@figure("linear_networks.mode_sigmoids", f"{SEED} Fig 2.3 (left)",
        "Mode strength u = ab against time for singular values s = 0.5, 1, 2, 3 from the balanced decoupled init "
        "u0 = 1e-3, τ = 1 (Eq 2.2.22). Larger s is learned earlier and faster; dots mark the half-learning times "
        "(τ/2s) ln(s/u0 − 1), where u = s/2. The thesis gives no parameters; these are the spec's suggestion.")
def mode_sigmoids():
    fig, ax = new_figure(1, 1, width=4.2, height=3.2)
    t = np.linspace(0.0, 12.0, 600)
    for color, s in zip(COLORS, (3.0, 2.0, 1.0, 0.5)):
        ax.plot(t, ln.mode_strength(t, s, 1e-3), color=color, label=f"s = {s:g}")
        t_half = ln.half_learning_time(s, 1e-3)
        ax.plot([t_half], [s / 2], "o", color=color, ms=4)
        ax.axhline(s, color=color, lw=0.6, ls=":")
    ax.set(xlabel="t / τ", ylabel="mode strength u(t)", title="Saxe mode learning (Eq 2.2.22)", xlim=(0, 12))
    ax.legend(loc="center right")
    return fig


@figure("linear_networks.phase_plane", f"{SEED} Fig 2.3 (right)",
        "Gradient-flow vector field of one mode, τ(a', b') = (b(s − ab), a(s − ab)), s = 1, τ = 1 (Eqs 2.2.15–16). "
        "Grey: the conserved hyperbolas a² − b² = c; red: the minimum manifold ab = s (both branches); green: two "
        "trajectories integrated from small starts, following their hyperbolas to ab = s. The saddle is at the origin.")
def phase_plane():
    fig, ax = new_figure(1, 1, width=4.0, height=3.8)
    grid = np.linspace(-2.0, 2.0, 21)
    a, b = np.meshgrid(grid, grid)
    da, db = ln.scalar_mode_velocity(a, b, 1.0)
    speed = np.hypot(da, db)
    ax.quiver(a, b, da / np.maximum(speed, 1e-12), db / np.maximum(speed, 1e-12), color="0.3", scale=30,
              width=0.0045, pivot="mid")
    fine = np.linspace(-2.0, 2.0, 401)
    A, B = np.meshgrid(fine, fine)
    ax.contour(A, B, A ** 2 - B ** 2, levels=np.linspace(-3.5, 3.5, 15), colors="0.7", linewidths=0.6,
               linestyles="solid")
    for sign in (1.0, -1.0):
        branch = sign * np.geomspace(0.5, 2.0, 200)
        ax.plot(branch, 1.0 / branch, color="#D62728", lw=2.0, label="ab = s" if sign > 0 else None)
    t = np.linspace(0.0, 12.0, 400)
    for k, (a0, b0) in enumerate(((0.1, -0.6), (0.6, 0.1))):
        traj_a, traj_b = ln.scalar_mode_flow(t, 1.0, a0, b0)
        ax.plot(traj_a, traj_b, color="#2CA02C", lw=2.0, label="trajectories" if k == 0 else None)
        ax.plot([a0], [b0], "o", color="#2CA02C", ms=4)
    ax.plot([0], [0], "kx", ms=6)
    ax.set(xlabel="a", ylabel="b", xlim=(-2, 2), ylim=(-2, 2), aspect="equal", title="single-mode flow, s = 1")
    ax.legend(loc="lower left", framealpha=0.9, frameon=True)
    return fig


@figure("linear_networks.mp_and_generalization", f"{SEED} Fig 2.4 (a), (b)",
        "(a) Marchenko–Pastur densities of X Xᵀ (Eq 2.3.30) for α = P/N = 0.5, 1, 2; the arrow marks the atom of mass "
        "1 − α at λ = 0 for α < 1 (the frozen subspace); at α = 1 the density diverges as λ^{-1/2}. "
        "(b) High-dimensional E_g against α after training times t = 1, 10, 100, 1000 (darker red = longer), "
        "σ_w̄² = 1, σ_ε² = 0.25 (SNR 4), σ_0 = 0, τ = 1, with the t = ∞ asymptote dashed and the early-stopped "
        "E_g(t_opt) dotted. The overtraining peak at α = 1 grows with training time (as √t).")
def mp_and_generalization():
    fig, (left, right) = new_figure(1, 2, width=8.0, height=3.3)
    for color, alpha in zip(COLORS, (0.5, 1.0, 2.0)):
        lo, hi = nx.mp_edges(alpha)
        lam = lo + (hi - lo) * (1 - np.cos(np.linspace(0, np.pi, 800)[1:-1])) / 2
        left.plot(lam, nx.mp_density(lam, alpha), color=color, label=f"α = {alpha:g}")
        if nx.mp_atom(alpha) > 0:
            left.annotate("", xy=(0.0, 1.6), xytext=(0.0, 0.0),
                          arrowprops=dict(arrowstyle="-|>", color=color, lw=2))
            left.text(0.15, 1.58, f"atom 1 − α = {nx.mp_atom(alpha):g} at λ = 0", color=color, fontsize=8)
    left.set(xlabel="eigenvalue λ of X Xᵀ", ylabel="ρ(λ)", ylim=(0, 1.7), xlim=(-0.1, 6.0),
             title="(a) Marchenko–Pastur densities")
    left.legend()

    alphas = np.unique(np.concatenate([np.linspace(0.1, 4.0, 157), [0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.5, 2.0]]))
    reds = ["#FCAE91", "#FB6A4A", "#DE2D26", "#A50F15"]
    for color, t in zip(reds, (1.0, 10.0, 100.0, 1000.0)):
        right.plot(alphas, [ln.generalization_curve(t, a)[0] for a in alphas], color=color, label=f"t = {t:g}")
    away = alphas[np.abs(alphas - 1.0) > 0.04]
    right.plot(away, [ln.asymptotic_errors(a)[0] for a in away], "k--", lw=0.8, label="t = ∞")
    best = [ln.generalization_curve(ln.optimal_stopping_time(a), a)[0] for a in alphas]
    right.plot(alphas, best, ":", color=COLORS[0], label="early stopping")
    right.set(xlabel="α = P/N", ylabel="generalization error E_g", ylim=(0, 6), xlim=(0, 4),
              title="(b) E_g against α (darker = longer training)")
    right.legend(loc="upper right")
    return fig


@figure("linear_networks.theory_vs_simulation", f"{SEED} Eqs 2.2.22, 2.3.13–2.3.14 (spec Part D)",
        "Left: mode strengths of a 16→32→12 linear network on whitened data from a decoupled init (u0 = 1e-6): the "
        "closed form (2.2.22) (lines), the integrated full-matrix flow (2.2.5–6) (circles) and torch full-batch SGD "
        "with η = 2.5e-3 at t = kη (crosses; the numba GD of Eqs 2.2.3–4 when torch is absent). Right: E_g(t) of the "
        "Advani–Saxe student, high-dimensional theory (lines) against the average of 30 simulated students "
        "(N = 100, full-batch GD with η = 0.05 evaluated by its exact per-instance solution (1 − ηλ)^k; markers) for "
        "α = 0.5, 1, 2.")
def theory_vs_simulation():
    fig, (left, right) = new_figure(1, 2, width=8.4, height=3.4)
    s = np.array([4.0, 3.0, 2.0, 1.5, 1.0, 0.7, 0.5, 0.3])
    U, S, V = ln.mode_task(s, 16, 12, seed=71)
    X = ln.whitened_inputs(16, 64, seed=72)
    W21, W32 = ln.decoupled_init(U, V, n_hidden=32, a0=1e-3, seed=73)
    t_closed = np.linspace(0.0, 25.0, 500)
    t_flow = np.linspace(0.0, 25.0, 51)
    A, B = ln.network_flow(t_flow, W21, W32, U @ S @ V.T)
    eta, steps = 2.5e-3, 10_000
    if importlib.util.find_spec("torch") is not None:
        from verify.crosscheck import context
        from verify.crosscheck.linear_networks import train_two_layer

        A_gd, B_gd = train_two_layer(context("cpu"), X, U @ S @ V.T @ X, W21, W32, eta, steps, record_every=200)
        gd_label = "torch SGD"
    else:
        A_gd, B_gd = ln.network_gd(W21, W32, U @ S @ V.T, learning_rate=eta, n_steps=steps, record_every=200)
        gd_label = "GD (numba)"
    t_gd = ln.gd_flow_time(np.arange(0, steps + 1, 200), eta)
    u_flow, u_gd = ln.mode_strengths(A, B, U, V)[:, :8], ln.mode_strengths(A_gd, B_gd, U, V)[:, :8]
    for k in range(8):
        left.plot(t_closed, ln.mode_strength(t_closed, s[k], 1e-6), color=COLORS[k % len(COLORS)], lw=1.2,
                  label="closed form" if k == 0 else None)
        left.plot(t_flow, u_flow[:, k], "o", color=COLORS[k % len(COLORS)], ms=3, mfc="none",
                  label="matrix ODE" if k == 0 else None)
        left.plot(t_gd, u_gd[:, k], "x", color=COLORS[k % len(COLORS)], ms=4, label=gd_label if k == 0 else None)
    left.set(xlabel="t = kη", ylabel="u_α = (Uᵀ W32 W21 V)_αα", title="mode learning, s = 4 ... 0.3")
    left.legend(loc="center right", bbox_to_anchor=(1.0, 0.64))

    t_theory = np.geomspace(1e-2, 200.0, 300)
    steps = np.unique(np.geomspace(1, 4000, 25).astype(int))
    for color, alpha in zip(COLORS, (0.5, 1.0, 2.0)):
        eg_theory, _ = ln.generalization_curve(t_theory, alpha)
        right.plot(t_theory, eg_theory, color=color, label=f"α = {alpha:g} theory")
        sims = []
        for seed in range(30):
            inst = ln.draw_student(100, int(round(alpha * 100)), seed=500 + seed + int(100 * alpha))
            sims.append(ln.generalization_error(ln.student_weights_gd(steps, inst, 0.05), inst))
        right.plot(ln.gd_flow_time(steps, 0.05), np.mean(sims, axis=0), "o", color=color, ms=3,
                   label=f"α = {alpha:g} simulated")
    right.set(xscale="log", xlabel="t / τ", ylabel="E_g", ylim=(0, 3.5), title="Advani–Saxe student")
    right.legend(ncol=1, fontsize=7)
    return fig
