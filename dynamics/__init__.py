"""Analytic dynamics of learning: closed forms, numba ODEs and fixed points for the theories listed below.

Each theory is a subpackage, loaded on first use (``import dynamics`` stays instant and compiles nothing)::

    import dynamics
    dynamics.starvation.lambert_fixed_point([2.0, 1.0], 0.5)

The theories are named once, in the registry :mod:`dynamics.theories`; the numerics core they share is
:mod:`dynamics.numerics`. ``dynamics`` never imports ``verify`` or ``figures``. Its analytic code never imports
torch: each theory's optional torch layer is its ``torch_*`` modules, which nothing analytic imports (the shared torch
helpers are :mod:`dynamics.numerics.torch_tools`).
"""
import importlib

from .theories import CORE, THEORIES

__version__ = "0.1.0"

_SUBPACKAGES = {t.id for t in THEORIES} | {CORE.id, "warmup"}

__doc__ += "\nTheories (from :mod:`dynamics.theories`):\n\n" + "\n".join(
    f"* ``dynamics.{t.id}``: {t.summary} ({'; '.join(s.key for s in t.sources)})" for t in THEORIES + (CORE,)) + "\n"


def __getattr__(name):
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _SUBPACKAGES)
