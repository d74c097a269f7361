"""``python -m dynamics.warmup``: compile (or load from the disk cache) every numba kernel the public API
uses, with a progress bar, so that a first interactive call does not wait.

It runs the example of every public function (the numpydoc ``Examples``, which exercise each function as
a user calls it), module by module, output discarded. The optional torch modules are skipped.
"""
import argparse
import doctest
import importlib
import pkgutil
import sys
import time
from typing import NamedTuple, Optional, Sequence

import dynamics

__all__ = ["WarmUpReport", "example_modules", "warm_up"]


class WarmUpReport(NamedTuple):
    """What a warm-up did: wall ``seconds``, the number of ``examples`` run and how many of them ``failed``
    (raised an exception; outputs are not compared here, the test suite's doctests do that)."""

    seconds: float
    examples: int
    failed: int


class _Runner(doctest.DocTestRunner):
    """Runs examples for their side effect (compilation): counts the ones that raise, ignores outputs."""

    raised = 0

    def report_failure(self, out, test, example, got):
        pass

    def report_unexpected_exception(self, out, test, example, exc_info):
        self.raised += 1


def example_modules() -> list:
    """Names of the :mod:`dynamics` modules whose examples the warm-up runs (torch modules excluded).

    Examples
    --------
    >>> names = example_modules()
    >>> "dynamics.numerics.ode" in names, any("torch" in name for name in names)
    (True, False)
    """
    names = []
    for info in pkgutil.walk_packages(dynamics.__path__, prefix="dynamics."):
        last = info.name.rsplit(".", 1)[-1]
        if not last.startswith("torch") and info.name != "dynamics.warmup":
            names.append(info.name)
    return sorted(names)


def warm_up(modules: Optional[Sequence[str]] = None, progress=True) -> WarmUpReport:
    """Run the examples of ``modules`` (default: :func:`example_modules`) once, compiling what they call.

    Parameters
    ----------
    modules : sequence of str, optional
        Module names of :mod:`dynamics`.
    progress : bool
        Show a progress bar.

    Returns
    -------
    WarmUpReport
        Seconds taken, examples run and examples that raised (a bug: report it).

    Examples
    --------
    >>> report = warm_up(["dynamics.numerics.special"], progress=False)
    >>> report.examples > 0, report.failed
    (True, 0)
    """
    from tqdm.auto import tqdm

    start = time.perf_counter()
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = _Runner()
    names = example_modules() if modules is None else list(modules)
    for name in tqdm(names, desc="compiling dynamics kernels", disable=not progress, unit="module"):
        module = importlib.import_module(name)
        for test in finder.find(module):
            runner.run(test, out=lambda _text: None)
    return WarmUpReport(time.perf_counter() - start, runner.tries, runner.raised)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dynamics.warmup", description=warm_up.__doc__.splitlines()[0])
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    report = warm_up(progress=not args.quiet)
    print(f"dynamics: kernels ready in {report.seconds:.1f} s (cached on disk); {report.examples} examples run",
          file=sys.stderr)
    if report.failed:
        print(f"dynamics: {report.failed} examples raised (a bug: run pytest --doctest-modules dynamics)",
              file=sys.stderr)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
