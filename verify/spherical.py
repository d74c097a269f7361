"""Claims of the spherical view of normalised networks (Roburin et al. 2022; Roburin (thesis), Chapter 3 and its
appendices): its identities, bounds, limits and theorems, and the errata the project found in the thesis.

Every claim compares two independent routes: an optimizer stepping the Euclidean weights (numpy objects or
the compiled loop of ``simulate``) against the thesis's closed form or spherical recursion evaluated here or by
the library's closed-form functions; analytic gradients against finite differences of the loss; closed forms
against mpmath. Exact identities are held to float64 round-off (a few hundred ulps accumulated over the
steps); deterministic envelopes say so; the random-walk equilibrium is held to its batch-means standard error
with a Bonferroni factor, plus the order of the leading-order model's neglected terms.
"""
import math

import numpy as np

import dynamics.spherical as sph
from .registry import Check, claim, lazy_module, planted_bug, relative_error
from .symbolic import EPS, derivation, library_against_symbols, printed_misses, residual_zero, spread
from .symbolic import symbolic_result as _symbolic_result  # noqa: E402

mpmath = lazy_module("mpmath")
sp = lazy_module("sympy")
stats = lazy_module("scipy.stats")



def _z(m, level=1e-4):
    """Two-sided Bonferroni z for m comparisons at family-wise level 1e-4."""
    return float(stats.norm.isf(0.5 * level / m))


def _inside(value, lower, upper, slack, what):
    """An exact sandwich lower <= value <= upper as one Check: the worst relative violation (negative while the
    bounds hold; its size is the closest approach) held to the round-off ``slack``."""
    value = np.asarray(value, dtype=float)
    violation = max(float(np.max(np.asarray(lower) / value - 1)), float(np.max(value / np.asarray(upper) - 1)))
    return Check.at_most(violation, slack, f"{what}: worst relative violation {violation:.3g}")


def _symmetric(rng, d):
    A = rng.standard_normal((d, d))
    return 0.5 * (A + A.T)


def _losses(rng, d=12):
    """One of each synthetic radially invariant loss, with random data."""
    return {"Rayleigh": sph.RayleighLoss(_symmetric(rng, d), noise_std=0.3, seed=rng),
            "random linear": sph.RandomLinearLoss.stream(d, seed=rng),
            "BN probe": sph.BNLinearProbe(rng.standard_normal((2, 16, d)), np.sign(rng.standard_normal((2, 16))),
                                         readout=1.5, bias=0.2),
            "WN logistic": sph.WNLogistic(rng.standard_normal((40, d)), np.sign(rng.standard_normal(40)), 2.0)}


def _fd_grad(loss, x, k, h=1e-6):
    """Central finite differences of the loss value (step h·‖x‖)."""
    step = h * np.linalg.norm(x)
    out = np.empty_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = step
        out[i] = (loss.value(x + e, k) - loss.value(x - e, k)) / (2 * step)
    return out


def _run(optimizer, loss, x0, n_steps):
    """Step the numpy optimizer; return the weights x_0..x_n, gradients, generic forms and state snapshots."""
    xs, grads, forms, states = [np.asarray(x0, float)], [], [], []
    x = xs[0]
    for k in range(n_steps):
        g = loss.grad(x, k)
        states.append({key: (value.copy() if isinstance(value, np.ndarray) else value)
                       for key, value in optimizer.state.items()})
        x = optimizer.step(x, g)
        grads.append(g)
        forms.append(optimizer.last_generic_form)
        xs.append(x)
    return np.array(xs), np.array(grads), forms, states


# ---------------------------------------------------------------- Lemma 1 and its erratum
@claim("spherical.lemma1_gradient_identities", "Roburin (thesis), Lemma 1, Eq 3.2; App. A",
       "On the four synthetic radially invariant losses (d = 12, random data and points): the analytic gradient matches "
       "central finite differences of the loss (1e-6 relative, the truncation and round-off of the difference), "
       "|⟨∇L(x),x⟩| <= 1e-13‖∇L(x)‖‖x‖, ∇L(ρx) = ∇L(x)/ρ for ρ in {1e-3, 1, 1e3} (1e-13 relative), and the "
       "finite-difference Hessian satisfies ∇²L(x)x = −∇L(x) (1e-6 relative). Both finite-difference errors fall "
       "at the rate 2 of a central difference over the ladder of relative steps h = 1e-2·2^{−j}, j = 0..4 "
       "(errors 1e-4 to 1e-7, far above the round-off ε/h): an analytic gradient or Hessian off by any fixed "
       "amount would level the ladder off. A weight-normalised logistic loss on a single sample s (label t, γ = 2) "
       "equals log(1 + e^{−m}) and its gradient −(γ/r)t(s − ⟨s,u⟩u)/(1 + e^{m}), m = tγ⟨s,u⟩, written out "
       "(rel 1e-13, round-off).", "identity", stochastic=True)
def lemma1_gradient_identities(run):
    rng = run.rng(101)
    checks = []
    for name, loss in _losses(rng).items():
        for k in (0, 3):
            x = rng.standard_normal(loss.dimension) * rng.uniform(0.5, 3.0)
            g = loss.grad(x, k)
            scale = np.linalg.norm(g)
            checks.append(Check.at_most(np.abs(g - _fd_grad(loss, x, k)).max() / scale, 1e-6,
                                        f"{name}: analytic vs finite-difference gradient"))
            checks.append(Check.at_most(abs(g @ x) / (scale * np.linalg.norm(x)), 1e-13, f"{name}: <∇L(x), x>"))
            for rho in (1e-3, 1.0, 1e3):
                checks.append(Check.at_most(np.abs(loss.grad(rho * x, k) * rho - g).max() / scale, 1e-13,
                                            f"{name}: ρ∇L(ρx) = ∇L(x) at ρ = {rho:g}"))
            h = 1e-5
            hessian_x = (loss.grad(x * (1 + h), k) - loss.grad(x * (1 - h), k)) / (2 * h)  # ∇²L(x)x
            checks.append(Check.at_most(np.abs(hessian_x + g).max() / scale, 1e-6, f"{name}: ∇²L(x)x = −∇L(x)"))
        # the central differences' truncation error, O(h²), on a ladder of steps
        x = rng.standard_normal(loss.dimension) * rng.uniform(0.5, 3.0)
        g = loss.grad(x, 3)
        scale = np.linalg.norm(g)
        steps = 1e-2 * 0.5 ** np.arange(5)
        grad_errors = [np.abs(g - _fd_grad(loss, x, 3, h)).max() / scale for h in steps]
        hessian_errors = [np.abs((loss.grad(x * (1 + h), 3) - loss.grad(x * (1 - h), 3)) / (2 * h) + g).max() / scale
                          for h in steps]
        checks += [Check.rate(steps, grad_errors, 2.0, detail=f"{name}: finite-difference gradient, rate h²"),
                   Check.rate(steps, hessian_errors, 2.0, detail=f"{name}: finite-difference ∇²L(x)x, rate h²")]
    # one sample: the loss and its gradient written out
    sample, label, x = rng.standard_normal(12), -1.0, rng.standard_normal(12) * 2.0
    single = sph.WNLogistic(sample[None, :], [label], 2.0)
    r = np.linalg.norm(x)
    u = x / r
    m = label * 2.0 * (sample @ u)
    direct = -(2.0 / r) * label * (sample - (sample @ u) * u) / (1.0 + math.exp(m))
    checks += [Check.at_most(abs(single.value(x) / math.log1p(math.exp(-m)) - 1), 1e-13, "one sample: loss value"),
               Check.at_most(np.abs(single.grad(x) - direct).max() / np.linalg.norm(direct), 1e-13,
                             "one sample: gradient")]
    return Check.all_of(checks)


@claim("spherical.erratum_lemma1_appendix_a", "Roburin (thesis), App. A, Eq A.1",
       "App. A's proof of Lemma 1 starts from ∇L(x) = ∇L(ρx) (A.1), which contradicts (A.2): with gradients "
       "taken by central finite differences of the loss values (independent of the analytic gradients), the "
       "printed relation misses by |1 − 1/ρ| (> 0.3 at ρ in {0.5, 2, 10}) on every synthetic loss, while the "
       "chain-rule form ∇L(x) = ρ∇L(ρx) holds to 1e-6 (the finite differences' error).", "erratum",
       stochastic=True, printed="∇L(x) = ∇L(ρx)  (A.1)", corrected="∇L(x) = ρ∇L(ρx)  (chain rule on x ↦ L(ρx))",
       printed_math=r"\nabla L(x) = \nabla L(\rho x)",
       corrected_math=r"\nabla L(x) = \rho \nabla L(\rho x) \quad (\text{chain rule on } x \mapsto L(\rho x))")
def erratum_lemma1_appendix_a(run):
    rng = run.rng(102)
    printed, corrected = [], []
    for loss in _losses(rng).values():
        x = rng.standard_normal(loss.dimension)
        g = _fd_grad(loss, x, 1)
        scale = np.abs(g).max()
        for rho in (0.5, 2.0, 10.0):
            g_rho = _fd_grad(loss, rho * x, 1)
            printed.append(np.abs(g - g_rho).max() / scale)
            corrected.append(np.abs(g - rho * g_rho).max() / scale)
    return Check.erratum(min(printed), max(corrected), 1e-6, reject_above=0.3,
                         detail=f"smallest printed-form error {min(printed):.3g}")


# ---------------------------------------------------------------- Pythagorean growth
@claim("spherical.pythagorean_growth", "Roburin (thesis), Eqs 3.25, 3.29, 3.46",
       "Plain SGD (λ = 0) with a random schedule η_k on the Rayleigh, BN-probe and WN-logistic losses, 300 steps: "
       "‖x_{k+1}‖² − ‖x_k‖² = η_k²‖∇L(x_k)‖² (to rtol 1e-12 plus the round-off 2ε(r_k² + r_{k+1}²) that the "
       "difference of the stored squared norms inherits), r is non-decreasing, r_k = r₀Π_{i<k} sec θ_i with the atan2 angles "
       "(rtol 1e-12), the compiled simulate (its own gradient kernels) gives the numpy optimizer's radii "
       "(rtol 1e-12), and the radius equals sgd_radius_sequence from the recorded gradient norms, also with "
       "weight decay λ = 0.05 (rtol 1e-12), where each step's r² also equals the one-step map sgd_l2_radius_map "
       "(Table 3.1, SGD + L2; rtol 1e-12).", "identity", stochastic=True)
def pythagorean_growth(run):
    rng = run.rng(103)
    losses = _losses(rng)
    checks = []
    for name in ("Rayleigh", "BN probe", "WN logistic"):
        loss = losses[name]
        x0 = rng.standard_normal(loss.dimension)
        rates = rng.uniform(0.05, 0.3, 300)
        xs, grads, _, _ = _run(sph.SGD(lambda k: rates[k]), loss, x0, 300)
        r2 = np.sum(xs ** 2, axis=1)
        increments = rates ** 2 * np.sum(grads ** 2, axis=1)
        # the stored squared norms carry round-off ~2ε r², which the difference of two of them inherits
        allowance = 1e-12 * increments + 2 * np.finfo(float).eps * (r2[:-1] + r2[1:])
        checks.append(Check.at_most(float(np.max(np.abs(np.diff(r2) - increments) / allowance)), 1.0,
                                    f"{name}: Pythagorean increments (error / allowance)"))
        checks.append(Check.at_least(float(np.diff(r2).min()), 0.0, f"{name}: r non-decreasing"))
        thetas = np.array([sph.angle_between(a, b) for a, b in zip(xs[:-1], xs[1:])])
        product = np.linalg.norm(x0) * np.concatenate([[1.0], np.cumprod(1.0 / np.cos(thetas))])
        checks.append(Check.at_most(relative_error(product, np.sqrt(r2)), 1e-12, f"{name}: r_k = r_0 Π sec θ_i"))
        for lam in (0.0, 0.05):
            trajectory = sph.simulate(sph.SGD(lambda k: rates[k], weight_decay=lam), loss, x0, 300)
            recursion = sph.sgd_radius_sequence(np.linalg.norm(x0), rates, trajectory.sphere_grad_norm, lam)
            if lam == 0.0:  # the compiled losses' gradients against the numpy ones (held to finite differences)
                checks.append(Check.at_most(relative_error(trajectory.radius, np.sqrt(r2)), 1e-12,
                                            f"{name}: compiled simulate vs the numpy optimizer, radius"))
            checks.append(Check.at_most(relative_error(trajectory.radius, recursion), 1e-12,
                                        f"{name}: simulated radius vs the exact recursion, λ = {lam:g}"))
            if lam > 0:  # the one-step map of SGD + L2, r_{k+1}² = (1 − ηλ)² r_k² + η² g_k² / r_k²
                s = trajectory.radius ** 2
                mapped = np.array([sph.sgd_l2_radius_map(s[k], rates[k], lam, trajectory.sphere_grad_norm[k])
                                   for k in range(300)])
                checks.append(Check.at_most(relative_error(s[1:], mapped), 1e-12,
                                            f"{name}: simulated r² vs sgd_l2_radius_map, λ = {lam:g}"))
    return Check.all_of(checks)


# ---------------------------------------------------------------- Theorem 2, one step, every scheme
def _schemes():
    return {"SGD": sph.SGD(0.05), "SGD+L2": sph.SGD(0.05, weight_decay=0.1),
            "SGD-M": sph.SGD(0.02, momentum=0.9), "SGD-M+L2": sph.SGD(0.02, momentum=0.9, weight_decay=0.1),
            "SGD-M RT": sph.SGDMRT(0.02, momentum=0.9, weight_decay=0.1),
            "Adam": sph.Adam(0.01), "Adam+L2": sph.Adam(0.01, weight_decay=0.1),
            "Adam (eps inside sqrt)": sph.Adam(0.01, eps=1e-10, eps_inside_sqrt=True, weight_decay=0.1),
            "Adam (eps > 0)": sph.Adam(0.01, eps=1e-3, weight_decay=0.1),
            "AdamW": sph.AdamW(0.01, weight_decay=0.1), "AdaGrad+L2": sph.AdaGrad(0.05, weight_decay=0.1),
            "AdamS": sph.AdamS(0.01, weight_decay=0.1), "AdamST": sph.AdamST(0.01, weight_decay=0.1),
            "AdamSRT": sph.AdamSRT(0.01, weight_decay=0.1), "AdamSRT (eps > 0)": sph.AdamSRT(0.01, eps=1e-3),
            "AdaGradG": sph.AdaGradG(0.3, 0.99, 2.0), "AdamG": sph.AdamG(0.01, eps=1e-8)}


@claim("spherical.theorem2_one_step", "Roburin (thesis), Theorem 2, Eqs 3.21-3.35",
       "For 17 schemes (SGD, SGD+L2, SGD-M(+L2), SGD-M RT, Adam(+L2, ε inside √, ε > 0 outside), AdamW, AdaGrad+L2, "
       "AdamS/ST/SRT (ε = 0 and ε > 0), AdaGradG, AdamG), 40 steps each on a Rayleigh loss with noise: the optimizer's x_{k+1} "
       "equals r_{k+1}u_{k+1} of spherical_step (Eqs 3.24-3.25) built from (A_k, c_k, η_k^e) of its generic form "
       "(direction atol 1e-13, radius rtol 1e-12), the angle between u_k and u_{k+1} is arctan(η^e‖c⊥‖) (atol "
       "1e-13), and u_{k+1} = Exp_{u_k}(−arctan(η^e‖c⊥‖)c⊥/‖c⊥‖) (atol 1e-13). The compiled simulate of each "
       "scheme (its own kernels) gives the numpy optimizer's radii (rtol 1e-12), step angles (atol 1e-12) and "
       "effective learning rates (rtol 1e-12).",
       "identity", stochastic=True)
def theorem2_one_step(run):
    rng = run.rng(104)
    d = 10
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng)
    x0 = rng.standard_normal(d)
    checks = []
    for name, opt in _schemes().items():
        start = x0 / np.linalg.norm(x0) if name == "AdaGradG" else x0
        xs, _, forms, _ = _run(opt, loss, start, 40)
        du = dr = dangle = dexp = 0.0
        effective = []
        for x, x_next, form in zip(xs[:-1], xs[1:], forms):
            step = sph.spherical_step(x, form.a, form.b, form.learning_rate, decay=form.decay)
            effective.append(step.effective_learning_rate)
            r_next = np.linalg.norm(x_next)
            du = max(du, np.abs(step.u_next - x_next / r_next).max())
            dr = max(dr, abs(step.r_next / r_next - 1))
            u = x / np.linalg.norm(x)
            c_perp = step.c - (step.c @ u) * u
            theta = math.atan(step.effective_learning_rate * np.linalg.norm(c_perp))
            dangle = max(dangle, abs(theta - sph.angle_between(x, x_next)))
            direction = c_perp / np.linalg.norm(c_perp)
            dexp = max(dexp, np.abs(sph.exp_map(u, -theta * direction) - x_next / r_next).max())
        # the compiled simulation of the same scheme (its own kernels) against the numpy optimizer
        compiled = sph.simulate(_schemes()[name], loss, start, 40)
        angles = [sph.angle_between(a, b) for a, b in zip(xs[:-1], xs[1:])]
        checks += [Check.at_most(du, 1e-13, f"{name}: direction"), Check.at_most(dr, 1e-12, f"{name}: radius"),
                   Check.at_most(dangle, 1e-13, f"{name}: angle = arctan z"),
                   Check.at_most(dexp, 1e-13, f"{name}: exact exponential map"),
                   Check.at_most(relative_error(compiled.radius, np.linalg.norm(xs, axis=1)), 1e-12,
                                 f"{name}: compiled simulate vs numpy, radius"),
                   Check.at_most(float(np.abs(compiled.angle - angles).max()), 1e-12,
                                 f"{name}: compiled simulate vs numpy, angle"),
                   Check.at_most(relative_error(compiled.effective_learning_rate, np.array(effective)), 1e-12,
                                 f"{name}: compiled simulate vs numpy, η^e of Theorem 2")]
    return Check.all_of(checks)


# ---------------------------------------------------------------- SGD on x ≡ spherical scheme on u
def _spherical_scheme(loss, x0, learning_rate, weight_decay, momentum, n_steps):
    """The thesis's scheme on (u, r, c) (Eqs 3.24-3.25, 3.52): c_k = β(r_k/r_{k−1})c_{k−1} + ∇L(u_k) + λr_k²u_k."""
    r = float(np.linalg.norm(x0))
    u = x0 / r
    c, r_prev = None, None
    us, rs = [u], [r]
    for k in range(n_steps):
        c_new = loss.grad(u, k) + weight_decay * r * r * u
        c = c_new if c is None else c_new + momentum * (r / r_prev) * c
        A = learning_rate / (r * r)
        radial = float(c @ u)
        effective = A / (1.0 - A * radial)
        c_perp = c - radial * u
        root = math.hypot(1.0, effective * np.linalg.norm(c_perp))
        r_prev, u, r = r, (u - effective * c_perp) / root, r * (1.0 - A * radial) * root
        us.append(u)
        rs.append(r)
    return np.array(us), np.array(rs)


@claim("spherical.sgd_equals_spherical_scheme", "Roburin (thesis), Eqs 3.24-3.25, 3.52, Lemma 3 (3.43)",
       "Euclidean SGD-M + L2 (η = 0.05, γ = 0.9, λ = 1e-3; compiled loop) and plain SGD (γ = 0, λ = 0) equal the "
       "scheme evolved on the sphere, (u, r) by Eqs 3.24-3.25 with c_k = γ(r_k/r_{k−1})c_{k−1} + ∇L(u_k) + λr_k²u_k, "
       "over 5000 steps of a Rayleigh loss with persistent noise (non-chaotic): max |Δu| and max |Δr|/r <= 1e-10.",
       "identity", stochastic=True)
def sgd_equals_spherical_scheme(run):
    rng = run.rng(105)
    d = 12
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng)
    x0 = rng.standard_normal(d)
    checks = []
    for momentum, lam in ((0.9, 1e-3), (0.0, 0.0)):
        us, rs = _spherical_scheme(loss, x0, 0.05, lam, momentum, 5000)
        euclid = sph.simulate(sph.SGD(0.05, momentum, lam), loss, x0, 5000, record_every=1)
        checks += [Check.at_most(np.abs(us - euclid.directions).max(), 1e-10, f"γ = {momentum}: directions"),
                   Check.at_most(relative_error(rs, euclid.radius), 1e-10, f"γ = {momentum}: radii")]
    return Check.all_of(checks)


# ---------------------------------------------------------------- Table 3.1 and Eq 3.42
@claim("spherical.table31_closed_forms", "Roburin (thesis), Table 3.1, Eqs 3.41-3.42, 3.48",
       "Along runs on a Rayleigh loss with noise: SGD has c = ∇L(u) and η^e = η/r²; SGD+L2 has ⟨c,u⟩ = λr² and "
       "η^e = η/(r²(1−ηλ)); SGD-M(+L2) has c = r·m and η^e = (η/r²)(1 − η⟨c,u⟩/r²)^{−1}; AdaGradG has "
       "η^e = η_k/sqrt(v_k); and Adam+L2's ν_k = r_k d^{−1/2}‖b_k‖ read from its state equals Eq 3.42 (adam_nu) "
       "evaluated from the recorded gradient norms and radii; all to rtol 1e-12 (spherical_step gives η^e, c).",
       "identity", stochastic=True)
def table31_closed_forms(run):
    rng = run.rng(106)
    d = 10
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng)
    x0 = rng.standard_normal(d) * 1.7
    eta, lam = 0.05, 0.1
    checks = []
    for name, opt in (("SGD", sph.SGD(eta)), ("SGD+L2", sph.SGD(eta, weight_decay=lam)),
                      ("SGD-M+L2", sph.SGD(eta, momentum=0.9, weight_decay=lam))):
        xs, grads, forms, _ = _run(opt, loss, x0, 60)
        for x, g, form in zip(xs[:-1], grads, forms):
            r = np.linalg.norm(x)
            u = x / r
            step = sph.spherical_step(x, form.a, form.b, form.learning_rate)
            if name == "SGD":
                checks += [Check.at_most(np.abs(step.c - r * g).max() / np.abs(r * g).max(), 1e-12, "SGD: c = ∇L(u)"),
                           Check.at_most(abs(step.effective_learning_rate * r * r / eta - 1), 1e-12, "SGD: η/r²")]
            elif name == "SGD+L2":
                checks += [Check.at_most(abs(step.c @ u / (lam * r * r) - 1), 1e-12, "SGD+L2: <c,u> = λr²"),
                           Check.at_most(abs(step.effective_learning_rate * r * r * (1 - eta * lam) / eta - 1), 1e-12,
                                         "SGD+L2: η/(r²(1−ηλ))")]
            else:
                c = r * form.a
                expected = (eta / r ** 2) / (1 - eta * float(c @ u) / r ** 2)
                checks.append(Check.at_most(abs(step.effective_learning_rate / expected - 1), 1e-12,
                                            "SGD-M: (η/r²)(1 − η<c,u>/r²)^{-1}"))
    u0 = x0 / np.linalg.norm(x0)
    xs, _, forms, states = _run(sph.AdaGradG(0.3, 0.99, 2.0), loss, u0, 60)
    checks.append(Check.at_most(max(abs(sph.spherical_step(x, f.a, f.b, f.learning_rate, f.decay).effective_learning_rate
                                        * math.sqrt(s["v"]) / 0.3 - 1) for x, f, s in zip(xs, forms, states)), 1e-12,
                                "AdaGradG: η_k/sqrt(v_k) (Eq 3.48)"))
    betas = (0.9, 0.99)
    xs, grads, forms, _ = _run(sph.Adam(0.01, betas=betas, weight_decay=lam), loss, x0, 60)
    radii = np.linalg.norm(xs[:-1], axis=1)
    nu_direct = radii * np.array([np.linalg.norm(f.b) / math.sqrt(d) for f in forms])
    nu_closed = sph.adam_nu(radii * np.linalg.norm(grads, axis=1), radii, d, betas, lam)
    checks.append(Check.at_most(relative_error(nu_direct, nu_closed), 1e-12, "Adam: ν_k vs Eq 3.42"))
    return Check.all_of(checks)


# ---------------------------------------------------------------- scale equivariance
@claim("spherical.scale_equivariance", "Roburin (thesis), §3.3.3, Eq 3.41",
       "Exact equivalences under x₀ -> ρx₀ (ρ in {0.3, 3.7}, 100 steps on a Rayleigh loss with noise): "
       "SGD-M(η, λ, γ; ρx₀) ≡ SGD-M(η/ρ², λρ², γ; x₀) and Adam(η, λ; ρx₀) ≡ Adam(η/ρ, λρ²; x₀) (ε = 0) in u, "
       "to 1e-12; so SGD's effective learning rate scales like 1/r² and Adam's like 1/r.", "identity",
       stochastic=True)
def scale_equivariance(run):
    rng = run.rng(107)
    d = 10
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.3, seed=rng)
    x0 = rng.standard_normal(d)
    eta, lam = 0.05, 0.02
    checks = []
    for rho in (0.3, 3.7):
        pairs = {"SGD-M": (sph.SGD(eta, 0.9, lam), sph.SGD(eta / rho ** 2, 0.9, lam * rho ** 2)),
                 "Adam": (sph.Adam(0.01, weight_decay=lam), sph.Adam(0.01 / rho, weight_decay=lam * rho ** 2))}
        for name, (scaled, reference) in pairs.items():
            a = sph.simulate(scaled, loss, rho * x0, 100, record_every=1)
            b = sph.simulate(reference, loss, x0, 100, record_every=1)
            checks.append(Check.at_most(np.abs(a.directions - b.directions).max(), 1e-12, f"{name}, ρ = {rho}"))
    return Check.all_of(checks)


