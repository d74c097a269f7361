"""The named results of :mod:`dynamics.and_mask`, the torch layer's included.

Every public function that returns more than one value returns one of these ``typing.NamedTuple`` s: readable by
attribute, and still unpackable (``first, second = masked_update_moments(4, 0.5, 1.0)``). This module imports no
formula module of the package and not torch (the torch layer's fields are annotated by name).
"""
import math
from typing import List, NamedTuple, Optional

import numpy as np

__all__ = ["AndMaskStep", "BasinFractions", "ConditionalEstimate", "ConditionalMoments", "EmaMoments",
           "EnvironmentSweep", "LearningSignals", "NoisyLabelRun", "SpiralMemorisation",
           "LinearPatchwork", "LinearPatchworkRun", "MaskEstimate", "MaskSimulation", "MaskedDescent", "MaskedMoments",
           "MaskedNormCurves", "MaskedNormSamples", "MaskedUpdateCurves", "MaskedUpdateSamples", "NoiseNormBounds",
           "PatchworkLosses", "ProbabilityBounds", "ShortcutDataset", "ShortcutRun", "ShortcutSweep", "SpiralDataset",
           "SquaredNorms", "TemporalMaskSimulation", "ThresholdSweep", "ThresholdSweepSamples", "TwoValleyDescent",
           "TwoValleyLosses"]


class MaskedMoments(NamedTuple):
    """Exact moments of one masked coordinate (derived in this project; see the theory note,
    docs/theory/and_mask.md).

    Attributes
    ----------
    first_moment : float
        E[m_τ ḡ], the expected masked update of the coordinate.
    second_moment : float
        E[m_τ ḡ²]; times n_params it is E‖m_τ ⊙ ḡ‖².
    """

    first_moment: float
    second_moment: float


class ConditionalMoments(NamedTuple):
    """Moments of the mean gradient ḡ given the number k of positive signs (derived in this project).

    Attributes
    ----------
    mean : float
        E[ḡ | P = k].
    second_moment : float
        E[ḡ² | P = k].
    """

    mean: float
    second_moment: float


class SquaredNorms(NamedTuple):
    """Expected squared norms of the masked and the plain mean gradient over n coordinates (paper Fig 4).

    Attributes
    ----------
    masked : float
        E‖m_τ ⊙ ḡ‖².
    unmasked : float
        E‖ḡ‖².
    """

    masked: float
    unmasked: float


class ProbabilityBounds(NamedTuple):
    """Lower and upper bounds on a probability.

    Attributes
    ----------
    lower, upper : float
    """

    lower: float
    upper: float


class NoiseNormBounds(NamedTuple):
    """Upper bounds on E‖m_t ⊙ ḡ‖² for pure-noise gradients: Proposition 2 of Parascandolo et al. 2021, as
    corrected in this project.

    Attributes
    ----------
    paper_chain : float
        nσ²(d − t + 1)C(d, t)2^{1−d}: the paper's chain with the corrected factor.
    conditional : float
        nσ²(2/π + (1 − 2/π)/d)·π₀(d, t), from E[ḡ² | P = k] <= E[ḡ² | P = d].
    chernoff : float
        2nσ²(2/π + (1 − 2/π)/d)·e^{−d·KL(t/d‖½)}.
    exponential : float
        2nσ²·e^{−d·KL(t/d‖½)}, which is 2nσ²·c(τ)^{−d} at t = d(1 + τ)/2.
    """

    paper_chain: float
    conditional: float
    chernoff: float
    exponential: float


class EmaMoments(NamedTuple):
    """Mean and variance of the sign EMA of the temporal AND-mask (Parascandolo et al. 2021, Algorithm 1).

    Attributes
    ----------
    mean, variance : float or ndarray
        Of the shape of the requested steps.
    """

    mean: object
    variance: object


class MaskedDescent(NamedTuple):
    """A run of AND-masked gradient descent (Parascandolo et al. 2021, §2.3 and Proposition 1).

    Attributes
    ----------
    thetas : ndarray, shape (n_steps + 1, n_params)
        The iterates θ^0, ..., θ^k.
    losses : ndarray, shape (n_steps + 1,), or None
        The pooled loss at each iterate, when a loss function was given.
    masked_gradient_sq : ndarray, shape (n_steps,)
        ‖u(θ^i)‖² of the update taken at step i (‖m ⊙ ∇L‖² without rescaling or geometric mean).
    """

    thetas: np.ndarray
    losses: Optional[np.ndarray]
    masked_gradient_sq: np.ndarray


