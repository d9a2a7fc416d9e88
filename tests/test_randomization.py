"""The paired randomization test (rag_metrics.stats.randomization) against a literal enumeration of sign flips and
scipy's exact binomial interval, with the change in both directions, at n = 2, 3 and 20, with ties, and at its
documented thresholds (EXACT_MAX questions that differ, p < alpha)."""

import itertools

import numpy as np
import pytest
import scipy.stats as sps

from rag_metrics.stats.randomization import ALPHA, EXACT_MAX, randomization_rows


def _p_by_enumeration(x, mu=0.0):
    """Share of the 2^m sign assignments at least as extreme as the observed: |sum e (x - mu)| >= |sum (x - mu)|
    (``mu`` a number or an array of them: one p each)."""
    x = np.asarray(x, dtype=float)
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(x))))
    y = x[None, :] - np.atleast_1d(np.asarray(mu, dtype=float))[:, None]          # (mus, m)
    tol = 1e-9 * max(1.0, float(np.abs(x).max(initial=0.0))) * len(x)
    p = (np.abs(y @ signs.T) >= np.abs(y.sum(axis=1))[:, None] - tol).mean(axis=1)
    return p if np.ndim(mu) else float(p[0])


def _interval_by_definition(d, alpha=ALPHA, grid=2001):
    """Every mu (change of a question that differs) the enumeration does not reject, clipped to [-1, 1], times the
    Clopper--Pearson interval of the share that differ (scipy)."""
    d = np.asarray(d, dtype=float)
    x = d[d != 0]
    mus = np.linspace(-1, 1, grid)
    kept = mus[_p_by_enumeration(x, mus) >= alpha]
    mu_low, mu_high = kept.min(), kept.max()
    ci = sps.binomtest(len(x), len(d)).proportion_ci(confidence_level=1 - alpha, method="exact")
    low = ci.low * mu_low if mu_low >= 0 else ci.high * mu_low
    high = ci.high * mu_high if mu_high >= 0 else ci.low * mu_high
    return low, high


CASES = {
    "n2_one_way": [0.5, 0.25],
    "n2_mixed": [0.5, -0.25],
    "n3_tie": [0.3, 0.0, 0.3],
    "n3_mixed": [0.6, -0.2, 0.1],
    "n20_six_up": [0.2] * 6 + [0.0] * 14,
    "n20_skewed": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, -0.1, 0.15, 0.25] + [0.0] * 10,
    "n20_tied_sizes": [0.25] * 5 + [-0.25] * 2 + [0.5] * 3 + [0.0] * 10,
}


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("name", sorted(CASES))
def test_p_is_the_share_of_sign_flips_at_least_as_extreme_both_ways(name, sign):
    d = sign * np.array(CASES[name])
    r = randomization_rows(d)
    assert r["p"][0] == pytest.approx(_p_by_enumeration(d[d != 0]), abs=1e-12)
    assert r["m"][0] == int((d != 0).sum())
    assert bool(r["exact"][0])


