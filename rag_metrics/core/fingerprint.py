"""Fingerprints of what a comparison must hold fixed, and the check that refuses to compare otherwise.

A fingerprint is a dict ``component -> short SHA-256`` of a canonical serialization: the
questions and gold, the corpus version, the chunking configuration, k, the judge...
Two runs are comparable when the components both record are equal.
"""

from __future__ import annotations

import hashlib
import json
import operator
import sys
from itertools import islice, repeat
from json.encoder import encode_basestring as encode_unicode
from json.encoder import encode_basestring_ascii as encode_ascii

import numpy as np

from rag_metrics.core.errors import NotComparableError
from rag_metrics.core.serialize import jsonable

__all__ = ["digest", "fingerprint", "check_comparable"]


def _canonical(value):
    pd = sys.modules.get("pandas")  # a value cannot be a DataFrame unless pandas is loaded
    if pd is not None and isinstance(value, pd.DataFrame):
        frame = value.reset_index(drop=not isinstance(value.index, pd.MultiIndex) and value.index.name is None)
        frame = frame.reindex(sorted(frame.columns, key=str), axis=1)
        # a table without columns has no rows to write, whatever its length (pandas 2's itertuples yields none;
        # pandas 3's yields one empty tuple per row: the fingerprint must not depend on which is installed)
        rows = [[_canonical(v) for v in row] for row in frame.itertuples(index=False)] if frame.shape[1] else []
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


def _reference_text(value) -> str:
    """The canonical text of ``value``: the definition :func:`digest` hashes (:func:`_pieces` writes the same
    text faster)."""
    return json.dumps(_canonical(value), **_TEXT)


_TEXT = {"ensure_ascii": False, "sort_keys": True, "separators": (",", ":")}
_NONFINITE = {"nan": "null", "inf": "Infinity", "-inf": "-Infinity"}  # float repr -> what json writes after jsonable
_BOOL = {True: "true", False: "false"}


