"""The experiments of Parascandolo et al. 2021 in miniature (dynamics.and_mask.torch_experiments): per-environment
gradients, batched = one model at a time, determinism, shapes and bad input. Skipped without torch."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dynamics import and_mask as am  # noqa: E402
from dynamics.and_mask import torch_experiments as te  # noqa: E402
from dynamics.and_mask.torch_optim import and_mask_grad  # noqa: E402
from dynamics.numerics.torch_batched import group_logistic_gradients, stacked_kaiming_mlp  # noqa: E402


@pytest.fixture(autouse=True)
def _every_call_trains(monkeypatch):
    """No disk cache here: a determinism test must compute twice, not read the first call's entry back."""
    monkeypatch.setenv("DYNAMICS_CACHE", "0")


def _loop_gradients(params, x, y):
    """Per-(model, environment) gradients by one autograd call each."""
    out = [torch.empty(x.shape[:2] + p.shape[1:], dtype=p.dtype) for p in params]
    for m in range(x.shape[0]):
        for e in range(x.shape[1]):
            ps = [p[m].detach().clone().requires_grad_(True) for p in params]
            logits = te._forward([q.unsqueeze(0) for q in ps], x[m:m + 1, e])[0]
            loss = torch.nn.functional.softplus(-y[m, e] * logits).mean()
            for slot, g in zip(out, torch.autograd.grad(loss, ps)):
                slot[m, e] = g
    return out


def test_env_gradients_equal_one_autograd_call_per_environment():
    params = stacked_kaiming_mlp([1, 2], (5, 7, 6, 1))
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 4, 5, dtype=torch.float64, generator=gen)
    y = torch.sign(torch.randn(2, 3, 4, dtype=torch.float64, generator=gen))
    for ours, reference in zip(group_logistic_gradients(params, x, y, leak=0.01), _loop_gradients(params, x, y)):
        assert torch.allclose(ours, reference, rtol=1e-12, atol=1e-15)


def test_mask_step_equals_and_mask_grad_per_model():
    gen = torch.Generator().manual_seed(1)
    params = [torch.zeros(3, 4, 2, dtype=torch.float64)]
    grads = [torch.randn(3, 5, 4, 2, dtype=torch.float64, generator=gen)]
    grads[0][0, :, 0, 0] = 0.0  # exact zeros: sign(0) = 0
    taus = te._member_taus((0.0, 0.6, 1.0), "cpu")
    checked = te._masked_gradients(grads, taus, True)
    unchecked = te._masked_gradients(grads, taus, True, te._step_thresholds(params, taus, 5))
    for m, tau in enumerate((0.0, 0.6, 1.0)):
        expected = and_mask_grad(grads[0][m], tau, rescale=True)  # one implementation
        assert torch.equal(checked[0][m], expected) and torch.equal(unchecked[0][m], expected)


def _train_models(taus, l1, l2, seeds):
    """Train models (one per entry) on their own data with the shared loop; return the final parameters."""
    n = len(taus)
    data = [am.make_spiral_dataset(4, 8, 3, 1.0, 1.0, 2, seed=s) for s in seeds]
    x = torch.as_tensor(np.stack([d.train_inputs for d in data]))
    y = torch.as_tensor(np.stack([d.train_labels for d in data]))
    params = stacked_kaiming_mlp(seeds, (5, 6, 1))
    te._train(params, te._member_taus(taus, "cpu"), np.asarray(l1), np.asarray(l2), 25, 0.05, True,
              lambda step: (x, y), lambda: (torch.zeros(n),), 100)
    return [p.detach() for p in params]


def test_batched_models_equal_models_trained_one_at_a_time():
    taus, l1, l2, seeds = (0.0, 0.5, 1.0), (0.0, 1e-3, 0.0), (1e-2, 0.0, 0.0), [3, 4, 5]
    batched = _train_models(taus, l1, l2, seeds)
    for m in range(3):
        alone = _train_models(taus[m:m + 1], l1[m:m + 1], l2[m:m + 1], seeds[m:m + 1])
        for a, b in zip(batched, alone):
            assert torch.allclose(a[m], b[0], rtol=1e-10, atol=1e-12)


