"""Result fields of the AND-mask, gradient-starvation and double-descent functions that no claim or test checked
(the *gap* lines of docs/output_coverage.md), each held to an independent route: a formula written out here, exact
enumeration, mpmath, a direct numpy computation from the other fields or the inputs, a hand-computed small case, or
another function of the library that computes the same thing another way. A field measured by
``tools/output_perturbation.py`` (a relative 1e-3 change, its first entry changed, an integer off by one, two
members swapped) must make one of these tests fail.

The torch experiments are run at toy sizes in float64 with the disk cache off; their accuracies are checked as what
they are (a count over a finite set: a multiple of 1/n) and against the quantities they are documented to equal."""
import itertools
import math

import mpmath
import numpy as np
import pytest

import dynamics.and_mask as am
import dynamics.double_descent as dd
import dynamics.starvation as gs


@pytest.fixture
def no_disk_cache(monkeypatch):
    """The trainers' results computed afresh (not read from an earlier run's disk cache)."""
    monkeypatch.setenv("DYNAMICS_CACHE", "0")


def _on_lattice(values, n):
    """Whether every entry is a multiple of 1/n (an accuracy over n examples), to rounding."""
    counts = np.asarray(values, dtype=float) * n
    return bool(np.all(np.abs(counts - np.round(counts)) < 1e-9 * n))


# ================================================================================================ AND-mask (numpy)
def _masked_mean(grads, tau):
    """The τ-form AND-masked mean of (n_envs, n_params) gradients, written out: keep j iff abs(Σ_e sign g_ej) >=
    ⌈τd − 1e-9⌉ (sign(0) = 0)."""
    d = grads.shape[0]
    keep = np.abs(np.sign(grads).sum(axis=0)) >= math.ceil(tau * d - 1e-9)
    return np.where(keep, grads.mean(axis=0), 0.0)


def test_and_masked_gd_records_the_squared_norm_of_every_update():
    H = np.diag([2.0, 1.0, 0.5])
    shifts = np.array([[0.0, 0.0, 0.0], [0.3, -0.2, 0.1], [0.1, 0.4, -0.3], [-0.2, 0.1, 0.2]])
    grads = lambda th: np.stack([H @ th - b for b in shifts])  # noqa: E731
    eta, tau = 0.1, 0.5
    run = am.and_masked_gd(grads, [1.0, -1.0, 0.5], tau, eta, 6)
    # the update written out at each recorded iterate (its own mask and mean)
    updates = np.array([_masked_mean(grads(th), tau) for th in run.thetas[:-1]])
    assert np.all(updates[0] != 0.0)
    # a handful of roundings of an O(1) sum of squares
    assert np.allclose(run.masked_gradient_sq, (updates ** 2).sum(axis=1), rtol=1e-13, atol=0.0)
    # and from the iterates alone: θ^{i+1} = θ^i − η u(θ^i); the difference of O(1) iterates loses ~1e-16/η
    steps = -np.diff(run.thetas, axis=0) / eta
    assert np.allclose(run.masked_gradient_sq, (steps ** 2).sum(axis=1), rtol=1e-12, atol=0.0)


def test_keep_set_by_hand_and_against_the_mask_of_constructed_signs():
    assert am.keep_set(4, 0.5).tolist() == [0, 1, 3, 4]  # T = 2: abs(2k − 4) >= 2
    assert am.keep_set(5, 0.6).tolist() == [0, 1, 4, 5]  # T = 3: abs(2k − 5) >= 3
    assert am.keep_set(5, 0.2).tolist() == [0, 1, 2, 3, 4, 5]  # T = 1: abs(2k − 5) is odd
    assert am.keep_set(25, 0.28).tolist() == list(range(10)) + list(range(16, 26))  # T = 7, not 8
    assert am.keep_set(3, 1.0).tolist() == [0, 3]
    # a coordinate with k positive and d − k negative gradients passes the AND-mask iff k is in the keep set
    for d in range(1, 8):
        grads = np.where(np.arange(d)[:, None] < np.arange(d + 1)[None, :], 1.0, -1.0)  # column k: k positives
        for tau in np.linspace(0.0, 1.0, 11):
            assert am.keep_set(d, tau).tolist() == np.flatnonzero(am.and_mask(grads, tau)).tolist()


def test_logistic_env_gradients_against_a_loop_and_finite_differences():
    rng = np.random.default_rng(4)
    inputs = rng.standard_normal((3, 5, 4))
    labels = np.where(rng.random((3, 5)) < 0.5, -1.0, 1.0)
    w = np.array([0.7, -0.4, 0.2, 1.1])
    g = am.logistic_env_gradients(w, inputs, labels)
    loop = np.zeros((3, 4))
    for e, i in itertools.product(range(3), range(5)):
        margin = labels[e, i] * float(inputs[e, i] @ w)
        loop[e] -= labels[e, i] * inputs[e, i] / (1.0 + math.exp(margin)) / 5  # σ(−m) y x / n
    assert np.allclose(g, loop, rtol=1e-13, atol=1e-15)  # the same sums in another order

    def loss(e, weights):  # environment e's mean logistic loss
        return float(np.mean(np.log1p(np.exp(-labels[e] * (inputs[e] @ weights)))))

    h = 1e-6
    for e, j in itertools.product(range(3), range(4)):
        step = h * np.eye(4)[j]
        central = (loss(e, w + step) - loss(e, w - step)) / (2 * h)
        assert central == pytest.approx(g[e, j], rel=1e-6, abs=1e-9)  # O(h²) truncation, 1e-10/h rounding


def test_patchwork_model_against_the_logistic_written_out():
    theta = np.array([3.0, -1.0, -2.0, 0.5, 1.5, -0.7])
    x = np.linspace(0.0, 1.0, 7)
    expected = [theta[4] / (1 + math.exp(-(theta[0] * xi + theta[1])))
                + theta[5] / (1 + math.exp(-(theta[2] * xi + theta[3]))) for xi in x]
    assert np.allclose(am.patchwork_model(x, theta), expected, rtol=1e-14, atol=1e-15)  # tanh form vs exp form
    # θ*: each sigmoid saturated away from its step at x = 0.5 and 0.75
    star = am.patchwork_model([0.0, 0.6, 1.0], am.PATCHWORK_THETA_STAR)
    assert np.allclose(star, [2 / (1 + math.exp(50)) + 1 / (1 + math.exp(75)), 1 / (1 + math.exp(-10))
                              + 1 / (1 + math.exp(15)), 1 / (1 + math.exp(-50)) + 1 / (1 + math.exp(-25))],
                       rtol=1e-14, atol=1e-15)


def test_patchwork_target_by_hand():
    x = [0.1, 0.4, 0.45, 0.5, 0.6, 0.7, 0.75, 0.8, 0.95]
    # 0, ramp 10(x − 0.4) to 1, 1, ramp 1 + 10(x − 0.7) to 2, 2 (the appendix's target)
    expected = [0.0, 0.0, 0.5, 1.0, 1.0, 1.0, 1.5, 2.0, 2.0]
    assert np.allclose(am.patchwork_target(x), expected, rtol=0.0, atol=1e-14)  # 10·(x − 0.4) rounds at 1e-15
    # continuous at every breakpoint
    for b in (0.4, 0.5, 0.7, 0.8):
        left, right = am.patchwork_target([b - 1e-9, b + 1e-9])
        assert abs(left - right) < 1e-7


