"""Torch simulations of the gradient-starvation set-ups of Pezeshki et al. 2021, used by the cross-checks in
``verify.crosscheck.starvation`` and by the two-moons figure. Optional: needs torch; not imported by
:mod:`dynamics.starvation`; registers nothing. Every function takes ``device=`` explicitly and computes in
float64.

* :func:`~dynamics.starvation.torch_training.train_toy`: the Fig 6 toy (App. B.1; linear model, n = 2)
  trained by torch SGD, three ways: the primal ridge-logistic loss (Eq 5), Spectral Decoupling (Eq 17) and
  the authors' dual gradient ascent on Eq 8; their responses z are compared with ``feature_response`` and
  ``sd_fixed_point``.
* :func:`~dynamics.starvation.torch_training.ntk_net_error`: a wide two-layer ReLU net in NTK
  parameterisation trained by full-batch GD on the centred output (Eq 3), against the exact dual
  (Eqs 8, 9, 11) with its empirical NTK.
* :func:`~dynamics.starvation.torch_training.train_two_moons`: the two-moons nets of Fig 1 (App. B.2), with
  ``|z|`` along the NTK-at-init eigen-directions over training and the vertical/horizontal input-gradient ratio;
  the torch simulation of the compiled :func:`dynamics.starvation.train_two_moons`.
"""
import math
from typing import Optional, Sequence, Union

import numpy as np
import torch
from numpy.typing import ArrayLike

from dynamics.numerics import (as_finite_array, disk_cache, require_in_range, require_integer, require_of_type,
                               require_positive, rng_from)
from dynamics.numerics.torch_tools import DTYPE, as_tensor, on_device, to_numpy, torch_generator
from ._fixed_points import dual_fixed_point
from ._results import (MOONS_RUNS, MoonsRun, ToyTraining, ToyTrainingConfig, TwoMoonsConfig, TwoMoonsTraining,
                       WideNetComparison)
from ._setups import moons_setup, moons_training
from ._docs import fill_doc

# The result and configuration types and the Fig 1 runs live in the package (dynamics.starvation); they are
# re-exported here.
__all__ = ["MOONS_RUNS", "MoonsRun", "ToyTraining", "ToyTrainingConfig", "TwoMoonsConfig", "TwoMoonsTraining",
           "WideNetComparison", "ntk_net_error", "train_toy", "train_two_moons"]


