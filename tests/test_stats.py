"""Statistics, checked against independent references: scipy (binomtest, its exact and Wilson intervals,
bootstrap with BCa, ttest_rel), ranx's Fisher randomization test (stored fixture), brute-force enumeration of sign
assignments and of the tests' acceptance sets, numbers worked out by hand, and properties (hypothesis).

Coverage and false-alarm rates are simulated in test_stats_simulation.py."""

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from rag_metrics.stats import intervals, paired, planning
from rag_metrics.stats import (
    bootstrap_means,
    clopper_pearson,
    compare_to_baseline,
    exact_power,
    holm,
    mean_interval,
    min_discordant,
    min_p,
    minimum_detectable_difference,
    paired_t_test,
    paired_test,
    paired_verdict,
    percentile_bootstrap_ci,
    questions_needed,
    questions_needed_binary,
    randomization_rows,
    sample_size,
    sign_test,
    summary_with_ci,
    wilson,
)
from scipy import stats
from rag_metrics.labels.assessor_agreement import agreement
from rag_metrics.stats.agreement import cohen_kappa
from rag_metrics.stats.intervals import bca_rows, percentile_rows

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "ranx_fisher.json").read_text())


# ---- intervals of a mean ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 7, 30, 65])
def test_clopper_pearson_and_wilson_equal_scipy(n):
    for x in range(n + 1):
        ours = [float(v) for v in clopper_pearson(x, n)]
        ref = sps.binomtest(x, n).proportion_ci(confidence_level=0.95, method="exact")
        assert ours == pytest.approx([ref.low, ref.high], abs=1e-12)
        ours = [float(v) for v in wilson(x, n)]
        ref = sps.binomtest(x, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert ours == pytest.approx([ref.low, ref.high], abs=1e-12)


def test_mean_interval_picks_the_method_from_the_values():
    hit = mean_interval([1.0, 0.0, np.nan, 1.0, 1.0])
    assert (hit.method, hit.n, hit.excluded, hit.n_resamples) == ("Clopper-Pearson", 4, 1, None)
    ref = sps.binomtest(3, 4).proportion_ci(method="exact")
    assert (hit.mean, hit.low, hit.high) == pytest.approx((0.75, ref.low, ref.high))
    # every question hit: not a zero-width interval; the lower end is (alpha/2)^(1/n)
    ones = mean_interval([1.0] * 30)
    assert ones.high == 1.0 and ones.low == pytest.approx(0.025 ** (1 / 30)) and ones.width > 0.1
    mrr = mean_interval([1.0, 0.5, 1 / 3, 0.0, 1.0, 1.0, 0.25])
    assert mrr.method == "BCa bootstrap" and mrr.n_resamples == 10_000 and mrr.low < mrr.mean < mrr.high
    flat = mean_interval([0.5] * 10)  # no spread, in [0, 1]: the mean read as a share
    assert flat.method.startswith("Clopper-Pearson (no spread")
    assert (flat.low, flat.high) == pytest.approx(tuple(float(v) for v in clopper_pearson(5.0, 10)))
    counts = mean_interval([3.0, 3.0])
    assert counts.method == "none (no spread)" and counts.low == counts.high == 3.0
    empty = mean_interval([np.nan])
    assert empty.n == 0 and empty.excluded == 1 and math.isnan(empty.mean)
    with pytest.raises(ValueError, match="infinite"):
        mean_interval([1.0, np.inf])
    with pytest.raises(ValueError, match="'confidence' parameter"):
        mean_interval([1.0, 0.0], confidence=95)
    assert mean_interval([1.0, 0.0, 1.0], confidence=0.99).width > mean_interval([1.0, 0.0, 1.0]).width


def _scipy_rng(seed):
    """scipy's bootstrap takes its generator as ``rng`` from 1.15, as ``random_state`` before (the lowest scipy)."""
    import inspect

    key = "rng" if "rng" in inspect.signature(sps.bootstrap).parameters else "random_state"
    return {key: np.random.default_rng(seed)}


@pytest.mark.parametrize("n, seed", [(12, 1), (40, 2), (150, 3)])
def test_bca_equals_scipy_bootstrap_given_the_same_resamples(n, seed):
    x = np.random.default_rng(seed).beta(2, 1.2, n)  # distinct values: the index path, scipy's draws
    ours = mean_interval(x, n_resamples=3000, seed=7)
    ref = sps.bootstrap((x,), np.mean, method="BCa", n_resamples=3000, batch=500, **_scipy_rng(7))
    assert ours.method == "BCa bootstrap"
    assert (ours.low, ours.high) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high),
                                                  rel=1e-12)
    old = percentile_bootstrap_ci(x, n_resamples=3000, seed=7)
    ref = sps.bootstrap((x,), np.mean, method="percentile", n_resamples=3000, **_scipy_rng(7))
    assert (old.low, old.high) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high), rel=1e-12)


