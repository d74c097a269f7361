"""The claim registry and the verify CLI: verdicts, errata, reports, exit status."""
import json
import math
from dataclasses import replace

import pytest

from verify import registry
from verify.__main__ import main
from verify.registry import Check, Claim


def test_check_verdicts():
    assert Check(1e-9, 1e-8).passed
    assert not Check(1e-7, 1e-8).passed
    assert not Check(math.nan, 1.0).passed  # NaN never passes
    assert not Check(math.inf, math.inf).passed


def test_constructors_say_what_is_compared():
    assert Check.at_most(1.0, 1.0).passed and not Check.below(1.0, 1.0).passed
    assert Check.at_least(2.0, 2.0).passed and not Check.above(2.0, 2.0).passed
    assert Check.at_least(3.0, 2.0).comparison == ">="
    assert Check.predicate(0.1).passed and not Check.predicate(0.0).passed and not Check.predicate(-1.0).passed
    assert not Check.at_least(math.nan, 0.0).passed
    with pytest.raises(TypeError, match="comparison"):
        Check(1.0, 2.0, True)  # the old positional passed= override is refused


def test_nan_is_said_in_the_detail():
    assert "NaN" in Check(math.nan, 1.0).detail
    assert "NaN" in Check.all_of([Check(0.1, 1.0), Check(math.nan, 1.0, detail="x")]).detail


def test_erratum_needs_printed_form_rejected_and_corrected_form_holding():
    assert Check.erratum(printed_error=0.5, corrected_error=1e-3, tolerance=1e-2).passed
    assert not Check.erratum(printed_error=0.05, corrected_error=1e-3, tolerance=1e-2).passed  # printed not rejected
    assert not Check.erratum(printed_error=0.5, corrected_error=0.02, tolerance=1e-2).passed  # corrected fails
    assert not Check.erratum(printed_error=math.nan, corrected_error=1e-3, tolerance=1e-2).passed


def test_numpy_values_become_plain_numbers_for_the_json_report():
    import numpy as np

    check = Check.at_most(np.float64(1.0), np.float64(2.0))
    assert check.passed is True and type(check.measured) is float


def test_all_of_reports_the_failing_check_and_fails_if_any_fails():
    combined = Check.all_of([Check(0.1, 1.0), Check(2.0, 1.0), Check(0.0, 0.0)])
    assert not combined.passed and combined.measured == 2.0
    assert Check.all_of([Check(0.1, 1.0), Check(0.0, 0.0)]).passed


def test_all_of_reports_the_sub_check_nearest_its_limit():
    """Regression (issue 9): a passing limit-0 or negative-limit sub-check used to be ranked as infinitely close
    to failing, hiding the numeric check at 73% of its tolerance."""
    sign = Check.at_most(-1.93, -1.0, "a sign margin")
    zero = Check.at_most(0.0, 0.0, "no violations")
    numeric = Check.at_most(2.19e-8, 3e-8, "20k-step error")
    far = Check.at_least(5.0, 1.0, "a lower bound with room")
    reported = Check.all_of([sign, zero, numeric, far])
    assert reported.passed and reported.detail == "20k-step error" and reported.measured == 2.19e-8
    assert Check.at_least(1.1, 1.0).use_of_limit == pytest.approx(1 / 1.1)
    assert Check.at_most(-2.0, -1.0).use_of_limit == pytest.approx(0.5)


def test_all_of_reports_the_erratum_when_all_pass_and_the_failure_otherwise():
    """The errata document quotes the reported check's printed and corrected errors: a passing library check
    nearer its limit must not hide them."""
    erratum = Check.erratum(0.9, 1e-14, 1e-12, reject_above=0.5)
    library = Check.at_most(9e-13, 1e-12, "library vs exact")
    reported = Check.all_of([library, erratum])
    assert reported.passed and reported.comparison == "erratum" and reported.printed_error == 0.9
    failing = Check.all_of([Check.at_most(2e-12, 1e-12, "library vs exact"), erratum])
    assert not failing.passed and failing.detail == "library vs exact"


def test_run_context_shifts_seeds():
    run = registry.RunContext(seed_offset=3)
    assert run.seed(7) == 10 and run.rng(7).integers(1000) == registry.RunContext().rng(10).integers(1000)


def test_stochastic_claims_receive_the_run_context():
    seen = []
    c = Claim("numerics.zz_seeded", "s", "s", "theorem", lambda run: seen.append(run.seed(1)) or Check(0, 1),
              stochastic=True)
    registry.run_claim(c, registry.RunContext(seed_offset=5))
    assert seen == [6]


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
    with pytest.raises(ValueError, match="printed and corrected"):
        registry.claim("numerics.x", "s", "s", "erratum")
    with pytest.raises(ValueError, match="subject"):
        registry.claim("numerics.x", "s", "s", "identity", subject="paper")
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
    report = json.loads(out_json.read_text())
    rows = report["claims"]
    provenance = report["provenance"]
    assert provenance["commit"] and provenance["versions"]["numpy"] and provenance["seed_offsets"] == [0]
    assert provenance["devices"] == ["cpu"] and provenance["date"][:4].isdigit()
    assert "Provenance: " in out_md.read_text()
    assert {r["id"] for r in rows} == {"numerics.lambertw_identity", "numerics.lambertw_vs_scipy"}
    assert set(rows[0]) >= {"id", "source", "kind", "statement", "measured", "comparison", "tolerance", "passed",
                            "seconds", "stochastic", "seed_offset", "subject"}
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


