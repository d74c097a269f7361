"""The AND-mask's shared docstring entries, filled into ``%(name)s`` placeholders at import (see
:mod:`dynamics.numerics._docstrings`)."""
from dynamics.numerics._docstrings import SHARED

TABLE = SHARED.extended(
    agreement_threshold="agreement_threshold : float\n    Agreement threshold :math:`\\tau \\in [0, 1]`.",
    n_envs="n_envs : int\n    Number of environments :math:`d \\ge 1`.",
    env_axis='env_axis : {0, 1}, default 0\n    The axis of ``grads`` that indexes the environments: 0 for (n_envs, n_params) (rows are environments), 1 for\n    (n_params, n_envs) (columns are environments; −2 and −1 are accepted too). The shape cannot tell the two\n    apart, so a (n_params, n_envs) array passed without ``env_axis=1`` is silently read as n_params environments.',
    dtype_name='dtype : {"float32", "float64"}, default "float32"\n    Keyword only.',
    grads='grads : array_like, shape (n_envs, n_params)\n    Per-environment gradients, row :math:`e` for environment :math:`e` (environments along axis 0; see\n    ``env_axis``); finite.',
    gradient_std='gradient_std : float, default 1\n    :math:`\\sigma > 0`.',
    gradient_means='gradient_means : array_like, shape (n_envs,)\n    :math:`\\mu_e`, finite.',
    n_steps='n_steps : int, default 500\n    Number of steps >= 0.',
)
fill_doc = TABLE.fill
