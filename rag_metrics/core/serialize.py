"""One conversion of result values to JSON: NaN and undefined become ``None``, numpy scalars Python numbers; and one
of cells to CSV.

Used by every writer of results (the command line, run history, reports, attribution), so an
undefined value is ``null`` in every file the project writes. :func:`csv_text` is the one CSV writer: a cell a
spreadsheet would run as a formula gets a leading ``'`` (:func:`neutralize_cell`), which the one CSV reader
(:func:`rag_metrics.io.csvfile.read_csv`) removes again (:func:`restore_cell`).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Mapping

import numpy as np

__all__ = ["jsonable", "csv_text", "neutralize_cell", "restore_cell"]


def jsonable(value):
    """``value`` with NaN -> None, numpy scalars and arrays -> Python, tuples and sets -> lists (recursively).

    >>> jsonable({"a": float("nan"), "b": np.float64(0.5), "c": (1, np.int64(2)), "d": np.bool_(True)})
    {'a': None, 'b': 0.5, 'c': [1, 2], 'd': True}
    """
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(v) for v in value), key=repr)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    pd = sys.modules.get("pandas")  # pandas.NA cannot occur unless pandas is loaded
    if pd is not None and value is pd.NA:
        return None
    return str(value)


_FORMULA = re.compile(r"'*[=+\-@\t\r]")


def neutralize_cell(value):
    """A text cell as written to a CSV made for spreadsheets: a cell a spreadsheet would run as a formula (starting
    with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) gets a leading ``'``, which spreadsheet programs
    show as text. Cells that already start with quotes before such a character get one more, so that
    :func:`restore_cell` gives back exactly the original. Other values are returned as they are."""
    if isinstance(value, str) and _FORMULA.match(value):
        return "'" + value
    return value


def restore_cell(value):
    """The inverse of :func:`neutralize_cell`: one leading ``'`` removed from a neutralized cell."""
    if isinstance(value, str) and value.startswith("'") and _FORMULA.match(value[1:]):
        return value[1:]
    return value


def _cell(value) -> str:
    text = "" if value is None else str(neutralize_cell(value))
    if any(c in text for c in ',"\r\n'):  # (the csv module leaves a lone \r unquoted when rows end in \n)
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_text(header, rows) -> str:
    """CSV text (rows end in ``\\n``): ``header`` then ``rows`` (sequences of cells, or dicts keyed by the header),
    every text cell neutralized (:func:`neutralize_cell`), None written as an empty cell, a cell holding a comma,
    a quote or a line break (``\\r`` included) quoted. :func:`read_csv` reads every cell back unchanged."""
    lines = [",".join(map(_cell, header))]
    for row in rows:
        lines.append(",".join(map(_cell, [row.get(k) for k in header] if isinstance(row, dict) else row)))
    return "\n".join(lines) + "\n"
