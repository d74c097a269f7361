"""Tests of dynamics.spherical: bad input, limits, properties (hypothesis), the numba loop against the numpy
reference, the figures' data, and the optional torch module."""
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dynamics.spherical as sph
from dynamics.numerics import haar_orthogonal
from extremes import check_extreme_case  # tests/extremes.py (tests/ is on sys.path under pytest)

OPTIMIZER_FACTORIES = {
    "SGD": lambda lr: sph.SGD(lr), "SGDM": lambda lr: sph.SGDM(lr, momentum=0.9), "SGDMRT": lambda lr: sph.SGDMRT(lr),
    "Adam": lambda lr: sph.Adam(lr), "AdamW": lambda lr: sph.AdamW(lr), "AdaGrad": lambda lr: sph.AdaGrad(lr),
    "AdaGradG": lambda lr: sph.AdaGradG(lr, 0.9, 1.0), "AdamS": lambda lr: sph.AdamS(lr),
    "AdamST": lambda lr: sph.AdamST(lr), "AdamSRT": lambda lr: sph.AdamSRT(lr), "AdamG": lambda lr: sph.AdamG(lr)}


def _losses(d=8, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((d, d))
    return {"rayleigh": sph.RayleighLoss(A + A.T, noise_std=0.3, seed=1),
            "linear": sph.RandomLinearLoss.stream(d, seed=2),
            "linear table": sph.RandomLinearLoss(rng.standard_normal((5, d)), grad_norm=[1.0, 2.0]),
            "bn": sph.BNLinearProbe(rng.standard_normal((2, 6, d)), np.sign(rng.standard_normal((2, 6)))),
            "wn": sph.WNLogistic(rng.standard_normal((10, d)), np.sign(rng.standard_normal(10)), 2.0)}


# ------------------------------------------------------------------ bad input names the parameter
@pytest.mark.parametrize("name", sorted(OPTIMIZER_FACTORIES))
@pytest.mark.parametrize("bad", [0.0, -0.1, math.inf, math.nan])
def test_optimizers_reject_bad_learning_rate(name, bad):
    with pytest.raises(ValueError, match="learning_rate"):
        OPTIMIZER_FACTORIES[name](bad)


@pytest.mark.parametrize("cls", [sph.SGD, sph.Adam, sph.AdamW, sph.AdaGrad, sph.AdamS, sph.AdamST, sph.AdamSRT])
def test_optimizers_reject_negative_weight_decay(cls):
    with pytest.raises(ValueError, match="weight_decay must be >= 0, got -0.01"):
        cls(0.1, weight_decay=-0.01)


@pytest.mark.parametrize("momentum", [-0.1, 1.0, 1.5])
def test_momentum_outside_unit_interval(momentum):
    for make in (lambda: sph.SGD(0.1, momentum=momentum), lambda: sph.SGDMRT(0.1, momentum=momentum),
                 lambda: sph.sgdm_l2_equilibrium(0.1, 1e-3, momentum, 1.0),
                 lambda: sph.sgdm_l2_relaxation_steps(0.1, 1e-3, momentum),
                 lambda: sph.li_arora_equivalent(0.1, 1e-3, momentum, [1.0, 0.0])):
        with pytest.raises(ValueError, match=r"momentum must be in \[0, 1\)"):
            make()


@pytest.mark.parametrize("name", sorted(OPTIMIZER_FACTORIES))
def test_zero_vector_is_not_a_radially_invariant_weight(name):
    opt = OPTIMIZER_FACTORIES[name](0.1)
    with pytest.raises(ValueError, match="x must be a nonzero vector"):
        opt.step(np.zeros(3), np.ones(3))


def test_zero_vector_everywhere():
    zero = np.zeros(3)
    for call in (lambda: sph.spherical_step(zero, np.ones(3), 1.0, 0.1), lambda: sph.angle_between(zero, np.ones(3)),
                 lambda: sph.tangential(np.ones(3), zero), lambda: sph.transport_T(np.ones(3), zero, np.ones(3)),
                 lambda: sph.transport_RT(np.ones(3), np.ones(3), zero),
                 lambda: sph.li_arora_equivalent(0.1, 1e-3, 0.9, zero),
                 lambda: sph.simulate(sph.SGD(0.1), sph.RandomLinearLoss.stream(3, seed=0), zero, 10)):
        with pytest.raises(ValueError, match="must be a nonzero vector"):
            call()
    for loss in _losses(3).values():
        with pytest.raises(ValueError, match="x must be a nonzero vector"):
            loss.grad(zero)


def test_closed_forms_reject_bad_parameters():
    cases = [(lambda: sph.sgd_l2_equilibrium(0.0, 1e-3, 1.0), "learning_rate must be > 0"),
             (lambda: sph.sgd_l2_equilibrium(0.1, -1e-3, 1.0), "weight_decay must be > 0"),
             (lambda: sph.sgd_l2_equilibrium(0.1, 0.0, 1.0), "weight_decay must be > 0"),
             (lambda: sph.sgd_l2_equilibrium(0.1, 1e-3, 0.0), "grad_norm must be > 0"),
             (lambda: sph.sgd_l2_equilibrium(2.0, 0.6, 1.0), "learning_rate \\* weight_decay must be < 1"),
             (lambda: sph.effective_lr_bounds_sgd(-0.1, 1.0, 0.5, 1.0, 3), "learning_rate must be > 0"),
             (lambda: sph.effective_lr_bounds_sgd(0.1, 0.0, 0.5, 1.0, 3), "r0 must be > 0"),
             (lambda: sph.effective_lr_bounds_sgd(0.1, 1.0, 2.0, 1.0, 3), "g_min must be <= g_max"),
             (lambda: sph.effective_lr_bounds_sgd(0.1, 1.0, 0.5, 1.0, -1), "steps must be an integer >= 0"),
             (lambda: sph.effective_lr_bounds_sgd(0.1, 1.0, 0.5, 1.0, [1.5]), "steps must hold integer"),
             (lambda: sph.sgd_l2_invariant_interval(0.1, 1e-3, 1e-3, 1.0), "g_min and g_max"),
             (lambda: sph.sgd_radius_sequence(1.0, 0.1, [1.0], weight_decay=-1.0), "weight_decay must be >= 0"),
             (lambda: sph.sgd_lambda0_sandwich(1.0, [0.1, 0.2], [1.0]), "learning_rates must be a float or have shape"),
             (lambda: sph.adam_nu([1.0], [1.0, 2.0], 4), "radii must have the shape"),
             (lambda: sph.adam_nu([1.0], [1.0], 4, betas=(1.0, 0.9)), r"betas\[0\] must be in \[0, 1\)"),
             (lambda: sph.adagradg_equivalent_params(0.1, 20.0, 1.0), "learning_rate \\* weight_decay must be < 1"),
             (lambda: sph.li_arora_equivalent(0.5, 0.5, 0.9, [1.0]), "complex roots"),
             (lambda: sph.exponential_lr_schedule(0.1, 1e-3)(10 ** 7), "overflows float64"),
             (lambda: sph.adam_srt_radius(1.0, 0.1, 0, 3), "dimension must be an integer >= 1"),
             (lambda: sph.adam_srt_radius_law(1.0, 0.1, 4, 0.0, 3), "grad_norm must be > 0"),
             (lambda: sph.sgd_effective_lr(0.1, [1.0, 0.0]), "radius_fourth_power must be"),
             (lambda: sph.sgd_effective_lr(2.0, 1.0, weight_decay=0.6), "learning_rate \\* weight_decay must be < 1"),
             (lambda: sph.sgd_l2_relaxation_law(1.0, 0.1, 0.0, 1.0, 3), "weight_decay must be > 0"),
             (lambda: sph.sgdm_l2_relaxation(1.0, 0.1, 1e-3, 1.0, 1.0, 3), r"momentum must be in \[0, 1\)"),
             (lambda: sph.sgdm_l2_relaxation(0.0, 0.1, 1e-3, 0.9, 1.0, 3), "r0 must be > 0"),
             (lambda: sph.sgd_l2_collapse_radius(1.0, 0.1, -1.0, 3), "weight_decay must be >= 0"),
             (lambda: sph.sgd_l2_collapse_radius(1.0, 0.1, 1e-3, -1), "steps must be an integer >= 0"),
             (lambda: sph.adagrad_matched_learning_rate(0.1, 0.0, 4), "grad_norm must be > 0"),
             (lambda: sph.adagrad_matched_learning_rate(0.1, 1.0, 0), "dimension must be an integer >= 1"),
             (lambda: sph.optimizer_runs(sph.OptimizerRunsConfig(n_steps=2, r0=0.0)), "r0 must be > 0"),
             (lambda: sph.adagradg_vs_sgd_runs(n_steps=2, n_groups=0), "n_groups must be an integer >= 1"),
             (lambda: sph.collapse_run(n_steps=2, dimension=0), "dimension must be an integer >= 1")]
    for call, message in cases:
        with pytest.raises(ValueError, match=message):
            call()


def test_optimizer_specific_bad_input():
    with pytest.raises(ValueError, match="eps must be >= 0"):
        sph.Adam(0.1, eps=-1.0)
    with pytest.raises(ValueError, match=r"betas\[1\] must be in \[0, 1\)"):
        sph.AdamSRT(0.1, betas=(0.9, 1.0))
    with pytest.raises(TypeError, match="betas must be a pair"):
        sph.AdamS(0.1, betas=0.9)
    with pytest.raises(ValueError, match="v0 must be > 0"):
        sph.AdaGradG(0.1, 0.9, 0.0)
    with pytest.raises(ValueError, match="x must be a unit vector for AdaGradG"):
        sph.AdaGradG(0.1, 0.9, 1.0).step(np.array([2.0, 0.0]), np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"learning_rate\(1\) must be a finite float > 0"):
        opt = sph.SGD(lambda k: 0.1 if k == 0 else -1.0)
        opt.step(opt.step(np.ones(2), np.array([1.0, -1.0])), np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="grad must have the shape of x"):
        sph.SGD(0.1).step(np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match="eps: with eps = 0 the second moment is 0"):
        sph.Adam(0.1).step(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="learning_rate \\* weight_decay must be < 1 for AdamW"):
        sph.AdamW(1.0, weight_decay=2.0, eps=1e-8).step(np.ones(2), np.array([1.0, -1.0]))
    opt = sph.SGD(0.1, momentum=0.5)
    opt.step(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="call reset"):
        opt.step(np.ones(2), np.ones(2))


def test_spherical_step_bad_input_and_h1():
    x = np.array([1.0, 0.0])
    with pytest.raises(ValueError, match="b must be strictly positive"):
        sph.spherical_step(x, [1.0, 1.0], [1.0, 0.0], 0.1)
    with pytest.raises(ValueError, match="b must be > 0"):
        sph.spherical_step(x, [1.0, 1.0], -1.0, 0.1)
    with pytest.raises(ValueError, match=r"\(H1\)"):
        sph.spherical_step(x, [20.0, 0.0], 1.0, 0.1)  # the step overshoots the origin along u
    with pytest.raises(ValueError, match="a must have the shape of x"):
        sph.spherical_step(x, [1.0], 1.0, 0.1)


def test_simulate_bad_input():
    loss = sph.RandomLinearLoss.stream(4, seed=0)
    with pytest.raises(ValueError, match="x0 must have shape"):
        sph.simulate(sph.SGD(0.1), loss, np.ones(3), 5)
    with pytest.raises(ValueError, match="n_steps must be an integer >= 0"):
        sph.simulate(sph.SGD(0.1), loss, np.ones(4), -1)
    with pytest.raises(ValueError, match="engine must be one of"):
        sph.simulate(sph.SGD(0.1), loss, np.ones(4), 5, engine="jax")
    with pytest.raises(TypeError, match="optimizer must be"):
        sph.simulate(object(), loss, np.ones(4), 5)
    with pytest.raises(ValueError, match=r"\(H1\)"):
        sph.simulate(sph.SGD(10.0, weight_decay=0.5), loss, np.ones(4), 5)
    with pytest.raises(ValueError, match="x0 must be a unit vector for AdaGradG"):
        sph.simulate(sph.AdaGradG(0.1, 0.9, 1.0), loss, np.ones(4), 5)


def test_losses_bad_input():
    with pytest.raises(ValueError, match="H must be symmetric"):
        sph.RayleighLoss([[1.0, 2.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="noise_std must be >= 0"):
        sph.RayleighLoss(np.eye(2), noise_std=-1.0)
    with pytest.raises(ValueError, match="grad_norm must be > 0"):
        sph.RandomLinearLoss(np.ones((2, 3)), grad_norm=0.0)
    with pytest.raises(ValueError, match="targets must hold labels"):
        sph.BNLinearProbe(np.ones((3, 2)), [1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="the batch variance of S x is 0"):
        sph.BNLinearProbe(np.ones((3, 2)), [1.0, -1.0, 1.0]).grad([1.0, 0.5])
    with pytest.raises(ValueError, match="gamma must be > 0"):
        sph.WNLogistic(np.ones((2, 2)), [1.0, -1.0], 0.0)
    with pytest.raises(ValueError, match="k must be an integer >= 0"):
        sph.RandomLinearLoss.stream(3, seed=0).grad(np.ones(3), k=-1)


# ------------------------------------------------------------------ limits and special cases
def test_bounds_at_step_zero_and_large_steps():
    bounds = sph.effective_lr_bounds_sgd(0.3, 2.0, 0.5, 1.5, [0, 1, 10 ** 8])
    assert bounds.lower[0] == bounds.upper[0] == pytest.approx(0.3 / 4.0, rel=1e-15)
    assert np.all(bounds.lower <= bounds.upper)
    k = 10 ** 8  # √k η^e within [1/(√2 G), 1/(√2 g_min)] asymptotically
    assert math.sqrt(k) * bounds.lower[-1] == pytest.approx(1 / (math.sqrt(2) * 1.5), rel=1e-3)
    assert math.sqrt(k) * bounds.upper[-1] == pytest.approx(1 / (math.sqrt(2) * 0.5), rel=1e-3)


def test_sgdm_equilibrium_at_zero_momentum_is_the_leading_order_of_sgd():
    for eta, lam in ((0.1, 1e-3), (0.5, 0.01), (1e-3, 1e-5)):
        exact, leading = sph.sgd_l2_equilibrium(eta, lam, 2.0), sph.sgdm_l2_equilibrium(eta, lam, 0.0, 2.0)
        for a, b in zip(exact, leading):
            assert abs(a / b - 1) <= eta * lam  # they differ by O(ηλ)
        assert exact.radius == pytest.approx(exact.radius_fourth_power ** 0.25)


def test_relaxation_limits_and_map_fixed_point():
    eq = sph.sgd_l2_equilibrium(0.1, 1e-3, 1.5)
    assert sph.sgd_l2_relaxation(2.0, 0.1, 1e-3, 1.5, 0) == pytest.approx(16.0)
    assert sph.sgd_l2_relaxation(2.0, 0.1, 1e-3, 1.5, 10 ** 7) == pytest.approx(eq.radius_fourth_power, rel=1e-12)
    s_star = math.sqrt(eq.radius_fourth_power)
    assert sph.sgd_l2_radius_map(s_star, 0.1, 1e-3, 1.5) == pytest.approx(s_star, rel=1e-14)
    assert math.cos(eq.angle) == pytest.approx(1 - 0.1 * 1e-3, rel=1e-15)


def test_equivalences_reduce_at_zero_momentum_and_zero_decay():
    x0 = np.array([3.0, 4.0])
    eq = sph.li_arora_equivalent(0.05, 1e-3, 0.0, x0)
    schedule = sph.exponential_lr_schedule(0.05, 1e-3)
    assert eq.alpha == pytest.approx(1 - 0.05 * 1e-3, rel=1e-15)
    assert np.allclose(eq.schedule(np.arange(10)), schedule(np.arange(10)), rtol=1e-13)
    assert np.allclose(eq.initial_buffer, -1e-3 * x0 / (1 - 0.05e-3), rtol=1e-12)  # −(1−α)x₀/(ηα) = −λx₀/(1−ηλ)
    params = sph.adagradg_equivalent_params(0.1, 0.0, 2.0)
    assert np.allclose(params, (1.0, 1 / math.sqrt(2), 16.0 / (2 * 0.01)), rtol=1e-14)
    assert sph.exponential_lr_schedule(0.1, 0.0)(5) == 0.1


def test_nu_reduces_to_the_first_step_and_R_form_without_radius_change():
    g, r = np.array([2.0, 1.0, 3.0]), np.full(3, 1.7)
    # with a constant radius the rescaled and the plain second moments coincide
    assert np.allclose(sph.adam_nu(g, r, 5, weight_decay=0.2), sph.adam_nu_R(g, r, 5, weight_decay=0.2), rtol=1e-14)
    assert sph.adam_nu([2.0], [3.0], 4)[0] == pytest.approx(1.0)


def test_effective_learning_rate_laws_match_their_definitions():
    """The radius laws give η^e from the radius they predict: η/((1−ηλ)r²) for SGD + L2 (Table 3.1), η√d/(G r) for
    Adam w/o (abc) (its radius law); the collapse law is r₀(1−ηλ)^k; the SGD-M relaxation starts at r₀⁴ and ends at r*⁴."""
    k = np.arange(0, 5000, 250)
    law = sph.sgd_l2_relaxation_law(1.5, 0.1, 1e-3, 2.0, k)
    assert np.allclose(law.radius ** 4, sph.sgd_l2_relaxation(1.5, 0.1, 1e-3, 2.0, k), rtol=1e-14)
    assert np.allclose(law.effective_learning_rate, 0.1 / ((1 - 1e-4) * law.radius ** 2), rtol=1e-14)
    assert sph.sgd_effective_lr(0.1, 16.0) == 0.1 / 4.0
    eq = sph.sgd_l2_equilibrium(0.1, 1e-3, 2.0)
    assert sph.sgd_effective_lr(0.1, eq.radius_fourth_power, 1e-3) == pytest.approx(eq.effective_learning_rate,
                                                                                   rel=1e-14)
    srt_law = sph.adam_srt_radius_law(1.0, 0.01, 64, 2.0, k)
    assert np.allclose(srt_law.radius, sph.adam_srt_radius(1.0, 0.01, 64, k), rtol=0)
    assert np.allclose(srt_law.effective_learning_rate, 0.01 * 8 / (2.0 * srt_law.radius), rtol=1e-15)
    assert np.allclose(sph.sgd_l2_collapse_radius(3.0, 0.1, 0.01, k), 3.0 * 0.999 ** k, rtol=1e-13)
    eq_m = sph.sgdm_l2_equilibrium(0.1, 1e-3, 0.9, 2.0)
    assert sph.sgdm_l2_relaxation(1.0, 0.1, 1e-3, 0.9, 2.0, 0) == pytest.approx(1.0, rel=1e-14)
    assert sph.sgdm_l2_relaxation(1.0, 0.1, 1e-3, 0.9, 2.0, 10 ** 6) == pytest.approx(eq_m.radius_fourth_power,
                                                                                     rel=1e-14)
    assert sph.adagrad_matched_learning_rate(0.1, 3.0, 9) == pytest.approx(0.1, rel=1e-15)


def test_setups_are_seeded_and_share_their_set_up():
    runs = sph.optimizer_runs(sph.OptimizerRunsConfig(n_steps=50, dimension=6), seed=3)
    again = sph.optimizer_runs(sph.OptimizerRunsConfig(n_steps=50, dimension=6), seed=3)
    assert list(runs) == ["SGD", "SGD + L2", "SGD-M + L2", "Adam", "Adam w/o (a)", "Adam w/o (ab)",
                          "Adam w/o (abc), β₁ = 0"]
    assert all(np.array_equal(runs[name].trajectory.radius, again[name].trajectory.radius) for name in runs)
    sgd, agg, ag = sph.adagradg_vs_sgd_runs(n_steps=400, n_groups=1, dimension=9, seed=1)[0]
    assert max(sph.angle_between(a, b) for a, b in zip(sgd.directions, agg.directions)) < 1e-9
    rng = np.random.default_rng(5)
    loss, run = sph.collapse_run(n_steps=100, seed=rng)
    rng = np.random.default_rng(5)
    Q = haar_orthogonal(8, seed=rng)
    reference = sph.simulate(sph.SGD(0.1, weight_decay=0.01), sph.RayleighLoss(Q @ np.diag(np.linspace(0, 1, 8)) @ Q.T),
                             rng.standard_normal(8), 100)
    assert np.array_equal(run.radius, reference.radius)


def test_order2_radius_is_below_the_exact_radius():
    rng = np.random.default_rng(0)
    g = rng.uniform(0.1, 2.0, 500)
    exact = sph.sgd_radius_sequence(1.3, 0.2, g, weight_decay=0.01) ** 4
    order2 = sph.sgd_order2_radius4(1.3, 0.2, g, weight_decay=0.01)
    assert np.all(order2 <= exact * (1 + 1e-14))
    assert order2[0] == exact[0]


# ------------------------------------------------------------------ properties (hypothesis)
class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2 ** 32 - 1), st.floats(1e-3, 0.5), st.booleans())
def test_spherical_step_reproduces_any_step(d, seed, lr, scalar_b):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(d) * rng.uniform(0.2, 5.0)
    a = rng.standard_normal(d)
    b = float(rng.uniform(0.5, 2.0)) if scalar_b else rng.uniform(0.5, 2.0, d)
    x_next = x - lr * a / b
    scale = b if scalar_b else np.linalg.norm(b) / math.sqrt(d)
    r = np.linalg.norm(x)
    c = r * a if scalar_b else r * a * scale / b
    if 1 - lr / (r * r * scale) * (c @ x / r) <= 0.05:
        with pytest.raises(ValueError, match=r"\(H1\)") if 1 - lr / (r * r * scale) * (c @ x / r) <= 0 else _nothing():
            sph.spherical_step(x, a, b, lr)
        return
    step = sph.spherical_step(x, a, b, lr)
    assert np.allclose(step.r_next * step.u_next, x_next, rtol=1e-12, atol=1e-12 * np.linalg.norm(x))
    assert abs(np.linalg.norm(step.u_next) - 1) < 1e-14


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 9), st.integers(0, 2 ** 32 - 1), st.sampled_from(["scalar", "row", "full"]),
       st.booleans())
