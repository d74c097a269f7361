"""Unit and property tests of dynamics.double_descent: argument checking, limits, invariances, random valid inputs,
the result types, and the torch trainer against the closed form."""
import inspect
import typing

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dynamics.double_descent as dd

CONFIG = dict(n_samples=110, n_features=100, n_fast=70, kappa=30.0)
PROBLEM = dd.TeacherStudentProblem(**CONFIG)


@pytest.fixture(scope="module")
def small():
    return dd.draw_teacher_student(dd.TeacherStudentProblem(30, 20, 14, 10.0, noise_std=0.2), n_seeds=2, seed=1,
                                   n_test=50)


# ------------------------------------------------------------------------------------------- the public API

def test_every_public_function_has_a_named_return_annotation():
    for name in dd.__all__:
        obj = getattr(dd, name)
        if inspect.isfunction(obj):
            annotation = inspect.signature(obj).return_annotation
            assert annotation is not inspect.Signature.empty, name
            assert annotation not in (tuple, typing.Tuple), name
            assert obj.__doc__ and "Examples" in obj.__doc__, name
        elif inspect.isclass(obj):
            assert obj.__doc__ and "Examples" in obj.__doc__, name


def test_results_are_named_tuples():
    for cls in (dd.OrderParameters, dd.OrderParameterCurve, dd.BipartiteRoots, dd.PhasePoint, dd.BayesPoint,
                dd.PhasePoints, dd.SaddlePoint, dd.Modulation, dd.TeacherStudentData, dd.WeightTrajectory, dd.Extrema,
                dd.DesignRuns, dd.OutputPenaltyRuns, dd.SecondDescent):
        assert issubclass(cls, tuple) and hasattr(cls, "_fields"), cls
    r = dd.bipartite_theory([1.0, 2.0], PROBLEM)
    steps, R, Q, *_ = r  # still unpacks
    assert np.array_equal(steps, [1.0, 2.0]) and np.array_equal(R, r.R)
    assert dd.phase_points(110, 100, 70).A._fields[-2:] == ("effective_weight_decay", "rescaled_weight_decay")


def test_point_a_steps_default_to_the_analytic_mode():
    """BayesPoint (in _results, which imports no formula module) spells the analytic mode's η as a literal."""
    default = inspect.signature(dd.BayesPoint.steps_at).parameters["learning_rate"].default
    assert default == dd.ANALYTIC_LEARNING_RATE
    A = dd.phase_points(110, 100, 70).A
    assert A.steps_at() == A.steps_at(dd.ANALYTIC_LEARNING_RATE)


def test_functions_that_draw_take_seed_as_a_keyword():
    for fn in (dd.draw_teacher_student, dd.modulation_matrix, dd.teacher_student_gd_runs, dd.output_penalty_runs):
        parameter = inspect.signature(fn).parameters["seed"]
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY and parameter.default is None


# ------------------------------------------------------------------------------------------- bad input

BAD_BIPARTITE = [
    (dict(n_samples=100), "n_samples"), (dict(n_samples=80), "n_samples"), (dict(n_fast=0), "n_fast"),
    (dict(n_fast=100), "n_fast"), (dict(kappa=0.5), "kappa"), (dict(noise_std=-0.1), "noise_std"),
    (dict(weight_decay=-1.0), "weight_decay"), (dict(learning_rate=0.0), "learning_rate"),
    (dict(learning_rate=(0.5, 0.25, 0.1)), "learning_rate"), (dict(steps=[-1.0]), "steps"),
    (dict(steps=[np.nan]), "steps"), (dict(c_overlap="mine"), "c_overlap"),
    (dict(freeze_slow_at=-1.0), "freeze_slow_at"),
]


@pytest.mark.parametrize("change, name", BAD_BIPARTITE)
def test_bipartite_theory_rejects_bad_input(change, name):
    """A bad argument, or a bad field of the problem, fails with a ValueError naming it."""
    problem = PROBLEM._replace(**{k: v for k, v in change.items() if k in dd.TeacherStudentProblem._fields})
    kwargs = dict(steps=[0.0, 1.0, np.inf], problem=problem)
    kwargs.update({k: v for k, v in change.items() if k not in dd.TeacherStudentProblem._fields})
    with pytest.raises(ValueError, match=name):
        dd.bipartite_theory(**kwargs)


@pytest.mark.parametrize("fn", [lambda p: dd.bipartite_theory(1.0, p), lambda p: dd.bipartite_theory_ode([1.0], p),
                                lambda p: dd.draw_teacher_student(p, seed=0),
                                lambda p: dd.teacher_student_gd_runs([1.0], p, seed=0)])
def test_problem_of_another_type_is_refused_by_name(fn):
    for wrong in (None, (110, 100, 70, 30.0), CONFIG, "problem"):
        with pytest.raises(TypeError, match="problem must be a TeacherStudentProblem"):
            fn(wrong)


def test_gd_settings_of_another_type_are_refused_by_name(small):
    for wrong in (None, 0.1, {"learning_rate": 0.1}, (None, 0.0, "gd", 0.0, None)):
        with pytest.raises(TypeError, match="settings must be a GDSettings"):
            dd.exact_gd_order_parameters(small.modulation.draw(0), small.X[0], [1.0], wrong)


@pytest.mark.parametrize("change, name", [(dict(weight_decay=-1.0), "weight_decay"), (dict(dynamics="ode"), "dynamics"),
                                          (dict(output_penalty=-0.5), "output_penalty"),
                                          (dict(learning_rate=0.0), "learning_rate"),
                                          (dict(preconditioner=np.ones((3, 3))), "preconditioner")])
def test_gd_settings_fields_are_checked_by_name(small, change, name):
    with pytest.raises(ValueError, match=name):
        dd.exact_gd_order_parameters(small.modulation.draw(0), small.X[0], [1.0], dd.GDSettings(**change))


@pytest.mark.parametrize("name", ["n_samples", "n_features", "n_fast"])
@pytest.mark.parametrize("fn", [dd.bipartite_theory, dd.ridge_oracle, dd.bipartite_roots, dd.draw_teacher_student])
def test_sizes_must_be_integers(fn, name):
    kwargs = dict(CONFIG)
    kwargs[name] = kwargs[name] + 0.5  # e.g. n_samples = 110.5, the issue's 300.5
    with pytest.raises(ValueError, match=name):
        if fn is dd.draw_teacher_student:
            fn(dd.TeacherStudentProblem(**kwargs), seed=0)
        elif fn is dd.bipartite_theory:
            fn(1.0, dd.TeacherStudentProblem(**kwargs))
        else:
            fn(1.0, **kwargs)
    for call in (lambda: dd.phase_points(150.5, 100, 50), lambda: dd.modulation_matrix(10, 4.5, 2.0, seed=0)):
        with pytest.raises(ValueError, match="n_samples|n_fast"):
            call()


