"""Torch trainers of the AND-mask cross-checks, built on :mod:`dynamics.and_mask.torch_optim`.

* :func:`dynamics.and_mask.torch_training.train_linear_patchwork`: the authors' notebook
  (``linear_regression_ilc``): one example per environment, x_e = 3·[e_e, 0.1], ½(x·θ − 1)², lr ← 0.9995·lr before
  each of the n_iters + 1 steps, θ ← θ − lr·u, then the decoupled decay θ ← θ − wd·lr·θ; methods arithmetic mean
  (τ = 0), AND-mask (τ = 1), geometric mean (τ = 1).
* :func:`dynamics.and_mask.torch_training.train_logistic_shortcut`: the linearised memorisation task, full-batch GD
  from w = 0 on the mean logistic loss of each environment, with :class:`dynamics.and_mask.torch_optim.AndMask`
  over ``torch.optim.SGD``.
* :func:`dynamics.and_mask.torch_training.logistic_init_gradients`: the per-environment gradients at w = 0 by
  autograd (the mask density at initialisation).

Several independent problems of one shape (seeds) are trained in one torch computation: their parameters are the
rows of one tensor and their losses are summed, so each row's gradient is its own problem's, and the AND-mask acts
entry-wise (no rescaling across rows). The mask is :class:`dynamics.and_mask.torch_optim.AndMask`, which calls the
package's one torch AND-mask, :func:`dynamics.and_mask.torch_optim.and_mask_batched`. Imports torch at module level;
float64; every function takes ``device=`` keyword only, default ``"cpu"``, resolved by
``dynamics.numerics.torch_tools.on_device`` (one torch intra-op thread while it computes on the CPU).
"""
from typing import List, Optional, Sequence, Union

import numpy as np
import torch
from numpy.typing import ArrayLike

from dynamics.numerics import as_finite_array, require_choice, require_integer, require_positive
from dynamics.numerics.torch_tools import as_tensor, on_device, to_numpy
from ._checks import require_shortcut_datasets
from ._results import LinearPatchworkRun, ShortcutDataset, ShortcutRun
from ._setups import PATCHWORK_METHODS, make_notebook_patchwork
from .torch_optim import AndMask
from ._docs import fill_doc

__all__ = ["LinearPatchworkRun", "PATCHWORK_METHODS", "logistic_init_gradients", "train_linear_patchwork",
           "train_logistic_shortcut"]


