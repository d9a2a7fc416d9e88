"""The experiment report's content: every table and sentence it shows, computed here so tests can check them.

:func:`experiment_report` takes a golden set, the retrieval logs of an experiment and the documents; it

1. orders the logs by when their runs were made (:func:`rag_metrics.experiment.history.order_logs`: the log's
   settings, else the file's modification time, or the order given) -- never by the time the report is built;
2. evaluates each log (:func:`rag_metrics.experiment.evaluate.evaluate_log`) and adds it to the experiment's
   history once (:func:`rag_metrics.experiment.history.save_experiment`);
3. takes the newest run given as the **subject** -- every section of the report describes it -- and the newest
   comparable run made before it (same golden set and judge) as the **baseline**;
4. computes the verdict on the primary measure (:func:`rag_metrics.experiment.verdict.verdict`), the other
   measures with Holm-adjusted p, the configuration diff, the questions that moved, the remaining misses and
   which of them get a drill-down (capped: the moved ones first, then the misses; a table lists the rest).

The notebook ``rag_metrics/report/experiment.ipynb`` calls this and displays the result's tables.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field

import pandas as pd

from rag_metrics.core.errors import InputError, check_cutoffs, check_int
from rag_metrics.experiment import history as _history
from rag_metrics.experiment.history import log_profile
from rag_metrics.core.html import one_line
from rag_metrics.core.html import summary as html_summary
from rag_metrics.io.coerce import as_corpus, as_golden, as_logs
from rag_metrics.measures.registry import parse_measure
from rag_metrics.experiment.confidence import logged_coverage
from rag_metrics.experiment.diagnosis import DiagnosisView
from rag_metrics.experiment.evaluate import ExperimentResult, evaluate_log, latency_table
from rag_metrics.experiment.result import default_measures
from rag_metrics.stats.intervals import N_RESAMPLES
from rag_metrics.experiment.verdict import ALPHA, Verdict, verdict
from rag_metrics.experiment.report_questions import DRILLDOWNS, QUESTION_ROWS, QuestionSections, run_labels
from rag_metrics.experiment.report_rulers import RulerSections
from rag_metrics.experiment.report_verdict import VerdictSections

__all__ = ["experiment_report", "ExperimentReport", "DiagnosisView", "log_profile", "DRILLDOWNS", "QUESTION_ROWS"]


@dataclass(repr=False)
class ExperimentReport(VerdictSections, QuestionSections, RulerSections):
    """What :func:`experiment_report` computed (module docstring). ``results`` are the given logs' evaluations
    oldest first, ``order`` how each was placed; ``records`` the experiment's history, oldest first."""

    results: list
    order: list
    records: list
    record_ids: list
    subject: ExperimentResult
    subject_record: dict
    baseline_record: dict | None
    baseline: ExperimentResult | None
    measure: str
    alpha: float
    verdict: Verdict | None
    history_dir: str
    n_resamples: int = N_RESAMPLES
    coverage: dict | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        line = self.verdict.line() if self.verdict is not None else "no baseline to compare with"
        return one_line(f"<ExperimentReport of {len(self.results)} run(s), subject {self.subject.name} at "
                        f"{self.subject.evaluation.describe()}: {line}>")

    def _repr_html_(self) -> str:
        """The verdict banner and the runs, one row each (the report's notebook shows every section)."""
        return self.banner()._repr_html_() + html_summary(
            f"{len(self.results)} run(s) at {self.subject.evaluation.describe()}; the report's sections are this "
            "object's methods (moved(), ruler_table(), page_audits()...).", (None, self.runs_table().head(30)))

    # ---- the runs --------------------------------------------------------------------------------------------

    @property
    def measures(self) -> list:
        return self.subject.headline_measures

    def runs_table(self) -> pd.DataFrame:
        """The logs of this report in the order their runs were made: run, made at, how that was told, questions
        logged and used, items, the depth logged, and the role of each run in this report."""
        rows = []
        for entry, result, rid in zip(self.order, self.results, self.record_ids):
            role = "subject" if result is self.subject else ("baseline" if result is self.baseline else "")
            rows.append({"run": result.name, "made at": entry["made_at"] or "unknown",
                         "ordered by": _history.RULES[entry["ordered_by"]], "questions logged": len(result.log.questions),
                         "not in the golden set": len(result.unknown_questions), "items": len(result.log.run),
                         "depth": result.depth, "role": role})
        return pd.DataFrame(rows).set_index("run") if rows else pd.DataFrame()

    def later_runs(self) -> list:
        """Names of history runs made after the subject (they are not what this report describes)."""
        ids = [r["id"] for r in self.records]
        i = ids.index(self.subject_record["id"])
        return [r["name"] for r in self.records[i + 1:]]

    def _subject_index(self) -> int:
        """The subject's place among the results, by identity (results compare their tables, which cannot be
        compared with ``==``; two identical logs make two equal results)."""
        return next(i for i, r in enumerate(self.results) if r is self.subject)

    def describes(self) -> str:
        """A Markdown line naming the run a section describes (the subject) and when it was made."""
        from rag_metrics.core.html import md_escape

        entry = self.order[self._subject_index()]
        made = f", made {entry['made_at'][:19].replace('T', ' ')} UTC" if entry["made_at"] else ""
        return f"*This section describes run **{md_escape(self.subject.name)}**{md_escape(made)}.*"

    def history_numbers(self) -> pd.DataFrame:
        """:meth:`history_table` as numbers: each measure's mean, ``<m> low`` and ``<m> high`` per comparable run."""
        if "history" not in self._cache:
            table = _history.history_table(self.records, self.measures, subject_id=self.subject_record["id"],
                                           baseline_id=(self.baseline_record or {}).get("id"),
                                           n_resamples=self.n_resamples)
            self._cache["history"] = table[table["comparable"]].reset_index(drop=True)
        return self._cache["history"]

    def history_table(self) -> pd.DataFrame:
        """One row per run of the experiment's history comparable with the subject (same golden set and judge),
        oldest first: made at, n and each headline measure as ``mean [low, high]``; ``role`` marks the subject and
        the baseline. (Intervals are stored with each run when it enters the history: computed once.)"""
        table = self.history_numbers()
        shown = pd.DataFrame({"run": table["run"], "made at": table["made at"], "role": table["role"],
                              "n": table["n"].astype("Int64")})
        for m in self.measures:
            if m in table:
                shown[m] = [_mean_ci(row, m) for _, row in table.iterrows()]
        return shown.set_index("run")

    def incomparable_runs(self) -> list:
        """History runs on another golden set or judge: listed apart, never compared."""
        return [r["name"] for r in self.records if not _history.comparable(r, self.subject_record)]

    def config_diff(self) -> pd.DataFrame:
        """The configuration of the baseline and the subject side by side (empty without a baseline), the rows
        that differ first; columns named after the runs. When the baseline's log is among this report's inputs,
        what the two logs show is added (:func:`log_profile`), so that logs without settings still explain a change."""
        if self.baseline_record is None:
            return pd.DataFrame()
        table = _history.config_diff(self.baseline_record, self.subject_record)
        if self.baseline is not None:  # what the logs themselves show, recorded settings or not
            a, b = log_profile(self.baseline), log_profile(self.subject)
            seen = pd.DataFrame([{"setting": f"{label} (seen in the log)", "before": a[label], "after": b[label],
                                  "differs": a[label] != b[label]} for label in a]).set_index("setting")
            table = pd.concat([table, seen])
        table = pd.concat([table[table["differs"]], table[~table["differs"]]])
        before, after = run_labels(self.baseline_record["name"], self.subject_record["name"])
        table = table.rename(columns={"before": f"{before} (baseline)", "after": f"{after} (subject)"})
        table["differs"] = table["differs"].map({True: "differs", False: ""})
        return table

    # ---- what the index records -----------------------------------------------------------------------------

    def trend(self, partial_runs: bool = False) -> list:
        """The primary measure across the runs comparable with the subject, made up to the subject, oldest first; a
        run whose log held a minority of the questions only when ``partial_runs`` (:func:`~rag_metrics.experiment.
        history.partial`)."""
        ids = [r["id"] for r in self.records]
        upto = self.records[: ids.index(self.subject_record["id"]) + 1]
        return _history.trend([r for r in upto if _history.comparable(r, self.subject_record)], self.measure,
                              n_resamples=self.n_resamples, partial_runs=partial_runs)

    def summary(self) -> dict:
        """What the run folder's ``summary.json`` and the index record about this report: the subject (the newest
        run), the primary measure and judge, the verdict and the trend."""
        from rag_metrics.core.serialize import jsonable

        entry = self.order[self._subject_index()]
        return jsonable({"subject": self.subject.name, "subject_id": _history.run_key(self.subject_record),
                         "made_at": entry["made_at"], "ordered_by": entry["ordered_by"], "measure": self.measure,
                         "judge": self.subject.primary,
                         "baseline": (self.baseline_record or {}).get("name"),
                         "baseline_id": _history.run_key(self.baseline_record) if self.baseline_record else None,
                         "verdict": self.verdict.to_dict() if self.verdict is not None else None,
                         "line": self.verdict.line() if self.verdict is not None else None,
                         "trend": self.trend()})

    def latency(self) -> pd.DataFrame:
        return latency_table(self.results)


