"""Figures of the linear-network theory: thesis Fig 2.3 (mode sigmoids, (a, b) phase plane), Fig 2.4
(Marchenko–Pastur densities, E_g against α), and theory against simulated networks.

Every figure function takes keyword parameters whose defaults are the values the figure is drawn with (the
thesis states none; these are chosen by the project), and plots only what :mod:`dynamics` computes. Data
lines carry a ``gid`` naming what they show, so that tests can compare them with a fresh call.
"""
import importlib.util

import numpy as np

from dynamics.lazy import lazy_module
from .registry import figure
from .style import COLORS, new_figure

mlines = lazy_module("matplotlib.lines")
ln = lazy_module("dynamics.linear_networks")
nx = lazy_module("dynamics.numerics")

SOURCE = "Pezeshki (thesis),"


@figure("linear_networks.mode_sigmoids", f"{SOURCE} Fig 2.3 (left)",
        "Mode strength u = ab against time for singular values s = 0.5, 1, 2, 3 from the balanced decoupled init "
        "u0 = 1e-3, τ = 1 (Eq 2.2.22). Larger s is learned earlier and faster; dots mark the half-learning times "
        "(τ/2s) ln(s/u0 − 1), where u = s/2, and dotted lines the limits u = s. The thesis gives no parameters; "
        "these are chosen here.")
def mode_sigmoids(singular_values=(3.0, 2.0, 1.0, 0.5), u0=1e-3, tau=1.0, t_max=12.0):
    fig, ax = new_figure(1, 1, width=5.4, height=3.2)
    t = np.linspace(0.0, t_max, 600)
    for color, s in zip(COLORS, singular_values):
        ax.plot(t, ln.mode_strength(t, s, u0, tau), color=color, label=f"$s = {s:g}$", gid=f"sigmoid:{s:g}")
        ax.plot([ln.half_learning_time(s, u0, tau)], [s / 2], "o", color=color, ms=4, gid=f"half_time:{s:g}")
        ax.axhline(s, color=color, lw=0.6, ls=":")
    # One legend entry each for the dots and the dotted limits (drawn in every mode's colour).
    ax.plot([], [], "o", color="0.4", ms=4, label=r"$t_{1/2}$, where $u = s/2$")
    ax.plot([], [], ":", color="0.4", lw=0.8, label=r"$u = s$ ($t \to \infty$)")
    ax.set(xlabel=r"$t/\tau$", ylabel="mode strength $u(t)$", title="Saxe mode learning (Eq 2.2.22)",
           xlim=(0, t_max), ylim=(0, 1.1 * max(singular_values)))
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig


@figure("linear_networks.phase_plane", f"{SOURCE} Fig 2.3 (right)",
        "Direction field of one mode's gradient flow, τ(a', b') = (b(s − ab), a(s − ab)), s = 1, τ = 1 "
        "(Eqs 2.2.15–16); the arrows are normalised to unit length and show the direction only. Grey: the conserved "
        "hyperbolas a² − b² = c; red: the minimum manifold ab = s (both branches); green: two trajectories "
        "integrated from small starts (dots), following their hyperbolas to ab = s. The saddle is at the origin.")