def _masked_logistic_gd(data, tau, eta, n_steps):
    """Full-batch AND-masked GD from w = 0 on the mean logistic loss of each environment, written out in numpy."""
    X, Y = data.train_inputs, data.train_labels
    w = np.zeros(X.shape[2])
    for _ in range(n_steps):
        sigma = 1.0 / (1.0 + np.exp(Y * (X @ w)))  # σ(−y w·x)
        g = -(sigma * Y)[..., None] * X
        w = w - eta * _masked_mean(g.mean(axis=1), tau)
    return w


def _accuracy(w, X, y):
    return float(np.mean((X @ w > 0) == (y > 0)))


def test_train_logistic_shortcut_against_masked_gd_written_out():
    data = am.make_logistic_shortcut(n_envs=6, n_samples_per_env=40, dim_shortcut=5, n_test=300, seed=3)
    X, Y = data.train_inputs, data.train_labels
    for tau in (0.0, 0.5, 1.0):
        run = am.train_logistic_shortcut(data, tau, learning_rate=0.5, n_steps=30)
        w = _masked_logistic_gd(data, tau, 0.5, 30)
        assert np.allclose(run.weights, w, rtol=1e-10, atol=1e-13)  # 30 steps of roundings
        # accuracies over 240, 300 and 300 examples: the same counts (no margin within rounding of 0)
        assert run.train_accuracy == pytest.approx(_accuracy(w, X.reshape(-1, X.shape[2]), Y.ravel()), abs=1e-12)
        assert run.test_accuracy == pytest.approx(_accuracy(w, data.test_inputs, data.test_labels), abs=1e-12)
        assert run.shortcut_accuracy == pytest.approx(_accuracy(w, data.shortcut_test_inputs, data.test_labels),
                                                      abs=1e-12)
        # the mask at w = 0: g_e = −(1/2n) Σ_i y_i x_i, the shortcut block −s_e/2 with s_e = y·x_S
        invariant = -0.5 * np.mean(Y * X[:, :, 0], axis=1)
        shortcuts = -0.5 * X[:, 0, 1:] * Y[:, :1]
        at_zero = np.column_stack([invariant, shortcuts])
        keep = np.abs(np.sign(at_zero).sum(axis=0)) >= math.ceil(tau * 6 - 1e-9)
        assert run.initial_mask.dtype == bool and run.initial_mask.tolist() == keep.tolist()
    # at τ = 1 the invariant coordinate agrees in every environment (a·y + noise, a = 1) and a shortcut does not
    assert am.train_logistic_shortcut(data, 1.0, n_steps=0).initial_mask[:2].tolist() == [True, False]


def test_shortcut_threshold_sweep_against_masked_gd_written_out():
    sweep = am.shortcut_threshold_sweep([0.0, 1.0], n_seeds=2, n_steps=15, seed=5)
    for j in range(2):
        data = am.make_logistic_shortcut(seed=5 + j)  # data set j is drawn with seed + j
        flat = data.train_inputs.reshape(-1, data.train_inputs.shape[2])
        for i, tau in enumerate((0.0, 1.0)):
            w = _masked_logistic_gd(data, tau, 0.5, 15)
            # accuracies over 4096 and 4000 examples: the same counts
            assert sweep.train_accuracy[i, j] == pytest.approx(_accuracy(w, flat, data.train_labels.ravel()),
                                                               abs=1e-12)
            assert sweep.test_accuracy[i, j] == pytest.approx(_accuracy(w, data.test_inputs, data.test_labels),
                                                              abs=1e-12)
            assert sweep.shortcut_accuracy[i, j] == pytest.approx(
                _accuracy(w, data.shortcut_test_inputs, data.test_labels), abs=1e-12)
    assert sweep.bayes_accuracy == pytest.approx(float(mpmath.ncdf(1.0)), rel=1e-15)  # Φ(a), a = 1 by default


def test_sign_ema_moments_by_exact_enumeration():
    snr, beta = 0.7, 0.6
    p = float(mpmath.ncdf(snr))
    means, variances = [], []
    for k in range(7):  # every sign sequence of k steps, a_k = Σ_j (1 − β)β^{k−j} sign_j
        moments = np.zeros(3)
        for signs in itertools.product((1.0, -1.0), repeat=k):
            weight = math.prod(p if s > 0 else 1.0 - p for s in signs)
            a = sum((1 - beta) * beta ** (k - 1 - j) * s for j, s in enumerate(signs))
            moments += weight * np.array([1.0, a, a * a])
        means.append(moments[1])
        variances.append(moments[2] - moments[1] ** 2)
    m = am.sign_ema_moments(snr, beta, np.arange(7))
    assert np.allclose(m.mean, means, rtol=1e-13, atol=1e-16)  # 2^k products and sums
    assert np.allclose(m.variance, variances, rtol=1e-12, atol=1e-16)
    # the stationary mean (2p − 1) and pure noise (mean 0, the relative change of 0 shows as 1e-3)
    assert am.sign_ema_moments(snr, beta, np.inf).mean == pytest.approx(2 * p - 1, rel=1e-14)
    assert am.sign_ema_moments(0.0, beta, [3, 5]).mean.tolist() == [0.0, 0.0]


def test_threshold_sweep_keep_probabilities_by_the_binomial_sum():
    for d, snr in ((4, 0.8), (5, -0.3)):
        sweep = am.threshold_sweep(d, snr)
        for p, got in ((mpmath.ncdf(snr), sweep.keep_probability), (mpmath.mpf(0.5), sweep.noise_keep_probability)):
            expected = [float(mpmath.fsum(mpmath.binomial(d, k) * p ** k * (1 - p) ** (d - k)
                                          for k in range(d + 1) if abs(2 * k - d) >= t)) for t in range(d + 1)]
            # τ = t/d gives the integer threshold t; mpmath at 15 digits
            assert np.allclose(got, expected, rtol=1e-13, atol=0.0)
        # the kept fractions by enumerating the 2^d sign patterns: given its sign, g ~ N(s, 1) has the truncated
        # mean s + φ(s)/Φ(s) (positive) or s − φ(s)/Φ(−s) (negative); pure noise: ±√(2/π), E[g²] = 1
        p, phi = mpmath.ncdf(snr), mpmath.npdf(snr)
        m_plus, m_minus, c2 = snr + phi / p, snr - phi / (1 - p), 2 / mpmath.pi
        mean_kept, noise_power = [], []
        for t in range(d + 1):
            first, second = mpmath.mpf(0), mpmath.mpf(0)
            for signs in itertools.product((1, -1), repeat=d):
                S = sum(signs)
                if abs(S) < t:
                    continue
                k = signs.count(1)
                first += p ** k * (1 - p) ** (d - k) * (k * m_plus + (d - k) * m_minus) / d  # E[m ḡ]
                second += (d + c2 * (S * S - d)) / d ** 2 / 2 ** d  # E[m ḡ²] for pure noise
            mean_kept.append(float(first / snr))
            noise_power.append(float(second * d))  # over E[ḡ²] = 1/d
        assert np.allclose(sweep.mean_kept, mean_kept, rtol=1e-12, atol=1e-15)
        assert np.allclose(sweep.noise_power_kept, noise_power, rtol=1e-12, atol=1e-15)


