"""Tests of dynamics.spurious.torch_training (skipped without torch): stacked against one-by-one training (the
manual backpropagation is tested with the batched-trainer core, tests/test_torch_batched.py), the exact early-exit fit test, the torch replay of
every balancing method, the parity figures' data, and the record of the reversed prunability trend (a claim of
Barsbey et al. 2025 that the parity task does not reproduce)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dynamics import spurious as spur  # noqa: E402
from dynamics.numerics import seed_streams  # noqa: E402
from dynamics.numerics.torch_batched import relu_mlp  # noqa: E402
from dynamics.spurious import torch_training as tt  # noqa: E402

TINY = spur.ParitySweepConfig(task=spur.ParityTaskConfig(n_train=300, n_test=200), width=24, epoch_cap=6,
                              n_activation_inputs=50)


def test_stacked_training_equals_one_by_one():
    config = spur.ParitySweepConfig(task=spur.ParityTaskConfig(n_train=200, n_test=100), width=64, epoch_cap=40,
                                    n_activation_inputs=50, dtype="float64")
    stacked = tt.parity_lr_sweep([0.5], [0, 1, 2, 3], config, batched=True)
    alone = tt.parity_lr_sweep([0.5], [0, 1, 2, 3], config, batched=False)
    assert len({r.epochs_to_fit for r in stacked.runs[0]}) > 1  # members leave the stack at different epochs
    assert all(r.fitted for r in stacked.runs[0])
    for a, b in zip(stacked.runs[0], alone.runs[0]):
        assert a.epochs_to_fit == b.epochs_to_fit and a.fitted == b.fitted
        for name in tt.PARITY_METRICS:
            assert getattr(a, name) == pytest.approx(getattr(b, name), rel=1e-9, abs=1e-12, nan_ok=True), name
        assert np.allclose(a.bc_share_history, b.bc_share_history, rtol=1e-9)


def test_sweep_is_memoised_and_seeds_share_data_across_learning_rates():
    first = tt.parity_lr_sweep([0.2, 0.4], [3], TINY)
    again = tt.parity_lr_sweep([0.4], [3], TINY)
    assert again.runs[0][0] is first.runs[1][0]
    assert first.runs[0][0].seed == first.runs[1][0].seed == 3
    with pytest.raises(ValueError, match="name"):
        first.metric("accuracy")
    assert tt.train_parity_mlp(0.4, 3, TINY) is first.runs[1][0]  # one run of the sweep, memoised with it


@pytest.mark.parametrize("field, value", [("width", 0), ("epoch_cap", 0), ("dtype", "bfloat16"),
                                          ("task", spur.ParityTaskConfig(n_noise=-1))])
def test_sweep_names_the_bad_field(field, value):
    with pytest.raises(ValueError, match="n_noise" if field == "task" else field):
        tt.parity_lr_sweep([0.1], [0], TINY._replace(**{field: value}))
    with pytest.raises(TypeError, match="config"):
        tt.parity_lr_sweep([0.1], [0], spur.ParityTrainingConfig())


def test_fit_test_is_exact():
    streams = [seed_streams(s, spur.PARITY_SEED_STREAMS) for s in (0, 1, 2)]
    data = tt._load_parity(streams, 500, 50, 6, 2, 12, 0.1, 10, torch.float64, torch.device("cpu"))
    gen = torch.Generator().manual_seed(1)
    weights = [torch.randn(3, 30, 20, generator=gen, dtype=torch.float64),
               torch.randn(3, 2, 30, generator=gen, dtype=torch.float64)]
    predicted = relu_mlp(weights, data.x_train)[0].argmax(-1)
    order = torch.argsort(torch.rand(3, 500, generator=gen), dim=1)
    labels = predicted.clone()  # member 0 fits; member 1 misses only the last sample of its order
    labels[1, order[1, -1]] = 1 - labels[1, order[1, -1]]
    data = data._replace(y_train=labels)  # member 2 keeps the predictions as labels except 20 random ones
    flip = torch.randperm(500, generator=gen)[:20]
    labels[2, flip] = 1 - labels[2, flip]
    fits = tt._fits_training_set(weights, data, torch.arange(3), order, chunk=64)
    assert fits.tolist() == [True, False, False]


@pytest.mark.parametrize("method", spur.METHODS)
def test_torch_replay_of_every_method(method):
    splits = spur.make_balancing_toy_splits(60, 12, seed=4)
    config = spur.BalancingToyConfig(learning_rate=1e-3, momentum=0.9, weight_decay=0.05, batch_size=16, n_epochs=12,
                                     jtt_epochs=2, jtt_upweight=4)
    run = spur.train_balancing_toy(*splits, method, config, seed=3, return_orders=True)
    replay = tt.replay_balancing_toy(*splits, run, method, config, device="cpu")
    assert np.abs(run.weights - replay.weights).max() <= 1e-12 * np.abs(run.weights).max()
    assert np.array_equal(run.test_group_acc, replay.test_group_acc)


def test_replay_rejects_runs_without_orders():
    splits = spur.make_balancing_toy_splits(40, 6, seed=0)
    config = spur.BalancingToyConfig(n_epochs=2)
    run = spur.train_balancing_toy(*splits, "erm", config, seed=0)
    with pytest.raises(ValueError, match="return_orders"):
        tt.replay_balancing_toy(*splits, run, "erm", config)
    with pytest.raises(TypeError, match="config"):
        tt.replay_balancing_toy(*splits, spur.train_balancing_toy(*splits, "erm", config, seed=0, return_orders=True),
                                "erm", dict(n_epochs=2))
    with pytest.raises(TypeError, match="device"):
        tt.gradient_identity(device=3)


def test_spurious_rule_logits_names_the_bad_field():
    with pytest.raises(ValueError, match="n_train"):
        tt.spurious_rule_logits(config=spur.SpuriousRuleLogitsConfig(n_train=10), seed=0)
    with pytest.raises(ValueError, match="min_aligned_accuracy"):
        tt.spurious_rule_logits(config=spur.SpuriousRuleLogitsConfig(min_aligned_accuracy=2.0), seed=0)
    with pytest.raises(TypeError, match="config"):
        tt.spurious_rule_logits(config=spur.ParitySweepConfig(), seed=0)


def _synthetic_sweep():
    rng = np.random.default_rng(0)
    lrs, seeds = (0.03, 0.3, 0.75), (0, 1)
    rows = []
    for i, lr in enumerate(lrs):
        row = []
        for s in seeds:
            values = {name: float(rng.uniform(0, 1) + i) for name in tt.PARITY_METRICS if name in tt.ParityRun._fields}
            trace = rng.uniform(0, 1, 30 - 10 * i)
            values.update(epochs_to_fit=10, learning_rate=lr, seed=s, fitted=True, bc_share_history=np.zeros((1, 1)),
                          node_pruned_accuracy=np.sort(rng.uniform(0.5, 1, 10))[::-1],
                          magnitude_pruned_accuracy=np.sort(rng.uniform(0.5, 1, 10))[::-1],
                          bias_selectivity_history=trace, top_neuron_bias_selectivity=trace ** 0.5,
                          landscape=rng.uniform(0, 1, (3, 9, 9)) * (3 - i),
                          unbiased_accuracy=0.6 + 0.1 * i + rng.uniform(0, 0.05))  # an accuracy, in (0, 1]
            row.append(tt.ParityRun(**values))
        rows.append(tuple(row))
    return tt.ParitySweep(lrs, seeds, tuple(rows))


def test_parity_figures_plot_the_sweep(monkeypatch):
    """The two parity figures draw the sweep of their record: here a synthetic one in its place."""
    import types

    import figures.registry
    import figures.spurious as fs

    sweep = _synthetic_sweep()
    monkeypatch.setattr(figures.registry, "record", lambda name: types.SimpleNamespace(
        result=sweep, verdict=("partly reproduced", "a synthetic sweep"), reduced="a synthetic size"))
    fig = fs.parity_lr_sweep()
    left = fig.axes[0]
    accuracy = sweep.metric("unbiased_accuracy")
    normalised = (accuracy - accuracy.min()) / (accuracy.max() - accuracy.min())
    means = [line for line in left.lines if line.get_linestyle() == "-"]
    assert np.allclose(means[0].get_ydata(), normalised.mean(axis=1))
    assert np.allclose(means[0].get_xdata(), sweep.learning_rates)
    right_means = [line for line in fig.axes[1].lines if line.get_linestyle() == "-"]
    prunability = sweep.metric("node_prunability")
    assert np.allclose(right_means[0].get_ydata(),
                       ((prunability - prunability.min()) / np.ptp(prunability)).mean(axis=1))
    scatter = fs.bc_share_vs_accuracy().axes[0].collections[0]
    assert np.allclose(scatter.get_offsets(), np.column_stack([sweep.metric("max_bc_loss_share").ravel(),
                                                               sweep.metric("unbiased_accuracy").ravel()]))


def test_mechanism_figures_draw_their_record(monkeypatch):
    """The four mechanism figures (Figs. 9, 20-21, 26, 28 bottom) draw the sweep of their record: a synthetic one
    here, so that each drawn array can be compared with the record's."""
    import types

    import figures.registry
    import figures.spurious as fs

    sweep = _synthetic_sweep()
    monkeypatch.setattr(figures.registry, "record", lambda name: types.SimpleNamespace(
        result=sweep, verdict=("not reproduced", "a synthetic sweep"), reduced="a synthetic size"))
    fig = fs.pruning_curves()
    for ax, field in zip(fig.axes, ("node_pruned_accuracy", "magnitude_pruned_accuracy")):
        drawn = [line for line in ax.lines if line.get_marker() == "o"]
        assert len(drawn) == len(sweep.learning_rates)
        for line, row in zip(drawn, sweep.runs):
            expected = np.mean([getattr(run, field) / run.unbiased_accuracy for run in row], axis=0)
            assert np.allclose(line.get_ydata(), expected)
            assert np.allclose(line.get_xdata(), spur.PRUNE_FRACTIONS)
    fig = fs.csi_attribution()
    panel = next(ax for ax in fig.axes if ax.get_title().startswith("(b)"))
    points = np.concatenate([c.get_offsets() for c in panel.collections])
    assert np.allclose(points, np.column_stack([sweep.metric("class_selectivity").ravel(),
                                                sweep.metric("core_attribution_share").ravel()]))
    fig = fs.neuron_resets()
    top = fig.axes[0].lines[0]
    assert np.allclose(top.get_ydata(), sweep.runs[0][0].top_neuron_bias_selectivity[1:])
    assert np.allclose(top.get_xdata(), 20 * np.arange(1, sweep.runs[0][0].top_neuron_bias_selectivity.size))
    assert tt.SELECTIVITY_EVERY == 20  # the figure's step spacing
    assert np.allclose(fig.axes[1].lines[-1].get_ydata(), sweep.metric("bias_selectivity_drawdown").mean(axis=1))
    fig = fs.loss_landscapes()
    images = [ax.images[0].get_array() for ax in fig.axes if ax.images]
    assert len(images) == 9
    for r in range(3):
        for c, i in enumerate((0, 1, 2)):
            assert np.allclose(images[3 * r + c], sweep.runs[i][0].landscape[r].T)


