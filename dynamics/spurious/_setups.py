"""The reusable set-ups of the spurious-correlation theory: seeded data generators, the sources' named
configurations and the experiment driver that claims, figures, notebooks and cross-checks share.

* the parity spurious-correlation task of Barsbey et al. 2025 (Fig. 3 and supp. C, after Qiu et al.'s
  ``SpuriousBooleanSampling``): y = Π x_c, b = y except with probability ρ, x_s uniform with Π x_s = b, noise bits;
* the Chapter 8 linear toy of Idrissi et al. 2022 (Pezeshki (thesis) §8.4, Eq. 8.4.1, Ch. 8 Fig. 1), rebuilt from
  the thesis's text and the authors' public code (``Toy.make_dataset``): x_core = y(1 + σZ̃₀),
  x_spu = s·y(1 + σZ̃₁) with Z̃ the sample-centred Gaussian blob, exactly ⌊(1 − ρ_spu)n + 1e-9⌋ flipped spurious
  signs, N(0, 1) noise in training and zero noise in validation/test; the closed form P(y x_core < 0) = Φ(−1/σ);
* the toy's experiment of the thesis's Ch. 8 Fig. 1 at this project's CPU size (n = 400, d = 600), every balancing
  method on the same data per seed (:func:`dynamics.spurious.balancing_toy_runs`);
* the group counts of the thesis's Ch. 8 Table 1 as data, with the Waterbirds row and column labels corrected (an
  erratum);
* the two margin-gradient fixtures of Proposition 2 of Barsbey et al. 2025: the bias-decomposable fixture and the
  linear two-block model (the negative control; see the theory note, docs/theory/spurious.md).
"""
import math
from types import MappingProxyType
from typing import Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (format_value, normal_sf, require_array_in_range, require_bool, require_choice,
                               require_in_range, require_integer, require_of_type, require_positive, rng_from,
                               seed_streams)
from ._results import BalancingToyConfig, BalancingToyRuns, GroupCountTable, MarginGradients, SpuriousData, ToySplits
from ._toy_training import METHODS, train_balancing_toy
from ._docs import fill_doc

BALANCING_TOY_SIZE = (BalancingToyConfig.ci().n_samples, BalancingToyConfig.ci().n_noise)
"""(n_samples, n_noise) of the linear-toy experiment: this project's CPU setting of the thesis's Ch. 8 Fig. 1 (the
authors' code uses n = 1000, d = 1200)."""


PARITY_SEED_STREAMS = ("train_data", "test_data", "init", "order", "subset")
"""The streams of one seed of a parity network (:func:`dynamics.numerics.seed_streams`): the training set, the test
set, the initial weights, the minibatch order and the test inputs whose activations and attributions are measured.
Runs that share a seed share all five, whatever their learning rate or other settings."""

BALANCING_TOY_SEED_STREAMS = ("data", "train")
"""The streams of one seed of the linear-toy experiment (:func:`dynamics.numerics.seed_streams`): the three splits,
and the integer seed of the training (initialisation and index orders)."""


def _pm_ones(rng, shape):
    return (2 * rng.integers(0, 2, size=shape) - 1).astype(np.float64)


