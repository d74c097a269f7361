"""The named results of :mod:`dynamics.spherical`, the torch layer's included.

Every public function that returns more than one value returns one of these ``typing.NamedTuple`` s: readable by
attribute, and still unpackable (``lower, upper = effective_lr_bounds_sgd(0.1, 1.0, 0.5, 2.0, 100)``). The torch
results annotate their tensors as strings: this module does not import torch.
"""
import math
from typing import Dict, NamedTuple, Tuple, Union

import numpy as np

from dynamics.numerics import require_finite_result

__all__ = ["AdaGradGComparison", "AdaGradGParameters", "AdamVariantsResult", "AdamVariantsTraining", "AnglesToSGD",
           "ClassificationData", "ClassificationSplit", "TheoremTwoHypotheses",
           "CollapseRun", "EffectiveLRBounds", "Equilibrium", "EquilibriumStatistics", "ExponentialLREquivalence",
           "GenericForm", "GeometricSchedule", "InvariantInterval", "LiAroraEquivalent", "OptimizerRun",
           "PythagoreanResult", "RadiusLaw", "RadiusSandwich", "SphericalStep", "SphericalStepBatch",
           "SphericalStepErrors", "Trajectory", "EffectiveLearningRates", "AdaGradGVsSGDM2Config",
           "AdamVariantsConfig", "AdamVariantsM2Config", "EquilibriumStatisticsConfig", "OptimizerRunsConfig"]

ArrayOrFloat = Union[float, np.ndarray]


# ------------------------------------------------------------------------------ Theorem 2 and the optimizers
class SphericalStep(NamedTuple):
    """The decomposition of one step on the sphere (Theorem 2 of Roburin et al. 2022; thesis Eqs 3.22-3.26).

    Attributes
    ----------
    A : float
        A_k = η_k/(r_k²d^{−1/2}‖b_k‖) (Eq 3.26).
    c : ndarray, shape (d,)
        c_k = r_k a_k ⊘ (b_k/(d^{−1/2}‖b_k‖)), the (deformed) momentum on the sphere (Eq 3.22).
    effective_learning_rate : float
        η_k^e = A_k/(1 − A_k⟨c_k,u_k⟩) (Eq 3.23).
    u_next : ndarray, shape (d,)
        u_{k+1}, a unit vector (Eq 3.24).
    r_next : float
        r_{k+1} (Eq 3.25, times ``decay``).

    Examples
    --------
    >>> from dynamics.spherical import spherical_step
    >>> A, c, effective, u_next, r_next = spherical_step([2.0, 0.0], [0.0, 1.0], 1.0, 0.4)
    >>> round(A, 6), round(effective, 6), round(r_next, 6)
    (0.1, 0.1, 2.039608)
    """

    A: float
    c: np.ndarray
    effective_learning_rate: float
    u_next: np.ndarray
    r_next: float


class SphericalStepBatch(NamedTuple):
    """Theorem 2 for n radially invariant groups at once (one per row): :class:`dynamics.spherical.SphericalStep` with
    a leading axis.

    Attributes
    ----------
    A : ndarray, shape (n,)
        A_k per group (Eq 3.26).
    c : ndarray, shape (n, d)
        c_k per group (Eq 3.22).
    effective_learning_rate : ndarray, shape (n,)
        η_k^e per group (Eq 3.23).
    u_next : ndarray, shape (n, d)
        u_{k+1} per group, unit rows (Eq 3.24).
    r_next : ndarray, shape (n,)
        r_{k+1} per group (Eq 3.25, times ``decay``).

    Examples
    --------
    >>> from dynamics.spherical import spherical_step_batch
    >>> steps = spherical_step_batch([[2.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]], 1.0, 0.4)
    >>> steps.A.round(6).tolist(), steps.r_next.round(6).tolist()
    ([0.1, 0.4], [2.039608, 1.077033])
    """

    A: np.ndarray
    c: np.ndarray
    effective_learning_rate: np.ndarray
    u_next: np.ndarray
    r_next: np.ndarray


class GenericForm(NamedTuple):
    """One step written in the generic form x_{k+1} = decay·(x_k − learning_rate·a ⊘ b) (Eq 3.12).

    ``b`` is a positive float (b_k = b·1, no deformation) or a positive vector.

    Examples
    --------
    >>> from dynamics.spherical import SGD
    >>> opt = SGD(0.5)
    >>> x_next = opt.step(np.array([1.0, 0.0]), np.array([0.0, 2.0]))
    >>> a, b, learning_rate, decay = opt.last_generic_form
    >>> bool(np.allclose(decay * (np.array([1.0, 0.0]) - learning_rate * a / b), x_next))
    True
    """

    a: np.ndarray
    b: Union[float, np.ndarray]
    learning_rate: float
    decay: float


class Trajectory(NamedTuple):
    """A recorded run on one radially invariant group.

    Attributes
    ----------
    steps : ndarray, shape (n_steps + 1,)
        0..n_steps.
    radius : ndarray, shape (n_steps + 1,)
        r_k = ‖x_k‖.
    effective_learning_rate : ndarray, shape (n_steps,)
        η_k^e of step k (Theorem 2, Eq 3.23), at steps[:-1].
    angle : ndarray, shape (n_steps,)
        The angle between u_k and u_{k+1}, radians (atan2 form).
    sphere_grad_norm : ndarray, shape (n_steps,)
        ‖∇L(u_k)‖ = r_k‖∇L(x_k)‖, the gradient norm on the sphere.
    loss : ndarray, shape (n_steps,)
        L(x_k) for draw k.
    direction_steps : ndarray of int, shape (n_records,)
        The steps at which directions were recorded (every ``record_every`` steps, and the last).
    directions : ndarray, shape (n_records, d)
        u_k at those steps.

    Examples
    --------
    >>> from dynamics.spherical import SGD, RandomLinearLoss, simulate
    >>> run = simulate(SGD(0.1), RandomLinearLoss.stream(4, grad_norm=1.0, seed=0), np.ones(4), 3)
    >>> run.radius.shape, run.effective_learning_rate.shape, run.direction_steps.tolist()
    ((4,), (3,), [0, 3])
    """

    steps: np.ndarray
    radius: np.ndarray
    effective_learning_rate: np.ndarray
    angle: np.ndarray
    sphere_grad_norm: np.ndarray
    loss: np.ndarray
    direction_steps: np.ndarray
    directions: np.ndarray

    @property
    def final_x(self) -> np.ndarray:
        """x at the last step, r_n·u_n."""
        return self.radius[-1] * self.directions[-1]


