"""torch.optim versions of the thesis's Adam variants (Roburin (thesis), Eqs 3.67-3.81, Algorithm 1) and of AdaGradG
(Eq 3.48, Theorem 4), with per-filter inner products.

* :class:`dynamics.spherical.torch_optim.AdamS` (Adam w/o (a)), :class:`dynamics.spherical.torch_optim.AdamST` (w/o
  (ab), S + T on m), :class:`dynamics.spherical.torch_optim.AdamSRT` (w/o (abc), Algorithm 1) and the reference code's
  :class:`dynamics.spherical.torch_optim.AdamG` (scalar v without 1/d, T on m, renormalisation);
* :class:`dynamics.spherical.torch_optim.AdaGradG`: one scalar v per filter, filters kept on the unit sphere.

Grouping: with ``channel_wise=True`` each slice along dim 0 of a parameter (one conv filter C×K×K, one row of
a Linear) is one radially invariant group of dimension d = numel/shape[0]; ``channel_dims`` (a list of dims)
generalises this as in the reference code; ``channel_wise=False`` and ``channel_dims=None`` give element-wise
Adam(+L2) for the non-invariant parameters. v stores the per-group *mean* of g̃² (the 1/d of Eq 3.69). ε sits
outside the square root; bias corrections use t = state['step'], incremented before use. ``p.grad`` is never
modified in place. The learning rate is the constructor's ``learning_rate``; param groups keep torch's key
``"lr"`` so that ``torch.optim.lr_scheduler`` works.

This module imports torch; :mod:`dynamics.spherical` does not import it.
"""
try:
    import torch
except ImportError as exc:  # pragma: no cover - exercised by a test that hides torch
    raise ImportError("dynamics.spherical.torch_optim needs torch (pip install torch, or the project's [torch] "
                      "extra); the rest of dynamics.spherical works without it") from exc

import math

from dynamics.numerics.torch_tools import closure_loss
from dynamics.numerics import require_in_range, require_integer, require_positive
from ._checks import require_adam_arguments

__all__ = ["AdaGradG", "AdamG", "AdamS", "AdamSRT", "AdamST"]


def _layout(shape, channel_dims):
    """The permutation putting ``channel_dims`` first, and (n_channels, d) of the grouped matrix."""
    ndim = len(shape)
    dims = [require_integer("channel_dims entry", c, -ndim, ndim - 1) % ndim for c in channel_dims]
    if len(set(dims)) != len(dims):
        raise ValueError(f"channel_dims must not repeat a dimension, got {channel_dims}")
    rest = [i for i in range(ndim) if i not in dims]
    n_channels = math.prod(shape[i] for i in dims)
    return dims + rest, n_channels, math.prod(shape[i] for i in rest)


def _to_groups(tensor, perm, n_channels, d):
    return tensor.permute(perm).reshape(n_channels, d)


def _from_groups(matrix, shape, perm):
    permuted_shape = [shape[i] for i in perm]
    inverse = [perm.index(i) for i in range(len(perm))]
    return matrix.reshape(permuted_shape).permute(inverse)


