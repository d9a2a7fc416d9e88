"""A prepared evaluator: judgments read once, many runs evaluated against them -- and the choice of reader per run.

As ir_measures' ``evaluator(measures, qrels)``: the judgments are parsed, validated and coded once;
each run is then read (once) and evaluated. ``compare``, the run history and a CI gate evaluate many
runs on one golden set this way::

    import rag_metrics as rm

    ev = rm.evaluator("qrels.txt", ["ndcg@10", "mrr", "recall@100"])   # Qrels, DataFrame, GoldenSet, dict or path
    baseline = ev.evaluate("run_a.txt")                                  # Run, DataFrame, dict or path
    candidate = ev.evaluate("run_b.txt")
    candidate.summary                                                    # an Evaluation, as rm.evaluate returns

Which reader serves a run (``engine``; ``settings["engine"]`` of the result says which one did):

* ``"auto"`` (default): a TREC run file ordered by score goes to the columnar readers
  (:mod:`rag_metrics.io.trec_fast`: ``fast/small`` up to 16 MB, else ``fast``), which join it with
  the judgments as they read it; anything they cannot take -- another format, ``order_by="rank"``,
  an unusual file, a doc map on a large file -- to the line-validating reader (``general``). Both give
  identical numbers; a problem is reported by the general reader with its file and line. Runs in
  memory (DataFrames, dicts, :class:`~rag_metrics.io.rankings.Run`) are evaluated as they are
  (``dataframe``).
* ``"fast"``: require the columnar readers (an error says why they cannot be used).
* ``"general"``: the line-validating reader.
* ``"dask"``: the run on a Dask cluster (``scheduler`` address, default a local cluster): a glob or a
  list of TREC files (:meth:`Run.from_files <rag_metrics.io.rankings.Run.from_files>`) or a
  ``dask.dataframe`` (:mod:`rag_metrics.measures.distributed`). A ``dask.dataframe`` run goes to Dask
  whatever the engine.
"""

from __future__ import annotations

import os

from rag_metrics.core.errors import InputError, check_choice
from rag_metrics.io.judgments import Qrels
from rag_metrics.io.rankings import Run
from rag_metrics.measures.prepared import Prepared
from rag_metrics.measures.result import Evaluation

__all__ = ["Evaluator", "evaluator", "ENGINES"]

ENGINES = ("auto", "fast", "general", "dask")


def _is_dask_frame(run) -> bool:
    return type(run).__module__.startswith("dask") and hasattr(run, "map_partitions")


class Evaluator(Prepared):
    """Judgments and options prepared once; :meth:`evaluate` one run after another (module docstring).

    Attributes: ``qrels`` (:class:`~rag_metrics.io.judgments.Qrels`), ``measures`` (parsed), ``level``,
    ``order``, ``min_rel``, ``gain``, ``doc_map`` (read once), ``engine``, ``scheduler``.
    """

    def __init__(self, qrels: Qrels, measures=None, *, engine: str = "auto", scheduler: str | None = None,
                 func: str = "evaluator", **options):
        super().__init__(qrels, measures, func=func, **options)
        check_choice(engine, ENGINES, "engine", func=func)
        self.engine = engine
        self.scheduler = scheduler
        self.func = func

    def __repr__(self) -> str:
        return f"Evaluator({self.qrels!r}, measures={self.names}, level={self.level!r}, engine={self.engine!r})"

    def __call__(self, run, **kwargs) -> Evaluation:
        return self.evaluate(run, **kwargs)

    def evaluate(self, run, *, run_format: str = "auto", order_by: str = "score") -> Evaluation:
        """Evaluate one run against the prepared judgments.

        Parameters
        ----------
        run : Run, DataFrame, mapping, path, glob or list of paths (Dask), or dask DataFrame
            Paths are read as :meth:`Run.from_file <rag_metrics.io.rankings.Run.from_file>` reads them.
        run_format : {"auto", "trec", "json"}
            Format of a run file (``auto``: recognized from the content).
        order_by : {"score", "rank"}
            A run file's order: score descending with ties by ID descending (trec_eval), or its rank column.

        Returns
        -------
        Evaluation
            ``settings["engine"]`` names the reader that read the run.
        """
        if _is_dask_frame(run):
            from rag_metrics.measures.distributed import evaluate_partitioned

            return evaluate_partitioned(self, run, scheduler=self.scheduler)
        if self.engine == "dask":
            if isinstance(run, Run) and run.paths:
                files = run
            elif isinstance(run, (str, os.PathLike, list, tuple)):
                files = Run.from_files(run)
            else:
                raise InputError(f"{self.func}: engine='dask' evaluates TREC run files (a path, a glob or a list) or a "
                                 f"dask DataFrame; got {type(run).__name__}.")
            if run_format not in ("auto", "trec") or order_by != "score" or self.doc_map is not None:
                raise InputError("engine='dask' reads TREC run files and evaluates their IDs as they are, ordered by "
                                 "score (no doc_map, order_by='score').")
            from rag_metrics.measures.distributed import evaluate_files

            return evaluate_files(self, files, scheduler=self.scheduler)
        run = Run.coerce(run, format=run_format, order_by=order_by, func=self.func)
        if run.paths:
            raise InputError(f"{self.func}: a run split across files is evaluated with engine='dask'.")
        coded = run.code(self.qrels, level=self.level, doc_map=self.doc_map, reader=self.engine)
        return self.evaluation(coded, **self.read_settings(run))


