"""The spherical view of a torch optimizer's last step: the effective learning rate of every filter of the
radially invariant layers of a model (Roburin et al. 2022, Theorem 2; Roburin (thesis), Eqs 3.12-3.26, 3.41).

A filter followed by a normalisation layer (a convolution or linear layer without bias followed by BatchNorm, ...)
affects the loss only through its direction u = x/‖x‖, so each optimizer step moves it on the unit sphere, by the
effective learning rate η_k^e = A_k/(1 − A_k⟨c_k,u_k⟩) along the effective direction c_k⊥. For SGD without momentum
η_k^e = η/((1 − ηλ)r_k²) (η/r_k² without weight decay); for Adam it involves the second moment through A_k =
η_k/(r_kν_k). :func:`dynamics.spherical.torch_state.effective_learning_rates` reads these from the optimizer's state
right after ``optimizer.step()``: it writes the last step in the generic form x_{k+1} = decay·(x_k − η a ⊘ b) of Eq
3.12, recovers x_k from x_{k+1}, and applies :func:`dynamics.spherical.spherical_step_batch` to all filters at once.
With ``stacked=True`` it reads the members of a stacked (batched) model, whose weights carry a leading member axis,
one reading per member.

This module imports torch; :mod:`dynamics.spherical` does not import it.
"""
try:
    import torch
except ImportError as exc:  # pragma: no cover - exercised by a test that hides torch
    raise ImportError("dynamics.spherical.torch_state needs torch (pip install torch, or the project's [torch] "
                      "extra); the rest of dynamics.spherical works without it") from exc

import math
from typing import List, Mapping, Sequence, Union

import numpy as np

from dynamics.numerics import require_bool
from dynamics.numerics.torch_tools import to_numpy
from ._results import EffectiveLearningRates
from ._step import spherical_step_batch
from .torch_optim import AdamS, _SphericalAdam

__all__ = ["EffectiveLearningRates", "effective_learning_rates"]

Layer = Union["torch.nn.Module", "torch.Tensor"]


def _weight(name, layer):
    if isinstance(layer, torch.nn.Module):
        weight = getattr(layer, "weight", None)
        if not isinstance(weight, torch.Tensor):
            raise TypeError(f"layers[{name!r}]: the module {type(layer).__name__} has no weight tensor; pass the "
                            f"parameter itself")
        return weight
    if isinstance(layer, torch.Tensor):
        return layer
    raise TypeError(f"layers[{name!r}] must be a torch.nn.Module with a weight or a torch.Tensor parameter, got "
                    f"{type(layer).__name__}")


def _group_of(optimizer, name, p):
    for group in optimizer.param_groups:
        if any(q is p for q in group["params"]):
            return group
    raise ValueError(f"layers[{name!r}]: this parameter is not among the optimizer's parameters")


def _filter_dims(p, stacked):
    """The dims indexing a weight's filters: dim 0, or (member, row) = dims (0, 1) of a stacked weight (dim 0 alone
    when each member's weight is 1-D, one filter per member)."""
    return [0, 1] if stacked and p.dim() >= 3 else [0]


def _rows(tensor, stacked=False):
    """The tensor as a float64 matrix, one filter per row: the slices along dim 0 (a 1-D tensor is one filter), or
    along dims (0, 1) in (member, row) order for a stacked weight."""
    array = to_numpy(tensor).astype(np.float64)
    if array.ndim <= 1:
        return array.reshape(1, -1)
    return array.reshape(math.prod(array.shape[:len(_filter_dims(tensor, stacked))]), -1)


def _scalar(value):
    return float(value.item()) if torch.is_tensor(value) else float(value)


def _refuse(name, what):
    raise ValueError(f"layers[{name!r}]: {what}, so the last step is not of the form the spherical view reads "
                     f"(supported: torch.optim.SGD without Nesterov, torch.optim.Adam and AdamW without amsgrad, "
                     f"dynamics.spherical.torch_optim.AdamS)")


