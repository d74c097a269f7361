"""Measurements and explicit GD of the teacher–student model (Eqs 4.2.4–4.2.7), vectorised over draws.

* :func:`~dynamics.double_descent.measure_order_parameters` (Eq 4.2.7, per group in F's singular bases) and
  :func:`~dynamics.double_descent.test_error` (½ mean of (y* − ŷ)² over the test set, the left side of Eq 4.2.5);
* :func:`~dynamics.double_descent.iterate_gd`: explicit full-batch GD (Eq 4.2.4 without Langevin noise), with weight
  decay, a per-step output penalty (the gradient (1 + a_k)XᵀXŵ − Xᵀy of Lemma 4.3.1 / Fig 4.6), a preconditioner P
  (per-group learning rates, P = VΣ⁻²Vᵀ) and the loss normalisation (the sum, Eq 4.2.3 as corrected, or the printed
  1/(2n) mean).

The data they run on (teacher, modulation matrix F, designs) are drawn by :mod:`dynamics.double_descent._setups`.
"""
from typing import Optional

import numpy as np
from numpy.typing import ArrayLike

from dynamics.numerics import as_finite_array, require_choice, require_finite_result, require_positive
from ._checks import require_data, require_modulation, require_noise_std, require_step_record
from ._order_parameters import order_parameters
from ._results import Modulation, OrderParameters, TeacherStudentData, WeightTrajectory
from ._docs import fill_doc


def _expand(arr, like):
    """Insert axes after the seed axis so that ``arr`` (S, d) broadcasts against ``like`` (S, ..., d)."""
    return arr.reshape(arr.shape[:1] + (1,) * (like.ndim - arr.ndim) + arr.shape[1:])


def measure_order_parameters(w_hat: ArrayLike, w: ArrayLike, modulation: Modulation,
                             noise_std: float = 0.0) -> OrderParameters:
    r""":math:`R = w^\top F \hat w / d` and :math:`Q = \lVert F \hat w \rVert^2 / d` (Eq 4.2.7) of given students, and
    their fast/slow parts in :math:`F`'s singular bases (:math:`R_i = w_i \cdot v_i / d`,
    :math:`Q_i = \lVert v_i \rVert^2 / d` with :math:`v = \Sigma V^\top \hat w`).

    Parameters
    ----------
    w_hat : array_like
        Students, shape (S, ..., d).
    w : array_like
        Teachers, shape (S, d).
    modulation : Modulation
        With a draw axis of length S, or a single draw.
    noise_std : float
        :math:`\sigma_\varepsilon`, for ``noisy_generalization_error``.

    Returns
    -------
    OrderParameters
        Of shape w_hat.shape[:-1]; :math:`L_G = \frac{1}{2}(\lVert w \rVert^2/d - 2R + Q)` per draw (Eq 4.2.5).

    Examples
    --------
    >>> from dynamics.double_descent import TeacherStudentProblem, draw_teacher_student
    >>> data = draw_teacher_student(TeacherStudentProblem(30, 20, 14, 10.0), n_seeds=1, seed=1)
    >>> F = data.modulation.matrix[0]
    >>> exact = np.linalg.solve(F, data.w[0])[None, None]     # Fŵ = w: the teacher itself
    >>> r = measure_order_parameters(exact, data.w, data.modulation)
    >>> round(float(r.R[0, 0]), 12), abs(round(float(r.generalization_error[0, 0]), 12))
    (1.0, 0.0)
    """
    w_hat = as_finite_array("w_hat", w_hat)
    w = as_finite_array("w", w, ndim=2)
    modulation = require_modulation(modulation)
    noise_std = require_noise_std(noise_std)
    S, d = w.shape
    if w_hat.ndim < 2 or w_hat.shape[0] != S or w_hat.shape[-1] != d:
        raise ValueError(f"w_hat must have shape ({S}, ..., {d}) to match w {w.shape}, got {w_hat.shape}")
    U, V = modulation.U, modulation.V
    if U.shape[-1] != d or (U.ndim == 3 and U.shape[0] != S):
        raise ValueError(f"modulation must be {d}x{d} with {S} draws or one, got U of shape {U.shape}")
    U, V = np.broadcast_to(U, (S, d, d)), np.broadcast_to(V, (S, d, d))
    flat = w_hat.reshape(S, -1, d)
    v = np.einsum("sji,smj->smi", V, flat) * modulation.singular_values
    w_left = np.einsum("sji,sj->si", U, w)[:, None, :]
    p = modulation.n_fast
    shape = w_hat.shape[:-1]
    R1 = (w_left[..., :p] * v[..., :p]).sum(-1).reshape(shape) / d
    R2 = (w_left[..., p:] * v[..., p:]).sum(-1).reshape(shape) / d
    Q1 = (v[..., :p] ** 2).sum(-1).reshape(shape) / d
    Q2 = (v[..., p:] ** 2).sum(-1).reshape(shape) / d
    power = _expand((w ** 2).sum(-1) / d, R1)
    return order_parameters(R1 + R2, Q1 + Q2, noise_std, R1, R2, Q1, Q2, teacher_power=power)