def test_the_issues_bad_inputs():
    with pytest.raises(ValueError, match="n_samples must be an integer"):
        dd.bipartite_theory(1.0, dd.TeacherStudentProblem(300.5, 250, 175, 30.0))
    with pytest.raises(ValueError, match="code_weight_decay"):
        dd.code_weight_decay_to_api(1e308)  # 4e308 would overflow
    with pytest.raises(ValueError, match="weight_decay must be > 0 where alpha <= 1.*susceptibility"):
        dd.replica_saddle_point(0.5, 0.0)
    with pytest.raises(ValueError, match="weight_decay"):
        dd.stieltjes_order_parameters(0.5, 0.0)
    with pytest.raises(ValueError, match="y must have shape"):
        dd.gd_weights(np.eye(2), 0.5, 0.5)
    with pytest.raises(ValueError, match=r"kappa must be in \[1, 1e100\], got 1e200 \(sigma_2\^2 = 1/kappa\^2"):
        dd.bipartite_theory(1.0, dd.TeacherStudentProblem(110, 100, 70, 1e200))
    with pytest.raises(ValueError, match=r"noise_std.*\(noise_std\^2 must stay inside float64\)"):
        dd.bipartite_theory(1.0, PROBLEM._replace(noise_std=1e200))


def test_bipartite_theory_type_errors():
    with pytest.raises(TypeError, match="steps"):
        dd.bipartite_theory("soon", PROBLEM)
    with pytest.raises(TypeError, match="kappa"):
        dd.bipartite_theory(1.0, dd.TeacherStudentProblem(110, 100, 70, "big"))
    with pytest.raises(TypeError, match="per_group_learning_rate"):
        dd.bipartite_theory(1.0, PROBLEM, per_group_learning_rate=1)


