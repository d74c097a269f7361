"""
The AND-mask inside your own torch training loop
================================================

You bring a torch model and training data split into environments (domains, data sources, sites); you get the
AND-mask of Parascandolo et al. (2021) in your training loop by changing one line: hand the optimizer one loss per
environment instead of their mean. Here a small network is trained with plain averaging of the environments'
gradients and with the AND-mask, and we compare their training curves, their out-of-distribution accuracy and the
weight the first layer puts on an invariant and on spurious input features.
"""
# %%
# Your data: a few environments
# -----------------------------
# Replace this with your own per-environment data: a list with one ``(inputs, labels)`` pair per environment.
# The stand-in is a binary task with six input features. Feature 0 is *invariant*: it is the label plus noise,
# with the same law in every environment. Features 1-5 are *spurious*: environment ``e`` has a strong,
# environment-specific shortcut in feature ``e`` (the label, scaled by 2, plus a little noise) and pure noise in
# the other four. A model that uses the shortcuts fits every training environment better than the invariant
# feature allows, and fails on a new environment where the shortcuts are noise.
import math

import matplotlib.pyplot as plt
import numpy as np
import torch

from dynamics import and_mask as am
from dynamics.and_mask.torch_optim import AndMask

rng = np.random.default_rng(0)
N_ENVS, N_PER_ENV, SIGNAL, SHORTCUT = 5, 200, 1.0, 2.0


def make_environment(shortcut_feature, n):
    """n examples; the shortcut sits in feature 1 + shortcut_feature (None: a new environment, no shortcut)."""
    y = rng.choice([0.0, 1.0], n)
    sign = 2.0 * y - 1.0
    invariant = SIGNAL * sign + rng.standard_normal(n)
    spurious = rng.standard_normal((n, N_ENVS))
    if shortcut_feature is not None:
        spurious[:, shortcut_feature] = SHORTCUT * sign + 0.5 * rng.standard_normal(n)
    x = np.column_stack([invariant, spurious])
    return torch.tensor(x, dtype=torch.float64), torch.tensor(y, dtype=torch.float64)


environments = [make_environment(e, N_PER_ENV) for e in range(N_ENVS)]
x_new, y_new = make_environment(None, 4000)  # an unseen environment: the shortcuts are noise there
best_new_accuracy = 0.5 * (1.0 + math.erf(SIGNAL / math.sqrt(2.0)))  # Φ(SIGNAL): the invariant feature alone

# %%
# Your model and your training loop
# ---------------------------------
# The model is an ordinary small network and the inner optimizer an ordinary ``torch.optim.Adam``. The only
# change to a standard loop is the call ``optimizer.step(env_losses)``: it takes the list of the environments'
# losses, computes each environment's gradients, keeps a parameter entry only where the environments agree on the
# sign of its gradient (all of them at ``agreement_threshold=1``), and steps Adam on the masked mean gradient.
# There is no ``backward()`` and no ``zero_grad()``. With ``agreement_threshold=0`` the same loop is plain
# training on the mean loss, our baseline. Adam's weight decay acts after the mask, so it shrinks the masked
# weights.
N_STEPS, EVERY = 400, 10


def accuracy(model, x, y):
    with torch.no_grad():
        return float(((model(x).squeeze(-1) > 0).double() == y).double().mean())


def train(agreement_threshold):
    torch.manual_seed(1)  # the same initial network for both methods
    model = torch.nn.Sequential(torch.nn.Linear(1 + N_ENVS, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1)).double()
    optimizer = AndMask(torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=1e-3),
                        agreement_threshold=agreement_threshold)
    loss_fn = torch.nn.functional.binary_cross_entropy_with_logits
    history = {"step": [], "loss": [], "train": [], "new": [], "kept": []}
    for step in range(N_STEPS + 1):
        env_losses = [loss_fn(model(x).squeeze(-1), y) for x, y in environments]
        info = optimizer.step(env_losses)
        if step % EVERY == 0:
            history["step"].append(step)
            history["loss"].append(info.mean_loss)
            history["kept"].append(info.kept_fraction)
            history["train"].append(np.mean([accuracy(model, x, y) for x, y in environments]))
            history["new"].append(accuracy(model, x_new, y_new))
    first_layer = model[0].weight.detach().numpy()  # (16 hidden units, 6 inputs)
    return history, np.linalg.norm(first_layer, axis=0)


