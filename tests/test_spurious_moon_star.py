"""The moon-star-like task (dynamics.spurious.make_moon_star_like) and its learning-rate trainer
(dynamics.spurious.torch_moon_star, skipped without torch): group proportions within binomial tolerances, the object
in its quadrant pair and nowhere else, the rasteriser against matplotlib's point-in-polygon test, determinism by seed,
argument errors; the trainer's shapes, the stacked model against each member alone, and a run that fits stops."""
import math

import numpy as np
import pytest

from dynamics import spurious as spur
from dynamics.spurious import _moon_star as ms


def _quadrant_mass(data, size):
    """Ink per quadrant, (n, row half, column half)."""
    half = size // 2
    return data.x.reshape(-1, 2, half, 2, half).sum(axis=(2, 4))


def test_group_proportions_are_binomial():
    """ρ = 0.1: the BC count is Binomial(n, ρ) (one Bernoulli draw per image); the class, and the quadrant within its
    pair, are fair coins. Each fraction lies within 4 binomial standard deviations (a false alarm once in 10^4 seeds;
    the seed is fixed, so the test is deterministic)."""
    n, rho, size = 20000, 0.1, 8
    data = spur.make_moon_star_like(n, rho, size, seed=1)
    within = lambda fraction, p: abs(fraction - p) <= 4 * math.sqrt(p * (1 - p) / n)  # noqa: E731
    assert within(data.is_bias_conflicting.mean(), rho)
    assert within(data.y.mean(), 0.5)
    assert np.array_equal(data.group, 2 * data.y + data.b)
    assert np.array_equal(data.is_bias_conflicting, data.y != data.b)
    mass = _quadrant_mass(data, size)
    top = mass[:, 0].sum(axis=1) > 0  # the object's row half
    assert within(top.mean(), 0.5)
    # all four groups present in their expected shares: BA groups (1 − ρ)/2 each, BC groups ρ/2 each
    shares = np.bincount(data.group, minlength=4) / n
    for g, p in enumerate(((1 - rho) / 2, rho / 2, rho / 2, (1 - rho) / 2)):
        assert within(shares[g], p), (g, shares[g])


@pytest.mark.parametrize("size", [8, 16, 32])
def test_the_object_lies_in_its_quadrant_pair_and_nowhere_else(size):
    """b = 1: top-right or bottom-left; b = 0: top-left or bottom-right. Every image has ink in exactly one quadrant,
    and that quadrant belongs to the pair of its b."""
    data = spur.make_moon_star_like(400, 0.3, size, seed=2)
    mass = _quadrant_mass(data, size)
    lit = mass > 0
    assert np.all(lit.sum(axis=(1, 2)) == 1)
    row_half, col_half = np.nonzero(lit)[1:]
    assert np.array_equal(row_half ^ col_half, data.b)  # b = 1 ↔ (top, right) or (bottom, left)
    assert data.x.min() == 0.0 and data.x.max() == 1.0
    assert np.all(np.isin(np.round(data.x * 4), np.arange(5)))  # 2 × 2 sample points per pixel: quarters


def test_star_raster_agrees_with_a_point_in_polygon_test():
    """The vectorised star test against matplotlib's Path.contains_points on the same polygon (ten vertices at radii
    1 and 0.4 alternating); the crescent is the disc minus the shifted disc."""
    from matplotlib.path import Path

    rng = np.random.default_rng(3)
    radius, rotation = 0.15, 1.0
    k = np.arange(10)
    r = np.where(k % 2 == 0, 1.0, ms.STAR_INNER_RATIO) * radius
    polygon = Path(np.column_stack([r * np.cos(k * np.pi / 5 + rotation), r * np.sin(k * np.pi / 5 + rotation)]))
    points = rng.uniform(-0.2, 0.2, (20000, 2))
    shape = lambda v: np.full((1, 1, 1), v)  # noqa: E731
    ours = ms._star_mask(points[None, None, :, 0], points[None, None, :, 1], shape(radius), shape(rotation))[0, 0]
    assert np.array_equal(ours, polygon.contains_points(points))
    moon = ms._moon_mask(points[None, None, :, 0], points[None, None, :, 1], shape(radius), shape(rotation))[0, 0]
    d2 = (points ** 2).sum(axis=1)
    bite = (points - 0.45 * radius * np.array([np.cos(rotation), np.sin(rotation)])) ** 2
    assert np.array_equal(moon, (d2 < radius ** 2) & (bite.sum(axis=1) >= (0.9 * radius) ** 2))


