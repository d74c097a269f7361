"""The AND-mask and Invariant Learning Consistency (Parascandolo et al. 2021, "Learning explanations that are hard
to vary", ICLR 2021, arXiv:2009.00329). The theory note, docs/theory/and_mask.md, states every formula and its
source.

* The mask (§2.3 of the paper; the authors' public code, ``get_grads``): :func:`dynamics.and_mask.and_mask`
  (τ-form, integer threshold, sign(0) = 0), :func:`dynamics.and_mask.and_mask_t` (t-form),
  :func:`dynamics.and_mask.xor_mask` (Fig 7), :func:`dynamics.and_mask.masked_gradient` (inverse-sparsity
  rescaling and the signed geometric mean), :func:`dynamics.and_mask.and_masked_gd`.
* Exact sign statistics (Proposition 2 and Eq 6; extended in this project to signal and to heterogeneous
  environments): :func:`dynamics.and_mask.keep_probability` (binomial, pure noise and Gaussian signal),
  :func:`dynamics.and_mask.keep_probability_rational`, :func:`dynamics.and_mask.masked_update_moments`,
  :func:`dynamics.and_mask.conditional_moments`, the Poisson-binomial extension
  :func:`dynamics.and_mask.keep_probability_hetero` and :func:`dynamics.and_mask.masked_update_moments_hetero`,
  :func:`dynamics.and_mask.expected_squared_norms` (Fig 4).
* Rates and bounds: :func:`dynamics.and_mask.decay_rate` c(τ), :func:`dynamics.and_mask.threshold_snr` s*(τ), the
  corrected Proposition 2 (:func:`dynamics.and_mask.noise_masked_norm_bounds`,
  :func:`dynamics.and_mask.keep_probability_bounds`), Proposition 1 (:func:`dynamics.and_mask.masked_descent_bound`),
  the corrected Proposition 3 (:func:`dynamics.and_mask.consistency_lower_bound`,
  :func:`dynamics.and_mask.amgm_ratio`).
* Consistency of quadratic environments (Eq 2; §2.1-§2.2 of the paper): :func:`dynamics.and_mask.consistency_quadratic`,
  :func:`dynamics.and_mask.consistency_diagonal`, :func:`dynamics.and_mask.karcher_mean`.
* Monte Carlo (numba, seeded, with standard errors): :func:`dynamics.and_mask.simulate_mask`,
  :func:`dynamics.and_mask.simulate_mask_hetero` and :func:`dynamics.and_mask.estimate_from_simulation`,
  :func:`dynamics.and_mask.simulate_temporal_mask` (Algorithm 1's sign EMA) and its closed form
  :func:`dynamics.and_mask.sign_ema_moments`.
* Constructions: the two-valley landscape of Fig 1 (:func:`dynamics.and_mask.two_valley_losses`,
  :func:`dynamics.and_mask.two_valley_gradients`, :func:`dynamics.and_mask.two_valley_descent`,
  :func:`dynamics.and_mask.two_valley_basins`) and the sigmoid patchwork (:func:`dynamics.and_mask.patchwork_losses`).
* Set-ups: the spiral memorisation data (:func:`dynamics.and_mask.make_spiral_dataset`), the authors' linear
  patchwork (:func:`dynamics.and_mask.make_notebook_patchwork`,
  :func:`dynamics.and_mask.patchwork_masked_shared_weight`), the logistic shortcut task
  (:func:`dynamics.and_mask.make_logistic_shortcut`, :func:`dynamics.and_mask.train_logistic_shortcut`,
  :func:`dynamics.and_mask.shortcut_threshold_sweep`, :func:`dynamics.and_mask.shortcut_bayes_accuracy`), the Fig 4
  experiment (:func:`dynamics.and_mask.masked_norm_curves`, :func:`dynamics.and_mask.masked_norm_samples`) and the
  notebook's sweeps (:func:`dynamics.and_mask.masked_update_curves`, :func:`dynamics.and_mask.masked_update_samples`,
  :func:`dynamics.and_mask.threshold_sweep`, :func:`dynamics.and_mask.threshold_sweep_samples`).

The torch optimizer wrapper (:class:`dynamics.and_mask.torch_optim.AndMask`, the AND-mask inside your own torch
training loop) and the temporal AND-mask Adam live in :mod:`dynamics.and_mask.torch_optim`, the torch trainers of
the cross-checks in :mod:`dynamics.and_mask.torch_training`, the paper's experiments in miniature in
:mod:`dynamics.and_mask.torch_experiments` (none is imported here). Their configurations are defined here, without
torch: :class:`dynamics.and_mask.SpiralMemorisationConfig`, :class:`dynamics.and_mask.LearningSignalsConfig`,
:class:`dynamics.and_mask.NoisyLabelsConfig` and :class:`dynamics.and_mask.EnvironmentSweepConfig`, each with the
named constructors ``source()`` (the paper's size) and ``ci()`` (the size of the project's claim).

Examples
--------
>>> import numpy as np
>>> from dynamics import and_mask as am
>>> # AND-mask: probability that a pure-noise coordinate passes with 16 environments at τ = 0.5 ...
>>> round(am.keep_probability(16, 0.5), 4)
0.0768
>>> # ... and a Monte Carlo check of it
>>> round(am.estimate_from_simulation(am.simulate_mask(16, 20000, 0.0, 1.0, seed=0), 0.5).keep_probability, 3)
0.076
"""
from ._consistency import (amgm_ratio, consistency_diagonal, consistency_lower_bound, consistency_quadratic,
                           karcher_mean, masked_descent_bound)
