"""Figures of gradient starvation: the Fig 6 toy trajectories, the Legendre illustration (Fig 8), the
starvation map of z_2* over (s_1, δ), and the two-moons boundaries of Fig 1 (from the torch cross-check)."""
import numpy as np

from dynamics import starvation as gs
from .registry import figure
from .style import COLORS, SEQUENTIAL, new_figure

P = "004_798f714b6ee27590.txt"
TOY_DELTA, TOY_LAM, TOY_LAM_SD, TOY_S2 = 0.5, 0.01, 0.002, 2.0


@figure("starvation.toy_trajectories", f"{P} Fig 6 (thesis supp. Fig 1), App. B.1",
        "The simple experiment: (|z_1|, |z_2|) trajectories of primal gradient descent (lr 0.05), the authors' dual "
        "gradient descent (α_0 = 1e-8, lr 3e-6) and the SD primal (λ_SD = 0.002), 5000 steps each, for s_1 = 2..6 "
        "(δ = 0.5 as in the code, λ = 0.01, s_2 = 2). Stars: fixed points of Eq 9 and Eq 18. As s_1 grows, z_1 "
        "grows and z_2 is starved under CE; under SD every s_1 ends at the same point.")
def toy_trajectories():
    fig, axes = new_figure(1, 3, width=10.5, height=3.4)
    U = gs.coupling_matrix(TOY_DELTA)
    colors = [COLORS[i] for i in range(5)]
    z_sd, _ = gs.sd_fixed_point(U, TOY_LAM_SD)
    for color, s1 in zip(colors, (2.0, 3.0, 4.0, 5.0, 6.0)):
        s = np.array([s1, TOY_S2])
        primal = gs.primal_gd_z(U, s, TOY_LAM, 0.05, 5000)
        _, dual = gs.dual_gd(U, s, TOY_LAM, 3e-6, 5000)
        sd = gs.primal_gd_z(U, s, TOY_LAM_SD, 0.05, 5000, sd=True)
        target = gs.feature_response(U, s, TOY_LAM)
        for ax, path, end in ((axes[0], primal, target), (axes[1], dual, target), (axes[2], sd, z_sd)):
            ax.plot(np.abs(path[:, 0]), np.abs(path[:, 1]), color=color, label=f"s₁ = {s1:g}")
            ax.plot(*np.abs(end), "*", color=color, ms=9, mec="k", mew=0.5)
    for ax, title in zip(axes, ("primal (CE + L2)", "dual (Eq 8, gradient ascent)", "spectral decoupling")):
        ax.set(xlabel="|z₁|", ylabel="|z₂|", title=title, ylim=(0, 1.9))
    axes[0].legend(loc="lower right")
    return fig


@figure("starvation.legendre", f"{P} Fig 8 (thesis supp. Fig 3), Lemma 2, Eqs 19-28",
        "The Legendre transform of cross-entropy. Left: L(ω) = log(1+e^{-ω}) with tangent lines at three ω_0; each "
        "intercept equals H(α) at α = σ(-ω_0) (dots). Right: H(α) - αω against α for the same ω; each maximum "
        "(circle) sits at α = σ(-ω) and equals L(ω) (dashed).")
def legendre():
    fig, (left, right) = new_figure(1, 2, width=8.0, height=3.3)
    omega = np.linspace(-4.0, 4.0, 400)
    left.plot(omega, gs.primal_loss("cross_entropy", omega), color="k", label=r"$L(\omega) = \log(1+e^{-\omega})$")
    alpha = np.linspace(1e-6, 1.0 - 1e-6, 600)
    for color, w0 in zip(COLORS, (-1.5, 0.0, 1.5)):
        a0 = gs.dual_maximiser("cross_entropy", w0)
        slope = -a0  # dL/dω = -σ(-ω)
        left.plot(omega, gs.primal_loss("cross_entropy", w0) + slope * (omega - w0), "--", color=color, lw=1)
        left.plot(0.0, gs.binary_entropy(a0), "o", color=color, ms=5)
        left.plot(w0, gs.primal_loss("cross_entropy", w0), "s", color=color, ms=4)
        right.plot(alpha, gs.dual_objective("cross_entropy", alpha, w0), color=color, label=f"ω = {w0:g}")
        right.plot(a0, gs.dual_objective("cross_entropy", a0, w0), "o", color=color, ms=6, mfc="none")
        right.axhline(gs.primal_loss("cross_entropy", w0), color=color, ls=":", lw=0.8)
    left.set(xlabel="ω = yŷ", ylabel="loss", title="tangents: intercept = H(α)", ylim=(-0.5, 5))
    left.legend(loc="upper right")
    right.set(xlabel="α", ylabel="H(α) - αω", title="dual: max over α = L(ω)")
    right.legend(loc="lower left")
    return fig


