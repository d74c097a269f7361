"""Every batched trainer against its twin, at a tiny size, on every field it records.

A batched trainer trains many small models of one shape at once (stacked seeds, learning rates, methods,
thresholds, designs). The twin is the same training done one model at a time: the same public function called
with a batch of one, or the numpy reference trainer of the same update rule. Each test here compares every field
of the batched result (weights, losses, accuracies, selected epochs, histories, data, grids, ...) with the field
the twin records for that model, exactly where the arithmetic is the same row by row and otherwise to a stated
round-off tolerance. A model that reads another model's row (a batch index off by one, a per-model setting taken
from the wrong row, a record one step late) fails here, while tests of shapes and determinism would pass.

Trainers whose twins are already compared on every field elsewhere in the fast tier are not repeated here
(``parity_training_runs`` with ``batched=False``, ``parity_lr_sweep``, ``train_adam_variants``).
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import dynamics.and_mask as am  # noqa: E402
import dynamics.double_descent as dd  # noqa: E402
import dynamics.linear_networks as ln  # noqa: E402
import dynamics.spurious as spur  # noqa: E402
import dynamics.starvation as gs  # noqa: E402
from dynamics.and_mask import torch_experiments as ame  # noqa: E402
from dynamics.and_mask import torch_training as amt  # noqa: E402
from dynamics.double_descent import torch_training as ddt  # noqa: E402
from dynamics.linear_networks import torch_training as lnt  # noqa: E402
from dynamics.spurious import torch_balancing as spb  # noqa: E402
from dynamics.spurious import torch_experiments as spe  # noqa: E402
from dynamics.starvation import torch_experiments as gse  # noqa: E402
from dynamics.starvation import torch_training as gst  # noqa: E402


@pytest.fixture(autouse=True)
def _every_call_trains(monkeypatch):
    """No disk cache: the twin must train, not read the batched call's entry back."""
    monkeypatch.setenv("DYNAMICS_CACHE", "0")


def _same(got, expected, name, rtol=0.0):
    """Recursive comparison of two results: arrays of floats to ``rtol`` of the field's largest magnitude (0: exact),
    integer, boolean and string leaves exactly, NaN equal to NaN."""
    if hasattr(expected, "_fields"):
        assert type(got) is type(expected), name
        for field in expected._fields:
            _same(getattr(got, field), getattr(expected, field), f"{name}.{field}", rtol)
    elif isinstance(expected, (tuple, list)):
        assert len(got) == len(expected), name
        for i, (g, e) in enumerate(zip(got, expected)):
            _same(g, e, f"{name}[{i}]", rtol)
    elif expected is None or isinstance(expected, (str, bool)):
        assert got == expected, name
    else:
        g, e = np.asarray(got), np.asarray(expected)
        assert g.shape == e.shape, (name, g.shape, e.shape)
        if e.dtype.kind in "fc" and rtol > 0:
            scale = np.nanmax(np.abs(e)) if e.size and not np.all(np.isnan(e)) else 0.0
            np.testing.assert_allclose(g, e, rtol=0, atol=rtol * scale, equal_nan=True, err_msg=name)
        else:
            np.testing.assert_array_equal(g, e, err_msg=name)


# ---------------------------------------------------------------------------------------------- linear models

def test_double_descent_students_with_own_rates_and_a_schedule_are_single_design_runs():
    """train_linear_student with one learning rate per design and an output-penalty schedule: each design's row is
    the run of that design alone with its own rate (steps and every recorded weight)."""
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(8, 6, 3, 5.0, noise_std=0.2), n_seeds=3, seed=1)
    eta = 0.4 * np.asarray(dd.inverse_max_eigenvalue_learning_rate(data.X)) * np.array([1.0, 0.7, 0.5])
    schedule = dd.q_penalty_schedule(9)
    batched = ddt.train_linear_student(data.X, data.y, [0, 1, 4, 9], eta, schedule, device="cpu")
    for i in range(3):
        alone = ddt.train_linear_student(data.X[i:i + 1], data.y[i:i + 1], [0, 1, 4, 9], eta[i], schedule,
                                         device="cpu")
        # float64: the loss summed over designs gives each design's gradient with the same terms; einsum may still
        # reorder the sums of a batch of 3 and of 1, hence round-off
        _same(batched.steps, alone.steps, "steps")
        _same(batched.weights[i], alone.weights[0], f"weights[{i}]", rtol=1e-13)


