"""`labels assess` as plain steps: whose labels count as people's, which retrieved pages an assessor grades, and
the assessor measured against people before any figure uses its grades.

:func:`people_judgments` gathers the human page judgments (a judgments file -- by default the golden set's own
``<golden>.judgments.jsonl`` when it exists -- and a filled judging sheet, whose rows win on the same page);
:func:`plan_assessment` evaluates one log and lists its retrieved top-k pages, marking those people labelled;
:func:`assess_plan` grades them, measures the assessor on the labelled ones and computes the figures with assessed
labels only when the assessor is usable (or ``force``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

KEYS = ["question_id", "doc_id", "page"]


def people_judgments(golden_path, *, judgments=None, sheet=None, golden=None, corpus=None) -> tuple[
        pd.DataFrame | None, list | None]:
    """``(judgments, sampled question IDs)``: the judgments file ``judgments`` (default ``<golden_path>.judgments
    .jsonl``, used only when it exists), merged with the filled judging sheet ``sheet`` when given (the sheet's label
    wins where both judge a page; its question IDs are the random sample; read against ``golden`` and ``corpus``,
    :func:`~rag_metrics.labels.judging_sheet.read_judging_sheet`). ``(None, None)`` when there is neither."""
    from rag_metrics.labels.judging_sheet import read_judging_sheet
    from rag_metrics.labels.decisions import load_judgments

    path = judgments or (str(golden_path) + ".judgments.jsonl")
    found = load_judgments(path) if judgments or Path(path).is_file() else None
    if not sheet:
        return found, None
    labelled, sample = read_judging_sheet(sheet, golden=golden, corpus=corpus)
    if found is None:
        return labelled, sample
    return pd.concat([found, labelled], ignore_index=True).drop_duplicates(KEYS, keep="last"), sample


@dataclass
class AssessmentPlan:
    """One evaluated log's retrieved top-``k`` pages to grade (``items``), people's labels (``human``), which items
    people labelled (``labelled``, one bool per item) and the randomly sampled questions (``sample``) if any."""

    result: object
    items: pd.DataFrame
    human: pd.DataFrame
    labelled: list
    k: int
    sample: list | None = None


def plan_assessment(golden, corpus, log, *, k: int, judgments=None, sample=None) -> AssessmentPlan:
    """Evaluate ``log`` at ``k`` (refusing a log whose items match no gold) and list its retrieved top-k pages,
    each marked labelled when people's labels (gold pages and ``judgments``) cover it."""
    from rag_metrics.experiment.evaluate import evaluate_log
    from rag_metrics.labels.assessors import assessment_items
    from rag_metrics.labels.label_audit import check_matches
    from rag_metrics.labels.decisions import human_labels

    human = human_labels(golden, judgments)
    result = evaluate_log(golden, log, corpus, ks=(k,))
    check_matches(result)
    items = assessment_items(result, corpus, k=k)
    known = set(map(tuple, human[KEYS].itertuples(index=False)))
    labelled = [t in known for t in map(tuple, items[KEYS].itertuples(index=False))]
    return AssessmentPlan(result, items, human, labelled, k, sample)


@dataclass
class Assessment:
    """The grades of the labelled pages (``measured``), the assessed labels of the others (``labels``), the
    assessor's agreement with people and -- only when it may be shown -- the figures with assessed labels."""

    measured: pd.DataFrame
    labels: pd.DataFrame
    agreement: object
    figures: object | None

    @property
    def shown(self) -> bool:
        return self.figures is not None


def assess_plan(plan: AssessmentPlan, assessor, *, name: str, force: bool = False) -> Assessment:
    """Grade the plan's pages with ``assessor`` (called ``name``): first those people labelled, to measure it; the
    figures with assessed labels are computed only when the agreement is usable or ``force`` (any refusal raised
    here, before anything is written)."""
    from rag_metrics.labels.assessor_agreement import agreement, assessed_figures
    from rag_metrics.labels.assessors import assess_items

    measured = assess_items(plan.items[plan.labelled], assessor)
    labels = assess_items(plan.items, assessor, human=plan.human)
    agr = agreement(measured, plan.human, assessor=name)
    figures = None
    if agr.usable or force:
        figures = assessed_figures(plan.result, pd.concat([measured, labels], ignore_index=True), plan.human, agr,
                                   k=plan.k, force=force, sample=plan.sample)
    return Assessment(measured, labels, agr, figures)
