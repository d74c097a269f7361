"""The numba kernels of :mod:`dynamics.and_mask` (every compiled function of the package); the checked Python entry
points live in the topic modules.

* Exact sign statistics (Proposition 2 of Parascandolo et al. 2021 and its extensions): log binomial rows and keep
  probabilities summed in log space, truncated-normal pieces with Mills ratios in log space, the Bin(d−1) closed
  form of the masked moments, and the Poisson-binomial dynamic programme of heterogeneous environments
  (``_statistics``).
* The two-valley landscape of Fig 1 of Parascandolo et al. 2021 (the project's construction): the environments'
  losses and gradients and gradient descent on it, pooled, on one environment, or AND-masked (``_landscape``).
* The Monte Carlo engine: sums binned by the sign sum, and the sign EMA of Algorithm 1, over 64 fixed chunks with
  one xoshiro256++ stream each, serial or parallel with the same numbers (``_monte_carlo``).
"""
import math

import numba as nb
import numpy as np

from dynamics.numerics import normal_logcdf_kernel
from dynamics.numerics.random import next_u64, ziggurat_fast, ziggurat_slow

LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
#: The two-valley landscape: the shared bowl's centre c = (c, c) and the environments' valleys θ₁ = v (A), θ₂ = v (B).
CONSISTENT_CENTRE = -0.5
VALLEY = 0.8


# ------------------------------------------------------------------------------------------------ sign statistics
@nb.njit(cache=True)
def log_binomial_row(d, log_p, log_q):
    """log Bin(k; d, p) for k = 0..d from log p and log(1 − p) (no 1 − p by subtraction)."""
    out = np.empty(d + 1)
    top = math.lgamma(d + 1.0)
    for k in range(d + 1):
        out[k] = top - math.lgamma(k + 1.0) - math.lgamma(d - k + 1.0)
        if k > 0:
            out[k] += k * log_p
        if d - k > 0:
            out[k] += (d - k) * log_q
    return out


@nb.njit(cache=True)
def log_keep(d, threshold, snr):
    """log Σ_{k: |2k−d| >= T} Bin(k; d, Φ(s)) by log-sum-exp."""
    log_p = normal_logcdf_kernel(snr)
    log_q = normal_logcdf_kernel(-snr)
    row = log_binomial_row(d, log_p, log_q)
    top = -math.inf
    for k in range(d + 1):
        if abs(2 * k - d) >= threshold and row[k] > top:
            top = row[k]
    if top == -math.inf:
        return -math.inf
    if threshold == 0:
        return 0.0  # every k is kept
    acc = 0.0
    for k in range(d + 1):
        if abs(2 * k - d) >= threshold:
            acc += math.exp(row[k] - top)
    return min(top + math.log(acc), 0.0)


@nb.njit(cache=True)
def log_keep_many(d, threshold, snrs):
    out = np.empty(snrs.size)
    for i in range(snrs.size):
        out[i] = log_keep(d, threshold, snrs[i])
    return out


FAR_TAIL_SNR = 1.5  # from here on the far side's mean and variance come from the continued fraction
FAR_TAIL_TERMS = 200  # its depth: 2 eps or better at s >= 1.5 (against mpmath at 40 digits)


@nb.njit(cache=True)
def far_side_pieces(snr):
    """(m, v): mean and variance of N(s, 1) truncated to the far side g < 0, for s >= FAR_TAIL_SNR, without the
    cancellation of s − φ/Φ(−s) and 1 + sφ/Φ(−s) − (φ/Φ(−s))² (both ~1/s and 1/s², from terms ~s and ~s²).
    Laplace's continued fraction φ(s)/Φ(−s) = s + 1/T₂ with the tails T_k = s + k/T_{k+1} gives
    m = −1/T₂ and v = (s + 4/T₃ − 3/T₄)/(T₃T₂²), every step a sum of positive terms."""
    tail = snr
    t2 = t3 = t4 = snr
    for k in range(FAR_TAIL_TERMS, 1, -1):
        tail = snr + k / tail
        if k == 4:
            t4 = tail
        elif k == 3:
            t3 = tail
        elif k == 2:
            t2 = tail
    return -1.0 / t2, (snr + 4.0 / t3 - 3.0 / t4) / (t3 * t2 * t2)


