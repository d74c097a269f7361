"""The large-learning-rate experiments in miniature (dynamics.spurious.torch_experiments): batched = loop, seeding,
shapes, the integrated-gradient closed form and input checks."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dynamics.numerics.torch_batched import relu_mlp  # noqa: E402
from dynamics.spurious import InterventionConfig, ParityTaskConfig, ParityTrainingConfig  # noqa: E402
from dynamics.spurious import torch_experiments as te  # noqa: E402


@pytest.fixture(autouse=True)
def _every_call_trains(monkeypatch):
    """No disk cache here: a determinism test must compute twice, not read the first call's entry back."""
    monkeypatch.setenv("DYNAMICS_CACHE", "0")


TINY = ParityTrainingConfig(task=ParityTaskConfig(n_train=300, n_test=200, n_core=4), width=12, epoch_cap=3,
                            n_attribution_inputs=40, record_every=3, dtype="float64")


def _fields(runs):
    return {k: v for k, v in runs._asdict().items() if isinstance(v, np.ndarray)}


@pytest.mark.parametrize("kwargs", [dict(), dict(optimizer="adam"),
                                    dict(momentum=(0.0, 0.9), l1=(1e-4, 0.0), l2=(0.0, 1e-3),
                                         focal_gamma=(0.0, 2.0), anneal_step=10)])
def test_batched_equals_loop(kwargs):
    lrs = [0.05, 0.5] if kwargs.get("optimizer") != "adam" else [1e-3, 1e-2]
    batched = te.parity_training_runs(lrs, [0, 3], TINY._replace(**kwargs))
    loop = te.parity_training_runs(lrs, [0, 3], TINY._replace(**kwargs), batched=False)
    for name, value in _fields(batched).items():
        other = _fields(loop)[name]
        assert value.shape == other.shape, name
        if value.dtype == bool or np.issubdtype(value.dtype, np.integer):
            np.testing.assert_array_equal(value, other, err_msg=name)
        else:
            np.testing.assert_allclose(value, other, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=name)


def test_seeding_and_shapes():
    a = te.parity_training_runs([0.1, 0.5], [1], TINY)
    b = te.parity_training_runs([0.1, 0.5], [1], TINY)
    c = te.parity_training_runs([0.1, 0.5], [2], TINY)
    np.testing.assert_array_equal(a.final_attribution_shares, b.final_attribution_shares)
    assert not np.allclose(a.final_attribution_shares, c.final_attribution_shares)
    n_records = a.record_steps.size
    assert a.attribution_shares.shape == (2, 1, n_records, 3)
    assert a.bc_loss_share.shape == (2, 1, 3 * 3)  # 3 epochs of ceil(300 / 100) steps
    np.testing.assert_allclose(a.attribution_shares.sum(-1), 1.0, rtol=1e-12)
    assert np.all((a.bc_loss_share >= 0) & (a.bc_loss_share <= 1) | np.isnan(a.bc_loss_share))


def test_integrated_gradients_closed_form_matches_riemann_sum():
    g = torch.Generator().manual_seed(1)
    Ws = [torch.randn(2, 16, 6, generator=g, dtype=torch.float64), torch.randn(2, 16, 16, generator=g,
                                                                                dtype=torch.float64),
          torch.randn(2, 2, 16, generator=g, dtype=torch.float64)]
    x = torch.randn(2, 7, 6, generator=g, dtype=torch.float64)
    alphas = (torch.arange(400, dtype=torch.float64) + 0.5) / 400
    total = torch.zeros_like(x)
    for a in alphas:
        xs = (a * x).requires_grad_(True)
        z, _ = relu_mlp(Ws, xs)
        (grad,) = torch.autograd.grad((z[..., 1] - z[..., 0]).sum(), xs)
        total += grad / alphas.numel()
    np.testing.assert_allclose(te.integrated_gradients(Ws, x).numpy(), (x * total).numpy(), rtol=1e-10, atol=1e-12)


def test_stop_rules_and_annealing():
    fit = te.parity_training_runs([1.0], [0], TINY._replace(width=32, epoch_cap=60))
    assert fit.stopped[0, 0] and fit.epochs_to_stop[0, 0] < 60
    assert np.all(np.isnan(fit.bc_loss_share[0, 0, fit.epochs_to_stop[0, 0] * 3:]))
    frozen = te.parity_training_runs([0.5], [0], TINY._replace(anneal_step=0, anneal_factor=1e-12))
    start = te.parity_training_runs([0.5], [0], TINY._replace(epoch_cap=1, record_every=10**6))
    np.testing.assert_allclose(frozen.attribution_shares[0, 0, 0], start.attribution_shares[0, 0, 0])
    np.testing.assert_allclose(frozen.final_attribution_shares, start.attribution_shares[:, :, 0], rtol=1e-6)


