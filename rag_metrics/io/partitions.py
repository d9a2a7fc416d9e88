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

__all__ = ["trec_run_frame", "ordered_partition"]

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
