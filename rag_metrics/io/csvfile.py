"""CSV, read strictly and written for spreadsheets: the one reader and the one writer of every CSV the package
takes or gives (golden sets, review files, label audits, judging sheets, evaluation tables).

A cell a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``, a tab or a carriage return first) is
written with a leading ``'`` (:func:`rag_metrics.core.serialize.csv_text`; spreadsheet programs show it as text) and every
cell read is restored (:func:`rag_metrics.core.serialize.restore_cell`), so what the package writes it reads back unchanged -- a question ID ``-q002``
stays ``-q002`` through a review file.

RFC 4180 as spreadsheet programs write it: a header row, ``,`` between cells, ``"`` around cells that
hold commas, quotes (doubled) or line breaks; rows end in ``\\n``, ``\\r\\n`` or ``\\r`` (older Mac
programs). UTF-8 only (a leading byte-order mark is skipped). Every problem is an
:class:`~rag_metrics.InputError` naming the file and the line where the row starts:

* a quoted cell that is never closed (the rest of the file would become one cell),
* text after a closing quote (``"a"b``),
* a header that names a column twice, or an empty header cell,
* a row with more cells than the header has columns,
* a cell longer than :data:`MAX_CELL` characters.

Rows that are empty or hold only spaces are skipped, before the header too. Cells keep their text as written (no stripping: callers decide), a
neutralized cell restored.
"""

from __future__ import annotations

import csv
import io
from rag_metrics.core.errors import InputError
from rag_metrics.core.serialize import restore_cell
from rag_metrics.io.jsonl import read_lines

__all__ = ["read_csv", "read_rows", "MAX_CELL"]

MAX_CELL = 131_072
"""The longest cell read (characters): Python's ``csv`` default limit, stated rather than raised."""


def read_csv(path, what: str) -> tuple[list[str], list[tuple[int, dict]]]:
    """``(header, [(line, {column: cell})])`` of a CSV file; a row shorter than the header has None for the missing
    cells. ``what`` says what the file should be (in error messages)."""
    text = "\n".join(read_lines(path, what))  # UTF-8 checked with the line of a bad byte; BOM removed
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    start = 1
    header = None
    rows: list[tuple[int, dict]] = []
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            message = str(e)
            if "unexpected end of data" in message:
                raise InputError(f"a quoted cell opened on this row is never closed (a '\"' is missing); expected "
                                 f"{what}.", path=path, line=start) from None
            if "field larger than field limit" in message:
                raise InputError(f"a cell is longer than {MAX_CELL:,} characters; expected {what} (is a quote "
                                 "missing?).", path=path, line=start) from None
            if "expected after" in message:
                raise InputError(f"text after a closing quote ({message}); inside a quoted cell write a quote as "
                                 "\"\".", path=path, line=start) from None
            raise InputError(f"not readable as CSV: {message}; expected {what}.", path=path, line=start) from None
        line, start = start, reader.line_num + 1
        if not any(c.strip() for c in cells):
            continue  # an empty or whitespace-only line, before the header or after it
        if header is None:
            header = [c.strip() for c in cells]
            empty = [i + 1 for i, c in enumerate(header) if not c]
            if empty:
                raise InputError(f"header cell {empty[0]} is empty; every column needs a name ({what}).", path=path,
                                 line=line)
            seen: dict[str, int] = {}
            for i, name in enumerate(header, start=1):
                if name in seen:
                    raise InputError(f"column {name!r} appears twice in the header (cells {seen[name]} and {i}); "
                                     "the second would silently replace the first.", path=path, line=line, field=name)
                seen[name] = i
            continue
        if len(cells) > len(header):
            extra = [c for c in cells[len(header):] if c.strip()]
            if extra:
                raise InputError(f"more cells ({len(cells)}) than header columns ({len(header)}): {extra[:3]!r}.",
                                 path=path, line=line)
            cells = cells[: len(header)]
        row = dict(zip(header, map(restore_cell, cells)))
        for name in header[len(cells):]:
            row[name] = None
        rows.append((line, row))
    if header is None:
        raise InputError(f"file is empty; expected {what}.", path=path)
    return header, rows


def read_rows(path, *, jsonl: str, csv_what: str) -> tuple[set, list[tuple[int, dict]]]:
    """``(columns, [(line, row)])`` of a file a person edits and hands back: JSON lines when its name ends in
    ``.jsonl`` (``jsonl`` says what it should hold, in error messages), else CSV read strictly (:func:`read_csv`;
    ``csv_what`` likewise). The columns are the header's, or every key any JSON line has."""
    from pathlib import Path

    from rag_metrics.io.jsonl import iter_jsonl

    if Path(path).suffix.lower() == ".jsonl":
        rows = list(iter_jsonl(path, jsonl))
        return (set().union(*(r.keys() for _, r in rows)) if rows else set()), rows
    header, rows = read_csv(path, csv_what)
    return set(header), rows

