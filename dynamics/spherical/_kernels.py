"""Every numba kernel of :mod:`dynamics.spherical`.

* ``loss_grad`` and ``simulate_kernel``: the synthetic losses and the optimizers in one compiled loop.
  They mirror the numpy reference implementations (``_losses``, ``_optimizers``) operation for operation, and
  record per step the radius, the Theorem 2 effective learning rate A/(1 − A⟨c,u⟩) of the step's generic form,
  the angle between u_k and u_{k+1} (atan2 form), the gradient norm on the sphere r‖∇L(x)‖ and the loss.
  Status codes: 0 done, 1 (H1) fails, 2 the weights leave float64 or reach 0, 3 a zero second moment with ε = 0,
  4 a BatchNorm batch with zero variance, 5 a draw parallel to x under a controlled gradient norm.
* The optimizers' updates, one ``@njit`` function each that unpacks its hyper-parameters by name from a tuple (and an
  ``init`` where the state does not start at 0): ``sgd_update`` (SGD, SGD-M(+L2), SGDMRT; Eqs 3.14-3.15, 3.76),
  ``adam_update`` (Adam(+L2), AdamW; Eqs 3.16-3.18, 2.21-2.23), ``adagrad_update`` (Eqs 2.16-2.17),
  ``adagradg_update`` (Eq 3.48), ``adams_update`` (AdamS, AdamST, AdamSRT; Eqs 3.67-3.70, 3.79-3.81) and
  ``adamg_update`` (the reference code's AdamG). ``simulate_kernel(update, init)`` returns the loop specialised for
  one of them (the update is a compile-time constant of the loop, as the right-hand side of
  ``dynamics.numerics._batch_dopri5``), behind an entry point cached on disk (``simulate_sgd``, ...).
  ``one_minus_power``, Adam's bias correction 1 − β^t, is the one definition the numpy side calls too.
* ``spherical_step_kernel``: the Theorem 2 decomposition of one step, row by row (one radially invariant group per
  row), behind :func:`~dynamics.spherical.spherical_step` and :func:`~dynamics.spherical.spherical_step_batch`.
* ``sgd_radius_kernel`` and ``sgd_order2_kernel``: the exact and the order-2 radius recursions of SGD (+ L2)
  behind :func:`~dynamics.spherical.sgd_radius_sequence` and :func:`~dynamics.spherical.sgd_order2_radius4`.
"""
import math
import threading

import numba as nb
import numpy as np
from numba.core.registry import CPUDispatcher

from dynamics.numerics.random import fill_normals
from dynamics.numerics.special import sigmoid_kernel

RAYLEIGH, RANDOM_LINEAR, BN_PROBE, WN_LOGISTIC = 0, 1, 2, 3


@nb.njit(cache=True)
def _dot(a, b):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * b[i]
    return total


@nb.njit(cache=True)
def _softplus(z):
    """log(1 + e^z) without overflow."""
    return max(z, 0.0) + math.log1p(math.exp(-abs(z)))


