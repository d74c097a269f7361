"""Shared docstring entries (``dynamics.numerics._docstrings``): the placeholders fill, unknown ones fail at import,
no public docstring is left with a placeholder, the records' code hash ignores the documentation decorator, and the
copied Parameters text does not grow back."""
import ast
import collections
import importlib
import inspect
import re
import sys
import textwrap
from pathlib import Path

import pytest

import dynamics
from dynamics.numerics._docstrings import SHARED, DocTable
from dynamics.numerics.records import code_hash
from dynamics.theories import THEORIES

ROOT = Path(__file__).resolve().parents[1]


def test_a_placeholder_takes_the_entry_at_its_own_indentation():
    table = DocTable({"x": "x : float\n    A number.\n\n    Second paragraph."})

    class Holder:
        @table.fill
        def method(self, x):
            """Parameters
            ----------
            %(x)s
            y : int
            """

    assert inspect.getdoc(Holder.method) == ("Parameters\n----------\nx : float\n    A number.\n\n    Second "
                                             "paragraph.\ny : int")


def test_only_a_line_holding_the_placeholder_alone_is_filled():
    table = DocTable({"x": "x : float"})
    assert table.format("a %(x)s b\n    %(x)s  \n") == "a %(x)s b\n    x : float\n"


def test_an_unknown_placeholder_fails_naming_it():
    with pytest.raises(ValueError, match=r"%\(nope\)s names no entry"):
        SHARED.format("    %(nope)s")


def test_a_parameter_has_one_description():
    with pytest.raises(ValueError, match="already in the table"):
        SHARED.extended(device="device : str")
    with pytest.raises(ValueError, match="identifiers"):
        DocTable({"not a name": "x"})
    with pytest.raises(ValueError, match="non-empty"):
        DocTable({"x": "  "})


def test_no_docstring_without_docstrings_is_touched():
    def bare(x):
        return x

    bare.__doc__ = None
    assert SHARED.fill(bare) is bare and bare.__doc__ is None


def _public_objects():
    for theory in ("numerics",) + tuple(t.id for t in THEORIES):
        module = importlib.import_module(f"dynamics.{theory}")
        for name in module.__all__:
            obj = getattr(module, name)
            yield f"dynamics.{theory}.{name}", obj
            for attr, member in vars(obj).items() if inspect.isclass(obj) else ():
                if callable(member) and not attr.startswith("_"):
                    yield f"dynamics.{theory}.{name}.{attr}", member


def test_no_public_docstring_is_left_with_a_placeholder():
    left = [name for name, obj in _public_objects()
            if isinstance(getattr(obj, "__doc__", None), str) and re.search(r"^\s*%\(\w+\)s\s*$", obj.__doc__, re.M)]
    assert not left


def test_the_placeholders_are_used(monkeypatch):
    """Each theory's table is used, and a filled entry reads as its table says (the decorator ran)."""
    import dynamics.and_mask as am

    assert "agreement_threshold : float\n    Agreement threshold" in inspect.getdoc(am.keep_probability)
    assert 'device : str or torch.device, default "cpu"' in inspect.getdoc(
        importlib.import_module("dynamics.spherical.torch_models").bn_mlp)


def test_the_code_hash_ignores_the_documentation_decorator_and_its_import(tmp_path, monkeypatch):
    plain = '''
        def f(x):
            """Parameters
            ----------
            x : float
            """
            return x + 1
        '''
    documented = '''
        from dynamics.numerics._docstrings import fill_doc


        @fill_doc
        def f(x):
            """Parameters
            ----------
            %(learning_rate)s
            """
            return x + 1
        '''
    other = documented.replace("@fill_doc", "@staticmethod")
    changed = plain.replace("x + 1", "x + 2")
    monkeypatch.syspath_prepend(str(tmp_path))
    hashes = []
    for text in (plain, documented, other, changed):  # one module name: the name enters the hash
        (tmp_path / "docmod.py").write_text(textwrap.dedent(text))
        sys.modules.pop("docmod", None)
        hashes.append(code_hash(["docmod"]))
    assert hashes[1] == hashes[0]
    assert hashes[2] != hashes[0]  # another decorator is code
    assert hashes[3] != hashes[0]


def _parameter_entries():
    """Every hand-written Parameters entry in the sources of dynamics/: (its text, where)."""
    entries = collections.defaultdict(list)
    for path in sorted((ROOT / "dynamics").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                continue
            doc = ast.get_docstring(node, clean=True)
            if not doc or "\nParameters\n----------\n" not in f"\n{doc}":
                continue
            section = re.split(r"\n\n\S[^\n]*\n-{3,}\n", doc.split("Parameters\n----------\n", 1)[1], 1)[0]
            for entry in re.split(r"\n(?=\S)", section.strip()):
                if entry and not entry.startswith("%("):
                    entries[entry].append(f"{path.relative_to(ROOT)}:{node.name}")
    return entries


# The copied Parameters entries (the same text written by hand in two or more docstrings) left when the shared
# tables were introduced: a ratchet, to be lowered as more entries move into the tables.
COPIED_ENTRIES = 180


def test_copied_parameter_text_does_not_grow():
    copies = sum(len(where) for where in _parameter_entries().values() if len(where) > 1)
    assert copies <= COPIED_ENTRIES, (
        f"{copies} Parameters entries are copies of another docstring's entry (at most {COPIED_ENTRIES}): "
        "put a repeated entry into the theory's table (dynamics/<theory>/_docs.py) and write %(name)s")


def test_the_shared_entries_are_not_written_by_hand():
    """An entry of the shared table is written out verbatim in no docstring, and a theory's entry in none of that
    theory's docstrings."""
    by_hand = []
    for text, where in _parameter_entries().items():
        for place in where:
            parts = Path(place.split(":")[0]).parts
            theory = parts[1] if len(parts) > 2 else "numerics"  # dynamics/*.py: the framework
            table = SHARED if theory == "numerics" else importlib.import_module(f"dynamics.{theory}._docs").TABLE
            if text in table.entries.values():
                by_hand.append((place, text))
    assert not by_hand
