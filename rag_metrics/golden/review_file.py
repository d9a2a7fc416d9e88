"""The review file of a draft golden set, written and read back.

:func:`review_draft` gives every draft question its reasons (:mod:`rag_metrics.golden.flags`) and a
decision pre-filled ``drop`` for a flagged question and ``keep`` otherwise. :func:`write_review` writes it
(CSV with a byte-order mark so spreadsheet programs read Japanese, or JSON lines by extension); a reviewer
changes decisions and may edit ``question`` and ``answer`` in place; :func:`read_decisions` reads it back,
naming the line of any bad row. A CSV cell that a spreadsheet would run as a formula (``=``, ``+``, ``-``,
``@`` first) is written with a leading ``'`` and read back without it (:mod:`rag_metrics.io.csvfile`, the one CSV
writer and reader), so ``=HYPERLINK(...)`` in a generated question stays text.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.core.files import atomic_write_text
from rag_metrics.core.serialize import csv_text
from rag_metrics.io.jsonl import jsonl_text
from rag_metrics.io.sheets import choice_cell, read_sheet, text_cell
from rag_metrics.golden.flags import flag_context_dependent, heading_template, near_duplicates
from rag_metrics.golden.generate import Draft
from rag_metrics.golden.sampler import PageSample

__all__ = ["review_draft", "write_review", "review_text", "read_decisions", "REVIEW_COLUMNS",
           "DECISIONS"]

DECISIONS = ("keep", "drop")
REVIEW_COLUMNS = ["question_id", "decision", "reasons", "question", "answer", "type", "doc_id", "page", "evidence",
                  "generator"]


def page_texts(sample: PageSample | None) -> dict:
    if sample is None:
        return {}
    return {(r["doc_id"], int(r["page"])): r for r in sample.pages.to_dict("records")}


def review_draft(draft: Draft, sample: PageSample | None = None, *, duplicate_threshold: float = 0.7,
                 heading_templates: bool = True) -> pd.DataFrame:
    """The review table (:data:`REVIEW_COLUMNS`): every draft question with its reasons and a pre-filled decision.

    ``sample`` supplies the page text (for the answer and heading-template checks) and titles; without it those
    checks are skipped. ``heading_templates=False`` leaves a page heading wrapped in a template unflagged
    (:func:`~rag_metrics.golden.flags.heading_template`), to measure what such questions do to a figure.
    """
    pages = page_texts(sample)
    q = draft.questions.reset_index(drop=True)
    reasons = []
    for row in q.to_dict("records"):
        page = pages.get((row["doc_id"], int(row["page"])))
        reasons.append(flag_context_dependent(
            row["question"], title=(page or {}).get("title") or row.get("title"), doc_id=row["doc_id"],
            page_text=None if page is None else page["text"], answer=row.get("answer"), evidence=row.get("evidence"),
            extractive=bool(row.get("extractive"))))
        templated = heading_template(row["question"], None if page is None else page["text"]) if heading_templates else None
        if templated:
            reasons[-1].append(templated)
    for i, j, sim in near_duplicates(list(q["question"]), duplicate_threshold):
        reasons[j].append(f"near-duplicate of {q.at[i, 'question_id']} (similarity {sim:.2f})")
    table = pd.DataFrame({
        "question_id": q["question_id"], "decision": ["drop" if r else "keep" for r in reasons],
        "reasons": ["; ".join(r) for r in reasons], "question": q["question"], "answer": q["answer"],
        "type": q["type"], "doc_id": q["doc_id"], "page": q["page"].astype(int), "evidence": q["evidence"],
        "generator": q["generator"]})
    return table[REVIEW_COLUMNS]


def review_text(review: pd.DataFrame, path) -> str:
    """The review table as the text of ``path``: JSON lines for ``.jsonl``, else CSV (:func:`csv_text`)."""
    records = [{k: (None if v is pd.NA or (isinstance(v, float) and v != v) else v) for k, v in r.items()}
               for r in review.to_dict("records")]
    if Path(path).suffix.lower() == ".jsonl":
        return jsonl_text(records)
    return csv_text(list(review.columns), records)


def write_review(review: pd.DataFrame, path) -> Path:
    """Write the review table atomically: ``.jsonl`` as JSON lines, anything else as CSV (UTF-8 with a byte-order
    mark)."""
    path = Path(path)
    encoding = "utf-8" if path.suffix.lower() == ".jsonl" else "utf-8-sig"
    return atomic_write_text(path, review_text(review, path), encoding=encoding)


def read_decisions(path) -> pd.DataFrame:
    """A reviewed file: question_id, decision (keep/drop), and -- when present -- edited question and answer.

    Errors name the line: a missing column, an empty or unknown decision, a question listed twice
    (:func:`~rag_metrics.io.sheets.read_sheet`).
    """
    path = Path(path)
    _, rows = read_sheet(path, expected="the review file of `rag-metrics golden review`",
                         required=("question_id", "decision"), key="question_id", label="question", noun="decision")
    out = []
    for line, qid, row in rows:
        decision = choice_cell(row.get("decision"), DECISIONS, "decision", who=f"question {qid!r}", path=path,
                               line=line, question=qid)
        rec = {"question_id": qid, "decision": decision, "line": line}
        for key in ("question", "answer"):
            value = row.get(key)
            if value is not None and not isinstance(value, str):
                raise InputError(f"question {qid!r}: {key!r} must be text, got {value!r}.", path=path, line=line,
                                 field=key)
            rec[key] = text_cell(value)
        out.append(rec)
    return pd.DataFrame(out)
