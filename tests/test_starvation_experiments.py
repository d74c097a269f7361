"""Fast tests of the two-moons regulariser grid, the coloured-shape task and the margins of
:mod:`dynamics.starvation.torch_experiments`: batched training equals one member at a time, determinism, shapes,
the boundary measure on known curves, and the validation of inputs."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import dynamics.starvation as gs  # noqa: E402
from dynamics.starvation import torch_experiments as te  # noqa: E402


@pytest.fixture(autouse=True)
def _every_call_trains(monkeypatch):
    """No disk cache here: a determinism test must compute twice, not read the first call's entry back."""
    monkeypatch.setenv("DYNAMICS_CACHE", "0")


R = te.Regulariser


def test_boundary_line_distance_of_straight_and_curved_boundaries():
    h = v = np.linspace(-1, 1, 201)
    box = np.array([[-1.0, -1.0], [1.0, 1.0]])
    slanted = np.add.outer(0.5 * v, h) - 0.2  # the line x_h + 0.5 x_v = 0.2
    assert gs.boundary_line_distance(h, v, slanted, box) < 1e-10
    # the parabola x_h = x_v² - 0.3 over x_v in [-1, 1]: RMS orthogonal distance from its best line ~ the sd of x_v²
    # (0.298) along x_h, shrunk a little by the tilt-free fit; in units of the box's RMS radius √(2)·1
    parabola = np.add.outer(v ** 2, -h) - 0.3
    value = gs.boundary_line_distance(h, v, parabola, box)
    assert 0.15 < value < 0.25
    assert np.isnan(gs.boundary_line_distance(h, v, np.ones((201, 201)), box))


def test_boundary_points_validate_the_grid():
    with pytest.raises(ValueError, match="logits"):
        gs.boundary_points(np.arange(3.0), np.arange(4.0), np.zeros((3, 3)))


SETTINGS = (R("plain", 0.0, 0.0, False, 0.0, 0.0, 1, 1), R("wd", 1e-2, 0.0, False, 0.0, 0.0, 1, 1),
            R("bn", 0.0, 0.0, True, 0.0, 0.0, 1, 1), R("adam", 0.0, 0.0, False, 3e-3, 0.0, 1, 1),
            R("sd", 0.0, 0.0, False, 0.0, 0.006, 1, 1))


def test_moons_regularisers_batched_equals_one_member_at_a_time():
    config = gs.MoonsRegularisersConfig(regularisers=SETTINGS, n_steps=15, hidden=6, grid_size=12)
    batched = te.moons_regularisers(config, (0, 1), device="cpu")
    for i, setting in enumerate(SETTINGS):  # the same seeds, hence the same grid (it covers every seed's data)
        alone = te.moons_regularisers(config._replace(regularisers=(setting,)), (0, 1), device="cpu")
        scale = np.abs(alone.logits).max()
        np.testing.assert_allclose(batched.logits[i], alone.logits[0], rtol=0, atol=1e-10 * scale)


def test_moons_regularisers_deterministic_and_seeded():
    config = gs.MoonsRegularisersConfig(regularisers=SETTINGS[:1] + (R("drop", 0.0, 0.5, False, 0.0, 0.0, 1, 1),),
                                        n_steps=5, hidden=6, grid_size=12)
    a, b = te.moons_regularisers(config, (3,), device="cpu"), te.moons_regularisers(config, (3,), device="cpu")
    c = te.moons_regularisers(config, (4,), device="cpu")
    np.testing.assert_array_equal(a.logits, b.logits)
    assert not np.allclose(a.logits, c.logits)
    assert a.logits.shape == (2, 1, 12, 12) and a.boundary_distance.shape == a.train_accuracy.shape == (2, 1)
    assert not np.allclose(a.logits[0], a.logits[1])  # dropout changes the path


@pytest.mark.parametrize("fields, seeds, name", [
    (dict(n_steps=-1), (0,), "n_steps"), (dict(hidden=0), (0,), "hidden"), ({}, (), "seeds"),
    (dict(grid_size=3), (0,), "grid_size"), (dict(momentum=1.0), (0,), "momentum"), (dict(margin=2.0), (0,), "margin"),
    (dict(regularisers=(R("x", 0.0, 1.5, False, 0.0, 0.0, 1, 1),)), (0,), "dropout"),
    (dict(regularisers=(R("x", 0.0, 0.0, False, 0.0, 0.0, 0, 1),)), (0,), "depth")])
