"""Evaluation on Dask, for runs larger than one machine's memory (months of production logs).

Every measure of a question depends only on that question's rows, so a run partitioned by
question is evaluated partition by partition with the same in-memory engine, and the
results are concatenated: the numbers are identical to :func:`rag_metrics.evaluate` on the
whole run (a test checks it on a ``dask.distributed`` LocalCluster).

:func:`evaluate_dask` takes a ``dask.dataframe`` with the run columns of
:func:`rag_metrics.evaluate`. If a question's rows sit in several partitions, the frame is
first shuffled on ``question_id`` (``shuffle="auto"``; pass ``shuffle=False`` to get an
error instead). The golden set is an ordinary pandas DataFrame, sent to every worker.

On a real cluster, create the client first and everything runs there::

    from dask.distributed import Client
    client = Client("tcp://scheduler-host:8786")   # or a dask-jobqueue / Kubernetes cluster
    run = dd.read_parquet("s3://logs/retrieval/2026-*/")     # question_id, rank, doc_id, ...
    result = evaluate_dask(golden, run, ["recall@5", "ndcg@10"])

From the command line, ``rag-metrics evaluate QRELS 'logs/run-*.txt' --engine dask
[--scheduler tcp://host:8786]`` reads each run file as one partition (validated with the
line-numbered TREC reader), shuffles by question and evaluates on the cluster.
"""

from __future__ import annotations

import glob as _glob

import pandas as pd

from .evaluation import Evaluation, evaluate, summarize
from .measures import DEFAULT_MEASURES, parse_measures

__all__ = ["evaluate_dask", "evaluate_trec_dask"]


def _partition_values(part: pd.DataFrame, golden: pd.DataFrame, measures, kwargs, reorder: bool) -> pd.DataFrame:
    if part.empty:
        return pd.DataFrame()
    if reorder:  # TREC files: order each question like trec_eval once its rows are together
        from .trec import order_run

        part = order_run(part, order_by="score")
        part = part.rename(columns={"doc_id": "chunk_id"})
    questions = part["question_id"].astype(str).unique()
    gold = golden[golden["question_id"].astype(str).isin(questions)]
    known = part["question_id"].astype(str).isin(gold["question_id"].astype(str))
    ev = evaluate(gold, part[known], measures, **kwargs) if len(gold) else None
    out = ev.per_question.copy() if ev is not None else pd.DataFrame()
    unknown = pd.DataFrame({"unknown": sorted(set(questions) - set(gold["question_id"].astype(str)))})
    out.attrs = {}
    return pd.concat([out.reset_index(), unknown], ignore_index=True)


def _split_by_question(run) -> bool:
    """Whether some question's rows sit in more than one partition."""
    per_part = run.map_partitions(lambda df: pd.Series(df["question_id"].astype(str).unique()),
                                  meta=pd.Series(dtype=object)).compute()
    return bool(per_part.duplicated().any())


def evaluate_dask(golden: pd.DataFrame, run, measures=None, *, shuffle="auto", _reorder: bool = False,
                  **kwargs) -> Evaluation:
    """:func:`rag_metrics.evaluate` on a ``dask.dataframe`` run; same arguments, same result."""
    measures = DEFAULT_MEASURES if measures is None else parse_measures(measures)
    if _split_by_question(run):
        if not shuffle:
            raise ValueError("evaluate_dask: some question's rows are in several partitions; "
                             "partition the run by question_id (run.shuffle(on='question_id')) or pass shuffle='auto'.")
        run = run.shuffle(on="question_id")
    parts = run.map_partitions(_partition_values, golden, measures, kwargs, _reorder, meta=pd.DataFrame(),
                               enforce_metadata=False, align_dataframes=False).compute()
    unknown = tuple(parts["unknown"].dropna()) if "unknown" in parts else ()
    values = parts.dropna(subset=["question_id"]) if "question_id" in parts else pd.DataFrame(columns=["question_id"])
    values = values.drop(columns=[c for c in ("unknown",) if c in values]).set_index("question_id")
    # Questions of the golden set with no row anywhere in the run: empty rankings, evaluated in memory.
    id_col = "doc_id" if kwargs.get("level", "document") == "document" else "chunk_id"
    run_cols = ["question_id", "rank", "chunk_id" if (id_col == "chunk_id" or kwargs.get("doc_map") is not None) else "doc_id"]
    missing = golden[~golden["question_id"].astype(str).isin(values.index.astype(str))]
    if len(missing):
        empty = evaluate(missing, pd.DataFrame(columns=run_cols), measures, **kwargs).per_question
        values = pd.concat([values, empty])
    order = pd.Index(pd.unique(golden["question_id"].astype(str)), name="question_id")
    per_question = values.reindex(order)
    names = [str(m) for m in measures]
    template = evaluate(golden.head(0), pd.DataFrame(columns=run_cols), measures, **kwargs)
    for col in ("n_relevant", "n_retrieved"):
        per_question[col] = per_question[col].astype("int64")
    return Evaluation(per_question, summarize(per_question, names), unknown, {**template.settings, "engine": "dask"})


def evaluate_trec_dask(qrels_path, run_paths, measures, *, min_rel=1, gain="linear", scheduler=None):
    """TREC files on Dask: one partition per run file (a glob or a list), shuffled by question."""
    import dask
    import dask.dataframe as dd
    from dask.distributed import Client, LocalCluster

    from .errors import InputError
    from .trec import read_qrels, read_run

    files = sorted(_glob.glob(run_paths)) if isinstance(run_paths, str) else list(run_paths)
    if not files:
        raise InputError(f"no run file matches {run_paths!r}.")
    qrels = read_qrels(qrels_path).rename(columns={"doc_id": "chunk_id"}).drop(columns="line")
    meta = pd.DataFrame({"question_id": pd.Series(dtype=object), "doc_id": pd.Series(dtype=object),
                         "file_rank": pd.Series(dtype="int64"), "score": pd.Series(dtype="float64"),
                         "line": pd.Series(dtype="int64"), "rank": pd.Series(dtype="int64")})
    client = Client(scheduler) if scheduler else Client(LocalCluster(n_workers=2, threads_per_worker=1,
                                                                     dashboard_address=None))
    try:
        with dask.config.set({"dataframe.convert-string": False}):
            run = dd.from_map(read_run, files, meta=meta)
            ev = evaluate_dask(qrels, run, measures, _reorder=True, level="chunk", min_rel=min_rel, gain=gain)
    finally:
        client.close()
    values = {str(m): ev.per_question[str(m)].to_numpy(dtype=float) for m in parse_measures(measures)}
    return list(ev.per_question.index), values, list(ev.unknown_questions)
