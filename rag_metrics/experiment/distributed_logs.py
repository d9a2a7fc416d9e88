"""A retrieval log evaluated out of core on Dask: ranges of the log read, judged and evaluated on the workers.

:func:`evaluate_log(golden, "log.jsonl", corpus, engine="dask") <rag_metrics.experiment.evaluate.evaluate_log>`
comes here when the log is a path of a JSON lines log in the native shape (one record per question, one record per
line). The client never reads the log:

1. **Ranges.** The log is cut into byte ranges of whole lines (:func:`rag_metrics.io.partitions.line_ranges`,
   :data:`LOG_PART_BYTES` each): a record -- one question -- lies in exactly one range, so no question is split
   between two ranges.
2. **On the workers.** Each task reads its range, reads it as a log (the same reader and checks as
   :func:`rag_metrics.io.logs.load_log`), matches it to the golden set and the documents, places the pages, judges
   every item with every judge that applies and evaluates its questions at page, document and chunk level against
   the golden set restricted to them: the steps of ``evaluate_log`` itself, handed over by it
   (:func:`rag_metrics.experiment.evaluate.judge_and_evaluate` and the others), so each range is read and judged
   as one process reads and judges the whole log. The page index is
   built once per worker (:func:`worker_index`), the golden set and the corpus are sent once to every worker. Only
   per-question values (and the failure rows, the unknown and failed questions) leave the worker.
3. **Reduce.** The client joins the per-question values in the golden set's order; the golden set's questions no
   range holds are empty rankings, evaluated by one more task
   (:func:`rag_metrics.measures.distributed.combine_per_question`).

The per-question values and the summary are those :func:`~rag_metrics.experiment.evaluate.evaluate_log` computes in
one process (a test checks it; ``benchmarks/dask_logs.py`` checks it on 10,000 questions). What is not kept are the
rows: the result (:class:`SplitLogResult`) has no judged rows, so the views that need them -- drill-downs, rulers
side by side, the page audit, ``no_answer`` -- say so and name ``engine="local"``.

A question logged twice (in two ranges) or a judge that applies to part of the log only are handled as in one
process: the first is the same error, the second evaluates that judge on every range.
"""

from __future__ import annotations

import json
import os
import tempfile
import uuid
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.io.log_matching import log_key
from rag_metrics.io.log_presets import parse_run_spec
from rag_metrics.io.logs import load_log
from rag_metrics.io.partitions import line_ranges, lines_before, read_range
from rag_metrics.judging.page_index import PageIndex
from rag_metrics.judging.judges import PRIMARY_ORDER, DocumentJudge, MarkerJudge, OverlapJudge, PageJudge
from rag_metrics.measures.distributed import combine_per_question, dask_client
from rag_metrics.experiment.failures import failure_breakdown_judged
from rag_metrics.experiment.result import ExperimentResult

__all__ = ["splits_log", "evaluate_log_split", "SplitLogResult", "worker_index", "LOG_PART_BYTES"]

LOG_PART_BYTES = 16 << 20
"""Bytes of log one task reads (whole records). A worker's peak grows with this, not with the log."""

_JUDGE_ORDER = ("document", "page", "marker", "overlap")  # the order applicable_judges lists them in
_INDEXES: dict = {}  # on a worker: the page index of the corpus being evaluated (one at a time)


def splits_log(log) -> bool:
    """Whether ``log`` is read range by range on Dask: the path of an existing file in the native shape (no
    ``PRESET:`` or field mapping)."""
    if not isinstance(log, (str, os.PathLike)):
        return False
    try:
        spec = parse_run_spec(log)
    except InputError:
        return False
    return not spec.own and Path(spec.path).is_file()


def worker_index(corpus, token: str):
    """The page index of ``corpus``, built once per process for the evaluation ``token`` (the index of a previous
    evaluation is dropped); None without a corpus."""
    if corpus is None:
        return None
    if token not in _INDEXES:
        _INDEXES.clear()
        _INDEXES[token] = PageIndex(corpus)
    return _INDEXES[token]


