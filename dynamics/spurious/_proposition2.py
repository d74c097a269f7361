"""Definition 1 and Proposition 2 of Barsbey et al. (``002_ec22b3cfca16aca5.txt`` supp. D.2, Eqs. 8, 10–20):
gradient norms of the spurious vs the core subnetwork under logit scaling.

The exact binary identity behind the proof (spec/spurious.md §4.3, [derived]): with ℓ = softplus(−k m) and
m = f[y] − f[y'], ∇_θ ℓ = −k σ(−k m) ∇_θ m for every parameter block θ, hence ‖∇_θ ℓ‖ = k σ(−k m) ‖∇_θ m‖.
Summed over a minibatch with per-sample margin-gradient norms c_i = ‖∇_c m_i‖ (core block) and
s_i = ‖∇_s m_i‖ (spurious block), the ratio of LLR Eq. 8 (a ratio of sums of per-sample norms) is

    Σ_i σ(−k m_i) s_i / Σ_i σ(−k m_i) c_i        (the factor k cancels).

Its growth as e^{α_min k} needs the "converged core" hypothesis c_i = 0 on BC samples; without it the
ratio saturates at Σ_BC s_i / Σ_BC c_i (§4.4, the caveat this package documents).
"""
from typing import NamedTuple, Union

import numpy as np
from scipy.special import expit, logsumexp

from dynamics.numerics import (as_finite_array, require_array_in_range, require_bool, require_finite_product,
                               require_finite_result, require_in_range, require_integer, require_positive, rng_from)
from ._checks import logit_scale_array, nonempty_vector, same_length
from ._proposition1 import _finite_exp, _min_and_multiplicity, _scalar_or_array


class Prop2Asymptote(NamedTuple):
    """k → ∞ behaviour of the Proposition 2 ratio: ratio ~ constant · e^{rate·k}. ``converged_core`` says whether
    the core margin gradients vanish on every BC sample (then rate = α_min > 0); otherwise the ratio saturates
    (rate = 0)."""

    rate: float
    constant: float
    converged_core: bool


def scaled_ce_grad_norm(logit_scale, margin, margin_grad_norm) -> Union[float, np.ndarray]:
    """Norm of the gradient of the scaled binary cross-entropy, ‖∇ℓ‖ = k σ(−k m) ‖∇m‖ (spec §4.3; LLR Eqs. 10–11).

    Exact for any parameter block, since ∇ℓ = −k σ(−k m) ∇m.

    Parameters
    ----------
    logit_scale : float or array_like
        k > 0.
    margin : float or array_like
        m = f[y] − f[y'] (> 0 correctly predicted, < 0 mispredicted).
    margin_grad_norm : float or array_like
        ‖∇_θ m‖ >= 0 for the block θ (broadcast against ``margin``).

    Returns
    -------
    float or ndarray
        k σ(−k m) ‖∇m‖.

    Examples
    --------
    >>> round(scaled_ce_grad_norm(20.0, -1.0, 1.0) / 20.0, 6)  # BC: σ(kβ) -> 1
    1.0
    >>> bool(scaled_ce_grad_norm(20.0, 1.0, 1.0) <= 20.0 * np.exp(-20.0))  # BA: <= k e^{-kα}
    True
    """
    k = logit_scale_array(logit_scale)
    m = as_finite_array("margin", margin)
    g = require_array_in_range("margin_grad_norm", margin_grad_norm, 0.0)
    try:
        with np.errstate(over="ignore"):  # k·m = ±inf is the exact σ = 0 or 1 limit
            out = k * expit(-k * m) * g
    except ValueError as exc:
        raise ValueError(f"logit_scale, margin and margin_grad_norm must broadcast, got shapes {k.shape}, "
                         f"{m.shape} and {g.shape}") from exc
    require_finite_result(out, "scaled_ce_grad_norm", "k·σ(−k·margin)·margin_grad_norm overflows float64; reduce "
                          "logit_scale or margin_grad_norm")
    return float(out) if out.ndim == 0 else out


