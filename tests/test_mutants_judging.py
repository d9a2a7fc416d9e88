"""Judges and the boilerplate rule at their edges, by value: the window's last page, the gold page a result row
is judged against, the page counts at which a repeated fragment becomes boilerplate."""

import pandas as pd
import pytest

from rag_metrics.io.corpus import corpus_from_pages
from rag_metrics.judging.index import DEFAULT_BOILERPLATE, Boilerplate
from rag_metrics.judging.judges import DocumentJudge, MarkerJudge, OverlapJudge, PageJudge, judge_run

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
