"""Torch cross-checks: small simulations of the theories' set-ups, compared with :mod:`dynamics`.

Each cross-check is a function ``fn(ctx) -> Check`` registered with :func:`crosscheck` (or, for a source's experiment
in miniature, :func:`experiment`), which makes it a
claim of kind ``crosscheck`` that needs torch. ``ctx`` (:class:`TorchContext`) carries the torch module,
the device of the run (``python -m verify --device cpu|cuda|auto``, passed in the :class:`RunContext`,
never through a module global), float64, seeding through the run's seed offset, and
``ctx.size(cpu=..., cuda=...)`` so that a CUDA run uses larger sizes (and ``ctx.ladder(cpu, cuda_extra)``, so that a
CUDA run extends a rate check's ladder of sizes); on CPU a cross-check runs with one
torch thread. The torch simulations themselves live in the optional modules
``dynamics.<theory>.torch_training``, which register nothing (the figures use them too).

torch is an optional extra: without it the claims are skipped, except under CI (``CI=true``), where a
missing torch is an error.
"""
import importlib.util
import random
from dataclasses import dataclass

import numpy as np

from dynamics.numerics.threads import one_thread

from ..registry import RunContext, claim

DEVICES = ("auto", "cpu", "cuda")


def torch_available():
    return importlib.util.find_spec("torch") is not None


def check_device(name):
    """``name`` if it is a device this machine can run ("cpu", "cuda" with a visible GPU, or "auto")."""
    if name not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {name!r}")
    if name == "cuda":
        if not torch_available():
            raise RuntimeError("--device cuda needs torch (pip install torch)")
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("--device cuda: torch sees no CUDA device")
    return name


def resolve_device(name):
    """The concrete device name ("cpu" or "cuda") for "cpu", "cuda" or "auto"."""
    check_device(name)
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
    run: RunContext = RunContext()

    @property
    def large(self):
        """True on CUDA, or when the run asks for the larger sizes on any device: run the larger problem sizes."""
        return self.device.type == "cuda" or self.run.large_sizes

    def size(self, cpu, cuda):
        """``cuda`` on CUDA (or with the larger sizes asked for), else ``cpu``."""
        return cuda if self.large else cpu

    def ladder(self, cpu, cuda_extra=()):
        """The sizes of a rate check's ladder: ``cpu`` on every device, followed by ``cuda_extra`` on CUDA (or with
        the larger sizes asked for). A GPU run thus adds points to the fit that CPU runs make, instead of
        re-running one size: its slope and standard error cover the CPU sizes and the larger ones."""
        return tuple(cpu) + (tuple(cuda_extra) if self.large else ())

    def seed(self, base):
        """Seed torch, numpy's global state and random with the run's seed for ``base``; return a numpy
        Generator with that seed."""
        seed = self.run.seed(base)
        self.torch.manual_seed(seed)
        random.seed(seed)
        np.random.seed(seed % 2**32)
        return np.random.default_rng(seed)

    def tensor(self, array):
        return self.torch.as_tensor(np.asarray(array), dtype=self.dtype, device=self.device)

    @staticmethod
    def numpy(tensor):
        return tensor.detach().cpu().numpy()


def context(run=None):
    """The :class:`TorchContext` of a run (default: CPU, seed offset 0)."""
    import torch

    run = run or RunContext()
    return TorchContext(torch, torch.device(resolve_device(run.device)), torch.float64, run)


def crosscheck(id, source, statement, cost="slow", needs=(), stochastic=True, kind="crosscheck"):
    """Register ``fn(ctx) -> Check`` as a claim of kind "crosscheck" (or ``kind``) that needs torch."""

    def register(fn):
        def check(run):
            ctx = context(run)  # imports torch first, so that one_thread pins its pool too
            with one_thread():
                return fn(ctx)

        check.__qualname__ = fn.__qualname__
        check.__doc__ = fn.__doc__
        claim(id, source, statement, kind, cost=cost, needs=("torch",) + tuple(needs),
              stochastic=stochastic)(check)
        return fn

    return register


def experiment(id, source, statement, needs=()):
    """Register ``fn(ctx) -> Check`` as a slow claim of kind "experiment": one of a source's experiments reproduced
    in miniature by a torch trainer of :mod:`dynamics` run over seeds. Its check is the source's qualitative
    statement (a sign or an ordering), held with a confidence interval over seeds and a stated effect size.
    ``ctx.size(cpu=..., cuda=...)`` gives the reduced size that CI runs and the source's size that ``--device cuda``
    runs."""
    return crosscheck(id, source, statement, cost="slow", needs=needs, stochastic=True, kind="experiment")
