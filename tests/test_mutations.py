"""Mutation smoke test: plant known single-edit bugs in a copy of the library and assert that the claims catch them.

Each theory's claims module declares its planted bugs (``verify.registry.planted_bug``). Each replaces one exact
snippet of a ``dynamics`` source file (the test fails if the snippet is gone, so a refactor has to carry the bug
along), and runs ``python -m verify --only <claims>`` on the mutated copy in a subprocess. The bug is caught when every
named claim fails (a FAIL verdict, or an error that is not about the copy itself, such as an import error); torch
cross-checks are skipped where torch is missing outside CI.

The copy keeps numba's on-disk caches (``__pycache__``, modification times preserved) except those of the mutated
file's package, which recompiles: numba keys a cached kernel by its own file, so a kernel that calls the mutated one
(or reads its constants) would otherwise keep the old code. Slow: each mutation runs in a fresh interpreter.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dynamics.theories import theory_ids
from verify import registry

ROOT = Path(__file__).resolve().parents[1]


registry.load_all()
MUTATIONS = sorted(registry.PLANTED_BUGS.values(), key=lambda m: m.name)


def _copy_library(destination):
    for package in ("dynamics", "verify", "records"):  # the records: a record claim must meet its file, not its absence
        shutil.copytree(ROOT / package, destination / package, copy_function=shutil.copy2)


def _apply(mutation, tree):
    path = tree / mutation.path
    text = path.read_text()
    assert text.count(mutation.before) == 1, f"{mutation.path}: the mutated snippet must occur once: {mutation.before!r}"
    path.write_text(text.replace(mutation.before, mutation.after))
    # numba keys a cached kernel by its own file: a kernel of the same package that calls (or reads constants from)
    # the mutated file would keep the old code, so the package's numba caches go
    for cache in path.parent.glob("__pycache__/*.nb[ic]"):
        cache.unlink()


@pytest.mark.slow
@pytest.mark.parametrize("mutation", MUTATIONS, ids=[m.name for m in MUTATIONS])
def test_claims_catch_a_planted_bug(mutation, tmp_path):
    _copy_library(tmp_path)
    _apply(mutation, tmp_path)
    report = tmp_path / "report.json"
    env = dict(os.environ, PYTHONPATH=str(tmp_path), DYNAMICS_COMPILE_NOTICE="0")
    command = [sys.executable, "-c",
               "import sys, dynamics, verify.__main__ as m; "
               f"assert dynamics.__file__.startswith({str(tmp_path)!r}), dynamics.__file__; "
               "sys.exit(m.main(sys.argv[1:]))",
               "--only", ",".join(mutation.claims), "--slow", "--json", str(report)]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert report.exists(), done.stderr[-3000:]
    rows = json.loads(report.read_text())["claims"]
    assert sorted(row["id"] for row in rows) == sorted(mutation.claims), done.stderr[-3000:]
    missed = [row for row in rows if row["verdict"] == "pass"
              or (row["verdict"] == "error" and "ModuleNotFoundError" in row["detail"] and "torch" not in row["detail"])]
    skipped = [row["id"] for row in rows if row["verdict"] == "skipped"]
    if skipped and registry.in_ci():
        pytest.fail(f"skipped under CI: {skipped}")
    assert not missed, f"{mutation.name}: passed on the mutated code: " + "; ".join(
        f"{row['id']} {row['measured']} {row['comparison']} {row['tolerance']}" for row in missed)


def test_every_theory_has_a_planted_bug():
    """Each registered theory's claims module declares at least one planted bug (``verify.registry.planted_bug``)."""
    planted = {m.claims[0].split(".")[0] for m in MUTATIONS}
    assert set(theory_ids()) <= planted, f"no planted bug in {sorted(set(theory_ids()) - planted)}"
