"""Simulators of the two-weight-layer linear network N1 → N2 → N3 (thesis Sec. 2.2.1–2.2.2).

Equations of 001_61c8f54ededf01e4.txt (spec/linear_networks.md A.1–A.3):

* (2.2.2) loss L = 1/2 ||y − W32 W21 X||_F² summed over the P examples;
* (2.2.3–4) simultaneous gradient-descent steps with learning rate η;
* (2.2.5–6) the gradient flow τ W21' = W32ᵀ(Σ31 − W32 W21 Σ11), τ W32' = (Σ31 − W32 W21 Σ11) W21ᵀ,
  with the sums Σ31 = y Xᵀ and Σ11 = X Xᵀ;
* (2.2.7–10) whitening X Xᵀ = I (sum-normalised: orthonormal rows of X), Σ31 = U S Vᵀ, and the mode
  basis W̄21 = W21 V, W̄32 = Uᵀ W32 in which the network map is diag(U ᵀW32 W21 V) on the diagonal;
* (2.2.14) the decoupled initialisation a^α = a_α r^α, b^α = b_α r^α with orthonormal r^α.

Time convention (spec A.2): one GD step of size η on ``loss_scale`` × (2.2.2) advances the flow by
Δt = loss_scale·η·τ; the project uses τ = 1 and t = k·η for the loss as written (loss_scale = 1).
torch's ``MSELoss(reduction="mean")`` over n entries is loss_scale = 2/n.
"""
import numba as nb
import numpy as np

from dynamics.numerics import (as_finite_array, require_array_in_range, require_integer,
                               require_positive, rng_from, solve_ode)
from . import _checks


def gd_flow_time(n_steps, learning_rate, loss_scale=1.0, tau=1.0):
    """Flow time t = k·c·η·τ reached by k GD steps of size η on c × (1/2)||·||² (spec A.2, B.2)."""
    steps = require_array_in_range("n_steps", n_steps, 0.0)
    eta = require_positive("learning_rate", learning_rate)
    scale = require_positive("loss_scale", loss_scale)
    tau = _checks.tau_of(tau)
    return _checks.scalar_result(steps * scale * eta * tau, n_steps)


def random_orthogonal(n, seed):
    """A Haar-distributed n×n orthogonal matrix."""
    n = require_integer("n", n, 1, 100_000)
    q, r = np.linalg.qr(rng_from(seed).standard_normal((n, n)))
    return q * np.sign(np.diag(r))


def whiten(X):
    """(X Xᵀ)^{-1/2} X: inputs with X Xᵀ = I, the sum-normalised whitening (2.2.7) of this project.
    (Saxe's mean convention (1/P) X Xᵀ = I is X/√P here, or τ rescaled by P.)"""
    X = as_finite_array("X", X, ndim=2)
    lam, vec = np.linalg.eigh(X @ X.T)
    if lam[0] <= 1e-12 * max(lam[-1], 1e-300):
        raise ValueError(f"X must have full row rank to be whitened (needs P >= N1), got shape {X.shape}")
    return (vec / np.sqrt(lam)) @ vec.T @ X


def whitened_inputs(n_inputs, n_examples, seed):
    """X (n_inputs × n_examples) with orthonormal rows: the first rows of a Haar orthogonal matrix."""
    n_inputs = require_integer("n_inputs", n_inputs, 1, 100_000)
    n_examples = require_integer("n_examples", n_examples, n_inputs, 100_000)
    return random_orthogonal(n_examples, seed)[:n_inputs]


