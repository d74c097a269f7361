"""Data and simulations of the teacher–student model (spec §1, §4), vectorised over seeds.

* :func:`modulation_matrix`: F = U Σ Vᵀ with Σ = diag(1 × p, 1/κ × (d − p)) and U, V Haar (the authors' code) or
  identity (exact in distribution, spec §1.2).
* :func:`draw_teacher_student`: latent inputs Z with iid N(0, 1/d) entries (E1), teacher w with ‖w‖² = d
  (project convention, E2; ``normalized_teacher=False`` gives the code's w ~ N(0, I)), labels y = Zw + σ_ε ε,
  student inputs X = ZF (Eq 4.2.2), optional noiseless test set.
* :func:`iterate_gd`: explicit full-batch GD (Eq 4.2.4 without Langevin noise), with ridge, a per-step output
  penalty (the gradient (1 + a_k)XᵀXŵ − Xᵀy of Lemma 4.3.1 / Fig 4.6), a preconditioner P (per-group learning
  rates, P = VΣ⁻²Vᵀ) and the loss normalisation (sum, as corrected in E3, or the printed 1/(2n) mean).
* :func:`measure_order_parameters` (Eq 4.2.7, per group in F's singular bases) and :func:`test_error`
  (½ mean of (y* − ŷ)² over the test set, the left side of Eq 4.2.5).
* :func:`q_penalty_schedule`: Fig 4.6's a_k = 0.6·log(1 + e^{−0.001k})/log 2 (authors' code).
"""
from dataclasses import dataclass

import numpy as np

from dynamics.numerics import (as_finite_array, require_choice, require_in_range, require_integer, require_positive,
                               rng_from)
from ._common import MAX_KAPPA, check_noise, order_parameters


@dataclass(frozen=True)
class Modulation:
    """F = U diag(σ) Vᵀ; ``U``, ``V`` of shape (..., d, d) (a leading seed axis allowed), σ of shape (d,),
    the first ``p`` directions fast."""

    U: np.ndarray
    singular_values: np.ndarray
    V: np.ndarray
    p: int

    @property
    def matrix(self):
        return (self.U * self.singular_values) @ np.swapaxes(self.V, -1, -2)

    @property
    def inverse(self):
        return (self.V / self.singular_values) @ np.swapaxes(self.U, -1, -2)

    @property
    def preconditioner_factor(self):
        """M = VΣ⁻¹: the update ŵ ← ŵ − η MMᵀ∇L has per-group learning rates η/σ_i² (P = VΣ⁻²Vᵀ)."""
        return self.V / self.singular_values

    @property
    def preconditioner(self):
        M = self.preconditioner_factor
        return M @ np.swapaxes(M, -1, -2)

    def seed(self, index):
        """The modulation of one seed (from a stack of seeds)."""
        if self.U.ndim == 2:
            raise ValueError("this modulation has no seed axis")
        index = require_integer("index", index, 0, self.U.shape[0] - 1)
        return Modulation(self.U[index], self.singular_values, self.V[index], self.p)


def _haar(rng, n_seeds, d):
    q, r = np.linalg.qr(rng.standard_normal((n_seeds, d, d)))
    return q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[..., None, :]


def _check_sizes(n, d, p, kappa):
    d = require_integer("d", d, 2, 100_000)
    n = require_integer("n", n, 1, 10_000_000)
    p = require_integer("p", p, 1, d - 1)
    kappa = require_in_range("kappa", kappa, 1.0, MAX_KAPPA)
    return n, d, p, kappa


def _require_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def modulation_matrix(d, p, kappa, haar=True, n_seeds=1, seed=0):
    """A stack of ``n_seeds`` bipartite modulations (σ₁ = 1 on p directions, σ₂ = 1/κ on d − p)."""
    _, d, p, kappa = _check_sizes(1, d, p, kappa)
    haar = _require_bool("haar", haar)
    n_seeds = require_integer("n_seeds", n_seeds, 1, 100_000)
    rng = rng_from(seed)
    sigma = np.where(np.arange(d) < p, 1.0, 1.0 / kappa)
    if haar:
        U, V = _haar(rng, n_seeds, d), _haar(rng, n_seeds, d)
    else:
        U = V = np.broadcast_to(np.eye(d), (n_seeds, d, d)).copy()
    return Modulation(U, sigma, V, p)


@dataclass(frozen=True)
class TeacherStudentData:
    """Arrays with a leading seed axis S: Z, X (S, n, d), w (S, d), label noise and y (S, n), test set."""

    modulation: Modulation
    Z: np.ndarray
    X: np.ndarray
    w: np.ndarray
    label_noise: np.ndarray
    y: np.ndarray
    Z_test: np.ndarray
    y_test: np.ndarray
    noise: float


