"""The library's thread policy for dense routines (``dynamics.numerics.threads``): one BLAS thread inside a routine
on small matrices, the caller's setting above :data:`SMALL_DENSE_DIMENSION` and after the call. What is asserted is
the thread count a routine sees, not a time (the times are in ``benchmarks/blas_threads.py``)."""
import inspect

import numpy as np
import pytest
import scipy.linalg  # noqa: F401  (its own BLAS is loaded before the tests set limits, as in the library)
from threadpoolctl import threadpool_info, threadpool_limits

import dynamics.double_descent as dd
import dynamics.linear_networks as ln
import dynamics.starvation as gs
from dynamics import numerics as nx


def _blas_threads():
    return {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}


@nx.one_blas_thread_when_small("A", "B")
def _threads_seen(A, B=None, *, scale=1.0):
    """Returns the BLAS thread counts inside the call."""
    return _blas_threads()


@pytest.mark.parametrize("shape, inside", [((3, 3), {1}), ((7, nx.SMALL_DENSE_DIMENSION), {1}),
                                           ((5, nx.SMALL_DENSE_DIMENSION + 1), {2}), ((2, 600, 4), {2}), ((600, 3), {2})])
def test_small_routines_run_on_one_blas_thread_and_the_callers_setting_returns(shape, inside):
    with threadpool_limits(limits=2, user_api="blas"):
        assert _blas_threads() == {2}
        assert _threads_seen(np.zeros(shape)) == inside
        assert _threads_seen(np.zeros((2, 2)), B=np.zeros(shape)) == inside  # the largest argument counts
        assert _blas_threads() == {2}


def test_the_limit_is_lifted_when_the_routine_raises():
    @nx.one_blas_thread_when_small("A")
    def fails(A):
        raise ValueError("A: bad")

    with threadpool_limits(limits=2, user_api="blas"):
        with pytest.raises(ValueError, match="A: bad"):
            fails(np.eye(2))
        assert _blas_threads() == {2}


def test_decorated_routines_keep_their_signature_docstring_and_errors():
    assert list(inspect.signature(_threads_seen).parameters) == ["A", "B", "scale"]
    assert _threads_seen.__doc__.startswith("Returns the BLAS")
    with pytest.raises(TypeError):
        _threads_seen()  # a wrong call reaches the routine, which raises its own error
    assert _threads_seen(None) == _blas_threads()  # no matrix: size 0, one thread
    with pytest.raises(ValueError, match="not parameters"):
        nx.one_blas_thread_when_small("C")(lambda A: A)
    with pytest.raises(ValueError, match="dimension"):
        nx.blas_threads_for_size(-1)


def _exact_gd_with_a_modulation(rng):
    design = dd.draw_teacher_student(dd.TeacherStudentProblem(30, 20, 10, 5.0), seed=0)
    return design.modulation.draw(0), design.X[0], np.geomspace(1.0, 1e3, 5)


@pytest.mark.parametrize("routine, arguments", [
    (dd.exact_gd_order_parameters, _exact_gd_with_a_modulation),  # a NamedTuple argument does not count as a matrix
    (dd.ridge_weights, lambda rng: (rng.standard_normal((20, 8)), rng.standard_normal(20), 0.1)),
    (gs.features, lambda rng: (rng.standard_normal((4, 6)), np.sign(rng.standard_normal(4)))),
    (ln.student_instance, lambda rng: (rng.standard_normal((6, 8)), np.ones(6), np.ones(8), np.zeros(6), 0.1)),
])
def test_the_theories_dense_routines_are_limited(routine, arguments, monkeypatch):
    """The decorated routines of the theories see one BLAS thread (the SVD, eigh and tridiagonal reduction inside
    them, numpy's and scipy's, are watched)."""
    import scipy.linalg
    import scipy.linalg.lapack

    seen = []
    for module, name in ((np.linalg, "svd"), (np.linalg, "eigh"), (scipy.linalg, "svd"), (scipy.linalg, "eigh"),
                         (scipy.linalg.lapack, "dsytrd")):
        original = getattr(module, name)

        def watched(*args, _original=original, **kwargs):
            seen.append(_blas_threads())
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, name, watched)
    with threadpool_limits(limits=2, user_api="blas"):
        routine(*arguments(np.random.default_rng(0)))
    assert seen and all(threads == {1} for threads in seen), seen


def test_one_thread_refuses_a_flag_that_is_not_a_bool_by_name():
    with pytest.raises((TypeError, ValueError), match="numba"):
        with nx.one_thread(numba="no"):
            pass
