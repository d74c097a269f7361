"""Exact finite-d GD for the teacher–student model with a general modulation matrix F (Eqs 4.2.8–4.2.10,
4.2.17–4.2.19; App. .2.12–.2.20).

With XᵀX = W Λ Wᵀ (eigenvalues s_j, Eq 4.2.8) and b = WᵀXᵀy, GD from ŵ₀ = 0 on ½‖y − Xŵ‖² + (λ/2)‖ŵ‖²
(plus the output penalty (a/2)‖Xŵ‖² of Lemma 4.3.1) is diagonal: after k steps ŵ_k = W diag(f(k)) b with the
spectral filter

    f_j(k) = D_j(k)/r_j,   r_j = (1 + a)s_j + λ,
    D_j = 1 − (1 − η r_j)^k  (discrete GD, .2.16–.2.17)   or   1 − exp(−η r_j k)  (gradient flow),

evaluated as −expm1(k·log1p(−ηr)) so that early steps keep full precision (real k interpolates; a mode with
ηr > 1 overshoots and needs whole k). Modes with s_j = 0 (n < d) never move and are set to zero. A
step-dependent penalty a_k (Fig 4.6's schedule) is the recursion f ← (1 − η r_j(a_k)) f + η.

Teacher- and noise-averaged order parameters (Eqs 4.2.9–4.2.10, .2.18–.2.20, with the garbled trace of R and the
teacher's F⁻¹ in A corrected): with
K_j = f_j s_j and N_j = f_j √s_j,

    R(k) = Tr K/d,   Q(k) = Tr[AᵀA]/d + σ_ε² Tr[BᵀB]/d,   A = F̃ K F̃⁻¹,  B = F̃ N,  F̃ = F W,

computed in O(d²) per step as Q = Kᵀ(G∘H)K/d + σ_ε² Σ_j N_j² G_jj/d with G = F̃ᵀF̃ and H = F̃⁻¹F̃⁻ᵀ (derived in
this project):
the eigendecomposition once, then a numba loop over the steps in parallel. Given the left singular basis U of F
and the fast-group size, the same sums restricted to the rows of one group of UᵀF̃ give R_i and Q_i.
"""
from typing import Optional, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (OdeOptions, as_finite_array, one_blas_thread_when_small, require_choice,
                               require_finite_result, require_in_range, require_output_times, require_positive,
                               solve_ode)
from ._checks import (require_data, require_design, require_designs, require_eigenvalues, require_gd_options,
                      require_gd_settings, require_noise_std, require_penalty_schedule, require_preconditioner,
                      require_single_modulation, require_stable_gd)
from ._kernels import (filter_kernel, gradient_flow_rhs, scheduled_filter_kernel, shifted_tridiagonal_solve,
                       trace_kernel)
from ._order_parameters import order_parameters
from ._results import GDSettings, Modulation, OrderParameterCurve, TeacherStudentData
from ._docs import fill_doc


def _eig(gram):
    # LAPACK's divide-and-conquer driver through scipy: 17% faster than numpy's eigh on one thread at d = 250-480,
    # which the one-thread limit of these routines gives it (scipy.linalg.eigh takes a stack of matrices)
    from scipy import linalg  # imported on first use: importing the package stays light

    s, W = linalg.eigh(gram, driver="evd", check_finite=False)
    s = np.clip(s, 0.0, None)
    null = s <= gram.shape[-1] * np.finfo(float).eps * s.max(axis=-1, keepdims=True)
    return s, W, null


def _filtered_solution(W, design, y, f):
    """W diag(f_t) Wᵀ Xᵀy for every row t of the spectral filter ``f`` (..., T, d): the weights of GD, gradient flow
    or ridge in the eigenbasis W of XᵀX. By BLAS products: the einsum loops they replace took 10 ms where matmul
    takes 0.7 ms (d = 250, T = 300), more than the eigendecomposition's gain from a second BLAS thread."""
    b = (np.swapaxes(W, -1, -2) @ (np.swapaxes(design, -1, -2) @ y[..., None]))[..., 0]
    return (f * b[..., None, :]) @ np.swapaxes(W, -1, -2)


def _inverse_max_eigenvalue(s_max, weight_decay):
    """η = 1/(λ_max + λ): the learning rate of the authors' code
    (:func:`~dynamics.double_descent.inverse_max_eigenvalue_learning_rate`)."""
    return 1.0 / (s_max + weight_decay)


def _learning_rate(learning_rate, s_max, weight_decay, output_penalty, dynamics, steps):
    """η (default 1/(λ_max + λ)), checked for stability (:func:`require_stable_gd`)."""
    if learning_rate is None:
        eta = _inverse_max_eigenvalue(s_max, weight_decay)
    else:
        eta = require_positive("learning_rate", learning_rate)
    require_stable_gd(eta, s_max, weight_decay, output_penalty, dynamics, steps)
    return eta


