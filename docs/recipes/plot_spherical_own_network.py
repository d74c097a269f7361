"""
The per-filter effective learning rate of your own Adam-trained BatchNorm network
==================================================================================

You bring a network whose convolution (or linear) layers are followed by BatchNorm, and the optimizer that trains it.
After every ``optimizer.step()``, :func:`dynamics.spherical.torch_state.effective_learning_rates` reads from the
optimizer's state how far each filter's *direction* moved: its effective learning rate on the unit sphere
(Roburin et al. 2022, Theorem 2). You get one number per filter and per step, to compare across layers, across
optimizers and over training. Here a small BatchNorm CNN is trained with Adam, and with SGD for contrast. The theory
note :doc:`/theory/spherical` states the equations.
"""
# %%
# Replace this with your own data and network
# --------------------------------------------
# The stand-in data are random 3×12×12 images labelled by a random linear teacher on their average-pooled pixels. The
# network has two convolutions without bias, each followed by ``BatchNorm2d``: every filter (one output channel,
# ``C × 3 × 3`` weights) is then *radially invariant*, the loss does not change when the filter is rescaled, so only
# its direction :math:`u = x/\|x\|` matters. ``make_network`` builds the same initial network for every optimizer.
import matplotlib.pyplot as plt
from matplotlib.ticker import NullFormatter
import numpy as np
import torch

from dynamics.spherical.torch_state import effective_learning_rates

torch.set_num_threads(1)
generator = torch.Generator().manual_seed(0)
images = torch.randn(1024, 3, 12, 12, generator=generator)
teacher = torch.randn(3 * 4, 4, generator=generator)
labels = (torch.nn.functional.adaptive_avg_pool2d(images, 2).flatten(1) @ teacher).argmax(dim=1)


def make_network():
    torch.manual_seed(1)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1, bias=False), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
        torch.nn.Conv2d(16, 32, 3, padding=1, bias=False), torch.nn.BatchNorm2d(32), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(32, 4))


# %%
# Read the effective learning rates during training
# -------------------------------------------------
# Call :func:`~dynamics.spherical.torch_state.effective_learning_rates` right after ``optimizer.step()`` (before
# ``zero_grad()`` and before a learning-rate scheduler's ``step()``), with the layers whose filters are radially
# invariant. It writes the last step of each filter :math:`x_k` in the generic form
# :math:`x_{k+1} = x_k - \eta\, a_k \oslash b_k` from the optimizer's state (the momentum buffer of SGD; the two
# moments of Adam) and decomposes it on the sphere (:func:`dynamics.spherical.spherical_step_batch`):
# :math:`\eta^e_k = A_k/(1 - A_k\langle c_k, u_k\rangle)` with :math:`A_k = \eta/(r_k^2 d^{-1/2}\|b_k\|)`. For SGD
# without momentum this is :math:`\eta/((1-\eta\lambda)\, r_k^2)`; for Adam, :math:`A_k = \eta/(r_k \nu_k)` with
# :math:`\nu_k` Adam's second moment seen on the sphere. BatchNorm's :math:`\epsilon = 10^{-5}` makes the invariance
# approximate; the decomposition of the step itself is exact.
n_steps, batch_size = 300, 64
layers_of = lambda network: {"conv1": network[0], "conv2": network[3]}  # noqa: E731


def train(make_optimizer):
    network = make_network()
    optimizer = make_optimizer(network.parameters())
    order = torch.Generator().manual_seed(2)
    rates, angles, radii, losses = [], [], [], []
    for _ in range(n_steps):
        batch = torch.randint(0, images.shape[0], (batch_size,), generator=order)
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(network(images[batch]), labels[batch])
        loss.backward()
        optimizer.step()
        result = effective_learning_rates(optimizer, layers_of(network))
        rates.append(result.effective_learning_rate)
        angles.append(result.angle)
        radii.append(result.radius)
        losses.append(float(loss.detach()))
    return result.layer, np.array(rates), np.array(angles), np.array(radii), np.array(losses)


runs = {
    "Adam (η = 1e-3)": train(lambda params: torch.optim.Adam(params, lr=1e-3)),
    "SGD-M (η = 0.05, γ = 0.9, λ = 5e-4)": train(
        lambda params: torch.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=5e-4)),
}
for name, (layer, rates, angles, radii, losses) in runs.items():
    print(f"{name}: loss {losses[:20].mean():.3f} -> {losses[-20:].mean():.3f}; median effective learning rate at "
          f"the last step: conv1 {np.median(rates[-1, layer == 0]):.2e}, conv2 {np.median(rates[-1, layer == 1]):.2e}")

