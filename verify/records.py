"""Reproduction records: a source's experiment run once at the size where its effect exists, kept in the repository
with its provenance, and checked against the code by a fast claim.

The experiment claims (``verify/crosscheck/<theory>.py``) re-run each experiment in CI at a reduced size. That size
keeps the sign of the source's effect, but not always its size: a 2-core CI run cannot train the authors' networks.
A *record* is the run at the record size, the source's own setting where a 2-core CPU runs it in about 30 minutes,
else the smallest setting, found by a documented sweep, at which the effect is present. Each record is planned in
its theory's cross-check module with :func:`record_plan`:

* ``python -m verify --record NAME`` (``--device cuda``: the source's full size where the plan names one) runs the
  trainer of :mod:`dynamics` on the plan's config and seeds, judges the result against the source, and writes
  ``records/NAME.json`` (the format: :mod:`dynamics.numerics.records`);
* the figure of the experiment draws the record, not a fresh run, and prints the record's verdict on the figure;
* the claim ``<theory>.record_<name>`` checks the committed record: its content hash, that its config and seeds are
  the plan's, that the trainer's code is the code that made it (:func:`dynamics.numerics.records.code_hash`), that
  the verdict recomputed from the stored per-seed results is the stored one, and a short replay: its first seed
  re-run for a few steps must give the numbers stored with the record;
* :func:`reproduction_table` writes the documentation's reproduction table: the source's result, ours at the record
  size and the verdict, one row per record.
"""
import math
import os
import platform
import subprocess
import time
import importlib
from pathlib import Path
from typing import Callable, NamedTuple, Optional, Tuple

import numpy as np

from dynamics.numerics.records import FORMAT, RecordFile, code_hash, encode, read_record, write_record

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "records"
VERDICTS = ("reproduced", "partly reproduced", "not reproduced")


class Verdict(NamedTuple):
    """What a record shows against the source (printed under the figure and in the reproduction table).

    Attributes
    ----------
    status : str
        "reproduced", "partly reproduced" or "not reproduced".
    text : str
        One sentence with the numbers it rests on.
    """

    status: str
    text: str

    @classmethod
    def graded(cls, held, text):
        """The rule the record judges share: "reproduced" when every part of the source's statement holds, "partly
        reproduced" when some do, "not reproduced" when none does.

        Examples
        --------
        >>> Verdict.graded([True, False], "one of two").status
        'partly reproduced'
        """
        held = [bool(h) for h in held]
        if not held:
            raise ValueError("held must name at least one part of the statement, got none")
        status = "reproduced" if all(held) else "partly reproduced" if any(held) else "not reproduced"
        return cls(status, text)


class RecordPlan(NamedTuple):
    """One experiment's record: what to run, and how to read it against the source.

    Attributes
    ----------
    name : str
        "theory.experiment", the file ``records/<name>.json`` and the claim ``theory.record_experiment``.
    source : str
        The source's figure or table (authors, year, figure).
    source_result : str
        The source's number or sentence, for the reproduction table.
    trainer : str
        "module:function" of a trainer of :mod:`dynamics` taking ``(config, seeds, *, device)``.
    config : NamedTuple
        The record size: the trainer's config.
    seeds : tuple of int
        At least 5.
    code : tuple of str
        The modules whose code (without docstrings) makes the record's
        :func:`dynamics.numerics.records.code_hash`: the trainer's module and what it computes with.
    judge : callable
        ``judge(result) -> Verdict`` from the per-seed results, by a rule stated in its docstring.
    summary : callable
        ``summary(result) -> str``: ours at the record size, with the spread over seeds.
    replay : callable
        ``replay(config) -> config``: the short run the record claim repeats on the first seed.
    replay_tolerance : float
        The largest absolute difference allowed between a replay and the stored one, over the float fields.
    tolerance_reason : str
        Where that tolerance comes from.
    reduced : str
        What the record size keeps of the source's setting and what it reduces.
    cuda_config : NamedTuple, optional
        The source's size, which ``--device cuda`` records.
    ci_claim : str, optional
        The experiment claim that CI runs at the reduced size.
    """

    name: str
    source: str
    source_result: str
    trainer: str
    config: object
    seeds: Tuple[int, ...]
    code: Tuple[str, ...]
    judge: Callable
    summary: Callable
    replay: Callable
    replay_tolerance: float
    tolerance_reason: str
    reduced: str
    cuda_config: Optional[object] = None
    ci_claim: str = ""


PLANS = {}
NOT_RECORDED = {}


def not_recorded(claim_id: str, reason: str) -> None:
    """Say why the experiment claim ``claim_id`` has no record yet (the reproduction table prints the reason).

    Parameters
    ----------
    claim_id : str
        An experiment claim, "theory.experiment_name".
    reason : str
        One sentence: what stands in the way (a data set that is not available offline, a CPU time), or that the
        record has not been made yet.
    """
    NOT_RECORDED[claim_id] = reason


