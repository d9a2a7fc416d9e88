"""The array kernels behind every evaluation (:func:`rag_metrics.evaluate`, the CLI, every reader).

Everything is computed on whole integer-coded arrays: no Python loop per question
or per document. The definitions are those of :mod:`rag_metrics.measures.metrics` (tests
check that both agree); this module only makes them fast.

How: after the run is joined with the gold labels, only the first occurrence of a
judged ID can add to any measure. Each judged row carries its original position ``p``
(in the chunk ranking), its de-duplicated rank ``j`` and its label; relevant rows also
their ordinal among the relevant rows of their question. These rows, with the gold
labels and the number of results per question, are a :class:`Judged`, and every measure
is a kernel over it (:mod:`rag_metrics.measures.registry`).

One rank per collapsing order, used by every measure (cutoffs, reciprocal ranks, discounts
and precisions alike): under cut-then-dedup a document's rank is ``p``, the position of its
first chunk (what the reader sees); under dedup-then-cut it is ``j``, the de-duplicated rank
(:func:`rag_metrics.measures.collapse.document_ranking`). At cutoff ``k`` a measure is a
masked sum per question (``np.bincount``) over rows whose rank is ``<= k``; without a cutoff,
over all rows. Without repeats (chunk level, TREC runs) ``p == j``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import NamedTuple

import numpy as np

__all__ = ["compute", "compute_from_judged", "Judged", "IdealRanking"]


def _group_offsets(group: np.ndarray) -> np.ndarray:
    """0-based index of each row within its run of equal ``group`` values (rows sorted by group)."""
    n = group.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    idx = np.arange(n, dtype=np.int64)
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(group[1:], group[:-1], out=new[1:])
    start = np.where(new, idx, 0)
    np.maximum.accumulate(start, out=start)
    return idx - start


def compute(
    n_questions: int,
    run_q: np.ndarray,
    run_item: np.ndarray,
    gold_q: np.ndarray,
    gold_item: np.ndarray,
    gold_label: np.ndarray,
    measures: tuple,
    *,
    min_rel: float = 1.0,
    gain: str = "linear",
    order: str = "cut_then_dedup",
    dedup: bool = True,
    groups: tuple | None = None,
) -> dict[str, np.ndarray]:
    """Per-question values of ``measures``; NaN where undefined (no relevant gold).

    Parameters
    ----------
    n_questions : number of questions; question codes are ``0 .. n_questions-1``.
    measures : parsed measures (:class:`~rag_metrics.measures.registry.Measure`; this module reads each one's
        ``spec.kernel``, so it needs no import of the registry, which imports this module's types).
    run_q, run_item : int arrays, one row per retrieved item, **sorted by question and
        then by rank** (the caller orders them). Item codes are shared with ``gold_item``.
    gold_q, gold_item, gold_label : the judged pairs, unique per (question, item).
    dedup : when False the caller guarantees no item repeats within a question.
    groups : ``(group_q, group_item, group_id, group_label)`` int/float arrays, one row per (evidence group, gold
        member), group codes unique over all questions (``sufficiency@k``); None when the gold has no groups.

    Returns
    -------
    dict mapping ``str(measure)`` to a float array of length ``n_questions``, plus
    ``"n_relevant"`` (relevant gold IDs) and ``"n_retrieved"`` (rows handed over,
    before de-duplication), both ints.
    """
    run_q = np.asarray(run_q, dtype=np.int64)
    run_item = np.asarray(run_item, dtype=np.int64)
    gold_q = np.asarray(gold_q, dtype=np.int64)
    gold_item = np.asarray(gold_item, dtype=np.int64)
    gold_label = np.asarray(gold_label, dtype=np.float64)
    n_items = int(max(run_item.max(initial=-1), gold_item.max(initial=-1))) + 1

    n_retrieved = np.bincount(run_q, minlength=n_questions)
    # Original 1-based position in the ranking as handed over (the chunk ranking).
    p = _group_offsets(run_q) + 1
    run_key = run_q * n_items + run_item
    if dedup and run_key.shape[0]:
        keep = _first_occurrences(run_key)
        run_q, run_key, p = run_q[keep], run_key[keep], p[keep]
    # De-duplicated rank j (equals p when nothing repeats).
    j = _group_offsets(run_q) + 1 if dedup else p
    matched, label = _join_labels(run_key, gold_q * n_items + gold_item, gold_label)
    grouping = {} if groups is None else _grouping(groups, run_key[matched] - run_q[matched] * n_items, n_items)
    judged = Judged(n_questions, run_q[matched], p[matched], j[matched], label, gold_q, gold_label, n_retrieved,
                    min_rel=min_rel, gain=gain, order=order, distinct_q=run_q, distinct_p=p, **grouping)
    return judged.values(measures)


def _first_occurrences(run_key: np.ndarray) -> np.ndarray:
    """Mask of the rows whose (question, item) key appears for the first time."""
    _, first_idx = np.unique(run_key, return_index=True)
    keep = np.zeros(run_key.shape[0], dtype=bool)
    keep[first_idx] = True
    return keep


def _join_labels(run_key: np.ndarray, gold_key: np.ndarray, gold_label: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(matched, label)``: which run rows have a judgment (same question and item key), and the label of each
    matched row, joined through the sorted gold keys."""
    sorter = np.argsort(gold_key, kind="stable")
    gold_key_sorted = gold_key[sorter]
    pos = np.searchsorted(gold_key_sorted, run_key)
    pos_clipped = np.minimum(pos, max(gold_key_sorted.shape[0] - 1, 0))
    if gold_key_sorted.shape[0]:
        matched = (pos < gold_key_sorted.shape[0]) & (gold_key_sorted[pos_clipped] == run_key)
    else:
        matched = np.zeros(run_key.shape[0], dtype=bool)
    return matched, gold_label[sorter][pos_clipped[matched]]


def _grouping(groups: tuple, item: np.ndarray, n_items: int) -> dict:
    """The evidence-group fields of a :class:`Judged`: ``groups`` (``group_q, group_item, group_id, group_label``)
    typed, with the item code of each judged row."""
    group_q, group_item, group_id, group_label = (np.asarray(a) for a in groups)
    return {"item": item, "group_q": group_q.astype(np.int64), "group_item": group_item.astype(np.int64),
            "group_id": group_id.astype(np.int64), "group_label": group_label.astype(np.float64), "n_items": n_items}


def compute_from_judged(
    n_questions: int,
    q: np.ndarray,
    p: np.ndarray,
    label: np.ndarray,
    gold_q: np.ndarray,
    gold_label: np.ndarray,
    n_retrieved: np.ndarray,
    measures: tuple,
    *,
    min_rel: float = 1.0,
    gain: str = "linear",
) -> dict[str, np.ndarray]:
    """The same measures from the judged retrieved rows only (no repeats within a question).

    ``q``, ``p``, ``label``: question code, 1-based rank and label of each retrieved item
    that has a judgment; ``n_retrieved``: result count per question. Used by the fast TREC
    reader, which joins run and qrels itself.
    """
    q = np.asarray(q, dtype=np.int64)
    p = np.asarray(p, dtype=np.int64)
    label = np.asarray(label, dtype=np.float64)
    if q.size > 1 and not ((q[1:] > q[:-1]) | ((q[1:] == q[:-1]) & (p[1:] > p[:-1]))).all():  # not yet in order
        order = np.lexsort((p, q))
        q, p, label = q[order], p[order], label[order]
    judged = Judged(n_questions, q, p, p, label, np.asarray(gold_q, dtype=np.int64),
                    np.asarray(gold_label, dtype=np.float64), np.asarray(n_retrieved), min_rel=min_rel, gain=gain)
    return judged.values(measures)


class IdealRanking(NamedTuple):
    """The ideal ranking of every question at once (:attr:`Judged.ideal`), one entry per relevant gold ID."""

    q: np.ndarray
    """The question code of each entry."""
    rank: np.ndarray
    """Its 1-based rank in its question's ideal ranking."""
    discounted: np.ndarray
    """Its gain / log2(rank + 1)."""


@dataclass
class Judged:
    """A run joined with its judgments: everything a measure kernel reads, for all questions at once.

    ``q, p, j, label``: one row per judged retrieved item (its first occurrence), sorted by
    question then position: question code, 1-based position in the ranking as handed over,
    1-based rank after de-duplication, and the gold label (any value, non-relevant ones
    included). ``gold_q, gold_label``: every judged (question, ID) pair. ``n_retrieved``:
    results per question. The ``r*`` properties are the relevant rows (label >= ``min_rel``).
    ``distinct_q, distinct_p``: question and position of every distinct retrieved item (judged or not),
    when the ranking may repeat items; without them every result is distinct.
    ``item``: the item code of each judged row; ``group_q, group_item, group_id, group_label``: one row per
    (evidence group, gold member) with the group's code (unique over all questions) and the member's label --
    given only when the gold has evidence groups (``sufficiency@k``); ``n_items``: item codes are below it.
    """

    n_questions: int
    q: np.ndarray
    p: np.ndarray
    j: np.ndarray
    label: np.ndarray
    gold_q: np.ndarray
    gold_label: np.ndarray
    n_retrieved: np.ndarray
    min_rel: float = 1.0
    gain: str = "linear"
    order: str = "cut_then_dedup"
    distinct_q: np.ndarray | None = None
    distinct_p: np.ndarray | None = None
    item: np.ndarray | None = None
    group_q: np.ndarray | None = None
    group_item: np.ndarray | None = None
    group_id: np.ndarray | None = None
    group_label: np.ndarray | None = None
    n_items: int = 0

    def gain_of(self, labels: np.ndarray) -> np.ndarray:
        return labels if self.gain == "linear" else np.exp2(labels) - 1.0

    def per_q(self, qs: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """Sum (or count) per question: a float array of length ``n_questions``."""
        return np.bincount(qs, weights=weights, minlength=self.n_questions).astype(np.float64)

    def within(self, k: int | None, rows=slice(None)) -> np.ndarray:
        """Which relevant rows (of ``rows``) lie within cutoff ``k``: rank (:attr:`rrank`) ``<= k``."""
        if k is None:
            return np.ones(self.rrank[rows].shape[0], dtype=bool)
        return self.rrank[rows] <= k

    def within_judged(self, k: int | None) -> np.ndarray:
        """Which judged rows (any label) lie within cutoff ``k`` under the collapsing order."""
        if k is None:
            return np.ones(self.q.shape[0], dtype=bool)
        return (self.p <= k) if self.order == "cut_then_dedup" else (self.j <= k)

    @cached_property
    def n_distinct(self) -> np.ndarray:
        """Distinct items retrieved per question."""
        if self.distinct_q is None:
            return np.asarray(self.n_retrieved, dtype=np.float64)
        return self.per_q(self.distinct_q)

    def n_within(self, k: int | None) -> np.ndarray:
        """Distinct items within cutoff ``k``: among the first ``k`` positions (cut_then_dedup), else ``min(k, n)``."""
        if k is None:
            return self.n_distinct
        if self.order == "dedup_then_cut" or self.distinct_q is None:
            return np.minimum(float(k), self.n_distinct)
        return self.per_q(self.distinct_q[self.distinct_p <= k])

    def cumulative_before(self, flags: np.ndarray) -> np.ndarray:
        """For each judged row, how many rows of its question above it have ``flags`` set."""
        flags = flags.astype(np.int64)
        before = np.cumsum(flags) - flags
        if not flags.shape[0]:
            return before
        start = np.r_[True, self.q[1:] != self.q[:-1]]
        first = np.maximum.accumulate(np.where(start, np.arange(flags.shape[0]), 0))
        return before - before[first]

    @cached_property
    def relevant(self) -> np.ndarray:
        return self.label >= self.min_rel

    @cached_property
    def rq(self) -> np.ndarray:
        return self.q[self.relevant]

    @cached_property
    def rrank(self) -> np.ndarray:
        """The rank of each relevant row, as every measure reads it: its position in the ranking as handed
        over (``p``) under cut-then-dedup, its de-duplicated rank (``j``) under dedup-then-cut."""
        return (self.p if self.order == "cut_then_dedup" else self.j)[self.relevant].astype(np.float64)

    @cached_property
    def rgain(self) -> np.ndarray:
        return self.gain_of(self.label[self.relevant])

    @cached_property
    def rord(self) -> np.ndarray:
        """Number of relevant rows of the question up to and including this one."""
        return (_group_offsets(self.rq) + 1).astype(np.float64)

    @cached_property
    def first_relevant(self) -> np.ndarray:
        """Mask of the first relevant row of each question."""
        first = np.ones(self.rq.shape[0], dtype=bool)
        if self.rq.shape[0] > 1:
            first[1:] = self.rq[1:] != self.rq[:-1]
        return first

    @cached_property
    def n_rel(self) -> np.ndarray:
        """R: relevant gold IDs per question."""
        return np.bincount(self.gold_q[self.gold_label >= self.min_rel], minlength=self.n_questions)

    @cached_property
    def undefined(self) -> np.ndarray:
        return self.n_rel == 0

    @cached_property
    def n_rel_safe(self) -> np.ndarray:
        """R as floats, 1 where R = 0 (those questions are masked as undefined afterwards)."""
        return np.where(self.undefined, 1, self.n_rel).astype(np.float64)

    @cached_property
    def ideal(self) -> IdealRanking:
        """The ideal ranking: every question's relevant gold IDs by gain, descending (what nDCG divides by)."""
        relevant = self.gold_label >= self.min_rel
        iq = self.gold_q[relevant]
        igain = self.gain_of(self.gold_label[relevant])
        order = np.lexsort((-igain, iq))
        iq, igain = iq[order], igain[order]
        rank = (_group_offsets(iq) + 1).astype(np.float64)
        return IdealRanking(iq, rank, igain / np.log2(rank + 1.0))

    def values(self, measures) -> dict[str, np.ndarray]:
        """``{str(measure): per-question values}`` with NaN where undefined, plus ``n_relevant`` and ``n_retrieved``.

        A measure with its own relevance level (``ndcg(rel=2)@10``) is computed with that ``min_rel``.
        """
        out: dict[str, np.ndarray] = {}
        at_level: dict[float, Judged] = {self.min_rel: self}
        for m in measures:
            spec = m.spec
            level = self.min_rel if m.rel is None else float(m.rel)
            judged = at_level.setdefault(level, replace(self, min_rel=level))
            value = np.asarray(spec.kernel(judged, m.k), dtype=np.float64)
            if spec.undefined_without_relevant:
                value = np.where(judged.undefined, np.nan, value)
            out[str(m)] = value
        out["n_relevant"] = self.n_rel
        out["n_retrieved"] = np.asarray(self.n_retrieved)
        return out
