"""Argument checks of the linear-network theory, on top of the general ones of :mod:`dynamics.numerics` (ranges,
integers, times, finite arrays): named broadcasting, standard deviations, network weights, their mode bases (full
or reduced SVD factors) and the correlations they are trained on, student instances and their weights; and the
output side of the same convention (``scalar_or_array``: a Python float when every array argument was a scalar).
"""
import numpy as np

from dynamics.numerics import (OdeOptions, as_finite_array, require_choice, require_in_range,
                               require_of_type, require_positive)
from ._results import SignalNoiseStds, StudentInstance

#: The fields of an :class:`~dynamics.numerics.OdeOptions` that the flows set themselves (step budgets, Jacobian,
#: autonomy, stiffness switch): a caller's options keep their defaults there.


def require_broadcast(**arrays):
    """The named arrays broadcast against each other, in the order given; a ValueError naming them (and
    their shapes) if they do not broadcast, instead of numpy's message without names."""
    try:
        return np.broadcast_arrays(*arrays.values())
    except ValueError:
        names = list(arrays)
        listed = ", ".join(names[:-1]) + f" and {names[-1]}"
        shapes = ", ".join(f"{name} {np.shape(value)}" for name, value in arrays.items())
        raise ValueError(f"{listed} must broadcast to one shape (numpy broadcasting), got shapes {shapes}") from None


def scalar_or_array(values, *inputs):
    """``values`` as a Python float when every input was a scalar, else as a float64 array."""
    values = np.asarray(values, dtype=np.float64)
    if all(np.ndim(x) == 0 for x in inputs):
        return float(values.reshape(()))
    return values


def require_std(name, value):
    """A standard deviation in [0, 1e150]: its square (the variance the formulas use) stays finite."""
    return require_in_range(name, value, 0.0, 1e150, why="its square must stay finite in float64")


def require_alpha(alpha):
    """α = P/N > 0."""
    return require_positive("alpha", alpha)


def require_weights(W21, W32):
    """Finite W21 (..., N2, N1) and W32 (..., N3, N2), one network or equally long stacks of them."""
    W21, W32 = as_finite_array("W21", W21), as_finite_array("W32", W32)
    if W21.ndim < 2 or W32.ndim < 2 or W21.ndim != W32.ndim or W32.shape[-1] != W21.shape[-2] \
            or W21.shape[:-2] != W32.shape[:-2]:
        raise ValueError(f"W21 must have shape (..., N2, N1) and W32 shape (..., N3, N2) with the same leading "
                         f"axes, got {W21.shape} and {W32.shape}")
    return W21, W32


def require_one_network(W21, W32):
    """Finite W21 (N2, N1) and W32 (N3, N2) of one network (no stack)."""
    W21, W32 = require_weights(W21, W32)
    if W21.ndim != 2:
        raise ValueError(f"W21 and W32 must be one network (2-dimensional), got shapes {W21.shape}, {W32.shape}")
    return W21, W32


#: How far UᵀU (and VᵀV) may be from the identity, entrywise, for mode bases with "orthonormal columns": far
#: above float64 round-off, loose enough for singular vectors computed in float32 (e.g. by torch), and far below
#: what a wrong matrix (Σ31 itself, unnormalised columns, Vᵀ for V) gives.
ORTHONORMAL_TOLERANCE = 1e-5


def require_mode_factors(U, V, n_outputs=None, n_features=None):
    """Mode bases from a (full or reduced) SVD Σ31 = U S Vᵀ: finite U of shape (N3, k_U) and V of shape (N1, k_V)
    with 1 <= k_U <= N3, 1 <= k_V <= N1 and orthonormal columns (UᵀU = I and VᵀV = I to
    ``ORTHONORMAL_TOLERANCE``); N3 and N1 are checked against ``n_outputs`` and ``n_features`` where given.
    Every ValueError names the parameter at fault and its shape."""
    U, V = as_finite_array("U", U, ndim=2), as_finite_array("V", V, ndim=2)
    for name, basis, rows, units, symbol in (("U", U, n_outputs, "output", "N3"), ("V", V, n_features, "input", "N1")):
        n, k = basis.shape
        if rows is not None and n != rows:
            raise ValueError(f"{name} must have {symbol} = {rows} rows (one per {units} unit of the network; its "
                             f"{units} modes in its columns{'; from numpy.linalg.svd, V = Vh.T' if name == 'V' else ''}"
                             f"), got shape {basis.shape}")
        if not 1 <= k <= n:
            raise ValueError(f"{name} must have between 1 and {symbol} = {n} columns ({units} modes: all of them, "
                             f"or the first k of a reduced SVD), got shape {basis.shape}")
        gap = float(np.max(np.abs(basis.T @ basis - np.eye(k))))
        if not gap <= ORTHONORMAL_TOLERANCE:
            raise ValueError(f"{name} must have orthonormal columns ({name}ᵀ{name} = I to {ORTHONORMAL_TOLERANCE:g}: "
                             f"singular vectors of Σ31, e.g. from numpy.linalg.svd(sigma31, full_matrices=False)"
                             f"{', with V = Vh.T' if name == 'V' else ''}), got shape {basis.shape} with "
                             f"max |{name}ᵀ{name} − I| = {gap:.3g}")
    return U, V


