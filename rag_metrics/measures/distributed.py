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
from rag_metrics.io.rankings import Run
from rag_metrics.measures.result import Evaluation

__all__ = ["evaluate_partitioned", "evaluate_files", "dask_client", "map_by_question", "combine_per_question"]


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


def evaluate_files(prepared, run: Run, *, scheduler: str | None = None) -> Evaluation:
    """TREC run files on Dask, evaluated by ``prepared`` (an :class:`~rag_metrics.measures.evaluator.Evaluator`): one
    partition per file, shuffled by question (module docstring)."""
    with dask_client(scheduler):
        return evaluate_partitioned(prepared, run.partitions(), files=run.paths)


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