def mode_task(singular_values, n_inputs, n_outputs, seed):
    """(U, S, V) with random orthogonal U (n_outputs²), V (n_inputs²) and the rectangular-diagonal S
    (n_outputs × n_inputs) holding ``singular_values``: the input–output correlation Σ31 = U S Vᵀ."""
    s = require_array_in_range("singular_values", singular_values, 0.0, ndim=1)
    n_inputs = require_integer("n_inputs", n_inputs, 1, 100_000)
    n_outputs = require_integer("n_outputs", n_outputs, 1, 100_000)
    if s.size > min(n_inputs, n_outputs):
        raise ValueError(f"singular_values must hold at most min(n_inputs, n_outputs) = "
                         f"{min(n_inputs, n_outputs)} values, got {s.size}")
    rng = rng_from(seed)
    U, V = random_orthogonal(n_outputs, rng), random_orthogonal(n_inputs, rng)
    S = np.zeros((n_outputs, n_inputs))
    S[np.arange(s.size), np.arange(s.size)] = s
    return U, S, V


def decoupled_init(U, V, n_hidden, a0, b0=None, seed=0):
    """(W21, W32) on the decoupled manifold (2.2.14): W21 = R diag(a0) Vᵀ, W32 = U diag(b0) Rᵀ for
    the first m modes, with R the first m columns of a random n_hidden × n_hidden orthogonal matrix.
    ``a0``, ``b0`` are scalars or one value per mode (m = their length, else min(N1, N3));
    b0 = a0 gives the balanced init with mode strengths u0 = a0·b0."""
    U = as_finite_array("U", U, ndim=2)
    V = as_finite_array("V", V, ndim=2)
    n_modes = min(U.shape[1], V.shape[1])
    a0 = require_array_in_range("a0", a0)
    b0 = a0 if b0 is None else require_array_in_range("b0", b0)
    if a0.ndim == 1 or b0.ndim == 1:
        n_modes = max(np.size(a0), np.size(b0))
    a0 = np.broadcast_to(a0, (n_modes,))
    b0 = np.broadcast_to(b0, (n_modes,))
    n_hidden = require_integer("n_hidden", n_hidden, n_modes, 100_000)
    R = random_orthogonal(n_hidden, seed)[:, :n_modes]
    return (R * a0) @ V[:, :n_modes].T, (U[:, :n_modes] * b0) @ R.T


def random_init(n_inputs, n_hidden, n_outputs, sigma, seed):
    """(W21, W32) with i.i.d. N(0, σ²) entries (the small random init of A12)."""
    rng = rng_from(seed)
    sigma = require_positive("sigma", sigma, allow_zero=True)
    shape21 = (require_integer("n_hidden", n_hidden, 1), require_integer("n_inputs", n_inputs, 1))
    W21 = sigma * rng.standard_normal(shape21)
    W32 = sigma * rng.standard_normal((require_integer("n_outputs", n_outputs, 1), shape21[0]))
    return W21, W32


def _weights(W21, W32):
    """Finite W21 (..., N2, N1) and W32 (..., N3, N2), one network or equally long stacks of them."""
    W21, W32 = as_finite_array("W21", W21), as_finite_array("W32", W32)
    if W21.ndim < 2 or W32.ndim < 2 or W21.ndim != W32.ndim or W32.shape[-1] != W21.shape[-2] \
            or W21.shape[:-2] != W32.shape[:-2]:
        raise ValueError(f"W21 must have shape (..., N2, N1) and W32 shape (..., N3, N2) with the same leading "
                         f"axes, got {W21.shape} and {W32.shape}")
    return W21, W32


def _mode_bases(U, V, W21, W32):
    """Finite square U (N3 × N3) and V (N1 × N1) that match the network."""
    U, V = as_finite_array("U", U, ndim=2), as_finite_array("V", V, ndim=2)
    if U.shape != (W32.shape[-2],) * 2 or V.shape != (W21.shape[-1],) * 2:
        raise ValueError(f"U must be N3 × N3 = {W32.shape[-2]} × {W32.shape[-2]} and V N1 × N1 = "
                         f"{W21.shape[-1]} × {W21.shape[-1]}, got {U.shape} and {V.shape}")
    return U, V


def mode_strengths(W21, W32, U, V):
    """diag(Uᵀ W32 W21 V) for one network or a stack (leading time axis) of networks."""
    return np.diagonal(mode_map(W21, W32, U, V), axis1=-2, axis2=-1).copy()


