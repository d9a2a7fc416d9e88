"""Retrieval vs generation of one evaluated run: the answers joined, their context checked, the statuses attributed.

:func:`generation_view` is :meth:`ExperimentResult.generation <rag_metrics.experiment.result.ExperimentResult.generation>`:
it takes an evaluated run and (optionally) an answers table and hands on a :class:`GenerationView`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from rag_metrics.core.errors import InputError, check_choice
from rag_metrics.experiment.attribution import attribute, join_answers, status_summary, status_table

__all__ = ["GenerationView", "generation_view"]


@dataclass(frozen=True, repr=False)
class GenerationView:
    """Retrieval vs generation of one run (:meth:`ExperimentResult.generation`).

    ``source``: where the answers came from (``"answers file"``, ``"log"``, or None: no answers anywhere);
    ``attribution``: the per-question statuses (None without answers or expected answers); ``without_expected``:
    labelled questions the golden set gives no expected answer for (left out); ``k``: the cutoff of the statuses;
    ``context``: the check of the answers' retrieved IDs against the run (``checked``, ``differ`` -- question IDs
    whose answer was generated from other documents than this run's top items -- and ``depth``); ``notes``.
    """

    source: str | None
    attribution: object
    without_expected: list
    k: int | None
    context: dict
    notes: list

    def status_table(self) -> pd.DataFrame:
        """Questions per status, each with what it measures under the rule (empty without attribution)."""
        if self.attribution is None:
            return pd.DataFrame(columns=["what it measures", "questions"])
        return status_table(self.attribution)

    def summary(self) -> str:
        """The section's sentence: headline figures and status counts, each status named for what it measures
        (:func:`~rag_metrics.experiment.attribution.status_summary`); empty without attribution."""
        return "" if self.attribution is None else status_summary(self.attribution)

    def _lead(self) -> str:
        if self.source is None:
            return "Retrieval vs generation: no answers (neither an answers file nor answers in the log)."
        if self.attribution is None:
            return f"Retrieval vs generation: answers from the {self.source}, but no expected answers to judge them by."
        return (f"Retrieval vs generation at document level, k = {self.k}, answers from the {self.source}: "
                f"{self.summary()}")

    def __repr__(self) -> str:
        from rag_metrics.core.html import one_line

        return one_line(f"<GenerationView: {self._lead()}>")

    def _repr_html_(self) -> str:
        from rag_metrics.core.html import summary

        return summary(" ".join([self._lead(), *self.notes]), (None, self.status_table().head(30)))


def generation_view(self, answers: pd.DataFrame | None = None, *, generator: str | None = None) -> GenerationView:
    """Retrieval vs generation for the run ``self`` (an
    :class:`~rag_metrics.experiment.result.ExperimentResult`) (:func:`rag_metrics.experiment.attribution.attribute`).

    The answers come from ``answers`` (a table with question_id and generated_answer, and optionally generator
    and retrieved_ids -- e.g. :func:`rag_metrics.io.corpus.load_answers`; ``generator`` picks one) or else from
    the log itself. Answerable questions without an expected answer in the golden set are left out (listed);
    ``no_answer`` questions are attributed apart (refusals). When the
    answers file says which documents each answer was generated from (``retrieved_ids``), they are checked
    against this run's top items: answers generated from another retrieval are counted and named (the statuses
    would mix two systems), and when every answer's context is this run's top n, the statuses use k = n (what
    the generator read); otherwise k is the largest cutoff.
    """
    logged = self.answers()
    notes: list = []
    if answers is not None:
        table, source = _one_generator(answers, generator), "answers file"
    elif len(logged):
        labelled = list(self.golden.labelled.index)
        table = pd.DataFrame({"question_id": labelled, "generated_answer": [logged.get(q, "") for q in labelled]})
        source = "log"
    else:
        return GenerationView(None, None, [], None, {}, [])
    joined = join_answers(self.golden, table[[c for c in ("question_id", "generated_answer") if c in table]])
    expected = joined["expected_answer"]
    has_expected = expected.notna() & (expected.astype(str).str.strip() != "")
    answerable = joined["question_id"].isin(set(self.golden.answerable))
    without = [str(q) for q in joined.loc[~has_expected & answerable, "question_id"]]
    joined = joined[has_expected | ~answerable]  # no_answer questions are attributed apart (refusals)
    if not has_expected.any():
        return GenerationView(source, None, without, None, {}, notes)
    context: dict = {}
    k = max(self.ks)
    if source == "answers file":
        if "retrieved_ids" in table.columns:
            context = _context_check(self, table, joined)
            if context["checked"] and not context["differ"] and context["depth"]:
                k = context["depth"]
                notes.append(f"every answer was generated from this run's top {k}: statuses at k = {k}")
        else:
            notes.append("the answers file does not say which documents each answer was generated from "
                         "(retrieved_ids): the statuses assume this run's retrieval")
    run_rows = self.run[self.run["question_id"].isin(set(joined["question_id"])) & self.run["doc_id"].notna()]
    attribution = attribute(joined, k=k, run=run_rows[["question_id", "rank", "doc_id", "score"]])
    return GenerationView(source, attribution, without, k, context, notes)


def _one_generator(answers: pd.DataFrame, generator: str | None) -> pd.DataFrame:
    """The answers of one generator: ``generator``'s when the table names several, refused when it names several and
    ``generator`` is None."""
    table = answers
    generators = list(dict.fromkeys(table["generator"].dropna())) if "generator" in table.columns else []
    if generator is not None and generators:
        check_choice(generator, generators, "generator", func="generation")
        table = table[table["generator"] == generator]
    elif len(generators) > 1:
        raise InputError(f"the answers come from {len(generators)} generators ({', '.join(map(str, generators))}): "
                         f"name one, e.g. generation(answers, generator={generators[0]!r}).", field="generator")
    return table


def _context_check(result, table: pd.DataFrame, joined: pd.DataFrame) -> dict:
    """The answers' ``retrieved_ids`` against the run's top items (logged or resolved document IDs), over the
    answerable questions: ``checked`` (answers that say), ``differ`` (question IDs generated from other items) and
    ``depth`` (how many items every answer read, None when they differ)."""
    ids = dict(zip(table["question_id"], table["retrieved_ids"]))
    ranked = result.run.sort_values(["question_id", "rank"], kind="stable")
    logged_ids = {q: (list(g["logged_doc_id"]), list(g["doc_id"])) for q, g in ranked.groupby("question_id")}
    differ, depths = [], set()
    checked_ids = [q for q in joined["question_id"] if q in set(result.golden.answerable)]
    for q in checked_ids:
        used = ids.get(q)
        if not isinstance(used, list):
            continue
        used = [str(u) for u in used]
        depths.add(len(used))
        raw, resolved = logged_ids.get(q, ([], []))
        if used not in (raw[:len(used)], resolved[:len(used)]):
            differ.append(str(q))
    checked = sum(isinstance(ids.get(q), list) for q in checked_ids)
    return {"checked": checked, "differ": differ, "depth": next(iter(depths)) if len(depths) == 1 else None}
