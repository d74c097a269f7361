"""Figures of the numerics core: the integrators' convergence orders and work–precision."""
import numpy as np

from dynamics.lazy import lazy_module
from .registry import figure
from .style import COLORS, new_figure

nx = lazy_module("dynamics.numerics")
rp = lazy_module("dynamics.numerics.reference_problems")

_ORDERS = {"rosenbrock23": 2, "rk4": 4, "dopri5": 5, "dop853": 8}


@figure("numerics.ode_convergence", "Hairer et al. 1993, §§II.4–II.10",
        "Left: global error of the fixed-step integrators on the logistic equation against the step size, "
        "with reference slopes h^2, h^4, h^5, h^8 (dashed). Right: work–precision of the adaptive pairs on 20 coupled "
        "(rotated logistic) states, ours against scipy.integrate.solve_ivp with the same method and tolerances "
        "(rtol from 1e-3 to 1e-12): the same accuracy for the same number of right-hand-side evaluations.")
def ode_convergence(n_states=20, rtols=tuple(np.geomspace(1e-3, 1e-12, 10))):
    fig, (left, right) = new_figure(1, 2, width=8.0, height=3.3)
    for color, (method, order) in zip(COLORS[3:4] + COLORS, _ORDERS.items()):
        counts = np.unique(np.geomspace(5 if method == "dop853" else 10, 400, 14).astype(int))
        steps, errors = rp.fixed_step_errors(method, counts)
        keep = errors > 1e-14  # round-off floor
        left.loglog(steps[keep], errors[keep], "o-", color=color, ms=3,
                    label=f"{method} (fit {rp.convergence_order(steps[keep][-5:], errors[keep][-5:]):.2f})")
        anchor = np.flatnonzero(keep)[len(np.flatnonzero(keep)) // 2]
        left.loglog(steps, errors[anchor] * (steps / steps[anchor]) ** order, "--", color=color, lw=0.8)
    left.set(xlabel="step size h", ylabel="max global error", title="fixed steps: order", ylim=(1e-15, 1e3))
    left.legend(loc="upper left")

    from scipy import integrate  # here: scipy.integrate takes a quarter second to import, and --list needs none

    y0, params, exact = rp.rotated_logistic_problem(n_states, seed=1)
    t_eval = np.linspace(0.0, 8.0, 41)
    reference = exact(t_eval)
    for color, (ours, theirs) in zip(COLORS[1:], (("dopri5", "RK45"), ("dop853", "DOP853"))):
        mine, scipy_ = [], []
        for rtol in rtols:
            sol = nx.solve_ode(rp.rotated_logistic_rhs, (0.0, 8.0), y0, t_eval=t_eval, params=params,
                               options=nx.OdeOptions(method=ours, rtol=rtol, atol=rtol * 1e-2)).check()
            mine.append((sol.nfev, np.abs(sol.y - reference).max()))
            ivp = integrate.solve_ivp(lambda t, y: rp.rotated_logistic_rhs(t, y, params), (0.0, 8.0), y0,
                                      method=theirs, t_eval=t_eval, rtol=rtol, atol=rtol * 1e-2)
            scipy_.append((ivp.nfev, np.abs(ivp.y.T - reference).max()))
        right.loglog(*np.array(mine).T, "o-", color=color, ms=3, label=f"ours {ours}")
        right.loglog(*np.array(scipy_).T, "x:", color=color, ms=5, label=f"solve_ivp {theirs}")
    right.set(xlabel="right-hand-side evaluations", ylabel="max error vs exact", title="adaptive: work–precision")
    right.legend()
    return fig
