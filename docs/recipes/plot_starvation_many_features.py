"""
Starvation with 3 or 5 features and your own orthogonal coupling
================================================================

You bring the strengths of your features (the singular values ``s`` of the label-signed tangent features
:math:`Y\\Phi_0 = USV^\\top`, 3, 5 or any number of them) and your own orthogonal coupling ``U`` (column ``j``: how
feature ``j`` is spread over the training examples). You get the feature responses :math:`z_j` of a linearised
network trained with cross-entropy and weight decay, where the strong feature starves the weak ones, next to those
of Spectral Decoupling, where no feature depends on another: along training, at the fixed point, and as the
strongest feature grows (Pezeshki et al. 2021; the theory note :doc:`/theory/starvation`).
"""
# %%
# Replace this with your own strengths and coupling
# -------------------------------------------------
# ``s`` are the feature strengths, not squared. ``U`` is any ``n x n`` orthogonal matrix. The stand-in is a rotation
# that tilts the strong feature 1 towards each weak feature ``j`` by its own small angle (the entries of ``delta``): the
# n-feature version of the two-feature coupling of Eq 15 (for n = 2 it is that matrix with
# :math:`\delta \to \sin\delta`). Feature 1's column is then positive on every example: it agrees with the labels
# everywhere, the case in which the theory predicts starvation. A QR of a random matrix works as well (the commented
# lines); with mixed signs in its columns some pairs starve and others help each other, which the last panel
# shows.
import matplotlib.pyplot as plt
import numpy as np
from scipy.linalg import expm

from dynamics import starvation as gs

s = np.array([6.0, 3.0, 2.0, 1.5, 1.0])  # the strongest first; try s = np.array([6.0, 2.0, 1.0]) for 3 features
n = s.size
delta = np.linspace(0.1, 0.4, n - 1)  # the tilt of feature 1 towards features 2..n, in radians
generator = np.zeros((n, n))
generator[1:, 0], generator[0, 1:] = delta, -delta
U = expm(generator)  # the exponential of a skew-symmetric matrix: a rotation
# Q, R = np.linalg.qr(np.random.default_rng(0).standard_normal((n, n)))
# U = Q * np.sign(np.diag(R))  # a random orthogonal matrix
weight_decay = 0.01  # lambda of cross-entropy + (lambda/2)|theta|^2
output_penalty = 0.01  # a of Spectral Decoupling: cross-entropy + (a/2)|y_hat|^2

print("U =\n", U.round(3))
print("orthogonal to", np.abs(U.T @ U - np.eye(n)).max())

# %%
# The fixed points
# ----------------
# Cross-entropy: the fixed point of the exact dual flow (Eq 9) by Newton's method, and the responses
# :math:`z^* = \lambda^{-1} S^2 U^\top \alpha^*` (Eq 11). Spectral Decoupling: :math:`z^* = m^* U^\top \mathbf 1`,
# with every training margin equal to :math:`m^*`, whatever the strengths.
z_ce = gs.feature_response(U, s, weight_decay)
sd = gs.sd_fixed_point(U, output_penalty)
print("feature   s     z* (cross-entropy)   z* (spectral decoupling)")
for j in range(n):
    print(f"{j + 1:>7} {s[j]:5.2f} {z_ce[j]:14.4f} {sd.z[j]:20.4f}")

# %%
# Over training
# -------------
# Full-batch gradient descent on each loss, written in the feature coordinates :math:`z = SV^\top\theta` (the
# directions ``V`` drop out), from :math:`\theta = 0`, at half the largest stable learning rate. Dashed lines: the
# fixed points above (the dual flow of Eq 9, :func:`dynamics.starvation.integrate_dual`, ends there too). The
# response axis is logarithmic above 0.01 (and linear below, so that a negative response of your own ``U`` shows):
# under cross-entropy the weaker a feature, the lower it settles (feature 5 ends near 0.2), while under Spectral
# Decoupling feature ``j`` settles at :math:`m^* \sum_i u_{ij}`, set by ``U`` alone, whatever the strengths.
n_steps = 20_000
runs = {}
for name, penalty in (("cross-entropy + weight decay", {"weight_decay": weight_decay}),
                      ("spectral decoupling", {"output_penalty": output_penalty})):
    rate = 0.5 * gs.learning_rate_bound(s, **penalty)
    runs[name] = gs.primal_gd_z(U, s, n_steps, learning_rate=rate, **penalty)
