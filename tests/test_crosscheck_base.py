"""The torch cross-check base: device selection, float64, seeding through the run context, registration."""
import numpy as np
import pytest

from verify import crosscheck, registry
from verify.registry import Check, RunContext

torch = pytest.importorskip("torch") if not registry.in_ci() else __import__("torch")


def test_device_selection():
    with pytest.raises(ValueError, match="device"):
        crosscheck.check_device("tpu")
    assert crosscheck.resolve_device("cpu") == "cpu"
    assert crosscheck.resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA"):
            crosscheck.check_device("cuda")


def test_context_is_float64_and_seeding_repeats_and_follows_the_offset():
    ctx = crosscheck.context(RunContext("cpu"))
    assert ctx.dtype == torch.float64 and ctx.device.type == "cpu" and not ctx.large
    assert ctx.size(cpu=3, cuda=300) == 3
    large = crosscheck.context(RunContext("cpu", large_sizes=True))
    assert large.large and large.size(cpu=3, cuda=300) == 300
    # a GPU run extends a rate check's ladder: the CPU sizes first, the larger ones after them
    assert ctx.ladder((1, 2, 4, 8), cuda_extra=(16, 32)) == (1, 2, 4, 8)
    assert large.ladder((1, 2, 4, 8), cuda_extra=(16, 32)) == (1, 2, 4, 8, 16, 32)
    rng = ctx.seed(7)
    a, x = torch.randn(4, dtype=ctx.dtype), rng.standard_normal(3)
    rng = ctx.seed(7)
    assert torch.equal(a, torch.randn(4, dtype=ctx.dtype)) and np.array_equal(x, rng.standard_normal(3))
    shifted = crosscheck.context(RunContext("cpu", seed_offset=3))
    assert np.array_equal(shifted.seed(4).standard_normal(3), ctx.seed(7).standard_normal(3))
    t = ctx.tensor([1.0, 2.0])
    assert t.dtype == torch.float64 and np.array_equal(ctx.numpy(t), [1.0, 2.0])


def test_crosscheck_registers_a_torch_claim_and_gets_the_device_from_the_run(monkeypatch):
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
    seen = {}

    @crosscheck.crosscheck("numerics.zz_probe", "test", "probe", cost="fast")
    def probe(ctx):
        seen["device"], seen["offset"] = ctx.device.type, ctx.run.seed_offset
        return Check.at_most(float(ctx.torch.ones(1, dtype=ctx.dtype).sum()) - 1.0, 0.0)

    c = registry.REGISTRY["numerics.zz_probe"]
    assert c.kind == "crosscheck" and "torch" in c.needs and c.cost == "fast" and c.takes_context
    result = registry.run_claim(c, RunContext("cpu", seed_offset=2))
    assert result.passed and seen == {"device": "cpu", "offset": 2} and result.seed_offset == 2


def test_no_module_global_device():
    assert not hasattr(crosscheck, "_state") and not hasattr(crosscheck, "set_device")