# ---------------------------------------------------------------- the Fig 6 toy
@fill_doc
@on_device
def train_toy(U: ArrayLike, s: ArrayLike, Phi: ArrayLike, config: ToyTrainingConfig = ToyTrainingConfig(), *,
              device: Union[str, torch.device] = "cpu") -> ToyTraining:
    """Train a batch of Fig 6 toys (App. B.1, y = 1) by torch SGD, primal (Eq 5), SD (Eq 17) and dual (Eq 8).

    One ``torch.optim.SGD`` loop runs the three independent optimisations of every toy of the batch (summed
    losses of independent problems), by default with the authors' settings: θ_0 = 0 and learning rate 0.05 for the
    primals, α_0 = 1e-8, learning rate 3e-6 and α clamped to (1e-50, 1 - 1e-50) for the dual, 5000 steps.

    Parameters
    ----------
    U : array_like, shape (b, n, n)
        Orthogonal matrices (e.g. the Eq 15 coupling).
    s : array_like, shape (b, n)
        Feature strengths, > 0.
    Phi : array_like, shape (b, n, m)
        Φ_0 = YUSVᵀ with y = 1 (so YΦ_0 = Φ_0), m >= n.
    config : ToyTrainingConfig
        The settings: steps, penalties, learning rates, dual start and clamp (default: the authors' toy code,
        :meth:`~dynamics.starvation.ToyTrainingConfig.source`). A field out of its range raises ValueError naming
        the field.
    %(device)s

    Returns
    -------
    ToyTraining
        ``primal``, ``spectral_decoupling``, ``dual``: the responses z, each (b, n).

    Examples
    --------
    >>> from dynamics.starvation import coupling_matrix
    >>> U, s = coupling_matrix(0.5)[None], np.array([[6.0, 2.0]])
    >>> out = train_toy(U, s, U * s[:, None, :], ToyTrainingConfig(n_steps=200), device="cpu")
    >>> out.primal.shape, bool(np.all(np.isfinite(out.dual)))
    ((1, 2), True)
    """
    config = require_of_type("config", config, ToyTrainingConfig, made_by="dynamics.starvation.ToyTrainingConfig")
    U = as_finite_array("U", U, ndim=3)
    s = as_finite_array("s", s, ndim=2)
    Phi = as_finite_array("Phi", Phi, ndim=3)
    if s.shape != U.shape[:2] or U.shape[1] != U.shape[2] or Phi.shape[:2] != s.shape:
        raise ValueError(f"U (b, n, n), s (b, n) and Phi (b, n, m) must agree, got shapes {U.shape}, {s.shape}, "
                         f"{Phi.shape}")
    n_steps = require_integer("n_steps", config.n_steps, 0, 10**8)
    weight_decay = require_positive("weight_decay", config.weight_decay)
    output_penalty = require_positive("output_penalty", config.output_penalty)
    primal_learning_rate = require_positive("primal_learning_rate", config.primal_learning_rate)
    dual_learning_rate = require_positive("dual_learning_rate", config.dual_learning_rate)
    alpha0 = require_in_range("alpha0", config.alpha0, 0.0, 1.0, low_open=True, high_open=True)
    clamp = require_in_range("clamp", config.clamp, 0.0, 0.5, low_open=True, high_open=True)
    Phi_t = as_tensor(Phi, device)
    K = as_tensor(np.einsum("bij,bj,bkj->bik", U, s ** 2, U), device)
    theta = torch.zeros(Phi.shape[0], Phi.shape[2], dtype=DTYPE, device=device, requires_grad=True)
    theta_sd = torch.zeros_like(theta, requires_grad=True)
    alpha = torch.full(s.shape, alpha0, dtype=DTYPE, device=device, requires_grad=True)
    optimiser = torch.optim.SGD([{"params": [theta, theta_sd], "lr": primal_learning_rate},
                                 {"params": [alpha], "lr": dual_learning_rate}])
    softplus = torch.nn.functional.softplus
    for _ in range(n_steps):
        optimiser.zero_grad()
        logits = torch.einsum("bij,bj->bi", Phi_t, theta)
        logits_sd = torch.einsum("bij,bj->bi", Phi_t, theta_sd)
        primal = softplus(-logits).sum() + 0.5 * weight_decay * (theta ** 2).sum()
        sd = softplus(-logits_sd).sum() + 0.5 * output_penalty * (logits_sd ** 2).sum()
        entropy = -(alpha * torch.log(alpha) + (1 - alpha) * torch.log1p(-alpha)).sum()
        dual = 0.5 / weight_decay * torch.einsum("bi,bij,bj->", alpha, K, alpha) - entropy
        (primal + sd + dual).backward()
        optimiser.step()
        with torch.no_grad():
            alpha.clamp_(clamp, 1 - clamp)
    to_z = lambda th: np.einsum("bij,bik,bk->bj", U, Phi, to_numpy(th))  # noqa: E731  z = SVᵀθ = UᵀYΦθ, y = 1
    z_dual = np.einsum("bij,bi->bj", U, to_numpy(alpha)) * s ** 2 / weight_decay
    return ToyTraining(to_z(theta), to_z(theta_sd), z_dual)