@nb.njit(cache=True)
def truncated_normal_pieces(snr):
    """Truncated-normal pieces for σ = 1 and s >= -MAX: p, q, m₊, m₋, v₊, v₋ (Mills ratios in log space; the side
    away from the mean by the continued fraction of :func:`far_side_pieces` once |s| >= FAR_TAIL_SNR, where the
    direct forms lose up to s⁴ eps: 1e-8 relative at s = 30)."""
    log_p = normal_logcdf_kernel(snr)
    log_q = normal_logcdf_kernel(-snr)
    log_phi = -0.5 * snr * snr - LOG_SQRT_2PI
    ratio_p = math.exp(log_phi - log_p)  # φ/p
    ratio_q = math.exp(log_phi - log_q)  # φ/q
    m_plus = snr + ratio_p
    m_minus = snr - ratio_q
    v_plus = max(0.0, 1.0 - snr * ratio_p - ratio_p * ratio_p)
    v_minus = max(0.0, 1.0 + snr * ratio_q - ratio_q * ratio_q)
    if snr >= FAR_TAIL_SNR:
        m_minus, v_minus = far_side_pieces(snr)
    elif snr <= -FAR_TAIL_SNR:  # g > 0 is the far side: m₊(s) = −m₋(−s), v₊(s) = v₋(−s)
        m_far, v_plus = far_side_pieces(-snr)
        m_plus = -m_far
    return log_p, log_q, m_plus, m_minus, v_plus, v_minus


@nb.njit(cache=True)
def masked_moments_kernel(d, threshold, snr):
    """(E[m ḡ], E[m ḡ²]) for σ = 1, s >= 0: the Bin(d−1) closed form and the conditional sum."""
    log_p, log_q, m_plus, m_minus, v_plus, v_minus = truncated_normal_pieces(snr)
    p = math.exp(log_p)
    q = math.exp(log_q)
    phi = math.exp(-0.5 * snr * snr - LOG_SQRT_2PI)
    row = log_binomial_row(d - 1, log_p, log_q)
    with_plus = 0.0  # Pr[1 + B' in K]
    without = 0.0  # Pr[B' in K]
    for j in range(d):
        w = math.exp(row[j])
        if abs(2 * (j + 1) - d) >= threshold:
            with_plus += w
        if abs(2 * j - d) >= threshold:
            without += w
    first = (snr * p + phi) * with_plus + (snr * q - phi) * without
    full = log_binomial_row(d, log_p, log_q)
    second = 0.0
    for k in range(d + 1):
        if abs(2 * k - d) >= threshold:
            mean_sum = k * m_plus + (d - k) * m_minus
            second += math.exp(full[k]) * (k * v_plus + (d - k) * v_minus + mean_sum * mean_sum)
    return first, second / (d * d)


@nb.njit(cache=True)
def poisson_binomial_kernel(means, stds, threshold):
    """Poisson-binomial DP on (W, M1, M2, V); returns (keep probability, E[m ḡ], E[m ḡ²])."""
    d = means.size
    W = np.zeros(d + 1)
    M1 = np.zeros(d + 1)
    M2 = np.zeros(d + 1)
    V = np.zeros(d + 1)
    W[0] = 1.0
    for e in range(d):
        s = means[e] / stds[e]
        sigma = stds[e]
        log_p, log_q, m_plus, m_minus, v_plus, v_minus = truncated_normal_pieces(s)
        W2 = np.zeros(d + 1)
        M12 = np.zeros(d + 1)
        M22 = np.zeros(d + 1)
        V2 = np.zeros(d + 1)
        for outcome in range(2):
            if outcome == 1:
                shift, weight, m, v = 1, math.exp(log_p), sigma * m_plus, sigma * sigma * v_plus
            else:
                shift, weight, m, v = 0, math.exp(log_q), sigma * m_minus, sigma * sigma * v_minus
            if weight == 0.0:
                continue
            for k in range(e + 1):
                j = k + shift
                W2[j] += weight * W[k]
                M12[j] += weight * (M1[k] + m * W[k])
                M22[j] += weight * (M2[k] + 2.0 * m * M1[k] + m * m * W[k])
                V2[j] += weight * (V[k] + v * W[k])
        W, M1, M2, V = W2, M12, M22, V2
    keep = 0.0
    first = 0.0
    second = 0.0
    for k in range(d + 1):
        if abs(2 * k - d) >= threshold:
            keep += W[k]
            first += M1[k]
            second += V[k] + M2[k]
    return keep, first / d, second / (d * d)


