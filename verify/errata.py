"""The errata document: every erratum claim with its source location, the printed form, the corrected form
and the measured evidence (``python -m verify --errata [--markdown FILE]``)."""
import math
from itertools import groupby

from dynamics.theories import CORE, THEORIES
from dynamics.theories import theory as _theory

from .symbolic import detail_parts



def _number(x):
    return "-" if x is None or not math.isfinite(x) else f"{x:.3g}"


def _math(tex, text):
    """The typeset form (MyST inline maths) where the claim gives one, else the text form."""
    return f"${tex}$" if tex else text


def _declared(attribute):
    """The union of the dicts that the claims modules declare under ``attribute``."""
    import importlib

    from .registry import claim_modules

    found = {}
    for name in claim_modules():
        found.update(getattr(importlib.import_module(name), attribute, {}))
    return found


def symbolic_counterparts():
    """{erratum claim id: symbolic claim id}: the symbolic claims that show an erratum in sympy (its printed form's
    residual nonzero at a counterexample, the corrected form's residual 0), as each claims module declares them in
    its ``SYMBOLIC_COUNTERPARTS``."""
    return _declared("SYMBOLIC_COUNTERPARTS")


def without_symbolic_form():
    """{erratum claim id: why it has no symbolic counterpart}: the errata whose printed or corrected form is not an
    algebraic relation sympy can decide (a figure's setting, a simulation's outcome, a numerical value), as each
    claims module declares them in its ``ERRATA_WITHOUT_SYMBOLIC_FORM``."""
    return _declared("ERRATA_WITHOUT_SYMBOLIC_FORM")


def _printed_residuals(result):
    """The printed forms' residuals as a passing symbolic claim measured them (:func:`verify.symbolic.detail_parts`);
    nothing for a claim not run or not passing."""
    if result is None or result.verdict != "pass":
        return []
    return detail_parts(result.detail, printed_only=True)


def document(results) -> str:
    """Markdown for the erratum claims among ``results`` (ClaimResult objects), grouped by theory: a summary table
    (source, printed, corrected, evidence, claim), then one section per erratum with the typeset forms, their
    text notes, the evidence and the claim's statement."""
    lines = ["# Errata found in the sources", "",
             "Each entry is an executable claim of `python -m verify`: the printed formula is evaluated and shown to "
             "fail (its error exceeds the rejection threshold), and the corrected one is shown to hold (its error is "
             "within the tolerance). Regenerate with `python -m verify --slow --docs docs/claims`.", ""]
    order = {t.id: i for i, t in enumerate((CORE,) + THEORIES)}  # sections in the registry's order
    errata = sorted((r for r in results if r.claim.kind == "erratum"), key=lambda r: (order[r.claim.theory], r.claim.id))
    verdicts = {"pass": "confirmed", "FAIL": "NOT confirmed", "error": "error", "skipped": "skipped"}
    symbolic, not_algebraic = symbolic_counterparts(), without_symbolic_form()
    by_id = {r.claim.id: r for r in results}
    if errata:
        lines += ["## Summary", "",
                  "One row per erratum: the printed form (✗) above the corrected one (✓), and the printed form's error "
                  "against the corrected form's; the entry below each row says what the error measures.", "",
                  "```{list-table}", ":header-rows: 1", ":widths: 18 62 12 8", "",
                  "* - Source", "  - Printed (✗) and corrected (✓)", "  - Evidence", "  - Erratum"]
        for r in errata:
            c = r.claim
            lines += [f"* - {c.source}",
                      f"  - ✗ {_math(c.printed_math, c.printed)}",
                      "",
                      f"    ✓ {_math(c.corrected_math, c.corrected)}",
                      f"  - {_number(r.printed_error)} / {_number(r.measured)} ({verdicts[r.verdict]})",
                      f"  - {{ref}}`{c.id.split('.', 1)[1].replace('_', ' ')} <erratum-{c.id.replace('.', '-')}>`"
                      + (" (also symbolically)" if c.id in symbolic else "")]
        lines += ["```", ""]
    for theory, group in groupby(errata, key=lambda r: r.claim.theory):
        lines += [f"## {_theory(theory).title}", ""]
        for r in group:
            c = r.claim
            lines += [f"(erratum-{c.id.replace('.', '-')})=", f"### `{c.id}` — {verdicts[r.verdict]}", "",
                      f"Claim page: {{ref}}`{c.id} <claim-{c.id}>`.", "",
                      f"- **Source:** {c.source}"]
            for label, tex, text in (("Printed", c.printed_math, c.printed), ("Corrected", c.corrected_math,
                                                                               c.corrected)):
                lines += ([f"- **{label}:**", "", f"  $$\n  {tex}\n  $$", "", f"  {text}"] if tex
                          else [f"- **{label}:** {text}"])
            lines += [f"- **Evidence:** the printed form's error is {_number(r.printed_error)} (rejected above "
                      f"{_number(r.reject_above)}); the corrected form's error is {_number(r.measured)} (tolerance "
                      f"{_number(r.tolerance)})."]
            if c.id in symbolic:
                lines += [f"- **Symbolically:** {{ref}}`{symbolic[c.id]} <claim-{symbolic[c.id]}>` shows it in sympy: "
                          f"the printed form's residual is a nonzero expression, evaluated at a counterexample, and "
                          f"the corrected form's simplifies to 0."]
                lines += [f"  - {part}" for part in _printed_residuals(by_id.get(symbolic[c.id]))]
            elif c.id in not_algebraic:
                lines += [f"- **No symbolic counterpart:** {not_algebraic[c.id]}"]
            lines += [f"- **Claim:** {c.statement}", ""]
    if not errata:
        lines.append("No erratum claim was selected.")
    from .registry import provenance_text

    lines += ["", f"Provenance of these numbers: {provenance_text(results)}."]
    return "\n".join(lines) + "\n"
