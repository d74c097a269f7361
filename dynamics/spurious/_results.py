"""Every named result of the spurious-correlation theory, the torch layer's included (its tensor fields are
annotated by name: this module does not import torch).

* data: ``SpuriousData``, ``ToySplits``, ``GroupCountTable``, ``MarginGradients``;
* Proposition 1 of Barsbey et al. 2025 (the BC/BA loss ratio): ``LossRatioBounds``, ``LossRatioAsymptote``;
* Proposition 2 of Barsbey et al. 2025 (the spurious/core gradient-norm ratio): ``GradientRatioAsymptote``;
* balancing (Idrissi et al. 2022, reprinted as Pezeshki (thesis) Ch. 8): ``GdroStep``, ``ReweightingCoverage``,
  ``ToyRun``, ``BalancingToyRuns``;
* the torch layer (``dynamics.spurious.torch_training``): ``GradientIdentity``, ``ParityRun``, ``ParitySweep``,
  ``NetworkLogits``, ``TorchToyRun``;
* the experiments' configurations (the settings a trainer takes as one frozen object): ``ParityTaskConfig``,
  ``ParitySweepConfig``, ``ParityTrainingConfig``, ``InterventionConfig``, ``SpuriousRuleLogitsConfig``,
  ``BalancingToyConfig``.
"""
from typing import Dict, NamedTuple, Optional, Tuple, Union

import numpy as np

from dynamics.numerics import require_choice

PARITY_METRICS = ("unbiased_accuracy", "ba_accuracy", "bc_accuracy", "activation_sparsity",
                  "activation_compressibility", "activation_pq_index", "class_separation", "class_selectivity",
                  "bias_selectivity", "max_bc_loss_share", "mean_logit_gap", "epochs_to_fit", "node_prunability",
                  "magnitude_prunability", "node_prunability_chance", "magnitude_prunability_chance",
                  "core_attribution_share", "spurious_attribution_share", "bias_selectivity_drawdown",
                  "landscape_loss_rise")
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

    For the paper's mechanism figures (this project's measurements, on the same runs):

    * ``node_pruned_accuracy`` and ``magnitude_pruned_accuracy``, shape (len(PRUNE_FRACTIONS),): the unbiased
      test accuracy with a fraction κ of each hidden layer's neurons (incoming-L2 node pruning, Fig. 20) or of each
      matrix's weights (magnitude pruning, Fig. 21) set to zero;
    * ``core_attribution_share`` and ``spurious_attribution_share``: the mean share of integrated-gradient
      attribution (zero baseline, margin z₁ − z₀) on the core and on the spurious bits, over the 1000 test inputs
      (Fig. 26 sets it beside the CSI);
    * ``bias_selectivity_history``, shape (n_records,): the mean BSI of the penultimate neurons on the 1000 test
      inputs every ``SELECTIVITY_EVERY`` SGD steps and at the stop; ``top_neuron_bias_selectivity`` the same for
      the one neuron whose BSI peaks highest; ``bias_selectivity_drawdown`` the mean over neurons of each one's
      largest fall below its running peak (:func:`dynamics.spurious.max_drawdown`; the "resets" of Fig. 28,
      bottom);
    * ``landscape``, shape (3, P, P): training cross-entropy, unbiased test accuracy and mean BSI at θ + a·d₁ +
      b·d₂ for a, b on ``LANDSCAPE_COORDINATES``, with d₁, d₂ Gaussian directions normalised filter by filter (Li
      et al. 2018; Fig. 9); ``landscape_loss_rise`` is the mean over the grid of the training loss above its
      value at the centre (small: a wide minimum).
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
    node_pruned_accuracy: np.ndarray
    magnitude_pruned_accuracy: np.ndarray
    core_attribution_share: float
    spurious_attribution_share: float
    bias_selectivity_history: np.ndarray
    top_neuron_bias_selectivity: np.ndarray
    bias_selectivity_drawdown: float
    landscape: np.ndarray

    @property
    def landscape_loss_rise(self) -> float:
        """The mean over the landscape grid of the training loss above its value at the centre."""
        loss = self.landscape[0]
        centre = loss.shape[0] // 2
        return float(np.mean(loss - loss[centre, centre]))


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


