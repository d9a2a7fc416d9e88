"""Retrieval logs: what a RAG system retrieved for each question, read into one run table.

The native format is JSON lines, one object per question::

    {"question_id": "q001", "question": "...",
     "retrieved": [{"doc_id": "expense_policy", "page": 3, "chunk_id": "c17", "text": "...", "score": 0.82},
                   {"doc_id": "faq_ja", "pages": [2, 3], "text": "..."}],
     "answer": "...", "latency_ms": 143.0}

``question_id`` (or, if the log has none, the question text -- matched to the golden set's) and
``retrieved`` (ranked, best first) are required; per item ``doc_id`` is required (or
``chunk_id`` when the golden set's gold is chunk IDs), ``page`` / ``pages``, ``chunk_id``, ``text``
and ``score`` are optional; ``answer``, ``latency_ms`` and ``error`` (a question the retriever
failed on, written by ``rag-metrics run``) too. Pages are numbered from 1 unless
``page_base=0`` says the log counts from 0.

Other shapes are read through a field mapping: dotted paths into each record and each retrieved
item, e.g. ``{"doc_id": "metadata.source", "page": "metadata.page"}`` with ``page_base=0``
(command line: ``--field doc_id=metadata.source --field page=metadata.page --page-base 0``).
A mapping of ``page`` or ``pages`` states its base: ``--page-base 0|1`` beside it, or in the mapping
itself, ``--field page@0=metadata.page`` (0-based) / ``--field page@1=...`` (1-based). It never
inherits the preset's base: a page number means nothing until one knows where counting starts, and
the ±1 page window of the judges would hide the mistake. (``page_label`` maps a printed label, kept
for display and never read as a page.)

Items that carry text but neither a document nor a chunk ID (ragas rows keep contexts as text only)
are read as they are, ``doc_id`` None: the experiment evaluation places them on the pages by their
text (:func:`rag_metrics.judging.locate.place_text_only`; it needs the documents).
Presets (:data:`PRESETS`) hold the mappings of common dumps:

===========  ==================================================================================
native       the format above
langchain    ``Document`` dumps: ``page_content``, ``metadata.source``, ``metadata.page`` (0-based,
             as PyPDFLoader writes it), items under ``source_documents``/``documents``/``context``
llamaindex   ``NodeWithScore`` dumps: ``node.text``, ``node.metadata.file_name``, ``node.id_``, ``score``, under
             ``source_nodes``; ``node.metadata.page_label`` is read as a *printed label* (``page_label``), never
             as a page: LlamaIndex's PDF reader logs the label printed on the page (``i``, ``ii``, ``1``...)
             and no physical page index, so the pages are located from the text (needs the documents)
ragas        a ragas dataset row: ``user_input``, ``retrieved_contexts`` with ``retrieved_context_ids``
             (parallel lists), ``response``
bedrock      a knowledge-base Retrieve response: ``retrievalResults[]`` with ``content.text``,
             ``location.s3Location.uri``, ``metadata.x-amz-bedrock-kb-document-page-number``,
             ``metadata.x-amz-bedrock-kb-chunk-id``, ``score``
===========  ==================================================================================

Document IDs in logs are often paths or URIs (``s3://bucket/docs/manual.pdf``). :func:`resolve_documents`
matches them to the corpus or golden set: exactly, else by the file name without extension
(``manual``) when that is unique; what matched how is reported.

TREC run files are read by :mod:`rag_metrics.io.trec` and evaluated by :func:`rag_metrics.evaluate_trec`.
"""

from __future__ import annotations

import json
import numbers
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

import numpy as np
import pandas as pd

from ..errors import InputError
from ..fingerprint import digest
from .jsonl import iter_jsonl

__all__ = ["RunLog", "load_log", "PRESETS", "ITEM_FIELDS", "RECORD_FIELDS", "parse_field_mapping", "doc_key",
           "resolve_documents", "log_records"]

ITEM_FIELDS = ("doc_id", "page", "pages", "page_label", "chunk_id", "text", "score")
RECORD_FIELDS = ("question_id", "question", "items", "answer", "latency_ms", "error")

