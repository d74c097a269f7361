"""Small dense linear algebra in numba, for use inside compiled loops (``prange`` sweeps, Newton
iterations, the Rosenbrock integrator) where a LAPACK call per solve costs more than the solve.

* :func:`cholesky_solve`: M x = b for symmetric positive definite M (Golub & Van Loan, Alg. 4.2.1);
* :func:`lu_factor` / :func:`lu_solve`: Gaussian elimination with partial pivoting (Alg. 3.4.1), so that
  one factorisation serves several right-hand sides.

They are meant for n up to a few hundred; above that, ``numpy.linalg`` (LAPACK) is faster. Inputs are
not checked (they run inside compiled code): a singular or indefinite matrix gives non-finite entries,
which the caller tests.
"""
import math

import numba as nb
import numpy as np

__all__ = ["cholesky_solve", "lu_factor", "lu_solve"]


@nb.njit(cache=True)
def cholesky_solve(M, b):
    """Solve M x = b for a symmetric positive definite M.

    Parameters
    ----------
    M : ndarray, shape (n, n)
        Symmetric positive definite (only the lower triangle is read).
    b : ndarray, shape (n,)

    Returns
    -------
    ndarray, shape (n,)
        x; NaN entries if M is not positive definite.

    Examples
    --------
    >>> import numpy as np
    >>> cholesky_solve(np.array([[4.0, 2.0], [2.0, 3.0]]), np.array([2.0, 1.0]))
    array([0.5, 0. ])
    """
    n = b.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        acc = M[j, j]
        for k in range(j):
            acc -= L[j, k] * L[j, k]
        L[j, j] = math.sqrt(acc) if acc > 0.0 else math.nan
        for i in range(j + 1, n):
            acc = M[i, j]
            for k in range(j):
                acc -= L[i, k] * L[j, k]
            L[i, j] = acc / L[j, j]
    y = np.empty(n)
    for i in range(n):
        acc = b[i]
        for k in range(i):
            acc -= L[i, k] * y[k]
        y[i] = acc / L[i, i]
    x = np.empty(n)
    for i in range(n - 1, -1, -1):
        acc = y[i]
        for k in range(i + 1, n):
            acc -= L[k, i] * x[k]
        x[i] = acc / L[i, i]
    return x


@nb.njit(cache=True)
def lu_factor(A):
    """LU factorisation with partial pivoting, P A = L U, packed in one matrix.

    Parameters
    ----------
    A : ndarray, shape (n, n)

    Returns
    -------
    LU : ndarray, shape (n, n)
        U on and above the diagonal, the multipliers of L (unit diagonal) below it.
    pivots : ndarray of int64, shape (n,)
        Row i was swapped with row ``pivots[i]`` at step i.

    Examples
    --------
    >>> import numpy as np
    >>> LU, pivots = lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> lu_solve(LU, pivots, np.array([5.0, 6.0]))
    array([-4. ,  4.5])
    """
    n = A.shape[0]
    LU = A.copy()
    pivots = np.empty(n, dtype=np.int64)
    for k in range(n):
        p = k
        biggest = abs(LU[k, k])
        for i in range(k + 1, n):
            if abs(LU[i, k]) > biggest:
                biggest = abs(LU[i, k])
                p = i
        pivots[k] = p
        if p != k:
            for j in range(n):
                LU[k, j], LU[p, j] = LU[p, j], LU[k, j]
        pivot = LU[k, k]
        for i in range(k + 1, n):
            LU[i, k] /= pivot  # a zero pivot (singular A) gives inf/nan, tested by the caller
            factor = LU[i, k]
            if factor != 0.0:
                for j in range(k + 1, n):
                    LU[i, j] -= factor * LU[k, j]
    return LU, pivots


@nb.njit(cache=True)
def lu_solve(LU, pivots, b):
    """Solve A x = b from :func:`lu_factor`'s output.

    Parameters
    ----------
    LU, pivots : the factorisation of A
    b : ndarray, shape (n,)

    Returns
    -------
    ndarray, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.0, 2.0], [1.0, 1.0]])
    >>> LU, pivots = lu_factor(A)
    >>> np.allclose(A @ lu_solve(LU, pivots, np.array([2.0, 3.0])), [2.0, 3.0])
    True
    """
    n = b.shape[0]
    x = b.copy()
    for k in range(n):
        p = pivots[k]
        if p != k:
            x[k], x[p] = x[p], x[k]
    for i in range(n):
        acc = x[i]
        for k in range(i):
            acc -= LU[i, k] * x[k]
        x[i] = acc
    for i in range(n - 1, -1, -1):
        acc = x[i]
        for k in range(i + 1, n):
            acc -= LU[i, k] * x[k]
        x[i] = acc / LU[i, i]
    return x
