"""Large learning rates vs spurious correlations (Barsbey et al. 2025) and simple data balancing for worst-group
accuracy (Idrissi et al. 2022, reprinted as Chapter 8 of Pezeshki (thesis)). The theory note,
``docs/theory/spurious.md``, states every equation with its source and what this project derived itself.

* Proposition 1 of Barsbey et al. 2025 (Eq. 1, proof in supp. D.1): the exact finite-k BC/BA loss ratio
  (bias-conflicting over bias-aligned cross-entropy) in log space, its two-sided bound and its Θ(k e^{α_min k})
  asymptote, for shared, heterogeneous and multi-class margins (:func:`dynamics.spurious.bc_ba_loss_ratio` and
  its relatives; the bound and the asymptotes are derived in this project);
* Proposition 2 of Barsbey et al. 2025 (supp. D.2, Eqs. 8, 10–20): the exact scaled-CE gradient identity
  ‖∇ℓ‖ = kσ(−km)‖∇m‖, the spurious/core gradient-norm ratio and its asymptote, including the case where the
  ratio saturates because the core block has not converged (:func:`dynamics.spurious.spurious_core_gradient_ratio`);
* the metrics of Barsbey et al. 2025, §3.2–3.3 (sparsity, compressibility, PQ-index, class separation, CSI/BSI,
  BC loss share, prunability and pruning masks) and group / worst-group accuracy;
* the balancing tools of Pezeshki (thesis) §8.3 (group counts, SUBY/SUBG, RWY/RWG, JTT, online gDRO) and the
  coverage of reweighted sampling (§8.5.4 of the thesis);
* the set-ups: seeded data (the parity task, the Chapter 8 linear toy, the group counts of the thesis's Table 1,
  the Proposition 2 fixtures), a numba reference trainer of the linear toy with all seven methods, and the toy's
  experiment over seeds and methods (:func:`dynamics.spurious.balancing_toy_runs`).

The torch simulations (parity learning-rate sweep, gradient identity, toy replay) live in the optional module
``dynamics.spurious.torch_training``, which this package does not import. Every experiment's trainer takes its
settings as one frozen configuration, defined here so that it needs no torch: ``BalancingToyConfig`` (the linear
toy), ``ParityTaskConfig`` (the parity data), ``ParitySweepConfig`` (the parity learning-rate sweep),
``ParityTrainingConfig`` and ``InterventionConfig`` (the experiments in miniature of
``dynamics.spurious.torch_experiments``) and ``SpuriousRuleLogitsConfig``; each has ``source()`` (the source's
settings) and ``ci()`` (the size the project's claims run on the CPU).

Examples
--------
>>> import numpy as np
>>> from dynamics import spurious as spur
>>> # Proposition 1: the loss ratio of 10 bias-conflicting to 90 bias-aligned samples grows as C·k·e^{k}
>>> [f"{r:.3g}" for r in spur.bc_ba_loss_ratio([1.0, 5.0, 20.0], np.ones(90), np.ones(10))]
['0.466', '82.8', '1.08e+09']
>>> spur.bc_ba_loss_ratio_asymptote(np.ones(90), np.ones(10)).constant  # C = 10/90
0.1111111111111111
"""
from ._balancing import (balanced_sampling_weights, expand_by_counts, expected_unique_fraction, gdro_update,
                         group_counts, group_index, jtt_duplication_counts, reweighting_coverage,
                         subsample_to_smallest, subsampled_size, weighted_epoch_indices)
from ._moon_star import MOON_STAR_SEED_STREAMS, make_moon_star_like
from ._metrics import (PRUNE_FRACTIONS, ba_bc_mean_loss_ratio, bc_loss_share, class_selectivity,
                       class_separation_r2, compressibility, group_accuracies, magnitude_pruning_masks, max_drawdown,
                       mean_class_selectivity, neuron_pruned_accuracies, neuron_pruning_masks, pq_index, prunability,
                       retention_ratios, sparsity, worst_group_accuracy)
