"""The documentation pages that follow from the code, generated at the start of each build.

- ``api/``: one page per package of the theory registry (and its torch layer), listing every name of its
  ``__all__``; autosummary writes one page per name from its docstring.
- ``gallery/``: every registered figure with its caption, source and the code that makes it. Figures are
  rendered into ``gallery/_images`` and drawn again once a source file or record is newer than the image (set
  ``LD_DOCS_REFRESH_FIGURES=1`` to render them all again); a figure that
  ``python -m figures --all`` rendered into ``figures_out/`` after the last change of the code and the records is
  copied from there instead (``LD_DOCS_FIGURES_FROM`` names another folder).
- ``notebooks/``: the teaching notebooks, executed at their defaults by myst-nb.
- ``_generated/references.bib``: the bibliography, from the works the theory registry cites.
- ``_generated/theory_toctree.inc``: the theory notes in the registry's order, for ``theory/index.md``.
- ``_generated/citation.bib``, ``_generated/citation.inc``: the project's own BibTeX entry and plain citation,
  from ``CITATION.cff``, for ``citing.md``.
- ``_generated/reproduction_table.inc``: the reproduction table, from the committed records, for ``reproduction.md``.

Nothing here holds a list of theories: every list is read from :mod:`dynamics.theories` and the registries.
"""
import importlib
import inspect
import json
import os
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent


def _write(path, text):
    """Write ``text`` unless the file already holds it (an unchanged page is not rebuilt)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _title(text, underline="="):
    return f"{text}\n{underline * len(text)}\n"


def _kind(obj):
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "data"


def _torch_modules(theory_id):
    """The theory's torch layer, as the registry declares it (the architecture test holds it to the imports)."""
    from dynamics.theories import CORE, THEORIES

    entry = next(t for t in THEORIES + (CORE,) if t.id == theory_id)
    return sorted(f"{entry.package}.{name}" for name in entry.torch_modules)


_PAGES = set()  # the pages autosummary is asked to generate in this build


def _autosummary(module_name, names):
    module = importlib.import_module(module_name)
    groups = {"function": [], "class": [], "data": []}
    for name in names:
        groups[_kind(getattr(module, name))].append(name)
    _PAGES.update(f"{module_name}.{n}.rst" for kind in ("function", "class") for n in groups[kind])
    out = [f".. currentmodule:: {module_name}\n"]
    for kind, heading in (("function", "Functions"), ("class", "Classes and results")):
        if groups[kind]:
            out.append(f".. rubric:: {heading}\n\n.. autosummary::\n   :toctree: generated\n"
                       f"   :template: autosummary/{kind}.rst\n\n" + "".join(f"   {n}\n" for n in sorted(groups[kind])))
    if groups["data"]:  # constants: their value, not the docstring of their type
        out.append(".. rubric:: Constants\n")
        for name in sorted(groups["data"]):
            value = repr(getattr(module, name)).replace("\n", " ")
            value = value if len(value) <= 100 else value[:97] + "..."
            out.append(f".. py:data:: {name}\n   :value: {value}\n")
    return "\n".join(out)