# ---------------------------------------------------------------------------------------------------- configurations
class ParityTaskConfig(NamedTuple):
    """The data of the parity spurious-correlation task (Barsbey et al. 2025, Fig. 3 and supp. C, after Qiu et al.
    2024; :func:`dynamics.spurious.make_parity_task`): a training set at BC rate ρ and an unbiased test set (ρ = 0.5),
    both drawn from one seed's streams by the parity trainers.

    The defaults are the data of the parity learning-rate sweep (:class:`dynamics.spurious.ParitySweepConfig`); the
    experiments in miniature (:class:`dynamics.spurious.ParityTrainingConfig`) use 2000 samples each and C = 4.

    Attributes
    ----------
    n_train : int, default 10000
        Training samples, drawn at BC rate ``bc_rate``, >= 1 (2 to 100000 in
        :mod:`dynamics.spurious.torch_experiments`).
    n_test : int, default 10000
        Unbiased test samples, drawn at BC rate 0.5; the range of ``n_train``.
    n_core : int, default 6
        C core bits, the label being their product y = Π x_c; >= 1 (at most 64 in
        :mod:`dynamics.spurious.torch_experiments`).
    n_spurious : int, default 2
        S spurious bits, uniform given Π x_s = b; >= 1 (at most 64 there).
    n_noise : int, default 12
        N uniform noise bits; >= 0 (at most 64 there).
    bc_rate : float, default 0.1
        ρ in [0, 1]: the training set's probability that the bias label b disagrees with y (a bias-conflicting
        sample).

    Examples
    --------
    >>> from dynamics.spurious import ParityTaskConfig
    >>> ParityTaskConfig(n_train=2000, n_test=2000, n_core=4)
    ParityTaskConfig(n_train=2000, n_test=2000, n_core=4, n_spurious=2, n_noise=12, bc_rate=0.1)
    """

    n_train: int = 10000
    n_test: int = 10000
    n_core: int = 6
    n_spurious: int = 2
    n_noise: int = 12
    bc_rate: float = 0.1

    @classmethod
    def source(cls) -> "ParityTaskConfig":
        """The paper's set sizes, 10000 training and 10000 test samples, and its ρ = 0.1; C, S and N at this
        project's values.

        The paper gives the two set sizes and the training set's BC rate ρ = 0.1 (the test set being unbiased); it
        leaves C, S and N open (see the theory note, docs/theory/spurious.md): C = 6, S = 2 and N = 12 are this
        project's.

        Examples
        --------
        >>> ParityTaskConfig.source()
        ParityTaskConfig(n_train=10000, n_test=10000, n_core=6, n_spurious=2, n_noise=12, bc_rate=0.1)
        """
        return cls(n_train=10000, n_test=10000, n_core=6, n_spurious=2, n_noise=12, bc_rate=0.1)

    @classmethod
    def ci(cls) -> "ParityTaskConfig":
        """The data of the parity sweep's claims and figures on the CPU: the source's.

        Examples
        --------
        >>> ParityTaskConfig.ci() == ParityTaskConfig.source()
        True
        """
        return cls.source()