threads = torch.get_num_threads()
torch.set_num_threads(1)  # tensors this small train fastest on one thread
runs = {"plain averaging (τ = 0)": train(0.0), "AND-mask (τ = 1)": train(1.0)}
torch.set_num_threads(threads)

for name, (history, weights) in runs.items():
    print(f"{name}: train accuracy {history['train'][-1]:.3f}, new-environment accuracy {history['new'][-1]:.3f}")

# %%
# How selective is τ = 1 with five environments? A gradient entry that is pure noise passes the mask with
# probability π₀(d, τ) (Parascandolo et al. 2021, Eq. 6), which :func:`dynamics.and_mask.keep_probability` gives
# exactly; a shortcut feature that helps one environment and is noise in the others is masked almost as often.
print(f"pure-noise keep probability at d = {N_ENVS}, τ = 1: {am.keep_probability(N_ENVS, 1.0):.4f}")
print(f"kept fraction of the network's parameters in the last AND-masked step: "
      f"{runs['AND-mask (τ = 1)'][0]['kept'][-1]:.3f}")

# %%
# Training curves and the weights on the features
# ------------------------------------------------
# Left: the mean training loss over the environments. Middle: accuracy on the training environments (dashed)
# and on the unseen environment (solid); the dotted line is the best accuracy the invariant feature allows.
# Right: the norm of the first layer's weights on each input feature at the end of training. Averaging fits the
# training environments through the shortcuts and loses accuracy on the new environment; the AND-mask keeps the
# shortcut weights small and reaches the invariant feature's accuracy on the new environment.
colors = {"plain averaging (τ = 0)": "tab:blue", "AND-mask (τ = 1)": "tab:orange"}
fig, (ax_loss, ax_acc, ax_w) = plt.subplots(1, 3, figsize=(12.0, 3.8), layout="constrained")
for name, (history, weights) in runs.items():
    ax_loss.plot(history["step"], history["loss"], color=colors[name], label=name)
    ax_acc.plot(history["step"], history["train"], "--", color=colors[name], label=f"{name}: training envs")
    ax_acc.plot(history["step"], history["new"], color=colors[name], label=f"{name}: new env")
ax_acc.axhline(best_new_accuracy, color="k", ls=":", lw=1.0, label="best with the invariant feature, Φ(1)")
ax_loss.set(xlabel="training step", ylabel="mean training loss (logistic)", title="training loss")
ax_acc.set(xlabel="training step", ylabel="accuracy", ylim=(0.45, 1.02), title="accuracy")
ax_loss.legend(fontsize=8)
ax_acc.legend(fontsize=7, loc="lower right")

features = ["invariant"] + [f"spurious {e + 1}" for e in range(N_ENVS)]
positions = np.arange(len(features))
for offset, (name, (history, weights)) in zip((-0.2, 0.2), runs.items()):
    ax_w.bar(positions + offset, weights, width=0.4, color=colors[name], label=name)
ax_w.set_xticks(positions, features, rotation=30, ha="right")
ax_w.set(ylabel="first-layer weight norm", title="weight on each input feature")
ax_w.legend(fontsize=8)
plt.show()

# %%
# To use this in your own code, keep your model, your data loaders and your optimizer: wrap the optimizer once,
# ``optimizer = AndMask(optimizer, agreement_threshold=1.0)``, and replace ``loss.backward(); optimizer.step()`` by
# ``optimizer.step(env_losses)``, with one loss per environment. For many environments (or one environment per example), a lower threshold such as τ = 0.2-0.5 keeps
# coordinates whose signal-to-noise ratio exceeds :func:`dynamics.and_mask.threshold_snr` (see the theory note,
# docs/theory/and_mask.md).
