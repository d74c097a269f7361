"""Exact finite-d GD for the teacher–student model with a general modulation matrix F (Eqs 4.2.8–4.2.10,
4.2.17–4.2.19; App. .2.12–.2.20).

With XᵀX = W Λ Wᵀ (eigenvalues s_j, Eq 4.2.8) and b = WᵀXᵀy, GD from ŵ₀ = 0 on ½‖y − Xŵ‖² + (λ/2)‖ŵ‖²
(plus the output penalty (a/2)‖Xŵ‖² of Lemma 4.3.1) is diagonal: ŵ_t = W diag(f(t)) b with the spectral filter

    f_j(t) = D_j(t)/(r_j),   r_j = (1 + a)s_j + λ,
    D_j = 1 − |1 − η r_j|^t  (discrete GD, .2.16–.2.17)   or   1 − exp(−η r_j t)  (gradient flow),

evaluated as −expm1(t·log|1 − ηr|) so that early times keep full precision. Modes with s_j = 0 (n < d) never move
and are set to zero. A step-dependent penalty a_t (Fig 4.6's schedule) is the recursion f ← (1 − η r_j(a_t)) f + η.

Teacher- and noise-averaged order parameters (Eqs 4.2.9–4.2.10, .2.18–.2.20, with the corrections E6/E7): with
K_j = f_j s_j and N_j = f_j √s_j,

    R(t) = Tr K/d,   Q(t) = Tr[AᵀA]/d + σ_ε² Tr[BᵀB]/d,   A = F̃ K F̃⁻¹,  B = F̃ N,  F̃ = F W,

computed in O(d²) per time as Q = Kᵀ(G∘H)K/d + σ_ε² Σ_j N_j² G_jj/d with G = F̃ᵀF̃ and H = F̃⁻¹F̃⁻ᵀ. Given the
left singular basis U of F and a fast-group size p, the same sums restricted to the rows of one group of UᵀF̃
give R_i and Q_i.
"""
import numba as nb
import numpy as np

from dynamics.numerics import as_finite_array, require_choice, require_in_range, require_positive, solve_ode
from ._common import check_dynamics, check_noise_ridge, check_times, order_parameters
from ._simulation import Modulation


def _eig(gram):
    s, W = np.linalg.eigh(gram)
    s = np.clip(s, 0.0, None)
    null = s <= gram.shape[-1] * np.finfo(float).eps * s.max(axis=-1, keepdims=True)
    return s, W, null