# ------------------------------------------------------------------------------------------------ two-valley landscape
@nb.njit(cache=True)
def two_valley_terms(x, y):
    """(L_A, L_B, ∇L_A, ∇L_B) at one point."""
    qc = (x - CONSISTENT_CENTRE) ** 2 + (y - CONSISTENT_CENTRE) ** 2
    qa = (x - VALLEY) ** 2
    qb = (y - VALLEY) ** 2
    la = qc * (qa / (qc + qa))  # the quotient first: qc·qa alone overflows for |θ| near 1e77
    lb = qc * (qb / (qc + qb))
    wa_c = (qa / (qc + qa)) ** 2
    wa_e = (qc / (qc + qa)) ** 2
    wb_c = (qb / (qc + qb)) ** 2
    wb_e = (qc / (qc + qb)) ** 2
    gax = wa_c * 2.0 * (x - CONSISTENT_CENTRE) + wa_e * 2.0 * (x - VALLEY)
    gay = wa_c * 2.0 * (y - CONSISTENT_CENTRE)
    gbx = wb_c * 2.0 * (x - CONSISTENT_CENTRE)
    gby = wb_c * 2.0 * (y - CONSISTENT_CENTRE) + wb_e * 2.0 * (y - VALLEY)
    return la, lb, gax, gay, gbx, gby


@nb.njit(cache=True)
def sign_of(v):
    return (v > 0.0) - (v < 0.0)


