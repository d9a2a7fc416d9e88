"""The one result shape of the package: :class:`Evaluation`, its summary and its serializers.

Every evaluation (:func:`rag_metrics.evaluate`, :func:`rag_metrics.evaluate_trec`, a prepared
:func:`rag_metrics.evaluator`, Dask, page level) returns one :class:`Evaluation`: per-question values,
the summary (mean over defined values, counts and IDs of the excluded), the questions of the run
that are not in the golden set, and the settings. :meth:`Evaluation.to_dict` is the one JSON
serializer (command line, run history, reports); :meth:`~Evaluation.to_trec` and
:meth:`~Evaluation.to_csv` write trec_eval's layout and CSV.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from rag_metrics.core.errors import InputError
from rag_metrics.core.serialize import jsonable

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Evaluation", "summarize", "summary_rows", "slices", "slice_names", "JUDGED_WARNING"]

_COUNTS = ("n_relevant", "n_retrieved")
JUDGED_WARNING = 0.5
"""A mean Judged@k below this is flagged: most of the top k has no label, so low scores may be missing labels."""


@dataclass(frozen=True, eq=False, repr=False)
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
        ``level``, ``order``, ``min_rel``, ``gain``, the measures, how the numbers were computed
        (``engine``), and ``search_depth``: the most results any question handed over -- how deep a
        measure without a cutoff (``mrr``, ``ndcg``, ``map``) searched (see :meth:`depth`).
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

    def depth(self, measure) -> int:
        """How deep ``measure`` searched each ranking: its cutoff ``k`` (``mrr@10`` -> 10), or for a measure
        without one (``mrr``, ``ndcg``, ``map``) the search depth, the most results any question handed over
        (chunk positions at document level under cut_then_dedup). Print it next to the value: an MRR over
        the top 3 and one over the top 100 are different numbers."""
        from rag_metrics.measures.registry import parse_measure

        m = parse_measure(measure)
        if m.k is not None:
            return m.k
        if "search_depth" in self.settings:
            return int(self.settings["search_depth"])
        return int(np.max(self.n_retrieved, initial=0))

    def summary_dict(self) -> dict:
        """:func:`summary_rows` as plain data for JSON (no pandas): ``{measure: {"mean", "evaluated", "excluded", "excluded_ids"[, "warning"]}}``; mean is None when nothing
        is defined. A Judged@k mean below :data:`JUDGED_WARNING` carries a ``warning``."""
        from rag_metrics.measures.registry import parse_measure

        out = summary_rows(self.values, self.questions)
        for m, row in out.items():
            mean = row["mean"] = None if math.isnan(row["mean"]) else row["mean"]
            row["excluded_ids"] = list(row["excluded_ids"])
            if parse_measure(m).name == "judged" and mean is not None and mean < JUDGED_WARNING:
                out[m]["warning"] = (f"only {mean:.0%} of the top {parse_measure(m).k} results have a judgment: low "
                                     "scores may be missing labels rather than bad retrieval")
        return out

    def trec_names(self) -> dict:
        """``{measure: name}``: trec_eval's name where trec_eval computes the same value, else the canonical one."""
        from rag_metrics.measures.registry import parse_measure

        names = {}
        for m in self.values:
            measure = parse_measure(m)
            same = measure.rel is None and self.settings.get("gain", "linear") == "linear" and not (
                measure.name == "ndcg" and self.settings.get("min_rel", 1) != 1)
            names[m] = (measure.spec.trec_name(measure.k) if same else None) or m
        return names

    def to_trec(self, per_question: bool = True) -> str:
        """trec_eval's ``-q`` layout: ``measure<TAB>question<TAB>value`` per question (undefined values left out),
        then the ``all`` lines (the mean over defined values; the sum for counts, as trec_eval), then ``num_q``."""
        from rag_metrics.measures.registry import parse_measure

        names = self.trec_names()
        counts = {m: parse_measure(m).spec.count for m in self.values}

        def fmt(m, value):
            return f"{int(round(value))}" if counts[m] else f"{value:6.4f}"

        lines = []
        if per_question:
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

    def to_csv(self, per_question: bool = False) -> str:
        """CSV for spreadsheets: the summary (measure, mean, evaluated, excluded), or one row per question."""
        from rag_metrics.core.serialize import csv_text

        if per_question:
            columns = [v.tolist() for v in self.values.values()]
            return csv_text(["question_id", *self.values],
                            ([q, *(None if c[i] != c[i] else float(c[i]) for c in columns)]
                             for i, q in enumerate(self.questions)))
        return csv_text(["measure", "mean", "evaluated", "excluded"],
                        ([m, row["mean"], row["evaluated"], row["excluded"]]
                         for m, row in self.summary_dict().items()))

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

    def by(self, column) -> pd.DataFrame:
        """Summary per value of a question attribute (e.g. ``"type"``): one call.

        ``column``: an attribute's name, a list of names (one group per combination of values), or the values
        themselves -- a Series or mapping question ID -> value, for a slice the attributes do not hold. A value that
        is a list or tuple (a question's gold documents) puts the question in the group of each of its items, so the
        groups may share questions. Returns a DataFrame indexed by (value, measure) with the summary columns.
        """
        import pandas as pd

        attrs = [] if self.attributes is None else list(self.attributes.columns)
        parts = {value: summarize(group, self.measures) for value, group in slices(self.per_question, column, attrs)}
        return pd.concat(parts, names=[*slice_names(column), "measure"])

    def to_dict(self, per_question: bool = False) -> dict:
        """The documented JSON: ``{"summary": {m: {"mean", "evaluated", "excluded", "excluded_ids"}},
        ["per_query": {qid: {m: value|null}},] "unknown_questions": [...], "settings": {...}}``. The per-question
        values keep the key ``per_query`` of the files already written (saved runs, scripts reading the CLI's JSON)."""
        out: dict = {"summary": self.summary_dict()}
        if per_question:
            columns = {m: v.tolist() for m, v in self.values.items()}
            out["per_query"] = {str(q): {m: columns[m][i] for m in columns} for i, q in enumerate(self.questions)}
        out["unknown_questions"] = [str(q) for q in self.unknown_questions]
        out["settings"] = dict(self.settings)
        return jsonable(out)

    def describe(self) -> str:
        """What the numbers count, in words: ``page level under the overlap judge (min_chars=24, window=1, ...)``,
        ``document level (cut_then_dedup)``, ``chunk level`` -- so evaluations under different rulers never look
        alike."""
        s = self.settings
        level = s.get("level", "document")
        if level == "page" and s.get("judge"):
            params = ", ".join(f"{k}={v}" for k, v in s.items() if k in ("min_chars", "window"))
            return f"page level under the {s['judge']} judge" + (f" ({params})" if params else "")
        return f"{level} level" + (f" ({s['order']})" if level == "document" and s.get("order") else "")

    def __repr__(self) -> str:
        means = ", ".join(f"{m} {row['mean']:.3f}" if row["mean"] is not None else f"{m} -"
                          for m, row in list(self.summary_dict().items())[:6])
        more = f" (+{len(self.values) - 6} more)" if len(self.values) > 6 else ""
        text = f"<Evaluation of {len(self.questions)} questions at {self.describe()}: {means}{more}>"
        return text if len(text) <= 480 else text[:476] + "...>"

    def _repr_html_(self) -> str:  # pragma: no cover - exercised in notebooks
        from rag_metrics.core.html import summary

        table = self.summary.drop(columns="excluded_ids")
        more = f" The first 30 of {len(table)} measures." if len(table) > 30 else ""
        return summary(f"Evaluation of {len(self.questions)} questions at {self.describe()}.{more}",
                       (None, table.head(30), {"float_format": lambda v: f"{v:.4f}"}))


