"""The approximate bipartite closed form (Eqs 4.2.11–4.2.16, App. .2.37–.2.41), its fixed points A, B, C,
and the log-time ODE for the roots a_i.

Each group i (fast: p₁ = p, σ₁ = 1; slow: p₂ = d − p, σ₂ = 1/κ) is a Case-1 problem in its own units, the
other group's unlearnt signal acting as noise (spec §2.5):

    α_i = n/p_i,   λ_eff = λ + 1/(η_i t),   λ̃_i = (d/p_i) λ_eff/σ_i²                       (4.2.11–4.2.12)
    a_i = ½[1 + α_i + λ̃_i + sqrt((1 + α_i + λ̃_i)² − 4α_i)]   (stable root, E12)           (4.2.13)
    R_i = n/(a_i d),   b_i = α_i/(a_i² − α_i)                                             (4.2.14)
    c_i = 1 + σ_ε² − 2R_j − ((2 − a_i)/a_i)(n/d),   j ≠ i   (R_j, not the printed R_i: E13) (4.2.16)
    Q₁ = (b₁b₂c₂ + b₁c₁)/(1 − b₁b₂),   Q₂ = (b₁b₂c₁ + b₂c₂)/(1 − b₁b₂)                  (4.2.15, .2.41)

Time conventions (spec §3): ``t`` counts GD steps of learning rate η; λ_eff = λ + 1/(ηt) is the analytic
time-to-ridge map (Eq 4.2.22). The authors' "analytic mode" is η = 1/4 (:data:`ANALYTIC_ETA`), plotted at x = t + 1;
their ridge λ_c maps to ``ridge = λ_c/η``. Per-group learning rates η_i = η/σ_i² (preconditioning P = VΣ⁻²Vᵀ,
spec P18) make both groups learn on the fast time scale.

Log-time ODE (spec §2.5, P19): with τ = ln t, dλ̃_i/dτ = −(λ̃_i − λ̃_i(∞)) and
da_i/dτ = (dλ̃_i/dτ)·a_i/(2a_i − 1 − α_i − λ̃_i), started deep in the λ̃ ≫ 1 regime from the series of the root.
"""
from dataclasses import dataclass

import numba as nb
import numpy as np

from dynamics.numerics import (as_finite_array, require_array_in_range, require_choice, require_in_range,
                               require_integer, require_positive, solve_ode)
from ._common import check_bipartite, check_noise, check_noise_ridge, check_times, order_parameters
from ._replica import _stable_root

ANALYTIC_ETA = 0.25


def effective_ridge(t, eta, ridge=0.0):
    """λ_eff = λ + 1/(ηt) (Eq 4.2.22): the ridge that the analytic theory assigns to GD time t (t = 0 gives inf)."""
    t = check_times("t", t)
    eta = require_positive("eta", eta)
    ridge = require_positive("ridge", ridge, allow_zero=True)
    return ridge + _inverse_time(t, eta)


def analytic_times(num=300, log10_min=-3.0, log10_max=8.0):
    """The authors' analytic time grid t = 10^linspace(−3, 8, 300); curves are plotted at x = t + 1."""
    num = require_integer("num", num, 2, 10_000_000)
    log10_min = require_in_range("log10_min", log10_min, -300, 300)
    log10_max = require_in_range("log10_max", log10_max, log10_min, 300, low_open=True)
    return np.logspace(log10_min, log10_max, num)


def code_ridge_to_api(code_ridge, eta=ANALYTIC_ETA):
    """The analytic code's ridge λ_c (λ_eff = λ_c + 1/t at ησ₁² = 1/4) as the API's ridge λ_c/η."""
    code_ridge = np.asarray(as_finite_array("code_ridge", code_ridge))
    if np.any(code_ridge < 0):
        raise ValueError(f"code_ridge must be >= 0, got {code_ridge[code_ridge < 0].flat[0]:g}")
    return code_ridge / require_positive("eta", eta)


def _inverse_time(t, eta):
    with np.errstate(divide="ignore", over="ignore"):  # t -> 0 is the λ_eff = inf limit
        return np.where(t > 0, 1.0 / (eta * np.where(t > 0, t, 1.0)), np.inf)


