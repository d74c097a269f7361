"""Unit and property tests of dynamics.starvation: bad input, limits, invariances, regression values, the
named results, the explicit penalty, and the learning-rate bound of primal gradient descent."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import dynamics.starvation as gs
import dynamics.numerics as nx
from dynamics.numerics import haar_orthogonal

U_TOY = gs.coupling_matrix(0.5)
S_TOY = np.array([6.0, 2.0])
MOONS_TINY = gs.TwoMoonsConfig(n_steps=1, hidden=4)


def _dual_matrix(U, s, weight_decay, exact):
    """K = λ⁻¹US²Uᵀ (+ I for Eq 10), written out here rather than taken from the library."""
    U, s = np.asarray(U, dtype=float), np.asarray(s, dtype=float)
    K = U @ np.diag(s * s) @ U.T / weight_decay
    return K if exact else K + np.eye(len(s))


def _residual(U, s, weight_decay, alpha, exact):
    barrier = np.log1p(-alpha) - np.log(alpha) if exact else -np.log(alpha)
    return np.abs(barrier - _dual_matrix(U, s, weight_decay, exact) @ alpha).max()


# ------------------------------------------------------------------ bad input names the parameter
BAD_CALLS = [
    ("weight_decay", lambda: gs.dual_fixed_point(U_TOY, S_TOY, 0.0)),
    ("weight_decay", lambda: gs.feature_response(U_TOY, S_TOY, -1.0)),
    ("weight_decay", lambda: gs.lambert_fixed_point([1.0], 0.0)),
    ("output_penalty", lambda: gs.sd_fixed_point(U_TOY, -0.1)),
    ("output_penalty", lambda: gs.sd_margin(float("nan"))),
    ("weight_decay", lambda: gs.integrate_dual(U_TOY, S_TOY, [0.0, 1.0], weight_decay=0.0)),
    ("output_penalty", lambda: gs.integrate_dual(U_TOY, S_TOY, [0.0, 1.0], output_penalty=-1.0)),
    ("weight_decay", lambda: gs.exact_uncoupled_response([1.0], 0.0)),
    ("U", lambda: gs.dual_fixed_point(np.array([[1.0, 0.1], [0.0, 1.0]]), S_TOY, 0.1)),
    ("U", lambda: gs.feature_response(np.ones((2, 3)), S_TOY, 0.1)),
    ("U", lambda: gs.sd_fixed_point(2 * np.eye(2), 0.1)),
    ("U", lambda: gs.integrate_dual(np.eye(2) * 1.1, S_TOY, [1.0], weight_decay=0.1)),
    ("s", lambda: gs.dual_fixed_point(U_TOY, [0.0, 1.0], 0.1)),
    ("s", lambda: gs.feature_response(U_TOY, [-1.0, 1.0], 0.1)),
    ("s", lambda: gs.feature_response(U_TOY, [1.0, 1.0, 1.0], 0.1)),
    ("s", lambda: gs.lambert_fixed_point([1.0, 0.0], 0.1)),
    ("s", lambda: gs.first_order_response([1.0, -2.0], 0.1, 0.1)),
    ("alpha0", lambda: gs.integrate_dual(U_TOY, S_TOY, [1.0], weight_decay=0.1, alpha0=[0.5, 1.0])),
    ("alpha0", lambda: gs.integrate_dual(U_TOY, S_TOY, [1.0], weight_decay=0.1, alpha0=[0.0, 0.5], exact=False)),
    ("alpha0", lambda: gs.integrate_dual(U_TOY, S_TOY, [1.0], weight_decay=0.1, alpha0=[0.5, 0.5, 0.5])),
    ("alpha0", lambda: gs.dual_gd(U_TOY, S_TOY, 10, learning_rate=1e-6, weight_decay=0.1, alpha0=1.5)),
    ("delta", lambda: gs.coupling_matrix(1.0)),
    ("delta", lambda: gs.coupling_matrix(-1.5)),
    ("delta", lambda: gs.weak_response_derivative(S_TOY, 0.1, 2.0)),
    ("delta", lambda: gs.starvation_map([1.0, 2.0], [0.5, 1.0])),
    ("delta", lambda: gs.toy_batch([1.0, 2.0], [0.5, -1.0])),
    ("delta", lambda: gs.first_order_error(S_TOY, 0.1, 1.0)),
    ("feature", lambda: gs.response_derivative(U_TOY, S_TOY, 0.1, 2)),
    ("relative_step", lambda: gs.response_derivative(U_TOY, S_TOY, 0.1, 0, relative_step=1.0)),
    ("n_params", lambda: gs.random_linear_model([1.0, 2.0, 3.0], 2)),
    ("n_steps", lambda: gs.toy_trajectories([2.0], n_steps=-1)),
    ("s1", lambda: gs.toy_trajectories([0.0])),
    ("printed", lambda: gs.linearisation_error(U_TOY, S_TOY, 0.1, printed="no")),
    ("omega", lambda: gs.loss_tangent("cross_entropy", float("nan"))),
    ("t", lambda: gs.integrate_dual(U_TOY, S_TOY, [1.0, 0.5], weight_decay=0.1)),
    ("t", lambda: gs.integrate_dual(U_TOY, S_TOY, [-1.0, 0.5], weight_decay=0.1)),
    ("t", lambda: gs.integrate_dual(U_TOY, S_TOY, [], weight_decay=0.1)),
    ("method", lambda: gs.integrate_dual(U_TOY, S_TOY, [1.0], weight_decay=0.1,
                                         options=gs.DUAL_ODE_OPTIONS._replace(method="rosenbrock"))),
    ("rtol", lambda: gs.integrate_dual(U_TOY, S_TOY, [1.0], weight_decay=0.1,
                                       options=gs.DUAL_ODE_OPTIONS._replace(rtol=1e-2))),
    ("atol", lambda: gs.integrate_dual(U_TOY, S_TOY, [1.0], weight_decay=0.1,
                                       options=gs.DUAL_ODE_OPTIONS._replace(atol=0.0))),
    ("max_steps", lambda: gs.integrate_dual(U_TOY, S_TOY, [1.0], weight_decay=0.1,
                                            options=gs.DUAL_ODE_OPTIONS._replace(max_steps=10))),
    ("options.bounds", lambda: gs.integrate_dual(U_TOY, S_TOY, [1.0], weight_decay=0.1,
                                                 options=gs.DUAL_ODE_OPTIONS._replace(bounds=(0.0, 1.0)))),
    ("x", lambda: gs.lambertw(-1.0)),
    ("branch", lambda: gs.lambertw(1.0, 2)),
    ("learning_rate", lambda: gs.primal_gd_z(U_TOY, S_TOY, 10, learning_rate=0.0, weight_decay=0.1)),
    ("n_steps", lambda: gs.primal_gd_z(U_TOY, S_TOY, -1, learning_rate=0.01, weight_decay=0.1)),
    ("n_steps", lambda: gs.dual_gd(U_TOY, S_TOY, 2.5, learning_rate=1e-6, weight_decay=0.1)),
    ("z0", lambda: gs.primal_gd_z(U_TOY, S_TOY, 1, learning_rate=0.01, weight_decay=0.1, z0=[0.0, 0.0, 0.0])),
    ("clamp", lambda: gs.dual_gd(U_TOY, S_TOY, 1, learning_rate=1e-6, weight_decay=0.1, clamp=0.5)),
    ("y", lambda: gs.primal_optimum(np.eye(2), [1.0, 0.5], weight_decay=0.1)),
    ("y", lambda: gs.primal_optimum(np.eye(2), [1.0, 1.0, 1.0], weight_decay=0.1)),
    ("Phi0", lambda: gs.features(np.ones((3, 2)), [1.0, 1.0, -1.0])),
    ("Phi0", lambda: gs.features(np.ones((2, 3)), [1.0, -1.0])),  # rank 1
    ("margin", lambda: gs.two_moons(margin=2.0)),
    ("noise_std", lambda: gs.make_moons(noise_std=-0.1)),
    ("n_samples", lambda: gs.two_moons(1)),
    ("n_samples", lambda: gs.make_moons(30.5)),
    ("loss", lambda: gs.primal_loss("logistic", 0.0)),
    # float64 overflow is an error naming the input, not a silent NaN/inf
    ("s and weight_decay", lambda: gs.lambert_fixed_point([1e200], 0.1)),
    ("s and weight_decay", lambda: gs.lambert_fixed_point([1.0], 1e-320)),
    ("s and weight_decay", lambda: gs.exact_uncoupled_response([1e200], 0.1)),
    ("s and weight_decay", lambda: gs.dual_fixed_point(U_TOY, [1e200, 1.0], 0.1)),
    ("s and weight_decay", lambda: gs.linearised_fixed_point(U_TOY, [1e200, 1.0], 0.1)),
    ("s and weight_decay", lambda: gs.first_order_response([1e200, 1.0], 0.1, 0.1)),
    ("s and weight_decay", lambda: gs.weak_response_derivative([1e200, 1.0], 0.1, 0.1)),
    ("s1 and weight_decay", lambda: gs.starvation_map([1e200], [0.5])),
    ("output_penalty", lambda: gs.sd_margin(1e-320)),
    ("output_penalty", lambda: gs.sd_lambert_approx(1e-320)),
    ("alpha", lambda: gs.jacobian(U_TOY, S_TOY, [1e-320, 0.5], weight_decay=0.01)),
    ("alpha", lambda: gs.jacobian(U_TOY, S_TOY, [0.5, 1.5], weight_decay=0.01)),
    ("learning_rate", lambda: gs.primal_gd_z(U_TOY, S_TOY, 1000, learning_rate=1e3, weight_decay=0.01)),
    ("learning_rate", lambda: gs.primal_gd_theta(np.eye(2), [1.0, 1.0], 1000, learning_rate=1e3, weight_decay=0.01)),
    ("omega", lambda: gs.primal_loss("squared", 1e200)),
    ("alpha", lambda: gs.dual_objective("squared", 1e200, 0.0)),
    ("alpha", lambda: gs.binary_entropy(1.5)),
    ("exact", lambda: gs.dual_fixed_point(U_TOY, S_TOY, 0.1, exact="yes")),
    ("exact", lambda: gs.integrate_dual(U_TOY, S_TOY, [1.0], weight_decay=0.1, exact=None)),
    ("printed", lambda: gs.linearised_fixed_point(U_TOY, S_TOY, 0.1, printed=1)),
    ("seed", lambda: gs.two_moons(seed="zero")),
    ("seeds", lambda: gs.train_two_moons(MOONS_TINY, seeds=())),
    ("runs", lambda: gs.train_two_moons(MOONS_TINY._replace(runs=()), (0,))),
    ("output_penalty", lambda: gs.train_two_moons(MOONS_TINY._replace(runs=(("SD", 0.1, -1.0),)), (0,))),
    ("hidden", lambda: gs.train_two_moons(MOONS_TINY._replace(hidden=0), (0,))),
    ("n_steps", lambda: gs.train_two_moons(MOONS_TINY._replace(n_steps=-1), (0,))),
    ("record_every", lambda: gs.train_two_moons(MOONS_TINY._replace(record_every=0), (0,))),
    ("momentum", lambda: gs.train_two_moons(MOONS_TINY._replace(momentum=1.0), (0,))),
    ("weight_decay", lambda: gs.train_two_moons(MOONS_TINY._replace(weight_decay=-1e-3), (0,))),
    ("learning_rate", lambda: gs.train_two_moons(MOONS_TINY._replace(learning_rate=0.0), (0,))),
    ("learning_rate", lambda: gs.train_two_moons(gs.TwoMoonsConfig(n_steps=400, hidden=64, learning_rate=1e3), (0,))),
    ("config", lambda: gs.train_two_moons((0,))),  # the seeds where the configuration goes
]


@pytest.mark.parametrize("name, call", BAD_CALLS, ids=[f"{name}-{i}" for i, (name, _) in enumerate(BAD_CALLS)])
def test_bad_input_names_the_parameter(name, call):
    with pytest.raises((ValueError, TypeError), match=name):
        call()


# ------------------------------------------------------------------ the experiments' configurations
CONFIGS = (gs.ToyTrainingConfig, gs.TwoMoonsConfig, gs.MoonsRegularisersConfig, gs.ColouredShapesConfig)


@pytest.mark.parametrize("config_type", CONFIGS, ids=[c.__name__ for c in CONFIGS])
def test_configurations_are_hashable_with_a_faithful_repr(config_type):
    """The disk cache keys on a configuration's repr: it must rebuild the configuration (no memory addresses)."""
    from dynamics.starvation import _results

    for config in (config_type(), config_type.source(), config_type.ci()):
        assert isinstance(config, config_type) and hash(config) == hash(config_type(*config))
        assert eval(repr(config), vars(_results)) == config and " at 0x" not in repr(config)


