"""Interactive figures for the teaching notebooks (``figures/demos/``): sliders wired to a computation and a plot.

A demo is two functions and a set of controls. ``compute(**values)`` calls :mod:`dynamics` only (it is timed:
``benchmarks/demo_latency.py`` reports how long a slider move takes). ``draw(fig)`` builds the figure once, in the
project's style (axes, labels, artists with no data yet), and returns ``update(data, **values)``, which puts new
data into those artists in place. A slider move therefore changes data, limits and texts, not the figure: the axes,
their ticks and the layout (solved once, by matplotlib's constrained layout, at the first values) are kept, so a
move costs one Agg redraw instead of a rebuild and a fresh layout, which took three quarters of a move before.

The figure is shown as a PNG in an ``ipywidgets.Image``, which Jupyter, JupyterLab, Voilà and Colab all display the
same way. Input outside a theory's domain shows the library's ``ValueError`` message under the figure instead of
breaking the demo, and a demo's ``check(**values)`` names settings that leave the range where its theory holds.

What a student sees of the controls: each slider has its label above it (log sliders say so), a one-line ``hint``
under it (what it is and what to watch), and a box beside it where a value can be typed. A typed value is read as a
number (``2.5``, ``1e-3``, ``10^-6``, ``3×10⁻⁴``) and refused, with the reason under the box, when it is not one
(``2,5``, ``abc``), not a whole number for an integer slider, or outside the slider's range: nothing is clamped
without a word. After a move a faint copy of the previous curves stays on the figure (a check box hides it), and
the figure is dimmed while it recomputes. ``Demo.setup_button`` gives a lesson's step a button that puts the
sliders where the step says, and ``Demo.step_buttons`` a row of them, which the static player of the documentation
site shows too, with each step's figure precomputed.

Examples
--------
>>> import numpy as np, ipywidgets as w
>>> from figures.interactive import Demo
>>> def draw(fig):
...     ax = fig.subplots()
...     line, = ax.plot([], [])
...     def update(y, slope):
...         line.set_data(np.arange(len(y)), y)
...         ax.set(xlim=(0, len(y) - 1), ylim=(0, max(1.0, y.max())), title=f"slope {slope:g}")
...     return update
>>> demo = Demo(compute=lambda slope: np.arange(5) * slope, draw=draw,
...             controls={"slope": w.FloatSlider(value=1.0, min=0.0, max=2.0)})
>>> axes = demo.figure.axes
>>> demo.update(slope=2.0)
>>> demo.values["slope"], len(demo.compute_seconds), demo.figure.axes == axes
(2.0, 2, True)
"""
import io
import time
from typing import Callable, Dict

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .style import style_context

__all__ = ["Demo", "log_slider", "slider", "choice", "demo_index", "format_value", "parse_value"]

# the number beside a slider can be typed into: give it the look of an input box
READOUT_STYLE = ("<style>.widget-readout { border: 1px solid #9aa0a6; border-radius: 3px; background: #fff; "
                 "padding: 0 4px; cursor: text; } .ld-busy { opacity: 0.45; transition: opacity 0.15s; } "
                 ".ld-value input { font-variant-numeric: tabular-nums; }</style>")
TRACE_ALPHA = 0.28  # the faint copy of the previous setting's curves
CONTROL_WIDTH = 320  # pixels of a labelled slider: its label above, the track and the editable number below


def _with_hint(control, hint):
    """Attach the one-line hint a demo shows under the control (what it is, what to watch)."""
    control.hint = hint or ""
    return control


def slider(value, low, high, step=None, description=None, integer=False, hint=None):
    """A horizontal slider (ipywidgets FloatSlider or IntSlider) that updates on release; ``description`` may hold
    LaTeX between dollar signs; ``hint`` is the one line shown under it."""
    import ipywidgets as w

    cls = w.IntSlider if integer else w.FloatSlider
    kwargs = dict(value=value, min=low, max=high, continuous_update=False, description=description or "",
                  style={"description_width": "initial"}, layout=w.Layout(width="100%"))
    if step is not None:
        kwargs["step"] = step
    return _with_hint(cls(**kwargs), hint)


def log_slider(value, low_exponent, high_exponent, description=None, step=0.05, hint=None):
    """A slider over 10**low_exponent .. 10**high_exponent (ipywidgets FloatLogSlider), updating on release; its
    label says "log scale"."""
    import ipywidgets as w

    return _with_hint(w.FloatLogSlider(value=value, base=10, min=low_exponent, max=high_exponent, step=step,
                                       continuous_update=False, description=description or "",
                                       style={"description_width": "initial"}, layout=w.Layout(width="100%")), hint)


