"""The numba integrators: accuracy, dense output, failure reporting, argument checking, compilation."""
import numba as nb
import numpy as np
import pytest
from scipy import integrate

from dynamics import numerics as nx
from dynamics.numerics import reference_problems as rp


@nb.njit(cache=True)
def blow_up(t, y, p):  # y' = y², y(0) = 1: y = 1/(1 - t) blows up at t = 1
    return y * y


@nb.njit(cache=True)
def returns_nan(t, y, p):
    return y * np.nan


@nb.njit(cache=True)
def wrong_length(t, y, p):
    return np.zeros(y.shape[0] + 1)


@nb.njit(cache=True)
def decay(t, y, p):
    return -p * y


@pytest.mark.parametrize("method", ["dopri5", "dop853"])
def test_adaptive_meets_tolerance_on_exact_problem(method):
    y0, params, exact = rp.rotated_logistic_problem(30, seed=4)
    t_eval = np.linspace(0.0, 6.0, 13)
    for rtol in (1e-4, 1e-8, 1e-11):
        sol = nx.solve_ode(rp.rotated_logistic_rhs, (0.0, 6.0), y0, t_eval=t_eval, params=params,
                           options=nx.OdeOptions(method=method, rtol=rtol, atol=rtol * 1e-2)).check()
        assert sol.success and sol.t.shape == t_eval.shape and sol.y.shape == (13, 30)
        assert np.abs(sol.y - exact(t_eval)).max() < 50 * rtol


@pytest.mark.parametrize("method", ["dopri5", "dop853"])
def test_same_steps_as_solve_ivp(method):
    """Same tableau, controller and starting step as SciPy: the step counts agree closely."""
    y0, params, _ = rp.rotated_logistic_problem(10, seed=5)
    sol = nx.solve_ode(rp.rotated_logistic_rhs, (0.0, 5.0), y0, params=params,
                       options=nx.OdeOptions(method=method, rtol=1e-7, atol=1e-9))
    ivp = integrate.solve_ivp(lambda t, y: rp.rotated_logistic_rhs(t, y, params), (0.0, 5.0), y0,
                              method={"dopri5": "RK45", "dop853": "DOP853"}[method], rtol=1e-7, atol=1e-9)
    assert abs(sol.nsteps - (len(ivp.t) - 1)) <= 2
    assert np.abs(sol.y[-1] - ivp.y[:, -1]).max() < 1e-6


def test_output_at_every_accepted_step_without_t_eval():
    sol = nx.solve_ode(rp.logistic_rhs, (0.0, 10.0), [0.01, 0.5], params=np.array([1.0, 2.0]))
    assert sol.t[0] == 0.0 and sol.t[-1] == 10.0 and np.all(np.diff(sol.t) > 0)
    assert len(sol.t) == sol.nsteps + 1 and sol.y.shape == (len(sol.t), 2)


def test_t_eval_endpoints_are_exact_and_repeated_times_allowed():
    t_eval = [0.0, 0.0, 2.5, 2.5, 10.0]
    sol = nx.solve_ode(decay, (0.0, 10.0), [1.0], t_eval=t_eval, params=np.array([0.5]),
                       options=nx.OdeOptions(rtol=1e-10, atol=1e-12))
    assert sol.y[0, 0] == 1.0 and sol.y[1, 0] == 1.0
    assert sol.y[2, 0] == sol.y[3, 0]
    assert np.allclose(sol.y[:, 0], np.exp(-0.5 * np.array(t_eval)), rtol=1e-9)


def test_rk4_fixed_step_lands_on_end_and_counts_evaluations():
    sol = nx.solve_ode(decay, (0.0, 1.0), [1.0], params=np.array([1.0]), options=nx.OdeOptions(method="rk4", step=0.3))
    assert sol.t[-1] == 1.0 and sol.nsteps == 4 and sol.nfev == 1 + 4 * 4
    assert abs(sol.y[-1, 0] - np.exp(-1.0)) < 1e-4


