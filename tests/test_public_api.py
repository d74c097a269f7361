"""The public API as a whole: every public function of every registered theory package and of the numerics core
is documented (numpydoc with Parameters, Returns and a runnable Example) and annotated; importing a theory compiles
nothing and loads no torch; and random input through every public function either raises a clean
ValueError/TypeError or returns finite values. (The layering is tested in tests/test_architecture.py.)

The fuzz covers every public function automatically (``__all__`` of each package): arguments are drawn from a
table keyed by parameter name (the glossary makes names mean the same thing everywhere). A public function with
a parameter missing from the table fails ``test_fuzz_table_covers_every_parameter``: add a strategy, not an
exception list.
"""
import contextlib
import importlib
import inspect
import os
import signal
import subprocess
import sys
import tempfile
import threading
import typing
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynamics.theories import CORE, THEORIES

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = [t.id for t in (CORE,) + THEORIES]  # the registry's packages


def _public(package):
    module = importlib.import_module(f"dynamics.{package}")
    assert hasattr(module, "__all__"), f"dynamics.{package} has no explicit __all__"
    return [(name, getattr(module, name)) for name in module.__all__]


def _functions(package):
    return [(name, obj) for name, obj in _public(package)
            if inspect.isfunction(obj) or (callable(obj) and type(obj).__name__ in ("CPUDispatcher",))]


FUNCTIONS = [(p, name, obj) for p in PACKAGES for name, obj in _functions(p)]
IDS = [f"{p}.{name}" for p, name, _ in FUNCTIONS]


def _python_function(obj):
    return getattr(obj, "py_func", obj)


@pytest.mark.parametrize("package, name, function", FUNCTIONS, ids=IDS)
def test_public_function_is_documented_and_annotated(package, name, function):
    fn = _python_function(function)
    doc = inspect.getdoc(fn) or ""
    bare = [p.name for p in inspect.signature(fn).parameters.values() if p.annotation is inspect.Parameter.empty]
    assert not bare, f"{package}.{name}: parameters without an annotation: {', '.join(bare)}"
    if name.endswith("_kernel") or name in ("integrate", "integrate_rosenbrock"):
        assert doc, f"{package}.{name}: a compiled kernel still says what it computes"
        return
    signature = inspect.signature(fn)
    assert signature.return_annotation is not inspect.Signature.empty, f"{package}.{name} has no return annotation"
    assert signature.return_annotation not in (tuple, typing.Tuple), f"{package}.{name} returns a bare tuple"
    if signature.parameters:
        assert "Parameters\n----------" in doc, f"{package}.{name}: numpydoc Parameters section missing"
    assert "Returns\n-------" in doc, f"{package}.{name}: numpydoc Returns section missing"
    assert "Examples\n--------" in doc and ">>>" in doc, f"{package}.{name}: a runnable Example is missing"


@pytest.mark.parametrize("package", PACKAGES)
def test_public_classes_are_documented(package):
    for name, obj in _public(package):
        if inspect.isclass(obj):
            assert inspect.getdoc(obj), f"{package}.{name} has no docstring"


@pytest.mark.parametrize("package", PACKAGES)
def test_import_compiles_nothing_and_loads_no_torch(package):
    """Under an empty numba cache, importing a package compiles no kernel and does not load torch (how long the import
    takes is measured in benchmarks/, not asserted here)."""
    code = ("import sys, gc; import dynamics.{p} as m; import numba.core.registry as r; "
            "n = sum(len(o.signatures) for o in gc.get_objects() if isinstance(o, r.CPUDispatcher) "
            "and getattr(o.py_func, '__module__', '').startswith('dynamics')); print(n, 'torch' in sys.modules)"
            ).format(p=package)
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    compiled, torch_loaded = out.stdout.split()
    assert int(compiled) == 0, f"importing dynamics.{package} compiled {compiled} kernels"
    assert torch_loaded == "False", f"importing dynamics.{package} loaded torch"


# --------------------------------------------------------------------------------------------------- fuzzing
from fuzz_strategies import STRATEGIES  # noqa: E402  (parameter name -> strategy, the glossary's names)