@figure("starvation.starvation_map", f"{P} Theorem 2, Eqs 15-16; App. B.1",
        "Left: the change |z_2*(s_1)| - |z_2*(s_1 = s_2)| of the exact (Eq 9) response of the weak feature (s_2 = 2, "
        "λ = 0.01) over s_1 and the Eq 15 coupling δ, a 200 × 200 numba sweep (z_2* itself is dominated by its "
        "δ-dependent scale, and changes sign at δ = 1/√2, hence |z|). For δ > 0 the change is negative on both sides of "
        "the dashed line s_1 = s_2, where |z_2*| peaks: a stronger (or weaker) feature 1 starves feature 2; for δ < 0 the "
        "sign flips (Theorem 2 needs δ > 0). Right: z_2*(s_1) for several δ, exact (solid) and Eq 10 (dashed, almost on "
        "top), and the SD response (dotted, flat in s_1).")
def starvation_map():
    fig, (left, right) = new_figure(1, 2, width=9.0, height=3.6)
    s1 = np.linspace(0.5, 6.0, 200)
    deltas = np.linspace(-0.95, 0.95, 200)
    z = gs.starvation_map(s1, deltas, TOY_S2, TOY_LAM)
    at_equal = gs.starvation_map(np.array([TOY_S2]), deltas, TOY_S2, TOY_LAM)[:, 0, 1]
    change = np.abs(z[..., 1]) - np.abs(at_equal)[:, None]
    limit = np.abs(change).max()
    image = left.pcolormesh(s1, deltas, change, cmap="RdBu_r", vmin=-limit, vmax=limit, shading="auto")
    left.contour(s1, deltas, change, levels=np.linspace(-limit, limit, 13), colors="k", linewidths=0.3)
    left.axvline(TOY_S2, color="k", ls="--", lw=1)
    left.axhline(0.0, color="k", ls=":", lw=0.8)
    fig.colorbar(image, ax=left, label="|z₂*(s₁)| - |z₂*(s₂)|")
    left.set(xlabel="s₁ (strength of feature 1)", ylabel="coupling δ", title="change of |z₂*| (exact, Eq 9)")
    for color, delta in zip(COLORS, (-0.5, 0.1, 0.3, 0.5, 0.6)):
        exact = gs.starvation_map(s1, [delta], TOY_S2, TOY_LAM)[0, :, 1]
        approx = gs.starvation_map(s1, [delta], TOY_S2, TOY_LAM, exact=False)[0, :, 1]
        right.plot(s1, exact, color=color, label=f"δ = {delta:g}")
        right.plot(s1, approx, "--", color=color, lw=1)
        right.axhline(gs.sd_fixed_point(gs.coupling_matrix(delta), TOY_LAM)[0][1], color=color, ls=":", lw=1)
    right.axvline(TOY_S2, color="gray", ls="--", lw=0.8)
    right.set(xlabel="s₁", ylabel="z₂*", title="z₂*(s₁): exact, Eq 10, SD (λ_SD = λ)")
    right.legend(loc="center right", bbox_to_anchor=(1.0, 0.72), ncol=2)
    return fig


@figure("starvation.two_moons", f"{P} Fig 1 a-d, App. B.2",
        "Two moons, two-layer ReLU net (500 hidden), from the torch cross-check (SGD lr 1e-2, momentum 0.9, weight "
        "decay 2e-4, 2000 full-batch steps, 3 seeds; panels a-c show seed 0). (a) Δ = -0.1, not separable: curved boundary; (b) Δ = +0.1, "
        "separable by a small margin: the boundary runs along the horizontal feature only; (c) Δ = +0.1 with SD "
        "(0.003·mean ŷ²): curved, larger margin. (d) |z_1| and |z_6| along the NTK-at-init eigen-directions during "
        "training (seed means): separability inflates z_1 and starves z_6; SD reverses both.")
