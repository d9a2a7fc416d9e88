"""Judges on hand-made chunks, page-level evaluation, failure breakdown, upper bounds."""

import pandas as pd
import pytest

from rag_metrics.retrieval.chunking import chunk_fixed
from rag_metrics.io.golden import load_golden
from rag_metrics.experiment.failures import failure_breakdown, upper_bounds
from rag_metrics.judging.judges import DocumentJudge, MarkerJudge, OverlapJudge, judge_run
from rag_metrics.measures.page_level import evaluate_pages
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
from rag_metrics.io.corpus import corpus_from_pages
from rag_metrics.judging.boilerplate import DEFAULT_BOILERPLATE, Boilerplate

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


# ---- at the edges, by value ----------------------------------------------------------
# Judges and the boilerplate rule at their edges, by value: the window's last page, the gold page a result row
# is judged against, the page counts at which a repeated fragment becomes boilerplate.


FOOTER = "Northwind Handbook, internal use only, do not copy"  # 50 characters, longer than min_chars=24

BODIES = [
    "Travellers book economy class for flights shorter than six hours and keep every boarding pass.",
    "Hotel rooms are refunded up to the city rate; minibar charges are always personal expenses.",
    "Meal allowances differ by country and are paid as a flat amount per calendar day abroad.",
    "Rental cars need prior approval from a director and the cheapest suitable category.",
    "Claims are filed within thirty days of return with original receipts attached to the form.",
    "Lost receipts are replaced by a signed statement that names the vendor, date and amount.",
]


def _corpus(n_pages: int, footer_pages, doc="handbook"):
    """One document of ``n_pages`` pages with distinct bodies; ``footer_pages`` carry the same footer."""
    return corpus_from_pages([{"doc_id": doc, "page": p, "text": BODIES[p - 1] + ("\n" + FOOTER if p in footer_pages
                                                                                   else "")}
                              for p in range(1, n_pages + 1)])


def _sat(judge, item, gold, corpus=None):
    return judge.satisfied(item, gold, judge.index(corpus) if corpus is not None else None)


@pytest.mark.parametrize("window", [0, 1, 2])
def test_page_judge_accepts_exactly_the_pages_within_the_window(window):
    gold = [("d", 5)]
    for page in range(1, 10):
        expected = {("d", 5)} if abs(page - 5) <= window else set()
        assert _sat(PageJudge(window=window), {"doc_id": "d", "pages": (page,)}, gold) == expected, page
    assert _sat(PageJudge(window=window), {"doc_id": "other", "pages": (5,)}, gold) == set()
    assert _sat(PageJudge(window=window), {"doc_id": "d", "pages": ()}, gold) == set()


@pytest.mark.parametrize("window", [0, 1, 2])
def test_marker_judge_accepts_exactly_the_markers_within_the_window(window):
    for page in range(1, 10):
        expected = {("d", 5)} if abs(page - 5) <= window else set()
        item = {"doc_id": "d", "text": f"[p.{page}] some text of that page"}
        assert _sat(MarkerJudge(window=window), item, [("d", 5)]) == expected, page


@pytest.mark.parametrize("window", [0, 1, 2])
def test_overlap_judge_reaches_both_ends_of_the_window(window):
    corpus = _corpus(6, footer_pages=())
    gold = [("handbook", 3)]
    for page in range(1, 7):
        item = {"doc_id": "handbook", "text": BODIES[page - 1]}
        expected = {("handbook", 3)} if abs(page - 3) <= window else set()
        assert _sat(OverlapJudge(window=window), item, gold, corpus) == expected, page


def test_judge_run_judges_each_row_against_the_gold_page_as_labelled():
    run = pd.DataFrame({"question_id": ["q1", "q1", "q2"], "rank": [1, 2, 1], "doc_id": ["d", "d", "e"],
                        "pages": [(4,), (7,), (2,)], "text": [None, None, None]})
    gold = pd.DataFrame({"question_id": ["q1", "q2"], "doc_id": ["d", "e"], "page": [4, 3]})
    out = judge_run(run, None, gold, PageJudge(window=0), None)
    assert [set(s) for s in out["satisfies"]] == [{("d", 4)}, set(), set()]
    assert list(out["hit"]) == [True, False, False]
    doc = judge_run(run, None, gold, DocumentJudge(), None)
    assert [set(s) for s in doc["satisfies"]] == [{("d", 4)}, {("d", 4)}, {("e", 3)}]


