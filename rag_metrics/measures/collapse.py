"""Chunk -> document collapsing, with the order of cutting and de-duplicating made explicit."""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import InputError, check_k, check_order
from .inputs import as_ranking

__all__ = ["collapse_to_documents"]


def collapse_to_documents(ranked_chunk_ids, doc_of, k: int | None = None, *, order: str = "cut_then_dedup") -> list:
    """Map a chunk ranking to a document ranking, each document once.

    Parameters
    ----------
    ranked_chunk_ids : sequence
        Chunk IDs in rank order.
    doc_of : mapping or callable
        ``chunk_id -> doc_id``. An unknown chunk ID raises :class:`~rag_metrics.InputError` naming it.
    k : int >= 1 or None
        Cutoff; ``None`` keeps the whole ranking (then both orders agree).
    order : {"cut_then_dedup", "dedup_then_cut"}
        ``"cut_then_dedup"`` (default): take the top ``k`` chunks -- exactly what the
        LLM receives -- then keep each document once, at its first occurrence. The
        result may hold fewer than ``k`` documents.

        ``"dedup_then_cut"``: keep each document's first occurrence over the *whole*
        ranking, then take the first ``k`` documents. This can pull in documents whose
        chunks were ranked below ``k``: documents the LLM never saw. Use it only when
        the unit actually handed on is a whole document.

    Returns
    -------
    list
        Document IDs, first occurrence first.

    Examples
    --------
    Three chunks of the manual, then the FAQ, then the terms; gold = {manual, faq}:

    >>> chunks = ["m1", "m2", "m3", "f1", "t1"]
    >>> doc_of = {"m1": "manual", "m2": "manual", "m3": "manual", "f1": "faq", "t1": "terms"}
    >>> collapse_to_documents(chunks, doc_of, 3)
    ['manual']
    >>> collapse_to_documents(chunks, doc_of, 3, order="dedup_then_cut")
    ['manual', 'faq', 'terms']
    """
    chunks = as_ranking(ranked_chunk_ids, "collapse_to_documents")
    k = check_k(k, func="collapse_to_documents", allow_none=True)
    check_order(order, func="collapse_to_documents")
    lookup = doc_of.__getitem__ if isinstance(doc_of, Mapping) else doc_of
    if not callable(lookup):
        raise TypeError("collapse_to_documents: 'doc_of' must be a mapping or a callable chunk_id -> doc_id.")
    if order == "cut_then_dedup" and k is not None:
        chunks = chunks[:k]
    docs: list = []
    seen: set = set()
    for chunk in chunks:
        try:
            doc = lookup(chunk)
        except KeyError:
            raise InputError(f"collapse_to_documents: unknown chunk ID {chunk!r}: it has no document in 'doc_of'.") from None
        if doc not in seen:
            seen.add(doc)
            docs.append(doc)
    if order == "dedup_then_cut" and k is not None:
        docs = docs[:k]
    return docs