# ---------------------------------------------------------------- L2 ≡ exponential learning rate
@claim("spherical.exponential_lr_equivalence", "Roburin (thesis), Eq 3.44, Lemma 3",
       "SGD + L2 (η = 0.05, λ = 1e-3) and SGD with η_k = η(1−ηλ)^{−2k−1} and no L2 give the same directions, and "
       "SGD-M + L2 (γ = 0.9) equals SGD-M with η_k = ηα^{−2k−1}, no L2 and the radial initial buffer "
       "−(1−α)x₀/(ηα) (α the larger root of α² − (1+γ−ηλ)α + γ); over 3000 steps with persistent noise (random "
       "linear and noisy Rayleigh losses): max |Δu| <= 1e-10 and x̃_k = α^{−k}x_k in norm to rtol 1e-10.",
       "identity", stochastic=True)
def exponential_lr_equivalence(run):
    rng = run.rng(108)
    d = 16
    losses = {"random linear": sph.RandomLinearLoss.stream(d, seed=rng),
              "Rayleigh": sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng)}
    x0 = rng.standard_normal(d)
    eta, lam, n = 0.05, 1e-3, 3000
    checks = []
    for name, loss in losses.items():
        a = sph.simulate(sph.SGD(eta, 0.0, lam), loss, x0, n, record_every=1)
        b = sph.simulate(sph.SGD(sph.exponential_lr_schedule(eta, lam)), loss, x0, n, record_every=1)
        growth = (1 - eta * lam) ** -np.arange(n + 1.0)
        checks += [Check.at_most(np.abs(a.directions - b.directions).max(), 1e-10, f"{name}: Eq 3.44 directions"),
                   Check.at_most(relative_error(b.radius, a.radius * growth), 1e-10, f"{name}: Eq 3.44 radii")]
        for momentum in (0.9,):
            equivalent = sph.li_arora_equivalent(eta, lam, momentum, x0)
            a = sph.simulate(sph.SGD(eta, momentum, lam), loss, x0, n, record_every=1)
            b = sph.simulate(sph.SGD(equivalent.schedule, momentum, 0.0, initial_buffer=equivalent.initial_buffer),
                            loss, x0, n, record_every=1)
            growth = equivalent.alpha ** -np.arange(n + 1.0)
            checks += [Check.at_most(np.abs(a.directions - b.directions).max(), 1e-10, f"{name}: momentum directions"),
                       Check.at_most(relative_error(b.radius, a.radius * growth), 1e-10, f"{name}: momentum radii")]
    return Check.all_of(checks)


# ---------------------------------------------------------------- λ = 0 sandwich and k^{-1/2}
@claim("spherical.lambda0_sandwich", "derived in this project from Roburin (thesis), Eq 3.46 and its order-2 solution",
       "SGD without weight decay on a random linear loss (natural gradient norms), 3000 steps: with a random "
       "schedule η_i in [0.02, 0.2], P_k <= r_k⁴ <= P_k + Σ η_i⁴g_i⁴/P_i at every step (sgd_lambda0_sandwich; "
       "exact, slack rtol 1e-12); with constant η, effective_lr_bounds_sgd(g_min, g_max of the run) brackets "
       "η_k^e = η/r_k² at every step (slack 1e-12); with a constant gradient norm G, √k·η_k^e·√2·G tends to 1 as "
       "the bounds squeeze it (within the bounds at k = 2e4). Rates, from r₀ = 1, η = 0.1, G = 1.3 at "
       "k = 2500·2^j, j = 0..4: η_k^e falls like k^{−1/2} (slope −1/2), and 1 − √k·η_k^e·√2·G like 1/k (slope −1; "
       "the sandwich puts it at (r₀⁴ + O(η²G² log k))/(4η²G²k) to first order; the log k term shifts the local slope "
       "by (η²G²/2)/(r₀⁴ + (η²G²/2) log k) < 0.01 and the second-order term of the expansion by less than 0.01 "
       "more: the slack 0.02). Tightness, against the exact λ = 0 recursion at constant G (Roburin (thesis), Eq 3.25: "
       "s_{k+1} = s_k + η²G²/s_k, s = r², iterated here; w = s², A = 2η²G², B = η⁴G⁴): at k = 1 … 2e4 the bounds "
       "of effective_lr_bounds_sgd(g_min = g_max = G), as r⁴ = (η/η^e)², are L_k = r₀⁴ + Ak <= w_k <= U_k with "
       "w_k − L_k <= E_k = B/r₀⁴ + (B/A) ln(1 + Ak/r₀⁴) and U_k − w_k <= (B/r₀⁴)(1 + E_k/A) (derived: w_k = r₀⁴ + "
       "Ak + BΣ_{i<k} 1/w_i; the sum against its integral misses by < 1/r₀⁴, and Σ(1/L_i − 1/w_i) <= "
       "E_k Σ 1/L_i² <= E_k/(A r₀⁴)), each up to (k + 10)·1e−15·w_k (round-off of k additions and of the "
       "conversions). Far from float64's range (r₀ = 1e100, η = 1e200 and r₀ = 1e-100, η = 1e-200, where r₀⁴ "
       "leaves float64; g_min = 0.5, g_max = 2; r₀ = 1e-80, where r₀⁴ is subnormal, with η = 3, g = 1e-150..1e-120; "
       "r₀ = 1e-79 with η = 1, g = 1..2; k = 0, 1, 2, 3, 10, 1e3, 1e6) both bounds equal the formula evaluated "
       "in 50-digit mpmath to rtol 1e-12 (the logs reach |log| ≈ 1e3, so a few ulps of them are ~1e-13).", "bound",
       stochastic=True)
def lambda0_sandwich(run):
    rng = run.rng(109)
    d = 16
    loss = sph.RandomLinearLoss.stream(d, seed=rng)
    x0 = rng.standard_normal(d) * 0.5
    r0 = float(np.linalg.norm(x0))
    rates = rng.uniform(0.02, 0.2, 3000)
    trajectory = sph.simulate(sph.SGD(lambda k: rates[k]), loss, x0, 3000)
    bounds = sph.sgd_lambda0_sandwich(r0, rates, trajectory.sphere_grad_norm)
    w = trajectory.radius ** 4
    checks = [_inside(w, bounds.lower, bounds.upper, 1e-12, "P_k <= r⁴ <= P_k + Σ η⁴g⁴/P_i")]
    eta = 0.1
    trajectory = sph.simulate(sph.SGD(eta), loss, x0, 3000)
    g = trajectory.sphere_grad_norm
    steps = np.arange(3000)
    lr_bounds = sph.effective_lr_bounds_sgd(eta, r0, g.min(), g.max(), steps)
    effective = trajectory.effective_learning_rate
    checks.append(_inside(effective, lr_bounds.lower, lr_bounds.upper, 1e-12, "η^e within effective_lr_bounds_sgd"))
    G, n = 1.3, 20000
    constant = sph.simulate(sph.SGD(eta), sph.RandomLinearLoss.stream(d, G, seed=rng), x0, n)
    scaled = math.sqrt(n - 1) * constant.effective_learning_rate[-1] * math.sqrt(2) * G
    squeeze = sph.effective_lr_bounds_sgd(eta, r0, G, G, n - 1)
    low, high = (math.sqrt(n - 1) * b * math.sqrt(2) * G for b in squeeze)
    checks.append(_inside(scaled, low, high, 1e-12, f"√k η^e √2 G = {scaled:.6f} in [{low:.6f}, {high:.6f}]"))
    # how tight the bounds are: the exact λ = 0 recursion of s = r² at constant G (Eq 3.25), iterated here
    ladder = np.array([1, 2, 3, 10, 100, 1000, 20000])
    A, B, w0 = 2.0 * eta ** 2 * G ** 2, eta ** 4 * G ** 4, r0 ** 4
    s, exact = r0 ** 2, np.empty(ladder.size)
    for k in range(ladder[-1] + 1):
        exact[ladder == k] = s * s
        s += eta * eta * G * G / s
    tight = sph.effective_lr_bounds_sgd(eta, r0, G, G, ladder)
    upper_w, lower_w = (eta / tight.lower) ** 2, (eta / tight.upper) ** 2
    E = B / w0 + (B / A) * np.log1p(A * ladder / w0)
    roundoff = (ladder + 10) * 1e-15 * exact  # k additions, and the conversions
    excess = np.max(np.maximum(upper_w - exact - (B / w0) * (1.0 + E / A), lower_w - exact) / roundoff)
    shortfall = np.max(np.maximum(exact - upper_w, exact - lower_w - E) / roundoff)
    checks.append(Check.at_most(max(excess, shortfall), 1.0,
                                f"exact r⁴ recursion at constant G: beyond the bounds' derived distances, in units of "
                                f"(k + 10)·1e−15·w_k (U_k − w_k up to {np.max(upper_w - exact):.2e}, w_k − L_k up to "
                                f"{np.max(exact - lower_w):.2e})"))
    # the k^{-1/2} law and its 1/k approach, on a ladder of steps of one run from r₀ = 1
    ks = 2500 * 2 ** np.arange(5)
    unit = rng.standard_normal(d)
    run_ = sph.simulate(sph.SGD(eta), sph.RandomLinearLoss.stream(d, G, seed=rng), unit / np.linalg.norm(unit), ks[-1])
    effective = run_.effective_learning_rate[ks - 1]  # η^e of step k − 1, at radius r_{k−1}
    squeeze_error = 1 - np.sqrt(ks - 1) * effective * math.sqrt(2) * G
    checks += [Check.rate(ks, effective, -0.5, detail="η_k^e ∝ k^(-1/2)"),
               Check.rate(ks, squeeze_error, -1.0, slack=0.02, detail="1 − √k η^e √2 G ∝ 1/k (log k term: slack 0.02)")]
    # the bounds where r₀⁴ over- or underflows float64, against the formula in 50-digit mpmath
    far = 0.0
    ladder = np.array([0, 1, 2, 3, 10, 1000, 10 ** 6])
    # the last two: r₀⁴ subnormal, and η⁴g⁴ underflowing, where the direct sums are finite but inexact
    for r0, eta, g_min, g_max in ((1e100, 1e200, 0.5, 2.0), (1e-100, 1e-200, 0.5, 2.0), (1e-80, 3.0, 1e-150, 1e-120),
                                  (1e-79, 1.0, 1.0, 2.0)):
        bounds = sph.effective_lr_bounds_sgd(eta, r0, g_min, g_max, ladder)
        with mpmath.workdps(50):
            e, w0, lo, hi = mpmath.mpf(eta), mpmath.mpf(r0) ** 4, mpmath.mpf(g_min), mpmath.mpf(g_max)
            for k, lower, upper in zip(ladder.tolist(), bounds.lower, bounds.upper):
                upper_w = w0 + 2 * e ** 2 * lo ** 2 * k
                lower_w = (w0 + 2 * e ** 2 * hi ** 2 * k + e ** 4 * hi ** 4 / w0
                           + (e ** 2 * hi ** 4 / (2 * lo ** 2)) * mpmath.log1p(2 * e ** 2 * lo ** 2 * (k - 1) / w0)
                           if k >= 1 else w0)
                far = max(far, abs(float(lower / (e / mpmath.sqrt(lower_w))) - 1),
                          abs(float(upper / (e / mpmath.sqrt(upper_w))) - 1))
    checks.append(Check.at_most(far, 1e-12, "effective_lr_bounds_sgd where r₀⁴ leaves float64, vs mpmath"))
    return Check.all_of(checks)


# ---------------------------------------------------------------- SGD + L2 equilibrium
@claim("spherical.sgd_l2_equilibrium", "Roburin (thesis), Eqs 3.25, 3.44 (Table 3.1, SGD+L2)",
       "SGD + L2 (γ = 0) with a constant gradient norm G on the sphere (random linear directions), after "
       "30/(ηλ) steps, for (η, λ, G) in {(0.1, 1e-3, 1), (0.5, 1e-2, 0.3), (0.02, 5e-3, 3)}: r⁴, η^e and the "
       "angle per step equal sgd_l2_equilibrium's r*⁴ = ηG²/(λ(2−ηλ)), η^e* and θ* = arccos(1−ηλ) to rtol 1e-9 "
       "(the residual of a linear convergence at rate 1 − 4ηλ after 30/(ηλ) steps is e^{−120}). The approach is "
       "that linear convergence: |r_k²/r*² − 1| at k = j/(ηλ), j = 2..6 (errors 3e-2 down to 1e-11, above "
       "round-off), falls like q^k with q = 2(1−ηλ)² − 1, the derivative at its fixed point of the squared-radius "
       "map s ↦ (1−ηλ)²s + η²G²/s: a rate check of slope −1 against the sizes q^{−k}.", "limit",
       stochastic=True)
def sgd_l2_equilibrium_claim(run):
    rng = run.rng(110)
    d = 16
    checks = []
    for eta, lam, G in ((0.1, 1e-3, 1.0), (0.5, 1e-2, 0.3), (0.02, 5e-3, 3.0)):
        eq = sph.sgd_l2_equilibrium(eta, lam, G)
        n = int(30 / (eta * lam))
        trajectory = sph.simulate(sph.SGD(eta, weight_decay=lam), sph.RandomLinearLoss.stream(d, G, seed=rng),
                                 rng.standard_normal(d), n)
        checks += [Check.at_most(abs(trajectory.radius[-1] ** 4 / eq.radius_fourth_power - 1), 1e-9, f"r⁴, η = {eta}"),
                   Check.at_most(abs(trajectory.effective_learning_rate[-1] / eq.effective_learning_rate - 1), 1e-9,
                                 f"η^e, η = {eta}"),
                   Check.at_most(abs(trajectory.angle[-1] / eq.angle - 1), 1e-9, f"θ, η = {eta}")]
        q = 2 * (1 - eta * lam) ** 2 - 1  # the radius map's derivative at its fixed point
        ks = (np.arange(2, 7) / (eta * lam)).astype(int)
        errors = np.abs(trajectory.radius[ks] ** 2 / math.sqrt(eq.radius_fourth_power) - 1)
        checks.append(Check.rate(q ** -ks.astype(float), errors, -1.0,
                                 detail=f"η = {eta}: |r_k²/r*² − 1| ∝ q^k, q = 2(1−ηλ)² − 1"))
    return Check.all_of(checks)


@claim("spherical.equilibrium_closed_forms_precision",
       "derived in this project from Roburin (thesis), Eqs 3.15, 3.25, 3.44",
       "sgd_l2_equilibrium and sgdm_l2_equilibrium equal their closed forms evaluated in 50-digit mpmath "
       "(r⁴ = ηG²/(λ(2−ηλ)), η^e = sqrt(ηλ(2−ηλ))/((1−ηλ)G), θ = atan2(sqrt(ηλ(2−ηλ)), 1−ηλ); ηG²/(2λ(1−γ)), "
       "sqrt(2ηλ(1−γ))/G, sqrt(2ηλ/(1+γ))) to rtol 1e-13 for ηλ from 1e-14 to 0.99, and cos θ* = 1 − ηλ.",
       "identity")
def equilibrium_closed_forms_precision():
    worst = 0.0
    with mpmath.workdps(50):  # a local precision: mpmath's global setting is left alone
        for eta in (1e-7, 0.01, 0.3, 2.0):
            for lam in (1e-7, 1e-3, 0.45):
                if eta * lam >= 1:
                    continue
                for G in (1e-3, 1.0, 7.0):
                    e, l_, g = mpmath.mpf(eta), mpmath.mpf(lam), mpmath.mpf(G)
                    p = e * l_
                    exact = (e * g ** 2 / (l_ * (2 - p)), mpmath.sqrt(p * (2 - p)) / ((1 - p) * g),
                             mpmath.atan2(mpmath.sqrt(p * (2 - p)), 1 - p))
                    ours = sph.sgd_l2_equilibrium(eta, lam, G)
                    worst = max(worst, *(abs(float(o / x) - 1) for o, x in zip(ours, exact)))
                    worst = max(worst, abs(math.cos(ours.angle) - float(1 - p)) / float(1 - p))
                    gamma = mpmath.mpf("0.9")
                    exact_m = (e * g ** 2 / (2 * l_ * (1 - gamma)), mpmath.sqrt(2 * p * (1 - gamma)) / g,
                               mpmath.sqrt(2 * p / (1 + gamma)))
                    ours_m = sph.sgdm_l2_equilibrium(eta, lam, 0.9, G)
                    worst = max(worst, *(abs(float(o / x) - 1) for o, x in zip(ours_m, exact_m)))
    return Check.at_most(worst, 1e-13, "worst relative error against mpmath")


# ---------------------------------------------------------------- invariant interval
@claim("spherical.sgd_l2_invariant_interval", "derived in this project from Roburin (thesis), Eq 3.25",
       "SGD + L2 (η = 0.1, λ = 1e-3) with random gradient norms g_k uniform in [0.5, 2] (ratio condition "
       "(g_min/g_max)² >= (1−ρ)/ρ holds) started at a random s₀ in [L, U]: over 20000 steps s_k = r_k² stays in "
       "[L, U] and η_k^e in sgd_l2_invariant_interval's bounds (exact; slack rtol 1e-12). The interval is tight: "
       "L and U are the fixed points of the squared-radius map s ↦ (1−ηλ)²s + η²g²/s at g = g_min and g_max, so a "
       "run at the constant norm g_min from s₀ = L (g_max from s₀ = U) stays there for 500 steps, and its η^e equals "
       "the max (min) η^e bound, to rtol 1e-12 (round-off: the fixed point attracts, |2(1−ηλ)² − 1| < 1).", "bound",
       stochastic=True)
def sgd_l2_invariant_interval_claim(run):
    rng = run.rng(111)
    d, eta, lam, n = 16, 0.1, 1e-3, 20000
    interval = sph.sgd_l2_invariant_interval(eta, lam, 0.5, 2.0)
    s0 = rng.uniform(interval.lower_squared_radius, interval.upper_squared_radius)
    x0 = rng.standard_normal(d)
    x0 *= math.sqrt(s0) / np.linalg.norm(x0)
    loss = sph.RandomLinearLoss.stream(d, grad_norm=rng.uniform(0.5, 2.0, n), seed=rng)
    trajectory = sph.simulate(sph.SGD(eta, weight_decay=lam), loss, x0, n)
    s = trajectory.radius ** 2
    effective = trajectory.effective_learning_rate
    checks = [_inside(s, interval.lower_squared_radius, interval.upper_squared_radius, 1e-12, "L <= s_k <= U"),
              _inside(effective, interval.min_effective_learning_rate, interval.max_effective_learning_rate, 1e-12,
                      "η^e within the interval's bounds")]
    # tightness: each end is the fixed point of the squared-radius map at the matching constant gradient norm
    for g, end, rate in ((0.5, interval.lower_squared_radius, interval.max_effective_learning_rate),
                         (2.0, interval.upper_squared_radius, interval.min_effective_learning_rate)):
        x0 = rng.standard_normal(d)
        x0 *= math.sqrt(end) / np.linalg.norm(x0)
        fixed = sph.simulate(sph.SGD(eta, weight_decay=lam), sph.RandomLinearLoss.stream(d, g, seed=rng), x0, 500)
        checks += [Check.at_most(relative_error(fixed.radius ** 2, end), 1e-12, f"g = {g}: s_k stays at the interval's end"),
                   Check.at_most(relative_error(fixed.effective_learning_rate, rate), 1e-12,
                                 f"g = {g}: η^e equals the interval's η^e bound")]
    return Check.all_of(checks)


# ---------------------------------------------------------------- relaxation
@claim("spherical.sgd_l2_relaxation", "derived in this project from Roburin (thesis), Eq 3.25",
       "SGD + L2 (η = 0.1, λ = 1e-3, constant G = 1) from r₀ in {1, 1.5, 4} (tan²θ₀ <= 1e-2) relaxes as "
       "sgd_l2_relaxation's r*⁴ + (r₀⁴ − r*⁴)e^{−4ηλk}: max relative error over 3/(ηλ) steps <= 5e-3 (the "
       "tolerance this project sets for the order-2 ODE approximation). The approximation is first order in ηλ: "
       "on the ladder ηλ = 1e-4·2^j, j = 0..4, with η/λ = 100 held (so r*⁴ is fixed and tan²θ₀ = η²G²/r₀⁴ also "
       "scales like ηλ), the max relative error over 3/(ηλ) steps falls with slope 1 in ηλ (the dropped "
       "η⁴G⁴/r⁴ term and the step-to-ODE error are both O(ηλ)).", "limit", stochastic=True)
def sgd_l2_relaxation_claim(run):
    rng = run.rng(112)
    d, G, ratio = 16, 1.0, 100.0  # η/λ held at 100: η = 0.1, λ = 1e-3 at ηλ = 1e-4
    products = 1e-4 * 2.0 ** np.arange(4, -1, -1)
    checks = []
    for r0 in (1.0, 1.5, 4.0):
        x0 = rng.standard_normal(d)
        x0 *= r0 / np.linalg.norm(x0)
        loss = sph.RandomLinearLoss.stream(d, G, seed=rng)
        errors = []
        for product in products:
            eta, lam = math.sqrt(product * ratio), math.sqrt(product / ratio)
            n = int(round(3 / product))
            trajectory = sph.simulate(sph.SGD(eta, weight_decay=lam), loss, x0, n)
            errors.append(relative_error(trajectory.radius ** 4, sph.sgd_l2_relaxation(r0, eta, lam, G, np.arange(n + 1))))
        checks += [Check.at_most(errors[-1], 5e-3, f"r₀ = {r0} at (η, λ) = (0.1, 1e-3)"),
                   Check.rate(products, errors, 1.0, detail=f"r₀ = {r0}: error ∝ ηλ")]
    return Check.all_of(checks)


# ---------------------------------------------------------------- SGD-M random-walk equilibrium
@claim("spherical.sgdm_l2_random_walk_equilibrium",
       "derived in this project from Roburin (thesis), Eq 3.15 (cf. Wan et al. 2021)",
       "SGD(-M) + L2 in the random-walk model (tangent gradients of constant norm G = 1 in fresh random directions), "
       "(η, λ, γ, d) in {(0.1, 1e-3, 0.9, 128), (0.1, 1e-3, 0, 32)}, 20/(ηλ) steps averaged over the "
       "last half: mean r⁴ and the rms angle per step equal sgdm_l2_equilibrium's ηG²/(2λ(1−γ)) and "
       "sqrt(2ηλ/(1+γ)) within z·SE + ηλ/(1−γ): SE the batch-means standard error (50 batches; at γ = 0.9 each is 8 "
       "relaxation times (1−γ)/(4ηλ) long; at γ = 0 the radius is deterministic and SE vanishes), z = Student-t "
       "quantile (49 dof) for a two-sided family-wise level 1e-4 over the 4 "
       "comparisons, ηλ/(1−γ) the order of the model's neglected terms; each such tolerance is below the "
       "project's tolerances for this model (rtol 1e-2 for r⁴, 5e-3 for the angle). At γ = 0, where the radius is "
       "deterministic, the gap to the leading-order law is the neglected term itself: on the ladder "
       "λ = 1e-3·2^j, j = 0..4 (η = 0.1, d = 32; 10/(ηλ) steps beyond the first rung, the second half averaged), "
       "the relative errors of mean r⁴ and of the rms angle fall with slope 1 in ηλ (their exact values are "
       "ηλ/(2−ηλ) and about ηλ/12).", "limit", stochastic=True)
