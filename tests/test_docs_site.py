"""The built documentation site, served on localhost and opened in headless Chromium as a reader would.

The site is built by ``python -m sphinx -W -n -b html docs docs/_build/html`` (``.ci/run`` builds it before the
tests; ``LD_DOCS_HTML`` points elsewhere). Without a built site or a browser the tests skip, except under CI.
The fast tier opens one API page and one teaching notebook as the static site shows it; ``--full`` adds the rest.
``DOCS_SCREENSHOT_DIR=DIR`` keeps the screenshots (the ones in ``docs/_static/screenshots`` were taken so).
"""
import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

from verify import registry

ROOT = Path(__file__).resolve().parents[1]
SITE = Path(os.environ.get("LD_DOCS_HTML", ROOT / "docs" / "_build" / "html"))
pytestmark = pytest.mark.browser


def _site_and_browser_or_skip():
    missing = [tool for tool in ("chromium", "chromedriver") if shutil.which(tool) is None]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium")
    if not (SITE / "index.html").exists():
        missing.append(f"a built site in {SITE} (build it with the README's documentation command: "
                       "python -m sphinx -W -n -b html docs docs/_build/html)")
    if missing:
        reason = f"needs {', '.join(missing)}"
        if registry.in_ci():
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture(scope="module")
def site():
    """(base URL, driver): the site served on a free localhost port, and a headless Chromium."""
    _site_and_browser_or_skip()
    from selenium import webdriver

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    profile = ROOT / ".cache" / f"chromium-docs-{os.getpid()}"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update", "--disable-dev-shm-usage",
                 "--window-size=1280,1000", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=shutil.which("chromedriver")),
                              options=options)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", driver
    finally:
        driver.quit()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


