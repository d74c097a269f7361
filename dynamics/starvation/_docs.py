"""Docstring entries shared by this theory's functions, filled into ``%(name)s`` placeholders at import (see
:mod:`dynamics.numerics._docstrings`)."""
from dynamics.numerics._docstrings import SHARED

TABLE = SHARED.extended(
    weight_decay='weight_decay : float\n    :math:`\\lambda > 0`.',
    weight_decay_finite='weight_decay : float\n    :math:`\\lambda > 0`; :math:`s^2/\\lambda` must be finite in float64.',
    strengths='s : array_like, shape (n,)\n    Feature strengths, > 0.',
    strengths_any='s : float or array_like\n    Feature strengths, > 0, any shape.',
    strength_pair='s : array_like, shape (2,)\n    :math:`(s_1, s_2)`, > 0.',
    U='U : array_like, shape (n, n)\n    Orthogonal.',
    loss='loss : {"cross_entropy", "hinge", "squared"}',
    weight_decay_output_penalty='weight_decay, output_penalty : float\n    Exactly one, > 0.',
    y='y : array_like, shape (n,)\n    Labels in :math:`\\{-1, +1\\}`.',
    exact='exact : bool\n    Eq 9 (True) or Eq 10 (False).',
    delta='delta : float\n    :math:`\\delta \\in (-1, 1)`.',
    s2='s2 : float\n    Strength of feature 2, > 0.',
)
fill_doc = TABLE.fill