def test_every_trainer_takes_device_keyword_only_defaulting_to_cpu():
    import inspect

    for trainer in (te.train_spiral_memorisation, te.learning_signals_at_init, te.train_noisy_labels,
                    te.train_environment_sweep):
        device = inspect.signature(trainer).parameters["device"]  # through the wrappers' __wrapped__
        assert device.kind is inspect.Parameter.KEYWORD_ONLY and device.default == "cpu", trainer.__name__


# the seeds that seed_int drew from numpy.random.default_rng(1) and (2) when the trainers drew their own
SEEDS_1 = (2360360630558964031, 4383240139369130521, 664818870401041971)
SEEDS_2 = (1206473021768521264, 1376547432707316825, 3754953463742327879)


def test_spiral_memorisation_shapes_and_determinism():
    config = am.SpiralMemorisationConfig(settings=((0.0, 0.0, 0.0), (1.0, 0.0, 0.0)), n_envs=4, n_samples_per_env=16,
                                         hidden=(8,), n_steps=20, n_test=40, record_every=10)
    a = te.train_spiral_memorisation(config, SEEDS_1, device="cpu")
    b = te.train_spiral_memorisation(config, SEEDS_1, device="cpu")
    c = te.train_spiral_memorisation(config, SEEDS_2, device="cpu")
    assert a.train_accuracy.shape == a.test_accuracy.shape == (2, 3, 3)
    assert a.steps.tolist() == [0, 10, 20]
    assert np.array_equal(a.test_accuracy, b.test_accuracy) and np.array_equal(a.seeds, b.seeds)
    assert not np.array_equal(a.seeds, c.seeds)
    assert np.array_equal(a.train_accuracy[0, :, 0], a.train_accuracy[1, :, 0])  # same start for every setting


def test_spiral_minibatches():
    """batch_size draws that many examples per environment and step from each seed's own stream: a whole
    environment is full-batch training up to the order of the sum, a seed's draws do not depend on the other seeds or
    on the settings, and they differ from full-batch training."""
    config = am.SpiralMemorisationConfig(settings=((0.0, 0.0, 0.0), (1.0, 0.0, 0.0)), n_envs=4, n_samples_per_env=16,
                                         hidden=(8,), n_steps=12, n_test=40, record_every=4)
    full = te.train_spiral_memorisation(config, (0, 1), dtype="float64")
    whole = te.train_spiral_memorisation(config._replace(batch_size=16), (0, 1), dtype="float64")
    assert np.array_equal(full.train_accuracy, whole.train_accuracy)
    mini = te.train_spiral_memorisation(config._replace(batch_size=4), (0, 1), dtype="float64")
    alone = te.train_spiral_memorisation(config._replace(batch_size=4, settings=config.settings[1:]), (1,),
                                         dtype="float64")
    assert np.array_equal(mini.train_accuracy[1:, 1:], alone.train_accuracy)
    assert not np.array_equal(mini.train_accuracy, full.train_accuracy)
    with pytest.raises(ValueError, match="batch_size"):
        te.train_spiral_memorisation(config._replace(batch_size=17), (0,))


def test_learning_signals_at_tau_zero_keep_everything():
    config = am.LearningSignalsConfig(agreement_thresholds=(0.0, 0.5, 1.0), n_envs=4, n_samples_per_env=32,
                                      hidden=(16,))
    run = te.learning_signals_at_init(config, (0, 1), dtype="float64", device="cpu")
    assert run.and_mechanism.shape == (2, 3)
    assert np.all(run.and_kept_fraction[:, 0] == 1.0) and np.all(run.xor_kept_fraction[:, 0] == 1.0)
    assert np.allclose(run.and_mechanism[:, 0], run.xor_mechanism[:, 0])
    assert np.all(run.and_kept_fraction[:, 2] <= run.and_kept_fraction[:, 1])
    again = te.learning_signals_at_init(config, (0, 1), dtype="float64", device="cpu")
    assert np.array_equal(run.and_memorisation, again.and_memorisation, equal_nan=True)


