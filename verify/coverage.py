"""Which claims name each public function of :mod:`dynamics`: the reference pages' "Checked by" lists, and the
functions that no claim names (``python -m verify.coverage``).

A claim names a function when its check (for a reproduction record's claim, its plan's trainer and judge), or a helper of
its own module that the check calls (two levels deep), calls the function by its public name (``mode_curve(...)``, ``ln.mode_curve(...)``). The reading is static: a
function reached only through another library function is not counted, so the list says which functions a claim
exercises by name, not every line a claim runs. When two packages export the same name, the call is credited to
those that the claim's module imports.
"""
import ast
import functools
import importlib
import inspect
import re
import sys
import textwrap
from typing import Dict, Tuple

__all__ = ["public_names", "public_functions", "claims_naming", "unnamed_functions"]


def public_names() -> Dict[str, object]:
    """{documented name: object} for every name in the ``__all__`` of the numerics core, each theory's package and
    its torch layer (as the registry declares it, where torch is installed), as the API reference lists them."""
    from dynamics.theories import CORE, THEORIES

    found = {}
    for t in (CORE,) + THEORIES:
        for module_name in [t.package] + [f"{t.package}.{name}" for name in sorted(t.torch_modules)]:
            try:
                module = importlib.import_module(module_name)
            except ImportError:  # a torch layer without torch
                continue
            for name in getattr(module, "__all__", ()):
                found[f"{module_name}.{name}"] = getattr(module, name, None)
    return found


def public_functions() -> Dict[str, object]:
    """{documented name: function} of :func:`public_names` (numba-compiled ones included)."""
    return {full: obj for full, obj in public_names().items()
            if inspect.isfunction(obj) or type(obj).__name__ == "CPUDispatcher"}


_FOREIGN = {"np", "numpy", "sp", "sympy", "mpmath", "math", "scipy", "torch", "stats", "special", "linalg"}
"""Module aliases whose attribute calls are never the library's (``sp.integrate`` is not ``numerics.integrate``)."""


def _calls(function, bare_only=False):
    """The names a function calls: ``f(...)`` gives ``f``, ``a.b.f(...)`` gives ``f`` (unless ``a`` is a third-party
    module's alias, :data:`_FOREIGN`, or ``bare_only``); not the context managers of its ``with`` statements."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return set()
    contexts = {id(item.context_expr) for node in ast.walk(tree) if isinstance(node, (ast.With, ast.AsyncWith))
                for item in node.items}  # `with one_thread():` sets up a computation, it is not one under test
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node) not in contexts:
            target = node.func
            if isinstance(target, ast.Attribute):
                root = target.value
                while isinstance(root, ast.Attribute):
                    root = root.value
                if not bare_only and not (isinstance(root, ast.Name) and root.id in _FOREIGN):
                    names.add(target.attr)
            elif isinstance(target, ast.Name):
                names.add(target.id)
    return names


def _reached(function, depth=2):
    """The names called by ``function`` and by the functions of its own module that it calls by bare name (not
    ``sph.x(...)``, which is the library's ``x`` even where the module has a function of that name), ``depth``
    levels."""
    module = sys.modules.get(function.__module__)
    seen, frontier, names = {function}, [function], set()
    for _ in range(depth + 1):
        following = []
        for f in frontier:
            names |= _calls(f)
            for name in _calls(f, bare_only=True):
                helper = getattr(module, name, None)
                if inspect.isfunction(helper) and helper.__module__ == function.__module__ and helper not in seen:
                    seen.add(helper)
                    following.append(helper)
        frontier = following
    return names


@functools.lru_cache(maxsize=1)
def claims_naming() -> Dict[str, Tuple[str, ...]]:
    """{documented function name: the ids of the claims that call it by name}, every public function included
    (an empty tuple where none does).

    Examples
    --------
    >>> naming = claims_naming()
    >>> "linear_networks.sympy_sigmoid_solves_ode" in naming["dynamics.linear_networks.mode_strength"]
    True
    """
    from .registry import load_all

    functions = public_functions()
    by_name = {}
    for full in functions:
        by_name.setdefault(full.rsplit(".", 1)[1], []).append(full)
    naming = {full: [] for full in functions}
    from .records import PLANS

    for claim in sorted(load_all().values(), key=lambda c: c.id):
        check = inspect.unwrap(claim.check)
        called = _reached(check)
        if ".record_" in claim.id:  # a record's claim replays its plan's trainer and recomputes its verdict
            plan = PLANS[claim.id.replace(".record_", ".")]
            module_name, function = plan.trainer.split(":")
            check = getattr(importlib.import_module(module_name), function)
            called = _reached(check) | _reached(plan.judge)
        module_source = inspect.getsource(sys.modules[check.__module__]) if check.__module__ in sys.modules else ""
        for name in called:
            candidates = by_name.get(name, ())
            if len(candidates) > 1:
                imported = [full for full in candidates if _imports(module_source, full)]
                candidates = imported or candidates
            for full in candidates:
                naming[full].append(claim.id)
    return {full: tuple(ids) for full, ids in naming.items()}


def _imports(source, full):
    """Whether a module's source imports the package (or torch module) of the documented name ``full``."""
    module = full.rsplit(".", 1)[0]
    short = module.rsplit(".", 1)[1]
    return bool(re.search(rf"\b{re.escape(module)}\b|import [^\n]*\b{re.escape(short)}\b", source))


def unnamed_functions() -> Tuple[str, ...]:
    """The public functions that no claim calls by name."""
    return tuple(full for full, ids in claims_naming().items() if not ids)


def main():
    naming = claims_naming()
    unnamed = unnamed_functions()
    print(f"{len(naming) - len(unnamed)} of {len(naming)} public functions are called by name in a claim; "
          f"{len(unnamed)} are not:")
    for full in unnamed:
        print(f"  {full}")


if __name__ == "__main__":
    main()
