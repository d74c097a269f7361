"""Tests of the spherical experiments in miniature (dynamics.spherical.torch_experiments): the trainer of Roburin
(thesis), Figs 3.6-3.7 and B.1-B.3 at a tiny size."""
import importlib.util
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dynamics.spherical import AdamVariantsConfig  # noqa: E402
from dynamics.spherical import torch_experiments as te  # noqa: E402
from dynamics.numerics.torch_tools import seed_int, torch_generator  # noqa: E402
from dynamics.spherical import torch_optim  # noqa: E402
from dynamics.spherical.torch_models import bn_mlp2  # noqa: E402
from dynamics.spherical.torch_state import effective_learning_rates  # noqa: E402
from dynamics.spherical.torch_training import gaussian_classification  # noqa: E402


@pytest.fixture(autouse=True)
def _every_call_trains(monkeypatch):
    """No disk cache here: a determinism test must compute twice, not read the first call's entry back."""
    monkeypatch.setenv("DYNAMICS_CACHE", "0")


TINY = AdamVariantsConfig(n_steps=6, eval_every=3, n_train=48, n_test=32, width=4, batch_size=8)


def _tiny(optimizers, **fields):
    return TINY._replace(optimizers=optimizers, **fields)


def test_shapes_and_steps():
    run = te.train_adam_variants(_tiny(("SGD-M", "AdamG", "AdamSRT"), spherical_every=2), (0, 1))
    assert run.optimizers == ("SGD-M", "AdamG", "AdamSRT")
    assert run.eval_steps.tolist() == [0, 3, 6]
    assert run.spherical_steps.tolist() == [1, 3, 5]
    assert run.train_loss.shape == run.test_accuracy.shape == (3, 2, 3)
    for field in ("effective_learning_rate", "max_radial_term", "max_tangent_step", "max_tan2_gradient"):
        values = getattr(run, field)
        assert values.shape == (3, 2, 3, 2) and np.all(np.isfinite(values)), field
    assert np.all(run.effective_learning_rate > 0)
    assert np.all((run.test_accuracy >= 0) & (run.test_accuracy <= 1))
    # the initial evaluation does not depend on the method
    assert np.allclose(run.train_loss[:, :, 0], run.train_loss[0, :, 0], rtol=0, atol=0)


def test_seed_loop_equals_single_runs():
    """A run over several seeds is, per seed, the run of that seed alone (float64, to round-off)."""
    both = te.train_adam_variants(_tiny(("Adam", "AdamST")), (3, 4))
    for j, seed in enumerate((3, 4)):
        alone = te.train_adam_variants(_tiny(("Adam", "AdamST")), (seed,))
        for field in ("train_loss", "test_accuracy", "effective_learning_rate", "max_tan2_gradient"):
            np.testing.assert_allclose(getattr(both, field)[:, j], getattr(alone, field)[:, 0], rtol=1e-12, atol=0)


