"""Output coverage, measured mechanically: perturb one field of one public function's result at a time and see
whether any claim or test notices.

For every public function of :mod:`dynamics` (``verify.coverage.public_functions``) the tool calls the function as
usual and then changes one field of what it returns:

* a named result (a NamedTuple): each field in turn; any other return value: the value as one field (``value``);
* a float or float array: ``relative`` (times 1 + 1e-3, zeros moved by 1e-3 of the array's scale) and, for an
  array, ``first`` (its first entry alone: a correction dropped or added at the first step);
* an integer or integer array (an index, a count, a selected epoch): ``off_by_one`` (+1);
* a bool: ``flipped``;
* an array with two distinct leading rows, or a tuple or list of two or more members: ``swapped`` (the first two
  exchanged: an ensemble member, a group or a seed out of place).

Strings, None and other objects are not perturbed (listed as ``not perturbable``).

The detectors of a function are the fast claims that call it by name (``verify.coverage.claims_naming``) and the
fast-tier test functions whose source names it; they run in this process with the perturbation in place (the
function replaced wherever a module holds it, every ``functools`` cache of ``dynamics`` cleared first). A
perturbation is *detected* when a claim fails or errs, or a test fails. The reading is conservative: a claim that
reaches the function only through another function, or a test that never names it, is not run for it.

Results go to ``tools/output_perturbation.jsonl`` (one line per function, field and perturbation; a rerun skips
what the file holds) and, with ``--markdown FILE``, a table for the developer pages.

Run: python tools/output_perturbation.py [--only PATTERN] [--limit N] [--markdown docs/output_coverage.md]
"""
import os

# numba's GNU OpenMP layer terminates a forked child of a process that has started its pool (every function is
# measured in a forked child, below); the work-queue layer does not, and the detectors run one thread anyway
os.environ.setdefault("NUMBA_THREADING_LAYER", "workqueue")

import argparse  # noqa: E402
import ast
import contextlib
import functools
import importlib
import inspect
import io
import json
import math
import re
import sys
import time
import typing
from collections import defaultdict
from fnmatch import fnmatchcase
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "tools" / "output_perturbation.jsonl"
RELATIVE = 1e-3


# ------------------------------------------------------------------------------------------ perturbations

def perturbations(value):
    """[(kind, perturbed value)] for one field's value (empty when none applies)."""
    out = []
    if isinstance(value, (bool, np.bool_)):
        return [("flipped", not bool(value))]
    if isinstance(value, (int, np.integer)):
        return [("off_by_one", type(value)(value + 1))]
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return [("relative", type(value)(v * (1 + RELATIVE) if v != 0 else RELATIVE))] if math.isfinite(v) else []
    if isinstance(value, np.ndarray) and value.size:
        if value.dtype.kind == "f":
            finite = np.isfinite(value)
            scale = float(np.max(np.abs(value[finite]))) if finite.any() else 0.0
            scale = scale or 1.0
            moved = np.where(value == 0, RELATIVE * scale, value * (1 + RELATIVE))
            out.append(("relative", np.where(finite, moved, value).astype(value.dtype)))
            if value.size > 1:
                first = value.copy()
                index = (0,) * value.ndim
                first[index] = first[index] * (1 + RELATIVE) if first[index] != 0 else RELATIVE * scale
                out.append(("first", first))
        elif value.dtype.kind in "iu":
            out.append(("off_by_one", value + 1))
        elif value.dtype.kind == "b":
            out.append(("flipped", ~value))
        if value.ndim >= 1 and value.shape[0] >= 2 and not np.array_equal(value[0], value[1]):
            swapped = value.copy()
            swapped[[0, 1]] = swapped[[1, 0]]
            out.append(("swapped", swapped))
        return out
    if hasattr(value, "_fields"):  # a nested named result: each kind applied to every member it fits
        members = {name: dict(perturbations(getattr(value, name))) for name in value._fields}
        kinds = sorted({kind for by_kind in members.values() for kind in by_kind})
        return [(kind, value._replace(**{name: by_kind[kind] for name, by_kind in members.items() if kind in by_kind}))
                for kind in kinds]
    if isinstance(value, (tuple, list)) and len(value) >= 2:
        try:
            differ = not (value[0] is value[1] or bool(np.all(np.asarray(value[0]) == np.asarray(value[1]))))
        except (ValueError, TypeError):
            differ = True
        if differ:
            members = list(value)
            members[0], members[1] = members[1], members[0]
            out.append(("swapped", type(value)(members)))
    return out


