"""The claim registry: the :class:`Claim` type, the :func:`claim` decorator, the runner and the
report writers (table, JSON, Markdown).

A claim's check function takes no argument and returns a :class:`Check`: the measured error (or
margin violation) and the tolerance it is held to. Both sides of every comparison are computed by
the check; a claim never states its own answer. ``Check.erratum`` encodes the two-sided verdict of
an erratum: the printed form must fail and the corrected form must hold.
"""
import importlib
import math
import os
import pkgutil
import time
import traceback
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

KINDS = ("identity", "bound", "limit", "theorem", "erratum", "crosscheck")
COSTS = ("fast", "slow")


@dataclass(frozen=True)
class Check:
    """Outcome of a check: ``passed`` defaults to ``measured <= tolerance``."""

    measured: float
    tolerance: float
    passed: bool = None
    detail: str = ""

    def __post_init__(self):
        measured, tolerance = float(self.measured), float(self.tolerance)
        object.__setattr__(self, "measured", measured)
        object.__setattr__(self, "tolerance", tolerance)
        if self.passed is None:
            ok = math.isfinite(measured) and measured <= tolerance
            object.__setattr__(self, "passed", bool(ok))
        else:  # checks may hand over numpy booleans; the reports need plain ones
            object.__setattr__(self, "passed", bool(self.passed))

    @classmethod
    def erratum(cls, printed_error, corrected_error, tolerance, reject_above=None, detail=""):
        """The corrected form holds (error <= tolerance) and the printed form is rejected
        (error > ``reject_above``, by default 10x the tolerance). ``measured`` is the corrected error."""
        reject_above = 10 * tolerance if reject_above is None else reject_above
        printed_error, corrected_error = float(printed_error), float(corrected_error)
        passed = corrected_error <= tolerance and printed_error > reject_above  # NaN rejects nothing
        note = f"printed form error {printed_error:.3g} (must exceed {reject_above:.3g})"
        return cls(corrected_error, tolerance, passed, f"{note}; {detail}" if detail else note)

    @classmethod
    def all_of(cls, checks, detail=""):
        """Combine several checks: passes if all pass; reports the one with the largest ratio."""
        checks = list(checks)
        def ratio(c):
            if c.tolerance > 0:
                return c.measured / c.tolerance
            return 0.0 if c.measured == 0 else math.inf

        worst = max(checks, key=lambda c: (not c.passed, ratio(c)))
        return cls(worst.measured, worst.tolerance, all(c.passed for c in checks), detail or worst.detail)


@dataclass(frozen=True)
class Claim:
    id: str
    source: str
    statement: str
    kind: str
    check: callable
    cost: str = "fast"
    needs: tuple = ()

    @property
    def theory(self):
        return self.id.split(".", 1)[0]


@dataclass
class ClaimResult:
    claim: Claim
    measured: float = math.nan
    tolerance: float = math.nan
    passed: bool = False
    verdict: str = "error"  # pass | FAIL | error | skipped
    seconds: float = 0.0
    detail: str = ""

    def as_dict(self):
        c = self.claim
        return {"id": c.id, "source": c.source, "kind": c.kind, "statement": c.statement,
                "measured": _json_number(self.measured), "tolerance": _json_number(self.tolerance),
                "passed": self.passed, "verdict": self.verdict, "seconds": round(self.seconds, 4),
                "cost": c.cost, "detail": self.detail}


def _json_number(x):
    return x if math.isfinite(x) else None


REGISTRY = {}