def _reference_run(name, seed, c, model, filters, rest, eta, x, y, x_test, y_test):
    """The trainer's protocol for one method and seed on one unstacked model with its own optimizer (the per-model
    path the stacked trainer replaced): the training losses, test accuracies and per-step records (reading, 4,
    layer) of AdamVariantsTraining. ``filters`` are the radially invariant weights (rows of a linear layer or
    filters of a convolution), ``rest`` the other parameters."""
    lam, betas, eps = c.weight_decay, c.betas, c.eps
    if name == "SGD-M":
        opt = torch.optim.SGD([{"params": filters, "weight_decay": lam}, {"params": rest}], lr=eta, momentum=0.9,
                              foreach=False)
    elif name in ("Adam", "AdamW"):
        opt = getattr(torch.optim, name)([{"params": filters, "weight_decay": lam},
                                          {"params": rest, "weight_decay": 0.0}], lr=eta, betas=betas, eps=eps,
                                         foreach=False)
    else:
        opt = getattr(torch_optim, name)([{"params": filters, "channel_wise": True, "weight_decay": lam},
                                          {"params": rest, "weight_decay": 0.0}], learning_rate=eta, betas=betas,
                                         eps=eps)
    gen, losses, accuracies, records = torch_generator(seed), [], [], []

    def evaluate():
        with torch.no_grad():
            losses.append(float(torch.nn.functional.cross_entropy(model(x), y)))
            right = model(x_test).argmax(dim=1) == y_test
            accuracies.append(float(right.double().mean()))

    evaluate()
    for k in range(c.n_steps):
        idx = torch.randint(0, c.n_train, (c.batch_size,), generator=gen)
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x[idx]), y[idx]).backward()
        read = k % c.spherical_every == 0
        if read and name in ("AdamST", "AdamSRT", "AdamG"):
            scale = [w[0].numel() if name == "AdamG" else 1 for w in filters]
            shadow = torch_optim.AdamS([{"params": [w], "lr": eta / math.sqrt(s), "eps": eps / math.sqrt(s),
                                         "weight_decay": 0.0 if name == "AdamG" else lam}
                                        for w, s in zip(filters, scale)], betas=betas, channel_wise=True)
            for w, s in zip(filters, scale):
                state = opt.state.get(w)
                if state:
                    shadow.state[w] = {"step": state["step"], "exp_avg": state["exp_avg"].clone(),
                                       "exp_avg_sq": state["exp_avg_sq"] / s}
            before = [w.detach().clone() for w in filters]
            shadow.step()
            rates = effective_learning_rates(shadow, filters)
            with torch.no_grad():
                for w, b in zip(filters, before):
                    w.copy_(b)
        opt.step()
        if read:
            if name not in ("AdamST", "AdamSRT", "AdamG"):
                rates = effective_learning_rates(opt, filters)
            record = []
            for layer, w in enumerate(filters):
                mask = rates.layer == layer
                eta_e, radius = rates.effective_learning_rate[mask], rates.radius[mask]
                sphere_grad = radius * w.grad.flatten(1).norm(dim=1).numpy()
                record.append((np.median(eta_e), np.abs(1 - rates.A[mask] / eta_e).max(),
                               np.tan(rates.angle[mask]).max(), ((eta_e * sphere_grad) ** 2).max()))
            records.append(np.array(record).T)
        if (k + 1) % c.eval_every == 0 or k + 1 == c.n_steps:
            evaluate()
    return np.array(losses), np.array(accuracies), np.array(records)


def _one_model_run(name, seed, c):
    """_reference_run on one bn_mlp2 and the Gaussian points."""
    both = gaussian_classification(c.n_train + c.n_test, c.n_features, c.n_classes, c.label_noise, seed=seed)
    model = bn_mlp2(c.n_features, c.width, c.n_classes, seed=seed)
    return _reference_run(name, seed, c, model, [model[0].weight, model[3].weight], [model[6].weight, model[6].bias],
                          te.DEFAULT_LEARNING_RATES[name], both.inputs[:c.n_train], both.labels[:c.n_train],
                          both.inputs[c.n_train:], both.labels[c.n_train:])


def test_stacked_trainer_equals_one_model_per_seed_and_method():
    """All seeds of a method trained as one stacked model (per-member batch statistics, per-member optimizer groups,
    the effective learning rate read per member) follow, for every method, the run of one model per seed."""
    config = _tiny(te.OPTIMIZERS, n_steps=7, spherical_every=2)
    seeds = (0, 1, 5)
    run = te.train_adam_variants(config, seeds)
    fields = ("effective_learning_rate", "max_radial_term", "max_tangent_step", "max_tan2_gradient")
    for i, name in enumerate(te.OPTIMIZERS):
        for j, seed in enumerate(seeds):
            losses, accuracies, records = _one_model_run(name, seed_int(seed), config)  # as the trainer
            np.testing.assert_allclose(run.train_loss[i, j], losses, rtol=1e-10, atol=0, err_msg=name)
            np.testing.assert_array_equal(run.test_accuracy[i, j], accuracies, err_msg=name)
            for q, field in enumerate(fields):
                np.testing.assert_allclose(getattr(run, field)[i, j], records[:, q], rtol=1e-10, atol=0,
                                           err_msg=f"{name} {field}")


def test_deterministic_and_seed_dependent():
    a = te.train_adam_variants(_tiny(("AdamS",)), (5,))
    b = te.train_adam_variants(_tiny(("AdamS",)), (5,))
    c = te.train_adam_variants(_tiny(("AdamS",)), (6,))
    assert np.array_equal(a.train_loss, b.train_loss)
    assert np.array_equal(a.effective_learning_rate, b.effective_learning_rate)
    assert not np.allclose(a.train_loss, c.train_loss)


