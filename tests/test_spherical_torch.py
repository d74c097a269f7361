"""Tests of the optional torch module dynamics.spherical.torch_optim (skipped without torch)."""
import numpy as np
import pytest

import dynamics.spherical as sph

torch = pytest.importorskip("torch")


def test_torch_optim_bad_input_and_elementwise_is_adam():
    from dynamics.spherical import torch_optim

    w = torch.nn.Parameter(torch.ones(2, 3, dtype=torch.float64))
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        torch_optim.AdamSRT([w], learning_rate=0.0)
    with pytest.raises(ValueError, match="weight_decay must be >= 0"):
        torch_optim.AdamS([w], weight_decay=-1.0)
    with pytest.raises(ValueError, match=r"betas\[0\] must be in \[0, 1\)"):
        torch_optim.AdamST([w], betas=(1.0, 0.9))
    # channel_wise=False: element-wise Adam (+L2), i.e. torch.optim.Adam
    rng = np.random.default_rng(0)
    data = torch.tensor(rng.standard_normal((2, 3)))
    a, b = torch.nn.Parameter(data.clone()), torch.nn.Parameter(data.clone())
    ours = torch_optim.AdamSRT([a], learning_rate=0.01, weight_decay=0.1)
    reference = torch.optim.Adam([b], lr=0.01, weight_decay=0.1, foreach=False)
    for _ in range(5):
        grad = torch.tensor(rng.standard_normal((2, 3)))
        a.grad, b.grad = grad.clone(), grad.clone()
        ours.step()
        reference.step()
        assert torch.equal(a.grad, grad)  # p.grad is not modified in place
    assert torch.allclose(a, b, rtol=1e-14, atol=1e-15)
    scheduler = torch.optim.lr_scheduler.StepLR(ours, step_size=1, gamma=0.5)
    a.grad = torch.zeros_like(a)
    ours.step()
    scheduler.step()
    assert ours.param_groups[0]["lr"] == 0.005


def test_torch_variants_match_numpy_per_filter_with_channel_dims():
    from dynamics.spherical import torch_optim

    rng = np.random.default_rng(1)
    w0 = rng.standard_normal((4, 3, 2))  # groups along dim 1 (channel_dims=[1]): 3 groups of d = 8
    w = torch.nn.Parameter(torch.tensor(w0))
    opt = torch_optim.AdamSRT([w], learning_rate=0.05, eps=1e-8, weight_decay=0.1, channel_dims=[1])
    mirrors = [sph.AdamSRT(0.05, eps=1e-8, weight_decay=0.1) for _ in range(3)]
    xs = [w0[:, j, :].ravel() for j in range(3)]
    for _ in range(6):
        grad = rng.standard_normal((4, 3, 2))
        w.grad = torch.tensor(grad)
        opt.step()
        xs = [m.step(x, grad[:, j, :].ravel()) for j, (m, x) in enumerate(zip(mirrors, xs))]
    for j in range(3):
        assert np.allclose(w.detach().numpy()[:, j, :].ravel(), xs[j], rtol=1e-13, atol=1e-15)


def test_torch_adagradg_matches_numpy_and_checks_the_sphere():
    from dynamics.spherical import torch_optim

    rng = np.random.default_rng(2)
    rows = rng.standard_normal((3, 5))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    w = torch.nn.Parameter(torch.tensor(rows))
    opt = torch_optim.AdaGradG([w], learning_rate=0.4, beta=0.95, v0=torch.tensor([1.0, 2.0, 3.0]))
    mirrors = [sph.AdaGradG(0.4, 0.95, v0) for v0 in (1.0, 2.0, 3.0)]
    xs = list(rows)
    for _ in range(5):
        grad = rng.standard_normal((3, 5))
        w.grad = torch.tensor(grad)
        opt.step()
        xs = [m.step(x, g) for m, x, g in zip(mirrors, xs, grad)]
    assert np.allclose(w.detach().numpy(), np.array(xs), rtol=1e-13, atol=1e-15)
    off = torch.nn.Parameter(torch.ones(2, 3, dtype=torch.float64))
    off.grad = torch.ones(2, 3, dtype=torch.float64)
    with pytest.raises(ValueError, match="every filter must be a unit vector"):
        torch_optim.AdaGradG([off], learning_rate=0.1, beta=0.9, v0=1.0).step()


