"""The report's verdict: the line at the top of the page, its banner and the diagnosis beside it (sections 0-2).

:class:`VerdictSections` holds the methods of :class:`~rag_metrics.experiment.experiment_report.ExperimentReport` that
state the verdict -- the subject against the baseline on the primary measure, every headline measure's paired comparison
(Holm-adjusted), the banner with its first findings, what changed between the two runs and whether the rulers
disagree on the change more than the change itself.
"""

from __future__ import annotations

import pandas as pd

from rag_metrics.core.html import HtmlView
from rag_metrics.experiment import history as _history
from rag_metrics.experiment.diagnosis import DiagnosisView, coverage_finding, diagnose
from rag_metrics.experiment.verdict import verdict_table
from rag_metrics.stats import format_p

__all__ = ["VerdictSections", "p_cell"]


class VerdictSections:
    """The verdict of an :class:`~rag_metrics.experiment.experiment_report.ExperimentReport` (module docstring); its
    fields (``subject``, ``baseline``, ``baseline_record``, ``subject_record``, ``verdict``, ``measure``, ``alpha``,
    ``coverage``, ``_cache``) are read here."""

    def verdict_markdown(self) -> str:
        """The verdict line (Markdown, run names escaped): the subject against the baseline on the primary measure,
        or, for a first run, its figure and that there is nothing to compare."""
        from rag_metrics.core.html import md_escape

        if self.verdict is not None:
            return self.verdict.markdown()
        iv = _history.interval(self.subject_record, self.measure, n_resamples=self.n_resamples)
        return (f"**first run**: **{md_escape(self.subject.name)}** is the first run of this experiment on this golden "
                f"set and judge, so there is nothing to compare it with yet; {self.measure} = {iv['mean']:.3f} "
                f"(95% interval {iv['low']:.3f} to {iv['high']:.3f}, {iv['n']} questions).")

    def verdict_table(self) -> pd.DataFrame:
        """Every headline measure's paired comparison (the primary first; the others with Holm-adjusted p);
        empty without a baseline."""
        if self.baseline_record is None:
            return pd.DataFrame()
        if "verdict_table" not in self._cache:
            before = pd.DataFrame({m: _history.per_question(self.baseline_record, m) for m in self.measures
                                   if m in self.baseline_record["summary"]})
            after = self.subject.evaluation.per_question
            self._cache["verdict_table"] = verdict_table(before, after, self.measures, self.measure, alpha=self.alpha,
                                                         n_resamples=self.n_resamples)
        return self._cache["verdict_table"]

    def verdict_view(self) -> pd.DataFrame:
        """:meth:`verdict_table` as the page shows it: p and p (Holm) printed as the verdict box prints p
        (:func:`~rag_metrics.stats.format_p`: ``< 0.001``, ``0.500``, more digits where 0.050 would read across
        alpha), ``-`` where there is none (the primary measure has no Holm p)."""
        table = self.verdict_table().copy()
        for col in ("p", "p_holm"):
            if col in table:
                table[col] = [p_cell(v, self.alpha) for v in table[col]]
        return table

    def diagnosis(self) -> DiagnosisView:
        """The patterns to see before any drill-down, with their counts (:func:`rag_metrics.experiment.diagnosis.diagnose`):
        a list of :class:`~rag_metrics.experiment.diagnosis.Finding`, rendered in JupyterLab as in the page."""
        if "diagnosis" not in self._cache:
            first = [] if self.coverage is None else [coverage_finding(self.coverage, self.subject.name,
                                                                       self.baseline_record["name"])]
            self._cache["diagnosis"] = DiagnosisView(first + diagnose(self.results, self.subject, self.moved(),
                                                                      self.subject.golden))
        return self._cache["diagnosis"]

    def banner(self) -> HtmlView:
        """The verdict banner at the top of the page: outcome (better / worse / within noise / no baseline), the
        change with its interval and p, wins / ties / losses, the runs by name, the first findings of
        :meth:`diagnosis`, links to the moved questions and the diagnosis."""
        v = self.verdict
        iv = _history.interval(self.subject_record, self.measure, n_resamples=self.n_resamples)
        moved = self.moved()
        counts = moved["change"].value_counts()
        line = v.line() if v is not None else f"{self.subject.name}: no baseline to compare with"
        return HtmlView("verdict_banner.html.j2", {
            "outcome": v.outcome if v is not None else "no baseline", "v": v, "subject": self.subject.name,
            "baseline": (self.baseline_record or {}).get("name"), "measure": self.measure, "iv": iv,
            "p": format_p(v.p_value, v.alpha) if v is not None else None,
            "moved": [(c, int(n), [str(q) + (f" ({note})" if note else "") for q, note in
                                   moved.loc[moved["change"] == c, ["question_id", "credit"]].head(3).itertuples(
                                       index=False)])
                      for c, n in counts.items()],
            "findings": [f.sentence for f in self.banner_findings()[:3]],
            "more_findings": max(0, len(self.diagnosis().findings) - min(3, len(self.banner_findings()))),
            "changed": self.changed_settings(), "rulers_apart": self.rulers_apart()}, f"<verdict banner: {line}>")

    def diagnosis_section(self) -> DiagnosisView:
        """The diagnosis as the page's section shows it: every finding, those the verdict box states (:meth:`banner`)
        named with their questions rather than said twice."""
        return DiagnosisView(self.diagnosis().findings, in_box=self.banner_findings()[:3])

    def banner_findings(self) -> list:
        """The findings the banner shows: those about the two runs it compares (the subject and the baseline) or
        about both; a third run's patterns stay in the diagnosis section, under its name."""
        ours = {self.subject.name, (self.baseline_record or {}).get("name")}
        return [f for f in self.diagnosis().findings if f.run is None or f.run in ours]

    def changed_settings(self, limit: int = 2) -> dict:
        """What the banner says changed between the baseline and the subject: ``{"rows": [(setting, before,
        after)], "more": n}`` -- the named recorded settings that differ (``options``, the retriever's own option
        list, only when no named one does), else what the two logs show; at most ``limit`` rows, ``more`` counting
        every other differing row of :meth:`config_diff`. No rows without a baseline or when nothing differs."""
        table = self.config_diff()
        if not len(table):
            return {"rows": [], "more": 0}
        differs = table[table["differs"] == "differs"]
        seen = differs.index.str.endswith("(seen in the log)")
        recorded = differs[~seen]
        chosen = recorded if len(recorded) else differs
        named = chosen[chosen.index != "options"]
        shown = named if len(named) else chosen  # the retriever's option list only when nothing named differs
        rows = [(str(k), str(v.iloc[0]), str(v.iloc[1])) for k, v in shown.iloc[:, :2].iterrows()][:limit]
        return {"rows": rows, "more": len(differs) - len(rows)}

    def rulers_apart(self) -> dict | None:
        """The banner's warning: the change on the primary measure under every ruler both runs have
        (:meth:`ruler_changes`), when the rulers' spread on it is larger than the verdict's own change -- then
        which ruler measures the change decides more than the change does. ``{"headline", "low", "low_change",
        "high", "high_change", "spread", "change"}`` (``headline``: the ruler the verdict uses), or None (no
        verdict, no baseline log, or a spread not above the change)."""
        changes = self.ruler_changes()
        if self.verdict is None or changes is None or self.measure not in changes:
            return None
        col = changes[self.measure].dropna().astype(float)
        if len(col) < 2 or not col.max() - col.min() > abs(self.verdict.delta):
            return None
        return {"headline": str(self.subject.primary), "low": str(col.idxmin()), "low_change": float(col.min()),
                "high": str(col.idxmax()),
                "high_change": float(col.max()), "spread": float(col.max() - col.min()),
                "change": float(self.verdict.delta)}


def p_cell(p, alpha: float) -> str:
    """A p-value in a table cell, printed as the verdict box prints it, without the leading ``p``."""
    if p is None or p != p:
        return "-"
    text = format_p(float(p), alpha)
    return text[4:] if text.startswith("p = ") else text[2:]
