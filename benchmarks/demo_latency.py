"""How long a slider move of each teaching notebook takes in Python, after the first call has compiled the kernels:
the recompute alone, and the whole move (recompute, in-place update of the figure, Agg drawing, PNG encoding); the
median over moves to four positions across each control's range, per demo and control. What a student sees in the
browser (this plus the transfer and the painting) is recorded by the browser test, ``tests/test_demos.py``.

    python benchmarks/demo_latency.py

The test suite asserts what is deterministic (one recompute per move, nothing compiled on a second pass); the times
live here, where a busy machine changes a report, not a verdict.
"""
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from test_demos import DEMOS, _positions, _run_in_process  # noqa: E402


def main():
    print(f"{'demo':18s} {'control':28s} {'compute ms':>10s} {'move ms':>8s} {'max move':>8s}")
    for name in DEMOS:
        for demo in _run_in_process(name):
            for control_name, control in demo.controls.items():
                values = [v for v in _positions(control) if v != control.value] + [control.value]
                demo.update(**{control_name: values[0]})  # compile what this control's first move needs
                before, drawn = len(demo.compute_seconds), len(demo.redraw_seconds)
                for value in values[1:] + values[:1]:
                    demo.update(**{control_name: value})
                times, moves = demo.compute_seconds[before:], demo.redraw_seconds[drawn:]
                if moves:
                    print(f"{name:18s} {control_name:28s} {1e3 * statistics.median(times):10.1f} "
                          f"{1e3 * statistics.median(moves):8.1f} {1e3 * max(moves):8.1f}")


if __name__ == "__main__":
    main()
