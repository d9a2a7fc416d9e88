"""Every public statistic against an independent reference, with the change in both directions and at n = 2, 3
and 20 (issue 50: the slips that survive are those checked on one sign only).

References: scipy's binomtest (exact p and Clopper--Pearson / Wilson intervals), ttest_rel, scikit-learn's
cohen_kappa_score, and a literal Holm written here from its definition. The mirror checks need no reference:
swapping the two runs must negate the change, mirror its interval and keep its p."""

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

from rag_metrics.stats.intervals import clopper_pearson, wilson
from rag_metrics.stats.paired import (
    compare_to_baseline, format_p, holm, min_discordant, paired_t_test, paired_test,
)
from rag_metrics.stats.agreement import cohen_kappa

SIZES = (2, 3, 20)


def _runs(n: int, wins: int, losses: int, graded: bool = False):
    """Two runs on ``n`` questions: b beats a on ``wins``, loses on ``losses``, ties elsewhere."""
    ids = [f"q{i:02d}" for i in range(n)]
    a = np.full(n, 0.5 if graded else 0.0)
    b = a.copy()
    step = 0.25 if graded else 1.0
    b[:wins] += step
    if graded:
        b[wins:wins + losses] -= step
    else:  # a 0/1 loss: a hit before, a miss after
        a[wins:wins + losses], b[wins:wins + losses] = 1.0, 0.0
    return pd.Series(a, index=ids), pd.Series(b, index=ids)


def _shapes(n):
    """(wins, losses) pairs that fit in n questions: one-sided each way, and mixed."""
    out = {(n, 0), (0, n), (1, 0), (0, 1)}
    if n >= 3:
        out |= {(2, 1), (1, 2)}
    return sorted(out)


@pytest.mark.parametrize("n", SIZES)
def test_the_binary_paired_test_is_scipys_sign_test_both_ways(n):
    for wins, losses in _shapes(n):
        a, b = _runs(n, wins, losses)
        t = paired_test(a, b, measure="hit@1")
        ref = sps.binomtest(wins, wins + losses).pvalue
        assert t.p_value == pytest.approx(ref, rel=1e-12), (n, wins, losses)
        assert (t.wins, t.losses, t.ties) == (wins, losses, n - wins - losses)
        assert t.delta == pytest.approx((wins - losses) / n)
        assert t.ci_low <= t.delta <= t.ci_high
        # the verdict follows the sign of the change, never its size alone
        expected = "within noise" if ref >= 0.05 else ("better" if wins > losses else "worse")
        assert t.verdict == expected, (n, wins, losses, t.verdict)


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("n", SIZES)
def test_swapping_the_runs_mirrors_the_change_and_keeps_p(n, graded):
    for wins, losses in _shapes(n):
        a, b = _runs(n, wins, losses, graded)
        ab, ba = paired_test(a, b, n_resamples=2000), paired_test(b, a, n_resamples=2000)
        assert ba.delta == pytest.approx(-ab.delta)
        assert ba.p_value == pytest.approx(ab.p_value, rel=1e-9, abs=1e-12), (n, wins, losses)
        assert (ba.ci_low, ba.ci_high) == pytest.approx((-ab.ci_high, -ab.ci_low), abs=1e-9)
        assert (ba.wins, ba.losses) == (ab.losses, ab.wins)
        flip = {"better": "worse", "worse": "better", "within noise": "within noise"}
        assert ba.verdict == flip[ab.verdict]


def test_a_large_one_sided_change_is_called_in_its_own_direction():
    for sign, word in ((1, "better"), (-1, "worse")):
        a, b = _runs(20, 20, 0) if sign > 0 else _runs(20, 0, 20)
        assert paired_test(a, b).verdict == word
        a, b = _runs(20, 20, 0, graded=True) if sign > 0 else _runs(20, 0, 20, graded=True)
        t = paired_test(a, b, n_resamples=2000)
        assert t.verdict == word and np.sign(t.delta) == sign and np.sign(t.ci_low + t.ci_high) == sign


@pytest.mark.parametrize("n", SIZES)
def test_the_paired_t_test_is_scipys_both_ways(n):
    rng = np.random.default_rng(n)
    a = pd.Series(rng.random(n))
    for sign in (1, -1):
        b = a + sign * (0.1 + rng.random(n) * 0.2)
        t, p = paired_t_test(a, b)
        ref = sps.ttest_rel(b, a)
        assert np.sign(t) == sign and t == pytest.approx(ref.statistic) and p == pytest.approx(ref.pvalue)