def test_configurations_hold_the_sources_settings():
    toy = gs.ToyTrainingConfig.source()
    assert (toy.weight_decay, toy.output_penalty, toy.primal_learning_rate, toy.dual_learning_rate, toy.alpha0,
            toy.clamp) == (gs.TOY.weight_decay, gs.TOY.output_penalty, gs.TOY.learning_rate,
                           gs.TOY.dual_learning_rate, gs.TOY.alpha0, gs.TOY.clamp)
    assert gs.TwoMoonsConfig.source() == gs.TwoMoonsConfig() and gs.TwoMoonsConfig.source().runs == gs.MOONS_RUNS
    assert gs.MoonsRegularisersConfig.source() == gs.MoonsRegularisersConfig()
    assert gs.ColouredShapesConfig.ci() == gs.ColouredShapesConfig()


# ------------------------------------------------------------------ one of weight_decay / output_penalty
PENALTY_FUNCTIONS = [
    lambda **kw: gs.integrate_dual(U_TOY, S_TOY, [0.0, 1.0], **kw),
    lambda **kw: gs.dual_params(U_TOY, S_TOY, **kw),
    lambda **kw: gs.jacobian(U_TOY, S_TOY, [0.3, 0.4], **kw),
    lambda **kw: gs.primal_gd_z(U_TOY, S_TOY, 3, learning_rate=0.01, **kw),
    lambda **kw: gs.primal_gd_theta(np.eye(2), [1.0, -1.0], 3, learning_rate=0.01, **kw),
    lambda **kw: gs.primal_optimum(np.eye(2), [1.0, -1.0], **kw),
    lambda **kw: gs.learning_rate_bound(S_TOY, **kw),
]