def _two_valley_gradients(p):
    """∇L_A, ∇L_B of the two-valley landscape written out from its definition: L_e = q_c q_e/(q_c + q_e),
    q_c = ‖θ − c‖², c = (−0.5, −0.5), q_A = (θ₁ − 0.8)², q_B = (θ₂ − 0.8)²; ∂L/∂q_c = (q_e/(q_c+q_e))²,
    ∂L/∂q_e = (q_c/(q_c+q_e))²."""
    c, v = -0.5, 0.8
    qc = ((p - c) ** 2).sum(axis=-1, keepdims=True)
    grad_qc = 2 * (p - c)
    out = []
    for axis in (0, 1):
        qe = (p[..., axis:axis + 1] - v) ** 2
        grad_qe = np.zeros_like(p)
        grad_qe[..., axis] = 2 * (p[..., axis] - v)
        out.append((qe / (qc + qe)) ** 2 * grad_qc + (qc / (qc + qe)) ** 2 * grad_qe)
    return out


def _two_valley_gd(starts, method, eta, n_steps, every):
    p = np.array(starts, dtype=float)
    path = [p.copy()]
    for k in range(1, n_steps + 1):
        ga, gb = _two_valley_gradients(p)
        if method == "pooled":
            u = 0.5 * (ga + gb)
        elif method == "env_a":
            u = ga
        else:  # the AND-mask with d = 2, τ = 1: both signs agree and are non-zero
            u = np.where(np.abs(np.sign(ga) + np.sign(gb)) == 2, 0.5 * (ga + gb), 0.0)
        p = p - eta * u
        if k % every == 0:
            path.append(p.copy())
    return p, np.stack(path, axis=1)


def test_two_valley_losses_from_the_definition():
    points = np.array([[0.0, 0.0], [-0.5, -0.5], [0.8, 0.8], [1.2, -0.3], [-1.0, 0.6]])
    qc = ((points + 0.5) ** 2).sum(axis=1)
    qa, qb = (points[:, 0] - 0.8) ** 2, (points[:, 1] - 0.8) ** 2
    la, lb = qc * qa / (qc + qa), qc * qb / (qc + qb)
    losses = am.two_valley_losses(points)
    assert np.allclose(losses.loss_a, la, rtol=1e-14, atol=0.0)
    assert np.allclose(losses.loss_b, lb, rtol=1e-14, atol=0.0)
    assert np.allclose(losses.pooled, 0.5 * (la + lb), rtol=1e-14, atol=0.0)
    assert float(losses.pooled[0]) == pytest.approx(0.5 * 0.64 / 1.14, rel=1e-14)  # at 0: q_c = 0.5, q_e = 0.64
    assert losses.pooled[1:3].tolist() == [0.0, 0.0]  # the two minima
    # the shape of the points without its last axis
    assert am.two_valley_losses(points.reshape(5, 1, 2)).pooled.shape == (5, 1)


@pytest.mark.parametrize("method", ["pooled", "and_mask"])
def test_two_valley_descent_against_gradient_descent_written_out(method):
    starts = [[-1.0, 0.2], [0.6, 0.7], [1.3, -1.1]]
    run = am.two_valley_descent(starts, method, learning_rate=0.05, n_steps=20, record_every=5)
    final, paths = _two_valley_gd(starts, method, 0.05, 20, 5)
    assert run.recorded_steps.tolist() == [0, 5, 10, 15, 20]
    assert np.allclose(run.paths[:, 0], starts, rtol=0.0, atol=0.0)  # the start itself is recorded
    assert np.allclose(run.paths, paths, rtol=1e-12, atol=1e-14)  # 20 steps of roundings
    assert np.allclose(run.final, final, rtol=1e-12, atol=1e-14)
    # without record_every: the start and the end
    assert am.two_valley_descent(starts, method, 0.05, 20).recorded_steps.tolist() == [0, 20]


@pytest.mark.parametrize("method", ["pooled", "env_a", "and_mask"])
def test_two_valley_basins_against_gradient_descent_written_out(method):
    n_grid, n_steps, tol = 7, 1500, 1e-2
    axis = np.linspace(-1.5, 1.5, n_grid)
    starts = np.stack(np.meshgrid(axis, axis, indexing="ij"), axis=-1).reshape(-1, 2)
    final, _ = _two_valley_gd(starts, method, 0.02, n_steps, n_steps)
    to_c = np.linalg.norm(final - [-0.5, -0.5], axis=1) <= tol
    to_s = np.linalg.norm(final - [0.8, 0.8], axis=1) <= tol
    basins = am.two_valley_basins(method, n_steps=n_steps, n_grid=n_grid)
    assert basins.n_runs == 49
    # fractions of 49 runs: the same counts (no run ends within rounding of the tolerance)
    assert basins.consistent == pytest.approx(to_c.sum() / 49, abs=1e-12)
    assert basins.inconsistent == pytest.approx(to_s.sum() / 49, abs=1e-12)
    assert basins.other == pytest.approx((~to_c & ~to_s).sum() / 49, abs=1e-12)
    # between the minima: the starts strictly inside (−0.5, 0.8)², here {0, 0.5}²
    assert am.two_valley_basins(method, n_steps=10, n_grid=n_grid, between_minima=True).n_runs == 4


def test_xor_mask_by_hand_and_against_sign_counts():
    g = np.array([[1.0, 1.0, 1.0, -1.0, 0.0], [1.0, -1.0, 1.0, -1.0, 2.0], [1.0, 1.0, -1.0, 1.0, 0.0],
                  [1.0, -1.0, -1.0, 1.0, 3.0]])
    # S = (4, 0, 0, 0, 2); τ = 0.5: keep abs(S) <= ⌊2⌋, τ = 1: keep S = 0, τ = 0: keep all
    assert am.xor_mask(g, 0.5).tolist() == [False, True, True, True, True]
    assert am.xor_mask(g, 1.0).tolist() == [False, True, True, True, False]
    assert am.xor_mask(g, 0.0).tolist() == [True] * 5
    rng = np.random.default_rng(11)
    for d in (1, 2, 3, 5, 8):
        grads = rng.standard_normal((d, 60))
        grads[rng.random((d, 60)) < 0.2] = 0.0
        for k in range(d + 1):
            tau = k / d
            counts = [sum(x > 0 for x in column) - sum(x < 0 for x in column) for column in grads.T]
            expected = [abs(s) <= math.floor((1 - tau) * d + 1e-9) for s in counts]
            assert am.xor_mask(grads, tau).tolist() == expected
            # the XOR-mask at τ keeps exactly what the AND-mask at threshold ⌊(1−τ)d⌋ + 1 drops
            assert am.xor_mask(grads, tau).tolist() == (~am.and_mask(grads, min(1.0, (d - k + 1) / d))
                                                        | (d - k + 1 > d)).tolist()


