"""Evaluate a whole golden set: :func:`evaluate` on tidy DataFrames, :func:`evaluate_trec` on TREC files.

Both return one :class:`Evaluation`, the one result shape of the package: per-question values,
the summary (mean over defined values, counts and IDs of the excluded), the questions of the run
that are not in the golden set, and the settings. :meth:`Evaluation.to_dict` is the one JSON
serializer (command line, run history, reports).

Golden set (``golden``), one row per question x gold ID:

==============  =====================================================================
question_id     question identifier (required, not null)
doc_id          gold document ID (``level="document"``) -- or ``chunk_id`` at chunk level.
                A null ID declares a question without gold (e.g. ``no_answer``): it is
                evaluated, and its undefined measures are excluded and counted.
relevance       optional graded label (default 1 for every row); finite numbers
group           optional evidence group(s) of the gold ID (``sufficiency@k``): a label, several
                separated by commas or as a list; every gold row of a question has one or none
other columns   question attributes such as ``type``; a column whose value is the same
                on every row of each question becomes a per-question column, usable
                in :meth:`Evaluation.by`.
==============  =====================================================================

Run (``run``), one row per question x retrieved item:

==============  =====================================================================
question_id     question identifier
rank            1 = best. The rank order *is* the ranking (ties are not allowed:
                two rows of one question with the same rank are an error); an integer
                in [1, 2**63 - 1], gaps allowed
chunk_id        retrieved chunk (chunk level; or with ``doc_map`` at document level)
doc_id          the chunk's document (document level, when ``doc_map`` is not given)
score, ...      carried along, not used
==============  =====================================================================

IDs are compared as written: strings as they are, integers in decimal (``101``). A float
column of IDs (pandas' type for integers mixed with nulls) is read as the integers it holds
(``101.0`` is ``101``); a non-integral float, a boolean or any other object is an error
naming the column and the row (by position, as ``df.iloc``). So ``101`` in the golden set
matches ``101`` in the run whatever pandas made of the column.

A question of the golden set without any row in the run is an empty ranking (its
recall is 0, as trec_eval ``-c``), not a missing question. Run rows whose question
is not in the golden set are not used; their question IDs are reported in
``Evaluation.unknown_questions``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError, check_gain, check_min_rel, check_order
from ..serialize import jsonable
from . import engine
from .registry import DEFAULT_MEASURES, parse_measures

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["evaluate", "evaluate_trec", "Evaluation", "summarize", "LEVELS", "ENGINES", "JUDGED_WARNING"]

LEVELS = ("document", "chunk")
ENGINES = ("auto", "fast", "general", "dask")
_COUNTS = ("n_relevant", "n_retrieved")
JUDGED_WARNING = 0.5
"""A mean Judged@k below this is flagged: most of the top k has no label, so low scores may be missing labels."""


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Result of :func:`evaluate` and :func:`evaluate_trec`.

    Attributes
    ----------
    questions : tuple
        Question IDs, golden-set order.
    values : dict
        ``measure name -> float array`` aligned with ``questions``; NaN = undefined.
    n_relevant, n_retrieved : int arrays
        Relevant gold IDs and results handed over, per question.
    unknown_questions : tuple
        Question IDs found in the run but not in the golden set (not used).
    settings : dict
        ``level``, ``order``, ``min_rel``, ``gain``, the measures, and how the numbers were computed.
    attributes : DataFrame or None
        Question attributes (e.g. ``type``) indexed by question ID, for :meth:`by`.

    ``per_question`` and ``summary`` are the same numbers as pandas tables (built on first use).
    """

    questions: tuple
    values: dict
    n_relevant: np.ndarray
    n_retrieved: np.ndarray
    unknown_questions: tuple = ()
    settings: dict = field(default_factory=dict)
    attributes: pd.DataFrame | None = None

    @classmethod
    def from_frame(cls, per_question: pd.DataFrame, measures, *, unknown_questions=(), settings=None) -> Evaluation:
        """Build from a per-question table (index question ID; measure columns, ``n_relevant``,
        ``n_retrieved`` and attribute columns)."""
        names = [str(m) for m in measures]
        attrs = per_question.drop(columns=[*names, *_COUNTS], errors="ignore")
        return cls(tuple(per_question.index), {m: per_question[m].to_numpy(dtype=np.float64) for m in names},
                   per_question["n_relevant"].to_numpy(dtype=np.int64), per_question["n_retrieved"].to_numpy(dtype=np.int64),
                   tuple(unknown_questions), dict(settings or {}), attrs if len(attrs.columns) else None)

    @property
    def measures(self) -> list[str]:
        return list(self.values)

    def summary_dict(self) -> dict:
        """``{measure: {"mean", "evaluated", "excluded", "excluded_ids"[, "warning"]}}``; mean is None when nothing
        is defined. A Judged@k mean below :data:`JUDGED_WARNING` carries a ``warning``."""
        from .registry import parse_measure

        out = {}
        for m, v in self.values.items():
            defined = ~np.isnan(v)
            mean = float(v[defined].mean()) if defined.any() else None
            out[m] = {"mean": mean, "evaluated": int(defined.sum()), "excluded": int((~defined).sum()),
                      "excluded_ids": [self.questions[i] for i in np.flatnonzero(~defined)]}
            if parse_measure(m).name == "judged" and mean is not None and mean < JUDGED_WARNING:
                out[m]["warning"] = (f"only {mean:.0%} of the top {parse_measure(m).k} results have a judgment: low "
                                     "scores may be missing labels rather than bad retrieval")
        return out

    def trec_names(self) -> dict:
        """``{measure: name}``: trec_eval's name where trec_eval computes the same value, else the canonical one."""
        from .registry import parse_measure

        names = {}
        for m in self.values:
            measure = parse_measure(m)
            same = measure.rel is None and self.settings.get("gain", "linear") == "linear" and not (
                measure.name == "ndcg" and self.settings.get("min_rel", 1) != 1)
            names[m] = (measure.spec.trec_name(measure.k) if same else None) or m
        return names

    def to_trec(self, per_query: bool = True) -> str:
        """trec_eval's ``-q`` layout: ``measure<TAB>question<TAB>value`` per question (undefined values left out),
        then the ``all`` lines (the mean over defined values; the sum for counts, as trec_eval), then ``num_q``."""
        from .registry import parse_measure

        names = self.trec_names()
        counts = {m: parse_measure(m).spec.count for m in self.values}

        def fmt(m, value):
            return f"{int(round(value))}" if counts[m] else f"{value:6.4f}"

        lines = []
        if per_query:
            columns = {m: v.tolist() for m, v in self.values.items()}
            for i, q in enumerate(self.questions):
                for m, col in columns.items():
                    if col[i] == col[i]:
                        lines.append(f"{names[m]:<22}\t{q}\t{fmt(m, col[i])}")
        for m, v in self.values.items():
            defined = v[~np.isnan(v)]
            if defined.size:
                lines.append(f"{names[m]:<22}\tall\t{fmt(m, defined.sum() if counts[m] else defined.mean())}")
        lines.append(f"{'num_q':<22}\tall\t{len(self.questions)}")
        return "\n".join(lines) + "\n"

    def to_csv(self, per_query: bool = False) -> str:
        """CSV for spreadsheets: the summary (measure, mean, evaluated, excluded), or one row per question."""
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        if per_query:
            writer.writerow(["question_id", *self.values])
            columns = [v.tolist() for v in self.values.values()]
            for i, q in enumerate(self.questions):
                writer.writerow([q, *("" if c[i] != c[i] else repr(float(c[i])) for c in columns)])
        else:
            writer.writerow(["measure", "mean", "evaluated", "excluded"])
            for m, row in self.summary_dict().items():
                writer.writerow([m, "" if row["mean"] is None else repr(row["mean"]), row["evaluated"], row["excluded"]])
        return buffer.getvalue()

    @cached_property
    def per_question(self) -> pd.DataFrame:
        """Index ``question_id``; one float column per measure (NaN = undefined), ``n_relevant``,
        ``n_retrieved`` and the question attributes."""
        import pandas as pd

        index = pd.Index(list(self.questions), name="question_id", dtype=object)
        table = pd.DataFrame({m: v for m, v in self.values.items()}, index=index)
        table["n_relevant"] = np.asarray(self.n_relevant, dtype=np.int64)
        table["n_retrieved"] = np.asarray(self.n_retrieved, dtype=np.int64)
        if self.attributes is not None:
            table = table.join(self.attributes)
        return table

    @cached_property
    def summary(self) -> pd.DataFrame:
        """Index = measure name; columns ``mean`` (over questions where the measure is defined),
        ``evaluated``, ``excluded`` (count of undefined) and ``excluded_ids``."""
        return summarize(self.per_question, self.measures)

    def by(self, column: str) -> pd.DataFrame:
        """Summary per value of a question attribute (e.g. ``"type"``): one call.

        Returns a DataFrame indexed by (value, measure) with the summary columns.
        """
        import pandas as pd

        attrs = [] if self.attributes is None else list(self.attributes.columns)
        if column not in attrs:
            raise InputError(f"{column!r} is not a question attribute of this evaluation; available: {attrs}.")
        parts = {value: summarize(group, self.measures)
                 for value, group in self.per_question.groupby(column, sort=True, dropna=False)}
        return pd.concat(parts, names=[column, "measure"])

    def to_dict(self, per_query: bool = False) -> dict:
        """The documented JSON: ``{"summary": {m: {"mean", "evaluated", "excluded", "excluded_ids"}},
        ["per_query": {qid: {m: value|null}},] "unknown_questions": [...], "settings": {...}}``."""
        out: dict = {"summary": self.summary_dict()}
        if per_query:
            columns = {m: v.tolist() for m, v in self.values.items()}
            out["per_query"] = {str(q): {m: columns[m][i] for m in columns} for i, q in enumerate(self.questions)}
        out["unknown_questions"] = [str(q) for q in self.unknown_questions]
        out["settings"] = dict(self.settings)
        return jsonable(out)

    def _repr_html_(self) -> str:  # pragma: no cover - exercised in notebooks
        return self.summary.drop(columns="excluded_ids").to_html(float_format=lambda v: f"{v:.4f}", escape=True)


