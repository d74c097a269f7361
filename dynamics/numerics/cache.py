"""A disk cache for expensive deterministic computations (trained networks, long sweeps), keyed by a hash of
their arguments and of the code that computes them (DomainBed's sweeps keyed by a hash of their arguments).

A result is reused only when the function, every argument (seeds included) and the source of the function's
package are the same, so a cached result is the one the call would compute; editing the package invalidates
its entries. Claims, figures and test workers running in separate processes then share one computation.

The cache lives in ``$DYNAMICS_CACHE_DIR`` (default ``~/.cache/learning-dynamics``); ``DYNAMICS_CACHE=0``
switches it off. Entries are pickles written atomically (a temporary file renamed into place), so concurrent
processes never read a partial entry; a process that wants an entry another is computing waits for it (a file
lock, where the platform has ``fcntl``) instead of computing it again.
"""
import contextlib
import functools
import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Callable, TypeVar

try:
    import fcntl
except ImportError:  # no POSIX locks: concurrent processes may compute the same entry twice (still correct)
    fcntl = None

__all__ = ["cache_dir", "disk_cache"]

_R = TypeVar("_R")


def cache_dir() -> Path:
    """The folder of the disk cache (``$DYNAMICS_CACHE_DIR`` or ``~/.cache/learning-dynamics``).

    Parameters
    ----------
    None

    Returns
    -------
    pathlib.Path
        The folder (not created here; :func:`dynamics.numerics.disk_cache` creates it on first write).

    Examples
    --------
    >>> isinstance(cache_dir(), Path)
    True
    """
    return Path(os.environ.get("DYNAMICS_CACHE_DIR") or Path.home() / ".cache" / "learning-dynamics")


@functools.lru_cache(maxsize=None)
def _package_fingerprint(module_name):
    """A hash of every Python source file of the package that defines ``module_name`` (None without files)."""
    import sys

    filename = getattr(sys.modules.get(module_name), "__file__", None)
    if filename is None:
        return None
    folder = Path(filename).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        digest.update(path.relative_to(folder).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _code_fingerprint(function):
    """The package's sources, or (for code without a source file, e.g. ``python -c``) the function's bytecode."""
    fingerprint = _package_fingerprint(function.__module__)
    if fingerprint is None:
        code = function.__code__
        fingerprint = hashlib.sha256(code.co_code + repr(code.co_consts).encode()).hexdigest()
    return fingerprint


@contextlib.contextmanager
def _locked(path):
    if fcntl is None:
        yield
        return
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _load(path):
    try:
        with open(path, "rb") as fh:
            return True, pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError):
        return False, None


def _key(function, args, kwargs, salt):
    """The entry's name, or None when an argument's repr names a memory address (`` at 0x``): such a repr differs
    between calls with equal arguments and would leave a new, never-read entry behind on every call."""
    arguments = repr(args), repr(sorted(kwargs.items()))
    if any(" at 0x" in text for text in arguments):
        return None
    payload = (function.__module__, function.__qualname__, _code_fingerprint(function), salt) + arguments
    return hashlib.sha256(repr(payload).encode()).hexdigest()


def disk_cache(salt: str = "") -> Callable[[Callable[..., _R]], Callable[..., _R]]:
    """Decorate a function whose result depends only on its arguments, to reuse results across processes.

    Arguments must have a faithful ``repr`` (numbers, strings, tuples, dtypes, devices: what identifies the
    computation); a call with an argument whose repr names a memory address (a ``numpy.random.Generator``, say) is
    computed and not cached. ``salt`` adds anything else the result depends on (e.g. a library version).

    Parameters
    ----------
    salt : str
        Mixed into every key.

    Returns
    -------
    callable
        The decorator. The decorated function has ``.uncached`` (the original).

    Examples
    --------
    >>> @disk_cache()
    ... def square(x):
    ...     return x * x
    >>> square(3), square.uncached(3)
    (9, 9)
    """
    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            if os.environ.get("DYNAMICS_CACHE", "1") == "0":
                return function(*args, **kwargs)
            key = _key(function, args, kwargs, salt)
            if key is None:  # an argument without a faithful repr (a Generator, say): compute, keep nothing
                return function(*args, **kwargs)
            folder = cache_dir() / function.__module__
            path = folder / f"{key}.pkl"
            found, result = _load(path)
            if found:
                return result
            try:
                folder.mkdir(parents=True, exist_ok=True)
                lock = _locked(path.with_suffix(".lock"))
            except OSError:  # an unwritable cache folder: compute without the cache
                return function(*args, **kwargs)
            with lock:
                found, result = _load(path)  # another process may have finished it while we waited
                if found:
                    return result
                result = function(*args, **kwargs)
                try:
                    with tempfile.NamedTemporaryFile("wb", dir=folder, delete=False, suffix=".tmp") as fh:
                        pickle.dump(result, fh)
                    os.replace(fh.name, path)
                except OSError:  # a full disk: the result is still returned
                    pass
            return result

        wrapper.uncached = function
        return wrapper

    return decorate
