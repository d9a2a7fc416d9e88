"""Judgments (qrels, a golden set's gold) as one validated type, read once, whatever the format.

:class:`Qrels` owns its reading, as ranx's ``Qrels`` does: one constructor per source, every
problem named by file and line (or by question and ID, or by column and row), nothing read
twice. The measures (:mod:`rag_metrics.measures`) take a ``Qrels`` and never open a file.

=====================================  ==============================================================
constructor                            reads
=====================================  ==============================================================
``Qrels.from_file(path, format)``      TREC ``qid iter docid rel``, BEIR ``qrels/<split>.tsv``, or a
                                       JSON dict ``{qid: {docid: rel}}``; plain or gzip; ``format=
                                       "auto"`` recognizes them from the content
                                       (:mod:`rag_metrics.io.trec`, :mod:`rag_metrics.io.formats`)
``Qrels.from_trec / from_beir /        the same, one format
from_json(path)``
``Qrels.from_dict(mapping)``           ``{qid: {docid: label}}`` (pytrec_eval, ranx, ir_measures)
``Qrels.from_df(df, level=...)``       a tidy golden set: ``question_id``, ``doc_id`` (or ``chunk_id``
                                       with ``level="chunk"``), optional ``relevance`` and question
                                       attributes such as ``type``; a null ID declares a question
                                       without gold (evaluated, its undefined measures counted);
                                       ir_measures' / ranx's column names are accepted
``Qrels.from_golden(golden, level)``   a :class:`~rag_metrics.io.golden.GoldenSet`
=====================================  ==============================================================

TREC text is read by the columnar readers of :mod:`rag_metrics.io.trec_fast` when the file is
plain (one space between fields, ASCII digits...), else by the line-validating reader, which
either reads the same judgments or names the line that is wrong; a differential test feeds both
the same odd files.

Views: :attr:`Qrels.questions` (order of first appearance), :meth:`Qrels.to_dataframe`,
:meth:`Qrels.to_dict`, ``len(qrels)`` (judgment rows).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from rag_metrics.core.errors import InputError, check_choice

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Qrels", "QrelsReaders", "LEVELS"]

LEVELS = ("document", "chunk")


def check_level(level, func: str) -> str:
    return check_choice(level, LEVELS, "level", func=func)


class QrelsReaders:
    """How :class:`Qrels` are built: one constructor per source of judgments (the module docstring's table),
    each validating as it reads. :class:`Qrels` inherits them; what a ``Qrels`` holds and shows is its own."""

    @classmethod
    def from_file(cls, path, format: str = "auto") -> Qrels:
        """Qrels from a TREC, BEIR or JSON file (plain or gzip); ``format="auto"`` recognizes it."""
        from rag_metrics.io import formats, trec

        check_choice(format, formats.QRELS_FORMATS, "format", func="Qrels.from_file", field="qrels_format")
        trec.check_readable(path, "TREC qrels")
        fmt = formats.detect_format(path, "qrels file") if format == "auto" else format
        if fmt == "trec":
            from rag_metrics.io.trec_fast import FastPathUnavailable, read_qrels_fast

            try:
                data = read_qrels_fast(path)
            except FastPathUnavailable:
                pass  # the line-validating reader reads the same judgments or names the wrong line
            else:
                if "polars" in data:
                    qrels = cls(source=path, format="trec", _polars=data["polars"])
                    qrels.__dict__["questions"] = data["questions"]
                    qrels.__dict__["question_codes"] = data["question_codes"]
                    return qrels
                qrels = cls(data["qids"], data["docs"], data["labels"], source=path, format="trec")
                qrels.__dict__["questions"] = data["questions"]
                qrels.__dict__["question_codes"] = data["question_codes"]
                qrels.__dict__["judged_rows"] = (data["question_codes"], qrels.arrays[1], qrels.arrays[2])
                qrels.__dict__["_id_bytes"] = data["id_bytes"]
                return qrels
        return cls._from_table(formats.read_qrels_file(path, fmt), fmt)

    @classmethod
    def from_trec(cls, path) -> Qrels:
        return cls.from_file(path, "trec")

    @classmethod
    def from_beir(cls, path) -> Qrels:
        return cls.from_file(path, "beir")

    @classmethod
    def from_json(cls, path) -> Qrels:
        return cls.from_file(path, "json")

    @classmethod
    def _from_table(cls, table, fmt: str) -> Qrels:
        """From the readers' table (question_id, doc_id, relevance, line[, group]), already validated."""
        from rag_metrics.io import frames

        qids, labels = table["question_id"].to_numpy(dtype=object), table["relevance"].to_numpy(dtype=np.float64)
        return cls(qids, table["doc_id"].to_numpy(dtype=object), labels, lines=table["line"].to_numpy(dtype=np.int64),
                   source=table.attrs.get("path"), format=fmt, frame=table,
                   groups=frames.groups(table, np.ones(len(table), dtype=bool), qids, labels, "qrels"))

    @classmethod
    def from_dict(cls, qrels: Mapping) -> Qrels:
        """``{question_id: {doc_id: label}}`` with finite numeric labels (an empty inner dict: a question without
        gold)."""
        if not isinstance(qrels, Mapping):
            raise InputError(f"Qrels.from_dict: expected a mapping {{question_id: {{doc_id: label}}}}, got "
                             f"{type(qrels).__name__}.")
        qids, docs, rels = [], [], []
        for qid, judged in qrels.items():
            if not isinstance(qid, str) or not qid:
                raise InputError(f"Qrels.from_dict: question ID {qid!r} is not a non-empty string.")
            if not isinstance(judged, Mapping):
                raise InputError(f"Qrels.from_dict: question {qid!r}: expected a mapping doc_id -> label, got "
                                 f"{type(judged).__name__}.")
            if not judged:
                qids.append(qid), docs.append(None), rels.append(np.nan)
            for doc, label in judged.items():
                if not isinstance(doc, str) or not doc:
                    raise InputError(f"Qrels.from_dict: question {qid!r}: document ID {doc!r} is not a non-empty "
                                     "string.")
                if isinstance(label, bool) or not isinstance(label, numbers.Real) or not math.isfinite(label):
                    raise InputError(f"Qrels.from_dict: question {qid!r}, document {doc!r}: label {label!r} is not a "
                                     "finite number.", field="relevance")
                qids.append(qid), docs.append(doc), rels.append(float(label))
        return cls(qids, docs, rels, format="dict")

    @classmethod
    def from_df(cls, df: pd.DataFrame, *, level: str = "document", q_id_col: str | None = None,
                doc_id_col: str | None = None, score_col: str | None = None) -> Qrels:
        """A tidy golden set (module docstring). ``q_id_col`` / ``doc_id_col`` / ``score_col`` name other columns
        (ranx's keywords); by default ``question_id`` (or ``query_id``), ``doc_id`` at document level or
        ``chunk_id`` at chunk level, and ``relevance`` (1 for every row without it)."""
        from rag_metrics.io import frames

        check_level(level, "Qrels.from_df")
        id_col = "doc_id" if level == "document" else "chunk_id"
        frames.require_columns(df, "golden", [], func="Qrels.from_df")
        df = frames.renamed(df, q_id_col, {doc_id_col: id_col, score_col: "relevance"})
        frames.require_columns(df, "golden", ["question_id", id_col], func="Qrels.from_df")
        g_q = frames.id_strings(df, "golden", "question_id")
        g_id = frames.id_strings(df, "golden", id_col, allow_null=True)
        judged = np.array([v is not None for v in g_id], dtype=bool)
        g_rel = frames.relevance(df, judged, id_col, g_id, g_q)
        dup = frames.first_duplicate(g_q[judged], g_id[judged])
        if dup is not None:
            pos = int(np.flatnonzero(judged)[dup])
            raise frames.located(df, "golden", pos, f"duplicate gold {id_col} {g_id[pos]!r} for question {g_q[pos]!r}; "
                                 "each (question, ID) pair must appear once.", id_col)
        g_rel = np.where(judged, g_rel, np.nan)
        lines = df["line"].to_numpy(dtype=np.int64) if "line" in df.columns else None
        return cls(g_q, g_id, g_rel, lines=lines, source=df.attrs.get("path"), format="dataframe",
                   attributes=frames.question_attributes(df, g_q, id_col), id_column=id_col, frame=df,
                   groups=frames.groups(df, judged, g_q, g_rel))

    @classmethod
    def from_golden(cls, golden, *, level: str = "document") -> Qrels:
        """The gold of a :class:`~rag_metrics.io.golden.GoldenSet`: its documents (``level="document"``, labels from
        its ``relevance``) or its chunk IDs (``level="chunk"``); question types kept as attributes."""
        check_level(level, "Qrels.from_golden")
        if level == "document":
            qrels = cls.from_df(golden.document_gold() if hasattr(golden, "document_gold") else golden.gold)
        else:
            if golden.gold_chunks is None or not len(golden.gold_chunks):
                raise InputError("the golden set has no gold chunk IDs (gold_chunks); evaluate at document level.",
                                 path=golden.source)
            qrels = cls.from_df(golden.chunk_gold(), level="chunk")
        qrels.source = golden.source
        return qrels

    @classmethod
    def coerce(cls, golden, *, level: str = "document", format: str = "auto", func: str = "evaluate") -> Qrels:
        """``golden`` as Qrels: a Qrels as it is; a DataFrame, a mapping, a GoldenSet, or a path to a file."""
        import os

        if isinstance(golden, Qrels):
            return golden
        if isinstance(golden, Mapping):
            return cls.from_dict(golden)
        if isinstance(golden, (str, os.PathLike)):
            return cls.from_file(golden, format)
        if hasattr(golden, "gold") and hasattr(golden, "gold_pages"):
            return cls.from_golden(golden, level=level)
        if type(golden).__name__ == "DataFrame":
            return cls.from_df(golden, level=level)
        raise TypeError(f"{func}: 'golden' must be Qrels, a DataFrame, a GoldenSet, a mapping or a path, "
                        f"got {type(golden).__name__}.")


class Qrels(QrelsReaders):
    """Validated judgments: ``(question, ID, label)`` rows, each pair once.

    Build one with a constructor (module docstring), not directly. Attributes: ``source`` (the file
    read, or None), ``format`` (``trec``, ``beir``, ``json``, ``dict``, ``dataframe``), ``id_column``
    (``doc_id`` or ``chunk_id``: what the IDs are, for messages), ``attributes`` (per-question
    columns of a golden-set frame, or None).
    """

    def __init__(self, question_ids=None, doc_ids=None, relevance=None, *, lines=None, source=None,
                 format: str = "arrays", attributes=None, id_column: str = "doc_id", frame=None, groups=None,
                 _polars=None):
        self._arrays = None if question_ids is None else (
            np.asarray(question_ids, dtype=object), np.asarray(doc_ids, dtype=object),
            np.asarray(relevance, dtype=np.float64), None if lines is None else np.asarray(lines, dtype=np.int64))
        self._polars = _polars
        self.source = None if source is None else str(source)
        self.format = format
        self.attributes = attributes
        self.id_column = id_column
        self.frame = frame  # the validated frame a DataFrame constructor read (rows named in later errors)
        self.groups = groups  # per row, its evidence groups' labels ([] for none); None when no row has one

    # ---- views ----------------------------------------------------------------------------------

    @property
    def arrays(self) -> tuple:
        """``(question_ids, ids, labels, lines)``: object arrays of strings (an ID None declares a question without
        gold; its label is NaN), float labels, and file lines (or None)."""
        if self._arrays is None:
            pl = self._polars
            self._arrays = (np.array(pl["qid"].to_list(), dtype=object), np.array(pl["doc"].to_list(), dtype=object),
                            pl["rel"].to_numpy().astype(np.float64), None)
        return self._arrays

    @cached_property
    def questions(self) -> tuple:
        """Question IDs in order of first appearance."""
        if self._arrays is None and self._polars is not None:
            return tuple(self._polars["qid"].unique(maintain_order=True).to_list())
        return tuple(dict.fromkeys(self.arrays[0].tolist()))

    @cached_property
    def question_codes(self) -> np.ndarray:
        """Each row's question as its position in :attr:`questions`."""
        if self._arrays is None and self._polars is not None:
            import polars as pl

            codes = self._polars.select(pl.col("qid").rank("dense").cast(pl.Int64) - 1).to_series().to_numpy()
            first = np.full(int(codes.max()) + 1 if codes.size else 0, codes.size, dtype=np.int64)
            np.minimum.at(first, codes, np.arange(codes.size))
            relabel = np.empty_like(first)
            relabel[np.argsort(first, kind="stable")] = np.arange(first.size)
            return relabel[codes]
        index = {q: i for i, q in enumerate(self.questions)}
        return np.fromiter(map(index.__getitem__, self.arrays[0].tolist()), dtype=np.int64, count=len(self))

    @cached_property
    def prepared_index(self):
        """:attr:`questions` as a pandas Index (position lookups for many runs)."""
        import pandas as pd

        return pd.Index(list(self.questions), name="question_id", dtype=object)

    @cached_property
    def judged_rows(self) -> tuple:
        """``(question codes, IDs, labels)`` of the rows that judge an ID (not the questions declared without gold)."""
        qids, ids, labels, _ = self.arrays
        judged = self._judged_mask
        return self.question_codes[judged], ids[judged], labels[judged]

    @cached_property
    def _judged_mask(self) -> np.ndarray:
        return np.array([i is not None for i in self.arrays[1].tolist()], dtype=bool)

    @property
    def has_groups(self) -> bool:
        """Whether some judgment names evidence groups (``sufficiency@k``)."""
        return self.groups is not None

    def group_rows(self, item_codes: np.ndarray):
        """``(group_q, group_item, group_id, group_label)`` for the array kernels: one row per (evidence group, judged
        member), group codes unique over all questions; ``item_codes`` codes the :attr:`judged_rows`' IDs. None
        without groups."""
        if self.groups is None:
            return None
        gold_q, _, labels = self.judged_rows
        qids = self.arrays[0]
        rows, codes = [], {}
        for j, pos in enumerate(np.flatnonzero(self._judged_mask).tolist()):
            for label in self.groups[pos]:
                rows.append((gold_q[j], item_codes[j], codes.setdefault((qids[pos], label), len(codes)), labels[j]))
        if not rows:
            return None
        gq, gi, gid, gl = zip(*rows)
        return (np.asarray(gq, dtype=np.int64), np.asarray(gi, dtype=np.int64), np.asarray(gid, dtype=np.int64),
                np.asarray(gl, dtype=np.float64))

    def subset(self, questions) -> Qrels:
        """The judgments of ``questions`` only (in this order of first appearance), attributes kept."""
        keep = set(questions)
        qids, ids, labels, lines = self.arrays
        mask = np.fromiter((q in keep for q in qids.tolist()), dtype=bool, count=len(qids))
        attributes = None
        if self.attributes is not None:
            attributes = self.attributes.loc[[q for q in self.questions if q in keep]]
        groups = None if self.groups is None else [g for g, keep_row in zip(self.groups, mask.tolist()) if keep_row]
        return Qrels(qids[mask], ids[mask], labels[mask], lines=None if lines is None else lines[mask],
                     source=self.source, format=self.format, attributes=attributes, id_column=self.id_column,
                     groups=groups if groups is not None and any(groups) else None)

    def __len__(self) -> int:
        return self._polars.height if self._arrays is None else len(self._arrays[0])

    def __repr__(self) -> str:
        where = f" from {self.source}" if self.source else ""
        return f"Qrels({len(self.questions)} questions, {len(self)} judgments{where})"

    def to_dataframe(self) -> pd.DataFrame:
        """``question_id``, the ID column (``doc_id`` or ``chunk_id``), ``relevance``; plus the question attributes."""
        import pandas as pd

        qids, ids, labels, _ = self.arrays
        df = pd.DataFrame({"question_id": qids, self.id_column: ids, "relevance": labels})
        if self.groups is not None:
            df["group"] = [",".join(g) if g else None for g in self.groups]
        if self.attributes is not None:
            df = df.join(self.attributes, on="question_id")
        return df

    def to_dict(self) -> dict:
        """``{question_id: {doc_id: label}}`` (integral labels as ints), the dict of pytrec_eval and ranx."""
        out: dict = {}
        qids, ids, labels, _ = self.arrays
        for q, d, r in zip(qids.tolist(), ids.tolist(), labels.tolist()):
            judged = out.setdefault(q, {})
            if d is not None:
                judged[d] = int(r) if float(r).is_integer() else r
        return out
