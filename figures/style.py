"""The shared look of every figure, and the progress bar for long sweeps."""
from contextlib import contextmanager

from dynamics.lazy import lazy_module

matplotlib = lazy_module("matplotlib")  # imported at the first figure: python -m figures --list draws none

# A sequential palette for families of curves (darker = later / larger), and a qualitative one.
SEQUENTIAL = "viridis"
COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")

RC = {
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.25,
    "lines.linewidth": 1.6,
    "pdf.fonttype": 42,
}


@contextmanager
def style_context():
    with matplotlib.rc_context(dict(RC, **{"axes.prop_cycle": matplotlib.cycler(color=COLORS)})):
        yield


def new_figure(nrows=1, ncols=1, width=None, height=None, **subplot_kw):
    """A Figure (no pyplot state, no GUI backend) and its axes; 3.4 x 3 inches per panel by default."""
    width = width or 3.4 * ncols
    height = height or 3.0 * nrows
    from matplotlib.figure import Figure

    with style_context():
        fig = Figure(figsize=(width, height), layout="constrained")
        axes = fig.subplots(nrows, ncols, squeeze=True, **subplot_kw)
    return fig, axes


def seed_band(ax, x, runs, color, style="-", **plot_kw):
    """Draw runs over seeds (array (seeds, len(x))) as their range, a light band, and their mean, a line in
    ``style`` (keywords go to the line); return the line."""
    ax.fill_between(x, runs.min(axis=0), runs.max(axis=0), color=color, alpha=0.2, lw=0)
    return ax.plot(x, runs.mean(axis=0), style, color=color, **plot_kw)[0]


def progress(iterable, desc, total=None):
    """A tqdm progress bar on stderr for a long sweep (silent when stderr is not a terminal)."""
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, total=total, leave=False, disable=None)
