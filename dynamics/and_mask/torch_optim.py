"""The AND-mask for torch models (Parascandolo et al. 2021, §2.3 and Algorithm 1; the authors' public code,
``and_mask/and_mask_utils.py::get_grads``).

* :func:`dynamics.and_mask.torch_optim.and_mask_batched`: the one torch AND-mask. The masked gradient of a
  parameter tensor from its per-environment gradients, for one model or a batch of models (leading member axes
  before the environment axis, one threshold τ per member), with the integer threshold test
  abs(Σ_e sign(g_e)) >= ⌈τd − 1e-9⌉ (sign(0) = 0) of :func:`dynamics.and_mask.and_mask` (the public code's float
  test ``mean >= τ`` flips at exact-fraction thresholds), the inverse-sparsity rescaling (per member) and the
  signed geometric mean of the public code, with the offsets ``GEOM_MEAN_OFFSET`` and ``RESCALE_OFFSET`` of
  :mod:`dynamics.and_mask._mask`. Everything else here and in the package's torch trainers calls it.
* :func:`dynamics.and_mask.torch_optim.and_mask_grad`: the masked gradient of one parameter tensor (one model;
  :func:`~dynamics.and_mask.torch_optim.and_mask_batched` without member axes).
* :class:`dynamics.and_mask.torch_optim.AndMask`: wraps any ``torch.optim.Optimizer``; ``step(env_losses)`` takes
  one loss per environment, computes each environment's gradients with ``torch.autograd.grad`` (one forward graph,
  retained), masks each parameter tensor (the rescaling is per tensor, as in the public code), writes
  ``param.grad`` and steps the inner optimizer, so that its regularisers (weight decay) act after the mask.
* :class:`dynamics.and_mask.torch_optim.TemporalAndMaskAdam`: Algorithm 1 (CoinRun): Adam moments plus an EMA of
  gradient signs a, the update masked where abs(a) < τ; no bias correction and ε inside the square root, as
  printed; decoupled weight decay as a second update after the masked step.

Using the AND-mask in your own training loop takes one change: compute one loss per environment (per domain, per
data source, or per example) instead of their mean, and hand the list to ``AndMask.step``::

    import torch
    from dynamics.and_mask.torch_optim import AndMask

    model = torch.nn.Linear(2, 1)
    optimizer = AndMask(torch.optim.SGD(model.parameters(), lr=0.1), agreement_threshold=1.0)
    for epoch in range(100):
        env_losses = [torch.nn.functional.mse_loss(model(x), y) for x, y in environments]
        info = optimizer.step(env_losses)   # masked gradients into param.grad, then one SGD step
        # info.mean_loss, info.kept_fraction: what the step did

There is no ``backward()`` and no ``zero_grad()`` to call: ``step`` computes the gradients itself and overwrites
``param.grad``. A learning-rate scheduler wraps the inner optimizer (``optimizer.optimizer``). With
``agreement_threshold=0`` the step is the ordinary step on the mean of the environment losses.

Imports torch at module level; :mod:`dynamics.and_mask` does not import this module. The step record
:class:`dynamics.and_mask.AndMaskStep` lives with the package's named results.
"""
from typing import Callable, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np
import torch

from dynamics.numerics import require_betas, require_bool, require_in_range, require_positive
from dynamics.numerics.torch_tools import closure_loss
from ._checks import require_agreement_threshold, require_n_envs
from ._mask import GEOM_MEAN_OFFSET, RESCALE_OFFSET, THRESHOLD_SLACK, sign_threshold
from ._results import AndMaskStep

__all__ = ["AndMask", "AndMaskStep", "TemporalAndMaskAdam", "and_mask_batched", "and_mask_grad"]


