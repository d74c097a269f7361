"""How often each stochastic fast claim fails on a correct library: every claim that draws random numbers, run at
seed offsets K..K+N-1, with the failures counted per claim.

    python benchmarks/claim_false_alarms.py --offsets 20 [--start 0] [-j 2] [--out benchmarks/results/claim_false_alarms.json]

A stochastic claim states how often it may fail by chance: a family-wise level (most use 1e-2, split over their
bounds) or a tolerance that several standard errors wide. On the committed code every claim is meant to pass, so
its failures over N independent offsets estimate its false-alarm rate; with zero failures the one-sided 95% upper
bound on that rate is 1 - 0.05^(1/N) (about 3/N). The report gives, per claim, the failing offsets; the summary,
the claims' total failures against the number a level of 1e-2 would let through (N · 1e-2 per claim). The test suite
runs each stochastic claim at offsets 0-2 (``tests/test_claims.py``); this measures what those three cannot.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verify import registry, runner  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offsets", type=int, default=20, help="number of seed offsets N (default 20)")
    parser.add_argument("--start", type=int, default=0, help="first offset K (default 0)")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--only", default=None, help="a pattern of claim ids, as python -m verify --only")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "claim_false_alarms.json"))
    args = parser.parse_args(argv)
    if args.offsets < 1 or args.start < 0:
        parser.error("--offsets must be >= 1 and --start >= 0")
    claims = [c for c in registry.select(args.only) if c.takes_context]
    offsets = range(args.start, args.start + args.offsets)
    units = [(c, registry.RunContext("cpu", k)) for c in claims for k in offsets]
    progress = runner.progress_bar(len(units))
    results = runner.run_units(units, jobs=args.jobs, progress=progress)
    progress.close()
    rows = []
    for c in claims:
        mine = [r for r in results if r.claim.id == c.id]
        failed = [r.seed_offset for r in mine if r.verdict in ("FAIL", "error")]
        rows.append({"id": c.id, "runs": len(mine), "failed_offsets": failed,
                     "details": [r.detail for r in mine if r.verdict in ("FAIL", "error")][:3]})
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    report = {"provenance": {"commit": commit.stdout.strip() or "unknown", "cpu_count": os.cpu_count(),
                             "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")},
              "offsets": [args.start, args.start + args.offsets - 1], "claims": rows}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    failing = [row for row in rows if row["failed_offsets"]]
    total = sum(len(row["failed_offsets"]) for row in rows)
    for row in failing:
        print(f"{row['id']:56s} failed at offsets {row['failed_offsets']}")
    bound = 1 - 0.05 ** (1 / args.offsets)
    print(f"{len(claims)} stochastic fast claims x {args.offsets} offsets: {total} failures in {len(units)} runs "
          f"({len(failing)} claims with any); a level of 1e-2 per claim would allow about "
          f"{0.01 * len(units):.0f}; a claim with no failure has a false-alarm rate below {bound:.3f} (95%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