# ------------------------------------------------------------------ torch_state: the per-filter effective learning rate
def _optimizers(params, name):
    """(torch optimizer, numpy mirror factory, learning rate, λ, decoupled) of each kind the helper reads."""
    from dynamics.spherical import torch_optim

    betas, eps = (0.9, 0.99), 1e-30
    if name == "SGD":
        return torch.optim.SGD(params, lr=0.2, foreach=False), lambda: sph.SGD(0.2), 0.2, 0.0, False
    if name == "SGD+L2":
        return (torch.optim.SGD(params, lr=0.2, weight_decay=0.05, foreach=False),
                lambda: sph.SGD(0.2, weight_decay=0.05), 0.2, 0.05, False)
    if name == "SGD-M+L2":
        return (torch.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=0.05, foreach=False),
                lambda: sph.SGD(0.05, momentum=0.9, weight_decay=0.05), 0.05, 0.05, False)
    if name == "Adam+L2":
        return (torch.optim.Adam(params, lr=0.01, betas=betas, eps=eps, weight_decay=0.05, foreach=False),
                lambda: sph.Adam(0.01, betas=betas, eps=eps, weight_decay=0.05), 0.01, 0.05, False)
    if name == "AdamW":
        return (torch.optim.AdamW(params, lr=0.01, betas=betas, eps=eps, weight_decay=0.5, foreach=False),
                lambda: sph.AdamW(0.01, betas=betas, eps=eps, weight_decay=0.5), 0.01, 0.5, True)
    assert name == "AdamS"
    return (torch_optim.AdamS([{"params": params[:2], "channel_wise": True}, {"params": params[2:]}],
                              learning_rate=0.01, betas=betas, eps=eps, weight_decay=0.05),
            lambda: sph.AdamS(0.01, betas=betas, eps=eps, weight_decay=0.05), 0.01, 0.05, False)


@pytest.mark.parametrize("name", ["SGD", "SGD+L2", "SGD-M+L2", "Adam+L2", "AdamW", "AdamS"])
def test_effective_learning_rates_match_spherical_step_and_the_closed_forms(name):
    """On a BatchNorm CNN (float64, BatchNorm ε = 0: every filter exactly radially invariant), the per-filter
    effective learning rate read from the torch optimizer's state equals spherical_step on the generic form of the
    package's numpy optimizer stepped filter by filter on the same gradients, and the closed forms: η/((1−ηλ)r²)
    for SGD (+ L2) (Table 3.1), and A = η/(rν) with Adam's second moment on the sphere ν of adam_nu (Eq 3.42)."""
    from dynamics.spherical.torch_models import conv_bn_net
    from dynamics.spherical.torch_state import effective_learning_rates
    from dynamics.spherical.torch_training import synthetic_images

    data = synthetic_images(32, size=6, seed=0)
    model = conv_bn_net(width=4, seed=0)
    convs = {"conv1": model[0], "conv2": model[3]}
    weights = [m.weight for m in convs.values()]
    rest = [p for p in model.parameters() if all(p is not w for w in weights)]
    opt, make_mirror, eta, lam, decoupled = _optimizers(weights + rest, name)
    mirrors = [[make_mirror() for _ in range(w.shape[0])] for w in weights]
    history = [[[] for _ in range(w.shape[0])] for w in weights]  # per filter: (r_k, ‖∇L(u_k)‖)
    for k in range(5):
        batch = torch.arange(8 * k, 8 * k + 8) % 32
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(data.inputs[batch]), data.labels[batch]).backward()
        xs = [w.detach().reshape(w.shape[0], -1).numpy().copy() for w in weights]
        grads = [w.grad.reshape(w.shape[0], -1).numpy().copy() for w in weights]
        opt.step()
        rates = effective_learning_rates(opt, convs)
        assert rates.layer_names == ("conv1", "conv2")
        for layer, (x, g, w) in enumerate(zip(xs, grads, weights)):
            got = rates.for_layer(layer)
            assert rates.for_layer(layer, "channel").tolist() == list(range(w.shape[0]))
            radius = np.linalg.norm(x, axis=1)
            np.testing.assert_allclose(rates.for_layer(layer, "radius"), radius, rtol=1e-12)
            expected, x_next = [], w.detach().reshape(w.shape[0], -1).numpy()
            for j, mirror in enumerate(mirrors[layer]):
                stepped = mirror.step(x[j], g[j])
                np.testing.assert_allclose(stepped, x_next[j], rtol=1e-10, atol=1e-14)
                form = mirror.last_generic_form
                expected.append(sph.spherical_step(x[j], *form).effective_learning_rate)
                history[layer][j].append((radius[j], radius[j] * np.linalg.norm(g[j])))
            np.testing.assert_allclose(got, expected, rtol=1e-10)
            if name in ("SGD", "SGD+L2"):
                np.testing.assert_allclose(got, sph.sgd_effective_lr(eta, radius ** 4, lam), rtol=1e-10)
            if name.startswith("Adam"):
                nu = np.array([sph.adam_nu([h[1] for h in history[layer][j]], [h[0] for h in history[layer][j]],
                                           x.shape[1], (0.9, 0.99), 0.0 if decoupled else lam)[-1]
                               for j in range(x.shape[0])])
                scheduled = eta / (1 - eta * lam) if decoupled else eta
                np.testing.assert_allclose(rates.for_layer(layer, "A"), scheduled / (radius * nu), rtol=1e-10)
            assert np.all(rates.for_layer(layer, "angle") > 0)