def draw_teacher_student(n, d, p, kappa, noise=0.0, n_seeds=1, seed=0, haar=True, normalized_teacher=True, n_test=0):
    """Draw ``n_seeds`` independent teacher–student problems (spec §1, §4); the same seed gives the same data."""
    n, d, p, kappa = _check_sizes(n, d, p, kappa)
    noise = check_noise(noise)
    haar = _require_bool("haar", haar)
    normalized_teacher = _require_bool("normalized_teacher", normalized_teacher)
    n_seeds = require_integer("n_seeds", n_seeds, 1, 100_000)
    n_test = require_integer("n_test", n_test, 0, 10_000_000)
    rng = rng_from(seed)
    F = modulation_matrix(d, p, kappa, haar, n_seeds, rng)
    Z = rng.standard_normal((n_seeds, n, d)) / np.sqrt(d)
    g = rng.standard_normal((n_seeds, d))
    w = np.sqrt(d) * g / np.linalg.norm(g, axis=-1, keepdims=True) if normalized_teacher else g
    eps = noise * rng.standard_normal((n_seeds, n))
    y = np.einsum("snd,sd->sn", Z, w) + eps
    Z_test = rng.standard_normal((n_seeds, n_test, d)) / np.sqrt(d)
    y_test = np.einsum("snd,sd->sn", Z_test, w)
    return TeacherStudentData(F, Z, Z @ F.matrix, w, eps, y, Z_test, y_test, noise)


def _expand(arr, like):
    """Insert axes after the seed axis so that ``arr`` (S, d) broadcasts against ``like`` (S, ..., d)."""
    return arr.reshape(arr.shape[:1] + (1,) * (like.ndim - arr.ndim) + arr.shape[1:])


def measure_order_parameters(w_hat, w, modulation, noise=0.0):
    """R = wᵀFŵ/d, Q = ‖Fŵ‖²/d (Eq 4.2.7) and their fast/slow parts in F's singular bases (R_i = w_i·v_i/d,
    Q_i = ‖v_i‖²/d with v = ΣVᵀŵ), for weights ``w_hat`` (S, ..., d), teachers ``w`` (S, d) and a
    :class:`Modulation` with a seed axis of length S or none. L_G = ½(‖w‖²/d − 2R + Q) per draw (Eq 4.2.5)."""
    w_hat = as_finite_array("w_hat", w_hat)
    w = as_finite_array("w", w, ndim=2)
    if not isinstance(modulation, Modulation):
        raise TypeError(f"modulation must be a Modulation, got {type(modulation).__name__}")
    noise = check_noise(noise)
    S, d = w.shape
    if w_hat.ndim < 2 or w_hat.shape[0] != S or w_hat.shape[-1] != d:
        raise ValueError(f"w_hat must have shape ({S}, ..., {d}), got {w_hat.shape}")
    U, V = modulation.U, modulation.V
    if U.shape[-1] != d or (U.ndim == 3 and U.shape[0] != S):
        raise ValueError(f"modulation must be {d}x{d} with {S} seeds or none, got U of shape {U.shape}")
    U, V = np.broadcast_to(U, (S, d, d)), np.broadcast_to(V, (S, d, d))
    flat = w_hat.reshape(S, -1, d)
    v = np.einsum("sji,smj->smi", V, flat) * modulation.singular_values
    w_left = np.einsum("sji,sj->si", U, w)[:, None, :]
    p = modulation.p
    shape = w_hat.shape[:-1]
    R1 = (w_left[..., :p] * v[..., :p]).sum(-1).reshape(shape) / d
    R2 = (w_left[..., p:] * v[..., p:]).sum(-1).reshape(shape) / d
    Q1 = (v[..., :p] ** 2).sum(-1).reshape(shape) / d
    Q2 = (v[..., p:] ** 2).sum(-1).reshape(shape) / d
    power = _expand((w ** 2).sum(-1) / d, R1)
    return order_parameters(R1 + R2, Q1 + Q2, noise, R1, R2, Q1, Q2, teacher_power=power)