# Each field: a dotted path, or a tuple of alternatives (the first present wins).
PRESETS: dict[str, dict] = {
    "native": {"record": {"question_id": "question_id", "question": "question", "items": "retrieved",
                          "answer": "answer", "latency_ms": "latency_ms", "error": "error"},
               "item": {f: f for f in ITEM_FIELDS}, "page_base": 1},
    "langchain": {"record": {"question_id": ("question_id", "id"), "question": ("question", "query", "input"),
                             "items": ("source_documents", "documents", "context"),
                             "answer": ("answer", "result", "output"), "latency_ms": "latency_ms", "error": "error"},
                  "item": {"doc_id": "metadata.source", "page": "metadata.page", "chunk_id": ("id", "metadata.id"),
                           "text": "page_content", "score": ("metadata.score", "score")},
                  "page_base": 0},
    "llamaindex": {"record": {"question_id": ("question_id", "id"), "question": ("question", "query"),
                              "items": ("source_nodes", "nodes"), "answer": "response", "latency_ms": "latency_ms",
                              "error": "error"},
                   "item": {"doc_id": ("node.metadata.file_name", "node.metadata.file_path", "node.ref_doc_id"),
                            "page_label": "node.metadata.page_label", "chunk_id": "node.id_", "text": "node.text",
                            "score": "score"},
                   "page_base": 1},
    "ragas": {"record": {"question_id": ("question_id", "id"), "question": "user_input",
                         "items": {"text": "retrieved_contexts", "chunk_id": "retrieved_context_ids"},
                         "answer": "response", "latency_ms": "latency_ms", "error": "error"},
              "item": {"text": "text", "chunk_id": "chunk_id"}, "page_base": 1},
    "bedrock": {"record": {"question_id": ("question_id", "id"), "question": ("question", "retrievalQuery.text"),
                           "items": ("retrievalResults", "response.retrievalResults"), "answer": "answer",
                           "latency_ms": "latency_ms", "error": "error"},
                "item": {"doc_id": ("location.s3Location.uri", "metadata.x-amz-bedrock-kb-source-uri",
                                    "location.webLocation.url", "location.customDocumentLocation.id"),
                         "page": "metadata.x-amz-bedrock-kb-document-page-number",
                         "chunk_id": "metadata.x-amz-bedrock-kb-chunk-id", "text": "content.text", "score": "score"},
                "page_base": 1},
}


@dataclass(frozen=True)
class RunLog:
    """A retrieval log read into tables.

    ``run``: one row per retrieved item -- question_id, rank (1 = best), doc_id (as logged; None for a
    text-only item), chunk_id (as logged, or ``<question_id>#<rank>``), pages (tuple of 1-based
    physical pages, empty if not logged), page_label (a printed label as logged, never a page; None),
    text (None if not logged), score (NaN if not logged), line.
    ``questions``: one row per logged question -- question_id, question, answer, latency_ms, error, line.
    ``settings``: the run's settings (from ``<log>.settings.json`` when ``rag-metrics run`` wrote it)
    plus how the log was read (preset, mapping, page base).
    """

    run: pd.DataFrame
    questions: pd.DataFrame
    source: str | None = None
    settings: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return Path(self.source).stem if self.source else "log"

    @property
    def has_text(self) -> bool:
        return bool(self.run["text"].notna().any()) if len(self.run) else False

    @property
    def has_pages(self) -> bool:
        return bool(self.run["pages"].map(len).gt(0).any()) if len(self.run) else False

    @property
    def failed(self) -> list:
        """Questions the retriever failed on (an ``error`` in the log)."""
        return self.questions.loc[self.questions["error"].notna(), "question_id"].tolist()

    def latency(self) -> dict | None:
        """Median and 95th percentile of ``latency_ms`` (None when the log has none)."""
        lat = self.questions["latency_ms"].dropna().to_numpy(dtype=float)
        if not lat.size:
            return None
        return {"n": int(lat.size), "median_ms": float(np.median(lat)), "p95_ms": float(np.percentile(lat, 95))}

    def fingerprint(self) -> str:
        """Digest of what was retrieved (the same log read twice has the same fingerprint)."""
        return digest(self.run[["question_id", "rank", "doc_id", "chunk_id", "pages", "text"]].astype(str))

    def _repr_html_(self) -> str:
        from ..html import summary

        return summary(f"Retrieval log {self.name}: {len(self.questions)} questions, {len(self.run)} retrieved items"
                       f"{', with text' if self.has_text else ''}{', with pages' if self.has_pages else ''}"
                       f"{f', {len(self.failed)} failed' if self.failed else ''}.",
                       (None, self.run.drop(columns=["line"]).head(10)))


