"""Experiment helpers: context cost by hand, and the grid's shape."""

import pandas as pd
import pytest

from rag_metrics.io.corpus import load_corpus
from rag_metrics.io.golden import load_golden
from rag_metrics.analysis.grid import chunking_grid, context_cost
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


def test_the_former_module_names_the_same_objects():
    from rag_metrics.analysis import experiments, grid
    from rag_metrics.retrieval import retrievers

    assert experiments.chunking_grid is grid.chunking_grid and experiments.context_cost is grid.context_cost
    assert experiments.make_retriever is retrievers.make_retriever and experiments.RETRIEVERS is retrievers.RETRIEVERS
