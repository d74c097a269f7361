"""The claim registry: the :class:`Check` and :class:`Claim` types, the :func:`claim` decorator, the run
context, the runner and the report writers (table, JSON, Markdown, errata).

A claim's check function computes both sides of a comparison and returns a :class:`Check`: the measured
value, the limit it is held to and the comparison (``<=``, ``<``, ``>=``, ``>``), so that a report says
what was compared. A claim never states its own answer.

A stochastic claim (``stochastic=True``) and every torch cross-check receive a :class:`RunContext` and
draw every seed through it (``run.seed(7)``, ``run.rng(7)``), so that ``python -m verify --seed-offset K``
shifts all of them and ``--seed-sweep N`` repeats the claim under N offsets. Deterministic claims take
no argument.
"""
import importlib
import importlib.util
import math
import os
import time
import traceback
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from typing import NamedTuple, Tuple

from dynamics.lazy import lazy_module  # noqa: F401  (the claim modules import it from here)


def family_wise_z(m, level=1e-4):
    """The two-sided Bonferroni normal quantile for ``m`` comparisons at family-wise ``level`` (stdlib: a claim's
    statement can quote it at import without importing scipy.stats)."""
    from statistics import NormalDist

    return -NormalDist().inv_cdf(0.5 * level / m)


def relative_error(measured, reference):
    """The largest relative error max |measured − reference| / |reference| over the entries (the one relative error
    of the claims): 0 where the two are equal, zeros included; inf where the reference is 0 and the measured value is
    not; NaN (which no check passes) where either is NaN. Arrays broadcast; mpmath numbers are taken as floats."""
    import numpy as np

    try:
        a, b = np.asarray(measured, dtype=float), np.asarray(reference, dtype=float)
        difference = np.abs(a - b)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"measured and reference must be real numbers or arrays of shapes that broadcast, got "
                         f"{np.shape(measured)} and {np.shape(reference)}: {exc}") from None
    if difference.size == 0:
        raise ValueError("measured and reference must hold at least one value, got empty arrays")
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(difference == 0.0, 0.0, difference / np.abs(b))
    return float(np.max(ratio))


def family_wise_t(m, dof, level=1e-4):
    """The two-sided Bonferroni Student-t quantile with ``dof`` degrees of freedom for ``m`` comparisons at
    family-wise ``level`` (``scipy.special.stdtrit``, which scipy has loaded anyway, not the slower scipy.stats)."""
    from scipy import special

    return -float(special.stdtrit(dof, 0.5 * level / m))


def paired_bound(differences, level):
    """(mean, standard error, one-sided lower Student-t bound at ``level``) of per-seed paired differences: the
    mean minus t_{1-level, n-1} standard errors, which lies below the true mean with probability 1 - level when the
    differences are independent and normal. The upper bound is ``2·mean - lower``."""
    import numpy as np
    from scipy import special

    d = np.asarray(differences, dtype=float).ravel()
    if d.size < 2 or not np.all(np.isfinite(d)):
        raise ValueError(f"differences must hold at least 2 finite values, got shape {d.shape} with "
                         f"{int(np.sum(~np.isfinite(d)))} non-finite")
    se = float(d.std(ddof=1) / math.sqrt(d.size))
    return float(d.mean()), se, float(d.mean() + special.stdtrit(d.size - 1, level) * se)


def rank_correlation_bound(x, y, level):
    """(Spearman ρ, one-sided lower bound at ``level``) of paired observations: the Fisher transform
    atanh ρ ± z·1.06/√(n − 3) of Fieller, Hartley & Pearson (1957), the usual normal approximation for ρ."""
    import numpy as np
    from scipy import special, stats

    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if x.size != y.size or x.size < 4 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError(f"x and y must hold the same number (>= 4) of finite values, got shapes {x.shape} and "
                         f"{y.shape}")
    rho = float(stats.spearmanr(x, y)[0])
    z = math.atanh(min(max(rho, -0.999999), 0.999999))
    return rho, float(math.tanh(z + special.ndtri(level) * 1.06 / math.sqrt(x.size - 3)))