@pytest.mark.parametrize("name", ["AdamST", "AdamSRT", "AdamG"])
def test_shadow_adams_step_is_the_variants_step(name):
    """The step of AdamST/AdamSRT is an AdamS step from their state before it, and AdamG's is one with v summed over
    the filter (learning rate and ε / sqrt(d), no weight decay) up to its radial renormalisation: the shadow the
    trainer reads the effective learning rate from takes exactly the variant's step, on the trainer's stacked
    layout (two members, each on its own data)."""
    params = te._stacked_bn_mlp2((1, 2), 6, 5, 3, "cpu", torch.float64)
    torch.manual_seed(0)
    data = torch.randn(2, 16, 6, dtype=torch.float64), torch.randint(0, 3, (2, 16))
    eta, lam, betas, eps = 3e-2, 5e-3, (0.9, 0.99), 1e-8
    filters, rest = params[:2], params[2:]
    optimizer = te._optimizer(name, filters, rest, eta, lam, betas, eps)
    for _ in range(5):
        optimizer.zero_grad()
        te._losses(params, *data).sum().backward()
        before = [w.detach().clone() for w in filters]
        shadow = te._shadow(name, filters, optimizer, eta, lam, betas, eps)
        shadow.step()
        stepped = [w.detach().clone() for w in filters]
        rates = effective_learning_rates(shadow, filters, stacked=True)
        assert len(rates) == 2 and all(np.all(r.effective_learning_rate > 0) for r in rates)
        with torch.no_grad():
            for w, x in zip(filters, before):
                w.copy_(x)
        optimizer.step()
        for w, x in zip(filters, stepped):
            if name == "AdamG":  # same direction; AdamG then renormalises
                x = x / (x.norm(dim=2, keepdim=True) + eps)
            np.testing.assert_allclose(w.detach().numpy(), x.numpy(), rtol=1e-12, atol=1e-15)


def test_sgd_effective_learning_rate_without_momentum_matches_table():
    """With SGD and no momentum the effective learning rate is η/((1 − ηλ)r²) (Roburin (thesis), Table 3.1); the
    trainer reads SGD-M through the same helper, so check the helper's reading on the trainer's network."""
    model = bn_mlp2(6, 5, 3, seed=2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=1e-3)
    before = model[0].weight.detach().clone()
    torch.nn.functional.cross_entropy(model(torch.randn(16, 6, dtype=torch.float64)),
                                      torch.randint(0, 3, (16,))).backward()
    opt.step()
    rates = effective_learning_rates(opt, [model[0]])
    expected = 0.1 / ((1 - 1e-4) * before.norm(dim=1) ** 2)
    np.testing.assert_allclose(rates.effective_learning_rate, expected.numpy(), rtol=1e-10)


def test_theorem2_hypotheses_reduces_the_run():
    run = te.train_adam_variants(_tiny(("SGD-M", "Adam")), (0, 1))
    worst = te.theorem2_hypotheses(run, first_step=3)
    keep = run.spherical_steps >= 3
    assert worst.max_radial_term.shape == (2, 2) and worst.first_step == 3
    np.testing.assert_array_equal(worst.max_tan2_gradient, run.max_tan2_gradient[:, :, keep].max(axis=(1, 2)))
    # (H1) holds along the tiny run, and the turn per step is below a radian
    assert np.all(worst.max_radial_term < 1) and np.all(np.arctan(worst.max_tangent_step) < 1)


@pytest.mark.parametrize("fields, name", [
    (dict(optimizers=()), "optimizers"),
    (dict(optimizers=("SGD",)), "optimizers entry"),
    (dict(optimizers=("Adam", "Adam")), "optimizers"),
    (dict(n_steps=0), "n_steps"),
    (dict(n_steps=10**6), "n_steps"),
    (dict(batch_size=1), "batch_size"),
    (dict(eval_every=0), "eval_every"),
    (dict(spherical_every=10**6), "spherical_every"),
    (dict(width=0), "width"),
    (dict(n_classes=1), "n_classes"),
    (dict(label_noise=1.5), "label_noise"),
    (dict(learning_rates={"Adam": -1.0}), "learning_rates"),
    (dict(learning_rates={"Lion": 1.0}), "learning_rates key"),
    (dict(learning_rates=(("Adam", -1.0),)), "learning_rates"),
    (dict(learning_rates=(("Adam", 1e-3), ("Adam", 2e-3))), "learning_rates"),
    (dict(learning_rates=("Adam",)), "learning_rates"),
    (dict(widths=(("Adam", 0),)), "widths"),
    (dict(widths=(("Lion", 8),)), "widths key"),
    (dict(widths=(("Adam", 8), ("Adam", 4))), "widths"),
    (dict(widths="Adam"), "widths"),
    (dict(weight_decay=1.0), "weight_decay"),
    (dict(betas=(0.9, 1.0)), "betas"),
    (dict(eps=-1.0), "eps"),
])
def test_bad_config_names_the_field(fields, name):
    with pytest.raises(ValueError, match=name.split()[0]):
        te.train_adam_variants(AdamVariantsConfig(**{"n_steps": 5, **fields}))


