"""The teaching notebooks (``figures/demos``): stored without outputs, calling only public functions, executing
headless without error, recomputing once per slider move without compiling, and served as a web app that reacts to a
slider in a real browser (headless Chromium driven by selenium; marked ``browser``).

The browser test skips with its reason outside CI when Chromium, chromedriver, selenium or Voilà is missing,
and fails under CI (``CI=true``), which installs them.
"""
import ast
import json
import math
import os
import re
import shutil
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from dynamics.theories import theory
from verify import registry

nbformat = pytest.importorskip("nbformat") if not registry.in_ci() else __import__("nbformat")
from figures import interactive  # noqa: E402  (needs ipywidgets, like the notebooks)

DEMOS = interactive.list_demos()
ALLOWED_MODULES = ("dynamics", "figures.interactive", "figures.style", "numpy", "math", "ipywidgets", "IPython")


def _code_cells(name):
    notebook = nbformat.read(interactive.demo_dir() / f"{name}.ipynb", as_version=4)
    return notebook, [cell.source for cell in notebook.cells if cell.cell_type == "code"]


def test_there_is_a_demo_per_theory_with_a_lesson():
    assert DEMOS, "no notebook in figures/demos"
    for name in DEMOS:
        notebook, _ = _code_cells(name)
        text = " ".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
        authors = {source.key.split()[0] for source in theory(name).sources}  # "Saxe", "Pezeshki", …
        assert any(author in text for author in authors), \
            f"{name}: a lesson names its source (one of {sorted(authors)})"
        assert "](index.ipynb)" in notebook.cells[0].source, f"{name}: the first cell links back to the index"


_LESSON = ("## ", "**How to read it.**", "### Predict, then move", ".step_buttons(", "### The idea")


@pytest.mark.parametrize("name", DEMOS)
def test_each_demo_is_a_lesson_in_reading_order(name):
    """Each demo opens with what it shows (a "## " heading just above it), has "How to read it" right under the
    figure, then "Predict, then move" steps that ask a question before each move, a cell of buttons that set the
    steps up, and then the idea: its maths, its source and a link to the theory note."""
    notebook, _ = _code_cells(name)
    cells = notebook.cells
    demos = [i for i, cell in enumerate(cells) if cell.cell_type == "code" and "Demo(" in cell.source]
    assert demos, f"{name}: no demo"
    authors = {source.key.split()[0] for source in theory(name).sources}
    for i in demos:
        assert cells[i - 1].cell_type == "markdown" and cells[i - 1].source.startswith(_LESSON[0]), \
            f"{name}, cell {i}: a demo opens with a '## ' heading and what it shows, just above it"
        after = [cells[j] for j in range(i + 1, min(i + 5, len(cells)))]
        assert len(after) == 4, f"{name}, cell {i}: a demo is followed by its reading guide, steps, buttons and idea"
        read, steps, buttons, idea = after
        assert read.cell_type == "markdown" and read.source.startswith(_LESSON[1]), (name, i, read.source[:60])
        assert steps.cell_type == "markdown" and steps.source.startswith(_LESSON[2]), (name, i, steps.source[:60])
        numbered = re.findall(r"^\d+\. (.*)$", steps.source, flags=re.M)
        assert len(numbered) >= 2 and all("?" in step for step in numbered), \
            f"{name}, cell {i}: each step asks the student to predict (a question) before the move"
        assert buttons.cell_type == "code" and _LESSON[3] in buttons.source and \
            len(re.findall(r'"Step \d+: ', buttons.source)) >= 2, (name, i)
        assert idea.cell_type == "markdown" and idea.source.startswith(_LESSON[4]), (name, i, idea.source[:60])
        assert "$" in idea.source and any(author in idea.source for author in authors), \
            f"{name}, cell {i}: the idea gives its maths and its source"
        assert f"](../../docs/theory/{name}.md" in idea.source, f"{name}, cell {i}: the idea links the theory note"