@pytest.mark.parametrize("call, name", [
    (lambda: dd.bipartite_theory_ode([0.0, 1.0], PROBLEM), "steps"),
    (lambda: dd.bipartite_theory_ode([2.0, 1.0], PROBLEM), "steps"),
    (lambda: dd.bipartite_theory_ode([1.0, 2.0], PROBLEM, rtol=1.0), "rtol"),
    (lambda: dd.bipartite_roots(1.0, 110, 100, 70, 30.0, weight_decay=-1), "weight_decay"),
    (lambda: dd.bipartite_from_roots(2.0, 3.0, 110, 100, 70, c_overlap="x"), "c_overlap"),
    (lambda: dd.phase_points(100, 100, 50), "n_samples"),
    (lambda: dd.phase_points(150, 100, 50, noise_std=-1), "noise_std"),
    (lambda: dd.ridge_oracle(-1.0, **CONFIG), "weight_decay"),
    (lambda: dd.ridge_oracle(1.0, 0, 100, 70, 30.0), "n_samples"),  # n <= d is allowed, n <= 0 is not
    (lambda: dd.stable_root(0.0, 1.0), "alpha"),
    (lambda: dd.stable_root(1.0, -1.0), "weight_decay"),
    (lambda: dd.stable_root(0.5, np.inf), "weight_decay"),
    (lambda: dd.printed_root(1.0, 0.0), "weight_decay"),
    (lambda: dd.printed_root(4.0, 1e-17), "weight_decay"),
    (lambda: dd.replica_saddle_point(1.0, 0.0), "weight_decay"),
    (lambda: dd.replica_saddle_point(2.0, 0.1, teacher_power=0.0), "teacher_power"),
    (lambda: dd.stieltjes_order_parameters(2.0, 0.1, noise_variance=-1.0), "noise_variance"),
    (lambda: dd.mp_stieltjes(2.0, 0.0), "weight_decay"),
    (lambda: dd.effective_weight_decay(1.0, learning_rate=-1.0), "learning_rate"),
    (lambda: dd.analytic_steps(num=1), "num"),
    (lambda: dd.code_weight_decay_to_api(-1.0), "code_weight_decay"),
    (lambda: dd.modulation_matrix(10, 0, 2.0), "n_fast"),
    (lambda: dd.modulation_matrix(10, 5, 0.5), "kappa"),
    (lambda: dd.draw_teacher_student(dd.TeacherStudentProblem(10, 10, 5, 2.0), n_seeds=0), "n_seeds"),
    (lambda: dd.draw_teacher_student(dd.TeacherStudentProblem(10, 10, 5, 2.0, noise_std=-1.0)), "noise_std"),
    (lambda: dd.q_penalty_schedule(0), "n_steps"),
    (lambda: dd.q_penalty_schedule(10, decay=0.0), "decay"),
    (lambda: dd.spectral_filter([-1.0, 1.0], [1.0], 0.1), "eigenvalues"),
    (lambda: dd.spectral_filter([1.0, 2.0], [1.0], 0.1, dynamics="sgd"), "dynamics"),
    (lambda: dd.spectral_filter([1.0, 2.0], [1.5], 0.9), "steps"),  # ηs > 1 at a non-integer step
    (lambda: dd.spectral_filter([1.0, 2.0], [1.0], 1.0), "learning_rate"),  # ηs_max = 2: GD diverges
    (lambda: dd.curve_extrema(np.ones((2, 2))), "values"),
    (lambda: dd.curve_extrema([1.0, 2.0], tolerance=-1.0), "tolerance"),
    (lambda: dd.largest_rise([1.0, np.inf]), "values"),
    (lambda: dd.largest_rise([]), "values"),
    (lambda: dd.largest_drop([]), "values"),
    (lambda: dd.second_descent([1.0, 2.0, 3.0], [0.5, 0.2]), "values"),  # not the shape of steps
    (lambda: dd.second_descent([1.0, 3.0, 2.0], [0.5, 0.2, 0.3]), "steps"),  # not increasing
    (lambda: dd.second_descent([0.0, 1.0, 2.0], [0.5, 0.2, 0.3]), "steps"),  # k = 0 has no logarithm
    (lambda: dd.second_descent([1.0, 2.0, 3.0], [0.5, 0.4, 0.3]), "values"),  # monotone: no first minimum
    (lambda: dd.second_descent([1.0, 2.0, 3.0], [0.5, 0.2, 0.3]), "values"),  # a U: no peak after the minimum
    (lambda: dd.second_descent([1.0, 2.0, 3.0, 4.0], [0.5, 0.2, 0.3, 0.1], tolerance=-1.0), "tolerance"),
    (lambda: dd.spectral_filter([], [1.0], 0.1), "eigenvalues"),
    (lambda: dd.scheduled_filter([], [1], 0.1, np.zeros(1)), "eigenvalues"),
    (lambda: dd.ridge_oracle(0.1, 110, 100, 70, 1e200), "kappa"),
    (lambda: dd.ridge_oracle(0.0, 100, 100, 70, 30.0), "weight_decay"),  # n = d, λ = 0: interpolation threshold
    (lambda: dd.ridge_oracle(0.1, 110, 100, 100, 30.0), "n_fast"),
    (lambda: dd.phase_points(150, 100, 50, noise_std=1e200), "noise_std"),
    (lambda: dd.bipartite_from_roots(0.5, 3.0, 110, 100, 70), "a1"),  # below the larger root's floor
    (lambda: dd.bipartite_from_roots(2.0, np.nan, 110, 100, 70), "a2"),
    (lambda: dd.bipartite_from_roots(2.0, 3.0, 80, 100, 70), "n_samples"),
    (lambda: dd.bipartite_from_roots(2.0, 3.0, 110, 100, 170), "n_fast"),
    (lambda: dd.bipartite_from_roots(2.0, 3.0, 110, 100, 70, noise_std=-1.0), "noise_std"),
    (lambda: dd.bipartite_from_roots([2.0, 2.0], [4.0, 4.0, 4.0], 110, 100, 70), "a1"),
    (lambda: dd.draw_teacher_student(dd.TeacherStudentProblem(10, 10, 5, 1e200)), "kappa"),
    (lambda: dd.draw_teacher_student(dd.TeacherStudentProblem(10, 10, 5, 2.0, noise_std=1e200)), "noise_std"),
    (lambda: dd.generalization_error(0.5, -0.1), "Q"),
    (lambda: dd.generalization_error([0.5, 0.2], [0.1, 0.2, 0.3]), "R"),
    (lambda: dd.generalization_error(np.nan, 0.1), "R"),
    (lambda: dd.generalization_error(0.5, 0.1, teacher_power=0.0), "teacher_power"),
    (lambda: dd.generalization_error(-1.7e308, 1.7e308), "R or Q"),
    (lambda: dd.inverse_max_eigenvalue_learning_rate(np.ones(3)), "X"),
    (lambda: dd.inverse_max_eigenvalue_learning_rate(np.ones((3, 2)), factor=2.0), "factor"),
    (lambda: dd.inverse_max_eigenvalue_learning_rate(np.ones((3, 2)), factor=0.0), "factor"),
    (lambda: dd.inverse_max_eigenvalue_learning_rate(np.ones((3, 2)), weight_decay=-1.0), "weight_decay"),
    (lambda: dd.inverse_max_eigenvalue_learning_rate(np.ones((3, 2)), loss_normalization="max"),
     "loss_normalization"),
    (lambda: dd.inverse_max_eigenvalue_learning_rate(np.zeros((3, 2))), "weight_decay"),
    (lambda: dd.inverse_max_eigenvalue_learning_rate(np.full((3, 2), 1e160)), "X"),
    (lambda: dd.inverse_max_eigenvalue_learning_rate(np.full((3, 2), 1e-170)), "zero"),
    (lambda: dd.inverse_max_eigenvalue_learning_rate(np.full((3, 2), 1e-160)), "lambda_max"),
    (lambda: dd.output_penalty_runs([2, 1], 30, 20, 14, 10.0, seed=0), "steps"),
    (lambda: dd.output_penalty_runs([1.5], 30, 20, 14, 10.0, seed=0), "steps"),
    (lambda: dd.teacher_student_gd_runs([1.0], dd.TeacherStudentProblem(30, 20, 14, 10.0), seed=0, n_test=0),
     "n_test"),
    (lambda: dd.teacher_student_gd_runs([-1.0], dd.TeacherStudentProblem(30, 20, 14, 10.0), seed=0), "steps"),
])
def test_public_functions_reject_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_simulation_functions_reject_bad_input(small):
    F, X, y = small.modulation.draw(0), small.X[0], small.y[0]
    cases = [
        (lambda: dd.exact_gd_order_parameters(np.ones((20, 19)), X, [1.0]), "F"),
        (lambda: dd.exact_gd_order_parameters(F, X[:, :5], [1.0]), "X"),
        (lambda: dd.exact_gd_order_parameters(F, X, [1.0], method="qr"), "method"),
        (lambda: dd.exact_gd_order_parameters(F, X, [1.0], dd.GDSettings(learning_rate=10.0)), "learning_rate"),
        (lambda: dd.exact_gd_order_parameters(F, X, [-1.0]), "steps"),
        (lambda: dd.exact_gd_order_parameters(F, None, [1.0]), "X"),
        (lambda: dd.exact_gd_order_parameters(F, None, [1.0], eigenvalues=np.ones(20), eigenvectors=np.ones((20, 20))),
         "eigenvectors"),
        (lambda: dd.exact_gd_order_parameters(small.modulation, X, [1.0]), "F"),
        (lambda: dd.exact_gd_order_parameters(F, X, [1.0], noise_std=-1.0), "noise_std"),
        (lambda: dd.gd_weights(X, y[:5], [1.0]), "y"),
        (lambda: dd.gd_weights(X, y, [1.0], output_penalty=-1.0), "output_penalty"),
        (lambda: dd.gd_weights(X, y, [1.0], preconditioner=np.zeros((20, 20))), "preconditioner"),
        (lambda: dd.ridge_weights(X, y, [-1.0]), "weight_decay"),
        (lambda: dd.iterate_gd(X, y, [3, 1], 0.1), "steps"),
        (lambda: dd.iterate_gd(X, y, [1.5], 0.1), "steps"),
        (lambda: dd.iterate_gd(X, y, [1], 0.1, loss_normalization="median"), "loss_normalization"),
        (lambda: dd.iterate_gd(X, y, [5], 0.1, output_penalty_schedule=np.ones(2)), "output_penalty_schedule"),
        (lambda: dd.iterate_gd(X, y, [5], 10.0), "learning_rate"),
        (lambda: dd.scheduled_gd_order_parameters(F, X, [5], np.ones(3)), "output_penalty_schedule"),
        (lambda: dd.scheduled_gd_weights(X, y, [5], np.ones(3)), "output_penalty_schedule"),
        (lambda: dd.scheduled_gd_weights(X, y, [5], np.ones(5), learning_rate=10.0), "learning_rate"),
        (lambda: dd.scheduled_gd_weights(X, y[:5], [5], np.ones(5)), "y"),
        (lambda: dd.design_order_parameters(small, [1.0], learning_rate=[0.01, 0.01, 0.01]), "learning_rate"),
        (lambda: dd.design_order_parameters(small, [1.0], noise_std=-1.0), "noise_std"),
        (lambda: dd.scheduled_filter([1.0, -1.0], [1, 2], 0.1, np.zeros(2)), "eigenvalues"),
        (lambda: dd.measure_order_parameters(np.ones((2, 5)), small.w, small.modulation), "w_hat"),
        (lambda: dd.test_error(np.ones((2, 5)), small), "w_hat"),
        (lambda: dd.gradient_flow_weights_ode(X, y, [2.0, 1.0], 0.1), "steps"),
        (lambda: small.modulation.draw(5), "index"),
        (lambda: F.draw(0), "single draw"),
    ]
    for call, name in cases:
        with pytest.raises(ValueError, match=name):
            call()
    with pytest.raises(TypeError, match="modulation"):
        dd.measure_order_parameters(np.ones((2, 20)), small.w, np.eye(20))
    with pytest.raises(TypeError, match="seed"):
        dd.draw_teacher_student(dd.TeacherStudentProblem(10, 10, 5, 2.0), seed="one")
    with pytest.raises(TypeError, match="haar"):
        dd.modulation_matrix(10, 5, 2.0, haar="no")
    with pytest.raises(TypeError, match="normalized_teacher"):
        dd.draw_teacher_student(dd.TeacherStudentProblem(10, 10, 5, 2.0), normalized_teacher="no")
    with pytest.raises(TypeError, match="data"):
        dd.test_error(np.ones((2, 20)), {"Z_test": small.Z_test})
    with pytest.raises(TypeError, match="data"):
        dd.design_order_parameters({"X": small.X}, [1.0])
    with pytest.raises(ValueError, match="num"):
        dd.analytic_steps(num=2.5)
    no_test = dd.draw_teacher_student(dd.TeacherStudentProblem(30, 20, 14, 10.0), n_seeds=2, seed=1)
    with pytest.raises(ValueError, match="n_test"):
        dd.test_error(np.ones((2, 20)), no_test)


