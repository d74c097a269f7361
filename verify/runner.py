"""Running claims in worker processes: on this machine (joblib's loky backend) or on a Dask cluster (joblib's
Dask backend), with results identical to, and reported in the order of, a serial run.

A unit of work is a claim id and a :class:`~verify.registry.RunContext`. A worker imports the claim modules,
runs the claim and returns plain result fields; the parent rebuilds the :class:`~verify.registry.ClaimResult`
around its own claim object, so that nothing unpicklable crosses a process boundary. Each worker is limited to
one BLAS, OpenMP and numba thread (``inner_max_num_threads=1`` for loky; applied in the worker function for
Dask, whose workers should also be started with one thread each): N workers use N cores, never N² threads.
numba's disk cache is shared by the workers (it writes each kernel atomically).
"""
import sys
from contextlib import contextmanager, nullcontext

from dynamics.numerics.threads import one_thread

from . import registry

_FIELDS = ("measured", "tolerance", "comparison", "passed", "verdict", "seconds", "detail", "seed_offset",
           "printed_error", "reject_above", "rates", "device")


def _run_unit(claim_id, device, seed_offset):
    """In a worker: run one claim with one thread; return its result fields (plain values). loky workers start
    with the thread variables set; a Dask worker has numpy loaded already, hence
    :func:`dynamics.numerics.one_thread` here too."""
    with one_thread():
        claims = registry.load_all()
        result = registry.run_claim(claims[claim_id], registry.RunContext(device, seed_offset))
    return {name: getattr(result, name) for name in _FIELDS}


@contextmanager
def _dask_backend(address):
    from distributed import Client

    with Client(address) as client:
        yield client


def run_units(units, jobs=1, dask_address=None, progress=None):
    """Run ``units`` (pairs of a :class:`~verify.registry.Claim` and a RunContext) and return their
    :class:`~verify.registry.ClaimResult` objects in the order of ``units``.

    ``jobs`` = 1 without ``dask_address`` runs in this process; otherwise the units go to ``jobs`` loky worker
    processes (``jobs`` = -1: one per core) or to the Dask scheduler at ``dask_address`` (``tcp://host:8786``;
    its workers need this project installed). ``progress(result)`` is called as each unit finishes.
    """
    units = list(units)
    if jobs == 1 and dask_address is None:
        results = []
        with one_thread():
            for claim_, context in units:
                results.append(registry.run_claim(claim_, context))
                if progress:
                    progress(results[-1])
        return results
    from joblib import Parallel, delayed, parallel_config

    backend = _dask_backend(dask_address) if dask_address else nullcontext()
    settings = dict(backend="dask", n_jobs=-1) if dask_address else dict(backend="loky", n_jobs=jobs,
                                                                           inner_max_num_threads=1)
    with backend, parallel_config(**settings):
        tasks = (delayed(_indexed)(i, c.id, ctx.device, ctx.seed_offset) for i, (c, ctx) in enumerate(units))
        results = [None] * len(units)
        for index, fields in Parallel(return_as="generator_unordered")(tasks):
            claim_, _ = units[index]
            result = registry.ClaimResult(claim_, **fields)
            results[index] = result
            if progress:
                progress(result)
    return results


def _indexed(index, claim_id, device, seed_offset):
    return index, _run_unit(claim_id, device, seed_offset)


def progress_bar(total, desc="claims"):
    """A tqdm bar on stderr that advances as results arrive (silent when stderr is not a terminal)."""
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=desc, unit="claim", leave=False, disable=None, file=sys.stderr)

    def advance(result):
        bar.update(1)
        bar.set_postfix_str(result.claim.id[-40:], refresh=False)

    advance.close = bar.close
    return advance