def inverse_max_eigenvalue_learning_rate(X: ArrayLike, weight_decay: float = 0.0, factor: float = 1.0,
                                         loss_normalization: str = "sum") -> Union[float, np.ndarray]:
    r"""The learning rate :math:`\eta = \mathrm{factor}/(\lambda_\mathrm{max} + \lambda)` of GD on a design,
    :math:`\lambda_\mathrm{max}` the largest eigenvalue of :math:`X^\top X`: the curvature of the loss
    :math:`\frac{1}{2}\lVert X\hat w - y \rVert^2 + \frac{\lambda}{2}\lVert \hat w \rVert^2` (Eq 4.2.3, summed as
    corrected) along its stiffest direction.

    GD on this quadratic loss converges iff :math:`\eta(\lambda_\mathrm{max} + \lambda) < 2` (each eigen-mode
    contracts by :math:`|1 - \eta(s_j + \lambda)|`, App. .2.16–.2.17), so ``factor`` must lie in (0, 2). The authors'
    code, the figures and the claims use factor = 1, :math:`\eta = 1/\lambda_\mathrm{max}` (the default of
    :func:`~dynamics.double_descent.gd_weights` and :func:`~dynamics.double_descent.exact_gd_order_parameters`): the
    stiffest mode is fitted in one step and no mode overshoots.

    Parameters
    ----------
    X : array_like
        One design, shape (n, d), or a stack of designs, shape (..., n, d).
    weight_decay : float
        :math:`\lambda \ge 0` (it adds :math:`\lambda` to every eigenvalue of the Hessian).
    factor : float
        :math:`\eta` as a multiple of :math:`1/(\lambda_\mathrm{max} + \lambda)`, in (0, 2).
    loss_normalization : {"sum", "mean"}
        The loss of :func:`~dynamics.double_descent.iterate_gd`: the summed :math:`\frac{1}{2}\sum` (Hessian
        :math:`X^\top X + \lambda`) or the printed :math:`1/(2n)` mean (Hessian :math:`X^\top X/n + \lambda`).

    Returns
    -------
    float or ndarray
        :math:`\eta`, a float for one design, else an array of the stack's leading shape (one :math:`\eta` per
        design; the smallest is stable for all of them).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0]])   # XᵀX = diag(1, 4)
    >>> inverse_max_eigenvalue_learning_rate(X), inverse_max_eigenvalue_learning_rate(X, 1.0, factor=0.5)
    (0.25, 0.1)
    >>> inverse_max_eigenvalue_learning_rate(np.stack([X, 2.0 * X])).tolist()
    [0.25, 0.0625]
    """
    X = require_designs(X)
    weight_decay = require_positive("weight_decay", weight_decay, allow_zero=True)
    factor = require_in_range("factor", factor, 0.0, 2.0, low_open=True, high_open=True,
                              why="GD on a quadratic loss is stable for eta < 2/lambda_max")
    require_choice("loss_normalization", loss_normalization, ("sum", "mean"))
    with np.errstate(over="ignore", invalid="ignore"):
        gram = np.swapaxes(X, -1, -2) @ X
    gram = require_finite_result(gram, "XᵀX", "X is too large: its Gram matrix overflows float64")
    s_max = np.linalg.eigvalsh(gram).max(-1)
    if loss_normalization == "mean":
        s_max = s_max / X.shape[-2]
    curvature = s_max + weight_decay
    if np.any(curvature <= 0):
        raise ValueError("X and weight_decay: XᵀX is zero in float64 and weight_decay = 0, so the loss is flat and "
                         "every learning rate is stable; give weight_decay > 0 or a non-zero design")
    with np.errstate(over="ignore"):
        eta = factor / curvature
    eta = require_finite_result(eta, "factor/(lambda_max + weight_decay)",
                                "lambda_max + weight_decay is too small for float64; scale X up")
    if np.any(eta <= 0):
        raise ValueError(f"factor: factor/(lambda_max + weight_decay) underflows to 0 (lambda_max + weight_decay = "
                         f"{float(np.max(curvature)):.3g}); scale X down")
    return float(eta) if np.ndim(eta) == 0 else eta


@fill_doc
def spectral_filter(eigenvalues: ArrayLike, steps: ArrayLike, learning_rate: Optional[float],
                    weight_decay: float = 0.0, dynamics: str = "gd", output_penalty: float = 0.0) -> np.ndarray:
    r"""The spectral filter :math:`f_j(k)` of GD (Eqs .2.16–.2.17):
    :math:`\hat w_k = W \operatorname{diag}(f(k)) W^\top X^\top y` for :math:`X^\top X = W \Lambda W^\top`.

    Parameters
    ----------
    eigenvalues : array_like
        :math:`s_j \ge 0` of :math:`X^\top X`, shape (d,).
    steps : float or array_like
        GD steps :math:`k \ge 0` (real values interpolate; inf is the fixed point).
    learning_rate : float or None
        :math:`\eta > 0` (None: :math:`1/(\lambda_\mathrm{max} + \lambda)`).
    %(weight_decay)s
    dynamics : {"gd", "flow"}
        Discrete GD, :math:`D = 1 - (1 - \eta r)^k`, or gradient flow, :math:`D = 1 - \exp(-\eta r k)`.
    output_penalty : float
        Constant :math:`a \ge 0` of the output penalty :math:`\frac{a}{2}\lVert X\hat w \rVert^2` (Lemma 4.3.1).

    Returns
    -------
    ndarray
        Shape (len(steps), d).

    Examples
    --------
    >>> spectral_filter([1.0, 0.5], [0, 1, np.inf], 0.5).round(12).tolist()
    [[0.0, 0.0], [0.5, 0.5], [1.0, 2.0]]
    """
    steps, weight_decay, output_penalty = require_gd_options(steps, weight_decay, dynamics, output_penalty)
    s = require_eigenvalues(eigenvalues)
    eta = _learning_rate(learning_rate, s.max(), weight_decay, output_penalty, dynamics, steps)
    null = s <= s.size * np.finfo(float).eps * s.max()
    return filter_kernel(steps, s[None], np.array([eta]), weight_decay, output_penalty, dynamics == "flow",
                         null[None])[0]


