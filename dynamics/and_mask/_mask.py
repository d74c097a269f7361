"""The AND-mask itself (Parascandolo et al. 2021, §2.3; the authors' public code, ``get_grads``).

* τ-form (the one the package implements): m_j = 1[abs(S_j) >= T(d, τ)], S_j = Σ_e sign(g_ej) in integers with
  sign(0) = 0, and the integer threshold T(d, τ) = ⌈τd − 1e-9⌉, so that exact-fraction edges (d = 25, τ = 0.28) do
  not flip.
* t-form (the paper's): m_j = 1[max(P_j, N_j) >= t]; without exact zeros m_τ = m_t with t = ⌈(d + T)/2⌉.
* XOR-mask (paper Fig 7, which gives no formula; the project's reading): 1[abs(S_j) <= ⌊(1−τ)d + 1e-9⌋].
* The masked update u = m ⊙ b with b = ḡ (arithmetic mean) or, as in the public code's ``geom_mean``,
  b = sign(ḡ) ⊙ exp(mean_e log(abs(g_e) + 1e-10)); with inverse-sparsity rescaling u/(1e-10 + ρ), ρ the kept
  fraction of each parameter tensor.
* AND-masked gradient descent θ ← θ − η·u(θ) (paper §2.3, Proposition 1).

Per-environment gradients are a 2-D array whose axis 0 indexes the environments, (n_envs, n_params), as in the
public code's stacked gradients; an array laid out (n_params, n_envs) needs ``env_axis=1``. No shape is rejected as
ambiguous (d environments and one parameter, (d, 1), is as legitimate as its transpose), so the axis is the caller's
to state.
"""
import math
from typing import Callable, Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import as_finite_array, require_bool, require_finite_result, require_integer, require_positive
from ._checks import require_agreement_threshold, require_env_axis, require_grads, require_groups, require_n_envs
from ._results import MaskedDescent

__all__ = ["and_mask", "and_mask_t", "and_masked_gd", "effective_agreement", "keep_set", "masked_gradient",
           "sign_threshold", "xor_mask"]

#: Slack of the integer threshold: ⌈τd − 1e-9⌉ is exact for every τ·d within 1e-9 of an integer.
THRESHOLD_SLACK = 1e-9
#: The offsets of the public code: log(|g| + 1e-10) in ``geom_mean`` and 1/(1e-10 + ρ) in the rescaling.
GEOM_MEAN_OFFSET = 1e-10
RESCALE_OFFSET = 1e-10


def integer_threshold(n_envs: int, agreement_threshold: float) -> int:
    """T(d, τ) = ⌈τd − 1e-9⌉ (at least 0) for checked arguments: the one place the threshold is computed."""
    return max(0, math.ceil(agreement_threshold * n_envs - THRESHOLD_SLACK))


def sign_threshold(n_envs: int, agreement_threshold: float) -> int:
    """The integer threshold T(d, τ) = ⌈τd − 10⁻⁹⌉ on the sign sum abs(Σ_e sign(g_e)) (see the theory note,
    docs/theory/and_mask.md, on why the threshold is an integer).

    Parameters
    ----------
    n_envs : int
        Number of environments d >= 1.
    agreement_threshold : float
        Agreement threshold τ in [0, 1].

    Returns
    -------
    int
        T in {0, ..., d}: a coordinate is kept when abs(S_j) >= T.

    Examples
    --------
    >>> sign_threshold(25, 0.28)  # τd = 7.000000000000001 in float64: a naive ceil gives 8
    7
    >>> sign_threshold(4, 0.0), sign_threshold(4, 1.0)
    (0, 4)
    """
    return integer_threshold(require_n_envs(n_envs), require_agreement_threshold(agreement_threshold))


def keep_set(n_envs: int, agreement_threshold: float) -> np.ndarray:
    """The keep set K_τ(d) = {k in 0..d : abs(2k − d) >= T(d, τ)} of numbers of positive signs.

    Parameters
    ----------
    n_envs : int
        Number of environments d >= 1.
    agreement_threshold : float
        Agreement threshold τ in [0, 1].

    Returns
    -------
    ndarray of int, shape (m,)
        The counts k of positive signs (with no zero gradients) for which a coordinate is kept, ascending.

    Examples
    --------
    >>> keep_set(4, 0.5).tolist(), keep_set(4, 0.6).tolist()
    ([0, 1, 3, 4], [0, 4])
    """
    d = require_n_envs(n_envs)
    k = np.arange(d + 1)
    return k[np.abs(2 * k - d) >= integer_threshold(d, require_agreement_threshold(agreement_threshold))]


