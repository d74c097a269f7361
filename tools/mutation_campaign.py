"""Mutation campaign: how many plausible bugs in the theories' formula modules do the claims catch?

A mutant is one small edit of one expression in a formula module of a theory (``dynamics/<theory>/_*.py`` except
``_results``, ``_checks`` and ``_setups``): an arithmetic operator swapped (+ ↔ −, * ↔ /), a power changed (**2 →
**3), a numeric constant changed (c → 2c, 0 → 1), a comparison loosened or tightened (< ↔ <=), a unary minus
dropped. Mutants are drawn at random (seeded) from every such site, each is planted in a copy of the library, and
the theory's fast claims run on the copy in a fresh interpreter. A mutant is *killed* when a claim fails or errors,
or the run times out; it *survives* when every claim passes. A survivor is either a gap in the claims or an
equivalent mutant (an edit that does not change any result, e.g. in a branch for inputs no claim reaches); the report
lists each so that a person can tell which.

Speed: the claims of each theory first run once on the unmutated library (the baseline: every one must pass, and
its time is recorded). A mutant then runs its theory's claims cheapest first and stops at the first failure, so a
killed mutant costs its cheapest killing claim, not the whole theory. numba's disk cache is kept for every package
but the mutated one. Each finished mutant is appended to ``--results`` (JSON lines), so an interrupted campaign
resumes where it stopped. The draw depends on the source, so the first run records it in ``--sample`` (the seed,
the size, the number of sites, the commit and the mutants in draw order): a later run that would draw other mutants
(the formula modules changed) refuses, and ``--report-only`` rebuilds the report from the recorded draw and its
results without running anything.

A person's reading of each survivor (``equivalent``: no result a user can obtain changes; ``slow``: a slow claim
kills it; ``closed``: a claim was made strict for it, and ``--rerun-survivors`` runs it again; ``gap``) is kept in
``tools/mutation_verdicts.json`` and quoted by the report, whose headline rate counts only the mutants that change
results. The gaps then run against their module's doctests and the unit tests of their theory that name their
function (``tests/test_<theory>.py -k <function>``).

Not part of the test suite (tens of seconds per mutant on 2 cores). Usage::

    python tools/mutation_campaign.py --mutants 300 --jobs 2 --out docs/mutations.md
"""
import argparse
import ast
import datetime
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VERDICTS = ROOT / "tools" / "mutation_verdicts.json"  # a person's reading of each survivor
if "--worker" not in sys.argv:  # a worker imports the (mutated) copy on its PYTHONPATH
    sys.path.insert(0, str(ROOT))

SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}
COMPARE = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}


def formula_modules():
    from dynamics.theories import THEORIES

    skip = {"__init__.py", "_results.py", "_checks.py", "_setups.py"}
    return [(t.id, p) for t in THEORIES for p in sorted((ROOT / "dynamics" / t.id).glob("_*.py")) if p.name not in skip]


def _docstring_nodes(tree):
    nodes = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                nodes.add(id(first.value))
    return nodes


def sites(path):
    """Every mutable expression of one module: (line, col, end_line, end_col, original, mutated, operator)."""
    source = path.read_text()
    tree = ast.parse(source)
    docstrings = _docstring_nodes(tree)
    found = []
    for node in ast.walk(tree):
        mutated, kind = None, None
        if isinstance(node, ast.BinOp) and type(node.op) in SWAPS:
            mutated, kind = ast.BinOp(node.left, SWAPS[type(node.op)](), node.right), "operator"
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) \
                and isinstance(node.right.value, (int, float)) and not isinstance(node.right.value, bool):
            mutated, kind = ast.BinOp(node.left, ast.Pow(), ast.Constant(node.right.value + 1)), "power"
        elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool) and id(node) not in docstrings:
            mutated, kind = ast.Constant(2 * node.value if node.value else 1), "constant"
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in COMPARE:
            mutated, kind = ast.Compare(node.left, [COMPARE[type(node.ops[0])]()], node.comparators), "comparison"
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            mutated, kind = node.operand, "sign"
        if mutated is None or not hasattr(node, "end_col_offset"):
            continue
        original = ast.get_source_segment(source, node)
        if original is None or "\n" in original:
            continue
        found.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, original,
                      ast.unparse(mutated), kind))
    return found


