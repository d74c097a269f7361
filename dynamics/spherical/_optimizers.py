"""Optimizers on one radially invariant group, a 1-D float64 vector (Roburin (thesis), Eqs 2.16-2.23, 3.12-3.20,
3.48, 3.56-3.81).

* SGD, SGD + L2 and SGD-M(+L2) (Eqs 3.14-3.15, PyTorch's convention with dampening 0);
* Adam(+L2) (3.16-3.18), AdamW (decoupled weight decay, 2.21-2.23, PyTorch's order), AdaGrad (2.16-2.17);
* AdaGradG (Eq 3.48, Theorem 4): one scalar v per group, x kept on the sphere;
* the thesis's variants: Adam w/o (a) = AdamS (3.67-3.69), Adam w/o (ab) = AdamST (S + T on m, inferred from
  Roburin (thesis) §3.5.2; see the theory note), Adam w/o (abc) = AdamSRT (Algorithm 1, 3.79-3.81);
* the reference code's AdamG (scalar v without 1/d, T on m, renormalisation) and SGDMRT (SGD-M with RT momentum).

``step(x, grad)`` takes the gradient of the loss *without* the L2 term and returns new weights. Every step records
``last_generic_form = (a, b, learning_rate, decay)`` with x_{k+1} = decay·(x_k − η a ⊘ b), so that
:func:`dynamics.spherical.spherical_step` reproduces it (Theorem 2). ε defaults to 0 (theory mode) and sits outside the
square root, as in Algorithm 1, PyTorch and the reference code; Adam and AdamW accept ``eps_inside_sqrt=True`` (the
thesis's Eqs 3.16-3.18). Bias corrections use t = k + 1 at step k.

Each optimizer's ``_kernel_spec`` names its compiled twin in ``_kernels`` (``sgd_update``, ``adam_update``, ...), which
:func:`dynamics.spherical.simulate` runs. The numpy steps here do not call those functions: they are the independent
reference the compiled loop is tested against (calling the compiled updates would make the two engines agree by
construction), and they keep what the loop does not need (the state dict with torch's buffer names, the generic form
with its decay, errors that name the coordinate). The bias correction is shared: ``_kernels.one_minus_power``.
"""
import copy
import math
import numpy as np

from dynamics.numerics import as_finite_array, require_betas, require_bool, require_in_range, require_positive
from ._checks import (UNIT_TOLERANCE, require_decay_product, require_learning_rate, require_momentum,
                      require_scheduled_learning_rate, require_vector_like, require_weight_decay,
                      require_weight_vector)
from ._geometry import _transport_RT, _transport_T
from ._kernels import (adagrad_init, adagrad_update, adagradg_init, adagradg_update, adam_update, adamg_update,
                       adams_update, no_init, one_minus_power, sgd_init, sgd_update)
from ._results import GenericForm
from ._docs import fill_doc

__all__ = ["AdaGrad", "AdaGradG", "Adam", "AdamG", "AdamS", "AdamSRT", "AdamST", "AdamW", "SGD", "SGDM", "SGDMRT"]

_EMPTY = np.zeros(0)


def _one_minus_power(beta, t):
    """1 − β^t without cancellation for β near 1 (t > 0 an integer or array of integers): Adam's bias correction,
    ``_kernels.one_minus_power`` (the kernels' definition) on float64, a float for a scalar t."""
    t = np.asarray(t, dtype=np.float64)
    value = one_minus_power(beta, t)
    return value if t.ndim else float(value)