def and_mask_grad(per_env_grads: torch.Tensor, agreement_threshold: float, rescale: bool = False,
                  geom_mean: bool = False) -> torch.Tensor:
    """The AND-masked gradient of one parameter tensor (Parascandolo et al. 2021, §2.3; the authors' public code,
    ``get_grads``).

    The building block of :class:`dynamics.and_mask.torch_optim.AndMask`, for a loop that computes the
    per-environment gradients itself (with ``torch.func.vmap`` for instance) and wants to mask them tensor by tensor.

    Parameters
    ----------
    per_env_grads : torch.Tensor, shape ``(n_envs, *param_shape)``
        The gradients of each environment's loss with respect to the tensor, stacked along the first axis; finite.
    agreement_threshold : float
        Agreement threshold τ in [0, 1] (0: the plain mean of the environment gradients).
    rescale : bool, default False
        Divide by 1e-10 + (kept fraction of this tensor) (the public code's ``scale_grad_inverse_sparsity``).
    geom_mean : bool, default False
        Use sign(ḡ)·exp(mean_e log(abs(g_e) + 1e-10)) instead of the arithmetic mean ḡ.

    Returns
    -------
    torch.Tensor, shape ``param_shape``
        m ⊙ b (rescaled); equal to :func:`dynamics.and_mask.masked_gradient` on the flattened tensor, and to
        :func:`dynamics.and_mask.torch_optim.and_mask_batched` (which computes it).

    Examples
    --------
    >>> import torch
    >>> from dynamics.and_mask.torch_optim import and_mask_grad
    >>> g = torch.tensor([[1.0, -2.0, 0.5, 3.0], [3.0, 1.0, 0.2, 1.0]], dtype=torch.float64)  # 2 environments
    >>> and_mask_grad(g, 1.0).tolist()  # coordinate 1 disagrees in sign: masked
    [2.0, 0.0, 0.35, 2.0]

    In a training loop, with per-environment gradients from ``torch.autograd.grad``:

    >>> w = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    >>> targets = torch.tensor([[1.0, 1.0], [1.0, -1.0]], dtype=torch.float64)  # environment e pulls w to row e
    >>> for _ in range(50):
    ...     grads = torch.stack([torch.autograd.grad(((w - t) ** 2).sum() / 2, w)[0] for t in targets])
    ...     with torch.no_grad():
    ...         w -= 0.1 * and_mask_grad(grads, 1.0)
    >>> [round(x, 4) for x in w.tolist()]  # the shared direction is learnt, the contested one is left alone
    [0.9948, 0.0]
    """
    if not isinstance(per_env_grads, torch.Tensor):
        raise TypeError(f"per_env_grads must be a torch.Tensor, got {type(per_env_grads).__name__}")
    if per_env_grads.dim() < 2 or per_env_grads.shape[0] < 1:
        raise ValueError(f"per_env_grads must have shape (n_envs, *param_shape) with n_envs >= 1, got "
                         f"{tuple(per_env_grads.shape)}")
    return and_mask_batched(per_env_grads, agreement_threshold, rescale, geom_mean, env_axis=0)[0]


#: Up to this many environments the sign sum is exact in each dtype (the integers of its significand); beyond, float64.
_EXACT_SIGN_SUM = {torch.float64: 2 ** 53, torch.float32: 2 ** 24, torch.float16: 2 ** 11, torch.bfloat16: 2 ** 8}


def _sign_sums(g: torch.Tensor, dim: int) -> torch.Tensor:
    """S = Σ sign(g) = #positive − #negative along ``dim`` (sign(0) = 0), as int64: the torch layer's one count of
    signs. Summed as floats (in torch several times faster than counting booleans), exactly: every partial sum is
    an integer of at most the number of terms, within the dtype's exact range (else summed in float64)."""
    exact = g.shape[dim] <= _EXACT_SIGN_SUM.get(g.dtype, 0)
    return torch.sign(g).sum(dim=dim, dtype=None if exact else torch.float64).to(torch.int64)


def _member_sign_thresholds(agreement_threshold, n_envs, members, param_ndim, device):
    """The integer threshold T(d, τ): a Python int for one τ (:func:`dynamics.and_mask.sign_threshold`), else an
    int64 tensor of shape ``members + (1,) * param_ndim``, one per member, computed as ``sign_threshold`` computes
    it (⌈τd − 1e-9⌉, at least 0, in float64)."""
    if isinstance(agreement_threshold, torch.Tensor) and agreement_threshold.dim() == 0:
        agreement_threshold = agreement_threshold.item()
    if not isinstance(agreement_threshold, (torch.Tensor, np.ndarray, list, tuple)):
        return sign_threshold(n_envs, agreement_threshold)
    if isinstance(agreement_threshold, (list, tuple)):
        try:
            agreement_threshold = np.asarray(agreement_threshold)
        except ValueError as exc:  # ragged
            raise ValueError(f"agreement_threshold must be a number or a flat sequence of numbers, got "
                             f"{agreement_threshold!r}") from exc
    dtype = agreement_threshold.dtype
    if (dtype == torch.bool or dtype.is_complex) if isinstance(dtype, torch.dtype) else dtype.kind not in "iuf":
        raise ValueError(f"agreement_threshold must hold real numbers, got dtype {dtype}")
    tau = torch.as_tensor(agreement_threshold, dtype=torch.float64, device=device)
    if tau.dim() == 0:
        return sign_threshold(n_envs, tau.item())
    if tuple(tau.shape) != members:
        raise ValueError(f"agreement_threshold must be a number or hold one τ per member, shape {members} (the axes "
                         f"of per_env_grads before env_axis), got shape {tuple(tau.shape)}")
    if not bool(((tau >= 0.0) & (tau <= 1.0)).all()):
        raise ValueError("agreement_threshold must be in [0, 1] for every member (NaN is refused)")
    thresholds = torch.ceil(tau * require_n_envs(n_envs) - THRESHOLD_SLACK).clamp(min=0.0).to(torch.int64)
    return thresholds.view(members + (1,) * param_ndim)


