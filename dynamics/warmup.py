"""``python -m dynamics.warmup``: compile (or load from the disk cache) every numba kernel the public API
uses, with a progress bar, so that a first interactive call does not wait.

It runs the example of every public function (the numpydoc ``Examples``, which exercise each function as
a user calls it), module by module, output discarded. The optional torch modules are skipped.

``--clear`` first deletes the compiled kernels numba cached for ``dynamics``. Numba keys each cache entry by
the source file of the function compiled, not by the files of the functions it calls: after an edit to a kernel
that other modules call (the integrators in ``dynamics/numerics``, say), their cached callers still hold the old
code. Clear the cache after such an edit.
"""
import argparse
import doctest
import importlib
import pkgutil
import sys
import time
from pathlib import Path
from typing import NamedTuple, Optional, Sequence

import dynamics
from dynamics.theories import CORE, THEORIES

__all__ = ["WarmUpReport", "clear_kernel_cache", "example_modules", "warm_up"]


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
    """Names of the ``dynamics`` modules whose examples the warm-up runs (torch modules excluded).

    Parameters
    ----------
    None

    Returns
    -------
    list of str
        Dotted module names, sorted.

    Examples
    --------
    >>> names = example_modules()
    >>> "dynamics.numerics.ode" in names, any("torch" in name for name in names)
    (True, False)
    """
    names = []
    for package in (CORE,) + THEORIES:  # the registry names the packages; their modules are found by walking them
        root = importlib.import_module(package.package)
        names.append(package.package)
        torch_layer = {f"{package.package}.{name}" for name in package.torch_modules}  # declared in the registry
        for info in pkgutil.walk_packages(root.__path__, prefix=f"{package.package}."):
            if info.name not in torch_layer:
                names.append(info.name)
    return sorted(names)


def warm_up(modules: Optional[Sequence[str]] = None, progress: bool = True) -> WarmUpReport:
    """Run the examples of ``modules`` (default: ``example_modules``) once, compiling what they call.

    Parameters
    ----------
    modules : sequence of str, optional
        Module names of ``dynamics``.
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


def clear_kernel_cache() -> int:
    """Delete numba's cached kernels of ``dynamics`` (its ``*.nbi`` index and ``*.nbc`` object files: in the
    package's ``__pycache__`` folders, and under ``NUMBA_CACHE_DIR`` when that is set, the entries whose path names
    ``dynamics``). The next call of each kernel compiles it again.

    Parameters
    ----------
    None

    Returns
    -------
    int
        How many files it deleted.

    Examples
    --------
    >>> from dynamics.warmup import clear_kernel_cache
    >>> clear_kernel_cache()  # doctest: +SKIP
    412
    """
    import numba

    targets = list(Path(dynamics.__file__).resolve().parent.rglob("*.nb[ic]"))
    if numba.config.CACHE_DIR:
        targets += [path for path in Path(numba.config.CACHE_DIR).rglob("*.nb[ic]") if "dynamics" in str(path)]
    for path in targets:
        path.unlink(missing_ok=True)
    return len(targets)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command ``python -m dynamics.warmup [--quiet] [--clear]``: compile every kernel the examples call.

    Parameters
    ----------
    argv : sequence of str, optional
        The command-line arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0, or 1 when an example raised.

    Examples
    --------
    >>> main(["--help"])  # doctest: +SKIP
    """
    parser = argparse.ArgumentParser(prog="python -m dynamics.warmup", description=warm_up.__doc__.splitlines()[0])
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--clear", action="store_true",
                        help="delete the cached kernels first (after editing a kernel that other modules call)")
    args = parser.parse_args(argv)
    if args.clear:
        print(f"dynamics: {clear_kernel_cache()} cached kernel files deleted", file=sys.stderr)
    report = warm_up(progress=not args.quiet)
    print(f"dynamics: kernels ready in {report.seconds:.1f} s (cached on disk); {report.examples} examples run",
          file=sys.stderr)
    if report.failed:
        print(f"dynamics: {report.failed} examples raised (a bug: run pytest --doctest-modules dynamics)",
              file=sys.stderr)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