class _Optimizer:
    """Common part: the learning rate (float or schedule), the state dict, argument checks of a step."""

    def __init__(self, learning_rate):
        self.learning_rate = require_learning_rate(learning_rate)
        self.reset()

    def reset(self) -> None:
        """Clear the state (the step counter and the buffers)."""
        self.state = {"step": 0}
        self.last_generic_form = None

    def copy(self):
        """An independent copy, with its state."""
        return copy.deepcopy(self)

    def current_learning_rate(self) -> float:
        r""":math:`\eta_k` for the next step :math:`k` = ``state['step']``."""
        return require_scheduled_learning_rate(self.learning_rate, self.state["step"])

    def _check(self, x, grad):
        x = require_weight_vector("x", x)
        grad = require_vector_like("grad", grad, "x", x)
        shape = self.state.get("shape")
        if shape is not None and shape != x.shape:
            raise ValueError(f"x has shape {x.shape} but the optimizer's state was built for {shape}; call reset()")
        self.state["shape"] = x.shape
        return x, grad

    def step(self, x, grad) -> np.ndarray:
        r"""One step from :math:`x = x_k` with :math:`\mathrm{grad} = \nabla L(x_k)` (without the L2 term); returns
        :math:`x_{k+1}` (a new array)."""
        x, grad = self._check(x, grad)
        eta = self.current_learning_rate()
        x_next = self._update(x, grad, eta)
        norm = float(np.linalg.norm(x_next))
        if not (math.isfinite(norm) and norm > 0.0):
            raise ValueError(f"the step at k = {self.state['step']} leaves float64 or reaches x = 0 (learning_rate "
                             f"{eta:g}); reduce learning_rate")
        self.state["step"] += 1
        return x_next

    def _kernel_spec(self):
        """``(update, init, hyper)`` for :func:`dynamics.spherical.simulate`: the optimizer's update and state
        initialisation in ``_kernels`` (the compiled twins of ``_update`` and ``reset``) and the tuple of its
        hyper-parameters that they unpack."""
        raise NotImplementedError

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in self._hyper().items())
        return f"{type(self).__name__}({fields})"


def _buffer(state, name, shape):
    if name not in state:
        state[name] = np.zeros(shape)
    return state[name]


@fill_doc
class SGD(_Optimizer):
    r"""SGD, SGD + L2 and SGD-M(+L2): :math:`m = \gamma m_\mathrm{prev} + \nabla L(x) + \lambda x`,
    :math:`x_\mathrm{next} = x - \eta_k m` (Eqs 3.14-3.15).

    Generic form :math:`a = m`, :math:`b = 1`. The heavy-ball convention is PyTorch's with dampening 0.

    Parameters
    ----------
    learning_rate : float or callable
        :math:`\eta > 0`, or a schedule :math:`k \mapsto \eta_k` (:math:`k` = completed steps).
    %(momentum)s
    weight_decay : float
        :math:`\lambda \ge 0` (coupled L2: the gradient gains :math:`\lambda x`).
    initial_buffer : array_like, optional
        :math:`m_{-1}` (default 0): the radial buffer of the exponential-LR equivalence with momentum
        (:func:`dynamics.spherical.li_arora_equivalent`).

    Examples
    --------
    >>> opt = SGD(0.1, momentum=0.9, weight_decay=0.01)
    >>> opt.step(np.array([1.0, 0.0]), np.array([0.0, 1.0])).tolist()
    [0.999, -0.1]
    >>> opt.state["momentum_buffer"].tolist()
    [0.01, 1.0]
    """

    def __init__(self, learning_rate, momentum=0.0, weight_decay=0.0, initial_buffer=None):
        self.momentum = require_momentum(momentum)
        self.weight_decay = require_weight_decay(weight_decay)
        self.initial_buffer = None if initial_buffer is None else as_finite_array("initial_buffer", initial_buffer,
                                                                                  ndim=1)
        super().__init__(learning_rate)

    def _hyper(self):
        return {"learning_rate": self.learning_rate, "momentum": self.momentum, "weight_decay": self.weight_decay}

    def reset(self):
        super().reset()
        if getattr(self, "initial_buffer", None) is not None:
            self.state["momentum_buffer"] = self.initial_buffer.copy()

    def _update(self, x, grad, eta):
        g = grad + self.weight_decay * x
        previous = self.state.get("momentum_buffer")
        if previous is not None and previous.shape != x.shape:
            raise ValueError(f"initial_buffer must have the shape of x, {x.shape}, got {previous.shape}")
        m = g if previous is None else self.momentum * previous + g
        self.state["momentum_buffer"] = m
        self.last_generic_form = GenericForm(m.copy(), 1.0, eta, 1.0)
        return x - eta * m

    def _kernel_spec(self):
        buffer = _EMPTY if self.initial_buffer is None else self.initial_buffer
        return sgd_update, sgd_init, (float(self.momentum), float(self.weight_decay), False, buffer)