def summarize(per_question: pd.DataFrame, measures) -> pd.DataFrame:
    """Mean over defined values, with the count evaluated and the count and IDs excluded."""
    import pandas as pd

    rows = {}
    for m in measures:
        col = per_question[m].to_numpy(dtype=np.float64)
        defined = ~np.isnan(col)
        rows[m] = {
            "mean": float(col[defined].mean()) if defined.any() else np.nan,
            "evaluated": int(defined.sum()),
            "excluded": int((~defined).sum()),
            "excluded_ids": tuple(per_question.index[~defined]),
        }
    out = pd.DataFrame.from_dict(rows, orient="index", columns=["mean", "evaluated", "excluded", "excluded_ids"])
    out.index.name = "measure"
    return out


# ---- DataFrame inputs -------------------------------------------------------------------------

_INT64_MAX = 2**63 - 1


def _row_name(frame: pd.DataFrame, pos: int) -> str:
    if "line" in frame.columns:
        return f"line {frame['line'].iloc[pos]}"
    return f"row {pos}"


def _located(frame: pd.DataFrame, name: str, pos: int, message: str, field: str | None = None) -> InputError:
    """An error at row ``pos`` of ``frame``: ``FILE:LINE: ...`` when the frame was read from a file
    (``line`` column, ``attrs["path"]``), else ``NAME: row POS: ...`` (position as in ``df.iloc``)."""
    if "line" in frame.columns and frame.attrs.get("path"):
        return InputError(message, path=frame.attrs["path"], line=int(frame["line"].iloc[pos]), field=field)
    return InputError(f"{name}: {_row_name(frame, pos)}: {message}", field=field)


