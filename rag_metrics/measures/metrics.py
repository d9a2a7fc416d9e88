"""Per-question retrieval measures: one precise definition each.

Every function takes

``ranked``
    the retrieved IDs in rank order (a list, tuple, numpy array or pandas Series;
    position 1 first). A set or a string is refused: neither has a rank order.
``gold``
    the judged IDs: a set (or list/tuple) of relevant IDs, each with label 1, or a
    mapping ``ID -> label`` with numeric graded labels.

and returns a ``float``, or ``None`` when the measure is undefined for the question.

Shared rules (docs/metrics.md has them as a table):

* An ID is *relevant* when its label is ``>= min_rel`` (default 1). Labels ``<= 0``
  (including negative ones) are judged not relevant, whatever ``min_rel`` is;
  ``min_rel`` must be ``> 0``. Unjudged IDs are not relevant.
* ``R`` is the number of relevant gold IDs. When ``R == 0`` recall, hit, reciprocal
  rank, nDCG and AP are undefined and return ``None`` (never 0 or 1). Precision@k
  stays defined (it is 0.0: nothing relevant can be retrieved).
* A relevant ID counts once, at its first position, however often it is repeated in
  ``ranked``: later repeats occupy their rank but add nothing. Recall@k <= 1 always.
* ``k`` must be an int >= 1. A ranking shorter than ``k`` is not padded away:
  Precision@k still divides by ``k`` (trec_eval convention).
* Counts (``hits_at_k``, ``num_relevant``, ``num_retrieved``) and ``judged_at_k`` do not
  depend on R being positive and stay defined; ``judged_at_k`` is undefined (``None``) only
  when nothing was retrieved.
* Ties: the order of ``ranked`` is the order. (The TREC reader in
  :mod:`rag_metrics.io.trec` turns scores into an order the way trec_eval does.)

These functions are the readable reference. Whole sets are evaluated by
:func:`rag_metrics.evaluate`, which computes the same values on whole arrays and is
tested to agree with these functions and with trec_eval (pytrec_eval).
"""

from __future__ import annotations

import numpy as np

from rag_metrics.core.errors import InputError, check_gain, check_k, check_min_rel
from rag_metrics.measures.validate import as_gold, as_ranking

__all__ = [
    "recall_at_k",
    "precision_at_k",
    "hit_at_k",
    "reciprocal_rank",
    "ndcg_at_k",
    "average_precision",
    "r_precision",
    "bpref",
    "f1_at_k",
    "hits_at_k",
    "judged_at_k",
    "num_relevant",
    "num_retrieved",
    "sufficiency_at_k",
]


def _prepare(ranked, gold, func: str, min_rel):
    ranked = as_ranking(ranked, func)
    labels = as_gold(gold, func)
    min_rel = check_min_rel(min_rel, func=func)
    relevant = {doc for doc, label in labels.items() if label >= min_rel}
    return ranked, labels, relevant, min_rel


def _first_hits(ranked, relevant, k):
    """1-based positions (within the top k) of the first occurrence of each relevant ID."""
    seen = set()
    positions = []
    for pos, doc in enumerate(ranked[:k] if k is not None else ranked, start=1):
        if doc in relevant and doc not in seen:
            seen.add(doc)
            positions.append(pos)
    return positions


def recall_at_k(ranked, gold, k, *, min_rel=1) -> float | None:
    r"""Recall@k: the share of relevant gold IDs found in the top ``k``.

    .. math:: \mathrm{Recall@k} = \frac{|\{d \in \mathrm{top}_k : \mathrm{rel}(d) \ge \mathrm{min\_rel}\}|}{R}

    Each relevant ID counts once (first occurrence), so the value is in [0, 1].

    Parameters
    ----------
    ranked : sequence
        Retrieved IDs in rank order.
    gold : set or mapping
        Relevant IDs, or ``ID -> label``.
    k : int >= 1
        Cutoff. Fewer than ``k`` results: only those are searched.
    min_rel : float > 0, default 1
        Lowest label that counts as relevant.

    Returns
    -------
    float or None
        ``None`` when no gold ID is relevant (R = 0): undefined, not 0.

    Examples
    --------
    >>> recall_at_k(["a", "b", "a", "c"], {"a", "c"}, k=3)
    0.5
    >>> recall_at_k(["a"], set(), k=3) is None
    True
    """
    k = check_k(k, func="recall_at_k")
    ranked, _, relevant, _ = _prepare(ranked, gold, "recall_at_k", min_rel)
    if not relevant:
        return None
    return len(_first_hits(ranked, relevant, k)) / len(relevant)


