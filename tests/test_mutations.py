"""Mutation smoke test: plant known single-edit bugs in a copy of the library and assert that the claims catch them.

Each mutation replaces one exact snippet of a ``dynamics`` source file (the test fails if the snippet is gone, so
a refactor has to carry the mutation along), and runs ``python -m verify --only <claims>`` on the mutated copy in
a subprocess. The bug is caught when every named claim fails (a FAIL verdict, or an error that is not about the
copy itself, such as an import error); torch cross-checks are skipped where torch is missing outside CI. The first three are the bugs a mutation run found
that no claim caught; the others are plausible slips (a factor 2, a sign, an exponent) in the three later theories.

The copy keeps numba's on-disk caches (``__pycache__``, modification times preserved), so only the mutated module
recompiles. Slow: each mutation runs in a fresh interpreter.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple, Tuple

import pytest

from dynamics.theories import theory_ids
from verify import registry

ROOT = Path(__file__).resolve().parents[1]


class Mutation(NamedTuple):
    name: str
    path: str
    before: str
    after: str
    claims: Tuple[str, ...]


MUTATIONS = [
    Mutation("Eq 10 diagonal shift 1 -> 1/2 in the starvation map", "dynamics/starvation/_kernels.py",
             "Q[0, 0] += 1.0\n        Q[1, 1] += 1.0", "Q[0, 0] += 0.5\n        Q[1, 1] += 0.5",
             ("starvation.starvation_map_pointwise",)),
    Mutation("Q-penalty schedule strength 0.6 -> 0.3", "dynamics/double_descent/_setups.py",
             "def q_penalty_schedule(n_steps, strength=0.6,", "def q_penalty_schedule(n_steps, strength=0.3,",
             ("double_descent.q_penalty_schedule", "double_descent.torch_q_penalty_schedule")),
    Mutation("gd_flow_time counts k + 1 steps", "dynamics/linear_networks/_network.py",
             "t = require_finite_product([k, scale, eta, tau],",
             "t = require_finite_product([k + 1.0, scale, eta, tau],",
             ("linear_networks.time_scale_convention",)),
    Mutation("Proposition 1: BA margins scaled by 2", "dynamics/spurious/_proposition1.py",
             "log_ba = log_softplus_of_negative(kk * alpha)", "log_ba = log_softplus_of_negative(2.0 * kk * alpha)",
             ("spurious.prop1_exact_ratio",)),
    Mutation("AND-mask threshold rounded down instead of up", "dynamics/and_mask/_mask.py",
             "return max(0, math.ceil(agreement_threshold * n_envs - THRESHOLD_SLACK))",
             "return max(0, math.floor(agreement_threshold * n_envs - THRESHOLD_SLACK))",
             ("and_mask.noise_keep_probability_exact",)),
    Mutation("Theorem 2 step: effective rate over r instead of r squared", "dynamics/spherical/_step.py",
             "A = learning_rate / (r * r * scale)", "A = learning_rate / (r * scale)",
             ("spherical.theorem2_one_step",)),
]


def _copy_library(destination):
    for package in ("dynamics", "verify"):
        shutil.copytree(ROOT / package, destination / package, copy_function=shutil.copy2)


def _apply(mutation, tree):
    path = tree / mutation.path
    text = path.read_text()
    assert text.count(mutation.before) == 1, f"{mutation.path}: the mutated snippet must occur once: {mutation.before!r}"
    path.write_text(text.replace(mutation.before, mutation.after))


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
    rows = json.loads(report.read_text())
    assert sorted(row["id"] for row in rows) == sorted(mutation.claims), done.stderr[-3000:]
    missed = [row for row in rows if row["verdict"] == "pass"
              or (row["verdict"] == "error" and "ModuleNotFoundError" in row["detail"] and "torch" not in row["detail"])]
    skipped = [row["id"] for row in rows if row["verdict"] == "skipped"]
    if skipped and registry.in_ci():
        pytest.fail(f"skipped under CI: {skipped}")
    assert not missed, f"{mutation.name}: passed on the mutated code: " + "; ".join(
        f"{row['id']} {row['measured']} {row['comparison']} {row['tolerance']}" for row in missed)


def test_every_theory_has_a_planted_bug():
    """Each registered theory carries at least one planted bug (the registry, not this file, lists the theories)."""
    planted = {Path(m.path).parts[1] for m in MUTATIONS}
    assert set(theory_ids()) <= planted, f"no planted bug in {sorted(set(theory_ids()) - planted)}"