def mode_map(W21, W32, U, V):
    """Uᵀ W32 W21 V, the network map in the mode basis (stackable)."""
    W21, W32 = _weights(W21, W32)
    U, V = _mode_bases(U, V, W21, W32)
    return U.T @ (W32 @ W21) @ V


def effective_initial_strength(W21, W32, U, V):
    """u_eff,α = |a^α + b^α|²/4 from a^α = column α of W21 V and b^α = row α of Uᵀ W32 (A12): the
    balanced part of a random init, which is what grows along the sigmoid."""
    W21, W32 = _weights(W21, W32)
    if W21.ndim != 2:
        raise ValueError(f"W21 and W32 must be one network (2-dimensional), got shapes {W21.shape}, {W32.shape}")
    U, V = _mode_bases(U, V, W21, W32)
    a = (W21 @ V).T
    b = U.T @ W32
    m = min(a.shape[0], b.shape[0])
    return np.sum((a[:m] + b[:m]) ** 2, axis=1) / 4.0


def conserved_gram(W21, W32):
    """W21 W21ᵀ − W32ᵀ W32, constant along the flow (2.2.5–6) for any Σ11 (stackable)."""
    W21, W32 = _weights(W21, W32)
    return W21 @ np.swapaxes(W21, -1, -2) - np.swapaxes(W32, -1, -2) @ W32


def network_loss(W21, W32, X, Y):
    """(2.2.2) 1/2 ||Y − W32 W21 X||_F² (stackable over a leading axis of networks)."""
    W21, W32 = _weights(W21, W32)
    X, Y = as_finite_array("X", X, ndim=2), as_finite_array("Y", Y, ndim=2)
    if X.shape[0] != W21.shape[-1] or Y.shape != (W32.shape[-2], X.shape[1]):
        raise ValueError(f"X must be N1 × P with N1 = {W21.shape[-1]} and Y N3 × P with N3 = {W32.shape[-2]}, "
                         f"got {X.shape} and {Y.shape}")
    residual = Y - W32 @ W21 @ X
    return 0.5 * np.sum(residual ** 2, axis=(-2, -1))


@nb.njit(cache=True)
def two_layer_rhs(t, y, params):
    """(2.2.5–6) on y = [W21.ravel(), W32.ravel()]; params = [N1, N2, N3, tau, Σ31.ravel(), Σ11.ravel()]."""
    n1, n2, n3 = int(params[0]), int(params[1]), int(params[2])
    tau = params[3]
    sigma31 = params[4:4 + n3 * n1].reshape((n3, n1))
    sigma11 = params[4 + n3 * n1:4 + n3 * n1 + n1 * n1].reshape((n1, n1))
    W21 = y[:n2 * n1].reshape((n2, n1))
    W32 = y[n2 * n1:].reshape((n3, n2))
    err = sigma31 - W32 @ (W21 @ sigma11)
    out = np.empty(y.shape[0])
    out[:n2 * n1] = (W32.T @ err).ravel() / tau
    out[n2 * n1:] = (err @ W21.T).ravel() / tau
    return out


def _correlations(W21, W32, sigma31, sigma11):
    W21 = as_finite_array("W21", W21, ndim=2)
    W32 = as_finite_array("W32", W32, ndim=2)
    sigma31 = as_finite_array("sigma31", sigma31, ndim=2)
    n2, n1 = W21.shape
    n3 = W32.shape[0]
    sigma11 = np.eye(n1) if sigma11 is None else as_finite_array("sigma11", sigma11, ndim=2)
    if W32.shape[1] != n2 or sigma31.shape != (n3, n1) or sigma11.shape != (n1, n1):
        raise ValueError(f"shapes must be W21 (N2, N1), W32 (N3, N2), sigma31 (N3, N1), sigma11 (N1, N1); "
                         f"got {W21.shape}, {W32.shape}, {sigma31.shape}, {sigma11.shape}")
    return W21, W32, sigma31, sigma11