def sgdm_l2_random_walk_equilibrium(run):
    rng = run.rng(113)
    G, n_batches = 1.0, 50
    configs = ((0.1, 1e-3, 0.9, 128), (0.1, 1e-3, 0.0, 32))
    z = float(stats.t.isf(0.5e-4 / (2 * len(configs)), n_batches - 1))
    checks, r4_errors, angle_errors = [], [], []
    for eta, lam, gamma, d in configs:
        eq = sph.sgdm_l2_equilibrium(eta, lam, gamma, G)
        n = int(20 / (eta * lam))
        x0 = rng.standard_normal(d)
        x0 *= eq.radius / np.linalg.norm(x0) * 0.5
        trajectory = sph.simulate(sph.SGD(eta, gamma, lam), sph.RandomLinearLoss.stream(d, G, seed=rng), x0, n)
        half = n // 2
        bias = eta * lam / (1 - gamma)
        for name, values, target, transform, model_tol in (
                ("r⁴", trajectory.radius[half:] ** 4, eq.radius_fourth_power, lambda m: m, 1e-2),
                ("angle", trajectory.angle[half:] ** 2, eq.angle, math.sqrt, 5e-3)):
            usable = values[: values.size // n_batches * n_batches]
            batch_means = usable.reshape(n_batches, -1).mean(axis=1)
            mean = usable.mean()
            se = batch_means.std(ddof=1) / math.sqrt(n_batches)
            estimate = transform(mean)
            relative_se = se / mean * (0.5 if name == "angle" else 1.0)  # delta method for the square root
            tolerance = z * relative_se + bias
            checks.append(Check.at_most(abs(estimate / target - 1), tolerance,
                                        f"{name} at (η, λ, γ) = ({eta}, {lam}, {gamma}): rel error "
                                        f"{estimate / target - 1:.2e}, SE {relative_se:.1e}"))
            checks.append(Check.at_most(tolerance, model_tol, f"{name}: tolerance within the model's {model_tol:g}"))
            if gamma == 0.0:
                (r4_errors if name == "r⁴" else angle_errors).append(abs(estimate / target - 1))
    # γ = 0: the leading-order law's error is first order in ηλ (the run above is the ladder's first rung)
    eta, d = 0.1, 32
    lams = 1e-3 * 2.0 ** np.arange(5)
    for lam in lams[1:]:
        eq = sph.sgdm_l2_equilibrium(eta, lam, 0.0, G)
        n = int(round(10 / (eta * lam)))  # the transient over the first half is below e^{-20}
        x0 = rng.standard_normal(d)
        x0 *= eq.radius / np.linalg.norm(x0) * 0.5
        trajectory = sph.simulate(sph.SGD(eta, 0.0, lam), sph.RandomLinearLoss.stream(d, G, seed=rng), x0, n)
        half = n // 2
        r4_errors.append(abs(np.mean(trajectory.radius[half:] ** 4) / eq.radius_fourth_power - 1))
        angle_errors.append(abs(math.sqrt(np.mean(trajectory.angle[half:] ** 2)) / eq.angle - 1))
    checks += [Check.rate(eta * lams, r4_errors, 1.0, detail="γ = 0: r⁴ error ∝ ηλ"),
               Check.rate(eta * lams, angle_errors, 1.0, detail="γ = 0: angle error ∝ ηλ")]
    return Check.all_of(checks)


# ---------------------------------------------------------------- Theorem 4
@claim("spherical.theorem4_identity", "Roburin (thesis), Theorem 4, Eqs 3.47-3.48, App. C.1",
       "AdaGradG with adagradg_equivalent_params(η, λ, r₀) (β = (1−ηλ)⁴, η_AGG = (2β)^{−1/2}, v₀ = r₀⁴/(2η²√β)), "
       "run on a noisy Rayleigh loss for 2000 steps, has η_k^e = η_AGG/sqrt(v_k) (its state) equal to "
       "η/((1−ηλ)sqrt(w̃_k)) with the order-2 radius w̃ of sgd_order2_radius4 fed its own gradient norms (rtol "
       "1e-12), for (η, λ, r₀) in {(0.01, 1e-3, 1), (0.1, 0.05, 3), (0.05, 0, 0.5)}; App. C.1's η = 1e-2, "
       "λ = 1e-3 give β = 0.99996 and η_AGG = 0.7071 (to the printed digits).", "identity", stochastic=True)
def theorem4_identity(run):
    rng = run.rng(114)
    d = 12
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng)
    checks = []
    for eta, lam, r0 in ((0.01, 1e-3, 1.0), (0.1, 0.05, 3.0), (0.05, 0.0, 0.5)):
        params = sph.adagradg_equivalent_params(eta, lam, r0)
        u0 = rng.standard_normal(d)
        u0 /= np.linalg.norm(u0)
        xs, grads, _, states = _run(sph.AdaGradG(params.learning_rate, params.beta, params.v0), loss, u0, 2000)
        adagradg = params.learning_rate / np.sqrt([s["v"] for s in states])
        w_tilde = sph.sgd_order2_radius4(r0, eta, np.linalg.norm(grads, axis=1), lam)[:-1]
        checks.append(Check.at_most(relative_error(adagradg, sph.sgd_effective_lr(eta, w_tilde, lam)), 1e-12,
                                    f"(η, λ, r₀) = ({eta}, {lam}, {r0})"))
    c1 = sph.adagradg_equivalent_params(1e-2, 1e-3, 1.0)
    checks += [Check.at_most(abs(round(c1.beta, 5) - 0.99996), 0.0, f"β = {c1.beta:.8f}"),
               Check.at_most(abs(round(c1.learning_rate, 4) - 0.7071), 0.0, f"η_AGG = {c1.learning_rate:.6f}")]
    return Check.all_of(checks)


@claim("spherical.theorem4_one_sided_bound", "Roburin (thesis), Theorem 4 (order 2)",
       "On the SGD + L2 trajectory (η = 0.1, λ = 1e-3, random linear directions of constant norm G = 1, "
       "30/(ηλ) steps), the ratio of AdaGradG's effective learning rate (Theorem-4 parameters, same gradient "
       "norms) to SGD's, sqrt(r_k⁴/w̃_k), lies in [1, sqrt(1 + E_k/w̃_k)] with E_k <= Σ ρ^{2(k−1−i)}η⁴g_i⁴/w̃_i "
       "(slack 1e-12), and at equilibrium (ratio − 1)/(ηλ/2) is within 1% of 1: a persistent mismatch ηλ/2. That "
       "mismatch is ηλ/2 to first order only: on the ladder λ = 1e-3·2^j, j = 0..4 (η = 0.1; 10/(ηλ) steps beyond "
       "the first rung, a residual below e^{−40}), |(ratio − 1)/(ηλ/2) − 1| at equilibrium falls with slope 1 in ηλ "
       "(the exact equilibrium ratio is 1 + ηλ/2 + O((ηλ)²)).", "bound", stochastic=True)
def theorem4_one_sided_bound(run):
    rng = run.rng(115)
    d, eta, lam, G = 16, 0.1, 1e-3, 1.0
    n = int(30 / (eta * lam))
    x0 = rng.standard_normal(d)
    r0 = float(np.linalg.norm(x0))
    trajectory = sph.simulate(sph.SGD(eta, weight_decay=lam), sph.RandomLinearLoss.stream(d, G, seed=rng), x0, n)
    g = trajectory.sphere_grad_norm
    w = trajectory.radius ** 4
    w_tilde = sph.sgd_order2_radius4(r0, eta, g, lam)
    params = sph.adagradg_equivalent_params(eta, lam, r0)
    # AdaGradG's v_k for the same gradient norms: v_k = β^k v₀ + Σ_{i<k} β^{k−1−i} g_i² (Eq 3.48)
    v = np.empty(n + 1)
    v[0] = params.v0
    for k in range(n):
        v[k + 1] = params.beta * v[k] + g[k] ** 2
    ratio = (params.learning_rate / np.sqrt(v)) / sph.sgd_effective_lr(eta, w, lam)
    rho = (1 - eta * lam) ** 2
    E_bound = np.empty(n + 1)
    E_bound[0] = 0.0
    for k in range(n):
        E_bound[k + 1] = rho ** 2 * E_bound[k] + (eta * g[k]) ** 4 / w_tilde[k]
    mismatch = (ratio[-1] - 1) / (eta * lam / 2)
    lams = lam * 2.0 ** np.arange(5)
    errors = [abs(mismatch - 1)] + [abs(_equilibrium_mismatch(rng, d, eta, lam_, G) - 1) for lam_ in lams[1:]]
    return Check.all_of([
        _inside(ratio, 1.0, np.sqrt(1 + E_bound / w_tilde), 1e-12, "1 <= ratio <= sqrt(1 + E/w̃)"),
        Check.at_most(abs(mismatch - 1), 0.01, f"(ratio − 1)/(ηλ/2) = {mismatch:.5f} at equilibrium"),
        Check.rate(eta * lams, errors, 1.0, detail="|(ratio − 1)/(ηλ/2) − 1| ∝ ηλ")])


def _equilibrium_mismatch(rng, d, eta, lam, G):
    """(ratio − 1)/(ηλ/2) after 10/(ηλ) steps of SGD + L2, the ratio of AdaGradG's effective learning rate (Theorem-4
    parameters, v recursion of Eq 3.48 fed the same gradient norms) to SGD's."""
    n = int(round(10 / (eta * lam)))
    x0 = rng.standard_normal(d)
    trajectory = sph.simulate(sph.SGD(eta, weight_decay=lam), sph.RandomLinearLoss.stream(d, G, seed=rng), x0, n)
    params = sph.adagradg_equivalent_params(eta, lam, float(np.linalg.norm(x0)))
    v = params.v0
    for g in trajectory.sphere_grad_norm:
        v = params.beta * v + g * g
    ratio = (params.learning_rate / math.sqrt(v)) / sph.sgd_effective_lr(eta, trajectory.radius[-1] ** 4, lam)
    return (ratio - 1) / (eta * lam / 2)


@claim("spherical.theorem4_trajectories", "Roburin (thesis), Theorem 4, Fig 3.4 (in small), App. C.1",
       "SGD + L2 and AdaGradG with the Theorem-4 parameters, run on the same noisy Rayleigh loss sequence from the "
       "same direction u₀ (5000 steps), stay within 1e-3 rad of each other for (η, λ) in {(0.01, 5e-3), "
       "(0.01, 1e-3)} (ηλ <= 5e-5; every angular step <= 0.05 rad, checked), while element-wise AdaGrad with its "
       "learning rate matched at the first step drifts further than 1e-2 rad (the deformation of Adam-type "
       "divisions).", "theorem", stochastic=True)
def theorem4_trajectories(run):
    rng = run.rng(116)
    d = 16
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.3, seed=rng)
    x0 = rng.standard_normal(d)
    r0 = float(np.linalg.norm(x0))
    checks = []
    for eta, lam in ((0.01, 5e-3), (0.01, 1e-3)):
        sgd = sph.simulate(sph.SGD(eta, weight_decay=lam), loss, x0, 5000, record_every=10)
        params = sph.adagradg_equivalent_params(eta, lam, r0)
        agg = sph.simulate(sph.AdaGradG(params.learning_rate, params.beta, params.v0), loss, x0 / r0, 5000,
                          record_every=10)
        distance = max(sph.angle_between(a, b) for a, b in zip(sgd.directions, agg.directions))
        checks += [Check.at_most(distance, 1e-3, f"(η, λ) = ({eta}, {lam}): max angle {distance:.2e}"),
                   Check.at_most(float(sgd.angle.max()), 0.05, "angular steps <= 0.05")]
    g0 = loss.grad(x0, 0) + 1e-3 * x0
    matched = sph.adagrad_matched_learning_rate(0.01, float(np.linalg.norm(g0)), d)  # first steps of equal length
    adagrad = sph.simulate(sph.AdaGrad(matched, weight_decay=1e-3), loss, x0, 5000, record_every=10)
    drift = max(sph.angle_between(a, b) for a, b in zip(sgd.directions, adagrad.directions))
    checks.append(Check.at_least(drift, 1e-2, f"AdaGrad drifts by {drift:.3f} rad"))
    return Check.all_of(checks)


# The tolerance of spherical.theorem4_weight_norm, measured: over seed offsets 0..59 (120 groups) the largest angle
# between SGD + L2 and AdaGradG was 2.6e-10 rad (median 5.8e-12; the tail is the groups with the smallest ‖x₀‖, whose
# angular steps are largest), and the smallest AdaGrad drift 0.082 rad. 1e-8 rad leaves a factor of about 40 over the
# worst group; a wrong Theorem-4 parameter (β = (1−ηλ)² or (1−ηλ)³, η_AGG = β^{-1/2}, or the λ = 0 parameters) moves
# AdaGradG 1e-3 to 1e-1 rad away from SGD on the same runs.
_THEOREM4_WN_TOLERANCE = 1e-8


@claim("spherical.theorem4_weight_norm", "Roburin (thesis), Theorem 4, Fig 3.4 (b) (in small), App. C.1",
       "On weight-normalised logistic probes (adagradg_vs_sgd_runs with normalization='weight': d = 27, 64 "
       "mini-batches of 32 Gaussian inputs with random ±1 labels, gain γ = 2; two groups, 4000 steps, η = 1e-2, "
       "λ = 1e-3 as in App. C.1), SGD + L2 and AdaGradG with the Theorem-4 parameters stay within 1e-8 rad of each "
       "other at every recorded step (a factor of about 40 above the worst of 120 groups measured over seed offsets "
       "0..59, 2.6e-10 rad), while SGD's direction moves by more than 2e-2 rad from u₀ and element-wise AdaGrad with "
       "its learning rate matched at the first step drifts further than 1e-2 rad from SGD.", "theorem",
       stochastic=True)
def theorem4_weight_norm(run):
    groups = sph.adagradg_vs_sgd_runs(n_steps=4000, n_groups=2, seed=run.rng(134), normalization="weight")
    checks, distances, travels, drifts = [], [], [], []
    for i, (sgd, adagradg, adagrad) in enumerate(groups):
        distances.append(max(sph.angle_between(a, b) for a, b in zip(sgd.directions, adagradg.directions)))
        travels.append(sph.angle_between(sgd.directions[0], sgd.directions[-1]))
        drifts.append(max(sph.angle_between(a, b) for a, b in zip(sgd.directions, adagrad.directions)))
        checks += [Check.at_most(distances[-1], _THEOREM4_WN_TOLERANCE,
                                 f"group {i}: SGD + L2 vs AdaGradG, max angle {distances[-1]:.2e} rad"),
                   Check.at_least(travels[-1], 2e-2, f"group {i}: SGD's direction moves by {travels[-1]:.3f} rad"),
                   Check.at_least(drifts[-1], 1e-2, f"group {i}: AdaGrad drifts by {drifts[-1]:.3f} rad")]
    summary = (f"SGD + L2 vs AdaGradG: max angle {max(distances):.2e} rad (<= {_THEOREM4_WN_TOLERANCE:g}); SGD moves "
               f">= {min(travels):.3f} rad (>= 0.02); AdaGrad drifts >= {min(drifts):.3f} rad (>= 0.01)")
    failed = [c.detail for c in checks if not c.passed]
    return Check.all_of(checks, "; ".join(failed + [summary]))


# ---------------------------------------------------------------- Adam and its variants
@claim("spherical.adam_first_step", "Roburin (thesis), §3.5.1 (a), Fig 3.5b",
       "Adam's first step (ε = 0, v₋₁ = 0) on every synthetic loss is Δx₀ = −η sign(∇L(x₀) + λx₀) (λ in {0, 0.1}; "
       "to 1e-15·η plus the round-off 2ε‖x₀‖∞ of the stored x₁), and with λ = 0 its momentum on the sphere (spherical_step's c₀) is "
       "d^{−1/2}‖∇L(u₀)‖ sign(∇L(u₀)) (to 1e-15 relative): ⟨c₀,u₀⟩ ≠ 0 in general, the sign instability.",
       "identity", stochastic=True)
def adam_first_step(run):
    rng = run.rng(117)
    checks = []
    for name, loss in _losses(rng).items():
        x0 = rng.standard_normal(loss.dimension) * 2.0
        g = loss.grad(x0, 0)
        for lam in (0.0, 0.1):
            opt = sph.Adam(0.01, weight_decay=lam)
            x1 = opt.step(x0, g)
            # x₁ − x₀ is known to the round-off of the stored x₁, 2ε‖x₀‖∞ (relative to η: 2ε‖x₀‖∞/η)
            allowance = 1e-15 + 2 * np.finfo(float).eps * np.abs(x0).max() / 0.01
            checks.append(Check.at_most(np.abs((x1 - x0) + 0.01 * np.sign(g + lam * x0)).max() / 0.01, allowance,
                                        f"{name}, λ = {lam}: Δx₀ = −η sign(g̃)"))
            if lam == 0.0:
                form = opt.last_generic_form
                c0 = sph.spherical_step(x0, form.a, form.b, form.learning_rate).c
                g_u = np.linalg.norm(x0) * g
                psi = np.linalg.norm(g_u) / math.sqrt(g_u.size) * np.sign(g_u)
                checks.append(Check.at_most(np.abs(c0 - psi).max() / np.abs(psi).max(), 1e-15,
                                            f"{name}: c₀ = d^(-1/2)‖∇L(u₀)‖ sign(∇L(u₀))"))
    return Check.all_of(checks)


@claim("spherical.adam_s_tangent_and_pythagorean", "Roburin (thesis), Eqs 3.58, 3.67-3.69",
       "Adam w/o (a) (AdamS) with β₁ = 0 on a noisy Rayleigh loss: c_k = ∇L(u_k) = r_k∇L(x_k) (rtol 1e-12) is "
       "tangent (|⟨c_k,u_k⟩| <= 1e-14‖c_k‖), and with λ = 0 the norm grows purely by Pythagoras, "
       "r_{k+1}² = r_k² + (η/ŝ_k)²‖∇L(x_k)‖² with ŝ_k = sqrt(v̂_k) from its state (rtol 1e-12), over 300 steps.",
       "identity", stochastic=True)
def adam_s_tangent_and_pythagorean(run):
    rng = run.rng(118)
    d, eta = 12, 0.05
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng)
    x0 = rng.standard_normal(d)
    opt = sph.AdamS(eta, betas=(0.0, 0.99))
    xs, grads, forms, _ = _run(opt, loss, x0, 300)
    c_err = tangency = pythagoras = 0.0
    for k, (x, x_next, g, form) in enumerate(zip(xs[:-1], xs[1:], grads, forms)):
        r = np.linalg.norm(x)
        c = sph.spherical_step(x, form.a, form.b, form.learning_rate).c
        c_err = max(c_err, np.abs(c - r * g).max() / np.abs(r * g).max())
        tangency = max(tangency, abs(c @ x) / (r * np.linalg.norm(c)))
        s_hat = form.b  # b_k = ((1−β₁^t)/(1−β₁))·sqrt(v̂_k) = sqrt(v̂_k) for β₁ = 0
        pythagoras = max(pythagoras, abs((x_next @ x_next) / (x @ x + (eta / s_hat) ** 2 * (g @ g)) - 1))
    return Check.all_of([Check.at_most(c_err, 1e-12, "c_k = ∇L(u_k)"), Check.at_most(tangency, 1e-14, "tangency"),
                         Check.at_most(pythagoras, 1e-12, "Pythagorean growth")])


@claim("spherical.transport_identities", "Roburin (thesis), Eqs 3.70-3.78",
       "For random x_{k−1}, x_k and vectors a (d = 9, 50 draws): ⟨T(a),u_k⟩ = 0; T equals exact parallel "
       "transport on tangent vectors in span(u_{k−1}, u_k); T shrinks the component orthogonal to that plane by "
       "⟨u_{k−1},u_k⟩ = cos θ; R∘T = T∘R = RT (Eq 3.76); all to 1e-14 (relative to ‖a‖).", "identity",
       stochastic=True)
def transport_identities(run):
    rng = run.rng(119)
    d = 9
    worst = {"<T(a),u_k>": 0.0, "T = Γ on the plane": 0.0, "off-plane shrink": 0.0, "R∘T = RT": 0.0,
             "T∘R = RT": 0.0}
    for _ in range(50):
        x_prev, x_new, a = rng.standard_normal(d), rng.standard_normal(d) * 2, rng.standard_normal(d)
        u_prev, u_new = x_prev / np.linalg.norm(x_prev), x_new / np.linalg.norm(x_new)
        scale = np.linalg.norm(a)
        T = sph.transport_T(a, x_prev, x_new)
        worst["<T(a),u_k>"] = max(worst["<T(a),u_k>"], abs(T @ u_new) / scale)
        # a tangent vector at u_prev inside span(u_prev, u_new)
        w = u_new - (u_new @ u_prev) * u_prev
        v = rng.standard_normal() * w / np.linalg.norm(w)
        gap = np.abs(sph.transport_T(v, x_prev, x_new) - sph.parallel_transport(u_prev, u_new, v)).max()
        worst["T = Γ on the plane"] = max(worst["T = Γ on the plane"], gap / np.linalg.norm(v))
        q, _ = np.linalg.qr(np.column_stack([u_prev, u_new]))
        off = a - q @ (q.T @ a)
        shrink = sph.transport_T(off, x_prev, x_new) - (u_prev @ u_new) * off
        worst["off-plane shrink"] = max(worst["off-plane shrink"], np.abs(shrink).max() / scale)
        RT = sph.transport_RT(a, x_prev, x_new)
        worst["R∘T = RT"] = max(worst["R∘T = RT"], np.abs(sph.rescale_R(T, x_prev, x_new) - RT).max() / scale)
        worst["T∘R = RT"] = max(worst["T∘R = RT"],
                                np.abs(sph.transport_T(sph.rescale_R(a, x_prev, x_new), x_prev, x_new) - RT).max() / scale)
    return Check.all_of([Check.at_most(value, 1e-14, name) for name, value in worst.items()])


@claim("spherical.radial_momentum_identity", "Roburin (thesis), Eqs 3.72, 3.77-3.78",
       "Along runs of Adam w/o (ab) (AdamST) and w/o (abc) (AdamSRT) on a noisy Rayleigh loss (λ in {0, 0.1}, "
       "β₁ = 0.9, 200 steps), the buffer used at step k satisfies ⟨m_k, x_k⟩ = (1−β₁)λr_k² and "
       "spherical_step's ⟨c_k,u_k⟩ = λr_k² (error <= 1e-12 relative to ‖m_k‖‖x_k‖, resp. ‖c_k‖).",
       "identity", stochastic=True)
def radial_momentum_identity(run):
    rng = run.rng(120)
    d = 12
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng)
    x0 = rng.standard_normal(d) * 1.5
    checks = []
    for cls in (sph.AdamST, sph.AdamSRT):
        for lam in (0.0, 0.1):
            opt = cls(0.01, betas=(0.9, 0.999), weight_decay=lam)
            xs, _, forms, _ = _run(opt, loss, x0, 200)
            m_err = c_err = 0.0
            for x, form in zip(xs[:-1], forms):
                m = form.a * (1 - 0.9)  # the buffer m_k (a = m/(1−β₁)), before its transport
                r2 = x @ x
                m_err = max(m_err, abs(m @ x - 0.1 * lam * r2) / (np.linalg.norm(m) * math.sqrt(r2)))
                c = sph.spherical_step(x, form.a, form.b, form.learning_rate).c
                c_err = max(c_err, abs(c @ x / math.sqrt(r2) - lam * r2) / np.linalg.norm(c))
            checks += [Check.at_most(m_err, 1e-12, f"{cls.__name__}, λ = {lam}: <m,x>"),
                       Check.at_most(c_err, 1e-12, f"{cls.__name__}, λ = {lam}: <c,u>")]
    return Check.all_of(checks)


def _srt_run(rng, lam, n=150):
    d = 12
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng)
    x0 = rng.standard_normal(d) * 0.7
    betas = (0.9, 0.99)
    opt = sph.AdamSRT(0.1, betas=betas, weight_decay=lam)
    xs, grads, forms, states = _run(opt, loss, x0, n)
    return loss, xs, grads, forms, states, betas, d


@claim("spherical.erratum_eq_3_75_rescaled_momentum", "Roburin (thesis), Eqs 3.73-3.75",
       "Along a trajectory of Adam w/o (abc) (η = 0.1, λ = 0.1, 150 steps), the R-rescaled momentum a_k = βR(a_{k−1}) + "
       "∇L(x_k) + λx_k (β = 0.9, built with rescale_R) equals the corrected unrolled form "
       "(1/r_k)Σ_{i<=k}β^{k−i}(∇L(u_i) + λr_i²u_i) to rtol 1e-12; the printed summand (∇L(u_k) + λr_kr_iu_i) misses "
       "by more than 1e-2 (relative to ‖a_k‖).", "erratum", stochastic=True,
       printed="a_k = (1/r_k) Σ_{i<=k} β^{k−i} (∇L(u_k) + λ r_k r_i u_i)  (3.75)",
       corrected="a_k = (1/r_k) Σ_{i<=k} β^{k−i} (∇L(u_i) + λ r_i² u_i)",
       printed_math=r"a_k = \frac{1}{r_k} \sum_{i \le k} \beta^{k-i} \left(\nabla L(u_k) + \lambda r_k r_i u_i\right)",
       corrected_math=r"a_k = \frac{1}{r_k} \sum_{i \le k} \beta^{k-i} \left(\nabla L(u_i) + \lambda r_i^2 u_i\right)")
def erratum_eq_3_75_rescaled_momentum(run):
    rng = run.rng(121)
    lam, beta = 0.1, 0.9
    _, xs, grads, _, _, _, _ = _srt_run(rng, lam)
    radii = np.linalg.norm(xs, axis=1)
    units = xs / radii[:, None]
    sphere_grads = grads * radii[:-1, None]  # ∇L(u_i) = r_i∇L(x_i)
    a = None
    printed_err = corrected_err = 0.0
    for k in range(len(grads)):
        new = grads[k] + lam * xs[k]
        a = new if a is None else beta * sph.rescale_R(a, xs[k - 1], xs[k]) + new
        weights = beta ** (k - np.arange(k + 1.0))
        corrected = (weights[:, None] * (sphere_grads[:k + 1] + lam * (radii[:k + 1] ** 2)[:, None]
                                         * units[:k + 1])).sum(axis=0) / radii[k]
        printed = (weights[:, None] * (sphere_grads[k] + lam * radii[k] * (radii[:k + 1])[:, None]
                                       * units[:k + 1])).sum(axis=0) / radii[k]
        scale = np.linalg.norm(a)
        corrected_err = max(corrected_err, np.abs(a - corrected).max() / scale)
        printed_err = max(printed_err, np.abs(a - printed).max() / scale)
    return Check.erratum(printed_err, corrected_err, 1e-12, reject_above=1e-2)


@claim("spherical.erratum_nu_rescaled", "Roburin (thesis), §3.5.2 (scheduling with R), Eqs 3.79-3.81",
       "Adam w/o (abc)'s second moment on the sphere, ν_k^R = r_k((1−β₁^{k+1})/(1−β₁))sqrt(v_k/(1−β₂^{k+1})) read "
       "from its state along a run (η = 0.1, λ = 0.3, 150 steps), equals the corrected closed form with λr_i² in the sum "
       "(adam_nu_R) to rtol 1e-12; the printed sum with λr_ir_k misses by more than 1e-3 relative "
       "(nine orders above the corrected form's round-off; it misses by 0.0057 to 0.13, median 0.035, over seed "
       "offsets 0-99, as the radius drifts along the run), and the printed ν^R = r_k v_k by far more.", "erratum", stochastic=True,
       printed="ν^R_k = r_k v_k, with ‖∇L(u_i) + λ r_i r_k u_i‖² in the sum",
       corrected="ν^R_k = r_k (1−β₁^{k+1})/(1−β₁) sqrt(v_k/(1−β₂^{k+1})), with ‖∇L(u_i) + λ r_i² u_i‖² in the sum",
       printed_math=r"\nu^R_k = r_k v_k, \quad \text{with } \lVert \nabla L(u_i) "
                    r"+ \lambda r_i r_k u_i \rVert^2 \text{ in the sum}",
       corrected_math=r"\nu^R_k = r_k \frac{1 - \beta_1^{k+1}}{1 - \beta_1} \sqrt{\frac{v_k}{1 - \beta_2^{k+1}}}, "
                      r"\quad \text{with } \lVert \nabla L(u_i) + \lambda r_i^2 u_i \rVert^2 \text{ in the sum}")
