"""Hypothesis strategies for every public parameter name of ``dynamics`` (used by tests/test_public_api.py).

Names mean the same thing in every theory (the README glossary), so one strategy per name serves every function
that takes it. Each strategy mixes plausible values (so that calls get past the argument checks and run the
theory) with edge cases and wrong kinds (so that the checks themselves are exercised).
"""
import math

import numpy as np
from hypothesis import strategies as st

FLOAT = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.floats(-10, 10),
                  st.sampled_from([0.0, -1.0, 1e-300, 1e300, 0.5, 2.0]))
POSITIVE = st.one_of(st.floats(1e-3, 10.0), FLOAT)
FRACTION = st.one_of(st.floats(0.0, 1.0), FLOAT)
SMALL_INT = st.one_of(st.integers(-2, 12), st.sampled_from([2.5, True, None]))
# sizes also come as huge or infinite floats and huge integers: a clean error is due, not an OverflowError, a numba
# typing error, a MemoryError or a minutes-long loop (the fuzz gives every call a time limit)
HUGE = st.sampled_from([1e308, math.inf, -math.inf, math.nan, 10**18, 2**63])
SIZE = st.one_of(st.integers(1, 8), SMALL_INT, HUGE)
BOOL = st.one_of(st.booleans(), st.sampled_from([0, 1, "yes", None]))
SEED = st.one_of(st.integers(0, 2**31), st.none(), st.just("seed"))
ARRAY = st.one_of(st.lists(FLOAT, max_size=4), st.lists(st.floats(0.01, 5.0), min_size=1, max_size=4), FLOAT)
SIGNED_ARRAY = st.one_of(st.lists(st.floats(-5.0, 5.0), min_size=1, max_size=6), ARRAY)
TIMES = st.one_of(st.lists(st.floats(0.0, 50.0), min_size=1, max_size=5).map(sorted), ARRAY,
                  st.sampled_from([[0.0, 1.0, math.inf], 3.0]))
INT_ARRAY = st.one_of(st.lists(st.integers(0, 3), min_size=1, max_size=12), ARRAY)
LABELS_PM = st.one_of(st.lists(st.sampled_from([-1.0, 1.0]), min_size=2, max_size=6), ARRAY)
WORDS = st.sampled_from(["gd", "flow", "hadamard", "matrix", "numba", "numpy", "cross_entropy", "hinge", "squared",
                         "eq2", "proof", "incoming_l2", "outgoing_l2", "in_out", "erm", "suby", "subg", "rwy", "rwg",
                         "jtt", "gdro", "train", "val", "test", "thesis", "code", "raise", "drop", "sum", "mean",
                         "other", "own", "group", "auto", "dop853", "rosenbrock23", "exact", "masked", "x", 3, None])


def matrices(rows=(1, 5), cols=(1, 5), elements=st.floats(-3.0, 3.0)):
    """Random matrices of bounded size, plus wrong shapes and kinds."""
    shaped = st.tuples(st.integers(*rows), st.integers(*cols)).flatmap(
        lambda shape: st.lists(elements, min_size=shape[0] * shape[1], max_size=shape[0] * shape[1])
        .map(lambda values: np.array(values).reshape(shape)))
    return st.one_of(shaped, ARRAY, st.just("matrix"))


def _orthogonal(n):
    return st.integers(0, 10**6).map(lambda seed: np.linalg.qr(np.random.default_rng(seed).standard_normal((n, n)))[0])


ORTHOGONAL = st.one_of(st.integers(1, 4).flatmap(_orthogonal), matrices())
SQUARE = st.integers(1, 4).flatmap(lambda n: matrices((n, n), (n, n)))
SPD = st.integers(1, 3).flatmap(lambda n: st.integers(0, 10**6).map(
    lambda seed: (lambda A: A @ A.T + n * np.eye(n))(np.random.default_rng(seed).standard_normal((n, n)))))