def effective_agreement(n_envs: int, agreement_threshold: float) -> int:
    """The t-form threshold t_eff = ⌈(d + T(d, τ))/2⌉ equivalent to the τ-form without exact zeros (derived in this
    project; see the theory note, docs/theory/and_mask.md).

    Computed from the integer T, never as ⌈d(1 + τ)/2⌉ in floating point (which is off by one at edges such as
    d = 9, τ = abs(2·3/9 − 1)).

    Parameters
    ----------
    n_envs : int
        Number of environments d >= 1.
    agreement_threshold : float
        Agreement threshold τ in [0, 1].

    Returns
    -------
    int
        t_eff in {⌈d/2⌉, ..., d}: keep j iff max(P_j, N_j) >= t_eff.

    Examples
    --------
    >>> effective_agreement(9, abs(2 * 3 / 9 - 1)), effective_agreement(10, 0.6)
    (6, 8)
    """
    d = require_n_envs(n_envs)
    return (d + integer_threshold(d, require_agreement_threshold(agreement_threshold)) + 1) // 2


def _sign_sums(g: np.ndarray) -> np.ndarray:
    """S_j = #positive − #negative, in int64 (sign(0) = 0)."""
    return (g > 0).sum(axis=0, dtype=np.int64) - (g < 0).sum(axis=0, dtype=np.int64)


def and_mask(grads: ArrayLike, agreement_threshold: float, *, env_axis: int = 0) -> np.ndarray:
    """The AND-mask m_τ: keep j iff abs(Σ_e sign(g_ej)) >= ⌈τd − 1e-9⌉ (Parascandolo et al. 2021, §2.3).

    Parameters
    ----------
    grads : array_like, shape (n_envs, n_params)
        Row e is the gradient g_e = ∇L_e(θ) of environment e (environments along axis 0; see ``env_axis``); finite.
    agreement_threshold : float
        Agreement threshold τ in [0, 1]. τ = 0 keeps everything (plain averaging); τ = 1 keeps j only if all d
        entries are non-zero and share one sign.
    env_axis : {0, 1}, default 0
        The axis of ``grads`` that indexes the environments: 0 for (n_envs, n_params) (rows are environments), 1 for
        (n_params, n_envs) (columns are environments; −2 and −1 are accepted too). The shape cannot tell the two
        apart, so a (n_params, n_envs) array passed without ``env_axis=1`` is silently read as n_params environments.

    Returns
    -------
    ndarray of bool, shape (n_params,)
        The mask. A zero entry counts for neither sign (sign(0) = 0), so it lowers abs(S_j).

    Examples
    --------
    >>> g = [[1.0, -2.0, 0.5, 0.0], [3.0, 1.0, 0.2, 1.0]]
    >>> and_mask(g, 1.0).tolist()
    [True, False, True, False]
    >>> and_mask(g, 0.0).tolist()
    [True, True, True, True]
    >>> and_mask(np.transpose(g), 1.0, env_axis=1).tolist()  # the same gradients, one column per environment
    [True, False, True, False]
    """
    g = require_grads(grads, env_axis)
    return np.abs(_sign_sums(g)) >= integer_threshold(g.shape[0], require_agreement_threshold(agreement_threshold))


def and_mask_t(grads: ArrayLike, n_agree: int, *, env_axis: int = 0) -> np.ndarray:
    """The paper's t-form AND-mask: keep j iff max(P_j, N_j) >= t agreeing signs (Parascandolo et al. 2021, §2.3).

    Parameters
    ----------
    grads : array_like, shape (n_envs, n_params)
        Per-environment gradients, row e for environment e (environments along axis 0; see ``env_axis``); finite.
    n_agree : int
        The number t of agreeing signs required, 0 <= t <= d (the paper uses t in {d/2 + 1, ..., d}).
    env_axis : {0, 1}, default 0
        The axis of ``grads`` that indexes the environments: 0 for (n_envs, n_params) (rows are environments), 1 for
        (n_params, n_envs) (columns are environments; −2 and −1 are accepted too). The shape cannot tell the two
        apart, so a (n_params, n_envs) array passed without ``env_axis=1`` is silently read as n_params environments.

    Returns
    -------
    ndarray of bool, shape (n_params,)

    Examples
    --------
    >>> g = [[1.0, -1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, -1.0]]
    >>> and_mask_t(g, 3).tolist(), and_mask_t(g, 2).tolist()
    ([True, False, False], [True, True, True])
    """
    g = require_grads(grads, env_axis)
    t = require_integer("n_agree", n_agree, 0, g.shape[0])
    positive = (g > 0).sum(axis=0)
    negative = (g < 0).sum(axis=0)
    return np.maximum(positive, negative) >= t