# ------------------------------------------------------------------------------ closed forms
class Equilibrium(NamedTuple):
    """The equilibrium of one radially invariant group under SGD(-M) + L2.

    Attributes
    ----------
    radius_fourth_power : float
        r*⁴ = ‖x*‖⁴.
    effective_learning_rate : float
        η^e* at equilibrium.
    angle : float
        The angular update per step, in radians.

    Examples
    --------
    >>> eq = Equilibrium(16.0, 0.1, 0.05)
    >>> eq.radius, eq.angle
    (2.0, 0.05)
    """

    radius_fourth_power: float
    effective_learning_rate: float
    angle: float

    @property
    def radius(self) -> float:
        """r* = (r*⁴)^{1/4}."""
        return self.radius_fourth_power ** 0.25


class EffectiveLRBounds(NamedTuple):
    """Lower and upper bounds on the effective learning rate η_k^e (floats, or arrays shaped like ``steps``).

    Examples
    --------
    >>> from dynamics.spherical import effective_lr_bounds_sgd
    >>> lower, upper = effective_lr_bounds_sgd(0.1, 1.0, 0.5, 2.0, 0)
    >>> lower == upper == 0.1
    True
    """

    lower: ArrayOrFloat
    upper: ArrayOrFloat


class RadiusSandwich(NamedTuple):
    """Bounds P_k <= r_k⁴ <= P_k + Σ_{i<k} η_i⁴g_i⁴/P_i of the λ = 0 SGD sandwich, arrays of
    shape (n_steps + 1,).

    ``lower_radius`` and ``upper_radius`` are the same bounds on r_k = (r_k⁴)^{1/4}.

    Examples
    --------
    >>> from dynamics.spherical import sgd_lambda0_sandwich
    >>> sgd_lambda0_sandwich(1.0, 0.1, [1.0]).upper.round(6).tolist()
    [1.0, 1.0201]
    >>> sgd_lambda0_sandwich(16.0 ** 0.25, 0.1, [1.0]).lower_radius.round(6).tolist()
    [2.0, 2.000625]
    """

    lower: np.ndarray
    upper: np.ndarray

    @property
    def lower_radius(self) -> np.ndarray:
        """The lower bound on r_k, P_k^{1/4}."""
        return self.lower ** 0.25

    @property
    def upper_radius(self) -> np.ndarray:
        """The upper bound on r_k, (P_k + Σ_{i<k} η_i⁴g_i⁴/P_i)^{1/4}."""
        return self.upper ** 0.25


class InvariantInterval(NamedTuple):
    """The invariant interval [L, U] of s = r² under SGD + L2 with g_min <= g_k <= g_max, and the
    bounds it puts on η_k^e. ``lower_radius`` and ``upper_radius`` are the interval's bounds on r = sqrt(s).

    Examples
    --------
    >>> from dynamics.spherical import sgd_l2_invariant_interval
    >>> interval = sgd_l2_invariant_interval(0.1, 1e-3, 1.0, 1.0)
    >>> round(interval.min_effective_learning_rate, 6) == round(interval.max_effective_learning_rate, 6)
    True
    >>> round(interval.lower_radius, 6)
    2.659181
    """

    lower_squared_radius: float
    upper_squared_radius: float
    min_effective_learning_rate: float
    max_effective_learning_rate: float

    @property
    def lower_radius(self) -> float:
        """sqrt(L), the smallest radius of the interval."""
        return self.lower_squared_radius ** 0.5

    @property
    def upper_radius(self) -> float:
        """sqrt(U), the largest radius of the interval."""
        return self.upper_squared_radius ** 0.5


class RadiusLaw(NamedTuple):
    """A predicted radius r_k and the effective learning rate η_k^e it implies, along the steps k asked for.

    Attributes
    ----------
    radius : float or ndarray
        r_k, shaped like ``steps``.
    effective_learning_rate : float or ndarray
        η_k^e at r_k, shaped like ``steps``.

    Examples
    --------
    >>> from dynamics.spherical import adam_srt_radius_law
    >>> law = adam_srt_radius_law(1.0, 0.01, 64, 1.0, [0, 10000])
    >>> law.radius.round(6).tolist(), law.effective_learning_rate.round(6).tolist()
    ([1.0, 8.062258], [0.08, 0.009923])
    """

    radius: ArrayOrFloat
    effective_learning_rate: ArrayOrFloat


class AdaGradGParameters(NamedTuple):
    """The parameters (beta, learning_rate, v0) of the AdaGradG run that matches SGD + L2 at order 2 in the step
    (Theorem 4 of Roburin et al. 2022).

    Examples
    --------
    >>> from dynamics.spherical import adagradg_equivalent_params
    >>> beta, learning_rate, v0 = adagradg_equivalent_params(0.1, 0.0, 1.0)
    >>> beta, round(v0, 6)
    (1.0, 50.0)
    """

    beta: float
    learning_rate: float
    v0: float


class GeometricSchedule(NamedTuple):
    """A learning-rate schedule η_k = initial_learning_rate · ratio^k (k = 0, 1, ...); call it with k.

    Evaluated as initial·exp(k·log(ratio)); a value that leaves float64 raises ValueError.

    Examples
    --------
    >>> schedule = GeometricSchedule(0.5, 2.0)
    >>> round(schedule(3), 12), schedule(np.arange(3)).tolist()
    (4.0, [0.5, 1.0, 2.0])
    """

    initial_learning_rate: float
    ratio: float

    def __call__(self, k) -> ArrayOrFloat:
        k_array = np.asarray(k, dtype=np.float64)
        if np.any(k_array < 0) or not np.all(np.isfinite(k_array)):
            raise ValueError(f"k must be a finite step count >= 0, got {k!r}")
        with np.errstate(over="ignore"):
            value = self.initial_learning_rate * np.exp(k_array * math.log(self.ratio))
        require_finite_result(value, "the scheduled learning rate",
                              "the exponential schedule overflows float64 at this k; run fewer steps")
        return float(value) if value.ndim == 0 else value


