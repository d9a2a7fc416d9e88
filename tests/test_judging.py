"""Judges on hand-made chunks, page-level evaluation, failure breakdown, upper bounds."""

import pandas as pd
import pytest

from rag_metrics.retrieval.chunking import chunk_fixed
from rag_metrics.io.golden import load_golden
from rag_metrics.analysis.failures import failure_breakdown, upper_bounds
from rag_metrics.judging.judges import DocumentJudge, MarkerJudge, OverlapJudge, judge_run
from rag_metrics.measures.pages import evaluate_pages
from rag_metrics.retrieval.retrievers import BM25Retriever


def satisfied(judge, chunk, gold, corpus):
    return judge.satisfied(chunk, gold, judge.index(corpus))


def _page(corpus, doc, page):
    return corpus.page_text(doc, page)


def _chunk(doc, text):
    return {"doc_id": doc, "text": text}


def test_chunk_starting_mid_page_fails_marker_and_passes_overlap(corpus):
    page4 = _page(corpus, "expense_policy", 4)
    mid = page4[len(page4) // 3 :]  # no [p.4] marker: it starts mid-page
    gold = [("expense_policy", 4)]
    assert "[p." not in mid
    assert satisfied(MarkerJudge(), _chunk("expense_policy", mid), gold, corpus) == set()
    assert satisfied(OverlapJudge(), _chunk("expense_policy", mid), gold, corpus) == {("expense_policy", 4)}
    assert satisfied(MarkerJudge(), _chunk("expense_policy", page4), gold, corpus) == {("expense_policy", 4)}


def test_wrong_document_with_identical_text_fails_both(corpus):
    page4 = _page(corpus, "expense_policy", 4)
    gold = [("expense_policy", 4)]
    for judge in (MarkerJudge(), OverlapJudge(), DocumentJudge()):
        assert satisfied(judge, _chunk("travel_policy", page4), gold, corpus) == set()


def test_japanese_text_is_matched_by_characters(corpus):
    page = _page(corpus, "faq_ja", 2)
    start = page.index("承認された経費")
    fragment = page[start : start + 30].replace("５", "5")  # half-width digit: NFKC on both sides
    gold = [("faq_ja", 2)]
    assert satisfied(OverlapJudge(min_chars=24), _chunk("faq_ja", fragment), gold, corpus) == {("faq_ja", 2)}
    assert satisfied(OverlapJudge(min_chars=40), _chunk("faq_ja", fragment), gold, corpus) == set()


def test_window_edges(corpus):
    page6 = _page(corpus, "travel_policy", 6)
    chunk = _chunk("travel_policy", page6)
    for window, expected in ((0, set()), (1, {("travel_policy", 5)}), (2, {("travel_policy", 5)})):
        assert satisfied(MarkerJudge(window=window), chunk, [("travel_policy", 5)], corpus) == expected
        assert satisfied(OverlapJudge(window=window), chunk, [("travel_policy", 5)], corpus) == expected
    # two pages away: only window 2 reaches
    assert satisfied(MarkerJudge(window=1), chunk, [("travel_policy", 4)], corpus) == set()
    assert satisfied(MarkerJudge(window=2), chunk, [("travel_policy", 4)], corpus) == {("travel_policy", 4)}


def test_min_chars_longer_than_the_chunk_never_matches(corpus):
    chunk = _chunk("expense_policy", "within 30 days of the date")
    assert satisfied(OverlapJudge(min_chars=10), chunk, [("expense_policy", 3)], corpus) == {("expense_policy", 3)}
    assert satisfied(OverlapJudge(min_chars=200), chunk, [("expense_policy", 3)], corpus) == set()


def test_bad_judge_parameters():
    with pytest.raises(ValueError, match="'min_chars' parameter must be an int >= 1"):
        OverlapJudge(min_chars=0)
    with pytest.raises(ValueError, match="'window' parameter must be an int >= 0"):
        MarkerJudge(window=-1)


@pytest.fixture(scope="module")
def setup(corpus):
    golden = load_golden(corpus=corpus, sample=True)
    chunks = chunk_fixed(corpus, 300, 50)
    retriever = BM25Retriever(chunks)
    return golden, chunks, retriever, retriever.search(golden.labelled.reset_index(), 10)


def test_page_level_evaluation_orders_the_judges(corpus, setup):
    golden, chunks, _, run = setup
    ms = ["hit@3", "recall@3", "mrr", "precision@3", "ndcg@3", "map"]
    doc = evaluate_pages(golden, run, ms, judge=DocumentJudge(), corpus=corpus, chunks=chunks).summary["mean"]
    over = evaluate_pages(golden, run, ms, judge=OverlapJudge(), corpus=corpus, chunks=chunks)
    mark = evaluate_pages(golden, run, ms, judge=MarkerJudge(), corpus=corpus, chunks=chunks).summary["mean"]
    # A stricter ruler can only lose hits, page coverage and early hits. (Precision, nDCG and AP count
    # chunks that satisfy a *new* gold page: the document judge satisfies all of a document's gold pages
    # with its first chunk, so those are not monotone across judges.)
    monotone = ["hit@3", "recall@3", "mrr"]
    assert (doc[monotone] >= over.summary["mean"][monotone] - 1e-12).all()
    assert (over.summary["mean"][monotone] >= mark[monotone] - 1e-12).all()
    assert over.settings == {**over.settings, "level": "page", "judge": "overlap", "min_chars": 24, "window": 1}
    assert over.summary.loc["hit@3", "excluded"] == 6  # no_answer questions: undefined, counted
    assert ((over.per_question[ms].fillna(0) >= 0) & (over.per_question[ms].fillna(0) <= 1)).all().all()


def test_page_recall_counts_a_chunk_covering_two_gold_pages(corpus):
    from rag_metrics.io.golden import GoldenSet

    text = corpus.text("expense_policy")
    p3, p4 = corpus.pages.query("doc_id == 'expense_policy' and page in (3, 4)")["start"].tolist()
    chunk = pd.DataFrame({"chunk_id": ["x"], "doc_id": ["expense_policy"], "text": [text[p4 - 120 : p4 + 120]]})
    run = pd.DataFrame({"question_id": ["q"], "rank": [1], "chunk_id": ["x"], "doc_id": ["expense_policy"]})
    golden = GoldenSet(
        questions=pd.DataFrame({"type": ["fact"]}, index=pd.Index(["q"], name="question_id")),
        gold=pd.DataFrame({"question_id": ["q"], "doc_id": ["expense_policy"], "relevance": [1.0], "type": ["fact"]}),
        gold_pages=pd.DataFrame({"question_id": ["q", "q"], "doc_id": ["expense_policy"] * 2, "page": [3, 4]}),
        backlog=(),
    )
    judged = judge_run(run, chunk, golden.gold_pages, OverlapJudge(window=0), corpus)
    assert judged["satisfies"].iloc[0] == {("expense_policy", 3), ("expense_policy", 4)}
    ev = evaluate_pages(golden, run, ["recall@1", "precision@1", "ndcg@1"], judge=OverlapJudge(window=0), corpus=corpus,
                        chunks=chunk)
    assert ev.per_question.loc["q", "recall@1"] == 1.0  # both pages covered by one chunk
    assert ev.per_question.loc["q", "precision@1"] == 1.0 and ev.per_question.loc["q", "ndcg@1"] == 1.0


def test_failure_breakdown_partitions_the_misses(corpus, setup):
    golden, chunks, _, run = setup
    k = 3
    fb = failure_breakdown(golden, run, chunks, MarkerJudge(), corpus, k)
    hits = evaluate_pages(golden, run, [f"hit@{k}"], judge=MarkerJudge(), corpus=corpus,
                          chunks=chunks).per_question[f"hit@{k}"]
    assert set(fb["question_id"]) == set(hits.index[hits == 0])
    assert set(fb["failure"]) <= {"not_retrieved", "other_document_first", "wrong_page"}
    top = run[run["rank"] <= k]
    gold = golden.gold_pages.groupby("question_id")["doc_id"].agg(set)
    for row in fb.itertuples():
        docs = top[top["question_id"] == row.question_id].sort_values("rank")["doc_id"].tolist()
        if row.failure == "not_retrieved":
            assert not set(docs) & gold[row.question_id]
        elif row.failure == "other_document_first":
            assert docs[0] not in gold[row.question_id] and set(docs) & gold[row.question_id]
        else:
            assert docs[0] in gold[row.question_id]


def test_upper_bounds_table(corpus, setup):
    golden, chunks, retriever, _ = setup
    table = upper_bounds(golden, corpus, chunks, retriever, judge=OverlapJudge())
    assert list(table.columns) == ["hit@1", "hit@3", "hit@5", "mrr"]
    assert list(table.index) == ["no filter", "gold genre only (upper bound)", "gold document only (upper bound)"]
    assert (table.iloc[2] >= table.iloc[0] - 1e-12).all()
    assert table.attrs["settings"] == {"level": "page", "judge": "overlap", "min_chars": 24, "window": 1,
                                       "boilerplate_share": 0.5, "boilerplate_min_pages": 3}


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from rag_metrics.judging.judges import PageJudge  # noqa: E402

_DOC = st.sampled_from(["a", "b", "c"])
_ITEM = st.tuples(st.sampled_from(["q1", "q2", "q3"]), _DOC, st.lists(st.integers(1, 6), max_size=3),
                  st.lists(st.integers(1, 6), max_size=3))


@given(st.lists(_ITEM, max_size=12), st.dictionaries(st.sampled_from(["q1", "q2", "q3"]),
                                                      st.lists(st.tuples(_DOC, st.integers(1, 6)), max_size=4)),
       st.integers(0, 2))
def test_batch_judging_passes_over_items_without_gold_in_their_document(items, gold, window):
    """The batch path (items whose document holds no gold page of their question skipped) equals judging each item
    against its question's whole gold list, for every judge that credits only its own document."""
    frame = pd.DataFrame({"question_id": [q for q, *_ in items], "doc_id": [d for _, d, *_ in items],
                          "pages": [tuple(p) for *_, p, _ in items],
                          "text": [" ".join(f"[p.{m}] body" for m in ms) for *_, ms in items]})
    for judge in (DocumentJudge(), PageJudge(window=window), MarkerJudge(window=window)):
        one_by_one = [frozenset(judge.satisfied(dict(zip(frame.columns, row)), gold.get(row[0], [])))
                      for row in frame.itertuples(index=False, name=None)]
        assert judge.satisfy(frame, gold) == one_by_one


def test_judged_frames_share_the_runs_columns_and_never_write_them():
    """judge_run's output holds the run's own column arrays (no copy of a 1M-row log per judge), adds its columns to
    itself alone, and judging a judged frame again replaces its judged columns without touching the first."""
    import numpy as np

    run = pd.DataFrame({"question_id": ["q1", "q1", "q2"], "rank": [1, 2, 1], "doc_id": ["a", "b", "a"],
                        "pages": [(1,), (2,), (3,)], "text": ["x", "y", "z"]})
    gold = pd.DataFrame({"question_id": ["q1", "q2"], "doc_id": ["a", "b"], "page": [1, 1]})
    before = run.copy()
    first = judge_run(run, None, gold, DocumentJudge(), None)
    assert np.shares_memory(first["rank"].to_numpy(), run["rank"].to_numpy())
    assert list(run.columns) == list(before.columns) and run.equals(before)
    assert first["hit"].tolist() == [True, False, False]
    second = judge_run(first, None, gold, PageJudge(window=0), None)
    assert second["hit"].tolist() == [True, False, False] and second["satisfies"].tolist()[0] == {("a", 1)}
    third = judge_run(first.assign(doc_id=["b", "a", "b"]), None, gold, DocumentJudge(), None)
    assert third["hit"].tolist() == [False, True, True]
    assert first["hit"].tolist() == [True, False, False] and run.equals(before)
    assert list(third.columns).count("hit") == 1
