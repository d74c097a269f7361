"""Synthetic radially invariant losses with closed-form gradients, the test problems of this project.

Each loss has ``value(x, k=None)`` and ``grad(x, k=None)`` (k selects the stochastic draw; None means
k = 0), and is exactly invariant: L(ρx) = L(x), so ⟨∇L(x), x⟩ = 0 and ∇L(ρx) = ∇L(x)/ρ (Lemma 1, Eq 3.2).

1. Spherical Rayleigh quotient ½xᵀHx/‖x‖², optionally plus a linear noise term σ⟨ξ_k, x⟩/‖x‖.
2. Random linear functional ⟨w_k, x⟩/‖x‖ (a noise model), optionally with the tangential gradient rescaled to
   a controlled norm G, which makes the SGD(+L2) radius deterministic (the λ = 0 SGD bounds, the SGD + L2
   equilibrium and the random-walk equilibrium of SGD-M + L2 are tested on it).
3. A BatchNorm linear probe (1/B)Σ_b ℓ(a·BN(Sx)_b + c, t_b), ε = 0, logistic ℓ.
4. Weight-normalised logistic regression mean_i log(1 + exp(−t_iγ⟨s_i, x⟩/‖x‖)).
5. A weight-normalised logistic probe on mini-batches: the same loss on batch k mod n_batches.

The numba kernels (``_kernels``) mirror these numpy reference implementations (all but the mini-batch probe 5,
which runs on ``simulate``'s numpy engine).
"""
import math

import numpy as np

from dynamics.numerics import (as_finite_array, require_array_in_range, require_integer, require_positive, rng_from,
                               sigmoid)
from dynamics.numerics.random import counter_normals, stream_key
from ._checks import require_weight_vector

__all__ = ["BNLinearProbe", "RandomLinearLoss", "RayleighLoss", "WNLogistic", "WNLogisticProbe"]

RAYLEIGH, RANDOM_LINEAR, BN_PROBE, WN_LOGISTIC = 0, 1, 2, 3
_EMPTY2 = np.zeros((0, 0))
_EMPTY1 = np.zeros(0)


def _step_index(k):
    return 0 if k is None else require_integer("k", k, 0)


class _Loss:
    """Common part: the dimension, argument checks and the kernel description."""

    dimension: int

    def _point(self, x):
        x = require_weight_vector("x", x)
        if x.shape != (self.dimension,):
            raise ValueError(f"x must have shape ({self.dimension},) for this loss, got {x.shape}")
        r = math.sqrt(float(x @ x))
        return x, r, x / r

    def value(self, x, k=None) -> float:
        """The loss at :math:`x` for draw :math:`k` (``k = None`` means :math:`k = 0`)."""
        x, r, u = self._point(x)
        return float(self._value(u, _step_index(k)))

    def grad(self, x, k=None) -> np.ndarray:
        r"""The gradient :math:`\nabla L(x)` for draw :math:`k`; tangent at :math:`x`
        (:math:`\langle \nabla L(x), x \rangle = 0`) and :math:`(-1)`-homogeneous."""
        x, r, u = self._point(x)
        return self._sphere_grad(u, _step_index(k)) / r


