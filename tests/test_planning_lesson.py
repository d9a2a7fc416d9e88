"""Lesson 10's planning sentences (rag_metrics.lab.planning_lesson): no sample size for a gain beyond the share
of questions that differ, and each branch on both sides of its boundary."""

import pandas as pd
import pytest

from rag_metrics.stats.planning import questions_needed_binary
from rag_metrics.lab.planning_lesson import FEWEST, TWICE, holm_example, plan_golden_set, plan_shown, plan_table


def names(out):
    return {c["name"]: c for c in out["claims"]}


def binary(wins, losses, n=65):
    return pd.Series([1.0] * wins + [-1.0] * losses + [0.0] * (n - wins - losses))


def test_a_gain_beyond_the_discordant_rate_gets_no_sample_size():
    d = binary(1, 0)  # one question of 65 differs: 1.5%
    out = plan_golden_set(d, [d], binary=True, target_gain=0.05, alpha=0.05)
    c = names(out)
    assert out["needed"] is None and "gain_out_of_reach" in c and "needs_more_questions" not in c
    assert "plan_above_floor" not in c and out["plan"].iloc[1:, -1].isna().all()  # gains above 1.5%
    assert out["plan"].iloc[0, -1] == questions_needed_binary(0.01, 1 / 65)  # 0.01 is below it
    assert "measured here change too few questions" in c["gain_out_of_reach"]["text_if_true"]
    # one question of 65 differs: its 95% upper bound is 8.3%, above 0.05 -- the gain is not ruled out
    assert "upper bound is 8.3%, above 0.05" in c["gain_out_of_reach"]["text_if_true"]
    assert "too few questions to make a gain of 0.05" in c["gain_out_of_reach"]["text_if_true"]
    assert "needs **" not in c["gain_out_of_reach"]["text_if_true"]
    graded = pd.Series([0.5] + [0.0] * 64)
    out = plan_golden_set(graded, [graded], binary=False, target_gain=0.2, alpha=0.05)
    assert out["needed"] is None and set(names(out)) == {"gain_out_of_reach"}


def test_a_gain_equal_to_the_rate_is_planned_and_one_below_it_too():
    d = binary(4, 1, n=50)  # 10% differ
    at = plan_golden_set(d, [d], binary=True, target_gain=0.1, alpha=0.05)
    assert at["needed"] == questions_needed_binary(0.1, 0.1) and "needs_more_questions" in names(at)
    below = plan_golden_set(d, [d], binary=True, target_gain=0.05, alpha=0.05)
    c = names(below)["needs_more_questions"]
    assert c["condition"] == (below["needed"] > 50) and c["figures"]["needed"] == below["needed"]
    assert names(below)["plan_above_floor"]["condition"]


def test_enough_questions_is_said_only_when_the_plan_fits():
    d = binary(30, 5, n=100)  # 35% differ, a gain of 0.3: a few dozen questions suffice
    out = plan_golden_set(d, [d], binary=True, target_gain=0.3, alpha=0.05)
    c = names(out)["needs_more_questions"]
    assert out["needed"] <= 100 and not c["condition"] and "enough" in c["text_if_false"]


def test_nothing_to_plan_when_no_question_differs():
    d = binary(0, 0)
    out = plan_golden_set(d, [d], binary=True, target_gain=0.05, alpha=0.05)
    assert out["needed"] is None and names(out)["nothing_to_plan"]["condition"] and out["rate_plan"] == 0
    out = plan_golden_set(d, [d], binary=False, target_gain=0.05, alpha=0.05)
    assert set(names(out)) == {"nothing_to_plan"}


def test_graded_plan_is_raised_to_the_exact_tests_floor():
    d = pd.Series([0.3, 0.25, 0.35, 0.3, 0.2, 0.4, 0.3, 0.3, 0.25, 0.35] + [0.0] * 90)  # 10% differ, tight spread
    out = plan_golden_set(d, [d], binary=False, target_gain=0.06, alpha=0.05)
    c = names(out)["plan_at_floor"]
    assert out["needed"] == 60 and c["condition"] and c["figures"]["floor"] == 60  # 6 that differ at 10%
    wide = pd.Series([1.0, -0.9, 0.8, -0.7, 0.9, -1.0, 0.6, 0.7, -0.5, 0.9] + [0.0] * 90)
    out = plan_golden_set(wide, [wide], binary=False, target_gain=0.05, alpha=0.05)
    assert out["needed"] > 60 and not names(out)["plan_at_floor"]["condition"]


