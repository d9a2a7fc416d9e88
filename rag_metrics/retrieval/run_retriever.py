"""Run a retriever over a golden set and log what it returns: the "retrieve only" loop.

The retriever protocol is one callable::

    search(question: str, k: int) -> list[dict]

returning the top ``k`` items, best first, each in the log's item shape (:mod:`rag_metrics.io.logs`):
``{"doc_id": ..., "page": 3 or "pages": [3, 4], "chunk_id": ..., "text": ..., "score": ...}`` with
``doc_id`` required (or ``chunk_id`` when the golden set's gold is chunk IDs, or ``text`` alone: placed
on the pages when the log is judged). LangChain ``Document`` and LlamaIndex ``NodeWithScore`` objects,
their dumps, Bedrock result items and ``(document, score)`` pairs are accepted too, read through the same
presets as logs (:func:`rag_metrics.io.log_presets.native_items`) and logged in the native shape. Name it as
``module:function`` (``mypkg.search:search``; an object with a ``search`` method works too); with
options (``--option KEY=VALUE``), ``module:make`` is a factory called as ``make(**options)`` that
returns the search callable (a class is instantiated the same way), and the options are recorded in the
settings. Or use a built-in one (:func:`builtin_search`: ``bm25``, ``dense``, ``hybrid`` over any corpus).

:func:`run_retriever` calls it for every labelled question of the golden set, in a thread pool,
with retries and exponential backoff on exceptions the retriever raises (and on calls that take longer
than ``timeout`` seconds); a question that still fails is logged with its error (``"error":
"TimeoutError: ..."``) and reported, never dropped. numpy scalars and arrays in the items (FAISS scores,
page numbers) are written as JSON numbers and lists; items that cannot be logged -- a wrong shape, a
value JSON cannot hold (a set, NaN, a lone surrogate) -- are that question's error at once
(``OutputError``: calling again would return the same). The log is written as it goes to
``<out>.partial``, which one run at a time may write (a lock file ``<out>.partial.lock``: a second run
refuses, naming the first's process ID); a run that stops (Ctrl-C, a crash) resumes where it stopped
when started again with the same settings, and the finished log is renamed to ``<out>`` -- sorted in
golden-set order -- next to ``<out>.settings.json`` (retriever, k, options, golden-set fingerprint, wall
time, questions failed). A run started again after its log was published (killed just before it exited)
finds it complete and calls nothing. Each record carries its ``latency_ms``.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import numbers
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from rag_metrics.core.errors import InputError, check_choice, check_int
from rag_metrics.core.files import HOST, FileLock, LockHeld, atomic_open, atomic_write_text
from rag_metrics.io.log_presets import native_items
from rag_metrics.io.logs import log_records
from rag_metrics.core.options import load_callable
from rag_metrics.core.progress import progress_bar
from rag_metrics.retrieval.retrievers import RETRIEVERS

__all__ = ["run_retriever", "load_retriever", "builtin_search", "find_resumable", "BUILTINS", "RunSummary",
           "OutputError", "CallTimeout", "BUILTIN_OPTIONS", "make_search", "log_path", "first_error"]

BUILTINS = RETRIEVERS
"""The built-in retrievers :func:`builtin_search` offers (:data:`rag_metrics.retrieval.retrievers.RETRIEVERS`)."""


def load_retriever(spec: str, **options) -> Callable:
    """``module:function`` (or ``module:object`` with a ``search`` method) -> the search callable.

    With ``options``, the named callable is a factory: ``make(**options)`` (a class: ``Class(**options)``)
    returns the search callable or an object with a ``search`` method. A module in the current folder is
    found (:func:`rag_metrics.core.options.load_callable`).
    """
    import inspect

    obj = load_callable(spec, what="retriever", field="retriever", example="mypkg.search:search")
    if options or isinstance(obj, type):
        if not callable(obj):
            raise InputError(f"retriever {spec!r} is not callable, so it cannot take options {sorted(options)}.",
                             field="retriever")
        try:
            inspect.signature(obj).bind(**options)
        except TypeError as e:
            raise InputError(f"retriever {spec!r}: cannot be called with the options {sorted(options)} ({e}); "
                             "--option KEY=VALUE goes to the factory as a keyword argument.", field="option") from None
        except ValueError:  # no signature to check (a builtin): let the call say
            pass
        obj = obj(**options)
    func = obj.search if hasattr(obj, "search") and callable(obj.search) and (options or not callable(obj)) else obj
    if not callable(func):
        raise InputError(f"retriever {spec!r}" + (" (made with the options)" if options else "") +
                         " is not callable; expected search(question, k).", field="retriever")
    return func


class _BuiltinSearch:
    """A built-in retriever behind the protocol: ``search(question, k)``."""

    def __init__(self, kind: str, corpus, *, size: int = 400, overlap: int = 100, unit: str = "char",
                 heading: bool = False):
        from rag_metrics.retrieval.chunking import chunk_by_heading, chunk_fixed
        from rag_metrics.retrieval.retrievers import make_retriever

        check_choice(kind, BUILTINS, "built-in retriever", what="unknown", field="retriever")
        self.chunks = chunk_by_heading(corpus) if heading else chunk_fixed(corpus, size, overlap, unit=unit)
        self.retriever = make_retriever(kind, self.chunks)
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


BUILTIN_OPTIONS = ("size", "overlap", "unit", "heading")
"""The options a built-in retriever takes (:func:`builtin_search`)."""


def builtin_search(kind: str, corpus, **options) -> Callable:
    """A built-in retriever (``bm25``, ``dense``, ``hybrid``) over ``corpus`` as a ``search(question, k)``
    callable; ``options``: ``size``, ``overlap``, ``unit`` (``char``/``token``), ``heading`` (chunk by heading)."""
    return _BuiltinSearch(kind, corpus, **options)


def make_search(retriever: str, options: dict, pages=None) -> tuple[Callable, dict]:
    """``(search, settings)`` for `rag-metrics run --retriever`: a built-in retriever over ``pages`` (a pages.jsonl
    or a folder, required) taking only :data:`BUILTIN_OPTIONS`, or ``MODULE:FUNCTION`` (``options`` make it a
    factory; ``pages`` refused: it reads its own documents). ``settings``: what the log's settings record."""
    from rag_metrics.io.corpus import load_corpus

    if retriever in BUILTINS:
        unknown = sorted(set(options) - set(BUILTIN_OPTIONS))
        if unknown:
            raise InputError(f"unknown option(s) {unknown} for the built-in retriever; expected "
                             f"{', '.join(BUILTIN_OPTIONS)}.")
        if not pages:
            raise InputError(f"the built-in retriever {retriever} searches your documents: give --pages PATH "
                             "(pages.jsonl or a folder; data/corpus is the project's sample).", field="pages")
        search = builtin_search(retriever, load_corpus(pages), **options)
        return search, {"retriever": retriever, "options": {**options, **search.settings}, "corpus": str(pages)}
    if pages:
        raise InputError("--pages is the corpus of the built-in retrievers (bm25, dense, hybrid); your retriever "
                         "reads its own.")
    return load_retriever(retriever, **options), {"retriever": retriever, "options": options}


