"""How long each test tier takes, and its 20 slowest tests: the fast tier (the README's test command) and the full
tier's remainder (the tests marked ``slow``, which ``.ci/run`` runs after the fast tier), each as a whole pytest
process, in one run.

    python benchmarks/test_tiers.py [--tiers fast,rest] [--load 2] [--workers 2] [--cold]

``--load K`` runs the fast tier a second time beside K CPU-bound processes (pure Python loops), as on a machine
where other work is running. ``--cold`` empties the numba cache (``NUMBA_CACHE_DIR``, a fresh folder) and the
disk cache of trained results first, so that the times include compiling every kernel and training every cached
network; without it the caches are whatever the last run left (warm after one run). The test suite asserts no time;
these are the figures the README and the performance page quote.
"""
import argparse
import multiprocessing as mp
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIERS = {"fast": [], "rest": ["-m", "slow"], "full": ["--full"]}


def _burn(stop):
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def run_tier(tier, workers, env):
    """(wall seconds, pytest's closing line, the 20 slowest tests as (seconds, phase, test id)) of one tier."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=20",
               *(["-n", str(workers)] if workers > 1 else []), *TIERS[tier]]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    lines = done.stdout.splitlines()
    closing = next((line for line in reversed(lines) if re.search(r"\d+ (passed|failed)", line)), "(no summary)")
    slowest = [m.groups() for m in (re.match(r"([\d.]+)s (call|setup|teardown)\s+(.+)$", line) for line in lines) if m]
    if done.returncode != 0:
        print(done.stdout[-4000:], done.stderr[-2000:], sep="\n", file=sys.stderr)
    return seconds, closing.strip("= "), [(float(s), phase, test) for s, phase, test in slowest]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiers", default="fast,rest", help="comma-separated from fast, rest, full (fast,rest)")
    parser.add_argument("--load", type=int, default=2, help="CPU-bound processes beside the fast tier's second run")
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (-n), as in the README (2)")
    parser.add_argument("--cold", action="store_true", help="start from empty numba and result caches")
    args = parser.parse_args(argv)
    tiers = args.tiers.split(",")
    env = dict(os.environ)
    if args.cold:
        scratch = Path(tempfile.mkdtemp(prefix="tiers-"))
        env["NUMBA_CACHE_DIR"] = str(scratch / "numba")
        env["DYNAMICS_CACHE_DIR"] = str(scratch / "results")
    runs = [(tier, 0) for tier in tiers]
    if args.load and "fast" in tiers:
        runs.append(("fast", args.load))
    rows = []
    for tier, load in runs:
        stop = mp.Event()
        burners = [mp.Process(target=_burn, args=(stop,), daemon=True) for _ in range(load)]
        for b in burners:
            b.start()
        try:
            seconds, closing, slowest = run_tier(tier, args.workers, env)
        finally:
            stop.set()
            for b in burners:
                b.join()
        rows.append((tier, load, seconds, closing, slowest))
        print(f"{tier} tier, load {load}: {seconds:.0f} s ({closing})", flush=True)
    print(f"\n{'tier':6s} {'load':>4s} {'wall':>8s}  pytest")
    for tier, load, seconds, closing, _ in rows:
        print(f"{tier:6s} {load:4d} {seconds:6.0f} s  {closing}")
    for tier, load, _, _, slowest in rows:
        if load == 0:
            print(f"\nthe 20 slowest tests of the {tier} tier (seconds, phase, test):")
            for s, phase, test in slowest:
                print(f"{s:7.2f}  {phase:8s} {test}")


if __name__ == "__main__":
    main()