@fill_doc
@one_blas_thread_when_small("X", "preconditioner")
def gd_weights(X: ArrayLike, y: ArrayLike, steps: ArrayLike, learning_rate: Optional[float] = None,
               weight_decay: float = 0.0, dynamics: str = "gd", output_penalty: float = 0.0,
               preconditioner: Optional[ArrayLike] = None) -> np.ndarray:
    r"""Closed-form GD (or gradient-flow) weights
    :math:`\hat w_k = W (I - (I - \eta\Lambda - \eta\lambda)^k) W^\top \hat w_\lambda` (Eq .2.17, Eq 4.2.19),
    vectorised over any leading (draw) axes of the designs.

    Parameters
    ----------
    %(X)s
    y : array_like
        Labels, shape (..., n), the leading axes broadcasting against X's (e.g. many teachers at one design).
    %(steps)s
    learning_rate : float, optional
        :math:`\eta > 0`; None: :math:`1/(\lambda_\mathrm{max} + \lambda)` per design (the authors' code).
    %(weight_decay)s
    dynamics : {"gd", "flow"}
        Discrete GD or gradient flow (module docstring).
    output_penalty : float
        Constant :math:`a \ge 0` of :math:`\frac{a}{2}\lVert X\hat w \rVert^2` (Lemma 4.3.1).
    preconditioner : array_like, optional
        :math:`M` (d, d): the update :math:`\hat w \leftarrow \hat w - \eta M M^\top \nabla L` (GD on
        :math:`u = M^{-1}\hat w` with design :math:`XM`).

    Returns
    -------
    ndarray
        Weights of shape (..., T, d).

    Examples
    --------
    >>> X, y = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([1.0, 2.0])
    >>> gd_weights(X, y, [1.0, np.inf], learning_rate=0.2).round(6)
    array([[0.2, 0.8],
           [1. , 1. ]])
    """
    steps, weight_decay, output_penalty = require_gd_options(steps, weight_decay, dynamics, output_penalty)
    X, y = require_design(X, y)
    M = require_preconditioner(preconditioner, X.shape[-1])
    design = X if M is None else X @ M
    s, W, null = _eig(np.swapaxes(design, -1, -2) @ design)
    batch = s.shape[:-1]
    s2, null2 = s.reshape(-1, s.shape[-1]), null.reshape(-1, s.shape[-1])
    s_max = s2.max(axis=-1)
    if learning_rate is None:
        etas = _inverse_max_eigenvalue(s_max, weight_decay)
        _learning_rate(None, float(s_max.max()), weight_decay, output_penalty, dynamics, steps)
    else:
        etas = np.full(s_max.shape, _learning_rate(learning_rate, float(s_max.max()), weight_decay,
                                                   output_penalty, dynamics, steps))
    f = filter_kernel(steps, s2, etas, weight_decay, output_penalty, dynamics == "flow", null2)
    f = f.reshape(batch + f.shape[1:])
    u = _filtered_solution(W, design, y, f)
    return u if M is None else u @ M.T


@fill_doc
@one_blas_thread_when_small("X")
def ridge_weights(X: ArrayLike, y: ArrayLike, weight_decay: ArrayLike) -> np.ndarray:
    r"""Ridge solutions :math:`(X^\top X + \lambda I)^{-1} X^\top y` (Eq .2.14), the :math:`k \to \infty` limit of GD
    with weight decay :math:`\lambda`; :math:`\lambda = 0` is the minimum-norm solution.

    Parameters
    ----------
    %(X)s
    y : array_like
        Labels, shape (..., n).
    weight_decay : float or array_like
        :math:`\lambda \ge 0`, shape (L,) or scalar.

    Returns
    -------
    ndarray
        Shape (..., L, d).

    Notes
    -----
    When the smaller Gram matrix (:math:`X^\top X`, or :math:`XX^\top` for :math:`n < d`, then
    :math:`\hat w = X^\top (XX^\top + \lambda I)^{-1} y`) has full rank, it is reduced to tridiagonal form once and each
    :math:`\lambda` costs one tridiagonal solve; otherwise the eigendecomposition of :math:`X^\top X` filters each
    mode by :math:`1/(s_j + \lambda)` and sets the null modes to zero. Both give the same solution to rounding.

    Examples
    --------
    >>> X, y = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([1.0, 2.0])
    >>> ridge_weights(X, y, [0.0, 1.0]).round(6)
    array([[1. , 1. ],
           [0.5, 0.8]])
    """
    lam = np.atleast_1d(as_finite_array("weight_decay", weight_decay))
    if lam.ndim != 1 or np.any(lam < 0):
        raise ValueError(f"weight_decay must be a scalar or 1-D array of values >= 0, got {weight_decay!r}")
    X, y = require_design(X, y)
    lead = np.broadcast_shapes(X.shape[:-2], y.shape[:-1])
    X, y = np.broadcast_to(X, lead + X.shape[-2:]), np.broadcast_to(y, lead + y.shape[-1:])
    out = np.empty(lead + (lam.size, X.shape[-1]))
    for index in np.ndindex(lead):
        w = _ridge_tridiagonal(X[index], y[index], lam)
        out[index] = _ridge_spectral(X[index], y[index], lam) if w is None else w
    return out


