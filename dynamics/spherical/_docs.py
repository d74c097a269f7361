"""Docstring entries shared by this theory's functions, filled into ``%(name)s`` placeholders at import (see
:mod:`dynamics.numerics._docstrings`)."""
from dynamics.numerics._docstrings import SHARED

TABLE = SHARED.extended(
    weight_decay='weight_decay : float\n    :math:`\\lambda \\ge 0` with :math:`\\eta\\lambda < 1`.',
    weight_decay_positive='weight_decay : float\n    :math:`\\lambda > 0` with :math:`\\eta\\lambda < 1`.',
    weight_decay_l2='weight_decay : float\n    :math:`\\lambda \\ge 0` (coupled L2).',
    learning_rate_schedule='learning_rate : float or callable\n    :math:`\\eta > 0` or a schedule.',
    r0='r0 : float\n    :math:`\\lVert x_0 \\rVert > 0`.',
    betas='betas : (float, float)\n    :math:`(\\beta_1, \\beta_2)` in :math:`[0, 1)`.',
    seed_run="seed : None, int >= 0 or numpy.random.Generator, optional\n    Seeds the data, the models and the batch order (one integer drawn from it; a Generator's stream\n    advances once). Default None: fresh entropy, not reproducible.",
    momentum='momentum : float\n    :math:`\\gamma \\in [0, 1)`.',
    steps='steps : int or array_like of int\n    Step counts :math:`k \\ge 0`.',
    eps='eps : float\n    :math:`\\varepsilon \\ge 0`.',
    learning_rate_weight_decay='learning_rate, weight_decay : float\n    :math:`\\eta > 0`, :math:`\\lambda > 0` with :math:`\\eta\\lambda < 1`.',
    dtype_torch='dtype : torch.dtype, optional\n    Floating dtype of the parameters. Default ``torch.float64``.',
    dtype_images='dtype : torch.dtype, optional\n    Floating dtype of the images. Default ``torch.float64``.',
    seed_torch_global="seed : None, int >= 0 or numpy.random.Generator, optional\n    Seeds torch's global generator. "
                      "Default None: fresh entropy, not reproducible.",
)
fill_doc = TABLE.fill
