"""Notebook 04's sentence choosers (rag_metrics.lab.ceiling_lesson): each branch, and its boundaries."""

import pandas as pd
import pytest

from rag_metrics.lab.ceiling_lesson import (FEW_MISSES, POINTER_BELOW, breakdown_table, cutoff_gap, failure_sentence,
                                            heading_comparison, kinds_vs_oracle, minority, miss_bars, misses_removed,
                                            nb03_pointer, questions, removed, removed_at, setting_names, source_shape,
                                            source_table, upper_bound_table)


def test_questions_in_words():
    assert [questions(n) for n in (0, 1, -1, 2)] == ["no question", "one question", "one question", "2 questions"]


HERE, SOURCE = {"hit@1": (8, 2), "hit@5": (3, 1)}, {"hit@1": (23, 1), "hit@5": (6, 1)}


def test_misses_removed_and_the_bars_from_an_upper_bounds_table():
    table = pd.DataFrame({"hit@1": [0.8, 0.9, 0.95], "hit@3": [0.9, 0.9, 0.9], "hit@5": [0.95, 0.95, 1.0]},
                         index=["no filter", "gold genre only", "gold document only"])
    assert misses_removed(table, 20) == {"hit@1": (4, 3), "hit@5": (1, 1)}
    bars = miss_bars(table, 20)
    assert bars.to_numpy().tolist() == [[2, 1, 1], [0, 0, 2], [0, 1, 0]]  # genre, document beyond it, still missed
    assert (bars.sum(axis=1) == [4, 2, 1]).all()  # each bar is the misses without a filter
    with pytest.raises(ValueError, match="narrower filter lost a hit"):
        miss_bars(table.iloc[[1, 0, 2]], 20)


def test_removed_as_count_and_share():
    assert [removed(8, 2), removed(3, 0), removed(0, 0)] == ["2 of 8 (25%)", "0 of 3 (0%)", "no miss"]


@pytest.mark.parametrize("removals, few", [
    ({"hit@1": (8, 3), "hit@5": (3, 1)}, True),
    ({"hit@1": (8, 4), "hit@5": (3, 1)}, False),                 # exactly half is not fewer than half
    ({"hit@1": (8, 3), "hit@5": (2, 1)}, False),                 # the last cutoff counts too
    ({"hit@1": (5, 2), "hit@5": (0, 0)}, True),                  # a cutoff with no miss is skipped
    ({"hit@1": (0, 0), "hit@5": (0, 0)}, False),                 # nothing missed: nothing to say "few" of
])
def test_minority_at_the_half(removals, few):
    assert minority(removals) is few


def test_source_shape_both_as_in_the_source():
    holds, text = source_shape(HERE, SOURCE, 0)
    assert holds and text.startswith("In this notebook's setting (left panel), **as in the source**, ")
    assert "Unlike" not in text and "unlike" not in text and "(the table)" not in text
    assert "fewer than half of the misses at hit@1 and at hit@5;" in text
    assert "wrong page" not in text  # the failure breakdown says that, once


@pytest.mark.parametrize("args, unlike", [
    (({"hit@1": (8, 4), "hit@5": (3, 1)}, SOURCE, 0), "removes half or more of the misses at some cutoff "
                                                      "(4 of 8 at hit@1"),   # exactly half
    ((HERE, SOURCE, 1), "adds up to one question"),                          # the document adds one question
])
def test_source_shape_names_what_differs(args, unlike):
    holds, text = source_shape(*args)
    assert not holds
    assert text.startswith("In this notebook's setting (left panel), as in the source, ")
    assert unlike in text.split("**Unlike the source**, ")[1]


def test_source_shape_nothing_as_in_the_source():
    holds, text = source_shape({"hit@1": (0, 0), "hit@5": (0, 0)}, SOURCE, 3)
    assert not holds and text.startswith("In this notebook's setting (left panel), **unlike the source**, ")
    assert "as in" not in text
    assert "no question is missed at hit@1 or hit@5" in text and "the source missed 23 at hit@1 and 6 at hit@5" in text


def test_failure_sentence_counts_the_majority():
    mostly, text, main = failure_sentence({"not_retrieved": 1, "other_document_first": 0, "wrong_page": 2}, 3)
    assert mostly and main == "wrong_page"
    assert text.startswith("**2 of the 3 misses at k=3 are `wrong_page`** (1 `not_retrieved`, 0 `other_document_first`)")
    assert "Most" not in text and "chunking" in text and "look inside the document" in text
    assert "the source" not in text  # the source counted at k = 5 only


def test_failure_sentence_at_5_sets_the_source_beside_it_and_says_few_misses_are_a_pointer():
    mostly, text, _ = failure_sentence({"not_retrieved": 1, "other_document_first": 0, "wrong_page": 2}, 5)
    assert mostly and "0 `other_document_first`; the source: 4 of its 6 misses at k = 5 on the wrong page)" in text
    assert text.endswith("With only 3 misses this is a pointer, not a measurement: check it on a larger golden set.")


