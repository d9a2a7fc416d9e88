"""The sample corpus and golden set in ``data/``: loaders with validation.

Corpus: ``data/corpus/<doc_id>.md``, one document per file::

    ---
    doc_id: expense_policy
    title: Expense Reimbursement Policy
    genre: policy            (policy / manual / guide / faq / legal ...)
    language: en             (en / ja)
    ---
    [p.1]
    # 1 Scope                (chapter heading)
    ## 1.1 Purpose           (section heading)
    text ...
    [p.2]
    ...

Every page starts with an OCR-style marker ``[p.N]``, numbered 1, 2, 3... The document
text is the body after the front matter, markers and headings included; offsets of
pages, headings and chunks refer to it.

Golden set: ``data/golden.jsonl``, one question per line::

    {"question_id": "q001", "question": "...", "type": "fact",
     "gold_docs": ["expense_policy", "onboarding_ja"],
     "gold_pages": [["expense_policy", 3], ["onboarding_ja", 5]],
     "relevance": {"expense_policy": 2, "onboarding_ja": 1},     (optional; default 1 per gold doc)
     "answer": "30 days",                                       (expected short answer; null if none)
     "labelled": false}                                         (optional; default true)

``type`` is one of ``definition``, ``fact``, ``procedure``, ``multi_hop``, ``no_answer``.
A ``no_answer`` question is labelled and has no gold: the corpus does not answer it.
A question with ``"labelled": false`` has not been annotated yet: it is kept apart as
the annotation backlog and never evaluated.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..text import PAGE_MARKER

__all__ = ["Corpus", "GoldenSet", "load_corpus", "load_golden", "load_answers", "data_dir", "QUESTION_TYPES"]

QUESTION_TYPES = ("definition", "fact", "procedure", "multi_hop", "no_answer")
_FRONT_KEYS = ("doc_id", "title", "genre", "language")


def data_dir() -> Path:
    """The sample data folder: ``$RAG_METRICS_DATA`` if set, else ``data/`` of this repository."""
    env = os.environ.get("RAG_METRICS_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "data"


@dataclass(frozen=True)
class Corpus:
    """``documents``: doc_id (index), title, genre, language, n_pages, text.
    ``pages``: doc_id, page, text, start, end (offsets in the document text), genre, language.
    ``headings``: doc_id, level (1 chapter, 2 section), title, start, end (offsets of the heading line).
    """

    documents: pd.DataFrame
    pages: pd.DataFrame
    headings: pd.DataFrame

    def text(self, doc_id: str) -> str:
        return self.documents.at[doc_id, "text"]

    def page_text(self, doc_id: str, page: int) -> str:
        row = self.pages[(self.pages["doc_id"] == doc_id) & (self.pages["page"] == page)]
        if row.empty:
            raise InputError(f"no page {page} in document {doc_id!r}")
        return row["text"].iloc[0]


def _parse_document(path: Path):
    raw = path.read_text(encoding="utf-8")
    lines = raw.split("\n")
    if not lines or lines[0].strip() != "---":
        raise InputError("expected front matter starting with '---'.", path=path, line=1)
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise InputError("front matter is not closed by '---'.", path=path, line=1) from None
    meta = {}
    for i in range(1, end):
        key, sep, value = lines[i].partition(":")
        if not sep:
            raise InputError(f"expected 'key: value' in the front matter, got {lines[i]!r}.", path=path, line=i + 1)
        meta[key.strip()] = value.strip()
    missing = [k for k in _FRONT_KEYS if not meta.get(k)]
    if missing:
        raise InputError(f"front matter lacks {missing}.", path=path, line=1)
    if meta["doc_id"] != path.stem:
        raise InputError(f"doc_id {meta['doc_id']!r} differs from the file name {path.stem!r}.", path=path, line=2)
    body_line = end + 2  # 1-based line number of the first body line
    text = "\n".join(lines[end + 1 :])
    markers = list(PAGE_MARKER.finditer(text))
    if not markers or text[: markers[0].start()].strip():
        raise InputError("the body must start with the page marker [p.1].", path=path, line=body_line)
    pages = []
    for n, m in enumerate(markers, start=1):
        if int(m.group(1)) != n:
            line = body_line + text[: m.start()].count("\n")
            raise InputError(f"page marker {m.group()} out of sequence; expected [p.{n}].", path=path, line=line)
        stop = markers[n].start() if n < len(markers) else len(text.rstrip("\n"))
        pages.append({"doc_id": meta["doc_id"], "page": n, "start": m.start(), "end": stop, "text": text[m.start() : stop]})
    headings = []
    offset = 0
    for line in text.split("\n"):
        level = 2 if line.startswith("## ") else 1 if line.startswith("# ") else 0
        if level:
            headings.append({"doc_id": meta["doc_id"], "level": level, "title": line[level + 1 :].strip(),
                             "start": offset, "end": offset + len(line)})
        offset += len(line) + 1
    return meta, text, pages, headings


def load_corpus(path=None) -> Corpus:
    """Load every ``*.md`` document of ``path`` (default ``data_dir()/"corpus"``)."""
    folder = Path(path) if path is not None else data_dir() / "corpus"
    files = sorted(folder.glob("*.md"))
    if not files:
        raise InputError("no document (*.md) found; expected the corpus folder.", path=folder)
    docs, pages, headings = [], [], []
    for file in files:
        meta, text, doc_pages, doc_headings = _parse_document(file)
        docs.append({**{k: meta[k] for k in _FRONT_KEYS}, "n_pages": len(doc_pages), "text": text})
        for p in doc_pages:
            p.update(genre=meta["genre"], language=meta["language"])
        pages += doc_pages
        headings += doc_headings
    documents = pd.DataFrame(docs).set_index("doc_id")
    return Corpus(documents, pd.DataFrame(pages), pd.DataFrame(headings))


@dataclass(frozen=True)
class GoldenSet:
    """``questions``: question_id (index), question, type, answer, labelled.
    ``gold``: long form for :func:`rag_metrics.evaluate` -- question_id, doc_id, relevance, type
    (a no_answer question has one row with doc_id None; unlabelled questions are absent).
    ``gold_pages``: question_id, doc_id, page.
    ``backlog``: IDs of questions whose gold is not annotated yet.
    """

    questions: pd.DataFrame
    gold: pd.DataFrame
    gold_pages: pd.DataFrame
    backlog: tuple

    @property
    def labelled(self) -> pd.DataFrame:
        return self.questions[self.questions["labelled"]]


def _row_error(path, lineno, qid, message):
    who = f"question {qid!r}: " if qid else ""
    return InputError(who + message, path=path, line=lineno, question=qid)


def load_golden(path=None, corpus: Corpus | None = None) -> GoldenSet:
    """Load and validate the golden set (default ``data_dir()/"golden.jsonl"``).

    Errors name the file, the line and the question: malformed JSON, a missing or
    wrongly typed field, an unknown type, a duplicate question ID, a gold document not
    in the corpus, a page out of the document's range, a gold page whose document is
    not among ``gold_docs``, gold on a no_answer or unlabelled question.
    """
    path = Path(path) if path is not None else data_dir() / "golden.jsonl"
    corpus = corpus if corpus is not None else load_corpus()
    n_pages = corpus.documents["n_pages"].to_dict()
    if not path.is_file():
        raise InputError("file not found; expected a golden set (JSON lines).", path=path)
    questions, gold, gold_pages, seen = [], [], [], {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"malformed JSON: {e.msg} (column {e.colno}).", path=path, line=lineno) from None
        if not isinstance(row, dict):
            raise InputError("expected a JSON object per line.", path=path, line=lineno)
        qid = row.get("question_id")
        if not isinstance(qid, str) or not qid:
            raise InputError("'question_id' must be a non-empty string.", path=path, line=lineno)
        if qid in seen:
            raise _row_error(path, lineno, qid, f"duplicate question_id (first at line {seen[qid]}).")
        seen[qid] = lineno
        for field, kind in (("question", str), ("type", str), ("gold_docs", list), ("gold_pages", list)):
            if not isinstance(row.get(field), kind):
                raise _row_error(path, lineno, qid, f"field {field!r} must be a {kind.__name__}, got {row.get(field)!r}.")
        typ, labelled = row["type"], row.get("labelled", True)
        if typ not in QUESTION_TYPES:
            raise _row_error(path, lineno, qid, f"type {typ!r} is not one of {QUESTION_TYPES}.")
        if not isinstance(labelled, bool):
            raise _row_error(path, lineno, qid, f"'labelled' must be true or false, got {labelled!r}.")
        docs, pages = row["gold_docs"], row["gold_pages"]
        if (typ == "no_answer" or not labelled) and (docs or pages):
            what = "a no_answer question" if typ == "no_answer" else "an unlabelled question"
            raise _row_error(path, lineno, qid, f"{what} cannot have gold documents or pages.")
        if labelled and typ != "no_answer" and not docs:
            raise _row_error(path, lineno, qid, "a labelled question needs gold_docs (or type no_answer).")
        for doc in docs:
            if doc not in n_pages:
                raise _row_error(path, lineno, qid, f"gold document {doc!r} is not in the corpus.")
        for item in pages:
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], int)):
                raise _row_error(path, lineno, qid, f"gold page {item!r} must be [doc_id, page number].")
            doc, page = item
            if doc not in docs:
                raise _row_error(path, lineno, qid, f"gold page {item!r}: document {doc!r} is not in gold_docs.")
            if not 1 <= page <= n_pages[doc]:
                raise _row_error(path, lineno, qid, f"gold page {page} of {doc!r} is out of range 1..{n_pages[doc]}.")
            gold_pages.append({"question_id": qid, "doc_id": doc, "page": page})
        relevance = row.get("relevance") or {}
        if not isinstance(relevance, dict) or any(
            d not in docs or isinstance(v, bool) or not isinstance(v, (int, float)) for d, v in relevance.items()
        ):
            raise _row_error(path, lineno, qid, f"'relevance' must map gold_docs to numbers, got {relevance!r}.")
        questions.append({"question_id": qid, "question": row["question"], "type": typ,
                          "answer": row.get("answer"), "labelled": labelled})
        if labelled:
            if docs:
                gold += [{"question_id": qid, "doc_id": d, "relevance": float(relevance.get(d, 1)), "type": typ} for d in docs]
            else:
                gold.append({"question_id": qid, "doc_id": None, "relevance": None, "type": typ})
    if not questions:
        raise InputError("file is empty; expected one JSON question per line.", path=path)
    qdf = pd.DataFrame(questions).set_index("question_id")
    backlog = tuple(qdf.index[~qdf["labelled"]])
    return GoldenSet(qdf, pd.DataFrame(gold), pd.DataFrame(gold_pages, columns=["question_id", "doc_id", "page"]), backlog)


def load_answers(path=None) -> pd.DataFrame:
    """Load a logged-answers file (default ``data_dir()/"answers.jsonl"``), one JSON object per line.

    Fields: question_id, generator, retrieved_ids, retrieved_scores, generated_answer, faithfulness.
    Numbers are read exactly as written (0.95 stays 0.95). A malformed line is an error naming it.
    """
    path = Path(path) if path is not None else data_dir() / "answers.jsonl"
    if not path.is_file():
        raise InputError("file not found; expected logged answers (JSON lines).", path=path)
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise InputError(f"malformed JSON: {e.msg} (column {e.colno}).", path=path, line=lineno) from None
    return pd.DataFrame(rows)