from ._proposition1 import (bc_ba_loss_ratio, bc_ba_loss_ratio_asymptote, bc_ba_loss_ratio_asymptote_from_logits,
                            bc_ba_loss_ratio_bounds, bc_ba_loss_ratio_from_logits, scaled_binary_ce, softmax_ce)
from ._proposition2 import scaled_ce_grad_norm, spurious_core_gradient_ratio, spurious_core_gradient_ratio_asymptote
from ._results import (BalancingToyConfig, BalancingToyRuns, GdroStep, GradientRatioAsymptote, GroupCountTable,
                       InterventionConfig, LossRatioAsymptote, LossRatioBounds, MarginGradients, MoonStarConfig,
                       ParitySweepConfig,
                       ParityTaskConfig, ParityTrainingConfig, ReweightingCoverage, SpuriousData,
                       SpuriousRuleLogitsConfig, ToyRun, ToySplits)
from ._setups import (BALANCING_TOY_SEED_STREAMS, BALANCING_TOY_SIZE, BENCHMARK_GROUP_COUNTS, PARITY_SEED_STREAMS,
                      balancing_toy_runs, bias_decomposable_fixture,
                      core_error_probability, linear_two_block_fixture, make_balancing_toy, make_balancing_toy_splits,
                      make_parity_task)
from ._toy_training import METHODS, TOY_GAMMAS, toy_feature_scales, train_balancing_toy

__all__ = [
    # Proposition 1: the BC/BA loss ratio
    "scaled_binary_ce", "bc_ba_loss_ratio", "bc_ba_loss_ratio_bounds", "bc_ba_loss_ratio_asymptote", "softmax_ce",
    "bc_ba_loss_ratio_from_logits", "bc_ba_loss_ratio_asymptote_from_logits", "LossRatioBounds",
    "LossRatioAsymptote",
    # Proposition 2: the spurious/core gradient-norm ratio
    "scaled_ce_grad_norm", "spurious_core_gradient_ratio", "spurious_core_gradient_ratio_asymptote",
    "GradientRatioAsymptote", "MarginGradients",
    # metrics
    "sparsity", "compressibility", "pq_index", "class_separation_r2", "class_selectivity", "mean_class_selectivity",
    "bc_loss_share", "ba_bc_mean_loss_ratio", "PRUNE_FRACTIONS", "retention_ratios", "prunability",
    "neuron_pruning_masks", "neuron_pruned_accuracies", "magnitude_pruning_masks", "group_accuracies",
    "worst_group_accuracy", "max_drawdown",
    # balancing
    "group_index", "group_counts", "subsample_to_smallest", "subsampled_size", "balanced_sampling_weights",
    "weighted_epoch_indices", "expected_unique_fraction", "reweighting_coverage", "ReweightingCoverage",
    "jtt_duplication_counts", "expand_by_counts", "gdro_update", "GdroStep",
    # set-ups: data, fixtures and the linear-toy experiment
    "SpuriousData", "make_parity_task", "make_balancing_toy", "make_balancing_toy_splits", "ToySplits", "TOY_GAMMAS",
    "toy_feature_scales", "core_error_probability", "BENCHMARK_GROUP_COUNTS", "GroupCountTable",
    "bias_decomposable_fixture", "linear_two_block_fixture", "balancing_toy_runs", "BalancingToyRuns",
    "BALANCING_TOY_SIZE", "PARITY_SEED_STREAMS", "BALANCING_TOY_SEED_STREAMS",
    "make_moon_star_like", "MOON_STAR_SEED_STREAMS",
    # linear-toy trainer
    "train_balancing_toy", "ToyRun", "METHODS",
    # the experiments' configurations (their trainers: here and in the torch modules)
    "BalancingToyConfig", "ParityTaskConfig", "ParitySweepConfig", "ParityTrainingConfig", "InterventionConfig",
    "SpuriousRuleLogitsConfig", "MoonStarConfig",
]
