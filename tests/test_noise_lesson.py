"""Notebook 07's coverage curve and sentences (rag_metrics.lab.noise_lesson): the exact coverage agrees with a
simulation, Clopper--Pearson never falls short, and each claim is on the right side of its boundary."""

import numpy as np
import pandas as pd
import pytest

from rag_metrics.stats.intervals import bootstrap_means, clopper_pearson, percentile_rows
from rag_metrics.lab.noise_lesson import (PACKAGE, PERCENTILE, SHORT_BY, coverage_bands, coverage_claims,
                                             coverage_curve, noise_band_claim)


def test_exact_coverage_agrees_with_a_simulation():
    n, rate, sets = 40, 0.93, 4000
    curve = coverage_curve(n, confidence=0.95, n_resamples=2000, rates=[rate])
    drawn = (np.random.default_rng(3).random((sets, n)) < rate).astype(float)
    lo, hi = clopper_pearson(drawn.sum(axis=1), n, 0.95)
    simulated = np.mean((lo <= rate) & (rate <= hi))
    assert abs(curve.at[rate, PACKAGE] - simulated) < 3 * np.sqrt(0.05 * 0.95 / sets)
    # the percentile interval of a golden set depends only on its number of hits: the same resamples, any order
    k = int(drawn[0].sum())
    ordered = (np.arange(n) < k).astype(float)
    assert np.allclose(percentile_rows(bootstrap_means(ordered[None, :], 2000, seed=1), 0.95),
                       percentile_rows(bootstrap_means(np.sort(drawn[0])[::-1][None, :], 2000, seed=1), 0.95))


def test_percentile_interval_fails_where_every_question_hits():
    n, rate = 65, 0.99
    curve = coverage_curve(n, confidence=0.95, n_resamples=2000, rates=[0.5, rate])
    assert curve.at[rate, PERCENTILE] <= 1 - rate**n + 1e-12  # every question hit: [1, 1], which misses 0.99
    assert (curve[PACKAGE] >= 0.95).all()


def test_bands_take_each_bands_lowest_coverage():
    curve = pd.DataFrame({PERCENTILE: [0.9, 0.8, 0.95], PACKAGE: [0.96, 0.97, 0.99]},
                         index=pd.Index([0.6, 0.7, 0.97], name="true hit rate"))
    bands = coverage_bands(curve)
    assert list(bands.index) == ["0.50 to < 0.80", "0.95 to 0.99"]
    assert bands.loc["0.50 to < 0.80", PERCENTILE] == 0.8 and bands.loc["0.95 to 0.99", PACKAGE] == 0.99


def test_a_rate_on_a_band_boundary_is_in_one_band_only():
    curve = pd.DataFrame({PERCENTILE: [0.9, 0.5], PACKAGE: [0.96, 0.97]},
                         index=pd.Index([0.7, 0.8], name="true hit rate"))
    bands = coverage_bands(curve)
    assert list(bands.index) == ["0.50 to < 0.80", "0.80 to < 0.90"]
    assert bands.loc["0.50 to < 0.80", PERCENTILE] == 0.9 and bands.loc["0.80 to < 0.90", PERCENTILE] == 0.5


def test_no_golden_set_is_refused():
    with pytest.raises(ValueError, match="at least 1 question"):
        coverage_curve(0, confidence=0.95, n_resamples=100)


def test_noise_band_is_claimed_only_beyond_two_questions():
    wide = noise_band_claim(0.9, 0.8, 0.95, 65, measure="hit@1", name="a", confidence=0.95)
    assert wide["condition"] and "10.0 points below or 5.0 above" in wide["text_if_true"]
    at = noise_band_claim(0.5, 0.5, 0.53125, 64, measure="hit@1", name="a", confidence=0.95)  # exactly 2 questions
    assert not at["condition"]
    assert noise_band_claim(0.5, 0.5, 0.532, 64, measure="hit@1", name="a", confidence=0.95)["condition"]


def _curve(pct):
    rates = [0.6, 0.92, 0.97]
    return pd.DataFrame({PERCENTILE: pct, PACKAGE: [0.95, 0.96, 0.97]}, index=pd.Index(rates, name="true hit rate"))


