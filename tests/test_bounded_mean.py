"""The bounded-mean test (rag_metrics.stats.bounded_mean) against a literal implementation of its docstring on the
same Exp(1) draws, with the change in both directions, at n = 2, 3 and 20, with ties, and at its thresholds (the
floor 2^(1-m), the k-th draw of the interval, p < alpha exactly when the interval leaves 0 out)."""

import math

import numpy as np
import pytest

from rag_metrics.stats.bounded_mean import bounded_mean_rows


def _by_definition(d, *, alpha=0.05, n_resamples=2000, seed=0, bound=1.0):
    """One row, straight from the module docstring: weights G_0..G_n ~ Exp(1) drawn row by row from
    default_rng(seed); M_low = (sum G_i d_i - G_0 loss) / T, M_high = (sum G_i d_i + G_0 gain) / T."""
    d = np.asarray(d, dtype=float)
    loss, gain = (bound, bound) if np.ndim(bound) == 0 else bound
    g = np.random.default_rng(seed).standard_exponential((n_resamples, d.size + 1))
    t = g.sum(axis=1)
    m_low = (g[:, 1:] @ d - g[:, 0] * loss) / t
    m_high = (g[:, 1:] @ d + g[:, 0] * gain) / t
    b = n_resamples
    p = min(1.0, 2 * min((1 + (m_low <= 0).sum()) / (b + 1), (1 + (m_high >= 0).sum()) / (b + 1)))
    m = int((d != 0).sum())
    p = max(p, min(1.0, 2 * min((loss / (loss + gain)) ** m, (gain / (loss + gain)) ** m)))
    k = next(k for k in range(b + 2) if (1 + k) / (b + 1) >= alpha / 2)
    if 1 <= k <= b:
        low, high = np.sort(m_low)[k - 1], np.sort(m_high)[::-1][k - 1]
    else:
        low, high = -loss, gain
    if p >= alpha:
        low, high = min(low, 0.0), max(high, 0.0)
    return p, low, high


CASES = {
    "n2": [0.5, 0.25],
    "n2_mixed": [0.5, -0.25],
    "n3_tie": [0.3, 0.0, 0.3],
    "n3": [0.6, -0.2, 0.1],
    "n20_small_up": [0.2] * 12 + [0.0] * 8,
    "n20_skewed": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, -0.1, 0.15, 0.25] + [0.0] * 10,
    "n20_large": [0.5] * 15 + [-0.25] * 2 + [0.0] * 3,
}


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("name", sorted(CASES))
def test_p_and_interval_are_the_docstrings_on_the_same_draws_both_ways(name, sign):
    d = sign * np.array(CASES[name])
    r = bounded_mean_rows(d, n_resamples=2000)
    p, low, high = _by_definition(d)
    assert r["p"][0] == pytest.approx(p, abs=1e-12)
    assert r["low"][0] == pytest.approx(low, abs=1e-12)
    assert r["high"][0] == pytest.approx(high, abs=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_swapping_the_runs_keeps_p_and_mirrors_the_interval(name):
    d = np.array(CASES[name])
    a, b = bounded_mean_rows(d), bounded_mean_rows(-d)
    assert b["p"][0] == pytest.approx(a["p"][0], abs=1e-12)
    assert b["low"][0] == pytest.approx(-a["high"][0], abs=1e-12)
    assert b["high"][0] == pytest.approx(-a["low"][0], abs=1e-12)


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.2])
@pytest.mark.parametrize("seed", [0, 5])
def test_options_alpha_seed_and_an_asymmetric_bound_are_the_docstrings(alpha, seed):
    d = np.array(CASES["n20_skewed"])
    for bound in (1.0, (0.5, 2.0), (2.0, 0.5)):
        r = bounded_mean_rows(d, alpha=alpha, seed=seed, bound=bound, n_resamples=1000)
        ref = _by_definition(d, alpha=alpha, seed=seed, bound=bound, n_resamples=1000)
        assert (r["p"][0], r["low"][0], r["high"][0]) == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("m, reachable", [(5, False), (6, True)])
