"""Evaluate a whole golden set: :func:`evaluate` on tidy DataFrames, :func:`evaluate_trec` on qrels and run files.

Both are one call of a prepared evaluator (:func:`rag_metrics.evaluator`, :mod:`.evaluator`) and return
one :class:`~rag_metrics.measures.result.Evaluation`, the one result shape of the package: per-question
values, the summary (mean over defined values, counts and IDs of the excluded), the questions of the
run that are not in the golden set, and the settings. The inputs are read by the typed inputs of
:mod:`rag_metrics.io` (:class:`~rag_metrics.io.judgments.Qrels`, :class:`~rag_metrics.io.rankings.Run`),
which accept these frames and files and also come as arguments themselves.

Golden set (``golden``), one row per question x gold ID:

==============  =====================================================================
question_id     question identifier (required, not null)
doc_id          gold document ID (``level="document"``) -- or ``chunk_id`` at chunk level.
                A null ID declares a question without gold (e.g. ``no_answer``): it is
                evaluated, and its undefined measures are excluded and counted.
relevance       optional graded label (default 1 for every row); finite numbers
group           optional evidence group(s) of the gold ID (``sufficiency@k``): a label, several
                separated by commas or as a list; every gold row of a question has one or none
other columns   question attributes such as ``type``; a column whose value is the same
                on every row of each question becomes a per-question column, usable
                in :meth:`Evaluation.by`.
==============  =====================================================================

Run (``run``), one row per question x retrieved item:

==============  =====================================================================
question_id     question identifier
rank            1 = best. The rank order *is* the ranking (ties are not allowed:
                two rows of one question with the same rank are an error); an integer
                in [1, 2**63 - 1], gaps allowed
chunk_id        retrieved chunk (chunk level; or with ``doc_map`` at document level)
doc_id          the chunk's document (document level, when ``doc_map`` is not given)
score, ...      carried along, not used
==============  =====================================================================

IDs are compared as written: strings as they are, integers in decimal (``101``). A float
column of IDs (pandas' type for integers mixed with nulls) is read as the integers it holds
(``101.0`` is ``101``); a non-integral float, a boolean or any other object is an error
naming the column and the row (by position, as ``df.iloc``). So ``101`` in the golden set
matches ``101`` in the run whatever pandas made of the column.

Frames with the column names of ir_measures and ranx are accepted as they are (``query_id``; a run
with ``score`` and no ``rank`` is ranked like trec_eval). The rules of reading a frame are in
:mod:`rag_metrics.io.frames`.

A question of the golden set without any row in the run is an empty ranking (its
recall is 0, as trec_eval ``-c``), not a missing question. Run rows whose question
is not in the golden set are not used; their question IDs are reported in
``Evaluation.unknown_questions``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rag_metrics.core.errors import check_choice, check_gain, check_min_rel, check_order
from rag_metrics.io.judgments import LEVELS, Qrels, check_level
from rag_metrics.io.rankings import Run
from rag_metrics.measures.evaluator import ENGINES, Evaluator
from rag_metrics.measures.registry import DEFAULT_MEASURES, parse_measures
from rag_metrics.measures.result import JUDGED_WARNING, Evaluation, summarize

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["evaluate", "evaluate_trec", "Evaluation", "summarize", "LEVELS", "ENGINES", "JUDGED_WARNING"]


def _frame_or_typed(value, name: str, typed: type):
    if isinstance(value, typed) or (type(value).__name__ == "DataFrame" and type(value).__module__.startswith("pandas")):
        return value
    raise TypeError(f"evaluate: {name!r} must be a pandas DataFrame or {typed.__name__}, got {type(value).__name__}.")


def evaluate(
    golden: pd.DataFrame | Qrels,
    run: pd.DataFrame | Run,
    measures=None,
    *,
    level: str = "document",
    doc_map=None,
    order: str = "cut_then_dedup",
    min_rel=1,
    gain: str = "linear",
) -> Evaluation:
    """Evaluate every question of ``golden`` against ``run``.

    Parameters
    ----------
    golden : DataFrame or Qrels
        Tidy long form, columns described in this module's docstring (or judgments already read).
    run : DataFrame or Run
        Tidy long form, columns described in this module's docstring (or a run already read).
    measures : iterable of str or Measure, optional
        Names such as ``"recall@5"``, ``"ndcg@10"``, ``"mrr"`` (see
        :func:`rag_metrics.parse_measure`). Default: recall@5, precision@5, hit@5,
        mrr, ndcg@10, map.
    level : {"document", "chunk"}
        ``"document"`` (default): gold is ``golden.doc_id``; the run's chunks are
        collapsed to documents with ``order`` (see
        :func:`rag_metrics.collapse_to_documents`), using ``run.doc_id`` or ``doc_map``.
        ``"chunk"``: gold is ``golden.chunk_id`` and the run's ``chunk_id`` must not
        repeat within a question.
    doc_map : mapping or Series, optional
        ``chunk_id -> doc_id`` at document level, when the run has no ``doc_id``.
    order : {"cut_then_dedup", "dedup_then_cut"}
        Collapsing order at document level, and with it the document rank every measure uses: the
        position of the document's first chunk (cut_then_dedup), or its de-duplicated rank
        (:func:`rag_metrics.measures.collapse.document_ranking`).
    min_rel : float > 0
        Lowest label counted as relevant.
    gain : {"linear", "exponential"}
        nDCG gain.

    Returns
    -------
    Evaluation
    """
    golden = _frame_or_typed(golden, "golden", Qrels)
    run = _frame_or_typed(run, "run", Run)
    check_level(level, "evaluate")
    qrels = golden if isinstance(golden, Qrels) else Qrels.from_df(golden, level=level)
    prepared = Evaluator(qrels, measures, level=level, doc_map=doc_map, order=order, min_rel=min_rel, gain=gain,
                         func="evaluate")
    return prepared.evaluate(run)


def evaluate_trec(
    qrels,
    run,
    measures=None,
    *,
    level: str = "document",
    min_rel=1,
    gain: str = "linear",
    order_by: str = "score",
    doc_map=None,
    order: str = "cut_then_dedup",
    engine: str = "auto",
    scheduler: str | None = None,
    qrels_format: str = "auto",
    run_format: str = "auto",
) -> Evaluation:
    """Evaluate a run file against a qrels file (TREC, or the other formats below), with trec_eval's ordering.

    Parameters
    ----------
    qrels, run : path (or Qrels / Run)
        ``qid iter docid rel`` and ``qid Q0 docid rank score tag`` files (format and rules in
        :mod:`rag_metrics.io.trec`). With ``engine="dask"``, ``run`` may be a glob or a list of
        files (one run split across files).
    measures : names, optional
        As in :func:`evaluate`.
    level : {"document", "chunk"}
        What the qrels judge: documents (default, as TREC qrels do; with ``doc_map`` the run's chunk IDs
        are collapsed to documents with ``order``) or chunks (the run's IDs judged as they are).
        ``settings["level"]`` reports it.
    min_rel, gain : as in :func:`evaluate`.
    order_by : {"score", "rank"}
        ``"score"`` (trec_eval): score descending, ties by document ID descending. ``"rank"``: the
        file's rank column.
    doc_map : mapping or path, optional
        ``chunk_id -> doc_id`` (a dict, or a ``chunk_id<TAB>doc_id`` file): the run's IDs are chunks,
        collapsed to documents with ``order`` and judged against document qrels.
    engine : {"auto", "fast", "general", "dask"}
        Which reader serves the run (:mod:`rag_metrics.measures.evaluator`): ``"auto"`` the columnar
        readers when the files allow it, else the line-validating reader (identical numbers; any problem
        reported with its file and line); ``"fast"`` requires the columnar readers; ``"general"`` the
        line-validating reader; ``"dask"`` a Dask cluster (``scheduler`` address, default a local one).
    qrels_format, run_format : {"auto", "trec", "beir", "json"}
        TREC text (plain or gzip), BEIR qrels TSV, or ranx/ir_measures JSON dicts
        (:mod:`rag_metrics.io.formats`); ``auto`` recognizes them from the content.

    Returns
    -------
    Evaluation
        ``settings["engine"]`` says which path computed the numbers.
    """
    func = "evaluate_trec"
    measures = DEFAULT_MEASURES if measures is None else parse_measures(measures)
    check_level(level, func)
    check_min_rel(min_rel, func=func)
    check_gain(gain, func=func)
    check_order(order, func=func)
    check_choice(engine, ENGINES, "engine", func=func)
    if engine != "dask" and isinstance(run, (str, os.PathLike)):
        run = Run.from_file(run, run_format, order_by=order_by)  # checked now, read when evaluated
    if not isinstance(qrels, Qrels):
        if not isinstance(qrels, (str, os.PathLike)):
            raise TypeError(f"{func}: 'qrels' must be a path or Qrels, got {type(qrels).__name__}.")
        qrels = Qrels.from_file(qrels, qrels_format)
    prepared = Evaluator(qrels, measures, level=level, doc_map=doc_map, order=order, min_rel=min_rel, gain=gain,
                         engine=engine, scheduler=scheduler, func=func)
    return prepared.evaluate(run, run_format=run_format, order_by=order_by)
