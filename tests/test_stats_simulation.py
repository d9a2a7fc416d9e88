"""Measured error rates of the statistics the package reports, by simulation (seeded, all sets at once).

Golden sets are drawn from a known truth at the sizes teams use (30, 65, 200 questions):

* **coverage** -- the share of simulated golden sets whose 95% interval (``mean_interval_rows``, what
  ``mean_interval`` computes for one set) holds the true mean must be at least 0.93 over >= 1,000 sets, for hit
  rates 0.5, 0.9, 0.97 (0/1 values) and for MRR- and nDCG-like values; the percentile bootstrap the package used
  before must fail that bound at n = 65, rate 0.97 (so the check can fail);
* **false alarms** -- where nothing changed (two runs whose per-question values are exchangeable), the paired
  verdict (``sign_test`` / ``randomization_rows``, what ``paired_test`` computes for one pair) may call "changed"
  in at most 5.5% of the sets.

The bootstrap and the sign flips use 1,000 resamples here (the package's default is 10,000): fewer resamples
make intervals noisier, so the measured coverage is if anything lower than the default's. The simulated sets of
one case share their resampling indices and sign flips (each set's interval is still the package's, computed
as for that set alone); ``benchmarks/error_rates.py`` prints the same figures for more cases.
"""

import numpy as np
import pytest

from rag_metrics.stats.intervals import bootstrap_means, mean_interval_rows, percentile_rows
from rag_metrics.stats.paired import randomization_rows, sign_test

SIZES = (30, 65, 200)
RATES = (0.5, 0.9, 0.97)
B = 1000

# MRR of a retriever whose first gold document is at rank r with these probabilities (r > 10: not found, 0)
MRR_MID = (np.array([1, 1 / 2, 1 / 3, 1 / 4, 1 / 5, 1 / 7, 1 / 10, 0.0]),
           np.array([0.55, 0.15, 0.08, 0.05, 0.04, 0.04, 0.04, 0.05]))
MRR_HIGH = (np.array([1, 1 / 2, 1 / 3, 0.0]), np.array([0.85, 0.07, 0.03, 0.05]))


def draw_mrr(rng, population, size):
    values, probs = population
    return values[rng.choice(values.size, size=size, p=probs)]


def draw_ndcg(rng, size):
    """nDCG-like values: continuous in (0, 1), a mass at 1 (gold at rank 1) and at 0 (nothing found)."""
    v = rng.beta(2, 1.2, size=size)
    u = rng.random(size)
    return np.where(u < 0.15, 1.0, np.where(u > 0.93, 0.0, v))


NDCG_MEAN = 0.15 + 0.78 * 2 / 3.2  # 0.15 * 1 + 0.78 * E[Beta(2, 1.2)] + 0.07 * 0


def coverage(low, high, truth):
    return float(np.mean((low <= truth) & (truth <= high)))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("rate", RATES)
def test_hit_rate_intervals_cover_the_true_rate(n, rate):
    rng = np.random.default_rng(1000 + n + int(rate * 100))
    sets = (rng.random((4000, n)) < rate).astype(float)
    r = mean_interval_rows(sets)
    assert set(r["method"]) == {"Clopper-Pearson"}
    assert coverage(r["low"], r["high"], rate) >= 0.93
    assert (r["high"] > r["low"]).all()  # never zero width, even for the sets where every question hits


def test_the_former_percentile_interval_fails_the_bound_where_it_was_seen_to_fail():
    rng = np.random.default_rng(65)
    sets = (rng.random((4000, 65)) < 0.97).astype(float)
    low, high = percentile_rows(bootstrap_means(sets, B, seed=1))
    assert coverage(low, high, 0.97) < 0.93  # ~0.85 measured: the test above can fail
    r = mean_interval_rows(sets)
    assert coverage(r["low"], r["high"], 0.97) >= 0.93


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("measure", ["mrr_mid", "mrr_high", "ndcg"])
def test_continuous_intervals_cover_the_true_mean(n, measure):
    rng = np.random.default_rng(2000 + n)
    if measure == "ndcg":
        sets, truth = draw_ndcg(rng, (3000, n)), NDCG_MEAN
    else:
        population = MRR_MID if measure == "mrr_mid" else MRR_HIGH
        sets, truth = draw_mrr(rng, population, (3000, n)), float(population[0] @ population[1])
    r = mean_interval_rows(sets, n_resamples=B, seed=n)
    assert "BCa bootstrap" in set(r["method"])
    assert coverage(r["low"], r["high"], truth) >= 0.93


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("rate", RATES)
def test_the_sign_test_rarely_calls_a_change_where_nothing_changed(n, rate):
    rng = np.random.default_rng(3000 + n + int(rate * 100))
    a = rng.random((4000, n)) < rate
    # b repeats a on 80% of the questions and is a fresh draw at the same rate on the rest: nothing changed
    b = np.where(rng.random((4000, n)) < 0.8, a, rng.random((4000, n)) < rate)
    wins, losses = (b & ~a).sum(axis=1), (a & ~b).sum(axis=1)
    r = sign_test(wins, losses, n)
    assert np.mean(r["p"] < 0.05) <= 0.055
    assert ((r["low"] > 0) | (r["high"] < 0) == (r["p"] < 0.05)).all()


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("measure", ["mrr_mid", "ndcg"])
def test_the_randomization_test_rarely_calls_a_change_where_nothing_changed(n, measure):
    rng = np.random.default_rng(4000 + n)
    size = (4000, n)
    draw = (lambda s: draw_ndcg(rng, s)) if measure == "ndcg" else (lambda s: draw_mrr(rng, MRR_MID, s))
    a = draw(size)
    b = np.where(rng.random(size) < 0.6, a, draw(size))  # same questions, exchangeable runs
    r = randomization_rows(b - a, n_resamples=B - 1, seed=n)
    assert np.mean(r["p"] < 0.05) <= 0.055
    assert ((r["low"] > 0) | (r["high"] < 0) == (r["p"] < 0.05)).all()
