"""Every named result of the linear-network theory (the torch layer's included): what the simulators, set-ups and
closed forms return, each named for what it holds, with the equation of Pezeshki (thesis), Ch. 2 it belongs to."""
from typing import NamedTuple, Union

import numpy as np

__all__ = ["AsymptoticErrors", "GeneralizationCurve", "ModeTask", "ModeVelocity", "MonteCarloEstimate",
           "NetworkGDTrajectory", "NetworkTrajectory", "NetworkWeights", "ScalarModeTrajectory", "SignalNoiseStds",
           "StudentErrors", "StudentFlowTrajectory", "StudentGDTrajectory", "StudentInstance", "WhitenedTask"]


# ----------------------------------------------------------------------------------------------------
# Part A: one mode and the two-weight-layer network (Sec. 2.2)
# ----------------------------------------------------------------------------------------------------

class ModeVelocity(NamedTuple):
    """The velocity (a', b') of the single-mode flow (2.2.15–16) at points (a, b); arrays of their broadcast
    shape (floats for scalar input)."""

    a_velocity: Union[float, np.ndarray]
    b_velocity: Union[float, np.ndarray]


class ScalarModeTrajectory(NamedTuple):
    """A single-mode trajectory of (2.2.15–16): ``t`` (m,), ``a`` (m,) and ``b`` (m,); ``mode_strength`` is
    u = a·b."""

    t: np.ndarray
    a: np.ndarray
    b: np.ndarray

    @property
    def mode_strength(self) -> np.ndarray:
        """u(t) = a(t) b(t), shape (m,)."""
        return self.a * self.b


class ModeTask(NamedTuple):
    """An input–output correlation Σ31 = U S Vᵀ (Eq 2.2.8): ``U`` (N3, N3) and ``V`` (N1, N1) orthogonal (output
    and input modes in their columns), ``S`` (N3, N1) rectangular-diagonal with the singular values."""

    U: np.ndarray
    S: np.ndarray
    V: np.ndarray

    @property
    def correlation(self) -> np.ndarray:
        """Σ31 = U S Vᵀ, shape (N3, N1)."""
        return self.U @ self.S @ self.V.T


class WhitenedTask(NamedTuple):
    """A task on whitened inputs (Eqs 2.2.7–2.2.8): ``X`` (N1, P) with X Xᵀ = I, the targets ``Y`` = Σ31 X (N3, P)
    and the ``task`` whose correlation Σ31 = U S Vᵀ = Y Xᵀ they realise."""

    X: np.ndarray
    Y: np.ndarray
    task: ModeTask


class NetworkWeights(NamedTuple):
    """The weights of a two-weight-layer linear network: ``W21`` (N2, N1), input → hidden, and ``W32`` (N3, N2),
    hidden → output."""

    W21: np.ndarray
    W32: np.ndarray


class NetworkTrajectory(NamedTuple):
    """Weights along the gradient flow (2.2.5–6): ``t`` (m,) flow times, ``W21`` (m, N2, N1), ``W32`` (m, N3, N2)."""

    t: np.ndarray
    W21: np.ndarray
    W32: np.ndarray


class NetworkGDTrajectory(NamedTuple):
    """Weights along gradient descent (2.2.3–4): ``steps`` (m,) step counts k, ``W21`` (m, N2, N1),
    ``W32`` (m, N3, N2). The flow time of step k is ``gd_flow_time(steps, learning_rate)``."""

    steps: np.ndarray
    W21: np.ndarray
    W32: np.ndarray


# ----------------------------------------------------------------------------------------------------
# Part B: the Advani–Saxe student (Sec. 2.3)
# ----------------------------------------------------------------------------------------------------

