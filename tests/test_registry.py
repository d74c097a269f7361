"""The claim registry and the verify CLI: verdicts, errata, reports, exit status."""
import json
import math

import pytest

from verify import registry
from verify.__main__ import main
from verify.registry import Check, Claim


def test_check_verdicts():
    assert Check(1e-9, 1e-8).passed
    assert not Check(1e-7, 1e-8).passed
    assert not Check(math.nan, 1.0).passed  # NaN never passes
    assert not Check(math.inf, math.inf).passed


def test_erratum_needs_printed_form_rejected_and_corrected_form_holding():
    assert Check.erratum(printed_error=0.5, corrected_error=1e-3, tolerance=1e-2).passed
    assert not Check.erratum(printed_error=0.05, corrected_error=1e-3, tolerance=1e-2).passed  # printed not rejected
    assert not Check.erratum(printed_error=0.5, corrected_error=0.02, tolerance=1e-2).passed  # corrected fails
    assert not Check.erratum(printed_error=math.nan, corrected_error=1e-3, tolerance=1e-2).passed


def test_numpy_verdicts_become_plain_bools_for_the_json_report():
    import numpy as np

    assert Check(np.float64(1.0), 2.0, np.bool_(True)).passed is True


def test_all_of_reports_the_worst_and_fails_if_any_fails():
    combined = Check.all_of([Check(0.1, 1.0), Check(2.0, 1.0), Check(0.0, 0.0)])
    assert not combined.passed and combined.measured == 2.0
    assert Check.all_of([Check(0.1, 1.0), Check(0.0, 0.0)]).passed


def test_crashing_claim_is_an_error_not_a_crash():
    def boom():
        raise ZeroDivisionError("x")

    result = registry.run_claim(Claim("numerics.boom", "s", "s", "identity", boom))
    assert result.verdict == "error" and not result.passed and "ZeroDivisionError" in result.detail


def test_missing_optional_dependency_skips_outside_ci_and_fails_in_ci(monkeypatch):
    c = Claim("numerics.needs", "s", "s", "crosscheck", lambda: Check(0, 1), needs=("no_such_module_xyz",))
    monkeypatch.delenv("CI", raising=False)
    assert registry.run_claim(c).verdict == "skipped"
    monkeypatch.setenv("CI", "true")
    assert registry.run_claim(c).verdict == "error"


def test_claim_decorator_rejects_bad_metadata():
    with pytest.raises(ValueError, match="kind"):
        registry.claim("numerics.x", "s", "s", "guess")
    with pytest.raises(ValueError, match="cost"):
        registry.claim("numerics.x", "s", "s", "identity", cost="medium")
    with pytest.raises(ValueError, match="id"):
        registry.claim("no_theory_prefix", "s", "s", "identity")


def test_cli_runs_selected_claims_and_writes_reports(tmp_path, capsys):
    out_json, out_md = tmp_path / "r.json", tmp_path / "r.md"
    status = main(["--only", "numerics.lambertw_*", "--json", str(out_json), "--markdown", str(out_md)])
    printed = capsys.readouterr().out
    assert status == 0
    assert "numerics.lambertw_identity" in printed and "passed" in printed
    rows = json.loads(out_json.read_text())
    assert {r["id"] for r in rows} == {"numerics.lambertw_identity", "numerics.lambertw_vs_scipy"}
    assert set(rows[0]) >= {"id", "source", "kind", "statement", "measured", "tolerance", "passed", "seconds"}
    assert all(r["passed"] is True for r in rows)
    assert "| `numerics.lambertw_identity` |" in out_md.read_text()


def test_cli_exit_status_is_1_when_a_claim_fails(monkeypatch, capsys):
    failing = Claim("numerics.zz_failing", "s", "s", "identity", lambda: Check(1.0, 0.5))
    monkeypatch.setitem(registry.REGISTRY, failing.id, failing)
    monkeypatch.setattr(registry, "load_all", lambda: registry.REGISTRY)
    assert main(["--only", "numerics.zz_failing"]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_cli_unknown_pattern_and_list(capsys):
    assert main(["--only", "no_such_claim_anywhere"]) == 1
    assert main(["--list", "--only", "numerics."]) == 0
    assert "numerics.dop853_order" in capsys.readouterr().out
