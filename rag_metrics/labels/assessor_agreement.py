"""An assessor measured against people, and figures of one run that account for automatic labels.

**Agreement** (:func:`agreement`) -- on the items people labelled (gold pages: relevant; judged pages: relevant or
not), the assessor's grades read as relevant when ``grade >= 2``: the confusion matrix, accuracy, sensitivity,
specificity and Cohen's kappa with a 95% interval (:func:`cohen_kappa`). An assessor is *usable for headline figures*
when people labelled items of both kinds and the package's one rule holds
(:func:`~rag_metrics.stats.agreement.headline_refusal`): at least :data:`MIN_ITEMS` labelled items compared and the
lower end of kappa's interval at or above :data:`MIN_KAPPA` (0.6, "substantial" on Landis & Koch's scale);
otherwise :meth:`Agreement.require` refuses unless forced.

**Figures with assessed labels** (:func:`assessed_figures`) -- for a 0/1 per-question measure (page hit@k) of one run:

* *human labels only*: every question, judged with the gold pages and the human judgments (unlabelled pages count
  as misses: biased low when answer pages were never labelled);
* *human-judged sample*: only a random sample of questions whose every retrieved top-k page people judged
  (unbiased; few, so wide);
* *assessed labels added*: every question, the assessor's "relevant" on pages without a human label added (biased by
  the assessor's errors, in either direction);
* *prediction-powered* (PPI, Angelopoulos et al., Science 2023): the assessor-based figure over all N questions,
  corrected by the mean residual (human minus assessor) on the n questions of the judged sample -- unbiased because
  they are a random sample, whatever the assessor's quality; :func:`ppi_mean`.

The statistics (:func:`~rag_metrics.stats.agreement.cohen_kappa`, :func:`~rag_metrics.stats.agreement.ppi_mean`)
and their measured coverage are in :mod:`rag_metrics.stats.agreement`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, check_int
from rag_metrics.labels.assessors import RELEVANT_GRADE
from rag_metrics.stats.agreement import (MIN_ITEMS, MIN_KAPPA, Kappa, PPIEstimate, cohen_kappa, confusion_matrix,
                                         headline_refusal, ppi_mean, rate_interval)

__all__ = ["agreement", "Agreement", "agreement_table", "hit_with_pages", "assessed_figures", "LabelFigures"]

# --- an assessor's agreement with people --------------------------------------------------------------------------

@dataclass(frozen=True)
class Agreement:
    """An assessor's agreement with the human labels (:func:`agreement`)."""

    assessor: str
    n: int
    confusion: pd.DataFrame
    grades: pd.DataFrame
    kappa: Kappa
    accuracy: float
    sensitivity: float | None
    specificity: float | None
    min_kappa: float = MIN_KAPPA
    min_items: int = MIN_ITEMS
    items: pd.DataFrame = field(default=None, repr=False)

    @property
    def usable(self) -> bool:
        """Whether the assessor's labels may enter headline figures: items of both kinds, at least ``min_items`` of
        them, and the lower end of kappa's interval at or above ``min_kappa``."""
        return self.specificity is not None and self.sensitivity is not None and \
            headline_refusal(self.kappa, min_kappa=self.min_kappa, min_items=self.min_items) is None

    @property
    def verdict(self) -> str:
        if self.specificity is None:
            return ("refused: no compared item is labelled 'not relevant' by people (a golden set labels only what "
                    "answers): judge some retrieved pages -- reject the audit's candidates that do not answer -- to "
                    "measure the assessor")
        if self.sensitivity is None:
            return "refused: no compared item is labelled relevant by people"
        refusal = headline_refusal(self.kappa, min_kappa=self.min_kappa, min_items=self.min_items)
        if refusal is not None:
            return f"refused: {refusal}"
        k = self.kappa
        return (f"usable: kappa {k.kappa:.2f} [{k.low:.2f}, {k.high:.2f}], the lower end of its {k.confidence:.0%} "
                f"interval at or above {self.min_kappa:g}, on {self.n} labelled items")

    def require(self, *, force: bool = False) -> None:
        """Raise :class:`InputError` when the assessor is not usable for headline figures, unless ``force``."""
        if not self.usable and not force:
            raise InputError(f"assessor {self.assessor!r} {self.verdict}; its labels are not used for headline "
                             "figures (force=True, --force, to use them anyway).")

    def to_dict(self) -> dict:
        return {"assessor": self.assessor, "n": self.n, "kappa": self.kappa.to_dict(), "accuracy": self.accuracy,
                "sensitivity": self.sensitivity, "specificity": self.specificity, "usable": self.usable,
                "verdict": self.verdict, "confusion": self.confusion.to_dict(), "min_kappa": self.min_kappa,
                "min_items": self.min_items}