def summary_rows(values, questions) -> dict:
    """The one summary of per-question values: ``{measure: {"mean", "evaluated", "excluded", "excluded_ids"}}`` for
    ``values`` (``{measure: float array}``, NaN = undefined) over ``questions`` (the IDs, in the arrays' order).

    ``mean`` is the mean over defined values (NaN when none is), ``evaluated``/``excluded`` count the defined and the
    undefined values, ``excluded_ids`` (a tuple) names the questions left out. :func:`summarize` and
    :meth:`Evaluation.summary_dict` both read it.
    """
    ids = list(questions)
    rows = {}
    for m, v in values.items():
        v = np.asarray(v, dtype=np.float64)
        defined = ~np.isnan(v)
        rows[m] = {"mean": float(v[defined].mean()) if defined.any() else math.nan, "evaluated": int(defined.sum()),
                   "excluded": int((~defined).sum()), "excluded_ids": tuple(ids[i] for i in np.flatnonzero(~defined).tolist())}
    return rows


def summarize(per_question: pd.DataFrame, measures) -> pd.DataFrame:
    """:func:`summary_rows` of a per-question table as a DataFrame indexed by measure: mean over defined values, with
    the count evaluated and the count and IDs excluded."""
    import pandas as pd

    rows = summary_rows({m: per_question[m].to_numpy(dtype=np.float64) for m in measures}, per_question.index)
    out = pd.DataFrame.from_dict(rows, orient="index", columns=["mean", "evaluated", "excluded", "excluded_ids"])
    out.index.name = "measure"
    return out


