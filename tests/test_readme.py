"""The README's Python examples run as written: every ```python block with ``>>>`` prompts is a doctest, the
blocks sharing one namespace in order (as a reader pasting them into one session would)."""
import doctest
import re
from pathlib import Path

from dynamics.theories import CORE, THEORIES, markdown_table

README = Path(__file__).resolve().parents[1] / "README.md"


def _python_blocks():
    """(first line number, code) of every ```python block."""
    text = README.read_text()
    return [(text.count("\n", 0, m.start(1)), m.group(1)) for m in re.finditer(r"```python\n(.*?)```", text, re.S)]


def test_readme_theory_table_is_the_registry():
    """The table is generated from :mod:`dynamics.theories` (``python -m dynamics.theories``): regenerate it after
    editing the registry."""
    assert markdown_table() in README.read_text()


def test_readme_examples_run_as_written():
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    namespace = {}
    for line, block in _python_blocks():
        if ">>>" not in block:
            continue
        test = parser.get_doctest(block, namespace, f"README line {line + 1}", str(README), line)
        runner.run(test, clear_globs=False)
        namespace = test.globs
    assert runner.failures == 0, f"{runner.failures} README example(s) failed (see the output above)"


def test_citation_file_cites_every_registered_source():
    """CITATION.cff's references hold every work the registry names (add a new source there too)."""
    text = (README.parent / "CITATION.cff").read_text()
    titles = set(re.findall(r'^    title: "(.*)"$', text, re.M))
    missing = [s.key for t in THEORIES + (CORE,) for s in t.sources if s.title.replace('"', '\\"') not in titles]
    assert not missing, f"CITATION.cff lacks {missing}"