@pytest.mark.parametrize("call", PENALTY_FUNCTIONS)
def test_exactly_one_penalty(call):
    for kwargs in ({}, {"weight_decay": 0.1, "output_penalty": 0.1}):
        with pytest.raises(ValueError, match="exactly one of weight_decay .* and output_penalty"):
            call(**kwargs)
    call(weight_decay=0.1)
    call(output_penalty=0.1)


def test_integrate_dual_takes_integrator_options():
    """The default is DUAL_ODE_OPTIONS ("auto" at rtol 1e-10, atol 1e-12); an equal object gives the same flow, and
    an object of another type is refused by name."""
    assert gs.DUAL_ODE_OPTIONS == nx.OdeOptions(method="auto", rtol=1e-10, atol=1e-12)
    default = gs.integrate_dual(U_TOY, S_TOY, [0.0, 1.0], weight_decay=0.1)
    same = gs.integrate_dual(U_TOY, S_TOY, [0.0, 1.0], weight_decay=0.1,
                             options=nx.OdeOptions(method="auto", rtol=1e-10, atol=1e-12))
    assert np.array_equal(default.alpha, same.alpha)
    for wrong in (None, "auto", (1e-10, 1e-12), {"rtol": 1e-10}):
        with pytest.raises(TypeError, match="options must be a OdeOptions"):
            gs.integrate_dual(U_TOY, S_TOY, [0.0, 1.0], weight_decay=0.1, options=wrong)


def test_old_positional_penalty_is_refused():
    """The penalty of the functions that take either is keyword-only, so an old call (U, s, lam, t_eval) fails."""
    with pytest.raises(TypeError):
        gs.integrate_dual(U_TOY, S_TOY, 0.1, [0.0, 1.0])
    with pytest.raises(TypeError):
        gs.primal_gd_z(U_TOY, S_TOY, 0.1, 0.05, 100)


def test_output_penalty_is_the_spectral_decoupling_flow():
    """output_penalty = a selects Eq 18: its fixed point is α = a·m*, whatever s is."""
    flow = gs.integrate_dual(U_TOY, [3.0, 2.0], [0.0, 12.0], output_penalty=0.05)
    np.testing.assert_allclose(flow.alpha[-1], 0.05 * gs.sd_margin(0.05), atol=1e-10)
    np.testing.assert_allclose(flow.z[-1], gs.sd_fixed_point(U_TOY, 0.05).z, atol=1e-8)


# ------------------------------------------------------------------ named results
def test_results_are_named_tuples_that_unpack():
    point = gs.dual_fixed_point(U_TOY, S_TOY, 0.01)
    assert isinstance(point, gs.FixedPoint) and point._fields == ("alpha", "z")
    alpha, z = point
    np.testing.assert_array_equal(z, gs.feature_response(U_TOY, S_TOY, 0.01))
    np.testing.assert_allclose(z, S_TOY ** 2 * (U_TOY.T @ alpha) / 0.01, rtol=1e-14)
    for result in (gs.lambert_fixed_point(S_TOY, 0.1), gs.exact_uncoupled_response(S_TOY, 0.1),
                   gs.linearised_fixed_point(U_TOY, S_TOY, 0.1)):
        assert isinstance(result, gs.FixedPoint)
    sd = gs.sd_fixed_point(U_TOY, 0.01)
    assert isinstance(sd, gs.SpectralDecouplingPoint) and sd._fields == ("z", "margin")
    assert isinstance(sd.margin, float)
    flow = gs.integrate_dual(U_TOY, S_TOY, [0.0, 1.0, 2.0], weight_decay=0.1)
    assert isinstance(flow, gs.DualTrajectory) and flow._fields == ("t", "alpha", "z")
    np.testing.assert_array_equal(flow.t, [0.0, 1.0, 2.0])
    run = gs.dual_gd(U_TOY, S_TOY, 5, learning_rate=1e-6, weight_decay=0.1)
    assert isinstance(run, gs.DualGDTrajectory) and run.steps.tolist() == [0, 1, 2, 3, 4, 5]
    primal = gs.primal_gd_z(U_TOY, S_TOY, 4, learning_rate=0.05, weight_decay=0.1)
    assert isinstance(primal, gs.PrimalTrajectory) and primal.z.shape == (5, 2) and primal.steps[-1] == 4
    theta = gs.primal_gd_theta(np.eye(2), [1.0, 1.0], 4, learning_rate=0.05, weight_decay=0.1)
    assert isinstance(theta, gs.ParameterTrajectory) and theta.theta.shape == (5, 2)
    assert isinstance(gs.features(np.eye(2), [1.0, -1.0]), gs.Features)
    assert isinstance(gs.two_moons(10, seed=0), gs.Dataset) and isinstance(gs.make_moons(10, seed=0), gs.Dataset)


