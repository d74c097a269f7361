"""BLAS threads on a busy machine: the dense linear algebra of a sweep with 1 and with 2 BLAS threads, with and
without CPU-bound load beside it, all in one run.

The cases: ``double_descent.exact_gd_order_parameters`` at d = 250, n = 300, 300 times, with F given as a
``Modulation`` and as the same F as a plain matrix, and the eigendecomposition of a 250 × 250 matrix, its floor.
``--load K`` starts K CPU-bound processes (pure Python loops) for the loaded half of the run. Times are the minimum
over repeats (``benchmarks/_timing.py``); the ratios in the last column are what to read.

Run: python benchmarks/blas_threads.py [--load 2] [--repeats 7]
"""
import argparse
import multiprocessing as mp
import time

import numpy as np
from threadpoolctl import threadpool_limits

import dynamics.double_descent as dd

from _timing import best_of


def _burn(stop):
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def _cases():
    design = dd.draw_teacher_student(300, 250, 175, 30.0, seed=0)
    F, X = design.modulation.draw(0), design.X[0]
    steps = np.geomspace(1.0, 1e6, 300)
    A = X.T @ X
    return (("exact_gd_order_parameters, F as a Modulation", lambda: dd.exact_gd_order_parameters(F, X, steps)),
            ("exact_gd_order_parameters, F as a matrix", lambda: dd.exact_gd_order_parameters(F.matrix, X, steps)),
            ("eigh of a 250 x 250 matrix", lambda: np.linalg.eigh(A)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--load", type=int, default=2, help="CPU-bound processes beside the loaded half (2)")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
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