def erratum_nu_rescaled(run):
    rng = run.rng(122)
    lam = 0.3
    _, xs, grads, forms, _, betas, d = _srt_run(rng, lam)
    radii = np.linalg.norm(xs[:-1], axis=1)
    g_sphere = np.linalg.norm(grads, axis=1) * radii
    nu_state = radii * np.array([f.b for f in forms])  # b_k = ((1−β₁^t)/(1−β₁))·sqrt(v̂_k), a scalar
    corrected = sph.adam_nu_R(g_sphere, radii, d, betas, lam)
    beta1, beta2 = betas
    printed = np.empty_like(corrected)
    for k in range(radii.size):  # the sum with ‖∇L(u_i) + λ r_i r_k u_i‖² = g_i² + λ²r_i²r_k²
        weights = beta2 ** (k - np.arange(k + 1.0))
        total = np.sum(weights * (g_sphere[:k + 1] ** 2 + (lam * radii[:k + 1] * radii[k]) ** 2))
        t = k + 1
        printed[k] = ((1 - beta1 ** t) / (1 - beta1)) * math.sqrt((1 - beta2) / (1 - beta2 ** t)) * math.sqrt(total / d)
    c1 = 1 - beta1 ** np.arange(1.0, radii.size + 1)
    c2 = 1 - beta2 ** np.arange(1.0, radii.size + 1)
    v = c2 * (np.array([f.b for f in forms]) * (1 - beta1) / c1) ** 2  # v_k, from b_k = (c1/(1−β₁))·sqrt(v_k/c2)
    printed_rv = radii * v
    printed_error = min(relative_error(printed, nu_state), relative_error(printed_rv, nu_state))
    return Check.erratum(printed_error, relative_error(corrected, nu_state), 1e-12, reject_above=1e-3,
                         detail=f"λr_ir_k sum off by {relative_error(printed, nu_state):.2g}, r_k v_k off by "
                                f"{relative_error(printed_rv, nu_state):.2g}")


@claim("spherical.adam_srt_radius_law", "derived in this project from Roburin (thesis), Algorithm 1 (Adam w/o (abc))",
       "Adam w/o (abc) with β₁ = 0, λ = 0, ε = 0 on tangent gradients of constant norm G (random directions, "
       "d = 24, G in {0.5, 4}, 3000 steps): r_k² = r₀² + η²dk and η_k^e = η√d/(G r_k) (adam_srt_radius_law), both "
       "to rtol 1e-12 (accumulated round-off over the steps), for both engines of simulate: the compiled loop and "
       "the numpy optimizer AdamSRT stepped one step at a time (its R-rescaling of v included), which also agree "
       "with each other step by step over the whole run (rtol 1e-12).", "identity", stochastic=True)
def adam_srt_radius_law_claim(run):
    rng = run.rng(123)
    d, eta, n = 24, 0.01, 3000
    checks = []
    for G in (0.5, 4.0):
        x0 = rng.standard_normal(d)
        loss = sph.RandomLinearLoss.stream(d, G, seed=rng)
        law = sph.adam_srt_radius_law(np.linalg.norm(x0), eta, d, G, np.arange(n + 1))
        runs = {engine: sph.simulate(sph.AdamSRT(eta, betas=(0.0, 0.99)), loss, x0, n, engine=engine)
                for engine in ("numba", "numpy")}
        for engine, trajectory in runs.items():
            checks += [Check.at_most(relative_error(trajectory.radius, law.radius), 1e-12, f"G = {G}, {engine}: radius"),
                       Check.at_most(relative_error(trajectory.effective_learning_rate, law.effective_learning_rate[:-1]), 1e-12,
                                     f"G = {G}, {engine}: effective learning rate")]
        checks += [Check.at_most(relative_error(runs["numpy"].radius, runs["numba"].radius), 1e-12, f"G = {G}: numpy = numba, r"),
                   Check.at_most(relative_error(runs["numpy"].effective_learning_rate, runs["numba"].effective_learning_rate),
                                 1e-12, f"G = {G}: numpy = numba, η^e")]
    return Check.all_of(checks)


# ---------------------------------------------------------------- periodic collapse of GD + WD
@claim("spherical.periodic_collapse",
       "derived in this project from Roburin (thesis), Eq 3.25 with weight decay (cf. Lobacheva et al. 2021)",
       "Deterministic GD + L2 (η = 0.1, λ = 0.01) on a rotated Rayleigh quotient (eigenvalues 0..1, d = 8) has no "
       "fixed-point equilibrium: over 30000 steps it shows at least 2 collapse/burst cycles; while the gradient "
       "on the sphere is below 1e-6 the radius shrinks by exactly 1 − ηλ per step (rtol 1e-9), and each such "
       "stretch follows sgd_l2_collapse_radius r₀(1−ηλ)^k (rtol 1e-9), so η^e grows like (1−ηλ)^{−2k}. Burst by burst (a burst is a step where the radius starts to grow again): the stretch "
       "since the previous burst holds a quiet phase (gradient on the sphere below 1e-6), η^e is below the "
       "stability threshold 2/(λ_max − λ_min) of the minimum on the sphere when that phase begins (the minimum is "
       "stable when the run settles in it) and above it at the phase's last step (it crossed before the burst).",
       "theorem", stochastic=True)
def periodic_collapse(run):
    rng = run.rng(124)
    d, eta, lam = 8, 0.1, 0.01
    loss, trajectory = sph.collapse_run(30000, d, eta, lam, seed=rng)
    ratio = trajectory.radius[1:] / trajectory.radius[:-1]
    quiet = trajectory.sphere_grad_norm < 1e-6
    growing = ratio > 1.0
    starts = np.flatnonzero(~growing[:-1] & growing[1:]) + 1
    threshold = loss.stability_threshold
    effective = trajectory.effective_learning_rate
    quiet_steps, settle_margins, cross_margins = [], [], []
    previous = 0
    for k in starts:  # each burst against its own cycle, not the history before it
        phase = np.flatnonzero(quiet[previous:k]) + previous
        quiet_steps.append(phase.size)
        if phase.size:
            settle_margins.append(1 - effective[phase[0]] / threshold)
            cross_margins.append(effective[phase[-1]] / threshold - 1)
        previous = k
    no_phase = -1.0  # a burst without a quiet phase before it fails both orderings
    # each quiet stretch against the closed form r_{k0}(1 − ηλ)^j: rtol 1e-9, the per-step rate's tolerance, where
    # the gradient's O(η²g²/r⁴) terms leave ~1e-11 over a stretch (measured <= 7e-12)
    quiet_idx = np.flatnonzero(quiet)
    law_error = 0.0
    for stretch in np.split(quiet_idx, np.flatnonzero(np.diff(quiet_idx) > 1) + 1):
        if stretch.size:
            k0, n = stretch[0], stretch.size
            law = sph.sgd_l2_collapse_radius(trajectory.radius[k0], eta, lam, np.arange(n + 1))
            law_error = max(law_error, float(np.max(np.abs(trajectory.radius[k0:k0 + n + 1] / law - 1))))
    return Check.all_of([
        Check.at_least(len(starts), 2, f"{len(starts)} bursts"),
        Check.at_most(law_error, 1e-9, f"quiet stretches vs sgd_l2_collapse_radius: {law_error:.1e}"),
        Check.at_most(float(np.max(np.abs(ratio[quiet] / (1 - eta * lam) - 1))), 1e-9, "collapse rate 1 − ηλ"),
        Check.at_least(min(quiet_steps, default=0), 1, f"fewest quiet steps in a cycle: {min(quiet_steps, default=0)}"),
        Check.predicate(min(settle_margins, default=no_phase) if len(settle_margins) == len(starts) else no_phase,
                        "η^e below 2/(λ_max − λ_min) when each quiet phase begins (smallest margin)"),
        Check.predicate(min(cross_margins, default=no_phase) if len(cross_margins) == len(starts) else no_phase,
                        "η^e above 2/(λ_max − λ_min) at the last quiet step before each burst (smallest margin)")])


# ---------------------------------------------------------------- further errata of the thesis
@claim("spherical.erratum_sgd_l2_sign", "Roburin (thesis), §3.4.2 (SGD + L2 update), Table 3.1",
       "The thesis's §3.4.2 prints the SGD + L2 update with ∇L − λx: its momentum on the sphere has ⟨c,u⟩ = −λr², "
       "contradicting Table 3.1's +λr² (relative miss 2), while SGD with weight_decay (∇L + λx) gives ⟨c,u⟩ = λr² to 1e-12 "
       "(spherical_step on both updates, random points of a Rayleigh loss).", "erratum", stochastic=True,
       printed="x_{k+1} = x_k − η(∇L(x_k) − λ_k x_k)", corrected="x_{k+1} = x_k − η(∇L(x_k) + λ_k x_k)",
       printed_math=r"x_{k+1} = x_k - \eta \left(\nabla L(x_k) - \lambda_k x_k\right)",
       corrected_math=r"x_{k+1} = x_k - \eta \left(\nabla L(x_k) + \lambda_k x_k\right)")
def erratum_sgd_l2_sign(run):
    rng = run.rng(125)
    d, eta, lam = 10, 0.05, 0.2
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng)
    printed = corrected = 0.0
    for k in range(20):
        x = rng.standard_normal(d) * rng.uniform(0.5, 2.0)
        r2 = x @ x
        g = loss.grad(x, k)
        opt = sph.SGD(eta, weight_decay=lam)
        opt.step(x, g)
        form = opt.last_generic_form
        c_ok = sph.spherical_step(x, form.a, form.b, form.learning_rate).c
        c_bad = sph.spherical_step(x, g - lam * x, 1.0, eta).c
        corrected = max(corrected, abs(c_ok @ x / math.sqrt(r2) / (lam * r2) - 1))
        printed = max(printed, abs(c_bad @ x / math.sqrt(r2) / (lam * r2) - 1))
    return Check.erratum(printed, corrected, 1e-12, reject_above=1.0)


@claim("spherical.erratum_theorem4_small_parameter", "Roburin (thesis), Theorem 4 (order 2), Fig B.3",
       "Theorem 4's expansion drops η⁴g⁴/r_k⁴ from r_{k+1}⁴ = r_k⁴ + 2η²g² + η⁴g⁴/r_k⁴, which relative to the "
       "kept increment is tan²θ_k/2 exactly (recorded angles, rtol 1e-10); the small parameter (ηg)²/r_k⁴ = "
       "tan²θ_k is the same in the exactly equivalent runs SGD(η; ρx₀) and SGD(η/ρ², x₀) (ρ = 3, rtol 1e-10), "
       "while the printed (ηg)²/r_k² differs between them by the factor ρ² (relative miss 8).", "erratum",
       stochastic=True, printed="small parameter (η_k‖∇L(u_k)‖)²/r_k²",
       corrected="small parameter (η_k‖∇L(u_k)‖)²/r_k⁴ = tan²θ_k",
       printed_math=r"\text{small parameter } \left(\eta_k \lVert \nabla L(u_k) \rVert\right)^2 / r_k^2",
       corrected_math=r"\text{small parameter } \left(\eta_k \lVert \nabla L(u_k) \rVert\right)^2 / r_k^4 "
                      r"= \tan^2 \theta_k")
def erratum_theorem4_small_parameter(run):
    rng = run.rng(126)
    d, eta, rho, n = 12, 0.05, 3.0, 500
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng)
    x0 = rng.standard_normal(d)
    big = sph.simulate(sph.SGD(eta), loss, rho * x0, n)
    small = sph.simulate(sph.SGD(eta / rho ** 2), loss, x0, n)
    parameters = []
    for trajectory, lr in ((big, eta), (small, eta / rho ** 2)):
        r = trajectory.radius[:-1]
        g = trajectory.sphere_grad_norm
        parameters.append(((lr * g) ** 2 / r ** 4, (lr * g) ** 2 / r ** 2))
    corrected = relative_error(parameters[0][0], parameters[1][0])
    printed = relative_error(parameters[0][1], parameters[1][1])
    tan2 = np.tan(big.angle) ** 2
    dropped = relative_error(0.5 * parameters[0][0], 0.5 * tan2)
    return Check.erratum(printed, max(corrected, dropped), 1e-10, reject_above=1.0,
                         detail=f"tan²θ/2 identity {dropped:.1e}")


@claim("spherical.erratum_fig35_deformation", "Roburin (thesis), Fig 3.5 caption (b), §3.5.1 (a)",
       "The Fig 3.5 caption's deformation uses the norm ‖∇L(u)‖ where the element-wise |∇L(u)| belongs: Adam's "
       "first-step momentum on the sphere (spherical_step's c₀, ε = 0) equals ψ(g) = g ⊘ (|g|/(d^{−1/2}‖g‖)) to "
       "1e-15 relative on every synthetic loss, while the printed g ⊘ (‖g‖/(d^{−1/2}‖g‖)) = g/√d misses by more "
       "than 0.1.", "erratum", stochastic=True,
       printed="ψ(∇L(u)) = ∇L(u) ⊘ (‖∇L(u)‖/(d^{−1/2}‖∇L(u)‖))",
       corrected="ψ(∇L(u)) = ∇L(u) ⊘ (|∇L(u)|/(d^{−1/2}‖∇L(u)‖)) (element-wise |·|)",
       printed_math=r"\psi(\nabla L(u)) = \nabla L(u) \oslash "
                    r"\left(\lVert \nabla L(u) \rVert / (d^{-1/2} \lVert \nabla L(u) \rVert)\right)",
       corrected_math=r"\psi(\nabla L(u)) = \nabla L(u) \oslash "
                      r"\left(\lvert \nabla L(u) \rvert / (d^{-1/2} \lVert \nabla L(u) \rVert)\right) "
                      r"\quad (\text{element-wise } \lvert \cdot \rvert)")
def erratum_fig35_deformation(run):
    rng = run.rng(127)
    printed, corrected = math.inf, 0.0
    for loss in _losses(rng).values():
        x0 = rng.standard_normal(loss.dimension)
        g_x = loss.grad(x0, 0)
        opt = sph.Adam(0.01)
        opt.step(x0, g_x)
        form = opt.last_generic_form
        c0 = sph.spherical_step(x0, form.a, form.b, form.learning_rate).c
        g = np.linalg.norm(x0) * g_x
        scale = np.linalg.norm(g) / math.sqrt(g.size)
        corrected = max(corrected, np.abs(c0 - g / (np.abs(g) / scale)).max() / np.abs(c0).max())
        printed = min(printed, np.abs(c0 - g / (np.linalg.norm(g) / scale)).max() / np.abs(c0).max())
    return Check.erratum(printed, corrected, 1e-15, reject_above=0.1)


@claim("spherical.erratum_appendix_b2_schedule", "Roburin (thesis), App. B.2, Eq 3.44",
       "App. B.2 prints the learning-rate schedule that makes SGD without weight decay equivalent to SGD + L2 as "
       "η_k = (1−ηλ)^{−2i−k}η, with a stray index i; Eq 3.44's schedule is η_k = (1−ηλ)^{−2k−1}η. On a noisy "
       "Rayleigh loss and a random linear loss (d = 16, η = 0.05, λ = 0.01, 1000 steps), SGD without weight decay on "
       "the corrected schedule (exponential_lr_schedule) follows SGD + L2's directions (max |Δu| <= 1e-10), and its "
       "rates satisfy B.2's ratio Σ_{i<k}η_i²/η_k² = (1 − (1−ηλ)^{4k})/((1−ηλ)^{−4} − 1) (rtol 1e-12); the printed "
       "schedule, read with i = k (exponent −3k) or with i = 0 (exponent −k), leaves SGD + L2's directions by more "
       "than 1e-2 on both losses.", "erratum", stochastic=True,
       printed="η_k = (1−ηλ)^{−2i−k} η  (App. B.2)", corrected="η_k = (1−ηλ)^{−2k−1} η  (the schedule of Eq 3.44)",
       printed_math=r"\eta_k = (1 - \eta\lambda)^{-2i-k} \eta",
       corrected_math=r"\eta_k = (1 - \eta\lambda)^{-2k-1} \eta")
def erratum_appendix_b2_schedule(run):
    rng = run.rng(128)
    d, eta, lam, n = 16, 0.05, 0.01, 1000
    losses = {"Rayleigh": sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng),
              "random linear": sph.RandomLinearLoss.stream(d, seed=rng)}
    x0 = rng.standard_normal(d)
    decay = 1 - eta * lam
    readings = {"i = k": lambda k: eta * decay ** (-3.0 * np.asarray(k, float)),
                "i = 0": lambda k: eta * decay ** (-1.0 * np.asarray(k, float))}
    corrected = sph.exponential_lr_schedule(eta, lam)
    k = np.arange(1, n)
    rates = corrected(np.arange(n))
    ratio = np.cumsum(rates ** 2)[:-1] / rates[1:] ** 2
    identity = relative_error(ratio, (1 - decay ** (4.0 * k)) / (decay ** -4.0 - 1))
    corrected_error, printed_error = 0.0, math.inf
    for loss in losses.values():
        reference = sph.simulate(sph.SGD(eta, weight_decay=lam), loss, x0, n, record_every=1).directions
        schedule = sph.simulate(sph.SGD(corrected), loss, x0, n, record_every=1).directions
        corrected_error = max(corrected_error, float(np.abs(schedule - reference).max()))
        for reading in readings.values():
            printed = sph.simulate(sph.SGD(reading), loss, x0, n, record_every=1).directions
            printed_error = min(printed_error, float(np.abs(printed - reference).max()))
    return Check.all_of([Check.erratum(printed_error, corrected_error, 1e-10, reject_above=1e-2),
                         Check.at_most(identity, 1e-12, "B.1-B.2 ratio of the corrected schedule")])


@claim("spherical.erratum_algorithm1_line10_transport", "Roburin (thesis), Algorithm 1 (line 10), Eqs 3.70, 3.73, 3.76",
       "Algorithm 1's line 10 prints the transport of the first moment as m_k(x_{k+1}ᵀx_k m_k − (m_kᵀx_{k+1})x_k)/"
       "(x_{k+1}ᵀx_{k+1}), with a stray leading factor m_k; the transport is RT(m_k) of Eq 3.76. Along a run of Adam "
       "w/o (abc) (AdamSRT, η = 0.05, β = (0.9, 0.99), λ = 0.1, ε = 0, 100 steps on a noisy Rayleigh loss, d = 12), "
       "the corrected line applied to the buffer before its transport equals the buffer the optimizer stores, equals "
       "R(T(m_k)) built from Eqs 3.70 and 3.73 (transport_T, rescale_R) and is tangent at x_{k+1} (all 1e-12 "
       "relative); the printed line, read with the leading m_k as an element-wise factor, misses R(T(m_k)) by more "
       "than 0.1 relative at every step.", "erratum", stochastic=True,
       printed="m_k ← m_k(x_{k+1}ᵀx_k m_k − (m_kᵀx_{k+1}) x_k)/(x_{k+1}ᵀx_{k+1})  (Algorithm 1, line 10)",
       corrected="m_k ← (x_{k+1}ᵀx_k m_k − (m_kᵀx_{k+1}) x_k)/(x_{k+1}ᵀx_{k+1}) = RT(m_k)  (Eq 3.76)",
       printed_math=r"m_k \leftarrow m_k \frac{x_{k+1}^\top x_k m_k - (m_k^\top x_{k+1}) x_k}{x_{k+1}^\top x_{k+1}}",
       corrected_math=r"m_k \leftarrow \frac{x_{k+1}^\top x_k m_k - (m_k^\top x_{k+1}) x_k}{x_{k+1}^\top x_{k+1}} "
                      r"= RT(m_k)")
def erratum_algorithm1_line10_transport(run):
    rng = run.rng(129)
    d, beta1 = 12, 0.9
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng)
    xs, _, forms, states = _run(sph.AdamSRT(0.05, betas=(beta1, 0.99), weight_decay=0.1), loss,
                                rng.standard_normal(d) * 1.5, 100)
    stored_err = transport_err = tangency = 0.0
    printed_err = math.inf
    for k in range(len(forms) - 1):
        x, x_next = xs[k], xs[k + 1]
        m = forms[k].a * (1 - beta1)  # the buffer m_k of step k, before its transport
        bracket = ((x_next @ x) * m - (m @ x_next) * x) / (x_next @ x_next)
        truth = sph.rescale_R(sph.transport_T(m, x, x_next), x, x_next)
        scale = np.linalg.norm(truth)
        stored_err = max(stored_err, np.abs(states[k + 1]["exp_avg"] - bracket).max() / scale)
        transport_err = max(transport_err, np.abs(bracket - truth).max() / scale)
        tangency = max(tangency, abs(bracket @ x_next) / (scale * np.linalg.norm(x_next)))
        printed_err = min(printed_err, np.linalg.norm(m * bracket - truth) / scale)
    return Check.erratum(printed_err, max(stored_err, transport_err, tangency), 1e-12, reject_above=0.1,
                         detail=f"stored buffer {stored_err:.1e}, R∘T {transport_err:.1e}, tangency {tangency:.1e}")


@claim("spherical.erratum_algorithm1_bias_index", "Roburin (thesis), Algorithm 1, Eq 3.79",
       "Algorithm 1 increments k at the top of its loop and then corrects the moments by 1 − β^{k+1}: with k starting "
       "at 0 its first step uses t = 2, whereas Eq 3.79 (and the optimizer) use t = k + 1 = 1. The corrections exist "
       "to undo the zero start of the moments: fed a constant gradient g (λ = 0, β = (0.9, 0.99), 40 steps), Adam "
       "w/o (a)'s state gives m_k/(1−β₁^{k+1}) = g and v_k/(1−β₂^{k+1}) = ‖g‖²/d (1e-14 relative), and Adam w/o "
       "(abc)'s first step has the unbiased length ‖x₁ − x₀‖ = η√d (m̂₀ = g̃₀, v̂₀ = ‖g̃₀‖²/d; 1e-14 relative) on a "
       "noisy Rayleigh loss; with t = k + 2 the corrected first moment misses g by β₁/(1+β₁) and the first step's length misses by "
       "1 − sqrt(1+β₂)/(1+β₁) (both > 0.2).", "erratum", stochastic=True,
       printed="k ← k + 1 at the top of the loop, then 1 − β₁^{k+1}, 1 − β₂^{k+1}  (t = 2 at the first step)",
       corrected="t = k + 1 at step k = 0, 1, ... (t = 1 at the first step), as in Eq 3.79",
       printed_math=r"k \leftarrow k + 1 \text{ at the top of the loop, then } 1 - \beta_1^{k+1},\ 1 - \beta_2^{k+1} "
                    r"\quad (t = 2 \text{ at the first step})",
       corrected_math=r"t = k + 1 \text{ at step } k = 0, 1, \dots \quad (t = 1 \text{ at the first step})")
def erratum_algorithm1_bias_index(run):
    rng = run.rng(130)
    d, eta, betas = 12, 0.05, (0.9, 0.99)
    beta1, beta2 = betas
    g = rng.standard_normal(d)
    target_v = float(g @ g) / d
    opt = sph.AdamS(eta, betas=betas)
    x = rng.standard_normal(d)
    corrected = printed_moment = 0.0
    for k in range(40):
        x = opt.step(x, g)
        m, v = opt.state["exp_avg"], opt.state["exp_avg_sq"]
        for t, which in ((k + 1, "corrected"), (k + 2, "printed")):
            error = max(np.abs(m / (1 - beta1 ** t) - g).max() / np.abs(g).max(),
                        abs(v / (1 - beta2 ** t) / target_v - 1))
            if which == "corrected":
                corrected = max(corrected, error)
            else:
                printed_moment = max(printed_moment, error)
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng)
    x0 = rng.standard_normal(d) * 2.0
    srt = sph.AdamSRT(eta, betas=betas, weight_decay=0.1)
    g0 = loss.grad(x0, 0)
    x1 = srt.step(x0, g0)
    corrected = max(corrected, abs(np.linalg.norm(x1 - x0) / (eta * math.sqrt(d)) - 1))
    g_tilde = g0 + 0.1 * x0  # the printed algorithm's first step: the same moments, corrected with t = 2
    m0, v0 = (1 - beta1) * g_tilde, (1 - beta2) * float(g_tilde @ g_tilde) / d
    printed_step = eta * np.linalg.norm(m0 / (1 - beta1 ** 2)) / math.sqrt(v0 / (1 - beta2 ** 2))
    printed_length = abs(printed_step / (eta * math.sqrt(d)) - 1)
    return Check.erratum(min(printed_moment, printed_length), corrected, 1e-14, reject_above=0.2,
                         detail=f"printed index: first moment off by {printed_moment:.3f}, first step by "
                                f"{printed_length:.3f}")


