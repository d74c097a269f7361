"""Result fields of the numerics, linear-network, spherical and spurious-correlation functions that no claim or test
checked (the *gap* lines of docs/output_coverage.md), each held to an independent route: mpmath, exact integer or
rational arithmetic, a closed form written out here, a symmetry or invariance of the rule, a direct numpy computation
from the inputs, or another function of the library that computes the same thing another way. A field measured by
``tools/output_perturbation.py`` (a relative 1e-3 change, its first entry changed, an integer off by one, two members
swapped) must make one of these tests fail.

The compiled kernels of :mod:`dynamics.numerics` are called here from Python, through the module's binding, so that
the tool's replacement reaches them. The torch trainers run at toy sizes in float64 with the disk cache off."""
import math
from fractions import Fraction

import mpmath
import numba
import numpy as np
import pytest

import dynamics.linear_networks as ln
import dynamics.numerics as nx

torch = pytest.importorskip("torch")

import dynamics.linear_networks.torch_training as ln_torch  # noqa: E402
import dynamics.numerics.torch_batched as nx_batched  # noqa: E402
import dynamics.numerics.torch_tools as nx_torch  # noqa: E402


@pytest.fixture
def no_disk_cache(monkeypatch):
    """The trainers' results computed afresh (not read from an earlier run's disk cache)."""
    monkeypatch.setenv("DYNAMICS_CACHE", "0")


# ================================================================================================ numerics: kernels
mpmath.mp.dps = 40


def test_normal_pdf_and_ppf_kernels_against_mpmath():
    for x in (-7.5, -1.3, 0.0, 0.4, 2.0, 12.0):
        # a float64 exp of a float64 argument: a few ulps
        assert math.isclose(nx.normal_pdf_kernel(x), float(mpmath.npdf(x)), rel_tol=1e-14)
    for q in (1e-12, 0.01, 0.3, 0.5 + 1e-9, 0.8, 0.975, 1 - 1e-6):
        # x with Φ(x) = q at 40 digits: sqrt(2)·erfinv(2q − 1); the kernel is documented to full double precision
        # (a few ulps, and the Halley refinement near q = 1 sees 1 − q rounded to 1e-16 absolute)
        exact = float(mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(q) - 1))
        assert math.isclose(nx.normal_ppf_kernel(q), exact, rel_tol=1e-11, abs_tol=1e-15)
    assert nx.normal_ppf_kernel(0.0) == -math.inf and nx.normal_ppf_kernel(1.0) == math.inf


def test_sigmoid_kernel_against_mpmath_including_the_small_tail():
    for x in (-700.0, -30.0, -2.5, 0.0, 0.7, 15.0, 40.0):
        exact = float(1 / (1 + mpmath.exp(-mpmath.mpf(x))))
        # the tail e^x/(1 + e^x) is formed from e^{-|x|} alone: a few ulps relative everywhere
        assert math.isclose(nx.sigmoid_kernel(x), exact, rel_tol=1e-14)


def test_lambertw_kernel_against_mpmath_on_both_branches():
    for x, branch in ((1.0, 0), (-0.3, 0), (-0.1, -1), (-0.36, -1), (-0.36, 0), (50.0, 0), (1e-5, 0), (-1e-5, -1)):
        exact = float(mpmath.lambertw(x, branch).real)
        # Halley / Newton to convergence: a few ulps (near the branch point the ulps of x cost sqrt(eps))
        assert math.isclose(nx.lambertw_kernel(x, branch), exact, rel_tol=1e-12)
        w = nx.lambertw_kernel(x, branch)
        assert math.isclose(w * math.exp(w), x, rel_tol=1e-12)  # the defining equation
    assert math.isnan(nx.lambertw_kernel(0.5, -1)) and math.isnan(nx.lambertw_kernel(-1.0, 0))


def test_log_binom_pmf_and_sf_kernels_against_exact_fractions():
    for n, p in ((7, Fraction(3, 10)), (20, Fraction(1, 2)), (30, Fraction(9, 10))):
        pmf = [math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]  # exact rationals
        for k in range(n + 1):
            # lgamma and log1p of O(n) arguments: absolute ~1e-14 on an O(10) log
            assert math.isclose(nx.log_binom_pmf_kernel(k, n, float(p)), math.log(pmf[k]), rel_tol=1e-12,
                                abs_tol=1e-13)
            if k >= 1:
                assert math.isclose(nx.log_binom_sf_kernel(k, n, float(p)), math.log(sum(pmf[k:])), rel_tol=1e-12,
                                    abs_tol=1e-13)
    assert nx.log_binom_pmf_kernel(-1, 5, 0.3) == -math.inf and nx.log_binom_sf_kernel(6, 5, 0.3) == -math.inf
    assert nx.log_binom_sf_kernel(0, 5, 0.3) == 0.0


# ================================================================================================ numerics: helpers
def test_require_shape_returns_the_array_and_require_same_length_the_count():
    a = np.arange(6.0).reshape(3, 2) - 2.5  # distinct rows, no zero
    out = nx.require_shape("a", a, (3, None))
    assert np.array_equal(out, a)
    assert np.array_equal(nx.require_shape("v", [1.5, -2.0, 4.0], (3,)), np.array([1.5, -2.0, 4.0]))
    assert nx.require_same_length(t=np.zeros(3), values=np.zeros((3, 2))) == 3
    assert nx.require_same_length(a=[1, 2, 3, 4, 5]) == 5
    with pytest.raises(ValueError):
        nx.require_same_length(a=np.zeros(2), b=np.zeros(3))


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("DYNAMICS_CACHE_DIR", str(tmp_path))
    assert nx.cache_dir() == tmp_path
    monkeypatch.delenv("DYNAMICS_CACHE_DIR")
    assert nx.cache_dir() == __import__("pathlib").Path.home() / ".cache" / "learning-dynamics"


