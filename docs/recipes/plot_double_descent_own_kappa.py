"""
A double-descent curve for your own κ and n/d
=============================================

You bring the shape of your problem: the scale ratio κ of the fast and slow features (the condition number of the
modulation matrix F), the number of samples per input dimension n/d, the share p/d of fast features and the
label noise. You get the test error over training time of gradient descent on the linear teacher–student model of
Pezeshki et al. 2022, from the approximate closed form and from the exact trace formulas at one drawn design, with
its first minimum, its peak and its second descent read off and marked, and how the second descent moves as κ
grows (the theory note :doc:`/theory/double_descent`).
"""
# %%
# Replace this with your own κ, n/d, p/d and noise
# ------------------------------------------------
# ``kappa`` is σ₁/σ₂, the ratio of the scales of the fast and the slow features (σ₁ = 1, σ₂ = 1/κ). The closed form
# needs more samples than dimensions, n/d > 1. ``n_features`` only sets the size of the drawn design of the exact
# route (the closed form depends on the ratios alone). With ``noise_std > 0`` the error ends above zero, at point C.
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

from dynamics import double_descent as dd

kappa = 50.0  # scale ratio of the fast and slow features
samples_per_feature = 1.3  # n/d, > 1
fast_share = 0.7  # p/d, the share of fast features
noise_std = 0.0  # label-noise standard deviation σ_ε
n_features = 200  # d of the drawn design (the exact route)
seed = 0

n_samples, n_fast = round(samples_per_feature * n_features), round(fast_share * n_features)
problem = dd.TeacherStudentProblem(n_samples, n_features, n_fast, kappa, noise_std=noise_std)
print(problem)

# %%
# The test error over training time
# ---------------------------------
# One design of your shape is drawn and gradient descent runs at the authors' learning rate η = 1/λ_max(XᵀX). The
# exact route averages the test error of that design over teachers and label noise (the trace formulas,
# :func:`dynamics.double_descent.exact_gd_order_parameters`); the closed form treats each group of features as its
# own ridge problem, with training step k acting as a weight decay 1/(ηk)
# (:func:`dynamics.double_descent.bipartite_theory`). The slow features learn about κ² times later than the fast
# ones, so the grid of steps runs to a few hundred times κ². Both curves are the test error on noiseless test labels,
# ½(1 − 2R + Q); noisy test labels add ½σ_ε².
data = dd.draw_teacher_student(problem, seed=seed)
eta = dd.inverse_max_eigenvalue_learning_rate(data.X[0])
last_decade = int(np.ceil(np.log10(300.0 * kappa ** 2 / eta)))
steps = np.logspace(-1, last_decade, 60 * (last_decade + 1))
exact = dd.exact_gd_order_parameters(data.modulation.draw(0), data.X[0], steps,  # at η = 1/λ_max, its default
                                     noise_std=noise_std).generalization_error
theory = dd.bipartite_theory(steps, problem, learning_rate=eta).generalization_error
points = dd.phase_points(n_samples, n_features, n_fast, noise_std)
print(f"learning rate {eta:.4f}; plateau of the fast features alone L_B = {points.B.generalization_error:.4f}")

# %%
# Read off the first minimum, the peak and the second descent
# -----------------------------------------------------------
# :func:`dynamics.double_descent.second_descent` finds the first interior minimum, the first peak after it and its
# height above the minimum, the step at which the error has come half-way down from the peak to the bottom of the
# second descent, and the step at which it is back at the first minimum's level. Below a critical κ (around 5–15,
# depending on n/d and p/d) or with enough label noise there is no peak: it raises a ``ValueError`` saying so.
found = {}
for name, curve in (("closed form", theory), (f"exact GD, d = {n_features}", exact)):
    try:
        found[name] = dd.second_descent(steps, curve)
    except ValueError as error:
        print(f"{name}: {error}")
        continue
    r = found[name]
    back = "not on the grid" if r.recovery_step is None else f"{r.recovery_step:.3g}"
    print(f"{name:>22}: first minimum {r.first_minimum:.4f} at k = {r.first_minimum_step:.3g}; peak "
          f"{r.peak:.4f} at k = {r.peak_step:.3g} (height {r.peak_height:.4f}); second descent half-way at "
          f"k = {r.second_descent_step:.3g}, back at the first minimum at k = {back}, down to "
          f"{abs(r.second_minimum):.4f}")  # abs: a round-off -0.0000 reads as 0

