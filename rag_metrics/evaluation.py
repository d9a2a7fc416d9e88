"""Evaluate a whole golden set against a run given as tidy pandas DataFrames.

Golden set (``golden``), one row per question x gold ID:

==============  =====================================================================
question_id     question identifier (required, not null)
doc_id          gold document ID (``level="document"``) -- or ``chunk_id`` at chunk level.
                A null ID declares a question without gold (e.g. ``no_answer``): it is
                evaluated, and its undefined measures are excluded and counted.
relevance       optional graded label (default 1 for every row); finite numbers
other columns   question attributes such as ``type``; a column whose value is the same
                on every row of each question becomes a per-question column, usable
                in :meth:`Evaluation.by`.
==============  =====================================================================

Run (``run``), one row per question x retrieved item:

==============  =====================================================================
question_id     question identifier
rank            1 = best. The rank order *is* the ranking (ties are not allowed:
                two rows of one question with the same rank are an error)
chunk_id        retrieved chunk (chunk level; or with ``doc_map`` at document level)
doc_id          the chunk's document (document level, when ``doc_map`` is not given)
score, ...      carried along, not used
==============  =====================================================================

A question of the golden set without any row in the run is an empty ranking (its
recall is 0, as trec_eval ``-c``), not a missing question. Run rows whose question
is not in the golden set are not used; their question IDs are reported in
``Evaluation.unknown_questions``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import engine
from .errors import InputError, check_gain, check_min_rel, check_order
from .measures import DEFAULT_MEASURES, parse_measures

__all__ = ["evaluate", "Evaluation", "summarize"]

LEVELS = ("document", "chunk")


@dataclass(frozen=True)
class Evaluation:
    """Result of :func:`evaluate`.

    Attributes
    ----------
    per_question : DataFrame
        Index ``question_id`` (golden-set order); one float column per measure (NaN =
        undefined), ``n_relevant``, ``n_retrieved`` and the question attributes.
    summary : DataFrame
        Index = measure name; columns ``mean`` (over questions where the measure is
        defined), ``evaluated``, ``excluded`` (count of undefined) and ``excluded_ids``.
    unknown_questions : tuple
        Question IDs found in the run but not in the golden set (not used).
    settings : dict
        ``level``, ``order``, ``min_rel``, ``gain`` and the measures, for reports.
    """

    per_question: pd.DataFrame
    summary: pd.DataFrame
    unknown_questions: tuple = ()
    settings: dict = field(default_factory=dict)

    @property
    def measures(self) -> list[str]:
        return list(self.summary.index)

    def by(self, column: str) -> pd.DataFrame:
        """Summary per value of a question attribute (e.g. ``"type"``): one call.

        Returns a DataFrame indexed by (value, measure) with the summary columns.
        """
        if column not in self.per_question.columns or column in self.measures:
            attrs = [c for c in self.per_question.columns if c not in self.measures and c not in ("n_relevant", "n_retrieved")]
            raise KeyError(f"{column!r} is not a question attribute of this evaluation; available: {attrs}.")
        parts = {
            value: summarize(group, self.measures)
            for value, group in self.per_question.groupby(column, sort=True, dropna=False)
        }
        return pd.concat(parts, names=[column, "measure"])

    def summary_with_ci(self, *, n_resamples: int = 10_000, confidence: float = 0.95, seed: int = 0) -> pd.DataFrame:
        """The summary with a percentile bootstrap CI next to each mean (:func:`rag_metrics.stats.bootstrap_ci`)."""
        from .stats import summary_with_ci

        table = summary_with_ci(self.per_question, self.measures, n_resamples=n_resamples, confidence=confidence, seed=seed)
        table["excluded_ids"] = self.summary["excluded_ids"]
        return table

    def to_dict(self, per_query: bool = False) -> dict:
        """JSON-ready dict: ``{"summary": {m: {"mean", "evaluated", "excluded"}}, "per_query": ...}``."""
        summary = {
            m: {
                "mean": None if pd.isna(row["mean"]) else float(row["mean"]),
                "evaluated": int(row["evaluated"]),
                "excluded": int(row["excluded"]),
            }
            for m, row in self.summary.iterrows()
        }
        out: dict = {"summary": summary}
        if per_query:
            values = self.per_question[self.measures]
            out["per_query"] = {
                str(q): {m: (None if pd.isna(v) else float(v)) for m, v in row.items()}
                for q, row in values.iterrows()
            }
        return out


def summarize(per_question: pd.DataFrame, measures) -> pd.DataFrame:
    """Mean over defined values, with the count evaluated and the count and IDs excluded."""
    rows = {}
    for m in measures:
        col = per_question[m]
        defined = col.notna()
        rows[m] = {
            "mean": float(col[defined].mean()) if defined.any() else np.nan,
            "evaluated": int(defined.sum()),
            "excluded": int((~defined).sum()),
            "excluded_ids": tuple(per_question.index[~defined]),
        }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "measure"
    return out


def _show(value) -> str:
    """repr of a cell value as the user wrote it (no numpy scalar wrappers)."""
    return repr(value.item() if hasattr(value, "item") else value)


def _where(df: pd.DataFrame, label) -> str:
    if "line" in df.columns:
        return f"line {_show(df.at[label, 'line'])}"
    return f"row {_show(label)}"


def _require(df, name, columns):
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"evaluate: {name!r} must be a pandas DataFrame, got {type(df).__name__}.")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise InputError(f"{name}: missing column(s) {missing}; found {list(df.columns)}.")


def _check_ids(df, name, column, *, allow_null=False):
    values = df[column]
    null = values.isna()
    if null.any() and not allow_null:
        label = df.index[null.to_numpy()][0]
        raise InputError(f"{name}: {_where(df, label)}: {column} is empty; expected an ID.")
    return values


def _golden_arrays(golden, id_col):
    _require(golden, "golden", ["question_id", id_col])
    golden = golden.copy()
    _check_ids(golden, "golden", "question_id")
    _check_ids(golden, "golden", id_col, allow_null=True)
    if "relevance" in golden.columns:
        rel = pd.to_numeric(golden["relevance"], errors="coerce")
        bad = golden[id_col].notna() & ~np.isfinite(rel.astype(float).fillna(np.nan))
        if bad.any():
            label = golden.index[bad.to_numpy()][0]
            raise InputError(
                f"golden: {_where(golden, label)}: question {_show(golden.at[label, 'question_id'])}, "
                f"{id_col} {_show(golden.at[label, id_col])}: relevance {_show(golden.at[label, 'relevance'])} "
                "is not a finite number."
            )
        golden["relevance"] = rel.astype(float)
    else:
        golden["relevance"] = 1.0
    golden["question_id"] = golden["question_id"].astype(str)
    judged = golden[golden[id_col].notna()].copy()
    judged[id_col] = judged[id_col].astype(str)
    dup = judged.duplicated(["question_id", id_col], keep="first")
    if dup.any():
        label = judged.index[dup.to_numpy()][0]
        raise InputError(
            f"golden: {_where(judged, label)}: duplicate gold {id_col} {_show(judged.at[label, id_col])} "
            f"for question {_show(judged.at[label, 'question_id'])}; each (question, ID) pair must appear once."
        )
    return golden, judged


def _question_attributes(golden, id_col):
    skip = {"question_id", id_col, "relevance", "line", "doc_id", "chunk_id"}
    candidates = [c for c in golden.columns if c not in skip]
    if not candidates:
        return pd.DataFrame(index=pd.Index(golden["question_id"].unique(), name="question_id"))
    grouped = golden.groupby("question_id", sort=False)[candidates]
    constant = grouped.nunique(dropna=False).le(1).all()
    keep = [c for c in candidates if constant[c]]
    return grouped.first()[keep] if keep else pd.DataFrame(index=grouped.size().index)


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
        Tidy long form, columns described in this module's docstring.
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
    measures = DEFAULT_MEASURES if measures is None else parse_measures(measures)
    if level not in LEVELS:
        raise ValueError(f"The 'level' parameter of evaluate must be one of {LEVELS}. Got {level!r} instead.")
    check_order(order, func="evaluate")
    min_rel = check_min_rel(min_rel, func="evaluate")
    check_gain(gain, func="evaluate")
    id_col = "doc_id" if level == "document" else "chunk_id"

    golden, judged = _golden_arrays(golden, id_col)
    attributes = _question_attributes(golden, id_col)
    questions = pd.Index(pd.unique(golden["question_id"]), name="question_id")

    run_items, run = _run_items(run, level, doc_map)
    known = run["question_id"].isin(questions)
    unknown = tuple(pd.unique(run.loc[~known, "question_id"]))
    run, run_items = run[known], run_items[known.to_numpy()]

    codes, _ = pd.factorize(np.concatenate([judged[id_col].to_numpy(dtype=object), run_items.astype(object)]))
    gold_item, run_item = codes[: len(judged)], codes[len(judged):]
    result = engine.compute(
        len(questions),
        questions.get_indexer(run["question_id"]),
        run_item,
        questions.get_indexer(judged["question_id"]),
        gold_item,
        judged["relevance"].to_numpy(dtype=float),
        measures,
        min_rel=min_rel,
        gain=gain,
        order=order,
        dedup=(level == "document"),
    )
    names = [str(m) for m in measures]
    per_question = pd.DataFrame({name: result[name] for name in names}, index=questions)
    per_question["n_relevant"] = result["n_relevant"]
    per_question["n_retrieved"] = result["n_retrieved"]
    per_question = per_question.join(attributes)
    settings = {
        "level": level,
        "order": order if level == "document" else None,
        "min_rel": min_rel,
        "gain": gain,
        "measures": names,
    }
    return Evaluation(per_question, summarize(per_question, names), unknown, settings)


def _run_items(run, level, doc_map):
    """Validate the run, sort it by (question, rank) and return (item IDs, sorted run)."""
    if level == "chunk":
        needed = ["question_id", "rank", "chunk_id"]
    elif doc_map is not None:
        needed = ["question_id", "rank", "chunk_id"]
    else:
        needed = ["question_id", "rank", "doc_id"]
    _require(run, "run", needed)
    run = run.copy()
    _check_ids(run, "run", "question_id")
    rank = pd.to_numeric(run["rank"], errors="coerce")
    bad = ~(np.isfinite(rank.astype(float)) & (rank.astype(float) % 1 == 0) & (rank.astype(float) >= 1))
    if bad.any():
        label = run.index[bad.to_numpy()][0]
        raise InputError(
            f"run: {_where(run, label)}: question {_show(run.at[label, 'question_id'])}: rank "
            f"{_show(run.at[label, 'rank'])} is not an integer >= 1."
        )
    run["rank"] = rank.astype(np.int64)
    run["question_id"] = run["question_id"].astype(str)
    dup_rank = run.duplicated(["question_id", "rank"], keep="first")
    if dup_rank.any():
        label = run.index[dup_rank.to_numpy()][0]
        raise InputError(
            f"run: {_where(run, label)}: question {_show(run.at[label, 'question_id'])} has rank "
            f"{run.at[label, 'rank']} twice; the rank order is the ranking, so ties must be broken first."
        )
    # Group by question in order of first appearance (so reports keep the file's order), then by rank.
    run = run.assign(_q=pd.factorize(run["question_id"])[0]).sort_values(["_q", "rank"], kind="stable").drop(columns="_q")
    if level == "chunk" or doc_map is not None:
        chunks = _check_ids(run, "run", "chunk_id").astype(str)
    if level == "chunk":
        dup = run.assign(chunk_id=chunks).duplicated(["question_id", "chunk_id"], keep="first")
        if dup.any():
            label = run.index[dup.to_numpy()][0]
            raise InputError(
                f"run: {_where(run, label)}: chunk {_show(chunks[label])} is retrieved twice for question "
                f"{_show(run.at[label, 'question_id'])}; at chunk level each chunk may appear once."
            )
        return chunks.to_numpy(dtype=object), run
    if doc_map is not None:
        if isinstance(doc_map, pd.Series):
            doc_map = doc_map.to_dict()
        if not isinstance(doc_map, Mapping):
            raise TypeError(f"evaluate: 'doc_map' must be a mapping or Series chunk_id -> doc_id, got {type(doc_map).__name__}.")
        docs = chunks.map(lambda c: doc_map.get(c))
        missing = docs.isna()
        if missing.any():
            label = run.index[missing.to_numpy()][0]
            raise InputError(
                f"run: {_where(run, label)}: unknown chunk ID {_show(chunks[label])} (question "
                f"{_show(run.at[label, 'question_id'])}): it is not in the doc map."
            )
        return docs.astype(str).to_numpy(dtype=object), run
    return _check_ids(run, "run", "doc_id").astype(str).to_numpy(dtype=object), run
