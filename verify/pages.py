"""The claims and errata pages of the documentation site (``python -m verify --docs docs/claims``).

One page per theory lists each claim with its statement, source, kind, the limit it is held to, what was measured
in this run and the verdict; each claim carries the label ``claim-<claim id>`` so that the theory notes link to it.
``errata.md`` is the errata document (:func:`verify.errata.document`), ``derivations.md`` the closed forms and
their symbolic checks (:func:`derivations_document`), and ``index.md`` the summary, with the provenance of the run
(date, commit, versions) so that a reader knows which code produced the numbers.
"""
import math
from itertools import groupby
from pathlib import Path

from dynamics.theories import CORE, THEORIES
from dynamics.theories import theory as _theory

from . import errata
from .registry import format_summary, provenance_text
from .symbolic import CHECKS, derivations, detail_parts

_VERDICT = {"pass": "✔ pass", "FAIL": "✘ FAIL", "error": "✘ error", "skipped": "– skipped (not run)"}


def _number(x):
    return "–" if x is None or not math.isfinite(x) else f"{x:.3g}"


def _limit(result):
    comparison = "≤" if result.comparison in ("<=", "erratum") else {"<": "<", ">=": "≥", ">": ">"}[result.comparison]
    return f"{comparison} {_number(result.tolerance)}"


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
    for fit in result.rates:
        ladder = ", ".join(f"{n:g}: {e:.3g}" for n, e in zip(fit.sizes, fit.errors))
        lines.append(f"- **Rate:** fitted slope {fit.slope:.3f} ± {fit.standard_error:.2g} against the predicted "
                     f"{fit.expected:g} (band ±{fit.band:.2g}); size: error = {ladder}")
    if result.detail:
        parts = detail_parts(result.detail)
        lines += ([f"- **What was measured:** {parts[0]}"] if len(parts) == 1
                  else ["- **What was measured:**", *(f"  - {part}" for part in parts)])
    lines += [f"- **Verdict:** {_VERDICT[result.verdict]}", ""]
    return "\n".join(lines)


def _anchor(entry, taken):
    """A label for a derivation entry, from its first function; a second entry of the same function gets a suffix."""
    base = "derivation-" + entry.functions[0].replace(".", "-").replace("_", "-")
    label, k = base, 1
    while label in taken:
        k += 1
        label = f"{base}-{k}"
    taken.add(label)
    return label


def derivations_document(results) -> str:
    """Markdown for the derivations page: a coverage table (per theory, how many closed forms are checked exactly,
    by a series, by interval arithmetic, or not at all), then one section per theory with each closed form's
    relation, its functions, what was checked, the symbolic claim with its residuals as measured in this run, and
    its source (or its derivation, for a form derived in this project)."""
    by_id = {r.claim.id: r for r in results}
    found = derivations()
    lines = ["# Derivations a machine has checked", "",
             "Every closed form of the library, with the relation it solves and how the relation is checked. A "
             "symbolic claim states the relation once in sympy (the ODE or recursion with its initial condition, "
             "the fixed-point or stationarity equation, the expectation or sum it equals, its limits), checks that "
             "the residual simplifies to 0, and then holds the library's function to the symbolic form evaluated "
             "by mpmath at 30 digits, at 1000 points spread over the orders of magnitude of each parameter, within "
             "a round-off bound derived from the formula. Each claim also fails when a plausible slip (a factor 2, "
             "a sign, an exponent) is planted in the library's formula, and when the same kind of slip is planted "
             "in its symbolic statement: the two are independent routes.", "",
             "What a check establishes:", ""]
    lines += [f"- **{kind}**: {meaning}" for kind, meaning in CHECKS.items()]
    lines += ["", f"The measured residuals below come from the run that generated these pages: "
                  f"{provenance_text(results)}.", "", "## Coverage", "",
              "A closed form is checked exactly, by a series, by interval arithmetic, or not at all (with the "
              "reason). The algorithms (simulators, roots, quadratures, draws, trainers) that the symbolic claims "
              "call are listed too, so that every function a symbolic claim calls is on this page; they are not "
              "closed forms and are not counted as such.", "",
              "| theory | closed forms | exact | series | interval | none | algorithms |",
              "|---|---|---|---|---|---|---|"]
    kinds = tuple(CHECKS)
    totals = dict.fromkeys(("forms",) + kinds, 0)
    for theory_id, entries in found.items():
        counts = {kind: sum(e.check == kind for e in entries) for kind in kinds}
        forms = len(entries) - counts["algorithm"]
        totals["forms"] += forms
        for kind in kinds:
            totals[kind] += counts[kind]
        lines.append(f"| {{ref}}`{theory_id.replace('_', ' ')} <derivations-{theory_id.replace('_', '-')}>` | {forms} | "
                     + " | ".join(str(counts[kind]) for kind in kinds) + " |")
    lines += [f"| **all** | **{totals['forms']}** | " + " | ".join(f"**{totals[k]}**" for k in kinds) + " |", ""]
    taken = set()
    for theory_id, entries in found.items():
        lines += [f"(derivations-{theory_id.replace('_', '-')})=", f"## {_theory(theory_id).title}", ""]
        for entry in entries:
            names = ", ".join(f"`{f.split('.', 1)[1]}`" for f in entry.functions)
            lines += [f"({_anchor(entry, taken)})=", f"### {names}", "", f"$$\n{entry.relation}\n$$", "",
                      "- **Functions:** " + ", ".join(f"{{func}}`dynamics.{f}`" for f in entry.functions)]
            if entry.source.startswith("derived in this project"):
                lines.append(f"- **Derived in this project.** {entry.note}")
            else:
                lines.append(f"- **Source:** {entry.source}")
            if entry.check in ("none", "algorithm"):
                lines.append(f"- **Checked:** {'numerically' if entry.check == 'algorithm' else 'no symbolic check'}"
                             f". {entry.note}")
                lines.append("")
                continue
            result = by_id.get(entry.claim)
            verdict = _VERDICT[result.verdict] if result else "– not run"
            lines.append(f"- **Checked:** {entry.check}: {CHECKS[entry.check]}."
                         + ("" if entry.check == "exact" or entry.source.startswith("derived") else f" {entry.note}"))
            lines.append(f"- **Claim:** {{ref}}`{entry.claim} <claim-{entry.claim}>`, {verdict}")
            if result and result.detail:
                lines += ["- **Residuals as measured:**", *(f"  - {part}" for part in detail_parts(result.detail))]
            lines.append("")
    return "\n".join(lines)


def write_pages(results, directory) -> list:
    """Write ``index.md``, one ``<theory>.md`` per theory with claims among ``results``, ``errata.md`` and
    ``derivations.md`` into ``directory``; return the paths written."""
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
             f"These pages were generated by `python -m verify --slow --docs docs/claims`: {provenance_text(results)}. "
             f"{format_summary(results)}.", "",
             "| theory | claims | passed | errata |", "|---|---|---|---|", *rows, "",
             "```{toctree}", ":maxdepth: 1", ":hidden:", "", *[p.stem for p in written], "errata", "derivations", "```", ""]
    (directory / "index.md").write_text("\n".join(index), encoding="utf-8")
    (directory / "errata.md").write_text(errata.document(results), encoding="utf-8")
    (directory / "derivations.md").write_text(derivations_document(results), encoding="utf-8")
    return written + [directory / "index.md", directory / "errata.md", directory / "derivations.md"]
