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

Other shapes -- what LangChain, LlamaIndex, ragas and Bedrock write, and any shape through a field mapping -- are read
through a preset (:data:`~rag_metrics.io.log_presets.PRESETS`, :mod:`rag_metrics.io.log_presets`, which also says how
a run given on the command line carries its own shape). Given the golden set and/or the corpus, the log is matched to
their documents and questions as it is read (:func:`~rag_metrics.io.log_matching.match_log`).

**The context an answer was made from** (an answers file's ``retrieved`` / ``retrieved_ids``) is read the same way:
:func:`read_context` reads each item as a log's native item (``"page": 2`` is page 2, ``3.7`` is refused) and
:func:`read_document_ids` each ID as a log's ``doc_id``.

TREC run files are read by :mod:`rag_metrics.io.trec` and evaluated by :func:`rag_metrics.evaluate_trec`.
"""

from __future__ import annotations

import json
import math
import numbers
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, check_choice
from rag_metrics.core.fingerprint import digest
from rag_metrics.io.jsonl import iter_jsonl
from rag_metrics.io.log_matching import log_key, match_log
from rag_metrics.io.log_presets import (ITEM_FIELDS, MISSING, PRESETS, RECORD_FIELDS, field_at, native_items,
                                        parse_field_mapping, parse_run_spec)

__all__ = ["RunLog", "load_log", "log_records", "read_context", "read_document_ids", "RUN_COLUMNS"]

RUN_COLUMNS = ["question_id", "question", "rank", "doc_id", "chunk_id", "pages", "page_label", "text", "score",
               "line", "logged_doc_id"]


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
    Once matched (:func:`~rag_metrics.io.log_matching.match_log`): ``documents`` (how document IDs matched: ``exact``,
    ``by_path_suffix``, ``unmatched`` distinct IDs, ``unmatched_items``, ``items``, ``examples``),
    ``question_map`` (:func:`~rag_metrics.io.log_matching.log_key` -> golden question ID), ``unknown_questions``
    (logged, not in the golden set) and ``matched_against`` (what it was matched to).
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
        # astype(str) leaves a column of strings as it is, only slower (pandas 3 copies it into Arrow): skipped there
        value = digest(pd.DataFrame({("doc_id" if name == "logged_doc_id" else name):
                                     col if _all_strings(col) else col.astype(str) for name, col in cols.items()}))
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


def _all_strings(column: pd.Series) -> bool:
    """Whether every cell of an object column is a ``str`` (what ``astype(str)`` would give back unchanged)."""
    return column.dtype == object and all(type(v) is str for v in column.tolist())


# ---- reading ------------------------------------------------------------------------------------

def _show(path) -> str:
    return " or ".join(path) if isinstance(path, tuple) else str(path)


def _page_number(value, base, path, line, where, field_path, note="see --page-base"):
    if type(value) is int and value >= base:  # the usual page: no further test can refuse it
        return value - base + 1
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
    if value is MISSING or value is None:
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
        items = field_at(rec, spec["record"]["items"])
        if isinstance(items, list) and items:
            item = spec.get("unwrap", lambda x: x)(items[0])
            if isinstance(item, dict) and field_at(item, spec["item"]["doc_id"]) is not MISSING:
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
            for k in [k for k in unused if k in RECORD_FIELDS and field_at(rec, unused[k]) is not MISSING]:
                del unused[k]
        if unused_lists:
            for k in [k for k, p in unused_lists.items() if field_at(rec, p) is not MISSING]:
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
                for k in [k for k in unused if k in ITEM_FIELDS and field_at(item, unused[k]) is not MISSING]:
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
    qid = _text_or_none(field_at(rec, rec_paths["question_id"]), f"record at line {line}", path, line, "question_id")
    question = _text_or_none(field_at(rec, rec_paths["question"]), f"record at line {line}", path, line, "question")
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
    error = field_at(rec, rec_paths["error"])
    raw_items = _items(rec, rec_paths["items"], error, who, path, line, hints, preset)
    latency = field_at(rec, rec_paths["latency_ms"])
    if latency is not MISSING and latency is not None:
        if isinstance(latency, bool) or not isinstance(latency, numbers.Real) or not np.isfinite(latency) \
                or latency < 0:
            raise InputError(f"{who}: latency_ms {latency!r} is not a finite number >= 0.", path=path, line=line,
                             field="latency_ms")
    answer = field_at(rec, rec_paths["answer"])
    row = {"question_id": qid, "question": question, "answer": None if answer is MISSING else answer,
           "latency_ms": None if latency is MISSING else latency,
           "error": None if error is MISSING or error in (None, "") else str(error), "line": line}
    return row, raw_items, who


def _item_row(item: dict, rec, question_row: dict, rank: int, item_paths: dict, base: int, where: str, path, line,
              hints: dict, preset: str, suggest: bool) -> dict:
    """One retrieved item's run table row. Refuses a text that is not a string, and an item with no document or
    chunk unless it has text alone (a text-only item) -- and then too when ``suggest`` and another preset reads
    the record's items (:func:`_suggest_preset`, named in the error)."""
    doc = _text_or_none(field_at(item, item_paths.get("doc_id")), where, path, line, "doc_id")
    chunk = _text_or_none(field_at(item, item_paths.get("chunk_id")), where, path, line, "chunk_id")
    text = field_at(item, item_paths.get("text"))
    pages = _item_pages(item, item_paths, base, where, path, line, hints.get("page", "see --page-base"))
    label = field_at(item, item_paths.get("page_label"))
    label = None if label is MISSING or label is None else str(label)
    if text is not MISSING and text is not None and not isinstance(text, str):
        raise InputError(f"{where}: text is not a string.", path=path, line=line, field="text")
    if text is MISSING:
        text = None
    if doc is None and chunk is None:
        other = _suggest_preset(rec, preset) if suggest else ""
        if text is None or pages or other:  # text alone is a text-only item, unless another preset reads it
            raise InputError(f"{where} has no document (field {_show(item_paths.get('doc_id'))})"
                             f"{'' if pages or text is not None else ' and no text'}; {hints['doc_id']}."
                             + other, path=path, line=line, field="doc_id")
    score = field_at(item, item_paths.get("score"))
    if score is MISSING or score is None:
        score = np.nan
    elif type(score) is float and math.isfinite(score):  # the usual score: no further test can refuse it
        pass
    elif isinstance(score, bool) or not isinstance(score, numbers.Real) or not np.isfinite(score):
        raise InputError(f"{where}: score {score!r} is not a finite number.", path=path, line=line, field="score")
    return {"question_id": question_row["question_id"], "question": question_row["question"], "rank": rank,
            "doc_id": doc, "chunk_id": chunk, "pages": (*pages,) if len(pages) < 2 else tuple(sorted(set(pages))),
            "page_label": label, "text": text,
            "score": float(score), "line": line, "logged_doc_id": doc}


def _item_pages(item: dict, item_paths: dict, base: int, where: str, path, line, note="see --page-base") -> list[int]:
    """The item's page numbers counted from 1 (:func:`_page_number`; ``note`` ends its error): its ``page`` then its
    ``pages`` (a list, else an error), as logged (duplicates kept)."""
    pages = []
    one = field_at(item, item_paths.get("page"))
    many = field_at(item, item_paths.get("pages"))
    if one is not MISSING and one is not None:
        pages.append(_page_number(one, base, path, line, where, item_paths.get("page"), note))
    if many is not MISSING and many is not None:
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
        columns = {k: field_at(rec, p) for k, p in path_spec.items()}
        present = {k: v for k, v in columns.items() if v is not MISSING and v is not None}
        if not present:
            if error not in (MISSING, None, ""):
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
    value = field_at(rec, path_spec)
    if value is MISSING or value is None:
        if error not in (MISSING, None, ""):
            return []
        raise InputError(f"{who}: no list of retrieved items at {_show(path_spec)}; {hints['items']}."
                         + (_suggest_preset(rec, preset) if hints is _HINTS["log"] else ""),
                         path=path, line=line, field="items")
    if not isinstance(value, list):
        raise InputError(f"{who}: retrieved items ({_show(path_spec)}) must be a list, got {type(value).__name__}.",
                         path=path, line=line, field="items")
    return value


_NUMBER_COLUMNS = {"rank": np.int64, "score": np.float64, "line": np.int64}
"""The run table's columns of numbers (every item row has an int rank and line, a float score); the rest are objects."""


def _run_table(items: list) -> pd.DataFrame:
    """The run table of item rows (:func:`_item_row`), built column by column: the frame ``pd.DataFrame(items)``
    would give (the same dtypes), without pandas reading 160,000 dicts one key at a time."""
    if not items:
        return pd.DataFrame(items, columns=RUN_COLUMNS)
    return pd.DataFrame({c: np.array([it[c] for it in items], dtype=_NUMBER_COLUMNS[c]) if c in _NUMBER_COLUMNS
                         else pd.Series([it[c] for it in items], dtype=object) for c in RUN_COLUMNS})


def _tables(items, questions):
    run = _run_table(items)
    for col in ("question_id", "question", "doc_id", "chunk_id", "page_label", "text", "logged_doc_id"):  # absent stays None
        run[col] = run[col].astype(object).where(run[col].notna(), None)
    table = pd.DataFrame(questions, columns=["question_id", "question", "answer", "latency_ms", "error", "line"])
    for col in ("question_id", "question", "answer", "error"):
        table[col] = table[col].astype(object).where(table[col].notna(), None)
    return run, table


def load_log(path, *, preset: str = "native", fields: dict | None = None, page_base: int | None = None,
             golden=None, corpus=None) -> RunLog:
    """Read a retrieval log (module docstring). Every problem names the file, the line and the field.

    ``path`` may be a per-run spec (``langchain:LOG``, :func:`~rag_metrics.io.log_presets.parse_run_spec`), whose own
    shape then replaces ``preset``/``fields``/``page_base``. With ``golden`` (a
    :class:`~rag_metrics.io.golden.GoldenSet`) and/or ``corpus`` the log is matched as it is read
    (:func:`~rag_metrics.io.log_matching.match_log`).
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


# ---- the context an answer was made from -------------------------------------------------------

def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_context(items, *, who: str | None = None, field: str = "retrieved", path=None, line=None) -> list[dict]:
    """The items a generator read (an answers file's ``retrieved``), each read as a retrieval log's item is: a
    document ID, a native item or what :func:`~rag_metrics.io.log_presets.native_items` reads (a LangChain / LlamaIndex
    dump...), its ``page`` and ``pages`` read by :func:`_item_pages` (whole numbers >= 1; ``"page": 2`` is page 2).
    Returns ``[{"doc_id", "pages", "text"}]`` in order, ``pages`` a list of 1-based pages (empty: the whole document).
    ``who`` (``"question 'q1'"``), ``path`` and ``line`` name the place in errors; without ``who`` an item is ``context
    item N``."""
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
