"""The levels an evaluated log is measured at -- gold pages under a judge, gold documents, gold chunk IDs -- and any
measure at any cutoff at each of them.

:func:`evaluate_documents` and :func:`evaluate_chunks` are the document- and chunk-level evaluations of a log's rows
(:func:`rag_metrics.experiment.evaluate.judge_and_evaluate` calls them for every log; page level is
:func:`rag_metrics.measures.page_level.evaluate_judged` of the rows a judge judged). :func:`at_level` picks an
evaluated run's evaluation; :func:`measure_values` reads a measure from it or, for a measure it was not evaluated
at (``hit@7`` after ``ks=(1, 3, 5)``), computes it with the same functions from the rows already judged.
"""

from __future__ import annotations

import pandas as pd

from rag_metrics.core.errors import InputError, check_choice
from rag_metrics.measures.evaluator import evaluate
from rag_metrics.measures.page_level import evaluate_judged
from rag_metrics.measures.registry import parse_measure

__all__ = ["LEVELS", "evaluate_documents", "evaluate_chunks", "at_level", "measure_values", "judge_name"]

LEVELS = ("page", "document", "chunk")
"""What an evaluation counts: gold pages (under a judge), gold documents or gold chunk IDs."""


def evaluate_documents(golden, run: pd.DataFrame, measures):
    """Document level: the rows with a document (``question_id``, ``rank``, ``doc_id``) against the gold documents
    (evidence groups give ``sufficiency@k``, :meth:`~rag_metrics.io.golden.GoldenSet.document_gold`); chunks of one
    document are collapsed cut-then-dedup (:mod:`rag_metrics.measures.collapse`)."""
    with_doc = run if run["doc_id"].notna().all() else run[run["doc_id"].notna()]
    return evaluate(golden.document_gold(), with_doc[["question_id", "rank", "doc_id"]], measures)


def evaluate_chunks(golden, run: pd.DataFrame, measures):
    """Chunk level: the rows' chunk IDs against the gold chunk IDs, without ``sufficiency@k`` (chunk IDs carry no
    evidence groups)."""
    return evaluate(golden.chunk_gold(), run[["question_id", "rank", "chunk_id"]],
                    [m for m in measures if not str(m).startswith("sufficiency")], level="chunk")


def judge_name(result, judge) -> str:
    """The name of the page judge ``judge`` (a name or a judge object; None: ``result``'s primary judge), refused
    unless it is one of the judges that applied to ``result``."""
    name = result.primary if judge is None else getattr(judge, "name", judge)
    return check_choice(name, tuple(result.pages), "judge", func="this result (the judges that applied)")


def at_level(result, level: str | None = None, judge=None):
    """``result``'s :class:`~rag_metrics.Evaluation` at ``level`` (default ``result.level``): page level under
    ``judge`` (a name or judge object; default the primary judge), document or chunk level (no judge: an error)."""
    level = result.level if level is None else check_choice(level, LEVELS, "level")
    if level == "page":
        return result.pages[judge_name(result, judge)]
    if judge is not None:
        raise InputError(f"a judge decides which pages count: it applies at level='page', not at level={level!r}, "
                         "where gold documents or chunk IDs are matched by ID.", field="judge")
    if level == "chunk" and result.chunk is None:
        raise InputError("no chunk-level evaluation: it needs gold chunk IDs in the golden set (gold_chunks) and chunk "
                         "IDs in the log.", field="level")
    return result.document if level == "document" else result.chunk


def measure_values(result, measure, level: str | None = None, judge=None) -> pd.Series:
    """Per-question values of ``measure`` (any name :func:`~rag_metrics.parse_measure` reads) at ``level`` under
    ``judge`` (:func:`at_level`), indexed by question ID in the evaluation's order: the evaluation's own column when
    it has the measure, else computed once from the rows already judged and kept on ``result``."""
    name = str(parse_measure(measure))
    ev = at_level(result, level, judge)
    if name in ev.values:
        return pd.Series(ev.values[name], index=pd.Index(list(ev.questions), name="question_id"), name=name)
    level = result.level if level is None else level
    who = judge_name(result, judge) if level == "page" else None
    key = ("values", level, who, name)
    if key not in result._cache:
        if level == "page":
            extra = evaluate_judged(result.golden, result.judged[who], [name], result.judges[who].params())
        elif level == "document":
            extra = evaluate_documents(result.golden, result.run, [name])
        else:
            extra = evaluate_chunks(result.golden, result.run, [name])
        result._cache[key] = pd.Series(extra.values[name], index=pd.Index(list(extra.questions), name="question_id"),
                                       name=name).reindex(list(ev.questions))
    return result._cache[key]