def test_error(w_hat: ArrayLike, data: TeacherStudentData) -> np.ndarray:
    r""":math:`\frac{1}{2}` mean over the noiseless test set of :math:`(y^* - \hat y)^2`,
    :math:`\hat y = z_\mathrm{test}^\top F \hat w` (the left side of Eq 4.2.5).

    Parameters
    ----------
    w_hat : array_like
        Students, shape (S, ..., d).
    data : TeacherStudentData
        With n_test > 0.

    Returns
    -------
    ndarray
        Shape w_hat.shape[:-1].

    Examples
    --------
    >>> from dynamics.double_descent import TeacherStudentProblem, draw_teacher_student
    >>> data = draw_teacher_student(TeacherStudentProblem(30, 20, 14, 10.0), n_seeds=1, seed=1, n_test=10)
    >>> float(test_error(np.zeros((1, 20)), data)[0]) == 0.5 * float(np.mean(data.y_test ** 2))
    True
    """
    data = require_data(data)
    w_hat = as_finite_array("w_hat", w_hat)
    S, m, d = data.Z_test.shape
    if m == 0:
        raise ValueError("data has no test set: draw it with n_test > 0")
    if w_hat.ndim < 2 or w_hat.shape[0] != S or w_hat.shape[-1] != d:
        raise ValueError(f"w_hat must have shape ({S}, ..., {d}), got {w_hat.shape}")
    flat = w_hat.reshape(S, -1, d)
    predictions = np.einsum("smd,skd->skm", data.Z_test @ data.modulation.matrix, flat)
    return 0.5 * ((predictions - data.y_test[:, None, :]) ** 2).mean(-1).reshape(w_hat.shape[:-1])


test_error.__test__ = False  # a function named test_*, not a pytest test