def precision_at_k(ranked, gold, k, *, min_rel=1) -> float:
    r"""Precision@k: distinct relevant IDs in the top ``k``, divided by ``k``.

    .. math:: \mathrm{P@k} = \frac{|\{d \in \mathrm{top}_k : \mathrm{rel}(d) \ge \mathrm{min\_rel}\}|}{k}

    The denominator is ``k`` even when fewer than ``k`` results came back (trec_eval
    ``P_k``): returning 2 results, 1 relevant, gives P@10 = 0.1, not 0.5. A repeated
    relevant ID counts once. Defined (0.0) when no gold ID is relevant.

    Examples
    --------
    >>> precision_at_k(["a", "x"], {"a"}, k=10)
    0.1
    >>> precision_at_k(["a", "a"], {"a"}, k=2)
    0.5
    """
    k = check_k(k, func="precision_at_k")
    ranked, _, relevant, _ = _prepare(ranked, gold, "precision_at_k", min_rel)
    return len(_first_hits(ranked, relevant, k)) / k


def hit_at_k(ranked, gold, k, *, min_rel=1) -> float | None:
    """Hit@k (trec_eval ``success_k``): 1.0 if any relevant ID is in the top ``k``, else 0.0.

    ``None`` when no gold ID is relevant.

    Examples
    --------
    >>> hit_at_k(["x", "a"], {"a"}, k=1), hit_at_k(["x", "a"], {"a"}, k=2)
    (0.0, 1.0)
    """
    k = check_k(k, func="hit_at_k")
    ranked, _, relevant, _ = _prepare(ranked, gold, "hit_at_k", min_rel)
    if not relevant:
        return None
    return 1.0 if _first_hits(ranked, relevant, k) else 0.0


def reciprocal_rank(ranked, gold, k=None, *, min_rel=1) -> float | None:
    r"""Reciprocal rank of the first relevant ID: :math:`1/\mathrm{rank}_1`, 0.0 if none.

    With ``k=None`` (default) the whole ranking is searched (trec_eval ``recip_rank``);
    with ``k`` only the top ``k`` (``mrr@k``). The mean over questions is MRR.
    ``None`` when no gold ID is relevant.

    Examples
    --------
    >>> reciprocal_rank(["x", "y", "a"], {"a"})
    0.3333333333333333
    >>> reciprocal_rank(["x", "y", "a"], {"a"}, k=2)
    0.0
    """
    k = check_k(k, func="reciprocal_rank", allow_none=True)
    ranked, _, relevant, _ = _prepare(ranked, gold, "reciprocal_rank", min_rel)
    if not relevant:
        return None
    hits = _first_hits(ranked, relevant, k)
    return 1.0 / hits[0] if hits else 0.0


def _gain_values(values, gain):
    values = np.asarray(values, dtype=float)
    return values if gain == "linear" else np.exp2(values) - 1.0