class LiAroraEquivalent(NamedTuple):
    """The SGD-M run without weight decay that reproduces SGD-M + L2 exactly: x̃_k = α^{−k}x_k
    (derived in this project; Li & Arora 2020).

    Attributes: ``alpha`` (float), ``schedule`` (a :class:`dynamics.spherical.GeometricSchedule`) and
    ``initial_buffer`` (ndarray, shape (d,)), to pass as ``SGD(schedule, momentum, initial_buffer=initial_buffer)``.

    Examples
    --------
    >>> from dynamics.spherical import li_arora_equivalent
    >>> eq = li_arora_equivalent(0.1, 0.0, 0.9, [1.0, 0.0])
    >>> eq.alpha, eq.initial_buffer.tolist()
    (1.0, [-0.0, -0.0])
    """

    alpha: float
    schedule: GeometricSchedule
    initial_buffer: np.ndarray


# ------------------------------------------------------------------------------ set-ups (experiment drivers)
class OptimizerRun(NamedTuple):
    """One optimizer and its recorded run.

    Attributes
    ----------
    optimizer : SGD, Adam, AdamS, ...
        The optimizer (its hyper-parameters; its state is untouched by :func:`dynamics.spherical.simulate`).
    trajectory : Trajectory
        The run.

    Examples
    --------
    >>> from dynamics.spherical import OptimizerRunsConfig, optimizer_runs
    >>> optimizer, trajectory = optimizer_runs(OptimizerRunsConfig(n_steps=3, dimension=4))["SGD + L2"]
    >>> optimizer, trajectory.radius.shape
    (SGD(learning_rate=0.1, momentum=0.0, weight_decay=0.001), (4,))
    """

    optimizer: object
    trajectory: Trajectory


class AdaGradGComparison(NamedTuple):
    """Three runs on one radially invariant group from the same x₀ and the same batches: SGD + L2, AdaGradG with
    the parameters that match it (Theorem 4 of Roburin et al. 2022; started from u₀ = x₀/r₀) and element-wise
    AdaGrad with its learning rate matched at the first step.

    Examples
    --------
    >>> from dynamics.spherical import adagradg_vs_sgd_runs
    >>> sgd, adagradg, adagrad = adagradg_vs_sgd_runs(n_steps=4, n_groups=1, dimension=5)[0]
    >>> sgd.direction_steps.tolist() == adagradg.direction_steps.tolist()
    True
    """

    sgd: Trajectory
    adagradg: Trajectory
    adagrad: Trajectory


class CollapseRun(NamedTuple):
    """Deterministic GD + L2 on a rotated Rayleigh quotient: the loss and the run.

    Attributes
    ----------
    loss : RayleighLoss
        The loss (its ``stability_threshold`` is 2/(λ_max − λ_min)).
    trajectory : Trajectory
        The run.

    Examples
    --------
    >>> from dynamics.spherical import collapse_run
    >>> loss, trajectory = collapse_run(n_steps=5)
    >>> loss.dimension, trajectory.radius.shape
    (8, (6,))
    """

    loss: object
    trajectory: Trajectory


# ------------------------------------------------------------------------------ the torch layer (torch_training)
class ClassificationData(NamedTuple):
    """Inputs (n_samples, ...) and integer labels (n_samples,) on one device (torch tensors)."""

    inputs: "torch.Tensor"  # noqa: F821 (torch is not imported here)
    labels: "torch.Tensor"  # noqa: F821


class ClassificationSplit(NamedTuple):
    """A data set split in two: the training part and the held-out (test) part, each a
    :class:`ClassificationData`."""

    train: ClassificationData
    test: ClassificationData


class PythagoreanResult(NamedTuple):
    """Plain SGD on a BatchNorm MLP (λ = 0): the worst |cos(∂L/∂w_j, w_j)|, the worst relative error of
    Δ‖w_j‖² = η²‖∂L/∂w_j‖², and per row the radius⁴ r_k⁴ (n_steps + 1, n_rows) with its λ = 0 SGD sandwich from the
    recorded gradient norms."""

    max_cosine: float
    max_increment_error: float
    radius_fourth_power: np.ndarray
    sandwich_lower: np.ndarray
    sandwich_upper: np.ndarray


class SphericalStepErrors(NamedTuple):
    """Per torch optimizer, the worst direction error and relative radius error of
    :func:`dynamics.spherical.spherical_step` (Theorem 2 of Roburin et al. 2022) on the generic form read from the
    optimizer's state, over the rows of W₁ (dicts keyed by optimizer name)."""

    direction: Dict[str, float]
    radius: Dict[str, float]


class ExponentialLREquivalence(NamedTuple):
    """The worst gaps between SGD-M + L2 and its exponential-learning-rate equivalent over the run."""

    direction_gap: float
    readout_gap: float
    loss_gap: float
    radius_ratio_error: float
    alpha: float


class EquilibriumStatistics(NamedTuple):
    """SGD(-M) + L2 under mini-batch noise: per configuration, replica and row of W₁ (arrays (n_configs,
    n_replicas, n_rows)), the time averages over the averaging window of r⁴, of G² = r²‖∂L/∂w‖² (= ‖∇L(u)‖²) and of
    the squared angle per step."""

    configs: tuple
    radius_fourth_power: np.ndarray
    grad_norm_squared: np.ndarray
    angle_squared: np.ndarray
    n_steps: int


class AnglesToSGD(NamedTuple):
    """Theorem 4 on a BatchNorm CNN: per fine-tuning step (n_steps + 1,), the largest angle (radians, atan2 form) over
    the conv filters between SGD + L2 and AdaGradG with the matching parameters (Theorem 4 of Roburin et al. 2022), and
    between SGD + L2 and element-wise AdaGrad. (An angle θ is a cosine similarity of cos θ: a similarity of
    1 − 1e-6 is θ = 1.41e-3.)"""

    steps: np.ndarray
    angle_adagradg: np.ndarray
    angle_adagrad: np.ndarray