def test_noisy_labels_shuffle_and_shapes():
    config = am.NoisyLabelsConfig(agreement_thresholds=(0.0, 0.8), shuffled_fraction=0.5, n_train=40, dim=4,
                                  hidden=(8,), batch_size=8, n_steps=10, n_test=20, record_every=5)
    run = te.train_noisy_labels(config, (3, 4), device="cpu")
    assert run.train_accuracy.shape == run.mislabelled_accuracy.shape == (2, 2, 3)
    assert np.all((run.mislabelled_fraction > 0) & (run.mislabelled_fraction <= 0.5))
    clean = te.train_noisy_labels(config._replace(agreement_thresholds=(0.0,), shuffled_fraction=0.0, n_steps=2,
                                                  record_every=40), (3,), device="cpu")
    assert clean.mislabelled_fraction.tolist() == [0.0] and np.isnan(clean.mislabelled_accuracy).all()


def test_environment_sweep_shapes():
    config = am.EnvironmentSweepConfig(n_envs=(2, 4, 8), n_total=32, hidden=(4,), n_steps=3, n_test=10)
    sweep = te.train_environment_sweep(config, (0, 1), device="cpu")
    assert sweep.n_envs.tolist() == [2, 4, 8] and sweep.thresholds.tolist() == [0.0, 1.0]
    assert sweep.train_accuracy.shape == sweep.test_accuracy.shape == (2, 3, 2)  # (τ, d, seed)
    three = te.train_environment_sweep(config._replace(thresholds=(0.0, 0.5, 1.0)), (0, 1), device="cpu")
    assert three.test_accuracy.shape == (3, 3, 2)


def test_environment_sweep_thresholds_are_paired_with_the_single_setting():
    """The τ = 0 rows of the batched sweep are exactly a run of plain averaging alone (thresholds=(0.0,)), and the
    τ = 1 rows a run of τ = 1 alone: each τ trains on the same data and initial weights per seed and d."""
    config = am.EnvironmentSweepConfig(n_envs=(2, 8), n_total=64, hidden=(8,), n_steps=30, n_test=40)
    both = te.train_environment_sweep(config, (3, 4), dtype="float64", device="cpu")
    for i, tau in enumerate((0.0, 1.0)):
        alone = te.train_environment_sweep(config._replace(thresholds=(tau,)), (3, 4), dtype="float64", device="cpu")
        assert alone.test_accuracy.shape == (1, 2, 2)
        assert np.array_equal(both.train_accuracy[i], alone.train_accuracy[0])
        assert np.array_equal(both.test_accuracy[i], alone.test_accuracy[0])
    assert not np.array_equal(both.train_accuracy[0], both.train_accuracy[1])  # the mask changes training


@pytest.mark.parametrize("thresholds", [(), (0.0, 1.5), (-0.1,), tuple(k / 8 for k in range(9)), 0.5, (float("nan"),)])
def test_environment_sweep_bad_thresholds_name_the_field(thresholds):
    config = am.EnvironmentSweepConfig(n_envs=(2,), n_total=8, hidden=(2,), n_steps=1, n_test=4,
                                       thresholds=thresholds)
    with pytest.raises(ValueError, match="thresholds"):
        te.train_environment_sweep(config, (0,), device="cpu")


def test_environment_sweep_config_keeps_positional_construction():
    """thresholds is the last field: the eight earlier fields still construct positionally, and the default trains
    plain averaging against the AND-mask at τ = 1."""
    config = am.EnvironmentSweepConfig((16, 128), 1024, 8, 0.75, (32, 32), 400, 1e-2, 1000)
    assert config == am.EnvironmentSweepConfig.ci() and config.thresholds == (0.0, 1.0)
    assert am.EnvironmentSweepConfig._fields[-1] == "thresholds"
    assert am.EnvironmentSweepConfig.source().thresholds == (0.0, 1.0)


