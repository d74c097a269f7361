"""The architecture rules of CONTRIBUTING.md, checked on the source (static: nothing of the project is run).

- Layers: ``figures`` never imports ``verify``; ``dynamics`` imports neither; a theory package imports
  ``dynamics.numerics`` and no other theory; the numerics core imports no theory.
- The torch rule: the torch layer is what the registry declares (``Theory.torch_modules``), and the imports agree:
  exactly the declared modules import torch, directly or through another project module, so that no package and
  no analytic module loads torch. File names play no part.
- No import circle anywhere in ``dynamics``, ``verify`` and ``figures`` (imports inside functions included).
- One list of theories: no module but ``dynamics/theories.py`` spells the theories out; the claims and figures modules
  are exactly those of the registered theories.
- One alias per theory: ``import dynamics.<id> as X`` uses the registry's alias, in code and notebooks.
- One package shape: the same private modules in every theory, each holding what its name says, and a package
  docstring with a running example (a doctest).
"""
import ast
import json
from pathlib import Path

import pytest

from dynamics.theories import CORE, THEORIES

ROOT = Path(__file__).resolve().parents[1]
IDS = {t.id for t in THEORIES}
ALIASES = {t.id: t.alias for t in THEORIES + (CORE,)}
LAYERS = ("dynamics", "verify", "figures")
SHAPE = ("__init__.py", "_results.py", "_checks.py", "_kernels.py", "_setups.py")
FRAMEWORK = {"verify": {"__init__", "__main__", "registry", "runner", "errata", "pages", "records", "coverage",
                        "symbolic"},
             "verify/crosscheck": {"__init__"},
             "figures": {"__init__", "__main__", "registry", "style", "interactive"}}


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for layer in LAYERS for p in (ROOT / layer).rglob("*.py")}


def _resolve(module, node):
    """The project modules (or external top-level names) an import node names, from ``module``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    if node.level:
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = ".".join(filter(None, [package, node.module]))
    else:
        base = node.module
    named = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES]
    return named if len(named) == len(node.names) else [base] + named


def _imports(module):
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield from _resolve(module, node)


IMPORTS = {m: sorted(set(_imports(m))) for m in MODULES}


def _top(name):
    return name.split(".")[0]


def test_layers():
    for module, imported in IMPORTS.items():
        if module.startswith("figures"):
            assert not any(_top(m) == "verify" for m in imported), module
        if module.startswith("dynamics"):
            assert not any(_top(m) in ("verify", "figures") for m in imported), module
            parts = module.split(".")
            if len(parts) > 1 and parts[1] in IDS:
                own = {"dynamics", f"dynamics.{parts[1]}", "dynamics.numerics", "dynamics.theories"}
                foreign = [m for m in imported if _top(m) == "dynamics" and not any(
                    m == o or m.startswith(f"dynamics.{parts[1]}.") or m.startswith("dynamics.numerics.")
                    for o in own)]
                assert not foreign, f"{module} imports another theory: {foreign}"
            if len(parts) > 1 and parts[1] == CORE.id:
                assert not any(m.split(".")[1:2] and m.split(".")[1] in IDS for m in imported
                               if _top(m) == "dynamics"), f"{module}: the numerics core imports a theory"


DECLARED_TORCH_LAYER = {f"{t.package}.{name}" for t in THEORIES + (CORE,) for name in t.torch_modules}


def _torch_layer(imports):
    """The modules of ``dynamics`` that import torch: directly, or through a project module that does (a fixpoint
    over the import graph, imports inside functions included)."""
    layer = {m for m, imported in imports.items() if m.startswith("dynamics") and
             any(_top(i) == "torch" for i in imported)}
    while True:
        grown = layer | {m for m, imported in imports.items() if m.startswith("dynamics") and layer & set(imported)}
        if grown == layer:
            return layer
        layer = grown


def test_torch_rule():
    """The modules that import torch are exactly the declared torch layer: a package, an analytic module or a
    numpy-only module in a torch file breaks it (the first two because they would import torch, the third because
    its module would not)."""
    layer = _torch_layer(IMPORTS)
    assert not layer - DECLARED_TORCH_LAYER, (
        f"{sorted(layer - DECLARED_TORCH_LAYER)} import torch (directly or through the torch layer) but are not "
        f"declared in dynamics/theories.py (Theory.torch_modules); only the optional torch layer may")
    assert not DECLARED_TORCH_LAYER - layer, (
        f"{sorted(DECLARED_TORCH_LAYER - layer)} are declared torch modules but do not import torch: move their "
        f"numpy code into the package's own modules")
    assert all(m in MODULES for m in DECLARED_TORCH_LAYER), sorted(DECLARED_TORCH_LAYER - set(MODULES))


def test_the_torch_layer_finder_follows_imports():
    graph = {"dynamics.a.x": ["torch"], "dynamics.a.y": ["dynamics.a.x"], "dynamics.a": ["dynamics.a.z"],
             "dynamics.a.z": ["numpy"], "figures.f": ["torch"]}
    assert _torch_layer(graph) == {"dynamics.a.x", "dynamics.a.y"}


def _cycles(graph):
    """The strongly connected components with more than one module (Tarjan), or a module importing itself."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_circle():
    graph = {m: [i for i in imported if i in MODULES and i != m] for m, imported in IMPORTS.items()}
    assert not _cycles(graph), _cycles(graph)


