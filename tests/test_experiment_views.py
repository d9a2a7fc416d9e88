"""Every view of an ExperimentResult, and every judge, checked by value on a run small enough to count by hand."""

import json

import pandas as pd
import pytest
from scipy.stats import binomtest

from rag_metrics.experiment.evaluate import evaluate_log
from rag_metrics.io.corpus import corpus_from_pages
from rag_metrics.io.golden import golden_from_records
from rag_metrics.io.logs import load_log
from rag_metrics.judging.judges import DocumentJudge, MarkerJudge, PageJudge, judge_run, make_judge
from rag_metrics.io.golden import load_golden

PAGES = [{"doc_id": d, "page": p, "text": f"{d} page {p} " + "lorem ipsum dolor sit amet " * 3}
         for d in ("a", "b") for p in range(1, 7)]
QUESTIONS = [
    {"question_id": "q1", "question": "one?", "type": "fact", "answer": "x", "gold_pages": [["a", 3]]},
    {"question_id": "q2", "question": "two?", "type": "fact", "answer": "x", "gold_pages": [["b", 2]]},
    {"question_id": "q3", "question": "three?", "type": "multi", "answer": "x", "gold_pages": [["a", 5], ["b", 5]]},
    {"question_id": "q4", "question": "four?", "type": "no_answer", "answer": None},
    {"question_id": "q5", "question": "five?", "type": "fact", "answer": "x", "gold_pages": [["b", 4]]},
    {"question_id": "q6", "question": "six?", "type": "fact", "answer": "x", "gold_pages": [["a", 1]]},
]
LOG = {"q1": [("a", 3)], "q2": [("a", 2), ("b", 2)], "q3": [("b", 1), ("a", 1)], "q4": [("a", 6)],
       "q5": [("a", 4), ("b", 3)], "q6": []}
ANSWERS = {"q1": "forty", "q4": "there is none"}
# By hand, under the page judge with window 0 (the logged page must be a gold page), k = 1, 2:
#   q1: a3 at 1                     hit@1 1  hit@2 1  RR 1    recall@2 1
#   q2: a2, then b2 at 2            hit@1 0  hit@2 1  RR 1/2  recall@2 1
#   q3: b1, a1 (gold a5, b5)        0 0 0 0    -- gold documents retrieved, wrong pages: wrong_page
#   q5: a4, b3 (gold b4)            0 0 0 0    -- another document first, the gold one after: other_document_first
#   q6: nothing                     0 0 0 0    -- not_retrieved
#   q4: no_answer, undefined everywhere
PAGE = {"hit@1": 0.2, "hit@2": 0.4, "mrr": 0.3, "recall@2": 0.4}
# Document judge (any item of a gold document satisfies that document's gold pages), and document level:
#   q1 1 1 1 1 | q2 0 1 1/2 1 | q3 1 1 1 1 (b then a, both gold) | q5 0 1 1/2 1 | q6 0 0 0 0
DOCUMENT = {"hit@1": 0.4, "hit@2": 0.8, "mrr": 0.6, "recall@2": 0.8}


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    corpus = corpus_from_pages(PAGES)
    golden = golden_from_records(enumerate(QUESTIONS, start=1), corpus=corpus)
    log = tmp_path_factory.mktemp("views") / "log.jsonl"
    log.write_text("".join(json.dumps({"question_id": q, "retrieved": [{"doc_id": d, "page": p} for d, p in items],
                                       **({"answer": ANSWERS[q]} if q in ANSWERS else {})}) + "\n"
                           for q, items in LOG.items()), encoding="utf-8")
    return evaluate_log(golden, load_log(log), corpus, ks=(1, 2), window=0, primary="page")


