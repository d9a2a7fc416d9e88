"""Retrieval logs: what a RAG system retrieved for each question, read into one run table.

The native format is JSON lines, one object per question::

    {"question_id": "q001", "question": "...",
     "retrieved": [{"doc_id": "expense_policy", "page": 3, "chunk_id": "c17", "text": "...", "score": 0.82},
                   {"doc_id": "faq_ja", "pages": [2, 3], "text": "..."}],
     "answer": "...", "latency_ms": 143.0}

``question_id`` (or, if the log has none, the question text -- matched to the golden set's) and
``retrieved`` (ranked, best first) are required; per item ``doc_id`` is required (or
``chunk_id`` when the golden set's gold is chunk IDs, or ``text`` alone: a *text-only* item, placed by
locating its text on the pages), ``page`` / ``pages``, ``chunk_id``, ``text``
and ``score`` are optional; ``answer``, ``latency_ms`` and ``error`` (a question the retriever
failed on, written by ``rag-metrics run``) too. Pages are numbered from 1 unless
``page_base=0`` says the log counts from 0. IDs are non-empty text (``""`` or ``"   "`` is an error).

Other shapes are read through a field mapping: dotted paths into each record and each retrieved
item, e.g. ``{"doc_id": "metadata.source", "page": "metadata.page"}`` with ``page_base=0``
(command line: ``--field doc_id=metadata.source --field page=metadata.page --page-base 0``). A
mapped path that no record or item of the log holds is an error (a typo would otherwise fall back
silently on another field).
A mapping of ``page`` or ``pages`` states its base: ``--page-base 0|1`` beside it, or in the mapping
itself, ``--field page@0=metadata.page`` (0-based) / ``--field page@1=...`` (1-based). It never
inherits the preset's base: a page number means nothing until one knows where counting starts, and
the ±1 page window of the judges would hide the mistake. (``page_label`` maps a printed label, kept
for display and never read as a page.)

Items that carry text but neither a document nor a chunk ID (ragas rows keep contexts as text only)
are read as they are, ``doc_id`` None: the experiment evaluation places them on the pages by their
text (:func:`rag_metrics.judging.locate.place_text_only`; it needs the documents).

Presets (:data:`PRESETS`) hold the mappings of what frameworks write:

=============  ================================================================================
native         the format above
langchain      ``Document`` as ``doc.model_dump()`` or ``langchain_core.load.dumpd(doc)`` writes it
               (``{"lc": 1, "type": "constructor", "id": [class path], "kwargs": {...}}``: the ``id``
               there is the class, not a document): ``page_content``, ``metadata.source``,
               ``metadata.page`` (0-based, as PyPDFLoader writes it), items under
               ``source_documents``/``documents``/``context`` (``create_retrieval_chain``'s output)
langchain-aws  ``Document`` of langchain-aws's ``AmazonKnowledgeBasesRetriever`` (either dump):
               ``metadata.location.s3Location.uri`` (or the web / Confluence / SharePoint / Salesforce
               / custom location), ``metadata.source_metadata.x-amz-bedrock-kb-document-page-number``,
               ``metadata.source_metadata.x-amz-bedrock-kb-chunk-id``, ``metadata.score``
llamaindex     ``NodeWithScore`` dumps (``model_dump()``/``to_dict()``): ``node.text``,
               ``node.metadata.file_name``, ``node.id_``, ``score``, under ``source_nodes``;
               ``node.metadata.page_label`` is read as a *printed label* (``page_label``), never as a
               page: LlamaIndex's PDF reader logs the label printed on the page (``i``, ``ii``,
               ``1``...) and no physical page index, so the pages are located from the text (needs
               the documents)
ragas          a ragas dataset row (``EvaluationDataset.to_jsonl``, ``to_pandas().to_json(orient=
               "records", lines=True)``): ``user_input``, ``retrieved_contexts`` (text only) with
               ``retrieved_context_ids`` as chunk IDs when present (parallel lists), ``response``
bedrock        a knowledge-base Retrieve response: ``retrievalResults[]`` with ``content.text``,
               ``location.s3Location.uri``, ``metadata.x-amz-bedrock-kb-document-page-number``,
               ``metadata.x-amz-bedrock-kb-chunk-id``, ``score``
=============  ================================================================================

In a preset of parallel lists (``ragas``) an item field maps to a list of the record:
``--field doc_id=retrieved_context_ids`` reads those IDs as document IDs instead of chunk IDs.

**Per-run shapes.** Where several logs are read at once (``rag-metrics report --run``), each may carry
its own shape: ``PRESET:LOG`` (``langchain:runs/lc.jsonl``) or ``PRESET(KEY=VALUE,...):LOG`` with
field mappings and ``page_base`` (``native(doc_id=meta.src,page=meta.p,page_base=0):old.jsonl``;
``(doc_id=meta.src):old.jsonl`` keeps the native preset). A run that carries its own shape takes
nothing from the command's ``--preset``/``--field``/``--page-base``, which apply to the runs that
carry none. A file whose name itself looks like a spec is read as that file when it exists
(:func:`parse_run_spec`).

**Matching to documents and questions, when the log is read.** Given the golden set and/or the
corpus, :func:`load_log` (or :func:`match_log` on a log read without them) matches each logged
document ID to a known one (the corpus's documents, else the golden set's gold documents): exactly,
else by the longest unique path suffix after Unicode NFC normalization (the trailing path components
both share, the file name compared with or without its extension; URIs decoded) --
``/srv/docs/hr/policy.pdf`` is ``hr/policy`` when the corpus has ``hr/policy`` and ``it/policy``, and
``s3://bucket/manual.pdf`` is ``guides/manual`` when no other document is named ``manual``; at equal
length a known ID matched whole wins (``policy.pdf`` is ``policy`` rather than ``hr/policy``); a name
that fits several equally well (``/srv/docs/policy.pdf`` against ``hr/policy`` and ``it/policy``) is an
error listing them; with a corpus, a log none of whose items
names a document of it is an error. Questions are matched by ID, else by their whitespace-normalized
text; the same question logged twice -- by ID and by text too -- is an error naming both lines. A
record's key is :func:`log_key`. How many items stayed unmatched is in :attr:`RunLog.documents`.

**The context an answer was made from** (an answers file's ``retrieved`` / ``retrieved_ids``) is read the same way:
:func:`read_context` reads each item as a log's native item (``"page": 2`` is page 2, ``3.7`` is refused) and
:func:`read_document_ids` each ID as a log's ``doc_id``.

TREC run files are read by :mod:`rag_metrics.io.trec` and evaluated by :func:`rag_metrics.evaluate_trec`.
"""

