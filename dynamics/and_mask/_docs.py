"""The AND-mask's shared docstring entries, filled into ``%(name)s`` placeholders at import (see
:mod:`dynamics.numerics._docstrings`)."""
from dynamics.numerics._docstrings import SHARED

TABLE = SHARED.extended(
    agreement_threshold="agreement_threshold : float\n    Agreement threshold :math:`\\tau \\in [0, 1]`.",
    n_envs="n_envs : int\n    Number of environments :math:`d \\ge 1`.",
)
fill_doc = TABLE.fill