@pytest.mark.slow
@pytest.mark.xfail(strict=False, reason="Barsbey et al. 2025 claim not reproduced on parity; see "
                   "docs/theory/spurious.md")
def test_prunability_rises_with_learning_rate():
    """Barsbey et al. 2025: prunability rises with η. On the parity task the ratio prunability falls. Seeds 0-1 of
    the claims' setting: memoised when the cross-checks ran in this process, about 40% of their sweep otherwise."""
    sweep = tt.parity_lr_sweep((0.03, 0.75), range(2), spur.ParitySweepConfig.ci())
    node = sweep.metric("node_prunability")
    assert node[1].mean() > node[0].mean()


def test_moon_star_figure_draws_its_record(monkeypatch):
    """spurious.moon_star draws its record: a synthetic one in its place, whose every seed's accuracy is a dot of
    panel (b) and whose seed means are the short lines; panel (a) shows the generator's images of the four groups at
    the record's image size."""
    import types

    import figures.registry
    import figures.spurious as fs

    from dynamics.spurious._results import MoonStarRuns
    rng = np.random.default_rng(0)
    shape = (2, 5)
    runs = MoonStarRuns(np.array([0.01, 0.75]), tuple(range(5)), rng.uniform(0.6, 0.9, shape),
                           rng.uniform(0.9, 1.0, shape), rng.uniform(0.3, 0.8, shape), np.ones(shape),
                           rng.integers(5, 200, shape), np.ones(shape, dtype=bool), rng.uniform(0.2, 0.4, shape))
    config = spur.MoonStarConfig.record()._replace(image_size=16)
    monkeypatch.setattr(figures.registry, "record", lambda name: types.SimpleNamespace(
        result=runs, config=config, verdict=("partly reproduced", "a synthetic record"), reduced="a synthetic size"))
    fig = fs.moon_star()
    images, accuracies = fig.axes
    dots = [line for line in accuracies.lines if line.get_marker() == "o"]
    means = [line for line in accuracies.lines if line.get_marker() in ("None", "", None)
             and len(line.get_ydata()) == 2]
    fields = ("unbiased_accuracy", "ba_accuracy", "bc_accuracy")
    assert len(dots) == len(means) == 2 * len(fields)
    for c in range(2):
        for j, field in enumerate(fields):
            values = getattr(runs, field)[c]
            assert np.allclose(dots[c * len(fields) + j].get_ydata(), values)
            assert np.allclose(means[c * len(fields) + j].get_ydata(), values.mean())
    # panel (a): tile (group row i, column k) is the k-th image of the group in the generator's seed-0 draw
    montage = np.ma.filled(images.images[0].get_array(), np.nan)
    data = spur.make_moon_star_like(400, 0.5, 16, seed=0)
    step = 17
    for i, group in enumerate((3, 0, 2, 1)):
        for k in range(2):
            index = np.flatnonzero(data.group == group)[k]
            assert np.array_equal(montage[i * step:i * step + 16, k * step:k * step + 16],
                                  data.x[index].reshape(16, 16))
    assert any("partly reproduced: a synthetic record" in text.get_text() for text in fig.texts)