def _screenshot(driver, name, tmp_path):
    shots = Path(os.environ.get("DOCS_SCREENSHOT_DIR", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(shots / name))


@pytest.mark.slow
def test_search_finds_keep_probability(site, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    base, driver = site
    driver.get(f"{base}/search.html?q=keep_probability")
    links = WebDriverWait(driver, 60).until(
        lambda d: [a for a in d.find_elements(By.CSS_SELECTOR, "#search-results a")
                   if "keep_probability" in (a.get_attribute("href") or "")] or None)
    assert any("/api/generated/dynamics.and_mask.keep_probability.html" in a.get_attribute("href") for a in links)
    _screenshot(driver, "search.png", tmp_path)


# Plain-language questions of the glossary and the recipes, and where their answer lives (docs/_static/ld-scorer.js
# ranks a page whose name spells the words, or whose title holds the phrase, first).
SEARCHES = {"effective learning rate": "dynamics.spherical.torch_state.effective_learning_rates.html",
            "mode strength": "dynamics.linear_networks.mode_strength.html",
            "double descent curve": "plot_double_descent_own_kappa.html",
            "keep probability": "dynamics.and_mask.keep_probability.html",
            "Lambert W": "lambertw.html",
            "worst-group accuracy": "dynamics.spurious.worst_group_accuracy.html"}


def _search(driver, base, query):
    """The search page's results for ``query``, best first: [(link without anchor, snippet text)], once the search
    has finished and the first three results have their snippets (fetched one by one after the list)."""
    import time
    from urllib.parse import quote

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(f"{base}/search.html?q={quote(query)}")
    WebDriverWait(driver, 60).until(lambda d: any(
        "finished" in p.text or "did not match" in p.text
        for p in d.find_elements(By.CSS_SELECTOR, "#search-results p.search-summary")))

    def read():
        found = []
        for item in driver.find_elements(By.CSS_SELECTOR, "#search-results ul.search > li"):
            link = item.find_element(By.CSS_SELECTOR, "a").get_attribute("href").split("#")[0]
            snippets = item.find_elements(By.CSS_SELECTOR, "p.context")
            # an object's result (a function, a class) has no snippet; a page's gets one once its page is fetched
            waiting = not snippets and "kind-object" not in (item.get_attribute("class") or "")
            found.append((link, snippets[0].text if snippets else "", waiting))
        return found

    found = read()
    for _ in range(40):
        if not any(waiting for _, _, waiting in found[:3]):
            break
        time.sleep(0.25)
        found = read()
    return [(link, snippet) for link, snippet, _ in found]


@pytest.mark.slow
def test_search_answers_plain_questions(site):
    """Each question of SEARCHES finds its page among the first 3 results; no page is listed twice; no snippet
    shows LaTeX source. A query of nothing the site holds finds nothing (so the check can fail)."""
    base, driver = site
    assert _search(driver, base, "xyzzyq plughq") == []
    for query, page in SEARCHES.items():
        found = _search(driver, base, query)
        links = [link for link, _ in found]
        assert any(link.endswith(page) for link in links[:3]), f"{query!r}: top 3 {links[:3]}"
        assert len(links) == len(set(links)), f"{query!r}: a page listed twice in {links}"
        raw = [snippet for _, snippet in found if any(t in snippet for t in ("\\(", "\\frac", "\\mathrm", "\\["))]
        assert not raw, f"{query!r}: LaTeX source in snippets {raw[:2]}"


def test_api_page_renders_its_maths_offline(site, tmp_path):
    """MathJax is served from the site itself (no network here): the formula becomes MathJax's output."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    base, driver = site
    driver.get(f"{base}/api/generated/dynamics.and_mask.keep_probability.html")
    assert "keep_probability" in driver.find_element(By.TAG_NAME, "h1").text
    script = next(s.get_attribute("src") for s in driver.find_elements(By.TAG_NAME, "script")
                  if "tex-chtml" in (s.get_attribute("src") or ""))
    assert script.startswith(base), f"MathJax is loaded from {script}, not from the site"
    rendered = WebDriverWait(driver, 60).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "mjx-container") or None)
    assert rendered[0].size["width"] > 20  # typeset, not the raw TeX
    _screenshot(driver, "api_keep_probability.png", tmp_path)


@pytest.mark.slow
def test_gallery_images_load(site, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    base, driver = site
    driver.get(f"{base}/gallery/index.html")
    images = WebDriverWait(driver, 60).until(
        lambda d: [img for img in d.find_elements(By.TAG_NAME, "img") if "_images/" in (img.get_attribute("src") or "")]
        or None)
    widths = [driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img)
              for img in images]
    assert len(images) >= 10 and all(w and w > 100 for w in widths), widths
    _screenshot(driver, "gallery.png", tmp_path)


def test_static_notebook_page_shows_its_figure(site, tmp_path):
    """A teaching notebook as the static site shows it (executed at its defaults by myst-nb, no Python behind the
    page): its figure is a PNG that loads, and no error output or compile notice is on the page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    base, driver = site
    driver.get(f"{base}/notebooks/linear_networks.html")
    images = WebDriverWait(driver, 60).until(
        lambda d: [img for img in d.find_elements(By.CSS_SELECTOR, ".cell_output img")
                   if driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img)]
        or None)
    assert images[0].size["width"] > 300, images[0].size
    text = driver.find_element(By.TAG_NAME, "body").text
    assert not driver.find_elements(By.CSS_SELECTOR, ".cell_output .traceback") and "Traceback" not in text
    assert "compiling numba kernels" not in text  # the build silences the first-use notice (docs/conf.py)
    # the precomputed player: moving a control shows another frame, with no kernel behind the page
    player = driver.find_elements(By.CSS_SELECTOR, ".ld-static")[0]
    frame = player.find_element(By.CSS_SELECTOR, "img.ld-static-frame")
    before = frame.get_attribute("src")
    slider = player.find_elements(By.CSS_SELECTOR, "input[type=range]")[0]
    driver.execute_script("arguments[0].value = 0; arguments[0].dispatchEvent(new Event('input'));", slider)
    assert frame.get_attribute("src") != before, "moving a static slider did not change the frame"
    # a lesson step's button shows that step's precomputed frame in the player and writes its values by the sliders
    moved = frame.get_attribute("src")
    step = driver.find_elements(By.CSS_SELECTOR, ".ld-static-steps button")[0]
    assert step.text.startswith("Step 1")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", step)
    step.click()
    assert frame.get_attribute("src") not in (before, moved), "a static step button did not change the frame"
    note = driver.find_elements(By.CSS_SELECTOR, ".ld-static-step-note")[0].text
    assert note.startswith("Step 1") and "precomputed" in note
    # the notebook can be downloaded from its page, and its links to the theory note reach the note's page
    download = driver.find_element(By.PARTIAL_LINK_TEXT, "Download this notebook")
    assert download.get_attribute("href").endswith("linear_networks.ipynb")
    notes = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "a")
             if "theory/linear_networks" in (a.get_attribute("href") or "")]
    assert notes and all("/docs/" not in href for href in notes), notes
    _screenshot(driver, "static_notebook_linear_networks.png", tmp_path)


