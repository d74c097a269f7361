"""The batched-trainer core: many small models of one shape trained as one stacked model, each member with its own
hyper-parameters and its own stopping time (optional: imports torch).

The project's experiments train hundreds of small networks that differ only in their seed, learning rate or
regulariser. Stacking them along a leading member axis turns M small matrix products into one batched product
(``torch.bmm``), which on a CPU is 10-100x faster than a loop over M models, and on a GPU is the only way to fill
the device. Every trainer of the torch layer builds on these pieces:

* :func:`dynamics.numerics.torch_batched.stacked_uniform_weights`: torch's default initialisation of a bias-free
  ``Linear`` layer, U(±1/√fan_in), drawn in numpy from each member's own stream (so that CPU and CUDA runs start
  from the same weights, and a member's weights do not depend on the other members);
* :func:`dynamics.numerics.torch_batched.relu_mlp`: the forward pass of a stack of bias-free ReLU MLPs;
* :func:`dynamics.numerics.torch_batched.relu_mlp_cross_entropy_gradients`: its mean cross-entropy and weight
  gradients by a hand-written backward pass (about twice as fast as autograd at these sizes; the tests hold it to
  autograd);
* :func:`dynamics.numerics.torch_batched.stacked_kaiming_mlp`, :func:`dynamics.numerics.torch_batched.leaky_relu_mlp`
  and :func:`dynamics.numerics.torch_batched.group_logistic_gradients`: a stack of LeakyReLU MLPs with biases and one
  logit (Kaiming-normal initialisation, the AND-mask experiments' network), and the gradient of each member's mean
  logistic loss on each of its groups of examples (per environment, per group) from one forward and one backward
  pass;
* :class:`dynamics.numerics.torch_batched.MemberOptimizer`: SGD with heavy-ball momentum (``torch.optim.SGD``'s
  convention) or Adam (Kingma & Ba 2015, Algorithm 1), element by element, with a learning rate, momentum, L2 weight
  decay and L1 penalty per member, a mask of the members still training (per-member early stopping), and
  :meth:`~dynamics.numerics.torch_batched.MemberOptimizer.keep` to drop finished members from the stack.

Because every operation acts member by member, each member follows exactly the path it would follow alone; the
trainers' tests check that the batch equals the loop.
"""
import math
from typing import List, Optional, Sequence, Tuple, Union

import numpy as np
import torch

from .torch_tools import as_tensor
from ._docstrings import fill_doc

__all__ = ["MemberOptimizer", "group_logistic_gradients", "leaky_relu_mlp", "relu_mlp", "relu_mlp_cross_entropy_gradients",
           "stacked_kaiming_mlp", "stacked_uniform_weights"]

Device = Union[str, torch.device]


@fill_doc
def stacked_uniform_weights(rngs: Sequence[np.random.Generator], sizes: Sequence[int], *,
                            dtype: torch.dtype = torch.float64, device: Device = "cpu") -> List[torch.Tensor]:
    """Bias-free layer weights of one MLP per generator, stacked: torch's default ``Linear`` initialisation.

    Layer l of member m is ``rngs[m].uniform(-b, b, size=(sizes[l + 1], sizes[l]))`` with b = 1/√sizes[l], drawn
    layer by layer (all members' layer 0, then all members' layer 1, ...).

    Parameters
    ----------
    rngs : sequence of numpy.random.Generator
        One generator per member (each member's initialisation stream).
    sizes : sequence of int
        Layer widths, input first, output last (at least two entries, each >= 1).
    dtype : torch.dtype, default torch.float64
    %(device)s

    Returns
    -------
    list of torch.Tensor
        One tensor (M, sizes[l + 1], sizes[l]) per layer.

    Raises
    ------
    ValueError
        If ``rngs`` is empty or ``sizes`` has fewer than two entries or a width below 1.

    Examples
    --------
    >>> weights = stacked_uniform_weights([np.random.default_rng(0), np.random.default_rng(1)], (3, 4, 2))
    >>> [tuple(W.shape) for W in weights]
    [(2, 4, 3), (2, 2, 4)]
    >>> bool(weights[0].abs().max() <= 1 / 3 ** 0.5)
    True
    """
    rngs = list(rngs)
    sizes = [int(s) for s in sizes]
    if not rngs or len(sizes) < 2 or min(sizes) < 1:
        raise ValueError(f"rngs must hold at least one generator and sizes at least two widths >= 1, got "
                         f"{len(rngs)} generators and sizes {sizes}")
    weights = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1.0 / math.sqrt(fan_in)
        weights.append(as_tensor(np.stack([rng.uniform(-bound, bound, size=(fan_out, fan_in)) for rng in rngs]),
                                 device, dtype))
    return weights