def _pieces(value):
    """Yield the pieces of :func:`_reference_text` ``(value)`` in order. Tables are written column by column with
    json's own C string encoders instead of canonicalizing every cell in Python; everything else is left to the
    reference. Each table row is ``[cell,cell,...]`` (compact, unicode) and the rows are ordered by ``json.dumps``
    of the row (default separators, ASCII), as :func:`_canonical` sorts them."""
    pd = sys.modules.get("pandas")
    nested = (dict, list, tuple) if pd is None else (dict, list, tuple, pd.DataFrame, pd.Series)
    if pd is not None and isinstance(value, pd.DataFrame):
        yield from _frame_pieces(value, pd)
    elif pd is not None and isinstance(value, pd.Series):
        yield from _frame_pieces(value.to_frame(), pd)
    elif isinstance(value, dict) and any(isinstance(v, nested) for v in value.values()):
        items = {str(k): v for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
        yield "{"
        for i, (key, v) in enumerate(sorted(items.items())):
            yield ("," if i else "") + json.dumps(key, **_TEXT) + ":"
            yield from _pieces(v)
        yield "}"
    elif isinstance(value, (list, tuple)) and any(isinstance(v, nested) for v in value):
        yield "["
        for i, v in enumerate(value):
            if i:
                yield ","
            yield from _pieces(v)
        yield "]"
    else:
        yield _reference_text(value)


def _frame_pieces(value, pd):
    frame = value.reset_index(drop=not isinstance(value.index, pd.MultiIndex) and value.index.name is None)
    frame = frame.reindex(sorted(frame.columns, key=str), axis=1)
    yield '{"columns":' + json.dumps([str(c) for c in frame.columns], **_TEXT) + ',"rows":['
    width = frame.shape[1]
    if width:  # a table without columns has no rows (_canonical)
        columns = [_cells(frame.iloc[:, k]) for k in range(width)]  # each column's cells listed once
        after = [", " if k < width - 1 else "]" for k in range(width)]
        order = _order(columns, after)
        for start in range(0, len(order), 1024):  # the rows' text a batch at a time, in their order
            rows = order[start:start + 1024]
            texts = [_column(([values[i] for i in rows], kind), a)[0] for (values, kind), a in zip(columns, after)]
            yield ("," if start else "") + "[" + "],[".join(map(",".join, zip(*texts))) + "]"
    yield "]}"


def _cells(series) -> tuple[list, str | None]:
    """``(values, kind)`` of a table column: its cells as ``itertuples`` yields them (Python scalars for numpy
    columns, the objects otherwise; ``tolist`` gives the same cells as iterating, without a Python call per cell for
    an Arrow-backed column) and the numpy kind that decides how they are written (None: written as JSON values)."""
    kind = series.dtype.kind if isinstance(series.dtype, np.dtype) else None
    if kind == "f" and series.dtype.itemsize > 8:
        kind = None  # longdouble items stay numpy scalars: jsonable writes them as strings
    return series.tolist(), kind


def _order(columns, after) -> list:
    """Row positions in the order of their keys' tuples, ties in their original order, as ``sorted`` leaves them.
    The columns' keys are made one column at a time, only while rows remain tied on the columns before (a long text
    column last in the row is seldom needed)."""
    keys = [_column(columns[0], after[0])[1]]
    order = sorted(range(len(keys[0])), key=keys[0].__getitem__)
    for column, a in zip(columns[1:], after[1:]):
        ranked = list(map(keys[-1].__getitem__, order)) if len(keys) == 1 else \
            [tuple(k[i] for k in keys) for i in order]
        if not any(map(operator.eq, ranked, islice(ranked, 1, None))):
            break
        keys.append(_column(column, a)[1])
        order = sorted(range(len(keys[0])), key=list(zip(*keys)).__getitem__)
    return order


def _column(cells: tuple[list, str | None], after: str) -> tuple[list, list]:
    """``(texts, keys)`` of a table column's cells (``(values, kind)``: :func:`_cells`): each cell's canonical value
    as the canonical text writes it (compact, unicode), and its part of the row's sort key.

    A row's sort key is ``json.dumps(row)``: ``"[" + k1 + ", " + k2 + ... + kn + "]"`` with each cell's ``kj``
    written by ``json.dumps`` (ASCII). Comparing the tuples ``(k1 + ", ", ..., kn + "]")`` orders rows as those
    strings do, because no cell's part is a proper prefix of another's in the same column (a JSON value followed by
    its separator ends where it ends). JSON strings, literals, arrays and objects are already prefix-free, so a
    column of those keeps ``kj`` alone (equal parts stay equal, unequal ones differ inside both); only a column
    holding numbers (``1`` is a prefix of ``10``) gets ``after``, the separator that follows it in the row."""
    values, kind = cells
    if kind in ("i", "u", "f"):
        texts = list(map(int.__repr__ if kind != "f" else float.__repr__, values))
        if kind == "f":
            for i in np.flatnonzero(~np.isfinite(np.asarray(values, dtype=np.float64))).tolist():
                texts[i] = _NONFINITE[texts[i]]
        return texts, [t + after for t in texts]
    if kind == "b":
        texts = list(map(_BOOL.__getitem__, values))
        return texts, texts
    try:
        keys = list(map(encode_ascii, values))  # every cell a string: json writes each as encode_ascii does
    except TypeError:
        keys = [encode_ascii(v) if type(v) is str else json.dumps(_canonical(v)) for v in values]
        texts = [(k if v.isascii() and "\x7f" not in v else encode_unicode(v)) if type(v) is str
                 else json.dumps(_canonical(v), **_TEXT) for v, k in zip(values, keys)]
        if not all(k[0] in _DELIMITED for k in keys):
            keys = [k + after for k in keys]
        return texts, keys
    texts = keys.copy()  # ASCII text without DEL is written the same either way; the others again, unescaped
    plain = np.fromiter(map(str.isascii, values), bool, len(values)) & \
        ~np.fromiter(map(str.__contains__, values, repeat("\x7f")), bool, len(values))
    for i in np.flatnonzero(~plain).tolist():
        texts[i] = encode_unicode(values[i])
    return texts, keys


_DELIMITED = frozenset('"[{ntf')  # first characters of JSON values that end unambiguously (all but numbers)


def digest(value) -> str:
    """Short SHA-256 (16 hex digits) of ``value`` serialized canonically (row order of tables ignored): the UTF-8
    of :func:`_reference_text`, written by :func:`_pieces` and hashed a megabyte at a time (never held whole)."""
    h = hashlib.sha256()
    batch, size = [], 0
    for piece in _pieces(value):
        batch.append(piece)
        size += len(piece)
        if size > 1 << 20:
            h.update("".join(batch).encode("utf-8"))
            batch, size = [], 0
    h.update("".join(batch).encode("utf-8"))
    return h.hexdigest()[:16]


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