def test_every_public_function_has_a_return_annotation():
    import inspect

    for name in gs.__all__:
        obj = getattr(gs, name)
        if inspect.isclass(obj) or not callable(obj):
            continue
        function = getattr(obj, "py_func", obj)  # numba dispatchers wrap the Python function
        annotation = inspect.signature(function).return_annotation
        if name == "lambertw":
            continue  # the numerics core's
        if name == "dual_rhs":
            continue  # a numba kernel for solve_ode: rhs(t, y, params) -> ndarray by contract
        assert annotation is not inspect.Signature.empty and annotation is not tuple, name


# ------------------------------------------------------------------ the learning-rate bound of primal GD
def test_learning_rate_above_the_bound_raises_with_the_bound():
    """The reported divergence (issue 8): λ = 0.1, s = (6, 1), η = 100 returned 6.8e97; now it names the bound."""
    bound = 2.0 / (0.1 + 36.0 / 4.0)
    with pytest.raises(ValueError, match=f"learning_rate must be < 2/L = {bound:.6g}") as info:
        gs.primal_gd_z(U_TOY, [6.0, 1.0], 100, learning_rate=100.0, weight_decay=0.1)
    assert "got learning_rate = 100" in str(info.value)
    assert gs.learning_rate_bound([6.0, 1.0], weight_decay=0.1) == pytest.approx(bound, rel=1e-15)
    assert gs.learning_rate_bound([6.0, 1.0], output_penalty=0.1) == pytest.approx(2.0 / (36.0 * 0.35), rel=1e-15)
    with pytest.raises(ValueError, match="learning_rate"):
        gs.primal_gd_z(U_TOY, [6.0, 1.0], 10, learning_rate=bound, weight_decay=0.1)
    gs.primal_gd_z(U_TOY, [6.0, 1.0], 10, learning_rate=0.999 * bound, weight_decay=0.1)


def _primal_loss(Phi0, y, theta, weight_decay=None, output_penalty=None):
    logits = Phi0 @ theta
    ce = np.logaddexp(0.0, -y * logits).sum()
    return ce + (0.5 * weight_decay * theta @ theta if weight_decay else 0.5 * output_penalty * logits @ logits)


@pytest.mark.parametrize("penalty", [{"weight_decay": 0.05}, {"output_penalty": 0.05}])
def test_learning_rate_bound_is_two_over_the_largest_curvature(penalty):
    """L of the bound is the top eigenvalue of the loss's Hessian at θ = 0 (from finite differences of the
    gradient, taken from one-step gradient descent) and bounds the Hessian everywhere; below 2/L the loss
    falls at every step."""
    rng = np.random.default_rng(5)
    n, m = 3, 5
    U, V = haar_orthogonal(n, seed=rng), haar_orthogonal(m, seed=rng)
    s, y = np.array([3.0, 1.5, 0.5]), np.array([1.0, -1.0, 1.0])
    S = np.zeros((n, m))
    S[:, :n] = np.diag(s)
    Phi0 = y[:, None] * (U @ S @ V.T)
    bound = gs.learning_rate_bound(s, **penalty)
    eta = 0.5 * bound

    def gradient(theta):
        return (theta - gs.primal_gd_theta(Phi0, y, 1, learning_rate=eta, theta0=theta, **penalty).theta[1]) / eta

    def hessian_top(theta, h=1e-5):
        H = np.array([(gradient(theta + h * e) - gradient(theta - h * e)) / (2 * h) for e in np.eye(m)])
        return np.linalg.eigvalsh(0.5 * (H + H.T)).max()

    assert hessian_top(np.zeros(m)) == pytest.approx(2.0 / bound, rel=1e-7)
    for theta in rng.standard_normal((10, m)):
        assert hessian_top(theta) <= 2.0 / bound * (1 + 1e-7)
    theta_run = gs.primal_gd_theta(Phi0, y, 300, learning_rate=0.999 * bound, **penalty).theta
    losses = np.array([_primal_loss(Phi0, y, th, **penalty) for th in theta_run])
    assert np.all(np.diff(losses) <= 1e-12)


def test_learning_rate_bound_is_sharp():
    """At θ = 0 the z-space GD map's Jacobian I - η(λI + S²UᵀDU), D = I/4, has eigenvalue 1 - ηL with L = 2/bound
    (measured on the map's finite-difference Jacobian from one-step runs): it reaches -1 exactly at the bound,
    beyond which the map is unstable, and primal_gd_z refuses such a learning rate by name."""
    s, weight_decay = np.array([2.0, 0.5]), 0.1
    bound = gs.learning_rate_bound(s, weight_decay=weight_decay)
    h = 1e-6

    def smallest_eigenvalue(eta):
        def step(z0):
            return gs.primal_gd_z(U_TOY, s, 1, learning_rate=eta, weight_decay=weight_decay, z0=z0).z[1]
        J = np.array([(step(h * e) - step(-h * e)) / (2 * h) for e in np.eye(2)]).T
        return np.linalg.eigvals(J).real.min()

    for fraction in (0.5, 0.9, 0.999):
        assert smallest_eigenvalue(fraction * bound) == pytest.approx(1.0 - 2.0 * fraction, abs=1e-6)
    with pytest.raises(ValueError, match="learning_rate"):
        gs.primal_gd_z(U_TOY, s, 1, learning_rate=1.01 * bound, weight_decay=weight_decay)


