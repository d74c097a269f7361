"""What a student waits for in the browser: per teaching demo, the median time from a key press on a slider to the
new figure decoded and painted, over every slider of every demo, against a Voilà server on this machine.

    python benchmarks/demo_browser.py [--moves 9] [--out benchmarks/results/demo_browser.json]

Needs Debian's chromium and chromium-driver, selenium and Voilà (the demos extra). One Voilà server serves the demo
folder and one headless Chromium opens each lesson in a window of ``tests/test_demos.WINDOW`` (1366 x 768 CSS pixels,
device scale 1). For each slider, ``--moves`` one-step moves alternate right and left (left first at the top of the
range), each timed in the page (``tests/test_demos.timed_moves``). A move whose figure does not change within 20 s
(a slider that leaves this figure as it is) is counted as such, not timed. The report holds the provenance (commit,
date, CPU count, load average before and after, versions) and, per demo and per slider, the moves' times.

The browser test in ``tests/test_demos.py`` drives the same pages and asserts what is deterministic; the times live
here, where a busy machine changes a report, not a verdict: run it on a quiet machine.
"""
import argparse
import datetime
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from test_demos import WINDOW, _run_in_process, _wait_for, chromium, open_demo_page, timed_moves  # noqa: E402

from figures import interactive  # noqa: E402


def provenance():
    import selenium
    import voila

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    browser = subprocess.run(["chromium", "--version"], capture_output=True, text=True).stdout.strip()
    return {"commit": commit.stdout.strip() or "unknown",
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "cpu_count": os.cpu_count(), "load_before": os.getloadavg(), "window_css_px": WINDOW,
            "device_scale": 1, "browser": browser, "selenium": selenium.__version__, "voila": voila.__version__}


def main(argv=None):
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=9, help="timed one-step moves per slider (default 9)")
    parser.add_argument("--only", default=None, help="comma-separated lesson names (default: every lesson)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "demo_browser.json"))
    args = parser.parse_args(argv)
    if args.moves < 1:
        parser.error(f"--moves must be at least 1, got {args.moves}")
    lessons = args.only.split(",") if args.only else interactive.list_demos()
    report = {"provenance": provenance(), "moves_per_slider": args.moves, "demos": []}
    process, index_url = interactive.serve_demo(quiet=True)
    driver = None
    try:
        _wait_for(index_url, 120)
        driver = chromium(tempfile.mkdtemp(prefix="ld-bench-"))
        print(f"{'lesson':16s} {'demo':>4s} {'slider':12s} {'median ms':>9s} {'max ms':>7s}  image px", flush=True)
        for lesson in lessons:
            demos = _run_in_process(lesson)
            images = open_demo_page(driver, index_url.replace("index.ipynb", f"{lesson}.ipynb"), len(demos))
            handles = iter(driver.find_elements(By.CSS_SELECTOR, ".noUi-handle"))
            for number, (demo, image) in enumerate(zip(demos, images), start=1):
                size = image.size
                row = {"lesson": lesson, "demo": number, "image_css_px": [size["width"], size["height"]],
                       "sliders": {}}
                for name, control in demo.controls.items():
                    if not hasattr(control, "value_box"):
                        continue
                    handle = next(handles)
                    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", handle)
                    position = (math.log(control.value, control.base) if hasattr(control, "base")
                                else control.value)  # a log slider's range is in the exponent
                    try:
                        times = timed_moves(driver, image, handle, args.moves, seconds=20,
                                            left_first=position >= control.max - control.step / 2)
                    except TimeoutException:
                        row["sliders"][name] = {"ms": None, "note": "no new figure within 20 s", "handle_at": (
                            handle.get_attribute("aria-valuenow")), "page_text": driver.find_element(
                            By.TAG_NAME, "body").text[-300:]}
                        print(f"{lesson:16s} {number:4d} {name:12s} {'-':>9s} {'-':>7s}  (no new figure)")
                        continue
                    row["sliders"][name] = {"ms": [round(t, 1) for t in times]}
                    print(f"{lesson:16s} {number:4d} {name:12s} {statistics.median(times):9.0f} {max(times):7.0f}  "
                          f"{size['width']}x{size['height']}", flush=True)
                every = [t for s in row["sliders"].values() if s["ms"] for t in s["ms"]]
                row["median_ms"] = round(statistics.median(every), 1) if every else None
                row["max_ms"] = round(max(every), 1) if every else None
                report["demos"].append(row)
    finally:
        if driver is not None:
            driver.quit()
        process.terminate()
        process.wait(timeout=30)
    report["provenance"]["load_after"] = os.getloadavg()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1))
    print("\nper demo (all sliders):")
    for row in report["demos"]:
        print(f"  {row['lesson']:16s} demo {row['demo']}: median {row['median_ms']} ms, max {row['max_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
