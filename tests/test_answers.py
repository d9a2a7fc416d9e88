"""Generated answers judged against the expected one (rag_metrics.answers.matching)."""

import pytest

from rag_metrics import InputError
from rag_metrics.answers.matching import AnswerJudge, answer_match, is_refusal, normalize_answer, token_f1


@pytest.mark.parametrize("match, predicted, expected, verdict", [
    ("exact", " 30 Days. ", "30 days", True), ("exact", "翌月５日。", "翌月5日", True), ("exact", "30 days or so", "30 days", False),
    ("contains", "Within 30 days of the expense.", "30 days", True), ("contains", "thirty days", "30 days", False),
    ("contains", "anything", "", False),  # an empty expected answer is in every text: never a match
    ("token_f1", "claims within 30 days", "30 days", True),   # P 2/4, R 2/2: F1 2/3 >= 0.5
    ("token_f1", "a b c d e 30", "30 days", False),           # P 1/6, R 1/2: F1 1/4
])
def test_answer_judge_by_method(match, predicted, expected, verdict):
    judge = AnswerJudge(match)
    assert judge(predicted, expected) is verdict
    assert answer_match(predicted, expected, method=match) is verdict


def test_token_f1_threshold_is_inclusive_and_recorded():
    assert token_f1("a b", "a c") == 0.5
    assert AnswerJudge("token_f1", f1_threshold=0.5)("a b", "a c") is True
    assert AnswerJudge("token_f1", f1_threshold=0.51)("a b", "a c") is False
    assert AnswerJudge("token_f1", 0.7).params() == {"match": "token_f1", "f1_threshold": 0.7}
    assert AnswerJudge().params() == {"match": "exact"}
    with pytest.raises(InputError, match=r"'match' parameter of AnswerJudge must be one of \('exact', 'contains', "):
        AnswerJudge("semantic")


def test_refusals_and_normalization():
    assert normalize_answer('"30 Days."') == "30 days"
    assert is_refusal("") and is_refusal("  I don't know. ") and is_refusal("それは記載がありません。")
    assert not is_refusal("30 days") and is_refusal("n/a", patterns=("N/A",))


def test_token_f1_counts_repeated_words_and_edge_underscores_are_punctuation():
    assert token_f1("a a b", "a b") == pytest.approx(0.8)  # precision 2/3, recall 1
    assert token_f1("a a", "a a") == 1.0
    assert normalize_answer("_30 days_") == "30 days"
