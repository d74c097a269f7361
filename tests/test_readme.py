"""The README's and the getting-started page's Python examples run as written: every ```python block with ``>>>``
prompts is a doctest, the blocks of one file sharing one namespace in order (as a reader pasting them into one
session would). The README fits on a screen and its links lead somewhere."""
import doctest
import re
from pathlib import Path

from dynamics.theories import CORE, THEORIES, markdown_table

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
EXAMPLE_FILES = [README, ROOT / "docs" / "getting_started.md"]


def _python_blocks(path=README):
    """(first line number, code) of every ```python block."""
    text = path.read_text()
    return [(text.count("\n", 0, m.start(1)), m.group(1)) for m in re.finditer(r"```python\n(.*?)```", text, re.S)]


def test_readme_theory_table_is_the_registry():
    """The table is generated from :mod:`dynamics.theories` (``python -m dynamics.theories``): regenerate it after
    editing the registry."""
    assert markdown_table() in README.read_text()


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_examples_run_as_written(path):
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    namespace = {}
    blocks = [(line, block) for line, block in _python_blocks(path) if ">>>" in block]
    assert blocks, f"{path.name} has no example"
    for line, block in blocks:
        test = parser.get_doctest(block, namespace, f"{path.name} line {line + 1}", str(path), line)
        runner.run(test, clear_globs=False)
        namespace = test.globs
    assert runner.failures == 0, f"{runner.failures} example(s) of {path.name} failed (see the output above)"


def test_readme_fits_on_a_screen_and_its_links_resolve():
    text = README.read_text()
    assert text.count("\n") < 200, f"README.md has {text.count(chr(10))} lines; the docs hold the rest"
    links = re.findall(r"\]\(([^)#:]+)\)", text)
    missing = [link for link in links if not (ROOT / link).exists()]
    assert not missing, f"README links to missing files: {missing}"


def test_citation_file_cites_every_registered_source():
    """CITATION.cff's references hold every work the registry names (add a new source there too)."""
    text = (README.parent / "CITATION.cff").read_text()
    titles = set(re.findall(r'^    title: "(.*)"$', text, re.M))
    missing = [s.key for t in THEORIES + (CORE,) for s in t.sources if s.title.replace('"', '\\"') not in titles]
    assert not missing, f"CITATION.cff lacks {missing}"