def test_bad_seeds_and_config_type():
    with pytest.raises(ValueError, match="number of seeds"):
        te.train_adam_variants(TINY, ())
    with pytest.raises(TypeError, match="AdamVariantsConfig"):
        te.train_adam_variants({"n_steps": 5})


def test_config_is_hashable_and_has_a_faithful_repr():
    """The disk cache keys on the arguments' repr; a config of tuples is also hashable."""
    for config in (AdamVariantsConfig(), AdamVariantsConfig.source(), AdamVariantsConfig.ci(),
                   TINY._replace(widths=(("Adam", 8),), learning_rates=(("Adam", 1e-3),))):
        assert eval(repr(config), {"AdamVariantsConfig": AdamVariantsConfig}) == config
        assert hash(config) == hash(AdamVariantsConfig(*config))
        assert " at 0x" not in repr(config)


def test_a_method_with_its_own_width_trains_a_network_of_that_width(monkeypatch):
    """``widths`` gives one method its own hidden width; the other methods keep ``width`` and their numbers, and the
    narrower method's numbers are those of a run at that width."""
    built = []
    original = te.bn_mlp2

    def spy(n_features, width, n_classes, **kwargs):
        model = original(n_features, width, n_classes, **kwargs)
        built.append((tuple(model[0].weight.shape), tuple(model[3].weight.shape)))
        return model

    monkeypatch.setattr(te, "bn_mlp2", spy)
    methods = ("SGD-M", "Adam", "AdamSRT")
    base = te.train_adam_variants(_tiny(methods), (0, 1))
    assert [shapes[0][0] for shapes in built] == [4] * 6
    built.clear()
    mixed = te.train_adam_variants(_tiny(methods, widths=(("Adam", 7),)), (0, 1))
    # per method in order, one network per seed (stacked): Adam's hidden layers are 7 wide, the others 4
    assert built == [((4, 16), (4, 4))] * 2 + [((7, 16), (7, 7))] * 2 + [((4, 16), (4, 4))] * 2
    fields = ("train_loss", "test_accuracy", "effective_learning_rate", "max_radial_term", "max_tangent_step",
              "max_tan2_gradient")
    for i, name in enumerate(methods):
        for field in fields:
            same = np.array_equal(getattr(mixed, field)[i], getattr(base, field)[i])
            assert same == (name != "Adam"), (name, field)
    alone = te.train_adam_variants(_tiny(("Adam",))._replace(width=7), (0, 1))
    for field in fields:
        np.testing.assert_array_equal(getattr(mixed, field)[1], getattr(alone, field)[0])
    # naming a method that is not trained, or every method's own width equal to ``width``, changes nothing
    same = te.train_adam_variants(_tiny(methods, widths=(("AdamG", 9), ("SGD-M", 4))), (0, 1))
    for field in fields:
        np.testing.assert_array_equal(getattr(same, field), getattr(base, field))


def test_a_diverged_run_raises_naming_the_method_and_seed(monkeypatch):
    original = te._losses

    def nan_when_evaluated(params, x, labels):  # the evaluation runs without autograd
        loss = original(params, x, labels)
        return loss if torch.is_grad_enabled() else loss * torch.tensor([1.0, math.nan], dtype=loss.dtype)

    monkeypatch.setattr(te, "_losses", nan_when_evaluated)
    with pytest.raises(ValueError, match=r"Adam diverged: the training loss of seeds\[1\] is not finite after step 0"):
        te.train_adam_variants(_tiny(("Adam",)), (3, 7))


