"""The reusable set-ups of the linear-network theory: the random tasks, whitened inputs and initialisations of
the two-weight-layer network (Eqs 2.2.7, 2.2.8, 2.2.14 of Pezeshki (thesis)), the teacher–student instances of
the Advani–Saxe student (Eqs 2.3.1–2.3.3, 2.3.6–2.3.11) and the random spectra of their inputs, and the
experiment drivers that the figures, claims, notebook and torch cross-checks share.

Every function that draws takes ``seed`` (None, an int or a ``numpy.random.Generator``, whose stream continues), and
draws in the order its docstring states, so that the same seed gives the same set-up everywhere.
"""
import math
from typing import Optional, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (as_finite_array, haar_orthogonal, one_blas_thread_when_small, require_array_in_range,
                               require_in_range, require_integer, require_output_times, require_positive, rng_from)
from ._checks import require_alpha, require_broadcast, require_mode_factors, require_signal_noise, require_std
from ._results import ModeTask, NetworkWeights, SignalNoiseStds, StudentErrors, StudentInstance, WhitenedTask
from ._student import (generalization_error, student_weights, student_weights_gd, training_error,
                       training_error_direct)
from ._docs import fill_doc

__all__ = ["decoupled_init", "draw_input_spectrum", "draw_student", "mode_task", "random_init",
           "simulated_student_errors", "stds_at_snr", "student_instance", "whitened_inputs", "whitened_mode_task"]


# ----------------------------------------------------------------------------------------------------
# Part A: the two-weight-layer network
# ----------------------------------------------------------------------------------------------------

@fill_doc
def whitened_inputs(n_features: int, n_samples: int,
                    seed: Optional[Union[int, np.random.Generator]] = None) -> np.ndarray:
    r"""Random whitened inputs for Eq (2.2.7): the first ``n_features`` rows of a Haar orthogonal
    ``n_samples`` × ``n_samples`` matrix, so :math:`X X^\top = I`.

    Parameters
    ----------
    n_features : int
        :math:`N_1`, in [1, 100000].
    n_samples : int
        :math:`P`, in [n_features, 100000].
    %(seed)s

    Returns
    -------
    ndarray, shape (n_features, n_samples)
        X with orthonormal rows.

    Raises
    ------
    ValueError
        For sizes out of range (:math:`P < N_1` cannot be whitened).

    Examples
    --------
    >>> X = whitened_inputs(3, 8, seed=0)
    >>> X.shape, bool(np.allclose(X @ X.T, np.eye(3)))
    ((3, 8), True)
    """
    n_features = require_integer("n_features", n_features, 1, 100_000)
    n_samples = require_integer("n_samples", n_samples, n_features, 100_000)
    return haar_orthogonal(n_samples, seed=rng_from(seed))[:n_features]


def mode_task(singular_values: ArrayLike, n_features: int, n_outputs: int,
              seed: Optional[Union[int, np.random.Generator]] = None) -> ModeTask:
    r"""A random input–output correlation :math:`\Sigma_{31} = U S V^\top` with the given singular values, Eq (2.2.8).

    Parameters
    ----------
    singular_values : array_like, shape (r,)
        :math:`s_\alpha \ge 0`, r <= min(n_features, n_outputs), in the order they are placed on :math:`S`'s
        diagonal.
    n_features : int
        :math:`N_1` (input dimension), >= 1.
    n_outputs : int
        :math:`N_3`, >= 1.
    seed : None, int or numpy.random.Generator
        Source of randomness: U is drawn first, then V (Haar orthogonal).

    Returns
    -------
    ModeTask
        ``(U, S, V)``: U (N3, N3), S (N3, N1), V (N1, N1); ``.correlation`` is :math:`U S V^\top`.

    Raises
    ------
    ValueError
        For negative or non-finite singular values, too many of them, or sizes out of range.

    Examples
    --------
    >>> task = mode_task([3.0, 1.0], 4, 3, seed=0)
    >>> [round(float(x), 12) for x in np.linalg.svd(task.correlation, compute_uv=False)]
    [3.0, 1.0, 0.0]
    """
    s = require_array_in_range("singular_values", singular_values, 0.0, ndim=1)
    n_features = require_integer("n_features", n_features, 1, 100_000)
    n_outputs = require_integer("n_outputs", n_outputs, 1, 100_000)
    if s.size > min(n_features, n_outputs):
        raise ValueError(f"singular_values must hold at most min(n_features, n_outputs) = "
                         f"{min(n_features, n_outputs)} values, got {s.size}")
    rng = rng_from(seed)
    U, V = haar_orthogonal(n_outputs, seed=rng), haar_orthogonal(n_features, seed=rng)
    S = np.zeros((n_outputs, n_features))
    S[np.arange(s.size), np.arange(s.size)] = s
    return ModeTask(U, S, V)


