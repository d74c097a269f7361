"""Every numba kernel of :mod:`dynamics.spherical`.

* ``loss_grad`` and ``simulate_kernel``: the synthetic losses and the optimizers in one compiled loop.
  They mirror the numpy reference implementations (``_losses``, ``_optimizers``) operation for operation, and
  record per step the radius, the Theorem 2 effective learning rate A/(1 − A⟨c,u⟩) of the step's generic form,
  the angle between u_k and u_{k+1} (atan2 form), the gradient norm on the sphere r‖∇L(x)‖ and the loss.
  Status codes: 0 done, 1 (H1) fails, 2 the weights leave float64 or reach 0, 3 a zero second moment with ε = 0,
  4 a BatchNorm batch with zero variance, 5 a draw parallel to x under a controlled gradient norm.
* ``spherical_step_kernel``: the Theorem 2 decomposition of one step, row by row (one radially invariant group per
  row), behind :func:`~dynamics.spherical.spherical_step` and :func:`~dynamics.spherical.spherical_step_batch`.
* ``sgd_radius_kernel`` and ``sgd_order2_kernel``: the exact and the order-2 radius recursions of SGD (+ L2)
  behind :func:`~dynamics.spherical.sgd_radius_sequence` and :func:`~dynamics.spherical.sgd_order2_radius4`.
"""
import math

import numba as nb
import numpy as np

from dynamics.numerics.random import fill_normals

RAYLEIGH, RANDOM_LINEAR, BN_PROBE, WN_LOGISTIC = 0, 1, 2, 3
SGD_KIND, ADAM_KIND, ADAGRAD_KIND, ADAGRADG_KIND, ADAMS_KIND, ADAMG_KIND = range(6)


@nb.njit(cache=True)
def _dot(a, b):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * b[i]
    return total


@nb.njit(cache=True)
def _sigmoid(z):
    return 0.5 * (1.0 - math.tanh(-0.5 * z))


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
            gz[b] = -t * _sigmoid(-margin) * readout / B
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
        weights[s] = vec[s] * _sigmoid(-margin)
    grad = np.dot(weights, table)
    scale = -gamma / n
    for i in range(d):
        g[i] = scale * grad[i]
    p = _dot(g, u)
    for i in range(d):
        g[i] -= p * u[i]
    return value / n, 0


@nb.njit(cache=True)
def _one_minus_power(beta, t):
    if beta == 0.0:
        return 1.0
    return -math.expm1(t * math.log(beta))