@nb.njit(cache=True, parallel=True)
def two_valley_descent_kernel(starts, method, learning_rate, n_steps, record_every):
    m = starts.shape[0]
    n_record = n_steps // record_every + 1
    paths = np.empty((m, n_record, 2))
    final = np.empty((m, 2))
    for i in nb.prange(m):
        x, y = starts[i, 0], starts[i, 1]
        paths[i, 0, 0], paths[i, 0, 1] = x, y
        for k in range(1, n_steps + 1):
            _, _, gax, gay, gbx, gby = two_valley_terms(x, y)
            if method == 0:
                ux, uy = 0.5 * (gax + gbx), 0.5 * (gay + gby)
            elif method == 1:
                ux, uy = gax, gay
            elif method == 2:
                ux, uy = gbx, gby
            else:  # AND-mask, d = 2, τ = 1: keep a coordinate iff both signs agree and are non-zero
                ux = 0.5 * (gax + gbx) if abs(sign_of(gax) + sign_of(gbx)) == 2 else 0.0
                uy = 0.5 * (gay + gby) if abs(sign_of(gay) + sign_of(gby)) == 2 else 0.0
            x -= learning_rate * ux
            y -= learning_rate * uy
            if k % record_every == 0:
                paths[i, k // record_every, 0], paths[i, k // record_every, 1] = x, y
        final[i, 0], final[i, 1] = x, y
    return final, paths


@nb.njit(cache=True)
def two_valley_terms_many(points):
    out = np.empty((points.shape[0], 6))
    for i in range(points.shape[0]):
        terms = two_valley_terms(points[i, 0], points[i, 1])
        for j in range(6):  # element by element: a row assignment compiles numba's shape-error formatting
            out[i, j] = terms[j]
    return out


# ------------------------------------------------------------------------------------------------ Monte Carlo engine
@nb.njit(cache=True)
def mask_chunk(local, start, stop, state, means, stds, ki, wi, fi):
    """Simulate coordinates start..stop-1 with one generator state; add Σ1, Σḡ, Σḡ², Σḡ⁴ by sign sum to local."""
    d = means.size
    inv_d = 1.0 / d
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for _ in range(start, stop):
        total = 0.0
        sign_sum = 0
        for e in range(d):
            r, s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
            x, ok = ziggurat_fast(r, ki, wi)
            if not ok:
                x, s0, s1, s2, s3 = ziggurat_slow(r, s0, s1, s2, s3, ki, wi, fi)
            g = means[e] + stds[e] * x
            total += g
            sign_sum += np.int64(g > 0.0) - np.int64(g < 0.0)
        mean = total * inv_d
        b = sign_sum + d
        sq = mean * mean
        local[0, b] += 1.0
        local[1, b] += mean
        local[2, b] += sq
        local[3, b] += sq * sq


@nb.njit(cache=True)
def reduce_chunks(bins):
    out = np.zeros(bins.shape[1:])
    for c in range(bins.shape[0]):  # fixed order: the same sums with any number of threads
        out += bins[c]
    return out


@nb.njit(cache=True, parallel=True)
def mask_parallel(means, stds, n_samples, states, ki, wi, fi):
    n_chunks = states.shape[0]
    bins = np.zeros((n_chunks, 4, 2 * means.size + 1))
    per = (n_samples + n_chunks - 1) // n_chunks
    for c in nb.prange(n_chunks):
        mask_chunk(bins[c], c * per, min(n_samples, (c + 1) * per), states[c], means, stds, ki, wi, fi)
    return reduce_chunks(bins)


@nb.njit(cache=True)
def mask_serial(means, stds, n_samples, states, ki, wi, fi):
    n_chunks = states.shape[0]
    bins = np.zeros((n_chunks, 4, 2 * means.size + 1))
    per = (n_samples + n_chunks - 1) // n_chunks
    for c in range(n_chunks):
        mask_chunk(bins[c], c * per, min(n_samples, (c + 1) * per), states[c], means, stds, ki, wi, fi)
    return reduce_chunks(bins)


@nb.njit(cache=True)
def temporal_chunk(local, start, stop, state, mean, std, beta, agreement_threshold, ki, wi, fi):
    """Chains start..stop-1: add Σa, Σa², Σa³, Σa⁴ and Σ1[|a| >= τ] per step to local (shape (5, n_steps))."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    ema = np.zeros(max(stop - start, 0))
    for k in range(local.shape[1]):  # steps outside, chains inside: the step's sums stay in registers
        m1 = m2 = m3 = m4 = kept = 0.0
        for j in range(ema.size):
            r, s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
            x, ok = ziggurat_fast(r, ki, wi)
            if not ok:
                x, s0, s1, s2, s3 = ziggurat_slow(r, s0, s1, s2, s3, ki, wi, fi)
            g = mean + std * x
            a = beta * ema[j] + (1.0 - beta) * (np.float64(g > 0.0) - np.float64(g < 0.0))
            ema[j] = a
            a2 = a * a
            m1 += a
            m2 += a2
            m3 += a2 * a
            m4 += a2 * a2
            kept += np.float64(abs(a) >= agreement_threshold)
        local[0, k] += m1
        local[1, k] += m2
        local[2, k] += m3
        local[3, k] += m4
        local[4, k] += kept


@nb.njit(cache=True, parallel=True)
def temporal_parallel(mean, std, beta, agreement_threshold, n_steps, n_chains, states, ki, wi, fi):
    n_chunks = states.shape[0]
    sums = np.zeros((n_chunks, 5, n_steps))
    per = (n_chains + n_chunks - 1) // n_chunks
    for c in nb.prange(n_chunks):
        temporal_chunk(sums[c], c * per, min(n_chains, (c + 1) * per), states[c], mean, std, beta, agreement_threshold, ki, wi, fi)
    return reduce_chunks(sums)


@nb.njit(cache=True)
def temporal_serial(mean, std, beta, agreement_threshold, n_steps, n_chains, states, ki, wi, fi):
    n_chunks = states.shape[0]
    sums = np.zeros((n_chunks, 5, n_steps))
    per = (n_chains + n_chunks - 1) // n_chunks
    for c in range(n_chunks):
        temporal_chunk(sums[c], c * per, min(n_chains, (c + 1) * per), states[c], mean, std, beta, agreement_threshold, ki, wi, fi)
    return reduce_chunks(sums)