@pytest.mark.parametrize("call, name", [
    (lambda: te.train_spiral_memorisation(am.SpiralMemorisationConfig(settings=((1.5, 0.0, 0.0),)), device="cpu"),
     "agreement_threshold"),
    (lambda: te.train_spiral_memorisation(am.SpiralMemorisationConfig(settings=((0.0, 0.0),)), device="cpu"),
     "settings"),
    (lambda: te.train_spiral_memorisation(am.SpiralMemorisationConfig(n_envs=0), device="cpu"), "n_envs"),
    (lambda: te.train_spiral_memorisation(am.SpiralMemorisationConfig(hidden=(0,)), device="cpu"), "hidden"),
    (lambda: te.train_spiral_memorisation(dtype="float16", device="cpu"), "dtype"),
    (lambda: te.train_spiral_memorisation(seeds=[], device="cpu"), "seeds"),
    (lambda: te.train_spiral_memorisation(seeds=(0, -1), device="cpu"), "seeds"),
    (lambda: te.learning_signals_at_init(am.LearningSignalsConfig(agreement_thresholds=(-0.1,)), device="cpu"),
     "agreement_threshold"),
    (lambda: te.learning_signals_at_init(am.LearningSignalsConfig(n_samples_per_env=1), device="cpu"),
     "n_samples_per_env"),
    (lambda: te.train_noisy_labels(am.NoisyLabelsConfig(shuffled_fraction=1.5), device="cpu"), "shuffled_fraction"),
    (lambda: te.train_noisy_labels(am.NoisyLabelsConfig(batch_size=300), device="cpu"), "batch_size"),
    (lambda: te.train_noisy_labels(am.NoisyLabelsConfig(learning_rate=0.0), device="cpu"), "learning_rate"),
    (lambda: te.train_environment_sweep(am.EnvironmentSweepConfig(n_envs=(600,)), device="cpu"), "n_envs"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("call", [
    lambda: te.train_spiral_memorisation(am.NoisyLabelsConfig(), device="cpu"),  # another experiment's config
    lambda: te.learning_signals_at_init((0.0, 1.0), device="cpu"),  # the old positional form
    lambda: te.train_noisy_labels(dict(n_steps=10), device="cpu"),
    lambda: te.train_environment_sweep(am.SpiralMemorisationConfig(), device="cpu"),
    lambda: te.train_spiral_memorisation(seeds=5, device="cpu"),
])
def test_a_config_or_seeds_of_the_wrong_type_is_refused(call):
    with pytest.raises(TypeError, match="config|seeds"):
        call()


CONFIGS = (am.SpiralMemorisationConfig, am.LearningSignalsConfig, am.NoisyLabelsConfig, am.EnvironmentSweepConfig)
TRAINERS = (te.train_spiral_memorisation, te.learning_signals_at_init, te.train_noisy_labels,
            te.train_environment_sweep)


@pytest.mark.parametrize("kind, trainer", list(zip(CONFIGS, TRAINERS)), ids=[c.__name__ for c in CONFIGS])
def test_configs_are_cache_keys_with_documented_fields(kind, trainer):
    """Each config is hashable, rebuilds from its repr (the disk cache keys on it), documents every field, and is
    the trainer's default; the trainer takes (config, seeds, *, dtype, device)."""
    import inspect

    for config in (kind(), kind.ci(), kind.source()):
        assert hash(config) == hash(kind(*config))
        assert eval(repr(config), {kind.__name__: kind}) == config
    doc = inspect.getdoc(kind)
    for field in kind._fields:
        assert f"\n{field} : " in doc, f"{kind.__name__}.{field} is not documented"
    parameters = inspect.signature(trainer).parameters
    assert list(parameters) == ["config", "seeds", "dtype", "device"]
    assert parameters["config"].default == kind()