SGDM = SGD


@fill_doc
class SGDMRT(SGD):
    r"""The reference code's SGD-M with RT momentum (not in the thesis): after each step :math:`m \leftarrow RT(m)`
    (Eq 3.76).

    Parameters
    ----------
    %(learning_rate_schedule)s
    %(momentum)s
    weight_decay : float
        :math:`\lambda \ge 0` (coupled).

    Examples
    --------
    >>> opt = SGDMRT(0.1, momentum=0.9)
    >>> x = opt.step(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    >>> round(float(opt.state["momentum_buffer"] @ x), 15)   # transported to the tangent space at x_{k+1}
    0.0
    """

    def __init__(self, learning_rate, momentum=0.0, weight_decay=0.0):
        super().__init__(learning_rate, momentum, weight_decay)

    def _update(self, x, grad, eta):
        x_next = super()._update(x, grad, eta)
        self.state["momentum_buffer"] = _transport_RT(self.state["momentum_buffer"], x, x_next)
        return x_next

    def _kernel_spec(self):
        return sgd_update, sgd_init, (float(self.momentum), float(self.weight_decay), True, _EMPTY)


class _AdamBase(_Optimizer):
    def __init__(self, learning_rate, betas, eps, weight_decay):
        self.betas = require_betas(betas)
        self.eps = require_positive("eps", eps, allow_zero=True)
        self.weight_decay = require_weight_decay(weight_decay)
        super().__init__(learning_rate)

    def _hyper(self):
        return {"learning_rate": self.learning_rate, "betas": self.betas, "eps": self.eps,
                "weight_decay": self.weight_decay}

    def _corrections(self):
        t = self.state["step"] + 1
        beta1, beta2 = self.betas
        return _one_minus_power(beta1, t), _one_minus_power(beta2, t)


def _zero_second_moment(where):
    raise ValueError(f"eps: with eps = 0 the second moment is 0 {where}, so the step divides 0 by 0; use eps > 0")


