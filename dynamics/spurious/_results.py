"""Every named result of the spurious-correlation theory, the torch layer's included (its tensor fields are
annotated by name: this module does not import torch).

* data: ``SpuriousData``, ``ToySplits``, ``GroupCountTable``, ``MarginGradients``;
* Proposition 1 of Barsbey et al. 2025 (the BC/BA loss ratio): ``LossRatioBounds``, ``LossRatioAsymptote``;
* Proposition 2 of Barsbey et al. 2025 (the spurious/core gradient-norm ratio): ``GradientRatioAsymptote``;
* balancing (Idrissi et al. 2022, reprinted as Pezeshki (thesis) Ch. 8): ``GdroStep``, ``ReweightingCoverage``,
  ``ToyRun``, ``BalancingToyRuns``;
* the torch layer (``dynamics.spurious.torch_training``): ``GradientIdentity``, ``ParityRun``, ``ParitySweep``,
  ``NetworkLogits``, ``TorchToyRun``.
"""
from typing import Dict, NamedTuple, Optional, Tuple, Union

import numpy as np

from dynamics.numerics import require_choice

PARITY_METRICS = ("unbiased_accuracy", "ba_accuracy", "bc_accuracy", "activation_sparsity",
                  "activation_compressibility", "activation_pq_index", "class_separation", "class_selectivity",
                  "bias_selectivity", "max_bc_loss_share", "mean_logit_gap", "epochs_to_fit", "node_prunability",
                  "magnitude_prunability", "node_prunability_chance", "magnitude_prunability_chance")
"""The ``ParityRun`` fields that ``ParitySweep.metric`` tabulates."""


# ---------------------------------------------------------------------------------------------------- data
class SpuriousData(NamedTuple):
    """A data set with a spurious attribute.

    Attributes
    ----------
    x : ndarray, shape (n_samples, n_features)
        Inputs (float64).
    y : ndarray of int64, shape (n_samples,)
        Class in {0, 1}.
    b : ndarray of int64, shape (n_samples,)
        Bias label (parity task: the parity of the spurious bits) or attribute (linear toy: 1 for the majority,
        where the spurious feature agrees with the label, 0 for the minority).
    group : ndarray of int64, shape (n_samples,)
        Group index 2·y + b.
    is_bias_conflicting : ndarray of bool, shape (n_samples,)
        True for bias-conflicting samples: y != b for the parity task, the minority (b = 0) for the toy.
    """

    x: np.ndarray
    y: np.ndarray
    b: np.ndarray
    group: np.ndarray
    is_bias_conflicting: np.ndarray


class ToySplits(NamedTuple):
    """Training, validation and test sets of the linear toy (each a ``SpuriousData``)."""

    train: SpuriousData
    val: SpuriousData
    test: SpuriousData


class GroupCountTable(NamedTuple):
    """Training-set counts of a worst-group benchmark (Pezeshki (thesis) Ch. 8, Table 1): ``counts[class,
    attribute]``."""

    classes: Tuple[str, ...]
    attributes: Tuple[str, ...]
    counts: np.ndarray


class MarginGradients(NamedTuple):
    """Per-sample signed margins and margin-gradient norms of the core and spurious blocks, each of shape
    (n_samples,): the inputs of :func:`dynamics.spurious.spurious_core_gradient_ratio` and
    :func:`dynamics.spurious.spurious_core_gradient_ratio_asymptote`."""

    margins: np.ndarray
    core_grad_norms: np.ndarray
    spurious_grad_norms: np.ndarray


# ---------------------------------------------------------------------------------------------------- Proposition 1
class LossRatioBounds(NamedTuple):
    """Lower and upper bounds on the BC/BA loss ratio R(k) of Proposition 1 of Barsbey et al. 2025 (or on log R(k)),
    each a float or an array over k."""

    lower: Union[float, np.ndarray]
    upper: Union[float, np.ndarray]