class AdamVariantsResult(NamedTuple):
    """The torch Adam variants against the numpy ones: per variant, the worst relative gap between the torch
    optimizer's filters and the numpy optimizer run per filter on the same gradients, the worst
    |⟨m_k, x_k⟩ − (1−β₁)λr_k²|/(‖m_k‖‖x_k‖) (Eqs 3.77-3.78), and the worst |⟨m, x_{k+1}⟩|/(‖m‖‖x_{k+1}‖) of the
    transported buffer (tangency after T or RT)."""

    numpy_gap: Dict[str, float]
    radial_identity: Dict[str, float]
    tangency: Dict[str, float]


# ------------------------------------------------------------------------------ the torch layer (torch_state)
class EffectiveLearningRates(NamedTuple):
    """The spherical view of the last step of a torch optimizer, one row per filter (Theorem 2 of Roburin et al.
    2022): what :func:`dynamics.spherical.torch_state.effective_learning_rates` returns.

    A filter is one slice along dim 0 of a layer's weight (one output channel of a convolution, one row of a linear
    layer), the radially invariant group when a normalisation layer follows.

    Attributes
    ----------
    layer : ndarray of int, shape (n_filters,)
        The filter's layer, an index into ``layer_names``.
    channel : ndarray of int, shape (n_filters,)
        The filter's output channel in its layer (its index along dim 0 of the weight).
    effective_learning_rate : ndarray, shape (n_filters,)
        η_k^e = A_k/(1 − A_k⟨c_k,u_k⟩), the step size on the unit sphere (Roburin (thesis), Eq 3.23).
    A : ndarray, shape (n_filters,)
        A_k = η_k/(r_k²d^{−1/2}‖b_k‖) (Eq 3.26): η/r_k² for SGD, η/(r_kν_k) for Adam (Eq 3.41).
    radius : ndarray, shape (n_filters,)
        r_k = ‖x_k‖, the filter's norm before the step.
    angle : ndarray, shape (n_filters,)
        The angle in radians between the filter's directions before and after the step, arctan(η_k^e‖c_k⊥‖).
    layer_names : tuple of str
        One name per layer (the keys of a mapping of layers, else "0", "1", ...).

    Examples
    --------
    >>> rates = EffectiveLearningRates(np.array([0, 0, 1]), np.array([0, 1, 0]), np.array([0.1, 0.2, 0.05]),
    ...                                np.array([0.1, 0.2, 0.05]), np.ones(3), np.zeros(3), ("conv1", "conv2"))
    >>> rates.for_layer("conv1").tolist(), rates.for_layer(1).tolist()
    ([0.1, 0.2], [0.05])
    """

    layer: np.ndarray
    channel: np.ndarray
    effective_learning_rate: np.ndarray
    A: np.ndarray
    radius: np.ndarray
    angle: np.ndarray
    layer_names: Tuple[str, ...]

    def for_layer(self, layer: Union[int, str], field: str = "effective_learning_rate") -> np.ndarray:
        """The values of ``field`` (an attribute name) for the filters of one layer (its index or name), in channel
        order."""
        index = self.layer_names.index(layer) if isinstance(layer, str) else int(layer)
        if not 0 <= index < len(self.layer_names):
            raise ValueError(f"layer must be a name in {self.layer_names} or an index below {len(self.layer_names)}, "
                             f"got {layer!r}")
        return np.asarray(getattr(self, field))[self.layer == index]


class AdamVariantsTraining(NamedTuple):
    """Training curves and per-step spherical quantities of every method and seed (what
    :func:`dynamics.spherical.torch_experiments.train_adam_variants` returns).

    Arrays are indexed (method, seed, ...) in the order of ``optimizers`` and of the seeds passed.

    Attributes
    ----------
    optimizers : tuple of str
        The methods, a sub-sequence of ``OPTIMIZERS`` of this module.
    eval_steps : ndarray of int, shape (n_evals,)
        The steps after which the training loss and test accuracy were measured (0 = at initialisation).
    train_loss : ndarray, shape (n_methods, n_seeds, n_evals)
        Mean cross-entropy over the whole training set.
    test_accuracy : ndarray, shape (n_methods, n_seeds, n_evals)
        Fraction of the held-out images classified correctly.
    layer_names : tuple of str
        The radially invariant layers, ``("layer1", "layer2")`` (the MLP's hidden layers) or ``("conv1", "conv2")``
        (the convolutional net's convolutions).
    spherical_steps : ndarray of int, shape (n_readings,)
        The steps k (1 = the first) whose spherical quantities were read: 1, 1 + ``spherical_every``, ...
    effective_learning_rate : ndarray, shape (n_methods, n_seeds, n_readings, n_layers)
        The median over the layer's rows of η_k^e at each step read, from
        :func:`dynamics.spherical.torch_state.effective_learning_rates`.
    max_radial_term : ndarray, shape (n_methods, n_seeds, n_readings, n_layers)
        max over the layer's rows of |A_k⟨c_k,u_k⟩| (Theorem 2's (H1) needs A_k⟨c_k,u_k⟩ < 1; Fig B.1).
    max_tangent_step : ndarray, shape (n_methods, n_seeds, n_readings, n_layers)
        max over the rows of η_k^e‖c_k⊥‖ = tan of the angle the direction turns by (Fig B.2).
    max_tan2_gradient : ndarray, shape (n_methods, n_seeds, n_readings, n_layers)
        max over the rows of tan²θ_k = (η_k^e‖∇L(u_k)‖)², the squared tangent of the turn a step of the same
        effective learning rate along the current gradient on the sphere would make; for SGD without momentum it is
        (η‖∇L(u_k)‖)²/r_k⁴, the small parameter of Theorem 4 (Fig B.3).
    """

    optimizers: Tuple[str, ...]
    eval_steps: np.ndarray
    train_loss: np.ndarray
    test_accuracy: np.ndarray
    layer_names: Tuple[str, ...]
    spherical_steps: np.ndarray
    effective_learning_rate: np.ndarray
    max_radial_term: np.ndarray
    max_tangent_step: np.ndarray
    max_tan2_gradient: np.ndarray


