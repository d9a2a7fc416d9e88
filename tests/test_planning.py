"""Golden-set planning (rag_metrics.stats.planning) against independent references: the exact sign test's power
summed with scipy's binomtest, the t approximation written from scipy's t quantiles, the expected Clopper--Pearson
width from scipy's exact interval; with the runs in both orders, at n = 2, 3 and 20, and at the documented
thresholds (the power target reached at n and not at n - 1, the floor of min_discordant questions that differ)."""

import functools
import math

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

from rag_metrics.core.errors import InputError
from rag_metrics.stats.paired import min_discordant
from rag_metrics.stats.planning import (
    exact_power, interval_width_by_size, minimum_detectable_difference, questions_needed, questions_needed_binary,
    sample_size,
)


@functools.lru_cache(maxsize=None)
def _binomtest_rejects(w, m, alpha):
    return sps.binomtest(w, m).pvalue < alpha


def _power_by_hand(n, delta, psi, alpha=0.05):
    """P(the two-sided exact sign test rejects, p < alpha) with m ~ Bin(n, psi) discordant, w ~ Bin(m, pi) wins."""
    pi = min(1.0, (1 + delta / psi) / 2)
    return sum(sps.binom.pmf(m, n, psi) * sps.binom.pmf(w, m, pi)
               for m in range(1, n + 1) for w in range(m + 1) if _binomtest_rejects(w, m, alpha))


def _power_vectorized(n, delta, psi, alpha=0.05):
    """The same sum for larger n: the two-sided exact p of every (w, m) from scipy's binomial tails at once."""
    pi = min(1.0, (1 + delta / psi) / 2)
    ms = np.arange(n + 1)
    ms = ms[sps.binom.pmf(ms, n, psi) > 1e-16]                  # the m that weigh in the sum
    m, w = np.meshgrid(ms, np.arange(n + 1), indexing="ij")
    p = np.minimum(1.0, 2 * np.minimum(sps.binom.cdf(w, m, 0.5), sps.binom.sf(w - 1, m, 0.5)))
    reject = (w <= m) & (m > 0) & (p < alpha)
    return float((sps.binom.pmf(m, n, psi) * sps.binom.pmf(w, m, pi) * reject).sum())


def _mdd_by_hand(n, sd, alpha=0.05, power=0.8):
    return (sps.t.ppf(1 - alpha / 2, n - 1) + sps.t.ppf(power, n - 1)) * sd / math.sqrt(n)


@pytest.mark.parametrize("n, delta, psi, alpha", [(2, 0.5, 1.0, 0.05), (3, 0.3, 0.6, 0.05), (20, 0.2, 0.4, 0.05),
                                                  (20, 0.3, 0.5, 0.01), (20, 0.3, 0.5, 0.2), (9, 0.8, 0.8, 0.05)])
def test_exact_power_is_the_sum_over_binomtest_rejections(n, delta, psi, alpha):
    assert exact_power(n, delta, psi, alpha=alpha) == pytest.approx(_power_by_hand(n, delta, psi, alpha), abs=1e-12)
    assert _power_vectorized(n, delta, psi, alpha) == pytest.approx(_power_by_hand(n, delta, psi, alpha), abs=1e-12)


@pytest.mark.parametrize("n, delta, psi, alpha", [(1200, 0.05, 0.9, 0.05)])
def test_exact_power_on_a_thousand_questions_is_the_sum_over_every_rejection_region(n, delta, psi, alpha):
    # where the rejection region's first guess (a binomial quantile) is several wins off the exact boundary
    assert exact_power(n, delta, psi, alpha=alpha) == pytest.approx(_power_vectorized(n, delta, psi, alpha), abs=1e-9)


def test_exact_power_is_zero_below_the_fewest_discordant_questions_and_positive_at_it():
    assert exact_power(min_discordant() - 1, 0.9, 1.0) == 0.0
    assert exact_power(min_discordant(), 0.9, 1.0) > 0.0
    assert exact_power(min_discordant(0.01) - 1, 0.9, 1.0, alpha=0.01) == 0.0
    assert exact_power(min_discordant(0.01), 0.9, 1.0, alpha=0.01) > 0.0


@pytest.mark.parametrize("delta, psi, power", [(0.2, 0.4, 0.8), (0.3, 0.5, 0.9), (0.5, 0.5, 0.5), (0.4, 0.6, 0.8)])
def test_questions_needed_binary_reaches_the_power_at_n_and_not_at_n_minus_one(delta, psi, power):
    n = questions_needed_binary(delta, psi, power=power)
    assert _power_vectorized(n, delta, psi) >= power - 1e-12    # (0.5, 0.5, 0.5): power exactly 0.5 at n = 11
    assert _power_vectorized(n - 1, delta, psi) < power - 1e-12
    assert questions_needed(delta, discordant_rate=psi, power=power) == n


@pytest.mark.parametrize("n", [2, 3, 20])
@pytest.mark.parametrize("alpha, power", [(0.05, 0.8), (0.01, 0.9), (0.1, 0.5)])
def test_minimum_detectable_difference_is_the_t_formula(n, alpha, power):
    assert minimum_detectable_difference(n, 0.3, alpha=alpha, power=power) == pytest.approx(
        _mdd_by_hand(n, 0.3, alpha, power), rel=1e-12)