class LossRatioAsymptote(NamedTuple):
    """The k → ∞ limit of the BC/BA loss ratio (Proposition 1 of Barsbey et al. 2025):
    R(k) ~ constant · k · e^{rate·k}, ``rate`` = α_min, ``constant`` = Σβ_j / m_min."""

    rate: float
    constant: float


# ---------------------------------------------------------------------------------------------------- Proposition 2
class GradientRatioAsymptote(NamedTuple):
    """k → ∞ behaviour of the spurious/core gradient-norm ratio (Proposition 2 of Barsbey et al. 2025):
    ratio ~ constant · e^{rate·k}. ``converged_core`` says whether the core margin gradients vanish on every BC
    sample (then rate = α_min > 0); otherwise the ratio saturates (rate = 0)."""

    rate: float
    constant: float
    converged_core: bool


# ---------------------------------------------------------------------------------------------------- balancing
class GdroStep(NamedTuple):
    """One online group-DRO step: the new log q (normalised, shape (n_groups,)) and the loss weights (q_g on the
    groups present in the minibatch, 0 elsewhere)."""

    log_q: np.ndarray
    loss_weights: np.ndarray


class ReweightingCoverage(NamedTuple):
    """Expected fraction of the distinct training samples drawn after some epochs of reweighted sampling
    (Pezeshki (thesis) §8.5.4).

    Attributes
    ----------
    stratum_fractions : ndarray
        One value per stratum and epoch count: shape ``(n_classes, n_attributes, *epochs.shape)`` for RWG (groups),
        ``(n_classes, *epochs.shape)`` for RWY (classes).
    class_fractions : ndarray, shape ``(n_classes, *epochs.shape)``
        The same per class: the size-weighted mean of its groups' fractions under RWG.
    """

    stratum_fractions: np.ndarray
    class_fractions: np.ndarray


class ToyRun(NamedTuple):
    """One run of the linear-toy trainer.

    Attributes
    ----------
    epochs : ndarray of int, shape (n_epochs,)
        Epoch numbers 1..n_epochs; row e − 1 of the accuracy arrays is evaluated after epoch e.
    val_group_acc, test_group_acc : ndarray, shape (n_epochs, 4)
        Accuracy of each group 2y + b after every epoch.
    selected_epoch : int
        The epoch (1-based) of maximal validation worst-group accuracy (ties: the later epoch).
    weights : ndarray, shape (2 + n_noise,)
        Final w (the model is f(x) = wᵀ(γ ⊙ x)).
    selected_weights : ndarray, shape (2 + n_noise,)
        w after the selected epoch.
    init : ndarray, shape (2 + n_noise,)
        The initial w.
    jtt_init : ndarray or None
        JTT's re-initialisation of the second stage (None for other methods).
    orders : tuple of ndarray or None
        With ``return_orders``: the training indices of every epoch in the order used (consecutive batches of
        ``batch_size``; empty for JTT's error-recording pass), for a replay in torch.
    """

    epochs: np.ndarray
    val_group_acc: np.ndarray
    test_group_acc: np.ndarray
    selected_epoch: int
    weights: np.ndarray
    selected_weights: np.ndarray
    init: np.ndarray
    jtt_init: Optional[np.ndarray]
    orders: Optional[Tuple[np.ndarray, ...]]

    @property
    def val_worst_group(self) -> np.ndarray:
        """Validation worst-group accuracy per epoch, shape (n_epochs,)."""
        return self.val_group_acc.min(axis=1)

    @property
    def test_worst_group(self) -> np.ndarray:
        """Test worst-group accuracy per epoch, shape (n_epochs,)."""
        return self.test_group_acc.min(axis=1)

    @property
    def selected_test_worst_group(self) -> float:
        """Test worst-group accuracy at the validation-selected epoch."""
        return float(self.test_worst_group[self.selected_epoch - 1])


