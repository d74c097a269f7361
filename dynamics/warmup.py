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

import dynamics

__all__ = ["example_modules", "warm_up"]


def example_modules() -> list:
    """Names of the :mod:`dynamics` modules whose examples the warm-up runs (torch modules excluded)."""
    names = []
    for info in pkgutil.walk_packages(dynamics.__path__, prefix="dynamics."):
        last = info.name.rsplit(".", 1)[-1]
        if not last.startswith("torch") and info.name != "dynamics.warmup":
            names.append(info.name)
    return sorted(names)


def warm_up(progress=True) -> float:
    """Run every module's examples once; returns the seconds taken.

    Examples
    --------
    >>> isinstance(warm_up, object)
    True
    """
    from tqdm.auto import tqdm

    start = time.perf_counter()
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    modules = example_modules()
    for name in tqdm(modules, desc="compiling dynamics kernels", disable=not progress, unit="module"):
        module = importlib.import_module(name)
        for test in finder.find(module):
            runner.run(test, out=lambda _text: None)
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dynamics.warmup", description=warm_up.__doc__.splitlines()[0])
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    seconds = warm_up(progress=not args.quiet)
    print(f"dynamics: kernels ready in {seconds:.1f} s (cached on disk)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