def two_moons():
    from verify.crosscheck import context
    from verify.crosscheck.starvation import MOONS_RUNS, moons_logits, train_two_moons

    result = train_two_moons(context(), steps=2000, record_every=50)
    fig, axes = new_figure(1, 4, width=13.0, height=3.3)
    grid_h, grid_v = np.meshgrid(np.linspace(-2.0, 2.0, 200), np.linspace(-1.6, 1.6, 200))
    grid = np.column_stack([grid_h.ravel(), grid_v.ravel()])
    n_seeds = len(result["seeds"])
    for k, (ax, (label, _, _)) in enumerate(zip(axes[:3], MOONS_RUNS)):
        X, y = result["data"][k * n_seeds]
        logits = moons_logits(result["params"], k * n_seeds, grid).reshape(grid_h.shape)
        ax.contourf(grid_h, grid_v, logits > 0, levels=[-0.5, 0.5, 1.5], colors=["#f3d9c9", "#cfe0ef"], alpha=0.8)
        ax.contour(grid_h, grid_v, logits, levels=[0.0], colors="k", linewidths=1.2)
        ax.scatter(X[:, 0], X[:, 1], c=np.where(y > 0, COLORS[0], COLORS[1]), s=6)
        ax.set(title=f"({'abc'[k]}) {label}", xlabel="x_h", ylabel="x_v", xlim=(-2, 2), ylim=(-1.6, 1.6))
    z = result["z"].mean(axis=2)  # (records, runs, n)
    for color, (k, (label, _, _)) in zip(COLORS, enumerate(MOONS_RUNS)):
        axes[3].plot(result["steps"], z[:, k, 1], color=color, label=f"|z₁| {label}")
        axes[3].plot(result["steps"], z[:, k, 6], "--", color=color, label=f"|z₆| {label}")
    axes[3].set(title="(d) feature responses", xlabel="step", ylabel="|z|", yscale="log")
    axes[3].legend(fontsize=6, ncol=1)
    return fig


@figure("starvation.approximation_error", f"{P} Eq 10 (App. C.4), Lemma 1 (Eq 14), Eqs 63-64",
        "Left: relative error of the Eq 10 (Lambert W) fixed point against the exact Eq 9 one, uncoupled, "
        "(α_10 - α_9)/α_9 against c = 1 + s²/λ; Eq 10 always over-estimates α*, by 6% at c = 2 and by 1e-3 at c = 30, so "
        "App. C.4's condition 'λ < s²' must be read as λ ≪ s². Right: with the Eq 15 coupling (S² = (9, 4), λ = 0.1), "
        "the max relative error of Lemma 1 (Eq 14) and the max absolute error of the first-order responses "
        "(Eqs 63-64) against the Eq 10 fixed point, both O(δ²) (dotted: slope 2).")
def approximation_error():
    fig, (left, right) = new_figure(1, 2, width=8.0, height=3.3)
    lam = 0.1
    c = np.geomspace(1.5, 1e5, 200)
    s = np.sqrt((c - 1.0) * lam)
    alpha10, _ = gs.lambert_fixed_point(s, lam)
    alpha9, _ = gs.exact_uncoupled_response(s, lam)
    left.loglog(c, (alpha10 - alpha9) / alpha9, color=COLORS[0])
    left.set(xlabel="c = 1 + s²/λ", ylabel="(α₁₀ - α₉)/α₉", title="Eq 10 vs exact Eq 9 (uncoupled)")
    sq = np.sqrt([9.0, 4.0])
    deltas = np.geomspace(1e-3, 0.5, 30)
    lemma, first = [], []
    for delta in deltas:
        U = gs.coupling_matrix(delta)
        reference = gs.dual_fixed_point(U, sq, lam, exact=False)
        lemma.append(np.max(np.abs(gs.lemma1_fixed_point(U, sq, lam) - reference) / reference))
        first.append(np.max(np.abs(gs.first_order_response(sq, lam, delta)
                                   - gs.feature_response(U, sq, lam, exact=False))))
    right.loglog(deltas, lemma, color=COLORS[1], label="Lemma 1 (Eq 14), rel. error in α")
    right.loglog(deltas, first, color=COLORS[2], label="Eqs 63-64, abs. error in z")
    right.loglog(deltas, first[0] * (deltas / deltas[0]) ** 2, ":", color="gray", label="∝ δ²")
    right.set(xlabel="coupling δ", ylabel="error", title="perturbative forms, coupled case")
    right.legend(loc="upper left")
    return fig