KINDS = ("identity", "bound", "limit", "theorem", "erratum", "crosscheck", "experiment")
TORCH_KINDS = ("crosscheck", "experiment")  # claims that train torch models: they take a run context
COSTS = ("fast", "slow")
SUBJECTS = ("library", "source")
COMPARISONS = ("<=", "<", ">=", ">", "erratum")


def _holds(measured, comparison, limit):
    if not (math.isfinite(measured) and not math.isnan(limit)):
        return False
    return {"<=": measured <= limit, "<": measured < limit, ">=": measured >= limit, ">": measured > limit}[comparison]


def _use_of_limit(check):
    """How much of its allowance a passing check uses, in [0, 1] where a scale exists (0 where none does, e.g.
    a limit of 0): measured/limit for an upper bound, limit/measured for a lower one."""
    m, limit = check.measured, check.tolerance
    if check.comparison in ("<=", "<", "erratum"):
        if limit > 0:
            return max(m / limit, 0.0)
        if limit < 0 and m < 0:
            return limit / m
        return 0.0
    if limit > 0 and m > 0:
        return limit / m
    if limit < 0 and m < 0:
        return m / limit
    return 0.0


@dataclass(frozen=True)
class Check:
    """The outcome of a check: ``measured`` compared with ``tolerance`` (the limit) by ``comparison``.

    ``Check(measured, tolerance)`` means measured <= tolerance. Use the constructors to say what is
    compared: :meth:`Check.at_most`, :meth:`Check.below`, :meth:`Check.at_least`, :meth:`Check.above`, :meth:`Check.predicate`,
    :meth:`Check.erratum`, and :meth:`Check.all_of` to combine. ``passed`` is derived; a NaN measured value never
    passes, and the detail says so.
    """

    measured: float
    tolerance: float
    comparison: str = "<="
    detail: str = ""
    printed_error: float = math.nan  # errata only: the printed form's error ...
    reject_above: float = math.nan  # ... which must exceed this
    rates: tuple = ()  # the RateFit of each rate check this check holds (reports show the ladder)
    passed: bool = field(init=False, default=False)

    def __post_init__(self):
        if self.comparison not in COMPARISONS:
            raise TypeError(f"comparison must be one of {COMPARISONS}, got {self.comparison!r}")
        measured, tolerance = float(self.measured), float(self.tolerance)
        object.__setattr__(self, "measured", measured)
        object.__setattr__(self, "tolerance", tolerance)
        object.__setattr__(self, "printed_error", float(self.printed_error))
        object.__setattr__(self, "reject_above", float(self.reject_above))
        if self.comparison == "erratum":  # NaN rejects nothing
            passed = measured <= tolerance and self.printed_error > self.reject_above
        else:
            passed = _holds(measured, self.comparison, tolerance)
        object.__setattr__(self, "passed", bool(passed))
        if math.isnan(measured):
            note = "the measured value is NaN"
            object.__setattr__(self, "detail", f"{note}; {self.detail}" if self.detail else note)

    @classmethod
    def at_most(cls, measured, limit, detail=""):
        """Passes if measured <= limit (an error against its tolerance)."""
        return cls(measured, limit, "<=", detail)

    @classmethod
    def below(cls, measured, limit, detail=""):
        """Passes if measured < limit."""
        return cls(measured, limit, "<", detail)

    @classmethod
    def at_least(cls, measured, limit, detail=""):
        """Passes if measured >= limit (e.g. a rejection threshold an erroneous form must exceed)."""
        return cls(measured, limit, ">=", detail)

    @classmethod
    def above(cls, measured, limit, detail=""):
        """Passes if measured > limit."""
        return cls(measured, limit, ">", detail)

    @classmethod
    def predicate(cls, margin, detail=""):
        """A statement that holds when its ``margin`` is > 0: e.g. the smallest gap of an ordering, or the
        smallest step of a sequence that must increase. The margin is reported."""
        return cls(margin, 0.0, ">", detail)

    @classmethod
    def erratum(cls, printed_error, corrected_error, tolerance, reject_above=None, detail=""):
        """The corrected form holds (error <= ``tolerance``) and the printed form is rejected (its error
        > ``reject_above``, by default 10x the tolerance). ``measured`` is the corrected form's error."""
        reject_above = 10 * tolerance if reject_above is None else float(reject_above)
        note = f"printed form's error {float(printed_error):.3g} (must exceed {reject_above:.3g})"
        return cls(corrected_error, tolerance, "erratum", f"{note}; {detail}" if detail else note, printed_error,
                   reject_above)

    @classmethod
    def all_of(cls, checks, detail=""):
        """All must pass; reports the failing check, or else the one that uses most of its allowance. When all
        pass and some are errata, the erratum nearest its limit is reported: its printed and corrected errors are
        the evidence the errata document quotes."""
        checks = list(checks)
        if not checks:
            raise ValueError("checks must hold at least one Check")
        errata = [c for c in checks if c.comparison == "erratum"]
        candidates = errata if errata and all(c.passed for c in checks) else checks
        reported = max(candidates, key=lambda c: (not c.passed, _use_of_limit(c)))
        combined = replace(reported, detail=detail or reported.detail, rates=tuple(r for c in checks for r in c.rates))
        object.__setattr__(combined, "passed", all(c.passed for c in checks))
        return combined

    @classmethod
    def rate(cls, sizes, errors, expected, level=1e-3, slack=0.0, floor=0.0, detail=""):
        """The error falls at the rate the theory predicts: ``errors ~ C * sizes**expected``.

        The log–log slope is fitted by least squares over a ladder of at least four sizes, with its standard error
        ``se`` from the fit's residuals. The check passes when ``|slope - expected| <= t * se + slack``, where ``t``
        is Student's two-sided critical value at ``level`` (1e-3) with the fit's n − 2 degrees of freedom (the
        residuals estimate the noise, so a short ladder is allowed more), and ``slack`` a stated pre-asymptotic
        allowance the claim explains. ``measured`` is ``|slope - expected|``. Errors at or below ``floor`` (a
        round-off floor the claim states) are left out of the fit and the detail says so; at least four must
        remain. Typical rates: −1/2 for Monte Carlo in the number of draws, −1 for O(1/d) corrections, 1 for
        gradient descent against the flow in the step size, p for an order-p integrator in its step.
        """
        import numpy as np

        sizes, errors = np.asarray(sizes, dtype=float), np.asarray(errors, dtype=float)
        if sizes.shape != errors.shape or sizes.ndim != 1:
            raise ValueError(f"sizes and errors must be 1-d of one length, got shapes {sizes.shape} and {errors.shape}")
        if not (np.all(np.isfinite(sizes)) and np.all(sizes > 0) and np.unique(sizes).size == sizes.size):
            raise ValueError(f"sizes must be distinct, finite and > 0, got {sizes}")
        if not np.all(np.isfinite(errors)):
            return cls(math.nan, 0.0, "<=", f"{detail}; non-finite error on the ladder: {errors}".lstrip("; "))
        kept = errors > floor
        note = "" if kept.all() else f"; {int((~kept).sum())} sizes at the round-off floor {floor:.1g} left out"
        if kept.sum() < 4:
            raise ValueError(f"a rate needs at least four errors above the floor {floor:g}, got {errors}")
        from scipy import stats

        slope, se = rate_fit(sizes[kept], errors[kept])
        limit = float(stats.t.isf(level / 2, int(kept.sum()) - 2)) * se + slack
        text = (f"slope {slope:.3f} ± {se:.2g} (expected {expected:g}, allowed ±{limit:.2g}) over sizes "
                f"{sizes[kept].min():g}..{sizes[kept].max():g} ({int(kept.sum())} sizes){note}")
        fit = RateFit(tuple(map(float, sizes)), tuple(map(float, errors)), slope, se, float(expected), limit)
        return cls(abs(slope - expected), limit, "<=", f"{text}; {detail}" if detail else text, rates=(fit,))

    @property
    def use_of_limit(self):
        """The fraction of its allowance this check uses (0 where the limit gives no scale)."""
        return _use_of_limit(self)