def test_spherical_step_batch_is_the_loop_over_rows(n, d, seed, b_kind, per_row_rates):
    """Many filters at once (a leading axis) give, bit for bit, what spherical_step gives filter by filter."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)) * rng.uniform(0.05, 5.0, (n, 1))
    a = rng.standard_normal((n, d))
    b = {"scalar": 1.3, "row": rng.uniform(0.5, 2.0, n), "full": rng.uniform(0.5, 2.0, (n, d))}[b_kind]
    learning_rate = rng.uniform(1e-3, 0.05, n) if per_row_rates else 0.02
    decay = rng.uniform(0.9, 1.0, n) if per_row_rates else 1.0
    loop = []
    for i in range(n):
        b_i = b if b_kind == "scalar" else b[i]
        try:
            loop.append(sph.spherical_step(x[i], a[i], b_i, np.broadcast_to(learning_rate, n)[i],
                                           np.broadcast_to(decay, n)[i]))
        except ValueError:  # (H1) fails for this row: the batch says so, naming the first such row
            with pytest.raises(ValueError, match=rf"\(H1\) 1 - A<c,u> > 0 fails at row {i}:"):
                sph.spherical_step_batch(x, a, b, learning_rate, decay)
            return
    batch = sph.spherical_step_batch(x, a, b, learning_rate, decay)
    for i, one in enumerate(loop):
        assert batch.A[i] == one.A and batch.effective_learning_rate[i] == one.effective_learning_rate
        assert batch.r_next[i] == one.r_next
        assert np.array_equal(batch.c[i], one.c) and np.array_equal(batch.u_next[i], one.u_next)


def test_spherical_step_batch_bad_input_names_the_row():
    x = np.array([[1.0, 0.0], [0.0, 2.0]])
    with pytest.raises(ValueError, match=r"\(H1\) 1 - A<c,u> > 0 fails at row 1"):
        sph.spherical_step_batch(x, [[0.0, 1.0], [0.0, 50.0]], 1.0, 0.1)
    with pytest.raises(ValueError, match="row 1 is the zero vector"):
        sph.spherical_step_batch([[1.0, 0.0], [0.0, 0.0]], x, 1.0, 0.1)
    with pytest.raises(ValueError, match="x must be 2-dimensional"):
        sph.spherical_step_batch([1.0, 0.0], [1.0, 0.0], 1.0, 0.1)
    with pytest.raises(ValueError, match="a must have the shape of x"):
        sph.spherical_step_batch(x, [[1.0, 0.0]], 1.0, 0.1)
    with pytest.raises(ValueError, match="b must be strictly positive, got -1 at row 0, entry 1"):
        sph.spherical_step_batch(x, x, [[1.0, -1.0], [1.0, 1.0]], 0.1)
    with pytest.raises(ValueError, match=r"learning_rate must be a float or have shape \(2,\)"):
        sph.spherical_step_batch(x, x, 1.0, [0.1, 0.1, 0.1])
    with pytest.raises(ValueError, match="decay must be > 0, got -1 at row 1"):
        sph.spherical_step_batch(x, x, 1.0, 0.1, [1.0, -1.0])


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 10), st.integers(0, 2 ** 32 - 1))
def test_transport_properties(d, seed):
    rng = np.random.default_rng(seed)
    x_prev, x_new, a = rng.standard_normal(d), rng.standard_normal(d), rng.standard_normal(d)
    u_new = x_new / np.linalg.norm(x_new)
    T = sph.transport_T(a, x_prev, x_new)
    assert abs(T @ u_new) <= 1e-13 * np.linalg.norm(a)
    assert np.allclose(sph.rescale_R(T, x_prev, x_new), sph.transport_RT(a, x_prev, x_new), atol=1e-13 * np.linalg.norm(a))
    # parallel transport is an isometry on tangent vectors
    u_prev = x_prev / np.linalg.norm(x_prev)
    v = sph.tangential(a, u_prev)
    closeness = 1 + u_prev @ u_new
    if closeness > 1e-6:
        moved = sph.parallel_transport(u_prev, u_new, v)
        # u_prev and u_new are unit vectors only to round-off (eps); near q = -p that error is amplified by
        # 1/(1 + <p,q>) (d = 2, 1 + <p,q> = 1e-5 gave a relative error 1e-11), hence the second term
        rel = 1e-12 + 8 * np.finfo(float).eps / closeness
        assert np.linalg.norm(moved) == pytest.approx(np.linalg.norm(v), rel=rel, abs=1e-14)
        assert abs(moved @ u_new) <= 1e-12 * max(np.linalg.norm(v), 1.0)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(_losses())), st.floats(1e-3, 1e3), st.integers(0, 50), st.integers(0, 10 ** 6))
def test_losses_are_radially_invariant(name, rho, k, seed):
    loss = _losses()[name]
    x = np.random.default_rng(seed).standard_normal(loss.dimension)
    assert loss.value(rho * x, k) == pytest.approx(loss.value(x, k), rel=1e-13, abs=1e-14)
    assert np.allclose(rho * loss.grad(rho * x, k), loss.grad(x, k), rtol=1e-12, atol=1e-14)


@settings(max_examples=40, deadline=None)
@given(st.floats(1e-9, 3.0), st.integers(2, 8))
def test_angle_between_is_accurate_and_symmetric(theta, d):
    u = np.zeros(d)
    u[0] = 1.0
    v = np.zeros(d)
    v[0], v[1] = math.cos(theta), math.sin(theta)
    assert sph.angle_between(u, 3.0 * v) == pytest.approx(theta, rel=1e-14)
    assert sph.angle_between(v, u) == pytest.approx(theta, rel=1e-14)


# ------------------------------------------------------------------ the compiled loop mirrors the numpy reference
@pytest.mark.parametrize("loss_name", sorted(_losses()))
def test_numba_loop_matches_numpy_reference(loss_name):
    loss = _losses()[loss_name]
    x0 = np.random.default_rng(5).standard_normal(loss.dimension)
    optimizers = [sph.SGD(0.05), sph.SGD(lambda k: 0.02 * (1 + 0.01 * k), 0.9, 0.1), sph.SGDMRT(0.02, 0.9, 0.1),
                  sph.Adam(0.01, weight_decay=0.1), sph.Adam(0.01, eps=1e-8, eps_inside_sqrt=True), sph.AdamW(0.01, weight_decay=0.1),
                  sph.AdaGrad(0.05, weight_decay=0.01, initial_accumulator=0.1), sph.AdaGradG(0.3, 0.99, 2.0),
                  sph.AdamS(0.01, weight_decay=0.1), sph.AdamST(0.01, weight_decay=0.1),
                  sph.AdamSRT(0.01, eps=1e-8, weight_decay=0.1), sph.AdamG(0.01, eps=1e-8)]
    for opt in optimizers:
        start = x0 / np.linalg.norm(x0) if isinstance(opt, sph.AdaGradG) else x0
        compiled = sph.simulate(opt, loss, start, 60, record_every=7)
        reference = sph.simulate(opt, loss, start, 60, record_every=7, engine="numpy")
        for field in ("radius", "effective_learning_rate", "sphere_grad_norm", "loss"):
            assert np.allclose(getattr(compiled, field), getattr(reference, field), rtol=1e-11, atol=1e-13), (opt, field)
        assert np.allclose(compiled.angle, reference.angle, rtol=1e-9, atol=1e-14), opt
        assert np.array_equal(compiled.direction_steps, reference.direction_steps)
        assert np.allclose(compiled.directions, reference.directions, atol=1e-12), opt
        assert opt.state["step"] == 0  # simulate leaves the optimizer's state alone


def test_simulate_kernel_is_one_cached_loop_per_update_function():
    """Each optimizer names its update function; simulate runs the loop specialised for it, an entry point cached on
    disk for the package's optimizers, and a loop built (once) for any other numba update function."""
    from dynamics.spherical import _kernels
    optimizers = [sph.SGD(0.1), sph.SGDMRT(0.1), sph.Adam(0.1), sph.AdamW(0.1), sph.AdaGrad(0.1),
                  sph.AdaGradG(0.1, 0.9, 1.0), sph.AdamS(0.1), sph.AdamST(0.1), sph.AdamSRT(0.1), sph.AdamG(0.1)]
    kernels = set()
    for opt in optimizers:
        update, init, hyper = opt._kernel_spec()
        kernel = _kernels.simulate_kernel(update, init)
        assert kernel is _kernels.SIMULATE_KERNELS[(update, init)] and kernel._cache.__class__.__name__ != "NullCache"
        kernels.add(kernel)
    assert len(kernels) == 6
    with pytest.raises(TypeError, match="update must be a numba.njit function"):
        _kernels.simulate_kernel(lambda *args: None)


