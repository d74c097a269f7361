"""Shared argument checks and result types of :mod:`dynamics.double_descent`.

Conventions (spec §1): teacher ``y* = zᵀw`` with ``z ~ N(0, I/d)`` and ``‖w‖² = d``; student input ``x = Fᵀz``;
bipartite ``F = U Σ Vᵀ`` with ``σ₁ = 1`` on the ``p`` fast directions and ``σ₂ = 1/κ`` on the ``d − p`` slow ones;
sum-normalised loss ``½Σ(y − ŷ)² + (λ/2)‖ŵ‖²``; order parameters ``R = wᵀFŵ/d``, ``Q = ‖Fŵ‖²/d`` (Eq 4.2.7) and
``L_G = ½(1 − 2R + Q)`` with noiseless test labels (Eq 4.2.6).
"""
from dataclasses import dataclass
from typing import Optional

import numpy as np

from dynamics.numerics import require_choice, require_in_range, require_positive, require_times


@dataclass(frozen=True)
class OrderParameters:
    """Per-group and total teacher–student overlaps and the generalisation error.

    ``R1, R2, Q1, Q2`` are the fast/slow-group parts (None where the group split is not defined, e.g. for a
    general modulation matrix). ``generalization_error`` is ½(1 − 2R + Q) (noiseless test labels; for a
    single teacher draw ½(‖w‖²/d − 2R + Q)); ``noisy_generalization_error`` adds ½σ_ε² (noisy test labels).
    """

    R: np.ndarray
    Q: np.ndarray
    generalization_error: np.ndarray
    noisy_generalization_error: np.ndarray
    R1: Optional[np.ndarray] = None
    R2: Optional[np.ndarray] = None
    Q1: Optional[np.ndarray] = None
    Q2: Optional[np.ndarray] = None


def order_parameters(R, Q, noise, R1=None, R2=None, Q1=None, Q2=None, teacher_power=1.0):
    """Assemble :class:`OrderParameters`; L_G = ½(teacher_power − 2R + Q) (Eq 4.2.6 / its single-draw form).

    Raises ``ValueError`` rather than hand back a non-finite overlap (the last guard of the package's
    no-silent-NaN/inf contract; the argument checks should have refused such inputs first).
    """
    error = 0.5 * (teacher_power - 2.0 * R + Q)
    result = OrderParameters(R, Q, error, error + 0.5 * noise * noise, R1, R2, Q1, Q2)
    for name in ("R", "Q", "generalization_error", "noisy_generalization_error", "R1", "R2", "Q1", "Q2"):
        value = getattr(result, name)
        if value is not None and not np.all(np.isfinite(value)):
            raise ValueError(f"the order parameter {name} is not finite: the inputs (noise={noise!r}, sizes, "
                             f"kappa, ridge or times) overflow float64 or leave the theory's domain")
    return result


# Largest condition number and label-noise sd accepted: κ² and σ² then stay far from float64 overflow, and
# the smallest singular value 1/κ far from underflow.
MAX_KAPPA = 1e100
MAX_NOISE = 1e100


def check_noise(noise):
    """Label-noise sd σ_ε in [0, 1e100]."""
    return require_in_range("noise", noise, 0.0, MAX_NOISE)


def check_times(name, t, allow_zero=True):
    """GD times as a float64 array: finite or +inf, >= 0 (> 0 unless ``allow_zero``)."""
    return require_times(name, t, allow_zero=allow_zero)


def check_noise_ridge(noise, ridge):
    return check_noise(noise), require_positive("ridge", ridge, allow_zero=True)


def check_bipartite(n, d, p, kappa):
    """The bipartite set-up (σ₁ = 1, σ₂ = 1/κ): d > 0, 0 < p < d, 1 <= κ <= 1e100, n > d (spec §2.5 Validity (1))."""
    n, d, p, kappa = check_sizes(n, d, p, kappa)
    if not n > d:
        raise ValueError(f"n must be > d for the bipartite approximation, got n={n:g}, d={d:g}: for n <= d the "
                         f"decoupled formulas count every sample in both groups and give negative Q")
    return n, d, p, kappa


def check_sizes(n, d, p, kappa):
    """n > 0, d > 0, 0 < p < d, 1 <= κ <= 1e100 (any n: the exact ridge oracle also covers n <= d)."""
    d = require_positive("d", d)
    n = require_positive("n", n)
    p = require_in_range("p", p, 0.0, d, low_open=True, high_open=True)
    kappa = require_in_range("kappa", kappa, 1.0, MAX_KAPPA)
    return n, d, p, kappa


def check_dynamics(dynamics):
    return require_choice("dynamics", dynamics, ("gd", "flow"))