def phase_plane(s=1.0, tau=1.0, starts=((0.1, -0.6), (0.6, 0.1)), t_max=12.0, extent=2.0):
    fig, ax = new_figure(1, 1, width=5.6, height=4.0)
    grid = np.linspace(-extent, extent, 21)
    a, b = np.meshgrid(grid, grid)
    velocity = ln.scalar_mode_velocity(a, b, s, tau)
    speed = np.maximum(np.hypot(*velocity), 1e-12)
    ax.quiver(a, b, velocity.a_velocity / speed, velocity.b_velocity / speed, color="0.3", scale=30,
              width=0.0045, pivot="mid", gid="direction_field")
    fine = np.linspace(-extent, extent, 401)
    A, B = np.meshgrid(fine, fine)
    ax.contour(A, B, A ** 2 - B ** 2, levels=np.linspace(-3.5, 3.5, 15) * (extent / 2) ** 2, colors="0.7",
               linewidths=0.6, linestyles="solid")
    ax.plot([], [], color="0.7", lw=0.6, label="$a^2 - b^2 = c$")  # legend entry of the contour lines
    for sign in (1.0, -1.0):
        branch = sign * np.geomspace(s / extent, extent, 200)
        ax.plot(branch, s / branch, color="#D62728", lw=2.0, label="$ab = s$" if sign > 0 else None,
                gid=f"minimum_manifold:{sign:+g}")
    t = np.linspace(0.0, t_max, 400)
    for k, (a0, b0) in enumerate(starts):
        flow = ln.scalar_mode_flow(t, s, a0, b0, tau)
        ax.plot(flow.a, flow.b, color="#2CA02C", lw=2.0, label="trajectories" if k == 0 else None,
                gid=f"trajectory:{a0:g},{b0:g}")
        ax.plot([a0], [b0], "o", color="#2CA02C", ms=4)
    ax.plot([0], [0], "kx", ms=6, label="saddle")
    ax.set(xlabel="$a$", ylabel="$b$", xlim=(-extent, extent), ylim=(-extent, extent), aspect="equal",
           title=f"single-mode flow, $s = {s:g}$ (unit arrows)")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig


def alpha_grid():
    """The α grid of Fig 2.4(b): uniform on [0.1, 4], the points 0.25, 0.5, 0.75, 0.9, 1, 1.1, 1.5, 2, and refined
    geometrically towards α = 1 (down to |α − 1| = 1e-3), where the curves peak."""
    near = np.geomspace(1e-3, 0.1, 40)
    return np.unique(np.concatenate([np.linspace(0.1, 4.0, 157), [0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.5, 2.0],
                                     1.0 - near, 1.0 + near]))


@figure("linear_networks.mp_and_generalization", f"{SOURCE} Fig 2.4 (a), (b)",
        "(a) Marchenko–Pastur densities of X Xᵀ (Eq 2.3.30) for α = P/N = 0.5, 1, 2; the arrow marks the atom of mass "
        "1 − α at λ = 0 for α < 1 (the frozen subspace); at α = 1 the density diverges as λ^{-1/2}. "
        "(b) High-dimensional E_g against α after training times t = 1, 10, 100, 1000 (darker red = longer), "
        "teacher_std σ_w̄ = 1, noise_std σ_ε = 0.5 (SNR 4), init_std σ_0 = 0, τ = 1; dashed: the t = ∞ asymptote, "
        "which diverges at α = 1 (dotted vertical line), drawn on either side of it; dotted: the early-stopped "
        "E_g(t_opt). The α grid is refined towards 1. The overtraining peak at α = 1 grows with training time "
        "(as √t).")