# ================================================================================================ double descent
def test_effective_weight_decay_by_hand():
    # λ + 1/(ηk) with η = 1/4: k = 4 → 1.1, k = 10 → 0.5, k = 1/2 → 8.1, k = ∞ → λ, k = 0 → ∞
    got = dd.effective_weight_decay([4.0, 10.0, 0.5, np.inf, 0.0], 0.25, 0.1)
    assert np.allclose(got[:4], [1.1, 0.5, 8.1, 0.1], rtol=1e-15, atol=0.0)
    assert got[4] == np.inf
    assert dd.effective_weight_decay(2.0, 0.5).tolist() == 1.0  # λ = 0 by default


def test_modulation_matrix_singular_values_by_hand_and_by_svd():
    for haar in (True, False):
        F = dd.modulation_matrix(5, 2, 4.0, haar=haar, n_seeds=2, seed=1)
        assert F.singular_values.tolist() == [1.0, 1.0, 0.25, 0.25, 0.25]  # p = 2 fast, 1/κ on the rest
        for matrix in F.matrix:  # the singular values of F = UΣVᵀ itself
            assert np.allclose(np.linalg.svd(matrix, compute_uv=False), F.singular_values, rtol=1e-13, atol=0.0)
        assert F.n_fast == 2


def test_stieltjes_susceptibility_is_the_positive_root_of_the_mp_quadratic():
    alpha = np.array([0.5, 1.0, 1.5, 3.0, 2.0])
    lam = np.array([0.2, 0.5, 0.1, 2.0, 0.0])
    sp = dd.stieltjes_order_parameters(alpha, lam, 0.7, 0.3)
    with mpmath.workdps(40):
        expected = []
        for a, l in zip(alpha, lam):
            a, l = mpmath.mpf(a), mpmath.mpf(l)
            b = l + a - 1
            # λg² + (λ + α − 1)g − 1 = 0, the positive root; λ = 0 (α > 1): g = 1/(α − 1)
            expected.append(float((-b + mpmath.sqrt(b * b + 4 * l)) / (2 * l) if l > 0 else 1 / (a - 1)))
    assert np.allclose(sp.susceptibility, expected, rtol=1e-13, atol=0.0)  # a few roundings of the stable form
    # the replica saddle point's susceptibility 1/(a − 1) is the same number
    replica = dd.replica_saddle_point(alpha, lam, 0.7, 0.3)
    assert np.allclose(sp.susceptibility, replica.susceptibility, rtol=1e-10, atol=0.0)
    assert np.allclose(sp.a, 1 + 1 / np.array(expected), rtol=1e-13, atol=0.0)


def _check_design(data):
    """The drawn design is one design: X = ZF, y = Zw + ε, and the modulation's n_fast counts its σ = 1 directions."""
    F = data.modulation
    assert F.n_fast == int(np.sum(F.singular_values == 1.0))
    assert np.allclose(data.X, data.Z @ F.matrix, rtol=1e-12, atol=1e-14)  # the same product, another order
    assert np.allclose(data.y, np.einsum("snd,sd->sn", data.Z, data.w) + data.label_noise, rtol=1e-12, atol=1e-14)


def _gd_generalization_error(data, i, steps):
    """L_G of GD from 0 at η = 1/λ_max(XᵀX) on design i, averaged over teachers with E[wwᵀ] = I, written out:
    ŵ_k = W_k w with W_{k+1} = W_k − ηXᵀ(XW_k − Z), and L_G = ½E_z[(zᵀ(Fŵ − w))²] = ‖FW_k − I‖²_F/(2d)."""
    X, Z, F = data.X[i], data.Z[i], data.modulation.matrix[i]
    d = X.shape[1]
    eta = 1.0 / np.linalg.eigvalsh(X.T @ X).max()
    W, out = np.zeros((d, d)), []
    for k in range(max(steps) + 1):
        if k in steps:
            out.append(float(((F @ W - np.eye(d)) ** 2).sum()) / (2 * d))
        W = W - eta * X.T @ (X @ W - Z)
    return np.array(out)


def test_output_penalty_runs_returns_the_designs_it_ran():
    steps = [0, 5, 40]
    runs = dd.output_penalty_runs(steps, 45, 30, 20, 10.0, n_seeds=2, seed=3)
    _check_design(runs.data)
    assert runs.data.noise_std == 0.0 and not runs.data.label_noise.any()  # σ_ε = 0 (Fig 4.6)
    for i in range(2):
        # the errors without the penalty, recomputed from the returned design: 40 GD steps of roundings
        assert np.allclose(runs.without[i], _gd_generalization_error(runs.data, i, steps), rtol=1e-9, atol=0.0)


def test_teacher_student_gd_runs_returns_the_designs_it_ran():
    problem = dd.TeacherStudentProblem(30, 20, 14, 10.0, noise_std=0.1)
    runs = dd.teacher_student_gd_runs([0.0, 10.0], problem, n_seeds=2, seed=4, n_test=50)
    _check_design(runs.data)
    assert runs.data.modulation.n_fast == 14
    # η = 1/λ_max of each returned design
    assert np.allclose(runs.learning_rates, [1 / np.linalg.eigvalsh(X.T @ X).max() for X in runs.data.X],
                       rtol=1e-12, atol=0.0)


# ================================================================================================ gradient starvation
def test_boundary_points_by_hand():
    h = v = np.linspace(-1.0, 1.0, 5)
    # ŷ = x_h − 0.1: one crossing per row at x_h = 0.1, rows in the order of x_v, no crossing along x_v
    points = gs.boundary_points(h, v, np.add.outer(0 * v, h - 0.1))
    assert np.allclose(points, [[0.1, y] for y in v], rtol=0.0, atol=1e-15)
    # ŷ = x_h + 2x_v − 0.3 on an uneven grid: every crossing lies on the line, one per sign change of an edge
    h, v = np.array([-1.0, -0.4, 0.1, 0.5, 1.2]), np.array([-0.9, -0.2, 0.3, 1.0])
    f = np.add.outer(2 * v, h) - 0.3
    points = gs.boundary_points(h, v, f)
    changes = int(((f[:, :-1] > 0) != (f[:, 1:] > 0)).sum() + ((f[:-1] > 0) != (f[1:] > 0)).sum())
    assert len(points) == changes
    assert np.allclose(points[:, 0] + 2 * points[:, 1], 0.3, rtol=0.0, atol=1e-14)  # linear interpolation is exact
    assert gs.boundary_points(h, v, np.ones((4, 5))).shape == (0, 2)


def test_coloured_shapes_shape_and_colour_read_off_the_images():
    size = 7
    data = gs.coloured_shapes(200, colour_flip=0.3, size=size, noise_std=0.0, seed=0)
    assert data.shape[0] != data.shape[1] and data.colour[0] != data.colour[1]
    first, second = data.X[:, :size * size], data.X[:, size * size:]
    # the image sits in channel 0 for colour +1, channel 1 for colour −1
    colour = np.where(np.abs(first).sum(axis=1) > 0, 1.0, -1.0)
    assert np.all((np.abs(first).sum(axis=1) > 0) != (np.abs(second).sum(axis=1) > 0))
    images = (first + second).reshape(-1, size, size)
    # a horizontal bar (+1) lies in one row, a vertical one (−1) in one column
    rows = (images.sum(axis=2) > 0).sum(axis=1)
    shape = np.where(rows == 1, 1.0, -1.0)
    assert data.colour.tolist() == colour.tolist()
    assert data.shape.tolist() == shape.tolist()
    assert np.all(np.isin(data.y, (-1.0, 1.0)))