def plant(tree_root, path, site):
    line, col, end_line, end_col, original, mutated, _ = site
    target = tree_root / path.relative_to(ROOT)
    lines = target.read_text().splitlines(keepends=True)
    text = lines[line - 1]
    if text[col:end_col] != original:
        raise RuntimeError(f"{path.relative_to(ROOT)}:{line} no longer reads {original!r}: the source changed since "
                           "the mutants in --results were drawn; start a new results file")
    lines[line - 1] = text[:col] + f"({mutated})" + text[end_col:]
    target.write_text("".join(lines))


def stale_numba_caches(mutated):
    """Delete the numba caches of the mutated file's package: numba keys a cached kernel by its own file, so a
    kernel elsewhere in the package that calls a mutated one would keep the old code."""
    for cache in mutated.parent.glob("__pycache__/*.nb[ic]"):
        cache.unlink()


def worker(theory, order, fail_fast):
    """In the subprocess: run ``theory``'s fast claims in the given id order (the rest after them), one thread,
    stopping at the first failure when ``fail_fast``; print one JSON line per claim."""
    from verify import registry
    from dynamics.numerics.threads import one_thread

    claims = registry.select(f"{theory}.*")
    rank = {claim_id: i for i, claim_id in enumerate(order)}
    claims.sort(key=lambda c: rank.get(c.id, len(rank)))
    with one_thread():
        for c in claims:
            result = registry.run_claim(c)
            print(json.dumps(dict(id=c.id, verdict=result.verdict, seconds=result.seconds, detail=result.detail)),
                  flush=True)
            if fail_fast and result.verdict in ("FAIL", "error"):
                break


def _environment(tree):
    """The subprocess environment: ``tree`` first on the path, one thread for BLAS, OpenMP and numba."""
    return dict(os.environ, PYTHONPATH=str(tree), DYNAMICS_COMPILE_NOTICE="0", OMP_NUM_THREADS="1",
                OPENBLAS_NUM_THREADS="1", NUMBA_NUM_THREADS="1")


@contextmanager
def mutated_copy(path, site, packages=("dynamics", "verify")):
    """A temporary copy of ``packages`` (and pyproject.toml) with the mutant planted and the mutated package's numba
    caches removed."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for package in packages:
            shutil.copytree(ROOT / package, tmp / package, copy_function=shutil.copy2)
        shutil.copy2(ROOT / "pyproject.toml", tmp / "pyproject.toml")
        plant(tmp, path, site)
        stale_numba_caches(tmp / path.relative_to(ROOT))
        yield tmp


def _run_claims(tree, theory, order, fail_fast, timeout):
    env = _environment(tree)
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", theory, "--order", ",".join(order)]
    if fail_fast:
        command.append("--fail-fast")
    run = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
    rows = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    return rows, run.returncode, run.stderr


def baseline(theory, timeout):
    """The theory's claims on the unmutated library: {claim id: seconds}, every claim passing (else an error)."""
    rows, _, stderr = _run_claims(ROOT, theory, [], False, timeout)
    failing = [r["id"] for r in rows if r["verdict"] != "pass"]
    if not rows or failing:
        raise RuntimeError(f"the unmutated library does not pass {theory}'s claims ({failing or stderr[-500:]}); "
                           "a campaign needs a passing baseline")
    return {r["id"]: r["seconds"] for r in rows}


def run_mutant(args):
    theory, path, site, order, timeout = args
    start = time.perf_counter()
    with mutated_copy(path, site) as tmp:
        try:
            rows, code, stderr = _run_claims(tmp, theory, order, True, timeout)
        except subprocess.TimeoutExpired:
            return dict(outcome="killed (timeout)", killers=[], seconds=timeout, claims_run=None)
    seconds = time.perf_counter() - start
    if not rows:
        return dict(outcome="killed (import error)", killers=[], seconds=seconds, claims_run=0,
                    detail=stderr.strip().splitlines()[-1] if stderr.strip() else "")
    killers = [r["id"] for r in rows if r["verdict"] in ("FAIL", "error")]
    if not killers and code != 0:
        return dict(outcome="killed (crash)", killers=[], seconds=seconds, claims_run=len(rows))
    return dict(outcome="killed" if killers else "survived", killers=killers, seconds=seconds, claims_run=len(rows))


