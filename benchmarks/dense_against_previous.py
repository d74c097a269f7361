"""The heaviest dense routines now against the same routines at an earlier commit, on the machine's default BLAS
threads: the rule that the library's one-thread limit (``dynamics.numerics.threads``) and the rewrites around it
make no call slower on a quiet machine than the code they replaced.

The earlier commit's ``dynamics`` is taken with ``git archive`` into a temporary folder; each side runs in its own
worker process (two copies of the package's numba kernels cannot share one process), and the two workers alternate
for ``--rounds`` rounds, each timing every routine (minimum of ``--repeats`` calls). A routine's time is its minimum
over the rounds, so that a burst of load in one round does not decide the ratio. The default commit, 4de22db, is
the code as it was when the test-tier issue was filed (``einsum`` back-transforms, numpy's ``eigh`` and ``svd``,
no thread limit).

Run: python benchmarks/dense_against_previous.py [--previous 4de22db] [--rounds 5] [--repeats 7]
"""
import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _cases(dd, ln, gs):
    """(name, call) for the routines of ``benchmarks/blas_threads.py`` at the sizes the claims and figures use."""
    import numpy as np

    rng = np.random.default_rng(0)
    cases = []
    for n, d in ((300, 250), (500, 480)):
        # the teacher-student model's design and modulation (σ = 1 on 70% of the directions, 1/κ on the others),
        # drawn with numpy so that both sides get the same arrays whatever their drawing API
        U, V = (np.linalg.qr(rng.standard_normal((d, d)))[0] for _ in range(2))
        sigma = np.where(np.arange(d) < int(0.7 * d), 1.0, 1.0 / 30.0)
        F, X = dd.Modulation(U, sigma, V, int(0.7 * d)), rng.standard_normal((n, d)) / np.sqrt(d)
        y = X @ rng.standard_normal(d)
        steps, ridges = np.geomspace(1.0, 1e6, 300), np.geomspace(1e-3, 10, 50)
        cases += [(f"exact_gd_order_parameters, {n} x {d}, 300 steps",
                   lambda F=F, X=X, s=steps: dd.exact_gd_order_parameters(F, X, s)),
                  (f"gd_weights, {n} x {d}, 300 steps", lambda X=X, y=y, s=steps: dd.gd_weights(X, y, s)),
                  (f"ridge_weights, {n} x {d}, 50 ridges", lambda X=X, y=y, r=ridges: dd.ridge_weights(X, y, r))]
    inputs = rng.standard_normal((200, 240)) / np.sqrt(200)
    student = (inputs, rng.standard_normal(200), rng.standard_normal(240), np.zeros(200), 0.1)
    cases.append(("student_instance, 200 x 240", lambda: ln.student_instance(*student)))
    Phi0, labels = rng.standard_normal((150, 250)), np.where(rng.standard_normal(150) > 0, 1.0, -1.0)
    cases.append(("features, 150 x 250", lambda: gs.features(Phi0, labels)))
    return cases


def _worker(repeats):
    """Time every case with the ``dynamics`` found first on sys.path; print {name: seconds} as JSON."""
    import dynamics.double_descent as dd
    import dynamics.linear_networks as ln
    import dynamics.starvation as gs

    times = {}
    for name, call in _cases(dd, ln, gs):
        call()  # compile and warm the caches
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            call()
            best = min(best, time.perf_counter() - start)
        times[name] = best
    print(json.dumps({"file": dd.__file__, "times": times}))


def _run_worker(root, repeats):
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run([sys.executable, __file__, "--worker", "--repeats", str(repeats)], env=env, cwd=root,
                         capture_output=True, text=True, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    if not result["file"].startswith(str(root)):
        raise RuntimeError(f"the worker imported {result['file']}, not the tree at {root}")
    return result["times"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--previous", default="4de22db", help="the earlier commit (4de22db)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return _worker(args.repeats)
    pinned = [v for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS") if v in os.environ]
    if pinned:
        print(f"note: {', '.join(pinned)} set in the environment: both sides run with that many threads")
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "archive", args.previous, "dynamics"], cwd=ROOT, capture_output=True,
                                 check=True).stdout
        with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        best = {"previous": {}, "now": {}}
        for _ in range(args.rounds):
            for side, root in (("previous", Path(folder)), ("now", ROOT)):
                for name, seconds in _run_worker(root, args.repeats).items():
                    best[side][name] = min(best[side].get(name, float("inf")), seconds)
    print(f"{'routine':46s} {args.previous[:10]:>10s} {'now':>10s} {'previous / now':>15s}")
    for name, now in best["now"].items():
        previous = best["previous"][name]
        print(f"{name:46s} {1e3 * previous:7.2f} ms {1e3 * now:7.2f} ms {previous / now:14.2f}x")


if __name__ == "__main__":
    main()
