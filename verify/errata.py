"""The errata document: every erratum claim with its source location, the printed form, the corrected form
and the measured evidence (``python -m verify --errata [--markdown FILE]``)."""
import math
from itertools import groupby

from dynamics.theories import CORE, THEORIES
from dynamics.theories import theory as _theory



def _number(x):
    return "-" if x is None or not math.isfinite(x) else f"{x:.3g}"


def document(results) -> str:
    """Markdown for the erratum claims among ``results`` (ClaimResult objects), grouped by theory."""
    lines = ["# Errata found in the sources", "",
             "Each entry is an executable claim of `python -m verify`: the printed formula is evaluated and shown to "
             "fail (its error exceeds the rejection threshold), and the corrected one is shown to hold (its error is "
             "within the tolerance). Regenerate with `python -m verify --slow --docs docs/claims`.", ""]
    order = {t.id: i for i, t in enumerate((CORE,) + THEORIES)}  # sections in the registry's order
    errata = sorted((r for r in results if r.claim.kind == "erratum"), key=lambda r: (order[r.claim.theory], r.claim.id))
    for theory, group in groupby(errata, key=lambda r: r.claim.theory):
        lines += [f"## {_theory(theory).title}", ""]
        for r in group:
            c = r.claim
            verdict = {"pass": "confirmed", "FAIL": "NOT confirmed", "error": "error", "skipped": "skipped"}[r.verdict]
            lines += [f"### `{c.id}` — {verdict}", "", f"Claim page: {{ref}}`{c.id} <claim-{c.id}>`.", "",
                      f"- **Source:** {c.source}",
                      f"- **Printed:** {c.printed}",
                      f"- **Corrected:** {c.corrected}",
                      f"- **Evidence:** the printed form's error is {_number(r.printed_error)} (rejected above "
                      f"{_number(r.reject_above)}); the corrected form's error is {_number(r.measured)} (tolerance "
                      f"{_number(r.tolerance)}).",
                      f"- **Claim:** {c.statement}", ""]
    if not errata:
        lines.append("No erratum claim was selected.")
    from .registry import provenance_text

    lines += ["", f"Provenance of these numbers: {provenance_text(results)}."]
    return "\n".join(lines) + "\n"