from __future__ import annotations

import dataclasses
import json
import numbers
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, check_choice
from rag_metrics.core.fingerprint import digest
from rag_metrics.core.options import parse_key_values
from rag_metrics.io.jsonl import iter_jsonl

__all__ = ["RunLog", "load_log", "PRESETS", "ITEM_FIELDS", "RECORD_FIELDS", "parse_field_mapping", "doc_key",
           "resolve_documents", "log_records", "log_key", "match_log", "parse_run_spec", "RunSpec", "native_items",
           "detect_item_preset", "read_context", "read_document_ids"]

ITEM_FIELDS = ("doc_id", "page", "pages", "page_label", "chunk_id", "text", "score")
RECORD_FIELDS = ("question_id", "question", "items", "answer", "latency_ms", "error")

_LC_RECORD = {"question_id": ("question_id", "id"), "question": ("question", "query", "input"),
              "items": ("source_documents", "documents", "context"), "answer": ("answer", "result", "output"),
              "latency_ms": "latency_ms", "error": "error"}
_KB_LOCATIONS = ("s3Location.uri", "webLocation.url", "confluenceLocation.url", "sharePointLocation.url",
                 "salesforceLocation.url", "kendraDocumentLocation.uri", "sqlLocation.query",
                 "customDocumentLocation.id")


def _unwrap_langchain(item):
    """``dumpd(doc)`` -> the Document's fields (``kwargs``); a ``model_dump()`` is returned as it is."""
    if isinstance(item, dict) and item.get("lc") == 1 and item.get("type") == "constructor" \
            and isinstance(item.get("kwargs"), dict):
        return item["kwargs"]
    return item


# Each field: a dotted path, or a tuple of alternatives (the first present wins). "unwrap": a function applied to
# each item before the paths are read.
PRESETS: dict[str, dict] = {
    "native": {"record": {"question_id": "question_id", "question": "question", "items": "retrieved",
                          "answer": "answer", "latency_ms": "latency_ms", "error": "error"},
               "item": {f: f for f in ITEM_FIELDS}, "page_base": 1},
    "langchain": {"record": _LC_RECORD,
                  "item": {"doc_id": "metadata.source", "page": "metadata.page", "chunk_id": ("id", "metadata.id"),
                           "text": "page_content", "score": ("metadata.score", "score")},
                  "page_base": 0, "unwrap": _unwrap_langchain},
    "langchain-aws": {"record": _LC_RECORD,
                      "item": {"doc_id": tuple(f"metadata.location.{p}" for p in _KB_LOCATIONS)
                               + ("metadata.source_metadata.x-amz-bedrock-kb-source-uri",),
                               "page": "metadata.source_metadata.x-amz-bedrock-kb-document-page-number",
                               "chunk_id": ("metadata.source_metadata.x-amz-bedrock-kb-chunk-id", "id"),
                               "text": "page_content", "score": ("metadata.score", "score")},
                      "page_base": 1, "unwrap": _unwrap_langchain},
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
                "item": {"doc_id": tuple(f"location.{p}" for p in _KB_LOCATIONS)
                         + ("metadata.x-amz-bedrock-kb-source-uri",),
                         "page": "metadata.x-amz-bedrock-kb-document-page-number",
                         "chunk_id": "metadata.x-amz-bedrock-kb-chunk-id", "text": "content.text", "score": "score"},
                "page_base": 1},
}

RUN_COLUMNS = ["question_id", "question", "rank", "doc_id", "chunk_id", "pages", "page_label", "text", "score",
               "line", "logged_doc_id"]


def log_key(question_id, question) -> str:
    """The key of one logged question: its ID, or ``text:<question>`` when the log has no ID."""
    return question_id if question_id is not None else f"text:{question}"


@dataclass(frozen=True, repr=False)
class RunLog:
    """A retrieval log read into tables.

    ``run``: one row per retrieved item -- question_id, question, rank (1 = best), doc_id (the matched
    document ID once matched, else as logged; None for a text-only or chunk-only item), chunk_id (as
    logged), pages (tuple of 1-based physical pages, empty if not logged), page_label (a printed label as
    logged, never a page; None), text (None if not logged), score (NaN if not logged), line, logged_doc_id
    (as logged).
    ``questions``: one row per logged question -- question_id, question, answer, latency_ms, error, line.
    ``settings``: the run's settings (from ``<log>.settings.json`` when ``rag-metrics run`` wrote it)
    plus how the log was read (preset, mapping, page base).
    Once matched (:func:`match_log`): ``documents`` (how document IDs matched: ``exact``,
    ``by_path_suffix``, ``unmatched`` distinct IDs, ``unmatched_items``, ``items``, ``examples``),
    ``question_map`` (:func:`log_key` -> golden question ID), ``unknown_questions`` (logged, not in the
    golden set) and ``matched_against`` (what it was matched to).
    """

    run: pd.DataFrame
    questions: pd.DataFrame
    source: str | None = None
    settings: dict = field(default_factory=dict)
    documents: dict | None = None
    question_map: dict | None = None
    unknown_questions: list | None = None
    matched_against: tuple | None = None

    def __post_init__(self):  # a run table built by hand: its document IDs are the logged ones
        if "logged_doc_id" not in self.run.columns and "doc_id" in self.run.columns:
            object.__setattr__(self, "run", self.run.assign(logged_doc_id=self.run["doc_id"]))

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
    def text_only(self) -> pd.DataFrame:
        """Items with text and no document (a chunk ID at most): placed by locating their text on the pages."""
        run = self.run
        return run[run["doc_id"].isna() & run["text"].notna()]

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
        """Digest of what was retrieved, as logged (the same log read twice, matched or not, has the same one).
        Computed once per run table (kept beside it, pickled with the log: the report's reading and its notebook
        share it)."""
        memo = self.__dict__.get("_fingerprint")
        if memo is not None and memo[0] is self.run:
            return memo[1]
        cols = self.run[["question_id", "rank", "logged_doc_id", "chunk_id", "pages", "text"]]
        value = digest(cols.rename(columns={"logged_doc_id": "doc_id"}).astype(str))
        object.__setattr__(self, "_fingerprint", (self.run, value))
        return value

    def __repr__(self) -> str:
        return (f"<RunLog {self.name}: {len(self.questions)} questions, {len(self.run)} retrieved items"
                f"{', with text' if self.has_text else ''}{', with pages' if self.has_pages else ''}>")[:480]

    def _repr_html_(self) -> str:
        from rag_metrics.core.html import summary, text_cells

        unmatched = (self.documents or {}).get("unmatched_items")
        return summary(f"Retrieval log {self.name}: {len(self.questions)} questions, {len(self.run)} retrieved items"
                       f"{', with text' if self.has_text else ''}{', with pages' if self.has_pages else ''}"
                       f"{f', {len(self.failed)} failed' if self.failed else ''}"
                       f"{f', {unmatched} items matching no document' if unmatched else ''}.",
                       (None, text_cells(self.run.drop(columns=["line"]).head(10), ["text"])))