def _moons_forward(params, b, X):
    """ŷ of two-moons net b: Linear(2, h) → ReLU → Linear(h, 1), written out."""
    W1, b1, w2, b2 = (np.asarray(p)[b] for p in params)
    return np.maximum(X @ W1.T + b1, 0.0) @ w2 + b2


def _moons_gradient_ratio(params, b, X, h=1e-6):
    """mean|∂ŷ/∂x_v| / mean|∂ŷ/∂x_h| by central differences (ŷ is piecewise linear in x)."""
    slopes = [np.abs((_moons_forward(params, b, X + h * e) - _moons_forward(params, b, X - h * e)) / (2 * h)).mean()
              for e in np.eye(2)]
    return slopes[1] / slopes[0]


def _moons_ntk_top(params, b, X, n_top):
    """The top eigenvectors of the NTK Gram matrix Σ_θ ∂ŷ/∂θ ∂ŷ/∂θᵀ at the given weights, from the Jacobian."""
    W1, b1, w2, _ = (np.asarray(p)[b] for p in params)
    pre = X @ W1.T + b1
    on = (pre > 0) * w2
    J = np.concatenate([(on[:, :, None] * X[:, None, :]).reshape(len(X), -1), on, np.maximum(pre, 0.0),
                        np.ones((len(X), 1))], axis=1)
    values, vectors = np.linalg.eigh(J @ J.T)
    return values[::-1][:n_top + 1], vectors[:, ::-1][:, :n_top]


def test_train_two_moons_z_and_gradient_ratio_from_the_trained_weights(no_disk_cache):
    config = gs.TwoMoonsConfig(n_steps=40, hidden=8, record_every=20)
    out = gs.train_two_moons(config, seeds=(0,))
    # the same training stopped at each recorded step gives the weights there (the runs are deterministic)
    at = {k: gs.train_two_moons(config._replace(n_steps=k), seeds=(0,)).params for k in (0, 20)}
    at[40] = out.params
    assert out.steps.tolist() == [0, 20, 40]
    margins = [run.margin for run in config.runs]
    for b in range(3):
        X, y = out.data[b]
        assert float(np.min(-y * X[:, 0])) >= margins[b] - 1e-12  # the run's own margin Δ
        values, top = _moons_ntk_top(at[0], b, X, 3)
        assert np.all(-np.diff(values) > 1e-6 * values[0])  # distinct top eigenvalues: directions defined up to sign
        for r, k in enumerate((0, 20, 40)):
            logits = _moons_forward(at[k], b, X)
            # |z| = |U_Kᵀŷ| with U_K orthogonal: ‖z‖ = ‖ŷ‖, and its first entries along the top NTK directions
            assert np.linalg.norm(out.z[r, b, 0]) == pytest.approx(np.linalg.norm(logits), rel=1e-10)
            assert np.allclose(out.z[r, b, 0, :3], np.abs(top.T @ logits), rtol=1e-8, atol=1e-12)
        # central differences of a piecewise-linear net: exact unless a point lies within 1e-6 of a kink
        assert out.gradient_ratio[b, 0] == pytest.approx(_moons_gradient_ratio(out.params, b, X), rel=1e-6)


# ================================================================================================ torch experiments
def test_logistic_init_gradients_by_the_closed_form_at_zero():
    pytest.importorskip("torch")
    from dynamics.and_mask import torch_training as amt

    sets = [am.make_logistic_shortcut(n_envs=3, n_samples_per_env=5, dim_shortcut=2, n_test=2, seed=s) for s in (0, 1)]
    g = amt.logistic_init_gradients(sets, device="cpu")
    assert g.shape == (2, 3, 3)
    for i, data in enumerate(sets):
        X, Y = data.train_inputs, data.train_labels
        # at w = 0, σ(0) = 1/2: g_e = −(1/2n) Σ_i y_i x_i
        assert np.allclose(g[i], -0.5 * np.mean(Y[..., None] * X, axis=1), rtol=1e-13, atol=1e-16)
        # the numpy formula of the same gradients
        assert np.allclose(g[i], am.logistic_env_gradients(np.zeros(3), X, Y), rtol=1e-13, atol=1e-16)


def test_train_linear_patchwork_losses_from_the_returned_weights():
    pytest.importorskip("torch")
    from dynamics.and_mask import torch_training as amt

    x = 3.0 * np.concatenate([np.eye(4), 0.1 * np.ones((4, 1))], axis=1)  # the notebook's x_e = 3·[e_e, 0.1], y = 1
    theta0 = np.array([[0.1, -0.2, 0.3, 0.0, 0.05], [0.0, 0.1, -0.1, 0.2, -0.3]])
    for method in ("arithmetic", "and_mask", "geom_mean"):
        run = amt.train_linear_patchwork(method, envs=(0, 2), theta0=theta0, n_iters=50, device="cpu")
        losses = 0.5 * (run.theta @ x.T - 1.0) ** 2  # (n_runs, 4)
        # mean of ½(x_e·θ − 1)² over the trained (0, 2) and the held-out (1, 3) environments: a few roundings
        assert np.allclose(run.train_loss, losses[:, [0, 2]].mean(axis=1), rtol=1e-12, atol=1e-16)
        assert np.allclose(run.heldout_loss, losses[:, [1, 3]].mean(axis=1), rtol=1e-12, atol=1e-16)
        assert np.all(run.train_loss > 0) and np.all(run.heldout_loss > 0)


def test_learning_signals_at_init_masks_agree_where_they_must(no_disk_cache):
    pytest.importorskip("torch")
    from dynamics.and_mask import torch_experiments as ate

    taus = (0.0, 0.25, 0.5, 0.75, 1.0)
    config = am.LearningSignalsConfig(agreement_thresholds=taus, n_envs=4, n_samples_per_env=32, hidden=(16,))
    both = ate.learning_signals_at_init(config, seeds=(0, 1), dtype="float64")
    # τ = 0: the AND-mask (abs(S) >= 0) and the XOR-mask (abs(S) <= 4) keep every component, so they agree
    for name in ("memorisation", "mechanism"):
        assert np.allclose(getattr(both, "and_" + name)[:, 0], getattr(both, "xor_" + name)[:, 0], rtol=1e-13,
                           atol=1e-15)
    assert both.and_kept_fraction[:, 0].tolist() == both.xor_kept_fraction[:, 0].tolist() == [1.0, 1.0]
    # d = 4: the AND-mask at τ = k/4 keeps abs(S) >= k, the XOR-mask at (5 − k)/4 keeps abs(S) <= k − 1: one keeps
    # what the other drops (k = 1..4); fractions of the same count of parameters
    for k in range(1, 5):
        assert np.allclose(both.and_kept_fraction[:, k] + both.xor_kept_fraction[:, 5 - k], 1.0, rtol=0.0,
                           atol=1e-14)
    # each seed alone gives its row (the batched seeds are independent models, each on its own data)
    for i, seed in enumerate((0, 1)):
        alone = ate.learning_signals_at_init(config, seeds=(seed,), dtype="float64")
        for name in ("and_memorisation", "xor_memorisation", "and_kept_fraction", "xor_kept_fraction"):
            assert np.allclose(getattr(both, name)[i], getattr(alone, name)[0], rtol=1e-12, atol=1e-14)