def decoupled_init(U: ArrayLike, V: ArrayLike, n_hidden: int, a0: ArrayLike, b0: Optional[ArrayLike] = None,
                   seed: Optional[Union[int, np.random.Generator]] = None) -> NetworkWeights:
    r"""Weights on the decoupled manifold (2.2.14): :math:`W_{21} = R \operatorname{diag}(a_0) V^\top`,
    :math:`W_{32} = U \operatorname{diag}(b_0) R^\top` over the first :math:`m` modes.

    :math:`R` is the first :math:`m` columns of a Haar orthogonal n_hidden × n_hidden matrix, so
    :math:`a^\alpha = a_{0,\alpha} r^\alpha` and :math:`b^\alpha = b_{0,\alpha} r^\alpha` with orthonormal
    :math:`r^\alpha` (what the scalar reduction (2.2.15–16) needs).

    U and V may be the factors of a full SVD of :math:`\Sigma_{31} = U S V^\top` or of a reduced one
    (``numpy.linalg.svd(sigma31, full_matrices=False)`` gives U (N3, k) and :math:`V^\top` (k, N1)); the same factors
    go to
    :func:`dynamics.linear_networks.mode_strengths`.

    Parameters
    ----------
    U : array_like, shape (N3, k_U)
        Output modes in its columns, orthonormal, 1 <= k_U <= N3.
    V : array_like, shape (N1, k_V)
        Input modes in its columns, orthonormal, 1 <= k_V <= N1.
    n_hidden : int
        :math:`N_2 \ge m`.
    a0 : float or array_like, shape (m,)
        Per-mode weights of the first layer; m is their length, or min(k_U, k_V) for scalars.
    b0 : float or array_like, shape (m,), optional
        Per-mode weights of the second layer; None gives the balanced init :math:`b_0 = a_0` (mode
        strengths :math:`u_0 = a_0 b_0`).
    seed : None, int or numpy.random.Generator
        Source of randomness for R.

    Returns
    -------
    NetworkWeights
        ``(W21, W32)``: W21 (N2, N1), W32 (N3, N2).

    Raises
    ------
    ValueError
        For non-finite inputs, U or V without orthonormal columns or with more columns than rows (the message
        names the parameter and its shape), a0 and b0 that do not broadcast, more modes than U and V hold, or
        n_hidden < m.

    Examples
    --------
    >>> from dynamics.linear_networks import mode_strengths
    >>> task = mode_task([2.0, 1.0], 3, 2, seed=0)
    >>> W21, W32 = decoupled_init(task.U, task.V, n_hidden=4, a0=1e-2, seed=1)
    >>> [round(float(x), 12) for x in mode_strengths(W21, W32, task.U, task.V)]
    [0.0001, 0.0001]
    """
    U, V = require_mode_factors(U, V)
    n_modes = min(U.shape[1], V.shape[1])
    a0 = require_array_in_range("a0", a0)
    b0 = a0 if b0 is None else require_array_in_range("b0", b0)
    if a0.ndim > 1 or b0.ndim > 1:
        raise ValueError(f"a0 and b0 must be scalars or 1-D (one value per mode), got shapes {a0.shape}, {b0.shape}")
    if a0.ndim == 1 or b0.ndim == 1:
        n_modes = max(np.size(a0), np.size(b0))
    a0, b0 = require_broadcast(a0=a0, b0=b0)
    a0, b0 = np.broadcast_to(a0, (n_modes,)), np.broadcast_to(b0, (n_modes,))
    if n_modes > min(U.shape[1], V.shape[1]):
        raise ValueError(f"a0 and b0 hold {n_modes} modes, more than U ({U.shape}) and V ({V.shape}) have")
    n_hidden = require_integer("n_hidden", n_hidden, n_modes, 100_000)
    R = haar_orthogonal(n_hidden, seed=rng_from(seed))[:, :n_modes]
    return NetworkWeights((R * a0) @ V[:, :n_modes].T, (U[:, :n_modes] * b0) @ R.T)