def _ridge_spectral(X, y, lam):
    """Ridge through the eigendecomposition of XᵀX: the filter 1/(s_j + λ), zero on the null modes."""
    s, W, null = _eig(X.T @ X)
    rate = s[None, :] + lam[:, None]
    with np.errstate(divide="ignore"):
        f = np.where(null[None, :], 0.0, 1.0 / np.where(rate > 0, rate, 1.0))
    return _filtered_solution(W, X, y, f)


def _ridge_tridiagonal(X, y, lam):
    """Ridge through the tridiagonal form of the smaller Gram matrix, G = XᵀX (n ≥ d) or K = XXᵀ (n < d, then
    ŵ = Xᵀ(K + λI)⁻¹y): G = QTQᵀ by Householder reflections (LAPACK sytrd), one positive definite tridiagonal solve
    per λ, and Q applied to the solutions (ormqr). No eigenvectors are formed, which halves the time of the
    eigendecomposition route at d = 250-480 (``benchmarks/blas_threads.py``). Returns None when G has a null mode by
    the eigendecomposition route's criterion (its eigenvalues, from T, in O(m²)), or a shifted T is not numerically
    positive definite: the eigendecomposition route then zeroes the null modes."""
    from scipy.linalg import lapack  # imported on first use, as in _eig

    n, d = X.shape
    gram, rhs = (X @ X.T, y) if n < d else (X.T @ X, X.T @ y)
    m = gram.shape[0]
    if m == 1:
        return None
    lwork = int(lapack.dsytrd_lwork(m, lower=1)[0])
    reflectors, diagonal, off_diagonal, tau, info = lapack.dsytrd(gram, lower=1, lwork=lwork)
    eigenvalues, info_sterf = lapack.dsterf(diagonal, off_diagonal)
    if info or info_sterf or not eigenvalues[0] > m * np.finfo(float).eps * eigenvalues[-1]:
        return None
    # Q = diag(1, Q'), Q' the product of the reflectors below the subdiagonal, stored as a QR factor's
    below = reflectors[1:, :-1]
    work = 64 * max(m, lam.size)
    projected = rhs.copy()
    projected[1:] = lapack.dormqr(b"L", b"T", below, tau, rhs[1:, None], work)[0][:, 0]
    Z, ok = shifted_tridiagonal_solve(diagonal, off_diagonal, lam, projected)
    if not ok:
        return None
    solutions = Z.T.copy()
    solutions[1:] = lapack.dormqr(b"L", b"N", below, tau, solutions[1:], work)[0]
    return solutions.T @ X if n < d else solutions.T


class _TraceSetup:
    """UᵀF̃ (``A``) and F̃⁻¹U (``B``) of the module docstring, and per group g (all rows, or the fast/slow rows of
    UᵀF̃): C_g = diag(B A restricted to g), M_g = G_g∘H and diag G_g, with G_g = A[g]ᵀA[g], H = BBᵀ."""

    def __init__(self, W, F, preconditioner):
        if isinstance(F, Modulation) and preconditioner is None:
            # F = UΣVᵀ: UᵀF̃ = ΣVᵀW and F̃⁻¹U = WᵀVΣ⁻¹, no inverse and no product with U needed
            P = F.V.T @ W
            A = F.singular_values[:, None] * P
            B = P.T / F.singular_values[None, :]
        else:
            F_mat, F_inv, U = F.matrix, F.inverse, (F.U if isinstance(F, Modulation) else None)
            if preconditioner is not None:
                F_mat, F_inv = F_mat @ preconditioner, np.linalg.solve(preconditioner, F_inv)
            A = F_mat @ W if U is None else U.T @ F_mat @ W
            B = W.T @ F_inv if U is None else W.T @ F_inv @ U
        d = W.shape[0]
        groups = [slice(0, F.n_fast), slice(F.n_fast, d)] if isinstance(F, Modulation) else [slice(0, d)]
        self.A, self.B, self.groups = A, B, groups
        H = B @ B.T
        G = [A[g].T @ A[g] for g in groups]
        self.C = np.stack([(A[g] * B[:, g].T).sum(0) for g in groups])
        self.M = np.stack([Gg * H for Gg in G])
        self.G_diag = np.stack([np.diag(Gg).copy() for Gg in G])

    def evaluate(self, f, s, noise_std):
        K, N2 = np.ascontiguousarray(f * s), np.ascontiguousarray(f * f * s)
        R, Q = trace_kernel(K, N2, self.C, self.M, self.G_diag, noise_std * noise_std)
        return list(R), list(Q)

    def evaluate_matrix(self, f, s, noise_std):
        """The direct O(d³)-per-step form: A_k = UᵀF̃ diag(K) F̃⁻¹U and B_k = UᵀF̃ diag(N), row blocks per group."""
        K, N = f * s, f * np.sqrt(s)
        d = K.shape[-1]
        idx = [np.arange(d)[g] for g in self.groups]
        R = [np.empty(K.shape[0]) for _ in self.groups]
        Q = [np.empty(K.shape[0]) for _ in self.groups]
        for m in range(K.shape[0]):
            A_k = (self.A * K[m]) @ self.B
            B_k = self.A * N[m]
            for i, g in enumerate(idx):
                R[i][m] = np.trace(A_k[np.ix_(g, g)]) / d
                Q[i][m] = (np.sum(A_k[g] ** 2) + noise_std ** 2 * np.sum(B_k[g] ** 2)) / d
        return R, Q


