"""Notebook 04's sentence choosers (rag_metrics.lab.ceiling_lesson): each branch, and its boundaries."""

import pandas as pd
import pytest

from rag_metrics.lab.ceiling_lesson import (FEW_MISSES, cutoff_gap, failure_sentence, heading_comparison, minority,
                                            miss_bars, misses_removed, questions, removal_table, removed,
                                            setting_names, source_shape, what_moves_the_share)


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
    assert holds and text.startswith("**As in the source**") and "Unlike" not in text
    assert "fewer than half of the misses at hit@1 and at hit@5 (the table)" in text
    assert "wrong page" not in text  # the failure breakdown says that, once


@pytest.mark.parametrize("args, unlike", [
    (({"hit@1": (8, 4), "hit@5": (3, 1)}, SOURCE, 0), "removes half or more of the misses at some cutoff "
                                                      "(4 of 8 at hit@1"),   # exactly half
    ((HERE, SOURCE, 1), "adds up to one question"),                          # the document adds one question
])
def test_source_shape_names_what_differs(args, unlike):
    holds, text = source_shape(*args)
    assert not holds
    assert text.startswith("As in the source, ") and unlike in text.split("**Unlike the source**, ")[1]


def test_source_shape_nothing_as_in_the_source():
    holds, text = source_shape({"hit@1": (0, 0), "hit@5": (0, 0)}, SOURCE, 3)
    assert not holds and text.startswith("**Unlike the source**") and "As in" not in text
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
    assert text.startswith("Chunking by heading moves up by one question on page hit@3 (0.985 → 1.000;")
    assert "**within noise**" in text and "p = 1.000" in text and "from 2 to 1" in text


def test_heading_no_change_and_a_loss():
    within, text, _ = heading_comparison(*_pair(0, 0), 1, 1, 3)
    assert within and "moves by no question" in text
    within, text, _ = heading_comparison(*_pair(0, 2), 1, 3, 3)
    assert within and "moves down by 2 questions" in text


def test_heading_many_questions_beyond_noise():
    within, text, figures = heading_comparison(*_pair(8, 0), 8, 0, 5)
    assert not within and figures["p"] < 0.05 and "**beyond noise**: better." in text and "within" not in text


def _removals(here, window_only, retriever_only, nb03, retriever="hybrid", window=0):
    names = list(setting_names(retriever, window))
    values = dict(zip([(retriever, window), (retriever, 1), ("bm25", window), ("bm25", 1)],
                      [here, window_only, retriever_only, nb03]))
    return {key: {"hit@1": values[key]} for key in names}


def test_what_moves_the_share_names_the_bigger_change():
    holds, text, figures = what_moves_the_share(_removals((8, 2), (7, 2), (10, 4), (10, 5)), "hybrid", 0)
    assert holds and figures["here"] == [8, 2] and figures["nb03"] == [10, 5]
    assert text.startswith("With both changed (notebook 03's setting), routing could fix at most 5 of its 10 misses "
                           "(50%) at hit@1; here 2 of its 8 misses (25%).")
    assert "only the retriever changed to BM25, 4 of its 10 misses (40%); only the page window changed to ±1, 2 of " \
           "its 7 misses (29%): the retriever moves the share more." in text
    holds, text, _ = what_moves_the_share(_removals((8, 2), (8, 5), (10, 3), (10, 5)), "hybrid", 0)
    assert holds and text.endswith("the page window moves the share more.")
    # a change that lowers the share moves it too: 2 of 8 -> 0 of 8 is a bigger move than 2 of 8 -> 3 of 8
    holds, text, _ = what_moves_the_share(_removals((8, 2), (8, 0), (8, 3), (10, 5)), "hybrid", 0)
    assert holds and text.endswith("the page window moves the share more.")


