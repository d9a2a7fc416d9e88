"""Statistics: cross-checked against ranx's Fisher randomization test (stored fixture) and scipy's
ttest_rel, exact p-values worked out by hand, Holm by hand, and properties."""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sps

from rag_metrics.analysis.stats import (
    bootstrap_ci,
    summary_with_ci,
    ci_width_by_size,
    compare_to_baseline,
    holm,
    minimum_detectable_difference,
    paired_comparison,
    paired_t_test,
    questions_needed,
)

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "ranx_fisher.json").read_text())


@pytest.mark.parametrize("name", sorted(FIXTURE["cases"]))
def test_randomization_p_agrees_with_ranx(name):
    case = FIXTURE["cases"][name]
    ours = paired_comparison(case["a"], case["b"], n_resamples=100_000, seed=1)
    # ranx: 200,000 permutations -> standard error <= 0.0011; ours exact or 100,000 resamples.
    assert ours.p_value == pytest.approx(case["ranx_fisher_p"], abs=0.005)


@pytest.mark.parametrize("name", sorted(FIXTURE["cases"]))
def test_paired_t_test_equals_scipy(name):
    case = FIXTURE["cases"][name]
    t, p = paired_t_test(case["a"], case["b"])
    assert t == pytest.approx(case["scipy_ttest_rel_t"], rel=1e-10)
    assert p == pytest.approx(case["scipy_ttest_rel_p"], rel=1e-8)
    live = sps.ttest_rel(case["b"], case["a"])
    assert p == pytest.approx(live.pvalue, rel=1e-8)


def test_exact_p_values_by_hand():
    # 4 wins, 2 losses of 1 point: |sum| >= 2 unless the six signs balance: 1 - C(6,3)/2^6
    a = [0.0] * 4 + [1.0] * 2 + [1.0] * 30
    b = [1.0] * 4 + [0.0] * 2 + [1.0] * 30
    r = paired_comparison(a, b)
    assert r.method == "exact" and r.p_value == pytest.approx(1 - 20 / 64)
    assert (r.wins, r.ties, r.losses) == (4, 30, 2)
    # 15 wins, 5 losses: P(|W - L| >= 10) = 2 * sum_{w>=15} C(20, w) / 2^20
    a = [0.0] * 15 + [1.0] * 5
    b = [1.0] * 15 + [0.0] * 5
    expected = 2 * sum(math.comb(20, w) for w in range(15, 21)) / 2**20
    assert paired_comparison(a, b).p_value == pytest.approx(expected)
    # no difference at all
    assert paired_comparison([1.0, 0.0], [1.0, 0.0]).p_value == 1.0


def test_monte_carlo_close_to_exact():
    rng = np.random.default_rng(3)
    a = rng.random(18)
    b = a + rng.normal(0.1, 0.2, 18)
    exact = paired_comparison(a, b, exact_max=20)
    mc = paired_comparison(a, b, exact_max=5, n_resamples=50_000)
    assert exact.method == "exact" and mc.method == "monte_carlo"
    assert mc.p_value == pytest.approx(exact.p_value, abs=0.01)


def test_bootstrap_ci():
    values = pd.Series([1.0, 0.0, 1.0, 1.0, np.nan, 0.0, 1.0, 1.0])
    mean, low, high, n = bootstrap_ci(values)
    assert n == 7 and mean == pytest.approx(5 / 7) and low <= mean <= high
    assert bootstrap_ci(values) == bootstrap_ci(values)  # seeded
    assert bootstrap_ci([np.nan]) [3] == 0 and math.isnan(bootstrap_ci([]) [0])
    assert bootstrap_ci([0.5]) == (0.5, 0.5, 0.5, 1)
    with pytest.raises(ValueError, match="infinite"):
        bootstrap_ci([1.0, np.inf])


def test_paired_comparison_alignment_and_exclusions():
    a = pd.Series({"q1": 1.0, "q2": 0.0, "q3": np.nan})
    b = pd.Series({"q3": 1.0, "q2": 1.0, "q1": 1.0})  # other order: aligned by question ID
    r = paired_comparison(a, b)
    assert r.n == 2 and r.excluded == 1 and r.mean_diff == pytest.approx(0.5)
    with pytest.raises(ValueError, match=r"same questions in both runs: only in a \[\], only in b \['q4'\]"):
        paired_comparison(a, pd.concat([b, pd.Series({"q4": 1.0})]))