def enclosing_function(path, line):
    """The name of the innermost function of ``path`` that holds ``line`` ("" at module level)."""
    best = None
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno <= line <= node.end_lineno:
            if best is None or node.lineno > best.lineno:
                best = node
    return best.name if best else ""


def run_tests(args):
    """A survivor of the claims against the doctests of its module and the unit tests of its theory
    (``tests/test_<theory>.py``) that name its function, on a copy of the project; the first failing test id, or ""
    if they all pass. (The whole test files would take minutes per survivor.)"""
    theory, path, site, timeout = args
    with mutated_copy(path, site, ("dynamics", "verify", "tests")) as tmp:
        env = _environment(tmp)
        command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", str(path.relative_to(ROOT))]
        name = enclosing_function(path, site[0]).strip("_")
        if name:  # the module's doctests (its stem) and the theory's tests that name the function
            command += [f"tests/test_{theory}.py", "-k", f"{name} or {path.stem.strip('_')}"]
        try:
            run = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "(timeout)"
    if run.returncode in (0, 5):  # 5: no test matched (a module without doctests, no test naming the function)
        return ""
    failed = [line.split(" ", 2)[1] for line in run.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))]
    return failed[0] if failed else f"(pytest exit {run.returncode})"


def _key(path, site):
    return f"{path.relative_to(ROOT)}:{site[0]}:{site[1]}:{site[5]}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mutants", type=int, default=300, help="how many mutants to draw (default 300)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per mutant before it counts as killed")
    parser.add_argument("--out", default=str(ROOT / "docs" / "mutations.md"))
    parser.add_argument("--results", default=str(ROOT / "tools" / "mutation_results.jsonl"),
                        help="one JSON line per finished mutant; a rerun with the same seed resumes from it")
    parser.add_argument("--rerun-survivors", action="store_true",
                        help="run again the survivors whose verdict is 'closed' (a claim was strengthened for them)")
    parser.add_argument("--no-tests", action="store_true",
                        help="do not run the survivors against the doctests and unit tests")
    parser.add_argument("--sample", default=str(ROOT / "tools" / "mutation_sample.json"),
                        help="the draw: its seed, size, number of sites, commit and mutants in draw order; written by "
                             "the first run, checked by later ones (the draw depends on the source)")
    parser.add_argument("--report-only", action="store_true",
                        help="rebuild the report from --sample and --results, drawing and running nothing")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--order", default="", help=argparse.SUPPRESS)
    parser.add_argument("--fail-fast", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker, [i for i in args.order.split(",") if i], args.fail_fast)
    results_path, sample_path = Path(args.results), Path(args.sample)
    if args.report_only:
        sample = json.loads(sample_path.read_text(encoding="utf-8"))
        done = {}
        for line in results_path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            done[row["key"]] = row  # a later line (a rerun, the unit tests' verdict) replaces an earlier one
        missing = [key for key in sample["keys"] if key not in done]
        if missing:
            raise SystemExit(f"{len(missing)} drawn mutants have no result in {results_path} (first: {missing[0]}); "
                             "run the campaign to finish them")
        write_report([done[key] for key in sample["keys"]], sample, Path(args.out))
        return
    candidates = [(theory, path, site) for theory, path in formula_modules() for site in sites(path)]
    rng = random.Random(args.seed)
    chosen = rng.sample(candidates, min(args.mutants, len(candidates)))
    sample = dict(seed=args.seed, mutants=args.mutants, sites=len(candidates), commit=_commit(),
                  keys=[_key(p, s) for _, p, s in chosen])
    if sample_path.exists():
        recorded = json.loads(sample_path.read_text(encoding="utf-8"))
        if recorded["keys"] != sample["keys"]:
            raise SystemExit(f"{sample_path} holds another draw (seed {recorded['seed']}, {recorded['mutants']} "
                             f"mutants, commit {recorded['commit']}): the source or the arguments changed since. "
                             "--report-only rebuilds its report; a new campaign needs new --sample and --results files")
        sample = recorded
    else:
        sample_path.write_text(json.dumps(sample, indent=0) + "\n", encoding="utf-8")
    done, verdicts = {}, load_verdicts()
    if results_path.exists():
        for line in results_path.read_text().splitlines():
            row = json.loads(line)
            if not (args.rerun_survivors and row["outcome"] == "survived"
                    and verdicts.get(row["key"], {}).get("verdict") == "closed"):
                done[row["key"]] = row
    todo = [(t, p, s) for t, p, s in chosen if _key(p, s) not in done]
    orders = {}
    for theory in sorted({t for t, _, _ in todo}):
        seconds = baseline(theory, args.timeout)
        orders[theory] = sorted(seconds, key=seconds.get)
        print(f"baseline {theory}: {len(seconds)} claims pass in {sum(seconds.values()):.0f} s", flush=True)
    from joblib import Parallel, delayed
    from tqdm import tqdm

    tasks = (delayed(_tagged)(_key(p, s), (t, p, s, orders[t], args.timeout)) for t, p, s in todo)
    with results_path.open("a", encoding="utf-8") as sink:
        for key, (t, p, s), result in tqdm(Parallel(n_jobs=args.jobs, return_as="generator_unordered")(tasks),
                                           total=len(todo), desc="mutants", initial=0):
            row = dict(key=key, theory=t, path=str(p.relative_to(ROOT)), line=s[0], kind=s[6], original=s[4],
                       mutated=s[5], **result)
            done[key] = row
            sink.write(json.dumps(row) + "\n")
            sink.flush()
    # the survivors a person read as equivalent, or that a slow claim kills, need no tests
    untested = [] if args.no_tests else [
        (t, p, s) for t, p, s in chosen if done[_key(p, s)]["outcome"] == "survived"
        and "tests_killer" not in done[_key(p, s)]
        and verdicts.get(_key(p, s), {}).get("verdict") not in ("equivalent", "slow")]
    tasks = (delayed(_tested)(_key(p, s), (t, p, s, args.timeout)) for t, p, s in untested)
    with results_path.open("a", encoding="utf-8") as sink:
        for key, killer in tqdm(Parallel(n_jobs=args.jobs, return_as="generator_unordered")(tasks),
                                total=len(untested), desc="survivors against the unit tests"):
            done[key] = dict(done[key], tests_killer=killer)
            sink.write(json.dumps(done[key]) + "\n")
            sink.flush()
    rows = [done[_key(p, s)] for _, p, s in chosen]
    write_report(rows, sample, Path(args.out))


