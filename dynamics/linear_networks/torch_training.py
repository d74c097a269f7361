"""Torch simulations of the linear-network set-ups, in float64: the project's independent check of the closed forms
with a real network and a real optimizer.

* :func:`dynamics.linear_networks.torch_training.train_two_layer`: a real ``nn.Linear(N1, N2) → nn.Linear(N2, N3)``
  network (no bias, no nonlinearity) trained by full-batch gradient descent (``torch.optim.SGD`` on the whole data
  set, no momentum, no weight decay) on the loss (2.2.2), ``0.5 * sum((Y − W32 W21 X)**2)``, Eqs (2.2.3–4).
* :func:`dynamics.linear_networks.torch_training.train_students`: a batch of Advani–Saxe linear students ``w`` (one
  per instance) trained by full-batch gradient descent on ``0.5 * sum((y − w X)**2)``, the discrete form of
  Eq (2.3.5).

Time convention: step k is at flow time t = kη (``dynamics.linear_networks.gd_flow_time``). The trainers are
deterministic given their initial weights (no random draws). They take ``device`` explicitly (a string such
as ``"cpu"``/``"cuda"`` or a ``torch.device``); on CPU they run with one torch thread (the tensors are small
and thread hand-offs cost more than the arithmetic), restoring the previous setting afterwards: the device,
thread and conversion helpers are those of ``dynamics.numerics.torch_tools``.

This module imports torch; :mod:`dynamics.linear_networks` does not import it, and it registers nothing
(the verifier's cross-checks and the figures both call it).
"""
from typing import Sequence, Union

import numpy as np
import torch
from numpy.typing import ArrayLike

from dynamics.numerics import require_integer, require_output_times, require_positive
from dynamics.numerics.threads import one_thread
from dynamics.numerics.torch_tools import DTYPE, as_tensor, to_numpy, torch_device
from ._checks import require_network_data, require_one_network
from ._results import NetworkGDTrajectory, StudentGDTrajectory, StudentInstance
from ._docs import fill_doc

__all__ = ["train_two_layer", "train_students"]


@fill_doc
def train_two_layer(W21: ArrayLike, W32: ArrayLike, X: ArrayLike, Y: ArrayLike, n_steps: int, learning_rate: float,
                    record_every: int = 10, *, device: Union[str, "torch.device"] = "cpu") -> NetworkGDTrajectory:
    """Train a torch two-weight-layer linear network by full-batch gradient descent on Eq (2.2.2) of Pezeshki
    (thesis) (Saxe et al. 2014's set-up).

    Parameters
    ----------
    W21 : array_like, shape (N2, N1)
        Initial weights of ``nn.Linear(N1, N2, bias=False)``.
    W32 : array_like, shape (N3, N2)
        Initial weights of ``nn.Linear(N2, N3, bias=False)``.
    X : array_like, shape (N1, P)
        Inputs, one example per column.
    Y : array_like, shape (N3, P)
        Targets.
    n_steps : int
        Number of steps, >= 0.
    learning_rate : float
        η > 0; step k is at flow time kη.
    %(record_every)s
    %(device)s

    Returns
    -------
    NetworkGDTrajectory
        ``(steps, W21, W32)`` as numpy arrays: steps (m,), W21 (m, N2, N1), W32 (m, N3, N2).

    Raises
    ------
    ValueError
        For non-finite input, shapes that do not match (named), bad step counts or learning_rate <= 0.

    Examples
    --------
    >>> from dynamics.linear_networks import network_gd
    >>> X, Y = np.eye(2), np.diag([2.0, 1.0])
    >>> run = train_two_layer(0.1 * np.eye(2), 0.1 * np.eye(2), X, Y, 20, 0.05, record_every=10, device="cpu")
    >>> ref = network_gd(0.1 * np.eye(2), 0.1 * np.eye(2), Y @ X.T, 20, 0.05, sigma11=X @ X.T, record_every=10)
    >>> run.steps, bool(np.allclose(run.W32, ref.W32, rtol=1e-12, atol=1e-14))
    (array([ 0, 10, 20]), True)
    """
    W21, W32 = require_one_network(W21, W32)
    X, Y = require_network_data(X, Y, W21, W32)
    n_steps = require_integer("n_steps", n_steps, 0, 10**9)
    eta = require_positive("learning_rate", learning_rate)
    every = require_integer("record_every", record_every, 1, max(n_steps, 1))
    device = torch_device(device)
    first = torch.nn.Linear(W21.shape[1], W21.shape[0], bias=False).to(device, DTYPE)
    second = torch.nn.Linear(W32.shape[1], W32.shape[0], bias=False).to(device, DTYPE)
    with torch.no_grad():
        first.weight.copy_(as_tensor(W21, device))
        second.weight.copy_(as_tensor(W32, device))
    optimizer = torch.optim.SGD([first.weight, second.weight], lr=eta, momentum=0.0, weight_decay=0.0)
    inputs, targets = as_tensor(X.T, device), as_tensor(Y.T, device)  # torch is batch-first
    history21, history32 = [to_numpy(first.weight)], [to_numpy(second.weight)]
    with one_thread(numba=False):
        for k in range(1, n_steps + 1):
            optimizer.zero_grad(set_to_none=True)
            loss = 0.5 * ((targets - second(first(inputs))) ** 2).sum()
            loss.backward()
            optimizer.step()
            if k % every == 0:
                history21.append(to_numpy(first.weight))
                history32.append(to_numpy(second.weight))
    out21, out32 = np.array(history21), np.array(history32)
    if not (np.all(np.isfinite(out21[-1])) and np.all(np.isfinite(out32[-1]))):
        raise ValueError(f"gradient descent diverged: learning_rate = {eta:g} is too large for this data")
    return NetworkGDTrajectory(np.arange(0, n_steps + 1, every), out21, out32)