@fill_doc
class Adam(_AdamBase):
    r"""Adam(+L2): :math:`m = \beta_1 m + (1 - \beta_1) \tilde g`, :math:`v = \beta_2 v + (1 - \beta_2) \tilde g^2`,
    :math:`x_\mathrm{next} = x - \eta_k \hat m \oslash (\sqrt{\hat v} + \varepsilon)` (Eqs 3.16-3.18).

    :math:`\tilde g = \nabla L(x) + \lambda x`; :math:`\hat m = m / (1 - \beta_1^t)`,
    :math:`\hat v = v / (1 - \beta_2^t)`, :math:`t = k + 1`. Generic form :math:`a = m / (1 - \beta_1)`,
    :math:`b = ((1 - \beta_1^t) / (1 - \beta_1)) (\sqrt{\hat v} + \varepsilon)`.

    Parameters
    ----------
    %(learning_rate_schedule)s
    %(betas)s
    eps : float
        :math:`\varepsilon \ge 0` (0: theory mode; then a coordinate whose second moment is 0 raises ValueError).
    %(weight_decay_l2)s
    eps_inside_sqrt : bool
        Use :math:`\sqrt{\hat v + \varepsilon}` (the thesis's equations) instead of :math:`\sqrt{\hat v} + \varepsilon`.

    Examples
    --------
    >>> opt = Adam(0.01)
    >>> opt.step(np.array([1.0, 1.0]), np.array([0.3, -2.0])).tolist()   # the first step is −η sign(g)
    [0.99, 1.01]
    """

    _decoupled = False

    def __init__(self, learning_rate, betas=(0.9, 0.999), eps=0.0, weight_decay=0.0, eps_inside_sqrt=False):
        self.eps_inside_sqrt = require_bool("eps_inside_sqrt", eps_inside_sqrt)
        super().__init__(learning_rate, betas, eps, weight_decay)

    def _hyper(self):
        return {**super()._hyper(), "eps_inside_sqrt": self.eps_inside_sqrt}

    def _update(self, x, grad, eta):
        beta1, beta2 = self.betas
        g = grad if self._decoupled else grad + self.weight_decay * x
        m = beta1 * _buffer(self.state, "exp_avg", x.shape) + (1.0 - beta1) * g
        v = beta2 * _buffer(self.state, "exp_avg_sq", x.shape) + (1.0 - beta2) * g * g
        self.state["exp_avg"], self.state["exp_avg_sq"] = m, v
        c1, c2 = self._corrections()
        root = np.sqrt(v / c2 + self.eps) if self.eps_inside_sqrt else np.sqrt(v / c2) + self.eps
        if not np.all(root > 0):
            _zero_second_moment(f"in coordinate {int(np.argmin(root))}")
        b = (c1 / (1.0 - beta1)) * root
        decay = 1.0 - eta * self.weight_decay if self._decoupled else 1.0
        if self._decoupled:
            require_decay_product(eta, self.weight_decay, "AdamW")
        self.last_generic_form = GenericForm(m / (1.0 - beta1), b, eta / decay, decay)
        step = (m / c1) / root
        return decay * x - eta * step if self._decoupled else x - eta * step

    def _kernel_spec(self):
        beta1, beta2 = self.betas
        return adam_update, no_init, (float(beta1), float(beta2), float(self.eps), float(self.weight_decay),
                                      bool(self.eps_inside_sqrt), bool(self._decoupled))


@fill_doc
class AdamW(Adam):
    r"""AdamW: :math:`x_\mathrm{next} = (1 - \eta_k\lambda) x - \eta_k \hat m \oslash (\sqrt{\hat v} + \varepsilon)`,
    moments from :math:`\nabla L(x)` alone (Eqs 2.21-2.23).

    Decoupled weight decay in PyTorch's order (the decay multiplies :math:`x` before the Adam step). Generic form:
    :math:`a` and :math:`b` as in :class:`dynamics.spherical.Adam`, learning rate :math:`\eta / (1 - \eta\lambda)`
    and decay :math:`1 - \eta\lambda` (derived in this project).

    Parameters
    ----------
    learning_rate : float or callable
        :math:`\eta > 0` or a schedule, with :math:`\eta_k\lambda < 1`.
    %(betas)s
    %(eps)s
    weight_decay : float
        :math:`\lambda \ge 0`, the decoupled decay coefficient (the same name as torch's AdamW).
    eps_inside_sqrt : bool
        Use :math:`\sqrt{\hat v + \varepsilon}`.

    Examples
    --------
    >>> AdamW(0.01, weight_decay=0.1).step(np.array([1.0, 1.0]), np.array([0.3, -2.0])).tolist()
    [0.989, 1.009]
    """

    _decoupled = True