# ------------------------------------------------------------------ numba callability of Lambert W
def test_lambertw_callable_from_numba_and_raises():
    import numba

    @numba.njit
    def twice(x):
        return 2.0 * gs.lambertw(x, 0)

    assert twice(math.e) == pytest.approx(2.0, rel=1e-15)
    with pytest.raises(ValueError):
        twice(-1.0)


# ------------------------------------------------------------------ regression values (Lambert forms, the Fig 6 toy, SD)
def test_case2_regression_values():
    alpha, z = gs.lambert_fixed_point(np.sqrt([4.0, 1.0, 0.25, 9.0]), 0.1)
    np.testing.assert_allclose(alpha, [0.06621559, 0.16422751, 0.32293981, 0.03640664], atol=1e-8)
    np.testing.assert_allclose(z, [2.64862371, 1.64227507, 0.80734952, 3.27659750], atol=1e-8)


def test_toy_table_delta_half():
    table = {2: (6.12044, 1.63997), 3: (7.06815, 1.58311), 4: (7.81205, 1.46681), 5: (8.46519, 1.32902),
             6: (9.07102, 1.18534)}
    for s1, expected in table.items():
        np.testing.assert_allclose(gs.feature_response(U_TOY, [s1, 2.0], 0.01), expected, atol=1e-5)


def test_sd_regression_values():
    assert gs.sd_margin(0.002) == pytest.approx(4.6651204124, abs=1e-10)
    assert gs.sd_margin(0.01) == pytest.approx(3.3592750454, abs=1e-10)
    np.testing.assert_allclose(gs.sd_fixed_point(U_TOY, 0.002).z, [6.372673, 1.707553], atol=1e-6)


def test_first_order_regression():
    np.testing.assert_allclose(gs.first_order_response(np.sqrt([9.0, 4.0]), 0.1, 1e-3), [3.28004169, 2.64586958],
                               atol=1e-8)
    assert gs.weak_response_derivative(np.sqrt([9.0, 4.0]), 0.1, 1e-3) == pytest.approx(-2.7094e-5, rel=1e-4)


def test_primal_and_dual_gd_after_50_and_1000_updates():
    primal = gs.primal_gd_z(U_TOY, S_TOY, 1000, learning_rate=0.05, weight_decay=0.01).z
    dual = gs.dual_gd(U_TOY, S_TOY, 1000, learning_rate=3e-6, weight_decay=0.01).z
    np.testing.assert_allclose(primal[50], [6.38, 0.50], atol=0.01)
    np.testing.assert_allclose(dual[50], [4.45, 0.17], atol=0.01)
    np.testing.assert_allclose(primal[51], [6.41, 0.51], atol=0.01)
    np.testing.assert_allclose(dual[51], [4.50, 0.17], atol=0.01)
    np.testing.assert_allclose(primal[1000], [9.16, 1.04], atol=0.01)
    np.testing.assert_allclose(dual[1000], [8.98, 1.10], atol=0.01)


# ------------------------------------------------------------------ limits t = 0 and t = inf
@pytest.mark.parametrize("exact, sd", [(True, False), (False, False), (True, True), (False, True)])
def test_integrate_dual_limits(exact, sd):
    alpha0 = np.array([0.3, 0.6])
    penalty = {"output_penalty": 0.1} if sd else {"weight_decay": 0.1}
    flow = gs.integrate_dual(U_TOY, [3.0, 2.0], [0.0, 0.0, 40.0], alpha0=alpha0, exact=exact, **penalty)
    np.testing.assert_array_equal(flow.alpha[0], alpha0)
    np.testing.assert_array_equal(flow.alpha[1], alpha0)
    if sd:
        expected = gs.sd_lambert_approx(0.1) if not exact else 0.1 * gs.sd_margin(0.1)
        np.testing.assert_allclose(flow.alpha[-1], expected, atol=1e-9)
    else:
        point = gs.dual_fixed_point(U_TOY, [3.0, 2.0], 0.1, exact)
        np.testing.assert_allclose(flow.alpha[-1], point.alpha, atol=1e-9)
        np.testing.assert_allclose(flow.z[-1], point.z, atol=1e-8)


def test_integrate_dual_only_zero_times():
    flow = gs.integrate_dual(U_TOY, S_TOY, [0.0], weight_decay=0.01)
    np.testing.assert_array_equal(flow.alpha, [[0.5, 0.5]])
    assert flow.z.shape == (1, 2)


def test_stiff_default_start_stays_in_domain():
    """From α_0 = ½ with s²/λ = 3600 the exact α_1 dips below 1e-100; the stiff path handles it."""
    flow = gs.integrate_dual(U_TOY, S_TOY, np.linspace(0.0, 10.0, 11), weight_decay=0.01)
    assert np.all((flow.alpha > 0) & (flow.alpha < 1))
    np.testing.assert_allclose(flow.z[-1], gs.feature_response(U_TOY, S_TOY, 0.01), atol=1e-8)


@pytest.mark.parametrize("exact", [True, False])
def test_rosenbrock_and_dop853_agree_on_a_nonstiff_flow(exact):
    """Two integrators of the numerics core, one trajectory: the Rosenbrock path is the same flow as DOP853."""
    U, s, t = gs.coupling_matrix(0.3), np.array([1.5, 1.0]), np.linspace(0.0, 3.0, 7)
    explicit = gs.integrate_dual(U, s, t, weight_decay=1.0, exact=exact,
                                 options=gs.DUAL_ODE_OPTIONS._replace(method="dop853"))
    stiff = gs.integrate_dual(U, s, t, weight_decay=1.0, exact=exact,
                              options=gs.DUAL_ODE_OPTIONS._replace(method="rosenbrock23", rtol=1e-8, atol=1e-10))
    np.testing.assert_allclose(stiff.alpha, explicit.alpha, atol=1e-6)


def test_rosenbrock_reaches_a_fixed_point_far_below_the_explicit_step():
    """Strong coupling (s²/λ up to e^10): the Eq 9 flow from ½ needs the stiff integrator; it reaches Newton's root."""
    rng = np.random.default_rng(3)
    U, s = haar_orthogonal(4, seed=rng), np.exp(rng.uniform(-2.0, 5.0, 4))
    flow = gs.integrate_dual(U, s, [0.0, 30.0], weight_decay=1.0,
                             options=gs.DUAL_ODE_OPTIONS._replace(method="rosenbrock23"))
    np.testing.assert_allclose(flow.alpha[-1], gs.dual_fixed_point(U, s, 1.0).alpha, atol=1e-8)


