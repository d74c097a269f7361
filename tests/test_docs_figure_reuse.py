"""The docs build takes the figures that ``python -m figures --all`` rendered into ``figures_out/`` when they are
newer than every source and record (``docs/_ext/ld_pages.py``), and renders the others: a stale figure is never
copied into the gallery."""
import importlib.util
import os
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _ld_pages():
    found = importlib.util.spec_from_file_location("ld_pages_under_test", ROOT / "docs" / "_ext" / "ld_pages.py")
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


def test_fresh_rendered_figures_are_copied_and_stale_ones_rendered(tmp_path, monkeypatch):
    pages = _ld_pages()
    rendered, gallery = tmp_path / "figures_out", tmp_path / "gallery"
    rendered.mkdir()
    newest = pages._newest_source()
    entries = [types.SimpleNamespace(id=f"theory.{name}", filename=f"theory_{name}") for name in ("fresh", "stale",
                                                                                                  "half", "absent")]
    for name, age in (("fresh", +60), ("stale", -60), ("half", +60)):
        for suffix in ("png", "pdf"):
            path = rendered / f"theory_{name}.{suffix}"
            path.write_bytes(f"{name}.{suffix}".encode())
            os.utime(path, (newest + age, newest + age))
    (rendered / "theory_half.pdf").unlink()  # a figure without its PDF is rendered again
    monkeypatch.setenv("LD_DOCS_FIGURES_FROM", str(rendered))
    left = pages._reuse_rendered(entries, gallery, [e.id for e in entries])
    assert left == ["theory.stale", "theory.half", "theory.absent"]
    assert sorted(p.name for p in gallery.iterdir()) == ["theory_fresh.pdf", "theory_fresh.png"]
    assert (gallery / "theory_fresh.png").read_bytes() == b"fresh.png"
    monkeypatch.setenv("LD_DOCS_FIGURES_FROM", str(tmp_path / "nowhere"))
    assert pages._reuse_rendered(entries, gallery, ["theory.fresh"]) == ["theory.fresh"]


def test_a_gallery_image_older_than_a_source_change_is_drawn_again(tmp_path, monkeypatch):
    """An incremental build once kept a gallery image drawn before its figure's code changed; now an image is
    current only when it is newer than every source file and record."""
    pages = _ld_pages()
    newest = pages._newest_source()
    entries = [types.SimpleNamespace(id=f"theory.{name}", filename=f"theory_{name}") for name in ("new", "old")]
    for name, age in (("new", +60), ("old", -60)):
        path = tmp_path / f"theory_{name}.png"
        path.write_bytes(b"png")
        os.utime(path, (newest + age, newest + age))
    drawn = []
    import figures.registry

    monkeypatch.setattr(figures.registry, "render_many",
                        lambda ids, folder, jobs, progress: drawn.extend(ids) or iter(()))
    monkeypatch.setenv("LD_DOCS_FIGURES_FROM", str(tmp_path / "nowhere"))
    monkeypatch.delenv("LD_DOCS_REFRESH_FIGURES", raising=False)
    monkeypatch.delenv("LD_DOCS_FIGURES", raising=False)
    pages._render_missing_figures(entries, tmp_path)
    assert drawn == ["theory.old"]