def _judges_for(names, chosen, min_chars: int, window: int) -> dict:
    """The judge objects of ``names`` (the chosen judge object replacing its namesake)."""
    made = {"document": DocumentJudge(), "page": PageJudge(window=window), "marker": MarkerJudge(window=window),
            "overlap": OverlapJudge(min_chars=min_chars, window=window)}
    if chosen is not None:
        made[chosen.name] = chosen
    return {n: made[n] for n in names}


def _relocated(e: InputError, path, start: int) -> InputError:
    """An error naming a line of the range starting at byte ``start`` of the log ``path``, naming the log's own line
    instead (other errors as they are)."""
    if e.path != str(path) or e.line is None or not start:
        return e
    return type(e)(e.message, path=str(path), line=int(e.line) + lines_before(path, start), question=e.question,
                   field=e.field)


def _range_rows(path, start: int, stop: int, golden, corpus, index, min_chars: int, steps: dict):
    """One range of the log read, matched and placed as :func:`evaluate_log` does the whole log: ``(log, run,
    question map)``; None for a range holding no record."""
    data = read_range(path, start, stop)
    if not data.strip():
        return None
    with tempfile.TemporaryDirectory(prefix="rag-metrics-log-") as folder:
        tmp = Path(folder) / "range.jsonl"
        tmp.write_bytes(data)
        del data
        try:
            log = replace(load_log(tmp), source=str(path))
        except InputError as e:  # named by the range's line; _range_values adds the lines before the range
            raise type(e)(e.message, path=str(path) if e.path == str(tmp) else e.path, line=e.line,
                          question=e.question, field=e.field) from None
    log = steps["prepare"](golden, log, corpus)
    return log, steps["rows"](log, golden, index, min_chars), log.question_map


def _range_values(path, start: int, stop: int, *, golden, corpus, token: str, options: dict, steps: dict,
                  force=()) -> dict | None:
    """One range of the log on a worker: its questions judged and evaluated (module docstring, step 2). Returns
    per-question evaluations, failure rows per judge, the log's keys and lines, the judges that apply to it, its
    unknown and failed questions -- no judged row; None for a range without a record."""
    index = worker_index(corpus, token)
    try:
        got = _range_rows(path, start, stop, golden, corpus, index, options["min_chars"], steps)
        if got is None:
            return None
        log, run, qmap = got
        names_all = steps["judges"](log, corpus)
        names = steps["judges"](log, corpus, run)
        todo = [n for n in _JUDGE_ORDER if n in names or n in force]
        out = {"names_all": names_all, "names": names, "judged": todo, "rows": len(run),
               "keys": [(log_key(q, t), int(line)) for q, t, line in
                        zip(log.questions["question_id"], log.questions["question"], log.questions["line"])],
               "matched": [(qmap[log_key(q, t)], int(line)) for q, t, line in
                           zip(log.questions["question_id"], log.questions["question"], log.questions["line"])
                           if log_key(q, t) in qmap],
               "unknown": list(log.unknown_questions),
               "failed": [qmap[log_key(q, t)] for q, t, e in
                          zip(log.questions["question_id"], log.questions["question"], log.questions["error"])
                          if e is not None and log_key(q, t) in qmap],
               "placed_by": {str(k): int(v) for k, v in run["placed_by"].value_counts().items()},
               "documents": log.documents, "empty": run.iloc[:0].copy(), "start": start}
        questions = list(dict.fromkeys(run["question_id"]))
        out["evaluated"] = questions
        if not questions:
            out.update(pages={}, document=None, chunk=None, failures={})
            return out
        part = golden.subset(questions)
        judges = _judges_for(todo, options["chosen"], options["min_chars"], options["window"])
        judged, pages, document, chunk = steps["judge"](part, run, judges, index, options["measures"],
                                                        chunk_level=options["chunk_level"])
        out.update(pages=pages, document=document, chunk=chunk,
                   failures={n: failure_breakdown_judged(part, judged[n], options["k"]) for n in judges})
        return out
    except InputError as e:
        raise _relocated(e, path, start) from None


