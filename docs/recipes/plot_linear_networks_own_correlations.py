"""
Mode curves from your own input–output correlation matrix
=========================================================

You bring a data set: inputs ``X`` (one example per column) and targets ``Y``. You get, for every singular value
:math:`s_\\alpha` of its input–output correlation :math:`\\Sigma_{31} = Y X^\\top`, the sigmoid along which a
two-weight-layer linear network learns that mode from a small decoupled start (Saxe et al. 2014; Pezeshki (thesis),
Eq 2.2.22), next to the mode strengths of the same network trained by gradient descent on your data. The theory note
:doc:`/theory/linear_networks` states the equations.
"""
# %%
# Replace this with your own data
# -------------------------------
# ``X`` is ``N1 x P`` (inputs in rows, examples in columns) and ``Y`` is ``N3 x P``. The stand-in is a noisy linear
# map of random inputs, with some input directions weighted more than others. The closed form assumes whitened
# inputs, :math:`XX^\top = I` with the *sum* over examples, so the inputs are whitened first
# (:func:`dynamics.linear_networks.whiten`); the network below is trained on the whitened inputs, which leaves the
# input–output maps it can represent unchanged.
import matplotlib.pyplot as plt
import numpy as np

from dynamics import linear_networks as ln

rng = np.random.default_rng(3)
n_features, n_outputs, n_samples = 8, 5, 200
X_raw = rng.standard_normal((n_features, n_samples))
teacher = rng.standard_normal((n_outputs, n_features)) * np.geomspace(1.0, 0.15, n_features) / np.sqrt(n_samples)
Y = teacher @ X_raw + 0.02 * rng.standard_normal((n_outputs, n_samples))

X = ln.whiten(X_raw)  # X X^T = I
print("X X^T = I to", np.abs(X @ X.T - np.eye(n_features)).max())

# %%
# The correlation and its reduced SVD
# -----------------------------------
# :math:`\Sigma_{31} = Y X^\top = U S V^\top`. The reduced SVD keeps :math:`k = \min(N_1, N_3)` modes:
# ``U`` is ``N3 x k`` and ``V = Vh.T`` is ``N1 x k``, both with orthonormal columns. The library's
# :func:`dynamics.linear_networks.decoupled_init`, :func:`dynamics.linear_networks.mode_map` and
# :func:`dynamics.linear_networks.mode_strengths` take these factors as they are (or those of a full SVD).
sigma31 = Y @ X.T
U, s, Vh = np.linalg.svd(sigma31, full_matrices=False)
V = Vh.T
print("U", U.shape, " V", V.shape)
print("singular values s:", np.round(s, 3))

# %%
# The prediction
# --------------
# From a balanced decoupled start of per-layer weight :math:`a_0` in every mode, mode :math:`\alpha` has strength
# :math:`u_0 = a_0^2` and follows :math:`u(t) = s e^{2st/\tau} / (e^{2st/\tau} - 1 + s/u_0)`
# (:func:`dynamics.linear_networks.mode_strength`); it reaches :math:`s/2` at the half-learning time
# :math:`(\tau/2s)\ln(s/u_0 - 1)` (:func:`dynamics.linear_networks.half_learning_time`). Time is in units of
# :math:`\tau`.
a0 = 1e-2
u0 = a0 ** 2
t_half = ln.half_learning_time(s, u0)
t_end = 1.6 * t_half.max()
t = np.linspace(0.0, t_end, 400)
predicted = ln.mode_strength(t[:, None], s[None, :], u0)
for s_alpha, th in zip(s, t_half):
    print(f"s = {s_alpha:6.3f}: half-learning time {th:6.2f} tau")

# %%
# The training
# ------------
# A network ``N1 -> N2 -> N3`` starts on the decoupled manifold (:func:`dynamics.linear_networks.decoupled_init`:
# ``W21 = R diag(a0) V^T``, ``W32 = U diag(a0) R^T`` with a random orthonormal ``R``) and takes full-batch
# gradient-descent steps on :math:`\tfrac12\|Y - W_{32}W_{21}X\|_F^2`
# (:func:`dynamics.linear_networks.network_gd`, which needs only :math:`\Sigma_{31}` and
# :math:`\Sigma_{11} = XX^\top`). Step :math:`k` is at :math:`t/\tau = k\eta`
# (:func:`dynamics.linear_networks.gd_flow_time`; a loss scaled by :math:`c`, such as torch's mean squared error,
# is ``loss_scale=c``). The measured mode strengths are the diagonal of :math:`U^\top W_{32} W_{21} V`
# (:func:`dynamics.linear_networks.mode_strengths`, with the reduced factors).
n_hidden = 16
W21, W32 = ln.decoupled_init(U, V, n_hidden=n_hidden, a0=a0, seed=1)
learning_rate = 0.01 / s.max()  # small against 1/s_max: GD then tracks the flow to O(learning_rate * s_max)
n_steps = int(np.ceil(t_end / learning_rate))
run = ln.network_gd(W21, W32, sigma31, n_steps, learning_rate, sigma11=X @ X.T, record_every=max(n_steps // 100, 1))
t_gd = ln.gd_flow_time(run.steps, learning_rate)
measured = ln.mode_strengths(run.W21, run.W32, U, V)
gap = np.abs(measured - ln.mode_strength(t_gd[:, None], s[None, :], u0)).max() / s.max()
print(f"{n_steps} steps of size {learning_rate:.2e}; largest |measured - predicted| / s_max = {gap:.1e}")

# %%
# Predicted sigmoids and measured mode strengths
# ----------------------------------------------
# Lines: the closed form; circles: gradient descent; crosses: the predicted half-learning times. Larger singular
# values are learned first, each along its own sigmoid, independently of the others, because the start is decoupled.
# From a small *random* start the modes follow the same sigmoids with a slightly later start: predict their
# half-times with :func:`dynamics.linear_networks.effective_initial_strength` in place of ``u0``.
colors = plt.cm.viridis(np.linspace(0.0, 0.85, s.size))
fig, ax = plt.subplots(figsize=(7.0, 4.0), layout="constrained")
for k, color in enumerate(colors):
    ax.plot(t, predicted[:, k], color=color, label=f"$s_{k + 1} = {s[k]:.2f}$")
    ax.plot(t_gd, measured[:, k], "o", color=color, ms=3.5, mfc="none")
    ax.plot([t_half[k]], [s[k] / 2], "x", color=color, ms=6)
ax.plot([], [], "k-", label="closed form, Eq 2.2.22")
ax.plot([], [], "ko", ms=3.5, mfc="none", label="gradient descent")
ax.plot([], [], "kx", ms=6, label="half-learning time")
ax.set(xlabel=r"time $t/\tau = k\eta$", ylabel=r"mode strength $u_\alpha = (U^\top W_{32} W_{21} V)_{\alpha\alpha}$",
       xlim=(0.0, t_end), ylim=(0.0, 1.08 * s.max()),
       title=f"{n_features} → {n_hidden} → {n_outputs} linear network, $u_0 = {u0:g}$")
ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=9)
plt.show()
