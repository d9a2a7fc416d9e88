"""Lesson 10's planning sentences (rag_metrics.analysis.planning_lesson): no sample size for a gain beyond the share
of questions that differ, and each branch on both sides of its boundary."""

import pandas as pd

from rag_metrics.analysis.planning import questions_needed_binary
from rag_metrics.analysis.planning_lesson import FEWEST, TWICE, holm_example, plan_golden_set, plan_shown, plan_table


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
    assert "whatever the golden set's size" in c["gain_out_of_reach"]["text_if_true"]
    assert "cannot make a gain of 0.05" in c["gain_out_of_reach"]["text_if_true"] and "needs **" not in c["gain_out_of_reach"]["text_if_true"]
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
    assert list(shown.index) == ["+0.02", "+0.05", "+0.06"] and shown.iloc[2, -1] == "impossible"
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