def test_the_table_says_impossible_exactly_above_the_rate():
    table = plan_table(0.05, 0.05, alpha=0.05, gains=(0.02, 0.06))
    assert list(table.index) == [0.02, 0.05, 0.06]
    assert table.loc[0.05].iloc[-1] == questions_needed_binary(0.05, 0.05)  # a gain equal to the rate: planned
    assert pd.isna(table.loc[0.06].iloc[-1])  # above it: impossible
    assert table.loc[0.05, FEWEST] == questions_needed_binary(0.05, 0.05)
    assert table.loc[0.02, TWICE] == questions_needed_binary(0.02, 0.04)
    shown = plan_shown(table)
    assert list(shown.index) == ["+0.02", "+0.05", "+0.06"] and shown.iloc[2, -1] == "share too small"
    assert shown.iloc[1, 0] == "5%" and shown.iloc[1, 1] == f"{questions_needed_binary(0.05, 0.05):,}"


def test_the_plan_sentence_reads_the_target_row():
    d = binary(6, 1, n=65)
    out = plan_golden_set(d, [d], binary=True, target_gain=0.05, alpha=0.05)
    c = names(out)["plan_grows_with_rate"]
    assert c["condition"] and c["figures"] == {"fewest": questions_needed_binary(0.05, 0.05),
                                               "twice": questions_needed_binary(0.05, 0.1)}


def test_holm_changes_the_verdict_of_the_fewest_questions_that_can_reach_alpha():
    for alpha, k in ((0.05, 4), (0.01, 2), (0.2, 3)):
        c = holm_example(alpha, k)
        f = c["figures"]
        assert c["condition"] and f["p"] < alpha <= f["p_holm"] and f["p_holm"] == min(1.0, k * f["p"])
    one = holm_example(0.05, 1)  # a single candidate: nothing to correct, no example
    assert not one["condition"] and one["text_if_false"] is None


# ---- the comparison sections' sentences ------------------------------------------------------------------------

from types import SimpleNamespace  # noqa: E402

from rag_metrics.core.text import counted  # noqa: E402
from rag_metrics.lab.planning_lesson import (same_questions_claim, share_of, source_claims, t_test_trap,  # noqa: E402
                                             tango_example, why_sign_test_claim)


def test_plural_and_share_are_written_one_way():
    assert [counted(n, "question") for n in (0, 1, 2)] == ["0 questions", "1 question", "2 questions"]
    assert counted(1, "query", "queries") == "1 query" and counted(2, "query", "queries") == "2 queries"
    assert share_of(1, 65) == "1 of 65 questions (1.5%)"


def test_the_t_test_rejects_at_4_and_5_won_of_65_where_the_exact_test_cannot():
    table, c = t_test_trap(65, 0.05)
    assert c["condition"] and c["figures"]["trap"] == [4, 5]
    assert list(table.index) == [1, 2, 3, 4, 5, 6] and table.loc[6, "exact sign test"] < 0.05  # 6: both reject
    assert round(table.loc[4, "paired t-test"], 3) == 0.045 and table.loc[4, "exact sign test"] == 0.125
    assert "4 or 5 questions" in c["text_if_true"] and "p = 0.024" in c["text_if_true"]
    # at alpha 0.01 the exact test needs 8: the t-test rejects earlier there too
    _, c01 = t_test_trap(65, 0.01)
    assert c01["condition"] and all(2.0 ** (1 - m) >= 0.01 for m in c01["figures"]["trap"])
    # two questions: one won gives t = 1 (p = 0.5), both won no spread -- the t-test never rejects first
    _, tiny = t_test_trap(2, 0.2)
    assert not tiny["condition"] and tiny["figures"]["trap"] == []


def test_tango_plain_excludes_0_at_4_won_of_65_the_first_such_count():
    c = tango_example(65, 0.05)
    f = c["figures"]
    assert c["condition"] and f["m"] == 4 and f["low"] > 0 and f["p"] == 0.125
    assert "+0.002 to +0.148" in c["text_if_true"]
    # no count of all-won questions where the two disagree: none returned
    assert tango_example(2, 0.05) is None or tango_example(2, 0.05)["figures"]["low"] > 0


