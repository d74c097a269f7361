"""The AND-mask and Invariant Learning Consistency (Parascandolo et al., "Learning explanations that are hard to
vary", arXiv 2009.00329; spec/and_mask.md).

* The mask (paper §2.3, public code ``get_grads``): :func:`and_mask` (τ-form, integer threshold, sign(0) = 0),
  :func:`and_mask_t` (t-form), :func:`xor_mask` (Fig 7), :func:`masked_gradient` (inverse-sparsity rescaling and
  the signed geometric mean), :func:`and_masked_gd`.
* Exact sign statistics (Proposition 2, Eq 6; spec §5.2-§5.4): :func:`keep_probability` (binomial, pure noise and
  Gaussian signal), :func:`keep_probability_rational`, :func:`masked_update_moments`, :func:`conditional_moments`,
  the Poisson-binomial extension :func:`keep_probability_hetero` / :func:`masked_update_moments_hetero`,
  :func:`expected_squared_norms` (Fig 4).
* Rates and bounds: :func:`decay_rate` c(τ), :func:`threshold_snr` s*(τ), the corrected Proposition 2
  (:func:`noise_masked_norm_bounds`, :func:`keep_probability_bounds`), Proposition 1
  (:func:`masked_descent_bound`), the corrected Proposition 3 (:func:`consistency_lower_bound`, :func:`amgm_ratio`).
* Consistency of quadratic environments (Eq 2; §3.2-§3.3): :func:`consistency_quadratic`,
  :func:`consistency_diagonal`, :func:`karcher_mean`.
* Monte Carlo (numba, seeded, with standard errors): :func:`simulate_mask`, :func:`simulate_mask_hetero` and
  :func:`estimate_from_simulation`, :func:`simulate_temporal_mask` (Algorithm 1's sign EMA) and its closed form
  :func:`sign_ema_moments`.
* Constructions: the two-valley landscape of Fig 1 (:func:`two_valley_losses`, :func:`two_valley_gradients`,
  :func:`two_valley_descent`, :func:`two_valley_basins`) and the sigmoid patchwork (:func:`patchwork_losses`).
* Set-ups: the spiral memorisation data (:func:`make_spiral_dataset`), the notebook's linear patchwork
  (:func:`make_notebook_patchwork`, :func:`patchwork_masked_shared_weight`), the logistic shortcut task
  (:func:`make_logistic_shortcut`, :func:`train_logistic_shortcut`, :func:`shortcut_threshold_sweep`,
  :func:`shortcut_bayes_accuracy`), the Fig 4 experiment (:func:`masked_norm_curves`, :func:`masked_norm_samples`)
  and the notebook's sweeps (:func:`masked_update_curves`, :func:`masked_update_samples`, :func:`threshold_sweep`,
  :func:`threshold_sweep_samples`).

The torch optimizer wrapper and the temporal AND-mask Adam live in :mod:`dynamics.and_mask.torch_optim`, the
torch trainers of the cross-checks in :mod:`dynamics.and_mask.torch_training` (neither is imported here).

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
from ._results import (AndMaskStep, BasinFractions, ConditionalEstimate, ConditionalMoments, EmaMoments,
                       LinearPatchwork, LinearPatchworkRun, MaskedDescent, MaskedMoments, MaskedNormCurves,
                       MaskedNormSamples, MaskedUpdateCurves, MaskedUpdateSamples, MaskEstimate, MaskSimulation,
                       NoiseNormBounds, PatchworkLosses, ProbabilityBounds, ShortcutDataset, ShortcutRun,
                       ShortcutSweep, SpiralDataset, SquaredNorms, TemporalMaskSimulation, ThresholdSweep,
                       ThresholdSweepSamples, TwoValleyDescent, TwoValleyLosses)
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
]