def _filter(t, s, eta, ridge, dynamics, penalty, null):
    """f(t) of shape broadcast(t[..., None], s): the spectral filter of the module docstring."""
    rate = (1.0 + penalty) * s + ridge
    x = eta * rate
    tt = t[..., None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if dynamics == "gd":
            log_factor = np.where(x < 1.0, np.log1p(-np.minimum(x, 1.0)), np.log(np.abs(x - 1.0)))
            decay = np.where(tt > 0, tt * log_factor, 0.0)
            # a mode with ηr > 1 overshoots: (1 − ηr)^t alternates in sign, defined for integer t only
            over = np.broadcast_to(x > 1.0, np.broadcast_shapes(np.shape(x), tt.shape))
            if np.any(over):
                finite = np.isfinite(tt) & (tt > 0)
                if np.any(finite & (tt != np.round(tt)) & np.any(x > 1.0)):
                    raise ValueError("t must be whole GD steps when eta*((1+penalty)*s + ridge) > 1 for some mode "
                                     "(the factor (1 - eta*r)^t is negative), or use eta <= 1/((1+penalty)*s_max + ridge)")
                odd = finite & (np.mod(np.where(finite, tt, 0.0), 2.0) == 1.0)
                D = np.where(over & odd, 1.0 + np.exp(decay), -np.expm1(decay))
            else:
                D = -np.expm1(decay)
        else:
            D = -np.expm1(np.where(tt > 0, -tt * x, 0.0))
        f = np.where(rate > 0, D / np.where(rate > 0, rate, 1.0), 0.0)
    return np.where(null, 0.0, f)


def _check_eta(eta, s_max, ridge, penalty, dynamics):
    if eta is None:
        return 1.0 / (s_max + ridge)
    eta = require_positive("eta", eta)
    if dynamics == "gd" and eta * ((1.0 + penalty) * s_max + ridge) >= 2.0:
        raise ValueError(f"eta must be < 2/((1+penalty)*lambda_max + ridge) = "
                         f"{2.0 / ((1.0 + penalty) * s_max + ridge):.4g} for discrete GD to converge, got {eta:g}")
    return eta


def _check_eigenvalues(eigenvalues):
    s = as_finite_array("eigenvalues", eigenvalues, ndim=1)
    if s.size == 0:
        raise ValueError("eigenvalues must hold at least one eigenvalue of XᵀX, got an empty array")
    if np.any(s < 0):
        raise ValueError(f"eigenvalues must be >= 0, got {s[s < 0][0]:g}")
    return s


def spectral_filter(t, eigenvalues, eta, ridge=0.0, dynamics="gd", penalty=0.0):
    """The filter f_j(t) (shape (len(t), d)) with ŵ_t = W diag(f) WᵀXᵀy, for eigenvalues s_j >= 0 of XᵀX."""
    t = check_times("t", np.atleast_1d(t))
    s = _check_eigenvalues(eigenvalues)
    _, ridge = check_noise_ridge(0.0, ridge)
    check_dynamics(dynamics)
    penalty = require_positive("penalty", penalty, allow_zero=True)
    eta = _check_eta(eta, s.max(), ridge, penalty, dynamics)
    null = s <= s.size * np.finfo(float).eps * s.max()
    return _filter(t, s, eta, ridge, dynamics, penalty, null)


def _check_design(X, y=None):
    X = as_finite_array("X", X)
    if X.ndim < 2:
        raise ValueError(f"X must have shape (..., n, d), got {X.shape}")
    if y is not None:
        y = as_finite_array("y", y)
        try:
            np.broadcast_shapes(y.shape, X.shape[:-1])
        except ValueError:
            y = None
        if y is None or y.shape[-1] != X.shape[-2]:
            raise ValueError(f"y must have shape (..., {X.shape[-2]}) broadcasting against X's {X.shape[:-1]}, "
                             f"got {np.shape(y) if y is not None else 'an incompatible shape'}")
    return X, y


def _check_preconditioner(M, d):
    if M is None:
        return None
    M = as_finite_array("preconditioner", M, ndim=2)
    if M.shape != (d, d) or np.linalg.cond(M) > 1e12:
        raise ValueError(f"preconditioner must be an invertible ({d}, {d}) matrix, got shape {M.shape}")
    return M


def gd_weights(t, X, y, eta=None, ridge=0.0, dynamics="gd", penalty=0.0, preconditioner=None):
    """Closed-form GD (or gradient-flow) weights ŵ_t (Eq .2.17), shape (..., len(t), d), for designs X (..., n, d)
    and labels y (..., n): vectorised over any leading (seed) axes. ``eta`` defaults to 1/(λ_max + λ) per design.
    ``penalty`` a adds (a/2)‖Xŵ‖² to the loss (Lemma 4.3.1); ``preconditioner`` M runs ŵ ← ŵ − ηMMᵀ∇L
    (as GD on u = M⁻¹ŵ with design XM)."""
    t = check_times("t", np.atleast_1d(t))
    if t.ndim != 1:
        raise ValueError(f"t must be a scalar or 1-D, got shape {t.shape}")
    X, y = _check_design(X, y)
    _, ridge = check_noise_ridge(0.0, ridge)
    check_dynamics(dynamics)
    penalty = require_positive("penalty", penalty, allow_zero=True)
    M = _check_preconditioner(preconditioner, X.shape[-1])
    design = X if M is None else X @ M
    s, W, null = _eig(np.swapaxes(design, -1, -2) @ design)
    s_max = s.max(axis=-1)
    if eta is None:
        eta_arr = 1.0 / (s_max + ridge)
    else:
        eta_arr = np.full(s_max.shape, _check_eta(eta, float(np.max(s_max)), ridge, penalty, dynamics))
    f = _filter(t, s[..., None, :], eta_arr[..., None, None], ridge, dynamics, penalty, null[..., None, :])
    b = np.einsum("...ji,...j->...i", W, np.einsum("...nd,...n->...d", design, y))
    u = np.einsum("...ij,...tj->...ti", W, f * b[..., None, :])
    return u if M is None else u @ M.T


def ridge_weights(ridge, X, y):
    """Ridge solutions (XᵀX + λI)⁻¹Xᵀy (Eq .2.14), shape (..., len(ridge), d); λ = 0 is the minimum-norm solution."""
    lam = np.atleast_1d(as_finite_array("ridge", ridge))
    if lam.ndim != 1 or np.any(lam < 0):
        raise ValueError(f"ridge must be a scalar or 1-D array of values >= 0, got {ridge!r}")
    X, y = _check_design(X, y)
    s, W, null = _eig(np.swapaxes(X, -1, -2) @ X)
    rate = s[..., None, :] + lam[:, None]
    with np.errstate(divide="ignore"):
        f = np.where(null[..., None, :], 0.0, 1.0 / np.where(rate > 0, rate, 1.0))
    b = np.einsum("...ji,...j->...i", W, np.einsum("...nd,...n->...d", X, y))
    return np.einsum("...ij,...tj->...ti", W, f * b[..., None, :])


class _TraceSetup:
    """G_g, H and C_g of the module docstring for the groups g (all modes, or fast/slow rows of UᵀF̃)."""

    def __init__(self, W, F, F_inv, U, p):
        A = U.T @ F @ W
        B = W.T @ F_inv @ U
        d = W.shape[0]
        groups = [np.arange(d)] if p is None else [np.arange(p), np.arange(p, d)]
        self.A, self.B, self.groups = A, B, groups
        self.C = [(A[g] * B[:, g].T).sum(0) for g in groups]
        self.G = [A[g].T @ A[g] for g in groups]
        H = B @ B.T
        self.M = [G * H for G in self.G]

    def evaluate(self, K, N, noise):
        d = K.shape[-1]
        R = [K @ C / d for C in self.C]
        Q = [((K @ M) * K).sum(-1) / d + noise ** 2 * (N * N) @ np.diag(G) / d for M, G in zip(self.M, self.G)]
        return R, Q

    def evaluate_matrix(self, K, N, noise):
        """The direct O(d³) form: A_t = UᵀF̃ diag(K) F̃⁻¹U and B_t = UᵀF̃ diag(N), row blocks per group."""
        d = K.shape[-1]
        R = [np.empty(K.shape[0]) for _ in self.groups]
        Q = [np.empty(K.shape[0]) for _ in self.groups]
        for m in range(K.shape[0]):
            A_t = (self.A * K[m]) @ self.B
            B_t = self.A * N[m]
            for i, g in enumerate(self.groups):
                R[i][m] = np.trace(A_t[np.ix_(g, g)]) / d
                Q[i][m] = (np.sum(A_t[g] ** 2) + noise ** 2 * np.sum(B_t[g] ** 2)) / d
        return R, Q


def _modulation_parts(F):
    if isinstance(F, Modulation):
        if F.U.ndim != 2:
            raise ValueError("F must be a single modulation (select one seed with F.seed(i))")
        return F.matrix, F.inverse, F.U, F.p
    F = as_finite_array("F", F, ndim=2)
    if F.shape[0] != F.shape[1] or np.linalg.cond(F) > 1e14:
        raise ValueError(f"F must be a square invertible matrix, got shape {F.shape}")
    return F, np.linalg.inv(F), np.eye(F.shape[0]), None


def _spectral_inputs(F, X, eigenvalues, eigenvectors, preconditioner):
    F_mat, F_inv, U, p = _modulation_parts(F)
    d = F_mat.shape[0]
    M = _check_preconditioner(preconditioner, d)
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
        s = as_finite_array("eigenvalues", eigenvalues, ndim=1)
        W = as_finite_array("eigenvectors", eigenvectors, ndim=2)
        if s.shape != (d,) or W.shape != (d, d) or np.any(s < 0):
            raise ValueError(f"eigenvalues must be ({d},) and >= 0, eigenvectors ({d}, {d}); got {s.shape}, {W.shape}")
        if np.abs(W.T @ W - np.eye(d)).max() > 1e-8:
            raise ValueError("eigenvectors must be orthonormal (columns of W with WᵀW = I)")
        null = s <= d * np.finfo(float).eps * s.max()
    if M is not None:
        F_mat, F_inv = F_mat @ M, np.linalg.solve(M, F_inv)
    return s, W, null, F_mat, F_inv, U, p


def _assemble(R, Q, noise, grouped):
    if not grouped:
        return order_parameters(R[0], Q[0], noise)
    return order_parameters(R[0] + R[1], Q[0] + Q[1], noise, R[0], R[1], Q[0], Q[1])


def exact_gd_order_parameters(t, F, X=None, *, eigenvalues=None, eigenvectors=None, eta=None, ridge=0.0, noise=0.0,
                              dynamics="gd", penalty=0.0, preconditioner=None, method="hadamard"):
    """Teacher- and noise-averaged R(t), Q(t), L_G(t) of exact finite-d GD at fixed design (Eqs 4.2.9–4.2.10).

    ``F``: the modulation, a :class:`Modulation` (then per-group R_i, Q_i are returned too) or an invertible
    (d, d) array. Design: ``X`` (n, d), or the spectrum of XᵀX (``eigenvalues``, ``eigenvectors``). ``t``: GD
    steps (real, >= 0, inf allowed); ``eta`` defaults to 1/(λ_max + λ); ``dynamics`` "gd" (|1 − ηr|^t) or "flow"
    (exp(−ηrt)); ``penalty`` a is the constant output penalty of Lemma 4.3.1; ``preconditioner`` M gives the
    update ŵ ← ŵ − η MMᵀ∇L (per-group learning rates: ``F.preconditioner_factor``). ``method`` "hadamard"
    (O(d²) per time, G∘H) or "matrix" (the direct A/B traces, O(d³) per time).
    """
    t = check_times("t", np.atleast_1d(t))
    if t.ndim != 1:
        raise ValueError(f"t must be a scalar or 1-D, got shape {t.shape}")
    noise, ridge = check_noise_ridge(noise, ridge)
    check_dynamics(dynamics)
    require_choice("method", method, ("hadamard", "matrix"))
    penalty = require_positive("penalty", penalty, allow_zero=True)
    s, W, null, F_mat, F_inv, U, p = _spectral_inputs(F, X, eigenvalues, eigenvectors, preconditioner)
    eta = _check_eta(eta, s.max(), ridge, penalty, dynamics)
    f = _filter(t, s, eta, ridge, dynamics, penalty, null)
    K, N = f * s, f * np.sqrt(s)
    setup = _TraceSetup(W, F_mat, F_inv, U, p)
    R, Q = (setup.evaluate if method == "hadamard" else setup.evaluate_matrix)(K, N, noise)
    return _assemble(R, Q, noise, p is not None)


@nb.njit(cache=True)
def _scheduled_filter(s, eta, ridge, schedule, record):
    """f after each recorded step of f ← (1 − η((1 + a_k)s + λ)) f + η, f(0) = 0."""
    out = np.zeros((record.shape[0], s.shape[0]))
    f = np.zeros(s.shape[0])
    r = 0
    while r < record.shape[0] and record[r] == 0:
        r += 1
    for step in range(1, record[-1] + 1):
        a = schedule[step - 1]
        for j in range(s.shape[0]):
            f[j] = (1.0 - eta * ((1.0 + a) * s[j] + ridge)) * f[j] + eta
        while r < record.shape[0] and record[r] == step:
            out[r] = f
            r += 1
    return out


def _check_record(steps, schedule):
    steps = np.atleast_1d(np.asarray(steps))
    if steps.ndim != 1 or steps.size == 0 or not np.issubdtype(steps.dtype, np.number) \
            or np.any(steps != np.round(steps)) or np.any(steps < 0) or np.any(np.diff(steps) < 0):
        raise ValueError(f"steps must be a non-empty sorted 1-D array of integers >= 0, got {steps!r}")
    steps = steps.astype(np.int64)
    schedule = as_finite_array("schedule", schedule, ndim=1)
    if schedule.size < steps[-1] or np.any(schedule < 0):
        raise ValueError(f"schedule must hold one penalty >= 0 per step (at least {steps[-1]}), got {schedule.size}")
    return steps, schedule


def scheduled_filter(steps, eigenvalues, eta, schedule, ridge=0.0):
    """The filter f_j after each of the integer ``steps`` of GD whose step k uses the output penalty
    a_k = ``schedule[k−1]``: f ← (1 − η((1 + a_k)s_j + λ))f + η, f(0) = 0; shape (len(steps), d)."""
    steps, schedule = _check_record(steps, schedule)
    s = _check_eigenvalues(eigenvalues)
    _, ridge = check_noise_ridge(0.0, ridge)
    eta = _check_eta(eta, s.max(), ridge, float(schedule[:max(steps[-1], 1)].max()), "gd")
    null = s <= s.size * np.finfo(float).eps * s.max()
    return np.where(null, 0.0, _scheduled_filter(s, eta, ridge, schedule, steps))


def scheduled_gd_order_parameters(steps, F, X, schedule, eta=None, ridge=0.0, noise=0.0):
    """Teacher-averaged R, Q, L_G of discrete GD whose step k uses the output penalty a_k = ``schedule[k−1]``
    (Fig 4.6: gradient (1 + a_k)XᵀXŵ − Xᵀy + λŵ), at integer ``steps``. Other arguments as in
    :func:`exact_gd_order_parameters`."""
    steps, schedule = _check_record(steps, schedule)
    noise, ridge = check_noise_ridge(noise, ridge)
    s, W, null, F_mat, F_inv, U, p = _spectral_inputs(F, X, None, None, None)
    eta = _check_eta(eta, s.max(), ridge, float(schedule[:max(steps[-1], 1)].max()), "gd")
    f = np.where(null, 0.0, _scheduled_filter(s, eta, ridge, schedule, steps))
    R, Q = _TraceSetup(W, F_mat, F_inv, U, p).evaluate(f * s, f * np.sqrt(s), noise)
    return _assemble(R, Q, noise, p is not None)


@nb.njit(cache=True)
def gradient_flow_rhs(t, w, params):
    """dŵ/dt = −η[(XᵀX + λ)ŵ − Xᵀy] in the original basis; params = [η, λ, Xᵀy (d), XᵀX.ravel() (d²)]."""
    d = w.shape[0]
    eta, lam = params[0], params[1]
    rhs_b = params[2:2 + d]
    gram = params[2 + d:].reshape((d, d))
    return -eta * (gram @ w + lam * w - rhs_b)


def gradient_flow_weights_ode(t, X, y, eta, ridge=0.0, rtol=1e-12):
    """Gradient-flow weights ŵ(t) from integrating dŵ/dt = −η∇L with the numba DOP853 solver (no
    eigendecomposition): an independent route to the closed form. t: sorted 1-D, > 0 and finite."""
    t = check_times("t", t, allow_zero=False)
    if t.ndim != 1 or not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0):
        raise ValueError("t must be a 1-D array of finite, strictly increasing times > 0")
    X = as_finite_array("X", X, ndim=2)
    y = as_finite_array("y", y, ndim=1)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}")
    eta = require_positive("eta", eta)
    _, ridge = check_noise_ridge(0.0, ridge)
    rtol = require_in_range("rtol", rtol, 1e-14, 1e-3)
    params = np.concatenate([[eta, ridge], X.T @ y, (X.T @ X).ravel()])
    sol = solve_ode(gradient_flow_rhs, (0.0, float(t[-1])), np.zeros(X.shape[1]), t_eval=t, params=params,
                    method="dop853", rtol=rtol, atol=rtol * 1e-2).check()
    return sol.y
