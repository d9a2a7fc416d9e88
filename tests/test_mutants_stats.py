"""Intervals, paired tests and agreement at their edges, by value and against independent references (scipy,
scikit-learn, full enumeration): both tails of an interval, a p exactly at alpha, Holm's multipliers, the observed
assignment of a randomization test, a grade exactly at the relevance level, kappa and item counts at their minimum."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rag_metrics.analysis.agreement import agreement, cohen_kappa
from rag_metrics.analysis.intervals import bca_rows, clopper_pearson, percentile_rows
from rag_metrics.analysis.paired import (holm, min_discordant, min_p, paired_t_test, paired_test, randomization_rows,
                                         sign_test)


@pytest.mark.parametrize("x, n", [(0, 30), (3, 30), (15, 30), (29, 30), (30, 30), (7, 65), (190, 200)])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_clopper_pearson_equals_scipy_exact(x, n, confidence):
    ref = stats.binomtest(x, n).proportion_ci(confidence_level=confidence, method="exact")
    low, high = clopper_pearson(x, n, confidence)
    assert float(low) == pytest.approx(ref.low, abs=1e-9) and float(high) == pytest.approx(ref.high, abs=1e-9)


def test_percentile_interval_cuts_alpha_over_two_in_each_tail():
    means = np.arange(1001) / 1000.0  # quantile q of these is q itself
    low, high = percentile_rows(means[None, :], 0.9)
    assert float(low[0]) == pytest.approx(0.05) and float(high[0]) == pytest.approx(0.95)


def test_bca_with_bootstrap_means_tied_at_the_estimate_has_no_bias_correction():
    """Symmetric values (acceleration 0) and bootstrap means symmetric around the mean, 301 of them equal to it:
    the mid-rank share below is exactly 1/2, so z0 = 0 and BCa is the percentile interval."""
    values = np.array([[0.0, 0.0, 1.0, 1.0]])
    means = np.concatenate([np.linspace(0, 1, 1001), np.full(300, 0.5)])[None, :]
    low, high = bca_rows(values, means, 0.95)
    plow, phigh = percentile_rows(means, 0.95)
    assert float(low[0]) == pytest.approx(float(plow[0])) and float(high[0]) == pytest.approx(float(phigh[0]))


@pytest.mark.parametrize("wins, losses", [(6, 0), (0, 6), (9, 2), (5, 5), (1, 0), (20, 9)])
def test_sign_test_p_is_scipys_two_sided_binomial_test(wins, losses):
    ref = stats.binomtest(wins, wins + losses, 0.5, alternative="two-sided").pvalue
    assert float(sign_test(wins, losses, 65)["p"]) == pytest.approx(ref)


def test_a_p_exactly_at_alpha_is_not_significant():
    # 6 wins of 6: p = 2 / 2^6 = 1/32
    a, b = [0] * 6 + [1] * 20, [1] * 6 + [1] * 20
    at = paired_test(a, b, alpha=1 / 32)
    assert at.p_value == pytest.approx(1 / 32) and at.verdict == "within noise"
    assert at.ci_low <= 0 <= at.ci_high
    above = paired_test(a, b, alpha=0.05)
    assert above.verdict == "better" and above.ci_low > 0
    r = sign_test(6, 0, 26, alpha=1 / 32)
    assert float(r["low"]) <= 0.0


def test_the_smallest_reachable_p_and_the_fewest_discordant_questions():
    assert [min_p(m) for m in (0, 1, 2, 5, 6)] == [1.0, 1.0, 0.5, 1 / 16, 1 / 32]
    assert min_discordant(0.05) == 6
    assert min_discordant(1 / 32) == 7  # p = 1/32 at 6 is not below 1/32
    assert min_discordant(1 / 16 + 1e-9) == 5


def test_holm_by_hand():
    # sorted 0.01 (x3), 0.03 (x2), 0.04 (x1), running maximum
    assert holm([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.2, 0.5]).tolist() == pytest.approx([0.4, 0.5])
    assert holm([0.6, 0.7]).tolist() == [1.0, 1.0]


def test_paired_t_test_equals_scipy():
    a = np.array([0.2, 0.5, 0.1, 0.9, 0.4, 0.3, 0.8])
    b = np.array([0.3, 0.7, 0.1, 0.8, 0.6, 0.5, 0.9])
    ref = stats.ttest_rel(b, a)
    t, p = paired_t_test(a, b)
    assert abs(t) == pytest.approx(abs(ref.statistic)) and p == pytest.approx(ref.pvalue)


def _brute_p(d):
    """Share of all sign assignments of the nonzero differences whose |sum| is at least the observed one."""
    x = np.array([v for v in d if v != 0])
    observed = abs(x.sum())
    sums = [abs(np.dot(s, x)) for s in itertools.product([1, -1], repeat=len(x))]
    return sum(s >= observed - 1e-9 for s in sums) / len(sums)


@pytest.mark.parametrize("d", [[0.5, 0.25, 0.25, -0.1, 0.3, 0.2, 0.4], [1.0, 1.0, 2.0], [0.3, -0.3, 0.1, 0.0, 0.2],
                               [0.1] * 8, [0.5, -0.2, 0.7, 0.1, 0.9, 0.3, 0.6, 0.2, 0.4]])
def test_randomization_p_equals_full_enumeration(d):
    r = randomization_rows(np.array([d]), bound=2.0)
    assert bool(r["exact"][0])
    assert float(r["p"][0]) == pytest.approx(_brute_p(d))


def _frames(human, grades):
    keys = {"question_id": [f"q{i}" for i in range(len(human))], "doc_id": "d", "page": 1}
    return (pd.DataFrame({**keys, "grade": grades}), pd.DataFrame({**keys, "relevant": human}))


def test_grade_two_is_relevant():
    grades, human = _frames([1, 1, 0, 0, 1, 0], [2, 3, 1, 0, 2, 1])
    a = agreement(grades, human, n_resamples=200)
    assert a.sensitivity == 1.0 and a.specificity == 1.0 and a.kappa.kappa == 1.0
    assert a.items["assessed_relevant"].tolist() == [True, True, False, False, True, False]


def test_kappa_equals_scikit_learn():
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(3)
    for _ in range(5):
        h = rng.integers(0, 2, 40)
        a = np.where(rng.random(40) < 0.8, h, 1 - h)
        k = cohen_kappa(h, a, n_resamples=200)
        assert k.kappa == pytest.approx(cohen_kappa_score(h, a))
        assert k.expected == pytest.approx(h.mean() * a.mean() + (1 - h.mean()) * (1 - a.mean()))


def test_kappa_and_item_count_exactly_at_their_minimum_are_usable():
    human = [1, 1, 1, 0, 0, 0, 1, 0, 1, 0]
    graded = [3, 3, 0, 0, 0, 2, 3, 0, 3, 0]
    grades, human_frame = _frames(human, graded)
    k = agreement(grades, human_frame, n_resamples=200).kappa.kappa
    assert k == pytest.approx(0.6)
    at = agreement(grades, human_frame, min_kappa=k, min_items=10, n_resamples=200)
    assert at.usable and at.verdict.startswith("usable")
    assert not agreement(grades, human_frame, min_kappa=k + 0.01, min_items=10, n_resamples=200).usable
    assert not agreement(grades, human_frame, min_kappa=k, min_items=11, n_resamples=200).usable