@st.composite
def student_instances(draw):
    from dynamics.linear_networks import draw_student

    if draw(st.booleans()):
        return draw(st.sampled_from([None, "instance", 3.0]))
    return draw_student(draw(st.integers(2, 6)), draw(st.integers(2, 8)), seed=draw(st.integers(0, 100)))


@st.composite
def teacher_student_data(draw):
    from dynamics.double_descent import TeacherStudentProblem, draw_teacher_student

    if draw(st.booleans()):
        return draw(st.sampled_from([None, "data", {"Z_test": np.zeros(3)}]))
    return draw_teacher_student(TeacherStudentProblem(12, 8, 4, 10.0), n_seeds=2, seed=draw(st.integers(0, 100)),
                                n_test=draw(st.sampled_from([0, 5])))


@st.composite
def teacher_student_problems(draw):
    """Small teacher–student problems (some with n <= d, which the bipartite theory refuses), and wrong kinds."""
    from dynamics.double_descent import TeacherStudentProblem

    kind = draw(st.sampled_from(["wrong", "valid", "edge"]))
    if kind == "wrong":
        return draw(st.sampled_from([None, "problem", (110, 100, 70, 30.0), {"n_samples": 110}]))
    d = draw(st.integers(2, 12))
    n_fast, n_samples = draw(st.integers(1, d - 1)), draw(st.integers(d + 1, 3 * d))
    kappa, noise_std = draw(st.floats(1.0, 100.0)), draw(st.floats(0.0, 2.0))
    if kind == "edge":  # one field at an edge or of a wrong kind
        field = draw(st.sampled_from(["n_samples", "n_features", "n_fast", "kappa", "noise_std"]))
        value = draw(st.integers(1, d) if field == "n_samples" else FLOAT if field in ("kappa", "noise_std") else SIZE)
        return TeacherStudentProblem(n_samples, d, n_fast, kappa, noise_std)._replace(**{field: value})
    return TeacherStudentProblem(n_samples, d, n_fast, kappa, noise_std)


@st.composite
def gd_settings(draw):
    """GD settings of exact_gd_order_parameters (a None learning rate is the stable 1/λ_max), and wrong kinds."""
    from dynamics.double_descent import GDSettings

    if draw(st.booleans()):
        return draw(st.sampled_from([None, "settings", 0.1, {"learning_rate": 0.1}, (None, 0.0, "gd", 0.0, None)]))
    return GDSettings(learning_rate=draw(st.one_of(st.none(), POSITIVE)),
                      weight_decay=draw(st.one_of(st.floats(0.0, 1.0), FLOAT)),
                      dynamics=draw(st.sampled_from(["gd", "flow", "ode", None])),
                      output_penalty=draw(st.one_of(st.floats(0.0, 1.0), FLOAT)),
                      preconditioner=draw(st.one_of(st.none(), SPD, st.just("M"))))


@st.composite
def ode_options(draw):
    """Integrator options: the theory functions' defaults and variants of them (some refused: a method they do not
    take, a tolerance out of range, a field they set themselves), and wrong kinds."""
    from dynamics.linear_networks import NETWORK_ODE_OPTIONS
    from dynamics.numerics import OdeOptions
    from dynamics.starvation import DUAL_ODE_OPTIONS

    if draw(st.booleans()):
        return draw(st.sampled_from([None, "auto", {"rtol": 1e-8}, (1e-8, 1e-10)]))
    base = draw(st.sampled_from([DUAL_ODE_OPTIONS, NETWORK_ODE_OPTIONS, OdeOptions()]))
    change = draw(st.sampled_from(["none", "method", "rtol", "atol", "max_steps", "autonomous"]))
    if change == "method":
        return base._replace(method=draw(st.sampled_from(["auto", "dop853", "rosenbrock23", "dopri5", "rk4", 3])))
    if change == "rtol":
        return base._replace(rtol=draw(st.one_of(st.floats(1e-10, 1e-4), FLOAT)))
    if change == "atol":
        return base._replace(atol=draw(st.one_of(st.floats(1e-14, 1e-6), FLOAT)))
    if change == "max_steps":
        return base._replace(max_steps=draw(SMALL_INT))
    if change == "autonomous":
        return base._replace(autonomous=True)
    return base