@pytest.mark.parametrize("name", DEMOS)
def test_every_control_has_a_hint_and_no_code_name_in_its_label(name):
    """A slider or list says what it is and what to watch (its hint), and its label speaks the lesson's words: no
    parameter name of the code (an identifier with an underscore outside the maths)."""
    _, code = _code_cells(name)
    for node in ast.walk(ast.parse("\n\n".join(code))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("slider", "log_slider", "choice"):
            keywords = {k.arg: k.value for k in node.keywords}
            assert "hint" in keywords and isinstance(keywords["hint"], ast.Constant) \
                and keywords["hint"].value.strip(), f"{name}: {ast.unparse(node)[:80]} has no hint"
            label = keywords.get("description")
            text = label.value if isinstance(label, ast.Constant) else ""
            words = re.sub(r"\$[^$]*\$", "", text)
            assert not re.search(r"\b[a-z]+_[a-z_]+\b", words), f"{name}: a code name in the label {text!r}"


def _draw_line(fig):
    ax = fig.subplots()
    line, = ax.plot([], [])

    def update(y, **values):
        line.set_data(range(len(y)), y)
        ax.set(xlim=(0, len(y) - 1), ylim=(min(y) - 1, max(y) + 1))

    return update


def test_a_move_updates_the_figure_in_place_and_keeps_its_layout():
    """One figure for the life of a demo: a move changes the data of its artists, not the axes, and the layout
    solved at the first draw is kept (a reset solves it afresh)."""
    demo = interactive.Demo(compute=lambda slope: [0.0, slope], draw=_draw_line,
                            controls={"slope": interactive.slider(1.0, 0.0, 2.0, step=0.5)})
    (ax,), first = demo.figure.axes, demo.image.value
    position, (line,) = ax.get_position().bounds, ax.lines
    demo.update(slope=2.0)
    assert demo.figure.axes == [ax] and list(ax.lines) == [line] and list(line.get_ydata()) == [0.0, 2.0]
    assert ax.get_position().bounds == position and demo.figure.get_layout_engine().__class__.__name__ != \
        "ConstrainedLayoutEngine"
    assert demo.image.value != first and bytes(demo.image.value).startswith(b"\x89PNG")
    assert len(demo.redraw_seconds) == len(demo.compute_seconds) == 2
    with pytest.raises(ValueError, match="draw must return the update"):
        interactive.Demo(compute=lambda slope: [0.0, slope], draw=lambda fig: fig.subplots().plot([0, 1]),
                         controls={"slope": interactive.slider(1.0, 0.0, 2.0)})


def test_choice_takes_options_or_label_value_pairs():
    assert interactive.choice(["a", "b"]).value == "a"
    assert interactive.choice([("ERM", "erm"), ("SUBG", "subg")]).value == "erm"
    assert interactive.choice([("ERM", "erm"), ("SUBG", "subg")], value="subg").label == "SUBG"


def test_reset_restores_the_defaults_with_one_recompute():
    import ipywidgets as w

    demo = interactive.Demo(compute=lambda slope, offset: [offset, offset + slope], draw=_draw_line,
                            controls={"slope": interactive.slider(1.0, 0.0, 2.0, description="a long slope label"),
                                      "offset": w.FloatSlider(value=0.0, min=-1.0, max=1.0)})
    demo.update(slope=2.0, offset=0.5)
    before = len(demo.compute_seconds)
    demo.reset_button.click()
    assert demo.values == {"slope": 1.0, "offset": 0.0} == demo.defaults
    assert len(demo.compute_seconds) == before + 1
    assert demo.status.value == ""  # the "computing…" note is cleared once the figure is drawn
    # the long label sits above its slider, whose track keeps the full width; the image is shown at its own size
    labelled = demo.widget.children[0].children[0].children[0]
    track = labelled.children[1].children[0]
    assert "a long slope label" in labelled.children[0].value and track.description == ""
    assert demo.image.layout.width == f"{demo.figsize[0] * demo.dpi:.0f}px"


def _typed_demo():
    return interactive.Demo(
        compute=lambda slope, n: [0.0, slope * n], draw=_draw_line,
        controls={"slope": interactive.log_slider(1e-2, -6, 0, description="slope", hint="how steep the line is"),
                  "n": interactive.slider(4, 2, 64, step=1, integer=True, description="count")})


@pytest.mark.parametrize("control, typed, reason", [
    ("n", "1e3", "outside the range 2 to 64"), ("n", "2,5", "decimal point as a point, 2.5"),
    ("n", "abc", "not a number"), ("n", "3.7", "not a whole number"), ("slope", "10", "outside the range"),
    ("slope", "inf", "not a finite number")])
def test_a_typed_value_that_cannot_be_applied_is_refused_with_its_reason(control, typed, reason):
    demo = _typed_demo()
    before, computed = demo.values, len(demo.compute_seconds)
    slider = demo.controls[control]
    slider.value_box.value = typed
    assert reason in slider.refused.value and "#b00" in slider.refused.value
    assert demo.values == before and len(demo.compute_seconds) == computed  # nothing applied, nothing clamped
    demo.reset()  # the box shows the value again and the refusal is gone
    assert slider.value_box.value == interactive.format_value(slider.value, control == "slope")
    assert slider.refused.value == ""


def test_a_typed_value_in_range_is_applied_and_shown_as_the_figure_writes_it():
    demo = _typed_demo()
    demo.controls["slope"].value_box.value = "3×10^-4"
    assert demo.controls["slope"].value == pytest.approx(3e-4) and demo.controls["slope"].refused.value == ""
    assert demo.controls["slope"].value_box.value == "3×10⁻⁴"
    demo.controls["n"].value_box.value = "16"
    assert demo.values["n"] == 16
    demo.update(n=8)  # a move shows in the box
    assert demo.controls["n"].value_box.value == "8"


def test_each_control_shows_its_hint_and_a_log_slider_says_log_scale():
    demo = _typed_demo()
    column = demo.widget.children[0].children[0]
    slope_box = column.children[0]
    assert "(log scale)" in slope_box.children[0].value
    assert "how steep the line is" in slope_box.children[-1].value


def test_a_move_leaves_a_faint_trace_of_the_previous_curve_that_a_box_hides():
    demo = _typed_demo()
    ax = demo.figure.axes[0]
    old = ax.lines[0].get_xydata().copy()
    demo.update(n=16)
    trace = demo._traces[ax]
    assert len(trace.get_segments()) == 1 and np.array_equal(trace.get_segments()[0], old)
    assert trace.get_visible() and trace.get_alpha() < 0.5
    computed = len(demo.compute_seconds)
    demo.show_trace.value = False
    assert not trace.get_visible() and len(demo.compute_seconds) == computed  # hidden without recomputing
    demo.update(n=32)
    assert not trace.get_visible()


def test_a_setup_button_sets_the_step_with_one_recompute_and_a_check_warns_outside_the_theory():
    demo = interactive.Demo(compute=lambda slope, n: [0.0, slope * n], draw=_draw_line,
                            controls={"slope": interactive.slider(1.0, 0.0, 2.0), "n": interactive.slider(
                                4, 2, 64, step=1, integer=True)},
                            check=lambda slope, n: "the slope must stay below 1.5" if slope > 1.5 else None)
    assert demo.warning.value == ""
    computed = len(demo.compute_seconds)
    demo.setup_button("Set this up", slope=1.8, n=10).click()
    assert demo.values == {"slope": 1.8, "n": 10} and len(demo.compute_seconds) == computed + 1
    assert "Outside the theory's range: the slope must stay below 1.5" in demo.warning.value
    assert "ld-busy" not in demo.figure_box._dom_classes  # the figure is dimmed only while it recomputes
    with pytest.raises(ValueError, match="name controls"):
        demo.setup_button("bad", width=3)


def test_step_buttons_set_each_step_live_and_show_its_precomputed_figure_in_the_static_player():
    import base64

    demo = _typed_demo()
    steps = demo.step_buttons({"Step 1: n = 10": dict(n=10), "Step 2: slope 0.1": dict(slope=0.1, n=64)})
    assert [b.description for b in steps.widget.children] == ["Step 1: n = 10", "Step 2: slope 0.1"]
    steps.buttons[1].click()
    assert demo.values == {"slope": 0.1, "n": 64}
    demo.reset()
    with pytest.raises(ValueError, match="player must be shown before its steps"):
        steps.static_html()
    player = demo.static_html(points=5)
    page = steps.static_html()
    player_id = re.search(r"id='(ld-static-[0-9a-f]+)'", player).group(1)
    assert f"getElementById('{player_id}')" in page and "root.ldSet" in player
    data = json.loads(re.search(r"const steps = (\[.*?\]);", page).group(1))
    grid = demo.static_grid(points=5)  # the player's own grid, not the default one
    assert len(grid["n"]) != len(demo.static_grid()["n"])
    # each step: its figure, and the player's sliders at the nearest grid positions with the exact values written
    assert [s["texts"] for s in data] == [["0.01", "10"], ["0.1", "64"]]
    assert data[0]["positions"] == [grid["slope"].index(1e-2), min(range(len(grid["n"])),
                                                                    key=lambda k: abs(grid["n"][k] - 10))]
    assert data[1]["positions"][1] == len(grid["n"]) - 1
    frames = [base64.b64decode(s["png"]) for s in data]
    assert all(f.startswith(b"\x89PNG") for f in frames) and frames[0] != frames[1]
    assert demo.values == demo.defaults  # the live demo is left as it was
    with pytest.raises(ValueError, match="name controls"):
        demo.step_buttons({"Step 1": dict(width=2)})
    with pytest.raises(ValueError, match="non-empty dict"):
        demo.step_buttons({})


@pytest.mark.parametrize("method", ["set_values", "update"])
def test_setting_a_name_that_is_no_control_is_refused_before_anything_moves(method):
    demo = _typed_demo()
    before, computed = demo.values, len(demo.compute_seconds)
    with pytest.raises(ValueError, match=r"name controls of this demo \(slope, n\), got \['width'\]"):
        getattr(demo, method)(n=8, width=3)
    assert demo.values == before and len(demo.compute_seconds) == computed


@pytest.mark.parametrize("points", [1, 0, 2.5, True, 102])
def test_a_static_grid_needs_two_to_101_points(points):
    with pytest.raises(ValueError, match="points must be an integer from 2 to 101"):
        _typed_demo().static_grid(points)


def test_a_static_grid_of_two_points_holds_each_slider_s_ends_and_default():
    grid = _typed_demo().static_grid(2)
    assert grid["n"] == [2, 4, 64]
    assert grid["slope"][0] == pytest.approx(1e-6) and grid["slope"][-1] == pytest.approx(1.0)


def test_demo_output_carries_its_figure_as_a_png_for_static_pages(monkeypatch):
    """The documentation renders the notebooks without a kernel: a demo's output holds the live widget and a PNG of
    the figure at the current values, which the static page shows."""
    import base64

    import ipywidgets as w
    from IPython import display as ipy_display

    shown = []
    monkeypatch.setattr(ipy_display, "display", lambda obj, raw=False: shown.append((obj, raw)))
    demo = interactive.Demo(compute=lambda slope: [0.0, slope], draw=_draw_line,
                            controls={"slope": w.FloatSlider(value=1.0, min=0.0, max=2.0)})
    demo._ipython_display_()
    (bundle, raw), = shown
    assert raw and "application/vnd.jupyter.widget-view+json" in bundle
    assert base64.b64decode(bundle["image/png"]) == demo.image.value
    assert bytes(demo.image.value).startswith(b"\x89PNG")


@pytest.mark.parametrize("name", DEMOS + ["index"])
def test_notebook_is_stored_without_outputs(name):
    raw = json.loads((interactive.demo_dir() / f"{name}.ipynb").read_text())
    for cell in raw["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, f"{name}: clear the outputs"


def test_index_links_every_demo_once_with_its_title():
    html = interactive.demo_index().data
    for name in DEMOS:
        notebook, _ = _code_cells(name)
        title = notebook.cells[0].source.splitlines()[0][2:]
        assert html.count(f'href="{name}.ipynb"') == 1 and title in html, name
    assert "index" not in DEMOS
    # every notebook of the folder is a lesson of a registered theory, listed in the registry's order
    assert {path.stem for path in interactive.demo_dir().glob("*.ipynb")} - {"index"} == set(DEMOS)
    positions = [html.index(f'href="{name}.ipynb"') for name in DEMOS]
    assert positions == sorted(positions) and DEMOS[0] == "linear_networks"


@pytest.mark.parametrize("name", DEMOS + ["index"])
def test_notebook_calls_only_public_functions(name):
    """No theory in a notebook: it imports only public names of dynamics and the figure helpers, and touches no
    private attribute."""
    _, cells = _code_cells(name)
    for source in cells:
        tree = ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.module.startswith(ALLOWED_MODULES), f"{name}: imports {node.module}"
                assert not any(alias.name.startswith("_") for alias in node.names), f"{name}: private import"
            elif isinstance(node, ast.Import):
                assert all(alias.name.startswith(ALLOWED_MODULES) for alias in node.names), f"{name}: import"
            elif isinstance(node, ast.Attribute):
                assert not node.attr.startswith("_"), f"{name}: private attribute {node.attr}"


def _run_in_process(name):
    """Execute the notebook's code in this process (display is a no-op) and return the Demo objects it made."""
    _, cells = _code_cells(name)
    namespace = {"display": lambda *args, **kwargs: None}
    for source in cells:
        code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
        exec(compile(code, f"{name}.ipynb", "exec"), namespace)
    return [value for value in namespace.values() if isinstance(value, interactive.Demo)]


def _compiled_signatures():
    """How many numba specialisations the loaded :mod:`dynamics` modules' kernels hold in this process."""
    import sys

    import numba.core.registry as registry

    kernels = {id(v): v for name, module in list(sys.modules.items()) if name.startswith("dynamics")
               for v in vars(module).values() if isinstance(v, registry.CPUDispatcher)}
    return sum(len(k.signatures) for k in kernels.values())


@pytest.mark.parametrize("name", DEMOS)
def test_every_slider_move_recomputes_once_and_compiles_nothing(name):
    """Moving any control to four positions across its range recomputes once per move, without an error, and
    updates the figure in place (same axes, as many artists); a second pass over the same positions compiles no
    kernel (the first may: it is the first call). How long a move takes is
    measured by ``benchmarks/demo_latency.py``, not asserted here."""
    demos = _run_in_process(name)
    assert demos, f"{name} builds no Demo"
    for demo in demos:
        axes, artists = list(demo.figure.axes), _artist_count(demo.figure)
        for control_name, control in demo.controls.items():
            values = [v for v in _positions(control) if v != control.value] + [control.value]
            for sweep in range(2):
                compiled = _compiled_signatures()
                for value in values:
                    before = len(demo.compute_seconds)
                    demo.update(**{control_name: value})
                    assert len(demo.compute_seconds) == before + 1, (name, control_name, value)
                    assert demo.message.value == "", (name, control_name, demo.message.value)
                if sweep == 1:
                    assert _compiled_signatures() == compiled, f"{name}: moving {control_name} compiled a kernel"
                # updated in place: the same axes, and no artist left behind by a move
                assert demo.figure.axes == axes, f"{name}: moving {control_name} rebuilt the axes"
                assert _artist_count(demo.figure) == artists, f"{name}: moving {control_name} leaks artists"


def _artist_count(figure):
    """How many artists the figure and its axes hold (a move that adds an artist without removing one grows it;
    ticks are left out: an axis makes more of them when its limits widen)."""
    return len(figure.get_children()) + sum(len(ax.get_children()) for ax in figure.axes)


def _positions(control):
    if hasattr(control, "options"):
        return [option if not isinstance(option, tuple) else option[1] for option in control.options][:4]
    if hasattr(control, "base"):  # FloatLogSlider: min/max are exponents
        return [control.base ** (control.min + f * (control.max - control.min)) for f in (0.2, 0.45, 0.7, 0.95)]
    if isinstance(control.value, bool):
        return [not control.value, control.value]
    low, high, step = control.min, control.max, control.step
    values = [low + round(f * (high - low) / step) * step for f in (0.2, 0.45, 0.7, 0.95)]  # on the slider's grid
    return [int(v) for v in values] if isinstance(control.value, int) else values


@pytest.mark.slow
@pytest.mark.parametrize("name", DEMOS)
def test_notebook_executes_headless(name):
    """Executed by a real kernel (nbclient), every cell runs without error and each demo shows a figure."""
    nbclient = pytest.importorskip("nbclient") if not registry.in_ci() else __import__("nbclient")
    notebook, _ = _code_cells(name)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(interactive.demo_dir())}})
    client.execute()
    widget_views = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
                    if "application/vnd.jupyter.widget-view+json" in output.get("data", {})]
    errors = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
              if output.get("output_type") == "error"]
    assert not errors and widget_views, (name, errors[:1])


