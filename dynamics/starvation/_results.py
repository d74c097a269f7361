"""The named results of :mod:`dynamics.starvation`, the torch layer's included.

Every public function that returns more than one value returns one of these ``typing.NamedTuple`` s: readable by
attribute, and still unpackable (``alpha, z = dual_fixed_point(U, s, 0.01)``). The sources' named configurations
(:class:`~dynamics.starvation.ToyConfiguration`, :class:`~dynamics.starvation.MoonsRun`) are NamedTuples too. This
module imports neither torch nor the formula modules.
"""
from typing import NamedTuple, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import as_finite_array, require_integer

__all__ = ["ColourShapeMethod", "ColourShapeTraining", "ColourShapes", "Dataset", "DualGDTrajectory",
           "DualTrajectory", "Features", "FixedPoint", "LinearModel", "LossTangent", "MoonsMargins",
           "MoonsRegularisation", "MoonsRun", "ParameterTrajectory", "PrimalTrajectory", "Regulariser",
           "SpectralDecouplingPoint", "ToyBatch", "ToyConfiguration", "ToyTraining", "ToyTrajectories",
           "TwoMoonsTraining", "WideNetComparison"]


class FixedPoint(NamedTuple):
    """A fixed point of a dual flow and its feature response (Eqs 9-14 / 6.3.9-6.3.14).

    Attributes
    ----------
    alpha : ndarray, shape (n,) (or the shape of ``s`` for the uncoupled closed forms)
        The dual variable α*, one entry per training example: in (0, 1) for Eq 9, in (0, ∞) for Eq 10.
    z : ndarray, same shape as ``alpha``
        The feature responses z* = λ⁻¹S²Uᵀα* (Eq 11), one entry per feature.

    Examples
    --------
    >>> from dynamics.starvation import lambert_fixed_point
    >>> alpha, z = lambert_fixed_point([2.0], 0.1)  # it unpacks
    >>> lambert_fixed_point([2.0], 0.1).z.round(6).tolist()
    [2.648624]
    """

    alpha: np.ndarray
    z: np.ndarray


class SpectralDecouplingPoint(NamedTuple):
    """The exact fixed point of Spectral Decoupling (Eq 18 / 6.3.18).

    Attributes
    ----------
    z : ndarray, shape (n,)
        The feature responses z_SD = m*·Uᵀ1, independent of the strengths s.
    margin : float
        m* > 0 with a·m*(1 + e^{m*}) = 1 (a = ``output_penalty``): the common training margin y_i ŷ_i.
        The dual variable is α_i* = a·m* for every example.

    Examples
    --------
    >>> import numpy as np
    >>> from dynamics.starvation import sd_fixed_point
    >>> round(sd_fixed_point(np.eye(2), 0.01).margin, 6)
    3.359275
    """

    z: np.ndarray
    margin: float


class Features(NamedTuple):
    """The singular value decomposition YΦ_0 = USVᵀ of Definition 1 (6.3.1).

    Attributes
    ----------
    U : ndarray, shape (n, n)
        Orthogonal; column j holds the weights of feature j over the n examples.
    s : ndarray, shape (n,)
        The feature strengths s_j > 0, in descending order (not squared).
    Vt : ndarray, shape (n, m)
        The first n rows of Vᵀ: row j is feature j, a direction in the m-dimensional parameter space.

    Examples
    --------
    >>> import numpy as np
    >>> from dynamics.starvation import features
    >>> features(np.diag([1.0, 2.0]), [1.0, 1.0]).s.tolist()
    [2.0, 1.0]
    """

    U: np.ndarray
    s: np.ndarray
    Vt: np.ndarray