def evaluator(golden, measures=None, *, level: str = "document", doc_map=None, order: str = "cut_then_dedup",
              min_rel=1, gain: str = "linear", engine: str = "auto", scheduler: str | None = None,
              golden_format: str = "auto") -> Evaluator:
    """Prepare ``golden`` (judgments) and ``measures`` once, to evaluate many runs (module docstring).

    Parameters
    ----------
    golden : Qrels, DataFrame, GoldenSet, mapping or path
        The judgments: a :class:`~rag_metrics.io.judgments.Qrels`, a tidy golden-set DataFrame (as in
        :func:`rag_metrics.evaluate`), a :class:`~rag_metrics.io.golden.GoldenSet`, a dict
        ``{qid: {docid: label}}``, or a qrels file (TREC, BEIR or JSON; ``golden_format``).
    measures : names, optional
        As in :func:`rag_metrics.evaluate` (default recall@5, precision@5, hit@5, mrr, ndcg@10, map).
    level : {"document", "chunk"}
        What the judged IDs are. ``"document"`` (default): a run of chunks is collapsed to documents
        with ``order`` (using the run's ``doc_id`` or ``doc_map``); a run of documents is judged as it is.
        ``"chunk"``: the run's chunk IDs are judged as they are, each at most once per question.
    doc_map : mapping, Series or path, optional
        ``chunk_id -> doc_id`` (a ``chunk_id<TAB>doc_id`` file): the run's IDs are chunks.
    order : {"cut_then_dedup", "dedup_then_cut"}
        Collapsing order and document rank (:mod:`rag_metrics.measures.collapse`).
    min_rel, gain : as in :func:`rag_metrics.evaluate`.
    engine : {"auto", "fast", "general", "dask"}
        Which reader serves run files (module docstring); ``scheduler``: a Dask scheduler address.

    Returns
    -------
    Evaluator
        ``evaluate(run, *, run_format="auto", order_by="score") -> Evaluation``, for each run.
    """
    if _looks_like_measures(golden) and measures is not None and not _looks_like_measures(measures):
        raise InputError("evaluator takes the judgments first, then the measures: evaluator(qrels, measures) "
                         "(ir_measures writes evaluator(measures, qrels)).")
    qrels = Qrels.coerce(golden, level=level, format=golden_format, func="evaluator")
    return Evaluator(qrels, measures, level=level, doc_map=doc_map, order=order, min_rel=min_rel, gain=gain,
                     engine=engine, scheduler=scheduler)


def _looks_like_measures(value) -> bool:
    from rag_metrics.measures.registry import Measure

    if isinstance(value, Measure):
        return True
    return isinstance(value, (list, tuple, set)) and bool(value) and all(
        isinstance(v, (str, Measure)) and not os.path.exists(str(v)) for v in value)
