"""Throughput of the AND-mask Monte Carlo engine (issue 10: at least 1e8 gradient entries per second per core),
against a plain numpy version of the same statistics, measured in one run.

Both compute, for N coordinates of d i.i.d. N(μ, σ²) gradients, the sign sum S = #positive − #negative and the
sums of 1, ḡ, ḡ², ḡ⁴ binned by S (the sufficient statistics of every τ-form mask statistic). numpy draws with
``Generator.standard_normal`` in blocks of 2^20 entries and bins with ``bincount``; the engine draws with its own
xoshiro256++/ziggurat generator inside a numba kernel. The engine is timed with numba's thread pool set to 1 and to
2 threads ("per core" = rate / threads); the temporal (EMA) kernel of Algorithm 1 is timed too. Times are the
minimum over repeats (the machine is shared).

usage: python benchmarks/and_mask.py [--entries 4e7] [--repeats 3]
"""
import argparse
import os
import time

import numba
import numpy as np

from dynamics import and_mask as am


def numpy_mask_statistics(n_envs, n_samples, snr=0.0, gradient_std=1.0, seed=0, block=2 ** 20):
    """The plain numpy version of :func:`dynamics.and_mask.simulate_mask` (same binned sums)."""
    rng = np.random.default_rng(seed)
    d = n_envs
    bins = np.zeros((4, 2 * d + 1))
    rows = max(block // d, 1)
    done = 0
    while done < n_samples:
        m = min(rows, n_samples - done)
        g = snr * gradient_std + gradient_std * rng.standard_normal((m, d))
        index = (g > 0).sum(axis=1) - (g < 0).sum(axis=1) + d
        mean = g.mean(axis=1)
        sq = mean * mean
        for row, weights in enumerate((None, mean, sq, sq * sq)):
            bins[row] += np.bincount(index, weights=weights, minlength=2 * d + 1)
        done += m
    return bins


def best_time(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=float, default=4e7, help="gradient entries per timed call")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    entries = int(args.entries)
    max_threads = min(2, numba.config.NUMBA_NUM_THREADS)
    am.simulate_mask(4, 10_000_000, seed=0)  # compile (or load) both kernels before timing
    am.simulate_mask(4, 1000, seed=0)
    am.simulate_temporal_mask(0.0, 0.79, 0.36, 100, 100_000, seed=0)
    print(f"cores seen: {os.cpu_count()}, numba threads available: {numba.config.NUMBA_NUM_THREADS}, "
          f"entries per call: {entries:.1e}, best of {args.repeats}")
    header = f"{'kernel':<16}{'d':>4}{'threads':>9}{'seconds':>10}{'entries/s':>12}{'per core':>12}{'vs numpy':>10}"
    print(header)
    print("-" * len(header))
    previous = numba.get_num_threads()
    try:
        for d in (2, 16, 64):
            n = entries // d
            numpy_seconds = best_time(lambda: numpy_mask_statistics(d, n), args.repeats)
            numpy_rate = n * d / numpy_seconds
            print(f"{'numpy':<16}{d:>4}{1:>9}{numpy_seconds:>10.3f}{numpy_rate:>12.3g}{numpy_rate:>12.3g}{1.0:>10.1f}")
            for threads in range(1, max_threads + 1):
                numba.set_num_threads(threads)
                seconds = best_time(lambda: am.simulate_mask(d, n, seed=1), args.repeats)
                rate = n * d / seconds
                print(f"{'simulate_mask':<16}{d:>4}{threads:>9}{seconds:>10.3f}{rate:>12.3g}{rate / threads:>12.3g}"
                      f"{rate / numpy_rate:>10.1f}")
        steps = 100
        chains = entries // steps
        for threads in range(1, max_threads + 1):
            numba.set_num_threads(threads)
            seconds = best_time(lambda: am.simulate_temporal_mask(0.3, 0.79, 0.36, steps, chains, seed=1), args.repeats)
            rate = steps * chains / seconds
            print(f"{'temporal EMA':<16}{'-':>4}{threads:>9}{seconds:>10.3f}{rate:>12.3g}{rate / threads:>12.3g}{'':>10}")
    finally:
        numba.set_num_threads(previous)
    print(f"load average during the run: {os.getloadavg()[0]:.1f} (the machine is shared: per-core rates with 2 "
          f"threads fall when the other core is busy)")


if __name__ == "__main__":
    main()
