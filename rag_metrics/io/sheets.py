"""Sheets people fill in and hand back: the one reader of a review file, an audit review, a judging sheet and a
labelling sheet.

Each sheet is written by a command (``rag-metrics golden review``, ``labels audit``, ``labels sample``, ``answers
sample``), edited in a spreadsheet or an editor, and read back here: CSV read strictly
(:func:`~rag_metrics.io.csvfile.read_rows`) or JSON lines by extension. :func:`read_sheet` does what every sheet
needs -- its required columns present (refused on line 1, naming the command whose sheet was expected), each row's ID
cell non-empty and, where an ID names one row, listed once (both lines named), a sheet without rows refused -- and
hands each row on with its line and its ID stripped. The readers in ``golden/`` and ``labels/`` keep only their own
columns and rules; the cells people type are read by :func:`text_cell`, :func:`choice_cell`,
:func:`positive_int_cell` and :func:`yes_no`. Every error names the file, the line and the field.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from rag_metrics.core.errors import InputError, check_choice
from rag_metrics.io.csvfile import read_rows

__all__ = ["read_sheet", "text_cell", "choice_cell", "positive_int_cell", "yes_no", "YES", "NO"]

YES, NO = frozenset({"yes", "y", "true", "1"}), frozenset({"no", "n", "false", "0"})


def read_sheet(path, *, expected: str, required: Sequence[str], key: str, label: str | None = None,
               noun: str) -> tuple[set, Iterator[tuple[int, str, dict]]]:
    """``(columns, rows)`` of a sheet: ``rows`` yields ``(line, ID, row)`` with the ID cell (column ``key``) stripped.

    ``expected`` says what the file should be, in error messages (``"the sheet of `rag-metrics labels sample`"``).
    Refused with :class:`InputError` naming file, line and field: a column of ``required`` missing (at once, on line 1),
    an empty ID, an ID on a second row when ``label`` is given (``"question 'q1' is listed twice (also at line 2)"``,
    ``label`` naming the ID), and -- once the rows are read -- none at all (``"no {noun} found."``).
    """
    path = Path(path)
    columns, rows = read_rows(path, jsonl=f"{expected} (JSON lines)", csv_what=f"{expected} (CSV)")
    missing = [c for c in required if c not in columns]
    if missing:
        raise InputError(f"missing column(s) {missing}; expected {expected} (found {sorted(columns)}).", path=path,
                         line=1)
    return columns, _keyed(rows, path, key, label, noun)


def _keyed(rows: list, path: Path, key: str, label: str | None, noun: str) -> Iterator[tuple[int, str, dict]]:
    seen: dict[str, int] = {}
    for line, row in rows:
        value = row.get(key)
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{key} {value!r} is empty.", path=path, line=line, field=key)
        value = value.strip()
        if label is not None:
            if value in seen:
                raise InputError(f"{label} {value!r} is listed twice (also at line {seen[value]}).", path=path,
                                 line=line, field=key)
            seen[value] = line
        yield line, value, row
    if not rows:
        raise InputError(f"no {noun} found.", path=path)


def text_cell(value) -> str | None:
    """A free-text cell (``why``, an edited question) stripped; an empty cell, spaces only, or no text at all None."""
    return value.strip() if isinstance(value, str) and value.strip() else None


def choice_cell(value, choices, name: str, *, who: str, path, line, blank: str | None = None, question=None) -> str:
    """A cell that holds one of ``choices``, read as a person writes it (any case, surrounding spaces ignored); an
    empty cell is ``blank`` when given. Anything else raises :class:`InputError` naming ``who``, the file, the line,
    the field ``name`` and the choices (with the closest one)."""
    word = value.strip().lower() if isinstance(value, str) else value
    if blank is not None and word in ("", None):
        word = blank
    if word in choices:
        return word
    return check_choice(value, choices, name, what=f"{who}:", path=path, line=line, field=name, question=question)


def positive_int_cell(value, path, line, name, who) -> int:
    """A cell of a file people filled in, read as an integer >= 1 (``"3"``, ``3.0`` and ``3`` are 3); anything else
    raises :class:`InputError` naming ``who``, the file, the line and the field ``name``."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"{who}: {name} {value!r} is not an integer >= 1.", path=path, line=line, field=name)
    return value


def yes_no(value, yes=YES, no=NO) -> bool | None:
    """A sheet's yes/no cell read as a person writes it (``yes``/``no``, ``y``/``n``, ``true``/``false``, ``1``/``0``
    and the words in ``yes``/``no``; any case, surrounding spaces ignored): True, False, or None when it is neither
    (the caller names the line)."""
    word = str(value).strip().lower() if value is not None and not isinstance(value, bool) else value
    if word is True or word in yes:
        return True
    if word is False or word in no:
        return False
    return None
