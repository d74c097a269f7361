"""Torch cross-checks of the numerics core's batched-trainer core, :mod:`dynamics.numerics.torch_batched`.

Every experiment trainer of the torch layer updates its stack of models through
:class:`~dynamics.numerics.torch_batched.MemberOptimizer`. Its promise is that each member follows exactly the path
torch's own optimizer gives it when it is trained alone, whatever the other members' settings and whenever it stops.
The claim holds a stack of members with different learning rates, momenta, weight decays, L1 penalties, optimizers
(SGD and Adam) and stopping steps to ``torch.optim.SGD`` and ``torch.optim.Adam`` run on each member by itself.
"""
import numpy as np

from . import crosscheck
from ..registry import Check, planted_bug

N_MEMBERS = 6
N_STEPS = 25
# float64: the two routes order Adam's operations differently (a few ulp a step); over 25 steps the members agree to
# about 1e-14 relative, so 1e-11 leaves room and still fails on any wrong setting (a weight decay of 1e-3 dropped for
# one member moves it by about 1e-4 relative).
TOLERANCE = 1e-11


@crosscheck("numerics.member_optimizer_matches_torch_alone",
            "derived in this project: torch.optim.SGD and torch.optim.Adam, one member at a time",
            f"A stack of {N_MEMBERS} members (random quadratic losses; per member its own learning rate, momentum, "
            f"L2 weight decay (never 0), L1 penalty, SGD or Adam, and last training step) stepped {N_STEPS} times by "
            "MemberOptimizer ends where torch.optim.SGD or torch.optim.Adam takes each member alone, with the L1 "
            f"subgradient added to its gradient: max relative difference <= {TOLERANCE:g} (float64).",
            cost="fast", stochastic=True)
def member_optimizer_matches_torch_alone(ctx):
    from dynamics.numerics.torch_batched import MemberOptimizer

    torch = ctx.torch
    rng = ctx.seed(401)
    shapes = ((3, 4), (5,))
    lr = rng.uniform(0.01, 0.1, N_MEMBERS)
    momentum = np.where(rng.random(N_MEMBERS) < 0.5, 0.0, rng.uniform(0.5, 0.95, N_MEMBERS))
    weight_decay = rng.choice([1e-3, 1e-2], N_MEMBERS)  # every member decays: a setting lost for any one shows
    l1 = rng.choice([0.0, 1e-3], N_MEMBERS)
    adam = rng.random(N_MEMBERS) < 0.5
    last = rng.integers(N_STEPS // 2, N_STEPS + 1, N_MEMBERS)  # member m trains steps 1..last[m]
    start = [rng.standard_normal((N_MEMBERS,) + s) for s in shapes]
    A = [rng.standard_normal((N_MEMBERS, int(np.prod(s)) + 2, int(np.prod(s)))) for s in shapes]
    b = [rng.standard_normal((N_MEMBERS, a.shape[1])) for a in A]
    A_t, b_t = [ctx.tensor(a) for a in A], [ctx.tensor(c) for c in b]

    def gradients(params, rows):  # of 0.5‖A_m θ_m − b_m‖² for the members ``rows``
        out = []
        for p, a, c in zip(params, A_t, b_t):
            flat = p.reshape(p.shape[0], -1)
            residual = torch.einsum("mij,mj->mi", a[rows], flat) - c[rows]
            out.append(torch.einsum("mij,mi->mj", a[rows], residual).reshape(p.shape))
        return out

    every = torch.arange(N_MEMBERS, device=ctx.device)
    stack = [ctx.tensor(s).clone() for s in start]  # a copy: as_tensor shares a numpy array's memory on the CPU
    optimizer = MemberOptimizer(stack, lr, momentum=momentum, weight_decay=weight_decay, l1=l1, adam=adam)
    for step in range(1, N_STEPS + 1):
        optimizer.step(gradients(stack, every), active=ctx.tensor(step <= last).bool())
    worst = 0.0
    for m in range(N_MEMBERS):
        alone = [ctx.tensor(s[m:m + 1]).clone().requires_grad_(True) for s in start]
        if adam[m]:
            reference = torch.optim.Adam(alone, lr=float(lr[m]), weight_decay=float(weight_decay[m]))
        else:
            reference = torch.optim.SGD(alone, lr=float(lr[m]), momentum=float(momentum[m]),
                                        weight_decay=float(weight_decay[m]))
        rows = every[m:m + 1]
        for _ in range(int(last[m])):
            for p, g in zip(alone, gradients([q.detach() for q in alone], rows)):
                p.grad = g + float(l1[m]) * torch.sign(p.detach())
            reference.step()
        for p, q in zip(stack, alone):
            ours, theirs = ctx.numpy(p[m]), ctx.numpy(q[0])
            worst = max(worst, float(np.max(np.abs(ours - theirs)) / np.max(np.abs(theirs))))
    return Check.at_most(worst, TOLERANCE, f"max relative difference over {N_MEMBERS} members, "
                                           f"{int(adam.sum())} of them Adam, stopping at steps {last.tolist()}")


# A plausible bug the claim catches (planted in a copy of the library by tests/test_mutations.py): the first member's
# weight decay is dropped, as a slip in the broadcasting of a per-member setting would do.
planted_bug("numerics: the batched optimizer drops one member's weight decay", "dynamics/numerics/torch_batched.py",
            "                g = g + weight_decay * p",
            "                g = g + weight_decay * (torch.arange(p.shape[0], device=p.device) > 0).view(shape) * p",
            ("numerics.member_optimizer_matches_torch_alone",))
