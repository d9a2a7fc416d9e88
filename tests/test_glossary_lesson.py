"""Notebook 00's worked examples (rag_metrics.lab.glossary_lesson)."""

import pytest

from rag_metrics.lab.glossary_lesson import (DEDUP, FIRST, depth_claim, depth_example, judged_example, ndcg_line,
                                               one_rule, order_claim, order_example)


@pytest.mark.parametrize("k", [1, 3, 4, 6])
def test_each_order_reads_its_own_rank(k):
    table, ex = order_example(k)
    assert ex["rank"] == {FIRST: 4, DEDUP: 2}
    assert one_rule(ex["reads"])
    assert list(table.columns) == ["cut_then_dedup", "dedup_then_cut"] and table.loc["mrr"].tolist() == [0.25, 0.5]
    # a cutoff at or past the FAQ's first chunk reaches it under both orders: both rankings agree there
    assert ex["values"]["cut_then_dedup"][f"hit@{k}"] == (1.0 if k >= 4 else 0.0)
    assert ex["values"]["dedup_then_cut"][f"hit@{k}"] == (1.0 if k >= 2 else 0.0)


def test_one_rule_fails_when_one_measure_reads_the_other_rank():
    _, ex = order_example(3)
    reads = {order: dict(r) for order, r in ex["reads"].items()}
    reads["cut_then_dedup"]["mrr"] = DEDUP
    assert not one_rule(reads)
    reads = {order: dict(r) for order, r in ex["reads"].items()}
    reads["dedup_then_cut"]["hit@3"] = "neither"
    assert not one_rule(reads)


def test_judged_is_the_relevant_share_on_the_sample():
    j = judged_example(3, 10)
    assert j["labels_only_relevant"] and j["same_as_share"]
    assert j["no_answer"] == 6 and j["all"] < j["answerable"]
    assert round(j["answerable"], 3) == 0.721 and round(j["precision"], 3) == 0.344


def test_order_claim_states_each_orders_rank_or_lists_the_reads():
    _, ex = order_example(3)
    c = order_claim(ex, 3)
    assert c["condition"] and "the FAQ is at position 4" in c["text_if_true"]
    assert "hit@3 = 0 and MRR = 0.25" in c["text_if_true"] and "(2): hit@3 = 1, MRR = 0.5" in c["text_if_true"]
    ex["reads"]["cut_then_dedup"] = dict(ex["reads"]["cut_then_dedup"], mrr=DEDUP)
    c = order_claim(ex, 3)
    assert not c["condition"] and f"mrr reads the {DEDUP}" in c["text_if_false"]


@pytest.mark.parametrize("depth, shallow, deeper", [(1, 1, 12), (11, 11, 12), (12, 11, 12), (15, 11, 15),
                                                     (40, 11, 40)])
def test_depth_claim_compares_two_different_depths_either_side_of_the_gold_rank(depth, shallow, deeper):
    """k=1 depth=15 once showed the same row twice (depth 15 and max(15, 12) = 15): the two depths always differ."""
    d = depth_example(depth)
    assert (d["shallow"], d["deeper"]) == (shallow, deeper)
    assert d["rr"] == 0.0 and d["rr_deep"] == pytest.approx(1 / 12)
    c = depth_claim(d)
    assert c["condition"] and f"searched {shallow} deep and 0.08333 searched {deeper} deep" in c["text_if_true"]


@pytest.mark.parametrize("k, parts", [(1, 1), (3, 2)])
def test_ndcg_line_prints_each_cutoff_once(k, parts):
    line = ndcg_line(["policy", "other", "faq"], {"policy": 2, "faq": 1}, k)
    assert line.count("nDCG@1 = 1, Recall@1 = 0.5") == 1 and line.count("nDCG@") == parts