def test_moons_regularisers_validate(fields, seeds, name):
    with pytest.raises(ValueError, match=name):
        te.moons_regularisers(gs.MoonsRegularisersConfig(**fields), seeds, device="cpu")
    with pytest.raises(TypeError, match="config"):  # the old call, seeds where the configuration goes
        te.moons_regularisers((0,), device="cpu")


def test_coloured_shapes_statistics_and_channels():
    data = gs.coloured_shapes(4000, colour_flip=0.2, seed=1)
    assert abs(np.mean(data.colour == data.y) - 0.8) < 0.03
    assert abs(np.mean(data.shape == data.y) - 0.75) < 0.03
    half = data.X.shape[1] // 2
    assert np.all(data.X[data.colour > 0, half:] == 0) and np.all(data.X[data.colour < 0, :half] == 0)
    clean = gs.coloured_shapes(50, colour_flip=0.0, noise_std=0.0, seed=2)
    assert np.all(clean.X.sum(axis=1) == 3.0)  # one 3-pixel bar per image
    with pytest.raises(ValueError, match="colour_flip"):
        gs.coloured_shapes(10, colour_flip=1.5)
    with pytest.raises(ValueError, match="bar_length"):
        gs.coloured_shapes(10, colour_flip=0.1, bar_length=9)


SHAPES = gs.ColouredShapesConfig(n_train=60, n_test=40, n_steps=6, hidden=5, record_every=3)


def test_train_coloured_shapes_batched_equals_one_method_at_a_time():
    batched = te.train_coloured_shapes(SHAPES, (0, 1), device="cpu")
    for k, method in enumerate(te.COLOUR_SHAPE_METHODS):
        alone = te.train_coloured_shapes(SHAPES._replace(methods=(method,)), (0, 1), device="cpu")
        for field in ("train_accuracy", "test_accuracy", "shape_accuracy"):
            np.testing.assert_array_equal(getattr(batched, field)[:, k], getattr(alone, field)[:, 0])
    assert batched.steps.tolist() == [0, 3, 6] and batched.test_accuracy.shape == (3, 4, 2)


def test_train_coloured_shapes_deterministic_and_seeded():
    a, b = te.train_coloured_shapes(SHAPES, (5,), device="cpu"), te.train_coloured_shapes(SHAPES, (5,), device="cpu")
    c = te.train_coloured_shapes(SHAPES, (6,), device="cpu")
    np.testing.assert_array_equal(a.test_accuracy, b.test_accuracy)
    assert not np.array_equal(a.test_accuracy, c.test_accuracy)


def test_annealed_penalty_enters_scaled_before_its_step_and_scales_the_loss_after():
    a, c = 2.0, 1e-5
    config = SHAPES._replace(n_steps=150, record_every=1)
    annealed = te.ColourShapeMethod("annealed", 0.0, a, 0.0, anneal_steps=4, loss_scale=c)
    scaled = te.ColourShapeMethod("penalty a·c", 0.0, a * c, 0.0)
    plain = te.ColourShapeMethod("penalty a", 0.0, a, 0.0)
    out = te.train_coloured_shapes(config._replace(methods=(annealed, scaled, plain)), (0, 1), device="cpu")
    square = out.train_output_square  # (steps 0..8, method, seed)
    # before step 4 the annealed member trains on CE + c·(a/2)·mean ŷ², exactly the member with penalty a·c
    np.testing.assert_array_equal(square[:5, 0], square[:5, 1])
    assert not np.array_equal(square[5:, 0], square[5:, 1])
    # from step 4 on its loss is c·(CE + (a/2)·mean ŷ²): Adam's second moments still hold the unscaled gradients, so
    # once its first moments have forgotten them (0.9^116 ~ 5e-6) its steps are a few c times the unscaled member's
    # (√v̂ has decayed to ~0.2 of the old gradients by step 120) and ŷ barely moves, while that member's keeps moving
    moved = lambda k: np.abs(np.diff(square[120:, k], axis=0)).max()  # noqa: E731
    assert moved(0) < 1e-3 * moved(1)