def choice(options, value=None, description=None, hint=None):
    """A drop-down list (ipywidgets Dropdown) of options, or of ``(label, value)`` pairs; the first is selected
    unless ``value`` names another."""
    import ipywidgets as w

    options = list(options)
    if value is None:
        value = options[0][1] if isinstance(options[0], tuple) else options[0]
    return _with_hint(w.Dropdown(options=options, value=value, description=description or "",
                                 style={"description_width": "initial"}), hint)


_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_POWER_OF_TEN = __import__("re").compile(r"^(?:(?P<mantissa>[0-9]*\.?[0-9]+)\s*[×x*·]\s*)?10\s*\^\s*(?P<exponent>[-+]?[0-9]+)$")
_SUPERSCRIPT_RUN = __import__("re").compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")


def format_value(value, log=False) -> str:
    """A control's value as its box shows it: 4 significant digits; on a log slider, a power of ten below 1e-3
    or from 1e4 on, written as the figures write it (``10⁻⁶``, ``3×10⁻⁴``).

    Examples
    --------
    >>> format_value(0.25), format_value(12), format_value(1e-6, log=True), format_value(3e-4, log=True)
    ('0.25', '12', '10⁻⁶', '3×10⁻⁴')
    """
    import math

    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if log and value > 0 and not 1e-3 <= value < 1e4:
        exponent = math.floor(math.log10(value))
        mantissa = round(value / 10.0 ** exponent, 2)
        if mantissa >= 10:
            mantissa, exponent = mantissa / 10, exponent + 1
        power = "10" + str(exponent).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))
        return power if mantissa == 1 else f"{mantissa:g}×{power}"
    return f"{value:.4g}"


def _value_text(control, value) -> str:
    """A control's value as the static page writes it: a list's label for its value, else :func:`format_value`
    (powers of ten on a log slider)."""
    if hasattr(control, "options"):
        return str(dict((o[1], o[0]) if isinstance(o, tuple) else (o, o) for o in control.options)[value])
    return format_value(value, hasattr(control, "base"))