def test_exact_fixed_point_inside_unit_cube_under_strong_coupling():
    rng = np.random.default_rng(0)
    q = haar_orthogonal(6, seed=rng)
    alpha = gs.dual_fixed_point(q, rng.uniform(0.1, 30.0, 6), 1e-3).alpha
    assert np.all((alpha > 0) & (alpha < 1))


@pytest.mark.parametrize("exact", [True, False])
def test_starvation_map_matches_pointwise_newton(exact):
    s1, deltas = np.linspace(0.5, 6.0, 23), np.linspace(-0.95, 0.95, 17)
    z = gs.starvation_map(s1, deltas, exact=exact)
    for i, j in ((0, 0), (5, 11), (16, 22), (8, 3)):
        np.testing.assert_allclose(z[i, j], gs.feature_response(gs.coupling_matrix(deltas[i]), [s1[j], 2.0], 0.01,
                                                                exact), atol=1e-12)


def test_newton_converges_when_a_coordinate_is_near_1e_16():
    """Strong coupling drives α_2 to ~4e-16; a stopping test relative to max|α| used to stop Newton while α_2 was
    still moving (residual 6e-8 for Eq 9, 2e-7 for Eq 10)."""
    U = gs.coupling_matrix(-0.10171888) @ np.diag([1.0, -1.0])
    s, weight_decay = np.array([0.2313752, 7.73788186]), 0.00325976
    for exact in (True, False):
        alpha = gs.dual_fixed_point(U, s, weight_decay, exact).alpha
        assert alpha[1] < 1e-15
        assert _residual(U, s, weight_decay, alpha, exact) <= 1e-12


def test_newton_on_random_problems_with_large_strength_ratios():
    """1000 random problems (n = 2..4, s in [e^-3, e^3], λ in [1e-3, 10]); five of them used to raise: one by the
    early stop above, four at the float64 floor of the residual (one ulp of α moves it by ~3e-12 when s²/λ ~ 1e5).
    Every failure is collected, not only the first."""
    rng = np.random.default_rng(0)
    failures = []
    for k in range(1000):
        n = int(rng.integers(2, 5))
        U = haar_orthogonal(n, seed=rng)
        s, weight_decay = np.exp(rng.uniform(-3.0, 3.0, n)), 10.0 ** rng.uniform(-3.0, 1.0)
        for exact in (True, False):
            alpha = gs.dual_fixed_point(U, s, weight_decay, exact).alpha
            floor = 4 * np.finfo(float).eps * (np.abs(_dual_matrix(U, s, weight_decay, exact)) @ alpha).max()
            residual = _residual(U, s, weight_decay, alpha, exact)
            inside = np.all(alpha > 0) and (not exact or np.all(alpha < 1))
            if residual > max(1e-12, floor) or not inside:
                failures.append((k, exact, residual))
    assert not failures


def test_exact_uncoupled_response_for_vanishing_strength():
    alpha, z = gs.exact_uncoupled_response([1e-200, 2.0], 0.1)  # s² underflows to 0: z = 0, α = σ(0) = ½
    assert alpha[0] == 0.5 and z[0] == 0.0
    np.testing.assert_allclose(alpha[1], 0.1 * z[1] / 4.0, rtol=1e-14)  # α = λz/s² at the root


def test_lambertw_is_the_numerics_core():
    from dynamics import numerics

    assert gs.lambertw is numerics.lambertw


def test_local_numerics_are_gone():
    """The Rosenbrock integrator, the Cholesky solver and the damped Newton are the numerics core's (issue 8), and
    the theory's checks are named require_* and reuse the core's."""
    from dynamics import numerics
    from dynamics.starvation import _checks, _dynamics, _fixed_points, _kernels

    assert not hasattr(_dynamics, "_rosenbrock23") and not hasattr(_fixed_points, "_cholesky_solve")
    assert not hasattr(_fixed_points, "_newton_dual") and not hasattr(_kernels, "newton_dual")
    assert not any(name.startswith("check_") for name in dir(_checks))
    for name in dir(_checks):
        if name.startswith("require_") and hasattr(numerics, name):
            assert getattr(_checks, name) is getattr(numerics, name), name


# ------------------------------------------------------------------ invariances
def test_permutation_relabels_alpha_and_keeps_z():
    s, weight_decay = np.array([0.5, 2.0, 1.0]), 0.2
    perm = np.eye(3)[:, [2, 0, 1]]
    closed = gs.lambert_fixed_point(s, weight_decay)
    np.testing.assert_allclose(gs.dual_fixed_point(perm, s, weight_decay, exact=False).alpha, perm @ closed.alpha,
                               atol=1e-13)
    np.testing.assert_allclose(gs.feature_response(perm, s, weight_decay, exact=False), closed.z, atol=1e-13)


def test_sign_flip_of_a_feature_flips_its_response():
    flipped = U_TOY * np.array([1.0, -1.0])
    np.testing.assert_allclose(gs.feature_response(flipped, S_TOY, 0.01),
                               gs.feature_response(U_TOY, S_TOY, 0.01) * np.array([1.0, -1.0]), atol=1e-12)


def test_two_moons_margin_and_determinism():
    X, y = gs.two_moons(300, noise_std=0.1, margin=0.1, seed=3)
    assert X.shape == (300, 2) and set(np.unique(y)) == {-1.0, 1.0}
    assert np.all(-y * X[:, 0] >= 0.1 - 1e-12)
    np.testing.assert_array_equal(X, gs.two_moons(300, noise_std=0.1, margin=0.1, seed=3).X)
    assert not np.array_equal(X, gs.two_moons(300, noise_std=0.1, margin=0.1, seed=4).X)


def test_features_recover_the_svd():
    rng = np.random.default_rng(1)
    Phi0, y = rng.standard_normal((3, 5)), np.array([1.0, -1.0, 1.0])
    U, s, Vt = gs.features(Phi0, y)
    np.testing.assert_allclose((U * s) @ Vt, y[:, None] * Phi0, atol=1e-12)
    assert np.all(np.diff(s) <= 0)