class MaskEstimate(NamedTuple):
    """Monte Carlo estimates of a mask's statistics per coordinate, with their standard errors.

    Attributes
    ----------
    keep_probability, keep_probability_se : float
        Fraction of coordinates kept and its standard error √(p̂(1 − p̂)/N).
    first_moment, first_moment_se : float
        Mean of m·ḡ and its standard error.
    second_moment, second_moment_se : float
        Mean of m·ḡ² and its standard error (from the sample fourth moment).
    n_samples : int
        Number N of simulated coordinates.
    """

    keep_probability: float
    keep_probability_se: float
    first_moment: float
    first_moment_se: float
    second_moment: float
    second_moment_se: float
    n_samples: int


class ConditionalEstimate(NamedTuple):
    """A Monte Carlo conditional mean with its standard error.

    Attributes
    ----------
    mean, standard_error : float
    count : int
        Number of samples it averages.
    """

    mean: float
    standard_error: float
    count: int


class MaskSimulation(NamedTuple):
    """Sufficient statistics of a Monte Carlo run of the mask: sums binned by the sign sum S = P − N.

    Every τ-form statistic depends on τ only through the keep set {abs(S) >= T(d, τ)}, so one run answers every
    threshold (:func:`~dynamics.and_mask.estimate_from_simulation`).

    Attributes
    ----------
    n_envs : int
        Number of environments d.
    n_samples : int
        Number N of simulated coordinates (each a column of d gradients).
    counts : ndarray, shape (2d + 1,)
        Number of coordinates with S = −d, ..., d (index S + d).
    sums, sums_sq, sums_fourth : ndarray, shape (2d + 1,)
        Σ ḡ, Σ ḡ² and Σ ḡ⁴ over those coordinates.
    """

    n_envs: int
    n_samples: int
    counts: np.ndarray
    sums: np.ndarray
    sums_sq: np.ndarray
    sums_fourth: np.ndarray

    @property
    def sign_sums(self) -> np.ndarray:
        """The sign sums S = −d, ..., d indexing the bins."""
        return np.arange(-self.n_envs, self.n_envs + 1)

    def conditional_second_moment(self, sign_sum) -> "ConditionalEstimate":
        """The sample mean of ḡ² among the coordinates with S = ``sign_sum``, with its standard error.

        Parameters
        ----------
        sign_sum : int
            S in [−d, d] (without exact zeros, S = 2k − d for k positive signs).

        Returns
        -------
        ConditionalEstimate
            NaN mean and standard error when no coordinate has that sign sum.
        """
        i = int(sign_sum) + self.n_envs
        if not 0 <= i <= 2 * self.n_envs:
            raise ValueError(f"sign_sum must be in [-{self.n_envs}, {self.n_envs}], got {sign_sum}")
        count = int(self.counts[i])
        if count == 0:
            return ConditionalEstimate(math.nan, math.nan, 0)
        mean = self.sums_sq[i] / count
        variance = max(self.sums_fourth[i] / count - mean * mean, 0.0)
        return ConditionalEstimate(float(mean), math.sqrt(variance / count), count)


class TemporalMaskSimulation(NamedTuple):
    """Monte Carlo of the temporal AND-mask's sign EMA (Parascandolo et al. 2021, Algorithm 1), per step.

    Attributes
    ----------
    steps : ndarray of int, shape (n_steps,)
        Step counts k = 1, ..., n_steps.
    ema_mean, ema_mean_se : ndarray, shape (n_steps,)
        Mean of a_k over the chains and its standard error.
    ema_variance : ndarray, shape (n_steps,)
        Sample variance of a_k over the chains (its standard error is ``ema_variance_se``).
    ema_variance_se : ndarray, shape (n_steps,)
        Standard error of the sample variance, from the sample fourth central moment.
    keep_probability, keep_probability_se : ndarray, shape (n_steps,)
        Fraction of chains with abs(a_k) >= τ and its standard error.
    n_chains : int
        Number of independent coordinates simulated.
    """

    steps: np.ndarray
    ema_mean: np.ndarray
    ema_mean_se: np.ndarray
    ema_variance: np.ndarray
    ema_variance_se: np.ndarray
    keep_probability: np.ndarray
    keep_probability_se: np.ndarray
    n_chains: int