def parse_value(text, integer=False):
    """The number typed into a control's box, or a ValueError that says why it is refused.

    Accepts ``2.5``, ``1e-3``, ``10^-6``, ``10⁻⁶`` and ``3×10⁻⁴``; refuses a comma for the decimal point, text that is
    no number, and (for an integer control) a number with a fractional part.

    Examples
    --------
    >>> parse_value("1e3"), parse_value("10⁻⁶"), parse_value("3×10^-4"), parse_value("7", integer=True)
    (1000.0, 1e-06, 0.0003, 7)
    >>> parse_value("100"), parse_value("106"), parse_value("10⁶")
    (100.0, 106.0, 1000000.0)
    >>> parse_value("2,5")
    Traceback (most recent call last):
    ...
    ValueError: “2,5” is not a number: write the decimal point as a point, 2.5
    """
    import math

    raw = str(text).strip()
    # a superscript exponent becomes ^exponent: 10⁻⁶ is 10^-6 (and 10⁶ not 106); a plain 100 stays a hundred
    cleaned = _SUPERSCRIPT_RUN.sub(lambda m: "^" + m.group(0).translate(_SUPERSCRIPTS), raw).replace(" ", "")
    if "," in cleaned:
        raise ValueError(f"“{raw}” is not a number: write the decimal point as a point, {cleaned.replace(',', '.')}")
    power = _POWER_OF_TEN.match(cleaned)
    try:
        if power:
            number = float(f"{power.group('mantissa') or 1}e{int(power.group('exponent'))}")  # exact, as typed
        else:
            number = float(cleaned)
    except (ValueError, OverflowError):
        raise ValueError(f"“{raw}” is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"“{raw}” is not a finite number")
    if integer:
        if number != int(number):
            raise ValueError(f"{raw} is not a whole number")
        return int(number)
    return number


def _png(canvas, palette=False) -> bytes:
    """The canvas's last drawing as a PNG (fast zlib level: a move's image is sent once and then replaced); with
    ``palette``, 256 colours and the best compression (the static pages' frames, a third of the size)."""
    from PIL import Image

    width, height = canvas.get_width_height(physical=True)
    buffer = io.BytesIO()
    image = Image.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    if palette:
        image.convert("RGB").quantize(256).save(buffer, format="png", optimize=True)
    else:
        image.save(buffer, format="png", compress_level=1)
    return buffer.getvalue()


class Demo:
    """Controls, a timed computation and a figure updated in place, as one ipywidgets box.

    Parameters
    ----------
    compute : callable
        ``compute(**values) -> data``, calling :mod:`dynamics` only; timed on every update.
    draw : callable
        ``draw(fig) -> update``: builds the axes and artists of the matplotlib Figure ``fig`` once and returns
        ``update(data, **values)``, which sets their data, limits and texts in place.
    controls : dict
        Parameter name -> ipywidgets control; ``values`` passes each control's value under its name.
    figsize : (float, float)
        Figure size in inches.
    dpi : int
        Resolution of the PNG: it is shown at ``figsize × dpi`` pixels (narrower on a narrow screen), never
        stretched.
    check : callable, optional
        ``check(**values) -> str or None``: a sentence when the setting leaves the range where the theory holds
        (shown in orange under the figure, which is still drawn), None inside it.

    Attributes
    ----------
    compute_seconds : list of float
        How long each ``compute`` took.
    redraw_seconds : list of float
        How long each whole move took in Python: compute, update, Agg drawing and PNG encoding.
    figure : matplotlib.figure.Figure
        The one figure the demo draws into.

    A "Reset to defaults" button restores every control's starting value with one recompute (and solves the
    layout afresh), and a status line says when a recompute is running, while the figure is dimmed. Each slider
    has a box for typed values (checked by :func:`parse_value`, refused with the reason under it) and its hint under
    it; after a move, a faint copy of the previous setting's curves stays on the figure (``show_trace``).
    """

    def __init__(self, compute: Callable, draw: Callable, controls: Dict, figsize=(8.0, 3.2), dpi=100,
                 check: Callable = None):
        import ipywidgets as w

        self._compute, self.controls, self._check = compute, dict(controls), check
        self.figsize, self.dpi = figsize, dpi
        self.defaults = self.values
        self.compute_seconds, self.redraw_seconds = [], []
        self._holding, self._laid_out = False, None
        # a fixed title height: matplotlib otherwise measures every tick label on each draw to place the titles
        with style_context(), matplotlib.rc_context({"axes.titley": 1.0}):
            self.figure = Figure(figsize=figsize, dpi=dpi, layout="constrained")
            self._canvas = FigureCanvasAgg(self.figure)
            self._update = draw(self.figure)
        if not callable(self._update):
            raise ValueError(f"draw must return the update(data, **values) function, got {self._update!r}")
        # shown at its own size (not stretched, which blurs the text), narrower on a narrow screen
        self.image = w.Image(format="png", layout=w.Layout(width=f"{figsize[0] * dpi:.0f}px", max_width="100%",
                                                            height="auto"))
        # one faint trace per axes (a LineCollection: autoscaling ignores it), filled with the previous curves
        from matplotlib.collections import LineCollection

        self._traces = {ax: ax.add_collection(LineCollection([], alpha=TRACE_ALPHA, zorder=1.5, label="_previous"),
                                              autolim=False) for ax in self.figure.axes}
        self.show_trace = w.Checkbox(value=True, description="faint trace of the previous setting", indent=False,
                                     layout=w.Layout(width="auto"))
        self.show_trace.observe(lambda _change: self._show_trace(), names="value")
        self.message = w.HTML()
        self.warning = w.HTML()
        self.status = w.HTML(layout=w.Layout(min_height="1.6em"))
        for control in self.controls.values():
            control.observe(lambda _change: None if self._holding else self.redraw(), names="value")
        self.reset_button = w.Button(description="Reset to defaults", icon="undo", tooltip="every control back to "
                                     "the value the notebook started with", layout=w.Layout(width="auto"))
        self.reset_button.on_click(lambda _button: self.reset())
        hint = w.HTML("<div style='font-size: 0.8em; line-height: 1.35'>Drag a slider, use the arrow keys on a "
                      "selected one, or type a value in its box and press Enter.</div>")
        # the controls in a column beside the figure (below it on a narrow screen), so that a demo and its
        # figure fit one screen of 1366 x 768
        column = w.VBox([self._labelled(c) for c in self.controls.values()]
                        + [w.HBox([self.reset_button, self.status], layout=w.Layout(align_items="center",
                                                                                    grid_gap="12px")),
                           self.show_trace, hint],
                        layout=w.Layout(width=f"{CONTROL_WIDTH + 10}px", grid_gap="2px"))
        # dimmed while it recomputes through a class on this box, not on the image: the image view redraws itself
        # (a new blob URL) on any change of its own model
        self.figure_box = w.Box([self.image])
        self.widget = w.VBox([w.HBox([column, self.figure_box], layout=w.Layout(flex_flow="row wrap", grid_gap="16px",
                                                                         align_items="flex-start")),
                              self.warning, self.message, w.HTML(READOUT_STYLE)])
        self.redraw()

    @staticmethod
    def _labelled(control):
        """A control with its label above it, so that a long label does not eat the slider's track (the label
        renders LaTeX; a log slider's says so), a box beside a slider for typed values, and its hint under it."""
        import ipywidgets as w

        hint = getattr(control, "hint", "")
        hint_html = (w.HTMLMath(f"<div style='font-size: 0.78em; color: #555; line-height: 1.3'>{hint}</div>")
                     if hint else None)
        if not isinstance(control, (w.FloatSlider, w.IntSlider, w.FloatLogSlider)):
            if not hint_html:
                return control
            return w.VBox([control, hint_html], layout=w.Layout(width=f"{CONTROL_WIDTH}px", overflow="visible"))
        log = isinstance(control, w.FloatLogSlider)
        control.ld_label = control.description
        text = control.description + (" <span style='color: #555'>(log scale)</span>" if log else "")
        label = w.HTMLMath(f"<span style='font-size: 0.9em'>{text}</span>")
        control.description = ""
        control.readout = False
        control.layout.width = f"{CONTROL_WIDTH - 100}px"
        box = w.Text(value=format_value(control.value, log), continuous_update=False,
                     layout=w.Layout(width="92px"))
        box.add_class("ld-value")
        refused = w.HTML(layout=w.Layout(min_height="0"))

        syncing = []  # set while a move writes its value into the box: that is not a typed value

        def typed(change):
            if syncing:
                return
            try:
                number = parse_value(change["new"], integer=isinstance(control, w.IntSlider))
                low, high = ((control.base ** control.min, control.base ** control.max) if log
                             else (control.min, control.max))
                if not low <= number <= high:
                    raise ValueError(f"{format_value(number, log)} is outside the range "
                                     f"{format_value(low, log)} to {format_value(high, log)}; not applied")
            except ValueError as exc:
                refused.value = f"<div style='font-size: 0.8em; color: #b00; line-height: 1.3'>{exc}</div>"
                return
            refused.value = ""
            if number != control.value:
                control.value = number
            else:  # the same value typed differently: show it as the other boxes do
                moved({"new": control.value})

        def moved(change):
            refused.value = ""
            syncing.append(True)
            try:
                box.value = format_value(change["new"], log)
            finally:
                syncing.clear()

        box.observe(typed, names="value")
        control.observe(moved, names="value")
        control.value_box, control.refused = box, refused
        parts = [label, w.HBox([control, box], layout=w.Layout(align_items="center")), refused]
        return w.VBox(parts + ([hint_html] if hint_html else []),
                      layout=w.Layout(width=f"{CONTROL_WIDTH}px", overflow="visible"))

    def setup_button(self, description: str, **values):
        """A button that puts the named controls at ``values`` (the others unchanged) with one recompute: a lesson's
        step shows it beside its instruction ("set this up").

        Raises
        ------
        ValueError
            If a name is not a control of this demo.
        """
        import ipywidgets as w

        self._require_controls(values)
        button = w.Button(description=description, icon="arrow-right", layout=w.Layout(width="auto"),
                          tooltip="puts the sliders where this step says")
        button.on_click(lambda _button: self.set_values(**values))
        return button

    def step_buttons(self, steps: Dict[str, Dict]) -> "StepButtons":
        """A row of :meth:`setup_button` buttons, one per lesson step: ``{"Step 1: D = 4": {"depth": 4, ...}, ...}``.
        Displayed live, the buttons set the sliders; on the static documentation page (``LD_STATIC_DEMOS=1``) they
        show each step's figure, precomputed at the build, in the demo's player above.

        Raises
        ------
        ValueError
            If ``steps`` is empty or a step names a control that this demo does not have.
        """
        if not isinstance(steps, dict) or not steps:
            raise ValueError(f"steps must be a non-empty dict of button text -> control values, got {steps!r}")
        for values in steps.values():
            self._require_controls(values)
        return StepButtons(self, dict(steps))

    def set_values(self, **values) -> None:
        """Set several controls at once, with one recompute.

        Raises
        ------
        ValueError
            If a name is not a control of this demo.
        """
        self._require_controls(values)
        self._holding = True
        try:
            for name, value in values.items():
                self.controls[name].value = value
        finally:
            self._holding = False
        self.redraw()

    def _require_controls(self, names) -> None:
        """Refuse names that are not controls of this demo, naming the controls there are."""
        unknown = sorted(set(names) - set(self.controls))
        if unknown:
            raise ValueError(f"values must name controls of this demo ({', '.join(self.controls)}), got {unknown}")

    def _show_trace(self):
        """Show or hide the faint previous curves, without recomputing."""
        for trace in self._traces.values():
            trace.set_visible(self.show_trace.value)
        with style_context():
            self._canvas.draw()
        self.image.value = _png(self._canvas)

    def _previous_curves(self):
        """The curves now drawn in data coordinates, per axes: (xy, colour, line style, width) of each visible line
        with at least two points (the next move's faint trace)."""
        curves = {}
        for ax in self.figure.axes:
            curves[ax] = [(line.get_xydata(), line.get_color(), line.get_linestyle(), line.get_linewidth())
                          for line in ax.lines if line.get_visible() and line.get_transform() == ax.transData
                          and len(line.get_xdata()) > 1]
        return curves

    @property
    def values(self) -> dict:
        """The current value of every control, by parameter name."""
        return {name: control.value for name, control in self.controls.items()}

    def update(self, **values) -> None:
        """Set controls programmatically (one redraw per changed control, as a user's moves would)."""
        self._require_controls(values)
        for name, value in values.items():
            self.controls[name].value = value

    def reset(self) -> None:
        """Every control back to its starting value, with one recompute and the layout solved afresh; every box
        shows its control's value again, and refusals of typed values are cleared."""
        self._laid_out = None  # solved afresh at the next draw
        self.set_values(**self.defaults)
        for control in self.controls.values():
            if hasattr(control, "value_box"):  # a refused value stays in its box until then
                control.value_box.value = format_value(control.value, hasattr(control, "base"))
                control.refused.value = ""

    def redraw(self) -> None:
        """Recompute (timed) and update the figure in place with the current values; a ValueError is shown, not
        raised, and leaves the last figure standing."""
        values = self.values
        self.status.value = "<i>computing…</i>"
        self.figure_box.add_class("ld-busy")
        start = time.perf_counter()
        try:
            data = self._compute(**values)
        except ValueError as exc:
            self.compute_seconds.append(time.perf_counter() - start)
            self.message.value = f"<span style='color:#b00'>{type(exc).__name__}: {exc}</span>"
            self.status.value = ""
            self.figure_box.remove_class("ld-busy")
            return
        self.compute_seconds.append(time.perf_counter() - start)
        self.message.value = ""
        outside = self._check(**values) if self._check is not None else None
        self.warning.value = ("" if not outside else "<div style='color: #a35200; font-size: 0.9em'>&#9888; Outside "
                              f"the theory's range: {outside}</div>")
        self._draw(data, values, self._previous_curves(), self.show_trace.value)
        self.image.value = _png(self._canvas)
        self.redraw_seconds.append(time.perf_counter() - start)
        self.status.value = ""
        self.figure_box.remove_class("ld-busy")

    def _draw(self, data, values, previous, trace):
        """Update the figure in place for ``values`` and draw it on the canvas, with the faint ``previous`` curves
        (None: the traces as they are) shown if ``trace``."""
        with style_context():
            self._update(data, **values)
            for ax, collection in self._traces.items():
                if previous is not None:
                    curves = previous.get(ax, [])
                    collection.set_segments([xy for xy, *_ in curves])
                    collection.set_color([color for _, color, *_ in curves] or "none")
                    collection.set_linestyle([style for *_, style, _ in curves] or "solid")
                    collection.set_linewidth([width for *_, width in curves] or 1.0)
                collection.set_visible(trace)
            key = self._layout_key()
            if key != self._laid_out:  # a wider tick label or legend text: solve the layout again at this draw
                self.figure.set_layout_engine("constrained")
                self._laid_out = key
            self._canvas.draw()
        # the layout was solved at this draw (the first, after a reset, or after a label grew); later moves keep it
        self.figure.set_layout_engine("none")

    def static_grid(self, points: int = 9) -> dict:
        """The settings the static page precomputes, per control: ``points`` positions across a slider's range on
        its step grid (every value of a short integer slider, every option of a list), the default among them.

        Returns
        -------
        dict
            Control name -> list of values, ascending for sliders, the default included.

        Raises
        ------
        ValueError
            If ``points`` is not an integer from 2 to 101.
        """
        import ipywidgets as w
        import numpy as np

        if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or not 2 <= points <= 101:
            raise ValueError(f"points must be an integer from 2 to 101, got {points!r}")

        grid = {}
        for name, control in self.controls.items():
            default = self.defaults[name]
            if isinstance(control, w.Dropdown):
                values = [option[1] if isinstance(option, tuple) else option for option in control.options]
            elif isinstance(control, w.Checkbox):
                values = [False, True]
            elif isinstance(control, w.FloatLogSlider):  # whole and half decades, else evenly in the exponent
                halves = np.arange(np.ceil(2 * control.min), np.floor(2 * control.max) + 1) / 2
                exponents = halves if 3 <= halves.size <= 2 * points else np.linspace(control.min, control.max, points)
                values = sorted({float(f"{control.base ** e:.3g}") for e in exponents} | {default})
            elif isinstance(control, w.IntSlider):
                count = (control.max - control.min) // control.step + 1
                chosen = (range(control.min, control.max + 1, control.step) if count <= points else
                          np.unique(np.round(np.linspace(control.min, control.max, points)).astype(int)))
                values = sorted({int(v) for v in chosen} | {default})
            else:
                steps = np.round((np.linspace(control.min, control.max, points) - control.min) / control.step)
                values = sorted({float(round(control.min + k * control.step, 12)) for k in steps} | {default})
            grid[name] = values
        return grid

    def static_html(self, points: int = 9) -> str:
        """The demo as a page without Python: the figure precomputed at every setting of :meth:`static_grid` (one
        control moved at a time from the defaults) as palette PNGs, and a small script that shows the frame of the
        control moved last, the others back at their defaults. The live demo is unchanged afterwards.

        Returns
        -------
        str
            A self-contained HTML fragment (frames inline).
        """
        import html
        import json
        import re
        import uuid

        import ipywidgets as w

        grid = self.static_grid(points)
        frames, index = [], {}

        def math(text):  # $...$ as the inline maths the site's MathJax typesets
            return re.sub(r"\$([^$]+)\$", lambda m: rf"<span class='math notranslate nohighlight'>\({m.group(1)}\)</span>",
                          text)

        def frame(values):
            key = repr(sorted(values.items()))
            if key not in index:
                png = self._static_frame(values)
                index[key] = None if png is None else len(frames)
                if png is not None:
                    frames.append(png)
            return index[key]

        default = frame(dict(self.defaults))
        controls = []
        for name, values in grid.items():
            control = self.controls[name]
            log = isinstance(control, w.FloatLogSlider)
            shown = [_value_text(control, v) for v in values]
            label = getattr(control, "ld_label", control.description) or name
            controls.append({"name": name, "label": math(label) + (" (log scale)" if log else ""), "shown": shown,
                             "start": values.index(self.defaults[name]), "hint": math(getattr(control, "hint", "")),
                             "frames": [frame({**self.defaults, name: v}) for v in values]})
        self._show_live()
        player = f"ld-static-{uuid.uuid4().hex[:8]}"
        self._player = (player, grid)  # the steps' buttons (StepButtons) drive this player on this grid
        rows = "".join(
            f"<div style='margin-bottom: 6px'><div style='font-size: 0.9em'>{c['label']}</div>"
            f"<input type='range' min='0' max='{len(c['shown']) - 1}' step='1' value='{c['start']}' "
            f"data-control='{i}' style='width: 220px; vertical-align: middle'> "
            f"<span class='ld-static-value' style='font-variant-numeric: tabular-nums; display: inline-block; "
            f"max-width: 110px; font-size: 0.85em; line-height: 1.2; vertical-align: middle'>"
            f"{html.escape(c['shown'][c['start']])}"
            f"</span><div style='font-size: 0.78em; color: #555'>{c['hint']}</div></div>"
            for i, c in enumerate(controls))
        data = json.dumps({"default": default, "frames": frames,
                           "controls": [{k: c[k] for k in ("shown", "start", "frames")} for c in controls]})
        width = f"{self.figsize[0] * self.dpi:.0f}px"
        return (f"<div class='ld-static' id='{player}'><p style='font-size: 0.85em; color: #555'>Precomputed when "
                f"this page was built (no Python runs here): move one control at a time from the defaults; moving "
                f"one puts the others back. Run the notebook for every setting.</p>"
                f"<div style='display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start'>"
                f"<div style='width: 340px'>{rows}<button type='button' class='ld-static-reset'>Reset to defaults"
                f"</button></div><img class='ld-static-frame' alt='the demo figure' style='width: {width}; "
                f"max-width: 100%' src='data:image/png;base64,{frames[default]}'></div>"
                f"<script>(function () {{ const root = document.getElementById('{player}'); const d = {data};"
                f"const img = root.querySelector('img.ld-static-frame');"
                f"const inputs = Array.from(root.querySelectorAll('input[type=range]'));"
                f"function show(moved) {{ inputs.forEach(function (input, i) {{ const c = d.controls[i];"
                f"if (i !== moved) {{ input.value = c.start; }}"
                f"input.parentNode.querySelector('.ld-static-value').textContent = c.shown[input.value]; }});"
                f"const f = moved === null ? d.default : d.controls[moved].frames[inputs[moved].value];"
                f"img.style.opacity = f === null ? 0.3 : 1; if (f !== null) {{ img.src = 'data:image/png;base64,' + "
                f"d.frames[f]; }} }}"
                f"inputs.forEach(function (input, i) {{ input.addEventListener('input', function () {{ show(i); }}); }});"
                f"root.querySelector('.ld-static-reset').addEventListener('click', function () {{ show(null); }});"
                f"root.ldSet = function (png, positions, texts) {{ inputs.forEach(function (input, i) {{ "
                f"input.value = positions[i]; input.parentNode.querySelector('.ld-static-value').textContent = "
                f"texts[i]; }}); img.style.opacity = 1; img.src = 'data:image/png;base64,' + png; }};"
                f"}})();</script></div>")

    def _static_frame(self, values):
        """The figure at ``values`` as a base64 palette PNG for a static page, or None where the compute refuses
        them (the live figure is redrawn by :meth:`_show_live` afterwards)."""
        import base64

        try:
            data = self._compute(**values)
        except ValueError:
            return None
        self._draw(data, values, None, False)
        return base64.b64encode(_png(self._canvas, palette=True)).decode("ascii")

    def _show_live(self):
        """Draw the live demo's own setting again, after frames for a static page were drawn on its canvas."""
        self._draw(self._compute(**self.values), self.values, None, self.show_trace.value)
        self.image.value = _png(self._canvas)

    def _layout_key(self) -> list:
        """What the layout depends on that a move can change: the length of each axes' longest y tick label (a
        wider one would push its axis label off the figure) and of each visible legend's longest text."""
        from matplotlib.legend import Legend

        key = []
        for ax in self.figure.axes:
            low, high = sorted(ax.get_ylim())
            ticks = [tick for tick in ax.yaxis.get_major_locator()() if low <= tick <= high]
            key.append(max(map(len, ax.yaxis.get_major_formatter().format_ticks(ticks)), default=0))
        legends = list(self.figure.legends) + [a for ax in self.figure.axes for a in ax.get_children()
                                                if isinstance(a, Legend)]
        key += [max(len(text.get_text()) for text in legend.get_texts() + [legend.get_title()])
                for legend in legends if legend.get_visible()]
        return key

    def _ipython_display_(self):
        """Show the live controls and figure; the output also carries the current figure as a PNG, which a static
        rendering (the documentation site, a notebook viewer without a kernel) shows instead of the widgets."""
        import base64

        from IPython.display import display

        import os

        bundle = self.widget._repr_mimebundle_()
        if self.image.value:
            bundle["image/png"] = base64.b64encode(self.image.value).decode("ascii")
        if os.environ.get("LD_STATIC_DEMOS") == "1":  # the documentation build: the precomputed player
            bundle["text/html"] = self.static_html()
        display(bundle, raw=True)


class StepButtons:
    """A lesson's step buttons under a demo (made by :meth:`Demo.step_buttons`): live, a row of setup buttons; on the
    static documentation page, HTML buttons that show each step's precomputed figure in the demo's player."""

    def __init__(self, demo: Demo, steps: Dict[str, Dict]):
        self.demo, self.steps = demo, steps
        self.buttons = [demo.setup_button(text, **values) for text, values in steps.items()]

    @property
    def widget(self):
        import ipywidgets as w

        return w.HBox(self.buttons, layout=w.Layout(flex_flow="row wrap"))

    def static_html(self) -> str:
        """The steps as buttons of the demo's static player: each shows its step's figure (computed now, the other
        controls at their defaults) and puts the player's sliders at the nearest positions of their grids, with the
        step's own values written beside them.

        Raises
        ------
        ValueError
            If the demo's player has not been made yet (:meth:`Demo.static_html` comes first).
        """
        import html
        import json
        import math

        demo = self.demo
        if getattr(demo, "_player", None) is None:
            raise ValueError("the demo's static player must be shown before its steps (Demo.static_html)")
        player, grid = demo._player
        steps = []
        for values in self.steps.values():
            setting = {**demo.defaults, **values}
            png = demo._static_frame(setting)
            if png is None:
                steps.append(None)
                continue
            positions, texts = [], []
            for name, options in grid.items():
                value = setting[name]
                control = demo.controls[name]
                numeric = all(isinstance(o, (int, float)) and not isinstance(o, bool) for o in options)
                log = hasattr(control, "base")  # nearest in the exponent on a log slider
                scale = (lambda v: math.log(v)) if log else (lambda v: v)
                position = (min(range(len(options)), key=lambda k: abs(scale(options[k]) - scale(value))) if numeric
                            else options.index(value))
                positions.append(position)
                texts.append(_value_text(control, value))
            steps.append({"png": png, "positions": positions, "texts": texts})
        demo._show_live()
        row = f"{player}-steps"
        buttons = "".join(f"<button type='button' style='margin: 0 6px 6px 0'>{html.escape(text)}</button>"
                          for text in self.steps)
        return (f"<div id='{row}' class='ld-static-steps'>{buttons}<span class='ld-static-step-note' "
                f"style='font-size: 0.85em; color: #555; margin-left: 4px'></span></div>"
                f"<script>(function () {{ const steps = {json.dumps(steps)};"
                f"const row = document.getElementById('{row}'); const note = row.querySelector('.ld-static-step-note');"
                f"row.querySelectorAll('button').forEach(function (button, i) {{ button.addEventListener('click', "
                f"function () {{ const root = document.getElementById('{player}'); const s = steps[i];"
                f"if (s === null || !root || !root.ldSet) {{ note.textContent = 'this step has no precomputed figure'; "
                f"return; }} root.ldSet(s.png, s.positions, s.texts); note.textContent = button.textContent + "
                f"': set up in the player above (precomputed)'; }}); }}); }})();</script>")

    def _ipython_display_(self):
        import os

        from IPython.display import display

        bundle = self.widget._repr_mimebundle_()
        if os.environ.get("LD_STATIC_DEMOS") == "1" and getattr(self.demo, "_player", None) is not None:
            bundle["text/html"] = self.static_html()
        display(bundle, raw=True)


# ---------------------------------------------------------------------------------------------------------
# The notebooks and their web face

def demo_dir():
    """The folder of the teaching notebooks (``figures/demos``)."""
    from pathlib import Path

    return Path(__file__).resolve().parent / "demos"


def list_demos() -> list:
    """Names of the teaching notebooks (one per theory), in the theory registry's order: the order of the lessons,
    from Saxe's linear networks, whose modes the later lessons build on, to the spurious correlations."""
    from dynamics.theories import THEORIES

    return [t.id for t in THEORIES if (demo_dir() / f"{t.id}.ipynb").exists()]


def demo_index():
    """The index of the demos, as HTML: one line per notebook, its title linked (relative to the index page that
    ``python -m figures --demo`` serves) and the theory and papers it teaches.

    Examples
    --------
    >>> from figures.interactive import demo_index, list_demos
    >>> html = demo_index().data
    >>> all(f'href="{name}.ipynb"' in html for name in list_demos())
    True
    """
    import html

    import nbformat
    from IPython.display import HTML

    from dynamics.theories import theory

    rows = []
    for name in list_demos():
        notebook = nbformat.read(demo_dir() / f"{name}.ipynb", as_version=4)
        heading = next(line for cell in notebook.cells if cell.cell_type == "markdown"
                       for line in cell.source.splitlines() if line.startswith("# "))
        about = theory(name)
        papers = "; ".join(source.key for source in about.sources if source.year)
        rows.append(f'<li><a href="{name}.ipynb"><b>{html.escape(heading[2:])}</b></a> '
                    f'&mdash; {html.escape(about.summary)} ({html.escape(papers)})</li>')
    return HTML("<ul style='line-height: 1.9'>" + "".join(rows) + "</ul>")


def free_port() -> int:
    """A TCP port on localhost that nothing listens on now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


IDLE_KERNEL_SECONDS = 600  # a served demo's kernel with no page open is shut down after this long idle


def serve_demo(name=None, port=None, quiet=False, cull_idle_seconds=IDLE_KERNEL_SECONDS):
    """Start Voilà serving the notebook ``name`` as a standalone web app on localhost, or, without a name, an index
    of every demo (one server; each opens from the list).

    Each page load starts a kernel of 125–300 MB. A kernel that no page is connected to any more (its tab closed)
    is shut down once it has been idle for ``cull_idle_seconds`` (checked every ``min(60, cull_idle_seconds)``
    seconds), so that a class's server does not keep one kernel for every page ever opened. A kernel whose page is
    still open is never shut down.

    Returns ``(process, url)``; the caller stops the process. Needs the ``demos`` extra (voila, ipywidgets).
    """
    import os
    import subprocess
    import sys

    if name is not None and name not in list_demos():
        raise ValueError(f"name must be one of {', '.join(list_demos())}, got {name!r}")
    if isinstance(cull_idle_seconds, bool) or not isinstance(cull_idle_seconds, int) or cull_idle_seconds < 1:
        raise ValueError(f"cull_idle_seconds must be an integer >= 1, got {cull_idle_seconds!r}")
    port = port or free_port()
    # one server for the folder: the index page links every demo, and a named demo opens directly
    command = [sys.executable, "-m", "voila", str(demo_dir()), "--no-browser", f"--port={port}",
               "--Voila.ip=127.0.0.1", "--Voila.tornado_settings={'allow_origin': '*'}",
               f"--MappingKernelManager.cull_idle_timeout={cull_idle_seconds}",
               f"--MappingKernelManager.cull_interval={min(60, cull_idle_seconds)}",
               "--MappingKernelManager.cull_connected=False"]
    env = dict(os.environ, DYNAMICS_COMPILE_NOTICE="0")
    output = subprocess.DEVNULL if quiet else None
    process = subprocess.Popen(command, stdout=output, stderr=output, env=env)
    return process, f"http://127.0.0.1:{port}/voila/render/{name or 'index'}.ipynb"