# ------------------------------------------------------------------ property test
@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 4), seed=st.integers(0, 2**31 - 1), log_penalty=st.floats(-3.0, 1.0),
       exact=st.booleans(), sd=st.booleans())
def test_random_valid_inputs_give_finite_results(n, seed, log_penalty, exact, sd):
    rng = np.random.default_rng(seed)
    U = haar_orthogonal(n, seed=rng)
    s, penalty = rng.uniform(0.05, 5.0, n), 10.0 ** log_penalty
    alpha, z = gs.dual_fixed_point(U, s, penalty, exact)
    assert np.all(np.isfinite(alpha)) and np.all(np.isfinite(z)) and np.all(alpha > 0)
    assert _residual(U, s, penalty, alpha, exact) <= max(1e-12, 4e-16 * (np.abs(_dual_matrix(U, s, penalty, exact))
                                                                          @ alpha).max())
    if exact:
        assert np.all(alpha < 1)
    z_sd, m_star = gs.sd_fixed_point(U, penalty)
    assert np.all(np.isfinite(z_sd)) and m_star > 0
    assert penalty * m_star * (1 + math.exp(m_star)) == pytest.approx(1.0, rel=1e-13)
    flow = gs.integrate_dual(U, s, [0.0, 0.5, 2.0], exact=exact,
                             **({"output_penalty": penalty} if sd else {"weight_decay": penalty}))
    assert np.all(np.isfinite(flow.alpha)) and np.all(np.isfinite(flow.z)) and np.all(flow.alpha > 0)
    if exact:
        assert np.all(flow.alpha < 1)


def test_moons_refuse_a_noise_whose_draws_leave_float64():
    """Fuzz finding: noise_std = 7.7e307 gave inf coordinates (and NaN after two_moons' centring)."""
    for make in (gs.make_moons, gs.two_moons):
        with pytest.raises(ValueError, match="noise_std"):
            make(8, noise_std=7.731911140580778e307, seed=0)
        assert np.all(np.isfinite(make(8, noise_std=1e300, seed=0).X))


def test_starvation_map_serial_and_parallel_sweeps_agree_bit_for_bit():
    """Small grids run on one thread, large ones in prange: the same cells give the same numbers either way."""
    from dynamics.starvation import _fixed_points as fp
    s1, delta = np.linspace(0.5, 6.0, 40), np.linspace(-0.9, 0.9, 30)
    assert s1.size * delta.size >= fp.PARALLEL_MAP_CELLS
    large = gs.starvation_map(s1, delta, exact=False)
    small = np.stack([gs.starvation_map(s1, [d], exact=False)[0] for d in delta])
    assert np.array_equal(large, small)


# ------------------------------------------------------------------ set-ups and experiment drivers
def test_toy_configuration_is_the_authors_toy():
    """App. B.1 and the authors' toy code: δ = 0.5, s_1 = 2..6, s_2 = 2, λ = 0.01, a = 0.002, learning rates 0.05
    (primal) and 3e-6 (dual ascent from 1e-8, clamped to 1e-50)."""
    assert gs.TOY == gs.ToyConfiguration(0.5, (2.0, 3.0, 4.0, 5.0, 6.0), 2.0, 0.01, 0.002, 0.05, 3e-6, 1e-8, 1e-50)
    assert [run.output_penalty for run in gs.MOONS_RUNS] == [0.0, 0.0, 0.006]


def test_toy_trajectories_are_the_three_gradient_descents():
    runs = gs.toy_trajectories([2.0, 6.0], n_steps=50)
    assert isinstance(runs, gs.ToyTrajectories) and runs.primal.shape == (2, 51, 2)
    for k, s1 in enumerate((2.0, 6.0)):
        s = np.array([s1, 2.0])
        np.testing.assert_array_equal(runs.primal[k], gs.primal_gd_z(U_TOY, s, 50, learning_rate=0.05,
                                                                     weight_decay=0.01).z)
        np.testing.assert_array_equal(runs.dual[k], gs.dual_gd(U_TOY, s, 50, learning_rate=3e-6,
                                                               weight_decay=0.01).z)
        np.testing.assert_array_equal(runs.spectral_decoupling[k], gs.primal_gd_z(U_TOY, s, 50, learning_rate=0.05,
                                                                                  output_penalty=0.002).z)
        np.testing.assert_array_equal(runs.fixed_point[k], gs.feature_response(U_TOY, s, 0.01))
    np.testing.assert_array_equal(runs.sd_fixed_point, gs.sd_fixed_point(U_TOY, 0.002).z)


def test_toy_batch_shares_one_orthogonal_v():
    batch = gs.toy_batch(seed=3)
    assert batch.U.shape == (10, 2, 2) and batch.s.shape == (10, 2) and batch.Phi.shape == (10, 2, 2)
    Vt = [np.diag(1.0 / s) @ U.T @ Phi for U, s, Phi in zip(*batch)]  # Φ = USVᵀ
    np.testing.assert_allclose(Vt[0] @ Vt[0].T, np.eye(2), atol=1e-14)
    for other in Vt[1:]:
        np.testing.assert_allclose(other, Vt[0], atol=1e-14)
    np.testing.assert_array_equal(batch.U[5], gs.coupling_matrix(0.6))


def test_random_linear_model_is_definition_1():
    model = gs.random_linear_model([2.0, 1.0, 0.5], 5, seed=np.random.default_rng(0))
    assert isinstance(model, gs.LinearModel) and model.Phi0.shape == (3, 5)
    np.testing.assert_allclose(model.U @ model.U.T, np.eye(3), atol=1e-14)
    np.testing.assert_allclose(model.V @ model.V.T, np.eye(5), atol=1e-14)
    assert set(model.y.tolist()) <= {-1.0, 1.0}
    np.testing.assert_allclose(gs.features(model.Phi0, model.y).s, [2.0, 1.0, 0.5], rtol=1e-13)
    again = gs.random_linear_model([2.0, 1.0, 0.5], 5, seed=np.random.default_rng(0))
    np.testing.assert_array_equal(again.Phi0, model.Phi0)


