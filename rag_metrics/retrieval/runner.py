"""Run a retriever over a golden set and log what it returns: the "retrieve only" loop.

The retriever protocol is one callable::

    search(question: str, k: int) -> list[dict]

returning the top ``k`` items, best first, each in the log's item shape (:mod:`rag_metrics.io.logs`):
``{"doc_id": ..., "page": 3 or "pages": [3, 4], "chunk_id": ..., "text": ..., "score": ...}`` with
``doc_id`` required. Name it as ``module:function`` (``mypkg.search:search``; an object with a
``search`` method works too), or use a built-in one (:func:`builtin_search`: ``bm25``, ``dense``,
``hybrid`` over any corpus).

:func:`run_retriever` calls it for every labelled question of the golden set, in a thread pool,
with retries and exponential backoff on exceptions the retriever raises; a question that still fails
is logged with its error (``"error": "TimeoutError: ..."``) and reported, never dropped. numpy
scalars and arrays in the items (FAISS scores, page numbers) are written as JSON numbers and lists;
items that cannot be logged -- a wrong shape, a value JSON cannot hold (a set, NaN, a lone surrogate)
-- are that question's error at once (``OutputError``: calling again would return the same). The log is written as it
goes to ``<out>.partial``; a run that stops (Ctrl-C, a crash) resumes where it stopped when started
again with the same settings, and the finished log is renamed to ``<out>`` -- sorted in golden-set
order -- next to ``<out>.settings.json`` (retriever, k, options, golden-set fingerprint, wall time,
questions failed). Each record carries its ``latency_ms``.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from ..errors import InputError, check_int
from ..io.logs import log_records
from ..progress import progress_bar

__all__ = ["run_retriever", "load_retriever", "builtin_search", "find_resumable", "BUILTINS", "RunSummary"]

BUILTINS = ("bm25", "dense", "hybrid")


def load_retriever(spec: str) -> Callable:
    """``module:function`` (or ``module:object`` with a ``search`` method) -> the callable."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise InputError(f"retriever {spec!r}: expected MODULE:FUNCTION (e.g. mypkg.search:search) or one of "
                         f"{', '.join(BUILTINS)}.", field="retriever")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())  # like `python -m`: a module in the current folder is found
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise InputError(f"retriever {spec!r}: cannot import {module_name!r} ({e}).", field="retriever") from None
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InputError(f"retriever {spec!r}: {module_name!r} has no attribute {attr!r}.", field="retriever")
        obj = getattr(obj, part)
    func = obj.search if hasattr(obj, "search") and not callable(obj) else obj
    if not callable(func):
        raise InputError(f"retriever {spec!r} is not callable; expected search(question, k).", field="retriever")
    return func


class _BuiltinSearch:
    """A built-in retriever behind the protocol: ``search(question, k)``."""

    def __init__(self, kind: str, corpus, *, size: int = 400, overlap: int = 100, unit: str = "char",
                 heading: bool = False):
        from .chunking import chunk_by_heading, chunk_fixed
        from .retrievers import BM25Retriever, DenseRetriever, HybridRetriever

        if kind not in BUILTINS:
            raise InputError(f"unknown built-in retriever {kind!r}; expected one of {', '.join(BUILTINS)}.",
                             field="retriever")
        self.chunks = chunk_by_heading(corpus) if heading else chunk_fixed(corpus, size, overlap, unit=unit)
        if kind == "bm25":
            self.retriever = BM25Retriever(self.chunks)
        elif kind == "dense":
            self.retriever = DenseRetriever(self.chunks)
        else:
            self.retriever = HybridRetriever([BM25Retriever(self.chunks), DenseRetriever(self.chunks)])
        self.text = dict(zip(self.chunks["chunk_id"], self.chunks["text"]))
        self.settings = {"kind": kind, "chunking": "heading" if heading else f"{unit} {size}/{overlap}",
                         "n_chunks": len(self.chunks)}
        self._lock = threading.Lock()

    def __call__(self, question: str, k: int) -> list[dict]:
        with self._lock:  # the index objects are not documented as thread-safe
            hits = self.retriever.search({"q": question}, k)
        return [{"doc_id": row.doc_id, "pages": list(row.pages), "chunk_id": row.chunk_id,
                 "text": self.text[row.chunk_id], "score": round(float(row.score), 6)}
                for row in hits.itertuples(index=False)]