class _SphericalAdam(torch.optim.Optimizer):
    _variant = "S"  # "S", "ST", "SRT" or "G"

    def __init__(self, params, learning_rate=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, channel_wise=False,
                 channel_dims=None):
        learning_rate, betas, eps, weight_decay = require_adam_arguments(learning_rate, betas, eps, weight_decay)
        if not isinstance(channel_wise, bool):
            raise TypeError(f"channel_wise must be True or False, got {channel_wise!r}")
        defaults = dict(lr=learning_rate, betas=betas, eps=eps, weight_decay=weight_decay, channel_wise=channel_wise,
                        channel_dims=None if channel_dims is None else list(channel_dims))
        super().__init__(params, defaults)

    @staticmethod
    def _channel_dims(group, p):
        if group["channel_dims"] is not None:
            return list(group["channel_dims"])
        if group["channel_wise"] and p.dim() >= 2:
            return [0]
        return None

    @torch.no_grad()
    def step(self, closure=None):
        """One step of every parameter with a gradient; returns the closure's loss (if given)."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                dims = self._channel_dims(group, p)
                if weight_decay and not (self._variant == "G" and dims is not None):  # AdamG: none on the sphere
                    grad = grad.add(p, alpha=weight_decay)  # a new tensor: p.grad stays as it was
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    if dims is None:
                        state["exp_avg_sq"] = torch.zeros_like(p)
                    else:
                        _, n_channels, _ = _layout(p.shape, dims)
                        state["exp_avg_sq"] = torch.zeros(n_channels, dtype=p.dtype, device=p.device)
                state["step"] += 1
                t = state["step"]
                c1, c2 = 1.0 - beta1 ** t, 1.0 - beta2 ** t
                if dims is None:  # element-wise Adam (+L2) for non-invariant parameters
                    state["exp_avg"].mul_(beta1).add_(grad, alpha=1.0 - beta1)
                    state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1.0 - beta2)
                    denom = (state["exp_avg_sq"] / c2).sqrt_().add_(eps)
                    p.addcdiv_(state["exp_avg"], denom, value=-lr / c1)
                    continue
                self._grouped_step(p, grad, state, dims, lr, beta1, beta2, eps, c1, c2)
        return loss

    def _grouped_step(self, p, grad, state, dims, lr, beta1, beta2, eps, c1, c2):
        perm, n_channels, d = _layout(p.shape, dims)
        x = _to_groups(p, perm, n_channels, d)
        g = _to_groups(grad, perm, n_channels, d)
        m = beta1 * _to_groups(state["exp_avg"], perm, n_channels, d) + (1.0 - beta1) * g
        square = (g * g).sum(dim=1) if self._variant == "G" else (g * g).mean(dim=1)
        v = beta2 * state["exp_avg_sq"] + (1.0 - beta2) * square
        denom = (v / c2).sqrt() + eps
        x_new = x - (lr / c1) * m / denom[:, None]
        if self._variant == "ST":
            norms = x.norm(dim=1) * x_new.norm(dim=1)
            cosine = (x * x_new).sum(dim=1) / norms
            along = (m * x_new).sum(dim=1) / x_new.norm(dim=1)
            m = cosine[:, None] * m - (along / x.norm(dim=1))[:, None] * x
        elif self._variant == "SRT":
            new_sq = (x_new * x_new).sum(dim=1) + eps
            m = ((x_new * x).sum(dim=1)[:, None] * m - (x_new * m).sum(dim=1)[:, None] * x) / new_sq[:, None]
            v = v * (x * x).sum(dim=1) / new_sq
        elif self._variant == "G":
            new_norm = x_new.norm(dim=1)
            m = ((x_new * x).sum(dim=1)[:, None] * m - (x_new * m).sum(dim=1)[:, None] * x) / (
                x.norm(dim=1) * new_norm + eps)[:, None]
            x_new = x_new / (new_norm + eps)[:, None]
        p.copy_(_from_groups(x_new, p.shape, perm))
        state["exp_avg"].copy_(_from_groups(m, p.shape, perm))
        state["exp_avg_sq"] = v


class AdamS(_SphericalAdam):
    """Adam w/o (a) (Eqs 3.67-3.69) as a torch optimizer: one scalar second moment per filter.

    Parameters
    ----------
    params : iterable
        Parameters or param-group dicts (each key below can be overridden per group; the learning rate's key is
        torch's ``"lr"``).
    learning_rate : float
        η > 0.
    betas : (float, float)
        (β₁, β₂) in [0, 1).
    eps : float
        ε >= 0, outside the square root.
    weight_decay : float
        λ >= 0 (coupled L2, added to a copy of the gradient).
    channel_wise : bool
        Each slice along dim 0 is one radially invariant group (d = numel/shape[0]).
    channel_dims : list of int, optional
        The dims indexing the groups (default [0] with ``channel_wise``); None and ``channel_wise=False``:
        element-wise Adam.

    Examples
    --------
    >>> w = torch.nn.Parameter(torch.ones(2, 3, dtype=torch.float64))
    >>> opt = AdamS([w], learning_rate=0.1, eps=0.0, channel_wise=True)
    >>> w.grad = torch.tensor([[1.0, -1.0, 0.0], [0.0, 2.0, -2.0]], dtype=torch.float64)
    >>> opt.step()
    >>> [round(v, 5) for v in w.detach()[0].tolist()]
    [0.87753, 1.12247, 1.0]
    """

    _variant = "S"


class AdamST(_SphericalAdam):
    """Adam w/o (ab): AdamS, then m ← T(m) per filter after each step (Eq 3.70; the project's
    reading of Roburin (thesis) §3.5.2).

    Parameters are those of :class:`dynamics.spherical.torch_optim.AdamS`.

    Examples
    --------
    >>> w = torch.nn.Parameter(torch.tensor([[1.0, 0.0, 0.0]], dtype=torch.float64))
    >>> opt = AdamST([w], learning_rate=0.1, eps=0.0, channel_wise=True)
    >>> w.grad = torch.tensor([[0.0, 1.0, 0.0]], dtype=torch.float64)
    >>> opt.step()
    >>> abs(round(float((opt.state[w]["exp_avg"] * w.detach()).sum()), 15))
    0.0
    """

    _variant = "ST"


class AdamSRT(_SphericalAdam):
    """Adam w/o (abc) (Algorithm 1, Eqs 3.79-3.81): AdamS, then m ← RT(m) and v ← v‖x_k‖²/(‖x_{k+1}‖² + ε).

    Parameters are those of :class:`dynamics.spherical.torch_optim.AdamS`.

    Examples
    --------
    >>> w = torch.nn.Parameter(torch.tensor([[1.0, 0.0, 0.0]], dtype=torch.float64))
    >>> opt = AdamSRT([w], learning_rate=0.1, betas=(0.0, 0.999), eps=0.0, channel_wise=True)
    >>> for _ in range(3):
    ...     u = w.detach() / w.detach().norm()
    ...     w.grad = torch.tensor([[0.0, 1.0, 0.0]], dtype=torch.float64)
    ...     w.grad -= (w.grad * u).sum() * u / w.detach().norm()
    ...     opt.step()
    >>> round(float((w.detach() ** 2).sum()), 4)   # radius law of Adam w/o (abc): r² ≈ r₀² + η²dk = 1.09
    1.0933
    """

    _variant = "SRT"


class AdamG(_SphericalAdam):
    """The reference code's AdamG on the sphere (github.com/ymontmarin/adamsrt): v ← β₂v + (1−β₂)Σ_j g_j² per filter
    (no 1/d), m ← T(m) with the denominator ‖x‖‖x̂‖ + ε, then x ← x̂/(‖x̂‖ + ε). Weight decay is ignored for grouped
    parameters. ``channel_wise=True`` selects the spherical branch (the code's flag has the inverted meaning).

    Parameters are those of :class:`dynamics.spherical.torch_optim.AdamS`.

    Examples
    --------
    >>> w = torch.nn.Parameter(torch.tensor([[3.0, 4.0]], dtype=torch.float64))
    >>> opt = AdamG([w], learning_rate=0.1, eps=0.0, channel_wise=True)
    >>> w.grad = torch.tensor([[0.4, -0.3]], dtype=torch.float64)
    >>> opt.step()
    >>> round(float(w.detach().norm()), 12)
    1.0
    """

    _variant = "G"


class AdaGradG(torch.optim.Optimizer):
    """AdaGradG per filter (Eq 3.48, Theorem 4): x̂ = x − η∇L(x)/sqrt(v), x ← x̂/‖x̂‖, v ← βv + ‖∇L(x)‖².

    The filters (slices along ``channel_dims``, default dim 0; a 1-D tensor is one group) must be unit vectors
    at every step (within 1e-10 in float64, 1e-5 otherwise): normalise them before the first step. No bias
    correction, no ε, no weight decay.

    Parameters
    ----------
    params : iterable
        Parameters or param-group dicts (``"lr"``, ``"beta"``, ``"v0"``, ``"channel_dims"`` per group).
    learning_rate : float
        η > 0.
    beta : float
        β in [0, 1].
    v0 : float or torch.Tensor
        The initial v > 0: one value, or one per filter (shape (n_filters,)), e.g. Theorem 4's r₀⁴/(2η²√β).
    channel_dims : list of int, optional
        The dims indexing the groups.

    Examples
    --------
    >>> w = torch.nn.Parameter(torch.tensor([[1.0, 0.0]], dtype=torch.float64))
    >>> opt = AdaGradG([w], learning_rate=0.5, beta=0.9, v0=4.0)
    >>> w.grad = torch.tensor([[0.0, 2.0]], dtype=torch.float64)
    >>> opt.step()
    >>> [round(v, 6) for v in w.detach()[0].tolist()], float(opt.state[w]["v"][0])
    ([0.894427, -0.447214], 7.6)
    """

    def __init__(self, params, learning_rate, beta, v0, channel_dims=None):
        learning_rate = require_positive("learning_rate", learning_rate)
        beta = require_in_range("beta", beta, 0.0, 1.0)
        if not torch.is_tensor(v0):
            v0 = require_positive("v0", v0)
        elif not bool((v0 > 0).all()):
            raise ValueError("v0 must be > 0 for every filter")
        super().__init__(params, dict(lr=learning_rate, beta=beta, v0=v0,
                                      channel_dims=None if channel_dims is None else list(channel_dims)))

    @torch.no_grad()
    def step(self, closure=None):
        """One AdaGradG step of every parameter with a gradient; returns the closure's loss (if given)."""
        loss = closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                dims = group["channel_dims"] if group["channel_dims"] is not None else ([0] if p.dim() >= 2 else [])
                perm, n_channels, d = _layout(p.shape, dims)
                x = _to_groups(p, perm, n_channels, d)
                g = _to_groups(p.grad, perm, n_channels, d)
                state = self.state[p]
                if not state:
                    v0 = group["v0"]
                    state["v"] = (v0.to(dtype=p.dtype, device=p.device).reshape(n_channels).clone() if torch.is_tensor(v0)
                                  else torch.full((n_channels,), float(v0), dtype=p.dtype, device=p.device))
                    state["step"] = 0
                tolerance = 1e-10 if p.dtype == torch.float64 else 1e-5
                off = float((x.norm(dim=1) - 1.0).abs().max())
                if off > tolerance:
                    raise ValueError(f"AdaGradG: every filter must be a unit vector (| ||x|| - 1 | <= {tolerance:g}; "
                                     f"normalise the filters first), got a deviation of {off:.3g}")
                v = state["v"]
                x_hat = x - group["lr"] * g / v.sqrt()[:, None]
                p.copy_(_from_groups(x_hat / x_hat.norm(dim=1, keepdim=True), p.shape, perm))
                state["v"] = group["beta"] * v + (g * g).sum(dim=1)
                state["step"] += 1
        return loss
