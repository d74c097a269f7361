"""The named results of :mod:`dynamics.starvation` (spec/starvation.md, "Public API").

Every public function that returns more than one value returns one of these ``typing.NamedTuple`` s:
readable by attribute, and still unpackable (``alpha, z = dual_fixed_point(U, s, 0.01)``).
"""
from typing import NamedTuple

import numpy as np

__all__ = ["Dataset", "DualGDTrajectory", "DualTrajectory", "Features", "FixedPoint", "ParameterTrajectory",
           "PrimalTrajectory", "SpectralDecouplingPoint"]


class FixedPoint(NamedTuple):
    """A fixed point of a dual flow and its feature response (Eqs 9-14 / 6.3.9-6.3.14).

    Attributes
    ----------
    alpha : ndarray, shape (n,) (or the shape of ``s`` for the uncoupled closed forms)
        The dual variable α*, one entry per training example: in (0, 1) for Eq 9, in (0, ∞) for Eq 10.
    z : ndarray, same shape as ``alpha``
        The feature responses z* = λ⁻¹S²Uᵀα* (Eq 11), one entry per feature.

    Examples
    --------
    >>> from dynamics.starvation import lambert_fixed_point
    >>> alpha, z = lambert_fixed_point([2.0], 0.1)  # it unpacks
    >>> lambert_fixed_point([2.0], 0.1).z.round(6).tolist()
    [2.648624]
    """

    alpha: np.ndarray
    z: np.ndarray


class SpectralDecouplingPoint(NamedTuple):
    """The exact fixed point of Spectral Decoupling (Eq 18 / 6.3.18).

    Attributes
    ----------
    z : ndarray, shape (n,)
        The feature responses z_SD = m*·Uᵀ1, independent of the strengths s.
    margin : float
        m* > 0 with a·m*(1 + e^{m*}) = 1 (a = ``output_penalty``): the common training margin y_i ŷ_i.
        The dual variable is α_i* = a·m* for every example.

    Examples
    --------
    >>> import numpy as np
    >>> from dynamics.starvation import sd_fixed_point
    >>> round(sd_fixed_point(np.eye(2), 0.01).margin, 6)
    3.359275
    """

    z: np.ndarray
    margin: float


class Features(NamedTuple):
    """The singular value decomposition YΦ_0 = USVᵀ of Definition 1 (6.3.1).

    Attributes
    ----------
    U : ndarray, shape (n, n)
        Orthogonal; column j holds the weights of feature j over the n examples.
    s : ndarray, shape (n,)
        The feature strengths s_j > 0, in descending order (not squared).
    Vt : ndarray, shape (n, m)
        The first n rows of Vᵀ: row j is feature j, a direction in the m-dimensional parameter space.

    Examples
    --------
    >>> import numpy as np
    >>> from dynamics.starvation import features
    >>> features(np.diag([1.0, 2.0]), [1.0, 1.0]).s.tolist()
    [2.0, 1.0]
    """

    U: np.ndarray
    s: np.ndarray
    Vt: np.ndarray


class DualTrajectory(NamedTuple):
    """A dual gradient flow (Eq 9, 10 or 18) sampled at the requested times.

    Attributes
    ----------
    t : ndarray, shape (m,)
        Dual-flow time, in units of 1/η (η = 1: the vector field is the gradient of the dual objective).
    alpha : ndarray, shape (m, n)
        The dual variable α(t).
    z : ndarray, shape (m, n)
        The feature responses along the flow: λ⁻¹S²Uᵀα (cross-entropy) or a⁻¹Uᵀα (Spectral Decoupling).

    Examples
    --------
    >>> import numpy as np
    >>> from dynamics.starvation import integrate_dual
    >>> flow = integrate_dual(np.eye(1), [1.0], [0.0, 1.0], weight_decay=1.0)
    >>> flow.t.tolist(), flow.alpha.shape
    ([0.0, 1.0], (2, 1))
    """

    t: np.ndarray
    alpha: np.ndarray
    z: np.ndarray


class DualGDTrajectory(NamedTuple):
    """Discrete dual gradient ascent on Eq 8, as in the authors' toy code.

    Attributes
    ----------
    steps : ndarray of int, shape (m,)
        Gradient-ascent step counts 0, 1, ..., n_steps.
    alpha : ndarray, shape (m, n)
        The (clamped) dual variable after each step.
    z : ndarray, shape (m, n)
        The feature responses λ⁻¹S²Uᵀα after each step.

    Examples
    --------
    >>> import numpy as np
    >>> from dynamics.starvation import dual_gd
    >>> dual_gd(np.eye(1), [1.0], 2, learning_rate=0.01, weight_decay=1.0).steps.tolist()
    [0, 1, 2]
    """

    steps: np.ndarray
    alpha: np.ndarray
    z: np.ndarray


class PrimalTrajectory(NamedTuple):
    """Primal gradient descent written in feature coordinates z = SVᵀθ (spec P18).

    Attributes
    ----------
    steps : ndarray of int, shape (m,)
        Gradient-descent step counts 0, 1, ..., n_steps.
    z : ndarray, shape (m, n)
        The feature responses after each step.

    Examples
    --------
    >>> import numpy as np
    >>> from dynamics.starvation import primal_gd_z
    >>> primal_gd_z(np.eye(1), [1.0], 1, learning_rate=0.5, weight_decay=0.1).z.tolist()
    [[0.0], [0.25]]
    """

    steps: np.ndarray
    z: np.ndarray


class ParameterTrajectory(NamedTuple):
    """Primal gradient descent in parameter space (Eq 5 or Eq 17).

    Attributes
    ----------
    steps : ndarray of int, shape (m,)
        Gradient-descent step counts 0, 1, ..., n_steps.
    theta : ndarray, shape (m, n_parameters)
        The parameters after each step.

    Examples
    --------
    >>> import numpy as np
    >>> from dynamics.starvation import primal_gd_theta
    >>> primal_gd_theta(np.eye(1), [1.0], 1, learning_rate=0.5, weight_decay=0.1).theta.tolist()
    [[0.0], [0.25]]
    """

    steps: np.ndarray
    theta: np.ndarray


class Dataset(NamedTuple):
    """A labelled two-dimensional data set.

    Attributes
    ----------
    X : ndarray, shape (n_samples, 2)
        The inputs.
    y : ndarray, shape (n_samples,)
        The labels ({0, 1} from :func:`make_moons`, {-1, +1} from :func:`two_moons`).

    Examples
    --------
    >>> from dynamics.starvation import two_moons
    >>> X, y = two_moons(10, seed=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((10, 2), [-1.0, 1.0])
    """

    X: np.ndarray
    y: np.ndarray
