"""Consistency (ILC) of quadratic environments and the Propositions about it (Parascandolo et al. 2021, §2.1-§2.2,
Eqs 2-4, Propositions 1 and 3, Fig 3; the exact quadratic forms are derived in this project, see the theory note,
docs/theory/and_mask.md).

* −C^ε of Eq 2 for L_e = ½(θ−θ*)ᵀH_e(θ−θ*): ε(max_{e≠e'} λ_max(H_e⁻¹H_e') − 1), from generalised eigenvalues;
  the Proposition 3 proof's simplified objective ε·max_{e≠e'} λ_max(H_e⁻¹H_e').
* The diagonal two-environment forms −C_proof = ε max_i max(ρ_i, 1/ρ_i) and −C_Eq2 = −C_proof − ε, ρ_i = λ^B_i/λ^A_i.
* R = det H_{A+B}/det H_{A∧B} (arithmetic over geometric mean of the Hessians) and the corrected Proposition 3
  bound C^ε >= −4εR² (printed: −2εR², an erratum): ``consistency_lower_bound``.
* The two-matrix Karcher (geometric) mean A#B = A^{1/2}(A^{−1/2}BA^{−1/2})^{1/2}A^{1/2} (Ando–Li–Mathias 2004).
* Proposition 1: min_{i<k} ‖m ⊙ ∇L(θ^i)‖² <= 2(L(θ⁰) − inf L)/(ηk) for AND-masked GD with η <= 1/L:
  ``masked_descent_bound``.
"""
import math

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import (as_finite_array, one_blas_thread_when_small, require_array_in_range, require_choice,
                               require_finite_product, require_finite_result, require_integer, require_positive)
from ._checks import NULL_TOLERANCE, SYMMETRY_TOLERANCE, require_diagonal_hessians, require_eps, require_spd
from ._docs import fill_doc

__all__ = ["amgm_ratio", "consistency_diagonal", "consistency_lower_bound", "consistency_quadratic", "karcher_mean",
           "masked_descent_bound"]

OBJECTIVES = ("eq2", "proof")