def test_wrappers_shapes():
    rob = te.lr_robustness_runs([0], TINY, anneal_step=2, long_epoch_cap=2)
    assert rob.variants == ("constant", "annealed", "adam", "long")
    assert all(r.unbiased_accuracy.shape == (2, 1) for r in rob.runs)
    assert rob.runs[3].epochs_to_stop.max() <= 2  # the long variant's cap
    sweep = te.width_lr_sweep([0, 1], TINY, widths=(4, 8), learning_rates=(0.1, 0.5))
    assert sweep.unbiased_accuracy.shape == (2, 2, 2)
    np.testing.assert_allclose(sweep.spread, sweep.unbiased_accuracy.max(1) - sweep.unbiased_accuracy.min(1))
    runs = te.intervention_runs([0], InterventionConfig(training=TINY._replace(epoch_cap=2)))
    assert runs.names == te.INTERVENTIONS and runs.unbiased_accuracy.shape == (len(te.INTERVENTIONS), 1)
    assert runs.batch_sizes.tolist() == [100] * 5 + [25] + [100] * 2


def test_intervention_rows_are_their_configurations():
    runs = te.intervention_runs([1], InterventionConfig(training=TINY._replace(epoch_cap=2)))
    plain = te.parity_training_runs([0.05, 0.75], [1], TINY._replace(epoch_cap=2))
    np.testing.assert_allclose(runs.unbiased_accuracy[[0, 6], 0], plain.unbiased_accuracy[:, 0], rtol=1e-12)
    focal = te.parity_training_runs([0.05], [1], TINY._replace(epoch_cap=2, focal_gamma=2.0))
    np.testing.assert_allclose(runs.core_share[4], focal.final_attribution_shares[0, :, 0], rtol=1e-10)


@pytest.mark.parametrize("kwargs, name", [
    (dict(learning_rates=[-0.1]), "learning_rates"), (dict(learning_rates=[]), "learning_rates"),
    (dict(seeds=[-1]), "seeds"), (dict(optimizer="rmsprop"), "optimizer"), (dict(momentum=1.5), "momentum"),
    (dict(l2=(0.1, 0.2, 0.3)), "l2"), (dict(width=0), "width"), (dict(width=10**6), "width"),
    (dict(stop="never"), "stop"), (dict(anneal_factor=0.0), "anneal_factor"),
    (dict(n_attribution_inputs=5000), "n_attribution_inputs"), (dict(batch_size=0), "batch_size"),
    (dict(dtype="float16"), "dtype"), (dict(task=ParityTaskConfig(n_core=0)), "n_core"),
    (dict(task=ParityTaskConfig(bc_rate=1.5)), "bc_rate")])
def test_bad_input(kwargs, name):
    """A bad argument or configuration field fails when the trainer runs, with a ValueError naming it."""
    args = dict(learning_rates=[0.1, 0.5], seeds=[0])
    fields = {k: kwargs[k] for k in kwargs if k not in args}
    args.update({k: v for k, v in kwargs.items() if k in args})
    with pytest.raises(ValueError, match=name):
        te.parity_training_runs(args["learning_rates"], args["seeds"], ParityTrainingConfig()._replace(**fields))


def test_config_of_the_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="config"):
        te.parity_training_runs([0.1], [0], dict(width=8))
    with pytest.raises(TypeError, match="config.task"):
        te.parity_training_runs([0.1], [0], ParityTrainingConfig(task=(300, 200, 4, 2, 12, 0.1)))
    with pytest.raises(TypeError, match="config"):
        te.intervention_runs([0], ParityTrainingConfig())


def test_named_configurations():
    """source() is the paper's size (the claims' GPU size), ci() the CPU miniature (the defaults)."""
    assert ParityTrainingConfig.ci() == ParityTrainingConfig()
    source = ParityTrainingConfig.source()
    assert (source.task.n_train, source.task.n_test, source.width, source.batch_size) == (10000, 10000, 200, 100)
    assert source._replace(task=ParityTrainingConfig().task, width=50, epoch_cap=150) == ParityTrainingConfig()
    assert InterventionConfig.ci().training == ParityTrainingConfig.ci()._replace(epoch_cap=60)
    assert hash(InterventionConfig.source()) == hash(InterventionConfig.source())


def test_wrapper_bad_input():
    with pytest.raises(ValueError, match="variants"):
        te.lr_robustness_runs([0], variants=("sideways",))
    with pytest.raises(ValueError, match="widths"):
        te.width_lr_sweep([0], widths=(0,))
    with pytest.raises(ValueError, match="small_batch"):
        te.intervention_runs([0], InterventionConfig(small_batch=0))


def test_integrated_gradients_names_the_bad_argument():
    W = [torch.ones(1, 4, 3, dtype=torch.float64), torch.ones(1, 2, 4, dtype=torch.float64)]
    with pytest.raises(ValueError, match="weights must be"):
        te.integrated_gradients([], torch.ones(1, 5, 3))
    with pytest.raises(ValueError, match=r"weights\[-1\] must have 2 outputs"):
        te.integrated_gradients([W[0], torch.ones(1, 3, 4)], torch.ones(1, 5, 3))
    with pytest.raises(ValueError, match="x must be"):
        te.integrated_gradients(W, torch.ones(1, 5, 7, dtype=torch.float64))