def agreement(grades: pd.DataFrame, human: pd.DataFrame, *, assessor: str | None = None, min_kappa: float = MIN_KAPPA,
              min_items: int = MIN_ITEMS, confidence: float = 0.95, n_resamples: int = 2000,
              seed: int = 0) -> Agreement:
    """Compare an assessor's grades with the human labels on the items both have.

    ``grades``: question_id, doc_id, page, grade (:func:`~rag_metrics.labels.assessors.assess_items`, or the
    assessor run on labelled items to measure it). ``human``: question_id, doc_id, page, relevant (gold pages and
    judgments: :func:`rag_metrics.labels.decisions.human_labels`). Items only one side has are not compared.
    """
    for name, frame, cols in (("grades", grades, ["question_id", "doc_id", "page", "grade"]),
                              ("human", human, ["question_id", "doc_id", "page", "relevant"])):
        missing = [c for c in cols if c not in frame.columns]
        if missing:
            raise InputError(f"agreement: {name} lacks column(s) {missing}; found {list(frame.columns)}.")
    keys = ["question_id", "doc_id", "page"]
    left = grades[keys + ["grade"]].astype({"page": int})
    right = human[keys + ["relevant"]].astype({"page": int}).drop_duplicates(keys)
    both = left.drop_duplicates(keys).merge(right, on=keys, how="inner")
    name = assessor or (str(grades["assessor"].iloc[0]) if "assessor" in grades.columns and len(grades) else "assessor")
    h = both["relevant"].astype(bool).to_numpy()
    a = (both["grade"].astype(int) >= RELEVANT_GRADE).to_numpy()
    if len(both) < 2:
        raise InputError(f"agreement: only {len(both)} item(s) have both a human label and a grade from "
                         f"{name!r}; assess the labelled items too (at least 2, {min_items} for headline figures).")
    kappa = cohen_kappa(h, a, confidence=confidence, n_resamples=n_resamples, seed=seed)
    graded = pd.crosstab(pd.Series(np.where(h, "relevant", "not relevant"), name="human"),
                         pd.Series(both["grade"].astype(int).to_numpy(), name="grade")).reindex(
        index=["relevant", "not relevant"], columns=[0, 1, 2, 3], fill_value=0)
    pos, neg = h.sum(), (~h).sum()
    return Agreement(name, int(len(both)), confusion_matrix(h, a), graded, kappa, float((h == a).mean()),
                     float((h & a).sum() / pos) if pos else None, float((~h & ~a).sum() / neg) if neg else None,
                     min_kappa, min_items, both.assign(assessed_relevant=a))


def agreement_table(agreements) -> pd.DataFrame:
    """One row per assessor: items, kappa and its interval, accuracy, sensitivity, specificity, the verdict."""
    rows = [{"assessor": a.assessor, "items": a.n, "kappa": a.kappa.kappa, "kappa low": a.kappa.low,
             "kappa high": a.kappa.high, "accuracy": a.accuracy, "sensitivity": a.sensitivity,
             "specificity": a.specificity, "verdict": a.verdict} for a in agreements]
    return pd.DataFrame(rows).set_index("assessor")


# --- the figures of one run, with and without assessed labels ------------------------------------------------------

def hit_with_pages(result, extra: pd.DataFrame | None = None, k: int | None = None) -> pd.Series:
    """Page-level hit@k per answerable question of an experiment result (its primary judge), the golden set's gold
    pages plus ``extra`` (question_id, doc_id, page) counted as gold. The result's own figure when ``extra`` is empty."""
    from rag_metrics.judging.judges import judge_run
    from rag_metrics.judging.page_index import PageIndex

    k = max(result.ks) if k is None else check_int(k, "k", func="hit_with_pages")
    gold = result.golden.gold_pages[["question_id", "doc_id", "page"]]
    if extra is not None and len(extra):
        gold = pd.concat([gold, extra[["question_id", "doc_id", "page"]].astype({"page": int})], ignore_index=True)
        gold = gold.drop_duplicates()
    run = result.run[result.run["doc_id"].notna() & (result.run["rank"] <= k)]
    index = PageIndex(result.corpus) if result.corpus is not None else None
    judged = judge_run(run, None, gold, result.judges[result.primary], index)
    hits = judged.groupby("question_id")["hit"].any()
    questions = [q for q in result.golden.answerable if q in set(result.golden.gold_pages["question_id"])]
    return pd.Series([float(hits.get(q, False)) for q in questions], index=pd.Index(questions, name="question_id"),
                     name=f"hit@{k}")


@dataclass(frozen=True)
class LabelFigures:
    """:func:`assessed_figures`: ``per_question`` (human, human_complete, assessor_based, assessed_added, sampled),
    the :class:`PPIEstimate` (None without a sample), the :class:`Agreement` it was allowed by, and ``k``."""

    per_question: pd.DataFrame
    ppi: PPIEstimate | None
    agreement: Agreement
    k: int
    forced: bool = False

    def table(self) -> pd.DataFrame:
        """The figures side by side: mean, 95% interval (Clopper--Pearson for the three counts of 0/1 values, the PPI
        interval for the last) and questions, one row per way of counting (module docstring)."""
        pq = self.per_question
        rows = {}
        for label, column in (("human labels only", "human"), ("human-judged sample only", "human_complete"),
                              ("assessed labels added", "assessed_added")):
            if column == "human_complete" and self.ppi is None:
                continue
            mean, low, high, n = rate_interval(pq[column])
            rows[label] = {"mean": mean, "low": low, "high": high, "questions": n}
        p = self.ppi
        if p is not None:
            rows["prediction-powered (PPI)"] = {"mean": p.estimate, "low": p.low, "high": p.high, "questions": p.N}
        table = pd.DataFrame.from_dict(rows, orient="index")
        table.index.name = f"hit@{self.k}"
        return table

    def headline(self, *, force: bool = False) -> PPIEstimate:
        """The PPI figure for a headline; refused when the assessor's agreement is below the stated level, or when
        no human-judged random sample was given."""
        self.agreement.require(force=force or self.forced)
        if self.ppi is None:
            raise InputError("no prediction-powered figure: give the random sample of questions people judged "
                             "completely (sample=...).")
        return self.ppi