def builtin_search(kind: str, corpus, **options) -> Callable:
    """A built-in retriever (``bm25``, ``dense``, ``hybrid``) over ``corpus`` as a ``search(question, k)``
    callable; ``options``: ``size``, ``overlap``, ``unit`` (``char``/``token``), ``heading`` (chunk by heading)."""
    return _BuiltinSearch(kind, corpus, **options)


class RunSummary(dict):
    """What :func:`run_retriever` did: path, questions, failed, resumed, wall time."""


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class OutputError(ValueError):
    """What the retriever returned cannot be logged (wrong shape, a value JSON cannot hold). Calling it again
    would return the same: logged as the question's error at once, never retried."""


def _plain(value):
    """``json.dumps`` default: numpy scalars and arrays (what FAISS and most vector stores return) as JSON
    numbers and lists; anything else JSON cannot hold is an error."""
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _json_line(record: dict) -> str:
    """One log line, exactly as it will be written: strict JSON (no NaN), encodable as UTF-8."""
    try:
        line = json.dumps(record, ensure_ascii=False, allow_nan=False, default=_plain)
        line.encode("utf-8")
    except (TypeError, ValueError) as e:  # UnicodeEncodeError (a lone surrogate) is a ValueError
        reason = "NaN or infinity is not JSON" if "Out of range float" in str(e) else str(e)
        raise OutputError(f"cannot be written as JSON: {reason}") from None
    return line


def _validate(items, qid, k) -> list:
    """The retriever's items as plain JSON values, read back exactly as the log reader will read them."""
    if not isinstance(items, list):
        raise OutputError(f"the retriever returned {type(items).__name__}, expected a list of dicts")
    if len(items) > k:
        items = items[:k]
    for rank, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise OutputError(f"item {rank} is {type(item).__name__}, expected a dict")
    items = json.loads(_json_line(items))
    try:  # a bad item fails here, naming the question
        log_records([(0, {"question_id": qid, "retrieved": items})], preset="native")
    except InputError as e:
        raise OutputError(str(e)) from None
    return items


