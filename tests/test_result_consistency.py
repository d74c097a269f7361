"""The fields of a named result agree with each other, for every function that returns one.

A result often carries values that follow from its others: the generalisation error from the overlaps
(L_G = ½(T − 2R + Q), Eq 4.2.6 of Pezeshki (thesis)), its noisy version from it (+ σ²/2), the totals from the
per-group parts. The claims check each function's headline values against independent routes; these tests hold the
remaining fields to the relations that define them, so that a field computed wrongly, taken from the wrong step or
group, or not updated where its neighbour is, fails here (``tools/output_perturbation.py`` found such fields that
no claim or test read). Tolerances: the relations are evaluated in float64 from the same numbers, so 1e-12
relative (with 1e-15 absolute for values at 0) bounds their rounding.
"""
import numpy as np

import dynamics.double_descent as dd

RTOL, ATOL = 1e-12, 1e-15


def _order_parameters_agree(name, result, noise_std, teacher_power=1.0):
    R, Q = np.asarray(result.R), np.asarray(result.Q)
    error = 0.5 * (teacher_power - 2 * R + Q)
    assert np.allclose(result.generalization_error, error, rtol=RTOL, atol=ATOL), name
    if hasattr(result, "noisy_generalization_error"):
        assert np.allclose(result.noisy_generalization_error, error + 0.5 * noise_std ** 2, rtol=RTOL, atol=ATOL), name
    if getattr(result, "R1", None) is not None:
        assert np.allclose(R, np.asarray(result.R1) + result.R2, rtol=RTOL, atol=ATOL), name
        assert np.allclose(Q, np.asarray(result.Q1) + result.Q2, rtol=RTOL, atol=ATOL), name


def test_double_descent_order_parameters_agree_with_their_overlaps():
    """Every function that returns OrderParameters, an OrderParameterCurve or a SaddlePoint: L_G from (R, Q), the
    noisy L_G from L_G, R = R₁ + R₂ and Q = Q₁ + Q₂, and the steps as asked."""
    problem = dd.TeacherStudentProblem(120, 100, 70, 10.0, noise_std=0.3)
    steps = np.array([0.0, 1.0, 10.0, 100.0, 1e4])
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(60, 40, 28, 10.0, noise_std=0.3), n_seeds=2, seed=1,
                                   n_test=0)
    F, X = data.modulation.draw(0), data.X[0]
    roots = dd.bipartite_roots(steps[1:], 120, 100, 70, 10.0)
    w_hat = dd.gd_weights(data.X, data.y, steps)[:, -1]
    results = {
        "bipartite_theory": (dd.bipartite_theory(steps, problem), 0.3),
        "bipartite_theory_ode": (dd.bipartite_theory_ode(steps[1:], problem), 0.3),
        "exact_gd_order_parameters": (dd.exact_gd_order_parameters(F, X, steps, noise_std=0.3), 0.3),
        "design_order_parameters": (dd.design_order_parameters(data, steps), 0.3),
        "scheduled_gd_order_parameters": (dd.scheduled_gd_order_parameters(F, X, [0, 1, 5, 20], np.full(20, 0.5),
                                                                           noise_std=0.3), 0.3),
        "bipartite_from_roots": (dd.bipartite_from_roots(roots.a1, roots.a2, 120, 100, 70, noise_std=0.3), 0.3),
        "ridge_oracle": (dd.ridge_oracle([0.01, 0.1, 1.0], 120, 100, 70, 10.0, noise_std=0.3), 0.3),
        "measure_order_parameters": (dd.measure_order_parameters(w_hat, data.w, data.modulation, noise_std=0.3), 0.3),
    }
    for name, (result, noise_std) in results.items():
        _order_parameters_agree(name, result, noise_std)
    for name in ("bipartite_theory", "exact_gd_order_parameters", "design_order_parameters"):
        assert np.array_equal(results[name][0].steps, steps), name
    assert np.array_equal(results["bipartite_theory_ode"][0].steps, steps[1:])
    for name, saddle in (("replica_saddle_point", dd.replica_saddle_point([0.5, 1.5, 3.0], 0.1, 1.0, 0.09)),
                         ("stieltjes_order_parameters", dd.stieltjes_order_parameters([0.5, 1.5, 3.0], 0.1, 1.0,
                                                                                      0.09))):
        _order_parameters_agree(name, saddle, 0.0)


