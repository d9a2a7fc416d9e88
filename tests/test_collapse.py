"""The seed case: naive 1.50, cut-then-dedup 0.50, dedup-then-cut 1.00."""

import math

import pandas as pd
import pytest

from rag_metrics import InputError, collapse_to_documents, evaluate, hit_at_k, recall_at_k, reciprocal_rank
from rag_metrics.measures.collapse import document_ranking
from rag_metrics.measures.pitfalls import naive_chunk_recall_at_k

CHUNKS = ["m1", "m2", "m3", "f1", "t1"]
DOC_OF = {"m1": "manual", "m2": "manual", "m3": "manual", "f1": "faq", "t1": "terms"}
GOLD = {"manual", "faq"}


def test_seed_figures():
    assert naive_chunk_recall_at_k(CHUNKS, DOC_OF, GOLD, 3) == 1.5
    cut = collapse_to_documents(CHUNKS, DOC_OF, 3, order="cut_then_dedup")
    dedup = collapse_to_documents(CHUNKS, DOC_OF, 3, order="dedup_then_cut")
    assert cut == ["manual"]
    assert dedup == ["manual", "faq", "terms"]
    assert recall_at_k(cut, GOLD, 3) == 0.5
    assert recall_at_k(dedup, GOLD, 3) == 1.0


def test_seed_figures_through_evaluate():
    golden = pd.DataFrame({"question_id": ["q", "q"], "doc_id": ["manual", "faq"]})
    run = pd.DataFrame({"question_id": ["q"] * 5, "rank": range(1, 6), "chunk_id": CHUNKS})
    cut = evaluate(golden, run, ["recall@3"], doc_map=DOC_OF)
    dedup = evaluate(golden, run, ["recall@3"], doc_map=DOC_OF, order="dedup_then_cut")
    assert cut.summary.loc["recall@3", "mean"] == 0.5
    assert dedup.summary.loc["recall@3", "mean"] == 1.0


def test_default_is_cut_then_dedup_and_whole_ranking_orders_agree():
    assert collapse_to_documents(CHUNKS, DOC_OF, 3) == ["manual"]
    assert collapse_to_documents(CHUNKS, DOC_OF) == collapse_to_documents(CHUNKS, DOC_OF, order="dedup_then_cut")
    assert collapse_to_documents(CHUNKS, DOC_OF.get) == ["manual", "faq", "terms"]


def test_unknown_chunk_is_named():
    with pytest.raises(InputError, match="unknown chunk ID 'zz'"):
        collapse_to_documents(["m1", "zz"], DOC_OF, 2)


def test_bad_order_and_k():
    with pytest.raises(ValueError, match="'order' parameter of collapse_to_documents must be one of"):
        collapse_to_documents(CHUNKS, DOC_OF, 3, order="dedup")
    with pytest.raises(ValueError, match="'k' parameter of collapse_to_documents"):
        collapse_to_documents(CHUNKS, DOC_OF, 0)


# ---- one document rank per collapsing order, for every measure ------------------------------------

SEEN = ["m1", "m2", "m3", "f1"]  # three chunks of the manual, then the FAQ; gold = {faq}


@pytest.mark.parametrize("order, hit3, rr, ndcg", [
    ("cut_then_dedup", 0.0, 1 / 4, 1 / math.log2(5)),   # the FAQ's first chunk is at position 4
    ("dedup_then_cut", 1.0, 1 / 2, 1 / math.log2(3)),   # the FAQ is the second distinct document
])
def test_mrr_and_ndcg_use_the_rank_the_cutoff_uses(order, hit3, rr, ndcg):
    golden = pd.DataFrame({"question_id": ["q"], "doc_id": ["faq"]})
    run = pd.DataFrame({"question_id": ["q"] * 4, "rank": range(1, 5), "chunk_id": SEEN})
    ev = evaluate(golden, run, ["hit@3", "hit@4", "mrr", "mrr@3", "ndcg", "map"], doc_map=DOC_OF, order=order)
    row = ev.per_question.loc["q"]
    assert row["hit@3"] == hit3 and row["hit@4"] == 1.0
    assert row["mrr"] == pytest.approx(rr) and row["ndcg"] == pytest.approx(ndcg) and row["map"] == pytest.approx(rr)
    assert row["mrr@3"] == (0.0 if hit3 == 0 else pytest.approx(rr))
    # consistency: the first relevant document is within the top k exactly when 1/RR <= k
    for k in (1, 2, 3, 4):
        assert (evaluate(golden, run, [f"hit@{k}"], doc_map=DOC_OF, order=order).per_question.loc["q", f"hit@{k}"]
                == 1.0) == (1 / row["mrr"] <= k + 1e-9)
    docs = document_ranking(SEEN, DOC_OF, order=order)
    assert reciprocal_rank(docs, {"faq"}) == pytest.approx(rr) and hit_at_k(docs, {"faq"}, 3) == hit3


def test_document_ranking_keeps_positions_or_deduplicates():
    assert document_ranking(CHUNKS, DOC_OF) == ["manual", "manual", "manual", "faq", "terms"]
    assert document_ranking(CHUNKS, DOC_OF, order="dedup_then_cut") == ["manual", "faq", "terms"]
    with pytest.raises(InputError, match="unknown chunk ID 'zz'"):
        document_ranking(["zz"], DOC_OF)