@pytest.mark.parametrize("n_pages, expected", [(2, None), (3, 3), (4, 3), (5, 3), (6, 4), (7, 4), (8, 5), (10, 6)])
def test_boilerplate_needs_more_than_half_of_the_pages_and_at_least_three(n_pages, expected):
    assert DEFAULT_BOILERPLATE.pages_needed(n_pages) == expected
    assert Boilerplate(share=1).pages_needed(n_pages) is None


def test_boilerplate_min_pages_is_inclusive():
    rule = Boilerplate(share=0.5, min_pages=4)
    assert rule.pages_needed(3) is None
    assert rule.pages_needed(4) == 4


def _footer_only_item():
    return {"doc_id": "handbook", "text": FOOTER}


def test_a_two_page_document_keeps_its_footer_as_evidence():
    """Default rule: fewer than 3 pages -- nothing is boilerplate, the footer shared with page 1 counts."""
    corpus = _corpus(2, footer_pages=(1, 2))
    assert _sat(OverlapJudge(window=0), _footer_only_item(), [("handbook", 1)], corpus) == {("handbook", 1)}


def test_a_footer_on_exactly_the_needed_number_of_pages_is_boilerplate():
    """4 pages: more than half is 3; a footer on exactly 3 pages is furniture, on 2 it is evidence."""
    on_three = _corpus(4, footer_pages=(1, 2, 3))
    assert _sat(OverlapJudge(window=0), _footer_only_item(), [("handbook", 1)], on_three) == set()
    on_two = _corpus(4, footer_pages=(1, 2))
    assert _sat(OverlapJudge(window=0), _footer_only_item(), [("handbook", 1)], on_two) == {("handbook", 1)}
    # the rule turned off: the footer counts again
    no_rule = OverlapJudge(window=0, boilerplate=None)
    assert _sat(no_rule, _footer_only_item(), [("handbook", 1)], on_three) == {("handbook", 1)}


def test_a_footer_on_exactly_half_of_the_pages_is_not_boilerplate():
    """6 pages: a footer on 3 (exactly half) stays evidence; on 4 (more than half) it is furniture."""
    half = _corpus(6, footer_pages=(1, 2, 3))
    assert _sat(OverlapJudge(window=0), _footer_only_item(), [("handbook", 1)], half) == {("handbook", 1)}
    more = _corpus(6, footer_pages=(1, 2, 3, 4))
    assert _sat(OverlapJudge(window=0), _footer_only_item(), [("handbook", 1)], more) == set()


def test_item_pages_keeps_logged_pages_of_the_document_else_the_pages_sharing_the_most_fragments():
    from rag_metrics.judging.page_index import PageIndex
    from rag_metrics.judging.locate import item_pages, locate_items

    shared = "the reimbursement window is thirty days"
    pages = pd.DataFrame({"doc_id": ["a", "a", "a", "b"], "page": [1, 2, 3, 1],
                          "text": ["nothing relevant on this first page at all", f"intro {shared} here",
                                   f"recap: {shared} again", f"{shared} in another document"]})
    index, n_pages = PageIndex(pages), {"a": 3, "b": 1}
    text = f"{shared}, and then many words that occur on no page whatsoever in this corpus"
    assert item_pages("a", (2,), text, index, n_pages, 24) == ([2], "metadata")
    # a logged page the document does not have is dropped; the text decides, every page tied for the most kept
    assert item_pages("a", (7,), text, index, n_pages, 24) == ([2, 3], "text")
    assert item_pages("a", None, None, index, n_pages, 24) == ([], "metadata")
    assert item_pages("a", None, "no fragment of this occurs anywhere at all", index, n_pages, 24) == ([], "text")
    # unlike locate_items, the document is never left and a minority of shared fragments suffices
    assert locate_items([text], index).iloc[0]["placed_by"] == "not found"


def test_a_judge_label_shows_no_python_none():
    """Issue 47: the report's ruler table read 'boilerplate_share=None'."""
    from dataclasses import replace

    from rag_metrics.judging.judges import OverlapJudge, describe_judge

    kept = describe_judge(replace(OverlapJudge(), boilerplate=None))
    assert kept == "overlap (min_chars=24, window=1, boilerplate_share=off)" and "None" not in kept
    assert describe_judge(OverlapJudge()).endswith("boilerplate_share=0.5, boilerplate_min_pages=3)")
