"""Validation of tidy DataFrames of judgments and rankings: every bad cell named by column and row.

The DataFrame constructors of :class:`~rag_metrics.io.judgments.Qrels` and
:class:`~rag_metrics.io.rankings.Run` read their frames through these functions; nothing else in
the package coerces a user's frame.

IDs are compared as written: strings as they are, integers in decimal (``101``). A float column
of IDs (pandas' type for integers mixed with nulls) is read as the integers it holds (``101.0`` is
``101``); a non-integral float, a boolean or any other object is an error naming the column and
the row (by position, as ``df.iloc``; by file and line when the frame was read from a file and
has a ``line`` column and ``attrs["path"]``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rag_metrics.core.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["located", "show", "renamed", "require_columns", "id_strings", "ranks", "relevance", "first_duplicate",
           "question_attributes", "ranks_from_scores", "group_labels", "groups", "INT64_MAX"]

INT64_MAX = 2**63 - 1


def _row_name(frame: pd.DataFrame, pos: int) -> str:
    if "line" in frame.columns:
        return f"line {frame['line'].iloc[pos]}"
    return f"row {pos}"


def located(frame: pd.DataFrame, name: str, pos: int, message: str, field: str | None = None) -> InputError:
    """An error at row ``pos`` of ``frame``: ``FILE:LINE: ...`` when the frame was read from a file
    (``line`` column, ``attrs["path"]``), else ``NAME: row POS: ...`` (position as in ``df.iloc``)."""
    if "line" in frame.columns and frame.attrs.get("path"):
        return InputError(message, path=frame.attrs["path"], line=int(frame["line"].iloc[pos]), field=field)
    return InputError(f"{name}: {_row_name(frame, pos)}: {message}", field=field)


def show(value) -> str:
    """repr of a cell value as the user wrote it (no numpy scalar wrappers)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def renamed(df: pd.DataFrame, q_id_col: str | None, columns: dict) -> pd.DataFrame:
    """``df`` with the columns a caller named (ranx's ``q_id_col``, ``doc_id_col``, ...) renamed to the package's:
    ``q_id_col`` to ``question_id`` -- by default ``query_id`` is when there is no ``question_id`` --, and each
    ``{given: ours}`` of ``columns`` whose given name is not None."""
    renames = {given: ours for given, ours in columns.items() if given is not None}
    if q_id_col is not None:
        renames[q_id_col] = "question_id"
    elif "question_id" not in df.columns and "query_id" in df.columns:
        renames["query_id"] = "question_id"
    return df.rename(columns=renames) if renames else df


def require_columns(df, name: str, columns, func: str = "evaluate") -> None:
    """``df`` is a DataFrame holding ``columns``; else a TypeError / an :class:`InputError` listing what it has."""
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{func}: {name!r} must be a pandas DataFrame, got {type(df).__name__}.")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InputError(f"{name}: missing column(s) {missing}; found {list(df.columns)}.")


def _id_error(frame, name, column, pos, what):
    return located(frame, name, pos, f"{column} {show(frame[column].iloc[pos])} {what}", column)