print("gradient descent after", n_steps, "steps vs Newton:",
      np.abs(runs["cross-entropy + weight decay"].z[-1] - z_ce).max())

colors = plt.cm.viridis(np.linspace(0.0, 0.85, n))
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True, layout="constrained")
for ax, (name, run), target in zip(axes, runs.items(), (z_ce, sd.z)):
    for j in range(n):
        ax.plot(run.steps[1:], run.z[1:, j], color=colors[j], label=f"feature {j + 1} ($s = {s[j]:g}$)")
        ax.axhline(target[j], color=colors[j], ls="--", lw=0.8)
    ax.set(xscale="log", xlabel="gradient-descent step", title=name)
    ax.set_yscale("symlog", linthresh=0.01)
axes[0].set_ylabel("response $z_j$")
axes[1].legend(loc="best", fontsize=8)
plt.show()

# %%
# As the strongest feature grows
# ------------------------------
# The fixed points again, now with the strength of feature 1 swept and the others kept. Under cross-entropy each
# weak response rises while feature 1 is weak, peaks, and falls as feature 1 grows further: starvation (with two
# features the peak is exactly where both are equally strong). Under Spectral Decoupling nothing moves. Right:
# which feature starves which, as the relative change :math:`(s_i^2/z_j)\,\partial z_j^*/\partial s_i^2` of
# response ``j`` when strength ``i`` grows (central differences of the cross-entropy fixed point); negative entries
# off the diagonal are starvation. Here feature 1 starves every other feature, while the weak features, coupled to
# feature 1 only, barely affect each other. Under Spectral Decoupling every entry is 0.
s1_values = np.geomspace(0.5, 12.0, 40)
swept_ce, swept_sd = [], []
for s1 in s1_values:
    strengths = np.concatenate([[s1], s[1:]])
    swept_ce.append(gs.feature_response(U, strengths, weight_decay))
    swept_sd.append(gs.sd_fixed_point(U, output_penalty).z)
swept_ce, swept_sd = np.array(swept_ce), np.array(swept_sd)
derivatives = np.array([gs.response_derivative(U, s, weight_decay, i) for i in range(n)])  # [i, j] = dz_j/ds_i^2
relative = derivatives * (s ** 2)[:, None] / z_ce[None, :]

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained",
                                  gridspec_kw={"width_ratios": [1.3, 1.0]})
for j in range(1, n):
    left.plot(s1_values, swept_ce[:, j], color=colors[j], label=f"feature {j + 1} ($s = {s[j]:g}$)")
    left.plot(s1_values, swept_sd[:, j], color=colors[j], ls=":")
left.plot([], [], color="gray", label="cross-entropy")
left.plot([], [], color="gray", ls=":", label="spectral decoupling")
left.set(xscale="log", xlabel="strength $s_1$ of feature 1", ylabel="response $z_j^*$ at the fixed point",
         title="weak features against the strong one")
left.legend(fontsize=7, loc="best")
limit = np.abs(relative).max()
image = right.imshow(relative, cmap="RdBu", vmin=-limit, vmax=limit)
for (i, j), value in np.ndenumerate(relative):
    right.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
               color="white" if abs(value) > 0.6 * limit else "black")
right.set(xticks=range(n), yticks=range(n), xticklabels=range(1, n + 1), yticklabels=range(1, n + 1),
          xlabel="response $j$", ylabel="strength $i$ that grows", title="cross-entropy: who starves whom")
fig.colorbar(image, ax=right, label=r"$(s_i^2/z_j)\,\partial z_j^*/\partial s_i^2$")
plt.show()
