"""The experiment drivers of :mod:`dynamics.spherical` that figures, claims and notebooks share (Roburin (thesis),
Fig 3.4, Table 3.1, Eqs 3.25, 3.41-3.46).

* :func:`dynamics.spherical.optimizer_runs`: SGD, SGD + L2, SGD-M + L2, Adam and the thesis's Adam w/o (a), (ab), (abc)
  on one random linear loss with a constant gradient norm on the sphere (the effective learning rates and norms of
  Table 3.1);
* :func:`dynamics.spherical.adagradg_vs_sgd_runs`: SGD + L2, AdaGradG with the matching parameters (Theorem 4 of
  Roburin et al. 2022) and element-wise AdaGrad on BatchNorm linear probes or weight-normalised logistic probes
  (Fig 3.4 (a) and (b) in small);
* :func:`dynamics.spherical.collapse_run`: deterministic GD + L2 on a rotated Rayleigh quotient, whose norm collapses
  and bursts periodically (Lobacheva et al. 2021).
"""
import math
from typing import Dict, List, Optional, Union

import numpy as np

from dynamics.numerics import haar_orthogonal, require_choice, require_integer, require_positive, rng_from
from ._closed_forms import adagrad_matched_learning_rate, adagradg_equivalent_params
from ._losses import BNLinearProbe, RandomLinearLoss, RayleighLoss, WNLogisticProbe
from ._optimizers import SGD, AdaGrad, AdaGradG, Adam, AdamS, AdamSRT, AdamST
from ._results import AdaGradGComparison, CollapseRun, OptimizerRun, OptimizerRunsConfig
from ._simulate import simulate

__all__ = ["adagradg_vs_sgd_runs", "collapse_run", "optimizer_runs"]

NORMALIZATIONS = ("batch", "weight")


def optimizer_runs(config: OptimizerRunsConfig = OptimizerRunsConfig(),
                   seed: Optional[Union[int, np.random.Generator]] = 0) -> Dict[str, OptimizerRun]:
    r"""Seven optimizers on one random linear loss whose gradient on the sphere has the constant norm :math:`G`, all
    from :math:`x_0 = (r_0 / \sqrt{d}) \cdot \mathbf{1}` (Table 3.1, Eqs 3.25, 3.41-3.46).

    The runs, by name: ``"SGD"`` (:math:`\eta`), ``"SGD + L2"`` (:math:`\eta`, :math:`\lambda`), ``"SGD-M + L2"``
    (:math:`\eta (1 - \gamma)`, :math:`\gamma`, :math:`\lambda`: the same :math:`\eta / (1 - \gamma)`), ``"Adam"``,
    ``"Adam w/o (a)"`` (AdamS), ``"Adam w/o (ab)"`` (AdamST) with the Adam learning rate and
    :math:`\beta = (0.9, 0.999)`, and ``"Adam w/o (abc), β₁ = 0"`` (AdamSRT with :math:`\beta = (0, 0.999)`); the
    Adam family runs without weight decay and with :math:`\varepsilon = 0`.

    Parameters
    ----------
    config : OptimizerRunsConfig, optional
        The settings (:class:`dynamics.spherical.OptimizerRunsConfig`: steps, :math:`d`, :math:`G`, the learning
        rates, :math:`\lambda`, :math:`\gamma`, :math:`r_0`; ``.source()`` takes the authors' optimizer settings,
        ``.ci()`` is the figure's size). A bad field raises a ValueError naming it. Default
        ``OptimizerRunsConfig()``.
    seed : None, int >= 0 or numpy.random.Generator, optional
        Seeds the loss's stream of directions (shared by the seven runs). Default 0.

    Returns
    -------
    dict of str to OptimizerRun
        Name -> ``(optimizer, trajectory)``, in the order above.

    Examples
    --------
    >>> runs = optimizer_runs(OptimizerRunsConfig(n_steps=100, dimension=8))
    >>> list(runs)[:3]
    ['SGD', 'SGD + L2', 'SGD-M + L2']
    >>> round(float(runs["SGD"].trajectory.effective_learning_rate[0]), 6)   # η/r₀²
    0.1
    """
    if not isinstance(config, OptimizerRunsConfig):
        raise TypeError(f"config must be an OptimizerRunsConfig, got {config!r}")
    (n_steps, dimension, grad_norm, learning_rate, adam_learning_rate, weight_decay, momentum, r0) = config
    dimension = require_integer("dimension", dimension, 1, 10**7)  # float64 vectors of that size per optimizer
    r0 = require_positive("r0", r0)
    loss = RandomLinearLoss.stream(dimension, grad_norm, seed=seed)
    x0 = np.full(dimension, r0 / math.sqrt(dimension))
    optimizers = {
        "SGD": SGD(learning_rate),
        "SGD + L2": SGD(learning_rate, weight_decay=weight_decay),
        "SGD-M + L2": SGD(learning_rate * (1 - momentum), momentum, weight_decay),
        "Adam": Adam(adam_learning_rate),
        "Adam w/o (a)": AdamS(adam_learning_rate),
        "Adam w/o (ab)": AdamST(adam_learning_rate),
        "Adam w/o (abc), β₁ = 0": AdamSRT(adam_learning_rate, betas=(0.0, 0.999)),
    }
    return {name: OptimizerRun(opt, simulate(opt, loss, x0, n_steps)) for name, opt in optimizers.items()}