def ndcg_at_k(ranked, gold, k, *, min_rel=1, gain="linear") -> float | None:
    r"""Normalized discounted cumulative gain at ``k`` (graded).

    .. math::

        \mathrm{DCG@k} = \sum_{i=1}^{\min(k, n)} \frac{g(\ell_i)}{\log_2(i + 1)},\qquad
        \mathrm{nDCG@k} = \frac{\mathrm{DCG@k}}{\mathrm{IDCG@k}}

    where :math:`\ell_i` is the label of the ID at rank ``i`` (0 if unjudged, if below
    ``min_rel``, or if the ID already occurred higher up), and ``g`` is the gain:
    ``"linear"`` :math:`g(\ell)=\ell` (trec_eval ``ndcg_cut``, the default) or
    ``"exponential"`` :math:`g(\ell)=2^\ell-1` (Burges et al.). IDCG@k is the DCG of
    the ideal ranking: all relevant gold IDs sorted by label, descending, cut at ``k``.
    ``k=None`` uses the whole ranking and the whole ideal list (trec_eval ``ndcg``).

    Edge cases: ``None`` when no gold ID is relevant; labels below ``min_rel`` (and
    all labels <= 0) have gain 0. trec_eval gives every positive label its gain
    whatever its relevance level; the two agree for ``min_rel=1`` on integer labels.

    Examples
    --------
    >>> round(ndcg_at_k(["b", "a"], {"a": 2, "b": 1}, k=2), 4)
    0.8597
    >>> round(ndcg_at_k(["b", "a"], {"a": 2, "b": 1}, k=2, gain="exponential"), 4)
    0.7967
    """
    k = check_k(k, func="ndcg_at_k", allow_none=True)
    check_gain(gain, func="ndcg_at_k")
    ranked, labels, relevant, _ = _prepare(ranked, gold, "ndcg_at_k", min_rel)
    if not relevant:
        return None
    positions = _first_hits(ranked, relevant, k)
    seen_at = {}
    for pos in positions:
        seen_at[pos] = labels[ranked[pos - 1]]
    pos = np.array(sorted(seen_at), dtype=float)
    dcg = float(np.sum(_gain_values([seen_at[p] for p in sorted(seen_at)], gain) / np.log2(pos + 1.0)))
    ideal = sorted((labels[d] for d in relevant), reverse=True)
    if k is not None:
        ideal = ideal[:k]
    ideal_pos = np.arange(1, len(ideal) + 1, dtype=float)
    idcg = float(np.sum(_gain_values(ideal, gain) / np.log2(ideal_pos + 1.0)))
    return dcg / idcg


def average_precision(ranked, gold, k=None, *, min_rel=1) -> float | None:
    r"""Average precision (trec_eval ``map``; with ``k``, ``map_cut_k``).

    .. math:: \mathrm{AP@k} = \frac{1}{R} \sum_{i \le k,\ \mathrm{rel}(d_i)} \mathrm{P@i}

    summed over the ranks ``i`` (within the top ``k``, or the whole ranking when
    ``k=None``) holding the first occurrence of a relevant ID. The denominator is
    ``R``, all relevant gold IDs, even those not retrieved or beyond ``k`` (trec_eval).
    ``None`` when no gold ID is relevant.

    Examples
    --------
    >>> average_precision(["a", "x", "b"], {"a", "b", "c"})  # (1/1 + 2/3) / 3
    0.5555555555555555
    """
    k = check_k(k, func="average_precision", allow_none=True)
    ranked, _, relevant, _ = _prepare(ranked, gold, "average_precision", min_rel)
    if not relevant:
        return None
    positions = _first_hits(ranked, relevant, k)
    return sum((n / pos) for n, pos in enumerate(positions, start=1)) / len(relevant)


def r_precision(ranked, gold, *, min_rel=1) -> float | None:
    r"""R-precision (trec_eval ``Rprec``): precision at rank R, R = the number of relevant gold IDs.

    .. math:: \mathrm{Rprec} = \frac{|\{d \in \mathrm{top}_R : \mathrm{rel}(d) \ge \mathrm{min\_rel}\}|}{R}

    A ranking shorter than R still divides by R. ``None`` when no gold ID is relevant
    (trec_eval gives 0 and averages it in).

    Examples
    --------
    >>> r_precision(["a", "x", "b"], {"a", "b"})  # top 2 holds a
    0.5
    """
    ranked, _, relevant, _ = _prepare(ranked, gold, "r_precision", min_rel)
    if not relevant:
        return None
    return len(_first_hits(ranked, relevant, len(relevant))) / len(relevant)