# ------------------------------------------------------------------------------------------- limits

def test_bipartite_limits_at_zero_and_infinite_steps():
    r = dd.bipartite_theory([0.0, np.inf], dd.TeacherStudentProblem(120, 100, 80, 40.0, noise_std=0.2))
    C = dd.phase_points(120, 100, 80, 0.2).C
    assert r.R[0] == 0 and r.Q[0] == 0 and r.generalization_error[0] == 0.5
    assert r.noisy_generalization_error[0] == pytest.approx(0.5 + 0.02)
    assert r.R[1] == pytest.approx(1.0, abs=1e-12) and r.Q[1] == pytest.approx(C.Q, abs=1e-12)
    assert r.noisy_generalization_error[1] == pytest.approx(0.12, abs=1e-12)


def test_exact_gd_limits(small):
    F, X = small.modulation.draw(0), small.X[0]
    r = dd.exact_gd_order_parameters(F, X, [0.0, np.inf], noise_std=0.2)
    assert r.R[0] == 0 and r.Q[0] == 0 and r.generalization_error[0] == 0.5
    assert r.R[1] == pytest.approx(1.0, abs=1e-12)  # n > d: OLS recovers the teacher in the teacher average
    flow = dd.exact_gd_order_parameters(F, X, [0.0, np.inf], dd.GDSettings(dynamics="flow"), noise_std=0.2)
    assert np.allclose(flow.Q, r.Q, atol=1e-12)
    w = dd.gd_weights(X, small.y[0], [0.0, np.inf])
    assert np.all(w[0] == 0)
    assert np.allclose(w[1], dd.ridge_weights(X, small.y[0], 0.0)[0], atol=1e-10)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 14), d=st.integers(1, 14), duplicate=st.booleans(), seed=st.integers(0, 2**16))
def test_ridge_weights_match_the_normal_equations_on_both_routes(n, d, duplicate, seed):
    """ridge_weights against an independent route: np.linalg.solve of the normal equations for λ > 0 and the
    pseudo-inverse for λ = 0 (the minimum-norm solution). A full-rank Gram matrix (the smaller of XᵀX and XXᵀ) takes
    the tridiagonal route; a rank-deficient one (a duplicated column) the eigendecomposition route."""
    from dynamics.double_descent import _spectral

    rng = np.random.default_rng(seed)
    X, y = rng.standard_normal((n, d)), rng.standard_normal(n)
    if duplicate and d >= 2 and n >= 2:
        X[:, 1] = X[:, 0]
    lam = np.array([0.0, 1e-3, 0.5, 20.0])
    spectral_calls = []
    original = _spectral._ridge_spectral
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_spectral, "_ridge_spectral", lambda *a: spectral_calls.append(1) or original(*a))
        w = dd.ridge_weights(X, y, lam)
    reference = [np.linalg.pinv(X) @ y] + [np.linalg.solve(X.T @ X + l * np.eye(d), X.T @ y) for l in lam[1:]]
    scale = np.linalg.cond(X.T @ X + 1e-3 * np.eye(d)) * 1e-14 + 1e-12  # the normal equations' conditioning
    for got, want in zip(w, reference):
        assert np.allclose(got, want, rtol=scale * 1e3, atol=scale * np.abs(want).max())
    rank_deficient = np.linalg.matrix_rank(X) < min(n, d)
    assert bool(spectral_calls) == (rank_deficient or min(n, d) == 1)


def test_ridge_oracle_limits():
    o = dd.ridge_oracle([1e14, 0.0], **CONFIG, noise_std=0.3)
    assert o.R[0] == pytest.approx(0.0, abs=1e-9) and o.Q[0] == pytest.approx(0.0, abs=1e-9)
    assert o.R[1] == pytest.approx(1.0) and o.Q[1] == pytest.approx(1 + 0.09 * 100 / 10)


def test_underparametrised_zero_modes_do_not_give_nan():
    # n < d: 5 zero eigenvalues
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(15, 20, 14, 10.0, noise_std=0.3), n_seeds=1, seed=3)
    r = dd.exact_gd_order_parameters(data.modulation.draw(0), data.X[0], [0.0, 1.0, 1e3, np.inf], noise_std=0.3)
    assert np.all(np.isfinite(r.Q)) and np.all(np.isfinite(r.R))
    w = dd.gd_weights(data.X[0], data.y[0], [np.inf])
    assert np.all(np.isfinite(w))


