"""Chunk -> document collapsing, with the order of cutting and de-duplicating made explicit.

One rule per order, for every measure at document level (the array kernels, the TREC readers, Dask
and the page-level measures follow it; a differential test checks them against
:func:`document_ranking` and the per-question definitions):

* ``cut_then_dedup`` (default): a document's rank is the position of its **first chunk** in the
  chunk ranking -- what the reader (the LLM) sees. hit@k, Recall@k, P@k cut at chunk position k,
  and MRR, nDCG and AP discount by the same position. Chunks [m, m, m, faq] with gold {faq}:
  hit@3 = 0, RR = 1/4, nDCG = 1/log2(5) = 0.43.
* ``dedup_then_cut``: a document's rank is its **de-duplicated rank** (each document once, first
  occurrence, renumbered 1, 2, ...); cutoffs count documents. The same chunks: hit@3 = 1,
  RR = 1/2, nDCG = 1/log2(3) = 0.63.

Mixing the two -- cutting at chunk positions but ranking by de-duplicated rank -- would give
hit@3 = 0 beside RR = 1/2 (the first relevant document "at rank 2" yet not in the top 3).
"""

from __future__ import annotations

from collections.abc import Mapping

from rag_metrics.core.errors import InputError, check_k, check_order
from rag_metrics.measures.validate import as_ranking

__all__ = ["collapse_to_documents", "document_ranking"]


def document_ranking(ranked_chunk_ids, doc_of, *, order: str = "cut_then_dedup") -> list:
    """The document ranking the measures read at document level (the rule in the module docstring).

    ``cut_then_dedup``: each chunk replaced by its document, in place -- a document's rank is the
    position of its first chunk; its later chunks keep their positions and add nothing, as every
    per-question measure counts an ID once, at its first position. ``dedup_then_cut``: each document
    once, at its first occurrence. Any measure of :mod:`rag_metrics.measures.metrics` applied to this
    ranking with its cutoff is the document-level value :func:`rag_metrics.evaluate` computes.

    Examples
    --------
    >>> doc_of = {"m1": "manual", "m2": "manual", "m3": "manual", "f1": "faq"}
    >>> ranking = document_ranking(["m1", "m2", "m3", "f1"], doc_of)
    >>> ranking
    ['manual', 'manual', 'manual', 'faq']
    >>> from rag_metrics import hit_at_k, reciprocal_rank
    >>> hit_at_k(ranking, {"faq"}, 3), reciprocal_rank(ranking, {"faq"})
    (0.0, 0.25)
    >>> deduped = document_ranking(["m1", "m2", "m3", "f1"], doc_of, order="dedup_then_cut")
    >>> deduped, hit_at_k(deduped, {"faq"}, 3), reciprocal_rank(deduped, {"faq"})
    (['manual', 'faq'], 1.0, 0.5)
    """
    chunks = as_ranking(ranked_chunk_ids, "document_ranking")
    check_order(order, func="document_ranking")
    lookup = doc_of.__getitem__ if isinstance(doc_of, Mapping) else doc_of
    if not callable(lookup):
        raise TypeError("document_ranking: 'doc_of' must be a mapping or a callable chunk_id -> doc_id.")
    docs = []
    for chunk in chunks:
        try:
            docs.append(lookup(chunk))
        except KeyError:
            raise InputError(f"document_ranking: unknown chunk ID {chunk!r}: it has no document in 'doc_of'.") from None
    return docs if order == "cut_then_dedup" else list(dict.fromkeys(docs))


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