def _tagged(key, args):
    return key, args[:3], run_mutant(args)


def _tested(key, args):
    return key, run_tests(args)


def load_verdicts(path=VERDICTS):
    """A person's reading of each survivor, {mutant key: {"verdict": "equivalent" or "gap", "why": text}}."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _where(r):
    return f"`{r['path']}:{r['line']}` ({r['kind']}): `{r['original']}` → `{r['mutated']}`"


def _commit():
    """The short hash of the checkout's HEAD (the draw depends on the source it was made from)."""
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def write_report(rows, sample, out):
    from verify.registry import provenance_text

    verdicts = load_verdicts()
    verdict = lambda r: verdicts.get(r["key"], {}).get("verdict", "not yet read")  # noqa: E731
    killed = [r for r in rows if r["outcome"].startswith("killed")]
    survivors = [r for r in rows if r["outcome"] == "survived"]
    equivalent = [r for r in survivors if verdict(r) == "equivalent"]
    slow = [r for r in survivors if verdict(r) == "slow"]
    by_tests = [r for r in survivors if r.get("tests_killer") and verdict(r) != "equivalent"]
    # gaps a person closed with a test after reading them (the verdict names it; the test was run on the mutant)
    by_named = [r for r in survivors if verdict(r) == "gap" and "caught by tests/" in verdicts[r["key"]].get("why", "")]
    open_gaps = [r for r in survivors if verdict(r) == "gap" and r not in by_named and not r.get("tests_killer")]
    changing = len(rows) - len(equivalent)
    pct = lambda k, n: f"{100 * k / max(n, 1):.1f}%"  # noqa: E731
    lines = ["# Mutation campaign", "",
             f"Run by `python tools/mutation_campaign.py --mutants {sample['mutants']} --seed {sample['seed']}`, "
             f"drawn from the source at commit `{sample['commit']}`; report: "
             f"{provenance_text()}.", "",
             f"{len(rows)} mutants drawn at random from {sample['sites']} mutable expressions of the six theories' formula "
             "modules. Each ran its theory's fast claims on a copy of the library, cheapest first, until one failed. "
             "A person read every survivor of the fast claims (the verdicts are in `tools/mutation_verdicts.json`): "
             "*equivalent* (no result a user can obtain changes), *slow* (killed by a slow claim, run by hand), "
             "*closed* (a claim was made strict for it, and the mutant was run again: `--rerun-survivors`; claims "
             "only ever became stricter, so the mutants killed before stay killed) or *gap* (a result changes and no "
             "claim sees it). The gaps then ran against their module's doctests and the unit tests of their theory "
             "that name their function.", "",
             f"- Killed by the fast claims: **{len(killed)} of {len(rows)}** ({pct(len(killed), len(rows))}).",
             f"- Survivors judged equivalent: {len(equivalent)}; killed by a slow claim: {len(slow)}; gaps or not yet "
             f"read: {len(survivors) - len(equivalent) - len(slow)}.",
             f"- **Of the {changing} mutants that change results, the fast claims kill "
             f"{pct(len(killed), changing)}, all the claims {pct(len(killed) + len(slow), changing)}**, and the "
             f"claims with the unit tests {pct(len(killed) + len(set(map(id, slow)) | set(map(id, by_tests))), changing)}.",
             *([f"- With the tests written for the gaps after reading them (named in each verdict, each run on its "
                f"mutant): {pct(len(killed) + len(set(map(id, slow)) | set(map(id, by_tests)) | set(map(id, by_named))), changing)}"
                f"; gaps still open: {len(open_gaps)}."] if by_named else []),
             "", "| theory | mutants | killed by fast claims | by slow claims | equivalent | gaps | gaps caught by tests |",
             "|---|---|---|---|---|---|---|"]
    for theory in sorted({r["theory"] for r in rows}):
        own = [r for r in rows if r["theory"] == theory]
        surv = [r for r in own if r["outcome"] == "survived"]
        gaps = [r for r in surv if verdict(r) not in ("equivalent", "slow")]
        lines.append(f"| {theory} | {len(own)} | {len(own) - len(surv)} | {sum(verdict(r) == 'slow' for r in surv)} "
                     f"| {sum(verdict(r) == 'equivalent' for r in surv)} | {len(gaps)} "
                     f"| {sum(bool(r.get('tests_killer')) for r in gaps)} |")
    lines += ["", "## Survivors of the fast claims", ""]
    for r in survivors:
        v = verdicts.get(r["key"])
        caught = f"caught by `{r['tests_killer']}`" if r.get("tests_killer") else (
            "not caught by the unit tests" if "tests_killer" in r else "unit tests not run")
        reading = f"**{v['verdict']}**: {v['why']}" if v else "**not yet read**"
        lines.append(f"- {_where(r)}; {caught}. {reading}")
    if not survivors:
        lines.append("None.")
    lines += ["", "## Killed", ""]
    lines += [f"- {_where(r)}: {r['outcome']}" + (f" by {', '.join(r['killers'][:3])}" if r["killers"] else "")
              for r in killed]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(killed)}/{len(rows)} killed by the fast claims; report in {out}")


if __name__ == "__main__":
    main()