# ---------------------------------------------------------------- a wide net in the NTK regime
@fill_doc
@on_device
def ntk_net_error(width: int, *, device: Union[str, torch.device] = "cpu",
                  seed: Optional[Union[int, np.random.Generator]] = None, weight_decay: float = 0.1, n_steps: int = 800,
                  n_samples: int = 16) -> WideNetComparison:
    """Train f = aᵀReLU(Wx)/√m (NTK parameterisation) and compare with the Eq 9 dual (Eqs 3, 8, 9, 11).

    Data: ``n_samples`` points x ~ N(0, I_2) plus a constant bias input, labels y = sign(x_1 + 0.3·noise).
    The centred output g = f(·; θ) - f(·; θ_0) is trained by full-batch gradient descent on
    Σ log(1 + e^{-y g}) + (λ/2)‖θ - θ_0‖² with W, a ~ N(0, 1) at θ_0. The prediction uses K = Φ_0Φ_0ᵀ from
    ``torch.func.jacrev`` at θ_0: YKY = U S² Uᵀ, α* = ``dual_fixed_point(U, s, λ)``, ŷ* = λ⁻¹KYα*. The
    error falls like m^{-1/2} (the NTK's fluctuation at init and its drift during training).

    Parameters
    ----------
    width : int
        Hidden width m, in [1, 10^6].
    %(device)s
    seed : None, int or numpy.random.Generator
        Draws the data and the initial weights.
    weight_decay : float
        λ > 0.
    n_steps : int
        Gradient-descent steps, >= 1 (800 converge to round-off: the loss is λ-strongly convex).
    n_samples : int
        Number of training points, in [2, 1000].

    Returns
    -------
    WideNetComparison
        The relative max-norm error of ŷ, both outputs and the learning rate.

    Examples
    --------
    >>> out = ntk_net_error(64, device="cpu", seed=0, n_steps=50)
    >>> out.trained.shape, bool(out.relative_error > 0)
    ((16,), True)
    """
    width = require_integer("width", width, 1, 10**6)
    weight_decay = require_positive("weight_decay", weight_decay)
    n_steps = require_integer("n_steps", n_steps, 1, 10**7)
    n_samples = require_integer("n_samples", n_samples, 2, 1000)
    rng = rng_from(seed)
    x = rng.standard_normal((n_samples, 2))
    y_np = np.sign(x[:, 0] + 0.3 * rng.standard_normal(n_samples))
    y_np[y_np == 0] = 1.0
    X, y = as_tensor(np.column_stack([x, np.ones(n_samples)]), device), as_tensor(y_np, device)
    generator = torch_generator(rng, device)
    W0 = torch.randn(width, X.shape[1], dtype=DTYPE, device=device, generator=generator)
    a0 = torch.randn(width, dtype=DTYPE, device=device, generator=generator)

    def net(W, a):
        return torch.relu(X @ W.T) @ a / math.sqrt(width)

    J = torch.func.jacrev(net, argnums=(0, 1))(W0, a0)
    Phi0 = torch.cat([J[0].reshape(n_samples, -1), J[1]], dim=1)
    K = to_numpy(Phi0 @ Phi0.T)
    eigenvalues, U = np.linalg.eigh(y_np[:, None] * K * y_np[None, :])
    alpha = dual_fixed_point(U, np.sqrt(np.clip(eigenvalues, 1e-300, None)), weight_decay).alpha
    predicted = K @ (y_np * alpha) / weight_decay
    # The loss's curvature is at most λ + max eig(K)/4 (σ' <= 1/4): this step is below 2/curvature.
    learning_rate = min(0.5, 1.0 / (eigenvalues.max() / 4.0 + weight_decay))
    W, a = W0.clone().requires_grad_(True), a0.clone().requires_grad_(True)
    f0 = net(W0, a0)
    optimiser = torch.optim.SGD([W, a], lr=learning_rate)
    for _ in range(n_steps):
        optimiser.zero_grad()
        g = net(W, a) - f0
        penalty = ((W - W0) ** 2).sum() + ((a - a0) ** 2).sum()
        (torch.nn.functional.softplus(-y * g).sum() + 0.5 * weight_decay * penalty).backward()
        optimiser.step()
    trained = to_numpy(net(W, a) - f0)
    error = float(np.abs(trained - predicted).max() / np.abs(predicted).max())
    return WideNetComparison(error, trained, predicted, float(learning_rate))