_PAGE_AT = re.compile(r"(pages?)@([01])")


def parse_field_mapping(items) -> dict:
    """``["doc_id=metadata.source", "page@0=metadata.page"]`` -> ``{"doc_id": "metadata.source", "page":
    "metadata.page", "page_base": 0}`` (``page@B`` / ``pages@B`` state the base of the mapped page numbers)."""
    if isinstance(items, dict):
        items = [f"{k}={v}" for k, v in items.items() if k != "page_base"] + (
            [] if items.get("page_base") is None else [f"page_base={items['page_base']}"])
    plain, base = [], None
    for item in items or []:
        key, sep, value = item.partition("=") if isinstance(item, str) else ("", "", "")
        at = _PAGE_AT.fullmatch(key.strip())
        if key.strip() == "page_base" and sep:
            if value.strip() not in ("0", "1"):
                raise InputError(f"field mapping {item!r}: page_base {value.strip()!r}; expected 0 or 1.",
                                 field="page_base")
            stated = int(value.strip())
        elif at and sep:
            stated = int(at.group(2))
            plain.append(f"{at.group(1)}={value}")
        else:
            plain.append(item)
            continue
        if base is not None and base != stated:
            raise InputError(f"field mapping {item!r}: page and pages mappings state different bases.", field="page_base")
        base = stated
    out = parse_key_values(plain, what="field mapping", keys=(*RECORD_FIELDS, *ITEM_FIELDS), typed=False)
    if base is not None:
        out["page_base"] = base
    return out


# ---- per-run shapes -----------------------------------------------------------------------------

@dataclass(frozen=True)
class RunSpec:
    """A log and how to read it: ``path``, and -- when the run carries its own shape -- ``preset``, ``fields``,
    ``page_base`` (``own`` says whether it does)."""

    path: str
    preset: str | None = None
    fields: dict = field(default_factory=dict)
    page_base: int | None = None
    own: bool = False

    def __str__(self) -> str:
        if not self.own:
            return self.path
        opts = [f"{k}={v}" for k, v in self.fields.items()] + ([] if self.page_base is None
                                                             else [f"page_base={self.page_base}"])
        return f"{self.preset or ''}{'(' + ','.join(opts) + ')' if opts else ''}:{self.path}"

    def with_path(self, path) -> RunSpec:
        return dataclasses.replace(self, path=str(path))


_SPEC = re.compile(r"(?P<preset>[A-Za-z][A-Za-z0-9_-]+)?(?:\((?P<opts>[^()]*)\))?:(?P<path>.+)", re.S)


