"""The spherical view of learning with normalisation layers (Roburin et al. 2022, Neurocomputing; Roburin (thesis),
Chapter 3 and its appendices).

A group of radially invariant weights x (a filter followed by BatchNorm, ...) is seen as a radius r = ‖x‖ and
a direction u = x/r on the sphere S_{d−1}:

* Lemma 1 (Eq 3.2): ⟨∇L(x), x⟩ = 0 and ∇L(x) = ρ∇L(ρx), which the synthetic radially invariant losses
  (:class:`dynamics.spherical.RayleighLoss`, :class:`dynamics.spherical.RandomLinearLoss`,
  :class:`dynamics.spherical.BNLinearProbe`, :class:`dynamics.spherical.WNLogistic`) satisfy exactly;
* Theorem 2 (Eqs 3.21-3.35): one step of any scheme x_{k+1} = x_k − η_k a_k ⊘ b_k is a step on the sphere with
  the effective learning rate η_k^e = A_k/(1 − A_k⟨c_k,u_k⟩) — :func:`dynamics.spherical.spherical_step`, and
  :func:`dynamics.spherical.spherical_step_batch` for many filters at once;
* Table 3.1, Eq 3.42: the effective learning rates of SGD(-M)(+L2), Adam(+L2), AdamW, AdaGradG;
* Eq 3.44 and its momentum version: L2 ≡ an exponential learning-rate schedule;
* Eqs 3.46-3.48 and Theorem 4: Pythagorean growth, the order-2 radius and the AdaGradG equivalence;
* bounds and equilibria derived in this project: the λ = 0 SGD bounds (Arora et al.'s k^{−1/2} rate), the SGD + L2
  equilibrium with its invariant interval and relaxation, the random-walk equilibrium of SGD-M + L2 and its
  relaxation, the collapse of GD with weight decay, and the radius law of Adam w/o (abc) (see the theory note,
  docs/theory/spherical.md);
* the optimizers SGD, SGD-M, Adam, AdamW, AdaGrad, AdaGradG, AdamG and the thesis's Adam w/o (a), (ab), (abc) (AdamS,
  AdamST, AdamSRT, Eqs 3.56-3.81), on numpy vectors, and :func:`dynamics.spherical.simulate`, a compiled loop that runs
  them on the synthetic losses;
* the experiment drivers that the figures, claims and notebook share (:func:`dynamics.spherical.optimizer_runs`,
  :func:`dynamics.spherical.adagradg_vs_sgd_runs`, :func:`dynamics.spherical.collapse_run`);
* the configurations of the experiments (frozen NamedTuples, each with ``source()``, the source's settings, and
  ``ci()``, the size of the project's claims): :class:`dynamics.spherical.OptimizerRunsConfig` and, for the torch
  layer, :class:`dynamics.spherical.AdamVariantsConfig`, :class:`dynamics.spherical.AdaGradGVsSGDM2Config`,
  :class:`dynamics.spherical.AdamVariantsM2Config`, :class:`dynamics.spherical.EquilibriumStatisticsConfig`.

The optional torch layer is not imported here: :mod:`dynamics.spherical.torch_optim` (torch.optim versions of the
Adam variants and AdaGradG), :mod:`dynamics.spherical.torch_state` (the per-filter effective learning rates of a
torch optimizer's last step), :mod:`dynamics.spherical.torch_models` (the BatchNorm networks with ε = 0 of the
cross-checks and experiments), :mod:`dynamics.spherical.torch_training` (the cross-checks' data and training loops)
and :mod:`dynamics.spherical.torch_experiments` (the Adam-variants experiment in miniature).

Examples
--------
>>> import numpy as np
>>> from dynamics import spherical as sph
>>> # Spherical view: SGD + L2 on a scale-invariant loss settles at the closed-form equilibrium radius
>>> run = sph.simulate(sph.SGD(0.1, weight_decay=1e-3), sph.RandomLinearLoss.stream(16, 1.0, seed=0),
...                    np.full(16, 0.25), 20000)
>>> eq = sph.sgd_l2_equilibrium(0.1, 1e-3, 1.0)
>>> round(float(run.radius[-1]), 2), round(eq.radius_fourth_power ** 0.25, 2)
(2.66, 2.66)
"""
from ._closed_forms import (adagrad_matched_learning_rate, adagradg_equivalent_params, adam_nu, adam_nu_R,
                            adam_srt_radius, adam_srt_radius_law, effective_lr_bounds_sgd, exponential_lr_schedule,
                            li_arora_equivalent, sgd_effective_lr, sgd_l2_collapse_radius, sgd_l2_equilibrium,
                            sgd_l2_invariant_interval, sgd_l2_radius_map, sgd_l2_relaxation, sgd_l2_relaxation_law,
                            sgd_lambda0_sandwich, sgd_order2_radius4, sgd_radius_sequence, sgdm_l2_equilibrium,
                            sgdm_l2_relaxation, sgdm_l2_relaxation_steps)