def _empty_values(empty: pd.DataFrame, uncovered: list, *, golden, corpus, token: str, options: dict, steps: dict,
                  names: list) -> tuple:
    """Every golden question with nothing retrieved, evaluated on a worker: the ``whole`` of
    :func:`~rag_metrics.measures.distributed.combine_per_question`, and the failure rows of the ``uncovered``
    questions (labelled, in no range) under each judge."""
    index = worker_index(corpus, token)
    judges = _judges_for(names, options["chosen"], options["min_chars"], options["window"])
    judged, pages, document, chunk = steps["judge"](golden, empty, judges, index, options["measures"],
                                                    chunk_level=options["chunk_level"])
    rest = golden.subset(uncovered) if uncovered else None
    failures = {n: (failure_breakdown_judged(rest, judged[n], options["k"]) if rest is not None else None)
                for n in judges}
    return pages, document, chunk, failures


@dataclass(repr=False)
class SplitLogResult(ExperimentResult):
    """An :class:`~rag_metrics.experiment.result.ExperimentResult` of a log evaluated out of core
    (:func:`evaluate_log_split`): every per-question evaluation, summary, slice and failure row, but no log or
    judged rows -- the views built from rows are refused with an error naming ``engine="local"``."""

    def _repr_html_(self) -> str:
        return self.summary().to_html()


_ROW_VIEWS = ("raw_overlap", "ruler_table", "ruler_changes", "ruler_disagreements", "unfindable_gold", "boilerplate",
              "page_audit", "placements", "notices", "answers", "no_answer", "judged_at_k", "generation",
              "explain_data", "explain", "to_trec")


def _refused(name: str):
    def view(self, *args, **kwargs):
        raise InputError(f"{name}: a log evaluated out of core on Dask keeps per-question values only, not the judged "
                         "rows this view is built from; evaluate it with engine='local' (or pass the log as a RunLog "
                         "read with load_log, which the Dask engine keeps in memory).", field="engine")
    view.__name__ = name
    view.__doc__ = f"Refused: needs the judged rows (:meth:`ExperimentResult.{name}`), not kept out of core."
    return view


for _name in _ROW_VIEWS:
    setattr(SplitLogResult, _name, _refused(_name))
SplitLogResult.depth = property(lambda self: _refused("depth")(self), doc="Refused: needs the log's rows.")


def _union(parts: list, key: str) -> list:
    found = {n for p in parts for n in p[key]}
    return [n for n in _JUDGE_ORDER if n in found]


def _check_once(parts: list, path, key: str, what) -> None:
    """A question in two ranges is the error one process gives for a question logged twice."""
    first = {}
    for p in parts:
        offset = None
        for value, line in p[key]:
            if value in first and first[value][0] is not p:
                other, other_line = first[value]
                base = lines_before(path, other["start"])
                offset = lines_before(path, p["start"]) if offset is None else offset
                raise InputError(what(value, other_line + base), path=str(path), line=line + offset,
                                 field="question_id")
            first.setdefault(value, (p, line))


def _collect(futures: list) -> list:
    """The futures' results in their order, each fetched as soon as it is done and released on its worker: a worker
    holds the results of the ranges it is evaluating, not of every range it evaluated."""
    from dask.distributed import as_completed

    where = {f.key: i for i, f in enumerate(futures)}
    out = [None] * len(futures)
    for future in as_completed(futures):
        out[where[future.key]] = future.result()  # an error is raised as it comes
        future.release()
    return out


