"""Former home of the chunking grid and the retriever-by-name helper, kept so existing imports keep working.

The grid and the context cost are in :mod:`rag_metrics.analysis.grid`; building a built-in retriever by name is
retrieval's job (:func:`rag_metrics.retrieval.retrievers.make_retriever`).
"""

from __future__ import annotations

from ..retrieval.retrievers import RETRIEVERS, make_retriever
from .grid import GoldMisses, GridResult, chunking_grid, context_cost, gold_misses, question_language

__all__ = ["make_retriever", "context_cost", "chunking_grid", "GridResult", "RETRIEVERS", "gold_misses", "GoldMisses",
           "question_language"]
