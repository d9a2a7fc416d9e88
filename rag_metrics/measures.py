"""Measure names users can type (``recall@5``, ``ndcg@10``, ``mrr``), parsed in one place."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Measure", "parse_measure", "parse_measures", "DEFAULT_MEASURES", "MEASURE_NAMES"]

# canonical name -> (accepted spellings, whether a cutoff is required, whether one is allowed)
_SPEC = {
    "recall": (("recall", "r"), True),
    "precision": (("precision", "p"), True),
    "hit": (("hit", "success", "hit_rate", "hitrate"), True),
    "mrr": (("mrr", "rr", "recip_rank"), False),
    "ndcg": (("ndcg",), False),
    "map": (("map", "ap"), False),
}
_ALIASES = {alias: name for name, (aliases, _) in _SPEC.items() for alias in aliases}
MEASURE_NAMES = tuple(_SPEC)
_PATTERN = re.compile(r"^\s*([a-z_]+)\s*(?:@\s*(\d+))?\s*$")


@dataclass(frozen=True, order=True)
class Measure:
    """A measure and its cutoff; ``str(m)`` gives the canonical name (``"ndcg@10"``, ``"mrr"``)."""

    name: str
    k: int | None = None

    def __str__(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"


def parse_measure(text) -> Measure:
    """Parse ``"recall@5"``, ``"P@10"``, ``"ndcg@10"``, ``"mrr"``, ``"mrr@10"``, ``"map"``...

    Case-insensitive. ``recall``, ``precision`` and ``hit`` need a cutoff; ``mrr``,
    ``ndcg`` and ``map`` without one use the whole ranking. Aliases: ``p`` for
    precision, ``success`` for hit, ``recip_rank``/``rr`` for mrr, ``ap`` for map.

    >>> parse_measure("nDCG@10"), str(parse_measure("success@5"))
    (Measure(name='ndcg', k=10), 'hit@5')
    """
    if isinstance(text, Measure):
        return text
    match = _PATTERN.match(str(text).lower())
    expected = "expected one of " + ", ".join(
        f"{n}@k" if needs_k else f"{n}[@k]" for n, (_, needs_k) in _SPEC.items()
    )
    if not match or match.group(1) not in _ALIASES:
        raise ValueError(f"Unknown measure {text!r}: {expected} (k an int >= 1).")
    name = _ALIASES[match.group(1)]
    k = int(match.group(2)) if match.group(2) is not None else None
    if k is not None and k < 1:
        raise ValueError(f"Measure {text!r}: the cutoff must be an int >= 1. Got {k} instead.")
    if k is None and _SPEC[name][1]:
        raise ValueError(f"Measure {text!r} needs a cutoff, e.g. {name}@10.")
    return Measure(name, k)


def parse_measures(texts) -> tuple[Measure, ...]:
    """Parse several names; duplicates (after canonicalisation) are kept once, in first order."""
    if isinstance(texts, (str, Measure)):
        texts = [texts]
    out: list[Measure] = []
    for text in texts:
        m = parse_measure(text)
        if m not in out:
            out.append(m)
    if not out:
        raise ValueError("No measure given: expected at least one name such as 'recall@5'.")
    return tuple(out)


DEFAULT_MEASURES = parse_measures(["recall@5", "precision@5", "hit@5", "mrr", "ndcg@10", "map"])
