"""An evaluated run's rulers and page checks: every ruler side by side, what they disagree on, what the overlap judge
left out as boilerplate, how the items got their pages, and the page audit.

:class:`RulerViews` holds the methods of :class:`~rag_metrics.experiment.result.ExperimentResult` that compare its
rulers (:mod:`rag_metrics.experiment.rulers`) and check its logged pages (:mod:`rag_metrics.judging.page_audit`), and
the sentences a report must show about them (:meth:`~RulerViews.notices`).
"""

from __future__ import annotations

import pandas as pd

from rag_metrics.judging.boilerplate import boilerplate_lines
from rag_metrics.judging.judges import OverlapJudge
from rag_metrics.judging.page_audit import audit_pages
from rag_metrics.experiment.rulers import raw_overlap, ruler_changes, ruler_disagreements, ruler_table, unfindable_gold

__all__ = ["RulerViews"]


class RulerViews:
    """The ruler views of an :class:`~rag_metrics.experiment.result.ExperimentResult` (module docstring); its fields
    (``judges``, ``page_index``, ``run``, ``settings``, ``name``, ``_cache``) are read here."""

    def raw_overlap(self):
        """The overlap judge with boilerplate kept -- ``(description, Evaluation, judged rows)`` -- to show what page
        furniture does; None when the overlap judge does not apply or keeps boilerplate already
        (:func:`rag_metrics.experiment.rulers.raw_overlap`)."""
        return raw_overlap(self)

    def ruler_table(self) -> pd.DataFrame:
        """Every headline measure under every ruler (:func:`rag_metrics.experiment.rulers.ruler_table`)."""
        return ruler_table(self)

    def ruler_changes(self, previous) -> pd.DataFrame:
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