def _group_setup(n, d, p, kappa, eta, per_group_learning_rate):
    sizes = np.array([p, d - p])
    sigma2 = np.array([1.0, 1.0 / kappa ** 2])
    etas = eta / sigma2 if per_group_learning_rate else np.array([eta, eta])
    return n / sizes, sizes, sigma2, etas


def _group_ridges(t, d, sizes, sigma2, etas, ridge):
    """λ̃_i(t) for i = 1, 2, shape (2,) + t.shape."""
    with np.errstate(over="ignore", divide="ignore"):  # overflow to inf is the not-yet-learning limit a_i = inf
        return np.stack([(d / sizes[i]) * (ridge + _inverse_time(t, etas[i])) / sigma2[i] for i in range(2)])


def bipartite_from_roots(a1, a2, n, d, p, noise=0.0, c_overlap="other"):
    """Eqs 4.2.14–4.2.16 from the roots a_i (a_i = inf: group i not yet learning).

    ``c_overlap="other"`` uses R_j (j ≠ i) in c_i, the corrected form (E13); ``"own"`` uses R_i as printed in
    the source. a_i must be the larger root, a_i >= max(1, α_i) (or inf), and n > d, 0 < p < d. Raises if
    1 − b₁b₂ <= 0 (the approximation's validity condition, spec §2.5).
    """
    require_choice("c_overlap", c_overlap, ("other", "own"))
    n, d, p, _ = check_bipartite(n, d, p, 1.0)
    noise = check_noise(noise)
    roots = []
    for name, value, size in (("a1", a1, p), ("a2", a2, d - p)):
        arr = check_times(name, value)  # real, no NaN, inf allowed (group not yet learning)
        floor = max(1.0, n / size)
        # the larger root of Eq 4.2.13 is >= max(1, α_i); allow round-off of the closed form or an ODE
        if np.any(arr < floor * (1.0 - 1e-9)):
            raise ValueError(f"{name} must be >= max(1, n/p_{name[1]}) = {floor:g} (the larger root of Eq 4.2.13), "
                             f"got {np.min(arr):g}")
        roots.append(arr)
    try:
        a = np.stack(np.broadcast_arrays(*roots))
    except ValueError:
        raise ValueError(f"a1 (shape {roots[0].shape}) and a2 (shape {roots[1].shape}) must broadcast") from None
    alpha = (n / np.array([p, d - p])).reshape((2,) + (1,) * (a.ndim - 1))
    R = n / (a * d)
    root_alpha = np.sqrt(alpha)
    with np.errstate(over="ignore"):  # a_i² overflows only where b_i = 0 (group not learning)
        b = alpha / ((a - root_alpha) * (a + root_alpha))
    overlap = R[::-1] if c_overlap == "other" else R
    c = 1.0 + noise * noise - 2.0 * overlap - (2.0 / a - 1.0) * (n / d)
    coupling = 1.0 - b[0] * b[1]
    if np.any(~(coupling > 0)):
        raise ValueError(f"1 - b1*b2 must be > 0 for the bipartite approximation, got {np.min(coupling):.3g} "
                         f"(n={n:g}, d={d:g}, p={p:g})")
    Q1 = (b[0] * b[1] * c[1] + b[0] * c[0]) / coupling
    Q2 = (b[0] * b[1] * c[0] + b[1] * c[1]) / coupling
    return order_parameters(R[0] + R[1], Q1 + Q2, noise, R[0], R[1], Q1, Q2)


def bipartite_roots(t, n, d, p, kappa, ridge=0.0, eta=ANALYTIC_ETA, per_group_learning_rate=False):
    """(a₁(t), a₂(t)) of Eq 4.2.13 (stable root) on the analytic time-to-ridge map."""
    t = check_times("t", t)
    n, d, p, kappa = check_bipartite(n, d, p, kappa)
    ridge = require_array_in_range("ridge", ridge, 0.0, np.inf)
    try:
        np.broadcast_shapes(t.shape, ridge.shape)
    except ValueError:
        raise ValueError(f"ridge (shape {ridge.shape}) must broadcast against t (shape {t.shape})") from None
    eta = require_positive("eta", eta)
    alpha, sizes, sigma2, etas = _group_setup(n, d, p, kappa, eta, per_group_learning_rate)
    lam = _group_ridges(t, d, sizes, sigma2, etas, ridge)
    return _stable_root(alpha[0], lam[0]), _stable_root(alpha[1], lam[1])


