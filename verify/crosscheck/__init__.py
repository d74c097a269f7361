"""Torch cross-checks: small simulations of the theories' set-ups, compared with ``dynamics``.

Each cross-check is a function ``fn(ctx) -> Check`` registered with :func:`crosscheck`, which makes it
a claim of kind ``crosscheck`` that needs torch. ``ctx`` (:class:`TorchContext`) carries the torch
module, the device chosen with ``python -m verify --device cpu|cuda|auto``, float64, seeding, and
``ctx.size(cpu=..., cuda=...)`` so that a CUDA run uses larger sizes; on CPU a cross-check runs with one
torch thread. torch is an optional extra:
without it the claims are skipped, except under CI (``CI=true``), where a missing torch is an error.
"""
import importlib.util
import random
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ..registry import claim

DEVICES = ("auto", "cpu", "cuda")
_state = {"device": "cpu"}


def torch_available():
    return importlib.util.find_spec("torch") is not None


def set_device(name):
    """Choose the device for the cross-checks: "cpu", "cuda" (must be visible) or "auto"."""
    if name not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {name!r}")
    if name == "cuda":
        if not torch_available():
            raise RuntimeError("--device cuda needs torch (pip install torch)")
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("--device cuda: torch sees no CUDA device")
    _state["device"] = name


def resolve_device(name=None):
    """The concrete device name ("cpu" or "cuda") for ``name`` (default: the one set)."""
    name = name or _state["device"]
    if name == "auto":
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


@dataclass(frozen=True)
class TorchContext:
    """What a cross-check needs from torch: the module, a device, float64, seeding, sizes."""

    torch: object
    device: object
    dtype: object

    @property
    def large(self):
        """True on CUDA: run the larger problem sizes."""
        return self.device.type == "cuda"

    def size(self, cpu, cuda):
        return cuda if self.large else cpu

    def seed(self, seed):
        """Seed torch, numpy's global state and random; return a numpy Generator with that seed."""
        self.torch.manual_seed(seed)
        random.seed(seed)
        np.random.seed(seed % 2**32)
        return np.random.default_rng(seed)

    def tensor(self, array):
        return self.torch.as_tensor(np.asarray(array), dtype=self.dtype, device=self.device)

    @staticmethod
    def numpy(tensor):
        return tensor.detach().cpu().numpy()


@contextmanager
def single_thread_on_cpu(ctx):
    """One torch intra-op thread on CPU, restored afterwards: the cross-checks' tensors are small, and
    thread hand-offs cost more than the arithmetic (10-20x slower measured on a busy 2-core machine)."""
    previous = ctx.torch.get_num_threads()
    if ctx.device.type == "cpu":
        ctx.torch.set_num_threads(1)
    try:
        yield ctx
    finally:
        ctx.torch.set_num_threads(previous)


def context(device=None):
    import torch

    return TorchContext(torch, torch.device(resolve_device(device)), torch.float64)


def crosscheck(id, source, statement, cost="slow", needs=()):
    """Register ``fn(ctx) -> Check`` as a claim of kind "crosscheck" that needs torch."""

    def register(fn):
        def check():
            with single_thread_on_cpu(context()) as ctx:
                return fn(ctx)

        check.__qualname__ = fn.__qualname__
        check.__doc__ = fn.__doc__
        claim(id, source, statement, "crosscheck", cost=cost, needs=("torch",) + tuple(needs))(check)
        return fn

    return register