@one_blas_thread_when_small("hessians")
def consistency_quadratic(hessians: ArrayLike, eps: float, objective: str = "eq2") -> float:
    r""":math:`-C^\varepsilon(\theta^*)` of Eq 2 of Parascandolo et al. 2021 for quadratic environments with a common
    minimiser (the closed form is derived in this project).

    :math:`L_e(\theta) = \tfrac{1}{2}(\theta - \theta^*)^\top H_e (\theta - \theta^*)`; the
    :math:`\varepsilon`-neighbourhood :math:`N^\varepsilon_e` is the ellipsoid
    :math:`\tfrac{1}{2}\theta^\top H_e \theta \le \varepsilon`, and

    .. math::

        \max_{N^\varepsilon_e} \lvert L_{e'} - L_e \rvert
        = \varepsilon \cdot \max_i \lvert \lambda_i(H_e^{-1} H_{e'}) - 1 \rvert,

    so over ordered pairs

    .. math::

        -C^\varepsilon = \varepsilon \left(\max_{e \ne e'} \lambda_{\max}(H_e^{-1} H_{e'}) - 1\right).

    With ``objective="proof"`` the Proposition 3 proof's simplified objective (:math:`\lvert L_{e'} - L_e \rvert`
    replaced by :math:`L_{e'}`): :math:`\varepsilon \cdot \max_{e \ne e'} \lambda_{\max}(H_e^{-1} H_{e'})`
    (:math:`\varepsilon` for one environment).

    Parameters
    ----------
    hessians : array_like, shape (n_envs, n, n)
        Symmetric positive (semi-)definite Hessians :math:`H_e`.
    eps : float
        The loss level :math:`\varepsilon > 0` of the neighbourhoods.
    objective : {"eq2", "proof"}, default "eq2"

    Returns
    -------
    float
        :math:`-C^\varepsilon \ge 0` (0: perfectly consistent; one environment or identical Hessians give 0 under
        Eq 2). ``math.inf`` when some :math:`H_e` has a null vector :math:`v` with :math:`v^\top H_{e'} v > 0` (an
        unbounded sublevel set on which :math:`L_{e'}` grows without bound: :math:`C^\varepsilon = -\infty`, the tight
        case of Proposition 3).

    Examples
    --------
    >>> H = [np.diag([0.01, 1.0]), np.diag([1.0, 0.01])]  # paper Fig 3
    >>> round(consistency_quadratic(H, 1.0), 6), round(consistency_quadratic(H, 1.0, objective="proof"), 6)
    (99.0, 100.0)
    """
    h = as_finite_array("hessians", hessians)
    if h.ndim != 3 or h.shape[1] != h.shape[2] or h.shape[0] < 1 or h.shape[1] < 1:
        raise ValueError(f"hessians must have shape (n_envs, n, n) with n_envs >= 1 and n >= 1, got {h.shape}")
    eps = require_eps(eps)
    objective = require_choice("objective", objective, OBJECTIVES)
    d = h.shape[0]
    for e in range(d):
        scale = max(float(np.abs(h[e]).max()), 1e-300)
        if float(np.abs(h[e] - h[e].T).max()) > SYMMETRY_TOLERANCE * scale:
            raise ValueError(f"hessians[{e}] must be symmetric")
    h = 0.5 * (h + np.transpose(h, (0, 2, 1)))
    eigen = [np.linalg.eigh(h[e]) for e in range(d)]
    for e, (w, _) in enumerate(eigen):
        if w[0] < -NULL_TOLERANCE * max(abs(w[-1]), 1e-300):
            raise ValueError(f"hessians[{e}] must be positive semi-definite, got eigenvalue {w[0]:.3g}")
    largest = 1.0 if (d == 1 and objective == "proof") else -math.inf
    for e in range(d):
        w, v = eigen[e]
        null = w <= NULL_TOLERANCE * max(w[-1], 1e-300)
        if np.any(null):
            vectors = v[:, null]
            for other in range(d):
                if other != e:
                    curvature = np.abs(np.einsum("ij,ik,kj->j", vectors, h[other], vectors))
                    if np.any(curvature > NULL_TOLERANCE * max(np.abs(h[other]).max(), 1e-300)):
                        return math.inf
            raise ValueError(f"hessians[{e}] is singular along a direction on which every environment is flat: "
                             "the sublevel sets are unbounded and Eq 2 is degenerate (add a small positive diagonal, "
                             "as in the paper's footnote 8)")
        for other in range(d):
            if other != e:
                from scipy import linalg  # deferred: keeps importing the package fast

                largest = max(largest, float(linalg.eigh(h[other], h[e], eigvals_only=True)[-1]))
    if d == 1 and objective == "eq2":
        return 0.0
    return eps * max(largest - 1.0, 0.0) if objective == "eq2" else eps * largest


def consistency_diagonal(hessian_a: ArrayLike, hessian_b: ArrayLike, eps: float, objective: str = "eq2") -> float:
    r""":math:`-C^\varepsilon` for two diagonal quadratic environments (the setting of Proposition 3 of Parascandolo
    et al. 2021; the closed forms are derived in this project).

    With :math:`\rho_i = \lambda^B_i/\lambda^A_i`:
    :math:`-C_{\mathrm{proof}} = \varepsilon \cdot \max_i \max(\rho_i, 1/\rho_i)` (the proof's simplified objective)
    and :math:`-C_{\mathrm{Eq2}} = \varepsilon \cdot (\max_i \max(\rho_i, 1/\rho_i) - 1)` (Eq 2, with
    :math:`\lvert L_{e'} - L_e \rvert`).

    Parameters
    ----------
    hessian_a, hessian_b : array_like, shape (n,)
        The eigenvalues :math:`\lambda^A_i, \lambda^B_i \ge 0` (diagonals of :math:`H_A`, :math:`H_B`). A coordinate
        where both vanish is flat for both and ignored; :math:`\lambda^A_i = 0 < \lambda^B_i` gives ``math.inf``
        (:math:`C = -\infty`).
    eps : float
        :math:`\varepsilon > 0`.
    objective : {"eq2", "proof"}, default "eq2"

    Returns
    -------
    float
        :math:`-C^\varepsilon \ge 0`.

    Examples
    --------
    >>> consistency_diagonal([1.0], [100.0], 1.0), consistency_diagonal([1.0], [100.0], 1.0, objective="proof")
    (99.0, 100.0)
    """
    a, b = require_diagonal_hessians(hessian_a, hessian_b)
    eps = require_eps(eps)
    objective = require_choice("objective", objective, OBJECTIVES)
    live = (a > 0) | (b > 0)
    if not np.any(live):
        raise ValueError("hessian_a and hessian_b must not both vanish in every coordinate (Eq 2 is degenerate)")
    a, b = a[live], b[live]
    if np.any((a == 0) | (b == 0)):
        return math.inf
    worst = float(np.max(np.maximum(b / a, a / b)))
    return eps * (worst - 1.0) if objective == "eq2" else eps * worst