def test_simulate_kernel_runs_a_new_update_function():
    """A plain SGD step written outside the package runs through the factory and reproduces SGD bit for bit."""
    import numba
    from dynamics.spherical import _kernels
    from dynamics.spherical._simulate import _record_plan

    @numba.njit(inline="always")
    def plain_sgd(t, eta, r, x, g, m, v, s, a, b, x_next, hyper):
        for i in range(x.shape[0]):
            a[i] = g[i]
            x_next[i] = x[i] - eta * g[i]
        return 0, eta, 1.0

    loss = sph.RandomLinearLoss.stream(6, seed=4)
    x0 = np.linspace(1.0, 2.0, 6)
    kernel = _kernels.simulate_kernel(plain_sgd)
    assert _kernels.simulate_kernel(plain_sgd) is kernel
    every, n_records = _record_plan(40, 7)
    status, k, *arrays = kernel((), (*loss._kernel_spec()[:5], np.uint64(loss.key)), x0, np.full(40, 0.1), every,
                                n_records)
    run = sph.simulate(sph.SGD(0.1), loss, x0, 40, record_every=7)
    assert (status, k) == (0, 40)
    for got, field in zip(arrays, ("radius", "effective_learning_rate", "angle", "sphere_grad_norm", "loss",
                                   "direction_steps", "directions")):
        assert np.array_equal(got, getattr(run, field)), field