@st.composite
def signal_noise_stds(draw):
    """The teacher's and the label noise's standard deviations of the linear-network student, and wrong kinds."""
    from dynamics.linear_networks import SignalNoiseStds

    if draw(st.booleans()):
        return draw(st.sampled_from([None, "stds", (1.0, 0.5), {"teacher_std": 1.0}]))
    return SignalNoiseStds(draw(POSITIVE), draw(st.one_of(st.floats(0.0, 2.0), FLOAT)))


@st.composite
def modulations(draw):
    from dynamics.double_descent import modulation_matrix

    if draw(st.booleans()):
        return draw(st.one_of(SQUARE, st.sampled_from([None, "F"])))
    return modulation_matrix(draw(st.integers(2, 6)), 1, draw(st.floats(1.0, 50.0)), n_seeds=1,
                             seed=draw(st.integers(0, 100))).draw(0)


@st.composite
def and_mask_datasets(draw):
    from dynamics.and_mask import make_logistic_shortcut

    if draw(st.booleans()):
        return draw(st.sampled_from([None, "dataset"]))
    return make_logistic_shortcut(n_samples_per_env=20, n_test=20, seed=draw(st.integers(0, 100)))


@st.composite
def and_mask_simulations(draw):
    from dynamics.and_mask import simulate_mask

    if draw(st.booleans()):
        return draw(st.sampled_from([None, "simulation", (2, 10)]))
    return simulate_mask(draw(st.integers(1, 6)), draw(st.integers(1, 50)), seed=draw(st.integers(0, 100)))


@st.composite
def spherical_optimizers(draw):
    import dynamics.spherical as sph

    kind = draw(st.sampled_from(["SGD", "Adam", "AdamSRT", "junk"]))
    if kind == "junk":
        return "optimizer"
    rate = draw(st.floats(1e-3, 0.5))
    return getattr(sph, kind)(rate)


@st.composite
def spherical_losses(draw):
    import dynamics.spherical as sph

    if draw(st.booleans()):
        return draw(st.sampled_from(["loss", "cross_entropy", None]))
    return sph.RandomLinearLoss.stream(4, grad_norm=draw(st.floats(0.1, 2.0)), seed=draw(st.integers(0, 100)))


@st.composite
def toy_splits(draw):
    from dynamics.spurious import make_balancing_toy

    if draw(st.booleans()):
        return draw(st.sampled_from([None, "train"]))
    return make_balancing_toy(40, 3, seed=draw(st.integers(0, 100)))


def _callable_env_gradients():
    return st.sampled_from([lambda theta: np.ones((2, np.size(theta))), lambda theta: np.array([np.ones(np.size(theta)),
                                                                                                 -np.ones(np.size(theta))]),
                            None, "gradients"])


def _small_configs():
    """Configuration objects at sizes a fuzz call can afford (each is the wrong type for the other functions that take
    a ``config``, which must refuse it by name)."""
    from dynamics.spherical import OptimizerRunsConfig
    from dynamics.spurious import BalancingToyConfig
    from dynamics.starvation import TwoMoonsConfig

    return [TwoMoonsConfig(n_steps=2, hidden=3, record_every=1),
            BalancingToyConfig(n_samples=20, n_noise=5, n_epochs=2, batch_size=10),
            OptimizerRunsConfig(n_steps=2, dimension=3)]


CONFIGS = st.one_of(st.sampled_from([None, "config", 3, (1, 2)]), st.sampled_from(_small_configs()))