def require_mode_bases(U, V, W21, W32):
    """Mode bases (``require_mode_factors``, full or reduced) that match the network (checked) W21, W32: U with
    N3 = W32.shape[-2] rows, V with N1 = W21.shape[-1] rows."""
    return require_mode_factors(U, V, n_outputs=W32.shape[-2], n_features=W21.shape[-1])


def require_network_data(X, Y, W21, W32):
    """Finite inputs X (N1, P) and targets Y (N3, P) for the network (checked) W21, W32."""
    X, Y = as_finite_array("X", X, ndim=2), as_finite_array("Y", Y, ndim=2)
    if X.shape[0] != W21.shape[-1] or Y.shape != (W32.shape[-2], X.shape[1]):
        raise ValueError(f"X must be N1 × P with N1 = {W21.shape[-1]} and Y N3 × P with N3 = {W32.shape[-2]}, "
                         f"got {X.shape} and {Y.shape}")
    return X, Y


def require_correlations(W21, W32, sigma31, sigma11):
    """One network W21 (N2, N1), W32 (N3, N2) and its correlations Σ31 (N3, N1), Σ11 (N1, N1) (None: I), finite and
    of matching shapes."""
    W21 = as_finite_array("W21", W21, ndim=2)
    W32 = as_finite_array("W32", W32, ndim=2)
    sigma31 = as_finite_array("sigma31", sigma31, ndim=2)
    n2, n1 = W21.shape
    n3 = W32.shape[0]
    sigma11 = np.eye(n1) if sigma11 is None else as_finite_array("sigma11", sigma11, ndim=2)
    for name, arr, shape in (("W32", W32, (n3, n2)), ("sigma31", sigma31, (n3, n1)), ("sigma11", sigma11, (n1, n1))):
        if arr.shape != shape:
            raise ValueError(f"{name} must have shape {shape} (W21 is {W21.shape}, W32 {W32.shape}: W21 (N2, N1), "
                             f"W32 (N3, N2), sigma31 (N3, N1), sigma11 (N1, N1)), got {arr.shape}")
    return W21, W32, sigma31, sigma11


def require_instance(instance):
    """A :class:`dynamics.linear_networks.StudentInstance` (TypeError otherwise)."""
    return require_of_type("instance", instance, StudentInstance, made_by="draw_student")


def require_student_weights(weights, instance):
    """Finite student weights of shape (..., N) for this instance."""
    w = as_finite_array("weights", weights)
    if w.ndim == 0 or w.shape[-1] != instance.n_features:
        raise ValueError(f"weights must have shape (..., N) with N = {instance.n_features}, got {w.shape}")
    return w


def require_flow_options(options, methods, what):
    """The ``method`` (one of ``methods``), ``rtol`` in [1e-15, 1] and ``atol`` > 0 of ``options``, an
    :class:`~dynamics.numerics.OdeOptions` (a TypeError otherwise) whose other fields keep their defaults (a
    ValueError naming the field otherwise: the flow ``what`` sets them itself)."""
    options = require_of_type("options", options, OdeOptions, made_by="dynamics.numerics.OdeOptions")
    method, rtol, atol = options.tolerances(what)
    method = require_choice("method", method, methods)
    rtol = require_in_range("rtol", rtol, 1e-15, 1.0)
    atol = require_in_range("atol", atol, 0.0, np.inf, low_open=True)
    return method, rtol, atol


def require_signal_noise(stds) -> SignalNoiseStds:
    """A :class:`~dynamics.linear_networks.SignalNoiseStds` (a TypeError otherwise) with each standard deviation in
    [0, 1e150] (a ValueError naming the field otherwise)."""
    stds = require_of_type("stds", stds, SignalNoiseStds, made_by="dynamics.linear_networks.stds_at_snr")
    return SignalNoiseStds(require_std("teacher_std", stds.teacher_std), require_std("noise_std", stds.noise_std))