def test_seed_sweep_reports_the_worst_offset(monkeypatch, capsys):
    def flaky(run):
        return Check.at_most(1.0 if run.seed_offset == 2 else 0.1, 0.5)

    c = Claim("numerics.zz_flaky", "s", "s", "theorem", flaky, stochastic=True)
    monkeypatch.setitem(registry.REGISTRY, c.id, c)
    monkeypatch.setattr(registry, "load_all", lambda: registry.REGISTRY)
    assert main(["--only", "numerics.zz_flaky", "--seed-sweep", "4"]) == 1
    out = capsys.readouterr().out
    assert "seed offset 2" in out and "FAIL" in out
    assert main(["--only", "numerics.zz_flaky", "--seed-offset", "1"]) == 0


def test_errata_document_lists_printed_and_corrected_forms(monkeypatch, tmp_path):
    c = Claim("numerics.zz_erratum", "paper Eq 1", "the printed sign is wrong", "erratum",
              lambda: Check.erratum(0.5, 1e-12, 1e-9), printed="x = -a", corrected="x = a")
    monkeypatch.setitem(registry.REGISTRY, c.id, c)
    monkeypatch.setattr(registry, "load_all", lambda: registry.REGISTRY)
    out = tmp_path / "errata.md"
    assert main(["--only", "numerics.zz_erratum", "--errata", "--markdown", str(out)]) == 0
    page = out.read_text()
    assert "x = -a" in page and "x = a" in page and "paper Eq 1" in page and "0.5" in page and "confirmed" in page
    summary = page.split("## Summary")[1].split("\n## ")[0]
    assert "* - paper Eq 1\n  - ✗ x = -a\n\n    ✓ x = a\n  - 0.5 / 1e-12 (confirmed)" in summary  # the text forms
    typeset = replace(c, printed_math=r"x = -a", corrected_math=r"x = \lvert a \rvert")
    monkeypatch.setitem(registry.REGISTRY, c.id, typeset)
    assert main(["--only", "numerics.zz_erratum", "--errata", "--markdown", str(out)]) == 0
    page = out.read_text()
    assert "  - ✗ $x = -a$\n\n    ✓ $x = \\lvert a \\rvert$" in page  # typeset in the summary ...
    assert "$$\n  x = \\lvert a \\rvert\n  $$" in page and "(erratum-numerics-zz_erratum)=" in page  # ... and below


def test_errata_link_the_symbolic_claims_that_show_them(monkeypatch, tmp_path):
    """Every symbolic counterpart a claims module declares pairs an erratum claim with a symbolic claim, and the
    errata page links it under the erratum and marks its summary row."""
    from verify.errata import symbolic_counterparts

    claims = registry.load_all()
    pairs = symbolic_counterparts()
    assert pairs and all(claims[e].kind == "erratum" and ".symbolic_" in s for e, s in pairs.items())
    erratum, symbolic = sorted(pairs.items())[0]
    out = tmp_path / "errata.md"
    assert main(["--only", erratum, "--errata", "--markdown", str(out)]) == 0
    page = out.read_text()
    assert f"**Symbolically:** {{ref}}`{symbolic} <claim-{symbolic}>`" in page and "(also symbolically)" in page


def test_every_erratum_is_typeset_and_a_bad_form_is_refused():
    """Every erratum claim gives its printed and corrected forms as LaTeX for the errata page; a form with a
    dollar sign or unbalanced braces is refused by name."""
    missing = [c.id for c in registry.load_all().values()
               if c.kind == "erratum" and not (c.printed_math.strip() and c.corrected_math.strip())]
    assert not missing, f"errata without LaTeX forms: {missing}"
    for bad in ("$x$", r"\frac{1}{2"):
        with pytest.raises(ValueError, match="printed_math"):
            registry.claim("numerics.zz_bad", "s", "s", "erratum", printed="x", corrected="y", printed_math=bad)


