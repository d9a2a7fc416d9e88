"""A corpus: documents, their pages and headings -- from the sample data, a folder of documents or ``pages.jsonl``.

:func:`load_corpus` reads any of them (readers and formats in :mod:`rag_metrics.io.pages`):

* ``sample=True``: the sample corpus ``data/corpus/*.md``, a handbook of a fictional company written for
  this project (8 documents, English and Japanese, OCR-style ``[p.N]`` page markers);
* a folder of documents (PDF, Markdown/text with page markers, plain text);
* a ``pages.jsonl`` file, or a single document file.

A document's text is its pages joined in order (a newline between two pages unless the first
already ends with one); page offsets refer to it, and so do chunk offsets. Headings are the lines
starting with ``# `` (chapter) or ``## `` (section).

Sample corpus file format (``data/corpus/<doc_id>.md``)::

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
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.io.jsonl import iter_jsonl
from rag_metrics.io.pages import read_document, read_documents, read_pages_jsonl

__all__ = ["Corpus", "load_corpus", "load_answers", "answer_text", "data_dir", "sample_path", "corpus_from_pages"]


def data_dir() -> Path:
    """The sample data folder: ``$RAG_METRICS_DATA`` if set, else ``data/`` of this repository."""
    env = os.environ.get("RAG_METRICS_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "data"


def sample_path(name: str, path=None, *, sample: bool = False, func: str, what: str) -> Path:
    """The file a loader reads: ``path``, or with ``sample=True`` (and no path) the project's sample ``name`` in
    :func:`data_dir`. The sample is never a silent default: an installed package has no ``data/``, and a team's
    numbers must not come from the sample because a path was left out."""
    if path is not None:
        if sample:
            raise InputError(f"{func}: give a path or sample=True, not both.")
        return Path(path)
    if not sample:
        raise InputError(f"{func}: give the path of {what}, or sample=True for the project's sample.")
    found = data_dir() / name
    if not found.exists():
        raise InputError("the project's sample data is not here (a source checkout's data/, or $RAG_METRICS_DATA).",
                         path=found)
    return found


@dataclass(frozen=True, repr=False)
class Corpus:
    """``documents``: doc_id (index), title, genre, language, n_pages, text.
    ``pages``: doc_id, page, text, start, end (offsets in the document text), title, genre, language.
    ``headings``: doc_id, level (1 chapter, 2 section), title, start, end (offsets of the heading line).
    ``source``: what was read.
    """

    documents: pd.DataFrame
    pages: pd.DataFrame
    headings: pd.DataFrame
    source: str | None = None

    def text(self, doc_id: str) -> str:
        return self.documents.at[doc_id, "text"]

    def page_text(self, doc_id: str, page: int) -> str:
        row = self.pages[(self.pages["doc_id"] == doc_id) & (self.pages["page"] == page)]
        if row.empty:
            raise InputError(f"no page {page} in document {doc_id!r}.")
        return row["text"].iloc[0]

    @property
    def empty_pages(self) -> list[tuple[str, int]]:
        """Pages with no text (e.g. scanned pages a PDF reader cannot read): never judged as matches."""
        empty = self.pages[self.pages["text"].str.strip() == ""]
        return list(zip(empty["doc_id"], empty["page"]))

    def __repr__(self) -> str:
        return (f"<Corpus {self.source or ''}: {len(self.documents)} documents, {len(self.pages)} pages>")[:480]

    def _repr_html_(self) -> str:
        from rag_metrics.core.html import summary

        docs = self.documents.drop(columns="text")
        return summary(f"Corpus: {len(docs)} documents, {len(self.pages)} pages ({len(self.empty_pages)} without "
                       f"text){', from ' + str(self.source) if self.source else ''}.", (None, docs))


def corpus_from_pages(pages: list[dict], source=None) -> Corpus:
    """Build a :class:`Corpus` from page dicts (``doc_id, page, text[, title, genre, language]``) in order."""
    docs, page_rows, headings = [], [], []
    by_doc: dict[str, list[dict]] = {}
    for p in pages:
        by_doc.setdefault(p["doc_id"], []).append(p)
    for doc_id, doc_pages in by_doc.items():
        parts, offset = [], 0
        for i, p in enumerate(doc_pages):
            if i and parts and not parts[-1].endswith("\n"):
                parts.append("\n")
                offset += 1
            page_rows.append({"doc_id": doc_id, "page": p["page"], "text": p["text"], "start": offset,
                              "end": offset + len(p["text"]), "title": p.get("title", ""), "genre": p.get("genre", ""),
                              "language": p.get("language", "")})
            parts.append(p["text"])
            offset += len(p["text"])
        text = "".join(parts)
        first = doc_pages[0]
        line_offset = 0
        for line in text.split("\n"):
            level = 2 if line.startswith("## ") else 1 if line.startswith("# ") else 0
            if level:
                headings.append({"doc_id": doc_id, "level": level, "title": line[level + 1:].strip(),
                                 "start": line_offset, "end": line_offset + len(line)})
            line_offset += len(line) + 1
        title = first.get("title") or next((h["title"] for h in headings if h["doc_id"] == doc_id and h["level"] == 1),
                                           doc_id)
        docs.append({"doc_id": doc_id, "title": title, "genre": first.get("genre", ""),
                     "language": first.get("language", ""), "n_pages": len(doc_pages), "text": text})
    if not docs:
        raise InputError("no page; expected at least one document page.", path=source)
    documents = pd.DataFrame(docs).set_index("doc_id")
    page_table = pd.DataFrame(page_rows)
    for col in ("title", "genre", "language"):  # document-level fields, the same on every page
        page_table[col] = page_table["doc_id"].map(documents[col])
    return Corpus(documents, page_table,
                  pd.DataFrame(headings, columns=["doc_id", "level", "title", "start", "end"]),
                  None if source is None else str(source))


def load_corpus(path=None, *, sample: bool = False) -> Corpus:
    """Load a corpus: a folder of documents, ``pages.jsonl``, or one document file; ``sample=True`` (no path): the
    project's sample corpus."""
    path = sample_path("corpus", path, sample=sample, func="load_corpus",
                       what="your documents (a folder, pages.jsonl or a document file)")
    p = Path(path)
    if p.is_dir():
        pages = read_documents(p)
    elif p.suffix.lower() == ".jsonl":
        pages = read_pages_jsonl(p)
    elif p.is_file():
        pages = read_document(p)
    else:
        raise InputError("not found; expected a folder of documents, a pages.jsonl file or a document.", path=path)
    return corpus_from_pages(pages, source=path)


