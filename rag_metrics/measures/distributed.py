"""Evaluation on Dask, for runs larger than one machine's memory (months of production logs): the mechanics.

Every measure of a question depends only on that question's rows, so a run partitioned by
question is evaluated partition by partition with the same prepared evaluator, and the
results are concatenated: the numbers are identical to :func:`rag_metrics.evaluate` on the
whole run (a test checks it on a ``dask.distributed`` LocalCluster).

This module imports no evaluator: a prepared :class:`~rag_metrics.measures.evaluator.Evaluator` chooses Dask as one
of its readers and hands itself over (its ``qrels``, ``with_qrels``, ``evaluate_table`` and settings are what is used
here). :func:`evaluate_partitioned` takes a
``dask.dataframe`` with the run columns of :func:`rag_metrics.evaluate`
(:func:`rag_metrics.measures.evaluator.evaluate_dask`, or a prepared :func:`rag_metrics.evaluator` given one);
:func:`evaluate_files` one partition per TREC file. If a question's rows sit in several partitions, the frame is
first shuffled on ``question_id`` (``shuffle="auto"``; pass ``shuffle=False`` to get an error instead). The
evaluator is sent to every worker.

For work that is not an evaluation of one run -- the judging and evaluation of a retrieval log
(:func:`rag_metrics.experiment.evaluate.evaluate_log`) -- :func:`map_by_question` runs a function on parts of a
frame split by question, and :func:`combine_per_question` joins the per-question evaluations it returns.

On a real cluster, create the client first and everything runs there::

    from dask.distributed import Client
    from rag_metrics.measures.evaluator import evaluate_dask
    client = Client("tcp://scheduler-host:8786")   # or a dask-jobqueue / Kubernetes cluster
    run = dd.read_parquet("s3://logs/retrieval/2026-*/")     # question_id, rank, doc_id, ...
    result = evaluate_dask(golden, run, ["recall@5", "ndcg@10"])

From the command line, ``rag-metrics evaluate QRELS 'logs/run-*.txt' --engine dask
[--scheduler tcp://host:8786]`` reads each run file as one partition
(:mod:`rag_metrics.io.partitions`, validated with the line-numbered TREC reader), shuffles by
question and evaluates on the cluster. A bad line stops the evaluation with the same one-line
``FILE:LINE:`` message as the in-memory path (the local cluster's worker logs are silenced; the
error travels back intact).
"""

from __future__ import annotations

import logging

import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.io.rankings import Run, join_pieces, plain_bytes, split_by_question
from rag_metrics.measures.evaluation import Evaluation

__all__ = ["evaluate_partitioned", "evaluate_files", "evaluate_split", "dask_client", "map_by_question",
           "combine_per_question"]


def _partition_values(part: pd.DataFrame, prepared, files) -> pd.DataFrame:
    if part.empty:
        return pd.DataFrame()
    if files is not None:  # TREC files: order each question like trec_eval once its rows are together
        run = Run.from_partition(part, files)
    else:
        run = Run.from_df(part)
    qids = pd.Series(run.frame["question_id"]).astype(str)
    asked = set(qids)
    local = prepared.qrels.subset([q for q in prepared.qrels.questions if q in asked])
    frames = []
    if len(local.questions):
        frames.append(prepared.with_qrels(local).evaluate_table(run).per_question.reset_index())
    unknown = part.loc[~qids.isin(set(local.questions)).to_numpy()] if files is None else \
        run.frame.loc[~qids.isin(set(local.questions)).to_numpy()]
    unknown = unknown.drop_duplicates("question_id")
    where = (unknown[["file", "line"]] if files is not None else
             pd.DataFrame({"file": 0, "line": 0}, index=unknown.index))
    frames.append(pd.DataFrame({"unknown": unknown["question_id"].astype(str).to_numpy(),
                                "u_file": where["file"].to_numpy(), "u_line": where["line"].to_numpy()}))
    return pd.concat(frames, ignore_index=True)


def _split_by_question(run) -> bool:
    """Whether some question's rows sit in more than one partition."""
    per_part = run.map_partitions(lambda df: pd.Series(df["question_id"].astype(str).unique()),
                                  meta=pd.Series(dtype=object)).compute()
    return bool(per_part.duplicated().any())