# %%
# How the effective learning rates evolve, layer by layer
# -------------------------------------------------------
# Top: the effective learning rate :math:`\eta^e_k`; bottom: the angle through which the step turns each filter,
# :math:`\arctan(\eta^e_k\|c_k^\perp\|)`, the effective learning rate times the gradient seen on the sphere. Lines:
# the median over the filters of each layer; bands: from the 10th to the 90th percentile. SGD's rate is
# :math:`\eta/r_k^2` to within the momentum's radial correction, so it changes only as the norms do: slowly, here,
# since each step adds to the norm (Pythagorean growth) while the weight decay takes from it. Adam's starts high
# and falls over its first tens of steps, as its second moment on the sphere :math:`\nu_k` fills up (with the bias
# corrections), and it differs between layers, whose filters have different sizes :math:`d` and gradients.
steps = np.arange(1, n_steps + 1)
colors = {"conv1": "tab:blue", "conv2": "tab:orange"}
fig, axes = plt.subplots(2, 2, figsize=(10.0, 6.4), layout="constrained", sharex=True, sharey="row")
for column, (name, (layer, rates, angles, radii, losses)) in enumerate(runs.items()):
    for row, values_of_run in enumerate((rates, angles)):
        ax = axes[row, column]
        for index, (layer_name, color) in enumerate(colors.items()):
            values = values_of_run[:, layer == index]
            low, median, high = np.percentile(values, [10, 50, 90], axis=1)
            ax.fill_between(steps, low, high, color=color, alpha=0.25, lw=0)
            ax.plot(steps, median, color=color, label=f"{layer_name} ({values.shape[1]} filters)")
        ax.set(xscale="log", yscale="log")
    axes[0, column].set_title(name)
    axes[1, column].set_xlabel("step k")
axes[0, 0].set_ylabel(r"effective learning rate $\eta^e_k$")
axes[1, 0].set_ylabel("angle turned by the step (rad)")
axes[0, 0].legend(loc="lower left")
plt.show()

# %%
# Their distribution at the end of training
# -----------------------------------------
# Histograms of the filters' effective learning rates at the last step, per layer: each filter has its own rate,
# set by its own norm (and, for Adam, its own second moment).
fig, axes = plt.subplots(1, 2, figsize=(10.0, 3.4), layout="constrained")
for ax, (name, (layer, rates, angles, radii, losses)) in zip(axes, runs.items()):
    bins = np.geomspace(rates[-1].min() / 1.2, rates[-1].max() * 1.2, 25)
    for index, (layer_name, color) in enumerate(colors.items()):
        ax.hist(rates[-1, layer == index], bins=bins, color=color, alpha=0.6, label=layer_name)
    ax.set(xscale="log", xlabel=r"effective learning rate $\eta^e$ at the last step", ylabel="number of filters",
           title=name)
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.legend()
plt.show()

# %%
# What sets each filter's rate: its norm for SGD, its second moment for Adam
# --------------------------------------------------------------------------
# Each line is one filter over the run, in the plane of its norm :math:`r_k = \|x_k\|` and its effective learning
# rate. SGD's filters all lie on :math:`\eta/((1-\eta\lambda) r^2)` (dashed; Roburin et al. 2022, Table 3.1), the
# momentum moving them off it only slightly: for SGD the norm *is* the learning-rate schedule. Adam's filters move
# almost vertically: at this learning rate their norms hardly change, and the rate :math:`\eta/(r_k\nu_k)` is set
# by the second moment :math:`\nu_k`.
fig, axes = plt.subplots(1, 2, figsize=(10.0, 3.8), layout="constrained")
for ax, (name, (layer, rates, angles, radii, losses)) in zip(axes, runs.items()):
    for j in range(rates.shape[1]):
        ax.plot(radii[:, j], rates[:, j], color=list(colors.values())[layer[j]], lw=1.2, alpha=0.6)
    for layer_name, color in colors.items():
        ax.plot([], [], color=color, label=layer_name)
    ax.set(xscale="log", yscale="log", xlabel=r"filter norm $r_k = \|x_k\|$",
           ylabel=r"effective learning rate $\eta^e_k$", title=name)
r = np.geomspace(runs["SGD-M (η = 0.05, γ = 0.9, λ = 5e-4)"][3].min(),
                 runs["SGD-M (η = 0.05, γ = 0.9, λ = 5e-4)"][3].max(), 50)
axes[1].plot(r, 0.05 / ((1 - 0.05 * 5e-4) * r ** 2), color="k", ls=(0, (2, 4)), lw=0.8, zorder=3,
             label=r"$\eta/((1-\eta\lambda)r^2)$")
for ax in axes:
    ax.legend(loc="lower left", fontsize=8)
plt.show()