class TheoremTwoHypotheses(NamedTuple):
    """Theorem 2's quantities per method and layer over a training run (what
    :func:`dynamics.spherical.torch_experiments.theorem2_hypotheses` returns): each the maximum over the steps from
    ``first_step`` on, the rows of the layer and the seeds.

    Attributes
    ----------
    optimizers : tuple of str
        The methods.
    layer_names : tuple of str
        The radially invariant layers.
    first_step : int
        The first step included (1 = the first step).
    max_radial_term : ndarray, shape (n_methods, n_layers)
        max |A_k⟨c_k,u_k⟩|.
    max_tangent_step : ndarray, shape (n_methods, n_layers)
        max η_k^e‖c_k⊥‖.
    max_tan2_gradient : ndarray, shape (n_methods, n_layers)
        max tan²θ_k.
    """

    optimizers: Tuple[str, ...]
    layer_names: Tuple[str, ...]
    first_step: int
    max_radial_term: np.ndarray
    max_tangent_step: np.ndarray
    max_tan2_gradient: np.ndarray


# ------------------------------------------------------------------------------ configurations of the experiments
#: The methods of the Adam-variants experiment, in the default order of its results' first axis (Roburin (thesis),
#: Figs 3.6-3.7): SGD with momentum, Adam, AdamW, AdamG and Adam w/o (a), (ab), (abc).
ADAM_VARIANTS_OPTIMIZERS = ("SGD-M", "Adam", "AdamW", "AdamG", "AdamS", "AdamST", "AdamSRT")


class OptimizerRunsConfig(NamedTuple):
    """Settings of the seven optimizer runs on one radially invariant group (Roburin (thesis), Table 3.1, Eqs 3.25,
    3.41-3.46), run by :func:`dynamics.spherical.optimizer_runs`: SGD, SGD + L2, SGD-M + L2, Adam and Adam w/o (a),
    (ab), (abc) on a random linear loss whose gradient on the unit sphere has a constant norm.

    The defaults are the size of the project's figure spherical.effective_lr_and_norm (:meth:`ci`); :meth:`source`
    takes the optimizers' settings from the authors' public code. The seed of the loss's directions is not a setting
    but the function's second argument.

    Attributes
    ----------
    n_steps : int, default 100000
        Steps per run, >= 0.
    dimension : int, default 64
        d, the size of the radially invariant group, in [1, 10^7].
    grad_norm : float, default 1.0
        G > 0, the norm of every gradient on the unit sphere (‖∇L(u)‖ = r‖∇L(x)‖).
    learning_rate : float, default 0.1
        η > 0 of SGD and SGD + L2; SGD-M + L2 steps with η(1−γ), so that the three share η/(1−γ).
    adam_learning_rate : float, default 1e-3
        η > 0 of the four Adam runs (which run without weight decay and with ε = 0).
    weight_decay : float, default 1e-3
        λ >= 0 of SGD + L2 and SGD-M + L2, with ηλ < 1.
    momentum : float, default 0.9
        γ in [0, 1) of SGD-M + L2.
    r0 : float, default 1.0
        ‖x₀‖ > 0, the norm of the common start x₀ = (r₀/√d)·1.
    """

    n_steps: int = 100_000
    dimension: int = 64
    grad_norm: float = 1.0
    learning_rate: float = 0.1
    adam_learning_rate: float = 1e-3
    weight_decay: float = 1e-3
    momentum: float = 0.9
    r0: float = 1.0

    @classmethod
    def source(cls) -> "OptimizerRunsConfig":
        """The optimizers' settings of the authors' code for ResNet20 on CIFAR10: λ = 2.5e-4, the figure's size.

        The authors' public code (Roburin et al. 2022) trains SGD with learning rate 0.1, momentum 0.9 and weight
        decay 2.5e-4, and Adam with learning rate 1e-3 (the defaults of ``learning_rate``, ``momentum`` and
        ``adam_learning_rate``); Table 3.1 is a set of formulas and leaves the synthetic group open (d, G, r₀ and the
        number of steps: here the figure's). Runs on a CPU in seconds.

        Examples
        --------
        >>> config = OptimizerRunsConfig.source()
        >>> config.learning_rate, config.momentum, config.weight_decay, config.adam_learning_rate
        (0.1, 0.9, 0.00025, 0.001)
        """
        return cls(weight_decay=2.5e-4)

    @classmethod
    def ci(cls) -> "OptimizerRunsConfig":
        """The size of the project's figure spherical.effective_lr_and_norm: the defaults.

        Examples
        --------
        >>> config = OptimizerRunsConfig.ci()
        >>> config.n_steps, config.dimension, config.weight_decay
        (100000, 64, 0.001)
        """
        return cls()