@nb.njit(cache=True)
def loss_grad(kind, mat, table, vec, scal, key, u, k, g, work):
    """Fill g with ∇L(u) at the unit vector u for draw k; return (loss, status)."""
    d = u.shape[0]
    if kind == RAYLEIGH:
        Hu = np.dot(mat, u)  # BLAS, as in the numpy reference
        q = 0.0
        for i in range(d):
            g[i] = Hu[i]
            q += Hu[i] * u[i]
        value = 0.5 * q
        for i in range(d):
            g[i] -= q * u[i]
        if scal[0] > 0.0:
            fill_normals(key, k, work)
            p = 0.0
            for i in range(d):
                work[i] *= scal[0]
                p += work[i] * u[i]
            value += p
            for i in range(d):
                g[i] += work[i] - p * u[i]
        return value, 0
    if kind == RANDOM_LINEAR:
        if table.shape[0] > 0:
            row = k % table.shape[0]
            for i in range(d):
                work[i] = table[row, i]
        else:
            fill_normals(key, k, work)
        p = _dot(work, u)
        for i in range(d):
            g[i] = work[i] - p * u[i]
        if vec.shape[0] > 0:
            norm = math.sqrt(_dot(g, g))
            if norm == 0.0:
                return p, 5
            scale = vec[k % vec.shape[0]] / norm
            for i in range(d):
                g[i] *= scale
        return p, 0
    if kind == BN_PROBE:
        B = int(scal[0])
        readout, bias = scal[1], scal[2]
        start = (k % (table.shape[0] // B)) * B
        batch = table[start:start + B]
        z = np.dot(batch, u)
        mean = 0.0
        for b in range(B):
            mean += z[b]
        mean /= B
        var = 0.0
        for b in range(B):
            z[b] -= mean
            var += z[b] * z[b]
        sigma = math.sqrt(var / B)
        if sigma == 0.0:
            return 0.0, 4
        value = 0.0
        gz = np.empty(B)
        gmean = 0.0
        gzmean = 0.0
        for b in range(B):
            z[b] /= sigma
            t = vec[start + b]
            margin = t * (readout * z[b] + bias)
            value += _softplus(-margin)
            gz[b] = -t * sigmoid_kernel(-margin) * readout / B
            gmean += gz[b]
            gzmean += gz[b] * z[b]
        gmean /= B
        gzmean /= B
        for b in range(B):
            gz[b] = (gz[b] - gmean - z[b] * gzmean) / sigma
        grad = np.dot(gz, batch)
        for i in range(d):
            g[i] = grad[i]
        return value / B, 0
    # WN_LOGISTIC
    n = table.shape[0]
    gamma = scal[0]
    projections = np.dot(table, u)
    value = 0.0
    weights = np.empty(n)
    for s in range(n):
        margin = vec[s] * gamma * projections[s]
        value += _softplus(-margin)
        weights[s] = vec[s] * sigmoid_kernel(-margin)
    grad = np.dot(weights, table)
    scale = -gamma / n
    for i in range(d):
        g[i] = scale * grad[i]
    p = _dot(g, u)
    for i in range(d):
        g[i] -= p * u[i]
    return value / n, 0


def one_minus_power(beta, t):
    """1 − β^t without cancellation for β near 1: Adam's bias correction (t = k + 1 > 0, a float or an array).

    The one definition of both backends: the kernels compile it (``_one_minus_power``, where ``np.expm1`` of a float
    is ``math.expm1``) and the numpy optimizers and closed forms call it as it stands (numpy's ``expm1``).

    Examples
    --------
    >>> round(float(one_minus_power(0.9, 2.0)), 15), float(one_minus_power(0.0, 3.0))
    (0.19, 1.0)
    >>> float(one_minus_power(1.0 - 2.0 ** -40, 1.0)) == 2.0 ** -40   # exact where 1 − β^t would cancel
    True
    """
    if beta == 0.0:
        return 1.0 + 0.0 * t
    return -np.expm1(t * math.log(beta))


_one_minus_power = nb.njit(cache=True)(one_minus_power)


# ------------------------------------------------------------------ optimizer updates (the contract of simulate_kernel)
# Each ``update(t, eta, r, x, g, m, v, s, a, b, x_next, hyper)`` and ``init(m, v, s, hyper)`` unpacks ``hyper``, the
# tuple the optimizer's ``_kernel_spec`` builds, into named hyper-parameters on its first line. ``inline="always"``:
# numba inlines them into the loop of ``_make_loop`` (one compiled function, no call per step, as when the loop held
# every optimizer); from Python they are ordinary compiled functions.
@nb.njit(cache=True, inline="always")
def no_init(m, v, s, hyper):
    """The state of an optimizer that starts from m = 0, v = 0 and s = 0 (Adam and its variants)."""


@nb.njit(cache=True, inline="always")
def sgd_init(m, v, s, hyper):
    """SGD's m_{−1}: ``initial_buffer`` when it has the length of m (an empty array: m_{−1} = 0); ``hyper`` as
    ``sgd_update``'s."""
    momentum, weight_decay, rt, initial_buffer = hyper
    if initial_buffer.shape[0] == m.shape[0]:
        for i in range(m.shape[0]):
            m[i] = initial_buffer[i]


@nb.njit(cache=True, inline="always")
def sgd_update(t, eta, r, x, g, m, v, s, a, b, x_next, hyper):
    """SGD, SGD + L2, SGD-M(+L2) (Eqs 3.14-3.15): m = γm + ∇L(x) + λx, x_next = x − ηm; a = m, b = 1.

    ``hyper = (momentum, weight_decay, rt, initial_buffer)``: γ, λ, whether m ← RT(m) after the step (the reference
    code's SGDMRT, Eq 3.76) and m_{−1} (for ``sgd_init``).
    """
    momentum, weight_decay, rt, initial_buffer = hyper
    d = x.shape[0]
    for i in range(d):
        m[i] = momentum * m[i] + g[i] + weight_decay * x[i]
        a[i] = m[i]
    for i in range(d):
        x_next[i] = x[i] - eta * m[i]
    if rt:
        nn = _dot(x_next, x_next)
        xx = _dot(x_next, x)
        mx = _dot(x_next, m)
        for i in range(d):
            m[i] = (xx * m[i] - mx * x[i]) / nn
    return 0, eta, 1.0


@nb.njit(cache=True, inline="always")
def adam_update(t, eta, r, x, g, m, v, s, a, b, x_next, hyper):
    """Adam(+L2) (Eqs 3.16-3.18) and, with ``decoupled``, AdamW (Eqs 2.21-2.23, PyTorch's order).

    g̃ = ∇L(x) (+ λx unless decoupled), m = β₁m + (1−β₁)g̃, v = β₂v + (1−β₂)g̃², x_next = decay·x − η m̂ ⊘ root with
    root = sqrt(v̂) + ε (sqrt(v̂ + ε) with ``eps_inside_sqrt``) and decay = 1 − ηλ (decoupled) or 1.
    Generic form a = m/(1−β₁), b = ((1−β₁^t)/(1−β₁))·root, learning rate η/decay.
    ``hyper = (beta1, beta2, eps, weight_decay, eps_inside_sqrt, decoupled)``.
    """
    beta1, beta2, eps, weight_decay, eps_inside_sqrt, decoupled = hyper
    d = x.shape[0]
    c1 = _one_minus_power(beta1, t)
    c2 = _one_minus_power(beta2, t)
    decay = 1.0
    if decoupled:
        decay = 1.0 - eta * weight_decay
        if not decay > 0.0:
            return 1, eta, 0.0
    for i in range(d):
        gi = g[i] if decoupled else g[i] + weight_decay * x[i]
        m[i] = beta1 * m[i] + (1.0 - beta1) * gi
        v[i] = beta2 * v[i] + (1.0 - beta2) * gi * gi
        root = math.sqrt(v[i] / c2 + eps) if eps_inside_sqrt else math.sqrt(v[i] / c2) + eps
        if not root > 0.0:
            return 3, eta, 0.0
        a[i] = m[i] / (1.0 - beta1)
        b[i] = (c1 / (1.0 - beta1)) * root
        x_next[i] = decay * x[i] - eta * (m[i] / c1) / root
    return 0, eta / decay, 0.0


@nb.njit(cache=True, inline="always")
def adagrad_init(m, v, s, hyper):
    """AdaGrad's v_{−1} = ``initial_accumulator`` in every coordinate; ``hyper`` as ``adagrad_update``'s."""
    eps, weight_decay, initial_accumulator = hyper
    for i in range(v.shape[0]):
        v[i] = initial_accumulator


@nb.njit(cache=True, inline="always")
def adagrad_update(t, eta, r, x, g, m, v, s, a, b, x_next, hyper):
    """Element-wise AdaGrad (Eqs 2.16-2.17; ε outside): v = v + g̃², x_next = x − η g̃ ⊘ (sqrt(v) + ε), g̃ = ∇L(x) + λx;
    a = g̃, b = sqrt(v) + ε. ``hyper = (eps, weight_decay, initial_accumulator)``."""
    eps, weight_decay, initial_accumulator = hyper
    d = x.shape[0]
    for i in range(d):
        gi = g[i] + weight_decay * x[i]
        v[i] += gi * gi
        root = math.sqrt(v[i]) + eps
        if not root > 0.0:
            return 3, eta, 0.0
        a[i] = gi
        b[i] = root
        x_next[i] = x[i] - eta * gi / root
    return 0, eta, 0.0


@nb.njit(cache=True, inline="always")
def adagradg_init(m, v, s, hyper):
    """AdaGradG's scalar accumulator s = v₀; ``hyper`` as ``adagradg_update``'s."""
    beta, v0 = hyper
    s[0] = v0


@nb.njit(cache=True, inline="always")
def adagradg_update(t, eta, r, x, g, m, v, s, a, b, x_next, hyper):
    """AdaGradG (Eq 3.48, Theorem 4): x̂ = x − η∇L(x)/sqrt(s), x_next = x̂/‖x̂‖, s ← βs + ‖∇L(x)‖²;
    a = ∇L(x), b = sqrt(s). ``hyper = (beta, v0)``."""
    beta, v0 = hyper
    d = x.shape[0]
    root = math.sqrt(s[0])
    step = eta / root
    nn = 0.0  # ‖x̂‖² and ‖∇L(x)‖², summed in the order of _dot
    gg = 0.0
    for i in range(d):
        a[i] = g[i]
        x_next[i] = x[i] - step * g[i]
        nn += x_next[i] * x_next[i]
        gg += g[i] * g[i]
    decay = 1.0 / math.sqrt(nn)
    for i in range(d):
        x_next[i] *= decay
    s[0] = beta * s[0] + gg
    return 0, eta, root


@nb.njit(cache=True, inline="always")
def adams_update(t, eta, r, x, g, m, v, s, a, b, x_next, hyper):
    """Adam w/o (a) = AdamS (Eqs 3.67-3.69): the scalar s = β₂s + (1−β₂)‖g̃‖²/d, x_next = x − η m̂/(sqrt(ŝ) + ε).

    ``variant`` 1: AdamST, then m ← T(m) (Eq 3.70); 2: AdamSRT (Algorithm 1, Eqs 3.79-3.81), then m ← RT(m) and
    s ← s·‖x‖²/‖x_next‖² (both denominators + ε). Generic form a = m/(1−β₁), b = ((1−β₁^t)/(1−β₁))(sqrt(ŝ) + ε)·1.
    ``hyper = (beta1, beta2, eps, weight_decay, variant)``, variant 0 for AdamS.
    """
    beta1, beta2, eps, weight_decay, variant = hyper
    d = x.shape[0]
    c1 = _one_minus_power(beta1, t)
    c2 = _one_minus_power(beta2, t)
    sq = 0.0
    for i in range(d):
        gi = g[i] + weight_decay * x[i]
        m[i] = beta1 * m[i] + (1.0 - beta1) * gi
        sq += gi * gi
    s[0] = beta2 * s[0] + (1.0 - beta2) * sq / d
    root = math.sqrt(s[0] / c2) + eps
    if not root > 0.0:
        return 3, eta, 0.0
    scalar_b = (c1 / (1.0 - beta1)) * root
    for i in range(d):
        a[i] = m[i] / (1.0 - beta1)
        x_next[i] = x[i] - (eta / (c1 * root)) * m[i]
    if variant == 1:  # T
        rn = math.sqrt(_dot(x_next, x_next))
        cosine = _dot(x, x_next) / (r * rn)
        mu = _dot(m, x_next) / rn
        for i in range(d):
            m[i] = cosine * m[i] - mu * x[i] / r
    elif variant == 2:  # RT, and R on s
        nn = _dot(x_next, x_next)
        xx = _dot(x_next, x)
        mx = _dot(x_next, m)
        for i in range(d):
            m[i] = (xx * m[i] - mx * x[i]) / (nn + eps)
        s[0] = s[0] * (r * r) / (nn + eps)
    return 0, eta, scalar_b


@nb.njit(cache=True, inline="always")
def adamg_update(t, eta, r, x, g, m, v, s, a, b, x_next, hyper):
    """The reference code's AdamG: s = β₂s + (1−β₂)‖∇L(x)‖² (no 1/d), x̂ = x − η m̂/(sqrt(ŝ) + ε), m ← T(m) with
    (x, x̂) and denominator r‖x̂‖ + ε, x_next = x̂/(‖x̂‖ + ε). Generic form as AdamS's.
    ``hyper = (beta1, beta2, eps)``."""
    beta1, beta2, eps = hyper
    d = x.shape[0]
    c1 = _one_minus_power(beta1, t)
    c2 = _one_minus_power(beta2, t)
    for i in range(d):
        m[i] = beta1 * m[i] + (1.0 - beta1) * g[i]
    s[0] = beta2 * s[0] + (1.0 - beta2) * _dot(g, g)
    root = math.sqrt(s[0] / c2) + eps
    if not root > 0.0:
        return 3, eta, 0.0
    scalar_b = (c1 / (1.0 - beta1)) * root
    for i in range(d):
        a[i] = m[i] / (1.0 - beta1)
        x_next[i] = x[i] - (eta / (c1 * root)) * m[i]
    rn = math.sqrt(_dot(x_next, x_next))
    xx = _dot(x_next, x)
    mx = _dot(x_next, m)
    for i in range(d):
        m[i] = (xx * m[i] - mx * x[i]) / (r * rn + eps)
    decay = 1.0 / (rn + eps)
    for i in range(d):
        x_next[i] *= decay
    return 0, eta, scalar_b


# ------------------------------------------------------------------ the simulation loop, one per optimizer
def _make_loop(update, init):
    """The simulation loop of ``simulate_kernel`` for one optimizer: ``update`` and ``init`` are compile-time constants
    of the closure (inlined into it), as the right-hand side of ``dynamics.numerics._batch_dopri5``.

    numba cannot cache on disk a function that closes over another dispatcher, nor one that takes a dispatcher as an
    argument; it caches a module-level function that calls a global dispatcher, such as the ``simulate_*`` entry
    points below, into which the loop is inlined (``inline="always"``: each entry point compiles to one function).
    """

    @nb.njit(inline="always")
    def loop(hyper, loss, x0, lrs, record_every, n_records):
        loss_kind, mat, table, vec, scal, key = loss
        d = x0.shape[0]
        n = lrs.shape[0]
        radius = np.empty(n + 1)
        effective = np.empty(n)
        angle = np.empty(n)
        grad_norm = np.empty(n)
        values = np.empty(n)
        record_steps = np.empty(n_records, dtype=np.int64)
        directions = np.empty((n_records, d))
        x = x0.copy()
        u = np.empty(d)
        g = np.empty(d)
        work = np.empty(d)
        a = np.empty(d)
        b = np.empty(d)
        x_next = np.empty(d)
        m = np.zeros(d)  # first moment / momentum buffer
        v = np.zeros(d)  # element-wise second moment (Adam, AdaGrad)
        s = np.zeros(1)  # scalar second moment (AdamS/ST/SRT, AdamG, AdaGradG)
        init(m, v, s, hyper)
        r = math.sqrt(_dot(x, x))
        radius[0] = r
        n_recorded = 0
        for k in range(n + 1):
            if k % record_every == 0 or k == n:
                if n_recorded < n_records:
                    record_steps[n_recorded] = k
                    for i in range(d):
                        directions[n_recorded, i] = x[i] / r
                    n_recorded += 1
            if k == n:
                break
            for i in range(d):
                u[i] = x[i] / r
            value, status = loss_grad(loss_kind, mat, table, vec, scal, key, u, k, g, work)
            if status != 0:
                return status, k, radius, effective, angle, grad_norm, values, record_steps, directions
            grad_norm[k] = math.sqrt(_dot(g, g))
            values[k] = value
            for i in range(d):
                g[i] /= r  # ∇L(x) = ∇L(u)/r (Lemma 1)
            status, eta, scalar_b = update(k + 1.0, lrs[k], r, x, g, m, v, s, a, b, x_next, hyper)
            if status != 0:
                return status, k, radius, effective, angle, grad_norm, values, record_steps, directions
            # Theorem 2: A = η/(r²s), c = r·a ⊘ (b/s), η^e = A/(1 − A⟨c,u⟩)
            if scalar_b > 0.0:
                scale = scalar_b
                radial = r * _dot(a, u)
            else:
                scale = math.sqrt(_dot(b, b) / d)
                radial = 0.0
                for i in range(d):
                    radial += r * a[i] * scale / b[i] * u[i]
            A = eta / (r * r * scale)
            h = 1.0 - A * radial
            if not h > 0.0:
                return 1, k, radius, effective, angle, grad_norm, values, record_steps, directions
            effective[k] = A / h
            r_next = math.sqrt(_dot(x_next, x_next))
            if not (r_next > 0.0 and r_next < math.inf):
                return 2, k, radius, effective, angle, grad_norm, values, record_steps, directions
            cosine = _dot(x, x_next) / (r * r_next)
            sine = 0.0
            for i in range(d):
                diff = x_next[i] / r_next - cosine * u[i]
                sine += diff * diff
            angle[k] = math.atan2(math.sqrt(sine), cosine)
            for i in range(d):
                x[i] = x_next[i]
            r = r_next
            radius[k + 1] = r
        return 0, n, radius, effective, angle, grad_norm, values, record_steps, directions

    return loop


# The loops of the optimizers of ``_optimizers``, each behind an entry point cached on disk.
_SGD_LOOP = _make_loop(sgd_update, sgd_init)
_ADAM_LOOP = _make_loop(adam_update, no_init)
_ADAGRAD_LOOP = _make_loop(adagrad_update, adagrad_init)
_ADAGRADG_LOOP = _make_loop(adagradg_update, adagradg_init)
_ADAMS_LOOP = _make_loop(adams_update, no_init)
_ADAMG_LOOP = _make_loop(adamg_update, no_init)


@nb.njit(cache=True)
def simulate_sgd(hyper, loss, x0, lrs, record_every, n_records):
    """``simulate_kernel(sgd_update, sgd_init)``, cached on disk."""
    return _SGD_LOOP(hyper, loss, x0, lrs, record_every, n_records)


@nb.njit(cache=True)
def simulate_adam(hyper, loss, x0, lrs, record_every, n_records):
    """``simulate_kernel(adam_update)``, cached on disk."""
    return _ADAM_LOOP(hyper, loss, x0, lrs, record_every, n_records)


@nb.njit(cache=True)
def simulate_adagrad(hyper, loss, x0, lrs, record_every, n_records):
    """``simulate_kernel(adagrad_update, adagrad_init)``, cached on disk."""
    return _ADAGRAD_LOOP(hyper, loss, x0, lrs, record_every, n_records)


@nb.njit(cache=True)
def simulate_adagradg(hyper, loss, x0, lrs, record_every, n_records):
    """``simulate_kernel(adagradg_update, adagradg_init)``, cached on disk."""
    return _ADAGRADG_LOOP(hyper, loss, x0, lrs, record_every, n_records)


@nb.njit(cache=True)
def simulate_adams(hyper, loss, x0, lrs, record_every, n_records):
    """``simulate_kernel(adams_update)``, cached on disk."""
    return _ADAMS_LOOP(hyper, loss, x0, lrs, record_every, n_records)


@nb.njit(cache=True)
def simulate_adamg(hyper, loss, x0, lrs, record_every, n_records):
    """``simulate_kernel(adamg_update)``, cached on disk."""
    return _ADAMG_LOOP(hyper, loss, x0, lrs, record_every, n_records)


#: (update, init) -> its simulation kernel: the cached entry points above, then the loops ``simulate_kernel`` builds.
SIMULATE_KERNELS = {(sgd_update, sgd_init): simulate_sgd, (adam_update, no_init): simulate_adam,
                    (adagrad_update, adagrad_init): simulate_adagrad,
                    (adagradg_update, adagradg_init): simulate_adagradg,
                    (adams_update, no_init): simulate_adams, (adamg_update, no_init): simulate_adamg}
_LOCK = threading.Lock()


def simulate_kernel(update, init=no_init):
    """The simulation loop specialised for one optimizer, built on first use and kept for the process.

    The kernel is called as ``kernel(hyper, loss, x0, lrs, record_every, n_records)``: ``hyper`` the tuple of the
    optimizer's hyper-parameters that ``update`` and ``init`` unpack, ``loss`` the tuple ``(loss_kind, mat, table,
    vec, scal, key)`` of ``loss_grad``, ``lrs`` the learning rates η_0..η_{n−1}, u_k recorded at the multiples of
    ``record_every`` and at the last step (``n_records`` of them). It returns ``(status, k, radius, effective, angle,
    grad_norm, loss, record_steps, directions)``, status as in the module docstring and k the step it stopped at.

    Parameters
    ----------
    update : numba.njit function
        ``update(t, eta, r, x, g, m, v, s, a, b, x_next, hyper) -> (status, learning_rate, scalar_b)``: one step
        from x = x_k (radius r) with g = ∇L(x_k) (without the L2 term), η = eta and t = k + 1. It updates the state
        m, v (shape (d,)) and s (shape (1,)) in place, writes x_next and the generic form x_next = decay·(x − η' a ⊘ b)
        of the step (Theorem 2): a, and b when scalar_b = 0, or the scalar b = scalar_b·1 when scalar_b > 0; it
        returns status 0, 1 ((H1) fails) or 3 (a zero second moment with ε = 0), and the learning rate η' of the
        generic form. Declare it ``inline="always"`` to have no call per step.
    init : numba.njit function
        ``init(m, v, s, hyper)``: the state before step 0 (m, v and s arrive filled with 0). Default: none.

    Returns
    -------
    numba dispatcher
        For the optimizers of this package an entry point cached on disk (``simulate_sgd``, ...); for other update
        functions a loop compiled on its first call in each process.

    Examples
    --------
    >>> simulate_kernel(adam_update) is simulate_adam
    True
    >>> from dynamics.spherical import AdamG, RandomLinearLoss, simulate
    >>> opt = AdamG(0.01)
    >>> simulate_kernel(*opt._kernel_spec()[:2]) is simulate_adamg
    True
    >>> run = simulate(opt, RandomLinearLoss.stream(4, seed=0), np.full(4, 0.5), 100)   # runs simulate_adamg
    >>> round(float(run.radius[-1]), 12)   # AdamG renormalises x at every step
    1.0
    """
    key = (update, init)
    kernel = SIMULATE_KERNELS.get(key)
    if kernel is None:
        for name, function in (("update", update), ("init", init)):
            if not isinstance(function, CPUDispatcher):
                raise TypeError(f"{name} must be a numba.njit function, got {type(function).__name__}")
        with _LOCK:
            kernel = SIMULATE_KERNELS.get(key)
            if kernel is None:
                kernel = SIMULATE_KERNELS[key] = _make_loop(update, init)
    return kernel


@nb.njit(cache=True)
def spherical_step_kernel(x, a, b, learning_rate, decay, A, c, effective, u_next, r_next):
    """Theorem 2 (Roburin et al. 2022; thesis Eqs 3.22-3.26) for each row i of x (n, d), one group per row.

    With r = ‖x_i‖, u = x_i/r and s = d^{−1/2}‖b_i‖ (or s = b_i for a scalar b, shape (n, 1)):
    A = η_i/(r²s), c = r·a_i ⊘ (b_i/s), η^e = A/(1 − A⟨c,u⟩), u_next = (u − η^e c⊥)/sqrt(1 + z²) and
    r_next = decay_i·r(1 − A⟨c,u⟩)sqrt(1 + z²) with z = η^e‖c⊥‖. Fills A, c, effective, u_next and r_next; returns
    (status, row): (0, n) when every row is done, (1, i) when (H1) 1 − A⟨c,u⟩ > 0 fails at row i (later rows are
    left unfilled), (2, i) when row i's η^e or r_next is not a positive finite double (its values are filled).
    """
    n, d = x.shape
    scalar_b = b.shape[1] == 1
    u = np.empty(d)
    for i in range(n):
        rr = 0.0
        for j in range(d):
            rr += x[i, j] * x[i, j]
        r = math.sqrt(rr)
        for j in range(d):
            u[j] = x[i, j] / r
        if scalar_b:
            scale = b[i, 0]
            for j in range(d):
                c[i, j] = r * a[i, j]
        else:
            bb = 0.0
            for j in range(d):
                bb += b[i, j] * b[i, j]
            scale = math.sqrt(bb / d)
            rs = r * scale
            for j in range(d):
                c[i, j] = rs * a[i, j] / b[i, j]
        A_i = learning_rate[i] / (r * r * scale)
        A[i] = A_i
        radial = 0.0
        for j in range(d):
            radial += c[i, j] * u[j]
        h = 1.0 - A_i * radial
        if not h > 0.0:
            return 1, i
        rate = A_i / h
        perp = 0.0
        for j in range(d):
            p = c[i, j] - radial * u[j]
            perp += p * p
        root = math.hypot(1.0, rate * math.sqrt(perp))
        for j in range(d):
            u_next[i, j] = (u[j] - rate * (c[i, j] - radial * u[j])) / root
        radius = decay[i] * r * h * root
        effective[i] = rate
        r_next[i] = radius
        if not (math.isfinite(rate) and radius > 0.0 and radius < math.inf):
            return 2, i
    return 0, n


@nb.njit(cache=True)
def sgd_radius_kernel(r0, eta, g, lam):
    """r_{k+1} = hypot((1 − η_kλ) r_k, η_k g_k / r_k): the map of r² without forming r² (which underflows or
    overflows long before r does). A radius that reaches 0 (underflow) or inf stops the recursion there: the
    caller refuses the result."""
    n = g.shape[0]
    r = np.zeros(n + 1)
    r[0] = r0
    for k in range(n):
        if not (r[k] > 0.0 and r[k] < np.inf):
            r[k + 1:] = r[k]
            break
        decay = 1.0 - eta[k] * lam
        r[k + 1] = math.hypot(decay * r[k], eta[k] * g[k] / r[k])
    return r


@nb.njit(cache=True)
def sgd_order2_kernel(w0, eta, g, lam):
    """w̃_{k+1} = ρ_k²w̃_k + 2ρ_kη_k²g_k², ρ_k = (1 − η_kλ)², from w̃_0 = w0 (the order-2 radius of Theorem 4)."""
    n = g.shape[0]
    w = np.empty(n + 1)
    w[0] = w0
    for k in range(n):
        decay = 1.0 - eta[k] * lam
        rho = decay * decay
        step = decay * eta[k] * g[k]  # 2ρη²g² = 2((1 − ηλ)ηg)²: no overflow of (ηg)² where the product is finite
        w[k + 1] = rho * rho * w[k] + 2.0 * step * step
    return w