def test_linear_network_students_are_single_student_runs():
    """train_students: each instance's trajectory is the run of that instance alone and the numpy GD of
    student_weights_gd, at every recorded step."""
    batch = [ln.draw_student(5, 7, init_std=0.3, seed=s) for s in (2, 3, 4)]
    run = lnt.train_students(batch, [0, 1, 3, 6], 0.05, device="cpu")
    for i, instance in enumerate(batch):
        alone = lnt.train_students([instance], [0, 1, 3, 6], 0.05, device="cpu")
        _same(run.steps, alone.steps, "steps")
        # float64, a batched einsum against a batch of one: round-off only
        _same(run.weights[:, i], alone.weights[:, 0], f"weights[:, {i}]", rtol=1e-13)
        _same(run.weights[:, i], ln.student_weights_gd(instance, [0, 1, 3, 6], 0.05), f"numpy[{i}]", rtol=1e-12)


# ---------------------------------------------------------------------------------------------- AND-mask

@pytest.mark.parametrize("method", ["arithmetic", "and_mask", "geom_mean"])
def test_patchwork_rows_are_single_runs(method):
    """train_linear_patchwork from several initial points (one row each): every row's final θ, training and
    held-out losses are the run from that point alone, and the learning-rate schedule is the same."""
    theta0 = 0.1 * np.random.default_rng(5).standard_normal((3, 5))
    run = amt.train_linear_patchwork(method, envs=(0, 1, 2), theta0=theta0, n_iters=15, device="cpu")
    for i in range(3):
        alone = amt.train_linear_patchwork(method, envs=(0, 1, 2), theta0=theta0[i], n_iters=15, device="cpu")
        # float64; the mask and the geometric mean act entry-wise, so each row follows its own arithmetic
        _same(run.theta[i], alone.theta[0], f"theta[{i}]", rtol=1e-14)
        _same(run.train_loss[i], alone.train_loss[0], f"train_loss[{i}]", rtol=1e-14)
        _same(run.heldout_loss[i], alone.heldout_loss[0], f"heldout_loss[{i}]", rtol=1e-14)
        _same(run.learning_rates, alone.learning_rates, "learning_rates")


@pytest.mark.parametrize("tau", [0.0, 0.5, 1.0])
def test_torch_logistic_shortcut_runs_are_the_numpy_trainer_per_data_set(tau):
    """The torch train_logistic_shortcut over several data sets: each data set's weights, three accuracies and
    initial mask equal the torch run of that data set alone and the numpy trainer of the same rule."""
    datasets = [am.make_logistic_shortcut(n_envs=4, n_samples_per_env=6, dim_shortcut=3, n_test=20, seed=s)
                for s in (7, 8, 9)]
    runs = amt.train_logistic_shortcut(datasets, tau, 0.5, 12, device="cpu")
    for i, data in enumerate(datasets):
        alone = amt.train_logistic_shortcut(data, tau, 0.5, 12, device="cpu")[0]
        reference = am.train_logistic_shortcut(data, tau, 0.5, 12)
        for name, twin in (("torch alone", alone), ("numpy", reference)):
            # float64; the numpy trainer writes σ(−m) with tanh and torch differentiates softplus: round-off
            _same(runs[i].weights, twin.weights, f"{name} weights[{i}]", rtol=1e-12)
            for field in ("train_accuracy", "test_accuracy", "shortcut_accuracy", "initial_mask"):
                _same(getattr(runs[i], field), getattr(twin, field), f"{name} {field}[{i}]")


def _spiral(settings, n_steps=6, batch_size=None):
    return am.SpiralMemorisationConfig(settings=settings, n_envs=3, n_samples_per_env=6, dim_shortcut=2, hidden=(4,),
                                       n_steps=n_steps, n_test=10, record_every=3, batch_size=batch_size)