def _check_stack(weights, x):
    weights = list(weights)
    if not weights or any(not isinstance(W, torch.Tensor) or W.dim() != 3 for W in weights):
        raise ValueError("weights must be a non-empty sequence of torch tensors of shape (M, out, in), got "
                         f"{[tuple(W.shape) if isinstance(W, torch.Tensor) else type(W).__name__ for W in weights]}")
    if not isinstance(x, torch.Tensor) or x.dim() != 3 or x.shape[0] != weights[0].shape[0] \
            or x.shape[2] != weights[0].shape[2]:
        raise ValueError(f"x must be a torch tensor of shape (M, B, in) = ({weights[0].shape[0]}, B, "
                         f"{weights[0].shape[2]}) to match weights[0], got "
                         f"{tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__}")
    return weights


def relu_mlp(weights: Sequence[torch.Tensor], x: torch.Tensor) -> Tuple[torch.Tensor, List[torch.Tensor]]:
    """The forward pass of M bias-free ReLU MLPs at once: h ← relu(h Wᵀ) per hidden layer, a linear output.

    Parameters
    ----------
    weights : sequence of torch.Tensor
        Layer l of shape (M, out_l, in_l).
    x : torch.Tensor
        Inputs (M, B, in_0): member m's own batch.

    Returns
    -------
    logits : torch.Tensor
        (M, B, out_last).
    hiddens : list of torch.Tensor
        The hidden activations after each ReLU, (M, B, out_l).

    Raises
    ------
    ValueError
        If the shapes do not chain.

    Examples
    --------
    >>> W = [torch.eye(2, dtype=torch.float64)[None], -torch.eye(2, dtype=torch.float64)[None]]
    >>> logits, hiddens = relu_mlp(W, torch.tensor([[[1.0, -2.0]]], dtype=torch.float64))
    >>> logits.tolist(), hiddens[0].tolist()
    ([[[-1.0, 0.0]]], [[[1.0, 0.0]]])
    """
    weights = _check_stack(weights, x)
    hiddens = []
    h = x
    for W in weights[:-1]:
        h = torch.relu(torch.bmm(h, W.transpose(1, 2)))
        hiddens.append(h)
    return torch.bmm(h, weights[-1].transpose(1, 2)), hiddens


