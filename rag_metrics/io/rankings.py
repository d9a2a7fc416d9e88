"""Rankings (runs) as one validated type, and a run coded against judgments: what the measures read.

:class:`Run` owns its reading, as ranx's ``Run`` does:

=====================================  ==============================================================
constructor                            reads
=====================================  ==============================================================
``Run.from_file(path, format,          a TREC run ``qid Q0 docid rank score tag`` or a JSON dict
order_by)``                            ``{qid: {docid: score}}``, plain or gzip. A file run is read
                                       when it is evaluated: the columnar readers of
                                       :mod:`rag_metrics.io.trec_fast` join it with the judgments as
                                       they read it (only judged rows are kept, so memory stays flat),
                                       or the line-validating reader (:mod:`rag_metrics.io.trec`)
                                       reads it whole -- the same numbers, or the wrong line named
``Run.from_trec / from_json(path)``    the same, one format
``Run.from_files(paths)``              many TREC run files (a list or a glob), one run split across
                                       them: read partition by partition on Dask
                                       (:mod:`rag_metrics.io.partitions`)
``Run.from_dict(mapping)``             ``{qid: {docid: score}}``, ordered like trec_eval
``Run.from_df(df)``                    a tidy run: ``question_id``, ``rank`` (1 = best; the rank order
                                       is the ranking, ties are an error), ``doc_id`` and/or
                                       ``chunk_id``; or ir_measures' / ranx's ``query_id`` and
                                       ``score`` (ranked like trec_eval)
=====================================  ==============================================================

Ordering of scored runs (files, dicts, frames without ``rank``) is trec_eval's: score descending,
equal scores by ID descending (:func:`rag_metrics.io.trec.trec_order`).

:func:`code_run` joins a run with :class:`~rag_metrics.io.judgments.Qrels` into integer arrays
(:class:`CodedRun`), mapping chunks to documents with a doc map when asked; this is where the
run's IDs are checked against what the evaluation needs (a chunk retrieved twice at chunk level, a
chunk the doc map does not know) with the row or line named.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from rag_metrics.core.errors import InputError, check_choice, wrong_type
from rag_metrics.io.coded import CodedRun

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from rag_metrics.io.judgments import Qrels

__all__ = ["Run", "code_run", "read_doc_map_any", "run_frame", "is_log", "split_by_question", "join_pieces", "plain_bytes"]


READERS = ("auto", "fast", "general")
"""How :meth:`Run.code` reads a file: the fast TREC path, the line-validating reader, or the first that applies."""


class Run:
    """A validated ranking per question (module docstring). Build one with a constructor.

    Attributes: ``source`` (file, or None), ``format`` (``trec``, ``json``, ``dict``, ``dataframe``, ``files``),
    ``order_by`` (``score`` or ``rank`` for files), ``paths`` (the files of :meth:`from_files`).
    """

    def __init__(self, frame=None, *, source=None, format: str = "dataframe", order_by: str = "score", paths=None):
        self._frame = frame
        self.source = None if source is None else str(source)
        self.format = format
        self.order_by = order_by
        self.paths = paths

    # ---- constructors -------------------------------------------------------------------------

    @classmethod
    def from_file(cls, path, format: str = "auto", *, order_by: str = "score") -> Run:
        """A run file (TREC text or a JSON dict; plain or gzip), read when evaluated (module docstring)."""
        from rag_metrics.io import formats, trec

        check_choice(format, formats.RUN_FORMATS, "format", func="Run.from_file", field="run_format")
        check_choice(order_by, trec.ORDER_BY, "order_by", func="Run.from_file")
        trec.check_readable(path, "TREC run")
        fmt = formats.detect_format(path, "run file") if format == "auto" else format
        return cls(source=path, format=fmt, order_by=order_by)

    @classmethod
    def from_trec(cls, path, *, order_by: str = "score") -> Run:
        return cls.from_file(path, "trec", order_by=order_by)

    @classmethod
    def from_json(cls, path) -> Run:
        return cls.from_file(path, "json")

    @classmethod
    def from_files(cls, paths) -> Run:
        """Many TREC run files of one run (a glob or a list), read partition by partition on Dask."""
        import glob

        files = sorted(glob.glob(paths)) if isinstance(paths, (str, os.PathLike)) else [str(p) for p in paths]
        if not files:
            raise InputError(f"no run file matches {paths!r}.")
        return cls(source=str(paths) if isinstance(paths, (str, os.PathLike)) else None, format="files", paths=files)

    def partitions(self):
        """A :meth:`from_files` run as a Dask DataFrame, one partition per file (:mod:`rag_metrics.io.partitions`)."""
        from rag_metrics.io.partitions import trec_run_frame

        if not self.paths:
            raise InputError("only a run read with Run.from_files has partitions.")
        return trec_run_frame(self.paths)

    @classmethod
    def from_partition(cls, part: pd.DataFrame, files: list) -> Run:
        """The whole questions of one shuffled partition of :meth:`partitions`, checked across files and ordered
        like trec_eval."""
        from rag_metrics.io.partitions import ordered_partition

        return cls(ordered_partition(part, files), format="trec")

    @classmethod
    def from_dict(cls, run: Mapping) -> Run:
        """``{question_id: {doc_id: score}}`` with finite scores, ordered like trec_eval."""
        import pandas as pd

        if not isinstance(run, Mapping):
            raise InputError(f"Run.from_dict: expected a mapping {{question_id: {{doc_id: score}}}}, got "
                             f"{type(run).__name__}.")
        rows = []
        for qid, docs in run.items():
            if not isinstance(qid, str) or not qid or not isinstance(docs, Mapping):
                raise InputError(f"Run.from_dict: question {qid!r}: expected a string ID and a mapping doc_id -> score.")
            for doc, score in docs.items():
                if not isinstance(doc, str) or not doc:
                    raise InputError(f"Run.from_dict: question {qid!r}: document ID {doc!r} is not a non-empty string.")
                if isinstance(score, bool) or not isinstance(score, numbers.Real) or not math.isfinite(score):
                    raise InputError(f"Run.from_dict: question {qid!r}, document {doc!r}: score {score!r} is not a "
                                     "finite number.", field="score")
                rows.append((qid, doc, float(score)))
        frame = pd.DataFrame(rows, columns=["question_id", "doc_id", "score"])
        run = cls.from_df(frame)
        run.format = "dict"
        return run

    @classmethod
    def from_df(cls, df: pd.DataFrame, *, q_id_col: str | None = None, doc_id_col: str | None = None,
                score_col: str | None = None, rank_col: str | None = None) -> Run:
        """A tidy run (module docstring); the keywords name other columns (ranx's ``q_id_col``, ``doc_id_col``,
        ``score_col``). Question IDs and ranks are checked here; the IDs when the run is coded (which ID
        column is read depends on the evaluation's level)."""
        from rag_metrics.io import frames

        frames.require_columns(df, "run", [], func="Run.from_df")
        df = frames.renamed(df, q_id_col, {doc_id_col: "doc_id", score_col: "score", rank_col: "rank"})
        id_cols = [c for c in ("chunk_id", "doc_id") if c in df.columns]
        if "rank" not in df.columns and "score" in df.columns and "question_id" in df.columns and id_cols:
            df = df.assign(rank=frames.ranks_from_scores(df, id_cols[0]))
        return cls(df, source=df.attrs.get("path"), format="dataframe")

    @classmethod
    def coerce(cls, run, *, format: str = "auto", order_by: str = "score", func: str = "evaluate") -> Run:
        """``run`` as a Run: a Run as it is; a DataFrame, a retrieval log (its run table, :func:`run_frame`), a
        mapping, or a path."""
        if isinstance(run, Run):
            return run
        if isinstance(run, Mapping):
            return cls.from_dict(run)
        if isinstance(run, (str, os.PathLike)):
            return cls.from_file(run, format, order_by=order_by)
        return cls.from_df(run_frame(run, func=func, expected="a Run, a DataFrame, a RunLog, a mapping or a path"))

    # ---- reading and views ----------------------------------------------------------------------

    @property
    def is_file(self) -> bool:
        """Read when evaluated (a file run), not yet in memory."""
        return self._frame is None and self.format in ("trec", "json")

    def read(self) -> Run:
        """This run in memory: a file run read whole by the line-validating reader (every problem named by its
        line), any other run as it is."""
        if self._frame is not None or not self.is_file:
            return self
        from rag_metrics.io import formats

        table = formats.read_run_file(self.source, self.format, order_by=self.order_by)
        return Run(table, source=self.source, format=self.format, order_by=self.order_by)

    @property
    def frame(self) -> pd.DataFrame:
        """The run's table as given (after renaming and ranking scores); a file run is read first."""
        return self.read()._frame

    @cached_property
    def _checked(self):
        from rag_metrics.io import frames

        df = self.frame
        frames.require_columns(df, "run", ["question_id", "rank"])
        r_q = frames.id_strings(df, "run", "question_id")
        r_rank = frames.ranks(df)
        dup = frames.first_duplicate(r_q, r_rank)
        if dup is not None:
            raise frames.located(df, "run", dup, f"question {r_q[dup]!r} has rank {int(r_rank[dup])} twice; the rank "
                                 "order is the ranking, so ties must be broken first.", "rank")
        return r_q, r_rank

    def ids(self, column: str) -> np.ndarray:
        """The IDs of ``column`` as strings (validated), in row order."""
        from rag_metrics.io import frames

        cache = self.__dict__.setdefault("_ids", {})
        if column not in cache:
            frames.require_columns(self.frame, "run", ["question_id", "rank", column])
            self._checked
            cache[column] = frames.id_strings(self.frame, "run", column)
        return cache[column]

    def id_column(self, level: str, doc_map) -> str:
        """The column the evaluation reads: a file run has one ID column (``doc_id``, the IDs as written); a frame's
        ``chunk_id`` at chunk level or with a doc map, else its ``doc_id``."""
        if self.format not in ("dataframe", "dict"):
            return "doc_id"
        return "chunk_id" if (level == "chunk" or doc_map is not None) else "doc_id"

    def code(self, qrels: Qrels, *, level: str = "document", doc_map: dict | None = None,
             reader: str = "auto") -> CodedRun:
        """This run joined with ``qrels`` (:class:`CodedRun`), read by ``reader``:

        ``"auto"``: a TREC file ordered by score by the columnar readers (:mod:`rag_metrics.io.trec_fast`) when
        they can take it, else (and any other run) as :func:`code_run` reads it; ``"fast"``: the columnar readers
        or an :class:`~rag_metrics.core.errors.InputError` saying why not; ``"general"``: :func:`code_run`, a file read
        whole by the line-validating reader. ``CodedRun.reader`` names the reader that read it.
        """
        check_choice(reader, READERS, "reader", func="Run.code")
        if reader == "fast" and not self.is_file:
            raise InputError("engine='fast' reads TREC files; this run is already in memory (use engine='auto').")
        if reader != "general" and self.is_file:
            from rag_metrics.io.trec_fast import FastPathUnavailable, code_run_fast

            if self.format != "trec":
                why = "the fast path reads TREC text"
            elif self.order_by != "score":
                why = "the fast path orders by score"
            elif qrels.has_groups:
                why = "the fast path does not carry evidence groups"
            else:
                try:
                    return code_run_fast(qrels, self.source, doc_map=doc_map)
                except FastPathUnavailable as e:
                    why = str(e)
            if reader == "fast":
                raise InputError(f"engine='fast' cannot evaluate these files: {why}; use engine='auto' or 'general'.")
        return code_run(qrels, self, level=level, doc_map=doc_map)

    def to_dataframe(self) -> pd.DataFrame:
        """``question_id``, ``rank`` and the ID (and score) columns, sorted by question and rank."""
        df = self.frame
        cols = [c for c in ("question_id", "rank", "doc_id", "chunk_id", "score") if c in df.columns]
        return df[cols].sort_values(["question_id", "rank"], kind="stable").reset_index(drop=True)

    def to_dict(self) -> dict:
        """``{question_id: {doc_id: score}}`` (the score column, else 1/rank), in rank order."""
        df = self.to_dataframe()
        col = "doc_id" if "doc_id" in df.columns else "chunk_id"
        scores = df["score"] if "score" in df.columns else 1.0 / df["rank"]
        out: dict = {}
        for q, d, s in zip(df["question_id"].astype(str), df[col].astype(str), scores.astype(float)):
            out.setdefault(q, {})[d] = s
        return out

    def __repr__(self) -> str:
        if self.paths:
            return f"Run({len(self.paths)} files)"
        if self.is_file:
            return f"Run({self.format} file {self.source}, read when evaluated)"
        return f"Run({len(self._frame)} rows{' from ' + self.source if self.source else ''})"


def is_log(value) -> bool:
    """A retrieval log (:class:`~rag_metrics.io.logs.RunLog`): its run table and its questions (duck-typed: this
    module sits below the log reader)."""
    return type(value).__name__ == "RunLog" and hasattr(value, "run") and hasattr(value, "questions")


def run_frame(run, *, func: str = "evaluate", expected: str = "a DataFrame or a RunLog") -> pd.DataFrame:
    """The run table a function reads: a DataFrame as it is, a retrieval log's ``run`` table (one row per retrieved
    item: question_id, rank, doc_id as matched -- or as logged when the log was read without the golden set --,
    chunk_id, pages, text, score); anything else an :class:`~rag_metrics.core.errors.InputTypeError`."""
    if is_log(run):
        return run.run
    if type(run).__name__ == "DataFrame" and type(run).__module__.startswith("pandas"):
        return run
    hint = ("evaluate_trec(qrels_path, run_path) reads TREC files; rag_metrics.evaluate_log(golden, log_path) a "
            "retrieval log." if isinstance(run, (str, os.PathLike)) else "")
    raise wrong_type(run, "run", expected, func=func, hint=hint)


def read_doc_map_any(doc_map) -> dict | None:
    """A doc map as ``{chunk_id: doc_id}``: a mapping or Series as it is, a path read as ``chunk_id<TAB>doc_id``."""
    if doc_map is None:
        return None
    if isinstance(doc_map, (str, os.PathLike)):
        from rag_metrics.io.trec import read_doc_map

        return read_doc_map(doc_map)
    if hasattr(doc_map, "to_dict") and not isinstance(doc_map, Mapping):
        doc_map = doc_map.to_dict()
    if not isinstance(doc_map, Mapping):
        raise InputError(f"evaluate: 'doc_map' must be a mapping or Series chunk_id -> doc_id, got "
                         f"{type(doc_map).__name__}.")
    return {str(c): d for c, d in doc_map.items()}


def code_run(qrels: Qrels, run: Run, *, level: str = "document", doc_map: dict | None = None) -> CodedRun:
    """``run`` joined with ``qrels`` as integer arrays (module docstring); every row of the run kept.

    At chunk level an ID may appear once per question; at document level with a doc map every chunk must be
    in it; otherwise the error names the row (or the file and line).
    """
    import pandas as pd

    from rag_metrics.io import frames

    run = run.read()
    column = run.id_column(level, doc_map)
    items = run.ids(column)
    r_q, r_rank = run._checked
    df = run.frame
    if level == "chunk":
        dup = frames.first_duplicate(r_q, items)
        if dup is not None:
            raise frames.located(df, "run", dup, f"chunk {items[dup]!r} is retrieved twice for question {r_q[dup]!r}; "
                                 "at chunk level each chunk may appear once.", column)
    if doc_map is not None:
        docs = np.array([doc_map.get(c) for c in items], dtype=object)
        missing = np.array([d is None for d in docs], dtype=bool)
        if missing.any():
            pos = int(np.flatnonzero(missing)[0])
            raise frames.located(df, "run", pos, f"unknown chunk ID {items[pos]!r} (question {r_q[pos]!r}): it is not "
                                 "in the doc map.", column)
        items = np.array([str(d) for d in docs], dtype=object)
    questions = qrels.prepared_index
    q_code = questions.get_indexer(r_q)
    known = q_code >= 0
    unknown = tuple(pd.unique(r_q[~known]))
    q_code, r_rank, items = q_code[known], r_rank[known], items[known]
    sort = np.lexsort((r_rank, q_code))
    gold_q, gold_ids, gold_label = qrels.judged_rows
    codes, _ = pd.factorize(np.concatenate([gold_ids, items]))
    n_gold = len(gold_ids)
    return CodedRun(len(qrels.questions), gold_q, codes[:n_gold], gold_label, run_q=q_code[sort],
                    run_item=codes[n_gold:][sort], dedup=(level == "document"), unknown_questions=unknown,
                    reader="dataframe" if run.format in ("dataframe", "dict") else "general",
                    groups=qrels.group_rows(codes[:n_gold]))


def split_by_question(client, paths: list, out_dir, *, n_buckets: int, part_bytes: int | None = None,
                      name: str = "part") -> list:
    """Plain TREC files (a run's or judgments) split by question into ``n_buckets`` buckets on a Dask cluster:
    per bucket, its pieces ``(file, start, stop)`` (:func:`rag_metrics.io.partitions.split_files`)."""
    from rag_metrics.io import partitions

    return partitions.split_files(client, paths, out_dir, n_buckets=n_buckets, name=name,
                                  part_bytes=part_bytes or partitions.PART_BYTES)


def join_pieces(pieces: list, out_path) -> int:
    """One bucket of :func:`split_by_question` as one file (bytes written)."""
    from rag_metrics.io import partitions

    return partitions.join_pieces(pieces, out_path)


def plain_bytes(run: Run) -> int | None:
    """The total size of a :meth:`Run.from_files` run's files when none is gzip-compressed (they can then be split by
    byte ranges, :func:`split_by_question`), else None."""
    from rag_metrics.io.trec import is_gzip

    if not run.paths or any(is_gzip(p) for p in run.paths):
        return None
    return sum(os.path.getsize(p) for p in run.paths)
