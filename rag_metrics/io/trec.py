"""Read TREC qrels and run files, refusing anything that would give a silently wrong number.

This module is the one definition of the TREC text format in the package: every path that
reads a TREC file (the general reader here, the fast columnar reader, Dask) follows the rules
below, and a differential test feeds all of them the same odd files.

Formats (one judgment or result per line):

* qrels: ``qid iter docid rel`` -- ``iter`` is ignored; ``rel`` an integer label. An optional fifth field
  ``group`` names the evidence group(s) of the document for ``sufficiency@k`` (``a``, or ``a,b`` for a document in
  two groups): ``q1 0 policy 1 a`` / ``q1 0 faq 1 a`` / ``q1 0 travel 1 b`` -- policy or faq, and travel. Every
  relevant line of a question has a group or none; such files take the general reader.
* run: ``qid Q0 docid rank score tag`` -- ``Q0`` and ``tag`` ignored; ``rank`` an
  integer, ``score`` a finite number.

Text rules:

* UTF-8, plain or gzip-compressed (``.gz``, recognized by its content; decompressed in memory or
  in blocks, never to disk). A leading byte-order mark (U+FEFF) is skipped; anywhere else it is
  an error.
* Lines end with ``\\n`` (a ``\\r`` just before it is dropped: CRLF files read the same).
  Blank lines (nothing but spaces and tabs) are skipped.
* Fields are separated by runs of spaces and tabs, and only by them. Any other control
  character, Unicode space (no-break space U+00A0, ideographic space U+3000, ...), line or
  paragraph separator, or invisible format character (zero-width space, direction marks,
  soft hyphen, ...) is an error naming its line and column: inside an ID it would make two
  IDs that look equal differ.
* Numbers use the trec_eval syntax in ASCII: an integer is ``[+-]?[0-9]+``; a score is
  ``[+-]?([0-9]+.?[0-9]*|.[0-9]+)([eE][+-]?[0-9]+)?``. Nothing else is a number (no ``1_0``, no
  full-width ``１``, no ``inf``/``nan``).

Ordering (``order_by="score"``, the default, as trec_eval): each question's results are
sorted by score, descending; equal scores by document ID, descending, comparing the
IDs as strings (code point order, which is trec_eval's byte order for UTF-8). The
rank column is ignored. Example: ``d1 score 2.0`` and ``d2 score 2.0`` rank ``d2``
first. With ``order_by="rank"`` the rank column is the order (ascending; two results
with the same rank for one question are an error). :func:`trec_order` is that order, shared
by every reader.

Every error is an :class:`~rag_metrics.core.errors.InputError` naming the file, the line and what
was expected: missing or empty file, a directory, text that is not UTF-8, a forbidden
character, wrong number of fields, non-integer label or rank, a score that is not a finite
number, a document listed twice for one question.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rag_metrics.core.errors import InputError, check_choice

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["read_qrels", "read_run", "read_doc_map", "order_run", "trec_order", "read_text", "split_fields",
           "parse_int", "parse_score", "INT_SYNTAX", "SCORE_SYNTAX", "FORBIDDEN", "ORDER_BY", "check_readable"]

ORDER_BY = ("score", "rank")
INT_SYNTAX = r"[+-]?[0-9]+"
SCORE_SYNTAX = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_INT = re.compile(INT_SYNTAX, re.ASCII)
_SCORE = re.compile(SCORE_SYNTAX, re.ASCII)
# Characters no line may hold: controls (tab excepted), Unicode spaces other than the ASCII space,
# line/paragraph separators and invisible format characters (Unicode categories Cc, Zs, Zl, Zp, Cf).
FORBIDDEN = re.compile(
    "[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\xa0\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u1680\u180e"
    "\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u206f\u3000\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f\r]"
)
BOM = "\ufeff"


def check_readable(path, what: str = "TREC", expected: str = "") -> Path:
    """The path as a :class:`Path`, or an error: not found, or a directory."""
    p = Path(path)
    detail = f" ({expected})" if expected else ""
    if p.is_dir():
        raise InputError(f"is a directory; expected a {what} file{detail}.", path=path)
    if not p.is_file():
        raise InputError(f"file not found; expected a {what} file{detail}.", path=path)
    return p


def _forbidden_error(text: str, pos: int, path) -> InputError:
    ch = text[pos]
    lineno = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    import unicodedata

    name = unicodedata.name(ch, "control character")
    return InputError(f"character U+{ord(ch):04X} ({name}) at column {column}: fields are separated by spaces or "
                      "tabs only, and IDs cannot hold other whitespace, control or invisible characters.",
                      path=path, line=lineno)


GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(path) -> bool:
    """Whether the file is gzip-compressed (by its first two bytes, whatever its name)."""
    with open(path, "rb") as f:
        return f.read(2) == GZIP_MAGIC


def open_binary(path):
    """The file for reading bytes, decompressed on the fly when gzip-compressed (never to disk)."""
    if not is_gzip(path):
        return open(path, "rb")
    import gzip

    return gzip.open(path, "rb")


def content_size(path) -> int:
    """Bytes of content: the file size, or for a gzip file its uncompressed size (from its trailer, modulo 4 GB)."""
    import os

    if not is_gzip(path):
        return os.path.getsize(path)
    with open(path, "rb") as f:
        f.seek(-4, os.SEEK_END)
        size = int.from_bytes(f.read(4), "little")
    return max(size, os.path.getsize(path))


def read_bytes(path, what: str, expected: str = "") -> bytes:
    """The file's bytes (decompressed when gzip); missing file, folder or broken gzip named."""
    import gzip
    import zlib

    check_readable(path, what, expected)
    try:
        with open_binary(path) as f:
            return f.read()
    except (OSError, EOFError, zlib.error) as e:
        if isinstance(e, (gzip.BadGzipFile, EOFError, zlib.error)):
            raise InputError(f"not a readable gzip file ({e}).", path=path) from None
        raise


