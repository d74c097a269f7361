"""Tests of dynamics.spurious.torch_balancing (skipped without torch), the batched torch trainer of the
data-balancing experiments in miniature (Idrissi et al. 2022, reprinted as Pezeshki (thesis) Ch. 8): each member
equals the numpy reference trainer, batched equals one seed at a time, determinism, shapes, the decision maps and
the errors for bad input."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dynamics import spurious as spur  # noqa: E402
from dynamics.spurious import torch_balancing as tb  # noqa: E402


@pytest.fixture(autouse=True)
def _every_call_trains(monkeypatch):
    """No disk cache here: a determinism test must compute twice, not read the first call's entry back."""
    monkeypatch.setenv("DYNAMICS_CACHE", "0")


TINY = spur.BalancingToyConfig(n_samples=40, n_noise=6, n_epochs=25, learning_rate=1e-3, batch_size=10)


@pytest.fixture(scope="module")
def tiny():
    return tb.train_balancing_methods(spur.METHODS, (0, 1, 2), TINY, device="cpu")


def test_every_member_equals_the_numpy_trainer(tiny):
    """The torch trainer (float64) draws each seed's data and orders as the numpy reference trainer does, and
    follows it to float round-off: weights, selected weights, epochs and every group accuracy."""
    reference = spur.balancing_toy_runs((0, 1, 2), spur.METHODS, TINY)
    for i, method in enumerate(spur.METHODS):
        for s, run in enumerate(reference.runs[method]):
            scale = np.abs(run.weights).max()
            assert np.abs(tiny.final_weights[i, s] - run.weights).max() <= 1e-10 * scale, method
            assert np.abs(tiny.selected_weights[i, s] - run.selected_weights).max() <= 1e-10 * scale, method
            assert np.array_equal(tiny.val_group_acc[i, s], run.val_group_acc), method
            assert np.array_equal(tiny.test_group_acc[i, s], run.test_group_acc), method
            assert tiny.selected_epoch[i, s] == run.selected_epoch, method
            assert tiny.selected_test_worst_group[i, s] == run.selected_test_worst_group, method


def test_batched_equals_one_seed_at_a_time(tiny):
    for s, seed in enumerate((0, 1, 2)):
        alone = tb.train_balancing_methods(("subg", "jtt", "gdro"), (seed,), TINY, device="cpu")
        for j, method in enumerate(alone.methods):
            i = tiny.methods.index(method)
            scale = np.abs(alone.final_weights[j, 0]).max()
            assert np.abs(tiny.final_weights[i, s] - alone.final_weights[j, 0]).max() <= 1e-12 * scale
            assert np.array_equal(tiny.train_group_acc[i, s], alone.train_group_acc[j, 0])
            assert np.array_equal(tiny.val_accuracy[i, s], alone.val_accuracy[j, 0])


def test_determinism_shapes_and_records(tiny):
    again = tb.train_balancing_methods(("rwg",), (1,), TINY, device="cpu")
    i = tiny.methods.index("rwg")
    assert np.array_equal(again.final_weights[0, 0], tiny.final_weights[i, 1])
    assert not np.allclose(tiny.final_weights[i, 0], tiny.final_weights[i, 1])
    M, S, E, D = len(spur.METHODS), 3, TINY.n_epochs, 2 + TINY.n_noise
    assert tiny.train_group_acc.shape == tiny.val_group_acc.shape == tiny.test_group_acc.shape == (M, S, E, 4)
    assert tiny.val_accuracy.shape == (M, S, E) and tiny.selected_weights.shape == (M, S, D)
    assert np.array_equal(tiny.epochs, np.arange(1, E + 1))
    # the selected epochs maximise their validation criterion (ties: the later epoch)
    worst = tiny.val_group_acc.min(axis=-1)
    for criterion, chosen in ((worst, tiny.selected_epoch), (tiny.val_accuracy, tiny.average_selected_epoch)):
        at = np.take_along_axis(criterion, chosen[..., None] - 1, axis=-1)[..., 0]
        assert np.array_equal(at, criterion.max(axis=-1))
        later = np.arange(1, E + 1) > chosen[..., None]
        assert not np.any((criterion == criterion.max(axis=-1, keepdims=True)) & later)
    # SUBG's training accuracies count its balanced subsample only: every group has the same size there
    subg = tiny.methods.index("subg")
    for s, split in enumerate(tiny.splits):
        counted = tiny.train_group_acc[subg, s] * np.bincount(split.train.group).min()
        assert np.allclose(counted, np.round(counted), atol=1e-9)