def id_strings(frame: pd.DataFrame, name: str, column: str, *, allow_null: bool = False) -> np.ndarray:
    """The IDs of ``frame[column]`` as an object array of strings (None where null and allowed).

    Strings stay as written; integers (any integer dtype, or integral floats in a float column)
    become their decimal form. Anything else is an :class:`InputError` naming the column and row.
    """
    import pandas as pd

    col = frame[column]
    null = col.isna().to_numpy()
    if null.any() and not allow_null:
        raise located(frame, name, int(np.flatnonzero(null)[0]), f"{column} is empty; expected an ID.", column)
    kind = pd.api.types.infer_dtype(col, skipna=True)
    out = np.empty(len(col), dtype=object)
    present = ~null
    values = col.to_numpy(dtype=object)
    if kind in ("string", "empty"):
        out[present] = values[present]
    elif kind == "integer":
        out[present] = [str(int(v)) for v in values[present]]
    elif kind in ("floating", "mixed-integer-float", "integer-na"):
        floats = np.array([float(v) for v in values[present]], dtype=np.float64)
        bad = ~np.isfinite(floats) | (floats != np.floor(floats))
        if bad.any():
            pos = int(np.flatnonzero(present)[np.flatnonzero(bad)[0]])
            raise _id_error(frame, name, column, pos, "is not an integer; IDs are strings or integers.")
        out[present] = [str(int(v)) for v in floats]
    else:
        for pos in np.flatnonzero(present):
            v = values[pos]
            if isinstance(v, str):
                out[pos] = v
            elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
                out[pos] = str(int(v))
            elif isinstance(v, (float, np.floating)) and np.isfinite(v) and float(v).is_integer():
                out[pos] = str(int(v))
            else:
                raise _id_error(frame, name, column, int(pos),
                                f"({type(v).__name__}) is not an ID; IDs are strings or integers.")
    return out


def ranks(frame: pd.DataFrame, name: str = "run") -> np.ndarray:
    """The rank column as int64; an integer in [1, 2**63 - 1] or an error naming the row."""
    import pandas as pd

    col = frame["rank"]
    values = col.to_numpy(dtype=object)
    ok = np.zeros(len(col), dtype=bool)
    out = np.zeros(len(col), dtype=np.int64)
    if pd.api.types.is_integer_dtype(col.dtype) and not col.isna().any():
        arr = col.to_numpy()
        ok = (arr >= 1) & (arr <= INT64_MAX) if arr.dtype.kind == "u" else arr >= 1
        out = np.where(ok, arr, 0).astype(np.int64)
    else:
        for pos, v in enumerate(values):
            if isinstance(v, (bool, np.bool_)):
                continue
            if isinstance(v, (int, np.integer)):
                ok[pos] = 1 <= int(v) <= INT64_MAX
            elif isinstance(v, (float, np.floating)):
                ok[pos] = bool(np.isfinite(v)) and float(v).is_integer() and 1 <= v < 2.0**63
            if ok[pos]:
                out[pos] = int(v)
    if not ok.all():
        pos = int(np.flatnonzero(~ok)[0])
        qid = frame["question_id"].iloc[pos]
        raise located(frame, name, pos, f"question {show(qid)}: rank {show(values[pos])} is not an integer in "
                      f"[1, {INT64_MAX}].", "rank")
    return out


def relevance(golden: pd.DataFrame, judged: np.ndarray, id_col: str, ids: np.ndarray, qids: np.ndarray,
              name: str = "golden") -> np.ndarray:
    """The ``relevance`` column as finite floats (1 for every row without the column); booleans refused."""
    import pandas as pd

    if "relevance" not in golden.columns:
        return np.ones(len(golden), dtype=np.float64)
    raw = golden["relevance"]
    if pd.api.types.is_bool_dtype(raw.dtype):
        rel = np.full(len(raw), np.nan)
    else:
        rel = np.array(pd.to_numeric(raw, errors="coerce"), dtype=np.float64)
        if raw.dtype == object:  # True is not a label, even though pandas reads it as 1
            rel[[isinstance(v, (bool, np.bool_)) for v in raw.to_numpy(dtype=object)]] = np.nan
    bad = judged & ~np.isfinite(rel)
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        raise located(golden, name, pos, f"question {qids[pos]!r}, {id_col} {ids[pos]!r}: relevance "
                      f"{show(raw.iloc[pos])} is not a finite number.", "relevance")
    return rel


def first_duplicate(*columns: np.ndarray) -> int | None:
    """Position of the first row repeating an earlier row's values in all ``columns`` (None if none)."""
    import pandas as pd

    if not len(columns[0]):
        return None
    dup = pd.MultiIndex.from_arrays(columns).duplicated(keep="first") if len(columns) > 1 else \
        pd.Index(columns[0]).duplicated(keep="first")
    return int(np.flatnonzero(dup)[0]) if dup.any() else None


