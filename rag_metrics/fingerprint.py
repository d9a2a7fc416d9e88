"""Fingerprints of what a comparison must hold fixed, and the check that refuses to compare otherwise.

A fingerprint is a dict ``component -> short SHA-256`` of a canonical serialization: the
questions and gold, the corpus version, the chunking configuration, k, the judge...
Two runs are comparable when the components both record are equal.
"""

from __future__ import annotations

import hashlib
import json
import sys

from .errors import NotComparableError
from .serialize import jsonable

__all__ = ["digest", "fingerprint", "check_comparable", "NotComparableError"]


def _canonical(value):
    pd = sys.modules.get("pandas")  # a value cannot be a DataFrame unless pandas is loaded
    if pd is not None and isinstance(value, pd.DataFrame):
        frame = value.reset_index(drop=not isinstance(value.index, pd.MultiIndex) and value.index.name is None)
        frame = frame.reindex(sorted(frame.columns, key=str), axis=1)
        rows = [[_canonical(v) for v in row] for row in frame.itertuples(index=False)]
        return {"columns": [str(c) for c in frame.columns], "rows": sorted(rows, key=json.dumps)}
    if pd is not None and isinstance(value, pd.Series):
        return _canonical(value.to_frame())
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_canonical(v) for v in value), key=json.dumps)
    return jsonable(value)


def digest(value) -> str:
    """Short SHA-256 (16 hex digits) of ``value`` serialized canonically (row order of tables ignored)."""
    text = json.dumps(_canonical(value), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def fingerprint(**components) -> dict:
    """``fingerprint(questions=..., gold=..., corpus=..., chunking=..., k=3)`` -> ``{name: digest}``."""
    return {name: digest(value) for name, value in sorted(components.items())}


def check_comparable(a: dict, b: dict, *, force: bool = False, what: str = "runs", refuse_on=None,
                     notes: dict | None = None) -> list[str]:
    """Raise :class:`NotComparableError` naming every component whose fingerprint differs (or is missing
    from one side) -- only those in ``refuse_on`` when given -- unless ``force``; return the list of all
    differing components either way. ``notes`` adds a readable description per component."""
    differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    blocking = [k for k in differ if refuse_on is None or k in refuse_on]
    if blocking and not force:
        notes = notes or {}
        details = ", ".join(
            f"{k} ({a.get(k, 'missing')} vs {b.get(k, 'missing')}{notes.get(k, '')})" for k in blocking
        )
        raise NotComparableError(
            f"refusing to compare {what}: they differ in {details}. Their numbers measure different things; "
            "pass force=True (--force) to compare anyway."
        )
    return differ
