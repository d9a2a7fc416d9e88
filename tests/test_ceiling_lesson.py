"""Notebook 04's sentence choosers (rag_metrics.lab.ceiling_lesson): each branch, and its boundaries."""

import pandas as pd
import pytest

from rag_metrics.lab.ceiling_lesson import (failure_sentence, heading_comparison, minority, miss_bars, misses_removed,
                                               questions, removed, setting_contrast, source_shape)


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


def test_source_shape_all_as_in_the_source():
    holds, text = source_shape(HERE, SOURCE, 0, 2, 1)
    assert holds and text.startswith("**As in the source**") and "Unlike" not in text
    assert "fewer than half of the misses at hit@1 and at hit@5 (the table)" in text
    assert "2 of the 3 misses at k = 5" in text


@pytest.mark.parametrize("args, unlike", [
    (({"hit@1": (8, 4), "hit@5": (3, 1)}, SOURCE, 0, 2, 1), "removes half or more of the misses at some cutoff "
                                                            "(4 of 8 at hit@1"),   # exactly half
    ((HERE, SOURCE, 1, 2, 1), "adds up to one question"),                          # the document adds one question
    ((HERE, SOURCE, 0, 1, 1), "1 of the 2 misses at k = 5"),                       # a tie is no majority
    ((HERE, SOURCE, 0, 0, 0), "no question is missed at k = 5"),
])
def test_source_shape_names_what_differs(args, unlike):
    holds, text = source_shape(*args)
    assert not holds
    assert text.startswith("As in the source, ") and unlike in text.split("**Unlike the source**, ")[1]


def test_source_shape_nothing_as_in_the_source():
    holds, text = source_shape({"hit@1": (0, 0), "hit@5": (0, 0)}, SOURCE, 3, 0, 2)
    assert not holds and text.startswith("**Unlike the source**") and "As in" not in text
    assert "no question is missed at hit@1 or hit@5" in text and "the source missed 23 at hit@1 and 6 at hit@5" in text


def test_failure_sentence_counts_the_majority():
    mostly, text, main = failure_sentence({"not_retrieved": 1, "other_document_first": 0, "wrong_page": 2}, 3)
    assert mostly and main == "wrong_page"
    assert text.startswith("**2 of the 3 misses at k=3 are `wrong_page`** (1 `not_retrieved`, 0 `other_document_first`)")
    assert "Most" not in text and "chunking" in text and "look inside the document" in text


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


@pytest.mark.parametrize("nb03, ok, expected", [
    ({"hit@1": (10, 2), "hit@5": (3, 1)}, True, "also removes fewer than half of the misses, but how many at hit@1 "
                                                "depends on the setting (2 of 8 here, 2 of 10 there)"),
    (HERE, True, "also removes fewer than half of the misses."),
    ({"hit@1": (10, 5), "hit@5": (3, 1)}, False, "removes half or more of the misses at hit@1 with notebook 03's BM25 "
                                                 "and page window ±1 (5 of 10): there routing is a lever"),  # exactly half
    ({"hit@1": (10, 2), "hit@5": (2, 1)}, False, "at hit@5 with notebook 03's BM25 and page window ±1 (1 of 2):"),
    ({"hit@1": (0, 0), "hit@5": (0, 0)}, False, "misses no question at hit@1 or hit@5"),
])
def test_setting_contrast_every_branch(nb03, ok, expected):
    shown, text = setting_contrast(HERE, nb03)
    assert shown is ok and expected in text
    assert ("fewer than half" in text) is ok


def test_setting_contrast_names_this_setting_when_it_is_the_one():
    shown, text = setting_contrast({"hit@1": (8, 4), "hit@5": (3, 1)}, HERE)
    assert not shown and "half or more of the misses at hit@1 in this notebook's setting (4 of 8):" in text
    assert "with notebook 03's" not in text