# Functions the fuzz does not call directly, with the reason (each is exercised by its own tests and claims).
NOT_FUZZED = {
    "numerics.solve_ode": "takes a numba right-hand side; fuzzed in tests/test_numerics_fuzz.py",
    "numerics.solve_ode_batch": "takes a numba right-hand side; tested in tests/test_ode.py",
    "numerics.compiled_function": "takes a numba function; tested in tests/test_ode.py",
    "numerics.integrate": "the unchecked kernel behind solve_ode (for numba code)",
    "numerics.integrate_rosenbrock": "the unchecked kernel behind solve_ode (for numba code)",
    "numerics.lu_solve": "takes lu_factor's output (tested with it in verify/numerics.py)",
    "numerics.newton_maximise": "takes numba functions (the problem); tested in tests/test_newton.py",
    "numerics.newton_functions": "takes numba functions (the problem); tested in tests/test_newton.py",
    "numerics.require_finite_result": "an argument check, exercised by every function",
    "starvation.dual_rhs": "an unchecked numba right-hand side for solve_ode (its params come from dual_params)",
}


# CI runs a reproducible (derandomized) fuzz; FUZZ_RANDOM=1 FUZZ_EXAMPLES=2000 explores further.
FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "40"))
FUZZ_RANDOM = os.environ.get("FUZZ_RANDOM", "0") == "1"

# Functions whose documented exact value can be infinite for finite input, with the reason.
MAY_RETURN_INF = {
    "numerics.log_binom_pmf": "log P = -inf for k outside 0..n (a zero probability)",
    "numerics.log_binom_sf": "log P(X >= k) = -inf for k > n",
    "and_mask.threshold_snr": "s*(1) = inf: at full agreement every finite-SNR coordinate is eventually masked",
    "and_mask.consistency_quadratic": "-C = inf when a Hessian has a null direction another does not (unbounded set)",
    "and_mask.consistency_diagonal": "as consistency_quadratic",
    "double_descent.effective_weight_decay": "lambda + 1/(eta t) = inf at t = 0 (not yet training)",
    "linear_networks.optimal_stopping_time": "inf without label noise (E_g never increases)",
    "linear_networks.per_mode_stopping_time": "inf without label noise",
    "linear_networks.asymptotic_errors": "E_g(inf) = inf at alpha = 1 with label noise",
    "linear_networks.first_crossing_time": "inf{t : value(t) >= level} = inf (the infimum of the empty set) for a "
                                           "series that never reaches its level, as documented",
}


def _fuzzable():
    for package, name, function in FUNCTIONS:
        key = f"{package}.{name}"
        if key in NOT_FUZZED or name.endswith("_kernel") or name.startswith(("require_", "as_")) \
                or name in ("format_value", "rng_from"):
            continue
        yield package, name, function


FUZZED = list(_fuzzable())


def test_fuzz_table_covers_every_parameter():
    missing = {}
    for package, name, function in FUZZED:
        for parameter in inspect.signature(_python_function(function)).parameters:
            if parameter not in STRATEGIES:
                missing.setdefault(parameter, []).append(f"{package}.{name}")
    assert not missing, f"add strategies for these parameters: {missing}"


def _numbers(value):
    """Every float reachable in ``value`` (arrays, NamedTuples, tuples, lists, dicts, scalars), as one array."""
    if isinstance(value, (str, bytes, type(None), bool, np.bool_)) or callable(value):
        return np.zeros(0)
    if isinstance(value, (int, float, np.number)):
        return np.array([float(value)])
    if isinstance(value, np.ndarray):
        return value.ravel().astype(float) if value.dtype.kind in "fiu" else np.zeros(0)
    if isinstance(value, (tuple, list)):
        return np.concatenate([np.zeros(0)] + [_numbers(v) for v in value])
    if isinstance(value, dict):
        return _numbers(list(value.values()))
    return np.zeros(0)


CALL_SECONDS = 60  # one fuzzed call; generous for a loaded machine and a first (compiling) call


class FuzzTimeout(Exception):
    """A fuzzed call ran past CALL_SECONDS: reported apart from crashes (the summary's "fuzz timeouts" section),
    since a slow argument is not a wrong result. A function whose defaults time out gets smaller documented
    defaults or its own slow test."""


def _record_timeout(text):
    """Record a timeout in the summary section that the root conftest prints."""
    root_conftest = sys.modules.get("conftest")
    if root_conftest is not None and hasattr(root_conftest, "FUZZ_TIMEOUTS"):
        root_conftest.FUZZ_TIMEOUTS.append(text)