def test_percentile_bootstrap_ci_is_the_former_method():
    values = np.r_[np.ones(60), np.zeros(5)]
    rng = np.random.default_rng(0)  # the former implementation, all resamples at once
    means = values[rng.integers(0, 65, size=(10_000, 65))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    old = percentile_bootstrap_ci(values)
    assert (old.low, old.high) == pytest.approx((low, high), abs=1e-12)
    assert percentile_bootstrap_ci(np.ones(30)).width == 0  # what the package no longer reports


@pytest.mark.parametrize("chunk", [1, 37, 500, 10_000])
def test_resamples_in_chunks_give_the_same_interval(chunk):
    x = np.random.default_rng(4).random(53)
    whole = mean_interval(x, n_resamples=2000, seed=3, chunk=2000)
    assert mean_interval(x, n_resamples=2000, seed=3, chunk=chunk) == whole
    mrr = np.r_[np.ones(300), np.full(60, 0.5), np.full(30, 1 / 3), np.zeros(40)]  # few distinct: counts path
    assert mean_interval(mrr, n_resamples=2000, chunk=chunk) == mean_interval(mrr, n_resamples=2000, chunk=2000)


def test_bootstrap_and_sign_flips_never_hold_all_resamples_at_once(monkeypatch):
    seen = []
    real = np.random.default_rng

    class Spy:
        def __init__(self, seed):
            self.rng = real(seed)

        def integers(self, *args, **kwargs):
            out = self.rng.integers(*args, **kwargs)
            seen.append(out.size)
            return out

        def standard_exponential(self, *args, **kwargs):
            out = self.rng.standard_exponential(*args, **kwargs)
            seen.append(out.size)
            return out

    x = np.random.default_rng(1).random(5000)
    monkeypatch.setattr(np.random, "default_rng", Spy)
    mean_interval(x, n_resamples=2000)
    assert len(seen) > 1 and max(seen) <= intervals.MAX_CELLS and sum(seen) == 2000 * 5000
    seen.clear()
    r = paired_test(x, x[::-1])            # the bounded-mean test: n + 1 weights per draw, drawn in chunks
    assert r.method.startswith("bounded-mean test")
    assert len(seen) > 1 and max(seen) <= intervals.MAX_CELLS and sum(seen) == 10_000 * (5000 + 1)
    seen.clear()
    randomization_rows((x - x[::-1])[None, :], n_resamples=10_000)   # the former test: sign flips in chunks too
    assert len(seen) > 1 and max(seen) <= intervals.MAX_CELLS and sum(seen) == 10_000 * 5000


def test_counts_path_and_index_path_resample_alike():
    # few distinct values in one row: multinomial counts; the same row twice: indices -- same distribution
    x = np.r_[np.ones(250), np.full(70, 0.5), np.full(40, 0.2), np.zeros(40)]
    grouped = bootstrap_means(x, 40_000, seed=1)
    indexed = bootstrap_means(np.vstack([x, x]), 40_000, seed=2)[0]
    assert grouped.mean() == pytest.approx(x.mean(), abs=5e-4) and indexed.mean() == pytest.approx(x.mean(), abs=5e-4)
    assert grouped.std() == pytest.approx(x.std() / math.sqrt(x.size), rel=0.02)
    assert indexed.std() == pytest.approx(x.std() / math.sqrt(x.size), rel=0.02)
    a = intervals.bca_rows(x[None, :], grouped[None, :])
    b = intervals.bca_rows(x[None, :], indexed[None, :])
    assert float(a[0][0]) == pytest.approx(float(b[0][0]), abs=0.003)
    assert float(a[1][0]) == pytest.approx(float(b[1][0]), abs=0.003)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.2, 0.25, 1 / 3, 0.5, 1.0]), min_size=1, max_size=40))
def test_the_interval_holds_the_mean_and_stays_in_range(values):
    r = mean_interval(values, n_resamples=500)
    assert r.low <= r.mean <= r.high and 0 <= r.low and r.high <= 1
    assert r.width > 0 or r.method == "none (no spread)"


def test_mean_interval_leaves_undefined_values_out_and_counts_the_rest():
    values = pd.Series([1.0, 0.0, 1.0, 1.0, np.nan, 0.0, 1.0, 1.0])
    r = mean_interval(values)
    assert (r.n, r.mean) == (7, pytest.approx(5 / 7)) and (r.low, r.high) == tuple(map(float, clopper_pearson(5, 7)))


def test_summary_with_ci_names_the_method():
    from rag_metrics import evaluate

    golden = pd.DataFrame({"question_id": ["a", "b", "c", "d"], "doc_id": ["x", "y", "z", None]})
    run = pd.DataFrame({"question_id": ["a", "b", "c"], "rank": [1, 1, 1], "doc_id": ["x", "q", "z"]})
    table = summary_with_ci(evaluate(golden, run, ["hit@1"]))
    row = table.loc["hit@1"]
    assert row["mean"] == pytest.approx(2 / 3) and row["method"] == "Clopper-Pearson"
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(tuple(float(v) for v in clopper_pearson(2, 3)))
    assert row["evaluated"] == 3 and row["excluded"] == 1 and row["excluded_ids"] == ("d",)


# ---- paired tests -------------------------------------------------------------------------------------------------