def evaluate_partitioned(prepared, run, *, shuffle="auto", files: list | None = None,
                         scheduler: str | None = None) -> Evaluation:
    """A ``dask.dataframe`` run evaluated partition by partition by ``prepared``, an
    :class:`~rag_metrics.measures.evaluator.Evaluator` (module docstring)."""
    if scheduler and files is None:
        with dask_client(scheduler):
            return evaluate_partitioned(prepared, run, shuffle=shuffle, files=files)
    if _split_by_question(run):
        if not shuffle:
            raise InputError("evaluate_dask: some question's rows are in several partitions; partition the run by "
                             "question_id (run.shuffle(on='question_id')) or pass shuffle='auto'.")
        run = run.shuffle(on="question_id")
    parts = run.map_partitions(_partition_values, prepared, files, meta=pd.DataFrame(),
                               enforce_metadata=False, align_dataframes=False).compute()
    if "unknown" in parts:
        u = parts.dropna(subset=["unknown"]).sort_values(["u_file", "u_line"], kind="stable")
        unknown = tuple(u["unknown"].drop_duplicates())
    else:
        unknown = ()
    values = parts.dropna(subset=["question_id"]) if "question_id" in parts else pd.DataFrame(columns=["question_id"])
    values = values.drop(columns=[c for c in ("unknown", "u_file", "u_line") if c in values]).set_index("question_id")
    # Questions of the golden set with no row anywhere in the run: empty rankings, evaluated in memory.
    seen = set(values.index.astype(str))
    missing = prepared.qrels.subset([q for q in prepared.qrels.questions if q not in seen])
    if len(missing.questions):
        empty = prepared.with_qrels(missing).evaluate_table(Run.from_df(_empty_run()))
        values = pd.concat([values, empty.per_question])
    per_question = values.reindex(pd.Index(list(prepared.qrels.questions), name="question_id"))
    for col in ("n_relevant", "n_retrieved"):
        per_question[col] = per_question[col].astype("int64")
    depth = int(per_question["n_retrieved"].max()) if len(per_question) else 0
    settings = prepared.settings(engine="dask", search_depth=depth, **prepared.read_settings(files=files is not None))
    return Evaluation.from_frame(per_question, prepared.measures, unknown_questions=unknown, settings=settings)


def _empty_run() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=object) for c in ("question_id", "rank", "doc_id", "chunk_id")})


class dask_client:
    """A Dask client for the duration of a ``with`` block: the scheduler at ``address``; else the client already
    running in this process (left open), or a local cluster of two single-threaded worker processes whose logs
    are silenced (errors travel back intact)."""

    def __init__(self, address: str | None = None, *, reuse: bool = False):
        self.address = address
        self.reuse = reuse
        self.owned = True

    def __enter__(self):
        from dask.distributed import Client, LocalCluster, default_client

        if self.address:
            self.client = Client(self.address)
            return self.client
        if self.reuse:
            try:
                self.client = default_client()
                self.owned = False
                return self.client
            except ValueError:
                pass
        self.client = Client(LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0",
                                          silence_logs=logging.CRITICAL))
        return self.client

    def __exit__(self, *exc):
        if not self.owned:
            return False
        cluster = getattr(self.client, "cluster", None) if not self.address else None
        self.client.close()
        if cluster is not None:
            cluster.close()
        return False


SPLIT_BYTES = 256 << 20
"""Plain run files larger than this together (and plain TREC qrels) are split by question (:func:`evaluate_split`);
smaller ones are read one partition per file by the line-validating reader."""
BUCKET_BYTES = 16 << 20
"""Run bytes per bucket of a split run: each bucket is read by the small-file route on one worker."""


def evaluate_files(prepared, run: Run, *, scheduler: str | None = None) -> Evaluation:
    """TREC run files on Dask, evaluated by ``prepared`` (an :class:`~rag_metrics.measures.evaluator.Evaluator`):
    large plain files split by question (:func:`evaluate_split`), others one partition per file, shuffled by
    question (module docstring)."""
    size = plain_bytes(run)
    qrels = prepared.qrels
    if size is not None and size > SPLIT_BYTES and qrels.format == "trec" and qrels.source is not None \
            and plain_bytes(Run.from_files([qrels.source])) is not None:
        return evaluate_split(prepared, run, scheduler=scheduler)
    with dask_client(scheduler):
        return evaluate_partitioned(prepared, run.partitions(), files=run.paths)


