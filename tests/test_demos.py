"""The teaching notebooks (``figures/demos``): stored without outputs, calling only public functions, executing
headless without error, recomputing once per slider move without compiling, and served as a web app that reacts to a
slider in a real browser (headless Chromium driven by selenium; marked ``browser``).

The browser test skips with its reason outside CI when Chromium, chromedriver, selenium or Voilà is missing,
and fails under CI (``CI=true``), which installs them.
"""
import ast
import json
import os
import shutil
import time
import urllib.request
from pathlib import Path

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
        assert "Try this" in text and any(author in text for author in authors), \
            f"{name}: a lesson names its source (one of {sorted(authors)}) and has a 'Try this' prompt"


def test_choice_takes_options_or_label_value_pairs():
    assert interactive.choice(["a", "b"]).value == "a"
    assert interactive.choice([("ERM", "erm"), ("SUBG", "subg")]).value == "erm"
    assert interactive.choice([("ERM", "erm"), ("SUBG", "subg")], value="subg").label == "SUBG"


def test_reset_restores_the_defaults_with_one_recompute():
    import ipywidgets as w

    demo = interactive.Demo(compute=lambda slope, offset: [offset, offset + slope],
                            plot=lambda fig, y, slope, offset: fig.subplots().plot(y),
                            controls={"slope": interactive.slider(1.0, 0.0, 2.0, description="a long slope label"),
                                      "offset": w.FloatSlider(value=0.0, min=-1.0, max=1.0)})
    demo.update(slope=2.0, offset=0.5)
    before = len(demo.compute_seconds)
    demo.reset_button.click()
    assert demo.values == {"slope": 1.0, "offset": 0.0} == demo.defaults
    assert len(demo.compute_seconds) == before + 1
    assert demo.status.value == ""  # the "computing…" note is cleared once the figure is drawn
    # the long label sits above its slider, whose track keeps the full width; the image is shown at its own size
    labelled = demo.widget.children[0].children[0]
    assert "a long slope label" in labelled.children[0].value and labelled.children[1].description == ""
    assert demo.image.layout.width == f"{demo.figsize[0] * demo.dpi:.0f}px"


def test_demo_output_carries_its_figure_as_a_png_for_static_pages(monkeypatch):
    """The documentation renders the notebooks without a kernel: a demo's output holds the live widget and a PNG of
    the figure at the current values, which the static page shows."""
    import base64

    import ipywidgets as w
    from IPython import display as ipy_display

    shown = []
    monkeypatch.setattr(ipy_display, "display", lambda obj, raw=False: shown.append((obj, raw)))
    demo = interactive.Demo(compute=lambda slope: [0.0, slope], plot=lambda fig, y, slope: fig.subplots().plot(y),
                            controls={"slope": w.FloatSlider(value=1.0, min=0.0, max=2.0)})
    demo._ipython_display_()
    (bundle, raw), = shown
    assert raw and "application/vnd.jupyter.widget-view+json" in bundle
    assert base64.b64decode(bundle["image/png"]) == demo.image.value
    assert bytes(demo.image.value).startswith(b"\x89PNG")


@pytest.mark.parametrize("name", DEMOS)
def test_notebook_is_stored_without_outputs(name):
    raw = json.loads((interactive.demo_dir() / f"{name}.ipynb").read_text())
    for cell in raw["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, f"{name}: clear the outputs"


@pytest.mark.parametrize("name", DEMOS)
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
    """Moving any control to four positions across its range recomputes once per move, without an error; a second
    pass over the same positions compiles no kernel (the first may: it is the first call). How long a move takes is
    measured by ``benchmarks/demo_latency.py``, not asserted here."""
    demos = _run_in_process(name)
    assert demos, f"{name} builds no Demo"
    for demo in demos:
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
BROWSER_DEMO = "double_descent"


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


@pytest.mark.browser
@pytest.mark.slow
def test_demo_web_app_reacts_to_a_slider_in_chromium(tmp_path):
    _browser_or_skip()
    from selenium import webdriver
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    assert BROWSER_DEMO in DEMOS
    process, url = interactive.serve_demo(BROWSER_DEMO, quiet=True)
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,1400", f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = None
    try:
        _wait_for(url, 120)
        driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=shutil.which("chromedriver")),
                                  options=options)
        driver.get(url)
        wait = WebDriverWait(driver, 240)
        image = wait.until(lambda d: next((img for img in d.find_elements(By.CSS_SELECTOR, ".widget-image img, img")
                                           if (img.get_attribute("src") or "").startswith("blob:")
                                           or (img.get_attribute("src") or "").startswith("data:")), None))
        before = image.get_attribute("src")
        handle = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, ".noUi-handle"))
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", handle)
        handle.click()
        for _ in range(5):
            handle.send_keys(Keys.ARROW_RIGHT)
        changed = WebDriverWait(driver, 120).until(
            lambda d: next((img for img in d.find_elements(By.CSS_SELECTOR, ".widget-image img, img")
                            if img.get_attribute("src") not in (None, "", before)), None))
        assert changed is not None
        shots = Path(os.environ.get("DEMO_SCREENSHOT_DIR", tmp_path))
        shots.mkdir(parents=True, exist_ok=True)
        time.sleep(1.0)  # let the new image paint
        driver.save_screenshot(str(shots / f"demo_{BROWSER_DEMO}.png"))
    finally:
        if driver is not None:
            driver.quit()
        process.terminate()
        process.wait(timeout=30)
