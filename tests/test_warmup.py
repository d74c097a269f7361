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


def test_clear_kernel_cache_deletes_numba_files_only(monkeypatch, tmp_path):
    import types

    from dynamics import warmup

    package = tmp_path / "dynamics"
    (package / "numerics" / "__pycache__").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    kept = [package / "numerics" / "__pycache__" / "ode.cpython-311.pyc", package / "numerics" / "ode.py"]
    deleted = [package / "numerics" / "__pycache__" / name for name in ("ode.integrate-1.py311.nbi",
                                                                         "ode.integrate-1.py311.1.nbc")]
    for path in kept + deleted:
        path.write_text("x")
    monkeypatch.setattr(warmup, "dynamics", types.SimpleNamespace(__file__=str(package / "__init__.py")))
    import numba
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    assert warmup.clear_kernel_cache() == 2
    assert all(path.exists() for path in kept) and not any(path.exists() for path in deleted)
