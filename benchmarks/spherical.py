"""Speed of dynamics.spherical.simulate: 1e5 optimizer steps on a 64-dimensional synthetic radially invariant
loss, the compiled loop (numba) against numpy, measured in one run (issue 11: "well under a second").

Two numpy baselines: the library's numpy reference engine (optimizer objects, argument checks, the Theorem 2
decomposition of every step: what ``simulate(..., engine="numpy")`` does) and a plain numpy loop written here for
the same update and loss with no checks and no bookkeeping beyond the radius. The numpy runs are timed on fewer
steps and scaled to 1e5 (their cost per step is constant). Times are the minimum over repeats, warm (compiled).

Then the Theorem 2 decomposition of one step of many filters at once (``spherical_step_batch``, one filter per
row, e.g. every filter of a ResNet layer) against a Python loop of ``spherical_step`` over the same rows.

usage: python benchmarks/spherical.py [--steps N]
"""
import argparse
import math
import time

import numpy as np

import dynamics.spherical as sph

D = 64


def _best(fn, repeats):
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _plain_sgdm_linear(table, x0, n, eta=0.05, gamma=0.9, lam=1e-3, G=1.0):
    """SGD-M + L2 on the random linear loss with a controlled gradient norm, in plain numpy."""
    x, m = x0.copy(), np.zeros_like(x0)
    radius = np.empty(n + 1)
    radius[0] = np.linalg.norm(x)
    for k in range(n):
        r = np.linalg.norm(x)
        u = x / r
        w = table[k % table.shape[0]]
        g = w - (w @ u) * u
        g *= G / (np.linalg.norm(g) * r)
        m = gamma * m + g + lam * x
        x = x - eta * m
        radius[k + 1] = np.linalg.norm(x)
    return radius


def _plain_adamsrt_rayleigh(H, x0, n, eta=1e-3, beta1=0.9, beta2=0.999):
    """Adam w/o (abc) on the Rayleigh quotient, in plain numpy."""
    x, m, v = x0.copy(), np.zeros_like(x0), 0.0
    d = x0.size
    for k in range(n):
        r = np.linalg.norm(x)
        u = x / r
        Hu = H @ u
        g = (Hu - (u @ Hu) * u) / r
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * (g @ g) / d
        t = k + 1
        x_new = x - eta * (m / (1 - beta1 ** t)) / math.sqrt(v / (1 - beta2 ** t))
        m = ((x_new @ x) * m - (x_new @ m) * x) / (x_new @ x_new)
        v = v * (x @ x) / (x_new @ x_new)
        x = x_new
    return x


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    args = parser.parse_args(argv)
    n = args.steps
    n_numpy = max(n // 20, 1)
    rng = np.random.default_rng(0)
    A = rng.standard_normal((D, D))
    H = (A + A.T) / 2
    table = rng.standard_normal((4096, D))
    x0 = rng.standard_normal(D)
    cases = [
        ("SGD-M + L2", "random linear (table), G = 1", sph.SGD(0.05, 0.9, 1e-3), sph.RandomLinearLoss(table, 1.0),
         lambda steps: _plain_sgdm_linear(table, x0, steps)),
        ("SGD-M + L2", "random linear (fresh Gaussian draws)", sph.SGD(0.05, 0.9, 1e-3),
         sph.RandomLinearLoss.stream(D, 1.0, seed=1), None),
        ("AdamSRT", "Rayleigh quotient", sph.AdamSRT(1e-3), sph.RayleighLoss(H), lambda steps: _plain_adamsrt_rayleigh(H, x0, steps)),
        ("Adam + L2", "WN logistic, 64 samples", sph.Adam(1e-3, weight_decay=1e-3),
         sph.WNLogistic(rng.standard_normal((64, D)), np.sign(rng.standard_normal(64)), 2.0), None),
    ]
    header = (f"{'optimizer':12s} {'loss (d = 64)':38s} {'numba ms':>9s} {'numpy engine ms':>16s} {'ratio':>7s} "
              f"{'plain numpy ms':>15s} {'ratio':>7s}")
    print(f"{n} steps; numpy runs timed on {n_numpy} steps and scaled by {n / n_numpy:g}")
    print(header)
    print("-" * len(header))
    for name, loss_name, opt, loss, plain in cases:
        sph.simulate(opt, loss, x0, 10)  # compile (or load from the cache)
        compiled = _best(lambda: sph.simulate(opt, loss, x0, n), 3)
        engine = _best(lambda: sph.simulate(opt, loss, x0, n_numpy, engine="numpy"), 1) * n / n_numpy
        line = f"{name:12s} {loss_name:38s} {compiled * 1e3:9.1f} {engine * 1e3:16.0f} {engine / compiled:6.0f}x"
        if plain is not None:
            baseline = _best(lambda: plain(n_numpy), 2) * n / n_numpy
            line += f" {baseline * 1e3:15.0f} {baseline / compiled:6.0f}x"
        print(line)
    print()
    print(f"{'filters x d':14s} {'spherical_step_batch ms':>24s} {'loop of spherical_step ms':>26s} {'ratio':>7s}")
    for n_filters, d in ((64, 27), (512, 1152)):
        x, a = rng.standard_normal((n_filters, d)), rng.standard_normal((n_filters, d))
        b = rng.uniform(0.5, 2.0, (n_filters, d))
        sph.spherical_step_batch(x, a, b, 1e-3)  # compile (or load from the cache)
        batch = _best(lambda: sph.spherical_step_batch(x, a, b, 1e-3), 5)
        loop = _best(lambda: [sph.spherical_step(x[i], a[i], b[i], 1e-3) for i in range(n_filters)], 2)
        print(f"{f'{n_filters} x {d}':14s} {batch * 1e3:24.2f} {loop * 1e3:26.2f} {loop / batch:6.0f}x")


if __name__ == "__main__":
    main()
