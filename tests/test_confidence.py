"""What makes a comparison read more than it holds (rag_metrics.experiment.confidence): credit only through the page
window -- a gold page 0, 1, window and window + 1 pages away, window 1 and 2 -- or from one ruler alone, the cutoff
of the measure, and the questions two runs logged (issue 50: documented thresholds at, below and above)."""

from types import SimpleNamespace

import pandas as pd
import pytest

from rag_metrics.experiment.confidence import credit_note, logged_coverage


def _result(items, *, window=1, primary="page", per_question=None, ks=(1, 3, 5)):
    """A result whose primary ruler judged ``items`` (dicts with rank, doc_id, pages, satisfies, hit) of q1."""
    judged = pd.DataFrame([{"question_id": "q1", **i} for i in items])
    per_question = per_question or {primary: 1.0}
    pages = {name: SimpleNamespace(per_question=pd.DataFrame({f"hit@{k}": {"q1": v} for k in ks}))
             for name, v in per_question.items()}
    return SimpleNamespace(judged={primary: judged}, judges={primary: SimpleNamespace(window=window)},
                           primary=primary, ks=list(ks), pages=pages)


def _item(rank, pages, gold_page, hit=True, doc="d"):
    return {"rank": rank, "doc_id": doc, "pages": pages, "satisfies": [("d", gold_page)] if hit else [], "hit": hit}


@pytest.mark.parametrize("window, gap, note", [(1, 0, False), (1, 1, True), (1, 2, False), (2, 2, True),
                                               (2, 3, False), (2, 1, True)])
def test_credit_only_through_the_window_is_a_gap_of_one_to_window_pages(window, gap, note):
    r = _result([_item(1, [5], 5 + gap)], window=window)
    expected = f"only through the ±{window} page window"
    assert (credit_note(r, "q1", "hit@1") == expected) is note


@pytest.mark.parametrize("sign", [1, -1])
def test_the_gap_counts_in_both_directions_from_the_nearest_own_page(sign):
    r = _result([_item(1, [5, 9], 5 + sign)])
    assert credit_note(r, "q1", "hit@1") == "only through the ±1 page window"
    r = _result([_item(1, [5, 9], 9 + sign * 2)], window=1)
    assert credit_note(r, "q1", "hit@1") == ""


def test_one_item_credited_on_its_own_page_within_the_cutoff_takes_the_note_away():
    items = [_item(1, [5], 6), _item(2, [7], 7)]
    assert credit_note(_result(items), "q1", "hit@1") == "only through the ±1 page window"
    assert credit_note(_result(items), "q1", "hit@2") == ""          # rank 2 is inside the top 2
    assert credit_note(_result(items, ks=(1, 2)), "q1", "mrr") == ""  # MRR: the largest k
    assert credit_note(_result(items, ks=(1,)), "q1", "mrr") == "only through the ±1 page window"


def test_an_item_not_hit_an_item_without_pages_or_a_window_of_zero_gives_no_window_note():
    assert credit_note(_result([_item(1, [5], 6, hit=False)]), "q1", "hit@1") == ""
    assert credit_note(_result([_item(1, [], 6)]), "q1", "hit@1") == ""
    assert credit_note(_result([_item(1, [None], 6)]), "q1", "hit@1") == ""
    assert credit_note(_result([_item(1, [5], 6)], window=0), "q1", "hit@1") == ""
    other_doc = _item(1, [5], 6, doc="e")                      # a gold page of another document: no gap
    assert credit_note(_result([other_doc]), "q1", "hit@1") == ""


@pytest.mark.parametrize("others, note", [({"marker": 0.0}, "only the page ruler credits it (marker does not)"),
                                          ({"marker": 0.0, "overlap": 0.0},
                                           "only the page ruler credits it (marker, overlap do not)"),
                                          ({"marker": 1.0, "overlap": 0.0}, ""),
                                          ({}, "")])
def test_one_ruler_alone_is_named_only_when_every_other_ruler_gives_nothing(others, note):
    r = _result([_item(1, [5], 5)], per_question={"page": 1.0, **others})
    assert credit_note(r, "q1", "hit@1") == note
    r0 = _result([_item(1, [5], 5)], per_question={"page": 0.0, **others})
    assert credit_note(r0, "q1", "hit@1") == ""               # the primary does not credit it either


def test_both_notes_are_joined():
    r = _result([_item(1, [5], 6)], per_question={"page": 1.0, "overlap": 0.0})
    assert credit_note(r, "q1", "hit@3") == ("only through the ±1 page window; only the page ruler credits it "
                                             "(overlap does not)")


def _record(questions, not_logged=()):
    return {"per_query": {q: {} for q in questions}, "config": {"not_logged": list(not_logged)}}


def test_logged_coverage_is_none_when_both_runs_logged_the_same_questions_in_any_order():
    assert logged_coverage(_record(["q1", "q2"]), _record(["q2", "q1"])) is None
    assert logged_coverage(_record(["q1", "q2", "q3"], ["q3"]), _record(["q1", "q2", "q3"], ["q3"])) is None


def test_logged_coverage_names_what_each_run_left_out_both_ways():
    base = _record(["q1", "q2", "q3", "q4"], not_logged=["q4"])
    subj = _record(["q1", "q2", "q3", "q4"], not_logged=["q2"])
    c = logged_coverage(base, subj)
    assert c == {"both": ["q1", "q3"], "baseline_logged": 3, "subject_logged": 3, "questions": 4,
                 "subject_only_missing": ["q2"], "baseline_only_missing": ["q4"]}
    back = logged_coverage(subj, base)
    assert back["subject_only_missing"] == ["q4"] and back["baseline_only_missing"] == ["q2"]
    assert back["both"] == ["q1", "q3"]
    old = {"per_query": {"q1": {}, "q2": {}}}                  # a record saved before not_logged was kept
    assert logged_coverage(old, _record(["q1", "q2"], ["q1"]))["subject_only_missing"] == ["q1"]