class ParitySweepConfig(NamedTuple):
    """Settings of the parity learning-rate sweep (Barsbey et al. 2025, Fig. 3 and Table 1, parity row; Fig. 12),
    trained by :func:`dynamics.spurious.torch_training.parity_lr_sweep` and
    :func:`dynamics.spurious.torch_training.train_parity_mlp`.

    A bias-free ReLU network d → width → … → 2 (PyTorch's default uniform initialisation), plain SGD with a constant
    learning rate, trained to the end of its first epoch with 100% training accuracy (or the cap); every run records
    the metrics of :class:`dynamics.spurious.torch_training.ParityRun`. The defaults are the source's
    (:meth:`source`), which the CPU claims run (:meth:`ci`). The learning rates and the seeds are not settings but
    the trainers' arguments: the claims sweep η in {0.03, 0.75} over 5 seeds on the CPU, 9 rates over 32 seeds on
    a GPU.

    Attributes
    ----------
    task : ParityTaskConfig, default ParityTaskConfig()
        The data: C = 6, S = 2, N = 12 bits, ρ = 0.1, 10000 training and 10000 test samples.
    width : int, default 200
        Hidden units per layer, >= 1.
    depth : int, default 2
        Hidden layers, >= 1.
    batch_size : int, default 100
        Minibatch size, >= 1 (the last batch of an epoch may be smaller).
    epoch_cap : int, default 800
        Epochs after which a run stops if it never reaches 100% training accuracy, >= 1.
    n_activation_inputs : int, default 1000
        Random test inputs on which the activation statistics are averaged, >= 1 (at most ``task.n_test`` are
        used).
    dtype : {"float32", "float64"}, default "float32"
        Precision of the training ("float32", PyTorch's default: this project's choice).

    Examples
    --------
    >>> from dynamics.spurious import ParitySweepConfig, ParityTaskConfig
    >>> config = ParitySweepConfig(task=ParityTaskConfig(n_train=300, n_test=200), width=24, epoch_cap=6)
    >>> config.task.n_core, config.depth, config.batch_size, config.dtype
    (6, 2, 100, 'float32')
    """

    task: ParityTaskConfig = ParityTaskConfig()
    width: int = 200
    depth: int = 2
    batch_size: int = 100
    epoch_cap: int = 800
    n_activation_inputs: int = 1000
    dtype: str = "float32"

    @classmethod
    def source(cls) -> "ParitySweepConfig":
        """The paper's sweep: 10000/10000 samples, width 200, batch 100, SGD to 100% training accuracy; in float32.

        The paper gives the set sizes, ρ = 0.1, the width, the batch and the stopping rule; it leaves open C, S and
        N (:meth:`dynamics.spurious.ParityTaskConfig.source`), gives the depth as 3 hidden layers in one place and 2
        in another (2 here), and sets no epoch cap (800 here) nor the number of inputs of the activation statistics
        (1000 here); the float32 training is this project's.

        Examples
        --------
        >>> config = ParitySweepConfig.source()
        >>> config.task.n_train, config.width, config.batch_size, config.epoch_cap
        (10000, 200, 100, 800)
        """
        return cls(task=ParityTaskConfig.source(), width=200, depth=2, batch_size=100, epoch_cap=800,
                   n_activation_inputs=1000, dtype="float32")

    @classmethod
    def ci(cls) -> "ParitySweepConfig":
        """The size of the sweep's claims on the CPU: the source's (cap 800 epochs; a GPU run caps at 1000).

        Examples
        --------
        >>> ParitySweepConfig.ci() == ParitySweepConfig.source()
        True
        """
        return cls.source()