def answer_text(value, *, who: str, path=None, line=None) -> str:
    """A logged ``generated_answer`` as text: a string as it is, none (missing or null) as ``""`` -- no answer, whose
    claims are none --; anything else (a number, a list) is an error naming ``who``, ``path`` and ``line``."""
    if isinstance(value, str):
        return value
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    raise InputError(f"{who}: generated_answer {shown} is not text; expected the answer as a string (null when the "
                     "generator gave none).", path=path, line=line, field="generated_answer")


def load_answers(path=None, *, sample: bool = False) -> pd.DataFrame:
    """Load a logged-answers file, one JSON object per line (``sample=True``, no path: the project's sample
    ``answers.jsonl``).

    Fields: question_id, generator, retrieved_ids, retrieved_scores, generated_answer, faithfulness; ``retrieved``
    (items with doc_id, page or pages, text) may stand for ``retrieved_ids``. Numbers are read exactly as written
    (0.95 stays 0.95). Each line is checked as it is read: the answer is text or null (:func:`answer_text`), and the
    context is read as a retrieval log's items are (:func:`rag_metrics.io.logs.read_context`,
    :func:`~rag_metrics.io.logs.read_document_ids`); a problem names the file, the line and the field. The table
    keeps each row's ``line`` and, in ``attrs["source"]``, the file, so that later checks name them too.
    """
    from rag_metrics.io.logs import read_context, read_document_ids

    path = sample_path("answers.jsonl", path, sample=sample, func="load_answers", what="the logged answers")
    rows = []
    for line, row in iter_jsonl(path, "logged answers (JSON lines)"):
        qid = row.get("question_id")
        who = f"question {qid!r}" if qid is not None else f"the answer at line {line}"
        answer_text(row.get("generated_answer"), who=who, path=path, line=line)
        if row.get("retrieved") is not None:
            read_context(row["retrieved"], who=who, path=path, line=line)
        if row.get("retrieved_ids") is not None:
            read_document_ids(row["retrieved_ids"], who=who, path=path, line=line)
        rows.append({**row, "line": line})
    table = pd.DataFrame(rows)
    table.attrs["source"] = str(path)
    return table