def relu_mlp_cross_entropy_gradients(weights: Sequence[torch.Tensor], x: torch.Tensor,
                                     labels: torch.Tensor) -> Tuple[torch.Tensor, List[torch.Tensor]]:
    """The per-sample cross-entropy of M bias-free ReLU MLPs and the gradient of each member's mean loss, by a
    hand-written backward pass.

    With z = relu_mlp(weights, x), p = softmax(z) and one-hot y: δ_L = (p − y)/B, ∂L/∂W_l = δ_lᵀ h_(l−1), and
    δ_(l−1) = (δ_l W_l) ⊙ 1[a_(l−1) > 0] through each ReLU (torch's fused ``threshold_backward``).

    Parameters
    ----------
    weights : sequence of torch.Tensor
        Layer l of shape (M, out_l, in_l).
    x : torch.Tensor
        Inputs (M, B, in_0).
    labels : torch.Tensor
        Class indices (M, B), integer dtype, each in [0, out_last).

    Returns
    -------
    losses : torch.Tensor
        Per-sample cross-entropy (M, B).
    grads : list of torch.Tensor
        ∂(mean_b loss)/∂W_l for each member, shaped as ``weights``.

    Raises
    ------
    ValueError
        If the shapes do not chain or ``labels`` is not an integer tensor of shape (M, B).

    Examples
    --------
    >>> g = torch.Generator().manual_seed(0)
    >>> W = [torch.randn(2, 5, 3, generator=g, dtype=torch.float64),
    ...      torch.randn(2, 2, 5, generator=g, dtype=torch.float64)]
    >>> x = torch.randn(2, 4, 3, generator=g, dtype=torch.float64)
    >>> y = torch.tensor([[0, 1, 1, 0], [1, 1, 0, 0]])
    >>> losses, grads = relu_mlp_cross_entropy_gradients(W, x, y)
    >>> params = [w.clone().requires_grad_(True) for w in W]
    >>> z, _ = relu_mlp(params, x)
    >>> loss = torch.nn.functional.cross_entropy(z.flatten(0, 1), y.flatten(), reduction="none").view(2, 4)
    >>> auto = torch.autograd.grad(loss.mean(dim=1).sum(), params)
    >>> all(bool(torch.allclose(a, b)) for a, b in zip(grads, auto))
    True
    """
    weights = _check_stack(weights, x)
    if not isinstance(labels, torch.Tensor) or labels.dtype.is_floating_point or labels.shape != x.shape[:2]:
        raise ValueError(f"labels must be an integer torch tensor of shape (M, B) = {tuple(x.shape[:2])}, got "
                         f"{tuple(labels.shape) if isinstance(labels, torch.Tensor) else type(labels).__name__}")
    pre, h = [], x
    for W in weights[:-1]:
        a = torch.bmm(h, W.transpose(1, 2))
        pre.append((a, h))
        h = a.clamp_min(0)
    z = torch.bmm(h, weights[-1].transpose(1, 2))
    log_p = torch.log_softmax(z, dim=-1)
    losses = -log_p.gather(-1, labels[..., None])[..., 0]
    delta = log_p.exp()
    delta.scatter_add_(-1, labels[..., None], -torch.ones_like(delta[..., :1]))
    delta /= x.shape[1]
    grads = [torch.bmm(delta.transpose(1, 2), h)]
    for layer in range(len(weights) - 2, -1, -1):
        a, below = pre[layer]
        # the ReLU's backward pass, delta·1[a > 0], as torch's fused kernel (a tenth of the time of the product)
        delta = torch.ops.aten.threshold_backward(torch.bmm(delta, weights[layer + 1]), a, 0.0)
        grads.append(torch.bmm(delta.transpose(1, 2), below))
    return losses, grads[::-1]


@fill_doc
def stacked_kaiming_mlp(seeds: Sequence[int], sizes: Sequence[int], *, bias: float = 0.01,
                        dtype: torch.dtype = torch.float64, device: Device = "cpu") -> List[torch.Tensor]:
    """Weights and biases of one MLP per seed, stacked: Kaiming-normal weights for ReLU-like units (gain √2) and
    constant biases (the AND-mask authors' network).

    Layer l of member m: weight ~ N(0, 2/sizes[l]) of shape (sizes[l + 1], sizes[l]), drawn in float64 from a
    ``torch.Generator`` seeded by ``seeds[m] % 2**63`` (layer by layer, so a member's weights do not depend on the
    other members), and bias ``bias`` everywhere.

    Parameters
    ----------
    seeds : sequence of int
        One non-negative integer seed per member.
    sizes : sequence of int
        Layer widths, input first, output last (at least two entries, each >= 1).
    bias : float, default 0.01
        The initial value of every bias, finite.
    dtype : torch.dtype, default torch.float64
    %(device)s

    Returns
    -------
    list of torch.Tensor
        Weight (M, sizes[l + 1], sizes[l]) and bias (M, sizes[l + 1]) of each layer, alternating: [W_0, b_0, W_1, ...].

    Raises
    ------
    ValueError
        If ``seeds`` is empty or holds a negative or non-integer seed, ``sizes`` has fewer than two entries or a width
        below 1, or ``bias`` is not finite.

    Examples
    --------
    >>> params = stacked_kaiming_mlp([3, 4], (5, 8, 1))
    >>> [tuple(p.shape) for p in params]
    [(2, 8, 5), (2, 8), (2, 1, 8), (2, 1)]
    >>> bool(torch.equal(params[0][1], stacked_kaiming_mlp([4], (5, 8, 1))[0][0]))  # member 1 is seed 4's own draw
    True
    """
    seeds = list(seeds)
    sizes = [int(s) for s in sizes]
    if not seeds or any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0 for s in seeds):
        raise ValueError(f"seeds must hold at least one non-negative integer, got {seeds!r}")
    if len(sizes) < 2 or min(sizes) < 1:
        raise ValueError(f"sizes must hold at least two widths >= 1, got {sizes}")
    if not math.isfinite(bias):
        raise ValueError(f"bias must be finite, got {bias!r}")
    layers = [[] for _ in range(2 * (len(sizes) - 1))]
    for s in seeds:
        gen = torch.Generator().manual_seed(int(s) % 2 ** 63)
        for l, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            layers[2 * l].append(torch.randn(fan_out, fan_in, generator=gen, dtype=torch.float64)
                                 * math.sqrt(2 / fan_in))
            layers[2 * l + 1].append(torch.full((fan_out,), float(bias), dtype=torch.float64))
    return [torch.stack(p).to(device=device, dtype=dtype) for p in layers]