def test_linear_network_student_errors_at_the_start_and_in_expectation():
    """Advani & Saxe's student (Eqs 2.3.13-2.3.14 of Pezeshki (thesis)). At t = 0 nothing has moved: the
    high-dimensional E_g and E_t/P both equal σ_w̄² + σ₀² + σ_ε², and E_g of an instance is ‖w̄ − w(0)‖²/N + σ_ε².
    expected_generalization_error against linearity: w(t) = A w̄ + B ε + C w(0), so E‖w̄ − w(t)‖²/N =
    (σ_w̄²‖I − A‖² + σ_ε²‖B‖² + σ₀²‖C‖²)/N, with A, B, C read column by column from student_weights on unit vectors
    (an independent route through the per-mode solution)."""
    import dynamics.linear_networks as ln

    curve = ln.generalization_curve([0.0, 1.0, 10.0], 0.7, teacher_std=1.2, noise_std=0.5, init_std=0.3)
    start = 1.2 ** 2 + 0.3 ** 2 + 0.5 ** 2
    assert abs(curve.generalization_error[0] - start) < 1e-12 and abs(curve.training_error[0] - start) < 1e-12
    instance = ln.draw_student(20, 15, init_std=0.3, noise_std=0.5, seed=4)
    at_start = ln.generalization_error(instance, ln.student_weights(instance, [0.0, 2.0]))[0]
    assert abs(at_start - (np.sum((instance.teacher - instance.initial_weights) ** 2) / 20 + 0.25)) < 1e-12

    n, p, t = 20, 15, np.array([0.0, 0.3, 2.0, 30.0])
    X = instance.inputs

    def weights(teacher, noise, initial):
        return ln.student_weights(ln.student_instance(X, teacher, noise, initial, 0.5), t)  # (T, N)

    columns = [np.stack([weights(e, np.zeros(p), np.zeros(n)) for e in np.eye(n)], -1),
               np.stack([weights(np.zeros(n), e, np.zeros(n)) for e in np.eye(p)], -1),
               np.stack([weights(np.zeros(n), np.zeros(p), e) for e in np.eye(n)], -1)]
    A, B, C = columns  # (T, N, N), (T, N, P), (T, N, N)
    stds = (1.2, 0.5, 0.3)
    by_linearity = (stds[0] ** 2 * np.sum((np.eye(n) - A) ** 2, (1, 2)) + stds[1] ** 2 * np.sum(B ** 2, (1, 2))
                    + stds[2] ** 2 * np.sum(C ** 2, (1, 2))) / n + stds[1] ** 2
    expected = ln.expected_generalization_error(t, instance.eigenvalues, teacher_std=1.2, noise_std=0.5, init_std=0.3)
    assert np.allclose(expected, by_linearity, rtol=1e-10), (expected, by_linearity)


def test_linear_network_effective_initial_strength_and_conserved_gram_by_their_definitions():
    """u_eff,α = |a^α + b^α|²/4 with a^α column α of W₂₁V and b^α row α of UᵀW₃₂ (Saxe et al. 2014's mode
    coordinates), and W₂₁W₂₁ᵀ − W₃₂ᵀW₃₂, each computed here from its definition, for one network and a stack."""
    import dynamics.linear_networks as ln

    rng = np.random.default_rng(3)
    W21, W32 = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 5, 4))
    U, V = np.linalg.qr(rng.standard_normal((5, 5)))[0][:, :3], np.linalg.qr(rng.standard_normal((3, 3)))[0]
    for net in range(2):
        a, b = W21[net] @ V, U.T @ W32[net]  # (N2, 3), (3, N2)
        by_definition = np.array([np.sum((a[:, k] + b[k]) ** 2) / 4 for k in range(3)])
        assert np.allclose(ln.effective_initial_strength(W21[net], W32[net], U, V), by_definition, rtol=1e-12)
    assert np.allclose(ln.conserved_gram(W21, W32), W21 @ np.swapaxes(W21, -1, -2) - np.swapaxes(W32, -1, -2) @ W32,
                       rtol=1e-12)