class TwoValleyLosses(NamedTuple):
    """The two-valley landscape at some points: the project's construction of the consistent and inconsistent
    minima of Fig 1 of Parascandolo et al. 2021.

    Attributes
    ----------
    loss_a, loss_b : ndarray
        L_A and L_B, of the shape of the points without the last axis.
    pooled : ndarray
        L = ½(L_A + L_B).
    """

    loss_a: np.ndarray
    loss_b: np.ndarray
    pooled: np.ndarray


class TwoValleyDescent(NamedTuple):
    """Gradient descent runs on the two-valley landscape of Fig 1 of Parascandolo et al. 2021.

    Attributes
    ----------
    final : ndarray, shape (m, 2)
        The last iterate of each run.
    paths : ndarray, shape (m, n_record, 2)
        The iterates at ``recorded_steps``.
    recorded_steps : ndarray of int, shape (n_record,)
        Step counts of the recorded iterates (0 is the start).
    """

    final: np.ndarray
    paths: np.ndarray
    recorded_steps: np.ndarray


class BasinFractions(NamedTuple):
    """Where gradient descent from a grid of starts on the two-valley landscape (Fig 1 of Parascandolo et al. 2021)
    ends.

    Attributes
    ----------
    consistent : float
        Fraction ending within the tolerance of the shared minimum c = (−0.5, −0.5).
    inconsistent : float
        Fraction ending within the tolerance of s* = (0.8, 0.8).
    other : float
        The rest (for the AND-mask: stalled where m ⊙ ∇L = 0 but ∇L ≠ 0; for one environment: on its valley).
    n_runs : int
    """

    consistent: float
    inconsistent: float
    other: float
    n_runs: int


class PatchworkLosses(NamedTuple):
    """Losses of the 1-D sigmoid patchwork example on its two environments (Parascandolo et al. 2021, appendix
    "Section 2.1").

    Attributes
    ----------
    loss_a : float
        Mean squared error on x in [0, 0.5).
    loss_b : float
        Mean squared error on x in [0.5, 1].
    """

    loss_a: float
    loss_b: float


class LinearPatchwork(NamedTuple):
    """The authors' linear-regression patchwork data (their notebook ``linear_regression_ilc``): one example per
    environment.

    Attributes
    ----------
    inputs : ndarray, shape (4, 5)
        Row e: 3·[e_e | 0.1], a strong private feature e and a weak shared feature 5.
    targets : ndarray, shape (4,)
        All 1.
    """

    inputs: np.ndarray
    targets: np.ndarray


class SpiralDataset(NamedTuple):
    """The synthetic memorisation data set (Parascandolo et al. 2021, §3.1): spirals (mechanism) and
    per-environment shortcuts.

    Attributes
    ----------
    train_inputs : ndarray, shape (n_envs, n_samples_per_env, 2 + dim_shortcut)
        Mechanism columns (standardised) then shortcut columns, per environment.
    train_labels : ndarray, shape (n_envs, n_samples_per_env)
        Labels in {−1, +1}.
    test_inputs : ndarray, shape (n_test, 2 + dim_shortcut)
        The o.o.d. test set: shortcut entries drawn i.i.d. per example.
    test_labels : ndarray, shape (n_test,)
    """

    train_inputs: np.ndarray
    train_labels: np.ndarray
    test_inputs: np.ndarray
    test_labels: np.ndarray


class ShortcutDataset(NamedTuple):
    """The linearised shortcut task (the project's logistic-regression version of the memorisation task of
    Parascandolo et al. 2021, §3.1): one invariant feature and per-environment shortcut features.

    Attributes
    ----------
    train_inputs : ndarray, shape (n_envs, n_samples_per_env, 1 + dim_shortcut)
        Column 0: x_M = a·y + N(0, 1); columns 1..: x_S = y·s_e.
    train_labels : ndarray, shape (n_envs, n_samples_per_env)
        Labels in {−1, +1}.
    test_inputs : ndarray, shape (n_test, 1 + dim_shortcut)
        o.o.d.: the same x_M law, x_S ~ N(0, σ_S² I) per example.
    test_labels : ndarray, shape (n_test,)
    shortcut_test_inputs : ndarray, shape (n_test, 1 + dim_shortcut)
        The shortcut probe: x_M pure noise N(0, 1 + a²) carrying no label information, x_S = y·s_e of a random
        training environment; accuracy on it measures reliance on the shortcut.
    signal : float
        a, the invariant feature's signal (Bayes accuracy on the o.o.d. set: Φ(a)).
    """

    train_inputs: np.ndarray
    train_labels: np.ndarray
    test_inputs: np.ndarray
    test_labels: np.ndarray
    shortcut_test_inputs: np.ndarray
    signal: float