def slice_names(column) -> list:
    """The index names of a slice (:func:`slices`): the attribute's name, the names of a list, or a Series' name
    (``"slice"`` for an unnamed one)."""
    if isinstance(column, str):
        return [column]
    if isinstance(column, (list, tuple)):
        return [str(c) for c in column]
    return [str(getattr(column, "name", None) or "slice")]


def slices(per_question: pd.DataFrame, column, attributes=None):
    """``(value, rows)`` for each value of ``column`` over a per-question table, in sorted order (the one grouping
    of :meth:`Evaluation.by` and of the experiment's slices with intervals).

    ``column``: an attribute column's name, a list of them (a value is then a tuple), or a Series / mapping question
    ID -> value (questions it does not name are left out). A value that is a list, tuple or set counts the question
    once in each of its items' groups (an empty one in none); a missing value (None, NaN) is its own group,
    ``"(none)"``. ``attributes``: the columns that may be named (default: all); another name is an
    :class:`~rag_metrics.InputError` naming them.
    """
    import pandas as pd

    from rag_metrics.core.errors import close_matches

    table = per_question
    if isinstance(column, str) or (isinstance(column, (list, tuple)) and all(isinstance(c, str) for c in column)):
        names = slice_names(column)
        if not names:
            raise InputError("give at least one question attribute to slice by.")
        known = list(per_question.columns if attributes is None else attributes)
        missing = [n for n in names if n not in known or n not in per_question.columns]
        if missing:
            near = close_matches(missing[0], known)
            raise InputError(f"{missing[0]!r} is not a question attribute of this evaluation; available: {known}."
                             + (f" Did you mean {near[0]!r}?" if near else ""))
        keys = table[names].copy()
    elif isinstance(column, (pd.Series, dict)):
        values = pd.Series(column, dtype=object) if isinstance(column, dict) else column
        keys = pd.DataFrame({slice_names(values)[0]: values.reindex(table.index)}, index=table.index)
        keys = keys[table.index.isin(values.index)]
        names = list(keys.columns)
    else:
        raise InputError(f"slice by a question attribute's name, a list of names, or a Series question ID -> value. "
                         f"Got {type(column).__name__} instead.")
    for name in names:
        keys[name] = [tuple(v) if isinstance(v, (list, tuple, set, frozenset)) else v for v in keys[name]]
        keys[name] = ["(none)" if v is None or (isinstance(v, float) and v != v) else v for v in keys[name]]
        keys = keys.explode(name) if any(isinstance(v, tuple) for v in keys[name]) else keys
    keys = keys.dropna()
    keys["_row"] = range(len(keys))
    groups = keys.groupby(names, sort=True).indices if len(keys) else {}
    for value in sorted(groups, key=lambda v: tuple(map(str, v if isinstance(v, tuple) and len(names) > 1 else (v,)))):
        rows = keys.index[groups[value]]
        yield value, table.loc[rows]
