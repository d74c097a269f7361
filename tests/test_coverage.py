"""verify.coverage: which claims name each public function (the reference pages' "Claims that call it")."""
import pytest

from verify import coverage, registry
from verify.registry import Check, Claim


def test_every_public_function_is_listed_and_the_names_are_claims():
    naming = coverage.claims_naming()
    assert set(naming) == set(coverage.public_functions())
    ids = set(registry.load_all())
    assert all(set(claims) <= ids for claims in naming.values())
    assert set(coverage.unnamed_functions()) == {f for f, claims in naming.items() if not claims}
    # a record's claim is credited with its plan's trainer
    assert "spurious.record_decision_maps" in naming["dynamics.spurious.torch_balancing.decision_maps"]


def _probe():
    from dynamics import linear_networks as ln
    from dynamics.numerics import one_thread

    with one_thread():
        return Check(abs(float(ln.mode_strength(1.0, 2.0, 0.1)) - 0.0), 10.0)


def _calls_via_helper():
    return _probe()


def test_a_call_is_credited_through_a_helper_but_not_a_with_statement(monkeypatch):
    """A call in the check, or in a helper of the check's module, is credited to the function; a context manager
    of a ``with`` statement is not (it sets up the computation)."""
    probe = Claim("numerics.zz_coverage_probe", "s", "s", "identity", _calls_via_helper)
    monkeypatch.setitem(registry.REGISTRY, probe.id, probe)
    monkeypatch.setattr(registry, "load_all", lambda: registry.REGISTRY)
    coverage.claims_naming.cache_clear()
    try:
        naming = coverage.claims_naming()
        assert probe.id in naming["dynamics.linear_networks.mode_strength"]
        assert probe.id not in naming["dynamics.numerics.one_thread"]
    finally:
        coverage.claims_naming.cache_clear()
