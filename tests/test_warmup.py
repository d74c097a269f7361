"""``python -m dynamics.warmup``: runs the examples of the modules it lists and says how many raised."""
from dynamics import warmup


def test_main_runs_the_examples_and_reports(monkeypatch, capsys):
    monkeypatch.setattr(warmup, "example_modules", lambda: ["dynamics.numerics.special", "dynamics.numerics.ode"])
    assert warmup.main(["--quiet"]) == 0
    assert "examples run" in capsys.readouterr().err


def test_an_example_that_raises_is_counted(monkeypatch):
    import types, sys

    module = types.ModuleType("dynamics._broken_for_test")
    module.__doc__ = ">>> 1 / 0\n"
    monkeypatch.setitem(sys.modules, module.__name__, module)
    report = warmup.warm_up([module.__name__], progress=False)
    assert (report.examples, report.failed) == (1, 1)