def _spectral_inputs(F, X, eigenvalues, eigenvectors, preconditioner):
    F, d = require_single_modulation(F)
    M = require_preconditioner(preconditioner, d)
    if X is not None:
        if eigenvalues is not None or eigenvectors is not None:
            raise ValueError("give either X or (eigenvalues, eigenvectors), not both")
        X = as_finite_array("X", X, ndim=2)
        if X.shape[1] != d:
            raise ValueError(f"X must have {d} columns (the size of F), got shape {X.shape}")
        design = X if M is None else X @ M
        s, W, null = _eig(design.T @ design)
    else:
        if eigenvalues is None or eigenvectors is None:
            raise ValueError("give X, or both eigenvalues and eigenvectors of XᵀX")
        if M is not None:
            raise ValueError("preconditioner needs X (the spectrum of the preconditioned design is recomputed)")
        s = require_eigenvalues(eigenvalues)
        W = as_finite_array("eigenvectors", eigenvectors, ndim=2)
        if s.shape != (d,) or W.shape != (d, d):
            raise ValueError(f"eigenvalues must have shape ({d},) and eigenvectors ({d}, {d}) to match F; got "
                             f"{s.shape} and {W.shape}")
        if np.abs(W.T @ W - np.eye(d)).max() > 1e-8:
            raise ValueError("eigenvectors must be orthonormal (columns of W with WᵀW = I to 1e-8)")
        null = s <= d * np.finfo(float).eps * s.max()
    return F, s, W, null, M


def _assemble(steps, R, Q, noise_std):
    if len(R) == 1:
        return order_parameters(R[0], Q[0], noise_std, steps=steps)
    return order_parameters(R[0] + R[1], Q[0] + Q[1], noise_std, R[0], R[1], Q[0], Q[1], steps=steps)


@fill_doc
@one_blas_thread_when_small("F", "X", "eigenvectors")
def exact_gd_order_parameters(F: Union[Modulation, ArrayLike], X: Optional[ArrayLike], steps: ArrayLike,
                              settings: GDSettings = GDSettings(), *, noise_std: float = 0.0,
                              eigenvalues: Optional[ArrayLike] = None, eigenvectors: Optional[ArrayLike] = None,
                              method: str = "hadamard") -> OrderParameterCurve:
    r"""Teacher- and noise-averaged :math:`R`, :math:`Q` and :math:`L_G` of exact finite-:math:`d` GD at a fixed design
    (Eqs 4.2.9–4.2.10, .2.18–.2.20, with the trace of :math:`R` and the :math:`F^{-1}` of :math:`A` corrected), in
    :math:`O(d^2)` per step.

    Parameters
    ----------
    F : Modulation or array_like
        One modulation (then the fast/slow parts :math:`R_i`, :math:`Q_i` are returned too) or an invertible (d, d)
        matrix.
    X : array_like or None
        The design, shape (n, d); or None, with the spectrum of :math:`X^\top X` given instead (``eigenvalues``,
        ``eigenvectors``).
    %(steps)s
    settings : GDSettings
        The GD run (:class:`~dynamics.double_descent.GDSettings`): ``learning_rate`` :math:`\eta > 0` (None, the
        default: :math:`1/(\lambda_\mathrm{max} + \lambda)`), ``weight_decay`` :math:`\lambda \ge 0`, ``dynamics``
        "gd" (discrete GD, :math:`D = 1 - (1 - \eta r)^k`) or "flow" (gradient flow, :math:`D = 1 - \exp(-\eta r k)`),
        ``output_penalty`` :math:`a \ge 0` of :math:`\frac{a}{2}\lVert X\hat w \rVert^2` (Lemma 4.3.1) and
        ``preconditioner`` :math:`M` (d, d), the update :math:`\hat w \leftarrow \hat w - \eta M M^\top \nabla L`
        (per-group learning rates: ``F.preconditioner_factor``).
    noise_std : float
        Label-noise standard deviation :math:`\sigma_\varepsilon \ge 0`.
    eigenvalues : array_like, optional
        :math:`s_j \ge 0` of :math:`X^\top X`, shape (d,) (with ``eigenvectors``, in place of X).
    eigenvectors : array_like, optional
        Orthonormal :math:`W`, shape (d, d), with :math:`X^\top X = W \operatorname{diag}(s) W^\top`.
    method : {"hadamard", "matrix"}
        The :math:`O(d^2)`-per-step :math:`G \circ H` form (numba, parallel over steps) or the direct
        :math:`A`/:math:`B` traces (:math:`O(d^3)` per step).

    Returns
    -------
    OrderParameterCurve
        steps and R, Q, generalization_error, noisy_generalization_error (and R1, R2, Q1, Q2 for a
        :class:`~dynamics.double_descent.Modulation`), each of shape (T,).

    Examples
    --------
    >>> from dynamics.double_descent import GDSettings, TeacherStudentProblem, draw_teacher_student
    >>> data = draw_teacher_student(TeacherStudentProblem(45, 30, 20, 10.0), n_seeds=1, seed=3)
    >>> F, X = data.modulation.draw(0), data.X[0]
    >>> r = exact_gd_order_parameters(F, X, [0.0, 10.0, np.inf], noise_std=0.2)
    >>> [round(float(x), 6) for x in r.R], round(float(r.R1[2] + r.R2[2]), 12)
    ([0.0, 0.597912, 1.0], 1.0)

    Gradient flow with weight decay :math:`\lambda = 0.05`: the fixed point is the ridge solution, :math:`R < 1`.

    >>> ridge = exact_gd_order_parameters(F, X, [np.inf], GDSettings(weight_decay=0.05, dynamics="flow"))
    >>> bool(ridge.R[0] < 1.0)
    True
    """
    learning_rate, weight_decay, dynamics, output_penalty, preconditioner = require_gd_settings(settings)
    steps, weight_decay, output_penalty = require_gd_options(steps, weight_decay, dynamics, output_penalty)
    noise_std = require_noise_std(noise_std)
    require_choice("method", method, ("hadamard", "matrix"))
    F, s, W, null, M = _spectral_inputs(F, X, eigenvalues, eigenvectors, preconditioner)
    eta = _learning_rate(learning_rate, s.max(), weight_decay, output_penalty, dynamics, steps)
    f = filter_kernel(steps, s[None], np.array([eta]), weight_decay, output_penalty, dynamics == "flow",
                      null[None])[0]
    setup = _TraceSetup(W, F, M)
    R, Q = (setup.evaluate if method == "hadamard" else setup.evaluate_matrix)(f, s, noise_std)
    return _assemble(steps, R, Q, noise_std)