def test_sign_test_p_equals_scipy_binomtest():
    w, m = np.array([(w, m) for m in range(0, 41) for w in range(m + 1)]).T
    ours = sign_test(w, m - w, 65)["p"]
    ref = [sps.binomtest(int(wi), int(mi)).pvalue if mi else 1.0 for wi, mi in zip(w, m)]
    assert ours == pytest.approx(ref, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("name", sorted(FIXTURE["cases"]))
def test_p_values_agree_with_ranx_fisher_randomization(name):
    """The sign test (0/1 values, the package's) and the randomization test the package used for other values
    before the bounded-mean test (kept as randomization_rows) agree with ranx's Fisher test."""
    case = FIXTURE["cases"][name]
    ours = paired_test(case["a"], case["b"], n_resamples=100_000, seed=1)
    # ranx: 200,000 permutations -> standard error <= 0.0011; ours exact (0/1 values: the sign test) or 100,000.
    if name.startswith("binary"):
        assert ours.method.startswith("exact sign test") and ours.p_value == pytest.approx(case["ranx_fisher_p"], abs=0.005)
    else:
        assert ours.method.startswith("bounded-mean test")
        d = np.asarray(case["b"], dtype=float) - np.asarray(case["a"], dtype=float)
        former = randomization_rows(d[None, :], n_resamples=100_000, seed=1)["p"][0]
        assert former == pytest.approx(case["ranx_fisher_p"], abs=0.005)


@pytest.mark.parametrize("name", sorted(FIXTURE["cases"]))
def test_paired_t_test_equals_scipy(name):
    case = FIXTURE["cases"][name]
    t, p = paired_t_test(case["a"], case["b"])
    assert t == pytest.approx(case["scipy_ttest_rel_t"], rel=1e-10)
    assert p == pytest.approx(case["scipy_ttest_rel_p"], rel=1e-8)
    assert p == pytest.approx(sps.ttest_rel(case["b"], case["a"]).pvalue, rel=1e-8)


def test_exact_p_values_by_hand():
    # 4 wins, 2 losses: 2 * P(W >= 4 | m = 6) = 2 * (15 + 6 + 1) / 64 = 1 - C(6,3)/2^6
    r = paired_test([0.0] * 4 + [1.0] * 2 + [1.0] * 30, [1.0] * 4 + [0.0] * 2 + [1.0] * 30)
    assert r.method == "exact sign test (McNemar)" and r.p_value == pytest.approx(1 - 20 / 64)
    assert (r.wins, r.ties, r.losses, r.values) == (4, 30, 2, "binary")
    # 15 wins, 5 losses
    r = paired_test([0.0] * 15 + [1.0] * 5, [1.0] * 15 + [0.0] * 5)
    assert r.p_value == pytest.approx(2 * sum(math.comb(20, w) for w in range(15, 21)) / 2**20)
    assert paired_test([1.0, 0.0], [1.0, 0.0]).p_value == 1.0
    # the former randomization test, n = 3 (exact): d = (0.5, 0.25, -0.1); |sum| = 0.65 is reached by (+,+,-)...
    # sums of +-0.5 +-0.25 +-0.1: 0.85 0.65 0.35 0.15 and negatives -> |s| >= 0.65: 0.85, 0.65 and their negatives
    r = randomization_rows(np.array([[0.5, 0.25, -0.1]]))
    assert bool(r["exact"][0]) and float(r["p"][0]) == pytest.approx(4 / 8)
    # the bounded-mean test on the same changes: three changes, so p >= 2^(1-3) = 1/4 whatever the draws
    r = paired_test([0.0, 0.0, 0.1], [0.5, 0.25, 0.0])
    assert r.method == "bounded-mean test (10,000 weight draws, every change within +-1)" and r.p_value >= 0.25


def _brute_accepts(x, mu0, alpha):
    """The randomization test of x - mu0 over every sign assignment (listed by itertools), from its definition."""
    signs = np.array(list(itertools.product((1, -1), repeat=len(x))), dtype=float)
    y = np.asarray(x) - np.asarray(mu0, dtype=float)[:, None]
    return (np.abs(y @ signs.T) >= np.abs(y.sum(axis=1))[:, None] - 1e-9).mean(axis=1) >= alpha


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_randomization_interval_inverts_the_test_on_the_questions_that_differ(seed):
    rng = np.random.default_rng(seed)
    n = 12
    a = rng.choice([1.0, 0.5, 1 / 3, 0.0], n)
    b = np.clip(a + rng.choice([0.0, 0.5, -0.5, 0.17, 0.3], n), 0, 1)
    d = b - a
    rr = randomization_rows(d[None, :], alpha=0.1)       # the former test, kept for comparison
    r = type("R", (), {"ci_low": float(rr["low"][0]), "ci_high": float(rr["high"][0]), "p_value": float(rr["p"][0])})
    x = d[d != 0]
    m = x.size
    grid = np.linspace(-1, 1, 2001)
    accepted = grid[_brute_accepts(x, grid, 0.1)]
    step = grid[1] - grid[0]
    mu_low, mu_high = min(accepted), max(accepted)  # within [-1, 1]: measures in [0, 1] differ by at most 1
    ci = sps.binomtest(m, n).proportion_ci(confidence_level=0.9, method="exact")
    corners = [psi * mu for psi in (ci.low, ci.high) for mu in (mu_low, mu_high)]
    slack = step * ci.high + 1e-9
    assert r.ci_low == pytest.approx(min(corners), abs=slack) and r.ci_high == pytest.approx(max(corners), abs=slack)
    assert r.p_value == pytest.approx(np.mean([abs(np.dot(s, x)) >= abs(x.sum()) - 1e-9
                                               for s in itertools.product((1, -1), repeat=m)]))


def test_too_few_questions_that_differ_bound_the_change_by_their_share():
    """The former randomization test: with too few questions that differ its interval is +- the share that may differ."""
    d = np.array([0.5] * 2 + [0.0] * 63)
    r = randomization_rows(d[None, :])  # two questions differ: no shift can be rejected
    upper = sps.binomtest(2, 65).proportion_ci(method="exact").high
    assert (r["low"][0], r["high"][0]) == pytest.approx((-upper, upper)) and r["p"][0] == pytest.approx(0.5)
    none = randomization_rows(np.zeros((1, 65)))
    upper = sps.binomtest(0, 65).proportion_ci(method="exact").high
    assert (none["low"][0], none["high"][0]) == pytest.approx((-upper, upper)) and none["p"][0] == 1.0


def test_the_bounded_mean_test_with_two_or_no_questions_that_differ():
    """Two changes of +0.5: p >= 2^(1-2) = 1/2 and the interval holds 0 and the change; none: p = 1 and the
    interval is what one unseen change of +-1 among 66 could move the mean by."""
    r = paired_test([0.5] * 2 + [1.0] * 63, [1.0] * 65)
    assert r.p_value >= 0.5 and r.ci_low <= 0 <= r.delta <= r.ci_high and r.verdict == "within noise"
    none = paired_test([0.5] * 10 + [1.0] * 55, [0.5] * 10 + [1.0] * 55)
    assert none.p_value == 1.0 and -0.1 < none.ci_low < 0 < none.ci_high < 0.1 and none.ci_low == pytest.approx(-none.ci_high, abs=0.01)


def _tango_by_definition(b, c, n, delta0):
    """Tango's score statistic from its definition: the loss share maximizing the multinomial likelihood under
    p_win - p_loss = delta0, found numerically (not by the closed form the package uses)."""
    from scipy.optimize import minimize_scalar

    t = n - b - c
    low, high = max(0.0, -delta0), min(1.0, (1 - delta0) / 2)

    def nll(q):
        pw, pl = q + delta0, q
        pt = 1 - pw - pl
        return -sum(k * math.log(max(v, 1e-300)) for k, v in ((b, pw), (c, pl), (t, pt)) if k)

    q = minimize_scalar(nll, bounds=(low, high), method="bounded", options={"xatol": 1e-12}).x if high > low else low
    var = n * (2 * q + delta0 * (1 - delta0))
    return (b - c - n * delta0) / math.sqrt(var) if var > 0 else math.copysign(math.inf, b - c - n * delta0)


@pytest.mark.parametrize("w, l, n", [(4, 0, 65), (6, 0, 65), (3, 5, 40), (15, 5, 100), (0, 9, 30), (0, 0, 30),
                                     (20, 20, 60)])
def test_sign_test_interval_is_tangos_score_interval_reaching_zero(w, l, n):
    r = sign_test(w, l, n)
    grid = np.linspace(-1, 1, 1001)[1:-1]
    accepted = [g for g in grid if abs(_tango_by_definition(w, l, n, g)) <= sps.norm.ppf(0.975)]
    low, high = min(accepted), max(accepted)
    if float(r["p"]) >= 0.05:
        low, high = min(low, 0.0), max(high, 0.0)
    assert float(r["low"]) == pytest.approx(low, abs=2.1e-3) and float(r["high"]) == pytest.approx(high, abs=2.1e-3)
    z = paired.tango_z(w, l, n, np.array([r["low"], r["high"]]))
    if w != l and float(r["p"]) < 0.05:
        assert np.abs(z) == pytest.approx(sps.norm.ppf(0.975), abs=1e-6)


def test_the_score_interval_leaves_out_zero_whenever_the_exact_test_rejects():
    w, m = np.array([(w, m) for m in range(1, 301) for w in range(m + 1)]).T
    for alpha in (0.01, 0.05, 0.1):
        p = sign_test(w, m - w, 400, alpha=alpha)["p"]
        low, high = paired.tango_interval(w, m - w, 400, alpha=alpha)
        assert ((low > 0) | (high < 0))[p < alpha].all()


def test_four_wins_and_61_ties_can_never_be_significant():
    r = paired_test([0.0] * 4 + [1.0] * 61, [1.0] * 65, measure="hit@1")
    assert r.p_value == 0.125 and r.min_p == 0.125 and not r.can_reach_alpha
    assert r.verdict == "within noise" and r.ci_low <= 0 < r.ci_high
    assert "smallest possible p is 0.125" in r.sentence and "at least 6 must differ" in r.sentence
    six = paired_test([0.0] * 6 + [1.0] * 59, [1.0] * 65, measure="hit@1")
    assert six.p_value == pytest.approx(2 / 64) and six.verdict == "better" and six.ci_low > 0 and six.can_reach_alpha
    worse = paired_test([1.0] * 65, [0.0] * 6 + [1.0] * 59)
    assert worse.verdict == "worse" and worse.ci_high < 0
    # p exactly at alpha is not below it: within noise, and the interval holds 0
    edge = paired_test([0.0] * 4 + [1.0] * 61, [1.0] * 65, alpha=0.125)
    assert edge.p_value == 0.125 and edge.verdict == "within noise" and edge.ci_low <= 0 < edge.ci_high


def test_min_p_and_min_discordant():
    assert [min_p(m) for m in (0, 1, 2, 5, 6)] == [1.0, 1.0, 0.5, 0.0625, 0.03125]
    assert min_discordant(0.05) == 6 and min_discordant(0.01) == 8 and min_discordant(0.5) == 3


pairs = st.lists(st.tuples(st.sampled_from([0.0, 1.0]), st.sampled_from([0.0, 1.0])), min_size=1, max_size=120)
cont_pairs = st.lists(st.tuples(st.sampled_from([0.0, 0.2, 1 / 3, 0.5, 1.0]),
                                st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 1.0])), min_size=1, max_size=60)


