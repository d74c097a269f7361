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
           "ClassificationData", "TheoremTwoHypotheses",
           "CollapseRun", "EffectiveLRBounds", "Equilibrium", "EquilibriumStatistics", "ExponentialLREquivalence",
           "GenericForm", "GeometricSchedule", "InvariantInterval", "LiAroraEquivalent", "OptimizerRun",
           "PythagoreanResult", "RadiusLaw", "RadiusSandwich", "SphericalStep", "SphericalStepBatch",
           "SphericalStepErrors", "Trajectory", "EffectiveLearningRates"]

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
    >>> from dynamics.spherical import optimizer_runs
    >>> optimizer, trajectory = optimizer_runs(n_steps=3, dimension=4)["SGD + L2"]
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
        The radially invariant layers, ``("layer1", "layer2")``.
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
