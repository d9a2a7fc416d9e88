"""The experiment report's section 6: each question's claims with their support, and the change of the diagnosis
between two runs (issue 35)."""

from collections import Counter
from pathlib import Path

import pytest

from rag_metrics import InputError
from rag_metrics.experiment.answer_support import (DIAGNOSES, change_claim, change_table, diagnose_log,
                                                   diagnosis_change, support_drilldown)
from rag_metrics.io.corpus import load_answers, load_corpus
from rag_metrics.io.golden import load_golden

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def sample():
    corpus = load_corpus(DATA / "corpus")
    golden = load_golden(DATA / "golden.jsonl", corpus=corpus)
    answers = load_answers(DATA / "answers.jsonl")
    return golden, {g: diagnose_log(golden, answers, corpus, generator=g) for g in ("gen_a", "gen_b")}


def test_the_drilldown_lists_every_question_that_did_not_pass_with_all_its_claims(sample):
    golden, runs = sample
    d = runs["gen_a"]
    view = support_drilldown(d, golden.questions["question"])
    failed = d.records.index[d.records["diagnosis"] != "passed"]
    assert [q["question_id"] for q in view.questions] == sorted(
        failed, key=lambda q: (DIAGNOSES.index(d.records.at[q, "diagnosis"]), q))
    assert view.more == 0 and f"The {len(failed)} of {len(d.records)} answerable questions" in view.lead
    q010 = next(q for q in view.questions if q["question_id"] == "q010")
    claims = d.claims[d.claims["question_id"] == "q010"]
    assert [c["claim"] for c in q010["claims"]] == list(claims["claim"])
    assert q010["diagnosis"] == "hallucinated" and q010["claims"][0]["supported"] is False
    assert q010["claims"][0]["doc_id"] == "expense_policy" and "5th day" in q010["claims"][0]["span"]
    assert q010["expected"] == golden.questions.at["q010", "answer"]
    q017 = next(q for q in view.questions if q["question_id"] == "q017")
    assert q017["claims"][0]["supported"] is True and q017["claims"][0]["page"] == 7
    html = view._repr_html_()
    assert "<mark>The hotel cap is 150 EUR per night including breakfast.</mark>" in html
    assert "q010" in repr(view) and "not supported (expense_policy p.9)" in repr(view)


@pytest.mark.parametrize("limit", [0, 1, 8, 9, 10])
def test_the_drilldown_stops_at_its_limit_and_counts_the_rest(sample, limit):
    golden, runs = sample
    d = runs["gen_a"]
    failed = int((d.records["diagnosis"] != "passed").sum())
    assert failed == 8  # 9 before issue 46's third round read q047's 「…でないことの確認書」 as no negation
    view = support_drilldown(d, golden.questions["question"], limit=limit)
    assert len(view.questions) == min(limit, failed) and view.more == failed - min(limit, failed)
    assert ("more question(s) not shown" in view._repr_html_()) == (limit < failed)


def test_a_bad_limit_is_refused(sample):
    golden, runs = sample
    with pytest.raises(InputError, match="limit"):
        support_drilldown(runs["gen_a"], golden.questions["question"], limit=-1)


def test_the_change_table_and_sentence_follow_an_independent_count(sample):
    _, runs = sample
    a, b = runs["gen_a"].records["diagnosis"], runs["gen_b"].records["diagnosis"].reindex(runs["gen_a"].records.index)
    pairs = Counter((x, y) for x, y in zip(a, b) if x != y)
    change = diagnosis_change(runs["gen_a"], runs["gen_b"])
    table = change_table(change)
    assert {(r["Before"], r["After"]): r["Questions"] for r in table.to_dict("records")} == dict(pairs)
    assert list(table["Questions"]) == sorted(table["Questions"], reverse=True)
    said = change_claim(change, "gen_a", "gen_b", alpha=0.05)
    assert said["condition"] is True and said["figures"]["moved"] == sum(pairs.values()) == 3
    assert said["text_if_true"].startswith("**3** of 65 questions changed diagnosis from gen_a to gen_b")
    assert "2 newly passed, 1 no longer passed" in said["text_if_true"] and "p = 1.000" in said["text_if_true"]


def test_no_change_says_so(sample):
    _, runs = sample
    change = diagnosis_change(runs["gen_a"], runs["gen_a"])
    said = change_claim(change, "x", "y")
    assert said["condition"] is False and said["figures"]["moved"] == 0
    assert said["text_if_false"] == "No question changed diagnosis from x to y (65 questions)."
    assert change_table(change).empty


def test_p_is_printed_on_its_side_of_alpha():
    import pandas as pd

    table = pd.DataFrame([[0, 6], [0, 59]], index=["passed", "misled"], columns=["passed", "misled"])
    change = {"table": table, "n": 65, "change": -6 / 65, "low": -0.2, "high": -0.01, "p": 0.04999, "wins": 0,
              "losses": 6}
    assert "p = 0.04999" in change_claim(change, "a", "b", alpha=0.05)["text_if_true"]