def _consistent(r):
    excludes = r.ci_low > 0 or r.ci_high < 0
    assert excludes == (r.p_value < r.alpha) == (r.verdict != "within noise")
    assert (r.verdict == "better") == (r.ci_low > 0) and (r.verdict == "worse") == (r.ci_high < 0)
    assert r.ci_low <= r.delta <= r.ci_high
    assert r.can_reach_alpha == (r.min_p < r.alpha) and r.wins + r.ties + r.losses == r.n


@settings(max_examples=150, deadline=None)
@given(pairs, st.sampled_from([0.01, 0.05, 0.1, 0.125, 0.25]))
def test_interval_excludes_zero_exactly_when_p_is_below_alpha_binary(data, alpha):
    r = paired_test([x for x, _ in data], [y for _, y in data], alpha=alpha)
    _consistent(r)
    assert r.p_value >= r.min_p - 1e-12  # exact: the floor 2^(1-m) holds


@settings(max_examples=60, deadline=None)
@given(cont_pairs, st.sampled_from([0.05, 0.1]))
def test_interval_excludes_zero_exactly_when_p_is_below_alpha_continuous(data, alpha):
    r = paired_test([x for x, _ in data], [y for _, y in data], alpha=alpha, n_resamples=400)
    _consistent(r)


def test_consistency_holds_on_many_random_sets_at_once():
    rng = np.random.default_rng(11)
    d = rng.choice([0.0, 0.0, 0.0, 0.5, -0.5, 1.0, -1 / 3, 0.25], size=(3000, 40)) + rng.choice([0.0, 0.06], (3000, 1))
    r = randomization_rows(d, n_resamples=999)
    assert ((r["low"] > 0) | (r["high"] < 0) == (r["p"] < 0.05)).all()
    w, l = rng.integers(0, 12, 3000), rng.integers(0, 12, 3000)
    s = sign_test(w, l, 65)
    assert ((s["low"] > 0) | (s["high"] < 0) == (s["p"] < 0.05)).all()


@settings(max_examples=40, deadline=None)
@given(cont_pairs)
def test_swapping_runs_flips_the_change(data):
    a = [x for x, _ in data]
    b = [y for _, y in data]
    ab, ba = paired_test(a, b, n_resamples=500), paired_test(b, a, n_resamples=500)
    assert ab.p_value == pytest.approx(ba.p_value) and ab.delta == pytest.approx(-ba.delta, abs=1e-12)
    assert (ab.ci_low, ab.ci_high) == pytest.approx((-ba.ci_high, -ba.ci_low), abs=1e-9)
    assert (ab.wins, ab.losses) == (ba.losses, ba.wins)


def test_randomization_chunks_and_paths_agree():
    rng = np.random.default_rng(5)
    d = rng.choice([0.0, 0.5, -0.5, 1 / 3, -0.25], 400) + 0.02 * (rng.random(400) < 0.3)
    one = randomization_rows(d[None, :], n_resamples=3000, chunk=3000)
    assert randomization_rows(d[None, :], n_resamples=3000, chunk=61) == one  # chunking changes nothing
    # one row with few distinct differences: binomial counts per value; two rows: +-1 signs -- same test
    grouped = randomization_rows(d[None, :], n_resamples=40_000, seed=1)
    signs = randomization_rows(np.vstack([d, d]), n_resamples=40_000, seed=2)
    assert float(grouped["p"][0]) == pytest.approx(float(signs["p"][0]), abs=0.01)
    assert float(grouped["low"][0]) == pytest.approx(float(signs["low"][0]), abs=0.004)
    assert float(grouped["high"][0]) == pytest.approx(float(signs["high"][0]), abs=0.004)