def question_attributes(golden: pd.DataFrame, qids: np.ndarray, id_col: str) -> pd.DataFrame | None:
    """Columns whose value is the same on every row of each question (e.g. ``type``), indexed by question ID."""
    skip = {"question_id", id_col, "relevance", "line", "doc_id", "chunk_id", "group"}
    candidates = [c for c in golden.columns if c not in skip]
    if not candidates:
        return None
    frame = golden[candidates].reset_index(drop=True).assign(question_id=qids)
    grouped = frame.groupby("question_id", sort=False)[candidates]
    constant = grouped.nunique(dropna=False).le(1).all()
    keep = [c for c in candidates if constant[c]]
    return grouped.first()[keep] if keep else None


def ranks_from_scores(run: pd.DataFrame, item_col: str, name: str = "run") -> np.ndarray:
    """A ``rank`` for a frame with ``score`` and no ``rank`` (ranx, ir_measures): trec_eval's order per
    question -- score descending, equal scores by ID descending."""
    import pandas as pd

    from rag_metrics.io.trec import trec_order

    scores = pd.to_numeric(run["score"], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(scores)
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        raise located(run, name, pos, f"score {show(run['score'].iloc[pos])} is not a finite number.", "score")
    qids = id_strings(run, name, "question_id")
    items = id_strings(run, name, item_col)
    codes = pd.factorize(qids)[0]
    order = trec_order(codes, scores, lambda rows: items[rows].astype(str))
    rank = np.empty(len(run), dtype=np.int64)
    rank[order] = np.arange(len(run))
    starts = np.zeros(codes.max() + 1 if len(codes) else 0, dtype=np.int64)
    sorted_codes = codes[order]
    first = np.r_[True, sorted_codes[1:] != sorted_codes[:-1]] if len(order) else np.zeros(0, bool)
    starts[sorted_codes[first]] = np.flatnonzero(first)
    return rank - starts[codes] + 1


def group_labels(value) -> list[str] | None:
    """The evidence-group labels of one gold row (``sufficiency@k``): [] when null; None when the value is not a
    group label (a label, labels separated by commas, or a list of labels)."""
    import pandas as pd

    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return [str(int(value))]
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return [str(int(value))]
    if isinstance(value, (list, tuple, set, frozenset, np.ndarray)):
        out = [group_labels(v) for v in value]
        if any(o is None or len(o) != 1 for o in out):
            return None
        return sorted({o[0] for o in out})
    return None


def groups(golden: pd.DataFrame, judged: np.ndarray, qids: np.ndarray, labels: np.ndarray,
           name: str = "golden") -> list | None:
    """The ``group`` column as one list of labels per row ([] where none; None when no row has a group). A judged
    non-relevant ID needs no group; a question with a group on some gold rows but not on others is an error naming
    the row, and so is a value that is not a group label."""
    if "group" not in golden.columns:
        return None
    raw = golden["group"].to_numpy(dtype=object)
    out: list = [[] for _ in range(len(raw))]
    grouped: dict = {}
    for pos in np.flatnonzero(judged):
        found = group_labels(raw[pos])
        if found == [] and labels[pos] <= 0:
            continue
        if found is None:
            raise located(golden, name, int(pos), f"question {qids[pos]!r}: group {show(raw[pos])} is not a group "
                          "label; expected a label, labels separated by commas, or a list of labels.", "group")
        first = grouped.setdefault(qids[pos], (bool(found), int(pos)))
        if first[0] != bool(found):
            raise located(golden, name, int(pos), f"question {qids[pos]!r}: some gold rows have a group and others "
                          f"not (see row {first[1]}); give every gold row of a question a group, or none.", "group")
        out[pos] = found
    return out if any(out) else None
