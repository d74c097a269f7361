"""The symbolic layer's bookkeeping: every closed form that a symbolic claim checks is listed on the derivations page,
each symbolic claim is shown to be an independent route (a planted slip in the library and one in the symbolic
statement both make it fail), and every erratum is either shown symbolically or says why it cannot be."""
import pytest
import sympy

from verify import registry
from verify.coverage import claims_naming, public_names
from verify.errata import symbolic_counterparts, without_symbolic_form
from verify.symbolic import derivation, derivations, simplified

CLAIMS = registry.load_all()
SYMBOLIC = sorted(c.id for c in CLAIMS.values() if ".symbolic_" in c.id)
DERIVATIONS = derivations()


def test_every_theory_lists_its_closed_forms():
    from dynamics.theories import CORE, THEORIES

    assert set(DERIVATIONS) == {t.id for t in (CORE,) + THEORIES}


@pytest.mark.parametrize("theory", sorted(DERIVATIONS))
def test_derivations_name_public_functions_and_symbolic_claims(theory):
    names = public_names()
    for entry in DERIVATIONS[theory]:
        for function in entry.functions:
            assert function.startswith(f"{theory}."), f"{function} listed under {theory}"
            assert f"dynamics.{function}" in names, f"{function} is not a public function"
        if entry.claim is not None:
            assert entry.claim in SYMBOLIC and entry.claim.startswith(f"{theory}."), entry.claim


@pytest.mark.parametrize("claim_id", SYMBOLIC)
def test_every_symbolic_claim_checks_a_listed_closed_form(claim_id):
    """The claim appears in its theory's list, and every public function it names is listed there too (the list is
    the derivations page's coverage table, so nothing a symbolic claim checks is left off it)."""
    theory = claim_id.split(".")[0]
    entries = DERIVATIONS.get(theory, [])
    assert any(e.claim == claim_id for e in entries), f"{claim_id} checks no listed closed form"
    listed = {f for e in entries for f in e.functions}
    named = {full.split(".", 1)[1] for full, ids in claims_naming().items() if claim_id in ids}
    missing = sorted(f for f in named if f.startswith(f"{theory}.") and f not in listed)
    assert not missing, f"{claim_id} names {missing}, which its theory's DERIVATIONS does not list"


@pytest.mark.parametrize("claim_id", SYMBOLIC)
def test_every_symbolic_claim_catches_a_slip_in_the_library_and_in_its_statement(claim_id):
    """Two planted bugs name the claim: one in ``dynamics`` (the library's formula) and one in ``verify`` (the
    symbolic statement). ``tests/test_mutations.py`` plants them and asserts that the claim fails."""
    paths = [m.path for m in registry.PLANTED_BUGS.values() if claim_id in m.claims]
    assert any(p.startswith("dynamics/") for p in paths), f"{claim_id}: no planted slip in the library"
    assert any(p.startswith("verify/") for p in paths), f"{claim_id}: no planted slip in its symbolic statement"


def test_every_erratum_is_shown_symbolically_or_says_why_not():
    errata = {c.id for c in CLAIMS.values() if c.kind == "erratum"}
    shown, not_algebraic = symbolic_counterparts(), without_symbolic_form()
    assert not set(shown) & set(not_algebraic), "an erratum both shown and declared without a symbolic form"
    assert set(shown) | set(not_algebraic) <= errata
    assert all(s in SYMBOLIC for s in shown.values())
    assert all(len(why) > 20 for why in not_algebraic.values())
    missing = sorted(errata - set(shown) - set(not_algebraic))
    assert not missing, f"errata neither shown symbolically nor declared without a symbolic form: {missing}"


@pytest.mark.parametrize("bad, message", [
    (dict(functions="sgd", relation="x", check="exact", claim="a.b", source="s"), "theory.function"),
    (dict(functions="a.f", relation="x", check="proof", claim="a.b", source="s"), "check must be one of"),
    (dict(functions="a.f", relation="x", check="exact", source="s"), "claim is required"),
    (dict(functions="a.f", relation="x", check="none", claim="a.b", source="s", note="why"), "claim is required"),
    (dict(functions="a.f", relation="x", check="algorithm", claim="a.b", source="s", note="why"), "claim is required"),
    (dict(functions="a.f", relation="$x$", check="exact", claim="a.b", source="s"), "dollar"),
    (dict(functions="a.f", relation="x", check="series", claim="a.b", source="s"), "needs a note"),
    (dict(functions="a.f", relation="x", check="exact", claim="a.b", source="derived in this project"), "derivation"),
])
def test_derivation_refuses_incomplete_entries(bad, message):
    with pytest.raises(ValueError, match=message):
        derivation(**bad)


def test_the_simplification_cache_is_keyed_by_the_whole_expression(monkeypatch, tmp_path):
    """A warm entry is reused only for the same expression: a changed statement (a planted slip) is recomputed."""
    monkeypatch.setenv("LD_SYMPY_CACHE", str(tmp_path))
    x = sympy.Symbol("x", positive=True)
    calls = []
    real = sympy.simplify
    counting = lambda e, *a, **k: calls.append(e) or real(e, *a, **k)  # noqa: E731
    import verify.symbolic as symbolic

    sympy.Add  # noqa: B018  (a lazy stand-in copies sympy's namespace on first use: patch it after that)
    symbolic.sp.Add  # noqa: B018
    for module in {id(sympy): sympy, id(symbolic.sp): symbolic.sp}.values():
        monkeypatch.setattr(module, "simplify", counting)
    assert simplified(sympy.exp(sympy.log(x)) - x) == 0
    assert simplified(sympy.exp(sympy.log(x)) - x) == 0
    assert len(calls) == 1 and len(list(tmp_path.glob("*/*.txt"))) == 1
    assert simplified(sympy.exp(sympy.log(x)) - 2 * x) == -x
    assert len(calls) == 2
    next(tmp_path.glob("*/*.txt")).write_text("Add(")  # a corrupt entry is recomputed, not trusted
    assert simplified(sympy.exp(sympy.log(x)) - x) == 0 and len(calls) == 3


def test_derivations_page_counts_and_links(monkeypatch):
    from verify.pages import derivations_document

    page = derivations_document([])
    forms = sum(e.check != "algorithm" for v in DERIVATIONS.values() for e in v)
    algorithms = sum(e.check == "algorithm" for v in DERIVATIONS.values() for e in v)
    assert f"| **all** | **{forms}** |" in page and page.split("| **all** |")[1].split("\n")[0].endswith(
        f"**{algorithms}** |")
    entry = DERIVATIONS["spherical"][0]
    assert f"{{func}}`dynamics.{entry.functions[0]}`" in page
    assert f"<claim-{entry.claim}>" in page
