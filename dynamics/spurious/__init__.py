"""Large learning rates vs spurious correlations (Barsbey et al., ``002_ec22b3cfca16aca5.txt``) and simple data
balancing for worst-group accuracy (Idrissi et al., ``001_61c8f54ededf01e4.txt`` Chapters 7–9); spec/spurious.md.

* Proposition 1 (LLR Eq. 1, supp. D.1): the exact finite-k BC/BA loss ratio in log space, its two-sided bound
  and its Θ(k e^{α_min k}) asymptote, for shared, heterogeneous and multi-class margins;
* Proposition 2 (LLR Eqs. 8, 10–20): the exact scaled-CE gradient identity ‖∇ℓ‖ = kσ(−km)‖∇m‖, the
  spurious/core gradient-norm ratio and its asymptote, including the saturating case (§4.4);
* the metrics of LLR §3.2–3.3 (sparsity, compressibility, PQ-index, class separation, CSI/BSI, BC loss share,
  prunability and pruning masks) and group / worst-group accuracy;
* the balancing tools of TH8 §8.3 (group counts, SUBY/SUBG, RWY/RWG, JTT, online gDRO, coverage formula);
* seeded data (the parity task, the Chapter 8 linear toy, TH8 Table 1 counts) and a numba reference trainer
  of the linear toy with all seven methods.

The torch simulations (parity learning-rate sweep, gradient identity, toy replay) live in the optional module
:mod:`dynamics.spurious.torch_training`, which this package does not import.
"""
from ._balancing import (GdroStep, balanced_sampling_weights, expand_by_counts, expected_unique_fraction,
                         gdro_update, group_counts, group_index, jtt_duplication_counts, subsample_to_smallest,
                         subsampled_size, weighted_epoch_indices)
from ._data import (BENCHMARK_GROUP_COUNTS, TOY_GAMMAS, GroupCountTable, SpuriousData, ToySplits,
                    core_error_probability, make_balancing_toy, make_balancing_toy_splits, make_parity_task,
                    toy_feature_scales)
from ._metrics import (PRUNE_FRACTIONS, ba_bc_mean_loss_ratio, bc_loss_share, class_selectivity,
                       class_separation_r2, compressibility, group_accuracies, magnitude_pruning_masks,
                       mean_class_selectivity, neuron_pruning_masks, pq_index, prunability, retention_ratios,
                       sparsity, worst_group_accuracy)
from ._proposition1 import (Prop1Asymptote, Prop1Bounds, prop1_asymptote, prop1_asymptote_from_logits, prop1_bounds,
                            prop1_loss_ratio, prop1_loss_ratio_from_logits, scaled_binary_ce, softmax_ce)
from ._proposition2 import (MarginGradients, Prop2Asymptote, bias_decomposable_fixture, linear_two_block_fixture,
                            prop2_asymptote, prop2_gradient_ratio, scaled_ce_grad_norm)
from ._toy_training import METHODS, ToyRun, train_balancing_toy

__all__ = [
    # Proposition 1
    "scaled_binary_ce", "prop1_loss_ratio", "prop1_bounds", "prop1_asymptote", "softmax_ce",
    "prop1_loss_ratio_from_logits", "prop1_asymptote_from_logits", "Prop1Bounds", "Prop1Asymptote",
    # Proposition 2
    "scaled_ce_grad_norm", "prop2_gradient_ratio", "prop2_asymptote", "Prop2Asymptote", "MarginGradients",
    "bias_decomposable_fixture", "linear_two_block_fixture",
    # metrics
    "sparsity", "compressibility", "pq_index", "class_separation_r2", "class_selectivity", "mean_class_selectivity",
    "bc_loss_share", "ba_bc_mean_loss_ratio", "PRUNE_FRACTIONS", "retention_ratios", "prunability",
    "neuron_pruning_masks", "magnitude_pruning_masks", "group_accuracies", "worst_group_accuracy",
    # balancing
    "group_index", "group_counts", "subsample_to_smallest", "subsampled_size", "balanced_sampling_weights",
    "weighted_epoch_indices", "expected_unique_fraction", "jtt_duplication_counts", "expand_by_counts",
    "gdro_update", "GdroStep",
    # data
    "SpuriousData", "make_parity_task", "make_balancing_toy", "make_balancing_toy_splits", "ToySplits", "TOY_GAMMAS",
    "toy_feature_scales",
    "core_error_probability", "BENCHMARK_GROUP_COUNTS", "GroupCountTable",
    # linear-toy trainer
    "train_balancing_toy", "ToyRun", "METHODS",
]