@claim("spherical.erratum_appendix_c1_adagrad_lr", "Roburin (thesis), App. C.1, Eq 3.26",
       "App. C.1 prints AdaGrad's effective learning rate as η^e_AdaGrad = … = η^e_SGD = 1/(d^{−1/2}‖b‖); by Eq 3.26 "
       "(A_k = η_k/(r_k²d^{−1/2}‖b_k‖)) it is η^e_SGD/(d^{−1/2}‖b_k‖) at the same η. Along an element-wise AdaGrad "
       "run (η = 0.05, λ = 0, ε = 0, 60 steps on a noisy Rayleigh loss, d = 12, r₀ = 0.5), the scalar measured from "
       "the step, ‖(x_{k+1} − x_k)⊥‖/(r_k‖c_k⊥‖) with c_k = r_k a_k ⊘ (b_k/(d^{−1/2}‖b_k‖)) (Theorem 2), equals "
       "(η/r_k²)/s_k with η/r_k² the SGD rate at that radius and s_k = d^{−1/2}‖sqrt(v_k)‖ read from the "
       "optimizer's accumulator (1e-12 relative); the printed '= η^e_SGD' misses by |1/s_k − 1| and '= 1/s_k' by "
       "|η/r_k² − 1|, both more than 0.1 at every step from the fifth on (when the accumulator has grown).",
       "erratum", stochastic=True,
       printed="η^e_AdaGrad = … = η^e_SGD = 1/(d^{−1/2}‖b‖)  (App. C.1)",
       corrected="η^e_AdaGrad = η^e_SGD · 1/(d^{−1/2}‖b_k‖), the same η  (A_k of Eq 3.26)",
       printed_math=r"\eta^e_{\mathrm{AdaGrad}} = \dots = \eta^e_{\mathrm{SGD}} = \frac{1}{d^{-1/2} \lVert b \rVert}",
       corrected_math=r"\eta^e_{\mathrm{AdaGrad}} = \eta^e_{\mathrm{SGD}} "
                      r"\cdot \frac{1}{d^{-1/2} \lVert b_k \rVert}\text{, the same } \eta")
def erratum_appendix_c1_adagrad_lr(run):
    rng = run.rng(131)
    d, eta = 12, 0.05
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng)
    opt = sph.AdaGrad(eta)
    x = rng.standard_normal(d)
    x *= 0.5 / np.linalg.norm(x)  # r₀ = 0.5: η/r_k² about 0.2
    corrected, printed = 0.0, math.inf
    for k in range(60):
        r = np.linalg.norm(x)
        u = x / r
        x_next = opt.step(x, loss.grad(x, k))
        a, b = opt.last_generic_form.a, opt.last_generic_form.b
        s = math.sqrt(float(np.sum(opt.state["sum"])) / d)  # d^{-1/2}‖sqrt(v_k)‖ from the accumulator
        c = r * a / (b / (np.linalg.norm(b) / math.sqrt(d)))
        c_perp = c - (c @ u) * u
        step = x_next - x
        measured = np.linalg.norm(step - (step @ u) * u) / (r * np.linalg.norm(c_perp))
        sgd = eta / r ** 2
        corrected = max(corrected, abs(measured / (sgd / s) - 1))
        if k >= 5:  # by then the accumulator has grown: s_k >= 2
            printed = min(printed, abs(measured / sgd - 1), abs(measured * s - 1))
        x = x_next
    return Check.erratum(printed, corrected, 1e-12, reject_above=0.1)


@claim("spherical.erratum_sgdw_sign", "Roburin (thesis), §2.3.2, Eq 2.14 (SGD-W)",
       "Eq 2.14 prints SGD with decoupled weight decay as x_{k+1} = x_k − η∇L(x_k) + λx_k; decoupled decay is "
       "x_{k+1} = x_k − η∇L(x_k) − ηλx_k, which shrinks the weights by 1 − ηλ. At random points of the four synthetic "
       "losses (η = 0.05, λ = 0.1), the corrected step equals the optimizer's SGD + L2 step (the same update for plain "
       "SGD) and gives ‖x_{k+1}‖² = (1−ηλ)²‖x_k‖² + η²‖∇L(x_k)‖² (Eq 3.25 with its decay; tangent gradient by "
       "Lemma 1), both to 1e-14 relative; the printed step, which grows the weights by 1 + λ, misses the optimizer's "
       "step by more than 0.05 relative.", "erratum", stochastic=True,
       printed="x_{k+1} = x_k − η∇L(x_k) + λx_k  (2.14)", corrected="x_{k+1} = x_k − η∇L(x_k) − ηλx_k",
       printed_math=r"x_{k+1} = x_k - \eta \nabla L(x_k) + \lambda x_k",
       corrected_math=r"x_{k+1} = x_k - \eta \nabla L(x_k) - \eta\lambda x_k")
def erratum_sgdw_sign(run):
    rng = run.rng(132)
    eta, lam = 0.05, 0.1
    corrected, printed = 0.0, math.inf
    for loss in _losses(rng).values():
        for k in range(5):
            x = rng.standard_normal(loss.dimension) * rng.uniform(0.5, 2.0)
            g = loss.grad(x, k)
            reference = sph.SGD(eta, weight_decay=lam).step(x, g)
            good, bad = x - eta * g - eta * lam * x, x - eta * g + lam * x
            scale = np.linalg.norm(reference)
            radius = (1 - eta * lam) ** 2 * (x @ x) + eta ** 2 * (g @ g)
            corrected = max(corrected, np.linalg.norm(good - reference) / scale, abs((good @ good) / radius - 1))
            printed = min(printed, np.linalg.norm(bad - reference) / scale)
    return Check.erratum(printed, corrected, 1e-14, reject_above=0.05)


@claim("spherical.erratum_b1_tangential_projection", "Roburin (thesis), §3.5.1 (b1), Eqs 3.52-3.54",
       "§3.5.1 (b1) prints each past gradient's contribution to c_k⊥ as '∇L(u_i) ⟨∇L(u_i),u_k⟩u_k' (the minus sign "
       "lost); the contribution is the tangential part ∇L(u_i) − ⟨∇L(u_i),u_k⟩u_k. Along SGD-M (γ = 0.9, λ = 0, "
       "η = 0.05, 100 steps on a noisy Rayleigh loss, d = 12), c_k⊥ of spherical_step equals "
       "Σ_{i<=k} γ^{k−i}(r_k/r_i)(∇L(u_i) − ⟨∇L(u_i),u_k⟩u_k) (Eq 3.54 projected; 1e-12 relative to ‖c_k⊥‖); the "
       "printed term, read with the lost operator as + or as a product ⟨∇L(u_i),u_k⟩ ∇L(u_i) ⊙ u_k, misses c_k⊥ by "
       "more than 1e-2 relative (the largest miss over steps 10..99, the smaller of the two readings).", "erratum",
       stochastic=True, printed="∇L(u_i) ⟨∇L(u_i),u_k⟩u_k  (§3.5.1 (b1))",
       corrected="∇L(u_i) − ⟨∇L(u_i),u_k⟩u_k  (the tangential part at u_k)",
       printed_math=r"\nabla L(u_i) \; \langle \nabla L(u_i), u_k \rangle u_k",
       corrected_math=r"\nabla L(u_i) - \langle \nabla L(u_i), u_k \rangle u_k "
                      r"\quad (\text{the tangential part at } u_k)")
def erratum_b1_tangential_projection(run):
    rng = run.rng(133)
    d, eta, gamma = 12, 0.05, 0.9
    loss = sph.RayleighLoss(_symmetric(rng, d), noise_std=0.5, seed=rng)
    xs, grads, forms, _ = _run(sph.SGD(eta, momentum=gamma), loss, rng.standard_normal(d), 100)
    radii = np.linalg.norm(xs, axis=1)
    units = xs / radii[:, None]
    sphere_grads = grads * radii[:-1, None]  # ∇L(u_i) = r_i ∇L(x_i) (Lemma 1)
    corrected = 0.0
    misses = {"+": 0.0, "product": 0.0}
    for k in range(10, len(forms)):
        u = units[k]
        c = sph.spherical_step(xs[k], forms[k].a, forms[k].b, forms[k].learning_rate).c
        c_perp = c - (c @ u) * u
        weights = gamma ** (k - np.arange(k + 1.0)) * radii[k] / radii[:k + 1]
        past = sphere_grads[:k + 1]
        radial = past @ u
        forms_ = {"corrected": past - radial[:, None] * u, "+": past + radial[:, None] * u,
                  "product": radial[:, None] * past * u}
        scale = np.linalg.norm(c_perp)
        for name, terms in forms_.items():
            error = np.linalg.norm(weights @ terms - c_perp) / scale
            if name == "corrected":
                corrected = max(corrected, error)
            else:
                misses[name] = max(misses[name], error)
    return Check.erratum(min(misses.values()), corrected, 1e-12, reject_above=1e-2,
                         detail=f"'+' reading off by {misses['+']:.3g}, product reading by {misses['product']:.3g}")


# Table B.2 of Roburin (thesis): the best λ × 10⁴ per set-up (rows) and method (Adam, AdamW, AdamG, w/o (a),
# w/o (ab), w/o (abc)), printed to two decimals.
_TABLE_B2_LAMBDA_E4 = ((2.5, 5, 1.25, 0.31, 1.25, 5), (2.5, 0.08, 0.63, 2.5, 1.25, 0.16),
                       (2.5, 0.31, 2.5, 0.63, 0.00, 0.31), (1.25, 1.25, 1.25, 1.25, 1.25, 0.00),
                       (0.63, 0.16, 0.63, 0.63, 1.25, 0.08), (0.00, 0.08, 5, 0.31, 5, 0.08),
                       (0.00, 0.31, 5, 0.08, 2.5, 2.5))


@claim("spherical.erratum_lambda_grid", "Roburin (thesis), §3.5.3, Table B.2",
       "§3.5.3 prints the weight-decay grid as 1e-3·{0, 1/128, 1/64, 1/32, 1/32, 1/16, 1/8, 1/4}: 1/32 twice and no "
       "1/2. Every best λ of Table B.2 (42 entries, λ×10⁴ to two decimals) must be a grid value: the grid with the "
       "duplicate replaced by 1/2 holds all of them to the table's rounding (0.005 in units of 1e-4), while the "
       "printed grid misses the five entries λ = 5e-4 = 1e-3/2 by 2.5e-4 (2.5 in units of 1e-4).", "erratum",
       subject="source", printed="λ ∈ 1e-3·{0, 1/128, 1/64, 1/32, 1/32, 1/16, 1/8, 1/4}  (§3.5.3)",
       corrected="λ ∈ 1e-3·{0, 1/128, 1/64, 1/32, 1/16, 1/8, 1/4, 1/2}",
       printed_math=r"\lambda \in 10^{-3} \cdot \{0, 1/128, 1/64, 1/32, 1/32, 1/16, 1/8, 1/4\}",
       corrected_math=r"\lambda \in 10^{-3} \cdot \{0, 1/128, 1/64, 1/32, 1/16, 1/8, 1/4, 1/2\}")
def erratum_lambda_grid():
    entries = np.array(_TABLE_B2_LAMBDA_E4, dtype=float).ravel()
    printed = 10.0 * np.array([0, 1 / 128, 1 / 64, 1 / 32, 1 / 32, 1 / 16, 1 / 8, 1 / 4])  # in units of 1e-4
    corrected = 10.0 * np.array([0, 1 / 128, 1 / 64, 1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2])

    def worst_miss(grid):
        return float(np.max(np.min(np.abs(entries[:, None] - grid[None, :]), axis=1)))

    missing = int(np.sum(np.min(np.abs(entries[:, None] - printed[None, :]), axis=1) > 0.005 + 1e-12))
    return Check.all_of([
        Check.erratum(worst_miss(printed), worst_miss(corrected), 0.005 + 1e-12, reject_above=0.5,
                      detail=f"{missing} of {entries.size} Table B.2 entries outside the printed grid; printed "
                             f"grid has {printed.size - np.unique(printed).size} duplicate"),
        Check.at_least(np.unique(corrected).size, corrected.size, "the corrected grid's values are distinct")])


# A plausible bug these claims catch (planted in a copy of the library by tests/test_mutations.py).
planted_bug("spherical: Theorem 2 step: effective rate over r instead of r squared", "dynamics/spherical/_kernels.py",
            "A_i = learning_rate[i] / (r * r * scale)", "A_i = learning_rate[i] / (r * scale)",
            ("spherical.theorem2_one_step",))
planted_bug("spherical: stability threshold 1/(λ_max − λ_min) instead of 2/(λ_max − λ_min)",
            "dynamics/spherical/_losses.py",
            "else 2.0 / spread", "else 1.0 / spread", ("spherical.periodic_collapse",))
planted_bug("spherical: AdamSRT (numpy) v rescaled by r_{k+1}²/r_k² instead of r_k²/r_{k+1}²",
            "dynamics/spherical/_optimizers.py",
            "v = v * float(x @ x) / (float(x_next @ x_next) + self.eps)",
            "v = v * float(x_next @ x_next) / (float(x @ x) + self.eps)", ("spherical.adam_srt_radius_law",))
# Found by the mutation campaign (tools/mutation_campaign.py): each survived the claims before they were made strict.
planted_bug("spherical: BN-probe loss kernel uses σ(m) for σ(−m) in its gradient", "dynamics/spherical/_kernels.py",
            "gz[b] = -t * sigmoid_kernel(-margin) * readout / B", "gz[b] = -t * sigmoid_kernel(margin) * readout / B",
            ("spherical.pythagorean_growth",))
planted_bug("spherical: AdamG kernel renormalises to radius 2", "dynamics/spherical/_kernels.py",
            "decay = 1.0 / (rn + eps)", "decay = 2.0 / (rn + eps)", ("spherical.theorem2_one_step",))


# ---------------------------------------------------------------- symbolic claims
# Each closed form of dynamics/spherical/_closed_forms.py against the relation it solves, simplified by sympy, and
# the library against the sympy expression evaluated by mpmath at 30 digits (verify/symbolic.py). The relative
# error bounds are first-order round-off analyses in units of ε = 2^-52: a sum of positive terms is as accurate as its
# least accurate term, (1 − ηλ) computed from the rounded product ηλ carries ε(1 + ηλ/(1 − ηλ)), a difference
# a − b carries ε(|a| + |b|)/|a − b|, and a k-th power multiplies its base's relative error by k.
# DERIVATIONS lists every closed form of the module, the relation it solves and the claim that checks it.
# The numeric claims that share a closed form's name (sgd_l2_equilibrium, ...) are defined as <name>_claim: the
# coverage table resolves a call sph.<name>(...) to a function of this module of that name and follows it.
_THESIS = "Roburin (thesis)"

#: The closed forms of the spherical view, the relation each solves and the symbolic claim that checks it.
DERIVATIONS = (
    derivation(("spherical.sgd_l2_radius_map", "spherical.sgd_radius_sequence"),
               r"\begin{gathered} s_{k+1} = (1-\eta\lambda)^2 s_k + \eta^2 g_k^2 / s_k,\quad s_k = \lVert x_k \rVert^2 \\ "
               r"\nabla L(x) \perp x,\ \lVert \nabla L(x) \rVert = g/r \end{gathered}",
               "exact", "spherical.symbolic_sgd_l2_one_step", f"{_THESIS}, Eqs 3.25, 3.46 (Lemma 1)"),
    derivation("spherical.sgd_l2_collapse_radius", r"r_{k+1} = (1-\eta\lambda) r_k,\quad r(0) = r_0",
               "exact", "spherical.symbolic_sgd_l2_one_step", f"{_THESIS}, Eq 3.25 at g = 0"),
    derivation("spherical.sgd_effective_lr",
               r"\eta^e = \frac{A}{1 - A\langle c, u\rangle},\quad A = \frac{\eta}{r^2},\quad "
               r"\langle c, u\rangle = \lambda r^2",
               "exact", "spherical.symbolic_sgd_l2_one_step", f"{_THESIS}, Theorem 2, Table 3.1"),
    derivation("spherical.sgd_l2_equilibrium",
               r"\begin{gathered} s_* = (1-\eta\lambda)^2 s_* + \eta^2 G^2 / s_*,\quad "
               r"\eta^e_* = \frac{\eta}{(1-\eta\lambda) s_*} \\ \tan\theta_* = \eta^e_* G \end{gathered}",
               "exact", "spherical.symbolic_sgd_l2_equilibrium", f"derived in this project from {_THESIS}, Eq 3.25",
               note=r"The fixed point $s_*$ of Eq 3.25's map $s \mapsto \rho s + \eta^2 G^2/s$, $\rho = (1-\eta\lambda)^2$, "
                    r"solves $(1-\rho)s_*^2 = \eta^2 G^2$; since $1 - \rho = \eta\lambda(2-\eta\lambda)$, "
                    r"$r_*^4 = s_*^2 = \eta G^2/(\lambda(2-\eta\lambda))$. Table 3.1's rate at that radius is "
                    r"$\eta^e_* = \sqrt{\eta\lambda(2-\eta\lambda)}/((1-\eta\lambda)G)$, and Theorem 2's angle "
                    r"$\tan\theta_* = \eta^e_* G$ gives $\cos^2\theta_* = 1/(1+\tan^2\theta_*) = (1-\eta\lambda)^2$."),
    derivation("spherical.sgd_l2_invariant_interval",
               r"\begin{gathered} L = \rho L + \frac{\eta^2 g_{\min}^2}{L},\quad U = \rho U + \frac{\eta^2 g_{\max}^2}{U} "
               r"\\ \rho L + \frac{\eta^2 g_{\max}^2}{L} \le U \iff \rho g_{\min} \ge (1-\rho) g_{\max} \end{gathered}",
               "exact", "spherical.symbolic_sgd_l2_equilibrium", f"derived in this project from {_THESIS}, Eq 3.25",
               note=r"The map $m_g(s) = \rho s + \eta^2 g^2/s$ increases with $g$ and is convex in $s$ with its minimum "
                    r"at $s = \eta g/\sqrt\rho$. Its fixed points at $g_{\min}$ and $g_{\max}$ are "
                    r"$L = \eta g_{\min}/\sqrt{1-\rho}$ and $U = \eta g_{\max}/\sqrt{1-\rho}$. On $[L, U]$ a convex "
                    r"function is largest at an end: $m_{g_{\max}}(U) = U$, and "
                    r"$m_{g_{\max}}(L) - U = c(g_{\min} - g_{\max})(\rho g_{\min} - (1-\rho)g_{\max})/g_{\min}$ with "
                    r"$c = \eta/\sqrt{1-\rho}$, which is $\le 0$ when $(g_{\min}/g_{\max})^2 \ge (1-\rho)/\rho$; the "
                    r"smallest value, $m_{g_{\min}}$ at its minimum or at $L$, stays $\ge L$. So $[L, U]$ is invariant, "
                    r"and Table 3.1's $\eta/((1-\eta\lambda)s)$ on it gives the bounds on $\eta^e_k$."),
    derivation(("spherical.sgd_l2_relaxation", "spherical.sgd_l2_relaxation_law"),
               r"\begin{gathered} \frac{dw}{dk} = -4\eta\lambda (w - r_*^4),\quad w(0) = r_0^4 \\ "
               r"-\log\rho^2 = 4\eta\lambda + O((\eta\lambda)^2) \end{gathered}",
               "exact", "spherical.symbolic_sgd_l2_relaxation", f"derived in this project from {_THESIS}, Eq 3.25",
               note=r"Squared, Eq 3.25 reads $w_{k+1} = \rho^2 w_k + 2\rho\eta^2 g^2 + \eta^4 g^4/w_k$ for $w = r^4$. Near "
                    r"the fixed point $r_*^4$ the deviation $w - r_*^4$ contracts by $\rho^2 = (1-\eta\lambda)^4$ per step "
                    r"to leading order, a log-rate $-\log\rho^2 = 4\eta\lambda + O((\eta\lambda)^2)$ (checked as a "
                    r"series). The ODE $dw/dk = -4\eta\lambda(w - r_*^4)$ with $w(0) = r_0^4$ is solved exactly by "
                    r"$r_*^4 + (r_0^4 - r_*^4)e^{-4\eta\lambda k}$, and the effective rate along it is Table 3.1's "
                    r"$\eta/((1-\eta\lambda)\sqrt w)$."),
    derivation("spherical.sgdm_l2_equilibrium",
               r"\begin{gathered} 2\,\mathbb{E}\langle m, x\rangle = \eta\,\mathbb{E}\lVert m \rVert^2 \\ "
               r"\mathbb{E}\lVert m \rVert^2 = \frac{G^2}{r^2}\sum_{j \ge 0}\gamma^{2j} \end{gathered}",
               "exact", "spherical.symbolic_random_walk_equilibrium",
               "derived in this project from Roburin (thesis), Eqs 3.15, 3.25; cf. Wan et al. 2021",
               note=r"In the random-walk model the gradients on the sphere have norm $G$ and fresh independent tangent "
                    r"directions. The buffer $m = \sum_j \gamma^j(\nabla L(x_{k-j}) + \lambda x_{k-j})$ then has "
                    r"$\mathbb{E}\lVert m\rVert^2 = (G^2/r^2)\sum_j\gamma^{2j}$ and, to leading order in $\eta\lambda$, "
                    r"$\mathbb{E}\langle m, x\rangle = \lambda r^2/(1-\gamma) - (\eta G^2/r^2)\sum_j\gamma^j(1-\gamma^j)/(1-\gamma)$ "
                    r"(each past gradient meets the steps taken since). The radius is stationary when "
                    r"$\lVert x - \eta m\rVert^2 = \lVert x\rVert^2$ on average, $2\mathbb{E}\langle m,x\rangle = "
                    r"\eta\mathbb{E}\lVert m\rVert^2$, whose root is $r_*^4 = \eta G^2/(2\lambda(1-\gamma))$; then "
                    r"$\eta^e = \eta/r_*^2$ and the rms angle is $\eta\sqrt{\mathbb{E}\lVert m\rVert^2}/r_* = "
                    r"\sqrt{2\eta\lambda/(1+\gamma)}$. This is a leading-order moment balance, not an exact "
                    r"recursion: the claim checks the balance, which is all the form asserts."),
    derivation(("spherical.sgdm_l2_relaxation_steps", "spherical.sgdm_l2_relaxation"),
               r"\begin{gathered} \Delta r^4 = 2r^2(-2\eta\,\mathbb{E}\langle m, x\rangle + \eta^2\,\mathbb{E}\lVert m "
               r"\rVert^2) \\ = -\frac{r^4 - r_*^4}{\tau},\quad \tau = \frac{1-\gamma}{4\eta\lambda} \end{gathered}",
               "exact", "spherical.symbolic_random_walk_equilibrium",
               "derived in this project from Roburin (thesis), Eqs 3.15, 3.25; cf. Wan et al. 2021",
               note=r"With the moments of the random-walk model above, the mean change of $r^2$ per step is "
                    r"$-2\eta\mathbb{E}\langle m,x\rangle + \eta^2\mathbb{E}\lVert m\rVert^2$, and "
                    r"$\Delta r^4 = 2r^2\Delta r^2$ at leading order. It is linear in $r^4$: "
                    r"$\Delta r^4 = -(r^4 - r_*^4)/\tau$ with $\tau = (1-\gamma)/(4\eta\lambda)$, whose continuous "
                    r"solution from $r_0^4$ is $r_*^4 + (r_0^4 - r_*^4)e^{-k/\tau}$."),
    derivation("spherical.sgd_lambda0_sandwich",
               r"\begin{gathered} w_{k+1} = w_k + 2a_k + a_k^2/w_k,\quad a_k = \eta_k^2 g_k^2 \\ "
               r"P_{k+1} = P_k + 2a_k,\quad U_{k+1} = U_k + 2a_k + a_k^2/P_k,\quad P_0 = U_0 = r_0^4 \end{gathered}",
               "exact", "spherical.symbolic_lambda0_bounds", f"derived in this project from {_THESIS}, Eq 3.46",
               note=r"At $\lambda = 0$, Eq 3.46 squared is $w_{k+1} = w_k + 2a_k + a_k^2/w_k$ for $w = r^4$, "
                    r"$a_k = \eta_k^2 g_k^2$. Then $w_{k+1} - P_{k+1} = w_k - P_k + a_k^2/w_k \ge w_k - P_k$ and "
                    r"$U_{k+1} - w_{k+1} = U_k - w_k + a_k^2(1/P_k - 1/w_k) \ge U_k - w_k$ while $P_k \le w_k$, so "
                    r"$P_k \le w_k \le U_k$ by induction from $P_0 = w_0 = U_0 = r_0^4$."),
    derivation("spherical.effective_lr_bounds_sgd",
               r"\begin{gathered} \sum_{1 \le i < k} \frac{\eta^4 G^4}{r_0^4 + 2i\eta^2 g_{\min}^2} \le \int_0^{k-1} "
               r"\frac{\eta^4 G^4\,di}{r_0^4 + 2i\eta^2 g_{\min}^2} \\ \eta^e_k = \eta / r_k^2 \end{gathered}",
               "exact", "spherical.symbolic_lambda0_bounds",
               f"derived in this project from {_THESIS}, Eq 3.46; Arora et al. 2019",
               note=r"With constant $\eta$ and $g_{\min} \le g_i \le G$, the sandwich gives "
                    r"$r_0^4 + 2\eta^2 g_{\min}^2 k \le r_k^4 \le r_0^4 + 2\eta^2 G^2 k + \sum_{i<k}\eta^4 G^4/P_i$ with "
                    r"$P_i \ge r_0^4 + 2i\eta^2 g_{\min}^2$. The $i = 0$ term is $\eta^4G^4/r_0^4$; the rest, a decreasing "
                    r"summand, is below its integral over $[0, k-1]$, "
                    r"$(\eta^2G^4/(2g_{\min}^2))\ln(1 + 2\eta^2 g_{\min}^2(k-1)/r_0^4)$. Then "
                    r"$\eta^e_k = \eta/r_k^2$ lies between $\eta$ over the square roots of the two ends."),
    derivation("spherical.sgd_order2_radius4",
               r"\tilde w_{k+1} = \rho^2 \tilde w_k + 2\rho\eta^2 g^2,\quad \tilde w_0 = r_0^4",
               "exact", "spherical.symbolic_theorem4", f"{_THESIS}, Theorem 4, Eqs 3.47-3.48"),
    derivation("spherical.adagradg_equivalent_params",
               r"\begin{gathered} v_k = \frac{\tilde w_k}{2\rho\eta^2}:\quad v_{k+1} = \beta v_k + g^2 \\ "
               r"\frac{\eta_{\mathrm{AGG}}^2}{v_k} = \frac{\eta^2}{(1-\eta\lambda)^2 \tilde w_k} \end{gathered}",
               "exact", "spherical.symbolic_theorem4", "Roburin et al. 2022, Theorem 4; Roburin (thesis), Theorem 4"),
    derivation("spherical.adagrad_matched_learning_rate",
               r"\begin{gathered} \lVert \eta_{\mathrm{AG}}\,\mathrm{sign}(\tilde g_0) \rVert = \eta \lVert \tilde g_0 "
               r"\rVert \\ A_k = \frac{\eta_k}{r_k^2 d^{-1/2}\lVert b_k \rVert} \end{gathered}",
               "exact", "spherical.symbolic_theorem4", f"{_THESIS}, App. C.1, Eq 3.26"),
    derivation("spherical.exponential_lr_schedule",
               r"\begin{gathered} \tilde x_k = (1-\eta\lambda)^{-k} x_k:\quad \tilde x_{k+1} = \tilde x_k - \eta_k "
               r"\nabla L(\tilde x_k) \\ \eta_k = \eta(1-\eta\lambda)^{-2k-1} \end{gathered}",
               "exact", "spherical.symbolic_exponential_lr", f"{_THESIS}, Eq 3.44, Lemma 1"),
    derivation("spherical.li_arora_equivalent",
               r"\begin{gathered} \alpha^2 - (1+\gamma-\eta\lambda)\alpha + \gamma = 0,\quad \tilde x_k = \alpha^{-k}x_k,"
               r"\quad \tilde m_k = \alpha^k (m_k - (1-\alpha)x_k/\eta) \\ \tilde m_k = \gamma \tilde m_{k-1} + "
               r"\nabla L(\tilde x_k),\quad \tilde x_{k+1} = \tilde x_k - \eta\alpha^{-2k-1}\tilde m_k \\ "
               r"\tilde m_{-1} = -\frac{(1-\alpha)x_0}{\eta\alpha} \end{gathered}",
               "exact", "spherical.symbolic_exponential_lr", "derived in this project from Li & Arora 2020, Thm 1.1",
               note=r"Write SGD-M + L2 as $m_k = \gamma m_{k-1} + \nabla L(x_k) + \lambda x_k$, "
                    r"$x_{k+1} = x_k - \eta m_k$, and set $\tilde x_k = \alpha^{-k}x_k$, "
                    r"$\tilde m_k = \alpha^k(m_k - (1-\alpha)x_k/\eta)$. Lemma 1 gives "
                    r"$\nabla L(x_k) = \alpha^{-k}\nabla L(\tilde x_k)$; substituting, the buffer recursion of "
                    r"$\tilde m$ loses its $x_k$ terms exactly when $\alpha^2 - (1+\gamma-\eta\lambda)\alpha + \gamma = 0$, "
                    r"and the position update becomes $\tilde x_{k+1} = \tilde x_k - \eta\alpha^{-2k-1}\tilde m_k$. The "
                    r"zero buffer $m_{-1} = 0$ maps to $\tilde m_{-1} = -(1-\alpha)x_0/(\eta\alpha)$. The library takes "
                    r"the larger root, real for $\eta\lambda \le (1-\sqrt\gamma)^2$; at $\gamma = 0$ it is "
                    r"$1 - \eta\lambda$, Eq 3.44."),
    derivation("spherical.adam_nu",
               r"\begin{gathered} \nu_k^2 = \frac{r_k^2}{d}\,\frac{(1-\beta_1^{k+1})^2}{(1-\beta_1)^2}\,"
               r"\frac{V_k}{1-\beta_2^{k+1}} \\ V_k = \beta_2 V_{k-1} + (1-\beta_2)\lVert \nabla L(x_k) + \lambda x_k "
               r"\rVert^2 \end{gathered}",
               "exact", "spherical.symbolic_adam_nu", f"{_THESIS}, Eqs 3.41-3.42"),
    derivation("spherical.adam_nu_R",
               r"\begin{gathered} r_k^2 v_k = \beta_2 r_{k-1}^2 v_{k-1} + \frac{1-\beta_2}{d}\lVert \nabla L(u_k) + "
               r"\lambda r_k^2 u_k \rVert^2 \\ \nu^R_k = r_k\frac{1-\beta_1^{k+1}}{1-\beta_1}"
               r"\sqrt{\frac{v_k}{1-\beta_2^{k+1}}} \end{gathered}",
               "exact", "spherical.symbolic_adam_nu", f"{_THESIS}, §3.5.2, Eqs 3.79-3.81 (corrected)"),
    derivation(("spherical.adam_srt_radius", "spherical.adam_srt_radius_law"),
               r"\begin{gathered} r_{k+1}^2 = r_k^2 + \eta^2 d,\quad r(0) = r_0 \\ \hat v_k = \frac{G^2}{d r_k^2},\quad "
               r"\eta^e_k = \frac{\eta}{r_k^2\sqrt{\hat v_k}} \end{gathered}",
               "exact", "spherical.symbolic_adam_nu", f"derived in this project from {_THESIS}, Algorithm 1",
               note=r"Adam w/o (abc) with $\beta_1 = 0$, $\lambda = 0$, $\varepsilon = 0$ rescales $v$ by "
                    r"$r_k^2/r_{k+1}^2$ after each step, so $r_k^2 v_k = \beta_2 r_{k-1}^2 v_{k-1} + (1-\beta_2)G^2/d$ "
                    r"for gradients of constant norm $G$ on the sphere, and "
                    r"$r_k^2 v_k = (1-\beta_2^{k+1})G^2/d$: the bias-corrected $\hat v_k = G^2/(d r_k^2)$. The step "
                    r"$\eta\nabla L(x_k)/\sqrt{\hat v_k}$ is tangent (Lemma 1) of squared length $\eta^2 d$, so "
                    r"$r_{k+1}^2 = r_k^2 + \eta^2 d$ (Pythagoras) and $r_k^2 = r_0^2 + \eta^2 dk$; Theorem 2's rate is "
                    r"$A = \eta/(r_k^2\sqrt{\hat v_k}) = \eta\sqrt d/(G r_k)$."),
)