@contextlib.contextmanager
def _time_limit(seconds, what):
    """Fail a call that runs past ``seconds`` (a hang on hostile input), where the platform has SIGALRM."""
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise FuzzTimeout(f"{what} ran for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_fuzz_timeout_is_reported_apart_from_crashes():
    """A call past its limit raises FuzzTimeout, not an assertion, and lands in the summary's timeout section."""
    import time

    if not hasattr(signal, "SIGALRM"):
        pytest.skip("no SIGALRM on this platform")
    with pytest.raises(FuzzTimeout, match="ran for more than 1 s"):
        with _time_limit(1, "a sleeping call"):
            time.sleep(3)
    before = list(sys.modules["conftest"].FUZZ_TIMEOUTS)
    _record_timeout("a sleeping call ran for more than 1 s")
    assert sys.modules["conftest"].FUZZ_TIMEOUTS[len(before):] == ["a sleeping call ran for more than 1 s"]
    sys.modules["conftest"].FUZZ_TIMEOUTS[:] = before


@pytest.mark.parametrize("package, name, function", FUZZED, ids=[f"{p}.{n}" for p, n, _ in FUZZED])
def test_fuzz_public_function(package, name, function):
    """Random arguments: a clean ValueError/TypeError, or a result without NaN, finite unless an input was
    infinite (documented limits, such as a t = inf asymptote)."""
    parameters = [p for p in inspect.signature(_python_function(function)).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    strategy = st.fixed_dictionaries({p.name: STRATEGIES[p.name] for p in parameters if p.name in STRATEGIES})

    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=not FUZZ_RANDOM,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(arguments):
        try:
            with np.errstate(all="ignore"), _time_limit(CALL_SECONDS, f"{package}.{name}{arguments}"):
                result = function(**arguments)
        except (ValueError, TypeError):
            return
        except FuzzTimeout as timeout:  # not a crash: recorded, and the next example drawn
            _record_timeout(str(timeout))
            return
        out = _numbers(result)
        assert not np.isnan(out).any(), f"{package}.{name}{arguments} returned NaN"
        infinite_input = any(np.isinf(_numbers(v)).any() for v in arguments.values())
        allowed = infinite_input or f"{package}.{name}" in MAY_RETURN_INF
        assert allowed or np.isfinite(out).all(), f"{package}.{name}{arguments} returned inf for finite input"

    run()


def test_disk_cache_reuses_results_across_processes_and_invalidates_on_new_arguments(tmp_path, monkeypatch):
    """A result computed in one process is loaded in another with the same arguments; new arguments recompute."""
    env = dict(os.environ, DYNAMICS_CACHE_DIR=str(tmp_path))
    code = ("import sys, dynamics.numerics as nx\n"
            "calls = []\n"
            "@nx.disk_cache()\n"
            "def slow(x):\n    calls.append(x)\n    return x * 2\n"
            "print(slow(int(sys.argv[1])), len(calls))")
    runs = [subprocess.run([sys.executable, "-c", code, arg], capture_output=True, text=True, env=env, check=True)
            .stdout.split() for arg in ("3", "3", "4")]
    assert runs == [["6", "1"], ["6", "0"], ["8", "1"]]


def test_disk_cache_keeps_nothing_for_an_argument_without_a_faithful_repr(tmp_path, monkeypatch):
    """A Generator's repr names its address, so two equal calls would never share a key: computed, not stored."""
    import numpy as np

    import dynamics.numerics as nx

    monkeypatch.setenv("DYNAMICS_CACHE_DIR", str(tmp_path))
    calls = []

    @nx.disk_cache()
    def draw(seed, n=2):
        calls.append(seed)
        return np.random.default_rng(seed).random(n)

    draw(np.random.default_rng(0)), draw(np.random.default_rng(0)), draw(5), draw(5)
    assert len(calls) == 3  # both Generator calls computed, the second int call read back
    assert len(list(tmp_path.rglob("*.pkl"))) == 1


TORCH_MODULES = sorted(f"{t.package}.{name}" for t in THEORIES + (CORE,) for name in t.torch_modules)


@pytest.mark.parametrize("module_name", TORCH_MODULES)
def test_torch_layer_functions_are_documented_and_annotated(module_name):
    """The torch layer is public too: each function in a torch module's ``__all__`` annotates every parameter and
    its return, and has a numpydoc docstring."""
    pytest.importorskip("torch")
    module = importlib.import_module(module_name)
    for name in module.__all__:
        obj = getattr(module, name)
        if not inspect.isfunction(obj):
            continue
        signature = inspect.signature(obj)
        bare = [p.name for p in signature.parameters.values() if p.annotation is inspect.Parameter.empty]
        assert not bare, f"{module_name}.{name}: parameters without an annotation: {', '.join(bare)}"
        assert signature.return_annotation is not inspect.Signature.empty, f"{module_name}.{name}: no return annotation"
        doc = inspect.getdoc(obj) or ""
        assert "Returns\n-------" in doc, f"{module_name}.{name}: numpydoc Returns section missing"


MAX_PARAMETERS = 8

# Public functions that still take more than MAX_PARAMETERS parameters, with their count: a debt list that may only
# shrink, and is paid off. An experiment's trainer takes a configuration object, ``(config, seeds, *, device)``; the
# integrators and the theory functions that integrate a flow take ``options`` (dynamics.numerics.OdeOptions,
# NewtonOptions), and the double-descent functions the problem (TeacherStudentProblem) and the GD run (GDSettings).
OVER_MAX_PARAMETERS: dict = {}


def _every_public_callable():
    """(qualified name without ``dynamics.``, function) for every public function of the packages and of their
    declared torch layers (the torch layer only when torch is installed)."""
    modules = [t.package for t in (CORE,) + THEORIES]
    try:
        import torch  # noqa: F401
        modules += TORCH_MODULES
    except ImportError:
        pass
    for module_name in modules:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj) or type(obj).__name__ == "CPUDispatcher":
                yield f"{module_name.removeprefix('dynamics.')}.{name}", obj


def _is_kernel_driver(name, function):
    """A numba kernel driver: a compiled function (``*_kernel``, or a numba dispatcher such as ``integrate``), called
    from compiled code, where a configuration object cannot be passed."""
    return name.endswith("_kernel") or type(function).__name__ == "CPUDispatcher"


KERNEL_DRIVERS = {name for name, f in _every_public_callable() if _is_kernel_driver(name, f)}


def _parameter_count(function):
    parameters = inspect.signature(_python_function(function)).parameters.values()
    return sum(p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters)


def test_no_public_function_takes_more_than_eight_parameters():
    """A public function takes at most 8 parameters; a longer list becomes a configuration object. The numba kernel
    drivers (``*_kernel`` and the compiled integrators) are exempt: compiled callers cannot build the objects. The
    debt list above may only shrink."""
    counts = {name: _parameter_count(f) for name, f in _every_public_callable() if name not in KERNEL_DRIVERS}
    over = {name: n for name, n in counts.items() if n > MAX_PARAMETERS}
    new = {name: n for name, n in over.items() if name not in OVER_MAX_PARAMETERS}
    assert not new, f"public functions with more than {MAX_PARAMETERS} parameters (use a configuration object): {new}"
    grown = {name: (OVER_MAX_PARAMETERS[name], n) for name, n in over.items() if n > OVER_MAX_PARAMETERS[name]}
    assert not grown, f"functions on the debt list gained parameters (listed, now): {grown}"
    paid = sorted(name for name in OVER_MAX_PARAMETERS if name in counts and counts[name] <= MAX_PARAMETERS)
    assert not paid, f"now within {MAX_PARAMETERS} parameters: remove them from OVER_MAX_PARAMETERS: {paid}"


def test_every_trainer_takes_device_as_a_keyword_defaulting_to_the_cpu():
    """One device convention: a public function of the torch layer that takes ``device`` takes it keyword-only with
    default ``"cpu"`` (the conversion helpers of the core, which take a device as data, excepted)."""
    pytest.importorskip("torch")
    helpers = {"numerics.torch_tools.as_tensor", "numerics.torch_tools.torch_device",
               "numerics.torch_tools.torch_generator"}
    wrong = []
    for name, function in _every_public_callable():
        parameter = inspect.signature(_python_function(function)).parameters.get("device")
        if parameter is None or name in helpers:
            continue
        if parameter.kind is not parameter.KEYWORD_ONLY or parameter.default != "cpu":
            wrong.append(f"{name} ({parameter.kind.description}, default {parameter.default!r})")
    assert not wrong, f"device must be keyword-only with default 'cpu': {wrong}"