def xor_mask(grads: ArrayLike, agreement_threshold: float, *, env_axis: int = 0) -> np.ndarray:
    """The XOR-mask of Parascandolo et al. 2021, Fig 7: keep j iff abs(S_j) <= ⌊(1 − τ)d + 1e-9⌋.

    It keeps the components on which the environments disagree; τ = 0 keeps everything and τ = 1 only the
    perfectly split ones (S_j = 0). The paper describes the XOR-mask in words only ("masks out consistent
    gradients, preserves those with different signs"); this formula is the project's reading of it.

    Parameters
    ----------
    grads : array_like, shape (n_envs, n_params)
        Per-environment gradients, row e for environment e (environments along axis 0; see ``env_axis``); finite.
    agreement_threshold : float
        Threshold τ in [0, 1].
    env_axis : {0, 1}, default 0
        The axis of ``grads`` that indexes the environments: 0 for (n_envs, n_params) (rows are environments), 1 for
        (n_params, n_envs) (columns are environments; −2 and −1 are accepted too). The shape cannot tell the two
        apart, so a (n_params, n_envs) array passed without ``env_axis=1`` is silently read as n_params environments.

    Returns
    -------
    ndarray of bool, shape (n_params,)

    Examples
    --------
    >>> xor_mask([[1.0, 1.0], [-1.0, 1.0]], 1.0).tolist()
    [True, False]
    """
    g = require_grads(grads, env_axis)
    agreement_threshold = require_agreement_threshold(agreement_threshold)
    limit = math.floor((1.0 - agreement_threshold) * g.shape[0] + THRESHOLD_SLACK)
    return np.abs(_sign_sums(g)) <= limit


def masked_gradient(grads: ArrayLike, agreement_threshold: float, rescale: bool = False, geom_mean: bool = False,
                    groups: Optional[Union[ArrayLike, Sequence[ArrayLike]]] = None, *, env_axis: int = 0) -> np.ndarray:
    """The AND-masked update u = m_τ ⊙ b, optionally rescaled by the inverse kept fraction (Parascandolo et al. 2021,
    §2.3; the rescaling and the geometric mean come from the authors' public code).

    b = ḡ = (1/d) Σ_e g_e, or with ``geom_mean`` the public code's signed geometric mean
    b = sign(ḡ) ⊙ exp((1/d) Σ_e log(abs(g_e) + 1e-10)). With ``rescale`` (the public code's
    ``scale_grad_inverse_sparsity``), u ← u/(1e-10 + ρ) with ρ the kept fraction of each group (the whole vector
    by default); a group with nothing kept gets exactly 0.

    Parameters
    ----------
    grads : array_like, shape (n_envs, n_params)
        Per-environment gradients, row e for environment e (environments along axis 0; see ``env_axis``); finite.
    agreement_threshold : float
        Agreement threshold τ in [0, 1].
    rescale : bool, default False
        Inverse-sparsity rescaling (not in the paper; the public code and DomainBed use it).
    geom_mean : bool, default False
        Use the signed geometric mean of the magnitudes instead of the arithmetic mean.
    groups : None, array_like of int with shape (n_params,), or list of index arrays, optional
        Parameter tensors for the rescaling: ρ is computed per group (the public code's layer-wise rescaling).
    env_axis : {0, 1}, default 0
        The axis of ``grads`` that indexes the environments: 0 for (n_envs, n_params) (rows are environments), 1 for
        (n_params, n_envs) (columns are environments; −2 and −1 are accepted too). The shape cannot tell the two
        apart, so a (n_params, n_envs) array passed without ``env_axis=1`` is silently read as n_params environments.

    Returns
    -------
    ndarray, shape (n_params,)
        τ = 0 without flags returns ḡ exactly (bitwise).

    Examples
    --------
    >>> g = [[1.0, -2.0, 0.5, 3.0], [3.0, 1.0, 0.2, 1.0]]
    >>> masked_gradient(g, 1.0).tolist()
    [2.0, 0.0, 0.35, 2.0]
    >>> [round(float(x), 6) for x in masked_gradient(g, 1.0, rescale=True)]  # 3 of 4 kept: times 4/3
    [2.666667, 0.0, 0.466667, 2.666667]
    >>> [round(float(x), 6) for x in masked_gradient(g, 1.0, geom_mean=True)]  # √(1·3), 0, √(0.5·0.2), √3
    [1.732051, 0.0, 0.316228, 1.732051]
    """
    g = require_grads(grads, env_axis)
    mask = np.abs(_sign_sums(g)) >= integer_threshold(g.shape[0], require_agreement_threshold(agreement_threshold))
    rescale, geom_mean = require_bool("rescale", rescale), require_bool("geom_mean", geom_mean)
    with np.errstate(over="ignore"):
        mean = np.mean(g, axis=0)
    require_finite_result(mean, "the mean gradient", "grads are too large to average in float64")
    if geom_mean:
        base = np.sign(mean) * np.exp(np.mean(np.log(np.abs(g) + GEOM_MEAN_OFFSET), axis=0))
    else:
        base = mean
    update = np.where(mask, base, 0.0)
    if rescale:
        if groups is None:
            update = update / (RESCALE_OFFSET + np.mean(mask))
        else:
            index = require_groups(groups, g.shape[1])
            kept = np.bincount(index, weights=mask.astype(np.float64)) / np.bincount(index)
            update = update / (RESCALE_OFFSET + kept[index])
    return update


