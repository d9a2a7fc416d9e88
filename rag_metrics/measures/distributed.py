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
line-numbered TREC reader, :mod:`rag_metrics.io.trec`), shuffles by question and evaluates on the
cluster. A bad line stops the evaluation with the same one-line ``FILE:LINE:`` message as the
in-memory path (the local cluster's worker logs are silenced; the error travels back intact).
"""

from __future__ import annotations

import glob as _glob
import logging

import numpy as np
import pandas as pd

from ..errors import InputError
from .evaluation import Evaluation, evaluate
from .registry import DEFAULT_MEASURES, parse_measures

__all__ = ["evaluate_dask", "evaluate_trec_dask"]


def _check_trec_duplicates(part: pd.DataFrame, files: list) -> None:
    """A document listed twice for one question across files: the error names both places."""
    dup = part.duplicated(["question_id", "doc_id"], keep=False)
    if dup.any():
        rows = part[dup].sort_values(["file", "line"])
        first, second = rows.iloc[0], rows[(rows["question_id"] == rows.iloc[0]["question_id"])
                                            & (rows["doc_id"] == rows.iloc[0]["doc_id"])].iloc[1]
        raise InputError(f"duplicate document {first['doc_id']!r} for question {first['question_id']!r} (also at "
                         f"{files[first['file']]}:{first['line']}); each document may appear once per question.",
                         path=files[second["file"]], line=int(second["line"]))


def _partition_values(part: pd.DataFrame, golden: pd.DataFrame, measures, kwargs, files) -> pd.DataFrame:
    if part.empty:
        return pd.DataFrame()
    if files is not None:  # TREC files: order each question like trec_eval once its rows are together
        from ..io.trec import order_run

        _check_trec_duplicates(part, files)
        part = order_run(part.sort_values(["file", "line"]), order_by="score").rename(columns={"doc_id": "chunk_id"})
    qids = part["question_id"].astype(str)
    gold = golden[golden["question_id"].astype(str).isin(set(qids))]
    known = qids.isin(set(gold["question_id"].astype(str)))
    out = evaluate(gold, part[known.to_numpy()], measures, **kwargs).per_question.reset_index() if len(gold) \
        else pd.DataFrame()
    unknown = part.loc[~known.to_numpy()].drop_duplicates("question_id")
    where = (unknown[["file", "line"]] if files is not None else pd.DataFrame({"file": 0, "line": 0}, index=unknown.index))
    unknown_rows = pd.DataFrame({"unknown": unknown["question_id"].astype(str).to_numpy(),
                                 "u_file": where["file"].to_numpy(), "u_line": where["line"].to_numpy()})
    return pd.concat([out, unknown_rows], ignore_index=True)


def _split_by_question(run) -> bool:
    """Whether some question's rows sit in more than one partition."""
    per_part = run.map_partitions(lambda df: pd.Series(df["question_id"].astype(str).unique()),
                                  meta=pd.Series(dtype=object)).compute()
    return bool(per_part.duplicated().any())


def evaluate_dask(golden: pd.DataFrame, run, measures=None, *, shuffle="auto", _files=None, **kwargs) -> Evaluation:
    """:func:`rag_metrics.evaluate` on a ``dask.dataframe`` run; same arguments, same result."""
    measures = DEFAULT_MEASURES if measures is None else parse_measures(measures)
    if _split_by_question(run):
        if not shuffle:
            raise InputError("evaluate_dask: some question's rows are in several partitions; partition the run by "
                             "question_id (run.shuffle(on='question_id')) or pass shuffle='auto'.")
        run = run.shuffle(on="question_id")
    parts = run.map_partitions(_partition_values, golden, measures, kwargs, _files, meta=pd.DataFrame(),
                               enforce_metadata=False, align_dataframes=False).compute()
    if "unknown" in parts:
        u = parts.dropna(subset=["unknown"]).sort_values(["u_file", "u_line"], kind="stable")
        unknown = tuple(u["unknown"].drop_duplicates())
    else:
        unknown = ()
    values = parts.dropna(subset=["question_id"]) if "question_id" in parts else pd.DataFrame(columns=["question_id"])
    values = values.drop(columns=[c for c in ("unknown", "u_file", "u_line") if c in values]).set_index("question_id")
    # Questions of the golden set with no row anywhere in the run: empty rankings, evaluated in memory.
    id_col = "doc_id" if kwargs.get("level", "document") == "document" else "chunk_id"
    run_cols = ["question_id", "rank", "chunk_id" if (id_col == "chunk_id" or kwargs.get("doc_map") is not None) else "doc_id"]
    missing = golden[~golden["question_id"].astype(str).isin(values.index.astype(str))]
    template = evaluate(golden, pd.DataFrame({c: pd.Series(dtype=object) for c in run_cols}), measures, **kwargs)
    if len(missing):
        empty = evaluate(missing, pd.DataFrame({c: pd.Series(dtype=object) for c in run_cols}), measures, **kwargs)
        values = pd.concat([values, empty.per_question])
    per_question = values.reindex(pd.Index(template.questions, name="question_id"))
    for col in ("n_relevant", "n_retrieved"):
        per_question[col] = per_question[col].astype("int64")
    return Evaluation.from_frame(per_question, measures, unknown_questions=unknown,
                                 settings={**template.settings, "engine": "dask"})


def _read_one(path, index):
    from ..io.trec import read_run

    frame = read_run(path, order_by="score")
    frame["file"] = np.int64(index)
    frame.attrs = {}
    return frame


def evaluate_trec_dask(qrels_path, run_paths, measures, *, min_rel=1, gain="linear", scheduler=None) -> Evaluation:
    """TREC files on Dask: one partition per run file (a glob or a list), shuffled by question."""
    import dask
    import dask.dataframe as dd
    from dask.distributed import Client, LocalCluster

    from ..io.trec import read_qrels

    files = sorted(_glob.glob(run_paths)) if isinstance(run_paths, str) else [str(p) for p in run_paths]
    if not files:
        raise InputError(f"no run file matches {run_paths!r}.")
    qrels = read_qrels(qrels_path).rename(columns={"doc_id": "chunk_id"}).drop(columns="line")
    qrels.attrs = {}
    meta = pd.DataFrame({"question_id": pd.Series(dtype=object), "doc_id": pd.Series(dtype=object),
                         "file_rank": pd.Series(dtype="int64"), "score": pd.Series(dtype="float64"),
                         "line": pd.Series(dtype="int64"), "rank": pd.Series(dtype="int64"),
                         "file": pd.Series(dtype="int64")})
    if scheduler:
        client = Client(scheduler)
    else:
        client = Client(LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0",
                                     silence_logs=logging.CRITICAL))
    try:
        with dask.config.set({"dataframe.convert-string": False}):
            run = dd.from_map(_read_one, files, list(range(len(files))), meta=meta)
            return evaluate_dask(qrels, run, measures, _files=files, level="chunk", min_rel=min_rel, gain=gain)
    finally:
        client.close()