def _show(value) -> str:
    """repr of a cell value as the user wrote it (no numpy scalar wrappers)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _require(df, name, columns):
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"evaluate: {name!r} must be a pandas DataFrame, got {type(df).__name__}.")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InputError(f"{name}: missing column(s) {missing}; found {list(df.columns)}.")


def _id_error(frame, name, column, pos, what):
    return _located(frame, name, pos, f"{column} {_show(frame[column].iloc[pos])} {what}", column)


def id_strings(frame: pd.DataFrame, name: str, column: str, *, allow_null: bool = False) -> np.ndarray:
    """The IDs of ``frame[column]`` as an object array of strings (None where null and allowed).

    Strings stay as written; integers (any integer dtype, or integral floats in a float column)
    become their decimal form. Anything else is an :class:`InputError` naming the column and row.
    """
    import pandas as pd

    col = frame[column]
    null = col.isna().to_numpy()
    if null.any() and not allow_null:
        raise _located(frame, name, int(np.flatnonzero(null)[0]), f"{column} is empty; expected an ID.", column)
    kind = pd.api.types.infer_dtype(col, skipna=True)
    out = np.empty(len(col), dtype=object)
    present = ~null
    values = col.to_numpy(dtype=object)
    if kind in ("string", "empty"):
        out[present] = values[present]
    elif kind == "integer":
        out[present] = [str(int(v)) for v in values[present]]
    elif kind in ("floating", "mixed-integer-float", "integer-na"):
        floats = np.array([float(v) for v in values[present]], dtype=np.float64)
        bad = ~np.isfinite(floats) | (floats != np.floor(floats))
        if bad.any():
            pos = int(np.flatnonzero(present)[np.flatnonzero(bad)[0]])
            raise _id_error(frame, name, column, pos, "is not an integer; IDs are strings or integers.")
        out[present] = [str(int(v)) for v in floats]
    else:
        for pos in np.flatnonzero(present):
            v = values[pos]
            if isinstance(v, str):
                out[pos] = v
            elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
                out[pos] = str(int(v))
            elif isinstance(v, (float, np.floating)) and np.isfinite(v) and float(v).is_integer():
                out[pos] = str(int(v))
            else:
                raise _id_error(frame, name, column, int(pos),
                                f"({type(v).__name__}) is not an ID; IDs are strings or integers.")
    return out


def _ranks(frame: pd.DataFrame) -> np.ndarray:
    """The rank column as int64; an integer in [1, 2**63 - 1] or an error naming the row."""
    import pandas as pd

    col = frame["rank"]
    values = col.to_numpy(dtype=object)
    ok = np.zeros(len(col), dtype=bool)
    out = np.zeros(len(col), dtype=np.int64)
    if pd.api.types.is_integer_dtype(col.dtype) and not col.isna().any():
        arr = col.to_numpy()
        ok = (arr >= 1) & (arr <= _INT64_MAX) if arr.dtype.kind == "u" else arr >= 1
        out = np.where(ok, arr, 0).astype(np.int64)
    else:
        for pos, v in enumerate(values):
            if isinstance(v, (bool, np.bool_)):
                continue
            if isinstance(v, (int, np.integer)):
                ok[pos] = 1 <= int(v) <= _INT64_MAX
            elif isinstance(v, (float, np.floating)):
                ok[pos] = bool(np.isfinite(v)) and float(v).is_integer() and 1 <= v < 2.0**63
            if ok[pos]:
                out[pos] = int(v)
    if not ok.all():
        pos = int(np.flatnonzero(~ok)[0])
        qid = frame["question_id"].iloc[pos]
        raise _located(frame, "run", pos, f"question {_show(qid)}: rank {_show(values[pos])} is not an integer in "
                       f"[1, {_INT64_MAX}].", "rank")
    return out


def _relevance(golden: pd.DataFrame, judged: np.ndarray, id_col: str, ids: np.ndarray, qids: np.ndarray) -> np.ndarray:
    import pandas as pd

    if "relevance" not in golden.columns:
        return np.ones(len(golden), dtype=np.float64)
    raw = golden["relevance"]
    if pd.api.types.is_bool_dtype(raw.dtype):
        rel = np.full(len(raw), np.nan)
    else:
        rel = np.array(pd.to_numeric(raw, errors="coerce"), dtype=np.float64)
        if raw.dtype == object:  # True is not a label, even though pandas reads it as 1
            rel[[isinstance(v, (bool, np.bool_)) for v in raw.to_numpy(dtype=object)]] = np.nan
    bad = judged & ~np.isfinite(rel)
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        raise _located(golden, "golden", pos, f"question {qids[pos]!r}, {id_col} {ids[pos]!r}: relevance "
                       f"{_show(raw.iloc[pos])} is not a finite number.", "relevance")
    return rel


def _first_duplicate(*columns: np.ndarray) -> int | None:
    """Position of the first row repeating an earlier row's values in all ``columns`` (None if none)."""
    import pandas as pd

    dup = pd.MultiIndex.from_arrays(columns).duplicated(keep="first") if len(columns) > 1 else \
        pd.Index(columns[0]).duplicated(keep="first")
    return int(np.flatnonzero(dup)[0]) if dup.any() else None