@nb.njit(cache=True)
def simulate_kernel(opt_kind, hyper, buffer0, loss_kind, mat, table, vec, scal, key, x0, lrs, record_every,
                    n_records):
    d = x0.shape[0]
    n = lrs.shape[0]
    radius = np.empty(n + 1)
    effective = np.empty(n)
    angle = np.empty(n)
    grad_norm = np.empty(n)
    loss = np.empty(n)
    record_steps = np.empty(n_records, dtype=np.int64)
    directions = np.empty((n_records, d))
    x = x0.copy()
    u = np.empty(d)
    g = np.empty(d)
    work = np.empty(d)
    a = np.empty(d)
    b = np.empty(d)
    x_next = np.empty(d)
    m = np.zeros(d)
    if buffer0.shape[0] == d:
        for i in range(d):
            m[i] = buffer0[i]
    v = np.zeros(d)  # element-wise second moment (Adam, AdaGrad)
    vs = 0.0  # scalar second moment (AdamS/ST/SRT, AdamG, AdaGradG)
    if opt_kind == ADAGRAD_KIND:
        for i in range(d):
            v[i] = hyper[2]
    if opt_kind == ADAGRADG_KIND:
        vs = hyper[1]
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
        eta = lrs[k]
        for i in range(d):
            u[i] = x[i] / r
        value, status = loss_grad(loss_kind, mat, table, vec, scal, key, u, k, g, work)
        if status != 0:
            return status, k, radius, effective, angle, grad_norm, loss, record_steps, directions
        grad_norm[k] = math.sqrt(_dot(g, g))
        loss[k] = value
        for i in range(d):
            g[i] /= r  # ∇L(x) = ∇L(u)/r (Lemma 1)
        t = k + 1.0
        decay = 1.0
        scalar_b = 0.0  # > 0 when b is the scalar scalar_b·1
        if opt_kind == SGD_KIND:
            gamma, lam = hyper[0], hyper[1]
            for i in range(d):
                m[i] = gamma * m[i] + g[i] + lam * x[i]
                a[i] = m[i]
            scalar_b = 1.0
            for i in range(d):
                x_next[i] = x[i] - eta * m[i]
            if hyper[2] > 0.0:  # SGDMRT: m <- RT(m)
                nn = _dot(x_next, x_next)
                xx = _dot(x_next, x)
                mx = _dot(x_next, m)
                for i in range(d):
                    m[i] = (xx * m[i] - mx * x[i]) / nn
        elif opt_kind == ADAM_KIND:
            beta1, beta2, eps, lam = hyper[0], hyper[1], hyper[2], hyper[3]
            inside, decoupled = hyper[4] > 0.0, hyper[5] > 0.0
            c1 = _one_minus_power(beta1, t)
            c2 = _one_minus_power(beta2, t)
            if decoupled:
                decay = 1.0 - eta * lam
                if not decay > 0.0:
                    return 1, k, radius, effective, angle, grad_norm, loss, record_steps, directions
            for i in range(d):
                gi = g[i] if decoupled else g[i] + lam * x[i]
                m[i] = beta1 * m[i] + (1.0 - beta1) * gi
                v[i] = beta2 * v[i] + (1.0 - beta2) * gi * gi
                root = math.sqrt(v[i] / c2 + eps) if inside else math.sqrt(v[i] / c2) + eps
                if not root > 0.0:
                    return 3, k, radius, effective, angle, grad_norm, loss, record_steps, directions
                a[i] = m[i] / (1.0 - beta1)
                b[i] = (c1 / (1.0 - beta1)) * root
                x_next[i] = decay * x[i] - eta * (m[i] / c1) / root
            eta = eta / decay
        elif opt_kind == ADAGRAD_KIND:
            eps, lam = hyper[0], hyper[1]
            for i in range(d):
                gi = g[i] + lam * x[i]
                v[i] += gi * gi
                root = math.sqrt(v[i]) + eps
                if not root > 0.0:
                    return 3, k, radius, effective, angle, grad_norm, loss, record_steps, directions
                a[i] = gi
                b[i] = root
                x_next[i] = x[i] - eta * gi / root
        elif opt_kind == ADAGRADG_KIND:
            root = math.sqrt(vs)
            for i in range(d):
                a[i] = g[i]
                x_next[i] = x[i] - (eta / root) * g[i]
            scalar_b = root
            decay = 1.0 / math.sqrt(_dot(x_next, x_next))
            for i in range(d):
                x_next[i] *= decay
            vs = hyper[0] * vs + _dot(g, g)
        elif opt_kind == ADAMS_KIND:
            beta1, beta2, eps, lam, variant = hyper[0], hyper[1], hyper[2], hyper[3], hyper[4]
            c1 = _one_minus_power(beta1, t)
            c2 = _one_minus_power(beta2, t)
            sq = 0.0
            for i in range(d):
                gi = g[i] + lam * x[i]
                m[i] = beta1 * m[i] + (1.0 - beta1) * gi
                sq += gi * gi
            vs = beta2 * vs + (1.0 - beta2) * sq / d
            root = math.sqrt(vs / c2) + eps
            if not root > 0.0:
                return 3, k, radius, effective, angle, grad_norm, loss, record_steps, directions
            scalar_b = (c1 / (1.0 - beta1)) * root
            for i in range(d):
                a[i] = m[i] / (1.0 - beta1)
                x_next[i] = x[i] - (eta / (c1 * root)) * m[i]
            if variant == 1.0:  # T
                rn = math.sqrt(_dot(x_next, x_next))
                cosine = _dot(x, x_next) / (r * rn)
                mu = _dot(m, x_next) / rn
                for i in range(d):
                    m[i] = cosine * m[i] - mu * x[i] / r
            elif variant == 2.0:  # RT, and R on v
                nn = _dot(x_next, x_next)
                xx = _dot(x_next, x)
                mx = _dot(x_next, m)
                for i in range(d):
                    m[i] = (xx * m[i] - mx * x[i]) / (nn + eps)
                vs = vs * (r * r) / (nn + eps)
        else:  # ADAMG_KIND
            beta1, beta2, eps = hyper[0], hyper[1], hyper[2]
            c1 = _one_minus_power(beta1, t)
            c2 = _one_minus_power(beta2, t)
            for i in range(d):
                m[i] = beta1 * m[i] + (1.0 - beta1) * g[i]
            vs = beta2 * vs + (1.0 - beta2) * _dot(g, g)
            root = math.sqrt(vs / c2) + eps
            if not root > 0.0:
                return 3, k, radius, effective, angle, grad_norm, loss, record_steps, directions
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
        # Theorem 2: A = η/(r²s), c = r·a ⊘ (b/s), η^e = A/(1 − A⟨c,u⟩)
        if scalar_b > 0.0:
            s = scalar_b
            radial = r * _dot(a, u)
        else:
            s = math.sqrt(_dot(b, b) / d)
            radial = 0.0
            for i in range(d):
                radial += r * a[i] * s / b[i] * u[i]
        A = eta / (r * r * s)
        h = 1.0 - A * radial
        if not h > 0.0:
            return 1, k, radius, effective, angle, grad_norm, loss, record_steps, directions
        effective[k] = A / h
        r_next = math.sqrt(_dot(x_next, x_next))
        if not (r_next > 0.0 and r_next < math.inf):
            return 2, k, radius, effective, angle, grad_norm, loss, record_steps, directions
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
    return 0, n, radius, effective, angle, grad_norm, loss, record_steps, directions


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