class ParityTrainingConfig(NamedTuple):
    """Settings of the experiments in miniature of Barsbey et al. 2025 on the parity task (Figs. 3 right, 6, 13, 19,
    22-24, Table 2), trained by :func:`dynamics.spurious.torch_experiments.parity_training_runs` and its wrappers
    (:func:`dynamics.spurious.torch_experiments.lr_attribution_runs`,
    :func:`dynamics.spurious.torch_experiments.lr_robustness_runs`,
    :func:`dynamics.spurious.torch_experiments.width_lr_sweep`, and through
    :class:`dynamics.spurious.InterventionConfig` :func:`dynamics.spurious.torch_experiments.intervention_runs`).

    A bias-free ReLU network d → width → … → 2; loss: the minibatch's mean focal loss −(1 − p_y)^γ log p_y
    (γ = 0: cross-entropy) plus l1‖θ‖₁ + (l2/2)‖θ‖²; update: SGD with heavy-ball momentum as ``torch.optim.SGD``,
    or Adam (β = (0.9, 0.999), ε = 1e-8); a run stops at the end of its first epoch that meets ``stop``, or at
    ``epoch_cap``. ``momentum``, ``l1``, ``l2`` and ``focal_gamma`` take one value, or a tuple of one value per
    learning rate of the call. The defaults are this project's CPU miniature (:meth:`ci`); :meth:`source` is the
    paper's size, which the claims run on a GPU. The learning rates and the seeds are the trainers' arguments.

    Attributes
    ----------
    task : ParityTaskConfig, default ParityTaskConfig(n_train=2000, n_test=2000, n_core=4)
        The data (S = 2, N = 12 bits, ρ = 0.1).
    optimizer : {"sgd", "adam"}, default "sgd"
        The update rule.
    momentum : float or tuple of float, default 0.0
        Heavy-ball momentum μ in [0, 0.999] (SGD only).
    l1 : float or tuple of float, default 0.0
        L1 coefficient in [0, 10], entering the gradient as l1·sign(θ).
    l2 : float or tuple of float, default 0.0
        L2 coefficient in [0, 10], entering the gradient as l2·θ.
    focal_gamma : float or tuple of float, default 0.0
        Focal-loss exponent γ in [0, 100] (0: cross-entropy).
    anneal_step : int or None, default None
        The step (counted from 0, in [0, 10^9]) from which the learning rate is multiplied by ``anneal_factor``;
        None keeps it constant.
    anneal_factor : float, default 0.1
        In (0, 1].
    stop : {"fit", "loss"}, default "fit"
        Stop at 100% training accuracy ("fit") or once the mean training cross-entropy is below ``loss_target``
        ("loss").
    loss_target : float, default 1e-5
        The mean training cross-entropy, in (0, 1], that stops a run under ``stop="loss"``.
    width : int, default 50
        Hidden units per layer, in [1, 4096].
    depth : int, default 2
        Hidden layers, in [1, 8].
    batch_size : int, default 100
        Minibatch size, in [1, 10000] (the last batch of an epoch may be smaller).
    epoch_cap : int, default 150
        The most epochs a run trains, in [1, 100000].
    record_every : int, default 20
        SGD steps between records of the attribution shares, >= 1 (they are recorded after the last step too).
    n_attribution_inputs : int, default 500
        Random test inputs, in [1, ``task.n_test``], on which the attribution shares are averaged.
    dtype : {"float32", "float64"}, default "float32"
        Precision of the training ("float32", PyTorch's default: this project's choice).

    Examples
    --------
    >>> from dynamics.spurious import ParityTrainingConfig
    >>> config = ParityTrainingConfig(epoch_cap=60)._replace(momentum=(0.0, 0.9))
    >>> config.task.n_core, config.width, config.epoch_cap, config.momentum
    (4, 50, 60, (0.0, 0.9))
    """

    task: ParityTaskConfig = ParityTaskConfig(n_train=2000, n_test=2000, n_core=4)
    optimizer: str = "sgd"
    momentum: Union[float, Tuple[float, ...]] = 0.0
    l1: Union[float, Tuple[float, ...]] = 0.0
    l2: Union[float, Tuple[float, ...]] = 0.0
    focal_gamma: Union[float, Tuple[float, ...]] = 0.0
    anneal_step: Optional[int] = None
    anneal_factor: float = 0.1
    stop: str = "fit"
    loss_target: float = 1e-5
    width: int = 50
    depth: int = 2
    batch_size: int = 100
    epoch_cap: int = 150
    record_every: int = 20
    n_attribution_inputs: int = 500
    dtype: str = "float32"

    @classmethod
    def source(cls) -> "ParityTrainingConfig":
        """The paper's sizes: 10000/10000 samples, width 200, batch 100, SGD to 100% training accuracy; in float32.

        The paper gives the set sizes, ρ = 0.1, the width, the batch, plain SGD and the stop at 100% training
        accuracy. It leaves open C, S and N, the depth (3 hidden layers in one place, 2 in another), an epoch cap,
        and the attribution's method, inputs and record interval: those keep the miniature's values (C = 4, S = 2,
        N = 12, depth 2, integrated gradients on 500 test inputs every 20 steps, float32), with a cap of 800
        epochs. Too large for the CPU claims: a GPU run uses it.

        Examples
        --------
        >>> config = ParityTrainingConfig.source()
        >>> config.task.n_train, config.task.n_test, config.width, config.batch_size, config.epoch_cap
        (10000, 10000, 200, 100, 800)
        """
        return cls.ci()._replace(task=ParityTaskConfig(n_train=10000, n_test=10000, n_core=4), width=200,
                                 batch_size=100, epoch_cap=800)

    @classmethod
    def ci(cls) -> "ParityTrainingConfig":
        """The CPU miniature of the attribution claims: 2000 samples each, C = 4, width 50, cap 150 epochs.

        Examples
        --------
        >>> config = ParityTrainingConfig.ci()
        >>> config.task.n_train, config.task.n_core, config.width, config.epoch_cap
        (2000, 4, 50, 150)
        """
        return cls(task=ParityTaskConfig(n_train=2000, n_test=2000, n_core=4), width=50, epoch_cap=150)