def test_a_constant_loss_scale_leaves_adam_nearly_unchanged():
    # Adam is invariant to a constant scale of the loss up to its ε (1e-8 against gradients ~1e-2 here)
    a = 2.0
    scaled = te.ColourShapeMethod("scaled", 0.0, a, 0.0, anneal_steps=0, loss_scale=0.25)
    plain = te.ColourShapeMethod("plain", 0.0, a, 0.0)
    out = te.train_coloured_shapes(SHAPES._replace(methods=(scaled, plain)), (0,), device="cpu")
    np.testing.assert_allclose(out.train_output_square[:, 0], out.train_output_square[:, 1], rtol=1e-5)


@pytest.mark.parametrize("fields, name", [(dict(n_train=1), "n_train"), (dict(hidden=0), "hidden"),
                                          (dict(methods=(te.ColourShapeMethod("x", -1.0, 0.0, 0.0),)), "weight_decay"),
                                          (dict(methods=()), "methods"), (dict(size=2), "size"),
                                          (dict(methods=(te.ColourShapeMethod("x", 0.0, 1.0, 0.0, -1),)),
                                           "anneal_steps"),
                                          (dict(methods=(te.ColourShapeMethod("x", 0.0, 1.0, 0.0, 0, 0.0),)),
                                           "loss_scale"),
                                          (dict(noise_std=-0.1), "noise_std"), (dict(record_every=0), "record_every")])
def test_train_coloured_shapes_validate(fields, name):
    with pytest.raises(ValueError, match=name):
        te.train_coloured_shapes(gs.ColouredShapesConfig(n_steps=1, **fields), device="cpu")


def test_moons_margins_shapes_signs_and_validation():
    config = gs.MoonsMarginsConfig(n_steps=40, hidden=8, cap=1.0, resolution=0.05)
    out = te.moons_margins(config, (0,), device="cpu")
    assert out.distance.shape == out.vertical.shape == out.horizontal.shape == (2, 1, 300)
    assert [run.label for run in out.runs] == ["ERM", "SD"]
    for field in (out.distance, out.vertical, out.horizontal):
        assert np.all(np.abs(field) <= out.cap + 1e-12)
    # the distance to the boundary is at most the distance along either axis
    assert np.all(np.abs(out.distance) <= np.minimum(np.abs(out.vertical), np.abs(out.horizontal)) + 0.1)
    again = te.moons_margins(config, (0,), device="cpu")
    np.testing.assert_array_equal(out.distance, again.distance)
    with pytest.raises(ValueError, match="resolution"):
        te.moons_margins(config._replace(resolution=0.5), (0,))
    with pytest.raises(ValueError, match="output_penalty"):
        te.moons_margins(config._replace(output_penalty=0.0), (0,))
    with pytest.raises(TypeError, match="config"):
        te.moons_margins({"n_steps": 3}, (0,))


def test_the_moons_turn_by_their_rotation():
    """rotation turns the points about the origin (0: the data as before, bitwise; 90°: (x_h, x_v) -> (-x_v, x_h)),
    and the regulariser grid trains on the turned data."""
    plain = gs.two_moons(50, seed=3)
    assert np.array_equal(gs.two_moons(50, rotation=0.0, seed=3).X, plain.X)
    turned = gs.two_moons(50, rotation=90.0, seed=3)
    np.testing.assert_allclose(turned.X, np.column_stack([-plain.X[:, 1], plain.X[:, 0]]), atol=1e-15)
    assert np.array_equal(turned.y, plain.y)
    with pytest.raises(ValueError, match="rotation"):
        gs.two_moons(10, rotation=400.0)
    config = gs.MoonsRegularisersConfig(regularisers=te.MOONS_REGULARISERS[:1], n_steps=2, hidden=4, grid_size=10)
    a = te.moons_regularisers(config, (0,))
    b = te.moons_regularisers(config._replace(rotation=45.0), (0,))
    assert not np.allclose(a.data[0].X, b.data[0].X)
    np.testing.assert_allclose(np.linalg.norm(a.data[0].X, axis=1), np.linalg.norm(b.data[0].X, axis=1), rtol=1e-12)
