"""dynamics.numerics.newton: the damped Newton maximiser of strictly concave objectives over open domains
(convergence to known maximisers, the quadratic rate, the domain, the round-off floor, refusal of bad input, and the
compiled kernel called from numba code and cached on disk)."""
import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

from dynamics.numerics.newton import (NewtonOptions, NewtonResult, newton_functions, newton_maximise,
                                      newton_maximise_kernel)


# ---------------------------------------------------------------- problems with known maximisers
@numba.njit
def log_barrier(x, b):
    """F = Σ b_i log x_i - x_i²/2 on x > 0, maximised at x = √b."""
    return np.sum(b * np.log(x) - 0.5 * x * x), b / x - x


@numba.njit
def log_barrier_curvature(x, b):
    return np.diag(b / (x * x) + 1.0)


@numba.njit
def positive(x, b):
    return np.all(x > 0.0)


@numba.njit
def quadratic(x, params):
    """F = -½(x - c)ᵀA(x - c) with A = [[2, 1], [1, 2]] and c = params, maximised at c."""
    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    r = x - params
    return -0.5 * (r @ (A @ r)), -(A @ r)


@numba.njit
def quadratic_curvature(x, params):
    return np.array([[2.0, 1.0], [1.0, 2.0]])


@numba.njit
def entropy(x, params):
    """F = H(x) - c·x on (0, 1), maximised at σ(-c): a barrier at both ends."""
    c = params[0]
    a = x[0]
    value = -a * np.log(a) - (1.0 - a) * np.log1p(-a) - c * a
    return value, np.array([np.log1p(-a) - np.log(a) - c])


@numba.njit
def entropy_curvature(x, params):
    a = x[0]
    return np.array([[1.0 / (a * (1.0 - a))]])


@numba.njit
def unit_interval(x, params):
    return x[0] > 0.0 and x[0] < 1.0


@numba.njit
def steep(x, params):
    """F = S(b log x - x²/2) with S = params[0] = 1e20 and b = params[1] = 2: at the double nearest √2 the residual
    S|b/x - x| is ~1e4, far above 1e-12."""
    S, b = params[0], params[1]
    return S * np.sum(b * np.log(x) - 0.5 * x * x), S * (b / x - x)


@numba.njit
def steep_curvature(x, params):
    return np.diag(params[0] * (params[1] / (x * x) + 1.0))


@numba.njit
def steep_floor(x, params):
    """A few ulps of each term of the residual, S(b/x + x)."""
    return 4.0 * 2.220446049250313e-16 * params[0] * np.max(params[1] / x + x)


@numba.njit
def convex(x, params):
    return 0.5 * (x @ x), x


@numba.njit
def negative_curvature(x, params):
    return -np.eye(x.shape[0])


def test_log_barrier_reaches_its_maximiser():
    result = newton_maximise(log_barrier, log_barrier_curvature, [1.0, 1.0, 1.0], [4.0, 0.01, 1e-6],
                             inside=positive)
    assert isinstance(result, NewtonResult) and result.converged and result.iterations > 0
    assert result.residual <= 1e-12
    np.testing.assert_allclose(result.x, np.sqrt([4.0, 0.01, 1e-6]), rtol=0.0, atol=1e-12)  # |error| ~ residual/2


def test_concave_quadratic_takes_one_full_step():
    result = newton_maximise(quadratic, quadratic_curvature, [10.0, -7.0], [1.5, 2.5])
    np.testing.assert_allclose(result.x, [1.5, 2.5], atol=1e-14)
    assert result.iterations == 1 and result.converged


def test_quadratic_convergence_rate():
    """Newton's error squares from step to step near the maximiser: e_{k+1} <= C e_k² with C ~ |F'''/(2F'')|."""
    b = np.array([4.0])
    errors = []
    for k in range(12):
        result = newton_maximise(log_barrier, log_barrier_curvature, [0.5], b, inside=positive,
                                 options=NewtonOptions(max_iter=k))
        errors.append(abs(result.x[0] - 2.0))
    errors = np.array(errors)
    assert errors[-1] < 1e-12
    close = [(e0, e1) for e0, e1 in zip(errors[:-1], errors[1:]) if 1e-7 < e0 < 0.5]
    assert len(close) >= 2, errors
    for e0, e1 in close:
        assert e1 <= 0.5 * e0 * e0, (e0, e1)  # quadratic, not merely linear


def test_iterates_stay_inside_the_domain():
    """From next to the boundary of (0, 1) the full Newton step overshoots it: the halving keeps every iterate inside
    (the objective, a log barrier, is never evaluated outside), and the maximiser σ(-c) is reached."""
    for c, start in ((-5.0, 1e-12), (30.0, 1.0 - 1e-12), (0.0, 0.999)):
        result = newton_maximise(entropy, entropy_curvature, [start], [c], inside=unit_interval)
        assert result.converged and 0.0 < result.x[0] < 1.0
        assert result.x[0] == pytest.approx(0.5 * (1.0 - np.tanh(0.5 * c)), rel=1e-13)


def test_residual_floor_hook_accepts_what_float64_can_resolve():
    params = np.array([1e20, 2.0])
    without = newton_maximise(steep, steep_curvature, [1.0], params, inside=positive)
    assert not without.converged and without.residual > 1.0  # stopped: the iterate no longer moves
    assert without.x[0] == pytest.approx(np.sqrt(2.0), rel=1e-15)
    with_floor = newton_maximise(steep, steep_curvature, [1.0], params, inside=positive, residual_floor=steep_floor)
    assert with_floor.converged and with_floor.x[0] == pytest.approx(np.sqrt(2.0), rel=1e-15)


