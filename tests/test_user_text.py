"""The project stands alone: no text a user can read points at material a user cannot open.

The library was written from internal reference notes. Their section numbers, their item codes (properties P1…,
errata E1…, experiments X1…, deviations D1…, the spherical chapter's bound groups B1…, the labels TH8 and LLR for
the thesis and the large-learning-rate paper) and the file names of the copies of the papers mean nothing to a
user. Every tracked text file (code, docstrings, comments, notebooks, docs, README) cites the papers instead:
authors, year, equation, and the project's own documentation pages.
"""
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEXT_SUFFIXES = {".py", ".md", ".rst", ".ipynb", ".toml", ".cff", ".txt", ".bib", ".cfg", ".yml", ".yaml", ".css",
                 ".html", ".json", ""}

FORBIDDEN = {
    "a reference to the internal notes ('spec', 'specification')": re.compile(r"\bspec(?:s|ification)?\b", re.I),
    "a seed-file name of a copy of a paper": re.compile(r"\b\d{3}_[0-9a-f]{16}\b"),
    "an internal item code (P18, E13, X3, D7, B1, TH8, LLR, …)": re.compile(r"\b(?:[PEXDB]\d{1,2}|TH8|LLR)\b"),
}


def _user_files():
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split()
    this = Path(__file__).resolve()
    for name in listed:
        path = ROOT / name
        if path.resolve() == this or not path.is_file() or path.suffix not in TEXT_SUFFIXES:
            continue
        if name.startswith(("docs/_build", "docs/generated", "docs/auto_")) or "/." in "/" + name:
            continue
        yield name, path


def find_internal_references(text):
    """Every (what, match) of a forbidden pattern in ``text``."""
    return [(what, m.group(0)) for what, pattern in FORBIDDEN.items() for m in pattern.finditer(text)]


def test_the_patterns_catch_what_they_are_for():
    planted = "see spec §5.2 (P18, E13, X3, D7, B1; TH8 and LLR); seed 001_61c8f54ededf01e4.txt"
    found = {m for _, m in find_internal_references(planted)}
    assert found == {"spec", "P18", "E13", "X3", "D7", "B1", "TH8", "LLR", "001_61c8f54ededf01e4"}
    clean = "Saxe et al. (2014), Eq. 7; an L2 penalty; ruff's E731; a P100 GPU; Pezeshki et al. (2022), Eq. 4.2.5"
    assert find_internal_references(clean) == []


def test_no_user_facing_text_cites_internal_material():
    offences = []
    for name, path in _user_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for what, match in find_internal_references(line):
                offences.append(f"{name}:{number}: {match!r} ({what})")
    assert not offences, f"{len(offences)} references to internal material:\n" + "\n".join(offences[:200])
