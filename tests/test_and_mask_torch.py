"""The torch AND-mask (dynamics.and_mask.torch_optim): equality with the numpy API, the batched mask against the
single-model one, the pinned offsets and sign count, the optimizer wrapper, the temporal AND-mask Adam, and bad input.
Skipped without torch."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dynamics import and_mask as am  # noqa: E402
from dynamics.and_mask.torch_optim import AndMask, TemporalAndMaskAdam, and_mask_batched, and_mask_grad  # noqa: E402
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


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_batched_mask_equals_the_single_model_mask_member_by_member(dtype):
    """Two member axes (2 × 3 models), 5 environments on axis 2, a (4, 3) tensor, one τ per member (boundaries
    τ = abs(2k/d − 1) among them) and exact zeros: every member's update is and_mask_grad's, bitwise."""
    rng = np.random.default_rng(7)
    g = rng.standard_normal((2, 3, 5, 4, 3))
    g[rng.random(g.shape) < 0.2] = 0.0
    g[:, :, :, 0, 0] = 1.0  # kept by every τ: no member keeps nothing, so every member's rescaling shows
    grads = torch.as_tensor(g, dtype=dtype)
    taus = torch.tensor([[0.0, 0.2, 0.6], [1.0, abs(2 * 1 / 5 - 1), 0.8]], dtype=torch.float64)
    for rescale in (False, True):
        for geom in (False, True):
            update, mask = and_mask_batched(grads, taus, rescale, geom, env_axis=2)
            again, _ = and_mask_batched(grads, taus.tolist(), rescale, geom, env_axis=-3)
            assert update.shape == mask.shape == (2, 3, 4, 3) and update.dtype == dtype and torch.equal(update, again)
            for a in range(2):
                for b in range(3):
                    single = and_mask_grad(grads[a, b], float(taus[a, b]), rescale, geom)
                    assert torch.equal(update[a, b], single), (a, b, rescale, geom)
                    assert torch.equal(mask[a, b], and_mask_batched(grads[a, b], float(taus[a, b]))[1])
                    if dtype == torch.float64:
                        reference = am.masked_gradient(g[a, b].reshape(5, -1), float(taus[a, b]), rescale, geom)
                        assert np.allclose(update[a, b].numpy().ravel(), reference, rtol=1e-13, atol=0.0)


def test_per_member_thresholds_equal_sign_threshold_at_every_edge():
    for d in (1, 2, 3, 7, 9, 10, 25, 64):
        taus = sorted({abs(2 * k / d - 1) for k in range(d + 1)} | {k / d for k in range(d + 1)} | {0.28, 0.1, 0.3})
        grads = torch.zeros(len(taus), d, 1, dtype=torch.float64)
        grads[:, :, 0] = torch.tensor([1.0] * d)
        for n_pos in range(d + 1):  # n_pos positive signs, the rest negative: S = 2·n_pos − d
            grads[:, :, 0] = torch.tensor([1.0] * n_pos + [-1.0] * (d - n_pos))
            _, mask = and_mask_batched(grads, torch.tensor(taus, dtype=torch.float64), env_axis=1)
            expected = [abs(2 * n_pos - d) >= am.sign_threshold(d, t) for t in taus]
            assert mask[:, 0].tolist() == expected, (d, n_pos)


def test_offsets_and_sign_count_are_the_public_codes():
    """Pinned by hand: zeros count for neither sign (sign(0) = 0), log(abs(g) + 1e-10) in the geometric mean and
    1/(1e-10 + ρ) in the rescaling. Counting a zero as positive keeps column 2 of member 1, counting it as negative
    drops column 0; another offset moves the values far beyond the tolerance."""
    env_grads = [[1.0, 1.0, 0.0, -1.0], [1.0, -1.0, 0.0, -2.0], [0.0, 0.0, 2.0, -3.0]]  # 3 environments, 4 entries
    grads = torch.tensor([env_grads, env_grads], dtype=torch.float64)  # two members: τ = 0 and τ = 2/3 (T = 2)
    update, mask = and_mask_batched(grads, [0.0, 2 / 3], rescale=True, env_axis=1)
    assert mask.tolist() == [[True, True, True, True], [True, False, False, True]]
    mean = [2 / 3, 0.0, 2 / 3, -2.0]
    assert update[0].tolist() == [m / (1e-10 + 1.0) for m in mean]
    assert update[1].tolist() == [mean[0] / (1e-10 + 0.5), 0.0, 0.0, mean[3] / (1e-10 + 0.5)]
    assert torch.equal(and_mask_grad(grads[1], 2 / 3, rescale=True), update[1])
    geom = and_mask_batched(grads, [0.0, 2 / 3], geom_mean=True, env_axis=1)[0]
    magnitudes = np.abs(np.array(env_grads)) + 1e-10
    expected = np.sign(mean) * np.exp(np.log(magnitudes).mean(axis=0))  # column 2: (1e-10 · 1e-10 · 2)^(1/3)
    assert np.allclose(geom[0].numpy(), expected, rtol=1e-13, atol=0.0)
    assert np.allclose(geom[1].numpy(), expected * [1, 0, 0, 1], rtol=1e-13, atol=0.0)


@pytest.mark.parametrize("dtype, n_envs", [(torch.float64, 5), (torch.float32, 3000), (torch.float16, 3000),
                                           (torch.bfloat16, 600)])
def test_sign_sums_are_exact_integer_counts(dtype, n_envs):
    """The one sign count (sign(0) = 0) equals #positive − #negative exactly, also beyond the dtype's exact integers
    (float16 above 2048 environments, bfloat16 above 256), where it sums in float64."""
    from dynamics.and_mask.torch_optim import _sign_sums

    g = torch.as_tensor(np.random.default_rng(3).choice([-1.0, 0.0, 2.0], size=(3, n_envs, 4), p=[0.1, 0.2, 0.7]))
    g = g.to(dtype)
    counted = (g > 0).sum(dim=1) - (g < 0).sum(dim=1)
    assert _sign_sums(g, 1).dtype == torch.int64 and torch.equal(_sign_sums(g, 1), counted)


def test_the_mask_computes_where_its_gradients_live():
    """The two tensor functions take no device: they compute on their input's device (the trainers' device keyword,
    default "cpu", is checked for the whole torch layer in tests/test_public_api.py)."""
    import inspect

    for function in (and_mask_grad, and_mask_batched):
        assert "device" not in inspect.signature(function).parameters, function.__name__
    g = _t([[1.0, -1.0], [2.0, -3.0]])
    assert and_mask_grad(g, 1.0).device == g.device and and_mask_batched(g, 1.0)[0].device == g.device


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
    ("agreement_threshold", lambda: and_mask_batched(_t(np.ones((2, 3, 4))), [0.5, 1.5], env_axis=1)),
    ("agreement_threshold", lambda: and_mask_batched(_t(np.ones((2, 3, 4))), [0.5, 0.5, 0.5], env_axis=1)),
    ("agreement_threshold", lambda: and_mask_batched(_t(np.ones((2, 3, 4))), [True, False], env_axis=1)),
    ("env_axis", lambda: and_mask_batched(_t(np.ones((2, 3))), 0.5, env_axis=2)),
    ("per_env_grads", lambda: and_mask_batched(torch.ones(2, 3, dtype=torch.int64), 0.5)),
    ("per_env_grads", lambda: and_mask_batched(_t(np.ones((2, 0, 3))), 0.5, env_axis=1)),
    ("per_env_grads", lambda: and_mask_batched(_t([[1.0, np.inf], [1.0, 1.0]]), 0.5)),
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
