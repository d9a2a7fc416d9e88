"""Automatic assessors for retrieved items nobody labelled: one protocol, an offline assessor, and where answers are.

The protocol (:class:`Assessor`): ``assess(question, expected_answer, text, *, evidence=None) -> grade``, a graded
relevance label on the scale of TREC's LLM assessments (UMBRELA, Upadhyay et al. 2024), :data:`GRADES`:

=====  =========================================================================================
grade  meaning
=====  =========================================================================================
3      the text is dedicated to the question and contains the exact answer
2      the text contains an answer, partly or mixed with other material
1      the text is related to the question but does not answer it
0      the text has nothing to do with the question
=====  =========================================================================================

A grade of :data:`RELEVANT_GRADE` (2) or more counts as relevant, as UMBRELA's binary reading does. An assessor
may carry ``name``, ``model`` and ``prompt_version`` (recorded with every label it gives). The LLM assessors on
the golden builder's clients are :mod:`rag_metrics.labels.llm_assessors`.

:class:`OfflineAssessor` needs no service. Its rules, in order:

* **3** -- the expected answer occurs in the text (:func:`find_answer`: NFKC, case and whitespace folded as
  :func:`~rag_metrics.answers.matching.normalize_answer` does, at word boundaries for Latin letters and digits,
  so ``3`` is not found inside ``30``);
* **2** -- the text shares a fragment of at least ``min_evidence_chars`` characters (normalized as the overlap judge
  normalizes) with the gold evidence, when the caller gives it (e.g. the gold page's sentence holding the answer);
* **1** -- at least ``related_share`` of the expected answer's search tokens occur in the text;
* **0** -- otherwise.

Its limits, stated: it is lexical. A paraphrase of the answer (*thirty days* for *30 days*, *no* for *neither ...
covers it*) is missed; an answer written as a sentence is found only verbatim; a short answer (*Yes*, *3*, *EUR*)
occurs on many unrelated pages and is found there too; a question without an expected answer gets 0 unless evidence
matches. It never reads the question. Measure its agreement with people (:mod:`rag_metrics.stats.agreement`)
before its labels change a figure.

:func:`assess_items` runs an assessor over the items that have no human label (never over a labelled one) and
returns the labels with their source, kept apart from the human labels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import pandas as pd

from rag_metrics.core.errors import InputError, check_int
from rag_metrics.judging.judges import shared_spans
from rag_metrics.judging.page_index import PageIndex
from rag_metrics.core.text import fold_with_index, normalize, tokenize
from rag_metrics.answers.matching import normalize_answer
from rag_metrics.judging.locate import item_pages

__all__ = ["Assessor", "OfflineAssessor", "GRADES", "RELEVANT_GRADE", "find_answer", "assess_items", "check_grade",
           "assessor_info", "ASSESSED_COLUMNS", "retrieved_pages", "answer_sentences",
           "assessment_items"]

GRADES = {3: "dedicated to the question, contains the exact answer",
          2: "contains an answer, partly or mixed with other material",
          1: "related to the question, does not answer it",
          0: "nothing to do with the question"}
RELEVANT_GRADE = 2
"""Grades at or above this count as relevant (UMBRELA's binary reading)."""

ASSESSED_COLUMNS = ["question_id", "doc_id", "page", "grade", "relevant", "source", "assessor", "model",
                    "prompt_version"]


@runtime_checkable
class Assessor(Protocol):
    """``assess(question, expected_answer, text, *, evidence=None) -> int`` in 0..3 (:data:`GRADES`)."""

    def assess(self, question: str, expected_answer: str | None, text: str, *, evidence: str | None = None) -> int:
        ...  # pragma: no cover - a protocol


def check_grade(value, who: str = "assessor") -> int:
    """A grade as an int in 0..3; anything else is an :class:`InputError` naming who gave it."""
    if isinstance(value, bool) or not isinstance(value, int) or value not in GRADES:
        raise InputError(f"{who} returned grade {value!r}; expected an integer 0, 1, 2 or 3.")
    return int(value)


def assessor_info(assessor) -> dict:
    """Provenance of an assessor: name, model, prompt_version."""
    name = getattr(assessor, "name", None) or type(assessor).__name__
    return {"assessor": str(name), "model": getattr(assessor, "model", None),
            "prompt_version": getattr(assessor, "prompt_version", None)}


# --- where an answer occurs -----------------------------------------------------------------------------------

_WORD = re.compile(r"[0-9A-Za-z\u00c0-\u024f]")


def find_answer(text: str, answer: str | None) -> list[tuple[int, int]]:
    """Spans of ``text`` (offsets in ``text`` as given) where the expected ``answer`` occurs, normalized as answer
    matching normalizes (:func:`~rag_metrics.answers.matching.normalize_answer`: NFKC, case, whitespace,
    surrounding punctuation); an answer that starts or ends with a Latin letter or digit must start or end at a word
    boundary (``3`` is not in ``30``, ``EUR`` is not in ``EURO``). [] when the answer is empty or absent.

    >>> find_answer("Claims are due within 30 days.", "30 Days")
    [(22, 29)]
    >>> find_answer("within 30 days", "3")
    []
    """
    if not isinstance(text, str) or answer is None:
        return []
    target = normalize_answer(answer)
    if not target:
        return []
    folded, index = fold_with_index(text)
    spans, start = [], 0
    word_start, word_end = bool(_WORD.match(target[0])), bool(_WORD.match(target[-1]))
    while True:
        i = folded.find(target, start)
        if i < 0:
            return spans
        j = i + len(target)
        before_ok = not word_start or i == 0 or not _WORD.match(folded[i - 1])
        after_ok = not word_end or j == len(folded) or not _WORD.match(folded[j])
        if before_ok and after_ok:
            spans.append((index[i], index[j - 1] + 1))
        start = i + 1


_SENTENCE_END = re.compile(r"[.!?。！？]\s|[。！？]|\n")


def answer_sentences(text: str, answer: str | None) -> list[str]:
    """The sentence(s) of ``text`` holding the expected answer (:func:`find_answer`), once each: the evidence that
    a page answering the same question would share. A sentence ends at ``. ! ?`` + space, ``。！？`` or a line end.

    >>> answer_sentences("Scope. Claims are due within 30 days. Late claims are refused.", "30 days")
    ['Claims are due within 30 days.']
    """
    out = []
    for a, b in find_answer(text, answer):
        start = max((m.end() for m in _SENTENCE_END.finditer(text, 0, a)), default=0)
        m = _SENTENCE_END.search(text, b)
        end = m.start() + 1 if m else len(text)
        out.append(text[start:end].strip())
    return list(dict.fromkeys(s for s in out if s))


# --- the pages the runs retrieved ------------------------------------------------------------------------

def retrieved_pages(results, corpus, *, k: int | None = None, locate_chars: int = 24) -> tuple[pd.DataFrame, int]:
    """``results``: ``[(name, ExperimentResult)]``. One row per (run, question, retrieved page): run, question_id, doc_id, page, rank (the best rank at which the
    run retrieved the page), located (``metadata`` or ``text``: :func:`~rag_metrics.judging.locate.item_pages`); and
    the number of items that could not be placed (an unknown document, or no page from either)."""
    index = PageIndex(corpus)
    n_pages = corpus.documents["n_pages"].to_dict()
    rows, unplaced = [], 0
    for name, result in results:
        run = result.run if k is None else result.run[result.run["rank"] <= k]
        for q, doc, rank, pages, text in zip(run["question_id"], run["doc_id"], run["rank"], run["pages"], run["text"]):
            if doc not in n_pages:
                unplaced += 1
                continue
            pages, how = item_pages(doc, pages, text, index, n_pages, locate_chars)
            if not pages:
                unplaced += 1
            for p in pages:
                rows.append({"run": name, "question_id": q, "doc_id": doc, "page": int(p), "rank": int(rank),
                             "located": how})
    table = pd.DataFrame(rows, columns=["run", "question_id", "doc_id", "page", "rank", "located"])
    if len(table):
        table = (table.sort_values(["run", "question_id", "rank"], kind="stable")
                 .drop_duplicates(["run", "question_id", "doc_id", "page"]).reset_index(drop=True))
    return table, unplaced


# --- the offline assessor -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class OfflineAssessor:
    """Answer and evidence matching, no service (rules and limits in the module docstring).

    Parameters
    ----------
    min_evidence_chars : int >= 8, the shared fragment with the gold evidence that gives grade 2
    related_share : float in (0, 1], the share of the answer's tokens that gives grade 1
    """

    min_evidence_chars: int = 48
    related_share: float = 0.5
    name: str = "offline"
    model = None
    prompt_version = "offline-v1"

    def __post_init__(self):
        check_int(self.min_evidence_chars, "min_evidence_chars", low=8, func="OfflineAssessor")
        if isinstance(self.related_share, bool) or not isinstance(self.related_share, (int, float)) or \
                not 0 < self.related_share <= 1:
            raise InputError(f"The 'related_share' parameter of OfflineAssessor must be in (0, 1]. Got "
                             f"{self.related_share!r} instead.")

    def assess(self, question: str, expected_answer: str | None, text: str, *, evidence: str | None = None) -> int:
        if not isinstance(text, str):
            raise InputError(f"OfflineAssessor: text must be a string, got {type(text).__name__}.")
        if find_answer(text, expected_answer):
            return 3
        if evidence and shared_spans(normalize(text), [normalize(evidence)], self.min_evidence_chars):
            return 2
        tokens = set(tokenize(expected_answer or ""))
        if tokens and len(tokens & set(tokenize(text))) / len(tokens) >= self.related_share:
            return 1
        return 0

    __call__ = assess


# --- running an assessor over the unlabelled items ------------------------------------------------------------------

def assess_items(items: pd.DataFrame, assessor, *, human=None, progress=None) -> pd.DataFrame:
    """Grade every item that has no human label; return the labels (:data:`ASSESSED_COLUMNS`), source ``assessed``.

    Parameters
    ----------
    items : DataFrame with question_id, doc_id, page, question, answer (the expected answer), text (the page's
        text) and optionally evidence; one row per (question, page) -- duplicates are assessed once
    assessor : an :class:`Assessor`
    human : DataFrame with question_id, doc_id, page (the human labels, any grade) -- those items are skipped,
        never assessed; or None
    progress : optional callable ``progress(done, total)``

    Items are assessed in the order given. A failing item raises (the service's error, named by the assessor): a
    partial set of labels is never returned as if it were complete.
    """
    needed = ["question_id", "doc_id", "page", "question", "answer", "text"]
    missing = [c for c in needed if c not in items.columns]
    if missing:
        raise InputError(f"assess_items: missing column(s) {missing}; found {list(items.columns)}.")
    keys = items[["question_id", "doc_id", "page"]].astype({"page": int})
    todo = items.loc[~keys.duplicated()].copy()
    todo["page"] = todo["page"].astype(int)
    if human is not None and len(human):
        labelled = set(zip(human["question_id"], human["doc_id"], human["page"].astype(int)))
        todo = todo[[k not in labelled for k in zip(todo["question_id"], todo["doc_id"], todo["page"])]]
    info = assessor_info(assessor)
    rows = []
    evidence = todo["evidence"] if "evidence" in todo.columns else pd.Series(None, index=todo.index, dtype=object)
    for n, (row, ev) in enumerate(zip(todo.to_dict("records"), evidence), start=1):
        grade = check_grade(assessor.assess(row["question"], row["answer"], row["text"],
                                            evidence=ev if isinstance(ev, str) else None), info["assessor"])
        rows.append({"question_id": row["question_id"], "doc_id": row["doc_id"], "page": int(row["page"]),
                     "grade": grade, "relevant": grade >= RELEVANT_GRADE, "source": "assessed", **info})
        if progress is not None:
            progress(n, len(todo))
    return pd.DataFrame(rows, columns=ASSESSED_COLUMNS)


def assessment_items(result, corpus=None, *, k: int | None = None, locate_chars: int = 24) -> pd.DataFrame:
    """The retrieved top-``k`` pages of every answerable question of an experiment result, ready for
    :func:`assess_items`: question_id, doc_id, page, question, answer (expected), text (the page's), evidence (the
    sentences of the question's gold pages that hold its answer, joined; None when the answer is on none), gold (the
    page is a gold page of the question). Gold pages are included: graded, they measure the assessor.
    """
    corpus = corpus if corpus is not None else result.corpus
    if corpus is None:
        raise InputError("assessment_items needs the pages (a corpus): assessors read their text.")
    k = max(result.ks) if k is None else check_int(k, "k", func="assessment_items")
    pages, _ = retrieved_pages([(result.name, result)], corpus, k=k, locate_chars=locate_chars)
    golden = result.golden
    answerable = set(golden.answerable)
    pages = pages[pages["question_id"].isin(answerable)].drop_duplicates(["question_id", "doc_id", "page"])
    texts = {(d, int(p)): t for d, p, t in zip(corpus.pages["doc_id"], corpus.pages["page"], corpus.pages["text"])}
    gold = {q: set(zip(g["doc_id"], g["page"].astype(int))) for q, g in golden.gold_pages.groupby("question_id")}
    q = golden.questions
    evidence = {}
    for qid in answerable:
        found = [s for d, p in sorted(gold.get(qid, ())) for s in answer_sentences(texts.get((d, p), ""),
                                                                                  q.at[qid, "answer"])]
        evidence[qid] = " ".join(dict.fromkeys(found)) or None
    rows = [{"question_id": qid, "doc_id": d, "page": int(p), "question": q.at[qid, "question"],
             "answer": q.at[qid, "answer"], "text": texts.get((d, int(p)), ""), "evidence": evidence[qid],
             "gold": (d, int(p)) in gold.get(qid, ())}
            for qid, d, p in zip(pages["question_id"], pages["doc_id"], pages["page"])]
    return pd.DataFrame(rows, columns=["question_id", "doc_id", "page", "question", "answer", "text", "evidence", "gold"])