class DualTrajectory(NamedTuple):
    """A dual gradient flow (Eq 9, 10 or 18) sampled at the requested times.

    Attributes
    ----------
    t : ndarray, shape (m,)
        Dual-flow time, in units of 1/η (η = 1: the vector field is the gradient of the dual objective).
    alpha : ndarray, shape (m, n)
        The dual variable α(t).
    z : ndarray, shape (m, n)
        The feature responses along the flow: λ⁻¹S²Uᵀα (cross-entropy) or a⁻¹Uᵀα (Spectral Decoupling).

    Examples
    --------
    >>> import numpy as np
    >>> from dynamics.starvation import integrate_dual
    >>> flow = integrate_dual(np.eye(1), [1.0], [0.0, 1.0], weight_decay=1.0)
    >>> flow.t.tolist(), flow.alpha.shape
    ([0.0, 1.0], (2, 1))
    """

    t: np.ndarray
    alpha: np.ndarray
    z: np.ndarray


class DualGDTrajectory(NamedTuple):
    """Discrete dual gradient ascent on Eq 8, as in the authors' toy code.

    Attributes
    ----------
    steps : ndarray of int, shape (m,)
        Gradient-ascent step counts 0, 1, ..., n_steps.
    alpha : ndarray, shape (m, n)
        The (clamped) dual variable after each step.
    z : ndarray, shape (m, n)
        The feature responses λ⁻¹S²Uᵀα after each step.

    Examples
    --------
    >>> import numpy as np
    >>> from dynamics.starvation import dual_gd
    >>> dual_gd(np.eye(1), [1.0], 2, learning_rate=0.01, weight_decay=1.0).steps.tolist()
    [0, 1, 2]
    """

    steps: np.ndarray
    alpha: np.ndarray
    z: np.ndarray


class PrimalTrajectory(NamedTuple):
    """Primal gradient descent written in feature coordinates z = SVᵀθ (Eq 5 or Eq 17; V drops out).

    Attributes
    ----------
    steps : ndarray of int, shape (m,)
        Gradient-descent step counts 0, 1, ..., n_steps.
    z : ndarray, shape (m, n)
        The feature responses after each step.

    Examples
    --------
    >>> import numpy as np
    >>> from dynamics.starvation import primal_gd_z
    >>> primal_gd_z(np.eye(1), [1.0], 1, learning_rate=0.5, weight_decay=0.1).z.tolist()
    [[0.0], [0.25]]
    """

    steps: np.ndarray
    z: np.ndarray


class ParameterTrajectory(NamedTuple):
    """Primal gradient descent in parameter space (Eq 5 or Eq 17).

    Attributes
    ----------
    steps : ndarray of int, shape (m,)
        Gradient-descent step counts 0, 1, ..., n_steps.
    theta : ndarray, shape (m, n_parameters)
        The parameters after each step.

    Examples
    --------
    >>> import numpy as np
    >>> from dynamics.starvation import primal_gd_theta
    >>> primal_gd_theta(np.eye(1), [1.0], 1, learning_rate=0.5, weight_decay=0.1).theta.tolist()
    [[0.0], [0.25]]
    """

    steps: np.ndarray
    theta: np.ndarray


class Dataset(NamedTuple):
    """A labelled two-dimensional data set.

    Attributes
    ----------
    X : ndarray, shape (n_samples, 2)
        The inputs.
    y : ndarray, shape (n_samples,)
        The labels ({0, 1} from :func:`~dynamics.starvation.make_moons`, {-1, +1} from
        :func:`~dynamics.starvation.two_moons`).

    Examples
    --------
    >>> from dynamics.starvation import two_moons
    >>> X, y = two_moons(10, seed=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((10, 2), [-1.0, 1.0])
    """

    X: np.ndarray
    y: np.ndarray


class LossTangent(NamedTuple):
    """The tangent of a loss L(ω) at ω_0 (Lemma 2, Eqs 19-28 / .5.1-.5.10; the picture of Fig 8).

    Attributes
    ----------
    alpha : float or ndarray
        The critical dual variable α* = -dL/dω(ω_0) (:func:`~dynamics.starvation.dual_maximiser`).
    slope : float or ndarray
        dL/dω at ω_0, i.e. -α*.
    intercept : float or ndarray
        The tangent's value at ω = 0, L(ω_0) + α*ω_0: the dual objective at α* and ω = 0 (H(α*) for cross-entropy).

    Examples
    --------
    >>> from dynamics.starvation import loss_tangent
    >>> loss_tangent("hinge", 0.5)
    LossTangent(alpha=1.0, slope=-1.0, intercept=1.0)
    """

    alpha: "float | np.ndarray"
    slope: "float | np.ndarray"
    intercept: "float | np.ndarray"