class BalancingToyRuns(NamedTuple):
    """Linear-toy runs over seeds and balancing methods (from :func:`dynamics.spurious.balancing_toy_runs`).

    Attributes
    ----------
    seeds : tuple of int
        The seeds, one data set and one training stream each.
    splits : tuple of ToySplits
        The data of each seed (shared by every method).
    runs : dict
        Method -> tuple of :class:`dynamics.spurious.ToyRun`, one per seed (in the order of ``seeds``).
    """

    seeds: Tuple[int, ...]
    splits: Tuple[ToySplits, ...]
    runs: Dict[str, Tuple[ToyRun, ...]]

    def test_worst_group_curves(self, method: str) -> np.ndarray:
        """Test worst-group accuracy of ``method`` after every epoch, shape (n_seeds, n_epochs)."""
        require_choice("method", method, tuple(self.runs))
        return np.array([run.test_worst_group for run in self.runs[method]])


# ---------------------------------------------------------------------------------------------------- torch layer
class GradientIdentity(NamedTuple):
    """Per-sample autograd norms for the gradient identity ‖∇ℓ‖ = kσ(−km)‖∇m‖ (derived in this project for
    Proposition 2 of Barsbey et al. 2025).

    Attributes
    ----------
    logit_scales : ndarray, shape (n_scales,)
    margins : ndarray, shape (n_samples,)
        m = f[y] − f[1 − y].
    loss_grad_norms : ndarray, shape (n_scales, n_samples, 3)
        ‖∇_θ CE(k f(x_i), y_i)‖ for θ = all parameters, the first layer, the remaining layers.
    margin_grad_norms : ndarray, shape (n_samples, 3)
        ‖∇_θ m_i‖ for the same blocks.
    """

    logit_scales: np.ndarray
    margins: np.ndarray
    loss_grad_norms: np.ndarray
    margin_grad_norms: np.ndarray


class ParityData(NamedTuple):
    """The stacked parity data of the seeds trained together (torch tensors; S seeds, n samples)."""

    x_train: "torch.Tensor"  # (S, n, dim)
    y_train: "torch.Tensor"  # (S, n)
    b_train: "torch.Tensor"
    x_test: "torch.Tensor"
    y_test: "torch.Tensor"
    b_test: "torch.Tensor"
    test_subset: np.ndarray  # (S, n_activation_inputs) indices


class ParityRun(NamedTuple):
    """What one run of the parity learning-rate sweep records (Barsbey et al. 2025, Fig. 3 and Table 1, parity row),
    at the end of the first epoch with 100% training accuracy.

    Accuracies are on the unbiased test set (ρ = 0.5), BA (y = b) and BC (y != b) groups; the activation
    statistics are means over 1000 random test inputs of the penultimate (post-ReLU) layer (the PQ-index over the
    inputs whose activation vector is not all zero); class separation R², CSI (class labels) and BSI (bias labels)
    use the full test set; ``max_bc_loss_share`` is the largest per-minibatch BC loss share over training (before
    each step); ``mean_logit_gap`` the mean absolute logit difference z₁ − z₀ on the training set at the stop (the
    logit scale reached); prunabilities are means of the retention ratios over the κ grid for per-layer neuron
    pruning ("incoming_l2") and per-matrix magnitude pruning, as ratios and chance-corrected (chance 0.5; this
    project's extension, not in the paper); the chance-corrected values
    are NaN when the full accuracy is at or below chance, and the PQ-index is NaN if every activation vector is zero.
    ``bc_share_history`` has shape (epochs_to_fit, n_batches_per_epoch).
    """

    learning_rate: float
    seed: int
    fitted: bool
    epochs_to_fit: int
    unbiased_accuracy: float
    ba_accuracy: float
    bc_accuracy: float
    activation_sparsity: float
    activation_compressibility: float
    activation_pq_index: float
    class_separation: float
    class_selectivity: float
    bias_selectivity: float
    max_bc_loss_share: float
    mean_logit_gap: float
    node_prunability: float
    magnitude_prunability: float
    node_prunability_chance: float
    magnitude_prunability_chance: float
    bc_share_history: np.ndarray