@pytest.mark.parametrize("name", ["n3_mixed", "n20_six_up", "n20_skewed", "n20_tied_sizes"])
def test_the_interval_is_every_change_the_test_does_not_reject_times_the_share_that_differ(name):
    d = np.array(CASES[name])
    r = randomization_rows(d)
    low, high = _interval_by_definition(d)
    assert r["low"][0] == pytest.approx(low, abs=2e-3)
    assert r["high"][0] == pytest.approx(high, abs=2e-3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_swapping_the_runs_keeps_p_and_mirrors_the_interval(name):
    d = np.array(CASES[name])
    a, b = randomization_rows(d), randomization_rows(-d)
    assert b["p"][0] == a["p"][0]
    assert b["low"][0] == pytest.approx(-a["high"][0], abs=1e-12)
    assert b["high"][0] == pytest.approx(-a["low"][0], abs=1e-12)


@pytest.mark.parametrize("sign", [1, -1])
def test_the_interval_leaves_zero_out_exactly_when_p_is_below_alpha(sign):
    rng = np.random.default_rng(3)
    d = sign * np.round(rng.uniform(-0.3, 1.0, (300, 9)) * (rng.random((300, 9)) < 0.8), 2)
    r = randomization_rows(d)
    excludes = (r["low"] > 0) | (r["high"] < 0)
    assert (excludes == (r["p"] < ALPHA)).all()
    assert excludes.any() and not excludes.all()
    # the side the interval falls on is the side of the observed change
    moved = excludes & (d.sum(axis=1) != 0)
    assert (np.sign(r["low"][moved]) == np.sign(d.sum(axis=1)[moved])).all()


def test_five_questions_that_differ_cannot_reject_and_the_change_is_bounded_by_their_share():
    d = np.array([0.4] * 5 + [0.0] * 15)
    r = randomization_rows(d)
    assert r["p"][0] == pytest.approx(2 / 32)       # the smallest p of five flips: 2 of 32, above 0.05
    share_high = sps.binomtest(5, 20).proportion_ci(confidence_level=0.95, method="exact").high
    assert r["low"][0] == pytest.approx(-share_high, rel=1e-9)
    assert r["high"][0] == pytest.approx(share_high, rel=1e-9)
    six = randomization_rows(np.array([0.4] * 6 + [0.0] * 14))
    assert six["p"][0] == pytest.approx(2 / 64) and six["low"][0] > 0


def test_no_question_that_differs_gives_p_one():
    r = randomization_rows(np.zeros((2, 3)))
    assert (r["p"] == 1.0).all() and (r["m"] == 0).all()
    assert (r["low"] <= 0).all() and (r["high"] >= 0).all()


@pytest.mark.parametrize("m, exact", [(EXACT_MAX, True), (EXACT_MAX + 1, False)])
def test_every_assignment_is_enumerated_up_to_exact_max_and_drawn_beyond(m, exact):
    d = np.array([0.3, -0.1] * (m // 2) + [0.2] * (m % 2) + [0.0] * 3)
    r = randomization_rows(d, n_resamples=20_000)
    assert bool(r["exact"][0]) is exact
    ref = _p_by_enumeration(d[d != 0])
    assert r["p"][0] == pytest.approx(ref, abs=0 if exact else 0.02)
    # a lower exact_max sends the same row to the draws; a higher one brings it back
    assert bool(randomization_rows(d, exact_max=m - 1)["exact"][0]) is False
    assert bool(randomization_rows(d, exact_max=m)["exact"][0]) is True


def test_alpha_changes_the_interval_not_the_p():
    d = np.array(CASES["n20_skewed"])
    wide, narrow = randomization_rows(d, alpha=0.01), randomization_rows(d, alpha=0.2)
    assert wide["p"][0] == narrow["p"][0]
    assert wide["low"][0] < narrow["low"][0] and wide["high"][0] > narrow["high"][0]
    low, high = _interval_by_definition(d, alpha=0.2)
    assert narrow["low"][0] == pytest.approx(low, abs=2e-3) and narrow["high"][0] == pytest.approx(high, abs=2e-3)


def test_the_bound_clips_the_change_of_a_question_that_differs():
    d = np.array([2.0, 3.0, -1.0])   # values beyond [-1, 1]: only the bound says how far a change may go
    one, five = randomization_rows(d), randomization_rows(d, bound=5.0)
    assert one["p"][0] == five["p"][0]
    assert five["high"][0] > one["high"][0] and five["low"][0] < one["low"][0]
    assert one["high"][0] <= 1.0 and five["high"][0] == pytest.approx(5.0)


def test_seed_and_resamples_only_matter_beyond_exact_max():
    d = np.array([0.3, -0.1, 0.2] * 5)
    a, b = randomization_rows(d, seed=1, n_resamples=500), randomization_rows(d, seed=2, n_resamples=500)
    assert a["p"][0] != b["p"][0]
    assert randomization_rows(d, seed=1, n_resamples=500, chunk=7)["p"][0] == a["p"][0]
    small = d[:9]
    assert randomization_rows(small, seed=1)["p"][0] == randomization_rows(small, seed=2)["p"][0]


def test_one_row_of_few_distinct_changes_draws_counts_with_the_same_distribution():
    # 26 questions up by 0.1, 16 down by 0.1 (m = 42 > 20 x 2 distinct values: drawn as counts that keep their
    # sign): |sum e d| >= |observed| is |B - 21| >= 5 for B ~ Binomial(42, 1/2)
    d = np.array([0.1] * 26 + [-0.1] * 16)
    exact = float(sps.binom.cdf(16, 42, 0.5) + sps.binom.sf(25, 42, 0.5))
    for sign in (1, -1):
        r = randomization_rows(sign * d, n_resamples=20_000)
        assert not bool(r["exact"][0])
        assert r["p"][0] == pytest.approx(exact, abs=0.012)