def _distinct(ranked):
    return list(dict.fromkeys(ranked))


def bpref(ranked, gold, *, min_rel=1) -> float | None:
    r"""Binary preference (trec_eval ``bpref``; Buckley & Voorhees, SIGIR 2004), robust to missing judgments.

    .. math:: \mathrm{bpref} = \frac{1}{R} \sum_{r} \left(1 - \frac{\min(n_r, R)}{\min(N, R)}\right)

    over the relevant IDs ``r`` retrieved (first occurrences, whole ranking), where ``n_r`` is the
    number of judged non-relevant IDs ranked above ``r`` and ``N`` the number of judged
    non-relevant gold IDs (label ``>= 0`` and ``< min_rel``). A term is 1 when ``n_r = 0``.
    Unjudged IDs are skipped, and so are IDs with a negative label (trec_eval reads those as
    "in the pool, not judged"). ``None`` when no gold ID is relevant (trec_eval: 0).

    Examples
    --------
    >>> bpref(["a", "n1", "b", "u"], {"a": 1, "b": 1, "c": 1, "n1": 0, "n2": 0})  # (1 + (1 - 1/2)) / 3
    0.5
    """
    ranked, labels, relevant, min_rel = _prepare(ranked, gold, "bpref", min_rel)
    if not relevant:
        return None
    n_nonrel = sum(1 for label in labels.values() if 0 <= label < min_rel)
    r = len(relevant)
    total, nonrel_above = 0.0, 0
    for doc in _distinct(ranked):
        if doc not in labels or labels[doc] < 0:
            continue
        if labels[doc] >= min_rel:
            total += 1.0 - min(nonrel_above, r) / min(n_nonrel, r) if nonrel_above else 1.0
        else:
            nonrel_above += 1
    return total / r


def f1_at_k(ranked, gold, k, *, min_rel=1) -> float | None:
    r"""F1@k: the harmonic mean of Precision@k and Recall@k (as ranx ``f1``).

    .. math:: F_1@k = \frac{2\,P@k\,R@k}{P@k + R@k} = \frac{2\,h}{k + R}

    with ``h`` the relevant IDs in the top ``k`` (0.0 when ``h = 0``). ``None`` when no gold ID
    is relevant (recall is undefined).

    Examples
    --------
    >>> f1_at_k(["a", "x"], {"a", "b"}, k=2)  # P = 1/2, R = 1/2
    0.5
    """
    k = check_k(k, func="f1_at_k")
    ranked, _, relevant, _ = _prepare(ranked, gold, "f1_at_k", min_rel)
    if not relevant:
        return None
    return 2 * len(_first_hits(ranked, relevant, k)) / (k + len(relevant))


def hits_at_k(ranked, gold, k=None, *, min_rel=1) -> float:
    """Hits@k: the number of relevant IDs in the top ``k`` (ranx ``hits``); the whole ranking
    without ``k`` (trec_eval ``num_rel_ret``). A count, defined (0) when no gold ID is relevant.

    >>> hits_at_k(["a", "x", "b", "a"], {"a", "b"}, k=3), hits_at_k(["a", "x", "b"], {"a", "b"})
    (2.0, 2.0)
    """
    k = check_k(k, func="hits_at_k", allow_none=True)
    ranked, _, relevant, _ = _prepare(ranked, gold, "hits_at_k", min_rel)
    return float(len(_first_hits(ranked, relevant, k)))


