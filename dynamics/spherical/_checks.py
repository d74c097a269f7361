"""Argument checks of :mod:`dynamics.spherical` that are specific to the theory (built on the core helpers).

A radially invariant weight is a nonzero vector (at 0 it has no direction); a learning rate is a positive
float or a schedule k -> η_k; ``betas`` are two numbers in [0, 1); step counts are integers >= 0; gradient norms
on the sphere are >= 0.
"""
import math
import numbers

import numpy as np

from dynamics.numerics import (as_finite_array, format_value, require_array_in_range, require_betas, require_in_range,
                               require_integer, require_positive)

UNIT_TOLERANCE = 1e-10  # how far from 1 the norm of a vector said to be on the sphere may be


def require_weight_vector(name, value) -> np.ndarray:
    """A new 1-D float64 array with finite entries and a nonzero, finite norm."""
    x = as_finite_array(name, value, ndim=1)
    if x.size == 0:
        raise ValueError(f"{name} must hold at least one entry, got an empty array")
    norm = float(np.linalg.norm(x))
    if norm == 0.0:
        raise ValueError(f"{name} must be a nonzero vector (a radially invariant weight has no direction at 0), "
                         f"got the zero vector")
    if not math.isfinite(norm):
        raise ValueError(f"{name} must have a finite norm in float64, got {format_value(norm)}")
    return x


def require_vector_like(name, value, like_name, like) -> np.ndarray:
    """A new finite 1-D float64 array with the shape of ``like``."""
    v = as_finite_array(name, value, ndim=1)
    if v.shape != like.shape:
        raise ValueError(f"{name} must have the shape of {like_name}, {like.shape}, got {v.shape}")
    return v


def require_unit_vector(name, value) -> np.ndarray:
    """A 1-D vector whose norm is 1 within 1e-10 (returned as given, not renormalised)."""
    u = require_weight_vector(name, value)
    norm = float(np.linalg.norm(u))
    if abs(norm - 1.0) > UNIT_TOLERANCE:
        raise ValueError(f"{name} must be a unit vector (| ||{name}|| - 1 | <= {UNIT_TOLERANCE:g}), "
                         f"got norm {norm:.17g}")
    return u


def require_learning_rate(value, name="learning_rate"):
    """A positive float, or a callable schedule k -> η_k (checked when it is evaluated)."""
    if callable(value) and not isinstance(value, (numbers.Real, np.ndarray, np.generic)):
        return value
    return require_positive(name, value)


def require_scheduled_learning_rate(schedule, k, name="learning_rate") -> float:
    """η_k of a float or a schedule, checked: a finite float > 0."""
    if not callable(schedule):
        return schedule
    value = schedule(k)
    try:
        return require_positive(name, value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}({k}) must be a finite float > 0, got {format_value(value)}") from exc


def require_learning_rates(schedule, n_steps, name="learning_rate") -> np.ndarray:
    """η_0..η_{n-1} of a float or a schedule (called on an array of k first, then on each k)."""
    if not callable(schedule):
        return np.full(n_steps, float(schedule))
    values = None
    try:
        trial = schedule(np.arange(n_steps))
        if np.shape(trial) == (n_steps,):
            values = np.asarray(trial, dtype=np.float64)
    except Exception:  # a schedule written for scalars only
        values = None
    if values is None:
        values = np.array([schedule(k) for k in range(n_steps)], dtype=np.float64)
    bad = ~(np.isfinite(values) & (values > 0))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}({k}) must be a finite float > 0, got {format_value(values[k])}")
    return values


def require_momentum(value, name="momentum") -> float:
    """A heavy-ball coefficient γ in [0, 1)."""
    return require_in_range(name, value, 0.0, 1.0, high_open=True)


def require_weight_decay(value, name="weight_decay") -> float:
    """A weight decay λ >= 0."""
    return require_positive(name, value, allow_zero=True)


def require_adam_arguments(learning_rate, betas, eps, weight_decay) -> tuple:
    """The hyper-parameters every Adam variant takes: η > 0, (β₁, β₂) in [0, 1)², ε >= 0 and λ >= 0."""
    return (require_positive("learning_rate", learning_rate), require_betas(betas),
            require_positive("eps", eps, allow_zero=True), require_weight_decay(weight_decay))


def require_decay_product(learning_rate_value, weight_decay_value, what):
    """ηλ < 1: otherwise the decay factor 1 − ηλ is not positive and (H1) fails. A positive λ whose product with η
    underflows to 0 is refused too (the closed forms divide by ηλ)."""
    product = learning_rate_value * weight_decay_value
    if not product < 1.0:
        raise ValueError(f"learning_rate * weight_decay must be < 1 for {what} (hypothesis H1: 1 - ηλ > 0), got "
                         f"{format_value(learning_rate_value)} * {format_value(weight_decay_value)} = "
                         f"{format_value(product)}")
    if weight_decay_value > 0 and product == 0.0:
        raise ValueError(f"learning_rate * weight_decay must be a positive double for {what}, got "
                         f"{format_value(learning_rate_value)} * {format_value(weight_decay_value)}, which underflows "
                         f"to 0")
    return product


def require_steps(steps):
    """Step counts k >= 0: an int, or an integer-valued array; returns (k, whether ``steps`` was a scalar)."""
    if np.ndim(steps) == 0:
        return require_integer("steps", steps, 0), True
    k = require_array_in_range("steps", steps, 0.0)
    if not np.all(k == np.round(k)):
        raise ValueError("steps must hold integer step counts")
    return k, False


def require_rates(name, value, n):
    """A learning rate (float) or n of them, as an array of length n, all > 0."""
    if np.ndim(value) == 0:
        return np.full(n, require_positive(name, value))
    rates = require_array_in_range(name, value, 0.0, low_open=True, ndim=1)
    if rates.shape != (n,):
        raise ValueError(f"{name} must be a float or have shape ({n},) like grad_norms, got {rates.shape}")
    return rates


def require_grad_norms(value, name="grad_norms") -> np.ndarray:
    """Gradient norms on the sphere: a 1-D array of entries >= 0."""
    return require_array_in_range(name, value, 0.0, ndim=1)


def require_radius_recursion_args(r0, learning_rate, grad_norms, weight_decay, what):
    """(r0, g, η, λ) checked for an SGD radius recursion with weight decay: r0 > 0, g >= 0, η > 0 per step,
    λ >= 0 with η_kλ < 1."""
    r0 = require_positive("r0", r0)
    g = require_grad_norms(grad_norms)
    eta = require_rates("learning_rate", learning_rate, g.size)
    lam = require_weight_decay(weight_decay)
    if g.size:
        require_decay_product(float(eta.max()), lam, what)
    return r0, g, eta, lam


def require_second_moment_args(sphere_grad_norms, radii, dimension, betas, weight_decay):
    """(g, r, d, β₁, β₂, λ) checked for Adam's second moment on the sphere: g >= 0 and r > 0 of one shape,
    d >= 1, betas in [0, 1), λ >= 0."""
    g = require_grad_norms(sphere_grad_norms, "sphere_grad_norms")
    r = require_array_in_range("radii", radii, 0.0, low_open=True, ndim=1)
    if r.shape != g.shape:
        raise ValueError(f"radii must have the shape of sphere_grad_norms, {g.shape}, got {r.shape}")
    d = require_integer("dimension", dimension, 1)
    beta1, beta2 = require_betas(betas)
    return g, r, d, beta1, beta2, require_weight_decay(weight_decay)