def _sgd_form(name, p, group, state, x_next, stacked):
    """(x_k, a, b, learning rate, decay) of torch.optim.SGD's last step (Roburin (thesis), Eqs 3.14-3.15)."""
    if group["nesterov"]:
        _refuse(name, "the optimizer uses Nesterov momentum")
    if group.get("maximize", False):
        _refuse(name, "the optimizer maximises")
    eta, lam = _scalar(group["lr"]), _scalar(group["weight_decay"])
    if group["momentum"] != 0:
        buffer = state.get("momentum_buffer")
        if buffer is None:
            raise ValueError(f"layers[{name!r}]: no momentum buffer: call this after optimizer.step()")
        a = _rows(buffer, stacked)  # m_k = γm_{k−1} + (1 − dampening)(∇L + λx); x_{k+1} = x_k − ηm_k
        return x_next + eta * a, a, 1.0, eta, 1.0
    if p.grad is None:
        raise ValueError(f"layers[{name!r}]: SGD without momentum keeps no state, and the parameter's gradient is "
                         f"gone: call this after optimizer.step() and before optimizer.zero_grad()")
    grad = _rows(p.grad, stacked)  # x_{k+1} = (1 − ηλ)x_k − η∇L(x_k)
    if not eta * lam < 1.0:
        raise ValueError(f"layers[{name!r}]: lr·weight_decay = {eta * lam:g} must be < 1")
    x = (x_next + eta * grad) / (1.0 - eta * lam)
    return x, grad + lam * x, 1.0, eta, 1.0


def _adam_form(name, group, state, x_next, decoupled, per_filter, stacked):
    """(x_k, a, b, learning rate, decay) of an Adam step: a = m/(1−β₁), b = ((1−β₁^t)/(1−β₁))(sqrt(v̂) + ε)
    (Roburin (thesis), Eqs 3.16-3.20), with decay 1 − ηλ and learning rate η/(1 − ηλ) for AdamW."""
    if group.get("amsgrad", False):
        _refuse(name, "the optimizer uses amsgrad")
    if group.get("maximize", False):
        _refuse(name, "the optimizer maximises")
    if "exp_avg" not in state or "step" not in state:
        raise ValueError(f"layers[{name!r}]: the optimizer has not stepped this parameter yet: call this after "
                         f"optimizer.step()")
    eta, lam, eps = _scalar(group["lr"]), _scalar(group["weight_decay"]), _scalar(group["eps"])
    beta1, beta2 = (_scalar(beta) for beta in group["betas"])
    t = _scalar(state["step"])
    c1, c2 = 1.0 - beta1 ** t, 1.0 - beta2 ** t
    m = _rows(state["exp_avg"], stacked)
    v = (to_numpy(state["exp_avg_sq"]).astype(np.float64).reshape(-1, 1) if per_filter
         else _rows(state["exp_avg_sq"], stacked))
    denominator = np.sqrt(v) / math.sqrt(c2) + eps
    if not np.all(denominator > 0):
        raise ValueError(f"layers[{name!r}]: a second moment is 0 with eps = 0 (the step divided 0 by 0)")
    step = (eta / c1) * m / denominator
    decay = 1.0 - eta * lam if decoupled else 1.0
    if not decay > 0:
        raise ValueError(f"layers[{name!r}]: lr·weight_decay = {eta * lam:g} must be < 1")
    b = (c1 / (1.0 - beta1)) * denominator
    return (x_next + step) / decay, m / (1.0 - beta1), b[:, 0] if per_filter else b, eta / decay, decay