def write_api_pages():
    from dynamics.theories import CORE, THEORIES

    index = [_title("API reference"),
             "Every public name of the library, one page each, generated from its docstring. Each theory is one "
             "package of :mod:`dynamics` with the same shape (see :doc:`../contributing`); its torch layer "
             "(the modules that import torch, which need the ``torch`` extra) is listed after the package's own "
             "names.\n",
             ".. py:module:: dynamics\n",
             ".. toctree::\n   :maxdepth: 1\n\n   registry\n"]
    for t in (CORE,) + THEORIES:
        index.append(f"   {t.id}\n")
        module = importlib.import_module(t.package)
        page = [_title(f"``{t.package}``: {t.title}"), f".. automodule:: {t.package}\n   :no-members:\n",
                _autosummary(t.package, module.__all__)]
        for torch_name in _torch_modules(t.id):
            try:
                torch_module = importlib.import_module(torch_name)
            except ImportError:  # pragma: no cover - the docs extra includes torch
                continue
            page.append("\n" + _title(f"Torch layer: ``{torch_name}``", "-"))
            page.append(f".. py:module:: {torch_name}\n")
            first = (inspect.getdoc(torch_module) or "").split("\n\n")[0]
            page.append(first + "\n")
            # a result type the package exports too is documented once, under the package
            own = [n for n in torch_module.__all__ if getattr(module, n, None) is not getattr(torch_module, n)]
            page.append(_autosummary(torch_name, own))
        _write(DOCS / "api" / f"{t.id}.rst", "\n".join(page))
    registry = [_title("Registries: theories, claims, figures, records"),
                "The theory registry names every theory once; claims and figures are registered with a decorator, "
                "and reproduction records are planned with :func:`verify.records.record_plan`.\n",
                ".. automodule:: dynamics.theories\n   :no-members:\n",
                _autosummary("dynamics.theories", ["theory", "theory_ids", "sources", "bibtex", "Theory", "Source",
                                                   "THEORIES", "CORE"]),
                ".. py:module:: dynamics.warmup\n\n" + (inspect.getdoc(importlib.import_module("dynamics.warmup"))
                                                       or "").split("\n\n")[0] + "\n",
                ".. py:module:: dynamics.lazy\n\n" + (inspect.getdoc(importlib.import_module("dynamics.lazy"))
                                                     or "").split("\n\n")[0] + "\n",
                _autosummary("dynamics.lazy", ["lazy_module"]),
                _autosummary("verify.registry", ["claim", "planted_bug", "Check", "RunContext"]),
                _autosummary("figures.registry", ["figure"]),
                "\n" + _title("Reproduction records", "-"),
                ".. py:module:: dynamics.numerics.records\n\n"
                + (inspect.getdoc(importlib.import_module("dynamics.numerics.records")) or "").split("\n\n")[0] + "\n",
                _autosummary("dynamics.numerics.records", importlib.import_module("dynamics.numerics.records").__all__),
                _autosummary("verify.records", ["record_plan", "RecordPlan", "Verdict", "make_record", "load_record",
                                                "reproduction_table"])]
    _write(DOCS / "api" / "registry.rst", "\n".join(registry))
    _write(DOCS / "api" / "index.rst", "\n".join(index))
    for stale in (DOCS / "api" / "generated").glob("*.rst"):  # names renamed or removed since the last build
        if stale.name not in _PAGES:
            stale.unlink()


def write_bibliography():
    from dynamics.theories import bibtex

    _write(DOCS / "_generated" / "references.bib", bibtex())


def write_citation():
    """``_generated/citation.bib`` and ``_generated/citation.inc``: the project's own BibTeX entry and its plain
    citation, read from CITATION.cff (its title, version, authors, licence and, where it gives them, the release date
    and the repository), for the cite-this page."""
    import yaml

    from dynamics import __version__

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    if str(cff["version"]) != __version__:
        raise ValueError(f"CITATION.cff gives version {cff['version']}, the package {__version__}: update CITATION.cff")
    names = [a["name"] if "name" in a else f"{a['family-names']}, {a['given-names']}" for a in cff["authors"]]
    year = str(cff["date-released"])[:4] if cff.get("date-released") else ""
    url = cff.get("repository-code") or cff.get("url") or ""
    fields = [("author", " and ".join("{" + n + "}" if "name" in a else n for n, a in zip(names, cff["authors"]))),
              ("title", "{" + cff["title"] + "}"), ("version", cff["version"]), ("license", cff["license"])]
    fields += [("year", year)] if year else []
    fields += [("url", url)] if url else []
    _write(DOCS / "_generated" / "citation.bib",
           "@software{learning_dynamics,\n" + ",\n".join(f"  {k} = {{{v}}}" for k, v in fields) + "\n}\n")
    plain = (f"{'; '.join(names)}{f' ({year})' if year else ''}. *{cff['title']}*, version {cff['version']} "
             f"[software], {cff['license']} licence.{f' <{url}>' if url else ''}")
    _write(DOCS / "_generated" / "citation.inc", plain + "\n")


def write_theory_toctree():
    """The theory notes in the registry's order (Saxe's linear networks first), the numerical methods last: the
    toctree that ``theory/index.md`` includes (a glob would order them alphabetically)."""
    from dynamics.theories import CORE, THEORIES

    names = [t.id for t in THEORIES + (CORE,) if (DOCS / "theory" / f"{t.id}.md").exists()]
    _write(DOCS / "_generated" / "theory_toctree.inc",
           "```{toctree}\n:maxdepth: 1\n\n" + "".join(f"{name}\n" for name in names) + "```\n")


def write_reproduction_table():
    """``_generated/reproduction_table.inc``: one row per planned reproduction record, read from the committed
    records (``records/*.json``), for ``reproduction.md``."""
    from verify.records import reproduction_table

    _write(DOCS / "_generated" / "reproduction_table.inc", reproduction_table())


def _newest_source():
    """The modification time of the newest Python file or record a figure is drawn from."""
    return max(path.stat().st_mtime for folder in ("dynamics", "figures", "records") for pattern in ("*.py", "*.json")
               for path in (ROOT / folder).rglob(pattern))