def test_the_circle_finder_finds_circles():
    assert _cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert _cycles({"a": ["b"], "b": []}) == []


def _lists_theories(tree):
    """The line numbers of literals (list, tuple, set, dict keys) that hold three or more theory ids."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
            elements = node.keys if isinstance(node, ast.Dict) else node.elts
            named = {e.value for e in elements if isinstance(e, ast.Constant) and e.value in IDS}
            if len(named) >= 3:
                yield node.lineno


def _python_files():
    files = [p for layer in LAYERS + ("tests", "benchmarks") for p in (ROOT / layer).rglob("*.py")]
    return files + [ROOT / "conftest.py"]


def test_only_the_registry_lists_the_theories():
    offenders = []
    for path in _python_files():
        if path == ROOT / "dynamics" / "theories.py":
            continue
        offenders += [f"{path.relative_to(ROOT)}:{line}" for line in _lists_theories(ast.parse(path.read_text()))]
    assert not offenders, f"read dynamics.theories instead of listing the theories: {offenders}"


def test_the_list_finder_finds_a_list():
    some = sorted(IDS)[:3]
    assert list(_lists_theories(ast.parse(f"TITLES = {{{some[0]!r}: 1, {some[1]!r}: 2, {some[2]!r}: 3}}")))
    assert list(_lists_theories(ast.parse(f"for t in {tuple(some)!r}: pass")))
    assert not list(_lists_theories(ast.parse(f"x = ({some[0]!r}, {some[1]!r})")))


@pytest.mark.parametrize("folder", sorted(FRAMEWORK))
def test_claims_and_figures_modules_belong_to_registered_theories(folder):
    names = {p.stem for p in (ROOT / folder).glob("*.py")}
    unknown = names - FRAMEWORK[folder] - IDS - {CORE.id}
    assert not unknown, f"{folder}: modules of no registered theory (add them to dynamics/theories.py): {unknown}"


def _notebook_code(path):
    cells = json.loads(path.read_text())["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def _aliases(source):
    tree = ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if alias.asname and len(parts) == 2 and parts[0] == "dynamics" and parts[1] in ALIASES:
                    yield parts[1], alias.asname
        elif isinstance(node, ast.ImportFrom) and node.module == "dynamics" and node.level == 0:
            for alias in node.names:
                if alias.asname and alias.name in ALIASES:
                    yield alias.name, alias.asname


def test_one_alias_per_theory():
    wrong = []
    sources = [(p, p.read_text()) for p in _python_files()]
    sources += [(p, _notebook_code(p)) for p in (ROOT / "figures" / "demos").glob("*.ipynb")]
    for path, source in sources:
        wrong += [f"{path.relative_to(ROOT)}: {theory} as {alias} (use {ALIASES[theory]})"
                  for theory, alias in _aliases(source) if alias != ALIASES[theory]]
    assert not wrong, wrong


def _decorator_names(node):
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        yield ast.unparse(target)


@pytest.mark.parametrize("theory", sorted(IDS))
def test_theory_package_shape(theory):
    folder = ROOT / "dynamics" / theory
    missing = [name for name in SHAPE if not (folder / name).exists()]
    assert not missing, f"dynamics/{theory} lacks {missing} (see CONTRIBUTING.md)"
    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and any("NamedTuple" in ast.unparse(b) for b in node.bases):
                assert path.name == "_results.py", f"{path.relative_to(ROOT)}: NamedTuple {node.name} outside _results.py"
            if isinstance(node, ast.FunctionDef):
                if any(d.split(".")[-1] in ("njit", "jit", "vectorize", "guvectorize") for d in _decorator_names(node)):
                    assert path.name == "_kernels.py", f"{path.relative_to(ROOT)}: kernel {node.name} outside _kernels.py"
                if node.name.lstrip("_").startswith(("require_", "check_")):
                    assert path.name == "_checks.py", f"{path.relative_to(ROOT)}: check {node.name} outside _checks.py"
        if path.name == "__init__.py":
            assert not [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))], \
                f"dynamics/{theory}/__init__.py defines code: it only re-exports"
            doc = ast.get_docstring(tree) or ""
            assert "Examples\n--------" in doc and ">>>" in doc, \
                f"dynamics/{theory}/__init__.py: the package docstring shows the theory in a running example"
