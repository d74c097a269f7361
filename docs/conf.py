"""Sphinx configuration of the learning-dynamics documentation.

Build (offline; warnings and broken references are errors)::

    python -m sphinx -W -n --keep-going -b html docs docs/_build/html

The pages that follow from the code are generated at the start of the build by ``docs/_ext/ld_pages.py``: the API
reference (from every package's ``__all__``), the figure gallery (from the figure registry; figures are rendered
once into ``docs/gallery/_images``), the teaching notebooks and the bibliography (from the theory registry). The
claims and errata pages are written by ``python -m verify --docs docs/claims``, which runs the claims.
"""
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")
# The executed notebooks and recipes inherit this: a build from a cold numba cache would otherwise print the
# first-use compile notice into the static pages, where a reader has nothing to compile.
os.environ.setdefault("DYNAMICS_COMPILE_NOTICE", "0")
# the teaching notebooks, executed by myst-nb, add a player of precomputed frames to each demo's output
os.environ.setdefault("LD_STATIC_DEMOS", "1")

import dynamics  # noqa: E402

project = "learning-dynamics"
author = "the learning-dynamics developers"
copyright = "2026, the learning-dynamics developers"
release = version = dynamics.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
    "sphinx_gallery.gen_gallery",
    "sphinxcontrib.bibtex",
    "sphinx-mathjax-offline",  # MathJax 3 copied into _static: maths renders without network access
    "sphinx_design",
    "ld_pages",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "recipes/GALLERY_HEADER.rst", "**.ipynb_checkpoints", "recipes/*.py", "auto_recipes/*.ipynb",
                    "auto_recipes/*.py", "auto_recipes/*.zip", "sg_execution_times.rst", "_static"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
nitpicky = True
# Types from other projects: no intersphinx (the build runs offline), so these stay plain text.
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|matplotlib|torch|numba|typing|collections|numpy\.typing|ipywidgets|joblib)(\..*)?"),
    (r"py:.*", r"(ArrayLike|NDArray|Callable|Sequence|Iterable|Iterator|Optional|Union|Tuple|Dict|List|Mapping|Any)"),
    (r"py:class", r"(array|array_like|array-like|ndarray|tensor|Tensor|Module|Optimizer|Figure|Axes|Generator)"),
    (r"py:class", r"(optional|default .*|shape .*|\(.*\)|.* of .*|.* or .*|callable|function|dict|mapping)"),
    (r"py:class", r"(float|int|bool|str|tuple|list|complex|None|object|type|slice|bytes|Path|path-like)"),
]

# autodoc / autosummary / numpydoc
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # the numpydoc Parameters section states the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

# MyST and notebooks
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist", "substitution"]
myst_heading_anchors = 3
nb_execution_mode = "force"  # the teaching notebooks run once at their defaults; a failure breaks the build
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
# A demo's output carries the live widget, a PNG of its figure and, in this build (LD_STATIC_DEMOS, set above), the
# precomputed player (figures.interactive.Demo.static_html): the static site shows the player, else the PNG.
nb_mime_priority_overrides = [("html", "text/html", 0), ("html", "image/png", 1),
                              ("html", "application/vnd.jupyter.widget-view+json", None)]

# Recipes: sphinx-gallery runs every docs/recipes/plot_*.py during the build.
sphinx_gallery_conf = {
    "examples_dirs": ["recipes"],
    "gallery_dirs": ["auto_recipes"],
    "filename_pattern": r"/plot_",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "remove_config_comments": True,
    "download_all_examples": False,
    "plot_gallery": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "show_memory": False,
}

# Bibliography: generated from the theory registry by ld_pages.
bibtex_bibfiles = ["_generated/references.bib"]
bibtex_default_style = "plain"
bibtex_reference_style = "author_year"

# HTML
html_theme = "pydata_sphinx_theme"
html_title = f"learning-dynamics {release}"  # the version in every page title (the bar shows it as a badge)
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_js_files = ["ld-fit.js"]  # scales wide display equations to the column
html_search_scorer = str(HERE / "_static" / "ld-scorer.js")  # phrase-aware ranking, one result per page
html_theme_options = {
    # The project's name, then its version (``release``, the package's) as a badge: docs/_templates/navbar-version.html
    "logo": {"text": "learning-dynamics"},
    "navbar_start": ["navbar-logo", "navbar-version"],
    "navbar_align": "left",
    # The bar holds the first toctree of index.md up to the reproduction table (getting started, theory notes, API,
    # notebooks, claims, errata, reproduction); the recipes, gallery, reference and developer pages go under "More".
    # The search is the theme's icon (Ctrl+K), so that these seven fit on one line at 1280 px.
    "header_links_before_dropdown": 7,
    "navbar_persistent": ["search-button"],
    "navbar_end": ["theme-switcher"],
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    # sidebar-nav-ld is never empty (it falls back to the site's navigation): the theme need not render it to check
    "templates_skip_empty_check": ["sidebar-nav-bs.html", "navbar-nav.html", "sidebar-nav-ld.html"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
# The left column (docs/_templates/sidebar-nav-ld.html): the section's navigation where the page belongs to a
# section; on the top-level pages (getting started, glossary, errata, bibliography, ...), where the theme's section
# navigation is empty, the whole site's. The landing page keeps the full width for its cards.
html_sidebars = {"index": [], "**": ["sidebar-nav-ld"]}
html_show_sourcelink = False
html_last_updated_fmt = None
mathjax_path = "mathjax/tex-chtml.js"  # shipped locally by sphinx-mathjax-offline