def read_text(path, what: str, expected: str = "") -> list[str]:
    """The lines of a UTF-8 text file (gzip-compressed or not) under the rules above: BOM skipped,
    ``\r\n`` read as ``\n``, every forbidden character an error naming line and column."""
    data = read_bytes(path, what, expected)
    if data.isascii():  # the common case, checked in one vectorized pass
        data = data.replace(b"\r\n", b"\n")
        raw = np.frombuffer(data, dtype=np.uint8)
        bad = np.flatnonzero(((raw < 32) & (raw != 9) & (raw != 10)) | (raw == 127))
        text = data.decode("ascii")
        if bad.size:
            raise _forbidden_error(text, int(bad[0]), path)
        return text.split("\n")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8 text (byte {e.start}: {data[e.start:e.start + 1]!r}).", path=path,
                         line=line) from None
    text = text.removeprefix(BOM).replace("\r\n", "\n")
    bad = FORBIDDEN.search(text)
    if bad:
        raise _forbidden_error(text, bad.start(), path)
    return text.split("\n")


def split_fields(line: str) -> list[str]:
    """The fields of one line: separated by runs of spaces and tabs (the line holds no other whitespace:
    :func:`read_text` refused it, so ``str.split`` splits exactly there)."""
    return line.split()


def parse_int(token: str, what: str, *, path=None, line=None) -> int:
    """An integer in the TREC syntax ``[+-]?[0-9]+`` (ASCII digits only)."""
    if not _INT.fullmatch(token):
        raise InputError(f"{what} {token!r} is not an integer (expected ASCII digits, optionally signed).",
                         path=path, line=line, field=what)
    return int(token)


def parse_score(token: str, *, path=None, line=None) -> float:
    """A finite score in the TREC syntax (ASCII digits, sign, decimal point, exponent)."""
    if not _SCORE.fullmatch(token):
        raise InputError(f"score {token!r} is not a finite number (expected e.g. 12, -0.5, 1.5e-3).",
                         path=path, line=line, field="score")
    value = float(token)
    if not np.isfinite(value):
        raise InputError(f"score {token!r} is not a finite number (it overflows a double).", path=path, line=line,
                         field="score")
    return value