@pytest.mark.parametrize("wrong, other, pointer", [(FEW_MISSES - 4, 3, True),   # FEW_MISSES - 1 misses: a pointer
                                                   (FEW_MISSES - 3, 3, False)])  # FEW_MISSES: counted, no caveat
def test_failure_sentence_pointer_caveat_below_few_misses(wrong, other, pointer):
    mostly, text, _ = failure_sentence({"not_retrieved": other, "other_document_first": 0, "wrong_page": wrong}, 4)
    assert mostly and ("a pointer, not a measurement" in text) is pointer


@pytest.mark.parametrize("counts, expected", [
    ({"not_retrieved": 2, "other_document_first": 2, "wrong_page": 0}, "no kind holds a majority"),  # 2 of 4: no majority
    ({"not_retrieved": 0, "other_document_first": 0, "wrong_page": 2}, "2 misses are too few"),
    ({"not_retrieved": 1, "other_document_first": 0, "wrong_page": 0}, "one miss is too few"),
    ({"not_retrieved": 0, "other_document_first": 0, "wrong_page": 0}, "No question is missed at k=3."),
])
def test_failure_sentence_no_lesson_without_a_majority_of_three(counts, expected):
    mostly, text, _ = failure_sentence(counts, 3)
    assert not mostly and expected in text and "where to look" not in text and "chunking" not in text


def _pair(wins, losses, n=65):
    a = pd.Series([0.0] * wins + [1.0] * losses + [1.0] * (n - wins - losses), index=[f"q{i}" for i in range(n)])
    b = pd.Series([1.0] * wins + [0.0] * losses + [1.0] * (n - wins - losses), index=a.index)
    return a, b


def test_heading_one_question_is_within_noise():
    within, text, figures = heading_comparison(*_pair(1, 0), 2, 1, 3)
    assert within and figures["verdict"] == "within noise" and figures["wins"] == 1 and figures["losses"] == 0
    assert text.startswith("Chunking by heading moves page hit@3 from 0.985 to 1.000 (1 question better, 0 worse;")
    assert "**within noise**" in text and "p = 1.000" in text and "from 2 to 1" in text


def test_heading_no_change_and_a_loss():
    within, text, _ = heading_comparison(*_pair(0, 0), 1, 1, 3)
    assert within and "leaves page hit@3 at 1.000 (0 questions better, 0 worse;" in text
    within, text, _ = heading_comparison(*_pair(0, 2), 1, 3, 3)
    assert within and "moves page hit@3 from 1.000 to 0.969 (0 questions better, 2 worse;" in text


def test_heading_many_questions_beyond_noise():
    within, text, figures = heading_comparison(*_pair(8, 0), 8, 0, 5)
    assert not within and figures["p"] < 0.05 and "**beyond noise**: better." in text and "within" not in text


def test_setting_names_this_one_and_notebook_03s_once():
    assert list(setting_names("hybrid", 0).values()) == ["this notebook (hybrid, window 0)", "notebook 03 (bm25, window ±1)"]
    assert list(setting_names("bm25", 1).values()) == ["this notebook (bm25, window ±1)"]


def test_upper_bound_table_rows_filters_columns_cutoffs_with_the_source_beside():
    table = pd.DataFrame({"hit@1": [0.8, 0.9, 0.95], "hit@3": [0.9] * 3, "hit@5": [0.95, 0.95, 1.0], "mrr": [0.9] * 3},
                         index=["no filter", "gold genre only (upper bound)", "gold document only (upper bound)"])
    shown = upper_bound_table(table, source_table())
    assert list(shown.index) == ["no filter", "gold genre only", "gold document only"]
    assert list(shown.columns) == ["hit@1, here", "hit@1, the source (40 questions)", "hit@5, here",
                                   "hit@5, the source (40 questions)"]
    assert shown["hit@5, here"].tolist() == [0.95, 0.95, 1.0]
    assert shown["hit@1, the source (40 questions)"].tolist() == [0.425, 0.45, 0.45]


@pytest.mark.parametrize("here, nb03, holds, expected", [
    ((8, 2), (10, 5), True, "removes 5 of its 10 misses (50%) at hit@1; here 2 of its 8 misses (25%), a different "
                            "share -- with 8 and 10 misses this is a pointer that the share depends on the setting, "
                            "not a measurement."),
    ((8, 2), (12, 3), False, "the same share -- with 8 and 12 misses this is a pointer, not a measurement."),
    ((POINTER_BELOW - 1, 2), (40, 20), True, f"with {POINTER_BELOW - 1} and 40 misses this is a pointer"),  # below
    ((POINTER_BELOW, 2), (40, 20), True, f"measured on {POINTER_BELOW} and 40 misses."),                   # at it
    ((0, 0), (10, 5), False, "no share to compare"),
    ((8, 2), (0, 0), False, "no share to compare"),
])
def test_nb03_pointer_one_sentence_a_pointer_below_enough_misses(here, nb03, holds, expected):
    ok, text, figures = nb03_pointer({"hit@1": here}, {"hit@1": nb03})
    assert ok is holds and expected in text and text.startswith("Right panel, notebook 03's setting")
    assert figures["here"] == list(here) and figures["nb03"] == list(nb03)


