"""The linear networks' shared docstring entries, filled into ``%(name)s`` placeholders at import (see
:mod:`dynamics.numerics._docstrings`)."""
from dynamics.numerics._docstrings import SHARED

TABLE = SHARED.extended(
    tau="tau : float\n    Time constant :math:`\\tau > 0`.",
    teacher_noise_init_std="teacher_std, noise_std, init_std : float\n    Standard deviations "
                           ":math:`\\sigma_{\\bar w}`, :math:`\\sigma_\\varepsilon`, :math:`\\sigma_0`, each in\n"
                           "    [0, 1e150].",
)
fill_doc = TABLE.fill
