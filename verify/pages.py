"""The claims and errata pages of the documentation site (``python -m verify --docs docs/claims``).

One page per theory lists each claim with its statement, source, kind, the limit it is held to, what was measured
in this run and the verdict; each claim carries the label ``claim-<claim id>`` so that the theory notes link to it.
``errata.md`` is the errata document (:func:`verify.errata.document`) and ``index.md`` the summary, with the
provenance of the run (date, commit, versions) so that a reader knows which code produced the numbers.
"""
import datetime
import math
import platform
import subprocess
from itertools import groupby
from pathlib import Path

from dynamics.theories import CORE, THEORIES
from dynamics.theories import theory as _theory

from . import errata
from .registry import format_summary

_VERDICT = {"pass": "✔ pass", "FAIL": "✘ FAIL", "error": "✘ error", "skipped": "– skipped (not run)"}


def _number(x):
    return "–" if x is None or not math.isfinite(x) else f"{x:.3g}"


def _limit(result):
    comparison = "≤" if result.comparison in ("<=", "erratum") else {"<": "<", ">=": "≥", ">": ">"}[result.comparison]
    return f"{comparison} {_number(result.tolerance)}"


def provenance():
    """Where the numbers on the pages come from: date, commit, Python and the main libraries' versions."""
    import numba
    import numpy
    import scipy

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).resolve().parent, timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    today = datetime.date.today().isoformat()
    return (f"{today}, commit `{commit}`, Python {platform.python_version()}, numpy {numpy.__version__}, "
            f"scipy {scipy.__version__}, numba {numba.__version__}, on {platform.machine()}")


def claim_entry(result) -> str:
    """One claim as a MyST section: its label, statement, source, kind, limit, measured value and verdict."""
    c = result.claim
    flags = [c.kind, c.cost]
    if c.takes_context:
        flags.append(f"stochastic (seed offset {result.seed_offset})" if c.stochastic else "torch")
    if c.subject == "source":
        flags.append("checks the source's mathematics")
    lines = [f"(claim-{c.id})=", f"## {c.id}", "", c.statement, "",
             f"- **Source:** {c.source}",
             f"- **Kind:** {', '.join(flags)}"]
    if c.kind == "erratum":
        lines += [f"- **Printed:** {c.printed}", f"- **Corrected:** {c.corrected}",
                  f"- **Measured:** the corrected form's error {_number(result.measured)} (held to {_limit(result)}); "
                  f"the printed form's error {_number(result.printed_error)} (must exceed "
                  f"{_number(result.reject_above)})"]
    else:
        lines.append(f"- **Measured:** {_number(result.measured)}, held to {_limit(result)}")
    if result.detail:
        lines.append(f"- **What was measured:** {result.detail}")
    lines += [f"- **Verdict:** {_VERDICT[result.verdict]}", ""]
    return "\n".join(lines)


def write_pages(results, directory) -> list:
    """Write ``index.md``, one ``<theory>.md`` per theory with claims among ``results``, and ``errata.md`` into
    ``directory``; return the paths written."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    order = {t.id: i for i, t in enumerate((CORE,) + THEORIES)}
    ordered = sorted(results, key=lambda r: (order[r.claim.theory], r.claim.id))
    written, rows = [], []
    for theory_id, group in groupby(ordered, key=lambda r: r.claim.theory):
        group = list(group)
        t = _theory(theory_id)
        passed = sum(r.verdict == "pass" for r in group)
        page = [f"# Claims: {t.title}", "",
                f"{len(group)} claims, {passed} passed in the last run. Each is checked by "
                f"`python -m verify --only '{theory_id}.*'` (add `--slow` for the slow ones and the torch "
                f"cross-checks). The theory note explains the equations: {{doc}}`../theory/{theory_id}`.", ""]
        page += [claim_entry(r) for r in group]
        path = directory / f"{theory_id}.md"
        path.write_text("\n".join(page), encoding="utf-8")
        written.append(path)
        rows.append(f"| {{doc}}`{t.title} <{theory_id}>` | {len(group)} | {passed} | "
                    f"{sum(r.claim.kind == 'erratum' for r in group)} |")
    index = ["# Claims", "",
             "A claim is one checkable statement from a source: an identity, a bound, a limit, a theorem's sign, "
             "a closed form against its ODE, an **erratum** (a formula the source prints wrongly, shown failing, "
             "with the corrected form shown holding), or a **crosscheck** against a torch simulation. Each check "
             "computes both sides by independent routes and reports the measured value against the limit it is "
             "held to; the statement says where that limit comes from (round-off, an integrator's tolerance, a "
             "standard error at a stated family-wise level, a measured envelope).", "",
             f"These pages were generated by `python -m verify --slow --docs docs/claims`: {provenance()}. "
             f"{format_summary(results)}.", "",
             "| theory | claims | passed | errata |", "|---|---|---|---|", *rows, "",
             "```{toctree}", ":maxdepth: 1", ":hidden:", "", *[p.stem for p in written], "errata", "```", ""]
    (directory / "index.md").write_text("\n".join(index), encoding="utf-8")
    (directory / "errata.md").write_text(errata.document(results), encoding="utf-8")
    return written + [directory / "index.md", directory / "errata.md"]
