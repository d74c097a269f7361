"""The timing helper the benchmark scripts share (run them as ``python benchmarks/<name>.py``)."""
import time


def best_of(fn, repeats=5):
    """The minimum wall time of ``repeats`` calls of ``fn()``, after one call that is not counted (compilation,
    caches): the figure least disturbed by a busy machine."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)
