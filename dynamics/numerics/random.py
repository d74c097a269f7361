"""Random matrices shared by the theories.

:func:`haar_orthogonal` draws from the Haar measure on O(n) by the QR decomposition of a Gaussian
matrix with the signs of R's diagonal moved into Q (Mezzadri, *Notices of the AMS* 54, 2007, Sec. 5):
without that sign fix the distribution is not Haar.
"""
import numpy as np

from .validation import require_integer, rng_from

__all__ = ["haar_orthogonal"]


def haar_orthogonal(n, seed=None, n_matrices=None) -> np.ndarray:
    """Haar-distributed random orthogonal matrices.

    Parameters
    ----------
    n : int
        Size of each matrix, 1 <= n <= 100000.
    seed : None, int or numpy.random.Generator
        Source of randomness (a Generator's stream continues).
    n_matrices : int, optional
        Draw a stack of this many independent matrices (shape (n_matrices, n, n)); None draws one (n, n).

    Returns
    -------
    ndarray
        Q with QᵀQ = I, shape (n, n) or (n_matrices, n, n).

    Examples
    --------
    >>> Q = haar_orthogonal(3, seed=0)
    >>> bool(np.allclose(Q.T @ Q, np.eye(3)))
    True
    >>> haar_orthogonal(4, seed=1, n_matrices=2).shape
    (2, 4, 4)
    """
    n = require_integer("n", n, 1, 100_000)
    rng = rng_from(seed)
    shape = (n, n) if n_matrices is None else (require_integer("n_matrices", n_matrices, 1, 1_000_000), n, n)
    q, r = np.linalg.qr(rng.standard_normal(shape))
    return q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[..., None, :]