def _rows(path, what: str, expected: str, n_fields: int):
    rows = []
    for lineno, line in enumerate(read_text(path, what, expected), start=1):
        fields = split_fields(line)
        if not fields:
            continue
        if len(fields) != n_fields:
            raise InputError(f"expected {n_fields} fields {expected} separated by spaces or tabs, got "
                             f"{len(fields)}: {line!r}.", path=path, line=lineno)
        rows.append((lineno, fields))
    if not rows:
        raise InputError(f"file is empty; expected {what} lines ({expected}).", path=path)
    return rows


def check_duplicates(df, path, id_name):
    dup = df.duplicated(["question_id", id_name], keep=False)
    if dup.any():
        first = df[dup].groupby(["question_id", id_name], sort=False)["line"].agg(list).iloc[0]
        qid, doc = df.loc[dup, ["question_id", id_name]].iloc[0]
        raise InputError(
            f"duplicate document {doc!r} for question {qid!r} (also at line {first[0]}); "
            "each document may appear once per question.",
            path=path,
            line=first[1],
        )


def read_qrels(path) -> pd.DataFrame:
    """Read ``qid iter docid rel [group]`` lines into columns ``question_id, doc_id, relevance, line`` (and
    ``group`` when a line has the fifth field; None on the lines without it)."""
    import pandas as pd

    expected = "'qid iter docid rel' or 'qid iter docid rel group'"
    qids, docs, rels, lines, groups = [], [], [], [], []
    rows = []
    for lineno, line in enumerate(read_text(path, "TREC qrels", expected), start=1):
        fields = split_fields(line)
        if not fields:
            continue
        if len(fields) not in (4, 5):
            raise InputError(f"expected 4 fields {expected} separated by spaces or tabs, got {len(fields)}: "
                             f"{line!r}.", path=path, line=lineno)
        rows.append((lineno, fields))
    if not rows:
        raise InputError(f"file is empty; expected TREC qrels lines ({expected}).", path=path)
    for lineno, fields in rows:
        qids.append(fields[0])
        docs.append(fields[2])
        rels.append(parse_int(fields[3], "relevance label", path=path, line=lineno))
        groups.append(fields[4] if len(fields) == 5 else None)
        lines.append(lineno)
    df = pd.DataFrame({"question_id": qids, "doc_id": docs, "relevance": rels, "line": lines})
    if any(g is not None for g in groups):
        df["group"] = groups
    check_duplicates(df, path, "doc_id")
    df.attrs["path"] = str(path)
    return df


def read_run(path, *, order_by: str = "score") -> pd.DataFrame:
    """Read ``qid Q0 docid rank score tag`` lines, ordered as trec_eval orders them.

    Returns columns ``question_id, doc_id, rank, score, line`` where ``rank`` is the
    position after ordering (1 = best), so the frame can go straight to
    :func:`rag_metrics.evaluate`; the file's own rank is kept as ``file_rank``.
    """
    import pandas as pd

    check_choice(order_by, ORDER_BY, "order_by", func="read_run")
    expected = "'qid Q0 docid rank score tag'"
    qids, docs, ranks, scores, lines = [], [], [], [], []
    for lineno, fields in _rows(path, "TREC run", expected, 6):
        qids.append(fields[0])
        docs.append(fields[2])
        ranks.append(parse_int(fields[3], "rank", path=path, line=lineno))
        scores.append(parse_score(fields[4], path=path, line=lineno))
        lines.append(lineno)
    df = pd.DataFrame({"question_id": qids, "doc_id": docs, "file_rank": ranks, "score": scores, "line": lines})
    check_duplicates(df, path, "doc_id")
    out = order_run(df, order_by=order_by, path=path)
    out.attrs["path"] = str(path)
    return out


