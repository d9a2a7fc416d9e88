"""Notebook 04's sentence choosers (rag_metrics.lab.ceiling_lesson): each branch, and its boundaries."""

import pandas as pd
import pytest

from rag_metrics.lab.ceiling_lesson import failure_sentence, heading_comparison, questions, source_shape


def test_questions_in_words():
    assert [questions(n) for n in (0, 1, -1, 2)] == ["no question", "one question", "one question", "2 questions"]


def test_source_shape_all_as_in_the_source_at_the_boundaries():
    holds, text = source_shape(2, 0, 2, 1, 65)
    assert holds and text.startswith("**As in the source**")
    assert "by more than 2 questions of 65" in text and "2 of the 3 misses at k = 5" in text and "Unlike" not in text


@pytest.mark.parametrize("args, unlike", [
    ((3, 0, 2, 1, 65), "lifts page-level hit@k by up to 3 of 65"),        # one question past the ceiling rule
    ((2, 1, 2, 1, 65), "adds up to one question"),                          # the document adds one question
    ((2, 0, 1, 1, 65), "1 of the 2 misses at k = 5"),                       # a tie is no majority
    ((2, 0, 0, 0, 65), "no question is missed at k = 5"),
])
def test_source_shape_names_what_differs(args, unlike):
    holds, text = source_shape(*args)
    assert not holds
    assert text.startswith("As in the source, ") and unlike in text.split("**Unlike the source**, ")[1]


def test_source_shape_nothing_as_in_the_source():
    holds, text = source_shape(5, 3, 0, 2, 65)
    assert not holds and text.startswith("**Unlike the source**") and "As in" not in text


def test_failure_sentence_counts_the_majority():
    mostly, text, main = failure_sentence({"not_retrieved": 1, "other_document_first": 0, "wrong_page": 2}, 3)
    assert mostly and main == "wrong_page"
    assert text.startswith("**2 of the 3 misses at k=3 are `wrong_page`** (1 `not_retrieved`, 0 `other_document_first`)")
    assert "Most" not in text and "chunking" in text and "Routing is not the lever" in text


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


@pytest.mark.parametrize("here, nb03, ok, expected", [
    ({"hit@1": 2, "hit@5": 1}, {"hit@1": 5, "hit@5": 1}, True, "**first rank** (hit@1): a team that shows only the "
                                                              "top result should measure routing in its own setting; "
                                                              "at hit@5 the filter gains at most one question either"),
    ({"hit@1": 2, "hit@5": 2}, {"hit@1": 2, "hit@5": 2}, True, "Either way the filter gains at most 2 questions"),
    ({"hit@1": 2, "hit@5": 0}, {"hit@1": 2, "hit@5": 0}, True, "Either way the filter gains no question at hit@5"),
    ({"hit@1": 2, "hit@5": 1}, {"hit@1": 5, "hit@5": 3}, False, "Under one of them routing gains more at hit@5"),
    ({"hit@1": 0, "hit@5": 3}, {"hit@1": 0, "hit@5": 0}, False, "Under one of them"),
])
def test_setting_contrast_every_branch(here, nb03, ok, expected):
    from rag_metrics.lab.ceiling_lesson import setting_contrast
    shown, text = setting_contrast(here, nb03, "this run")
    assert shown is ok and expected in text