def bipartite_theory(t, n, d, p, kappa, noise=0.0, ridge=0.0, eta=ANALYTIC_ETA, per_group_learning_rate=False,
                     freeze_fast_at=None, freeze_slow_at=None, c_overlap="other"):
    """Approximate closed form of Eqs 4.2.11–4.2.16 at GD times ``t`` (steps; 0 and inf allowed).

    ``ridge`` may be an array broadcasting against ``t`` (e.g. a λ × t grid for Fig 4.5c).

    n > d training samples, dimension d, fast-group size 0 < p < d, condition number κ >= 1 (σ₁ = 1,
    σ₂ = 1/κ), label-noise sd ``noise``, ridge λ >= 0 of the sum-normalised loss, learning rate η
    (default 1/4, the authors' analytic mode). ``per_group_learning_rate`` trains group i at η/σ_i².
    ``freeze_fast_at`` / ``freeze_slow_at`` hold a_1 / a_2 at their value at that time (Fig 4.1's
    single-feature curves). Returns :class:`OrderParameters` with arrays of the shape of ``t``.
    """
    t = check_times("t", t)
    noise = check_noise(noise)
    a1, a2 = bipartite_roots(t, n, d, p, kappa, ridge, eta, per_group_learning_rate)
    frozen = [freeze_fast_at, freeze_slow_at]
    for group, when in enumerate(frozen):
        if when is not None:
            when = check_times("freeze_fast_at" if group == 0 else "freeze_slow_at", when)
            if when.ndim:
                raise ValueError(f"{'freeze_fast_at' if group == 0 else 'freeze_slow_at'} must be a scalar time")
            held = bipartite_roots(when, n, d, p, kappa, ridge, eta, per_group_learning_rate)[group]
            if group == 0:
                a1 = np.broadcast_to(held, a1.shape)
            else:
                a2 = np.broadcast_to(held, a2.shape)
    return bipartite_from_roots(a1, a2, n, d, p, noise, c_overlap)


@nb.njit(cache=True)
def log_time_rhs(tau, a, params):
    """da/dτ for τ = ln t; params = [α, λ̃(∞), c] with λ̃(τ) = λ̃(∞) + c e^{−τ} (one group)."""
    alpha, lam_inf, c = params[0], params[1], params[2]
    decay = c * np.exp(-tau)
    out = np.empty(1)
    out[0] = -decay * a[0] / (2.0 * a[0] - 1.0 - alpha - lam_inf - decay)
    return out


def _root_series(alpha, lam):
    """The larger root for λ ≫ 1 from its expansion a = s − Σ_k C_{k−1} α^k / s^{2k−1} (C: Catalan numbers),
    s = 1 + α + λ: an independent route to the root, summed to round-off (elementwise in λ)."""
    s = 1.0 + alpha + np.asarray(lam, dtype=float)
    a, catalan, term = s.copy(), 1.0, alpha / s
    for k in range(1, 200):
        a -= catalan * term
        term = term * (alpha / (s * s))
        catalan *= 2.0 * (2 * k - 1) / (k + 1)
        if np.all(catalan * term < 1e-18 * s):
            break
    return a


# The ODE conserves a² − (1 + α + λ̃)a + α, so an error δ made where λ̃ = L reaches the end as about δ·2L/(α − 1):
# start where λ̃ = _ODE_START, from the series, to keep that amplification below 1e3.
_ODE_START = 20.0