class LinearModel(NamedTuple):
    """A linear model ŷ = Φ_0θ in the coordinates of Definition 1 (6.3.1): YΦ_0 = USVᵀ.

    Attributes
    ----------
    U : ndarray, shape (n, n)
        Orthogonal: the features' weights over the n examples.
    V : ndarray, shape (m, m)
        Orthogonal: its first n columns are the features' directions in parameter space.
    y : ndarray, shape (n,)
        Labels in {-1, +1}.
    S : ndarray, shape (n, m)
        diag(s) padded with zeros.
    Phi0 : ndarray, shape (n, m)
        Φ_0 = YUSVᵀ.

    Examples
    --------
    >>> from dynamics.starvation import random_linear_model
    >>> random_linear_model([2.0, 1.0], 3, seed=0).Phi0.shape
    (2, 3)
    """

    U: np.ndarray
    V: np.ndarray
    y: np.ndarray
    S: np.ndarray
    Phi0: np.ndarray


class ToyConfiguration(NamedTuple):
    """The two-feature toy of Fig 6 (App. B.1, the authors' toy code): its coupling, strengths and optimiser settings.

    Attributes
    ----------
    delta : float
        The Eq 15 coupling δ.
    s1_values : tuple of float
        The strengths of feature 1 swept in Fig 6 (the last is the strong toy, s_1 = 6).
    s2 : float
        The strength of feature 2.
    weight_decay : float
        λ of the L2 penalty (Eq 5).
    output_penalty : float
        a of Spectral Decoupling (Eq 17).
    learning_rate : float
        The step of primal gradient descent (and of the SD primal).
    dual_learning_rate : float
        The step of the authors' dual gradient ascent on Eq 8.
    alpha0 : float
        The start of the dual ascent (z = 0).
    clamp : float
        The dual is held in [clamp, 1 - clamp].

    Examples
    --------
    >>> from dynamics.starvation import TOY
    >>> TOY.delta, TOY.s2, TOY.weight_decay
    (0.5, 2.0, 0.01)
    """

    delta: float
    s1_values: Tuple[float, ...]
    s2: float
    weight_decay: float
    output_penalty: float
    learning_rate: float
    dual_learning_rate: float
    alpha0: float
    clamp: float


class ToyTrajectories(NamedTuple):
    """The trajectories of Fig 6 (App. B.1): three optimisations of the toy, one row per strength s_1.

    Attributes
    ----------
    s1 : ndarray, shape (k,)
        The strengths of feature 1.
    primal : ndarray, shape (k, n_steps + 1, 2)
        z along primal gradient descent on Eq 5 (cross-entropy + L2).
    dual : ndarray, shape (k, n_steps + 1, 2)
        z along the authors' dual gradient ascent on Eq 8.
    spectral_decoupling : ndarray, shape (k, n_steps + 1, 2)
        z along primal gradient descent on Eq 17 (Spectral Decoupling).
    fixed_point : ndarray, shape (k, 2)
        z* of the Eq 9 fixed point (Eq 11), where the first two end.
    sd_fixed_point : ndarray, shape (2,)
        z_SD of Eq 18, where the third ends for every s_1.

    Examples
    --------
    >>> from dynamics.starvation import toy_trajectories
    >>> toy_trajectories([2.0, 6.0], n_steps=10).primal.shape
    (2, 11, 2)
    """

    s1: np.ndarray
    primal: np.ndarray
    dual: np.ndarray
    spectral_decoupling: np.ndarray
    fixed_point: np.ndarray
    sd_fixed_point: np.ndarray


