"""Read TREC qrels and run files, refusing anything that would give a silently wrong number.

Formats (whitespace-separated, one judgment or result per line; blank lines skipped):

* qrels: ``qid iter docid rel`` -- ``iter`` is ignored; ``rel`` an integer label.
* run: ``qid Q0 docid rank score tag`` -- ``Q0`` and ``tag`` ignored; ``rank`` an
  integer, ``score`` a finite number.

Ordering (``order_by="score"``, the default, as trec_eval): each question's results are
sorted by score, descending; equal scores by document ID, descending, comparing the
IDs as strings (code point order, which is trec_eval's byte order for UTF-8). The
rank column is ignored. Example: ``d1 score 2.0`` and ``d2 score 2.0`` rank ``d2``
first. With ``order_by="rank"`` the rank column is the order (ascending; two results
with the same rank for one question are an error).

Every error is an :class:`~rag_metrics.errors.InputError` naming the file, the line
and what was expected: missing or empty file, wrong number of fields, non-integer
label or rank, a score that is not a finite number (text, nan, inf), a document
listed twice for one question.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import InputError

__all__ = ["read_qrels", "read_run", "read_doc_map", "order_run"]

ORDER_BY = ("score", "rank")


def _lines(path, what, expected):
    p = Path(path)
    if not p.exists():
        raise InputError(f"file not found; expected a {what} file ({expected}).", path=path)
    if p.is_dir():
        raise InputError(f"is a directory; expected a {what} file ({expected}).", path=path)
    data = p.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8 text (byte {e.start}).", path=path, line=line) from None
    rows = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        fields = line.split()
        if fields:
            rows.append((lineno, fields, line.rstrip("\r")))
    if not rows:
        raise InputError(f"file is empty; expected {what} lines ({expected}).", path=path)
    return rows


def _int(value, path, lineno, what):
    try:
        return int(value)
    except ValueError:
        raise InputError(f"{what} {value!r} is not an integer.", path=path, line=lineno) from None


def _check_duplicates(df, path, id_name):
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
    """Read ``qid iter docid rel`` lines into columns ``question_id, doc_id, relevance, line``."""
    expected = "'qid iter docid rel'"
    rows = _lines(path, "TREC qrels", expected)
    qids, docs, rels, lines = [], [], [], []
    for lineno, fields, raw in rows:
        if len(fields) != 4:
            raise InputError(
                f"expected 4 whitespace-separated fields {expected}, got {len(fields)}: {raw!r}.",
                path=path,
                line=lineno,
            )
        qids.append(fields[0])
        docs.append(fields[2])
        rels.append(_int(fields[3], path, lineno, "relevance label"))
        lines.append(lineno)
    df = pd.DataFrame({"question_id": qids, "doc_id": docs, "relevance": rels, "line": lines})
    _check_duplicates(df, path, "doc_id")
    return df


def read_run(path, *, order_by: str = "score") -> pd.DataFrame:
    """Read ``qid Q0 docid rank score tag`` lines, ordered as trec_eval orders them.

    Returns columns ``question_id, doc_id, rank, score, line`` where ``rank`` is the
    position after ordering (1 = best), so the frame can go straight to
    :func:`rag_metrics.evaluate`; the file's own rank is kept as ``file_rank``.
    """
    if order_by not in ORDER_BY:
        raise ValueError(f"The 'order_by' parameter of read_run must be one of {ORDER_BY}. Got {order_by!r} instead.")
    expected = "'qid Q0 docid rank score tag'"
    rows = _lines(path, "TREC run", expected)
    qids, docs, ranks, scores, lines = [], [], [], [], []
    for lineno, fields, raw in rows:
        if len(fields) != 6:
            raise InputError(
                f"expected 6 whitespace-separated fields {expected}, got {len(fields)}: {raw!r}.",
                path=path,
                line=lineno,
            )
        try:
            score = float(fields[4])
        except ValueError:
            score = math.nan
            finite = False
        else:
            finite = math.isfinite(score)
        if not finite:
            raise InputError(f"score {fields[4]!r} is not a finite number.", path=path, line=lineno)
        qids.append(fields[0])
        docs.append(fields[2])
        ranks.append(_int(fields[3], path, lineno, "rank"))
        scores.append(score)
        lines.append(lineno)
    df = pd.DataFrame({"question_id": qids, "doc_id": docs, "file_rank": ranks, "score": scores, "line": lines})
    _check_duplicates(df, path, "doc_id")
    return order_run(df, order_by=order_by, path=path)


def order_run(df: pd.DataFrame, *, order_by: str = "score", path=None) -> pd.DataFrame:
    """Sort a run frame per question and number it: ``rank`` = 1, 2, ... in that order."""
    q_codes, _ = pd.factorize(df["question_id"])
    if order_by == "score":
        doc_codes, _ = pd.factorize(df["doc_id"], sort=True)
        # lexsort: last key is primary. Score descending, then document ID descending.
        idx = np.lexsort((-doc_codes, -df["score"].to_numpy(dtype=float), q_codes))
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
    rows = _lines(path, "doc map", expected)
    mapping: dict = {}
    where: dict = {}
    for lineno, _fields, raw in rows:
        parts = raw.split("\t")
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise InputError(f"expected 2 tab-separated fields {expected}, got: {raw!r}.", path=path, line=lineno)
        chunk, doc = parts[0].strip(), parts[1].strip()
        if chunk in mapping:
            raise InputError(
                f"chunk {chunk!r} is mapped twice (also at line {where[chunk]}).", path=path, line=lineno
            )
        mapping[chunk] = doc
        where[chunk] = lineno
    return mapping