def test_blow_up_is_reported_not_returned_as_nan():
    sol = nx.solve_ode(blow_up, (0.0, 2.0), [1.0], t_eval=np.linspace(0, 2, 21))
    assert not sol.success and ("step size" in sol.message or "non-finite" in sol.message)
    # Like solve_ivp, it stops where the steps collapse, at the singularity (to within 1e-6).
    assert np.all(np.isfinite(sol.y)) and sol.t[-1] < 1.0 + 1e-6
    with pytest.raises(nx.IntegrationError, match="failed at t"):
        sol.check()


def test_nan_rhs_and_max_steps_are_reported():
    sol = nx.solve_ode(returns_nan, (0.0, 1.0), [1.0])
    assert not sol.success and "non-finite" in sol.message
    sol = nx.solve_ode(rp.logistic_rhs, (0.0, 100.0), [0.01], params=np.array([1.0]),
                       options=nx.OdeOptions(rtol=1e-12, max_steps=5))
    assert not sol.success and "max_steps" in sol.message
    sol = nx.solve_ode(blow_up, (0.0, 2.0), [1.0], options=nx.OdeOptions(method="rk4", step=0.01))
    assert not sol.success and np.all(np.isfinite(sol.y))


@pytest.mark.parametrize("kwargs, match", [
    (dict(y0=[np.nan]), "y0"), (dict(y0=[]), "y0"), (dict(y0=[[1.0]]), "y0"),
    (dict(t_span=(1.0, 0.0)), "t_span"), (dict(t_span=(0.0, np.inf)), "t_span"), (dict(t_span=(0.0,)), "t_span"),
    (dict(rtol=0.0), "rtol"), (dict(rtol=-1e-3), "rtol"), (dict(rtol=np.nan), "rtol"),
    (dict(atol=0.0), "atol"), (dict(atol=[1e-9, 1e-9]), "atol"),
    (dict(t_eval=[0.5, 0.2]), "t_eval"), (dict(t_eval=[0.0, 2.0]), "t_eval"), (dict(t_eval=[np.nan]), "t_eval"),
    (dict(method="euler"), "method"), (dict(method="rk4"), "step"), (dict(step=-0.1), "step"),
    (dict(step=1e-9), "max_steps"), (dict(max_steps=0), "max_steps"), (dict(params=[np.inf]), "params"),
])
def test_bad_input_names_the_parameter(kwargs, match):
    """A bad argument, or a bad field of the options, fails with a ValueError naming it."""
    args = dict(rhs=decay, t_span=(0.0, 1.0), y0=[1.0], params=np.array([1.0]))
    options = {name: kwargs.pop(name) for name in list(kwargs) if name in nx.OdeOptions._fields}
    args.update(kwargs, options=nx.OdeOptions(**options))
    with pytest.raises(ValueError, match=match):
        nx.solve_ode(**args)


@pytest.mark.parametrize("options", [None, "dopri5", ("dopri5", 1e-6, 1e-9), {"method": "dopri5"}])
def test_options_of_another_type_name_the_parameter(options):
    for solve in (nx.solve_ode, nx.solve_ode_batch):
        with pytest.raises(TypeError, match="options must be a OdeOptions"):
            solve(decay, (0.0, 1.0), [1.0], [1.0], np.array([1.0]), options)


def test_options_are_frozen_hashable_and_replaceable():
    options = nx.OdeOptions(method="dop853", rtol=1e-10, atol=1e-12)
    assert hash(options) == hash(nx.OdeOptions(method="dop853", rtol=1e-10, atol=1e-12))
    with pytest.raises(AttributeError):
        options.rtol = 1e-3
    assert options._replace(rtol=1e-8) == nx.OdeOptions(method="dop853", rtol=1e-8, atol=1e-12)
    assert nx.solve_ode(decay, (0.0, 1.0), [1.0], [1.0], np.array([1.0])).y.tolist() == \
        nx.solve_ode(decay, (0.0, 1.0), [1.0], [1.0], np.array([1.0]), nx.OdeOptions()).y.tolist()