def test_accuracy_drivers_measure_the_approximations():
    s = np.sqrt([0.4, 2.9, 99.9])
    exact, lambert = gs.exact_uncoupled_response(s, 0.1).alpha, gs.lambert_fixed_point(s, 0.1).alpha
    np.testing.assert_array_equal(gs.approximation_gap(s, 0.1), (lambert - exact) / exact)
    U, strengths = gs.coupling_matrix(0.2), np.sqrt([9.0, 4.0])
    reference = gs.dual_fixed_point(U, strengths, 0.1, exact=False)
    for printed in (False, True):
        approx = gs.linearised_fixed_point(U, strengths, 0.1, printed=printed).alpha
        assert gs.linearisation_error(U, strengths, 0.1, printed) == np.max(np.abs(approx - reference.alpha)
                                                                           / reference.alpha)
    assert gs.first_order_error(strengths, 0.1, 0.2) == np.abs(gs.first_order_response(strengths, 0.1, 0.2)
                                                               - reference.z).max()


@pytest.mark.parametrize("loss", gs.LOSSES)
def test_loss_tangent_touches_the_loss_and_meets_the_dual_at_zero(loss):
    """Lemma 2: the tangent at ω_0 has slope dL/dω = -α* and its value at ω = 0 is the dual objective at α*."""
    omega = np.array([-2.0, -0.3, 0.5, 2.5])  # away from the hinge's kink at 1
    tangent = gs.loss_tangent(loss, omega)
    h = 1e-6
    slope = (gs.primal_loss(loss, omega + h) - gs.primal_loss(loss, omega - h)) / (2 * h)
    np.testing.assert_allclose(tangent.slope, slope, atol=1e-8)
    np.testing.assert_allclose(tangent.intercept + tangent.slope * omega, gs.primal_loss(loss, omega), atol=1e-14)
    np.testing.assert_allclose(tangent.intercept, gs.dual_objective(loss, tangent.alpha, 0.0), atol=1e-14)


def test_response_derivative_is_a_central_difference_of_the_fixed_point():
    U, s = gs.coupling_matrix(0.3), np.array([3.0, 2.0])
    derivative = gs.response_derivative(U, s, 0.1, 1, exact=False, relative_step=1e-4)
    up, down = s.copy(), s.copy()
    up[1], down[1] = math.sqrt(4.0 * (1 + 1e-4)), math.sqrt(4.0 * (1 - 1e-4))
    expected = (gs.feature_response(U, up, 0.1, False) - gs.feature_response(U, down, 0.1, False)) / (2 * 4e-4)
    np.testing.assert_allclose(derivative, expected, rtol=1e-6)
    # Theorem 2 to first order in δ (Eq 65): the weak feature's derivative in s_1²
    small = gs.response_derivative(gs.coupling_matrix(1e-3), s, 0.1, 0, exact=False, relative_step=1e-3)[1]
    assert small == pytest.approx(gs.weak_response_derivative(s, 0.1, 1e-3), rel=3e-3)


# ------------------------------------------------------------------ more than two features, any orthogonal coupling
def _tilt_rotation(deltas):
    """exp of the skew-symmetric matrix that tilts feature 1 towards feature j + 2 by deltas[j]: the n-feature
    version of the Eq 15 coupling (the recipe docs/recipes/plot_starvation_many_features.py)."""
    from scipy.linalg import expm

    n = len(deltas) + 1
    generator = np.zeros((n, n))
    generator[1:, 0], generator[0, 1:] = deltas, -np.asarray(deltas)
    return expm(generator)


@pytest.mark.parametrize("n", [3, 5])
@pytest.mark.parametrize("coupling", ["qr", "rotation"])
def test_many_features_with_any_orthogonal_coupling(n, coupling):
    """Nothing in the general functions is tied to two features: with n = 3 or 5 and a U from a QR or a rotation,
    the Newton fixed point, the dual flow and primal gradient descent agree, Spectral Decoupling ignores s, and the
    derivatives have one entry per feature."""
    rng = np.random.default_rng(n)
    if coupling == "qr":
        Q, R = np.linalg.qr(rng.standard_normal((n, n)))
        U = Q * np.sign(np.diag(R))
    else:
        U = _tilt_rotation(np.linspace(0.1, 0.4, n - 1))
    s, weight_decay = np.geomspace(4.0, 1.0, n), 0.05
    z = gs.feature_response(U, s, weight_decay)
    flow = gs.integrate_dual(U, s, [0.0, 20.0], weight_decay=weight_decay)
    np.testing.assert_allclose(flow.z[-1], z, atol=1e-8)
    rate = 0.5 * gs.learning_rate_bound(s, weight_decay=weight_decay)
    np.testing.assert_allclose(gs.primal_gd_z(U, s, 20_000, learning_rate=rate, weight_decay=weight_decay).z[-1], z,
                               atol=1e-8)
    sd = gs.sd_fixed_point(U, weight_decay)
    np.testing.assert_allclose(sd.z, sd.margin * U.sum(axis=0), atol=1e-14)
    sd_flow = gs.integrate_dual(U, 2.0 * s, [0.0, 20.0], output_penalty=weight_decay)
    np.testing.assert_allclose(sd_flow.z[-1], sd.z, atol=1e-8)
    derivatives = np.array([gs.response_derivative(U, s, weight_decay, i) for i in range(n)])
    assert derivatives.shape == (n, n) and np.all(np.isfinite(derivatives))
    assert gs.linearised_fixed_point(U, s, weight_decay).alpha.shape == (n,)
    assert gs.jacobian(U, s, flow.alpha[-1], weight_decay=weight_decay).shape == (n, n)


def test_a_strong_feature_tilted_towards_every_weak_one_starves_them_all():
    """With feature 1's column positive on every example (the n-feature Eq 15), a stronger feature 1 lowers every
    other response under cross-entropy (Definition 2), and moves none under Spectral Decoupling."""
    U, s, weight_decay = _tilt_rotation([0.1, 0.2, 0.3, 0.4]), np.array([6.0, 3.0, 2.0, 1.5, 1.0]), 0.01
    assert np.all(U[:, 0] > 0)
    derivative = gs.response_derivative(U, s, weight_decay, 0)
    assert np.all(derivative[1:] < 0)
    stronger = s * np.array([1.5, 1.0, 1.0, 1.0, 1.0])
    assert np.all(gs.feature_response(U, stronger, weight_decay)[1:] < gs.feature_response(U, s, weight_decay)[1:])