fig, ax = plt.subplots(figsize=(7.5, 4.2), layout="constrained")
styles = {"closed form": dict(color="C0", ls="-"), f"exact GD, d = {n_features}": dict(color="C3", ls="--")}
for name, curve in (("closed form", theory), (f"exact GD, d = {n_features}", exact)):
    ax.plot(steps, curve, lw=1.8, label=name, **styles[name])
    if name not in found:
        continue
    r, color = found[name], styles[name]["color"]
    ax.plot(r.first_minimum_step, r.first_minimum, "v", color=color, ms=8, mec="k")
    ax.plot(r.peak_step, r.peak, "^", color=color, ms=8, mec="k")
    ax.vlines(r.peak_step, r.first_minimum, r.peak, color=color, lw=1.0)  # the peak's height above the minimum
    ax.axvline(r.second_descent_step, color=color, ls=":", lw=1.2)
    ax.plot(r.second_descent_step, 0.5 * (r.peak + r.second_minimum), "o", color=color, ms=7, mec="k")
    ax.annotate(f"height {r.peak_height:.3f}", (r.peak_step, r.peak), xytext=(6, 4), textcoords="offset points",
                color=color, fontsize=8)
ax.axhline(points.B.generalization_error, color="0.5", ls="-.", lw=0.8, label="plateau of the fast features $L_B$")
ax.plot([], [], "kv", ms=7, label="first minimum")
ax.plot([], [], "k^", ms=7, label="peak (bar: its height)")
ax.plot([], [], "ko:", ms=6, label="second descent (half-way down)")
ax.set(xscale="log", xlim=(steps[0], steps[-1]), ylim=(0.0, 0.55), xlabel=f"training steps $k$ (η = {eta:.3f})",
       ylabel=r"test error $L_G = \frac{1}{2}(1 - 2R + Q)$",
       title=rf"$\kappa = {kappa:g}$, $n/d = {samples_per_feature:g}$, $p/d = {fast_share:g}$, "
             rf"$\sigma_\varepsilon = {noise_std:g}$")
ax.legend(loc="upper right", fontsize=8)
plt.show()

# %%
# The closed form descends early, because it lets the slow features use every sample; the exact curve of one design
# peaks higher and comes down later. Both share the two descents and the plateau the fast features overfit towards.
#
# How the second descent moves with κ
# -----------------------------------
# The same reading for a range of κ around yours, from the closed form (cheap): the slow features' clock runs κ²
# slower, so the second descent moves to later steps, in proportion to κ² once κ is large, while the peak grows
# towards the plateau L_B.
kappas = np.geomspace(max(2.0, kappa / 10.0), kappa * 10.0, 9)
sweep_steps = np.logspace(-1, int(np.ceil(np.log10(300.0 * kappas[-1] ** 2 / eta))), 800)
rows = []
for kappa_i in kappas:
    curve = dd.bipartite_theory(sweep_steps, problem._replace(kappa=kappa_i), learning_rate=eta).generalization_error
    try:
        r = dd.second_descent(sweep_steps, curve)
    except ValueError:
        print(f"kappa = {kappa_i:8.1f}: no peak (below the critical kappa for this n/d, p/d and noise)")
        continue
    rows.append((kappa_i, r.peak_step, r.second_descent_step, r.peak_height))
    print(f"kappa = {kappa_i:8.1f}: peak at k = {r.peak_step:9.3g}, second descent at "
          f"k = {r.second_descent_step:9.3g}, peak height {r.peak_height:.4f}")
rows = np.array(rows).reshape(-1, 4)

fig, (left, right) = plt.subplots(1, 2, figsize=(9.0, 3.6), layout="constrained")
left.loglog(rows[:, 0], rows[:, 2], "o-", color="C0", label="second descent (half-way down)")
left.loglog(rows[:, 0], rows[:, 1], "s-", color="C1", label="peak")
if len(rows):
    guide = rows[-1, 2] * (rows[:, 0] / rows[-1, 0]) ** 2
    left.loglog(rows[:, 0], guide, "k:", lw=1, label=r"$\propto \kappa^2$")
    left.axvline(kappa, color="0.5", lw=0.8)
left.set(xlabel=r"scale ratio $\kappa$", ylabel=f"training steps $k$ (η = {eta:.3f})", title="when")
left.legend(fontsize=8)
right.semilogx(rows[:, 0], rows[:, 3], "o-", color="C3", label="peak height above the first minimum")
right.axhline(points.B.generalization_error - points.A.generalization_error, color="0.5", ls="-.", lw=0.8,
              label=r"$L_B - L_A$ (the limit as $\kappa \to \infty$)")
right.axvline(kappa, color="0.5", lw=0.8)
right.set(xlabel=r"scale ratio $\kappa$", ylabel="test error", ylim=(0.0, None), title="how high")
right.legend(fontsize=8)
ticks = [t for t in (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000) if kappas[0] <= t <= kappas[-1]]
for axis in (left, right):
    axis.set_xticks(ticks, labels=[f"{t:g}" for t in ticks])
    axis.xaxis.set_minor_formatter(NullFormatter())
plt.show()
