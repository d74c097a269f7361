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

import mpmath
import numpy as np
from scipy import stats

import dynamics.spherical as sph
from .registry import Check, claim, planted_bug



def _z(m, level=1e-4):
    """Two-sided Bonferroni z for m comparisons at family-wise level 1e-4."""
    return float(stats.norm.isf(0.5 * level / m))


def _rel(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b) / np.abs(b)))


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
       "finite-difference Hessian satisfies ∇²L(x)x = −∇L(x) (1e-6 relative).", "identity", stochastic=True)
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
    return Check.all_of(checks)


@claim("spherical.erratum_lemma1_appendix_a", "Roburin (thesis), App. A, Eq A.1",
       "App. A's proof of Lemma 1 starts from ∇L(x) = ∇L(ρx) (A.1), which contradicts (A.2): with gradients "
       "taken by central finite differences of the loss values (independent of the analytic gradients), the "
       "printed relation misses by |1 − 1/ρ| (> 0.3 at ρ in {0.5, 2, 10}) on every synthetic loss, while the "
       "chain-rule form ∇L(x) = ρ∇L(ρx) holds to 1e-6 (the finite differences' error).", "erratum",
       stochastic=True, printed="∇L(x) = ∇L(ρx)  (A.1)", corrected="∇L(x) = ρ∇L(ρx)  (chain rule on x ↦ L(ρx))")
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
       "(rtol 1e-12), and the radius equals sgd_radius_sequence from the recorded gradient norms, also with "
       "weight decay λ = 0.05 (rtol 1e-12).", "identity", stochastic=True)
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
        checks.append(Check.at_most(_rel(product, np.sqrt(r2)), 1e-12, f"{name}: r_k = r_0 Π sec θ_i"))
        for lam in (0.0, 0.05):
            trajectory = sph.simulate(sph.SGD(lambda k: rates[k], weight_decay=lam), loss, x0, 300)
            recursion = sph.sgd_radius_sequence(np.linalg.norm(x0), rates, trajectory.sphere_grad_norm, lam)
            checks.append(Check.at_most(_rel(trajectory.radius, recursion), 1e-12,
                                        f"{name}: simulated radius vs the exact recursion, λ = {lam:g}"))
    return Check.all_of(checks)


# ---------------------------------------------------------------- Theorem 2, one step, every scheme
def _schemes():
    return {"SGD": sph.SGD(0.05), "SGD+L2": sph.SGD(0.05, weight_decay=0.1),
            "SGD-M": sph.SGD(0.02, momentum=0.9), "SGD-M+L2": sph.SGD(0.02, momentum=0.9, weight_decay=0.1),
            "SGD-M RT": sph.SGDMRT(0.02, momentum=0.9, weight_decay=0.1),
            "Adam": sph.Adam(0.01), "Adam+L2": sph.Adam(0.01, weight_decay=0.1),
            "Adam (eps inside sqrt)": sph.Adam(0.01, eps=1e-10, eps_inside_sqrt=True, weight_decay=0.1),
            "AdamW": sph.AdamW(0.01, weight_decay=0.1), "AdaGrad+L2": sph.AdaGrad(0.05, weight_decay=0.1),
            "AdamS": sph.AdamS(0.01, weight_decay=0.1), "AdamST": sph.AdamST(0.01, weight_decay=0.1),
            "AdamSRT": sph.AdamSRT(0.01, weight_decay=0.1), "AdamSRT (eps > 0)": sph.AdamSRT(0.01, eps=1e-3),
            "AdaGradG": sph.AdaGradG(0.3, 0.99, 2.0), "AdamG": sph.AdamG(0.01, eps=1e-8)}