def test_falls_short_needs_a_shortfall_in_the_top_band():
    edge = 0.95 - SHORT_BY
    short_top, fine_top, equal = (coverage_claims(_curve(p), confidence=0.95, n=65)[0]
                                  for p in ([0.94, 0.94, edge - 0.001], [0.5, 0.5, 0.95], [0.95, 0.95, edge]))
    assert short_top["condition"] and short_top["figures"]["short_rates"] == [0.97]
    assert "1 of the 3 true rates drawn, 1 of them above 0.90" in short_top["text_if_true"].replace("\n", "")
    assert not fine_top["condition"] and fine_top["figures"]["high_short"] == 1  # short at 0.92 only: not the top
    assert not equal["condition"] and equal["figures"]["short_rates"] == []  # exactly SHORT_BY below: not short


def test_package_interval_covers_at_the_nominal_level_exactly():
    ok = coverage_claims(_curve([0.9, 0.9, 0.9]), confidence=0.95, n=65)[1]
    assert ok["condition"]
    low = _curve([0.9, 0.9, 0.9])
    low.iloc[0, 1] = 0.9499
    assert not coverage_claims(low, confidence=0.95, n=65)[1]["condition"]


def test_own_values_short_only_beyond_the_simulations_noise():
    from rag_metrics.lab.noise_lesson import own_values_claim

    noise = 2 * np.sqrt(0.95 * 0.05 / 2000)
    short = own_values_claim(0.95 - noise - 1e-6, 0.96, sets=2000, confidence=0.95, truth=0.9, method="x")
    within = own_values_claim(0.95 - noise + 1e-6, 0.96, sets=2000, confidence=0.95, truth=0.9, method="x")
    assert short["condition"] and not within["condition"] and "within the simulation's noise" in within["text_if_false"]


def test_the_shortfall_is_called_slight_below_three_points_and_plain_yes_beyond():
    from rag_metrics.lab.noise_lesson import SLIGHTLY, own_values_claim

    slight = own_values_claim(0.935, 0.964, sets=2000, confidence=0.95, truth=0.908, method="x")
    assert slight["condition"] and slight["text_if_true"].startswith("**Slightly: 93.5% instead of 95%.**")
    edge = own_values_claim(0.95 - SLIGHTLY, 0.96, sets=2000, confidence=0.95, truth=0.9, method="x")
    assert edge["text_if_true"].startswith("**Yes: 92.0% instead of 95%.**")  # three points: no longer slight
    just = own_values_claim(0.95 - SLIGHTLY + 1e-6, 0.96, sets=2000, confidence=0.95, truth=0.9, method="x")
    assert just["text_if_true"].startswith("**Slightly")
    assert own_values_claim(0.95, 0.96, sets=2000, confidence=0.95, truth=0.9, method="x")["text_if_false"].startswith(
        "**No, not measurably here.**")


def test_the_golden_set_for_three_points_follows_the_spread():
    from rag_metrics.lab.noise_lesson import margin_claim, questions_for_margin

    hits = np.array([1.0] * 59 + [0.0] * 6)  # 0.908: sd sqrt(p(1 - p)) = 0.289
    assert questions_for_margin(hits, 0.03, confidence=0.95) == 358  # (1.96 * 0.289 / 0.03)^2 = 357.1, up
    assert questions_for_margin(np.full(10, 0.5), 0.03, confidence=0.95) is None  # no spread
    half = np.array([0.0, 1.0] * 10)  # sd 0.5: (1.96 * 0.5 / 0.03)^2 = 1067.1
    assert questions_for_margin(half, 0.03, confidence=0.95) == 1068
    c = margin_claim(hits, measure="hit@1", confidence=0.95)
    assert c["condition"] and "**358 questions**" in c["text_if_true"] and "has 65" in c["text_if_true"]
    flat = margin_claim(np.ones(5), measure="hit@1", confidence=0.95)
    assert not flat["condition"] and "spread is 0" in flat["text_if_false"]


def test_the_noise_band_speaks_of_a_fixed_target_and_says_cannot_be_told_apart():
    text = noise_band_claim(0.9, 0.8, 0.95, 65, measure="hit@1", name="a", confidence=0.95)["text_if_true"]
    assert "a fixed target, or a figure measured on other questions" in text
    assert "cannot be told apart from noise" in text and "is noise" not in text
    assert "paired test" not in text  # said once, in the notebook's pitfall paragraph
    assert "last quarter" not in text
