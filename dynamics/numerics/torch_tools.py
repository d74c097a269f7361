"""What every torch module of the project needs, written once: the device, the thread policy on CPU, seeding and
the conversions between numpy and torch (optional: imports torch; nothing analytic imports this module).

The theories' torch layers (``dynamics/<theory>/torch_*.py``) build on these helpers:

* :func:`dynamics.numerics.torch_tools.torch_device` turns ``"cpu"``, ``"cuda"``, ``"cuda:1"`` or a ``torch.device``
  into a ``torch.device``, and refuses anything else by name;
* :func:`dynamics.numerics.torch_tools.on_device` resolves a trainer's ``device`` (default ``"cpu"``, keyword-only
  in every trainer) and runs it under the project's one thread policy, :func:`dynamics.numerics.one_thread`: the
  project's tensors are small, and on a busy 2-core machine thread hand-offs cost more than the arithmetic (a
  two-moons figure ran 3x slower with torch's default threads);
* :func:`dynamics.numerics.torch_tools.seed_int` and :func:`dynamics.numerics.torch_tools.torch_generator` seed torch
  from the project's seeds (None, an int or a ``numpy.random.Generator``), so that the same seed gives the same numbers
  on every run;
* :func:`dynamics.numerics.torch_tools.closure_loss` evaluates a ``torch.optim`` closure with gradients enabled, as
  every optimizer's ``step`` does;
* the batched-trainer core, :mod:`dynamics.numerics.torch_batched`, trains many models of one shape as one
  stacked model;
* :func:`dynamics.numerics.torch_tools.as_tensor` and :func:`dynamics.numerics.torch_tools.to_numpy` move arrays across,
  in float64 unless told otherwise, refusing tensors that carry an autograd graph (a trainer must not silently
  differentiate through its caller's data).
"""
import functools
from typing import Callable, Dict, Optional, Sequence, TypeVar, Union

import numpy as np
import torch
from numpy.typing import ArrayLike

from .threads import one_thread
from .validation import rng_from
from ._docstrings import fill_doc

__all__ = ["DTYPE", "as_tensor", "closure_loss", "on_device", "seed_int", "to_numpy", "torch_device",
           "torch_generator"]

DTYPE = torch.float64

_R = TypeVar("_R")


def torch_device(device: Union[str, torch.device]) -> torch.device:
    """The ``torch.device`` named by ``device``.

    Parameters
    ----------
    device : str or torch.device
        ``"cpu"``, ``"cuda"``, ``"cuda:0"``, ... or a ``torch.device``.

    Returns
    -------
    torch.device

    Raises
    ------
    TypeError
        If ``device`` is neither a string nor a ``torch.device``.
    ValueError
        If the string names no torch device type.

    Examples
    --------
    >>> torch_device("cpu")
    device(type='cpu')
    """
    if isinstance(device, torch.device):
        return device
    if not isinstance(device, str):
        raise TypeError(f"device must be a string such as 'cpu' or 'cuda', or a torch.device, got {device!r}")
    try:
        return torch.device(device)
    except RuntimeError as exc:
        raise ValueError(f"device must name a torch device such as 'cpu' or 'cuda', got {device!r}") from exc


def on_device(function: Callable[..., _R]) -> Callable[..., _R]:
    """Decorate a trainer that takes the keyword ``device`` (default ``"cpu"``): resolve it with
    :func:`dynamics.numerics.torch_tools.torch_device` and run the trainer under
    :func:`dynamics.numerics.one_thread` (one torch, BLAS and numba thread, restored afterwards).

    Parameters
    ----------
    function : callable
        Takes ``device=`` (a ``torch.device`` once resolved) among its keywords.

    Returns
    -------
    callable
        The wrapped function, with the same name, signature and docstring.

    Examples
    --------
    >>> @on_device
    ... def threads(*, device="cpu"):
    ...     return device.type, torch.get_num_threads()
    >>> threads()
    ('cpu', 1)
    """

    @functools.wraps(function)
    def run(*args, device: Union[str, torch.device] = "cpu", **kwargs):
        resolved = torch_device(device)
        with one_thread(numba=False):  # a trainer calls no parallel numba kernel: leave numba's pool unlaunched
            return function(*args, device=resolved, **kwargs)

    return run