@claim("spherical.theorem2_one_step", "Roburin (thesis), Theorem 2, Eqs 3.21-3.35",
       "For 16 schemes (SGD, SGD+L2, SGD-M(+L2), SGD-M RT, Adam(+L2, ε inside √), AdamW, AdaGrad+L2, AdamS/ST/SRT "
       "(ε = 0 and ε > 0), AdaGradG, AdamG), 40 steps each on a Rayleigh loss with noise: the optimizer's x_{k+1} "
       "equals r_{k+1}u_{k+1} of spherical_step (Eqs 3.24-3.25) built from (A_k, c_k, η_k^e) of its generic form "
       "(direction atol 1e-13, radius rtol 1e-12), the angle between u_k and u_{k+1} is arctan(η^e‖c⊥‖) (atol "
       "1e-13), and u_{k+1} = Exp_{u_k}(−arctan(η^e‖c⊥‖)c⊥/‖c⊥‖) (atol 1e-13).", "identity", stochastic=True)
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
        for x, x_next, form in zip(xs[:-1], xs[1:], forms):
            step = sph.spherical_step(x, form.a, form.b, form.learning_rate, decay=form.decay)
            r_next = np.linalg.norm(x_next)
            du = max(du, np.abs(step.u_next - x_next / r_next).max())
            dr = max(dr, abs(step.r_next / r_next - 1))
            u = x / np.linalg.norm(x)
            c_perp = step.c - (step.c @ u) * u
            theta = math.atan(step.effective_learning_rate * np.linalg.norm(c_perp))
            dangle = max(dangle, abs(theta - sph.angle_between(x, x_next)))
            direction = c_perp / np.linalg.norm(c_perp)
            dexp = max(dexp, np.abs(sph.exp_map(u, -theta * direction) - x_next / r_next).max())
        checks += [Check.at_most(du, 1e-13, f"{name}: direction"), Check.at_most(dr, 1e-12, f"{name}: radius"),
                   Check.at_most(dangle, 1e-13, f"{name}: angle = arctan z"),
                   Check.at_most(dexp, 1e-13, f"{name}: exact exponential map")]
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
                   Check.at_most(_rel(rs, euclid.radius), 1e-10, f"γ = {momentum}: radii")]
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
    checks.append(Check.at_most(_rel(nu_direct, nu_closed), 1e-12, "Adam: ν_k vs Eq 3.42"))
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
                   Check.at_most(_rel(b.radius, a.radius * growth), 1e-10, f"{name}: Eq 3.44 radii")]
        for momentum in (0.9,):
            equivalent = sph.li_arora_equivalent(eta, lam, momentum, x0)
            a = sph.simulate(sph.SGD(eta, momentum, lam), loss, x0, n, record_every=1)
            b = sph.simulate(sph.SGD(equivalent.schedule, momentum, 0.0, initial_buffer=equivalent.initial_buffer),
                            loss, x0, n, record_every=1)
            growth = equivalent.alpha ** -np.arange(n + 1.0)
            checks += [Check.at_most(np.abs(a.directions - b.directions).max(), 1e-10, f"{name}: momentum directions"),
                       Check.at_most(_rel(b.radius, a.radius * growth), 1e-10, f"{name}: momentum radii")]
    return Check.all_of(checks)


# ---------------------------------------------------------------- λ = 0 sandwich and k^{-1/2}
@claim("spherical.lambda0_sandwich", "derived in this project from Roburin (thesis), Eq 3.46 and its order-2 solution",
       "SGD without weight decay on a random linear loss (natural gradient norms), 3000 steps: with a random "
       "schedule η_i in [0.02, 0.2], P_k <= r_k⁴ <= P_k + Σ η_i⁴g_i⁴/P_i at every step (sgd_lambda0_sandwich; "
       "exact, slack rtol 1e-12); with constant η, effective_lr_bounds_sgd(g_min, g_max of the run) brackets "
       "η_k^e = η/r_k² at every step (slack 1e-12); with a constant gradient norm G, √k·η_k^e·√2·G tends to 1 as "
       "the bounds squeeze it (within the bounds at k = 2e4).", "bound", stochastic=True)
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
    return Check.all_of(checks)