#: parameter name -> strategy.
STRATEGIES = {
    # numerics core
    "x": ARRAY, "q": ARRAY, "lam": ARRAY, "array_arguments": st.lists(st.sampled_from(["A", "X", "", 1])), "branch": st.sampled_from([0, -1, 1, 0.5]), "k": SMALL_INT, "n": SIZE,
    "p": st.one_of(st.floats(0, 1), FLOAT), "alpha": POSITIVE, "scale": POSITIVE, "order": SMALL_INT,
    "f": st.just(np.ones_like), "seed": SEED, "n_matrices": st.one_of(st.none(), SMALL_INT), "M": SPD,
    "b": st.one_of(st.lists(st.floats(-5, 5), min_size=1, max_size=3), ARRAY, st.floats(0.1, 3.0)), "A": SQUARE,
    "salt": st.sampled_from(["", "v1", 3]),
    # shared vocabulary (the README glossary)
    "t": TIMES, "steps": TIMES, "tau": POSITIVE, "n_steps": SMALL_INT, "learning_rate": POSITIVE,
    "learning_rates": ARRAY, "weight_decay": st.one_of(st.floats(0.0, 1.0), FLOAT), "momentum": FRACTION,
    "output_penalty": st.one_of(st.floats(0.0, 1.0), FLOAT), "n_samples": SIZE, "n_features": SIZE, "n_fast": SIZE,
    "kappa": st.one_of(st.floats(1.0, 100.0), FLOAT), "noise_std": st.one_of(st.floats(0.0, 2.0), FLOAT),
    "teacher_std": POSITIVE, "init_std": st.one_of(st.floats(0.0, 2.0), FLOAT), "n_seeds": SIZE,
    "n_epochs": SMALL_INT, "tolerance": POSITIVE, "rtol": st.one_of(st.floats(1e-10, 1e-4), FLOAT),
    "atol": st.one_of(st.floats(1e-14, 1e-6), FLOAT), "method": WORDS, "record_every": SMALL_INT,
    # linear networks
    "s": SIGNED_ARRAY, "u0": POSITIVE, "u_start": POSITIVE, "u_end": POSITIVE, "a0": FLOAT, "b0": FLOAT,
    "a": SIGNED_ARRAY, "U": ORTHOGONAL, "V": ORTHOGONAL, "W21": matrices(), "W32": matrices(), "X": matrices(),
    "Y": matrices(), "sigma31": matrices(), "sigma11": st.one_of(st.none(), SPD), "n_hidden": SIZE,
    "n_outputs": SIZE, "singular_values": ARRAY, "weights0": SIGNED_ARRAY, "n_weight_layers": SIZE,
    "eigenvalue": ARRAY, "eigenvalues": ARRAY, "instance": student_instances(), "weights": SIGNED_ARRAY,
    "inputs": matrices(), "teacher": SIGNED_ARRAY, "noise": SIGNED_ARRAY, "initial_weights": SIGNED_ARRAY,
    "loss_scale": POSITIVE, "chunk": SIZE, "n_test_samples": SIZE, "level": ARRAY, "values": SIGNED_ARRAY,
    "n_students": SIZE,
    # double descent
    "F": modulations(), "a1": POSITIVE, "a2": POSITIVE, "c_overlap": WORDS, "code_weight_decay": ARRAY,
    "data": teacher_student_data(), "decay": POSITIVE, "dynamics": WORDS, "eigenvectors": st.one_of(st.none(), SQUARE),
    "freeze_fast_at": st.one_of(st.none(), POSITIVE), "freeze_slow_at": st.one_of(st.none(), POSITIVE),
    "haar": BOOL, "log10_min": FLOAT, "log10_max": FLOAT, "loss_normalization": WORDS,
    "modulation": modulations(), "noise_variance": st.one_of(st.floats(0.0, 2.0), FLOAT),
    "normalization": WORDS, "normalized_teacher": BOOL, "num": SMALL_INT, "output_penalty_schedule": ARRAY,
    "per_group_learning_rate": BOOL, "preconditioner": st.one_of(st.none(), SPD), "strength": POSITIVE,
    "teacher_power": POSITIVE, "w": SIGNED_ARRAY, "w_hat": matrices(), "y": SIGNED_ARRAY, "n_test": SMALL_INT,
    "R": SIGNED_ARRAY, "Q": ARRAY, "factor": st.one_of(st.floats(0.1, 1.9), FLOAT),
    # gradient starvation
    "Phi0": matrices(), "alpha0": st.one_of(st.floats(0.01, 0.99), ARRAY), "clamp": POSITIVE,
    "delta": st.one_of(st.floats(-0.99, 0.99), FLOAT), "exact": BOOL, "omega": SIGNED_ARRAY,
    "params": st.sampled_from([np.array([0.0, 1.0]), np.zeros(0)]), "printed": BOOL, "s1": ARRAY,
    "s2": POSITIVE, "z0": SIGNED_ARRAY, "theta0": SIGNED_ARRAY, "margin": st.one_of(st.floats(-1.0, 1.0), FLOAT),
    "loss": st.one_of(WORDS, spherical_losses()), "feature": SMALL_INT, "relative_step": FRACTION,
    "dual_learning_rate": POSITIVE, "hidden": SMALL_INT,
    "runs": st.sampled_from([(("Δ = +0.1", 0.1, 0.0),), (("SD", 0.1, 0.006), ("Δ = -0.1", -0.1, 0.0)), (),
                             (("SD", 0.1, -1.0),), (("wide", 2.0, 0.0),), ("runs",)]),
    # AND-mask
    "env_axis": st.sampled_from([0, 1, -1, -2, 2, True, 0.5, "x"]),
    "grads": matrices(), "agreement_threshold": FRACTION, "n_agree": SMALL_INT, "n_envs": SIZE, "snr": FLOAT,
    "gradient_std": POSITIVE, "gradient_means": SIGNED_ARRAY, "gradient_stds": ARRAY, "rescale": BOOL,
    "geom_mean": BOOL, "groups": st.one_of(st.none(), INT_ARRAY), "n_params": SIZE, "n_positive": SMALL_INT,
    "hessians": st.one_of(st.integers(1, 3).flatmap(lambda n: st.lists(SPD.filter(lambda H: H.shape == (n, n)),
                                                                         min_size=1, max_size=3).map(np.array)),
                          matrices()),
    "hessian_a": ARRAY, "hessian_b": ARRAY, "eps": st.one_of(st.floats(0.0, 1.0), FLOAT), "objective": WORDS,
    "sign_decay": FRACTION, "n_chains": SIZE, "env_gradients": _callable_env_gradients(),
    "initial_loss": FLOAT, "min_loss": FLOAT, "points": matrices(cols=(2, 2)), "starts": matrices(cols=(2, 2)),
    "between_minima": BOOL, "n_grid": SIZE, "theta": SIGNED_ARRAY, "n_points": SIZE,
    "dataset": and_mask_datasets(), "labels": st.one_of(INT_ARRAY, LABELS_PM), "dim_shortcut": SIZE,
    "n_samples_per_env": SIZE, "n_revolutions": POSITIVE, "shortcut_std": POSITIVE, "signal": POSITIVE,
    "simulation": and_mask_simulations(), "agreement_fraction": FRACTION, "private_weights": SIGNED_ARRAY,
    # spherical
    "u": SIGNED_ARRAY, "v": SIGNED_ARRAY, "x0": SIGNED_ARRAY, "x_prev": SIGNED_ARRAY, "x_new": SIGNED_ARRAY,
    "r0": POSITIVE, "g_min": POSITIVE, "g_max": POSITIVE, "grad_norm": POSITIVE, "grad_norms": ARRAY,
    "radius_squared": ARRAY, "radius_fourth_power": ARRAY, "dimension": SIZE, "radii": ARRAY,
    "sphere_grad_norms": ARRAY, "adam_learning_rate": POSITIVE,
    "betas": st.sampled_from([(0.9, 0.999), (0.0, 0.5), (1.5, 0.9), "betas"]), "engine": WORDS,
    "optimizer": spherical_optimizers(),
    "config": CONFIGS, "numba": BOOL, "like": st.one_of(FLOAT, ARRAY),
    # the objects that group a function's settings: integrator options, the teacher–student problem, a GD run, the
    # student's standard deviations (each the wrong type for the others, which must refuse it by name)
    "options": ode_options(), "problem": teacher_student_problems(), "settings": gd_settings(),
    "stds": signal_noise_stds(),
    "names": st.one_of(st.sampled_from([("data", "init", "order"), ("data",), ("data", "data"), ("_x",), (), "data",
                                        ("class",), (1,)]), WORDS),
    # the starvation experiments' numpy side (decision boundaries, the coloured shapes)
    "rotation": st.one_of(st.floats(-360.0, 360.0), FLOAT), "grid_h": ARRAY, "grid_v": ARRAY, "colour_flip": FRACTION, "label_noise": FRACTION, "size": SIZE,
    "bar_length": SIZE,
    # spurious correlations and data balancing
    "logit_scale": POSITIVE, "ba_margins": ARRAY, "bc_margins": ARRAY, "log": BOOL, "logits": matrices(),
    "bias_labels": INT_ARRAY, "margins": SIGNED_ARRAY, "margin_grad_norm": POSITIVE, "core_grad_norms": ARRAY,
    "spurious_grad_norms": ARRAY, "z": matrices(), "axis": st.sampled_from([-1, 0, 1, 5, "x"]), "series": ARRAY, "image_size": SIZE,
    "keep_fraction": FRACTION, "prune_fraction": FRACTION, "representations": matrices(), "on_zero": WORDS,
    "activations": st.one_of(st.none(), matrices()), "losses": ARRAY, "is_bias_conflicting": st.one_of(
        st.lists(st.booleans(), min_size=1, max_size=6), ARRAY), "pruned_accuracies": ARRAY,
    "full_accuracy": FRACTION, "chance": st.one_of(st.none(), FRACTION), "criterion": WORDS,
    "predictions": INT_ARRAY, "n_groups": SIZE, "attributes": INT_ARRAY, "n_attributes": SIZE,
    "strata": INT_ARRAY, "n_draws": st.one_of(st.none(), SMALL_INT), "population": SIZE, "draws": FLOAT,
    "wrong": st.one_of(st.lists(st.booleans(), min_size=1, max_size=6), ARRAY), "upweight": SMALL_INT,
    "indices": INT_ARRAY, "log_q": SIGNED_ARRAY, "group_losses": ARRAY,
    "counts": st.one_of(INT_ARRAY, st.sampled_from([[[5, 1], [2, 8]], [[3, 0], [1, 4]], [[2, 2, 7]]])),
    "epochs": st.one_of(st.floats(0.0, 5.0), ARRAY), "balance": st.sampled_from(["group", "class", "other", None]),
    "seeds": st.one_of(st.lists(st.integers(0, 100), min_size=1, max_size=2), ARRAY, SEED),
    "methods": st.one_of(st.sampled_from([("erm",), ("subg", "rwg"), ("erm", "bogus"), ()]), WORDS),
    "train_options": st.just({}), "prune_fractions": st.one_of(st.just((0.0, 0.5, 0.9)), ARRAY),
    "present": st.one_of(st.lists(st.booleans(), min_size=1, max_size=4), ARRAY), "step_size": POSITIVE,
    "n_core": SIZE, "n_spurious": SIZE, "n_noise": SMALL_INT, "bc_rate": FRACTION, "split": WORDS,
    "rho_spurious": FRACTION, "rho_core": FRACTION, "feature_std": POSITIVE, "sign": WORDS,
    "gammas": st.sampled_from([(4.0, 1.0, 2.0), (1.0, 1.0), "gammas"]),
    "min_margin": POSITIVE, "train": toy_splits(), "val": toy_splits(), "test": toy_splits(),
    "batch_size": SIZE, "jtt_epochs": SMALL_INT, "jtt_upweight": SMALL_INT, "gdro_step_size": POSITIVE,
    "gdro_sampler": WORDS, "init": st.one_of(st.none(), SIGNED_ARRAY), "return_orders": BOOL,
}