# ================================================================================================ numerics: MP law
def test_mp_cdf_against_the_closed_form_at_alpha_one_and_mpmath_with_the_atom():
    lam = np.array([0.01, 0.3, 1.0, 2.2, 3.9])
    phi = np.arcsin(np.sqrt(lam) / 2)
    # α = 1: ρ(λ) = sqrt((4 − λ)/λ)/(2π); with λ = 4 sin²φ, F = (2/π)(φ + sin φ cos φ); graded panels: ~1e-13
    assert np.allclose(nx.mp_cdf(lam, 1.0), 2 / np.pi * (phi + np.sin(phi) * np.cos(phi)), rtol=1e-12, atol=0)
    alpha = 0.5
    lo, hi = (1 - math.sqrt(alpha)) ** 2, (1 + math.sqrt(alpha)) ** 2
    grid = np.array([0.2, 0.9, 1.6, 2.5])
    rho = lambda t: mpmath.sqrt((hi - t) * (t - lo)) / (2 * mpmath.pi * t)  # noqa: E731
    exact = [float((1 - alpha) + mpmath.quad(rho, [lo, min(x, hi)])) for x in grid]
    # mpmath's tanh-sinh copes with the square-root edge to ~1e-15; the library's rule is ~1e-13
    assert np.allclose(nx.mp_cdf(grid, alpha), exact, rtol=1e-11, atol=0)


