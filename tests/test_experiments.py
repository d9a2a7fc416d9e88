"""Experiment helpers: context cost by hand, and the grid's shape."""

import pandas as pd
import pytest

from rag_metrics.io.corpus import load_corpus
from rag_metrics.io.golden import load_golden
from rag_metrics.lab.grid import chunking_grid, context_cost
from rag_metrics.retrieval.retrievers import make_retriever


def test_context_cost_hand_computed():
    chunks = pd.DataFrame({"chunk_id": ["a", "b", "c"], "text": ["abcd", "これは", "x y"], "prefix": ["", "T", ""]})
    run = pd.DataFrame({"question_id": ["q", "q", "q", "r"], "rank": [1, 2, 3, 1], "chunk_id": ["a", "b", "c", "c"]})
    cost = context_cost(run, chunks, 2).set_index("question_id")
    # q: "abcd" (4 chars, 1 token) + "T\nこれは" (5 chars, 4 tokens: T, こ, れ, は)
    assert cost.loc["q"].tolist() == [9, 5]
    assert cost.loc["r"].tolist() == [3, 2]


def test_grid_shape_and_skips_bad_overlaps():
    corpus = load_corpus(sample=True)
    golden = load_golden(corpus=corpus, sample=True)
    grid = chunking_grid(corpus, golden, sizes=[300, 100], overlaps=[0, 100], ks=[1, 3], heading=True)
    configs = set(zip(grid.summary["size"], grid.summary["overlap"].fillna(-1)))
    assert configs == {(300, 0), (300, 100), (100, 0), ("heading", -1)}  # 100/100 skipped
    assert (grid.summary["evaluated"] == 65).all()
    assert set(grid.by_type["type"]) == {"definition", "fact", "procedure", "multi_hop"}
    with pytest.raises(ValueError, match="'retriever' parameter of make_retriever must be one of"):
        make_retriever("splade", None)


def test_gold_misses_counts_cross_language_and_what_cannot_fit():
    from rag_metrics.lab.grid import gold_misses, question_language
    from rag_metrics.io.corpus import corpus_from_pages
    from rag_metrics.io.golden import golden_from_records

    corpus = corpus_from_pages([
        {"doc_id": "policy", "page": 1, "text": "[p.1]\nClaims within 30 days.", "language": "en"},
        {"doc_id": "faq_ja", "page": 1, "text": "[p.1]\n経費は30日以内。", "language": "ja"},
        {"doc_id": "guide", "page": 1, "text": "[p.1]\nA guide.", "language": "en"},
    ])
    golden = golden_from_records(enumerate([
        # three gold documents, one of them Japanese: at k = 1 two cannot fit
        {"question_id": "q1", "question": "When are claims due?", "type": "multi_hop",
         "gold_docs": ["policy", "faq_ja", "guide"], "answer": "30 days"},
        {"question_id": "q2", "question": "経費の期限は？", "type": "fact", "gold_docs": ["faq_ja"], "answer": "30日"},
        {"question_id": "q3", "question": "Is there a guide?", "type": "fact", "gold_docs": ["guide"], "answer": "yes"},
        {"question_id": "q4", "question": "Who is the CEO?", "type": "no_answer", "gold_docs": [], "answer": None},
    ], start=1), corpus=corpus)
    run = pd.DataFrame({"question_id": ["q1", "q1", "q2", "q3"], "rank": [1, 2, 1, 1],
                        "doc_id": ["policy", "faq_ja", "policy", "guide"]})
    m = gold_misses(golden, run, 1, corpus)
    # missed at k = 1: q1 faq_ja (cross), q1 guide (same language), q2 faq_ja (same language: both ja)
    assert (m.gold, m.missed, m.cross_language, m.cannot_fit) == (5, 3, 1, 2)
    assert m.avoidable == 1 and m.avoidable_cross_language == 0  # q1's one cross miss may be one that cannot fit
    assert set(zip(m.table["question_id"], m.table["doc_id"])) == {("q1", "faq_ja"), ("q1", "guide"), ("q2", "faq_ja")}
    m2 = gold_misses(golden, run, 2, corpus)
    # k = 2: q1 misses guide only (cannot fit: 3 gold > 2), q2 still misses faq_ja
    assert (m2.missed, m2.cross_language, m2.cannot_fit, m2.avoidable, m2.avoidable_cross_language) == (2, 0, 1, 1, 0)
    assert question_language("経費の期限は？") == "ja" and question_language("Is 30 days OK?") == "en"
    with pytest.raises(ValueError):
        gold_misses(golden, run, 0, corpus)
