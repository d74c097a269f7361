"""Argument checks that belong to the gradient-starvation theory, built on :mod:`dynamics.numerics`.

Conventions of spec/starvation.md ("Public API"): U is an (n, n) orthogonal matrix (columns are the
features' weights over the examples), s the n singular values of YΦ_0 (not squared, > 0), and the
penalty coefficient (``weight_decay`` λ of Eq 5 or ``output_penalty`` a of Eq 17) is > 0. The generic
checks (booleans, orthogonality, output times, finite results) are the core's; what is here is the
theory's: the strengths, the coupling δ of Eq 15, the float64 range of s²/λ, the domain of a dual point,
and the choice between the two penalties.
"""
import numpy as np

from dynamics.numerics import (require_array_in_range, require_in_range, require_orthogonal, require_positive,
                               require_shape)


def check_strengths(s, n=None, name="s") -> np.ndarray:
    """The singular values s_j > 0 (1-D; length n when n is given, to match U)."""
    s = require_array_in_range(name, s, 0.0, np.inf, low_open=True, ndim=1)
    if s.size == 0:
        raise ValueError(f"{name} must hold at least one singular value, got an empty array")
    if n is not None and s.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},) to match U of shape ({n}, {n}), got {s.shape}")
    return s


def check_delta(delta, name="delta") -> float:
    """The Eq 15 coupling δ in the open interval (-1, 1)."""
    return require_in_range(name, delta, -1.0, 1.0, low_open=True, high_open=True)


def check_ratio(s, penalty, s_name="s", penalty_name="weight_decay") -> np.ndarray:
    """s_j²/λ, which every closed form and dual matrix is built from, must be finite in float64."""
    with np.errstate(over="ignore"):
        ratio = np.square(s) / penalty
    if not np.all(np.isfinite(ratio)):
        raise ValueError(f"{s_name} and {penalty_name}: {s_name}_j²/{penalty_name} must be finite in float64 "
                         f"(<= 1.8e308), got an overflow for max {s_name} = {np.max(s):.3g} with "
                         f"{penalty_name} = {penalty:.3g}")
    return ratio


def check_inverse(penalty, name) -> float:
    """A penalty a > 0 whose inverse 1/a is finite (the SD fixed point and flow use 1/a)."""
    penalty = require_positive(name, penalty)
    if not np.isfinite(1.0 / penalty):
        raise ValueError(f"{name} must be >= 1/1.8e308 so that 1/{name} is finite in float64, got {penalty:.3g}")
    return penalty


def check_problem(U, s, weight_decay, penalty_name="weight_decay"):
    """(U, s, λ): U orthogonal (n, n), s of shape (n,) with s > 0, λ > 0, s²/λ finite."""
    U = require_orthogonal("U", U)
    s = check_strengths(s, U.shape[0])
    weight_decay = require_positive(penalty_name, weight_decay)
    check_ratio(s, weight_decay, penalty_name=penalty_name)
    return U, s, weight_decay


def check_alpha(alpha, n, exact, name="alpha0") -> np.ndarray:
    """A dual point of length n in (0, 1) (Eqs 9, 18) or (0, inf) (Eq 10)."""
    high = 1.0 if exact else np.inf
    alpha = require_array_in_range(name, alpha, 0.0, high, low_open=True, high_open=True, ndim=1)
    return require_shape(name, alpha, (n,))


def choose_penalty(weight_decay, output_penalty):
    """Exactly one of the two penalties: returns (value, name, spectral_decoupling).

    ``weight_decay`` is λ of (λ/2)‖θ‖² (Eq 5, cross-entropy with L2); ``output_penalty`` is a of
    (a/2)‖ŷ‖² (Eq 17, Spectral Decoupling)."""
    if (weight_decay is None) == (output_penalty is None):
        given = "both were given" if weight_decay is not None else "neither was given"
        raise ValueError(f"give exactly one of weight_decay (λ of the L2 penalty (λ/2)‖θ‖², Eq 5) and "
                         f"output_penalty (a of Spectral Decoupling's (a/2)‖ŷ‖², Eq 17), each > 0; {given}")
    if weight_decay is not None:
        return require_positive("weight_decay", weight_decay), "weight_decay", False
    return check_inverse(output_penalty, "output_penalty"), "output_penalty", True