def test_float32_runs_and_decision_maps(tiny):
    single = tb.train_balancing_methods(("erm",), (0,), TINY, dtype=torch.float32, device="cpu")
    assert np.allclose(single.final_weights[0, 0], tiny.final_weights[0, 0], rtol=1e-3, atol=1e-6)
    maps = tb.decision_maps(tiny, "subg", n_points=(30, 10))
    assert maps.probabilities.shape == (3, 10, 30) and maps.core_grid.shape == (10,)
    assert np.all((maps.probabilities >= 0) & (maps.probabilities <= 1))
    assert np.all((maps.core_rule_agreement >= 0) & (maps.core_rule_agreement <= 1))
    final = tb.decision_maps(tiny, "erm", weights="final", n_points=(30, 10))
    assert final.probabilities.shape == (3, 10, 30)


@pytest.mark.parametrize("kwargs, name", [
    (dict(methods=("erm", "sgd")), "methods"), (dict(methods=("erm", "erm")), "methods"),
    (dict(seeds=()), "seeds"), (dict(seeds=(-1,)), "seeds"), (dict(seeds=tuple(range(1025))), "seeds"),
    (dict(n_samples=41), "n_samples"), (dict(n_samples=10**6), "n_samples"), (dict(n_noise=-1), "n_noise"),
    (dict(learning_rate=0.0), "learning_rate"), (dict(momentum=1.0), "momentum"),
    (dict(weight_decay=-1.0), "weight_decay"), (dict(batch_size=0), "batch_size"), (dict(batch_size=41), "batch_size"),
    (dict(n_epochs=0), "n_epochs"), (dict(methods=("jtt",), n_epochs=2), "n_epochs"),
    (dict(jtt_upweight=0), "jtt_upweight"), (dict(gdro_step_size=0.0), "gdro_step_size"),
    (dict(gammas=(1.0, 1.0)), "gammas"), (dict(dtype=torch.int64), "dtype"),
    (dict(gdro_sampler="shuffle"), "gdro_sampler"),
    (dict(seeds=tuple(range(1000)), n_samples=100_000, n_noise=100), "n_samples")])
def test_bad_input_is_refused_by_name(kwargs, name):
    """A bad argument or configuration field fails when the trainer runs, with a ValueError naming it."""
    arguments = dict(methods=("erm",), seeds=(0,), dtype=torch.float64)
    fields = {k: v for k, v in kwargs.items() if k not in arguments}
    arguments.update({k: v for k, v in kwargs.items() if k in arguments})
    with pytest.raises(ValueError, match=name):
        tb.train_balancing_methods(arguments["methods"], arguments["seeds"], TINY._replace(**fields),
                                   dtype=arguments["dtype"], device="cpu")
    with pytest.raises(TypeError, match="config"):
        tb.train_balancing_methods(("erm",), (0,), dict(n_samples=40))


def test_decision_maps_refuse_bad_input(tiny):
    with pytest.raises(TypeError, match="experiment"):
        tb.decision_maps(spur.balancing_toy_runs((0,), ("erm",), TINY), "erm")
    with pytest.raises(ValueError, match="method"):
        tb.decision_maps(tb.train_balancing_methods(("erm",), (0,), TINY, device="cpu"), "subg")
    with pytest.raises(ValueError, match="weights"):
        tb.decision_maps(tiny, "erm", weights="best")
    with pytest.raises(ValueError, match="core_range"):
        tb.decision_maps(tiny, "erm", core_range=(1.0, -1.0))
    with pytest.raises(ValueError, match="n_points"):
        tb.decision_maps(tiny, "erm", n_points=(1, 10))


def test_an_experiment_stored_without_its_data(tiny):
    """A reproduction record stores the experiment without its data sets (``splits=()``): the noise-free maps need
    none and equal those of the full experiment; the nearest-noise maps refuse, naming ``noise``, until
    ``balancing_toy_splits`` draws the data sets again, equal to the trained ones."""
    stored = tiny._replace(splits=())
    for m in ("erm", "subg"):
        full = tb.decision_maps(tiny, m, noise="none", n_points=(30, 10))
        alone = tb.decision_maps(stored, m, noise="none", n_points=(30, 10))
        assert np.array_equal(full.probabilities, alone.probabilities)
        assert np.array_equal(full.core_rule_agreement, alone.core_rule_agreement)
    with pytest.raises(ValueError, match="noise='nearest'"):
        tb.decision_maps(stored, "erm", n_points=(30, 10))
    restored = stored._replace(splits=tb.balancing_toy_splits(TINY, tiny.seeds))
    for a, b in zip(restored.splits, tiny.splits):
        for part in ("train", "val", "test"):
            assert all(np.array_equal(u, v) for u, v in zip(getattr(a, part), getattr(b, part)))
    assert np.array_equal(tb.decision_maps(restored, "erm", n_points=(30, 10)).probabilities,
                          tb.decision_maps(tiny, "erm", n_points=(30, 10)).probabilities)
    with pytest.raises(ValueError, match="seeds"):
        tb.balancing_toy_splits(TINY, (-1,))