def test_the_source_factor_is_computed_from_its_p_values():
    factor = {c["name"]: c for c in source_claims()}["source_factor"]
    assert "23 times the randomization test's and 5.8 times the Wilcoxon" in factor["text_if_true"]
    assert factor["condition"]


def cmp(wins, losses, n, values="binary"):
    return SimpleNamespace(wins=wins, losses=losses, ties=n - wins - losses, n=n, values=values)


def test_the_sign_test_loses_nothing_only_on_0_1_values_with_some_change():
    """Issue 49: at measure=mrr the page stood under "Why the sign test loses nothing here"; the sentence now says
    so only for 0/1 values, and names the bounded-mean test otherwise."""
    c = why_sign_test_claim(cmp(1, 0, 65), measure="hit@1")
    assert c["condition"] and "1 of 65 questions (1.5%), always by exactly 1" in c["text_if_true"]
    assert c["text_if_true"].startswith("**The sign test loses nothing here.**")
    graded = why_sign_test_claim(cmp(30, 20, 65, "continuous"), measure="mrr")
    assert not graded["condition"] and "bounded-mean test" in graded["text_if_false"]
    assert "loses nothing" not in graded["text_if_false"]
    assert why_sign_test_claim(cmp(20, 13, 65), measure="hit@1")["condition"]  # half differ: still exactly 1 each
    none = why_sign_test_claim(cmp(0, 0, 65), measure="hit@1")
    assert not none["condition"] and "differs on no question" in none["text_if_false"]


def test_alike_rows_name_their_questions_same_or_others():
    base = pd.Series([0.0, 0.0, 0.0, 1.0], index=["q1", "q2", "q3", "q4"])
    a = pd.Series([1.0, 1.0, 0.0, 1.0], index=base.index)
    c = same_questions_claim(base, {"x": a, "y": a.copy()})
    assert "x and y win the same q1, q2" in c["text_if_true"] and "so the same questions decide" in c["text_if_true"]
    other = pd.Series([1.0, 0.0, 1.0, 1.0], index=base.index)
    c = same_questions_claim(base, {"x": a, "z": other})
    assert "x wins q1, q2; z wins q1, q3" in c["text_if_true"] and "so the same" not in c["text_if_true"]
    assert same_questions_claim(base, {"x": a, "w": pd.Series([1.0, 0.0, 0.0, 1.0], index=base.index)}) is None
    assert same_questions_claim(base, {"x": base.copy(), "y": base.copy()}) is None  # no change: no alike rows


def test_a_gain_above_1_minus_the_baseline_is_never_planned():
    d = binary(3, 0)
    out = plan_golden_set(d, [d], binary=True, target_gain=0.02, alpha=0.05, baseline=0.908)
    c = names(out)
    assert list(out["plan"].index) == [0.01, 0.02, 0.05] and "above_ceiling" in c
    assert "cannot gain +0.1 or +0.2 at all" in c["above_ceiling"]["text_if_true"]
    at = plan_golden_set(d, [d], binary=True, target_gain=0.1, alpha=0.05, baseline=0.9)  # 0.1 = 1 - 0.9: allowed
    assert 0.1 in at["plan"].index and c["above_ceiling"]["figures"]["gains"] == [0.1, 0.2]
    over = plan_golden_set(d, [d], binary=True, target_gain=0.3, alpha=0.05, baseline=0.908)
    assert set(names(over)) - {"plan_order"} == {"above_ceiling"} and "+0.3" in names(over)["above_ceiling"]["text_if_true"]
    assert "above_ceiling" not in names(plan_golden_set(d, [d], binary=True, target_gain=0.02, alpha=0.05,
                                                        baseline=0.5))


@pytest.mark.parametrize("alpha, taken", [(0.2, True), (0.2000001, False), (0.05, True), (0.0, False), (True, False)])
def test_the_lessons_take_alpha_up_to_0_2_and_name_the_bound(alpha, taken):
    """Both lessons' parameter checks accept alpha in (0, 0.2] and name that range when they refuse one."""
    from rag_metrics.lab import noise_lesson, planning_lesson

    calls = [lambda: planning_lesson.check_parameters(measure="hit@5", retrievers=["bm25"], alpha=alpha,
                                                      target_gain=0.05),
             lambda: noise_lesson.check_parameters(measure="hit@5", retriever="bm25", alpha=alpha, simulated_sets=200)]
    for call in calls:
        if taken:
            call()
        else:
            with pytest.raises(ValueError, match=r"\(0, 0\.2\]"):
                call()