class RateFit(NamedTuple):
    """One rate check: the ladder of sizes and errors, the fitted log–log slope and its standard error, the slope
    the theory predicts and the band |slope − expected| was held to."""

    sizes: Tuple[float, ...]
    errors: Tuple[float, ...]
    slope: float
    standard_error: float
    expected: float
    band: float


def rate_fit(sizes, errors):
    """The least-squares slope of log(errors) against log(sizes), and its standard error (0 for an exact fit)."""
    import numpy as np

    x, y = np.log(np.asarray(sizes, dtype=float)), np.log(np.asarray(errors, dtype=float))
    A = np.column_stack([np.ones_like(x), x])
    coef, residual, *_ = np.linalg.lstsq(A, y, rcond=None)
    dof = x.size - 2
    sigma2 = float(residual[0]) / dof if residual.size and dof > 0 else 0.0
    cov = sigma2 * np.linalg.inv(A.T @ A)
    return float(coef[1]), float(math.sqrt(max(cov[1, 1], 0.0)))



@dataclass(frozen=True)
class RunContext:
    """What a run passes to stochastic claims and cross-checks: the torch device, the seed offset, and whether the
    cross-checks run their larger (CUDA) sizes whatever the device.

    ``seed(base)`` is the seed a claim uses where it would have written ``base``; ``rng(base)`` a numpy
    Generator seeded with it.
    """

    device: str = "cpu"
    seed_offset: int = 0
    large_sizes: bool = False  # cross-checks run their CUDA sizes on any device (a CPU baseline for GPU timings)

    def seed(self, base):
        return int(base) + self.seed_offset

    def rng(self, base):
        import numpy as np

        return np.random.default_rng(self.seed(base))


