"""Evaluation on Dask, for runs larger than one machine's memory (months of production logs).

Every measure of a question depends only on that question's rows, so a run partitioned by
question is evaluated partition by partition with the same prepared judgments and engine, and the
results are concatenated: the numbers are identical to :func:`rag_metrics.evaluate` on the
whole run (a test checks it on a ``dask.distributed`` LocalCluster).

:func:`evaluate_dask` takes a ``dask.dataframe`` with the run columns of
:func:`rag_metrics.evaluate`. If a question's rows sit in several partitions, the frame is
first shuffled on ``question_id`` (``shuffle="auto"``; pass ``shuffle=False`` to get an
error instead). The golden set (a DataFrame or :class:`~rag_metrics.io.judgments.Qrels`) is
prepared once and sent to every worker. A prepared :func:`rag_metrics.evaluator` sends a
``dask.dataframe`` run here too.

On a real cluster, create the client first and everything runs there::

    from dask.distributed import Client
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
from rag_metrics.io.judgments import Qrels
from rag_metrics.io.rankings import Run
from rag_metrics.measures.prepared import Prepared
from rag_metrics.measures.result import Evaluation

__all__ = ["evaluate_dask", "evaluate_partitioned", "evaluate_files", "dask_client", "judge_and_evaluate_log"]


def _partition_values(part: pd.DataFrame, prepared: Prepared, files) -> pd.DataFrame:
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
        sub = Prepared(local, prepared.measures, level=prepared.level, doc_map=prepared.doc_map,
                       order=prepared.order, min_rel=prepared.min_rel, gain=prepared.gain)
        frames.append(sub.evaluate_table(run).per_question.reset_index())
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


def evaluate_partitioned(prepared: Prepared, run, *, shuffle="auto", files: list | None = None,
                         scheduler: str | None = None) -> Evaluation:
    """A ``dask.dataframe`` run evaluated partition by partition against prepared judgments (module docstring)."""
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
        empty = Prepared(missing, prepared.measures, level=prepared.level, doc_map=prepared.doc_map,
                         order=prepared.order, min_rel=prepared.min_rel, gain=prepared.gain)
        values = pd.concat([values, empty.evaluate_table(Run.from_df(_empty_run())).per_question])
    per_question = values.reindex(pd.Index(list(prepared.qrels.questions), name="question_id"))
    for col in ("n_relevant", "n_retrieved"):
        per_question[col] = per_question[col].astype("int64")
    depth = int(per_question["n_retrieved"].max()) if len(per_question) else 0
    settings = prepared.settings(engine="dask", search_depth=depth, **prepared.read_settings(files=files is not None))
    return Evaluation.from_frame(per_question, prepared.measures, unknown_questions=unknown, settings=settings)


def _empty_run() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=object) for c in ("question_id", "rank", "doc_id", "chunk_id")})


def evaluate_dask(golden, run, measures=None, *, shuffle="auto", **kwargs) -> Evaluation:
    """:func:`rag_metrics.evaluate` on a ``dask.dataframe`` run; same arguments, same result."""
    level = kwargs.get("level", "document")
    qrels = golden if isinstance(golden, Qrels) else Qrels.from_df(golden, level=level)
    return evaluate_partitioned(Prepared(qrels, measures, func="evaluate_dask", **kwargs), run, shuffle=shuffle)


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


def evaluate_files(prepared: Prepared, run: Run, *, scheduler: str | None = None) -> Evaluation:
    """TREC run files on Dask: one partition per file, shuffled by question (module docstring)."""
    with dask_client(scheduler):
        return evaluate_partitioned(prepared, run.partitions(), files=run.paths)


# ---- a retrieval log: judging and per-question values, partitioned by question ------------------------------------

def _golden_subset(golden, questions: set):
    """The golden set restricted to ``questions`` (what the per-question evaluations of a partition read)."""
    from dataclasses import replace

    keep = lambda table: None if table is None else table[table["question_id"].isin(questions)]  # noqa: E731
    extra = {"gold_groups": keep(golden.gold_groups)} if hasattr(golden, "gold_groups") else {}
    return replace(golden, questions=golden.questions[golden.questions.index.isin(questions)], gold=keep(golden.gold),
                   gold_pages=keep(golden.gold_pages), gold_chunks=keep(golden.gold_chunks), **extra)


def _log_partition(part: pd.DataFrame, golden, judges: dict, index, measures, chunk_level: bool) -> dict:
    """Judge one partition's rows with every judge and evaluate its questions (page, document, chunk level)."""
    from rag_metrics.judging.judges import judge_run
    from rag_metrics.measures.pages import evaluate_judged

    sub = _golden_subset(golden, set(part["question_id"]))
    out: dict = {"judged": {}, "pages": {}}
    with_doc = part[part["doc_id"].notna()]
    for name, judge in judges.items():
        out["judged"][name] = judge_run(with_doc, None, sub.gold_pages, judge, index, kept=name == "overlap")
        out["pages"][name] = evaluate_judged(sub, out["judged"][name], measures, judge.params())
    out["document"] = _evaluate(_document_gold(sub), with_doc[["question_id", "rank", "doc_id"]], measures)
    if chunk_level:
        gold_chunks = sub.gold_chunks.merge(sub.gold[["question_id", "type"]].drop_duplicates(), on="question_id")
        out["chunk"] = _evaluate(gold_chunks, part[["question_id", "rank", "chunk_id"]], _chunk_measures(measures),
                                 level="chunk")
    return out