@pytest.mark.parametrize("command", ["verify --list", "figures --list", "verify --only starvation.lambert_case2"])
def test_listing_and_torch_free_selections_do_not_import_torch(command):
    """torch is loaded only where a selected claim or figure needs it (the listing runs nothing), and the listings
    load neither sympy nor mpmath, which only some claims compute with (``verify.registry.lazy_module`` hands out a
    stand-in that imports the module at its first attribute read); ``figures --list`` loads neither matplotlib nor
    numba, which only drawing and computing need."""
    import subprocess
    import sys

    module, *args = command.split()
    code = ("import contextlib, io, runpy, sys\n"
            f"sys.argv = ['{module}'] + {args!r}\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            f"        runpy.run_module('{module}', run_name='__main__')\n"
            "    except SystemExit as exc:\n"
            "        assert not exc.code, exc.code\n"
            "print(*(name in sys.modules for name in ('torch', 'sympy', 'mpmath', 'matplotlib', 'numba')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    torch_loaded, sympy_loaded, mpmath_loaded, matplotlib_loaded, numba_loaded = out.stdout.split()
    assert torch_loaded == "False", f"{command} imported torch"
    if command.endswith("--list"):
        assert (sympy_loaded, mpmath_loaded) == ("False", "False"), f"{command} imported sympy or mpmath"
    if command == "figures --list":
        assert (matplotlib_loaded, numba_loaded) == ("False", "False"), f"{command} imported matplotlib or numba"


def test_rate_check_accepts_the_predicted_rate_and_refuses_a_wrong_one():
    import numpy as np

    from verify.registry import Check

    h = np.array([0.1, 0.05, 0.025, 0.0125])
    assert Check.rate(h, 3.0 * h ** 4 * (1 + 0.2 * h), 4, slack=0.1).passed  # pre-asymptotic term within the slack
    assert not Check.rate(h, 3.0 * h ** 3, 4, slack=0.1).passed  # an order lost (a dropped stage, say)
    assert not Check.rate(h, 6.0 * h ** 4, 2, slack=0.1).passed
    # a factor 2 in the constant does not change a rate: that is what the claims' own level checks are for
    assert Check.rate(h, 6.0 * h ** 4, 4, slack=0.1).passed


def test_rate_check_of_monte_carlo_errors_holds_for_many_seeds():
    """The standard error of the fitted slope carries the noise: a Monte Carlo mean's error falls as n^(-1/2) and the
    check passes for every seed at its 1e-3 level, while n^(-1/4) is refused."""
    import numpy as np

    from verify.registry import Check

    n = np.array([100, 200, 400, 800, 1600, 3200, 6400])
    verdicts, wrong = [], []
    for seed in range(40):
        rng = np.random.default_rng(seed)
        # root-mean-square error of the mean over 256 repetitions at each size
        errors = np.array([np.sqrt(np.mean(rng.standard_normal((256, k)).mean(axis=1) ** 2)) for k in n])
        verdicts.append(Check.rate(n, errors, -0.5).passed)
        wrong.append(Check.rate(n, errors, -0.25).passed)
    assert all(verdicts) and not any(wrong)


def test_rate_check_leaves_out_the_round_off_floor_and_needs_four_sizes():
    import numpy as np
    import pytest

    from verify.registry import Check

    h = np.array([0.2, 0.1, 0.05, 0.025, 0.0125, 0.00625])
    errors = np.maximum(h ** 4, 1e-15)
    errors[-1] = 1e-16
    check = Check.rate(h, errors, 4, slack=0.05, floor=1e-15)
    assert check.passed and "round-off floor" in check.detail
    with pytest.raises(ValueError, match="at least four"):
        Check.rate(h[:3], h[:3] ** 4, 4)
    assert not Check.rate(h, np.full(h.size, np.nan), 4).passed


def test_relative_error_is_one_function_with_one_meaning():
    """The claims' single relative error: max |a − b| / |b|, 0 for equal entries (zeros included), inf for a zero
    reference under a non-zero value, NaN (which fails every check) for a NaN; exact rationals give exact values."""
    import math

    import mpmath
    import numpy as np

    from verify.registry import relative_error

    assert relative_error([1.0, 3.0], [2.0, 4.0]) == 0.5  # |1 − 2| / 2 beats |3 − 4| / 4
    assert relative_error(0.0, 0.0) == 0.0 and relative_error([0.0, 1.0], [0.0, 1.0]) == 0.0
    assert relative_error(1e-310, 0.0) == math.inf
    assert math.isnan(relative_error([1.0, math.nan], [1.0, 1.0]))
    assert relative_error(np.full((2, 3), 1.5), 1.0) == 0.5  # broadcasts
    assert relative_error(2.0, mpmath.mpf(4)) == 0.5
    for measured, reference in (([1.0, 2.0], [1.0, 2.0, 3.0]), ("a", 1.0), ([], [])):
        with pytest.raises(ValueError, match="measured and reference"):
            relative_error(measured, reference)
    from dynamics.theories import THEORIES

    for theory in THEORIES:  # no claim module keeps a relative error of its own
        module = __import__(f"verify.{theory.id}", fromlist=["_"])
        assert not hasattr(module, "_rel") and getattr(module, "relative_error", relative_error) is relative_error
