"""Docstring entries shared by this theory's functions, filled into ``%(name)s`` placeholders at import (see
:mod:`dynamics.numerics._docstrings`)."""
from dynamics.numerics._docstrings import SHARED

TABLE = SHARED.extended(
    weight_decay='weight_decay : float\n    :math:`\\lambda \\ge 0` with :math:`\\eta\\lambda < 1`.',
    weight_decay_positive='weight_decay : float\n    :math:`\\lambda > 0` with :math:`\\eta\\lambda < 1`.',
    weight_decay_l2='weight_decay : float\n    :math:`\\lambda \\ge 0` (coupled L2).',
    learning_rate_schedule='learning_rate : float or callable\n    :math:`\\eta > 0` or a schedule.',
)
fill_doc = TABLE.fill
