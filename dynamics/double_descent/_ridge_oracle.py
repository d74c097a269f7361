"""Exact large-d ridge regression for bipartite F (derived in this project from the deterministic equivalents of
Dobriban & Wager 2018, Hastie et al. 2022, Bach 2023). Not in the thesis: the reference against which the decoupled
theory is measured.

In x-space the covariance is diagonal with s = σ_i²/d on group i (p_i directions) and the teacher has
β*² = 1/σ_i². With λ' = λ/n, the effective regularisation k solves

    k − λ' = (k/n) Σ_j s_j/(s_j + k)                    (k = 0 at λ = 0 when n > d)

and, with df₂ = Σ s²/(s + k)² and Bias = k² Σ β*² s/(s + k)²,

    R_i = Σ_{j∈i} β*² s²/(s + k),
    E_i = k² Σ_{j∈i} β*² s/(s + k)² + [(Bias + σ_ε²)/(n − df₂)] Σ_{j∈i} s²/(s + k)²,
    Q_i = E_i − p_i/d + 2R_i,    L_G = ½ Σ_i E_i.

Since β*²s = 1/d on every direction, these are evaluated through the ratios u = s/(s + k) and v = k/(s + k) = 1 − u:
R_i = (p_i/d)u_i, the bias part (p_i/d)v_i², df₂ = Σ p_i u_i², so that no s², k² or β*² is formed (no overflow
for large ridge, no underflow for large κ). For n <= d the ridgeless limit has k > 0 (the positive root of
1 = Σ p_i u_i/n); at n = d it is the interpolation threshold, where the error diverges, so ridge > 0 is required.
"""
import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import require_array_in_range
from ._checks import require_noise_std, require_sizes
from ._kernels import effective_regularisation
from ._order_parameters import order_parameters
from ._results import OrderParameters
from ._docs import fill_doc


@fill_doc
def ridge_oracle(weight_decay: ArrayLike, n_samples: int, n_features: int, n_fast: int, kappa: float,
                 noise_std: float = 0.0) -> OrderParameters:
    r"""Exact large-:math:`d` :math:`R_i`, :math:`Q_i`, :math:`L_G` of ridge regression
    :math:`(X^\top X + \lambda I)^{-1} X^\top y` for bipartite :math:`F` (derived in this project; :math:`\sigma_1 = 1`,
    :math:`\sigma_2 = 1/\kappa`): the reference solution against which the decoupled theory of Eqs 4.2.11–4.2.16 is
    measured.

    Parameters
    ----------
    weight_decay : float or array_like
        :math:`\lambda \ge 0` of the sum-normalised loss. 0 is the ridgeless limit: :math:`k = 0` when :math:`n > d`,
        the positive root when :math:`n < d`; :math:`n = d` needs :math:`\lambda > 0` (the interpolation threshold,
        where the error diverges). To compare with GD step :math:`k`, pass :math:`\lambda + 1/(\eta k)`
        (:func:`~dynamics.double_descent.effective_weight_decay`).
    n_samples : int
        :math:`n \ge 1` (:math:`n \le d` allowed).
    %(n_features)s
    %(n_fast)s
    %(kappa)s
    noise_std : float
        :math:`\sigma_\varepsilon` in [0, 1e100].

    Returns
    -------
    OrderParameters
        R, Q, both generalisation errors and R1, R2, Q1, Q2, of the shape of ``weight_decay``.

    Examples
    --------
    >>> o = ridge_oracle([1e14, 0.0], 110, 100, 70, 30.0, noise_std=0.3)
    >>> [round(float(x), 9) for x in o.R], [round(float(x), 9) for x in o.Q]
    ([0.0, 1.0], [0.0, 1.9])
    """
    weight_decay = require_array_in_range("weight_decay", weight_decay, 0.0, np.inf)
    n, d, p, kappa = require_sizes(n_samples, n_features, n_fast, kappa)
    noise_std = require_noise_std(noise_std)
    if n == d and np.any(weight_decay == 0):
        raise ValueError(f"weight_decay must be > 0 when n_samples = n_features = {d}: the ridgeless estimator at "
                         f"the interpolation threshold has infinite variance")
    sizes = np.array([p, d - p], dtype=float)
    s = np.array([1.0, (1.0 / kappa) ** 2]) / d
    k = effective_regularisation(np.ravel(weight_decay) / n, float(n), sizes, s).reshape(weight_decay.shape)
    kk = k[None]
    ss, pp = (v.reshape((2,) + (1,) * weight_decay.ndim) for v in (s, sizes))
    with np.errstate(invalid="ignore", divide="ignore"):
        u = np.where(kk > 0, ss / (ss + kk), 1.0)  # k = 0 (ridgeless, n > d): every direction fully fitted
    v = np.where(kk > 0, 1.0 - u, 0.0)
    share = pp / d
    R = share * u
    df2 = (pp * u * u).sum(0)
    bias_terms = share * v * v
    E = bias_terms + (bias_terms.sum(0) + noise_std * noise_std) / (n - df2) * pp * u * u
    Q = E - share + 2.0 * R
    return order_parameters(R[0] + R[1], Q[0] + Q[1], noise_std, R[0], R[1], Q[0], Q[1])