@fill_doc
@on_device
def train_linear_patchwork(method: str = "and_mask", envs: Sequence[int] = (0, 1, 2, 3),
                           theta0: Optional[ArrayLike] = None, learning_rate: float = 0.3, lr_decay: float = 0.9995,
                           weight_decay: float = 0.01, n_iters: int = 1000, *,
                           device: Union[str, torch.device] = "cpu") -> LinearPatchworkRun:
    """The authors' linear-regression patchwork (their notebook ``linear_regression_ilc``), trained with the torch
    AND-mask.

    Parameters
    ----------
    method : {"arithmetic", "and_mask", "geom_mean"}, default "and_mask"
    envs : sequence of int, default (0, 1, 2, 3)
        The training environments (the others are held out).
    theta0 : array_like, shape (5,) or (n_runs, 5), optional
        Initial points (default 0; the notebook draws 0.1·N(0, I)).
    learning_rate : float, default 0.3
        lr₀ > 0.
    lr_decay : float, default 0.9995
        Multiplies the learning rate before every step.
    weight_decay : float, default 0.01
        wd >= 0 of the decoupled decay θ ← θ − wd·lr·θ after each step.
    n_iters : int, default 1000
        The notebook's loop runs i = 0..n_iters (n_iters + 1 steps).
    %(device)s

    Returns
    -------
    LinearPatchworkRun

    Examples
    --------
    >>> run = train_linear_patchwork("and_mask", envs=(0, 1), device="cpu")
    >>> run.theta.round(4).tolist()  # private weights stay 0; the shared weight goes to ≈ 3
    [[0.0, 0.0, 0.0, 0.0, 2.9994]]
    """
    agreement_threshold, geom = PATCHWORK_METHODS[require_choice("method", method, tuple(PATCHWORK_METHODS))]
    train = sorted({require_integer("envs", e, 0, 3) for e in envs})
    if not train:
        raise ValueError("envs must name at least 1 environment of 0..3")
    heldout = [e for e in range(4) if e not in train]
    eta = require_positive("learning_rate", learning_rate)
    decay = require_positive("lr_decay", lr_decay)
    wd = require_positive("weight_decay", weight_decay, allow_zero=True)
    n_iters = require_integer("n_iters", n_iters, 0)
    start = np.zeros((1, 5)) if theta0 is None else as_finite_array("theta0", theta0)
    start = start.reshape(1, 5) if start.shape == (5,) else start
    if start.ndim != 2 or start.shape[1] != 5:
        raise ValueError(f"theta0 must have shape (5,) or (n_runs, 5), got {np.shape(theta0)}")
    data = make_notebook_patchwork()
    x = as_tensor(data.inputs, device)
    y = as_tensor(data.targets, device)
    theta = as_tensor(start, device).clone().requires_grad_(True)
    sgd = torch.optim.SGD([theta], lr=eta)
    masker = AndMask(sgd, agreement_threshold, geom_mean=geom)
    rates = np.empty(n_iters + 1)
    lr = eta
    for i in range(n_iters + 1):
        lr *= decay
        rates[i] = lr
        sgd.param_groups[0]["lr"] = lr
        masker.step([0.5 * ((theta @ x[e] - y[e]) ** 2).sum() for e in train])
        with torch.no_grad():
            theta.mul_(1.0 - wd * lr)
    with torch.no_grad():
        losses = to_numpy(0.5 * (theta @ x.T - y) ** 2)  # (n_runs, 4)
    final = to_numpy(theta)
    return LinearPatchworkRun(final, losses[:, train].mean(axis=1),
                              losses[:, heldout].mean(axis=1) if heldout else None, rates)


def _env_loss(weights, inputs, labels):
    """One environment's mean logistic loss, summed over the stacked problems (inputs (S, n, f), labels (S, n))."""
    margins = labels * torch.einsum("snf,sf->sn", inputs, weights)
    return torch.nn.functional.softplus(-margins).mean(dim=1).sum()


def _env_losses(weights, inputs, labels):
    """A list of the n_envs environment losses, each with its own graph."""
    return [_env_loss(weights, inputs[:, e], labels[:, e]) for e in range(inputs.shape[1])]


def _env_gradients(weights, inputs, labels):
    """All environments' gradients by one backward pass, shape (n_envs, S, f): each environment sees its own copy
    of the weights (a leaf of shape (n_envs, S, f)), so the gradient of the summed losses with respect to copy e is
    environment e's gradient (the per-example-gradient trick; cheaper on CPU than torch.func.vmap here)."""
    with torch.enable_grad():
        copies = weights.detach().unsqueeze(0).expand(inputs.shape[1], -1, -1).clone().requires_grad_(True)
        margins = labels * torch.einsum("senf,esf->sen", inputs, copies)
        total = torch.nn.functional.softplus(-margins).mean(dim=2).sum()
        return torch.autograd.grad(total, copies)[0]


