"""Every torch cross-check at its CUDA size, on a GPU, with a CPU run of the same sizes for a timing ratio.

Run from the repository root on a machine with a GPU (no install needed where numpy, scipy, numba, sympy, torch,
joblib and tqdm are present; the project is imported from the working tree)::

    python benchmarks/gpu_crosschecks.py --device cuda --out benchmarks/results/gpu_crosschecks.json

and, to test the script itself without a GPU, the same claims at their CPU sizes::

    python benchmarks/gpu_crosschecks.py --device cpu --sizes small --out /tmp/gpu_crosschecks_cpu.json

For each cross-check (every claim of kind ``crosscheck``) it runs the claim once on ``--device`` at the chosen sizes
and, unless ``--no-cpu-baseline``, once more on the CPU at the same sizes in a child process bounded by
``--cpu-timeout`` seconds, so that the GPU time is compared with the CPU time of the same problem. The JSON report
holds the provenance (git commit, date, device name, torch/numpy/numba versions, seed offset) and one row per
cross-check: id, source, statement, size setting, device, measured error, tolerance, verdict, seconds, and the CPU
baseline's seconds, verdict and the ratio CPU/GPU. A summary table is printed. Exit status 1 if a cross-check fails on
the device.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verify import registry  # noqa: E402


def provenance(device):
    import numba
    import numpy
    import torch

    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    name = torch.cuda.get_device_name(0) if device == "cuda" else "cpu"
    return {"commit": commit or "unknown", "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
            "device": device, "device_name": name, "torch": torch.__version__, "numpy": numpy.__version__,
            "numba": numba.__version__, "python": sys.version.split()[0], "cpu_count": os.cpu_count()}


def run_one(claim_id, device, large, seed_offset):
    """Run one cross-check in this process; return its row."""
    claim = registry.load_all()[claim_id]
    start = time.perf_counter()
    result = registry.run_claim(claim, registry.RunContext(device, seed_offset, large_sizes=large))
    return {"id": claim.id, "source": claim.source, "statement": claim.statement, "device": device,
            "sizes": "large" if large or device == "cuda" else "small", "measured": result.measured,
            "tolerance": result.tolerance, "comparison": result.comparison, "verdict": result.verdict,
            "passed": result.passed, "detail": result.detail, "seconds": time.perf_counter() - start}


def cpu_baseline(claim_id, large, seed_offset, timeout):
    """The same cross-check on the CPU at the same sizes, in a child process bounded by ``timeout`` seconds."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); "
            "sys.argv = sys.argv[:1] + sys.argv[2:]; "
            "from benchmarks.gpu_crosschecks import run_one; "
            "print(json.dumps(run_one(sys.argv[1], 'cpu', sys.argv[2] == 'large', int(sys.argv[3]))))")
    try:
        done = subprocess.run([sys.executable, "-c", code, str(ROOT), claim_id, "large" if large else "small",
                               str(seed_offset)], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"verdict": f"over {timeout:g} s", "seconds": None}
    if done.returncode != 0 or not done.stdout.strip():
        return {"verdict": "error", "seconds": None, "detail": done.stderr[-500:]}
    row = json.loads(done.stdout.strip().splitlines()[-1])
    return {"verdict": row["verdict"], "seconds": row["seconds"], "measured": row["measured"]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--sizes", choices=("large", "small"), default="large",
                        help="large: the cross-checks' CUDA sizes (default); small: their CPU sizes")
    parser.add_argument("--only", default=None, help="a pattern of claim ids, as python -m verify --only")
    parser.add_argument("--seed-offset", type=int, default=0)
    parser.add_argument("--cpu-timeout", type=float, default=60.0, help="seconds allowed to each CPU baseline")
    parser.add_argument("--no-cpu-baseline", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "gpu_crosschecks.json"))
    args = parser.parse_args(argv)
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            parser.error("--device cuda: torch sees no CUDA device")
    large = args.sizes == "large"
    claims = [c for c in registry.select(args.only, include_slow=True) if c.kind == "crosscheck"]
    report = {"provenance": provenance(args.device), "sizes": args.sizes, "seed_offset": args.seed_offset,
              "rows": []}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    print(f"{'cross-check':52s} {'verdict':8s} {'measured':>10s} {'tolerance':>10s} {'s':>7s} {'cpu s':>8s} "
          f"{'cpu/dev':>7s}", flush=True)
    for claim in claims:
        row = run_one(claim.id, args.device, large, args.seed_offset)
        if not args.no_cpu_baseline and args.device != "cpu":
            base = cpu_baseline(claim.id, large, args.seed_offset, args.cpu_timeout)
            row["cpu_baseline"] = base
            row["cpu_over_device"] = base["seconds"] / row["seconds"] if base.get("seconds") else None
        report["rows"].append(row)
        out.write_text(json.dumps(report, indent=1, default=str))  # what is done survives a time-out
        base = row.get("cpu_baseline", {})
        ratio = row.get("cpu_over_device")
        print(f"{claim.id:52s} {row['verdict']:8s} {row['measured']:10.3g} {row['tolerance']:10.3g} "
              f"{row['seconds']:7.2f} {base.get('seconds') or float('nan'):8.2f} "
              f"{ratio if ratio else float('nan'):7.2f}", flush=True)
    failed = [r["id"] for r in report["rows"] if r["verdict"] != "pass"]
    print(f"{len(report['rows']) - len(failed)} passed, {len(failed)} failed" + (f": {failed}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