_PAGE_AT = re.compile(r"(pages?)@([01])")


def parse_field_mapping(items) -> dict:
    """``["doc_id=metadata.source", "page@0=metadata.page"]`` -> ``{"doc_id": "metadata.source", "page":
    "metadata.page", "page_base": 0}`` (``page@B`` / ``pages@B`` state the base of the mapped page numbers)."""
    out = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        at = _PAGE_AT.fullmatch(key)
        if at:
            key = at.group(1)
            if out.get("page_base", int(at.group(2))) != int(at.group(2)):
                raise InputError(f"field mapping {item!r}: page and pages mappings state different bases.",
                                 field=key)
            out["page_base"] = int(at.group(2))
        if not sep or not value or key not in (*ITEM_FIELDS, *RECORD_FIELDS):
            raise InputError(f"field mapping {item!r}: expected NAME=PATH with NAME one of "
                             f"{', '.join((*RECORD_FIELDS, *ITEM_FIELDS))} (page@0 / page@1 state the base of page "
                             "numbers) and PATH a dotted path such as metadata.source.", field=key or None)
        out[key] = value
    return out


_MISSING = object()


def _get(obj, path):
    """The value at a dotted path (or the first present of alternatives); ``_MISSING`` if absent."""
    if isinstance(path, tuple):
        for p in path:
            value = _get(obj, p)
            if value is not _MISSING:
                return value
        return _MISSING
    if path in (None, ""):
        return _MISSING
    if isinstance(obj, dict) and path in obj:  # a key that itself holds dots
        return obj[path]
    for part in path.split("."):
        if isinstance(obj, dict) and part in obj:
            obj = obj[part]
        elif isinstance(obj, list) and part.isdigit() and int(part) < len(obj):
            obj = obj[int(part)]
        else:
            return _MISSING
    return obj


def _show(path) -> str:
    return " or ".join(path) if isinstance(path, tuple) else str(path)


def _page_number(value, base, path, line, where, field_path):
    if isinstance(value, str) and re.fullmatch(r"\s*[0-9]+\s*", value):
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < base:
        raise InputError(f"{where}: page {value!r} (field {_show(field_path)}) is not an integer >= {base} "
                         f"(pages counted from {base}; see --page-base).", path=path, line=line, field="page")
    return int(value) - base + 1


def _text_or_none(value, what, path, line, field_name):
    if value is _MISSING or value is None:
        return None
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return str(value)
    raise InputError(f"{what}: {field_name} {value!r} is not a string.", path=path, line=line, field=field_name)


