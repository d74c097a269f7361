"""The numba kernels of the linear-network theory: the right-hand sides and Jacobians of its gradient flows
(integrated by :func:`dynamics.numerics.solve_ode` through ``_integrate.integrate_flow``) and the gradient-descent loop
of the two-weight-layer network. The checked Python entry points are :func:`dynamics.linear_networks.scalar_mode_flow`,
:func:`dynamics.linear_networks.deep_mode_strength`, :func:`dynamics.linear_networks.deep_chain_strength`,
:func:`dynamics.linear_networks.network_flow`, :func:`dynamics.linear_networks.network_gd` and
:func:`dynamics.linear_networks.student_flow` of :mod:`dynamics.linear_networks`.

Every right-hand side has the signature ``rhs(t, y, params)`` of :func:`dynamics.numerics.solve_ode`; the flows
are written with their time constant ``tau`` in ``params`` (the integrator passes τ = 1: it works in units of τ).
"""
import numba as nb
import numpy as np


@nb.njit(cache=True)
def scalar_mode_rhs(t, y, params):
    """(2.2.15–16): y = (a, b), params = (s, tau)."""
    s, tau = params[0], params[1]
    a, b = y[0], y[1]
    err = s - a * b
    out = np.empty(2)
    out[0] = b * err / tau
    out[1] = a * err / tau
    return out


@nb.njit(cache=True)
def scalar_mode_jacobian(t, y, params):
    """∂(a', b')/∂(a, b) of ``scalar_mode_rhs``."""
    s, tau = params[0], params[1]
    a, b = y[0], y[1]
    out = np.empty((2, 2))
    out[0, 0] = -b * b / tau
    out[0, 1] = (s - 2.0 * a * b) / tau
    out[1, 0] = out[0, 1]
    out[1, 1] = -a * a / tau
    return out


@nb.njit(cache=True)
def deep_mode_rhs(t, y, params):
    """Saxe's deep balanced mode ODE τ u' = D u^{2−2/D}(s − u); params = (s, D, tau)."""
    s, depth, tau = params[0], params[1], params[2]
    u = y[0]
    out = np.empty(1)
    out[0] = depth * abs(u) ** (2.0 - 2.0 / depth) * (s - u) / tau
    return out


@nb.njit(cache=True)
def deep_mode_jacobian(t, y, params):
    """∂u'/∂u of ``deep_mode_rhs`` (u stays between u0 > 0 and s >= 0)."""
    s, depth, tau = params[0], params[1], params[2]
    u = abs(y[0])
    power = 2.0 - 2.0 / depth
    out = np.empty((1, 1))
    growth = power * u ** (power - 1.0) * (s - y[0]) if power > 0.0 and u > 0.0 else 0.0
    out[0, 0] = depth * (growth - u ** power) / tau
    return out


@nb.njit(cache=True)
def chain_products(y):
    """(Π_j a_j, [Π_{j≠i} a_j for each i]) by plain products (no division: some a_j may be 0)."""
    n = y.shape[0]
    prod = 1.0
    for i in range(n):
        prod *= y[i]
    others = np.empty(n)
    for i in range(n):
        others[i] = 1.0
        for j in range(n):
            if j != i:
                others[i] *= y[j]
    return prod, others


@nb.njit(cache=True)
def deep_chain_rhs(t, y, params):
    """Gradient flow of (1/2τ)(s − a_1 ... a_D)² over the scalar chain y = (a_1..a_D); params = (s, tau)."""
    s, tau = params[0], params[1]
    prod, others = chain_products(y)
    return (s - prod) * others / tau


@nb.njit(cache=True)
def deep_chain_jacobian(t, y, params):
    """∂a_i'/∂a_k = [(s − P) Π_{j≠i,k} a_j − Π_{j≠k} a_j Π_{j≠i} a_j]/τ of ``deep_chain_rhs`` (P = Π a_j)."""
    s, tau = params[0], params[1]
    n = y.shape[0]
    prod, others = chain_products(y)
    out = np.empty((n, n))
    for i in range(n):
        for k in range(n):
            both = 0.0
            if k != i:
                both = 1.0
                for j in range(n):
                    if j != i and j != k:
                        both *= y[j]
            out[i, k] = ((s - prod) * both - others[k] * others[i]) / tau
    return out


@nb.njit(cache=True)
def two_layer_rhs(t, y, params):
    """(2.2.5–6) on y = [W21.ravel(), W32.ravel()]; params = [N1, N2, N3, tau, Σ31.ravel(), Σ11.ravel()]."""
    n1, n2, n3 = int(params[0]), int(params[1]), int(params[2])
    tau = params[3]
    sigma31 = params[4:4 + n3 * n1].reshape((n3, n1))
    sigma11 = params[4 + n3 * n1:4 + n3 * n1 + n1 * n1].reshape((n1, n1))
    W21 = y[:n2 * n1].reshape((n2, n1))
    W32 = y[n2 * n1:].reshape((n3, n2))
    err = sigma31 - W32 @ (W21 @ sigma11)
    g21, g32 = (W32.T @ err).ravel(), (err @ W21.T).ravel()
    out = np.empty(y.shape[0])
    for i in range(g21.shape[0]):  # element by element: slice assignments compile numba's error formatting
        out[i] = g21[i] / tau
    for i in range(g32.shape[0]):
        out[g21.shape[0] + i] = g32[i] / tau
    return out


@nb.njit(cache=True)
def two_layer_gd(W21, W32, sigma31, sigma11, eta, n_steps, every):
    """Full-batch GD (2.2.3–4) with simultaneous updates; the weights at steps 0, every, 2·every, ..."""
    n_records = n_steps // every + 1
    out21 = np.empty((n_records,) + W21.shape)
    out32 = np.empty((n_records,) + W32.shape)
    _record(out21, 0, W21)
    _record(out32, 0, W32)
    for k in range(1, n_steps + 1):
        err = sigma31 - W32 @ (W21 @ sigma11)
        # Simultaneous update: both gradients use the weights of step k − 1 (2.2.3–4).
        W21, W32 = W21 + eta * (W32.T @ err), W32 + eta * (err @ W21.T)
        if k % every == 0:
            _record(out21, k // every, W21)
            _record(out32, k // every, W32)
    return out21, out32


@nb.njit(cache=True)
def _record(out, k, W):
    """out[k] = W element by element (a slice assignment compiles numba's shape-error formatting, seconds cold)."""
    for i in range(W.shape[0]):
        for j in range(W.shape[1]):
            out[k, i, j] = W[i, j]


@nb.njit(cache=True)
def student_rhs(t, y, params):
    """(2.3.5) τ w' = Σyx − w Σxx on y = w; params = [N, tau, Σyx (N), Σxx.ravel() (N²)]."""
    n = int(params[0])
    tau = params[1]
    sigma_yx = params[2:2 + n]
    sigma_xx = params[2 + n:2 + n + n * n].reshape((n, n))
    return (sigma_yx - sigma_xx @ y) / tau  # Σxx is symmetric


@nb.njit(cache=True)
def student_jacobian(t, y, params):
    """−Σxx/τ, the constant Jacobian of ``student_rhs``."""
    n = int(params[0])
    return -params[2 + n:2 + n + n * n].reshape((n, n)) / params[1]