def record_plan(plan: RecordPlan) -> RecordPlan:
    """Declare a record (in its theory's cross-check module) and register its claim ``<theory>.record_<name>``, a
    fast claim of kind "experiment" that checks the committed record (see the module docstring).

    Parameters
    ----------
    plan : RecordPlan

    Returns
    -------
    RecordPlan
        ``plan``.

    Raises
    ------
    ValueError
        If another plan of the same name was declared.
    """
    from .crosscheck import crosscheck

    if plan.name in PLANS and PLANS[plan.name] != plan:
        raise ValueError(f"record {plan.name!r} planned twice")
    theory, short = plan.name.split(".", 1)
    PLANS[plan.name] = plan
    statement = (f"The committed record of {plan.source} ({plan.reduced}) loads with its content hash, holds the "
                 f"planned config and seeds, was made by the present trainer code (hash of {', '.join(plan.code)}), "
                 f"gives the verdict stated in the reproduction table when recomputed from its per-seed results, and "
                 f"a replay of its first seed for a few steps reproduces the numbers stored with it (largest absolute "
                 f"difference <= {plan.replay_tolerance:g}: {plan.tolerance_reason}).")
    crosscheck(f"{theory}.record_{short}", plan.source, statement, cost="fast", stochastic=False,
               kind="experiment")(lambda ctx, _plan=plan: check_record(_plan))
    return plan


def load_plans():
    """Every record plan (importing the claims modules that declare them)."""
    from .registry import load_all

    load_all()
    return dict(sorted(PLANS.items()))


# ---------------------------------------------------------------------------------------------------------------
# making and reading records


def _trainer(plan):
    module, _, name = plan.trainer.partition(":")
    return getattr(importlib.import_module(module), name)


def _run(plan, config, seeds, device):
    """The plan's trainer on ``config`` and ``seeds``, computed (the disk cache off for the call)."""
    before = os.environ.get("DYNAMICS_CACHE")
    os.environ["DYNAMICS_CACHE"] = "0"
    try:
        return _trainer(plan)(config, tuple(seeds), device=device)
    finally:
        if before is None:
            del os.environ["DYNAMICS_CACHE"]
        else:
            os.environ["DYNAMICS_CACHE"] = before


def _git(*args):
    try:
        return subprocess.run(["git", *args], capture_output=True, text=True, timeout=20, cwd=ROOT).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def record_path(name, folder=RECORDS):
    """Where the record ``name`` is kept: ``folder/name.json``."""
    return Path(folder) / f"{name}.json"


def make_record(name: str, device: str = "cpu", folder: Path = RECORDS) -> Path:
    """Run the record ``name``, judge it and write it (what ``python -m verify --record NAME`` does).

    Parameters
    ----------
    name : str
        A planned record.
    device : {"cpu", "cuda"}, default "cpu"
        On "cuda", the plan's ``cuda_config`` (the source's size) where it has one. The replay always runs on the
        CPU, as the record claim repeats it.
    folder : pathlib.Path, default the repository's ``records/``

    Returns
    -------
    pathlib.Path
        The record's file.
    """
    from importlib import metadata

    plan = load_plans()[name]
    config = plan.cuda_config if device == "cuda" and plan.cuda_config is not None else plan.config
    # the code that runs, read before it runs (the tree may change while a record trains)
    start = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": _git("rev-parse", "HEAD"),
             # changes to tracked files other than the records themselves (a record written earlier in the same
             # tree is data, not code)
             "uncommitted_changes": bool(_git("status", "--porcelain", "--untracked-files=no", "--", ".",
                                              ":(exclude)records")),
             "code_hash": code_hash(plan.code)}
    wall, cpu = time.perf_counter(), time.process_time()
    result = _run(plan, config, plan.seeds, device)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    replay_config = plan.replay(config)
    replay = _run(plan, replay_config, plan.seeds[:1], "cpu")  # as the record claim replays it
    content = {"format": FORMAT, "name": name, "source": plan.source, "trainer": plan.trainer, "reduced": plan.reduced,
               "config": encode(config), "seeds": [int(s) for s in plan.seeds], "result": encode(result),
               "replay": {"config": encode(replay_config), "result": encode(replay)},
               "verdict": list(plan.judge(result))}
    versions = {}
    for package in ("learning-dynamics", "numpy", "torch", "scikit-learn"):  # scikit-learn: the digits' split
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    provenance = {**start, "versions": versions, "python": platform.python_version(),
                  "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
                  "device": device, "wall_seconds": round(wall, 1), "cpu_seconds": round(cpu, 1)}
    return write_record(record_path(name, folder), content, provenance)


def load_record(name: str, folder: Path = RECORDS) -> RecordFile:
    """The committed record ``name``, read and hash-checked.

    Parameters
    ----------
    name : str
    folder : pathlib.Path, default the repository's ``records/``

    Returns
    -------
    dynamics.numerics.records.RecordFile

    Raises
    ------
    FileNotFoundError
        If the record has not been made yet.
    """
    return read_record(record_path(name, folder))