@fill_doc
@on_device
def logistic_init_gradients(datasets: Union[ShortcutDataset, Sequence[ShortcutDataset]], *,
                            device: Union[str, torch.device] = "cpu") -> np.ndarray:
    """Per-environment gradients of the mean logistic loss of the logistic shortcut task at w = 0, by autograd.

    Parameters
    ----------
    datasets : ShortcutDataset or sequence of them (one shape)
        From :func:`dynamics.and_mask.make_logistic_shortcut`.
    %(device)s

    Returns
    -------
    ndarray, shape (n_datasets, n_envs, 1 + dim_shortcut)

    Examples
    --------
    >>> from dynamics.and_mask import make_logistic_shortcut
    >>> data = make_logistic_shortcut(n_envs=2, n_samples_per_env=4, dim_shortcut=2, seed=0)
    >>> g = logistic_init_gradients(data, device="cpu")[0]
    >>> shortcut = data.train_inputs[:, 0, 1:] * data.train_labels[:, :1]  # s_e
    >>> bool(np.allclose(g[:, 1:], -shortcut / 2))  # at w = 0 the shortcut gradient is -s_e/2
    True
    """
    datasets = require_shortcut_datasets(datasets)
    inputs = as_tensor(np.stack([d.train_inputs for d in datasets]), device)
    labels = as_tensor(np.stack([d.train_labels for d in datasets]), device)
    weights = torch.zeros(inputs.shape[0], inputs.shape[3], dtype=torch.float64, device=device, requires_grad=True)
    losses = _env_losses(weights, inputs, labels)
    grads = [torch.autograd.grad(loss, weights, retain_graph=True)[0] for loss in losses]
    return to_numpy(torch.stack(grads, dim=1))


@fill_doc
@on_device
def train_logistic_shortcut(datasets: Union[ShortcutDataset, Sequence[ShortcutDataset]], agreement_threshold: float,
                            learning_rate: float = 0.5, n_steps: int = 500, rescale: bool = False, *,
                            device: Union[str, torch.device] = "cpu") -> List[ShortcutRun]:
    """Full-batch AND-masked GD (torch SGD + :class:`dynamics.and_mask.torch_optim.AndMask`) on the logistic shortcut
    task, w₀ = 0.

    Parameters
    ----------
    datasets : ShortcutDataset or sequence of them (one shape)
        Trained side by side (independent problems).
    agreement_threshold : float
        Agreement threshold τ in [0, 1] (0: plain averaging).
    learning_rate : float, default 0.5
        Step size η > 0.
    %(n_steps)s
    rescale : bool, default False
        Inverse-sparsity rescaling (applied over all problems' entries together; leave False when training
        several problems at once).
    %(device)s

    Returns
    -------
    list of ShortcutRun
        One per dataset.

    Examples
    --------
    >>> from dynamics.and_mask import make_logistic_shortcut
    >>> data = make_logistic_shortcut(n_envs=8, n_samples_per_env=64, dim_shortcut=8, seed=1)
    >>> run = train_logistic_shortcut(data, 1.0, n_steps=50, device="cpu")[0]
    >>> run.test_accuracy > 0.7
    True
    """
    datasets = require_shortcut_datasets(datasets)
    eta = require_positive("learning_rate", learning_rate)
    n_steps = require_integer("n_steps", n_steps, 0)
    inputs = as_tensor(np.stack([d.train_inputs for d in datasets]), device)
    labels = as_tensor(np.stack([d.train_labels for d in datasets]), device)
    weights = torch.zeros(inputs.shape[0], inputs.shape[3], dtype=torch.float64, device=device, requires_grad=True)
    masker = AndMask(torch.optim.SGD([weights], lr=eta), agreement_threshold, rescale=rescale)
    initial_mask = None
    for _ in range(n_steps):
        with torch.no_grad():
            grads = _env_gradients(weights, inputs, labels)
        info = masker.step_from_gradients([grads])
        if initial_mask is None:
            initial_mask = to_numpy(info.masks[0])
    if initial_mask is None:
        with torch.no_grad():
            initial_mask = to_numpy(masker.masked_from_gradients([_env_gradients(weights, inputs, labels)]).masks[0])
    final = to_numpy(weights)
    runs = []
    for i, data in enumerate(datasets):
        w = final[i]
        flat = data.train_inputs.reshape(-1, data.train_inputs.shape[2])
        runs.append(ShortcutRun(w, float(np.mean((flat @ w > 0) == (data.train_labels.reshape(-1) > 0))),
                                float(np.mean((data.test_inputs @ w > 0) == (data.test_labels > 0))),
                                float(np.mean((data.shortcut_test_inputs @ w > 0) == (data.test_labels > 0))),
                                initial_mask[i]))
    return runs