def judged_at_k(ranked, gold, k, *, min_rel=1) -> float | None:
    """Judged@k (ir_measures ``Judged``): the share of the distinct IDs in the top ``k`` that have any
    judgment in the gold, whatever the label (negative and 0 included).

    The denominator is the number of distinct IDs in the top ``k`` -- ``min(k, n)`` for a ranking
    of ``n`` distinct IDs, as ir_measures. ``None`` when nothing was retrieved. A low value is the
    warning light that a low score may be missing labels rather than bad retrieval. ``min_rel``
    is accepted for a uniform call and has no effect.

    >>> judged_at_k(["a", "x", "b"], {"a": 1, "b": 0}, k=10)
    0.6666666666666666
    """
    k = check_k(k, func="judged_at_k")
    ranked, labels, _, _ = _prepare(ranked, gold, "judged_at_k", min_rel)
    top = _distinct(ranked[:k])
    if not top:
        return None
    return sum(1 for doc in top if doc in labels) / len(top)


def num_relevant(ranked, gold, *, min_rel=1) -> float:
    """R, the number of relevant gold IDs (trec_eval ``num_rel``); ``ranked`` is not used.

    >>> num_relevant([], {"a": 2, "b": 0, "c": 1})
    2.0
    """
    _, _, relevant, _ = _prepare(ranked, gold, "num_relevant", min_rel)
    return float(len(relevant))


def num_retrieved(ranked, gold, *, min_rel=1) -> float:
    """The number of distinct IDs retrieved (trec_eval ``num_ret``); ``gold`` is not used.

    >>> num_retrieved(["a", "b", "a"], set())
    2.0
    """
    ranked, _, _, _ = _prepare(ranked, gold, "num_retrieved", min_rel)
    return float(len(_distinct(ranked)))


def _check_groups(groups, func: str) -> list[frozenset]:
    if isinstance(groups, (str, bytes)) or not hasattr(groups, "__iter__"):
        raise TypeError(f"{func}: 'groups' must be a list of groups of gold IDs, got {groups!r}.")
    out = []
    for group in groups:
        if isinstance(group, (str, bytes)) or not hasattr(group, "__iter__"):
            raise TypeError(f"{func}: each group must be a collection of gold IDs, got {group!r}.")
        members = frozenset(group)
        if not members:
            raise InputError(f"{func}: a group is empty; every group needs at least one gold ID.")
        out.append(members)
    return out


def sufficiency_at_k(ranked, gold, k, *, min_rel=1, groups=None) -> float | None:
    r"""Sufficiency@k: 1.0 if every evidence group has a relevant member in the top ``k``, else 0.0.

    .. math:: \mathrm{Sufficiency}@k = \prod_{g \in G} \mathbb{1}[\exists\, d \in g:
              \mathrm{rel}(d) \ge \mathrm{min\_rel},\ \mathrm{rank}(d) \le k]

    ``groups`` lists the groups of gold IDs a question's answer needs together (a multi-hop
    question: all groups are needed, any member satisfies its group). A member counts when its
    label is ``>= min_rel``: a group without such a member can never be satisfied (0.0). Without
    ``groups`` the relevant gold IDs form one group, so the value is hit@k. ``None`` when no gold
    ID is relevant. Between hit@k ("any gold") and recall@k = 1 ("all gold"):
    ``recall@k == 1  =>  sufficiency@k == 1  =>  hit@k == 1`` when the groups cover the gold.

    Examples
    --------
    >>> groups = [{"policy", "faq"}, {"travel"}]
    >>> sufficiency_at_k(["faq", "x", "travel"], {"policy", "faq", "travel"}, 3, groups=groups)
    1.0
    >>> sufficiency_at_k(["faq", "policy", "x"], {"policy", "faq", "travel"}, 3, groups=groups)  # travel missing
    0.0
    """
    k = check_k(k, func="sufficiency_at_k")
    ranked, labels, relevant, _ = _prepare(ranked, gold, "sufficiency_at_k", min_rel)
    if not relevant:
        return None
    top = set(ranked[:k])
    if groups is None:
        return 1.0 if top & relevant else 0.0
    groups = _check_groups(groups, "sufficiency_at_k")
    if not groups:
        raise InputError("sufficiency_at_k: 'groups' is empty; give at least one group, or None for one group of "
                         "all relevant gold IDs.")
    return 1.0 if all(top & (g & relevant) for g in groups) else 0.0
