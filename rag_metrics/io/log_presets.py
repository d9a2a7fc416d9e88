"""The shapes retrieval logs come in: presets for what frameworks write, field mappings, and runs that carry their own
shape. :func:`rag_metrics.io.logs.load_log` reads a log through them.

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

:func:`native_items` reads what a retriever returns in code (LangChain ``Document`` / LlamaIndex ``NodeWithScore``
objects, their dumps, Bedrock result items) into the native item shape, through the preset its shape has
(:func:`detect_item_preset`); :func:`field_at` reads a dotted path of a record or an item.
"""

from __future__ import annotations

import dataclasses
import numbers
import re
from dataclasses import dataclass, field
from pathlib import Path

from rag_metrics.core.errors import InputError, check_choice
from rag_metrics.core.options import parse_key_values

__all__ = ["PRESETS", "ITEM_FIELDS", "RECORD_FIELDS", "MISSING", "field_at", "parse_field_mapping", "RunSpec",
           "parse_run_spec", "SPEC_GRAMMAR", "native_items", "detect_item_preset"]

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


MISSING = object()
"""What :func:`field_at` returns for a path the object does not hold (None is a value)."""


def field_at(obj, path):
    """The value at a dotted ``path`` of ``obj`` -- keys of dicts, indexes of lists (``"metadata.page"``,
    ``"nodes.0.text"``) -- or at the first present of a tuple of alternatives; :data:`MISSING` if absent."""
    if isinstance(path, tuple):
        for p in path:
            value = field_at(obj, p)
            if value is not MISSING:
                return value
        return MISSING
    if path in (None, ""):
        return MISSING
    if isinstance(obj, dict) and path in obj:  # a key that itself holds dots
        return obj[path]
    for part in path.split("."):
        if isinstance(obj, dict) and part in obj:
            obj = obj[part]
        elif isinstance(obj, list) and part.isdigit() and int(part) < len(obj):
            obj = obj[int(part)]
        else:
            return MISSING
    return obj


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
        score = MISSING
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
                value = field_at(item, p)
                if value is not MISSING and value is not None:
                    native[key] = value
            if "page" in native:
                native["page"] = _native_page(native["page"], spec["page_base"])
        if score is not MISSING:
            native["score"] = score
        out.append(native)
    return out
