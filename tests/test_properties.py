"""Property tests: the array kernels equal the per-question definitions, and invariants hold."""

import math

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from rag_metrics import (
    parse_measures,
    average_precision,
    evaluate,
    hit_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)
from rag_metrics.measures.collapse import document_ranking
from rag_metrics.measures.registry import REGISTRY

DOCS = [f"d{i}" for i in range(8)]
CHUNKS = [f"c{i}" for i in range(16)]
DOC_OF = {c: DOCS[i % len(DOCS)] for i, c in enumerate(CHUNKS)}
labels = st.sampled_from([-1, 0, 1, 2, 3])
gold_maps = st.dictionaries(st.sampled_from(DOCS), labels, max_size=6)
chunk_rankings = st.lists(st.sampled_from(CHUNKS), unique=True, max_size=12)
ks = st.integers(min_value=1, max_value=14)

FUNCS = {
    "recall": recall_at_k,
    "precision": precision_at_k,
    "hit": hit_at_k,
    "mrr": reciprocal_rank,
    "ndcg": ndcg_at_k,
    "map": average_precision,
}


def _same(a, b):
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return b is not None and math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def _measure_names(k):
    """Every registered measure, at cutoff k where it takes one and without where it may."""
    names = []
    for spec in REGISTRY.values():
        if spec.cutoff != "forbidden":
            names.append(f"{spec.name}@{k}")
        if spec.cutoff != "required":
            names.append(spec.name)
    return names


@given(
    st.lists(st.tuples(chunk_rankings, gold_maps), min_size=1, max_size=5),
    ks,
    st.sampled_from(["cut_then_dedup", "dedup_then_cut"]),
    st.sampled_from([1, 2]),
    st.sampled_from(["linear", "exponential"]),
    st.randoms(use_true_random=False),
)
def test_engine_equals_collapse_then_definition(questions, k, order, min_rel, gain, rnd):
    """Every registered measure: the DataFrame engine equals the per-question definition applied to the
    document ranking of ``order`` (:func:`document_ranking`: under cut_then_dedup a document sits at its first
    chunk's position, under dedup_then_cut at its de-duplicated rank), whatever the row order of the run and
    with gaps between ranks (only the rank order counts)."""
    golden_rows, run_rows = [], []
    for qi, (ranking, gold) in enumerate(questions):
        q = f"q{qi}"
        golden_rows += [{"question_id": q, "doc_id": d, "relevance": r} for d, r in gold.items()] or [
            {"question_id": q, "doc_id": None, "relevance": None}
        ]
        rank = 0
        for c in ranking:
            rank += rnd.choice([1, 1, 2, 7, 10**12])  # gapped ranks
            run_rows.append({"question_id": q, "rank": rank, "chunk_id": c})
    rnd.shuffle(run_rows)  # rows in any order
    run = pd.DataFrame(run_rows, columns=["question_id", "rank", "chunk_id"])
    names = _measure_names(k)
    result = evaluate(
        pd.DataFrame(golden_rows), run, names, doc_map=DOC_OF, order=order, min_rel=min_rel, gain=gain
    ).per_question
    for qi, (ranking, gold) in enumerate(questions):
        docs = document_ranking(ranking, DOC_OF, order=order)
        for m in parse_measures(names):
            expected = m.spec.reference_value(docs, gold, m.k, min_rel=min_rel, gain=gain)
            assert _same(expected, result.loc[f"q{qi}", str(m)]), (str(m), ranking, gold, expected)


@given(st.lists(st.sampled_from(DOCS), max_size=12), gold_maps, ks)
def test_bounds_and_repeats(ranked, gold, k):
    for func in FUNCS.values():
        value = func(ranked, gold, k)
        assert value is None or 0.0 <= value <= 1.0 + 1e-12
    # repeating the ranking's items never raises recall above the de-duplicated value
    doubled = [d for d in ranked for _ in (0, 1)]
    r_doubled, r_once = recall_at_k(doubled, gold, 2 * k), recall_at_k(ranked, gold, k)
    assert (r_doubled is None) == (r_once is None)
    if r_once is not None:
        assert math.isclose(r_doubled, r_once)


@given(gold_maps, ks)
def test_ideal_ranking_scores_one(gold, k):
    ideal = sorted((d for d, r in gold.items() if r >= 1), key=lambda d: -gold[d])
    if not ideal:
        assert ndcg_at_k(ideal, gold, k) is None
        return
    assert math.isclose(ndcg_at_k(ideal, gold, k), 1.0)
    assert math.isclose(average_precision(ideal, gold), 1.0)
    assert reciprocal_rank(ideal, gold) == 1.0
    assert recall_at_k(ideal, gold, len(ideal)) == 1.0


@given(st.lists(st.sampled_from(DOCS), unique=True, max_size=10), gold_maps, ks)
def test_monotone_in_k(ranked, gold, k):
    for func in (recall_at_k, hit_at_k):
        a, b = func(ranked, gold, k), func(ranked, gold, k + 1)
        assert (a is None and b is None) or a <= b
