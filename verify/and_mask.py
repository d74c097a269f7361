"""Claims of the AND-mask theory: the properties of the mask, its exact sign statistics, Propositions 1-3 of
Parascandolo et al. 2021 and the errata in them (see the theory note, docs/theory/and_mask.md).

Each claim compares two independent routes: the library's closed forms against exact rationals (``fractions``),
mpmath, brute-force enumeration over sign patterns (through :func:`dynamics.and_mask.and_mask` itself), the numba
Monte Carlo engine, numpy simulations with other gradient laws, sampled constraint boundaries, finite differences
or real masked-GD runs. Stochastic claims draw every seed through the run context; their tolerances are Bonferroni
bounds z_m = Φ⁻¹(1 − 0.5e-4/m) on m standardised differences (family-wise level 1e-4), with the theoretical
standard error where one exists (keep probabilities) and the sample standard error otherwise.
"""
import itertools
import math
from fractions import Fraction

import numpy as np

from dynamics import and_mask as am
from .registry import Check, claim, lazy_module, planted_bug

mpmath = lazy_module("mpmath")
integrate = lazy_module("scipy.integrate")
linalg = lazy_module("scipy.linalg")
optimize = lazy_module("scipy.optimize")
special = lazy_module("scipy.special")
stats = lazy_module("scipy.stats")

TAU_GRID = (0.0, 0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 0.95, 1.0)
TWO_OVER_PI = 2.0 / math.pi


# ------------------------------------------------------------------------------------------------ helpers
def _worst(*values):
    """The largest of the values (or of one iterable of them), NaN if any is NaN (the builtin max hides NaN)."""
    if len(values) == 1 and not isinstance(values[0], (int, float, np.floating, np.integer)):
        values = list(values[0])
    return float(np.max(np.asarray(values, dtype=np.float64)))


def bonferroni_z(m):
    """The two-sided z of a family-wise level 1e-4 over m comparisons."""
    return float(stats.norm.isf(0.5e-4 / m))


def _z_check(rows, what):
    """rows: (estimate, reference, standard error, label). Passes if every |z| <= z_m (Bonferroni)."""
    rows = [r for r in rows if not r[2] == 0.0]  # a NaN standard error stays and fails
    z_limit = bonferroni_z(len(rows))
    zs = [abs(a - b) / se for a, b, se, _ in rows]
    worst = int(np.argmax(zs))
    return Check.at_most(zs[worst], z_limit, f"{what}: worst |z| = {zs[worst]:.2f} at {rows[worst][3]} over m = "
                                             f"{len(rows)} comparisons (Bonferroni limit {z_limit:.2f})")


#: Monte Carlo rate ladder: n = 500, 1000, ..., 64000 coordinates (or chains), 8 independent batches per rung.
MC_SIZES = 500 * 2 ** np.arange(8)
MC_BATCHES = 8


def _frequent(probability, both_sides=True):
    """Whether the smallest rung of :data:`MC_SIZES` expects at least 50 kept (and, for a keep frequency, 50 masked)
    coordinates: rarer events make the root mean square over a few batches a heavy-tailed, biased estimate of its
    expectation (a run without the event sits at the same deviation for every n)."""
    rarest = min(probability, 1.0 - probability) if both_sides else probability
    return MC_SIZES[0] * rarest >= 50


def _mc_rate(run, base, draw, what):
    """A Monte Carlo estimate converges at n^{−1/2}: ``draw(n, seed)`` runs one simulation of size n and returns
    rows (estimate, exact, per-sample standard deviation) for each statistic. For every n of :data:`MC_SIZES` the
    error is the root mean square over :data:`MC_BATCHES` independent batches and over the statistics of
    (estimate − exact)/scale, where a statistic's scale is its per-sample standard deviation averaged over the
    largest rung (so it is one number for all n). Its expectation is n^{−1/2} exactly; the relative noise of each
    error is about 1/sqrt(2·batches·statistics). Returns :meth:`Check.rate` with the expected slope −1/2."""
    deviations, scales = [], None
    for rung, n in enumerate(MC_SIZES):
        rows = np.array([draw(int(n), run.seed(base + 1000 * rung + b)) for b in range(MC_BATCHES)], dtype=float)
        deviations.append(rows[..., 0] - rows[..., 1])
        scales = rows[..., 2].mean(axis=0)
    errors = [float(np.sqrt(np.mean(np.square(d / scales)))) for d in deviations]
    return Check.rate(MC_SIZES, errors, -0.5, detail=f"Monte Carlo {what}, RMS standardised error in n")


def _threshold_exact(d, tau_fraction):
    """T = ⌈τd⌉ in exact arithmetic."""
    return math.ceil(tau_fraction * d)


def _pi0_exact(d, threshold):
    """π₀ = 2^{-d} Σ_{|2k-d| >= T} C(d, k) as a Fraction."""
    return Fraction(sum(math.comb(d, k) for k in range(d + 1) if abs(2 * k - d) >= threshold), 2 ** d)


def _noise_second_exact(d, threshold):
    """E[m ḡ²] for pure noise, σ = 1 (the exact sum derived in this project), with exact binomial sums and mpmath's
    2/π (30 digits)."""
    with mpmath.workdps(30):
        a = sum(math.comb(d, k) for k in range(d + 1) if abs(2 * k - d) >= threshold)
        b = sum(math.comb(d, k) * (2 * k - d) ** 2 for k in range(d + 1) if abs(2 * k - d) >= threshold)
        two_pi = 2 / mpmath.pi
        return (d * (1 - two_pi) * a + two_pi * b) / (mpmath.mpf(d) ** 2 * mpmath.mpf(2) ** d)


def _tau_values(d):
    """A grid of thresholds including every exact boundary τ = |2k/d − 1| (as float and as Fraction)."""
    values = {Fraction(abs(2 * k - d), d) for k in range(d + 1)}
    values |= {Fraction(str(t)) for t in TAU_GRID}
    return sorted(values)


def _sign_patterns(d):
    """All 2^d columns of ±1 signs, shape (d, 2^d)."""
    codes = np.arange(2 ** d)
    return np.where((codes[None, :] >> np.arange(d)[:, None]) & 1, 1.0, -1.0)


# ------------------------------------------------------------------------------------------------ the mask
@claim("and_mask.tau_form_equals_t_form", "Parascandolo et al. 2021, §2.3 (t-form and τ-form of the AND-mask)",
       "For random gradients without zeros (d = 1..40, 150 coordinates, τ on a grid containing every exact boundary "
       "|2k/d − 1|), and_mask(g, τ) equals the t-form mask with t = ⌈(d + T)/2⌉, T = ⌈τd⌉ computed in exact rational "
       "arithmetic, and τ = 0 keeps everything; sign_threshold and effective_agreement agree with the exact T and t "
       "(d = 25, τ = 0.28 gives T = 7; d = 9, τ = |2·3/9 − 1| gives t = 6). Tolerance: 0 mismatches.",
       "identity", stochastic=True)