def test_monte_carlo_close_to_exact():
    """The former randomization test: random sign flips close to all 2^12 of them."""
    rng = np.random.default_rng(3)
    a = rng.random(12)
    d = (a + rng.normal(0.1, 0.2, 12) - a)[None, :]
    exact = randomization_rows(d, bound=2.0)
    mc = randomization_rows(d, exact_max=5, n_resamples=50_000, bound=2.0)
    assert bool(exact["exact"][0]) and not bool(mc["exact"][0])
    assert mc["p"][0] == pytest.approx(exact["p"][0], abs=0.005)
    assert (mc["low"][0], mc["high"][0]) == pytest.approx((exact["low"][0], exact["high"][0]), abs=0.01)


def test_alignment_exclusions_and_bad_input():
    a = pd.Series({"q1": 1.0, "q2": 0.0, "q3": np.nan})
    b = pd.Series({"q3": 1.0, "q2": 1.0, "q1": 1.0})  # other order: aligned by question ID
    r = paired_test(a, b)
    assert r.n == 2 and r.excluded == 1 and r.delta == pytest.approx(0.5)
    with pytest.raises(ValueError, match=r"same questions in both runs: only in a \[\], only in b \['q4'\]"):
        paired_test(a, pd.concat([b, pd.Series({"q4": 1.0})]))
    with pytest.raises(ValueError, match="no question has a defined value"):
        paired_test([np.nan], [1.0])
    with pytest.raises(ValueError, match="infinite"):
        paired_test([1.0, np.inf], [1.0, 0.0])
    with pytest.raises(ValueError, match="'alpha' parameter"):
        paired_test([1.0], [0.0], alpha=5)


def test_holm_by_hand():
    # sorted 0.005, 0.01, 0.03, 0.04 -> 4*0.005, 3*0.01, 2*0.03, max(1*0.04, 0.06)
    assert holm([0.01, 0.04, 0.03, 0.005]).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.6]).tolist() == pytest.approx([1.0, 1.0])


def test_compare_to_baseline_decides_with_holm():
    base = pd.Series([0.0] * 8 + [1.0] * 52)
    systems = {"same": base.copy(), "seven": pd.Series([1.0] * 7 + [0.0] + [1.0] * 52),
               "eight": pd.Series([1.0] * 60)}
    table = compare_to_baseline(base, systems)
    assert list(table.index) == ["same", "seven", "eight"]
    assert table.loc["seven", "p_value"] == pytest.approx(2 / 2**7)  # 7 wins, 0 losses
    assert table.loc["eight", "p_holm"] == pytest.approx(3 * 2 / 2**8)
    assert table.loc["seven", "p_holm"] == pytest.approx(2 * 2 / 2**7)  # 0.03125
    assert list(table["verdict"]) == ["within noise", "better", "better"]
    assert table.loc["same", "within_noise"] and not table.loc["eight", "within_noise"]


def test_a_holm_adjusted_p_of_exactly_alpha_is_within_noise_and_says_why():
    import dataclasses

    t = paired.paired_test([0.0] * 6 + [1.0] * 54, [1.0] * 60, measure="hit@3")
    assert t.p_value < 0.05
    at_alpha = dataclasses.replace(t, p_holm=0.05, decided_by="p_holm", verdict="within noise")
    assert "On its own this change would count" in paired._sentence(at_alpha)
    below = dataclasses.replace(at_alpha, p_holm=0.049, verdict="better")
    assert "On its own this change would count" not in paired._sentence(below)


def test_paired_verdict_primary_decides_the_others_are_holm_adjusted():
    n = 60
    a = pd.DataFrame({"hit@1": [0.0] * 8 + [1.0] * 52, "hit@3": [0.0] * 6 + [1.0] * 54,
                      "mrr": [0.5] * 6 + [1.0] * 54}, index=[f"q{i}" for i in range(n)])
    b = pd.DataFrame({"hit@1": [1.0] * n, "hit@3": [1.0] * n, "mrr": [1.0] * n}, index=a.index)
    v = paired_verdict(a, b, ["hit@1", "hit@3", "mrr"], primary="hit@1", name_a="old", name_b="new")
    assert v.verdict == "better" and v.primary_test.role == "primary" and v.primary_test.p_holm is None
    hit3, mrr = v["hit@3"], v["mrr"]
    assert hit3.p_value == pytest.approx(2 / 64)  # 6 wins: significant on its own
    assert [hit3.p_holm, mrr.p_holm] == pytest.approx(list(holm([hit3.p_value, mrr.p_value])))  # over the others
    assert hit3.p_holm > 0.05 and hit3.verdict == "within noise" and hit3.ci_low > 0 and hit3.decided_by == "p_holm"
    assert "after Holm's correction it is within noise" in hit3.sentence
    assert mrr.values == "continuous" and mrr.method.startswith("bounded-mean test")
    table = v.table()
    assert list(table.index) == ["hit@1", "hit@3", "mrr"] and list(table["role"])[:2] == ["primary", "secondary"]
    json.dumps(v.to_dict())
    assert v.sentence.startswith("new against old -- hit@1:")
    with pytest.raises(ValueError, match="missing from a run"):
        paired_verdict(a, b, ["hit@1", "ndcg@5"])


def test_paired_test_at_alpha_0_01_and_with_one_discordant_question():
    r = paired_test([0.0] * 30 + [1.0] * 30, [1.0] * 60, alpha=0.01)
    assert r.alpha == pytest.approx(0.01) and r.delta == 0.5 and not r.within_noise
    noisy = paired_test([0.0] + [1.0] * 64, [1.0] * 65)
    assert noisy.within_noise and noisy.ci_low <= 0 < noisy.ci_high  # one discordant question: p = 1


# ---- planning ----------------------------------------------------------------------------------------------------

