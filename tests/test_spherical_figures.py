"""The spherical figures plot what dynamics.spherical computes: each test rebuilds a figure at a small size and
compares its lines with the same quantities computed here directly from dynamics."""
import math

import numpy as np
import pytest

import dynamics.spherical as sph
from dynamics.numerics import haar_orthogonal
from dynamics.spherical import WNLogisticProbe
from figures import spherical as figs


def _line(ax, label):
    lines = [line for line in ax.lines if line.get_label() == label]
    assert lines, f"no line labelled {label!r}: {[line.get_label() for line in ax.lines]}"
    return lines[0]


def test_effective_lr_and_norm_plots_the_runs_and_closed_forms():
    n, d, G, eta, lam = 3000, 8, 1.0, 0.1, 1e-3
    fig = figs.effective_lr_and_norm(n_steps=n, dimension=d, grad_norm=G, learning_rate=eta, weight_decay=lam)
    left, right = fig.axes[:2]
    loss = sph.RandomLinearLoss.stream(d, G, seed=0)
    x0 = np.full(d, 1 / math.sqrt(d))
    line = _line(left, "SGD + L2")
    idx = np.round(line.get_xdata() - 1).astype(int)
    run = sph.simulate(sph.SGD(eta, weight_decay=lam), loss, x0, n)
    assert np.allclose(line.get_ydata(), run.effective_learning_rate[idx], rtol=1e-12)
    assert np.allclose(_line(right, "SGD + L2").get_ydata(), run.radius[idx], rtol=1e-12)
    adam = sph.simulate(sph.AdamSRT(1e-3, betas=(0.0, 0.999)), loss, x0, n)
    assert np.allclose(_line(left, "Adam w/o (abc), β₁ = 0").get_ydata(), adam.effective_learning_rate[idx], rtol=1e-12)
    bounds = sph.effective_lr_bounds_sgd(eta, 1.0, G, G, idx)
    assert np.allclose(_line(left, "λ = 0 SGD bounds").get_ydata(), bounds.lower, rtol=1e-12)
    assert np.allclose(_line(left, "radius law of Adam w/o (abc)").get_ydata(),
                       1e-3 * math.sqrt(d) / (G * sph.adam_srt_radius(1.0, 1e-3, d, idx)), rtol=1e-12)
    eq = sph.sgd_l2_equilibrium(eta, lam, G)
    assert _line(left, "SGD + L2: equilibrium").get_ydata()[0] == pytest.approx(eq.effective_learning_rate)
    eq_m = sph.sgdm_l2_equilibrium(eta * 0.1, lam, 0.9, G)
    assert _line(left, "SGD-M + L2: equilibrium").get_ydata()[0] == pytest.approx(eq_m.effective_learning_rate)


def _theorem4_angles(loss, x0, n, eta, lam, engine):
    """SGD + L2 and AdaGradG (Theorem-4 parameters) run here, every step recorded."""
    r0 = float(np.linalg.norm(x0))
    p = sph.adagradg_equivalent_params(eta, lam, r0)
    sgd = sph.simulate(sph.SGD(eta, weight_decay=lam), loss, x0, n, record_every=1, engine=engine)
    agg = sph.simulate(sph.AdaGradG(p.learning_rate, p.beta, p.v0), loss, x0 / r0, n, record_every=1, engine=engine)
    return sgd, agg


def test_adagradg_vs_sgd_plots_the_angles_between_the_runs():
    n, eta, lam, d = 400, 1e-2, 1e-3, 27
    fig = figs.adagradg_vs_sgd(n_steps=n, n_groups=1, dimension=d)
    batch_panel, weight_panel = fig.axes[:2]
    assert batch_panel.get_title().startswith("(a) BatchNorm") and weight_panel.get_title().startswith("(b) weight")
    # (a): a BatchNorm probe; (b): a weight-normalised probe, on the same draws from seed 0
    rng = np.random.default_rng(0)
    inputs, targets, x0 = rng.standard_normal((64, 32, d)), np.sign(rng.standard_normal((64, 32))), rng.standard_normal(d)
    panels = ((batch_panel, sph.BNLinearProbe(inputs, targets, readout=2.0, bias=0.1), "numba"),
              (weight_panel, WNLogisticProbe(inputs, targets, gamma=2.0), "numpy"))
    for ax, loss, engine in panels:
        sgd, agg = _theorem4_angles(loss, x0, n, eta, lam, engine)
        line = ax.lines[0]
        steps = np.asarray(line.get_xdata(), dtype=int)
        expected = [sph.angle_between(sgd.directions[k], agg.directions[k]) for k in steps]
        assert np.allclose(line.get_ydata(), expected, rtol=1e-9, atol=1e-17)
        g0 = loss.grad(x0, 0) + lam * x0
        adagrad = sph.simulate(sph.AdaGrad(sph.adagrad_matched_learning_rate(eta, float(np.linalg.norm(g0)), d),
                                           weight_decay=lam), loss, x0, n, record_every=1, engine=engine)
        far = ax.lines[1]
        assert far.get_linestyle() == "--"
        expected = [sph.angle_between(sgd.directions[k], adagrad.directions[k]) for k in steps]
        assert np.allclose(far.get_ydata(), expected, rtol=1e-9, atol=1e-17)
        assert _line(ax, "cosine similarity 1 − 1e-6").get_ydata()[0] == pytest.approx(math.acos(1 - 1e-6))
    # the two panels differ: the weight-normalised runs are not the BatchNorm runs again
    assert not np.allclose(batch_panel.lines[1].get_ydata(), weight_panel.lines[1].get_ydata())


