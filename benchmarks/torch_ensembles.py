"""Many small networks of one shape, trained as one batched model against a loop over the models, in one run.

* Two moons (Pezeshki et al. 2021, Fig 1; 3 runs x 3 seeds, 500 hidden ReLUs, 300 points, full-batch SGD with
  momentum and weight decay, float64): the compiled trainer ``dynamics.starvation.train_two_moons`` (the figure's),
  its torch simulation (one stacked model, closed-form backward pass, ``torch.optim.SGD``), and a loop of nine
  ``nn.Sequential`` nets trained with autograd one after another. Time per full-batch step (all nine nets).
* The parity sweep (Barsbey et al. 2025; 20 -> 200 -> 200 -> 2 bias-free ReLU MLP, batch 100, float32): one SGD
  step (forward, closed-form backward, update) of six seeds as one stacked model against a loop of six one-seed
  steps. Its floor, the step's five large batched matrix products alone, is printed beside it.

torch keeps its default threads (as in a user's session). Times are the minimum over repeats
(``_timing.best_of``). Run: python benchmarks/torch_ensembles.py
"""
from _timing import best_of
import torch

from dynamics import starvation as gs
from dynamics.numerics.torch_batched import MemberOptimizer, relu_mlp_cross_entropy_gradients
from dynamics.starvation import torch_training as starvation_torch

SEEDS, HIDDEN, STEPS = (0, 1, 2), 500, 200


def autograd_loop(n_steps):
    """The nine two-moons nets one after another: nn.Linear layers, autograd, torch.optim.SGD."""
    start = gs.train_two_moons.uncached(gs.TwoMoonsConfig(n_steps=0, hidden=HIDDEN), SEEDS)
    penalties = [run.output_penalty for run in start.runs for _ in SEEDS]
    for b, (penalty, (X, y)) in enumerate(zip(penalties, start.data)):
        net = torch.nn.Sequential(torch.nn.Linear(2, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, 1)).double()
        with torch.no_grad():
            for param, value in zip(net.parameters(), (p[b] for p in start.params)):
                param.copy_(torch.as_tensor(value).reshape(param.shape))
        X, y = torch.as_tensor(X), torch.as_tensor(y)
        optimiser = torch.optim.SGD(net.parameters(), lr=1e-2, momentum=0.9, weight_decay=2e-4)
        for _ in range(n_steps):
            optimiser.zero_grad()
            logits = net(X)[:, 0]
            (torch.nn.functional.softplus(-y * logits).mean() + 0.5 * penalty * (logits ** 2).mean()).backward()
            optimiser.step()


def per_step(train, repeats=3):
    """Seconds per full-batch step: (time of STEPS steps - time of none) / STEPS (the set-up, its NTK
    eigendecompositions included, cancels)."""
    return (best_of(lambda: train(STEPS), repeats) - best_of(lambda: train(0), repeats)) / STEPS


def two_moons():
    def config(n_steps):
        return gs.TwoMoonsConfig(n_steps=n_steps, hidden=HIDDEN, record_every=50)

    rows = {"compiled (train_two_moons)": lambda n: gs.train_two_moons.uncached(config(n), SEEDS),
            "torch, one stacked model": lambda n: starvation_torch.train_two_moons.uncached(config(n), SEEDS,
                                                                                            device="cpu"),
            "torch, loop of 9 autograd nets": autograd_loop}
    times = {name: per_step(train) for name, train in rows.items()}
    loop = times["torch, loop of 9 autograd nets"]
    print(f"Two moons, 9 nets x {HIDDEN} hidden x 300 points, float64: time per full-batch step")
    for name, seconds in times.items():
        print(f"  {name:34s} {seconds * 1e3:8.2f} ms  {loop / seconds:6.1f}x the loop")
    print(f"  Fig 1's 2000 steps: compiled {2000 * times['compiled (train_two_moons)']:.1f} s, "
          f"stacked torch {2000 * times['torch, one stacked model']:.1f} s, loop {2000 * loop:.1f} s")


def parity(n_seeds=6, repeats=100):
    gen = torch.Generator().manual_seed(0)
    sizes = (20, 200, 200, 2)
    weights = [0.1 * torch.randn(n_seeds, fan_out, fan_in, generator=gen) for fan_in, fan_out in zip(sizes, sizes[1:])]
    x = torch.randn(n_seeds, 100, 20, generator=gen)
    labels = torch.randint(0, 2, (n_seeds, 100), generator=gen)
    singles = [[W[s:s + 1].clone() for W in weights] for s in range(n_seeds)]
    hidden = torch.randn(n_seeds, 100, 200, generator=gen)

    optimizers = [MemberOptimizer(weights, 1e-9)] + [MemberOptimizer(single, 1e-9) for single in singles]

    def sgd_step(optimizer, x, labels):  # the parity trainer's step on the batched-trainer core
        optimizer.step(relu_mlp_cross_entropy_gradients(optimizer.params, x, labels)[1])

    def stacked():
        for _ in range(repeats):
            sgd_step(optimizers[0], x, labels)

    def looped():
        for _ in range(repeats):
            for s in range(n_seeds):
                sgd_step(optimizers[s + 1], x[s:s + 1], labels[s:s + 1])

    def products():  # the five large products of one step: two forward, two weight gradients, one backward
        for _ in range(repeats):
            torch.bmm(x, weights[0].transpose(1, 2)), torch.bmm(hidden, weights[1].transpose(1, 2))
            torch.bmm(hidden.transpose(1, 2), hidden), torch.bmm(hidden, weights[1])
            torch.bmm(hidden.transpose(1, 2), x)

    t_stacked, t_looped, t_products = (best_of(f, 3) / repeats for f in (stacked, looped, products))
    print(f"\nParity MLP 20-200-200-2, {n_seeds} seeds, a minibatch of 100, float32: time per SGD step (all seeds)")
    print(f"  stacked    {t_stacked * 1e3:7.2f} ms  {t_looped / t_stacked:5.1f}x the loop")
    print(f"  loop       {t_looped * 1e3:7.2f} ms")
    print(f"  floor: the step's five large batched products alone {t_products * 1e3:.2f} ms (stacked: "
          f"{t_stacked / t_products:.1f}x of it)")


if __name__ == "__main__":
    print(f"torch {torch.__version__}, {torch.get_num_threads()} intra-op threads")
    two_moons()
    parity()