def test_bad_input_of_helpers():
    with pytest.raises(ValueError, match="width"):
        bn_mlp2(width=0)
    with pytest.raises(TypeError, match="training"):
        te.theorem2_hypotheses("not a run")
    run = te.train_adam_variants(_tiny(("SGD-M",)), (0,))
    with pytest.raises(ValueError, match="first_step"):
        te.theorem2_hypotheses(run, first_step=0)


def test_float32_runs():
    run = te.train_adam_variants(_tiny(("AdamSRT",)), (0,), dtype=torch.float32)
    assert np.all(np.isfinite(run.train_loss)) and math.isfinite(float(run.effective_learning_rate.max()))


# ---------------------------------------------------------------- the convolutional net on the 8×8 digits
def test_the_default_mlp_run_keeps_its_numbers():
    """The fields that added the convolutional net and the digits (model, data) leave the MLP on Gaussian data as it
    was: these numbers were computed before they existed (the record of Theorem 2's hypotheses relies on them)."""
    config = AdamVariantsConfig(n_steps=12, eval_every=4, n_train=64, n_test=48, width=6, batch_size=16,
                                spherical_every=3)
    assert (config.model, config.data) == ("mlp", "gaussian")
    run = te.train_adam_variants(config, (0, 3))
    before_loss = [[0.8907742581750191, 0.9552510385354649], [1.037447478896075, 1.0578218699427193],
                   [1.037447223084063, 1.0578312367453864], [0.9719836295905864, 0.9970476000120121],
                   [1.032697723815205, 1.048515162729365], [1.0326132322915238, 1.0484125013280785],
                   [1.0326117213889079, 1.0484098722860187]]
    before_accuracy = [[0.3333333333333333, 0.3958333333333333], [0.375, 0.3541666666666667],
                       [0.375, 0.3541666666666667], [0.375, 0.3333333333333333], [0.375, 0.375], [0.375, 0.375],
                       [0.375, 0.375]]
    before_rates = [0.5184409560962644, 0.08319955618448568, 0.08317265292765962, 0.16105903341286293,
                   0.08428570794494705, 0.08454986175866906, 0.08456503468788942]
    np.testing.assert_allclose(run.train_loss[:, :, -1], before_loss, rtol=1e-9, atol=0)
    np.testing.assert_array_equal(run.test_accuracy[:, :, -1], before_accuracy)
    np.testing.assert_allclose(run.effective_learning_rate[:, :, -1, :].sum(axis=(1, 2)), before_rates, rtol=1e-9,
                               atol=0)
    assert run.layer_names == ("layer1", "layer2")


from dynamics.spherical.torch_models import bn_cnn2  # noqa: E402
from dynamics.spherical.torch_training import digits_classification  # noqa: E402

needs_sklearn = pytest.mark.skipif(importlib.util.find_spec("sklearn") is None,
                                   reason="the digits need scikit-learn (pip install scikit-learn)")

DIGITS_TINY = AdamVariantsConfig.digits_record()._replace(n_steps=5, eval_every=5, spherical_every=2, width=3,
                                                           batch_size=16)


@needs_sklearn
def test_digits_split_shapes_classes_and_determinism():
    split = digits_classification()
    assert tuple(split.train.inputs.shape) == (1297, 1, 8, 8) and tuple(split.test.inputs.shape) == (500, 1, 8, 8)
    assert split.train.inputs.dtype == torch.float64 and split.train.labels.dtype == torch.int64
    assert float(split.train.inputs.min()) == 0.0 and float(split.train.inputs.max()) == 1.0
    from sklearn.datasets import load_digits

    shares = np.bincount(load_digits().target) / 1797
    for part, n in ((split.train, 1297), (split.test, 500)):
        counts = np.bincount(part.labels.numpy(), minlength=10)
        assert counts.size == 10 and counts.sum() == n
        assert np.all(np.abs(counts - n * shares) <= 1), counts  # stratified: each digit in its share of the set
    # the two parts are disjoint draws from the set: counted as (pixels, label) pairs (the set holds a few exact
    # duplicates), together they use no image more often than the set holds it
    from collections import Counter

    def pairs(pixels, labels):
        return Counter(tuple(row) + (int(label),) for row, label in zip(np.round(pixels).astype(int), labels))

    whole = pairs(load_digits().data, load_digits().target)
    used = pairs(16 * split.train.inputs.reshape(-1, 64).numpy(), split.train.labels.numpy()) + pairs(
        16 * split.test.inputs.reshape(-1, 64).numpy(), split.test.labels.numpy())
    assert sum(used.values()) == 1797 and not used - whole
    again = digits_classification()
    assert torch.equal(again.train.inputs, split.train.inputs) and torch.equal(again.test.labels, split.test.labels)
    other = digits_classification(seed=1)
    assert not torch.equal(other.test.labels, split.test.labels)
    small = digits_classification(300, 200, dtype=torch.float32)
    assert tuple(small.train.inputs.shape) == (300, 1, 8, 8) and small.test.inputs.dtype == torch.float32


