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
from ._docs import fill_doc

__all__ = ["and_mask", "and_mask_t", "and_masked_gd", "effective_agreement", "keep_set", "masked_gradient",
           "sign_threshold", "xor_mask"]

#: Slack of the integer threshold: ⌈τd − 1e-9⌉ is exact for every τ·d within 1e-9 of an integer.
THRESHOLD_SLACK = 1e-9
#: The offsets of the public code: log(|g| + 1e-10) in ``geom_mean`` and 1/(1e-10 + ρ) in the rescaling.
GEOM_MEAN_OFFSET = 1e-10
RESCALE_OFFSET = 1e-10


def integer_threshold(n_envs: int, agreement_threshold: float) -> int:
    r""":math:`T(d, \tau) = \lceil \tau d - 10^{-9} \rceil` (at least 0) for checked arguments: the one place the
    threshold is computed."""
    return max(0, math.ceil(agreement_threshold * n_envs - THRESHOLD_SLACK))


@fill_doc
def sign_threshold(n_envs: int, agreement_threshold: float) -> int:
    r"""The integer threshold :math:`T(d, \tau) = \lceil \tau d - 10^{-9} \rceil` on the sign sum
    :math:`\lvert \sum_e \operatorname{sign}(g_e) \rvert` (see the theory note, docs/theory/and_mask.md, on why the
    threshold is an integer).

    Parameters
    ----------
    %(n_envs)s
    %(agreement_threshold)s

    Returns
    -------
    int
        :math:`T \in \{0, \ldots, d\}`: a coordinate is kept when :math:`\lvert S_j \rvert \ge T`.

    Examples
    --------
    >>> sign_threshold(25, 0.28)  # τd = 7.000000000000001 in float64: a naive ceil gives 8
    7
    >>> sign_threshold(4, 0.0), sign_threshold(4, 1.0)
    (0, 4)
    """
    return integer_threshold(require_n_envs(n_envs), require_agreement_threshold(agreement_threshold))


@fill_doc
def keep_set(n_envs: int, agreement_threshold: float) -> np.ndarray:
    r"""The keep set :math:`K_\tau(d) = \{k \in \{0, \ldots, d\} : \lvert 2k - d \rvert \ge T(d, \tau)\}` of numbers of
    positive signs.

    Parameters
    ----------
    %(n_envs)s
    %(agreement_threshold)s

    Returns
    -------
    ndarray of int, shape (m,)
        The counts :math:`k` of positive signs (with no zero gradients) for which a coordinate is kept, ascending.

    Examples
    --------
    >>> keep_set(4, 0.5).tolist(), keep_set(4, 0.6).tolist()
    ([0, 1, 3, 4], [0, 4])
    """
    d = require_n_envs(n_envs)
    k = np.arange(d + 1)
    return k[np.abs(2 * k - d) >= integer_threshold(d, require_agreement_threshold(agreement_threshold))]


@fill_doc
def effective_agreement(n_envs: int, agreement_threshold: float) -> int:
    r"""The :math:`t`-form threshold :math:`t_{\mathrm{eff}} = \lceil (d + T(d, \tau))/2 \rceil` equivalent to the
    :math:`\tau`-form without exact zeros (derived in this project; see the theory note, docs/theory/and_mask.md).

    Computed from the integer :math:`T`, never as :math:`\lceil d(1 + \tau)/2 \rceil` in floating point (which is off
    by one at edges such as :math:`d = 9`, :math:`\tau = \lvert 2 \cdot 3/9 - 1 \rvert`).

    Parameters
    ----------
    %(n_envs)s
    %(agreement_threshold)s

    Returns
    -------
    int
        :math:`t_{\mathrm{eff}} \in \{\lceil d/2 \rceil, \ldots, d\}`: keep :math:`j` iff
        :math:`\max(P_j, N_j) \ge t_{\mathrm{eff}}`.

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


@fill_doc
def and_mask(grads: ArrayLike, agreement_threshold: float, *, env_axis: int = 0) -> np.ndarray:
    r"""The AND-mask :math:`m_\tau`: keep :math:`j` iff
    :math:`\lvert \sum_e \operatorname{sign}(g_{ej}) \rvert \ge \lceil \tau d - 10^{-9} \rceil` (Parascandolo et al.
    2021, §2.3).

    Parameters
    ----------
    grads : array_like, shape (n_envs, n_params)
        Row :math:`e` is the gradient :math:`g_e = \nabla L_e(\theta)` of environment :math:`e` (environments along
        axis 0; see ``env_axis``); finite.
    agreement_threshold : float
        Agreement threshold :math:`\tau \in [0, 1]`. :math:`\tau = 0` keeps everything (plain averaging);
        :math:`\tau = 1` keeps :math:`j` only if all :math:`d` entries are non-zero and share one sign.
    %(env_axis)s

    Returns
    -------
    ndarray of bool, shape (n_params,)
        The mask. A zero entry counts for neither sign (:math:`\operatorname{sign}(0) = 0`), so it lowers
        :math:`\lvert S_j \rvert`.

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