@fill_doc
def make_parity_task(n_samples: int, n_core: int = 6, n_spurious: int = 2, n_noise: int = 12, bc_rate: float = 0.1,
                     *, seed: Optional[Union[int, np.random.Generator]] = None) -> SpuriousData:
    """The parity spurious-correlation task (Barsbey et al. 2025, Fig. 3 and supp. C, after Qiu et al. 2024), in ±1
    coding.

    1. x_c ~ Unif{±1}^C and y = Π x_c; 2. b = y, flipped to −y with probability ρ independently per sample;
    3. x_s uniform on {Π x_s = b} (S uniform bits, bit 0 flipped if the parity is wrong); 4. noise bits
    x_n ~ Unif{±1}^N; x = [x_c, x_s, x_n]. Labels y₀₁ = (y + 1)/2, b₀₁ = (b + 1)/2, group 2y₀₁ + b₀₁.
    C = 6, S = 2, N = 12 are this project's choices: the paper gives no values (see the theory note).

    Parameters
    ----------
    n_samples : int
        Number of samples (>= 1).
    n_core, n_spurious : int
        C >= 1 core and S >= 1 spurious bits (C > S makes the spurious feature simpler).
    n_noise : int
        N >= 0 noise bits.
    bc_rate : float
        ρ ∈ [0, 1], the bias-conflicting rate (0.1 in training, 0.5 for the unbiased test set).
    %(seed)s

    Returns
    -------
    SpuriousData
        x of shape (n_samples, C + S + N) in {±1}.

    Examples
    --------
    >>> data = make_parity_task(1000, seed=0)
    >>> data.x.shape, bool(np.all(np.prod(data.x[:, 6:8], axis=1) == 2 * data.b - 1))
    ((1000, 20), True)
    """
    n = require_integer("n_samples", n_samples, 1, 10**8)  # beyond that, memory runs out
    n_core = require_integer("n_core", n_core, 1, 10**4)
    n_spurious = require_integer("n_spurious", n_spurious, 1, 10**4)
    n_noise = require_integer("n_noise", n_noise, 0, 10**6)
    rho = require_in_range("bc_rate", bc_rate, 0.0, 1.0)
    rng = rng_from(seed)
    x_core = _pm_ones(rng, (n, n_core))
    y = np.prod(x_core, axis=1)
    conflicting = rng.random(n) < rho
    b = np.where(conflicting, -y, y)
    x_spurious = _pm_ones(rng, (n, n_spurious))
    x_spurious[:, 0] *= np.prod(x_spurious, axis=1) * b  # flips bit 0 where the parity is wrong
    x_noise = _pm_ones(rng, (n, n_noise))
    y01 = ((y + 1) // 2).astype(np.int64)
    b01 = ((b + 1) // 2).astype(np.int64)
    return SpuriousData(np.hstack([x_core, x_spurious, x_noise]), y01, b01, 2 * y01 + b01, y01 != b01)


def _flip_count(n, rho):
    # ⌊(1 − ρ)n + 1e-9⌋: 200 for n = 1000 and ρ = 0.8, where the authors' int((1 − 0.8)·1000) gives 199.
    return int(math.floor((1.0 - rho) * n + 1e-9))


@fill_doc
def make_balancing_toy(n_samples: int, n_noise: int, split: str = "train", rho_spurious: float = 0.8,
                       rho_core: float = 1.0, feature_std: float = 0.15, *,
                       seed: Optional[Union[int, np.random.Generator]] = None, sign: str = "thesis") -> SpuriousData:
    """The Chapter 8 linear toy of Pezeshki (thesis) §8.4 (Eq. 8.4.1, Ch. 8 Fig. 1), with the semantics of the
    authors' code (``Toy.make_dataset``).

    y = −1 for the first n/2 samples and +1 for the rest; Z ~ N(0, I₂) centred on its sample mean;
    x_core = y(1 + σZ̃₀) and x_spu = s·y(1 + σZ̃₁), with s = −1 on a uniformly random subset of exactly
    ⌊(1 − ρ_spu)n + 1e-9⌋ samples (not stratified by class); ⌊(1 − ρ_core)n + 1e-9⌋ core signs are flipped
    likewise. A sample flipped in either feature is minority (b = 0). Noise N(0, 1)^d (std 1, as in the authors' code;
    the thesis prints σ²I_d) in training, zero in validation and test. x = [x_spu, x_core, noise] (unscaled:
    the model multiplies by :func:`dynamics.spurious.toy_feature_scales`).

    Parameters
    ----------
    n_samples : int
        n, even, >= 2.
    n_noise : int
        d >= 0 noise features.
    split : {"train", "val", "test"}
        "val" and "test" have a zero noise block.
    rho_spurious, rho_core : float
        Agreement rates in [0, 1] of the spurious and core signs with the label (0.8 and 1.0).
    feature_std : float
        σ > 0 of the two blob features (0.15).
    %(seed)s
    sign : {"thesis", "code"}
        "code" negates both features (the code's blob has mean −y; equivalent under w ↦ −w).

    Returns
    -------
    SpuriousData
        x of shape (n_samples, 2 + n_noise); b = 1 majority, 0 minority; group 2y₀₁ + b.

    Examples
    --------
    >>> toy = make_balancing_toy(400, 600, seed=0)
    >>> toy.x.shape, int(np.sum(toy.b == 0)), bool(np.all(toy.x[:, 1] * (2 * toy.y - 1) > 0))
    ((400, 602), 80, True)
    """
    n = require_integer("n_samples", n_samples, 2, 10**8)  # beyond that, memory runs out
    if n % 2:
        raise ValueError(f"n_samples must be even (n/2 samples per class), got {n}")
    n_noise = require_integer("n_noise", n_noise, 0, 10**6)
    require_choice("split", split, ("train", "val", "test"))
    rho_spurious = require_in_range("rho_spurious", rho_spurious, 0.0, 1.0)
    rho_core = require_in_range("rho_core", rho_core, 0.0, 1.0)
    sigma = require_positive("feature_std", feature_std)
    require_choice("sign", sign, ("thesis", "code"))
    rng = rng_from(seed)
    y = np.repeat([-1.0, 1.0], n // 2)
    z = rng.standard_normal((n, 2))
    z -= z.mean(axis=0)
    flip_spurious = np.zeros(n, dtype=bool)
    flip_spurious[rng.permutation(n)[:_flip_count(n, rho_spurious)]] = True
    flip_core = np.zeros(n, dtype=bool)
    flip_core[rng.permutation(n)[:_flip_count(n, rho_core)]] = True
    x_core = np.where(flip_core, -1.0, 1.0) * y * (1.0 + sigma * z[:, 0])
    x_spurious = np.where(flip_spurious, -1.0, 1.0) * y * (1.0 + sigma * z[:, 1])
    noise = rng.standard_normal((n, n_noise)) if split == "train" else np.zeros((n, n_noise))
    features = np.column_stack([x_spurious, x_core])
    if sign == "code":
        features = -features
    x = np.hstack([features, noise])
    y01 = ((y + 1) // 2).astype(np.int64)
    b = (~(flip_spurious | flip_core)).astype(np.int64)
    return SpuriousData(x, y01, b, 2 * y01 + b, b == 0)


def make_balancing_toy_splits(n_samples: int, n_noise: int, *, seed: Optional[Union[int, np.random.Generator]] = None,
                              **options: Union[float, str]) -> ToySplits:
    """Training, validation and test sets of the linear toy of Pezeshki (thesis) §8.4, from independent streams of
    one seed.

    Validation and test are fresh draws of the same generator (same n and ρ_spu, zero noise), as in the authors'
    code.

    Parameters
    ----------
    n_samples, n_noise : int
        As in :func:`dynamics.spurious.make_balancing_toy` (every split has n_samples samples).
    seed : None, int or numpy.random.Generator
        Spawns three independent streams.
    **options
        ``rho_spurious``, ``rho_core``, ``feature_std``, ``sign`` of :func:`dynamics.spurious.make_balancing_toy`.

    Returns
    -------
    ToySplits

    Examples
    --------
    >>> splits = make_balancing_toy_splits(400, 600, seed=0)
    >>> splits.train.x.shape, float(np.abs(splits.test.x[:, 2:]).max())
    ((400, 602), 0.0)
    """
    rng = rng_from(seed)
    # independent child streams (SeedSequence.spawn: Generator.spawn needs numpy >= 1.25)
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(rng.integers(2**63, size=2)).spawn(3)]
    return ToySplits(*(make_balancing_toy(n_samples, n_noise, split, seed=stream, **options)
                       for split, stream in zip(("train", "val", "test"), streams)))


def balancing_toy_runs(seeds: Sequence[int], methods: Sequence[str] = ("erm", "subg", "rwg"),
                       config: BalancingToyConfig = BalancingToyConfig(), *,
                       return_orders: bool = False) -> BalancingToyRuns:
    """The linear-toy experiment of Pezeshki (thesis) §8.4 (Ch. 8 Fig. 1), at this project's CPU size: every
    balancing method on the same data, seed by seed.

    Each seed s seeds one ``numpy.random.SeedSequence(s)`` that spawns two streams: the first draws the training,
    validation and test sets (:func:`dynamics.spurious.make_balancing_toy_splits`), the second one integer
    training seed that every method shares (:func:`dynamics.spurious.train_balancing_toy`: initialisation,
    subsampling, epoch orders).

    Parameters
    ----------
    seeds : sequence of int
        One seed >= 0 per data set (at least one).
    methods : sequence of str
        Methods of :func:`dynamics.spurious.train_balancing_toy` (default ERM, SUBG and RWG, the three of the
        thesis's figure).
    config : BalancingToyConfig
        The toy's size (``n_samples`` = n, even, and ``n_noise`` = d) and the training settings of
        :func:`dynamics.spurious.train_balancing_toy` (default: this project's CPU setting, n = 400, d = 600, lr
        1e-5, momentum 0.9, batch 100, 500 epochs).
    return_orders : bool
        Keep every epoch's index order in the runs (for a replay in torch).

    Returns
    -------
    BalancingToyRuns
        The seeds, each seed's splits and, per method, one :class:`dynamics.spurious.ToyRun` per seed.

    Examples
    --------
    >>> from dynamics.spurious import BalancingToyConfig
    >>> config = BalancingToyConfig(n_samples=40, n_noise=6, n_epochs=20, learning_rate=1e-3, batch_size=10)
    >>> runs = balancing_toy_runs([0, 1], ("erm", "subg"), config)
    >>> runs.test_worst_group_curves("subg").shape, len(runs.splits), len(runs.runs["erm"])
    ((2, 20), 2, 2)
    >>> runs.test_worst_group_curves("erm")[:, -1].tolist(), runs.test_worst_group_curves("subg")[:, -1].tolist()
    ([0.0, 0.0], [1.0, 1.0])
    """
    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__iter__"):
        raise TypeError(f"seeds must be a sequence of integers, got {seeds!r}")
    seeds = tuple(require_integer("seeds", s, 0) for s in seeds)
    if isinstance(methods, (str, bytes)) or not hasattr(methods, "__iter__"):
        raise TypeError(f"methods must be a sequence of method names, got {methods!r}")
    methods = tuple(require_choice("methods", m, METHODS) for m in methods)
    if not seeds or not methods:
        raise ValueError(f"seeds and methods must each hold at least one value, got {len(seeds)} seeds and "
                         f"{len(methods)} methods")
    require_of_type("config", config, BalancingToyConfig)
    return_orders = require_bool("return_orders", return_orders)
    splits, runs = [], {m: [] for m in methods}
    for seed in seeds:
        streams = seed_streams(seed, BALANCING_TOY_SEED_STREAMS)
        data = make_balancing_toy_splits(config.n_samples, config.n_noise, seed=streams.data)
        train_seed = int(streams.train.integers(2**63))
        splits.append(data)
        for m in methods:
            runs[m].append(train_balancing_toy(*data, m, config, seed=train_seed, return_orders=return_orders))
    return BalancingToyRuns(seeds, tuple(splits), {m: tuple(r) for m, r in runs.items()})


def core_error_probability(feature_std: ArrayLike) -> Union[float, np.ndarray]:
    """P(y·x_core < 0) = Φ(−1/σ), the error of the core feature alone (the closed form of Pezeshki (thesis)
    §8.4).

    Parameters
    ----------
    feature_std : float or array_like
        σ > 0.

    Returns
    -------
    float or ndarray
        1.3084e-11 for σ = 0.15 ("10⁻¹¹" in the thesis).

    Examples
    --------
    >>> f"{core_error_probability(0.15):.4e}"
    '1.3084e-11'
    """
    sigma = require_array_in_range("feature_std", feature_std, 0.0, np.inf, low_open=True)
    return normal_sf(1.0 / sigma)


def _table(classes, attributes, counts):
    arr = np.array(counts, dtype=np.int64)
    arr.setflags(write=False)
    return GroupCountTable(tuple(classes), tuple(attributes), arr)


BENCHMARK_GROUP_COUNTS = MappingProxyType({
    # target blond (y = 1), attribute male (a = 1)
    "celeba": _table(("not blond", "blond"), ("female", "male"), [[71629, 66874], [22880, 1387]]),
    # the standard Waterbirds training counts; the thesis's Table 1 prints them with both the row and the column labels
    # swapped (erratum spurious.waterbirds_labels_swapped)
    "waterbirds": _table(("landbird", "waterbird"), ("land", "water"), [[3498, 184], [56, 1057]]),
    # coarse groups: a = 0 if any identity is mentioned
    "civilcomments": _table(("non-toxic", "toxic"), ("identity", "other"), [[90337, 148186], [17784, 12731]]),
    "multinli": _table(("contradiction", "entailment", "neutral"), ("no negation", "negation"),
                       [[57498, 11158], [67376, 1521], [66630, 1992]]),
})
"""Training-set counts of Pezeshki (thesis) Ch. 8, Table 1: dataset -> ``GroupCountTable(classes, attributes,
counts[class, attribute])``."""


def bias_decomposable_fixture() -> MarginGradients:
    """The bias-decomposable test fixture of Proposition 2 of Barsbey et al. 2025 (a fixture, not a trained model).

    BA margins {0.5, 1, 2, 1}, BC margins {−0.3, −1.5}; s_i = 1 everywhere; c_i = 1 on BA and 0 on BC (a core
    block whose margin gradient vanishes on BC samples: the "converged core" of Barsbey et al. 2025, Def. 1 and
    Prop. 2).

    Parameters
    ----------
    None

    Returns
    -------
    MarginGradients

    Examples
    --------
    >>> from dynamics.spurious import spurious_core_gradient_ratio_asymptote
    >>> spurious_core_gradient_ratio_asymptote(*bias_decomposable_fixture())
    GradientRatioAsymptote(rate=0.5, constant=2.0, converged_core=True)
    """
    return MarginGradients(np.array([0.5, 1.0, 2.0, 1.0, -0.3, -1.5]), np.array([1.0, 1.0, 1.0, 1.0, 0.0, 0.0]),
                           np.ones(6))


@fill_doc
def linear_two_block_fixture(n_samples: int = 400, n_features: int = 5, bc_rate: float = 0.1,
                             min_margin: float = 0.25, *,
                             seed: Optional[Union[int, np.random.Generator]] = None) -> MarginGradients:
    """The negative control of Proposition 2 of Barsbey et al. 2025 (derived in this project): a linear two-block
    model f = W_c x_c + W_s x_s with 2 logits.

    x_c, x_s ~ N(0, I_d); b uniform in {0, 1} and y = b except with probability ``bc_rate``; the first spurious
    coordinate is (2b − 1)(1 + abs(N(0, 1))) and W_s reads it (±1 on the two logits), W_c = 0.05·N(0, 1), so the
    model predicts by the spurious rule. Samples whose absolute margin is below ``min_margin`` are dropped. The
    margin gradients are ∇_{W_c} m = x_c(e_y − e_{y'})ᵀ and ∇_{W_s} m = x_s(e_y − e_{y'})ᵀ, with Frobenius norms
    √2‖x_c‖ and √2‖x_s‖: the core gradient never vanishes on BC samples, so the ratio saturates.

    Parameters
    ----------
    n_samples : int
        Samples drawn before dropping small margins (>= 2; n_samples · n_features <= 10^8).
    n_features : int
        d >= 1 features per block.
    bc_rate : float
        In [0, 1).
    min_margin : float
        >= 0.
    %(seed)s

    Returns
    -------
    MarginGradients

    Examples
    --------
    >>> from dynamics.spurious import spurious_core_gradient_ratio_asymptote
    >>> spurious_core_gradient_ratio_asymptote(*linear_two_block_fixture(seed=0)).converged_core
    False
    """
    n = require_integer("n_samples", n_samples, 2, 10**8)
    d = require_integer("n_features", n_features, 1, 10**8)
    if n * d > 10**8:  # two (n, d) float64 blocks: 1.6 GB at the limit
        raise ValueError(f"n_samples * n_features must be at most 1e8 (two float64 blocks of that many entries), got "
                         f"{n} * {d} = {format_value(n * d)}")
    rho = require_in_range("bc_rate", bc_rate, 0.0, 1.0, high_open=True)
    min_margin = require_positive("min_margin", min_margin, allow_zero=True)
    rng = rng_from(seed)
    b = rng.integers(0, 2, n)
    y = np.where(rng.random(n) < rho, 1 - b, b)
    x_core = rng.standard_normal((n, d))
    x_spurious = rng.standard_normal((n, d))
    x_spurious[:, 0] = (2 * b - 1) * (1.0 + np.abs(x_spurious[:, 0]))
    W_core = 0.05 * rng.standard_normal((2, d))
    W_spurious = np.zeros((2, d))
    W_spurious[1, 0], W_spurious[0, 0] = 1.0, -1.0
    f = x_core @ W_core.T + x_spurious @ W_spurious.T
    rows = np.arange(n)
    margins = f[rows, y] - f[rows, 1 - y]
    keep = (np.argmax(f, axis=1) == b) & (np.abs(margins) >= min_margin)
    root2 = np.sqrt(2.0)
    return MarginGradients(margins[keep], root2 * np.linalg.norm(x_core[keep], axis=1),
                           root2 * np.linalg.norm(x_spurious[keep], axis=1))
