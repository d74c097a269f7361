"""The AND-mask for torch models (spec/and_mask.md §4.2-§4.3, §9; paper §2.3 and Algorithm 1; public code
``and_mask/and_mask_utils.py::get_grads``).

* :func:`and_mask_grad`: the masked gradient of one parameter tensor from its per-environment gradients, with the
  integer threshold test |Σ_e sign(g_e)| >= ⌈τd − 1e-9⌉ (sign(0) = 0) of :func:`dynamics.and_mask.and_mask`
  (the public code's float test ``mean >= τ`` flips at exact-fraction thresholds), the inverse-sparsity rescaling
  and the signed geometric mean of the public code.
* :class:`AndMask`: wraps any ``torch.optim.Optimizer``; ``step(env_losses)`` takes one loss per environment,
  computes each environment's gradients with ``torch.autograd.grad`` (one forward graph, retained), masks each
  parameter tensor (the rescaling is per tensor, as in the public code), writes ``param.grad`` and steps the inner
  optimizer, so that its regularisers (weight decay) act after the mask.
* :class:`TemporalAndMaskAdam`: Algorithm 1 (CoinRun): Adam moments plus an EMA of gradient signs a, the update
  masked where |a| < τ; no bias correction and ε inside the square root, as printed; decoupled weight decay as a
  second update after the masked step.

Imports torch at module level; :mod:`dynamics.and_mask` does not import this module. The step record
:class:`~dynamics.and_mask.AndMaskStep` lives with the package's named results.
"""
from typing import List, Sequence

import torch

from dynamics.numerics import require_betas, require_bool, require_in_range, require_positive
from dynamics.numerics.torch_tools import closure_loss
from ._checks import require_agreement_threshold
from ._mask import GEOM_MEAN_OFFSET, RESCALE_OFFSET, sign_threshold
from ._results import AndMaskStep

__all__ = ["AndMask", "AndMaskStep", "TemporalAndMaskAdam", "and_mask_grad"]


def and_mask_grad(per_env_grads, agreement_threshold, rescale=False, geom_mean=False) -> torch.Tensor:
    """The AND-masked gradient of one parameter tensor (spec §1, §4.2, §9; public code ``get_grads``).

    Parameters
    ----------
    per_env_grads : torch.Tensor, shape (n_envs, *param_shape)
        The gradients of each environment's loss with respect to the tensor; finite.
    agreement_threshold : float
        Agreement threshold τ in [0, 1].
    rescale : bool, default False
        Divide by 1e-10 + (kept fraction of this tensor) (``scale_grad_inverse_sparsity``).
    geom_mean : bool, default False
        Use sign(ḡ)·exp(mean_e log(|g_e| + 1e-10)) instead of the arithmetic mean ḡ.

    Returns
    -------
    torch.Tensor, shape param_shape
        m ⊙ b (rescaled); equal to :func:`dynamics.and_mask.masked_gradient` on the flattened tensor.

    Examples
    --------
    >>> g = torch.tensor([[1.0, -2.0, 0.5, 3.0], [3.0, 1.0, 0.2, 1.0]], dtype=torch.float64)
    >>> and_mask_grad(g, 1.0).tolist()
    [2.0, 0.0, 0.35, 2.0]
    """
    if not isinstance(per_env_grads, torch.Tensor):
        raise TypeError(f"per_env_grads must be a torch.Tensor, got {type(per_env_grads).__name__}")
    if per_env_grads.dim() < 2 or per_env_grads.shape[0] < 1:
        raise ValueError(f"per_env_grads must have shape (n_envs, *param_shape) with n_envs >= 1, got "
                         f"{tuple(per_env_grads.shape)}")
    if not bool(torch.isfinite(per_env_grads).all()):
        raise ValueError("per_env_grads must be finite")
    rescale, geom_mean = require_bool("rescale", rescale), require_bool("geom_mean", geom_mean)
    threshold = sign_threshold(per_env_grads.shape[0], require_agreement_threshold(agreement_threshold))
    return _masked(per_env_grads, threshold, rescale, geom_mean)[0]


def _masked(g, threshold, rescale, geom_mean):
    """(update, mask) for checked arguments."""
    mask = ((g > 0).sum(dim=0) - (g < 0).sum(dim=0)).abs() >= threshold  # integer sign sums, sign(0) = 0
    mean = g.mean(dim=0)
    base = torch.sign(mean) * torch.exp(torch.log(g.abs() + GEOM_MEAN_OFFSET).mean(dim=0)) if geom_mean else mean
    update = torch.where(mask, base, torch.zeros_like(base))
    if rescale:
        update = update / (RESCALE_OFFSET + mask.to(g.dtype).mean())
    return update, mask