def log_path(runs_dir, experiment: str, settings: dict, golden, k: int, *, resume: bool = True,
             now: _dt.datetime | None = None) -> Path:
    """Where a run with no ``--out`` logs: the partial log of an earlier run with the same settings in
    ``RUNS_DIR/EXPERIMENT/`` when ``resume`` (:func:`find_resumable`), else ``RUNS_DIR/EXPERIMENT/<UTC
    timestamp>.jsonl`` (``now``, default the current time). The experiment name must be a plain name."""
    from rag_metrics.core.errors import check_name

    check_name(experiment, what="experiment name")
    folder = Path(runs_dir, experiment)
    resumable = find_resumable(folder, settings, golden, k) if resume else None
    stamp = (now or _dt.datetime.now(_dt.timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    return resumable or folder / f"{stamp}.jsonl"


def first_error(path) -> str | None:
    """The first error a log records (its first 300 characters), or None when none or the log is unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                error = json.loads(line).get("error")
                if error:
                    return str(error)[:300]
    except (OSError, ValueError):
        return None
    return None


class RunSummary(dict):
    """What :func:`run_retriever` did: path, questions, failed, resumed, wall time, and ``complete`` (True when the
    log had been published already and nothing was called)."""


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


def scores_rise(items: list[dict]) -> bool:
    """Whether the scores of a retriever's list (native items) rise down the list: every item has a numeric score, they never
    fall from one item to the next and the last is above the first -- the list is lowest score first, so its first
    k are its worst (a list of equal scores, or one without scores, says nothing)."""
    scores = []
    for item in items:
        score = item.get("score")
        if isinstance(score, bool) or not isinstance(score, numbers.Real) or score != score:
            return False
        scores.append(float(score))
    return len(scores) > 1 and scores[-1] > scores[0] and all(a <= b for a, b in zip(scores, scores[1:]))


def _validate(items, qid, k, needs_doc: bool = False) -> tuple[list, dict]:
    """The retriever's items as plain JSON values in the native shape, read back exactly as the log reader will
    read them, and what the run did to its list: ``{"returned": n}`` when it returned more than ``k`` items (the
    first ``k`` in the retriever's order are kept), ``{"scores_rise": True}`` when its scores rise down the list
    (:func:`scores_rise`). ``needs_doc``: the golden set has no gold chunk IDs, so an item with a chunk ID and no
    document (nor text to place it by) could never be judged."""
    if isinstance(items, tuple):
        items = list(items)
    if not isinstance(items, list):
        raise OutputError(f"the retriever returned {type(items).__name__}, expected a list of items")
    try:
        items = native_items(items, context="run")
    except InputError as e:
        raise OutputError(e.message) from None
    noted = {}
    if len(items) > k:
        noted["returned"] = len(items)
    if scores_rise(items):
        noted["scores_rise"] = True
    items = items[:k]
    items = json.loads(_json_line(items))
    try:  # a bad item fails here, naming the question
        rows, _, _ = log_records([(0, {"question_id": qid, "retrieved": items})], preset="native", context="run")
    except InputError as e:
        raise OutputError(e.message) from None
    if needs_doc:
        bad = next((r for r in rows if r["doc_id"] is None and r["text"] is None), None)
        if bad is not None:
            raise OutputError(f"retrieved item {bad['rank']} has a chunk_id ({bad['chunk_id']!r}) and no doc_id, and "
                              "the golden set has no gold chunk IDs to judge it by; return the doc_id")
    return items, noted


class CallTimeout(TimeoutError):
    """A call to the retriever took longer than the run's ``timeout``."""


def _call(search, question, k, timeout):
    """``search(question, k)``, abandoned after ``timeout`` seconds (the call goes on in a daemon thread whose
    result is ignored: Python cannot stop a thread)."""
    if timeout is None:
        return search(question, k)
    box: dict = {}

    def target():
        try:
            box["value"] = search(question, k)
        except BaseException as e:  # handed to the caller's thread
            box["error"] = e

    thread = threading.Thread(target=target, daemon=True, name="rag-metrics-search")
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise CallTimeout(f"no result within {timeout:g} s (--timeout)")
    if "error" in box:
        raise box["error"]
    return box["value"]


def _check_seconds(value, name: str, *, allow_zero: bool, allow_none: bool = False):
    if value is None and allow_none:
        return None
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value) and \
        (value >= 0 if allow_zero else value > 0)
    if not ok:
        raise InputError(f"The {name!r} parameter must be a finite number of seconds {'>= 0' if allow_zero else '> 0'}"
                         f"{' or None' if allow_none else ''}. Got {value!r} instead.", field=name)
    return float(value)


def run_retriever(search: Callable, golden, k: int, out, *, settings: dict | None = None, workers: int = 4,
                  retries: int = 3, backoff: float = 0.5, timeout: float | None = None, resume: bool = True,
                  progress: bool = True, questions=None) -> RunSummary:
    """Call ``search(question, k)`` for every labelled question and write the log ``out`` (module docstring).

    ``settings`` (retriever name, options) are stored next to the log; a partial log with the same
    settings, k and golden set is resumed; a published log with the same settings is complete (nothing
    is called; ``summary["complete"]``). ``timeout``: seconds per call (None: no limit). ``questions``:
    restrict to these question IDs.
    """
    k = check_int(k, "k")
    workers = check_int(workers, "workers")
    retries = check_int(retries, "retries", low=0)
    backoff = _check_seconds(backoff, "backoff", allow_zero=True)
    timeout = _check_seconds(timeout, "timeout", allow_zero=False, allow_none=True)
    out = Path(out)
    partial = out.with_name(out.name + ".partial")
    todo = _todo(golden, questions)
    run_settings = _run_settings(settings, k, golden, todo)
    lock = FileLock(Path(str(partial) + ".lock"), blocking=False)
    try:
        lock.acquire()
    except LockHeld as e:
        who = f"process {e.pid}" if e.pid is not None else "another process"
        raise InputError(f"another run ({who}{'' if e.host in (None, HOST) else ' on ' + e.host}) is writing this "
                         f"log; wait for it to finish, or stop it{f' (kill {e.pid})' if e.pid else ''}.",
                         path=partial) from None
    try:
        return _run_locked(search, golden, k, out, partial, todo, run_settings, workers, retries, backoff, timeout,
                           resume, progress)
    finally:
        lock.release()


def _published(out: Path, run_settings: dict) -> dict | None:
    """The settings of a published log ``out`` made with ``run_settings`` (None when there is none); a published
    log made with other settings is an error (it is not overwritten)."""
    if not out.exists():
        return None
    side = Path(str(out) + ".settings.json")
    try:
        final = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        final = None
    if isinstance(final, dict) and {key: final.get(key) for key in run_settings} == run_settings:
        return final
    raise InputError("the log exists, written by another run (other settings, or none recorded); choose another "
                     "output or delete it.", path=out)


def _run_locked(search, golden, k, out, partial, todo, run_settings, workers, retries, backoff, timeout, resume,
                progress) -> RunSummary:
    """:func:`run_retriever` once the lock is held: the partial log started or resumed (:func:`_resume`), the
    pending questions asked (:func:`_ask_all`), the log published with its settings."""
    side = Path(str(partial) + ".settings.json")
    resumed = _resume(out, partial, side, run_settings, todo, resume)
    if isinstance(resumed, RunSummary):
        return resumed
    done, started = resumed
    n_resumed = len(done)
    pending = [(qid, row["question"]) for qid, row in todo.iterrows() if qid not in done]
    needs_doc = not (golden.gold_chunks is not None and len(golden.gold_chunks))
    t0 = time.perf_counter()

    def one(qid, question) -> str:
        return _ask(search, qid, question, k=k, timeout=timeout, retries=retries, backoff=backoff,
                    needs_doc=needs_doc)

    _ask_all(one, pending, partial, done, workers=workers,
             desc=f"retrieving ({out.name})" if progress and pending else None)
    records = [done[q] for q in todo.index if q in done]
    failed = [r["question_id"] for r in records if r.get("error")]
    with atomic_open(partial, "w", encoding="utf-8", newline="\n") as sink:  # a kill here keeps the partial log
        for rec in records:
            sink.write(_json_line(rec) if not rec.get("error") else json.dumps(rec, ensure_ascii=True))
            sink.write("\n")
    final = {**run_settings, "started_at": started, "finished_at": _now(),
             "wall_time_s": round(time.perf_counter() - t0, 3), "workers": workers, "retries": retries,
             "backoff_s": backoff, "timeout_s": timeout, "failed": failed, "resumed_questions": n_resumed,
             **cut_settings(records, k)}
    atomic_write_text(Path(str(out) + ".settings.json"), json.dumps(final, indent=2, ensure_ascii=False))
    os.replace(partial, out)  # published: from here a new start finds it complete (_published)
    side.unlink(missing_ok=True)
    return RunSummary(path=str(out), questions=len(records), failed=failed, resumed=n_resumed,
                      wall_time_s=final["wall_time_s"], complete=False,
                      **{key: final[key] for key in ("kept", "returned", "scores_rise") if key in final})


def _resume(out: Path, partial: Path, side: Path, run_settings: dict, todo, resume: bool):
    """``(done, started)``: the questions a partial log made with the same settings answers already (failed ones
    are asked again) and when it was started -- or a new partial log started (nothing done) -- or the
    :class:`RunSummary` of a log published with these settings (complete). A partial log of other settings, or one
    with ``resume`` False, is an error."""
    done: dict[str, dict] = {}
    if not partial.exists():
        final = _published(out, run_settings)
        if final is not None:  # published before the process that made it could exit: complete
            side.unlink(missing_ok=True)
            return RunSummary(path=str(out), questions=int(final.get("n_questions", len(todo))),
                              failed=list(final.get("failed", [])), resumed=0,
                              wall_time_s=float(final.get("wall_time_s", 0.0)), complete=True)
        out.parent.mkdir(parents=True, exist_ok=True)
        started = _now()
        atomic_write_text(side, json.dumps({**run_settings, "started_at": started}, indent=2, ensure_ascii=False))
        atomic_write_text(partial, "")
        return done, started
    previous = json.loads(side.read_text(encoding="utf-8")) if side.exists() else {}
    same = {k_: previous.get(k_) for k_ in run_settings} == run_settings
    if not resume or not same:
        raise InputError(f"a partial log from a run with {'other' if not same else 'the same'} settings exists; "
                         + ("delete it to start over." if same else "finish it with the same settings, or delete it."),
                         path=partial)
    for _, rec in _records(partial):
        if not rec.get("error"):
            done[rec["question_id"]] = rec
    return done, previous.get("started_at", _now())


def _failure(qid, question, error, attempt) -> str:
    rec = {"question_id": qid, "question": question, "retrieved": [], "error": error, "attempts": attempt}
    return json.dumps(rec, ensure_ascii=True)  # ASCII: a lone surrogate in the message is escaped, not fatal


def _ask(search, qid, question, *, k: int, timeout, retries: int, backoff: float, needs_doc: bool) -> str:
    """The question's log line: what ``search`` returned, checked, with its latency -- or, once ``retries`` more
    attempts (``backoff`` seconds, doubling) failed too, the error."""
    attempt = 0
    while True:
        attempt += 1
        start = time.perf_counter()
        try:
            found = _call(search, question, k, timeout)
        except Exception as e:  # the user's retriever raised (or timed out): retried with backoff, then logged
            if attempt > retries:
                return _failure(qid, question, f"{type(e).__name__}: {e}", attempt)
            time.sleep(backoff * 2 ** (attempt - 1))
            continue
        latency = (time.perf_counter() - start) * 1000
        try:
            items, noted = _validate(found, qid, k, needs_doc)
            return _json_line({"question_id": qid, "question": question, "retrieved": items,
                               "latency_ms": round(latency, 3), "attempts": attempt, **noted})
        except OutputError as e:
            return _failure(qid, question, f"OutputError: {e}", attempt)


def _ask_all(one, pending: list, partial: Path, done: dict, *, workers: int, desc: str | None) -> None:
    """Ask every pending ``(qid, question)`` with ``one`` on ``workers`` threads, each line appended to the partial
    log as it comes (and to ``done``); a progress bar titled ``desc`` unless it is None."""
    lock = threading.Lock()
    bar = None if desc is None else progress_bar(total=len(pending), desc=desc, unit="q", initial=0, leave=True)
    with open(partial, "a", encoding="utf-8") as sink, ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(one, qid, question): qid for qid, question in pending}
        for future in as_completed(futures):
            line = future.result()
            with lock:
                sink.write(line + "\n")
                sink.flush()
                done[futures[future]] = json.loads(line)
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()


def cut_notices(summary: dict, k: int, retriever: str) -> list[str]:
    """What a person running the retriever must be told once about the lists it returned (``summary``: a
    :class:`RunSummary`): a list cut to ``k`` (the first ``k`` kept, in the retriever's order), and -- as a
    warning naming the retriever -- scores that rise down its lists (lowest score first: the kept items are its
    worst). Nothing when neither happened."""
    out = []
    returned = summary.get("returned") or {}
    if returned:
        most = max(returned.values())
        out.append(f"{len(returned)} of {summary['questions']} question(s) got more than {k} items (up to {most}); "
                   f"the log keeps the first {k} of each list in the retriever's order (recorded in its settings).")
    rising = summary.get("scores_rise") or []
    if rising:
        shown = ", ".join(map(str, rising[:5])) + (" ..." if len(rising) > 5 else "")
        out.append(f"warning: retriever {retriever!r} lists its items lowest score first for {len(rising)} of "
                   f"{summary['questions']} question(s) ({shown}): scores rise down the list, so "
                   + (f"the first {k} kept are its worst; return the best first."
                      if returned else "the log's rank 1 is its lowest-scored item; return the best first."))
    return out


def cut_settings(records, k: int) -> dict:
    """What the log's settings record of the lists the retriever returned: ``returned`` -- per question that got
    more than ``k`` items, how many -- with ``kept`` saying the run kept the first ``k`` in the retriever's order;
    ``scores_rise`` -- the questions whose scores rose down the list (:func:`scores_rise`: the kept items are the
    retriever's worst)."""
    returned = {r["question_id"]: int(r["returned"]) for r in records if r.get("returned")}
    rising = [r["question_id"] for r in records if r.get("scores_rise")]
    out = {}
    if returned:
        out |= {"kept": f"the first {k} items of each list, in the retriever's order", "returned": returned}
    if rising:
        out["scores_rise"] = rising
    return out


def _todo(golden, questions=None):
    todo = golden.labelled
    return todo if questions is None else todo[todo.index.isin(set(questions))]


def _run_settings(settings, k, golden, todo) -> dict:
    """What a resumed run must share with the partial one."""
    return json.loads(json.dumps({**(settings or {}), "k": k, "golden": golden.fingerprint(),
                                  "golden_source": golden.source, "n_questions": int(len(todo))}, default=str))


def find_resumable(folder, search_settings: dict, golden, k: int, questions=None) -> Path | None:
    """The final path of the newest unfinished run in ``folder`` started with these settings (None if none): a
    partial log, or a log published by a run killed before it could clean up (its partial settings are left)."""
    wanted = _run_settings(search_settings, k, golden, _todo(golden, questions))
    for side in sorted(Path(folder).glob("*.jsonl.partial.settings.json"), reverse=True):
        partial = side.with_name(side.name[: -len(".settings.json")])
        final = partial.with_name(partial.name[: -len(".partial")])
        if not partial.exists() and not final.exists():
            continue
        try:
            previous = json.loads(side.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(previous, dict) and {key: previous.get(key) for key in wanted} == wanted:
            return final
    return None


def _records(path):
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if line.strip():
                try:
                    yield lineno, json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut off by the interruption: that question runs again