def _check_biased_stack(params, x):
    params = list(params)
    if not params or len(params) % 2 or any(not isinstance(p, torch.Tensor) for p in params) \
            or any(params[i].dim() != 3 or params[i + 1].dim() != 2 for i in range(0, len(params), 2)):
        raise ValueError("params must alternate weights (M, out, in) and biases (M, out) as torch tensors, got "
                         f"{[tuple(p.shape) if isinstance(p, torch.Tensor) else type(p).__name__ for p in params]}")
    if not isinstance(x, torch.Tensor) or x.dim() < 2 or x.shape[0] != params[0].shape[0] \
            or x.shape[-1] != params[0].shape[2]:
        raise ValueError(f"x must be a torch tensor of shape (M, ..., in) = ({params[0].shape[0]}, ..., "
                         f"{params[0].shape[2]}) to match params[0], got "
                         f"{tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__}")
    return params


def leaky_relu_mlp(params: Sequence[torch.Tensor], x: torch.Tensor, *, leak: float = 0.01) -> torch.Tensor:
    """The outputs of M LeakyReLU MLPs with biases: h ← leaky_relu(h Wᵀ + b) per hidden layer, a linear output.

    Parameters
    ----------
    params : sequence of torch.Tensor
        Weights (M, out, in) and biases (M, out), alternating (as :func:`stacked_kaiming_mlp` returns).
    x : torch.Tensor
        Inputs (M, ..., in_0): member m's own examples, any number of batch axes.
    leak : float, default 0.01
        The LeakyReLU's negative slope.

    Returns
    -------
    torch.Tensor
        (M, ..., out_last).

    Raises
    ------
    ValueError
        If the shapes do not match.

    Examples
    --------
    >>> W = [torch.eye(2, dtype=torch.float64)[None], torch.zeros(1, 2, dtype=torch.float64),
    ...      torch.ones(1, 1, 2, dtype=torch.float64), torch.zeros(1, 1, dtype=torch.float64)]
    >>> leaky_relu_mlp(W, torch.tensor([[[1.0, -2.0]]], dtype=torch.float64), leak=0.5).tolist()
    [[[0.0]]]
    """
    params = _check_biased_stack(params, x)
    h = x
    n_layers = len(params) // 2
    for l in range(n_layers):
        w, b = params[2 * l], params[2 * l + 1]
        h = torch.einsum("m...i,moi->m...o", h, w) + b.view(b.shape[0], *([1] * (h.dim() - 2)), -1)
        if l < n_layers - 1:
            h = torch.nn.functional.leaky_relu(h, leak)
    return h