class ParitySweep(NamedTuple):
    """Parity runs over a learning-rate grid × seeds (the sweep of Barsbey et al. 2025, Fig. 3, at this project's
    sizes). ``runs[i][j]`` is learning rate i, seed j."""

    learning_rates: Tuple[float, ...]
    seeds: Tuple[int, ...]
    runs: Tuple[Tuple[ParityRun, ...], ...]

    def metric(self, name: str) -> np.ndarray:
        """The named ``ParityRun`` field as an array of shape (n_learning_rates, n_seeds)."""
        require_choice("name", name, PARITY_METRICS)
        return np.array([[getattr(run, name) for run in row] for row in self.runs], dtype=np.float64)


class NetworkLogits(NamedTuple):
    """Logits of a parity network on training samples it predicts by the spurious rule (the set-up of the
    cross-check of Proposition 1 of Barsbey et al. 2025 on network logits).

    Attributes
    ----------
    logits : ndarray, shape (n_subset, 2)
    labels, bias_labels : ndarray of int, shape (n_subset,)
    step : int
        SGD steps taken when the logits were read.
    logit_scales : ndarray, shape (n_scales,)
    bc_loss_sums, ba_loss_sums : ndarray, shape (n_scales,)
        torch ``cross_entropy(k·logits, labels, reduction="sum")`` over the BC and BA samples of the subset.
    """

    logits: np.ndarray
    labels: np.ndarray
    bias_labels: np.ndarray
    step: int
    logit_scales: np.ndarray
    bc_loss_sums: np.ndarray
    ba_loss_sums: np.ndarray


class TorchToyRun(NamedTuple):
    """A torch replay of a linear-toy run: final weights and the group accuracies after every epoch, each of shape
    (n_epochs, 4)."""

    weights: np.ndarray
    val_group_acc: np.ndarray
    test_group_acc: np.ndarray


class BalancingExperiment(NamedTuple):
    """Every balancing method on the linear toy of Pezeshki (thesis) §8.4, seed by seed
    (:func:`dynamics.spurious.torch_balancing.train_balancing_methods`). Axes: M methods, S seeds, E epochs, 4 groups
    (group = 2y + b; b = 0 is the minority, whose spurious sign disagrees with the label), D = 2 + d features.

    Attributes
    ----------
    methods, seeds : tuple
        The methods (M) and seeds (S), in order.
    epochs : ndarray, shape (E,)
        1, ..., E.
    train_group_acc, val_group_acc, test_group_acc : ndarray, shape (M, S, E, 4)
        Group accuracies after every epoch: on the training set (with its N(0, 1) noise), on validation and on test
        (zero noise).
    val_accuracy : ndarray, shape (M, S, E)
        Average validation accuracy (no group labels needed).
    selected_epoch, average_selected_epoch : ndarray of int, shape (M, S)
        The 1-based epoch that maximises the worst-group validation accuracy, and the one that maximises the average
        validation accuracy (ties: the later epoch, as the authors' code).
    selected_test_worst_group, average_selected_test_worst_group : ndarray, shape (M, S)
        Test worst-group accuracy at those two epochs.
    selected_train_worst_group : ndarray, shape (M, S)
        Training worst-group accuracy at the worst-group-selected epoch.
    selected_weights, final_weights : ndarray, shape (M, S, D)
        w at the worst-group-selected epoch and after the last epoch (the model is f(x) = wᵀ(γ ⊙ x)).
    feature_scales : ndarray, shape (D,)
        γ ⊙ (the per-feature scales of :func:`dynamics.spurious.toy_feature_scales`).
    splits : tuple of ToySplits
        Each seed's training, validation and test sets."""

    methods: Tuple[str, ...]
    seeds: Tuple[int, ...]
    epochs: np.ndarray
    train_group_acc: np.ndarray
    val_group_acc: np.ndarray
    test_group_acc: np.ndarray
    val_accuracy: np.ndarray
    selected_epoch: np.ndarray
    average_selected_epoch: np.ndarray
    selected_test_worst_group: np.ndarray
    average_selected_test_worst_group: np.ndarray
    selected_train_worst_group: np.ndarray
    selected_weights: np.ndarray
    final_weights: np.ndarray
    feature_scales: np.ndarray
    splits: Tuple[ToySplits, ...]


