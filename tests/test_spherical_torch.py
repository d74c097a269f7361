"""Tests of the optional torch module dynamics.spherical.torch_optim (skipped without torch)."""
import numpy as np
import pytest

import dynamics.spherical as sph

torch = pytest.importorskip("torch")


def test_torch_optim_bad_input_and_elementwise_is_adam():
    from dynamics.spherical import torch_optim

    w = torch.nn.Parameter(torch.ones(2, 3, dtype=torch.float64))
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        torch_optim.AdamSRT([w], learning_rate=0.0)
    with pytest.raises(ValueError, match="weight_decay must be >= 0"):
        torch_optim.AdamS([w], weight_decay=-1.0)
    with pytest.raises(ValueError, match=r"betas\[0\] must be in \[0, 1\)"):
        torch_optim.AdamST([w], betas=(1.0, 0.9))
    # channel_wise=False: element-wise Adam (+L2), i.e. torch.optim.Adam
    rng = np.random.default_rng(0)
    data = torch.tensor(rng.standard_normal((2, 3)))
    a, b = torch.nn.Parameter(data.clone()), torch.nn.Parameter(data.clone())
    ours = torch_optim.AdamSRT([a], learning_rate=0.01, weight_decay=0.1)
    reference = torch.optim.Adam([b], lr=0.01, weight_decay=0.1, foreach=False)
    for _ in range(5):
        grad = torch.tensor(rng.standard_normal((2, 3)))
        a.grad, b.grad = grad.clone(), grad.clone()
        ours.step()
        reference.step()
        assert torch.equal(a.grad, grad)  # p.grad is not modified in place
    assert torch.allclose(a, b, rtol=1e-14, atol=1e-15)
    scheduler = torch.optim.lr_scheduler.StepLR(ours, step_size=1, gamma=0.5)
    a.grad = torch.zeros_like(a)
    ours.step()
    scheduler.step()
    assert ours.param_groups[0]["lr"] == 0.005


def test_torch_variants_match_numpy_per_filter_with_channel_dims():
    from dynamics.spherical import torch_optim

    rng = np.random.default_rng(1)
    w0 = rng.standard_normal((4, 3, 2))  # groups along dim 1 (channel_dims=[1]): 3 groups of d = 8
    w = torch.nn.Parameter(torch.tensor(w0))
    opt = torch_optim.AdamSRT([w], learning_rate=0.05, eps=1e-8, weight_decay=0.1, channel_dims=[1])
    mirrors = [sph.AdamSRT(0.05, eps=1e-8, weight_decay=0.1) for _ in range(3)]
    xs = [w0[:, j, :].ravel() for j in range(3)]
    for _ in range(6):
        grad = rng.standard_normal((4, 3, 2))
        w.grad = torch.tensor(grad)
        opt.step()
        xs = [m.step(x, grad[:, j, :].ravel()) for j, (m, x) in enumerate(zip(mirrors, xs))]
    for j in range(3):
        assert np.allclose(w.detach().numpy()[:, j, :].ravel(), xs[j], rtol=1e-13, atol=1e-15)


def test_torch_adagradg_matches_numpy_and_checks_the_sphere():
    from dynamics.spherical import torch_optim

    rng = np.random.default_rng(2)
    rows = rng.standard_normal((3, 5))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    w = torch.nn.Parameter(torch.tensor(rows))
    opt = torch_optim.AdaGradG([w], learning_rate=0.4, beta=0.95, v0=torch.tensor([1.0, 2.0, 3.0]))
    mirrors = [sph.AdaGradG(0.4, 0.95, v0) for v0 in (1.0, 2.0, 3.0)]
    xs = list(rows)
    for _ in range(5):
        grad = rng.standard_normal((3, 5))
        w.grad = torch.tensor(grad)
        opt.step()
        xs = [m.step(x, g) for m, x, g in zip(mirrors, xs, grad)]
    assert np.allclose(w.detach().numpy(), np.array(xs), rtol=1e-13, atol=1e-15)
    off = torch.nn.Parameter(torch.ones(2, 3, dtype=torch.float64))
    off.grad = torch.ones(2, 3, dtype=torch.float64)
    with pytest.raises(ValueError, match="every filter must be a unit vector"):
        torch_optim.AdaGradG([off], learning_rate=0.1, beta=0.9, v0=1.0).step()
