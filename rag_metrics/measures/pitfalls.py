"""Deliberately wrong computations, kept to show (and to recognise) what other tools report.

Nothing here is a measure to report. Each function reproduces a known mistake so that
a notebook can put the wrong number beside the right one, and an analyst can check
whether a figure from another tool carries the mistake.
"""

from __future__ import annotations

from collections.abc import Mapping

from rag_metrics.core.errors import check_k
from rag_metrics.measures.validate import as_gold, as_ranking

__all__ = ["naive_chunk_recall_at_k"]


def naive_chunk_recall_at_k(ranked_chunk_ids, doc_of, gold_docs, k: int) -> float | None:
    """WRONG on purpose: count every top-``k`` chunk whose document is gold, divide by |gold|.

    This is what a chunk-level counter does when the gold is a set of documents: three
    chunks of one gold document count three times, so "recall" can exceed 1 (the
    llama_index HitRate/AP and trulens recall duplicate bugs). The right figures come
    from :func:`rag_metrics.collapse_to_documents` followed by
    :func:`rag_metrics.recall_at_k`.

    Examples
    --------
    >>> doc_of = {"m1": "manual", "m2": "manual", "m3": "manual", "f1": "faq"}
    >>> naive_chunk_recall_at_k(["m1", "m2", "m3", "f1"], doc_of, {"manual", "faq"}, 3)
    1.5
    """
    k = check_k(k, func="naive_chunk_recall_at_k")
    chunks = as_ranking(ranked_chunk_ids, "naive_chunk_recall_at_k")
    gold = set(as_gold(gold_docs, "naive_chunk_recall_at_k"))
    lookup = doc_of.__getitem__ if isinstance(doc_of, Mapping) else doc_of
    if not gold:
        return None
    return sum(1 for chunk in chunks[:k] if lookup(chunk) in gold) / len(gold)