def test_rhs_must_be_numba_with_matching_output():
    with pytest.raises(TypeError, match="rhs"):
        nx.solve_ode(lambda t, y, p: -y, (0.0, 1.0), [1.0])
    with pytest.raises(ValueError, match="shape"):
        nx.solve_ode(wrong_length, (0.0, 1.0), [1.0])
    with pytest.raises(ValueError, match="max_steps must be an integer"):
        nx.solve_ode(decay, (0.0, 1.0), [1.0], params=np.array([1.0]), options=nx.OdeOptions(max_steps=2.5))


def test_integrator_compiles_once_for_all_right_hand_sides():
    for rhs, p in ((decay, [1.0]), (rp.logistic_rhs, [1.0]), (blow_up, [0.0])):
        nx.solve_ode(rhs, (0.0, 0.5), [0.5], params=np.array(p))
        nx.solve_ode(rhs, (0.0, 0.5), [0.5], params=np.array(p), options=nx.OdeOptions(method="rosenbrock23"))
    from dynamics.numerics._explicit_rk import solve_explicit
    from dynamics.numerics._rosenbrock import solve_rosenbrock
    # solve_ode passes the kernels an integer address, so one compiled kernel serves every rhs
    assert len(solve_explicit.signatures) == 1 and len(solve_rosenbrock.signatures) == 1