# ------------------------------------------------------------------------------------------- browser test
def _browser_or_skip():
    missing = [tool for tool in ("chromium", "chromedriver") if shutil.which(tool) is None]
    for module in ("selenium", "voila"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        reason = f"needs {', '.join(missing)} (Debian's chromium and chromium-driver; the demos extra)"
        if registry.in_ci():
            pytest.fail(reason)
        pytest.skip(reason)


def _wait_for(url, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"{url} did not answer within {seconds} s")


# one move, timed in the page: from the key press on a slider (a real key event, sent by selenium) to the new
# figure decoded and painted
_WATCH_MOVE = """
const img = arguments[0], before = img.src;
window.moveMs = null;
document.addEventListener("keydown", () => { window.moveStart = performance.now(); }, {capture: true, once: true});
const watch = new MutationObserver(() => {
  if (img.src === before) return;
  watch.disconnect();
  img.decode().then(() => requestAnimationFrame(() => { window.moveMs = performance.now() - window.moveStart; }));
});
watch.observe(img, {attributes: true, attributeFilter: ["src"]});
"""
MOVES = 9  # timed moves per demo (alternately right and left): the median is reported


WINDOW = (1366, 768)  # the browser window: a common laptop screen


def chromium(profile_dir):
    """A headless Chromium the size of :data:`WINDOW`, with its profile in ``profile_dir``."""
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--hide-scrollbars", f"--window-size={WINDOW[0]},{WINDOW[1]}",
                 "--force-device-scale-factor=1", f"--user-data-dir={profile_dir}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=webdriver.ChromeService(executable_path=shutil.which("chromedriver")),
                            options=options)


