"""Notebook 01's step 3 (rag_metrics.lab.duplicate_lesson): the context check and both branches of its sentence."""

import pytest

from rag_metrics.lab.duplicate_lesson import context_check, naive_claim, orders_claim

CHUNKS = ["manual#1", "manual#2", "manual#3", "faq#1", "terms#1"]
DOC_OF = {c: c.split("#")[0] for c in CHUNKS}
GOLD = {"manual", "faq"}


@pytest.mark.parametrize("k, missing, cut, dedup", [(1, ["faq"], 0.5, 0.5), (2, ["faq"], 0.5, 1.0),
                                                    (3, ["faq"], 0.5, 1.0), (4, [], 1.0, 1.0), (5, [], 1.0, 1.0)])
def test_context_check_on_each_side_of_the_faqs_first_chunk(k, missing, cut, dedup):
    c = context_check(CHUNKS, DOC_OF, GOLD, k)
    assert c["first_rank"] == {"faq": 4, "manual": 1} and c["missing"] == missing
    assert (c["cut"], c["dedup"]) == (cut, dedup) and c["differ"] == [2, 3]
    assert c["in_context"] == 2 - len(missing) and c["n_gold"] == 2


def test_orders_claim_branches():
    at3 = orders_claim(context_check(CHUNKS, DOC_OF, GOLD, 3))
    assert at3["condition"] and "cut_then_dedup = 0.50** is right: 1 of the 2" in at3["text_if_true"]
    assert "credits 'faq' although the LLM never saw it" in at3["text_if_true"]
    at4 = orders_claim(context_check(CHUNKS, DOC_OF, GOLD, 4))
    assert not at4["condition"] and "every gold document reaches the context" in at4["text_if_false"]
    at1 = orders_claim(context_check(CHUNKS, DOC_OF, GOLD, 1))
    assert not at1["condition"] and "neither order reaches every gold document" in at1["text_if_false"]
    assert "differ at k = 2, 3." in at1["text_if_false"]


@pytest.mark.parametrize("k, gold_chunks, manual, parts", [(3, 3, 3, "(3 of the manual)"),
                                                           (5, 4, 3, "(3 of the manual, 1 of the faq)")])
def test_naive_claim_names_the_whole_numerator(k, gold_chunks, manual, parts):
    """k=5 once said "the numerator counts chunks (3 of the manual)" where it is 4: the faq's chunk counts too."""
    c = naive_claim(naive=gold_chunks / 2, gold_chunks=gold_chunks, manual_chunks=manual, n_gold=2, k=k)
    assert c["condition"] and f"{gold_chunks} gold chunks in the top {k} {parts}" in c["text_if_true"]
    assert f"{gold_chunks} / 2 = {gold_chunks / 2:.2f}" in c["text_if_true"]