class RayleighLoss(_Loss):
    r"""The spherical Rayleigh quotient :math:`L(x) = \tfrac{1}{2} x^\top H x / \lVert x \rVert^2`
    (:math:`+ \sigma \langle \xi_k, x \rangle / \lVert x \rVert`).

    :math:`\nabla L(x) = (Hu - (u^\top H u) u) / r` (:math:`+ \sigma (\xi_k - \langle \xi_k, u \rangle u) / r`). The
    minima are :math:`\pm v_1`, the eigenvector of the smallest eigenvalue; the Riemannian Hessian there has
    eigenvalues :math:`\lambda_i - \lambda_1`, so gradient descent on the sphere is stable roughly while
    :math:`\eta^e (\lambda_\max - \lambda_\min) < 2` (``stability_threshold``), the mechanism of the periodic
    collapse of GD with weight decay.

    Parameters
    ----------
    H : array_like, shape (d, d)
        A symmetric matrix (symmetric to 1e-12 relative).
    noise_std : float
        :math:`\sigma \ge 0`, the scale of the linear noise term (:math:`\xi_k` standard normal in
        :math:`\mathbb{R}^d`, a fresh draw per step).
    seed : None, int or numpy.random.Generator
        The noise stream (used when noise_std > 0).

    Examples
    --------
    >>> loss = RayleighLoss(np.diag([1.0, 3.0]))
    >>> round(loss.value([1.0, 1.0]), 6), loss.grad([2.0, 0.0]).tolist(), loss.stability_threshold
    (1.0, [0.0, 0.0], 1.0)
    """

    def __init__(self, H, noise_std=0.0, *, seed=None):
        H = as_finite_array("H", H, ndim=2)
        if H.shape[0] != H.shape[1] or H.shape[0] < 1:
            raise ValueError(f"H must be a square (d, d) matrix with d >= 1, got shape {H.shape}")
        asymmetry = float(np.abs(H - H.T).max())
        if asymmetry > 1e-12 * max(float(np.abs(H).max()), 1e-300):
            raise ValueError(f"H must be symmetric, got max|H - Hᵀ| = {asymmetry:.3g}")
        self.H = 0.5 * (H + H.T)
        self.dimension = H.shape[0]
        self.noise_std = require_positive("noise_std", noise_std, allow_zero=True)
        self.key = stream_key(rng_from(seed)) if self.noise_std > 0 else 0
        self.eigenvalues = np.linalg.eigvalsh(self.H)

    @property
    def stability_threshold(self) -> float:
        r""":math:`2 / (\lambda_\max - \lambda_\min)`: the effective learning rate above which descent at the minimum is
        unstable."""
        spread = float(self.eigenvalues[-1] - self.eigenvalues[0])
        return math.inf if spread == 0 else 2.0 / spread

    def _noise(self, k):
        return self.noise_std * counter_normals(self.key, k, self.dimension)

    def _value(self, u, k):
        value = 0.5 * float(u @ self.H @ u)
        if self.noise_std > 0:
            value += float(self._noise(k) @ u)
        return value

    def _sphere_grad(self, u, k):
        Hu = self.H @ u
        g = Hu - float(u @ Hu) * u
        if self.noise_std > 0:
            w = self._noise(k)
            g += w - float(w @ u) * u
        return g

    def _kernel_spec(self):
        return RAYLEIGH, self.H, _EMPTY2, _EMPTY1, np.array([self.noise_std]), self.key