def assessed_figures(result, grades: pd.DataFrame, human: pd.DataFrame, agreement_: Agreement, *, sample=None,
                     k: int | None = None, force: bool = False, confidence: float = 0.95) -> LabelFigures:
    """hit@k of one run with human labels only, with assessed labels added, and prediction-powered (module docstring).

    ``result``: an experiment result (:func:`~rag_metrics.experiment.evaluate.evaluate_log`). ``grades``: the
    assessor's grades on the run's retrieved top-k pages (question_id, doc_id, page, grade), the human-labelled ones
    included (they measure it; they never replace a human label). ``human``: the human labels (question_id, doc_id,
    page, relevant). ``agreement_``: the assessor's :class:`Agreement`, measured first: a refused assessor raises
    here unless ``force``. ``sample``: the IDs of the questions people judged completely -- every retrieved top-k
    page has a human label (an error names the first that has none) --, drawn at random from the answerable ones
    (:func:`rag_metrics.labels.judging_sheet.judging_sample`); without it there is no prediction-powered figure. Questions
    that happen to be complete because their top pages are gold are *not* a random sample and are never taken as one.
    """
    from rag_metrics.labels.assessors import retrieved_pages

    agreement_.require(force=force)
    k = max(result.ks) if k is None else check_int(k, "k", func="assessed_figures")
    keys = ["question_id", "doc_id", "page"]
    human = human[keys + ["relevant"]].astype({"page": int})
    grades = grades[keys + ["grade"]].astype({"page": int}).drop_duplicates(keys)
    pages, _ = retrieved_pages([(result.name, result)], result.corpus, k=k)
    pages = pages[pages["question_id"].isin(set(result.golden.answerable))].drop_duplicates(keys)[keys]
    gold = set(map(tuple, result.golden.gold_pages[keys].astype({"page": int}).itertuples(index=False)))
    human_pos = human[human["relevant"].astype(bool)]
    human_pos = human_pos[[t not in gold for t in map(tuple, human_pos[keys].itertuples(index=False))]]
    labelled = set(map(tuple, human[keys].itertuples(index=False))) | gold
    assessed_pos = grades[grades["grade"] >= RELEVANT_GRADE]
    assessed_pos = assessed_pos[[t not in gold for t in map(tuple, assessed_pos[keys].itertuples(index=False))]]
    unjudged_pos = assessed_pos[[t not in labelled for t in map(tuple, assessed_pos[keys].itertuples(index=False))]]
    missing = pages[[t not in labelled for t in map(tuple, pages.itertuples(index=False))]]
    graded = set(map(tuple, grades[keys].itertuples(index=False)))
    ungraded = [t for t in map(tuple, pages.itertuples(index=False)) if t not in graded and t not in gold]
    if ungraded:
        q, d, p = ungraded[0]
        raise InputError(f"assessed_figures: retrieved page {d!r} p.{p} of question {q!r} has no grade; assess every "
                         f"retrieved top-{k} page that is not gold ({len(ungraded)} missing).", question=q)
    human_hit = hit_with_pages(result, human_pos, k)
    f = hit_with_pages(result, assessed_pos, k)  # assessor on every non-gold page: the same function everywhere
    added = hit_with_pages(result, pd.concat([human_pos[keys], unjudged_pos[keys]]), k)
    sampled = pd.Series(False, index=human_hit.index)
    ppi = None
    if sample is not None:
        sample = list(dict.fromkeys(sample))
        unknown = [q for q in sample if q not in sampled.index]
        if unknown:
            raise InputError(f"assessed_figures: sampled question {unknown[0]!r} is not an answerable question of the "
                             "golden set.", question=unknown[0])
        gap = missing[missing["question_id"].isin(sample)]
        if len(gap):
            q, d, p = gap.iloc[0]
            raise InputError(f"assessed_figures: sampled question {q!r} is not judged completely: retrieved page {d!r} "
                             f"p.{p} has no human label ({len(gap)} such page(s)).", question=q)
        sampled[sample] = True
        ppi = ppi_mean(human_hit.where(sampled), f, confidence=confidence)
    per_question = pd.DataFrame({"human": human_hit, "human_complete": human_hit.where(sampled),
                                 "assessor_based": f, "assessed_added": added, "sampled": sampled})
    return LabelFigures(per_question, ppi, agreement_, k, force)