class AndMask:
    """Apply the AND-mask to the per-environment gradients of a torch model, then step an optimizer (spec §4.2).

    Parameters
    ----------
    optimizer : torch.optim.Optimizer
        The inner optimizer (SGD, Adam, ...) over the model's parameters; its weight decay acts after the mask, as
        in the public code.
    agreement_threshold : float
        Agreement threshold τ in [0, 1] (0: plain averaging of the environment gradients).
    rescale : bool, default False
        Per-tensor inverse-sparsity rescaling (the public code's ``scale_grad_inverse_sparsity``).
    geom_mean : bool, default False
        The public code's ``method="geom_mean"``.

    Examples
    --------
    >>> w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    >>> x = torch.tensor([[1.0, 2.0, 0.0], [1.0, -2.0, 1.0]], dtype=torch.float64)
    >>> masked = AndMask(torch.optim.SGD([w], lr=0.1), agreement_threshold=1.0)
    >>> info = masked.step([((w - row) ** 2).sum() / 2 for row in x])
    >>> w.tolist(), info.kept_fraction  # only coordinate 0 has agreeing (non-zero) gradients
    ([0.1, 0.0, 0.0], 0.3333333333333333)
    """

    def __init__(self, optimizer, agreement_threshold, rescale=False, geom_mean=False):
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
        self.optimizer = optimizer
        self.agreement_threshold = require_agreement_threshold(agreement_threshold)
        self.rescale = require_bool("rescale", rescale)
        self.geom_mean = require_bool("geom_mean", geom_mean)

    @property
    def params(self) -> List[torch.Tensor]:
        return [p for group in self.optimizer.param_groups for p in group["params"] if p.requires_grad]

    def zero_grad(self, set_to_none=True) -> None:
        self.optimizer.zero_grad(set_to_none=set_to_none)

    def masked_gradients(self, env_losses: Sequence[torch.Tensor]) -> AndMaskStep:
        """Compute the masked gradients of ``env_losses`` (one scalar per environment) into ``param.grad``.

        Each environment's gradients come from one ``torch.autograd.grad`` call (the graph is retained between
        calls), as in the public code."""
        losses = list(env_losses)
        if not losses:
            raise ValueError("env_losses must hold at least 1 environment's loss")
        params = self.params
        per_param = [[] for _ in params]
        for i, loss in enumerate(losses):
            grads = torch.autograd.grad(loss, params, retain_graph=i < len(losses) - 1, allow_unused=True)
            for bucket, p, g in zip(per_param, params, grads):
                bucket.append(torch.zeros_like(p) if g is None else g)
        info = self.masked_from_gradients([torch.stack(grads) for grads in per_param])
        return info._replace(mean_loss=float(torch.stack([loss.detach() for loss in losses]).mean()))

    def masked_from_gradients(self, env_grads: Sequence[torch.Tensor]) -> AndMaskStep:
        """Mask precomputed per-environment gradients into ``param.grad`` (e.g. from ``torch.func.vmap(grad)``).

        Parameters
        ----------
        env_grads : sequence of torch.Tensor
            One tensor per parameter (optimizer order), of shape (n_envs, *param.shape).

        Returns
        -------
        AndMaskStep
            ``mean_loss`` is NaN here (no losses were given).
        """
        params = self.params
        env_grads = list(env_grads)
        if len(env_grads) != len(params):
            raise ValueError(f"env_grads must hold one tensor per parameter ({len(params)}), got {len(env_grads)}")
        n_envs = env_grads[0].shape[0] if env_grads else 0
        if n_envs < 1:
            raise ValueError("env_grads must hold at least 1 environment")
        threshold = sign_threshold(n_envs, self.agreement_threshold)
        masks = []
        for p, stacked in zip(params, env_grads):
            if tuple(stacked.shape) != (n_envs,) + tuple(p.shape):
                raise ValueError(f"env_grads entries must have shape (n_envs, *param.shape) = "
                                 f"{(n_envs,) + tuple(p.shape)}, got {tuple(stacked.shape)}")
            if not bool(torch.isfinite(stacked).all()):
                raise ValueError("the environments' gradients must be finite (a loss is inf or NaN, or diverged)")
            update, mask = _masked(stacked.detach(), threshold, self.rescale, self.geom_mean)
            p.grad = update
            masks.append(mask)
        kept = float(sum(m.sum() for m in masks))
        total = sum(m.numel() for m in masks)
        return AndMaskStep(float("nan"), kept / max(total, 1), masks)

    def step(self, env_losses: Sequence[torch.Tensor]) -> AndMaskStep:
        """Masked gradients of ``env_losses`` into ``param.grad``, then one step of the inner optimizer."""
        info = self.masked_gradients(env_losses)
        self.optimizer.step()
        return info

    def step_from_gradients(self, env_grads: Sequence[torch.Tensor]) -> AndMaskStep:
        """:meth:`masked_from_gradients`, then one step of the inner optimizer."""
        info = self.masked_from_gradients(env_grads)
        self.optimizer.step()
        return info


