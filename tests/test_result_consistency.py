"""The fields of a named result agree with each other, for every function that returns one.

A result often carries values that follow from its others: the generalisation error from the overlaps
(L_G = ½(T − 2R + Q), Eq 4.2.6 of Pezeshki (thesis)), its noisy version from it (+ σ²/2), the totals from the
per-group parts. The claims check each function's headline values against independent routes; these tests hold the
remaining fields to the relations that define them, so that a field computed wrongly, taken from the wrong step or
group, or not updated where its neighbour is, fails here (``tools/output_perturbation.py`` found such fields that
no claim or test read). Tolerances: the relations are evaluated in float64 from the same numbers, so 1e-12
relative (with 1e-15 absolute for values at 0) bounds their rounding.
"""
import numpy as np

import dynamics.double_descent as dd

RTOL, ATOL = 1e-12, 1e-15


def _order_parameters_agree(name, result, noise_std, teacher_power=1.0):
    R, Q = np.asarray(result.R), np.asarray(result.Q)
    error = 0.5 * (teacher_power - 2 * R + Q)
    assert np.allclose(result.generalization_error, error, rtol=RTOL, atol=ATOL), name
    if hasattr(result, "noisy_generalization_error"):
        assert np.allclose(result.noisy_generalization_error, error + 0.5 * noise_std ** 2, rtol=RTOL, atol=ATOL), name
    if getattr(result, "R1", None) is not None:
        assert np.allclose(R, np.asarray(result.R1) + result.R2, rtol=RTOL, atol=ATOL), name
        assert np.allclose(Q, np.asarray(result.Q1) + result.Q2, rtol=RTOL, atol=ATOL), name


def test_double_descent_order_parameters_agree_with_their_overlaps():
    """Every function that returns OrderParameters, an OrderParameterCurve or a SaddlePoint: L_G from (R, Q), the
    noisy L_G from L_G, R = R₁ + R₂ and Q = Q₁ + Q₂, and the steps as asked."""
    problem = dd.TeacherStudentProblem(120, 100, 70, 10.0, noise_std=0.3)
    steps = np.array([0.0, 1.0, 10.0, 100.0, 1e4])
    data = dd.draw_teacher_student(dd.TeacherStudentProblem(60, 40, 28, 10.0, noise_std=0.3), n_seeds=2, seed=1,
                                   n_test=0)
    F, X = data.modulation.draw(0), data.X[0]
    roots = dd.bipartite_roots(steps[1:], 120, 100, 70, 10.0)
    w_hat = dd.gd_weights(data.X, data.y, steps)[:, -1]
    results = {
        "bipartite_theory": (dd.bipartite_theory(steps, problem), 0.3),
        "bipartite_theory_ode": (dd.bipartite_theory_ode(steps[1:], problem), 0.3),
        "exact_gd_order_parameters": (dd.exact_gd_order_parameters(F, X, steps, noise_std=0.3), 0.3),
        "design_order_parameters": (dd.design_order_parameters(data, steps), 0.3),
        "scheduled_gd_order_parameters": (dd.scheduled_gd_order_parameters(F, X, [0, 1, 5, 20], np.full(20, 0.5),
                                                                           noise_std=0.3), 0.3),
        "bipartite_from_roots": (dd.bipartite_from_roots(roots.a1, roots.a2, 120, 100, 70, noise_std=0.3), 0.3),
        "ridge_oracle": (dd.ridge_oracle([0.01, 0.1, 1.0], 120, 100, 70, 10.0, noise_std=0.3), 0.3),
        "measure_order_parameters": (dd.measure_order_parameters(w_hat, data.w, data.modulation, noise_std=0.3), 0.3),
    }
    for name, (result, noise_std) in results.items():
        _order_parameters_agree(name, result, noise_std)
    for name in ("bipartite_theory", "exact_gd_order_parameters", "design_order_parameters"):
        assert np.array_equal(results[name][0].steps, steps), name
    assert np.array_equal(results["bipartite_theory_ode"][0].steps, steps[1:])
    for name, saddle in (("replica_saddle_point", dd.replica_saddle_point([0.5, 1.5, 3.0], 0.1, 1.0, 0.09)),
                         ("stieltjes_order_parameters", dd.stieltjes_order_parameters([0.5, 1.5, 3.0], 0.1, 1.0,
                                                                                      0.09))):
        _order_parameters_agree(name, saddle, 0.0)
