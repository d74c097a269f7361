"""Numerical integration of this theory's gradient flows τ y' = f(y) (private).

The flows are integrated in units of τ (time T = t/τ, params with τ = 1), so that a tiny τ neither overflows the
velocity f/τ nor its Jacobian. :func:`dynamics.numerics.solve_ode` with ``method="auto"`` runs DOP853 first; where it
cannot finish within ``EXPLICIT_STEPS`` step attempts the flow has become stiff (its step size is held by stability,
not accuracy: typically the approach to the fixed point after a fast transient, with a tiny τ against t or a large
s or weight), and the L-stable ``rosenbrock23`` continues from the last output time DOP853 reached, with the flow's
Jacobian.

The horizon is limited to 2^52 of the flow's fastest time scales (rate·T <= 2^52, with ``rate`` a bound on the
Jacobian along the flow, in units of 1/τ): beyond it the stiff integration of the approach to a fixed point is no
longer resolved in float64 (the flows are scale invariant, so this is one condition for every scale of s and
the weights), and the request is refused with a ValueError naming the inputs.
"""
import numpy as np

from dynamics.numerics import IntegrationError, OdeOptions, require_choice, require_in_range, solve_ode

EXPLICIT_STEPS = 20_000  # DOP853 step attempts before the switch to rosenbrock23 (the claims' flows take < 5 000)
STIFF_STEPS = 200_000
MAX_HORIZON = 2.0 ** 52
METHODS = ("auto", "rosenbrock23")


def integrate_flow(rhs, jac, y0, t, tau, params, rtol, atol, what, rate, rate_text, method="auto") -> np.ndarray:
    """The states (one row per time in ``t``) of τ y' = rhs(T, y, params) from y0, with ``rhs`` and ``jac`` in units
    of τ (``jac`` None: forward differences); ``t`` is checked output times, ``tau`` > 0; ``rate`` a bound on the
    flow's Jacobian in units of 1/τ (``rate_text`` says how it is formed from the inputs); ``method`` "auto"
    (``solve_ode``'s: DOP853, then rosenbrock23 where the flow turns stiff) or "rosenbrock23" (from the start).
    ValueError if rate·t/τ exceeds 2^52; IntegrationError if the integrators do not reach the last time."""
    method = require_choice("method", method, METHODS)
    rtol = require_in_range("rtol", rtol, 1e-15, 1.0)
    atol = require_in_range("atol", atol, 0.0, np.inf, low_open=True)
    with np.errstate(over="ignore", under="ignore"):
        flow_time = t / tau
    with np.errstate(over="ignore"):
        horizon = rate * flow_time[-1]
    if not (np.isfinite(flow_time[-1]) and horizon <= MAX_HORIZON):
        raise ValueError(f"t and tau: the flow can be integrated over at most 2^52 of its fastest time scales, "
                         f"{rate_text}·t/tau <= 4.5e15, got {rate:.6g}·{t[-1]:g}/{tau:g} = {horizon:.6g} (beyond, float64 "
                         f"does not resolve the stiff approach to the fixed point); reduce t or those inputs, or increase tau")
    if flow_time[-1] == 0.0:  # nothing moves (also when t/τ underflows to 0)
        return np.tile(y0, (t.size, 1))
    span = (0.0, float(flow_time[-1]))
    options = OdeOptions(method=method, rtol=rtol, atol=atol, max_steps=STIFF_STEPS, jac=jac, autonomous=True,
                         stiff_after=EXPLICIT_STEPS)  # stiff_after: read by "auto" only
    result = solve_ode(rhs, span, y0, t_eval=flow_time, params=params, options=options)
    if result.success:
        return result.y
    reached = (result.t[-1] if result.t.size else 0.0) * tau
    gave_up = "dop853 gave up and " if result.method == "dop853+rosenbrock23" else ""
    raise IntegrationError(f"{what}: {gave_up}rosenbrock23 stopped at t = {reached:.6g} ({result.message})")