@fill_doc
class AdaGrad(_Optimizer):
    r"""Element-wise AdaGrad: :math:`v = v + \tilde g^2`,
    :math:`x_\mathrm{next} = x - \eta_k \tilde g \oslash (\sqrt{v} + \varepsilon)` (Eqs 2.16-2.17;
    :math:`\varepsilon` outside).

    Parameters
    ----------
    %(learning_rate_schedule)s
    %(eps)s
    weight_decay : float
        :math:`\lambda \ge 0` (coupled).
    initial_accumulator : float
        :math:`v_{-1} \ge 0` (PyTorch's ``initial_accumulator_value``).

    Examples
    --------
    >>> AdaGrad(0.1).step(np.array([1.0, 1.0]), np.array([0.5, -2.0])).tolist()
    [0.9, 1.1]
    """

    def __init__(self, learning_rate, eps=0.0, weight_decay=0.0, initial_accumulator=0.0):
        self.eps = require_positive("eps", eps, allow_zero=True)
        self.weight_decay = require_weight_decay(weight_decay)
        self.initial_accumulator = require_positive("initial_accumulator", initial_accumulator, allow_zero=True)
        super().__init__(learning_rate)

    def _hyper(self):
        return {"learning_rate": self.learning_rate, "eps": self.eps, "weight_decay": self.weight_decay,
                "initial_accumulator": self.initial_accumulator}

    def _update(self, x, grad, eta):
        g = grad + self.weight_decay * x
        if "sum" not in self.state:
            self.state["sum"] = np.full(x.shape, self.initial_accumulator)
        v = self.state["sum"] + g * g
        self.state["sum"] = v
        root = np.sqrt(v) + self.eps
        if not np.all(root > 0):
            _zero_second_moment(f"in coordinate {int(np.argmin(root))}")
        self.last_generic_form = GenericForm(g.copy(), root, eta, 1.0)
        return x - eta * g / root

    def _kernel_spec(self):
        return adagrad_update, adagrad_init, (float(self.eps), float(self.weight_decay),
                                              float(self.initial_accumulator))


@fill_doc
class AdaGradG(_Optimizer):
    r"""AdaGradG (Roburin (thesis), Eq 3.48): :math:`\hat x = x - \eta_k \nabla L(x) / \sqrt{v_k}`,
    :math:`x_\mathrm{next} = \hat x / \lVert \hat x \rVert`, :math:`v_{k+1} = \beta v_k + \lVert \nabla L(x) \rVert^2`.

    Its effective learning rate is :math:`\eta_k / \sqrt{v_k}` (Eq 3.48); with the parameters of
    :func:`dynamics.spherical.adagradg_equivalent_params` it matches SGD + L2 at order 2 (Theorem 4). No bias
    correction, no :math:`\varepsilon`, no weight decay. The weights must stay on the unit sphere: the caller
    normalises :math:`x_0 = u_0`.

    Parameters
    ----------
    %(learning_rate_schedule)s
    beta : float
        :math:`\beta \in [0, 1]` (:math:`\beta = 1`: no decay, the :math:`\lambda = 0` case of Theorem 4).
    v0 : float
        The initial accumulator :math:`v_0 > 0`.

    Examples
    --------
    >>> opt = AdaGradG(0.5, beta=0.9, v0=4.0)
    >>> opt.step(np.array([1.0, 0.0]), np.array([0.0, 2.0])).round(6).tolist(), opt.state["v"]
    ([0.894427, -0.447214], 7.6)
    """

    def __init__(self, learning_rate, beta, v0):
        self.beta = require_in_range("beta", beta, 0.0, 1.0)
        self.v0 = require_positive("v0", v0)
        super().__init__(learning_rate)

    def _hyper(self):
        return {"learning_rate": self.learning_rate, "beta": self.beta, "v0": self.v0}

    def reset(self):
        super().reset()
        self.state["v"] = self.v0

    def _update(self, x, grad, eta):
        norm = float(np.linalg.norm(x))
        if abs(norm - 1.0) > UNIT_TOLERANCE:
            raise ValueError(f"x must be a unit vector for AdaGradG (| ||x|| - 1 | <= {UNIT_TOLERANCE:g}; "
                             f"normalise x0), got norm {norm:.17g}")
        v = self.state["v"]
        root = math.sqrt(v)
        x_hat = x - (eta / root) * grad
        scale = 1.0 / float(np.linalg.norm(x_hat))
        self.last_generic_form = GenericForm(grad.copy(), root, eta, scale)
        self.state["v"] = self.beta * v + float(grad @ grad)
        return x_hat * scale

    def _kernel_spec(self):
        return adagradg_update, adagradg_init, (float(self.beta), float(self.v0))


