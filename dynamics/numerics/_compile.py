"""Lazy compilation, made visible: one line on stderr the first time a process compiles a numba kernel of
``dynamics`` (a cache miss), instead of a silent wait or a wall of warnings.

numba broadcasts the event ``"numba:compile"`` only when a dispatcher really compiles (not when it loads a
kernel from the disk cache), so the notice appears on a fresh install or after the sources changed, and
never when the cache is warm. ``DYNAMICS_COMPILE_NOTICE=0`` silences it. The experimental-feature warning
numba emits for first-class functions (which the integrators use on purpose) is filtered.
"""
import os
import sys
import warnings

from numba.core import event
from numba.core.errors import NumbaExperimentalFeatureWarning

NOTICE = ("dynamics: compiling numba kernels on first use (seconds; cached on disk afterwards; "
          "`python -m dynamics.warmup` compiles them all at once)")

_announced = []


class _CompileNotice(event.Listener):
    def on_start(self, ev):
        if _announced or os.environ.get("DYNAMICS_COMPILE_NOTICE", "1") == "0":
            return
        function = getattr(ev.data.get("dispatcher"), "py_func", None)
        if (getattr(function, "__module__", "") or "").startswith("dynamics"):
            _announced.append(True)
            print(NOTICE, file=sys.stderr, flush=True)

    def on_end(self, ev):
        pass


event.register("numba:compile", _CompileNotice())
warnings.filterwarnings("ignore", message=".*[Ff]irst-class function type.*", category=NumbaExperimentalFeatureWarning)