class ToyBatch(NamedTuple):
    """A batch of Fig 6 toys with labels y = 1 (App. B.1), one per (δ, s_1), sharing one direction matrix V.

    Attributes
    ----------
    U : ndarray, shape (b, 2, 2)
        The Eq 15 couplings.
    s : ndarray, shape (b, 2)
        The strengths (s_1, s_2).
    Phi : ndarray, shape (b, 2, 2)
        Φ_0 = YUSVᵀ = USVᵀ.

    Examples
    --------
    >>> from dynamics.starvation import toy_batch
    >>> toy_batch([2.0, 6.0], [0.5], seed=0).s.tolist()
    [[2.0, 2.0], [6.0, 2.0]]
    """

    U: np.ndarray
    s: np.ndarray
    Phi: np.ndarray


# ---------------------------------------------------------------- the torch layer's (torch_training.py)
class ToyTraining(NamedTuple):
    """The responses z reached by the three optimisations of :func:`~dynamics.starvation.torch_training.train_toy`.

    Attributes
    ----------
    primal : ndarray, shape (b, n)
        z = SVᵀθ after primal SGD on Σ log(1+e^{-ŷ}) + (λ/2)‖θ‖² (Eq 5).
    spectral_decoupling : ndarray, shape (b, n)
        z = SVᵀθ after SGD on Σ log(1+e^{-ŷ}) + (a/2)‖ŷ‖² (Eq 17).
    dual : ndarray, shape (b, n)
        z = λ⁻¹S²Uᵀα after dual gradient descent on (1/(2λ))αKαᵀ - H(α) (Eq 8).

    Examples
    --------
    >>> ToyTraining._fields
    ('primal', 'spectral_decoupling', 'dual')
    """

    primal: np.ndarray
    spectral_decoupling: np.ndarray
    dual: np.ndarray


class WideNetComparison(NamedTuple):
    """A wide net trained on its centred output against the Eq 9 dual with its empirical NTK
    (:func:`~dynamics.starvation.torch_training.ntk_net_error`).

    Attributes
    ----------
    relative_error : float
        ‖ŷ_net - ŷ*‖_∞ / ‖ŷ*‖_∞.
    trained : ndarray, shape (n_samples,)
        The net's centred output ŷ_net = f(·; θ) - f(·; θ_0) after training.
    predicted : ndarray, shape (n_samples,)
        The dual theory's ŷ* = λ⁻¹KYα*, with α* the Eq 9 fixed point for YKY/λ.
    learning_rate : float
        The gradient-descent step used (below 2/curvature).

    Examples
    --------
    >>> WideNetComparison._fields
    ('relative_error', 'trained', 'predicted', 'learning_rate')
    """

    relative_error: float
    trained: np.ndarray
    predicted: np.ndarray
    learning_rate: float


class MoonsRun(NamedTuple):
    """One two-moons setting of Fig 1.

    Attributes
    ----------
    label : str
        A mathtext label for plots.
    margin : float
        Δ of :func:`~dynamics.starvation.two_moons` (separable with margin Δ > 0, overlapping for Δ < 0).
    output_penalty : float
        a >= 0 of the Spectral Decoupling term, added to the mean cross-entropy as (a/2)·mean(ŷ²); the
        authors' 0.003·mean(ŷ²) is a = 0.006.

    Examples
    --------
    >>> from dynamics.starvation import MOONS_RUNS
    >>> [run.margin for run in MOONS_RUNS]
    [-0.1, 0.1, 0.1]
    """

    label: str
    margin: float
    output_penalty: float