class DecisionMaps(NamedTuple):
    """Decision heat maps of the linear toy (Pezeshki (thesis) Ch. 8 Fig. 1), one per seed
    (:func:`dynamics.spurious.torch_balancing.decision_maps`).

    Attributes
    ----------
    spurious_grid : ndarray, shape (nx,)
        γ_spu x_spu of the grid's columns.
    core_grid : ndarray, shape (ny,)
        γ_core x_core of the grid's rows.
    probabilities : ndarray, shape (S, ny, nx)
        sigmoid(wᵀx̃): the model's probability of class 1, x̃ the grid point with the noise of the nearest training
        sample (nearest in the plotted plane), or with zero noise (``noise="none"``)
    core_rule_agreement : ndarray, shape (S,)
        Fraction of grid points where the prediction (probability > 1/2) equals the core rule x_core > 0."""

    spurious_grid: np.ndarray
    core_grid: np.ndarray
    probabilities: np.ndarray
    core_rule_agreement: np.ndarray


class ParityTrainingRuns(NamedTuple):
    """Every (configuration, seed) run of :func:`dynamics.spurious.torch_experiments.parity_training_runs`.

    Arrays have leading axes (configuration, seed). ``record_steps`` are the SGD steps (counted from 0, before any
    update) at which the attribution shares were recorded; a stopped member keeps its last values.
    ``bc_loss_share[c, s, t]`` is Σ_BC ℓ / Σ ℓ of the cross-entropy of minibatch t before its update (NaN after
    the member stopped)."""

    learning_rates: np.ndarray
    seeds: tuple
    record_steps: np.ndarray
    attribution_shares: np.ndarray
    bc_loss_share: np.ndarray
    final_attribution_shares: np.ndarray
    unbiased_accuracy: np.ndarray
    ba_accuracy: np.ndarray
    bc_accuracy: np.ndarray
    final_train_loss: np.ndarray
    epochs_to_stop: np.ndarray
    stopped: np.ndarray


class LearningRateRobustness(NamedTuple):
    """Low and high learning rate under each training variant of
    :func:`dynamics.spurious.torch_experiments.lr_robustness_runs`: ``runs[v]`` for ``variants[v]``, each with
    configurations (low, high)."""

    variants: tuple
    learning_rates: tuple
    runs: tuple


class InterventionRuns(NamedTuple):
    """:func:`dynamics.spurious.torch_experiments.intervention_runs`: one row per name of ``names``
    (``INTERVENTIONS``), one column per seed; ``learning_rates`` and ``batch_sizes`` per row."""

    names: tuple
    seeds: tuple
    learning_rates: np.ndarray
    batch_sizes: np.ndarray
    unbiased_accuracy: np.ndarray
    core_share: np.ndarray
    epochs_to_stop: np.ndarray
    stopped: np.ndarray


class WidthSweep(NamedTuple):
    """:func:`dynamics.spurious.torch_experiments.width_lr_sweep`: ``unbiased_accuracy[w, l, s]`` at width
    ``widths[w]``, learning rate ``learning_rates[l]``, seed ``seeds[s]``; ``spread[w, s]`` is the per-seed max − min
    over the learning rates and ``mean_spread[w]`` the max − min of the seed-mean accuracies over the learning
    rates."""

    widths: np.ndarray
    learning_rates: np.ndarray
    seeds: tuple
    unbiased_accuracy: np.ndarray
    epochs_to_stop: np.ndarray
    spread: np.ndarray
    mean_spread: np.ndarray
