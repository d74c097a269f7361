"""Docstring entries shared by this theory's functions, filled into ``%(name)s`` placeholders at import (see
:mod:`dynamics.numerics._docstrings`)."""
from dynamics.numerics._docstrings import SHARED

TABLE = SHARED.extended(
    seeds='seeds : sequence of int',
    logit_scale='logit_scale : float or array_like\n    :math:`k > 0`.',
)
fill_doc = TABLE.fill