@fill_doc
class AdamS(_AdamBase):
    r"""Adam w/o (a) (Eqs 3.67-3.69): a scalar second moment
    :math:`v = \beta_2 v + (1 - \beta_2) \lVert \tilde g \rVert^2 / d` per group.

    :math:`x_\mathrm{next} = x - \eta_k \hat m / (\sqrt{\hat v} + \varepsilon)`: the Hadamard division becomes a
    scalar one (standardisation S), so with :math:`\beta_1 = 0` the direction :math:`c_k = \nabla L(u_k)` is tangent
    (3.58). The reference code stores :math:`\sum_j g_j^2` and multiplies the step by :math:`\sqrt{d}` instead (the
    same update when :math:`\varepsilon_\mathrm{code} = \sqrt{d} \cdot \varepsilon`).

    Parameters
    ----------
    %(learning_rate_schedule)s
    %(betas)s
    eps : float
        :math:`\varepsilon \ge 0` (outside the square root).
    %(weight_decay_l2)s

    Examples
    --------
    >>> opt = AdamS(0.1)
    >>> opt.step(np.array([1.0, 1.0]), np.array([1.0, -1.0])).tolist()
    [0.9, 1.1]
    """

    _variant = 0  # 0: S, 1: S + T, 2: S + RT

    def __init__(self, learning_rate, betas=(0.9, 0.999), eps=0.0, weight_decay=0.0):
        super().__init__(learning_rate, betas, eps, weight_decay)

    def _update(self, x, grad, eta):
        beta1, beta2 = self.betas
        g = grad + self.weight_decay * x
        m = beta1 * _buffer(self.state, "exp_avg", x.shape) + (1.0 - beta1) * g
        v = beta2 * self.state.get("exp_avg_sq", 0.0) + (1.0 - beta2) * float(g @ g) / g.size
        c1, c2 = self._corrections()
        root = math.sqrt(v / c2) + self.eps
        if not root > 0:
            _zero_second_moment("(the gradient and the weight decay term vanish)")
        self.last_generic_form = GenericForm(m / (1.0 - beta1), (c1 / (1.0 - beta1)) * root, eta, 1.0)
        x_next = x - (eta / (c1 * root)) * m
        if self._variant == 1:
            m = _transport_T(m, x, x_next)
        elif self._variant == 2:
            m = _transport_RT(m, x, x_next, self.eps)
            v = v * float(x @ x) / (float(x_next @ x_next) + self.eps)
        self.state["exp_avg"], self.state["exp_avg_sq"] = m, v
        return x_next

    def _kernel_spec(self):
        beta1, beta2 = self.betas
        return adams_update, no_init, (float(beta1), float(beta2), float(self.eps), float(self.weight_decay),
                                       int(self._variant))


@fill_doc
class AdamST(AdamS):
    r"""Adam w/o (ab): AdamS, then
    :math:`m \leftarrow T(m) = \langle u_k, u_{k+1} \rangle m - \langle m, u_{k+1} \rangle u_k` after each step
    (Eq 3.70).

    The thesis gives no explicit algorithm for this variant; the rule (S + T on :math:`m`, :math:`v` not rescaled)
    is the project's reading of Roburin (thesis) §3.5.2 (see the theory note, docs/theory/spherical.md).
    ``state['exp_avg']`` holds the transported buffer.

    Parameters
    ----------
    %(learning_rate_schedule)s
    %(betas)s
    %(eps)s
    %(weight_decay_l2)s

    Examples
    --------
    >>> opt = AdamST(0.1)
    >>> x = opt.step(np.array([1.0, 1.0]), np.array([1.0, -1.0]))
    >>> round(float(opt.state["exp_avg"] @ x), 15)
    0.0
    """

    _variant = 1