def test_bias_correction_is_one_definition_for_both_backends():
    from dynamics.spherical import _kernels, _optimizers
    t = np.arange(1.0, 2001.0)
    for beta in (0.0, 0.5, 0.9, 0.999, 1 - 1e-9):
        compiled = np.array([_kernels._one_minus_power(beta, k) for k in t])
        np.testing.assert_array_max_ulp(_optimizers._one_minus_power(beta, t), compiled, maxulp=1)
        assert _optimizers._one_minus_power(beta, 3) == float(_kernels.one_minus_power(beta, np.float64(3.0)))
    assert _optimizers._one_minus_power(0.9, 1) == pytest.approx(0.1, rel=1e-15)
    assert np.all(_optimizers._one_minus_power(0.0, t) == 1.0)


def test_adam_srt_second_moment_is_rescaled_by_eq_3_81():
    """Adam w/o (abc)'s scalar v follows v_k = β₂(r_{k−1}²/r_k²)v_{k−1} + (1−β₂)d^{−1}‖∇L(x_k)+λx_k‖² (Roburin (thesis),
    Eq 3.81), and the two engines of simulate agree over a long run with β₁ > 0 and weight decay."""
    d, betas, lam = 10, (0.9, 0.99), 0.1
    loss = _losses(d)["rayleigh"]
    x = np.random.default_rng(7).standard_normal(d)
    opt = sph.AdamSRT(0.05, betas=betas, weight_decay=lam)
    v_model = 0.0
    for k in range(200):
        g = loss.grad(x, k) + lam * x
        x_next = opt.step(x, loss.grad(x, k))
        v_model = (betas[1] * v_model + (1 - betas[1]) * float(g @ g) / d) * float(x @ x) / float(x_next @ x_next)
        assert opt.state["exp_avg_sq"] == pytest.approx(v_model, rel=1e-12)
        x = x_next
    x0 = np.random.default_rng(8).standard_normal(d)
    compiled = sph.simulate(opt, loss, x0, 1000)
    reference = sph.simulate(opt, loss, x0, 1000, engine="numpy")
    np.testing.assert_allclose(reference.radius, compiled.radius, rtol=1e-11)
    np.testing.assert_allclose(reference.effective_learning_rate, compiled.effective_learning_rate, rtol=1e-11)


