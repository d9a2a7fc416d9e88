"""An evaluated run's numbers as tables with intervals: the summary, slices by any question attribute, and the long
(level, judge, measure, k, value) table for per-k plots.

Three views, one computation (:func:`interval_table`: each mean with its 95% interval from
:func:`rag_metrics.stats.mean_interval` -- Clopper--Pearson for 0/1 values, BCa bootstrap otherwise):

* :meth:`ExperimentResult.summary <rag_metrics.experiment.result.ExperimentResult.summary>` -- one row per measure;
* :meth:`ExperimentResult.by <rag_metrics.experiment.result.ExperimentResult.by>` -- one row per (slice, measure),
  slicing by any attribute :func:`question_attributes` gives (the grouping is
  :func:`rag_metrics.measures.evaluation.slices`, the one :meth:`Evaluation.by <rag_metrics.Evaluation.by>` uses);
* :meth:`ExperimentResult.long <rag_metrics.experiment.result.ExperimentResult.long>` -- one row per (level, judge,
  measure), the measure split into its family and cutoff ``k``.

Undefined values (a question without gold) are left out of a mean and counted (``excluded``), never read as 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.measures.registry import parse_measure
from rag_metrics.measures.evaluation import slice_names, slices
from rag_metrics.stats.intervals import N_RESAMPLES, mean_interval

__all__ = ["question_attributes", "interval_table", "long_table", "NOT_ATTRIBUTES"]

NOT_ATTRIBUTES = ("question", "answer", "labelled")
"""Golden-set fields that are no slice: the question's text, its expected answer, whether it is labelled."""

COLUMNS = ["n", "mean", "ci_low", "ci_high", "excluded", "method"]


def question_attributes(golden, corpus=None) -> pd.DataFrame:
    """Every attribute a question can be sliced by, one row per question of the golden set (index question_id):

    * every field of the golden set but the question's text, its answer and ``labelled`` -- ``type`` and any field
      of a team's own (``language``, ``product``...), kept when the set was read
      (:func:`rag_metrics.io.golden.load_golden`);
    * ``document`` -- the question's gold documents (a tuple: a question with two gold documents is in both
      documents' slices; a no_answer question in none), unless the golden set has a field of that name;
    * with the corpus, ``document.<field>`` for each field of its documents (``document.language``,
      ``document.genre``...): the distinct values of the question's gold documents, a tuple likewise.
    """
    questions = golden.questions
    table = questions.drop(columns=[c for c in NOT_ATTRIBUTES if c in questions.columns]).copy()
    gold = golden.gold[golden.gold["doc_id"].notna()]
    firsts: dict = {}  # question -> its gold documents in first-seen order, in one pass (not a frame per question)
    for q, d in zip(gold["question_id"].tolist(), gold["doc_id"].tolist()):
        firsts.setdefault(q, {})[d] = None
    docs = {q: tuple(ds) for q, ds in firsts.items()}
    if "document" not in table.columns:
        table["document"] = pd.Series([docs.get(q, ()) for q in table.index], index=table.index, dtype=object)
    if corpus is not None:
        fields = corpus.documents.drop(columns=[c for c in ("text", "n_pages") if c in corpus.documents.columns])
        for name in fields.columns:
            of = fields[name].to_dict()
            table[f"document.{name}"] = pd.Series(
                [tuple(dict.fromkeys(of[d] for d in docs.get(q, ()) if d in of)) for q in table.index],
                index=table.index, dtype=object)
    return table


def _rows(per_question: pd.DataFrame, measures, n_resamples: int) -> dict:
    out = {}
    for m in measures:
        iv = mean_interval(pd.to_numeric(per_question[m], errors="coerce").astype(float), n_resamples=n_resamples)
        out[m] = {"n": iv.n, "mean": iv.mean, "ci_low": iv.low, "ci_high": iv.high, "excluded": iv.excluded,
                  "method": iv.method}
    return out