class RandomLinearLoss(_Loss):
    r"""The random linear functional :math:`L_k(x) = \langle w_k, x \rangle / \lVert x \rVert`, a model of gradient
    noise.

    :math:`\nabla L_k(x) = (w_k - \langle w_k, u \rangle u) / r`. With ``grad_norm`` the tangential part is rescaled
    to norm :math:`G_k`, so that :math:`\lVert \nabla L_k(u) \rVert = G_k` exactly and the SGD(+L2) radius evolves
    deterministically; the gradient is then a noise model rather than the gradient of ``value`` (which stays
    :math:`\langle w_k, u \rangle`).

    Parameters
    ----------
    W : array_like, shape (n_draws, d)
        The table of :math:`w_k`; step :math:`k` uses row k mod n_draws. Use ``stream`` for fresh Gaussian draws at
        every step without a table.
    grad_norm : None, float or array_like, shape (n,)
        None: the natural norm; a float :math:`G > 0`: every step; an array: G_k = grad_norm[k mod n] (each > 0).

    Examples
    --------
    >>> loss = RandomLinearLoss([[0.0, 2.0]], grad_norm=5.0)
    >>> loss.grad([2.0, 0.0]).tolist(), loss.value([2.0, 0.0])
    ([0.0, 2.5], 0.0)
    >>> noisy = RandomLinearLoss.stream(3, grad_norm=1.0, seed=0)
    >>> round(float(np.linalg.norm(noisy.grad([1.0, 1.0, 1.0], k=5))), 12)
    0.57735026919
    """

    def __init__(self, W, grad_norm=None):
        W = as_finite_array("W", W, ndim=2)
        if W.shape[0] < 1 or W.shape[1] < 2:
            raise ValueError(f"W must have shape (n_draws, d) with n_draws >= 1 and d >= 2, got {W.shape}")
        self._setup(W, W.shape[1], grad_norm, 0)

    @classmethod
    def stream(cls, dimension, grad_norm=None, *, seed=None) -> "RandomLinearLoss":
        r"""A random linear loss with fresh standard normal :math:`w_k \in \mathbb{R}^d` at every step (a counter-based
        stream: :math:`w_k` is a function of (seed, :math:`k`), so every optimizer sees the same :math:`w_k` at step
        :math:`k`)."""
        d = require_integer("dimension", dimension, 2)
        loss = cls.__new__(cls)
        loss._setup(None, d, grad_norm, stream_key(rng_from(seed)))
        return loss

    def _setup(self, W, d, grad_norm, key):
        self.W, self.dimension, self.key = W, d, key
        if grad_norm is None:
            self.grad_norms = _EMPTY1
        elif np.ndim(grad_norm) == 0:
            self.grad_norms = np.array([require_positive("grad_norm", grad_norm)])
        else:
            self.grad_norms = require_array_in_range("grad_norm", grad_norm, 0.0, low_open=True, ndim=1)
            if self.grad_norms.size == 0:
                raise ValueError("grad_norm must hold at least one value, got an empty array")

    def _draw(self, k):
        if self.W is not None:
            return self.W[k % self.W.shape[0]]
        return counter_normals(self.key, k, self.dimension)

    def _value(self, u, k):
        return float(self._draw(k) @ u)

    def _sphere_grad(self, u, k):
        w = self._draw(k)
        g = w - float(w @ u) * u
        if self.grad_norms.size:
            norm = float(np.linalg.norm(g))
            if norm == 0.0:
                raise ValueError(f"grad_norm: the draw w_{k} is parallel to x, so its tangential part cannot be "
                                 f"rescaled")
            g *= self.grad_norms[k % self.grad_norms.size] / norm
        return g

    def _kernel_spec(self):
        table = _EMPTY2 if self.W is None else self.W
        return RANDOM_LINEAR, _EMPTY2, table, self.grad_norms, _EMPTY1, self.key


def _batches(S, targets, min_batch):
    """The mini-batches of a probe, checked: inputs S as (n_batches, B, d) (a single (B, d) batch gets the leading
    axis) with B >= ``min_batch`` and d >= 1, and ±1 targets of shape (n_batches, B)."""
    S = as_finite_array("S", S)
    if S.ndim == 2:
        S = S[None]
    if S.ndim != 3 or S.shape[1] < min_batch or S.shape[2] < 1:
        raise ValueError(f"S must have shape (B, d) or (n_batches, B, d) with B >= {min_batch} and d >= 1, got "
                         f"{np.shape(S)}")
    t = as_finite_array("targets", targets)
    t = t[None] if t.ndim == 1 else t
    if t.shape != S.shape[:2]:
        raise ValueError(f"targets must have shape {S.shape[:2] if S.shape[0] > 1 else (S.shape[1],)} to "
                         f"match S, got {np.shape(targets)}")
    if not np.all(np.abs(t) == 1.0):
        raise ValueError("targets must hold labels in {-1, +1}")
    return S, t