def test_importing_the_numerics_compiles_nothing():
    import subprocess
    import sys
    code = ("import dynamics.numerics as nx; "
            "print(len(nx.integrate.signatures) + len(nx.integrate_rosenbrock.signatures) + len(nx.linalg._lu_factor.signatures))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "0"


@nb.njit(cache=True)
def stiff(t, y, p):  # y' = -k(y - cos t), stiff for k = p[0] large
    return -p[0] * (y - np.cos(t))


@nb.njit(cache=True)
def stiff_jacobian(t, y, p):
    return np.full((1, 1), -p[0])


@nb.njit(cache=True)
def log_barrier(t, y, p):  # y' = -log y - c y: NaN for y <= 0; falls steeply to the root W(c)/c for large c
    out = np.empty(1)
    out[0] = -np.log(y[0]) - p[0] * y[0] if y[0] > 0 else np.nan
    return out


def test_rosenbrock_on_a_stiff_problem_with_and_without_jacobian():
    k = 1e4
    exact = lambda t: (k * k * np.cos(t) + k * np.sin(t) - k * k * np.exp(-k * t)) / (k * k + 1)
    t_eval = np.linspace(0.0, 5.0, 11)
    for jac in (stiff_jacobian, None):
        sol = nx.solve_ode(stiff, (0.0, 5.0), [0.0], t_eval=t_eval, params=np.array([k]),
                           options=nx.OdeOptions(method="rosenbrock23", rtol=1e-5, atol=1e-8, jac=jac)).check()
        assert np.abs(sol.y[:, 0] - exact(t_eval)).max() < 1e-4 and sol.nsteps < 2000


def test_rosenbrock_bounds_hold_the_state_in_the_domain():
    c = 5000.0
    sol = nx.solve_ode(log_barrier, (0.0, 1.0), [0.9], t_eval=[0.0, 0.5, 1.0], params=np.array([c]),
                       options=nx.OdeOptions(method="rosenbrock23", rtol=1e-8, atol=1e-12,
                                             bounds=(1e-300, np.inf))).check()
    assert np.all(sol.y >= 1e-300) and abs(sol.y[-1, 0] / (nx.lambertw(c) / c) - 1.0) < 1e-6
    with pytest.raises(ValueError, match="bounds"):
        nx.solve_ode(log_barrier, (0.0, 1.0), [0.5], params=np.array([c]),
                     options=nx.OdeOptions(method="rosenbrock23", bounds=(1.0, 0.0)))
    with pytest.raises(ValueError, match="inside bounds"):
        nx.solve_ode(log_barrier, (0.0, 1.0), [0.5], params=np.array([c]),
                     options=nx.OdeOptions(method="rosenbrock23", bounds=(0.6, 2.0)))
    with pytest.raises(ValueError, match="rosenbrock23"):
        nx.solve_ode(log_barrier, (0.0, 1.0), [0.5], params=np.array([c]), options=nx.OdeOptions(bounds=(0.0, 2.0)))


def test_rosenbrock_reports_failures_and_checks_the_jacobian():
    sol = nx.solve_ode(blow_up, (0.0, 2.0), [1.0], options=nx.OdeOptions(method="rosenbrock23"))
    assert not sol.success and np.all(np.isfinite(sol.y)) and sol.t[-1] < 1.0 + 1e-3
    with pytest.raises(ValueError, match="jac must return"):
        nx.solve_ode(stiff, (0.0, 1.0), [0.0, 1.0], params=np.array([1.0]),
                     options=nx.OdeOptions(method="rosenbrock23", jac=stiff_jacobian))
    with pytest.raises(TypeError, match="jac"):
        nx.solve_ode(stiff, (0.0, 1.0), [0.0], params=np.array([1.0]),
                     options=nx.OdeOptions(method="rosenbrock23", jac=lambda t, y, p: y))


@nb.njit  # not cached: a first-class function pointer in the body cannot be cached
def _sweep_inside_numba(rates):
    out = np.empty(rates.shape[0])
    for i in range(rates.shape[0]):
        t, y, status, nfev, nsteps = nx.integrate(decay, 0.0, 1.0, np.ones(1), np.array([1.0]), True,
                                                  np.array([rates[i]]), nx.DOP853, 1e-10, np.full(1, 1e-12),
                                                  0.0, 10_000)
        out[i] = y[-1, 0] if status == 0 else np.nan
    return out


def test_integrate_is_callable_from_numba_code():
    rates = np.linspace(0.1, 3.0, 5)
    assert np.allclose(_sweep_inside_numba(rates), np.exp(-rates), rtol=1e-9)


@pytest.mark.parametrize("method", ["dopri5", "dop853", "rosenbrock23"])
def test_batch_rows_equal_single_solves(method):
    problem = rp.rotated_logistic_problem(4, seed=2)
    rows = 7
    rng = np.random.default_rng(3)
    y0s = problem.y0 + 0.01 * rng.standard_normal((rows, 4))
    t_eval = np.linspace(0.0, 3.0, 5)
    batch = nx.solve_ode_batch(rp.rotated_logistic_rhs, (0.0, 3.0), y0s, t_eval, params=problem.params,
                               options=nx.OdeOptions(method=method, rtol=1e-8, atol=1e-10)).check()
    assert batch.y.shape == (rows, 5, 4) and batch.success.all() and len(batch.message) == rows
    for b in range(rows):
        single = nx.solve_ode(rp.rotated_logistic_rhs, (0.0, 3.0), y0s[b], t_eval=t_eval, params=problem.params,
                              options=nx.OdeOptions(method=method, rtol=1e-8, atol=1e-10))
        assert np.array_equal(single.y, batch.y[b]) and single.nfev == batch.nfev[b]


def test_batch_reports_failed_rows_and_checks_shapes():
    t_eval = np.linspace(0.0, 2.0, 5)
    sol = nx.solve_ode_batch(blow_up, (0.0, 2.0), [[0.1], [1.0]], t_eval)
    assert list(sol.success) == [True, False] and sol.reached[1] < 5
    assert np.all(np.isnan(sol.y[1, sol.reached[1]:])) and np.all(np.isfinite(sol.y[1, :sol.reached[1]]))
    with pytest.raises(nx.IntegrationError, match="1 of 2 rows"):
        sol.check()
    with pytest.raises(ValueError, match="same number of rows"):
        nx.solve_ode_batch(decay, (0.0, 1.0), np.ones((3, 1)), t_eval[:2], params=np.ones((2, 1)))
    with pytest.raises(ValueError, match="t_eval"):
        nx.solve_ode_batch(decay, (0.0, 1.0), np.ones((3, 1)), None, params=np.ones((3, 1)))


@nb.njit(cache=True)
def lorenz(t, u, p):
    return np.array([10.0 * (u[1] - u[0]), u[0] * (p[0] - u[2]) - u[1], u[0] * u[1] - 8.0 / 3.0 * u[2]])


@nb.njit(cache=True)
def lorenz_into(t, u, p, out):  # the in-place contract, the same arithmetic as lorenz
    out[0] = 10.0 * (u[1] - u[0])
    out[1] = u[0] * (p[0] - u[2]) - u[1]
    out[2] = u[0] * u[1] - 8.0 / 3.0 * u[2]


def _same_rows(a, b):
    return (np.array_equal(a.y, b.y, equal_nan=True) and np.array_equal(a.nfev, b.nfev)
            and np.array_equal(a.nsteps, b.nsteps) and np.array_equal(a.reached, b.reached)
            and np.array_equal(a.success, b.success) and a.message == b.message)


@pytest.mark.parametrize("outputs", [5, 400])  # few outputs per step (direct interpolant) and many (coefficients)
@pytest.mark.parametrize("n_states", [4, 20])  # kernels with the size fixed at compile time (<= 16), and any size
def test_batch_specialised_dopri5_equals_generic_kernels(outputs, n_states):
    problem = rp.rotated_logistic_problem(n_states, seed=2)
    y0s = problem.y0 + 0.01 * np.random.default_rng(3).standard_normal((9, n_states))
    t_eval = np.linspace(0.0, 3.0, outputs)
    kwargs = dict(params=problem.params, options=nx.OdeOptions(rtol=1e-7, atol=1e-10))
    generic = nx.solve_ode_batch(rp.rotated_logistic_rhs, (0.0, 3.0), y0s, t_eval, specialise=False, **kwargs)
    fast = nx.solve_ode_batch(rp.rotated_logistic_rhs, (0.0, 3.0), y0s, t_eval, specialise=True, **kwargs)
    assert generic.success.all() and _same_rows(generic, fast)
    single = nx.solve_ode(rp.rotated_logistic_rhs, (0.0, 3.0), y0s[4], t_eval=t_eval, **kwargs)
    assert np.array_equal(single.y, fast.y[4]) and single.nfev == fast.nfev[4]


def test_batch_in_place_rhs_equals_returning_rhs():
    rhos = np.linspace(0.0, 28.0, 11)[:, None]
    t_eval = np.array([0.0, 0.25, 1.0])
    kwargs = dict(params=rhos, options=nx.OdeOptions(rtol=1e-9, atol=1e-9))
    returning = nx.solve_ode_batch(lorenz, (0.0, 1.0), [1.0, 0.0, 0.0], t_eval, specialise=False, **kwargs)
    in_place = nx.solve_ode_batch(lorenz_into, (0.0, 1.0), [1.0, 0.0, 0.0], t_eval, **kwargs)
    assert returning.success.all() and _same_rows(returning, in_place)
    # the time lands exactly on t_eval[0] = t0 and the state meets the tolerance against a tight reference
    exact = integrate.solve_ivp(lambda t, u: lorenz(t, u, rhos[-1]), (0.0, 1.0), [1.0, 0.0, 0.0], method="DOP853",
                                rtol=1e-13, atol=1e-13).y[:, -1]
    assert np.abs(in_place.y[-1, -1] - exact).max() < 1e-6


@pytest.mark.parametrize("specialise", [False, True])
def test_batch_specialised_failures_match(specialise):
    t_eval = np.linspace(0.0, 2.0, 5)
    generic = nx.solve_ode_batch(blow_up, (0.0, 2.0), [[0.1], [1.0]], t_eval, specialise=False)
    other = nx.solve_ode_batch(blow_up, (0.0, 2.0), [[0.1], [1.0]], t_eval, specialise=specialise)
    assert list(other.success) == [True, False] and _same_rows(generic, other)
    nan_rows = nx.solve_ode_batch(returns_nan, (0.0, 1.0), [[1.0], [2.0]], t_eval[:3], specialise=True)
    assert not nan_rows.success.any() and "non-finite" in nan_rows.message[0]
    short = nx.solve_ode_batch(blow_up, (0.0, 0.9), [[1.0]], [0.9], options=nx.OdeOptions(max_steps=5),
                               specialise=specialise)
    assert short.message[0] == nx.solve_ode(blow_up, (0.0, 0.9), [1.0], t_eval=[0.9],
                                            options=nx.OdeOptions(max_steps=5)).message


def test_batch_switches_to_specialised_kernels_when_long(monkeypatch):
    from dynamics.numerics import _batch_dopri5, ode
    rates = np.linspace(0.5, 2.0, 6)[:, None]
    t_eval = np.linspace(0.0, 1.0, 4)
    generic = nx.solve_ode_batch(decay, (0.0, 1.0), [1.0], t_eval, params=rates,
                                 options=nx.OdeOptions(rtol=1e-10, atol=1e-12), specialise=False)
    assert not _batch_dopri5.compiled(decay, n_states=1)  # a short batch with specialise=None compiles nothing
    nx.solve_ode_batch(decay, (0.0, 1.0), [1.0], t_eval, params=rates, options=nx.OdeOptions(rtol=1e-10, atol=1e-12))
    assert not _batch_dopri5.compiled(decay, n_states=1)
    monkeypatch.setattr(ode, "SPECIALISE_BATCH_SECONDS", 0.0)
    switched = nx.solve_ode_batch(decay, (0.0, 1.0), [1.0], t_eval, params=rates,
                                  options=nx.OdeOptions(rtol=1e-10, atol=1e-12))
    assert _batch_dopri5.compiled(decay, n_states=1) and _same_rows(generic, switched)
    assert not _batch_dopri5.compiled(decay, n_states=2)  # kernels are kept per system size


@nb.njit(cache=True)
def untypable_into(t, y, p, out):
    out[0] = y  # an array into a float: a typing error
    return out


def test_batch_in_place_and_specialise_arguments_are_checked():
    t_eval = [1.0]
    with pytest.raises(ValueError, match=r"rhs\(t, y, params, out\).*dopri5"):
        nx.solve_ode_batch(lorenz_into, (0.0, 1.0), [1.0, 0.0, 0.0], t_eval, params=[1.0],
                           options=nx.OdeOptions(method="dop853"))
    with pytest.raises(ValueError, match=r"rhs\(t, y, params, out\).*step"):
        nx.solve_ode_batch(lorenz_into, (0.0, 1.0), [1.0, 0.0, 0.0], t_eval, params=[1.0],
                           options=nx.OdeOptions(step=0.1))
    with pytest.raises(ValueError, match="specialise=False"):
        nx.solve_ode_batch(lorenz_into, (0.0, 1.0), [1.0, 0.0, 0.0], t_eval, params=[1.0], specialise=False)
    with pytest.raises(ValueError, match="specialise=True"):
        nx.solve_ode_batch(lorenz, (0.0, 1.0), [1.0, 0.0, 0.0], t_eval, params=[1.0],
                           options=nx.OdeOptions(method="rk4", step=0.1), specialise=True)
    with pytest.raises(TypeError, match="specialise"):
        nx.solve_ode_batch(lorenz, (0.0, 1.0), [1.0, 0.0, 0.0], t_eval, params=[1.0], specialise=1)
    with pytest.raises(TypeError, match=r"rhs\(t0, y0, params, out\)"):
        nx.solve_ode_batch(untypable_into, (0.0, 1.0), [1.0], t_eval)
    with pytest.raises(ValueError, match="y0s"):
        nx.solve_ode_batch(lorenz_into, (0.0, 1.0), [[np.nan, 0.0, 0.0]], t_eval, params=[1.0])


@nb.njit(cache=True)
def logit_barrier(t, a, p):  # the exact dual flow of gradient starvation: a' = log((1 - a)/a) - K a, K = p (2x2)
    K = p.reshape((2, 2))
    out = np.empty(2)
    for i in range(2):
        out[i] = np.log1p(-a[i]) - np.log(a[i]) - (K[i, 0] * a[0] + K[i, 1] * a[1]) if 0 < a[i] < 1 else np.nan
    return out


@nb.njit(cache=True)
def logit_barrier_jacobian(t, a, p):
    J = -p.reshape((2, 2)).copy()
    for i in range(2):
        J[i, i] -= 1.0 / (a[i] * (1.0 - a[i]))
    return J


def test_rosenbrock_does_not_cycle_on_clipped_steps():
    """Regression: with the states held at 1e-300, accepted steps that leaned on the clip cycled (55 000 steps
    without reaching t = 1). The clipped amount now counts as error; the flow reaches its fixed point."""
    delta, s, lam = 0.5, np.array([6.0, 2.0]), 0.01
    c = np.sqrt(1 - delta ** 2)
    U = np.array([[c, -delta], [delta, c]])
    K = (U * s ** 2) @ U.T / lam
    for autonomous in (False, True):
        sol = nx.solve_ode(logit_barrier, (0.0, 30.0), [0.08990811, 0.20733267], t_eval=[30.0], params=K.ravel(),
                           options=nx.OdeOptions(method="rosenbrock23", rtol=1e-10, atol=1e-12, max_steps=200_000,
                                                 jac=logit_barrier_jacobian, bounds=(1e-300, 1 - 2.0 ** -53),
                                                 autonomous=autonomous)).check()
        a = sol.y[-1]
        residual = np.log1p(-a) - np.log(a) - K @ a
        assert np.abs(residual).max() < 1e-7 and sol.nsteps < 20_000
    with pytest.raises(ValueError, match="rosenbrock23"):
        nx.solve_ode(decay, (0.0, 1.0), [1.0], params=np.array([1.0]), options=nx.OdeOptions(autonomous=True))


@pytest.mark.parametrize("method", ["dopri5", "dop853"])
def test_dense_output_routes_agree(method):
    """DOPRI5 evaluates steps with few output times directly from the stages and steps with many through
    per-step coefficients (DOP853 always through coefficients): at shared times both give the same interpolant
    to round-off, and the step sequence does not depend on the output times."""
    from dynamics.numerics._explicit_rk import DIRECT_DENSE_ROWS
    rates, y0 = np.array([0.7, 1.3, 2.0]), np.array([0.05, 0.1, 0.2])
    fine = np.linspace(0.0, 8.0, 4001)  # ~100 output times per step: the coefficient route
    sparse = fine[::400]                # one per several steps: the direct route
    a = nx.solve_ode(rp.logistic_rhs, (0.0, 8.0), y0, t_eval=fine, params=rates,
                     options=nx.OdeOptions(method=method, rtol=1e-9, atol=1e-12)).check()
    b = nx.solve_ode(rp.logistic_rhs, (0.0, 8.0), y0, t_eval=sparse, params=rates,
                     options=nx.OdeOptions(method=method, rtol=1e-9, atol=1e-12)).check()
    assert a.nsteps == b.nsteps and fine.size / a.nsteps > DIRECT_DENSE_ROWS
    assert np.abs(a.y[::400] - b.y).max() <= 8 * np.finfo(float).eps
    assert np.abs(a.y - rp.logistic_exact(fine, y0, rates)).max() < 1e-8