def test_stars_and_moons_carry_about_the_same_ink():
    """The crescent's area (1.167R²) is within 1% of the star's (2 sin 36° R² = 1.176R²), so the amount of ink
    is no cue to the class: the mean ink per image differs by less than 5% between the classes."""
    data = spur.make_moon_star_like(4000, 0.5, 32, seed=4)
    ink = data.x.sum(axis=1)
    assert abs(ink[data.y == 1].mean() / ink[data.y == 0].mean() - 1) < 0.05


def test_same_seed_same_images():
    a = spur.make_moon_star_like(50, 0.2, 16, seed=7)
    b = spur.make_moon_star_like(50, 0.2, 16, seed=7)
    c = spur.make_moon_star_like(50, 0.2, 16, seed=8)
    for field in spur.SpuriousData._fields:
        assert np.array_equal(getattr(a, field), getattr(b, field))
    assert not np.array_equal(a.x, c.x)
    rng = np.random.default_rng(7)
    first, second = spur.make_moon_star_like(5, seed=rng), spur.make_moon_star_like(5, seed=rng)
    assert not np.array_equal(first.x, second.x)  # a Generator's stream continues
    assert a.x.dtype == np.float64 and a.y.dtype == a.b.dtype == a.group.dtype == np.int64


@pytest.mark.parametrize("kwargs, name", [
    (dict(n_samples=0), "n_samples"), (dict(n_samples=2.5), "n_samples"), (dict(n_samples=10, bc_rate=1.5), "bc_rate"),
    (dict(n_samples=10, bc_rate=math.nan), "bc_rate"), (dict(n_samples=10, image_size=6), "image_size"),
    (dict(n_samples=10, image_size=15), "image_size"), (dict(n_samples=10, image_size=512), "image_size"),
    (dict(n_samples=10**7, image_size=256), "n_samples"),
])
def test_bad_arguments_raise_value_errors_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        spur.make_moon_star_like(**kwargs)


def test_configs():
    ci, record = spur.MoonStarConfig.ci(), spur.MoonStarConfig.record()
    assert ci == spur.MoonStarConfig()
    assert (record.n_train, record.n_test, record.image_size, record.width, record.batch_size, record.bc_rate) == \
        (10000, 5000, 32, 200, 100, 0.1)
    assert record.epoch_cap > ci.epoch_cap


# --------------------------------------------------------------------------------------------------------- trainer
@pytest.fixture
def no_disk_cache(monkeypatch):
    """The trainer's results computed afresh (not read from an earlier run's disk cache)."""
    monkeypatch.setenv("DYNAMICS_CACHE", "0")


TINY = spur.MoonStarConfig(n_train=200, n_test=120, image_size=8, width=24, epoch_cap=4)