# ---------------------------------------------------------------- SGD + L2 equilibrium
@claim("spherical.sgd_l2_equilibrium", "Roburin (thesis), Eqs 3.25, 3.44 (Table 3.1, SGD+L2)",
       "SGD + L2 (γ = 0) with a constant gradient norm G on the sphere (random linear directions), after "
       "30/(ηλ) steps, for (η, λ, G) in {(0.1, 1e-3, 1), (0.5, 1e-2, 0.3), (0.02, 5e-3, 3)}: r⁴, η^e and the "
       "angle per step equal sgd_l2_equilibrium's r*⁴ = ηG²/(λ(2−ηλ)), η^e* and θ* = arccos(1−ηλ) to rtol 1e-9 "
       "(the residual of a linear convergence at rate 1 − 4ηλ after 30/(ηλ) steps is e^{−120}).", "limit",
       stochastic=True)
def sgd_l2_equilibrium(run):
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
       "[L, U] and η_k^e in sgd_l2_invariant_interval's bounds (exact; slack rtol 1e-12).", "bound",
       stochastic=True)
def sgd_l2_invariant_interval(run):
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
    return Check.all_of([
        _inside(s, interval.lower_squared_radius, interval.upper_squared_radius, 1e-12, "L <= s_k <= U"),
        _inside(effective, interval.min_effective_learning_rate, interval.max_effective_learning_rate, 1e-12,
                "η^e within the interval's bounds")])


# ---------------------------------------------------------------- relaxation
@claim("spherical.sgd_l2_relaxation", "derived in this project from Roburin (thesis), Eq 3.25",
       "SGD + L2 (η = 0.1, λ = 1e-3, constant G = 1) from r₀ in {1, 1.5, 4} (tan²θ₀ <= 1e-2) relaxes as "
       "sgd_l2_relaxation's r*⁴ + (r₀⁴ − r*⁴)e^{−4ηλk}: max relative error over 3/(ηλ) steps <= 5e-3 (the "
       "tolerance this project sets for the order-2 ODE approximation).", "limit", stochastic=True)
def sgd_l2_relaxation(run):
    rng = run.rng(112)
    d, eta, lam, G = 16, 0.1, 1e-3, 1.0
    n = int(3 / (eta * lam))
    checks = []
    for r0 in (1.0, 1.5, 4.0):
        x0 = rng.standard_normal(d)
        x0 *= r0 / np.linalg.norm(x0)
        trajectory = sph.simulate(sph.SGD(eta, weight_decay=lam), sph.RandomLinearLoss.stream(d, G, seed=rng), x0, n)
        predicted = sph.sgd_l2_relaxation(r0, eta, lam, G, np.arange(n + 1))
        checks.append(Check.at_most(_rel(trajectory.radius ** 4, predicted), 5e-3, f"r₀ = {r0}"))
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
       "project's tolerances for this model (rtol 1e-2 for r⁴, 5e-3 for the angle).", "limit", stochastic=True)
def sgdm_l2_random_walk_equilibrium(run):
    rng = run.rng(113)
    G, n_batches = 1.0, 50
    configs = ((0.1, 1e-3, 0.9, 128), (0.1, 1e-3, 0.0, 32))
    z = float(stats.t.isf(0.5e-4 / (2 * len(configs)), n_batches - 1))
    checks = []
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
        checks.append(Check.at_most(_rel(adagradg, sph.sgd_effective_lr(eta, w_tilde, lam)), 1e-12,
                                    f"(η, λ, r₀) = ({eta}, {lam}, {r0})"))
    c1 = sph.adagradg_equivalent_params(1e-2, 1e-3, 1.0)
    checks += [Check.at_most(abs(round(c1.beta, 5) - 0.99996), 0.0, f"β = {c1.beta:.8f}"),
               Check.at_most(abs(round(c1.learning_rate, 4) - 0.7071), 0.0, f"η_AGG = {c1.learning_rate:.6f}")]
    return Check.all_of(checks)