def test_the_headline_figures_and_their_intervals(result):
    assert result.headline_measures == ["hit@1", "hit@2", "mrr", "recall@2"]  # recall: q3 has two gold pages
    assert result.evaluation is result.pages["page"]
    pq = result.evaluation.per_question
    assert pq.loc[["q1", "q2", "q3", "q5", "q6"], "mrr"].tolist() == [1.0, 0.5, 0.0, 0.0, 0.0]
    assert pq.loc["q4", ["hit@1", "mrr"]].isna().all()
    head = result.headline(n_resamples=2000).loc["log"]
    assert head["n"] == 5 and {m: head[m] for m in PAGE} == pytest.approx(PAGE)
    for m, hits in (("hit@1", 1), ("hit@2", 2), ("recall@2", 2)):  # 0/1 values: Clopper-Pearson, from scipy
        ci = binomtest(hits, 5).proportion_ci(0.95, method="exact")
        assert (head[f"{m} low"], head[f"{m} high"]) == pytest.approx((ci.low, ci.high), abs=1e-9)


def test_the_ruler_table_puts_every_ruler_side_by_side(result):
    table = result.ruler_table()
    assert list(table.index) == ["document", "page", "document level (gold documents)"]
    assert table.loc["page", "judge"] == "page (window=0)" and table.loc["page", "level"] == "page"
    assert {m: table.loc["page", m] for m in PAGE} == pytest.approx(PAGE)
    for ruler in ("document", "document level (gold documents)"):
        assert {m: table.loc[ruler, m] for m in DOCUMENT} == pytest.approx(DOCUMENT), ruler
    assert table["n"].tolist() == [5, 5, 5]


def test_by_type_misses_and_failures(result):
    by_type = result.by("type", wide=True)
    assert list(by_type.index) == ["fact", "multi"]  # no_answer: nothing defined, left out
    assert by_type.loc["fact"].to_dict() == pytest.approx({"n": 4, "hit@1": 0.25, "hit@2": 0.5, "mrr": 0.375,
                                                           "recall@2": 0.5})
    assert by_type.loc["multi"].to_dict() == {"n": 1, "hit@1": 0.0, "hit@2": 0.0, "mrr": 0.0, "recall@2": 0.0}
    assert result.misses() == result.misses(2) == ["q3", "q5", "q6"]
    assert result.misses(1) == ["q2", "q3", "q5", "q6"]
    counts = result.failure_counts()
    assert counts["questions"].to_dict() == {"not_retrieved": 1, "other_document_first": 1, "wrong_page": 1}
    assert counts["question IDs"].to_dict() == {"not_retrieved": "q6", "other_document_first": "q5",
                                                "wrong_page": "q3"}


def test_no_answer_answers_and_placements(result):
    assert result.answers().to_dict() == ANSWERS
    row = result.no_answer().set_index("question_id").loc["q4"]
    assert (row["retrieved"], row["top_document"], row["answer"]) == (1, "a", "there is none")
    assert pd.isna(row["top_score"])
    assert result.placements()["items"].to_dict() == {("logged", "logged"): 8}
    assert result.raw_overlap() is None  # no text logged: the overlap judge does not apply


# ---- the judges, at the edges of their windows ----------------------------------------------------------------------

GOLD = [("d", 3), ("d", 5), ("d", 9)]


@pytest.mark.parametrize("window, pages, expected", [
    (0, [5], {("d", 5)}), (0, [4], set()), (0, [4, 9], {("d", 9)}),
    (1, [4], {("d", 3), ("d", 5)}), (1, [6], {("d", 5)}), (1, [7], set()), (1, [10], {("d", 9)}),
    (2, [7], {("d", 5), ("d", 9)}), (2, [1], {("d", 3)}), (1, [], set()),
])
def test_page_judge_window_is_inclusive(window, pages, expected):
    judge = PageJudge(window=window)
    assert judge.satisfied({"doc_id": "d", "pages": pages}, GOLD) == expected
    assert judge.satisfied({"doc_id": "other", "pages": pages}, GOLD) == set()