def test_rejection_region_equals_the_tests_own_p():
    w, m = np.array([(w, m) for m in range(0, 200) for w in range(m + 1)]).T
    for alpha in (0.05, 0.01, 0.2):
        rejected = sign_test(w, m - w, 400, alpha=alpha)["p"] < alpha
        c = planning._reject_from(m, alpha)
        assert (rejected == ((w >= c) | (w <= m - c))).all()


def test_exact_power_by_brute_force_and_by_simulation():
    n, delta, psi = 20, 0.25, 0.4
    pi = (1 + delta / psi) / 2
    brute = sum(sps.binom.pmf(m, n, psi) * sps.binom.pmf(w, m, pi)
                for m in range(n + 1) for w in range(m + 1) if m and sps.binomtest(w, m).pvalue < 0.05)
    assert exact_power(n, delta, psi) == pytest.approx(brute, abs=1e-12)
    rng = np.random.default_rng(0)
    n = 120
    m = rng.binomial(n, 0.1, 40_000)
    w = rng.binomial(m, (1 + 0.05 / 0.1) / 2)
    simulated = np.mean(sign_test(w, m - w, n)["p"] < 0.05)
    assert exact_power(n, 0.05, 0.1) == pytest.approx(simulated, abs=0.01)


def test_questions_needed_never_below_what_the_exact_test_resolves():
    q = questions_needed_binary(0.05, 0.1)
    assert exact_power(q, 0.05, 0.1) >= 0.8 > exact_power(q - 1, 0.05, 0.1)
    assert questions_needed(0.05, discordant_rate=0.1) == q
    assert questions_needed_binary(1.0, 1.0) == 6  # every question differs and is won: 6 is the floor at 0.05
    assert questions_needed(0.5, 0.01) == 6        # the former normal approximation said 2
    assert questions_needed(0.05, 0.01, discordant_rate=0.1) == 60  # 6 that differ at a rate of 10%
    assert questions_needed(0.1, 0.01, discordant_rate=0.1) == 60  # a gain equal to the rate: every one won
    with pytest.raises(ValueError, match="needs at least 50.0% of the questions to differ"):
        questions_needed(0.5, 0.01, discordant_rate=0.1)  # a mean in [0, 1] moves at most by the share that differs
    assert questions_needed(0.2, 0.1, alpha=0.01) >= min_discordant(0.01)
    with pytest.raises(ValueError, match="needs at least 20.0% of the questions to differ"):
        questions_needed_binary(0.2, 0.05)
    with pytest.raises(ValueError, match="'delta' parameter must be > 0"):
        questions_needed(0, 1.0)
    with pytest.raises(ValueError, match="no question changed"):
        questions_needed(0.05, 0.0)


def test_continuous_planning_is_the_t_approximation():
    n = questions_needed(0.05, 0.19)
    assert minimum_detectable_difference(n, 0.19) <= 0.05 < minimum_detectable_difference(n - 1, 0.19)
    t = sps.t.ppf(0.975, 99) + sps.t.ppf(0.8, 99)
    assert minimum_detectable_difference(100, 1.0) == pytest.approx(t / 10)
    rng = np.random.default_rng(5)  # true difference = MDD: the paired t-test rejects about 80% of the time
    n, sd = 60, 0.2
    delta = minimum_detectable_difference(n, sd)
    rejections = np.mean(sps.ttest_1samp(rng.normal(delta, sd, (4000, n)), 0, axis=1).pvalue < 0.05)
    assert 0.77 < rejections < 0.83


def test_sample_size_from_two_runs():
    a = pd.Series([0.0] * 6 + [1.0] * 59)
    b = pd.Series([1.0] * 3 + [0.0] * 3 + [1.0] * 59)  # 3 wins, 0 losses... and 3 stay 0
    plan = sample_size(a, b, 0.02)
    assert plan.values == "binary" and plan.discordant_rate == pytest.approx(3 / 65)
    assert plan.questions == questions_needed_binary(0.02, 3 / 65) and plan.floor == math.ceil(6 / (3 / 65))
    too_big = sample_size(a, b, 0.2)
    assert too_big.questions is None and "needs at least 20.0%" in too_big.note
    none = sample_size(a, a, 0.05)
    assert none.questions is None and "no question differs" in none.note
    c = pd.Series(np.r_[np.full(30, 0.5), np.ones(35)])
    d = pd.Series(np.r_[np.ones(10), np.full(20, 0.5), np.ones(35)])
    plan = sample_size(c, d, 0.05)
    assert plan.values == "continuous" and plan.questions >= plan.floor == math.ceil(6 / (10 / 65))
    json.dumps(plan.to_dict())


def test_interval_width_shrinks_with_questions():
    values = np.r_[np.ones(60), np.zeros(20)]
    widths = planning.interval_width_by_size(values, [20, 80, 320], n_resamples=2000)
    assert widths.is_monotonic_decreasing
    assert widths[320] == pytest.approx(widths[80] / 2, rel=0.15)  # ~ 1/sqrt(n)
    # exact expected Clopper-Pearson width: the average over simulated sets agrees
    rng = np.random.default_rng(0)
    x = rng.binomial(80, 0.75, 20_000)
    lo, hi = clopper_pearson(x, 80)
    assert widths[80] == pytest.approx(np.mean(hi - lo), rel=0.01)
    diffs = np.r_[np.ones(5), -np.ones(1), np.zeros(59)]
    paired_widths = planning.interval_width_by_size(diffs, [65, 260], paired=True, n_sets=200)
    assert paired_widths.is_monotonic_decreasing


def test_mean_table_is_mean_interval_per_row():
    """The one mean-with-interval table: each cell is mean_interval of that column; a missing measure stays empty;
    repeated labels keep their own rows (history saves runs under one name)."""
    from rag_metrics.stats.intervals import mean_interval, mean_table

    a = pd.DataFrame({"hit@5": [1, 0, 1, np.nan], "mrr": [1.0, 0.0, 0.5, 0.25]})
    b = pd.DataFrame({"hit@5": [0, 0, 1, 1]})
    table = mean_table([("x", a), ("x", b)], ["hit@5", "mrr"], n_resamples=2000)
    assert list(table.index) == ["x", "x"] and table.index.name == "run"
    assert table["n"].tolist() == [3, 4]
    for i, frame in enumerate((a, b)):
        iv = mean_interval(frame["hit@5"], n_resamples=2000)
        assert (table["hit@5"].iloc[i], table["hit@5 low"].iloc[i], table["hit@5 high"].iloc[i]) == (iv.mean, iv.low,
                                                                                                       iv.high)
    assert table["mrr"].iloc[0] == 0.4375 and np.isnan(table["mrr"].iloc[1])
    assert table["hit@5"].iloc[0] == pytest.approx(2 / 3)