def test_and_mask_noise_bounds_by_their_formulas_in_mpmath():
    """Proposition 2's bounds (Parascandolo et al. 2021, as corrected in this project) at 30 digits: with
    KL = KL(t/d ‖ 1/2), the type-class bounds 2e^{−d·KL}/(d + 1) <= π₀ <= 2e^{−d·KL}; and the noise-norm bounds
    nσ²(d − t + 1)C(d, t)2^{1−d}, nσ²(2/π + (1 − 2/π)/d)π₀ with π₀ = 2P[Bin(d, ½) >= t] exactly, and
    2nσ²(2/π + (1 − 2/π)/d)e^{−d·KL}, 2nσ²e^{−d·KL}. The library works in log space, where each of its terms
    (log-gamma of d and t, d·KL) is as large as d·ln d: 4 eps (1 + d ln d) bounds what its float64 rounding leaves
    in the value, relatively."""
    import mpmath

    import dynamics.and_mask as am

    with mpmath.workdps(30):
        for d, t in ((1, 1), (4, 3), (8, 7), (30, 20), (200, 101), (1000, 900)):
            r = mpmath.mpf(t) / d
            kl = mpmath.log(2) + r * mpmath.log(r) + ((1 - r) * mpmath.log(1 - r) if t < d else 0)
            exponential = 2 * mpmath.exp(-d * kl)
            pi0 = 2 * mpmath.fsum(mpmath.binomial(d, k) for k in range(t, d + 1)) / mpmath.mpf(2) ** d
            tol = 4 * 2.0 ** -52 * (1 + d * np.log(d))
            bounds = am.keep_probability_bounds(d, t)
            assert abs(bounds.upper / exponential - 1) < tol and abs(bounds.lower / (exponential / (d + 1)) - 1) < tol
            n, sigma = 3, 0.5
            scale = n * sigma ** 2 * (2 / mpmath.pi + (1 - 2 / mpmath.pi) / d)
            norms = am.noise_masked_norm_bounds(d, t, n, sigma)
            expected = {"paper_chain": n * sigma ** 2 * (d - t + 1) * mpmath.binomial(d, t) * 2 / mpmath.mpf(2) ** d,
                        "conditional": scale * pi0, "chernoff": scale * exponential,
                        "exponential": n * sigma ** 2 * exponential}
            for field, value in expected.items():
                assert abs(getattr(norms, field) / value - 1) < tol, (d, t, field, getattr(norms, field), value)


def test_starvation_dual_gd_follows_its_recursion_from_its_start():
    """dual_gd (Pezeshki et al. 2021, Eq 8 ascended as the authors' App. B.1 code does): the first row is the start
    α₀, every row the clipped step α + η(log((1 − α)/α) − Kα) of the one before, K = λ⁻¹US²Uᵀ, and z = λ⁻¹S²Uᵀα
    row by row; computed here in numpy from the documented update (1e-12 relative: a few roundings per step)."""
    import dynamics.starvation as gs

    U, s, lam, eta = gs.coupling_matrix(0.3), np.array([2.0, 1.0]), 0.5, 0.1
    run = gs.dual_gd(U, s, 6, learning_rate=eta, weight_decay=lam, alpha0=[0.2, 0.3])
    K = U @ np.diag(s ** 2) @ U.T / lam
    alpha = np.array([0.2, 0.3])
    assert np.array_equal(run.steps, np.arange(7))
    for k in range(7):
        assert np.allclose(run.alpha[k], alpha, rtol=1e-12, atol=0), k
        assert np.allclose(run.z[k], np.diag(s ** 2) @ U.T @ run.alpha[k] / lam, rtol=1e-12, atol=1e-15), k
        alpha = np.clip(alpha + eta * (np.log((1 - alpha) / alpha) - K @ alpha), 1e-50, 1 - 1e-50)


