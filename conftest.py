"""Test-session settings, for the tests and the doctests of ``dynamics`` alike.

BLAS threads are pinned to one before numpy loads: the suite's matrices are small, and on a 2-core
machine a multi-threaded BLAS competing with numba's thread pool and torch was measured 100x slower
(eigh of 200x200: 0.6 s against 0.005 s). An explicit setting in the environment wins.

Results cached on disk go to ``.cache/dynamics`` in the repository.

Under CI every hypothesis test is derandomized (the ``ci`` profile): the same examples on every run, so that a
red run is reproducible and not a draw; locally each run explores new examples (``HYPOTHESIS_PROFILE=ci`` to
replay CI's).

The optional torch modules (``dynamics/*/torch_*.py``) are not collected for doctests when torch is
missing, except under CI, where torch is required.
"""
import importlib.util
import os
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("DYNAMICS_COMPILE_NOTICE", "0")
# Expensive results (trained networks) are cached on disk by their arguments and code (dynamics.numerics.cache):
# the tests use a folder of their own, shared by the xdist workers, so claims and figures train each run once.
os.environ.setdefault("DYNAMICS_CACHE_DIR", str(Path(__file__).resolve().parent / ".cache" / "dynamics"))

from hypothesis import settings as _hypothesis_settings

_hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
_CI = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
_hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if _CI else "default"))

collect_ignore_glob = ["figures/demos/*"]
if importlib.util.find_spec("torch") is None and not _CI:
    collect_ignore_glob.append("dynamics/*/torch_*.py")