def random_init(n_features: int, n_hidden: int, n_outputs: int, init_std: float,
                seed: Optional[Union[int, np.random.Generator]] = None) -> NetworkWeights:
    r"""Small random initial weights with i.i.d. N(0, init_std²) entries (the random start of Saxe et al. 2014's
    simulations).

    Parameters
    ----------
    n_features, n_hidden, n_outputs : int
        :math:`N_1, N_2, N_3 \ge 1`.
    init_std : float
        Standard deviation :math:`\sigma` of every entry, >= 0.
    seed : None, int or numpy.random.Generator
        Source of randomness (W21 is drawn first, then W32).

    Returns
    -------
    NetworkWeights
        ``(W21, W32)``: W21 (N2, N1), W32 (N3, N2).

    Raises
    ------
    ValueError
        For sizes < 1 or a negative init_std.

    Examples
    --------
    >>> W21, W32 = random_init(3, 5, 2, init_std=1e-3, seed=0)
    >>> W21.shape, W32.shape
    ((5, 3), (2, 5))
    """
    init_std = require_std("init_std", init_std)
    shape21 = (require_integer("n_hidden", n_hidden, 1, 100_000), require_integer("n_features", n_features, 1, 100_000))
    shape32 = (require_integer("n_outputs", n_outputs, 1, 100_000), shape21[0])
    rng = rng_from(seed)
    W21 = init_std * rng.standard_normal(shape21)
    W32 = init_std * rng.standard_normal(shape32)
    return NetworkWeights(W21, W32)


def whitened_mode_task(singular_values: ArrayLike, n_features: int, n_outputs: int, n_samples: int,
                       seed: Optional[Union[int, np.random.Generator]] = None) -> WhitenedTask:
    r"""A random task :math:`\Sigma_{31} = U S V^\top` (Eq 2.2.8) on random whitened inputs :math:`X`
    (:math:`X X^\top = I`, Eq 2.2.7) with targets :math:`Y = \Sigma_{31} X`, so that :math:`Y X^\top = \Sigma_{31}`:
    the set-up of the network simulations (the project's torch cross-check uses 16 → 32 → 12, :math:`P = 64`).

    Parameters
    ----------
    singular_values : array_like, shape (r,)
        :math:`s_\alpha \ge 0`, r <= min(n_features, n_outputs).
    n_features : int
        :math:`N_1`, >= 1.
    n_outputs : int
        :math:`N_3`, >= 1.
    n_samples : int
        :math:`P`, in [n_features, 100000].
    seed : None, int or numpy.random.Generator
        Source of randomness: the task is drawn first (:func:`dynamics.linear_networks.mode_task`), then the inputs
        (:func:`dynamics.linear_networks.whitened_inputs`).

    Returns
    -------
    WhitenedTask
        ``(X, Y, task)``: X (N1, P), Y (N3, P) and the :class:`dynamics.linear_networks.ModeTask`.

    Raises
    ------
    ValueError
        As :func:`dynamics.linear_networks.mode_task` and :func:`dynamics.linear_networks.whitened_inputs`.

    Examples
    --------
    >>> X, Y, task = whitened_mode_task([3.0, 1.0], 4, 3, 10, seed=0)
    >>> X.shape, Y.shape, bool(np.allclose(Y @ X.T, task.correlation))
    ((4, 10), (3, 10), True)
    """
    rng = rng_from(seed)
    task = mode_task(singular_values, n_features, n_outputs, seed=rng)
    X = whitened_inputs(n_features, n_samples, seed=rng)
    return WhitenedTask(X, task.correlation @ X, task)