def test_relaxation_plots_the_runs_and_the_laws():
    fig = figs.relaxation(n_seeds=2, dimension=8)
    left, right = fig.axes[:2]
    eta, lam, G, d = 0.1, 1e-3, 1.0, 8
    eq = sph.sgd_l2_equilibrium(eta, lam, G)
    r0 = (0.1 * eq.radius_fourth_power) ** 0.25
    n = int(2.0 / (eta * lam))
    run = sph.simulate(sph.SGD(eta, weight_decay=lam), sph.RandomLinearLoss.stream(d, G, seed=0), np.full(d, r0 / math.sqrt(d)), n)
    line = _line(left, "η = 0.1, λ = 0.001")
    assert np.allclose(line.get_ydata(), run.radius ** 4 / eq.radius_fourth_power, rtol=1e-12)
    assert np.allclose(_line(left, "ODE law").get_ydata(),
                       sph.sgd_l2_relaxation(r0, eta, lam, G, np.arange(n + 1)) / eq.radius_fourth_power, rtol=1e-12)
    eq_m = sph.sgdm_l2_equilibrium(eta, lam, 0.9, G)
    tau = sph.sgdm_l2_relaxation_steps(eta, lam, 0.9)
    rng = np.random.default_rng(0)
    r0m = (0.1 * eq_m.radius_fourth_power) ** 0.25
    runs = [sph.simulate(sph.SGD(eta, 0.9, lam), sph.RandomLinearLoss.stream(d, G, seed=rng), np.full(d, r0m / math.sqrt(d)),
                        int(6 * tau)).radius ** 4 for _ in range(2)]
    assert np.allclose(_line(right, "mean of 2").get_ydata(), np.mean(runs, axis=0) / eq_m.radius_fourth_power, rtol=1e-12)


def test_periodic_collapse_plots_the_run_and_the_threshold():
    n = 3000
    fig = figs.periodic_collapse(n_steps=n)
    rng = np.random.default_rng(0)
    Q = haar_orthogonal(8, seed=rng)
    loss = sph.RayleighLoss(Q @ np.diag(np.linspace(0.0, 1.0, 8)) @ Q.T)
    run = sph.simulate(sph.SGD(0.1, weight_decay=0.01), loss, rng.standard_normal(8), n)
    a, b, c = fig.axes[:3]
    assert np.allclose(a.lines[0].get_ydata(), run.radius, rtol=1e-12)
    assert np.allclose(b.lines[0].get_ydata(), run.effective_learning_rate, rtol=1e-12)
    assert np.allclose(c.lines[0].get_ydata(), run.sphere_grad_norm, rtol=1e-12, atol=1e-300)
    assert b.lines[1].get_ydata()[0] == pytest.approx(loss.stability_threshold)


def test_adam_variants_training_draws_its_record(monkeypatch):
    """The figure of Figs 3.6-3.7 draws the record spherical.adam_variants (a tiny run of the record's trainer on the
    digits stands in for it here), with the record's verdict under the panels."""
    import types

    pytest.importorskip("torch")
    pytest.importorskip("sklearn")
    import figures.registry
    from dynamics.spherical import torch_experiments as te

    config = sph.AdamVariantsConfig.digits_record()._replace(n_steps=6, eval_every=2, spherical_every=2, width=2,
                                                             batch_size=16)
    run = te.train_adam_variants(config, (0, 1))
    asked = []

    def record(name):
        asked.append(name)
        return types.SimpleNamespace(result=run, seeds=(0, 1), verdict=("partly reproduced", "a tiny stand-in"),
                                     reduced="a tiny size")

    monkeypatch.setattr(figures.registry, "record", record)
    fig = figs.adam_variants_training()
    assert asked == ["spherical.adam_variants"]
    loss, _, rates_conv1 = fig.axes[:3]
    accuracy = fig.axes[3]
    for i, name in enumerate(run.optimizers):
        label = figs._METHOD_LABELS[name]
        line = _line(loss, label)
        assert np.allclose(line.get_xdata(), run.eval_steps)
        assert np.allclose(line.get_ydata(), run.train_loss[i].mean(axis=0))
        assert np.allclose(accuracy.lines[i].get_ydata(), run.test_accuracy[i].mean(axis=0))
        assert np.allclose(rates_conv1.lines[i].get_ydata(), run.effective_learning_rate[i, :, :, 0].mean(axis=0))
        assert np.allclose(rates_conv1.lines[i].get_xdata(), run.spherical_steps)
    assert "conv1" in rates_conv1.get_title()
    assert any("partly reproduced: a tiny stand-in" in text.get_text() for text in fig.texts)
