"""Answers judged against the expected answer: a lexical judge of generated answers, and refusals.

Answer matching is lexical, **not a semantic judgment**: ``exact`` (after :func:`normalize_answer`: NFKC so
full-width and half-width digits agree, case, whitespace, surrounding punctuation), ``contains`` (the normalized
expected answer occurs in the normalized generated one) or ``token_f1`` (F1 of tokens >= ``f1_threshold``; Japanese
compared by character bigrams). A paraphrase with different words fails all three. :class:`AnswerJudge` holds a
method and its threshold, as the judges of retrieved items hold their window; :func:`is_refusal` recognizes an empty
answer or a refusal phrase.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from rag_metrics.core.errors import check_choice
from rag_metrics.core.text import tokenize

__all__ = ["AnswerJudge", "normalize_answer", "token_f1", "answer_match", "is_refusal", "MATCHES",
           "DEFAULT_REFUSALS"]

MATCHES = ("exact", "contains", "token_f1")
DEFAULT_REFUSALS = (
    "i don't know", "i do not know", "no answer", "not found", "cannot answer", "can't answer",
    "the documents do not say", "not in the documents", "わかりません", "分かりません", "記載がありません",
    "回答できません", "情報がありません", "見つかりません",
)
_EDGE_PUNCT = re.compile(r"^[\s\W_]+|[\s\W_]+$", re.UNICODE)


def normalize_answer(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed, surrounding punctuation removed.

    >>> normalize_answer("  翌月５日。") == normalize_answer("翌月5日")
    True
    >>> normalize_answer('"30 Days."')
    '30 days'
    """
    text = unicodedata.normalize("NFKC", str(text)).casefold()
    text = " ".join(text.split())
    return _EDGE_PUNCT.sub("", text)


def token_f1(predicted: str, expected: str) -> float:
    """F1 between the token multisets of the two normalized answers (tokens as :func:`rag_metrics.core.text.tokenize`)."""
    p, e = Counter(tokenize(normalize_answer(predicted))), Counter(tokenize(normalize_answer(expected)))
    common = sum((p & e).values())
    if not p or not e or common == 0:
        return 0.0
    precision, recall = common / sum(p.values()), common / sum(e.values())
    return 2 * precision * recall / (precision + recall)


def answer_match(predicted: str, expected: str, *, method: str = "exact", f1_threshold: float = 0.5) -> bool:
    """Whether ``predicted`` matches ``expected`` under ``method`` (exact / contains / token_f1)."""
    check_choice(method, MATCHES, "match", func="answer_match")
    p, e = normalize_answer(predicted), normalize_answer(expected)
    if method == "exact":
        return p == e
    if method == "contains":
        return bool(e) and e in p
    return token_f1(predicted, expected) >= f1_threshold


def is_refusal(answer: str, patterns=DEFAULT_REFUSALS) -> bool:
    """An empty answer, or one containing a refusal phrase (normalized on both sides)."""
    text = normalize_answer(answer)
    return not text or any(normalize_answer(p) in text for p in patterns)


@dataclass(frozen=True)
class AnswerJudge:
    """A generated answer judged against the expected one by ``match`` (``exact``, ``contains``, ``token_f1`` with
    ``f1_threshold``): :func:`answer_match` with its settings fixed, and ``params()`` to record them."""

    match: str = "exact"
    f1_threshold: float = 0.5

    def __post_init__(self):
        check_choice(self.match, MATCHES, "match", func="AnswerJudge")

    def __call__(self, predicted: str, expected: str) -> bool:
        return answer_match(predicted, expected, method=self.match, f1_threshold=self.f1_threshold)

    def params(self) -> dict:
        return {"match": self.match, **({"f1_threshold": self.f1_threshold} if self.match == "token_f1" else {})}
