"""Answers judged by meaning where an offline judge can: number-and-unit equivalence and normalized paraphrase.

:func:`meaning_match` returns ``{"correct", "reason"}`` for a generated answer against the expected one:

1. an empty answer or a refusal (:func:`~rag_metrics.answers.matching.is_refusal`) is not correct;
2. numbers first: each number of the expected answer must be stated by the answer with an equivalent unit --
   values compared after converting units (``two weeks`` = ``14 days`` = ``２週間`` = ``14日``; ``50万円`` =
   ``500,000 円``; English and Japanese unit names mapped to one another) -- and no number of the answer with one
   of those units may differ; then the answer's polarity (:func:`~rag_metrics.answers.claims.negated`) must be the
   expected one's. Either failing: not correct, even when the expected text occurs in the answer;
3. the normalized expected answer inside the generated one (the lexical ``contains``) is correct;
4. an expected answer with numbers, all agreeing, is correct when at least half of its other words are there;
5. otherwise correct when at least ``min_overlap`` of the expected answer's content words
   (:func:`~rag_metrics.answers.claims.content_tokens`) are in the answer.

It is not a semantic judge: synonyms without shared words ("cost-centre owner" vs "budget holder") fail, and an
answer that adds a wrong detail to the expected one passes. It is always reported beside the lexical match so that a
change of judge is visible (:func:`rag_metrics.experiment.answer_support.diagnose_answers`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rag_metrics.core.errors import InputError
from rag_metrics.answers.matching import DEFAULT_REFUSALS, is_refusal, normalize_answer
from rag_metrics.answers.claims import UNITS, canonical_quantities, content_tokens, negated

__all__ = ["meaning_match", "MeaningJudge"]

def _unit_words() -> set:
    return {t for u in UNITS for t in content_tokens(u)} | {t for u in UNITS for t in content_tokens(u + "s")}


_UNIT_WORDS = _unit_words()


def meaning_match(predicted: str, expected: str, *, min_overlap: float = 0.8, refusals=DEFAULT_REFUSALS) -> dict:
    """Whether ``predicted`` says what ``expected`` says, as far as an offline judge can tell (module docstring).

    >>> meaning_match("You have two weeks.", "14 days")
    {'correct': True, 'reason': 'same numbers and units'}
    >>> meaning_match("翌月10日", "翌月5日")["correct"]
    False
    """
    if not isinstance(expected, str) or not expected.strip():
        raise InputError(f"meaning_match: the expected answer must be a non-empty string, got {expected!r}.")
    if not isinstance(predicted, str) or is_refusal(predicted, refusals):
        return {"correct": False, "reason": "no answer"}
    polarity = negated(predicted) == negated(expected)
    want, got = canonical_quantities(expected), canonical_quantities(predicted)
    words = set(content_tokens(expected))
    have = set(content_tokens(predicted))
    for value, unit in want:
        if not any(v == value and (unit is None or u is None or u == unit) for v, u in got):
            return {"correct": False, "reason": "a number differs"}
    units = {u for _, u in want if u is not None}
    if any(u in units and (v, u) not in want for v, u in got):
        return {"correct": False, "reason": "a number differs"}
    if not polarity:
        return {"correct": False, "reason": "negation differs"}
    if normalize_answer(expected) in normalize_answer(predicted):
        return {"correct": True, "reason": "contains the expected answer"}
    if want:
        rest = words - _UNIT_WORDS
        if rest and len(rest & have) / len(rest) < 0.5:
            return {"correct": False, "reason": "too few of the expected words"}
        return {"correct": True, "reason": "same numbers and units"}
    if not words:
        return {"correct": False, "reason": "too few of the expected words"}
    if len(words & have) / len(words) < min_overlap:
        return {"correct": False, "reason": "too few of the expected words"}
    return {"correct": True, "reason": "same words"}


@dataclass(frozen=True)
class MeaningJudge:
    """:func:`meaning_match` with its threshold fixed; ``params()`` records it."""

    min_overlap: float = 0.8
    name: str = "offline meaning"

    def __call__(self, predicted: str, expected: str) -> bool:
        return meaning_match(predicted, expected, min_overlap=self.min_overlap)["correct"]

    def params(self) -> dict:
        return {"judge": self.name, "min_overlap": self.min_overlap}