from ._geometry import (angle_between, exp_map, parallel_transport, rescale_R, tangential, transport_RT,
                        transport_T)
from ._losses import BNLinearProbe, RandomLinearLoss, RayleighLoss, WNLogistic, WNLogisticProbe
from ._optimizers import SGD, SGDM, SGDMRT, AdaGrad, AdaGradG, Adam, AdamG, AdamS, AdamSRT, AdamST, AdamW
from ._results import (AdaGradGComparison, AdaGradGParameters, AdaGradGVsSGDM2Config, AdamVariantsConfig,
                       AdamVariantsM2Config, CollapseRun, EffectiveLRBounds, Equilibrium, EquilibriumStatisticsConfig,
                       GenericForm, GeometricSchedule, InvariantInterval, LiAroraEquivalent, OptimizerRun,
                       OptimizerRunsConfig, RadiusLaw, RadiusSandwich, SphericalStep, SphericalStepBatch, Trajectory)
from ._setups import adagradg_vs_sgd_runs, collapse_run, optimizer_runs
from ._simulate import simulate
from ._step import spherical_step, spherical_step_batch

__all__ = [
    # Theorem 2 and the geometry of the sphere
    "SphericalStep", "spherical_step", "SphericalStepBatch", "spherical_step_batch", "angle_between", "tangential",
    "exp_map", "parallel_transport", "transport_T", "rescale_R", "transport_RT",
    # closed forms: effective learning rates, bounds, equilibria, radius dynamics, equivalences
    "sgd_effective_lr", "Equilibrium", "sgd_l2_equilibrium", "sgdm_l2_equilibrium", "sgdm_l2_relaxation_steps",
    "sgdm_l2_relaxation", "EffectiveLRBounds", "effective_lr_bounds_sgd", "RadiusSandwich", "sgd_lambda0_sandwich",
    "sgd_radius_sequence", "sgd_l2_radius_map", "InvariantInterval", "sgd_l2_invariant_interval",
    "sgd_l2_relaxation", "RadiusLaw", "sgd_l2_relaxation_law", "sgd_l2_collapse_radius", "sgd_order2_radius4",
    "adam_srt_radius", "adam_srt_radius_law", "AdaGradGParameters", "adagradg_equivalent_params",
    "adagrad_matched_learning_rate", "GeometricSchedule", "exponential_lr_schedule", "LiAroraEquivalent",
    "li_arora_equivalent", "adam_nu", "adam_nu_R",
    # optimizers and runs
    "GenericForm", "SGD", "SGDM", "SGDMRT", "Adam", "AdamW", "AdaGrad", "AdaGradG", "AdamS", "AdamST", "AdamSRT",
    "AdamG", "Trajectory", "simulate",
    # synthetic radially invariant losses
    "RayleighLoss", "RandomLinearLoss", "BNLinearProbe", "WNLogistic", "WNLogisticProbe",
    # experiment drivers
    "OptimizerRunsConfig", "OptimizerRun", "optimizer_runs", "AdaGradGComparison", "adagradg_vs_sgd_runs",
    "CollapseRun", "collapse_run",
    # configurations of the torch layer's experiments and cross-checks (the trainers import torch; these do not)
    "AdamVariantsConfig", "AdaGradGVsSGDM2Config", "AdamVariantsM2Config", "EquilibriumStatisticsConfig",
]