def amgm_ratio(hessian_a: ArrayLike, hessian_b: ArrayLike) -> float:
    r""":math:`R = \det H_{A+B} / \det H_{A \wedge B}`: arithmetic over geometric mean of two Hessians (Parascandolo
    et al. 2021, §2.2 and Proposition 3).

    :math:`H_{A+B} = \tfrac{1}{2}(H_A + H_B)` and :math:`H_{A \wedge B} = H_A \# H_B` (Karcher mean), whose determinant
    is :math:`\sqrt{\det H_A \cdot \det H_B}`. For diagonal Hessians

    .. math::

        R = \prod_i \frac{\tfrac{1}{2}(\lambda^A_i + \lambda^B_i)}{\sqrt{\lambda^A_i \lambda^B_i}} \ge 1.

    Computed in log space.

    Parameters
    ----------
    hessian_a, hessian_b : array_like
        Either the positive diagonals, shape (n,), or symmetric positive definite matrices, shape (n, n).

    Returns
    -------
    float
        :math:`R \ge 1`.

    Examples
    --------
    >>> round(amgm_ratio([0.01, 1.0], [1.0, 0.01]), 6)  # Fig 3: 0.255025/0.01
    25.5025
    """
    if np.ndim(hessian_a) == 2 or np.ndim(hessian_b) == 2:
        a, b = require_spd("hessian_a", hessian_a), require_spd("hessian_b", hessian_b)
        if a.shape != b.shape:
            raise ValueError(f"hessian_a and hessian_b must have one shape, got {a.shape} and {b.shape}")
        log_ratio = (np.linalg.slogdet(0.5 * a + 0.5 * b)[1]  # halves: a + b may overflow
                     - 0.5 * (np.linalg.slogdet(a)[1] + np.linalg.slogdet(b)[1]))
    else:
        a = require_array_in_range("hessian_a", hessian_a, 0.0, np.inf, low_open=True, ndim=1)
        b = require_array_in_range("hessian_b", hessian_b, 0.0, np.inf, low_open=True, ndim=1)
        if a.shape != b.shape or a.size == 0:
            raise ValueError(f"hessian_a and hessian_b must be non-empty and of one shape, got {a.shape} and "
                             f"{b.shape}")
        log_ratio = float(np.sum(np.log(0.5 * a + 0.5 * b) - 0.5 * (np.log(a) + np.log(b))))  # halves: no overflow
    if log_ratio > 700.0:
        raise ValueError(f"amgm_ratio overflows float64 (log R = {log_ratio:.4g}): the Hessians are too unequal")
    return float(math.exp(log_ratio))


def consistency_lower_bound(hessian_a: ArrayLike, hessian_b: ArrayLike, eps: float) -> float:
    r"""The lower bound :math:`C^\varepsilon(\theta^*) \ge -4\varepsilon R^2` on the consistency of two quadratic
    environments: Proposition 3 of Parascandolo et al. 2021, corrected in this project (the paper prints
    :math:`-2\varepsilon R^2`).

    Valid for both the Eq 2 score and the proof's simplified objective; sharp
    (:math:`-C_{\mathrm{proof}}/(\varepsilon R^2) \to 4` in 1-D as :math:`\lambda^B/\lambda^A \to \infty`).

    Parameters
    ----------
    hessian_a, hessian_b : array_like
        Positive diagonals (n,) or SPD matrices (n, n), as in :func:`dynamics.and_mask.amgm_ratio`.
    eps : float
        :math:`\varepsilon > 0`.

    Returns
    -------
    float
        :math:`-4\varepsilon R^2` (:math:`\le 0`).

    Examples
    --------
    >>> round(consistency_lower_bound([1.0], [100.0], 1.0), 2)  # R = 5.05; −C_Eq2 = 99 <= 102.01
    -102.01
    """
    eps = require_eps(eps)
    ratio = amgm_ratio(hessian_a, hessian_b)
    # mantissas and exponents apart: R² alone may overflow where 4εR² does not (tiny ε)
    return -require_finite_product([4.0, eps, ratio, ratio], what="consistency_lower_bound (4εR²)",
                                   hint="the Hessians are too unequal or eps too large")