def test_train_noisy_labels_accuracies_add_up(no_disk_cache):
    pytest.importorskip("torch")
    from dynamics.and_mask import torch_experiments as ate

    config = am.NoisyLabelsConfig(agreement_thresholds=(0.0, 0.5), shuffled_fraction=0.5, n_train=40, dim=4,
                                  hidden=(16,), batch_size=8, n_steps=40, n_test=30, record_every=20,
                                  learning_rate=0.05)
    run = ate.train_noisy_labels(config, seeds=(3, 5), dtype="float64")
    assert run.steps.tolist() == [0, 20, 40]
    f = run.mislabelled_fraction
    # a count of the 40 training labels the shuffle changed, at most the 20 it permuted
    assert _on_lattice(f, 40) and np.all((f > 0) & (f <= 0.5))
    # the training accuracy splits over the mislabelled and the clean examples
    weight = f[None, :, None]
    assert np.allclose(run.train_accuracy, weight * run.mislabelled_accuracy + (1 - weight) * run.clean_accuracy,
                       rtol=0.0, atol=1e-14)
    # accuracies are counts: over 40 training examples, 30 test examples, 40f mislabelled and 40(1 − f) clean ones
    assert _on_lattice(run.train_accuracy, 40) and _on_lattice(run.test_accuracy, 30)
    for j in range(2):
        assert _on_lattice(run.mislabelled_accuracy[:, j], round(40 * f[j]))
        assert _on_lattice(run.clean_accuracy[:, j], round(40 * (1 - f[j])))
    # each τ alone and each seed alone give their rows (batched runs are independent models)
    fields = ("train_accuracy", "mislabelled_accuracy", "clean_accuracy", "test_accuracy")
    for i, tau in enumerate(config.agreement_thresholds):
        alone = ate.train_noisy_labels(config._replace(agreement_thresholds=(tau,)), seeds=(3, 5), dtype="float64")
        for name in fields:
            assert np.allclose(getattr(run, name)[i], getattr(alone, name)[0], rtol=1e-12, atol=1e-14)
    for j, seed in enumerate((3, 5)):
        alone = ate.train_noisy_labels(config, seeds=(seed,), dtype="float64")
        assert alone.mislabelled_fraction[0] == pytest.approx(f[j], abs=1e-15)
        for name in fields:
            assert np.allclose(getattr(run, name)[:, j], getattr(alone, name)[:, 0], rtol=1e-12, atol=1e-14)


def test_train_spiral_memorisation_accuracies_are_counts_of_independent_models(no_disk_cache):
    pytest.importorskip("torch")
    from dynamics.and_mask import torch_experiments as ate

    settings = ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.01, 0.0))
    config = am.SpiralMemorisationConfig(settings=settings, n_envs=4, n_samples_per_env=16, hidden=(8,), n_steps=30,
                                         n_test=50, record_every=15, learning_rate=0.05)
    run = ate.train_spiral_memorisation(config, seeds=(0, 1), dtype="float64")
    # accuracies over the 4 × 16 training examples and the 50 test examples
    assert _on_lattice(run.train_accuracy, 64) and _on_lattice(run.test_accuracy, 50)
    # every setting alone gives its row (each model moves as it would alone)
    for i, setting in enumerate(settings):
        alone = ate.train_spiral_memorisation(config._replace(settings=(setting,)), seeds=(0, 1), dtype="float64")
        assert np.allclose(run.train_accuracy[i], alone.train_accuracy[0], rtol=0.0, atol=1e-14)
        assert np.allclose(run.test_accuracy[i], alone.test_accuracy[0], rtol=0.0, atol=1e-14)


def test_train_environment_sweep_is_the_final_record_of_spiral_memorisation(no_disk_cache):
    pytest.importorskip("torch")
    from dynamics.and_mask import torch_experiments as ate

    config = am.EnvironmentSweepConfig(n_envs=(2, 8), n_total=64, hidden=(8,), n_steps=20, n_test=40,
                                       learning_rate=0.05)
    sweep = ate.train_environment_sweep(config, seeds=(0, 1), dtype="float64")
    # accuracies over 64 training examples (n_total // d per environment, d | 64) and 40 test examples
    assert _on_lattice(sweep.train_accuracy, 64) and _on_lattice(sweep.test_accuracy, 40)
    for k, d in enumerate(config.n_envs):  # as documented: one spiral-memorisation setting (τ, 0, 0) per threshold
        spiral = am.SpiralMemorisationConfig(settings=tuple((t, 0.0, 0.0) for t in config.thresholds), n_envs=d,
                                             n_samples_per_env=64 // d, dim_shortcut=config.dim_shortcut,
                                             n_revolutions=config.n_revolutions, hidden=config.hidden,
                                             n_steps=config.n_steps, learning_rate=config.learning_rate,
                                             n_test=config.n_test)
        run = ate.train_spiral_memorisation(spiral, seeds=(0, 1), dtype="float64")
        assert np.allclose(sweep.train_accuracy[:, k], run.train_accuracy[:, :, -1], rtol=0.0, atol=1e-14)
        assert np.allclose(sweep.test_accuracy[:, k], run.test_accuracy[:, :, -1], rtol=0.0, atol=1e-14)


def _seed_streams(seed):
    """The data, init and dropout streams of one seed of the starvation experiments (their module's _SEED_STREAMS)."""
    from dynamics.numerics import rng_from, seed_streams

    return seed_streams(rng_from(seed), ("data", "init", "dropout"))


def _mlp(layers, X, relu_last=False):
    """An MLP written out: x → relu(xW + b) per hidden layer, the last layer linear; layers [(W (in, out), b)]."""
    h = X
    for k, (W, b) in enumerate(layers):
        h = h @ W + b
        if k < len(layers) - 1:
            h = np.maximum(h, 0.0)
    return h[..., 0]


def _crossings(h, v, f):
    """Points where f (indexed [v, h]) changes sign along a grid edge, linearly interpolated, as (x_h, x_v)."""
    out = []
    for r in range(len(v)):
        for c in range(len(h)):
            if c + 1 < len(h) and (f[r, c] > 0) != (f[r, c + 1] > 0):
                t = f[r, c] / (f[r, c] - f[r, c + 1])
                out.append((h[c] + t * (h[c + 1] - h[c]), v[r]))
            if r + 1 < len(v) and (f[r, c] > 0) != (f[r + 1, c] > 0):
                t = f[r, c] / (f[r, c] - f[r + 1, c])
                out.append((h[c], v[r] + t * (v[r + 1] - v[r])))
    return np.array(out).reshape(-1, 2)


