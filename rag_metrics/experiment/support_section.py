"""The experiment report's section on answer support (section 6): each question that did not pass with its claims
(:func:`support_drilldown`), and how the diagnoses changed between two runs (:func:`change_claim`,
:func:`change_table`). Also importable from :mod:`rag_metrics.experiment.answer_support`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.experiment.answer_diagnoses import DIAGNOSES, LOOK_AT, Diagnosis, is_missing

__all__ = ["SupportDrilldown", "support_drilldown", "change_claim", "change_table"]


@dataclass(frozen=True)
class SupportDrilldown:
    """:func:`support_drilldown`: the listed questions (dicts with their claims) and how many more there were;
    renders in JupyterLab and in the report page through an autoescaped template."""

    questions: list
    more: int
    lead: str

    def __repr__(self) -> str:
        lines = [self.lead]
        for q in self.questions:
            lines.append(f"{q['question_id']} {q['diagnosis']}: {q['question']}")
            for c in q["claims"]:
                mark = {True: "supported", False: "not supported", None: "nothing to judge"}[c["supported"]]
                where = f" ({c['doc_id']} p.{c['page']})" if c["doc_id"] else ""
                lines.append(f"  {mark}{where}: {c['claim']}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from rag_metrics.core.html import render

        return render("support_claims.html.j2", questions=self.questions, more=self.more, lead=self.lead)


def support_drilldown(diagnosis: Diagnosis, questions, *, limit: int = 20) -> SupportDrilldown:
    """Each question's claims with their support, for the report's drill-down: the questions that did not pass (in
    :data:`DIAGNOSES` order, then by ID), at most ``limit``; each with its diagnosis, what to look at, the
    expected and the generated answer, and every claim -- supported or not, the supporting (or closest) document,
    page and span, and the judge's reason. ``questions``: question text by question_id."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InputError(f"support_drilldown: limit must be a whole number >= 0, got {limit!r}.")
    r = diagnosis.records
    failed = sorted((q for q in r.index if r.at[q, "diagnosis"] != "passed"),
                    key=lambda q: (DIAGNOSES.index(r.at[q, "diagnosis"]), str(q)))
    by_q = {q: g for q, g in diagnosis.claims.groupby("question_id", sort=False)}
    listed = []
    for q in failed[:limit]:
        rec = r.loc[q]
        claims = by_q.get(q, diagnosis.claims.iloc[:0])
        listed.append({"question_id": q, "question": questions.get(q, ""), "diagnosis": rec["diagnosis"],
                       "look_at": LOOK_AT[rec["diagnosis"]], "expected": rec["expected"], "answer": rec["answer"],
                       "correct": bool(rec["correct"]), "lexical_ok": bool(rec["lexical_ok"]),
                       "retrieval_ok": bool(rec["retrieval_ok"]), "context": rec["context"],
                       "claims": [{"claim": c["claim"],
                                   "supported": None if is_missing(c["supported"]) else bool(c["supported"]),
                                   "doc_id": c["doc_id"] if isinstance(c["doc_id"], str) else None,
                                   "page": None if is_missing(c["page"]) else int(c["page"]),
                                   "span": c["span"] if isinstance(c["span"], str) else None, "reason": c["reason"]}
                                  for c in claims.to_dict("records")]})
    passed = len(r) - len(failed)
    lead = (f"The {len(failed)} of {len(r)} answerable questions that did not pass, each claim of the answer with its "
            f"support in the context the answer was made from ({passed} passed: not listed).")
    return SupportDrilldown(listed, len(failed) - len(listed), lead)


def change_claim(change: dict, before: str, after: str, *, alpha: float = 0.05) -> dict:
    """The sentence on how the diagnoses changed from ``before`` to ``after`` (:func:`diagnosis_change`), as
    :func:`rag_metrics.report.kernel.claim`'s arguments: the questions whose diagnosis changed and the change of the
    passed share with its interval and exact sign test, the p printed on its side of ``alpha``; when no diagnosis
    changed, that sentence instead."""
    from rag_metrics.stats.paired import format_p

    table = change["table"]
    moved = int(table.to_numpy().sum() - np.trace(table.to_numpy()))
    text = (f"**{moved}** of {change['n']} questions changed diagnosis from {before} to {after}; the passed share "
            f"changed by {change['change']:+.3f} [{change['low']:+.3f}, {change['high']:+.3f}] ({change['wins']} "
            f"newly passed, {change['losses']} no longer passed; exact sign test, {format_p(change['p'], alpha)}).")
    return {"condition": moved > 0, "text_if_true": text,
            "text_if_false": f"No question changed diagnosis from {before} to {after} ({change['n']} questions).",
            "name": "diagnosis_changed", "figures": {"moved": moved, "n": change["n"], "change": change["change"],
                                                    "p": change["p"], "wins": change["wins"],
                                                    "losses": change["losses"]}}


def change_table(change: dict) -> pd.DataFrame:
    """The questions that changed diagnosis (:func:`diagnosis_change`), one row per (before, after) pair with its
    count, most first; empty when none changed."""
    table = change["table"]
    rows = [{"Before": a, "After": b, "Questions": int(table.at[a, b])} for a in table.index for b in table.columns
            if a != b and table.at[a, b] > 0]
    return pd.DataFrame(rows, columns=["Before", "After", "Questions"]).sort_values(
        "Questions", ascending=False, kind="stable").reset_index(drop=True)
