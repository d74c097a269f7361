"""How long ``import dynamics.<package>`` takes in a fresh process, per registered package (the minimum of a few
processes, robust to a busy machine), and the same for ``python -m verify --list`` and ``python -m figures --list``.

    python benchmarks/import_time.py [--repeat 3]

The test suite asserts what is deterministic about an import (no kernel compiled, no torch loaded); the times live
here.
"""
import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dynamics.theories import CORE, THEORIES  # noqa: E402


def seconds(command, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    baseline = seconds([sys.executable, "-c", "pass"], args.repeat)
    print(f"{'command':40s} {'seconds':>8s} {'minus interpreter start':>24s}")
    rows = [(f"import dynamics.{t.id}", [sys.executable, "-c", f"import dynamics.{t.id}"]) for t in (CORE,) + THEORIES]
    rows += [("python -m verify --list", [sys.executable, "-m", "verify", "--list"]),
             ("python -m figures --list", [sys.executable, "-m", "figures", "--list"])]
    for label, command in rows:
        took = seconds(command, args.repeat)
        print(f"{label:40s} {took:8.2f} {took - baseline:24.2f}")


if __name__ == "__main__":
    main()