def _margins_and_norms(margins, core_grad_norms, spurious_grad_norms):
    m = nonempty_vector("margins", margins)
    c = nonempty_vector("core_grad_norms", core_grad_norms, 0.0)
    s = nonempty_vector("spurious_grad_norms", spurious_grad_norms, 0.0)
    same_length(margins=m, core_grad_norms=c, spurious_grad_norms=s)
    return m, c, s


def prop2_gradient_ratio(logit_scale, margins, core_grad_norms, spurious_grad_norms, log=False) \
        -> Union[float, np.ndarray]:
    """The Proposition 2 ratio Σ‖∇_s ℓ_i‖ / Σ‖∇_c ℓ_i‖ = Σσ(−k m_i) s_i / Σσ(−k m_i) c_i (LLR Eq. 8; spec §4.3).

    Parameters
    ----------
    logit_scale : float or array_like
        k > 0 (the result has its shape).
    margins : array_like, shape (n_samples,)
        Signed margins m_i: > 0 for BA (correctly predicted), < 0 for BC (mispredicted).
    core_grad_norms, spurious_grad_norms : array_like, shape (n_samples,)
        c_i = ‖∇_c m_i‖ >= 0 and s_i = ‖∇_s m_i‖ >= 0.
    log : bool
        Return the log of the ratio (computed in log space).

    Returns
    -------
    float or ndarray
        The ratio (the factor k of both sums cancels). ValueError if the denominator is identically 0 (every
        c_i = 0), or with ``log`` if the numerator is (every s_i = 0).

    Examples
    --------
    >>> m, c, s = [0.5, 1.0, 2.0, 1.0, -0.3, -1.5], [1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]
    >>> round(float(prop2_gradient_ratio(20.0, m, c, s) * np.exp(-0.5 * 20)), 9)
    1.997482089
    """
    k = logit_scale_array(logit_scale)
    m, c, s = _margins_and_norms(margins, core_grad_norms, spurious_grad_norms)
    log = require_bool("log", log)
    if not np.any(c > 0):
        raise ValueError("core_grad_norms must not all be 0: the denominator of the ratio is identically 0")
    if log and not np.any(s > 0):
        raise ValueError("spurious_grad_norms must not all be 0 with log=True: the ratio is 0 and its log is -inf")
    kk = k.reshape(-1, 1)
    log_sigma = _relative_log_sigmoid(kk, m, (c > 0) | (s > 0))
    with np.errstate(divide="ignore"):
        log_c, log_s = np.log(c), np.log(s)
    numerator = logsumexp(log_sigma + log_s, axis=1) if np.any(s > 0) else np.full(kk.shape[0], -np.inf)
    log_ratio = (numerator - logsumexp(log_sigma + log_c, axis=1)).reshape(k.shape)
    if log:
        out = require_finite_result(log_ratio, "the log of the gradient-norm ratio", "k·(margin spread) overflows "
                                    "float64: the ratio is beyond e^(±1.8e308); reduce logit_scale")
    else:
        out = _finite_exp(log_ratio, "the gradient-norm ratio")
    return _scalar_or_array(out, k)


def _relative_log_sigmoid(k, m, used):
    """log σ(−k m_i) − log σ(−k m_r) for each row of k (shape (K, 1)), with r the smallest margin among the ``used``
    samples (the largest σ): the ratio of sums is unchanged by the common shift, which keeps every term a double where
    σ(−k m_i) itself underflows (k·m_i up to and beyond the float64 range, e.g. every margin large). With
    softplus(x) = max(x, 0) + log1p(e^{−|x|}), the shift is −k·(max(m_i, 0) − max(m_r, 0)) − log1p(e^{−|k m_i|})
    + log1p(e^{−|k m_r|}): no k·m_i is formed where it would overflow, and a difference beyond float64 is −inf (σ_i
    negligible against σ_r)."""
    positive = np.maximum(m, 0.0)
    reference = float(positive[used].min())
    with np.errstate(over="ignore", invalid="ignore"):
        spread = k * (positive - reference)  # >= 0; inf only where the true shift is below −1.8e308
        corrections = np.log1p(np.exp(-np.abs(k * m)))  # k·m = ±inf gives log1p(0) = 0
        corrections_at_reference = np.log1p(np.exp(-np.abs(k * m[used][np.argmin(positive[used])])))
    return np.where(used, -spread - corrections + corrections_at_reference, -np.inf)  # unused: c_i = s_i = 0