def _question_attributes(golden: pd.DataFrame, qids: np.ndarray, id_col: str) -> pd.DataFrame | None:
    skip = {"question_id", id_col, "relevance", "line", "doc_id", "chunk_id", "group"}
    candidates = [c for c in golden.columns if c not in skip]
    if not candidates:
        return None
    frame = golden[candidates].reset_index(drop=True).assign(question_id=qids)
    grouped = frame.groupby("question_id", sort=False)[candidates]
    constant = grouped.nunique(dropna=False).le(1).all()
    keep = [c for c in candidates if constant[c]]
    return grouped.first()[keep] if keep else None


def _ir_measures_frames(golden, run, level, doc_map):
    """Frames in the column names of ir_measures and ranx: ``query_id`` is ``question_id``; a run with ``score`` and
    no ``rank`` is ranked like trec_eval (score descending, ties by ID descending)."""
    import pandas as pd

    from ..io.trec import trec_order

    if isinstance(golden, pd.DataFrame) and "question_id" not in golden.columns and "query_id" in golden.columns:
        golden = golden.rename(columns={"query_id": "question_id"})
    if not isinstance(run, pd.DataFrame):
        return golden, run
    if "question_id" not in run.columns and "query_id" in run.columns:
        run = run.rename(columns={"query_id": "question_id"})
    item_col = "chunk_id" if (level == "chunk" or doc_map is not None) else "doc_id"
    if "rank" not in run.columns and "score" in run.columns and {"question_id", item_col} <= set(run.columns):
        scores = pd.to_numeric(run["score"], errors="coerce").to_numpy(dtype=np.float64)
        bad = ~np.isfinite(scores)
        if bad.any():
            pos = int(np.flatnonzero(bad)[0])
            raise _located(run, "run", pos, f"score {_show(run['score'].iloc[pos])} is not a finite number.", "score")
        qids = id_strings(run, "run", "question_id")
        items = id_strings(run, "run", item_col)
        codes = pd.factorize(qids)[0]
        order = trec_order(codes, scores, lambda rows: items[rows].astype(str))
        rank = np.empty(len(run), dtype=np.int64)
        rank[order] = np.arange(len(run))
        starts = np.zeros(codes.max() + 1 if len(codes) else 0, dtype=np.int64)
        sorted_codes = codes[order]
        first = np.r_[True, sorted_codes[1:] != sorted_codes[:-1]] if len(order) else np.zeros(0, bool)
        starts[sorted_codes[first]] = np.flatnonzero(first)
        run = run.assign(rank=rank - starts[codes] + 1)
    return golden, run