#: The errata that the symbolic claims below show in sympy (the errata page links them).
SYMBOLIC_COUNTERPARTS = {
    "spherical.erratum_sgd_l2_sign": "spherical.symbolic_sgd_l2_one_step",
    "spherical.erratum_sgdw_sign": "spherical.symbolic_sgd_l2_one_step",
    "spherical.erratum_theorem4_small_parameter": "spherical.symbolic_theorem4",
    "spherical.erratum_appendix_b2_schedule": "spherical.symbolic_exponential_lr",
    "spherical.erratum_nu_rescaled": "spherical.symbolic_adam_nu",
    "spherical.erratum_lemma1_appendix_a": "spherical.symbolic_exponential_lr",
    "spherical.erratum_eq_3_75_rescaled_momentum": "spherical.symbolic_adam_nu",
    "spherical.erratum_fig35_deformation": "spherical.symbolic_adam_nu",
    "spherical.erratum_algorithm1_line10_transport": "spherical.symbolic_adam_nu",
    "spherical.erratum_algorithm1_bias_index": "spherical.symbolic_adam_nu",
    "spherical.erratum_appendix_c1_adagrad_lr": "spherical.symbolic_theorem4",
    "spherical.erratum_b1_tangential_projection": "spherical.symbolic_random_walk_equilibrium",
}
#: The errata whose printed and corrected forms are not algebraic relations sympy can decide.
ERRATA_WITHOUT_SYMBOLIC_FORM = {
    "spherical.erratum_lambda_grid": "the printed and corrected weight-decay grids are lists of numbers, judged "
                                     "against the best values Table B.2 reports; there is no formula to simplify",
}


def _converged(expression):
    """A sympy sum of a geometric series with its convergence condition (|γ| < 1, here 0 <= γ < 1) taken as met."""
    return expression.replace(lambda e: isinstance(e, sp.Piecewise), lambda e: e.args[0][0])


def _spread_int(column):
    """Step counts or dimensions from a spread column (the library takes integers)."""
    return np.rint(column)


_P = dict(positive=True)


@claim("spherical.symbolic_sgd_l2_one_step", "Roburin (thesis), Eqs 3.25, 3.46, Table 3.1, Theorem 2; §3.4.2; Eq 2.14",
       "sympy: with x = r·e₁ and Lemma 1's tangent gradient ∇L(x) = (g/r)·e₂, the SGD + L2 step (1−ηλ)x − η∇L(x) has "
       "squared norm (1−ηλ)²r² + η²g²/r² (Eq 3.25; residual 0), so r_k = r₀(1−ηλ)^k solves it at g = 0 (residual of "
       "the recursion and of r(0) = r₀ both 0), and Theorem 2's A/(1 − A⟨c,u⟩) with A = η/r², c = r(∇L(x) + λx) is "
       "η/((1−ηλ)r²) (Table 3.1; residual 0); the printed ∇L − λx of §3.4.2 gives (η/r²)/(1+ηλ) and Eq 2.14's "
       "x − η∇L + λx the squared norm (1+λ)²r² + η²g²/r² (both residuals nonzero: at η = λ = r = g = 1/2 they miss "
       "by more than 0.1). sgd_l2_radius_map, sgd_radius_sequence (two steps), sgd_l2_collapse_radius and "
       "sgd_effective_lr equal the sympy forms at 30 digits at 1000 points each, r² in [1e-6, 1e6], η in [1e-4, 1], "
       "λ in [1e-6, 0.9], g in [1e-4, 1e4], k in [0, 1e5], within 8ε(1 + ηλ/(1−ηλ)) (a sum of positive terms, the "
       "rounding of 1 − ηλ from ηλ) and (4 + 2k)ε(1 + ηλ/(1−ηλ)) for the k-th power of the collapse.", "identity")
def symbolic_sgd_l2_one_step():
    r, s, eta, lam, g, g1, r0, a = sp.symbols("r s eta lambda g g_1 r_0 a", **_P)
    k = sp.Symbol("k", integer=True, nonnegative=True)
    x, grad = sp.Matrix([r, 0]), sp.Matrix([0, g / r])  # Lemma 1: ∇L(x) ⟂ x and ‖∇L(x)‖ = ‖∇L(u)‖/r
    step = (1 - eta * lam) * x - eta * grad
    radius_map = (1 - eta * lam) ** 2 * s + eta ** 2 * g ** 2 / s  # on s = r²
    collapse = r0 * (1 - eta * lam) ** k
    A = eta / r ** 2  # b = 1, s_k = 1
    c = r * (grad + lam * x)
    effective = A / (1 - A * c[0])  # u = e₁
    table = eta / ((1 - eta * lam) * r ** 2)
    c_printed = r * (grad - lam * x)
    printed_step = x - eta * grad + lam * x
    half = {eta: sp.Rational(1, 2), lam: sp.Rational(1, 2), r: sp.Rational(1, 2), g: sp.Rational(1, 2)}
    checks = [residual_zero(step.dot(step) - radius_map.subs(s, r ** 2), "Eq 3.25, ‖x_{k+1}‖² = map(r²)"),
              residual_zero(r0 * a ** (k + 1) - a * (r0 * a ** k), "collapse recursion at g = 0 (a = 1 − ηλ > 0)"),
              residual_zero(collapse.subs(k, 0) - r0, "collapse r(0) = r₀"),
              residual_zero(effective - table, "Table 3.1, η^e of SGD + L2"),
              printed_misses(A / (1 - A * c_printed[0]) - table, table, half, "§3.4.2's ∇L − λx"),
              printed_misses(printed_step.dot(printed_step) - radius_map.subs(s, r ** 2), radius_map.subs(s, r ** 2),
                              half, "Eq 2.14's x − η∇L + λx")]
    ranges = [(1e-6, 1e6, "log"), (1e-4, 1.0, "log"), (1e-6, 0.9, "log"), (1e-4, 1e4, "log")]
    points = spread(ranges, 1000)

    def decay_bound(factor):
        return lambda s_, eta_, lam_, *rest: factor * EPS * (1 + eta_ * lam_ / (1 - eta_ * lam_))

    checks.append(library_against_symbols(radius_map, (s, eta, lam, g), sph.sgd_l2_radius_map, points,
                                          decay_bound(8), "sgd_l2_radius_map"))
    checks.append(library_against_symbols(table.subs(r, s ** sp.Rational(1, 4)), (s, eta, lam),
                                          lambda w, e, l_: sph.sgd_effective_lr(e, w, l_), points[:, :3],
                                          decay_bound(8), "sgd_effective_lr (r⁴ in the first column)"))
    two = sp.sqrt((1 - eta * lam) ** 2 * radius_map.subs(s, r0 ** 2)  # r₂ from r₀ with g₀ = g, g₁
                  + eta ** 2 * g1 ** 2 / radius_map.subs(s, r0 ** 2))
    seq_points = np.column_stack([np.sqrt(points[:, 0]), points[:, 1:], points[::-1, 3]])
    checks.append(library_against_symbols(
        two, (r0, eta, lam, g, g1), lambda a, e, l_, ga, gb: float(sph.sgd_radius_sequence(a, e, [ga, gb], l_)[-1]),
        seq_points, decay_bound(8), "sgd_radius_sequence, r₂"))
    collapse_points = np.column_stack([np.sqrt(points[:, 0]), points[:, 1:3],
                                       _spread_int(spread([(1.0, 1e5, "log")], 1000)[:, 0] - 1)])
    # keep r₀(1−ηλ)^k a normal double
    collapse_points[:, 3] = np.minimum(collapse_points[:, 3],
                                       np.floor(600 / -np.log1p(-collapse_points[:, 1] * collapse_points[:, 2])))
    checks.append(library_against_symbols(
        collapse, (r0, eta, lam, k), lambda a, e, l_, kk: sph.sgd_l2_collapse_radius(a, e, l_, int(kk)),
        collapse_points, lambda a, e, l_, kk: (4 + 2 * kk) * EPS * (1 + e * l_ / (1 - e * l_)),
        "sgd_l2_collapse_radius"))
    return _symbolic_result(checks)


@claim("spherical.symbolic_sgd_l2_equilibrium", "Roburin (thesis), Eq 3.25, Table 3.1, Theorem 2 (SGD + L2)",
       "sympy: r*⁴ = ηG²/(λ(2−ηλ)) is the fixed point of Eq 3.25's map s ↦ (1−ηλ)²s + η²G²/s on s = r² "
       "((map(s*) − s*)s* = 0), η^e* is Table 3.1's η/((1−ηλ)r*²) and the angle θ* = arctan(η^e*G) of Theorem 2 has "
       "cos²θ* = (1−ηλ)² (squared residuals 0); the invariant interval's ends L = ηg_min/sqrt(1−ρ), U = "
       "ηg_max/sqrt(1−ρ) (ρ = (1−ηλ)²) are the map's fixed points at g_min and g_max, its η^e bounds are "
       "η/((1−ηλ)U) and η/((1−ηλ)L), and map_{g_max}(L) − U = c(g_min − g_max)(ρg_min − (1−ρ)g_max)/g_min (c = "
       "η/sqrt(1−ρ); residuals 0), which is <= 0 under the library's condition (g_min/g_max)² >= (1−ρ)/ρ. "
       "sgd_l2_equilibrium (three fields, against r*⁴, η/((1−ηλ)sqrt(r*⁴)) and arccos(1−ηλ)) and "
       "sgd_l2_invariant_interval (four fields) equal the sympy forms at 30 digits at 1000 points, η in [1e-4, 1], "
       "λ in [1e-8, 0.9], G and g_min in [1e-4, 1e4], g_min/g_max spread over its allowed range, within "
       "8ε(1 + ηλ/(1−ηλ)) (products, quotients and square roots of positive terms, and the rounding of 1 − ηλ).",
       "identity")
def symbolic_sgd_l2_equilibrium():
    eta, lam, G, s, g_min, g_max = sp.symbols("eta lambda G s g_min g_max", **_P)
    rho = (1 - eta * lam) ** 2
    r4 = eta * G ** 2 / (lam * (2 - eta * lam))
    effective = sp.sqrt(eta * lam * (2 - eta * lam)) / ((1 - eta * lam) * G)

    def radius_map(s_, g_):
        return rho * s_ + eta ** 2 * g_ ** 2 / s_

    tan = effective * G  # Theorem 2: tan θ = η^e‖c⊥‖, ‖c⊥‖ = G at the fixed point
    c = eta / sp.sqrt(1 - rho)
    L, U = c * g_min, c * g_max
    checks = [residual_zero(((radius_map(s, G) - s) * s).subs(s ** 2, r4).subs(s, sp.sqrt(r4)),
                            "fixed point of Eq 3.25's map"),
              residual_zero(effective ** 2 - (eta / (1 - eta * lam)) ** 2 / r4, "η^e* = η/((1−ηλ)r*²), squared"),
              residual_zero(1 / (1 + tan ** 2) - rho, "cos²θ* = (1 − ηλ)²"),
              residual_zero((radius_map(L, g_min) - L) * L, "L is the fixed point at g_min"),
              residual_zero((radius_map(U, g_max) - U) * U, "U is the fixed point at g_max"),
              residual_zero(radius_map(L, g_max) - U - c * (g_min - g_max) * (rho * g_min - (1 - rho) * g_max) / g_min,
                            "map_{g_max}(L) − U factorised")]
    points = spread([(1e-4, 1.0, "log"), (1e-8, 0.9, "log"), (1e-4, 1e4, "log"), (0.0, 1.0, "linear")], 1100)
    eta_, lam_ = points[:, 0], points[:, 1]
    p = eta_ * lam_
    t_min = np.sqrt(p * (2 - p)) / (1 - p)  # sqrt((1−ρ)/ρ)
    ratio = t_min + points[:, 3] * (1 - t_min)  # g_min/g_max in its allowed range
    interval_points = np.column_stack([eta_, lam_, points[:, 2], points[:, 2] / ratio])
    interval_points = interval_points[t_min < 1][:1000]  # the interval needs ρ > 1/2
    points = points[:1000]

    def bound(eta_, lam_, *rest):
        return 8 * EPS * (1 + eta_ * lam_ / (1 - eta_ * lam_))

    angle = sp.acos(1 - eta * lam)
    for i, (field, expression) in enumerate((("r*⁴", r4), ("η^e*", eta / ((1 - eta * lam) * sp.sqrt(r4))),
                                            ("θ* = arccos(1 − ηλ)", angle))):
        checks.append(library_against_symbols(expression, (eta, lam, G),
                                              lambda e, l_, g_, i=i: sph.sgd_l2_equilibrium(e, l_, g_)[i],
                                              points[:, :3], bound, f"sgd_l2_equilibrium, {field}"))
    for i, (field, expression) in enumerate((("L", L), ("U", U), ("min η^e", eta / ((1 - eta * lam) * U)),
                                            ("max η^e", eta / ((1 - eta * lam) * L)))):
        checks.append(library_against_symbols(expression, (eta, lam, g_min, g_max),
                                              lambda e, l_, a, b, i=i: sph.sgd_l2_invariant_interval(e, l_, a, b)[i],
                                              interval_points, bound, f"sgd_l2_invariant_interval, {field}"))
    return _symbolic_result(checks)


@claim("spherical.symbolic_sgd_l2_relaxation", "Roburin (thesis), Eq 3.25, Theorem 4 (order-2 radius), Table 3.1",
       "sympy: r_k⁴ = r*⁴ + (r₀⁴ − r*⁴)e^{−4ηλk} solves the ODE dw/dk = −4ηλ(w − r*⁴) with w(0) = r₀⁴ and tends to "
       "r*⁴ = ηG²/(λ(2−ηλ)) as k → ∞ (residuals 0), the ODE's rate being the order-2 map's per-step log-contraction "
       "−log(ρ²) = −4 log(1−ηλ) = 4ηλ + O((ηλ)²) (series residual 0); sgd_l2_relaxation and sgd_l2_relaxation_law "
       "(radius w^{1/4} and Table 3.1's η/((1−ηλ)sqrt(w))) equal the sympy forms at 30 digits at 1000 points, r₀ "
       "in [1e-2, 1e2], η in [1e-4, 1], λ in [1e-6, 0.5], G in [1e-2, 1e2], k in [0, 1e6], within "
       "8ε(r*⁴ + (1 + 4ηλk)|r₀⁴ − r*⁴|e^{−4ηλk})/r_k⁴ (the absolute round-off of each term, the exponent's "
       "4ηλk carrying a relative 3ε, over the value), plus 8ε(1 + ηλ/(1−ηλ)) for η^e.", "identity")
def symbolic_sgd_l2_relaxation():
    r0, eta, lam, G, k, p = sp.symbols("r_0 eta lambda G k p", **_P)
    w_star = eta * G ** 2 / (lam * (2 - eta * lam))
    w = w_star + (r0 ** 4 - w_star) * sp.exp(-4 * eta * lam * k)
    checks = [residual_zero(sp.diff(w, k) + 4 * eta * lam * (w - w_star), "dw/dk = −4ηλ(w − r*⁴)"),
              residual_zero(w.subs(k, 0) - r0 ** 4, "w(0) = r₀⁴"),
              residual_zero(sp.limit(w, k, sp.oo) - w_star, "w → r*⁴ as k → ∞"),
              residual_zero(sp.series(-4 * sp.log(1 - p), p, 0, 2).removeO() - 4 * p,
                            "−log ρ² = 4ηλ + O((ηλ)²) (series, p = ηλ)")]
    points = spread([(1e-2, 1e2, "log"), (1e-4, 1.0, "log"), (1e-6, 0.5, "log"), (1e-2, 1e2, "log"),
                     (1.0, 1e6 + 1, "log")], 1000)
    points[:, 4] = _spread_int(points[:, 4] - 1)

    def bound(r0_, eta_, lam_, G_, k_):
        ws = eta_ * G_ ** 2 / (lam_ * (2 - eta_ * lam_))
        decay = math.exp(-4 * eta_ * lam_ * k_)
        value = ws + (r0_ ** 4 - ws) * decay
        return 8 * EPS * (ws + (1 + 4 * eta_ * lam_ * k_) * abs(r0_ ** 4 - ws) * decay) / value

    def bound_law(*point):
        return bound(*point) + 8 * EPS * (1 + point[1] * point[2] / (1 - point[1] * point[2]))

    symbols = (r0, eta, lam, G, k)
    checks += [library_against_symbols(w, symbols,
                                       lambda a, e, l_, g_, kk: sph.sgd_l2_relaxation(a, e, l_, g_, int(kk)),
                                       points, bound, "sgd_l2_relaxation, r_k⁴"),
               library_against_symbols(w ** sp.Rational(1, 4), symbols,
                                       lambda a, e, l_, g_, kk: sph.sgd_l2_relaxation_law(a, e, l_, g_, int(kk)).radius,
                                       points, bound, "sgd_l2_relaxation_law, radius"),
               library_against_symbols(eta / ((1 - eta * lam) * sp.sqrt(w)), symbols,
                                       lambda a, e, l_, g_, kk: sph.sgd_l2_relaxation_law(
                                           a, e, l_, g_, int(kk)).effective_learning_rate,
                                       points, bound_law, "sgd_l2_relaxation_law, η^e")]
    return _symbolic_result(checks)


@claim("spherical.symbolic_random_walk_equilibrium",
       "Roburin (thesis), Eqs 3.15, 3.25 (SGD-M + L2), §3.5.1 (b1), Eq 3.54; cf. Wan et al. 2021",
       "sympy, in the random-walk model (tangent gradients of norm G/r in fresh independent directions, momentum "
       "γ, leading order in ηλ): E‖m‖² = (G²/r²)Σ_j γ^{2j}, E⟨m,x⟩ = λr²/(1−γ) − (ηG²/r²)Σ_j γ^j(1−γ^j)/(1−γ) "
       "(the buffer's past gradients met by the steps since; series summed by sympy), and the radial balance "
       "2E⟨m,x⟩ = ηE‖m‖² has the root r⁴ = ηG²/(2λ(1−γ)), with η^e = η/r², the rms angle ηsqrt(E‖m‖²)/r = "
       "sqrt(2ηλ/(1+γ)), and Δr⁴ = 2r²(−2ηE⟨m,x⟩ + η²E‖m‖²) = −(r⁴ − r*⁴)/τ with τ = (1−γ)/(4ηλ), solved by "
       "r*⁴ + (r₀⁴ − r*⁴)e^{−k/τ} (all residuals 0). §3.5.1 (b1): for c_k = Σ_iw_i∇L(u_i) (w_i = γ^{k−i}r_k/r_i, "
       "Eq 3.54 at λ = 0; two past gradients in the plane), c_k⊥ = Σ_iw_i(∇L(u_i) − ⟨∇L(u_i),u_k⟩u_k) and each term "
       "is tangent at u_k (residuals 0), while the printed term read with + for the lost − misses (‖Σ − c⊥‖² over "
       "‖c⊥‖² is 4 at u_k = (1, 0), ∇L(u_0) = (1, 1), ∇L(u_1) = 0, w = 1). sgdm_l2_equilibrium (three fields), sgdm_l2_relaxation_steps and "
       "sgdm_l2_relaxation equal the sympy forms at 30 digits at 1000 points, η in [1e-4, 1], λ in [1e-6, 0.9], "
       "γ in [0, 0.999], G in [1e-3, 1e3], r₀ in [1e-2, 1e2], k in [0, 1e6], within 8ε (products, quotients and roots "
       "of positive terms; 1 − γ and 1 + γ are exact or one rounding) and, for the relaxation, "
       "8ε(r*⁴ + (1 + k/τ)|r₀⁴ − r*⁴|e^{−k/τ})/r_k⁴.", "identity")