_SPEC_START = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\(")
SPEC_GRAMMAR = "a log with its own shape is written PRESET:LOG or PRESET(FIELD=PATH,...,page_base=N):LOG"


def parse_run_spec(text) -> RunSpec:
    """``LOG``, ``PRESET:LOG`` or ``[PRESET](FIELD=PATH,...,page_base=N):LOG`` (module docstring) -> :class:`RunSpec`.

    An existing file is always that file; an unknown preset is an error listing the presets.
    """
    if isinstance(text, RunSpec):
        return text
    text = str(text)
    m = _SPEC.fullmatch(text)
    if Path(text).exists():
        return RunSpec(text)
    if m is None and _SPEC_START.match(text):
        missing = "')'" if ")" not in text else "':' after ')'"
        raise InputError(f"run {text!r}: {missing} is missing; {SPEC_GRAMMAR}.", field="run")
    if m is None or (m.group("preset") is None and m.group("opts") is None):
        return RunSpec(text)
    preset, opts, path = m.group("preset"), m.group("opts"), m.group("path")
    for option in (o.strip() for o in (opts or "").split(",") if o.strip()):
        key = option.split("=", 1)[0].strip()
        if "=" not in option or key not in (*RECORD_FIELDS, *ITEM_FIELDS, "page_base"):
            raise InputError(f"run {text!r}: option {option!r}; expected FIELD=PATH with FIELD one of "
                             f"{', '.join(dict.fromkeys((*RECORD_FIELDS, *ITEM_FIELDS)))} or page_base=0|1 "
                             f"({SPEC_GRAMMAR}).", field="run")
    if preset is not None and preset not in PRESETS:
        if not Path(path).exists():
            return RunSpec(text)  # not a spec: a path with a colon (the file-not-found error names it)
        check_choice(preset, PRESETS, "log preset", what=f"run {text!r}: unknown", field="preset")
    options = parse_key_values([o for o in (opts or "").split(",") if o.strip()], what=f"run {text!r}: option",
                               keys=(*RECORD_FIELDS, *ITEM_FIELDS, "page_base"), typed=False)
    page_base = options.pop("page_base", None)
    if page_base is not None:
        if page_base not in ("0", "1"):
            raise InputError(f"run {text!r}: page_base {page_base!r}; expected 0 or 1.", field="page_base")
        page_base = int(page_base)
    return RunSpec(path, preset or "native", options, page_base, own=True)


# ---- reading ------------------------------------------------------------------------------------

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


def _page_number(value, base, path, line, where, field_path, note="see --page-base"):
    if isinstance(value, str) and re.fullmatch(r"\s*[0-9]+\s*", value):
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < base:
        raise InputError(f"{where}: page {value!r} (field {_show(field_path)}) is not an integer >= {base} "
                         f"(pages counted from {base}{'; ' + note if note else ''}).", path=path, line=line,
                         field="page")
    return int(value) - base + 1


def _text_or_none(value, what, path, line, field_name):
    if value is _MISSING or value is None:
        return None
    if isinstance(value, str) and not isinstance(value, bool):
        if not value.strip():
            raise InputError(f"{what}: {field_name} {value!r} is empty; expected text (or no field at all).",
                             path=path, line=line, field=field_name)
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(f"{what}: {field_name} {value!r} is not a string.", path=path, line=line, field=field_name)


_HINTS = {
    "log": {"doc_id": "map it with --field doc_id=PATH or choose a --preset",
            "items": "map it with --field items=PATH or choose a --preset",
            "question_id": "map one with --field question_id=PATH"},
    "run": {"doc_id": "return items with a doc_id (or LangChain Documents / LlamaIndex nodes)",
            "items": "return a list of items", "question_id": "log the question"},
    "answers": {"doc_id": "give each context item its doc_id (or the text the generator read)",
                "items": "give the context as a list", "question_id": "give the question_id", "page": ""},
}


def _suggest_preset(rec, preset) -> str:
    """`` (this looks like NAME's shape: --preset NAME)`` when another preset reads this record's items."""
    for name, spec in PRESETS.items():
        if name == preset or isinstance(spec["record"]["items"], dict):
            continue
        items = _get(rec, spec["record"]["items"])
        if isinstance(items, list) and items:
            item = spec.get("unwrap", lambda x: x)(items[0])
            if isinstance(item, dict) and _get(item, spec["item"]["doc_id"]) is not _MISSING:
                return f" (the items look like the {name} preset's: --preset {name}, or --run {name}:LOG)"
    return ""


def log_records(records, *, preset: str = "native", fields: dict | None = None, page_base: int | None = None,
                path=None, context: str = "log"):
    """Rows of the run table and of the question table from ``(line, record)`` pairs (see :func:`load_log`).

    ``context``: ``"log"`` (errors suggest ``--field``/``--preset``) or ``"run"`` (what a retriever returned:
    errors say what to return).

    The steps: :func:`_stated_page_base` and :func:`_field_paths` (where each field is read), then per record
    :func:`_question_row` and per item :func:`_item_row`, and :func:`_check_mapping_found` at the end.
    """
    check_choice(preset, PRESETS, "log preset", what="unknown", field="preset")
    hints = _HINTS[context]
    spec = PRESETS[preset]
    unwrap = spec.get("unwrap")
    fields, page_base = _stated_page_base(dict(fields or {}), page_base)
    rec_paths, item_paths, parallel = _field_paths(spec, fields)
    base = spec["page_base"] if page_base is None else page_base
    if base not in (0, 1):
        raise InputError(f"page base {base!r}: expected 0 or 1.", field="page_base")
    # the user's own paths must each be found at least once (but a log without failures has no error field)
    unused = {k: v for k, v in fields.items() if k != "error" and (k in RECORD_FIELDS or not parallel)}
    unused_lists = {k: v for k, v in fields.items() if parallel and k in ITEM_FIELDS}
    items, questions, seen = [], [], {}
    any_item = checked_text_only = False
    for line, rec in records:
        if unused:
            for k in [k for k in unused if k in RECORD_FIELDS and _get(rec, unused[k]) is not _MISSING]:
                del unused[k]
        if unused_lists:
            for k in [k for k, p in unused_lists.items() if _get(rec, p) is not _MISSING]:
                del unused_lists[k]
        row, raw_items, who = _question_row(rec, line, rec_paths, seen, path, hints, preset)
        questions.append(row)
        for rank, item in enumerate(raw_items, start=1):
            where = f"{who}, retrieved item {rank}"
            if unwrap is not None:
                item = unwrap(item)
            if not isinstance(item, dict):
                raise InputError(f"{where}: expected an object, got {type(item).__name__}.", path=path, line=line)
            any_item = True
            if unused:
                for k in [k for k in unused if k in ITEM_FIELDS and _get(item, unused[k]) is not _MISSING]:
                    del unused[k]
            suggest = context == "log" and not checked_text_only
            items.append(_item_row(item, rec, row, rank, item_paths, base, where, path, line, hints, preset, suggest))
            checked_text_only = checked_text_only or (items[-1]["doc_id"] is None and items[-1]["chunk_id"] is None)
    _check_mapping_found({**unused, **unused_lists}, unused_lists, any_item, path)
    how = {"preset": preset, "fields": {**rec_paths, **item_paths}, "page_base": base}
    if fields:
        how["mapped"] = dict(fields)
    return items, questions, json.loads(json.dumps(how, default=list))


def _stated_page_base(fields: dict, page_base: int | None) -> tuple[dict, int | None]:
    """``(fields, page_base)``: the field mapping without its ``page_base`` entry, and the page base stated by it or
    by ``page_base`` (None: neither). Refuses two different bases, and a mapped page or pages with no base stated
    (the preset's base would silently be taken for the user's field)."""
    stated = fields.pop("page_base", None)
    if stated is not None and page_base is not None and stated != page_base:
        raise InputError(f"the page mapping states base {stated} and --page-base says {page_base}: keep one.",
                         field="page_base")
    page_base = page_base if page_base is not None else stated
    mapped = sorted(k for k in ("page", "pages") if k in fields)
    if mapped and page_base is None:
        raise InputError(f"the mapping of {mapped[0]} ({fields[mapped[0]]}) must state where its page numbers start: "
                         f"add --page-base 0 or --page-base 1, or write --field {mapped[0]}@0={fields[mapped[0]]} "
                         f"(0-based, as PyPDFLoader) or {mapped[0]}@1=... (1-based, as printed).", field="page_base")
    return fields, page_base


def _field_paths(spec: dict, fields: dict) -> tuple[dict, dict, bool]:
    """``(record paths, item paths, parallel)``: the preset's paths with the user's ``fields`` put in. ``parallel``:
    the preset's items are lists of the record read in parallel (ragas); a mapped item field then names such a
    list (replacing a list the preset read into another field) and the item reads it under its own name."""
    rec_paths = dict(spec["record"])
    item_paths = dict(spec["item"])
    parallel = isinstance(rec_paths["items"], dict)
    if parallel:
        lists = dict(rec_paths["items"])
        for key in [k for k in fields if k in ITEM_FIELDS]:
            target = fields[key]
            lists = {k: v for k, v in lists.items() if v != target}
            lists[key] = target
            item_paths[key] = key
        rec_paths["items"] = lists
    for key, value in fields.items():
        if key in RECORD_FIELDS:
            rec_paths[key] = value
        elif not parallel:
            item_paths[key] = value
    return rec_paths, item_paths, parallel


def _question_row(rec, line, rec_paths: dict, seen: dict, path, hints: dict, preset: str):
    """``(row, items, who)`` of one record: its question table row, its retrieved items as logged (:func:`_items`)
    and how errors name it. Refuses a record with neither question ID nor question, a question logged twice
    (``seen``: log key -> line, updated) and a latency that is not a finite number >= 0."""
    qid = _text_or_none(_get(rec, rec_paths["question_id"]), f"record at line {line}", path, line, "question_id")
    question = _text_or_none(_get(rec, rec_paths["question"]), f"record at line {line}", path, line, "question")
    if qid is None and question is None:
        raise InputError(f"the record has neither a question ID ({_show(rec_paths['question_id'])}) nor a question "
                         f"({_show(rec_paths['question'])}); {hints['question_id']}.", path=path,
                         line=line, field="question_id")
    key = log_key(qid, question)
    if key in seen:
        raise InputError(f"question {qid or question!r} is logged twice (also at line {seen[key]}); keep one "
                         "record per question.", path=path, line=line, field="question_id")
    seen[key] = line
    who = f"question {qid or question!r}"
    error = _get(rec, rec_paths["error"])
    raw_items = _items(rec, rec_paths["items"], error, who, path, line, hints, preset)
    latency = _get(rec, rec_paths["latency_ms"])
    if latency is not _MISSING and latency is not None:
        if isinstance(latency, bool) or not isinstance(latency, numbers.Real) or not np.isfinite(latency) \
                or latency < 0:
            raise InputError(f"{who}: latency_ms {latency!r} is not a finite number >= 0.", path=path, line=line,
                             field="latency_ms")
    answer = _get(rec, rec_paths["answer"])
    row = {"question_id": qid, "question": question, "answer": None if answer is _MISSING else answer,
           "latency_ms": None if latency is _MISSING else latency,
           "error": None if error is _MISSING or error in (None, "") else str(error), "line": line}
    return row, raw_items, who


def _item_row(item: dict, rec, question_row: dict, rank: int, item_paths: dict, base: int, where: str, path, line,
              hints: dict, preset: str, suggest: bool) -> dict:
    """One retrieved item's run table row. Refuses a text that is not a string, and an item with no document or
    chunk unless it has text alone (a text-only item) -- and then too when ``suggest`` and another preset reads
    the record's items (:func:`_suggest_preset`, named in the error)."""
    doc = _text_or_none(_get(item, item_paths.get("doc_id")), where, path, line, "doc_id")
    chunk = _text_or_none(_get(item, item_paths.get("chunk_id")), where, path, line, "chunk_id")
    text = _get(item, item_paths.get("text"))
    pages = _item_pages(item, item_paths, base, where, path, line, hints.get("page", "see --page-base"))
    label = _get(item, item_paths.get("page_label"))
    label = None if label is _MISSING or label is None else str(label)
    if text is not _MISSING and text is not None and not isinstance(text, str):
        raise InputError(f"{where}: text is not a string.", path=path, line=line, field="text")
    if text is _MISSING:
        text = None
    if doc is None and chunk is None:
        other = _suggest_preset(rec, preset) if suggest else ""
        if text is None or pages or other:  # text alone is a text-only item, unless another preset reads it
            raise InputError(f"{where} has no document (field {_show(item_paths.get('doc_id'))})"
                             f"{'' if pages or text is not None else ' and no text'}; {hints['doc_id']}."
                             + other, path=path, line=line, field="doc_id")
    score = _get(item, item_paths.get("score"))
    if score is _MISSING or score is None:
        score = np.nan
    elif isinstance(score, bool) or not isinstance(score, numbers.Real) or not np.isfinite(score):
        raise InputError(f"{where}: score {score!r} is not a finite number.", path=path, line=line, field="score")
    return {"question_id": question_row["question_id"], "question": question_row["question"], "rank": rank,
            "doc_id": doc, "chunk_id": chunk, "pages": tuple(sorted(set(pages))), "page_label": label, "text": text,
            "score": float(score), "line": line, "logged_doc_id": doc}


def _item_pages(item: dict, item_paths: dict, base: int, where: str, path, line, note="see --page-base") -> list[int]:
    """The item's page numbers counted from 1 (:func:`_page_number`; ``note`` ends its error): its ``page`` then its
    ``pages`` (a list, else an error), as logged (duplicates kept)."""
    pages = []
    one = _get(item, item_paths.get("page"))
    many = _get(item, item_paths.get("pages"))
    if one is not _MISSING and one is not None:
        pages.append(_page_number(one, base, path, line, where, item_paths.get("page"), note))
    if many is not _MISSING and many is not None:
        if not isinstance(many, list):
            raise InputError(f"{where}: pages {many!r} is not a list of page numbers.", path=path, line=line,
                             field="pages")
        pages += [_page_number(p, base, path, line, where, item_paths.get("pages"), note) for p in many]
    return pages


def _check_mapping_found(missing: dict, unused_lists: dict, any_item: bool, path) -> None:
    """Refuse a user's field path that no record (or, when the log has items, no item) had: ``missing`` the paths
    never found, ``unused_lists`` those among them naming a record's parallel list. An item path is not refused
    in a log without items."""
    if missing and (any_item or any(k in RECORD_FIELDS for k in missing)):
        key, value = next(iter(missing.items()))
        what = "record" if key in RECORD_FIELDS or key in unused_lists else "retrieved item"
        raise InputError(f"field mapping {key}={value}: no {what} of the log has {value!r}; check the path "
                         "(dotted, e.g. metadata.source).", path=path, field=key)


def _items(rec, path_spec, error, who, path, line, hints, preset):
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
                             f"{ {path_spec[k]: n for k, n in lengths.items()} }.", path=path, line=line,
                             field="items")
        n = next(iter(lengths.values()))
        return [{k: present[k][i] for k in present} for i in range(n)]
    value = _get(rec, path_spec)
    if value is _MISSING or value is None:
        if error not in (_MISSING, None, ""):
            return []
        raise InputError(f"{who}: no list of retrieved items at {_show(path_spec)}; {hints['items']}."
                         + (_suggest_preset(rec, preset) if hints is _HINTS["log"] else ""),
                         path=path, line=line, field="items")
    if not isinstance(value, list):
        raise InputError(f"{who}: retrieved items ({_show(path_spec)}) must be a list, got {type(value).__name__}.",
                         path=path, line=line, field="items")
    return value