def evaluate(
    golden: pd.DataFrame,
    run: pd.DataFrame,
    measures=None,
    *,
    level: str = "document",
    doc_map=None,
    order: str = "cut_then_dedup",
    min_rel=1,
    gain: str = "linear",
) -> Evaluation:
    """Evaluate every question of ``golden`` against ``run``.

    Parameters
    ----------
    golden, run : DataFrame
        Tidy long form, columns described in this module's docstring. Frames with the column names
        of ir_measures and ranx are accepted as they are: ``query_id`` for ``question_id``, and a run
        with ``score`` but no ``rank``, ranked like trec_eval (score descending, ties by ID descending).
    measures : iterable of str or Measure, optional
        Names such as ``"recall@5"``, ``"ndcg@10"``, ``"mrr"`` (see
        :func:`rag_metrics.parse_measure`). Default: recall@5, precision@5, hit@5,
        mrr, ndcg@10, map.
    level : {"document", "chunk"}
        ``"document"`` (default): gold is ``golden.doc_id``; the run's chunks are
        collapsed to documents with ``order`` (see
        :func:`rag_metrics.collapse_to_documents`), using ``run.doc_id`` or ``doc_map``.
        ``"chunk"``: gold is ``golden.chunk_id`` and the run's ``chunk_id`` must not
        repeat within a question.
    doc_map : mapping or Series, optional
        ``chunk_id -> doc_id`` at document level, when the run has no ``doc_id``.
    order : {"cut_then_dedup", "dedup_then_cut"}
        Collapsing order at document level.
    min_rel : float > 0
        Lowest label counted as relevant.
    gain : {"linear", "exponential"}
        nDCG gain.

    Returns
    -------
    Evaluation
    """
    import pandas as pd

    measures = DEFAULT_MEASURES if measures is None else parse_measures(measures)
    if level not in LEVELS:
        raise InputError(f"The 'level' parameter of evaluate must be one of {LEVELS}. Got {level!r} instead.")
    golden, run = _ir_measures_frames(golden, run, level, doc_map)
    check_order(order, func="evaluate")
    min_rel = check_min_rel(min_rel, func="evaluate")
    check_gain(gain, func="evaluate")
    id_col = "doc_id" if level == "document" else "chunk_id"

    # Golden set.
    _require(golden, "golden", ["question_id", id_col])
    g_q = id_strings(golden, "golden", "question_id")
    g_id = id_strings(golden, "golden", id_col, allow_null=True)
    judged = np.array([v is not None for v in g_id], dtype=bool)
    g_rel = _relevance(golden, judged, id_col, g_id, g_q)
    dup = _first_duplicate(g_q[judged], g_id[judged])
    if dup is not None:
        pos = int(np.flatnonzero(judged)[dup])
        raise _located(golden, "golden", pos, f"duplicate gold {id_col} {g_id[pos]!r} for question {g_q[pos]!r}; "
                       "each (question, ID) pair must appear once.", id_col)
    questions = pd.Index(pd.unique(g_q), name="question_id")

    # Run.
    r_q, r_rank, r_item = _run_items(run, level, doc_map)
    known = questions.get_indexer(r_q) >= 0
    unknown = tuple(pd.unique(r_q[~known]))
    r_q, r_rank, r_item = r_q[known], r_rank[known], r_item[known]
    q_code = questions.get_indexer(r_q)
    sort = np.lexsort((r_rank, q_code))

    codes, _ = pd.factorize(np.concatenate([g_id[judged], r_item]))
    n_gold = int(judged.sum())
    gold_q_codes = questions.get_indexer(g_q[judged])
    groups = _group_table(golden, judged, g_q, gold_q_codes, codes[:n_gold], g_rel[judged]) \
        if "group" in golden.columns else None
    result = engine.compute(
        len(questions), q_code[sort], codes[n_gold:][sort],
        gold_q_codes, codes[:n_gold], g_rel[judged], measures,
        min_rel=min_rel, gain=gain, order=order, dedup=(level == "document"), groups=groups,
    )
    names = [str(m) for m in measures]
    settings = {"level": level, "order": order if level == "document" else None, "min_rel": min_rel, "gain": gain,
                "measures": names, "engine": "dataframe"}
    return Evaluation(tuple(questions), {m: result[m] for m in names}, result["n_relevant"], result["n_retrieved"],
                      unknown, settings, _question_attributes(golden, g_q, id_col))