def test_within_noise_flag():
    noisy = paired_comparison([0.0] + [1.0] * 64, [1.0] * 65)
    assert noisy.within_noise and noisy.ci_low == 0.0
    clear = paired_comparison([0.0] * 30 + [1.0] * 30, [1.0] * 60)
    assert not clear.within_noise and clear.p_value < 0.001


def test_holm_by_hand():
    # sorted 0.005, 0.01, 0.03, 0.04 -> 4*0.005, 3*0.01, 2*0.03, max(1*0.04, 0.06)
    assert holm([0.01, 0.04, 0.03, 0.005]).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.6]).tolist() == pytest.approx([1.0, 1.0])


def test_compare_to_baseline_applies_holm():
    rng = np.random.default_rng(0)
    base = pd.Series(rng.random(50))
    systems = {"same": base + rng.normal(0, 0.01, 50), "better": base + 0.2}
    table = compare_to_baseline(base, systems)
    assert list(table.index) == ["same", "better"]
    assert table.loc["better", "p_holm"] == pytest.approx(min(1.0, 2 * table.loc["better", "p_value"]))
    assert not table.loc["better", "within_noise"]


def test_minimum_detectable_difference_and_questions_needed():
    z = sps.norm.ppf(0.975) + sps.norm.ppf(0.8)
    assert minimum_detectable_difference(100, 1.0) == pytest.approx(z / 10)
    assert questions_needed(0.5, 1.0) == math.ceil((z / 0.5) ** 2) == 32
    n = questions_needed(0.05, 0.19)
    assert minimum_detectable_difference(n, 0.19) <= 0.05 < minimum_detectable_difference(n - 1, 0.19)
    with pytest.raises(ValueError, match="'delta' parameter must be > 0"):
        questions_needed(0, 1.0)
    assert questions_needed(0.5, 0.01) == 2  # never fewer than a paired test can use
    with pytest.raises(ValueError, match="no question changed"):
        questions_needed(0.05, 0.0)


def test_mdd_has_the_promised_power_by_simulation():
    # true difference = MDD: the paired t-test should reject about 80% of the time
    rng = np.random.default_rng(5)
    n, sd = 60, 0.2
    delta = minimum_detectable_difference(n, sd)
    rejections = sum(sps.ttest_1samp(rng.normal(delta, sd, n), 0).pvalue < 0.05 for _ in range(2000))
    assert 0.74 < rejections / 2000 < 0.86


def test_ci_width_shrinks_with_questions():
    widths = ci_width_by_size(np.r_[np.ones(60), np.zeros(20)], [20, 80, 320])
    assert widths.is_monotonic_decreasing
    assert widths[320] == pytest.approx(widths[80] / 2, rel=0.15)  # ~ 1/sqrt(n)


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=30))
def test_swapping_runs_flips_the_difference(pairs):
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    ab, ba = paired_comparison(a, b, n_resamples=500), paired_comparison(b, a, n_resamples=500)
    assert 0 < ab.p_value <= 1
    assert ab.p_value == pytest.approx(ba.p_value)
    assert ab.mean_diff == pytest.approx(-ba.mean_diff, abs=1e-12)
    assert (ab.wins, ab.losses) == (ba.losses, ba.wins)


def test_evaluation_summary_with_ci():
    from rag_metrics import evaluate

    golden = pd.DataFrame({"question_id": ["a", "b", "c", "d"], "doc_id": ["x", "y", "z", None]})
    run = pd.DataFrame({"question_id": ["a", "b", "c"], "rank": [1, 1, 1], "doc_id": ["x", "q", "z"]})
    table = summary_with_ci(evaluate(golden, run, ["hit@1"]))
    row = table.loc["hit@1"]
    assert row["mean"] == pytest.approx(2 / 3) and row["ci_low"] <= row["mean"] <= row["ci_high"]
    assert row["evaluated"] == 3 and row["excluded"] == 1 and row["excluded_ids"] == ("d",)