def network_flow(t, W21, W32, sigma31, sigma11=None, tau=1.0, rtol=1e-10, atol=1e-13, method="dop853"):
    """Integrate the full-matrix gradient flow (2.2.5–6) from (W21, W32); ``sigma11`` defaults to I
    (whitened). Returns (W21(t), W32(t)) stacked over the sorted times ``t`` (t[0] may be 0)."""
    W21, W32, sigma31, sigma11 = _correlations(W21, W32, sigma31, sigma11)
    tau = _checks.tau_of(tau)
    t_eval = require_array_in_range("t", t, 0.0, ndim=1)
    if t_eval.size == 0 or np.any(np.diff(t_eval) < 0):
        raise ValueError("t must be a non-empty increasing array of times")
    n2, n1 = W21.shape
    n3 = W32.shape[0]
    params = np.concatenate([[n1, n2, n3, tau], sigma31.ravel(), sigma11.ravel()])
    y0 = np.concatenate([W21.ravel(), W32.ravel()])
    sol = solve_ode(two_layer_rhs, (0.0, max(float(t_eval[-1]), 1e-12)), y0, t_eval=t_eval, params=params,
                    method=method, rtol=rtol, atol=atol, max_steps=2_000_000).check()
    return sol.y[:, :n2 * n1].reshape(-1, n2, n1), sol.y[:, n2 * n1:].reshape(-1, n3, n2)


@nb.njit(cache=True)
def _gd_loop(W21, W32, sigma31, sigma11, eta, n_steps, every):
    n_records = n_steps // every + 1
    out21 = np.empty((n_records,) + W21.shape)
    out32 = np.empty((n_records,) + W32.shape)
    out21[0], out32[0] = W21, W32
    for k in range(1, n_steps + 1):
        err = sigma31 - W32 @ (W21 @ sigma11)
        # Simultaneous update: both gradients use the weights of step k − 1 (2.2.3–4).
        W21, W32 = W21 + eta * (W32.T @ err), W32 + eta * (err @ W21.T)
        if k % every == 0:
            out21[k // every], out32[k // every] = W21, W32
    return out21, out32


def network_gd(W21, W32, sigma31, sigma11=None, learning_rate=1e-3, n_steps=1000, record_every=1):
    """Full-batch gradient descent (2.2.3–4) on (2.2.2) from (W21, W32). Depends on the data only
    through Σ31 = y Xᵀ and Σ11 = X Xᵀ (default I). Returns (W21_k, W32_k) for k = 0, r, 2r, ..."""
    W21, W32, sigma31, sigma11 = _correlations(W21, W32, sigma31, sigma11)
    eta = require_positive("learning_rate", learning_rate)
    n_steps = require_integer("n_steps", n_steps, 0, 10**9)
    every = require_integer("record_every", record_every, 1, max(n_steps, 1))
    out21, out32 = _gd_loop(W21, W32, sigma31, sigma11, eta, n_steps, every)
    if not (np.all(np.isfinite(out21[-1])) and np.all(np.isfinite(out32[-1]))):
        raise ValueError(f"gradient descent diverged (weights overflowed): learning_rate = {eta:g} is too large "
                         f"for these correlations")
    return out21, out32


def first_crossing_time(t, values, level):
    """First time at which ``values`` (sampled at increasing ``t``, one column per series) reaches
    ``level`` (one per series), by linear interpolation between samples; inf where it never does."""
    t = as_finite_array("t", t, ndim=1)
    values = as_finite_array("values", values)
    values = values.reshape(len(t), -1)
    level = np.broadcast_to(as_finite_array("level", level), values.shape[1:])
    out = np.full(values.shape[1], np.inf)
    for j in range(values.shape[1]):
        above = np.flatnonzero(values[:, j] >= level[j])
        if above.size == 0:
            continue
        k = above[0]
        if k == 0:
            out[j] = t[0]
            continue
        v0, v1 = values[k - 1, j], values[k, j]
        out[j] = t[k - 1] + (t[k] - t[k - 1]) * (level[j] - v0) / (v1 - v0)
    return out