@pytest.mark.parametrize("batch_size", [None, 3])
def test_spiral_memorisation_models_are_single_setting_single_seed_runs(batch_size):
    """train_spiral_memorisation over settings × seeds: every model's accuracy curves are the run of its setting
    and seed alone (full batch and minibatches)."""
    settings = ((0.0, 0.0, 0.0), (0.5, 1e-3, 0.0), (1.0, 0.0, 1e-2))
    seeds = (11, 12)
    run = ame.train_spiral_memorisation(_spiral(settings, batch_size=batch_size), seeds, dtype="float64")
    _same(run.seeds, np.array(seeds), "seeds")
    for i, setting in enumerate(settings):
        for j, seed in enumerate(seeds):
            alone = ame.train_spiral_memorisation(_spiral((setting,), batch_size=batch_size), (seed,),
                                                  dtype="float64")
            for field in ("agreement_thresholds", "l1_penalties", "l2_penalties"):
                _same(getattr(run, field)[i], getattr(alone, field)[0], field)
            _same(run.steps, alone.steps, "steps")
            # float64 accuracies are counts of signs: exact unless a logit sits at round-off from 0
            for field in ("train_accuracy", "test_accuracy"):
                _same(getattr(run, field)[i, j], getattr(alone, field)[0, 0], f"{field}[{i}, {j}]")


def test_noisy_label_models_are_single_threshold_single_seed_runs():
    """train_noisy_labels over τ × seeds: every model's four accuracy curves, and each seed's mislabelled
    fraction, are those of the run of that τ and seed alone."""
    config = am.NoisyLabelsConfig(agreement_thresholds=(0.0, 0.6, 1.0), shuffled_fraction=0.3, n_train=16, dim=3,
                                  hidden=(4,), batch_size=4, n_steps=6, n_test=10, record_every=3)
    seeds = (5, 6)
    run = ame.train_noisy_labels(config, seeds, dtype="float64")
    for i, tau in enumerate(config.agreement_thresholds):
        for j, seed in enumerate(seeds):
            alone = ame.train_noisy_labels(config._replace(agreement_thresholds=(tau,)), (seed,), dtype="float64")
            _same(run.agreement_thresholds[i], alone.agreement_thresholds[0], "agreement_thresholds")
            _same(run.seeds[j], alone.seeds[0], "seeds")
            _same(run.steps, alone.steps, "steps")
            for field in ("train_accuracy", "mislabelled_accuracy", "clean_accuracy", "test_accuracy"):
                _same(getattr(run, field)[i, j], getattr(alone, field)[0, 0], f"{field}[{i}, {j}]")
            _same(run.mislabelled_fraction[j], alone.mislabelled_fraction[0], f"mislabelled_fraction[{j}]")


def test_environment_sweep_seeds_are_single_seed_sweeps():
    """train_environment_sweep over seeds: each seed's final accuracies at every d and τ are its sweep alone."""
    config = am.EnvironmentSweepConfig(n_envs=(2, 4), n_total=16, hidden=(4,), n_steps=4, n_test=10)
    run = ame.train_environment_sweep(config, (1, 2), dtype="float64")
    for j, seed in enumerate((1, 2)):
        alone = ame.train_environment_sweep(config, (seed,), dtype="float64")
        _same(run.n_envs, alone.n_envs, "n_envs")
        _same(run.thresholds, alone.thresholds, "thresholds")
        _same(run.seeds[j], alone.seeds[0], "seeds")
        for field in ("train_accuracy", "test_accuracy"):
            _same(getattr(run, field)[:, :, j], getattr(alone, field)[:, :, 0], f"{field}[..., {j}]")


# ---------------------------------------------------------------------------------------------- starvation

def test_toy_batch_is_single_toy_runs():
    """torch train_toy over a batch of toys: the primal, spectral-decoupling and dual responses of each toy are
    those of the toy trained alone."""
    U = np.stack([gs.coupling_matrix(c) for c in (0.2, 0.5, 0.8)])
    s = np.array([[6.0, 2.0], [4.0, 3.0], [5.0, 1.0]])
    Phi = U * s[:, None, :]
    config = gs.ToyTrainingConfig(n_steps=30)
    run = gst.train_toy(U, s, Phi, config, device="cpu")
    for i in range(3):
        alone = gst.train_toy(U[i:i + 1], s[i:i + 1], Phi[i:i + 1], config, device="cpu")
        # float64; the summed losses of independent toys give each toy its own gradient: round-off only
        _same(gs.ToyTraining(*(field[i:i + 1] for field in run)), alone, f"toy {i}", rtol=1e-13)