def test_error(w_hat, data):
    """½ mean over the noiseless test set of (y* − ŷ)², ŷ = z_testᵀFŵ; shape of ``w_hat`` without its last axis."""
    if not isinstance(data, TeacherStudentData):
        raise TypeError(f"data must be a TeacherStudentData (from draw_teacher_student), got {type(data).__name__}")
    w_hat = as_finite_array("w_hat", w_hat)
    S, m, d = data.Z_test.shape
    if m == 0:
        raise ValueError("data has no test set: draw it with n_test > 0")
    if w_hat.ndim < 2 or w_hat.shape[0] != S or w_hat.shape[-1] != d:
        raise ValueError(f"w_hat must have shape ({S}, ..., {d}), got {w_hat.shape}")
    flat = w_hat.reshape(S, -1, d)
    predictions = np.einsum("smd,skd->skm", data.Z_test @ data.modulation.matrix, flat)
    return 0.5 * ((predictions - data.y_test[:, None, :]) ** 2).mean(-1).reshape(w_hat.shape[:-1])


def q_penalty_schedule(steps, strength=0.6, decay=1e-3):
    """a_k = strength·log(1 + e^{−decay·k})/log 2 for k = 0..steps−1 (Fig 4.6, authors' code): 0.6 → 0 smoothly."""
    steps = require_integer("steps", steps, 1, 100_000_000)
    strength = require_positive("strength", strength, allow_zero=True)
    decay = require_positive("decay", decay)
    k = np.arange(steps, dtype=float)
    return strength * np.log1p(np.exp(-decay * k)) / np.log(2.0)


def iterate_gd(X, y, steps, eta, ridge=0.0, penalty_schedule=None, preconditioner=None, loss_normalization="sum"):
    """Explicit full-batch GD from ŵ₀ = 0: ŵ ← ŵ − ηP[(1 + a_k)XᵀXŵ − Xᵀy]/m − ηPλŵ, m = 1 ("sum", Eq 4.2.3 as
    corrected in E3) or n ("mean", the printed 1/(2n) loss). Records ŵ after each step in ``steps`` (sorted
    integers >= 0); returns shape (..., len(steps), d) for X (..., n, d). For long runs use the closed forms."""
    X = as_finite_array("X", X)
    y = as_finite_array("y", y)
    if X.ndim < 2 or y.shape != X.shape[:-1]:
        raise ValueError(f"X must be (..., n, d) and y (..., n); got {X.shape} and {y.shape}")
    record = np.atleast_1d(np.asarray(steps))
    if record.ndim != 1 or record.size == 0 or not np.issubdtype(record.dtype, np.integer) \
            or np.any(record < 0) or np.any(np.diff(record) < 0):
        raise ValueError(f"steps must be a sorted 1-D array of integers >= 0, got {steps!r}")
    eta = require_positive("eta", eta)
    ridge = require_positive("ridge", ridge, allow_zero=True)
    require_choice("loss_normalization", loss_normalization, ("sum", "mean"))
    n_steps = int(record[-1])
    if penalty_schedule is None:
        schedule = np.zeros(n_steps)
    else:
        schedule = as_finite_array("penalty_schedule", penalty_schedule, ndim=1)
        if schedule.size < n_steps or np.any(schedule < 0):
            raise ValueError(f"penalty_schedule must hold {n_steps} values >= 0, got {schedule.size}")
    d = X.shape[-1]
    P = np.eye(d) if preconditioner is None else as_finite_array("preconditioner", preconditioner)
    if P.shape[-2:] != (d, d):
        raise ValueError(f"preconditioner must be ({d}, {d}), got {P.shape}")
    scale = 1.0 if loss_normalization == "sum" else 1.0 / X.shape[-2]
    Xt = np.swapaxes(X, -1, -2)
    gram = scale * Xt @ X
    # GD is stable iff η times the largest eigenvalue of P((1 + a)XᵀX + λ) stays below 2 (for every a used)
    worst = P @ ((1.0 + (schedule.max() if n_steps else 0.0)) * gram + ridge * np.eye(d))
    radius = float(np.max(np.abs(np.linalg.eigvals(worst))))
    if eta * radius >= 2.0:
        raise ValueError(f"eta must be < 2/{radius:.4g} = {2.0 / radius:.4g} for GD to converge, got {eta:g}")
    rhs = scale * np.einsum("...dn,...n->...d", Xt, y)
    w = np.zeros(X.shape[:-2] + (d,))
    out = np.empty(X.shape[:-2] + (record.size, d))
    r = 0
    while r < record.size and record[r] == 0:
        out[..., r, :] = w
        r += 1
    for k in range(1, n_steps + 1):
        grad = (1.0 + schedule[k - 1]) * np.einsum("...ij,...j->...i", gram, w) - rhs + ridge * w
        w = w - eta * np.einsum("...ij,...j->...i", P, grad)
        while r < record.size and record[r] == k:
            out[..., r, :] = w
            r += 1
    if not np.all(np.isfinite(out)):
        raise ValueError(f"GD diverged (eta={eta:g} too large for this design)")
    return out