def test_case1_ridgeless_limits():
    above = dd.stieltjes_order_parameters(2.0, 0.0, 1.0, 0.5)
    below = dd.stieltjes_order_parameters(0.5, 1e-12, 1.0, 0.5)  # α < 1 needs weight_decay > 0: take the limit
    assert above.R == pytest.approx(1.0) and above.Q == pytest.approx(1.5)
    assert below.R == pytest.approx(0.5, abs=1e-9) and below.Q == pytest.approx(0.5 + 0.5, abs=1e-9)
    assert dd.replica_saddle_point(2.0, 1e-12, 1.0, 0.5).Q == pytest.approx(1.5, rel=1e-9)


# ------------------------------------------------------------------------------------------- invariances

def test_group_swap_symmetry_at_kappa_one():
    steps = np.logspace(-2, 4, 30)
    a = dd.bipartite_theory(steps, dd.TeacherStudentProblem(130, 100, 30, 1.0))
    b = dd.bipartite_theory(steps, dd.TeacherStudentProblem(130, 100, 70, 1.0))
    assert np.allclose(a.R1, b.R2, rtol=1e-13) and np.allclose(a.Q1, b.Q2, rtol=1e-13)


def test_learning_rate_and_steps_enter_as_a_product():
    steps = np.logspace(-2, 4, 30)
    a = dd.bipartite_theory(steps, PROBLEM, learning_rate=0.25)
    b = dd.bipartite_theory(2 * steps, PROBLEM, learning_rate=0.125)
    assert np.allclose(a.generalization_error, b.generalization_error, rtol=1e-13)


def test_a_pair_of_learning_rates_sets_each_groups_time_scale():
    steps = np.logspace(-2, 6, 30)
    pair = dd.bipartite_theory(steps, PROBLEM, learning_rate=(0.5, 0.25))
    fast = dd.bipartite_theory(steps, PROBLEM, learning_rate=0.5)
    slow = dd.bipartite_theory(steps, PROBLEM, learning_rate=0.25)
    roots = dd.bipartite_roots(steps, **CONFIG, learning_rate=(0.5, 0.25))
    assert np.array_equal(roots.a1, dd.bipartite_roots(steps, **CONFIG, learning_rate=0.5).a1)
    assert np.array_equal(roots.a2, dd.bipartite_roots(steps, **CONFIG, learning_rate=0.25).a2)
    assert np.all(pair.R1 == fast.R1) and np.all(pair.R2 == slow.R2)


def test_trace_formulas_are_invariant_to_left_rotations_of_F(small):
    F, X = small.modulation.draw(0).matrix, small.X[0]
    O = dd.modulation_matrix(20, 10, 1.0, seed=5).U[0]
    a = dd.exact_gd_order_parameters(F, X, [1.0, 10.0], noise_std=0.2)
    b = dd.exact_gd_order_parameters(O @ F, X, [1.0, 10.0], noise_std=0.2)
    assert np.allclose(a.Q, b.Q, atol=1e-12) and np.allclose(a.R, b.R, atol=1e-12)


def test_hadamard_kernel_equals_direct_traces(small):
    F, X = small.modulation.draw(1), small.X[1]
    steps = np.concatenate([[0.0, 0.3], np.logspace(0, 5, 12), [np.inf]])
    for settings, noise_std in ((dd.GDSettings(), 0.0), (dd.GDSettings(weight_decay=0.1), 0.3),
                                (dd.GDSettings(dynamics="flow", output_penalty=0.5), 0.0),
                                (dd.GDSettings(preconditioner=F.preconditioner_factor), 0.0)):
        for modulation in (F, F.matrix):
            fast = dd.exact_gd_order_parameters(modulation, X, steps, settings, noise_std=noise_std)
            direct = dd.exact_gd_order_parameters(modulation, X, steps, settings, noise_std=noise_std,
                                                  method="matrix")
            for name in ("R", "Q", "R1", "Q2"):
                if getattr(fast, name) is not None:
                    assert np.allclose(getattr(fast, name), getattr(direct, name), atol=1e-13, rtol=0), name
            assert np.array_equal(fast.steps, steps)


def test_same_seed_same_data_and_vectorised_weights(small):
    again = dd.draw_teacher_student(dd.TeacherStudentProblem(30, 20, 14, 10.0, noise_std=0.2), n_seeds=2, seed=1,
                                    n_test=50)
    assert np.array_equal(again.X, small.X) and np.array_equal(again.y, small.y)
    assert np.allclose(np.sum(small.w ** 2, -1), 20.0)
    batched = dd.gd_weights(small.X, small.y, [3.0])
    single = dd.gd_weights(small.X[1], small.y[1], [3.0])
    assert np.allclose(batched[1], single, atol=1e-13)
    many_teachers = dd.gd_weights(small.X[0], small.y, [3.0])  # labels broadcast against one design
    assert many_teachers.shape == (2, 1, 20)


# ------------------------------------------------------------------------------------------- learning rate, drivers

def test_inverse_max_eigenvalue_learning_rate(small):
    top = np.linalg.eigvalsh(np.swapaxes(small.X, 1, 2) @ small.X).max(-1)
    assert np.array_equal(dd.inverse_max_eigenvalue_learning_rate(small.X), 1.0 / top)
    single = dd.inverse_max_eigenvalue_learning_rate(small.X[1], weight_decay=0.1, factor=0.9)
    assert isinstance(single, float) and single == 0.9 / (top[1] + 0.1)
    mean = dd.inverse_max_eigenvalue_learning_rate(small.X[0], weight_decay=0.5, loss_normalization="mean")
    assert mean == 1.0 / (top[0] / small.X.shape[1] + 0.5)
    # GD on ½‖Xŵ − y‖² is stable below 2/λ_max: iterate_gd accepts factor 1.99 and refuses 2
    X, y = small.X[0], small.y[0]
    eta = dd.inverse_max_eigenvalue_learning_rate(X, factor=1.99)
    assert np.all(np.isfinite(dd.iterate_gd(X, y, [50], eta).weights))
    with pytest.raises(ValueError, match="learning_rate"):
        dd.iterate_gd(X, y, [50], 2.0 * dd.inverse_max_eigenvalue_learning_rate(X))
    # the default of the closed forms is the same η
    assert np.allclose(dd.gd_weights(X, y, [3.0]), dd.gd_weights(X, y, [3.0], learning_rate=1.0 / top[0]),
                       atol=1e-13)