def and_mask_batched(per_env_grads: torch.Tensor, agreement_threshold: Union[float, Sequence[float], torch.Tensor],
                     rescale: bool = False, geom_mean: bool = False, *,
                     env_axis: int = 0) -> Tuple[torch.Tensor, torch.Tensor]:
    """The AND-masked gradient of one parameter tensor, for one model or a batch of models (Parascandolo et al.
    2021, §2.3; the authors' public code, ``get_grads``): the one torch AND-mask of the package.

    The axes of ``per_env_grads`` before ``env_axis`` index members (models trained side by side, each with its own
    threshold τ), the axis ``env_axis`` indexes the environments and the axes after it are the parameter tensor.
    A member keeps entry j iff abs(Σ_e sign(g_ej)) >= ⌈τd − 1e-9⌉ with sign(0) = 0 (the integer test of
    :func:`dynamics.and_mask.and_mask`); the kept entries get the mean ḡ (or the signed geometric mean
    sign(ḡ)·exp(mean_e log(abs(g_e) + GEOM_MEAN_OFFSET))), and with ``rescale`` each member's update is divided by
    RESCALE_OFFSET + (the fraction of its own tensor kept). A member's result does not depend on the other members.

    Parameters
    ----------
    per_env_grads : torch.Tensor, shape ``(*members, n_envs, *param_shape)``
        Floating point, finite; ``members`` are the ``env_axis`` leading axes (none by default) and ``param_shape``
        may be empty.
    agreement_threshold : float, or sequence of float or torch.Tensor of shape ``members``
        Agreement threshold τ in [0, 1], one for all members or one per member (converted to float64).
    rescale : bool, default False
        Divide each member's update by 1e-10 + (the kept fraction of its tensor) (the public code's
        ``scale_grad_inverse_sparsity``).
    geom_mean : bool, default False
        Use the signed geometric mean of the magnitudes instead of the arithmetic mean ḡ.
    env_axis : int, default 0
        Keyword only. The axis of ``per_env_grads`` that indexes the environments (negative counts from the end).

    Returns
    -------
    update : torch.Tensor, shape ``(*members, *param_shape)``
        m ⊙ b (rescaled), in the dtype of ``per_env_grads``; a member alone gives
        :func:`dynamics.and_mask.torch_optim.and_mask_grad` bitwise.
    mask : torch.Tensor of bool, shape ``(*members, *param_shape)``
        The AND-mask m.

    Raises
    ------
    TypeError
        If ``per_env_grads`` is not a tensor, or ``rescale`` or ``geom_mean`` is not a bool.
    ValueError
        Naming the parameter: non-finite or non-floating gradients, no environments, a bad ``env_axis``, a τ outside
        [0, 1] or of the wrong shape.

    See Also
    --------
    dynamics.and_mask.masked_gradient : the same mask in numpy, one model.

    Examples
    --------
    Two models (members) with the same two environments' gradients, trained at τ = 0 and τ = 1:

    >>> import torch
    >>> from dynamics.and_mask.torch_optim import and_mask_batched
    >>> g = torch.tensor([[1.0, -2.0, 0.5, 3.0], [3.0, 1.0, 0.2, 1.0]], dtype=torch.float64)  # (n_envs, n_params)
    >>> batch = torch.stack([g, g])  # (members, n_envs, n_params)
    >>> update, mask = and_mask_batched(batch, torch.tensor([0.0, 1.0]), env_axis=1)
    >>> update.tolist()  # member 1 masks coordinate 1, whose signs disagree
    [[2.0, -0.5, 0.35, 2.0], [2.0, 0.0, 0.35, 2.0]]
    >>> mask.tolist()
    [[True, True, True, True], [True, False, True, True]]
    >>> update, _ = and_mask_batched(batch, [0.0, 1.0], rescale=True, env_axis=1)  # member 1 keeps 3 of 4
    >>> [round(x, 6) for x in update[1].tolist()]
    [2.666667, 0.0, 0.466667, 2.666667]
    """
    if not isinstance(per_env_grads, torch.Tensor):
        raise TypeError(f"per_env_grads must be a torch.Tensor, got {type(per_env_grads).__name__}")
    if not per_env_grads.is_floating_point():
        raise ValueError(f"per_env_grads must be a floating-point tensor, got dtype {per_env_grads.dtype}")
    ndim = per_env_grads.dim()
    if isinstance(env_axis, bool) or not isinstance(env_axis, (int, np.integer)) or not -ndim <= env_axis < ndim:
        raise ValueError(f"env_axis must be an integer in [{-ndim}, {ndim - 1}] for per_env_grads of shape "
                         f"{tuple(per_env_grads.shape)}, got {env_axis!r}")
    axis = int(env_axis) % ndim
    n_envs = per_env_grads.shape[axis]
    if n_envs < 1:
        raise ValueError(f"per_env_grads must hold at least 1 environment along env_axis={env_axis}, got shape "
                         f"{tuple(per_env_grads.shape)}")
    rescale, geom_mean = require_bool("rescale", rescale), require_bool("geom_mean", geom_mean)
    g = per_env_grads
    device = g.device  # computed where the gradients live
    members, param_ndim = tuple(g.shape[:axis]), ndim - axis - 1
    threshold = _member_sign_thresholds(agreement_threshold, n_envs, members, param_ndim, device)
    if not bool(torch.isfinite(g.mean(dim=axis)).all()):  # a NaN or ±inf entry makes its mean non-finite
        raise ValueError("per_env_grads must be finite (and small enough to average in their dtype)")
    return _and_mask(g, threshold, rescale, geom_mean, axis)


