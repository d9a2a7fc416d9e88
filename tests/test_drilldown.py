"""Drill-downs (rag_metrics.experiment.drilldown) through their public functions: the top k items (k at, below
and above the number logged, default the largest k), the page window's both edges and just beyond, an item
without text, the verdicts of every judge, and longest_common by hand (issue 50)."""

import json

import pytest

from rag_metrics.core.errors import InputError
from rag_metrics.experiment.drilldown import explain, explain_data, longest_common
from rag_metrics.io.corpus import data_dir, load_corpus
from rag_metrics.io.golden import load_golden

DATA = data_dir()


def _piece(corpus, doc, page):
    return " ".join(corpus.page_text(doc, page).split())[40:160]


@pytest.fixture(scope="module")
def drill(tmp_path_factory):
    """One question, six items: text from gold page p + 2 (beyond the window 1), p + 1 and p - 1 (its both edges),
    an item with no text, text from the gold page p, and that text followed by words of no page."""
    from rag_metrics.experiment.evaluate import evaluate_log
    from rag_metrics.io.logs import load_log

    corpus = load_corpus(DATA / "corpus")
    golden = load_golden(DATA / "golden.jsonl", corpus=corpus)
    gold = golden.pages_by_question()
    qid = next(q for q, pages in gold.items() if len(pages) == 1 and pages[0][1] >= 2
               and corpus.page_text(pages[0][0], pages[0][1] + 2).strip())
    doc, page = gold[qid][0]
    items = [{"doc_id": doc, "text": _piece(corpus, doc, page + 2), "score": 5},
             {"doc_id": doc, "text": _piece(corpus, doc, page + 1), "score": 4},
             {"doc_id": doc, "text": _piece(corpus, doc, page - 1), "score": 3},
             {"doc_id": doc, "page": page, "score": 2},
             {"doc_id": doc, "text": _piece(corpus, doc, page), "score": 1},
             {"doc_id": doc, "text": _piece(corpus, doc, page) + " qqqq zzzz unrelated closing words", "score": 0}]
    path = tmp_path_factory.mktemp("drill") / "log.jsonl"
    path.write_text(json.dumps({"question_id": qid, "retrieved": items}) + "\n", encoding="utf-8")
    result = evaluate_log(golden, load_log(path), corpus)
    result.other = lambda **options: evaluate_log(golden, load_log(path), corpus, **options)
    return result, qid


def _marked(item):
    return [kind for _, kind in item["segments"] if kind]


def test_the_window_reaches_both_neighbouring_pages_and_not_the_page_beyond(drill):
    result, qid = drill
    items = explain_data(result, qid, k=5)["items"]
    assert [i["rank"] for i in items] == [1, 2, 3, 4, 5]
    assert not _marked(items[0])                  # gold page + 2: outside the window of 1
    assert _marked(items[1]) and _marked(items[2])  # gold page + 1 and - 1: inside
    assert _marked(items[4])                       # the gold page itself
    assert items[4]["longest"] >= 100 and items[0]["longest"] < 40


def test_the_overlap_judge_marks_the_match_that_decides_and_the_pieces_rebuild_the_text(drill):
    result, qid = drill
    assert result.primary == "overlap"
    items = explain_data(result, qid, k=6)["items"]
    for item in items[1:3] + items[4:]:
        assert item["hit"] and _marked(item) == ["decides"]
        assert all(piece for piece, _ in item["segments"])           # no empty piece, even at the start
    last = items[5]["segments"]
    assert [kind for _, kind in last] == ["decides", False]
    assert last[1][0].strip() == "qqqq zzzz unrelated closing words"
    assert "".join(p for p, _ in last).startswith(last[0][0])


def test_under_another_judge_shared_text_is_context_and_a_wider_window_reaches_further(drill):
    result, qid = drill
    page = result.other(judge="page")
    assert page.primary == "page"
    items = explain_data(page, qid, k=6)["items"]
    assert _marked(items[4]) == ["context"] and not any("decides" in _marked(i) for i in items)
    wide = explain_data(result.other(window=2), qid, k=6)["items"]
    assert _marked(wide[0]) == ["decides"]             # gold page + 2: inside a window of 2


def test_an_item_without_text_has_one_empty_segment_and_no_markers(drill):
    result, qid = drill
    item = explain_data(result, qid, k=5)["items"][3]
    assert item["segments"] == [("", False)] and item["markers"] == [] and item["longest"] == 0


@pytest.mark.parametrize("k, n", [(1, 1), (2, 2), (4, 4), (5, 5), (6, 6), (10, 6)])
def test_k_takes_the_top_k_items_and_defaults_to_the_largest_cutoff(drill, k, n):
    result, qid = drill
    data = explain_data(result, qid, k=k)
    assert data["k"] == k and [i["rank"] for i in data["items"]] == list(range(1, n + 1))
    default = explain_data(result, qid)
    assert default["k"] == max(result.ks)
    assert len(default["items"]) == min(6, max(result.ks))


def test_every_judge_gives_its_verdict_and_the_hit_is_the_primary_judges(drill):
    result, qid = drill
    data = explain_data(result, qid, k=5)
    assert data["primary"] == result.primary and data["normalized"] is True
    for item in data["items"]:
        assert set(item["verdicts"]) == set(result.judged)
        assert item["hit"] == item["verdicts"][result.primary]
    assert data["hit"] == any(i["hit"] for i in data["items"])
    top = explain_data(result, qid, k=1)
    assert top["hit"] == top["items"][0]["hit"]
    assert data["gold"] == result.golden.pages_by_question()[qid]
    assert data["question_id"] == qid and data["run"] == result.name


def test_explain_is_one_line_that_says_hit_or_miss_and_k(drill):
    result, qid = drill
    text = repr(explain(result, qid, k=1))
    assert "\n" not in text and "top 1" in text and qid in text
    assert (" hit " in text) == explain_data(result, qid, k=1)["hit"]


def test_an_unknown_question_or_a_bad_k_is_refused(drill):
    result, _ = drill
    with pytest.raises(InputError, match="not in the golden set"):
        explain_data(result, "no-such-question")
    with pytest.raises(InputError):
        explain_data(result, "q001", k=0)


@pytest.mark.parametrize("text, spans, pages, expected", [
    ("abcdefghij", [(0, 10)], ["xxabcdefghijxx"], 10),            # the whole span stands on a page
    ("abcdefghij", [(0, 10)], ["abcde", "fghij"], 5),             # pieces on two pages: the longer piece
    ("abcdefghij", [(0, 4), (6, 10)], ["zzghij", "abc"], 4),      # the second span is the longer match
    ("abcdefghij", [], ["abcdefghij"], 0),                        # no span: nothing shared
    ("abcdefghij", [(2, 5)], ["cde"], 3),
])
def test_longest_common_is_the_longest_contiguous_piece_on_one_page(text, spans, pages, expected):
    assert longest_common(text, spans, pages) == expected
