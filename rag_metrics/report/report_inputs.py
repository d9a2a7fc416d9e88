"""An experiment report's inputs, read and validated once, and handed to its notebook.

:func:`read_inputs` reads the golden set, the documents, every log and the answers, validating all of them
(bad input is an :class:`~rag_metrics.InputError` naming file, line and field). ``rag-metrics report`` calls it
before anything is written, then hands the validated objects to the notebook through a private cache file
(:func:`write_cache`) instead of letting the notebook read and validate everything again; the notebook calls
:func:`load_inputs`, which takes the cache when it matches the notebook's parameters and the files as they are now
(names, sizes, modification times), and otherwise reads the files itself -- the same reading either way.

:func:`hand_over` does the reading, the run order and the cache in a child process (forked where the system can):
the command then holds none of the inputs while the notebook's kernel works on them, so the two never hold them at
once. The cache is a pickle written by the report command into a folder only its user can read, and removed when the
report is built; :func:`load_inputs` only unpickles a file whose key matches, so point ``cache`` only at files
this command wrote.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from dataclasses import dataclass, field
from pathlib import Path

from rag_metrics.core.errors import InputError, check_choice

__all__ = ["ExperimentInputs", "read_inputs", "check_answers", "write_cache", "load_inputs", "hand_over"]


@dataclass
class ExperimentInputs:
    """``golden`` (GoldenSet), ``corpus`` (Corpus or None), ``logs`` (RunLog per ``--run``, in the order given),
    ``answers`` (the answers table or None); ``unknown``: per log, how many logged questions are not in the golden
    set (not used); ``source``: how they were obtained."""

    golden: object
    corpus: object
    logs: list
    answers: object = None
    unknown: list = field(default_factory=list)
    source: str = "read from the files"


def read_inputs(*, golden, runs, pages=None, answers=None, generator=None, preset: str = "native", fields=None,
                page_base=None, judge: str | None = None) -> ExperimentInputs:
    """Read and validate every input of an experiment report (module docstring).

    Each log is read with its shape (``runs`` may be per-run specs, ``langchain:LOG``:
    :func:`rag_metrics.io.logs.parse_run_spec`), matched to the golden set and the documents as it is read, its
    text-only items refused without the documents (:func:`rag_metrics.experiment.evaluate.prepare_log`), its pages
    checked against the documents (:func:`rag_metrics.judging.page_audit.check_log_pages`) and the headline ``judge``
    refused when it does not apply (:func:`rag_metrics.experiment.evaluate.check_judge`); the answers are joined as
    the report joins them (:func:`check_answers`).
    """
    from rag_metrics.experiment.evaluate import check_judge, prepare_log
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.io.logs import PRESETS, load_log, parse_field_mapping, parse_run_spec
    from rag_metrics.judging.page_audit import check_log_pages

    if not golden:
        raise InputError("an experiment report needs the golden set: --golden FILE.")
    if not runs:
        raise InputError("an experiment report needs at least one retrieval log: --run LOG.")
    check_choice(preset, PRESETS, "preset", what="unknown log", field="preset")
    mapping = parse_field_mapping(fields) if not isinstance(fields, dict) else dict(fields or {})
    corpus = load_corpus(pages) if pages else None
    golden_set = load_golden(golden, corpus=corpus)
    logs, unknown = [], []
    for run in runs:
        spec = parse_run_spec(run)
        log = load_log(spec, preset=preset, fields=mapping, page_base=page_base, golden=golden_set, corpus=corpus)
        if not len(log.questions):
            raise InputError("the log holds no question.", path=spec.path)
        if not log.question_map:  # matched by ID or by text: none of the logged questions is in the golden set
            some = ", ".join(repr(str(q)) for q in list(log.unknown_questions or [])[:3])
            raise InputError(f"none of the log's {len(log.questions)} questions is in the golden set {golden} (by "
                             f"question_id or text; the log's first: {some}).", path=spec.path, field="question_id")
        log = prepare_log(golden_set, log, corpus)
        check_judge(judge, log, corpus)
        check_log_pages(log, corpus)
        logs.append(log)
        unknown.append(len(log.unknown_questions or []))
    table = check_answers(answers, generator, golden_set, corpus) if answers else None
    return ExperimentInputs(golden_set, corpus, logs, table, unknown)


def check_answers(answers, generator, golden_set, corpus=None):
    """The answers file read and checked as the report joins it: one generator's (``generator``; required when the
    file holds several), one per labelled question, each answer's context checked against the documents (``corpus``)
    as the report's diagnosis reads it (:func:`rag_metrics.experiment.answer_support.check_logged_answers`). Returns the
    whole table (the report picks ``generator``)."""
    from rag_metrics.experiment.attribution import join_answers
    from rag_metrics.experiment.answer_support import check_logged_answers
    from rag_metrics.io.corpus import load_answers

    table = load_answers(answers)
    if "question_id" not in table.columns or "generated_answer" not in table.columns:
        raise InputError("expected logged answers with question_id and generated_answer fields.", path=answers)
    if generator is None and "generator" in table.columns and table["generator"].nunique() > 1:
        raise InputError(f"the answers hold several generators ({', '.join(map(str, table['generator'].unique()))});"
                         " choose one with --generator.", path=answers)
    chosen = table
    if generator is not None and "generator" in table.columns:
        if generator not in set(table["generator"]):
            raise InputError(f"no answer of generator {generator!r}; the answers hold "
                             f"{', '.join(map(str, table['generator'].unique()))}.", path=answers, field="generator")
        chosen = table[table["generator"] == generator]
    check_logged_answers(golden_set, chosen, corpus, source=answers)  # file, line and question named
    try:
        join_answers(golden_set, chosen[["question_id", "generated_answer"]])
    except InputError as e:
        raise InputError(e.message, path=answers, question=e.question, field=e.field) from None
    return table


def _stat(path) -> list:
    """What identifies a file's current content cheaply: its resolved path, size and modification time (for a
    folder, those of every file in it)."""
    from rag_metrics.io.logs import parse_run_spec

    p = Path(parse_run_spec(path).path)
    files = sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p, Path(f"{p}.settings.json")]
    out = []
    for q in files:
        try:
            st = q.stat()
        except OSError:
            continue
        out.append([str(q.resolve()), st.st_size, st.st_mtime_ns])
    return out


def _key(golden, runs, pages, answers, generator, preset, fields, page_base) -> str:
    parts = {"golden": _stat(golden), "runs": [[str(r), _stat(r)] for r in runs], "pages": _stat(pages) if pages else None,
             "answers": _stat(answers) if answers else None, "generator": generator, "preset": preset,
             "fields": dict(fields or {}), "page_base": page_base}
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def write_cache(inputs: ExperimentInputs, path, *, golden, runs, pages=None, answers=None, generator=None,
                preset: str = "native", fields=None, page_base=None) -> Path:
    """Write ``inputs`` to ``path`` (readable by its owner only) with the key of the parameters that read them."""
    path = Path(path)
    key = _key(golden, runs, pages, answers, generator, preset, fields, page_base)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        pickle.dump({"key": key, "inputs": inputs}, f, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def load_inputs(cache=None, *, golden, runs, pages=None, answers=None, generator=None, preset: str = "native",
                fields=None, page_base=None) -> ExperimentInputs:
    """The inputs handed over in ``cache`` when it matches these parameters and files, else read from the files."""
    params = dict(golden=golden, runs=list(runs), pages=pages, answers=answers, generator=generator, preset=preset,
                  fields=fields, page_base=page_base)
    if cache and Path(cache).is_file():
        with open(cache, "rb") as f:
            data = pickle.load(f)  # noqa: S301 - written by write_cache for this report (module docstring)
        if isinstance(data, dict) and data.get("key") == _key(**params):
            inputs = data["inputs"]
            inputs.source = "handed over by rag-metrics report (read and validated once)"
            return inputs
    return read_inputs(**params)


def _hand_over(reading: dict, order: str, cache, judge=None) -> dict:
    """Read and validate (:func:`read_inputs`), order the runs, write the cache; what the command prints."""
    from rag_metrics.experiment.history import order_logs

    inputs = read_inputs(**reading, judge=judge)
    ordered = order_logs(inputs.logs, order)
    for log in inputs.logs:  # computed here, it travels with the log: the notebook's evaluation reuses it
        log.fingerprint()
    write_cache(inputs, cache, **reading)
    labelled = set(inputs.golden.labelled.index)
    return {"logs": [{"source": log.source, "questions": len(log.questions), "unknown": unknown,
                      "fingerprint": log.fingerprint(), "labelled": len(labelled),
                      "not_logged": len(labelled - set(log.questions["question_id"]))}
                     for log, unknown in zip(inputs.logs, inputs.unknown)],
            "order": [{"source": e["log"].source, "made_at": e["made_at"], "ordered_by": e["ordered_by"]}
                      for e in ordered]}


def _child(conn, reading, order, cache, judge) -> None:  # pragma: no cover - runs in the forked process
    try:
        conn.send(("ok", _hand_over(reading, order, cache, judge)))
    except InputError as e:
        conn.send(("input", e))
    except BaseException as e:  # noqa: BLE001 - a bug: its traceback goes to the parent
        import traceback

        conn.send(("bug", "".join(traceback.format_exception(e))))
    finally:
        conn.close()


def hand_over(reading: dict, order: str, cache, judge: str | None = None) -> dict:
    """Read and validate every input (``reading``: the keyword arguments of :func:`read_inputs`), order the runs
    (:func:`rag_metrics.experiment.history.order_logs`) and write the cache for the notebook, in a forked child
    process where the system can fork (else here). Returns, per log, its source, questions and questions not in the
    golden set, and the order of the runs; an :class:`~rag_metrics.InputError` is raised here as it was there."""
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover - Windows
        return _hand_over(reading, order, cache, judge)
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, reading, order, cache, judge), daemon=True)
    proc.start()
    child.close()
    try:
        kind, value = parent.recv()
    except EOFError:
        proc.join()
        raise RuntimeError(f"reading the report's inputs failed (the process ended with {proc.exitcode})") from None
    proc.join()
    if kind == "input":
        raise value
    if kind == "bug":
        raise RuntimeError("reading the report's inputs failed:\n" + value)
    return value
