"""The numba kernels of :mod:`dynamics.double_descent` (compiled on first use, cached on disk). The Python-facing
functions that check the arguments and call them live in the topic modules.

* :func:`log_time_rhs`: the log-time ODE of the bipartite roots a_i (derived in this project), for
  :func:`solve_ode`;
* :func:`ridge_balance`, :func:`effective_regularisation`: the effective regularisation of exact large-d ridge
  (derived in this project from deterministic equivalents), by bisection in log k and a Newton polish, in
  parallel over the weight decays;
* :func:`filter_kernel`, :func:`scheduled_filter_kernel`: the spectral filter f_j(k) of GD and gradient flow
  (App. .2.16–.2.17), for a constant or a step-dependent output penalty;
* :func:`trace_kernel`: the O(d²)-per-step trace formulas for R and Q (Eqs 4.2.9–4.2.10 in the G∘H form derived
  in this project);
* :func:`gradient_flow_rhs`: dŵ/dk of gradient flow in the original basis, for :func:`solve_ode`;
* :func:`shifted_tridiagonal_solve`: (T + λ_j I) z_j = c for every shift λ_j, T symmetric tridiagonal, by the
  LDLᵀ factorisation without pivoting (backward stable for a positive definite T + λ_j I), for the ridge path.
"""
import numba as nb
import numpy as np


@nb.njit(cache=True)
def log_time_rhs(log_step, a, params):
    """da/dτ for τ = ln k; params = [α, λ̃(∞), c] with λ̃(τ) = λ̃(∞) + c e^{−τ} (one group)."""
    alpha, lam_inf, c = params[0], params[1], params[2]
    decay = c * np.exp(-log_step)
    out = np.empty(1)
    out[0] = -decay * a[0] / (2.0 * a[0] - 1.0 - alpha - lam_inf - decay)
    return out


@nb.njit(cache=True)
def ridge_balance(k, lam, n, sizes, s):
    """1 − λ'/k − (1/n) Σ p_i s_i/(s_i + k): increasing in k > 0, zero at the effective regularisation."""
    total = 0.0
    for i in range(sizes.shape[0]):
        total += sizes[i] * s[i] / (s[i] + k)
    return 1.0 - lam / k - total / n


@nb.njit(cache=True, parallel=True)
def effective_regularisation(lams, n, sizes, s):
    """The effective regularisation k > 0 solving :func:`ridge_balance` = 0 for each λ' of ``lams`` (k = 0 for
    λ' = 0 when n exceeds the dimension Σ p_i): bisection in log k, then three Newton steps."""
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
            if ridge_balance(np.exp(mid), lam, n, sizes, s) < 0.0:
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
            step = ridge_balance(k, lam, n, sizes, s) / slope
            if abs(step) < 0.5 * k:
                k -= step
        out[m] = k
    return out


@nb.njit(cache=True, parallel=True)
def filter_kernel(steps, s, eta, ridge, penalty, flow, null):
    """f (B, T, d) for eigenvalues s (B, d), learning rates eta (B,) and steps (T,): f_j(k) = D_j(k)/r_j with
    r_j = (1 + a)s_j + λ and D_j = 1 − (1 − ηr_j)^k (GD) or 1 − exp(−ηr_j k) (flow), evaluated without cancellation
    (see :mod:`dynamics.double_descent._spectral`); null modes stay 0."""
    n_designs, d = s.shape
    n_steps = steps.shape[0]
    out = np.zeros((n_designs, n_steps, d))
    for flat in nb.prange(n_designs * n_steps):
        b = flat // n_steps
        m = flat - b * n_steps
        k = steps[m]
        if k == 0.0:
            continue
        for j in range(d):
            rate = (1.0 + penalty) * s[b, j] + ridge
            if null[b, j] or rate <= 0.0:
                continue
            x = eta[b] * rate
            if k == np.inf:
                D = 1.0
            elif flow:
                D = -np.expm1(-k * x)
            elif x < 1.0:
                D = -np.expm1(k * np.log1p(-x))
            elif x == 1.0:
                D = 1.0
            else:  # 1 < ηr < 2: (1 − ηr)^k alternates in sign (k whole, checked by the caller)
                size = np.exp(k * np.log(x - 1.0))
                D = 1.0 - size if k % 2.0 == 0.0 else 1.0 + size
            out[b, m, j] = D / rate
    return out


TRACE_BLOCK = 4  # steps per block of the trace kernel: each load of M serves four steps


