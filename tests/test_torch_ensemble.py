"""The batched ensemble (:class:`dynamics.numerics.torch_tools.Ensemble`) moves every member exactly as a loop over
the members would: SGD with momentum, Nesterov and weight decay, Adam and AdamW, an MLP with LeakyReLU and dropout
off, 25 full-batch steps in float64, held to 1e-12 relative (float64 round-off over 25 steps; a bug that mixes the
members' gradients or steps moves them by O(1))."""
import pytest

torch = pytest.importorskip("torch")

from dynamics.numerics.torch_tools import Ensemble  # noqa: E402

OPTIMIZERS = {
    "sgd": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3),
    "adam": lambda p: torch.optim.Adam(p, lr=1e-2),
    "adamw": lambda p: torch.optim.AdamW(p, lr=1e-2, weight_decay=0.1),
}


def _members(n, seed=0):
    torch.manual_seed(seed)
    return [torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.LeakyReLU(0.1), torch.nn.Linear(16, 1)).double()
            for _ in range(n)]


def _loss(out, y):
    return torch.nn.functional.binary_cross_entropy_with_logits(out[..., 0], y)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("same_input", [True, False])
def test_ensemble_training_equals_the_loop(name, same_input):
    n, steps = 4, 25
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(n, 32, 3, generator=gen, dtype=torch.float64)
    y = (torch.rand(n, 32, generator=gen) > 0.5).double()
    if same_input:
        x, y = x[:1].expand(n, 32, 3), y[:1].expand(n, 32)
    looped = _members(n)
    ensemble = Ensemble(_members(n))
    opt_loop = [OPTIMIZERS[name](m.parameters()) for m in looped]
    opt_ens = OPTIMIZERS[name](ensemble.parameters.values())
    for _ in range(steps):
        for k, (m, opt) in enumerate(zip(looped, opt_loop)):
            opt.zero_grad()
            _loss(m(x[k]), y[k]).backward()
            opt.step()
        opt_ens.zero_grad()
        out = ensemble(x[0]) if same_input else ensemble(x, same_input=False)
        sum(_loss(out[k], y[k]) for k in range(n)).backward()
        opt_ens.step()
    for k, m in enumerate(looped):
        for (name_, p), q in zip(m.named_parameters(), ensemble.member(k).parameters()):
            scale = p.abs().max().item()
            assert torch.allclose(p, q, rtol=0, atol=1e-12 * scale), (name_, (p - q).abs().max().item())
    # the members really differ (a broadcast of one member would pass the comparison above only by accident)
    assert not torch.allclose(ensemble.parameters["0.weight"][0], ensemble.parameters["0.weight"][1])


def test_ensemble_refuses_bad_input():
    with pytest.raises(ValueError, match="at least one"):
        Ensemble([])
    with pytest.raises(ValueError, match=r"modules\[1\] differs"):
        Ensemble([torch.nn.Linear(3, 1), torch.nn.Linear(4, 1)])
    with pytest.raises(ValueError, match="randomness"):
        Ensemble([torch.nn.Linear(3, 1)], randomness="maybe")
    ensemble = Ensemble([torch.nn.Linear(3, 1)] * 2)
    with pytest.raises(ValueError, match="one per member"):
        ensemble(torch.ones(3, 5, 3), same_input=False)
    with pytest.raises(ValueError, match="index"):
        ensemble.member(2)