@pytest.mark.parametrize("alpha", [0, -0.05, 0.51, 1, 1.0, True, "0.05", float("nan")])
def test_every_entry_point_refuses_the_same_bad_alpha_with_the_same_message(alpha):
    """One check (rag_metrics.core.errors.check_alpha) for the paired test, the verdict, the planner and the report:
    a level in (0, 0.5]; 0.5 itself is accepted, just above it is not."""
    from rag_metrics.stats.planning import questions_needed
    from rag_metrics.experiment.verdict import verdict
    from rag_metrics.core.errors import InputError, check_alpha

    calls = [lambda: paired_test([0.0, 1.0], [1.0, 1.0], alpha=alpha),
             lambda: verdict({"q1": 0.0, "q2": 1.0}, {"q1": 1.0, "q2": 1.0}, "hit@3", alpha=alpha),
             lambda: questions_needed(0.2, discordant_rate=0.5, alpha=alpha),
             lambda: check_alpha(alpha)]
    for call in calls:
        with pytest.raises(InputError, match=r"'alpha' parameter must be a significance level in \(0, 0.5\]"):
            call()
    assert check_alpha(0.5) == 0.5 and check_alpha(1e-9) == 1e-9


# ---- at the edges, by value ----------------------------------------------------------
# Intervals, paired tests and agreement at their edges, by value and against independent references (scipy,
# scikit-learn, full enumeration): both tails of an interval, a p exactly at alpha, Holm's multipliers, the observed
# assignment of a randomization test, a grade exactly at the relevance level, kappa and item counts at their minimum.


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


def test_holm_multipliers_by_hand_at_and_around_alpha():
    # sorted 0.01 (x3), 0.03 (x2), 0.04 (x1), running maximum
    assert holm([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.2, 0.5]).tolist() == pytest.approx([0.4, 0.5])
    assert holm([0.6, 0.7]).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("n", [6, 7, 20])
def test_the_interval_holds_the_change_when_every_question_moves_by_the_same_amount(n):
    # the former test: the tolerance taken off and added back rounded the end past the mean (-0.49999999999999994)
    r = randomization_rows(np.full((1, n), -0.5))
    assert r["low"][0] <= -0.5 <= r["high"][0] < 0
    # the bounded-mean test: the interval holds the change; n questions all down by 0.5 are "worse" only from
    # n = 10 (p = 2 (2/3)^n: 0.18 at 6, 0.12 at 7, 0.052 at 9, 0.035 at 10 -- one unseen +1 among n + 1 could
    # offset them)
    t = paired.paired_test([0.5] * n, [0.0] * n, measure="mrr")
    assert t.ci_low <= t.delta == -0.5 <= t.ci_high and (t.verdict == "worse") == (n == 20) and (t.ci_high < 0) == (n == 20)
    up = paired.paired_test([0.0] * n, [0.5] * n, measure="mrr")
    assert up.ci_low <= up.delta == 0.5 <= up.ci_high and (up.verdict == "better") == (n == 20)


def test_paired_t_test_takes_two_pairs_and_not_one():
    t, p = paired_t_test([0.0, 0.0], [0.2, 0.6])
    expected = sps.ttest_rel([0.2, 0.6], [0.0, 0.0])
    assert (t, p) == pytest.approx((expected.statistic, expected.pvalue))
    assert all(math.isnan(x) for x in paired_t_test([0.0], [1.0]))
    assert all(math.isnan(x) for x in paired_t_test([0.0, 0.0], [0.5, 0.5]))  # no spread: no t


def test_paired_t_test_equals_scipy_on_every_variation():
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
    k = agreement(grades, human_frame, n_resamples=200).kappa
    assert k.kappa == pytest.approx(0.6)
    # the rule reads the interval's lower end: usable exactly at it, refused just above it or with one item more
    at = agreement(grades, human_frame, min_kappa=k.low, min_items=10, n_resamples=200)
    assert at.usable and at.verdict.startswith("usable")
    assert not agreement(grades, human_frame, min_kappa=k.low + 0.01, min_items=10, n_resamples=200).usable
    assert not agreement(grades, human_frame, min_kappa=k.low, min_items=11, n_resamples=200).usable
    assert not agreement(grades, human_frame, min_kappa=k.kappa, min_items=10, n_resamples=200).usable


def test_mean_interval_takes_confidence_from_one_half_up_to_but_not_1_and_100_or_more_resamples():
    from rag_metrics import InputError

    values = [1.0, 0.5, 1 / 3, 0.0, 1.0, 1.0, 0.25]
    half, wide = mean_interval(values, confidence=0.5, n_resamples=100), mean_interval(values, confidence=0.95)
    assert half.low <= half.mean <= half.high and half.high - half.low < wide.high - wide.low
    for bad in (0.4999, 1.0):
        with pytest.raises(InputError, match=r"confidence.*\[0\.5, 1\)"):
            mean_interval(values, confidence=bad)
    with pytest.raises(InputError, match="n_resamples.*>= 100"):
        mean_interval(values, n_resamples=99)


def test_a_change_equal_to_the_discordant_rate_up_to_rounding_is_planned_not_refused():
    # 0.1 + 0.2 is 0.30000000000000004: a change that large needs every differing question to move one way
    delta = 0.1 + 0.2
    assert delta > 0.3
    power = planning.exact_power(40, delta, 0.3)
    assert 0 < power <= 1 and power == pytest.approx(planning.exact_power(40, 0.3, 0.3))
    from rag_metrics import InputError

    with pytest.raises(InputError, match="cannot happen"):
        planning.exact_power(40, 0.31, 0.3)


def test_the_minimum_detectable_difference_needs_two_questions():
    from rag_metrics import InputError

    assert math.isfinite(planning.minimum_detectable_difference(2, 0.5))
    with pytest.raises(InputError, match="'n' parameter must be an int >= 2"):
        planning.minimum_detectable_difference(1, 0.5)


