"""Interactive figures for the teaching notebooks (``figures/demos/``): sliders wired to a computation and a plot.

A demo is two functions and a set of controls. ``compute(**values)`` calls :mod:`dynamics` only (it is timed: a
slider move must recompute in under 50 ms once the kernels are compiled); ``plot(fig, data, **values)`` draws
the result into a fresh matplotlib Figure in the project's style. The figure is shown as a PNG in an
``ipywidgets.Image``, which Jupyter, JupyterLab, Voilà and Colab all display the same way. Input outside a
theory's domain shows the library's ``ValueError`` message under the figure instead of breaking the demo.

Examples
--------
>>> import numpy as np, ipywidgets as w
>>> from figures.interactive import Demo
>>> demo = Demo(compute=lambda slope: np.arange(5) * slope,
...             plot=lambda fig, y, slope: fig.subplots().plot(y),
...             controls={"slope": w.FloatSlider(value=1.0, min=0.0, max=2.0)})
>>> demo.update(slope=2.0)
>>> demo.values["slope"], len(demo.compute_seconds)
(2.0, 2)
"""
import io
import time
from typing import Callable, Dict

from matplotlib.figure import Figure

from .style import style_context

__all__ = ["Demo", "log_slider", "slider", "choice"]


def slider(value, low, high, step=None, description=None, integer=False):
    """A horizontal slider (ipywidgets FloatSlider or IntSlider) that updates on release."""
    import ipywidgets as w

    cls = w.IntSlider if integer else w.FloatSlider
    kwargs = dict(value=value, min=low, max=high, continuous_update=False, description=description or "",
                  style={"description_width": "initial"}, layout=w.Layout(width="100%"))
    if step is not None:
        kwargs["step"] = step
    return cls(**kwargs)


def log_slider(value, low_exponent, high_exponent, description=None, step=0.05):
    """A slider over 10**low_exponent .. 10**high_exponent (ipywidgets FloatLogSlider), updating on release."""
    import ipywidgets as w

    return w.FloatLogSlider(value=value, base=10, min=low_exponent, max=high_exponent, step=step,
                            continuous_update=False, description=description or "",
                            style={"description_width": "initial"}, layout=w.Layout(width="100%"))


def choice(options, value=None, description=None):
    """A drop-down list (ipywidgets Dropdown) of options, or of ``(label, value)`` pairs; the first is selected
    unless ``value`` names another."""
    import ipywidgets as w

    options = list(options)
    if value is None:
        value = options[0][1] if isinstance(options[0], tuple) else options[0]
    return w.Dropdown(options=options, value=value, description=description or "",
                      style={"description_width": "initial"})


