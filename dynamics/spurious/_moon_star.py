"""A moon-star-like image task with a spurious quadrant (after the moon-star data set of Geirhos et al. 2020 that
Barsbey et al. 2025 train on: Fig. 15 and Table 1, Moon-Star row), and the configuration of its learning-rate
experiment.

The paper gives the task (a moon-shaped against a star-shaped object, the spurious feature the image quadrant that
holds it, ρ_train = 0.1 bias-conflicting, an unbiased test set) but no image size and no rendering details, so the
images here are this project's own: "moon-star-like", not the authors' data set. A star is a filled five-pointed
polygon (inner radius 0.4 of the outer), a moon a crescent (a disc of radius R minus a disc of radius 0.9R whose
centre lies 0.45R away); the two have nearly the same mean area (1.176R² and 1.167R²), so that the amount of ink is
no cue to the class. Each object has a random size and rotation and sits in its quadrant with a small jitter, never
crossing into another quadrant. The trainer of the experiment is
:func:`dynamics.spurious.torch_moon_star.moon_star_lr_runs` (optional: it imports torch).
"""
import math
from typing import Optional, Union

import numpy as np

from dynamics.numerics import require_in_range, require_integer, rng_from
from ._results import MoonStarConfig, SpuriousData
from ._docs import fill_doc

__all__ = ["MOON_STAR_SEED_STREAMS", "MoonStarConfig", "make_moon_star_like"]

MOON_STAR_SEED_STREAMS = ("train_data", "test_data", "init", "order")
"""The streams of one seed of the moon-star-like experiment (:func:`dynamics.numerics.seed_streams`): the training
images, the test images, the initial weights and the minibatch order. Runs that share a seed share all four, whatever
their learning rate."""

#: Star: inner over outer radius of the five-pointed polygon.
STAR_INNER_RATIO = 0.4
#: Moon: radius of the disc cut out, and the distance of its centre from the outer disc's, over the outer radius.
MOON_BITE_RADIUS, MOON_BITE_OFFSET = 0.9, 0.45
#: The object's outer radius is drawn uniformly in this range, as a fraction of the quadrant's side.
RADIUS_RANGE = (0.25, 0.4)
#: The object's centre moves from its quadrant's centre by at most this fraction of the quadrant's side along each
#: axis: with the largest radius the object reaches the quadrant's edge and no further.
JITTER = 0.1
_SUBSAMPLES = 2  # 2 × 2 sample points per pixel (anti-aliasing)
_CHUNK_POINTS = 2_000_000  # sample points rasterised at once (bounds the memory of the vectorised tests)


def _sample_points(image_size):
    """The x (column) and y (row) coordinates, in the unit square, of the 2 × 2 sample points of every pixel, each an
    array (image_size·2,) along its axis."""
    fine = image_size * _SUBSAMPLES
    return (np.arange(fine) + 0.5) / fine