# Reassociation lets numba vectorise the inner dot products (the sums then differ from a sequential loop by a few
# ulps); nothing here is NaN or inf, so no other fast-math assumption is made.
@nb.njit(cache=True, parallel=True, fastmath={"reassoc", "contract"})
def trace_kernel(K, N2, C, M, G_diag, noise_var):
    """R_g and Q_g (g = groups) at each step, in parallel over blocks of four steps: R = Σ_j K_j C_g,j/d and
    Q = (Kᵀ M_g K + σ² Σ_j N_j² G_g,jj)/d, with K = f s and N² = f² s of shape (T, d) and M_g = G_g∘H symmetric
    (only its lower triangle is read)."""
    n_steps, d = K.shape
    n_groups = C.shape[0]
    R = np.empty((n_groups, n_steps))
    Q = np.empty((n_groups, n_steps))
    n_blocks = (n_steps + TRACE_BLOCK - 1) // TRACE_BLOCK
    for block in nb.prange(n_blocks):
        first = block * TRACE_BLOCK
        size = min(TRACE_BLOCK, n_steps - first)
        Kb = np.zeros((TRACE_BLOCK, d))  # padded with zero rows: the quadratic forms of padding are 0
        for b in range(size):  # element by element: a row assignment compiles numba's shape-error formatting
            for i in range(d):
                Kb[b, i] = K[first + b, i]
        for g in range(n_groups):
            quad = np.zeros(TRACE_BLOCK)
            for i in range(d):
                r0 = 0.0
                r1 = 0.0
                r2 = 0.0
                r3 = 0.0
                for j in range(i):
                    mij = M[g, i, j]
                    r0 += mij * Kb[0, j]
                    r1 += mij * Kb[1, j]
                    r2 += mij * Kb[2, j]
                    r3 += mij * Kb[3, j]
                mii = M[g, i, i]
                quad[0] += Kb[0, i] * (2.0 * r0 + mii * Kb[0, i])
                quad[1] += Kb[1, i] * (2.0 * r1 + mii * Kb[1, i])
                quad[2] += Kb[2, i] * (2.0 * r2 + mii * Kb[2, i])
                quad[3] += Kb[3, i] * (2.0 * r3 + mii * Kb[3, i])
            for b in range(size):
                m = first + b
                r = 0.0
                noise = 0.0
                for i in range(d):
                    r += K[m, i] * C[g, i]
                    noise += N2[m, i] * G_diag[g, i]
                R[g, m] = r / d
                Q[g, m] = (quad[b] + noise_var * noise) / d
    return R, Q


@nb.njit(cache=True)
def scheduled_filter_kernel(s, eta, ridge, schedule, record):
    """f after each recorded step of f ← (1 − η((1 + a_k)s + λ)) f + η, f(0) = 0."""
    out = np.zeros((record.shape[0], s.shape[0]))
    f = np.zeros(s.shape[0])
    r = 0
    while r < record.shape[0] and record[r] == 0:
        r += 1
    for step in range(1, record[-1] + 1):
        a = schedule[step - 1]
        for j in range(s.shape[0]):
            f[j] = (1.0 - eta * ((1.0 + a) * s[j] + ridge)) * f[j] + eta
        while r < record.shape[0] and record[r] == step:
            for j in range(s.shape[0]):  # element by element: a row assignment compiles numba's error formatting
                out[r, j] = f[j]
            r += 1
    return out


@nb.njit(cache=True)
def gradient_flow_rhs(step, w, params):
    """dŵ/dk = −η[(XᵀX + λ)ŵ − Xᵀy]; params = [η, λ, Xᵀy (d), XᵀX.ravel() (d²)]."""
    d = w.shape[0]
    eta, lam = params[0], params[1]
    rhs_b = params[2:2 + d]
    gram = params[2 + d:].reshape((d, d))
    return -eta * (gram @ w + lam * w - rhs_b)


@nb.njit(cache=True)
def shifted_tridiagonal_solve(diagonal, off_diagonal, shifts, rhs):
    """(Z, ok): row j of Z solves (T + λ_j I) z = rhs, T the symmetric tridiagonal matrix of ``diagonal`` and
    ``off_diagonal``; ok is False (and Z incomplete) when a pivot of some T + λ_j I is not positive, that is when it
    is not numerically positive definite and the caller must take another route."""
    m = diagonal.shape[0]
    out = np.empty((shifts.shape[0], m))
    pivots = np.empty(m)
    for j in range(shifts.shape[0]):
        pivot = diagonal[0] + shifts[j]
        if not pivot > 0.0:
            return out, False
        pivots[0] = pivot
        out[j, 0] = rhs[0]
        for i in range(1, m):
            multiplier = off_diagonal[i - 1] / pivots[i - 1]
            pivot = diagonal[i] + shifts[j] - multiplier * off_diagonal[i - 1]
            if not pivot > 0.0:
                return out, False
            pivots[i] = pivot
            out[j, i] = rhs[i] - multiplier * out[j, i - 1]
        out[j, m - 1] /= pivots[m - 1]
        for i in range(m - 2, -1, -1):
            out[j, i] = (out[j, i] - off_diagonal[i] * out[j, i + 1]) / pivots[i]
    return out, True