def test_curvature_that_is_not_positive_definite_stops_unconverged():
    result = newton_maximise(convex, negative_curvature, [1.0, 2.0])
    assert not result.converged and result.iterations == 0
    np.testing.assert_array_equal(result.x, [1.0, 2.0])


def plain_python(x, params):
    return 0.0, x


@numba.njit
def wrong_gradient_shape(x, params):
    return 0.0, np.zeros(x.shape[0] + 1)


@numba.njit
def wrong_curvature_shape(x, params):
    return np.eye(x.shape[0] + 1)


@numba.njit
def scalar_objective(x, params):
    return 0.0


@pytest.mark.parametrize("name, call", [
    ("x0", lambda: newton_maximise(log_barrier, log_barrier_curvature, [-1.0], [4.0], inside=positive)),
    ("x0", lambda: newton_maximise(log_barrier, log_barrier_curvature, [np.nan], [4.0])),
    ("x0", lambda: newton_maximise(log_barrier, log_barrier_curvature, [], [4.0])),
    ("x0", lambda: newton_maximise(log_barrier, log_barrier_curvature, [[1.0]], [4.0])),
    ("params", lambda: newton_maximise(log_barrier, log_barrier_curvature, [1.0], [np.inf])),
    ("tol", lambda: newton_maximise(log_barrier, log_barrier_curvature, [1.0], [4.0], options=NewtonOptions(tol=0.0))),
    ("max_iter", lambda: newton_maximise(log_barrier, log_barrier_curvature, [1.0], [4.0],
                                         options=NewtonOptions(max_iter=-1))),
    ("move_tol", lambda: newton_maximise(log_barrier, log_barrier_curvature, [1.0], [4.0],
                                         options=NewtonOptions(move_tol=1.0))),
    ("objective", lambda: newton_maximise(wrong_gradient_shape, log_barrier_curvature, [1.0], [4.0])),
    ("curvature", lambda: newton_maximise(log_barrier, wrong_curvature_shape, [1.0], [4.0])),
])
def test_bad_input_names_the_parameter(name, call):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("call", [
    lambda: newton_maximise(plain_python, log_barrier_curvature, [1.0], [4.0]),
    lambda: newton_maximise(scalar_objective, log_barrier_curvature, [1.0], [4.0]),
    lambda: newton_functions(log_barrier, log_barrier_curvature, inside=len),
])
def test_functions_that_are_not_compiled_for_the_signature_are_refused(call):
    with pytest.raises(TypeError, match="objective|inside"):
        call()


@pytest.mark.parametrize("options", [None, 1e-12, (1e-12, 200, 4e-16), {"tol": 1e-12}])
def test_options_of_another_type_name_the_parameter(options):
    with pytest.raises(TypeError, match="options must be a NewtonOptions"):
        newton_maximise(log_barrier, log_barrier_curvature, [1.0], [4.0], inside=positive, options=options)


@numba.njit(parallel=True)
def _sweep(functions, scales):
    """One maximisation per scale b, in parallel threads: F = b log x - x²/2 (maximiser √b)."""
    out = np.empty(scales.shape[0])
    for i in numba.prange(scales.shape[0]):
        result = newton_maximise_kernel(functions, np.ones(1), scales[i:i + 1].copy(), 1e-12, 200, 4e-16)
        out[i] = result.x[0] if result.converged else np.nan
    return out


def test_kernel_is_callable_from_numba_code_in_a_prange_sweep():
    functions = newton_functions(log_barrier, log_barrier_curvature, positive)
    scales = np.geomspace(1e-4, 1e4, 64)
    np.testing.assert_allclose(_sweep(functions, scales), np.sqrt(scales), rtol=0.0, atol=1e-12)


CACHED_PROBLEM = '''
import numba
import numpy as np
from numba.core import event

from dynamics.numerics.newton import newton_functions, newton_maximise_kernel

compiled = []


class Count(event.Listener):
    def on_start(self, ev):
        compiled.append(getattr(ev.data.get("dispatcher"), "py_func", None))

    def on_end(self, ev):
        pass


event.register("numba:compile", Count())


@numba.njit(cache=True)
def objective(x, b):
    return np.sum(b * np.log(x) - 0.5 * x * x), b / x - x


@numba.njit(cache=True)
def curvature(x, b):
    return np.diag(b / (x * x) + 1.0)


@numba.njit(cache=True)
def positive(x, b):
    return np.all(x > 0.0)


@numba.njit(cache=True, parallel=True)
def sweep(functions, scales):
    out = np.empty(scales.shape[0])
    for i in numba.prange(scales.shape[0]):
        out[i] = newton_maximise_kernel(functions, np.ones(1), scales[i:i + 1].copy(), 1e-12, 200, 4e-16).x[0]
    return out


values = sweep(newton_functions(objective, curvature, positive), np.array([4.0, 9.0]))
print([round(float(value), 9) for value in values], len(compiled))
'''


@pytest.mark.slow
def test_a_second_process_loads_the_kernels_from_the_disk_cache(tmp_path):
    """The kernel and a caller's prange sweep over it are cached (cache=True): a second process compiles nothing."""
    (tmp_path / "cached_problem.py").write_text(textwrap.dedent(CACHED_PROBLEM))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=os.pathsep.join(
        [str(tmp_path), os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]))
    runs = [subprocess.run([sys.executable, "-c", "import cached_problem"], capture_output=True, text=True, env=env,
                           check=True, cwd=tmp_path).stdout.split("] ") for _ in range(2)]
    assert runs[0][0] == runs[1][0] == "[2.0, 3.0"
    assert int(runs[0][1]) > 0 and int(runs[1][1]) == 0, runs