# ---------------------------------------------------------------- two moons
@fill_doc
@disk_cache(salt=torch.__version__)  # rendering a figure again reuses its training
@on_device
def train_two_moons(config: TwoMoonsConfig = TwoMoonsConfig(),
                    seeds: Sequence[Union[int, np.random.Generator]] = (0, 1, 2), *,
                    device: Union[str, torch.device] = "cpu") -> TwoMoonsTraining:
    """The torch simulation of :func:`dynamics.starvation.train_two_moons`: the same nets, data, initialisation and
    SGD, every (run, seed) as one stacked model, on ``device``.

    Linear(2, hidden) → ReLU → Linear(hidden, 1) with PyTorch's default (uniform) initialisation, the same
    initialisation for every run of one seed; full-batch ``torch.optim.SGD`` with momentum and weight decay on the
    mean cross-entropy plus (a/2)·mean(ŷ²) (Spectral Decoupling, a = the run's ``output_penalty``). The gradients
    are the closed-form backward pass of this net in batched matrix products (checked against autograd in the
    tests); the input-gradient ratio is taken by autograd.

    Parameters
    ----------
    config : TwoMoonsConfig
        The settings, the same object :func:`dynamics.starvation.train_two_moons` takes (one set-up function checks
        them for both; default: Fig 1's, :meth:`~dynamics.starvation.TwoMoonsConfig.source`).
    seeds : sequence of (int or numpy.random.Generator)
        One model per seed and run; a seed draws its data (300 points, noise_std 0.1) and its initialisation.
    %(device)s

    Returns
    -------
    TwoMoonsTraining

    Examples
    --------
    >>> out = train_two_moons(TwoMoonsConfig(n_steps=4, hidden=8, record_every=2), seeds=(0,), device="cpu")
    >>> out.steps.tolist(), out.z.shape, out.gradient_ratio.shape
    ([0, 2, 4], (3, 3, 1, 300), (3, 1))
    """
    setup = moons_setup(config, seeds)
    X, y, penalty = (as_tensor(setup[key], device) for key in ("X", "y", "penalty"))
    params = [as_tensor(p, device) for p in setup["params"]]

    def with_ones(Xb):
        return torch.cat([Xb, torch.ones_like(Xb[..., :1])], dim=-1)

    def activations(X_aug, W1, b1):  # relu([x 1] [W₁ b₁]ᵀ): one product of inner size 3 (faster than baddbmm)
        return torch.bmm(X_aug, torch.cat([W1, b1[..., None]], dim=-1).transpose(1, 2)).clamp_min_(0.0)

    def forward(Xb, W1, b1, w2, b2):
        return torch.bmm(activations(with_ones(Xb), W1, b1), w2[:, :, None])[..., 0] + b2[:, None]

    # Full-batch gradients by hand (the autograd graph cost three times the arithmetic here), given to torch's own
    # SGD. With a = relu(XW₁ᵀ + b₁) and g_i = ∂loss/∂ŷ_i: ∂/∂w₂ = aᵀg, ∂/∂b₂ = Σg, and, as 1[a > 0] = sign(a),
    # ∂/∂[W₁ b₁]_h = w₂_h Σ_i sign(a_ih) g_i [x_i 1]: one matrix product over the samples instead of an (n, hidden)
    # mask times the outer product g w₂ᵀ.
    X_aug = with_ones(X)
    optimiser = torch.optim.SGD(params, lr=setup["learning_rate"], momentum=setup["momentum"],
                                weight_decay=setup["weight_decay"])
    recorded = set(setup["steps"].tolist())
    history = []
    n_steps = int(setup["steps"][-1])
    for step in range(n_steps + 1):
        W1, b1, w2, b2 = params
        act = activations(X_aug, W1, b1)
        logits = torch.bmm(act, w2[:, :, None])[..., 0] + b2[:, None]
        if step in recorded:
            history.append(to_numpy(logits))
        if step == n_steps:
            break
        # loss = mean softplus(-yŷ) + (a/2) mean ŷ², so n ∂loss/∂ŷ = -y σ(-yŷ) + a ŷ
        g = (penalty[:, None] * logits - y * torch.sigmoid(-y * logits)) / X.shape[1]
        M = torch.bmm((g[:, :, None] * X_aug).transpose(1, 2), torch.sign(act)) * w2[:, None, :]  # (B, 3, hidden)
        W1.grad, b1.grad = M[:, :2].transpose(1, 2), M[:, 2]
        w2.grad, b2.grad = torch.bmm(g[:, None, :], act)[:, 0], g.sum(dim=1)
        optimiser.step()
    Xg = X.clone().requires_grad_(True)  # the input gradients by autograd
    slopes = torch.autograd.grad(forward(Xg, *params).sum(), Xg)[0].abs().mean(dim=1)
    return moons_training(setup, [to_numpy(p) for p in params], np.array(history), to_numpy(slopes))
