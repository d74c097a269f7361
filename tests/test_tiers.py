"""The two test tiers (``conftest.py``): the README's command collects the fast tier, whose content is deliberate;
``--full`` or an explicit ``-m`` expression replaces that choice. What is asserted is what pytest collects, not how
long anything takes (``benchmarks/test_tiers.py`` times the tiers)."""
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from verify import registry

ROOT = Path(__file__).resolve().parents[1]
FAST_BROWSER_TESTS = ["tests/test_demos.py::test_demo_in_chromium[linear_networks]",
                      "tests/test_docs_site.py::test_api_page_renders_its_maths_offline",
                      "tests/test_docs_site.py::test_static_notebook_page_shows_its_figure"]


@pytest.fixture(scope="module")
def fast_tier():
    """The test ids the README's command (no options) collects, and pytest's closing line."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    return [line for line in lines if "::" in line], next(line for line in reversed(lines) if "collected" in line)


def test_the_fast_tier_holds_one_browser_test_per_kind(fast_tier):
    ids, _ = fast_tier
    browser = sorted(i for i in ids if "chromium" in i or i.startswith("tests/test_docs_site.py"))
    assert browser == FAST_BROWSER_TESTS


def test_the_fast_tier_holds_the_fast_claims_and_leaves_the_rest_to_the_full_tier(fast_tier):
    ids, closing = fast_tier
    claims = registry.load_all().values()
    fast = {f"tests/test_claims.py::test_claim[{c.id}]" for c in claims if c.cost == "fast"}
    slow = {f"tests/test_claims.py::test_claim[{c.id}]" for c in claims if c.cost == "slow"}
    assert fast <= set(ids) and not slow & set(ids)
    full_only = ("test_figure_renders", "test_notebook_executes_headless", "test_claims_catch_a_planted_bug")
    assert not [i for i in ids if any(name in i for name in full_only)]
    assert "deselected" in closing  # the full tier's tests are counted, not silently dropped


class _Item:
    def __init__(self, slow):
        self.slow = slow

    def get_closest_marker(self, name):
        return object() if name == "slow" and self.slow else None


@pytest.mark.parametrize("full, markexpr, kept", [(False, "", [False]), (True, "", [False, True]),
                                                  (False, "slow", [False, True])])
def test_full_or_an_explicit_marker_expression_replaces_the_tier(full, markexpr, kept):
    """The hook deselects the slow tests only when neither --full nor -m is given (``-m slow`` then selects them)."""
    import conftest

    options = {"--full": full, "markexpr": markexpr}
    deselected = []
    config = SimpleNamespace(getoption=options.__getitem__,
                             hook=SimpleNamespace(pytest_deselected=lambda items: deselected.extend(items)))
    items = [_Item(False), _Item(True)]
    conftest.pytest_collection_modifyitems(config, items)
    assert [item.slow for item in items] == kept and len(deselected) == 2 - len(kept)
