"""The project stands alone: no text a user can read points at material a user cannot open.

The library was written from internal reference notes. Their section numbers, their item codes (a letter for
properties, errata, experiments, deviations and bound groups followed by a number, and two labels for the thesis and
the large-learning-rate paper) and the file names of the copies of the papers mean nothing to a user. Every tracked text file (code, docstrings, comments, notebooks, docs, README) cites the papers instead:
authors, year, equation, and the project's own documentation pages.
"""
import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEXT_SUFFIXES = {".py", ".md", ".rst", ".ipynb", ".toml", ".cff", ".txt", ".bib", ".cfg", ".yml", ".yaml", ".css",
                 ".html", ".json", ""}

FORBIDDEN = {
    "a reference to the internal notes": re.compile(r"\bs" + r"pec(?:s|ification)?\b", re.I),
    "a seed-file name of a copy of a paper": re.compile(r"\b\d{3}_[0-9a-f]{16}\b"),
    "an internal item code": re.compile(r"\b(?:[PEXDB]\d{1,2}|T" + r"H8|L" + r"LR)\b"),
}


def _user_files():
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split()
    for name in listed:
        path = ROOT / name
        if not path.is_file() or path.suffix not in TEXT_SUFFIXES:
            continue
        if name.startswith(("docs/_build", "docs/generated", "docs/auto_")) or "/." in "/" + name:
            continue
        yield name, path


def find_internal_references(text):
    """Every (what, match) of a forbidden pattern in ``text``."""
    return [(what, m.group(0)) for what, pattern in FORBIDDEN.items() for m in pattern.finditer(text)]


def test_the_patterns_catch_what_they_are_for():
    # the planted text is assembled, so that this file holds none of what it forbids
    codes = [letter + number for letter, number in zip("PEXDB", ("18", "13", "3", "7", "1"))] + ["T" + "H8", "L" + "LR"]
    seed_name = "001_" + "61c8f54ededf01e4"
    word = "s" + "pec"
    planted = f"see {word} §5.2 ({', '.join(codes)}); seed {seed_name}.txt"
    found = {m for _, m in find_internal_references(planted)}
    assert found == {word, *codes, seed_name}
    clean = "Saxe et al. (2014), Eq. 7; an L2 penalty; ruff's E731; a P100 GPU; Pezeshki et al. (2022), Eq. 4.2.5"
    assert find_internal_references(clean) == []


def _readable_text(name, path):
    """The text a user reads in a file: a reproduction record's text fields only (its arrays are data, and base64
    bytes spell item-code look-alikes by chance)."""
    text = path.read_text(encoding="utf-8")
    if name.startswith("records/") and name.endswith(".json"):
        record = json.loads(text)
        return "\n".join([record["name"], record["source"], record["trainer"], record["reduced"], *record["verdict"]])
    return text


def test_no_user_facing_text_cites_internal_material():
    offences = []
    for name, path in _user_files():
        try:
            text = _readable_text(name, path)
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for what, match in find_internal_references(line):
                offences.append(f"{name}:{number}: {match!r} ({what})")
    assert not offences, f"{len(offences)} references to internal material:\n" + "\n".join(offences[:200])
