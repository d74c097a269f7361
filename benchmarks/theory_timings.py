"""Wall time of the sweeps the theory issues set targets for (warm: compilation excluded).

* linear_networks.generalization_curve on a 200-point time grid, one α (target: well under 1 s);
* double_descent: the Fig 4.4 sweep (7 κ × 300 times) and the Fig 4.5 heat map (100 λ × 300 times)
  of the bipartite theory (target: under 1 s each);
* double_descent.exact_gd_order_parameters at d = 250, n = 300, 300 times, one design (target, issue 14:
  under 50 ms, from about 140 ms);
* starvation: a 200 × 200 (s₁, δ) map of exact fixed points (target: a few seconds).

BLAS and numba run one thread here (as in the test suite and each claim worker) unless the environment says
otherwise, so the numbers are per core.

Times are the minimum over repeats. Run: python benchmarks/theory_timings.py
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from _timing import best_of  # noqa: E402
import numpy as np  # noqa: E402

from dynamics import double_descent as dd  # noqa: E402
from dynamics import linear_networks as ln  # noqa: E402
import dynamics.starvation as gs  # noqa: E402


def main():
    t200 = np.linspace(0.0, 100.0, 200)
    t300 = np.logspace(-3, 7, 300)
    kappas = (1.0, 7.0, 12.0, 30.0, 100.0, 1e3, 1e5)
    weight_decays = dd.code_weight_decay_to_api(10 ** -np.linspace(0.1, 8, 100))
    design = dd.draw_teacher_student(dd.TeacherStudentProblem(300, 250, 175, 30.0), seed=0)
    F, X = design.modulation.draw(0), design.X[0]
    steps = np.geomspace(1.0, 1e6, 300)
    s1, delta = np.linspace(0.5, 6.0, 200), np.linspace(-0.9, 0.9, 200)
    cases = (
        ("linear_networks.generalization_curve, 200 times, alpha = 0.5", lambda: ln.generalization_curve(t200, 0.5)),
        ("linear_networks.generalization_curve, 200 times, alpha = 1", lambda: ln.generalization_curve(t200, 1.0)),
        ("double_descent Fig 4.4 sweep, 7 kappa x 300 t",
         lambda: [dd.bipartite_theory(t300, dd.TeacherStudentProblem(110, 100, 70, k)) for k in kappas]),
        ("double_descent Fig 4.5 heat map, 100 lambda x 300 t",
         lambda: dd.bipartite_theory(t300[:, None], dd.TeacherStudentProblem(120, 100, 80, 40.0, noise_std=0.2),
                                     weight_decay=weight_decays[None, :])),
        (f"double_descent.exact_gd_order_parameters, d = 250, n = 300, {steps.size} times",
         lambda: dd.exact_gd_order_parameters(F, X, steps)),
        ("  the same by the direct O(d³)-per-time traces (method='matrix')",
         lambda: dd.exact_gd_order_parameters(F, X, steps, method="matrix")),
        ("  its floor: the eigendecomposition of XᵀX alone", lambda: np.linalg.eigh(X.T @ X)),
        ("starvation 200 x 200 map of exact fixed points", lambda: gs.starvation_map(s1, delta, exact=True)),
        ("starvation 200 x 200 map of Eq 10 fixed points", lambda: gs.starvation_map(s1, delta, exact=False)),
    )
    for name, fn in cases:
        print(f"{name:58s} {1e3 * best_of(fn):9.2f} ms", flush=True)


if __name__ == "__main__":
    main()
