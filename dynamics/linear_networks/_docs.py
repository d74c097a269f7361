"""The linear networks' shared docstring entries, filled into ``%(name)s`` placeholders at import (see
:mod:`dynamics.numerics._docstrings`)."""
from dynamics.numerics._docstrings import SHARED

TABLE = SHARED.extended(
    tau="tau : float\n    Time constant :math:`\\tau > 0`.",
    teacher_noise_init_std="teacher_std, noise_std, init_std : float\n    Standard deviations "
                           ":math:`\\sigma_{\\bar w}`, :math:`\\sigma_\\varepsilon`, :math:`\\sigma_0`, each in\n"
                           "    [0, 1e150].",
    instance='instance : StudentInstance',
    alpha='alpha : float\n    :math:`\\alpha = P/N > 0`.',
    rtol_atol='rtol, atol : float\n    Tolerances of :func:`dynamics.numerics.solve_ode`.',
    W32='W32 : array_like, shape (..., N3, N2)\n    Second-layer weights, with the same leading axes.',
    singular_value='s : float\n    Singular value, :math:`s \\ge 0`.',
    output_times='t : array_like, shape (m,)\n    Output times: finite, >= 0, non-decreasing, with :math:`t/\\tau \\le 2^{52}`.',
    record_every='record_every : int\n    Record every r-th step (k = 0, r, 2r, ...), 1 <= r <= max(n_steps, 1).',
    n_features='n_features : int\n    :math:`N`, in [1, 100000].',
)
fill_doc = TABLE.fill