def bipartite_theory_ode(t, n, d, p, kappa, noise=0.0, ridge=0.0, eta=ANALYTIC_ETA, per_group_learning_rate=False,
                         rtol=1e-13):
    """The bipartite theory with a_i(t) from the log-time ODE (spec §2.5) integrated by the numba DOP853 solver.

    ``t`` must be finite, > 0 and increasing. Each group's ODE starts where its λ̃_i = 20, from the series of the
    root (which also gives a_i at earlier times, where λ̃_i > 20). Returns :class:`OrderParameters`.
    """
    t = check_times("t", t, allow_zero=False)
    if t.ndim != 1 or not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0):
        raise ValueError("t must be a 1-D array of finite, strictly increasing times > 0")
    n, d, p, kappa = check_bipartite(n, d, p, kappa)
    noise, ridge = check_noise_ridge(noise, ridge)
    eta = require_positive("eta", eta)
    rtol = require_in_range("rtol", rtol, 1e-14, 1e-3)
    alpha, sizes, sigma2, etas = _group_setup(n, d, p, kappa, eta, per_group_learning_rate)
    lam_inf = (d / sizes) * ridge / sigma2
    rate = (d / sizes) / (etas * sigma2)          # λ̃_i(t) = λ̃_i(∞) + rate_i / t
    roots = []
    for i in range(2):
        lam_t = lam_inf[i] + rate[i] / t
        late = lam_t < _ODE_START
        a = np.empty_like(t)
        a[~late] = _root_series(alpha[i], lam_t[~late])
        if np.any(late):
            t0 = rate[i] / (_ODE_START - lam_inf[i])
            params = np.array([alpha[i], lam_inf[i], rate[i]])
            a0 = np.array([_root_series(alpha[i], _ODE_START)])
            sol = solve_ode(log_time_rhs, (np.log(t0), np.log(t[-1]) + 1e-12), a0, t_eval=np.log(t[late]),
                            params=params, method="dop853", rtol=rtol, atol=rtol * 1e-3).check()
            a[late] = sol.y[:, 0]
        roots.append(a)
    return bipartite_from_roots(roots[0], roots[1], n, d, p, noise)


@dataclass(frozen=True)
class PhasePoint:
    R: float
    Q: float
    generalization_error: float


@dataclass(frozen=True)
class BayesPoint(PhasePoint):
    """Point A: also the optimal effective ridge λ_eff* = 1 − p/d + σ² (σ₁ = 1) and λ̃₁* = λ_eff*·d/p."""

    lambda_eff: float = 0.0
    lambda_tilde: float = 0.0

    def time(self, eta=ANALYTIC_ETA):
        """t_A = 1/(η λ_eff*) (plotted at x_A = t_A + 1)."""
        return 1.0 / (require_positive("eta", eta) * self.lambda_eff)


@dataclass(frozen=True)
class PhasePoints:
    A: BayesPoint
    B: PhasePoint
    C: PhasePoint


def phase_points(n, d, p, noise=0.0):
    """Closed-form points of the (R, Q) plane (spec §B.4, P7–P9): A, the Bayes-optimal first minimum
    (κ → ∞, λ̃₁* = (1 − P + σ²)/P); B, the κ → ∞ plateau; C, the t → ∞ limit for finite κ. P = p/d."""
    n, d, p, _ = check_bipartite(n, d, p, 1.0)
    noise = check_noise(noise)
    P, s2 = p / d, noise * noise
    lambda_eff = 1.0 - P + s2
    lam1 = lambda_eff / P
    alpha1 = n / p
    a = float(_stable_root(np.float64(alpha1), np.float64(lam1)))
    R_A = n / (a * d)
    # Q_A from the Case-1 overlap formula b·c with the slow group as noise: equal to R_A at the optimum.
    Q_A = alpha1 / (a * a - alpha1) * (1.0 + s2 - (2.0 / a - 1.0) * n / d)
    A = BayesPoint(R_A, Q_A, 0.5 * (1.0 - 2.0 * R_A + Q_A), lambda_eff, lam1)
    Q_B = P + (1.0 - P + s2) * p / (n - p)
    B = PhasePoint(P, Q_B, 0.5 * (1.0 - 2.0 * P + Q_B))
    Q_C = 1.0 + s2 * d / (n - d)
    C = PhasePoint(1.0, Q_C, 0.5 * (Q_C - 1.0))
    return PhasePoints(A, B, C)