class InterventionConfig(NamedTuple):
    """Settings of the interventions other than the learning rate against the high learning rate on the parity task
    (Barsbey et al. 2025, Figs. 6 and 19, Table 2), trained by
    :func:`dynamics.spurious.torch_experiments.intervention_runs`: at ``low_lr`` plain SGD, heavy-ball momentum, an
    L1 penalty, an L2 penalty, focal loss and a smaller batch; at ``high_lr`` plain SGD and SGD with an L2 penalty.

    Every row trains with the data and protocol of ``training``, except that the rows set ``momentum``, ``l1``,
    ``l2`` and ``focal_gamma`` (0 where a row does not name them) and the small-batch row its batch size;
    ``training.record_every`` is not used (only the attributions at the stop are kept). The defaults are this
    project's CPU miniature with the cap of the attribution claims; :meth:`ci` is the claim's CPU size and
    :meth:`source` the paper's sizes.

    Attributes
    ----------
    low_lr : float, default 0.05
        η > 0 of the interventions.
    high_lr : float, default 0.75
        η > 0 of the two high-learning-rate rows.
    momentum : float, default 0.9
        μ in [0, 0.999] of the momentum row.
    l1 : float, default 1e-4
        L1 coefficient in [0, 10] of the L1 row.
    l2 : float, default 5e-3
        L2 coefficient in [0, 10] of the L2 row at the low learning rate.
    high_lr_l2 : float, default 1e-3
        L2 coefficient in [0, 10] of the row "high lr + l2".
    focal_gamma : float, default 2.0
        γ in [0, 100] of the focal-loss row.
    small_batch : int, default 25
        The batch size of the row "small batch", in [1, 10000] (the other rows use ``training.batch_size``).
    training : ParityTrainingConfig, default ParityTrainingConfig()
        The data and the training protocol of every row.

    Examples
    --------
    >>> from dynamics.spurious import InterventionConfig
    >>> config = InterventionConfig(momentum=0.5)
    >>> config.low_lr, config.momentum, config.training.epoch_cap
    (0.05, 0.5, 150)
    """

    low_lr: float = 0.05
    high_lr: float = 0.75
    momentum: float = 0.9
    l1: float = 1e-4
    l2: float = 5e-3
    high_lr_l2: float = 1e-3
    focal_gamma: float = 2.0
    small_batch: int = 25
    training: ParityTrainingConfig = ParityTrainingConfig()

    @classmethod
    def source(cls) -> "InterventionConfig":
        """The rows at the paper's sizes (:meth:`dynamics.spurious.ParityTrainingConfig.source`): the claim's GPU size.

        The paper sweeps each hyper-parameter over a range (Figs. 6 and 19); it gives no single value, so the rows
        keep this project's (momentum 0.9, L1 1e-4, L2 5e-3, focal γ = 2, batch 25 at η = 0.05; L2 1e-3 at
        η = 0.75).

        Examples
        --------
        >>> InterventionConfig.source().training == ParityTrainingConfig.source()
        True
        """
        return cls(training=ParityTrainingConfig.source())

    @classmethod
    def ci(cls) -> "InterventionConfig":
        """The claim's CPU size: the miniature of :meth:`dynamics.spurious.ParityTrainingConfig.ci`, cap 60 epochs.

        Examples
        --------
        >>> InterventionConfig.ci().training.epoch_cap
        60
        """
        return cls(training=ParityTrainingConfig.ci()._replace(epoch_cap=60))