def log_records(records, *, preset: str = "native", fields: dict | None = None, page_base: int | None = None,
                path=None):
    """Rows of the run table and of the question table from ``(line, record)`` pairs (see :func:`load_log`)."""
    if preset not in PRESETS:
        raise InputError(f"unknown log preset {preset!r}; expected one of {', '.join(PRESETS)}.", field="preset")
    spec = PRESETS[preset]
    rec_paths = dict(spec["record"])
    item_paths = dict(spec["item"])
    fields = dict(fields or {})
    stated = fields.pop("page_base", None)
    if stated is not None and page_base is not None and stated != page_base:
        raise InputError(f"the page mapping states base {stated} and --page-base says {page_base}: keep one.",
                         field="page_base")
    page_base = page_base if page_base is not None else stated
    for key, value in fields.items():
        (rec_paths if key in RECORD_FIELDS else item_paths)[key] = value
    mapped = sorted(k for k in ("page", "pages") if k in fields)
    if mapped and page_base is None:
        raise InputError(f"the mapping of {mapped[0]} ({fields[mapped[0]]}) must state where its page numbers start: "
                         f"add --page-base 0 or --page-base 1, or write --field {mapped[0]}@0={fields[mapped[0]]} "
                         f"(0-based, as PyPDFLoader) or {mapped[0]}@1=... (1-based, as printed).", field="page_base")
    base = spec["page_base"] if page_base is None else page_base
    if base not in (0, 1):
        raise InputError(f"page base {base!r}: expected 0 or 1.", field="page_base")
    items, questions, seen = [], [], {}
    for line, rec in records:
        qid = _get(rec, rec_paths["question_id"])
        question = _get(rec, rec_paths["question"])
        qid = _text_or_none(qid, f"record at line {line}", path, line, "question_id")
        question = _text_or_none(question, f"record at line {line}", path, line, "question")
        if qid is None and question is None:
            raise InputError(f"the record has neither a question ID ({_show(rec_paths['question_id'])}) nor a question "
                             f"({_show(rec_paths['question'])}); map one with --field question_id=PATH.", path=path,
                             line=line, field="question_id")
        key = qid if qid is not None else f"text:{question}"
        if key in seen:
            raise InputError(f"question {qid or question!r} is logged twice (also at line {seen[key]}); keep one "
                             "record per question.", path=path, line=line, field="question_id")
        seen[key] = line
        who = f"question {qid or question!r}"
        error = _get(rec, rec_paths["error"])
        raw_items = _items(rec, rec_paths["items"], error, who, path, line)
        latency = _get(rec, rec_paths["latency_ms"])
        if latency is not _MISSING and latency is not None:
            if isinstance(latency, bool) or not isinstance(latency, numbers.Real) or not np.isfinite(latency) or latency < 0:
                raise InputError(f"{who}: latency_ms {latency!r} is not a finite number >= 0.", path=path, line=line,
                                 field="latency_ms")
        answer = _get(rec, rec_paths["answer"])
        questions.append({"question_id": qid, "question": question,
                          "answer": None if answer is _MISSING else answer,
                          "latency_ms": None if latency is _MISSING else latency,
                          "error": None if error is _MISSING or error in (None, "") else str(error), "line": line})
        for rank, item in enumerate(raw_items, start=1):
            where = f"{who}, retrieved item {rank}"
            if not isinstance(item, dict):
                raise InputError(f"{where}: expected an object, got {type(item).__name__}.", path=path, line=line)
            doc = _text_or_none(_get(item, item_paths.get("doc_id")), where, path, line, "doc_id")
            chunk = _text_or_none(_get(item, item_paths.get("chunk_id")), where, path, line, "chunk_id")
            text = _get(item, item_paths.get("text"))
            paged = any(_get(item, item_paths.get(k)) not in (_MISSING, None) for k in ("page", "pages"))
            if doc is None and chunk is None and (paged or not isinstance(text, str)):
                raise InputError(f"{where} has no document (field {_show(item_paths.get('doc_id'))}); map it with "
                                 "--field doc_id=PATH or choose a --preset.", path=path, line=line, field="doc_id")
            pages = []
            one = _get(item, item_paths.get("page"))
            many = _get(item, item_paths.get("pages"))
            if one is not _MISSING and one is not None:
                pages.append(_page_number(one, base, path, line, where, item_paths.get("page")))
            if many is not _MISSING and many is not None:
                if not isinstance(many, list):
                    raise InputError(f"{where}: pages {many!r} is not a list of page numbers.", path=path, line=line,
                                     field="pages")
                pages += [_page_number(p, base, path, line, where, item_paths.get("pages")) for p in many]
            label = _get(item, item_paths.get("page_label"))
            label = None if label is _MISSING or label is None else str(label)
            if text is not _MISSING and text is not None and not isinstance(text, str):
                raise InputError(f"{where}: text is not a string.", path=path, line=line, field="text")
            score = _get(item, item_paths.get("score"))
            if score is _MISSING or score is None:
                score = np.nan
            elif isinstance(score, bool) or not isinstance(score, numbers.Real) or not np.isfinite(score):
                raise InputError(f"{where}: score {score!r} is not a finite number.", path=path, line=line, field="score")
            items.append({"question_id": qid, "question": question, "rank": rank, "doc_id": doc, "chunk_id": chunk,
                          "pages": tuple(sorted(set(pages))), "page_label": label,
                          "text": None if text is _MISSING else text,
                          "score": float(score), "line": line})
    return items, questions, {"preset": preset, "fields": {**rec_paths, **item_paths}, "page_base": base}