@pytest.mark.parametrize("removals, retriever, window, expected", [
    (_removals((8, 2), (8, 4), (8, 0), (10, 5)), "hybrid", 0, "the two move the share alike."),   # a tie: 2 each way
    (_removals((8, 2), (0, 0), (10, 4), (10, 5)), "hybrid", 0, "only the page window changed to ±1, no miss."),
    (_removals((8, 2), (10, 5), (8, 2), (10, 5), "bm25", 0), "bm25", 0,
     "One change at a time: only the page window changed to ±1, 5 of its 10 misses (50%)."),     # one lever only
    (_removals((10, 5), (10, 5), (10, 5), (10, 5), "bm25", 1), "bm25", 1,
     "This run uses notebook 03's setting (BM25, page window ±1): routing could fix at most 5 of its 10 misses"),
])
def test_what_moves_the_share_says_nothing_it_cannot_decide(removals, retriever, window, expected):
    holds, text, _ = what_moves_the_share(removals, retriever, window)
    assert not holds and expected in text and "moves the share more" not in text


def test_setting_names_one_change_at_a_time_each_setting_once():
    assert list(setting_names("hybrid", 0).values()) == [
        "this notebook (hybrid, window 0)", "hybrid, window ±1 (only the window changed)",
        "bm25, window 0 (only the retriever changed)", "notebook 03 (bm25, window ±1)"]
    assert list(setting_names("bm25", 2).values()) == ["this notebook (bm25, window ±2)", "notebook 03 (bm25, window ±1)"]
    assert list(setting_names("dense", 1).values()) == ["this notebook (dense, window ±1)", "notebook 03 (bm25, window ±1)"]
    assert list(setting_names("bm25", 1).values()) == ["this notebook (bm25, window ±1)"]


def test_removal_table_the_source_first_then_each_setting():
    table = pd.DataFrame({"hit@1": [0.8, 0.9, 0.95], "hit@5": [0.95, 0.95, 1.0]},
                         index=["no filter", "gold genre only", "gold document only"])
    source = pd.DataFrame({"hit@1": [0.425, 0.45, 0.45], "hit@5": [0.85, 0.875, 0.875]}, index=table.index)
    tables = {("bm25", 1): table, ("bm25", 0): table * 0 + 0.5}
    shown = removal_table(tables, source, 20, "bm25", 0)
    assert list(shown.index) == ["the source (40 questions)", "this notebook (bm25, window 0)", "notebook 03 (bm25, window ±1)"]
    assert shown.iloc[0].tolist() == ["1 of 23 (4%)", "1 of 6 (17%)"]
    assert shown.iloc[1].tolist() == ["0 of 10 (0%)", "0 of 10 (0%)"] and shown.iloc[2].tolist() == ["3 of 4 (75%)", "1 of 1 (100%)"]


def _ranks(rows):
    return pd.DataFrame(rows, index=["no filter", "gold genre only (upper bound)", "gold document only (upper bound)"]
                        ).T.astype(object).where(lambda d: d.notna(), None)


def test_cutoff_gap_names_the_question_whose_gold_page_ranks_between_the_cutoffs():
    ranks = _ranks({"q1": [6, 5, 4], "q2": [6, 6, 6], "q3": [None, None, 7], "q4": [1, 1, 1], "q5": [None, 5, 5],
                    "q6": [7, 3, 3]})
    holds, text, figures = cutoff_gap(ranks, 3, 5)
    assert holds and figures["questions"] == {"q1": [6, 4], "q5": [None, 5]}  # rank 3 (q6) is inside the top 3 already
    assert text == ("Why the gold document removes 2 questions more at hit@5 than at hit@3: with the search limited to "
                    "the gold document, q1's gold page comes 4th and q5's gold page comes 5th -- other chunks of the "
                    "same document still rank above it -- so it enters the top 5 but not the top 3.")


@pytest.mark.parametrize("rows", [{"q1": [4, 4, 4]},          # a hit at 5 without the filter: not a miss there
                                  {"q1": [6, 6, 6]},          # still missed with the filter
                                  {"q1": [None, None, None]},
                                  {"q1": [6, 3, 3]}])         # removed at hit@3 too: no gap to explain
def test_cutoff_gap_nothing_to_explain(rows):
    holds, text, figures = cutoff_gap(_ranks(rows), 3, 5)
    assert not holds and text == "" and figures["questions"] == {}