@fill_doc
def and_mask_t(grads: ArrayLike, n_agree: int, *, env_axis: int = 0) -> np.ndarray:
    r"""The paper's :math:`t`-form AND-mask: keep :math:`j` iff :math:`\max(P_j, N_j) \ge t` agreeing signs
    (Parascandolo et al. 2021, §2.3).

    Parameters
    ----------
    %(grads)s
    n_agree : int
        The number :math:`t` of agreeing signs required, :math:`0 \le t \le d` (the paper uses
        :math:`t \in \{d/2 + 1, \ldots, d\}`).
    %(env_axis)s

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


@fill_doc
def xor_mask(grads: ArrayLike, agreement_threshold: float, *, env_axis: int = 0) -> np.ndarray:
    r"""The XOR-mask of Parascandolo et al. 2021, Fig 7: keep :math:`j` iff
    :math:`\lvert S_j \rvert \le \lfloor (1 - \tau)d + 10^{-9} \rfloor`.

    It keeps the components on which the environments disagree; :math:`\tau = 0` keeps everything and
    :math:`\tau = 1` only the perfectly split ones (:math:`S_j = 0`). The paper describes the XOR-mask in words only
    ("masks out consistent gradients, preserves those with different signs"); this formula is the project's reading of
    it.

    Parameters
    ----------
    %(grads)s
    agreement_threshold : float
        Threshold :math:`\tau \in [0, 1]`.
    %(env_axis)s

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


@fill_doc
def masked_gradient(grads: ArrayLike, agreement_threshold: float, rescale: bool = False, geom_mean: bool = False,
                    groups: Optional[Union[ArrayLike, Sequence[ArrayLike]]] = None, *, env_axis: int = 0) -> np.ndarray:
    r"""The AND-masked update :math:`u = m_\tau \odot b`, optionally rescaled by the inverse kept fraction
    (Parascandolo et al. 2021, §2.3; the rescaling and the geometric mean come from the authors' public code).

    :math:`b = \bar g = (1/d) \sum_e g_e`, or with ``geom_mean`` the public code's signed geometric mean

    .. math::

        b = \operatorname{sign}(\bar g) \odot \exp\left((1/d) \sum_e \log(\lvert g_e \rvert + 10^{-10})\right).

    With ``rescale`` (the public code's ``scale_grad_inverse_sparsity``), :math:`u \leftarrow u/(10^{-10} + \rho)`
    with :math:`\rho` the kept fraction of each group (the whole vector by default); a group with nothing kept gets
    exactly 0.

    Parameters
    ----------
    %(grads)s
    %(agreement_threshold)s
    rescale : bool, default False
        Inverse-sparsity rescaling (not in the paper; the public code and DomainBed use it).
    geom_mean : bool, default False
        Use the signed geometric mean of the magnitudes instead of the arithmetic mean.
    groups : None, array_like of int with shape (n_params,), or list of index arrays, optional
        Parameter tensors for the rescaling: :math:`\rho` is computed per group (the public code's layer-wise
        rescaling).
    %(env_axis)s

    Returns
    -------
    ndarray, shape (n_params,)
        :math:`\tau = 0` without flags returns :math:`\bar g` exactly (bitwise).

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
    r"""AND-masked gradient descent :math:`\theta \leftarrow \theta - \eta \cdot u(\theta)`, :math:`u` =
    :func:`dynamics.and_mask.masked_gradient` (Parascandolo et al. 2021, §2.3 and Proposition 1).

    Parameters
    ----------
    env_gradients : callable
        ``env_gradients(theta) -> array of shape (n_envs, n_params)``: the per-environment gradients at
        :math:`\theta`, one row per environment (or one column per environment with ``env_axis=1``).
    theta0 : array_like, shape (n_params,)
        Starting point.
    agreement_threshold : float
        Agreement threshold :math:`\tau \in [0, 1]` (:math:`\tau = 0`: plain gradient descent on the pooled loss).
    learning_rate : float
        Step size :math:`\eta > 0` (Proposition 1 needs :math:`\eta \le 1/L` for an :math:`L`-Lipschitz
        :math:`\nabla L`, and rescale=False).
    n_steps : int
        Number of steps :math:`k \ge 0`.
    rescale, geom_mean : bool
        As in :func:`dynamics.and_mask.masked_gradient`.
    env_axis : {0, 1}, default 0
        The axis of the array ``env_gradients`` returns that indexes the environments: 0 for (n_envs, n_params),
        1 for (n_params, n_envs) (−2 and −1 are accepted too). A result whose parameter axis does not have
        len(theta0) entries is refused, naming both layouts.

    Returns
    -------
    MaskedDescent
        ``thetas`` (n_steps + 1, n_params) and ``masked_gradient_sq`` (n_steps,): :math:`\lVert u(\theta^i) \rVert^2`
        at each step. A loss along the run is that loss evaluated on the rows of ``thetas`` (see the example).

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