def tau_form_equals_t_form(run):
    rng = run.rng(101)
    mismatches, cases = [], 0
    for d in range(1, 41):
        g = rng.standard_normal((d, 150))
        g[g == 0.0] = 1.0
        for tau in _tau_values(d):
            t_float = float(tau)
            threshold = _threshold_exact(d, tau)
            t_eff = -(-(d + threshold) // 2)
            cases += 1
            if not np.array_equal(am.and_mask(g, t_float), am.and_mask_t(g, t_eff)):
                mismatches.append(f"mask d={d} τ={tau}")
            if am.sign_threshold(d, t_float) != threshold or am.effective_agreement(d, t_float) != t_eff:
                mismatches.append(f"threshold d={d} τ={tau}")
            if tau == 0 and not am.and_mask(g, 0.0).all():
                mismatches.append(f"τ=0 d={d}")
    if am.sign_threshold(25, 0.28) != 7 or am.effective_agreement(9, abs(2 * 3 / 9 - 1)) != 6:
        mismatches.append("edge examples")
    return Check.at_most(len(mismatches), 0, f"{cases} (d, τ) cases; mismatches: {mismatches[:5]}")


@claim("and_mask.averaging_and_conventions", "Parascandolo et al. 2021, §2.3; the authors' public code (get_grads)",
       "τ = 0 returns the mean gradient bitwise (and ḡ/(1 + 1e-10) with rescaling, rel 1e-15); a column with one exact "
       "zero is masked at τ = 1; all-zero columns are masked for T >= 1 and kept at τ = 0; for d = 1 and T >= 1 a "
       "coordinate is kept iff its entry is non-zero; without zeros, S ≡ d (mod 2), every τ <= 1/d keeps everything "
       "for odd d, and every τ in (0, 1] gives one mask for d = 2. Tolerance: 0 violations.", "identity", stochastic=True)
def averaging_and_conventions(run):
    rng = run.rng(102)
    violations = []
    for d in (1, 2, 3, 4, 7, 10):
        g = rng.standard_normal((d, 300))
        g[:, :20] = 0.0  # all-zero columns
        g[rng.random((d, 300)) < 0.05] = 0.0
        mean = np.mean(g, axis=0)
        if not np.array_equal(am.masked_gradient(g, 0.0), mean):
            violations.append(f"τ=0 not bitwise, d={d}")
        rescaled = am.masked_gradient(g, 0.0, rescale=True)
        if np.max(np.abs(rescaled - mean / (1.0 + 1e-10))) > 1e-15 * max(np.abs(mean).max(), 1e-300):
            violations.append(f"rescaled τ=0, d={d}")
        zero_in_column = (g == 0.0).any(axis=0)
        if am.and_mask(g, 1.0)[zero_in_column].any():
            violations.append(f"zero entry kept at τ=1, d={d}")
        for tau in (0.01, 0.3, 1.0):
            if am.and_mask(g, tau)[:20].any():
                violations.append(f"all-zero column kept, d={d}, τ={tau}")
        if not am.and_mask(g, 0.0).all():
            violations.append(f"τ=0 masked something, d={d}")
        clean = rng.standard_normal((d, 300))
        sums = np.sum(np.sign(clean), axis=0).astype(int)
        if np.any((sums - d) % 2 != 0):
            violations.append(f"parity, d={d}")
        if d % 2 == 1 and not am.and_mask(clean, 1.0 / d).all():
            violations.append(f"odd d={d}, τ=1/d masked something")
        if d == 2 and any(not np.array_equal(am.and_mask(clean, t), am.and_mask(clean, 1.0))
                          for t in (1e-6, 0.3, 0.5, 0.99)):
            violations.append("d=2 masks differ across τ in (0, 1]")
        if d == 1 and not np.array_equal(am.and_mask(g, 0.5), g[0] != 0.0):
            violations.append("d=1 rule")
    return Check.at_most(len(violations), 0, f"violations: {violations[:5]}")


# ------------------------------------------------------------------------------------------------ pure noise
@claim("and_mask.noise_keep_probability_exact", "Parascandolo et al. 2021, Prop. 2, Eq 6",
       "The pure-noise keep probability equals 2^{-d} Σ_{K_τ} C(d, k) computed as an exact fraction (d <= 60, τ grid "
       "with every boundary; rel 1e-12), equals the fraction of all 2^d sign patterns that and_mask keeps (d <= 12, "
       "exactly), and satisfies π0(d, 1) = 2^{1-d}, π0 = 1 at τ = 0 and at τ <= 1/d for odd d, and "
       "π0(d+1, 1)/π0(d, 1) = 1/2 (d < 1000, rel 1e-12).", "identity")
def noise_keep_probability_exact():
    worst_rel, enumeration_mismatch, identity_errors = 0.0, [], 0.0
    for d in range(1, 61):
        for tau in _tau_values(d):
            exact = _pi0_exact(d, _threshold_exact(d, tau))
            worst_rel = _worst(worst_rel, abs(am.keep_probability(d, float(tau)) / float(exact) - 1.0))
            if am.keep_probability_rational(d, float(tau)) != exact:
                enumeration_mismatch.append(f"rational d={d} τ={tau}")
    for d in range(1, 13):
        patterns = _sign_patterns(d)
        for tau in _tau_values(d):
            kept = Fraction(int(am.and_mask(patterns, float(tau)).sum()), 2 ** d)
            if kept != _pi0_exact(d, _threshold_exact(d, tau)):
                enumeration_mismatch.append(f"enumeration d={d} τ={tau}")
    for d in range(1, 1000):
        identity_errors = _worst(identity_errors, abs(am.keep_probability(d, 1.0) / 2.0 ** (1 - d) - 1.0),
                              abs(am.keep_probability(d + 1, 1.0) / am.keep_probability(d, 1.0) - 0.5) * 2.0,
                              abs(am.keep_probability(d, 0.0) - 1.0))
        if d % 2 == 1:
            identity_errors = _worst(identity_errors, abs(am.keep_probability(d, 1.0 / d) - 1.0))
    return Check.all_of([Check.at_most(worst_rel, 1e-12, f"vs exact fractions: rel {worst_rel:.1e}"),
                         Check.at_most(len(enumeration_mismatch), 0, f"mismatches {enumeration_mismatch[:3]}"),
                         Check.at_most(identity_errors, 1e-12, f"identities: rel {identity_errors:.1e}")])


@claim("and_mask.keep_probability_precision", "Parascandolo et al. 2021, Eq 6",
       "keep_probability keeps relative accuracy 1e-10 for d <= 2000 down to values of 1e-300: against exact fractions "
       "for pure noise (d up to 2000, τ grid; τ = 1 gives 2^{1-d}) and against a 40-digit mpmath binomial sum with "
       "p = Φ(s) for s in {0.5, 2, 5, 10} (d up to 1000); log_keep_probability matches the exact log where the value "
       "underflows (d = 2000, τ = 1: (1 − d) log 2, rel 1e-12).", "identity")
def keep_probability_precision():
    worst, cases = 0.0, 0
    for d in (61, 100, 333, 500, 999, 1000, 1500, 2000):
        for tau in (0.05, 0.2, 0.5, 0.8, 0.95, 1.0):
            exact = _pi0_exact(d, _threshold_exact(d, Fraction(str(tau))))
            value = float(exact)
            if value >= 1e-300:
                cases += 1
                worst = _worst(worst, abs(am.keep_probability(d, tau) / value - 1.0))
    with mpmath.workdps(40):
        for d in (10, 100, 1000):
            for s in (0.5, 2.0, 5.0, 10.0):
                p, q = mpmath.ncdf(s), mpmath.ncdf(-s)
                for tau in (0.2, 0.6, 1.0):
                    threshold = _threshold_exact(d, Fraction(str(tau)))
                    exact = mpmath.fsum(mpmath.binomial(d, k) * p ** k * q ** (d - k) for k in range(d + 1)
                                        if abs(2 * k - d) >= threshold)
                    if exact >= mpmath.mpf("1e-300"):
                        cases += 1
                        worst = _worst(worst, float(abs(am.keep_probability(d, tau, s) / exact - 1)))
    log_error = abs(am.log_keep_probability(2000, 1.0) / (-1999 * math.log(2.0)) - 1.0)
    return Check.all_of([Check.at_most(worst, 1e-10, f"worst relative error {worst:.1e} over {cases} cases"),
                         Check.at_most(log_error, 1e-12, "log at d = 2000")])


@claim("and_mask.noise_keep_probability_mc", "Parascandolo et al. 2021, Prop. 2, Eq 6",
       "The Monte Carlo mask density (4e5 coordinates per d, Gaussian gradients, d in {2,3,4,5,8,16,32}, τ in "
       "{0.2, 0.5, 0.6, 1}) and the density of and_mask on Laplace and Student-t(3) gradients (1e5 coordinates, d in "
       "{4, 8}) match π0(d, τ): the keep probability is distribution-free under sign symmetry. Comparisons with "
       "N·π0 < 50 are left out; tolerance: Bonferroni z over the remaining comparisons with the theoretical standard "
       "error √(π0(1 − π0)/N). Rate: the Gaussian mask density converges to π0 at n^{−1/2}: over n = 500, 1000, ..., "
       "64000 coordinates (8 batches each; d in {4, 8, 16}, τ in {0.2, 0.5, 0.6, 1}, where 500·min(π0, 1 − π0) >= "
       "50), the root-mean-square of (estimate − π0)/√(π0(1 − π0)) has log–log slope −1/2 (Check.rate).", "identity",
       stochastic=True)
def noise_keep_probability_mc(run):
    rows = []
    n = 400_000
    for d in (2, 3, 4, 5, 8, 16, 32):
        sim = am.simulate_mask(d, n, seed=run.seed(200 + d))
        for tau in (0.2, 0.5, 0.6, 1.0):
            exact = float(_pi0_exact(d, _threshold_exact(d, Fraction(str(tau)))))
            if n * exact >= 50 and exact < 1.0:
                rows.append((am.estimate_from_simulation(sim, tau).keep_probability, exact,
                             math.sqrt(exact * (1 - exact) / n), f"Gaussian d={d} τ={tau}"))
    rng = run.rng(299)
    n_other = 100_000
    for name, draw in (("Laplace", lambda shape: rng.laplace(size=shape)),
                       ("Student-t(3)", lambda shape: rng.standard_t(3, size=shape))):
        for d in (4, 8):
            g = draw((d, n_other))
            for tau in (0.2, 0.5, 0.6, 1.0):
                exact = float(_pi0_exact(d, _threshold_exact(d, Fraction(str(tau)))))
                rows.append((float(am.and_mask(g, tau).mean()), exact, math.sqrt(exact * (1 - exact) / n_other),
                             f"{name} d={d} τ={tau}"))

    def draw(size, seed):
        out = []
        for d in (4, 8, 16):
            sim = am.simulate_mask(d, size, seed=seed + 100 * d)
            for tau in (0.2, 0.5, 0.6, 1.0):
                exact = float(_pi0_exact(d, _threshold_exact(d, Fraction(str(tau)))))
                if _frequent(exact):
                    out.append((am.estimate_from_simulation(sim, tau).keep_probability, exact,
                                math.sqrt(exact * (1 - exact))))
        return out

    rate = _mc_rate(run, 20_000, draw, "keep probability")
    return Check.all_of([_z_check(rows, "keep probability"), rate])


@claim("and_mask.noise_masked_second_moment_mc",
       "Parascandolo et al. 2021, Prop. 2 (the exact second moment is derived in this project)",
       "With σ = 1.7, the Monte Carlo E[m ḡ²] (4e5 coordinates per d in {2,3,4,5,8,16,32}, τ in {0, 0.2, 0.5, 0.6, 1}; "
       "τ = 0 is E‖ḡ‖²/n = σ²/d) matches masked_update_moments, which equals the exact pure-noise sum evaluated "
       "with exact binomials and 30-digit 2/π (rel 1e-12) and, at τ = 1, σ²2^{1-d}(2/π + (1 − 2/π)/d); the Fig 4 table "
       "(n = 3000: 1227.5, 91.65, 18.905) is reproduced to 4 significant figures. Comparisons with fewer than 50 "
       "expected kept coordinates are left out; tolerance: Bonferroni z with the sample standard errors. Rate: over "
       "n = 500, 1000, ..., 64000 coordinates (8 batches each; d in {4, 8, 16}, τ in {0, 0.2, 0.5, 1}, where "
       "500·π0 >= 50), the root-mean-square error of E[m ḡ²] in units of its per-coordinate standard deviation "
       "has log–log slope −1/2 (Check.rate).", "identity", stochastic=True)
def noise_masked_second_moment_mc(run):
    sigma, n = 1.7, 400_000
    rows, exact_errors = [], 0.0
    for d in (2, 3, 4, 5, 8, 16, 32):
        sim = am.simulate_mask(d, n, gradient_std=sigma, seed=run.seed(300 + d))
        for tau in (0.0, 0.2, 0.5, 0.6, 1.0):
            threshold = _threshold_exact(d, Fraction(str(tau)))
            exact = float(_noise_second_exact(d, threshold)) * sigma ** 2
            library = am.masked_update_moments(d, tau, 0.0, gradient_std=sigma).second_moment
            exact_errors = _worst(exact_errors, abs(library / exact - 1.0))
            if n * float(_pi0_exact(d, threshold)) >= 50:
                est = am.estimate_from_simulation(sim, tau)
                rows.append((est.second_moment, library, est.second_moment_se, f"d={d} τ={tau}"))
        closed = sigma ** 2 * 2.0 ** (1 - d) * (TWO_OVER_PI + (1 - TWO_OVER_PI) / d)
        exact_errors = _worst(exact_errors, abs(am.masked_update_moments(d, 1.0, 0.0, sigma).second_moment / closed - 1))
    table = {(2, 2): 1227.5, (8, 7): 91.65, (16, 13): 18.905}
    table_error = _worst(abs(am.expected_squared_norms(d, (2 * t - d) / d, n_params=3000).masked / v - 1.0)
                      for (d, t), v in table.items())
    def draw(size, seed):
        out = []
        for d in (4, 8, 16):
            sim = am.simulate_mask(d, size, gradient_std=sigma, seed=seed + 100 * d)
            for tau in (0.0, 0.2, 0.5, 1.0):
                if _frequent(am.keep_probability(d, tau), both_sides=False):
                    est = am.estimate_from_simulation(sim, tau)
                    out.append((est.second_moment,
                                am.masked_update_moments(d, tau, 0.0, gradient_std=sigma).second_moment,
                                est.second_moment_se * math.sqrt(size)))
        return out

    return Check.all_of([_z_check(rows, "E[m ḡ²]"),
                         Check.at_most(exact_errors, 1e-12, f"library vs exact sum: rel {exact_errors:.1e}"),
                         Check.at_most(table_error, 5e-4, f"Fig 4 table: rel {table_error:.1e} (4 s.f.)"),
                         _mc_rate(run, 30_000, draw, "E[m ḡ²]")])


@claim("and_mask.conditional_second_moment", "Parascandolo et al. 2021, proof of Prop. 2",
       "E[ḡ² | P = k] from conditional_moments matches the Monte Carlo mean of ḡ² over coordinates with sign sum "
       "S = 2k − d (6e5 coordinates; d in {4, 8} pure noise and d = 5 with s = 0.7; classes with >= 200 samples; "
       "Bonferroni z with sample standard errors); for pure noise it increases with |2k − d|, is at most "
       "σ²(2/π + (1 − 2/π)/d) <= σ², and averages to σ²/d over Bin(d, 1/2) (rel 1e-12).", "identity", stochastic=True)
def conditional_second_moment(run):
    rows, margins, average_error = [], [], 0.0
    for d, snr in ((4, 0.0), (8, 0.0), (5, 0.7)):
        sim = am.simulate_mask(d, 600_000, snr=snr, seed=run.seed(400 + d))
        for k in range(d + 1):
            est = sim.conditional_second_moment(2 * k - d)
            if est.count >= 200:
                rows.append((est.mean, am.conditional_moments(d, k, snr).second_moment, est.standard_error,
                             f"d={d} s={snr} k={k}"))
    for d in range(1, 41):
        values = [am.conditional_moments(d, k).second_moment for k in range(d + 1)]
        by_distance = {}
        for k, v in enumerate(values):
            by_distance.setdefault(abs(2 * k - d), []).append(v)
        ordered = [max(by_distance[a]) for a in sorted(by_distance)]
        margins.extend(np.diff(ordered))
        top = TWO_OVER_PI + (1 - TWO_OVER_PI) / d
        margins.append(top * (1 + 1e-12) - max(values))
        margins.append(1.0 - top + 1e-15)
        weights = [math.comb(d, k) / 2.0 ** d for k in range(d + 1)]
        average_error = _worst(average_error, abs(float(np.dot(weights, values)) * d - 1.0))
    return Check.all_of([_z_check(rows, "E[ḡ² | P = k]"),
                         Check.predicate(min(margins), "monotone in |2k − d| and bounded (smallest margin)"),
                         Check.at_most(average_error, 1e-12, f"average over Bin(d, 1/2): rel {average_error:.1e}")])


@claim("and_mask.proposition2_factor", "Parascandolo et al. 2021, Prop. 2 and its proof",
       "For pure noise (n = σ = 1), the exact E‖m_t ⊙ ḡ‖² (exact binomials, 30-digit 2/π) is at most the corrected "
       "bound (d − t + 1)C(d, t)2^{1-d} and the conditional bound (2/π + (1 − 2/π)/d)π0(d, t) for every d <= 200 and "
       "t in (d/2, d] (relative slack 1e-12: the second is an equality at t = d); the printed factor (d − t) makes the "
       "bound 0 at t = d and fails at (d, t) = (2, 2) and (4, 4).", "erratum",
       printed="E‖m_t⊙∇L‖² ≤ σ²n(d − t)·C(d,t)·(1/2)^{d−1}",
       corrected="E‖m_t⊙∇L‖² ≤ σ²n(d − t + 1)·C(d,t)·(1/2)^{d−1}, and ≤ σ²n(2/π + (1 − 2/π)/d)·π₀(d,t)",
       printed_math=r"\mathbb{E} \lVert m_t \odot \nabla L \rVert^2 \le \sigma^2 n (d - t) \cdot \binom{d}{t} "
                    r"\cdot \left(\tfrac{1}{2}\right)^{d-1}",
       corrected_math=r"\mathbb{E} \lVert m_t \odot \nabla L \rVert^2 \le \sigma^2 n (d - t + 1) \cdot \binom{d}{t} "
                      r"\cdot \left(\tfrac{1}{2}\right)^{d-1} \quad\text{and}\quad "
                      r"\le \sigma^2 n \left(\tfrac{2}{\pi} + \tfrac{1 - 2/\pi}{d}\right) \cdot \pi_0(d, t)")
def proposition2_factor():
    corrected_violation, printed_violation, library_error = 0.0, 0.0, 0.0
    with mpmath.workdps(30):
        two_pi = 2 / mpmath.pi
        for d in range(1, 201):
            choose = [math.comb(d, k) for k in range(d + 1)]
            tail_a, tail_b = 0, 0
            for t in range(d, d // 2, -1):
                tail_a += choose[t]
                tail_b += choose[t] * (2 * t - d) ** 2
                if 2 * t <= d:
                    break
                exact = (d * (1 - two_pi) * 2 * tail_a + two_pi * 2 * tail_b) / (mpmath.mpf(d) ** 2 * mpmath.mpf(2) ** d)
                exact = float(exact)
                bounds = am.noise_masked_norm_bounds(d, t)
                corrected_violation = _worst(corrected_violation, (exact - bounds.paper_chain) / exact,
                                          (exact - bounds.conditional) / exact)
                library = am.masked_update_moments(d, (2 * t - d) / d, 0.0).second_moment
                library_error = _worst(library_error, abs(library / exact - 1.0))
                if (d, t) in ((2, 2), (4, 4)):
                    printed = (d - t) * math.comb(d, t) * 2.0 ** (1 - d)
                    printed_violation = _worst(printed_violation, (exact - printed) / exact)
    check = Check.erratum(printed_violation, max(corrected_violation, 0.0), 1e-12,
                          detail=f"largest relative excess of the exact value over the corrected bounds "
                                 f"{corrected_violation:.1e}")
    return Check.all_of([check, Check.at_most(library_error, 1e-12, f"masked_update_moments vs exact: rel "
                                                                   f"{library_error:.1e}")], check.detail)


@claim("and_mask.proposition2_rate", "Parascandolo et al. 2021, proof of Prop. 2, rate O(n/(2−q)^d)",
       "At d = 1600 the decay rate −(1/d)·log π0(d, t), t = ⌈d(1 + τ)/2⌉, computed from exact binomial sums in mpmath "
       "(and matched by log_keep_probability, rel 1e-10), is within the type-class envelope (log(d+1) − log 2)/d + "
       "|KL(t/d‖1/2) − log c(τ)| of log c(τ) = log decay_rate(τ) for τ in {0.2, 0.5, 0.6, 0.8}; decay_rate matches "
       "exp KL(Bern((1+τ)/2)‖Bern(1/2)) (mpmath, rel 1e-14) and the listed values (abs 1e-5). The printed base "
       "2 − q (q = 2^{H₂(t/d)}) is below 1, i.e. no decay at all.", "erratum",
       printed="E‖m_t⊙∇L‖² ≤ O(n/(2 − q)^d), q = 1/(r^r(1−r)^{1−r}), r = t/d",
       corrected="E‖m_t⊙∇L‖² ≤ 2nσ²·c(τ)^{−d} = O(n/c^d), c(τ) = (1+τ)^{(1+τ)/2}(1−τ)^{(1−τ)/2} = 2/q",
       printed_math=r"\mathbb{E} \lVert m_t \odot \nabla L \rVert^2 \le O\left(n / (2 - q)^d\right), \quad q "
                    r"= \frac{1}{r^r (1 - r)^{1 - r}}, \quad r = t/d",
       corrected_math=r"\mathbb{E} \lVert m_t \odot \nabla L \rVert^2 \le 2n\sigma^2 \cdot c(\tau)^{-d} = O(n / c^d), "
                      r"\quad c(\tau) = (1 + \tau)^{(1 + \tau)/2} (1 - \tau)^{(1 - \tau)/2} = 2/q")
def proposition2_rate():
    d = 1600
    corrected_error, printed_error, limit, log_error = 0.0, math.inf, 0.0, 0.0
    with mpmath.workdps(30):
        for tau in (0.2, 0.5, 0.6, 0.8):
            t = -(-d * (10 + int(round(10 * tau))) // 20)  # ⌈d(1 + τ)/2⌉ exactly, τ a multiple of 0.1
            pi0 = 2 * mpmath.fsum(mpmath.binomial(d, k) for k in range(t, d + 1)) / mpmath.mpf(2) ** d
            rate = float(-mpmath.log(pi0) / d)
            log_error = _worst(log_error, abs(am.log_keep_probability(d, (2 * t - d) / d) / float(mpmath.log(pi0)) - 1))
            log_c = math.log(am.decay_rate(tau))
            r = t / d
            kl = math.log(2) + r * math.log(r) + (1 - r) * math.log(1 - r)
            envelope = (math.log(d + 1) - math.log(2)) / d + abs(kl - log_c)
            corrected_error = _worst(corrected_error, abs(rate - log_c) / envelope)
            q = 2.0 ** (-(r * math.log2(r) + (1 - r) * math.log2(1 - r)))
            printed_error = min(printed_error, abs(rate - math.log(2.0 - q)) / envelope)
            limit = _worst(limit, envelope)
    value_error = 0.0
    with mpmath.workdps(30):
        for tau in (0.1, 0.2, 0.5, 0.6, 0.8, 0.99):
            x = mpmath.mpf(tau)
            c = mpmath.exp(((1 + x) * mpmath.log(1 + x) + (1 - x) * mpmath.log(1 - x)) / 2)
            value_error = _worst(value_error, abs(am.decay_rate(tau) / float(c) - 1))
    listed = {0.1: 1.00502, 0.2: 1.02034, 0.5: 1.13975, 0.6: 1.21257, 0.8: 1.44493, 1.0: 2.0, 0.0: 1.0}
    listed_error = _worst(abs(am.decay_rate(t) - v) for t, v in listed.items())
    check = Check.erratum(printed_error, corrected_error, 1.0, reject_above=1.0,
                          detail=f"rate errors in units of the envelope (largest envelope {limit:.4f}); the printed "
                                 f"base misses the observed rate by at least {printed_error:.0f} envelopes")
    return Check.all_of([check, Check.at_most(log_error, 1e-10, "log_keep_probability vs mpmath"),
                         Check.at_most(value_error, 1e-14, "decay_rate vs mpmath"),
                         Check.at_most(listed_error, 1e-5, "listed c(τ) values")], check.detail)


@claim("and_mask.exponential_decay_sandwich", "Parascandolo et al. 2021, Prop. 2 (bounds corrected in this project)",
       "For every d < 400 and t in (d/2, d], the type-class and Chernoff–Hoeffding bounds of keep_probability_bounds "
       "sandwich the exact π0(d, t) (exact fractions; relative slack 1e-12, the upper bound being an equality at "
       "t = d), and the chain conditional <= chernoff <= exponential of noise_masked_norm_bounds holds.", "bound")
def exponential_decay_sandwich():
    worst, chain = -math.inf, -math.inf
    for d in range(1, 400):
        tail = 0
        for t in range(d, d // 2, -1):
            tail += math.comb(d, t)
            if 2 * t <= d:
                break
            pi0 = float(Fraction(2 * tail, 2 ** d))
            bounds = am.keep_probability_bounds(d, t)
            worst = _worst(worst, (bounds.lower - pi0) / pi0, (pi0 - bounds.upper) / pi0)
            if d % 7 == 0:
                b = am.noise_masked_norm_bounds(d, t)
                chain = _worst(chain, (b.conditional - b.chernoff) / b.chernoff, (b.chernoff - b.exponential) / b.exponential)
    return Check.all_of([Check.at_most(worst, 1e-12, f"largest relative violation of the sandwich {worst:.1e}"),
                         Check.at_most(chain, 1e-12, f"bound chain {chain:.1e}")])


@claim("and_mask.masked_step_ratio", "Parascandolo et al. 2021, Prop. 2, Fig 4",
       "E‖m ⊙ ḡ‖²/E‖ḡ‖² < 1 for every τ > 0 that masks with positive probability (d <= 60, τ grid); at τ = 1 it equals "
       "2^{1-d}(2d/π + 1 − 2/π) (rel 1e-12) and decreases strictly for d >= 2; the ratio is not monotone in d for "
       "general τ (τ = 0.6: π0(4) = 0.125 < π0(5) = 0.375).", "bound")
def masked_step_ratio():
    margins, formula_error = [], 0.0
    for d in range(1, 61):
        for tau in TAU_GRID[1:]:
            norms = am.expected_squared_norms(d, tau)
            if am.keep_probability(d, tau) < 1.0 - 1e-12:
                margins.append(1.0 - norms.masked / norms.unmasked)
        ratio = am.expected_squared_norms(d, 1.0)
        formula = 2.0 ** (1 - d) * (2 * d / math.pi + 1 - TWO_OVER_PI)
        formula_error = _worst(formula_error, abs(ratio.masked / ratio.unmasked / formula - 1.0))
    ratios = [am.expected_squared_norms(d, 1.0) for d in range(2, 61)]
    ratios = [r.masked / r.unmasked for r in ratios]
    decreasing = -max(np.diff(ratios))
    non_monotone = am.keep_probability(5, 0.6) - am.keep_probability(4, 0.6)
    return Check.all_of([Check.predicate(min(margins), "1 − ratio, smallest over the grid"),
                         Check.at_most(formula_error, 1e-12, "τ = 1 formula"),
                         Check.predicate(decreasing, "smallest decrease of the τ = 1 ratio"),
                         Check.predicate(non_monotone, "π0(5, 0.6) − π0(4, 0.6)")])


# ------------------------------------------------------------------------------------------------ signal
@claim("and_mask.signal_keep_probability_mc",
       "derived in this project (Eq 6 of Parascandolo et al. 2021 extended to signal)",
       "With i.i.d. N(μ, σ²) gradients the Monte Carlo keep frequency (3e5 coordinates; d in {3, 8, 16}, s in "
       "{0.25, 1}, τ in {0.2, 0.5, 1}) matches keep_probability (Bonferroni z, theoretical standard errors, N·π >= 50); "
       "keep_probability equals a 30-digit mpmath sum over all 2^d sign patterns kept by and_mask (d <= 9, rel 1e-12), "
       "Φ(s)^d + Φ(−s)^d at τ = 1 (rel 1e-12), is even in s (rel 1e-13) and non-decreasing in |s| (d < 40); the d = 4 "
       "reference table of the theory note is reproduced to 4 significant figures. Rate: over n = 500, 1000, ..., "
       "64000 coordinates (8 batches each; d in {3, 8}, s in {0.25, 1}, τ in {0.2, 0.5, 1}, 500·min(π, 1 − π) >= 50), the "
       "root-mean-square of (estimate − π)/√(π(1 − π)) has log–log slope −1/2 (Check.rate).", "identity",
       stochastic=True)
def signal_keep_probability_mc(run):
    rows, n = [], 300_000
    for d in (3, 8, 16):
        for s in (0.25, 1.0):
            sim = am.simulate_mask(d, n, snr=s, seed=run.seed(500 + 10 * d + int(4 * s)))
            for tau in (0.2, 0.5, 1.0):
                exact = am.keep_probability(d, tau, s)
                if n * exact >= 50 and exact < 1.0:
                    rows.append((am.estimate_from_simulation(sim, tau).keep_probability, exact,
                                 math.sqrt(exact * (1 - exact) / n), f"d={d} s={s} τ={tau}"))
    enumeration_error = 0.0
    with mpmath.workdps(30):
        for d in range(1, 10):
            patterns = _sign_patterns(d)
            positives = (patterns > 0).sum(axis=0)
            for s in (0.3, 1.7):
                p, q = mpmath.ncdf(s), mpmath.ncdf(-s)
                for tau in _tau_values(d):
                    kept = am.and_mask(patterns, float(tau))
                    exact = mpmath.fsum(p ** int(k) * q ** (d - int(k)) for k in positives[kept])
                    value = am.keep_probability(d, float(tau), s)
                    enumeration_error = _worst(enumeration_error, float(abs(value / exact - 1)) if exact > 0 else value)
    closed, symmetric, monotone = 0.0, 0.0, math.inf
    snrs = np.linspace(0.0, 4.0, 41)
    for d in range(1, 40, 3):
        for s in (0.1, 0.7, 2.5):
            target = special.ndtr(s) ** d + special.ndtr(-s) ** d
            closed = _worst(closed, abs(am.keep_probability(d, 1.0, s) / target - 1))
        for tau in (0.1, 0.3, 0.5, 0.7, 0.9, 1.0):
            values = am.keep_probability(d, tau, snrs)
            symmetric = _worst(symmetric, float(np.max(np.abs(am.keep_probability(d, tau, -snrs) / values - 1))))
            monotone = min(monotone, float(np.min(np.diff(values) + 1e-15 * values[1:])))
    table = {0.2: (.625, .6537, .7269, .8931, .9970), 0.6: (.125, .1544, .2377, .5017, .9121)}
    table_error = _worst(abs(am.keep_probability(4, tau, s) / v - 1) for tau, vs in table.items()
                      for s, v in zip((0.0, 0.25, 0.5, 1.0, 2.0), vs))
    def draw(size, seed):
        out = []
        for d in (3, 8):
            for s in (0.25, 1.0):
                sim = am.simulate_mask(d, size, snr=s, seed=seed + 10 * d + int(4 * s))
                for tau in (0.2, 0.5, 1.0):
                    exact = am.keep_probability(d, tau, s)
                    if _frequent(exact):  # d = 3, τ = 0.2 keeps every coordinate
                        out.append((am.estimate_from_simulation(sim, tau).keep_probability, exact,
                                    math.sqrt(exact * (1 - exact))))
        return out

    return Check.all_of([_z_check(rows, "keep probability (signal)"), _mc_rate(run, 40_000, draw, "keep probability"),
                         Check.at_most(enumeration_error, 1e-12, "vs enumeration of sign patterns"),
                         Check.at_most(closed, 1e-12, "τ = 1 closed form"),
                         Check.at_most(symmetric, 1e-13, "even in s"),
                         Check.at_least(monotone, 0.0, "non-decreasing in |s|"),
                         Check.at_most(table_error, 1e-3, "d = 4 table (4 s.f.)")])


def _direct_moments(d, tau, snr, sigma):
    """Σ_{k∈K} Bin(k; d, p)·(E[ḡ | P=k], E[ḡ² | P=k]) with truncated-normal pieces in 30-digit mpmath."""
    with mpmath.workdps(30):
        s, sig = mpmath.mpf(snr), mpmath.mpf(sigma)
        p, q, phi = mpmath.ncdf(s), mpmath.ncdf(-s), mpmath.npdf(s)
        m_plus, m_minus = sig * (s + phi / p), sig * (s - phi / q)
        v_plus = sig ** 2 * (1 - s * phi / p - (phi / p) ** 2)
        v_minus = sig ** 2 * (1 + s * phi / q - (phi / q) ** 2)
        threshold = _threshold_exact(d, Fraction(str(tau)))
        first = second = mpmath.mpf(0)
        for k in range(d + 1):
            if abs(2 * k - d) >= threshold:
                w = mpmath.binomial(d, k) * p ** k * q ** (d - k)
                mean_sum = k * m_plus + (d - k) * m_minus
                first += w * mean_sum / d
                second += w * (k * v_plus + (d - k) * v_minus + mean_sum ** 2) / d ** 2
        return float(first), float(second)


@claim("and_mask.signal_moments_mc", "derived in this project (moments of a masked signal coordinate)",
       "E[m ḡ] (the Bin(d − 1) closed form) and E[m ḡ²] of masked_update_moments match the Monte Carlo means (3e5 "
       "coordinates; σ = 0.7; d in {3, 8}; s in {0.3, 1.5}; τ in {0, 0.2, 0.6, 1}; Bonferroni z over both moments with "
       "sample standard errors) and the direct conditional sums in 30-digit mpmath (rel 1e-12); E[m ḡ] = 0 exactly "
       "at μ = 0 and is odd in s; the d = 4 reference tables of the theory note (E[m ḡ]/μ and E[m ḡ²]) are reproduced "
       "to 4 significant figures. Rate: over n = 500, 1000, ..., 64000 coordinates (8 batches each; d in {3, 8}, "
       "s in {0.3, 1.5}, τ in {0.2, 0.6, 1}, where 500·π >= 50), the root-mean-square error of both moments, in "
       "units of their per-coordinate standard deviations (for E[m ḡ] the exact √(E[m ḡ²] − E[m ḡ]²)), has log–log "
       "slope −1/2 (Check.rate).", "identity", stochastic=True)
def signal_moments_mc(run):
    sigma, rows, direct_error = 0.7, [], 0.0
    for d in (3, 8):
        for s in (0.3, 1.5):
            sim = am.simulate_mask(d, 300_000, snr=s, gradient_std=sigma, seed=run.seed(600 + 10 * d + int(10 * s)))
            for tau in (0.0, 0.2, 0.6, 1.0):
                moments = am.masked_update_moments(d, tau, s, sigma)
                est = am.estimate_from_simulation(sim, tau)
                rows.append((est.first_moment, moments.first_moment, est.first_moment_se, f"E[mḡ] d={d} s={s} τ={tau}"))
                rows.append((est.second_moment, moments.second_moment, est.second_moment_se,
                             f"E[mḡ²] d={d} s={s} τ={tau}"))
    for d in (1, 2, 5, 12, 30):
        for s in (0.05, 0.8, 3.0):
            for tau in (0.0, 0.3, 0.6, 1.0):
                first, second = _direct_moments(d, tau, s, sigma)
                moments = am.masked_update_moments(d, tau, s, sigma)
                direct_error = _worst(direct_error, abs(moments.first_moment / first - 1),
                                   abs(moments.second_moment / second - 1),
                                   abs(am.masked_update_moments(d, tau, -s, sigma).first_moment / first + 1))
    zero = _worst(abs(am.masked_update_moments(d, tau, 0.0).first_moment) for d in range(1, 30) for tau in TAU_GRID)
    first_table = {0.2: (.8737, .8995, .9592, .9988), 0.6: (.3864, .4498, .6448, .9373)}
    second_table = {0.2: (0.2159, 0.2779, 0.4650, 1.223, 4.248), 0.6: (0.09093, 0.1319, 0.2649, 0.9098, 4.055)}
    table_error = _worst([abs(am.masked_update_moments(4, tau, s).first_moment / s / v - 1)
                       for tau, vs in first_table.items() for s, v in zip((0.25, 0.5, 1.0, 2.0), vs)]
                      + [abs(am.masked_update_moments(4, tau, s).second_moment / v - 1)
                         for tau, vs in second_table.items() for s, v in zip((0.0, 0.25, 0.5, 1.0, 2.0), vs)])
    def draw(size, seed):
        out = []
        for d in (3, 8):
            for s in (0.3, 1.5):
                sim = am.simulate_mask(d, size, snr=s, gradient_std=sigma, seed=seed + 10 * d + int(10 * s))
                for tau in (0.2, 0.6, 1.0):
                    if not _frequent(am.keep_probability(d, tau, s), both_sides=False):
                        continue
                    moments = am.masked_update_moments(d, tau, s, sigma)
                    est = am.estimate_from_simulation(sim, tau)
                    out.append((est.first_moment, moments.first_moment,
                                math.sqrt(moments.second_moment - moments.first_moment ** 2)))
                    out.append((est.second_moment, moments.second_moment, est.second_moment_se * math.sqrt(size)))
        return out

    return Check.all_of([_z_check(rows, "masked moments"), _mc_rate(run, 50_000, draw, "E[m ḡ] and E[m ḡ²]"),
                         Check.at_most(direct_error, 1e-12, "closed form vs direct mpmath sums"),
                         Check.at_most(zero, 0.0, "E[m ḡ] at μ = 0"),
                         Check.at_most(table_error, 5e-4, "d = 4 tables (4 s.f.)")])


@claim("and_mask.first_moment_conjecture", "derived in this project (a conjecture, checked numerically)",
       "Conjecture (no proof): for μ >= 0, 0 <= E[m_τ ḡ] <= μ and E[m_τ ḡ] is non-increasing in τ; checked "
       "on d <= 40, 21 values of τ and s in (0, 4] (round-off slack 1e-13·μ).", "bound")
def first_moment_conjecture():
    taus = np.linspace(0.0, 1.0, 21)
    worst = -math.inf
    for d in range(1, 41):
        for s in (0.05, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0):
            values = np.array([am.masked_update_moments(d, tau, s).first_moment for tau in taus])
            worst = _worst(worst, float(np.max(-values)), float(np.max(values - s)), float(np.max(np.diff(values))))
    return Check.at_most(worst, 1e-13 * 4.0, f"largest violation {worst:.2e}")


@claim("and_mask.threshold_behaviour",
       "derived in this project (the large-d threshold SNR; it explains the small τ of Parascandolo et al. 2021, §3.2)",
       "For s in {0.1, 0.25, 0.5, 1, 2} and τ on a 0.05 grid: when τ < 2Φ(s) − 1 − 0.05, π(d, τ, s) increases towards 1 "
       "along d = 64, 256, 1024, 4096 (steps between values within 1e-12 of 1 are round-off and skipped) and "
       "π(1024) > π(16); when τ > 2Φ(s) − 1 + 0.05, and at τ = 1 for every s, it decreases along d = 16, 64, 256, "
       "1024 (compared in logs). (The stronger 'increases along 16, 64, 256, 1024' fails once on this grid: s = 0.25, "
       "τ = 0.1 gives π(16) = 0.857 > π(64) = 0.772, because at d = 16 only S = 0 is masked.) threshold_snr satisfies 2Φ(s*) − 1 = τ "
       "(mpmath, abs 1e-12), s*(0.2) = 0.2533 (4 s.f.) and s*(1) = ∞.",
       "limit")
def threshold_behaviour():
    ds = (16, 64, 256, 1024)
    margins = []
    for s in (0.1, 0.25, 0.5, 1.0, 2.0):
        edge = 2 * special.ndtr(s) - 1
        for tau in np.linspace(0.05, 1.0, 20):
            if tau < edge - 0.05:  # increasing; steps between values within round-off of 1 are not steps
                values = [am.keep_probability(d, float(tau), s) for d in (64, 256, 1024, 4096)]
                steps = [b - a for a, b in zip(values[:-1], values[1:]) if not (1 - a < 1e-12 and 1 - b < 1e-12)]
                margins.append(min(steps) if steps else 1.0)
                margins.append(am.keep_probability(1024, float(tau), s) - am.keep_probability(16, float(tau), s))
            elif tau > edge + 0.05 or tau == 1.0:  # decreasing, compared in logs (no underflow)
                logs = np.array([am.log_keep_probability(d, float(tau), s) for d in ds])
                margins.append(float(np.min(-np.diff(logs))))
    inverse_error = 0.0
    with mpmath.workdps(30):
        for tau in (0.01, 0.2, 0.5, 0.9, 0.999):
            inverse_error = _worst(inverse_error, abs(float(2 * mpmath.ncdf(am.threshold_snr(tau)) - 1) - tau))
    return Check.all_of([Check.predicate(min(margins), "smallest step of the monotone sequences"),
                         Check.at_most(inverse_error, 1e-12, "2Φ(s*) − 1 − τ"),
                         Check.at_most(abs(am.threshold_snr(0.2) - 0.2533), 5e-5, "s*(0.2)"),
                         Check.predicate(1.0 if math.isinf(am.threshold_snr(1.0)) else -1.0, "s*(1) = inf")])


# ------------------------------------------------------------------------------------------------ Proposition 1
def _random_spd(rng, n, low=0.2, high=3.0):
    q = np.linalg.qr(rng.standard_normal((n, n)))[0]
    return (q * rng.uniform(low, high, n)) @ q.T


@claim("and_mask.proposition1_descent", "Parascandolo et al. 2021, Prop. 1",
       "On 12 random quadratics L = (1/d)Σ_e ½(θ − θ_e)ᵀH_e(θ − θ_e) (d = 5, n = 6) with η = 1/λ_max(mean H), every "
       "step of and_masked_gd (τ in {0.4, 0.8, 1}, 150 steps) satisfies L(θ⁺) <= L(θ) − (η/2)‖m ⊙ ∇L‖², and "
       "min_{i<k} ‖m ⊙ ∇L(θ^i)‖² <= 2(L(θ⁰) − L*)/(ηk) for every k (L and L* computed independently); tolerance "
       "1e-12 relative to max(1, L), a round-off envelope. masked_descent_bound equals 2(L(θ⁰) − L*)/(ηk) "
       "(1e-13 relative, round-off), so that a looser bound cannot pass.", "theorem", stochastic=True)
def proposition1_descent(run):
    rng = run.rng(700)
    worst_step, worst_min, worst_formula = -math.inf, -math.inf, 0.0
    for _ in range(12):
        d, n = 5, 6
        hessians = np.array([_random_spd(rng, n) for _ in range(d)])
        optima = rng.standard_normal((d, n))
        mean_h = hessians.mean(axis=0)
        eta = 1.0 / np.linalg.eigvalsh(mean_h)[-1]
        theta_star = np.linalg.solve(mean_h, np.einsum("eij,ej->i", hessians, optima) / d)

        def loss(theta):
            diff = theta - optima
            return float(np.einsum("ei,eij,ej->", diff, hessians, diff) / (2 * d))

        def env_gradients(theta):
            return np.einsum("eij,ej->ei", hessians, theta - optima)

        l_star = loss(theta_star)
        for tau in (0.4, 0.8, 1.0):
            result = am.and_masked_gd(env_gradients, 3.0 * rng.standard_normal(n), tau, eta, 150)
            losses = np.array([loss(t) for t in result.thetas])
            excess = losses[1:] - losses[:-1] + 0.5 * eta * result.masked_gradient_sq
            worst_step = _worst(worst_step, float(np.max(excess / np.maximum(1.0, losses[:-1]))))
            running_min = np.minimum.accumulate(result.masked_gradient_sq)
            for k in range(1, 151):
                bound = am.masked_descent_bound(losses[0], l_star, eta, k)
                worst_min = _worst(worst_min, running_min[k - 1] - bound)
                direct = 2.0 * (losses[0] - l_star) / (eta * k)  # the bound's own formula: a looser one must fail
                worst_formula = max(worst_formula, abs(bound - direct) / direct)
    return Check.all_of([Check.at_most(worst_step, 1e-12, f"largest descent-lemma excess {worst_step:.1e}"),
                         Check.at_most(worst_min, 1e-12, f"largest excess over 2(L0 − L*)/(ηk) {worst_min:.1e}"),
                         Check.at_most(worst_formula, 1e-13, f"masked_descent_bound vs 2(L0 − L*)/(ηk), relative "
                                                             f"{worst_formula:.1e}")])


# ------------------------------------------------------------------------------------------------ Proposition 3
def _consistency_from_definition(hessians_a, hessians_b, eps, rng, n_points=32):
    """−C^ε of two diagonal quadratics straight from Eq 2 and from the proof's objective, for a batch of pairs
    (rows of ``hessians_a``, ``hessians_b``, shape (m, n)): the largest |L_e' − L_e| (and L_e') over points of
    N^ε_e = {½θᵀH_eθ <= ε}, both orderings (e, e'), with L_e = ½θᵀH_eθ evaluated as a sum. The points are the 2n
    axis vertices θ = ±√(2ε/λ^e_i)·e_i of the ellipsoid and ``n_points`` random points, half on its boundary and
    half inside; the losses are linear in θ², so the maximum is attained at a vertex, and the random points, which
    never exceed it, check that. Returns two arrays of shape (m,): Eq 2 and proof."""
    m, n = hessians_a.shape
    eq2, proof = np.full(m, -np.inf), np.full(m, -np.inf)
    for h_e, h_other in ((hessians_a, hessians_b), (hessians_b, hessians_a)):
        u = rng.standard_normal((m, n_points, n))
        radius = np.where(np.arange(n_points) < n_points // 2, 1.0, rng.random((m, n_points)) ** (1.0 / n))
        u *= (radius / np.linalg.norm(u, axis=2))[..., None]
        unit = np.concatenate([np.broadcast_to(np.eye(n), (m, n, n)), -np.broadcast_to(np.eye(n), (m, n, n)), u], axis=1)
        theta_sq = unit ** 2 * (2.0 * eps / h_e)[:, None, :]
        loss_e = 0.5 * np.sum(h_e[:, None, :] * theta_sq, axis=2)
        loss_other = 0.5 * np.sum(h_other[:, None, :] * theta_sq, axis=2)
        eq2 = np.maximum(eq2, np.max(np.abs(loss_other - loss_e), axis=1))
        proof = np.maximum(proof, np.max(loss_other, axis=1))
    return eq2, proof


@claim("and_mask.proposition3_constant", "Parascandolo et al. 2021, Prop. 3 and its proof",
       "For 4000 random log-uniform positive diagonal pairs (n <= 3, eigenvalues in [1e-3, 1e3], ε = 0.37), "
       "consistency_diagonal equals −C^ε evaluated from its definition, for both the Eq 2 score max |L_e' − L_e| and "
       "the proof's objective max L_e' over N^ε_e = {½θᵀH_eθ <= ε} and both orderings, computed by evaluating the "
       "losses at the ellipsoid's axis vertices and at 32 random boundary and interior points (which never exceed "
       "the vertices); the comparison is two-sided, to 1e-12 of ε·max_i max(ρ_i, 1/ρ_i) (round-off), so Eq 2's "
       "−1 is checked. C^ε >= −4εR² (R = det H_{A+B}/det H_{A∧B}) holds for both, to relative 1e-12; the printed "
       "−2εR² fails on the counterexample n = 1, λ = (1, 100) (−C_Eq2 = 99ε > 2εR² = 51.005ε) and on about half "
       "of the random pairs.", "erratum", stochastic=True,
       printed="C^ε(θ*) ≥ −2ε·(det H_{A+B}/det H_{A∧B})²",
       corrected="C^ε(θ*) ≥ −4ε·(det H_{A+B}/det H_{A∧B})² (√ε, not ε, in the proof; sharp)",
       printed_math=r"C^\varepsilon(\theta^*) \ge -2\varepsilon \cdot "
                    r"\left(\det H_{A+B} / \det H_{A \wedge B}\right)^2",
       corrected_math=r"C^\varepsilon(\theta^*) \ge -4\varepsilon \cdot "
                      r"\left(\det H_{A+B} / \det H_{A \wedge B}\right)^2 "
                      r"\quad (\sqrt{\varepsilon}\text{, not } \varepsilon\text{, in the proof; sharp})")
def proposition3_constant(run):
    rng = run.rng(800)
    eps = 0.37
    corrected, printed_failures, trials = -math.inf, 0, 4_000
    pairs = {1: [], 2: [], 3: []}  # by n: (λ^A, λ^B, library −C_Eq2, library −C_proof)
    for _ in range(trials):
        n = int(rng.integers(1, 4))
        a, b = 10.0 ** rng.uniform(-3, 3, n), 10.0 ** rng.uniform(-3, 3, n)
        bound = am.consistency_lower_bound(a, b, eps)  # −4εR²
        library = [am.consistency_diagonal(a, b, eps, objective) for objective in ("eq2", "proof")]
        corrected = _worst(corrected, *((minus_c + bound) / -bound for minus_c in library))
        printed_failures += library[0] > -bound / 2
        pairs[n].append((a, b, *library))
    points, definition = run.rng(801), 0.0
    for group in pairs.values():
        a, b, library_eq2, library_proof = (np.array(column) for column in zip(*group))
        direct_eq2, direct_proof = _consistency_from_definition(a, b, eps, points)
        scale = eps * np.max(np.maximum(a / b, b / a), axis=1)
        definition = _worst(definition, float(np.max(np.abs(library_eq2 - direct_eq2) / scale)),
                            float(np.max(np.abs(library_proof - direct_proof) / scale)))
    minus_c = am.consistency_diagonal([1.0], [100.0], eps)
    printed_error = (minus_c + am.consistency_lower_bound([1.0], [100.0], eps) / 2) / (-am.consistency_lower_bound([1.0], [100.0], eps) / 2)
    check = Check.erratum(printed_error, max(corrected, 0.0), 1e-12, reject_above=0.5,
                          detail=f"counterexample: −C_Eq2 = {minus_c / eps:.3f}ε vs 2εR² = "
                                 f"{-am.consistency_lower_bound([1.0], [100.0], eps) / 2 / eps:.3f}ε; the printed "
                                 f"constant fails on {printed_failures / trials:.0%} of the random pairs; "
                                 f"consistency_diagonal vs the definition {definition:.1e} (of ε·max ρ)")
    return Check.all_of([check, Check.at_most(definition, 1e-12, "consistency_diagonal vs −C^ε from its definition "
                                                                 "(two-sided)")], check.detail)


@claim("and_mask.proposition3_sharp", "Parascandolo et al. 2021, Prop. 3, Remark 2",
       "In 1-D, −C_proof/(εR²) = 4ρ²/(1 + ρ)² increases to 4 as ρ = λ^B/λ^A → ∞ (4 − ratio < 1e-7 at ρ = 1e8), so the "
       "constant 4 is sharp; with H_A = H_B, C_proof = −ε and C_Eq2 = 0 (Remark 2), and λ^A = 0 < λ^B gives C = −∞. "
       "Rate: 4 − ratio = 4(2ρ + 1)/(1 + ρ)² = 8/ρ + O(ρ^{−2}), so on ρ = 1e2, 1e3, ..., 1e8 (library consistency "
       "and amgm_ratio) it has log–log slope −1 (Check.rate).", "limit")
def proposition3_sharp():
    rhos = 10.0 ** np.arange(1, 9)
    ratios = np.array([am.consistency_diagonal([1.0], [r], 1.0, "proof") / am.amgm_ratio([1.0], [r]) ** 2 for r in rhos])
    formula = 4 * rhos ** 2 / (1 + rhos) ** 2
    remark = (abs(am.consistency_diagonal([2.0, 3.0], [2.0, 3.0], 0.5, "proof") - 0.5)
              + abs(am.consistency_diagonal([2.0, 3.0], [2.0, 3.0], 0.5, "eq2")))
    infinite = math.isinf(am.consistency_diagonal([0.0, 1.0], [1.0, 1.0], 0.5))
    return Check.all_of([Check.rate(rhos[1:], 4.0 - ratios[1:], -1.0, detail="4 − ratio against ρ = λ^B/λ^A"),
                         Check.predicate(float(np.min(np.diff(ratios))), "ratio increases with ρ"),
                         Check.at_most(4.0 - ratios[-1], 1e-7, "4 − ratio at ρ = 1e8"),
                         Check.at_most(float(np.max(np.abs(ratios / formula - 1))), 1e-12, "4ρ²/(1+ρ)²"),
                         Check.at_most(remark, 1e-15, "Remark 2"),
                         Check.predicate(1.0 if infinite else -1.0, "λ^A = 0 gives −∞")])


def _boundary_maximum(h_e, h_other, eps, rng):
    """max over ½θᵀH_eθ = ε of |½θᵀ(H_other − H_e)θ|: sample 2e4 points of the ellipsoid (θ = √(2ε)L⁻ᵀu, ‖u‖ = 1),
    then refine the best two by projected gradient ascent of |uᵀMu| on the sphere and a few Rayleigh-quotient
    iterations (linear solves; no eigensolver)."""
    n = h_e.shape[0]
    chol = np.linalg.cholesky(h_e)
    m = linalg.solve_triangular(chol, linalg.solve_triangular(chol, h_other - h_e, lower=True).T, lower=True).T
    m = 0.5 * (m + m.T)
    samples = rng.standard_normal((20_000, n))
    samples /= np.linalg.norm(samples, axis=1, keepdims=True)
    values = np.einsum("si,ij,sj->s", samples, m, samples)
    step = 0.5 / np.abs(m).sum(axis=1).max()
    best = -math.inf
    for u in samples[np.argsort(np.abs(values))[-2:]]:
        sign = math.copysign(1.0, u @ m @ u)
        for _ in range(100):
            u = u + step * sign * (m @ u)
            u /= np.linalg.norm(u)
        for _ in range(4):
            rho = u @ m @ u
            try:
                u = np.linalg.solve(m - rho * np.eye(n), u)
            except np.linalg.LinAlgError:
                break
            u /= np.linalg.norm(u)
        best = _worst(best, abs(eps * (u @ m @ u)))
    return best


@claim("and_mask.consistency_quadratic_general",
       "Parascandolo et al. 2021, Eq 2, §2.1 (the quadratic closed form is derived in this project)",
       "For random 3×3 SPD Hessians (8 pairs and 4 triples, ε = 0.3), consistency_quadratic equals the maximum of "
       "|L_e' − L_e| over the boundaries ½θᵀH_eθ = ε found by sampling 2e4 boundary points and refining by projected "
       "gradient ascent (rel 1e-3, the accuracy of a sampled maximiser); diagonal inputs agree with "
       "consistency_diagonal (rel 1e-12); one environment or identical Hessians give 0, and a singular H_e with "
       "vᵀH_e'v > 0 gives inf.", "identity", stochastic=True)
def consistency_quadratic_general(run):
    rng = run.rng(900)
    eps, worst = 0.3, 0.0
    for n_envs in (2,) * 8 + (3,) * 4:
        hessians = np.array([_random_spd(rng, 3, 0.1, 4.0) for _ in range(n_envs)])
        sampled = _worst(_boundary_maximum(hessians[e], hessians[f], eps, rng)
                      for e in range(n_envs) for f in range(n_envs) if e != f)
        worst = _worst(worst, abs(am.consistency_quadratic(hessians, eps) / sampled - 1))
    diagonal = 0.0
    for _ in range(20):
        a, b = 10.0 ** rng.uniform(-2, 2, 4), 10.0 ** rng.uniform(-2, 2, 4)
        for objective in ("eq2", "proof"):
            general = am.consistency_quadratic(np.array([np.diag(a), np.diag(b)]), eps, objective)
            diagonal = _worst(diagonal, abs(general / am.consistency_diagonal(a, b, eps, objective) - 1))
    h = _random_spd(rng, 3)
    edge = (am.consistency_quadratic(h[None], eps) + am.consistency_quadratic(np.array([h, h]), eps)
            + (0.0 if math.isinf(am.consistency_quadratic(np.array([np.diag([1.0, 0.0]), np.eye(2)]), eps)) else 1.0))
    return Check.all_of([Check.at_most(worst, 1e-3, f"vs sampled boundary maximum: rel {worst:.1e}"),
                         Check.at_most(diagonal, 1e-12, "vs consistency_diagonal"),
                         Check.at_most(edge, 1e-12, "one environment, identical Hessians, singular case")])


@claim("and_mask.karcher_mean", "Parascandolo et al. 2021, §2.2, Fig 3",
       "For random SPD pairs (n = 2..6), karcher_mean satisfies det(A#B) = √(det A det B) (rel 1e-10), "
       "½(A + B) − A#B ⪰ −1e-12, (A#B)A⁻¹(A#B) = B (rel 1e-10), agrees with the independent form A(A⁻¹B)^{1/2} "
       "(scipy sqrtm, rel 1e-8), and is the element-wise √(ab) for diagonal pairs (rel 1e-14).", "identity",
       stochastic=True)
def karcher_mean(run):
    rng = run.rng(1000)
    errors = {"det": 0.0, "riccati": 0.0, "sqrtm": 0.0, "diagonal": 0.0}
    loewner = math.inf
    for _ in range(30):
        n = int(rng.integers(2, 7))
        a, b = _random_spd(rng, n, 0.1, 5.0), _random_spd(rng, n, 0.1, 5.0)
        g = am.karcher_mean(a, b)
        errors["det"] = _worst(errors["det"], abs(np.linalg.det(g) / math.sqrt(np.linalg.det(a) * np.linalg.det(b)) - 1))
        errors["riccati"] = _worst(errors["riccati"], float(np.abs(g @ np.linalg.solve(a, g) - b).max() / np.abs(b).max()))
        loewner = min(loewner, float(np.linalg.eigvalsh(0.5 * (a + b) - g)[0]))
        other = np.real(a @ linalg.sqrtm(np.linalg.solve(a, b)))
        errors["sqrtm"] = _worst(errors["sqrtm"], float(np.abs(g - other).max() / np.abs(g).max()))
        da, db = rng.uniform(0.01, 10, n), rng.uniform(0.01, 10, n)
        errors["diagonal"] = _worst(errors["diagonal"],
                                 float(np.abs(np.diag(am.karcher_mean(np.diag(da), np.diag(db))) / np.sqrt(da * db) - 1).max()))
    return Check.all_of([Check.at_most(errors["det"], 1e-10, "determinant"),
                         Check.at_most(errors["riccati"], 1e-10, "(A#B)A⁻¹(A#B) = B"),
                         Check.at_least(loewner, -1e-12, "Loewner order"),
                         Check.at_most(errors["sqrtm"], 1e-8, "vs A(A⁻¹B)^{1/2}"),
                         Check.at_most(errors["diagonal"], 1e-14, "diagonal case")],
                        ", ".join(f"{k} {v:.1e}" for k, v in errors.items()))


@claim("and_mask.fig3_volume_ratio", "Parascandolo et al. 2021, Fig 3 caption and §2.2 (Fig 12)",
       "For H_A = diag(0.01, 1), H_B = diag(1, 0.01): H_{A+B} = ½(H_A + H_B) = 0.505·I and H_{A∧B} = karcher_mean = "
       "0.1·I; det H_{A∧B} = det H_A = 0.01; the determinant ratio with the mean is 25.5025 and with the sum 102.01 "
       "(exact fractions, rel 1e-12), and amgm_ratio gives 25.5025 from the diagonals, from the matrices and from "
       "the matrices turned by a common rotation by 0.7 rad (determinants are rotation invariant). "
       "The caption's '100 times' matches the sum (2% off) but not the mean (a factor "
       "3.9); tolerance 5%, reading '100' as a round figure.", "erratum",
       printed="det H_{A+B} / det H_{A∧B} ≈ 100 with H_{A+B} = ½(H_A + H_B)",
       corrected="½(H_A + H_B) gives 25.5025 (ellipse area ratio 5.05); ≈ 100 (102.01) holds for the sum H_A + H_B",
       printed_math=r"\det H_{A+B} / \det H_{A \wedge B} \approx 100 \quad \text{with } H_{A+B} "
                    r"= \tfrac{1}{2}(H_A + H_B)",
       corrected_math=r"\tfrac{1}{2}(H_A + H_B) \text{ gives } 25.5025 \text{ (ellipse area ratio } 5.05\text{)}; "
                      r"\quad \approx 100 \ (102.01) \text{ holds for the sum } H_A + H_B")
def fig3_volume_ratio():
    h_a, h_b = np.diag([0.01, 1.0]), np.diag([1.0, 0.01])
    turn = np.array([[math.cos(0.7), -math.sin(0.7)], [math.sin(0.7), math.cos(0.7)]])
    geometric = am.karcher_mean(h_a, h_b)
    det_mean = np.linalg.det(0.5 * (h_a + h_b)) / np.linalg.det(geometric)
    det_sum = np.linalg.det(h_a + h_b) / np.linalg.det(geometric)
    exact_mean = Fraction(505, 1000) ** 2 / Fraction(1, 100)
    exact_sum = Fraction(101, 100) ** 2 / Fraction(1, 100)
    identity = _worst(abs(det_mean / float(exact_mean) - 1), abs(det_sum / float(exact_sum) - 1),
                   abs(am.amgm_ratio([0.01, 1.0], [1.0, 0.01]) / float(exact_mean) - 1),
                   abs(am.amgm_ratio(h_a, h_b) / float(exact_mean) - 1),
                   abs(am.amgm_ratio(turn @ h_a @ turn.T, turn @ h_b @ turn.T) / float(exact_mean) - 1),
                   float(np.abs(geometric - 0.1 * np.eye(2)).max()) / 0.1,
                   abs(np.linalg.det(geometric) / 0.01 - 1))
    check = Check.erratum(abs(det_mean / 100 - 1), abs(det_sum / 100 - 1), 0.05, reject_above=0.5,
                          detail=f"mean ratio {det_mean:.4f}, sum ratio {det_sum:.2f}")
    return Check.all_of([check, Check.at_most(identity, 1e-12, "exact values")], check.detail)


@claim("and_mask.geom_mean_is_geometric_quadratic",
       "Parascandolo et al. 2021, §2.2-2.3; the authors' public code (geom_mean)",
       "For diagonal quadratics with a common minimiser (d in {2, 3, 5}, gradient magnitudes in [0.1, 10]), the "
       "offset-free signed geometric mean of the environment gradients equals H_∧θ with H_∧ = diag(Π_e λ_e^{1/d}) "
       "(atol 1e-12), masked_gradient(geom_mean=True) equals it within 1e-8 (the code's 1e-10 offset), the AND-mask "
       "keeps everything there, H_∧ = karcher_mean(H_A, H_B) for d = 2 (rel 1e-12), and 10 steps of and_masked_gd with "
       "geom_mean follow GD on ½θᵀH_∧θ within the first-order effect of the offset, Σ_steps max_e 1e-10/|g_e|.",
       "identity", stochastic=True)
def geom_mean_is_geometric_quadratic(run):
    rng = run.rng(1100)
    errors = {"exact": 0.0, "offset": 0.0, "karcher": 0.0, "gd": 0.0}
    gd_limit = 0.0
    masked_anything = 0
    for d in (2, 3, 5):
        for _ in range(10):
            n = 6
            lam = 10.0 ** rng.uniform(-0.5, 0.5, (d, n))
            theta = rng.choice([-1.0, 1.0], n) * rng.uniform(0.3, 1.0, n)
            grads = lam * theta
            h_and = np.prod(lam, axis=0) ** (1.0 / d)
            exact = np.sign(grads.mean(axis=0)) * np.exp(np.mean(np.log(np.abs(grads)), axis=0))
            errors["exact"] = _worst(errors["exact"], float(np.abs(exact - h_and * theta).max()))
            errors["offset"] = _worst(errors["offset"], float(np.abs(am.masked_gradient(grads, 1.0, geom_mean=True)
                                                                  - h_and * theta).max()))
            masked_anything += int((~am.and_mask(grads, 1.0)).sum())
            if d == 2:
                errors["karcher"] = _worst(errors["karcher"], float(np.abs(
                    np.diag(am.karcher_mean(np.diag(lam[0]), np.diag(lam[1]))) / h_and - 1).max()))
            path = am.and_masked_gd(lambda th: lam * th, theta, 1.0, 0.1, 10, geom_mean=True).thetas
            reference = theta * (1 - 0.1 * h_and) ** np.arange(11)[:, None]
            errors["gd"] = _worst(errors["gd"], float(np.abs(path / reference - 1).max()))
            offset_effect = np.cumsum([0.0] + [float((1e-10 / np.abs(lam * th)).max()) for th in reference[:-1]])
            gd_limit = _worst(gd_limit, 2.0 * offset_effect[-1])
    return Check.all_of([Check.at_most(errors["exact"], 1e-12, "offset-free geometric mean"),
                         Check.at_most(errors["offset"], 1e-8, "with the 1e-10 offset"),
                         Check.at_most(masked_anything, 0, "coordinates masked"),
                         Check.at_most(errors["karcher"], 1e-12, "Karcher mean"),
                         Check.at_most(errors["gd"], gd_limit, "GD on the geometric-mean quadratic")],
                        ", ".join(f"{k} {v:.1e}" for k, v in errors.items()))


# ------------------------------------------------------------------------------------------------ Figure 1
@claim("and_mask.fig1_construction",
       "Parascandolo et al. 2021, Fig 1, footnote 6 (the landscape is the project's construction)",
       "The Figure 1 construction has L_A = L_B = 0 at c = (−0.5, −0.5) and s* = (0.8, 0.8); its Hessians by central "
       "finite differences of two_valley_losses are 2I (both, at c), diag(2, 0) and diag(0, 2) (at s*) within "
       "1e-3; two_valley_gradients matches finite differences of the losses (rel 1e-6) and, at (0.5, 0.5), the stated "
       "(−0.5457, 0.0037) and (0.0037, −0.5457) to 4 decimals, nearly orthogonal, with the pooled gradient on the "
       "diagonal. two_valley_descent (pooled, each environment, AND-mask; 200 steps from 20 random starts, and from "
       "the first alone) ends where "
       "a numpy loop over two_valley_gradients and masked_gradient (τ = 1) ends (rel 1e-12, round-off).",
       "identity", stochastic=True)
def fig1_construction(run):
    c, s_star = am.TWO_VALLEY_CONSISTENT_MINIMUM, am.TWO_VALLEY_INCONSISTENT_MINIMUM
    zeros = _worst(float(np.abs(am.two_valley_losses(np.array([c, s_star])).loss_a).max()),
                float(np.abs(am.two_valley_losses(np.array([c, s_star])).loss_b).max()))
    h = 1e-4

    def hessian(which, point):
        f = lambda p: float(getattr(am.two_valley_losses(p), which))  # noqa: E731
        out = np.empty((2, 2))
        for i in range(2):
            for j in range(2):
                ei, ej = np.eye(2)[i] * h, np.eye(2)[j] * h
                out[i, j] = (f(point + ei + ej) - f(point + ei - ej) - f(point - ei + ej) + f(point - ei - ej)) / (4 * h * h)
        return out

    hess_error = _worst(float(np.abs(hessian("loss_a", c) - 2 * np.eye(2)).max()),
                     float(np.abs(hessian("loss_b", c) - 2 * np.eye(2)).max()),
                     float(np.abs(hessian("loss_a", s_star) - np.diag([2.0, 0.0])).max()),
                     float(np.abs(hessian("loss_b", s_star) - np.diag([0.0, 2.0])).max()))
    rng = run.rng(1200)
    points = rng.uniform(-1.5, 1.5, (50, 2))
    grads = am.two_valley_gradients(points)
    fd_error, step = 0.0, 1e-6
    for i, which in enumerate(("loss_a", "loss_b")):
        for j in range(2):
            e = np.eye(2)[j] * step
            fd = (getattr(am.two_valley_losses(points + e), which) - getattr(am.two_valley_losses(points - e), which)) / (2 * step)
            fd_error = _worst(fd_error, float(np.max(np.abs(fd - grads[i, :, j]) / np.maximum(np.abs(fd), 1e-3))))
    at_half = am.two_valley_gradients([0.5, 0.5])
    stated = np.array([[-0.5457, 0.0037], [0.0037, -0.5457]])
    stated_error = float(np.abs(at_half - stated).max())
    pooled = at_half.mean(axis=0)
    cosine = abs(at_half[0] @ at_half[1]) / (np.linalg.norm(at_half[0]) * np.linalg.norm(at_half[1]))
    # the compiled descent against a numpy loop over two_valley_gradients and the general AND-mask (τ = 1)
    starts, lr, n_steps = rng.uniform(-1.5, 1.5, (20, 2)), 0.02, 200
    descent_error = 0.0
    for method in ("pooled", "env_a", "env_b", "and_mask"):
        x = starts.copy()
        for _ in range(n_steps):
            g = am.two_valley_gradients(x)  # (2 environments, 20 points, 2)
            update = {"pooled": g.mean(axis=0), "env_a": g[0], "env_b": g[1]}.get(method)
            if update is None:
                update = np.array([am.masked_gradient(g[:, i], 1.0) for i in range(len(x))])
            x = x - lr * update
        compiled = am.two_valley_descent(starts, method, learning_rate=lr, n_steps=n_steps).final
        single = am.two_valley_descent(starts[0], method, learning_rate=lr, n_steps=n_steps).final  # one start
        descent_error = _worst(descent_error, float(np.max(np.abs(compiled - x) / np.maximum(np.abs(x), 1e-3))),
                               float(np.max(np.abs(single[0] - x[0]) / np.maximum(np.abs(x[0]), 1e-3))))
    return Check.all_of([Check.at_most(zeros, 0.0, "zeros at c and s*"),
                         Check.at_most(descent_error, 1e-12, f"two_valley_descent vs a numpy loop {descent_error:.1e}"),
                         Check.at_most(hess_error, 1e-3, f"Hessians {hess_error:.1e}"),
                         Check.at_most(fd_error, 1e-6, f"gradients vs finite differences {fd_error:.1e}"),
                         Check.at_most(stated_error, 5e-5, "stated gradients at (0.5, 0.5)"),
                         Check.at_most(abs(pooled[0] - pooled[1]), 1e-15, "pooled gradient on the diagonal"),
                         Check.at_most(cosine, 0.02, f"|cos| between the environment gradients {cosine:.3f}")])


@claim("and_mask.fig1_basins", "Parascandolo et al. 2021, Fig 1",
       "Basin protocol (41×41 grid over [−1.5, 1.5]², lr 0.02, 30000 steps, success within 1e-2): pooled GD reaches "
       "both c and s* from at least 10% of the grid each; GD on L_A alone ends within 1e-4 of s* from no start after "
       "1e5 steps; AND-masked GD (d = 2, τ = 1) stalls at non-minimisers from at least 10% of the grid and, from the "
       "starts inside (−0.5, 0.8)², reaches s* less than half as often as pooled GD. (10% and one half are "
       "qualitative envelopes; the fractions are in the detail.)", "theorem", cost="slow")
def fig1_basins():
    pooled = am.two_valley_basins("pooled")
    masked = am.two_valley_basins("and_mask")
    pooled_inside = am.two_valley_basins("pooled", between_minima=True)
    masked_inside = am.two_valley_basins("and_mask", between_minima=True)
    axis = np.linspace(-1.5, 1.5, 41)
    starts = np.stack(np.meshgrid(axis, axis, indexing="ij"), axis=-1).reshape(-1, 2)
    alone = am.two_valley_descent(starts, "env_a", n_steps=100_000).final
    nearest = float(np.min(np.linalg.norm(alone - am.TWO_VALLEY_INCONSISTENT_MINIMUM, axis=1)))
    detail = (f"pooled c {pooled.consistent:.3f} s* {pooled.inconsistent:.3f}; AND c {masked.consistent:.3f} s* "
              f"{masked.inconsistent:.3f} stalled {masked.other:.3f}; inside (−0.5, 0.8)²: pooled s* "
              f"{pooled_inside.inconsistent:.3f}, AND s* {masked_inside.inconsistent:.3f}; L_A alone: closest end to "
              f"s* {nearest:.2e}")
    return Check.all_of([Check.at_least(min(pooled.consistent, pooled.inconsistent), 0.10, "pooled reaches both"),
                         Check.above(nearest, 1e-4, "L_A alone never reaches s*"),
                         Check.at_least(masked.other, 0.10, "AND-mask stalls"),
                         Check.below(masked_inside.inconsistent, 0.5 * pooled_inside.inconsistent,
                                     "AND-mask reaches s* less often")], detail)


@claim("and_mask.patchwork_sigmoid", "Parascandolo et al. 2021, appendix 'Section 2.1'",
       "patchwork_losses (2e5-point grids) matches the integrals of the squared error by adaptive quadrature (rel "
       "1e-4) and the values L_A(θ*) = 0.04609 ± 1e-4, L_B(θ*) = 0.007056 ± 1e-5; changing θ₆ to −0.5 leaves "
       "L_A unchanged (< 1e-9) and raises L_B by more than 1.", "identity")
def patchwork_sigmoid():
    def integral(theta, low, high):
        breaks = [x for x in (0.4, 0.5, 0.7, 0.75, 0.8) if low < x < high]
        value, _ = integrate.quad(lambda x: (am.patchwork_model(x, theta) - am.patchwork_target(x)) ** 2, low, high,
                                  points=breaks, limit=400, epsabs=1e-13, epsrel=1e-11)
        return value / (high - low)

    star, tilde = am.patchwork_losses(am.PATCHWORK_THETA_STAR), am.patchwork_losses(am.PATCHWORK_THETA_TILDE)
    quad_error = _worst(abs(star.loss_a / integral(am.PATCHWORK_THETA_STAR, 0.0, 0.5) - 1),
                     abs(star.loss_b / integral(am.PATCHWORK_THETA_STAR, 0.5, 1.0) - 1),
                     abs(tilde.loss_b / integral(am.PATCHWORK_THETA_TILDE, 0.5, 1.0) - 1))
    return Check.all_of([Check.at_most(quad_error, 1e-4, f"grid vs quadrature: rel {quad_error:.1e}"),
                         Check.at_most(abs(star.loss_a - 0.04609), 1e-4, "L_A(θ*)"),
                         Check.at_most(abs(star.loss_b - 0.007056), 1e-5, "L_B(θ*)"),
                         Check.at_most(abs(tilde.loss_a - star.loss_a), 1e-9, "L_A unchanged"),
                         Check.above(tilde.loss_b - star.loss_b, 1.0, "L_B rises")])


# ------------------------------------------------------------------------------------------------ code variants
def _exact_temporal_keep(snr, beta, threshold, k):
    """P(|a_k| >= τ) for the sign EMA a_j = βa_{j−1} + (1 − β)sign(g_j), a_0 = 0, g_j ~ N(snr, 1) i.i.d., summed over
    the 2^k sign sequences (each with probability p^{#+}(1 − p)^{#−}, p = Φ(snr))."""
    p = float(stats.norm.cdf(snr))
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=k)))
    a = np.zeros(len(signs))
    for j in range(k):
        a = beta * a + (1.0 - beta) * signs[:, j]
    plus = (signs > 0).sum(axis=1)
    return float(np.sum((p ** plus * (1.0 - p) ** (k - plus))[np.abs(a) >= threshold]))


@claim("and_mask.temporal_ema_mc",
       "Parascandolo et al. 2021, Algorithm 1, Table 3 (the moments are derived in this project)",
       "For the sign EMA of the temporal AND-mask (a_0 = 0; 2e5 chains of 60 steps; s in {0, 0.5}; β in {0.79, 0.5}), "
       "the Monte Carlo mean of a_k and its variance at k in {1, 5, 20, 60} match (2p − 1)(1 − β^k) and "
       "4p(1−p)(1−β)(1−β^{2k})/(1+β) of sign_ema_moments (stationary: 4p(1−p)(1−β)/(1+β)), and its keep probability "
       "P(|a_k| >= τ = 0.36) at k in {5, 10} the exact sum over the 2^k sign sequences; tolerance: Bonferroni z "
       "with sample standard errors (of the mean, and of the variance from the fourth central moment). Rate: over "
       "n = 500, 1000, ..., 64000 chains of 20 steps (8 batches each; (s, β) in {(0, 0.79), (0.5, 0.5)}, k in {5, "
       "20}), the root-mean-square error of the mean and the variance of a_k, in units of their per-chain standard "
       "deviations (for the mean the exact √Var(a_k)), has log–log slope −1/2 (Check.rate).", "identity",
       stochastic=True)
def temporal_ema_mc(run):
    rows = []
    for s in (0.0, 0.5):
        for beta in (0.79, 0.5):
            sim = am.simulate_temporal_mask(s, beta, 0.36, 60, 200_000, seed=run.seed(1300 + int(10 * s) + int(100 * beta)))
            for k in (1, 5, 20, 60):
                theory = am.sign_ema_moments(s, beta, k)
                rows.append((sim.ema_mean[k - 1], theory.mean, sim.ema_mean_se[k - 1], f"mean s={s} β={beta} k={k}"))
                rows.append((sim.ema_variance[k - 1], theory.variance, sim.ema_variance_se[k - 1],
                             f"variance s={s} β={beta} k={k}"))
            for k in (5, 10):  # P(|a_k| >= τ), exactly, over the 2^k sign sequences; the binomial SE at it
                exact = _exact_temporal_keep(s, beta, 0.36, k)
                rows.append((sim.keep_probability[k - 1], exact, math.sqrt(exact * (1 - exact) / sim.n_chains),
                             f"keep s={s} β={beta} k={k}"))
    stationary = am.sign_ema_moments(0.0, 0.79, np.inf).variance
    closed = 4 * 0.25 * 0.21 / 1.79

    def draw(size, seed):
        out = []
        for s, beta in ((0.0, 0.79), (0.5, 0.5)):
            sim = am.simulate_temporal_mask(s, beta, 0.36, 20, size, seed=seed + int(10 * s))
            for k in (5, 20):
                theory = am.sign_ema_moments(s, beta, k)
                out.append((sim.ema_mean[k - 1], theory.mean, math.sqrt(theory.variance)))
                out.append((sim.ema_variance[k - 1], theory.variance, sim.ema_variance_se[k - 1] * math.sqrt(size)))
        return out

    return Check.all_of([_z_check(rows, "sign EMA"), _mc_rate(run, 60_000, draw, "sign EMA mean and variance"),
                         Check.at_most(abs(stationary / closed - 1), 1e-14, "stationary variance")])


@claim("and_mask.rescaling",
       "Parascandolo et al. 2021, §2.3; the authors' public code (get_grads, scale_grad_inverse_sparsity)",
       "The rescaled update equals mask ⊙ ḡ/(1e-10 + ρ) with ρ the kept fraction of each group (segment ids or index "
       "lists; rel 1e-15), is exactly 0 where a group keeps nothing, and points along the unscaled update; for pure "
       "noise at τ = 1 the expected squared norm per kept coordinate over the kept fraction, E[ḡ² | keep]/π0 "
       "(≈ E‖u‖²/n for large n), grows with d (d = 2..40): a caution for the README default.", "identity",
       stochastic=True)
def rescaling(run):
    rng = run.rng(1400)
    errors, zero_error, direction = 0.0, 0.0, 0.0
    for d in (2, 3, 6):
        g = np.abs(rng.standard_normal((d, 60))) * rng.choice([-1.0, 1.0], size=(1, 60))  # groups 0, 1: all agree
        g[d // 2:, 10:20] *= -1.0  # half of group 0 disagrees
        g[:, 40:] = np.abs(g[:, 40:]) * np.where(np.arange(d)[:, None] % 2 == 0, 1.0, -1.0)  # group 2 all masked
        ids = np.repeat([0, 1, 2], 20)
        mask = am.and_mask(g, 1.0)
        mean = g.mean(axis=0)
        expected = np.zeros(60)
        for group in range(3):
            members = ids == group
            expected[members] = mask[members] * mean[members] / (1e-10 + mask[members].mean())
        for groups in (ids, [np.arange(20), np.arange(20, 40), np.arange(40, 60)]):
            u = am.masked_gradient(g, 1.0, rescale=True, groups=groups)
            errors = _worst(errors, float(np.abs(u - expected).max() / np.abs(expected).max()))  # NaN fails the check
            zero_error = _worst(zero_error, float(np.abs(u[40:]).max()))
        whole = am.masked_gradient(g, 1.0, rescale=True)
        plain = am.masked_gradient(g, 1.0)
        direction = _worst(direction, 1 - whole @ plain / (np.linalg.norm(whole) * np.linalg.norm(plain)))
    growth = [am.conditional_moments(d, d).second_moment / am.keep_probability(d, 1.0) for d in range(2, 41)]
    return Check.all_of([Check.at_most(errors, 1e-15, "per-group rescaling"),
                         Check.at_most(zero_error, 0.0, "nothing kept: exactly 0"),
                         Check.at_most(direction, 1e-15, "direction"),
                         Check.predicate(float(np.min(np.diff(growth))), "E[ḡ²|keep]/π0 grows with d")])


@claim("and_mask.hetero_poisson_binomial",
       "derived in this project (Eq 6 of Parascandolo et al. 2021 extended to heterogeneous environments)",
       "The Poisson-binomial dynamic programme with identical environments equals keep_probability and "
       "masked_update_moments (d <= 30, rel 1e-12); with random (μ_e, σ_e) it equals a 30-digit mpmath sum over all "
       "2^d sign patterns kept by and_mask (d <= 8, rel 1e-10) and matches the heterogeneous Monte Carlo (3e5 "
       "coordinates, d in {3, 6, 12}, τ in {0.3, 0.7, 1}: keep probability, E[m ḡ], E[m ḡ²]; Bonferroni z). Rate: "
       "with the same (μ_e, σ_e) and n = 500, 1000, ..., 64000 coordinates (8 batches each; where 500·π >= 50), the "
       "root-mean-square "
       "error of the three statistics, in units of their per-coordinate standard deviations (exact for the keep "
       "probability and E[m ḡ]), has log–log slope −1/2 (Check.rate).", "identity", stochastic=True)
def hetero_poisson_binomial(run):
    rng = run.rng(1500)
    identical = 0.0
    for d in (1, 2, 5, 9, 16, 30):
        for s in (0.0, 0.4, 1.5):
            for tau in (0.0, 0.3, 0.6, 1.0):
                k = am.keep_probability(d, tau, s)
                m = am.masked_update_moments(d, tau, s, 1.3)
                kh = am.keep_probability_hetero([1.3 * s] * d, [1.3] * d, tau)
                mh = am.masked_update_moments_hetero([1.3 * s] * d, [1.3] * d, tau)
                identical = _worst(identical, abs(kh / k - 1), abs(mh.second_moment / m.second_moment - 1),
                                abs(mh.first_moment - m.first_moment) / max(abs(m.first_moment), 1e-300) if s else
                                abs(mh.first_moment))
    enumeration = 0.0
    with mpmath.workdps(30):
        for d in (1, 2, 4, 6, 8):
            means, stds = rng.normal(0, 1, d), rng.uniform(0.3, 2.0, d)
            patterns = _sign_patterns(d)
            pieces = []
            for mu, sig in zip(means, stds):
                s, sig = mpmath.mpf(mu) / sig, mpmath.mpf(sig)
                p, q, phi = mpmath.ncdf(s), mpmath.ncdf(-s), mpmath.npdf(s)
                pieces.append({1.0: (p, sig * (s + phi / p), sig ** 2 * (1 - s * phi / p - (phi / p) ** 2)),
                               -1.0: (q, sig * (s - phi / q), sig ** 2 * (1 + s * phi / q - (phi / q) ** 2))})
            for tau in (0.0, 0.4, 1.0):
                kept = am.and_mask(patterns, tau)
                keep = first = second = mpmath.mpf(0)
                for column in patterns[:, kept].T:
                    w, mean_sum, var_sum = mpmath.mpf(1), mpmath.mpf(0), mpmath.mpf(0)
                    for e, sign in enumerate(column):
                        pe, me, ve = pieces[e][sign]
                        w, mean_sum, var_sum = w * pe, mean_sum + me, var_sum + ve
                    keep += w
                    first += w * mean_sum / d
                    second += w * (var_sum + mean_sum ** 2) / d ** 2
                kh = am.keep_probability_hetero(means, stds, tau)
                mh = am.masked_update_moments_hetero(means, stds, tau)
                enumeration = _worst(enumeration, float(abs(kh / keep - 1)), float(abs(mh.first_moment / first - 1)),
                                  float(abs(mh.second_moment / second - 1)))
    rows, laws = [], []
    for d in (3, 6, 12):
        means, stds = rng.normal(0, 0.8, d), rng.uniform(0.5, 2.0, d)
        laws.append((means, stds))
        sim = am.simulate_mask_hetero(means, stds, 300_000, seed=run.seed(1500 + d))
        for tau in (0.3, 0.7, 1.0):
            est = am.estimate_from_simulation(sim, tau)
            exact_keep = am.keep_probability_hetero(means, stds, tau)
            moments = am.masked_update_moments_hetero(means, stds, tau)
            if est.n_samples * exact_keep >= 50:
                # max(·, 0): keep_probability_hetero can return 1 + 1 ulp where every coordinate is kept
                keep_se = math.sqrt(max(exact_keep * (1 - exact_keep), 0.0) / est.n_samples)
                rows.append((est.keep_probability, exact_keep, keep_se, f"keep d={d} τ={tau}"))
                rows.append((est.first_moment, moments.first_moment, est.first_moment_se, f"E[mḡ] d={d} τ={tau}"))
                rows.append((est.second_moment, moments.second_moment, est.second_moment_se, f"E[mḡ²] d={d} τ={tau}"))
    def draw(size, seed):
        out = []
        for means, stds in laws:
            sim = am.simulate_mask_hetero(means, stds, size, seed=seed + means.size)
            for tau in (0.3, 0.7, 1.0):
                est = am.estimate_from_simulation(sim, tau)
                keep = am.keep_probability_hetero(means, stds, tau)
                if not _frequent(keep, both_sides=False):
                    continue
                moments = am.masked_update_moments_hetero(means, stds, tau)
                if _frequent(keep):  # d = 3, τ = 0.3 keeps every coordinate
                    out.append((est.keep_probability, keep, math.sqrt(keep * (1 - keep))))
                out += [(est.first_moment, moments.first_moment,
                         math.sqrt(moments.second_moment - moments.first_moment ** 2)),
                        (est.second_moment, moments.second_moment, est.second_moment_se * math.sqrt(size))]
        return out

    return Check.all_of([Check.at_most(identical, 1e-12, f"identical environments: rel {identical:.1e}"),
                         Check.at_most(enumeration, 1e-10, f"vs enumeration: rel {enumeration:.1e}"),
                         _z_check(rows, "heterogeneous Monte Carlo"),
                         _mc_rate(run, 70_000, draw, "keep probability, E[m ḡ], E[m ḡ²] (heterogeneous)")])


# Plausible bugs these claims catch (planted in a copy of the library by tests/test_mutations.py).
planted_bug("and_mask: threshold rounded down instead of up", "dynamics/and_mask/_mask.py",
            "return max(0, math.ceil(agreement_threshold * n_envs - THRESHOLD_SLACK))",
            "return max(0, math.floor(agreement_threshold * n_envs - THRESHOLD_SLACK))",
            ("and_mask.noise_keep_probability_exact",))
planted_bug("and_mask: Eq 2 loses its -1 in the diagonal consistency", "dynamics/and_mask/_consistency.py",
            'return eps * (worst - 1.0) if objective == "eq2" else eps * worst',
            'return eps * worst if objective == "eq2" else eps * worst',
            ("and_mask.proposition3_constant",))
planted_bug("and_mask: Eq 2 loses its -1 in the quadratic consistency", "dynamics/and_mask/_consistency.py",
            'return eps * max(largest - 1.0, 0.0) if objective == "eq2" else eps * largest',
            'return eps * largest if objective == "eq2" else eps * largest',
            ("and_mask.consistency_quadratic_general",))
# Found by the mutation campaign (tools/mutation_campaign.py): it survived the claims before they were made strict.
planted_bug("and_mask: Proposition 1 bound drops inf L", "dynamics/and_mask/_consistency.py",
            "half_gap = 0.5 * l0 - 0.5 * lmin", "half_gap = 0.5 * l0", ("and_mask.proposition1_descent",))


# ------------------------------------------------------------------------------------------------ symbolic claims
# Each claim states a closed form's defining relation once in sympy (the Gaussian integral, the sum over sign patterns,
# the stationarity equation, the recursion, the limit it equals) and checks that the residual simplifies to 0; then the
# library against the sympy expression evaluated by mpmath at 30 digits at 1000 points spread over orders of magnitude
# (verify.symbolic). Every bound is a first-order propagation of float64 rounding through the formula as the library
# evaluates it (stated at each claim). DERIVATIONS below lists every closed form of the theory, what is checked, and
# why some are not checked symbolically.
from dynamics.and_mask._kernels import FAR_TAIL_SNR  # noqa: E402  (the far side's branch point, for the bounds)

from .symbolic import EPS, derivation, library_against_symbols, printed_misses, residual_zero, simplified  # noqa: E402
from .symbolic import POINTS as SYMBOLIC_POINTS  # noqa: E402
from .symbolic import spread  # noqa: E402
from .symbolic import symbolic_result as _symbolic_result  # noqa: E402

sp = lazy_module("sympy")

DERIVATIONS = (
    derivation(
        "and_mask.conditional_moments",
        r"\begin{gathered} \mathbb{E}[\bar g \mid P = k] = \tfrac{1}{d}\bigl(k m_+ + (d-k) m_-\bigr),\quad "
        r"m_\pm = \mathbb{E}[g \mid \pm g > 0] \\ \mathbb{E}[\bar g^2 \mid P = k] = \tfrac{1}{d^2}\bigl(k v_+ + "
        r"(d-k) v_- + (k m_+ + (d-k) m_-)^2\bigr),\quad g \sim N(\mu, \sigma^2) \end{gathered}",
        "exact", "and_mask.symbolic_truncated_normal",
        "derived in this project (the half-normal case μ = 0 is in the proof of Prop. 2 of Parascandolo et al. 2021)",
        "Given the sign vector the entries $g_e$ are independent, each a normal truncated to its sign's side. "
        "Integrating the $N(\\mu, \\sigma^2)$ density over $g > 0$ gives $\\Pr(g > 0) = \\Phi(s)$, "
        "$\\mathbb{E}[g\\,1\\{g>0\\}] = \\mu\\Phi(s) + \\sigma\\varphi(s)$ and "
        "$\\mathbb{E}[g^2 1\\{g>0\\}] = (\\sigma^2 + \\mu^2)\\Phi(s) + \\mu\\sigma\\varphi(s)$ ($s = \\mu/\\sigma$; the "
        "mirror images for $g < 0$); dividing by the probabilities gives the truncated means $m_\\pm$ and variances "
        "$v_\\pm$. With $k$ positive signs, $d\\bar g$ is a sum of $k$ independent draws of the positive piece and "
        "$d - k$ of the negative one, so its mean and variance add up. At $\\mu = 0$ this is "
        "$\\tfrac{\\sigma^2}{d^2}[d(1 - 2/\\pi) + \\tfrac{2}{\\pi}(2k - d)^2]$."),
    derivation(
        ("and_mask.keep_probability", "and_mask.log_keep_probability"),
        r"\pi(d, \tau, s) = \Pr\bigl[\,\lvert \textstyle\sum_e \operatorname{sign} g_e \rvert \ge T\,\bigr] = "
        r"\sum_{k \in K_\tau(d)} \binom{d}{k} \Phi(s)^k \Phi(-s)^{d-k}",
        "exact", "and_mask.symbolic_keep_probability",
        "Parascandolo et al. 2021, Prop. 2, Eq 6 (pure noise; the signal case s ≠ 0 is derived in this project)",
        "The sum over the $2^d$ sign patterns kept by the mask equals the binomial sum (checked for $d \\le 7$ and "
        "every threshold) and the incomplete-beta tails that mpmath evaluates independently of the library's "
        "log-space sums."),
    derivation(
        ("and_mask.keep_probability_rational", "and_mask.keep_probability", "and_mask.log_keep_probability"),
        r"\pi(d, \tau, 0) = 2^{-d} \sum_{k \in K_\tau(d)} \binom{d}{k},\quad \pi(d, 1, 0) = 2^{1-d},\quad "
        r"\lim_{s \to \pm\infty} \pi(d, \tau, s) = 1",
        "exact", "and_mask.symbolic_keep_limits", "Parascandolo et al. 2021, Prop. 2, Eq 6"),
    derivation(
        "and_mask.decay_rate",
        r"\ln c(\tau) = \mathrm{KL}\bigl(\mathrm{Bern}(\tfrac{1+\tau}{2}) \,\Vert\, \mathrm{Bern}(\tfrac{1}{2})\bigr),"
        r"\quad c(0) = 1,\quad \lim_{\tau \to 1} c(\tau) = 2",
        "exact", "and_mask.symbolic_keep_limits",
        "Parascandolo et al. 2021, proof of Prop. 2 (the rate as corrected in this project)"),
    derivation(
        "and_mask.decay_rate",
        r"\lim_{d \to \infty} -\tfrac{1}{d} \ln \pi_0\bigl(d, \lceil d(1+\tau)/2 \rceil\bigr) = \ln c(\tau)",
        "none", None, "Parascandolo et al. 2021, proof of Prop. 2 (the rate as corrected in this project)",
        "A limit of a quotient of log-gamma functions (Stirling) that sympy does not evaluate; the algebraic part, "
        "$\\mathrm{KL}(r \\Vert \\tfrac12) = \\ln(2/q)$ with $q = r^{-r}(1-r)^{-(1-r)}$, is symbolic, and "
        "`and_mask.proposition2_rate` checks the limit at $d = 1600$ within the type-class envelope."),
    derivation(
        "and_mask.masked_update_moments",
        r"\begin{gathered} \mathbb{E}[m \bar g] = (s p + \varphi) \Pr[1 + B' \in K] + (s q - \varphi) "
        r"\Pr[B' \in K],\quad B' \sim \mathrm{Bin}(d-1, p) \\ \mathbb{E}[m \bar g^2] = \sum_{k \in K} \binom{d}{k} "
        r"p^k q^{d-k}\, \mathbb{E}[\bar g^2 \mid P = k] \end{gathered}",
        "exact", "and_mask.symbolic_masked_moments",
        "derived in this project (moments of a masked coordinate; Parascandolo et al. 2021, Prop. 2 at s = 0)",
        "With $\\sigma = 1$, $p = \\Phi(s)$, $q = \\Phi(-s)$, $\\varphi = \\varphi(s)$: "
        "$\\mathbb{E}[m\\bar g] = \\tfrac{1}{d}\\sum_e \\mathbb{E}[g_e 1\\{P \\in K\\}]$, and splitting on the sign of "
        "$g_e$ (the other $d - 1$ signs count $B' \\sim \\mathrm{Bin}(d-1, p)$) gives "
        "$\\mathbb{E}[g 1\\{g>0\\}] \\Pr[1 + B' \\in K] + \\mathbb{E}[g 1\\{g<0\\}] \\Pr[B' \\in K]$, the same for "
        "every $e$. The second moment is the sum over $k$ of the conditional second moments; the identities "
        "$k\\binom{d}{k} = d\\binom{d-1}{k-1}$ and $k(k-1)\\binom{d}{k} = d(d-1)\\binom{d-2}{k-2}$ turn its powers "
        "of $k$ into incomplete-beta tails. Both are checked against the sum over sign patterns for $d \\le 3$."),
    derivation(
        ("and_mask.consistency_quadratic", "and_mask.consistency_diagonal"),
        r"-C^\varepsilon = \varepsilon\bigl(\max_{e \ne e'} \lambda_{\max}(H_e^{-1} H_{e'}) - 1\bigr),\quad "
        r"(H_{e'} - \lambda H_e)\theta = 0",
        "exact", "and_mask.symbolic_consistency",
        "derived in this project (Eq 2 of Parascandolo et al. 2021 for quadratic environments)",
        "For $L_e = \\tfrac12 \\theta^\\top H_e \\theta$, maximise $L_{e'} - L_e$ on $L_e = \\varepsilon$: the "
        "Lagrangian is stationary where $(H_{e'} - \\lambda H_e)\\theta = 0$, so $\\lambda$ is a generalised "
        "eigenvalue and the value is $\\varepsilon(\\lambda - 1)$. The other sign gives "
        "$\\varepsilon(1 - \\lambda_{\\min}) \\le \\varepsilon(1/\\lambda_{\\min} - 1)$, which the reversed pair "
        "attains, so the maximum over ordered pairs is the largest generalised eigenvalue minus 1. For 2×2 "
        "Hessians $\\lambda_\\pm$ are the roots of the quadratic $\\det(H_{e'} - \\lambda H_e) = 0$."),
    derivation(
        ("and_mask.karcher_mean", "and_mask.amgm_ratio", "and_mask.consistency_lower_bound"),
        r"\begin{gathered} G A^{-1} G = B,\quad \det G = \sqrt{\det A \det B},\quad "
        r"R = \det \tfrac12(A + B) / \det(A \# B) \\ C^\varepsilon \ge -4\varepsilon R^2,\quad "
        r"\sup -C^\varepsilon_{\mathrm{proof}}/(\varepsilon R^2) = 4 \end{gathered}",
        "exact", "and_mask.symbolic_geometric_mean",
        "Parascandolo et al. 2021, §2.2, Prop. 3 and Fig 3 (the constant as corrected in this project)"),
    derivation(
        "and_mask.threshold_snr",
        r"2\Phi(s^*) - 1 = \tau,\quad s^*(\tau) = \sqrt{2}\, \operatorname{erfinv}(\tau),\quad "
        r"\lim_{\tau \to 1} s^* = \infty",
        "exact", "and_mask.symbolic_threshold_snr",
        "derived in this project (the large-d threshold SNR; it explains the small τ of Parascandolo et al. 2021, §3.2)",
        "A coordinate is kept when $\\lvert 2P/d - 1 \\rvert \\ge \\tau$, and with i.i.d. $N(\\mu, \\sigma^2)$ "
        "gradients $2P/d - 1 \\to 2\\Phi(s) - 1$ as $d \\to \\infty$ (law of large numbers; the deviations are "
        "exponentially unlikely, at the KL rate). So the keep probability tends to 1 above and to 0 below the root "
        "of $2\\Phi(s^*) - 1 = \\tau$. With $\\Phi(s) = \\tfrac12(1 + \\operatorname{erf}(s/\\sqrt2))$ the root is "
        "$s^* = \\sqrt2 \\operatorname{erfinv}(\\tau)$."),
    derivation(
        "and_mask.sign_ema_moments",
        r"a_k = \beta a_{k-1} + (1 - \beta) \operatorname{sign} g_k,\quad a_0 = 0,\quad "
        r"\Pr(\operatorname{sign} g_k = 1) = p = \Phi(s)",
        "exact", "and_mask.symbolic_sign_ema",
        "derived in this project (the sign EMA of Parascandolo et al. 2021, Algorithm 1)",
        "Unrolled, $a_k = (1 - \\beta)\\sum_{j=1}^{k} \\beta^{k-j} \\epsilon_j$ with i.i.d. signs $\\epsilon_j$ of "
        "mean $2p - 1$ and variance $4p(1 - p)$. The geometric sums give $\\mathbb{E} a_k = (2p - 1)(1 - \\beta^k)$ "
        "and $\\operatorname{Var} a_k = 4p(1-p)(1-\\beta)^2 \\sum_{i<k} \\beta^{2i} = "
        "4p(1-p)(1-\\beta)(1-\\beta^{2k})/(1+\\beta)$, which tend to $2p - 1$ and $4p(1-p)(1-\\beta)/(1+\\beta)$. "
        "Both solve the mean and variance recursions with zero initial values, and equal the sums over the $2^k$ "
        "sign sequences for $k \\le 4$."),
    derivation(
        ("and_mask.keep_probability_hetero", "and_mask.masked_update_moments_hetero"),
        r"\begin{gathered} \mathbb{E}[m \bar g^j] = \sum_{\epsilon \in \{\pm 1\}^d,\ \lvert \sum_e \epsilon_e "
        r"\rvert \ge T} \prod_e w_e(\epsilon_e)\, \mathbb{E}[\bar g^j \mid \epsilon],\quad j = 0, 1, 2 \\ "
        r"M_2'[k + \delta] \mathrel{+}= w\bigl(M_2[k] + 2m M_1[k] + m^2 W[k]\bigr) \end{gathered}",
        "exact", "and_mask.symbolic_hetero",
        "derived in this project (Eq 6 of Parascandolo et al. 2021 extended to heterogeneous environments)",
        "The number of positive signs is Poisson-binomial with $p_e = \\Phi(\\mu_e/\\sigma_e)$. Given the signs the "
        "entries are independent truncated normals (means $m_e$, variances $v_e$ of each sign's side), so "
        "$\\mathbb{E}[\\bar g \\mid \\epsilon] = \\tfrac1d \\sum_e m_e$ and $\\mathbb{E}[\\bar g^2 \\mid \\epsilon] = "
        "\\tfrac{1}{d^2}(\\sum_e v_e + (\\sum_e m_e)^2)$. Adding one environment with weight $w$, shift $\\delta$, "
        "mean $m$ and variance $v$ updates the sums indexed by the count: $W' \\mathrel{+}= wW$, "
        "$M_1' \\mathrel{+}= w(M_1 + mW)$, $M_2' \\mathrel{+}= w(M_2 + 2mM_1 + m^2W)$ (the square of $S + m$), "
        "$V' \\mathrel{+}= w(V + vW)$. The recursion equals the sum over sign patterns exactly for $d \\le 4$ with "
        "symbolic pieces."),
    derivation(
        ("and_mask.noise_masked_norm_bounds", "and_mask.keep_probability_bounds"),
        r"\begin{gathered} \textstyle\sum_{k=t}^{d} 1 = d - t + 1,\quad \mathbb{E} \lVert m_d \odot \bar g "
        r"\rVert^2 = n\sigma^2 \bigl(\tfrac{2}{\pi} + \tfrac{1 - 2/\pi}{d}\bigr) \pi_0(d, d) \\ "
        r"\mathrm{KL}(r \Vert \tfrac12) = \ln(2/q) = \ln c(\tau),\quad q = r^{-r}(1-r)^{-(1-r)},\ "
        r"r = \tfrac{1+\tau}{2} \end{gathered}",
        "exact", "and_mask.symbolic_proposition2",
        "Parascandolo et al. 2021, Prop. 2 and its proof (factor and rate as corrected in this project)",
        "The bounds themselves are inequalities (the chain $\\sum_{k=t}^{d}\\binom{d}{k} \\le (d-t+1)\\binom{d}{t}$, "
        "Chernoff–Hoeffding and the type-class bound): `and_mask.exponential_decay_sandwich` and "
        "`and_mask.proposition2_factor` check them against exact values. Symbolically: the count of terms, the "
        "equality of the conditional bound at $t = d$, the corrected chain's slack there, the rate identity, and "
        "the library's closed forms of the bounds at 30 digits."),
    derivation(
        "and_mask.masked_descent_bound",
        r"\min_{i < k} \lVert m \odot \nabla L(\theta^i) \rVert^2 \le \frac{2\,(L(\theta^0) - L^*)}{\eta k}",
        "none", None, "Parascandolo et al. 2021, Prop. 1",
        "An inequality (the descent lemma summed over $k$ steps), not an identity with a defining equation: "
        "`and_mask.proposition1_descent` checks it on AND-masked GD runs and checks the formula itself to 1e-13."),
    derivation(
        "and_mask.effective_agreement",
        r"t_{\mathrm{eff}} = \lceil (d + T)/2 \rceil,\quad T = \lceil \tau d \rceil",
        "none", None, "Parascandolo et al. 2021, §2.3 (t-form and τ-form of the AND-mask)",
        "Integer arithmetic, with no real-valued relation for sympy to simplify: "
        "`and_mask.tau_form_equals_t_form` checks it exactly against rationals."),
)

#: The errata of this theory shown in sympy (the printed form's residual nonzero at a counterexample, the corrected
#: form's residual 0), by the symbolic claim that shows each.
SYMBOLIC_COUNTERPARTS = {
    "and_mask.proposition2_factor": "and_mask.symbolic_proposition2",
    "and_mask.proposition2_rate": "and_mask.symbolic_proposition2",
    "and_mask.proposition3_constant": "and_mask.symbolic_geometric_mean",
    "and_mask.fig3_volume_ratio": "and_mask.symbolic_geometric_mean",
}
ERRATA_WITHOUT_SYMBOLIC_FORM = {}

#: The numerics core's log Φ(x) takes an asymptotic series below x = −30, truncated at a relative error < 1e-12
#: (dynamics.numerics.normal_logcdf_kernel): an absolute error of the logarithm the eps-bounds below must allow.
LOG_PHI_SERIES_ERROR = 1e-12


def _normal_symbols():
    """s (the SNR μ/σ) and the pieces p = Φ(s), q = Φ(−s), φ = φ(s) as sympy expressions. Φ(−s) is written
    erfc(s/√2)/2 and Φ(s) as erfc(−s/√2)/2 unevaluated (sympy would rewrite it as 1 − erfc(s/√2)/2, which mpmath
    evaluates by cancellation for s ≪ 0)."""
    s = sp.Symbol("s", real=True)
    p = sp.erfc(-s / sp.sqrt(2), evaluate=False) / 2
    q = sp.erfc(s / sp.sqrt(2)) / 2
    phi = sp.exp(-s ** 2 / 2) / sp.sqrt(2 * sp.pi)
    return s, p, q, phi


def _log_cdf_error(x):
    """The absolute error bound of the library's log Φ(x) in units of eps (beyond rounding: the series below −30)."""
    return LOG_PHI_SERIES_ERROR / EPS if x < -30.0 else 0.0


def _mills(x):
    """φ(x)/Φ(x) (no underflow) and the relative error bound of the library's exp(log φ − log Φ) in units of eps:
    the exponent has magnitude x²/2 + |log Φ(x)| + 1, each rounded once."""
    log_cdf = float(special.log_ndtr(x))
    ratio = math.exp(-0.5 * x * x - 0.5 * math.log(2 * math.pi) - log_cdf)
    return ratio, 2.0 * (1.0 + 0.5 * x * x + abs(log_cdf)) + _log_cdf_error(x)


def _pieces_errors(s):
    """The truncated-normal pieces (σ = 1) as the library writes them, m± and v±, with first-order absolute error
    bounds (in eps) from the Mills ratios' errors and the cancellations in m₋ = s − φ/q and
    v₋ = 1 + s φ/q − (φ/q)² (and their mirror images for s < 0)."""
    rp, dp = _mills(s)
    rq, dq = _mills(-s)
    m_plus, m_minus = s + rp, s - rq
    v_plus, v_minus = 1 - s * rp - rp * rp, 1 + s * rq - rq * rq
    err_m_plus = abs(s) + rp + rp * dp
    err_m_minus = abs(s) + rq + rq * dq
    err_v_plus = 2 * (1 + abs(s) * rp + rp * rp) + (abs(s) + 2 * rp) * rp * dp
    err_v_minus = 2 * (1 + abs(s) * rq + rq * rq) + (abs(s) + 2 * rq) * rq * dq
    # Beyond |s| = FAR_TAIL_SNR the far side comes from Laplace's continued fraction (sums of positive terms, 200
    # deep): 8 eps relative, where the measured worst is 2 eps against mpmath at 40 digits
    if s >= FAR_TAIL_SNR:
        err_m_minus, err_v_minus = 8 * abs(m_minus), 8 * abs(v_minus)
    elif s <= -FAR_TAIL_SNR:
        err_m_plus, err_v_plus = 8 * abs(m_plus), 8 * abs(v_plus)
    return (m_plus, m_minus, max(v_plus, 0.0), max(v_minus, 0.0), err_m_plus, err_m_minus, err_v_plus, err_v_minus)


def _keep_ends(d, tau):
    """lo, hi of the keep set K_τ(d) = {k >= lo} ∪ {k <= hi} for T >= 1 (disjoint: lo > d/2 > hi)."""
    threshold = math.ceil(tau * d - 1e-9)
    return -(-(d + threshold) // 2), (d - threshold) // 2


def _binomial_tails():
    """Tail probabilities of Bin(n, x) by the regularised incomplete beta function (mpmath's betainc, a route
    independent of the library's log-space binomial sums): U(n, t, x) = P[B >= t], L(n, h, x) = P[B <= h]."""
    def upper(n, t, x):
        return sp.Piecewise((1, t <= 0), (0, t > n), (sp.betainc(t, n - t + 1, 0, x) / sp.beta(t, n - t + 1), True))

    def lower(n, h, x_complement):  # P[B <= h] = P[Bin(n, 1 − x) >= n − h]
        return sp.Piecewise((0, h < 0), (1, h >= n), (sp.betainc(n - h, h + 1, 0, x_complement)
                                                       / sp.beta(n - h, h + 1), True))
    return upper, lower


def _sign_patterns_sum(d, threshold, term):
    """Σ over the 2^d sign patterns kept by the mask (|Σ signs| >= T) of term(pattern)."""
    return sum(term(pattern) for pattern in itertools.product((1, -1), repeat=d) if abs(sum(pattern)) >= threshold)


@claim("and_mask.symbolic_truncated_normal",
       "Parascandolo et al. 2021, proof of Prop. 2 (half-normal moments); signal coordinates derived in this project",
       "sympy: integrating the N(μ, σ²) density gives P(g > 0) = Φ(μ/σ), E[g 1{g>0}] = μΦ + σφ, E[g 1{g<0}] = "
       "μΦ(−s) − σφ, E[g² 1{g≷0}] = (σ² + μ²)Φ(±s) ± μσφ, and at μ = 0 the half-normal E|g| = σ√(2/π), E g² = σ²; "
       "with independent magnitudes given the signs, E[ḡ² | P = k] = (σ²/d²)[d(1 − 2/π) + (2/π)(2k − d)²] (pure "
       "noise) and E[ḡ | P = k], E[ḡ² | P = k] equal the library's m±, v± forms (residuals 0, symbolic d, k). "
       "conditional_moments equals these at 30 digits at 1000 points (d in [1, 2000], k in [0, d], |s| in [1e-3, 40] "
       "of both signs, σ in [1e-3, 1e3]) within 4 eps times the first-order rounding propagation of its formula "
       "(Mills ratios exp(log φ − log Φ) with exponent s²/2, the cancellations in s − φ/Φ(−s) and "
       "1 + sφ/Φ(−s) − (φ/Φ(−s))² for |s| < 1.5, 8 eps relative for the far side's continued fraction beyond, and "
       "1e-12 for the asymptotic log Φ below −30).", "identity")
def symbolic_truncated_normal():
    g, mu = sp.symbols("g mu", real=True)
    sigma = sp.Symbol("sigma", positive=True)
    s, p, q, phi = _normal_symbols()
    density = sp.exp(-(g - mu) ** 2 / (2 * sigma ** 2)) / (sigma * sp.sqrt(2 * sp.pi))
    at = {s: mu / sigma}
    pp, qq, ff = p.subs(at), q.subs(at), phi.subs(at)
    pieces = [(sp.integrate(density, (g, 0, sp.oo)), pp, "P(g > 0) = Φ(μ/σ)"),
              (sp.integrate(g * density, (g, 0, sp.oo)), mu * pp + sigma * ff, "E[g 1{g>0}] = μΦ + σφ"),
              (sp.integrate(g * density, (g, -sp.oo, 0)), mu * qq - sigma * ff, "E[g 1{g<0}] = μΦ(−s) − σφ"),
              (sp.integrate(g ** 2 * density, (g, 0, sp.oo)), (sigma ** 2 + mu ** 2) * pp + mu * sigma * ff,
               "E[g² 1{g>0}]"),
              (sp.integrate(g ** 2 * density, (g, -sp.oo, 0)), (sigma ** 2 + mu ** 2) * qq - mu * sigma * ff,
               "E[g² 1{g<0}]")]
    checks = [residual_zero(integral - closed, what) for integral, closed, what in pieces]
    half_abs = sp.integrate(2 * g * density.subs(mu, 0), (g, 0, sp.oo))
    checks.append(residual_zero(half_abs - sigma * sp.sqrt(2 / sp.pi), "half-normal E|g| = σ√(2/π)"))
    checks.append(residual_zero(sp.integrate(g ** 2 * density.subs(mu, 0), (g, -sp.oo, sp.oo)) - sigma ** 2,
                                "half-normal E g² = σ²"))
    # Given P = k positive signs, ḡ = (1/d) Σ ε_e |g_e| with i.i.d. half-normal |g_e|: E ḡ² = (1/d²)[Σ E g² +
    # Σ_{e≠e'} ε_e ε_e' (E|g|)²] and Σ_{e≠e'} ε_e ε_e' = (2k − d)² − d.
    d, k = sp.symbols("d k", positive=True)
    noise = (d * sigma ** 2 + ((2 * k - d) ** 2 - d) * half_abs ** 2) / d ** 2
    checks.append(residual_zero(noise - sigma ** 2 / d ** 2 * (d * (1 - 2 / sp.pi) + 2 / sp.pi * (2 * k - d) ** 2),
                                "E[ḡ² | P = k] at μ = 0"))
    # With signal (σ = 1 pieces scaled by σ): the definition from the truncated-normal integrals above against the
    # library's documented m±, v± form.
    a_plus, a_minus = s * p + phi, s * q - phi  # E[g 1{g≷0}] / σ at σ = 1
    b_plus, b_minus = (1 + s ** 2) * p + s * phi, (1 + s ** 2) * q - s * phi
    e_plus, e_minus = a_plus / p, a_minus / q  # E[g | g ≷ 0]
    mean = sigma * (k * e_plus + (d - k) * e_minus) / d
    second = sigma ** 2 * (k * b_plus / p + (d - k) * b_minus / q + k * (k - 1) * e_plus ** 2
                           + (d - k) * (d - k - 1) * e_minus ** 2 + 2 * k * (d - k) * e_plus * e_minus) / d ** 2
    m_plus, m_minus = s + phi / p, s - phi / q
    v_plus, v_minus = 1 - s * phi / p - (phi / p) ** 2, 1 + s * phi / q - (phi / q) ** 2
    documented = (k * v_plus + (d - k) * v_minus + (k * m_plus + (d - k) * m_minus) ** 2) / d ** 2
    checks.append(residual_zero(mean - sigma * (k * m_plus + (d - k) * m_minus) / d, "E[ḡ | P = k] (m± form)"))
    checks.append(residual_zero(second - sigma ** 2 * documented, "E[ḡ² | P = k] (m±, v± form)"))

    raw = spread([(1.0, 2000.0, "log"), (0.0, 1.0, "linear"), (1e-3, 40.0, "log"), (1e-3, 1e3, "log")],
                 SYMBOLIC_POINTS)
    points = np.empty_like(raw)
    points[:, 0] = np.round(raw[:, 0])
    points[:, 1] = np.floor(raw[:, 1] * (points[:, 0] + 1))  # k in {0, ..., d}
    points[:, 2] = np.where(np.arange(len(raw)) % 2 == 0, raw[:, 2], -raw[:, 2])
    points[:, 3] = raw[:, 3]

    def bounds(dv, kv, sv, _):
        mp_, mm_, vp_, vm_, dmp, dmm, dvp, dvm = _pieces_errors(sv)
        total = kv * mp_ + (dv - kv) * mm_
        err_total = kv * dmp + (dv - kv) * dmm + kv * abs(mp_) + (dv - kv) * abs(mm_)
        value = kv * vp_ + (dv - kv) * vm_ + total * total
        err_value = kv * dvp + (dv - kv) * dvm + 2 * abs(total) * err_total + value
        return 4 * EPS * (2 + err_total / abs(total)), 4 * EPS * (3 + err_value / value)

    checks.append(library_against_symbols(
        mean, (d, k, s, sigma), lambda *x: am.conditional_moments(int(x[0]), int(x[1]), x[2], x[3]).mean, points,
        lambda *x: bounds(*x)[0], "conditional_moments mean"))
    checks.append(library_against_symbols(
        second, (d, k, s, sigma), lambda *x: am.conditional_moments(int(x[0]), int(x[1]), x[2], x[3]).second_moment,
        points, lambda *x: bounds(*x)[1], "conditional_moments second moment"))
    return _symbolic_result(checks)


def _keep_points(count, d_high=2000.0, s_low=1e-3, s_high=40.0):
    """(d, τ, s) spread over d in [1, d_high] (log, rounded), τ in (0, 1) (linear: never 0, so T >= 1) and
    |s| in [s_low, s_high] (log), with alternating signs."""
    raw = spread([(1.0, d_high, "log"), (0.0, 1.0, "linear"), (s_low, s_high, "log")], count)
    raw[:, 0] = np.round(raw[:, 0])
    raw[1::2, 2] *= -1.0
    return raw


def _keep_reference():
    """π(d, τ, s) in the symbols d, τ, lo, hi, s: P[Bin(d, Φ(s)) >= lo] + P[Bin(d, Φ(s)) <= hi]."""
    d, tau, lo, hi = sp.symbols("d tau lo hi", real=True)
    s, p, q, _ = _normal_symbols()
    upper, lower = _binomial_tails()
    return (d, tau, lo, hi, s), upper(d, lo, p) + lower(d, hi, q)  # τ enters through lo and hi


def _with_keep_ends(points):
    """(d, τ, lo, hi, s) columns from (d, τ, s) points (the keep set's ends from the threshold T = ⌈τd − 1e-9⌉)."""
    ends = np.array([_keep_ends(int(d), tau) for d, tau, _ in points], dtype=float)
    return np.column_stack([points[:, :2], ends, points[:, 2]])


def _log_term_scale(d, s):
    """The magnitude of the logarithms the library sums for π (lgamma(d + 1) and d·(|log Φ(s)| + |log Φ(−s)|)), in
    which each rounding is an absolute error of the logarithm, i.e. a relative error of π; plus the series error of
    log Φ below −30 (in eps) times the powers it enters with."""
    log_p, log_q = float(special.log_ndtr(s)), float(special.log_ndtr(-s))
    return 1.0 + math.lgamma(d + 1.0) + d * (abs(log_p) + abs(log_q)) + d * (_log_cdf_error(s) + _log_cdf_error(-s))


@claim("and_mask.symbolic_keep_probability", "Parascandolo et al. 2021, Prop. 2, Eq 6 (signal: derived in this project)",
       "sympy: for d = 1..7 and every threshold T = 1..d, the probability of the sign patterns the mask keeps "
       "(|Σ sign| >= T, each sign positive with probability p) equals Σ_{k∈K} C(d,k) p^k (1−p)^{d−k} and the "
       "incomplete-beta tails ∫₀^p d·C(d−1, lo−1) x^{lo−1}(1−x)^{d−lo} dx + the mirror tail (residuals 0), and "
       "1/B(t, n−t+1) = n·C(n−1, t−1) (symbolic n, t); keep_probability equals the incomplete-beta form with "
       "p = Φ(s) at 30 digits at 1000 points (d in [1, 2000], τ in (0, 1), |s| in [1e-3, 40] of both signs; where π > 1e-300, below "
       "which it underflows) within 4 eps (1 + lgamma(d+1) + d(|log Φ(s)| + |log Φ(−s)|)), the rounding of the "
       "logarithms it sums, and log_keep_probability at all 1000 within the same absolute error of log π (checked "
       "as the relative error of 1 − log π, plus eps for that subtraction).",
       "identity")
def symbolic_keep_probability():
    p, x = sp.symbols("p x", positive=True)
    checks = []
    for d in range(1, 8):
        for threshold in range(1, d + 1):
            lo, hi = -(-(d + threshold) // 2), (d - threshold) // 2
            patterns = _sign_patterns_sum(d, threshold, lambda signs: p ** signs.count(1) * (1 - p) ** signs.count(-1))
            binomial = sum(sp.binomial(d, k) * p ** k * (1 - p) ** (d - k)
                           for k in range(d + 1) if abs(2 * k - d) >= threshold)
            upper = sp.integrate(d * sp.binomial(d - 1, lo - 1) * x ** (lo - 1) * (1 - x) ** (d - lo), (x, 0, p))
            lower = sp.integrate(d * sp.binomial(d - 1, d - hi - 1) * x ** (d - hi - 1) * (1 - x) ** hi,
                                 (x, 0, 1 - p))
            checks.append(residual_zero(sp.expand(patterns - binomial), f"patterns vs binomial sum, d={d} T={threshold}"))
            checks.append(residual_zero(sp.expand(binomial - upper - lower), f"incomplete beta, d={d} T={threshold}"))
    n, t = sp.symbols("n t", positive=True, integer=True)
    checks.append(residual_zero((1 / sp.beta(t, n - t + 1) - n * sp.binomial(n - 1, t - 1)).rewrite(sp.gamma),
                                "1/B(t, n−t+1) = n C(n−1, t−1)"))
    symbols, keep = _keep_reference()
    points = _keep_points(SYMBOLIC_POINTS)
    columns = _with_keep_ends(points)

    def log_pi(d, lo, hi, s):
        """|log π| for the bound's scale only (scipy's binomial tails), at most 690: where scipy's tails underflow
        the true |log π| is larger, and a smaller scale only loosens the bound."""
        upper = stats.binom.logsf(lo - 1, int(d), float(special.ndtr(s)))
        value = abs(float(np.logaddexp(upper, stats.binom.logcdf(hi, int(d), float(special.ndtr(s))))))
        return min(value, 690.0) if math.isfinite(value) else 690.0

    # π itself where it is a normal double (π > e^{-690} ≈ 1e-300; below, log_keep_probability is the answer)
    representable = np.array([log_pi(d, lo, hi, s) < 690.0 for d, _, lo, hi, s in columns])
    checks.append(library_against_symbols(
        keep, symbols, lambda d, tau, lo, hi, s: am.keep_probability(int(d), tau, s), columns[representable],
        lambda d, tau, lo, hi, s: 4 * EPS * _log_term_scale(d, s), "keep_probability"))
    # log π: its absolute error, as the relative error of 1 − log π >= 1 (log π is 0 where every k is kept, and
    # 30-digit rounding of a zero reference is no scale for a relative error)
    checks.append(library_against_symbols(
        1 - sp.log(keep), symbols, lambda d, tau, lo, hi, s: 1.0 - am.log_keep_probability(int(d), tau, s), columns,
        lambda d, tau, lo, hi, s: EPS + 4 * EPS * _log_term_scale(d, s) / (1.0 + log_pi(d, lo, hi, s)),
        "log_keep_probability (1 − log π)"))
    return _symbolic_result(checks)


@claim("and_mask.symbolic_keep_limits", "Parascandolo et al. 2021, Prop. 2, Eq 6 and its proof (rate corrected in this "
       "project)",
       "sympy: for d = 1..8 and every T = 0..d, π(d, τ, s) = Σ_{k∈K} C(d,k) Φ(s)^k Φ(−s)^{d−k} tends to 1 as s → ±∞ and "
       "equals 2^{−d} Σ_{k∈K} C(d,k) at s = 0 (2^{1−d} at τ = 1), which keep_probability_rational gives exactly and "
       "keep_probability within 4 eps (1 + lgamma(d+1) + 2d ln 2); ln c(τ) = KL(Bern((1+τ)/2) ‖ Bern(½)), c(0) = 1 "
       "and c(τ) → 2 as τ → 1 (residuals 0). keep_probability(d, 1, 0) = 2^{1−d} for d = 1..1000 (normal doubles) "
       "within 4 eps (1 + lgamma(d+1) + 2d ln 2), log_keep_probability(d, 1, 0) = (1 − d) ln 2 for d = 1..2000 within "
       "the same absolute error, keep_probability(d, τ, ±1e3) = 1 within eps at 200 points (d in [1, 2000], τ in "
       "(0, 1)); decay_rate equals c(τ) at 30 digits at 1000 points τ in [1e-8, 1] (log) within 4 eps (1 + |ln c(τ)|).",
       "limit")
def symbolic_keep_limits():
    s, p, q, _ = _normal_symbols()
    at_infinity = (sp.limit(p, s, sp.oo), sp.limit(q, s, sp.oo))
    at_minus_infinity = (sp.limit(p, s, -sp.oo), sp.limit(q, s, -sp.oo))
    at_zero = (sp.limit(p, s, 0), sp.limit(q, s, 0))
    checks = [residual_zero(at_infinity[0] - 1, "Φ(s) → 1 as s → ∞"), residual_zero(at_infinity[1], "Φ(−s) → 0"),
              residual_zero(at_minus_infinity[0], "Φ(s) → 0 as s → −∞"),
              residual_zero(at_minus_infinity[1] - 1, "Φ(−s) → 1 as s → −∞"),
              residual_zero(at_zero[0] - sp.Rational(1, 2), "Φ(0) = ½"),
              residual_zero(at_zero[1] - sp.Rational(1, 2), "Φ(−0) = ½")]
    x, y = sp.symbols("x y", positive=True)  # the keep probability is a polynomial in Φ(s), Φ(−s): continuous
    rational_gap = 0.0
    for d in range(1, 9):
        for threshold in range(d + 1):
            pi = sum(sp.binomial(d, k) * x ** k * y ** (d - k) for k in range(d + 1) if abs(2 * k - d) >= threshold)
            tau = Fraction(threshold, d)
            noise = pi.subs({x: at_zero[0], y: at_zero[1]})
            exact = am.keep_probability_rational(d, float(tau))
            checks.append(residual_zero(noise - sp.Rational(exact.numerator, exact.denominator),
                                        f"π(s → 0) = keep_probability_rational, d={d} T={threshold}"))
            checks.append(residual_zero(pi.subs({x: at_infinity[0], y: at_infinity[1]}) - 1, f"π(s → ∞), d={d}"))
            checks.append(residual_zero(pi.subs({x: at_minus_infinity[0], y: at_minus_infinity[1]}) - 1,
                                        f"π(s → −∞), d={d}"))
            if threshold == d:
                checks.append(residual_zero(noise - sp.Integer(2) ** (1 - d), f"π₀(d, 1) = 2^(1−d), d={d}"))
            rational_gap = max(rational_gap, abs(am.keep_probability(d, float(tau), 0.0) / float(noise) - 1)
                               / (4 * EPS * _log_term_scale(d, 0.0)))
    checks.append(Check.at_most(rational_gap, 1.0, f"keep_probability(d, τ, 0) vs sympy, d <= 8: relative error / "
                                                   f"4 eps (1 + lgamma(d+1) + 2d ln 2) = {rational_gap:.2f}"))
    tau = sp.Symbol("tau", positive=True)
    rate = (1 + tau) ** ((1 + tau) / 2) * (1 - tau) ** ((1 - tau) / 2)
    r = (1 + tau) / 2
    kl = r * sp.log(r / sp.Rational(1, 2)) + (1 - r) * sp.log((1 - r) / sp.Rational(1, 2))
    checks.append(residual_zero(sp.expand_log(sp.log(rate) - kl, force=True), "ln c(τ) = KL((1+τ)/2 ‖ ½)"))
    checks.append(residual_zero(rate.subs(tau, 0) - 1, "c(0) = 1"))
    checks.append(residual_zero(sp.limit(rate, tau, 1, "-") - 2, "c(τ) → 2 as τ → 1"))
    # the library against the limits
    d_values = np.arange(1.0, 2001.0)[:, None]
    checks.append(library_against_symbols(
        sp.Integer(2) ** (1 - sp.Symbol("d")), (sp.Symbol("d"),), lambda d: am.keep_probability(int(d), 1.0, 0.0),
        d_values[d_values[:, 0] <= 1000], lambda d: 4 * EPS * (1 + math.lgamma(d + 1) + 2 * d * math.log(2.0)),
        "keep_probability(d, 1, 0) vs 2^(1−d), d <= 1000 (normal doubles)"))
    checks.append(library_against_symbols(
        1 + (sp.Symbol("d") - 1) * sp.log(2), (sp.Symbol("d"),),
        lambda d: 1.0 - am.log_keep_probability(int(d), 1.0, 0.0), d_values,
        lambda d: EPS + 4 * EPS * (1 + math.lgamma(d + 1) + 2 * d * math.log(2.0)) / (1 + (d - 1) * math.log(2.0)),
        "1 − log_keep_probability(d, 1, 0) vs 1 + (d − 1) ln 2"))
    large = max(abs(am.keep_probability(int(d), tau_v, sign * 1e3) - 1.0)
                for d, tau_v, _ in _keep_points(200) for sign in (1.0, -1.0))
    checks.append(Check.at_most(large, EPS, f"|keep_probability(d, τ, ±1e3) − 1| = {large:.1e}"))
    taus = spread([(1e-8, 1.0, "log")], SYMBOLIC_POINTS)
    checks.append(library_against_symbols(
        rate, (tau,), am.decay_rate, taus,
        lambda t: 4 * EPS * (1 + 0.5 * abs((1 + t) * math.log1p(t) + (1 - t) * math.log1p(-t) if t < 1 else 2 * math.log(2.0))),
        "decay_rate vs c(τ)"))
    return _symbolic_result(checks)


def _masked_moments_reference():
    """(E[m ḡ], E[m ḡ²]) for σ = 1 in the symbols (d, τ, lo, hi, s), from incomplete-beta tails: with
    S_j = E[k^j 1{k ∈ K}], E[m ḡ] = (sp + φ)·P[1 + B' ∈ K] + (sq − φ)·P[B' ∈ K] and E[m ḡ²] =
    [(d v₋ + d² m₋²) S₀ + (v₊ − v₋ + 2d m₋(m₊ − m₋)) S₁ + (m₊ − m₋)² S₂]/d², where S₁ = d p P[1 + B' ∈ K] and
    S₂ = d(d−1) p² P[2 + B'' ∈ K] + S₁ (B' ~ Bin(d−1, p), B'' ~ Bin(d−2, p))."""
    d, tau, lo, hi = sp.symbols("d tau lo hi", real=True)
    s, p, q, phi = _normal_symbols()
    upper, lower = _binomial_tails()

    def kept(n, shift):  # P[shift + Bin(n, p) ∈ K]
        return upper(n, lo - shift, p) + lower(n, hi - shift, q)

    m_plus, m_minus = s + phi / p, s - phi / q
    v_plus, v_minus = 1 - s * phi / p - (phi / p) ** 2, 1 + s * phi / q - (phi / q) ** 2
    s1 = d * p * kept(d - 1, 1)
    s2 = d * (d - 1) * p ** 2 * kept(d - 2, 2) + s1
    first = (s * p + phi) * kept(d - 1, 1) + (s * q - phi) * kept(d - 1, 0)
    second = ((d * v_minus + d ** 2 * m_minus ** 2) * kept(d, 0) + (v_plus - v_minus + 2 * d * m_minus * (m_plus - m_minus)) * s1
              + (m_plus - m_minus) ** 2 * s2) / d ** 2
    return (d, tau, lo, hi, s), first, second


@claim("and_mask.symbolic_masked_moments", "derived in this project (moments of a masked coordinate; Parascandolo et al. "
       "2021, Prop. 2 at s = 0)",
       "sympy: for d = 1..3 and every T = 0..d, E[m ḡ] and E[m ḡ²] by the sum over sign patterns of independent "
       "truncated normals (E[g 1{g≷0}] = sp + φ, sq − φ; E[g² 1{g≷0}] = (1+s²)p + sφ, (1+s²)q − sφ, σ = 1) equal the "
       "library's closed forms (sp + φ)P[1 + B' ∈ K] + (sq − φ)P[B' ∈ K], B' ~ Bin(d−1, p), and Σ_K Bin(k; d, p)·"
       "E[ḡ² | P = k]; k C(d,k) = d C(d−1,k−1) and k(k−1) C(d,k) = d(d−1) C(d−2,k−2) (residuals 0). "
       "masked_update_moments equals the incomplete-beta form of both at 30 digits at 1000 points (d in [1, 500], τ "
       "in (0, 1), |s| in [1e-3, 40] of both signs) within 4 eps times the first-order rounding propagation of its "
       "formulas: the binomial weights' log terms (as for the keep probability), the cancellation of the two terms of "
       "E[m ḡ] (their magnitudes over the value) and the truncated-normal pieces' errors in each term of E[m ḡ²].",
       "identity")
def symbolic_masked_moments():
    p, phi, s = sp.symbols("p phi s", real=True)
    q = 1 - p
    a = {1: s * p + phi, -1: s * q - phi}  # E[g 1{sign g = ±1}]
    b = {1: (1 + s ** 2) * p + s * phi, -1: (1 + s ** 2) * q - s * phi}  # E[g² 1{sign g = ±1}]
    prob = {1: p, -1: q}
    m_plus, m_minus = a[1] / p, a[-1] / q
    v_plus, v_minus = b[1] / p - m_plus ** 2, b[-1] / q - m_minus ** 2
    checks = []
    for d in range(1, 4):
        for threshold in range(d + 1):
            def product(signs, skip=()):
                return sp.Mul(*[prob[x] for e, x in enumerate(signs) if e not in skip])

            first_def = _sign_patterns_sum(d, threshold, lambda signs: sum(
                a[x] * product(signs, (e,)) for e, x in enumerate(signs)) / d)
            second_def = _sign_patterns_sum(d, threshold, lambda signs: (sum(
                b[x] * product(signs, (e,)) for e, x in enumerate(signs)) + sum(
                a[x] * a[y] * product(signs, (e, f)) for e, x in enumerate(signs) for f, y in enumerate(signs)
                if e != f)) / d ** 2)
            keep_with = sum(sp.binomial(d - 1, j) * p ** j * q ** (d - 1 - j) for j in range(d)
                            if abs(2 * (j + 1) - d) >= threshold)
            keep_without = sum(sp.binomial(d - 1, j) * p ** j * q ** (d - 1 - j) for j in range(d)
                               if abs(2 * j - d) >= threshold)
            first = (s * p + phi) * keep_with + (s * q - phi) * keep_without
            second = sum(sp.binomial(d, k) * p ** k * q ** (d - k)
                         * (k * v_plus + (d - k) * v_minus + (k * m_plus + (d - k) * m_minus) ** 2)
                         for k in range(d + 1) if abs(2 * k - d) >= threshold) / d ** 2
            checks.append(residual_zero(sp.expand(first_def - first), f"E[m ḡ], d={d} T={threshold}"))
            checks.append(residual_zero(sp.cancel(sp.together(second_def - second)), f"E[m ḡ²], d={d} T={threshold}"))
    n, k = sp.symbols("n k", positive=True, integer=True)
    checks.append(residual_zero((k * sp.binomial(n, k) - n * sp.binomial(n - 1, k - 1)).rewrite(sp.gamma),
                                "k C(d,k) = d C(d−1,k−1)"))
    checks.append(residual_zero((k * (k - 1) * sp.binomial(n, k) - n * (n - 1) * sp.binomial(n - 2, k - 2))
                                .rewrite(sp.gamma), "k(k−1) C(d,k) = d(d−1) C(d−2,k−2)"))

    symbols, first, second = _masked_moments_reference()
    columns = _with_keep_ends(_keep_points(SYMBOLIC_POINTS, d_high=500.0))

    def tails(n, lo, hi, x, shift):  # P[shift + Bin(n, x) ∈ K] in floats, for the bounds only
        return float(stats.binom.sf(lo - shift - 1, int(n), x) + stats.binom.cdf(hi - shift, int(n), x))

    def first_bound(d, tau, lo, hi, sv):
        x, y, f = float(special.ndtr(abs(sv))), float(special.ndtr(-abs(sv))), math.exp(-0.5 * sv * sv) / math.sqrt(2 * math.pi)
        with_plus, without = tails(d - 1, lo, hi, x, 1), tails(d - 1, lo, hi, x, 0)
        value = abs((abs(sv) * x + f) * with_plus + (abs(sv) * y - f) * without)
        size = (abs(sv) * x + f) * with_plus + (abs(sv) * y + f) * without
        return 4 * EPS * (2 + _log_term_scale(d, sv)) * size / value

    def second_bound(d, tau, lo, hi, sv):
        mp_, mm_, vp_, vm_, dmp, dmm, dvp, dvm = _pieces_errors(abs(sv))
        ks = np.arange(int(d) + 1.0)
        ks = ks[np.abs(2 * ks - d) >= 2 * max(lo - d / 2, d / 2 - hi)]  # the keep set
        total = ks * mp_ + (d - ks) * mm_
        term = ks * vp_ + (d - ks) * vm_ + total * total
        err = ks * dvp + (d - ks) * dvm + 2 * np.abs(total) * (ks * dmp + (d - ks) * dmm + ks * abs(mp_)
                                                                + (d - ks) * abs(mm_)) + term
        return 4 * EPS * (3 + _log_term_scale(d, sv) + float(np.max(err / term)))

    checks.append(library_against_symbols(
        first, symbols, lambda d, tau, lo, hi, sv: am.masked_update_moments(int(d), tau, sv).first_moment, columns,
        first_bound, "masked_update_moments E[m ḡ]"))
    checks.append(library_against_symbols(
        second, symbols, lambda d, tau, lo, hi, sv: am.masked_update_moments(int(d), tau, sv).second_moment, columns,
        second_bound, "masked_update_moments E[m ḡ²]"))
    return _symbolic_result(checks)



def _spd_2x2(first, second, correlation):
    """[[x₁, z√(x₁x₂)], [z√(x₁x₂), x₂]] (positive definite for |z| < 1) as a float array."""
    off = correlation * math.sqrt(first * second)
    return np.array([[first, off], [off, second]])


def _spd_symbols():
    """The symmetric 2×2 matrices A, B in the symbols (x₁, x₂, z_A, y₁, y₂, z_B) of :func:`_spd_2x2`, and ε."""
    x1, x2, y1, y2, eps = sp.symbols("x1 x2 y1 y2 epsilon", positive=True)
    za, zb = sp.symbols("z_A z_B", real=True)
    A = sp.Matrix([[x1, za * sp.sqrt(x1 * x2)], [za * sp.sqrt(x1 * x2), x2]])
    B = sp.Matrix([[y1, zb * sp.sqrt(y1 * y2)], [zb * sp.sqrt(y1 * y2), y2]])
    return (x1, x2, za, y1, y2, zb, eps), A, B


def _spd_points():
    """1000 points: diagonals in [1e-3, 1e3] (log), correlations in [−0.999, 0.999], ε in [1e-3, 1e3] (log)."""
    return spread([(1e-3, 1e3, "log"), (1e-3, 1e3, "log"), (-0.999, 0.999, "linear"), (1e-3, 1e3, "log"),
                   (1e-3, 1e3, "log"), (-0.999, 0.999, "linear"), (1e-3, 1e3, "log")], SYMBOLIC_POINTS)


def _kappa(x1, x2, z):
    """The condition number of :func:`_spd_2x2`."""
    w = np.linalg.eigvalsh(_spd_2x2(x1, x2, z))
    return float(w[-1] / w[0])


@claim("and_mask.symbolic_consistency", "Parascandolo et al. 2021, Eq 2 and Prop. 3 (the quadratic closed forms derived "
       "in this project)",
       "sympy, for general symmetric 2×2 Hessians A, B: θ = (b₁₂ − λa₁₂, λa₁₁ − b₁₁) satisfies the first row of "
       "(B − λA)θ = 0 and θᵀ(B − λA)θ = −θ₂·det(B − λA), so at both quadratic-formula roots λ± of det(B − λA) = 0 "
       "(residuals 0) θ is a stationary point of the Lagrangian of max (L_B − L_A) on L_A = ε, with value ε(λ − 1). "
       "At 30 digits at 1000 points (A = [[x₁, z√(x₁x₂)], [z√(x₁x₂), x₂]], B likewise, diagonals in [1e-3, 1e3], "
       "z in [−0.999, 0.999], ε in [1e-3, 1e3]): consistency_quadratic = ε(max(λ₊(A,B), λ₊(B,A)) − 1) and "
       "consistency_diagonal (z = 0) equal it within 8 eps (κ(A) + κ(B)) λ/(λ − 1) (a generalised eigenvalue by "
       "Cholesky, then the cancellation of the −1).", "identity")
def symbolic_consistency():
    a11, a12, a22, b11, b12, b22, lam = sp.symbols("a11 a12 a22 b11 b12 b22 lambda", real=True)
    A, B = sp.Matrix([[a11, a12], [a12, a22]]), sp.Matrix([[b11, b12], [b12, b22]])
    theta = sp.Matrix([b12 - lam * a12, lam * a11 - b11])
    pencil = B - lam * A
    checks = [residual_zero(sp.expand(pencil[0, :].dot(theta)), "first row of (B − λA)θ = 0"),
              residual_zero(sp.expand((theta.T * pencil * theta)[0] + theta[1] * pencil.det()),
                            "θᵀ(B − λA)θ = −θ₂ det(B − λA)")]
    roots = sp.solve(pencil.det(), lam)
    checks += [residual_zero(sp.expand(pencil.det().subs(lam, root)), f"det(B − λA) = 0 at root {i}")
               for i, root in enumerate(roots)]

    symbols, An, Bn = _spd_symbols()
    eps = symbols[-1]

    def largest(P, Q):  # the larger root of det(Q − λP) = 0
        trace = P[0, 0] * Q[1, 1] + P[1, 1] * Q[0, 0] - 2 * P[0, 1] * Q[0, 1]
        return (trace + sp.sqrt(trace ** 2 - 4 * P.det() * Q.det())) / (2 * P.det())

    consistency = eps * (sp.Max(largest(An, Bn), largest(Bn, An)) - 1)
    points = _spd_points()

    def eig_bound(x1, x2, za, y1, y2, zb, _):
        w = np.linalg.eigvals(np.linalg.solve(_spd_2x2(x1, x2, za), _spd_2x2(y1, y2, zb))).real
        top = max(w.max(), 1 / w.min())
        return 8 * EPS * (_kappa(x1, x2, za) + _kappa(y1, y2, zb)) * top / (top - 1)

    checks.append(library_against_symbols(
        consistency, symbols, lambda x1, x2, za, y1, y2, zb, e: am.consistency_quadratic(
            [_spd_2x2(x1, x2, za), _spd_2x2(y1, y2, zb)], e), points, eig_bound, "consistency_quadratic"))
    flat = points.copy()
    flat[:, [2, 5]] = 0.0
    checks.append(library_against_symbols(
        consistency.subs({symbols[2]: 0, symbols[5]: 0}), symbols,
        lambda x1, x2, za, y1, y2, zb, e: am.consistency_diagonal([x1, x2], [y1, y2], e), flat,
        eig_bound, "consistency_diagonal"))
    return _symbolic_result(checks)


@claim("and_mask.symbolic_geometric_mean", "Parascandolo et al. 2021, §2.2, Prop. 3 and Fig 3",
       "sympy, for general symmetric 2×2 A, B: G = (αβ)^{1/4}(√β A + √α B)/√det(√β A + √α B), α = det A, β = det B, "
       "solves the Riccati equation G A⁻¹ G = B that defines A#B and has det G = √(αβ), so "
       "R = det ½(A+B)/det(A#B) = det ½(A+B)/√(αβ) (residuals 0). Prop. 3 in 1-D (λ^A = 1, λ^B = ρ, "
       "R = (1 + ρ)/(2√ρ)): 4R² − ρ = (1 + 2ρ)/ρ and 4R² − (ρ − 1) = (1 + 3ρ)/ρ, so the corrected −4εR² bounds "
       "C_proof and C_Eq2, and ρ/R² → 4 as ρ → ∞ (sharp; residuals 0); the printed −2εR² leaves the slack "
       "2R² − (ρ − 1) = (1 + 4ρ − ρ²)/(2ρ), −47.995 at ρ = 100 (relative miss 0.48 against −C_Eq2/ε = 99). Fig 3 "
       "(H_A = diag(a, b), H_B = diag(b, a), det H_{A∧B} = ab): det(H_A + H_B) = 4 det ½(H_A + H_B), and at "
       "(a, b) = (1/100, 1) the ratios are 25.5025 (mean) and 102.01 (sum) exactly (residuals 0); the caption's "
       "100 for the mean has residual 100 − 25.5025 (relative miss 2.92). At 30 digits at 1000 points (A = [[x₁, z√(x₁x₂)], "
       "[z√(x₁x₂), x₂]], B likewise, diagonals in [1e-3, 1e3], z in [−0.999, 0.999], ε in [1e-3, 1e3]): amgm_ratio "
       "(matrices; diagonals at z = 0) within 8 eps (κ(½(A+B)) + κ(A) + κ(B) + |ln R|) (log-determinants), "
       "−consistency_lower_bound/(4ε) = R² within twice that, and karcher_mean's quadratic forms eᵀGe "
       "(e = e₁, e₂, (e₁+e₂)/√2) within 8 eps κ(A) (κ(A) + κ(B)) (the square roots of A and of A^{−1/2}BA^{−1/2}).",
       "identity")
def symbolic_geometric_mean():
    a11, a12, a22, b11, b12, b22 = sp.symbols("a11 a12 a22 b11 b12 b22", real=True)
    A, B = sp.Matrix([[a11, a12], [a12, a22]]), sp.Matrix([[b11, b12], [b12, b22]])
    ra, rb, c = sp.symbols("r_a r_b c", positive=True)  # √det A, √det B, √det M
    M = rb * A + ra * B
    G = M * sp.sqrt(ra * rb) / c
    on_dets = {a22: (ra ** 2 + a12 ** 2) / a11, b22: (rb ** 2 + b12 ** 2) / b11}
    riccati = (G * A.adjugate() / ra ** 2 * G - B).applyfunc(
        lambda e: simplified(sp.expand(e.subs(c ** 2, sp.expand(M.det()))).subs(on_dets)))
    checks = [residual_zero(entry, "G A⁻¹ G = B") for entry in riccati]
    checks.append(residual_zero(simplified(sp.expand(G.det().subs(c ** 2, sp.expand(M.det()))).subs(on_dets)
                                            - ra * rb), "det G = √(det A det B)"))
    # Prop. 3 in 1-D (λ^A = 1, λ^B = ρ >= 1): −C_proof = ερ, −C_Eq2 = ε(ρ − 1), R = (1 + ρ)/(2√ρ)
    rho = sp.Symbol("rho", positive=True)
    r_1d = (1 + rho) / (2 * sp.sqrt(rho))
    printed_slack = 2 * r_1d ** 2 - (rho - 1)  # −2εR² <= C_Eq2, over ε
    checks += [residual_zero(4 * r_1d ** 2 - rho - (1 + 2 * rho) / rho, "4R² − ρ = (1 + 2ρ)/ρ > 0 (C_proof)"),
               residual_zero(4 * r_1d ** 2 - (rho - 1) - (1 + 3 * rho) / rho, "4R² − (ρ − 1) = (1 + 3ρ)/ρ > 0 (C_Eq2)"),
               residual_zero(sp.limit(rho / r_1d ** 2, rho, sp.oo) - 4, "sup −C_proof/(εR²) = 4 (sharp)")]
    # Fig 3: H_A = diag(a, b), H_B = diag(b, a), H_{A∧B} = √(ab) I (det √(det A det B) = ab, as above)
    a, b = sp.symbols("a b", positive=True)
    mean_ratio = ((sp.diag(a, b) + sp.diag(b, a)) / 2).det() / (a * b)
    sum_ratio = (sp.diag(a, b) + sp.diag(b, a)).det() / (a * b)
    fig3 = {a: sp.Rational(1, 100), b: 1}
    checks += [residual_zero(sum_ratio - 4 * mean_ratio, "det(H_A + H_B) = 4 det ½(H_A + H_B) (2×2)"),
               residual_zero(mean_ratio.subs(fig3) - sp.Rational(10201, 400), "Fig 3 mean ratio 25.5025"),
               residual_zero(sum_ratio.subs(fig3) - sp.Rational(10201, 100), "Fig 3 sum ratio 102.01")]
    printed = [printed_misses(printed_slack, rho - 1, {rho: 100}, "Prop. 3's −2εR² against −C_Eq2 = ε(ρ − 1)"),
               Check.predicate(-float(printed_slack.subs(rho, 100)), "the printed slack 2R² − (ρ − 1) < 0 at ρ = 100"),
               printed_misses(100 - mean_ratio, mean_ratio, fig3, "Fig 3's '100 times' with ½(H_A + H_B)")]

    symbols, An, Bn = _spd_symbols()
    za, zb, eps = symbols[2], symbols[5], symbols[6]
    points = _spd_points()
    flat = points.copy()
    flat[:, [2, 5]] = 0.0
    ratio = ((An + Bn) / 2).det() / sp.sqrt(An.det() * Bn.det())

    def ratio_bound(x1, x2, z_a, y1, y2, z_b, _):
        a, b = _spd_2x2(x1, x2, z_a), _spd_2x2(y1, y2, z_b)
        w = np.linalg.eigvalsh(0.5 * (a + b))
        log_r = np.linalg.slogdet(0.5 * (a + b))[1] - 0.5 * (np.linalg.slogdet(a)[1] + np.linalg.slogdet(b)[1])
        return 8 * EPS * (w[-1] / w[0] + _kappa(x1, x2, z_a) + _kappa(y1, y2, z_b) + abs(log_r))

    checks.append(library_against_symbols(
        ratio, symbols, lambda x1, x2, z_a, y1, y2, z_b, e: am.amgm_ratio(_spd_2x2(x1, x2, z_a), _spd_2x2(y1, y2, z_b)),
        points, ratio_bound, "amgm_ratio (matrices)"))
    checks.append(library_against_symbols(
        ratio.subs({za: 0, zb: 0}), symbols, lambda x1, x2, z_a, y1, y2, z_b, e: am.amgm_ratio([x1, x2], [y1, y2]),
        flat, ratio_bound, "amgm_ratio (diagonals)"))
    checks.append(library_against_symbols(
        4 * eps * ratio ** 2, symbols,
        lambda x1, x2, z_a, y1, y2, z_b, e: -am.consistency_lower_bound(_spd_2x2(x1, x2, z_a), _spd_2x2(y1, y2, z_b), e),
        points, lambda *x: 2 * ratio_bound(*x), "−consistency_lower_bound = 4εR²"))
    root_b, root_a = sp.sqrt(Bn.det()), sp.sqrt(An.det())
    Mn = root_b * An + root_a * Bn
    Gn = Mn * sp.sqrt(root_a * root_b) / sp.sqrt(Mn.det())
    for name, e in (("e1", (1, 0)), ("e2", (0, 1)), ("(e1+e2)/√2", (1, 1))):
        vec = sp.Matrix(e) / sp.sqrt(sum(e))
        checks.append(library_against_symbols(
            (vec.T * Gn * vec)[0], symbols,
            lambda x1, x2, z_a, y1, y2, z_b, _, vv=np.array(e) / math.sqrt(sum(e)): float(
                vv @ am.karcher_mean(_spd_2x2(x1, x2, z_a), _spd_2x2(y1, y2, z_b)) @ vv), points,
            lambda x1, x2, z_a, y1, y2, z_b, _: 8 * EPS * _kappa(x1, x2, z_a) * (_kappa(x1, x2, z_a)
                                                                              + _kappa(y1, y2, z_b)),
            f"karcher_mean {name}ᵀ G {name}"))
    return _symbolic_result(checks + printed)


@claim("and_mask.symbolic_threshold_snr",
       "derived in this project (the large-d threshold SNR; it explains the small τ of Parascandolo et al. 2021, §3.2)",
       "sympy: s*(τ) = √2 erfinv(τ) solves the defining equation 2Φ(s*) − 1 = τ with Φ(s) = erfc(−s/√2)/2 "
       "(substituted back, residual 0), s*(0) = 0 and s*(τ) → ∞ as τ → 1. threshold_snr equals √2 erfinv(τ) at 30 "
       "digits at 1000 points, half with τ in [1e-8, 1/2] and half with 1 − τ in [1e-12, 1/2] (log), within 8 eps "
       "(the rounding of √2 and of the product, and scipy's erfinv within a few ulps; τ itself is exact), and "
       "returns inf at τ = 1.", "identity")
def symbolic_threshold_snr():
    tau = sp.Symbol("tau", positive=True)
    s, p, _, _ = _normal_symbols()
    s_star = sp.sqrt(2) * sp.erfinv(tau)
    checks = [residual_zero((2 * p - 1).subs(s, s_star) - tau, "2Φ(s*) − 1 = τ"),
              residual_zero(s_star.subs(tau, 0), "s*(0) = 0"),
              Check.predicate(1.0 if sp.limit(s_star, tau, 1, "-") == sp.oo else -1.0, "s*(τ) → ∞ as τ → 1"),
              Check.predicate(1.0 if math.isinf(am.threshold_snr(1.0)) else -1.0, "threshold_snr(1) = inf")]
    low = spread([(1e-8, 0.5, "log")], SYMBOLIC_POINTS // 2)
    high = 1.0 - spread([(1e-12, 0.5, "log")], SYMBOLIC_POINTS - SYMBOLIC_POINTS // 2)
    checks.append(library_against_symbols(s_star, (tau,), am.threshold_snr, np.vstack([low, high]), 8 * EPS,
                                          "threshold_snr vs √2 erfinv(τ)"))
    return _symbolic_result(checks)


@claim("and_mask.symbolic_sign_ema",
       "derived in this project (the sign EMA of Parascandolo et al. 2021, Algorithm 1)",
       "sympy: with i.i.d. signs of P(+) = p (mean 2p − 1, variance 4p(1 − p)), E a_k = (2p − 1)(1 − β^k) and "
       "Var a_k = 4p(1−p)(1−β)(1−β^{2k})/(1+β) solve the recursions E a_{k+1} = βE a_k + (1−β)(2p−1) and "
       "Var a_{k+1} = β² Var a_k + (1−β)² 4p(1−p) with zero initial values (symbolic k), equal the closed geometric "
       "sums of the unrolled EMA a_k = (1−β)Σ_j β^{k−j} sign g_j and, for k = 1..4, the sums over the 2^k sign "
       "sequences; the stationary values 2p − 1 and 4p(1−p)(1−β)/(1+β) are the infinite sums (residuals 0). "
       "sign_ema_moments equals the closed forms with p = Φ(s) at 30 digits at 1000 points (|s| in [1e-3, 30] of "
       "both signs, β in [1e-3, 0.999], k in [1, 1e4]) within 4 eps (3 + β^k/(1 − β^k)) for the mean (erf, and the "
       "cancellation of 1 − β^k) and 4 eps (5 + s² + β/(1 − β) + β^{2k}/(1 − β^{2k})) for the variance (the "
       "erfc's conditioning s², the roundings of 1 − β and the cancellation of 1 − β^{2k}), and the stationary "
       "values (k = inf) at 1000 points (s, β) within the same bounds at β^k = 0.", "identity")
def symbolic_sign_ema():
    beta, p = sp.symbols("beta p", positive=True)
    k, i = sp.symbols("k i", integer=True, nonnegative=True)
    drift, sign_variance = 2 * p - 1, 4 * p * (1 - p)
    mean = drift * (1 - beta ** k)
    variance = sign_variance * (1 - beta) * (1 - beta ** (2 * k)) / (1 + beta)

    def geometric(expression):  # Σ of a geometric series, its β = 1 (or |β| >= 1) branch dropped: 0 < β < 1
        total = sp.summation(expression, (i, 0, k - 1)) if expression.has(i) else expression
        return total.args[-1][0] if isinstance(total, sp.Piecewise) else total

    def infinite(expression):
        total = sp.summation(expression, (i, 0, sp.oo))
        return total.args[0][0] if isinstance(total, sp.Piecewise) else total

    checks = [residual_zero(sign_variance - (1 - drift ** 2), "Var sign g = 1 − (2p − 1)² = 4p(1 − p)"),
              residual_zero(mean.subs(k, k + 1) - (beta * mean + (1 - beta) * drift), "E a_{k+1} = βE a_k + (1−β)(2p−1)"),
              residual_zero(mean.subs(k, 0), "E a_0 = 0"),
              residual_zero(variance.subs(k, k + 1) - (beta ** 2 * variance + (1 - beta) ** 2 * sign_variance),
                            "Var a_{k+1} = β² Var a_k + (1−β)² 4p(1−p)"),
              residual_zero(variance.subs(k, 0), "Var a_0 = 0"),
              residual_zero((1 - beta) * drift * geometric(beta ** i) - mean, "E a_k = (1−β)(2p−1)Σ_{i<k} β^i"),
              residual_zero((1 - beta) ** 2 * sign_variance * geometric(beta ** (2 * i)) - variance,
                            "Var a_k = (1−β)² 4p(1−p) Σ_{i<k} β^{2i}"),
              residual_zero((1 - beta) * drift * infinite(beta ** i) - drift, "stationary mean 2p − 1"),
              residual_zero((1 - beta) ** 2 * sign_variance * infinite(beta ** (2 * i))
                            - sign_variance * (1 - beta) / (1 + beta), "stationary variance 4p(1−p)(1−β)/(1+β)")]
    for steps in range(1, 5):
        first = second = 0
        for signs in itertools.product((1, -1), repeat=steps):
            a = 0
            for sign in signs:
                a = beta * a + (1 - beta) * sign
            weight = p ** signs.count(1) * (1 - p) ** signs.count(-1)
            first, second = first + weight * a, second + weight * a ** 2
        checks.append(residual_zero(sp.expand(first - mean.subs(k, steps)), f"E a_{steps} over 2^{steps} sequences"))
        checks.append(residual_zero(sp.expand(second - first ** 2 - variance.subs(k, steps)),
                                    f"Var a_{steps} over 2^{steps} sequences"))

    s, ps, qs, _ = _normal_symbols()
    mean_s = (ps - qs) * (1 - beta ** k)  # 2p − 1 = Φ(s) − Φ(−s), no 1 − Φ
    variance_s = (4 * ps * qs * (1 - beta) * (1 - beta ** (2 * k)) / (1 + beta))
    raw = spread([(1e-3, 30.0, "log"), (1e-3, 0.999, "linear"), (1.0, 1e4, "log")], SYMBOLIC_POINTS)
    raw[1::2, 0] *= -1.0
    raw[:, 2] = np.round(raw[:, 2])

    def mean_bound(sv, b, kv=math.inf):
        decay = 0.0 if math.isinf(kv) else b ** kv
        return 4 * EPS * (3 + decay / (1 - decay))

    def variance_bound(sv, b, kv=math.inf):
        decay = 0.0 if math.isinf(kv) else b ** (2 * kv)
        return 4 * EPS * (5 + sv * sv + b / (1 - b) + decay / (1 - decay))

    checks.append(residual_zero((ps - qs) - (2 * ps - 1), "2p − 1 = Φ(s) − Φ(−s) at p = Φ(s)"))
    checks.append(library_against_symbols(mean_s, (s, beta, k), lambda sv, b, kv: am.sign_ema_moments(sv, b, int(kv)).mean,
                                          raw, mean_bound, "sign_ema_moments mean"))
    checks.append(library_against_symbols(variance_s, (s, beta, k),
                                          lambda sv, b, kv: am.sign_ema_moments(sv, b, int(kv)).variance, raw,
                                          variance_bound, "sign_ema_moments variance"))
    checks.append(library_against_symbols(ps - qs, (s, beta), lambda sv, b: am.sign_ema_moments(sv, b, np.inf).mean,
                                          raw[:, :2], mean_bound, "sign_ema_moments stationary mean"))
    checks.append(library_against_symbols(4 * ps * qs * (1 - beta) / (1 + beta), (s, beta),
                                          lambda sv, b: am.sign_ema_moments(sv, b, np.inf).variance, raw[:, :2],
                                          variance_bound, "sign_ema_moments stationary variance"))
    return _symbolic_result(checks)


def _hetero_recursion(weights, means, variances):
    """The Poisson-binomial dynamic programme of heterogeneous environments in sympy: environment by environment,
    the arrays (W, M1, M2, V) indexed by the count of positive signs, from each environment's {sign: piece}."""
    d = len(weights)
    W, M1, M2, V = [1] + [0] * d, [0] * (d + 1), [0] * (d + 1), [0] * (d + 1)
    for e in range(d):
        W2, M12, M22, V2 = [0] * (d + 1), [0] * (d + 1), [0] * (d + 1), [0] * (d + 1)
        for sign, shift in ((1, 1), (-1, 0)):
            w, m, v = weights[e][sign], means[e][sign], variances[e][sign]
            for k in range(e + 1):
                j = k + shift
                W2[j] += w * W[k]
                M12[j] += w * (M1[k] + m * W[k])
                M22[j] += w * (M2[k] + 2 * m * M1[k] + m * m * W[k])
                V2[j] += w * (V[k] + v * W[k])
        W, M1, M2, V = W2, M12, M22, V2
    return W, M1, M2, V


def _hetero_patterns(d, threshold, weights, means, variances):
    """(keep probability, E[m ḡ], E[m ḡ²]) by definition: the sum over the sign patterns the mask keeps of the
    pattern's probability times E[ḡ^j | pattern] (independent entries given the signs)."""
    keep = first = second = 0
    for signs in itertools.product((1, -1), repeat=d):
        if abs(sum(signs)) < threshold:
            continue
        weight = sp.Mul(*[weights[e][x] for e, x in enumerate(signs)])
        mean_sum = sum(means[e][x] for e, x in enumerate(signs))
        variance_sum = sum(variances[e][x] for e, x in enumerate(signs))
        keep += weight
        first += weight * mean_sum / d
        second += weight * (variance_sum + mean_sum ** 2) / d ** 2
    return keep, first, second


def _hetero_error_bounds(means, stds, threshold):
    """First-order relative error bounds (in eps) of the library's (keep probability, E[m ḡ], E[m ḡ²]): each kept
    pattern's weight carries the errors of its p_e = exp(log Φ) (1 + |log Φ|, as for the keep probability) and of
    the programme's products and sums (8d); its means and variances their truncated-normal pieces' absolute errors
    (:func:`_pieces_errors`); the signed sums are measured by the sums of magnitudes (cancellation), over the value."""
    d = len(means)
    sides = []
    for mu, sig in zip(means, stds):
        s = mu / sig
        mp_, mm_, vp_, vm_, dmp, dmm, dvp, dvm = _pieces_errors(s)
        log_p, log_q = float(special.log_ndtr(s)), float(special.log_ndtr(-s))
        sides.append({1: (math.exp(log_p), 1 + abs(log_p) + _log_cdf_error(s), sig * mp_, sig * dmp, sig * sig * vp_,
                          sig * sig * dvp),
                      -1: (math.exp(log_q), 1 + abs(log_q) + _log_cdf_error(-s), sig * mm_, sig * dmm,
                           sig * sig * vm_, sig * sig * dvm)})
    values, errors = np.zeros(3), np.zeros(3)
    for signs in itertools.product((1, -1), repeat=d):
        if abs(sum(signs)) < threshold:
            continue
        pieces = [sides[e][x] for e, x in enumerate(signs)]
        weight = math.prod(piece[0] for piece in pieces)
        relative = sum(piece[1] for piece in pieces) + 8 * d
        mean_sum, mean_size = sum(piece[2] for piece in pieces), sum(abs(piece[2]) for piece in pieces)
        mean_error = sum(piece[3] for piece in pieces)
        variance_sum, variance_error = sum(piece[4] for piece in pieces), sum(piece[5] for piece in pieces)
        values += weight * np.array([1.0, mean_sum / d, (variance_sum + mean_sum ** 2) / d ** 2])
        errors += weight * np.array([relative, (relative * mean_size + mean_error) / d,
                                     (relative * (variance_sum + mean_size ** 2) + variance_error
                                      + 2 * mean_size * mean_error) / d ** 2])
    return errors / np.abs(values)


@claim("and_mask.symbolic_hetero",
       "derived in this project (Eq 6 of Parascandolo et al. 2021 extended to heterogeneous environments)",
       "sympy: for d = 1..4 and every threshold T = 0..d, the Poisson-binomial dynamic programme on (W, M1, M2, V) "
       "(W' += wW, M1' += w(M1 + mW), M2' += w(M2 + 2mM1 + m²W), V' += w(V + vW)) summed over the kept counts "
       "equals the sum over the kept sign patterns of the pattern's probability Π_e w_e times 1, the mean "
       "(1/d)Σ_e m_e and the second moment (Σ_e v_e + (Σ_e m_e)²)/d² (symbolic weights, means and variances per "
       "environment and sign; residuals 0). keep_probability_hetero and masked_update_moments_hetero equal the sum "
       "over sign patterns with the truncated-normal pieces of N(μ_e, σ_e²) at 30 digits at 1000 points for d = 4, "
       "500 at τ = 0.5 and 500 at τ = 1 (μ_e in [−3, 3], σ_e in [0.3, 3], so |μ_e/σ_e| <= 10) within 4 eps times the "
       "first-order rounding propagation of the programme (each pattern's weight from exp(log Φ), its pieces' "
       "errors as for conditional_moments, the signed sums measured by their magnitudes, over the value).",
       "identity")
def symbolic_hetero():
    checks = []
    for d in range(1, 5):
        weights, means, variances = [], [], []
        for e in range(d):
            p = sp.Symbol(f"p{e}", positive=True)
            weights.append({1: p, -1: 1 - p})
            means.append({x: sp.Symbol(f"m{e}{'+' if x > 0 else '-'}", real=True) for x in (1, -1)})
            variances.append({x: sp.Symbol(f"v{e}{'+' if x > 0 else '-'}", positive=True) for x in (1, -1)})
        W, M1, M2, V = _hetero_recursion(weights, means, variances)
        for threshold in range(d + 1):
            kept = [k for k in range(d + 1) if abs(2 * k - d) >= threshold]
            recursion = (sum(W[k] for k in kept), sum(M1[k] for k in kept) / d,
                         sum(V[k] + M2[k] for k in kept) / d ** 2)
            definition = _hetero_patterns(d, threshold, weights, means, variances)
            for name, left, right in zip(("keep", "E[m ḡ]", "E[m ḡ²]"), recursion, definition):
                checks.append(residual_zero(sp.expand(left - right), f"{name}, d={d} T={threshold}"))

    d = 4
    mus, sigmas = sp.symbols(f"mu0:{d}", real=True), sp.symbols(f"sigma0:{d}", positive=True)
    weights, means, variances = [], [], []
    for mu, sig in zip(mus, sigmas):
        s = mu / sig
        p, q = sp.erfc(-s / sp.sqrt(2), evaluate=False) / 2, sp.erfc(s / sp.sqrt(2)) / 2
        phi = sp.exp(-s ** 2 / 2) / sp.sqrt(2 * sp.pi)
        weights.append({1: p, -1: q})
        means.append({1: sig * (s + phi / p), -1: sig * (s - phi / q)})
        variances.append({1: sig ** 2 * (1 - s * phi / p - (phi / p) ** 2),
                          -1: sig ** 2 * (1 + s * phi / q - (phi / q) ** 2)})
    points = spread([(-3.0, 3.0, "linear")] * d + [(0.3, 3.0, "log")] * d, SYMBOLIC_POINTS)
    halves = {0.5: points[::2], 1.0: points[1::2]}  # 1000 points in all, half at each τ
    library = (lambda x, tau: am.keep_probability_hetero(x[:d], x[d:], tau),
               lambda x, tau: am.masked_update_moments_hetero(x[:d], x[d:], tau).first_moment,
               lambda x, tau: am.masked_update_moments_hetero(x[:d], x[d:], tau).second_moment)
    for tau, threshold in ((0.5, 2), (1.0, 4)):
        definition = _hetero_patterns(d, threshold, weights, means, variances)
        for j, (name, expression) in enumerate(zip(("keep_probability_hetero", "masked_update_moments_hetero E[m ḡ]",
                                                    "masked_update_moments_hetero E[m ḡ²]"), definition)):
            checks.append(library_against_symbols(
                expression, mus + sigmas, lambda *x, j=j, tau=tau: library[j](np.array(x), tau), halves[tau],
                lambda *x, j=j, threshold=threshold: 4 * EPS * _hetero_error_bounds(x[:d], x[d:], threshold)[j],
                f"{name}, d = {d}, τ = {tau}"))
    return _symbolic_result(checks)


@claim("and_mask.symbolic_proposition2", "Parascandolo et al. 2021, Prop. 2 and its proof (factor and rate corrected "
       "in this project)",
       "sympy, the factor: the chain's sum Σ_{k=t}^{d} C(d,k) has Σ_{k=t}^{d} 1 = d − t + 1 terms (residual 0; the "
       "printed d − t misses by 1 term in 1 at d = t = 2); at t = d the exact E‖m ⊙ ḡ‖²/(nσ²) = "
       "2^{−d} Σ_{k∈{0,d}} E[ḡ² | P = k]/σ² equals the conditional bound (2/π + (1 − 2/π)/d)·2^{1−d} and the "
       "corrected chain (d − t + 1)C(d,t)2^{1−d} exceeds it by 2^{1−d}(1 − 2/π)(d − 1)/d >= 0 (residuals 0), while "
       "the printed chain is 0 there (relative miss 1 at d = 2). The rate: with r = t/d and q = 1/(r^r(1−r)^{1−r}), "
       "KL(r‖½) = ln(2/q) and c(τ) = 2r^r(1−r)^{1−r} = 2/q at r = (1+τ)/2 (residuals 0); the printed base 2 − q "
       "has residual 2 − q − 2/q, a relative miss of 0.78 at τ = 1/2. noise_masked_norm_bounds (paper_chain, "
       "conditional with π₀ = 2P[Bin(d, ½) >= t] by mpmath's incomplete beta, chernoff, exponential; n = σ = 1) and "
       "keep_probability_bounds (upper 2e^{−d KL(t/d‖½)}, lower upper/(d + 1)) equal these closed forms at 30 digits "
       "at 1000 points (d in [1, 1000], t in (d/2, d]) within 4 eps (3 + 3 lgamma(d+1) + d ln 2) for the chain (its "
       "log-gamma sums), 4 eps (3 + d(5 + |ln(1 − t/d)|)) for the exponentials (the exponent d·KL rounded, "
       "with the rounding of t/d through x ln x), and 4 eps (3 + 1 + lgamma(d+1) + 2d ln 2) for the conditional "
       "bound (the log-space keep probability).", "identity")
def symbolic_proposition2():
    d, t, k = sp.symbols("d t k", positive=True, integer=True)
    two_pi = 2 / sp.pi
    conditional = (d * (1 - two_pi) + two_pi * (2 * k - d) ** 2) / d ** 2  # E[ḡ² | P = k], σ = 1
    at_top = 2 ** -d * (conditional.subs(k, 0) + conditional.subs(k, d))  # t = d keeps k = 0 and k = d
    factor = two_pi + (1 - two_pi) / d
    chain = (d - t + 1) * sp.binomial(d, t) * 2 ** (1 - d)
    printed_chain = (d - t) * sp.binomial(d, t) * 2 ** (1 - d)
    terms = sp.summation(1, (k, t, d))
    checks = [residual_zero(terms - (d - t + 1), "Σ_{k=t}^{d} 1 = d − t + 1"),
              residual_zero(at_top - factor * 2 ** (1 - d), "exact value at t = d = conditional bound"),
              residual_zero(chain.subs(t, d) - at_top - 2 ** (1 - d) * (1 - two_pi) * (d - 1) / d,
                            "corrected chain − exact at t = d = 2^{1−d}(1 − 2/π)(d − 1)/d")]
    printed = [printed_misses((d - t) - terms, terms, {d: 2, t: 2}, "the printed factor d − t"),
               printed_misses(printed_chain.subs(t, d) - at_top, at_top, {d: 2}, "the printed chain at t = d")]
    tau, r = sp.Symbol("tau", positive=True), sp.Symbol("r", positive=True)
    q = 1 / (r ** r * (1 - r) ** (1 - r))
    kl = sp.log(2) + r * sp.log(r) + (1 - r) * sp.log(1 - r)
    c_tau = (2 * r ** r * (1 - r) ** (1 - r)).subs(r, (1 + tau) / 2)
    checks += [residual_zero(sp.expand_log(kl - sp.log(2 / q), force=True), "KL(r‖½) = ln(2/q)"),
               residual_zero(sp.expand_log(sp.log(c_tau) - sp.log(2 / q).subs(r, (1 + tau) / 2), force=True),
                             "c(τ) = 2/q at r = (1+τ)/2"),
               residual_zero(sp.expand_log(sp.log(c_tau) - sp.log((1 + tau) ** ((1 + tau) / 2)
                                                                   * (1 - tau) ** ((1 - tau) / 2)), force=True),
                             "2r^r(1−r)^{1−r} = (1+τ)^{(1+τ)/2}(1−τ)^{(1−τ)/2}")]
    printed.append(printed_misses((2 - q - 2 / q).subs(r, (1 + tau) / 2), (2 / q).subs(r, (1 + tau) / 2),
                                  {tau: sp.Rational(1, 2)}, "the printed base 2 − q"))

    ratio = t / d
    kl_t = sp.Piecewise((sp.log(2), sp.Eq(t, d)), (sp.log(2) + ratio * sp.log(ratio) + (1 - ratio) * sp.log(1 - ratio),
                                                    True))
    tail = 2 * sp.exp(-d * kl_t)
    upper, _ = _binomial_tails()
    pi0 = 2 * upper(d, t, sp.Rational(1, 2))  # t > d/2: the two tails are equal and disjoint
    raw = spread([(1.0, 1000.0, "log"), (0.0, 1.0, "linear")], SYMBOLIC_POINTS)
    dv = np.round(raw[:, 0])
    half = np.floor(dv / 2)
    points = np.column_stack([dv, np.minimum(half + 1 + np.floor(raw[:, 1] * (dv - half)), dv)])

    def chain_bound(dd, tt):
        return 4 * EPS * (3 + 3 * math.lgamma(dd + 1) + dd * math.log(2.0))

    def tail_bound(dd, tt):
        return 4 * EPS * (3 + dd * (5 + (abs(math.log1p(-tt / dd)) if tt < dd else 0.0)))

    def conditional_bound(dd, tt):
        return 4 * EPS * (3 + _log_term_scale(dd, 0.0))

    fields = (("paper_chain", chain, chain_bound), ("conditional", factor * pi0, conditional_bound),
              ("chernoff", factor * tail, lambda dd, tt: tail_bound(dd, tt) + 4 * EPS),
              ("exponential", tail, tail_bound))
    for field, expression, bound in fields:
        checks.append(library_against_symbols(
            expression, (d, t), lambda dd, tt, field=field: getattr(am.noise_masked_norm_bounds(int(dd), int(tt)), field),
            points, bound, f"noise_masked_norm_bounds.{field}"))
    checks.append(library_against_symbols(tail, (d, t), lambda dd, tt: am.keep_probability_bounds(int(dd), int(tt)).upper,
                                          points, tail_bound, "keep_probability_bounds.upper"))
    checks.append(library_against_symbols(tail / (d + 1), (d, t),
                                          lambda dd, tt: am.keep_probability_bounds(int(dd), int(tt)).lower, points,
                                          lambda dd, tt: tail_bound(dd, tt) + 4 * EPS, "keep_probability_bounds.lower"))
    return _symbolic_result(checks + printed)


# Plausible slips the symbolic claims catch (planted in a copy of the library by tests/test_mutations.py).
planted_bug("and_mask: truncated-normal variance v- with the sign of s·φ/q flipped", "dynamics/and_mask/_kernels.py",
            "v_minus = max(0.0, 1.0 + snr * ratio_q - ratio_q * ratio_q)",
            "v_minus = max(0.0, 1.0 - snr * ratio_q - ratio_q * ratio_q)",
            ("and_mask.symbolic_truncated_normal", "and_mask.symbolic_masked_moments"))
planted_bug("and_mask: first masked moment with +phi on the negative side", "dynamics/and_mask/_kernels.py",
            "first = (snr * p + phi) * with_plus + (snr * q - phi) * without",
            "first = (snr * p + phi) * with_plus + (snr * q + phi) * without",
            ("and_mask.symbolic_masked_moments",))
planted_bug("and_mask: AM/GM ratio of diagonals with the geometric mean's square root lost",
            "dynamics/and_mask/_consistency.py",
            "log_ratio = float(np.sum(np.log(0.5 * a + 0.5 * b) - 0.5 * (np.log(a) + np.log(b))))",
            "log_ratio = float(np.sum(np.log(0.5 * a + 0.5 * b) - (np.log(a) + np.log(b))))",
            ("and_mask.symbolic_geometric_mean",))
planted_bug("and_mask: decay rate c(tau) without the halved exponents", "dynamics/and_mask/_statistics.py",
            "return float(math.exp(0.5 * (_xlogx(1.0 + agreement_threshold) + _xlogx(1.0 - agreement_threshold))))",
            "return float(math.exp(_xlogx(1.0 + agreement_threshold) + _xlogx(1.0 - agreement_threshold)))",
            ("and_mask.symbolic_keep_limits",))
planted_bug("and_mask: keep probability's log-sum-exp with log1p of the sum", "dynamics/and_mask/_kernels.py",
            "return min(top + math.log(acc), 0.0)", "return min(top + math.log1p(acc), 0.0)",
            ("and_mask.symbolic_keep_probability",))
planted_bug("and_mask: diagonal consistency with one ordering of the environments only",
            "dynamics/and_mask/_consistency.py",
            "worst = float(np.max(np.maximum(b / a, a / b)))", "worst = float(np.max(b / a))",
            ("and_mask.symbolic_consistency",))
planted_bug("and_mask: threshold SNR with erfinv of (1 + tau)/2", "dynamics/and_mask/_statistics.py",
            "return float(math.sqrt(2.0) * special.erfinv(agreement_threshold))",
            "return float(math.sqrt(2.0) * special.erfinv(0.5 * (1.0 + agreement_threshold)))",
            ("and_mask.symbolic_threshold_snr",))
planted_bug("and_mask: sign EMA variance with beta^k for beta^2k", "dynamics/and_mask/_statistics.py",
            "variance = four_pq * (1.0 - beta) * (1.0 - decay_k * decay_k) / (1.0 + beta)",
            "variance = four_pq * (1.0 - beta) * (1.0 - decay_k) / (1.0 + beta)",
            ("and_mask.symbolic_sign_ema",))
planted_bug("and_mask: heterogeneous second moment without the factor 2 of the cross term",
            "dynamics/and_mask/_kernels.py",
            "M22[j] += weight * (M2[k] + 2.0 * m * M1[k] + m * m * W[k])",
            "M22[j] += weight * (M2[k] + m * M1[k] + m * m * W[k])",
            ("and_mask.symbolic_hetero",))
planted_bug("and_mask: Proposition 2 chain with the printed factor d - t", "dynamics/and_mask/_statistics.py",
            "factors = ((d - t + 1) * math.exp(", "factors = ((d - t) * math.exp(",
            ("and_mask.symbolic_proposition2",))
# The same kind of slip in each symbolic statement (the sympy side of the claim): the claim must fail, so the
# statement and the library are independent routes. Each snippet is split in two literals here, so that it occurs
# once in this file: in the claim's body.
planted_bug("and_mask: symbolic statement: E[g^2 1{g<0}] with +s phi", "verify/and_mask.py",
            "b_plus, b_minus = (1 + s ** 2) * p + s * phi, " "(1 + s ** 2) * q - s * phi",
            "b_plus, b_minus = (1 + s ** 2) * p + s * phi, (1 + s ** 2) * q + s * phi",
            ("and_mask.symbolic_truncated_normal",))
planted_bug("and_mask: symbolic statement: incomplete-beta tail with x^lo for x^(lo-1)", "verify/and_mask.py",
            "* x ** (lo - 1) * (1 - x) " "** (d - lo), (x, 0, p))", "* x ** lo * (1 - x) ** (d - lo), (x, 0, p))",
            ("and_mask.symbolic_keep_probability",))
planted_bug("and_mask: symbolic statement: c(tau) with the exponent (1 - tau) unhalved", "verify/and_mask.py",
            "rate = (1 + tau) ** ((1 + tau) / 2) * " "(1 - tau) ** ((1 - tau) / 2)",
            "rate = (1 + tau) ** ((1 + tau) / 2) * (1 - tau) ** (1 - tau)",
            ("and_mask.symbolic_keep_limits",))
planted_bug("and_mask: symbolic statement: first masked moment with +phi on the negative side", "verify/and_mask.py",
            "first = (s * p + phi) * keep_with + " "(s * q - phi) * keep_without",
            "first = (s * p + phi) * keep_with + (s * q + phi) * keep_without",
            ("and_mask.symbolic_masked_moments",))
planted_bug("and_mask: symbolic statement: generalised eigenvalue with 2 det P det Q under the root",
            "verify/and_mask.py", "trace ** 2 - 4 * P.det() " "* Q.det()", "trace ** 2 - 2 * P.det() * Q.det()",
            ("and_mask.symbolic_consistency",))
planted_bug("and_mask: symbolic statement: AM-GM ratio with the sum for the mean", "verify/and_mask.py",
            "ratio = ((An + Bn) / 2)" ".det()", "ratio = (An + Bn).det()", ("and_mask.symbolic_geometric_mean",))
planted_bug("and_mask: symbolic statement: threshold SNR without the factor sqrt 2", "verify/and_mask.py",
            "s_star = sp.sqrt(2) * " "sp.erfinv(tau)", "s_star = sp.erfinv(tau)", ("and_mask.symbolic_threshold_snr",))
planted_bug("and_mask: symbolic statement: sign EMA variance with beta^k for beta^2k", "verify/and_mask.py",
            "variance = sign_variance * (1 - beta) * " "(1 - beta ** (2 * k)) / (1 + beta)",
            "variance = sign_variance * (1 - beta) * (1 - beta ** k) / (1 + beta)", ("and_mask.symbolic_sign_ema",))
planted_bug("and_mask: symbolic statement: heterogeneous recursion without the factor 2 of the cross term",
            "verify/and_mask.py", "M22[j] += w * (M2[k] + 2 * m * M1[k] " "+ m * m * W[k])",
            "M22[j] += w * (M2[k] + m * M1[k] + m * m * W[k])", ("and_mask.symbolic_hetero",))
planted_bug("and_mask: symbolic statement: Proposition 2 chain with the printed factor d - t", "verify/and_mask.py",
            "chain = (d - t + 1) * sp.binomial(d, t) " "* 2 ** (1 - d)", "chain = (d - t) * sp.binomial(d, t) * 2 ** (1 - d)",
            ("and_mask.symbolic_proposition2",))