class SpuriousRuleLogitsConfig(NamedTuple):
    """Settings of the parity network read while it predicts by the spurious rule, for the check of Proposition 1
    of Barsbey et al. 2025 (Eq. 1) on real logits, computed by
    :func:`dynamics.spurious.torch_training.spurious_rule_logits`.

    FCN 20→200→200→2 (no bias) on the parity task (C = 6, S = 2, N = 12, ρ = 0.1), float64, plain SGD on
    minibatches of 100 drawn independently at each step, evaluated every ``eval_every`` steps until the network
    predicts the bias label b on enough training samples. The defaults are the cross-check's (:meth:`ci`).

    Attributes
    ----------
    learning_rate : float, default 0.1
        Constant SGD step size η > 0.
    n_aligned : int, default 100
        BA training samples predicted as their bias label b to read, >= 1 (at least 50 for the cross-check to mean
        something).
    n_conflicting : int, default 10
        BC training samples predicted as b to read, >= 1 (at least 5 for the cross-check).
    min_aligned_accuracy : float, default 0.9
        The fraction, in [0, 1], of the BA training samples the network must predict as b.
    eval_every : int, default 10
        SGD steps between evaluations, >= 1.
    max_steps : int, default 5000
        SGD steps after which the search gives up with a RuntimeError, >= 1.
    n_train : int, default 10000
        Training samples, >= 100.

    Examples
    --------
    >>> from dynamics.spurious import SpuriousRuleLogitsConfig
    >>> SpuriousRuleLogitsConfig(n_aligned=50, n_conflicting=5).n_train
    10000
    """

    learning_rate: float = 0.1
    n_aligned: int = 100
    n_conflicting: int = 10
    min_aligned_accuracy: float = 0.9
    eval_every: int = 10
    max_steps: int = 5000
    n_train: int = 10000

    @classmethod
    def source(cls) -> "SpuriousRuleLogitsConfig":
        """The paper's parity network and training-set size (10000); the rest at this project's values.

        The network and the data are those of the paper's parity experiment (:class:`ParitySweepConfig`); the paper
        has no experiment that reads the logits, so the learning rate, the subset and the rule that picks the
        evaluation are this project's (the defaults).

        Examples
        --------
        >>> SpuriousRuleLogitsConfig.source().n_train
        10000
        """
        return cls(learning_rate=0.1, n_aligned=100, n_conflicting=10, min_aligned_accuracy=0.9, eval_every=10,
                   max_steps=5000, n_train=10000)

    @classmethod
    def ci(cls) -> "SpuriousRuleLogitsConfig":
        """The size of the cross-check spurious.prop1_on_network: the source's.

        Examples
        --------
        >>> config = SpuriousRuleLogitsConfig.ci()
        >>> config.n_aligned, config.n_conflicting, config == SpuriousRuleLogitsConfig.source()
        (100, 10, True)
        """
        return cls.source()