def _largest_difference(a, b):
    """The largest absolute difference between two results over their float values (NaN against NaN counts as
    equal), walking NamedTuples and tuples; inf where a shape, a length or a non-float value differs."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) != len(b) or getattr(a, "_fields", None) != getattr(b, "_fields", None):
            return math.inf
        return max((_largest_difference(x, y) for x, y in zip(a, b)), default=0.0)
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape:
        return math.inf
    if x.dtype.kind == "f" and y.dtype.kind == "f":
        both = np.isnan(x) & np.isnan(y)
        return float(np.max(np.abs(np.where(both, 0.0, x - y)), initial=0.0))
    return 0.0 if np.array_equal(x, y) else math.inf


def check_record(plan, folder=RECORDS):
    """The record claim's check (see the module docstring); a Check whose measured value is the replay's largest
    difference."""
    from .registry import Check

    try:
        record = load_record(plan.name, folder)
    except FileNotFoundError:
        return Check.at_most(math.inf, plan.replay_tolerance, f"no record yet: run python -m verify --record "
                                                               f"{plan.name}")
    problems = []
    if tuple(record.verdict) != tuple(verdict := plan.judge(record.result)):
        problems.append(f"the verdict recomputed from the per-seed results, {verdict}, is not the stored one, "
                        f"{record.verdict}")
    if record.config != plan.config and record.config != plan.cuda_config:
        problems.append(f"the record's config is not the plan's ({record.config} against {plan.config})")
    if record.seeds != tuple(plan.seeds):
        problems.append(f"seeds {record.seeds} against the plan's {tuple(plan.seeds)}")
    if record.provenance["code_hash"] != code_hash(plan.code):
        problems.append(f"the trainer code changed since the record was made (re-run python -m verify --record "
                        f"{plan.name})")
    replayed = _run(plan, record.replay_config, record.seeds[:1], "cpu")
    difference = _largest_difference(replayed, record.replay)
    changed = ", ".join(f"{field} {value!r}" for field, value in zip(record.replay_config._fields, record.replay_config)
                        if value != getattr(record.config, field))
    detail = (f"{record.verdict[0]}: {record.verdict[1]}; replay of seed {record.seeds[0]} ({changed}): largest "
              f"difference {difference:.3g}")
    if problems:
        return Check.at_most(math.inf, plan.replay_tolerance, "; ".join(problems) + "; " + detail)
    return Check.at_most(difference, plan.replay_tolerance, detail)


def _claim_link(claim_id):
    return f"{{ref}}`{claim_id.split('.', 1)[1].replace('_', ' ')} <claim-{claim_id}>`" if claim_id else ""


def reproduction_table(folder: Path = RECORDS) -> str:
    """The reproduction table of the documentation, as Markdown (MyST: the CI claims are links to the claims pages).

    A summary table, one row per experiment of the sources (the source, the verdict, the record's seeds and time,
    a link to its CI claim; "not recorded" for an experiment claim without a record), then one section per record:
    the source's result, ours at the record size with the spread over seeds, the record size, and the verdict with
    its numbers.

    Parameters
    ----------
    folder : pathlib.Path, default the repository's ``records/``

    Returns
    -------
    str
    """
    from .registry import load_all

    rows = ["| Source | Verdict | Record | In CI |", "|---|---|---|---|"]
    sections = []
    plans = load_plans()
    for name, plan in plans.items():
        try:
            record = load_record(name, folder)
        except FileNotFoundError:
            rows.append(f"| {plan.source} | not recorded | planned: `{name}` | {_claim_link(plan.ci_claim)} |")
            continue
        verdict = Verdict(*record.verdict)
        p = record.provenance
        rows.append(f"| {{ref}}`{plan.source} <record-{name.replace('.', '-')}>` | **{verdict.status}** | "
                    f"{len(record.seeds)} seeds, {p['wall_seconds'] / 60:.0f} min on {p['device']} | "
                    f"{_claim_link(plan.ci_claim)} |")
        sections.append(f"(record-{name.replace('.', '-')})=\n### {plan.source}\n\n"
                        f"- **The source reports:** {plan.source_result.rstrip('.')}.\n"
                        f"- **Ours at the record size:** {plan.summary(record.result)}; {len(record.seeds)} seeds.\n"
                        f"- **Record size:** {plan.reduced}. Record `records/{name}.json`, made "
                        f"{p['date'][:10]} at commit `{p['commit'][:10]}` in {p['wall_seconds'] / 60:.1f} min on "
                        f"{p['device']} ({p['machine']}).\n"
                        f"- **Verdict: {verdict.status}.** {verdict.text.rstrip('.')}.\n"
                        f"- **In CI:** {_claim_link(plan.ci_claim)}, at the reduced size; the record's own claim is "
                        f"`{name.split('.', 1)[0]}.record_{name.split('.', 1)[1]}`.\n")
    recorded = {plan.ci_claim for plan in plans.values()}
    for claim in sorted(load_all().values(), key=lambda c: c.id):
        if claim.kind == "experiment" and ".record_" not in claim.id and claim.id not in recorded:
            rows.append(f"| {claim.source} | not recorded | {NOT_RECORDED.get(claim.id, '')} | "
                        f"{_claim_link(claim.id)} |")
    return "\n".join(rows) + "\n\n## The records\n\n" + "\n".join(sections)
