"""What makes a comparison of two runs read more than it holds: questions one run did not log, and credit that rests
on the page window or on one ruler alone.

* :func:`logged_coverage` -- two saved runs that did not log the same questions: the questions both logged (the
  verdict's), those each left out, and how many each logged. The experiment report compares on the first and names
  the others (:func:`rag_metrics.experiment.diagnosis.coverage_finding`), so a log of 12 of 71 questions never reads
  as a collapse.
* :func:`credit_note` -- a question's hit that holds only through the judge's page window (the item's own pages are
  not gold; a gold page lies 1 to ``window`` pages away), or that only one page ruler gives: the report marks the moved
  questions so.
"""

from __future__ import annotations

from rag_metrics.experiment.history import logged

__all__ = ["logged_coverage", "credit_note"]


def _cutoff(result, measure: str) -> int:
    head, _, k = measure.partition("@")
    return int(k) if k.isdigit() else max(result.ks)


def _through_window(doc, pages, satisfied, window: int) -> bool:
    """Whether an item is credited only because a gold page lies within ``window`` of its own pages: every gold page
    it satisfies is 1 to ``window`` pages away from its nearest own page (none is one of its pages, none is further:
    a page found by its text, :mod:`rag_metrics.judging.locate`, is no window credit)."""
    pages = [p for p in (pages or ()) if p is not None]
    if not pages or not satisfied:
        return False
    gaps = [min(abs(g - p) for p in pages) for d, g in satisfied if d == doc]
    return bool(gaps) and all(1 <= gap <= window for gap in gaps)


def credit_note(result, question_id, measure: str) -> str:
    """Why a question's credit under ``result``'s primary ruler is fragile, or ``""``: every item credited in the
    top k (``measure``'s k, the largest for MRR) is credited only through the judge's page window -- none of its own
    pages is a gold page it satisfies -- (``"only through the ±1 page window"``), and/or no other page ruler of the
    run credits the question at all (``"only the overlap ruler credits it (page, marker do not)"``)."""
    k = _cutoff(result, measure)
    judged = result.judged.get(result.primary)
    notes = []
    if judged is not None and "satisfies" in judged.columns:
        rows = judged[(judged["question_id"] == question_id) & (judged["rank"] <= k) & judged["hit"].astype(bool)]
        window = getattr(result.judges.get(result.primary), "window", 0)
        if len(rows) and window and all(_through_window(doc, pages, sat, window) for doc, pages, sat in
                                        zip(rows["doc_id"], rows["pages"], rows["satisfies"])):
            notes.append(f"only through the ±{window} page window")
    hit = f"hit@{k}"
    others = [name for name in ("page", "marker", "overlap") if name != result.primary and name in result.pages
              and hit in result.pages[name].per_question]
    primary = result.pages[result.primary].per_question
    if others and hit in primary and primary[hit].get(question_id, 0) > 0 and \
            all(result.pages[name].per_question[hit].get(question_id, 0) == 0 for name in others):
        notes.append(f"only the {result.primary} ruler credits it ({', '.join(others)} "
                     f"do{'es' if len(others) == 1 else ''} not)")
    return "; ".join(notes)



def logged_coverage(baseline_record: dict, subject_record: dict) -> dict | None:
    """None when both runs logged the same questions; else ``both`` (the questions both logged, the verdict's),
    ``subject_only_missing`` (logged by the baseline, not by the subject), ``baseline_only_missing`` (the other
    way), the counts each logged, and ``all`` (the verdict over every question, added by the caller)."""
    before, after = logged(baseline_record), logged(subject_record)
    if set(before) == set(after):
        return None
    after_set, before_set = set(after), set(before)
    return {"both": [q for q in after if q in before_set], "baseline_logged": len(before),
            "subject_logged": len(after), "questions": len(subject_record["per_query"]),
            "subject_only_missing": [q for q in before if q not in after_set],
            "baseline_only_missing": [q for q in after if q not in before_set]}
