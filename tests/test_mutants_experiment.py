"""ExperimentResult views by value on a hand-made experiment: four answerable questions and one with no answer,
every item placed by hand, so each view's expected value is written down, not recomputed."""

import json

import pytest

from rag_metrics.analysis.experiment import evaluate_log
from rag_metrics.io.corpus import corpus_from_pages
from rag_metrics.io.golden import load_golden
from rag_metrics.io.logs import load_log

TEXTS = {
    ("manual", 1): "Chapter one explains how the pumps are installed on a level concrete base with four anchors.",
    ("manual", 2): "Chapter two lists the maintenance intervals: filters every month and seals every second year.",
    ("manual", 3): "Chapter three covers faults; a red lamp means low pressure and the pump stops by itself.",
    ("manual", 4): "Chapter four is the warranty: two years for parts, labour only within the first six months.",
    ("guide", 1): "The quick guide shows the front panel, the start button and the emergency stop switch.",
    ("guide", 2): "Cleaning the housing needs a damp cloth only; solvents damage the painted surface badly.",
}

QUESTIONS = [
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
LOG = [
    {"question_id": "q1", "retrieved": [_item("manual", 1, 9), _item("guide", 1, 5), _item("manual", 4, 4)]},
    {"question_id": "q2", "retrieved": [_item("guide", 1, 9), _item("manual", 2, 8), _item("manual", 4, 3)]},
    {"question_id": "q3", "retrieved": [_item("manual", 1, 9), _item("guide", 2, 7), _item("manual", 4, 6)]},
    {"question_id": "q4", "retrieved": [_item("manual", 4, 9), _item("guide", 1, 8), _item("guide", 2, 7)]},
    {"question_id": "q5", "retrieved": [_item("guide", 1, 9), _item("manual", 4, 2)]},
]


def _build(tmp_path, questions=QUESTIONS, ks=(1, 3)):
    corpus = corpus_from_pages([{"doc_id": d, "page": p, "text": t} for (d, p), t in TEXTS.items()])
    gpath = tmp_path / "golden.jsonl"
    gpath.write_text("\n".join(json.dumps(q) for q in questions) + "\n", encoding="utf-8")
    lpath = tmp_path / "log.jsonl"
    lpath.write_text("\n".join(json.dumps(r) for r in LOG) + "\n", encoding="utf-8")
    golden = load_golden(gpath, corpus=corpus)
    return evaluate_log(golden, load_log(lpath), corpus, ks=ks, window=0)


@pytest.fixture
def result(tmp_path):
    return _build(tmp_path)


def test_per_question_hits_by_value(result):
    pq = result.evaluation.per_question
    assert pq.loc[["q1", "q2", "q3", "q4"], "hit@1"].tolist() == [1.0, 0.0, 0.0, 0.0]
    assert pq.loc[["q1", "q2", "q3", "q4"], "hit@3"].tolist() == [1.0, 1.0, 0.0, 1.0]
    assert pq.loc[["q1", "q2", "q3", "q4"], "mrr"].tolist() == pytest.approx([1.0, 0.5, 0.0, 1 / 3])


def test_recall_is_computed_at_the_largest_k(result):
    pq = result.evaluation.per_question
    assert "recall@3" in pq.columns and "recall@1" not in pq.columns
    assert pq.loc[["q1", "q2", "q3", "q4"], "recall@3"].tolist() == [1.0, 1.0, 0.0, 1.0]


def test_misses_lists_answerable_misses_only(result):
    assert result.misses() == ["q3"]             # the largest k
    assert result.misses(1) == ["q2", "q3", "q4"]
    assert "q5" not in result.misses(1)          # no gold: undefined, never a miss


def test_failure_breakdown_is_at_the_largest_k(result):
    failures = result.failures.set_index("question_id")["failure"].to_dict()
    assert failures == {"q3": "wrong_page"}
    counts = result.failure_counts()
    assert int(counts.loc["wrong_page", "questions"]) == 1 and counts["questions"].sum() == 1


def test_headline_measures_show_recall_only_with_several_gold_pages(result, tmp_path):
    assert result.headline_measures == ["hit@1", "hit@3", "mrr"]
    several = [dict(q) for q in QUESTIONS]
    several[0]["gold_pages"] = [["manual", 1], ["manual", 4]]
    two = _build(tmp_path, several)
    assert two.headline_measures == ["hit@1", "hit@3", "mrr", "recall@3"]
    assert two.evaluation.per_question.at["q1", "recall@3"] == 1.0


def test_explain_shows_the_top_k_items(result):
    data = result.explain_data("q2", k=2)
    assert [i["rank"] for i in data["items"]] == [1, 2]
    assert [i["hit"] for i in data["items"]] == [False, True] and data["hit"] is True
    assert [i["rank"] for i in result.explain_data("q4", k=3)["items"]] == [1, 2, 3]
    assert result.explain_data("q4", k=1)["hit"] is False


def test_no_answer_shows_what_came_back_first(result):
    table = result.no_answer().set_index("question_id")
    assert list(table.index) == ["q5"]
    assert table.at["q5", "top_document"] == "guide" and table.at["q5", "top_score"] == 9
    assert table.at["q5", "retrieved"] == 2


def test_by_type_counts_the_evaluated_questions(result):
    table = result.by_type()
    assert table["n"].to_dict() == {"fact": 3, "procedure": 1}
    assert table.at["fact", "hit@3"] == pytest.approx(2 / 3) and table.at["procedure", "hit@3"] == 1.0