@fill_doc
def train_students(instances: Sequence[StudentInstance], steps: ArrayLike, learning_rate: float, *,
                   device: Union[str, "torch.device"] = "cpu") -> StudentGDTrajectory:
    """Train a batch of Advani–Saxe linear students in torch by full-batch gradient descent on
    ``0.5 * sum((y − w X)**2)`` (the discrete form of Eq 2.3.5 of Pezeshki (thesis)), one student per instance,
    batched.

    Parameters
    ----------
    instances : sequence of StudentInstance
        Problems of equal sizes N, P; each student starts at its instance's ``initial_weights``.
    steps : array_like of int, shape (m,)
        Step counts k >= 0 at which to record the weights (non-decreasing); the run lasts max(steps) steps.
    learning_rate : float
        η > 0; step k is at flow time kη.
    %(device)s

    Returns
    -------
    StudentGDTrajectory
        ``(steps, weights)`` with weights of shape (m, len(instances), N), as numpy arrays.

    Raises
    ------
    ValueError
        For an empty batch, instances of different sizes, bad steps or learning_rate <= 0.
    TypeError
        If an element of instances is not a StudentInstance.

    Examples
    --------
    >>> from dynamics.linear_networks import draw_student, student_weights_gd
    >>> batch = [draw_student(8, 12, init_std=0.3, seed=s) for s in range(2)]
    >>> run = train_students(batch, [0, 2, 5], 0.1, device="cpu")
    >>> run.weights.shape
    (3, 2, 8)
    >>> bool(np.allclose(run.weights[:, 1], student_weights_gd(batch[1], [0, 2, 5], 0.1), rtol=1e-12, atol=1e-13))
    True
    """
    instances = list(instances)
    if not instances:
        raise ValueError("instances must hold at least one StudentInstance, got none")
    for inst in instances:
        if not isinstance(inst, StudentInstance):
            raise TypeError(f"instances must hold StudentInstance objects (see draw_student), got "
                            f"{type(inst).__name__}")
    shapes = {inst.inputs.shape for inst in instances}
    if len(shapes) != 1:
        raise ValueError(f"instances must all have the same (N, P), got {sorted(shapes)}")
    k = require_output_times("steps", steps)
    if np.any(k != np.round(k)):
        raise ValueError(f"steps must be whole numbers of steps, got {k[k != np.round(k)][0]:g}")
    if k[-1] > 1e9:
        raise ValueError(f"steps must be <= 1e9, got {k[-1]:g}")
    k = k.astype(np.int64)
    eta = require_positive("learning_rate", learning_rate)
    device = torch_device(device)
    X = as_tensor(np.stack([inst.inputs for inst in instances]), device)
    y = as_tensor(np.stack([inst.labels for inst in instances]), device)[:, None, :]
    w = torch.nn.Parameter(as_tensor(np.stack([inst.initial_weights for inst in instances]), device)[:, None, :])
    optimizer = torch.optim.SGD([w], lr=eta, momentum=0.0, weight_decay=0.0)
    wanted = set(int(x) for x in k)
    recorded = {0: to_numpy(w)[:, 0]}
    with one_thread(numba=False):
        for step in range(1, int(k[-1]) + 1):
            optimizer.zero_grad(set_to_none=True)
            loss = 0.5 * ((y - torch.einsum("sin,snp->sip", w, X)) ** 2).sum()  # batched w X
            loss.backward()
            optimizer.step()
            if step in wanted:
                recorded[step] = to_numpy(w)[:, 0]
    weights = np.array([recorded[int(x)] for x in k])
    if not np.all(np.isfinite(weights[-1])):
        raise ValueError(f"gradient descent diverged: learning_rate = {eta:g} must be below 2/λ_max")
    return StudentGDTrajectory(k, weights)