def test_the_floor_two_to_the_one_minus_m_decides_what_can_reach_alpha(m, reachable):
    d = np.array([1.0] * m + [0.0] * (20 - m))        # every change as large as the bound: p is the floor
    r = bounded_mean_rows(d, n_resamples=4000)
    assert r["p"][0] == pytest.approx(2.0 ** (1 - m), rel=0.15)
    assert r["p"][0] >= 2.0 ** (1 - m) - 1e-12
    assert bool(r["p"][0] < 0.05) is reachable
    assert bool(r["low"][0] > 0) is reachable                # the interval leaves 0 out exactly when p < alpha
    flipped = bounded_mean_rows(-d, n_resamples=4000)
    assert bool(flipped["high"][0] < 0) is reachable


def test_the_floor_of_an_asymmetric_bound_is_that_of_its_shares():
    d = np.array([0.5] * 4 + [0.0] * 4)
    r = bounded_mean_rows(d, bound=(1.0, 0.5), n_resamples=500)   # loss 1, gain 0.5: floor 2 (1/3)^4
    assert r["p"][0] >= 2 * (1 / 3) ** 4 - 1e-12
    assert r["p"][0] == pytest.approx(_by_definition(d, bound=(1.0, 0.5), n_resamples=500)[0], abs=1e-12)


def test_too_few_draws_to_reject_give_the_whole_range():
    r = bounded_mean_rows(np.array([0.5, 0.5, 0.5]), n_resamples=20, alpha=0.05)   # k = 0: no draw can reject
    assert (r["low"][0], r["high"][0]) == (-1.0, 1.0)
    r = bounded_mean_rows(np.array([0.5, 0.5, 0.5]), n_resamples=20, bound=(0.5, 2.0))
    assert (r["low"][0], r["high"][0]) == (-0.5, 2.0)


def test_rows_chunks_and_the_interval_holding_zero_exactly_when_p_reaches_alpha():
    rng = np.random.default_rng(1)
    d = np.round(rng.uniform(-0.4, 0.8, (200, 20)) * (rng.random((200, 20)) < 0.7), 2)
    r = bounded_mean_rows(d, n_resamples=800)
    excludes = (r["low"] > 0) | (r["high"] < 0)
    assert (excludes == (r["p"] < 0.05)).all() and excludes.any() and not excludes.all()
    chunked = bounded_mean_rows(d, n_resamples=800, chunk=37)
    assert np.array_equal(chunked["p"], r["p"]) and np.array_equal(chunked["low"], r["low"])
    one = bounded_mean_rows(d[3], n_resamples=800)
    ref = _by_definition(d[3], n_resamples=800)
    assert (one["p"][0], one["low"][0], one["high"][0]) == pytest.approx(ref, abs=1e-12)
    assert math.isclose(r["p"][3], ref[0], abs_tol=1e-12)


@pytest.mark.parametrize("alpha, n_resamples", [(0.05, 399), (0.05, 799), (0.1, 199), (0.05, 400)])
def test_the_kth_draw_where_one_plus_k_over_b_plus_one_equals_alpha_over_two_exactly(alpha, n_resamples):
    # (B + 1) alpha / 2 a whole number: the interval's k sits exactly on the equality the docstring includes
    for name in ("n20_skewed", "n20_large", "n3"):
        d = np.array(CASES[name])
        r = bounded_mean_rows(d, alpha=alpha, n_resamples=n_resamples)
        ref = _by_definition(d, alpha=alpha, n_resamples=n_resamples)
        assert (r["p"][0], r["low"][0], r["high"][0]) == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("sign", [1, -1])
def test_one_row_of_few_distinct_changes_weighs_them_by_gamma_draws_with_the_same_distribution(sign):
    # 60 questions, 3 distinct changes (3 x 20 = 60 is not < 60; 61 is): drawn as one Gamma(count) weight each
    d = sign * np.array([0.2] * 30 + [0.0] * 21 + [-0.1] * 10)
    grouped = bounded_mean_rows(d, n_resamples=6000, seed=2)
    per_question = bounded_mean_rows(np.vstack([d, d]), n_resamples=6000, seed=2)    # two rows: Exp(1) each
    assert grouped["p"][0] == pytest.approx(per_question["p"][0], abs=0.01)
    assert grouped["low"][0] == pytest.approx(per_question["low"][0], abs=0.01)
    assert grouped["high"][0] == pytest.approx(per_question["high"][0], abs=0.01)
    assert np.sign(grouped["low"][0]) == np.sign(grouped["high"][0]) == sign