def _tables(items, questions):
    run = pd.DataFrame(items, columns=RUN_COLUMNS)
    for col in ("question_id", "question", "doc_id", "chunk_id", "page_label", "text", "logged_doc_id"):  # absent stays None
        run[col] = run[col].astype(object).where(run[col].notna(), None)
    table = pd.DataFrame(questions, columns=["question_id", "question", "answer", "latency_ms", "error", "line"])
    for col in ("question_id", "question", "answer", "error"):
        table[col] = table[col].astype(object).where(table[col].notna(), None)
    return run, table


def load_log(path, *, preset: str = "native", fields: dict | None = None, page_base: int | None = None,
             golden=None, corpus=None) -> RunLog:
    """Read a retrieval log (module docstring). Every problem names the file, the line and the field.

    ``path`` may be a per-run spec (``langchain:LOG``, :func:`parse_run_spec`), whose own shape then replaces
    ``preset``/``fields``/``page_base``. With ``golden`` (a :class:`~rag_metrics.io.golden.GoldenSet`) and/or
    ``corpus`` the log is matched as it is read (:func:`match_log`).
    """
    spec = parse_run_spec(path)
    if spec.own:
        preset, fields, page_base = spec.preset, spec.fields, spec.page_base
    elif fields is not None and not isinstance(fields, dict):
        fields = parse_field_mapping(fields)
    path = spec.path
    items, questions, how = log_records(iter_jsonl(path, "a retrieval log (JSON lines)"), preset=preset,
                                        fields=fields, page_base=page_base, path=path)
    run, table = _tables(items, questions)
    settings_path = Path(str(path) + ".settings.json")
    settings = {}
    if settings_path.is_file():
        try:
            settings = json.loads(settings_path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise InputError(f"not readable as the run's settings ({type(e).__name__}: {e}); expected the JSON "
                             "`rag-metrics run` writes beside its log. Move or delete it.", path=settings_path) from None
        if not isinstance(settings, dict):
            raise InputError("expected a JSON object (the run's settings).", path=settings_path)
    log = RunLog(run, table, str(path), {**settings, "read": how})
    if golden is not None or corpus is not None:
        log = match_log(log, golden, corpus)
    return log


# ---- matching to documents and questions ---------------------------------------------------------

def _parts(raw) -> tuple[str, ...]:
    """A path or URI as NFC path components: ``s3://b/docs/Manual%201.pdf`` -> ``("b", "docs", "Manual 1.pdf")``."""
    text = unicodedata.normalize("NFC", str(raw).strip())
    parts = urlsplit(text) if "://" in text or text.startswith("file:") else None
    if parts is not None and parts.scheme and len(parts.scheme) > 1:  # a URI (a one-letter scheme is a drive)
        text = f"{parts.netloc}/{parts.path}"
    text = unquote(text).replace("\\", "/")
    return tuple(p for p in text.split("/") if p and p != ".")


def _stem(name: str) -> str:
    return PurePosixPath(name).stem if "." in name.strip(".") else name


def doc_key(raw: str) -> str:
    """The file name without extension of a path or URI: ``s3://b/docs/Manual%201.pdf`` -> ``Manual 1``.

    >>> doc_key("s3://bucket/docs/expense_policy.pdf"), doc_key("C:\\\\docs\\\\faq_ja.md"), doc_key("terms_ja")
    ('expense_policy', 'faq_ja', 'terms_ja')
    """
    parts = _parts(raw)
    return _stem(parts[-1]) if parts else ""


def _suffix_length(raw: tuple, known: tuple) -> int:
    """How many trailing components two paths share (the file name compared with or without its extension)."""
    a, b = raw[-1], known[-1]
    if not (a == b or _stem(a) == b or a == _stem(b) or _stem(a) == _stem(b)):
        return 0
    n = 1
    while n < len(raw) and n < len(known) and raw[-1 - n] == known[-1 - n]:
        n += 1
    return n


class AmbiguousDocument(InputError):
    """A logged document ID (``raw``) fits several known documents equally well."""

    raw = None


def resolve_documents(raw_ids, known_ids) -> tuple[dict, dict]:
    """Match logged document IDs to known ones: exactly (after NFC), else by the longest unique path suffix.

    Returns ``(mapping raw -> known or None, report)``; the report counts distinct IDs matched ``exact``,
    ``by_path_suffix`` (also under its older name ``by_file_name``) and ``unmatched``, with examples. A raw
    ID whose longest matching suffix fits several known IDs raises :class:`AmbiguousDocument` listing them
    (``.question``-less; :func:`match_log` adds the file and line).
    """
    known = list(dict.fromkeys(str(k) for k in known_ids))
    exact = {}
    by_last: dict[str, list] = {}
    for k in known:
        exact.setdefault(unicodedata.normalize("NFC", k), k)
        parts = _parts(k)
        if parts:
            for key in {parts[-1], _stem(parts[-1])}:
                by_last.setdefault(key, []).append((k, parts))
    mapping, report = {}, {"exact": 0, "by_path_suffix": 0, "unmatched": 0, "examples": {}}
    for raw in dict.fromkeys(r for r in raw_ids if r is not None):
        hit = exact.get(unicodedata.normalize("NFC", str(raw)))
        if hit is not None:
            mapping[raw] = hit
            report["exact"] += 1
            continue
        parts = _parts(raw)
        best, chosen = (0, False), []
        if parts:
            seen = set()
            for k, kparts in by_last.get(parts[-1], []) + by_last.get(_stem(parts[-1]), []):
                if k in seen:
                    continue
                seen.add(k)
                n = _suffix_length(parts, kparts)
                score = (n, n == len(kparts))  # longer suffix first; then a known ID matched whole
                if n and score > best:
                    best, chosen = score, [k]
                elif n and score == best:
                    chosen.append(k)
        if len(chosen) > 1:
            shown = ", ".join(sorted(chosen)[:10]) + (" ..." if len(chosen) > 10 else "")
            error = AmbiguousDocument(f"document {raw!r} fits {len(chosen)} documents equally well: {shown}; log "
                                      "a longer path (e.g. with its folder) so that one fits.", field="doc_id")
            error.raw = raw
            raise error
        if chosen:
            mapping[raw] = chosen[0]
            report["by_path_suffix"] += 1
            report["examples"].setdefault("by_path_suffix", []).append(f"{raw} -> {chosen[0]}")
        else:
            mapping[raw] = None
            report["unmatched"] += 1
            report["examples"].setdefault("unmatched", []).append(raw)
    for kind in report["examples"]:
        report["examples"][kind] = report["examples"][kind][:5]
    report["by_file_name"] = report["by_path_suffix"]
    return mapping, report


def _known_documents(golden, corpus) -> tuple[list, str]:
    if corpus is not None:
        return list(corpus.documents.index), "corpus"
    ids = list(golden.gold["doc_id"].dropna()) + list(golden.gold_pages["doc_id"])
    return list(dict.fromkeys(ids)), "golden set"


def _match_questions(log: RunLog, golden) -> tuple[dict, list]:
    """log key -> golden question ID (by ID, else by whitespace-normalized text); questions not in the golden set.
    The same golden question reached twice (logged by ID and by its text) is an error naming both lines."""
    ids = set(golden.questions.index)
    by_text: dict[str, list] = {}
    for q, t in golden.questions["question"].items():
        by_text.setdefault(" ".join(str(t).split()), []).append(q)
    mapping, unknown, reached = {}, [], {}
    for qid, text, line in zip(log.questions["question_id"], log.questions["question"], log.questions["line"]):
        if qid is not None:
            target = qid if qid in ids else None
        else:
            found = by_text.get(" ".join(str(text).split()), [])
            if len(found) > 1:
                raise InputError(f"question {text!r} is logged by its text, and the golden set has it {len(found)} "
                                 f"times ({', '.join(found)}); log the question_id.", path=log.source, line=int(line),
                                 field="question")
            target = found[0] if found else None
        if target is None:
            unknown.append(qid if qid is not None else text)
            continue
        if target in reached:
            first, how = reached[target]
            this = "by ID" if qid is not None else "by its text"
            raise InputError(f"question {target!r} is logged twice: {how} at line {first} and {this} here; keep one "
                             "record per question.", path=log.source, line=int(line),
                             field="question_id" if qid is not None else "question", question=target)
        reached[target] = (int(line), "by ID" if qid is not None else "by its text")
        mapping[log_key(qid, text)] = target
    return mapping, unknown


def match_log(log: RunLog, golden=None, corpus=None) -> RunLog:
    """The log matched to the golden set and the documents (module docstring): a new :class:`RunLog` whose
    ``run.doc_id`` holds known document IDs (unmatched ones as logged), with ``documents``,
    ``question_map`` and ``unknown_questions`` filled. Errors name the file, the line and the field."""
    if golden is None and corpus is None:
        raise InputError("match_log: give the golden set, the corpus, or both.")
    known, known_from = _known_documents(golden, corpus)
    run = log.run.copy()
    try:
        mapping, report = resolve_documents(run["logged_doc_id"], known)
    except AmbiguousDocument as e:
        rows = run[run["logged_doc_id"] == e.raw]
        line = int(rows["line"].iloc[0]) if len(rows) else None
        raise AmbiguousDocument(e.message, path=log.source, line=line, field="doc_id") from None
    logged = run["logged_doc_id"]
    run["doc_id"] = [None if d is None else (mapping.get(d) or d) for d in logged]
    with_doc = logged.notna()
    matched = logged.map(lambda d: d is not None and mapping.get(d) is not None)
    report["items"] = int(with_doc.sum())
    report["unmatched_items"] = int((with_doc & ~matched).sum())
    report["known"] = known_from
    if corpus is not None and report["items"] and not matched.any():
        shown = ", ".join(map(repr, report["examples"].get("unmatched", [])[:3]))
        raise InputError(f"no retrieved item names a document of the corpus ({report['items']} items; logged e.g. "
                         f"{shown}; the corpus has e.g. {', '.join(map(repr, known[:3]))}); check --pages or the "
                         "doc_id mapping.", path=log.source, line=int(run.loc[with_doc, "line"].iloc[0]),
                         field="doc_id")
    qmap, unknown = (None, None) if golden is None else _match_questions(log, golden)
    if golden is not None and not (golden.gold_chunks is not None and len(golden.gold_chunks)):
        chunk_only = run[run["doc_id"].isna() & run["text"].isna()]
        if len(chunk_only):
            row = chunk_only.iloc[0]
            who = row["question_id"] if row["question_id"] is not None else row["question"]
            raise InputError(f"question {who!r}, retrieved item {int(row['rank'])}: a chunk_id "
                             f"({row['chunk_id']!r}) and no document, and the golden set has no gold chunk IDs to "
                             "judge it by; log the doc_id (or map it with --field doc_id=PATH).", path=log.source,
                             line=int(row["line"]), field="doc_id")
    fp = golden.fingerprint() if golden is not None else None
    return dataclasses.replace(log, run=run, documents=report, question_map=qmap, unknown_questions=unknown,
                               matched_against=(fp, known_from, tuple(known)))


# ---- what a retriever returns -> native items ----------------------------------------------------

def _as_dict(obj):
    """A framework object (LangChain ``Document``, LlamaIndex ``NodeWithScore``: pydantic models) as its dump."""
    if isinstance(obj, dict):
        return obj
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        return dump()
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return obj


def detect_item_preset(item: dict) -> str:
    """The preset whose item shape ``item`` has: a LangChain ``Document`` dump (``page_content``; ``langchain-aws``
    when it carries a knowledge-base location and no ``source``), a LlamaIndex ``NodeWithScore`` dump (``node``),
    a Bedrock ``retrievalResults`` item (``content`` and ``location``), else ``native``."""
    item = _unwrap_langchain(item)
    if "page_content" in item:
        meta = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
        return "langchain-aws" if "location" in meta and "source" not in meta else "langchain"
    if isinstance(item.get("node"), dict):
        return "llamaindex"
    if isinstance(item.get("content"), dict) and isinstance(item.get("location"), dict):
        return "bedrock"
    return "native"


def _native_page(value, base: int):
    """A page number counted from ``base`` as a 1-based one; a value that is not a whole number is left for the
    reader to refuse."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value) - base + 1
    return value


def native_items(items: list, *, context: str = "run", path=None, line=None) -> list[dict]:
    """What a retriever returned, in the native item shape: dicts in the native shape as they are; LangChain
    ``Document`` / LlamaIndex ``NodeWithScore`` objects, their dumps and Bedrock result items read through their
    preset (:func:`detect_item_preset`); ``(item, score)`` pairs (``similarity_search_with_score``) take the
    score. Values are returned as given (numpy scalars stay numpy)."""
    out = []
    for rank, raw in enumerate(items, start=1):
        score = _MISSING
        if isinstance(raw, tuple) and len(raw) == 2 and isinstance(raw[1], numbers.Real):
            raw, score = raw
        item = _as_dict(raw)
        if not isinstance(item, dict):
            raise InputError(f"item {rank} is {type(raw).__name__}, expected a dict (or a LangChain Document / "
                             "LlamaIndex node)", path=path, line=line)
        preset = detect_item_preset(item)
        if preset == "native":
            native = dict(item)
        else:
            spec = PRESETS[preset]
            item = spec.get("unwrap", lambda x: x)(item)
            native = {}
            for key, p in spec["item"].items():
                value = _get(item, p)
                if value is not _MISSING and value is not None:
                    native[key] = value
            if "page" in native:
                native["page"] = _native_page(native["page"], spec["page_base"])
        if score is not _MISSING:
            native["score"] = score
        out.append(native)
    return out


# ---- the context an answer was made from -------------------------------------------------------

def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_context(items, *, who: str | None = None, field: str = "retrieved", path=None, line=None) -> list[dict]:
    """The items a generator read (an answers file's ``retrieved``), each read as a retrieval log's item is: a
    document ID, a native item or what :func:`native_items` reads (a LangChain / LlamaIndex dump...), its ``page``
    and ``pages`` read by :func:`_item_pages` (whole numbers >= 1; ``"page": 2`` is page 2). Returns
    ``[{"doc_id", "pages", "text"}]`` in order, ``pages`` a list of 1-based pages (empty: the whole document).
    ``who`` (``"question 'q1'"``), ``path`` and ``line`` name the place in errors; without ``who`` an item is
    ``context item N``."""
    if not isinstance(items, (list, tuple)):
        raise InputError(f"{who or 'context'}: {field} {_shown(items)} is not a list of items.", path=path, line=line,
                         field=field)
    out = []
    for rank, raw in enumerate(items, start=1):
        where = f"{who}, {field} item {rank}" if who else f"context item {rank}"
        if isinstance(raw, str):
            raw = {"doc_id": raw}  # a bare document ID, as retrieved_ids holds them
        if not isinstance(raw, dict):
            raise InputError(f"{where}: expected a document ID or an object (doc_id, page or pages, text), got "
                             f"{_shown(raw)}.", path=path, line=line, field=field)
        item, = native_items([raw], path=path, line=line)
        row = _item_row(item, {}, {"question_id": None, "question": None}, rank, PRESETS["native"]["item"], 1, where,
                        path, line, _HINTS["answers"], "native", False)
        out.append({"doc_id": row["doc_id"], "pages": list(row["pages"]), "text": row["text"]})
    return out


def read_document_ids(ids, *, who: str | None = None, field: str = "retrieved_ids", path=None, line=None) -> list[str]:
    """An answers file's ``retrieved_ids``: a list of document IDs, each read as a log's ``doc_id`` (non-empty text;
    a number is its text). Errors name ``who``, ``path``, ``line`` and ``field``."""
    if isinstance(ids, np.ndarray):
        ids = ids.tolist()
    if not isinstance(ids, (list, tuple)):
        raise InputError(f"{who or 'context'}: {field} {_shown(ids)} is not a list of document IDs.", path=path,
                         line=line, field=field)
    out = []
    for rank, value in enumerate(ids, start=1):
        where = f"{who}, {field} item {rank}" if who else f"{field} item {rank}"
        doc = _text_or_none(value, where, path, line, field)
        if doc is None:
            raise InputError(f"{where}: {_shown(value)} is not a document ID.", path=path, line=line, field=field)
        out.append(doc)
    return out