def test_moons_regularisers_at_initialisation_written_out(no_disk_cache):
    pytest.importorskip("torch")
    from dynamics.starvation import torch_experiments as ste

    regularisers = (ste.Regulariser("one layer", 0.0, 0.0, False, 0.0, 0.0, 1, 1),
                    ste.Regulariser("two layers", 0.0, 0.0, False, 0.0, 0.0, 2, 1))
    config = gs.MoonsRegularisersConfig(regularisers=regularisers, n_steps=0, hidden=8, grid_size=24)
    out = ste.moons_regularisers(config, seeds=(0, 1), device="cpu")
    streams = [_seed_streams(seed) for seed in (0, 1)]
    # the data: each seed's two moons from its data stream
    for k, s in enumerate(streams):
        X, y = gs.two_moons(300, noise_std=0.1, margin=0.1, seed=s.data)
        assert np.array_equal(out.data[k].X, X) and np.array_equal(out.data[k].y, y)
    # the grid covers every seed's data with a 0.15 border
    every = np.concatenate([d.X for d in out.data])
    assert np.allclose(out.grid_h, np.linspace(every[:, 0].min() - 0.15, every[:, 0].max() + 0.15, 24), rtol=0.0,
                       atol=1e-15)
    assert np.allclose(out.grid_v, np.linspace(every[:, 1].min() - 0.15, every[:, 1].max() + 0.15, 24), rtol=0.0,
                       atol=1e-15)
    gh, gv = np.meshgrid(out.grid_h, out.grid_v)
    grid = np.column_stack([gh.ravel(), gv.ravel()])
    for i, depth in enumerate((1, 2)):
        for k, s in enumerate(streams):
            # n_steps = 0: the initial net, torch's default uniform init from the init stream's child for this depth
            seq = s.init.bit_generator.seed_seq
            rng = np.random.default_rng(np.random.SeedSequence(seq.entropy, spawn_key=tuple(seq.spawn_key) + (depth,)))
            widths = [2] + [8] * depth + [1]
            layers = []
            for fan_in, fan_out in zip(widths[:-1], widths[1:]):
                bound = 1.0 / math.sqrt(fan_in)
                layers.append((rng.uniform(-bound, bound, (fan_in, fan_out)), rng.uniform(-bound, bound, fan_out)))
            # logits on the grid, indexed [v, h]: float64 products in another order
            assert np.allclose(out.logits[i, k], _mlp(layers, grid).reshape(24, 24), rtol=1e-12, atol=1e-14)
            X, y = out.data[k]
            assert out.train_accuracy[i, k] == pytest.approx(np.mean(_mlp(layers, X) * y > 0), abs=1e-12)


def test_moons_regularisers_boundary_distance_from_its_logits(no_disk_cache):
    pytest.importorskip("torch")
    from dynamics.starvation import torch_experiments as ste

    regularisers = (ste.Regulariser("none", 0.0, 0.0, False, 0.0, 0.0, 1, 1),
                    ste.Regulariser("SD", 0.0, 0.0, False, 0.0, 0.2, 1, 1))
    config = gs.MoonsRegularisersConfig(regularisers=regularisers, n_steps=30, hidden=16, grid_size=40,
                                        learning_rate=0.1)
    out = ste.moons_regularisers(config, seeds=(0, 1), device="cpu")
    assert _on_lattice(out.train_accuracy, 300)
    for i, k in itertools.product(range(2), range(2)):
        X = out.data[k].X
        # the boundary's crossings in the data's box, their total-least-squares line, in units of the RMS radius
        points = _crossings(out.grid_h, out.grid_v, out.logits[i, k])
        points = points[np.all((points >= X.min(axis=0)) & (points <= X.max(axis=0)), axis=1)]
        centred = points - points.mean(axis=0)
        smallest = np.linalg.svd(centred, compute_uv=False)[-1] ** 2 / len(points)
        radius = math.sqrt(np.mean(((X - X.mean(axis=0)) ** 2).sum(axis=1)))
        assert out.boundary_distance[i, k] == pytest.approx(math.sqrt(smallest) / radius, rel=1e-9)  # svd vs eigh


