"""Small dense linear algebra in numba, for use inside compiled loops (``prange`` sweeps, Newton
iterations, the Rosenbrock integrator) where a LAPACK call per solve costs more than the solve.

* :func:`dynamics.numerics.cholesky_solve`: M x = b for symmetric positive definite M (Golub & Van Loan, Alg. 4.2.1);
* :func:`dynamics.numerics.lu_factor` / :func:`dynamics.numerics.lu_solve`: Gaussian elimination with partial pivoting
  (Alg. 3.4.1), so that one factorisation serves several right-hand sides;
* :func:`dynamics.numerics.nearest_orthogonal`: the orthogonal factor of the polar decomposition (from the SVD, in
  LAPACK), which re-orthogonalises a matrix that is orthogonal only to float32 round-off.

They are meant for n up to a few hundred; above that, ``numpy.linalg`` (LAPACK) is faster. Called from
Python they check their arguments; called from numba code (an ``overload``) they run unchecked, and a
singular or indefinite matrix gives non-finite entries, which the caller tests.
"""
import math
from typing import Tuple

import numba as nb
import numpy as np
from numba.extending import overload
from numpy.typing import ArrayLike

from .validation import _described, as_finite_array, require_finite_result

__all__ = ["cholesky_solve", "lu_factor", "lu_solve", "nearest_orthogonal"]


def _square_system(M, b):
    M = as_finite_array("M", M, ndim=2)
    b = as_finite_array("b", b, ndim=1)
    if M.shape != (b.size, b.size) or b.size == 0:
        raise ValueError(f"M must be square (n, n) and b of length n >= 1, got M {M.shape} and b {b.shape}")
    return M, b


def cholesky_solve(M: ArrayLike, b: ArrayLike) -> np.ndarray:
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
    M, b = _square_system(M, b)
    return require_finite_result(_cholesky_solve(M, b), "cholesky_solve", "M must be symmetric positive definite")


@nb.njit(cache=True)
def _cholesky_solve(M, b):
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


def lu_factor(A: ArrayLike) -> Tuple[np.ndarray, np.ndarray]:
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
    A, _ = _square_system(A, np.zeros(np.shape(A)[0] if np.ndim(A) == 2 else 0))
    LU, pivots = _lu_factor(A)
    require_finite_result(LU, "lu_factor", "A must be invertible")
    if np.any(np.diag(LU) == 0.0):
        raise ValueError("A must be invertible: a zero pivot remained after partial pivoting")
    return LU, pivots


@nb.njit(cache=True, error_model="numpy")  # a zero pivot divides to inf/nan (tested by the caller), not raises
def _lu_factor(A):
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


def lu_solve(LU: ArrayLike, pivots: ArrayLike, b: ArrayLike) -> np.ndarray:
    """Solve A x = b from :func:`dynamics.numerics.lu_factor`'s output.

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
    >>> bool(np.allclose(A @ lu_solve(LU, pivots, np.array([2.0, 3.0])), [2.0, 3.0]))
    True
    """
    LU, b = _square_system(LU, b)
    pivots = np.asarray(pivots)
    if pivots.dtype.kind not in "iu":
        raise TypeError(f"pivots must be lu_factor's int array, got {_described(pivots)}")
    if pivots.shape != b.shape or np.any(pivots < 0) or np.any(pivots >= b.size):
        raise ValueError(f"pivots must be lu_factor's int array of length {b.size} with entries in [0, {b.size - 1}]")
    return _lu_solve(LU, pivots.astype(np.int64), b)


@nb.njit(cache=True)
def _lu_solve(LU, pivots, b):
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


def nearest_orthogonal(Q: ArrayLike) -> np.ndarray:
    """The orthogonal matrix nearest to Q in the Frobenius norm, in float64: W Vᵀ from the SVD Q = W Σ Vᵀ (the
    orthogonal factor of the polar decomposition Q = (W Vᵀ)(V Σ Vᵀ); Golub & Van Loan 2013, the orthogonal
    Procrustes problem).

    Use it to re-orthogonalise, explicitly, a matrix orthogonal only to the round-off of a narrower dtype (a float32
    eigenbasis or Haar draw from torch) before passing it where :func:`dynamics.numerics.require_orthogonal` asks
    for one: converting such a matrix to float64 keeps its defect (about 1e-8), while this moves it by about that
    defect to a matrix orthogonal to float64 round-off. It accepts any square matrix (the nearest orthogonal matrix
    exists for every one), so it cannot tell a slightly perturbed orthogonal matrix from a wrong one: compare the
    result with the input if in doubt.

    Parameters
    ----------
    Q : array_like, shape (n, n)
        Real and finite, of any real dtype (converted to float64 first), n >= 1.

    Returns
    -------
    ndarray, shape (n, n)
        Orthogonal to float64 round-off; Q itself (to round-off) when Q is orthogonal. Unique when Q is invertible.

    Raises
    ------
    ValueError
        If Q is not a finite square matrix.
    TypeError
        If its entries are not real numbers (the message names the dtype).

    Examples
    --------
    >>> from dynamics.numerics import haar_orthogonal, require_orthogonal
    >>> U32 = haar_orthogonal(4, seed=0).astype(np.float32)  # orthogonal to float32 round-off only
    >>> U = require_orthogonal("U", nearest_orthogonal(U32))
    >>> bool(np.abs(U - U32).max() < 1e-6), bool(np.abs(U.T @ U - np.eye(4)).max() < 1e-14)
    (True, True)
    """
    Q = as_finite_array("Q", Q, ndim=2)
    n = Q.shape[0]
    if Q.shape != (n, n) or n == 0:
        raise ValueError(f"Q must be a square (n, n) matrix with n >= 1, got shape {Q.shape}")
    W, _, Vt = np.linalg.svd(Q)
    return W @ Vt


# Called from numba code, the public names run the unchecked kernels.
@overload(cholesky_solve, jit_options={"cache": True})
def _cholesky_solve_numba(M, b):
    return lambda M, b: _cholesky_solve(M, b)


@overload(lu_factor, jit_options={"cache": True})
def _lu_factor_numba(A):
    return lambda A: _lu_factor(A)


@overload(lu_solve, jit_options={"cache": True})
def _lu_solve_numba(LU, pivots, b):
    return lambda LU, pivots, b: _lu_solve(LU, pivots, b)