def symbolic_random_walk_equilibrium():
    eta, lam, G, s, r0, k, w = sp.symbols("eta lambda G s r_0 k w", **_P)
    gamma = sp.Symbol("gamma", nonnegative=True)
    j = sp.Symbol("j", integer=True, nonnegative=True)
    # s = r²; sums over the buffer's past steps j (|γ| < 1)
    squares = _converged(sp.summation(gamma ** (2 * j), (j, 0, sp.oo)))
    met = _converged(sp.summation(gamma ** j * (1 - gamma ** j) / (1 - gamma), (j, 0, sp.oo)))
    norm2 = G ** 2 / s * squares  # E‖m‖²
    radial = lam * s / (1 - gamma) - eta * G ** 2 / s * met  # E⟨m,x⟩
    r4 = eta * G ** 2 / (2 * lam * (1 - gamma))
    tau = (1 - gamma) / (4 * eta * lam)
    relax = r4 + (r0 ** 4 - r4) * sp.exp(-k / tau)
    balance = sp.solve(sp.expand((2 * radial - eta * norm2) * s).subs(s, sp.sqrt(w)), w)  # linear in w = s²
    drift = 2 * s * (-2 * eta * radial + eta ** 2 * norm2)  # Δ(r⁴) = 2r²Δ(r²) at leading order
    checks = [Check.at_most(0.0 if len(balance) == 1 else math.inf, 0.0, f"one root w = r⁴ ({balance})"),
              residual_zero(balance[0] - r4, "radial balance: r⁴ = ηG²/(2λ(1−γ))"),
              residual_zero((eta / sp.sqrt(r4)) ** 2 - 2 * eta * lam * (1 - gamma) / G ** 2,
                            "η^e = η/r*² = sqrt(2ηλ(1−γ))/G, squared"),
              residual_zero((eta ** 2 * norm2 / s).subs(s, sp.sqrt(r4)) - 2 * eta * lam / (1 + gamma),
                            "rms angle² = 2ηλ/(1+γ)"),
              residual_zero(drift.subs(s, sp.sqrt(w)) + (w - r4) / tau, "Δr⁴ = −(r⁴ − r*⁴)/τ"),
              residual_zero(sp.diff(relax, k) + (relax - r4) / tau, "relaxation solves dw/dk = −(w − r*⁴)/τ"),
              residual_zero(relax.subs(k, 0) - r0 ** 4, "relaxation at k = 0")]
    # §3.5.1 (b1): c_k = Σ_i w_i∇L(u_i) (w_i = γ^{k−i}r_k/r_i, Eq 3.54 at λ = 0), two past gradients in the plane
    xv = sp.Matrix(sp.symbols("p_1:3", real=True))
    vs = [sp.Matrix(sp.symbols(f"v_{n}x v_{n}y", real=True)) for n in range(2)]  # ∇L(u_0), ∇L(u_1)
    ws = sp.symbols("w_0:2", **_P)

    def radial(v):  # ⟨v, u_k⟩u_k with u_k = x/‖x‖
        return v.dot(xv) * xv / xv.dot(xv)

    c = ws[0] * vs[0] + ws[1] * vs[1]
    c_perp = c - radial(c)
    tangential = ws[0] * (vs[0] - radial(vs[0])) + ws[1] * (vs[1] - radial(vs[1]))
    plus = ws[0] * (vs[0] + radial(vs[0])) + ws[1] * (vs[1] + radial(vs[1]))
    b1 = {xv[0]: 1, xv[1]: 0, ws[0]: 1, ws[1]: 1, vs[0][0]: 1, vs[0][1]: 1, vs[1][0]: 0, vs[1][1]: 0}
    checks += [residual_zero((tangential - c_perp).dot(tangential - c_perp), "§3.5.1 (b1) corrected: ‖Σ − c⊥‖²"),
               residual_zero(tangential.dot(xv), "the corrected terms are tangent at u_k"),
               printed_misses((plus - c_perp).dot(plus - c_perp), c_perp.dot(c_perp), b1,
                              "§3.5.1 (b1) read with + for the lost −, ‖Σ − c⊥‖²")]
    points = spread([(1e-4, 1.0, "log"), (1e-6, 0.9, "log"), (0.0, 0.999, "linear"), (1e-3, 1e3, "log"),
                     (1e-2, 1e2, "log"), (1.0, 1e6 + 1, "log")], 1000)
    points[:, 5] = _spread_int(points[:, 5] - 1)
    symbols = (eta, lam, gamma, G)
    fields = (("r*⁴", r4), ("η^e", eta / sp.sqrt(r4)), ("rms angle", sp.sqrt(2 * eta * lam / (1 + gamma))))
    for i, (field, expression) in enumerate(fields):
        checks.append(library_against_symbols(expression, symbols,
                                              lambda e, l_, c, g_, i=i: sph.sgdm_l2_equilibrium(e, l_, c, g_)[i],
                                              points[:, :4], 8 * EPS, f"sgdm_l2_equilibrium, {field}"))
    checks.append(library_against_symbols(tau, (eta, lam, gamma), sph.sgdm_l2_relaxation_steps, points[:, :3],
                                          8 * EPS, "sgdm_l2_relaxation_steps"))

    def bound(e, l_, c, g_, a, kk):
        ws = e * g_ ** 2 / (2 * l_ * (1 - c))
        steps = kk * 4 * e * l_ / (1 - c)
        value = ws + (a ** 4 - ws) * math.exp(-steps)
        return 8 * EPS * (ws + (1 + steps) * abs(a ** 4 - ws) * math.exp(-steps)) / value

    checks.append(library_against_symbols(relax, symbols + (r0, k),
                                          lambda e, l_, c, g_, a, kk: sph.sgdm_l2_relaxation(a, e, l_, c, g_, int(kk)),
                                          points, bound, "sgdm_l2_relaxation"))
    return _symbolic_result(checks)


@claim("spherical.symbolic_lambda0_bounds", "Roburin (thesis), Eq 3.46 and its order-2 solution; Arora et al. 2019",
       "sympy: at λ = 0, Eq 3.46 squared gives w_{k+1} = w_k + 2a_k + a_k²/w_k for w = r⁴, a = η²g²; the sandwich "
       "P_{k+1} = P_k + 2a_k, U_{k+1} = U_k + 2a_k + a_k²/P_k keeps P_k <= w_k <= U_k because w_{k+1} − P_{k+1} = "
       "w_k − P_k + a_k²/w_k and U_{k+1} − w_{k+1} = U_k − w_k + a_k²(1/P_k − 1/w_k) (residuals 0); with constant η, "
       "g_min <= g_i <= G, the sum Σ_{1<=i<k} η⁴G⁴/(r₀⁴ + 2iη²g_min²) of the decreasing summand is below its integral "
       "over [0, k−1], which sympy integrates to (η²G⁴/(2g_min²))ln(1 + 2η²g_min²(k−1)/r₀⁴) (residual 0): the "
       "lower bound of effective_lr_bounds_sgd. sgd_lambda0_sandwich (P_3 and U_3 of three steps with their own η_i, "
       "g_i) and effective_lr_bounds_sgd (lower and upper) equal the sympy forms at 30 digits at 1000 points, r₀ "
       "in [1e-2, 1e2], η in [1e-4, 1], g in [1e-3, 1e3], g_min/g_max in [1e-2, 1], k in [1, 1e6], within 8ε (sums "
       "of positive terms of a few roundings each, a square root halving them, log1p of a positive argument), and "
       "at 200 more points with r₀ in [1e-100, 1e100], where r₀⁴ leaves float64 and the library sums in log space, "
       "within 2ε(2 + 4|ln r₀| + 2|ln η| + 4|ln g_max| + |ln k|) (ε per unit of the log terms' size, which exp "
       "turns into relative error).", "identity")
def symbolic_lambda0_bounds():
    s, a, P, U, w, eta, r0, g_min, G, i, K = sp.symbols("s a P U w eta r_0 g_min G i K", **_P)
    w_next = w + 2 * a + a ** 2 / w
    integral = sp.integrate(eta ** 4 * G ** 4 / (r0 ** 4 + 2 * i * eta ** 2 * g_min ** 2), (i, 0, K))  # K = k − 1
    log_term = eta ** 2 * G ** 4 / (2 * g_min ** 2) * sp.log(1 + 2 * eta ** 2 * g_min ** 2 * K / r0 ** 4)
    checks = [residual_zero((s + a / s) ** 2 - w_next.subs(w, s ** 2), "Eq 3.46 squared (s = r², a = η²g²)"),
              residual_zero((w_next - (P + 2 * a)) - (w - P + a ** 2 / w), "w_{k+1} − P_{k+1}"),
              residual_zero((U + 2 * a + a ** 2 / P - w_next) - (U - w + a ** 2 * (1 / P - 1 / w)),
                            "U_{k+1} − w_{k+1}"),
              residual_zero(sp.expand_log(integral - log_term, force=True), "the integral's log term")]
    # three steps with their own rates and gradient norms
    etas, gs = sp.symbols("eta_0:3", **_P), sp.symbols("g_0:3", **_P)
    P_k, U_k = r0 ** 4, r0 ** 4
    for e, g in zip(etas, gs):
        P_k, U_k = P_k + 2 * (e * g) ** 2, U_k + 2 * (e * g) ** 2 + (e * g) ** 4 / P_k
    points = spread([(1e-2, 1e2, "log")] + [(1e-4, 1.0, "log")] * 3 + [(1e-3, 1e3, "log")] * 3, 1000)
    for i_, (name, expression) in enumerate((("P_3", P_k), ("U_3", U_k))):
        checks.append(library_against_symbols(
            expression, (r0,) + etas + gs,
            lambda a0, e0, e1, e2, h0, h1, h2, i_=i_: float(sph.sgd_lambda0_sandwich(a0, [e0, e1, e2],
                                                                                     [h0, h1, h2])[i_][-1]),
            points, 8 * EPS, f"sgd_lambda0_sandwich, {name}"))
    k = sp.Symbol("k", **_P)
    lower = eta / sp.sqrt(r0 ** 4 + 2 * eta ** 2 * G ** 2 * k + eta ** 4 * G ** 4 / r0 ** 4 + log_term.subs(K, k - 1))
    upper = eta / sp.sqrt(r0 ** 4 + 2 * eta ** 2 * g_min ** 2 * k)
    points = spread([(1e-2, 1e2, "log"), (1e-4, 1.0, "log"), (1e-3, 1e3, "log"), (1e-2, 1.0, "log"),
                     (1.0, 1e6, "log")], 1000)
    points[:, 3] = points[:, 2] / points[:, 3]  # g_max from g_min and the ratio
    points[:, 4] = _spread_int(points[:, 4])
    extreme = points[:200].copy()
    extreme[:, 0] = spread([(1e-100, 1e100, "log")], 200)[:, 0]
    for i_, (name, expression) in enumerate((("lower", lower), ("upper", upper))):
        checks.append(library_against_symbols(
            expression, (r0, eta, g_min, G, k),
            lambda a0, e, lo, hi, kk, i_=i_: sph.effective_lr_bounds_sgd(e, a0, lo, hi, int(kk))[i_],
            points, 8 * EPS, f"effective_lr_bounds_sgd, {name}"))
        # where r₀⁴ leaves float64 the library sums in log space: each log term's absolute round-off is ε times its
        # size, and exp turns the log's absolute error into a relative one
        checks.append(library_against_symbols(
            expression, (r0, eta, g_min, G, k),
            lambda a0, e, lo, hi, kk, i_=i_: sph.effective_lr_bounds_sgd(e, a0, lo, hi, int(kk))[i_],
            extreme, lambda a0, e, lo, hi, kk: 2 * EPS * (2 + 4 * abs(math.log(a0)) + 2 * abs(math.log(e))
                                                          + 4 * abs(math.log(hi)) + abs(math.log(kk))),
            f"effective_lr_bounds_sgd, {name}, r₀ in [1e-100, 1e100] (log-space sums)"))
    return _symbolic_result(checks)


@claim("spherical.symbolic_theorem4", "Roburin (thesis), Theorem 4, Eqs 3.47-3.48, Fig 3.4, App. C.1",
       "sympy: Eq 3.25 squared is w_{k+1} = ρ²w_k + 2ρη²g² + η⁴g⁴/w_k (w = r⁴, ρ = (1−ηλ)²); dropping the last term, "
       "w̃_k = ρ^{2k}r₀⁴ + 2ρη²g²(1 − ρ^{2k})/(1 − ρ²) solves w̃_{k+1} = ρ²w̃_k + 2ρη²g² from r₀⁴ (constant g), and "
       "with (β, η_AGG, v₀) = ((1−ηλ)⁴, (2β)^{−1/2}, r₀⁴/(2η²√β)) the AdaGradG accumulator v_k = w̃_k/(2ρη²) obeys "
       "v_{k+1} = βv_k + g², starts at v₀, and gives η_AGG²/v_k = η²/((1−ηλ)²w̃_k), SGD's Table 3.1 rate at the "
       "order-2 radius (residuals 0); the dropped term relative to the kept increment is tan²θ_k/2 with Theorem 2's "
       "tan θ_k = ηg/r_k² (λ = 0; residual 0), the small parameter is (ηg)²/r_k⁴, invariant under SGD(η; ρx₀) ≡ "
       "SGD(η/ρ², x₀) (residual 0), while the printed (ηg)²/r_k² is neither (residuals nonzero, relative misses above "
       "0.1 at η = g = 1, r = 2, ρ = 2); AdaGrad's matched rate η_AG = η‖g̃₀‖/√d gives the first step of SGD's length "
       "(‖η_AG sign(g̃₀)‖ = η_AG√d; residual 0), and with Eq 3.26's A = η/(r²d^{−1/2}‖b‖) (λ = 0, d = 2) AdaGrad's "
       "rate is SGD's (b = 1) divided by s_k = d^{−1/2}‖b_k‖ (residual 0), while App. C.1's printed '= η^e_SGD' and "
       "'= 1/s_k' miss (relative misses 1 and 3 at η = 1/4, r = 1, b = (2, 2)). sgd_order2_radius4 (constant η, g, k steps), "
       "adagradg_equivalent_params (three fields) and adagrad_matched_learning_rate equal the sympy forms at 30 digits "
       "at 1000 points, r₀ in [1e-2, 1e2], η in [1e-4, 1], λ in [1e-6, 0.9], g in [1e-3, 1e3], k in [0, 1000], "
       "d in [1, 1e4], within 8ε(1 + ηλ/(1−ηλ))(1 + min(k, 1/(1−ρ²)) + kf) for the recursion (each step's few "
       "roundings, damped by ρ²; and the decay's rounding raised to the power 4k in the share f of the start "
       "ρ^{2k}r₀⁴ in w̃_k) and 8ε(1 + ηλ/(1−ηλ)) for the parameters.",
       "identity")
def symbolic_theorem4():
    eta, lam, g, s, w, r0, r, rho_, d, scale = sp.symbols("eta lambda g s w r_0 r rho d varrho", **_P)
    k = sp.Symbol("k", integer=True, nonnegative=True)
    rho = (1 - eta * lam) ** 2
    exact = rho ** 2 * w + 2 * rho * eta ** 2 * g ** 2 + eta ** 4 * g ** 4 / w
    # the recursion in ρ as its own positive symbol (ρ^{2k} with a symbolic k), then ρ = (1 − ηλ)²
    order2 = rho_ ** (2 * k) * r0 ** 4 + 2 * rho_ * eta ** 2 * g ** 2 * (1 - rho_ ** (2 * k)) / (1 - rho_ ** 2)
    beta, eta_agg, v0 = (1 - eta * lam) ** 4, 1 / sp.sqrt(2 * (1 - eta * lam) ** 4), \
        r0 ** 4 / (2 * eta ** 2 * sp.sqrt((1 - eta * lam) ** 4))
    w_t, w_next = sp.symbols("wtilde wtilde_next", **_P)
    v_of = w_t / (2 * rho * eta ** 2)
    tan = eta * g / r ** 2  # Theorem 2 at λ = 0: tan θ = η^e‖c⊥‖ = (η/r²)g
    small, printed = (eta * g) ** 2 / r ** 4, (eta * g) ** 2 / r ** 2
    one = {eta: 1, g: 1, r: 2, scale: 2}
    checks = [residual_zero((rho * s + eta ** 2 * g ** 2 / s) ** 2 - exact.subs(w, s ** 2), "Eq 3.25 squared"),
              residual_zero(order2.subs(k, k + 1) - (rho_ ** 2 * order2 + 2 * rho_ * eta ** 2 * g ** 2),
                            "order-2 recursion"),
              residual_zero(order2.subs(k, 0) - r0 ** 4, "order-2 start"),
              residual_zero(v_of.subs(w_t, rho ** 2 * w_t + 2 * rho * eta ** 2 * g ** 2) - (beta * v_of + g ** 2),
                            "AdaGradG accumulator v_{k+1} = βv_k + g²"),
              residual_zero(v_of.subs(w_t, r0 ** 4) - v0, "v₀ = r₀⁴/(2η²√β)"),
              residual_zero(eta_agg ** 2 / v_of - eta ** 2 / ((1 - eta * lam) ** 2 * w_t), "equal effective rates"),
              residual_zero((eta ** 4 * g ** 4 / r ** 4) / (2 * eta ** 2 * g ** 2) - tan ** 2 / 2,
                            "dropped / kept = tan²θ/2"),
              residual_zero(small - tan ** 2, "small parameter (ηg)²/r⁴ = tan²θ"),
              residual_zero(small.subs({r: scale * r}) - small.subs({eta: eta / scale ** 2}),
                            "(ηg)²/r⁴ invariant under (η, ρx₀) -> (η/ρ², x₀)"),
              printed_misses(printed - tan ** 2, tan ** 2, one, "Theorem 4's printed (ηg)²/r² against tan²θ"),
              printed_misses(printed.subs({r: scale * r}) - printed.subs({eta: eta / scale ** 2}),
                              printed.subs({r: scale * r}), one, "printed (ηg)²/r² under the equivalence"),
              residual_zero(eta * g / sp.sqrt(d) * sp.sqrt(d) - eta * g, "‖η_AG sign(g̃₀)‖ = η‖g̃₀‖")]
    # App. C.1: Eq 3.26's A = η/(r²d^{−1/2}‖b‖) (λ = 0, so η^e = A) for AdaGrad's b = sqrt(v_k) and SGD's b = 1, d = 2
    bs = sp.symbols("b_1:3", **_P)
    spread_b = sp.sqrt((bs[0] ** 2 + bs[1] ** 2) / 2)  # s_k = d^{−1/2}‖b_k‖

    def rate(b_):
        return eta / (r ** 2 * b_)

    adagrad, sgd = rate(spread_b), rate(sp.sqrt((1 + 1) / sp.Integer(2)))
    c1 = {eta: sp.Rational(1, 4), r: 1, bs[0]: 2, bs[1]: 2}
    checks += [residual_zero(adagrad - sgd / spread_b, "App. C.1 corrected: η^e_AdaGrad = η^e_SGD/s_k"),
               printed_misses(sgd - adagrad, adagrad, c1, "App. C.1's printed η^e_AdaGrad = η^e_SGD"),
               printed_misses(1 / spread_b - adagrad, adagrad, c1, "App. C.1's printed η^e_AdaGrad = 1/s_k")]
    points = spread([(1e-2, 1e2, "log"), (1e-4, 1.0, "log"), (1e-6, 0.9, "log"), (1e-3, 1e3, "log"),
                     (1.0, 1001.0, "log")], 1000)
    points[:, 4] = _spread_int(points[:, 4] - 1)

    def bound(r0_, eta_, lam_, g_, k_):
        # the steps' round-off, damped by ρ², and the decay's rounding raised to the power 4k in the share f of the
        # value that the start r₀⁴ρ^{2k} holds
        p, rho4 = eta_ * lam_, (1 - eta_ * lam_) ** 4
        start = rho4 ** k_ * r0_ ** 4
        f = start / (start + 2 * (1 - p) ** 2 * (eta_ * g_) ** 2 * (1 - rho4 ** k_) / (1 - rho4))  # λ > 0 here
        return 8 * EPS * (1 + p / (1 - p)) * (1 + min(k_, 1 / (1 - rho4)) + k_ * f)

    checks.append(library_against_symbols(
        order2.subs(rho_, rho), (r0, eta, lam, g, k),
        lambda a, e, l_, h, kk: float(sph.sgd_order2_radius4(a, e, np.full(int(kk), h), l_)[-1]), points, bound,
        "sgd_order2_radius4, w̃_k"))
    for i, (field, expression) in enumerate((("β", beta), ("η_AGG", eta_agg), ("v₀", v0))):
        checks.append(library_against_symbols(
            expression, (r0, eta, lam), lambda a, e, l_, i=i: sph.adagradg_equivalent_params(e, l_, a)[i],
            points[:, :3], lambda a, e, l_: 8 * EPS * (1 + e * l_ / (1 - e * l_)),
            f"adagradg_equivalent_params, {field}"))
    matched = np.column_stack([points[:, 1], points[:, 3], _spread_int(spread([(1.0, 1e4, "log")], 1000)[:, 0])])
    checks.append(library_against_symbols(eta * g / sp.sqrt(d), (eta, g, d),
                                          lambda e, h, dd: sph.adagrad_matched_learning_rate(e, h, int(dd)), matched,
                                          8 * EPS, "adagrad_matched_learning_rate"))
    return _symbolic_result(checks)


@claim("spherical.symbolic_exponential_lr", "Roburin (thesis), Eq 3.44, Lemma 1, App. A (A.1), App. B.2; Li & Arora 2020",
       "sympy: on every radially invariant loss of the plane, L(x) = F(x₂/x₁) with F any function, the chain rule "
       "gives Lemma 1's ∇L(x) = ρ∇L(ρx) (both components' residuals 0), while App. A's printed (A.1) ∇L(x) = "
       "∇L(ρx) leaves the residual (1 − 1/ρ)∇L(x) (relative miss 0.5 at ρ = 2, x = (1, 1)); with Lemma 1's "
       "∇L(a^k x̃) = a^{−k}∇L(x̃): SGD + L2, x_{k+1} = (1−ηλ)x_k − η∇L(x_k), read as "
       "x̃_k = (1−ηλ)^{−k}x_k, is SGD without L2 at η_k = η(1−ηλ)^{−2k−1} (Eq 3.44; residual 0), while App. B.2's "
       "printed η(1−ηλ)^{−2i−k} leaves a nonzero residual (relative miss 0.5 at k = i = 0, ηλ = 1/2); SGD-M + L2 "
       "(m_k = γm_{k−1} + ∇L(x_k) + λx_k) read as x̃_k = α^{−k}x_k, m̃_k = α^k(m_k − (1−α)x_k/η) is SGD-M without L2 "
       "at η_k = ηα^{−2k−1} from m̃_{−1} = −(1−α)x₀/(ηα) (residuals of the positions, the buffer recursion and the "
       "initial buffer 0) when α is a root of α² − (1+γ−ηλ)α + γ, which the library's larger root "
       "(1+γ−ηλ + sqrt((1−γ)² − ηλ(2(1+γ) − ηλ)))/2 is (residual 0; at γ = 0 the discriminant is (1−ηλ)², so "
       "α = 1−ηλ). exponential_lr_schedule and li_arora_equivalent (α, the schedule at k, the initial buffer for x₀ "
       "= 1) equal the sympy forms at 30 digits at 1000 points, η in [1e-4, 1], ηλ/(1−√γ)² in [1e-6, 0.999], γ in "
       "[0, 0.999], k in [0, 1e4] (capped where the schedule nears 1e300), within c_α = 8ε(1 + ((1−γ)² + "
       "2ηλ(1+γ) + (ηλ)²)/(α sqrt(D))) for α (the discriminant D's cancellation), (2k+1)c_α + 4ε(1 + k(1 + 2|ln α|)) "
       "for the schedule (the power of α and the exponent k·ln α^{−2}), c_α(1 + α/(1−α)) + 4ε/(1−α) for the buffer "
       "(1 − α's cancellation), and the same with α = 1−ηλ, c_α = ε(1 + ηλ/(1−ηλ)) for Eq 3.44.", "identity")
