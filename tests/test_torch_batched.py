"""The batched-trainer core, dynamics.numerics.torch_batched (skipped without torch): each member of a stack follows
the path torch's own optimizer gives it alone (SGD with momentum and weight decay, Adam), the L1 penalty, per-member
early stopping by a mask and by shrinking the stack, and the hand-written backward pass against autograd."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dynamics.numerics.torch_batched import (MemberOptimizer, group_logistic_gradients,  # noqa: E402
                                             leaky_relu_mlp, relu_mlp, relu_mlp_cross_entropy_gradients,
                                             stacked_kaiming_mlp, stacked_uniform_weights)

M = 4
SETTINGS = dict(learning_rate=[0.1, 0.05, 0.2, 0.01], momentum=[0.0, 0.9, 0.5, 0.0],
                weight_decay=[0.0, 1e-2, 0.0, 0.1])


def _problem(seed=0):
    """A quadratic loss per member, 0.5‖A_m θ − b_m‖², on parameters of two shapes."""
    gen = torch.Generator().manual_seed(seed)
    params = [torch.randn(M, 3, 2, generator=gen, dtype=torch.float64), torch.randn(M, 5, generator=gen,
                                                                                   dtype=torch.float64)]
    A = [torch.randn(M, 6, 6, generator=gen, dtype=torch.float64) for _ in params]
    b = [torch.randn(M, 6, generator=gen, dtype=torch.float64) for _ in params]

    def grads(ps, members=slice(None)):
        out = []
        for p, a, c in zip(ps, A, b):
            flat = p.reshape(p.shape[0], -1)
            k = flat.shape[1]
            residual = torch.einsum("mij,mj->mi", a[members][:, :, :k], flat) - c[members]
            out.append(torch.einsum("mij,mi->mj", a[members][:, :, :k], residual).reshape(p.shape))
        return out

    return params, grads


def _alone(torch_optimizer, params, grads, member, n_steps, **settings):
    ps = [p[member:member + 1].clone().requires_grad_(True) for p in params]
    optimizer = torch_optimizer(ps, **settings)
    for _ in range(n_steps):
        for p, g in zip(ps, grads([q.detach() for q in ps], slice(member, member + 1))):
            p.grad = g
        optimizer.step()
    return [p.detach()[0] for p in ps]


def test_each_member_follows_torch_sgd_alone():
    params, grads = _problem()
    stack = [p.clone() for p in params]
    optimizer = MemberOptimizer(stack, **SETTINGS)
    for _ in range(7):
        optimizer.step(grads(stack))
    for m in range(M):
        alone = _alone(torch.optim.SGD, params, grads, m, 7, lr=SETTINGS["learning_rate"][m],
                       momentum=SETTINGS["momentum"][m], weight_decay=SETTINGS["weight_decay"][m])
        for p, q in zip(stack, alone):
            assert torch.allclose(p[m], q, rtol=1e-12, atol=1e-14), m


def test_adam_members_follow_torch_adam_and_mix_with_sgd_members():
    params, grads = _problem(1)
    adam = [True, False, True, False]
    stack = [p.clone() for p in params]
    optimizer = MemberOptimizer(stack, **SETTINGS, adam=adam)
    for _ in range(6):
        optimizer.step(grads(stack))
    for m in range(M):
        if adam[m]:
            alone = _alone(torch.optim.Adam, params, grads, m, 6, lr=SETTINGS["learning_rate"][m],
                           weight_decay=SETTINGS["weight_decay"][m])
        else:
            alone = _alone(torch.optim.SGD, params, grads, m, 6, lr=SETTINGS["learning_rate"][m],
                           momentum=SETTINGS["momentum"][m], weight_decay=SETTINGS["weight_decay"][m])
        for p, q in zip(stack, alone):
            assert torch.allclose(p[m], q, rtol=1e-10, atol=1e-13), m  # torch's Adam orders its operations otherwise


def test_l1_penalty_adds_its_subgradient():
    w = torch.tensor([[2.0, -3.0, 0.0], [2.0, -3.0, 0.0]], dtype=torch.float64)
    MemberOptimizer([w], 0.5, l1=[0.0, 0.2]).step([torch.zeros_like(w)])
    assert w.tolist() == [[2.0, -3.0, 0.0], [2.0 - 0.1, -3.0 + 0.1, 0.0]]


def test_a_stopped_member_keeps_its_weights_and_state_and_resumes_where_it_left():
    params, grads = _problem(2)
    masked = [p.clone() for p in params]
    optimizer = MemberOptimizer(masked, **SETTINGS)
    frozen = torch.tensor([True, False, True, True])
    for step in range(6):
        optimizer.step(grads(masked), active=frozen if step in (2, 3) else None)
    # member 1 skipped two steps: it equals a member that took 4 steps, and the others took 6
    for m in range(M):
        n = 4 if m == 1 else 6
        alone = _alone(torch.optim.SGD, params, grads, m, n, lr=SETTINGS["learning_rate"][m],
                       momentum=SETTINGS["momentum"][m], weight_decay=SETTINGS["weight_decay"][m])
        for p, q in zip(masked, alone):
            assert torch.allclose(p[m], q, rtol=1e-12, atol=1e-14), m


def test_keep_shrinks_the_stack_with_its_state_and_settings():
    params, grads = _problem(3)
    full = [p.clone() for p in params]
    shrunk = [p.clone() for p in params]
    a, b = MemberOptimizer(full, **SETTINGS), MemberOptimizer(shrunk, **SETTINGS)
    for _ in range(3):
        a.step(grads(full))
        b.step(grads(shrunk))
    rows = torch.tensor([3, 1])
    shrunk = b.keep(rows)
    for _ in range(3):
        a.step(grads(full))
        b.step(grads(shrunk, rows))
    assert len(b) == 2 and b.learning_rate.tolist() == [0.01, 0.05]
    for p, q in zip(full, shrunk):
        assert torch.equal(p[rows], q)


def test_the_optimizer_refuses_bad_settings_by_name():
    w = torch.zeros(2, 3, dtype=torch.float64)
    with pytest.raises(ValueError, match="learning_rate"):
        MemberOptimizer([w], [0.1, 0.0])
    with pytest.raises(ValueError, match="momentum"):
        MemberOptimizer([w], 0.1, momentum=1.0)
    with pytest.raises(ValueError, match="weight_decay"):
        MemberOptimizer([w], 0.1, weight_decay=[0.1, 0.1, 0.1])
    with pytest.raises(ValueError, match="leading member axis"):
        MemberOptimizer([w, torch.zeros(3, 1, dtype=torch.float64)], 0.1)


def test_manual_backprop_matches_autograd():
    gen = torch.Generator().manual_seed(0)
    weights = [torch.randn(3, 40, 20, generator=gen, dtype=torch.float64) * 0.3,
               torch.randn(3, 40, 40, generator=gen, dtype=torch.float64) * 0.2,
               torch.randn(3, 2, 40, generator=gen, dtype=torch.float64) * 0.2]
    x = torch.randn(3, 17, 20, generator=gen, dtype=torch.float64)
    y = torch.randint(0, 2, (3, 17), generator=gen)
    leaves = [w.clone().requires_grad_(True) for w in weights]
    logits, _ = relu_mlp(leaves, x)
    losses = torch.nn.functional.cross_entropy(logits.reshape(-1, 2), y.reshape(-1), reduction="none").reshape(3, -1)
    expected = torch.autograd.grad(losses.mean(dim=1).sum(), leaves)
    returned, grads = relu_mlp_cross_entropy_gradients(weights, x, y)
    assert torch.allclose(returned, losses.detach(), rtol=1e-13)
    for g, e in zip(grads, expected):
        assert torch.allclose(g, e, rtol=1e-12, atol=1e-15)


def test_stacked_weights_are_each_members_own_draw():
    sizes = (5, 7, 2)
    together = stacked_uniform_weights([np.random.default_rng(s) for s in (4, 9)], sizes)
    alone = stacked_uniform_weights([np.random.default_rng(9)], sizes)
    for W, V in zip(together, alone):
        assert torch.equal(W[1], V[0])
    assert all(float(W.abs().max()) <= 1 / np.sqrt(W.shape[2]) for W in together)


def test_kaiming_stack_draws_each_member_from_its_seed_with_the_he_variance():
    together = stacked_kaiming_mlp([4, 9], (300, 200, 1), bias=0.5)
    alone = stacked_kaiming_mlp([9], (300, 200, 1), bias=0.5)
    for p, q in zip(together, alone):
        assert torch.equal(p[1], q[0])
    # Var W = 2/fan_in: the sample variance of 60,000 draws has a relative standard error √(2/60,000) ≈ 0.6%
    assert abs(float(together[0][0].var()) * 300 / 2 - 1) < 5 * np.sqrt(2 / 60_000)
    assert torch.equal(together[1], torch.full((2, 200), 0.5, dtype=torch.float64))
    for bad, match in (([], "seeds"), ([-1], "seeds"), ([1.5], "seeds")):
        with pytest.raises(ValueError, match=match):
            stacked_kaiming_mlp(bad, (3, 1))
    with pytest.raises(ValueError, match="sizes"):
        stacked_kaiming_mlp([0], (3,))
    with pytest.raises(ValueError, match="bias"):
        stacked_kaiming_mlp([0], (3, 1), bias=float("nan"))


def test_group_gradients_equal_autograd_per_member_and_group_and_refuse_bad_shapes():
    params = stacked_kaiming_mlp([1, 2], (4, 6, 5, 1))
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(2, 3, 7, 4, generator=gen, dtype=torch.float64)
    y = torch.sign(torch.randn(2, 3, 7, generator=gen, dtype=torch.float64))
    grads = group_logistic_gradients(params, x, y, leak=0.2)
    for m in range(2):
        for g in range(3):
            leaves = [p[m:m + 1].clone().requires_grad_(True) for p in params]
            logit = leaky_relu_mlp(leaves, x[m:m + 1, g], leak=0.2)[0, :, 0]
            expected = torch.autograd.grad(torch.nn.functional.softplus(-y[m, g] * logit).mean(), leaves)
            for ours, e in zip(grads, expected):
                assert torch.allclose(ours[m, g], e[0], rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="labels"):
        group_logistic_gradients(params, x, y[:, :2])
    with pytest.raises(ValueError, match="x must"):
        group_logistic_gradients(params, x[..., :3], y)
    with pytest.raises(ValueError, match="params"):
        leaky_relu_mlp(params[:3], x)