def _mean_ci(row, m) -> str:
    if pd.isna(row.get(m)):
        return "-"
    return f"{row[m]:.3f} [{row[m + ' low']:.3f}, {row[m + ' high']:.3f}]"


def experiment_report(golden, logs, corpus=None, *, ks=(1, 3, 5), min_chars: int = 24, window: int = 1,
                      judge: str | None = None, measure: str | None = None, order: str = "made",
                      history_dir=None, alpha: float = ALPHA, n_resamples: int = N_RESAMPLES) -> ExperimentReport:
    """Evaluate an experiment's logs and compute what its report shows (module docstring).

    Parameters
    ----------
    golden : GoldenSet or its path
    logs : list of RunLog or paths (any order; see ``order``); one log or path is a list of one
    corpus : Corpus or its path, optional -- the documents, to judge logged text by content overlap
    ks, min_chars, window, judge : as :func:`~rag_metrics.experiment.evaluate.evaluate_log` (``judge`` = its
        ``primary``: the ruler of the headline)
    measure : the primary measure of the verdict and of the moved questions, any measure (``"ndcg@10"``, graded);
        default ``hit@<largest k>`` (a gold page among the items the generator reads)
    order : ``made`` (default) or ``given`` (:data:`rag_metrics.experiment.history.RUN_ORDERS`)
    history_dir : the experiment's history folder (default: a new temporary folder, i.e. no history)
    alpha : the level of the verdict's test
    """
    corpus = as_corpus(corpus, func="experiment_report")
    golden, logs = as_golden(golden, corpus, func="experiment_report"), as_logs(logs, func="experiment_report")
    if not logs:
        raise InputError("an experiment report needs at least one retrieval log.")
    n_resamples = check_int(n_resamples, "n_resamples")
    ordered = _history.order_logs(logs, order)
    extra = None if measure is None else [str(parse_measure(measure))]  # any measure: a graded one too (ndcg@10)
    results = [evaluate_log(golden, entry["log"], corpus, ks=ks, min_chars=min_chars, window=window, judge=judge,
                            measures=None if extra is None else [*default_measures(check_cutoffs(ks), golden), *extra])
               for entry in ordered]
    subject = results[-1]
    measure = extra[0] if extra else f"hit@{max(subject.ks)}"
    history_dir = str(history_dir or tempfile.mkdtemp(prefix="experiment-history-"))
    ids = []
    for entry, result in zip(ordered, results):
        path, _ = _history.save_experiment(result, history_dir, made_at=entry["made_at"], rule=entry["rule"],
                                           n_resamples=n_resamples)
        ids.append(path.stem)
    records = _history.experiment_history(history_dir, given=ids if order == "given" else None)
    by_id = {r["id"]: r for r in records}
    subject_record = by_id[ids[-1]]
    baseline_record = _history.previous_comparable(records, subject_record["id"], measure)
    baseline = None
    if baseline_record is not None:  # the baseline's evaluation, when its log is among this report's inputs
        baseline = next((r for r, rid in zip(results[::-1], ids[::-1]) if rid == baseline_record["id"]), None)
    v, coverage = None, None
    if baseline_record is not None:
        before, after = _history.per_question(baseline_record, measure), subject.evaluation.per_question[measure]
        named = dict(measure=measure, before_name=baseline_record["name"], after_name=subject_record["name"],
                     alpha=alpha, n_resamples=n_resamples)
        coverage = logged_coverage(baseline_record, subject_record)
        if coverage is not None:  # compared on the questions both logged; the whole-set figure kept beside it
            both = coverage["both"]
            coverage["all"] = verdict(before, after, **named)
            before, after = before[before.index.isin(both)], after[after.index.isin(both)]
        v = verdict(before, after, **named)
    return ExperimentReport(results, ordered, records, ids, subject, subject_record, baseline_record, baseline,
                            measure, alpha, v, history_dir, n_resamples, coverage)