class BNLinearProbe(_Loss):
    r"""A BatchNorm linear probe
    :math:`L(x) = \frac{1}{B} \sum_b \log(1 + \exp(-t_b (a \cdot \mathrm{BN}(S x)_b + c)))`.

    :math:`\mathrm{BN}(z) = (z - \operatorname{mean} z) / \sqrt{\operatorname{var} z}` with the biased variance and
    :math:`\varepsilon = 0`, so :math:`L` is exactly radially invariant. Backward: with
    :math:`g = \partial L / \partial \hat z`,
    :math:`\partial L / \partial z = \sigma^{-1} [g - \mathrm{mean}(g) - \hat z \cdot \mathrm{mean}(g \odot \hat z)]`
    and :math:`\partial L / \partial x = S^\top \partial L / \partial z`;
    :math:`\langle \partial L / \partial x, x \rangle = 0` because :math:`\sum \hat z = 0` and
    :math:`\lVert \hat z \rVert^2 = B`.

    Parameters
    ----------
    S : array_like, shape (B, d) or (n_batches, B, d)
        The inputs of one batch, or of several (step k uses batch k mod n_batches); :math:`B \ge 2`.
    targets : array_like, shape (B,) or (n_batches, B)
        Labels :math:`\pm 1`.
    readout : float
        :math:`a`, the (fixed) weight of the normalised feature.
    bias : float
        :math:`c`, the (fixed) bias.

    Examples
    --------
    >>> probe = BNLinearProbe([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [1.0, -1.0, 1.0])
    >>> round(probe.value([1.0, -1.0]), 6), round(probe.value([2.0, -2.0]), 6)
    (0.402788, 0.402788)
    """

    def __init__(self, S, targets, readout=1.0, bias=0.0):
        self.S, self.targets = _batches(S, targets, min_batch=2)
        self.readout = as_finite_array("readout", readout, ndim=0).item()
        self.bias = as_finite_array("bias", bias, ndim=0).item()
        self.dimension = self.S.shape[2]

    def _forward(self, u, k):
        S, t = self.S[k % self.S.shape[0]], self.targets[k % self.S.shape[0]]
        z = S @ u
        centred = z - z.mean()
        sigma = math.sqrt(float(centred @ centred) / z.size)
        if sigma == 0.0:
            raise ValueError("x: the batch variance of S x is 0, so BatchNorm (ε = 0) is undefined at this x")
        zhat = centred / sigma
        margins = t * (self.readout * zhat + self.bias)
        return S, t, zhat, sigma, margins

    def _value(self, u, k):
        *_, margins = self._forward(u, k)
        return float(np.mean(np.logaddexp(0.0, -margins)))

    def _sphere_grad(self, u, k):
        S, t, zhat, sigma, margins = self._forward(u, k)
        g = -t * sigmoid(-margins) * self.readout / zhat.size
        dz = (g - g.mean() - zhat * np.mean(g * zhat)) / sigma
        return S.T @ dz  # the gradient at u (r = 1)

    def _kernel_spec(self):
        n, B, d = self.S.shape
        return (BN_PROBE, _EMPTY2, self.S.reshape(n * B, d), self.targets.reshape(n * B),
                np.array([float(B), self.readout, self.bias]), 0)


class WNLogistic(_Loss):
    r"""Weight-normalised logistic regression
    :math:`L(x) = \operatorname{mean}_i \log(1 + \exp(-t_i \gamma \langle s_i, x \rangle / \lVert x \rVert))`.

    Smooth and exactly invariant;
    :math:`\nabla L(x) = -(\gamma / r) \cdot \operatorname{mean}_i \sigma(-m_i) t_i (s_i - \langle s_i, u \rangle u)`,
    :math:`m_i = t_i \gamma \langle s_i, u \rangle`.

    Parameters
    ----------
    S : array_like, shape (n_samples, d)
        The inputs :math:`s_i`.
    labels : array_like, shape (n_samples,)
        Labels :math:`t_i = \pm 1`.
    gamma : float
        The fixed weight-norm magnitude :math:`\gamma > 0`.

    Examples
    --------
    >>> loss = WNLogistic([[1.0, 0.0], [0.0, 1.0]], [1.0, 1.0], 2.0)
    >>> round(loss.value([1.0, 1.0]), 6), abs(round(float(loss.grad([1.0, 1.0]) @ [1.0, 1.0]), 12))
    (0.217622, 0.0)
    """

    def __init__(self, S, labels, gamma):
        S = as_finite_array("S", S, ndim=2)
        if S.shape[0] < 1 or S.shape[1] < 1:
            raise ValueError(f"S must have shape (n_samples, d) with both >= 1, got {S.shape}")
        labels = as_finite_array("labels", labels, ndim=1)
        if labels.shape != (S.shape[0],):
            raise ValueError(f"labels must have shape ({S.shape[0]},) to match S, got {labels.shape}")
        if not np.all(np.abs(labels) == 1.0):
            raise ValueError("labels must be -1 or +1")
        self.S, self.labels, self.gamma = S, labels, require_positive("gamma", gamma)
        self.dimension = S.shape[1]

    def _value(self, u, k):
        margins = self.labels * self.gamma * (self.S @ u)
        return float(np.mean(np.logaddexp(0.0, -margins)))

    def _sphere_grad(self, u, k):
        margins = self.labels * self.gamma * (self.S @ u)
        g = -(self.gamma / self.labels.size) * (self.S.T @ (self.labels * sigmoid(-margins)))
        return g - float(g @ u) * u

    def _kernel_spec(self):
        return WN_LOGISTIC, _EMPTY2, self.S, self.labels, np.array([self.gamma]), 0


