"""Runs of an optimizer on a synthetic loss, recorded in the spherical quantities of Theorem 2 (Roburin et al.
2022; Roburin (thesis), Eqs 3.21-3.25).

``simulate`` runs the compiled loop of ``_kernels`` (engine "numba"; ``simulate_kernel`` specialised for the update
function that the optimizer's ``_kernel_spec`` names) or the numpy reference, optimizer step by optimizer step, with
the effective learning rate of each step from :func:`dynamics.spherical.spherical_step` (engine "numpy"). The two
agree to rounding (a test holds them to it).
"""
import math
from typing import Optional, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import require_choice, require_integer
from ._checks import UNIT_TOLERANCE, require_learning_rates, require_weight_vector
from ._geometry import _angle
from ._kernels import simulate_kernel
from ._losses import BNLinearProbe, RandomLinearLoss, RayleighLoss, WNLogistic, _Loss
from ._optimizers import SGD, AdaGrad, AdaGradG, Adam, AdamG, AdamS, _Optimizer
from ._results import Trajectory
from ._step import _decompose_rows

__all__ = ["simulate"]

ENGINES = ("numba", "numpy")
_STATUS = {1: "hypothesis (H1) 1 - A<c,u> > 0 fails (the step overshoots the origin along u); reduce learning_rate",
           2: "the weights leave float64 or reach 0; reduce learning_rate or the number of steps",
           3: "eps: the second moment is 0 with eps = 0 (0/0); use eps > 0",
           4: "x: the batch variance of S x is 0, so BatchNorm (ε = 0) is undefined",
           5: "grad_norm: a draw w_k is parallel to x, so its tangential part cannot be rescaled"}


def _record_plan(n_steps, record_every):
    if record_every is None:
        every = max(n_steps, 1)
    else:
        every = require_integer("record_every", record_every, 1)
    return every, n_steps // every + 1 + (1 if n_steps % every else 0)


def simulate(optimizer: Union[SGD, Adam, AdaGrad, AdaGradG, AdamS, AdamG],
             loss: Union[RayleighLoss, RandomLinearLoss, BNLinearProbe, WNLogistic], x0: ArrayLike, n_steps: int, *,
             record_every: Optional[int] = None, engine: str = "numba") -> Trajectory:
    """Run ``optimizer`` on ``loss`` from x0 for n_steps steps and record the spherical quantities (Theorem 2).

    Step :math:`k` uses draw :math:`k` of the loss. The optimizer's hyper-parameters are read; its state is neither
    read nor changed (each run starts from a fresh state, with SGD's ``initial_buffer`` if it has one).

    Parameters
    ----------
    optimizer : SGD, SGDMRT, Adam, AdamW, AdaGrad, AdaGradG, AdamS, AdamST, AdamSRT or AdamG
        The optimizer (a float or a schedule learning rate).
    loss : RayleighLoss, RandomLinearLoss, BNLinearProbe or WNLogistic
        The radially invariant loss.
    x0 : array_like, shape (d,)
        The initial weights, nonzero (unit norm for AdaGradG).
    n_steps : int
        Number of steps >= 0.
    record_every : int, optional
        Record the direction :math:`u_k` every this many steps (default: only the first and the last).
    engine : {"numba", "numpy"}
        The compiled loop, or the numpy reference (optimizer objects and :func:`dynamics.spherical.spherical_step`).

    Returns
    -------
    Trajectory

    Raises
    ------
    ValueError
        For bad input, or when the run breaks an assumption (H1 fails, the weights leave float64, ...): the
        message says which and at which step.

    Examples
    --------
    >>> from dynamics.spherical import SGD, RandomLinearLoss
    >>> loss = RandomLinearLoss.stream(16, grad_norm=1.0, seed=0)
    >>> run = simulate(SGD(0.1, weight_decay=0.01), loss, np.ones(16), 30000)
    >>> round(float(run.radius[-1]) ** 4, 6)    # the exact equilibrium ηG²/(λ(2−ηλ)) = 5.002501
    5.002501
    """
    if not isinstance(optimizer, _Optimizer):
        raise TypeError(f"optimizer must be one of the optimizers of dynamics.spherical, got "
                        f"{type(optimizer).__name__}")
    if not isinstance(loss, _Loss):
        raise TypeError(f"loss must be one of the losses of dynamics.spherical, got {type(loss).__name__}")
    x0 = require_weight_vector("x0", x0)
    if x0.shape != (loss.dimension,):
        raise ValueError(f"x0 must have shape ({loss.dimension},) for this loss, got {x0.shape}")
    n_steps = require_integer("n_steps", n_steps, 0)
    engine = require_choice("engine", engine, ENGINES)
    every, n_records = _record_plan(n_steps, record_every)
    if engine == "numpy":
        return _simulate_numpy(optimizer, loss, x0, n_steps, every, n_records)
    if isinstance(optimizer, AdaGradG) and abs(float(np.linalg.norm(x0)) - 1.0) > UNIT_TOLERANCE:
        raise ValueError(f"x0 must be a unit vector for AdaGradG (normalise it), got norm {np.linalg.norm(x0):.17g}")
    buffer0 = getattr(optimizer, "initial_buffer", None)
    if buffer0 is not None and buffer0.size and buffer0.shape != x0.shape:
        raise ValueError(f"initial_buffer must have the shape of x0, {x0.shape}, got {buffer0.shape}")
    update, init, hyper = optimizer._kernel_spec()
    lrs = require_learning_rates(optimizer.learning_rate, n_steps)
    loss_kind, mat, table, vec, scal, key = loss._kernel_spec()
    with np.errstate(all="ignore"):
        status, k, *arrays = simulate_kernel(update, init)(hyper, (loss_kind, mat, table, vec, scal, np.uint64(key)),
                                                           x0, lrs, every, n_records)
    if status:
        raise ValueError(f"simulate: at step {k}, {_STATUS[status]}")
    radius, effective, angle, grad_norm, values, record_steps, directions = arrays
    return Trajectory(np.arange(n_steps + 1), radius, effective, angle, grad_norm, values, record_steps, directions)


def _simulate_numpy(optimizer, loss, x0, n_steps, every, n_records):
    opt = optimizer.copy()
    opt.reset()
    radius, effective, angle = np.empty(n_steps + 1), np.empty(n_steps), np.empty(n_steps)
    grad_norm, values = np.empty(n_steps), np.empty(n_steps)
    record_steps, directions = [], []
    x = x0
    for k in range(n_steps + 1):
        r = float(np.linalg.norm(x))
        radius[k] = r
        if (k % every == 0 or k == n_steps) and len(record_steps) < n_records:
            record_steps.append(k)
            directions.append(x / r)
        if k == n_steps:
            break
        grad = loss.grad(x, k)
        values[k] = loss.value(x, k)
        grad_norm[k] = r * float(np.linalg.norm(grad))
        x_next = opt.step(x, grad)
        a, b, eta, decay = opt.last_generic_form
        b = np.array([[b]], dtype=np.float64) if np.ndim(b) == 0 else b[None, :]
        status, _, _, _, eff, _, _ = _decompose_rows(x[None, :], a[None, :], b, np.array([eta]), np.array([decay]))
        if status == 1:
            raise ValueError(f"simulate: at step {k}, {_STATUS[1]}")
        effective[k] = eff[0]
        angle[k] = _angle(x, x_next)
        x = x_next
    if not math.isfinite(radius[-1]):
        raise ValueError(f"simulate: {_STATUS[2]}")
    return Trajectory(np.arange(n_steps + 1), radius, effective, angle, grad_norm, values,
                      np.array(record_steps, dtype=np.int64), np.array(directions))