@needs_sklearn
@pytest.mark.parametrize("kwargs, name", [(dict(n_test=5), "n_test"), (dict(n_train=1500), "n_train"),
                                          (dict(n_train=9), "n_train"), (dict(seed=None), "seed")])
def test_digits_split_bad_sizes_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        digits_classification(**kwargs)


def test_digits_split_without_scikit_learn_says_how_to_install_it(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    with pytest.raises(ImportError, match="pip install scikit-learn"):
        digits_classification()


@needs_sklearn
@pytest.mark.parametrize("fields, name", [
    (dict(model="resnet"), "model"),
    (dict(data="cifar10"), "data"),
    (dict(data="gaussian", n_features=16, n_classes=3), "data"),  # the conv net needs images
    (dict(n_features=16), "n_features"),
    (dict(n_classes=3), "n_classes"),
    (dict(label_noise=0.2), "label_noise"),
    (dict(n_train=1500), "n_train"),
    (dict(n_test=5), "n_train and n_test"),
])
def test_bad_model_or_data_field_names_it(fields, name):
    with pytest.raises(ValueError, match=name):
        te.train_adam_variants(DIGITS_TINY._replace(**fields), (0,))


def test_the_digits_record_size():
    config = AdamVariantsConfig.digits_record()
    assert (config.model, config.data, config.n_train, config.n_test, config.n_features, config.n_classes,
            config.label_noise) == ("conv", "digits", 1297, 500, 64, 10, 0.0)
    assert config.optimizers == te.OPTIMIZERS and set(dict(config.learning_rates)) == set(te.OPTIMIZERS)
    assert eval(repr(config), {"AdamVariantsConfig": AdamVariantsConfig}) == config and hash(config)


def _one_conv_model_run(name, seed, c):
    """_reference_run on one bn_cnn2 and the digits."""
    split = digits_classification(c.n_train, c.n_test)
    model = bn_cnn2(c.width, c.n_classes, seed=seed)
    return _reference_run(name, seed, c, model, [model[0].weight, model[4].weight], [model[9].weight, model[9].bias],
                          dict(c.learning_rates)[name], split.train.inputs, split.train.labels, split.test.inputs,
                          split.test.labels)


@needs_sklearn
def test_stacked_conv_trainer_equals_one_model_per_seed_and_method():
    """On the digits, the seeds of a method trained as one stacked convolutional net (a grouped convolution per
    layer, per-member BatchNorm statistics over the batch and the pixels, per-(member, filter) optimizer groups)
    follow, for every method, the run of one bn_cnn2 per seed; the spherical quantities are read per filter."""
    config = DIGITS_TINY._replace(eval_every=2)
    seeds = (0, 4)
    run = te.train_adam_variants(config, seeds)
    assert run.layer_names == ("conv1", "conv2") and run.train_loss.shape == (7, 2, 4)
    fields = ("effective_learning_rate", "max_radial_term", "max_tangent_step", "max_tan2_gradient")
    for i, name in enumerate(te.OPTIMIZERS):
        for j, seed in enumerate(seeds):
            losses, accuracies, records = _one_conv_model_run(name, seed_int(seed), config)
            np.testing.assert_allclose(run.train_loss[i, j], losses, rtol=1e-10, atol=0, err_msg=name)
            np.testing.assert_array_equal(run.test_accuracy[i, j], accuracies, err_msg=name)
            for q, field in enumerate(fields):
                np.testing.assert_allclose(getattr(run, field)[i, j], records[:, q], rtol=1e-9, atol=0,
                                           err_msg=f"{name} {field}")
    # every seed sees the same split: the initial losses differ only through the initial networks
    assert run.train_loss[0, 0, 0] != run.train_loss[0, 1, 0]


@needs_sklearn
def test_the_mlp_trains_on_the_flattened_digits():
    run = te.train_adam_variants(DIGITS_TINY._replace(model="mlp", optimizers=("Adam",)), (0,))
    assert run.layer_names == ("layer1", "layer2") and np.all(np.isfinite(run.train_loss))


@needs_sklearn
def test_bn_cnn2_filters_are_radially_invariant():
    model = bn_cnn2(3, seed=0)
    images = digits_classification(40, 10).train.inputs
    before = model(images)
    with torch.no_grad():
        model[0].weight[1] *= 3.0  # one filter of each convolution rescaled
        model[4].weight[2] *= 0.2
    np.testing.assert_allclose(model(images).detach().numpy(), before.detach().numpy(), rtol=1e-10, atol=1e-12)
    for kwargs, name in ((dict(width=0), "width"), (dict(image_size=6), "image_size"), (dict(n_classes=1), "n_classes"),
                         (dict(in_channels=0), "in_channels")):
        with pytest.raises(ValueError, match=name):
            bn_cnn2(**kwargs)


# ---------------------------------------------------------------- the record's verdict rule
def _synthetic_training(speed, accuracy, n_seeds=5, n_evals=11):
    """An AdamVariantsTraining whose per-seed speed (mean log-loss after step 0) and end-of-run accuracy are given
    per method (dicts), with a small per-seed spread."""
    from dynamics.spherical.torch_experiments import AdamVariantsTraining

    names = te.OPTIMIZERS
    rng = np.random.default_rng(0)
    loss = np.empty((7, n_seeds, n_evals))
    acc = np.empty((7, n_seeds, n_evals))
    for i, name in enumerate(names):
        jitter = 0.01 * rng.standard_normal(n_seeds)
        loss[i] = np.exp(speed[name] + jitter)[:, None]
        acc[i] = (accuracy[name] + 0.0005 * rng.standard_normal(n_seeds))[:, None]
    return AdamVariantsTraining(names, np.arange(n_evals) * 100, loss, acc, ("conv1", "conv2"), np.array([1]),
                                *(np.ones((7, n_seeds, 1, 2)) for _ in range(4)))


def test_the_digits_verdict_grades_the_five_statements():
    from verify.crosscheck import spherical as cs

    # the thesis's ordering: (a) at Adam's speed; (ab) slower, most accurate; AdamW† fastest, least accurate;
    # AdamG† faster than Adam; (abc) faster than (ab), less accurate
    speed = {"SGD-M": -5.0, "Adam": -6.0, "AdamW": -9.0, "AdamG": -8.0, "AdamS": -6.02, "AdamST": -5.5,
             "AdamSRT": -5.8}
    accuracy = {"SGD-M": 0.99, "Adam": 0.980, "AdamW": 0.970, "AdamG": 0.985, "AdamS": 0.982, "AdamST": 0.995,
                "AdamSRT": 0.990}
    verdict = cs._digits_verdict(_synthetic_training(speed, accuracy))
    assert verdict.status == "reproduced" and verdict.text.startswith("5 of 5"), verdict
    # every statement reversed
    reversed_speed = {"SGD-M": -5.0, "Adam": -6.0, "AdamW": -5.0, "AdamG": -5.0, "AdamS": -8.0, "AdamST": -7.0,
                      "AdamSRT": -6.5}
    reversed_accuracy = {"SGD-M": 0.99, "Adam": 0.990, "AdamW": 0.995, "AdamG": 0.985, "AdamS": 0.982,
                         "AdamST": 0.970, "AdamSRT": 0.990}
    verdict = cs._digits_verdict(_synthetic_training(reversed_speed, reversed_accuracy))
    assert verdict.status == "not reproduced" and verdict.text.startswith("0 of 5"), verdict
    # only AdamG† faster than Adam
    mixed = dict(reversed_speed, AdamG=-9.0)
    verdict = cs._digits_verdict(_synthetic_training(mixed, reversed_accuracy))
    assert verdict.status == "partly reproduced" and "AdamG† speeds training up: yes" in verdict.text, verdict
    summary = cs._digits_summary(_synthetic_training(speed, accuracy))
    assert summary.count("final training loss") == 7 and "Adam w/o (ab)" in summary
