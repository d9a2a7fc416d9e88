"""What an answer's diagnosis is made of: the diagnoses, what to look at for each, the kinds of claim support, and
the rule that names one answer's diagnosis (:func:`diagnosis_of`) -- shared by the diagnosis of a log's answers
(:mod:`rag_metrics.experiment.support`), the agreement of support judges with people
(:mod:`rag_metrics.experiment.support_agreement`) and the report's section on them
(:mod:`rag_metrics.experiment.support_section`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rag_metrics.core.errors import check_choice
from rag_metrics.judging.claims import canonical_quantities, content_tokens, negated
from rag_metrics.judging.support import SUPPORT_LEVELS
from rag_metrics.stats.intervals import clopper_pearson

__all__ = ["DIAGNOSES", "LOOK_AT", "SUPPORT_KINDS", "stops_short", "diagnosis_of", "Diagnosis", "plain_value",
           "is_missing"]

DIAGNOSES = ("passed", "label_gap", "answered_from_memory", "partially_supported", "misled", "incomplete", "retrieval_failure",
             "hallucinated", "generation_failure")
LOOK_AT = {
    "passed": "nothing",
    "label_gap": "the supporting page is not gold: hand it to labels audit",
    "answered_from_memory": "the answer is right but the judge found no support in the context: the model knew it, "
                            "or the judge missed a paraphrase (read the claims)",
    "partially_supported": "some claims have no support in the context",
    "misled": "every claim supported, the answer wrong: a passage about something else supplied it",
    "incomplete": "every claim supported, the answer stops short of a multi-part expected answer: answer every part",
    "retrieval_failure": "retrieval: chunking, embeddings, hybrid search",
    "hallucinated": "generation: the evidence was retrieved, the answer is unsupported",
    "generation_failure": "generation: prompt, model, context noise",
}
SUPPORT_KINDS = ("verbatim", "paraphrase", "number", "date", "amount", "negation", "not_in_context", "not_in_corpus",
                 "partial")


def stops_short(answer: str, expected: str) -> bool:
    """Whether a wrong ``answer`` says part of ``expected`` and nothing against it: every number it states is one of
    the expected answer's, its polarity is the expected answer's, and it shares a number or at least half of its
    content words with the expected answer. ``False``: it contradicts the expected answer (or says something else)."""
    got, want = canonical_quantities(answer), canonical_quantities(expected)
    if any(q not in want for q in got) or negated(answer) != negated(expected):
        return False
    words, expected_words = set(content_tokens(answer)), set(content_tokens(expected))
    shared_number = any(q in want for q in got)
    return shared_number or (bool(words) and 2 * len(words & expected_words) >= len(words))


def diagnosis_of(retrieval_ok: bool, correct: bool, support: str, short: bool = False, refused: bool = False) -> str:
    """The diagnosis of one answer (module docstring's table); ``short``: the wrong answer stops short of the
    expected one (:func:`stops_short`), read only for a wrong answer whose every claim is supported; ``refused``:
    the answer is a refusal ("The documents do not say."), which states nothing to be misled or hallucinated by: a
    retrieval failure when no gold item was read, else a generation failure (the evidence was there, unused)."""
    check_choice(support, SUPPORT_LEVELS, "support", func="diagnosis_of")
    if refused and not correct:
        return "generation_failure" if retrieval_ok else "retrieval_failure"
    if correct:
        if support == "full":
            return "passed" if retrieval_ok else "label_gap"
        return "partially_supported" if support == "partial" else "answered_from_memory"
    if support == "full":
        return "incomplete" if short else "misled"
    if not retrieval_ok:
        return "retrieval_failure"
    return "hallucinated" if support == "none" else "generation_failure"


@dataclass(frozen=True)
class Diagnosis:
    """Per-question diagnosis (:func:`diagnose_answers`). ``records``: question_id (index), type, answer (the
    generated one), expected, retrieval_ok,
    retrieval_level, lexical_ok, correct, correct_reason, support, n_claims, n_supported, diagnosis, context (the items
    the answer was made from, ``; ``-joined). ``claims``: one row per claim: claim_id (``question_id#n``, the n-th
    claim of the answer), question_id, claim, supported, doc_id, page, span, reason. ``excluded``: no_answer and
    unlabelled question IDs. ``judges``: the judges' parameters."""

    records: pd.DataFrame
    claims: pd.DataFrame
    excluded: dict
    judges: dict = field(default_factory=dict)

    def counts(self) -> dict:
        counts = self.records["diagnosis"].value_counts()
        return {d: int(counts.get(d, 0)) for d in DIAGNOSES}

    def rates(self, confidence: float = 0.95) -> pd.DataFrame:
        """Each diagnosis: questions, share of the answerable questions and its Clopper--Pearson interval."""
        n = len(self.records)
        counts = np.array(list(self.counts().values()))
        low, high = clopper_pearson(counts, n, confidence) if n else (np.full(len(counts), np.nan),) * 2
        return pd.DataFrame({"Diagnosis": list(DIAGNOSES), "Questions": counts,
                             "Share": counts / n if n else np.nan, "Low": low, "High": high,
                             "What to look at": [LOOK_AT[d] for d in DIAGNOSES]})

    def judges_disagree(self) -> pd.DataFrame:
        """Questions where the meaning judge and the lexical match disagree (a change of judge, made visible)."""
        r = self.records
        return r.loc[r["correct"] != r["lexical_ok"], ["lexical_ok", "correct", "correct_reason"]]

    def to_dict(self) -> dict:
        return {"judges": self.judges, "n_questions": int(len(self.records)), "counts": self.counts(),
                "excluded": self.excluded,
                "questions": [{"question_id": q, **{k: plain_value(v) for k, v in row.items()}}
                              for q, row in self.records.iterrows()],
                "claims": [{k: plain_value(v) for k, v in row.items()} for row in self.claims.to_dict("records")]}


def plain_value(value):
    """A cell as JSON writes it: numpy booleans and integers as Python ones, NaN as None."""
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, float) and math.isnan(value):
        return None
    return value



def is_missing(value) -> bool:
    """None, NaN or pd.NA: a missing cell as pandas 2 and 3 give it back."""
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)