def claim(id, source, statement, kind, cost="fast", needs=()):
    """Register the decorated zero-argument function as the check of a claim."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if cost not in COSTS:
        raise ValueError(f"cost must be one of {COSTS}, got {cost!r}")
    if "." not in id or id != id.strip() or " " in id:
        raise ValueError(f"id must look like 'theory.short_name', got {id!r}")

    def register(fn):
        if id in REGISTRY and REGISTRY[id].check.__qualname__ != fn.__qualname__:
            raise ValueError(f"claim id {id!r} registered twice")
        REGISTRY[id] = Claim(id, source, statement, kind, fn, cost, tuple(needs))
        return fn

    return register


def load_all():
    """Import every claim module of :mod:`verify` and :mod:`verify.crosscheck`; return the registry."""
    import verify
    import verify.crosscheck

    for package in (verify, verify.crosscheck):
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_") and info.name not in ("registry", "crosscheck"):
                importlib.import_module(f"{package.__name__}.{info.name}")
    return REGISTRY


def select(pattern=None, include_slow=False):
    """Claims in id order; ``pattern`` is a glob (``starvation.*``) or a substring of the id."""
    claims = sorted(load_all().values(), key=lambda c: c.id)
    if pattern:
        patterns = [p.strip() for p in pattern.split(",") if p.strip()]
        claims = [c for c in claims
                  if any(fnmatchcase(c.id, p) if any(ch in p for ch in "*?[") else p in c.id for p in patterns)]
    if not include_slow:
        claims = [c for c in claims if c.cost == "fast"]
    return claims


def missing_needs(claim_):
    """The optional modules a claim needs that cannot be imported here."""
    missing = []
    for module in claim_.needs:
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(module)
    return missing


def in_ci():
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def run_claim(claim_):
    """Run one claim; exceptions become an 'error' verdict with the traceback's last line."""
    missing = missing_needs(claim_)
    if missing:
        verdict = "error" if in_ci() else "skipped"
        return ClaimResult(claim_, verdict=verdict, passed=False,
                           detail=f"needs {', '.join(missing)} (not installed)")
    start = time.perf_counter()
    try:
        check = claim_.check()
        if not isinstance(check, Check):
            raise TypeError(f"check of {claim_.id} returned {type(check).__name__}, expected Check")
        verdict = "pass" if check.passed else "FAIL"
        result = ClaimResult(claim_, check.measured, check.tolerance, check.passed, verdict, 0.0, check.detail)
    except Exception as exc:  # a crashing claim is reported, not fatal to the run
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        result = ClaimResult(claim_, detail=last)
    result.seconds = time.perf_counter() - start
    return result


def run_claims(claims, progress=None):
    results = []
    for c in claims:
        results.append(run_claim(c))
        if progress:
            progress(results[-1])
    return results


_COLUMNS = (("id", 40), ("source", 36), ("measured", 10), ("tolerance", 10), ("verdict", 7), ("seconds", 7))


def format_row(result):
    c = result.claim
    cells = (c.id, c.source, _fmt(result.measured), _fmt(result.tolerance), result.verdict, f"{result.seconds:.2f}")
    return "  ".join(_fit(cell, width) for cell, (_, width) in zip(cells, _COLUMNS))


def format_header():
    head = "  ".join(name.ljust(width) for name, width in _COLUMNS)
    return head + "\n" + "-" * len(head)


def format_summary(results):
    counts = {v: sum(r.verdict == v for r in results) for v in ("pass", "FAIL", "error", "skipped")}
    total = sum(r.seconds for r in results)
    return (f"{counts['pass']} passed, {counts['FAIL'] + counts['error']} failed, {counts['skipped']} skipped "
            f"({counts['error']} errors) in {total:.1f} s")


def _fmt(x):
    return "-" if not math.isfinite(x) else f"{x:.3g}"


def _fit(text, width):
    text = str(text)
    return text.ljust(width) if len(text) <= width else text[: width - 1] + "…"


def write_json(results, path):
    import json

    with open(path, "w", encoding="utf-8") as fh:
        json.dump([r.as_dict() for r in results], fh, indent=2)


def write_markdown(results, path):
    lines = ["| id | kind | source | statement | measured | tolerance | verdict | s |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        c = r.claim
        statement = c.statement.replace("|", "\\|")
        lines.append(f"| `{c.id}` | {c.kind} | {c.source} | {statement} | {_fmt(r.measured)} | "
                     f"{_fmt(r.tolerance)} | {r.verdict} | {r.seconds:.2f} |")
    lines.append("")
    lines.append(format_summary(results))
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