def open_demo_page(driver, url, n_demos, seconds=240):
    """Load a demo page and wait until each of its ``n_demos`` figures is shown; return the figures' img elements."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    return WebDriverWait(driver, seconds).until(
        lambda d: [img for img in d.find_elements(By.CSS_SELECTOR, "img.widget-image")
                   if (img.get_attribute("src") or "").startswith(("blob:", "data:"))]
        if len(d.find_elements(By.CSS_SELECTOR, "img.widget-image")) == n_demos else None)


def timed_moves(driver, image, handle, moves, seconds=240, left_first=False):
    """Move a slider's ``handle`` one step ``moves`` times (right, left, ...; left first at the top of its range)
    with real key presses; return the times in ms from each key press to ``image``'s new figure decoded and
    painted."""
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    keys = (Keys.ARROW_LEFT, Keys.ARROW_RIGHT) if left_first else (Keys.ARROW_RIGHT, Keys.ARROW_LEFT)
    latencies = []
    for move in range(moves):
        driver.execute_script(_WATCH_MOVE, image)
        handle.send_keys(keys[move % 2])
        latencies.append(WebDriverWait(driver, seconds).until(lambda d: d.execute_script("return window.moveMs")))
    return latencies


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One Voilà server for the demo folder and one headless Chromium the size of a 1366 x 768 screen."""
    _browser_or_skip()
    process, index_url = interactive.serve_demo(quiet=True)
    driver = None
    try:
        _wait_for(index_url, 120)
        driver = chromium(tmp_path_factory.mktemp("chromium"))
        yield driver, index_url
    finally:
        if driver is not None:
            driver.quit()
        process.terminate()
        process.wait(timeout=30)