@pytest.mark.parametrize("window, text, expected", [
    (0, "x [p.5] y", {("d", 5)}), (0, "[p.4] y [p.6]", set()), (1, "[p.4] y", {("d", 3), ("d", 5)}),
    (1, "[p.7]", set()), (2, "[p.7]", {("d", 5), ("d", 9)}), (1, "page 5, no marker", set()), (1, None, set()),
])
def test_marker_judge_window_is_inclusive(window, text, expected):
    judge = MarkerJudge(window=window)
    assert judge.satisfied({"doc_id": "d", "text": text}, GOLD) == expected
    assert judge.satisfied({"doc_id": "e", "text": text}, GOLD) == set()


def test_document_judge_and_judge_run():
    assert DocumentJudge().satisfied({"doc_id": "d"}, GOLD) == set(GOLD)
    assert DocumentJudge().satisfied({"doc_id": "e"}, GOLD) == set()
    run = pd.DataFrame({"question_id": ["q", "q", "r"], "rank": [1, 2, 1], "doc_id": ["d", "d", "d"],
                        "pages": [[2], [8], [5]], "text": ["[p.2]", "[p.8]", "[p.5]"]})
    gold = pd.DataFrame({"question_id": ["q", "q", "r"], "doc_id": ["d", "d", "e"], "page": [3, 9, 5]})
    judged = judge_run(run, None, gold, make_judge("page", window=1), None)
    assert judged["satisfies"].tolist() == [frozenset({("d", 3)}), frozenset({("d", 9)}), frozenset()]
    assert judged["hit"].tolist() == [True, True, False]
    assert judge_run(run, None, gold, make_judge("marker", window=0), None)["hit"].tolist() == [False, False, False]
    assert make_judge("page", window=2).params() == {"judge": "page", "window": 2}


# ---- at the edges, by value ----------------------------------------------------------
# ExperimentResult views by value on a hand-made experiment: four answerable questions and one with no answer,
# every item placed by hand, so each view's expected value is written down, not recomputed.


TEXTS = {
    ("manual", 1): "Chapter one explains how the pumps are installed on a level concrete base with four anchors.",
    ("manual", 2): "Chapter two lists the maintenance intervals: filters every month and seals every second year.",
    ("manual", 3): "Chapter three covers faults; a red lamp means low pressure and the pump stops by itself.",
    ("manual", 4): "Chapter four is the warranty: two years for parts, labour only within the first six months.",
    ("guide", 1): "The quick guide shows the front panel, the start button and the emergency stop switch.",
    ("guide", 2): "Cleaning the housing needs a damp cloth only; solvents damage the painted surface badly.",
}

HAND_QUESTIONS = [
    {"question_id": "q1", "question": "How is the pump installed?", "type": "fact", "gold_pages": [["manual", 1]]},
    {"question_id": "q2", "question": "How often are filters changed?", "type": "fact", "gold_pages": [["manual", 2]]},
    {"question_id": "q3", "question": "What does the red lamp mean?", "type": "fact", "gold_pages": [["manual", 3]]},
    {"question_id": "q4", "question": "How is the housing cleaned?", "type": "procedure",
     "gold_pages": [["guide", 2]]},
    {"question_id": "q5", "question": "What is the price of the pump?", "type": "no_answer"},
]


def _item(doc, page, score):
    return {"doc_id": doc, "page": page, "text": TEXTS[doc, page], "score": score}


# q1: hit at rank 1. q2: the gold page at rank 2 (a miss at k=1, a hit at k=3). q3: only other pages of the gold
# document (wrong page at any k). q4: the gold page at rank 3 only (a miss at k=1, a hit at k=3). q5: no gold.
HAND_LOG = [
    {"question_id": "q1", "retrieved": [_item("manual", 1, 9), _item("guide", 1, 5), _item("manual", 4, 4)]},
    {"question_id": "q2", "retrieved": [_item("guide", 1, 9), _item("manual", 2, 8), _item("manual", 4, 3)]},
    {"question_id": "q3", "retrieved": [_item("manual", 1, 9), _item("guide", 2, 7), _item("manual", 4, 6)]},
    {"question_id": "q4", "retrieved": [_item("manual", 4, 9), _item("guide", 1, 8), _item("guide", 2, 7)]},
    {"question_id": "q5", "retrieved": [_item("guide", 1, 9), _item("manual", 4, 2)]},
]