def _perturbed_result(result, field, kind):
    """``result`` with ``field`` (or the whole value, field "value") changed by perturbation ``kind``; None when
    that perturbation does not apply to this call's value."""
    if field == "value":
        return dict(perturbations(result)).get(kind)
    if not hasattr(result, "_fields"):
        return None
    replacement = dict(perturbations(getattr(result, field))).get(kind)
    return None if replacement is None else result._replace(**{field: replacement})


# ------------------------------------------------------------------------------------------ patching

def _caches_cleared():
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith(("dynamics", "verify", "figures")):
            continue
        for value in list(vars(module).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()


@contextlib.contextmanager
def replaced(original, replacement):
    """``original`` replaced by ``replacement`` in every loaded module that holds it (and in modules that bind
    it while the block runs); every binding of the replacement is restored afterwards."""
    def swap(old, new):
        for module in list(sys.modules.values()):
            namespace = getattr(module, "__dict__", None)
            if not isinstance(namespace, dict):
                continue
            for name, value in list(namespace.items()):
                if value is old:
                    namespace[name] = new

    swap(original, replacement)
    _caches_cleared()
    try:
        yield
    finally:
        swap(replacement, original)
        _caches_cleared()


def _with_perturbation(function, field, kind, applied):
    @functools.wraps(function)
    def perturbed(*args, **kwargs):
        result = function(*args, **kwargs)
        changed = _perturbed_result(result, field, kind)
        if changed is None:
            return result
        applied.append(1)
        return changed

    return perturbed


# ------------------------------------------------------------------------------------------ detectors

@functools.lru_cache(maxsize=1)
def _test_functions():
    """{test node id: source text} of the fast tier's test functions (the slow-marked ones left out)."""
    found = {}
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        source = path.read_text()
        tree = ast.parse(source)
        module_slow = "pytestmark = pytest.mark.slow" in source
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                marks = " ".join(ast.unparse(d) for d in node.decorator_list)
                if module_slow or "mark.slow" in marks:
                    continue
                found[f"tests/{path.name}::{node.name}"] = ast.get_source_segment(source, node) or ""
    return found


def detectors(full_name):
    """(fast claim ids, fast test node ids) that name the function ``full_name``."""
    from verify.coverage import claims_naming
    from verify.registry import load_all

    claims = load_all()
    short = full_name.rsplit(".", 1)[1]
    ids = tuple(i for i in claims_naming().get(full_name, ()) if claims[i].cost == "fast")
    word = re.compile(rf"\b{re.escape(short)}\b")
    tests = tuple(node for node, source in _test_functions().items() if word.search(source))
    return ids, tests


def _claims_fail(ids):
    from verify.registry import load_all, run_claim

    claims = load_all()
    for claim_id in ids:
        result = run_claim(claims[claim_id])
        if result.verdict in ("FAIL", "error"):
            return claim_id
    return None


def _tests_fail(nodes):
    import pytest

    if not nodes:
        return None
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        code = pytest.main(["-x", "-q", "-p", "no:cacheprovider", "--no-header", "-W", "ignore",
                            *nodes], plugins=[])
    return None if code == 0 else f"pytest exit {int(code)}"


# ------------------------------------------------------------------------------------------ the campaign

def fields_of(function):
    """The fields the tool perturbs: the named result's fields, or ("value",)."""
    target = getattr(function, "py_func", function)
    try:
        returned = typing.get_type_hints(target).get("return")
    except Exception:  # an annotation that cannot be resolved here (a torch type without torch)
        returned = None
    if isinstance(returned, type) and issubclass(returned, tuple) and hasattr(returned, "_fields"):
        return tuple(returned._fields)
    return ("value",)


def _recorded_kinds(function, fields, ids, tests):
    """Run the detectors once unperturbed, recording which perturbations apply to each field of the values the
    function returns to them: ({field: kinds}, the detector that failed unperturbed or None)."""
    kinds = defaultdict(set)
    calls = []

    @functools.wraps(function)
    def recording(*args, **kwargs):
        result = function(*args, **kwargs)
        calls.append(1)
        for field in fields:
            value = result if field == "value" else getattr(result, field, None)
            kinds[field].update(kind for kind, _ in perturbations(value))
        return result

    with replaced(function, recording):
        failed = _claims_fail(ids) or _tests_fail(tests)
    return {field: sorted(kinds[field]) for field in fields}, failed, len(calls)


def measure_function(full_name, function, journal):
    """Measure one function, appending each row to ``journal`` (a file) as it is made and skipping the
    perturbations the journal already holds: per field, per perturbation that applies to its values, whether a
    detector notices. Before each perturbation its (field, kind) is journalled as ``pending``, so that a crash of
    the process (a perturbed value that makes compiled code fault) can be recorded against it."""
    fields = fields_of(function)
    ids, tests = detectors(full_name)
    base = {"function": full_name, "claims": len(ids), "tests": len(tests)}
    held = [json.loads(line) for line in journal.read_text().splitlines()] if journal.exists() else []
    done = {(row["field"], row["kind"]) for row in held if row["outcome"] != "pending"}

    def write(**row):
        with journal.open("a") as out:
            out.write(json.dumps(dict(base, **row)) + "\n")

    if not ids and not tests:
        for field in fields:
            write(field=field, kind="", outcome="no detector")
        return
    kinds, failed, calls = _recorded_kinds(function, fields, ids, tests)
    if failed:
        write(field="", kind="", outcome="fails unperturbed", by=failed)
        return
    if not calls:  # its detectors reach it only where no module binding does (a registry entry, numba code)
        for field in fields:
            write(field=field, kind="", outcome="not reached")
        return
    for field in fields:
        if not kinds[field] and (field, "") not in done:
            write(field=field, kind="", outcome="not perturbable")
        for kind in kinds[field]:
            if (field, kind) in done:
                continue
            write(field=field, kind=kind, outcome="pending")
            applied = []
            start = time.perf_counter()
            with replaced(function, _with_perturbation(function, field, kind, applied)):
                caught = _claims_fail(ids) or _tests_fail(tests)
            write(field=field, kind=kind, seconds=round(time.perf_counter() - start, 2),
                  outcome="detected" if caught else "undetected", by=caught or "")


def _measure_in_child(full_name, function, journal):
    """Run :func:`measure_function` in a forked child until it finishes; a child that dies (a segmentation fault
    from compiled code fed a perturbed value) marks its pending perturbation as detected by the crash, and the next
    child goes on from there. Returns the function's rows."""
    while True:
        pid = os.fork()
        if pid == 0:  # the child: everything is loaded already
            code = 0
            try:
                measure_function(full_name, function, journal)
            except BaseException:  # noqa: BLE001 - reported by the parent
                import traceback

                traceback.print_exc()
                code = 3
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        rows = [json.loads(line) for line in journal.read_text().splitlines()] if journal.exists() else []
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            finished = {(r["field"], r["kind"]) for r in rows if r["outcome"] != "pending"}
            return [r for r in rows if r["outcome"] != "pending" or (r["field"], r["kind"]) not in finished]
        pending = [r for r in rows if r["outcome"] == "pending"]
        finished = {(r["field"], r["kind"]) for r in rows if r["outcome"] != "pending"}
        open_ = [r for r in pending if (r["field"], r["kind"]) not in finished]
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"
        if not open_:  # it died outside a perturbation: report the function as failing unperturbed
            return rows + [{"function": full_name, "claims": 0, "tests": 0, "field": "", "kind": "",
                            "outcome": "fails unperturbed", "by": f"the measuring process died ({how})"}]
        last = open_[-1]
        with journal.open("a") as out:
            out.write(json.dumps(dict(last, outcome="detected", by=f"a detector crashed ({how})")) + "\n")


def run(pattern=None, limit=None, progress=True):
    """Measure every public function matching ``pattern`` that the results file does not hold yet (at most
    ``limit`` functions), appending its rows; each function is measured in a forked child."""
    import tempfile

    from verify.coverage import claims_naming, public_functions

    claims_naming(), _test_functions()  # computed once here, inherited by every child
    done = set()
    if RESULTS.exists():
        done = {json.loads(line)["function"] for line in RESULTS.read_text().splitlines()}
    targets = [(full, f) for full, f in sorted(public_functions().items())
               if full not in done and (not pattern or any(fnmatchcase(full, p) or p in full
                                                           for p in pattern.split(",")))]
    with tempfile.TemporaryDirectory() as folder:
        for full, function in targets[:limit]:
            start = time.perf_counter()
            rows = _measure_in_child(full, function, Path(folder) / f"{full}.jsonl")
            with RESULTS.open("a") as out:
                for row in rows:
                    out.write(json.dumps(row) + "\n")
            if progress:
                missed = [f"{r['field']}[{r['kind']}]" for r in rows if r["outcome"] != "detected"]
                print(f"{full} ({time.perf_counter() - start:.0f} s): {len(rows) - len(missed)} of {len(rows)} "
                      f"detected" + (f"; not: {', '.join(missed)}" if missed else ""), flush=True)


def field_outcomes(rows):
    """{(function, field): outcome}: ``detected`` when every perturbation that applied to the field was detected,
    ``undetected (kinds)`` when one was not, else the row's own outcome (``no detector``, ``not reached``,
    ``not perturbable``, ``fails unperturbed``)."""
    kinds = defaultdict(dict)
    for row in rows:
        kinds[row["function"], row["field"]][row["kind"]] = row["outcome"]
    outcomes = {}
    for key, by_kind in kinds.items():
        missed = sorted(k for k, v in by_kind.items() if v == "undetected")
        if missed:
            outcomes[key] = f"undetected ({', '.join(missed)})"
        elif any(v == "detected" for v in by_kind.values()):
            outcomes[key] = "detected"
        else:
            outcomes[key] = next(iter(by_kind.values()))
    return outcomes


_DRAW = re.compile(r"\.(make_|draw_|random_|haar_)|_dataset$|_splits$|_data$|_fixture$")
_MONTE_CARLO = re.compile(r"\.(simulate_|estimate_|monte_carlo_)|_samples$")


def _settings_of(function):
    """The names a call's arguments can echo: its parameters, and the fields of a config or settings object it takes
    (a NamedTuple or dataclass annotation), each also in the singular and the plural, and ``steps`` for
    ``n_steps`` (the steps a run records)."""
    try:
        parameters = inspect.signature(function).parameters
        hints = typing.get_type_hints(function)
    except (TypeError, ValueError, NameError):
        return set()
    names = set(parameters)
    for name in parameters:
        kind = hints.get(name)
        names |= set(getattr(kind, "_fields", ())) | set(getattr(kind, "__dataclass_fields__", ()))
    names |= {n[2:] for n in names if n.startswith("n_")}  # n_steps -> the steps 0..n_steps it records
    return names | {n + "s" for n in names} | {n[:-1] for n in names if n.endswith("s")}


def category(function, field, outcome):
    """Why a field is not detected, in the page's words:

    * ``input echo``: the field repeats an argument of the call or a field of its config (a convenience copy);
    * ``draw``: a field of a random data set (a perturbed draw is another draw, and a sampling check cannot see
      1e-3);
    * ``Monte Carlo``: a field of a simulation's estimate, which a claim can hold only to its sampling error (a
      relative 1e-3, or one entry of many, is below it by construction);
    * ``uncertainty``: a standard error reported beside an estimate;
    * ``not a number``: strings, None, objects, exact fractions (not perturbed);
    * ``not measured``: the detectors fail without a change (in the tool's forked child), or reach the function only
      through compiled code or a registry entry, where the tool cannot replace it;
    * ``gap``: a result that changes and nothing sees.
    """
    if outcome == "not perturbable":
        return "not a number"
    if outcome in ("fails unperturbed", "not reached"):
        return "not measured"  # the tool's limit: its detectors fail without a change, or never call it
    from verify.coverage import public_functions

    target = public_functions().get(function)
    if field in _settings_of(getattr(target, "py_func", target)):
        return "input echo"
    if _DRAW.search(function):
        return "draw"
    if field.endswith(("_se", "_sem")) or field in ("se", "stderr"):
        return "uncertainty"
    if _MONTE_CARLO.search(function):
        return "Monte Carlo"
    return "gap"


def markdown(rows, provenance=""):
    """The developer page: how the coverage is measured, the share of perturbed fields detected per theory, and
    every field that is not detected, with its category."""
    outcomes = field_outcomes(rows)
    detectors_of = {row["function"]: (row["claims"], row["tests"]) for row in rows}
    perturbed = {k: v for k, v in outcomes.items() if v == "detected" or v.startswith("undetected")}
    detected = sum(v == "detected" for v in perturbed.values())
    theories = sorted({f.split(".")[1] for f, _ in outcomes})
    missed = {k: v for k, v in outcomes.items() if v != "detected"}
    by_category = defaultdict(int)
    for (function, field), outcome in missed.items():
        by_category[category(function, field, outcome)] += 1
    lines = ["# Output coverage", "",
             "Which outputs of the public functions a claim or a test checks, measured by changing them. "
             "`python tools/output_perturbation.py` calls every public function of `dynamics` as usual and changes "
             "one field of what it returns: a float or array by a relative 1e-3 (and its first entry alone), an "
             "integer by one, a bool flipped, the first two members of an array or tuple swapped. With the change in "
             "place it runs the fast claims that call the function by name and the fast-tier tests whose source "
             "names it; the change is detected when one of them fails. The reading is conservative: a claim that "
             "reaches a function only through another is not run for it.", "",
             provenance, "",
             f"**{detected} of {len(perturbed)} perturbed fields are detected** by every perturbation that applied "
             f"to them ({100 * detected / max(len(perturbed), 1):.1f}%; the goal is 95%). Of the {len(missed)} "
             f"fields not detected (perturbed or not): "
             + ", ".join(f"{n} {label}" for label, n in sorted(by_category.items(), key=lambda kv: -kv[1]))
             + " (categories below).", "",
             "| theory | fields | detected | undetected | no detector | not reached | not perturbed |",
             "|---|---|---|---|---|---|---|"]
    for theory in theories:
        mine = {k: v for k, v in outcomes.items() if k[0].split(".")[1] == theory}
        lines.append(f"| {theory} | {len(mine)} | "
                     f"{sum(v == 'detected' for v in mine.values())} | "
                     f"{sum(v.startswith('undetected') for v in mine.values())} | "
                     f"{sum(v == 'no detector' for v in mine.values())} | "
                     f"{sum(v == 'not reached' for v in mine.values())} | "
                     f"{sum(v == 'not perturbable' for v in mine.values())} |")
    lines += ["", "*No detector*: no fast claim or test names the function. *Not reached*: its detectors never call "
              "it through a module's binding (a registry entry or compiled code holds it). *Not perturbed*: strings, "
              "None, objects, exact fractions.", "", "## Fields not detected", "",
              "The categories: *gap*, a result that changes and nothing sees; *input echo*, a field that repeats an "
              "argument of the call or a field of its config; *draw*, a field of a random data set (a perturbed draw is another draw, and no "
              "sampling check resolves 1e-3); *Monte Carlo*, a simulation's estimate, which a claim can hold only to "
              "its sampling error; *uncertainty*, a standard error reported beside an estimate; *not a number*, a "
              "string, an object or an exact fraction, which the tool does not perturb; *not measured*, where the "
              "detectors fail without any change or reach the function only through compiled code. A *gap* is work "
              "to do: a "
              "claim against an independent route or a property test. The other categories are the argued "
              "exceptions.", "",
              "Per function (with the number of fast claims and tests that name it): each field not detected, its "
              "outcome and its category.", ""]
    by_function = defaultdict(list)
    for (function, field), outcome in sorted(outcomes.items()):
        if outcome != "detected":
            by_function[function].append(f"`{field or '-'}` {outcome}, *{category(function, field, outcome)}*")
    for function, missed_fields in by_function.items():
        claims, tests = detectors_of[function]
        counts = f"{claims} claim{'' if claims == 1 else 's'}, {tests} test{'' if tests == 1 else 's'}"
        lines.append(f"- `{function}` ({counts}): " + "; ".join(missed_fields))
    return "\n".join(lines) + "\n"


def _provenance():
    import datetime
    import subprocess

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    return (f"Written at commit `{commit}` on {datetime.date.today().isoformat()} from the rows in "
            f"`tools/output_perturbation.jsonl`; a function's rows come from the run that measured it (rerun "
            f"`--only` a function after its claims or tests change: the tool measures only what the file lacks, so "
            f"delete its rows first).")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="functions whose documented name matches a glob or contains a substring")
    parser.add_argument("--limit", type=int, help="stop after this many new rows")
    parser.add_argument("--markdown", help="write the table of undetected fields to this file")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from dynamics.numerics import one_thread

    with one_thread():
        run(args.only, args.limit)
    rows = [json.loads(line) for line in RESULTS.read_text().splitlines()] if RESULTS.exists() else []
    text = markdown(rows, _provenance())
    print(next(line for line in text.splitlines() if line.startswith("**")))
    if args.markdown:
        Path(args.markdown).write_text(text)


if __name__ == "__main__":
    main()