def _shots_dir(tmp_path):
    shots = Path(os.environ.get("DEMO_SCREENSHOT_DIR", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    return shots


@pytest.mark.browser
@pytest.mark.slow
def test_index_page_links_every_demo_in_chromium(browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver, index_url = browser
    driver.get(index_url)
    links = WebDriverWait(driver, 240).until(lambda d: d.find_elements(By.CSS_SELECTOR, "li a[href$='.ipynb']"))
    assert [Path(link.get_attribute("href")).stem for link in links] == DEMOS  # in the lessons' order
    assert all(link.text and link.is_displayed() for link in links)
    driver.save_screenshot(str(_shots_dir(tmp_path) / "demo_index.png"))


def _kernels(process):
    """The kernels a Voilà server process has started (its children running ipykernel). A child that exits while it
    is read (a culled kernel: gone, or a zombie not yet reaped) is not a running kernel."""
    import psutil

    kernels = []
    for child in psutil.Process(process.pid).children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE and "ipykernel" in " ".join(child.cmdline()):
                kernels.append(child)
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            continue
    return kernels


@pytest.mark.browser
@pytest.mark.slow
def test_a_closed_pages_kernel_is_shut_down_once_idle(browser):
    """A class's server must not keep a kernel for every page ever opened: once its page is closed, a demo's kernel
    is culled after ``cull_idle_seconds`` idle (here 2 s, on a server of its own)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver, _ = browser
    process, url = interactive.serve_demo(FAST_TIER_DEMO, quiet=True, cull_idle_seconds=2)
    try:
        _wait_for(url, 120)
        driver.get(url)
        WebDriverWait(driver, 240).until(lambda d: d.find_elements(By.CSS_SELECTOR, "img.widget-image"))
        assert len(_kernels(process)) >= 1  # the open page's kernel lives, idle or not
        driver.get("about:blank")  # the tab moves on: no page is connected to the kernel any more
        deadline = time.time() + 60
        while _kernels(process) and time.time() < deadline:
            time.sleep(1)
        assert not _kernels(process), "the closed page's kernel still runs a minute later"
    finally:
        process.terminate()
        process.wait(timeout=30)


def _steps(control, before, after):
    """How many slider steps lie between two readouts of ``control``."""
    if hasattr(control, "base"):  # FloatLogSlider: steps in the exponent
        return abs(math.log(after / before, control.base)) / control.step
    return abs(after - before) / control.step


FAST_TIER_DEMO = "linear_networks"  # the fast tier drives this demo in the browser; --full drives every one


@pytest.mark.browser
@pytest.mark.parametrize("name", [pytest.param(name, marks=[] if name == FAST_TIER_DEMO else [pytest.mark.slow])
                                  for name in DEMOS])
def test_demo_in_chromium(browser, name, tmp_path, record_property):
    """The demo loads without an error with its first figure on a 1366 x 768 screen; a drag of one step's width
    moves its first slider by about one step; each of a few moves shows a new figure (the time from key press to
    painted figure is recorded, not asserted); Reset brings every control back."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    driver, index_url = browser
    demos = _run_in_process(name)
    first = next(c for c in demos[0].controls.values() if hasattr(c, "step") and not hasattr(c, "options"))
    images = open_demo_page(driver, index_url.replace("index.ipynb", f"{name}.ipynb"), len(demos))
    wait = WebDriverWait(driver, 240)
    page = driver.find_element(By.TAG_NAME, "body").text
    assert "Traceback" not in page and "There was an error" not in page, page[-2000:]
    # the first figure is in the first view of the page
    top, height, view = driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.top, r.height, window.innerHeight];", images[0])
    driver.save_screenshot(str(_shots_dir(tmp_path) / f"demo_{name}.png"))
    assert height > 200 and top + height <= view, (name, top, height, view)

    handle = driver.find_elements(By.CSS_SELECTOR, ".noUi-handle")[0]
    boxes = lambda d: d.find_elements(By.CSS_SELECTOR, ".ld-value input")  # noqa: E731  (the typed-value boxes)
    box = boxes(driver)[0]
    shown = lambda: interactive.parse_value(box.get_attribute("value"))  # noqa: E731
    start_readouts = [b.get_attribute("value") for b in boxes(driver)]
    track = driver.find_elements(By.CSS_SELECTOR, ".noUi-target")[0].size["width"]
    n_steps = ((first.max - first.min) / first.step)
    pixels = math.ceil(track / n_steps)  # one step's width on the track
    assert pixels <= 12, f"{name}: a step of the first slider is {pixels} px wide"
    # the box shows the first control's starting value once the page has settled (under load it can lag)
    start = interactive.format_value(first.value, hasattr(first, "base"))
    wait.until(lambda d: box.get_attribute("value") == start)
    before, figure = shown(), images[0].get_attribute("src")
    ActionChains(driver).click_and_hold(handle).move_by_offset(pixels, 0).release().perform()
    wait.until(lambda d: shown() != before and images[0].get_attribute("src") != figure)
    moved = _steps(first, before, shown())
    # the previous setting's faint trace is on by default
    assert driver.find_element(By.XPATH, "//label[contains(., 'faint trace of the previous setting')]//input"
                               ).is_selected()
    assert 0.5 <= moved <= 2.5, f"{name}: a drag of {pixels} px moved the first slider {moved:.2f} steps"

    latencies = timed_moves(driver, images[0], handle, MOVES)
    median = sorted(latencies)[len(latencies) // 2]
    record_property("median_move_ms", round(median, 1))
    with open(_shots_dir(tmp_path) / "latency.txt", "a") as out:
        out.write(f"{name} median {median:.0f} ms over {MOVES} moves: {' '.join(f'{t:.0f}' for t in latencies)}\n")

    for button in driver.find_elements(By.XPATH, "//button[contains(., 'Reset to defaults')]"):
        button.click()
    wait.until(lambda d: [b.get_attribute("value") for b in boxes(d)] == start_readouts)

    # typed values, in one box of each kind (whole numbers, decimals, powers of ten): a number with a comma and a
    # word are refused with a visible message beside the box; 1e3 is refused as out of range, or applied where the
    # range holds it
    sliders = [control for demo in demos for control in demo.controls.values() if hasattr(control, "value_box")]
    assert len(sliders) == len(boxes(driver)), (name, len(sliders), len(boxes(driver)))
    kinds = {}
    for index, control in enumerate(sliders):
        kinds.setdefault("log" if hasattr(control, "base") else type(control.value).__name__, index)

    def typed(index, text):
        box = boxes(driver)[index]
        box.send_keys(Keys.CONTROL, "a")  # select the number and type over it (clear() would submit an empty box)
        box.send_keys(text, Keys.ENTER)

    def message_of(index):  # the refusal shown under a box ("" while none, or while the widget re-renders)
        try:
            column = boxes(driver)[index].find_element(By.XPATH,
                                                       "./ancestor::div[contains(@class, 'widget-vbox')][1]")
            refused = column.find_elements(By.XPATH, ".//div[contains(@style, 'color: #b00')]")
            return refused[0].text if refused and refused[0].is_displayed() else ""
        except StaleElementReferenceException:
            return ""

    for kind, index in kinds.items():
        control = sliders[index]
        for text, reason in (("abc", "not a number"), ("2,5", "decimal point")):
            typed(index, text)
            wait.until(lambda d: reason in message_of(index), f"{name}: typed {text!r} into a {kind} box")
        low, high = ((control.base ** control.min, control.base ** control.max) if kind == "log"
                     else (control.min, control.max))
        typed(index, "1e3")
        if low <= 1e3 <= high:  # applied: the box shows it as the figure writes it, and no message is left
            wait.until(lambda d: boxes(d)[index].get_attribute("value") == interactive.format_value(
                1000 if kind == "int" else 1000.0, kind == "log") and not message_of(index))
        else:
            wait.until(lambda d: "outside the range" in message_of(index), f"{name}: typed '1e3' into a {kind} box")
    driver.save_screenshot(str(_shots_dir(tmp_path) / f"demo_{name}_refused.png"))

    # a setting outside the theory's range, typed into its box, shows each demo's warning on the page
    def warnings(d):  # the visible warnings that a setting leaves the theory's range
        try:
            return [e for e in d.find_elements(By.XPATH, "//*[contains(text(), \"Outside the theory's range\")]")
                    if e.is_displayed()]
        except StaleElementReferenceException:
            return []
    for button in driver.find_elements(By.XPATH, "//button[contains(., 'Reset to defaults')]"):
        button.click()
    wait.until(lambda d: [b.get_attribute("value") for b in boxes(d)] == start_readouts and not warnings(d))
    shown = 0
    for demo in demos:
        outside = _outside_setting(demo)
        if outside is None:
            continue
        for control_name, value in outside:
            control = demo.controls[control_name]
            typed(sliders.index(control), interactive.format_value(value, hasattr(control, "base")))
        shown += 1
        wait.until(lambda d: len(warnings(d)) == shown)
    assert shown >= 1, f"{name}: no demo of this lesson has a setting outside its theory's range on its grid"
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", warnings(driver)[0])
    driver.save_screenshot(str(_shots_dir(tmp_path) / f"demo_{name}_outside.png"))


def _outside_setting(demo):
    """A setting of the static grid at which the demo's check warns: one slider moved from the defaults, else two;
    as a list of (control name, value), None if it has no check or no such setting leaves the theory's range."""
    import itertools

    if demo._check is None:
        return None
    grid = {name: values for name, values in demo.static_grid().items() if hasattr(demo.controls[name], "value_box")}
    for count in (1, 2):
        for names in itertools.combinations(grid, count):
            for values in itertools.product(*(grid[name] for name in names)):
                if demo._check(**{**demo.defaults, **dict(zip(names, values))}):
                    return list(zip(names, values))
    return None


def test_the_static_player_precomputes_one_control_at_a_time_and_leaves_the_demo_as_it_was():
    """The documentation's player (no Python behind the page): a frame per position of each control with the others
    at their defaults, the default among the positions, one range input per control, and the live demo unchanged."""
    import base64

    demo = _typed_demo()
    demo.update(n=8)
    image, values = bytes(demo.image.value), demo.values
    grid = demo.static_grid(points=5)
    assert grid["n"] == sorted(set(grid["n"])) and 4 in grid["n"] and grid["n"][0] == 2 and grid["n"][-1] == 64
    assert 1e-2 in grid["slope"] and grid["slope"][0] == pytest.approx(1e-6)  # log slider: whole and half decades
    page = demo.static_html(points=5)
    data = json.loads(re.search(r"const d = (\{.*?\});const img", page).group(1))
    assert [len(c["frames"]) for c in data["controls"]] == [len(grid["slope"]), len(grid["n"])]
    assert page.count("type='range'") == 2 and "(log scale)" in page
    # one frame per distinct setting: the defaults' frame is shared by both controls
    assert len(data["frames"]) == len(grid["slope"]) + len(grid["n"]) - 1
    assert all(base64.b64decode(f).startswith(b"\x89PNG") for f in data["frames"])
    assert demo.values == values and bytes(demo.image.value) == image


@pytest.mark.parametrize("typed, number", [("100", 100.0), ("106", 106.0), ("10", 10.0), ("10⁶", 1e6), ("10^6", 1e6),
                                           ("10⁻⁶", 1e-6), ("3×10⁻⁴", 3e-4), ("2.5×10^3", 2500.0), (" 2.5 ", 2.5),
                                           ("1e-3", 1e-3), ("-0.5", -0.5)])
def test_typed_numbers_are_read_as_written(typed, number):
    """A plain integer is that integer (100 is a hundred, not 10⁰), and a power of ten needs its exponent marked (^
    or superscripts)."""
    assert interactive.parse_value(typed) == number
    assert interactive.parse_value(interactive.format_value(number, log=True)) == pytest.approx(number, rel=1e-3)