def mp_and_generalization(alphas=(0.5, 1.0, 2.0), times=(1.0, 10.0, 100.0, 1000.0), teacher_std=1.0, noise_std=0.5,
                          init_std=0.0, tau=1.0):
    fig, (left, right) = new_figure(1, 2, width=8.6, height=3.5)
    for color, alpha in zip(COLORS, alphas):
        lo, hi = nx.mp_edges(alpha)
        lam = lo + (hi - lo) * (1 - np.cos(np.linspace(0, np.pi, 800)[1:-1])) / 2
        left.plot(lam, nx.mp_density(lam, alpha), color=color, label=rf"$\alpha = {alpha:g}$",
                  gid=f"mp_density:{alpha:g}")
        if nx.mp_atom(alpha) > 0:
            left.annotate("", xy=(0.0, 1.6), xytext=(0.0, 0.0), arrowprops=dict(arrowstyle="-|>", color=color, lw=2))
            left.text(0.15, 1.58, rf"atom $1 - \alpha = {nx.mp_atom(alpha):g}$ at $\lambda = 0$", color=color,
                      fontsize=8)
    left.set(xlabel=r"eigenvalue $\lambda$ of $XX^\top$", ylabel=r"$\rho(\lambda)$", ylim=(0, 1.7), xlim=(-0.1, 6.0),
             title="(a) Marchenko–Pastur densities")
    left.legend(loc="center right")

    grid = alpha_grid()
    stds = dict(teacher_std=teacher_std, noise_std=noise_std, init_std=init_std)
    reds = ["#FCAE91", "#FB6A4A", "#DE2D26", "#A50F15"]
    top = 0.0
    for color, t in zip(reds, times):
        eg = np.array([ln.generalization_curve(t, a, tau=tau, **stds).generalization_error for a in grid])
        top = max(top, eg.max())
        right.plot(grid, eg, color=color, label=f"$t = {t:g}$", gid=f"E_g:t={t:g}")
    for k, side in enumerate((grid[grid < 1.0], grid[grid > 1.0])):  # E_g(∞) is infinite at α = 1: two pieces
        right.plot(side, [ln.asymptotic_errors(a, **stds).generalization_error for a in side], "k--", lw=0.8,
                   label=r"$t = \infty$" if k == 0 else None, gid=f"E_g:t=inf:{'below' if k == 0 else 'above'}")
    right.axvline(1.0, color="k", ls=":", lw=0.8, label=r"$E_g(\infty) = \infty$ at $\alpha = 1$")
    best = [ln.generalization_curve(ln.optimal_stopping_time(a, tau=tau, **stds), a, tau=tau,
                                    **stds).generalization_error for a in grid]
    right.plot(grid, best, ":", color=COLORS[0], label=r"early stopping, $E_g(t_\mathrm{opt})$", gid="E_g:t_opt")
    right.set(xlabel=r"$\alpha = P/N$", ylabel="generalization error $E_g$", ylim=(0, 1.08 * top), xlim=(0, 4),
              title=r"(b) $E_g$ against $\alpha$ (darker = longer training)")
    right.legend(loc="upper right", framealpha=0.9, frameon=True)
    return fig


@figure("linear_networks.theory_vs_simulation", f"{SOURCE} Eqs 2.2.22, 2.3.13–2.3.14",
        "Left: mode strengths of a 16→32→12 linear network on whitened data from a decoupled init (u0 = 1e-6): the "
        "closed form (2.2.22) (lines), the integrated full-matrix flow (2.2.5–6) (circles) and torch full-batch "
        "gradient descent with η = 2.5e-3 at t/τ = kη (crosses; the numba GD of Eqs 2.2.3–4 when torch is absent). "
        "Right: E_g(t) of the Advani–Saxe student, high-dimensional theory (lines) against the average of 30 "
        "simulated students (N = 100, full-batch GD with η = 0.05 evaluated by its exact per-instance solution "
        "(1 − ηλ)^k; markers) for α = 0.5, 1, 2 (teacher_std 1, noise_std 0.5).")
