"""rag_metrics: exact retrieval measures for RAG evaluation, and the workbench around them.

Per-question measures (:mod:`rag_metrics.metrics`), chunk -> document collapsing
(:mod:`rag_metrics.collapse`), measure names (:mod:`rag_metrics.measures`), whole-set
evaluation on DataFrames (:mod:`rag_metrics.evaluation`) and TREC files
(:mod:`rag_metrics.trec`, :mod:`rag_metrics.fast`).

``evaluate``, ``Evaluation`` and ``summarize`` are imported on first use, so that the
command line does not pay for importing pandas when it does not need it.
"""

from .collapse import collapse_to_documents
from .errors import InputError
from .measures import DEFAULT_MEASURES, Measure, parse_measure, parse_measures
from .metrics import (
    average_precision,
    hit_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)

__version__ = "0.1.0"

__all__ = [
    "recall_at_k",
    "precision_at_k",
    "hit_at_k",
    "reciprocal_rank",
    "ndcg_at_k",
    "average_precision",
    "collapse_to_documents",
    "evaluate",
    "Evaluation",
    "summarize",
    "Measure",
    "parse_measure",
    "parse_measures",
    "DEFAULT_MEASURES",
    "InputError",
]

_LAZY = {"evaluate": "evaluation", "Evaluation": "evaluation", "summarize": "evaluation"}


def __getattr__(name):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rag_metrics' has no attribute {name!r}")