def seed_int(seed: Union[None, int, np.random.Generator]) -> int:
    """One integer seed in [0, 2^62) drawn from ``seed``, for torch and for every copy a trainer seeds alike.

    Parameters
    ----------
    seed : None, int or numpy.random.Generator
        As everywhere in the project (a Generator's stream advances once).

    Returns
    -------
    int

    Examples
    --------
    >>> seed_int(3) == seed_int(3), 0 <= seed_int(3) < 2 ** 62
    (True, True)
    """
    return int(rng_from(seed).integers(2 ** 62))


@fill_doc
def torch_generator(seed: Union[None, int, np.random.Generator],
                    device: Union[str, torch.device] = "cpu") -> torch.Generator:
    """A ``torch.Generator`` on ``device`` seeded from ``seed`` (through
    :func:`dynamics.numerics.torch_tools.seed_int`).

    Parameters
    ----------
    %(seed)s
    device : str or torch.device

    Returns
    -------
    torch.Generator

    Examples
    --------
    >>> a = torch.rand(2, generator=torch_generator(5)); b = torch.rand(2, generator=torch_generator(5))
    >>> bool(torch.equal(a, b))
    True
    """
    generator = torch.Generator(device=torch_device(device))
    generator.manual_seed(seed_int(seed))
    return generator


def as_tensor(array: Union[ArrayLike, torch.Tensor], device: Union[str, torch.device] = "cpu",
              dtype: torch.dtype = DTYPE, name: str = "array") -> torch.Tensor:
    """``array`` as a tensor of ``dtype`` on ``device`` (float64 by default).

    Parameters
    ----------
    array : array_like or torch.Tensor
        A tensor that requires grad is refused: detach it first.
    device : str or torch.device
    dtype : torch.dtype
    name : str
        The parameter's name in error messages.

    Returns
    -------
    torch.Tensor

    Raises
    ------
    ValueError
        If ``array`` is a tensor that requires grad.

    Examples
    --------
    >>> as_tensor([1, 2])
    tensor([1., 2.], dtype=torch.float64)
    """
    if isinstance(array, torch.Tensor):
        if array.requires_grad:
            raise ValueError(f"{name} must not require grad (call .detach() first), got a tensor of shape "
                             f"{tuple(array.shape)} with requires_grad=True")
        return array.to(device=torch_device(device), dtype=dtype)
    return torch.as_tensor(np.asarray(array), dtype=dtype, device=torch_device(device))


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    """A numpy copy of ``tensor`` (detached, on the CPU).

    Parameters
    ----------
    tensor : torch.Tensor

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> to_numpy(torch.ones(2, requires_grad=True) * 2)
    array([2., 2.], dtype=float32)
    """
    return tensor.detach().cpu().numpy().copy()


def closure_loss(closure: Optional[Callable[[], _R]]) -> Optional[_R]:
    """The loss a ``torch.optim`` closure returns, evaluated with gradients enabled (``None`` without a closure): the
    first line of every optimizer's ``step(closure=None)``.

    Parameters
    ----------
    closure : callable or None
        Re-evaluates the model and returns the loss (it calls ``backward`` itself).

    Returns
    -------
    object
        What ``closure()`` returned, or None.

    Examples
    --------
    >>> w = torch.ones(1, requires_grad=True)
    >>> def closure():
    ...     loss = (2 * w).sum()
    ...     loss.backward()
    ...     return loss
    >>> with torch.no_grad():
    ...     loss = closure_loss(closure)
    >>> float(loss.detach()), float(w.grad)
    (2.0, 2.0)
    """
    if closure is None:
        return None
    with torch.enable_grad():
        return closure()