def _star_mask(dx, dy, radius, rotation):
    """Inside a filled five-pointed star of outer radius ``radius`` (inner 0.4·radius) rotated by ``rotation``:
    dx, dy (m, P, P) offsets from the centre; radius, rotation (m, 1, 1)."""
    cos, sin = np.cos(rotation) / radius, np.sin(rotation) / radius
    px, py = dx * cos + dy * sin, dy * cos - dx * sin  # the point in the star's frame, in units of the radius
    step = math.pi / 5  # ten vertices, alternating outer and inner, vertex k at angle k·step (k even: a point)
    sector = np.minimum((np.mod(np.arctan2(py, px), 2 * math.pi) // step).astype(np.int64), 9)
    ax, ay, ex, ey = (table[sector] for table in _STAR_EDGES)
    # the star is star-shaped about its centre: inside iff on the centre's side of the edge of the point's sector,
    # which (the edges running anticlockwise) is the edge's left
    return ex * (py - ay) - ey * (px - ax) > 0


def _star_edges():
    """Per sector k of the star, its first vertex (x, y) and the edge vector to the next vertex, radius 1."""
    k = np.arange(11)
    r = np.where(k % 2 == 0, 1.0, STAR_INNER_RATIO)
    vx, vy = r * np.cos(k * math.pi / 5), r * np.sin(k * math.pi / 5)
    return vx[:10], vy[:10], np.diff(vx), np.diff(vy)


_STAR_EDGES = _star_edges()


def _moon_mask(dx, dy, radius, rotation):
    """Inside a crescent: the disc of radius ``radius`` minus the disc of radius 0.9·radius centred 0.45·radius away
    in the direction ``rotation``."""
    ox = MOON_BITE_OFFSET * radius * np.cos(rotation)
    oy = MOON_BITE_OFFSET * radius * np.sin(rotation)
    return (dx ** 2 + dy ** 2 < radius ** 2) & ((dx - ox) ** 2 + (dy - oy) ** 2 >= (MOON_BITE_RADIUS * radius) ** 2)


@fill_doc
def make_moon_star_like(n_samples: int, bc_rate: float = 0.1, image_size: int = 32, *,
                        seed: Optional[Union[int, np.random.Generator]] = None) -> SpuriousData:
    """A moon-star-like image task with a spurious quadrant (Barsbey et al. 2025, Fig. 15; Geirhos et al. 2020): a
    moon or a star, drawn in one quadrant of a square image, the quadrant predicting the class except on a fraction
    ``bc_rate`` of the images.

    1. y ~ Bernoulli(1/2): 1 a star, 0 a moon; 2. b = y, flipped to 1 − y with probability ρ = ``bc_rate``
    independently per image (the number of bias-conflicting images is Binomial(n, ρ)); 3. the quadrant: b = 1 puts
    the object top-right or bottom-left, b = 0 top-left or bottom-right, each of the pair with probability 1/2;
    4. the object: outer radius R ~ U(0.25, 0.4) of the quadrant's side, rotation uniform, centre at the quadrant's
    centre moved by U(−0.1, 0.1) of the quadrant's side along each axis (so it never crosses into another quadrant);
    a star is a filled five-pointed polygon with inner radius 0.4R, a moon the disc of radius R minus the disc of
    radius 0.9R centred 0.45R away (the two have nearly equal areas, 1.176R² and 1.167R²). 5. Each pixel is the
    fraction of its 2 × 2 sample points inside the object (anti-aliased; background 0, object 1). The paper gives no
    image size and no rendering: these are this project's choices, so the task is "moon-star-like", not the
    authors' data set.

    Parameters
    ----------
    n_samples : int
        Number of images, in [1, 10^7], with n_samples · image_size² <= 10^9.
    bc_rate : float
        ρ ∈ [0, 1], the probability that an image's quadrant contradicts its class (the paper: 0.1 for training, 0.5
        for the unbiased test set).
    image_size : int
        Side S of the image in pixels, even, in [8, 256].
    %(seed)s

    Returns
    -------
    SpuriousData
        x of shape (n_samples, S²), float64 in [0, 1] (the image row by row, top row first); y (1 star, 0 moon), b
        (1 for the quadrants top-right and bottom-left), group 2y + b and is_bias_conflicting (y != b).

    Examples
    --------
    >>> data = make_moon_star_like(200, bc_rate=0.1, image_size=16, seed=0)
    >>> data.x.shape, float(data.x.min()), float(data.x.max())
    ((200, 256), 0.0, 1.0)
    >>> images = data.x.reshape(-1, 2, 8, 2, 8)  # (sample, row half, row, column half, column)
    >>> mass = images.sum(axis=(2, 4))          # ink per quadrant
    >>> bool(np.all(mass[data.b == 1][:, [0, 1], [0, 1]] == 0))  # b = 1: nothing top-left or bottom-right
    True
    >>> int(data.is_bias_conflicting.sum()), int((data.y == 1).sum())
    (22, 111)
    """
    n = require_integer("n_samples", n_samples, 1, 10**7)
    rho = require_in_range("bc_rate", bc_rate, 0.0, 1.0)
    size = require_integer("image_size", image_size, 8, 256)
    if size % 2:
        raise ValueError(f"image_size must be even (four equal quadrants), got {size}")
    if n * size * size > 10**9:
        raise ValueError(f"n_samples · image_size² must be at most 10^9 (8 GB of float64), got n_samples = {n}, "
                         f"image_size = {size}")
    rng = rng_from(seed)
    y = rng.integers(0, 2, size=n)
    conflicting = rng.random(n) < rho
    b = np.where(conflicting, 1 - y, y)
    row_half = rng.integers(0, 2, size=n)
    col_half = row_half ^ b  # b = 1: top-right or bottom-left; b = 0: top-left or bottom-right
    quadrant = 0.5
    radius = rng.uniform(*RADIUS_RANGE, size=n) * quadrant
    rotation = rng.uniform(0.0, 2 * math.pi, size=n)
    jitter = rng.uniform(-JITTER, JITTER, size=(n, 2)) * quadrant
    cx = (col_half + 0.5) * quadrant + jitter[:, 0]
    cy = (row_half + 0.5) * quadrant + jitter[:, 1]
    points = _sample_points(size)
    fine = points.size
    x = np.empty((n, size * size))
    chunk = max(1, _CHUNK_POINTS // (fine * fine))
    for start in range(0, n, chunk):
        rows = slice(start, min(n, start + chunk))
        col = lambda v: v[rows, None, None]  # noqa: E731
        dx = points[None, None, :] - col(cx)
        dy = points[None, :, None] - col(cy)
        m = dx.shape[0]
        inside = np.empty((m, fine, fine), dtype=bool)
        stars = y[rows] == 1
        for shape, which in ((_star_mask, stars), (_moon_mask, ~stars)):
            if which.any():
                inside[which] = shape(dx[which], dy[which], col(radius)[which], col(rotation)[which])
        x[rows] = inside.reshape(m, size, _SUBSAMPLES, size, _SUBSAMPLES).mean(axis=(2, 4)).reshape(m, -1)
    y = y.astype(np.int64)
    b = b.astype(np.int64)
    return SpuriousData(x, y, b, 2 * y + b, y != b)