def test_generalization_error_is_the_order_parameters_field(small):
    r = dd.exact_gd_order_parameters(small.modulation.draw(0), small.X[0], [0.0, 3.0, 30.0, np.inf], noise_std=0.2)
    assert np.array_equal(dd.generalization_error(r.R, r.Q), r.generalization_error)
    R, Q = np.meshgrid(np.linspace(0, 1.05, 5), np.linspace(0, 1.3, 4))
    assert np.array_equal(2.0 * dd.generalization_error(R, Q), 1 - 2 * R + Q)
    assert float(dd.generalization_error(0.2, 0.3, teacher_power=2.0)) == pytest.approx(0.95)


def test_design_order_parameters_stack_the_per_design_trace_formulas(small):
    steps = [0.0, 2.0, 40.0, np.inf]
    curves = dd.design_order_parameters(small, steps, weight_decay=0.05)
    eta = dd.inverse_max_eigenvalue_learning_rate(small.X)
    given = dd.design_order_parameters(small, steps, learning_rate=eta, noise_std=0.0)
    for i in range(2):
        one = dd.exact_gd_order_parameters(small.modulation.draw(i), small.X[i], steps,
                                           dd.GDSettings(weight_decay=0.05), noise_std=small.noise_std)
        other = dd.exact_gd_order_parameters(small.modulation.draw(i), small.X[i], steps,
                                             dd.GDSettings(learning_rate=eta[i]))
        for name in ("R", "Q", "generalization_error", "noisy_generalization_error", "R1", "R2", "Q1", "Q2"):
            assert np.array_equal(getattr(curves, name)[i], getattr(one, name)), name
            assert np.array_equal(getattr(given, name)[i], getattr(other, name)), name
    assert np.array_equal(curves.steps, steps)


def test_scheduled_gd_weights_follow_explicit_gd(small):
    schedule = dd.q_penalty_schedule(60)
    record = [0, 1, 7, 60]
    eta = 0.5 * dd.inverse_max_eigenvalue_learning_rate(small.X).min()
    closed = dd.scheduled_gd_weights(small.X, small.y, record, schedule, learning_rate=eta)
    explicit = dd.iterate_gd(small.X, small.y, record, eta, output_penalty_schedule=schedule).weights
    assert closed.shape == (2, 4, 20) and np.allclose(closed, explicit, atol=1e-12)
    single = dd.scheduled_gd_weights(small.X[1], small.y[1], record, schedule)
    s, W = np.linalg.eigh(small.X[1].T @ small.X[1])
    filt = dd.scheduled_filter(s, record, None, schedule)
    assert np.allclose(single, (filt * (W.T @ (small.X[1].T @ small.y[1]))) @ W.T, atol=1e-12)


def test_experiment_drivers_equal_their_parts():
    steps = np.array([0.0, 1.0, 30.0, 1e4])
    runs = dd.teacher_student_gd_runs(steps, dd.TeacherStudentProblem(30, 20, 14, 10.0), n_seeds=2, seed=4, n_test=40)
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(30, 20, 14, 10.0), n_seeds=2, seed=4, n_test=40)
    assert np.array_equal(runs.data.X, data.X) and np.array_equal(runs.steps, steps)
    assert np.array_equal(runs.test_errors, dd.test_error(dd.gd_weights(data.X, data.y, steps), data))
    assert np.array_equal(runs.trace_errors, dd.design_order_parameters(data, steps).generalization_error)
    assert np.array_equal(runs.learning_rates, dd.inverse_max_eigenvalue_learning_rate(data.X))
    record = np.array([0, 5, 500])
    penalty = dd.output_penalty_runs(record, **dd.OUTPUT_PENALTY_SETUP, n_seeds=2, seed=6)
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(**dd.OUTPUT_PENALTY_SETUP), n_seeds=2, seed=6)
    schedule = dd.q_penalty_schedule(500)
    assert np.array_equal(penalty.schedule, schedule) and np.array_equal(penalty.steps, record)
    for i in range(2):
        F, X = data.modulation.draw(i), data.X[i]
        assert np.array_equal(penalty.without[i], dd.exact_gd_order_parameters(F, X, record).generalization_error)
        assert np.array_equal(penalty.with_penalty[i],
                              dd.scheduled_gd_order_parameters(F, X, record, schedule).generalization_error)


def test_the_sources_configurations_are_read_only():
    assert dict(dd.PHASE_DIAGRAM_SIZES) == dict(n_samples=110, n_features=100, n_fast=70)
    assert dd.PHASE_DIAGRAM_KAPPAS[0] == 1.0 and dd.OUTPUT_PENALTY_SETUP["kappa"] == 30.0
    with pytest.raises(TypeError):
        dd.PHASE_DIAGRAM_SIZES["n_samples"] = 120


def test_haar_draws_follow_the_core_sampler():
    from dynamics.numerics import haar_orthogonal
    F = dd.modulation_matrix(6, 2, 3.0, n_seeds=2, seed=9)
    rng = np.random.default_rng(9)
    assert np.array_equal(F.U, haar_orthogonal(6, seed=rng, n_matrices=2))
    assert np.array_equal(F.V, haar_orthogonal(6, seed=rng, n_matrices=2))


def test_curve_descriptors():
    y = np.array([1.0, 0.5, 0.7, 0.2, 0.2, 0.3])
    ext = dd.curve_extrema(y)
    assert list(ext.minima) == [1, 3] and list(ext.maxima) == [2]
    assert dd.largest_rise(y) == pytest.approx(0.2) and dd.largest_drop(y) == pytest.approx(0.8)
    assert dd.curve_extrema(np.linspace(1, 0, 10)).maxima.size == 0


def test_second_descent_reads_a_sampled_curve():
    k = np.geomspace(1.0, 1e6, 7)  # one sample per decade: ln k = j ln 10
    y = [0.5, 0.2, 0.3, 0.4, 0.3, 0.1, 0.1]
    r = dd.second_descent(k, y)
    assert (r.first_minimum_step, r.first_minimum, r.peak_step, r.peak) == (10.0, 0.2, 1e3, 0.4)
    assert r.peak_height == pytest.approx(0.2) and (r.second_minimum_step, r.second_minimum) == (1e5, 0.1)
    # half-way down is 0.25, between 0.3 at 1e4 and 0.1 at 1e5: a quarter of the decade, interpolated in ln k
    assert r.second_descent_step == pytest.approx(10 ** 4.25, rel=1e-12)
    assert r.recovery_step == pytest.approx(10 ** 4.5, rel=1e-12)  # back at the first minimum's 0.2
    # a later rise ends the second descent at the interior minimum; never back down to the first minimum: None
    r = dd.second_descent(k, [0.5, 0.2, 0.4, 0.3, 0.35, 0.36, 0.37])
    assert (r.second_minimum_step, r.second_minimum, r.recovery_step) == (1e3, 0.3, None)
    # wiggles below the tolerance are not extrema
    with pytest.raises(ValueError, match="no interior minimum"):
        dd.second_descent(k, [0.5, 0.4, 0.4 + 1e-12, 0.3, 0.2, 0.1, 0.0])