class StudentInstance(NamedTuple):
    """One draw of the teacher–student problem (Eqs 2.3.1–2.3.3) and its spectral decomposition (2.3.6–2.3.11).

    Attributes
    ----------
    inputs : ndarray, shape (N, P)
        X, one example per column.
    teacher : ndarray, shape (N,)
        w̄.
    noise : ndarray, shape (P,)
        The realised label noise ε.
    initial_weights : ndarray, shape (N,)
        w(0).
    labels : ndarray, shape (P,)
        y = w̄X + ε.
    noise_std : float
        σ_ε, the standard deviation of the label noise (also that of a fresh test label in E_g).
    eigenvalues : ndarray, shape (N,)
        λ of X Xᵀ, decreasing, exactly 0 for the N − P frozen modes when P < N.
    input_modes : ndarray, shape (N, N)
        V, eigenvectors v_i of X Xᵀ in its columns.
    rotated_noise : ndarray, shape (min(N, P),)
        ε̃_i = (ε U)_i for the modes with λ_i > 0.
    residual_noise : float
        ||ε U^⊥||², the noise energy outside the span of X's rows (0 when P <= N).
    """

    inputs: np.ndarray
    teacher: np.ndarray
    noise: np.ndarray
    initial_weights: np.ndarray
    labels: np.ndarray
    noise_std: float
    eigenvalues: np.ndarray
    input_modes: np.ndarray
    rotated_noise: np.ndarray
    residual_noise: float

    @property
    def n_features(self) -> int:
        """N."""
        return self.inputs.shape[0]

    @property
    def n_samples(self) -> int:
        """P."""
        return self.inputs.shape[1]

    @property
    def teacher_modes(self) -> np.ndarray:
        """z̄ = w̄ V, shape (N,)."""
        return self.teacher @ self.input_modes

    @property
    def initial_modes(self) -> np.ndarray:
        """z(0) = w(0) V, shape (N,)."""
        return self.initial_weights @ self.input_modes


class StudentFlowTrajectory(NamedTuple):
    """Student weights along the integrated flow (2.3.5): ``t`` (m,) and ``weights`` (m, N)."""

    t: np.ndarray
    weights: np.ndarray


class StudentGDTrajectory(NamedTuple):
    """Student weights along gradient descent: ``steps`` (m,) step counts k and ``weights`` (m, N) (or
    (m, batch, N) for a batch of students)."""

    steps: np.ndarray
    weights: np.ndarray


class StudentErrors(NamedTuple):
    """Realised errors of simulated students (Eqs 2.3.14 and 2.3.29), one row per student and one column per time:
    ``t`` (m,) flow times, ``generalization_error`` E_g (n_students, m) and ``training_error`` E_t/P
    (n_students, m), per sample."""

    t: np.ndarray
    generalization_error: np.ndarray
    training_error: np.ndarray


class SignalNoiseStds(NamedTuple):
    """The standard deviations of the teacher and of the label noise of the Advani–Saxe teacher–student set-up
    (Advani & Saxe 2017, as reviewed in Pezeshki (thesis), Eqs 2.3.1–2.3.3): what
    :func:`dynamics.linear_networks.stds_at_snr` returns and :func:`dynamics.linear_networks.simulated_student_errors`
    takes. The defaults are the thesis's SNR 4 set-up, σ_w̄² = 1 and σ_ε² = 0.25. Their ranges are checked where the
    standard deviations are used, each ``ValueError`` naming the field.

    Attributes
    ----------
    teacher_std : float, default 1.0
        σ_w̄, the standard deviation of the teacher's weights w̄ ~ N(0, σ_w̄² I), in [0, 1e150].
    noise_std : float, default 0.5
        σ_ε, the standard deviation of the label noise ε ~ N(0, σ_ε² I), in [0, 1e150].

    Examples
    --------
    >>> from dynamics.linear_networks import SignalNoiseStds, stds_at_snr
    >>> SignalNoiseStds()
    SignalNoiseStds(teacher_std=1.0, noise_std=0.5)
    >>> [round(std ** 2, 12) for std in stds_at_snr(4.0)]
    [0.8, 0.2]
    """

    teacher_std: float = 1.0
    noise_std: float = 0.5


class MonteCarloEstimate(NamedTuple):
    """A Monte Carlo mean and its standard error (floats for one weight vector, arrays (k,) for k of them)."""

    mean: Union[float, np.ndarray]
    standard_error: Union[float, np.ndarray]


class GeneralizationCurve(NamedTuple):
    """High-dimensional errors of the Advani–Saxe student at times t (arrays of the shape of t, floats for
    scalar t).

    ``generalization_error`` is E_g (2.3.14): the expected squared error on a fresh noisy label, noise floor
    σ_ε² included, no factor 1/2. ``training_error`` is the training error **per sample**, E_t/P, with
    E_t = ||y − wX||² summed over the P examples (2.3.4), no factor 1/2.
    """

    generalization_error: Union[float, np.ndarray]
    training_error: Union[float, np.ndarray]


class AsymptoticErrors(NamedTuple):
    """The t → ∞ limits of :class:`dynamics.linear_networks.GeneralizationCurve`: ``generalization_error`` E_g(∞) (inf
    at α = 1 with noise) and ``training_error`` E_t(∞)/P (per sample)."""

    generalization_error: float
    training_error: float
