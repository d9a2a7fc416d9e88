"""Lesson 05's sentences, chosen by rag_metrics.lab.attribution_lesson: each claim's condition on both sides of
its boundary, and every shown sentence true of the figures it carries."""

import pandas as pd

from rag_metrics.experiment.attribution import STATUSES, attribute, partial_retrieval
from rag_metrics.lab.attribution_lesson import (SOURCE_WORDS, failure_overlap, failure_overlap_figure,
                                                other_rule_claim, rule_claims, rule_status_table, sample_attributions,
                                                sample_claims, seed_cases, seed_claims)


def by_name(claims):
    return {c["name"]: c for c in claims}


def test_the_source_case_reproduced_and_its_point_holds():
    c = by_name(seed_claims(attribute(seed_cases(), k=2)))
    assert c["source_reproduced"]["condition"] and c["source_reproduced"]["figures"]["statuses3"]["q2"] == "gold_missed"
    assert [SOURCE_WORDS[s] for s in c["source_reproduced"]["figures"]["statuses3"].values()] == [
        "passed", "retrieval failure", "generation failure"]
    point = c["same_averages_different_failures"]
    assert point["condition"] and point["headline"]
    assert point["text_if_true"].endswith("retrieval on **q2**, the answer on **q3**. q3 points at the generator "
                                          "(or at a stale expected answer); q2's retrieval miss did not even hurt its answer.")


def test_when_the_same_question_fails_both_ways_the_point_is_not_claimed():
    table = seed_cases().assign(generated_answer=["30 days", "wrong", "200 EUR"])  # q2: retrieval and answer fail
    c = by_name(seed_claims(attribute(table, k=2)))
    point = c["same_averages_different_failures"]
    assert not point["condition"] and "retrieval fails on **q2** and the answer on **q2**" in point["text_if_false"]
    assert not c["source_reproduced"]["condition"]  # both averages 0.667 still, but q3 passes: not the source's case


def test_a_second_gold_document_parts_the_rules_only_when_one_is_retrieved():
    two = seed_cases(second_gold=True)
    (c,) = rule_claims(attribute(two, k=2), attribute(two, k=2, rule="any"))
    assert c["condition"] and c["figures"] == {"all": "gold_missed_answer_right", "any": "passed", "hit": 1.0,
                                               "n_gold": 2}
    (same,) = rule_claims(attribute(seed_cases(), k=2), attribute(seed_cases(), k=2, rule="any"))
    assert not same["condition"] and same["text_if_false"] == (
        "With 1 gold document, q1 is `passed` under `rule='all'` and `passed` under `rule='any'`.")


def table_of(gold, retrieved, answers):
    n = len(gold)
    return pd.DataFrame({"question_id": [f"q{i}" for i in range(n)], "expected_answer": ["x"] * n, "gold_ids": gold,
                         "retrieved_ids": retrieved, "generated_answer": answers})


def test_partial_retrieval_claimed_only_when_a_right_answer_had_another_gold_document():
    partial = table_of([["a", "b"], ["a"]], [["a", "z"], ["a", "z"]], ["x", "y"])
    c = sample_with(partial)["partial_retrieval"]
    assert c["condition"] and c["figures"]["right_partial"] == 1 and "1 of them had at least one gold document" in c["text_if_true"]
    assert "wrong answer" not in c["text_if_true"]  # q1's wrong answer had every gold document: nothing moves
    moved = table_of([["a", "b"], ["a", "b"]], [["a", "z"], ["a", "z"]], ["x", "y"])  # q1 wrong, one gold there
    c = sample_with(moved)["partial_retrieval"]
    assert "and moves the 1 wrong answer that had a gold document there to `gold_found_answer_wrong`" \
        in c["text_if_true"]
    none = table_of([["a", "b"], ["a"]], [["z", "y"], ["a", "z"]], ["x", "y"])
    c = sample_with(none)["partial_retrieval"]
    assert not c["condition"] and "none had a gold document in the top 2" in c["text_if_false"]
    complete = table_of([["a"], ["a"]], [["a", "z"], ["a", "z"]], ["x", "y"])
    c = sample_with(complete)["partial_retrieval"]
    assert not c["condition"] and "no right answer is `gold_missed_answer_right`" in c["text_if_false"]