@fill_doc
def design_order_parameters(data: TeacherStudentData, steps: ArrayLike,
                            learning_rate: Optional[Union[float, ArrayLike]] = None, weight_decay: float = 0.0,
                            noise_std: Optional[float] = None) -> OrderParameterCurve:
    r"""The teacher- and noise-averaged :math:`R`, :math:`Q` and :math:`L_G` of exact GD (Eqs 4.2.9–4.2.10, the trace
    formulas of :func:`~dynamics.double_descent.exact_gd_order_parameters`) at each of the :math:`S` drawn designs of
    ``data``: the theory
    of the GD runs on those designs, averaged over the teachers that one draw samples once.

    Parameters
    ----------
    data : TeacherStudentData
        From :func:`~dynamics.double_descent.draw_teacher_student`.
    %(steps)s
    learning_rate : float or array_like, optional
        :math:`\eta > 0`, one for all designs or one per design (shape (S,)); None:
        :math:`1/(\lambda_\mathrm{max} + \lambda)` per design.
    %(weight_decay)s
    noise_std : float, optional
        Label-noise standard deviation :math:`\sigma_\varepsilon \ge 0`; None: the data's own.

    Returns
    -------
    OrderParameterCurve
        steps (T,) and R, Q, generalization_error, noisy_generalization_error, R1, R2, Q1, Q2, each of shape (S, T).

    Examples
    --------
    >>> from dynamics.double_descent import TeacherStudentProblem, draw_teacher_student
    >>> data = draw_teacher_student(TeacherStudentProblem(45, 30, 20, 10.0), n_seeds=2, seed=3)
    >>> curves = design_order_parameters(data, [0.0, 10.0, np.inf])
    >>> curves.R.shape, bool(np.allclose(curves.R[:, -1], 1.0))
    ((2, 3), True)
    """
    data = require_data(data)
    n_designs = data.X.shape[0]
    if learning_rate is None:
        rates = [None] * n_designs
    else:
        rates = np.atleast_1d(np.asarray(learning_rate))
        if rates.ndim != 1 or rates.size not in (1, n_designs):
            raise ValueError(f"learning_rate must be a scalar or have shape ({n_designs},) (one per design), got "
                             f"shape {rates.shape}")
        rates = list(np.broadcast_to(rates, (n_designs,)))
    noise_std = data.noise_std if noise_std is None else noise_std
    curves = [exact_gd_order_parameters(data.modulation.draw(i), data.X[i], steps,
                                        GDSettings(learning_rate=rates[i], weight_decay=weight_decay),
                                        noise_std=noise_std) for i in range(n_designs)]
    return OrderParameterCurve(curves[0].steps, *(np.stack([getattr(c, name) for c in curves])
                                                  for name in OrderParameterCurve._fields[1:]))