def _reuse_rendered(entries, image_dir, wanted):
    """Copy into ``image_dir`` the figures of ``wanted`` that ``python -m figures --all`` already rendered into
    ``LD_DOCS_FIGURES_FROM`` (default ``figures_out/``, the README's main job) after the newest source file and
    record changed, PNG and PDF, as ``render_many`` writes them for the gallery; return the ids still to render."""
    import shutil

    rendered = Path(os.environ.get("LD_DOCS_FIGURES_FROM", ROOT / "figures_out"))
    if not rendered.is_dir():
        return wanted
    newest = _newest_source()
    by_id = {s.id: s for s in entries}
    left = []
    for entry_id in wanted:
        files = [rendered / f"{by_id[entry_id].filename}.{suffix}" for suffix in ("png", "pdf")]
        if all(f.exists() and f.stat().st_mtime > newest for f in files):
            image_dir.mkdir(parents=True, exist_ok=True)
            for f in files:
                shutil.copy2(f, image_dir / f.name)
        else:
            left.append(entry_id)
    if len(left) < len(wanted):
        print(f"ld_pages: {len(wanted) - len(left)} figures taken from {rendered} (rendered after the last source "
              f"change)", file=sys.stderr)
    return left


def _render_missing_figures(entries, image_dir):
    from figures.registry import render_many

    if os.environ.get("LD_DOCS_FIGURES") == "skip":  # fast drafts of the text: the gallery shows no images
        return
    refresh = os.environ.get("LD_DOCS_REFRESH_FIGURES") == "1"
    newest = _newest_source()  # an image older than a source or record change may be stale: draw it again

    def current(entry):
        image = image_dir / f"{entry.filename}.png"
        return image.exists() and image.stat().st_mtime > newest

    missing = [s.id for s in entries if refresh or not current(s)]
    missing = _reuse_rendered(entries, image_dir, missing)
    if not missing:
        return
    from tqdm.auto import tqdm

    print(f"ld_pages: rendering {len(missing)} figures into {image_dir}", file=sys.stderr)
    for _ in render_many(missing, image_dir, jobs=int(os.environ.get("LD_DOCS_JOBS", "2")),
                         progress=lambda it: tqdm(it, total=len(missing), desc="figures", unit="figure")):
        pass


def write_gallery():
    from dynamics.theories import CORE, THEORIES
    from figures import registry

    entries = sorted(registry.load_all().values(), key=lambda s: s.id)
    image_dir = DOCS / "gallery" / "_images"
    _render_missing_figures(entries, image_dir)
    index = [_title("Figure gallery"),
             "Every figure of the project, regenerated from what the library computes by "
             "``python -m figures --all`` (PNG and PDF in ``figures_out/``). Each card shows the figure, the "
             "source figure or equation it reproduces, its caption and the function that draws it.\n",
             "```{toctree}\n:maxdepth: 1\n:hidden:\n\n"]
    theories = [t for t in (CORE,) + THEORIES if any(s.id.startswith(t.id + ".") for s in entries)]
    index[-1] += "".join(f"{t.id}\n" for t in theories) + "```\n"
    for t in theories:  # each card opens its figure's section (anchor) on the theory's gallery page
        own = [s for s in entries if s.id.startswith(t.id + ".")]
        index.append(f"## {t.title}\n\n::::{{grid}} 1 2 3 3\n:gutter: 2\n")
        page = [f"# Figures: {t.title}\n"]
        for s in own:
            anchor = s.id.replace(".", "-").replace("_", "-")
            index.append(f":::{{grid-item-card}} {s.id.split('.', 1)[1].replace('_', ' ')}\n:link: {anchor}\n"
                         f":link-type: ref\n:img-top: _images/{s.filename}.png\n\n{s.source}\n:::\n")
            module = inspect.getmodule(s.build)
            relative = Path(inspect.getsourcefile(s.build)).resolve().relative_to(ROOT)
            page.append(f"({anchor})=\n## `{s.id}`\n\n```{{image}} _images/{s.filename}.png\n:alt: {s.id}\n"
                        f":width: 100%\n```\n\n**Source:** {s.source}\n\n{s.caption}\n\n"
                        f"Regenerate it with `python -m figures {s.id}`. The code, from `{relative}` "
                        f"(module `{module.__name__}`):\n\n"
                        f"```{{literalinclude}} /../{relative}\n:language: python\n:pyobject: {s.build.__name__}\n"
                        f"```\n")
        index.append("::::\n")
        _write(DOCS / "gallery" / f"{t.id}.md", "\n".join(page))
    _write(DOCS / "gallery" / "index.md", "\n".join(index))


