"""The result of one evaluated run (:func:`rag_metrics.experiment.evaluate.evaluate_log`): every view a report needs.

:class:`ExperimentResult` holds the log, its judged rows under every judge that applies and the evaluations at page,
document and chunk level; its methods are the views -- headline with intervals here, rulers side by side and page
checks (:mod:`.result_rulers`), failures, misses, drill-downs and retrieval vs generation (:mod:`.result_questions`)
-- each a function of another module where it has a role of its own. It renders as HTML in JupyterLab.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from rag_metrics.core.errors import check_names
from rag_metrics.core.html import render
from rag_metrics.core.html import table as html_table
from rag_metrics.judging.judges import describe_judge
from rag_metrics.measures.export import trec_qrels, trec_run
from rag_metrics.measures.page_level import judged_items
from rag_metrics.measures.evaluation import Evaluation
from rag_metrics.experiment.levels import at_level, judge_name, measure_values
from rag_metrics.experiment.result_questions import QuestionViews
from rag_metrics.experiment.result_rulers import RulerViews
from rag_metrics.experiment.slices import interval_table, long_table, question_attributes
from rag_metrics.stats.intervals import N_RESAMPLES, mean_table

__all__ = ["ExperimentResult", "headline_table", "default_measures"]


@dataclass(repr=False)
class ExperimentResult(RulerViews, QuestionViews):
    """Everything :func:`evaluate_log` computed (see the module docstring). Tables are pandas; figures
    are per question (NaN = undefined, excluded from means and counted). The rulers' views are
    :class:`~rag_metrics.experiment.result_rulers.RulerViews`, the questions' views
    :class:`~rag_metrics.experiment.result_questions.QuestionViews`; the headline's are here."""

    name: str
    golden: object
    log: object
    corpus: object
    run: pd.DataFrame
    ks: tuple
    judges: dict
    primary: str
    judged: dict
    pages: dict
    document: Evaluation
    chunk: Evaluation | None
    failures: pd.DataFrame
    unknown_questions: list
    missing_questions: list
    failed_questions: list
    documents: dict
    settings: dict = field(default_factory=dict)
    question_map: dict = field(default_factory=dict)
    page_index: object = None  # the PageIndex the judges used (page texts, normalized and hashed once)
    level: str = "page"  # what the headline counts: "page" (under the primary judge), "document" or "chunk"
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def headline_measures(self) -> list[str]:
        """The measures the headline shows: those asked for (``evaluate_log(measures=...)``), else hit@k at every k,
        MRR, Recall@(largest k) when a question has several gold pages, sufficiency@(largest k) with groups."""
        given = self.settings.get("measures")
        if given:
            return [m for m in given if m in self.evaluation.values]
        return default_measures(self.ks, self.golden)

    @property
    def evaluation(self) -> Evaluation:
        """The headline evaluation: at :attr:`level` -- page level under the primary judge (the default), gold
        documents or gold chunk IDs (:meth:`at`)."""
        return self.at()

    @property
    def measures(self) -> list[str]:
        """The measures evaluated at every level (the headline's and the ones every result holds)."""
        return self.evaluation.measures

    def at(self, level: str | None = None, judge: str | None = None) -> Evaluation:
        """The :class:`~rag_metrics.Evaluation` at ``level`` (default :attr:`level`): ``"page"`` under ``judge``
        (default the primary judge; any judge that applied: :attr:`judges`), ``"document"`` or ``"chunk"``."""
        return at_level(self, level, judge)

    def attributes(self) -> pd.DataFrame:
        """What a question can be sliced by (:func:`rag_metrics.experiment.slices.question_attributes`): the golden
        set's fields (``type``, a team's own), ``document`` (its gold documents) and, with the corpus,
        ``document.language``, ``document.genre``..."""
        if "attributes" not in self._cache:
            self._cache["attributes"] = question_attributes(self.golden, self.corpus)
        return self._cache["attributes"]

    @property
    def per_question(self) -> pd.DataFrame:
        """The headline evaluation's values, one row per question, with every attribute of :meth:`attributes`."""
        table = self.evaluation.per_question
        attrs = self.attributes()
        return table.drop(columns=[c for c in attrs.columns if c in table.columns]).join(attrs, how="left")

    def values(self, measure, level: str | None = None, judge: str | None = None) -> pd.Series:
        """Per-question values of any measure at any cutoff (``"ndcg@7"``), at ``level`` under ``judge`` (defaults
        as :meth:`at`): read from the evaluation when it holds the measure, else computed from the judged rows and
        kept."""
        return measure_values(self, measure, level, judge)

    def summary(self, level: str | None = None, judge: str | None = None, measures=None, *,
                n_resamples: int = N_RESAMPLES) -> pd.DataFrame:
        """Each measure's mean with its 95% interval (``n``, ``mean``, ``ci_low``, ``ci_high``, ``excluded``,
        ``method``; :func:`rag_metrics.experiment.slices.interval_table`) at ``level`` under ``judge`` (defaults
        as :meth:`at`), named in its first column ``ruler`` (:meth:`ruler`); ``measures`` default: every measure
        evaluated, the headline's first."""
        ev = self.at(level, judge)
        names = (list(dict.fromkeys([*self.headline_measures, *ev.measures])) if measures is None
                 else check_names(measures, func="summary"))
        table = pd.DataFrame({m: self.values(m, level, judge) for m in names})
        return self._ruled(interval_table(table, names, n_resamples=n_resamples), level, judge)

    def by(self, key, level: str | None = None, judge: str | None = None, measures=None, *,
           n_resamples: int = N_RESAMPLES, wide: bool = False) -> pd.DataFrame:
        """:meth:`summary` per slice: one row per (value of ``key``, measure). ``key``: any attribute of
        :meth:`attributes` (``"type"``, ``"document"``, ``"document.language"``, a golden-set field of your own),
        a list of them, or a Series question ID -> value. A question with two gold documents counts in both
        documents' slices; a misspelled name is an :class:`~rag_metrics.InputError` naming the attributes.
        ``wide=True``: one row per slice with ``n`` and each measure's mean, no intervals (slices where nothing is
        defined, such as no_answer questions, left out). The table's ``attrs["ruler"]`` and its ``ruler``
        column (a wide table: its columns' name) say the level and judge the figures are under."""
        ev = self.at(level, judge)
        names = self.headline_measures if measures is None else check_names(measures, func="by")
        table = pd.DataFrame({m: self.values(m, level, judge) for m in names}).reindex(ev.per_question.index)
        out = interval_table(table, names, by=key, attributes=self.attributes(), n_resamples=n_resamples, wide=wide)
        return self._ruled(out, level, judge, column=not wide)

    def ruler(self, level: str | None = None, judge: str | None = None) -> str:
        """What the figures at ``level`` under ``judge`` count (defaults as :meth:`at`): ``"page level, overlap
        judge (min_chars=24, ...)"``, ``"document level (gold documents)"``, ``"chunk level (gold chunk IDs)"``."""
        self.at(level, judge)  # checks both
        level = self.level if level is None else level
        if level == "page":
            name = judge_name(self, judge)
            return f"page level, {describe_judge(self.judges[name]).replace(name, name + ' judge', 1)}"
        return {"document": "document level (gold documents)", "chunk": "chunk level (gold chunk IDs)"}[level]

    def _ruled(self, table: pd.DataFrame, level, judge, *, column: bool = True) -> pd.DataFrame:
        """``table`` naming its ruler: in ``attrs["ruler"]``, and in a first column ``ruler`` (``column``) or, for a
        wide table, as the name of its columns (shown above the index in a notebook)."""
        ruler = self.ruler(level, judge)
        if column:
            table.insert(0, "ruler", ruler)
        else:
            table.columns.name = ruler
        table.attrs["ruler"] = ruler
        return table

    def to_trec(self, folder, level: str | None = None, judge: str | None = None, *,
                order: str = "cut_then_dedup") -> tuple:
        """Write this run and its judgments as TREC files in ``folder`` -- ``<name>.<level>.run`` and
        ``qrels.<level>.txt`` -- that trec_eval, pytrec_eval and ranx read back to the numbers of :meth:`at` (``level``
        default :attr:`level`; page level under ``judge``; the collapsing ``order`` at document level, stated in the
        run's tag): :mod:`rag_metrics.measures.export` says what reads back the same. Returns ``(run_path,
        qrels_path)``."""
        from pathlib import Path

        level = self.level if level is None else level
        ev = self.at(level, judge)  # checks level and judge
        if level == "page":
            rows = judged_items(self.judged[judge_name(self, judge)])
        else:
            rows = self.run[self.run["doc_id"].notna()] if level == "document" else self.run
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        run_path, qrels_path = folder / f"{self.name}.{level}.run", folder / f"qrels.{level}.txt"
        run_path.write_text(trec_run(rows, level=level, order=order, name=self.name), encoding="utf-8")
        qrels_path.write_text(trec_qrels(self.golden, level=level), encoding="utf-8")
        assert ev is not None
        return run_path, qrels_path

    def long(self, *, n_resamples: int = N_RESAMPLES) -> pd.DataFrame:
        """Every measure at every level and under every judge as one long table -- ``run``, ``ruler``, ``level``,
        ``judge``, ``measure``, ``k``, ``value``, its interval -- for per-k plots
        (:func:`rag_metrics.experiment.slices.long_table`)."""
        evaluations = {("page", name): ev for name, ev in self.pages.items()}
        evaluations[("document", None)] = self.document
        if self.chunk is not None:
            evaluations[("chunk", None)] = self.chunk
        return long_table(evaluations, n_resamples=n_resamples, run=self.name)

    def headline(self, n_resamples: int = N_RESAMPLES) -> pd.DataFrame:
        """n, hit@k, MRR (and Recall@k) with 95% intervals (:func:`~.intervals.mean_table`), under the primary judge."""
        return headline_table({self.name: self.evaluation.per_question}, self.headline_measures,
                              n_resamples=n_resamples)

    def __repr__(self) -> str:
        summary = self.evaluation.summary_dict()
        means = ", ".join(f"{m} {summary[m]['mean']:.3f}" for m in self.headline_measures[:6]
                          if summary.get(m, {}).get("mean") is not None)
        text = (f"<ExperimentResult {self.name}: {len(self.golden.labelled)} labelled questions at "
                f"{self.evaluation.describe()}: {means}; {len(self.misses())} missed in the top {max(self.ks)}>")
        return text if len(text) <= 480 else text[:476] + "...>"

    def _repr_html_(self) -> str:
        return render("experiment_summary.html.j2", name=self.name, n_questions=len(self.golden.labelled),
                      level=self.evaluation.describe(),
                      headline=html_table(self.headline(n_resamples=2000), float_format=lambda v: f"{v:.3f}"),
                      judges=html_table(self.ruler_table(), float_format=lambda v: f"{v:.3f}"),
                      failures=html_table(self.failure_counts()), settings=self.settings,
                      unknown=self.unknown_questions, missing=self.missing_questions, failed=self.failed_questions)


def default_measures(ks, golden) -> list[str]:
    """The headline's measures when none are asked for: hit@k at every k, MRR, Recall@(largest k) when a question
    has several gold pages, sufficiency@(largest k) when the golden set has evidence groups."""
    names = [f"hit@{k}" for k in ks] + ["mrr"]
    multi = (golden.gold_pages.groupby("question_id").size() > 1).any()
    groups = [f"sufficiency@{max(ks)}"] if getattr(golden, "has_groups", False) else []
    return names + ([f"recall@{max(ks)}"] if multi else []) + groups


def headline_table(per_question: dict, measures, *, n_resamples: int = N_RESAMPLES) -> pd.DataFrame:
    """One row per run: n and each measure's mean with its 95% interval (``{run: per-question table}``;
    :func:`~rag_metrics.stats.mean_interval`: Clopper--Pearson for 0/1 values, BCa bootstrap otherwise)."""
    return mean_table(per_question, measures, n_resamples=n_resamples)
