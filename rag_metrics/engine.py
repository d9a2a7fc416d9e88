"""The array engine behind :func:`rag_metrics.evaluate` and the CLI.

Everything is computed on whole integer-coded arrays: no Python loop per question
or per document. The definitions are those of :mod:`rag_metrics.metrics` (tests
check that both agree); this module only makes them fast.

How: after the run is joined with the gold labels, only the first occurrence of a
relevant ID can add to any measure. Each relevant row carries its original position
``p`` (in the chunk ranking), its de-duplicated rank ``j`` and its ordinal among the
relevant rows of its question. A measure at cutoff ``k`` is then a masked sum per
question (``np.bincount``): rows with ``p <= k`` for cut-then-dedup, ``j <= k`` for
dedup-then-cut, all rows for a measure without cutoff.
"""

from __future__ import annotations

import numpy as np

from .measures import Measure

__all__ = ["compute"]


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


def _gain(labels: np.ndarray, gain: str) -> np.ndarray:
    return labels if gain == "linear" else np.exp2(labels) - 1.0


def compute(
    n_questions: int,
    run_q: np.ndarray,
    run_item: np.ndarray,
    gold_q: np.ndarray,
    gold_item: np.ndarray,
    gold_label: np.ndarray,
    measures: tuple[Measure, ...],
    *,
    min_rel: float = 1.0,
    gain: str = "linear",
    order: str = "cut_then_dedup",
    dedup: bool = True,
) -> dict[str, np.ndarray]:
    """Per-question values of ``measures``; NaN where undefined (no relevant gold).

    Parameters
    ----------
    n_questions : number of questions; question codes are ``0 .. n_questions-1``.
    run_q, run_item : int arrays, one row per retrieved item, **sorted by question and
        then by rank** (the caller orders them). Item codes are shared with ``gold_item``.
    gold_q, gold_item, gold_label : the judged pairs, unique per (question, item).
    dedup : when False the caller guarantees no item repeats within a question.

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
        _, first_idx = np.unique(run_key, return_index=True)
        keep = np.zeros(run_key.shape[0], dtype=bool)
        keep[first_idx] = True
        run_q, run_key, p = run_q[keep], run_key[keep], p[keep]
    # De-duplicated rank j (equals p when nothing repeats).
    j = _group_offsets(run_q) + 1 if dedup else p

    # Join with gold labels through sorted integer keys.
    gold_key = gold_q * n_items + gold_item
    sorter = np.argsort(gold_key, kind="stable")
    gold_key_sorted = gold_key[sorter]
    pos = np.searchsorted(gold_key_sorted, run_key)
    pos_clipped = np.minimum(pos, max(gold_key_sorted.shape[0] - 1, 0))
    matched = (pos < gold_key_sorted.shape[0]) & (gold_key_sorted[pos_clipped] == run_key) if gold_key_sorted.shape[0] else np.zeros(run_key.shape[0], dtype=bool)
    label = np.zeros(run_key.shape[0], dtype=np.float64)
    label[matched] = gold_label[sorter][pos_clipped[matched]]
    rel = label >= min_rel

    return _measures(n_questions, run_q[rel], p[rel], j[rel], label[rel], gold_q, gold_label, n_retrieved,
                     measures, min_rel=min_rel, gain=gain, order=order)


def compute_from_judged(
    n_questions: int,
    q: np.ndarray,
    p: np.ndarray,
    label: np.ndarray,
    gold_q: np.ndarray,
    gold_label: np.ndarray,
    n_retrieved: np.ndarray,
    measures: tuple[Measure, ...],
    *,
    min_rel: float = 1.0,
    gain: str = "linear",
) -> dict[str, np.ndarray]:
    """The same measures from judged retrieved rows only (no repeats within a question).

    ``q``, ``p``, ``label``: question code, 1-based rank and label of each retrieved item
    that has a judgment; ``n_retrieved``: result count per question. Used by the fast TREC
    reader, which joins run and qrels itself.
    """
    q = np.asarray(q, dtype=np.int64)
    p = np.asarray(p, dtype=np.int64)
    label = np.asarray(label, dtype=np.float64)
    order = np.lexsort((p, q))
    q, p, label = q[order], p[order], label[order]
    rel = label >= min_rel
    return _measures(n_questions, q[rel], p[rel], p[rel], label[rel], np.asarray(gold_q, dtype=np.int64),
                     np.asarray(gold_label, dtype=np.float64), np.asarray(n_retrieved), measures,
                     min_rel=min_rel, gain=gain, order="cut_then_dedup")


def _measures(n_questions, rq, rp, rj, rlabel, gold_q, gold_label, n_retrieved, measures, *, min_rel, gain, order):
    """Every measure from the relevant first-occurrence rows, sorted by question then rank."""
    relevant_gold = gold_label >= min_rel
    rj = rj.astype(np.float64)
    rgain = _gain(rlabel, gain)
    rord = (_group_offsets(rq) + 1).astype(np.float64)  # number of relevant rows up to and including this one
    n_rel = np.bincount(gold_q[relevant_gold], minlength=n_questions)
    undefined = n_rel == 0
    n_rel_f = np.where(undefined, 1, n_rel).astype(np.float64)
    # Ideal ranking: relevant gold sorted by gain, descending, per question.
    iq = gold_q[relevant_gold]
    igain = _gain(gold_label[relevant_gold], gain)
    isort = np.lexsort((-igain, iq))
    iq, igain = iq[isort], igain[isort]
    irank = (_group_offsets(iq) + 1).astype(np.float64)
    idisc = igain / np.log2(irank + 1.0)

    # First relevant row of each question (rows are sorted by question, then rank).
    first_row = np.ones(rq.shape[0], dtype=bool)
    if rq.shape[0] > 1:
        first_row[1:] = rq[1:] != rq[:-1]
    fq, fp, fj = rq[first_row], rp[first_row], rj[first_row]

    def within(k, prow, jrow):
        if k is None:
            return np.ones(prow.shape[0], dtype=bool)
        return (prow <= k) if order == "cut_then_dedup" else (jrow <= k)

    def per_q(qs, weights=None):
        return np.bincount(qs, weights=weights, minlength=n_questions).astype(np.float64)

    out: dict[str, np.ndarray] = {}
    for m in measures:
        mask = within(m.k, rp, rj)
        if m.name in ("recall", "precision", "hit"):
            found = per_q(rq[mask])
            if m.name == "recall":
                value = found / n_rel_f
            elif m.name == "precision":
                value = found / m.k
            else:
                value = (found > 0).astype(np.float64)
        elif m.name == "mrr":
            fmask = within(m.k, fp, fj)
            value = per_q(fq[fmask], 1.0 / fj[fmask])
        elif m.name == "ndcg":
            dcg = per_q(rq[mask], rgain[mask] / np.log2(rj[mask] + 1.0))
            imask = np.ones(iq.shape[0], dtype=bool) if m.k is None else irank <= m.k
            idcg = per_q(iq[imask], idisc[imask])
            value = dcg / np.where(idcg > 0, idcg, 1.0)
        elif m.name == "map":
            value = per_q(rq[mask], rord[mask] / rj[mask]) / n_rel_f
        else:  # pragma: no cover - parse_measure guards this
            raise ValueError(f"unknown measure {m}")
        if m.name != "precision":
            value = np.where(undefined, np.nan, value)
        out[str(m)] = value
    out["n_relevant"] = n_rel
    out["n_retrieved"] = n_retrieved
    return out