def trec_order(question: np.ndarray, score: np.ndarray, doc_ids: Callable[[np.ndarray], np.ndarray],
               greater: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """The permutation that puts rows in trec_eval's order: question code ascending, score descending,
    equal scores by document ID descending (byte / code point order).

    ``doc_ids(rows)`` returns, for the given row positions, the IDs (str or bytes) -- or integer codes
    that sort as the IDs do (a columnar reader ranks its strings itself); it is called only for rows
    whose (question, score) is tied. A columnar reader may also give ``greater(a, b)``: whether the ID of
    row ``a`` sorts after the ID of row ``b``, element-wise; ties of two rows (the common case) are then
    settled by one comparison each instead of a sort. Rows already in order are not sorted.
    """
    question = np.asarray(question)
    score = np.asarray(score, dtype=np.float64)
    n = question.shape[0]
    same_q = question[1:] == question[:-1]
    if n < 2 or ((question[1:] >= question[:-1]).all() and (~same_q | (score[1:] <= score[:-1])).all()):
        order = np.arange(n)
        tie = same_q & (score[1:] == score[:-1])
    else:
        order = np.lexsort((-score, question))
        sq, ss = question[order], score[order]
        tie = (sq[1:] == sq[:-1]) & (ss[1:] == ss[:-1])
    if not tie.any():
        return order
    if greater is not None:
        # a tie of exactly two rows: positions i, i + 1 tied, with no tie on either side
        alone = tie.copy()
        alone[1:] &= ~tie[:-1]
        alone[:-1] &= ~tie[1:]
        first = np.flatnonzero(alone)
        if first.size:
            a, b = order[first], order[first + 1]
            swap = first[~np.asarray(greater(a, b), dtype=bool)]  # the larger ID goes first
            order[swap], order[swap + 1] = order[swap + 1], order[swap].copy()
            tie[first] = False
            if not tie.any():
                return order
    member = np.zeros(n, dtype=bool)
    member[1:] |= tie
    member[:-1] |= tie
    run_id = np.cumsum(np.r_[True, ~tie]) - 1  # one id per run of equal (question, score)
    slots = np.flatnonzero(member)
    keys = np.asarray(doc_ids(order[slots]))
    if keys.dtype.kind not in "iu":
        _, keys = np.unique(keys, return_inverse=True)
    within = np.lexsort((-keys, run_id[slots]))  # each tie run keeps its slots, IDs descending
    order[slots] = order[slots][within]
    return order


def order_run(df: pd.DataFrame, *, order_by: str = "score", path=None) -> pd.DataFrame:
    """Sort a run frame per question and number it: ``rank`` = 1, 2, ... in that order."""
    import pandas as pd

    q_codes, _ = pd.factorize(df["question_id"])
    if order_by == "score":
        docs = df["doc_id"].to_numpy(dtype=object)
        idx = trec_order(q_codes, df["score"].to_numpy(dtype=float), lambda rows: docs[rows].astype(str))
    else:
        ranks = df["file_rank"].to_numpy()
        dup = pd.DataFrame({"q": q_codes, "r": ranks}).duplicated(keep=False)
        if dup.any():
            rows = df[dup.to_numpy()]
            first = rows.iloc[0]
            other = rows[(rows["question_id"] == first["question_id"]) & (rows["file_rank"] == first["file_rank"])]
            raise InputError(
                f"question {first['question_id']!r} has rank {first['file_rank']} twice (lines "
                f"{other['line'].iloc[0]} and {other['line'].iloc[1]}); with order_by='rank' ranks must be unique "
                "per question (or order by score).",
                path=path,
                line=int(other["line"].iloc[1]),
            )
        idx = np.lexsort((ranks, q_codes))
    out = df.iloc[idx].reset_index(drop=True)
    out["rank"] = out.groupby("question_id", sort=False).cumcount() + 1
    return out


def read_doc_map(path) -> dict:
    """Read ``chunk_id<TAB>doc_id`` lines into a dict; a chunk mapped twice is an error."""
    expected = "'chunk_id<TAB>doc_id'"
    mapping: dict = {}
    where: dict = {}
    for lineno, raw in enumerate(read_text(path, "doc map", expected), start=1):
        if not raw.strip(" \t"):
            continue
        parts = raw.split("\t")
        if len(parts) != 2 or not parts[0].strip(" ") or not parts[1].strip(" "):
            raise InputError(f"expected 2 tab-separated fields {expected}, got: {raw!r}.", path=path, line=lineno)
        chunk, doc = parts[0].strip(" "), parts[1].strip(" ")
        if chunk in mapping:
            raise InputError(f"chunk {chunk!r} is mapped twice (also at line {where[chunk]}).", path=path, line=lineno)
        mapping[chunk] = doc
        where[chunk] = lineno
    if not mapping:
        raise InputError(f"file is empty; expected doc map lines ({expected}).", path=path)
    return mapping