def test_effective_learning_rates_of_a_float32_network_and_bad_input():
    from dynamics.spherical import torch_optim
    from dynamics.spherical.torch_state import effective_learning_rates

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 6, 3, bias=False), torch.nn.BatchNorm2d(6), torch.nn.ReLU(),
                                torch.nn.Flatten(), torch.nn.Linear(6 * 4 * 4, 2))
    inputs, labels = torch.randn(8, 3, 6, 6), torch.randint(0, 2, (8,))

    def train(opt):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(inputs), labels).backward()
        opt.step()
        return opt

    with pytest.raises(ValueError, match="not stepped this parameter yet"):
        effective_learning_rates(torch.optim.Adam(model.parameters()), [model[0]])
    opt = train(torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
    before = model[0].weight.detach().clone()
    rates = effective_learning_rates(opt, model[0].weight)  # one layer, the parameter itself, float32
    assert rates.effective_learning_rate.shape == (6,) and np.all(np.isfinite(rates.effective_learning_rate))
    assert rates.effective_learning_rate.dtype == np.float64
    train(opt)
    ratio = effective_learning_rates(opt, [model[0]]).radius / before.reshape(6, -1).norm(dim=1).numpy()
    np.testing.assert_allclose(ratio, 1.0, atol=0.2)
    with pytest.raises(ValueError, match="not among the optimizer's parameters"):
        effective_learning_rates(torch.optim.SGD(model[4].parameters(), lr=0.1), [model[0]])
    with pytest.raises(TypeError, match="has no weight tensor"):
        effective_learning_rates(opt, [model[2]])
    with pytest.raises(TypeError, match="must be a torch.optim.Optimizer"):
        effective_learning_rates("SGD", [model[0]])
    plain = train(torch.optim.SGD(model.parameters(), lr=0.1))
    plain.zero_grad()
    with pytest.raises(ValueError, match="before optimizer.zero_grad"):
        effective_learning_rates(plain, [model[0]])
    for refused, match in ((torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True), "Nesterov"),
                           (torch.optim.Adam(model.parameters(), amsgrad=True), "amsgrad"),
                           (torch_optim.AdamSRT(model.parameters(), channel_wise=True), "AdamSRT is not supported"),
                           (torch_optim.AdamS([model[0].weight], channel_dims=[1]), "along dims")):
        with pytest.raises(ValueError, match=match):
            effective_learning_rates(train(refused), [model[0]])


@pytest.mark.parametrize("name", ["SGD-M+L2", "Adam+L2", "AdamW", "AdamS"])
def test_effective_learning_rates_of_a_stacked_model_are_each_members_own(name):
    """``stacked=True``: the models stacked along dim 0 of every weight (a 4-D and a 2-D weight per member), stepped
    by one optimizer on the stack, are read member by member as each member's own model and optimizer are."""
    from dynamics.spherical import torch_optim
    from dynamics.spherical.torch_state import effective_learning_rates

    rng = np.random.default_rng(0)
    n_members, shapes = 3, [(4, 3, 3, 3), (5, 6)]

    def optimizer(weights, stacked):
        if name == "SGD-M+L2":
            return torch.optim.SGD(weights, lr=0.05, momentum=0.9, weight_decay=1e-3, foreach=False)
        if name == "AdamS":
            grouping = {"channel_dims": [0, 1]} if stacked else {"channel_wise": True}
            return torch_optim.AdamS([{"params": weights, **grouping}], learning_rate=1e-2, weight_decay=1e-3)
        cls = torch.optim.AdamW if name == "AdamW" else torch.optim.Adam
        return cls(weights, lr=1e-2, weight_decay=1e-3, foreach=False)

    members = [[torch.nn.Parameter(torch.tensor(rng.standard_normal(shape))) for shape in shapes]
               for _ in range(n_members)]
    stack = [torch.nn.Parameter(torch.stack([ws[i].detach() for ws in members])) for i in range(len(shapes))]
    alone, together = [optimizer(ws, False) for ws in members], optimizer(stack, True)
    for _ in range(3):
        for ws in members:
            for w in ws:  # a gradient tangent to every filter, as a normalisation layer makes it
                g, x = torch.tensor(rng.standard_normal(w.shape)).flatten(1), w.detach().flatten(1)
                w.grad = (g - (g * x).sum(dim=1, keepdim=True) * x / (x * x).sum(dim=1, keepdim=True)).reshape(w.shape)
        for i, w in enumerate(stack):
            w.grad = torch.stack([ws[i].grad for ws in members])
        for opt in alone + [together]:
            opt.step()
        read = effective_learning_rates(together, {"conv": stack[0], "linear": stack[1]}, stacked=True)
        assert len(read) == n_members
        for ws, opt, got in zip(members, alone, read):
            expected = effective_learning_rates(opt, {"conv": ws[0], "linear": ws[1]})
            assert got.layer_names == expected.layer_names
            np.testing.assert_array_equal(got.layer, expected.layer)
            np.testing.assert_array_equal(got.channel, expected.channel)
            for field in ("effective_learning_rate", "A", "radius", "angle"):
                np.testing.assert_allclose(getattr(got, field), getattr(expected, field), rtol=1e-12, atol=0)