class AdamVariantsConfig(NamedTuple):
    """Settings of the Adam-variants experiment in miniature (Roburin (thesis), Figs 3.6-3.7 and B.1-B.3; Roburin et
    al. 2022, §5), trained by :func:`dynamics.spherical.torch_experiments.train_adam_variants`: SGD-M, Adam, AdamW,
    AdamG and Adam w/o (a), (ab), (abc) on the BatchNorm MLP :func:`dynamics.spherical.torch_models.bn_mlp2`, with
    Gaussian data labelled by a random linear teacher, or (``model="conv"``, ``data="digits"``) on the BatchNorm
    convolutional net :func:`dynamics.spherical.torch_models.bn_cnn2` with the 8×8 handwritten digits
    (scikit-learn's load_digits, from the UCI data set).

    The defaults are the project's CPU size on the MLP; :meth:`source` takes what the thesis's ResNet20/CIFAR10 runs
    and the authors' code give, :meth:`ci` is the size of the claim spherical.experiment_adam_variants,
    :meth:`record` the size of the record of Theorem 2's hypotheses, and :meth:`digits_record` the size of the record
    of Figs 3.6-3.7 on the digits, which the figure spherical.adam_variants_training draws. The seeds are not a
    setting but the trainer's second argument: the thesis and the records average 5 seeds, the claims use 4 and 3.

    Attributes
    ----------
    optimizers : tuple of str, default all seven
        The methods, in the order of the results' first axis: distinct names among "SGD-M", "Adam", "AdamW",
        "AdamG", "AdamS" (Adam w/o (a)), "AdamST" (w/o (ab)) and "AdamSRT" (w/o (abc)), at least one.
    n_steps : int, default 300
        Mini-batch steps per run, in [1, 100000].
    batch_size : int, default 32
        Points per mini-batch (drawn uniformly with replacement), in [2, 4096].
    eval_every : int, default 25
        Steps between two evaluations of the training loss and test accuracy, in [1, 100000] (the initialisation
        and the last step are always evaluated).
    spherical_every : int, default 1
        Steps between two readings of the effective learning rates and of Theorem 2's quantities, in [1, 100000]
        (each reading costs about one step); the first step is always read.
    n_train : int, default 512
        Training points, in [2, 100000].
    n_test : int, default 1024
        Held-out points, in [2, 100000].
    n_features : int, default 16
        Input dimension, in [1, 4096].
    n_classes : int, default 3
        Number of classes, in [2, 1000].
    label_noise : float, default 0.2
        Probability in [0, 1] that a label (training or held-out) is redrawn uniformly.
    width : int, default 32
        Width of both hidden layers, in [1, 4096], for the methods not named in ``widths``.
    widths : tuple of (str, int), default ()
        (method, width) pairs giving a method its own hidden width, in [1, 4096] (a narrower network for one method,
        say); each method named at most once, among the seven (a method not trained is ignored).
    learning_rates : tuple of (str, float), default ()
        (method, learning rate > 0) pairs, each method at most once (a mapping is also accepted, but makes the
        config unhashable); the methods not named take ``DEFAULT_LEARNING_RATES`` of
        :mod:`dynamics.spherical.torch_experiments`: 0.05 for SGD-M, 3e-2 for AdamG (whose second moment sums over
        a row), 3e-3 for the others.
    weight_decay : float, default 5e-4
        λ in [0, 1) on the hidden layers' weights (coupled L2, decoupled for AdamW, none for AdamG).
    betas : (float, float), default (0.9, 0.99)
        (β₁, β₂) of the Adam family, each in [0, 1).
    eps : float, default 1e-8
        ε in [0, 1) of the Adam family.
    model : str, default "mlp"
        The network: "mlp", the BatchNorm MLP :func:`dynamics.spherical.torch_models.bn_mlp2` (hidden layers
        ``width`` wide), or "conv", the BatchNorm convolutional net :func:`dynamics.spherical.torch_models.bn_cnn2`
        (``width`` then 2·``width`` filters), which needs images: ``data="digits"``.
    data : str, default "gaussian"
        The data: "gaussian", the Gaussian points of
        :func:`dynamics.spherical.torch_training.gaussian_classification` (each seed its own draw), or "digits", the
        8×8 handwritten digits (scikit-learn's load_digits, from the UCI data set) split once, by
        :func:`dynamics.spherical.torch_training.digits_classification`, into ``n_train`` training and ``n_test``
        held-out images shared by every seed; with "digits", ``n_features`` must be 64 (the pixels), ``n_classes``
        10, ``label_noise`` 0 and ``n_train + n_test`` at most 1797.
    """

    optimizers: Tuple[str, ...] = ADAM_VARIANTS_OPTIMIZERS
    n_steps: int = 300
    batch_size: int = 32
    eval_every: int = 25
    spherical_every: int = 1
    n_train: int = 512
    n_test: int = 1024
    n_features: int = 16
    n_classes: int = 3
    label_noise: float = 0.2
    width: int = 32
    widths: Tuple[Tuple[str, int], ...] = ()
    learning_rates: Tuple[Tuple[str, float], ...] = ()
    weight_decay: float = 5e-4
    betas: Tuple[float, float] = (0.9, 0.99)
    eps: float = 1e-8
    model: str = "mlp"
    data: str = "gaussian"

    @classmethod
    def source(cls) -> "AdamVariantsConfig":
        """The thesis's ResNet20/CIFAR10 setting carried to the MLP: CIFAR10's sizes, batches of 128, tuned rates.

        The authors' public code (Roburin et al. 2022) gives, for ResNet20 on CIFAR10: batches of 128, 47500
        training images (5% of the 50000 held out for validation) and the 10000 test images of 10 classes in
        3×32×32 = 3072 dimensions, β = (0.9, 0.99), PyTorch's ε = 1e-8, the learning rates 0.1 (SGD-M), 1e-3 (Adam,
        AdamW, AdamS, AdamSRT) and 1e-2 (AdamG), and λ = 5e-4 for Adam, AdamS and AdamG (it tunes λ per method;
        this trainer has one). The thesis's Table B.1 gives the same learning rates to the Adam family, Adam w/o (ab)
        included (1e-3 for AdamST, which the code lacks), and to AdamG. The 405 epochs of both (150660 steps, with
        learning-rate drops this trainer does not have) exceed the trainer's limit: 100000 steps, evaluated and read
        once per epoch (372 steps). Left open by the transfer to the MLP on Gaussian data: the width (128) and the
        label noise of the synthetic task (0.2). Too large for a CPU: a GPU run uses it.

        Examples
        --------
        >>> config = AdamVariantsConfig.source()
        >>> config.batch_size, config.n_train, config.n_test, config.n_features, config.n_classes, config.width
        (128, 47500, 10000, 3072, 10, 128)
        >>> dict(config.learning_rates)["SGD-M"], config.betas
        (0.1, (0.9, 0.99))
        """
        return cls(n_steps=100_000, batch_size=128, eval_every=372, spherical_every=372, n_train=47_500,
                   n_test=10_000, n_features=3072, n_classes=10, width=128,
                   learning_rates=(("SGD-M", 0.1), ("Adam", 1e-3), ("AdamW", 1e-3), ("AdamG", 1e-2), ("AdamS", 1e-3),
                                   ("AdamST", 1e-3), ("AdamSRT", 1e-3)))

    @classmethod
    def ci(cls) -> "AdamVariantsConfig":
        """The size of the claim spherical.experiment_adam_variants (run over 4 seeds): AdamG and the Adam family.

        Examples
        --------
        >>> config = AdamVariantsConfig.ci()
        >>> config.optimizers, config.n_steps, config.spherical_every
        (('AdamG', 'Adam', 'AdamW', 'AdamS', 'AdamST', 'AdamSRT'), 300, 300)
        """
        return cls(optimizers=("AdamG", "Adam", "AdamW", "AdamS", "AdamST", "AdamSRT"), eval_every=300,
                   spherical_every=300)

    @classmethod
    def record(cls) -> "AdamVariantsConfig":
        """The record size of Theorem 2's hypotheses along training (Roburin (thesis), Figs B.1-B.3): all seven
        methods on a 128-wide MLP, 8192 training and 16384 held-out points, 3000 steps of 128 (the CUDA size of the
        claims spherical.experiment_adam_variants and spherical.experiment_theorem2_hypotheses), Theorem 2's
        quantities read every 5 steps and the loss every 100. The thesis's ResNet20/CIFAR10 runs (:meth:`source`)
        are out of a CPU's reach; this size runs in about 10 minutes on one core for 5 seeds.

        Examples
        --------
        >>> config = AdamVariantsConfig.record()
        >>> config.width, config.n_train, config.n_steps, config.batch_size, config.spherical_every
        (128, 8192, 3000, 128, 5)
        >>> len(config.optimizers)
        7
        """
        return cls(n_steps=3000, batch_size=128, eval_every=100, spherical_every=5, n_train=8192, n_test=16384,
                   width=128)

    @classmethod
    def digits_record(cls) -> "AdamVariantsConfig":
        """The record size of Figs 3.6-3.7 on a small real image set: all seven methods on the BatchNorm
        convolutional net (16 and 32 filters) trained on the 8×8 handwritten digits (scikit-learn's load_digits, from
        the UCI data set; 1297 training and 500 test images), 3000 steps of 64 (148 epochs), evaluated every 100 steps,
        the effective learning rates read every 10.

        The thesis's ResNet20/CIFAR10 runs (:meth:`source`) are out of a CPU's reach and CIFAR10 is not available
        offline. Sized on one core: test accuracy plateaus near 0.99 within the first third of the run and the
        training losses fall to 1e-4-1e-5 by step 3000; the whole record (7 methods × 5 seeds) takes about 10 minutes
        (7 minutes of CPU time). The learning rates
        come from a sweep over three values per method (×1/3, ×1, ×3 around the MLP experiment's; 3 seeds other than
        the record's, 1000 steps), keeping the MLP's rate unless another gave a higher test accuracy over the last
        fifth of the run by more than two standard errors of the paired difference: only SGD-M moved (0.05 -> 0.02);
        every Adam-type rate of 1e-3 and 3e-3 tied, and 1e-2 (AdamG 1e-1) did worse. β₂ = 0.99 and λ = 5e-4 are the
        MLP experiment's (the thesis tunes them per method).

        Examples
        --------
        >>> config = AdamVariantsConfig.digits_record()
        >>> config.model, config.data, config.n_train, config.n_test, config.n_steps, config.batch_size, config.width
        ('conv', 'digits', 1297, 500, 3000, 64, 16)
        >>> dict(config.learning_rates)["SGD-M"], dict(config.learning_rates)["AdamG"]
        (0.02, 0.03)
        """
        return cls(n_steps=3000, batch_size=64, eval_every=100, spherical_every=10, n_train=1297, n_test=500,
                   n_features=64, n_classes=10, label_noise=0.0, width=16,
                   learning_rates=(("SGD-M", 0.02), ("Adam", 3e-3), ("AdamW", 3e-3), ("AdamG", 3e-2), ("AdamS", 3e-3),
                                   ("AdamST", 3e-3), ("AdamSRT", 3e-3)), model="conv", data="digits")