class BalancingToyConfig(NamedTuple):
    """Settings of the linear toy of Pezeshki (thesis) §8.4 (Eq. 8.4.1, Ch. 8 Fig. 1; Idrissi et al. 2022) trained
    with a balancing method of its §8.3, shared by the numpy trainer :func:`dynamics.spurious.train_balancing_toy`,
    its experiment over seeds and methods :func:`dynamics.spurious.balancing_toy_runs`, the batched torch trainer
    :func:`dynamics.spurious.torch_balancing.train_balancing_methods` and the torch replay
    :func:`dynamics.spurious.torch_training.replay_balancing_toy`.

    The model f(x) = wᵀ(γ ⊙ x), no bias, BCE-with-logits, torch ``SGD`` with momentum and weight decay. The functions
    that take the data as given (the numpy trainer and the replay) read the toy's size from the data, not from
    ``n_samples`` and ``n_noise``. The defaults are this project's CPU size, which the claims and figures run
    (:meth:`ci`); :meth:`source` is the authors' code's. The methods and the seeds are the trainers' arguments.

    Attributes
    ----------
    n_samples : int, default 400
        n, even: the size of every split, >= 2 (8 to 100000 in the torch trainer).
    n_noise : int, default 600
        d >= 0 noise features (at most 100000 in the torch trainer).
    learning_rate : float, default 1e-5
        SGD step size η > 0 (at most 10 in the torch trainer).
    momentum : float, default 0.9
        μ in [0, 1) (torch's convention, dampening 0).
    weight_decay : float, default 0.0
        λ >= 0, the gradient gaining λw (at most 100 in the torch trainer).
    batch_size : int, default 100
        Minibatch size >= 1 (at most ``n_samples`` in the torch trainer); the last batch of an epoch may be partial.
    n_epochs : int, default 500
        Epochs >= 1 (at most 100000 in the torch trainer); JTT needs more than ``jtt_epochs`` + 1.
    gammas : tuple of 3 floats, default (4.0, 1.0, 2.0)
        (γ_spu, γ_core, γ_noise), each > 0: the per-feature scales, which act as per-feature learning rates.
    jtt_epochs : int, default 1
        JTT's first-stage length T >= 1 (at most 10000 in the torch trainer).
    jtt_upweight : int, default 20
        JTT's λ_up >= 1 (at most 10000 in the torch trainer).
    gdro_step_size : float, default 0.1
        gDRO's step size η_q > 0 (at most 100 in the torch trainer).
    gdro_sampler : {"group", "shuffle"}, default "group"
        gDRO's minibatches come from the group-balanced sampler (as in the authors' code) or from reshuffles of the
        data (the numpy trainer only).

    Examples
    --------
    >>> from dynamics.spurious import BalancingToyConfig
    >>> config = BalancingToyConfig(n_samples=40, n_noise=6, n_epochs=20, learning_rate=1e-3, batch_size=10)
    >>> config.momentum, config.gammas, config.jtt_upweight
    (0.9, (4.0, 1.0, 2.0), 20)
    """

    n_samples: int = 400
    n_noise: int = 600
    learning_rate: float = 1e-5
    momentum: float = 0.9
    weight_decay: float = 0.0
    batch_size: int = 100
    n_epochs: int = 500
    gammas: Tuple[float, float, float] = (4.0, 1.0, 2.0)
    jtt_epochs: int = 1
    jtt_upweight: int = 20
    gdro_step_size: float = 0.1
    gdro_sampler: str = "group"

    @classmethod
    def source(cls) -> "BalancingToyConfig":
        """The authors' code's toy: n = 1000, d = 1200, batch 250, 500 epochs, lr 1e-5, momentum 0.9, no weight decay.

        The authors' code (the BalancingGroups repository: ``train_toy.py``, ``models.py``, ``datasets.py``) gives
        n = 1000, d = 1200, batch 250, 500 epochs, γ = (4, 1, 2), SGD with momentum 0.9, gDRO's η_q = 0.1 with the
        group-balanced sampler and JTT's T = 1; it sweeps the learning rate over {1e-6, 1e-5} and the weight decay
        over {0, 0.1, 1, 10} (here 1e-5 and 0, one cell of that grid). Its toy sweep runs no JTT, so λ_up = 20 is
        this project's. Too slow for the CPU claims: a GPU run uses it.

        Examples
        --------
        >>> config = BalancingToyConfig.source()
        >>> config.n_samples, config.n_noise, config.batch_size, config.n_epochs
        (1000, 1200, 250, 500)
        """
        return cls(n_samples=1000, n_noise=1200, learning_rate=1e-5, momentum=0.9, weight_decay=0.0, batch_size=250,
                   n_epochs=500, gammas=(4.0, 1.0, 2.0), jtt_epochs=1, jtt_upweight=20, gdro_step_size=0.1,
                   gdro_sampler="group")

    @classmethod
    def ci(cls) -> "BalancingToyConfig":
        """This project's CPU size of the claims and figures: n = 400, d = 600, batch 100, the source's otherwise.

        Examples
        --------
        >>> config = BalancingToyConfig.ci()
        >>> config.n_samples, config.n_noise, config.batch_size, config.n_epochs
        (400, 600, 100, 500)
        """
        return cls.source()._replace(n_samples=400, n_noise=600, batch_size=100)