def _two_moons_model(out, run, j, n_seeds):
    """The fields of model (run, seed j) of a TwoMoonsTraining, models run-major."""
    b = run * n_seeds + j
    return (out.data[b], [p[b] for p in out.params], out.z[:, run, j], out.gradient_ratio[run, j])


@pytest.mark.parametrize("trainer", ["numba", "torch"])
def test_two_moons_models_are_single_seed_runs(trainer):
    """Both two-moons trainers (compiled and torch) over seeds: every model's data, trained parameters, |z| history
    and input-gradient ratio are the run of that seed alone (the runs of one seed share its data and start)."""
    if trainer == "numba":
        train = gs.train_two_moons.uncached
    else:
        def train(config, seeds):
            return gst.train_two_moons.uncached(config, seeds, device="cpu")
    config = gs.TwoMoonsConfig(n_steps=6, hidden=5, record_every=3)
    seeds = (3, 4)
    out = train(config, seeds)
    for j, seed in enumerate(seeds):
        alone = train(config, (seed,))
        _same(out.steps, alone.steps, "steps")
        _same(out.runs, alone.runs, "runs")
        assert out.seeds[j] == alone.seeds[0]
        for run in range(len(out.runs)):
            got, expected = _two_moons_model(out, run, j, 2), _two_moons_model(alone, run, 0, 1)
            # float64 on both routes; the NTK eigen-directions behind |z| come from an eigensolver: round-off
            for name, g, e in zip(("data", "params", "z", "gradient_ratio"), got, expected):
                _same(g, e, f"{trainer} {name} run {run} seed {seed}", rtol=1e-11)


def test_moons_margins_seeds_are_single_seed_runs():
    """moons_margins over seeds (the ERM and SD nets of each seed, one batched two-moons training): every model's
    signed distances to the boundary, vertical and horizontal, are those of its seed alone."""
    config = gs.MoonsMarginsConfig(n_steps=4, hidden=5, cap=0.5, resolution=0.05)
    run = gse.moons_margins(config, (0, 1), device="cpu")
    for j, seed in enumerate((0, 1)):
        alone = gse.moons_margins(config, (seed,), device="cpu")
        _same(run.runs, alone.runs, "runs")
        assert run.seeds[j] == alone.seeds[0] and run.cap == alone.cap
        # the axis margins are grid offsets (exact); the distance interpolates float64 logits: round-off
        for field in ("vertical", "horizontal"):
            _same(getattr(run, field)[:, j], getattr(alone, field)[:, 0], f"{field}[:, {j}]")
        _same(run.distance[:, j], alone.distance[:, 0], f"distance[:, {j}]", rtol=1e-10)

def test_moons_regularisers_settings_are_single_setting_runs():
    """moons_regularisers over settings: every setting's logits on the grid, boundary distances and training
    accuracies, and the data and grid, are those of the setting trained alone on the same seeds."""
    R = gse.Regulariser
    settings = (R("plain", 0.0, 0.0, False, 0.0, 0.0, 1, 1), R("wd", 1e-2, 0.0, False, 0.0, 0.0, 1, 1),
                R("sd", 0.0, 0.0, False, 0.0, 0.006, 1, 1))
    config = gs.MoonsRegularisersConfig(regularisers=settings, n_steps=5, hidden=4, grid_size=10)
    run = gse.moons_regularisers(config, (0, 1), device="cpu")
    for i, setting in enumerate(settings):
        alone = gse.moons_regularisers(config._replace(regularisers=(setting,)), (0, 1), device="cpu")
        _same(run.regularisers[i], alone.regularisers[0], "regularisers")
        for field in ("seeds", "data", "grid_h", "grid_v"):
            _same(getattr(run, field), getattr(alone, field), field)
        # float64 stacked bmm against a stack of one: round-off in the logits; the distances are read off them
        for field in ("logits", "boundary_distance"):
            _same(getattr(run, field)[i], getattr(alone, field)[0], f"{field}[{i}]", rtol=1e-10)
        _same(run.train_accuracy[i], alone.train_accuracy[0], f"train_accuracy[{i}]")