class AdaGradGVsSGDM2Config(NamedTuple):
    """Settings of Theorem 4 on a BatchNorm CNN (Roburin et al. 2022, Theorem 4; Roburin (thesis), Fig 3.4 in small,
    App. C.1), run by :func:`dynamics.spherical.torch_training.adagradg_vs_sgd_m2`: the CNN M2 pre-trained by SGD-M,
    then fine-tuned on identical batches by SGD + L2, by AdaGradG with Theorem 4's parameters and by element-wise
    AdaGrad.

    The defaults are the CPU size of the cross-check spherical.torch_theorem4_cnn (:meth:`ci`); :meth:`source` is
    its GPU size. The seed is the function's second argument.

    Attributes
    ----------
    n_steps : int, default 300
        Fine-tuning steps, >= 0.
    learning_rate : float, default 1e-2
        η > 0 of SGD + L2 and of every run's plain SGD on the parameters other than the conv filters.
    weight_decay : float, default 1e-3
        λ >= 0 with ηλ < 1, the L2 coefficient on the conv filters of SGD + L2 and of AdaGrad.
    n_pretrain : int, default 100
        Pre-training steps (SGD with learning rate 0.05 and momentum 0.9 on all parameters), >= 0.
    image_size : int, default 8
        Side of the square synthetic images, in pixels, >= 1.
    batch_size : int, default 8
        Images per mini-batch, >= 1, with batch_size·image_size² >= 2 (BatchNorm with ε = 0).
    width : int, default 16
        Channels of both convolutions, >= 1.
    """

    n_steps: int = 300
    learning_rate: float = 1e-2
    weight_decay: float = 1e-3
    n_pretrain: int = 100
    image_size: int = 8
    batch_size: int = 8
    width: int = 16

    @classmethod
    def source(cls) -> "AdaGradGVsSGDM2Config":
        """App. C.1's η = 1e-2 and λ = 1e-3 at the cross-check's GPU size: 3000 steps, 16×16 images, batches of 64.

        The thesis (App. C.1) gives the learning rate and the weight decay (the defaults). The network, the images
        and the lengths of the pre-training and of the fine-tuning are this project's M2 set-up, left open by the
        source: here the GPU size of the cross-check. Slow on a CPU: a GPU run uses it.

        Examples
        --------
        >>> config = AdaGradGVsSGDM2Config.source()
        >>> config.n_steps, config.image_size, config.batch_size, config.learning_rate, config.weight_decay
        (3000, 16, 64, 0.01, 0.001)
        """
        return cls(n_steps=3000, image_size=16, batch_size=64)

    @classmethod
    def ci(cls) -> "AdaGradGVsSGDM2Config":
        """The CPU size of the cross-check spherical.torch_theorem4_cnn: the defaults.

        Examples
        --------
        >>> config = AdaGradGVsSGDM2Config.ci()
        >>> config.n_steps, config.image_size, config.batch_size
        (300, 8, 8)
        """
        return cls()