def prop2_asymptote(margins, core_grad_norms, spurious_grad_norms, atol=0.0) -> Prop2Asymptote:
    """Rate and constant of the Proposition 2 ratio as k → ∞, including the saturating case (spec §4.3–4.4).

    If c_i <= atol on every BC sample (the "converged core" hypothesis): rate = α_min, the smallest BA margin
    among samples with c_i > 0, and constant = Σ_BC s_i / Σ_{i: m_i = α_min} c_i. Otherwise the ratio saturates:
    rate = 0 and constant = Σ_BC s_i / Σ_BC c_i.

    Parameters
    ----------
    margins : array_like, shape (n_samples,)
        Signed margins, none equal to 0, at least one > 0 (BA) and one < 0 (BC).
    core_grad_norms, spurious_grad_norms : array_like, shape (n_samples,)
        c_i >= 0 and s_i >= 0.
    atol : float
        Core gradient norms <= atol on BC samples count as converged (>= 0).

    Returns
    -------
    Prop2Asymptote
        ``(rate, constant, converged_core)``: ratio ~ constant · e^{rate·k}.

    Examples
    --------
    >>> prop2_asymptote([0.5, 1.0, 2.0, 1.0, -0.3, -1.5], [1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1])
    Prop2Asymptote(rate=0.5, constant=2.0, converged_core=True)
    >>> prop2_asymptote([1.0, -1.0], [1.0, 2.0], [1.0, 3.0])
    Prop2Asymptote(rate=0.0, constant=1.5, converged_core=False)
    """
    m, c, s = _margins_and_norms(margins, core_grad_norms, spurious_grad_norms)
    atol = require_positive("atol", atol, allow_zero=True)
    if np.any(m == 0):
        raise ValueError(f"margins must be nonzero (> 0 for BA, < 0 for BC samples), got 0 at entry "
                         f"{int(np.flatnonzero(m == 0)[0])}")
    ba, bc = m > 0, m < 0
    if not ba.any() or not bc.any():
        raise ValueError(f"margins must hold at least one BA (> 0) and one BC (< 0) sample, got {int(ba.sum())} "
                         f"positive and {int(bc.sum())} negative")
    if np.all(c[bc] <= atol):
        useful = ba & (c > 0)
        if not useful.any():
            raise ValueError("core_grad_norms must be > 0 on some BA sample when they vanish on the BC samples: "
                             "otherwise the denominator is identically 0")
        rate, _ = _min_and_multiplicity(m[useful])
        at_rate = useful & (np.abs(m - rate) <= 1e-12 * rate)
        return Prop2Asymptote(rate, _ratio_of_sums(s[bc], c[at_rate]), True)
    return Prop2Asymptote(0.0, _ratio_of_sums(s[bc], c[bc]), False)


def _ratio_of_sums(numerator, denominator):
    """Σ numerator / Σ denominator (entries >= 0, Σ denominator > 0) without overflow of either sum: each sum as
    max·Σ(x/max), the quotient with mantissas and exponents apart. ValueError if the ratio leaves float64."""
    with np.errstate(over="ignore"):
        sums = float(numerator.sum()), float(denominator.sum())
    if np.isfinite(sums).all() and np.isfinite(sums[0] / sums[1]):
        return sums[0] / sums[1]
    top, bottom = float(numerator.max()), float(denominator.max())
    return require_finite_product([top, float(np.sum(numerator / top))], [bottom, float(np.sum(denominator / bottom))],
                                  what="the asymptotic constant", hint="Σ spurious_grad_norms / Σ core_grad_norms "
                                  "overflows float64")