@one_blas_thread_when_small("a", "b")
def karcher_mean(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    r"""The matrix geometric (Karcher) mean :math:`A \# B = A^{1/2}(A^{-1/2} B A^{-1/2})^{1/2} A^{1/2}` (Parascandolo
    et al. 2021, §2.2).

    :math:`\det(A \# B) = \sqrt{\det A \det B}`, :math:`A \# B \preceq \tfrac{1}{2}(A + B)` and
    :math:`(A \# B) A^{-1} (A \# B) = B`; for commuting (diagonal) matrices it is the element-wise :math:`\sqrt{ab}`.

    Parameters
    ----------
    a, b : array_like, shape (n, n)
        Symmetric positive definite.

    Returns
    -------
    ndarray, shape (n, n)
        Symmetric positive definite.

    Examples
    --------
    >>> karcher_mean(np.diag([0.01, 1.0]), np.diag([1.0, 0.01])).round(12).tolist()
    [[0.1, 0.0], [0.0, 0.1]]
    """
    a, b = require_spd("a", a), require_spd("b", b)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have one shape, got {a.shape} and {b.shape}")
    w, u = np.linalg.eigh(a)
    with np.errstate(all="ignore"):
        root = (u * np.sqrt(w)) @ u.T
        inv_root = (u / np.sqrt(w)) @ u.T
        inner = inv_root @ b @ inv_root
    require_finite_result(inner, "karcher_mean", "a and b are too ill-conditioned for A^(-1/2) B A^(-1/2) in float64")
    wi, ui = np.linalg.eigh(0.5 * (inner + inner.T))
    inner_root = (ui * np.sqrt(np.clip(wi, 0.0, None))) @ ui.T
    with np.errstate(all="ignore"):
        mean = root @ inner_root @ root
    return require_finite_result(0.5 * (mean + mean.T), "karcher_mean",
                                 "a and b are too ill-conditioned for their square roots in float64")


@fill_doc
def masked_descent_bound(initial_loss: float, min_loss: float, learning_rate: float, n_steps: int) -> float:
    r"""The bound
    :math:`\min_{i<k} \lVert m_t(\theta^i) \odot \nabla L(\theta^i) \rVert^2 \le 2(L(\theta^0) - \inf L)/(\eta k)` of
    AND-masked gradient descent: Proposition 1 of Parascandolo et al. 2021 (§2.3).

    Holds for AND-masked gradient descent without rescaling when :math:`\nabla L` is :math:`L`-Lipschitz and
    :math:`\eta \le 1/L` (the paper states it with :math:`\inf L \ge 0`: :math:`2L(\theta^0)/(\eta k)`).

    Parameters
    ----------
    initial_loss : float
        :math:`L(\theta^0)`.
    min_loss : float
        :math:`\inf L` (or any lower bound on it), <= initial_loss.
    %(learning_rate)s
    n_steps : int
        :math:`k \ge 1`.

    Returns
    -------
    float

    Examples
    --------
    >>> masked_descent_bound(2.0, 0.0, 0.5, 8)
    1.0
    """
    l0 = float(as_finite_array("initial_loss", initial_loss, ndim=0))
    lmin = float(as_finite_array("min_loss", min_loss, ndim=0))
    if lmin > l0:
        raise ValueError(f"min_loss must be <= initial_loss = {l0:g}, got {lmin:g}")
    eta = require_positive("learning_rate", learning_rate)
    k = require_integer("n_steps", n_steps, 1)
    # 4·((L0 − inf L)/2)/(η·k), mantissas and exponents apart: the halves cannot overflow, nor can η·k underflow
    half_gap = 0.5 * l0 - 0.5 * lmin
    return require_finite_product([4.0, half_gap], [eta, float(k)], what="the Proposition 1 bound 2(L0 − inf L)/(ηk)",
                                  hint="increase learning_rate or n_steps")