def _and_mask(g, threshold, rescale, geom_mean, axis):
    """The AND-mask of :func:`and_mask_batched` on checked input: ``threshold`` an int or an int64 tensor shaped
    ``members + (1,) * param_ndim``. The batched trainers call it every step with thresholds computed once."""
    members, param_ndim = tuple(g.shape[:axis]), g.dim() - axis - 1
    mean = g.mean(dim=axis)
    mask = _sign_sums(g, axis).abs() >= threshold
    if geom_mean:
        base = torch.sign(mean) * torch.exp(torch.log(g.abs() + GEOM_MEAN_OFFSET).mean(dim=axis))
    else:
        base = mean
    update = torch.where(mask, base, torch.zeros_like(base))
    if rescale:
        kept = mask.to(g.dtype)
        if members:  # the kept fraction of each member's own tensor
            kept = kept.reshape(members + (-1,)).mean(dim=-1).view(members + (1,) * param_ndim)
        else:
            kept = kept.mean()
        update = update / (RESCALE_OFFSET + kept)
    return update, mask


class AndMask:
    """Apply the AND-mask to the per-environment gradients of a torch model, then step an optimizer
    (Parascandolo et al. 2021, §2.3; the authors' public code, ``get_grads``).

    Each call of :meth:`step` takes one scalar loss per environment, computes every environment's gradient of every
    parameter tensor with ``torch.autograd.grad``, keeps an entry only where at least a fraction τ of the
    environments agree on its sign (``abs(Σ_e sign(g_e)) >= ⌈τd − 1e-9⌉``), writes the masked mean gradient into
    ``param.grad`` and steps the inner optimizer. ``agreement_threshold=0`` gives the ordinary step on the mean of
    the environment losses, so the same loop trains both.

    Parameters
    ----------
    optimizer : torch.optim.Optimizer
        The inner optimizer (SGD, Adam, ...) over the model's parameters; its weight decay acts after the mask, as
        in the public code. A learning-rate scheduler is attached to this optimizer.
    agreement_threshold : float
        Agreement threshold τ in [0, 1] (0: plain averaging of the environment gradients; 1: all environments must
        agree).
    rescale : bool, default False
        Per-tensor inverse-sparsity rescaling (the public code's ``scale_grad_inverse_sparsity``): the kept entries
        of a tensor are divided by the fraction kept, so a sparse mask does not shrink the step.
    geom_mean : bool, default False
        The public code's ``method="geom_mean"``: the kept entries get the signed geometric mean of the magnitudes
        instead of the arithmetic mean.

    Attributes
    ----------
    optimizer : torch.optim.Optimizer
        The inner optimizer.
    agreement_threshold : float
    rescale, geom_mean : bool

    See Also
    --------
    dynamics.and_mask.torch_optim.and_mask_grad : the mask of one tensor, for loops that compute the gradients.
    dynamics.and_mask.masked_gradient : the same mask in numpy.

    Examples
    --------
    One step on a three-parameter problem with two environments:

    >>> import torch
    >>> from dynamics.and_mask.torch_optim import AndMask
    >>> w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    >>> x = torch.tensor([[1.0, 2.0, 0.0], [1.0, -2.0, 1.0]], dtype=torch.float64)
    >>> masked = AndMask(torch.optim.SGD([w], lr=0.1), agreement_threshold=1.0)
    >>> info = masked.step([((w - row) ** 2).sum() / 2 for row in x])
    >>> w.tolist(), info.kept_fraction  # only coordinate 0 has agreeing (non-zero) gradients
    ([0.1, 0.0, 0.0], 0.3333333333333333)

    A training loop: a linear model, three environments whose second feature is spurious (its correlation with
    the target flips sign from one environment to the next), trained with plain averaging (τ = 0) and with the
    AND-mask (τ = 1):

    >>> _ = torch.manual_seed(0)
    >>> environments = []
    >>> for sign in (1.0, -1.0, 1.0):
    ...     y = torch.randn(64, 1, dtype=torch.float64)
    ...     x = torch.cat([y + 0.5 * torch.randn(64, 1, dtype=torch.float64), sign * y], dim=1)
    ...     environments.append((x, y))
    >>> for tau in (0.0, 1.0):
    ...     model = torch.nn.Linear(2, 1, bias=False, dtype=torch.float64)
    ...     _ = torch.nn.init.zeros_(model.weight)
    ...     optimizer = AndMask(torch.optim.SGD(model.parameters(), lr=0.1), agreement_threshold=tau)
    ...     for step in range(200):
    ...         info = optimizer.step([torch.nn.functional.mse_loss(model(x), y) for x, y in environments])
    ...     print(f"τ = {tau:g}: weights {[round(v, 2) for v in model.weight.flatten().tolist()]}")
    τ = 0: weights [0.76, 0.06]
    τ = 1: weights [0.75, 0.0]
    """

    def __init__(self, optimizer: torch.optim.Optimizer, agreement_threshold: float, rescale: bool = False,
                 geom_mean: bool = False) -> None:
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
        self.optimizer = optimizer
        self.agreement_threshold = require_agreement_threshold(agreement_threshold)
        self.rescale = require_bool("rescale", rescale)
        self.geom_mean = require_bool("geom_mean", geom_mean)

    @property
    def params(self) -> List[torch.Tensor]:
        """The inner optimizer's parameters that require gradients, in optimizer order."""
        return [p for group in self.optimizer.param_groups for p in group["params"] if p.requires_grad]

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear the inner optimizer's gradients (not needed between steps: :meth:`step` overwrites ``param.grad``).

        Parameters
        ----------
        set_to_none : bool, default True
            Passed to ``torch.optim.Optimizer.zero_grad``.
        """
        self.optimizer.zero_grad(set_to_none=set_to_none)

    def masked_gradients(self, env_losses: Sequence[torch.Tensor]) -> AndMaskStep:
        """Compute the masked gradients of ``env_losses`` into ``param.grad``, without stepping.

        Each environment's gradients come from one ``torch.autograd.grad`` call (the graph is retained between
        calls), as in the public code. Use it to inspect or clip the masked gradients before stepping the inner
        optimizer yourself.

        Parameters
        ----------
        env_losses : sequence of torch.Tensor
            One scalar loss per environment (at least one), each depending on the parameters.

        Returns
        -------
        AndMaskStep
            The mean of the losses, the fraction of parameter entries kept and the mask of each tensor.
        """
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
            One tensor per parameter (optimizer order), of shape ``(n_envs, *param.shape)``.

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
        masks = []
        for p, stacked in zip(params, env_grads):
            if tuple(stacked.shape) != (n_envs,) + tuple(p.shape):
                raise ValueError(f"env_grads entries must have shape (n_envs, *param.shape) = "
                                 f"{(n_envs,) + tuple(p.shape)}, got {tuple(stacked.shape)}")
            if not bool(torch.isfinite(stacked).all()):
                raise ValueError("the environments' gradients must be finite (a loss is inf or NaN, or diverged)")
            update, mask = and_mask_batched(stacked.detach(), self.agreement_threshold, self.rescale, self.geom_mean)
            p.grad = update
            masks.append(mask)
        kept = float(sum(m.sum() for m in masks))
        total = sum(m.numel() for m in masks)
        return AndMaskStep(float("nan"), kept / max(total, 1), masks)

    def step(self, env_losses: Sequence[torch.Tensor]) -> AndMaskStep:
        """Masked gradients of ``env_losses`` into ``param.grad``, then one step of the inner optimizer.

        Parameters
        ----------
        env_losses : sequence of torch.Tensor
            One scalar loss per environment (at least one), each depending on the parameters.

        Returns
        -------
        AndMaskStep
            The mean of the losses (before the step), the fraction of parameter entries kept and the masks.
        """
        info = self.masked_gradients(env_losses)
        self.optimizer.step()
        return info

    def step_from_gradients(self, env_grads: Sequence[torch.Tensor]) -> AndMaskStep:
        """:meth:`masked_from_gradients`, then one step of the inner optimizer.

        Parameters
        ----------
        env_grads : sequence of torch.Tensor
            One tensor per parameter (optimizer order), of shape ``(n_envs, *param.shape)``.

        Returns
        -------
        AndMaskStep
            ``mean_loss`` is NaN (no losses were given).
        """
        info = self.masked_from_gradients(env_grads)
        self.optimizer.step()
        return info


class TemporalAndMaskAdam(torch.optim.Optimizer):
    """Adam with the temporal AND-mask of Algorithm 1 of Parascandolo et al. 2021 (§3.3, CoinRun).

    Per parameter entry, with the mini-batch gradient g of the current step:
    m ← β1 m + (1 − β1) g;  v ← β2 v + (1 − β2) g²;  a ← β3 a + (1 − β3) sign(g);  b = 1[abs(a) >= τ];
    θ ← θ − α (m ∘ b)/√(v + ε); then, as a separate update, θ ← θ − α·λ·θ (weight decay after the mask).
    As printed: no bias correction, ε inside the square root, m = v = a = 0 at the start.

    Here the environments are the successive mini-batches (in the paper, one level of the game per step): the
    mask keeps an entry whose gradient sign has been consistent over the recent steps. It is a
    ``torch.optim.Optimizer`` and is used like Adam (``zero_grad``, ``backward``, ``step``).

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
        Threshold τ in [0, 1] on abs(a) (Table 3, row 1).
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
    >>> [round(x, 4) for x in w.tolist()]  # abs(a) = 0.5 >= 0.4: both move by 0.1·0.1/√(0.001) = 0.3162
    [0.6838, 1.3162]
    """

    def __init__(self, params: Iterable, learning_rate: float = 1e-3, betas: Tuple[float, float] = (0.9, 0.999),
                 sign_decay: float = 0.79, agreement_threshold: float = 0.36, eps: float = 1e-8,
                 weight_decay: float = 0.0) -> None:
        learning_rate = require_positive("learning_rate", learning_rate)
        beta1, beta2 = require_betas(betas)
        sign_decay = require_in_range("sign_decay", sign_decay, 0.0, 1.0, high_open=True)
        agreement_threshold = require_agreement_threshold(agreement_threshold)
        eps = require_positive("eps", eps)
        weight_decay = require_positive("weight_decay", weight_decay, allow_zero=True)
        super().__init__(params, dict(lr=learning_rate, betas=(beta1, beta2), sign_decay=sign_decay,
                                      agreement_threshold=agreement_threshold, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure: Optional[Callable[[], torch.Tensor]] = None) -> Optional[torch.Tensor]:
        """One masked Adam step on the gradients in ``param.grad``.

        Parameters
        ----------
        closure : callable, optional
            Re-evaluates the model and returns the loss, as for any ``torch.optim`` optimizer.

        Returns
        -------
        torch.Tensor or None
            The closure's loss, or None.
        """
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