# ---- the bounded-mean test (issue 47, item 9): exact references ---------------------------------------------------

def _spacings_above(c, t=0):
    """P(sum_j c_j U_j > t) for U uniform on the simplex and distinct c_j, exactly (fractions): the divided-difference
    formula sum_j (c_j - t)_+^(N-1) / prod_{k != j} (c_j - c_k) (Weisberg 1971) -- independent of any sampling."""
    from fractions import Fraction

    c = [Fraction(v) for v in c]
    total = Fraction(0)
    for j, cj in enumerate(c):
        if cj > t:
            den = Fraction(1)
            for k, ck in enumerate(c):
                if k != j:
                    den *= cj - ck
            total += (cj - t) ** (len(c) - 1) / den
    return total


@pytest.mark.parametrize("d", [("3/5", "2/5", "1/5"), ("-1/2", "-3/10", "1/10"), ("7/10", "-1/5", "1/2", "3/10")])
def test_bounded_mean_p_equals_the_exact_distribution_of_the_weighted_mean(d):
    """p_low = P(M_low <= 0) and p_high = P(M_high >= 0) with one weight on the bound: at 3 and 4 questions, exactly
    from the closed form, and the package's p from 400,000 draws within Monte Carlo error."""
    from fractions import Fraction

    from rag_metrics.stats.bounded_mean import bounded_mean_rows

    p_low = 1 - _spacings_above(["-1", *d])
    p_high = _spacings_above([*d, "1"])
    exact = float(min(Fraction(1), 2 * min(p_low, p_high)))
    x = np.array([[float(Fraction(v)) for v in d]])
    ours = float(bounded_mean_rows(x, n_resamples=400_000, seed=7)["p"][0])
    assert ours == pytest.approx(max(exact, 2.0 ** (1 - len(d))), abs=0.005)


@pytest.mark.parametrize("n, change", [(2, -0.5), (3, 0.25), (20, -0.1), (20, 0.3), (20, -0.9)])
def test_bounded_mean_p_when_every_question_moves_alike(n, change):
    """Every change c: P(M <= 0 or >= 0 on c's side) = E exp(-|c| Gamma(n)) = (1 + |c|)^-n, so p = 2 (1 + |c|)^-n,
    never below 2^(1 - n) (the limit at |c| = 1, the bound) -- in both directions, at 2, 3 and 20 questions."""
    t = paired_test([0.5 - change / 2] * n, [0.5 + change / 2] * n, n_resamples=200_000, seed=3)
    assert t.method.startswith("bounded-mean test") and t.delta == pytest.approx(change)
    assert t.p_value == pytest.approx(min(1.0, 2 * (1 + abs(change)) ** -n), abs=0.004, rel=0.02)
    assert t.p_value >= t.min_p == min(1.0, 2.0 ** (1 - n)) and t.ci_low <= change <= t.ci_high


def test_the_bounded_mean_interval_is_the_set_of_changes_the_test_does_not_reject():
    """The test of d - mu0 within (1 + mu0, 1 - mu0), on the same draws, is the test at mu0: at the interval's ends
    it does not reject (up to rounding in the last bit, hence 1e-9 inside), just outside them it does (p < alpha),
    in both directions."""
    from rag_metrics.stats.bounded_mean import bounded_mean_rows

    rng = np.random.default_rng(9)
    d = np.where(rng.random(65) < 0.4, np.clip(rng.normal(0.15, 0.25, 65), -1, 1), 0.0)[None, :]
    r = bounded_mean_rows(d, n_resamples=20_000, seed=1)
    low, high = float(r["low"][0]), float(r["high"][0])
    assert low < d.mean() < high

    def p_at(mu0):
        return float(bounded_mean_rows(d - mu0, n_resamples=20_000, seed=1, bound=(1 + mu0, 1 - mu0))["p"][0])

    assert p_at(low + 1e-9) >= 0.05 and p_at(high - 1e-9) >= 0.05 and p_at(d.mean()) == 1.0
    assert p_at(low - 1e-9) < 0.05 and p_at(high + 1e-9) < 0.05


def test_paired_test_on_graded_values_is_the_bounded_mean_test_of_its_changes():
    from rag_metrics.stats.bounded_mean import bounded_mean_rows

    rng = np.random.default_rng(4)
    a = rng.choice([1.0, 0.5, 1 / 3, 0.0], 40)
    b = np.clip(a + rng.choice([0.0, 0.0, 0.5, -1 / 3, 0.2], 40), 0, 1)
    t = paired_test(a, b, n_resamples=5000, seed=2)
    r = bounded_mean_rows((b - a)[None, :], n_resamples=5000, seed=2)
    assert (t.p_value, t.ci_low, t.ci_high) == (float(r["p"][0]), float(r["low"][0]), float(r["high"][0]))
    assert t.resamples == 5000 and t.interval_method.startswith("inversion of the same bounded-mean test")
    # values outside [0, 1]: the bound is their observed range, and the method says so
    wide = paired_test([0.0, 2.0, 1.0, 3.0], [1.0, 2.5, 1.0, 3.0], n_resamples=500)
    assert wide.method.endswith("changes within +-3, the observed range of the values)")


def test_bounded_mean_draws_in_chunks_and_the_grouped_path_agree():
    from rag_metrics.stats.bounded_mean import bounded_mean_rows

    rng = np.random.default_rng(5)
    d = rng.choice([0.0, 0.5, -0.5, 1 / 3, -0.25], 400)
    one = bounded_mean_rows(d[None, :], n_resamples=3000, chunk=3000, seed=1)
    assert all(np.array_equal(one[k], bounded_mean_rows(d[None, :], n_resamples=3000, chunk=61, seed=1)[k])
               for k in one), "chunking changes nothing"
    grouped = bounded_mean_rows(d[None, :], n_resamples=40_000, seed=1)            # Gamma(count) per value
    rows = bounded_mean_rows(np.vstack([d, d]), n_resamples=40_000, seed=2)        # Exp(1) per question
    for k, tol in (("p", 0.01), ("low", 0.003), ("high", 0.003)):
        assert float(grouped[k][0]) == pytest.approx(float(rows[k][0]), abs=tol)
