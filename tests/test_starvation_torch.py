"""dynamics.starvation.torch_training: explicit device, float64, named results, seeds, and layering."""
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import dynamics.starvation as gs  # noqa: E402
from dynamics.starvation import torch_training as tt  # noqa: E402


def test_the_theory_package_does_not_import_torch():
    code = ("import sys, dynamics.starvation; "
            "print('torch' in sys.modules, 'dynamics.starvation.torch_training' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


def test_device_defaults_to_the_cpu_and_is_checked():
    default = tt.ntk_net_error(16, seed=0, n_steps=5)  # no device: the CPU
    assert default.relative_error == tt.ntk_net_error(16, device="cpu", seed=0, n_steps=5).relative_error
    with pytest.raises(TypeError, match="device"):
        tt.ntk_net_error(16, device=3, seed=0)
    with pytest.raises(ValueError, match="width"):
        tt.ntk_net_error(0, device="cpu", seed=0)
    with pytest.raises(ValueError, match="seeds"):
        tt.train_two_moons(seeds=(), device="cpu")
    with pytest.raises(ValueError, match="U .* s .* Phi"):
        tt.train_toy(np.eye(2)[None], np.ones((1, 3)), np.ones((1, 2, 2)), gs.ToyTrainingConfig(n_steps=1),
                     device="cpu")
    with pytest.raises(TypeError, match="config"):  # the old call, n_steps where the configuration goes
        tt.train_toy(np.eye(2)[None], np.ones((1, 2)), np.ones((1, 2, 2)), 1, device="cpu")
    with pytest.raises(ValueError, match="dual_learning_rate"):
        tt.train_toy(np.eye(2)[None], np.ones((1, 2)), np.ones((1, 2, 2)),
                     gs.ToyTrainingConfig(n_steps=1, dual_learning_rate=0.0), device="cpu")


def test_toy_training_follows_gradient_descent_in_feature_coordinates():
    """torch SGD on the primal is primal_gd_z mapped through SVᵀ (V drops out): the same numbers to round-off."""
    U, s = gs.coupling_matrix(0.5), np.array([6.0, 2.0])
    V = gs.coupling_matrix(0.3)
    Phi = (U * s) @ V.T
    out = tt.train_toy(U[None], s[None], Phi[None], gs.ToyTrainingConfig(n_steps=200), device="cpu")
    assert isinstance(out, tt.ToyTraining) and out.primal.dtype == np.float64
    np.testing.assert_allclose(out.primal[0], gs.primal_gd_z(U, s, 200, learning_rate=0.05, weight_decay=0.01).z[-1],
                               atol=1e-11)
    np.testing.assert_allclose(out.spectral_decoupling[0],
                               gs.primal_gd_z(U, s, 200, learning_rate=0.05, output_penalty=0.002).z[-1], atol=1e-11)
    np.testing.assert_allclose(out.dual[0], gs.dual_gd(U, s, 200, learning_rate=3e-6, weight_decay=0.01).z[-1],
                               rtol=1e-9)


def test_ntk_net_error_is_seeded_and_named():
    first = tt.ntk_net_error(32, device="cpu", seed=4, n_steps=20)
    again = tt.ntk_net_error(32, device=torch.device("cpu"), seed=4, n_steps=20)
    other = tt.ntk_net_error(32, device="cpu", seed=5, n_steps=20)
    assert isinstance(first, tt.WideNetComparison)
    assert first.relative_error == again.relative_error and first.relative_error != other.relative_error
    assert first.trained.shape == first.predicted.shape == (16,)
    assert first.relative_error == pytest.approx(np.abs(first.trained - first.predicted).max()
                                                 / np.abs(first.predicted).max(), rel=1e-15)


def test_two_moons_runs_of_one_seed_share_data_noise_and_initialisation():
    config = gs.TwoMoonsConfig(n_steps=3, hidden=8, record_every=1)
    out = tt.train_two_moons(config, (7, 8), device="cpu")
    assert isinstance(out, tt.TwoMoonsTraining) and out.steps.tolist() == [0, 1, 2, 3]
    assert out.z.shape == (4, 3, 2, 300) and out.gradient_ratio.shape == (3, 2)
    # run-major, seed-minor: models 0 and 2 are runs Δ = -0.1 and Δ = +0.1 of seed 7, model 1 is seed 8
    before, after = out.data[0], out.data[2]
    np.testing.assert_array_equal(before.y, after.y)
    np.testing.assert_allclose(after.X[:, 1], before.X[:, 1], atol=1e-15)  # x_v: the same noise
    np.testing.assert_allclose(after.X[:, 0] - before.X[:, 0], -0.2 * before.y, atol=1e-12)  # x_h: shifted by 2Δ
    assert not np.array_equal(out.data[0].X, out.data[1].X)
    W1 = out.params[0]
    np.testing.assert_raises(AssertionError, np.testing.assert_array_equal, W1[0], W1[1])  # seeds differ
    again = tt.train_two_moons.uncached(config, (7, 8), device="cpu")
    np.testing.assert_array_equal(out.z, again.z)
    assert out.logits(0, before.X).shape == (300,)
    # at step 0 every run of one seed has the same initial weights, hence the same NTK and |z| up to the data shift
    initial = tt.train_two_moons(gs.TwoMoonsConfig(n_steps=0, hidden=8), (7,), device="cpu")
    np.testing.assert_array_equal(initial.params[0][0], initial.params[0][1])


def _autograd_loop(seeds, n_steps, hidden, learning_rate=1e-2, momentum=0.9, weight_decay=2e-4):
    """The textbook route, one model at a time: nn.Linear layers, autograd and torch.optim.SGD, from the data and
    initialisation of an untrained run. Returns the trained parameters stacked run-major like train_two_moons."""
    start = gs.train_two_moons.uncached(gs.TwoMoonsConfig(n_steps=0, hidden=hidden), seeds)
    penalties = [run.output_penalty for run in start.runs for _ in seeds]
    trained = []
    for b, (penalty, (X, y)) in enumerate(zip(penalties, start.data)):
        net = torch.nn.Sequential(torch.nn.Linear(2, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1)).double()
        with torch.no_grad():
            for param, value in zip(net.parameters(), (p[b] for p in start.params)):
                param.copy_(torch.as_tensor(value).reshape(param.shape))
        X, y = torch.as_tensor(X), torch.as_tensor(y)
        optimiser = torch.optim.SGD(net.parameters(), lr=learning_rate, momentum=momentum, weight_decay=weight_decay)
        for _ in range(n_steps):
            optimiser.zero_grad()
            logits = net(X)[:, 0]
            (torch.nn.functional.softplus(-y * logits).mean() + 0.5 * penalty * (logits ** 2).mean()).backward()
            optimiser.step()
        trained.append([p.detach().numpy().reshape(shape) for p, shape in
                        zip(net.parameters(), ((hidden, 2), (hidden,), (hidden,), ()))])
    return [np.array([t[k] for t in trained]) for k in range(4)]


def test_batched_two_moons_trainers_match_a_loop_of_autograd_models():
    """The stacked torch model with its closed-form backward pass, and the compiled trainer, both equal a loop of
    separately trained nn.Linear nets (autograd, torch.optim.SGD) up to float round-off."""
    reference = _autograd_loop((3, 4), n_steps=25, hidden=16)
    config = gs.TwoMoonsConfig(n_steps=25, hidden=16, record_every=5)
    for trainer in (lambda *args: tt.train_two_moons.uncached(*args, device="cpu"), gs.train_two_moons.uncached):
        out = trainer(config, (3, 4))
        for got, expected in zip(out.params, reference):
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-13 * np.abs(expected).max())
    # and the two batched trainers record the same |z| and input-gradient ratios
    fast = gs.train_two_moons.uncached(config, (3, 4))  # the same configuration object for both trainers
    simulated = tt.train_two_moons.uncached(config, (3, 4), device="cpu")
    np.testing.assert_allclose(fast.z, simulated.z, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fast.gradient_ratio, simulated.gradient_ratio, rtol=1e-12)
