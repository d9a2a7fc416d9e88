"""A run coded against judgments: integer arrays, the hand-over from reading (:mod:`rag_metrics.io`) to the measures.

Built by :func:`rag_metrics.io.rankings.code_run` (a run read whole) and by the columnar readers of
:mod:`rag_metrics.io.trec_fast` (which keep only the judged rows of a large run); read by
:class:`rag_metrics.measures.evaluator.Evaluator`. No string reaches the measures.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["CodedRun"]


@dataclass(frozen=True)
class CodedRun:
    """A run joined with judgments as integer arrays, for the array kernels (:mod:`rag_metrics.measures.arrays`).

    Questions are coded by their position in ``Qrels.questions``. Either every retrieved row is given --
    ``run_q, run_item`` sorted by question then rank, items coded like ``gold_item`` -- or, from the columnar
    readers, only the judged rows: ``judged = (q, p, label)`` with ``p`` the 1-based position, and
    ``n_retrieved`` per question. ``dedup``: an item may repeat within a question (chunks mapped to
    documents); then the measures count it once, at its first position. ``unknown_questions``: questions of
    the run the judgments do not hold (not used), in order of first appearance. ``reader``: which path read it.
    ``groups``: the judgments' evidence groups, ``(group_q, group_item, group_id, group_label)`` (``sufficiency@k``),
    when they have any (the columnar readers step aside for such judgments).
    """

    n_questions: int
    gold_q: np.ndarray
    gold_item: np.ndarray
    gold_label: np.ndarray
    run_q: np.ndarray | None = None
    run_item: np.ndarray | None = None
    judged: tuple | None = None
    n_retrieved: np.ndarray | None = None
    dedup: bool = False
    unknown_questions: tuple = ()
    reader: str = "dataframe"
    groups: tuple | None = None