@fill_doc
def scheduled_filter(eigenvalues: ArrayLike, steps: ArrayLike, learning_rate: Optional[float],
                     output_penalty_schedule: ArrayLike, weight_decay: float = 0.0) -> np.ndarray:
    r"""The filter :math:`f_j` after each of the whole ``steps`` of GD whose step :math:`k` uses the output penalty
    :math:`a_k` = ``output_penalty_schedule[k − 1]`` (Fig 4.6):
    :math:`f \leftarrow (1 - \eta((1 + a_k) s_j + \lambda)) f + \eta`, :math:`f(0) = 0`.

    Parameters
    ----------
    eigenvalues : array_like
        :math:`s_j \ge 0` of :math:`X^\top X`, shape (d,).
    steps : array_like of int
        Sorted steps >= 0.
    learning_rate : float or None
        :math:`\eta > 0` (None: :math:`1/(\lambda_\mathrm{max} + \lambda)`);
        :math:`\eta((1 + \max a)\lambda_\mathrm{max} + \lambda) < 2`.
    output_penalty_schedule : array_like
        :math:`a_k \ge 0`, at least steps[-1] values.
    %(weight_decay)s

    Returns
    -------
    ndarray
        Shape (len(steps), d).

    Examples
    --------
    >>> scheduled_filter([1.0], [1, 2, 3], 0.5, [0.0, 1.0, 0.0]).ravel().tolist()   # step 2: η(1 + a)s = 1
    [0.5, 0.5, 0.75]
    """
    steps, schedule = require_penalty_schedule(steps, output_penalty_schedule)
    s = require_eigenvalues(eigenvalues)
    weight_decay = require_positive("weight_decay", weight_decay, allow_zero=True)
    eta = _learning_rate(learning_rate, s.max(), weight_decay, float(schedule[:max(steps[-1], 1)].max()), "gd",
                         steps.astype(float))
    null = s <= s.size * np.finfo(float).eps * s.max()
    return np.where(null, 0.0, scheduled_filter_kernel(s, eta, weight_decay, schedule, steps))



@fill_doc
@one_blas_thread_when_small("X")
def scheduled_gd_weights(X: ArrayLike, y: ArrayLike, steps: ArrayLike, output_penalty_schedule: ArrayLike,
                         learning_rate: Optional[float] = None, weight_decay: float = 0.0) -> np.ndarray:
    r"""Closed-form weights of discrete GD whose step :math:`k` uses the output penalty :math:`a_k` =
    ``output_penalty_schedule[k − 1]`` (Fig 4.6, Lemma 4.3.1: gradient
    :math:`(1 + a_k) X^\top X \hat w - X^\top y + \lambda \hat w`) from :math:`\hat w_0 = 0`:
    :math:`\hat w_k = W \operatorname{diag}(f(k)) W^\top X^\top y` with the filter of
    :func:`~dynamics.double_descent.scheduled_filter`, vectorised over leading (draw) axes.

    Parameters
    ----------
    %(X)s
    y : array_like
        Labels, shape (..., n), the leading axes broadcasting against X's.
    steps : array_like of int
        Sorted whole steps >= 0, shape (T,).
    output_penalty_schedule : array_like
        :math:`a_k \ge 0`, at least steps[-1] values (e.g. :func:`~dynamics.double_descent.q_penalty_schedule`).
    learning_rate : float, optional
        :math:`\eta > 0` with :math:`\eta((1 + \max a)\lambda_\mathrm{max} + \lambda) < 2`; None:
        :math:`1/(\lambda_\mathrm{max} + \lambda)` per design.
    %(weight_decay)s

    Returns
    -------
    ndarray
        Weights of shape (..., T, d).

    Examples
    --------
    >>> X, y = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([1.0, 2.0])
    >>> bool(np.allclose(scheduled_gd_weights(X, y, [0, 3, 40], np.full(40, 0.5), learning_rate=0.1),
    ...                  gd_weights(X, y, [0, 3, 40], learning_rate=0.1, output_penalty=0.5), atol=1e-14))
    True
    """
    steps, schedule = require_penalty_schedule(steps, output_penalty_schedule)
    weight_decay = require_positive("weight_decay", weight_decay, allow_zero=True)
    X, y = require_design(X, y)
    s, W, null = _eig(np.swapaxes(X, -1, -2) @ X)
    batch = s.shape[:-1]
    s2, null2 = s.reshape(-1, s.shape[-1]), null.reshape(-1, s.shape[-1])
    s_max = s2.max(axis=-1)
    top = float(schedule[:max(steps[-1], 1)].max())
    if learning_rate is None:
        etas = _inverse_max_eigenvalue(s_max, weight_decay)
        _learning_rate(None, float(s_max.max()), weight_decay, top, "gd", steps.astype(float))
    else:
        etas = np.full(s_max.shape, _learning_rate(learning_rate, float(s_max.max()), weight_decay, top, "gd",
                                                   steps.astype(float)))
    f = np.stack([np.where(null2[b], 0.0, scheduled_filter_kernel(s2[b], etas[b], weight_decay, schedule, steps))
                  for b in range(s2.shape[0])])
    f = f.reshape(batch + f.shape[1:])
    return _filtered_solution(W, X, y, f)

