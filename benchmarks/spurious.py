"""Speed of the spurious-correlation package, as ratios measured in one run (warm: compilation excluded).

* The linear-toy trainer (Pezeshki (thesis) §8.4; this project's CPU setting: n = 400, d = 600, batch 100, 500
  epochs, group accuracies on validation and test after every epoch): the numba trainer against a plain numpy
  loop doing the same arithmetic (vectorised per minibatch, the same index orders) and, when torch is installed,
  against the torch ``SGD`` replay of the cross-check. Target: one 500-epoch run well under a second.
* Proposition 1 in log space: ``bc_ba_loss_ratio(log=True)`` on 1000 values of k against a 40-digit mpmath
  evaluation of the same ratio (the reference of the claims), per k.

Times are the minimum over repeats. Run: python benchmarks/spurious.py
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import mpmath  # noqa: E402
from _timing import best_of  # noqa: E402
import numpy as np  # noqa: E402
from scipy.special import expit  # noqa: E402

from dynamics import spurious as spur  # noqa: E402


def numpy_trainer(splits, run, learning_rate=1e-5, momentum=0.9, batch_size=100):
    """The same SGD and per-epoch group accuracies in plain numpy, replaying ``run``'s orders (ERM/RWG)."""
    train, val, test = splits
    gam = spur.toy_feature_scales(train.x.shape[1] - 2)
    xs, xv, xt = train.x * gam, val.x * gam, test.x * gam
    w, v = run.init.copy(), None
    accs = np.empty((2, len(run.orders), 4))
    for epoch, order in enumerate(run.orders):
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            g = ((expit(xs[idx] @ w) - train.y[idx]) / len(idx)) @ xs[idx]
            v = g if v is None else momentum * v + g
            w = w - learning_rate * v
        for j, (x, d) in enumerate(((xv, val), (xt, test))):
            accs[j, epoch] = spur.group_accuracies((x @ w > 0).astype(int), d.y, d.group, 4)
    return w, accs


def main():
    config = spur.BalancingToyConfig.ci()  # n = 400, d = 600, batch 100, 500 epochs
    splits = spur.make_balancing_toy_splits(config.n_samples, config.n_noise, seed=0)
    print("linear toy, n = 400, d = 600, batch 100, 500 epochs (one run)")
    print(f"{'method':8s} {'numba ms':>10s} {'numpy ms':>10s} {'speed-up':>9s} {'torch ms':>10s} {'speed-up':>9s} "
          f"{'max |Δw|/max|w|':>16s}")
    try:
        from dynamics.spurious import torch_training as tt
    except ImportError:
        tt = None
    for method in ("erm", "rwg"):
        run = spur.train_balancing_toy(*splits, method, config, seed=1, return_orders=True)
        ours = best_of(lambda: spur.train_balancing_toy(*splits, method, config, seed=1))
        w, _ = numpy_trainer(splits, run)
        plain = best_of(lambda: numpy_trainer(splits, run), repeats=2)
        gap = np.abs(w - run.weights).max() / np.abs(run.weights).max()
        torch_cell = f"{'-':>10s} {'-':>9s}"
        if tt is not None:
            torch_time = best_of(lambda: tt.replay_balancing_toy(*splits, run, method, config, device="cpu"), repeats=1)
            torch_cell = f"{1e3 * torch_time:10.1f} {torch_time / ours:8.1f}x"
        print(f"{method:8s} {1e3 * ours:10.1f} {1e3 * plain:10.1f} {plain / ours:8.1f}x {torch_cell} {gap:16.1e}",
              flush=True)

    alpha = np.random.default_rng(0).uniform(0.1, 2.0, 90)
    beta = np.random.default_rng(1).uniform(0.1, 2.0, 10)
    ks = np.geomspace(1e-2, 1e4 / 2.0, 1000)
    ours = best_of(lambda: spur.bc_ba_loss_ratio(ks, alpha, beta, log=True)) / ks.size

    def reference(k):
        with mpmath.workdps(40):
            num = mpmath.fsum(mpmath.log1p(mpmath.exp(k * mpmath.mpf(b))) for b in beta)
            den = mpmath.fsum(mpmath.log1p(mpmath.exp(-k * mpmath.mpf(a))) for a in alpha)
            return mpmath.log(num) - mpmath.log(den)

    slow = best_of(lambda: [reference(k) for k in ks[::100]], repeats=2) / ks[::100].size
    print("\nProposition 1, log R(k) with n_ba = 90, n_bc = 10 (per value of k)")
    print(f"numpy log space {1e6 * ours:8.2f} us   mpmath 40 digits {1e6 * slow:9.1f} us   "
          f"speed-up {slow / ours:7.0f}x")


if __name__ == "__main__":
    main()