def and_masked_gd(env_gradients: Callable[[np.ndarray], ArrayLike], theta0: ArrayLike, agreement_threshold: float,
                  learning_rate: float, n_steps: int, rescale: bool = False, geom_mean: bool = False, *,
                  env_axis: int = 0) -> MaskedDescent:
    """AND-masked gradient descent θ ← θ − η·u(θ), u = :func:`dynamics.and_mask.masked_gradient`
    (Parascandolo et al. 2021, §2.3 and Proposition 1).

    Parameters
    ----------
    env_gradients : callable
        ``env_gradients(theta) -> array of shape (n_envs, n_params)``: the per-environment gradients at θ, one row
        per environment (or one column per environment with ``env_axis=1``).
    theta0 : array_like, shape (n_params,)
        Starting point.
    agreement_threshold : float
        Agreement threshold τ in [0, 1] (τ = 0: plain gradient descent on the pooled loss).
    learning_rate : float
        Step size η > 0 (Proposition 1 needs η <= 1/L for an L-Lipschitz ∇L, and rescale=False).
    n_steps : int
        Number of steps k >= 0.
    rescale, geom_mean : bool
        As in :func:`dynamics.and_mask.masked_gradient`.
    env_axis : {0, 1}, default 0
        The axis of the array ``env_gradients`` returns that indexes the environments: 0 for (n_envs, n_params),
        1 for (n_params, n_envs) (−2 and −1 are accepted too). A result whose parameter axis does not have
        len(theta0) entries is refused, naming both layouts.

    Returns
    -------
    MaskedDescent
        ``thetas`` (n_steps + 1, n_params) and ``masked_gradient_sq`` (n_steps,): ‖u(θ^i)‖² at each step. A loss
        along the run is that loss evaluated on the rows of ``thetas`` (see the example).

    Examples
    --------
    >>> H = np.array([[2.0, 0.0], [0.0, 1.0]])
    >>> run = and_masked_gd(lambda th: np.stack([H @ th, H @ th - [0.0, 1.0]]), [1.0, 1.0], 1.0, 0.5, 3)
    >>> run.thetas[-1].tolist()  # environment B's zero gradient masks coordinate 1 throughout
    [0.0, 1.0]
    >>> [0.5 * float(th @ H @ th) for th in run.thetas]  # environment A's loss along the run, on the iterates
    [1.5, 0.5, 0.5, 0.5]
    """
    if not callable(env_gradients):
        raise TypeError(f"env_gradients must be callable, got {env_gradients!r}")
    theta = as_finite_array("theta0", theta0, ndim=1)
    agreement_threshold = require_agreement_threshold(agreement_threshold)
    eta = require_positive("learning_rate", learning_rate)
    n_steps = require_integer("n_steps", n_steps, 0)
    axis = require_env_axis(env_axis)
    thetas = np.empty((n_steps + 1, theta.size))
    thetas[0] = theta
    norms = np.empty(n_steps)
    for i in range(n_steps):
        grads = np.asarray(env_gradients(theta), dtype=np.float64)
        if grads.ndim != 2 or grads.shape[1 - axis] != theta.size:
            expected = f"(n_envs, {theta.size})" if axis == 0 else f"({theta.size}, n_envs)"
            hint = ""
            if grads.ndim == 2 and grads.shape[axis] == theta.size:
                hint = f": it looks transposed; pass env_axis={1 - axis} if the environments run along axis {1 - axis}"
            raise ValueError(f"env_gradients must return shape {expected} (env_axis={axis}), got {grads.shape}{hint}")
        update = masked_gradient(grads, agreement_threshold, rescale, geom_mean, env_axis=axis)
        with np.errstate(over="ignore"):
            norms[i] = float(update @ update)
            theta = theta - eta * update
        if not (np.all(np.isfinite(theta)) and math.isfinite(norms[i])):
            raise ValueError(f"AND-masked gradient descent diverged at step {i + 1}: reduce learning_rate "
                             f"(η <= 1/L for an L-Lipschitz gradient)")
        thetas[i + 1] = theta
    return MaskedDescent(thetas, norms)
