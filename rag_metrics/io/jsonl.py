"""JSON lines, read strictly: every problem names the file and the line.

One JSON object per line (blank lines skipped). The file must be UTF-8 (a leading byte-order
mark is skipped); ``NaN``, ``Infinity`` and ``-Infinity`` -- which Python's ``json`` accepts but
JSON does not -- are errors, so a golden set or a log cannot smuggle a non-number in. So are nesting
deeper than :data:`MAX_DEPTH` levels and lone UTF-16 surrogates (``"\\ud800"``: valid JSON, but not
text any later step could write).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from rag_metrics.core.errors import InputError
from rag_metrics.core.files import atomic_open

__all__ = ["iter_jsonl", "iter_lines", "read_lines", "check_file", "write_jsonl", "jsonl_text", "loads_line", "check_value", "MAX_DEPTH"]


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
    return list(iter_lines(path, what))


def iter_lines(path, what: str) -> Iterator[str]:
    """The lines of a UTF-8 text file (BOM skipped), read and decoded one at a time -- a file of any size costs
    one line of memory; split on ``\\n`` only, as ``str.split("\\n")`` (a final empty line included). Invalid UTF-8
    is an error naming its line and its byte in the file."""
    with open(check_file(path, what), "rb") as f:
        offset = 0
        for lineno, raw in enumerate(f, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise InputError(f"not valid UTF-8 text (byte {offset + e.start}: {raw[e.start:e.start + 1]!r}); "
                                 f"expected {what} encoded as UTF-8.", path=path, line=lineno) from None
            if lineno == 1:
                line = line.removeprefix("\ufeff")
            offset += len(raw)
            if line.endswith("\n"):
                yield line[:-1]
            else:
                yield line
                return
        yield ""  # the file is empty or ends with a line break: the empty last line str.split gives


def _no_constants(name):
    raise ValueError(f"{name} is not a JSON number")


MAX_DEPTH = 64
"""The deepest nesting of lists and objects a line may have (a retrieval log needs about 6)."""

_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE = re.compile("[\ud800-\udfff]")


def _where(keys) -> str:
    return ".".join(map(str, keys)) or "(top level)"


def check_value(obj, path=None, line=None, *, depth: bool = True, surrogates: bool = True) -> None:
    """Refuse what a parsed JSON value may hold but nothing downstream can: nesting deeper than
    :data:`MAX_DEPTH`, and lone UTF-16 surrogates (``"\\ud800"`` parses, but the text cannot be written as
    UTF-8). The error names the line and the field path (``retrieved.0.doc_id``)."""
    stack = [(obj, ())]
    while stack:
        value, keys = stack.pop()
        if depth and len(keys) > MAX_DEPTH:
            raise InputError(f"nested deeper than {MAX_DEPTH} levels (at {_where(keys[:3])}...); expected a flat record.",
                             path=path, line=line, field=_where(keys[:3]))
        if isinstance(value, dict):
            for k, v in value.items():
                if surrogates and _LONE.search(k):
                    raise InputError(f"key {k!r} holds a lone surrogate (an unpaired \\ud800-\\udfff escape), which is "
                                     "not text.", path=path, line=line, field=_where((*keys, k)))
                stack.append((v, (*keys, k)))
        elif isinstance(value, list):
            stack.extend((v, (*keys, i)) for i, v in enumerate(value))
        elif surrogates and isinstance(value, str) and _LONE.search(value):
            raise InputError(f"{_where(keys)} {value[:40]!r} holds a lone surrogate (an unpaired \\ud800-\\udfff "
                             "escape), which is not text.", path=path, line=line, field=_where(keys))


def loads_line(line: str, path=None, lineno=None):
    """One JSON value from one line, strictly: no NaN/Infinity, at most :data:`MAX_DEPTH` levels deep, no lone
    surrogate; every problem an :class:`~rag_metrics.InputError` naming the line."""
    try:
        obj = json.loads(line, parse_constant=_no_constants)
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg} (column {e.colno}).", path=path, line=lineno) from None
    except RecursionError:
        raise InputError(f"nested deeper than {MAX_DEPTH} levels; expected a flat record.", path=path,
                         line=lineno) from None
    except ValueError as e:  # NaN / Infinity
        raise InputError(f"{e}; expected finite numbers only.", path=path, line=lineno) from None
    deep = line.count("[") + line.count("{") > MAX_DEPTH  # cheap tests first: most lines need no walk
    lone = "\\u" in line and _SURROGATE.search(line) is not None
    if deep or lone:
        check_value(obj, path, lineno, depth=deep, surrogates=lone)
    return obj


def iter_jsonl(path, what: str) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` for every non-blank line; an error names the line of any problem (and the field,
    for a lone surrogate or too deep a nesting: :func:`loads_line`)."""
    seen = False
    for lineno, line in enumerate(iter_lines(path, what), start=1):
        if not line.strip():
            continue
        obj = loads_line(line, path, lineno)
        if not isinstance(obj, dict):
            raise InputError(f"expected a JSON object per line, got {type(obj).__name__}.", path=path, line=lineno)
        seen = True
        yield lineno, obj
    if not seen:
        raise InputError(f"file is empty; expected {what}, one JSON object per line.", path=path)


def jsonl_text(rows) -> str:
    """Dicts as JSON lines text (non-ASCII kept as is), what :func:`write_jsonl` writes."""
    return "".join(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n" for row in rows)


def write_jsonl(rows, path) -> Path:
    """Write dicts as JSON lines (UTF-8, non-ASCII kept as is), atomically: the file appears complete or not at
    all (:func:`rag_metrics.core.files.atomic_open`); returns the path."""
    path = Path(path)
    with atomic_open(path, "w", encoding="utf-8", newline="\n") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
    return path