def _breakdown(kinds):
    return pd.DataFrame({"question_id": list(kinds), "type": ["fact"] * len(kinds), "failure": list(kinds.values()),
                         "first_document": ["d"] * len(kinds), "gold_documents": ["d"] * len(kinds)})


def test_kinds_vs_oracle_names_each_disagreement_from_the_data():
    kinds = {"q1": "not_retrieved", "q2": "wrong_page", "q3": "wrong_page", "q4": "other_document_first"}
    holds, text, figures = kinds_vs_oracle(_breakdown(kinds), {"q1": False, "q2": True, "q3": False, "q4": True})
    assert holds and figures["wrong_page_removed"] == ["q2"] and figures["other_kept"] == ["q1"]
    assert text.startswith("The failure kinds describe the ranking *without* a filter")
    assert "crowd the gold page out of the top k (q2); and a miss of another kind can survive it" in text
    assert text.endswith("(q1, `not_retrieved`).")
    holds, text, _ = kinds_vs_oracle(_breakdown(kinds), {"q2": True, "q4": True, "q1": True})  # q3 missing: not removed
    assert holds and "(q2)" in text and "another kind" not in text


def test_kinds_vs_oracle_agreeing_says_so():
    kinds = {"q1": "not_retrieved", "q2": "wrong_page"}
    holds, text, figures = kinds_vs_oracle(_breakdown(kinds), {"q1": True, "q2": False})
    assert not holds and text.startswith("Here the failure kinds and the gold-document filter agree")
    assert figures["wrong_page_removed"] == [] and figures["other_kept"] == []


def test_removed_at_k_and_the_breakdown_table():
    ranks = _ranks({"q1": [None, None, 5], "q2": [6, 6, 6], "q3": [None, None, None]})
    assert removed_at(ranks, 5) == {"q1": True, "q2": False, "q3": False}  # rank k itself counts; k + 1 does not
    assert removed_at(ranks, 4) == {"q1": False, "q2": False, "q3": False}
    shown = breakdown_table(_breakdown({"q2": "wrong_page", "q1": "not_retrieved"}), ranks, 5)
    assert shown["question"].tolist() == ["q1", "q2"]  # sorted by failure kind
    assert shown["removed by the gold-document filter?"].tolist() == ["yes", "no"]
    assert list(shown.columns) == ["question", "question type", "failure kind", "document ranked first",
                                   "gold documents", "removed by the gold-document filter?"]


def _ranks(rows):
    return pd.DataFrame(rows, index=["no filter", "gold genre only (upper bound)", "gold document only (upper bound)"]
                        ).T.astype(object).where(lambda d: d.notna(), None)


def test_cutoff_gap_names_the_question_whose_gold_page_ranks_between_the_cutoffs():
    ranks = _ranks({"q1": [6, 6, 4], "q2": [6, 6, 6], "q3": [None, None, 7], "q4": [1, 1, 1], "q5": [None, 5, 5],
                    "q6": [7, 3, 3]})
    holds, text, figures = cutoff_gap(ranks, 3, 5)
    # rank 3 (q6) is inside the top 3 already; q5 is brought in by its genre already, q1 by its document only
    assert holds and figures["questions"] == {"q1": [6, 4, "document"], "q5": [None, 5, "genre"]}
    assert text == ("Why the gold genre or the gold document removes 2 questions more at hit@5 than at hit@3: with the "
                    "search limited to it, q1's gold page comes 4th in its gold document and q5's gold page comes 5th "
                    "in its gold genre -- other chunks still rank above it -- so it enters the top 5 but not the top 3.")


@pytest.mark.parametrize("rows, who", [({"q1": [None, 4, 4]}, "Why the gold genre (and so the gold document) removes"),
                                       ({"q1": [None, 3, 4]}, "Why the gold document removes"),  # genre rank a: not in (a, b]
                                       ({"q1": [None, 6, 5]}, "Why the gold document removes")])  # genre rank b + 1
def test_cutoff_gap_names_the_filter_whose_colour_the_bar_shows(rows, who):
    holds, text, _ = cutoff_gap(_ranks(rows), 3, 5)
    assert holds and text.startswith(who)


@pytest.mark.parametrize("rows", [{"q1": [4, 4, 4]},          # a hit at 5 without the filter: not a miss there
                                  {"q1": [6, 6, 6]},          # still missed with the filter
                                  {"q1": [None, None, None]},
                                  {"q1": [6, 3, 3]}])         # removed at hit@3 too: no gap to explain
def test_cutoff_gap_nothing_to_explain(rows):
    holds, text, figures = cutoff_gap(_ranks(rows), 3, 5)
    assert not holds and text == "" and figures["questions"] == {}
