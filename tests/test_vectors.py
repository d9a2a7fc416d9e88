"""Normalization, norm audits, numpy vs FAISS search, and the threshold pass counts (not only the top ID)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag_metrics.retrieval.vectors import inner_product_search, l2_normalize, norm_audit, threshold_audit

QUERY = [2.0, 0.0]
DOCS = [[1.0, 0.0], [3.0, 4.0], [2.0, 3.0]]
IDS = ["A", "B", "C"]


def _regime(audit, regime):
    t = audit.table[audit.table["regime"] == regime]
    return t["id"].tolist(), t["score"].tolist()


@pytest.mark.parametrize("backend", ["numpy", "faiss"])
def test_seed_case(backend):
    audit = threshold_audit(QUERY, DOCS, 0.8, ids=IDS, backend=backend)
    assert audit.pass_counts == {"raw": 3, "documents_normalized": 3, "both_normalized": 1}
    ids, scores = _regime(audit, "raw")
    assert ids == ["B", "C", "A"] and scores == pytest.approx([6.0, 4.0, 2.0])
    ids, scores = _regime(audit, "documents_normalized")
    assert ids == ["A", "B", "C"] and scores == pytest.approx([2.0, 1.2, 2 * 2 / np.sqrt(13)], abs=1e-6)
    ids, scores = _regime(audit, "both_normalized")
    assert ids == ["A", "B", "C"] and scores == pytest.approx([1.0, 0.6, 2 / np.sqrt(13)], abs=1e-6)
    assert round(2 / np.sqrt(13), 3) == 0.555 and round(4 / np.sqrt(13), 3) == 1.109


def test_top_id_alone_cannot_see_the_bug():
    audit = threshold_audit(QUERY, DOCS, 0.8, ids=IDS)
    # The top ID is the same with and without query normalization; only the pass count differs.
    assert _regime(audit, "documents_normalized")[0][0] == _regime(audit, "both_normalized")[0][0] == "A"
    assert audit.pass_counts["documents_normalized"] != audit.pass_counts["both_normalized"]


@pytest.mark.parametrize("scale, expected", [(0.5, 0), (1.0, 1), (1.4, 2), (1.5, 3), (2.0, 3), (10.0, 3)])
def test_pass_count_follows_the_query_length(scale, expected):
    # documents normalized, query = scale * unit vector: passes when cos >= 0.8 / scale
    # (cos: A 1.0, B 0.6, C 0.5547; at 1.4 the bar is 0.571, at 1.5 it is 0.533)
    audit = threshold_audit([scale, 0.0], DOCS, 0.8, ids=IDS)
    assert audit.pass_counts["documents_normalized"] == expected
    assert audit.pass_counts["both_normalized"] == 1
    assert audit.query_norm == pytest.approx(scale)


def test_threshold_compares_unrounded_scores():
    # cos = 0.6 exactly for B; a threshold just above must exclude it although both round to 0.600
    audit = threshold_audit([1.0, 0.0], DOCS, 0.6000001, ids=IDS)
    assert audit.pass_counts["both_normalized"] == 1
    assert threshold_audit([1.0, 0.0], DOCS, 0.6, ids=IDS).pass_counts["both_normalized"] == 2


@given(st.lists(st.floats(-5, 5), min_size=3, max_size=3).filter(lambda v: np.linalg.norm(v) > 1e-3),
       st.floats(0.1, 10))
def test_documents_normalized_scores_are_query_length_times_cosine(q, scale):
    q = np.array(q) * scale
    docs = np.array([[1.0, 2.0, 0.5], [-1.0, 0.3, 2.0], [0.2, 0.2, 0.2]])
    audit = threshold_audit(q, docs, 0.5)
    _, cos = _regime(audit, "both_normalized")
    ids_n, scaled = _regime(audit, "documents_normalized")
    assert np.allclose(scaled, np.array(cos) * np.linalg.norm(q))
    assert ids_n == _regime(audit, "both_normalized")[0]  # same ranking


@pytest.mark.parametrize("bad, message", [
    ([[1.0, 2.0], [0.0, 0.0]], "row 'y' is a zero vector"),
    ([[1.0, 2.0], [np.nan, 1.0]], "row 'y' has a non-finite value"),
    ([[np.inf, 1.0], [1.0, 1.0]], "row 'x' has a non-finite value"),
])
def test_l2_normalize_refuses_zero_and_non_finite_rows(bad, message):
    with pytest.raises(ValueError, match=message):
        l2_normalize(bad, ids=["x", "y"])
    with pytest.raises(ValueError, match="row [01] "):
        l2_normalize(bad)


def test_l2_normalize():
    out = l2_normalize([[3.0, 4.0], [0.0, 2.0]])
    assert np.allclose(out, [[0.6, 0.8], [0.0, 1.0]])
    assert np.allclose(l2_normalize([3.0, 4.0]), [0.6, 0.8])


def test_norm_audit_hand_made_matrix():
    m = np.array([[0.6, 0.8], [1.0, 0.0], [3.0, 4.0], [0.0, 0.0], [np.nan, 1.0], [0.0, 1.0005]])
    a = norm_audit(m, ids=list("abcdef"), tolerance=1e-3)
    assert a.count == 6 and a.zero == 1 and a.non_finite == 1
    assert a.off_unit == 3 and a.off_unit_ids == ("c", "d", "e")  # f is within tolerance
    assert a.min_norm == 0.0 and a.max_norm == 5.0
    assert a.mean_norm == pytest.approx((1 + 1 + 5 + 0 + 1.0005) / 5)
    assert not a.ok and norm_audit(l2_normalize(m[:3])).ok


def test_numpy_and_faiss_agree():
    rng = np.random.default_rng(0)
    docs = rng.normal(size=(200, 32))
    docs[17] = docs[3]  # an exact tie: both order by row index
    q = rng.normal(size=32)
    a = inner_product_search(q, docs, 50, backend="numpy")
    b = inner_product_search(q, docs, 50, backend="faiss")
    assert a["id"].tolist() == b["id"].tolist()
    assert np.allclose(a["score"], b["score"], rtol=1e-5, atol=1e-4)
    full = inner_product_search(q, docs, backend="numpy")["id"].tolist()
    assert full == inner_product_search(q, docs, backend="faiss")["id"].tolist()
    assert full.index(3) + 1 == full.index(17)
    with pytest.raises(ValueError, match="'backend' parameter must be 'numpy' or 'faiss'"):
        inner_product_search(q, docs, backend="annoy")
    with pytest.raises(ValueError, match="query has dimension 32, vectors have 3"):
        inner_product_search(q, docs[:, :3])


def test_pass_counts_match_threshold_audit():
    from rag_metrics.retrieval.vectors import pass_counts

    queries = np.array([[2.0, 0.0], [0.0, 3.0]])
    table = pass_counts(queries, DOCS, [0.5, 0.8], query_ids=["q1", "q2"])
    for qid, q in zip(["q1", "q2"], queries):
        for t in (0.5, 0.8):
            assert table.loc[qid, t] == threshold_audit(q, DOCS, t).pass_counts["both_normalized"]
    raw_q = pass_counts(queries, DOCS, [0.8], normalize_queries=False)
    assert raw_q.loc[0, 0.8] == threshold_audit(queries[0], DOCS, 0.8).pass_counts["documents_normalized"] == 3