@fill_doc
class AdamSRT(AdamS):
    r"""Adam w/o (abc) (Algorithm 1, Eqs 3.79-3.81): AdamS, then :math:`m \leftarrow RT(m)` and
    :math:`v \leftarrow v \cdot \lVert x_k \rVert^2 / \lVert x_{k+1} \rVert^2`.

    :math:`RT` (Eq 3.76) transports and rescales the first moment; :math:`R` rescales the second, so the effective
    learning rate is :math:`\eta / (r_k \nu_k^R - \eta\lambda r_k^2)` with :math:`\nu^R` of
    :func:`dynamics.spherical.adam_nu_R`. With :math:`\varepsilon > 0` both denominators gain
    :math:`+\varepsilon`, as in the reference code.

    Parameters
    ----------
    %(learning_rate_schedule)s
    %(betas)s
    %(eps)s
    %(weight_decay_l2)s

    Examples
    --------
    >>> opt = AdamSRT(0.1, betas=(0.0, 0.999))
    >>> x = np.array([1.0, 0.0])
    >>> for _ in range(3):
    ...     x = opt.step(x, np.array([0.0, 1.0]) - (x[1] / (x @ x)) * x)
    >>> round(float(x @ x), 4)   # radius law of Adam w/o (abc): r_k² ≈ r_0² + η²dk = 1.06
    1.0595
    """

    _variant = 2


@fill_doc
class AdamG(_AdamBase):
    r"""The reference code's AdamG (github.com/ymontmarin/adamsrt): scalar
    :math:`v = \beta_2 v + (1 - \beta_2) \sum_j g_j^2` (no :math:`1/d`), step
    :math:`\hat x = x - \eta_k \hat m / (\sqrt{\hat v} + \varepsilon)`, :math:`m \leftarrow T(m)` with
    :math:`(x, \hat x)`, then :math:`x_\mathrm{next} = \hat x / (\lVert \hat x \rVert + \varepsilon)`.

    Weight decay is ignored on the sphere (as in the code). Labelled as the code's variant: the thesis
    describes AdamG as Adam with a projection, and Cho & Lee's differs again.

    Parameters
    ----------
    %(learning_rate_schedule)s
    %(betas)s
    %(eps)s

    Examples
    --------
    >>> x = AdamG(0.1).step(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    >>> round(float(np.linalg.norm(x)), 12)
    1.0
    """

    def __init__(self, learning_rate, betas=(0.9, 0.999), eps=0.0):
        super().__init__(learning_rate, betas, eps, 0.0)

    def _hyper(self):
        return {"learning_rate": self.learning_rate, "betas": self.betas, "eps": self.eps}

    def _update(self, x, grad, eta):
        beta1, beta2 = self.betas
        m = beta1 * _buffer(self.state, "exp_avg", x.shape) + (1.0 - beta1) * grad
        v = beta2 * self.state.get("exp_avg_sq", 0.0) + (1.0 - beta2) * float(grad @ grad)
        c1, c2 = self._corrections()
        root = math.sqrt(v / c2) + self.eps
        if not root > 0:
            _zero_second_moment("(the gradient vanishes)")
        x_hat = x - (eta / (c1 * root)) * m
        norm_hat = float(np.linalg.norm(x_hat))
        scale = 1.0 / (norm_hat + self.eps)
        self.last_generic_form = GenericForm(m / (1.0 - beta1), (c1 / (1.0 - beta1)) * root, eta, scale)
        transported = (float(x_hat @ x) * m - float(x_hat @ m) * x) / (float(np.linalg.norm(x)) * norm_hat + self.eps)
        self.state["exp_avg"], self.state["exp_avg_sq"] = transported, v
        return x_hat * scale

    def _kernel_spec(self):
        beta1, beta2 = self.betas
        return adamg_update, no_init, (float(beta1), float(beta2), float(self.eps))