def test_effective_learning_rates_stacked_bad_input():
    from dynamics.spherical import torch_optim
    from dynamics.spherical.torch_state import effective_learning_rates

    a = torch.nn.Parameter(torch.randn(2, 3, 4, dtype=torch.float64))
    b = torch.nn.Parameter(torch.randn(3, 5, 3, dtype=torch.float64))
    c = torch.nn.Parameter(torch.randn(4, dtype=torch.float64))
    opt = torch.optim.SGD([a, b, c], lr=0.1, momentum=0.9)
    for w in (a, b, c):
        w.grad = torch.randn_like(w) * 1e-3
    opt.step()
    with pytest.raises(TypeError, match="stacked"):
        effective_learning_rates(opt, [a], stacked="yes")
    with pytest.raises(ValueError, match="stacked=True: every layer must hold the same number of members"):
        effective_learning_rates(opt, [a, b], stacked=True)
    with pytest.raises(ValueError, match=r"stacked=True: layers\['0'\] must have a leading member axis"):
        effective_learning_rates(opt, [c], stacked=True)
    grouped = torch_optim.AdamS([a], channel_dims=[0, 1])
    grouped.step()
    with pytest.raises(ValueError, match="pass stacked=True"):  # grouped by (member, row), read as one model
        effective_learning_rates(grouped, [a])
    assert len(effective_learning_rates(grouped, [a], stacked=True)) == 2
    with pytest.raises(ValueError, match="along dims"):  # grouped by row only, read as a stack
        effective_learning_rates(torch_optim.AdamS([b], channel_wise=True), [b], stacked=True)


@pytest.mark.parametrize("name, config_class", [
    ("equilibrium_statistics", sph.EquilibriumStatisticsConfig),
    ("adagradg_vs_sgd_m2", sph.AdaGradGVsSGDM2Config),
    ("adam_variants_m2", sph.AdamVariantsM2Config),
])
def test_cross_check_trainers_take_their_config(name, config_class):
    """The cross-check trainers take ``(config, seed, *, device)``: the default config is the CPU one, ``ci()`` the
    cross-check's CPU size, anything else a TypeError; the configs are hashable with a faithful repr (the disk cache
    keys on it)."""
    import inspect

    from dynamics.spherical import torch_training

    trainer = getattr(torch_training, name)
    assert list(inspect.signature(trainer).parameters)[:2] == ["config", "seed"]
    assert inspect.signature(trainer).parameters["config"].default == config_class()
    for config in (config_class(), config_class.source(), config_class.ci()):
        assert eval(repr(config), {config_class.__name__: config_class}) == config
        assert hash(config) == hash(config_class(*config))
    with pytest.raises(TypeError, match=config_class.__name__):
        trainer(tuple(config_class()), 0)


def test_cross_check_configs_run_and_bad_fields_are_named():
    from dynamics.spherical import torch_training

    stats = torch_training.equilibrium_statistics(
        sph.EquilibriumStatisticsConfig(((0.1, 1e-3, 0.9), (0.05, 1e-3, 0.0)), n_replicas=2, n_warmup=3,
                                        relaxation_times=0.0, n_average=2), 0)
    assert stats.radius_fourth_power.shape == (2, 2, 8) and stats.n_steps == 5
    with pytest.raises(ValueError, match="n_replicas"):
        torch_training.equilibrium_statistics(sph.EquilibriumStatisticsConfig(n_replicas=0), 0)
    run = torch_training.adagradg_vs_sgd_m2(sph.AdaGradGVsSGDM2Config(n_steps=1, n_pretrain=1, width=4), 0)
    assert run.steps.tolist() == [0, 1]
    result = torch_training.adam_variants_m2(sph.AdamVariantsM2Config(n_steps=1, width=4), 0)
    assert sorted(result.numpy_gap) == ["AdamG", "AdamS", "AdamSRT", "AdamST"]