class TemporalAndMaskAdam(torch.optim.Optimizer):
    """Adam with the temporal AND-mask of Algorithm 1 (paper §3.3, CoinRun; spec §4.3).

    Per parameter entry, with the mini-batch gradient g of the current step:
    m ← β1 m + (1 − β1) g;  v ← β2 v + (1 − β2) g²;  a ← β3 a + (1 − β3) sign(g);  b = 1[|a| >= τ];
    θ ← θ − α (m ∘ b)/√(v + ε); then, as a separate update, θ ← θ − α·λ·θ (weight decay after the mask).
    As printed: no bias correction, ε inside the square root, m = v = a = 0 at the start.

    Parameters
    ----------
    params : iterable
        Parameters or parameter groups.
    learning_rate : float, default 1e-3
        α > 0.
    betas : tuple of float, default (0.9, 0.999)
        (β1, β2) in [0, 1).
    sign_decay : float, default 0.79
        β3 in [0, 1) (Table 3, row 1).
    agreement_threshold : float, default 0.36
        Threshold τ in [0, 1] on |a| (Table 3, row 1).
    eps : float, default 1e-8
        ε > 0 inside the square root.
    weight_decay : float, default 0
        λ >= 0 of the decoupled decay.

    Examples
    --------
    >>> w = torch.ones(2, dtype=torch.float64, requires_grad=True)
    >>> opt = TemporalAndMaskAdam([w], learning_rate=0.1, sign_decay=0.5, agreement_threshold=0.4)
    >>> (w * torch.tensor([1.0, -1.0], dtype=torch.float64)).sum().backward()
    >>> opt.step()
    >>> [round(x, 4) for x in w.tolist()]  # |a| = 0.5 >= 0.4: both move by 0.1·0.1/√(0.001) = 0.3162
    [0.6838, 1.3162]
    """

    def __init__(self, params, learning_rate=1e-3, betas=(0.9, 0.999), sign_decay=0.79, agreement_threshold=0.36, eps=1e-8,
                 weight_decay=0.0):
        learning_rate = require_positive("learning_rate", learning_rate)
        beta1, beta2 = require_betas(betas)
        sign_decay = require_in_range("sign_decay", sign_decay, 0.0, 1.0, high_open=True)
        agreement_threshold = require_agreement_threshold(agreement_threshold)
        eps = require_positive("eps", eps)
        weight_decay = require_positive("weight_decay", weight_decay, allow_zero=True)
        super().__init__(params, dict(lr=learning_rate, betas=(beta1, beta2), sign_decay=sign_decay, agreement_threshold=agreement_threshold, eps=eps,
                                      weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        loss = closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            beta3, agreement_threshold, lr = group["sign_decay"], group["agreement_threshold"], group["lr"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad
                state = self.state[p]
                if not state:
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                    state["sign_ema"] = torch.zeros_like(p)
                m, v, a = state["exp_avg"], state["exp_avg_sq"], state["sign_ema"]
                m.mul_(beta1).add_(g, alpha=1.0 - beta1)
                v.mul_(beta2).addcmul_(g, g, value=1.0 - beta2)
                a.mul_(beta3).add_(torch.sign(g), alpha=1.0 - beta3)
                keep = (a.abs() >= agreement_threshold).to(p.dtype)
                p.addcdiv_(m * keep, torch.sqrt(v + group["eps"]), value=-lr)
                if group["weight_decay"] != 0.0:
                    p.mul_(1.0 - lr * group["weight_decay"])
        return loss