def evaluate_log_split(golden, log, corpus=None, *, ks, level: str, chosen, min_chars: int, window: int,
                       given, steps: dict, scheduler: str | None = None,
                       part_bytes: int | None = None) -> SplitLogResult:
    """The log at path ``log`` judged and evaluated range by range on Dask (module docstring). ``golden`` and
    ``corpus`` are read already; the other arguments are :func:`~rag_metrics.experiment.evaluate.evaluate_log`'s,
    checked (``chosen``: the judge object asked for, or None; ``given``: the measures asked for, or None).
    ``steps``: ``evaluate_log``'s functions each range runs (``prepare``: match the log, ``rows``: its golden rows,
    pages placed, ``judges``: the judges that apply, ``judge``: judge and evaluate), handed over by it."""
    path = str(parse_run_spec(log).path)
    if level == "chunk" and not (golden.gold_chunks is not None and len(golden.gold_chunks)):
        raise InputError("level='chunk' counts gold chunk IDs, and this golden set gives none (gold_chunks); use "
                         "level='page' or 'document'.", path=golden.source, field="level")
    ranges = line_ranges(path, part_bytes or LOG_PART_BYTES)
    if not ranges:
        raise InputError("file is empty; expected a retrieval log (JSON lines), one JSON object per line.", path=path)
    chunks = bool(golden.gold_chunks is not None and len(golden.gold_chunks))
    options = {"measures": _measures(golden, ks, given), "chunk_level": chunks, "k": max(ks), "chosen": chosen,
               "min_chars": min_chars, "window": window}
    token = uuid.uuid4().hex
    with dask_client(scheduler, reuse=True) as client:
        g, c = client.scatter([golden, corpus], broadcast=True) if corpus is not None else \
            (client.scatter(golden, broadcast=True), None)
        kw = {"golden": g, "corpus": c, "token": token, "options": options, "steps": steps}
        starts, stops = [r[0] for r in ranges], [r[1] for r in ranges]
        parts = [p for p in _collect(client.map(_range_values, [path] * len(ranges), starts, stops, pure=False, **kw))
                 if p is not None]
        _check_parts(parts, path)
        names = _union(parts, "names")
        primary = _primary(chosen, _union(parts, "names_all"), names, path)
        _rejudge(client, path, parts, names, dict(zip(starts, stops)), kw)
        covered = {q for p in parts for q, _ in p["matched"]}
        evaluated = {q for p in parts for q in p["evaluated"]}
        chunk_level = chunks and any(p["rows"] for p in parts)
        options = {**options, "chunk_level": chunk_level}
        kw["options"] = options
        uncovered = [q for q in golden.questions.index if q not in evaluated]
        empty = next(p["empty"] for p in parts)
        whole_pages, whole_document, whole_chunk, whole_failures = client.submit(
            _empty_values, empty, uncovered, names=names, pure=False, **kw).result()
    evaluated = [p for p in parts if p["pages"]]
    pages = {n: combine_per_question([p["pages"][n] for p in evaluated], whole_pages[n], {}) for n in names}
    document = combine_per_question([p["document"] for p in evaluated], whole_document, {})
    chunk = combine_per_question([p["chunk"] for p in evaluated], whole_chunk, {}) if chunk_level else None
    if level == "chunk" and chunk is None:
        raise InputError("level='chunk' needs chunk IDs in the log (chunk_id) to judge against the golden set's.",
                         path=path, field="level")
    failures = _failures(evaluated, whole_failures[primary], primary)
    unknown = [q for p in parts for q in p["unknown"]]
    failed = [q for p in parts for q in p["failed"]]
    missing = [q for q in golden.labelled.index if q not in covered]
    judges = _judges_for(names, chosen, min_chars, window)
    settings = {"log": path, "golden": golden.source, "golden_fingerprint": golden.fingerprint(),
                "corpus": getattr(corpus, "source", None), "ks": list(ks), "primary": primary,
                "judge": judges[primary].params(), "judges": {n: j.params() for n, j in judges.items()},
                "log_fingerprint": None, "read": {"preset": "native", "ranges": len(ranges), "engine": "dask"},
                "placed_by": _placed_by(parts), "run_settings": _run_settings(path), "level": level,
                "measures": given}
    return SplitLogResult(Path(path).stem, golden, None, corpus, None, ks, judges, primary, {}, pages, document,
                          chunk, failures, unknown, missing, failed, _documents(parts), settings, {}, None,
                          level=level)