@dataclass(frozen=True)
class Claim:
    id: str
    source: str
    statement: str
    kind: str
    check: callable
    cost: str = "fast"
    needs: tuple = ()
    stochastic: bool = False
    subject: str = "library"
    printed: str = ""
    corrected: str = ""
    printed_math: str = ""
    corrected_math: str = ""

    @property
    def theory(self):
        return self.id.split(".", 1)[0]

    @property
    def takes_context(self):
        return self.stochastic or self.kind in TORCH_KINDS

    def run_check(self, context):
        return self.check(context) if self.takes_context else self.check()


@dataclass
class ClaimResult:
    claim: Claim
    measured: float = math.nan
    tolerance: float = math.nan
    comparison: str = "<="
    passed: bool = False
    verdict: str = "error"  # pass | FAIL | error | skipped
    seconds: float = 0.0
    detail: str = ""
    seed_offset: int = 0
    printed_error: float = math.nan
    reject_above: float = math.nan
    rates: tuple = ()
    device: str = "cpu"

    def as_dict(self):
        c = self.claim
        row = {"id": c.id, "source": c.source, "kind": c.kind, "statement": c.statement,
               "measured": _json_number(self.measured), "comparison": self.comparison,
               "tolerance": _json_number(self.tolerance), "passed": self.passed, "verdict": self.verdict,
               "seconds": round(self.seconds, 4), "cost": c.cost, "stochastic": c.stochastic,
               "seed_offset": self.seed_offset, "subject": c.subject, "detail": self.detail}
        if c.kind == "erratum":
            row.update(printed=c.printed, corrected=c.corrected, printed_error=_json_number(self.printed_error),
                       reject_above=_json_number(self.reject_above))
        if self.rates:
            row["rates"] = [fit._asdict() for fit in self.rates]
        return row


def _json_number(x):
    return x if math.isfinite(x) else None


REGISTRY = {}


