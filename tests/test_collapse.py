"""The seed case: naive 1.50, cut-then-dedup 0.50, dedup-then-cut 1.00."""

import pandas as pd
import pytest

from rag_metrics import InputError, collapse_to_documents, evaluate, recall_at_k
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