@claim("spherical.theorem4_one_sided_bound", "Roburin (thesis), Theorem 4 (order 2)",
       "On the SGD + L2 trajectory (η = 0.1, λ = 1e-3, random linear directions of constant norm G = 1, "
       "30/(ηλ) steps), the ratio of AdaGradG's effective learning rate (Theorem-4 parameters, same gradient "
       "norms) to SGD's, sqrt(r_k⁴/w̃_k), lies in [1, sqrt(1 + E_k/w̃_k)] with E_k <= Σ ρ^{2(k−1−i)}η⁴g_i⁴/w̃_i "
       "(slack 1e-12), and at equilibrium (ratio − 1)/(ηλ/2) is within 1% of 1: a persistent mismatch ηλ/2.",
       "bound", stochastic=True)
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
    return Check.all_of([
        _inside(ratio, 1.0, np.sqrt(1 + E_bound / w_tilde), 1e-12, "1 <= ratio <= sqrt(1 + E/w̃)"),
        Check.at_most(abs(mismatch - 1), 0.01, f"(ratio − 1)/(ηλ/2) = {mismatch:.5f} at equilibrium")])


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
       corrected="a_k = (1/r_k) Σ_{i<=k} β^{k−i} (∇L(u_i) + λ r_i² u_i)")
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
       "(adam_nu_R) to rtol 1e-12; the printed sum with λr_ir_k misses by more than 1e-2 relative, and the "
       "printed ν^R = r_k v_k by far more.", "erratum", stochastic=True,
       printed="ν^R_k = r_k v_k, with ‖∇L(u_i) + λ r_i r_k u_i‖² in the sum",
       corrected="ν^R_k = r_k (1−β₁^{k+1})/(1−β₁) sqrt(v_k/(1−β₂^{k+1})), with ‖∇L(u_i) + λ r_i² u_i‖² in the sum")
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
    printed_error = min(_rel(printed, nu_state), _rel(printed_rv, nu_state))
    return Check.erratum(printed_error, _rel(corrected, nu_state), 1e-12, reject_above=1e-2,
                         detail=f"λr_ir_k sum off by {_rel(printed, nu_state):.2g}, r_k v_k off by "
                                f"{_rel(printed_rv, nu_state):.2g}")


@claim("spherical.adam_srt_radius_law", "derived in this project from Roburin (thesis), Algorithm 1 (Adam w/o (abc))",
       "Adam w/o (abc) with β₁ = 0, λ = 0, ε = 0 on tangent gradients of constant norm G (random directions, "
       "d = 24, G in {0.5, 4}, 5000 steps): r_k² = r₀² + η²dk and η_k^e = η√d/(G r_k) (adam_srt_radius_law), both "
       "to rtol 1e-12 (accumulated round-off over the steps).", "identity", stochastic=True)
def adam_srt_radius_law(run):
    rng = run.rng(123)
    d, eta, n = 24, 0.01, 5000
    checks = []
    for G in (0.5, 4.0):
        x0 = rng.standard_normal(d)
        trajectory = sph.simulate(sph.AdamSRT(eta, betas=(0.0, 0.99)), sph.RandomLinearLoss.stream(d, G, seed=rng), x0, n)
        law = sph.adam_srt_radius_law(np.linalg.norm(x0), eta, d, G, np.arange(n + 1))
        checks += [Check.at_most(_rel(trajectory.radius, law.radius), 1e-12, f"G = {G}: radius"),
                   Check.at_most(_rel(trajectory.effective_learning_rate, law.effective_learning_rate[:-1]), 1e-12,
                                 f"G = {G}: effective learning rate")]
    return Check.all_of(checks)


# ---------------------------------------------------------------- periodic collapse of GD + WD
@claim("spherical.periodic_collapse",
       "derived in this project from Roburin (thesis), Eq 3.25 with weight decay (cf. Lobacheva et al. 2021)",
       "Deterministic GD + L2 (η = 0.1, λ = 0.01) on a rotated Rayleigh quotient (eigenvalues 0..1, d = 8) has no "
       "fixed-point equilibrium: over 30000 steps it shows at least 2 collapse/burst cycles; while the gradient "
       "on the sphere is below 1e-6 the radius shrinks by exactly 1 − ηλ per step (rtol 1e-9), so η^e grows "
       "like (1−ηλ)^{−2k}; and each burst starts only after η^e has crossed the stability threshold "
       "2/(λ_max − λ_min) of the minimum on the sphere.", "theorem", stochastic=True)