from ._landscape import (PATCHWORK_THETA_STAR, PATCHWORK_THETA_TILDE, TWO_VALLEY_CONSISTENT_MINIMUM,
                         TWO_VALLEY_INCONSISTENT_MINIMUM, TWO_VALLEY_METHODS, patchwork_losses, patchwork_model,
                         patchwork_target, two_valley_basins, two_valley_descent, two_valley_gradients,
                         two_valley_losses)
from ._mask import (and_mask, and_mask_t, and_masked_gd, effective_agreement, keep_set, masked_gradient,
                    sign_threshold, xor_mask)
from ._monte_carlo import estimate_from_simulation, simulate_mask, simulate_mask_hetero, simulate_temporal_mask
from ._results import (SPIRAL_SETTINGS, AndMaskStep, BasinFractions, ConditionalEstimate, ConditionalMoments,
                       EmaMoments, EnvironmentSweepConfig, LearningSignalsConfig, LinearPatchwork,
                       LinearPatchworkRun, MaskedDescent, MaskedMoments, MaskedNormCurves, MaskedNormSamples,
                       MaskedUpdateCurves, MaskedUpdateSamples, MaskEstimate, MaskSimulation, NoiseNormBounds,
                       NoisyLabelsConfig, PatchworkLosses, ProbabilityBounds, ShortcutDataset, ShortcutRun,
                       ShortcutSweep, SpiralDataset, SpiralMemorisationConfig, SquaredNorms, TemporalMaskSimulation,
                       ThresholdSweep, ThresholdSweepSamples, TwoValleyDescent, TwoValleyLosses)
from ._setups import (PATCHWORK_METHODS, logistic_env_gradients, make_logistic_shortcut, make_notebook_patchwork,
                      make_spiral_dataset, masked_norm_curves, masked_norm_samples, masked_update_curves,
                      masked_update_samples, patchwork_masked_shared_weight, shortcut_bayes_accuracy,
                      shortcut_threshold_sweep, threshold_sweep, threshold_sweep_samples, train_logistic_shortcut)
from ._statistics import (conditional_moments, decay_rate, expected_squared_norms, keep_probability,
                          keep_probability_bounds, keep_probability_hetero, keep_probability_rational,
                          log_keep_probability, masked_update_moments, masked_update_moments_hetero,
                          noise_masked_norm_bounds, sign_ema_moments, threshold_snr)

__all__ = [
    # the mask
    "and_mask", "and_mask_t", "xor_mask", "masked_gradient", "and_masked_gd", "sign_threshold", "keep_set",
    "effective_agreement",
    # exact statistics, rates and bounds
    "keep_probability", "log_keep_probability", "keep_probability_rational", "masked_update_moments",
    "conditional_moments", "expected_squared_norms", "keep_probability_hetero", "masked_update_moments_hetero",
    "decay_rate", "threshold_snr", "noise_masked_norm_bounds", "keep_probability_bounds", "sign_ema_moments",
    "masked_descent_bound", "consistency_lower_bound",
    # consistency
    "consistency_quadratic", "consistency_diagonal", "amgm_ratio", "karcher_mean",
    # Monte Carlo
    "simulate_mask", "simulate_mask_hetero", "estimate_from_simulation", "simulate_temporal_mask",
    # constructions
    "two_valley_losses", "two_valley_gradients", "two_valley_descent", "two_valley_basins",
    "TWO_VALLEY_CONSISTENT_MINIMUM", "TWO_VALLEY_INCONSISTENT_MINIMUM", "TWO_VALLEY_METHODS", "patchwork_losses",
    "patchwork_model", "patchwork_target", "PATCHWORK_THETA_STAR", "PATCHWORK_THETA_TILDE",
    # set-ups and experiment drivers
    "make_spiral_dataset", "make_notebook_patchwork", "PATCHWORK_METHODS", "patchwork_masked_shared_weight",
    "make_logistic_shortcut", "logistic_env_gradients", "train_logistic_shortcut", "shortcut_bayes_accuracy",
    "shortcut_threshold_sweep", "masked_norm_curves", "masked_norm_samples", "masked_update_curves",
    "masked_update_samples", "threshold_sweep", "threshold_sweep_samples",
    # named results
    "AndMaskStep", "BasinFractions", "ConditionalEstimate", "ConditionalMoments", "EmaMoments", "LinearPatchwork",
    "LinearPatchworkRun", "MaskedDescent", "MaskedMoments", "MaskedNormCurves", "MaskedNormSamples",
    "MaskedUpdateCurves", "MaskedUpdateSamples", "MaskEstimate", "MaskSimulation", "NoiseNormBounds",
    "PatchworkLosses", "ProbabilityBounds", "ShortcutDataset", "ShortcutRun", "ShortcutSweep", "SpiralDataset",
    "SquaredNorms", "TemporalMaskSimulation", "ThresholdSweep", "ThresholdSweepSamples", "TwoValleyDescent",
    "TwoValleyLosses",
    # configurations of the torch experiments (dynamics.and_mask.torch_experiments)
    "SpiralMemorisationConfig", "LearningSignalsConfig", "NoisyLabelsConfig", "EnvironmentSweepConfig",
    "SPIRAL_SETTINGS",
]