def _build(tmp_path, questions=HAND_QUESTIONS, ks=(1, 3)):
    corpus = corpus_from_pages([{"doc_id": d, "page": p, "text": t} for (d, p), t in TEXTS.items()])
    gpath = tmp_path / "golden.jsonl"
    gpath.write_text("\n".join(json.dumps(q) for q in questions) + "\n", encoding="utf-8")
    lpath = tmp_path / "log.jsonl"
    lpath.write_text("\n".join(json.dumps(r) for r in HAND_LOG) + "\n", encoding="utf-8")
    golden = load_golden(gpath, corpus=corpus)
    return evaluate_log(golden, load_log(lpath), corpus, ks=ks, window=0)


@pytest.fixture
def hand_result(tmp_path):
    return _build(tmp_path)


def test_per_question_hits_by_value(hand_result):
    pq = hand_result.evaluation.per_question
    assert pq.loc[["q1", "q2", "q3", "q4"], "hit@1"].tolist() == [1.0, 0.0, 0.0, 0.0]
    assert pq.loc[["q1", "q2", "q3", "q4"], "hit@3"].tolist() == [1.0, 1.0, 0.0, 1.0]
    assert pq.loc[["q1", "q2", "q3", "q4"], "mrr"].tolist() == pytest.approx([1.0, 0.5, 0.0, 1 / 3])


def test_recall_is_computed_at_the_largest_k(hand_result):
    pq = hand_result.evaluation.per_question
    assert "recall@3" in pq.columns and "recall@1" not in pq.columns
    assert pq.loc[["q1", "q2", "q3", "q4"], "recall@3"].tolist() == [1.0, 1.0, 0.0, 1.0]


def test_misses_lists_answerable_misses_only(hand_result):
    assert hand_result.misses() == ["q3"]             # the largest k
    assert hand_result.misses(1) == ["q2", "q3", "q4"]
    assert "q5" not in hand_result.misses(1)          # no gold: undefined, never a miss


def test_failure_breakdown_is_at_the_largest_k(hand_result):
    failures = hand_result.failures.set_index("question_id")["failure"].to_dict()
    assert failures == {"q3": "wrong_page"}
    counts = hand_result.failure_counts()
    assert int(counts.loc["wrong_page", "questions"]) == 1 and counts["questions"].sum() == 1


def test_headline_measures_show_recall_only_with_several_gold_pages(hand_result, tmp_path):
    assert hand_result.headline_measures == ["hit@1", "hit@3", "mrr"]
    several = [dict(q) for q in HAND_QUESTIONS]
    several[0]["gold_pages"] = [["manual", 1], ["manual", 4]]
    two = _build(tmp_path, several)
    assert two.headline_measures == ["hit@1", "hit@3", "mrr", "recall@3"]
    assert two.evaluation.per_question.at["q1", "recall@3"] == 1.0


def test_explain_shows_the_top_k_items(hand_result):
    data = hand_result.explain_data("q2", k=2)
    assert [i["rank"] for i in data["items"]] == [1, 2]
    assert [i["hit"] for i in data["items"]] == [False, True] and data["hit"] is True
    assert [i["rank"] for i in hand_result.explain_data("q4", k=3)["items"]] == [1, 2, 3]
    assert hand_result.explain_data("q4", k=1)["hit"] is False


def test_no_answer_shows_what_came_back_first(hand_result):
    table = hand_result.no_answer().set_index("question_id")
    assert list(table.index) == ["q5"]
    assert table.at["q5", "top_document"] == "guide" and table.at["q5", "top_score"] == 9
    assert table.at["q5", "retrieved"] == 2


def test_by_type_counts_the_evaluated_questions(hand_result):
    table = hand_result.by("type", wide=True)
    assert table["n"].to_dict() == {"fact": 3, "procedure": 1}
    assert table.at["fact", "hit@3"] == pytest.approx(2 / 3) and table.at["procedure", "hit@3"] == 1.0