class TwoMoonsTraining(NamedTuple):
    """The trained two-moons nets of :func:`~dynamics.starvation.train_two_moons` (and of its torch simulation,
    :func:`~dynamics.starvation.torch_training.train_two_moons`), run-major and seed-minor.

    Attributes
    ----------
    runs : tuple of MoonsRun
        The settings, in order.
    seeds : tuple
        The seeds, in order (a model's index is run_index · len(seeds) + seed_index).
    data : tuple of Dataset
        The training data of every model.
    params : tuple of ndarray
        The trained parameters (W1 (B, h, 2), b1 (B, h), w2 (B, h), b2 (B,)), B = len(runs)·len(seeds).
    steps : ndarray of int, shape (r,)
        The recorded step counts.
    z : ndarray, shape (r, len(runs), len(seeds), n_samples)
        ``|z| = |U_Kᵀŷ|`` along the eigenvectors of the NTK Gram matrix at init (descending), at each record.
    gradient_ratio : ndarray, shape (len(runs), len(seeds))
        mean|∂ŷ/∂x_v| / mean|∂ŷ/∂x_h| over the training points, after training.

    Examples
    --------
    >>> TwoMoonsTraining._fields[:3]
    ('runs', 'seeds', 'data')
    """

    runs: Tuple[MoonsRun, ...]
    seeds: tuple
    data: Tuple[Dataset, ...]
    params: Tuple[np.ndarray, ...]
    steps: np.ndarray
    z: np.ndarray
    gradient_ratio: np.ndarray

    def logits(self, index: int, grid: ArrayLike) -> np.ndarray:
        """ŷ of model ``index`` (run-major, seed-minor) on an (N, 2) grid of inputs (x_h, x_v), in numpy.

        Parameters
        ----------
        index : int
            The model, in [0, len(runs)·len(seeds)).
        grid : array_like, shape (N, 2)
            Inputs (x_h, x_v).

        Returns
        -------
        ndarray, shape (N,)

        Examples
        --------
        >>> zeros = tuple(np.zeros(shape) for shape in ((1, 3, 2), (1, 3), (1, 3), (1,)))
        >>> training = TwoMoonsTraining((), (0,), (), zeros, np.zeros(1), np.zeros((1, 1, 1, 1)), np.ones((1, 1)))
        >>> training.logits(0, np.ones((4, 2))).tolist()
        [0.0, 0.0, 0.0, 0.0]
        """
        index = require_integer("index", index, 0, self.params[0].shape[0] - 1)
        grid = as_finite_array("grid", grid, ndim=2)
        W1, b1, w2, b2 = (p[index] for p in self.params)
        return np.maximum(grid @ W1.T + b1, 0.0) @ w2 + b2


class Regulariser(NamedTuple):
    """One training setting of the two-moons regulariser grid (Pezeshki et al. 2021, Fig 7).

    Attributes
    ----------
    label : str
        A plot label.
    weight_decay : float
        λ >= 0: (λ/2)·‖θ‖² is added to the loss (torch's ``weight_decay`` convention, biases included).
    dropout : float
        Drop probability in [0, 1) on the hidden units during training.
    batch_norm : bool
        Batch normalisation (batch statistics of the full training batch) before each hidden ReLU.
    adam_learning_rate : float
        > 0: Adam with this learning rate; 0: SGD with momentum at the trainer's learning rate.
    output_penalty : float
        a >= 0 of Spectral Decoupling, (a/2)·mean(ŷ²) (the authors' 0.003·mean(ŷ²) is a = 0.006).
    depth : int
        Number of hidden layers (1 = the two-layer net of Fig 1; 4 = the authors' 5-layer MLP).
    steps_factor : int
        Trains for this many times the trainer's ``n_steps`` ("training longer").
    """

    label: str
    weight_decay: float
    dropout: float
    batch_norm: bool
    adam_learning_rate: float
    output_penalty: float
    depth: int
    steps_factor: int


class MoonsRegularisation(NamedTuple):
    """Two moons trained under each regulariser, for each seed.

    Attributes
    ----------
    regularisers : tuple of Regulariser
    seeds : tuple
    data : tuple of Dataset
        One training set per seed (shared by every regulariser of that seed).
    grid_h, grid_v : ndarray, shape (G,)
        The evaluation grid's horizontal and vertical coordinates (covering every seed's data).
    logits : ndarray, shape (n_regularisers, n_seeds, G, G)
        ŷ on the grid, indexed [..., v, h].
    boundary_distance : ndarray, shape (n_regularisers, n_seeds)
        :func:`boundary_line_distance` of each trained net: the RMS distance of its decision boundary from the boundary's
        best straight line, over the seed's data bounding box, in units of the data's RMS radius.
    train_accuracy : ndarray, shape (n_regularisers, n_seeds)
    """

    regularisers: Tuple[Regulariser, ...]
    seeds: Tuple[Union[int, np.random.Generator], ...]
    data: Tuple[Dataset, ...]
    grid_h: np.ndarray
    grid_v: np.ndarray
    logits: np.ndarray
    boundary_distance: np.ndarray
    train_accuracy: np.ndarray


