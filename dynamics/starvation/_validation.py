"""Argument checks shared by the public functions of :mod:`dynamics.starvation`.

Conventions of spec/starvation.md ("Public API"): U is an (n, n) orthogonal matrix (columns are the
features' weights over the examples), s the n singular values of YΦ_0 (not squared, > 0), λ > 0.
"""
import numpy as np

from dynamics.numerics import (as_finite_array, require_array_in_range, require_in_range,
                               require_positive)

ORTHOGONALITY_TOLERANCE = 1e-10


def check_orthogonal(U, name="U"):
    """A float64 (n, n) matrix with max|UᵀU - I| <= 1e-10."""
    U = as_finite_array(name, U, ndim=2)
    n = U.shape[0]
    if U.shape != (n, n) or n == 0:
        raise ValueError(f"{name} must be a square (n, n) matrix with n >= 1, got shape {U.shape}")
    defect = np.abs(U.T @ U - np.eye(n)).max()
    if defect > ORTHOGONALITY_TOLERANCE:
        raise ValueError(f"{name} must be orthogonal (max|UᵀU - I| <= {ORTHOGONALITY_TOLERANCE:g}), "
                         f"got max|UᵀU - I| = {defect:.3g}")
    return np.ascontiguousarray(U)


def check_strengths(s, n=None, name="s"):
    """The singular values s_j > 0 (1-D, length n when n is given)."""
    s = require_array_in_range(name, s, 0.0, np.inf, low_open=True, ndim=1)
    if s.size == 0:
        raise ValueError(f"{name} must hold at least one singular value, got an empty array")
    if n is not None and s.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},) to match U, got {s.shape}")
    return s


def check_lambda(lam, name="lam"):
    """λ > 0 and finite."""
    return require_positive(name, lam)


def check_delta(delta, name="delta"):
    """The Eq 15 coupling δ in the open interval (-1, 1)."""
    return require_in_range(name, delta, -1.0, 1.0, low_open=True, high_open=True)


def check_ratio(s, lam, s_name="s"):
    """s_j²/λ must not overflow float64: every closed form and the dual matrices are built from it."""
    with np.errstate(over="ignore"):
        ratio = np.square(s) / lam
    if not np.all(np.isfinite(ratio)):
        raise ValueError(f"{s_name} and lam: {s_name}_j²/λ must be finite in float64 (<= 1.8e308), got overflow "
                         f"for max {s_name} = {np.max(s):.3g} with lam = {lam:.3g}")
    return ratio


def check_problem(U, s, lam):
    U = check_orthogonal(U)
    s, lam = check_strengths(s, U.shape[0]), check_lambda(lam)
    check_ratio(s, lam)
    return U, s, lam


def check_finite_result(value, name, why):
    """Raise ValueError naming the input ``name`` when a result is not finite (e.g. float64 overflow)."""
    if not np.all(np.isfinite(value)):
        raise ValueError(f"{name}: the result is not finite in float64 ({why})")
    return value


def check_alpha(alpha, n, exact, name="alpha0"):
    """A dual point of length n in (0, 1) (Eqs 9, 18) or (0, inf) (Eq 10)."""
    high = 1.0 if exact else np.inf
    alpha = require_array_in_range(name, alpha, 0.0, high, low_open=True, high_open=True, ndim=1)
    if alpha.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {alpha.shape}")
    return alpha


def check_times(t_eval, name="t_eval"):
    """1-D, finite, >= 0 and non-decreasing output times."""
    t = require_array_in_range(name, t_eval, 0.0, np.inf, ndim=1)
    if t.size == 0:
        raise ValueError(f"{name} must hold at least one time, got an empty array")
    if np.any(np.diff(t) < 0):
        raise ValueError(f"{name} must be non-decreasing, got a decrease at index "
                         f"{int(np.flatnonzero(np.diff(t) < 0)[0]) + 1}")
    return t


def check_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)