def test_train_coloured_shapes_at_step_zero_written_out(no_disk_cache):
    pytest.importorskip("torch")
    from dynamics.starvation import torch_experiments as ste

    size, hidden, n_train, n_test = 5, 8, 40, 30
    methods = (gs.ColourShapeMethod("ERM", 0.0, 0.0, 0.0), gs.ColourShapeMethod("SD", 0.0, 1.0, 1.0))
    config = gs.ColouredShapesConfig(methods=methods, n_train=n_train, n_test=n_test, n_steps=6, hidden=hidden,
                                     learning_rate=0.05, record_every=3, size=size, noise_std=0.2)
    out = ste.train_coloured_shapes(config, seeds=(0, 1), device="cpu")
    assert out.steps.tolist() == [0, 3, 6]
    # accuracies are counts over the 40 training and the 30 test images
    assert _on_lattice(out.train_accuracy, n_train)
    assert _on_lattice(out.test_accuracy, n_test) and _on_lattice(out.shape_accuracy, n_test)
    for k, seed in enumerate((0, 1)):
        s = _seed_streams(seed)
        first = gs.coloured_shapes(n_train // 2, colour_flip=0.1, size=size, noise_std=0.2, seed=s.data)
        second = gs.coloured_shapes(n_train - n_train // 2, colour_flip=0.2, size=size, noise_std=0.2, seed=s.data)
        test = gs.coloured_shapes(n_test, colour_flip=0.9, size=size, noise_std=0.2, seed=s.data)
        X, y = np.concatenate([first.X, second.X]), np.concatenate([first.y, second.y])
        image = test.X[:, :size * size] + test.X[:, size * size:]
        gray = np.concatenate([image, image], axis=1)
        widths = [2 * size * size, hidden, hidden, 1]  # Xavier-uniform weights, zero biases
        layers = [(s.init.uniform(-math.sqrt(6 / (a + b)), math.sqrt(6 / (a + b)), (a, b)), np.zeros(b))
                  for a, b in zip(widths[:-1], widths[1:])]
        # step 0, every method from the seed's one initialisation
        for m in range(2):
            assert out.train_accuracy[0, m, k] == pytest.approx(np.mean(_mlp(layers, X) * y > 0), abs=1e-12)
            assert out.test_accuracy[0, m, k] == pytest.approx(np.mean(_mlp(layers, test.X) * test.y > 0), abs=1e-12)
            assert out.shape_accuracy[0, m, k] == pytest.approx(np.mean(_mlp(layers, gray) * test.y > 0), abs=1e-12)
            assert out.train_output_square[0, m, k] == pytest.approx(np.mean(_mlp(layers, X) ** 2), rel=1e-12)


def _own_margins(params, b, X, y, cap, resolution):
    """The signed margins of moons_margins recomputed for net b: along x_v and x_h the first offset (steps of
    ``resolution`` up to ``cap``) where ŷ changes sign, and the distance to the nearest crossing of the zero level
    set on the grid of spacing 2·resolution around the data (the code's grid; its docstring says ``resolution``)."""
    sign = np.sign(_moons_forward(params, b, X))
    correct = np.where(sign == y, 1.0, -1.0)
    offsets = np.arange(resolution, cap + resolution / 2, resolution)
    along = []
    for axis in (1, 0):
        best = np.full(len(X), cap)
        for direction in (1.0, -1.0):
            found = np.zeros(len(X), dtype=bool)
            for off in offsets:
                moved = X.copy()
                moved[:, axis] += direction * off
                new = ~found & (np.sign(_moons_forward(params, b, moved)) != sign)
                best[new] = np.minimum(best[new], off)
                found |= new
        along.append(correct * best)
    low, high = X.min(axis=0) - cap, X.max(axis=0) + cap
    h = np.arange(low[0], high[0] + resolution, 2 * resolution)
    v = np.arange(low[1], high[1] + resolution, 2 * resolution)
    gh, gv = np.meshgrid(h, v)
    f = _moons_forward(params, b, np.column_stack([gh.ravel(), gv.ravel()])).reshape(gh.shape)
    points = _crossings(h, v, f)
    nearest = np.minimum(np.sqrt(((X[:, None, :] - points[None]) ** 2).sum(axis=2)).min(axis=1), cap)
    return correct * nearest, along[0], along[1]


def test_moons_margins_recomputed_from_the_trained_nets(no_disk_cache):
    pytest.importorskip("torch")
    from dynamics.starvation import torch_experiments as ste
    from dynamics.starvation import torch_training as stt

    config = gs.MoonsMarginsConfig(n_steps=40, hidden=8, cap=0.6, resolution=0.02, output_penalty=0.5)
    out = ste.moons_margins(config, seeds=(0,), device="cpu")
    # the nets it measures, as documented: Fig 1's trainer on Δ = +0.1 without and with SD
    runs = (gs.MoonsRun("ERM", 0.1, 0.0), gs.MoonsRun("SD", 0.1, 0.5))
    trained = stt.train_two_moons(gs.TwoMoonsConfig(n_steps=40, hidden=8, record_every=10**9, runs=runs,
                                                    weight_decay=config.weight_decay), seeds=(0,), device="cpu")
    for run in range(2):
        X, y = trained.data[run]
        distance, vertical, horizontal = _own_margins(trained.params, run, X, y, 0.6, 0.02)
        # searched offsets are multiples of the step; the distances the same float64 arithmetic in another order
        assert np.allclose(out.vertical[run, 0], vertical, rtol=1e-12, atol=1e-15)
        assert np.allclose(out.horizontal[run, 0], horizontal, rtol=1e-12, atol=1e-15)
        assert np.allclose(out.distance[run, 0], distance, rtol=1e-12, atol=1e-15)
        # the nearest boundary point is no further than the first sign change along either axis (up to the grid)
        assert np.all(np.abs(out.distance[run, 0]) <= np.minimum(np.abs(vertical), np.abs(horizontal)) + 0.02)


def test_torch_train_two_moons_gradient_ratio_from_the_trained_weights(no_disk_cache):
    pytest.importorskip("torch")
    from dynamics.starvation import torch_training as stt

    out = stt.train_two_moons(gs.TwoMoonsConfig(n_steps=30, hidden=8, record_every=15), seeds=(0, 1), device="cpu")
    for b in range(6):
        X = out.data[b].X
        run, k = divmod(b, 2)
        # central differences of a piecewise-linear net: exact unless a point lies within 1e-6 of a kink
        assert out.gradient_ratio[run, k] == pytest.approx(_moons_gradient_ratio(out.params, b, X), rel=1e-6)


def test_ntk_net_error_written_out():
    torch = pytest.importorskip("torch")
    from dynamics.numerics import rng_from
    from dynamics.numerics.torch_tools import torch_generator
    from dynamics.starvation import torch_training as stt

    width, lam, n_steps, n = 16, 0.1, 60, 10
    out = stt.ntk_net_error(width, device="cpu", seed=7, weight_decay=lam, n_steps=n_steps, n_samples=n)
    # the draws, in the function's order: inputs, label noise, then W0 and a0 from one torch generator
    rng = rng_from(7)
    x = rng.standard_normal((n, 2))
    y = np.sign(x[:, 0] + 0.3 * rng.standard_normal(n))
    y[y == 0] = 1.0
    X = np.column_stack([x, np.ones(n)])
    generator = torch_generator(rng, "cpu")
    W0 = torch.randn(width, 3, dtype=torch.float64, generator=generator).numpy()
    a0 = torch.randn(width, dtype=torch.float64, generator=generator).numpy()
    # the NTK of f = aᵀReLU(Wx)/√m in closed form: (1/m) Σ_j [a_j² 1[w_j·x > 0] 1[w_j·x' > 0] x·x' + ReLU ReLU]
    pre = X @ W0.T
    on = (pre > 0) * a0
    K = ((on @ on.T) * (X @ X.T) + np.maximum(pre, 0) @ np.maximum(pre, 0).T) / width
    # ŷ* solves ŷ = λ⁻¹K(y ⊙ σ(−y ⊙ ŷ)) (the dual fixed point α = σ(−yŷ)): Newton from 0
    sig = lambda z: 1.0 / (1.0 + np.exp(-z))  # noqa: E731
    g = np.zeros(n)
    for _ in range(50):
        residual = g - K @ (y * sig(-y * g)) / lam
        jacobian = np.eye(n) + K * (sig(y * g) * sig(-y * g))[None, :] / lam
        g = g - np.linalg.solve(jacobian, residual)
    assert np.max(np.abs(g - K @ (y * sig(-y * g)) / lam)) < 1e-12
    assert np.allclose(out.predicted, g, rtol=1e-9, atol=1e-12)  # two solvers of one fixed point
    # the step below 2/curvature: min(1/2, 1/(λ_max(YKY)/4 + λ)), λ_max(YKY) = λ_max(K)
    rate = min(0.5, 1.0 / (np.linalg.eigvalsh(K).max() / 4 + lam))
    assert out.learning_rate == pytest.approx(rate, rel=1e-12)
    # the trained centred output: plain GD on Σ softplus(−y g) + (λ/2)‖θ − θ₀‖², gradients by hand
    W, a = W0.copy(), a0.copy()
    f0 = np.maximum(X @ W0.T, 0) @ a0 / math.sqrt(width)
    for _ in range(n_steps):
        pre = X @ W.T
        gout = np.maximum(pre, 0) @ a / math.sqrt(width) - f0
        dl = -y * sig(-y * gout)  # ∂loss/∂g_i
        grad_W = ((dl[:, None] * (pre > 0) * a).T @ X) / math.sqrt(width) + lam * (W - W0)
        grad_a = np.maximum(pre, 0).T @ dl / math.sqrt(width) + lam * (a - a0)
        W, a = W - rate * grad_W, a - rate * grad_a
    trained = np.maximum(X @ W.T, 0) @ a / math.sqrt(width) - f0
    assert np.allclose(out.trained, trained, rtol=1e-9, atol=1e-12)  # 60 steps of roundings
    assert out.relative_error == pytest.approx(np.abs(trained - g).max() / np.abs(g).max(), rel=1e-6)