def claim(id, source, statement, kind, cost="fast", needs=(), stochastic=False, subject="library", printed="",
          corrected="", printed_math="", corrected_math=""):
    """Register the decorated function as the check of a claim.

    A deterministic claim's function takes no argument; a ``stochastic`` one takes the :class:`RunContext`
    and draws its seeds through it. ``subject="source"`` marks a claim that checks the source's
    mathematics without calling :mod:`dynamics` (e.g. a sympy derivation). An erratum gives the
    ``printed`` and ``corrected`` forms as text, for the terminal and the errata document's notes, and
    ``printed_math`` and ``corrected_math`` as LaTeX (the body of a ``$...$``), which the errata page typesets.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if cost not in COSTS:
        raise ValueError(f"cost must be one of {COSTS}, got {cost!r}")
    if subject not in SUBJECTS:
        raise ValueError(f"subject must be one of {SUBJECTS}, got {subject!r}")
    if "." not in id or id != id.strip() or " " in id:
        raise ValueError(f"id must look like 'theory.short_name', got {id!r}")
    from dynamics.theories import theory

    theory(id.split(".", 1)[0])  # the prefix names a registered theory (or the numerics core)
    if kind == "erratum" and not (printed.strip() and corrected.strip()):
        raise ValueError(f"erratum claim {id!r} must give its printed and corrected forms")
    for name, tex in (("printed_math", printed_math), ("corrected_math", corrected_math)):
        if "$" in tex or tex.count("{") != tex.count("}"):
            raise ValueError(f"{name} of {id!r} must be LaTeX without '$' and with balanced braces, got {tex!r}")

    def register(fn):
        if id in REGISTRY and REGISTRY[id].check.__qualname__ != fn.__qualname__:
            raise ValueError(f"claim id {id!r} registered twice")
        REGISTRY[id] = Claim(id, source, statement, kind, fn, cost, tuple(needs), bool(stochastic), subject,
                             printed, corrected, printed_math, corrected_math)
        return fn

    return register


class PlantedBug(NamedTuple):
    """A plausible bug (a factor 2, a sign, an exponent) that the named claims must catch: ``before`` is replaced by
    ``after`` in ``path`` (a file of :mod:`dynamics`, relative to the repository root) of a copy of the library, and
    every claim in ``claims`` must then fail (``tests/test_mutations.py``)."""

    name: str
    path: str
    before: str
    after: str
    claims: Tuple[str, ...]


PLANTED_BUGS = {}


def planted_bug(name, path, before, after, claims):
    """Declare, in a theory's claims module, a bug its claims catch; the test suite plants each one."""
    if name in PLANTED_BUGS and PLANTED_BUGS[name].path != path:
        raise ValueError(f"planted bug {name!r} declared twice")
    if not claims or not all(isinstance(c, str) and "." in c for c in claims):
        raise ValueError(f"claims must name the claims that catch {name!r}, got {claims!r}")
    PLANTED_BUGS[name] = PlantedBug(name, path, before, after, tuple(claims))


def claim_modules():
    """The claims modules, read from the theory registry (:mod:`dynamics.theories`): ``verify.numerics`` for the
    numerics core, then for each theory ``verify.<id>`` and ``verify.crosscheck.<id>`` where they exist."""
    from dynamics.theories import CORE, THEORIES

    names = []
    for t in (CORE,) + THEORIES:
        for name in (f"verify.{t.id}", f"verify.crosscheck.{t.id}"):
            if importlib.util.find_spec(name) is not None:
                names.append(name)
    return names


def load_all():
    """Import every claims module of the registered theories (:func:`claim_modules`); return the registry."""
    for name in claim_modules():
        importlib.import_module(name)
    return REGISTRY


def theories():
    """The theory prefixes of the registered claims, sorted."""
    return sorted({c.theory for c in load_all().values()})


def select(pattern=None, include_slow=False):
    """Claims in id order; ``pattern`` is a glob (``starvation.*``) or a substring of the id (comma-separated)."""
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