def _document_gold(golden) -> pd.DataFrame:
    """The golden set's document-level gold (with evidence groups when it has them)."""
    return golden.document_gold() if hasattr(golden, "document_gold") else golden.gold


def _chunk_measures(measures) -> list:
    """The measures of the chunk level: no sufficiency (chunk IDs carry no evidence groups)."""
    return [m for m in measures if not str(m).startswith("sufficiency")]


def _evaluate(golden: pd.DataFrame, run: pd.DataFrame, measures, level: str = "document") -> Evaluation:
    """:func:`rag_metrics.evaluate` of two frames (without the engine choice, which would import this module)."""
    return Prepared(Qrels.from_df(golden, level=level), measures, level=level).evaluate_table(Run.from_df(run))


def _combined(parts: list, whole: Evaluation, run_order: dict) -> Evaluation:
    """Per-question values of partitions (and of ``whole``, the questions no partition holds), in ``whole``'s order,
    the run's questions the golden set lacks in the run's order (``run_order``: question -> position): the
    evaluation the whole set would give."""
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


def judge_and_evaluate_log(golden, run: pd.DataFrame, judges: dict, index, measures, *, chunk_level: bool = False,
                           scheduler: str | None = None, partitions: int | None = None) -> tuple:
    """The judging and per-question evaluation of :func:`rag_metrics.experiment.evaluate.evaluate_log`, on Dask.

    ``run`` (the log's rows matched to the golden set) is split by question into ``partitions`` parts (default:
    two per worker), each judged by every judge and evaluated on a worker; the judged rows come back in the
    log's row order and the per-question values in the golden set's order -- the same tables and numbers as one
    process computes. Returns ``(judged, pages, document, chunk)`` as :func:`evaluate_log` uses them.
    """
    from rag_metrics.judging.judges import judge_run
    from rag_metrics.measures.pages import evaluate_judged

    with dask_client(scheduler, reuse=True) as client:
        n_parts = partitions or max(1, 2 * len(client.scheduler_info().get("workers", {})))
        questions = pd.unique(run["question_id"])
        groups = {q: i % n_parts for i, q in enumerate(questions)}
        part_of = run["question_id"].map(groups)
        pieces = [run[part_of == i] for i in range(n_parts) if (part_of == i).any()]
        futures = client.map(_log_partition, pieces, golden=golden, judges=judges, index=index, measures=measures,
                             chunk_level=chunk_level, pure=False)
        results = client.gather(futures)
    # the questions no partition holds (labelled but not in the log): empty rankings, evaluated here
    empty = run.iloc[:0]
    order = {q: i for i, q in enumerate(questions)}
    judged = {name: pd.concat([r["judged"][name] for r in results]).loc[run.index[run["doc_id"].notna()]]
              for name in judges}
    pages = {name: _combined([r["pages"][name] for r in results],
                             evaluate_judged(golden, judge_run(empty, None, golden.gold_pages, judge, index), measures,
                                             judge.params()), order)
             for name, judge in judges.items()}
    document = _combined([r["document"] for r in results],
                         _evaluate(_document_gold(golden), empty[["question_id", "rank", "doc_id"]], measures), order)
    chunk = None
    if chunk_level:
        gold_chunks = golden.gold_chunks.merge(golden.gold[["question_id", "type"]].drop_duplicates(), on="question_id")
        chunk = _combined([r["chunk"] for r in results],
                          _evaluate(gold_chunks, empty[["question_id", "rank", "chunk_id"]], _chunk_measures(measures),
                                    level="chunk"), order)
    return judged, pages, document, chunk