def group_logistic_gradients(params: Sequence[torch.Tensor], x: torch.Tensor, labels: torch.Tensor, *,
                             leak: float = 0.01) -> List[torch.Tensor]:
    """The gradient of each member's mean logistic loss on each of its groups of examples, for M LeakyReLU MLPs with
    one logit: x (M, G, n, in), labels ±1 (M, G, n) -> per parameter ``(M, G, *param.shape[1:])``.

    The loss of member m on group g is mean_i log(1 + exp(−y_i f(x_i))) over the group's n examples. One forward pass
    with each member's weights and one backward pass to the pre-activations z_l give all M·G gradients: group g's
    examples enter only its own loss, so ∂(Σ_g L_g)/∂z_l restricted to g's examples is ∂L_g/∂z_l, and group g's
    weight gradient is Σ_i (∂L_g/∂z_l,i) ⊗ h_(l−1),i over its examples (its bias gradient the plain sum), the
    per-example-gradient trick. The AND-mask trainers call it with the environments as groups.

    Parameters
    ----------
    params : sequence of torch.Tensor
        Weights (M, out, in) and biases (M, out), alternating; the last layer has one output.
    x : torch.Tensor
        Inputs (M, G, n, in_0).
    labels : torch.Tensor
        Labels ±1 (M, G, n), x's dtype.
    leak : float, default 0.01
        The LeakyReLU's negative slope.

    Returns
    -------
    list of torch.Tensor
        One gradient per parameter, ``(M, G, *param.shape[1:])``; the parameters are not touched (no ``.grad``).

    Raises
    ------
    ValueError
        If the shapes do not match or the last layer has more than one output.

    Examples
    --------
    >>> params = stacked_kaiming_mlp([0], (3, 4, 1))
    >>> x = torch.randn(1, 2, 5, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    >>> y = torch.ones(1, 2, 5, dtype=torch.float64)
    >>> grads = group_logistic_gradients(params, x, y)
    >>> ps = [p[0].clone().requires_grad_(True) for p in params]
    >>> loss = torch.nn.functional.softplus(-leaky_relu_mlp([q[None] for q in ps], x[:, 1])[0, :, 0]).mean()
    >>> all(bool(torch.allclose(g[0, 1], a)) for g, a in zip(grads, torch.autograd.grad(loss, ps)))  # group 1
    True
    """
    params = _check_biased_stack(params, x)
    if x.dim() != 4 or params[-1].shape[1] != 1:
        raise ValueError(f"x must have shape (M, G, n, in) and the last layer one output, got x of shape "
                         f"{tuple(x.shape)} and a last layer of {params[-1].shape[1]} outputs")
    if not isinstance(labels, torch.Tensor) or labels.shape != x.shape[:3]:
        raise ValueError(f"labels must be a torch tensor of shape (M, G, n) = {tuple(x.shape[:3])}, got "
                         f"{tuple(labels.shape) if isinstance(labels, torch.Tensor) else type(labels).__name__}")
    with torch.enable_grad():
        h = x
        inputs, pre = [], []
        n_layers = len(params) // 2
        for l in range(n_layers):
            w, b = params[2 * l].detach(), params[2 * l + 1].detach()
            inputs.append(h)
            z = (torch.einsum("meni,moi->meno", h, w) + b[:, None, None, :]).requires_grad_(True)
            pre.append(z)
            h = torch.nn.functional.leaky_relu(z, leak) if l < n_layers - 1 else z
        loss = torch.nn.functional.softplus(-labels * h.squeeze(-1)).mean(dim=2).sum()
        deltas = torch.autograd.grad(loss, pre)
    grads = []
    for h_in, delta in zip(inputs, deltas):
        grads += [torch.einsum("meno,meni->meoi", delta, h_in.detach()), delta.sum(dim=2)]
    return grads


def _member_column(name, values, n_members, dtype, device):
    array = np.asarray(values, dtype=np.float64)
    if array.shape not in ((), (1,), (n_members,)):
        raise ValueError(f"{name} must be a scalar or hold one value per member ({n_members}), got shape {array.shape}")
    array = np.broadcast_to(array, (n_members,))
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError(f"{name} must be finite and >= 0 (a scalar or one value per member, {n_members}), got "
                         f"{values!r}")
    return torch.as_tensor(np.array(array), dtype=dtype, device=device)