def run_claim(claim_, context=None):
    """Run one claim under ``context`` (a :class:`RunContext`; default CPU, offset 0); exceptions become an
    'error' verdict with the traceback's last line."""
    context = context or RunContext()
    missing = missing_needs(claim_)
    if missing:
        verdict = "error" if in_ci() else "skipped"
        return ClaimResult(claim_, verdict=verdict, passed=False, seed_offset=context.seed_offset,
                           detail=f"needs {', '.join(missing)} (not installed)", device=context.device)
    start = time.perf_counter()
    try:
        check = claim_.run_check(context)
        if not isinstance(check, Check):
            raise TypeError(f"check of {claim_.id} returned {type(check).__name__}, expected Check")
        verdict = "pass" if check.passed else "FAIL"
        result = ClaimResult(claim_, check.measured, check.tolerance, check.comparison, check.passed, verdict, 0.0,
                             check.detail, context.seed_offset, check.printed_error, check.reject_above, check.rates,
                             context.device)
    except Exception as exc:  # a crashing claim is reported, not fatal to the run
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        result = ClaimResult(claim_, detail=last, seed_offset=context.seed_offset, device=context.device)
    result.seconds = time.perf_counter() - start
    return result


def run_claims(claims, progress=None, context=None):
    results = []
    for c in claims:
        results.append(run_claim(c, context))
        if progress:
            progress(results[-1])
    return results


_COLUMNS = (("id", 44), ("source", 34), ("measured", 10), ("limit", 12), ("verdict", 7), ("seconds", 7))


def _limit_text(result):
    if result.comparison == "erratum":
        return f"<= {_fmt(result.tolerance)}"
    return f"{result.comparison} {_fmt(result.tolerance)}"


def format_row(result):
    c = result.claim
    cells = (c.id, c.source, _fmt(result.measured), _limit_text(result), result.verdict, f"{result.seconds:.2f}")
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


def provenance(results=()):
    """Where a report's numbers come from: date, git commit, Python, platform, the versions of the libraries the
    claims use, the torch device and the seed offsets of ``results``."""
    import datetime
    import platform
    import subprocess
    from importlib import metadata

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10,
                                cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    versions = {}
    for name in ("learning-dynamics", "numpy", "scipy", "numba", "sympy", "mpmath", "torch"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "commit": commit,
            "python": platform.python_version(), "platform": f"{platform.system()} {platform.machine()}",
            "versions": versions, "devices": sorted({r.device for r in results}),
            "seed_offsets": sorted({r.seed_offset for r in results})}


def provenance_text(results=()):
    """:func:`provenance` as one line for Markdown reports and pages."""
    p = provenance(results)
    versions = ", ".join(f"{k} {v}" for k, v in p["versions"].items() if v)
    devices = "/".join(p["devices"]) or "cpu"
    offsets = ", ".join(map(str, p["seed_offsets"])) or "0"
    return (f"{p['date'][:10]}, commit `{p['commit']}`, Python {p['python']} on {p['platform']}, {versions}; "
            f"device {devices}, seed offsets {offsets}")


def write_json(results, path):
    """The results as JSON: ``{"provenance": {...}, "claims": [one row per claim]}``."""
    import json

    with open(path, "w", encoding="utf-8") as fh:
        json.dump({"provenance": provenance(results), "claims": [r.as_dict() for r in results]}, fh, indent=2)


def write_markdown(results, path):
    lines = ["| id | kind | source | statement | measured | limit | verdict | s |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        c = r.claim
        statement = c.statement.replace("|", "\\|")
        subject = " *(checks the source's mathematics)*" if c.subject == "source" else ""
        lines.append(f"| `{c.id}` | {c.kind} | {c.source} | {statement}{subject} | {_fmt(r.measured)} | "
                     f"{_limit_text(r).replace('<', '&lt;').replace('>', '&gt;')} | {r.verdict} | {r.seconds:.2f} |")
    lines.append("")
    lines.append(format_summary(results))
    fits = [(r.claim.id, fit) for r in results for fit in r.rates]
    if fits:
        lines += ["", "| rate check | sizes | errors | fitted slope | expected | band |", "|---|---|---|---|---|---|"]
        lines += [f"| `{cid}` | {', '.join(f'{n:g}' for n in f.sizes)} | {', '.join(f'{e:.3g}' for e in f.errors)} | "
                  f"{f.slope:.3f} ± {f.standard_error:.2g} | {f.expected:g} | ±{f.band:.2g} |" for cid, f in fits]
    lines += ["", f"Provenance: {provenance_text(results)}."]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