# ------------------------------------------------------------------------------------------ moon-star-like
class MoonStarConfig(NamedTuple):
    """Settings of the moon-star-like learning-rate experiment (Barsbey et al. 2025, Fig. 15 and Table 1, Moon-Star
    row; the data set of Geirhos et al. 2020, which this project rebuilds "moon-star-like"), trained by
    :func:`dynamics.spurious.torch_moon_star.moon_star_lr_runs`.

    Data: :func:`dynamics.spurious.make_moon_star_like`, the training set at BC rate ``bc_rate``, the test set
    unbiased (BC rate 0.5). Model: FCN image_size² → width → … → 2 (``depth`` hidden layers, ReLU, no bias,
    PyTorch's default U(±1/√fan_in) initialisation). Update: plain SGD on the minibatch's mean cross-entropy, batches
    of ``batch_size`` in a fresh permutation every epoch; a run stops at the end of its first epoch with 100%
    training accuracy, or at ``epoch_cap``. The defaults are this project's CPU size of the claim (:meth:`ci`);
    :meth:`record` is the size of the record. The learning rates and the seeds are the trainer's arguments.

    Attributes
    ----------
    n_train : int, default 2000
        Training images, in [2, 100000].
    n_test : int, default 2000
        Test images (unbiased), in [2, 100000].
    image_size : int, default 16
        Side of the square image in pixels, even, in [8, 128].
    bc_rate : float, default 0.1
        The training set's bias-conflicting rate ρ_train, in [0, 1].
    width : int, default 100
        Hidden units per layer, in [1, 4096].
    depth : int, default 2
        Hidden layers, in [1, 8].
    batch_size : int, default 100
        Minibatch size, in [1, 10000] (the last batch of an epoch may be smaller).
    epoch_cap : int, default 100
        The most epochs a run trains, in [1, 100000].
    dtype : {"float32", "float64"}, default "float32"
        Precision of the training (float32, PyTorch's default: this project's choice).

    Examples
    --------
    >>> from dynamics.spurious import MoonStarConfig
    >>> config = MoonStarConfig.record()
    >>> config.n_train, config.image_size, config.width, config.batch_size
    (10000, 32, 200, 100)
    >>> MoonStarConfig.ci()._replace(epoch_cap=5).epoch_cap
    5
    """

    n_train: int = 2000
    n_test: int = 2000
    image_size: int = 16
    bc_rate: float = 0.1
    width: int = 100
    depth: int = 2
    batch_size: int = 100
    epoch_cap: int = 100
    dtype: str = "float32"

    @classmethod
    def ci(cls) -> "MoonStarConfig":
        """The CPU size of the experiment claim: 2000 training and 2000 test images of 16 × 16 pixels, FCN
        256→100→100→2, batch 100, cap 100 epochs (2 learning rates × 6 seeds in well under a minute on one core).

        Examples
        --------
        >>> config = MoonStarConfig.ci()
        >>> config.n_train, config.image_size, config.width, config.epoch_cap
        (2000, 16, 100, 100)
        """
        return cls()

    @classmethod
    def record(cls) -> "MoonStarConfig":
        """The size of the record: 10000 training and 5000 test images of 32 × 32 pixels, ρ_train = 0.1, FCN
        1024→200→200→2 without bias, plain SGD with batch 100 to 100% training accuracy (cap 600 epochs), float32.

        The paper gives ρ_train = 0.1, ρ_test = 0.5, an FCN, SGD to 100% training accuracy and learning rates
        0.01-0.75; it leaves open the image size, the rendering, the set sizes, the width and depth and the batch,
        which take the sizes of the paper's parity experiment (10000 training samples, width 200, batch 100). The cap
        is far above the epochs the runs need (on the record's 10 seeds η = 0.01 fitted in 154-302 epochs, η = 0.75 in
        4-16), so that both learning rates are compared at 100% training accuracy.

        Examples
        --------
        >>> config = MoonStarConfig.record()
        >>> config.n_test, config.depth, config.epoch_cap, config.dtype
        (5000, 2, 600, 'float32')
        """
        return cls(n_train=10000, n_test=5000, image_size=32, bc_rate=0.1, width=200, depth=2, batch_size=100,
                   epoch_cap=600, dtype="float32")


class MoonStarRuns(NamedTuple):
    """Every (learning rate, seed) run of :func:`dynamics.spurious.torch_moon_star.moon_star_lr_runs`: arrays with
    axes (learning rate, seed).

    Attributes
    ----------
    learning_rates : ndarray, shape (L,)
    seeds : tuple of int, length S
    unbiased_accuracy : ndarray, shape (L, S)
        Accuracy on the unbiased test set (BC rate 0.5), at the stop.
    ba_accuracy, bc_accuracy : ndarray, shape (L, S)
        Accuracy on the test set's bias-aligned (y = b) and bias-conflicting (y != b) images.
    train_accuracy : ndarray, shape (L, S)
        Accuracy on the training set at the stop (1 when fitted).
    epochs_to_fit : ndarray of int64, shape (L, S)
        Epochs trained: the first epoch at whose end the run classified every training image correctly, or the cap.
    fitted : ndarray of bool, shape (L, S)
        Whether the run reached 100% training accuracy within the cap.
    class_selectivity : ndarray, shape (L, S)
        Mean class-selectivity index (the CSI of Barsbey et al. 2025) of the penultimate layer's units on the test
        set (:func:`dynamics.spurious.mean_class_selectivity`).
    """

    learning_rates: np.ndarray
    seeds: tuple
    unbiased_accuracy: np.ndarray
    ba_accuracy: np.ndarray
    bc_accuracy: np.ndarray
    train_accuracy: np.ndarray
    epochs_to_fit: np.ndarray
    fitted: np.ndarray
    class_selectivity: np.ndarray
