"""JSON lines, read strictly: every problem names the file and the line.

One JSON object per line (blank lines skipped). The file must be UTF-8 (a leading byte-order
mark is skipped); ``NaN``, ``Infinity`` and ``-Infinity`` -- which Python's ``json`` accepts but
JSON does not -- are errors, so a golden set or a log cannot smuggle a non-number in.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError

__all__ = ["iter_jsonl", "read_lines", "check_file", "write_jsonl"]


def check_file(path, what: str) -> Path:
    """``path`` as a Path, or an error: not found, or a directory."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"is a directory; expected {what}.", path=path)
    if not p.is_file():
        raise InputError(f"file not found; expected {what}.", path=path)
    return p


def read_lines(path, what: str) -> list[str]:
    """The lines of a UTF-8 text file (BOM skipped); invalid UTF-8 is an error naming its line."""
    data = check_file(path, what).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8 text (byte {e.start}: {data[e.start:e.start + 1]!r}); expected {what} "
                         "encoded as UTF-8.", path=path, line=line) from None
    return text.removeprefix("\ufeff").split("\n")


def _no_constants(name):
    raise ValueError(f"{name} is not a JSON number")


def iter_jsonl(path, what: str) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` for every non-blank line; an error names the line of any problem."""
    seen = False
    for lineno, line in enumerate(read_lines(path, what), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line, parse_constant=_no_constants)
        except json.JSONDecodeError as e:
            raise InputError(f"malformed JSON: {e.msg} (column {e.colno}).", path=path, line=lineno) from None
        except ValueError as e:  # NaN / Infinity
            raise InputError(f"{e}; expected finite numbers only.", path=path, line=lineno) from None
        if not isinstance(obj, dict):
            raise InputError(f"expected a JSON object per line, got {type(obj).__name__}.", path=path, line=lineno)
        seen = True
        yield lineno, obj
    if not seen:
        raise InputError(f"file is empty; expected {what}, one JSON object per line.", path=path)


def write_jsonl(rows, path) -> Path:
    """Write dicts as JSON lines (UTF-8, non-ASCII kept as is); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
    return path