class ShortcutRun(NamedTuple):
    """Full-batch (masked) gradient descent on the logistic shortcut task.

    Attributes
    ----------
    weights : ndarray, shape (1 + dim_shortcut,)
        The final weights w (w[0] on the invariant feature).
    train_accuracy : float
    test_accuracy : float
        o.o.d. accuracy (the mechanism).
    shortcut_accuracy : float
        Accuracy on the shortcut probe (1 = decides by the shortcut, ½ = ignores it).
    initial_mask : ndarray of bool, shape (1 + dim_shortcut,)
        The AND-mask at the start (w = 0).
    """

    weights: np.ndarray
    train_accuracy: float
    test_accuracy: float
    shortcut_accuracy: float
    initial_mask: np.ndarray


class ShortcutSweep(NamedTuple):
    """Accuracies of the logistic shortcut task over agreement thresholds and data sets.

    Attributes
    ----------
    agreement_threshold : ndarray, shape (n_thresholds,)
        The thresholds τ (0: plain averaging).
    test_accuracy, shortcut_accuracy, train_accuracy : ndarray, shape (n_thresholds, n_seeds)
        o.o.d. accuracy (the mechanism), accuracy on the shortcut probe, and training accuracy of each run.
    bayes_accuracy : float
        Φ(a), the Bayes accuracy of the invariant feature alone.
    """

    agreement_threshold: np.ndarray
    test_accuracy: np.ndarray
    shortcut_accuracy: np.ndarray
    train_accuracy: np.ndarray
    bayes_accuracy: float


class MaskedNormCurves(NamedTuple):
    """Expected squared norms of the masked and plain mean gradient for pure noise against the number of
    environments, with t = ⌈ρd⌉ agreeing signs, and the corrected Proposition 2 bounds (Parascandolo et al. 2021,
    Fig 4).

    Attributes
    ----------
    n_envs : ndarray of int, shape (m,)
        The numbers of environments d.
    n_agree : ndarray of int, shape (m,)
        t = ⌈ρd − 1e-9⌉.
    agreement_threshold : ndarray, shape (m,)
        The equivalent τ = (2t − d)/d.
    masked, unmasked : ndarray, shape (m,)
        E‖m_t ⊙ ḡ‖² and E‖ḡ‖² = nσ²/d.
    paper_chain, exponential : ndarray, shape (m,)
        The bounds nσ²(d − t + 1)C(d, t)2^{1−d} and 2nσ²e^{−d·KL(t/d‖½)} of
        :class:`dynamics.and_mask.NoiseNormBounds`.
    """

    n_envs: np.ndarray
    n_agree: np.ndarray
    agreement_threshold: np.ndarray
    masked: np.ndarray
    unmasked: np.ndarray
    paper_chain: np.ndarray
    exponential: np.ndarray


class MaskedNormSamples(NamedTuple):
    """Monte Carlo estimates of E‖m_t ⊙ ḡ‖² and E‖ḡ‖² for pure noise (σ = 1), with t = ⌈ρd⌉ (paper Fig 4).

    Attributes
    ----------
    n_envs : ndarray of int, shape (m,)
    masked, masked_se : ndarray, shape (m,)
        n·(mean of m ḡ²) and its standard error.
    unmasked, unmasked_se : ndarray, shape (m,)
        n·(mean of ḡ²) and its standard error.
    """

    n_envs: np.ndarray
    masked: np.ndarray
    masked_se: np.ndarray
    unmasked: np.ndarray
    unmasked_se: np.ndarray


class MaskedUpdateCurves(NamedTuple):
    """Exact statistics of one masked coordinate with i.i.d. N(μ, σ²) gradients against the SNR s = μ/σ
    (derived in this project), in units of σ.

    Attributes
    ----------
    snr : ndarray, shape (m,)
    keep_probability : ndarray, shape (m,)
        π(d, τ, s).
    mean : ndarray, shape (m,)
        E[m ḡ]/σ.
    std : ndarray, shape (m,)
        The standard deviation of m ḡ over σ, √(E[m ḡ²] − E[m ḡ]²)/σ.
    """

    snr: np.ndarray
    keep_probability: np.ndarray
    mean: np.ndarray
    std: np.ndarray


