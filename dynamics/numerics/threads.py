"""The library's thread policy for dense linear algebra: small matrices get one BLAS thread.

The theories' dense routines (the exact gradient-descent traces, the spectral filters, the singular value
decompositions of a design) work on matrices of a few hundred rows. At that size a second BLAS thread gains little
on a quiet machine, and on a busy one it costs up to two orders of magnitude: OpenBLAS's threads spin while they
wait for a core that another process holds (``benchmarks/blas_threads.py``: an ``eigh`` of a 250 × 250 matrix took
8 ms on one thread and 1 s on two beside two CPU-bound processes). The entry points (``python -m verify``,
``python -m figures``, the tests) already pin one thread for the whole process; :func:`blas_threads_for_size`
protects the same routines inside a user's own script, notebook or demo kernel.

The rule: a routine whose largest matrix dimension is at most :data:`SMALL_DENSE_DIMENSION` (512) runs with one
BLAS thread, and the caller's setting is restored afterwards; above it the caller's setting stands, since there a
second thread gains on a quiet machine (1.6x for a 600 × 600 product, 1.5x for an ``eigh`` at 1000 × 1000).
Below the threshold the trade is lopsided. On a quiet 2-core machine the decorated routines took 0.53–1.22x the
time of the same routines on two threads (the products and the ``eigh`` of a few hundred rows gain up to 20% from a
second thread; the exact-GD traces lose half to it). Beside two CPU-bound processes the two-thread versions took
1.6–2.6x as long in one run and up to 250x in another, when OpenBLAS's threads spun against the load
(``benchmarks/blas_threads.py``; the performance page has the table). The limit is process-wide for its duration
(threadpoolctl); it is not meant for routines called from several Python threads at once.

:func:`one_thread` is the stricter policy of the entry points, written once: inside it, every pool the process
computes with has one thread (BLAS and OpenMP, numba's pool, and torch's intra-op pool when torch is loaded). The
claims, the figures and the torch trainers run so: their arrays are small, and a threaded reduction rounds
differently, which would make a parallel run's values differ from a serial run's.
"""
import functools
import inspect
import sys
from contextlib import contextmanager, nullcontext
from typing import Callable, ContextManager, Iterator

import numpy as np

from .validation import require_bool

__all__ = ["SMALL_DENSE_DIMENSION", "blas_threads_for_size", "one_blas_thread_when_small", "one_thread"]

SMALL_DENSE_DIMENSION = 512
"""The largest matrix dimension at which a dense routine runs with one BLAS thread (see the module's note)."""


@functools.lru_cache(maxsize=1)
def _controller():
    # scipy.linalg carries its own OpenBLAS, beside numpy's: load it first, so that one scan of the loaded
    # libraries finds both (a fresh scan costs about 0.5 ms; a limit through the cached controller about 10 µs)
    import scipy.linalg  # noqa: F401
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def blas_threads_for_size(dimension: int) -> ContextManager[None]:
    """One BLAS thread inside the block when ``dimension`` is small; the caller's setting otherwise.

    Parameters
    ----------
    dimension : int
        The largest dimension of the matrices the block factorises or multiplies.

    Returns
    -------
    contextlib.AbstractContextManager
        Limits numpy's and scipy's BLAS to one thread when ``dimension <= SMALL_DENSE_DIMENSION`` and restores the
        previous limits on exit; does nothing for a larger ``dimension``.

    Raises
    ------
    ValueError
        If ``dimension`` is not a non-negative integer.

    Examples
    --------
    >>> import numpy as np
    >>> from threadpoolctl import threadpool_info
    >>> from dynamics.numerics import blas_threads_for_size
    >>> with blas_threads_for_size(250):
    ...     [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"][0]
    1
    """
    if isinstance(dimension, (bool, np.bool_)) or not isinstance(dimension, (int, np.integer)) or dimension < 0:
        raise ValueError(f"dimension must be an integer >= 0, got {dimension!r}")
    if dimension > SMALL_DENSE_DIMENSION:
        return nullcontext()
    return _controller().limit(limits=1, user_api="blas")  # restores the previous limits on exit


def _matrix_shape(value):
    """The shape of an array argument; () for None, a result type (a NamedTuple, whose fields are not a matrix) or
    input the routine's own checks will reject (a ragged list)."""
    if value is None or hasattr(value, "_fields"):
        return ()
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple):
        return shape
    try:
        return np.shape(value)
    except ValueError:
        return ()