@fill_doc
@one_blas_thread_when_small("F", "X")
def scheduled_gd_order_parameters(F: Union[Modulation, ArrayLike], X: ArrayLike, steps: ArrayLike,
                                  output_penalty_schedule: ArrayLike, learning_rate: Optional[float] = None,
                                  weight_decay: float = 0.0, noise_std: float = 0.0) -> OrderParameterCurve:
    r"""Teacher-averaged :math:`R`, :math:`Q`, :math:`L_G` (Eqs 4.2.9–4.2.10) of discrete GD whose step :math:`k` uses
    the output penalty :math:`a_k` = ``output_penalty_schedule[k − 1]`` (Fig 4.6: gradient
    :math:`(1 + a_k) X^\top X \hat w - X^\top y + \lambda \hat w`).

    Parameters
    ----------
    F : Modulation or array_like
        One modulation or an invertible (d, d) matrix, as in :func:`~dynamics.double_descent.exact_gd_order_parameters`.
    X : array_like
        The design, shape (n, d).
    steps : array_like of int
        Sorted whole steps >= 0, shape (T,).
    output_penalty_schedule : array_like
        :math:`a_k \ge 0`, at least steps[-1] values (e.g. :func:`~dynamics.double_descent.q_penalty_schedule`).
    learning_rate : float, optional
        :math:`\eta > 0` with :math:`\eta((1 + \max a)\lambda_\mathrm{max} + \lambda) < 2`; None:
        :math:`1/(\lambda_\mathrm{max} + \lambda)`.
    %(weight_decay)s
    noise_std : float
        Label-noise standard deviation :math:`\sigma_\varepsilon \ge 0`.

    Returns
    -------
    OrderParameterCurve
        Each field of shape (T,).

    Examples
    --------
    >>> from dynamics.double_descent import TeacherStudentProblem, draw_teacher_student
    >>> data = draw_teacher_student(TeacherStudentProblem(45, 30, 20, 10.0), n_seeds=1, seed=3)
    >>> F, X = data.modulation.draw(0), data.X[0]
    >>> a = scheduled_gd_order_parameters(F, X, [0, 5, 50], np.zeros(50))
    >>> b = exact_gd_order_parameters(F, X, [0, 5, 50])
    >>> bool(np.allclose(a.Q, b.Q, atol=1e-12))
    True
    """
    steps, schedule = require_penalty_schedule(steps, output_penalty_schedule)
    noise_std = require_noise_std(noise_std)
    weight_decay = require_positive("weight_decay", weight_decay, allow_zero=True)
    F, s, W, null, _ = _spectral_inputs(F, X, None, None, None)
    eta = _learning_rate(learning_rate, s.max(), weight_decay, float(schedule[:max(steps[-1], 1)].max()), "gd",
                         steps.astype(float))
    f = np.where(null, 0.0, scheduled_filter_kernel(s, eta, weight_decay, schedule, steps))
    R, Q = _TraceSetup(W, F, None).evaluate(f, s, noise_std)
    return _assemble(steps, R, Q, noise_std)


@fill_doc
def gradient_flow_weights_ode(X: ArrayLike, y: ArrayLike, steps: ArrayLike, learning_rate: float,
                              weight_decay: float = 0.0, rtol: float = 1e-12) -> np.ndarray:
    r"""Gradient-flow weights :math:`\hat w(k)` from integrating :math:`d\hat w/dk = -\eta \nabla L` (the per-mode ODE
    of App. .2.16, in the original basis) with the numba DOP853 solver, without an eigendecomposition: an independent
    route to the closed form.

    Parameters
    ----------
    X : array_like
        Design, shape (n, d).
    y : array_like
        Labels, shape (n,).
    steps : array_like
        1-D, finite, > 0 and strictly increasing (real GD steps; the flow time is :math:`\eta k`).
    %(learning_rate)s
    %(weight_decay)s
    rtol : float
        Relative tolerance in [1e-14, 1e-3].

    Returns
    -------
    ndarray
        Shape (len(steps), d).

    Examples
    --------
    >>> X, y = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([1.0, 2.0])
    >>> bool(np.allclose(gradient_flow_weights_ode(X, y, [1.0, 5.0], 0.2),
    ...                  gd_weights(X, y, [1.0, 5.0], learning_rate=0.2, dynamics="flow"), atol=1e-10))
    True
    """
    steps = require_output_times("steps", steps, positive=True, strictly_increasing=True)
    X = as_finite_array("X", X, ndim=2)
    y = as_finite_array("y", y, ndim=1)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},) to match X {X.shape}, got {y.shape}")
    eta = require_positive("learning_rate", learning_rate)
    weight_decay = require_positive("weight_decay", weight_decay, allow_zero=True)
    rtol = require_in_range("rtol", rtol, 1e-14, 1e-3)
    params = np.concatenate([[eta, weight_decay], X.T @ y, (X.T @ X).ravel()])
    sol = solve_ode(gradient_flow_rhs, (0.0, float(steps[-1])), np.zeros(X.shape[1]), t_eval=steps, params=params,
                    options=OdeOptions(method="dop853", rtol=rtol, atol=rtol * 1e-2)).check()
    return sol.y