@fill_doc
def iterate_gd(X: ArrayLike, y: ArrayLike, steps: ArrayLike, learning_rate: float, weight_decay: float = 0.0,
               output_penalty_schedule: Optional[ArrayLike] = None, preconditioner: Optional[ArrayLike] = None,
               loss_normalization: str = "sum") -> WeightTrajectory:
    r"""Explicit full-batch GD from :math:`\hat w_0 = 0` (Eq 4.2.4 without Langevin noise):

    .. math::

        \hat w \leftarrow \hat w - \eta P \left[(1 + a_k) X^\top X \hat w - X^\top y\right] / m - \eta P \lambda \hat w,

    with :math:`m = 1` ("sum", Eq 4.2.3 as corrected) or :math:`n` ("mean", the printed :math:`1/(2n)` loss). For long
    runs use the closed forms (:func:`~dynamics.double_descent.gd_weights`).

    Parameters
    ----------
    %(X)s
    y : array_like
        Labels, shape (..., n).
    steps : array_like of int
        Sorted steps >= 0 at which :math:`\hat w` is recorded; the run lasts steps[-1] steps.
    learning_rate : float
        :math:`\eta > 0`, below 2/(largest eigenvalue of :math:`P((1 + a) X^\top X/m + \lambda)`) for every
        :math:`a` used.
    %(weight_decay)s
    output_penalty_schedule : array_like, optional
        :math:`a_k \ge 0` for steps 1..steps[-1] (at least steps[-1] values): the output penalty
        :math:`\frac{a_k}{2}\lVert X \hat w \rVert^2` of Lemma 4.3.1 at step :math:`k` (Fig 4.6).
    preconditioner : array_like, optional
        :math:`P`, shape (d, d) or (..., d, d).
    loss_normalization : {"sum", "mean"}
        The summed loss :math:`\frac{1}{2}\sum` (the corrected Eq 4.2.3) or the printed :math:`1/(2n)` mean.

    Returns
    -------
    WeightTrajectory
        steps and weights of shape (..., len(steps), d).

    Examples
    --------
    >>> X, y = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([1.0, 2.0])
    >>> run = iterate_gd(X, y, [0, 1, 200], 0.2)
    >>> run.steps.tolist(), [round(float(v), 6) for v in run.weights[-1]]
    ([0, 1, 200], [1.0, 1.0])
    """
    X = as_finite_array("X", X)
    y = as_finite_array("y", y)
    if X.ndim < 2 or y.shape != X.shape[:-1]:
        raise ValueError(f"X must have shape (..., n, d) and y (..., n) with the same leading shape; got X {X.shape} "
                         f"and y {y.shape}")
    record = require_step_record(steps)
    eta = require_positive("learning_rate", learning_rate)
    weight_decay = require_positive("weight_decay", weight_decay, allow_zero=True)
    require_choice("loss_normalization", loss_normalization, ("sum", "mean"))
    n_steps = int(record[-1])
    if output_penalty_schedule is None:
        schedule = np.zeros(n_steps)
    else:
        schedule = as_finite_array("output_penalty_schedule", output_penalty_schedule, ndim=1)
        if schedule.size < n_steps or np.any(schedule < 0):
            raise ValueError(f"output_penalty_schedule must hold {n_steps} values >= 0 (one per step), got "
                             f"{schedule.size} values, smallest {schedule.min() if schedule.size else 'none'}")
    d = X.shape[-1]
    P = np.eye(d) if preconditioner is None else as_finite_array("preconditioner", preconditioner)
    if P.shape[-2:] != (d, d):
        raise ValueError(f"preconditioner must have shape ({d}, {d}), got {P.shape}")
    scale = 1.0 if loss_normalization == "sum" else 1.0 / X.shape[-2]
    Xt = np.swapaxes(X, -1, -2)
    gram = scale * Xt @ X
    # GD is stable iff η times the largest eigenvalue of P((1 + a)XᵀX + λ) stays below 2 (for every a used)
    worst = P @ ((1.0 + (schedule[:n_steps].max() if n_steps else 0.0)) * gram + weight_decay * np.eye(d))
    radius = float(np.max(np.abs(np.linalg.eigvals(worst))))
    if eta * radius >= 2.0:
        raise ValueError(f"learning_rate must be < 2/{radius:.4g} = {2.0 / radius:.4g} for GD to converge, got {eta:g}")
    rhs = scale * np.einsum("...dn,...n->...d", Xt, y)
    w = np.zeros(X.shape[:-2] + (d,))
    out = np.empty(X.shape[:-2] + (record.size, d))
    r = 0
    while r < record.size and record[r] == 0:
        out[..., r, :] = w
        r += 1
    for k in range(1, n_steps + 1):
        grad = (1.0 + schedule[k - 1]) * np.einsum("...ij,...j->...i", gram, w) - rhs + weight_decay * w
        w = w - eta * np.einsum("...ij,...j->...i", P, grad)
        while r < record.size and record[r] == k:
            out[..., r, :] = w
            r += 1
    return WeightTrajectory(record, require_finite_result(out, "the GD weights", "the run left float64"))
