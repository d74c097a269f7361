"""Test-session settings.

BLAS threads are pinned to one before numpy loads: the suite's matrices are small, and on a 2-core
machine a multi-threaded BLAS competing with numba's thread pool and torch was measured 100x slower
(eigh of 200x200: 0.6 s against 0.005 s). An explicit setting in the environment wins.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
