"""An evaluated run's questions one by one: the misses and failure kinds, the no_answer questions, the logged answers,
how deep the log reaches, Judged@k, retrieval vs generation and each question's drill-down.

:class:`QuestionViews` holds the methods of :class:`~rag_metrics.experiment.result.ExperimentResult` that look at
questions rather than at the headline; each is a function of another module where it has a role of its own
(:mod:`rag_metrics.experiment.failures`, :mod:`rag_metrics.experiment.generation`,
:mod:`rag_metrics.experiment.drilldown`).
"""

from __future__ import annotations

import pandas as pd

from rag_metrics.core.errors import check_int
from rag_metrics.core.html import HtmlView
from rag_metrics.io.log_matching import log_key
from rag_metrics.measures.evaluation import JUDGED_WARNING
from rag_metrics.measures.evaluator import evaluate
from rag_metrics.experiment.drilldown import explain, explain_data
from rag_metrics.experiment.failures import FAILURE_KINDS, GROUP_MISSING
from rag_metrics.experiment.generation import GenerationView, generation_view

__all__ = ["QuestionViews"]


class QuestionViews:
    """The question views of an :class:`~rag_metrics.experiment.result.ExperimentResult` (module docstring); its
    fields (``golden``, ``log``, ``run``, ``failures``, ``ks``, ``question_map``, ``settings``, ``_cache``) and
    :meth:`~rag_metrics.experiment.result.ExperimentResult.values` are read here."""

    def answers(self) -> pd.Series:
        """The answers logged with the questions, indexed by golden question ID (empty when none)."""
        out = {}
        for qid, text, answer in zip(self.log.questions["question_id"], self.log.questions["question"],
                                     self.log.questions["answer"]):
            key = log_key(qid, text)
            if answer is not None and key in self.question_map:
                out[self.question_map[key]] = str(answer)
        return pd.Series(out, dtype=object, name="generated_answer")

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
