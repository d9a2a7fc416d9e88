"""The result of one evaluated run (:func:`rag_metrics.experiment.evaluate.evaluate_log`): every view a report needs.

:class:`ExperimentResult` holds the log, its judged rows under every judge that applies and the evaluations at page,
document and chunk level; its methods are the views -- headline with intervals, rulers side by side, failures,
misses, drill-downs (:mod:`.drilldown`), retrieval vs generation (:mod:`.generation`) -- each a function of another
module where it has a role of its own. It renders as HTML in JupyterLab.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from rag_metrics.core.errors import check_int, check_names
from rag_metrics.core.html import HtmlView, render
from rag_metrics.core.html import table as html_table
from rag_metrics.io.log_matching import log_key
from rag_metrics.judging.page_audit import audit_pages
from rag_metrics.judging.boilerplate import boilerplate_lines
from rag_metrics.judging.judges import OverlapJudge, describe_judge
from rag_metrics.measures.evaluator import evaluate
from rag_metrics.measures.export import trec_qrels, trec_run
from rag_metrics.measures.page_level import judged_items
from rag_metrics.measures.evaluation import JUDGED_WARNING, Evaluation
from rag_metrics.experiment.drilldown import explain, explain_data
from rag_metrics.experiment.failures import FAILURE_KINDS, GROUP_MISSING
from rag_metrics.experiment.generation import GenerationView, generation_view
from rag_metrics.experiment.levels import at_level, judge_name, measure_values
from rag_metrics.experiment.rulers import raw_overlap, ruler_changes, ruler_disagreements, ruler_table, unfindable_gold
from rag_metrics.experiment.slices import interval_table, long_table, question_attributes
from rag_metrics.stats.intervals import N_RESAMPLES, mean_table

__all__ = ["ExperimentResult", "headline_table", "default_measures"]


@dataclass(repr=False)
class ExperimentResult:
    """Everything :func:`evaluate_log` computed (see the module docstring). Tables are pandas; figures
    are per question (NaN = undefined, excluded from means and counted)."""

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

    # -- rulers (rag_metrics.experiment.rulers) and page checks (rag_metrics.judging.page_audit) -----------------------
    def raw_overlap(self):
        """The overlap judge with boilerplate kept -- ``(description, Evaluation, judged rows)`` -- to show what page
        furniture does; None when the overlap judge does not apply or keeps boilerplate already
        (:func:`rag_metrics.experiment.rulers.raw_overlap`)."""
        return raw_overlap(self)


    def ruler_table(self) -> pd.DataFrame:
        """Every headline measure under every ruler (:func:`rag_metrics.experiment.rulers.ruler_table`)."""
        return ruler_table(self)

    def ruler_changes(self, previous: "ExperimentResult") -> pd.DataFrame:
        """This run minus ``previous`` under every ruler (:func:`rag_metrics.experiment.rulers.ruler_changes`)."""
        return ruler_changes(previous, self)

    def ruler_disagreements(self, a: str = "overlap", b: str = "page", k: int | None = None) -> pd.DataFrame:
        """Items ruler ``a`` credits and ``b`` does not, and the reverse, with the shared text
        (:func:`rag_metrics.experiment.rulers.ruler_disagreements`)."""
        return ruler_disagreements(self, a, b, k)

    def unfindable_gold(self) -> pd.DataFrame:
        """Gold pages without text, unfindable by text judges (:func:`rag_metrics.experiment.rulers.unfindable_gold`)."""
        return unfindable_gold(self)

    def boilerplate(self) -> pd.DataFrame:
        """What the overlap judge left out as boilerplate, per document (its repeated text, digits as ``#``, and on
        how many pages); empty when the overlap judge does not apply."""
        judge = self.judges.get("overlap")
        if judge is None or self.page_index is None:
            return boilerplate_lines(None, 24, None)
        return boilerplate_lines(self.page_index, judge.min_chars, judge.boilerplate)

    def page_audit(self):
        """The page-metadata audit of the logged pages (:func:`rag_metrics.judging.page_audit.audit_pages`); None
        without the documents."""
        if self.page_index is None:
            return None
        if "audit" not in self._cache:
            logged = self.run[self.run["pages_from"] == "logged"] if "pages_from" in self.run else self.run
            read = (self.settings.get("read") or {})
            self._cache["audit"] = audit_pages(logged, self.page_index, min_chars=self.judges.get(
                "overlap", OverlapJudge()).min_chars, page_base=read.get("page_base"), name=self.name)
        return self._cache["audit"]

    def placements(self) -> pd.DataFrame:
        """How the items got their document and pages: one row per (placed_by, pages_from) with its item count."""
        cols = [c for c in ("placed_by", "pages_from") if c in self.run.columns]
        if not cols:
            return pd.DataFrame(columns=["items"])
        return self.run.groupby(cols, dropna=False).size().rename("items").to_frame()

    def notices(self) -> list[str]:
        """Sentences a report must show about its rulers: a page-base offset (with its fix), items placed by their
        text, printed labels ignored, gold pages no text judge can find, what boilerplate was left out."""
        out = []
        audit = self.page_audit()
        if audit is not None and audit.warning:
            out.append(audit.warning)
        if "placed_by" in self.run.columns:
            placed = self.run[self.run["placed_by"] != "logged"]["placed_by"].value_counts()
            if len(placed):
                out.append(f"{self.name}: {int(placed.sum())} item(s) had no document or no physical page and were "
                           "placed by finding their text on the pages: "
                           + ", ".join(f"{v} {k}" for k, v in placed.items()) + ".")
        if "page_label" in self.run.columns and self.run["page_label"].notna().any():
            out.append(f"{self.name}: page_label is the label printed on a page (i, ii, 1...), not its position in the "
                       "file; it was not read as a page (pages were located from the text).")
        unfindable = self.unfindable_gold()
        if len(unfindable):
            qs = ", ".join(dict.fromkeys(unfindable["question_id"].astype(str)))
            out.append(f"{len(unfindable)} gold page(s) have no text (scanned pages?): text judges cannot find them, "
                       f"so questions {qs} are misses under those judges whatever the retriever does.")
        furniture = self.boilerplate()
        if len(furniture):
            out.append(f"The overlap judge left out text repeated on most pages of {furniture['doc_id'].nunique()} "
                       f"document(s) ({len(furniture)} repeated line(s), e.g. {furniture['text'].iloc[0]!r}): "
                       "shared page furniture is no evidence of a page.")
        return out

    def answers(self) -> pd.Series:
        """The answers logged with the questions, indexed by golden question ID (empty when none)."""
        out = {}
        for qid, text, answer in zip(self.log.questions["question_id"], self.log.questions["question"],
                                     self.log.questions["answer"]):
            key = log_key(qid, text)
            if answer is not None and key in self.question_map:
                out[self.question_map[key]] = str(answer)
        return pd.Series(out, dtype=object, name="generated_answer")

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

    def failure_counts(self) -> pd.DataFrame:
        """Questions per failure kind; with evidence groups, also ``group_missing`` (a hit, but a group missing)."""
        kinds = FAILURE_KINDS + ((GROUP_MISSING,) if getattr(self.golden, "has_groups", False) else ())
        counts = self.failures["failure"].value_counts()
        return pd.DataFrame({"questions": [int(counts.get(k, 0)) for k in kinds],
                             "question IDs": [", ".join(self.failures.loc[self.failures["failure"] == k, "question_id"])
                                              for k in kinds]}, index=pd.Index(kinds, name="failure"))

    def no_answer(self) -> pd.DataFrame:
        """The no_answer questions: what came back for them (they have no gold; evaluated apart)."""
        q = self.golden.labelled
        ids = q.index[q["type"] == "no_answer"]
        top = self.run[self.run["rank"] == 1].set_index("question_id")
        answers = self.answers()
        rows = []
        for qid in ids:
            rows.append({"question_id": qid, "question": q.at[qid, "question"],
                         "retrieved": int((self.run["question_id"] == qid).sum()),
                         "top_document": top["doc_id"].get(qid), "top_score": top["score"].get(qid),
                         "answer": answers.get(qid)})
        return pd.DataFrame(rows, columns=["question_id", "question", "retrieved", "top_document", "top_score", "answer"])

    def misses(self, k: int | None = None) -> list:
        """Answerable questions with no hit in the top ``k`` (default the largest k; any k >= 1) at :attr:`level`,
        golden order."""
        k = max(self.ks) if k is None else check_int(k, "k", func="misses")
        values = self.values(f"hit@{k}")
        return [q for q, v in values.items() if v == 0.0]

    @property
    def depth(self) -> int:
        """The most items the log holds for one question (0 when it holds none): what any k can reach."""
        if "depth" not in self._cache:
            counts = self.log.run.groupby("question_id", sort=False).size() if len(self.log.run) else []
            self._cache["depth"] = int(max(counts, default=0))
        return self._cache["depth"]

    def depth_warning(self) -> str | None:
        """A sentence when a cutoff k exceeds the depth the log holds (None otherwise): hit@k at such a k counts
        only the items logged, so it cannot differ from hit@depth -- the log cannot say what ranks beyond it held."""
        over = [k for k in self.ks if k > self.depth]
        if not over:
            return None
        asked = (self.settings.get("run_settings") or {}).get("k")
        run_k = f" (the run asked for {asked})" if asked is not None else ""
        return (f"k = {', '.join(map(str, over))} exceeds the depth run {self.name} logged: at most {self.depth} "
                f"item(s) per question{run_k}. Figures at k = {', '.join(map(str, over))} count only those "
                f"{self.depth}, so they equal the figures at k = {self.depth}; log deeper to measure them.")

    def judged_at_k(self, k: int | None = None) -> dict:
        """Judged@k (ir_measures' measure, not trec_eval's) on the answerable questions only, at document level:
        the share of the top k whose document is labelled for the question. ``no_answer`` questions have no label
        at all and would count as 0, so they are left out (``excluded``).

        When the golden set labels only relevant documents (``positive_only``: no label below 1), "labelled" means
        "relevant": judged@k then measures what precision@k measures, and a low value says the top k holds
        documents nobody labelled -- irrelevant ones or relevant ones missing from the golden set, which judged@k
        cannot tell apart. ``precision`` is precision@k on the same questions, for comparison. ``warn``: the mean is
        below ``warning_below`` on a golden set that labels non-relevant documents too -- the only case where a low
        Judged@k says labels are missing (on a relevant-only set it is a precision, low whenever k exceeds the gold).
        """
        k = max(self.ks) if k is None else check_int(k, "k")
        answerable = set(self.golden.answerable)
        gold = self.golden.gold[self.golden.gold["question_id"].isin(answerable)]
        run = self.run[self.run["question_id"].isin(answerable) & self.run["doc_id"].notna()]
        ev = evaluate(gold, run[["question_id", "rank", "doc_id"]], [f"judged@{k}", f"precision@{k}"])
        summary = ev.summary_dict()
        labels = gold.loc[gold["doc_id"].notna(), "relevance"]
        no_answer = int((self.golden.labelled["type"] == "no_answer").sum())
        mean, positive_only = summary[f"judged@{k}"]["mean"], bool((labels >= 1).all())
        return {"k": k, "mean": mean, "evaluated": summary[f"judged@{k}"]["evaluated"],
                "excluded": no_answer, "positive_only": positive_only,
                "precision": summary[f"precision@{k}"]["mean"], "warning_below": JUDGED_WARNING,
                "warn": bool(mean is not None and mean < JUDGED_WARNING and not positive_only)}


    def generation(self, answers: pd.DataFrame | None = None, *, generator: str | None = None) -> GenerationView:
        """Retrieval vs generation for this run (:func:`rag_metrics.experiment.generation.generation_view`)."""
        return generation_view(self, answers, generator=generator)

    def explain_data(self, question_id, k: int | None = None) -> dict:
        """One question's drill-down as plain data (:func:`rag_metrics.experiment.drilldown.explain_data`); ``k``:
        the items shown (default the largest k; an int >= 1)."""
        return explain_data(self, question_id, k)

    def explain(self, question_id, k: int | None = None) -> HtmlView:
        """One question's drill-down, rendered inline in JupyterLab (:func:`rag_metrics.experiment.drilldown.explain`)."""
        return explain(self, question_id, k)

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