def test_trainer_shapes_and_ranges(no_disk_cache):
    tm = pytest.importorskip("dynamics.spurious.torch_moon_star")
    runs = tm.moon_star_lr_runs(TINY, [0, 3, 5], learning_rates=(0.01, 0.2, 0.75))
    assert runs.learning_rates.tolist() == [0.01, 0.2, 0.75] and runs.seeds == (0, 3, 5)
    for field in ("unbiased_accuracy", "ba_accuracy", "bc_accuracy", "train_accuracy", "class_selectivity"):
        values = getattr(runs, field)
        assert values.shape == (3, 3) and values.dtype == np.float64, field
        assert np.all((values >= 0) & (values <= 1)), field
    assert runs.epochs_to_fit.dtype == np.int64 and runs.fitted.dtype == bool
    assert np.all((runs.epochs_to_fit >= 1) & (runs.epochs_to_fit <= TINY.epoch_cap))
    assert np.all(runs.train_accuracy[runs.fitted] == 1.0)
    # the test set is unbiased (ρ = 0.5): the unbiased accuracy lies between the BA and the BC accuracies
    low, high = np.minimum(runs.ba_accuracy, runs.bc_accuracy), np.maximum(runs.ba_accuracy, runs.bc_accuracy)
    assert np.all((runs.unbiased_accuracy >= low - 1e-12) & (runs.unbiased_accuracy <= high + 1e-12))


def test_stacked_training_equals_each_member_alone(no_disk_cache):
    """In float64 the stacked model gives each member the path it follows alone, members stopping at different
    epochs (the learning rates, and the seeds' data, differ)."""
    tm = pytest.importorskip("dynamics.spurious.torch_moon_star")
    config = TINY._replace(image_size=16, epoch_cap=200, dtype="float64")
    stacked = tm.moon_star_lr_runs(config, [1, 2], learning_rates=(0.3, 0.75))
    alone = tm.moon_star_lr_runs(config, [1, 2], learning_rates=(0.3, 0.75), batched=False)
    assert len(set(stacked.epochs_to_fit.ravel().tolist())) > 1
    assert np.array_equal(stacked.epochs_to_fit, alone.epochs_to_fit)
    assert np.array_equal(stacked.fitted, alone.fitted)
    for field in ("unbiased_accuracy", "ba_accuracy", "bc_accuracy", "train_accuracy", "class_selectivity"):
        assert np.allclose(getattr(stacked, field), getattr(alone, field), rtol=1e-9, atol=1e-12), field


def test_a_network_that_fits_stops(no_disk_cache):
    """At η = 0.75 the tiny task (200 images of 16 × 16 pixels) is fitted within a few tens of epochs: the run stops
    there, far below the cap, at 100% training accuracy; the same seed at a tiny learning rate runs to the cap
    without fitting."""
    tm = pytest.importorskip("dynamics.spurious.torch_moon_star")
    config = TINY._replace(image_size=16, epoch_cap=200)
    runs = tm.moon_star_lr_runs(config, [0], learning_rates=(1e-4, 0.75))
    assert runs.fitted[1, 0] and runs.epochs_to_fit[1, 0] < 50 and runs.train_accuracy[1, 0] == 1.0
    assert not runs.fitted[0, 0] and runs.epochs_to_fit[0, 0] == config.epoch_cap


@pytest.mark.parametrize("field, value", [("width", 0), ("image_size", 9), ("epoch_cap", 0), ("bc_rate", -0.1),
                                          ("dtype", "float16"), ("n_train", 1), ("batch_size", 0)])
def test_trainer_names_a_bad_field(field, value):
    tm = pytest.importorskip("dynamics.spurious.torch_moon_star")
    with pytest.raises(ValueError, match=field):
        tm.moon_star_lr_runs(TINY._replace(**{field: value}), [0])


def test_trainer_checks_its_other_arguments():
    tm = pytest.importorskip("dynamics.spurious.torch_moon_star")
    with pytest.raises(ValueError, match="learning_rates"):
        tm.moon_star_lr_runs(TINY, [0], learning_rates=(0.1, -1.0))
    with pytest.raises(ValueError, match="seeds"):
        tm.moon_star_lr_runs(TINY, [-1])
    with pytest.raises(ValueError, match="seeds"):
        tm.moon_star_lr_runs(TINY, [])
    with pytest.raises(TypeError, match="config"):
        tm.moon_star_lr_runs(spur.ParityTrainingConfig(), [0])