def test_simulate_records_and_initial_buffer():
    loss = sph.RandomLinearLoss.stream(5, seed=3)
    run = sph.simulate(sph.SGD(0.1), loss, np.ones(5), 10, record_every=4)
    assert run.direction_steps.tolist() == [0, 4, 8, 10]
    assert run.radius.shape == (11,) and run.effective_learning_rate.shape == (10,)
    assert np.allclose(run.final_x, sph.simulate(sph.SGD(0.1), loss, np.ones(5), 10, engine="numpy").final_x)
    buffer = np.full(5, 0.3)
    a = sph.simulate(sph.SGD(0.1, 0.9, initial_buffer=buffer), loss, np.ones(5), 10)
    b = sph.simulate(sph.SGD(0.1, 0.9, initial_buffer=buffer), loss, np.ones(5), 10, engine="numpy")
    c = sph.simulate(sph.SGD(0.1, 0.9), loss, np.ones(5), 10)
    assert np.allclose(a.radius, b.radius, rtol=1e-13) and not np.allclose(a.radius, c.radius)


def test_optimizer_state_names_and_reset():
    x, g = np.array([1.0, 2.0]), np.array([2.0, -1.0])
    for opt, keys in ((sph.SGD(0.1, 0.9), {"momentum_buffer"}), (sph.Adam(0.1), {"exp_avg", "exp_avg_sq"}),
                      (sph.AdaGrad(0.1), {"sum"}), (sph.AdaGradG(0.1, 0.9, 1.0), {"v"})):
        start = x / np.linalg.norm(x) if isinstance(opt, sph.AdaGradG) else x
        out = opt.step(start, g)
        assert keys <= set(opt.state) and opt.state["step"] == 1 and out is not start
        opt.reset()
        assert opt.state["step"] == 0 and "exp_avg" not in opt.state
    assert x.tolist() == [1.0, 2.0] and g.tolist() == [2.0, -1.0]  # inputs untouched