def periodic_collapse(run):
    rng = run.rng(124)
    d, eta, lam = 8, 0.1, 0.01
    loss, trajectory = sph.collapse_run(30000, d, eta, lam, seed=rng)
    ratio = trajectory.radius[1:] / trajectory.radius[:-1]
    quiet = trajectory.sphere_grad_norm < 1e-6
    growing = ratio > 1.0
    starts = np.flatnonzero(~growing[:-1] & growing[1:]) + 1
    bursts = [k for k in starts if quiet[:k].any()]
    threshold = loss.stability_threshold
    margins = [float(trajectory.effective_learning_rate[:k].max() / threshold - 1) for k in bursts]
    return Check.all_of([
        Check.at_least(len(bursts), 2, f"{len(bursts)} bursts"),
        Check.at_most(float(np.max(np.abs(ratio[quiet] / (1 - eta * lam) - 1))), 1e-9, "collapse rate 1 − ηλ"),
        Check.predicate(min(margins) if margins else -1.0, "η^e crossed 2/(λ_max − λ_min) before every burst")])


# ---------------------------------------------------------------- further errata of the thesis
@claim("spherical.erratum_sgd_l2_sign", "Roburin (thesis), §3.4.2 (SGD + L2 update), Table 3.1",
       "The thesis's §3.4.2 prints the SGD + L2 update with ∇L − λx: its momentum on the sphere has ⟨c,u⟩ = −λr², "
       "contradicting Table 3.1's +λr² (relative miss 2), while SGD with weight_decay (∇L + λx) gives ⟨c,u⟩ = λr² to 1e-12 "
       "(spherical_step on both updates, random points of a Rayleigh loss).", "erratum", stochastic=True,
       printed="x_{k+1} = x_k − η(∇L(x_k) − λ_k x_k)", corrected="x_{k+1} = x_k − η(∇L(x_k) + λ_k x_k)")
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
       corrected="small parameter (η_k‖∇L(u_k)‖)²/r_k⁴ = tan²θ_k")
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
    corrected = _rel(parameters[0][0], parameters[1][0])
    printed = _rel(parameters[0][1], parameters[1][1])
    tan2 = np.tan(big.angle) ** 2
    dropped = _rel(0.5 * parameters[0][0], 0.5 * tan2)
    return Check.erratum(printed, max(corrected, dropped), 1e-10, reject_above=1.0,
                         detail=f"tan²θ/2 identity {dropped:.1e}")


@claim("spherical.erratum_fig35_deformation", "Roburin (thesis), Fig 3.5 caption (b), §3.5.1 (a)",
       "The Fig 3.5 caption's deformation uses the norm ‖∇L(u)‖ where the element-wise |∇L(u)| belongs: Adam's "
       "first-step momentum on the sphere (spherical_step's c₀, ε = 0) equals ψ(g) = g ⊘ (|g|/(d^{−1/2}‖g‖)) to "
       "1e-15 relative on every synthetic loss, while the printed g ⊘ (‖g‖/(d^{−1/2}‖g‖)) = g/√d misses by more "
       "than 0.1.", "erratum", stochastic=True,
       printed="ψ(∇L(u)) = ∇L(u) ⊘ (‖∇L(u)‖/(d^{−1/2}‖∇L(u)‖))",
       corrected="ψ(∇L(u)) = ∇L(u) ⊘ (|∇L(u)|/(d^{−1/2}‖∇L(u)‖)) (element-wise |·|)")
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


# A plausible bug these claims catch (planted in a copy of the library by tests/test_mutations.py).
planted_bug("Theorem 2 step: effective rate over r instead of r squared", "dynamics/spherical/_kernels.py",
            "A_i = learning_rate[i] / (r * r * scale)", "A_i = learning_rate[i] / (r * scale)",
            ("spherical.theorem2_one_step",))