# ----------------------------------------------------------------------------------------------------
# Part B: the Advani–Saxe student
# ----------------------------------------------------------------------------------------------------

@one_blas_thread_when_small("inputs")
def student_instance(inputs: ArrayLike, teacher: ArrayLike, noise: ArrayLike, initial_weights: ArrayLike,
                     noise_std: float) -> StudentInstance:
    r"""A :class:`dynamics.linear_networks.StudentInstance` from given :math:`X`, :math:`\bar w`, :math:`\varepsilon`
    and :math:`w(0)`, with the decomposition :math:`X = V \Lambda^{1/2} U^\top` of Eqs (2.3.6–2.3.10) taken here.

    Parameters
    ----------
    inputs : array_like, shape (N, P)
        :math:`X`, of full rank :math:`\min(N, P)`.
    teacher : array_like, shape (N,)
    noise : array_like, shape (P,)
        The realised label noise :math:`\varepsilon`.
    initial_weights : array_like, shape (N,)
    noise_std : float
        :math:`\sigma_\varepsilon \ge 0`, the label-noise standard deviation used by :math:`E_g` for fresh test
        labels.

    Returns
    -------
    StudentInstance

    Raises
    ------
    ValueError
        For non-finite input, lengths that do not match N or P, a rank-deficient X or a negative noise_std.

    Examples
    --------
    >>> inst = student_instance(np.eye(2), [1.0, 2.0], [0.0, 0.5], [0.0, 0.0], noise_std=0.5)
    >>> inst.labels, inst.eigenvalues
    (array([1. , 2.5]), array([1., 1.]))
    """
    X = as_finite_array("inputs", inputs, ndim=2)
    n, p = X.shape
    w_bar = as_finite_array("teacher", teacher, ndim=1)
    eps = as_finite_array("noise", noise, ndim=1)
    w0 = as_finite_array("initial_weights", initial_weights, ndim=1)
    for name, arr, symbol, want in (("teacher", w_bar, "N", n), ("initial_weights", w0, "N", n),
                                    ("noise", eps, "P", p)):
        if arr.size != want:
            raise ValueError(f"{name} must have length {symbol} = {want} (inputs has shape (N, P) = {X.shape}), "
                             f"got {arr.size}")
    noise_std = require_std("noise_std", noise_std)
    # The SVD X = V Λ^{1/2} Uᵀ of X itself, not the eigendecomposition of X Xᵀ: a singular value σ_i is
    # accurate to eps·σ_max absolutely, so λ_i = σ_i² is accurate to 2 eps √(λ_max/λ_i) relatively, where the
    # eigenvalues of X Xᵀ are only accurate to eps·λ_max/λ_i (1e-8 relative for the smallest λ at α = 1,
    # which the noise term ε̃_i/√λ_i of (2.3.13) amplifies). Only the first min(N, P) columns of U are
    # formed (ε̃ = ε U on them); ||ε U^⊥||² = ||ε||² − Σ ε̃_i² is the noise outside the span of X's rows.
    # scipy's gesdd on Xᵀ, which is Fortran-ordered as LAPACK wants it (no copy): 1.2x faster on one thread than
    # numpy's svd of X on two at 200 x 240 (benchmarks/blas_threads.py). Xᵀ = A S Bᵀ gives V = B, Uᵀ = Aᵀ.
    from scipy import linalg  # imported on first use: importing the package stays light

    m = min(n, p)
    A, singular, Bt = linalg.svd(X.T, full_matrices=p < n, check_finite=False)
    V, Ut = Bt.T, A.T
    lam = np.zeros(n)
    lam[:m] = singular[:m] ** 2  # the exact frozen subspace: λ_i = 0 for i >= min(N, P)
    if np.any(lam[:m] <= 0):
        raise ValueError(f"inputs must have full rank min(N, P) = {m}")
    rotated = Ut[:m] @ eps
    residual = max(float(eps @ eps - rotated @ rotated), 0.0) if p > n else 0.0
    return StudentInstance(X, w_bar, eps, w0, w_bar @ X + eps, noise_std, lam, V, rotated, residual)