def test_second_descent_of_the_theory():
    """In the Fig 4.4 configuration the first minimum is point A, the bump grows with κ and the second descent comes
    κ² later (the slow group's time scale, Eq 4.2.12); with label noise and κ = 1 there is no second descent."""
    k = dd.analytic_steps(600, -3, 12)
    A = dd.phase_points(110, 100, 70).A
    problem = dd.TeacherStudentProblem(110, 100, 70, 1.0)
    found = {kappa: dd.second_descent(k, dd.bipartite_theory(k, problem._replace(kappa=kappa)).generalization_error)
             for kappa in (1e2, 1e3, 1e4)}
    ratio = k[1] / k[0]
    for r in found.values():
        assert A.steps_at() / ratio <= r.first_minimum_step <= A.steps_at() * ratio
        assert r.first_minimum == pytest.approx(A.generalization_error, abs=1e-3)
        assert r.first_minimum_step < r.peak_step < r.recovery_step < r.second_descent_step < r.second_minimum_step
    assert found[1e2].peak_height < found[1e3].peak_height < found[1e4].peak_height
    assert found[1e4].second_descent_step / found[1e3].second_descent_step == pytest.approx(100.0, rel=0.05)
    with pytest.raises(ValueError, match="no interior maximum after its first minimum"):
        dd.second_descent(k, dd.bipartite_theory(k, problem._replace(noise_std=0.5)).generalization_error)


def test_phase_point_a_steps_and_effective_weight_decay():
    A = dd.phase_points(110, 100, 70).A
    assert A.steps_at(0.25) == pytest.approx(1 / (0.25 * 0.3))
    assert dd.effective_weight_decay(A.steps_at(0.25), 0.25) == pytest.approx(A.effective_weight_decay)
    assert dd.code_weight_decay_to_api(0.1) == pytest.approx(0.4)


def test_q_penalty_schedule_is_figure_4_6s_formula():
    a = dd.q_penalty_schedule(5001)
    k = np.array([0, 1000, 5000])
    assert np.allclose(a[k], 0.6 * np.log(1 + np.exp(-k / 1000)) / np.log(2), rtol=1e-14)


def test_iterate_gd_records_the_requested_steps(small):
    run = dd.iterate_gd(small.X, small.y, [0, 2, 2, 7], 0.1)
    assert run.steps.tolist() == [0, 2, 2, 7] and run.weights.shape == (2, 4, 20)
    assert np.allclose(run.weights, dd.gd_weights(small.X, small.y, [0, 2, 2, 7], learning_rate=0.1), atol=1e-12)


# ------------------------------------------------------------------------------------------- properties

@settings(max_examples=40, deadline=None)
@given(n_features=st.integers(10, 200), excess=st.integers(1, 800), fraction=st.floats(0.01, 0.99),
       kappa=st.floats(1.0, 1e6), noise_std=st.floats(0.0, 2.0), weight_decay=st.floats(0.0, 10.0),
       learning_rate=st.floats(0.01, 1.0),
       steps=st.lists(st.one_of(st.floats(0.0, 1e12), st.just(np.inf)), min_size=1, max_size=8))
def test_bipartite_theory_random_valid_inputs(n_features, excess, fraction, kappa, noise_std, weight_decay,
                                              learning_rate, steps):
    n_samples, n_fast = n_features + excess, min(max(1, int(fraction * n_features)), n_features - 1)
    r = dd.bipartite_theory(steps, dd.TeacherStudentProblem(n_samples, n_features, n_fast, kappa, noise_std=noise_std),
                            weight_decay, learning_rate)
    for value in (r.R1, r.R2, r.Q1, r.Q2, r.generalization_error):
        assert np.all(np.isfinite(value))
    share = n_fast / n_features
    assert np.all(r.R1 <= share + 1e-12) and np.all(r.Q >= r.R ** 2 - 1e-10) and np.all(r.Q1 >= 0)
    o = dd.ridge_oracle(weight_decay + 1e-9, n_samples, n_features, n_fast, kappa, noise_std)
    assert np.isfinite(o.generalization_error) and o.generalization_error >= -1e-12


@settings(max_examples=20, deadline=None)
@given(n=st.integers(5, 40), d=st.integers(3, 25), kappa=st.floats(1.0, 1e3), noise_std=st.floats(0.0, 1.0),
       weight_decay=st.floats(0.0, 1.0), seed=st.integers(0, 1000), flow=st.booleans())