def one_blas_thread_when_small(*array_arguments: str) -> Callable[[Callable], Callable]:
    """Decorate a dense routine so that it runs under :func:`blas_threads_for_size` of its own size.

    Parameters
    ----------
    *array_arguments : str
        Names of the routine's matrix arguments. The size of a call is the largest of their last two dimensions
        (a stack of matrices counts by its matrices); an argument that is absent, ``None`` or a structured object
        (a NamedTuple such as a ``Modulation``) does not count.

    Returns
    -------
    callable
        A decorator; the decorated routine keeps its name, signature and docstring.

    Raises
    ------
    ValueError
        If no argument name is given, or a name is not a parameter of the decorated routine.

    Examples
    --------
    >>> import numpy as np
    >>> from dynamics.numerics import one_blas_thread_when_small
    >>> @one_blas_thread_when_small("A")
    ... def largest_eigenvalue(A):
    ...     return np.linalg.eigvalsh(A)[-1]
    >>> float(largest_eigenvalue(np.diag([1.0, 3.0])))
    3.0
    """
    if not array_arguments or not all(isinstance(name, str) for name in array_arguments):
        raise ValueError(f"array_arguments must be one or more parameter names, got {array_arguments!r}")

    def decorate(routine):
        signature = inspect.signature(routine)
        unknown = [name for name in array_arguments if name not in signature.parameters]
        if unknown:
            raise ValueError(f"array_arguments {unknown} are not parameters of {routine.__qualname__}")

        @functools.wraps(routine)
        def limited(*args, **kwargs):
            try:
                bound = signature.bind(*args, **kwargs).arguments
            except TypeError:  # a wrong call: the routine raises its own error
                return routine(*args, **kwargs)
            shapes = [_matrix_shape(bound.get(name)) for name in array_arguments]
            dimension = max((max(shape[-2:]) for shape in shapes if len(shape)), default=0)
            with blas_threads_for_size(int(dimension)):
                return routine(*args, **kwargs)

        return limited

    return decorate


@contextmanager
def one_thread(*, numba: bool = True) -> Iterator[None]:
    """One thread for every pool the block computes with; each pool's previous size restored afterwards.

    The pools: numpy's and scipy's BLAS and any OpenMP runtime (threadpoolctl), numba's pool, and torch's intra-op
    pool when torch is already imported (this module never imports torch). The verifier runs every claim so, the
    figures render so, and the torch trainers run so on the CPU (through
    :func:`dynamics.numerics.torch_tools.on_device`): on a busy machine a second thread on a small array waits for a
    core instead of computing, and a one-thread reduction rounds the same way in every process.

    Parameters
    ----------
    numba : bool, default True
        Also pin numba's pool (launching it if no parallel kernel has run yet). The torch trainers, which call no
        parallel numba kernel, pass False: launching numba's OpenMP pool resets the OpenMP thread count that torch
        reports and restores, so a torch-only block leaves numba's pool alone.

    Returns
    -------
    contextlib.AbstractContextManager
        Yields None; the limits hold until the block exits (also by an exception).

    Examples
    --------
    >>> import numba
    >>> from dynamics.numerics import one_thread
    >>> before = numba.get_num_threads()
    >>> with one_thread():
    ...     numba.get_num_threads()
    1
    >>> numba.get_num_threads() == before
    True
    """
    from threadpoolctl import threadpool_limits  # a fresh scan: it sees libraries loaded since the last one

    numba = require_bool("numba", numba)
    torch = sys.modules.get("torch")
    pool = None
    if numba:
        import numba as pool
    previous_numba = pool.get_num_threads() if pool is not None else None
    previous_torch = torch.get_num_threads() if torch is not None else None
    # numba's and torch's pools may share one OpenMP runtime, whose thread count threadpoolctl also sets: torch's
    # count is set after the others on the way in, and restored after them on the way out
    try:
        with threadpool_limits(limits=1):
            if pool is not None:
                pool.set_num_threads(1)
            if torch is not None:
                torch.set_num_threads(1)
            try:
                yield
            finally:
                if pool is not None:
                    pool.set_num_threads(previous_numba)
    finally:
        if torch is not None:
            torch.set_num_threads(previous_torch)