def test_random_linear_stream_is_shared_and_seeded():
    a, b = sph.RandomLinearLoss.stream(6, seed=7), sph.RandomLinearLoss.stream(6, seed=7)
    x = np.ones(6)
    assert np.array_equal(a.grad(x, 12), b.grad(x, 12))
    assert not np.array_equal(a.grad(x, 12), a.grad(x, 13))
    draws = np.array([a.value(np.eye(6)[0], k) for k in range(4000)])  # w_k[0] ~ N(0, 1)
    assert abs(draws.mean()) < 5 / math.sqrt(4000) and abs(draws.var() - 1) < 5 * math.sqrt(2 / 4000)


# ------------------------------------------------------------------ import hygiene and the optional torch module
def test_import_is_light_and_compiles_nothing():
    """Importing the package compiles no kernel and does not import torch (how long the import takes is measured in
    benchmarks/import_time.py, not asserted here)."""
    code = ("import sys; import dynamics.spherical as sph; import numba; "
            "from dynamics.spherical import _kernels; from dynamics.numerics.random import fill_normals; "
            "compiled = [f for f in (*_kernels.SIMULATE_KERNELS.values(), _kernels.loss_grad, _kernels.sgd_update, "
            "_kernels.adam_update, _kernels._one_minus_power, _kernels.sgd_radius_kernel, _kernels.sgd_order2_kernel, "
            "_kernels.spherical_step_kernel, fill_normals) if f.signatures]; "
            "print('torch' in sys.modules, compiled)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")[0]
    assert out == "False []", out