@fill_doc
def draw_student(n_features: int, n_samples: int, *, teacher_std: float = 1.0, noise_std: float = 0.5,
                 init_std: float = 0.0, seed: Optional[Union[int, np.random.Generator]] = None) -> StudentInstance:
    r"""A random instance of Eqs (2.3.1–2.3.3): :math:`X_{j\mu} \sim \mathcal{N}(0, 1/N)`,
    :math:`\bar w \sim \mathcal{N}(0, \sigma_{\bar w}^2 I)`,
    :math:`\varepsilon \sim \mathcal{N}(0, \sigma_\varepsilon^2 I)`, :math:`w(0) \sim \mathcal{N}(0, \sigma_0^2 I)`.

    Parameters
    ----------
    %(n_features)s
    n_samples : int
        :math:`P`, in [1, 1000000].
    teacher_std : float
        :math:`\sigma_{\bar w}`, standard deviation of the teacher's weights, in [0, 1e150].
    noise_std : float
        :math:`\sigma_\varepsilon`, standard deviation of the label noise, in [0, 1e150] (0.5: the thesis's SNR 4
        with teacher_std 1).
    init_std : float
        :math:`\sigma_0`, standard deviation of the initial weights, in [0, 1e150].
    seed : None, int or numpy.random.Generator
        Source of randomness; :math:`X`, :math:`\bar w`, :math:`\varepsilon`, :math:`w(0)` are drawn in that order.

    Returns
    -------
    StudentInstance

    Raises
    ------
    ValueError
        For sizes out of range or negative standard deviations.

    Examples
    --------
    >>> inst = draw_student(30, 60, seed=0)
    >>> inst.n_features, inst.n_samples, inst.noise_std
    (30, 60, 0.5)
    """
    n = require_integer("n_features", n_features, 1, 100_000)
    p = require_integer("n_samples", n_samples, 1, 1_000_000)
    teacher_std = require_std("teacher_std", teacher_std)
    noise_std = require_std("noise_std", noise_std)
    init_std = require_std("init_std", init_std)
    rng = rng_from(seed)
    X = rng.standard_normal((n, p)) / np.sqrt(n)
    w_bar = teacher_std * rng.standard_normal(n)
    eps = noise_std * rng.standard_normal(p)
    w0 = init_std * rng.standard_normal(n)
    return student_instance(X, w_bar, eps, w0, noise_std)


@fill_doc
def draw_input_spectrum(n_features: int, n_samples: int,
                        seed: Optional[Union[int, np.random.Generator]] = None) -> np.ndarray:
    r"""The :math:`N` eigenvalues of :math:`X X^\top` for random inputs :math:`X_{j\mu} \sim \mathcal{N}(0, 1/N)`
    (Eq 2.3.3), as in :func:`dynamics.linear_networks.draw_student`: the spectrum whose density tends to the
    Marchenko–Pastur law (2.3.30) with :math:`\alpha = P/N`.

    Parameters
    ----------
    %(n_features)s
    n_samples : int
        :math:`P`, in [1, 1000000].
    seed : None, int or numpy.random.Generator
        Source of randomness (:math:`X` is drawn as :math:`N \times P` standard normals over :math:`\sqrt{N}`).

    Returns
    -------
    ndarray, shape (N,)
        The squared singular values of :math:`X`, decreasing, followed by :math:`N - P` zeros when :math:`P < N` (the
        frozen modes).

    Raises
    ------
    ValueError
        For sizes out of range.

    Examples
    --------
    >>> lam = draw_input_spectrum(50, 20, seed=0)
    >>> lam.shape, int(np.sum(lam == 0)), bool(np.all(np.diff(lam) <= 0))
    ((50,), 30, True)
    """
    n = require_integer("n_features", n_features, 1, 100_000)
    p = require_integer("n_samples", n_samples, 1, 1_000_000)
    X = rng_from(seed).standard_normal((n, p)) / math.sqrt(n)
    lam = np.zeros(n)
    lam[:min(n, p)] = np.linalg.svd(X, compute_uv=False) ** 2
    return lam