def _group_labels(value) -> list[str] | None:
    """The group labels of one gold row: [] when null; None when the value is not a group label."""
    import pandas as pd

    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return [str(int(value))]
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return [str(int(value))]
    if isinstance(value, (list, tuple, set, frozenset, np.ndarray)):
        out = [_group_labels(v) for v in value]
        if any(o is None or len(o) != 1 for o in out):
            return None
        return sorted({o[0] for o in out})
    return None


def _group_table(golden, judged, g_q, q_codes, item_codes, labels):
    """``(group_q, group_item, group_id, group_label)`` from the golden set's ``group`` column (None when no row has
    a group); a question with a group on some gold rows but not on others is an error naming the row."""
    raw = golden["group"].to_numpy(dtype=object)
    positions = np.flatnonzero(judged)
    rows, grouped = [], {}
    for j, pos in enumerate(positions):
        found = _group_labels(raw[pos])
        if found == [] and labels[j] <= 0:
            continue  # a judged non-relevant ID needs no group
        if found is None:
            raise _located(golden, "golden", int(pos), f"question {g_q[pos]!r}: group {_show(raw[pos])} is not a group "
                           "label; expected a label, labels separated by commas, or a list of labels.", "group")
        first = grouped.setdefault(g_q[pos], (bool(found), int(pos)))
        if first[0] != bool(found):
            raise _located(golden, "golden", int(pos), f"question {g_q[pos]!r}: some gold rows have a group and others "
                           f"not (see row {first[1]}); give every gold row of a question a group, or none.", "group")
        rows += [(q_codes[j], item_codes[j], (g_q[pos], label), labels[j]) for label in found]
    if not rows:
        return None
    gq, gi, keys, gl = zip(*rows)
    codes: dict = {}
    ids = [codes.setdefault(key, len(codes)) for key in keys]
    return (np.asarray(gq, dtype=np.int64), np.asarray(gi, dtype=np.int64), np.asarray(ids, dtype=np.int64),
            np.asarray(gl, dtype=np.float64))