@pytest.mark.parametrize("sd, delta", [(0.3, 0.1), (0.2, 0.05), (0.5, 0.4), (1.0, 0.9)])
def test_questions_needed_is_the_smallest_n_the_t_formula_allows_at_and_around_it(sd, delta):
    n = questions_needed(delta, sd)
    smallest = next(k for k in range(2, 100_000) if _mdd_by_hand(k, sd) <= delta)
    assert n == max(smallest, min_discordant())
    if smallest > min_discordant():
        # a delta exactly at the detectable difference of n needs n; a hair below it needs more
        at = _mdd_by_hand(smallest, sd)
        assert questions_needed(at, sd) == smallest
        assert questions_needed(at * (1 - 1e-9), sd) > smallest


def test_questions_needed_is_raised_to_the_floor_of_the_discordant_rate():
    assert questions_needed(0.9, 0.1) == min_discordant()                   # the t formula alone asks for fewer
    assert questions_needed(0.05, 0.1, discordant_rate=0.1) == max(math.ceil(6 / 0.1), questions_needed(0.05, 0.1))
    assert questions_needed(0.05, 0.1, discordant_rate=0.05) == 120
    assert questions_needed(0.9, 0.1, alpha=0.01) == min_discordant(0.01)
    with pytest.raises(InputError):
        questions_needed(0.3, 0.1, discordant_rate=0.2)                     # a change larger than the share that differ
    with pytest.raises(InputError):
        questions_needed(0.1)


def _pair(n, seed, binary):
    rng = np.random.default_rng(seed)
    ids = [f"q{i}" for i in range(n)]
    if binary:
        a = rng.integers(0, 2, n).astype(float)
        b = a.copy()
        b[: max(1, n // 2)] = 1 - b[: max(1, n // 2)]
    else:
        a, b = rng.uniform(0, 1, n).round(2), rng.uniform(0, 1, n).round(2)
    return pd.Series(a, index=ids), pd.Series(b, index=ids)


@pytest.mark.parametrize("n", [2, 3, 20])
def test_sample_size_of_graded_runs_in_either_order_uses_the_sample_spread(n):
    a, b = _pair(n, n, binary=False)
    ab, ba = sample_size(a, b, 0.1), sample_size(b, a, 0.1)
    d = (b - a).to_numpy()
    assert ab.sd_diff == pytest.approx(float(np.std(d, ddof=1)), rel=1e-12)
    assert ab.values == "continuous" and ab.n_observed == n
    assert ab.discordant_rate == pytest.approx((d != 0).mean())
    assert ab.floor == math.ceil(min_discordant() / ab.discordant_rate)
    assert ab.questions == ba.questions == questions_needed(0.1, ab.sd_diff, discordant_rate=ab.discordant_rate)
    assert ab.sd_diff == pytest.approx(ba.sd_diff)


@pytest.mark.parametrize("n", [2, 3, 20])
def test_sample_size_of_binary_runs_in_either_order_uses_the_discordant_rate(n):
    a, b = _pair(n, n, binary=True)
    ab, ba = sample_size(a, b, 0.2), sample_size(b, a, 0.2)
    rate = float((a != b).mean())
    assert ab.values == "binary" and ab.sd_diff is None and ab.discordant_rate == pytest.approx(rate)
    assert ab.questions == ba.questions == questions_needed_binary(0.2, rate)
    assert ab.floor == math.ceil(min_discordant() / rate)


def test_sample_size_refuses_a_change_above_the_discordant_rate_at_and_just_above_it():
    a = pd.Series([0.0] * 10, index=[f"q{i}" for i in range(10)])
    b = a.copy()
    b.iloc[:3] = 1.0                                     # 3 of 10 differ: rate 0.3
    assert sample_size(a, b, 0.3).questions is not None
    above = sample_size(a, b, 0.31)
    assert above.questions is None and "0.31" in above.note and above.floor == 20
    same = sample_size(a, a, 0.1)
    assert same.questions is None and same.method == "none" and same.discordant_rate == 0


@pytest.mark.parametrize("alpha, power", [(0.01, 0.8), (0.05, 0.95)])
def test_sample_size_passes_alpha_and_power_on(alpha, power):
    a, b = _pair(20, 4, binary=False)
    s = sample_size(a, b, 0.1, alpha=alpha, power=power)
    assert (s.alpha, s.power) == (alpha, power)
    assert s.questions == questions_needed(0.1, s.sd_diff, discordant_rate=s.discordant_rate, alpha=alpha,
                                           power=power)


@pytest.mark.parametrize("confidence", [0.95, 0.8])
def test_the_expected_width_of_a_rate_is_the_binomial_average_of_scipys_exact_interval(confidence):
    values = [1, 1, 1, 0, 1, 0, 1, 1]
    widths = interval_width_by_size(values, [2, 3, 20], confidence=confidence)
    p = np.mean(values)
    for n in (2, 3, 20):
        ref = 0.0
        for x in range(n + 1):
            ci = sps.binomtest(x, n).proportion_ci(confidence_level=confidence, method="exact")
            ref += sps.binom.pmf(x, n, p) * (ci.high - ci.low)
        assert widths[n] == pytest.approx(ref, rel=1e-9)


def test_the_expected_width_of_a_paired_change_narrows_with_questions_and_widens_with_confidence():
    diffs = [1, 0, 0, -1, 1, 1, 0, 1]
    w95 = interval_width_by_size(diffs, [20, 80], paired=True, n_sets=60)
    w80 = interval_width_by_size(diffs, [20, 80], paired=True, n_sets=60, confidence=0.8)
    assert w95[80] < w95[20] and w80[20] < w95[20]
    graded = interval_width_by_size([0.2, -0.1, 0.0, 0.4], [20], paired=True, n_sets=20, n_resamples=200)
    assert 0 < graded[20] < 2
