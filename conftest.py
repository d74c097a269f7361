"""Test-session settings, for the tests and the doctests of ``dynamics`` alike.

BLAS threads are pinned to one before numpy loads: the suite's matrices are small, and on a 2-core
machine a multi-threaded BLAS competing with numba's thread pool and torch was measured 100x slower
(eigh of 200x200: 0.6 s against 0.005 s). An explicit setting in the environment wins.

Results cached on disk go to ``.cache/dynamics`` in the repository.

Under CI every hypothesis test is derandomized (the ``ci`` profile): the same examples on every run, so that a
red run is reproducible and not a draw; locally each run explores new examples (``HYPOTHESIS_PROFILE=ci`` to
replay CI's).

The optional torch modules (``dynamics/*/torch_*.py``) are not collected for doctests when torch is
missing, except under CI, where torch is required.
"""
import importlib.util
import os
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("DYNAMICS_COMPILE_NOTICE", "0")
# Expensive results (trained networks) are cached on disk by their arguments and code (dynamics.numerics.cache):
# the tests use a folder of their own, shared by the xdist workers, so claims and figures train each run once.
os.environ.setdefault("DYNAMICS_CACHE_DIR", str(Path(__file__).resolve().parent / ".cache" / "dynamics"))

from hypothesis import settings as _hypothesis_settings

_hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
_CI = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
_hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if _CI else "default"))

collect_ignore_glob = ["figures/demos/*"]
if importlib.util.find_spec("torch") is None and not _CI:
    collect_ignore_glob.append("dynamics/*/torch_*.py")


# ------------------------------------------------------------------------------------------------ the two tiers
# The fast tier (the default, the README's test command) is every test not marked ``slow``: unit, property and
# fuzz tests, the fast claims and their seed sweeps, the doctests, and one browser test per kind (a served demo,
# a page of the built docs, a demo as the static docs show it). ``--full`` adds the tests marked ``slow``: the
# slow claims and the torch cross-checks, every figure, every notebook executed, every browser test. An explicit
# ``-m`` expression replaces the tier choice (``-m slow`` runs the full tier's remainder alone, as .ci/run does).
def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", default=False,
                     help="the full tier: also the tests marked slow (slow claims, torch cross-checks, every figure, "
                          "notebook and browser test); without it only the fast tier runs")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--full") or config.getoption("markexpr"):
        return
    fast = [item for item in items if item.get_closest_marker("slow") is None]
    if len(fast) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item.get_closest_marker("slow") is not None])
        items[:] = fast


def pytest_report_header(config):
    if config.getoption("markexpr"):
        return f"tier: the tests selected by -m {config.getoption('markexpr')!r}"
    if config.getoption("--full"):
        return "tier: full (every test)"
    return "tier: fast (tests marked slow are deselected; --full runs them too)"


# ------------------------------------------------------------------------------------------ fuzz timeouts
# A fuzzed call that runs past its time limit is a timeout, not a crash (tests/test_public_api.py): it is recorded
# here and listed in its own section of the summary, and the test does not fail for it. A crash (NaN, inf for
# finite input, an exception other than ValueError/TypeError) still fails.
FUZZ_TIMEOUTS = []


def pytest_terminal_summary(terminalreporter):
    if FUZZ_TIMEOUTS:
        terminalreporter.section("fuzz timeouts (not crashes)")
        for line in FUZZ_TIMEOUTS:
            terminalreporter.write_line(line)