def test_marchenko_pastur_quadrature_integrates_the_law_s_moments():
    """mp_quadrature's nodes and weights against the Marchenko–Pastur law written out here
    (ρ(λ) = √((λ₊ − λ)(λ − λ₋))/(2πλ), λ± = (1 ± √α)², Pezeshki (thesis) Eq 2.3.30) and integrated by mpmath: the
    bulk's moments of order 0..6 to 1e-13 relative, which the rule integrates exactly (its error is rounding); and
    the nodes lie in the bulk."""
    import mpmath

    import dynamics.numerics as nx

    for alpha in (0.05, 0.3, 1.0, 2.0, 7.0):
        q = nx.mp_quadrature(alpha, 1.0, 16)
        lo, hi = (1 - np.sqrt(alpha)) ** 2, (1 + np.sqrt(alpha)) ** 2
        assert np.all((lo <= q.nodes) & (q.nodes <= hi))
        with mpmath.workdps(30):
            a, b = (1 - mpmath.sqrt(alpha)) ** 2, (1 + mpmath.sqrt(alpha)) ** 2
            for k in range(7):
                moment = mpmath.quad(lambda x: mpmath.sqrt((b - x) * (x - a)) / (2 * mpmath.pi * x) * x ** k, [a, b])
                assert abs(np.sum(q.weights * q.nodes ** k) / moment - 1) < 1e-13, (alpha, k)


def test_and_mask_curves_agree_with_the_pointwise_functions():
    """The figure-data functions of the AND-mask (Parascandolo et al. 2021, Figs 3-4 and Proposition 2) against the
    pointwise functions they tabulate, each checked by its own claims: keep_probability, masked_update_moments (the
    std as √(E[mḡ²] − E[mḡ]²)), noise_masked_norm_bounds, and the grids as documented (τ = k/d; t = ⌈ρd⌉ and its
    τ = (2t − d)/d; E‖ḡ‖² = n/d for σ = 1). 1e-12 relative: the same float64 operations, reordered."""
    import dynamics.and_mask as am

    snr = np.array([0.0, 0.3, 1.0, -2.0, 4.0])
    curves = am.masked_update_curves(6, 0.3, snr)
    moments = [am.masked_update_moments(6, 0.3, s) for s in snr]
    assert np.array_equal(curves.snr, snr)
    assert np.allclose(curves.keep_probability, [am.keep_probability(6, 0.3, s) for s in snr], rtol=1e-12)
    assert np.allclose(curves.mean, [m.first_moment for m in moments], rtol=1e-12, atol=1e-300)
    assert np.allclose(curves.std, [np.sqrt(m.second_moment - m.first_moment ** 2) for m in moments], rtol=1e-10)

    d, s = 5, 1.5
    sweep = am.threshold_sweep(d, s)
    taus = np.arange(d + 1) / d
    assert np.allclose(sweep.agreement_threshold, taus, rtol=1e-15)
    assert np.allclose(sweep.keep_probability, [am.keep_probability(d, t, s) for t in taus], rtol=1e-12)
    assert np.allclose(sweep.noise_keep_probability, [am.keep_probability(d, t, 0.0) for t in taus], rtol=1e-12)
    assert np.allclose(sweep.mean_kept, [am.masked_update_moments(d, t, s).first_moment / s for t in taus],
                       rtol=1e-12)
    assert np.allclose(sweep.noise_power_kept, [am.masked_update_moments(d, t, 0.0).second_moment * d for t in taus],
                       rtol=1e-12)

    envs, n = np.array([3, 5, 10, 21]), 30
    norms = am.masked_norm_curves(envs, 0.8, n)
    agree = np.ceil(0.8 * envs - 1e-9).astype(int)
    assert np.array_equal(norms.n_envs, envs) and np.array_equal(norms.n_agree, agree)
    assert np.allclose(norms.agreement_threshold, (2 * agree - envs) / envs, rtol=1e-15)
    assert np.allclose(norms.unmasked, n / envs, rtol=1e-15)
    for i, (e, t) in enumerate(zip(envs, agree)):
        bounds = am.noise_masked_norm_bounds(int(e), int(t), n, 1.0)
        tau = (2 * t - e) / e
        assert np.isclose(norms.masked[i], n * am.masked_update_moments(int(e), tau, 0.0).second_moment, rtol=1e-12)
        assert np.isclose(norms.paper_chain[i], bounds.paper_chain, rtol=1e-12)
        assert np.isclose(norms.exponential[i], bounds.exponential, rtol=1e-12)


