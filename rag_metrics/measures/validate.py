"""Validation of the plain inputs of the per-question functions: a ranking and a gold set."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence, Set

import numpy as np

from rag_metrics.core.errors import InputError

__all__ = ["as_ranking", "as_gold"]


def as_ranking(ranked, func: str = "ranked") -> list:
    """``ranked`` as a list in rank order; a set, a mapping or a single string is refused (no order)."""
    if isinstance(ranked, (str, bytes)):
        raise TypeError(f"{func}: 'ranked' must be a sequence of IDs in rank order, got a single string {ranked!r}.")
    if isinstance(ranked, (Set, Mapping)):
        raise TypeError(
            f"{func}: 'ranked' must be a sequence of IDs in rank order, got a {type(ranked).__name__}, which has no order."
        )
    if isinstance(ranked, np.ndarray):
        return ranked.tolist()
    if hasattr(ranked, "tolist") and not isinstance(ranked, Sequence):  # pandas Series / Index
        return ranked.tolist()
    if not isinstance(ranked, Sequence):
        raise TypeError(f"{func}: 'ranked' must be a sequence of IDs in rank order, got {type(ranked).__name__}.")
    return list(ranked)


def as_gold(gold, func: str = "gold") -> dict:
    """Gold as ``{ID: label}`` with finite float labels; a set (or list) of IDs means label 1 for each."""
    if isinstance(gold, (str, bytes)):
        raise TypeError(f"{func}: 'gold' must be a set of IDs or a mapping ID -> label, got a single string {gold!r}.")
    if isinstance(gold, Mapping):
        out = {}
        for doc, label in gold.items():
            if isinstance(label, bool) or not isinstance(label, numbers.Real) or not math.isfinite(label):
                raise InputError(f"{func}: the label of gold ID {doc!r} must be a finite number, got {label!r}.")
            out[doc] = float(label)
        return out
    try:
        return {doc: 1.0 for doc in gold}
    except TypeError:
        raise TypeError(
            f"{func}: 'gold' must be a set of IDs or a mapping ID -> label, got {type(gold).__name__}."
        ) from None