class WNLogisticProbe(_Loss):
    r"""A weight-normalised logistic probe on mini-batches
    :math:`L_k(x) = \frac{1}{B} \sum_b \log(1 + \exp(-t_b \gamma \langle s_b, x \rangle / \lVert x \rVert))`,
    over the samples :math:`(s_b, t_b)` of batch k mod n_batches.

    The weight-normalised twin of :class:`BNLinearProbe` (Roburin (thesis), Fig 3.4 (b)): the feature
    :math:`\gamma \langle s, x \rangle / \lVert x \rVert` has a fixed gain :math:`\gamma`, so :math:`L_k` is exactly
    radially invariant. Per batch it is :class:`WNLogistic`:
    :math:`\nabla L_k(x) = -(\gamma / r) \cdot \frac{1}{B} \sum_b \sigma(-m_b) t_b (s_b - \langle s_b, u \rangle u)`,
    :math:`m_b = t_b \gamma \langle s_b, u \rangle`. It has no compiled kernel: run it with
    ``simulate(..., engine="numpy")``.

    Parameters
    ----------
    S : array_like, shape (B, d) or (n_batches, B, d)
        The inputs of one batch, or of several (step k uses batch k mod n_batches); :math:`B \ge 1`.
    targets : array_like, shape (B,) or (n_batches, B)
        The labels :math:`t_b = \pm 1` of the inputs, batch by batch.
    gamma : float
        The fixed weight-norm gain :math:`\gamma > 0`.

    Examples
    --------
    >>> probe = WNLogisticProbe([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [1.0, -1.0]]], [[1.0, 1.0], [1.0, -1.0]], 2.0)
    >>> round(probe.value([1.0, 1.0], k=0), 6), round(probe.value([3.0, 3.0], k=0), 6)   # invariant to the scale
    (0.217622, 0.217622)
    >>> round(probe.value([1.0, 1.0], k=3), 6)   # step 3 uses batch 1
    0.375286
    >>> abs(round(float(probe.grad([1.0, 2.0], k=1) @ [1.0, 2.0]), 12))   # tangent to x
    0.0
    """

    def __init__(self, S, targets, gamma):
        self.S, self.targets = _batches(S, targets, min_batch=1)
        self.gamma = require_positive("gamma", gamma)
        self.dimension = self.S.shape[2]

    def _margins(self, u, k):
        S, t = self.S[k % self.S.shape[0]], self.targets[k % self.S.shape[0]]
        return S, t, t * self.gamma * (S @ u)

    def _value(self, u, k):
        *_, margins = self._margins(u, k)
        return float(np.mean(np.logaddexp(0.0, -margins)))

    def _sphere_grad(self, u, k):
        S, t, margins = self._margins(u, k)
        g = -(self.gamma / t.size) * (S.T @ (t * sigmoid(-margins)))
        return g - float(g @ u) * u

    def _kernel_spec(self):
        raise ValueError("engine: WNLogisticProbe has no compiled kernel; run it with simulate(..., engine='numpy')")