def write_notebooks():
    from dynamics.theories import THEORIES

    source = ROOT / "figures" / "demos"
    target = DOCS / "notebooks"
    target.mkdir(parents=True, exist_ok=True)
    names = [t.id for t in THEORIES if (source / f"{t.id}.ipynb").exists()]
    for name in names:
        # a lesson's link back to the index of the lessons: index.ipynb where the notebooks are served, this
        # section's index page on the site
        text = (source / f"{name}.ipynb").read_text(encoding="utf-8").replace("](index.ipynb)", "](index.rst)")
        # links written as repository paths (figures/demos/ -> docs/...) point at the site's pages
        text = text.replace("](../../docs/", "](../")
        notebook = json.loads(text)
        # a download link for the notebook, under its title
        notebook["cells"].insert(1, {"cell_type": "markdown", "metadata": {}, "id": "download-link",
                                     "source": f"{{download}}`Download this notebook <{name}.ipynb>` and run it with "
                                               f"Jupyter or `python -m figures --demo {name}` for every setting. On "
                                               f"this page no Python runs: each figure was precomputed when the site "
                                               f"was built, one control moved at a time from the defaults."})
        _write(target / f"{name}.ipynb", json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
    shots = [n for n in ["index"] + names if (DOCS / "_static" / "screenshots" / f"demo_{n}.png").exists()]
    page = [_title("Teaching notebooks"),
            "One lesson per theory, in teaching order: each demo opens with what it shows, then the figure and how "
            "to read it, steps to predict and then move the sliders (with buttons that set them up), and the idea "
            "with its maths and sources. The pages below show each notebook with its figures precomputed at the "
            "build (one control moved at a time from the defaults, no Python behind the page); each has a download "
            "link.\n",
            "To run them live (the sliders need a running Python), install the demos extra and serve them:\n",
            ".. code-block:: bash\n\n   pip install -e \".[demos]\"\n   python -m figures --demo            "
            "# serves an index of every demo (Voila)\n   python -m figures --demo starvation # opens one directly\n",
            "or open ``figures/demos/<name>.ipynb`` in Jupyter or JupyterLab.\n",
            ".. toctree::\n   :maxdepth: 1\n\n" + "".join(f"   {n}\n" for n in names)]
    if shots:
        page.append("Served demos as the browser test sees them, at 1366 x 768 (``tests/test_demos.py``; "
                    "``DEMO_SCREENSHOT_DIR=DIR`` keeps them):\n")
        page += [f".. image:: ../_static/screenshots/demo_{n}.png\n   :alt: {'the index of the demos' if n == 'index' else f'the {n} demo'} served by Voila\n"
                 f"   :width: 49%\n" for n in shots]
    _write(target / "index.rst", "\n".join(page))


_LITERAL = re.compile(r"(``.*?``|:[a-z:]+:`[^`]*`|`[^`]*`_?)")


def escape_docstring(app, what, name, obj, options, lines):
    """Docstrings are written for ``help()`` as well as for the site: an absolute value ``|x|`` is text there, a
    substitution to reStructuredText. Escape ``|`` outside literals, roles, doctest lines and literal blocks."""
    literal_indent = None
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if literal_indent is not None:
            if stripped and indent <= literal_indent:
                literal_indent = None
            else:
                continue
        if stripped.startswith((">>>", "...", "| ", "+-")) or "|" not in line:
            if line.rstrip().endswith("::"):
                literal_indent = indent
            continue
        parts = _LITERAL.split(line)
        lines[i] = "".join(p if k % 2 else p.replace("|", "\\|") for k, p in enumerate(parts))
        if line.rstrip().endswith("::"):
            literal_indent = indent


def _package(full_name):
    """``dynamics.<theory>`` (or ``dynamics.numerics``) of a documented name."""
    return ".".join(full_name.split(".")[:2])


def _sources_cited(text):
    """The theories' sources whose citation key (``Saxe et al. 2014``, ``Pezeshki (thesis)``) a text names."""
    from dynamics.theories import sources

    return [source for source in sources() if source.key in text]


def reference_sections(app, what, name, obj, options, lines):
    """A function's page ends with three sections, after numpydoc has turned the docstring into
    reStructuredText:

    * **References**: the sources its docstring cites (else its module's), linked to the bibliography;
    * **See also**: up to three functions of its package that the most claims call together with it;
    * **Claims that call it** (:func:`verify.coverage.claims_naming`), each linked to its entry on the claims pages.
    """
    if what != "function":
        return
    from verify.coverage import claims_naming

    naming = claims_naming()
    cited = _sources_cited(inspect.getdoc(obj) or "") or _sources_cited(
        inspect.getdoc(inspect.getmodule(obj)) or "")
    if cited:
        lines += ["", ".. rubric:: References", ""] + [f"* :cite:t:`{source.bibkey}`" for source in cited] + [""]
    ids = set(naming.get(name, ()))
    together = {}
    for other, claims in naming.items():
        if other != name and _package(other) == _package(name) and ids & set(claims):
            together[other] = len(ids & set(claims))
    related = sorted(together, key=lambda other: (-together[other], other))[:3]
    if related:  # named from the package down, so that a torch module's namesake reads apart from the package's
        lines += ["", ".. rubric:: See also", ""] + [
            f"* :func:`{other[len(_package(other)) + 1:]} <{other}>`" for other in related] + [""]
    if ids:
        lines += ["", ".. rubric:: Claims that call it", "",
                  ", ".join(f":ref:`{claim} <claim-{claim}>`" for claim in naming[name]), ""]


_PUBLIC_CLASSES = {}


def _public_classes():
    """{class name: [documented full names]} of :func:`verify.coverage.public_names`."""
    if not _PUBLIC_CLASSES:
        from verify.coverage import public_names

        for full, obj in public_names().items():
            if inspect.isclass(obj):
                _PUBLIC_CLASSES.setdefault(full.rsplit(".", 1)[1], []).append(full)
    return _PUBLIC_CLASSES


def link_return_types(app, what, name, obj, options, lines):
    """A function's Returns section names its result class as a link to the class's page: the documented name in
    the function's own module or package, else the only one. Runs after numpydoc (whose type lines are indented
    four spaces under ``:Returns:``)."""
    if what != "function" or ":Returns:" not in lines:
        return
    classes = _public_classes()
    module = name.rsplit(".", 1)[0]

    def link(match):
        owners = classes.get(match.group(0), [])
        near = [full for full in owners if full.rsplit(".", 1)[0] in (module, module.rsplit(".", 1)[0])]
        target = near[0] if near else owners[0] if len(owners) == 1 else None
        return f":class:`~{target}`" if target else match.group(0)

    for i in range(lines.index(":Returns:") + 1, len(lines)):
        line = lines[i]
        if line.startswith((":", ".. ")):
            break
        if line.startswith("    ") and not line.startswith("     "):  # a type line, not its description
            lines[i] = re.sub(r"(?<![`.\w])[A-Z]\w+(?![`\w])", link, line)


_DESCRIBED_FIELDS = set()


def _described_fields():
    """The ids of the field accessors of every public named result whose docstring describes its fields in an
    Attributes section."""
    if not _DESCRIBED_FIELDS:
        from verify.coverage import public_names

        for obj in public_names().values():
            if inspect.isclass(obj) and hasattr(obj, "_fields") and re.search(r"^Attributes\n-+$",
                                                                             inspect.getdoc(obj) or "", re.M):
                _DESCRIBED_FIELDS.update(id(vars(obj)[f]) for f in obj._fields if f in vars(obj))
    return _DESCRIBED_FIELDS


def skip_described_fields(app, what, name, obj, skip, options):
    """Leave out a named result's "Alias for field number N" entries when its Attributes section already
    describes the fields (they repeated each field without a word of its own)."""
    if what == "class" and id(obj) in _described_fields():
        return True
    return None


def resolve_unqualified(app, env, node, contnode):
    """A Python reference that Sphinx cannot resolve from the current module (``:func:`spherical_step``` in a
    torch module, a name given by its private module) resolves to the one public object with that name.
    A name that matches no object, or several, still fails the build."""
    if node.get("refdomain") != "py":
        return None
    domain = env.get_domain("py")
    target = node["reftarget"].lstrip("~.")
    last = target.rsplit(".", 1)[-1]
    suffix = "." + (last if "._" in target else target)
    candidates = {name for name in domain.objects if name.endswith(suffix) and "._" not in name}
    if len(candidates) != 1:
        return None
    return domain.resolve_xref(env, node.get("refdoc", ""), app.builder, "obj", candidates.pop(), node, contnode)


def generate(app=None, config=None):
    write_bibliography()
    write_citation()
    write_theory_toctree()
    write_reproduction_table()
    write_api_pages()
    write_gallery()
    write_notebooks()


def setup(app):
    app.connect("config-inited", generate)
    app.connect("autodoc-process-docstring", escape_docstring)
    app.connect("autodoc-process-docstring", reference_sections, priority=900)  # after numpydoc (500)
    app.connect("autodoc-process-docstring", link_return_types, priority=900)
    app.connect("autodoc-skip-member", skip_described_fields)
    app.connect("missing-reference", resolve_unqualified)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