def test_starvation_spherical_and_spurious_outputs_by_their_definitions():
    """Fields no claim read, each against its documented definition computed here: the dual's z = λ⁻¹S²Uᵀα for
    linearised_fixed_point and integrate_dual (Pezeshki et al. 2021, Eq 11) at every time including t = 0; K and
    A = K + I of dual_matrix (Eqs 9-10); the binary entropy (Eq 6) elementwise; the tangential part
    q − ⟨q, û⟩û (Roburin (thesis), Lemma 1); JTT's duplicated index list and the group index n_a·y + a (Pezeshki
    (thesis) §8.1). 1e-12 relative (a few roundings), exact for the integer outputs."""
    import dynamics.spherical as sph
    import dynamics.spurious as spur
    import dynamics.starvation as gs

    U, s, lam = gs.coupling_matrix(0.3), np.array([2.0, 1.0]), 0.5
    to_z = np.diag(s ** 2) @ U.T / lam
    point = gs.linearised_fixed_point(U, s, lam)
    assert np.allclose(point.z, to_z @ point.alpha, rtol=1e-12)
    for exact in (False, True):
        flow = gs.integrate_dual(U, s, [0.0, 0.5, 3.0], weight_decay=lam, exact=exact)
        assert np.allclose(flow.z, flow.alpha @ to_z.T, rtol=1e-12), exact
    K = U @ np.diag(s ** 2) @ U.T / lam
    assert np.allclose(gs.dual_matrix(U, s, lam, exact=True), K, rtol=1e-12)  # Eq 9
    assert np.allclose(gs.dual_matrix(U, s, lam, exact=False), K + np.eye(2), rtol=1e-12)  # Eq 10
    alpha = np.array([1e-9, 0.2, 0.5, 0.9])
    assert np.allclose(gs.binary_entropy(alpha), -alpha * np.log(alpha) - (1 - alpha) * np.log1p(-alpha), rtol=1e-12)

    rng = np.random.default_rng(5)
    for q, u in rng.standard_normal((3, 2, 6)):
        hat = u / np.linalg.norm(u)
        assert np.allclose(sph.tangential(q, u), q - (q @ hat) * hat, rtol=1e-12, atol=1e-15)

    assert spur.expand_by_counts([3, 5, 7, 9], [2, 0, 1, 3]).tolist() == [3, 3, 7, 9, 9, 9]
    assert spur.group_index([0, 1, 1, 0], [1, 0, 1, 0], 2).tolist() == [1, 2, 3, 0]


def test_small_closed_forms_by_their_definitions():
    """test_error as ½ mean over the noiseless test set of (y* − z_testᵀFŵ)² (Pezeshki (thesis) Eq 4.2.5, per
    draw), the analytic step grid 10^linspace (the authors' code for Figs 4.1 and 4.4), Adam's radius
    r_k = √(r₀² + η²dk) and SGD-M's relaxation time (1 − γ)/(4ηλ) (Roburin (thesis), as derived in this project), each
    computed here from its definition (1e-12 relative)."""
    import dynamics.double_descent as dd
    import dynamics.spherical as sph

    data = dd.draw_teacher_student(dd.TeacherStudentProblem(30, 20, 14, 5.0), n_seeds=2, seed=1, n_test=50)
    w_hat = np.random.default_rng(0).standard_normal((2, 3, 20))
    F = data.modulation.matrix  # (2, 20, 20)
    predictions = np.einsum("snd,sde,ske->skn", data.Z_test, F, w_hat)
    by_definition = 0.5 * np.mean((data.y_test[:, None, :] - predictions) ** 2, axis=-1)
    assert np.allclose(dd.test_error(w_hat, data), by_definition, rtol=1e-12)
    assert np.allclose(dd.analytic_steps(7, -2, 4), 10.0 ** np.linspace(-2, 4, 7), rtol=1e-14)
    steps = np.array([0, 1, 10, 1000])
    assert np.allclose(sph.adam_srt_radius(1.5, 0.01, 100, steps), np.sqrt(1.5 ** 2 + 0.01 ** 2 * 100 * steps),
                       rtol=1e-12)
    for eta, lam, gamma in ((0.1, 1e-3, 0.9), (0.5, 0.2, 0.0), (1e-3, 5e-4, 0.99)):
        assert abs(sph.sgdm_l2_relaxation_steps(eta, lam, gamma) / ((1 - gamma) / (4 * eta * lam)) - 1) < 1e-12
