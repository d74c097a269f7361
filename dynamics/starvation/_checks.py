"""Argument checks that belong to the gradient-starvation theory, built on :mod:`dynamics.numerics`.

The package's conventions (the theory note, docs/theory/starvation.md): U is an (n, n) orthogonal matrix (columns are
the features' weights over the examples), s the n singular values of YΦ_0 (not squared, > 0), and the penalty
coefficient (``weight_decay`` λ of Eq 5 or ``output_penalty`` a of Eq 17) is > 0. The generic checks (booleans,
orthogonality, output times, finite results) are the core's; what is here is the theory's: the strengths, the coupling δ
of Eq 15, the float64 range of s²/λ, the domain of a dual point, the choice between the two penalties, the stable
learning rate and the data of the primal problem.
"""
import numpy as np

from dynamics.numerics import (as_finite_array, require_array_in_range, require_bool, require_in_range,
                               require_orthogonal, require_positive, require_shape)


def require_strengths(s, n=None, name="s") -> np.ndarray:
    """The singular values s_j > 0 (1-D; length n when n is given, to match U)."""
    s = require_array_in_range(name, s, 0.0, np.inf, low_open=True, ndim=1)
    if s.size == 0:
        raise ValueError(f"{name} must hold at least one singular value, got an empty array")
    if n is not None and s.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},) to match U of shape ({n}, {n}), got {s.shape}")
    return s


def require_strengths_any_shape(s, name="s") -> np.ndarray:
    """Strengths s > 0 of any shape (the uncoupled closed forms act element-wise)."""
    return require_array_in_range(name, s, 0.0, np.inf, low_open=True)


def require_delta(delta, name="delta") -> float:
    """The Eq 15 coupling δ in the open interval (-1, 1)."""
    return require_in_range(name, delta, -1.0, 1.0, low_open=True, high_open=True)


def require_finite_ratio(s, penalty, s_name="s", penalty_name="weight_decay") -> np.ndarray:
    """s_j²/λ, which every closed form and dual matrix is built from, must be finite in float64; returns it."""
    with np.errstate(over="ignore"):
        ratio = np.square(s) / penalty
    if not np.all(np.isfinite(ratio)):
        raise ValueError(f"{s_name} and {penalty_name}: {s_name}_j²/{penalty_name} must be finite in float64 "
                         f"(<= 1.8e308), got an overflow for max {s_name} = {np.max(s):.3g} with "
                         f"{penalty_name} = {penalty:.3g}")
    return ratio


def require_invertible_penalty(penalty, name) -> float:
    """A penalty a > 0 whose inverse 1/a is finite (the SD fixed point and flow use 1/a)."""
    penalty = require_positive(name, penalty)
    if not np.isfinite(1.0 / penalty):
        raise ValueError(f"{name} must be >= 1/1.8e308 so that 1/{name} is finite in float64, got {penalty:.3g}")
    return penalty


def require_problem(U, s, weight_decay, penalty_name="weight_decay"):
    """(U, s, λ): U orthogonal (n, n), s of shape (n,) with s > 0, λ > 0, s²/λ finite."""
    U = require_orthogonal("U", U)
    s = require_strengths(s, U.shape[0])
    weight_decay = require_positive(penalty_name, weight_decay)
    require_finite_ratio(s, weight_decay, penalty_name=penalty_name)
    return U, s, weight_decay


def require_two_features(s, weight_decay, delta):
    """(s², λ, δ) of the two-feature model of Eq 15: s of shape (2,), λ > 0, s²/λ finite, δ in (-1, 1)."""
    s = require_strengths(s, 2)
    weight_decay = require_positive("weight_decay", weight_decay)
    require_finite_ratio(s, weight_decay)
    return s * s, weight_decay, require_delta(delta)


def require_dual_point(alpha, n, exact, name="alpha0") -> np.ndarray:
    """A dual point of length n in (0, 1) (Eqs 9, 18) or (0, inf) (Eq 10)."""
    high = 1.0 if exact else np.inf
    alpha = require_array_in_range(name, alpha, 0.0, high, low_open=True, high_open=True, ndim=1)
    return require_shape(name, alpha, (n,))


def require_one_penalty(weight_decay, output_penalty):
    """Exactly one of the two penalties: returns (value, name, spectral_decoupling).

    ``weight_decay`` is λ of (λ/2)‖θ‖² (Eq 5, cross-entropy with L2); ``output_penalty`` is a of
    (a/2)‖ŷ‖² (Eq 17, Spectral Decoupling)."""
    if (weight_decay is None) == (output_penalty is None):
        given = "both were given" if weight_decay is not None else "neither was given"
        raise ValueError(f"give exactly one of weight_decay (λ of the L2 penalty (λ/2)‖θ‖², Eq 5) and "
                         f"output_penalty (a of Spectral Decoupling's (a/2)‖ŷ‖², Eq 17), each > 0; {given}")
    if weight_decay is not None:
        return require_positive("weight_decay", weight_decay), "weight_decay", False
    return require_invertible_penalty(output_penalty, "output_penalty"), "output_penalty", True


def require_flow(U, s, weight_decay, output_penalty, exact):
    """Validated (U, s, penalty, spectral_decoupling, exact) of a dual flow (Eq 9, 10, 18 or its approximation)."""
    penalty, name, sd = require_one_penalty(weight_decay, output_penalty)
    U, s, penalty = require_problem(U, s, penalty, penalty_name=name)
    return U, s, penalty, sd, require_bool("exact", exact)


def require_learning_rate(learning_rate, bound, spectral_decoupling) -> float:
    """A learning rate η in (0, 2/L), with ``bound`` = 2/L from :func:`~dynamics.starvation.learning_rate_bound`."""
    learning_rate = require_positive("learning_rate", learning_rate)
    if not learning_rate < bound:
        curvature = "max(s)²(1/4 + output_penalty)" if spectral_decoupling else "weight_decay + max(s)²/4"
        raise ValueError(f"learning_rate must be < 2/L = {bound:.6g}, with L = {curvature} = {2.0 / bound:.6g} the "
                         f"largest curvature of the loss (σ' <= 1/4); above it gradient descent oscillates or "
                         f"diverges; got learning_rate = {learning_rate:.6g}")
    return learning_rate


def require_primal_data(Phi0, y):
    """(Φ_0, y) of the primal problem: Φ_0 (n, m) finite with m >= n, y (n,) of labels in {-1, +1}."""
    Phi0 = as_finite_array("Phi0", Phi0, ndim=2)
    y = require_shape("y", as_finite_array("y", y, ndim=1), (Phi0.shape[0],))
    if not np.all(np.abs(y) == 1.0):
        raise ValueError("y must hold labels in {-1, +1}")
    if Phi0.shape[1] < Phi0.shape[0]:
        raise ValueError(f"Phi0 must have at least as many columns (parameters) as rows (examples), got {Phi0.shape}")
    return Phi0, y
