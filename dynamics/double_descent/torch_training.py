"""Torch simulations of the double-descent set-ups (Eqs 4.2.3–4.2.4, Lemma 4.3.1, Fig 4.6 of Pezeshki (thesis)):
full-batch gradient descent of the linear student on a stack of teacher–student designs, with gradients from autograd
(an independent route to the closed forms of :mod:`dynamics.double_descent`).

Optional: this module imports torch, is not imported by :mod:`dynamics.double_descent`, registers nothing, works
in float64 and takes the device as a keyword (default ``"cpu"``; one torch thread,
:func:`dynamics.numerics.one_thread`). The cross-checks (``verify.crosscheck.double_descent``)
call it.
"""
from typing import Optional, Union

import numpy as np
import torch
from numpy.typing import ArrayLike

from dynamics.numerics import as_finite_array, require_array_in_range
from dynamics.numerics.torch_batched import MemberOptimizer
from dynamics.numerics.torch_tools import DTYPE, as_tensor, on_device, to_numpy
from ._checks import require_step_record
from ._results import WeightTrajectory
from ._docs import fill_doc

__all__ = ["train_linear_student"]


@fill_doc
@on_device
def train_linear_student(X: ArrayLike, y: ArrayLike, steps: ArrayLike, learning_rate: Union[float, ArrayLike],
                         output_penalty_schedule: Optional[ArrayLike] = None, *,
                         device: Union[str, "torch.device"] = "cpu") -> WeightTrajectory:
    """Full-batch GD of the summed loss ½Σ_μ(y^μ − x^μ·ŵ)² + (a_k/2)‖Xŵ‖² (Eq 4.2.3 as corrected, with the
    output penalty of Lemma 4.3.1 at step k) from ŵ = 0, one independent run per design, gradients by autograd.

    Parameters
    ----------
    X : array_like
        Designs, shape (S, n, d).
    y : array_like
        Labels, shape (S, n).
    steps : array_like of int
        Sorted whole steps >= 0 at which ŵ is recorded; the run lasts steps[-1] steps.
    learning_rate : float or array_like
        η > 0, one for all designs or one per design (shape (S,)).
    output_penalty_schedule : array_like, optional
        a_k >= 0 for steps 1..steps[-1] (None: no penalty).
    %(device)s

    Returns
    -------
    WeightTrajectory
        steps and weights (numpy, shape (S, len(steps), d)).

    Examples
    --------
    >>> X, y = np.array([[[1.0, 0.0], [0.0, 2.0]]]), np.array([[1.0, 2.0]])
    >>> run = train_linear_student(X, y, [0, 1, 200], 0.2, device="cpu")
    >>> run.steps.tolist(), run.weights[0, 1].round(6).tolist(), run.weights[0, -1].round(6).tolist()
    ([0, 1, 200], [0.2, 0.8], [1.0, 1.0])
    """
    X = as_finite_array("X", X, ndim=3)
    y = as_finite_array("y", y, ndim=2)
    if y.shape != X.shape[:2]:
        raise ValueError(f"y must have shape {X.shape[:2]} to match X {X.shape}, got {y.shape}")
    record = require_step_record(steps)
    eta = require_array_in_range("learning_rate", learning_rate, 0.0, np.inf, low_open=True)
    if eta.ndim > 1 or (eta.ndim == 1 and eta.shape != (X.shape[0],)):
        raise ValueError(f"learning_rate must be a scalar or have shape ({X.shape[0]},) (one per design), got "
                         f"shape {eta.shape}")
    eta = np.broadcast_to(eta, (X.shape[0],)).copy()
    n_steps = int(record[-1])
    if output_penalty_schedule is None:
        schedule = np.zeros(n_steps)
    else:
        schedule = require_array_in_range("output_penalty_schedule", output_penalty_schedule, 0.0, np.inf, ndim=1)
        if schedule.size < n_steps:
            raise ValueError(f"output_penalty_schedule must hold one value per step (at least {n_steps}), got "
                             f"{schedule.size}")
    X_t = as_tensor(X, device, name="X")
    y_t = as_tensor(y, device, name="y")
    w = torch.zeros(X.shape[0], X.shape[2], dtype=DTYPE, device=device, requires_grad=True)
    optimizer = MemberOptimizer([w], eta)  # plain GD, one learning rate per design
    out = np.empty((X.shape[0], record.size, X.shape[2]))
    r = 0
    while r < record.size and record[r] == 0:
        out[:, r] = 0.0
        r += 1
    for step in range(1, n_steps + 1):
        outputs = torch.einsum("snd,sd->sn", X_t, w)
        loss = 0.5 * ((outputs - y_t) ** 2).sum() + 0.5 * float(schedule[step - 1]) * (outputs ** 2).sum()
        optimizer.step(torch.autograd.grad(loss, w))
        while r < record.size and record[r] == step:
            out[:, r] = to_numpy(w)
            r += 1
    if not np.all(np.isfinite(out)):
        raise ValueError("the GD weights left float64: learning_rate is too large for these designs "
                         "(it must stay below 2/((1 + max a)·λ_max(XᵀX)))")
    return WeightTrajectory(record, out)