def stds_at_snr(snr: float) -> SignalNoiseStds:
    r"""The teacher and noise standard deviations of a teacher–student set-up (Eqs 2.3.1–2.3.3) with signal-to-noise
    ratio :math:`\mathrm{SNR} = \sigma_{\bar w}^2/\sigma_\varepsilon^2` and unit label variance
    :math:`\sigma_{\bar w}^2 + \sigma_\varepsilon^2 = 1`.

    Parameters
    ----------
    snr : float
        :math:`\sigma_{\bar w}^2/\sigma_\varepsilon^2`, finite and >= 0.

    Returns
    -------
    SignalNoiseStds
        ``(teacher_std, noise_std)`` =
        :math:`\left(\sqrt{\mathrm{SNR}/(1 + \mathrm{SNR})}, \sqrt{1/(1 + \mathrm{SNR})}\right)`.

    Raises
    ------
    ValueError
        For a negative or non-finite snr.

    Examples
    --------
    >>> teacher_std, noise_std = stds_at_snr(4.0)
    >>> round(teacher_std ** 2, 12), round(noise_std ** 2, 12)
    (0.8, 0.2)
    """
    snr = require_in_range("snr", snr, 0.0, np.inf)
    return SignalNoiseStds(float(np.sqrt(snr / (1 + snr))), float(np.sqrt(1 / (1 + snr))))