class ColourShapes(NamedTuple):
    """A coloured-shape data set.

    Attributes
    ----------
    X : ndarray, shape (n, 2·size²)
        Two colour channels of a size × size image, flattened; the image sits in channel 0 when ``colour`` = +1 and in
        channel 1 when ``colour`` = -1, the other channel is zero.
    y : ndarray, shape (n,)
        Labels in {-1, +1}: the shape's class, flipped with probability ``label_noise``.
    shape : ndarray, shape (n,)
        The shape's class in {-1, +1} (+1: a horizontal bar, -1: a vertical bar).
    colour : ndarray, shape (n,)
        The colour in {-1, +1}: the label, flipped with probability ``colour_flip``.
    """

    X: np.ndarray
    y: np.ndarray
    shape: np.ndarray
    colour: np.ndarray


class ColourShapeMethod(NamedTuple):
    """One training method of the coloured-shape task.

    Attributes
    ----------
    label : str
    weight_decay : float
        λ >= 0: (λ/2)·‖θ‖² added to the loss (the plain L2 baseline).
    output_penalty : float
        a >= 0: Spectral Decoupling in its γ-shifted form, (a/2)·mean((yŷ - γ)²) added to the mean cross-entropy.
    target_margin : float
        γ >= 0 of the shifted form (γ = 0 is the plain (a/2)·mean(ŷ²)).
    """

    label: str
    weight_decay: float
    output_penalty: float
    target_margin: float


class ColourShapeTraining(NamedTuple):
    """The coloured-shape task trained by each method, for each seed.

    Attributes
    ----------
    methods : tuple of ColourShapeMethod
    seeds : tuple
    steps : ndarray, shape (R,)
        The steps at which the accuracies were recorded (the last is ``n_steps``).
    train_accuracy : ndarray, shape (R, n_methods, n_seeds)
        Accuracy on the training set (colour agrees with the label for 85% of it).
    test_accuracy : ndarray, shape (R, n_methods, n_seeds)
        Accuracy on the flipped test set (colour agrees with the label for 10% of it).
    shape_accuracy : ndarray, shape (R, n_methods, n_seeds)
        Accuracy on the same test images with the image in both channels (no colour cue), against the labels.
    train_output_square : ndarray, shape (R, n_methods, n_seeds)
        mean(ŷ²) over the training set, the quantity Spectral Decoupling penalises (ERM lets it grow).
    """

    methods: Tuple[ColourShapeMethod, ...]
    seeds: Tuple[Union[int, np.random.Generator], ...]
    steps: np.ndarray
    train_accuracy: np.ndarray
    test_accuracy: np.ndarray
    shape_accuracy: np.ndarray
    train_output_square: np.ndarray


class MoonsMargins(NamedTuple):
    """Per-example margins of the separable two moons (Δ = +0.1), with and without SD.

    Attributes
    ----------
    runs : tuple of MoonsRun
    seeds : tuple
    distance : ndarray, shape (n_runs, n_seeds, n_samples)
        Signed input-space distance of each training point to the decision boundary (negative when misclassified).
    vertical, horizontal : ndarray, shape (n_runs, n_seeds, n_samples)
        Signed distance along x_v (the weak feature) and along x_h (the strong feature) to the first sign change of ŷ;
        ``cap`` where ŷ keeps its sign within ``cap``.
    cap : float
        The largest distance searched.
    """

    runs: Tuple[MoonsRun, ...]
    seeds: Tuple[Union[int, np.random.Generator], ...]
    distance: np.ndarray
    vertical: np.ndarray
    horizontal: np.ndarray
    cap: float
