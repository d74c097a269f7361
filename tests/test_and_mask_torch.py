"""The torch AND-mask (dynamics.and_mask.torch_optim): equality with the numpy API, the optimizer wrapper, the temporal
AND-mask Adam, and bad input. Skipped without torch."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dynamics import and_mask as am  # noqa: E402
from dynamics.and_mask.torch_optim import AndMask, TemporalAndMaskAdam, and_mask_grad  # noqa: E402
from dynamics.and_mask.torch_training import train_linear_patchwork  # noqa: E402


def _t(a):
    return torch.as_tensor(np.asarray(a), dtype=torch.float64)


def test_torch_mask_equals_numpy_at_every_boundary():
    rng = np.random.default_rng(0)
    for d in (1, 2, 4, 9, 25):
        g = rng.standard_normal((d, 200))
        g[rng.random((d, 200)) < 0.15] = 0.0
        for k in range(d + 1):
            tau = abs(2 * k / d - 1)
            for rescale in (False, True):
                for geom in (False, True):
                    ours = and_mask_grad(_t(g), tau, rescale, geom).numpy()
                    assert np.allclose(ours, am.masked_gradient(g, tau, rescale, geom), rtol=1e-13, atol=0.0)


def test_wrapper_masks_per_tensor_and_steps():
    w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    b = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    targets = [_t([1.0, 2.0, 0.0]), _t([1.0, -2.0, 1.0])]
    masked = AndMask(torch.optim.SGD([w, b], lr=0.1), agreement_threshold=1.0, rescale=True)
    info = masked.step([((w - x) ** 2).sum() / 2 + ((b - 1.0) ** 2).sum() / 2 for x in targets])
    assert [m.tolist() for m in info.masks] == [[True, False, False], [True, True]]
    assert w.tolist() == pytest.approx([0.1 * 3 / (1 + 3e-10), 0.0, 0.0])  # rescaled by 1/(1e-10 + 1/3)
    assert b.tolist() == pytest.approx([0.1 / (1 + 1e-10)] * 2)
    assert info.kept_fraction == pytest.approx(3 / 5)


def test_wrapper_from_precomputed_gradients_matches_autograd_path():
    w1 = torch.ones(4, dtype=torch.float64, requires_grad=True)
    w2 = torch.ones(4, dtype=torch.float64, requires_grad=True)
    x = _t(np.random.default_rng(1).standard_normal((3, 4)))
    losses = [((w1 * row).sum() - 1.0) ** 2 for row in x]
    AndMask(torch.optim.SGD([w1], lr=0.05), 0.5).step(losses)
    grads = torch.stack([2 * ((w2 * row).sum() - 1.0).detach() * row for row in x])
    AndMask(torch.optim.SGD([w2], lr=0.05), 0.5).step_from_gradients([grads])
    assert torch.allclose(w1, w2, rtol=1e-14, atol=0)


def test_temporal_adam_first_step():
    w = torch.ones(2, dtype=torch.float64, requires_grad=True)
    opt = TemporalAndMaskAdam([w], learning_rate=0.1, sign_decay=0.5, agreement_threshold=0.6)
    (w * _t([1.0, -1.0])).sum().backward()
    opt.step()
    assert w.tolist() == [1.0, 1.0]  # |a| = 0.5 < 0.6: everything masked on the first step


def test_torch_layer_results_and_device_helpers():
    from dynamics.and_mask import torch_optim, torch_training

    assert torch_optim.AndMaskStep is am.AndMaskStep and torch_training.LinearPatchworkRun is am.LinearPatchworkRun
    assert torch_training.PATCHWORK_METHODS is am.PATCHWORK_METHODS
    before = torch.get_num_threads()
    run = train_linear_patchwork("arithmetic", (0, 1), n_iters=3, device=torch.device("cpu"))
    assert isinstance(run, am.LinearPatchworkRun) and torch.get_num_threads() == before
    with pytest.raises(TypeError, match="device"):
        train_linear_patchwork("and_mask", device=3)


def test_patchwork_and_mask_keeps_private_weights_at_zero():
    run = train_linear_patchwork("and_mask", (0, 1), n_iters=50, device="cpu")
    assert np.all(run.theta[0, :4] == 0.0) and run.theta[0, 4] > 0.5


@pytest.mark.parametrize("name, call", [
    ("agreement_threshold", lambda: and_mask_grad(_t(np.ones((2, 3))), 1.5)),
    ("per_env_grads", lambda: and_mask_grad(_t(np.ones(3)), 0.5)),
    ("per_env_grads", lambda: and_mask_grad(_t([[1.0, np.nan], [1.0, 1.0]]), 0.5)),
    ("agreement_threshold", lambda: AndMask(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1), -0.5)),
    ("env_losses", lambda: AndMask(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1), 0.5).step([])),
    ("finite", lambda: AndMask(torch.optim.SGD([torch.zeros(1, dtype=torch.float64, requires_grad=True)], lr=0.1),
                               0.5).step_from_gradients([_t([[np.inf]])])),
    ("env_grads", lambda: AndMask(torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=0.1),
                                  0.5).step_from_gradients([_t([[1.0]])])),
    ("sign_decay", lambda: TemporalAndMaskAdam([torch.zeros(1, requires_grad=True)], sign_decay=1.0)),
    ("learning_rate", lambda: TemporalAndMaskAdam([torch.zeros(1, requires_grad=True)], learning_rate=0.0)),
    ("method", lambda: train_linear_patchwork("sum", device="cpu")),
    ("device", lambda: train_linear_patchwork("and_mask", device="no_such_device")),
])
def test_bad_input_names_the_parameter(name, call):
    with pytest.raises(ValueError, match=name):
        call()