def test_exact_gd_random_valid_inputs(n, d, kappa, noise_std, weight_decay, seed, flow):
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(n, d, max(1, d // 2), kappa, noise_std=noise_std),
                                   n_seeds=1, seed=seed)
    steps = np.array([0.0, 0.5, 3.0, 1e4, np.inf])
    dynamics = "flow" if flow else "gd"
    r = dd.exact_gd_order_parameters(data.modulation.draw(0), data.X[0], steps,
                                     dd.GDSettings(weight_decay=weight_decay, dynamics=dynamics), noise_std=noise_std)
    assert np.all(np.isfinite(r.R)) and np.all(np.isfinite(r.Q)) and np.all(r.Q >= -1e-12)
    direct = dd.exact_gd_order_parameters(data.modulation.draw(0), data.X[0], steps,
                                          dd.GDSettings(weight_decay=weight_decay, dynamics=dynamics),
                                          noise_std=noise_std, method="matrix")
    assert np.allclose(r.Q, direct.Q, rtol=1e-9, atol=1e-12)
    w = dd.gd_weights(data.X[0], data.y[0], steps, weight_decay=weight_decay, dynamics=dynamics)
    assert np.all(np.isfinite(w))


# ------------------------------------------------------------------------------------------- extremes

def test_bipartite_from_roots_reproduces_the_closed_form():
    steps = np.logspace(-2, 6, 40)
    roots = dd.bipartite_roots(steps, **CONFIG)
    direct = dd.bipartite_theory(steps, PROBLEM)
    again = dd.bipartite_from_roots(roots.a1, roots.a2, 110, 100, 70)
    assert np.array_equal(direct.generalization_error, again.generalization_error)


def test_extreme_but_valid_inputs_stay_finite():
    # κ at its cap, huge weight decay and steps: every overlap finite, limits where expected
    r = dd.bipartite_theory([0.0, 1.0, 1e300, np.inf], dd.TeacherStudentProblem(110, 100, 70, 1e100), weight_decay=0.0)
    assert np.all(np.isfinite(r.Q)) and r.R[-1] == pytest.approx(1.0)
    o = dd.ridge_oracle([0.0, 1e-3, 1.0, 1e300], 110, 100, 70, 1e100)
    assert np.all(np.isfinite(o.Q)) and o.generalization_error[-1] == pytest.approx(0.5)
    assert o.generalization_error[0] == pytest.approx(0.0, abs=1e-12)


def test_ridge_oracle_below_the_interpolation_threshold():
    # n < d: the ridgeless limit has k > 0; it must be continuous in λ → 0 and bounded by the teacher
    lam = np.array([0.0, 1e-12, 1e-8])
    o = dd.ridge_oracle(lam, 80, 100, 50, 10.0, noise_std=0.3)
    assert np.all(np.isfinite(o.Q)) and np.allclose(o.generalization_error, o.generalization_error[0], atol=1e-6)
    assert np.all(o.R1 <= 0.5) and np.all(o.R2 <= 0.5) and np.all(o.R < 0.8 + 1e-12)
    # F = I: the oracle is the Case-1 replica / Stieltjes result
    single = dd.ridge_oracle([1e-13, 0.3], 80, 100, 50, 1.0, noise_std=0.3)
    case1 = dd.stieltjes_order_parameters(0.8, np.array([1e-13, 0.3]), 1.0, 0.09)  # same λ: F = I, X = Z
    assert np.allclose(single.R, case1.R, rtol=1e-9) and np.allclose(single.Q, case1.Q, rtol=1e-9)


def test_case1_is_finite_and_consistent_at_the_interpolation_threshold():
    # α = 1, λ → 0: a → 1 and Q ~ σ²/(2 sqrt λ); the stable forms keep the replica and RMT routes finite and equal
    for lam in (1e-12, 1e-100, 1e-300):
        a = dd.replica_saddle_point(1.0, lam, 1.0, 0.5)
        b = dd.stieltjes_order_parameters(1.0, lam, 1.0, 0.5)
        assert np.isfinite(a.Q) and np.isfinite(b.Q)
        assert a.Q == pytest.approx(float(b.Q), rel=1e-6) and a.Q == pytest.approx(0.25 / np.sqrt(lam), rel=1e-5)


def test_no_silent_non_finite_order_parameters():
    from dynamics.double_descent._order_parameters import order_parameters
    with pytest.raises(ValueError, match="not finite"):
        order_parameters(np.array([0.1]), np.array([np.inf]), 0.0)


# ------------------------------------------------------------------------------------------- torch trainer

def test_torch_trainer_follows_the_closed_form_and_the_schedule():
    torch_training = pytest.importorskip("dynamics.double_descent.torch_training")
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(30, 20, 14, 10.0, noise_std=0.2), n_seeds=2, seed=4)
    eta = dd.inverse_max_eigenvalue_learning_rate(data.X)
    run = torch_training.train_linear_student(data.X, data.y, [0, 3, 40], eta, device="cpu")
    closed = np.stack([dd.gd_weights(data.X[i], data.y[i], [0, 3, 40], learning_rate=eta[i]) for i in range(2)])
    assert run.steps.tolist() == [0, 3, 40] and np.allclose(run.weights, closed, atol=1e-12)
    schedule = dd.q_penalty_schedule(40)
    run = torch_training.train_linear_student(data.X, data.y, [40], 0.5 * eta.min(), schedule, device="cpu")
    explicit = dd.iterate_gd(data.X, data.y, [40], 0.5 * eta.min(), output_penalty_schedule=schedule)
    assert np.allclose(run.weights, explicit.weights, atol=1e-12)
    with pytest.raises(ValueError, match="learning_rate"):
        torch_training.train_linear_student(data.X, data.y, [1], [0.1, 0.1, 0.1], device="cpu")


# ----------------------------------------------------------------------------------------------------
# Fuzz findings (tests/test_public_api.py): sums beyond float64 where the results are doubles, and g(λ) -> inf
# ----------------------------------------------------------------------------------------------------

def test_extreme_inputs_give_the_exact_value_or_a_value_error():
    # g(λ) ≈ (1 − α)/λ overflows at α < 1 and a tiny λ: was inf, now a ValueError naming weight_decay
    for lam in (5e-324, 2.2250738585e-313):
        with pytest.raises(ValueError, match="weight_decay"):
            dd.mp_stieltjes(0.5, lam)
    assert float(dd.mp_stieltjes(0.5, 1e-300)) == pytest.approx(0.5e300, rel=1e-12)
    # λ + α − 1 overflowed (inf warnings); in halves g = 1/(b/2 + hypot(b/2, √λ)) stays a double
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(dd.mp_stieltjes(1e308, 1.5e308)) == pytest.approx(1.0 / 2.5e308, rel=1e-6)
    # 1 + α + λ overflowed although a ≈ α + λ is a double (was inf); beyond it, a ValueError
    import mpmath
    alpha, lam = 8.98846567431158e307, 8.988465674311577e307
    with mpmath.workdps(50):
        b = 1 + mpmath.mpf(alpha) + mpmath.mpf(lam)
        exact = float((b + mpmath.sqrt(b * b - 4 * mpmath.mpf(alpha))) / 2)
    assert float(dd.stable_root(alpha, lam)) == pytest.approx(exact, rel=1e-15)
    with pytest.raises(ValueError, match="weight_decay"):
        dd.stable_root(1.7e308, 1.7e308)
    # λ = inf gave a = inf silently (and NaN a NaN): now a ValueError naming weight_decay
    for bad in (np.inf, np.nan, [0.1, np.inf]):
        with pytest.raises(ValueError, match="weight_decay must be finite"):
            dd.stable_root(0.5, bad)
    # L_G = ½(T − 2R + Q) with T near the float64 maximum: T − 2R + Q overflowed (was inf)
    for solver in (dd.stieltjes_order_parameters, dd.replica_saddle_point):
        point = solver(1.0, 1e-3, 9.277235676969297e307, 0.0)
        scaled = solver(1.0, 1e-3, 1.0, 0.0)
        assert float(point.generalization_error) == pytest.approx(9.277235676969297e307
                                                                  * float(scaled.generalization_error), rel=1e-10)