class MaskedUpdateSamples(NamedTuple):
    """Monte Carlo estimates of the statistics of :class:`dynamics.and_mask.MaskedUpdateCurves` (σ = 1), one run
    per SNR.

    Attributes
    ----------
    snr : ndarray, shape (m,)
    kept : ndarray, shape (m,)
        Number of simulated coordinates that passed the mask.
    keep_probability, keep_probability_se : ndarray, shape (m,)
    mean, mean_se : ndarray, shape (m,)
        Sample mean of m ḡ and its standard error.
    std : ndarray, shape (m,)
        Sample standard deviation of m ḡ.
    """

    snr: np.ndarray
    kept: np.ndarray
    keep_probability: np.ndarray
    keep_probability_se: np.ndarray
    mean: np.ndarray
    mean_se: np.ndarray
    std: np.ndarray


class ThresholdSweep(NamedTuple):
    """A signal coordinate (SNR s) and a pure-noise coordinate against the agreement threshold τ = k/d, exactly
    (Proposition 2 of Parascandolo et al. 2021 and its extension to signal): the mask only changes just after
    each k/d.

    Attributes
    ----------
    agreement_threshold : ndarray, shape (d + 1,)
        τ = k/d, k = 0..d.
    keep_probability : ndarray, shape (d + 1,)
        π(d, τ, s) of the signal coordinate.
    noise_keep_probability : ndarray, shape (d + 1,)
        π₀(d, τ).
    mean_kept : ndarray, shape (d + 1,)
        E[m ḡ]/μ: the fraction of the signal's mean that the masked update keeps.
    noise_power_kept : ndarray, shape (d + 1,)
        E‖m ⊙ ḡ‖²/E‖ḡ‖² for pure noise (Proposition 2).
    """

    agreement_threshold: np.ndarray
    keep_probability: np.ndarray
    noise_keep_probability: np.ndarray
    mean_kept: np.ndarray
    noise_power_kept: np.ndarray


class ThresholdSweepSamples(NamedTuple):
    """Monte Carlo estimates of the statistics of :class:`dynamics.and_mask.ThresholdSweep` (σ = 1), one signal run
    and one pure-noise run answering every threshold.

    Attributes
    ----------
    agreement_threshold : ndarray, shape (m,)
    kept, noise_kept : ndarray, shape (m,)
        Numbers of simulated signal and noise coordinates that passed the mask.
    keep_probability, keep_probability_se : ndarray, shape (m,)
    noise_keep_probability, noise_keep_probability_se : ndarray, shape (m,)
    mean_kept, mean_kept_se : ndarray, shape (m,)
        Sample mean of m ḡ over μ and its standard error.
    noise_power_kept, noise_power_kept_se : ndarray, shape (m,)
        Sample mean of m ḡ² over E[ḡ²] = σ²/d (noise run) and its standard error.
    """

    agreement_threshold: np.ndarray
    kept: np.ndarray
    noise_kept: np.ndarray
    keep_probability: np.ndarray
    keep_probability_se: np.ndarray
    noise_keep_probability: np.ndarray
    noise_keep_probability_se: np.ndarray
    mean_kept: np.ndarray
    mean_kept_se: np.ndarray
    noise_power_kept: np.ndarray
    noise_power_kept_se: np.ndarray


# ------------------------------------------------------------------------------------------------ torch layer
class AndMaskStep(NamedTuple):
    """What one :meth:`~dynamics.and_mask.torch_optim.AndMask.step` did.

    Attributes
    ----------
    mean_loss : float
        The mean of the environment losses.
    kept_fraction : float
        Fraction of all parameter entries that passed the mask.
    masks : list of torch.Tensor
        The boolean mask of each parameter tensor, in optimizer order.
    """

    mean_loss: float
    kept_fraction: float
    masks: List["torch.Tensor"]  # noqa: F821  (annotated by name: this module does not import torch)


class LinearPatchworkRun(NamedTuple):
    """Runs of the authors' linear patchwork (their notebook ``linear_regression_ilc``), one row per initial
    point.

    Attributes
    ----------
    theta : ndarray, shape (n_runs, 5)
        Final parameters.
    train_loss : ndarray, shape (n_runs,)
        Mean of ½(x_e·θ − 1)² over the training environments.
    heldout_loss : ndarray, shape (n_runs,), or None
        The same over the other environments (None when all four were trained on).
    learning_rates : ndarray, shape (n_iters + 1,)
        The learning rate of each step (lr₀·0.9995^(i+1)).
    """

    theta: np.ndarray
    train_loss: np.ndarray
    heldout_loss: Optional[np.ndarray]
    learning_rates: np.ndarray