@pytest.mark.slow
def test_header_citations_and_left_navigation(site, tmp_path):
    """The cite-this page gives the software's BibTeX entry and plain citation at the package's version, the bar
    shows that version and reaches the claims, the errata, the notebooks and the reproduction table on one line
    without "More", and a top-level page with no subpages of its own (the bibliography) keeps the site's navigation in
    its left column."""
    from selenium.webdriver.common.by import By

    import dynamics

    base, driver = site
    driver.get(f"{base}/citing.html")
    text = driver.find_element(By.TAG_NAME, "article").text
    assert "@software{learning_dynamics" in text and f"version = {{{dynamics.__version__}}}" in text
    assert f"version {dynamics.__version__} [software]" in text

    driver.get(f"{base}/bibliography.html")
    assert driver.find_element(By.CSS_SELECTOR, ".bd-header .ld-version").text == f"v{dynamics.__version__}"
    links = driver.find_elements(By.CSS_SELECTOR, ".bd-header .bd-navbar-elements > li")
    before_more = [li.text.strip() for li in links if li.is_displayed() and "dropdown" not in li.get_attribute("class")]
    assert {"Notebooks", "Claims", "Errata", "Reproduction"} <= set(before_more), before_more
    tops = [li.rect["y"] for li in links if li.is_displayed()]
    assert max(tops) - min(tops) < 10, f"the bar wraps onto a second line: {tops}"
    sidebar = driver.find_element(By.ID, "pst-primary-sidebar")
    assert sidebar.size["width"] > 100
    sidebar_links = {a.text.strip() for a in sidebar.find_elements(By.TAG_NAME, "a")}
    assert {"Theory notes", "Glossary", "Contributing"} <= sidebar_links, sidebar_links
    _screenshot(driver, "bibliography.png", tmp_path)


# What leaves its column on a page: every element of the article and of the two sidebars whose right edge passes
# its container's, unless an element between them scrolls or clips it (a table or code block in its own frame);
# and the display equations that still need their own scroll bar after ld-fit.js scaled them down.
_OVERFLOW = """
const scrolls = (el, stop) => { for (let p = el.parentElement; p && p !== stop; p = p.parentElement) {
  if (["auto", "scroll", "hidden", "clip"].includes(getComputedStyle(p).overflowX)) return true; } return false; };
const found = [];
for (const sel of ["article.bd-article", ".bd-sidebar-secondary", ".bd-sidebar-primary"]) {
  const box = document.querySelector(sel);
  if (!box || box.getBoundingClientRect().width === 0) continue;
  const edge = box.getBoundingClientRect().right + 1;
  for (const el of box.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (!el.matches("a.headerlink") && r.width > 0 && r.height > 0 && r.right > edge && !scrolls(el, box))
      found.push(`${sel} ${el.tagName.toLowerCase()} +${Math.round(r.right - edge)} px: ` +
                 (el.textContent || "").trim().slice(0, 60));
  }
}
const equations = [...document.querySelectorAll('mjx-container[display="true"]')].filter(
  (eq) => eq.clientWidth > 0 && eq.scrollWidth > eq.clientWidth + 1).map((eq) => (eq.textContent || "").slice(0, 60));
return {page: document.documentElement.scrollWidth - window.innerWidth, elements: found, equations: equations};
"""
_TYPESET = ("const done = arguments[arguments.length - 1]; (window.MathJax && MathJax.startup && MathJax.startup.promise"
            " ? MathJax.startup.promise : Promise.resolve()).then(() => setTimeout(done, 50));")


def _pages():
    return sorted(str(p.relative_to(SITE)) for p in SITE.rglob("*.html")
                  if not {"_static", "_sources", "_images"} & set(p.relative_to(SITE).parts))


@pytest.mark.slow
@pytest.mark.parametrize("width", [1400, 800])
def test_no_page_runs_past_its_column(site, width):
    """Every page of the site at 1400 and at 800 px: nothing in the article or the sidebars runs past its column
    (tables and code blocks scroll in their own frame, long identifiers wrap), the page itself never scrolls
    sideways, and no display equation needs a scroll bar after being scaled to the column (down to 70%). First, the
    probe is shown to catch a planted wide table."""
    base, driver = site
    driver.set_window_size(width, 1000)
    pages = _pages()
    assert len(pages) > 100, f"only {len(pages)} pages in {SITE}"
    driver.get(f"{base}/getting_started.html")
    driver.execute_async_script(_TYPESET)
    driver.execute_script("const t = document.createElement('table'); t.innerHTML = '<tr><td style=\"white-space: "
                          "nowrap\">' + 'wide '.repeat(400) + '</td></tr>'; document.querySelector("
                          "'article.bd-article').appendChild(t);")
    planted = driver.execute_script(_OVERFLOW)
    assert any("wide wide" in e for e in planted["elements"]), f"the probe missed a planted wide table: {planted}"
    faults = []
    try:
        for page in pages:
            driver.get(f"{base}/{page}")
            driver.execute_async_script(_TYPESET)
            seen = driver.execute_script(_OVERFLOW)
            if seen["page"] > 0 or seen["elements"] or seen["equations"]:
                faults.append(f"{page}: page {seen['page']:+d} px; {len(seen['elements'])} elements, e.g. "
                              f"{seen['elements'][:2]}; equations {seen['equations'][:2]}")
    finally:
        driver.set_window_size(1280, 1000)
    assert not faults, f"{len(faults)} of {len(pages)} pages at {width} px:\n" + "\n".join(faults[:20])