class AdamVariantsM2Config(NamedTuple):
    """Settings of the check of the torch Adam variants against the numpy ones (Roburin (thesis), Eqs 3.67-3.81,
    Algorithm 1; Roburin et al. 2022), run by :func:`dynamics.spherical.torch_training.adam_variants_m2`: AdamS,
    AdamST, AdamSRT and AdamG on the conv filters of the CNN M2, stepped filter by filter in numpy on the same
    gradients.

    The defaults are the CPU size of the cross-check spherical.torch_adam_variants (:meth:`ci`); :meth:`source` takes
    the learning rate and weight decay of the authors' code. β = (0.9, 0.99) and ε = 1e-8 are fixed (those of the
    authors' code for ResNet20 on CIFAR10). The seed is the function's second argument.

    Attributes
    ----------
    n_steps : int, default 20
        Steps per variant, >= 0.
    learning_rate : float, default 0.01
        η > 0 of the four variants.
    weight_decay : float, default 0.05
        λ >= 0 (coupled) of AdamS, AdamST and AdamSRT; AdamG runs without weight decay.
    image_size : int, default 8
        Side of the square synthetic images, in pixels, >= 1.
    batch_size : int, default 16
        Images per mini-batch, >= 1, with batch_size·image_size² >= 2 (BatchNorm with ε = 0).
    width : int, default 16
        Channels of both convolutions, >= 1.
    """

    n_steps: int = 20
    learning_rate: float = 0.01
    weight_decay: float = 0.05
    image_size: int = 8
    batch_size: int = 16
    width: int = 16

    @classmethod
    def source(cls) -> "AdamVariantsM2Config":
        """AdamS's learning rate 1e-3 and λ = 5e-4 of the authors' code, at the cross-check's GPU size.

        The authors' public code (Roburin et al. 2022) trains AdamS on ResNet20/CIFAR10 with learning rate 1e-3 and
        weight decay 5e-4 (it tunes them per variant). The network, the images and the number of steps are this
        project's M2 set-up, left open by the source: here the GPU size of the cross-check, 50 steps on 16×16 images
        in batches of 64.

        Examples
        --------
        >>> config = AdamVariantsM2Config.source()
        >>> config.learning_rate, config.weight_decay, config.n_steps, config.image_size, config.batch_size
        (0.001, 0.0005, 50, 16, 64)
        """
        return cls(n_steps=50, learning_rate=1e-3, weight_decay=5e-4, image_size=16, batch_size=64)

    @classmethod
    def ci(cls) -> "AdamVariantsM2Config":
        """The CPU size of the cross-check spherical.torch_adam_variants: the defaults.

        Examples
        --------
        >>> config = AdamVariantsM2Config.ci()
        >>> config.n_steps, config.learning_rate, config.weight_decay
        (20, 0.01, 0.05)
        """
        return cls()


class EquilibriumStatisticsConfig(NamedTuple):
    """Settings of the equilibria of SGD(-M) + L2 under mini-batch noise (derived in this project from Roburin
    (thesis), Eqs 3.15 and 3.25; cf. Wan et al. 2021), run by
    :func:`dynamics.spherical.torch_training.equilibrium_statistics`: the BatchNorm MLP M1, one batched model per
    configuration and replica, warmed up, rescaled to the predicted radius, relaxed, then averaged.

    The defaults are the trainer's; :meth:`ci` is the CPU size of the cross-check spherical.torch_equilibrium,
    :meth:`source` its GPU size. The seed is the function's second argument.

    Attributes
    ----------
    configs : tuple of (float, float, float), default ((0.1, 1e-3, 0.9),)
        Non-empty; each (learning_rate η > 0, weight_decay λ > 0, momentum γ in [0, 1)) of the first layer's SGD(-M)
        + L2.
    n_replicas : int, default 1
        Independent models per configuration, >= 1.
    n_warmup : int, default 300
        Steps before the rescaling to the predicted radius, >= 1 (0 skips the rescaling).
    relaxation_times : float, default 8.0
        >= 0: the relaxation lasts ``int(relaxation_times · max (1−γ)/(4ηλ))`` steps over the configurations.
    n_average : int, default 10000
        Steps averaged over, >= 1.
    batch_size : int, default 32
        Samples per mini-batch, >= 2.
    readout_learning_rate : float, default 0.05
        Learning rate >= 0 of the readout's plain SGD.
    """

    configs: Tuple[Tuple[float, float, float], ...] = ((0.1, 1e-3, 0.9),)
    n_replicas: int = 1
    n_warmup: int = 300
    relaxation_times: float = 8.0
    n_average: int = 10000
    batch_size: int = 32
    readout_learning_rate: float = 0.05

    @classmethod
    def source(cls) -> "EquilibriumStatisticsConfig":
        """The GPU size of the cross-check: η in {0.05, 0.1} × λ in {5e-4, 1e-3} × γ in {0, 0.9}, 2 replicas.

        The thesis leaves every setting open (the equilibrium law and its check are derived in this project):
        this is the cross-check's GPU size, the full grid (the γ = 0 runs need 8·(1−γ)/(4ηλ) >= 2e4 relaxation
        steps) with 2 replicas averaged over 10000 steps. Slow on a CPU: a GPU run uses it.

        Examples
        --------
        >>> config = EquilibriumStatisticsConfig.source()
        >>> len(config.configs), config.configs[0], config.n_replicas, config.n_average
        (8, (0.05, 0.0005, 0.0), 2, 10000)
        """
        return cls(configs=tuple((eta, lam, gamma) for gamma in (0.0, 0.9) for eta in (0.05, 0.1)
                                 for lam in (5e-4, 1e-3)), n_replicas=2)

    @classmethod
    def ci(cls) -> "EquilibriumStatisticsConfig":
        """The CPU size of the cross-check spherical.torch_equilibrium: the momentum case, 2 replicas, 5000 steps.

        Examples
        --------
        >>> config = EquilibriumStatisticsConfig.ci()
        >>> config.configs, config.n_replicas, config.n_average
        (((0.1, 0.001, 0.9),), 2, 5000)
        """
        return cls(n_replicas=2, n_average=5000)