def run_retriever(search: Callable, golden, k: int, out, *, settings: dict | None = None, workers: int = 4,
                  retries: int = 3, backoff: float = 0.5, resume: bool = True, progress: bool = True,
                  questions=None) -> RunSummary:
    """Call ``search(question, k)`` for every labelled question and write the log ``out`` (module docstring).

    ``settings`` (retriever name, options) are stored next to the log; a partial log with the same
    settings, k and golden set is resumed. ``questions``: restrict to these question IDs.
    """
    k = check_int(k, "k")
    workers = check_int(workers, "workers")
    retries = check_int(retries, "retries", low=0)
    out = Path(out)
    partial = out.with_name(out.name + ".partial")
    todo = _todo(golden, questions)
    run_settings = _run_settings(settings, k, golden, todo)
    done: dict[str, dict] = {}
    resumed = 0
    side = Path(str(partial) + ".settings.json")
    if partial.exists():
        previous = json.loads(side.read_text(encoding="utf-8")) if side.exists() else {}
        same = {k_: previous.get(k_) for k_ in run_settings} == run_settings
        if not resume or not same:
            raise InputError(f"a partial log from a run with {'other' if not same else 'the same'} settings exists; "
                             + ("delete it to start over." if same else "finish it with the same settings, or delete it."),
                             path=partial)
        for _, rec in _records(partial):
            if not rec.get("error"):
                done[rec["question_id"]] = rec
        resumed = len(done)
        started = previous.get("started_at", _now())
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        started = _now()
        side.write_text(json.dumps({**run_settings, "started_at": started}, indent=2, ensure_ascii=False),
                        encoding="utf-8")
        partial.write_text("", encoding="utf-8")
    pending = [(qid, row["question"]) for qid, row in todo.iterrows() if qid not in done]
    lock = threading.Lock()
    t0 = time.perf_counter()

    def failure(qid, question, error, attempt) -> str:
        rec = {"question_id": qid, "question": question, "retrieved": [], "error": error, "attempts": attempt}
        return json.dumps(rec, ensure_ascii=True)  # ASCII: a lone surrogate in the message is escaped, not fatal

    def one(qid, question) -> tuple[str, bool]:
        """The question's log line and whether it failed."""
        attempt = 0
        while True:
            attempt += 1
            start = time.perf_counter()
            try:
                found = search(question, k)
            except Exception as e:  # the user's retriever raised: retried with backoff, then logged
                if attempt > retries:
                    return failure(qid, question, f"{type(e).__name__}: {e}", attempt), True
                time.sleep(backoff * 2 ** (attempt - 1))
                continue
            latency = (time.perf_counter() - start) * 1000
            try:
                items = _validate(found, qid, k)
                return _json_line({"question_id": qid, "question": question, "retrieved": items,
                                   "latency_ms": round(latency, 3), "attempts": attempt}), False
            except OutputError as e:
                return failure(qid, question, f"OutputError: {e}", attempt), True

    bar = None
    if progress and pending:
        bar = progress_bar(total=len(pending), desc=f"retrieving ({out.name})", unit="q", initial=0,
                            leave=True)
    with open(partial, "a", encoding="utf-8") as sink, ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(one, qid, question): qid for qid, question in pending}
        for future in as_completed(futures):
            line, _ = future.result()
            with lock:
                sink.write(line + "\n")
                sink.flush()
                done[futures[future]] = json.loads(line)
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    order = list(todo.index)
    records = [done[q] for q in order if q in done]
    failed = [r["question_id"] for r in records if r.get("error")]
    with open(partial, "w", encoding="utf-8") as sink:
        for rec in records:
            sink.write(_json_line(rec) if not rec.get("error") else json.dumps(rec, ensure_ascii=True))
            sink.write("\n")
    final = {**run_settings, "started_at": started, "finished_at": _now(),
             "wall_time_s": round(time.perf_counter() - t0, 3), "workers": workers, "retries": retries,
             "failed": failed, "resumed_questions": resumed}
    Path(str(out) + ".settings.json").write_text(json.dumps(final, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(partial, out)
    side.unlink(missing_ok=True)
    return RunSummary(path=str(out), questions=len(records), failed=failed, resumed=resumed,
                      wall_time_s=final["wall_time_s"])


def _todo(golden, questions=None):
    todo = golden.labelled
    return todo if questions is None else todo[todo.index.isin(set(questions))]


def _run_settings(settings, k, golden, todo) -> dict:
    """What a resumed run must share with the partial one."""
    return json.loads(json.dumps({**(settings or {}), "k": k, "golden": golden.fingerprint(),
                                  "golden_source": golden.source, "n_questions": int(len(todo))}, default=str))


def find_resumable(folder, search_settings: dict, golden, k: int, questions=None) -> Path | None:
    """The final path of the newest partial log in ``folder`` started with these settings (None if none)."""
    wanted = _run_settings(search_settings, k, golden, _todo(golden, questions))
    for partial in sorted(Path(folder).glob("*.jsonl.partial"), reverse=True):
        side = Path(str(partial) + ".settings.json")
        if side.exists():
            previous = json.loads(side.read_text(encoding="utf-8"))
            if {key: previous.get(key) for key in wanted} == wanted:
                return partial.with_name(partial.name[: -len(".partial")])
    return None


def _records(path):
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if line.strip():
                try:
                    yield lineno, json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut off by the interruption: that question runs again