class MarginGradients(NamedTuple):
    """Per-sample signed margins and margin-gradient norms of the core and spurious blocks, each of shape
    (n_samples,): the inputs of :func:`prop2_gradient_ratio` and :func:`prop2_asymptote`."""

    margins: np.ndarray
    core_grad_norms: np.ndarray
    spurious_grad_norms: np.ndarray


def bias_decomposable_fixture() -> MarginGradients:
    """The bias-decomposable test fixture of spec §4.4 / B3 (a fixture, not a trained model).

    BA margins {0.5, 1, 2, 1}, BC margins {−0.3, −1.5}; s_i = 1 everywhere; c_i = 1 on BA and 0 on BC (a core
    block whose margin gradient vanishes on BC samples: the "converged core" of LLR Def. 1 / Prop. 2).

    Returns
    -------
    MarginGradients

    Examples
    --------
    >>> fixture = bias_decomposable_fixture()
    >>> prop2_asymptote(*fixture)
    Prop2Asymptote(rate=0.5, constant=2.0, converged_core=True)
    """
    return MarginGradients(np.array([0.5, 1.0, 2.0, 1.0, -0.3, -1.5]), np.array([1.0, 1.0, 1.0, 1.0, 0.0, 0.0]),
                           np.ones(6))


def linear_two_block_fixture(n_samples=400, n_features=5, bc_rate=0.1, min_margin=0.25, *, seed=None) \
        -> MarginGradients:
    """The negative control of spec §4.4 / B4: a linear two-block model f = W_c x_c + W_s x_s with 2 logits.

    x_c, x_s ~ N(0, I_d); b uniform in {0, 1} and y = b except with probability ``bc_rate``; the first spurious
    coordinate is (2b − 1)(1 + |N(0, 1)|) and W_s reads it (±1 on the two logits), W_c = 0.05·N(0, 1), so the
    model predicts by the spurious rule. Samples whose |margin| < ``min_margin`` are dropped. The margin
    gradients are ∇_{W_c} m = x_c(e_y − e_{y'})ᵀ and ∇_{W_s} m = x_s(e_y − e_{y'})ᵀ, with Frobenius norms
    √2‖x_c‖ and √2‖x_s‖: the core gradient never vanishes on BC samples, so the ratio saturates.

    Parameters
    ----------
    n_samples : int
        Samples drawn before dropping small margins (>= 2).
    n_features : int
        d >= 1 features per block.
    bc_rate : float
        In [0, 1).
    min_margin : float
        >= 0.
    seed : None, int or numpy.random.Generator

    Returns
    -------
    MarginGradients

    Examples
    --------
    >>> fixture = linear_two_block_fixture(seed=0)
    >>> prop2_asymptote(*fixture).converged_core
    False
    """
    n = require_integer("n_samples", n_samples, 2)
    d = require_integer("n_features", n_features, 1)
    rho = require_in_range("bc_rate", bc_rate, 0.0, 1.0, high_open=True)
    min_margin = require_positive("min_margin", min_margin, allow_zero=True)
    rng = rng_from(seed)
    b = rng.integers(0, 2, n)
    y = np.where(rng.random(n) < rho, 1 - b, b)
    x_core = rng.standard_normal((n, d))
    x_spurious = rng.standard_normal((n, d))
    x_spurious[:, 0] = (2 * b - 1) * (1.0 + np.abs(x_spurious[:, 0]))
    W_core = 0.05 * rng.standard_normal((2, d))
    W_spurious = np.zeros((2, d))
    W_spurious[1, 0], W_spurious[0, 0] = 1.0, -1.0
    f = x_core @ W_core.T + x_spurious @ W_spurious.T
    rows = np.arange(n)
    margins = f[rows, y] - f[rows, 1 - y]
    keep = (np.argmax(f, axis=1) == b) & (np.abs(margins) >= min_margin)
    root2 = np.sqrt(2.0)
    return MarginGradients(margins[keep], root2 * np.linalg.norm(x_core[keep], axis=1),
                           root2 * np.linalg.norm(x_spurious[keep], axis=1))
