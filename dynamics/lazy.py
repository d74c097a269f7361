"""Modules imported on first use (:func:`lazy_module`): ``python -m verify --list`` and ``python -m figures --list``
read the registries without paying for numba, matplotlib, scipy's subpackages, sympy or mpmath (about a second on
a 2-core machine). The claims and figures modules import their heavy dependencies through it; so can a user's own
module that should import quickly."""
import importlib
import importlib.util
import sys
import types

__all__ = ["lazy_module"]


class _LazyModule(types.ModuleType):
    """Stands for a module until one of its attributes is read; then imports it and takes on its namespace."""

    def __getattr__(self, attr):
        module = importlib.import_module(self.__name__)
        self.__dict__.update(module.__dict__)
        return getattr(module, attr)


def lazy_module(name: str) -> types.ModuleType:
    """The module ``name``, imported when one of its attributes is first read.

    Until then nothing is imported, not even the parent package of a submodule (``"matplotlib.colors"`` leaves
    matplotlib unloaded), and ``sys.modules`` is untouched.

    Parameters
    ----------
    name : str
        A module's dotted name, e.g. ``"scipy.optimize"``.

    Returns
    -------
    module
        The module itself if it is already imported, else a stand-in whose first attribute read imports it.

    Raises
    ------
    ValueError
        If ``name`` is not a dotted module name.
    ModuleNotFoundError
        If the top-level package of ``name`` is not installed.

    Examples
    --------
    >>> from dynamics.lazy import lazy_module
    >>> lazy_module("json").dumps([1])
    '[1]'
    """
    if not isinstance(name, str) or not all(part.isidentifier() for part in name.split(".")):
        raise ValueError(f"name must be a module's dotted name such as 'scipy.optimize', got {name!r}")
    if name in sys.modules:
        return sys.modules[name]
    top = name.partition(".")[0]
    if top not in sys.modules and importlib.util.find_spec(top) is None:
        raise ModuleNotFoundError(f"No module named {top!r}", name=top)
    return _LazyModule(name)
