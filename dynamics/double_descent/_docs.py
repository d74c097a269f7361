"""Docstring entries shared by this theory's functions, filled into ``%(name)s`` placeholders at import (see
:mod:`dynamics.numerics._docstrings`)."""
from dynamics.numerics._docstrings import SHARED

TABLE = SHARED.extended(
    weight_decay='weight_decay : float\n    :math:`\\lambda \\ge 0`.',
    n_features='n_features : int\n    :math:`d \\ge 2`.',
    n_fast='n_fast : int\n    :math:`1 \\le p \\le d - 1`.',
    X='X : array_like\n    Designs, shape (..., n, d).',
    n_samples='n_samples : int\n    :math:`n` > n_features.',
    kappa='kappa : float\n    :math:`\\kappa` in [1, 1e100].',
    steps='steps : float or array_like\n    GD steps :math:`k \\ge 0`, shape (T,) (real values interpolate; inf is the fixed point).',
)
fill_doc = TABLE.fill