def theory_vs_simulation(singular_values=(4.0, 3.0, 2.0, 1.5, 1.0, 0.7, 0.5, 0.3), a0=1e-3, learning_rate=2.5e-3,
                         n_steps=10_000, alphas=(0.5, 1.0, 2.0), n_features=100, n_students=30,
                         student_learning_rate=0.05, teacher_std=1.0, noise_std=0.5, seed=71):
    fig, (left, right) = new_figure(1, 2, width=9.0, height=3.6)
    s = np.asarray(singular_values, dtype=float)
    rng = np.random.default_rng(seed)
    X, Y, task = ln.whitened_mode_task(s, 16, 12, 64, seed=rng)
    init = ln.decoupled_init(task.U, task.V, n_hidden=32, a0=a0, seed=rng)
    t_end = ln.gd_flow_time(n_steps, learning_rate)
    t_closed = np.linspace(0.0, t_end, 500)
    flow = ln.network_flow(*init, task.correlation, np.linspace(0.0, t_end, 51))
    record = max(n_steps // 50, 1)
    if importlib.util.find_spec("torch") is not None:
        from dynamics.linear_networks.torch_training import train_two_layer

        gd = train_two_layer(*init, X, Y, n_steps, learning_rate, record_every=record, device="cpu")
        gd_label = "torch full-batch GD"
    else:
        gd = ln.network_gd(*init, task.correlation, n_steps, learning_rate, record_every=record)
        gd_label = "full-batch GD (numba; torch not installed)"
    u_flow = ln.mode_strengths(flow.W21, flow.W32, task.U, task.V)[:, :s.size]
    u_gd = ln.mode_strengths(gd.W21, gd.W32, task.U, task.V)[:, :s.size]
    t_gd = ln.gd_flow_time(gd.steps, learning_rate)
    for k in range(s.size):
        color = COLORS[k % len(COLORS)]
        u_closed = ln.mode_strength(t_closed, s[k], a0 ** 2)
        left.plot(t_closed, u_closed, color=color, lw=1.2, label="closed form" if k == 0 else None,
                  gid=f"closed_form:{k}")
        # The flow and GD are sampled at the same times; every other marker of each is drawn, alternating, so
        # that the circles and crosses do not sit on top of one another.
        left.plot(flow.t, u_flow[:, k], "o", color=color, ms=3.5, mfc="none", mew=0.9, markevery=(0, 2),
                  label="matrix ODE" if k == 0 else None, gid=f"matrix_flow:{k}")
        left.plot(t_gd, u_gd[:, k], "x", color=color, ms=4, mew=0.9, markevery=(1, 2),
                  label=gd_label if k == 0 else None, gid=f"gd:{k}")
        # The mode's colour is named at the end of its curve.
        left.annotate(f"$s = {s[k]:g}$", xy=(t_closed[-1], u_closed[-1]), xytext=(4, 0),
                      textcoords="offset points", va="center", fontsize=7.5, color=color)
    left.set(xlabel=r"$t/\tau = k\eta$", ylabel=r"$u_\alpha = (U^\top W_{32} W_{21} V)_{\alpha\alpha}$",
             title=f"mode learning, $s = {s[0]:g} \\ldots {s[-1]:g}$")
    # The legend names the three styles (in grey); the modes are named at the ends of their curves.
    handles = [mlines.Line2D([], [], color="0.3", lw=1.2), mlines.Line2D([], [], ls="", marker="o", ms=3.5, mfc="none", mew=0.9,
                                                           color="0.3"),
               mlines.Line2D([], [], ls="", marker="x", ms=4, mew=0.9, color="0.3")]
    left.legend(handles, ["closed form", "matrix ODE", gd_label], loc="upper center", bbox_to_anchor=(0.5, -0.2),
                ncol=3, handletextpad=0.4, columnspacing=1.2)

    t_theory = np.geomspace(1e-2, 200.0, 300)
    steps = np.unique(np.geomspace(1, 200.0 / student_learning_rate, 25).astype(int))
    t_students = ln.gd_flow_time(steps, student_learning_rate)
    for color, alpha in zip(COLORS, alphas):
        curve = ln.generalization_curve(t_theory, alpha, teacher_std=teacher_std, noise_std=noise_std)
        right.plot(t_theory, curve.generalization_error, color=color, label=rf"$\alpha = {alpha:g}$ theory",
                   gid=f"theory:{alpha:g}")
        sims = ln.simulated_student_errors(alpha, n_features, n_students, t_students,
                                           learning_rate=student_learning_rate,
                                           stds=ln.SignalNoiseStds(teacher_std, noise_std), seed=rng)
        right.plot(sims.t, sims.generalization_error.mean(axis=0), "o", color=color, ms=3,
                   label=rf"$\alpha = {alpha:g}$ simulated", gid=f"simulated:{alpha:g}")
    right.set(xscale="log", xlabel=r"$t/\tau = k\eta$", ylabel="$E_g$", ylim=(0, 3.5),
              title="Advani–Saxe student")
    right.legend(loc="upper left", fontsize=7, framealpha=0.9, frameon=True)
    return fig
