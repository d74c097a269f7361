"""BLAS threads on a busy machine: the dense linear algebra of a sweep with 1 and with 2 BLAS threads, with and
without CPU-bound load beside it, all in one run; and the library's heaviest dense routines as they run now (one BLAS
thread inside them on small matrices, ``dynamics.numerics.threads``) against the same routines without that limit
(their ``__wrapped__`` originals, under the process's default threads), quiet and loaded.

Run it with the machine's default BLAS threads (no ``OPENBLAS_NUM_THREADS`` in the environment), as a user's own
script runs; the script says so when a thread variable is set.

The cases of the first table: ``double_descent.exact_gd_order_parameters`` at d = 250, n = 300, 300 times, with F given as a
``Modulation`` and as the same F as a plain matrix, and the eigendecomposition of a 250 × 250 matrix, its floor.
``--load K`` starts K CPU-bound processes (pure Python loops) for the loaded half of the run. Times are the minimum
over repeats (``benchmarks/_timing.py``); the ratios in the last column are what to read.

Run: python benchmarks/blas_threads.py [--load 2] [--repeats 7]
"""
import argparse
import multiprocessing as mp
import os
import time

import numpy as np
from threadpoolctl import threadpool_limits

import dynamics.double_descent as dd
import dynamics.linear_networks as ln
import dynamics.starvation as gs

from _timing import best_of


def _burn(stop):
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def _cases():
    design = dd.draw_teacher_student(dd.TeacherStudentProblem(300, 250, 175, 30.0), seed=0)
    F, X = design.modulation.draw(0), design.X[0]
    steps = np.geomspace(1.0, 1e6, 300)
    A = X.T @ X
    return (("exact_gd_order_parameters, F as a Modulation", lambda: dd.exact_gd_order_parameters(F, X, steps)),
            ("exact_gd_order_parameters, F as a matrix", lambda: dd.exact_gd_order_parameters(F.matrix, X, steps)),
            ("eigh of a 250 x 250 matrix", lambda: np.linalg.eigh(A)))


def _routines():
    """The five heaviest dense routines of the theories at the sizes the claims and figures use: (name, the routine
    as the library runs it, its unprotected original, its arguments)."""
    rng = np.random.default_rng(0)
    design = dd.draw_teacher_student(dd.TeacherStudentProblem(300, 250, 175, 30.0), seed=0)
    F, X = design.modulation.draw(0), design.X[0]
    y = X @ rng.standard_normal(250)
    steps = np.geomspace(1.0, 1e6, 300)
    inputs = rng.standard_normal((200, 240)) / np.sqrt(200)
    Phi0 = rng.standard_normal((150, 250))
    labels = np.where(rng.standard_normal(150) > 0, 1.0, -1.0)
    # near the limit's threshold (512)
    big = dd.draw_teacher_student(dd.TeacherStudentProblem(500, 480, 336, 30.0), seed=1)
    F_big, X_big = big.modulation.draw(0), big.X[0]
    cases = (("dd.exact_gd_order_parameters (d = 250)", dd.exact_gd_order_parameters, (F, X, steps)),
             ("dd.exact_gd_order_parameters (d = 480)", dd.exact_gd_order_parameters, (F_big, X_big, steps)),
             ("dd.gd_weights (300 x 250, 300 steps)", dd.gd_weights, (X, y, steps)),
             ("dd.gd_weights (500 x 480, 300 steps)", dd.gd_weights, (X_big, X_big @ rng.standard_normal(480), steps)),
             ("dd.ridge_weights (300 x 250, 50 ridges)", dd.ridge_weights, (X, y, np.geomspace(1e-3, 10, 50))),
             ("ln.student_instance (200 x 240)", ln.student_instance,
              (inputs, rng.standard_normal(200), rng.standard_normal(240), np.zeros(200), 0.1)),
             ("gs.features (150 x 250)", gs.features, (Phi0, labels)))
    return [(name, routine, routine.__wrapped__, args) for name, routine, args in cases]


def compare_library(load, repeats):
    """{(name, loaded): (library seconds, unprotected seconds)}: each pair timed back to back."""
    table = {}
    for loaded in (False, True):
        stop, burners = mp.Event(), []
        if loaded:
            burners = [mp.Process(target=_burn, args=(stop,), daemon=True) for _ in range(load)]
            for b in burners:
                b.start()
            time.sleep(0.5)
        try:
            for name, library, original, args in _routines():
                table[name, loaded] = (best_of(lambda: library(*args), repeats),
                                       best_of(lambda: original(*args), repeats))
        finally:
            stop.set()
            for b in burners:
                b.join()
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--load", type=int, default=2, help="CPU-bound processes beside the loaded half (2)")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    pinned = [v for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS") if v in os.environ]
    if pinned:
        print(f"note: {', '.join(pinned)} set in the environment: the unprotected routines run with that many threads")
    library = compare_library(args.load, args.repeats)
    print(f"{'routine':42s} {'load':>5s} {'library':>10s} {'unlimited':>10s} {'unlimited / library':>20s}")
    for name, *_ in _routines():
        for loaded in (False, True):
            ours, theirs = library[name, loaded]
            print(f"{name:42s} {args.load if loaded else 0:5d} {1e3 * ours:7.2f} ms {1e3 * theirs:7.2f} ms "
                  f"{theirs / ours:19.2f}x")
    print()
    cases = _cases()
    table = {}
    for loaded in (False, True):
        stop, burners = mp.Event(), []
        if loaded:
            burners = [mp.Process(target=_burn, args=(stop,), daemon=True) for _ in range(args.load)]
            for b in burners:
                b.start()
            time.sleep(0.5)
        try:
            for name, fn in cases:
                for threads in (1, 2):
                    with threadpool_limits(limits=threads, user_api="blas"):
                        table[name, loaded, threads] = best_of(fn, args.repeats)
        finally:
            stop.set()
            for b in burners:
                b.join()
    print(f"{'case':48s} {'load':>5s} {'1 thread':>10s} {'2 threads':>10s} {'2 vs 1':>7s}")
    for name, _ in cases:
        for loaded in (False, True):
            one, two = table[name, loaded, 1], table[name, loaded, 2]
            print(f"{name:48s} {args.load if loaded else 0:5d} {1e3 * one:8.2f} ms {1e3 * two:8.2f} ms "
                  f"{two / one:6.2f}x")
    mod, mat = "exact_gd_order_parameters, F as a Modulation", "exact_gd_order_parameters, F as a matrix"
    for loaded in (False, True):
        for threads in (1, 2):
            print(f"matrix route / Modulation route, load {args.load if loaded else 0}, {threads} BLAS thread(s): "
                  f"{table[mat, loaded, threads] / table[mod, loaded, threads]:.2f}")


if __name__ == "__main__":
    main()