def _items(rec, path_spec, error, who, path, line):
    if isinstance(path_spec, dict):  # parallel lists (ragas): {"text": "retrieved_contexts", "chunk_id": "..."}
        columns = {k: _get(rec, p) for k, p in path_spec.items()}
        present = {k: v for k, v in columns.items() if v is not _MISSING and v is not None}
        if not present:
            if error not in (_MISSING, None, ""):
                return []
            raise InputError(f"{who}: no retrieved items ({', '.join(map(str, path_spec.values()))}).", path=path,
                             line=line, field="items")
        lengths = {k: len(v) if isinstance(v, list) else -1 for k, v in present.items()}
        if min(lengths.values()) < 0 or len(set(lengths.values())) > 1:
            raise InputError(f"{who}: {', '.join(path_spec[k] for k in present)} must be lists of one length, got "
                             f"{lengths}.", path=path, line=line, field="items")
        n = next(iter(lengths.values()))
        return [{k: present[k][i] for k in present} for i in range(n)]
    value = _get(rec, path_spec)
    if value is _MISSING or value is None:
        if error not in (_MISSING, None, ""):
            return []
        raise InputError(f"{who}: no list of retrieved items at {_show(path_spec)}; map it with --field items=PATH "
                         "or choose a --preset.", path=path, line=line, field="items")
    if not isinstance(value, list):
        raise InputError(f"{who}: retrieved items ({_show(path_spec)}) must be a list, got {type(value).__name__}.",
                         path=path, line=line, field="items")
    return value


def load_log(path, *, preset: str = "native", fields: dict | None = None, page_base: int | None = None) -> RunLog:
    """Read a retrieval log (module docstring). Every problem names the file, the line and the field."""
    items, questions, how = log_records(iter_jsonl(path, "a retrieval log (JSON lines)"), preset=preset,
                                        fields=fields, page_base=page_base, path=path)
    run = pd.DataFrame(items, columns=["question_id", "question", "rank", "doc_id", "chunk_id", "pages", "page_label",
                                       "text", "score", "line"])
    for col in ("question_id", "question", "doc_id", "chunk_id", "page_label", "text"):  # absent stays None, not NaN
        run[col] = run[col].astype(object).where(run[col].notna(), None)
    settings_path = Path(str(path) + ".settings.json")
    settings = json.loads(settings_path.read_text(encoding="utf-8")) if settings_path.is_file() else {}
    table = pd.DataFrame(questions, columns=["question_id", "question", "answer", "latency_ms", "error", "line"])
    for col in ("question_id", "question", "answer", "error"):
        table[col] = table[col].astype(object).where(table[col].notna(), None)
    return RunLog(run, table,
                  str(path), {**settings, "read": how})


def doc_key(raw: str) -> str:
    """The file name without extension of a path or URI: ``s3://b/docs/Manual%201.pdf`` -> ``Manual 1``.

    >>> doc_key("s3://bucket/docs/expense_policy.pdf"), doc_key("C:\\\\docs\\\\faq_ja.md"), doc_key("terms_ja")
    ('expense_policy', 'faq_ja', 'terms_ja')
    """
    text = str(raw).strip()
    parts = urlsplit(text)
    if parts.scheme and len(parts.scheme) > 1:  # a URI (a one-letter scheme is a Windows drive)
        text = parts.path or parts.netloc
    text = unquote(text).replace("\\", "/").rstrip("/")
    return PurePosixPath(text.rsplit("/", 1)[-1]).stem if text else text


def resolve_documents(raw_ids, known_ids) -> tuple[dict, dict]:
    """Match logged document IDs to known ones: exactly, else by :func:`doc_key` when unique on both sides.

    Returns ``(mapping raw -> known or None, report)`` where the report counts ``exact``,
    ``by_file_name`` and ``unmatched`` IDs and lists examples of the last two.
    """
    known = list(dict.fromkeys(str(k) for k in known_ids))
    known_set = set(known)
    by_key: dict[str, list] = {}
    for k in known:
        by_key.setdefault(doc_key(k), []).append(k)
    mapping, report = {}, {"exact": 0, "by_file_name": 0, "unmatched": 0, "examples": {}}
    for raw in dict.fromkeys(r for r in raw_ids if r is not None):
        if raw in known_set:
            mapping[raw] = raw
            report["exact"] += 1
            continue
        candidates = by_key.get(doc_key(raw), [])
        if len(candidates) == 1:
            mapping[raw] = candidates[0]
            report["by_file_name"] += 1
            report["examples"].setdefault("by_file_name", []).append(f"{raw} -> {candidates[0]}")
        else:
            mapping[raw] = None
            report["unmatched"] += 1
            report["examples"].setdefault("unmatched", []).append(raw)
    for kind in report["examples"]:
        report["examples"][kind] = report["examples"][kind][:5]
    return mapping, report