def _check_parts(parts: list, path: str) -> None:
    """Refuse a log with no record, or with a question logged twice (by ID, or matched twice by ID or text)."""
    if not parts:
        raise InputError("file is empty; expected a retrieval log (JSON lines), one JSON object per line.", path=path)
    _check_once(parts, path, "keys", lambda k, line: f"question {k!r} is logged twice (also at line {line}); "
                "keep one record per question.")
    _check_once(parts, path, "matched", lambda q, line: f"question {q!r} is logged twice (also at line {line}, "
                "by ID or by its text); keep one record per question.")


def _rejudge(client, path: str, parts: list, names, stop_of: dict, kw: dict) -> None:
    """A judge that applies to some ranges only judges the others too, as one process does (``parts`` replaced in
    place; ``stop_of``: each range's end by its start)."""
    redo = [i for i, p in enumerate(parts) if p["rows"] and not set(names) <= set(p["judged"])]
    if not redo:
        return
    again = _collect(client.map(_range_values, [path] * len(redo), [parts[i]["start"] for i in redo],
                                [stop_of[parts[i]["start"]] for i in redo], pure=False, force=tuple(names), **kw))
    for i, p in zip(redo, again):
        parts[i] = p


def _measures(golden, ks, given) -> list:
    """The measures each range evaluates: evaluate_log's defaults for ``ks``, then those asked for."""
    measures = [f"hit@{k}" for k in ks] + ["mrr", f"recall@{max(ks)}"]
    if golden.has_groups:
        measures += [f"sufficiency@{k}" for k in ks]
    return measures + [m for m in given or () if m not in measures]


def _primary(chosen, names_all, names, path) -> str:
    """The headline judge: the one asked for, which must apply to the log (``names_all``) and to its golden
    questions (``names``); else the first of :data:`PRIMARY_ORDER` that applies."""
    primary = None if chosen is None else chosen.name
    if primary is not None and primary not in names_all:
        raise InputError(f"judge {primary!r} does not apply to this log (applicable: {', '.join(names_all)}).",
                         path=path, field="judge")
    if primary is None:
        return next(n for n in PRIMARY_ORDER if n in names)
    if primary not in names:
        raise InputError(f"judge {primary!r} does not apply to this log's questions of the golden set "
                         f"(applicable: {', '.join(names)}).", path=path, field="judge")
    return primary


def _failures(evaluated: list, whole, primary: str) -> pd.DataFrame:
    """The headline judge's failure rows of every range and of the questions no range holds, by question."""
    frames = [p["failures"][primary] for p in evaluated] + [f for f in [whole] if f is not None]
    failures = pd.concat([f for f in frames if len(f)] or frames[:1], ignore_index=True)
    # made again from its rows, as failure_breakdown_judged makes it: each column's type inferred from all its values
    failures = pd.DataFrame(failures.to_dict("records"), columns=failures.columns)
    return failures.sort_values("question_id", kind="stable").reset_index(drop=True)


def _placed_by(parts: list) -> dict:
    """How the logged items' pages were placed, counts summed over the ranges."""
    placed: dict = {}
    for p in parts:
        for k, v in p["placed_by"].items():
            placed[k] = placed.get(k, 0) + v
    return placed


def _documents(parts: list) -> dict:
    """How the logged document IDs matched, summed over the ranges (counts; examples from the first ranges)."""
    out: dict = {}
    for p in parts:
        for k, v in (p["documents"] or {}).items():
            if isinstance(v, int) and not isinstance(v, bool):
                out[k] = out.get(k, 0) + v
            else:
                out.setdefault(k, v)
    return out


def _run_settings(path) -> dict:
    """The run's settings written beside the log by ``rag-metrics run`` (``<log>.settings.json``), if any."""
    beside = Path(str(path) + ".settings.json")
    if not beside.is_file():
        return {}
    try:
        value = json.loads(beside.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"not readable as the run's settings ({type(e).__name__}: {e}); expected the JSON "
                         "`rag-metrics run` writes beside its log. Move or delete it.", path=beside) from None
    return value if isinstance(value, dict) else {}