def test_mp_quadrature_nodes_and_weights_follow_the_gauss_rule_of_the_first_theta_panel():
    order = 16
    nodes, weights = nx.mp_quadrature(1.0, order=order)
    # exact mass and mean at α = 1 (both 1), to rounding
    assert math.isclose(weights.sum(), 1.0, rel_tol=1e-13) and math.isclose(weights @ nodes, 1.0, rel_tol=1e-13)
    # increasing (strictly on the lower half, where the nodes are not rounded to the edge 4) inside (0, 4]
    assert np.all(np.diff(nodes[:nodes.size // 2]) > 0) and np.all(np.diff(nodes) >= 0)
    assert nodes[0] > 0 and nodes[-1] <= 4.0
    # At α = 1 the bulk is [0, 4], λ = 4 sin²(θ/2) and ρ dλ = (2/π) cos²(θ/2) dθ. The first panel starts at θ = 0, so
    # its Gauss–Legendre nodes are θ_k = (b/2)(1 + x_k) and weights dθ_k = (b/2) w_k for the panel's end b: the ratio
    # dθ_k/θ_k = w_k/(1 + x_k) does not depend on b. θ is recovered from each node by arcsin (no cancellation near 0).
    x, w = np.polynomial.legendre.leggauss(order)
    theta = 2 * np.arcsin(np.sqrt(nodes[:order]) / 2)
    dtheta = weights[:order] * (np.pi / 2) / (1 - nodes[:order] / 4)
    # 1 + x_k loses ~1e-16/(1 + x_k) relative (x_0 ≈ −0.995): 1e-11 covers it
    assert np.allclose(dtheta / theta, w / (1 + x), rtol=1e-11, atol=0)


# ================================================================================================ numerics: Newton
@numba.njit(cache=True)
def _barrier_objective(x, b):
    return np.sum(b * np.log(x) - 0.5 * x * x), b / x - x


@numba.njit(cache=True)
def _barrier_curvature(x, b):
    return np.diag(b / (x * x) + 1.0)


@numba.njit(cache=True)
def _positive(x, b):
    return np.all(x > 0.0)


def test_newton_maximise_reports_the_gradient_residual_of_its_iterate_and_its_step_count():
    b = np.array([4.0, 0.01])
    done = nx.newton_maximise(_barrier_objective, _barrier_curvature, [1.0, 1.0], b, inside=_positive)
    assert np.allclose(done.x, np.sqrt(b), rtol=1e-12, atol=0)  # the maximiser of Σ b log x − x²/2 is sqrt(b)
    assert done.converged and done.residual <= 1e-12
    early = nx.newton_maximise(_barrier_objective, _barrier_curvature, [9.0, 9.0], b, inside=_positive,
                               options=nx.NewtonOptions(max_iter=2))
    assert early.iterations == 2 and not early.converged
    # the residual is max |∇F| at the returned iterate, written out: a few roundings of O(1) numbers
    assert math.isclose(early.residual, np.max(np.abs(b / early.x - early.x)), rel_tol=1e-13)


def test_newton_maximise_kernel_from_its_compiled_functions():
    b = np.array([4.0, 0.01, 2.25])
    functions = nx.newton_functions(_barrier_objective, _barrier_curvature, _positive)
    done = nx.newton_maximise_kernel(functions, np.ones(3), b, 1e-12, 200, 4e-16)
    assert np.allclose(done.x, np.sqrt(b), rtol=1e-12, atol=0)
    assert done.converged and 0 < done.iterations <= 50
    assert math.isclose(done.residual, np.max(np.abs(b / done.x - done.x)), rel_tol=1e-9, abs_tol=1e-300)
    early = nx.newton_maximise_kernel(functions, np.full(3, 9.0), b, 1e-12, 3, 4e-16)
    assert early.iterations == 3 and not early.converged
    # max|∇F| at the returned iterate, written out
    assert math.isclose(early.residual, np.max(np.abs(b / early.x - early.x)), rel_tol=1e-13)
    # every step of damped Newton on this concave objective raises it: x is past the start, still inside
    assert np.all(early.x > 0) and np.all(early.x < 9.0)
    # the same three steps with the checked entry point: the same iterate
    same = nx.newton_maximise(_barrier_objective, _barrier_curvature, np.full(3, 9.0), b, inside=_positive,
                              options=nx.NewtonOptions(max_iter=3))
    assert np.array_equal(same.x, early.x)


# ================================================================================================ numerics: torch
def test_stacked_uniform_weights_are_the_documented_draws_layer_by_layer():
    sizes = (3, 4, 2)
    weights = nx_batched.stacked_uniform_weights([np.random.default_rng(0), np.random.default_rng(1)], sizes)
    assert [tuple(W.shape) for W in weights] == [(2, 4, 3), (2, 2, 4)]
    # member m's stream: layer 0 then layer 1, each uniform(−1/sqrt(fan_in), 1/sqrt(fan_in)); exact (same draws)
    for m in range(2):
        rng = np.random.default_rng(m)
        for layer, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            bound = 1 / math.sqrt(fan_in)
            expected = rng.uniform(-bound, bound, size=(fan_out, fan_in))
            assert np.array_equal(weights[layer][m].numpy(), expected)


def test_closure_loss_returns_what_the_closure_returns_with_gradients_on():
    w = torch.ones(2, dtype=torch.float64, requires_grad=True)

    def closure():
        loss = (torch.tensor([2.0, -3.0], dtype=torch.float64) * w).sum()
        loss.backward()
        return float(loss.detach())

    with torch.no_grad():
        loss = nx_torch.closure_loss(closure)
    assert loss == -1.0  # 2 − 3, exact
    assert w.grad.tolist() == [2.0, -3.0]
    assert nx_torch.closure_loss(None) is None


def test_on_device_resolves_the_device_and_runs_on_one_thread():
    @nx_torch.on_device
    def trainer(x, *, device="cpu"):
        return device, torch.get_num_threads(), 2 * x

    device, threads, doubled = trainer(1.5)
    assert isinstance(device, torch.device) and device.type == "cpu" and threads == 1 and doubled == 3.0
    assert trainer.__name__ == "trainer"


# ================================================================================================ linear networks
def test_finite_size_asymptotic_training_error_is_the_noise_outside_the_row_span():
    rng = np.random.default_rng(0)
    for n, p, sigma in ((3, 7, 0.5), (5, 5, 0.3), (6, 4, 1.0), (10, 31, 0.7)):
        X = rng.standard_normal((n, p)) / math.sqrt(n)
        # E‖(I − Π)ε‖²/P with Π the projector on X's row span: σ² tr(I − Π)/P, for any full-rank X
        projector = np.linalg.pinv(X) @ X
        expected = sigma ** 2 * np.trace(np.eye(p) - projector) / p
        # the trace of a projector is an integer to ~1e-14
        assert math.isclose(ln.finite_size_asymptotic_training_error(n, p, noise_std=sigma), expected,
                            rel_tol=1e-12, abs_tol=1e-13)


def test_generalization_error_thesis_variant_is_the_training_covariance_quadratic_form():
    inst = ln.draw_student(6, 9, init_std=0.3, seed=3)
    rng = np.random.default_rng(5)
    stack = inst.teacher + rng.standard_normal((3, 6))
    delta = inst.teacher - stack
    # Σ_i λ_i (z̄_i − z_i)²/N with λ, v the eigenpairs of X Xᵀ is Δ X Xᵀ Δᵀ/N (no eigendecomposition)
    expected = np.einsum("si,ij,sj->s", delta, inst.inputs @ inst.inputs.T, delta) / 6 + inst.noise_std ** 2
    assert np.allclose(ln.generalization_error_thesis_variant(inst, stack), expected, rtol=1e-12, atol=0)
    assert math.isclose(ln.generalization_error_thesis_variant(inst, stack[1]), expected[1], rel_tol=1e-12)


def test_whiten_is_u_v_transpose_of_the_svd():
    X = np.random.default_rng(2).standard_normal((3, 8)) * np.array([[1.0], [3.0], [0.2]])
    U, _, Vt = np.linalg.svd(X, full_matrices=False)
    # (X Xᵀ)^{-1/2} X = U Vᵀ for X = U S Vᵀ; the condition of X Xᵀ (~1e3) costs ~1e-13
    assert np.allclose(ln.whiten(X), U @ Vt, rtol=0, atol=1e-12)


def test_train_students_against_gradient_descent_written_out(no_disk_cache):
    batch = [ln.draw_student(5, 7, init_std=0.3, seed=s) for s in (1, 2)]
    eta, steps = 0.05, [0, 3, 10]
    run = ln_torch.train_students(batch, steps, eta)
    assert run.weights.shape == (3, 2, 5)
    for m, inst in enumerate(batch):
        w = inst.initial_weights.copy()
        seen = {0: w.copy()}
        for k in range(1, 11):
            w = w + eta * (inst.labels - w @ inst.inputs) @ inst.inputs.T  # −η ∇ ½‖y − wX‖²
            seen[k] = w.copy()
        # ten float64 steps of O(1) numbers, torch's summation order against numpy's
        assert np.allclose(run.weights[:, m], [seen[k] for k in steps], rtol=1e-12, atol=1e-14)


def test_train_students_records_the_requested_steps(no_disk_cache):
    batch = [ln.draw_student(4, 6, seed=s) for s in (0, 1)]
    assert ln_torch.train_students(batch, [0, 2, 5], 0.05).steps.tolist() == [0, 2, 5]


# ================================================================================================ spherical (numpy)
import dynamics.spherical as sph  # noqa: E402
import dynamics.spherical.torch_models as sph_models  # noqa: E402
import dynamics.spherical.torch_training as sph_torch  # noqa: E402


def test_collapse_run_is_gradient_descent_with_weight_decay_on_its_rayleigh_loss():
    eta, decay, n = 0.1, 0.01, 30
    loss, run = sph.collapse_run(n_steps=n, dimension=5, learning_rate=eta, weight_decay=decay, seed=3)
    assert run.steps.tolist() == list(range(n + 1))
    assert run.direction_steps[0] == 0 and run.direction_steps[-1] == n
    # x_{k+1} = (1 − ηλ) x_k − η ∇L(x_k), ∇L(x) = (H x − 2L(x) x)/‖x‖² for L = ½ xᵀHx/‖x‖², from the recorded x_0
    H = loss.H
    x = run.directions[0] * run.radius[0]
    radii = [np.linalg.norm(x)]
    for _ in range(n):
        r2 = x @ x
        x = (1 - eta * decay) * x - eta * (H @ x - (x @ H @ x / r2) * x) / r2
        radii.append(np.linalg.norm(x))
    # thirty steps of O(1) arithmetic
    assert np.allclose(run.radius, radii, rtol=1e-12, atol=0)


def test_sgd_lambda0_sandwich_against_exact_fractions():
    r0, eta, g = 1.5, [0.1, 0.2, 0.05], [1.0, 0.5, 2.0]
    bounds = sph.sgd_lambda0_sandwich(r0, eta, g)
    P = [Fraction(r0) ** 4]
    upper = [Fraction(r0) ** 4]
    for e, gi in zip(eta, g):
        inc = (Fraction(e) * Fraction(gi)) ** 2
        upper.append(upper[-1] + 2 * inc + inc * inc / P[-1])
        P.append(P[-1] + 2 * inc)
    # P_k = r0⁴ + 2Σ η²g², upper = P_k + Σ η⁴g⁴/P_i, in exact rationals of the float inputs: a few roundings
    assert np.allclose(bounds.lower, [float(p) for p in P], rtol=1e-15, atol=0)
    assert np.allclose(bounds.upper, [float(u) for u in upper], rtol=1e-15, atol=0)
    assert bounds.upper[0] == bounds.lower[0] == r0 ** 4  # k = 0: both bounds are r0⁴


# ================================================================================================ spherical (torch)
def test_bn_mlp_is_invariant_to_the_scale_of_each_first_layer_row():
    model = sph_models.bn_mlp(seed=0)
    x = torch.randn(6, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    before = model(x).detach()
    with torch.no_grad():
        model[0].weight.mul_(torch.linspace(0.5, 3.0, 8, dtype=torch.float64)[:, None])
    # batch normalisation with ε = 0 removes each row's scale: the function is unchanged up to rounding
    assert torch.allclose(model(x).detach(), before, rtol=0, atol=1e-13)
    assert isinstance(model[1], sph_models.BatchNorm) and model[0].bias is None and model[3].out_features == 3


def test_exponential_lr_pair_alpha_solves_the_li_arora_quadratic_and_the_copies_agree(no_disk_cache):
    eta, lam, gamma = 0.05, 1e-3, 0.9
    result = sph_torch.exponential_lr_pair(n_steps=5, learning_rate=eta, weight_decay=lam, momentum=gamma, seed=0)
    # α is the larger root of α + γ/α = 1 + γ − ηλ (Li & Arora 2020): a few roundings
    c = 1 + gamma - eta * lam
    assert math.isclose(result.alpha, (c + math.sqrt(c * c - 4 * gamma)) / 2, rel_tol=1e-13)
    # the copies agree to rounding (the gaps are rounding errors: their exact values are not resolvable)
    assert result.direction_gap < 1e-12 and result.readout_gap < 1e-12 and result.loss_gap < 1e-12
    assert result.radius_ratio_error < 1e-10


def test_pythagorean_sgd_radii_and_their_sandwich_from_the_radii_alone(no_disk_cache):
    eta = 0.5
    result = sph_torch.pythagorean_sgd(learning_rate=eta, n_steps=6, batch_size=64, seed=1)
    r4 = result.radius_fourth_power
    assert r4.shape == (7, 8)
    # Pythagorean growth r_{k+1}² = r_k² + η²g_k²/r_k² gives η²g_k² = r_k²(r_{k+1}² − r_k²); from it, written out:
    # lower = r0⁴ + 2Σ η²g², upper = lower + Σ (η²g²)²/lower_i (the growth holds to ~1e-12 relative, see
    # max_increment_error)
    r2 = np.sqrt(r4)
    inc = r2[:-1] * np.diff(r2, axis=0)
    lower = r4[0] + 2 * np.concatenate([np.zeros((1, 8)), np.cumsum(inc, axis=0)])
    upper = lower + np.concatenate([np.zeros((1, 8)), np.cumsum(inc * inc / lower[:-1], axis=0)])
    # the increments are ~1e-2 of r⁴ and carry the growth's ~1e-12 relative error plus the rounding of r², diffed
    assert np.allclose(result.sandwich_lower, lower, rtol=1e-10, atol=0)
    assert np.allclose(result.sandwich_upper, upper, rtol=1e-10, atol=0)
    assert np.all(result.sandwich_lower[0] == r4[0]) and np.all(result.sandwich_upper[0] == r4[0])
    # the exact r⁴ lies in its sandwich (to rounding)
    assert np.all(lower <= r4 * (1 + 1e-12)) and np.all(r4 <= upper * (1 + 1e-12))
    assert result.max_cosine < 1e-12 and result.max_increment_error < 1e-9


def test_equilibrium_statistics_first_averaged_step_obeys_the_step_geometry(no_disk_cache):
    configs = ((0.1, 1e-3, 0.9), (0.05, 2e-3, 0.0))
    config = sph.EquilibriumStatisticsConfig(configs, n_warmup=3, relaxation_times=0.0, n_average=1)
    stats = sph_torch.equilibrium_statistics(config, seed=0)
    assert stats.configs == configs and stats.n_steps == 4
    eta = np.array([c[0] for c in configs])[:, None, None]
    lam = np.array([c[1] for c in configs])[:, None, None]
    # One step after the momentum reset: W ← (1 − ηλ)W − η∂L/∂W with ∂L/∂w_j ⟂ w_j (batch norm), so
    # tan θ = η‖∂L/∂w‖/((1 − ηλ)r) = ηG/((1 − ηλ)r²), with G² = r²‖∂L/∂w‖²: a relation between the three averages
    theta = np.arctan(eta * np.sqrt(stats.grad_norm_squared) / ((1 - eta * lam) * np.sqrt(stats.radius_fourth_power)))
    # the orthogonality holds to rounding; atan2 against atan: ~1e-13 relative on the squared angle
    assert np.allclose(stats.angle_squared, theta ** 2, rtol=1e-10, atol=0)


def test_spherical_step_vs_torch_agrees_to_rounding(no_disk_cache):
    errors = sph_torch.spherical_step_vs_torch(n_steps=2, batch_size=64, seed=0)
    # Theorem 2's step against torch's own: both are rounding errors of O(1) rows
    assert list(errors.direction) == list(errors.radius) == ["SGD-M+L2", "Adam+L2", "AdamW"]
    assert max(errors.direction.values()) < 1e-12 and max(errors.radius.values()) < 1e-12


# ================================================================================================ spurious (numpy)
import types  # noqa: E402

import dynamics.spurious as spur  # noqa: E402
import dynamics.spurious.torch_balancing as spur_balancing  # noqa: E402


def test_bc_ba_loss_ratio_bounds_written_out_in_mpmath():
    k = np.array([0.3, 1.0, 2.5, 7.0])
    alpha, beta = np.array([0.5, 1.0, 2.0, 1.5]), np.array([0.7, 0.2])
    bounds = spur.bc_ba_loss_ratio_bounds(k, alpha, beta)
    for i, kk in enumerate(k):
        kk = mpmath.mpf(kk)
        ea = [mpmath.exp(-kk * a) for a in alpha]
        lower = kk * sum(beta) / sum(ea)
        upper = sum(kk * b + mpmath.exp(-kk * b) for b in beta) / sum(e - e * e / 2 for e in ea)
        # log-sum-exp evaluation: a few ulps of the logs
        assert math.isclose(bounds.lower[i], float(lower), rel_tol=1e-13)
        assert math.isclose(bounds.upper[i], float(upper), rel_tol=1e-13)
    ratio = spur.bc_ba_loss_ratio(k, alpha, beta)
    assert np.all(bounds.lower <= ratio) and np.all(ratio <= bounds.upper)


def test_expand_by_counts_by_hand():
    assert spur.expand_by_counts([0, 1, 2], [1, 3, 1]).tolist() == [0, 1, 1, 1, 2]
    assert spur.expand_by_counts([5, 2, 9], [2, 0, 1]).tolist() == [5, 5, 9]
    idx, counts = [3, 7, 1, 4], [1, 2, 0, 3]
    assert spur.expand_by_counts(idx, counts).tolist() == [i for i, c in zip(idx, counts) for _ in range(c)]


def _hand_experiment(W_by_seed, train_x):
    """A BalancingExperiment holding only what decision_maps reads: one method, hand-set weights per seed, unit
    feature scales and each seed's training inputs."""
    fields = dict.fromkeys(spur_balancing.BalancingExperiment._fields)
    W = np.array([W_by_seed])  # (M = 1, S, D)
    splits = tuple(types.SimpleNamespace(train=types.SimpleNamespace(x=x)) for x in train_x)
    fields.update(methods=("erm",), seeds=tuple(range(len(W_by_seed))), selected_weights=W, final_weights=W,
                  feature_scales=np.ones(W.shape[-1]), splits=splits)
    return spur_balancing.BalancingExperiment(**fields)


def test_decision_maps_against_a_loop_over_the_grid_with_hand_set_weights():
    W = [[0.5, 2.0, 1.0, -1.0], [1.5, -0.5, 0.0, 2.0]]  # (w_spu, w_core, noise weights) per seed
    train = [np.array([[-4.0, 1.0, 0.3, 0.1], [3.0, -1.5, -2.0, 0.5], [0.0, 0.2, 1.0, 1.0]]),
             np.array([[6.0, 0.5, 0.7, -0.2], [-7.0, -1.0, 0.0, 0.4]])]
    experiment = _hand_experiment(W, train)
    maps = spur_balancing.decision_maps(experiment, "erm", spurious_range=(-8.0, 8.0), core_range=(-2.0, 2.0),
                                        n_points=(9, 5))
    spu, core = np.linspace(-8.0, 8.0, 9), np.linspace(-2.0, 2.0, 5)
    assert np.array_equal(maps.spurious_grid, spu) and np.array_equal(maps.core_grid, core)
    for s in range(2):
        agree = 0
        for i, c in enumerate(core):
            for j, a in enumerate(spu):
                # the training sample nearest to (a, c) in the plotted plane lends its noise
                near = min(range(len(train[s])), key=lambda n: (train[s][n, 0] - a) ** 2 + (train[s][n, 1] - c) ** 2)
                logit = W[s][0] * a + W[s][1] * c + float(np.dot(W[s][2:], train[s][near, 2:]))
                # ½(1 + tanh(z/2)) against 1/(1 + e^{−z}): a few ulps of 1 (the tanh form is absolute in the tail)
                assert math.isclose(maps.probabilities[s, i, j], 1 / (1 + math.exp(-logit)), rel_tol=1e-13,
                                    abs_tol=1e-15)
                agree += (logit > 0) == (c > 0)
        assert maps.core_rule_agreement[s] == agree / 45  # a count over the 45 grid points, exact
    plain = spur_balancing.decision_maps(experiment, "erm", noise="none", n_points=(9, 5))
    # without noise the rule is w_spu a + w_core c: seed 0 agrees with the core rule where sign(0.5a + 2c) = sign(c)
    expected = [np.mean([(w[0] * a + w[1] * c > 0) == (c > 0) for c in core for a in spu]) for w in W]
    assert plain.core_rule_agreement.tolist() == expected


# ================================================================================================ spurious (torch runs)
import dynamics.spurious.torch_experiments as spur_torch  # noqa: E402

_PARITY = spur.ParityTrainingConfig(task=spur.ParityTaskConfig(n_train=120, n_test=90, n_core=3, n_noise=4),
                                    width=6, depth=2, batch_size=50, epoch_cap=2, record_every=2,
                                    n_attribution_inputs=20, dtype="float64")


def _parity_at_init(seed, config):
    """What a member that has not moved from its initialisation reports, written out in numpy from the documented
    set-up: the seed's streams, the parity data, torch's U(±1/√fan_in) layers drawn from the ``init`` stream and the
    first epoch's permutation from the ``order`` stream; the FCN d→width→…→2 with ReLU and no bias."""
    task = config.task
    st = nx.seed_streams(seed, spur.PARITY_SEED_STREAMS)
    train = spur.make_parity_task(task.n_train, task.n_core, task.n_spurious, task.n_noise, task.bc_rate,
                                  seed=st.train_data)
    test = spur.make_parity_task(task.n_test, task.n_core, task.n_spurious, task.n_noise, 0.5, seed=st.test_data)
    sizes = [train.x.shape[1]] + [config.width] * config.depth + [2]
    layers = [st.init.uniform(-1 / math.sqrt(a), 1 / math.sqrt(a), size=(b, a)) for a, b in zip(sizes[:-1], sizes[1:])]

    def logits(x):
        for W in layers[:-1]:
            x = np.maximum(x @ W.T, 0.0)
        return x @ layers[-1].T

    def cross_entropy(x, y):
        z = logits(x)
        return np.logaddexp(z[:, 0], z[:, 1]) - z[np.arange(len(y)), y]

    first = st.order.permutation(task.n_train)[:config.batch_size]
    ce = cross_entropy(train.x[first], train.y[first])
    bc = train.y[first] != train.b[first]
    correct = logits(test.x).argmax(axis=1) == test.y
    aligned = test.y == test.b
    return dict(bc_share=ce[bc].sum() / ce.sum(), train_loss=cross_entropy(train.x, train.y).mean(),
                unbiased=correct.mean(), ba=correct[aligned].mean(), bc=correct[~aligned].mean())


def test_parity_training_runs_at_a_vanishing_learning_rate_report_the_initial_network(no_disk_cache):
    # η = 1e-10: two epochs move the weights by ~1e-10, so every reading is the initial network's to ~1e-9
    runs = spur_torch.parity_training_runs([1e-10, 2e-10], [0, 1], _PARITY)
    n_batches = math.ceil(120 / 50)
    for s, seed in enumerate((0, 1)):
        init = _parity_at_init(seed, _PARITY)
        for c in range(2):
            assert math.isclose(runs.bc_loss_share[c, s, 0], init["bc_share"], rel_tol=1e-8)
            assert math.isclose(runs.final_train_loss[c, s], init["train_loss"], rel_tol=1e-8)
            # accuracies are counts over the test set: exact unless a test point sits within 1e-9 of a tie
            assert runs.unbiased_accuracy[c, s] == init["unbiased"]
            assert runs.ba_accuracy[c, s] == init["ba"] and runs.bc_accuracy[c, s] == init["bc"]
    # nobody fits the training set: every member runs to the cap and reads every batch's share
    assert runs.epochs_to_stop.tolist() == [[2, 2], [2, 2]] and not runs.stopped.any()
    assert np.all(np.isfinite(runs.bc_loss_share)) and runs.bc_loss_share.shape[2] == 2 * n_batches
    # recorded every record_every steps, then once after the last step
    assert runs.record_steps.tolist() == list(range(0, 2 * n_batches, 2)) + [2 * n_batches]


def test_parity_training_runs_members_are_independent_and_their_counts_agree(no_disk_cache):
    lrs = (0.05, 0.8)
    both = spur_torch.parity_training_runs(list(lrs), [3], _PARITY._replace(epoch_cap=6))
    alone = spur_torch.parity_training_runs([lrs[1]], [3], _PARITY._replace(epoch_cap=6))
    # a member of a stack trains as it would alone (float64; the stacked matmuls round alike to ~1e-12 over six epochs)
    for field in ("attribution_shares", "final_attribution_shares", "unbiased_accuracy", "ba_accuracy", "bc_accuracy",
                  "final_train_loss", "bc_loss_share"):
        a, b = getattr(both, field)[1], getattr(alone, field)[0]
        width = min(a.shape[1], b.shape[1]) if a.ndim > 1 else None
        if width is not None:
            a, b = a[:, :width], b[:, :width]
        assert np.allclose(a, b, rtol=1e-8, atol=1e-10, equal_nan=True), field
    assert both.epochs_to_stop[1].tolist() == alone.epochs_to_stop[0].tolist()
    n_batches = math.ceil(120 / 50)
    for c in range(2):
        # the batch shares are read while the member trains: epochs_to_stop epochs of n_batches each, NaN after
        assert np.count_nonzero(np.isfinite(both.bc_loss_share[c, 0])) == n_batches * both.epochs_to_stop[c, 0]
        if not both.stopped[c, 0]:  # a member that never met the rule ran to the cap
            assert both.epochs_to_stop[c, 0] == 6
        # the unbiased accuracy is the test-set mix of the aligned and conflicting accuracies
        test = spur.make_parity_task(90, 3, 2, 4, 0.5, seed=nx.seed_streams(3, spur.PARITY_SEED_STREAMS).test_data)
        share = np.mean(test.y == test.b)
        assert math.isclose(both.unbiased_accuracy[c, 0],
                            share * both.ba_accuracy[c, 0] + (1 - share) * both.bc_accuracy[c, 0], rel_tol=1e-12)
    assert both.record_steps[-1] == n_batches * both.epochs_to_stop.max()
    assert np.allclose(both.final_attribution_shares.sum(-1), 1.0, rtol=1e-12)


def _same_member(run, c, single, what=""):
    """Member c of a stacked run against the one-member run ``single``, field by field (float64: the stacked matmuls
    round alike to ~1e-12 over a few epochs)."""
    for field in ("attribution_shares", "final_attribution_shares", "unbiased_accuracy", "ba_accuracy", "bc_accuracy",
                  "final_train_loss", "bc_loss_share", "epochs_to_stop"):
        a, b = np.asarray(getattr(run, field)[c], dtype=float), np.asarray(getattr(single, field)[0], dtype=float)
        if a.ndim > 1:
            width = min(a.shape[1], b.shape[1])
            a, b = a[:, :width], b[:, :width]
        assert np.allclose(a, b, rtol=1e-8, atol=1e-10, equal_nan=True), (what, field)


def test_lr_attribution_runs_are_the_low_and_high_rate_members_of_the_parity_trainer(no_disk_cache):
    runs = spur_torch.lr_attribution_runs([2], _PARITY)
    assert runs.learning_rates.tolist() == [0.05, 0.75]  # the documented defaults
    for c, lr in enumerate((0.05, 0.75)):
        _same_member(runs, c, spur_torch.parity_training_runs([lr], [2], _PARITY), lr)


def test_lr_robustness_runs_each_variant_is_its_protocol(no_disk_cache):
    rob = spur_torch.lr_robustness_runs([1], _PARITY, variants=("constant", "adam", "long"), long_epoch_cap=3)
    assert rob.variants == ("constant", "adam", "long")
    assert rob.learning_rates == ((0.05, 0.75), (1e-3, 1e-2), (0.05, 0.75))
    protocols = (_PARITY, _PARITY._replace(optimizer="adam"), _PARITY._replace(stop="loss", epoch_cap=3))
    for run, lrs, protocol in zip(rob.runs, rob.learning_rates, protocols):
        assert run.learning_rates.tolist() == list(lrs)
        for c, lr in enumerate(lrs):
            _same_member(run, c, spur_torch.parity_training_runs([lr], [1], protocol), (protocol.optimizer, lr))


def test_width_lr_sweep_spreads_from_its_accuracies_and_each_width_is_a_parity_run(no_disk_cache):
    sweep = spur_torch.width_lr_sweep([0, 1], _PARITY, widths=(3, 6), learning_rates=(0.1, 0.6))
    acc = sweep.unbiased_accuracy
    # max − min over the learning rates, per seed and of the seed means, written out
    assert np.array_equal(sweep.spread, acc.max(axis=1) - acc.min(axis=1))
    means = acc.mean(axis=2)
    assert np.allclose(sweep.mean_spread, means.max(axis=1) - means.min(axis=1), rtol=1e-15, atol=0)
    # each width's accuracies are those of a parity run at that width (no attribution records)
    for w, width in enumerate((3, 6)):
        run = spur_torch.parity_training_runs([0.1, 0.6], [0, 1], _PARITY._replace(width=width, record_every=10**9))
        assert np.array_equal(acc[w], run.unbiased_accuracy)
        assert np.array_equal(sweep.epochs_to_stop[w], run.epochs_to_stop)
    assert sweep.widths.tolist() == [3, 6]


def test_intervention_runs_rows_are_their_parity_runs(no_disk_cache):
    config = spur.InterventionConfig(training=_PARITY)
    runs = spur_torch.intervention_runs([0, 1], config, names=("low lr", "l2", "high lr"))
    assert runs.names == ("low lr", "l2", "high lr")
    assert runs.learning_rates.tolist() == [0.05, 0.05, 0.75]  # low_lr, low_lr, high_lr of the config
    plain = _PARITY._replace(record_every=10**9)
    for row, (lr, l2) in enumerate(((0.05, 0.0), (0.05, 5e-3), (0.75, 0.0))):
        single = spur_torch.parity_training_runs([lr], [0, 1], plain._replace(l2=l2))
        # the core share is the core group's share of the final attributions (FEATURE_GROUPS: core first)
        assert np.allclose(runs.core_share[row], single.final_attribution_shares[0, :, 0], rtol=1e-8, atol=1e-10)
        assert np.allclose(runs.unbiased_accuracy[row], single.unbiased_accuracy[0], rtol=0, atol=1e-12)
        assert runs.epochs_to_stop[row].tolist() == single.epochs_to_stop[0].tolist()


import dynamics.spherical.torch_experiments as sph_experiments  # noqa: E402


def test_train_adam_variants_names_its_two_hidden_layers_in_order(no_disk_cache):
    config = sph.AdamVariantsConfig(("SGD-M",), n_steps=2, eval_every=1, n_train=16, n_test=16, width=3, batch_size=4)
    run = sph_experiments.train_adam_variants(config, seeds=(0,))
    # the radially invariant layers of bn_mlp2, input side first (the last axis of the spherical quantities)
    assert run.layer_names == ("layer1", "layer2")
    assert run.effective_learning_rate.shape[-1] == len(run.layer_names)


def _worst_angle(first, second):
    """The largest angle (radians) between matching rows of two lists of filter banks, by arccos of the clipped cosine
    and, near 0, by arcsin of the sine (another formula than the trainer's atan2)."""
    worst = 0.0
    for a, b in zip(first, second):
        x = a.reshape(a.shape[0], -1) / np.linalg.norm(a.reshape(a.shape[0], -1), axis=1, keepdims=True)
        y = b.reshape(b.shape[0], -1) / np.linalg.norm(b.reshape(b.shape[0], -1), axis=1, keepdims=True)
        sine = np.linalg.norm(y - (x * y).sum(axis=1, keepdims=True) * x, axis=1)
        worst = max(worst, float(np.max(np.arcsin(np.clip(sine, 0.0, 1.0)))))
    return worst


def test_adagradg_vs_sgd_m2_first_adagrad_angle_is_sign_descent_against_sgd(no_disk_cache):
    config = sph.AdaGradGVsSGDM2Config(n_steps=1, n_pretrain=2, width=4, batch_size=8)
    run = sph_torch.adagradg_vs_sgd_m2(config, seed=0)
    assert run.steps.tolist() == [0, 1]
    # before fine-tuning every copy holds the pre-trained filters: angle 0 to rounding
    assert run.angle_adagrad[0] < 1e-12 and run.angle_adagradg[0] < 1e-12
    # Step 1 written out. Pre-training as documented: SGD(0.05, momentum 0.9) on mini-batches drawn uniformly with
    # replacement from the seed's torch generator; the fine-tuning batches restart that sequence.
    seed = nx_torch.seed_int(0)
    data = sph_torch.synthetic_images(512, config.image_size, seed=seed)
    model = sph_models.conv_bn_net(config.width, seed=seed)
    gen = nx_torch.torch_generator(seed)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for _ in range(config.n_pretrain):
        idx = torch.randint(0, 512, (config.batch_size,), generator=gen)
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(data.inputs[idx]), data.labels[idx]).backward()
        opt.step()
    idx = torch.randint(0, 512, (config.batch_size,), generator=nx_torch.torch_generator(seed))
    model.zero_grad()
    torch.nn.functional.cross_entropy(model(data.inputs[idx]), data.labels[idx]).backward()
    convs = [m for m in model if isinstance(m, torch.nn.Conv2d)]
    w = [c.weight.detach().numpy() for c in convs]
    g = [c.weight.grad.detach().numpy() for c in convs]
    eta, lam = config.learning_rate, config.weight_decay
    sgd = [wi - eta * (gi + lam * wi) for wi, gi in zip(w, g)]
    # AdaGrad from v = 0 (ε ≈ 0): its first step is −η_AG sign(g̃), g̃ = ∇L + λw, with η_AG matched to SGD's first
    # step length over all filters (the trainer measures ‖∇L‖ before the optimizer adds λw)
    d = sum(gi.size for gi in g)
    matched = eta * math.sqrt(sum(float((gi ** 2).sum()) for gi in g)) / math.sqrt(d)
    adagrad = [wi - matched * np.sign(gi + lam * wi) for wi, gi in zip(w, g)]
    # arcsin against atan2 of ~0.1 rad angles of O(1) rows: ~1e-13
    assert math.isclose(run.angle_adagrad[1], _worst_angle(sgd, adagrad), rel_tol=1e-9)
    assert run.angle_adagrad[1] > 1e-6  # sign descent turns the filters away from SGD's direction
    # AdaGradG tracks SGD + L2 (Theorem 4): its angle stays at the scale of the theorem's error
    assert run.angle_adagradg.max() < 1e-6