def sample_with(table, rule="all"):
    strict = attribute(table, k=2)
    attr = strict if rule == "all" else attribute(table, k=2, rule=rule)
    return by_name(sample_claims(attr, strict))


def test_failures_differ_names_the_rule_and_its_boundary():
    differ = table_of([["a", "b"], ["a"]], [["a", "z"], ["a", "z"]], ["x", "y"])  # q0 retrieval, q1 answer
    c = sample_with(differ)["sample_failures_differ"]
    assert c["condition"] and "a gold document missing from the top 2" in c["text_if_true"]
    c = sample_with(differ, rule="any")["sample_failures_differ"]  # under any, q0 passes: only the answer fails
    assert c["condition"] and "no gold document in the top 2" in c["text_if_true"]
    same = table_of([["a"], ["a"]], [["z", "y"], ["a", "z"]], ["y", "x"])  # q0 fails both ways, q1 passes
    c = sample_with(same)["sample_failures_differ"]
    assert not c["condition"] and "on exactly the 1 question whose answer was wrong" in c["text_if_false"]


def test_partial_counts_match_the_package_count():
    t = table_of([["a", "b"], ["a", "b"], ["c"]], [["a", "z"], ["z", "y"], ["z", "y"]], ["x", "x", "x"])
    c = sample_with(t)["partial_retrieval"]
    assert {k: c["figures"][k] for k in partial_retrieval(attribute(t, k=2))} == partial_retrieval(attribute(t, k=2))
    assert c["figures"]["right_partial"] == 1 and c["figures"]["right_none"] == 2


def test_q2_is_right_with_no_gold_document_in_its_context():
    c = by_name(seed_claims(attribute(seed_cases(), k=2)))["q2_no_gold"]
    assert c["condition"] and "memory, or a page nobody labelled gold" in c["text_if_true"]
    found = seed_cases().assign(retrieved_ids=[["expense_policy", "x"], ["faq", "manual"], ["travel_policy", "faq"]])
    c = by_name(seed_claims(attribute(found, k=2)))["q2_no_gold"]
    assert not c["condition"] and c["text_if_false"] == "q2 is `passed` here: its answer is right with hit@2 = 1."


def test_partial_retrieval_counts_the_answers_whose_highest_graded_gold_was_there():
    t = table_of([["a", "b"], ["a"]], [["a", "z"], ["a", "z"]], ["x", "y"])
    strict = attribute(t, k=2)
    strict.records["top_gold_retrieved"] = [True, False]
    c = by_name(sample_claims(strict, strict))["partial_retrieval"]
    assert "1 of them had at least one gold document in the top 2 (1 of these 1 had the gold document the golden " \
        "set grades highest for the question -- " in c["text_if_true"]
    strict.records["top_gold_retrieved"] = [False, False]
    c = by_name(sample_claims(strict, strict))["partial_retrieval"]
    assert "1 of them had at least one gold document in the top 2 (0 of these 1 had the gold document the golden " \
        "set grades highest for the question -- " in c["text_if_true"]


def test_rule_status_table_counts_the_same_answers_under_both_rules():
    # q0: right, one of two gold retrieved; q1: wrong, one of two gold retrieved; q2: wrong, no gold; q3: passed
    t = table_of([["a", "b"], ["a", "b"], ["a"], ["a"]], [["a", "z"], ["a", "z"], ["z", "y"], ["a", "z"]],
                 ["x", "y", "y", "x"])
    table = rule_status_table(attribute(t, k=2), attribute(t, k=2, rule="any"))
    assert table.index.tolist() == list(STATUSES) and list(table.columns) == ["rule='all'", "rule='any'"]
    assert table["rule='all'"].to_dict() == {"passed": 1, "gold_missed_answer_right": 1, "gold_missed_answer_wrong": 2,
                                             "gold_found_answer_wrong": 0}
    assert table["rule='any'"].to_dict() == {"passed": 2, "gold_missed_answer_right": 0, "gold_missed_answer_wrong": 1,
                                             "gold_found_answer_wrong": 1}


def test_failure_overlap_counts_each_list_and_both():
    # q0: retrieval failed, answer right; q1: both; q2: answer wrong only; q3: passed
    t = table_of([["a", "b"], ["a"], ["a"], ["a"]], [["a", "z"], ["z", "y"], ["a", "z"], ["a", "z"]],
                 ["x", "y", "y", "x"])
    o = failure_overlap(attribute(t, k=2))
    assert o == {"retrieval failed only": 1, "both": 1, "answer wrong only": 1, "retrieval failed": 2,
                 "answer wrong": 2}
    assert failure_overlap(attribute(t, k=2, rule="any"))["retrieval failed"] == 1  # q0 has one gold: passes "any"


def test_other_rule_claim_says_how_the_figure_changes_and_when_it_does_not():
    # q0: one of two gold documents retrieved, answer right (fails 'all' only); q1: answer wrong, gold found
    t = table_of([["a", "b"], ["a"]], [["a", "z"], ["a", "z"]], ["x", "y"])
    strict, loose = attribute(t, k=2), attribute(t, k=2, rule="any")
    c = other_rule_claim(strict, loose)
    assert c["condition"] and c["text_if_true"] == (
        "The figure depends on the rule: under `rule='any'` the retrieval list shrinks from 1 to 0 questions, the "
        "answer list stays 1, and 0 are on both lists.")
    c = other_rule_claim(loose, strict)
    assert c["condition"] and "under `rule='all'` the retrieval list grows from 0 to 1 question," in c["text_if_true"]
    one_gold = table_of([["a"], ["a"]], [["z", "y"], ["a", "z"]], ["x", "y"])  # one gold each: the rules agree
    c = other_rule_claim(attribute(one_gold, k=2), attribute(one_gold, k=2, rule="any"))
    assert not c["condition"] and c["text_if_false"] == (
        "Under `rule='any'` the figure is the same: retrieval failed on 1 question, the answer list stays 1, and 0 "
        "are on both lists.")


def test_sample_attributions_judge_the_logged_context_under_both_rules():
    from rag_metrics.io.corpus import load_answers
    from rag_metrics.io.golden import load_golden

    logs = load_answers(sample=True)
    log = logs[logs["generator"] == "gen_a"].drop(columns="generator")
    attr, strict, loose = sample_attributions(load_golden(sample=True), log, generator="gen_a", rule="any",
                                              match="contains")
    assert attr is loose and (strict.rule, loose.rule) == ("all", "any") and attr.k == strict.k == 3
    assert attr.to_dict()["match"] == "contains"
    assert attr.fingerprint["corpus"] == attribute(seed_cases(), k=2, corpus_version="sample-2026-04").fingerprint["corpus"]


def test_failure_overlap_figure_draws_one_panel_per_rule_with_its_counts():
    import matplotlib

    matplotlib.use("Agg")
    t = table_of([["a", "b"], ["a"], ["a"], ["a"]], [["a", "z"], ["z", "y"], ["a", "z"], ["a", "z"]],
                 ["x", "y", "y", "x"])
    fig = failure_overlap_figure({"all": attribute(t, k=2), "any": attribute(t, k=2, rule="any")}, title="t")
    assert [ax.get_title() for ax in fig.axes] == ["rule='all': 1 on both lists", "rule='any': 1 on both lists"]
    labels = [[tick.get_text() for tick in ax.get_yticklabels()] for ax in fig.axes]
    assert labels == [["answer wrong (2)", "retrieval failed (2)"], ["answer wrong (2)", "retrieval failed (1)"]]
    from matplotlib.patches import Rectangle  # matplotlib 3.8 draws a span as a Polygon, later ones as a Rectangle

    widths = [[round(p.get_width()) for p in ax.patches if isinstance(p, Rectangle) and p.get_height() < 1]
              for ax in fig.axes]
    assert widths == [[2, 2], [1, 2]]