@pytest.mark.parametrize("module", ["torch_optim", "torch_state"])
def test_torch_layer_without_torch_raises_a_clear_import_error(module):
    code = ("import sys; sys.modules['torch'] = None\n"
            f"try:\n    import dynamics.spherical.{module}\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert f"dynamics.spherical.{module} needs torch" in out


# ----------------------------------------------------------------------------------------------------
# Fuzz findings (tests/test_public_api.py): r0**4, η² or η/α leave float64 where the result does not; the exact
# value where it is a double, else a ValueError naming the input (never OverflowError or ZeroDivisionError)
# ----------------------------------------------------------------------------------------------------

def _exact_bounds(eta, r0, g_min, g_max, k):
    """The λ = 0 SGD bounds of effective_lr_bounds_sgd in 60-digit arithmetic."""
    import mpmath
    with mpmath.workdps(60):
        eta, r0, g_min, g_max, k = (mpmath.mpf(float(v)) for v in (eta, r0, g_min, g_max, k))
        w0 = r0 ** 4
        if k == 0:
            return float(eta / r0 ** 2), float(eta / r0 ** 2)
        upper = eta / mpmath.sqrt(w0 + 2 * eta ** 2 * g_min ** 2 * k)
        tail = eta ** 2 * g_max ** 4 / (2 * g_min ** 2) * mpmath.log1p(2 * eta ** 2 * g_min ** 2 * (k - 1) / w0)
        lower = eta / mpmath.sqrt(w0 + 2 * eta ** 2 * g_max ** 2 * k + eta ** 4 * g_max ** 4 / w0 + tail)
        return float(lower), float(upper)


@pytest.mark.parametrize("eta, r0, g_min, g_max", [
    (1.157920892373162e77, 1.0, 1.0, 1.0),    # η⁴ overflowed (OverflowError)
    (1.0, 1.157920892373162e77, 1.0, 1.0),    # r0⁴ overflowed
    (1.0, 1.0, 1.0, 1.157920892373162e77),    # g_max⁴ overflowed
    (1.0, 2.170407588580241e-91, 1.0, 1.0),   # r0⁴ underflowed to 0 (ZeroDivisionError)
    (1.0, 1.0, 5e-324, 1.0),                  # 2g_min² underflowed to 0 (ZeroDivisionError)
    (1e-300, 1e-300, 1e-300, 1e-200),
    (1e-10, 1e100, 1e150, 1e160),
])
def test_effective_lr_bounds_at_extreme_scales_are_exact(eta, r0, g_min, g_max):
    steps = np.array([0, 1, 2, 10, 1000])
    bounds = sph.effective_lr_bounds_sgd(eta, r0, g_min, g_max, steps)
    for k, lower, upper in zip(steps, bounds.lower, bounds.upper):
        exact_lower, exact_upper = _exact_bounds(eta, r0, g_min, g_max, k)
        assert lower == pytest.approx(exact_lower, rel=1e-12, abs=0.0)
        assert upper == pytest.approx(exact_upper, rel=1e-12, abs=0.0)


SPHERICAL_EXTREMES = [
    # (call, expected value or the words of the ValueError)
    (lambda: sph.sgd_radius_sequence(1e-300, 1.0, [1.0]).tolist(), [1e-300, 1e300]),
    (lambda: sph.sgd_radius_sequence(5.976568871996041e-259, 1.0, [0.0]).tolist(), [5.976568871996041e-259] * 2),
    (lambda: sph.sgd_radius_sequence(1e-310, 1.0, [1.0]), "radius"),
    (lambda: sph.adagradg_equivalent_params(1.0, 0.0, 1.157920892373162e77).v0, 2.0 ** 1023),
    (lambda: sph.adagradg_equivalent_params(1e-160, 0.0, 1e-100).v0, 5e-81),
    (lambda: sph.adagradg_equivalent_params(3.654850781893221e-228, 0.0, 1.0), "v0"),
    (lambda: sph.sgd_lambda0_sandwich(1.157920892373162e77, [], []), "r0"),
    # (η²g²)² = 1e320 overflowed although (η²g²)²/P_0 = 1e120 does not
    (lambda: sph.sgd_lambda0_sandwich(1e50, 1.0, [1e80]).upper[-1], 1e200 + 2e160 + 1e120),
    (lambda: sph.sgd_order2_radius4(1.157920892373162e77, 1.0, []), "r0"),
    # (ηg)² = 1e320 overflowed although 2ρη²g² = 2e300 does not (ρ = (1 − ηλ)² = 1e-20)
    (lambda: sph.sgd_order2_radius4(1.0, 1e200, [1e-40], weight_decay=(1.0 - 1e-10) / 1e200)[-1],
     (lambda d: d ** 4 + 2.0 * (d * 1e160) ** 2)(1.0 - 1e200 * ((1.0 - 1e-10) / 1e200))),
    (lambda: sph.sgd_l2_relaxation(1.157920892373162e77, 1.0, 0.5, 1.0, [1000]).tolist(), [4.0 / 3.0]),
    (lambda: sph.sgd_l2_relaxation(1.157920892373162e77, 1.0, 0.5, 1.0, [0]), "r0"),
    (lambda: sph.li_arora_equivalent(1e300, 1e-300, 0.0, [1.0]), "learning_rate * weight_decay"),
    (lambda: sph.li_arora_equivalent(1e-300, 9.999999993175576e299, 0.0, [1.0]), "buffer"),
]


@pytest.mark.parametrize("call, expected", SPHERICAL_EXTREMES, ids=[str(k) for k in range(len(SPHERICAL_EXTREMES))])
def test_closed_forms_at_extreme_inputs(call, expected):
    check_extreme_case(call, expected)


# ------------------------------------------------------------------ the weight-normalised probe of Fig 3.4 (b)
def _wn_probe(d=7, n_batches=3, batch=5, gamma=2.0, seed=0):
    from dynamics.spherical import WNLogisticProbe

    rng = np.random.default_rng(seed)
    return WNLogisticProbe(rng.standard_normal((n_batches, batch, d)),
                           np.sign(rng.standard_normal((n_batches, batch))), gamma), rng


@pytest.mark.parametrize("k", [0, 1, 2, 4])
def test_wn_probe_is_scale_invariant_tangent_and_matches_finite_differences(k):
    loss, rng = _wn_probe()
    x = rng.standard_normal(loss.dimension) * 1.7
    g = loss.grad(x, k)
    for scale in (1e-3, 0.5, 40.0):
        assert loss.value(scale * x, k) == pytest.approx(loss.value(x, k), rel=1e-13)
        assert np.allclose(loss.grad(scale * x, k), g / scale, rtol=1e-12, atol=0.0)  # (−1)-homogeneous
    assert abs(float(g @ x)) <= 1e-14 * np.linalg.norm(g) * np.linalg.norm(x)
    h = 1e-6 * np.linalg.norm(x)
    fd = np.array([(loss.value(x + h * e, k) - loss.value(x - h * e, k)) / (2 * h) for e in np.eye(x.size)])
    assert np.allclose(g, fd, rtol=1e-7, atol=1e-10 * np.linalg.norm(g))


def test_wn_probe_is_wn_logistic_on_its_batch():
    loss, rng = _wn_probe()
    x = rng.standard_normal(loss.dimension)
    for k in range(7):  # step k uses batch k mod 3
        batch = sph.WNLogistic(loss.S[k % 3], loss.targets[k % 3], loss.gamma)
        assert loss.value(x, k) == pytest.approx(batch.value(x), rel=1e-14)
        assert np.allclose(loss.grad(x, k), batch.grad(x), rtol=1e-13, atol=1e-16)


def test_wn_probe_runs_on_the_numpy_engine_only():
    loss, rng = _wn_probe()
    x0 = rng.standard_normal(loss.dimension)
    run = sph.simulate(sph.SGD(0.1, weight_decay=1e-3), loss, x0, 20, engine="numpy")
    assert run.radius.shape == (21,) and np.all(np.isfinite(run.radius))
    with pytest.raises(ValueError, match="engine"):
        sph.simulate(sph.SGD(0.1), loss, x0, 20)


def test_wn_probe_bad_input():
    from dynamics.spherical import WNLogisticProbe

    with pytest.raises(ValueError, match="gamma must be > 0"):
        WNLogisticProbe(np.ones((2, 2)), [1.0, -1.0], 0.0)
    with pytest.raises(ValueError, match="targets must hold labels"):
        WNLogisticProbe(np.ones((2, 2)), [1.0, 0.0], 2.0)
    with pytest.raises(ValueError, match="targets must have shape"):
        WNLogisticProbe(np.ones((3, 2, 2)), np.ones((2, 2)), 2.0)
    with pytest.raises(ValueError, match="S must have shape"):
        WNLogisticProbe(np.ones(4), [1.0], 2.0)
    with pytest.raises(ValueError, match="x must have shape"):
        WNLogisticProbe(np.ones((2, 2)), [1.0, -1.0], 2.0).grad(np.ones(3))


def test_adagradg_vs_sgd_runs_normalization():
    with pytest.raises(ValueError, match="normalization"):
        sph.adagradg_vs_sgd_runs(n_steps=2, n_groups=1, normalization="layer")
    batch = sph.adagradg_vs_sgd_runs(n_steps=50, n_groups=1, dimension=9, seed=1)[0]
    assert np.array_equal(batch.sgd.radius,
                          sph.adagradg_vs_sgd_runs(n_steps=50, n_groups=1, dimension=9, seed=1,
                                                   normalization="batch")[0].sgd.radius)
    sgd, agg, adagrad = sph.adagradg_vs_sgd_runs(n_steps=400, n_groups=1, dimension=9, seed=1,
                                                 normalization="weight")[0]
    assert not np.allclose(sgd.radius[:51], batch.sgd.radius)  # another loss on the same draws
    assert max(sph.angle_between(a, b) for a, b in zip(sgd.directions, agg.directions)) < 1e-9
    assert max(sph.angle_between(a, b) for a, b in zip(sgd.directions, adagrad.directions)) > 1e-3