def effective_learning_rates(optimizer: "torch.optim.Optimizer", layers: Union[Sequence[Layer], Mapping[str, Layer]],
                             *, stacked: bool = False
                             ) -> Union[EffectiveLearningRates, List[EffectiveLearningRates]]:
    """The effective learning rate of the optimizer's last step for every filter of ``layers`` (Theorem 2 of
    Roburin et al. 2022).

    Call it right after ``optimizer.step()``: before ``optimizer.zero_grad()`` (SGD without momentum reads the
    gradient) and before a learning-rate scheduler's ``step()`` (it reads the learning rate of the param group).
    Each filter, a slice along dim 0 of a layer's weight (one output channel of a convolution, one row of a linear
    layer; a 1-D tensor is one filter), is taken to be radially invariant: the caller knows that a normalisation
    layer follows it (BatchNorm after a convolution without bias, ...). The weights before the step are recovered
    from those after it and the optimizer's state; then for every filter x_k the step is written as
    x_{k+1} = decay·(x_k − η a ⊘ b) (Roburin (thesis), Eq 3.12) and decomposed by
    :func:`dynamics.spherical.spherical_step_batch`:

    * ``torch.optim.SGD`` (with or without momentum and dampening, coupled weight decay λ): a = the momentum buffer
      (or ∇L + λx without momentum), b = 1, so η^e = η/((1 − ηλ)r_k²) without momentum (Table 3.1) and
      (η/r_k²)(1 − η⟨c,u⟩/r_k²)^{−1} with it;
    * ``torch.optim.Adam`` (coupled weight decay) and ``torch.optim.AdamW`` (decoupled): a = m/(1−β₁),
      b = ((1−β₁^t)/(1−β₁))(sqrt(v/(1−β₂^t)) + ε), and for AdamW the learning rate η/(1 − ηλ) with the decay
      1 − ηλ; then A_k = η/(r_kν_k) with ν_k = r_k d^{−1/2}‖b_k‖ Adam's second moment on the sphere (Eq 3.41),
      which :func:`dynamics.spherical.adam_nu` gives in closed form (at ε = 0);
    * :class:`dynamics.spherical.torch_optim.AdamS` (Adam w/o (a), one second moment per filter with
      ``channel_wise=True``, element-wise Adam otherwise).

    Nesterov momentum, amsgrad, ``maximize`` and the variants that transport their buffers after the step
    (AdamST, AdamSRT, AdamG, AdaGradG) are refused: their state no longer holds the last step.

    With ``stacked=True`` each layer's weight holds the weights of several models (members) trained as one stacked
    model, along dim 0: a tensor (n_members, out, in) for a stack of linear layers, (n_members, out, C, K, K) for
    convolutions, or (n_members, d) for one filter per member. The filters are then the slices along dims (0, 1),
    member by member, and the optimizer's state is read the same way: SGD, Adam and AdamW act element by element, so
    on each member as on that member alone, and AdamS must group the weight by member and row
    (``channel_dims=[0, 1]``; ``[0]`` for 2-D weights). The result is one reading per member, the one its own
    model and optimizer would give.

    Parameters
    ----------
    optimizer : torch.optim.Optimizer
        A ``torch.optim.SGD``, ``torch.optim.Adam``, ``torch.optim.AdamW`` or
        ``dynamics.spherical.torch_optim.AdamS`` that has just stepped.
    layers : sequence or mapping of torch.nn.Module or torch.Tensor
        The radially invariant layers: modules with a ``weight`` (``torch.nn.Conv2d``, ``torch.nn.Linear``, ...) or
        the weight parameters themselves; a mapping gives the layers names.
    stacked : bool, optional
        Keyword-only. True: dim 0 of every layer's weight indexes the members of a stacked model (the same number
        in every layer), and each member is read on its own. Default False: one model.

    Returns
    -------
    EffectiveLearningRates or list of EffectiveLearningRates
        One row per filter, layer after layer in channel order: ``layer``, ``channel``,
        ``effective_learning_rate`` (η_k^e), ``A`` (A_k), ``radius`` (‖x_k‖ before the step), ``angle`` (radians
        between the directions before and after the step), and ``layer_names``. With ``stacked=True``, a list of
        one such reading per member, in member order (``channel`` numbers the member's own filters).

    Raises
    ------
    ValueError
        If a layer is not optimized by ``optimizer``, has not been stepped, or the optimizer or its options are not
        supported (AdamS grouping a weight otherwise than by its filters); if (H1) fails for a filter; or, with
        ``stacked=True``, if a weight has fewer than two dims or the layers hold different numbers of members.
    TypeError
        If a layer is neither a module with a weight nor a tensor, or ``stacked`` is not a bool.

    Examples
    --------
    >>> _ = torch.manual_seed(0)
    >>> model = torch.nn.Sequential(torch.nn.Linear(4, 3, bias=False), torch.nn.BatchNorm1d(3))
    >>> opt = torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=1e-3)
    >>> before = model[0].weight.detach().clone()
    >>> model(torch.randn(16, 4)).pow(3).mean().backward()
    >>> opt.step()
    >>> rates = effective_learning_rates(opt, [model[0]])
    >>> expected = 0.1 / ((1 - 0.1 * 1e-3) * before.norm(dim=1) ** 2)     # η/((1 − ηλ)r²), Table 3.1
    >>> bool(np.allclose(rates.effective_learning_rate, expected.numpy(), rtol=1e-2))  # BatchNorm's ε: not exact
    True
    >>> rates.channel.tolist(), rates.layer_names
    ([0, 1, 2], ('0',))

    Two models stacked along dim 0, stepped by SGD with gradients tangent to every row (as a BatchNorm makes them):

    >>> w = torch.nn.Parameter(torch.randn(2, 3, 4, dtype=torch.float64))      # 2 members, 3 rows of 4 each
    >>> opt = torch.optim.SGD([w], lr=0.1)
    >>> before = w.detach().clone()
    >>> g = torch.randn(2, 3, 4, dtype=torch.float64)
    >>> w.grad = g - (g * before).sum(dim=2, keepdim=True) * before / before.norm(dim=2, keepdim=True) ** 2
    >>> opt.step()
    >>> per_member = effective_learning_rates(opt, {"hidden": w}, stacked=True)
    >>> len(per_member), per_member[1].channel.tolist()
    (2, [0, 1, 2])
    >>> expected = 0.1 / before[1].norm(dim=1) ** 2                                # member 1: η/r² per row
    >>> bool(np.allclose(per_member[1].effective_learning_rate, expected.numpy(), rtol=1e-12))
    True
    """
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
    if isinstance(layers, Mapping):
        names, items = tuple(str(key) for key in layers), list(layers.values())
    elif isinstance(layers, (torch.nn.Module, torch.Tensor)):
        names, items = ("0",), [layers]
    else:
        items = list(layers)
        names = tuple(str(i) for i in range(len(items)))
    if not items:
        raise ValueError("layers must name at least one layer")
    stacked = require_bool("stacked", stacked)
    columns = {key: [] for key in ("layer", "channel", "effective", "A", "radius", "angle")}
    n_members = None
    for index, (name, layer) in enumerate(zip(names, items)):
        p = _weight(name, layer)
        if stacked:
            if p.dim() < 2:
                raise ValueError(f"stacked=True: layers[{name!r}] must have a leading member axis and at least one "
                                 f"more dim, got shape {tuple(p.shape)}")
            if n_members is None:
                n_members = p.shape[0]
            elif p.shape[0] != n_members:
                raise ValueError(f"stacked=True: every layer must hold the same number of members (dim 0), got "
                                 f"{n_members} and {p.shape[0]} (layers[{name!r}])")
        group = _group_of(optimizer, name, p)
        state = optimizer.state.get(p, {})
        x_next = _rows(p, stacked)
        if isinstance(optimizer, torch.optim.SGD):
            x, a, b, eta, decay = _sgd_form(name, p, group, state, x_next, stacked)
        elif isinstance(optimizer, torch.optim.Adam):  # AdamW is an Adam with decoupled weight decay
            decoupled = isinstance(optimizer, torch.optim.AdamW) or bool(group.get("decoupled_weight_decay", False))
            x, a, b, eta, decay = _adam_form(name, group, state, x_next, decoupled, False, stacked)
        elif isinstance(optimizer, AdamS):
            dims, filter_dims = _SphericalAdam._channel_dims(group, p), _filter_dims(p, stacked)
            if dims is not None and [d % p.dim() for d in dims] != filter_dims:
                hint = "; for a stacked weight, pass stacked=True" if [d % p.dim() for d in dims] == [0, 1] else ""
                _refuse(name, f"AdamS groups this parameter along dims {dims}, not along its filters (dims "
                              f"{filter_dims}{hint})")
            x, a, b, eta, decay = _adam_form(name, group, state, x_next, False, dims is not None, stacked)
        else:
            _refuse(name, f"{type(optimizer).__name__} is not supported")
        try:
            steps = spherical_step_batch(x, a, b, eta, decay)
        except ValueError as exc:
            raise ValueError(f"layers[{name!r}]: {exc}") from None
        u = x / np.linalg.norm(x, axis=1, keepdims=True)
        radial = np.sum(steps.c * u, axis=1)
        tangential = np.linalg.norm(steps.c - radial[:, None] * u, axis=1)
        n = x.shape[0]
        columns["layer"].append(np.full(n, index))
        columns["channel"].append(np.tile(np.arange(n // (n_members or 1)), n_members or 1))
        columns["effective"].append(steps.effective_learning_rate)
        columns["A"].append(steps.A)
        columns["radius"].append(np.linalg.norm(x, axis=1))
        columns["angle"].append(np.arctan(steps.effective_learning_rate * tangential))
    per_member = [EffectiveLearningRates(*(np.concatenate([value.reshape(n_members or 1, -1)[member]
                                                           for value in values]) for values in columns.values()),
                                         names) for member in range(n_members or 1)]
    return per_member if stacked else per_member[0]
