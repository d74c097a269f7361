"""The verifier's own statistics against synthetic data with a known answer: the log–log slope fit behind
``Check.rate`` (its slope and standard error), the rate check's false-rejection rate and power, and the family-wise
critical values. A slip in any of them (a standard error off by a factor, the wrong degrees of freedom, a one-sided
quantile) would make hundreds of claims lenient or strict while each still passed; these tests would fail.

Every Monte Carlo tolerance is a binomial bound: 5 standard errors of the estimated frequency (or a Poisson tail for
the rare rejections), at two seeds."""
import numpy as np
import pytest
from scipy import stats

from verify.registry import Check, family_wise_t, family_wise_z, rate_fit

SIZES = np.array([8.0, 16.0, 32.0, 64.0, 128.0, 256.0])  # a ladder of six sizes, as the claims use
DRAWS = 4000


def _noisy_ladders(rng, slope, noise_sd, draws=DRAWS):
    """Errors C·sizes^slope with independent log-normal noise of known standard deviation per size."""
    return np.exp(np.log(3.0) + slope * np.log(SIZES) + noise_sd * rng.standard_normal((draws, SIZES.size)))


def test_an_exact_power_law_gives_its_slope_and_no_standard_error():
    for slope in (-2.0, -0.5, 1.0, 5.0):
        fitted, se = rate_fit(SIZES, 0.7 * SIZES ** slope)
        assert abs(fitted - slope) < 1e-12 and se < 1e-12


@pytest.mark.parametrize("seed", [0, 1])
def test_the_slope_standard_error_is_calibrated(seed):
    """(slope − true)/se follows Student's t with n − 2 degrees of freedom under Gaussian noise in log(error): its
    empirical quantiles match at 50%, 90%, 99%, and the mean of se² is the slope's true variance."""
    rng = np.random.default_rng(seed)
    noise_sd = 0.1
    fits = np.array([rate_fit(SIZES, errors) for errors in _noisy_ladders(rng, -1.0, noise_sd)])
    t_values = (fits[:, 0] + 1.0) / fits[:, 1]
    x = np.log(SIZES)
    true_variance = noise_sd ** 2 / np.sum((x - x.mean()) ** 2)
    mean_se2, se_of_mean = np.mean(fits[:, 1] ** 2), np.std(fits[:, 1] ** 2) / np.sqrt(DRAWS)
    assert abs(mean_se2 - true_variance) < 5 * se_of_mean, (mean_se2, true_variance)
    for coverage in (0.5, 0.9, 0.99):
        inside = np.mean(np.abs(t_values) <= stats.t.isf((1 - coverage) / 2, SIZES.size - 2))
        assert abs(inside - coverage) < 5 * np.sqrt(coverage * (1 - coverage) / DRAWS), (coverage, inside)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_rate_check_rejects_a_true_rate_at_its_level_and_a_wrong_one_almost_always(seed):
    rng = np.random.default_rng(10 + seed)
    level = 1e-2  # larger than the claims' 1e-3 so that the false rejections are counted, not guessed
    null = [Check.rate(SIZES, errors, -1.0, level=level).passed for errors in _noisy_ladders(rng, -1.0, 0.1)]
    rejections = DRAWS - sum(null)
    assert stats.poisson.sf(rejections - 1, DRAWS * level) > 1e-6 and stats.poisson.cdf(rejections, DRAWS * level) > 1e-6
    # a slope off by 0.3 (about 7 standard errors of this ladder's fit) is caught in nearly every draw
    wrong = [Check.rate(SIZES, errors, -1.0, level=level).passed for errors in _noisy_ladders(rng, -0.7, 0.1, 500)]
    assert sum(wrong) <= 25


@pytest.mark.parametrize("m", [1, 4, 18, 300])
@pytest.mark.parametrize("level", [1e-4, 1e-2])
def test_family_wise_critical_values_are_the_two_sided_bonferroni_quantiles(m, level):
    assert abs(family_wise_z(m, level) - stats.norm.isf(level / (2 * m))) < 1e-9
    for dof in (3, 19, 399):
        assert abs(family_wise_t(m, dof, level) - stats.t.isf(level / (2 * m), dof)) < 1e-7 * stats.t.isf(
            level / (2 * m), dof)