def adagradg_vs_sgd_runs(n_steps: int = 20_000, learning_rate: float = 1e-2, weight_decay: float = 1e-3,
                         n_groups: int = 3, dimension: int = 27, batch_size: int = 32,
                         seed: Optional[Union[int, np.random.Generator]] = 0, *,
                         normalization: str = "batch") -> List[AdaGradGComparison]:
    r"""Theorem 4 of Roburin et al. 2022 in small (thesis Fig 3.4 (a) and (b), App. C.1): per radially invariant
    group, SGD + L2, AdaGradG with the matching parameters and element-wise AdaGrad, on identical batches.

    Each group has 64 mini-batches of ``batch_size`` Gaussian inputs of dimension :math:`d` with random
    :math:`\pm 1` targets (step k uses batch k mod 64) and :math:`x_0 \sim \mathcal{N}(0, I_d)`. With
    ``normalization="batch"`` the group is a BatchNorm linear probe (:class:`dynamics.spherical.BNLinearProbe`,
    readout 2, bias 0.1; Fig 3.4 (a)); with ``"weight"`` a weight-normalised logistic probe
    (:class:`dynamics.spherical.WNLogisticProbe`, gain :math:`\gamma = 2`; Fig 3.4 (b)), which has no compiled
    kernel and runs on ``simulate``'s numpy engine (about 1 s per run of 2e4 steps). SGD + L2 runs from :math:`x_0`;
    AdaGradG with :func:`dynamics.spherical.adagradg_equivalent_params` (:math:`\eta`, :math:`\lambda`,
    :math:`\lVert x_0 \rVert`) from :math:`u_0 = x_0 / \lVert x_0 \rVert`; AdaGrad + L2 from :math:`x_0` with the
    learning rate of :func:`dynamics.spherical.adagrad_matched_learning_rate` for the first gradient
    :math:`\nabla L(x_0) + \lambda x_0`. Directions are recorded every max(n_steps // 400, 1) steps. Both kinds draw
    the same numbers from ``seed``: the inputs, the targets, then :math:`x_0`, group by group.

    Parameters
    ----------
    n_steps : int, optional
        Steps per run, >= 0. Default 20000.
    learning_rate : float, optional
        SGD's :math:`\eta > 0`. Default 1e-2 (App. C.1).
    weight_decay : float, optional
        :math:`\lambda \ge 0` with :math:`\eta\lambda < 1`. Default 1e-3 (App. C.1).
    n_groups : int, optional
        Number of groups, >= 1 (each with its own data and :math:`x_0`). Default 3.
    dimension : int, optional
        :math:`d \ge 1`. Default 27 (a 3×3×3 filter).
    batch_size : int, optional
        Samples per mini-batch, >= 2. Default 32.
    seed : None, int >= 0 or numpy.random.Generator, optional
        Seeds the data and the initial weights. Default 0.
    normalization : {"batch", "weight"}, optional
        The kind of group: BatchNorm probes (Fig 3.4 (a)) or weight-normalised probes (Fig 3.4 (b)). Default
        ``"batch"``.

    Returns
    -------
    list of AdaGradGComparison
        One ``(sgd, adagradg, adagrad)`` triple of trajectories per group.

    Examples
    --------
    >>> from dynamics.spherical import angle_between
    >>> sgd, adagradg, adagrad = adagradg_vs_sgd_runs(n_steps=200, n_groups=1)[0]
    >>> bool(angle_between(sgd.directions[-1], adagradg.directions[-1]) < 1e-9)
    True
    >>> sgd, adagradg, adagrad = adagradg_vs_sgd_runs(n_steps=200, n_groups=1, normalization="weight")[0]
    >>> bool(angle_between(sgd.directions[-1], adagradg.directions[-1]) < 1e-9)
    True
    >>> bool(angle_between(sgd.directions[-1], adagrad.directions[-1]) > 1e-3)   # AdaGrad leaves SGD at once
    True
    """
    n_steps = require_integer("n_steps", n_steps, 0)
    n_groups = require_integer("n_groups", n_groups, 1)
    normalization = require_choice("normalization", normalization, NORMALIZATIONS)
    # The weight-normalised probe has no compiled loss kernel: it runs on simulate's numpy engine.
    engine = "numba" if normalization == "batch" else "numpy"
    rng = rng_from(seed)
    out = []
    for _ in range(n_groups):
        inputs = rng.standard_normal((64, batch_size, dimension))
        targets = np.sign(rng.standard_normal((64, batch_size)))
        if normalization == "batch":
            loss = BNLinearProbe(inputs, targets, readout=2.0, bias=0.1)
        else:
            loss = WNLogisticProbe(inputs, targets, gamma=2.0)
        x0 = rng.standard_normal(dimension)
        r0 = float(np.linalg.norm(x0))
        params = adagradg_equivalent_params(learning_rate, weight_decay, r0)
        g0 = loss.grad(x0, 0) + weight_decay * x0
        matched = adagrad_matched_learning_rate(learning_rate, float(np.linalg.norm(g0)), dimension)
        every = max(n_steps // 400, 1)
        out.append(AdaGradGComparison(
            simulate(SGD(learning_rate, weight_decay=weight_decay), loss, x0, n_steps, record_every=every,
                     engine=engine),
            simulate(AdaGradG(params.learning_rate, params.beta, params.v0), loss, x0 / r0, n_steps,
                     record_every=every, engine=engine),
            simulate(AdaGrad(matched, weight_decay=weight_decay), loss, x0, n_steps, record_every=every,
                     engine=engine)))
    return out


def collapse_run(n_steps: int = 6000, dimension: int = 8, learning_rate: float = 0.1, weight_decay: float = 0.01,
                 seed: Optional[Union[int, np.random.Generator]] = 0) -> CollapseRun:
    r"""Deterministic GD + L2 on a rotated Rayleigh quotient: no fixed-point equilibrium, but collapse/burst cycles
    of the norm (Eq 3.25 with weight decay; Lobacheva et al. 2021).

    The loss is :math:`\tfrac{1}{2} x^\top H x / \lVert x \rVert^2` with
    :math:`H = Q \operatorname{diag}(0, 1/(d-1), \dots, 1) Q^\top`, :math:`Q` a Haar-random rotation, and the run
    starts from :math:`x_0 \sim \mathcal{N}(0, I_d)` (both drawn from ``seed``, in that order).

    Parameters
    ----------
    n_steps : int, optional
        Steps, >= 0. Default 6000.
    dimension : int, optional
        :math:`d \ge 1`. Default 8.
    learning_rate : float, optional
        :math:`\eta > 0`. Default 0.1.
    weight_decay : float, optional
        :math:`\lambda \ge 0` with :math:`\eta\lambda < 1`. Default 0.01.
    seed : None, int >= 0 or numpy.random.Generator, optional
        Seeds the rotation and :math:`x_0` (a Generator's stream continues). Default 0.

    Returns
    -------
    CollapseRun
        ``(loss, trajectory)``.

    Examples
    --------
    >>> loss, run = collapse_run(n_steps=3000)
    >>> round(loss.stability_threshold, 6), bool(run.effective_learning_rate.max() > loss.stability_threshold)
    (2.0, True)
    """
    dimension = require_integer("dimension", dimension, 1)
    rng = rng_from(seed)
    Q = haar_orthogonal(dimension, seed=rng)
    loss = RayleighLoss(Q @ np.diag(np.linspace(0.0, 1.0, dimension)) @ Q.T)
    return CollapseRun(loss, simulate(SGD(learning_rate, weight_decay=weight_decay), loss,
                                      rng.standard_normal(dimension), n_steps))