class SpiralMemorisation(NamedTuple):
    """Learning curves of the memorisation task (:func:`dynamics.and_mask.torch_experiments.train_spiral_memorisation`).

    Attributes
    ----------
    agreement_thresholds, l1_penalties, l2_penalties : ndarray, shape (n_settings,)
        τ, the L1 coefficient and the L2 coefficient of each setting.
    seeds : ndarray of int, shape (n_seeds,)
        The integer seed of each data set and weight initialisation (shared by all settings: runs are paired).
    steps : ndarray of int, shape (n_records,)
        The steps at which the accuracies were recorded (the last is the final step).
    train_accuracy : ndarray, shape (n_settings, n_seeds, n_records)
        Accuracy on the training environments (pooled).
    test_accuracy : ndarray, shape (n_settings, n_seeds, n_records)
        Accuracy on the o.o.d. test set (shortcut entries drawn per example).
    """

    agreement_thresholds: np.ndarray
    l1_penalties: np.ndarray
    l2_penalties: np.ndarray
    seeds: np.ndarray
    steps: np.ndarray
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray


class LearningSignals(NamedTuple):
    """Correlations of the masked average gradient at initialisation
    (:func:`dynamics.and_mask.torch_experiments.learning_signals_at_init`).

    Attributes
    ----------
    agreement_thresholds : ndarray, shape (n_taus,)
    and_memorisation, and_mechanism : ndarray, shape (n_seeds, n_taus)
        Pearson correlation, over the components the AND-mask keeps, of the masked average gradient with the
        memorisation gradient and with the mechanism gradient (NaN where fewer than 3 components are kept).
    xor_memorisation, xor_mechanism : ndarray, shape (n_seeds, n_taus)
        The same for the XOR-mask.
    and_kept_fraction, xor_kept_fraction : ndarray, shape (n_seeds, n_taus)
        The fraction of the parameters each mask keeps.
    """

    agreement_thresholds: np.ndarray
    and_memorisation: np.ndarray
    and_mechanism: np.ndarray
    xor_memorisation: np.ndarray
    xor_mechanism: np.ndarray
    and_kept_fraction: np.ndarray
    xor_kept_fraction: np.ndarray


class NoisyLabelRun(NamedTuple):
    """Learning curves with shuffled labels, each example its own environment
    (:func:`dynamics.and_mask.torch_experiments.train_noisy_labels`).

    Attributes
    ----------
    agreement_thresholds : ndarray, shape (n_taus,)
    seeds : ndarray of int, shape (n_seeds,)
    steps : ndarray of int, shape (n_records,)
    train_accuracy : ndarray, shape (n_taus, n_seeds, n_records)
        Accuracy against the training labels as given (shuffled ones included).
    mislabelled_accuracy : ndarray, shape (n_taus, n_seeds, n_records)
        Accuracy against the given labels on the training examples whose label the shuffle changed (NaN if none).
    clean_accuracy : ndarray, shape (n_taus, n_seeds, n_records)
        Accuracy on the training examples whose label is the true one.
    test_accuracy : ndarray, shape (n_taus, n_seeds, n_records)
        Accuracy on fresh examples with their true labels.
    mislabelled_fraction : ndarray, shape (n_seeds,)
        The fraction of training labels the shuffle changed.
    """

    agreement_thresholds: np.ndarray
    seeds: np.ndarray
    steps: np.ndarray
    train_accuracy: np.ndarray
    mislabelled_accuracy: np.ndarray
    clean_accuracy: np.ndarray
    test_accuracy: np.ndarray
    mislabelled_fraction: np.ndarray


class EnvironmentSweep(NamedTuple):
    """Final accuracies of plain averaging against the number of environments
    (:func:`dynamics.and_mask.torch_experiments.train_environment_sweep`).

    Attributes
    ----------
    n_envs : ndarray of int, shape (n_sizes,)
    seeds : ndarray of int, shape (n_seeds,)
    train_accuracy, test_accuracy : ndarray, shape (n_sizes, n_seeds)
        Final training accuracy and o.o.d. accuracy.
    """

    n_envs: np.ndarray
    seeds: np.ndarray
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray
