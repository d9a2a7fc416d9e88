"""Lesson 05's sentences, chosen by rag_metrics.lab.attribution_lesson: each claim's condition on both sides of
its boundary, and every shown sentence true of the figures it carries."""

import pandas as pd

from rag_metrics.experiment.attribution import attribute, diagnose, partial_retrieval
from rag_metrics.lab.attribution_lesson import (STATUS_LABELS, diagnosis_table, failure_overlap, rule_claims,
                                                     rule_moves, sample_claims, seed_cases, seed_claims)


def by_name(claims):
    return {c["name"]: c for c in claims}


def test_the_source_case_reproduced_and_its_point_holds():
    c = by_name(seed_claims(attribute(seed_cases(), k=2)))
    assert c["source_reproduced"]["condition"] and c["source_reproduced"]["figures"]["statuses3"]["q2"] == "retrieval_failure"
    point = c["same_averages_different_failures"]
    assert point["condition"] and point["headline"]
    assert "retrieval on **q2**, the answer on **q3**" in point["text_if_true"]


def test_when_the_same_question_fails_both_ways_the_point_is_not_claimed():
    table = seed_cases().assign(generated_answer=["30 days", "wrong", "200 EUR"])  # q2: retrieval and answer fail
    c = by_name(seed_claims(attribute(table, k=2)))
    point = c["same_averages_different_failures"]
    assert not point["condition"] and "retrieval fails on **q2** and the answer on **q2**" in point["text_if_false"]
    assert not c["source_reproduced"]["condition"]  # both averages 0.667 still, but q3 passes: not the source's case


def test_a_second_gold_document_parts_the_rules_only_when_one_is_retrieved():
    two = seed_cases(second_gold=True)
    (c,) = rule_claims(attribute(two, k=2), attribute(two, k=2, rule="any"))
    assert c["condition"] and c["figures"] == {"all": "correct_without_evidence", "any": "passed", "hit": 1.0,
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
    assert c["condition"] and c["figures"]["right_partial"] == 1 and "1 of them had a gold document" in c["text_if_true"]
    none = table_of([["a", "b"], ["a"]], [["z", "y"], ["a", "z"]], ["x", "y"])
    c = sample_with(none)["partial_retrieval"]
    assert not c["condition"] and "none had a gold document in the top 2" in c["text_if_false"]
    complete = table_of([["a"], ["a"]], [["a", "z"], ["a", "z"]], ["x", "y"])
    c = sample_with(complete)["partial_retrieval"]
    assert not c["condition"] and "no right answer here counts as a retrieval failure" in c["text_if_false"]


def sample_with(table, rule="all", **kw):
    strict = attribute(table, k=2)
    attr = strict if rule == "all" else attribute(table, k=2, rule=rule)
    args = dict(check=[], generation_failures=0, faithful_failures=0, faithfulness_threshold=0.7) | kw
    return by_name(sample_claims(attr, strict, **args))


def test_failures_differ_names_the_rule_and_its_boundary():
    differ = table_of([["a", "b"], ["a"]], [["a", "z"], ["a", "z"]], ["x", "y"])  # q0 retrieval, q1 answer
    c = sample_with(differ)["sample_failures_differ"]
    assert c["condition"] and "a gold document missing from the top 2" in c["text_if_true"]
    c = sample_with(differ, rule="any")["sample_failures_differ"]  # under any, q0 passes: only the answer fails
    assert c["condition"] and "no gold document in the top 2" in c["text_if_true"]
    same = table_of([["a"], ["a"]], [["z", "y"], ["a", "z"]], ["y", "x"])  # q0 fails both ways, q1 passes
    c = sample_with(same)["sample_failures_differ"]
    assert not c["condition"] and "on exactly the 1 question whose answer was wrong" in c["text_if_false"]


def test_check_group_sentences_follow_their_figures():
    t = table_of([["a"]], [["a"]], ["x"])
    c = sample_with(t)
    assert not c["check_group"]["condition"] and "no answer is a generation failure" in c["check_group"]["text_if_false"]
    c = sample_with(t, generation_failures=2)["check_group"]
    assert "every generation failure here has an answer unfaithful" in c["text_if_false"]
    assert sample_with(t, check=["q0"])["check_group"]["condition"]


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


def test_partial_retrieval_names_the_answer_holding_gold_only_when_every_one_had_it():
    t = table_of([["a", "b"], ["a"]], [["a", "z"], ["a", "z"]], ["x", "y"])
    strict = attribute(t, k=2)
    strict.records["top_gold_retrieved"] = [True, False]
    args = dict(check=[], generation_failures=0, faithful_failures=0, faithfulness_threshold=0.7)
    c = by_name(sample_claims(strict, strict, **args))["partial_retrieval"]
    assert "1 of them had the gold document that holds the answer (the highest-labelled one) in the top 2" \
        in c["text_if_true"]
    strict.records["top_gold_retrieved"] = [False, False]
    c = by_name(sample_claims(strict, strict, **args))["partial_retrieval"]
    assert "1 of them had a gold document in the top 2 (0 of them the one that holds the answer" in c["text_if_true"]


def test_rule_moves_counts_both_colours():
    # q0: right, one of two gold retrieved; q1: wrong, one of two gold retrieved; q2: wrong, no gold retrieved
    t = table_of([["a", "b"], ["a", "b"], ["a"]], [["a", "z"], ["a", "z"], ["z", "y"]], ["x", "y", "y"])
    m = rule_moves(attribute(t, k=2), attribute(t, k=2, rule="any"))
    assert (m["right"], m["wrong"]) == (1, 1) and m["claim"]["condition"]
    assert m["title"] == "rule='any' moves 1 right answers to passed and 1 retrieval failures to generation failures"
    assert "1 wrong answer from `retrieval_failure` to `generation_failure`" in m["claim"]["text_if_true"]
    only_right = t.iloc[[0, 2]]
    m = rule_moves(attribute(only_right, k=2), attribute(only_right, k=2, rule="any"))
    assert (m["right"], m["wrong"]) == (1, 0) and not m["claim"]["condition"]
    assert "no wrong answer changes status" in m["claim"]["text_if_false"]
    one = t.iloc[[2]]
    assert rule_moves(attribute(one, k=2), attribute(one, k=2, rule="any"))["title"] == \
        "the two rules give the same statuses"


def test_failure_overlap_counts_each_list_and_both():
    # q0: retrieval failed, answer right; q1: both; q2: answer wrong only; q3: passed
    t = table_of([["a", "b"], ["a"], ["a"], ["a"]], [["a", "z"], ["z", "y"], ["a", "z"], ["a", "z"]],
                 ["x", "y", "y", "x"])
    o = failure_overlap(attribute(t, k=2))
    assert o == {"retrieval failed only": 1, "both": 1, "answer wrong only": 1, "retrieval failed": 2,
                 "answer wrong": 2}
    assert failure_overlap(attribute(t, k=2, rule="any"))["retrieval failed"] == 1  # q0 has one gold: passes "any"


def test_diagnosis_table_splits_retrieval_failures_by_another_gold_document():
    # q0: wrong, one of two gold retrieved; q1: wrong, no gold retrieved; q2: passed; q3: passed
    t = table_of([["a", "b"], ["a"], ["a"], ["a"]], [["a", "z"], ["z", "y"], ["a", "z"], ["a", "z"]],
                 ["y", "y", "x", "x"]).assign(faithfulness=[0.1, 0.1, 0.9, 0.9])
    attr = attribute(t, k=2)
    table = diagnosis_table(diagnose(attr), attr)
    assert table["where to look"].tolist()[0] == "ok" and table["questions"].tolist() == [2, 1, 1]
    looks = " | ".join(table["where to look"])
    assert "another was there, and the answer is wrong" in looks and "no gold document in the context, answer wrong" in looks
    assert table["questions"].sum() == len(attr.records)


def test_status_labels_say_the_rule():
    assert set(STATUS_LABELS["all"]) == set(STATUS_LABELS["any"])
    assert "a gold document missing" in STATUS_LABELS["all"]["retrieval_failure"]
    assert "no gold document" in STATUS_LABELS["any"]["retrieval_failure"]