@pytest.mark.parametrize("n", SIZES)
def test_rate_intervals_are_scipys_at_every_count(n):
    for x in range(n + 1):
        exact = sps.binomtest(x, n).proportion_ci(confidence_level=0.95, method="exact")
        low, high = clopper_pearson(x, n)
        assert (float(low), float(high)) == pytest.approx((exact.low, exact.high), abs=1e-9), (n, x)
        ws = sps.binomtest(x, n).proportion_ci(confidence_level=0.95, method="wilson")
        low, high = wilson(x, n)
        assert (float(low), float(high)) == pytest.approx((ws.low, ws.high), abs=1e-9), (n, x)
        # a count and its complement give mirrored intervals
        low_c, high_c = clopper_pearson(n - x, n)
        assert (float(low_c), float(high_c)) == pytest.approx((1 - exact.high, 1 - exact.low), abs=1e-9)


def _holm_reference(p):
    """Holm (1979) from its definition: the j-th smallest p times (k - j + 1), made monotone, capped at 1."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        out[i] = running
    return out


@pytest.mark.parametrize("p", [[0.01, 0.04], [0.04, 0.01], [0.02, 0.02, 0.5], [0.5, 0.02, 0.02],
                               [0.001, 0.2, 0.013, 0.013, 0.9], [0.0125, 0.0125, 0.0125, 0.0125]])
def test_holm_is_the_definition_in_every_order_and_with_ties(p):
    assert list(holm(p)) == pytest.approx(_holm_reference(p))
    assert list(holm(p[::-1])) == pytest.approx(_holm_reference(p[::-1]))


@pytest.mark.parametrize("n", SIZES)
def test_kappa_is_scikit_learns_and_symmetric_in_its_raters(n):
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(100 + n)
    for _ in range(5):
        human = rng.integers(0, 2, n)
        assessed = np.where(rng.random(n) < 0.7, human, 1 - human)
        if len(set(human)) == 1 and len(set(assessed)) == 1:
            continue  # undefined: every item in one class
        k = cohen_kappa(human.tolist(), assessed.tolist(), n_resamples=200)
        ref = cohen_kappa_score(human, assessed)
        if np.isnan(ref):
            assert k.kappa is None
            continue
        assert k.kappa == pytest.approx(ref)
        assert cohen_kappa(assessed.tolist(), human.tolist(), n_resamples=200).kappa == pytest.approx(ref)


@pytest.mark.parametrize("sign", [1, -1])
def test_compare_to_baseline_calls_each_system_in_its_direction(sign):
    ids = [f"q{i:02d}" for i in range(20)]
    base = pd.Series([0.0] * 10 + [1.0] * 10, index=ids)
    up, down = pd.Series(1.0, index=ids), pd.Series(0.0, index=ids)  # 10 wins / 10 losses, the rest ties
    systems = {"up": up, "down": down} if sign > 0 else {"down": down, "up": up}  # both orders of the systems
    table = compare_to_baseline(base, systems)
    assert table.loc["up", "verdict"] == "better" and table.loc["down", "verdict"] == "worse"
    assert table.loc["up", "mean_diff"] > 0 > table.loc["down", "mean_diff"]


@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_a_printed_p_falls_on_the_side_of_alpha_its_value_is_on(alpha):
    for p in (alpha, np.nextafter(alpha, 0), np.nextafter(alpha, 1), alpha * 0.9992, alpha * 1.0008):
        text = format_p(p, alpha)
        shown = text.split("= ")[-1] if "=" in text else None
        if shown is not None:
            assert (float(shown) < alpha) == (p < alpha), (p, text)
        else:
            assert p < alpha and text.endswith(f"< {alpha:g}"), (p, text)


@pytest.mark.parametrize("alpha, m", [(0.0625, 6), (np.nextafter(0.0625, 1), 5), (0.05, 6), (0.03125, 7),
                                      (np.nextafter(0.03125, 1), 6)])
def test_the_fewest_discordant_questions_at_and_around_each_power_of_two(alpha, m):
    """2^(1-m) is the smallest p m one-way questions can give; reaching p < alpha needs 2^(1-m) < alpha."""
    assert min_discordant(alpha) == m
    assert sps.binomtest(m, m).pvalue < alpha <= sps.binomtest(m - 1, m - 1).pvalue
