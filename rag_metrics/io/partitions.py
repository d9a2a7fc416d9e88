"""Runs split across many TREC files, read as partitions of a Dask DataFrame (one file, one partition).

Behind :meth:`Run.from_files <rag_metrics.io.rankings.Run.from_files>` and ``rag-metrics evaluate QRELS
'logs/run-*.txt' --engine dask``. Each file is read by the line-validating reader
(:mod:`rag_metrics.io.trec`), so a bad line is reported with its file and line, as in memory. Once the
rows of a question are together (the caller shuffles by question), :func:`ordered_partition` checks
that no document is listed twice for a question across files (naming both places) and orders the
question like trec_eval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError

__all__ = ["trec_run_frame", "ordered_partition", "line_ranges", "question_buckets", "split_range", "split_files",
           "join_pieces", "read_range", "lines_before", "PART_BYTES"]

_META = {"question_id": object, "doc_id": object, "file_rank": "int64", "score": "float64", "line": "int64",
         "rank": "int64", "file": "int64"}


def _read_one(path, index):
    from rag_metrics.io.trec import read_run

    frame = read_run(path, order_by="score")
    frame["file"] = np.int64(index)
    frame.attrs = {}
    return frame


def trec_run_frame(files: list):
    """A Dask DataFrame with one partition per run file: ``question_id, doc_id, file_rank, score, line, rank,
    file`` (``file``: the position of the file in ``files``)."""
    import dask
    import dask.dataframe as dd

    meta = pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in _META.items()})
    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_map(_read_one, files, list(range(len(files))), meta=meta)


def _check_duplicates(part: pd.DataFrame, files: list) -> None:
    """A document listed twice for one question across files: the error names both places."""
    dup = part.duplicated(["question_id", "doc_id"], keep=False)
    if dup.any():
        rows = part[dup].sort_values(["file", "line"])
        first, second = rows.iloc[0], rows[(rows["question_id"] == rows.iloc[0]["question_id"])
                                            & (rows["doc_id"] == rows.iloc[0]["doc_id"])].iloc[1]
        raise InputError(f"duplicate document {first['doc_id']!r} for question {first['question_id']!r} (also at "
                         f"{files[first['file']]}:{first['line']}); each document may appear once per question.",
                         path=files[second["file"]], line=int(second["line"]))


def ordered_partition(part: pd.DataFrame, files: list) -> pd.DataFrame:
    """The rows of whole questions, checked across files and ordered like trec_eval (``rank`` renumbered)."""
    from rag_metrics.io.trec import order_run

    _check_duplicates(part, files)
    return order_run(part.sort_values(["file", "line"]), order_by="score")


# ---- one large file (or many), split by question on the cluster: byte ranges in, question buckets out ---------

PART_BYTES = 16 << 20
"""Bytes of text one split task reads (a range of whole lines). Its peak memory is a few times this."""
_BOM = b"\xef\xbb\xbf"
_QID_BYTES = 32  # a question ID's first bytes decide its bucket (equal IDs, equal buckets; longer IDs may share one)


def line_ranges(path, part_bytes: int = PART_BYTES) -> list:
    """``(start, stop)`` byte ranges of about ``part_bytes`` covering a plain (not gzip) file, each starting at the
    start of a line and ending after a newline (or at the end of the file)."""
    import os

    size = os.path.getsize(path)
    bounds = [0]
    with open(path, "rb") as f:
        position = part_bytes
        while position < size:
            f.seek(position - 1)
            f.readline()  # through the newline at or after position - 1: the next line starts here
            start = f.tell()
            if start >= size:
                break
            bounds.append(start)
            position = start + part_bytes
    bounds.append(size)
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def question_buckets(data: bytes, n_buckets: int) -> np.ndarray:
    """Each line's bucket in ``range(n_buckets)``, a function of its first field alone (the question ID: after any
    leading spaces or tabs, up to the next space, tab or control character): every line of one question lands in
    one bucket, in any file. ``data`` ends with a newline."""
    from rag_metrics.io.trec_tokens import MIX, id_keys

    raw = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(raw == 10)
    starts = np.r_[0, newlines[:-1] + 1].astype(np.int32 if raw.size < 2**31 - _QID_BYTES else np.int64)
    for line in np.flatnonzero((raw[starts] == 32) | (raw[starts] == 9)).tolist():  # indented lines (rare)
        end = int(newlines[line])
        starts[line] = end - len(data[int(starts[line]):end].lstrip(b" \t"))
    blanks = np.flatnonzero(raw <= 32)  # every line has one: its newline
    ends = np.minimum(blanks[np.searchsorted(blanks, starts)], starts + _QID_BYTES)
    width = max(1, int((ends - starts).max(initial=1)))
    matrix = raw[np.minimum(starts[:, None] + np.arange(width), ends[:, None])]
    matrix[np.arange(width) >= (ends - starts)[:, None]] = 0
    keys = id_keys(matrix, 4)[0]
    return ((keys * np.uint64(MIX)) >> np.uint64(33)) % np.uint64(n_buckets)


def split_range(path, start: int, stop: int, n_buckets: int, out_path) -> dict:
    """The lines of ``path[start:stop]`` written to ``out_path`` grouped by bucket (:func:`question_buckets`), each
    bucket's lines in file order; returns ``{"offsets": n_buckets + 1 byte offsets of the buckets in out_path,
    "lines": lines read}``. A leading byte-order mark of the file is dropped; a last line without a newline gets
    one."""
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read(stop - start)
    if start == 0 and data.startswith(_BOM):
        data = data[3:]
    if not data.endswith(b"\n"):
        data += b"\n"
    bucket = question_buckets(data, n_buckets)
    lines = data.split(b"\n")[:-1]
    del data
    order = np.argsort(bucket, kind="stable")
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines)) + 1
    sizes = np.bincount(bucket.astype(np.int64), weights=lengths, minlength=n_buckets).astype(np.int64)
    with open(out_path, "wb") as out:
        out.write(b"\n".join([lines[i] for i in order.tolist()]))
        out.write(b"\n" if lines else b"")
    return {"offsets": np.r_[0, np.cumsum(sizes)].tolist(), "lines": len(lines)}


def split_files(client, paths: list, out_dir, *, n_buckets: int, part_bytes: int = PART_BYTES, name: str = "part"):
    """Plain TREC files (a run's, or qrels) split by question into ``n_buckets`` buckets on the Dask ``client``'s
    workers, one task per byte range of whole lines (:func:`line_ranges`, :func:`split_range`): per bucket, the
    list of its pieces ``(file, start, stop)`` in file order. Every worker must see ``paths`` and ``out_dir``."""
    from pathlib import Path

    ranges = [(str(p), a, b) for p in paths for a, b in line_ranges(p, part_bytes)]
    outs = [str(Path(out_dir) / f"{name}-{i:05d}.txt") for i in range(len(ranges))]
    futures = client.map(split_range, [r[0] for r in ranges], [r[1] for r in ranges], [r[2] for r in ranges],
                         [n_buckets] * len(ranges), outs, pure=False)
    results = client.gather(futures)
    return [[(out, r["offsets"][b], r["offsets"][b + 1]) for out, r in zip(outs, results)
             if r["offsets"][b + 1] > r["offsets"][b]] for b in range(n_buckets)]


def join_pieces(pieces: list, out_path) -> int:
    """The pieces ``(file, start, stop)`` of one bucket written one after the other to ``out_path``; bytes
    written."""
    total = 0
    with open(out_path, "wb") as out:
        for path, start, stop in pieces:
            with open(path, "rb") as f:
                f.seek(start)
                total += out.write(f.read(stop - start))
    return total


# ---- a JSON lines log read range by range: each range whole records (lines), never a record cut in two -----------

def read_range(path, start: int, stop: int) -> bytes:
    """The bytes ``path[start:stop]``: one range of :func:`line_ranges`, whole lines (records) only."""
    with open(path, "rb") as f:
        f.seek(start)
        return f.read(stop - start)


def lines_before(path, offset: int, chunk_bytes: int = PART_BYTES) -> int:
    """How many lines of ``path`` end before byte ``offset`` (the start of a range of :func:`line_ranges`): added to
    a line number counted within the range, it gives the file's own line number. Reads ``chunk_bytes`` at a time."""
    count = 0
    with open(path, "rb") as f:
        left = offset
        while left > 0:
            block = f.read(min(chunk_bytes, left))
            if not block:
                break
            count += block.count(b"\n")
            left -= len(block)
    return count
