"""The torch cross-check base: device selection, float64, seeding, registration as claims."""
import numpy as np
import pytest

from verify import crosscheck, registry
from verify.registry import Check

torch = pytest.importorskip("torch") if not registry.in_ci() else __import__("torch")


def test_device_selection(monkeypatch):
    with pytest.raises(ValueError, match="device"):
        crosscheck.set_device("tpu")
    crosscheck.set_device("cpu")
    assert crosscheck.resolve_device() == "cpu"
    crosscheck.set_device("auto")
    assert crosscheck.resolve_device() == ("cuda" if torch.cuda.is_available() else "cpu")
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA"):
            crosscheck.set_device("cuda")
    crosscheck.set_device("cpu")


def test_context_is_float64_and_seeding_repeats():
    ctx = crosscheck.context("cpu")
    assert ctx.dtype == torch.float64 and ctx.device.type == "cpu" and not ctx.large
    assert ctx.size(cpu=3, cuda=300) == 3
    rng = ctx.seed(7)
    a, x = torch.randn(4, dtype=ctx.dtype), rng.standard_normal(3)
    rng = ctx.seed(7)
    assert torch.equal(a, torch.randn(4, dtype=ctx.dtype)) and np.array_equal(x, rng.standard_normal(3))
    t = ctx.tensor([1.0, 2.0])
    assert t.dtype == torch.float64 and np.array_equal(ctx.numpy(t), [1.0, 2.0])


def test_crosscheck_registers_a_torch_claim(monkeypatch):
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
    seen = {}

    @crosscheck.crosscheck("numerics.zz_probe", "test", "probe", cost="fast")
    def probe(ctx):
        seen["device"] = ctx.device.type
        return Check(float(ctx.torch.ones(1, dtype=ctx.dtype).sum()) - 1.0, 0.0)

    c = registry.REGISTRY["numerics.zz_probe"]
    assert c.kind == "crosscheck" and "torch" in c.needs and c.cost == "fast"
    result = registry.run_claim(c)
    assert result.passed and seen["device"] == "cpu"