def _means(joined: pd.DataFrame, measures, by, known, names) -> pd.DataFrame:
    """One row per slice: ``n`` and each measure's mean (interval_table's ``wide=True``)."""
    rows = []
    for value, group in slices(joined, by, known):
        key = value if isinstance(value, tuple) else (value,)
        values = group[measures].apply(pd.to_numeric, errors="coerce").astype(float)
        n = int(values[measures[0]].notna().sum())
        if n:
            rows.append((*key, n, *values.mean().to_list()))
    table = pd.DataFrame(rows, columns=[*names, "n", *measures]).set_index(names)
    return table


def interval_table(per_question: pd.DataFrame, measures, *, by=None, attributes=None,
                   n_resamples: int = N_RESAMPLES, wide: bool = False) -> pd.DataFrame:
    """Each measure's mean with its 95% interval: one row per measure, or with ``by`` one per (slice, measure).

    Columns: ``n`` (questions where the measure is defined), ``mean``, ``ci_low``, ``ci_high``, ``excluded``
    (undefined: no gold), ``method`` (the interval's). ``by``: as :func:`rag_metrics.measures.evaluation.slices` takes
    it, over ``per_question`` joined with ``attributes`` (a table indexed by question ID). ``wide=True`` (with
    ``by``): one row per slice instead, columns ``n`` (questions with a defined value of the first measure) and each
    measure's mean -- no interval computed; slices where nothing is defined are left out.
    """
    measures = [str(m) for m in measures]
    if by is None and wide:
        raise InputError("interval_table: wide=True needs a slice (by=).")
    if by is None:
        table = pd.DataFrame.from_dict(_rows(per_question, measures, n_resamples), orient="index", columns=COLUMNS)
        table.index.name = "measure"
        return table
    joined = per_question
    known = None
    if attributes is not None:
        joined = per_question.drop(columns=[c for c in attributes.columns if c in per_question.columns])
        joined = joined.join(attributes, how="left")
        known = list(attributes.columns)
    names = slice_names(by)
    if wide:
        return _means(joined, measures, by, known, names)
    rows = []
    for value, group in slices(joined, by, known):
        key = value if isinstance(value, tuple) else (value,)
        rows += [(*key, m, *row.values()) for m, row in _rows(group, measures, n_resamples).items()]
    table = pd.DataFrame(rows, columns=[*names, "measure", *COLUMNS])
    return table.set_index([*names, "measure"])


def long_table(evaluations: dict, *, n_resamples: int = N_RESAMPLES, run: str | None = None) -> pd.DataFrame:
    """The long table for plots: one row per (level, judge, measure) of ``evaluations`` (``{(level, judge):
    Evaluation}``; judge ``None`` at document and chunk level), columns ``run`` (``run``), ``ruler`` (never empty:
    the judge's name at page level, ``"document level"`` / ``"chunk level"`` otherwise), ``level``, ``judge``,
    ``measure`` (the family: ``hit``, ``ndcg``...), ``k`` (its cutoff, an integer; <NA> for a measure over the whole
    ranking), ``name`` (as written, ``hit@5``), then :func:`interval_table`'s columns; ``value`` is the mean. A per-k
    curve is ``long[long.measure == "hit"].pivot(index="k", columns="ruler", values="value")``; several results'
    tables concatenated pivot on ``run``."""
    parts = []
    for (level, judge), ev in evaluations.items():
        table = interval_table(ev.per_question, ev.measures, n_resamples=n_resamples).reset_index(names="name")
        parsed = [parse_measure(m) for m in table["name"]]
        table.insert(0, "k", pd.array([m.k for m in parsed], dtype="Int64"))
        table.insert(0, "measure", [m.name if m.rel is None else f"{m.name}(rel={m.rel})" for m in parsed])
        table.insert(0, "judge", judge)
        table.insert(0, "level", level)
        table.insert(0, "ruler", judge if level == "page" else f"{level} level")
        parts.append(table)
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["ruler", "level", "judge", "measure",
                                                                                  "k", "name", *COLUMNS])
    out = out.rename(columns={"mean": "value"})
    out["k"] = out["k"].astype("Int64")
    out.insert(0, "run", run)
    return out
