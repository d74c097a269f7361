"""The figure registry: one function per figure, registered with its id, source figure and caption.

A figure function takes no argument and returns a ``matplotlib.figure.Figure`` built from what
:mod:`dynamics` computes; it holds no theory. :func:`render` saves PNG and PDF; :func:`write_gallery`
writes an HTML page of every figure with its caption.
"""
import html
import importlib
import importlib.util
import time
from dataclasses import dataclass
from pathlib import Path

from .style import style_context

RECORDS = Path(__file__).resolve().parents[1] / "records"


@dataclass(frozen=True)
class FigureSpec:
    id: str
    source: str
    caption: str
    build: callable
    quick: dict = None  # cheaper keyword overrides for the test suite (the figure's code path, a smaller sweep)

    @property
    def filename(self):
        return self.id.replace(".", "__")


REGISTRY = {}


def figure(id, source, caption, quick=None):
    """Register the decorated function, which returns a matplotlib Figure when called without arguments.

    Its keyword parameters default to the source's values. ``quick`` names cheaper keyword overrides for a
    figure whose full rendering trains many networks: the test suite renders ``build(**quick)`` (the same code
    path on a smaller sweep); ``python -m figures`` always renders the full figure.
    """
    if "." not in id or " " in id:
        raise ValueError(f"id must look like 'theory.short_name', got {id!r}")
    from dynamics.theories import theory

    theory(id.split(".", 1)[0])  # the prefix names a registered theory (or the numerics core)

    def register(fn):
        if id in REGISTRY and REGISTRY[id].build.__qualname__ != fn.__qualname__:
            raise ValueError(f"figure id {id!r} registered twice")
        REGISTRY[id] = FigureSpec(id, source, caption, fn, dict(quick) if quick else None)
        return fn

    return register


def record(name):
    """The committed reproduction record ``name`` (``records/<name>.json``, made by ``python -m verify --record
    NAME``), read and hash-checked by :func:`dynamics.numerics.records.read_record`. A figure of an experiment draws
    its record instead of training again."""
    from dynamics.numerics.records import read_record

    path = RECORDS / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"no record {path}: run python -m verify --record {name}")
    return read_record(path)


def verdict_line(fig, verdict, reduced):
    """Print a record's verdict under the figure: "reproduced: ...", "partly reproduced: ..." or "not reproduced:
    ...", and what the record reduced from the source."""
    status, text = verdict
    fig.text(0.5, -0.01, f"{status}: {text}\nrecord size: {reduced}", ha="center", va="top", fontsize=7.5,
             wrap=True, color="k" if status == "reproduced" else "#B00020")


def verdict_lines(fig, verdicts):
    """Print several records' verdicts under one figure, one line each: ``[(what, verdict), ...]`` as "what —
    status: text" (red unless every record is reproduced); each record's size is in the figure's caption."""
    import textwrap

    width = int(fig.get_figwidth() * 16)  # characters of 7.5-point text per line across the figure
    text = "\n".join(textwrap.fill(f"{what}: {status}: {line}", width) for what, (status, line) in verdicts)
    fig.text(0.5, -0.01, text, ha="center", va="top", fontsize=7.5,
             color="k" if all(status == "reproduced" for _, (status, _) in verdicts) else "#B00020")


def figure_modules():
    """The figures modules, read from the theory registry (:mod:`dynamics.theories`): ``figures.numerics`` for the
    numerics core, then ``figures.<id>`` for each theory that has one."""
    from dynamics.theories import CORE, THEORIES

    return [f"figures.{t.id}" for t in (CORE,) + THEORIES if importlib.util.find_spec(f"figures.{t.id}") is not None]


def load_all():
    """Import every figures module of the registered theories (:func:`figure_modules`); return the registry."""
    for name in figure_modules():
        importlib.import_module(name)
    return REGISTRY


def get(id):
    entries = load_all()
    if id not in entries:
        raise KeyError(f"no figure {id!r}; known: {', '.join(sorted(entries))}")
    return entries[id]


def render(entry, out_dir, formats=("png", "pdf"), dpi=150, quick=False):
    """Build one figure (with its ``quick`` overrides if asked) and save it as out_dir/<id with __ for
    dots>.<fmt>; return the paths and the seconds taken."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with style_context():
        fig = entry.build(**(entry.quick or {})) if quick else entry.build()
        paths = []
        for fmt in formats:
            path = out_dir / f"{entry.filename}.{fmt}"
            fig.savefig(path, dpi=dpi, bbox_inches="tight")
            paths.append(path)
    return paths, time.perf_counter() - start


def _render_by_id(entry_id, out_dir):
    """In a worker: render one figure by id (the worker imports the figure modules itself)."""
    paths, seconds = render(get(entry_id), out_dir)
    return entry_id, [str(p) for p in paths], seconds


def render_many(ids, out_dir, jobs=1, progress=None):
    """Render the figures ``ids`` into ``out_dir``; yields ``(id, paths, seconds)`` in the order of ``ids``.

    ``jobs`` > 1 (or -1: one per core) renders in joblib's loky worker processes, each limited to one BLAS and
    numba thread; the files are the same as a serial run's. ``progress`` wraps an iterable (e.g. a tqdm bar).
    """
    ids = list(ids)
    wrap = progress or (lambda iterable: iterable)
    if jobs == 1:
        from dynamics.numerics.threads import one_thread

        with one_thread():  # small matrices: a second thread only contends (as in the workers)
            for entry_id in wrap(ids):
                paths, seconds = render(get(entry_id), out_dir)
                yield entry_id, paths, seconds
        return
    from joblib import Parallel, delayed, parallel_config

    # the figures that train many networks (those with cheaper ``quick`` settings) start first, so that the short
    # ones fill the other workers instead of leaving one long job to run alone at the end
    expensive = sorted(ids, key=lambda entry_id: get(entry_id).quick is None)
    with parallel_config(backend="loky", n_jobs=jobs, inner_max_num_threads=1):
        done = {}
        tasks = (delayed(_render_by_id)(entry_id, str(out_dir)) for entry_id in expensive)
        for entry_id, paths, seconds in wrap(Parallel(return_as="generator_unordered")(tasks)):
            done[entry_id] = (entry_id, [Path(p) for p in paths], seconds)
        for entry_id in ids:
            yield done[entry_id]


def write_gallery(entries, out_dir):
    """An index.html in out_dir showing every figure's PNG with its id, source and caption."""
    out_dir = Path(out_dir)
    cards = []
    for entry in entries:
        cards.append(
            f'<figure id="{html.escape(entry.id)}"><a href="{entry.filename}.pdf">'
            f'<img src="{entry.filename}.png" alt="{html.escape(entry.id)}"></a>'
            f"<figcaption><code>{html.escape(entry.id)}</code> &mdash; <em>{html.escape(entry.source)}</em>"
            f"<br>{html.escape(entry.caption)}</figcaption></figure>")
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>learning-dynamics figures</title>
<style>body{{font-family:sans-serif;max-width:1200px;margin:auto;padding:1em}}
figure{{border-bottom:1px solid #ddd;padding:1em 0;margin:0}} img{{max-width:100%}}
figcaption{{font-size:0.95em;line-height:1.4}}</style></head>
<body><h1>Figures</h1><p>Regenerated by <code>python -m figures --gallery</code>. Click a figure for its PDF.</p>
{chr(10).join(cards)}
</body></html>
"""
    path = out_dir / "index.html"
    path.write_text(page, encoding="utf-8")
    return path
