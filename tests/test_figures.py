"""Every registered figure renders to PNG and PDF (with its ``quick`` overrides where a full rendering trains many
networks); the CLI lists, renders and writes a gallery. That each figure plots the data its ``dynamics`` calls
return is tested per theory (tests/test_<theory>_figures.py)."""
import pytest

from figures import registry
from figures.__main__ import main

ENTRIES = sorted(registry.load_all().values(), key=lambda s: s.id)


@pytest.mark.slow
@pytest.mark.parametrize("entry", ENTRIES, ids=[s.id for s in ENTRIES])
def test_figure_renders(entry, tmp_path):
    paths, _ = registry.render(entry, tmp_path, quick=True)
    for path in paths:
        assert path.stat().st_size > 1000, path
    assert entry.caption.strip() and entry.source.strip()


def test_cli_list_render_and_gallery(tmp_path, capsys):
    assert main(["--list"]) == 0
    assert "numerics.ode_convergence" in capsys.readouterr().out
    assert main(["numerics.ode_convergence", "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "numerics__ode_convergence.png").exists()
    assert (tmp_path / "out" / "numerics__ode_convergence.pdf").exists()
    assert main(["numerics.*", "--gallery", str(tmp_path / "gal")]) == 0
    page = (tmp_path / "gal" / "index.html").read_text()
    assert "numerics__ode_convergence.png" in page and "work–precision" in page


def test_cli_rejects_unknown_figure(tmp_path):
    with pytest.raises(SystemExit):
        main(["no.such_figure", "--out", str(tmp_path)])
