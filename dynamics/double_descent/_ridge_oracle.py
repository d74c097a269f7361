"""Exact large-d ridge regression for bipartite F (spec §2.6; deterministic equivalents of Dobriban & Wager 2018,
Hastie et al. 2022, Bach 2023). Not in the thesis: the reference against which the decoupled theory is measured.

In x-space the covariance is diagonal with s = σ_i²/d on group i (p_i directions) and the teacher has
β*² = 1/σ_i². With λ' = λ/n, the effective regularisation k solves

    k − λ' = (k/n) Σ_j s_j/(s_j + k)                    (k = 0 at λ = 0 when n > d)

and, with df₂ = Σ s²/(s + k)² and Bias = k² Σ β*² s/(s + k)²,

    R_i = Σ_{j∈i} β*² s²/(s + k),
    E_i = k² Σ_{j∈i} β*² s/(s + k)² + [(Bias + σ_ε²)/(n − df₂)] Σ_{j∈i} s²/(s + k)²,
    Q_i = E_i − p_i/d + 2R_i,    L_G = ½ Σ_i E_i.
"""
import numba as nb
import numpy as np

from dynamics.numerics import require_array_in_range
from ._common import check_bipartite, check_noise_ridge, order_parameters


@nb.njit(cache=True)
def _balance(k, lam, n, sizes, s):
    """1 − λ'/k − (1/n) Σ p_i s_i/(s_i + k): increasing in k > 0, zero at the effective regularisation."""
    total = 0.0
    for i in range(sizes.shape[0]):
        total += sizes[i] * s[i] / (s[i] + k)
    return 1.0 - lam / k - total / n


@nb.njit(cache=True, parallel=True)
def _effective_regularisation(lams, n, sizes, s):
    out = np.empty(lams.shape[0])
    dim = sizes.sum()
    trace = (sizes * s).sum()
    for m in nb.prange(lams.shape[0]):
        lam = lams[m]
        if lam == 0.0 and n > dim:
            out[m] = 0.0
            continue
        lo = lam if lam > 0.0 else 1e-300
        hi = lam + trace / n
        # bisection in log k (the root can sit anywhere from 1e-300 to O(1)), then Newton polish
        log_lo, log_hi = np.log(lo), np.log(hi)
        for _ in range(200):
            mid = 0.5 * (log_lo + log_hi)
            if _balance(np.exp(mid), lam, n, sizes, s) < 0.0:
                log_lo = mid
            else:
                log_hi = mid
            if log_hi - log_lo < 1e-15:
                break
        k = np.exp(0.5 * (log_lo + log_hi))
        for _ in range(3):
            slope = lam / (k * k)
            for i in range(sizes.shape[0]):
                slope += sizes[i] * s[i] / ((s[i] + k) ** 2 * n)
            step = _balance(k, lam, n, sizes, s) / slope
            if abs(step) < 0.5 * k:
                k -= step
        out[m] = k
    return out


def ridge_oracle(ridge, n, d, p, kappa, noise=0.0):
    """Exact large-d R_i, Q_i, L_G of ridge (XᵀX + λI)⁻¹Xᵀy for bipartite F (σ₁ = 1, σ₂ = 1/κ), n > d.

    ``ridge`` is λ of the sum-normalised loss (scalar or array, >= 0; 0 is the ridgeless limit). To compare with
    GD time t, pass λ + 1/(ηt). Returns :class:`OrderParameters` of the shape of ``ridge``.
    """
    ridge = require_array_in_range("ridge", ridge, 0.0, np.inf)
    n, d, p, kappa = check_bipartite(n, d, p, kappa)
    noise, _ = check_noise_ridge(noise, 0.0)
    sizes = np.array([p, d - p])
    s = np.array([1.0, kappa ** -2]) / d
    beta2 = 1.0 / (s * d)
    k = _effective_regularisation(np.ravel(ridge) / n, float(n), sizes, s).reshape(ridge.shape)
    kk = k[None]
    ss, pp, bb = (v.reshape((2,) + (1,) * ridge.ndim) for v in (s, sizes, beta2))
    R = pp * bb * ss ** 2 / (ss + kk)
    df2 = (pp * ss ** 2 / (ss + kk) ** 2).sum(0)
    bias_terms = kk ** 2 * pp * bb * ss / (ss + kk) ** 2
    E = bias_terms + (bias_terms.sum(0) + noise ** 2) / (n - df2) * pp * ss ** 2 / (ss + kk) ** 2
    Q = E - pp / d + 2.0 * R
    return order_parameters(R[0] + R[1], Q[0] + Q[1], noise, R[0], R[1], Q[0], Q[1])