def _run_items(run, level, doc_map):
    """Validate the run: (question IDs, ranks, item IDs) as arrays, in row order."""
    item_col = "chunk_id" if (level == "chunk" or doc_map is not None) else "doc_id"
    _require(run, "run", ["question_id", "rank", item_col])
    r_q = id_strings(run, "run", "question_id")
    r_rank = _ranks(run)
    dup = _first_duplicate(r_q, r_rank)
    if dup is not None:
        raise _located(run, "run", dup, f"question {r_q[dup]!r} has rank {int(r_rank[dup])} twice; the rank order "
                       "is the ranking, so ties must be broken first.", "rank")
    items = id_strings(run, "run", item_col)
    if level == "chunk":
        dup = _first_duplicate(r_q, items)
        if dup is not None:
            raise _located(run, "run", dup, f"chunk {items[dup]!r} is retrieved twice for question {r_q[dup]!r}; at "
                           "chunk level each chunk may appear once.", "chunk_id")
        return r_q, r_rank, items
    if doc_map is not None:
        if hasattr(doc_map, "to_dict") and not isinstance(doc_map, Mapping):
            doc_map = doc_map.to_dict()
        if not isinstance(doc_map, Mapping):
            raise InputError(f"evaluate: 'doc_map' must be a mapping or Series chunk_id -> doc_id, got {type(doc_map).__name__}.")
        lookup = {str(c): d for c, d in doc_map.items()}
        docs = np.array([lookup.get(c) for c in items], dtype=object)
        missing = np.array([d is None for d in docs], dtype=bool)
        if missing.any():
            pos = int(np.flatnonzero(missing)[0])
            raise _located(run, "run", pos, f"unknown chunk ID {items[pos]!r} (question {r_q[pos]!r}): it is not in "
                           "the doc map.", "chunk_id")
        return r_q, r_rank, np.array([str(d) for d in docs], dtype=object)
    return r_q, r_rank, items


# ---- TREC files ---------------------------------------------------------------------------------