def symbolic_exponential_lr():
    eta, lam, alpha, a = sp.symbols("eta lambda alpha a", **_P)
    X, grad, x_prev, m_prev, G_k, x0, G0 = sp.symbols("xtilde G x_prev m_prev G_k x_0 G_0", real=True)
    k, i = sp.symbols("k i", integer=True, nonnegative=True)
    # Eq 3.44 with a = 1 − ηλ
    x_k = a ** k * X  # x̃_k = X
    tilde_next = a ** (-k - 1) * (a * x_k - eta * a ** (-k) * grad)  # ∇L(x_k) = a^{-k}∇L(x̃_k)
    schedule = eta * a ** (-2 * k - 1)
    printed = eta * a ** (-2 * i - k)
    at = {k: 0, i: 0, a: sp.Rational(1, 2), eta: 1, grad: 1, X: 0}
    checks = [residual_zero(tilde_next - (X - schedule * grad), "Eq 3.44: x̃_{k+1} = x̃_k − η_k∇L(x̃_k)"),
              printed_misses(tilde_next - (X - printed * grad), schedule * grad, at, "App. B.2's (1−ηλ)^{−2i−k}η")]
    # Lemma 1's scaling on every radially invariant loss of the plane, L(x) = F(x₂/x₁) (x₁ > 0, F any function)
    x1, x2, scale = sp.symbols("x_1 x_2 varrho", **_P)
    loss = sp.Function("F")(x2 / x1)

    def gradient(p1, p2):
        return [sp.diff(loss, v).subs({x1: p1, x2: p2}, simultaneous=True) for v in (x1, x2)]

    here, scaled = gradient(x1, x2), gradient(scale * x1, scale * x2)
    checks += [residual_zero(here[j] - scale * scaled[j], f"Lemma 1: ∇L(x) = ρ∇L(ρx), component {j + 1}")
               for j in range(2)]
    checks.append(printed_misses(here[0] - scaled[0], here[0], {scale: 2, x1: 1, x2: 1},
                                 "App. A's (A.1) ∇L(x) = ∇L(ρx), first component"))
    # Li & Arora with momentum: γ from the root relation α² − (1 + γ − ηλ)α + γ = 0
    gamma = alpha * (1 - eta * lam - alpha) / (1 - alpha)
    x_k = x_prev - eta * m_prev
    m_k = gamma * m_prev + alpha ** (-k) * G_k + lam * x_k  # ∇L(x_k) = α^{-k}∇L(x̃_k), ∇L(x̃_k) = G_k

    def m_tilde(step, m, x):
        return alpha ** step * (m - (1 - alpha) * x / eta)

    m0 = G0 + lam * x0  # m_{-1} = 0
    checks += [residual_zero(m_tilde(k, m_k, x_k) - gamma * m_tilde(k - 1, m_prev, x_prev) - G_k,
                             "m̃_k = γm̃_{k−1} + ∇L(x̃_k)"),
               residual_zero(alpha ** (-k - 1) * (x_k - eta * m_k)
                             - (alpha ** (-k) * x_k - eta * alpha ** (-2 * k - 1) * m_tilde(k, m_k, x_k)),
                             "x̃_{k+1} = x̃_k − ηα^{−2k−1}m̃_k"),
               residual_zero((m_tilde(0, m0, x0) - G0) / gamma + (1 - alpha) * x0 / (eta * alpha),
                             "m̃_{−1} = −(1−α)x₀/(ηα)")]
    g_ = sp.Symbol("gamma", nonnegative=True)
    p = eta * lam
    discriminant = (1 - g_) ** 2 - p * (2 * (1 + g_) - p)
    root = (1 + g_ - p + sp.sqrt(discriminant)) / 2
    checks += [residual_zero(sp.expand(root ** 2 - (1 + g_ - p) * root + g_), "the larger root solves the quadratic"),
               residual_zero(discriminant.subs(g_, 0) - (1 - p) ** 2, "at γ = 0, D = (1 − ηλ)²")]
    points = spread([(1e-4, 1.0, "log"), (1e-6, 0.999, "log"), (0.0, 0.999, "linear"), (1.0, 1e4 + 1, "log")], 1000)
    eta_, gamma_ = points[:, 0], points[:, 2]
    p_ = points[:, 1] * (1 - np.sqrt(gamma_)) ** 2
    alpha_ = 0.5 * (1 + gamma_ - p_ + np.sqrt((1 - gamma_) ** 2 - p_ * (2 * (1 + gamma_) - p_)))
    k_ = np.minimum(_spread_int(points[:, 3] - 1), np.floor(340 / (2 * np.abs(np.log(alpha_)))))
    li_points = np.column_stack([eta_, p_ / eta_, gamma_, k_])

    def c_alpha(e, l_, c):
        q = e * l_
        D = (1 - c) ** 2 - q * (2 * (1 + c) - q)
        al = 0.5 * (1 + c - q + math.sqrt(D))
        return al, 8 * EPS * (1 + ((1 - c) ** 2 + 2 * q * (1 + c) + q * q) / (al * math.sqrt(D)))

    def schedule_bound(al, c_a, kk):
        return (2 * kk + 1) * c_a + 4 * EPS * (1 + kk * (1 + 2 * abs(math.log(al))))

    li_symbols = (eta, lam, g_, k)
    li_schedule = eta * root ** (-2 * k - 1)
    checks += [
        library_against_symbols(root, li_symbols[:3], lambda e, l_, c: sph.li_arora_equivalent(e, l_, c, [1.0]).alpha,
                                li_points[:, :3], lambda e, l_, c: c_alpha(e, l_, c)[1], "li_arora_equivalent, α"),
        library_against_symbols(li_schedule, li_symbols,
                                lambda e, l_, c, kk: sph.li_arora_equivalent(e, l_, c, [1.0]).schedule(kk), li_points,
                                lambda e, l_, c, kk: schedule_bound(*c_alpha(e, l_, c), kk),
                                "li_arora_equivalent, η_k = ηα^{−2k−1}"),
        library_against_symbols(-(1 - root) / (eta * root), li_symbols[:3],
                                lambda e, l_, c: float(sph.li_arora_equivalent(e, l_, c, [1.0]).initial_buffer[0]),
                                li_points[:, :3],
                                lambda e, l_, c: (lambda al, ca: ca * (1 + al / (1 - al)) + 4 * EPS / (1 - al))(
                                    *c_alpha(e, l_, c)),
                                "li_arora_equivalent, m̃_{−1} for x₀ = 1")]
    # Eq 3.44 alone: λ in [1e-6, 0.9]
    exp_points = np.column_stack([eta_, spread([(1e-6, 0.9, "log")], 1000)[:, 0], k_])
    exp_points[:, 2] = np.minimum(exp_points[:, 2],
                                  np.floor(340 / (2 * np.abs(np.log1p(-exp_points[:, 0] * exp_points[:, 1])))))

    def exp_bound(e, l_, kk):
        q = e * l_
        return schedule_bound(1 - q, EPS * (1 + q / (1 - q)), kk)

    checks.append(library_against_symbols(schedule.subs(a, 1 - eta * lam), (eta, lam, k),
                                          lambda e, l_, kk: sph.exponential_lr_schedule(e, l_)(kk), exp_points,
                                          exp_bound, "exponential_lr_schedule, η(1−ηλ)^{−2k−1}"))
    return _symbolic_result(checks)


@claim("spherical.symbolic_adam_nu",
       "Roburin (thesis), Eqs 3.41-3.42, 3.67-3.81, §3.5.2, Algorithm 1 (lines 10, indices), Fig 3.5 caption",
       "sympy, over three steps of Adam (+L2, ε = 0, v₋₁ = 0) with Lemma 1's ‖∇L(x_i) + λx_i‖² = g_i²/r_i² + λ²r_i²: "
       "ν_2 = r_2d^{−1/2}‖b_2‖ from the recursion of v equals Eq 3.42's closed form, and for Adam w/o (abc), whose v "
       "is rescaled by r_k²/r_{k+1}² after each step, ν_2^R = r_2((1−β₁³)/(1−β₁))sqrt(v_2/(1−β₂³)) equals the "
       "corrected sum Σβ₂^{2−i}(g_i² + λ²r_i⁴) (residuals of ν² 0); the printed ν^R = r_kv_k and the printed summand with "
       "λr_ir_k leave nonzero residuals (relative misses of ν² above 0.1 at β = 0, d = 1, λ = 0, g₀ = 2, r₀ = 1, and "
       "at β = (0, 1/2), λ = 1, g = 0, r = (1, 1/2)); with β₁ = 0, λ = 0 and constant G, the rescaled v has "
       "v̂_k = G²/(dr_k²) (the bias weights Σ_{i<=k}β₂^{k−i}(1−β₂) = 1 − β₂^{k+1} summed by sympy), so every step has "
       "length² η²d and is tangent, r_k² = r₀² + η²dk solves r_{k+1}² = r_k² + η²d from r₀, and Theorem 2's "
       "η^e = A = η/(r_k²sqrt(v̂_k)) = η√d/(Gr_k) (residuals 0). Errata: the bias weights over 1 − β^{k+1} are 1 "
       "(residual 0), while Algorithm 1's index, 1 − β^{k+2} at step k, leaves a nonzero residual (relative miss 1/3 "
       "at β = 1/2, k = 0); unrolling Eq 3.73's a_k = βR(a_{k−1}) + ∇L(x_k) + λx_k over three steps (one coordinate, "
       "x_i = r_iU_i, ∇L(x_i) = G_i/r_i) gives (1/r_k)Σβ^{k−i}(G_i + λr_i²U_i) (residual 0), while Eq 3.75's printed "
       "summand G_k + λr_kr_iU_i misses (relative miss 1 at β = 1/2, λ = 0, G = (1, 0, 0), r = 1); Algorithm 1's line "
       "10, (x_{k+1}ᵀx_k m − (mᵀx_{k+1})x_k)/‖x_{k+1}‖², is R(T(m)) of Eqs 3.70 and 3.73 for any m, x_k, x_{k+1} of "
       "the plane (residuals 0), while the printed leading factor m_k (element-wise) misses (relative miss 1 at x_k "
       "= (1, 0), x_{k+1} = (1, 1), m = (0, 2)); at Adam's first step (ε = 0, d = 2) m̂₀ = g and b₀ = sqrt(v̂₀) = |g|, "
       "so Theorem 2's c₀ = g ⊘ (b₀/(d^{−1/2}‖b₀‖)) is Fig 3.5's ψ(g) = g ⊘ (|g|/(d^{−1/2}‖g‖)) (residuals 0), while "
       "the caption's ‖g‖ for |g| gives g/√d (relative miss 0.55 at g = (1, 2)). adam_nu and adam_nu_R (ν_2 of three steps), "
       "adam_srt_radius and adam_srt_radius_law (η^e) equal the sympy forms at 30 digits at 1000 points each, g in "
       "[1e-3, 1e3], r in [1e-2, 1e2], λ in [1e-6, 1], β₁ in [0, 0.99], 1 − β₂ in [1e-4, 0.5], d in [1, 1e4], η in "
       "[1e-4, 1], k in [0, 1e6], within 16ε for ν (about a dozen roundings of positive terms, 1 − β₂ exact for "
       "β₂ >= 1/2, the bias corrections to a few ε) and 8ε for the radius law (a positive sum, a root, a quotient).",
       "identity")
def symbolic_adam_nu():
    gs, rs = sp.symbols("g_0:3", **_P), sp.symbols("r_0:3", **_P)
    lam, d, eta, G, r0, r, g, beta1, beta2 = sp.symbols("lambda d eta G r_0 r g beta_1 beta_2", **_P)
    k, i = sp.symbols("k i", integer=True, nonnegative=True)
    x, grad = sp.Matrix([r, 0]), sp.Matrix([0, g / r])
    checks = [residual_zero((grad + lam * x).dot(grad + lam * x) - (g ** 2 / r ** 2 + lam ** 2 * r ** 2),
                            "Lemma 1: ‖∇L(x) + λx‖² = g²/r² + λ²r²")]
    squared = [gi ** 2 / ri ** 2 + lam ** 2 * ri ** 2 for gi, ri in zip(gs, rs)]
    bias1 = (1 - beta1 ** 3) / (1 - beta1)
    V = V_R = 0
    for n, term in enumerate(squared):  # Adam's v summed over coordinates; Adam w/o (abc)'s scalar v
        V = beta2 * V + (1 - beta2) * term
        V_R = beta2 * V_R * (rs[n - 1] ** 2 / rs[n] ** 2 if n else 1) + (1 - beta2) * term / d
    nu2 = rs[2] ** 2 / d * bias1 ** 2 * V / (1 - beta2 ** 3)
    nu2_R = rs[2] ** 2 * bias1 ** 2 * V_R / (1 - beta2 ** 3)
    common = bias1 ** 2 * (1 - beta2) / (1 - beta2 ** 3) / d
    eq342 = common * sum(beta2 ** (2 - n) * rs[2] ** 2 / rs[n] ** 2 * (gs[n] ** 2 + lam ** 2 * rs[n] ** 4)
                         for n in range(3))
    corrected = common * sum(beta2 ** (2 - n) * (gs[n] ** 2 + lam ** 2 * rs[n] ** 4) for n in range(3))
    printed_sum = common * sum(beta2 ** (2 - n) * (gs[n] ** 2 + lam ** 2 * rs[n] ** 2 * rs[2] ** 2) for n in range(3))
    nu0_R = rs[0] ** 2 * (1 - beta2) * squared[0] / d / (1 - beta2)  # ν_0^R², β₁ = 0
    printed0 = (rs[0] * (1 - beta2) * squared[0] / d) ** 2  # (r₀v₀)²
    checks += [residual_zero(nu2 - eq342, "Eq 3.42, ν_2²"),
               residual_zero(nu2_R - corrected, "ν_2^R², corrected"),
               printed_misses(printed0 - nu0_R, nu0_R, {beta2: 0, d: 1, lam: 0, gs[0]: 2, rs[0]: 1},
                               "printed ν^R = r_kv_k (squared)"),
               printed_misses(printed_sum - corrected, corrected,
                               {beta1: 0, beta2: sp.Rational(1, 2), lam: 1, gs[0]: 0, gs[1]: 0, gs[2]: 0, rs[0]: 1,
                                rs[1]: 1, rs[2]: sp.Rational(1, 2), d: 1}, "printed λr_ir_k summand (ν²)")]
    # Adam w/o (abc), β₁ = 0, λ = 0, constant G: r_k²v_k = β₂r_{k−1}²v_{k−1} + (1−β₂)G²/d, so r_k²v_k is the sum
    weights = sp.summation(beta2 ** (k - i) * (1 - beta2), (i, 0, k))
    v_hat = weights * G ** 2 / (d * r ** 2) / (1 - beta2 ** (k + 1))
    radius2 = r0 ** 2 + eta ** 2 * d * k
    A = eta / (r ** 2 * sp.sqrt(v_hat))
    checks += [residual_zero(v_hat - G ** 2 / (d * r ** 2), "v̂_k = G²/(dr_k²)"),
               residual_zero(eta ** 2 * (G / r) ** 2 / v_hat - eta ** 2 * d, "step length² = η²d"),
               residual_zero(radius2.subs(k, k + 1) - radius2 - eta ** 2 * d, "r_{k+1}² = r_k² + η²d"),
               residual_zero(radius2.subs(k, 0) - r0 ** 2, "r(0) = r₀"),
               residual_zero(A - eta * sp.sqrt(d) / (G * r), "η^e = η√d/(Gr_k)")]
    # Algorithm 1's bias corrections with t = k + 1 undo the zero start of the moments; with t = k + 2 they do not
    checks += [residual_zero(weights / (1 - beta2 ** (k + 1)) - 1, "bias weights / (1 − β^{k+1}) = 1"),
               printed_misses(weights / (1 - beta2 ** (k + 2)) - 1, sp.Integer(1), {beta2: sp.Rational(1, 2), k: 0},
                              "Algorithm 1's index, 1 − β^{k+2} at step k")]
    # Eq 3.75: a_k = βR(a_{k−1}) + ∇L(x_k) + λx_k along one coordinate (x_i = r_iU_i, ∇L(x_i) = G_i/r_i by Lemma 1)
    Gs, Us = sp.symbols("G_0:3", real=True), sp.symbols("U_0:3", real=True)
    momentum = 0
    for n in range(3):
        momentum = (beta1 * rs[n - 1] / rs[n] * momentum if n else 0) + Gs[n] / rs[n] + lam * rs[n] * Us[n]
    unrolled = sum(beta1 ** (2 - n) * (Gs[n] + lam * rs[n] ** 2 * Us[n]) for n in range(3)) / rs[2]
    printed_unrolled = sum(beta1 ** (2 - n) * (Gs[2] + lam * rs[2] * rs[n] * Us[n]) for n in range(3)) / rs[2]
    checks += [residual_zero(momentum - unrolled, "Eq 3.75 corrected, a_2"),
               printed_misses(printed_unrolled - momentum, momentum,
                              {beta1: sp.Rational(1, 2), lam: 0, Gs[0]: 1, Gs[1]: 0, Gs[2]: 0, rs[0]: 1, rs[1]: 1,
                               rs[2]: 1}, "Eq 3.75's printed ∇L(u_k) + λr_kr_iu_i, a_2")]
    # Algorithm 1's line 10 against R(T(m)) of Eqs 3.70 and 3.73, in the plane
    xv, yv, mv = (sp.Matrix(sp.symbols(f"{c}_1:3", real=True)) for c in ("p", "q", "m"))
    u_x, u_y = xv / sp.sqrt(xv.dot(xv)), yv / sp.sqrt(yv.dot(yv))
    RT = sp.sqrt(xv.dot(xv)) / sp.sqrt(yv.dot(yv)) * (u_x.dot(u_y) * mv - mv.dot(u_y) * u_x)
    line10 = (yv.dot(xv) * mv - mv.dot(yv) * xv) / yv.dot(yv)
    checks += [residual_zero(line10[j] - RT[j], f"Algorithm 1, line 10 = R(T(m)), component {j + 1}")
               for j in range(2)]
    checks.append(printed_misses(mv[0] * line10[0] - RT[0], RT[0],
                                 {xv[0]: 1, xv[1]: 0, yv[0]: 1, yv[1]: 1, mv[0]: 0, mv[1]: 2},
                                 "line 10's printed leading m_k (element-wise), first component"))
    # Fig 3.5: Adam's first step (ε = 0) on the sphere, r = 1, d = 2: m̂₀ = g, v̂₀ = g² element-wise, b₀ = sqrt(v̂₀)
    gv = sp.Matrix(sp.symbols("h_1:3", real=True, nonzero=True))
    m_hat = (1 - beta1) * gv / (1 - beta1)
    b0 = ((1 - beta2) * gv.applyfunc(lambda e: e ** 2) / (1 - beta2)).applyfunc(sp.sqrt)
    c0 = [m_hat[j] / (b0[j] / (sp.sqrt(b0.dot(b0)) / sp.sqrt(2))) for j in range(2)]  # Theorem 2's c at u₀
    norm = sp.sqrt(gv.dot(gv))
    checks += [residual_zero(c0[j] - gv[j] / (sp.Abs(gv[j]) / (norm / sp.sqrt(2))),
                             f"Fig 3.5's ψ(g) = g ⊘ (|g|/(d^{{−1/2}}‖g‖)), component {j + 1}") for j in range(2)]
    checks.append(printed_misses(gv[0] / (norm / (norm / sp.sqrt(2))) - c0[0], c0[0], {gv[0]: 1, gv[1]: 2},
                                 "the caption's ‖g‖ for |g|, first component"))
    points = spread([(1e-3, 1e3, "log")] * 3 + [(1e-2, 1e2, "log")] * 3
                    + [(1e-6, 1.0, "log"), (0.0, 0.99, "linear"), (1e-4, 0.5, "log"), (1.0, 1e4, "log")], 1000)
    points[:, 8] = 1 - points[:, 8]  # β₂, the double the library receives
    points[:, 9] = _spread_int(points[:, 9])
    symbols = gs + rs + (lam, beta1, beta2, d)
    for name, function, expression in (("adam_nu", sph.adam_nu, eq342), ("adam_nu_R", sph.adam_nu_R, corrected)):
        checks.append(library_against_symbols(
            sp.sqrt(expression), symbols,
            lambda g0, g1, g2, a0, a1, a2, l_, b1, b2, dd, f=function: float(
                f([g0, g1, g2], [a0, a1, a2], int(dd), (b1, b2), l_)[-1]),
            points, 16 * EPS, f"{name}, ν_2"))
    law_points = np.column_stack([points[:, 3], spread([(1e-4, 1.0, "log"), (1.0, 1e6 + 1, "log")], 1000),
                                  points[:, 9], points[:, 0]])
    law_points[:, 2] = _spread_int(law_points[:, 2] - 1)
    radius = sp.sqrt(radius2)
    checks += [library_against_symbols(radius, (r0, eta, k, d),
                                       lambda a, e, kk, dd: sph.adam_srt_radius(a, e, int(dd), int(kk)),
                                       law_points[:, :4], 8 * EPS, "adam_srt_radius"),
               library_against_symbols(eta * sp.sqrt(d) / (G * radius), (r0, eta, k, d, G),
                                       lambda a, e, kk, dd, h: sph.adam_srt_radius_law(
                                           a, e, int(dd), h, int(kk)).effective_learning_rate,
                                       law_points, 8 * EPS, "adam_srt_radius_law, η^e")]
    return _symbolic_result(checks)


# Plausible slips in the closed forms that the symbolic claims catch.
planted_bug("spherical: SGD + L2 relaxation rate 2ηλ instead of 4ηλ", "dynamics/spherical/_closed_forms.py",
            "rate = -4.0 * float(learning_rate) * float(weight_decay)",
            "rate = -2.0 * float(learning_rate) * float(weight_decay)", ("spherical.symbolic_sgd_l2_relaxation",))
planted_bug("spherical: random-walk equilibrium r*⁴ loses its factor 2", "dynamics/spherical/_closed_forms.py",
            "r4 = eta * g * g / (2.0 * lam * (1.0 - gamma))", "r4 = eta * g * g / (lam * (1.0 - gamma))",
            ("spherical.symbolic_random_walk_equilibrium",))
planted_bug("spherical: λ = 0 lower bound's log term over g_min² instead of 2g_min²",
            "dynamics/spherical/_closed_forms.py",
            "tail = (eta_ * eta_ * g_max_ ** 4 / (2.0 * g_min_ * g_min_))",
            "tail = (eta_ * eta_ * g_max_ ** 4 / (g_min_ * g_min_))", ("spherical.symbolic_lambda0_bounds",))
planted_bug("spherical: Theorem 4's β = (1−ηλ)² instead of (1−ηλ)⁴", "dynamics/spherical/_closed_forms.py",
            "beta = (1.0 - product) ** 4", "beta = (1.0 - product) ** 2", ("spherical.theorem4_weight_norm",))
planted_bug("spherical: Theorem 4's η_AGG = β^{-1/2} instead of (2β)^{-1/2}", "dynamics/spherical/_closed_forms.py",
            "return AdaGradGParameters(beta, 1.0 / math.sqrt(2.0 * beta), v0)",
            "return AdaGradGParameters(beta, 1.0 / math.sqrt(beta), v0)", ("spherical.symbolic_theorem4",))
planted_bug("spherical: SGD + L2 radius map decays s by (1−ηλ) instead of (1−ηλ)²", "dynamics/spherical/_closed_forms.py",
            "value = (1.0 - eta * lam) ** 2 * s_arr + (eta * g) ** 2 / s_arr",
            "value = (1.0 - eta * lam) * s_arr + (eta * g) ** 2 / s_arr", ("spherical.symbolic_sgd_l2_one_step",))
planted_bug("spherical: SGD + L2 equilibrium r*⁴ at leading order ηG²/(2λ) instead of ηG²/(λ(2−ηλ))",
            "dynamics/spherical/_closed_forms.py",
            "r4 = eta * g * g / (lam * (2.0 - product))", "r4 = eta * g * g / (2.0 * lam)",
            ("spherical.symbolic_sgd_l2_equilibrium",))
planted_bug("spherical: Eq 3.44 schedule's ratio (1−ηλ)^{−1} instead of (1−ηλ)^{−2}", "dynamics/spherical/_closed_forms.py",
            "return GeometricSchedule(eta / (1.0 - product), (1.0 - product) ** -2)",
            "return GeometricSchedule(eta / (1.0 - product), (1.0 - product) ** -1)",
            ("spherical.symbolic_exponential_lr",))
planted_bug("spherical: Eq 3.42's summand with λr_i instead of λr_i²", "dynamics/spherical/_closed_forms.py",
            "terms = (g * g + (lam * r * r) ** 2) / (r * r)", "terms = (g * g + (lam * r) ** 2) / (r * r)",
            ("spherical.symbolic_adam_nu",))
# Plausible slips in the symbolic statements: each makes its claim fail, so the statement and the library are
# independent routes. (Each snippet is split in two literals here, so that it occurs once in this file: in the claim.)
planted_bug("spherical: symbolic statement: Eq 3.25's map decays s by (1−ηλ) instead of (1−ηλ)²", "verify/spherical.py",
            "radius_map = (1 - eta * lam) ** 2 " "* s + eta ** 2 * g ** 2 / s",
            "radius_map = (1 - eta * lam) * s + eta ** 2 * g ** 2 / s", ("spherical.symbolic_sgd_l2_one_step",))
planted_bug("spherical: symbolic statement: SGD + L2 fixed point r*⁴ = ηG²/(2λ)", "verify/spherical.py",
            "r4 = eta * G ** 2 / " "(lam * (2 - eta * lam))", "r4 = eta * G ** 2 / (2 * lam)",
            ("spherical.symbolic_sgd_l2_equilibrium",))
planted_bug("spherical: symbolic statement: relaxation rate 2ηλ instead of 4ηλ", "verify/spherical.py",
            "w = w_star + (r0 ** 4 - w_star) * " "sp.exp(-4 * eta * lam * k)",
            "w = w_star + (r0 ** 4 - w_star) * sp.exp(-2 * eta * lam * k)", ("spherical.symbolic_sgd_l2_relaxation",))
planted_bug("spherical: symbolic statement: random-walk relaxation time (1−γ)/(2ηλ)", "verify/spherical.py",
            "tau = (1 - gamma) / " "(4 * eta * lam)", "tau = (1 - gamma) / (2 * eta * lam)",
            ("spherical.symbolic_random_walk_equilibrium",))
planted_bug("spherical: symbolic statement: λ = 0 log term over g_min² instead of 2g_min²", "verify/spherical.py",
            "log_term = eta ** 2 * G ** 4 / " "(2 * g_min ** 2)", "log_term = eta ** 2 * G ** 4 / (g_min ** 2)",
            ("spherical.symbolic_lambda0_bounds",))
planted_bug("spherical: symbolic statement: Theorem 4's η_AGG = β^{-1/2}", "verify/spherical.py",
            "1 / sp.sqrt(2 * " "(1 - eta * lam) ** 4)", "1 / sp.sqrt((1 - eta * lam) ** 4)",
            ("spherical.symbolic_theorem4",))
planted_bug("spherical: symbolic statement: Eq 3.44's schedule η(1−ηλ)^{−2k}", "verify/spherical.py",
            "schedule = eta * a ** " "(-2 * k - 1)", "schedule = eta * a ** (-2 * k)",
            ("spherical.symbolic_exponential_lr",))
planted_bug("spherical: symbolic statement: Eq 3.42's radius ratio r_k/r_i instead of its square", "verify/spherical.py",
            "rs[2] ** 2 / " "rs[n] ** 2 * (gs[n] ** 2", "rs[2] / rs[n] * (gs[n] ** 2",
            ("spherical.symbolic_adam_nu",))