@fill_doc
def simulated_student_errors(alpha: float, n_features: int, n_students: int, t: ArrayLike, *,
                             learning_rate: Optional[float] = None, stds: SignalNoiseStds = SignalNoiseStds(),
                             init_std: float = 0.0,
                             seed: Optional[Union[int, np.random.Generator]] = None) -> StudentErrors:
    r"""Realised errors of independently drawn students (Eqs 2.3.1–2.3.3, :math:`P = \operatorname{round}(\alpha N)`)
    trained on their own instance: :math:`E_g` (2.3.14) and :math:`E_t/P` (2.3.4, 2.3.29) at the flow times :math:`t`,
    the finite-size counterpart of :func:`dynamics.linear_networks.generalization_curve`.

    Without ``learning_rate`` the students follow the gradient flow (2.3.5) by the per-mode solution (2.3.13),
    :math:`E_t` by (2.3.29); with it they take :math:`k = t/\eta` full-batch GD steps, exactly
    (:math:`(1 - \eta\lambda)^k`, :func:`dynamics.linear_networks.student_weights_gd`), and :math:`E_t` is
    :math:`\lVert y - wX \rVert^2` of those weights.

    Parameters
    ----------
    alpha : float
        :math:`\alpha = P/N > 0`, with :math:`1 \le \operatorname{round}(\alpha N) \le 10^6`.
    %(n_features)s
    n_students : int
        Number of students (instances), in [1, 100000].
    t : array_like, shape (m,)
        Flow times: finite, >= 0, non-decreasing; with ``learning_rate``, whole multiples :math:`k \eta` of it.
    learning_rate : float, optional
        :math:`\eta > 0` of gradient descent on :math:`\frac{1}{2}\lVert y - wX \rVert^2` (each instance needs
        :math:`\eta < 2/\lambda_\mathrm{max}`); None: the flow.
    stds : SignalNoiseStds
        The teacher's and the label noise's standard deviations :math:`\sigma_{\bar w}` and
        :math:`\sigma_\varepsilon`, each in [0, 1e150] (default: the thesis's SNR 4 set-up,
        :math:`\sigma_{\bar w} = 1`, :math:`\sigma_\varepsilon = 0.5`; :func:`dynamics.linear_networks.stds_at_snr`
        gives them at an SNR).
    init_std : float
        :math:`\sigma_0`, the standard deviation of the students' initial weights, in [0, 1e150].
    seed : None, int or numpy.random.Generator
        Source of randomness: one :func:`dynamics.linear_networks.draw_student` per student, in turn.

    Returns
    -------
    StudentErrors
        ``(t, generalization_error, training_error)``: the errors of shape (n_students, m), training_error per
        sample.

    Raises
    ------
    ValueError
        For alpha <= 0, sizes out of range, bad times, times that are not whole numbers of steps, a standard
        deviation out of range (named by its field), or as :func:`dynamics.linear_networks.draw_student` and
        :func:`dynamics.linear_networks.student_weights_gd`.
    TypeError
        If ``stds`` is not a :class:`dynamics.linear_networks.SignalNoiseStds`.

    Examples
    --------
    >>> run = simulated_student_errors(2.0, 20, 3, [0.0, 1.0, 10.0], seed=0)
    >>> run.generalization_error.shape, bool(np.all(run.generalization_error[:, 0] > run.generalization_error[:, 1]))
    ((3, 3), True)
    >>> gd = simulated_student_errors(2.0, 20, 3, [0.0, 1.0, 10.0], learning_rate=0.05, seed=0)
    >>> bool(np.abs(gd.generalization_error - run.generalization_error).max() < 0.05)
    True
    >>> clean = simulated_student_errors(2.0, 20, 3, [0.0, 10.0], stds=stds_at_snr(1e6), seed=0)
    >>> bool(np.all(clean.training_error[:, -1] < 1e-2))
    True
    """
    alpha = require_alpha(alpha)
    teacher_std, noise_std = require_signal_noise(stds)
    n = require_integer("n_features", n_features, 1, 100_000)
    count = require_integer("n_students", n_students, 1, 100_000)
    times = require_output_times("t", t)
    product = alpha * n  # inf for a huge alpha: refused below, not an OverflowError from round()
    p = round(product) if math.isfinite(product) else math.inf
    if not 1 <= p <= 1_000_000:
        raise ValueError(f"alpha must give 1 <= P = round(alpha·n_features) <= 1e6 examples, got P = {p:g} for "
                         f"alpha = {alpha:g}, n_features = {n}")
    if learning_rate is not None:
        eta = require_positive("learning_rate", learning_rate)
        with np.errstate(over="ignore"):
            steps = np.round(times / eta)
        if not np.all(np.isfinite(steps)) or np.any(np.abs(steps * eta - times) > 1e-9 * np.maximum(times, eta)) \
                or steps[-1] > 1e9:
            raise ValueError(f"t must be whole numbers k·learning_rate of steps (k <= 1e9), got t = {times} with "
                             f"learning_rate = {eta:g}")
    rng = rng_from(seed)
    eg, et = [], []
    for _ in range(count):
        inst = draw_student(n, int(p), teacher_std=teacher_std, noise_std=noise_std, init_std=init_std, seed=rng)
        if learning_rate is None:
            eg.append(generalization_error(inst, student_weights(inst, times)))
            et.append(training_error(inst, times) / inst.n_samples)
        else:
            weights = student_weights_gd(inst, steps, eta)
            eg.append(generalization_error(inst, weights))
            et.append(training_error_direct(inst, weights) / inst.n_samples)
    return StudentErrors(times, np.array(eg).reshape(count, times.size), np.array(et).reshape(count, times.size))