class MemberOptimizer:
    """SGD with heavy-ball momentum or Adam for a stack of M models, each member with its own hyper-parameters.

    Each parameter tensor has the member axis first, (M, ...). One :meth:`step` takes the loss gradients and, for
    each member m still training (``active[m]``):

    * g ← g + λ₂·θ + λ₁·sign(θ) (the L2 weight decay and the L1 penalty enter the gradient, as
      ``torch.optim.SGD``'s ``weight_decay`` does);
    * SGD: v ← g at the first step, v ← μ·v + g afterwards (``torch.optim.SGD``'s convention, dampening 0), and
      θ ← θ − η·v;
    * Adam (Kingma & Ba 2015, Algorithm 1): m ← β₁m + (1 − β₁)g, v ← β₂v + (1 − β₂)g², and
      θ ← θ − η·(m/(1 − β₁ᵗ))/(√(v/(1 − β₂ᵗ)) + ε), t the optimizer's step count;

    a member that is not active keeps its parameters and its state. :meth:`keep` drops members from the stack (their
    state and hyper-parameters with them), for trainers that stop members early by shrinking the stack.

    Parameters
    ----------
    params : sequence of torch.Tensor
        The stacked parameters, (M, ...) each, updated in place (their ``.data``).
    learning_rate : float or array_like
        η per member (or one for all), > 0.
    momentum : float or array_like, default 0
        μ per member, in [0, 1); SGD members only.
    weight_decay : float or array_like, default 0
        λ₂ per member, >= 0.
    l1 : float or array_like, default 0
        λ₁ per member, >= 0.
    adam : bool or array_like of bool, default False
        Which members use Adam (the others SGD).
    betas : (float, float), default (0.9, 0.999)
        Adam's β₁, β₂.
    eps : float, default 1e-8
        Adam's ε.

    Examples
    --------
    One step of three members that differ only in their learning rate:

    >>> w = torch.ones(3, 2, dtype=torch.float64)
    >>> opt = MemberOptimizer([w], learning_rate=[0.1, 0.2, 0.3])
    >>> opt.step([torch.ones(3, 2, dtype=torch.float64)])
    >>> w[:, 0].tolist()
    [0.9, 0.8, 0.7]

    The second member has stopped training:

    >>> opt.step([torch.ones(3, 2, dtype=torch.float64)], active=torch.tensor([True, False, True]))
    >>> [round(v, 12) for v in w[:, 0].tolist()]
    [0.8, 0.8, 0.4]
    """

    def __init__(self, params: Sequence[torch.Tensor], learning_rate: Union[float, Sequence[float]], *,
                 momentum: Union[float, Sequence[float]] = 0.0, weight_decay: Union[float, Sequence[float]] = 0.0,
                 l1: Union[float, Sequence[float]] = 0.0, adam: Union[bool, Sequence[bool]] = False,
                 betas: Tuple[float, float] = (0.9, 0.999), eps: float = 1e-8) -> None:
        self.params = list(params)
        if not self.params or any(not isinstance(p, torch.Tensor) or p.dim() < 1 for p in self.params):
            raise ValueError("params must be a non-empty sequence of torch tensors with a leading member axis")
        n = self.params[0].shape[0]
        if any(p.shape[0] != n for p in self.params):
            raise ValueError(f"params must share their leading member axis, got {[tuple(p.shape) for p in params]}")
        dtype, device = self.params[0].dtype, self.params[0].device
        column = lambda name, values: _member_column(name, values, n, dtype, device)  # noqa: E731
        self.learning_rate = column("learning_rate", learning_rate)
        if not bool((self.learning_rate > 0).all()):
            raise ValueError(f"learning_rate must be > 0 for every member, got {learning_rate!r}")
        self.momentum = column("momentum", momentum)
        if not bool((self.momentum < 1).all()):
            raise ValueError(f"momentum must be in [0, 1) for every member, got {momentum!r}")
        self.weight_decay = column("weight_decay", weight_decay)
        self.l1 = column("l1", l1)
        adam = np.asarray(adam)
        if adam.dtype != bool or adam.shape not in ((), (1,), (n,)):
            raise ValueError(f"adam must be a bool or one bool per member ({n}), got {adam!r}")
        self.adam = torch.as_tensor(np.broadcast_to(adam, (n,)).copy(), device=device)
        beta1, beta2 = (float(b) for b in betas)
        if not (0 <= beta1 < 1 and 0 <= beta2 < 1) or not eps > 0:
            raise ValueError(f"betas must lie in [0, 1) and eps be > 0, got betas={betas!r}, eps={eps!r}")
        self.betas, self.eps = (beta1, beta2), float(eps)
        self._summarise()
        self.first = [torch.zeros_like(p) for p in self.params]
        self.second = [torch.zeros_like(p) for p in self.params] if bool(self.adam.any()) else None
        self.steps = 0

    def _summarise(self):
        """Python flags of the settings and each parameter's views of them, made once (a tensor's truth value costs a
        synchronisation, and a view a dispatch, per step)."""
        self._columns = []
        for p in self.params:
            shape = (p.shape[0],) + (1,) * (p.dim() - 1)
            self._columns.append((shape,) + tuple(getattr(self, name).view(shape) for name in
                                                 ("learning_rate", "momentum", "weight_decay", "l1", "adam")))
        self._decay, self._l1 = bool((self.weight_decay > 0).any()), bool((self.l1 > 0).any())
        self._any_adam, self._all_adam = bool(self.adam.any()), bool(self.adam.all())
        self._momentum = bool((self.momentum > 0).any())

    def __len__(self) -> int:
        return self.params[0].shape[0]

    @torch.no_grad()
    def step(self, grads: Sequence[torch.Tensor], active: Optional[torch.Tensor] = None,
             scale: float = 1.0) -> None:
        """Update every parameter from its loss gradient ``grads[i]`` (same shape), for the ``active`` members.

        Parameters
        ----------
        grads : sequence of torch.Tensor
            The loss gradients, one per parameter.
        active : torch.Tensor of bool, shape (M,), optional
            The members that step (default: all).
        scale : float, default 1
            Multiplies every member's learning rate for this step (a schedule).

        Examples
        --------
        >>> w = torch.zeros(2, 1, dtype=torch.float64)
        >>> MemberOptimizer([w], 0.5, adam=[False, True]).step([torch.full((2, 1), 2.0, dtype=torch.float64)])
        >>> [round(v, 6) for v in w[:, 0].tolist()]  # SGD: -0.5·2; Adam's first step: -0.5·sign(g)
        [-1.0, -0.5]
        """
        self.steps += 1
        t = self.steps
        beta1, beta2 = self.betas
        any_adam, all_adam = self._any_adam, self._all_adam
        for i, (p, g) in enumerate(zip(self.params, grads)):
            shape, lr, momentum, weight_decay, l1, adam = self._columns[i]
            if self._decay:
                g = g + weight_decay * p
            if self._l1:
                g = g + l1 * torch.sign(p)
            go = None if active is None else active.view(shape)
            if all_adam:
                update = self._adam(i, g, go, t, beta1, beta2)
            elif not any_adam:
                update = self._sgd(i, g, go, momentum)
            else:
                update = torch.where(adam, self._adam(i, g, go & adam if go is not None else adam, t, beta1, beta2),
                                     self._sgd(i, g, go & ~adam if go is not None else ~adam, momentum))
            step = (lr * scale if scale != 1.0 else lr) * update
            # a stopped member's step is multiplied by 0 (its weights stay: θ − (±0) = θ); an active one's by 1, exactly
            p.sub_(step if go is None else step * go.to(step.dtype))

    def _sgd(self, i, g, go, momentum):
        if not self._momentum:  # plain SGD: v = g (μ·v + g would be g too), no buffer to keep
            return g
        velocity = g if self.steps == 1 else momentum * self.first[i] + g
        self.first[i] = velocity if go is None else torch.where(go, velocity, self.first[i])
        return self.first[i]

    def _adam(self, i, g, go, t, beta1, beta2):
        m = self.first[i] * beta1 + (1 - beta1) * g
        v = self.second[i] * beta2 + (1 - beta2) * g ** 2
        if go is not None:
            m, v = torch.where(go, m, self.first[i]), torch.where(go, v, self.second[i])
        self.first[i], self.second[i] = m, v
        return (m / (1 - beta1 ** t)) / ((v / (1 - beta2 ** t)).sqrt() + self.eps)

    def keep(self, rows: torch.Tensor) -> List[torch.Tensor]:
        """Keep only the members ``rows`` (indices into the current stack, in the new order): the parameters,
        their state and the hyper-parameters shrink along the member axis.

        Parameters
        ----------
        rows : torch.Tensor
            Integer indices of the members that stay.

        Returns
        -------
        list of torch.Tensor
            The new parameters (the optimizer holds these from now on).

        Examples
        --------
        >>> opt = MemberOptimizer([torch.arange(3.0, dtype=torch.float64)[:, None]], [0.1, 0.2, 0.3])
        >>> [p[:, 0].tolist() for p in opt.keep(torch.tensor([2, 0]))], opt.learning_rate.tolist()
        ([[2.0, 0.0]], [0.3, 0.1])
        """
        take = lambda t: t[rows].contiguous()  # noqa: E731
        self.params = [take(p) for p in self.params]
        self.first = [take(s) for s in self.first]
        if self.second is not None:
            self.second = [take(s) for s in self.second]
        for name in ("learning_rate", "momentum", "weight_decay", "l1", "adam"):
            setattr(self, name, take(getattr(self, name)))
        self._summarise()
        return self.params