class Demo:
    """Controls, a timed computation and a redrawn figure, as one ipywidgets box.

    Parameters
    ----------
    compute : callable
        ``compute(**values) -> data``, calling :mod:`dynamics` only; timed on every update.
    plot : callable
        ``plot(fig, data, **values)`` draws into the matplotlib Figure ``fig``.
    controls : dict
        Parameter name -> ipywidgets control; ``values`` passes each control's value under its name.
    figsize : (float, float)
        Figure size in inches.
    dpi : int
        Resolution of the PNG: it is shown at ``figsize × dpi`` pixels (narrower on a narrow screen), never
        stretched.

    A "Reset to defaults" button restores every control's starting value with one recompute, and a status line
    says when a recompute is running.
    """

    def __init__(self, compute: Callable, plot: Callable, controls: Dict, figsize=(8.0, 3.2), dpi=110):
        import ipywidgets as w

        self._compute, self._plot, self.controls = compute, plot, dict(controls)
        self.figsize, self.dpi = figsize, dpi
        self.defaults = self.values
        self.compute_seconds = []
        self._holding = False
        # shown at its own size (not stretched, which blurs the text), narrower on a narrow screen
        self.image = w.Image(format="png", layout=w.Layout(width=f"{figsize[0] * dpi:.0f}px", max_width="100%",
                                                            height="auto"))
        self.message = w.HTML()
        self.status = w.HTML(layout=w.Layout(min_height="1.6em"))
        for control in self.controls.values():
            control.observe(lambda _change: None if self._holding else self.redraw(), names="value")
        self.reset_button = w.Button(description="Reset to defaults", icon="undo", tooltip="every control back to "
                                     "the value the notebook started with", layout=w.Layout(width="auto"))
        self.reset_button.on_click(lambda _button: self.reset())
        hint = w.HTML("<small>Drag a slider, use the arrow keys on a selected one, or click its number to type "
                      "a value.</small>")
        self.widget = w.VBox([w.HBox([self._labelled(c) for c in self.controls.values()],
                                     layout=w.Layout(flex_flow="row wrap", grid_gap="4px 16px")),
                              w.HBox([self.reset_button, self.status, hint], layout=w.Layout(align_items="center",
                                                                                            grid_gap="12px")),
                              self.image, self.message])
        self.redraw()

    @staticmethod
    def _labelled(control):
        """A slider with its label above it, so that a long label does not eat the slider's track."""
        import ipywidgets as w

        if not isinstance(control, (w.FloatSlider, w.IntSlider, w.FloatLogSlider)) or not control.description:
            return control
        label = w.HTML(f"<span style='font-size: 0.9em'>{control.description}</span>")
        control.description = ""
        control.layout.width = "340px"
        return w.VBox([label, control], layout=w.Layout(width="360px", overflow="visible"))

    @property
    def values(self) -> dict:
        """The current value of every control, by parameter name."""
        return {name: control.value for name, control in self.controls.items()}

    def update(self, **values) -> None:
        """Set controls programmatically (one redraw per changed control, as a user's moves would)."""
        for name, value in values.items():
            if name not in self.controls:
                raise ValueError(f"values must name controls of this demo ({', '.join(self.controls)}), got {name!r}")
            self.controls[name].value = value

    def reset(self) -> None:
        """Every control back to its starting value, with one recompute."""
        self._holding = True
        try:
            for name, value in self.defaults.items():
                self.controls[name].value = value
        finally:
            self._holding = False
        self.redraw()

    def redraw(self) -> None:
        """Recompute (timed) and redraw with the current values; a ValueError is shown, not raised."""
        values = self.values
        self.status.value = "<i>computing…</i>"
        start = time.perf_counter()
        try:
            data = self._compute(**values)
        except ValueError as exc:
            self.compute_seconds.append(time.perf_counter() - start)
            self.message.value = f"<span style='color:#b00'>{type(exc).__name__}: {exc}</span>"
            self.status.value = ""
            return
        self.compute_seconds.append(time.perf_counter() - start)
        self.message.value = ""
        with style_context():
            fig = Figure(figsize=self.figsize, layout="constrained")
            self._plot(fig, data, **values)
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png", dpi=self.dpi)
        self.image.value = buffer.getvalue()
        self.figure = fig
        self.status.value = ""

    def _ipython_display_(self):
        """Show the live controls and figure; the output also carries the current figure as a PNG, which a static
        rendering (the documentation site, a notebook viewer without a kernel) shows instead of the widgets."""
        import base64

        from IPython.display import display

        bundle = self.widget._repr_mimebundle_()
        if self.image.value:
            bundle["image/png"] = base64.b64encode(self.image.value).decode("ascii")
        display(bundle, raw=True)


# ---------------------------------------------------------------------------------------------------------
# The notebooks and their web face

def demo_dir():
    """The folder of the teaching notebooks (``figures/demos``)."""
    from pathlib import Path

    return Path(__file__).resolve().parent / "demos"


def list_demos() -> list:
    """Names of the teaching notebooks (one per theory), sorted."""
    return sorted(path.stem for path in demo_dir().glob("*.ipynb"))


def free_port() -> int:
    """A TCP port on localhost that nothing listens on now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve_demo(name=None, port=None, quiet=False):
    """Start Voilà serving the notebook ``name`` as a standalone web app on localhost, or, without a name, an index
    of every demo (one server; each opens from the list).

    Returns ``(process, url)``; the caller stops the process. Needs the ``demos`` extra (voila, ipywidgets).
    """
    import os
    import subprocess
    import sys

    if name is not None and name not in list_demos():
        raise ValueError(f"name must be one of {', '.join(list_demos())}, got {name!r}")
    port = port or free_port()
    target = demo_dir() if name is None else demo_dir() / f"{name}.ipynb"
    command = [sys.executable, "-m", "voila", str(target), "--no-browser", f"--port={port}",
               "--Voila.ip=127.0.0.1", "--Voila.tornado_settings={'allow_origin': '*'}"]
    env = dict(os.environ, DYNAMICS_COMPILE_NOTICE="0")
    output = subprocess.DEVNULL if quiet else None
    process = subprocess.Popen(command, stdout=output, stderr=output, env=env)
    return process, f"http://127.0.0.1:{port}/"