def test_coloured_shapes_models_are_single_method_single_seed_runs():
    """train_coloured_shapes over methods × seeds: every model's three accuracies and its mean squared training
    output, at every recorded step, are those of its method and seed alone."""
    config = gs.ColouredShapesConfig(n_train=20, n_test=12, n_steps=4, hidden=3, record_every=2)
    seeds = (0, 1)
    run = gse.train_coloured_shapes(config, seeds, device="cpu")
    for k, method in enumerate(config.methods):
        for j, seed in enumerate(seeds):
            alone = gse.train_coloured_shapes(config._replace(methods=(method,)), (seed,), device="cpu")
            _same(run.methods[k], alone.methods[0], "methods")
            assert run.seeds[j] == alone.seeds[0]
            _same(run.steps, alone.steps, "steps")
            for field in ("train_accuracy", "test_accuracy", "shape_accuracy"):
                _same(getattr(run, field)[:, k, j], getattr(alone, field)[:, 0, 0], f"{field}[{k}, {j}]")
            # float64 stacked products against a stack of one: round-off
            _same(run.train_output_square[:, k, j], alone.train_output_square[:, 0, 0],
                  f"train_output_square[{k}, {j}]", rtol=1e-12)


# ---------------------------------------------------------------------------------------------- spurious

TOY = spur.BalancingToyConfig(n_samples=24, n_noise=4, n_epochs=5, learning_rate=1e-3, batch_size=8)


def test_balancing_methods_models_are_single_method_single_seed_runs():
    """train_balancing_methods over methods × seeds: every model's per-epoch group accuracies, validation
    accuracy, both selections, selected and final weights, and the shared epochs, feature scales and splits, are
    those of its method and seed alone."""
    seeds = (0, 1)
    run = spb.train_balancing_methods(spur.METHODS, seeds, TOY, device="cpu")
    per_model = ("train_group_acc", "val_group_acc", "test_group_acc", "val_accuracy", "selected_epoch",
                 "average_selected_epoch", "selected_test_worst_group", "average_selected_test_worst_group",
                 "selected_train_worst_group")
    for i, method in enumerate(spur.METHODS):
        for j, seed in enumerate(seeds):
            alone = spb.train_balancing_methods((method,), (seed,), TOY, device="cpu")
            assert run.methods[i] == alone.methods[0] and run.seeds[j] == alone.seeds[0]
            for field in ("epochs", "feature_scales"):
                _same(getattr(run, field), getattr(alone, field), field)
            _same(run.splits[j], alone.splits[0], f"splits[{j}]")
            for field in per_model:
                _same(getattr(run, field)[i, j], getattr(alone, field)[0, 0], f"{method} {field} seed {seed}")
            # float64 stacked matrix products against a stack of one: round-off
            for field in ("selected_weights", "final_weights"):
                _same(getattr(run, field)[i, j], getattr(alone, field)[0, 0], f"{method} {field} seed {seed}",
                      rtol=1e-12)


def test_intervention_rows_are_single_intervention_runs():
    """intervention_runs stacks the rows (per-row momentum, penalties, focal loss, learning rate; the small batch
    as a second stack): every row's accuracy, core share, epochs and stop flag are the run of that row alone."""
    training = spur.ParityTrainingConfig(task=spur.ParityTaskConfig(n_train=120, n_test=60, n_core=4), width=6,
                                         epoch_cap=1, n_attribution_inputs=10, dtype="float64")
    config = spur.InterventionConfig(training=training)
    run = spe.intervention_runs([0, 1], config)
    for i, name in enumerate(run.names):
        alone = spe.intervention_runs([0, 1], config, names=(name,))
        assert alone.names == (name,) and alone.seeds == run.seeds
        for field in ("learning_rates", "batch_sizes", "epochs_to_stop", "stopped"):
            _same(getattr(run, field)[i], getattr(alone, field)[0], f"{name} {field}")
        # float64 stacked models against a stack of one: round-off in the attributions and outputs
        for field in ("unbiased_accuracy", "core_share"):
            _same(getattr(run, field)[i], getattr(alone, field)[0], f"{name} {field}", rtol=1e-10)