# ---- a large run split by question: byte ranges read and bucketed on the workers, each bucket evaluated there ----

def evaluate_split(prepared, run: Run, *, scheduler: str | None = None, scratch=None,
                   bucket_bytes: int | None = None, part_bytes: int | None = None) -> Evaluation:
    """Plain TREC run files and qrels (``prepared.qrels.source``) evaluated out of core on Dask.

    1. Split: the workers read the files in byte ranges of whole lines (``part_bytes``) and write each range's
       lines grouped by question bucket (a hash of the question ID) to ``scratch``: no process holds more than a
       range.
    2. Evaluate: one task per bucket joins the bucket's pieces of the run and of the qrels (every line of a
       question is in one bucket, in file order) and evaluates them with the in-memory readers
       (``engine="auto"``), returning per-question values only.
    3. Reduce: the client places each question's values in the judgments' order.

    The numbers are those of the whole run in one process (a test checks it). ``scratch`` (default
    ``$RAG_METRICS_SCRATCH``, else the temporary folder) must be visible to every worker and to this process, as the
    files must; its pieces are removed at the end. The unknown questions (in the run, not the judgments) are listed
    bucket by bucket, not in the run's order.
    """
    import os
    import shutil
    import tempfile

    n_bytes = plain_bytes(run) or 0
    work = tempfile.mkdtemp(prefix="rag-metrics-split-", dir=scratch or os.environ.get("RAG_METRICS_SCRATCH"))
    try:
        with dask_client(scheduler, reuse=True) as client:
            workers = max(1, len(client.scheduler_info().get("workers", {})))
            n_buckets = max(2 * workers, -(-n_bytes // (bucket_bytes or BUCKET_BYTES)))
            run_pieces = split_by_question(client, run.paths, work, n_buckets=n_buckets, part_bytes=part_bytes,
                                               name="run")
            qrels_pieces = split_by_question(client, [prepared.qrels.source], work, n_buckets=n_buckets,
                                                 part_bytes=part_bytes, name="qrels")
            light = prepared.with_qrels(_no_judgments(prepared.qrels), engine="auto")
            futures = client.map(_bucket_values, qrels_pieces, run_pieces, list(range(n_buckets)), light=light,
                                 work=work, pure=False)
            parts = client.gather(futures)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return _combine_buckets(prepared, parts)


def _no_judgments(qrels):
    """Empty judgments of the same kind (the evaluator sent to the workers carries no judgments)."""
    return type(qrels)([], [], [], source=qrels.source, format=qrels.format, id_column=qrels.id_column)


def _bucket_values(qrels_pieces: list, run_pieces: list, bucket: int, *, light, work) -> dict:
    """One bucket of a split run evaluated on a worker: its questions' values, and its unknown questions."""
    import os

    from rag_metrics.io.judgments import Qrels

    q_path, r_path = os.path.join(work, f"bucket-{bucket:05d}.qrels"), os.path.join(work, f"bucket-{bucket:05d}.run")
    try:
        join_pieces(qrels_pieces, q_path)
        join_pieces(run_pieces, r_path)
        if not qrels_pieces:
            with open(r_path, "rb") as f:
                heads = dict.fromkeys(line.split(None, 1)[0].decode() for line in f if line.strip())
            return {"questions": (), "unknown": tuple(heads)}
        local = light.with_qrels(Qrels.from_file(q_path, "trec"))
        try:
            ev = local.evaluate(r_path, run_format="trec") if run_pieces else local.evaluate_table(
                Run.from_df(_empty_run()))
        except InputError as e:
            raise InputError(f"{e.message} (a line of bucket {bucket} of the split run; evaluate the run file with "
                             "engine='general' to have its own line named)", path=e.path, line=e.line) from None
        return {"questions": ev.questions, "values": ev.values, "n_relevant": ev.n_relevant,
                "n_retrieved": ev.n_retrieved, "unknown": ev.unknown_questions, "engine": ev.settings.get("engine")}
    finally:
        for path in (q_path, r_path):
            if os.path.exists(path):
                os.remove(path)


def _combine_buckets(prepared, parts: list) -> Evaluation:
    """The buckets' values placed in the judgments' question order: what the whole run gives."""
    import numpy as np

    questions = tuple(prepared.qrels.questions)
    position = {q: i for i, q in enumerate(questions)}
    n = len(questions)
    values = {m: np.full(n, np.nan) for m in prepared.names}
    n_relevant, n_retrieved = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    seen = np.zeros(n, dtype=bool)
    for part in parts:
        if not part["questions"]:
            continue
        at = np.fromiter((position[q] for q in part["questions"]), dtype=np.int64, count=len(part["questions"]))
        if seen[at].any():
            raise InputError("a question's judgments were split between buckets: its ID is written in two ways "
                             "(e.g. a leading space); evaluate the files in one process.")
        seen[at] = True
        for m in values:
            values[m][at] = part["values"][m]
        n_relevant[at], n_retrieved[at] = part["n_relevant"], part["n_retrieved"]
    if not seen.all():
        raise InputError("some judged questions reached no bucket of the split run (an internal bug).")
    unknown = tuple(dict.fromkeys(q for part in parts for q in part["unknown"]))
    settings = prepared.settings(engine="dask", search_depth=int(n_retrieved.max(initial=0)),
                                 **prepared.read_settings(files=True))
    return Evaluation(questions, values, n_relevant, n_retrieved, unknown, settings, prepared.qrels.attributes)


# ---- any per-question work: a frame split by question, a function on each part, per-question values joined ------

def map_by_question(func, frame: pd.DataFrame, *, scheduler: str | None = None, partitions: int | None = None,
                    **kwargs) -> list:
    """``func(part, **kwargs)`` for each part of ``frame`` split by ``question_id``, on Dask workers; the results in
    the order of the parts.

    Every question's rows go to one part: the questions, in their order of first appearance, are dealt to
    ``partitions`` parts in turn (default: two per worker); empty parts are left out. ``kwargs`` are sent to
    every worker as they are. The client is ``scheduler``'s, else the one running in this process, else a local
    cluster (:class:`dask_client`).
    """
    with dask_client(scheduler, reuse=True) as client:
        n_parts = partitions or max(1, 2 * len(client.scheduler_info().get("workers", {})))
        groups = {q: i % n_parts for i, q in enumerate(pd.unique(frame["question_id"]))}
        part_of = frame["question_id"].map(groups)
        pieces = [frame[part_of == i] for i in range(n_parts) if (part_of == i).any()]
        return client.gather(client.map(func, pieces, pure=False, **kwargs))


def combine_per_question(parts: list, whole: Evaluation, run_order: dict) -> Evaluation:
    """One evaluation from the evaluations of parts of a run split by question: what the whole run would give.

    ``parts`` hold disjoint questions; ``whole`` is the evaluation of all the golden set's questions with
    nothing retrieved (it gives the questions' order, the values of the questions no part holds -- empty
    rankings -- and the settings). The run's questions the golden set lacks are listed in the run's order
    (``run_order``: question -> position; others last); ``search_depth`` is recomputed over all questions.
    """
    tables = [p.per_question for p in parts]
    seen = set().union(*(set(t.index) for t in tables)) if tables else set()
    rest = whole.per_question[~whole.per_question.index.isin(seen)]
    per_question = pd.concat([*tables, rest]).reindex(whole.per_question.index)
    for col in ("n_relevant", "n_retrieved"):
        per_question[col] = per_question[col].astype("int64")
    unknown = tuple(sorted(dict.fromkeys(q for p in (*parts, whole) for q in p.unknown_questions),
                           key=lambda q: run_order.get(q, len(run_order))))
    depth = int(per_question["n_retrieved"].max()) if len(per_question) else 0
    settings = {**whole.settings, "search_depth": depth} if "search_depth" in whole.settings else dict(whole.settings)
    return Evaluation.from_frame(per_question, whole.measures, unknown_questions=unknown, settings=settings)

