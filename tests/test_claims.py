"""Every registered claim, run under pytest (slow ones carry the ``slow`` marker), and every stochastic claim
again under other seeds: the fast ones at two further offsets, the slow ones once at a non-zero offset (a
tolerance derived from the standard error must hold for any seed, not only for the default one).

A claim that needs a missing optional module (torch) is skipped outside CI and fails under CI. The theories
are read from the registry, :mod:`dynamics.theories`.
"""
import pytest

from dynamics.theories import CORE, THEORIES as REGISTERED
from verify import registry

CLAIMS = sorted(registry.load_all().values(), key=lambda c: c.id)
THEORIES = {t.id for t in (CORE,) + REGISTERED}


@pytest.mark.parametrize(
    "claim", [pytest.param(c, id=c.id, marks=[pytest.mark.slow] if c.cost == "slow" else []) for c in CLAIMS])
def test_claim(claim):
    missing = registry.missing_needs(claim)
    if missing and not registry.in_ci():
        pytest.skip(f"needs {', '.join(missing)}")
    result = registry.run_claim(claim)
    assert result.passed, (f"{claim.id} [{result.verdict}] measured {result.measured:.3g} vs {result.comparison} "
                           f"{result.tolerance:.3g}: {result.detail}")


SWEEP = [pytest.param(c, offset, id=f"{c.id}@{offset}", marks=[pytest.mark.slow] if c.cost == "slow" else [])
         for c in CLAIMS if c.takes_context for offset in ((3,) if c.cost == "slow" else (1, 2))]


@pytest.mark.parametrize("claim, offset", SWEEP)
def test_stochastic_claim_holds_for_other_seeds(claim, offset):
    missing = registry.missing_needs(claim)
    if missing and not registry.in_ci():
        pytest.skip(f"needs {', '.join(missing)}")
    result = registry.run_claim(claim, registry.RunContext(seed_offset=offset))
    assert result.seed_offset == offset
    assert result.passed, (f"{claim.id} at seed offset {offset} [{result.verdict}] measured {result.measured:.3g} "
                           f"vs {result.comparison} {result.tolerance:.3g}: {result.detail}")


def test_claim_metadata_is_complete():
    for c in CLAIMS:
        assert c.kind in registry.KINDS and c.cost in registry.COSTS, c.id
        assert c.statement.strip() and c.source.strip(), c.id
        assert c.theory in THEORIES, c.id
        if c.kind in registry.TORCH_KINDS:
            assert "torch" in c.needs and c.takes_context, c.id
        if c.kind == "erratum":
            assert c.printed.strip() and c.corrected.strip(), c.id


def test_every_theory_has_claims():
    assert THEORIES <= {c.theory for c in CLAIMS}


def test_numerics_claims_required_by_the_foundation_are_registered():
    ids = {c.id for c in CLAIMS}
    assert {"numerics.dopri5_order", "numerics.dop853_order", "numerics.ode_matches_solve_ivp",
            "numerics.lambertw_identity", "numerics.lambertw_vs_scipy", "numerics.rosenbrock23_order",
            "numerics.rosenbrock23_stiff"} <= ids


def test_errata_document_lists_every_erratum_claim():
    """The errata page is generated (``python -m verify --slow --docs docs/claims``); regenerate it when an erratum
    claim is added or renamed."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "claims" / "errata.md").read_text()
    listed = {line.split("`")[1] for line in text.splitlines() if line.startswith("### `")}
    assert listed == {c.id for c in CLAIMS if c.kind == "erratum"}


@pytest.mark.parametrize("theory_id", [t.id for t in (CORE,) + REGISTERED])
def test_claims_cite_their_source_by_a_registered_work(theory_id):
    """A claim's source is a citation a reader can look up: it starts with the key of a work in the theory registry
    (``"Saxe et al. 2014, Eq. 7"``, ``"Pezeshki (thesis), Eq. 2.2.22"``), which the bibliography page lists in full,
    or says that the project derived it (``"derived in this project"``)."""
    from dynamics.theories import sources

    keys = tuple(s.key for s in sources()) + ("derived in this project",)
    bad = [f"{c.id}: {c.source!r}" for c in registry.REGISTRY.values()
           if c.theory == theory_id and not c.source.startswith(keys)]
    assert not bad, f"claims whose source is not a registered work ({', '.join(keys)}):\n" + "\n".join(bad)