def evaluate_trec(
    qrels,
    run,
    measures=None,
    *,
    min_rel=1,
    gain: str = "linear",
    order_by: str = "score",
    doc_map=None,
    order: str = "cut_then_dedup",
    engine: str = "auto",
    scheduler: str | None = None,
    qrels_format: str = "auto",
    run_format: str = "auto",
) -> Evaluation:
    """Evaluate a run file against a qrels file (TREC, or the other formats below), with trec_eval's ordering.

    Parameters
    ----------
    qrels, run : path
        ``qid iter docid rel`` and ``qid Q0 docid rank score tag`` files (format and rules in
        :mod:`rag_metrics.io.trec`). With ``engine="dask"``, ``run`` may be a glob or a list of
        files (one run split across files).
    measures : names, optional
        As in :func:`evaluate`.
    min_rel, gain : as in :func:`evaluate`.
    order_by : {"score", "rank"}
        ``"score"`` (trec_eval): score descending, ties by document ID descending. ``"rank"``: the
        file's rank column.
    doc_map : mapping or path, optional
        ``chunk_id -> doc_id`` (a dict, or a ``chunk_id<TAB>doc_id`` file): the run's IDs are chunks,
        collapsed to documents with ``order`` and judged against document qrels.
    engine : {"auto", "fast", "general", "dask"}
        ``"auto"``: the columnar fast path when the files allow it (IDs as they are, ordered by
        score), else the general line-validating reader; both give identical numbers, and any
        problem is reported by the general reader with its file and line. ``"fast"`` requires the
        fast path (an error says why it cannot be used). ``"dask"`` evaluates on a Dask cluster
        (``scheduler`` address, default a local one).
    qrels_format, run_format : {"auto", "trec", "beir", "json"}
        TREC text (plain or gzip), BEIR qrels TSV, or ranx/ir_measures JSON dicts
        (:mod:`rag_metrics.io.formats`); ``auto`` recognizes them from the content. The fast path
        and Dask read TREC text; the other formats take the general path, with the same numbers.

    Returns
    -------
    Evaluation
        ``settings["engine"]`` says which path computed the numbers.
    """
    from ..io import formats, trec

    measures = DEFAULT_MEASURES if measures is None else parse_measures(measures)
    min_rel = check_min_rel(min_rel, func="evaluate_trec")
    check_gain(gain, func="evaluate_trec")
    check_order(order, func="evaluate_trec")
    if order_by not in trec.ORDER_BY:
        raise InputError(f"The 'order_by' parameter of evaluate_trec must be one of {trec.ORDER_BY}. Got {order_by!r} instead.")
    if engine not in ENGINES:
        raise InputError(f"The 'engine' parameter of evaluate_trec must be one of {ENGINES}. Got {engine!r} instead.")
    trec.check_readable(qrels, "TREC qrels")
    if engine != "dask":
        trec.check_readable(run, "TREC run")
    if qrels_format not in formats.QRELS_FORMATS:
        raise InputError(f"The 'qrels_format' parameter must be one of {formats.QRELS_FORMATS}. Got {qrels_format!r}.")
    if run_format not in formats.RUN_FORMATS:
        raise InputError(f"The 'run_format' parameter must be one of {formats.RUN_FORMATS}. Got {run_format!r}.")
    qrels_format = formats.detect_format(qrels, "qrels file") if qrels_format == "auto" else qrels_format
    if engine != "dask":
        run_format = formats.detect_format(run, "run file") if run_format == "auto" else run_format
    settings = {"level": "chunk" if doc_map is None else "document", "order": None if doc_map is None else order,
                "min_rel": min_rel, "gain": gain, "measures": [str(m) for m in measures], "order_by": order_by,
                "qrels_format": qrels_format, "run_format": run_format}

    if engine == "dask":
        if qrels_format != "trec" or run_format not in ("auto", "trec"):
            raise InputError("engine='dask' reads TREC text files; convert the qrels and runs first.")
        if doc_map is not None or order_by != "score":
            raise InputError("engine='dask' evaluates IDs as they are, ordered by score (no doc_map, order_by='score').")
        from .distributed import evaluate_trec_dask

        ev = evaluate_trec_dask(qrels, run, measures, min_rel=min_rel, gain=gain, scheduler=scheduler)
        return Evaluation(ev.questions, ev.values, ev.n_relevant, ev.n_retrieved, ev.unknown_questions,
                          {**settings, "engine": "dask"})

    if engine in ("auto", "fast"):
        from .fast import FastPathUnavailable, evaluate_trec_fast

        why = None
        if doc_map is not None or order_by != "score":
            why = "the fast path judges IDs as they are, ordered by score"
        elif qrels_format != "trec" or run_format != "trec":
            why = "the fast path reads TREC text"
        else:
            try:
                fast = evaluate_trec_fast(qrels, run, measures, min_rel=min_rel, gain=gain)
            except FastPathUnavailable as e:
                why = str(e)
            else:
                values = {str(m): fast.values[str(m)] for m in measures}
                return Evaluation(tuple(fast.questions), values, fast.values["n_relevant"], fast.values["n_retrieved"],
                                  tuple(fast.unknown_questions), {**settings, "engine": fast.path})
        if engine == "fast":
            raise InputError(f"engine='fast' cannot evaluate these files: {why}; use engine='auto' or 'general'.")

    qrels_df = formats.read_qrels_file(qrels, qrels_format)
    run_df = formats.read_run_file(run, run_format, order_by=order_by)
    if doc_map is None:
        ev = evaluate(qrels_df.rename(columns={"doc_id": "chunk_id"}), run_df.rename(columns={"doc_id": "chunk_id"}),
                      measures, level="chunk", min_rel=min_rel, gain=gain)
    else:
        if not isinstance(doc_map, Mapping):
            doc_map = trec.read_doc_map(doc_map)
        ev = evaluate(qrels_df, run_df.rename(columns={"doc_id": "chunk_id"}),
                      measures, level="document", doc_map=doc_map, order=order, min_rel=min_rel, gain=gain)
    return Evaluation(ev.questions, ev.values, ev.n_relevant, ev.n_retrieved, ev.unknown_questions,
                      {**settings, "engine": "general"})
