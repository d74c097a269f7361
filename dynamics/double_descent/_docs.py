"""Docstring entries shared by this theory's functions, filled into ``%(name)s`` placeholders at import (see
:mod:`dynamics.numerics._docstrings`)."""
from dynamics.numerics._docstrings import SHARED

TABLE = SHARED.extended(
    weight_decay='weight_decay : float\n    :math:`\\lambda \\ge 0`.',
)
fill_doc = TABLE.fill
